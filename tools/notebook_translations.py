"""Translations of the notebook series: one gettext catalogue per notebook, beside its source.

The English percent-format source ``tools/notebooks/NN-Name.py`` is the only source of a
notebook's cells. ``tools/notebooks/<lang>/NN-Name.po`` holds the translation of every
markdown cell (``msgid`` = the cell's text as jupytext reads it) and of the ``# blurb:`` line
(``msgctxt "blurb"``). A translated notebook is the English one with those cells replaced:
its code cells are the English ones, so the two cannot drift in code, labs or questions, and a
markdown cell added or changed in English has no translation until someone writes one
(``check`` lists it; the drift test fails).

    python tools/notebook_translations.py extract zh [NN ...]   # add new cells, drop removed ones
    python tools/notebook_translations.py check zh              # what is missing, fuzzy or stale

Catalogues are read and written with Babel (``babel.messages.pofile``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

SOURCES = Path(__file__).resolve().parent / "notebooks"
BLURB = "# blurb: "


def sources(numbers=()) -> list[Path]:
    out = sorted(SOURCES.glob("[0-9][0-9]-*.py"))
    return [p for p in out if not numbers or p.name[:2] in numbers]


def catalogue_path(source: Path, lang: str) -> Path:
    return source.parent / lang / (source.stem + ".po")


def messages(source: Path) -> list[tuple[str | None, str]]:
    """``(context, text)`` of every cell of *source* that is translated, in order."""
    out: list[tuple[str | None, str]] = []
    for cell in jupytext.read(source).cells:
        if cell.cell_type == "markdown":
            out.append((None, cell.source))
        elif cell.source.startswith(BLURB):
            out.append(("blurb", cell.source[len(BLURB):]))
    return out


def load(path: Path, lang: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=lang)
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def extract(source: Path, lang: str) -> Path:
    """Write *source*'s catalogue for *lang*: every translated cell, keeping the translations of
    cells whose English text is unchanged; cells no longer in the source are dropped."""
    path = catalogue_path(source, lang)
    old = load(path, lang)
    new = Catalog(locale=lang, project="stsedu", fuzzy=False)
    for ctx, text in messages(source):
        had = old.get(text, context=ctx)
        new.add(text, had.string if had else "", context=ctx)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, new, width=0, omit_header=True, sort_output=False)
    return path


def problems(source: Path, lang: str) -> list[str]:
    """What keeps *source*'s translation from being whole: missing, fuzzy or stale entries."""
    path = catalogue_path(source, lang)
    if not path.exists():
        return [f"{path.name}: no catalogue (python tools/notebook_translations.py extract {lang} {source.name[:2]})"]
    cat = load(path, lang)
    wanted = messages(source)
    out = []
    for ctx, text in wanted:
        m = cat.get(text, context=ctx)
        first = text.splitlines()[0][:60] if text else ""
        if m is None or not m.string:
            out.append(f"{path.name}: not translated: {first!r}")
        elif m.fuzzy:
            out.append(f"{path.name}: fuzzy: {first!r}")
    keys = {(c, t) for c, t in wanted}
    out += [f"{path.name}: no longer in the source: {str(m.id).splitlines()[0][:60]!r}"
            for m in cat if m.id and (m.context, m.id) not in keys]
    return out


def translated(source: Path, lang: str):
    """*source*'s notebook (jupytext) with its markdown cells and blurb in *lang*; ValueError if the
    catalogue is not whole."""
    bad = problems(source, lang)
    if bad:
        raise ValueError("; ".join(bad[:5]))
    cat = load(catalogue_path(source, lang), lang)
    nb = jupytext.read(source)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = cat.get(cell.source).string
        elif cell.source.startswith(BLURB):
            cell.source = BLURB + cat.get(cell.source[len(BLURB):], context="blurb").string
    return nb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("extract", "check"))
    ap.add_argument("lang")
    ap.add_argument("numbers", nargs="*")
    args = ap.parse_args(argv)
    if args.command == "extract":
        for src in sources(args.numbers):
            print(f"wrote {extract(src, args.lang)}")
        return 0
    bad = [p for src in sources(args.numbers) for p in problems(src, args.lang)]
    print("\n".join(bad) or f"every notebook is translated into {args.lang}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
