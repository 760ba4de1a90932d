"""The kit's own message catalogue: extract the texts wrapped in ``_()``/``ngettext``/``N_`` from
``stsedu/``, and the learner-facing texts of the exercise library's YAML files (question, why,
title, format, each hint: :func:`extract_exercise_yaml`), into ``stsedu/locale/<lang>/LC_MESSAGES/stsedu.po`` and compile the ``.mo`` shipped
beside it (stsedu.i18n reads the ``.mo`` with Python's gettext).

    python tools/kit_catalogue.py            # extract (keep translations of unchanged texts), compile
    python tools/kit_catalogue.py check      # what is missing, untranslated, fuzzy or stale

Everything is done with Babel's Python API (the same extraction ``pybabel extract`` runs);
Babel is a development tool here, the kit needs only gettext at run time.
"""

from __future__ import annotations

import io
import sys
from typing import Any, Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "stsedu"
LOCALES = ("zh_CN",)
KEYWORDS = {k: DEFAULT_KEYWORDS[k] for k in ("_", "N_", "ngettext", "pgettext")}
COMMENT_TAGS = ("Translators:",)


#: The exercise library's fields a learner reads, translated where the exercise shows them.
EXERCISE_TEXTS = ("question", "why", "title", "format")
EXERCISE_LIBRARY = "lessons/exercises/library/*.yaml"


def exercise_texts(data: Any, node: Any) -> Iterator[tuple[int, str]]:
    """(line, text) of each learner-facing text of one exercise file, the text as the exercise
    holds it (whitespace folded, as ``exercise.py`` parses it)."""
    import yaml

    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        return
    nodes = {k.value: v for k, v in node.value}
    for key in EXERCISE_TEXTS:
        if isinstance(data.get(key), str) and data[key].strip():
            yield nodes[key].start_mark.line + 1, " ".join(data[key].split())
    hints = data.get("hints")
    if isinstance(hints, list) and isinstance(nodes.get("hints"), yaml.SequenceNode):
        for item, item_node in zip(hints, nodes["hints"].value):
            if isinstance(item, dict) and isinstance(item.get("hint"), str):
                hint_node = {k.value: v for k, v in item_node.value}["hint"]
                yield hint_node.start_mark.line + 1, " ".join(item["hint"].split())


def extract_exercise_yaml(fileobj, keywords, comment_tags, options) -> Iterator[tuple]:
    """A Babel extraction method for an exercise file of the library (``method_map`` takes it
    as a callable): its question, why, title, format and hints, as ``_()`` would give them."""
    import yaml

    text = fileobj.read().decode("utf-8")
    for line, message in exercise_texts(yaml.safe_load(text), yaml.compose(text)):
        yield line, "_", message, []


def po_path(lang: str) -> Path:
    return PACKAGE / "locale" / lang / "LC_MESSAGES" / "stsedu.po"


def template() -> Catalog:
    """Every text of the package wrapped for translation, with where it is used."""
    cat = Catalog(project="stsedu", fuzzy=False)
    found = extract_from_dir(str(PACKAGE), method_map=[("**.py", "python"),
                                                                (EXERCISE_LIBRARY, extract_exercise_yaml)], keywords=KEYWORDS,
                             comment_tags=COMMENT_TAGS, strip_comment_tags=True)
    for filename, lineno, message, comments, context in found:
        cat.add(message, None, [(f"stsedu/{filename}", lineno)], auto_comments=comments,
                context=context)
    return cat


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, project="stsedu", fuzzy=False)
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def compiled(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, cat)
    return buf.getvalue()


def extract(lang: str) -> Path:
    """Bring *lang*'s catalogue up to the sources (new texts empty, removed ones dropped, kept
    ones with their translation) and compile it."""
    cat = load(lang)
    created = cat.creation_date
    cat.update(template(), no_fuzzy_matching=True)
    cat.creation_date = created  # the .po changes only where its messages do
    cat.obsolete.clear()
    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, cat, width=0, ignore_obsolete=True, include_lineno=False)
    path.with_suffix(".mo").write_bytes(compiled(load(lang)))
    return path


def problems(lang: str) -> list[str]:
    """Why *lang*'s catalogue is not whole: texts of the sources it lacks, texts it has that the
    sources no longer use, empty or fuzzy translations."""
    cat, want = load(lang), template()
    have = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in cat if m.id}
    need = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in want if m.id}
    out = [f"missing: {i!r}" for _, i in sorted(need - have, key=str)]
    out += [f"stale: {i!r}" for _, i in sorted(have - need, key=str)]
    for m in cat:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not all(strings):
            out.append(f"untranslated: {m.id!r}")
        elif m.fuzzy:
            out.append(f"fuzzy: {m.id!r}")
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        bad = [f"{lang}: {p}" for lang in LOCALES for p in problems(lang)]
        print("\n".join(bad) or "all catalogues whole")
        return 1 if bad else 0
    for lang in LOCALES:
        print(extract(lang))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
