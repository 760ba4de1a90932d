"""Simulated API errors (``cluster.inject_error``): the sync stops where upstream's stops, and retries.

Each test names the upstream test it mirrors (``stateful_set_control_test.go``)
or the upstream function whose error handling it checks.  Upstream injects
errors with ``SetCreateStatefulPodError(err, after)``: the request counter is
bumped first and the request fails once it reaches *after*, so ``after=2`` means
"the second create fails"; stsedu's ``inject_error(..., after=1)`` says the same
(one request succeeds, then one fails).
"""

from __future__ import annotations

import pytest

import stsedu
from helpers import gone, ready, st, web
from invariants import (SyncChecker, assert_burst_invariants, assert_monotonic_invariants,
                        scale_down_control, scale_up_control)

LOWEST = lambda n: 0  # noqa: E731  (the harness moves the lowest movable pod)


def events(c, reason):
    ev = c.trace.events()
    return list(ev[ev.reason == reason].message)


def decision(r, action, pod=None, target=None):
    found = [d for d in r.decisions if d.action == action and (pod is None or d.pod == pod)
             and (target is None or d.target == target)]
    assert len(found) == 1, f"{action} {pod or target}: {r.decisions}"
    return found[0]


def up(c, n, policy="OrderedReady", **kw):
    c.apply(web(n, policy, **kw))
    scale_up_control(c, "web", LOWEST, assert_burst_invariants)
    assert st(c.statefulset("web")) == (n, n, n, n, n)


# ---------------------------------------------------------------- pod creation


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_create_pod_failure_then_scale_up_completes(manual_cluster, policy):
    """CreatePodFailure: the second create fails (after=2 upstream); that sync returns the error, the
    invariants hold after every sync, scaling up still ends at 3 ready and 3 updated replicas, and
    every request is recorded: 3 successful creates and 1 failed one."""
    c = manual_cluster
    c.inject_error("create", "Pod", count=1, after=1)
    c.apply(web(3, policy))
    invariants = assert_monotonic_invariants if policy == "OrderedReady" else assert_burst_invariants
    results = scale_up_control(c, "web", LOWEST, invariants)
    failed = [r for r in results if r.error]
    assert len(failed) == 1 and "InternalError" in failed[0].error
    assert st(c.statefulset("web"))[:2] == (3, 3)
    assert c.statefulset("web").status.updated_replicas == 3
    assert len(events(c, "SuccessfulCreate")) == 3 and len(events(c, "FailedCreate")) == 1
    assert c.pending_errors() == []


def test_ordered_create_failure_stops_the_sync_and_the_next_sync_retries(manual_cluster):
    """processReplica / CreateStatefulPod: a failed claim create ends the sync before the pod create
    (no create is made), the status is still written (newest), and the next sync creates both.
    The sync's error is the one createPersistentVolumeClaims returns ("failed to create PVC %s: %w")."""
    c = manual_cluster
    c.apply(web(2, claims=True))
    c.inject_error("create", "PersistentVolumeClaim")
    r = c.sync("web")
    pvc = decision(r, "create-pvc", "web-0")
    assert pvc.applied is False and pvc.error.startswith("InternalError")
    assert [d.action for d in r.decisions if d.pod == "web-0"] == ["create-pvc"]
    assert c.pods("web") == []
    assert r.error == f"failed to create PVC data-web-0: {pvc.error}"
    assert c.pods("web") == [] and c.pvcs("web") == []
    assert decision(r, "status").applied is True  # written although the sync failed
    assert c.statefulset("web").status.observed_generation == 1
    claim_event, pod_event = events(c, "FailedCreate")  # recordClaimEvent, then recordPodEvent
    assert claim_event.startswith("Create Claim data-web-0 ") and claim_event.endswith(pvc.error)
    assert pod_event.startswith("Create Pod web-0 in StatefulSet web failed error: ")
    r = c.sync("web")
    assert r.error is None
    assert [(d.action, d.target or d.pod, d.applied) for d in r.decisions if d.action.startswith("create")
            and d.action != "create-revision"] == [("create-pvc", "data-web-0", True), ("create", "web-0", True)]
    assert [p.name for p in c.pods("web")] == ["web-0"]


def test_parallel_create_failure_stops_at_the_failing_slow_start_batch(manual_cluster):
    """runForAll + slowStartBatch (batches 1, 2, 4): with 7 missing pods and the second create failing,
    web-0 (batch 1) and both pods of batch 2 are attempted, batch 3 (web-3..web-6) is not."""
    c = manual_cluster
    c.apply(web(7, "Parallel"))
    c.inject_error("create", "Pod", after=1)
    r = c.sync("web")
    outcome = {d.pod: (d.applied, d.error) for d in r.decisions if d.action == "create"}
    assert outcome["web-0"] == (True, None)
    assert outcome["web-1"][0] is False and outcome["web-1"][1].startswith("InternalError")
    assert outcome["web-2"] == (True, None)
    assert set(outcome) == {"web-0", "web-1", "web-2"}  # batch 3 (web-3..web-6) is not started
    assert [p.name for p in c.pods("web")] == ["web-0", "web-2"]
    r = c.sync("web")
    assert r.error is None
    assert [d.pod for d in r.decisions if d.action == "create" and d.applied] == [
        "web-1", "web-3", "web-4", "web-5", "web-6"]


def test_slow_start_batches_stop_growing_at_max_batch_size(manual_cluster, monkeypatch):
    """slowStartBatch doubles its batch up to MaxBatchSize (500): batches 1, 2, ... 256 cover slots
    0-510, the next batch is slots 511-1010.  A create failing at slot 600 lets the rest of that
    batch run and no later batch, so 1,010 of 1,100 pods exist after the sync."""
    monkeypatch.setattr(stsedu.limits, "MAX_PODS_PER_SYNC", 2000)
    c = manual_cluster
    c.apply(web(1100, "Parallel"))
    c.inject_error("create", "Pod", after=600)
    r = c.sync("web")
    creates = [d for d in r.decisions if d.action == "create"]
    failed = [d.pod for d in creates if d.applied is False]
    assert failed == ["web-600"]
    assert creates[-1].pod == "web-1010" and len(creates) == 1011
    assert len(c.pods("web")) == 1010


def test_parallel_failures_in_one_batch_are_all_attempted(manual_cluster):
    """slowStartBatch runs every slot of a batch even when one fails: web-1 and web-2 both fail in batch 2."""
    c = manual_cluster
    c.apply(web(7, "Parallel"))
    c.inject_error("create", "Pod", count=2, after=1)
    r = c.sync("web")
    failed = [d.pod for d in r.decisions if d.action == "create" and d.applied is False]
    assert failed == ["web-1", "web-2"]
    assert len(events(c, "FailedCreate")) == 2
    assert [p.name for p in c.pods("web")] == ["web-0"]


# ------------------------------------------------------------------- status


def test_update_set_status_failure_keeps_the_stored_status_and_recovers(manual_cluster):
    """UpdateSetStatusFailure: the second status write fails; the stored status stays as it was, the
    sync reports the error, and scaling up still ends at 3/3/3."""
    c = manual_cluster
    c.inject_error("update", "StatefulSet", after=1)
    c.apply(web(3))
    before = []

    def remember(cluster, name):
        before.append(cluster.statefulset(name).status)
    results = scale_up_control(c, "web", LOWEST, remember)
    failed = [i for i, r in enumerate(results) if r.error]
    assert len(failed) == 1
    r = results[failed[0]]
    assert decision(r, "status").applied is False
    assert before[failed[0]] == before[failed[0] - 1]  # nothing was written by the failed sync
    assert st(c.statefulset("web")) == (3, 3, 3, 3, 3)


@pytest.mark.parametrize("profile", ["current", "v1.16"])
@pytest.mark.parametrize("sync_err, status_err", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["no error", "sync error", "status error", "sync and status error"])
def test_status_update_table(profile, sync_err, status_err):
    """TestStatefulSetStatusUpdate: newest upstream writes the status once whatever failed, and the sync
    error wins when both fail; v1.16 (before the change) skipped the write after a sync error."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(web(3))
    if sync_err:
        c.inject_error("create", "Pod")
    if status_err:
        c.inject_error("update", "StatefulSet")
    r = c.sync("web")
    writes = [d for d in r.decisions if d.action == "status"]
    if sync_err and profile == "v1.16":
        assert writes == []
    else:
        assert len(writes) == 1 and writes[0].applied is (not status_err)
    if sync_err:
        assert r.error.startswith("InternalError: simulated failure to create Pod")
    elif status_err:
        assert r.error.startswith("InternalError: simulated failure to update StatefulSet")
    else:
        assert r.error is None


# ------------------------------------------------------------------- deletes


def test_new_revision_delete_pod_failure_does_not_count_as_an_update(manual_cluster):
    """NewRevisionDeletePodFailure: a failed rolling-update delete leaves currentReplicas at 3 with a new
    update revision; once deletes work the same sync lowers currentReplicas to 2."""
    c = manual_cluster
    up(c, 3)
    c.set_image("web", "nginx:2")
    c.inject_error("delete", "Pod")
    r = c.sync("web")
    assert r.error is not None and decision(r, "delete", "web-2").applied is False
    sts = c.statefulset("web")
    assert sts.status.current_replicas == 3
    assert sts.status.current_revision != sts.status.update_revision
    assert not c.pod("web-2").terminating
    r = c.sync("web")
    assert r.error is None and decision(r, "delete", "web-2").applied is True
    assert r.status.current_replicas == 2 == c.statefulset("web").status.current_replicas


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_recreates_failed_pod_with_delete_failure(manual_cluster, policy):
    """RecreatesFailedPodWithDeleteFailure: the delete of a Failed pod fails once (1 delete request),
    succeeds on the next sync (2), and the pod is recreated once it is gone, with no further delete."""
    c = manual_cluster
    up(c, 3, policy)
    c.kubelet.fail("web-0")
    c.inject_error("delete", "Pod")
    r = c.sync("web")
    assert r.error is not None
    assert c.pod("web-0").phase == "Failed" and not c.pod("web-0").terminating
    assert (len(events(c, "FailedDelete")), len(events(c, "SuccessfulDelete"))) == (1, 0)
    c.sync("web")
    assert c.pod("web-0").terminating and len(events(c, "SuccessfulDelete")) == 1
    gone(c, "web-0")
    r = c.sync("web")
    assert decision(r, "create", "web-0").applied is True
    assert len(events(c, "SuccessfulDelete")) == 1


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_scale_down_delete_error_then_scale_down_completes(manual_cluster, policy):
    """TestStatefulSetControlScaleDownDeleteError: 3 -> 0 with the second delete failing returns the error
    once; scaling down again ends at 0 replicas with the invariants holding after every sync."""
    c = manual_cluster
    up(c, 3, policy)
    c.scale("web", 0)
    c.inject_error("delete", "Pod", after=1)
    invariants = assert_monotonic_invariants if policy == "OrderedReady" else assert_burst_invariants
    results = scale_down_control(c, "web", invariants)
    assert sum(1 for r in results if r.error) == 1
    assert st(c.statefulset("web"))[:3] == (0, 0, 0) and c.pods("web") == []


# -------------------------------------------------------------- other verbs


def test_update_pod_failure_on_identity_repair(manual_cluster):
    """UpdatePodFailure: when a pod's identity is broken, the repairing update fails once and the sync
    returns the error; the next sync repairs it."""
    c = manual_cluster
    up(c, 3)
    c.patch_pod("web-0", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": None}}})
    c.inject_error("update", "Pod")
    r = c.sync("web")
    upd = decision(r, "update", "web-0")
    assert upd.applied is False and r.error == upd.error
    assert "statefulset.kubernetes.io/pod-name" not in c.pod("web-0").labels
    r = c.sync("web")
    assert decision(r, "update", "web-0").applied is True
    assert c.pod("web-0").labels["statefulset.kubernetes.io/pod-name"] == "web-0"


def test_revision_create_failure_skips_the_rest_and_writes_no_status(manual_cluster):
    """getStatefulSetRevisions: if the new ControllerRevision cannot be created, performUpdate returns
    before any pod is touched and before the status update."""
    c = manual_cluster
    c.apply(web(2, "Parallel"))
    c.inject_error("create", "ControllerRevision")
    r = c.sync("web")
    assert decision(r, "create-revision").applied is False
    assert [d for d in r.decisions if d.action == "create"] == []
    assert not [d for d in r.decisions if d.action == "status"] and r.status is None
    assert c.revisions("web") == [] and c.pods("web") == []
    assert c.statefulset("web").status.observed_generation == 0
    r = c.sync("web")
    assert r.error is None and len(c.revisions("web")) == 1 and len(c.pods("web")) == 2


# ------------------------------------------------------------ retry, requeue


def test_run_retries_failed_syncs_with_rate_limited_requeue():
    """The controller requeues a failed key with the workqueue's exponential backoff (5 ms, 10 ms, ...);
    ``run`` does the same, so three failed creates are retried at t, t+5 ms, t+15 ms, t+35 ms."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(1))
    c.inject_error("create", "Pod", count=3)
    results = c.run("web")
    syncs = c.trace.syncs()
    assert list(syncs.error.notna()[:4]) == [True, True, True, False]
    assert [round(t, 3) for t in syncs.time[:4]] == [0.0, 0.005, 0.015, 0.035]
    assert not results[-1].changed and results[-1].error is None
    assert st(c.statefulset("web")) == (1, 1, 1, 1, 1)


def test_run_waits_out_a_terminating_orphan_that_blocks_a_name():
    """A terminating orphan keeps its name, so creating it fails with AlreadyExists (not adopted:
    ClaimPods skips terminating orphans) until it is gone; with requeue backoff ``run`` lets the
    kubelet finish it and then converges instead of retrying at the same instant forever."""
    c = stsedu.Cluster(seed=0, stages={"terminate": 10})
    c.apply(web(1))
    c.run("web")
    c.delete_pod("web-0", wait=False)  # --wait=false: both return at once
    c.delete("web", cascade="orphan", wait=False)
    c.advance(1.5)  # the garbage collector orphans the pod and removes the set; web-0 still terminates
    assert c.statefulsets() == [] and c.pod("web-0").owner is None and c.pod("web-0").terminating
    c.apply(web(1))
    results = c.run("web")
    assert any(r.error == 'pods "web-0" already exists' for r in results)
    assert not results[-1].changed and results[-1].error is None
    assert st(c.statefulset("web")) == (1, 1, 1, 1, 1)
    assert c.pod("web-0").owner == "web"


def test_injected_errors_touch_only_the_controller(manual_cluster):
    """User calls never hit an injected error; it waits for the controller's request."""
    c = manual_cluster
    up(c, 2)
    c.inject_error("delete", "Pod", count=1, reason="ServiceUnavailable")
    c.delete_pod("web-1")
    assert c.pod("web-1").terminating
    assert c.pending_errors() == [("delete", "Pod", 0, 1, "ServiceUnavailable")]
    gone(c, "web-1")
    c.scale("web", 1)
    r = c.sync("web")
    assert r.error is None  # nothing to delete: web-1 is already gone
    c.scale("web", 0)
    r = c.sync("web")
    assert decision(r, "delete", "web-0").error.startswith("ServiceUnavailable")
    assert c.pending_errors() == []


def test_after_and_count_follow_upstreams_request_tracker(manual_cluster):
    """requestTracker: *after* requests succeed, then *count* fail, then requests succeed again;
    clear_errors forgets what has not fired."""
    c = manual_cluster
    c.apply(web(6, "Parallel"))
    c.inject_error("create", "Pod", count=2, after=3)
    r = c.sync("web")
    outcome = [d.applied for d in r.decisions if d.action == "create"]
    # batches [0] [1 2] [3 4 5]: creates 1-3 succeed, 4 and 5 fail, 6 succeeds (same batch)
    assert outcome == [True, True, True, False, False, True]
    c.inject_error("create", "Pod", count=5)
    c.clear_errors()
    ready(c, "web-0")
    assert c.sync("web").error is None
