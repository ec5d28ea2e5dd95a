"""tools/browser_test.py's figure-legibility check: its arithmetic, and that it can fail.

A figure rendered the old way (110 dpi, 10 pt text, 13 inches wide) fails at the
measured 1280 px figure box; one rendered with the book's style (160 dpi, 12 pt) at a
width inside the rule passes; a PNG with too few pixels for its shown width is blurry.
"""
import struct
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import browser_test as bt  # noqa: E402
from lib.book import style  # noqa: E402


def _render(path, width_in, dpi, font_pt):
    """A labelled line plot ``width_in`` inches wide saved at ``dpi`` with ``font_pt`` text."""
    with matplotlib.rc_context({"font.size": font_pt, "savefig.dpi": dpi}):
        fig, ax = plt.subplots(figsize=(width_in, 3))
        ax.plot([0, 1], [0, 1], label="a line")
        ax.set_xlabel("x")
        ax.legend()
        fig.savefig(path, metadata={"Software": None})
        plt.close(fig)
    return path


def _png_width(path):
    return struct.unpack(">I", Path(path).read_bytes()[16:20])[0]


def test_book_font_is_read_from_the_style():
    with matplotlib.rc_context():
        style()
        assert bt.book_font_pt() == matplotlib.rcParams["font.size"] == 12.0


def test_text_px_by_hand():
    # 12 pt at 160 dpi is 26.67 PNG px; a 1600 px PNG shown 672 px wide scales by 0.42
    assert bt.text_px(1600, 672, 160, 12) == pytest.approx(12 / 72 * 160 * 672 / 1600)
    assert bt.text_px(1600, 672, 160, 12) == pytest.approx(11.2)
    # shown at its natural size, 12 pt at 72 dpi is 12 px
    assert bt.text_px(500, 500, 72, 12) == pytest.approx(12.0)


def test_dpi_read_from_the_png(tmp_path):
    for dpi in (110, 160):
        got = bt.png_dpi(_render(tmp_path / f"f{dpi}.png", 4, dpi, 12))
        assert got == pytest.approx(dpi, abs=0.01)   # pHYs stores whole pixels per metre


def test_dpi_default_without_phys(tmp_path):
    src = _render(tmp_path / "f.png", 4, 110, 12).read_bytes()
    i, out = 8, bytearray(src[:8])
    while i < len(src):
        n = struct.unpack(">I", src[i:i + 4])[0]
        if src[i + 4:i + 8] != b"pHYs":
            out += src[i:i + 12 + n]
        i += 12 + n
    stripped = tmp_path / "nophys.png"
    stripped.write_bytes(bytes(out))
    assert bt.png_dpi(stripped) == bt.DEFAULT_DPI
    assert bt.png_dpi(stripped, default=99.0) == 99.0


def test_old_figure_fails(tmp_path):
    """110 dpi, 10 pt, 13 inches, shown at 100 % of the figure box: 7.2 px text."""
    path = _render(tmp_path / "old.png", 13, 110, 10)
    nat = _png_width(path)
    assert nat == 1430
    px, sharp, problems = bt.legibility(nat, bt.FIGURE_BOX_PX, bt.png_dpi(path), 10)
    assert px == pytest.approx(10 / 72 * 110 * 672 / 1430, rel=1e-4)
    assert px < bt.MIN_TEXT_PX and len(problems) == 1 and "text shows at 7.2 px" in problems[0]
    # even judged with the book's 12 pt it stays illegible
    assert bt.legibility(nat, bt.FIGURE_BOX_PX, bt.png_dpi(path), bt.book_font_pt())[0] < bt.MIN_TEXT_PX


def test_good_figure_passes(tmp_path):
    """The book's style, 10 x 0.95 = 9.5 inches shown at 95 %: 12 px text, 2.4x pixels."""
    with matplotlib.rc_context():
        style()
        dpi, pt = matplotlib.rcParams["savefig.dpi"], matplotlib.rcParams["font.size"]
    path = _render(tmp_path / "good.png", 9.5, dpi, pt)
    shown = 0.95 * bt.FIGURE_BOX_PX
    px, sharp, problems = bt.legibility(_png_width(path), shown, bt.png_dpi(path), bt.book_font_pt())
    assert problems == [] and px >= bt.MIN_TEXT_PX and sharp >= bt.MIN_SHARPNESS
    assert px == pytest.approx(12 / 72 * 672 * 0.95 / 9.5, rel=1e-3)


def test_too_wide_fails_and_too_small_is_blurry(tmp_path):
    # 10.5 inches at 100 % of the real 672 px box: 10.7 px (the 760 px assumption gave 12)
    px, _, problems = bt.legibility(1680, 672, 160, 12)
    assert px == pytest.approx(10.67, abs=0.01) and problems and "text" in problems[0]
    # 6 inches at 160 dpi (960 px) shown 672 px wide: big text but only 1.43 px per shown px
    px, sharp, problems = bt.legibility(960, 672, 160, 12)
    assert px > bt.MIN_TEXT_PX and sharp < bt.MIN_SHARPNESS
    assert len(problems) == 1 and problems[0].startswith("blurry")
    # the thresholds themselves: just above passes, just below fails
    assert bt.legibility(1000, 1000 * 11.01 / (12 / 72 * 160), 160, 12)[2] == []
    assert bt.legibility(1000, 1000 * 10.99 / (12 / 72 * 160), 160, 12)[2] != []


def test_not_shown_is_a_problem():
    assert bt.legibility(0, 500, 160, 12)[2] and bt.legibility(500, 0, 160, 12)[2]
