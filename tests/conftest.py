import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
# The tests mirror the package's rooms (tests/api, tests/controller, tests/views, ...; tests/meta for
# the project itself), and tests/controller mirrors upstream's files (tests/controller/stateful_set_control/
# holds the tests of stateful_set_control.py's steps, ...).  pytest imports a test module by its file name (rootdir "prepend" mode), so the
# shared helpers here (helpers.py, invariants.py, ...) and a room's test module that another room reuses
# (``from test_manifests import doc_tables``) are importable by name from any room, whichever subset runs.
sys.path.insert(0, str(TESTS))
for _room in sorted(p for p in TESTS.rglob("*") if p.is_dir() and any(p.glob("test_*.py"))
                    and "e2e" not in p.relative_to(TESTS).parts):
    sys.path.append(str(_room))

import stsedu  # noqa: E402
from helpers import WEB_YAML, web  # noqa: E402


@pytest.fixture
def manual_cluster():
    """A cluster whose kubelet only moves pods when told to."""
    return stsedu.Cluster(kubelet="manual")


@pytest.fixture
def cluster():
    """A cluster whose kubelet moves pods as time passes (seed 0)."""
    return stsedu.Cluster(seed=0)


@pytest.fixture
def nginx_manifest():
    """The concept page's headless Service + StatefulSet web, as YAML text."""
    return WEB_YAML


@pytest.fixture
def web_manifest():
    return web
