"""The project files agree with each other: pyproject.toml, environment.yml, README.md, .ci/run."""

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

ROOT = Path(__file__).resolve().parent.parent
VENV_PREFIX = "python3 -m venv .venv"


def normalise(name: str) -> str:
    """Package name compared across pip and conda: lowercase, '_' and '.' become '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def conda_specs() -> dict[str, str]:
    """environment.yml's conda dependencies as {normalised name: version spec}."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert env["channels"] == ["conda-forge"]
    specs = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", dep.strip())
            specs[normalise(m.group(1))] = m.group(2).strip()
    return specs


@pytest.fixture(scope="module")
def readme_commands() -> list[str]:
    """Lines inside README fenced code blocks that start with the venv command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip().startswith(VENV_PREFIX)]


def test_every_runtime_dependency_is_in_environment_yml(pyproject, conda_specs):
    """Each [project].dependencies entry appears in environment.yml with the same bounds."""
    for dep in pyproject["project"]["dependencies"]:
        req = Requirement(dep)
        name = normalise(req.name)
        assert name in conda_specs, f"{req.name} is missing from environment.yml"
        conda = conda_specs[name].replace(" ", "")
        assert SpecifierSet(conda) == req.specifier, (
            f"{req.name}: pyproject says {str(req.specifier)!r}, environment.yml says {conda!r}")


def test_python_versions_agree(pyproject, conda_specs):
    """environment.yml pins the lowest Python that requires-python allows."""
    requires = SpecifierSet(pyproject["project"]["requires-python"])
    pinned = conda_specs["python"]
    assert re.fullmatch(r"=\d+\.\d+", pinned), f"pin python as =X.Y, not {pinned!r}"
    assert Version(pinned[1:]) in requires
    lowest = min(Version(s.version) for s in requires if s.operator == ">=")
    assert Version(pinned[1:]) == lowest


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
    assert "pytest" in test_cmd and "'.[test]'" in test_cmd


def test_ci_runs_the_readme_test_command_verbatim(readme_commands):
    """.ci/run runs exactly the README's test command, and no other pytest."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_cmd = readme_commands[1]
    lines = [line.strip() for line in ci.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert test_cmd in lines
    assert [line for line in lines if "pytest" in line] == [test_cmd]
    assert lines[-1] == test_cmd
    assert "set -euo pipefail" in lines
    assert not any("playwright install" in line for line in lines)


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
