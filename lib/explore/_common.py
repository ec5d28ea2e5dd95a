"""The argument checks, axes and slider wiring every Explore file shares."""
from __future__ import annotations

import numpy as np


def check_positive(value, name):
    """``float(value)`` if it is a finite number > 0, else a ValueError naming ``name``."""
    if not (np.isscalar(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def check_count(value, name, low=1):
    """``int(value)`` if it is an integer >= ``low``, else a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def axes(ax):
    """``(figure, ax)``: a new 6.4 x 3.6 in figure when ``ax`` is None."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        return fig, ax
    return ax.figure, ax


def interactive(plot, **sliders):
    """An ipywidgets ``interactive`` that draws ``plot(**values)`` for the slider values."""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    def show(**kw):
        fig = plot(**kw)
        plt.show()
        plt.close(fig)

    return w.interactive(show, **sliders)
