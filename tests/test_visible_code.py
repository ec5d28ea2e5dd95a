"""tools/visible_code.py: the shown code of a page runs alone, and the check can fail."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import visible_code  # noqa: E402


def _notebook(tmp_path, cells):
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": tags}, "source": src,
                     "outputs": [], "execution_count": None} for src, tags in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_shown_code_skips_removed_cells_and_magics(tmp_path):
    path = _notebook(tmp_path, [("%matplotlib inline\nx = 1", []),
                                ("y = 2", ["remove-cell"]),
                                ("z = 3", ["remove-input"]),
                                ("w = x", ["hide-input"])])
    code = visible_code.shown_code(path)
    assert "x = 1" in code and "w = x" in code
    assert "y = 2" not in code and "z = 3" not in code
    assert "pass  # %matplotlib inline" in code


def test_a_page_whose_set_up_is_hidden_fails(tmp_path):
    path = _notebook(tmp_path, [("import math", ["remove-cell"]), ("print(math.pi)", [])])
    ok, message = visible_code.run(path)
    assert not ok and "NameError" in message


def test_a_page_whose_shown_code_is_complete_passes(tmp_path):
    path = _notebook(tmp_path, [("import math", []), ("assert math.pi > 3", ["remove-cell"]),
                                ("print(math.pi)", [])])
    assert visible_code.run(path) == (True, "")


@pytest.mark.parametrize("name", visible_code.READER_EDITION)
def test_reader_edition_pages_exist(name):
    assert (visible_code.ROOT / "chapters" / f"{name}.ipynb").exists()
