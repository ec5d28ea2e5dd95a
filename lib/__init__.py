"""Shared library of the executable textbook *Continuum and soft-robot dynamics*.

One small module per model; every chapter of the book imports from here.

Modules
-------
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
contact     a free rod on a plane with Coulomb friction: penalty and complementarity
cone        the friction cone as an LCP (pyramidal, Stewart-Trinkle), model-independent
contact_peers  the contact cases in PyElastica 1.0 and MuJoCo 3.17
contact_explore  the contact chapter's widget
crosscheck  adapters to SciPy, scikit-fem, MuJoCo and PyElastica
explore     compute functions behind the chapters' widgets
exercises   self-checking exercises: check(key, answer)
published   the registry of every number the source chapters publish
book        helpers the notebooks use to glue, check and save figures
"""
__all__ = ["rod", "rod3d", "beam", "integrate", "damping", "pcc", "fem", "incompressible",
           "actuation", "levels", "constraints", "contact", "cone", "contact_peers", "contact_explore",
           "crosscheck", "explore", "exercises", "published", "book"]
