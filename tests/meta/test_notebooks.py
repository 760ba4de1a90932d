"""The notebook series follows the house style and matches its sources in tools/notebooks/.

nbval (run on notebooks/ by the README's test command) checks that every
notebook runs and that its stored outputs are still what a fresh run prints;
these tests check the shape of each notebook.
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))


def test_there_is_a_series_with_an_index():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00-Index.ipynb"
    assert all(re.fullmatch(r"\d\d-[A-Z][A-Za-z0-9.]*(-[A-Za-z0-9.]+)*\.ipynb", p.name) for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_shape(path):
    """Title + 'In this notebook you will', 10-25 cells, short code cells, no def/class,
    a Summary, navigation at the end, executed in order with no errors and no widget state."""
    nb = nbformat.read(path, as_version=4)
    cells = nb.cells
    assert 10 <= len(cells) <= 25, f"{len(cells)} cells"
    first = cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    assert "In this notebook you will" in first.source
    code = [c for c in cells if c.cell_type == "code"]
    for c in code:
        lines = [ln for ln in c.source.splitlines() if ln.strip()]
        assert len(lines) <= 10, f"code cell too long:\n{c.source}"
        assert not re.search(r"^\s*(def|class) ", c.source, re.M), "logic belongs in stsedu/"
        assert not any(o.get("output_type") == "error" for o in c.outputs)
    for prev, cell in zip(cells, cells[1:]):
        if cell.cell_type == "code":
            assert prev.cell_type == "markdown", f"code cell without prose before it:\n{cell.source}"
    assert any(c.cell_type == "markdown" and c.source.startswith("## Summary") for c in cells)
    assert "navigation" in cells[-1].metadata.get("tags", [])
    import build_notebooks
    questions = [c for c in code if build_notebooks.is_question(c)]
    assert all(not c.outputs and c.execution_count is None for c in questions), \
        "a prediction cell is stored unexecuted: nothing under the question before the learner predicts"
    counts = [c.execution_count for c in code if not build_notebooks.is_question(c)]
    assert counts == sorted(set(counts)) and counts and counts[0] >= 1, "store the notebook executed top to bottom"
    assert "widgets" not in nb.metadata


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_matches_its_source(path):
    """notebooks/NN-*.ipynb is built from tools/notebooks/NN-*.py (run tools/build_notebooks.py)."""
    import build_notebooks
    src = ROOT / "tools" / "notebooks" / f"{path.stem}.py"
    assert src.exists()
    built = [c.source for c in build_notebooks.load(src).cells]
    stored = [c.source for c in nbformat.read(path, as_version=4).cells
              if "navigation" not in c.metadata.get("tags", [])]
    stored = [s for s in stored if build_notebooks.INDEX_MARK not in s]
    built = [s for s in built if build_notebooks.INDEX_MARK not in s]
    assert [s for s in stored if "| # | Notebook |" not in s] == built
