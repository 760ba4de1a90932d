"""kubectl delete waits for the object to be gone (``--wait=true``, its default); ``wait=False`` is
``--wait=false`` (kubectl's delete command: ``DeleteOptions.WaitForDeletion``)."""

from __future__ import annotations

import pytest

import stsedu
from stsedu.lessons.examples import web as web_yaml

from helpers import WEB_YAML, web


def _up(manifest=None) -> stsedu.Cluster:
    c = stsedu.Cluster()
    c.apply(manifest if manifest is not None else WEB_YAML)
    c.run()
    return c


def test_the_tutorials_orphan_delete_then_apply_readopts_the_pods_without_a_run_between():
    """StatefulSet Basics: kubectl delete statefulset web --cascade=orphan; kubectl apply -f web.yaml."""
    c = _up()
    uids = {p.name: p.uid for p in c.pods("web")}
    c.delete("web", cascade="orphan")
    assert c.store.get("StatefulSet", "default", "web") is None  # gone when kubectl returns
    assert all(p.owner is None for p in c.pods())  # the pods stay, ownerless
    c.apply(WEB_YAML)
    c.run()
    assert c.statefulset("web").deletion_timestamp is None
    assert {p.name: p.uid for p in c.pods("web")} == uids  # the same pods, not new ones
    assert all(p.owner == "web" for p in c.pods())
    q = c.trace.queue()
    assert not q["cause"].str.contains("not found", na=False).any()


def test_the_wait_advances_the_clock_through_the_collector_and_the_trace_says_so():
    c = _up()
    t = c.now
    c.delete("web", cascade="orphan")
    assert c.now == t + c.gc.delay > t
    events = c.trace.events()
    assert events["message"].iloc[-1] == 'user: wait: statefulset.apps "web" is gone after 1s'


def test_wait_false_returns_at_once_with_the_set_still_terminating():
    c = _up()
    t = c.now
    c.delete("web", cascade="orphan", wait=False)
    assert c.now == t
    assert c.statefulset("web").deletion_timestamp is not None


def test_foreground_waits_for_the_pods_to_go_first():
    c = _up()
    c.delete("web", cascade="foreground")
    assert c.store.get("StatefulSet", "default", "web") is None
    assert c.pods() == []


def test_background_delete_is_gone_at_once_and_the_pods_go_after():
    c = _up()
    t = c.now
    c.delete("web")
    assert c.now == t and c.store.get("StatefulSet", "default", "web") is None


def test_a_wait_that_cannot_end_says_so_and_stops():
    """Manual kubelet: foreground deletion waits on pods nobody finishes; the wait stops and says why."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    c.settle("web")
    c.delete("web", cascade="foreground")
    assert c.statefulset("web").deletion_timestamp is not None
    msg = c.trace.events()["message"].iloc[-1]
    assert msg.startswith('user: wait: statefulset.apps "web" is still there') and "nothing more is scheduled" in msg


def test_delete_pod_waits_for_the_pod_to_be_gone_when_asked():
    c = _up(web_yaml(2))
    old = c.pod("web-1").uid
    t = c.now
    c.delete_pod("web-1", wait=True)
    assert c.now > t
    assert c.store.get("Pod", "default", "web-1") is None or c.pod("web-1").uid != old


@pytest.mark.parametrize("call", ['delete("web", wait="yes")', 'delete_pod("web-0", wait=1)'])
def test_wait_must_be_a_bool(call):
    c = _up()
    before = c.dump()
    with pytest.raises(stsedu.ValidationError, match="wait"):
        eval("c." + call)
    assert c.dump() == before
