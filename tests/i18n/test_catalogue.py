"""The kit's Chinese catalogue (stsedu/locale/zh_CN/LC_MESSAGES/stsedu.po): whole, compiled, and in the
glossary's terms (docs/glossary.zh-CN.md), as are the notebooks' catalogues (tools/notebooks/zh/*.po)."""

from __future__ import annotations

import gettext
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
babel = pytest.importorskip("babel")  # a development tool: extraction and compilation only
import kit_catalogue as K  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

LANG = "zh_CN"


def test_every_text_of_the_kit_is_in_the_catalogue_and_translated():
    """What Babel extracts from stsedu/ (``_``, ``N_``, ``ngettext``, ``pgettext``) is exactly the .po's
    messages, each with a translation that is not fuzzy (run tools/kit_catalogue.py, then translate)."""
    assert K.problems(LANG) == []


def test_every_exercise_text_of_the_library_is_extracted():
    """The library's YAML texts a learner reads (question, why, format, each hint) reach the catalogue:
    every exercise's texts, as the exercise holds them, are messages of the template."""
    from stsedu.lessons.exercises.exercise import load_file
    wanted = {m.id for m in K.template() if m.id}
    library = sorted((ROOT / "stsedu" / "lessons" / "exercises" / "library").glob("*.yaml"))
    assert len(library) > 30
    for path in library:
        ex = load_file(path)
        texts = [ex.question, ex.why] + [h for _w, h in ex.hints] + ([ex.example] if ex.example else [])
        assert set(texts) <= wanted, f"{path.name}: {sorted(set(texts) - wanted)}"


def test_the_shipped_mo_is_the_compiled_po():
    mo = K.po_path(LANG).with_suffix(".mo")
    shipped = gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))
    fresh = gettext.GNUTranslations(io.BytesIO(K.compiled(K.load(LANG))))
    # the header ("" entry) names Babel's version; the messages are what count
    strip = lambda t: {k: v for k, v in t._catalog.items() if k != ""}  # noqa: E731
    assert strip(shipped) == strip(fresh), "run python tools/kit_catalogue.py"
    assert len(strip(shipped)) == len([m for m in K.load(LANG) if m.id])


def test_placeholders_survive_translation():
    """A ``{name}`` or ``%s`` of the English text is in the Chinese one (str.format would fail, or lose it)."""
    field = re.compile(r"\{[^{}]*\}|%\(?\w*\)?[sdfr]")
    bad = []
    for m in K.load(LANG):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = sorted(set(field.findall(ids[-1])))
        for s in strings:
            if s and sorted(set(field.findall(s))) != want:
                bad.append((ids[0], s))
    assert bad == []


# ---------------------------------------------------------------------------------------- glossary
GLOSSARY = ROOT / "docs" / "glossary.zh-CN.md"


def glossary() -> list[tuple[str, str, list[str]]]:
    """(English, 中文, [avoid ...]) of each row of the glossary's table."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 3 or cells[0] in ("English", "") or set(cells[0]) <= set("-"):
            continue
        rows.append((cells[0], cells[1], [a.strip() for a in re.split("[、,]", cells[2]) if a.strip()]))
    return rows


def term_pattern(term: str) -> re.Pattern:
    """The term as a word (plurals too); a term with a capital (a kind, a policy value) as written,
    a lower-case one in any case."""
    flags = 0 if any(ch.isupper() for ch in term) else re.IGNORECASE
    return re.compile(r"(?<![\w-])" + re.escape(term).replace(r"\ ", r"\s+") + r"(?:s|es)?(?![\w-])", flags)


def catalogues() -> list[Path]:
    return [K.po_path(LANG)] + sorted((ROOT / "tools" / "notebooks" / "zh").glob("*.po"))


def entries():
    for path in catalogues():
        with path.open("rb") as f:
            for m in read_po(f):
                if not m.id:
                    continue
                ids = m.id if isinstance(m.id, tuple) else (m.id,)
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                for s in strings:
                    if s:
                        yield path.name, ids[-1], s


def test_the_glossary_table_reads():
    rows = glossary()
    assert len(rows) > 30
    assert ("replica", "副本", ["复制品"]) in rows
    assert ("PersistentVolumeClaim", "持久卷申领", ["持久卷声明", "持久化卷声明"]) in rows


def _code_free(text: str) -> str:
    """*text* without its code spans, URLs and HTML tags (names there are not prose)."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"https?://\S+", " ", text)
    return re.sub(r"<[^>]+>", " ", text)


def test_translations_use_the_glossary_terms():
    """Where the English text has a glossary term as a word (outside code), its translation has the
    glossary's Chinese term or keeps the English one.  A longer term is read first, so
    "stable network identity" is not also counted as "identity"."""
    rows = sorted(glossary(), key=lambda r: -len(r[0]))
    bad = []
    for name, english, chinese in entries():
        prose = _code_free(english)
        for term, zh, _avoid in rows:
            pat = term_pattern(term)
            if not pat.search(prose):
                continue
            prose = pat.sub(" ", prose)
            if zh not in chinese and term.lower() not in chinese.lower():
                bad.append(f"{name}: {term!r} -> {zh!r} missing in {chinese[:80]!r}")
    assert bad == []


def test_no_translation_uses_a_variant_the_glossary_avoids():
    bad = [f"{name}: {avoid!r} in {chinese[:80]!r}" for name, _en, chinese in entries()
           for _t, _zh, avoids in glossary() for avoid in avoids if avoid in chinese]
    assert bad == []


def _hidden_in_fstrings(source: str) -> list[int]:
    """Lines where ``_("…")`` (or N_, ngettext, pgettext) with a literal sits inside an f-string:
    Babel's extractor does not look there, so the text would never reach the catalogue."""
    import ast
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in K.KEYWORDS
                        and any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in inner.args)):
                    lines.append(inner.lineno)
    return lines


def test_no_translated_text_hides_in_an_f_string():
    assert _hidden_in_fstrings('x = f"<b>{_(\'Hi\')}</b>"\ny = _("ok") + f"{_(name)}"\n') == [1]
    bad = {str(p.relative_to(ROOT)): lines for p in sorted(K.PACKAGE.rglob("*.py"))
           if (lines := _hidden_in_fstrings(p.read_text(encoding="utf-8")))}
    assert bad == {}
