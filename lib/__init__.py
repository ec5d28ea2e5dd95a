"""Shared library of the executable textbook *Continuum and soft-robot dynamics*.

One small module per model; every chapter of the book imports from here.

Modules
-------
rod         discrete planar Cosserat rod (energy, gradient, Hessian, statics, modes)
beam        analytic references: Euler-Bernoulli, Timoshenko, elastica
integrate   model-independent time integrators (Verlet, Newmark, central difference)
pcc         piecewise-constant-curvature reduction (Rayleigh-Ritz, nonlinear dynamics)
fem         plane-strain neo-Hookean T3/T6 finite elements
constraints Lagrange multipliers: KKT / Schur solves, stabilisation, contact LCP
published   the registry of every number the source chapters publish
book        helpers the notebooks use to glue, check and save figures
"""
__all__ = ["rod", "beam", "integrate", "pcc", "fem", "constraints", "published", "book"]
