import os
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

# The tests read the kit's English texts: a developer's Chinese locale must not change them (a
# test that wants Chinese calls stsedu.set_language; tests/i18n/ tests the choosing itself).
os.environ["STSEDU_LANG"] = "en"

import stsedu  # noqa: E402
from helpers import LIVE_COMPARISONS, LIVE_TEST, WEB_YAML, live_fuzz_seed, live_summary, web  # noqa: E402


# The contributor's loop (`pytest -m quick`, about a minute): the controller, the simulated cluster,
# the API objects and the architecture. The compat environment of .ci/run (the newest pandas, the
# oldest Altair) runs `-m compat`: the tests of what draws with pandas, Altair and ipywidgets.
# Neither takes a test marked slow, upstream, live or browser.
QUICK = ("controller", "sim", "api", "meta/test_architecture.py")
COMPAT = ("views", "widgets", "test_frames.py", "test_trace_io.py")
HEAVY = ("slow", "upstream", "live", "browser")


def _under(rel: Path, places) -> bool:
    return any(rel.parts[:len(Path(p).parts)] == Path(p).parts for p in places)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("live"):  # its reports say so, also to xdist's controller (live_summary)
            item.user_properties.append((LIVE_TEST, True))
        path = Path(str(item.path))
        if not path.is_relative_to(TESTS) or any(item.get_closest_marker(m) for m in HEAVY):
            continue
        rel = path.relative_to(TESTS)
        if _under(rel, QUICK):
            item.add_marker(pytest.mark.quick)
        if _under(rel, COMPAT):
            item.add_marker(pytest.mark.compat)


def pytest_report_header(config):
    return [f"live validation fuzz: seed {live_fuzz_seed()} (STSEDU_LIVE_FUZZ_SEED replays it; "
            "STSEDU_LIVE_FUZZ=all sends every case)"]


@pytest.fixture
def compares(record_property):
    """Count this live test among the controller-behaviour comparisons of the summary line (apart from the
    validation sample: :func:`pytest_terminal_summary`); ``compares(n)`` when the test compares n runs."""
    record_property(LIVE_COMPARISONS, 1)
    return lambda n: record_property(LIVE_COMPARISONS, n)


def pytest_terminal_summary(terminalreporter):
    line = live_summary(r for reports in terminalreporter.stats.values() for r in reports)
    if line:
        terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """A test that switched the kit to Chinese leaves English behind it."""
    yield
    stsedu.set_language(None)


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
