"""Scaling behaviour of one sync at a time, against upstream's rules.

Each test names the upstream rule (function in pkg/controller/statefulset)
it checks; expected values follow the worked examples of docs/behaviour.md section 6.
"""

import pytest

import stsedu
from helpers import acts, gone, ready, st, web
from rollout_helpers import bring_up

POLICIES = ["OrderedReady", "Parallel"]


def up(c, n=3, policy="OrderedReady", **kw):
    """Apply web with n replicas and bring every pod to Ready by hand."""
    r = bring_up(c, n, policy, **kw)
    assert st(r) == (n, n, n, n, n)
    return r


def test_ordered_create_0_to_3_exact_decisions_and_status(manual_cluster):
    """S1 / processReplica: one pod per sync, each waits for its predecessor to be Running and Ready;
    a pod created in a sync is not counted in that sync's status (computeReplicaStatus over the snapshot)."""
    c = manual_cluster
    c.apply(web(3))
    r = c.sync("web")
    assert acts(r) == [("create", "web-0", "missing")]
    assert st(r) == (0, 0, 0, 0, 0)
    rev = c.revisions("web")[0].name
    assert (r.status.current_revision, r.status.update_revision) == (rev, rev)
    assert r.status.observed_generation == 1 and r.status.collision_count == 0
    r = c.sync("web")
    assert acts(r) == [("wait", "web-0", "not-running-ready")] and st(r) == (1, 0, 0, 1, 1)
    c.kubelet.start("web-0")
    r = c.sync("web")
    assert acts(r) == [("wait", "web-0", "not-running-ready")] and st(r) == (1, 0, 0, 1, 1)
    c.kubelet.set_ready("web-0")
    r = c.sync("web")
    assert acts(r) == [("create", "web-1", "missing")] and st(r) == (1, 1, 1, 1, 1)
    r = c.sync("web")
    assert acts(r) == [("wait", "web-1", "not-running-ready")] and st(r) == (2, 1, 1, 2, 2)
    ready(c, "web-1")
    r = c.sync("web")
    assert acts(r) == [("create", "web-2", "missing")] and st(r) == (2, 2, 2, 2, 2)
    r = c.sync("web")
    assert acts(r) == [("wait", "web-2", "not-running-ready")] and st(r) == (3, 2, 2, 3, 3)
    ready(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [] and st(r) == (3, 3, 3, 3, 3)
    assert [p.name for p in c.pods("web")] == ["web-0", "web-1", "web-2"]
    assert [p.ordinal for p in c.pods("web")] == [0, 1, 2]


def test_parallel_create_0_to_3_in_one_sync(manual_cluster):
    """runForAll with slowStartBatch: Parallel creates every missing pod in one sync and never waits."""
    c = manual_cluster
    c.apply(web(3, "Parallel"))
    r = c.sync("web")
    assert acts(r) == [("create", "web-0", "missing"), ("create", "web-1", "missing"),
                       ("create", "web-2", "missing")]
    assert st(r) == (0, 0, 0, 0, 0)
    r = c.sync("web")
    assert acts(r) == [] and st(r) == (3, 0, 0, 3, 3)
    ready(c, "web-2")  # order does not matter in Parallel
    r = c.sync("web")
    assert acts(r) == [] and st(r) == (3, 1, 1, 3, 3)


@pytest.mark.parametrize("policy", POLICIES)
def test_scale_up_3_to_5(manual_cluster, policy):
    """processReplica: OrderedReady adds web-3 then web-4 after web-3 is Ready; Parallel adds both at once."""
    c = manual_cluster
    up(c, 3, policy)
    c.scale("web", 5)
    r = c.sync("web")
    assert r.status.observed_generation == 2
    if policy == "OrderedReady":
        assert acts(r) == [("create", "web-3", "missing")]
        assert acts(c.sync("web")) == [("wait", "web-3", "not-running-ready")]
        ready(c, "web-3")
        assert acts(c.sync("web")) == [("create", "web-4", "missing")]
    else:
        assert acts(r) == [("create", "web-3", "missing"), ("create", "web-4", "missing")]
    ready(c, "web-3", "web-4") if policy == "Parallel" else ready(c, "web-4")
    r = c.sync("web")
    assert st(r) == (5, 5, 5, 5, 5)
    assert [p.name for p in c.pods("web")] == [f"web-{i}" for i in range(5)]


def test_ordered_scale_down_5_to_2_in_decreasing_order(manual_cluster):
    """processCondemned: one condemned pod per sync, highest ordinal first, each waits until gone (S3)."""
    c = manual_cluster
    up(c, 5)
    c.scale("web", 2)
    expected = []
    seen = []
    for victim, before in (("web-4", 5), ("web-3", 4), ("web-2", 3)):
        r = c.sync("web")
        assert acts(r) == [("delete", victim, "scale-down")]
        assert st(r) == (before, before, before, before, before)
        r = c.sync("web")
        assert acts(r) == [("wait", victim, "terminating")]
        # terminating pods count in replicas and ready, not in current/updated
        assert st(r) == (before, before, before, before - 1, before - 1)
        gone(c, victim)
        seen.append(victim)
        expected.append(victim)
    r = c.sync("web")
    assert acts(r) == [] and st(r) == (2, 2, 2, 2, 2)
    assert seen == ["web-4", "web-3", "web-2"]


def test_parallel_scale_down_deletes_all_condemned_at_once(manual_cluster):
    """processCondemned in burst mode: every non-terminating condemned pod is deleted in one sync."""
    c = manual_cluster
    up(c, 5, "Parallel")
    c.scale("web", 2)
    r = c.sync("web")
    assert acts(r) == [("delete", "web-4", "scale-down"), ("delete", "web-3", "scale-down"),
                       ("delete", "web-2", "scale-down")]
    r = c.sync("web")
    assert acts(r) == []  # burst mode skips terminating condemned pods
    assert st(r) == (5, 5, 5, 2, 2)
    gone(c, "web-2", "web-3", "web-4")
    assert st(c.sync("web")) == (2, 2, 2, 2, 2)


def test_scale_down_blocked_by_unhealthy_lower_ordinal(manual_cluster):
    """Concept page: if web-0 fails after web-2 is gone, web-1 is not terminated until web-0 is
    Running and Ready again (processReplica blocks before processCondemned)."""
    c = manual_cluster
    up(c, 3)
    c.scale("web", 1)
    assert acts(c.sync("web")) == [("delete", "web-2", "scale-down")]
    gone(c, "web-2")
    c.kubelet.set_unready("web-1")
    c.kubelet.set_unready("web-0")
    for _ in range(3):
        r = c.sync("web")
        assert acts(r) == [("wait", "web-0", "not-running-ready")]
    assert not c.pod("web-1").terminating
    c.kubelet.set_ready("web-0")
    # web-1 is not Ready but it is the first unhealthy pod, so it may go
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "scale-down")]


@pytest.mark.parametrize("profile", ["current", "v1.16"])
def test_scale_down_waits_for_first_unhealthy_condemned_pod(profile):
    """processCondemned (v1.16: updateStatefulSet's scale-down loop): a condemned pod that is not
    Running and Ready blocks scale down unless it is firstUnavailablePod (v1.16: firstUnhealthyPod),
    the lowest unhealthy ordinal over the replicas and the condemned pods."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    bring_up(c, 4)  # v1.16 has no availableReplicas
    c.kubelet.set_unready("web-2")
    c.kubelet.set_unready("web-3")
    c.scale("web", 1)
    r = c.sync("web")
    # web-3 is unhealthy and is not the first unhealthy pod (web-2 is): wait
    assert acts(r) == [("wait", "web-3", "scale-down-blocked")]
    assert "web-2" in r.waits[0].message
    c.kubelet.set_ready("web-3")
    assert acts(c.sync("web")) == [("delete", "web-3", "scale-down")]
    gone(c, "web-3")
    assert acts(c.sync("web")) == [("delete", "web-2", "scale-down")]  # web-2 is the first unhealthy


@pytest.mark.parametrize("policy", POLICIES)
def test_failed_pod_is_deleted_then_recreated_in_a_later_sync(manual_cluster, policy):
    """processReplica step 1 (S8, newest): a Failed pod is deleted; the replacement comes once it is gone."""
    c = manual_cluster
    up(c, 3, policy)
    c.kubelet.fail("web-1")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "failed")]
    assert st(r) == (3, 2, 2, 3, 3)
    r = c.sync("web")
    assert acts(r) == [("wait", "web-1", "terminating")]
    assert st(r) == (3, 2, 2, 2, 2)
    gone(c, "web-1")
    r = c.sync("web")
    assert acts(r) == [("create", "web-1", "missing")]
    assert st(r) == (2, 2, 2, 2, 2)
    assert not c.pod("web-2").terminating  # untouched throughout
    r = c.sync("web")
    assert acts(r) == ([("wait", "web-1", "not-running-ready")] if policy == "OrderedReady" else [])
    assert st(r) == (3, 2, 2, 3, 3)
    ready(c, "web-1")
    assert st(c.sync("web")) == (3, 3, 3, 3, 3)


def test_succeeded_pod_is_replaced_like_a_failed_one(manual_cluster):
    """processReplica (PR #121389, 1.29): phase Succeeded is treated like Failed."""
    c = manual_cluster
    up(c, 2)
    c.kubelet.succeed("web-0")
    assert acts(c.sync("web")) == [("delete", "web-0", "failed")]


def test_terminating_pod_blocks_progress(manual_cluster):
    """processReplica: in OrderedReady a terminating pod stops the sync; nothing above it is created."""
    c = manual_cluster
    c.apply(web(3))
    c.sync("web")
    ready(c, "web-0")
    c.sync("web")
    ready(c, "web-1")
    c.delete_pod("web-0")
    r = c.sync("web")
    assert acts(r) == [("wait", "web-0", "terminating")]
    assert "web-2" not in [p.name for p in c.pods("web")]
    gone(c, "web-0")
    assert acts(c.sync("web")) == [("create", "web-0", "missing")]
    assert acts(c.sync("web")) == [("wait", "web-0", "not-running-ready")]


def test_parallel_does_not_wait_on_terminating_pod(manual_cluster):
    """processReplica: the terminating check only stops monotonic sets."""
    c = manual_cluster
    c.apply(web(3, "Parallel"))
    c.sync("web")
    c.delete_pod("web-0")
    c.scale("web", 4)
    r = c.sync("web")
    assert acts(r) == [("create", "web-3", "missing")]


def test_min_ready_seconds_delays_the_next_pod(manual_cluster):
    """isRunningAndAvailable (IsPodAvailable): Ready for at least minReadySeconds
    (lastTransitionTime + minReadySeconds <= now) before the next pod."""
    c = manual_cluster
    c.apply(web(2, min_ready=10))
    c.sync("web")
    ready(c, "web-0")  # ready since t=0
    r = c.sync("web")
    assert acts(r) == [("wait", "web-0", "not-available")]
    assert st(r) == (1, 1, 0, 1, 1)
    c.advance(9.5)  # not yet minReadySeconds: not available
    assert acts(c.sync("web")) == [("wait", "web-0", "not-available")]
    c.advance(0.5)  # exactly minReadySeconds: available
    r = c.sync("web")
    assert acts(r) == [("create", "web-1", "missing")]
    assert st(r) == (1, 1, 1, 1, 1)
    assert c.pod("web-0").available


def test_start_ordinal(manual_cluster):
    """getStartOrdinal (CreatesPodsWithStartOrdinal): start 2 with 3 replicas gives web-2..web-4."""
    c = manual_cluster
    c.apply(web(3, start=2))
    for _ in range(10):
        c.sync("web")
        for p in c.pods("web"):
            if not p.ready:
                ready(c, p.name)
                break
    assert [p.name for p in c.pods("web")] == ["web-2", "web-3", "web-4"]
    assert [p.labels["apps.kubernetes.io/pod-index"] for p in c.pods("web")] == ["2", "3", "4"]
    c.scale("web", 2)
    assert acts(c.sync("web")) == [("delete", "web-4", "scale-down")]


def test_pod_below_start_ordinal_is_condemned(manual_cluster):
    """podInOrdinalRange: raising ordinals.start condemns the pods below it."""
    c = manual_cluster
    up(c, 2)
    c.patch("web", {"spec": {"ordinals": {"start": 1}}})
    r = c.sync("web")
    assert acts(r) == [("create", "web-2", "missing")]
    ready(c, "web-2")
    assert acts(c.sync("web")) == [("delete", "web-0", "scale-down")]


def test_run_reaches_stable_docs_manifest_in_auto_mode(nginx_manifest):
    """The concept page's web example comes up 3/3 by itself, one pod at a time."""
    c = stsedu.Cluster(seed=1)
    c.apply(nginx_manifest)
    results = c.run("web")
    sts = c.statefulset("web")
    assert st(sts) == (3, 3, 3, 3, 3)
    assert [p.name for p in c.pods("web")] == ["web-0", "web-1", "web-2"]
    creates = [(r.sync, d.pod) for r in results for d in r.decisions if d.action == "create"]
    assert [p for _, p in creates] == ["web-0", "web-1", "web-2"]
    assert results[-1].actions == []
    # minReadySeconds 10: each create happens exactly 10 s after the previous pod turned Ready
    # (the requeue at lastTransitionTime + minReadySeconds, when the pod counts as available)
    pods = c.trace.pods()
    ready_at = pods[pods.ready & (pods.event == "updated")].groupby("pod").time.min()
    created_at = pods[pods.event == "created"].set_index("pod").time
    assert created_at["web-1"] == ready_at["web-0"] + 10
    assert created_at["web-2"] == ready_at["web-1"] + 10
    assert c.rollout_status("web") == "partitioned roll out complete: 3 new pods have been updated..."


def test_run_stops_when_nothing_can_change():
    """run never loops forever: a pod that never becomes Ready leaves the set waiting, and run returns."""
    c = stsedu.Cluster(seed=0)
    c.kubelet.never_ready(pod="web-1")
    c.apply(web(3))
    results = c.run("web")
    assert results[-1].actions == [("wait", "web-1", "not-running-ready")]
    assert len(results) < 20


def test_same_seed_same_trace(nginx_manifest):
    """Determinism: same seed and same calls give identical trace DataFrames (jitter included)."""
    frames = []
    for _ in range(2):
        c = stsedu.Cluster(seed=7, stages={"start": 1, "ready": 2, "terminate": 1, "jitter": 3})
        c.apply(nginx_manifest)
        c.run("web")
        c.scale("web", 1)
        c.run("web")
        frames.append((c.trace.decisions(), c.trace.pods(), c.trace.status(), c.trace.events()))
    for a, b in zip(*frames):
        assert a.equals(b)
    other = stsedu.Cluster(seed=8, stages={"jitter": 3})
    other.apply(nginx_manifest)
    other.run("web")
    assert not other.trace.pods().time.equals(frames[0][1].time.iloc[: len(other.trace.pods())])


def test_settle_plays_the_kubelet_until_stable(manual_cluster):
    """Cluster.settle moves one pod a step per sync (upstream's test harness) until nothing changes."""
    c = manual_cluster
    c.apply(web(3))
    results = c.settle("web")
    assert st(c.statefulset("web")) == (3, 3, 3, 3, 3)
    creates = [d.pod for r in results for d in r.decisions if d.action == "create"]
    assert creates == ["web-0", "web-1", "web-2"]
    c.kubelet.never_ready(pod="web-1")
    c.kubelet.set_unready("web-1")
    results = c.settle("web")
    assert results[-1].actions == [("wait", "web-1", "not-running-ready")]


def test_run_backs_off_after_errors_like_the_workqueue():
    """A failing sync is requeued with exponential backoff (DefaultControllerRateLimiter: 5 ms, doubling)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.inject_error("create", "Pod", count=3)
    results = c.run("web", max_syncs=10)
    assert [r.error is not None for r in results[:4]] == [True, True, True, False]
    assert [r.time for r in results[:4]] == pytest.approx([0, 0.005, 0.015, 0.035])
    assert ("create", "web-0", "missing") in results[3].actions


def test_run_stops_when_the_set_is_deleted_meanwhile():
    """run() ends cleanly when a foreground deletion removes the set during the run."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(2))
    c.run("web")
    c.delete("web", cascade="foreground", wait=False)
    results = c.run("web", max_syncs=200)
    assert len(results) < 200
    with pytest.raises(KeyError):
        c.statefulset("web")
    assert c.pods() == []
