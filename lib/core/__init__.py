"""The floor under every chapter face: code that imports nothing from the rest of ``lib``.

quadrature  rules on the reference triangle and on the unit interval
"""
