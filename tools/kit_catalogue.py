"""The kit's own message catalogue: extract the texts wrapped in ``_()``/``ngettext``/``N_`` from
``stsedu/`` into ``stsedu/locale/<lang>/LC_MESSAGES/stsedu.po`` and compile the ``.mo`` shipped
beside it (stsedu.i18n reads the ``.mo`` with Python's gettext).

    python tools/kit_catalogue.py            # extract (keep translations of unchanged texts), compile
    python tools/kit_catalogue.py check      # what is missing, untranslated, fuzzy or stale

Everything is done with Babel's Python API (the same extraction ``pybabel extract`` runs);
Babel is a development tool here, the kit needs only gettext at run time.
"""

from __future__ import annotations

import io
import sys
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


def po_path(lang: str) -> Path:
    return PACKAGE / "locale" / lang / "LC_MESSAGES" / "stsedu.po"


def template() -> Catalog:
    """Every text of the package wrapped for translation, with where it is used."""
    cat = Catalog(project="stsedu", fuzzy=False)
    found = extract_from_dir(str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS,
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
