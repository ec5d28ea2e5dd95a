"""lib.solvers.continuation: the one load path and time-step halving.

Properties: uniform increments are exactly j/steps; an adaptive path cuts a failed
increment in half and, after a success, grows it back to the nominal one (without
re-growth it keeps the cut one, as incompressible.solve did); a path that runs out of
cuts is a SolveError with reason "cut limit" naming the load factor, the iteration and
the residual of the last attempt; a uniform failure is located at its load step;
halving is the same idea in time and is what lib.integrate re-exports.
"""
import numpy as np
import pytest

from lib import integrate
from lib.core.errors import NewtonFailure, SolveError
from lib.solvers import continuation, halving, load_path, newton_solve


def test_uniform_increments_are_exact_and_recorded():
    seen = []

    def solve_at(lam, x):
        seen.append(lam)
        return x + 1.0, 3

    x, info = load_path(solve_at, np.zeros(2), steps=7, record=True)
    assert seen == [j / 7 for j in range(1, 8)] and info.lam.tolist() == seen
    assert info.iterations.tolist() == [3] * 7 and info.newton_total == 21 and info.cuts == 0
    assert np.array_equal(x, [7.0, 7.0]) and [s[0] for s in info.states] == list(range(1, 8))


def test_a_uniform_failure_names_its_load_step():
    def solve_at(lam, x):
        if lam > 0.5:
            raise NewtonFailure(where="rod.static", reason="line search", iteration=12,
                                residual=3.1e-4, tol=1e-10)
        return x, 1

    with pytest.raises(NewtonFailure) as err:
        load_path(solve_at, 0.0, steps=10)
    e = err.value
    assert (e.step, e.nsteps, e.load) == (6, 10, 0.6)
    assert str(e) == ("rod.static: load step 6/10 (λ = 0.6), iteration 12, residual 3.1e-04 "
                      "(tol 1.0e-10): line search failed")
    assert isinstance(e.__cause__, NewtonFailure)


def hard_in_the_middle(lam, x):
    """Fails for increments > 0.1 that end in 0.4 < λ < 0.8 (a hard stretch of the path)."""
    if 0.4 < lam < 0.8 and lam - x > 0.1 + 1e-12:
        raise SolveError(where="toy", reason="maxiter", iteration=25, residual=1.0)
    return lam, 4


def increments(info):
    return np.diff(np.r_[0.0, info.lam]).round(12).tolist()


def test_adaptive_cuts_grow_back_after_the_hard_part():
    x, info = load_path(hard_in_the_middle, 0.0, steps=4, adaptive=True)
    assert x == 1.0 and info.lam[-1] == 1.0
    inc = increments(info)
    assert inc[0] == 0.25 and min(inc) == 0.0625             # cut twice in the hard stretch
    after = [d for d, lam in zip(inc, info.lam) if lam > 0.8]
    assert after and min(after) > 0.0625                     # ... and grown back after it
    failed = [t for t in info.tried if not t[2]]
    assert info.cuts == len(failed) > 0 and all(t[1] == 25 for t in failed)
    _, kept = load_path(hard_in_the_middle, 0.0, steps=4, adaptive=True, regrow=False)
    assert increments(kept)[-1] == 0.0625                    # without re-growth it stays cut
    assert len(kept.lam) > len(info.lam)


def test_running_out_of_cuts_says_how_far_it_got():
    def never(lam, x):
        if lam > 0.3:
            raise NewtonFailure(where="inc", reason="diverged", iteration=7, residual=2e-10,
                                relative=2e-10, tol=1e-10)
        return lam, 2

    with pytest.raises(SolveError) as err:
        load_path(never, 0.0, steps=4, adaptive=True, max_cuts=2, where="incompressible.solve")
    e = err.value
    assert e.reason == "cut limit" and e.where == "incompressible.solve"
    assert e.load == pytest.approx(0.25 + 0.25 / 4) and (e.iteration, e.residual) == (7, 2e-10)
    assert str(e).startswith("incompressible.solve: load step 2 (λ = 0.3125), iteration 7, "
                             "residual 2.0e-10 (tol 1.0e-10), after 2 halvings: increment cut "
                             "limit reached; converged up to λ = 0.25")
    assert isinstance(e.__cause__, NewtonFailure)


def test_the_start_is_never_modified():
    x0 = np.ones(3)

    def solve_at(lam, x):
        x *= 0.0                                   # a careless solver
        return x + lam, 1

    x, _ = load_path(solve_at, x0, steps=3)
    assert np.array_equal(x0, np.ones(3)) and np.allclose(x, 1.0)


def test_with_newton_the_path_is_the_continuation_of_a_real_solve():
    # x^3 + x = lam * 10: each increment solved by the shared Newton from the last one
    def solve_at(lam, x):
        return newton_solve(lambda x: (x**3 + x - 10 * lam, np.diag(3 * x**2 + 1)), x,
                            maxiter=3, line_search=False)

    x, info = load_path(solve_at, np.zeros(1), steps=2, adaptive=True)
    assert abs(x[0] ** 3 + x[0] - 10) < 1e-9 and info.cuts > 0      # maxiter 3 forces cuts


@pytest.mark.parametrize("kw,name", [
    (dict(steps=0), "steps"), (dict(steps=2.0), "steps"), (dict(steps=True), "steps"),
    (dict(steps=2, max_cuts=-1), "max_cuts"), (dict(steps=2, adaptive="yes"), "adaptive"),
    (dict(steps=2, regrow=1), "regrow"), (dict(steps=2, record=None), "record"),
])
def test_bad_arguments_name_themselves(kw, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        load_path(lambda lam, x: (x, 1), 0.0, **kw)
    with pytest.raises(ValueError, match=r"^solve_at must be callable"):
        load_path(None, 0.0, steps=1)


# ------------------------------------------------------------------------------ halving
def test_halving_is_the_one_integrate_re_exports_and_catches_every_solve_error():
    assert integrate.halving is halving is continuation.halving

    def step(s, h):
        if h > 0.3:
            raise SolveError(where="any solve", reason="singular")
        return (s[0] + h,)

    (t,), nsub = halving(step, (0.0,), 1.0)
    assert t == 1.0 and nsub == 4
    with pytest.raises(SolveError) as err:
        halving(step, (0.0,), 1.0, max_halvings=1)
    assert err.value.halvings == 1 and "after 1 halving" in str(err.value)
    for bad, name in ((dict(dt=0.0), "dt"), (dict(dt=np.nan), "dt"),
                      (dict(dt=1.0, max_halvings=1.5), "max_halvings")):
        with pytest.raises(ValueError, match=rf"^{name} "):
            halving(step, (0.0,), **bad)
