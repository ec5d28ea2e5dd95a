"""The registry of published numbers is well formed and the ledger page is current."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lib.book import record
from lib.published import CHAPTERS, PUBLISHED, STATUSES, Published, chapter_of

ROOT = Path(__file__).resolve().parents[1]


def test_every_key_names_an_existing_chapter_notebook():
    for key in PUBLISHED:
        assert re.fullmatch(r"[a-z]+_[A-Za-z0-9_]+", key), key
        assert chapter_of(key) in CHAPTERS
        assert (ROOT / "chapters" / f"{chapter_of(key)}.ipynb").exists(), key


def test_every_record_is_valid_and_explained():
    for key, rec in PUBLISHED.items():
        assert rec.status in STATUSES
        assert rec.note.strip(), f"{key} has no note"
        if rec.status != "reproduced":
            assert len(rec.note) > 20, f"{key}: a non-reproduced entry must say why"


def test_each_chapter_glues_every_key_it_owns():
    """A chapter's stored outputs contain a glue record for each of its registry keys."""
    for chapter in {chapter_of(k) for k in PUBLISHED}:
        nb = json.loads((ROOT / "chapters" / f"{chapter}.ipynb").read_text())
        glued = {
            out["metadata"]["scrapbook"]["name"]
            for cell in nb["cells"] if cell["cell_type"] == "code"
            for out in cell.get("outputs", [])
            if "scrapbook" in out.get("metadata", {})
        }
        missing = [k for k in PUBLISHED if chapter_of(k) == chapter and k not in glued]
        assert not missing, f"{chapter}.ipynb does not glue {missing}"


def test_published_record_rejects_bad_fields():
    with pytest.raises(ValueError, match="status"):
        Published(seed=1.0, unit="", result=1, tol=0.1, status="fine", note="x")
    with pytest.raises(ValueError, match="result"):
        Published(seed=1.0, unit="", result=9, tol=0.1, status="reproduced", note="x")
    with pytest.raises(ValueError, match="tol"):
        Published(seed=1.0, unit="", result=1, tol=-1.0, status="reproduced", note="x")


def test_agreement_respects_kind():
    val = Published(seed=1.0, unit="", result=1, tol=0.1, status="reproduced", note="x")
    assert val.agrees(1.09) and not val.agrees(1.11)
    up = Published(seed=1.15, unit="", result=3, tol=0.0, status="reproduced", note="x", kind="upper")
    assert up.agrees(1.0) and not up.agrees(1.2)


def test_record_rejects_unknown_keys_and_disagreement():
    with pytest.raises(KeyError):
        record("rod_no_such_number", 1.0)
    for key, rec in PUBLISHED.items():
        if rec.status != "not-reproducible" and rec.kind == "value":
            with pytest.raises(AssertionError):
                record(key, rec.seed + 10 * rec.tol + 1.0)
            break


def test_ledger_page_is_current():
    res = subprocess.run([sys.executable, "tools/make_ledger.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


def test_glue_cells_are_exempt_from_output_comparison():
    """A cell that glues a value must be tagged nbval-ignore-output (DESIGN: glued
    values are asserted against the registry instead, and PNG glue differs by byte)."""
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            glued = any("scrapbook" in out.get("metadata", {}) for out in cell.get("outputs", []))
            tags = cell.get("metadata", {}).get("tags", [])
            assert not glued or "nbval-ignore-output" in tags, f"{path.name} cell {i} glues but is compared"


def test_md_table_escapes_bars_and_aligns():
    from lib.book import md_table

    text = md_table(["a", "b"], [["|x|", "2"]], align="right").data
    assert text.splitlines() == ["| a | b |", "|---:|---:|", "| \\|x\\| | 2 |"]
    with pytest.raises(ValueError, match="align"):
        md_table(["a"], [], align="centre")
