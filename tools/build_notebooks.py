"""Build notebooks/*.ipynb from their sources in tools/notebooks/*.py (jupytext percent format).

For each source: add the navigation cell (previous / index / next), fill the
index of 00-Index, execute it in a fresh kernel (nbclient) from notebooks/,
drop the widget state that execution stores (it holds ~1 MB of Vega
JavaScript per chart) and the widget views that point into it (a learner who
opens the notebook sees the lab's text form, "Run this cell to use it",
until they run the cell; nbval never compares widget views), and write
notebooks/<name>.ipynb.  Prediction cells (``answer = None`` first) are
stored unexecuted, with no output: nothing stands under a question until the
learner runs the cell with a prediction.  The stored outputs
are what nbval compares against, so re-run this after any change that alters
what a notebook prints:

    python tools/build_notebooks.py            # all notebooks
    python tools/build_notebooks.py 04 05      # only those numbers
    python tools/build_notebooks.py --no-execute
    python tools/build_notebooks.py --lang zh [NN ...]   # notebooks/zh/, from tools/notebooks/zh/*.po

A translated series (``--lang zh``) is the English sources with their markdown cells and blurbs
replaced from the catalogues (``tools/notebook_translations.py``): the code cells are the
English ones, except that the first code cell importing stsedu also calls
``stsedu.set_language("<lang>")``. It holds the notebooks whose catalogue is whole, with the
navigation and the index in that language, executed from ``notebooks/<lang>/``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tools" / "notebooks"
OUT = ROOT / "notebooks"
INDEX_MARK = "<!-- index -->"
# the words the build itself writes: navigation and the index's table header
WORDS = {
    "en": {"index": "Index", "header": "| # | Notebook | What it shows |"},
    "zh": {"index": "索引", "header": "| # | 笔记本 | 内容 |"},
}
IMPORT = re.compile(r"^import stsedu$", re.M)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def sources() -> list[Path]:
    return sorted(SRC.glob("[0-9][0-9]-*.py"))


def title_and_blurb(nb) -> tuple[str, str]:
    """The notebook's title (first heading) and its one-line description (``# blurb:`` metadata)."""
    first = nb.cells[0].source
    title = re.search(r"^#\s+(.+)$", first, re.M).group(1).strip()
    return title, nb.metadata.get("stsedu", {}).get("blurb", "")


def nav_cell(i: int, names: list[str], titles: list[str], lang: str = "en") -> nbformat.NotebookNode:
    parts = []
    if i > 0:
        parts.append(f"← [{titles[i - 1]}]({names[i - 1]}.ipynb)")
    if i != 0:
        parts.append(f"[{WORDS[lang]['index']}](00-Index.ipynb)")
    if i + 1 < len(names):
        parts.append(f"[{titles[i + 1]}]({names[i + 1]}.ipynb) →")
    cell = nbformat.v4.new_markdown_cell("---\n" + " · ".join(parts))
    cell.metadata["tags"] = ["navigation"]
    return cell


def index_text(names: list[str], titles: list[str], blurbs: list[str], lang: str = "en") -> str:
    lines = [WORDS[lang]["header"], "|---|---|---|"]
    for name, title, blurb in zip(names[1:], titles[1:], blurbs[1:]):
        lines.append(f"| {name[:2]} | [{title}]({name}.ipynb) | {blurb} |")
    return "\n".join(lines)


def load(path: Path):
    text = path.read_text()
    m = re.search(r"^# blurb:\s*(.+)$", text, re.M)
    nb = jupytext.reads(re.sub(r"^# blurb:.*\n", "", text, count=1, flags=re.M).lstrip(), fmt="py:percent")
    nb.cells = [c for c in nb.cells if c.source.strip()]
    nb.metadata["stsedu"] = {"blurb": m.group(1).strip() if m else ""}
    # as JupyterLab writes it, so that opening a notebook does not mark it modified
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata.pop("jupytext", None)
    return nb


def load_translated(path: Path, lang: str):
    """*path*'s notebook as :func:`load` makes it, with its markdown cells and blurb in *lang*
    (from the catalogue; ValueError if it is not whole) and ``stsedu.set_language(lang)`` after
    the first ``import stsedu``."""
    import notebook_translations

    nb = load(path)
    other = notebook_translations.translated(path, lang)
    blurb = [c.source for c in other.cells if c.source.startswith(notebook_translations.BLURB)]
    cells = [c for c in other.cells
             if c.source.strip() and not c.source.startswith(notebook_translations.BLURB)]
    if [c.cell_type for c in cells] != [c.cell_type for c in nb.cells]:
        raise ValueError(f"{path.name}: the translated cells do not line up with the source's")
    for cell, tr in zip(nb.cells, cells):
        if cell.cell_type == "markdown":
            cell.source = tr.source
    if blurb:
        nb.metadata["stsedu"]["blurb"] = blurb[0][len(notebook_translations.BLURB):].strip()
    first = next((c for c in nb.cells if c.cell_type == "code" and IMPORT.search(c.source)), None)
    if first is None:
        raise ValueError(f"{path.name}: no code cell imports stsedu, so none can set the language")
    first.source = IMPORT.sub(f'import stsedu\nstsedu.set_language("{lang}")', first.source, count=1)
    return nb


def series(lang: str) -> tuple[list[Path], list]:
    """The sources of the *lang* series and their notebooks: all of them in English; in another
    language those whose catalogue is whole."""
    if lang == "en":
        paths = sources()
        return paths, [load(p) for p in paths]
    import notebook_translations

    paths = [p for p in sources() if not notebook_translations.problems(p, lang)]
    return paths, [load_translated(p, lang) for p in paths]


def is_question(cell) -> bool:
    """A prediction cell (``answer = None  # ...`` then the check): shipped unexecuted, so
    no output sits under the question before the learner has predicted."""
    return cell.cell_type == "code" and cell.source.lstrip().startswith("answer = None")


def build(selected: set[str], execute: bool, lang: str = "en") -> None:
    out_dir = OUT if lang == "en" else OUT / lang
    out_dir.mkdir(exist_ok=True)
    paths, nbs = series(lang)
    missing = selected - {p.stem[:2] for p in paths}
    if missing:
        import notebook_translations

        bad = [m for p in sources() if p.stem[:2] in missing for m in notebook_translations.problems(p, lang)]
        raise SystemExit(f"not translated into {lang}: {' '.join(sorted(missing))}\n" + "\n".join(bad[:10]))
    names = [p.stem for p in paths]
    info = [title_and_blurb(nb) for nb in nbs]
    titles = [t for t, _ in info]
    blurbs = [b for _, b in info]
    for i, (path, nb) in enumerate(zip(paths, nbs)):
        if selected and path.stem[:2] not in selected:
            continue
        for cell in nb.cells:
            if cell.cell_type == "markdown" and INDEX_MARK in cell.source:
                cell.source = cell.source.replace(INDEX_MARK, index_text(names, titles, blurbs, lang))
        nb.cells = [c for c in nb.cells if "navigation" not in c.metadata.get("tags", [])]
        nb.cells.append(nav_cell(i, names, titles, lang))
        for n, cell in enumerate(nb.cells):
            cell["id"] = f"{path.stem[:2]}-{n:02d}"
            cell.metadata.pop("lines_to_next_cell", None)
        if execute:
            NotebookClient(nb, timeout=300, kernel_name="python3",
                           resources={"metadata": {"path": str(out_dir)}}).execute()
            for cell in nb.cells:
                cell.metadata.pop("execution", None)
                if is_question(cell):  # the learner runs it with a prediction: store nothing under it
                    cell.outputs = []
                    cell.execution_count = None
                for out in cell.get("outputs", []):
                    data = out.get("data", {})
                    if WIDGET_VIEW in data and "text/plain" in data:
                        del data[WIDGET_VIEW]
        nb.metadata.pop("widgets", None)
        nbformat.validate(nb)
        target = out_dir / f"{path.stem}.ipynb"
        nbformat.write(nb, target)
        print(f"wrote {target.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("numbers", nargs="*", help="two-digit notebook numbers to build (default: all)")
    ap.add_argument("--no-execute", action="store_true", help="write without running")
    ap.add_argument("--lang", default="en", choices=sorted(WORDS),
                    help="build the translated series into notebooks/<lang>/ (default: en, notebooks/)")
    args = ap.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    build(set(args.numbers), not args.no_execute, args.lang)
    return 0


if __name__ == "__main__":
    sys.exit(main())
