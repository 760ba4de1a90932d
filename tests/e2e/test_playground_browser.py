"""The Playground in a real browser: JupyterLab 4 and Notebook 7 in Debian's Chromium, via Playwright.

Skipped when /usr/bin/chromium is missing (``.ci/run`` installs it with apt-get);
the Notebook 7 case also needs the ``notebook`` package (the test extra has it).
Set STSEDU_SCREENSHOTS=<dir> to keep the screenshots (docs/img/ holds the chosen ones).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]

TIMEOUT = 90_000  # ms, for each wait: generous, CI machines are shared

FRONTENDS = {
    "lab": "/lab/tree/{name}",
    "notebook7": "/notebooks/{name}",
}


def _keep(shot: Path) -> None:
    where = os.environ.get("STSEDU_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(where) / shot.name)


@pytest.mark.parametrize("frontend", list(FRONTENDS))
def test_playground_slider_and_sync(frontend, jupyter_server, page, tmp_path):
    """Run the notebook, drag replicas up from 3, click Sync once: the decision table in the page
    shows 'create web-3' and not web-4 (OrderedReady creates one pod per sync); the chart renders offline (Vega marks, no CDN);
    Run until stable finishes through the kernel's event loop."""
    from playwright.sync_api import expect

    if frontend == "notebook7" and importlib.util.find_spec("notebook") is None:
        pytest.skip("Notebook 7 is not installed (pip install notebook)")
    url, root = jupyter_server
    name = f"playground-{frontend}.ipynb"
    shutil.copy(HERE / "playground.ipynb", root / name)

    page.set_default_timeout(TIMEOUT)
    page.goto(url + FRONTENDS[frontend].format(name=name))
    page.wait_for_function(
        "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'",
        timeout=TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    panel = page.locator(".stsedu-pg")
    expect(panel).to_be_visible(timeout=TIMEOUT)
    decisions = panel.locator(".stsedu-decisions-view")
    pods = panel.locator(".stsedu-pods-view")
    info = panel.locator(".stsedu-info-area")
    expect(pods).to_contain_text("web-2", timeout=TIMEOUT)
    expect(panel).to_contain_text("no sync yet")

    # drag the replicas handle a little to the right, as a learner would
    replicas = panel.locator(".widget-slider").filter(has_text="replicas")
    box = replicas.locator("[role=slider]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 12, y, steps=4)
    page.mouse.up()
    expect(info).to_contain_text("Scaled web to", timeout=TIMEOUT)
    # the slider has no readout (it would clamp a typed value silently); the box beside it shows the value
    import re
    n = int(re.search(r"Scaled web to (\d+)", info.inner_text()).group(1))
    assert n > 3 and panel.locator(".widget-text input").first.input_value() == str(n)
    expect(info).to_contain_text(f"Scaled web to {n} ")

    panel.get_by_role("button", name="Sync once").click()
    expect(decisions).to_contain_text("web-3", timeout=TIMEOUT)
    expect(decisions).to_contain_text("processReplica: create missing pod")
    expect(decisions).not_to_contain_text("web-4")
    expect(pods).to_contain_text("web-3")
    # the chart (first tab) drew its marks from the offline bundle
    expect(panel.locator("canvas.marks, svg.marks").first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(300)  # let the chart settle before the picture
    # the docs' pictures of the Playground (README, docs/widgets.md) are this one
    shot = tmp_path / ("screenshot-playground.png" if frontend == "lab" else f"screenshot-playground-{frontend}.png")
    panel.screenshot(path=str(shot))
    _keep(shot)

    panel.get_by_role("button", name="Run until stable").click()
    expect(info).to_contain_text("Stable after", timeout=TIMEOUT)
    shot = tmp_path / f"screenshot-{frontend}-stable.png"
    panel.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


SERIES = {
    "00-Index.ipynb": "partitioned roll out complete: 3 new pods have been updated...",
}


@pytest.mark.parametrize("name", list(SERIES))
def test_series_notebook_runs_in_jupyterlab(name, jupyter_server, page, tmp_path):
    """A notebook of the series, opened in JupyterLab and run top to bottom: no error output and the
    expected kubectl text appears; the screenshot is kept for the docs (STSEDU_SCREENSHOTS)."""
    from playwright.sync_api import expect

    url, root = jupyter_server
    shutil.copy(HERE.parent.parent / "notebooks" / name, root / name)
    page.set_default_timeout(TIMEOUT)
    page.goto(url + FRONTENDS["lab"].format(name=name) + "?reset")
    current = ("(() => { const w = window.jupyterapp?.shell.currentWidget;"
               f" return w?.context?.path?.endsWith('{name}') ? w : null; }})()")
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'",
                           timeout=TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    expect(page.locator(".jp-Notebook")).not_to_contain_text(SERIES[name])
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # every code cell has run in this kernel: its prompt shows a number again
    page.wait_for_function(
        "() => { const p = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];"
        " return p.length > 0 && p.every(e => /\\[\\d+\\]/.test(e.textContent)); }", timeout=TIMEOUT)
    outputs = page.locator(".jp-OutputArea-output")
    expect(page.locator(".jp-Notebook")).to_contain_text(SERIES[name], timeout=TIMEOUT)
    assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    assert outputs.filter(has_text="Traceback").count() == 0
    # (charts drawing offline in the page is checked by the Playground test above)
    page.locator(".jp-CodeCell").filter(has_text=SERIES[name]).last.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    shot = tmp_path / f"screenshot-series-{name[:2]}.png"
    page.screenshot(path=str(shot))
    _keep(shot)
    assert shot.stat().st_size > 10_000
