"""Shared library of the executable textbook *Continuum and soft-robot dynamics*.

One small module per model; every chapter of the book imports from here.

Modules
-------
core        the bottom floor: checks (argument checks), errors (SolveError), linalg
solvers     the solver floor: newton_solve, load_path / halving, saddle (KKT, LCP, QP)
rod         discrete planar Cosserat rod (energy, gradient, Hessian, statics, modes)
rod3d       discrete Cosserat rod in 3-D (quaternion frames, twist, Lie-group integrators)
beam        analytic references: Euler-Bernoulli, Timoshenko, elastica
integrate   model-independent time integrators (Verlet, Newmark, generalised-alpha,
            discrete gradient) and a safeguarded Newton
damping     Kelvin-Voigt damping of the rod, Rayleigh damping of the FEM arm
pcc         piecewise-constant-curvature reduction (Rayleigh-Ritz, nonlinear dynamics)
fem         plane-strain neo-Hookean T3/T6 finite elements
incompressible  rubber models and locking-free finite-strain elements (u-p, F-bar)
actuation   tendons, follower pressure, inverse models (QP with cable bounds)
levels      one soft arm as PCC, rod and FEM: mapping, cases, errors and costs
constraints Lagrange multipliers: KKT / Schur solves, stabilisation, contact LCP
crosscheck  adapters to SciPy, scikit-fem, MuJoCo and PyElastica
explore     compute functions behind the chapters' widgets
exercises   self-checking exercises: check(key, answer)
published   the registry of every number the source chapters publish
book        helpers the notebooks use to glue, check and save figures
"""
__all__ = ["core", "solvers", "rod", "rod3d", "beam", "integrate", "damping", "pcc", "fem", "incompressible",
           "actuation", "levels", "constraints", "crosscheck", "explore", "exercises", "published", "book"]
