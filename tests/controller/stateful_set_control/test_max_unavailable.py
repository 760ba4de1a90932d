"""The maxUnavailable update step on its own, as upstream's table tests call it.

``update_stateful_set_after_invariant_established`` mirrors ``updateStatefulSetAfterInvariantEstablished``
(gate MaxUnavailableStatefulSet on).  The cases are those of upstream's
maxUnavailable stale-pod table test (v1.37, PR #137666; the rule is docs/behaviour.md 1.8b):
one call of the update step, every pod at an old revision.
"""

import pytest

from helpers import web
from stsedu.controller.recording_pod_control import recording_pod_control
from stsedu.controller.snapshot import Snapshot
from stsedu.controller.stateful_set_control import update_stateful_set_after_invariant_established
from stsedu.api.defaults import default_statefulset
from stsedu.api.objects import Pod, StatefulSet, StatefulSetStatus
from stsedu.api.profiles import CURRENT, V1_36
from stsedu.controller.stateful_set_utils import get_stateful_set_max_unavailable

NOW = 1000.0


def make_set(n, policy, max_unavailable=1, partition=0, min_ready=0):
    strategy = {"type": "RollingUpdate",
                "rollingUpdate": {"partition": partition, "maxUnavailable": max_unavailable}}
    return StatefulSet.from_manifest(default_statefulset(web(n, policy, strategy=strategy,
                                                             min_ready=min_ready)))


def make_pods(n, unready=(), terminating=(), young=()):
    """n Running pods at revision web-old; *unready* not Ready; *terminating* being deleted;
    *young* Ready only 10 s ago."""
    pods = []
    for i in range(n):
        pods.append(Pod(name=f"web-{i}", labels={"controller-revision-hash": "web-old"},
                        phase="Running", ready=i not in unready,
                        ready_since=(NOW - 10 if i in young else 0.0) if i not in unready else None,
                        deletion_timestamp=NOW - 1 if i in terminating else None))
    return pods


def update_step(sts, pods, profile):
    """The decisions of one call of the update step, its deletes recorded by a pod control that
    writes nothing (as upstream's table test passes a fake one)."""
    spc = quiet_pod_control(sts, pods, profile)
    update_stateful_set_after_invariant_established(sts, pods, "web-new", NOW, profile, spc, spc.log,
                                                    StatefulSetStatus())
    return spc.log


def quiet_pod_control(sts, pods, profile):
    """A pod control whose object manager writes nothing (``preview()``'s)."""
    return recording_pod_control(Snapshot(sts=sts, pods=tuple(pods), claims={}, namespace_revisions={}, now=NOW),
                                 profile)


def deleted(n, policy, *, profile=CURRENT, max_unavailable=1, partition=0, min_ready=0, **pods):
    sts = make_set(n, policy, max_unavailable, partition, min_ready)
    ds = update_step(sts, make_pods(n, **pods), profile)
    assert all(d.action in ("delete", "wait") for d in ds)
    return [d.pod for d in ds if d.action == "delete"]


STALE_POD_TABLE = [
    # (id, replicas, policy, options, deleted pods in request order)
    ("parallel-1-unready", 1, "Parallel", dict(unready={0}), ["web-0"]),
    ("parallel-3-top-unready", 3, "Parallel", dict(unready={2}), ["web-2"]),
    ("parallel-5-mu2-two-unready", 5, "Parallel", dict(max_unavailable=2, unready={3, 4}),
     ["web-4", "web-3"]),
    ("ordered-1-unready", 1, "OrderedReady", dict(unready={0}), []),
    ("ordered-3-top-unready", 3, "OrderedReady", dict(unready={2}), []),
    ("ordered-5-mu2-two-unready", 5, "OrderedReady", dict(max_unavailable=2, unready={3, 4}), []),
    ("ordered-5-mu2-top-unready", 5, "OrderedReady", dict(max_unavailable=2, unready={4}), ["web-4"]),
    ("parallel-3-top-terminating", 3, "Parallel", dict(terminating={2}), []),
    ("parallel-5-mu3-terminating-and-unready", 5, "Parallel",
     dict(max_unavailable=3, terminating={4}, unready={3}), ["web-3", "web-2"]),
    ("parallel-3-top-within-min-ready", 3, "Parallel", dict(min_ready=30, young={2}), ["web-2"]),
    ("ordered-3-top-within-min-ready", 3, "OrderedReady", dict(min_ready=30, young={2}), []),
    ("parallel-5-p2-unready-top", 5, "Parallel", dict(partition=2, unready={4}), ["web-4"]),
    ("parallel-5-p2-unready-at-partition", 5, "Parallel", dict(partition=2, unready={2}), ["web-2"]),
    ("parallel-5-p2-unready-below-partition", 5, "Parallel", dict(partition=2, unready={1}), []),
    ("parallel-5-p3-mu2-unready-below-and-top", 5, "Parallel",
     dict(partition=3, max_unavailable=2, unready={1, 4}), ["web-4"]),
    ("parallel-4-mu2-bottom-two-unready", 4, "Parallel", dict(max_unavailable=2, unready={0, 1}),
     ["web-1", "web-0"]),
    ("parallel-5-mu3-bottom-two-unready", 5, "Parallel", dict(max_unavailable=3, unready={0, 1}),
     ["web-1", "web-0", "web-4"]),
]


@pytest.mark.parametrize("n,policy,options,expected",
                         [pytest.param(*row[1:], id=row[0]) for row in STALE_POD_TABLE])
def test_stale_pod_table_v137(n, policy, options, expected):
    """updateStatefulSetAfterInvariantEstablished (v1.37, PR #137666): Parallel deletes old pods
    that are already unavailable first (phase 1, at most maxUnavailable), then healthy old pods
    within maxUnavailable - unavailable (phase 2); terminating pods keep using the budget;
    unavailable pods below the partition count against it; OrderedReady never exceeds it."""
    assert deleted(n, policy, **options) == expected


@pytest.mark.parametrize("n,options,expected", [
    (3, dict(unready={2}), []),
    (5, dict(max_unavailable=2, unready={3, 4}), []),
    (5, dict(max_unavailable=3, unready={0, 1}), ["web-4"]),
    (3, dict(), ["web-2"]),
])
def test_parallel_before_the_fix_counts_broken_pods_against_the_budget(n, options, expected):
    """The v1.35.0-1.35.3 code (profile v1.36 with the gate forced on, issue #137409): nothing is
    deleted while unavailable >= maxUnavailable, even old pods that are broken anyway."""
    assert deleted(n, "Parallel", profile=V1_36, **options) == expected


def test_a_blocked_update_step_records_a_max_unavailable_wait():
    """A rollout held by the budget is visible: one wait on the highest old pod in range."""
    sts = make_set(3, "Parallel")
    ds = update_step(sts, make_pods(3, terminating={2}), CURRENT)
    assert [(d.action, d.pod, d.reason) for d in ds] == [("wait", "web-1", "max-unavailable")]
    assert ds[0].rule.startswith("updateStatefulSetAfterInvariantEstablished")


def test_nothing_left_to_update_is_not_a_wait():
    """No old pod in range: the update step decides nothing at all."""
    sts = make_set(3, "Parallel")
    pods = [Pod(name=f"web-{i}", labels={"controller-revision-hash": "web-new"}, phase="Running",
                ready=i != 0, ready_since=0.0) for i in range(3)]
    assert update_step(sts, pods, CURRENT) == []


@pytest.mark.parametrize("value,replicas,expected", [
    (None, 5, 1), (3, 10, 3), (3, 0, 3), (0, 5, 1), ("10%", 25, 2), ("100%", 5, 5),
    ("50%", 5, 2), ("10%", 5, 1), ("1%", 0, 1), ("0%", 5, 1), ("50%", 4, 2), (7, 3, 7),
])
def test_get_stateful_set_max_unavailable(value, replicas, expected):
    """getStatefulSetMaxUnavailable: integers as given, percentages rounded DOWN against
    spec.replicas, then at least 1 (upstream's table test values)."""
    assert get_stateful_set_max_unavailable(value, replicas) == expected


@pytest.mark.parametrize("value", [0, "0%"])
def test_max_unavailable_zero_is_rejected(manual_cluster, value):
    """validateRollingUpdateStatefulSet: maxUnavailable cannot be 0; nothing changes."""
    import stsedu
    c = manual_cluster
    c.apply(web(3))
    before = c.dump()
    with pytest.raises(stsedu.ValidationError) as e:
        c.patch("web", {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": value}}}})
    assert [p for p, _ in e.value.errors] == ["spec.updateStrategy.rollingUpdate.maxUnavailable"]
    assert "cannot be 0" in e.value.errors[0][1]
    assert c.dump() == before


def test_each_delete_takes_one_off_current_replicas():
    """``status.CurrentReplicas--`` after each ``DeleteStatefulPod`` of the update step, where upstream's
    updateStatefulSetAfterInvariantEstablished writes it (the status the sync then writes)."""
    sts = make_set(5, "Parallel", max_unavailable=2)
    spc = quiet_pod_control(sts, make_pods(5), CURRENT)
    log = spc.log
    status, error = update_stateful_set_after_invariant_established(
        sts, make_pods(5), "web-new", NOW, CURRENT, spc, log, StatefulSetStatus(current_replicas=5))
    assert error is None
    assert [(d.action, d.pod) for d in log] == [("delete", "web-4"), ("delete", "web-3")]
    assert status.current_replicas == 3
