"""Fixtures for browser tests: a throwaway JupyterLab server and Debian's Chromium.

Both come from lab_server.py (which benchmarks/run.py uses too).  The server runs on a
free localhost port with no token, from a temporary root_dir holding copies of the
fixture notebooks, with its own settings and workspaces dirs; it is always stopped (its
whole process group: the server and the kernels it started) when the tests of a module end.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # lab_server, shared with benchmarks/run.py
from lab_server import CHROMIUM, REPO, chromium, jupyter_lab  # noqa: E402,F401

# The .ipynb files here are fixtures opened by the browser tests, not nbval tests.
collect_ignore_glob = ["*.ipynb"]


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory):
    """Start JupyterLab (lab_server.jupyter_lab) with copies of the fixture notebooks; yield (URL, root_dir)."""
    tmp = tmp_path_factory.mktemp("lab")
    (tmp / "notebooks").mkdir()
    for nb in HERE.glob("*.ipynb"):
        shutil.copy(nb, tmp / "notebooks" / nb.name)
    with jupyter_lab(tmp) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (lab_server.chromium), closed when the module's tests end."""
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    try:
        yield context.new_page()
    finally:
        context.close()
