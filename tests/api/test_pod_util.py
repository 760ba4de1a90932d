"""``podutil.IsPodAvailable`` (upstream ``pkg/api/v1/pod/util.go``), which the simulated cluster's
availability and the controller's ``isRunningAndAvailable`` both ask."""

from __future__ import annotations

from dataclasses import replace

import pytest

import stsedu
from stsedu.api.pod_util import is_pod_available
from stsedu.controller.stateful_set_utils import is_running_and_available
from helpers import web


@pytest.fixture
def ready_pod():
    """web-0, Running and Ready since t=10 (the kubelet's own writes)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    return replace(c.pod("web-0"), ready_since=10.0)


@pytest.mark.parametrize("min_ready, now, available", [
    (0, 10.0, True),     # no minReadySeconds: Ready is available
    (5, 14.9, False),    # Ready for 4.9 s of 5
    (5, 15.0, True),     # the boundary counts: lastTransitionTime + minReadySeconds <= now
    (5, 30.0, True),
])
def test_is_pod_available_counts_from_the_ready_transition(ready_pod, min_ready, now, available):
    assert is_pod_available(ready_pod, min_ready, now) is available
    # the controller's isRunningAndAvailable is one call of IsPodAvailable
    assert is_running_and_available(ready_pod, min_ready, now) is available


def test_an_unready_pod_is_never_available(ready_pod):
    unready = replace(ready_pod, ready=False)
    assert not is_pod_available(unready, 0, 100.0) and not is_running_and_available(unready, 0, 100.0)


def test_the_cluster_reports_availability_by_it():
    """The simulated cluster's reads set ``available`` by IsPodAvailable and the set's minReadySeconds."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, min_ready=5))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    assert not c.pod("web-0").available
    c.advance(5)
    assert c.pod("web-0").available
