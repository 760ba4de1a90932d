"""The v1.16 controller's algorithm (≈ ``stateful_set_control.go``, 1.14–1.20 line).

Most walkthroughs of the StatefulSet controller's source describe this
release.  Its :func:`update_stateful_set` keeps the contract of
:func:`stsedu.controller.stateful_set_control.update_stateful_set`: a :class:`~stsedu.controller.stateful_set_control.Snapshot`
and a pod control in, a :class:`~stsedu.controller.decisions.SyncPlan` out, the requests made
through the pod control in the order the Go code makes them (stopping at the first that fails, as
v1.16 does even for Parallel sets), with the same action/reason vocabulary.

In v1.16 ``updateStatefulSet`` is one function with one loop over the
ordinal range (no ``processReplica``, ``processCondemned`` or
``slowStartBatch``: PR #117865, v1.28).  It is the profile rule ``Profile.update_in_steps``
switched off (the one rule that is a whole function).  What it does differently from the newest controller
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
  not ``spec.replicas``; a sync that fails writes no status at all;
* ``truncateHistory`` has no guard for a negative ``revisionHistoryLimit``:
  the Go controller panics (kubernetes#129018); here the sync fails.

Revisions (``getStatefulSetRevisions``), naming, identity and storage
matching are the same as in the newest release and are reused from
:mod:`.stateful_set_control`, :mod:`.stateful_set_utils` and :mod:`.history`, with the
profile's rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from .stateful_set_utils import (POD_NAME_LABEL, allows_burst, apply_revision, identity_matches, is_created,
                                 is_failed, is_healthy, is_running_and_ready, is_terminating,
                                 new_versioned_stateful_set_pod, storage_matches)
from .history import sort_revisions
from ..i18n import N_
from .stateful_set_control import (PodControl, Snapshot, get_stateful_set_revisions, list_revisions,
                                   update_stateful_set_status)
from .decisions import (RULES, STEP_CONDEMNED, STEP_HISTORY, STEP_REPLICAS, STEP_UPDATE,
                        Decision, SyncPlan, Why)
from ..api.errors import WrappedError
from .stateful_pod_control import Error
from ..api.objects import Pod, StatefulSet, StatefulSetStatus
from ..api.profiles import Profile

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


def _row(*, action: str, pod: str | None, reason: str, message: str, rule: str, **kw) -> Decision:
    """A row, its fields named, whose rule is ``RULES_V116[rule]``."""
    return Decision(action=action, pod=pod, reason=reason, message=message, rule=RULES_V116[rule], **kw)


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


def _why(key: str, reason: str, message: str, **kw) -> Why:
    """What a v1.16 step says of a request it hands the pod control (its rule from :data:`RULES_V116`)."""
    return Why(reason=reason, message=message, rule=RULES_V116[key], **kw)


def update_stateful_set(snap: Snapshot, profile: Profile, gates: Mapping[str, bool] | None,
                        pod_control: PodControl) -> SyncPlan:
    """One v1.16 sync's work on the set (``UpdateStatefulSet``), its requests through *pod_control*
    (its pod control: the sync's, or ``preview()``'s, which writes nothing).  The pod control creates
    the missing claims as v1.16's did: a claim being deleted is left alone (that check came with
    PVC retention, which the v1.16 profile lacks).

    The set control runs it for a profile whose rule ``update_in_steps`` is off (the ``v1.16``
    profile); the steps it shares with today's algorithm (revisions, the new pod, the status write)
    and the pod control read *profile*'s other rules.  *gates* are accepted for the contract and
    ignored: v1.16 knows none of stsedu's feature gates.  Spec fields newer than v1.16
    (minReadySeconds, ordinals, PVC retention policy, maxUnavailable) are ignored even if *snap*
    carries them.  A failed request ends the
    sync: no status is written and no history truncated (v1.16 returned at once).
    """
    sts = snap.sts
    decisions = pod_control.log
    revisions = sort_revisions(list_revisions(sts, snap.namespace_revisions.values()))
    error, current_rev, update_rev, collisions = get_stateful_set_revisions(snap, revisions, profile, pod_control)
    if error is not None:
        return SyncPlan(decisions=tuple(decisions), status=None, collision_count=collisions, error=str(error))
    current, update = current_rev.name, update_rev.name
    current_set = apply_revision(sts, current_rev)  # the set at its current and at its update revision
    update_set = current_set if update_rev.name == current_rev.name else apply_revision(sts, update_rev)
    n = sts.spec.replicas
    counts = _Counts(current, update)

    # Count every claimed pod, then split them by ordinal (start is always 0 in v1.16).
    replicas: dict[int, Pod] = {}  # sparse: memory follows the pods, not spec.replicas
    condemned: list[Pod] = []
    for pod in snap.pods:
        counts.replicas += 1
        if is_running_and_ready(pod):
            counts.ready += 1
        if is_created(pod) and not is_terminating(pod):
            counts.revision(pod.revision, +1)
        if 0 <= pod.ordinal < n:
            replicas[pod.ordinal] = pod
        elif pod.ordinal >= n:
            condemned.append(pod)

    def new_pod(ordinal: int) -> Pod:  # newVersionedStatefulSetPod
        return new_versioned_stateful_set_pod(current_set, update_set, current, update, ordinal, profile)

    class _Slots(dict):  # slot i: the pod with ordinal i, or a new one made when first looked at
        def __missing__(self, i: int) -> Pod:
            pod = self[i] = new_pod(i)
            return pod

    slots = _Slots(replicas)
    condemned.sort(key=lambda p: p.ordinal)
    # the first unhealthy pod: an empty slot (a new pod) ends the search, so this walk is
    # bounded by the pods that exist
    first_unhealthy = next((slots[i] for i in range(n) if not is_healthy(slots[i])), None)
    if first_unhealthy is None:
        first_unhealthy = next((p for p in condemned if not is_healthy(p)), None)
    monotonic = not allows_burst(sts)

    def failed(error: Error) -> SyncPlan:
        """A request failed: v1.16's updateStatefulSet returns, UpdateStatefulSet with it (its text)."""
        return SyncPlan(decisions=tuple(decisions), status=None, current_revision=current,
                        update_revision=update, collision_count=collisions, error=str(error))

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
        status, error = update_stateful_set_status(sts, status, profile, pod_control, None)
        if error is None:  # a failed status write ends UpdateStatefulSet before truncateHistory
            live = {current, update} | {p.revision for p in snap.pods}
            for d in _truncate(snap.sts, revisions, live):
                if d.action == "error":  # the Go controller panics: no request
                    decisions.append(replace(d, applied=False))
                    error = WrappedError(d.error)
                    break
                if (error := pod_control.delete_revision(d)) is not None:
                    break
        return SyncPlan(decisions=tuple(decisions), status=status, current_revision=current,
                        update_revision=update, collision_count=collisions,
                        error=None if error is None else str(error))

    if sts.deletion_timestamp is not None:
        return finish()

    # The replica loop: ordinals 0 .. replicas-1.
    for i in range(n):
        pod = slots[i]
        kw = {"step": STEP_REPLICAS, "slot": i}
        old_failed: Pod | None = None
        if is_failed(pod):
            again = " again (the API server accepts a repeated delete)" if is_terminating(pod) else ""
            pod_control.recorder.event(sts, "Warning", "RecreatingFailedPod",
                                       f"StatefulSet {sts.namespace}/{sts.name} is recreating failed Pod {pod.name}")
            error = pod_control.delete_stateful_pod(sts, pod, _why(
                "failed", "failed", f"{pod.name} is Failed: delete it{again} and create its replacement "
                "in the same pass (v1.16 recreates a Failed pod at once).", **kw))
            if error is not None:
                return failed(error)
            counts.revision(pod.revision, -1)
            counts.replicas -= 1
            old_failed = pod
            pod = slots[i] = new_pod(i)
        if not is_created(pod):
            if old_failed is None:
                create = _why("create", "missing", f"{pod.name} does not exist: create it at revision {pod.revision}.",
                              **kw)
            else:
                create = _why(
                    "recreate", "missing",
                    f"Create the replacement {pod.name} at revision {pod.revision} right away. If the "
                    f"old {pod.name} is still terminating (graceful deletion), the API server answers "
                    "AlreadyExists: the sync ends with an error, writes no status, and is retried "
                    "with backoff until the old pod is gone.", **kw)
            if (error := pod_control.create_stateful_pod(sts, pod, create)) is not None:
                return failed(error)
            counts.replicas += 1
            counts.revision(pod.revision, +1)
            if monotonic:
                return finish()
            continue  # burst: no more work on this slot in this pass
        if is_terminating(pod) and monotonic:
            decisions.append(_row(action="wait", pod=pod.name, reason="terminating",
                                  message=f"StatefulSet is waiting for Pod {pod.name} to terminate.",
                                  rule="terminating", **kw))
            return finish()
        if not is_running_and_ready(pod) and monotonic:
            why = (f" ({pod.phase}: v1.16 does not replace Succeeded pods)"
                   if pod.phase == "Succeeded" else "")
            decisions.append(_row(action="wait", pod=pod.name, reason="not-running-ready",
                                  message=f"StatefulSet is waiting for Pod {pod.name} to be Running and Ready{why}.",
                                  rule="not-running-ready", **kw))
            return finish()
        identity_ok, storage_ok = identity_matches(sts, pod), storage_matches(sts, pod)
        if identity_ok and storage_ok:
            continue
        what = ([f"label {POD_NAME_LABEL}"] if not identity_ok else []) + (
            ["claim volumes"] if not storage_ok else [])
        # UpdateStatefulPod's updateIdentity gives the pod the name its ordinal makes (web-00 is written as web-0)
        error = pod_control.update_stateful_pod(sts, pod, _why(
            "identity", "identity", f"{pod.name} lost its identity ({' and '.join(what)}); restore it.", **kw))
        if error is not None:
            return failed(error)

    # Scale down: highest ordinal first.
    for k in range(len(condemned) - 1, -1, -1):
        pod = condemned[k]
        kw = {"step": STEP_CONDEMNED, "slot": k}
        if is_terminating(pod):
            if monotonic:
                decisions.append(_row(action="wait", pod=pod.name, reason="terminating",
                                      message=f"StatefulSet is waiting for Pod {pod.name} to terminate prior to "
                                              "scale down.",
                                      rule="condemned-terminating", **kw))
                return finish()
            continue
        if not is_running_and_ready(pod) and monotonic and pod is not first_unhealthy:
            blocker = first_unhealthy.name if first_unhealthy is not None else "?"
            decisions.append(_row(action="wait", pod=pod.name, reason="scale-down-blocked",
                                  message=f"{pod.name} is not Running and Ready: StatefulSet is waiting for Pod "
                                          f"{blocker} to be Running and Ready prior to scale down.",
                                  rule="scale-down-blocked", **kw))
            return finish()
        error = pod_control.delete_stateful_pod(sts, pod, _why(
            "scale-down", "scale-down", f"{pod.name} is outside the ordinal range: delete it for scale down.", **kw))
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
        if pod.revision != update and not is_terminating(pod):
            error = pod_control.delete_stateful_pod(sts, pod, _why(
                "update", "update", f"{pod.name} is at revision {pod.revision or '?'}, not {update}: "
                "delete it for update.", **kw))
            if error is not None:
                return failed(error)
            return finish(deleted_for_update=1)  # status.CurrentReplicas--
        if not is_healthy(pod):
            decisions.append(_row(action="wait", pod=pod.name, reason="update-unavailable",
                                  message=f"StatefulSet is waiting for Pod {pod.name} to update (it is not "
                                          "Running, Ready and alive).",
                                  rule="update-unhealthy", **kw))
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
