"""lib.chapters is the book's one chapter list: it matches _toc.yml and the per-chapter files."""
import json
from pathlib import Path

import pytest
import yaml

from lib import exercises, explore, published
from lib.chapters import CHAPTERS, stems

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("registry", "exercises", "explore")


def _toc_chapters():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    part = next(p for p in toc["parts"] if p["caption"] == "Chapters")
    return [entry["file"] for entry in part["chapters"]]


def _first_heading(stem, notebook):
    path = ROOT / "chapters" / (f"{stem}.ipynb" if notebook else f"{stem}.md")
    if notebook:
        cells = json.loads(path.read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text()
    return next(line[2:].strip() for line in text.splitlines() if line.startswith("# "))


def test_the_list_is_the_chapters_part_of_the_toc_in_order():
    assert [f"chapters/{c.stem}" for c in CHAPTERS] == _toc_chapters()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.stem)
def test_each_entry_matches_its_page_and_files(chapter):
    page = ROOT / "chapters" / f"{chapter.stem}.ipynb"
    assert page.exists() == chapter.notebook
    assert _first_heading(chapter.stem, chapter.notebook) == chapter.title
    for kind in KINDS:
        assert (ROOT / "lib" / kind / f"{chapter.stem}.py").exists() == getattr(chapter, kind), kind


@pytest.mark.parametrize("kind", KINDS)
def test_no_per_chapter_file_is_left_out_of_the_list(kind):
    files = {p.stem for p in (ROOT / "lib" / kind).glob("*.py") if not p.stem.startswith("_")}
    assert files - {"entry"} == set(stems(kind))


def test_the_loaders_use_the_list():
    assert published.CHAPTERS == stems("registry")
    assert exercises.CHAPTERS == stems("exercises")
    assert {k.rsplit("-", 1)[0] for k in exercises.keys()} == set(stems("exercises"))
    assert explore.CHAPTERS == stems("explore")


def test_stems_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        stems("figures")
