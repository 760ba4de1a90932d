import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

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
