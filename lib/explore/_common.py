"""The axes, labels and slider wiring every Explore file shares (arguments: lib.core.checks)."""
from __future__ import annotations

import numpy as np

from ..core import checks


def counts(values, name, low=1, at_least=1):
    """A sequence of whole numbers >= ``low`` (at least ``at_least`` of them) as an int array."""
    v = checks.vector(values, name, low=low)
    if v.size < at_least:
        raise ValueError(f"{name} must hold at least {at_least} values, got {checks.show(values)}")
    return np.array([checks.integer(x, name, allow_float=True) for x in v], dtype=int)


def axes(ax, figsize=(6.4, 3.6)):
    """``(figure, ax)``: a new figure of ``figsize`` inches when ``ax`` is None."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def finish(ax, xlabel, ylabel, title, legend=None, **title_kw):
    """Label the axes, set the title, draw the legend (``legend``: its keywords); the figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, **title_kw)
    if legend is not None:
        ax.legend(**legend)
    return ax.figure


def interactive(plot, **sliders):
    """An ipywidgets ``interactive`` that draws ``plot(**values)`` for the slider values.

    A slider given as a tuple ``(value, min, max, step, description)`` is a FloatSlider.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    def show(**kw):
        fig = plot(**kw)
        plt.show()
        plt.close(fig)

    sliders = {k: w.FloatSlider(value=s[0], min=s[1], max=s[2], step=s[3], description=s[4])
               if isinstance(s, tuple) else s for k, s in sliders.items()}
    return w.interactive(show, **sliders)
