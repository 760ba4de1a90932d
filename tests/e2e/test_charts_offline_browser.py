"""Charts in a real browser with no network and no vl-convert in the kernel (issue 17).

JupyterLab 4 in Debian's Chromium; the kernel cannot import vl_convert (conftest puts
kernel_without_vl_convert/sitecustomize.py on its path) and every request that leaves
127.0.0.1 is refused and recorded.  A chart at the end of a cell draws, and a ChartWidget
redraws in place when a button changes what it shows.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]

TIMEOUT = 90_000

CELLS = [
    """import importlib, sys
import ipywidgets as W
import stsedu
from stsedu import charts
from stsedu.lessons.examples import web
try:
    import vl_convert
    print("vl_convert: importable")
except ImportError:
    print("vl_convert: not importable")
c = stsedu.Cluster(seed=0)
c.apply(web(3)); c.run("web"); c.set_image("web", "nginx:2"); c.run("web")
charts.enable_offline()""",
    "charts.status_counters(c.trace)",
    """w = charts.ChartWidget(charts.pod_timeline(c.trace))
w.embed_options = {"renderer": "svg"}  # so the test can read the chart's title in the page
redraw = W.Button(description="show the decisions")
redraw.on_click(lambda _: w.update(charts.decision_strip(c.trace)))
W.VBox([redraw, w])""",
    """try:
    charts.save(charts.pod_timeline(c.trace), "t.png")
except ImportError as e:
    print(e)""",
]


def test_charts_draw_offline_without_vl_convert_and_redraw_in_place(jupyter_server, page):
    from playwright.sync_api import expect

    url, root = jupyter_server
    name = "charts-offline.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)

    outside = []

    def guard(route):
        if route.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()
    page.route("**/*", guard)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{url}/lab/tree/{name}?reset")
    page.wait_for_function(
        "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'",
        timeout=TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    expect(cells.nth(0)).to_contain_text("vl_convert: not importable", timeout=TIMEOUT)
    # a chart at the end of a cell: drawn from the kit's bundle (canvas or svg marks)
    expect(cells.nth(1).locator("canvas.marks, svg.marks").first).to_be_visible(timeout=TIMEOUT)
    # the ChartWidget shows the pod timeline, then the decision strip IN THE SAME place
    widget = cells.nth(2).locator(".stsedu-chart")
    expect(widget.locator("svg.marks")).to_contain_text("Pods of web over time", timeout=TIMEOUT)
    cells.nth(2).get_by_role("button", name="show the decisions").click()
    expect(widget.locator("svg.marks")).to_contain_text("What each sync of web decided", timeout=TIMEOUT)
    expect(widget).to_have_count(1)
    assert cells.nth(2).locator(".jp-OutputArea-output").count() == 1  # no new output, no new widget
    # PNG export says what to install
    expect(cells.nth(3)).to_contain_text("pip install 'stsedu[export]'", timeout=TIMEOUT)
    assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    assert outside == [], f"requests left the machine: {outside[:5]}"
