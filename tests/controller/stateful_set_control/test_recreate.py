"""The alpha Recreate update strategy (v1.37, gate StatefulSetRecreateStrategy, off by default).

Each test names the upstream rule (k8s.io/kubernetes v1.37.2, pkg/controller/statefulset) it
checks: ``recreateDeleteAndWait`` and the strategy switch of ``updateStatefulSet``
(stateful_set_control.go), ``completeUpdate``, ``setProgressingCondition`` and
``setStatefulSetCondition`` (stateful_set_utils.go).  docs/behaviour.md section 6 tells the
same story for a learner.
"""

from __future__ import annotations

import pytest
from helpers import acts, ready, st
from rollout_helpers import move_all, pod_revisions, ready_set

import stsedu

ON = {"StatefulSetRecreateStrategy": True}
RECREATE = {"type": "Recreate"}


def progressing(result_or_sts):
    """(status, reason, message) of the Progressing condition, or None."""
    for c in result_or_sts.status.conditions:
        if c["type"] == "Progressing":
            return c["status"], c["reason"], c["message"]
    return None


def recreate_set(n: int = 3, policy: str = "OrderedReady") -> tuple[stsedu.Cluster, str]:
    """A ready Recreate set of *n* pods at nginx:1, then nginx:2 set: (cluster, old revision)."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=ON)
    old = ready_set(c, n, policy, strategy=RECREATE)
    c.set_image("web", "nginx:2")
    return c, old


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_recreate_deletes_every_old_pod_in_one_sync_whatever_the_policy(policy):
    """recreateDeleteAndWait: every created pod not at the update revision is deleted in one sync
    (runForAll in burst mode, even for OrderedReady), and the status gets Progressing True,
    RecreateInProgress, "Deleting old revision pods" (setProgressingCondition)."""
    c, old = recreate_set(3, policy)
    r = c.sync("web")
    assert acts(r) == [("delete", "web-0", "recreate"), ("delete", "web-1", "recreate"),
                       ("delete", "web-2", "recreate")]
    assert progressing(r) == ("True", "RecreateInProgress", "Deleting old revision pods")
    assert r.status.current_revision == old != r.status.update_revision
    assert c.statefulset("web").status.conditions == r.status.conditions  # written


def test_no_new_pod_while_an_old_one_is_terminating():
    """recreateDeleteAndWait returns false while any old-revision pod is still there (terminating):
    updateStatefulSet returns before processReplica, so nothing is created, even in a free slot."""
    c, _ = recreate_set(3)
    c.sync("web")
    c.kubelet.finish_termination("web-0")
    c.kubelet.finish_termination("web-2")
    r = c.sync("web")
    assert acts(r) == [("wait", "web-1", "recreate-terminating")]
    assert {p.name for p in c.pods("web")} == {"web-1"}
    assert progressing(r) == ("True", "RecreateInProgress", "Deleting old revision pods")


def test_new_pods_come_once_every_old_one_is_gone_then_complete():
    """Once recreateDeleteAndWait finds no old pod, updateStatefulSet sets Progressing "Waiting for
    new-revision pods to be created" (current and update revisions differ) and the shared loop
    creates the pods at the update revision, OrderedReady one at a time; completeUpdate then
    promotes the revision and sets Progressing False, RecreateCompleted."""
    c, old = recreate_set(3)
    c.sync("web")
    move_all(c)
    r = c.sync("web")
    new = r.status.update_revision
    assert acts(r) == [("create", "web-0", "missing")]
    assert progressing(r) == ("True", "RecreateInProgress", "Waiting for new-revision pods to be created")
    in_progress_since = r.status.conditions[0]["lastTransitionTime"]
    for _ in range(8):
        move_all(c)
        r = c.sync("web")
    assert pod_revisions(c) == {"web-0": new, "web-1": new, "web-2": new}
    assert st(r) == (3, 3, 3, 3, 3)
    assert r.status.current_revision == new != old
    assert progressing(r) == ("False", "RecreateCompleted", "All pods recreated successfully")
    # setStatefulSetCondition: a new status moves lastTransitionTime; a new message alone did not
    assert r.status.conditions[0]["lastTransitionTime"] >= in_progress_since


def test_transition_time_kept_when_only_the_message_changes():
    """setStatefulSetCondition keeps lastTransitionTime when the status stays True and only the
    message changes ("Deleting old revision pods" -> "Waiting for new-revision pods to be created")."""
    c, _ = recreate_set(1)
    t0 = c.now
    c.sync("web")
    c.advance(5)
    c.kubelet.finish_termination("web-0")
    r = c.sync("web")
    assert progressing(r)[2] == "Waiting for new-revision pods to be created"
    assert r.status.conditions[0]["lastTransitionTime"] == t0
    ready(c, "web-0")
    c.advance(5)
    r = c.sync("web")
    assert progressing(r)[0] == "False"
    assert r.status.conditions[0]["lastTransitionTime"] == t0 + 10


def test_condemned_old_pods_are_deleted_too():
    """recreateDeleteAndWait walks replicas and condemned pods (slices.Concat): scaling 4 -> 2 while
    the template changes deletes all four old pods in one sync."""
    c, _ = recreate_set(4, "Parallel")
    c.scale("web", 2)
    r = c.sync("web")
    assert sorted(acts(r)) == [("delete", f"web-{i}", "recreate") for i in range(4)]


def test_pods_already_at_the_update_revision_stay():
    """recreateDeleteAndWait deletes only pods whose revision is not the update revision: an OnDelete
    set with one pod updated by hand, switched to Recreate, keeps that pod."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=ON)
    ready_set(c, 3, strategy={"type": "OnDelete"})
    c.set_image("web", "nginx:2")
    c.delete_pod("web-2")
    c.kubelet.finish_termination("web-2")
    c.sync("web")
    ready(c, "web-2")
    c.patch("web", {"spec": {"updateStrategy": {"type": "Recreate"}}})
    r = c.sync("web")
    assert acts(r) == [("delete", "web-0", "recreate"), ("delete", "web-1", "recreate")]


def test_a_new_set_has_no_progressing_condition():
    """With one revision and no old pod, recreateDeleteAndWait returns true and currentRevision equals
    updateRevision: setProgressingCondition is never called, so no condition appears."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=ON)
    ready_set(c, 2, strategy=RECREATE)
    assert c.statefulset("web").status.conditions == ()


def test_a_failed_delete_sets_no_condition():
    """recreateDeleteAndWait returns the delete's error before setProgressingCondition: the status
    written (updateStatus on the error path) has no Progressing condition, and the sync fails."""
    c, _ = recreate_set(2)
    c.inject_error("delete", "Pod", count=50)
    r = c.sync("web")
    assert r.error is not None
    assert progressing(c.statefulset("web")) is None
    c.clear_errors()
    assert progressing(c.sync("web")) == ("True", "RecreateInProgress", "Deleting old revision pods")


def test_recreate_with_the_gate_off_fails_the_sync():
    """updateStatefulSet: a Recreate set with StatefulSetRecreateStrategy off records a Warning
    UnknownStrategy and returns an error before any status: no pod is touched, no status written."""
    c, _ = recreate_set(2)
    before = c.statefulset("web").status
    c.feature_gates["StatefulSetRecreateStrategy"] = False
    r = c.sync("web")
    assert r.error == ("statefulset default/web uses Recreate strategy but feature gate "
                       "StatefulSetRecreateStrategy is disabled")
    assert acts(r) == [("wait", None, "unknown-strategy")]
    assert c.statefulset("web").status == before
    assert not any(p.terminating for p in c.pods("web"))
    events = [e for e in c.trace.rows()["events"] if e[3] == "UnknownStrategy"]
    assert [(e[2], e[5]) for e in events] == [("Warning", r.error)]


def test_preview_runs_recreate_without_writing():
    """Cluster.preview runs the same code with a pod control that writes nothing."""
    c, _ = recreate_set(2)
    plan = c.preview("web")
    assert [(d.action, d.pod) for d in plan.decisions if d.action == "delete"] == [
        ("delete", "web-0"), ("delete", "web-1")]
    assert not any(p.terminating for p in c.pods("web"))


def test_the_gate_is_off_by_default_and_unknown_before_v1_37():
    """kube_features.go: StatefulSetRecreateStrategy is alpha in 1.37, default false; v1.36.3 has no
    such gate, so the v1.36 profile refuses it."""
    assert stsedu.Cluster().feature_gates["StatefulSetRecreateStrategy"] is False
    with pytest.raises(ValueError, match="unrecognized feature gate: StatefulSetRecreateStrategy "
                                         r"\(StatefulSetRecreateStrategy was added in v1.37\)"):
        stsedu.Cluster(profile="v1.36", feature_gates=ON)


def test_helpers_set_stateful_set_condition():
    """setStatefulSetCondition: a new type is appended; the same status, reason and message change
    nothing; a new status takes the new time."""
    from stsedu.api.objects import StatefulSetStatus
    from stsedu.controller import stateful_set_utils as P
    s = StatefulSetStatus(conditions=({"type": "Other", "status": "True"},))
    s1 = P.set_progressing_condition(s, "True", "R", "m", 1.0)
    assert [c["type"] for c in s1.conditions] == ["Other", "Progressing"]
    assert P.set_progressing_condition(s1, "True", "R", "m", 9.0) is s1
    s2 = P.set_progressing_condition(s1, "False", "R2", "m2", 5.0)
    assert P.get_stateful_set_condition(s2, "Progressing") == {
        "type": "Progressing", "status": "False", "lastTransitionTime": 5.0, "reason": "R2", "message": "m2"}
    assert s1.conditions[1]["status"] == "True"  # not changed in place

