"""Shared library of the executable textbook *Continuum and soft-robot dynamics*.

Chapter faces over shared floors: every chapter imports its face; the faces are built
on floors that import only downward (``tests/test_layering.py`` checks it).

Faces (one per chapter topic)
-----------------------------
rod         discrete planar Cosserat rod (energy, gradient, Hessian, statics, modes)
rod3d       discrete Cosserat rod in 3-D (quaternion frames, twist, Lie-group integrators)
beam        analytic references: Euler-Bernoulli, Timoshenko, elastica
integrate   model-independent time integrators (Verlet, Newmark, generalised-alpha,
            discrete gradient) and a safeguarded Newton
damping     Kelvin-Voigt damping of the rod, Rayleigh damping of the FEM arm
pcc         piecewise-constant-curvature reduction (Rayleigh-Ritz, statics, dynamics)
fem         plane-strain neo-Hookean T3/T6 finite elements
incompressible  rubber models and locking-free finite-strain elements (u-p, F-bar)
actuation   tendons, follower pressure, inverse models (QP with cable bounds)
pneumatic   closed pneumatic chambers in the FEM arm: pressure, volume and gas control
constraints Lagrange multipliers: KKT / Schur solves, stabilisation, contact LCP
contact     a free rod on a plane with Coulomb friction: penalty and complementarity
levels      one soft arm as PCC, rod and FEM: mapping, cases, errors and costs

Floors (import nothing above them)
----------------------------------
core        checks (argument checks), errors (SolveError), linalg, quadrature rules,
            convergence orders (imports nothing from lib)
solvers     newton_solve, load_path / halving, saddle (KKT, Schur, LCP, QP) (imports only core)
fe          the finite-element kit: element, mesh, space and assembly, loads, locking
            diagnostics (imports only core)

Above the faces (faces never import them)
-----------------------------------------
crosscheck  adapters to MuJoCo, PyElastica and scikit-fem, and independent references
studies     cross-chapter studies (the work-precision ladder)
explore     compute functions behind the chapters' widgets, one file per chapter
exercises   self-checking exercises: check(key, answer), one file per chapter

The book's plumbing
-------------------
chapters    the one chapter list (tested against _toc.yml)
published   the registry of every number the source chapters publish (lib/registry/)
book        helpers the notebooks use to glue, check and save figures
"""
__all__ = ["rod", "rod3d", "beam", "integrate", "damping", "pcc", "fem", "incompressible",
           "actuation", "pneumatic", "constraints", "contact", "levels", "core", "solvers", "fe", "crosscheck", "studies",
           "explore", "exercises", "chapters", "published", "book"]
