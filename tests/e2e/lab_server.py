"""A throwaway JupyterLab server and Debian's Chromium, for the browser tests and the redraw benchmark.

:func:`jupyter_lab` starts JupyterLab on a free localhost port with no token, from a temporary
root_dir, with its own settings, runtime and workspaces dirs, and always stops it (its whole process
group: the server and the kernels it started).  Kernels start without vl_convert
(kernel_without_vl_convert/sitecustomize.py): every chart draws from the kit's own Vega bundle,
as in JupyterLite.  :func:`chromium` is Chromium driven by Playwright.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent
REPO = HERE.parents[1]
CHROMIUM = "/usr/bin/chromium"

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f}s:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
    else:
        try:  # the server is gone; its kernels may not be
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextlib.contextmanager
def jupyter_lab(tmp: Path):
    """JupyterLab (headless, token-less, --allow-root) serving ``tmp/notebooks``; yields (URL, root_dir).

    With the ``notebook`` package installed the same server also serves Notebook 7
    (``/notebooks/<path>``)."""
    root = tmp / "notebooks"
    root.mkdir(exist_ok=True)
    settings = tmp / "settings"
    notify = settings / "@jupyterlab" / "apputils-extension"
    notify.mkdir(parents=True, exist_ok=True)
    (notify / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = _free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE / "kernel_without_vl_convert"), str(REPO),
                                                    env.get("PYTHONPATH", "")) if p)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTER_RUNTIME_DIR"] = str(tmp / "runtime")
    log = tmp / "jupyter.log"
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True", "--LabApp.expose_app_in_browser=True",
           "--JupyterNotebookApp.expose_app_in_browser=True",
           f"--ServerApp.root_dir={root}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
           "--allow-root"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp,
                                start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for_server(url, proc, log)
        yield url, root
    finally:
        _stop(proc)


@contextlib.contextmanager
def chromium():
    """Debian's Chromium driven by Playwright (headless); closed on exit.

    Plain ``sync_playwright()`` rather than pytest-playwright's session-wide fixtures: Playwright's
    sync API keeps an asyncio loop running in the main thread while it is open, which would make
    later tests in the same pytest run see "a running event loop"."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        try:
            yield b
        finally:
            b.close()
