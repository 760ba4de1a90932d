"""The recording pod control: the steps' requests as decision rows, nothing written.

Upstream's steps call the ``StatefulPodControl`` (``processReplica`` → ``CreateStatefulPod``,
``UpdateStatefulPod``, ``createMissingPersistentVolumeClaims``; ``fixPodClaim`` →
``UpdatePodClaimForRetentionPolicy``; ``processCondemned`` → ``DeleteStatefulPod``), and its tests pass a
fake object manager.  ``Cluster.preview()`` runs the kit's steps with the pod control over
``RecordingObjects``, which writes nothing.
"""

from __future__ import annotations

import pytest

import stsedu
from helpers import web
from stsedu.api.errors import api_answer
from stsedu.api.objects import POD_NAME_LABEL
from stsedu.api.objects import PersistentVolumeClaim, Pod, StatefulSet
from stsedu.api.profiles import CURRENT
from stsedu.controller.decisions import RULES, Why, aggregate
from stsedu.controller.recording_pod_control import recording_pod_control
from stsedu.controller.snapshot import Snapshot

RETAIN_ON_DELETE = {"whenScaled": "Delete", "whenDeleted": "Retain"}


def rows(plan) -> list[tuple]:
    return [(d.step, d.action, d.pod, d.target) for d in plan.decisions]


def state(c: stsedu.Cluster) -> tuple:
    return c.store.dump(), c.trace.events().to_csv(), c.trace.decisions().to_csv()


def test_preview_of_creates_records_create_stateful_pod_and_writes_nothing():
    """CreateStatefulPod: the claims first (createPersistentVolumeClaims), then the pod, slot by slot
    in slowStartBatch's order; preview() records them and creates nothing."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, "Parallel", claims=True))
    before = state(c)
    plan = c.preview("web")
    assert [r for r in rows(plan) if r[0] == "replicas"] == [
        ("replicas", "create-pvc", "web-0", "data-web-0"), ("replicas", "create", "web-0", None),
        ("replicas", "create-pvc", "web-1", "data-web-1"), ("replicas", "create", "web-1", None)]
    assert state(c) == before
    assert c.pods("web") == []


def test_preview_of_fixes_records_update_stateful_pod_and_the_claim_fix_and_writes_nothing():
    """UpdateStatefulPod for a pod that lost its identity label; UpdatePodClaimForRetentionPolicy
    (fixPodClaim) for the condemned pods' claims before processCondemned deletes them; nothing
    written."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(3, "Parallel", claims=True, retention=RETAIN_ON_DELETE))
    c.sync("web")
    for name in ("web-0", "web-1", "web-2"):
        c.kubelet.start(name)
        c.kubelet.set_ready(name)
    c.sync("web")
    c.scale("web", 1)
    c.patch_pod("web-0", {"metadata": {"labels": {POD_NAME_LABEL: None}}})
    before = state(c)
    plan = c.preview("web")
    assert rows(plan)[-6:] == [
        ("replicas", "update", "web-0", None),
        ("fix-claims", "update-pvc", "web-2", "data-web-2"), ("fix-claims", "update-pvc", "web-1", "data-web-1"),
        ("condemned", "delete", "web-2", None), ("condemned", "delete", "web-1", None),
        ("status", "status", None, None)]  # then updateStatefulSetStatus, through the status updater
    assert state(c) == before
    assert c.pods("web")[0].labels.get(POD_NAME_LABEL) is None


def test_create_stateful_pod_stops_when_a_claim_is_being_deleted():
    """CreateStatefulPod returns createPersistentVolumeClaims' error before it creates the pod: the
    pod control over the recording object manager reads the claim being deleted through GetClaim,
    records its row, not the create, and returns the error; with no claim it records the claim's
    create, then the pod's."""
    sts = StatefulSet.from_manifest(web(1, claims=True, retention=RETAIN_ON_DELETE))
    pod = Pod(name="web-0")
    why = Why(reason="missing", message="m", rule=RULES["create"], slot=0)
    deleting = {"data-web-0": PersistentVolumeClaim(name="data-web-0", deletion_timestamp=1.0)}
    spc = recording_pod_control(Snapshot(sts=sts, pods=(), claims=deleting, namespace_revisions={}, now=2.0), CURRENT)
    err = spc.create_stateful_pod(sts, pod, why)
    assert str(err) == "pvc data-web-0 is being deleted" and api_answer(err) is None  # an error, no answer
    assert [(d.action, d.reason, d.target) for d in spc.log] == [("wait", "claim-deleting", "data-web-0")]
    spc = recording_pod_control(Snapshot(sts=sts, pods=(), claims={}, namespace_revisions={}, now=2.0), CURRENT)
    assert spc.create_stateful_pod(sts, pod, why) is None
    assert [(d.action, d.pod, d.target) for d in spc.log] == [("create-pvc", "web-0", "data-web-0"),
                                                              ("create", "web-0", None)]


def test_the_pod_control_returns_the_api_servers_answer_as_an_error():
    """CreateStatefulPod, UpdateStatefulPod and DeleteStatefulPod return the ``error`` the request
    failed with, as upstream's do, so a caller reads it with apierrors (IsTooManyRequests,
    IsNotFound, IsConflict), not by its words; the row and the event keep its text."""
    from stsedu.api.errors import APIError, is_conflict, is_not_found, is_too_many_requests
    from stsedu.controller.recording_pod_control import NullRecorder, RecordingHistory, RecordingObjects
    from stsedu.controller.stateful_pod_control import StatefulPodControl

    class Refusing(RecordingObjects):  # each write answered as the API server would refuse it
        def create_pod(self, pod, sts, reason=""):
            raise APIError("create", "Pod", pod.name, reason="TooManyRequests")

        def delete_pod(self, pod, reason=""):
            raise APIError("delete", "Pod", pod.name, reason="InternalError")

        def update_pod(self, pod, sts, reason=""):
            raise APIError("update", "Pod", pod.name, reason="NotFound")

    sts = StatefulSet.from_manifest(web(1))
    why = Why(reason="missing", message="m", rule=RULES["create"], slot=0)
    spc = StatefulPodControl(Refusing(Snapshot(sts=sts, pods=(), claims={}, namespace_revisions={}, now=2.0)),
                             NullRecorder(), CURRENT, RecordingHistory())
    created = spc.create_stateful_pod(sts, Pod(name="web-0"), why)
    assert is_too_many_requests(created) and not is_conflict(created)
    assert spc.log[-1].error == str(created)  # the row keeps its text
    deleted = spc.delete_stateful_pod(sts, Pod(name="web-0", uid="u"), why)
    assert isinstance(deleted, APIError) and deleted.code == 500 and not is_not_found(deleted)
    lost = Pod(name="web-0", uid="u", labels={})  # its identity label is missing: it is updated
    updated = spc.update_stateful_pod(sts, lost, why)
    assert is_not_found(updated) and spc.log[-1].error == str(updated)


@pytest.mark.parametrize("profile", ["current", "v1.16"])
@pytest.mark.parametrize("quota, others", [(10_000, 0), (30, 10)])
def test_preview_of_a_huge_parallel_set_is_refused_at_the_create_a_sync_is(monkeypatch, profile, quota, others):
    """The preview's object manager meets the kit's create limits as the cluster's does (one throttle,
    stsedu.limits): a Parallel set of 2147483647 replicas is previewed up to the create the sync has
    refused (TooManyRequests past MAX_PODS_PER_SYNC; Forbidden once MAX_PODS pods exist, another
    set's counted), with the same errors; v1.16 fails there too instead of writing a status."""
    monkeypatch.setattr(stsedu.limits, "MAX_PODS", quota)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    if others:
        db = web(others, "Parallel", name="db")
        db["spec"]["selector"]["matchLabels"] = db["spec"]["template"]["metadata"]["labels"] = {"app": "db"}
        c.apply(db)
        c.sync("db")
    c.apply(web(2 ** 31 - 1, "Parallel"))
    plan = c.preview("web")
    synced = c.sync("web")
    assert [(d.action, d.pod) for d in plan.decisions] == [(d.action, d.pod) for d in synced.decisions]
    refused = [d for d in synced.decisions if d.action == "create" and d.applied is False]
    assert plan.error == synced.error == aggregate([d.error for d in refused])
    assert ("forbidden: exceeded quota" if others else "TooManyRequests: stsedu creates at most") in plan.error
    created = min(stsedu.limits.MAX_PODS_PER_SYNC, quota - others)
    assert len(c.pods("web")) == created
    # slowStartBatch (current): the batch of the first refused create is sent to its end (batches of
    # 1, 2, 4 ... slots); v1.16 returns at the first failed create
    last = refused[-1].pod
    assert last == (f"web-{created}" if profile == "v1.16" else f"web-{2 ** (created + 1).bit_length() - 2}")
