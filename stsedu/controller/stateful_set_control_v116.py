"""The v1.16 controller's algorithm (≈ ``stateful_set_control.go``, 1.14–1.20 line).

Most walkthroughs of the StatefulSet controller's source describe this
release.  Its :func:`update_stateful_set` keeps the contract of
:func:`stsedu.controller.stateful_set_control.update_stateful_set`: a :class:`~stsedu.controller.stateful_set_control.Snapshot`
and a pod control in, a :class:`~stsedu.controller.decisions.SyncPlan` out, the requests made
through the pod control in the order the Go code makes them (stopping at the first that fails, as
v1.16 does even for Parallel sets), with the same action/reason vocabulary.

In v1.16 ``updateStatefulSet`` is one function with one loop over the
ordinal range (no ``processReplica``, ``processCondemned`` or
``slowStartBatch``).  What it does differently from the newest controller
(docs/behaviour.md section 2):

* a Failed pod is deleted and its replacement created in the same pass; with
  graceful deletion the create fails with AlreadyExists, the sync ends in an
  error and is retried.  Succeeded pods are not replaced at all;
* no minReadySeconds / availableReplicas, no start ordinal, no PVC retention
  (no claim owner refs, no stale-claim wait, no claim re-creation under a
  Pending pod, a claim being deleted does not block a create), no
  maxUnavailable, no ``apps.kubernetes.io/pod-index`` label: the planner
  ignores those spec fields even if a snapshot carries them;
* health is ``isHealthy`` (Running, Ready, not terminating) everywhere;
* the status is counted incrementally: all claimed pods at the start, then +1
  for each pod created in the sync, -1 current/updated for each condemned pod
  deleted, -1 replicas/current/updated for a Failed pod deleted, -1 current
  for a rolling-update deletion (taken off after ``completeRollingUpdate``);
* ``completeRollingUpdate`` compares with the counted ``status.replicas``,
  not ``spec.replicas``; a sync that fails writes no status at all
  (``Profile.status_on_error``);
* ``truncateHistory`` has no guard for a negative ``revisionHistoryLimit``:
  the Go controller panics (kubernetes#129018); here the sync fails.

Revisions (``getStatefulSetRevisions``), naming, identity and storage
matching are the same as in the newest release and are reused from
:mod:`stsedu.control`, :mod:`stsedu.predicates` and :mod:`stsedu.revisions`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from . import stateful_set_utils as P
from .recording_pod_control import RecordingPodControl
from .history import sort_revisions
from .stateful_pod_control import first_failure
from ..limits import over_create_budget
from ..i18n import N_
from .stateful_set_control import (PodControl, Snapshot, get_stateful_set_revisions, list_revisions,
                                   update_stateful_set_status)
from .decisions import (RULES, STEP_CONDEMNED, STEP_HISTORY, STEP_REPLICAS, STEP_UPDATE,
                        Decision, SyncPlan)
from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus
from ..api.profiles import V1_16, Profile

__all__ = ["RULES_V116", "update_stateful_set", "complete_rolling_update"]

RULES_V116 = {
    "failed": N_("updateStatefulSet (v1.16): delete a Failed pod and recreate it in the same pass"),
    "create": N_("updateStatefulSet (v1.16): create missing pod"),
    "recreate": N_("updateStatefulSet (v1.16): create the replacement of a Failed pod at once"),
    "create-pvc": RULES["create-pvc"],
    "identity-pvc": N_("UpdateStatefulPod: create missing claims while restoring storage"),
    "terminating": N_("updateStatefulSet (v1.16): wait for terminating pod"),
    "not-running-ready": N_("updateStatefulSet (v1.16): wait for Running and Ready"),
    "identity": N_("UpdateStatefulPod: restore identity and storage"),
    "condemned-terminating": N_("updateStatefulSet (v1.16): wait for pod to terminate prior to scale down"),
    "scale-down-blocked": N_("updateStatefulSet (v1.16): wait for first unhealthy pod prior to scale down"),
    "scale-down": N_("updateStatefulSet (v1.16): delete condemned pod, highest ordinal first"),
    "update": N_("updateStatefulSet (v1.16): delete pod not at update revision"),
    "update-unhealthy": N_("updateStatefulSet (v1.16): wait for updated pod to be healthy"),
    "history-panic": N_("truncateHistory (v1.16): no guard for a negative revisionHistoryLimit"),
}
"""Rule texts of the v1.16 planner's decisions (revision and history rules come from
:data:`stsedu.controller.decisions.RULES`, unchanged since v1.16)."""


def _d(action, pod, reason, message, key, **kw) -> Decision:
    return Decision(action=action, pod=pod, reason=reason, message=message,
                    rule=RULES_V116[key], **kw)


@dataclass(slots=True)
class _Counts:
    """The status counters ``updateStatefulSet`` keeps while it works (incremental)."""

    current: str
    update: str
    replicas: int = 0
    ready: int = 0
    cur: int = 0
    upd: int = 0

    def revision(self, rev: str, delta: int) -> None:
        if rev == self.current:
            self.cur += delta
        if rev == self.update:
            self.upd += delta


def complete_rolling_update(sts: StatefulSet, status: StatefulSetStatus) -> StatefulSetStatus:
    """Promote the update revision (v1.16 ``completeRollingUpdate``).

    RollingUpdate sets only, once ``updatedReplicas`` and ``readyReplicas``
    both equal the COUNTED ``status.replicas`` (not ``spec.replicas``).
    """
    if (sts.spec.update_strategy == "RollingUpdate"
            and status.updated_replicas == status.replicas
            and status.ready_replicas == status.replicas):
        return replace(status, current_replicas=status.updated_replicas,
                       current_revision=status.update_revision)
    return status


def _missing_claims(sts: StatefulSet, pod: Pod, claims: Mapping[str, PersistentVolumeClaim],
                    slot: int, why: str, key: str) -> list[Decision]:
    """Creates for the pod's claims that do not exist (v1.16 ``createPersistentVolumeClaims``).

    A claim that exists, even one being deleted, is left alone: the
    "claim is being deleted" check came with PVC retention. *key* names the caller's rule
    (``CreateStatefulPod`` or ``UpdateStatefulPod``): on failure each records a pod event with
    the aggregated errors (create or update).
    """
    out = []
    for name, template in P.get_persistent_volume_claims(sts, pod):
        if name not in claims:
            out.append(_d("create-pvc", pod.name, "missing",
                          f"Create claim {name} for {pod.name} {why}.", key,
                          target=name, step=STEP_REPLICAS, slot=slot,
                          payload=P.new_claim(sts, template, name)))
    return out


def update_stateful_set(snap: Snapshot, profile: Profile = V1_16, gates: Mapping[str, bool] | None = None,
                        pod_control: PodControl | None = None) -> SyncPlan:
    """One v1.16 sync's work on the set (``UpdateStatefulSet``), its requests through *pod_control*
    (by default a ``RecordingPodControl``: nothing written).

    *profile* and *gates* are accepted for the contract and ignored:
    v1.16 has a single behaviour and none of stsedu's feature gates.
    Spec fields newer than v1.16 (minReadySeconds, ordinals, PVC retention
    policy, maxUnavailable) are ignored even if *snap* carries them.  A failed request ends the
    sync: no status is written and no history truncated (v1.16 returned at once).
    """
    sts = snap.sts
    if pod_control is None:
        pod_control = RecordingPodControl([])
    decisions = pod_control.log
    revisions = sort_revisions(list_revisions(sts, snap.namespace_revisions.values()))
    error, current_rev, update_rev, collisions = get_stateful_set_revisions(snap, revisions, V1_16, pod_control)
    if error is not None:
        return SyncPlan(decisions=tuple(decisions), status=None, collision_count=collisions, error=error)
    current, update = current_rev.name, update_rev.name
    current_set = P.apply_revision(sts, current_rev)  # the set at its current and at its update revision
    update_set = current_set if update_rev.name == current_rev.name else P.apply_revision(sts, update_rev)
    n = sts.spec.replicas
    counts = _Counts(current, update)

    # Count every claimed pod, then split them by ordinal (start is always 0 in v1.16).
    replicas: dict[int, Pod] = {}  # sparse: memory follows the pods, not spec.replicas
    condemned: list[Pod] = []
    for pod in snap.pods:
        counts.replicas += 1
        if P.is_running_and_ready(pod):
            counts.ready += 1
        if P.is_created(pod) and not P.is_terminating(pod):
            counts.revision(pod.revision, +1)
        if 0 <= pod.ordinal < n:
            replicas[pod.ordinal] = pod
        elif pod.ordinal >= n:
            condemned.append(pod)

    def new_pod(ordinal: int) -> Pod:  # newVersionedStatefulSetPod
        return P.new_versioned_stateful_set_pod(current_set, update_set, current, update, ordinal, V1_16)

    class _Slots(dict):  # slot i: the pod with ordinal i, or a new one made when first looked at
        def __missing__(self, i: int) -> Pod:
            pod = self[i] = new_pod(i)
            return pod

    slots = _Slots(replicas)
    condemned.sort(key=lambda p: p.ordinal)
    # the first unhealthy pod: an empty slot (a new pod) ends the search, so this walk is
    # bounded by the pods that exist
    first_unhealthy = next((slots[i] for i in range(n) if not P.is_healthy(slots[i])), None)
    if first_unhealthy is None:
        first_unhealthy = next((p for p in condemned if not P.is_healthy(p)), None)
    monotonic = not P.allows_burst(sts)

    def failed(error: str) -> SyncPlan:
        """A request failed: v1.16's updateStatefulSet returns, UpdateStatefulSet with it."""
        return SyncPlan(decisions=tuple(decisions), status=None, current_revision=current,
                        update_revision=update, collision_count=collisions,
                        error=first_failure(decisions, error))

    def finish(deleted_for_update: int = 0) -> SyncPlan:
        status = StatefulSetStatus(
            observed_generation=sts.generation, replicas=counts.replicas,
            ready_replicas=counts.ready, available_replicas=0, current_replicas=counts.cur,
            updated_replicas=counts.upd, current_revision=current, update_revision=update,
            collision_count=collisions, conditions=())
        # No rolling-update deletion can happen in a sync that completes the update (the
        # deleted pod would be counted but not updated), so completing here, before
        # status.CurrentReplicas-- of the update's delete, gives upstream's result.
        status = complete_rolling_update(sts, status)
        status = replace(status, current_replicas=status.current_replicas - deleted_for_update)
        status, _ = update_stateful_set_status(sts, status, V1_16, pod_control, None)
        error = first_failure(decisions)
        if error is None:  # a failed status write ends UpdateStatefulSet before truncateHistory
            live = {current, update} | {p.revision for p in snap.pods}
            for d in _truncate(snap.sts, revisions, live):
                if (error := pod_control.request(d)) is not None:
                    break
        return SyncPlan(decisions=tuple(decisions), status=status, current_revision=current,
                        update_revision=update, collision_count=collisions,
                        error=first_failure(decisions))

    if sts.deletion_timestamp is not None:
        return finish()

    # The replica loop: ordinals 0 .. replicas-1.
    creates = 0
    for i in range(n):
        pod = slots[i]
        kw = {"step": STEP_REPLICAS, "slot": i}
        old_failed: Pod | None = None
        if P.is_failed(pod):
            again = " again (the API server accepts a repeated delete)" if P.is_terminating(pod) else ""
            error = pod_control.delete_stateful_pod(_d(
                "delete", pod.name, "failed", f"{pod.name} is Failed: delete it{again} and create its replacement "
                "in the same pass (v1.16 recreates a Failed pod at once).", "failed", payload=pod, **kw))
            if error is not None:
                return failed(error)
            counts.revision(pod.revision, -1)
            counts.replicas -= 1
            old_failed = pod
            pod = slots[i] = new_pod(i)
        if not P.is_created(pod):
            claims = _missing_claims(sts, pod, snap.claims, i, "before the pod", "create-pvc")
            if old_failed is None:
                create = _d("create", pod.name, "missing",
                            f"{pod.name} does not exist: create it at revision {pod.revision}.",
                            "create", payload=pod, **kw)
            else:
                create = (_d(
                    "create", pod.name, "missing",
                    f"Create the replacement {pod.name} at revision {pod.revision} right away. If the "
                    f"old {pod.name} is still terminating (graceful deletion), the API server answers "
                    "AlreadyExists: the sync ends with an error, writes no status, and is retried "
                    "with backoff until the old pod is gone.",
                    "recreate", payload=pod, **kw))
            if (error := pod_control.create_stateful_pod(claims, create, [])) is not None:
                return failed(error)
            counts.replicas += 1
            counts.revision(pod.revision, +1)
            creates += 1
            if monotonic or over_create_budget(creates, len(snap.pods)):
                return finish()
            continue  # burst: no more work on this slot in this pass
        if P.is_terminating(pod) and monotonic:
            decisions.append(_d("wait", pod.name, "terminating",
                                f"StatefulSet is waiting for Pod {pod.name} to terminate.",
                                "terminating", **kw))
            return finish()
        if not P.is_running_and_ready(pod) and monotonic:
            why = (f" ({pod.phase}: v1.16 does not replace Succeeded pods)"
                   if pod.phase == "Succeeded" else "")
            decisions.append(_d("wait", pod.name, "not-running-ready",
                                f"StatefulSet is waiting for Pod {pod.name} to be Running and Ready{why}.",
                                "not-running-ready", **kw))
            return finish()
        identity_ok, storage_ok = P.identity_matches(sts, pod), P.storage_matches(sts, pod)
        if identity_ok and storage_ok:
            continue
        claims = [] if storage_ok else _missing_claims(sts, pod, snap.claims, i, "while restoring its storage",
                                                       "identity-pvc")
        what = ([f"label {P.POD_NAME_LABEL}"] if not identity_ok else []) + (
            ["claim volumes"] if not storage_ok else [])
        # updateIdentity gives the pod the name its ordinal makes (web-00 is written as web-0)
        fixed = replace(pod, name=P.get_pod_name(sts.name, pod.ordinal),
                        labels=P.update_identity(sts, pod, pod_index_label=False),
                        spec=P.update_storage(sts, pod) if not storage_ok else pod.spec)
        error = pod_control.update_stateful_pod(claims, [], _d(
            "update", pod.name, "identity", f"{pod.name} lost its identity ({' and '.join(what)}); restore it.",
            "identity", payload=fixed, **kw))
        if error is not None:
            return failed(error)

    # Scale down: highest ordinal first.
    for k in range(len(condemned) - 1, -1, -1):
        pod = condemned[k]
        kw = {"step": STEP_CONDEMNED, "slot": k}
        if P.is_terminating(pod):
            if monotonic:
                decisions.append(_d("wait", pod.name, "terminating",
                                    f"StatefulSet is waiting for Pod {pod.name} to terminate prior to "
                                    "scale down.", "condemned-terminating", **kw))
                return finish()
            continue
        if not P.is_running_and_ready(pod) and monotonic and pod is not first_unhealthy:
            blocker = first_unhealthy.name if first_unhealthy is not None else "?"
            decisions.append(_d("wait", pod.name, "scale-down-blocked",
                                f"{pod.name} is not Running and Ready: StatefulSet is waiting for Pod "
                                f"{blocker} to be Running and Ready prior to scale down.",
                                "scale-down-blocked", **kw))
            return finish()
        error = pod_control.delete_stateful_pod(_d(
            "delete", pod.name, "scale-down", f"{pod.name} is outside the ordinal range: delete it for scale down.",
            "scale-down", payload=pod, **kw))
        if error is not None:
            return failed(error)
        counts.revision(pod.revision, -1)
        if monotonic:
            return finish()

    if sts.spec.update_strategy == "OnDelete":
        return finish()

    # Rolling update: from the top down to the partition, one pod per sync.
    update_min = sts.spec.rolling_update.partition if sts.spec.rolling_update is not None else 0
    for target in range(n - 1, update_min - 1, -1):
        pod = slots[target]
        kw = {"step": STEP_UPDATE, "slot": target}
        if pod.revision != update and not P.is_terminating(pod):
            error = pod_control.delete_stateful_pod(_d(
                "delete", pod.name, "update", f"{pod.name} is at revision {pod.revision or '?'}, not {update}: "
                "delete it for update.", "update", payload=pod, **kw))
            if error is not None:
                return failed(error)
            return finish(deleted_for_update=1)  # status.CurrentReplicas--
        if not P.is_healthy(pod):
            decisions.append(_d("wait", pod.name, "update-unavailable",
                                f"StatefulSet is waiting for Pod {pod.name} to update (it is not "
                                "Running, Ready and alive).", "update-unhealthy", **kw))
            return finish()
    return finish()


def _truncate(sts: StatefulSet, revisions, live: set[str]) -> list[Decision]:
    """Deletions of non-live *revisions* (sorted) beyond the limit (v1.16 ``truncateHistory``)."""
    limit = sts.spec.revision_history_limit
    history = [r for r in revisions if r.name not in live]
    if len(history) <= limit:
        return []
    if limit < 0:
        return [Decision(action="error", pod=None, reason="negative-history-limit",
                         message=f"revisionHistoryLimit is {limit}: the v1.16 truncateHistory slices "
                                 "its list past the end and the controller panics on every sync "
                                 "(fixed upstream by kubernetes#129301).",
                         rule=RULES_V116["history-panic"], step=STEP_HISTORY,
                         error=f"panic: revisionHistoryLimit {limit} < 0")]
    return [Decision(action="delete-revision", pod=None, reason="history-limit",
                     message=f"Revision {r.name} (number {r.revision}) is beyond "
                             f"revisionHistoryLimit={limit}: delete it.",
                     rule=RULES["truncate"], target=r.name, step=STEP_HISTORY, payload=r)
            for r in history[: len(history) - limit]]
