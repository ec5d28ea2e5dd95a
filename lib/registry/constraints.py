"""Registry entries of the constraints chapter (seed 15.15).

Chapter 15.15 publishes no numbers: every claim it makes (the multiplier as a
constraint force, the KKT system, complementarity of contact forces) is turned
into a computation that checks itself in ``chapters/constraints.ipynb`` with
plain assertions.  The constraint-actuation paragraph of 3.10.3.6 publishes no
numbers either.  So there is nothing to register here.
"""
ENTRIES = {}
