"""The object manager ``Cluster.preview()`` gives the pod control: it records and writes nothing.

Upstream's tests give ``StatefulPodControl`` a fake object manager
(``NewStatefulPodControlFromManager``); ``preview()`` does the same with :class:`RecordingObjects`:
the pod control runs as in a sync, its reads answer from the sync's snapshot (the listers as the
sync began), each request succeeds and changes nothing (but a create the kit's create limits refuse,
as a sync's would be: :func:`~.stateful_pod_control.throttle_create`), and its rows are the preview's;
so do the revision requests (:class:`RecordingHistory`).  No event is recorded (:class:`NullRecorder`).
"""

from __future__ import annotations

from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus
from ..api.profiles import Profile
from .decisions import Decision
from .snapshot import Snapshot
from .stateful_pod_control import StatefulPodControl, new_stateful_pod_control_from_manager, throttle_create


class RecordingObjects:
    """An object manager whose writes succeed and change nothing; its reads answer from *snap*.
    Its creates meet the kit's create limits as a sync's do (:func:`~.stateful_pod_control.throttle_create`),
    over *pods_in_cluster* pods (the set's when not given) and the creates it has recorded."""

    def __init__(self, snap: Snapshot, pods_in_cluster: int | None = None) -> None:
        self.claims = snap.claims
        self.pods = {p.name: p for p in snap.pods}
        self.pods_in_cluster = len(snap.pods) if pods_in_cluster is None else pods_in_cluster
        self.creates = 0

    def create_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None:
        """``CreatePod``: nothing is created, unless the kit's create limits refuse it (an
        :class:`~stsedu.api.errors.APIError`, as a sync's create would be)."""
        self.creates = throttle_create(pod.name, self.creates, self.pods_in_cluster + self.creates)

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """``GetPod``: the pod as the sync listed it."""
        return self.pods.get(name)

    def update_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None:
        """``UpdatePod``: nothing is written."""

    def delete_pod(self, pod: Pod, reason: str = "") -> None:
        """``DeletePod``: nothing is deleted."""

    def create_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None:
        """``CreateClaim``: nothing is created."""

    def get_claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """``GetClaim``: the claim as the sync began."""
        return self.claims.get(name)

    def update_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None:
        """``UpdateClaim``: nothing is written."""

    # the status
    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int:
        """Nothing is written; no retry."""
        return 0


class RecordingHistory:
    """A controller history whose requests succeed and change nothing."""

    def create_revision(self, d: Decision) -> None:
        """Nothing is created."""

    def probe_revision(self, d: Decision) -> None:
        """Nothing is sent."""

    def update_revision(self, d: Decision) -> None:
        """Nothing is written."""

    def delete_revision(self, d: Decision) -> None:
        """Nothing is deleted."""


class NullRecorder:
    """An event recorder that records nothing."""

    def event(self, sts: StatefulSet, type_: str, reason: str, message: str) -> None:
        """Nothing is recorded."""


def recording_pod_control(snap: Snapshot, profile: Profile, pods_in_cluster: int | None = None) -> StatefulPodControl:
    """The pod control ``preview()`` runs the sync's steps with: :class:`RecordingObjects` over *snap*
    (and the cluster's *pods_in_cluster*), :class:`RecordingHistory`, no events."""
    return new_stateful_pod_control_from_manager(RecordingObjects(snap, pods_in_cluster), NullRecorder(), profile,
                                                 RecordingHistory())
