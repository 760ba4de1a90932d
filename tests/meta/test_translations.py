"""The translated series (notebooks/zh/) stays in step with the English one, and reads in Chinese.

Drift: every English source in tools/notebooks/ has a whole catalogue in tools/notebooks/zh/
(tools/notebook_translations.py ``problems`` is empty: a markdown cell added or changed in English
has no translation until someone writes one), and notebooks/zh/NN-*.ipynb has the English
notebook's cells: the same kinds in the same order, code cells identical but for the
``stsedu.set_language("zh")`` line, and the same questions.

Scan: no English sentence (four or more English words in a row) in the markdown of the Chinese
notebooks, once code, URLs, and names kept in English (kinds, fields, phases, glossary terms kept
as they are) are set aside; and no English text of the kit's own messages (the msgids of
stsedu/locale/zh_CN/LC_MESSAGES/stsedu.po) in what their cells print. kubectl's output, the API
server's messages and the decision messages mirroring upstream's log lines stay English, as on a
real cluster, and are not the kit's catalogue.
"""

import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_notebooks  # noqa: E402
import notebook_translations  # noqa: E402

LANG = "zh"
SOURCES = notebook_translations.sources()
ZH = sorted((ROOT / "notebooks" / LANG).glob("[0-9][0-9]-*.ipynb"))
KIT_CATALOGUE = ROOT / "stsedu" / "locale" / "zh_CN" / "LC_MESSAGES" / "stsedu.po"
SET_LANGUAGE = f'stsedu.set_language("{LANG}")'
QUESTION = re.compile(r"""reveal\(\s*["'](\d\d\.[a-z])["']""")
QUESTION_IN_PROSE = re.compile(r"\*\*[^*\d]*(\d\d\.[a-z])\.?\*\*")

# Words that are names, kept in English in Chinese text (kinds, phases, conditions, products),
# besides those the rule in `english_sentences` already sets aside (camelCase, digits, dots).
# As written: "Pod" is a kind, "pod" in a run of words is English prose.
KEPT = {"Pod", "Pods", "Service", "Deployment", "Informer", "Lister", "Running", "Pending", "Ready",
        "Terminating", "Failed", "Succeeded", "Retain", "Delete", "Beta", "Go", "Kubernetes",
        "kubectl", "kubelet", "worker", "workers", "Binder", "nbgrader", "Playground"}


def glossary_kept() -> set[str]:
    """The glossary's terms whose Chinese is the English word itself (``| informer | Informer |``)."""
    text = (ROOT / "docs" / "glossary.zh-CN.md").read_text()
    rows = re.findall(r"^\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|", text, re.M)
    return {zh for en, zh in rows if en.lower() == zh.lower()}


def prose(markdown: str) -> str:
    """*markdown* without what is not prose: code blocks and spans, URLs and link targets, HTML."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)  # a code span may go on over a line break
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<!--.*?-->|<[^>]+>", " ", text, flags=re.S)
    return re.sub(r"https?://\S+", " ", text)


def english_sentences(text: str, kept: set[str] = frozenset(), least: int = 4) -> list[str]:
    """Runs of *least* (four) or more English words in *text*. A name breaks a run: a word with a
    capital after its first letter, a digit, a dot, an underscore or a slash (fields, kinds,
    functions), or one of KEPT / *kept*."""
    out, run = [], []
    for token in re.split(r"(\s+|[^\sA-Za-z0-9'._/-]+)", text):
        if not token or token.isspace() or token in {",", "'"}:
            continue
        word = token.strip("'-")
        is_word = re.fullmatch(r"[A-Za-z][a-z]*(?:[-'][a-z]+)*", word) is not None
        if is_word and word not in KEPT | kept:
            run.append(word)
            continue
        if len(run) >= least:
            out.append(" ".join(run))
        run = []
    if len(run) >= least:
        out.append(" ".join(run))
    return out


def zh_path(source: Path) -> Path:
    return ROOT / "notebooks" / LANG / f"{source.stem}.ipynb"


def english_path(source: Path) -> Path:
    return ROOT / "notebooks" / f"{source.stem}.ipynb"


def cells(path: Path):
    return [c for c in nbformat.read(path, as_version=4).cells
            if "navigation" not in c.metadata.get("tags", [])]


# --- drift ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_english_cell_has_its_translation(source):
    """tools/notebooks/zh/NN-*.po translates every markdown cell and the blurb of the English
    source as it is now (python tools/notebook_translations.py extract zh NN, then fill msgstr)."""
    assert notebook_translations.problems(source, LANG) == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_chinese_notebook_has_the_english_cells(source):
    """Same cells in the same order; code identical but for the language line, which the first
    cell importing stsedu has; the same questions asked (reveal ids) and named in the prose."""
    assert zh_path(source).exists(), f"python tools/build_notebooks.py --lang {LANG} {source.stem[:2]}"
    en, zh = cells(english_path(source)), cells(zh_path(source))
    assert [c.cell_type for c in zh] == [c.cell_type for c in en]
    code_en = [c.source for c in en if c.cell_type == "code"]
    code_zh = [c.source for c in zh if c.cell_type == "code"]
    with_switch = [i for i, s in enumerate(code_zh) if SET_LANGUAGE in s]
    first_import = next(i for i, s in enumerate(code_en) if re.search(r"^import stsedu$", s, re.M))
    assert with_switch == [first_import], "the first cell importing stsedu sets the language, no other"
    code_zh[first_import] = "\n".join(ln for ln in code_zh[first_import].split("\n") if ln != SET_LANGUAGE)
    assert code_zh == code_en
    assert QUESTION.findall("\n".join(code_zh)) == QUESTION.findall("\n".join(code_en))
    asked = [QUESTION_IN_PROSE.findall(c.source) for c in en if c.cell_type == "markdown"]
    assert [QUESTION_IN_PROSE.findall(c.source) for c in zh if c.cell_type == "markdown"] == asked


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_chinese_notebook_is_built_from_the_catalogue(source):
    """notebooks/zh/NN-*.ipynb holds the catalogue's text of the English cells as they are now
    (rebuild with tools/build_notebooks.py --lang zh NN after editing a catalogue)."""
    built = [c.source for c in build_notebooks.load_translated(source, LANG).cells]
    stored = [c.source for c in cells(zh_path(source))]
    is_index = [build_notebooks.INDEX_MARK in s for s in built]
    assert [s for s, idx in zip(stored, is_index) if not idx] == [s for s, idx in zip(built, is_index) if not idx]


def test_a_changed_english_cell_shows_as_untranslated(tmp_path, monkeypatch):
    """Editing an English markdown cell leaves it without a translation (the first test fails
    until the catalogue has one), and the build refuses to write that notebook."""
    source = next(p for p in SOURCES if notebook_translations.catalogue_path(p, LANG).exists())
    copy = tmp_path / source.name
    copy.write_text(source.read_text().replace("## Summary", "## Summary, changed", 1))
    (tmp_path / LANG).mkdir()
    shutil.copy(notebook_translations.catalogue_path(source, LANG), tmp_path / LANG)
    assert notebook_translations.problems(copy, LANG) == [
        f"{source.stem}.po: not translated: '## Summary, changed'",
        f"{source.stem}.po: no longer in the source: '## Summary'"]
    with pytest.raises(ValueError, match="not translated"):
        build_notebooks.load_translated(copy, LANG)


# --- scan ----------------------------------------------------------------------------------------

def test_the_scan_finds_an_english_sentence():
    """The scan's own check: prose is found, names and code are not."""
    assert english_sentences(prose("控制器 creates the next pod 然后")) == ["creates the next pod"]
    assert english_sentences(prose("运行 `kubectl get pods -w` 并看 [笔记本](https://example.org/a b c d)")) == []
    assert english_sentences(prose("`updateStrategy` 为 RollingUpdate Running Ready Pod web-0")) == []


@pytest.mark.parametrize("path", ZH, ids=lambda p: p.stem)
def test_no_english_sentence_in_the_chinese_markdown(path):
    kept = glossary_kept()
    found = {s for c in cells(path) if c.cell_type == "markdown"
             for s in english_sentences(prose(c.source), kept)}
    assert not found, f"English left in {path.name}: {sorted(found)}"


def kit_messages() -> list[str]:
    """The English literal parts (4+ words) of every message the kit translates into Chinese."""
    from babel.messages.pofile import read_po

    with KIT_CATALOGUE.open("rb") as f:
        catalogue = read_po(f)
    out = set()
    for m in catalogue:
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        if not m.id or list(ids) == list(strings):  # kept English on purpose
            continue
        for text in ids:
            for part in re.split(r"\{[^{}]*\}|%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]", text):
                out.update(s for s in english_sentences(part) if len(s.split()) >= 4)
    return sorted(out)


def printed(path: Path) -> str:
    """Everything the notebook's stored outputs show, as text."""
    parts = []
    for cell in nbformat.read(path, as_version=4).cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            for kind in ("text/plain", "text/html", "text/markdown"):
                value = out.get("data", {}).get(kind)
                if value:
                    parts.append(value if isinstance(value, str) else "".join(value))
    return re.sub(r"\s+", " ", "\n".join(parts))


@pytest.mark.parametrize("path", ZH, ids=lambda p: p.stem)
def test_no_english_kit_message_in_the_chinese_outputs(path):
    assert KIT_CATALOGUE.exists(), "the kit's Chinese catalogue (stsedu/locale/zh_CN) is missing"
    shown = printed(path)
    english = [m for m in kit_messages() if m in shown]
    assert not english, f"{path.name} shows the kit's English: {english[:10]}"


# --- the Chinese README and teaching plan -----------------------------------------------------------

@pytest.mark.parametrize("doc", ["README.zh-CN.md", "docs/teaching.zh-CN.md"])
def test_chinese_docs_link_to_what_exists(doc):
    """Like README.md (test_project_files): every relative link of README.zh-CN.md and
    docs/teaching.zh-CN.md is a file of this repository, and the README's series table links every
    Chinese notebook."""
    from test_project_files import _readme_links

    path = ROOT / doc
    for target in _readme_links(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:|^//|^www\.", target, flags=re.I):
            continue
        file = target.split("#", 1)[0]
        if file:
            assert (path.parent / file).exists(), f"{doc} links {target}, which is not in the repository"
    if doc == "README.zh-CN.md":
        linked = set(re.findall(r"\]\(notebooks/zh/([^)]+\.ipynb)\)", path.read_text(encoding="utf-8")))
        assert linked == {f"{s.stem}.ipynb" for s in SOURCES}
