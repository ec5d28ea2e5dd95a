"""Did re-executing the notebooks reproduce the committed figures?  (Run by .ci/run.)

Figures are drawn with bundled fonts and fixed metadata, so on the machine that drew
them they come back byte for byte.  On another CPU they need not: a curve at the
round-off floor, a run seeded by round-off (Verlet past its limit, PyElastica's
stick-slip snake) or a point on a log axis at 1e-14 moves.  Measured between an Intel
and an AMD EPYC (AVX2) host: 16 of 68 figures differed, 12 in fewer than 0.2 % of their
pixels, the other four in 0.8 to 3.7 %.

So ``figures/platforms.json`` records, per figure, the platform (CPU model and
vector extensions, NumPy and Matplotlib versions) it was drawn on:

* drawn on this platform: the figure must come back byte for byte;
* drawn elsewhere ("unknown" for figures committed before the record): the figure must
  keep its size, and at most 5 % of its pixels may move by more than 8 levels -- a
  smoke test, which a stale figure of another size or content fails;
* a new figure, or a figure gone: a failure (commit it, or remove the code).

Usage::

    python tools/check_figures.py            # the check (exit 1 on failure)
    python tools/check_figures.py --record   # record this platform for every figure
                                             # that differs from HEAD (run before
                                             # committing re-drawn figures)
"""
from __future__ import annotations

import argparse
import io
import json
import platform as _platform
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
RECORD = FIGURES / "platforms.json"
LEVELS, FRACTION = 8, 0.05          # a foreign platform: pixels moved by > 8, at most 5 %


def platform() -> str:
    """CPU model and vector extensions, NumPy and Matplotlib: what decides the bytes."""
    import matplotlib

    model, flags = _platform.processor() or _platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    simd = "+".join(f for f in ("avx2", "fma", "avx512f") if f in flags) or "none"
    return f"{model} [{simd}], numpy {np.__version__}, matplotlib {matplotlib.__version__}"


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def _changes():
    """{path: status} of figures/*.png that differ from HEAD (git status --porcelain)."""
    out = {}
    for line in _git("status", "--porcelain", "--", "figures/").splitlines():
        path = line[3:].strip()
        if path.endswith(".png"):
            out[path] = line[:2]
    return out


def _pixels(data: bytes):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)


def moved_fraction(old: bytes, new: bytes):
    """Fraction of pixels moved by more than LEVELS, or None if the sizes differ."""
    a, b = _pixels(old), _pixels(new)
    if a.shape != b.shape:
        return None
    return float(np.mean(np.abs(a - b).max(axis=2) > LEVELS))


def check() -> int:
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    here = platform()
    failures = []
    for path, status in sorted(_changes().items()):
        name = Path(path).name
        if status.strip() != "M":
            failures.append(f"{path}: {'new' if '?' in status else 'removed'} "
                            f"(status {status.strip()})")
            continue
        drawn_on = record.get(name, "unknown")
        if drawn_on == here:
            failures.append(f"{path}: drawn on this platform but not reproduced byte for byte")
            continue
        old = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, check=True,
                             capture_output=True).stdout
        moved = moved_fraction(old, (ROOT / path).read_bytes())
        if moved is None:
            failures.append(f"{path}: its size changed (drawn on {drawn_on})")
        elif moved > FRACTION:
            failures.append(f"{path}: {100 * moved:.1f} % of its pixels moved (more than "
                            f"{100 * FRACTION:.0f} %; drawn on {drawn_on})")
        else:
            print(f"{path}: {100 * moved:.2f} % of its pixels moved; drawn on {drawn_on}, "
                  f"not this platform: accepted")
    if failures:
        print("figures/ not reproduced by re-executing the notebooks on", here, file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        return 1
    print(f"figures/ reproduced ({here})")
    return 0


def record_changed() -> int:
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    here = platform()
    changed = [Path(p).name for p, s in _changes().items() if "D" not in s]
    for name in changed:
        record[name] = here
    for png in sorted(FIGURES.glob("*.png")):
        record.setdefault(png.name, "unknown")
    RECORD.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n")
    print(f"recorded {len(changed)} figure(s) as drawn on {here}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", action="store_true",
                        help="record this platform for every figure that differs from HEAD")
    args = parser.parse_args(argv)
    return record_changed() if args.record else check()


if __name__ == "__main__":
    sys.exit(main())
