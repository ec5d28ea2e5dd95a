"""lib.book.savefig: a figure drawn in a forked copy of the process is the figure drawn in
place, byte for byte; its error and its warnings reach the caller."""
import os
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.artist import Artist  # noqa: E402

from lib import book  # noqa: E402

pytestmark = pytest.mark.skipif(not book._in_background(), reason="no os.fork here")


def _figure(k):
    book.style()
    fig, axs = plt.subplots(1, 2, figsize=(6.0, 3.0))
    x = np.linspace(0.0, 1.0, 200)
    axs[0].plot(x, np.sin(5 * x + k), label=rf"$\tau_{k}$")
    axs[0].legend()
    axs[1].loglog(x[1:], x[1:] ** (k + 1))
    axs[1].set_title(r"error $\|e\|_\infty$")
    return fig


@pytest.fixture
def figures(tmp_path, monkeypatch):
    monkeypatch.setattr(book, "FIGURES", tmp_path)
    yield tmp_path
    book.wait_figures()


def test_background_figures_are_the_inline_figures_byte_for_byte(figures, monkeypatch):
    paths = []
    for k in range(3):                   # each call waits for the one before it
        fig = _figure(k)
        paths.append(book.savefig(fig, "bg", f"f{k}"))
        plt.close(fig)
        assert len(book._PENDING) == 1
    book.wait_figures()
    assert not book._PENDING
    background = [p.read_bytes() for p in paths]
    monkeypatch.setenv("LIB_FIGURES_INLINE", "1")
    for k in range(3):
        fig = _figure(k)
        book.savefig(fig, "bg", f"f{k}")
        plt.close(fig)
        assert not book._PENDING
    assert [p.read_bytes() for p in paths] == background
    assert not list(figures.glob(".*.tmp"))          # no temporary file left behind


class _Broken(Artist):
    def draw(self, renderer):
        raise ZeroDivisionError("this artist cannot be drawn")


def test_an_error_in_the_copy_is_raised_by_the_next_wait(figures):
    fig = _figure(0)
    fig.axes[0].add_artist(_Broken())
    path = book.savefig(fig, "bg", "broken")
    plt.close(fig)
    with pytest.raises(RuntimeError, match=r"bg-broken\.png failed.*ZeroDivisionError"):
        book.wait_figures()
    assert not path.exists() and not book._PENDING


class _Warns(Artist):
    def draw(self, renderer):
        warnings.warn("drawn with a warning", UserWarning)


def test_a_warning_in_the_copy_is_issued_again_by_the_wait(figures):
    fig = _figure(1)
    fig.axes[0].add_artist(_Warns())
    path = book.savefig(fig, "bg", "warns")
    plt.close(fig)
    with pytest.warns(UserWarning, match="bg-warns.png: UserWarning: drawn with a warning"):
        book.wait_figures()
    assert path.exists()


def test_the_copy_runs_in_its_own_session(figures):
    """A kernel killed at the end of a run (nbval does) does not take the copy along."""
    import time

    fig = _figure(2)
    book.savefig(fig, "bg", "session")
    plt.close(fig)
    pid = book._PENDING[0][0]
    sid, t0 = None, time.monotonic()
    while time.monotonic() - t0 < 5.0:   # until the copy has called setsid (or is a zombie)
        sid = os.getsid(pid)
        if sid == pid:
            break
        time.sleep(0.005)
    assert sid == pid
    book.wait_figures()
