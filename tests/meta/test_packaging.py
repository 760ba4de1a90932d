"""The wheel a JupyterLite site (or pip) installs: what it contains and what it asks for.

JupyterLite itself cannot run here (Pyodide's packages come from its distribution site), so
this checks what can be checked: the wheel builds, ships the chart widget's JavaScript, and
its metadata asks Pyodide for nothing it cannot install.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = {"sys_platform": "emscripten", "platform_system": "Emscripten", "platform_machine": "wasm32",
           "python_version": "3.14", "python_full_version": "3.14.0", "implementation_name": "cpython"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a clean copy of the sources (a stale build/ folder cannot leak into it)."""
    import shutil
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "stsedu", src / "stsedu", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    (whl,) = out.glob("stsedu-*.whl")
    return whl


@pytest.mark.slow
def test_wheel_is_pure_python_and_ships_the_vega_bundle(wheel):
    assert wheel.name.endswith("-py3-none-any.whl")  # micropip installs it in Pyodide
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in ("stsedu/data/vega/chart_widget.js", "stsedu/data/vega/VERSIONS.json",
              "stsedu/data/vega/LICENSES.txt", "stsedu/data/web.yaml", "stsedu/views/charts/timeline.py"):
        assert f in names, f
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "stsedu").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert shipped <= names, f"not in the wheel: {sorted(shipped - names)[:5]}"  # package data globs cover all


@pytest.mark.slow
def test_wheel_metadata_asks_pyodide_for_nothing_native(wheel):
    """Requires-Dist: in Pyodide (sys_platform emscripten), no vl-convert even with the export extra,
    no jupyterlab unless the lab extra is asked for."""
    z = zipfile.ZipFile(wheel)
    (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
    msg = Parser().parsestr(z.read(meta).decode())
    reqs = [Requirement(r) for r in msg.get_all("Requires-Dist")]

    def needed(extra: str) -> set[str]:
        return {r.name.lower() for r in reqs if r.marker is None or r.marker.evaluate({**PYODIDE, "extra": extra})}

    # jsonpatch and jsonpath-ng (kubectl's --type json and -o jsonpath) are pure-Python wheels
    assert needed("") == {"ipywidgets", "pandas", "altair", "anywidget", "pyyaml", "jsonpatch", "jsonpath-ng"}
    assert "vl-convert-python" not in needed("export")  # the marker keeps it out of Pyodide
    assert "vl-convert-python" in {r.name.lower() for r in reqs if r.marker and r.marker.evaluate(
        {"sys_platform": "linux", "extra": "export"})}
    assert "jupyterlab" in needed("lab") and "jupyterlab" not in needed("")
    assert set(msg.get_all("Provides-Extra")) >= {"lab", "export", "test"}
