#!/usr/bin/env python3
"""Retake docs/img/screenshot-notebook-NN.png from the real page: JupyterLab in Chromium (issue #41).

Each notebook is opened in JupyterLab (tests/e2e/lab_server.py), every cell is run, and the page is
photographed with the cell that matters in view.  For 05, 06 and 07 a last cell shows the notebook's lab
at 50 replicas after a change (the lab's own manifest, made bigger), so that the picture shows a lab at
that size; 00 shows its 500-pod chart, 11 the FaultLab after its broken rollout, 17 the kit's chart.

    python tools/retake_screenshots.py            # all of them, into docs/img/
    python tools/retake_screenshots.py 07 --out /tmp/shots
    python tools/retake_screenshots.py --lang zh  # the Chinese series (notebooks/zh/), into docs/img/zh/

With ``--lang`` the buttons are found by the labels the kit gives them in that language (its gettext
catalogue), as a learner reading it would; sliders keep their field names.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

AT_50 = {
    "05": "stsedu.labs.UpdateLab(stsedu.examples.web(50))",
    "06": ("stsedu.labs.PartitionLab(stsedu.examples.web(50, updateStrategy={\"type\": \"RollingUpdate\", "
           "\"rollingUpdate\": {\"partition\": 50}}))"),
    "07": "stsedu.labs.OnDeleteLab(stsedu.examples.web(50, updateStrategy={\"type\": \"OnDelete\"}))",
}
"""The last cell added to 05, 06 and 07: the notebook's lab at 50 replicas (the page then changes it)."""

SHOTS = {
    "00": ("big = stsedu.Cluster", []),
    "05": (AT_50["05"], [("click", "nginx:2")]),
    "06": (AT_50["06"], [("click", "nginx:2"), ("type", "partition", 45)]),
    "07": (AT_50["07"], [("click", "nginx:2"), ("select", "web-49"), ("click", "Delete this pod"),
                         ("select", "web-20"), ("click", "Delete this pod"),
                         ("select", "web-0"), ("click", "Delete this pod")]),
    "11": ("stsedu.labs.FaultLab()", [("click", ("Roll out {image}", {"image": "nginx:broken"}))]),
    "17": ("stsedu.charts.pod_timeline(run.kit_trace", []),
}
"""Notebook -> (the start of the cell shown, what the learner does in it first: a button or toggle clicked,
a pod picked in the menu, a value typed into a slider's box), each change waited for in the page.  A button's
label is the kit's English text, or (text, values) for one with values put in, looked up in the page's language;
a slider is named by its field (``partition``), the same in every language."""


def in_language(label, lang: str) -> str:
    """*label* (a SHOTS label) as the kit writes it in *lang* ("" : English)."""
    from stsedu import i18n

    text, values = label if isinstance(label, tuple) else (label, {})
    before = i18n.current_language()
    i18n.set_language(lang or "en")
    try:
        return i18n._(text).format(**values) if values else i18n._(text)
    finally:
        i18n.set_language(before)

CURRENT = ("(() => {{ const w = window.jupyterapp?.shell.currentWidget;"
           " return w?.context?.path?.endsWith('{name}') ? w : null; }})()")


def take(numbers, out: Path, lang: str = "") -> list[Path]:
    import nbformat
    from lab_server import chromium, jupyter_lab
    saved = []
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, jupyter_lab(Path(tmp)) as (url, root), chromium() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1500}).new_page()
        page.set_default_timeout(240_000)
        for nn in numbers:
            src = next((ROOT / "notebooks" / lang).glob(f"{nn}-*.ipynb"))
            nb = nbformat.read(src, as_version=4)
            if nn in AT_50:
                nb.cells.append(nbformat.v4.new_code_cell(AT_50[nn]))
            (root / lang).mkdir(exist_ok=True)
            nbformat.write(nb, root / lang / src.name)
            path = f"{lang}/{src.name}" if lang else src.name
            current = CURRENT.format(name=path)
            page.goto(f"{url}/lab/tree/{path}?reset")
            page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'")
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(
                "() => { const p = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];"
                " return p.length > 0 && p.every(e => /\\[\\d+\\]/.test(e.textContent)); }")
            start, actions = SHOTS[nn]
            running = in_language("{did}: running…", lang).replace("{did}", "")
            cell = page.locator(".jp-CodeCell").filter(has_text=start.splitlines()[0]).last
            cell.scroll_into_view_if_needed()
            for kind, *what in actions:
                print(f"  {nn}: {kind} {what}", flush=True)
                if kind == "select":
                    cell.locator("select").select_option(what[0])
                    continue
                line = cell.locator(".lab-did, .lab-error").first.locator("xpath=..")  # the widget: its div is replaced
                did = line.inner_text()
                if kind == "click":
                    cell.get_by_role("button", name=in_language(what[0], lang), exact=True).click()
                else:  # a value typed into the box beside a slider, then Enter
                    box = cell.locator(".widget-hslider").filter(has_text=what[0]).locator(  # a field name
                        "xpath=..").locator(".widget-text input")
                    box.fill(str(what[1]))
                    box.press("Enter")
                page.wait_for_function("([el, before, running]) => el.innerText !== before"
                                       " && !el.innerText.includes(running)",
                                       arg=[line.element_handle(), did, running])
            # every chart in the cell drawn (Vega's marks), then a moment for the last paint
            page.wait_for_function("(el) => [...el.querySelectorAll('.stsedu-chart, .vega-embed')]"
                                   ".every(c => c.querySelector('canvas, svg.marks'))", arg=cell.element_handle())
            page.wait_for_timeout(1500)
            # the cell's output at the top of the page, the cell's code just above it
            cell.evaluate("el => el.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            shot = out / f"screenshot-notebook-{nn}.png"
            page.screenshot(path=str(shot))
            saved.append(shot)
            print(f"{shot}: {src.name}", flush=True)
            page.evaluate(f"() => {current}.sessionContext.shutdown()")
    return saved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("numbers", nargs="*", default=list(SHOTS), help="notebook numbers (default: all of SHOTS)")
    ap.add_argument("--lang", default="", choices=["", "zh"], help="the series: English (default) or zh")
    ap.add_argument("--out", type=Path, help="where to write (default: docs/img/, docs/img/zh/ with --lang zh)")
    args = ap.parse_args(argv)
    take(args.numbers, args.out or ROOT / "docs" / "img" / args.lang, args.lang)
    return 0


if __name__ == "__main__":
    sys.exit(main())
