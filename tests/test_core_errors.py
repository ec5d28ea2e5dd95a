"""SolveError.recast: a face's own error name, with every attribute of the floors' error."""
import pickle

from lib.core.errors import NewtonFailure, SolveError
from lib.rod import StaticSolveError


def test_recast_keeps_every_attribute_and_the_message():
    err = NewtonFailure("stalled", where="rod.static", step=2, nsteps=10, load=0.2,
                        iteration=7, residual=3e-4, tol=1e-10, reason="maxiter")
    new = err.recast(StaticSolveError)
    assert isinstance(new, StaticSolveError) and isinstance(new, SolveError)
    assert str(new) == str(err)
    assert (new.step, new.iteration, new.reason, new.residual) == (2, 7, "maxiter", 3e-4)
    assert str(pickle.loads(pickle.dumps(new))) == str(err)
