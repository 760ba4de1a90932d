"""The project files agree with each other: pyproject.toml, environment.yml, binder/, README.md, .ci/run."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
VENV_PREFIX = "python3 -m venv .venv"


def normalise(name: str) -> str:
    """Package name compared across pip and conda: lowercase, '_' and '.' become '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _conda_specs(path: Path) -> dict[str, str]:
    """A conda environment file's dependencies as {normalised name: version spec}."""
    env = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert env["channels"] == ["conda-forge"]
    specs = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", dep.strip())
            specs[normalise(m.group(1))] = m.group(2).strip()
    return specs


@pytest.fixture(scope="module")
def conda_specs() -> dict[str, str]:
    """environment.yml's conda dependencies as {normalised name: version spec}."""
    return _conda_specs(ROOT / "environment.yml")


def _extra(pyproject, name: str) -> list[Requirement]:
    return [Requirement(r) for r in pyproject["project"]["optional-dependencies"][name]]


@pytest.fixture(scope="module")
def readme_commands() -> list[str]:
    """Lines inside README fenced code blocks that start with the venv command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip().startswith(VENV_PREFIX)]


def test_every_runtime_dependency_is_in_environment_yml(pyproject, conda_specs):
    """Each [project].dependencies entry, and each of the lab extra (JupyterLab and its Chinese language
    pack, #45), appears in environment.yml with the same bounds."""
    for dep in [*pyproject["project"]["dependencies"], *pyproject["project"]["optional-dependencies"]["lab"]]:
        req = Requirement(dep)
        name = normalise(req.name)
        assert name in conda_specs, f"{req.name} is missing from environment.yml"
        conda = conda_specs[name].replace(" ", "")
        assert SpecifierSet(conda) == req.specifier, (
            f"{req.name}: pyproject says {str(req.specifier)!r}, environment.yml says {conda!r}")


def test_the_kernel_needs_nothing_pyodide_cannot_install(pyproject):
    """Issue 17: the runtime dependencies are pure Python or ship with Pyodide (JupyterLite): no
    vl-convert (a native wheel) and no jupyterlab (the front end, not the kernel's business)."""
    names = {normalise(Requirement(d).name) for d in pyproject["project"]["dependencies"]}
    # jsonpatch and jsonpath-ng (%kubectl's patch --type json and -o jsonpath) are pure-Python wheels
    assert names == {"ipywidgets", "pandas", "altair", "anywidget", "pyyaml", "jsonpatch", "jsonpath-ng"}
    export = _extra(pyproject, "export")
    assert [normalise(r.name) for r in export] == ["vl-convert-python"]
    assert Version("1.9") in export[0].specifier and Version("1.8") not in export[0].specifier  # Altair 6.3
    assert not export[0].marker.evaluate({"sys_platform": "emscripten"})
    # JupyterLab and its Simplified Chinese language pack (#45: the whole page reads in Chinese)
    assert [normalise(r.name) for r in _extra(pyproject, "lab")] == ["jupyterlab", "jupyterlab-language-pack-zh-cn"]
    test = {normalise(r.name): r for r in _extra(pyproject, "test")}
    assert test["stsedu"].extras == {"lab", "export"}  # browser tests need JupyterLab, export tests vl-convert


def test_environment_files_pin_vl_convert_for_altair(conda_specs):
    """Both conda files carry vl-convert-python >= 1.9 (what Altair 6.3 accepts)."""
    binder = _conda_specs(ROOT / "binder" / "environment.yml")
    assert SpecifierSet(conda_specs["vl-convert-python"].replace(" ", "")) == SpecifierSet(">=1.9")
    assert Version(binder["vl-convert-python"].lstrip("=")) >= Version("1.9")


def test_binder_environment_caches_and_matches_pyproject(pyproject):
    """binder/environment.yml lists dependencies only (no local path: repo2docker then installs it before
    copying the repository, so the layer is reused), each pinned inside pyproject's bounds; postBuild
    installs the kit without dependencies."""
    env = yaml.safe_load((ROOT / "binder" / "environment.yml").read_text(encoding="utf-8"))
    assert not [d for d in env["dependencies"] if isinstance(d, dict)], "no pip section (local paths bust the cache)"
    binder = _conda_specs(ROOT / "binder" / "environment.yml")
    for dep in [*pyproject["project"]["dependencies"], *pyproject["project"]["optional-dependencies"]["lab"]]:
        req = Requirement(dep)
        pin = binder[normalise(req.name)]
        if pin:
            assert re.fullmatch(r"=\d+(\.\d+)*", pin), f"{req.name}: pin as =X.Y, not {pin!r}"
            assert Version(pin[1:]) in req.specifier or not req.specifier, f"{req.name}={pin[1:]} is outside {req}"
    altair = Version(binder["altair"][1:])
    assert altair in SpecifierSet(">=6,<7")
    assert Version(binder["python"][1:]) in SpecifierSet(pyproject["project"]["requires-python"])
    post = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "pip install --no-deps" in post and os.access(ROOT / "binder" / "postBuild", os.X_OK)


def test_python_versions_agree(pyproject, conda_specs):
    """environment.yml pins the lowest Python that requires-python allows."""
    requires = SpecifierSet(pyproject["project"]["requires-python"])
    pinned = conda_specs["python"]
    assert re.fullmatch(r"=\d+\.\d+", pinned), f"pin python as =X.Y, not {pinned!r}"
    assert Version(pinned[1:]) in requires
    lowest = min(Version(s.version) for s in requires if s.operator == ">=")
    assert Version(pinned[1:]) == lowest


def test_compat_environment_pins_the_oldest_altair(pyproject):
    """The second CI environment's Altair is the lowest that pyproject allows."""
    lowest = min(Version(s.version) for r in pyproject["project"]["dependencies"]
                 if normalise(Requirement(r).name) == "altair" for s in Requirement(r).specifier if s.operator == ">=")
    assert f"'altair=={lowest.major}.{lowest.minor}.*'" in _ci_phases().COMPAT_VENV


def test_environment_yml_installs_the_kit_with_pip():
    """The pip section installs the repository itself (conda runs pip from the file's folder)."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert "pip" in env["dependencies"]
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert pip_sections == [["-e ."]]


def test_readme_shows_exactly_two_commands(readme_commands):
    """One command opens the kit in JupyterLab, the other runs the tests."""
    assert len(readme_commands) == 2, readme_commands
    open_cmd, test_cmd = readme_commands
    assert "jupyter lab notebooks/" in open_cmd and "pytest" not in open_cmd
    assert "'.[lab]'" in open_cmd  # JupyterLab is an extra, not a kernel requirement
    assert "pytest" in test_cmd and "'.[test]'" in test_cmd


def _ci_phases():
    import importlib.util
    spec = importlib.util.spec_from_file_location("ci_phases", ROOT / ".ci" / "phases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_readme_test_command_in_groups_that_cover_it_once(readme_commands):
    """.ci/run (through .ci/phases.py) installs as the README says and runs the README's test
    command split by marker: every test the command collects falls in exactly one group, whatever
    markers it carries, so CI runs what a contributor runs, each test once."""
    import itertools
    ci = _ci_phases()
    assert readme_commands[1] == f"{ci.VENV} && {ci.TEST}"
    # CI installs the README's requirements with uv (the same resolution, from a warm cache in seconds)
    for install in (ci.VENV, ci.COMPAT_VENV):
        assert ci.with_uv(install).endswith("uv pip install --python " + install.split("/bin/pip install ")[0].split()[-1]
                                            + "/bin/python " + install.split("/bin/pip install ")[1])
    markers = ("upstream", "live", "browser", "slow", "quick", "compat")
    for values in itertools.product((False, True), repeat=len(markers)):
        env = dict(zip(markers, values))
        hits = [name for name, expr in ci.GROUPS.items() if eval(expr, {}, env)]  # noqa: S307 (our own text)
        assert len(hits) == 1, (env, hits)
    assert ci.COMPAT_TEST.endswith("-m compat tests") and "'pandas>=3' 'altair==6.0.*'" in ci.COMPAT_VENV
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in run and "python3 -u .ci/phases.py" in run
    assert "playwright install" not in (ROOT / ".ci" / "phases.py").read_text(encoding="utf-8")


def test_ci_run_is_executable():
    """.ci/run can be run directly, not only with bash."""
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_test_command_uses_the_sanitize_file(readme_commands):
    """The nbval sanitize file named in the README exists and masks the known noise."""
    m = re.search(r"--nbval-sanitize-with (\S+)", readme_commands[1])
    cfg = (ROOT / m.group(1)).read_text(encoding="utf-8")
    for needle in ("altair-viz-[0-9a-f]{32}", "0x[0-9a-f]+"):
        assert needle in cfg


def test_pytest_markers_registered(pyproject):
    """The browser and slow markers are declared, so --strict-markers would accept them."""
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    assert {m.split(":")[0] for m in markers} >= {"browser", "slow"}


def _readme_links(text: str) -> list[str]:
    """Every link target in Markdown text: [x](t), ![x](t), [x]: t, <t>, and bare URLs (GitHub links
    those too); code spans and fenced blocks are not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)
    targets += re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", text, flags=re.M)
    targets += re.findall(r"<((?:https?|ftp|mailto):[^>]+)>", text)
    targets += re.findall(r"(?<![(<\w])((?:https?://|www\.)[^\s)>]+)", text)
    targets += re.findall(r"""(?:href|src)=["']([^"']+)["']""", text)
    return targets


def test_readme_links_stay_inside_the_repository():
    """Issue 17: the README stands alone. Every link in it is a path in this repository that exists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = _readme_links(text)
    assert len(links) > 10  # the notebooks table and docs links are found
    for target in links:
        assert not re.match(r"^[a-z][a-z0-9+.-]*:|^//|^www\.", target, flags=re.I), f"outside link: {target}"
        path = target.split("#", 1)[0]
        if path:
            assert (ROOT / path).exists(), f"README links {target}, which is not in the repository"


def test_readme_link_finder_finds_outside_links():
    """The finder above sees each kind of outside link (so the test before it can fail)."""
    sample = ("[a](https://x.org/a) ![b](http://x.org/b.png) <https://x.org/c> see https://x.org/d.\n"
              "[e]: https://x.org/e\n`https://in.code/span` [f](docs/api.md)\n")
    assert set(_readme_links(sample)) == {"https://x.org/a", "http://x.org/b.png", "docs/api.md", "https://x.org/e",
                                          "https://x.org/c", "https://x.org/d."}
