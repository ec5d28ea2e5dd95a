"""tools/check_figures.py: the pixel comparison that accepts a figure re-drawn elsewhere."""
import importlib.util
import io
from pathlib import Path

import numpy as np
from PIL import Image

_spec = importlib.util.spec_from_file_location(
    "check_figures", Path(__file__).resolve().parents[1] / "tools" / "check_figures.py")
cf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cf)


def _png(a):
    buf = io.BytesIO()
    Image.fromarray(a.astype(np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def test_moved_fraction_counts_pixels_moved_past_the_level_threshold():
    a = np.full((20, 50, 3), 255)
    b = a.copy()
    b[0, :10] -= cf.LEVELS          # at the threshold: not moved
    b[1, :10] -= cf.LEVELS + 1      # past it: 10 of 1000 pixels
    assert cf.moved_fraction(_png(a), _png(a)) == 0.0
    assert cf.moved_fraction(_png(a), _png(b)) == 10 / 1000


def test_a_figure_of_another_size_is_not_compared_pixel_by_pixel():
    a = np.zeros((20, 50, 3))
    assert cf.moved_fraction(_png(a), _png(np.zeros((21, 50, 3)))) is None


def test_the_platform_names_the_cpu_and_the_versions():
    text = cf.platform()
    assert "numpy" in text and "matplotlib" in text and "[" in text
