"""Every concept notebook in JupyterLab (Debian's Chromium, via Playwright): opening it leaves it
unmodified; run top to bottom, its lab shows a control, a decisions table and a chart; moving the
control redraws the table and the chart in place.

The Chinese series (notebooks/zh/, issue #45) is walked the same way, and its pages must show
none of the kit's own English messages (the msgids of its Chinese catalogue).

One JupyterLab server for the whole module.  Skipped when /usr/bin/chromium is missing.
Set STSEDU_SCREENSHOTS=docs/img to keep one screenshot per notebook (screenshot-notebook-NN.png,
and zh/screenshot-notebook-NN.png for the Chinese series).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Notebooks without a lab (the index's Playground, the exercise sheet, the kubectl tutorial, the
# real control plane's stored run): opened unmodified, every cell run, no error.
WITHOUT_A_LAB = ["00-Index.ipynb", "13-Exercises.ipynb", "16-StatefulSet-Basics-With-kubectl.ipynb",
                 "17-The-Same-Lesson-On-A-Real-Control-Plane.ipynb"]
NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")
                   if p.name not in WITHOUT_A_LAB)
# "" is the English series in notebooks/, "zh" the Chinese one in notebooks/zh/ (the notebooks it has)
ZH = sorted(p.name for p in (REPO / "notebooks" / "zh").glob("[0-9][0-9]-*.ipynb"))
WITH_LABS = [("", n) for n in NOTEBOOKS] + [("zh", n) for n in ZH if n not in WITHOUT_A_LAB]
WITHOUT_LABS = [("", n) for n in WITHOUT_A_LAB] + [("zh", n) for n in ZH if n in WITHOUT_A_LAB]


def _ids(cases) -> list[str]:
    """The English notebooks keep their ids (``06-Partitions-And-Canaries.ipynb``); ``zh/06-...``."""
    return [f"{lang}/{name}" if lang else name for lang, name in cases]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]

TIMEOUT = 120_000  # ms, for each wait: generous, CI machines are shared

CURRENT = ("(() => {{ const w = window.jupyterapp?.shell.currentWidget;"
           " return w?.context?.path?.endsWith('{name}') ? w : null; }})()")


def _keep(page, name: str, tmp_path: Path, lang: str = "") -> None:
    shot = tmp_path / f"screenshot-notebook-{name[:2]}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    where = os.environ.get("STSEDU_SCREENSHOTS")
    if where:
        (Path(where) / lang).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(where) / lang / shot.name)


def _kit_english_on_the_page(page) -> list[str]:
    """The kit's own English messages the page shows (empty for a page in Chinese)."""
    from test_translations import kit_messages

    shown = " ".join(page.locator(".jp-OutputArea-output").all_inner_texts())
    shown = " ".join(shown.split())
    return [m for m in kit_messages() if m in shown]


def _has_cjk_font() -> bool:
    """Chromium draws Chinese only with a CJK font installed (Debian: fonts-noto-cjk); without one
    every character is an empty box in the page and the screenshots."""
    import subprocess

    if not shutil.which("fc-list"):
        return False
    return bool(subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout.strip())


def _label(english: str, lang: str) -> str:
    """A lab's control label as the kit writes it in *lang* (its gettext catalogue)."""
    if not lang:
        return english
    from stsedu import i18n

    before = i18n.current_language()
    i18n.set_language(lang)
    try:
        return i18n._(english)
    finally:
        i18n.set_language(before)


def _move_a_control(page, lab, lang=""):
    """Do what a learner would: press Sync once, drag replicas up, pick another option, or press a button."""
    sync = lab.get_by_role("button", name=_label("Sync once", lang))
    if sync.count():
        sync.click()
        return "Sync once"
    replicas = lab.locator(".widget-slider").filter(has_text=_label("replicas", lang))
    if replicas.count():
        box = replicas.first.locator("[role=slider]").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 40, y, steps=4)
        page.mouse.up()
        return "replicas"
    toggles = lab.locator(".widget-toggle-button:not(.mod-active), .widget-toggle-button button:not(.mod-active)")
    if toggles.count():
        toggles.first.click()
        return "option"
    lab.locator("button.jupyter-button").first.click()
    return "button"


def _open_unmodified_and_run_all(page, jupyter_server, name, lang="") -> None:
    """Open notebook *name* of the *lang* series in JupyterLab (opening must not mark it modified),
    run every cell, and check that no cell printed a traceback."""
    url, root = jupyter_server
    if lang == "zh":
        assert _has_cjk_font(), "no CJK font for Chromium: apt-get install fonts-noto-cjk"
    (root / lang).mkdir(exist_ok=True)
    shutil.copy(REPO / "notebooks" / lang / name, root / lang / name)
    path = f"{lang}/{name}" if lang else name
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{url}/lab/tree/{path}?reset")
    current = CURRENT.format(name=path)
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'",
                           timeout=TIMEOUT)
    page.wait_for_timeout(500)
    assert page.evaluate(f"() => {current}.context.model.dirty") is False, "opening it marked it modified"
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(
        "() => { const p = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];"
        " return p.length > 0 && p.every(e => /\\[\\d+\\]/.test(e.textContent)); }", timeout=TIMEOUT)
    assert page.locator(".jp-OutputArea-output").filter(has_text="Traceback").count() == 0


@pytest.mark.parametrize("lang,name", WITH_LABS, ids=_ids(WITH_LABS))
def test_lab_in_notebook_redraws_table_and_chart(lang, name, jupyter_server, page, tmp_path):
    from playwright.sync_api import expect

    _open_unmodified_and_run_all(page, jupyter_server, name, lang)

    lab = page.locator(".stsedu-lab-panel").last
    expect(lab).to_be_visible(timeout=TIMEOUT)
    lab.scroll_into_view_if_needed()
    table = lab.locator(".stsedu-lab-decisions")
    chart = lab.locator(".stsedu-lab-chart")
    expect(chart.locator("canvas, svg").first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(500)  # let Vega finish drawing
    table_before = table.inner_html()
    chart_before = chart.screenshot()
    did_before = lab.locator(".lab-did").inner_text() if lab.locator(".lab-did").count() else ""

    _move_a_control(page, lab, lang)
    if did_before:  # the labs of stsedu.labs say what you did (04's LoopLab has no such line)
        expect(lab.locator(".lab-did, .lab-error").first).not_to_have_text(did_before, timeout=TIMEOUT)
    assert lab.locator(".lab-error").count() == 0, lab.locator(".lab-error").inner_text()
    page.wait_for_function("([el, before]) => el.innerHTML !== before",
                           arg=[table.element_handle(), table_before], timeout=TIMEOUT)
    for _ in range(60):  # Vega redraws asynchronously; give a loaded machine up to ~30 s
        if chart.screenshot() != chart_before:
            break
        page.wait_for_timeout(500)
    else:
        raise AssertionError("the chart did not change")
    lab.scroll_into_view_if_needed()
    _keep(page, name, tmp_path, lang)
    if lang:
        assert _kit_english_on_the_page(page) == []


@pytest.mark.parametrize("lang,name", WITHOUT_LABS, ids=_ids(WITHOUT_LABS))
def test_index_and_exercise_sheet_run_unmodified(lang, name, jupyter_server, page, tmp_path):
    """00 (with the Playground in its last cell), 13 and 16 open unmodified and run without an error."""
    from playwright.sync_api import expect

    _open_unmodified_and_run_all(page, jupyter_server, name, lang)
    if name.startswith("00"):
        panel = page.locator(".stsedu-pg").last
        expect(panel).to_be_visible(timeout=TIMEOUT)
        panel.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
    _keep(page, name, tmp_path, lang)
    if lang:
        assert _kit_english_on_the_page(page) == []


@pytest.mark.parametrize("lang", ["", "zh"], ids=["en", "zh"])
def test_a_prediction_run_in_the_browser_is_revealed_with_the_rule_and_a_chart(lang, jupyter_server, page, tmp_path):
    """06.a: the stored output only asks; writing an answer into the cell and running it shows ✓ or ✗,
    the rule, the decisions and a chart (in the Chinese notebook, none of it in the kit's English)."""
    from playwright.sync_api import expect

    name = "06-Partitions-And-Canaries.ipynb"
    if not (REPO / "notebooks" / lang / name).exists():
        pytest.skip(f"no notebooks/{lang}/{name}")
    url, root = jupyter_server
    if lang == "zh":
        assert _has_cjk_font(), "no CJK font for Chromium: apt-get install fonts-noto-cjk"
    (root / lang).mkdir(exist_ok=True)
    shutil.copy(REPO / "notebooks" / lang / name, root / lang / f"reveal-{name}")
    path = f"{lang}/reveal-{name}" if lang else f"reveal-{name}"
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{url}/lab/tree/{path}?reset")
    current = CURRENT.format(name=path)
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'",
                           timeout=TIMEOUT)
    cell = page.locator(".jp-CodeCell").filter(has_text='stsedu.labs.reveal("06.a"').first
    # shipped unexecuted: nothing at all under the question before the learner runs it
    expect(cell.locator(".jp-OutputArea-output")).to_have_count(0)
    expect(page.locator(".jp-Notebook")).not_to_contain_text("✓")
    # the notebook's first code cell would have set the language; this cell runs alone
    switch = f'stsedu.set_language("{lang}")\\n' if lang else ""
    page.evaluate(f"""() => {{
        const nb = {current}.content;
        const i = nb.widgets.findIndex(c => c.model.sharedModel.getSource().includes('reveal("06.a"'));
        nb.widgets[0].model.sharedModel.setSource(nb.widgets[0].model.sharedModel.getSource());
        nb.widgets[i].model.sharedModel.setSource('import stsedu\\n{switch}answer = ["web-3", "web-4"]\\n'
                                                   + 'stsedu.labs.reveal("06.a", answer)');
        nb.activeCellIndex = i;
    }}""")
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-cell')")
    expect(cell).to_contain_text("✓" if lang else "✓ right", timeout=TIMEOUT)
    if not lang:
        expect(cell).to_contain_text("The rule: Only pods whose ordinal is at least the partition")
    expect(cell.locator(".lab-decisions")).to_contain_text("web-4")
    expect(cell.locator("canvas, svg").first).to_be_visible(timeout=TIMEOUT)
    cell.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    if lang:
        assert _kit_english_on_the_page(page) == []
    shot = tmp_path / "screenshot-reveal.png"
    page.screenshot(path=str(shot))
    where = os.environ.get("STSEDU_SCREENSHOTS")
    if where:
        (Path(where) / lang).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(where) / lang / shot.name)
