"""The Playground in a real browser: JupyterLab + Debian's Chromium, driven by Playwright.

Skipped when /usr/bin/chromium is missing (``.ci/run`` installs it with apt-get).
Set STSEDU_SCREENSHOTS=<dir> to keep the screenshots (docs/img/ holds the chosen one).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import CHROMIUM  # noqa: F401 - tests/e2e/conftest.py

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]

TIMEOUT = 60_000  # ms: generous, CI machines are shared


def _kernel_idle(page) -> None:
    page.wait_for_function(
        "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'",
        timeout=TIMEOUT)


def _keep(shot: Path, name: str) -> None:
    where = os.environ.get("STSEDU_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(where) / name)


def test_playground_slider_and_sync_in_jupyterlab(lab_url, page, tmp_path):
    """Run the notebook, move replicas 3 -> 4, click Sync once: the decision table in the page
    shows 'create web-3'; the chart renders offline (Vega marks drawn, no CDN)."""
    from playwright.sync_api import expect

    import time; T=time.monotonic(); P=lambda m: print(f"{time.monotonic()-T:6.2f} {m}", flush=True)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{lab_url}/lab/tree/playground.ipynb")
    P("goto"); _kernel_idle(page); P("idle")
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    panel = page.locator(".stsedu-pg")
    expect(panel).to_be_visible(timeout=TIMEOUT)
    decisions = panel.locator(".stsedu-decisions-view")
    pods = panel.locator(".stsedu-pods-view")
    expect(pods).to_contain_text("web-2", timeout=TIMEOUT)
    expect(panel).to_contain_text("no sync yet"); P("panel")

    slider = panel.locator(".widget-slider").filter(has_text="replicas").locator("[role=slider]")
    slider.focus()
    slider.press("ArrowRight")
    expect(panel.locator(".stsedu-info-area")).to_contain_text("Scaled web to 4", timeout=TIMEOUT)

    panel.get_by_role("button", name="Sync once").click()
    expect(decisions).to_contain_text("web-3", timeout=TIMEOUT)
    expect(decisions).to_contain_text("processReplica: create missing pod")
    expect(decisions).not_to_contain_text("web-4")
    expect(pods).to_contain_text("web-3"); P("synced")
    shot = tmp_path / "screenshot-sync.png"
    panel.screenshot(path=str(shot))
    _keep(shot, "screenshot-sync.png")

    # the chart (first tab) drew its marks from the offline bundle
    expect(panel.locator("canvas.marks, svg.marks").first).to_be_visible(timeout=TIMEOUT)

    P("chart")
    # Run until stable goes through the kernel's event loop (run_async), then reports
    panel.get_by_role("button", name="Run until stable").click()
    expect(panel.locator(".stsedu-info-area")).to_contain_text("Stable after", timeout=TIMEOUT)
    expect(pods).to_contain_text("web-3")

    page.wait_for_timeout(500)  # let the chart settle before the picture
    shot = tmp_path / "screenshot-playground.png"
    panel.screenshot(path=str(shot))
    _keep(shot, "screenshot-playground.png")
    assert shot.stat().st_size > 10_000
