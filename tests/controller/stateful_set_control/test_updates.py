"""Rolling updates, partitions, OnDelete, maxUnavailable and stuck rollouts, sync by sync.

Each test names the upstream rule (pkg/controller/statefulset) it checks.
Expected decisions and status tuples (replicas/ready/available/current/updated)
follow docs/behaviour.md section 6 (the rolling update table and the broken rollout) and
sections 1.4, 1.8a/b, 1.10;
rollout-status lines follow kubectl's ``StatefulSetStatusViewer``.
"""

import pytest

import stsedu
from helpers import acts, gone, ready, st, web
from rollout_helpers import OFF, ON, kinds, move_all, numbers, pod_revisions, ready_set, revs

GATES = [pytest.param(OFF, id="gate-off"), pytest.param(ON, id="gate-on")]

WAIT_READY = "Waiting for 1 pods to be ready..."
OBSERVE = "Waiting for statefulset spec update to be observed..."


def partitioned(updated, wanted):
    return (f"Waiting for partitioned roll out to finish: {updated} out of {wanted} new pods "
            "have been updated...")


def done(updated):
    return f"partitioned roll out complete: {updated} new pods have been updated..."


def drive(c, steps, old, new):
    """Run *steps*: (event before the sync, pod actions, status tuple, (cur, upd) or None, rollout text).

    An event is None, ("gone", pod), ("ready", pod), ("start", pod) or ("delete", pod).
    Revision placeholders "R1"/"R2" in the expected pair stand for *old*/*new*.
    Returns the SyncResults.
    """
    names = {"R1": old, "R2": new}
    results = []
    for n, (event, actions, status, pair, text) in enumerate(steps, 1):
        if event is not None:
            verb, pod = event
            {"gone": lambda p: gone(c, p), "ready": lambda p: ready(c, p),
             "start": lambda p: c.kubelet.start(p), "delete": lambda p: c.delete_pod(p)}[verb](pod)
        r = c.sync("web")
        results.append(r)
        assert acts(r) == actions, f"sync {n}: {acts(r)}"
        assert st(r) == status, f"sync {n}: {st(r)}"
        if pair is not None:
            assert revs(r) == (names[pair[0]], names[pair[1]]), f"sync {n}"
        if text is not None:
            assert c.rollout_status("web") == text, f"sync {n}"
    return results


# The rolling update table of docs/behaviour.md section 6, written out: RollingUpdate, partition 0,
# OrderedReady, 3 replicas.
ROLLOUT_3 = [
    (None, [("delete", "web-2", "update")], (3, 3, 3, 2, 0), ("R1", "R2"), partitioned(0, 3)),
    (None, [("wait", "web-2", "terminating")], (3, 3, 3, 2, 0), ("R1", "R2"), partitioned(0, 3)),
    (("gone", "web-2"), [("create", "web-2", "missing")], (2, 2, 2, 2, 0), ("R1", "R2"), WAIT_READY),
    (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 1), ("R1", "R2"), WAIT_READY),
    (("ready", "web-2"), [("delete", "web-1", "update")], (3, 3, 3, 1, 1), ("R1", "R2"), partitioned(1, 3)),
    (None, [("wait", "web-1", "terminating")], (3, 3, 3, 1, 1), ("R1", "R2"), partitioned(1, 3)),
    (("gone", "web-1"), [("create", "web-1", "missing")], (2, 2, 2, 1, 1), ("R1", "R2"), WAIT_READY),
    (None, [("wait", "web-1", "not-running-ready")], (3, 2, 2, 1, 2), ("R1", "R2"), WAIT_READY),
    (("ready", "web-1"), [("delete", "web-0", "update")], (3, 3, 3, 0, 2), ("R1", "R2"), partitioned(2, 3)),
    (None, [("wait", "web-0", "terminating")], (3, 3, 3, 0, 2), ("R1", "R2"), partitioned(2, 3)),
    (("gone", "web-0"), [("create", "web-0", "missing")], (2, 2, 2, 0, 2), ("R1", "R2"), WAIT_READY),
    (None, [("wait", "web-0", "not-running-ready")], (3, 2, 2, 0, 3), ("R1", "R2"), WAIT_READY),
    (("ready", "web-0"), [], (3, 3, 3, 3, 3), ("R2", "R2"), done(3)),
]


def one_at_a_time(n):
    """The pattern of ROLLOUT_3 for *n* replicas: per pod from the top, delete / wait / create / wait."""
    steps, event = [], None
    for k in range(n - 1, -1, -1):
        u, pod = n - 1 - k, f"web-{k}"
        steps += [
            (event, [("delete", pod, "update")], (n, n, n, n - u - 1, u), ("R1", "R2"), partitioned(u, n)),
            (None, [("wait", pod, "terminating")], (n, n, n, n - u - 1, u), ("R1", "R2"), partitioned(u, n)),
            (("gone", pod), [("create", pod, "missing")], (n - 1, n - 1, n - 1, n - u - 1, u), ("R1", "R2"),
             WAIT_READY),
            (None, [("wait", pod, "not-running-ready")], (n, n - 1, n - 1, n - u - 1, u + 1), ("R1", "R2"),
             WAIT_READY),
        ]
        event = ("ready", pod)
    steps.append((event, [], (n, n, n, n, n), ("R2", "R2"), done(n)))
    return steps


def test_the_generated_pattern_is_s10():
    """The generator used for 5 replicas reproduces docs/behaviour.md's rolling update table for 3."""
    assert one_at_a_time(3) == ROLLOUT_3


@pytest.mark.parametrize("gates", GATES)
@pytest.mark.parametrize("n", [3, 5])
def test_full_rolling_update(gates, n):
    """The rolling update table (docs/behaviour.md section 6) / updateStatefulSet (gate off) and updateStatefulSetAfterInvariantEstablished (gate on,
    maxUnavailable 1): one pod at a time from the highest ordinal, each replacement Running and
    Ready before the next; currentReplicas drops with each deletion; completeRollingUpdate promotes
    currentRevision only in the sync that sees every pod updated and Ready."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=gates)
    old = ready_set(c, n)
    c.set_image("web", "nginx:2")
    assert c.rollout_status("web") == OBSERVE
    first = c.preview("web")
    new = first.update_revision
    results = drive(c, one_at_a_time(n), old, new)
    assert kinds(results[0], "create-revision") == [("new-template", new)]
    assert numbers(c) == [(old, 1), (new, 2)]
    rule = "updateStatefulSetAfterInvariantEstablished" if gates == ON else "updateStatefulSet:"
    deletes = [d for r in results for d in r.decisions if d.action == "delete"]
    assert len(deletes) == n and all(d.rule.startswith(rule) for d in deletes)
    assert set(pod_revisions(c).values()) == {new}


def test_new_pod_images_come_from_the_update_revision(manual_cluster):
    """newVersionedStatefulSetPod: a recreated pod is built from its revision's template."""
    c = manual_cluster
    ready_set(c, 2)
    c.set_image("web", "nginx:2")
    c.sync("web")
    gone(c, "web-1")
    c.sync("web")
    assert c.pod("web-1").images() == ("nginx:2",)
    assert c.pod("web-0").images() == ("nginx:1",)


# ----------------------------------------------------------------- partition


@pytest.mark.parametrize("gates", GATES)
def test_partition_2_of_4(gates):
    """Partition (updateStatefulSet's updateMin, newVersionedStatefulSetPod): only web-3 and web-2
    are updated; web-0 deleted by hand comes back at the OLD revision; currentRevision is never
    promoted; lowering the partition to 0 (no new revision) finishes the rollout."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=gates)
    old = ready_set(c, 4, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    drive(c, [
        (None, [("delete", "web-3", "update")], (4, 4, 4, 3, 0), ("R1", "R2"), partitioned(0, 2)),
        (None, [("wait", "web-3", "terminating")], (4, 4, 4, 3, 0), ("R1", "R2"), partitioned(0, 2)),
        (("gone", "web-3"), [("create", "web-3", "missing")], (3, 3, 3, 3, 0), ("R1", "R2"), WAIT_READY),
        (None, [("wait", "web-3", "not-running-ready")], (4, 3, 3, 3, 1), ("R1", "R2"), WAIT_READY),
        (("ready", "web-3"), [("delete", "web-2", "update")], (4, 4, 4, 2, 1), ("R1", "R2"),
         partitioned(1, 2)),
        (None, [("wait", "web-2", "terminating")], (4, 4, 4, 2, 1), ("R1", "R2"), partitioned(1, 2)),
        (("gone", "web-2"), [("create", "web-2", "missing")], (3, 3, 3, 2, 1), ("R1", "R2"), WAIT_READY),
        (None, [("wait", "web-2", "not-running-ready")], (4, 3, 3, 2, 2), ("R1", "R2"), WAIT_READY),
        (("ready", "web-2"), [], (4, 4, 4, 2, 2), ("R1", "R2"), done(2)),
        # a pod below the partition, deleted by hand, comes back at the current revision
        (("delete", "web-0"), [("wait", "web-0", "terminating")], (4, 4, 4, 1, 2), ("R1", "R2"), done(2)),
        (("gone", "web-0"), [("create", "web-0", "missing")], (3, 3, 3, 1, 2), ("R1", "R2"), WAIT_READY),
        (None, [("wait", "web-0", "not-running-ready")], (4, 3, 3, 2, 2), ("R1", "R2"), WAIT_READY),
        (("ready", "web-0"), [], (4, 4, 4, 2, 2), ("R1", "R2"), done(2)),
    ], old, new)
    assert pod_revisions(c) == {"web-0": old, "web-1": old, "web-2": new, "web-3": new}
    assert c.pod("web-0").images() == ("nginx:1",)

    c.patch("web", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}})
    assert c.rollout_status("web") == OBSERVE
    results = drive(c, [
        (None, [("delete", "web-1", "update")], (4, 4, 4, 1, 2), ("R1", "R2"), partitioned(2, 4)),
        (None, [("wait", "web-1", "terminating")], (4, 4, 4, 1, 2), ("R1", "R2"), partitioned(2, 4)),
        (("gone", "web-1"), [("create", "web-1", "missing")], (3, 3, 3, 1, 2), ("R1", "R2"), WAIT_READY),
        (None, [("wait", "web-1", "not-running-ready")], (4, 3, 3, 1, 3), ("R1", "R2"), WAIT_READY),
        (("ready", "web-1"), [("delete", "web-0", "update")], (4, 4, 4, 0, 3), ("R1", "R2"),
         partitioned(3, 4)),
        (None, [("wait", "web-0", "terminating")], (4, 4, 4, 0, 3), ("R1", "R2"), partitioned(3, 4)),
        (("gone", "web-0"), [("create", "web-0", "missing")], (3, 3, 3, 0, 3), ("R1", "R2"), WAIT_READY),
        (None, [("wait", "web-0", "not-running-ready")], (4, 3, 3, 0, 4), ("R1", "R2"), WAIT_READY),
        (("ready", "web-0"), [], (4, 4, 4, 4, 4), ("R2", "R2"), done(4)),
    ], old, new)
    assert not any(d.action == "create-revision" for r in results for d in r.decisions)
    assert numbers(c) == [(old, 1), (new, 2)]


@pytest.mark.parametrize("gates", GATES)
def test_partition_above_replicas_updates_nothing(gates):
    """updateStatefulSet: updateMin = partition >= replicas, so no pod is deleted; kubectl reports
    the partitioned roll out complete (updated 0 is not below replicas - partition < 0); a pod
    deleted by hand comes back at the old revision (ordinal < partition)."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=gates)
    old = ready_set(c, 3, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 5}})
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    drive(c, [
        (None, [], (3, 3, 3, 3, 0), ("R1", "R2"), done(0)),
        (None, [], (3, 3, 3, 3, 0), ("R1", "R2"), done(0)),
        (("delete", "web-2"), [("wait", "web-2", "terminating")], (3, 3, 3, 2, 0), ("R1", "R2"), done(0)),
        (("gone", "web-2"), [("create", "web-2", "missing")], (2, 2, 2, 2, 0), ("R1", "R2"), WAIT_READY),
    ], old, new)
    assert set(pod_revisions(c).values()) == {old}


# ------------------------------------------------------ type without block


def test_rolling_update_without_block_recreates_low_pod_at_old_revision():
    """newVersionedStatefulSetPod, first clause: web-0 deleted while status.currentReplicas is 1
    comes back at the old revision (0 < 0 + 1), and is replaced again by the rolling update; with a
    ``rollingUpdate`` block (partition 0) it comes back at the update revision at once."""
    outcomes = {}
    for strategy in ({"type": "RollingUpdate"}, {"type": "RollingUpdate", "rollingUpdate": {}}):
        c = stsedu.Cluster(kubelet="manual")
        old = ready_set(c, 3, strategy=strategy)
        c.set_image("web", "nginx:2")
        new = c.preview("web").update_revision
        c.sync("web")                       # delete web-2
        if "rollingUpdate" not in strategy:  # kubectl's non-partitioned sentences
            assert c.rollout_status("web") == (
                f"waiting for statefulset rolling update to complete 0 pods at revision {new}...")
        gone(c, "web-2")
        c.sync("web")                       # create web-2 at the update revision
        ready(c, "web-2")
        c.delete_pod("web-0")
        r = c.sync("web")
        assert acts(r) == [("wait", "web-0", "terminating")] and st(r) == (3, 3, 3, 1, 1)
        gone(c, "web-0")
        r = c.sync("web")
        assert acts(r) == [("create", "web-0", "missing")] and st(r) == (2, 2, 2, 1, 1)
        outcomes["block" if "rollingUpdate" in strategy else "no-block"] = c.pod("web-0").revision
        # then the rollout finishes either way
        for _ in range(40):
            r = c.sync("web")
            move_all(c)
        assert revs(r) == (new, new) and set(pod_revisions(c).values()) == {new}
        if "rollingUpdate" not in strategy:
            assert c.rollout_status("web") == (
                f"statefulset rolling update complete 3 pods at revision {new}...")
        created = c.trace.pods()
        web0 = created[(created.pod == "web-0") & (created.event == "created")]
        outcomes[("creations", "rollingUpdate" in strategy)] = list(web0.revision)[1:]
    assert outcomes["no-block"] == old and outcomes["block"] == new
    assert outcomes[("creations", False)] == [old, new]
    assert outcomes[("creations", True)] == [new]


# ------------------------------------------------------------------ OnDelete


@pytest.mark.parametrize("profile,promotes", [("current", True), ("v1.36", False)])
def test_on_delete(profile, promotes):
    """OnDelete (updateStatefulSet returns before the update step): nothing is replaced by the
    controller; a pod deleted by hand comes back at the update revision (newVersionedStatefulSetPod
    second branch).  completeRollingUpdate promotes currentRevision for OnDelete sets only from
    v1.37 (PR #136833, profile switch ``ondelete_promotes``)."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    old = ready_set(c, 3, strategy={"type": "OnDelete"})
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    no_status = "error: rollout status is only available for RollingUpdate strategy type"
    drive(c, [
        (None, [], (3, 3, 3, 3, 0), ("R1", "R2"), no_status),
        (None, [], (3, 3, 3, 3, 0), ("R1", "R2"), no_status),
        (("delete", "web-1"), [("wait", "web-1", "terminating")], (3, 3, 3, 2, 0), ("R1", "R2"), None),
        (("gone", "web-1"), [("create", "web-1", "missing")], (2, 2, 2, 2, 0), ("R1", "R2"), None),
        (None, [("wait", "web-1", "not-running-ready")], (3, 2, 2, 2, 1), ("R1", "R2"), None),
        (("ready", "web-1"), [], (3, 3, 3, 2, 1), ("R1", "R2"), None),
    ], old, new)
    assert pod_revisions(c) == {"web-0": old, "web-1": new, "web-2": old}
    c.delete_pod("web-0")
    c.delete_pod("web-2")
    final = (3, 3, 3, 3, 3) if promotes else (3, 3, 3, 0, 3)
    drive(c, [
        (None, [("wait", "web-0", "terminating")], (3, 3, 3, 0, 1), ("R1", "R2"), None),
        (("gone", "web-0"), [("create", "web-0", "missing")], (2, 2, 2, 0, 1), ("R1", "R2"), None),
        (("gone", "web-2"), [("wait", "web-0", "not-running-ready")], (2, 1, 1, 0, 2), ("R1", "R2"), None),
        (("ready", "web-0"), [("create", "web-2", "missing")], (2, 2, 2, 0, 2), ("R1", "R2"), None),
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 0, 3), ("R1", "R2"), None),
        (("ready", "web-2"), [], final, ("R2", "R2") if promotes else ("R1", "R2"), None),
    ], old, new)


# ------------------------------------------------------------ maxUnavailable


@pytest.mark.parametrize("max_unavailable", [2, "50%"])
@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_max_unavailable_2(policy, max_unavailable):
    """updateStatefulSetAfterInvariantEstablished (gate on, v1.37): up to maxUnavailable old pods
    are deleted at once, top down; "50%" of 5 rounds down to 2 (getStatefulSetMaxUnavailable).
    OrderedReady recreates them one per sync in ordinal order; Parallel recreates them together and
    waits ("max-unavailable") while the new pods are not yet available."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=ON)
    old = ready_set(c, 5, policy, strategy={"type": "RollingUpdate",
                                             "rollingUpdate": {"maxUnavailable": max_unavailable}})
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    if policy == "OrderedReady":
        expected = [
            ([("delete", "web-4", "update"), ("delete", "web-3", "update")], (5, 5, 5, 3, 0)),
            ([("create", "web-3", "missing")], (3, 3, 3, 3, 0)),
            ([("create", "web-4", "missing")], (4, 4, 4, 3, 1)),
            ([("delete", "web-2", "update"), ("delete", "web-1", "update")], (5, 5, 5, 1, 2)),
            ([("create", "web-1", "missing")], (3, 3, 3, 1, 2)),
            ([("create", "web-2", "missing")], (4, 4, 4, 1, 3)),
            ([("delete", "web-0", "update")], (5, 5, 5, 0, 4)),
            ([("create", "web-0", "missing")], (4, 4, 4, 0, 4)),
            ([], (5, 5, 5, 5, 5)),
        ]
    else:
        expected = [
            ([("delete", "web-4", "update"), ("delete", "web-3", "update")], (5, 5, 5, 3, 0)),
            ([("create", "web-3", "missing"), ("create", "web-4", "missing"),
              ("wait", "web-2", "max-unavailable")], (3, 3, 3, 3, 0)),
            ([("delete", "web-2", "update"), ("delete", "web-1", "update")], (5, 5, 5, 1, 2)),
            ([("create", "web-1", "missing"), ("create", "web-2", "missing"),
              ("wait", "web-0", "max-unavailable")], (3, 3, 3, 1, 2)),
            ([("delete", "web-0", "update")], (5, 5, 5, 0, 4)),
            ([("create", "web-0", "missing")], (4, 4, 4, 0, 4)),
            ([], (5, 5, 5, 5, 5)),
        ]
    for n, (actions, status) in enumerate(expected, 1):
        r = c.sync("web")
        assert (acts(r), st(r)) == (actions, status), f"sync {n}"
        if n == 1:
            assert c.rollout_status("web") == partitioned(0, 5)
        move_all(c)
    assert revs(r) == (new, new) and set(pod_revisions(c).values()) == {new}
    assert c.rollout_status("web") == done(5)
    assert c.statefulset("web").status.current_revision == new != old


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_max_unavailable_is_ignored_with_the_gate_off(policy):
    """MaxUnavailableStatefulSet off (v1.36): the API server drops maxUnavailable
    (dropStatefulSetDisabledFields) and the classic loop replaces one pod at a time."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.36")
    ready_set(c, 5, policy, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}})
    assert c.statefulset("web").spec.rolling_update.max_unavailable is None
    c.set_image("web", "nginx:2")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-4", "update")] and st(r) == (5, 5, 5, 4, 0)
    r = c.sync("web")
    wait = "update-unavailable" if policy == "Parallel" else "terminating"
    assert acts(r) == [("wait", "web-4", wait)]


# ------------------------------------------------------ the broken rollout


@pytest.mark.parametrize("gates", GATES)
def test_broken_rollout_and_manual_fix(gates):
    """The broken rollout of docs/behaviour.md section 6 (Kubernetes docs: "Forced rollback"): an update whose pod never becomes Ready stalls OrderedReady
    (processReplica waits on it forever); reverting the template renumbers the old revision
    (getStatefulSetRevisions rollback) but the stuck pod still blocks; deleting it by hand lets the
    controller recreate it at the old revision and finish."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=gates)
    old = ready_set(c, 3)
    c.set_image("web", "nginx:broken")
    bad = c.preview("web").update_revision
    drive(c, [
        (None, [("delete", "web-2", "update")], (3, 3, 3, 2, 0), ("R1", "R2"), partitioned(0, 3)),
        (("gone", "web-2"), [("create", "web-2", "missing")], (2, 2, 2, 2, 0), ("R1", "R2"), WAIT_READY),
        (("start", "web-2"), [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 1), ("R1", "R2"),
         WAIT_READY),
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 1), ("R1", "R2"), WAIT_READY),
    ], old, bad)
    assert c.pod("web-2").revision == bad
    c.set_image("web", "nginx:1")                                   # revert the template
    results = drive(c, [
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 2), ("R1", "R1"), WAIT_READY),
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 2), ("R1", "R1"), WAIT_READY),
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 2, 2), ("R1", "R1"), WAIT_READY),
    ], old, bad)
    assert kinds(results[0], "update-revision") == [("rollback", old)]
    assert not any(d.action == "create-revision" for r in results for d in r.decisions)
    assert numbers(c) == [(bad, 2), (old, 3)]
    assert c.pod("web-2").revision == bad                           # still stuck
    drive(c, [
        (("delete", "web-2"), [("wait", "web-2", "terminating")], (3, 2, 2, 2, 2), ("R1", "R1"), WAIT_READY),
        (("gone", "web-2"), [("create", "web-2", "missing")], (2, 2, 2, 2, 2), ("R1", "R1"), WAIT_READY),
        (None, [("wait", "web-2", "not-running-ready")], (3, 2, 2, 3, 3), ("R1", "R1"), WAIT_READY),
        (("ready", "web-2"), [], (3, 3, 3, 3, 3), ("R1", "R1"), done(3)),
    ], old, bad)
    assert set(pod_revisions(c).values()) == {old}


@pytest.mark.parametrize("profile,gates,heals", [
    ("v1.36", OFF, True),      # classic loop: revision check before availability
    ("current", ON, True),     # v1.37 (PR #137666): broken old pods do not use the budget
    ("v1.36", ON, False),      # v1.35.0-1.35.3 behaviour (#137409): stuck on the budget
])
def test_parallel_broken_rollout_heals_after_revert(profile, gates, heals):
    """Section 8 item 4: in Parallel mode, after the template is reverted, the unready pod at the
    bad revision is itself old, so the update step deletes it (gate off: updateStatefulSet deletes
    old pods before checking availability; gate on v1.37: phase 1 of the two-phase deletion).  The
    gate-on code of v1.35.0-1.35.3 counts it against maxUnavailable and never deletes it."""
    c = stsedu.Cluster(kubelet="manual", profile=profile, feature_gates=gates)
    old = ready_set(c, 3, "Parallel")
    c.set_image("web", "nginx:broken")
    c.sync("web")                       # delete web-2
    gone(c, "web-2")
    c.sync("web")                       # create web-2 at the bad revision
    c.kubelet.start("web-2")            # Running, never Ready
    c.sync("web")
    c.set_image("web", "nginx:1")
    r = c.sync("web")
    if heals:
        # the deleted pod was not at the current revision, yet currentReplicas is decremented
        assert acts(r) == [("delete", "web-2", "update")] and st(r) == (3, 2, 2, 1, 2)
        gone(c, "web-2")
        c.sync("web")
        ready(c, "web-2")
        r = c.sync("web")
        assert st(r) == (3, 3, 3, 3, 3) and revs(r) == (old, old)
    else:
        assert acts(r) == [("wait", "web-2", "max-unavailable")] and st(r) == (3, 2, 2, 2, 2)
        r = c.sync("web")
        assert acts(r) == [("wait", "web-2", "max-unavailable")]


# ------------------------------------------------ when currentRevision moves


def test_promotion_needs_ready_not_available(manual_cluster):
    """completeRollingUpdate: currentRevision switches in the sync where updated == ready ==
    replicas == spec.replicas, even though the last pod is not yet Available (minReadySeconds)."""
    c = manual_cluster
    c.apply(web(2, min_ready=10))
    c.sync("web")
    ready(c, "web-0")
    c.advance(11)
    c.sync("web")
    ready(c, "web-1")
    c.advance(11)
    r = c.sync("web")
    assert st(r) == (2, 2, 2, 2, 2)
    old = r.status.current_revision
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "update")] and st(r) == (2, 2, 2, 1, 0)
    gone(c, "web-1")
    c.sync("web")
    ready(c, "web-1")
    r = c.sync("web")
    assert acts(r) == [("wait", "web-1", "not-available")] and st(r) == (2, 2, 1, 1, 1)
    c.advance(11)
    r = c.sync("web")
    assert acts(r) == [("delete", "web-0", "update")] and st(r) == (2, 2, 2, 0, 1)
    gone(c, "web-0")
    c.sync("web")
    ready(c, "web-0")
    r = c.sync("web")
    assert acts(r) == [("wait", "web-0", "not-available")]
    assert st(r) == (2, 2, 1, 2, 2) and revs(r) == (new, new) and new != old


def test_update_step_waits_on_an_unavailable_updated_pod_in_parallel():
    """updateStatefulSet (gate off): Parallel has no replica-loop waits, so the update step itself
    waits ("update-unavailable") on the replaced pod until it is Available."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=OFF)
    ready_set(c, 3, "Parallel")
    c.set_image("web", "nginx:2")
    c.sync("web")
    gone(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [("create", "web-2", "missing"), ("wait", "web-2", "update-unavailable")]
    r = c.sync("web")
    assert acts(r) == [("wait", "web-2", "update-unavailable")] and st(r) == (3, 2, 2, 2, 1)
    ready(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "update")]


def test_scale_takes_precedence_over_update(manual_cluster):
    """updateStatefulSet: condemned pods are removed before any update deletion (scaling first)."""
    c = manual_cluster
    ready_set(c, 3)
    c.patch("web", {"spec": {"replicas": 2, "template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:2"}]}}}})
    r = c.sync("web")
    assert acts(r) == [("delete", "web-2", "scale-down")]
    gone(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "update")]


def test_run_reaches_a_finished_rollout_in_auto_mode():
    """The whole rollout with the auto kubelet: ends with every pod at the new revision and
    currentRevision promoted."""
    c = stsedu.Cluster(seed=3)
    c.apply(web(3))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    sts = c.statefulset("web")
    assert sts.status.current_revision == sts.status.update_revision
    assert {p.revision for p in c.pods("web")} == {sts.status.update_revision}
    assert c.rollout_status("web") == done(3)


@pytest.mark.parametrize("gates", GATES)
def test_partition_counts_from_the_start_ordinal(gates):
    """updateStatefulSet and newVersionedStatefulSetPod compare the partition with
    ``ordinal - start`` (docs/behaviour.md 1.4): with ordinals 2..4 and partition 1, web-3 and web-4 are
    updated, web-2 is kept, and web-2 deleted by hand comes back at the old revision."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=gates)
    old = ready_set(c, 3, start=2, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}})
    c.set_image("web", "nginx:2")
    new = c.preview("web").update_revision
    for _ in range(12):
        c.sync("web")
        move_all(c)
    assert pod_revisions(c) == {"web-2": old, "web-3": new, "web-4": new}
    c.delete_pod("web-2")
    c.sync("web")
    gone(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [("create", "web-2", "missing")] and c.pod("web-2").revision == old


@pytest.mark.parametrize("profile", ["v1.36", "v1.16"])  # OnDelete sets are not promoted there
def test_rolling_update_delete_of_a_third_revision_pod_is_refused_by_status_validation(profile):
    """updateStatefulSet decrements status.currentReplicas for every pod it deletes, whatever that pod's
    revision; deleting a pod of a third revision with currentReplicas at 0 computes -1, and the API
    server refuses the status write (ValidateStatefulSetStatus: must be greater than or equal to 0).
    The sync fails, the stored status stays as it was, and later syncs finish the rollout."""
    c = stsedu.Cluster(seed=0, profile=profile)
    c.apply(web(2, image="nginx:1", strategy={"type": "OnDelete"}))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    for name in ("web-0", "web-1"):  # OnDelete: recreated at revision 2, the current revision stays 1
        c.delete_pod(name)
        c.run("web")
    before = c.statefulset("web").status
    assert before.current_replicas == 0 and before.updated_replicas == 2
    c.apply(web(2, image="nginx:3", strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}))
    r = c.sync("web")
    message = ('StatefulSet.apps "web" is invalid: status.currentReplicas: Invalid value: -1: '
               "must be greater than or equal to 0")
    assert acts(r)[-1:] == [("delete", "web-1", "update")]
    status = [d for d in r.decisions if d.action == "status"]
    assert [(d.applied, d.error) for d in status] == [(False, message)]
    assert r.error == message
    assert c.statefulset("web").status == before
    c.run("web")
    after = c.statefulset("web").status
    assert after.current_replicas == after.updated_replicas == 2 and after.current_revision == after.update_revision
    written = c.trace.status().query("written")
    assert (written["current_replicas"] >= 0).all()
