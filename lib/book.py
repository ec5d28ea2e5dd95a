"""Helpers the chapter notebooks use: glue numbers, check them, save figures.

* :func:`glue_number` glues a computed number for ``{glue:text}`` in the prose.
* :func:`record` glues a computed number under its registry key and asserts it
  against :data:`lib.published.PUBLISHED` (call it in a ``remove-cell`` cell).
* :func:`glue` glues any displayable value (myst-nb's format, without importing it).
* :func:`progress` prints a progress line that the HTML hides (standard error).
* :func:`savefig` writes ``figures/<chapter>-<name>.png`` reproducibly (no
  timestamps or version strings), so re-executing a notebook leaves ``figures/``
  byte-identical.  On Linux it renders in a forked copy of the process while the
  notebook goes on (:func:`wait_figures`; ``LIB_FIGURES_INLINE=1`` renders in place).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

from .published import PUBLISHED

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
if os.environ.get("LIB_FIGURES_DIR"):  # tools/visible_code.py: a reader's run writes elsewhere
    FIGURES = Path(os.environ["LIB_FIGURES_DIR"])


_GLUE_PREFIX = "application/papermill.record/"   # myst-nb's key for undisplayed glue


def glue(name: str, value, display: bool = False) -> None:
    """Glue ``value`` under ``name`` for ``{glue:...}`` in the prose (myst-nb's format).

    Writes the same display output as ``myst_nb.glue`` (the value's mime bundle under
    myst-nb's prefix, with ``scrapbook`` metadata), without importing myst-nb: that
    import pulls in nbformat and jsonschema, about 1.5 s of every notebook's cold start.
    Outside IPython (plain ``python``) there is nothing to glue into and nothing is
    written.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    from IPython.display import display as ipy_display

    bundle, metadata = shell.display_formatter.format(value)
    prefix = "" if display else _GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


def _glue(name, value):
    glue(name, value, display=False)


def glue_number(name: str, value) -> float:
    """Glue ``float(value)`` under ``name`` (no output) and return it."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value for {name!r} is not finite: {value!r}")
    _glue(name, value)
    return value


def record(key: str, value) -> float:
    """Glue a computed value under its registry key and check it.

    Also glues ``<key>_dev`` (the book value minus the published one) and
    ``<key>_seed`` (the published value, for quoting it in the prose).  Raises
    ``AssertionError`` when an entry whose status is not ``not-reproducible``
    disagrees with its published value beyond its tolerance.
    """
    try:
        entry = PUBLISHED[key]
    except KeyError:
        raise KeyError(f"{key!r} is not in lib.published.PUBLISHED") from None
    value = glue_number(key, value)
    glue_number(key + "_dev", value - entry.seed)
    glue_number(key + "_seed", entry.seed)
    if entry.status != "not-reproducible" and not entry.agrees(value):
        raise AssertionError(
            f"{key}: book value {value!r} disagrees with published {entry.seed!r} "
            f"(kind={entry.kind}, tol={entry.tol!r}, status={entry.status})"
        )
    return value


def progress(message: str) -> None:
    """Report progress of a long cell on standard error.

    The book's HTML drops standard-error output (``nb_output_stderr: remove`` in
    ``_config.yml``), so a reader running the notebook sees the counter while the
    published page shows no progress boxes.
    """
    import sys

    print(message, file=sys.stderr, flush=True)


def style():
    """The book's matplotlib style (bundled DejaVu fonts: identical output everywhere)."""
    import matplotlib

    matplotlib.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 160,  # about 2x the page column for a 10-inch figure
            "font.size": 12,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "figure.constrained_layout.use": True,
            "svg.hashsalt": "continuum-book",
            "path.simplify": True,
        }
    )


def savefig(fig, chapter: str, name: str) -> Path:
    """Save ``fig`` to ``figures/<chapter>-<name>.png`` with fixed metadata.

    Drawing a figure (constrained layout, text, the PNG) takes about 0.2 s, most of a
    chapter's figure time; on Linux it happens in a forked copy of this process (the
    same figure, fonts and settings, so the same bytes) while the caller goes on.  At
    most one figure is in flight: the next call, :func:`wait_figures` and the end of
    the process wait for it and raise its error here.  ``LIB_FIGURES_INLINE=1`` (or no
    ``os.fork``) draws in place, as before.
    """
    if not name or "/" in name:
        raise ValueError(f"name must be a plain file stem, got {name!r}")
    FIGURES.mkdir(exist_ok=True)
    path = FIGURES / f"{chapter}-{name}.png"
    wait_figures()
    if not _in_background():
        fig.savefig(path, metadata={"Software": None})
        return path
    import tempfile

    fd, report = tempfile.mkstemp(prefix="lib-figure-", suffix=".txt")
    os.close(fd)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pid = os.fork()
    if pid == 0:                                   # the copy: draw, report, leave at once
        _draw_in_child(fig, path, tmp, report)
    _PENDING.append((pid, path, report))
    if not _AT_EXIT:
        import atexit

        atexit.register(wait_figures)
        _AT_EXIT.append(True)
    return path


_PENDING = []        # (pid, path, report file) of the figure being drawn in a forked copy
_AT_EXIT = []        # [True] once the end of the process waits for it


def _in_background():
    return hasattr(os, "fork") and os.name == "posix" and os.uname().sysname == "Linux" \
        and os.environ.get("LIB_FIGURES_INLINE", "0") != "1"


def _draw_in_child(fig, path, tmp, report):
    """In the forked copy: own session (a kernel killed at the end of a run does not take
    the copy with it), streams away from the kernel's (their thread is not here), the
    PNG under a temporary name renamed into place, warnings or the error in ``report``;
    never returns."""
    import io
    import sys
    import traceback
    import warnings

    code = 1
    try:
        os.setsid()
        sys.stdout = sys.stderr = io.StringIO()
        with warnings.catch_warnings(record=True) as caught:
            fig.savefig(tmp, format="png", metadata={"Software": None})
        os.replace(tmp, path)
        if caught:
            Path(report).write_text("".join(f"warning {w.category.__name__}: {w.message}\n"
                                            for w in caught))
        else:                                      # nothing to say: leave no file behind
            os.unlink(report)
        code = 0
    except BaseException:                          # noqa: BLE001 -- reported to the parent
        try:
            Path(report).write_text("error " + traceback.format_exc())
        except OSError:
            pass
    finally:
        os._exit(code)


def wait_figures():
    """Wait for the figure :func:`savefig` is drawing in the background; raise its error
    (a ``RuntimeError`` naming the file) and re-issue its warnings here."""
    import warnings

    while _PENDING:
        pid, path, report = _PENDING.pop(0)
        try:
            status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        except ChildProcessError:                  # reaped elsewhere: judge by its report
            status = 0
        rep = Path(report)
        text = rep.read_text() if rep.exists() else ""
        rep.unlink(missing_ok=True)
        if status != 0 or text.startswith("error"):
            lines = [ln for ln in text[6:].splitlines() if ln.strip()]
            raise RuntimeError(f"drawing {path} failed (exit status {status}): "
                               + (f"{lines[-1]}\n{text[6:]}" if lines else "no report"))
        for line in text.splitlines():
            warnings.warn(f"{path.name}: {line[8:]}", stacklevel=2)


def md_table(header, rows, align="left", caption=None, name=None):
    """A markdown table (an ``IPython.display.Markdown``) from preformatted strings.

    ``header`` is a list of column titles, ``rows`` a list of lists of strings;
    ``align`` is ``"left"`` or ``"right"`` for every column.  A ``|`` inside a cell is
    escaped so it cannot split the cell.  Notebook outputs rendered this way are
    compared verbatim by nbval, so format the numbers before passing them.

    With a ``caption`` the table is a MyST ``{table}`` directive: numbered ("Table 3.2")
    and captioned in both editions; ``name`` (letters, digits, ``-`` and ``_``) is its
    label, so the prose can say ``{numref}`tab-rod-frequencies```.

    >>> print(md_table(["N", "omega"], [["20", "3.52"]], align="right").data)
    | N | omega |
    |---:|---:|
    | 20 | 3.52 |
    >>> print(md_table(["N"], [["20"]], caption="Mesh sizes", name="tab-mesh").data)
    :::{table} Mesh sizes
    :name: tab-mesh
    <BLANKLINE>
    | N |
    |---|
    | 20 |
    :::
    >>> md_table(["N"], [["20"]], name="tab-mesh")
    Traceback (most recent call last):
    ...
    ValueError: name needs a caption (an uncaptioned table has no number to refer to)
    """
    import re

    from IPython.display import Markdown

    if align not in ("left", "right"):
        raise ValueError(f"align must be 'left' or 'right', got {align!r}")
    if caption is not None and (not isinstance(caption, str) or not caption.strip()
                                or "\n" in caption):
        raise ValueError(f"caption must be a one-line, non-empty string, got {caption!r}")
    if name is not None:
        if caption is None:
            raise ValueError("name needs a caption (an uncaptioned table has no number to refer to)")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
            raise ValueError(f"name must be letters, digits, '-' and '_', got {name!r}")
    rule = "---:|" if align == "right" else "---|"

    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    out = [line(header), "|" + rule * len(header)] + [line(r) for r in rows]
    if caption is not None:
        out = [f":::{{table}} {caption.strip()}"] + ([f":name: {name}"] if name else []) + [""] + out + [":::"]
    return Markdown("\n".join(out))
