"""The controller's algorithm (≈ upstream ``stateful_set_control.go``).

:func:`update_stateful_set` (``UpdateStatefulSet``) takes a :class:`Snapshot` (what the informer cache holds at the start of a
sync) and a pod control, and returns a :class:`SyncPlan`: what the sync did, decision by decision,
in the order it did it.  It runs upstream's steps under their names and in their order:
:func:`perform_update` → :func:`get_stateful_set_revisions`, then :func:`update_stateful_set_pods`
(upstream's unexported ``updateStatefulSet``) → :func:`process_replica` for each slot and
``fixPodClaim`` / :func:`process_condemned` for each condemned pod, each through :func:`run_for_all`
(:func:`slow_start_batch` for Parallel sets), then the rolling update (its gate-off loop, or
:func:`update_stateful_set_after_invariant_established`), the status write; :func:`truncate_history`
last.  The steps make their requests through the pod control when they reach them and stop where
upstream's stop when one fails (docs/behaviour.md section 1).  A sync passes the
:class:`~stsedu.controller.stateful_pod_control.StatefulPodControl` over the cluster's object
manager; ``Cluster.preview()`` the same pod control over one that writes nothing
(:mod:`~stsedu.controller.recording_pod_control`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Callable, Mapping

from .stateful_set_utils import (POD_NAME_LABEL, RECREATE_IN_PROGRESS_REASON, allows_burst, apply_revision,
                                 complete_update, get_end_ordinal, get_ordinal, get_pod_name,
                                 get_pod_revision, get_start_ordinal, get_stateful_set_max_unavailable,
                                 identity_matches, inconsistent_status, is_created, is_failed, is_pending,
                                 is_running_and_available, is_running_and_ready, is_terminal_phase,
                                 is_terminating, is_unavailable, min_ready_seconds, new_revision,
                                 new_versioned_stateful_set_pod, next_revision, pod_in_ordinal_range,
                                 set_progressing_condition, storage_matches)
from .decisions import (RULES, STEP_CLAIM, STEP_CLAIMS_FIX, STEP_CONDEMNED, STEP_HISTORY, STEP_RECREATE,
                        STEP_REPLICAS, STEP_REVISIONS, STEP_STATUS, STEP_UPDATE, Decision, SyncPlan, Why,
                        aggregate, status_sentence)
from .decisions import decision
from ..api.defaults import default_pod_template
from ..api.errors import APIError, WrappedError
from ..api.objects import (ControllerRevision, Pod, StatefulSet, StatefulSetSpec, StatefulSetStatus,
                           controller_of)
from ..api.profiles import CURRENT, Profile
from .snapshot import Snapshot
from .stateful_set_status_updater import RealStatefulSetStatusUpdater
from .stateful_pod_control import Error, StatefulPodControl
from .history import (adoption_refused, create_controller_revision, equal_revision, find_equal, history_to_truncate,
                      sort_revisions)


PodControl = StatefulPodControl
"""The pod control the steps are given: over the cluster's object manager (a sync), or over one that
records and writes nothing (``preview()``)."""


@dataclass(frozen=True, slots=True)
class DefaultStatefulSetControl:
    """A controller's set control (``defaultStatefulSetControl``): its ``UpdateStatefulSet``
    (:func:`update_stateful_set`, or the v1.16 profile's) and the status updater the pod control of
    each sync writes through (that pod control also carries the controller history)."""

    update_stateful_set: Callable[..., SyncPlan]
    status_updater: RealStatefulSetStatusUpdater


def new_default_stateful_set_control(update: Callable[..., SyncPlan], status_updater: RealStatefulSetStatusUpdater
                                     ) -> DefaultStatefulSetControl:
    """The set control a controller is built with (``NewDefaultStatefulSetControl``)."""
    return DefaultStatefulSetControl(update, status_updater)


# ------------------------------------------------------------------ revisions


def list_revisions(sts: StatefulSet, revisions) -> list[ControllerRevision]:
    """The set's revisions among *revisions* (the namespace's, in the lister's order): those its
    selector matches that it controls or nobody does (``ListRevisions``: the controller history's
    ``ListControllerRevisions``).  Unsorted: :func:`update_stateful_set` sorts them, as upstream's
    ``UpdateStatefulSet`` does; ``adoptOrphanRevisions`` adopts the orphans in the lister's order."""
    out = []
    for r in revisions:
        ref = controller_of(r.owner_references)
        if (ref is None or ref.uid == sts.uid) and sts.spec.selects(r.labels):
            out.append(r)
    return out


def get_stateful_set_revisions(snap: Snapshot, revisions: list[ControllerRevision], profile: Profile,
                               pod_control: PodControl
                               ) -> tuple[Error | None, ControllerRevision | None, ControllerRevision | None, int]:
    """Current and update revisions, and the requests that make them (``getStatefulSetRevisions``,
    called by :func:`perform_update` with the set's *revisions*, sorted; the kit's pod control
    carries upstream's controllerHistory).

    The candidate revision holds the live ``spec.template``.  If the newest revision holds the same
    template it stays the update revision; if an older one does, that one is renumbered to the
    next number (a rollback, same name); if the newest, written again as this release writes it,
    is the candidate (:func:`set_matches_latest_existing_revision`), it stays too; otherwise a new
    revision is created (:func:`~.history.create_controller_revision`).  The current revision is
    the one named by ``status.currentRevision``, or the update revision when there is none.
    Returns (the error of the request that failed or None, current revision, update revision,
    collisionCount); the revisions are None when a request failed.
    """
    sts = snap.sts
    collisions = sts.status.collision_count or 0
    candidate = new_revision(sts, next_revision(revisions), collisions, profile.null_creation_timestamp)
    equal = find_equal(revisions, candidate)
    if equal and equal_revision(revisions[-1], equal[-1]):
        update = revisions[-1]
    elif equal:
        old = equal[-1]
        update = replace(old, revision=candidate.revision)
        error = pod_control.update_revision(decision(
            action="update-revision", pod=None, reason="rollback",
            message=f"The template equals revision {old.name} (number {old.revision}); "
                    f"it becomes the update revision again, renumbered {candidate.revision}.",
            rule="rollback", target=old.name, step=STEP_REVISIONS, payload=update))
        if error is not None:
            return error, None, None, collisions
    elif revisions and set_matches_latest_existing_revision(sts, candidate, revisions[-1], profile):
        update = revisions[-1]
    else:
        error, update, collisions = create_controller_revision(sts.name, candidate, snap.namespace_revisions,
                                                               collisions, bool(revisions), pod_control)
        if error is not None:
            return error, None, None, collisions
    current = next((r for r in revisions if r.name == sts.status.current_revision), None)
    if current is None:
        current = update
    return None, current, update, collisions


def set_matches_latest_existing_revision(sts: StatefulSet, proposed: ControllerRevision,
                                        latest: ControllerRevision, profile: Profile) -> bool:
    """True if *latest*, applied to the set (:func:`~.stateful_set_utils.apply_revision`), defaulted
    and written as a revision again (``newRevision``, no collision count), equals *proposed*
    (``setMatchesLatestExistingRevision``, gate ``StatefulSetSemanticRevisionComparison``, on by
    default since v1.34.2): a revision an older release wrote in another serialisation (up to
    v1.33, ``creationTimestamp: null``) is still the set's template, so an upgrade replaces no
    pod (kubernetes#134773).  Upstream remembers each answer by the set's uid and generation and
    the revision's resourceVersion; the kit works it out each time.  Off where the profile's
    release lacks it (v1.16)."""
    if not profile.semantic_revision_comparison:
        return False
    latest_set = apply_revision(sts, latest)
    template = copy.deepcopy(dict(latest_set.spec.template))
    default_pod_template(template)
    latest_set = replace(latest_set, spec=StatefulSetSpec.from_manifest({**latest_set.spec.raw, "template": template}))
    reconstructed = new_revision(latest_set, -1, None, profile.null_creation_timestamp)
    return equal_revision(proposed, reconstructed)


def adopt_orphan_revisions(sts: StatefulSet, orphans, history, log: list[Decision]) -> str | None:
    """Adopt each of *orphans* in turn (``AdoptOrphanRevisions``: the controller *history*'s
    ``AdoptControllerRevision``, a patch that adds the set as controller); the first
    that fails ends it, and its error is returned (None when all were adopted).  A revision that
    has a controller (v1.16 hands over the set's own ones too) is refused before any request."""
    for r in orphans:
        if (error := adoption_refused(r)) is not None:
            log.append(Decision("error", None, "owned-revision", f"Revision {r.name} already has a controller: "
                                "the adoption is refused before any request, and the sync stops here.",
                                RULES["adopt-revision"], target=r.name, step=STEP_CLAIM, applied=False, error=error))
            return error
        d = Decision("adopt", None, "orphan-revision",
                     f"Revision {r.name} has no owner and matches the selector: adopt it.",
                     RULES["adopt-revision"], target=r.name, step=STEP_CLAIM, payload=r)
        try:
            history.adopt_revision(d)
        except APIError as e:
            log.append(replace(d, applied=False, error=str(e)))
            return str(e)
        log.append(replace(d, applied=True))
    return None


# --------------------------------------------------------------------- status


def compute_replica_status(pods, min_ready_seconds: int, now: float, current: str, update: str
                           ) -> tuple[int, int, int, int, int]:
    """(replicas, ready, available, current, updated) over *pods* (``computeReplicaStatus``)."""
    replicas = ready = available = cur = upd = 0
    for pod in pods:
        if is_created(pod):
            replicas += 1
        if is_running_and_ready(pod):
            ready += 1
            if is_running_and_available(pod, min_ready_seconds, now):
                available += 1
        if is_created(pod) and not is_terminating(pod):
            revision = get_pod_revision(pod)
            if revision == current:
                cur += 1
            if revision == update:
                upd += 1
    return replicas, ready, available, cur, upd


def update_status(sts: StatefulSet, pods, now: float, current: str, update: str, collisions: int,
                  profile: Profile = CURRENT) -> StatefulSetStatus:
    """The status ``updateStatefulSet`` starts from, counted over *pods* (``updateStatus``)."""
    r, ready, avail, cur, upd = compute_replica_status(pods, min_ready_seconds(sts, profile), now,
                                                       current, update)
    return StatefulSetStatus(observed_generation=sts.generation, replicas=r, ready_replicas=ready,
                             available_replicas=avail, current_replicas=cur, updated_replicas=upd,
                             current_revision=current, update_revision=update,
                             collision_count=collisions,
                             conditions=sts.status.conditions if profile.status_conditions else ())


# ----------------------------------------------------------- processReplica


def process_replica(sts: StatefulSet, pod: Pod, slot: int, monotonic: bool, snap: Snapshot,
                    profile: Profile, mrs: int, pod_control: PodControl
                    ) -> tuple[bool, Error | None]:
    """One slot of the ordinal range (``processReplica``): whether to stop, and the error that stopped
    it (*mrs*: the set's minReadySeconds, read once per sync).  A wait goes to the pod control's log,
    where upstream logs it.  Its requests go through *pod_control*: ``DeleteStatefulPod`` (a Failed
    or Succeeded pod), ``CreateStatefulPod`` (a claim being deleted fails it),
    ``createMissingPersistentVolumeClaims`` (Pending), ``UpdateStatefulPod``."""
    log = pod_control.log
    name = pod.name
    # a failed pod (and, since v1.31, a succeeded one) is deleted, to be recreated
    if is_terminal_phase(pod) if profile.succeeded_restarts else is_failed(pod):
        if pod.deletion_timestamp is None:
            error = pod_control.delete_stateful_pod(sts, pod, Why(
                reason="failed", message=f"{name} is {pod.phase}: delete it; it is recreated once it is gone.",
                rule=RULES["failed"], step=STEP_REPLICAS, slot=slot))
            return True, error
        log.append(decision(action="wait", pod=name, reason="terminating",
                            message=f"{name} ({pod.phase}) is terminating; wait for it to be gone.",
                            rule="failed-terminating", step=STEP_REPLICAS, slot=slot))
        return True, None
    # a missing pod is created, with its claims first
    if not is_created(pod):
        if profile.pvc_retention and pod_control.pod_claim_is_stale(sts, pod):
            log.append(decision(action="wait", pod=name, reason="stale-claim",
                                message=f"A claim of {name} still belongs to the previous {name} and is being "
                                        "removed; wait before creating the pod.",
                                rule="stale-claim", step=STEP_REPLICAS, slot=slot))
            return True, None
        error = pod_control.create_stateful_pod(sts, pod, Why(
            reason="missing", message=f"{name} does not exist: create it at revision {pod.revision}.",
            rule=RULES["create"], step=STEP_REPLICAS, slot=slot))
        if error is not None or monotonic:
            return True, error
        # Parallel: upstream goes on with the rest of processReplica on the pod it just
        # created, checking its claims as the sync's cache had them (before the fix above),
        # so claims whose refs needed fixing are fixed again and the pod is written (unchanged).
        if not pod_control.claims_match_retention_policy(sts, pod):
            error = pod_control.update_stateful_pod(sts, pod, Why(
                reason="identity", message=f"The owner refs of {name}'s claims did not fit the retention policy "
                f"when this sync began; they are fixed again and {name} is updated (unchanged).",
                rule=RULES["identity"], step=STEP_REPLICAS, slot=slot))
            return error is not None, error
        return False, None
    # createMissingPersistentVolumeClaims: a Pending pod's missing claims, then their owner refs
    if is_pending(pod) and profile.pvc_retention:
        error = pod_control.create_missing_persistent_volume_claims(sts, pod, Why(
            reason="missing", message="", rule=RULES["pending-pvc"], step=STEP_REPLICAS, slot=slot))
        if error is not None:
            return True, error
    # OrderedReady: wait for the pod to be gone, Running and Ready, Available
    if is_terminating(pod) and monotonic:
        log.append(decision(action="wait", pod=name, reason="terminating",
                            message=f"{name} is terminating; wait until it is gone.", rule="terminating",
                            step=STEP_REPLICAS, slot=slot))
        return True, None
    if not is_running_and_ready(pod) and monotonic:
        log.append(decision(action="wait", pod=name, reason="not-running-ready",
                            message=f"{name} is not Running and Ready; wait before going on.",
                            rule="not-running-ready", step=STEP_REPLICAS, slot=slot))
        return True, None
    if not is_running_and_available(pod, mrs, snap.now) and monotonic:
        log.append(decision(action="wait", pod=name, reason="not-available",
                            message=f"{name} is Ready but not yet Available (minReadySeconds={mrs}); wait.",
                            rule="not-available", step=STEP_REPLICAS, slot=slot))
        return True, None
    # identityMatches, storageMatches, ClaimsMatchRetentionPolicy: repair what does not
    identity_ok = identity_matches(sts, pod)
    storage_ok = storage_matches(sts, pod)
    retention_ok = pod_control.claims_match_retention_policy(sts, pod)
    if identity_ok and storage_ok and retention_ok:
        return False, None
    # UpdateStatefulPod: any mismatch makes the pod "dirty", so it is written even
    # when only its claims' owner refs were fixed (the pod itself is unchanged).
    # updateIdentity also gives the pod the name its ordinal makes (web-00 is written as web-0)
    what = []
    if (canonical := get_pod_name(sts.name, pod.ordinal)) != name:
        what.append(f"its name (its ordinal makes it {canonical}, and the update goes to {canonical})")
    elif not identity_ok:
        what.append(f"label {POD_NAME_LABEL}")
    if not storage_ok:
        what.append("claim volumes")
    if what:
        message = f"{name} lost its identity ({' and '.join(what)}); restore it."
    else:
        message = (f"The owner refs of {name}'s claims did not fit the retention policy; "
                   f"they were fixed and {name} is updated (unchanged).")
    error = pod_control.update_stateful_pod(sts, pod, Why(reason="identity", message=message, rule=RULES["identity"],
                                                          step=STEP_REPLICAS, slot=slot))
    return error is not None, error


# ----------------------------------------------------------- processCondemned


def process_condemned(sts: StatefulSet, pod: Pod, slot: int, first_unavailable: Pod | None,
                      monotonic: bool, now: float, profile: Profile,
                      pod_control: PodControl) -> tuple[list[Decision], bool, Error | None]:
    """Waits for one pod outside the ordinal range, highest first, whether to stop, and the error
    (``processCondemned``); the delete goes through *pod_control* (``DeleteStatefulPod``)."""
    name = pod.name
    kw = {"step": STEP_CONDEMNED, "slot": slot}
    mrs = min_ready_seconds(sts, profile)
    if is_terminating(pod):
        if monotonic:
            return [decision(action="wait", pod=name, reason="terminating",
                             message=f"{name} is terminating for scale down; wait until it is gone.",
                             rule="condemned-terminating", **kw)], True, None
        return [], False, None
    blocker = first_unavailable.name if first_unavailable is not None else None
    if not is_running_and_ready(pod) and monotonic and pod is not first_unavailable:
        return [decision(action="wait", pod=name, reason="scale-down-blocked",
                         message=f"{name} is not Running and Ready and {blocker} is the first unhealthy pod; "
                                 f"scale down waits for {blocker}.",
                         rule="scale-down-blocked", **kw)], True, None
    if (not is_running_and_available(pod, mrs, now) and monotonic
            and pod is not first_unavailable):
        return [decision(action="wait", pod=name, reason="scale-down-blocked",
                         message=f"{name} is not Available and {blocker} is the first unavailable pod; "
                                 f"scale down waits for {blocker}.",
                         rule="scale-down-blocked", **kw)], True, None
    error = pod_control.delete_stateful_pod(sts, pod, Why(
        reason="scale-down", message=f"{name} is outside the ordinal range: delete it (highest ordinal first).",
        rule=RULES["scale-down"], **kw))
    return [], True, error


# ------------------------------------------------------------ rolling update


def update_stateful_set_after_invariant_established(sts: StatefulSet, replicas: list[Pod], update: str,
                                                    now: float, profile: Profile,
                                                    pod_control: PodControl, log: list[Decision],
                                                    status: StatefulSetStatus,
                                                    unavailable: list[bool] | None = None
                                                    ) -> tuple[StatefulSetStatus, Error | None]:
    """Delete old-revision pods within the maxUnavailable budget (``updateStatefulSetAfterInvariantEstablished``,
    called by :func:`update_stateful_set_pods` when the MaxUnavailableStatefulSet gate is on).

    *replicas* are the pods of the ordinal range by index (placeholders for
    pods not created yet).  ``unavailable`` counts every slot, below the
    partition too.  OrderedReady (and Parallel before v1.37): nothing is
    deleted while ``unavailable >= maxUnavailable``; otherwise the old-revision,
    non-terminating pods from the top down to the partition are deleted, up to
    ``maxUnavailable - unavailable`` of them.  Parallel in v1.37 (PR #137666):
    old pods that are already unavailable do not block; they are all deleted
    first (no cap), then healthy old pods within
    ``maxUnavailable - unavailable``.  A wait is recorded when old pods remain
    in range but none could be deleted.  *unavailable*, when given, says for each slot whether
    its pod is unavailable (``isUnavailable``), as the sync worked it out before processReplica.
    The deletes go through *pod_control* (``DeleteStatefulPod``), each taking one off
    ``status.currentReplicas`` once made; the first that fails ends the update.  The wait goes to
    *log*.  Returns (the status, the error or None).
    """
    ru = sts.spec.rolling_update
    update_min = ru.partition if ru else 0
    max_u = get_stateful_set_max_unavailable(ru.max_unavailable if ru else None, sts.spec.replicas)
    mrs = min_ready_seconds(sts, profile)
    if unavailable is None:
        unavailable = [is_unavailable(p, mrs, now) for p in replicas]
    n_unavailable = sum(unavailable)

    def old(i: int) -> bool:
        pod = replicas[i]
        return get_pod_revision(pod) != update and not is_terminating(pod)

    in_range = [i for i in range(len(replicas) - 1, update_min - 1, -1) if old(i)]
    parallel = sts.spec.pod_management_policy == "Parallel" and profile.parallel_max_unavailable_fix
    # unavailablePodsNeedingUpdate: every slot, not only those above the partition
    needing = sum(1 for i in range(len(replicas)) if unavailable[i] and old(i)) if parallel else 0
    if n_unavailable >= max_u and needing == 0:
        log.extend(_budget_wait(replicas, in_range, n_unavailable, max_u))
        return status, None
    deleted = 0

    def delete(i: int, why: str) -> Error | None:
        nonlocal deleted, status
        pod = replicas[i]
        error = pod_control.delete_stateful_pod(sts, pod, Why(
            reason="update",
            message=f"{pod.name} is at revision {pod.revision or '?'}, not {update}: delete it ({why}).",
            rule=RULES["mu-update"], step=STEP_UPDATE, slot=i))
        if error is None:
            status = replace(status, current_replicas=status.current_replicas - 1)
            deleted += 1
        return error

    if parallel:
        # phase 1: every old pod that is not Available anyway (no cap: it costs no budget)
        for i in [i for i in in_range if not is_running_and_available(replicas[i], mrs, now)]:
            if (error := delete(i, "it is already unavailable, so replacing it costs nothing")) is not None:
                return status, error
        # phase 2: healthy old pods, within what the budget has left
        budget = max_u - n_unavailable
        for i in in_range:
            if budget <= 0:
                break
            if not unavailable[i]:
                if (error := delete(i, f"{n_unavailable} unavailable, maxUnavailable={max_u}")) is not None:
                    return status, error
                budget -= 1
    else:
        for i in in_range[:max_u - n_unavailable]:
            if (error := delete(i, f"{n_unavailable} unavailable, maxUnavailable={max_u}")) is not None:
                return status, error
    if not deleted:
        log.extend(_budget_wait(replicas, in_range, n_unavailable, max_u))
    return status, None


def _budget_wait(replicas, in_range, n_unavailable, max_u) -> list[Decision]:
    """A ``max-unavailable`` wait on the highest old pod in range, or nothing if there is none."""
    if not in_range:
        return []
    pod = replicas[in_range[0]]
    return [decision(action="wait", pod=pod.name, reason="max-unavailable",
                     message=f"{n_unavailable} pod(s) are unavailable and maxUnavailable is {max_u}: "
                             f"{pod.name} waits to be updated.",
                     rule="max-unavailable", step=STEP_UPDATE, slot=in_range[0])]


# --------------------------------------------------------- runForAll, slowStartBatch


MAX_BATCH_SIZE = 500
"""``MaxBatchSize``: the largest batch :func:`slow_start_batch` runs."""


def slow_start_batch(initial_batch_size: int, remaining: int, fn) -> tuple[int, list[Error]]:
    """Call ``fn(0)``, ``fn(1)``, ... in batches of *initial_batch_size*, then twice as many each time
    (at most :data:`MAX_BATCH_SIZE`), and stop after the first batch in which a call failed
    (``slowStartBatch``).

    *fn* returns ``(should_exit, error)``; only the error counts here.  Upstream runs the calls
    of a batch in goroutines at once; the kit runs them one after the other in index order, so the
    same seed gives the same trace.  Returns (calls that succeeded, the errors of the failed
    batch, which upstream aggregates into one).
    """
    successes = 0
    j = 0
    batch_size = min(remaining, initial_batch_size)
    while batch_size > 0:
        errors = []
        for k in range(j, j + batch_size):
            _, error = fn(k)
            if error is not None:
                errors.append(error)
        j += batch_size
        successes += batch_size - len(errors)
        if errors:
            return successes, errors
        remaining -= batch_size
        batch_size = min(2 * batch_size, remaining, MAX_BATCH_SIZE)
    return successes, []


def run_for_all(count: int, fn, monotonic: bool) -> tuple[bool, Error | None]:
    """Call *fn* for the slots ``0 .. count-1`` (``runForAll``): one after the other, stopping at the
    first that says to exit or fails (monotonic, OrderedReady), else in :func:`slow_start_batch`
    batches (burst, Parallel).  Returns (should exit, error): in burst, the failed batch's errors
    aggregated as ``NewAggregate`` does (one error as it is).

    Upstream passes the pod list and counts it; the kit passes the count, because a set's
    ordinal range can be 2147483647 slots long and only the slots a sync reaches are made.
    """
    if monotonic:
        for i in range(count):
            should_exit, error = fn(i)
            if should_exit or error is not None:
                return True, error
    else:
        _, errors = slow_start_batch(1, count, fn)
        if len(errors) == 1:
            return True, errors[0]
        if errors:
            return True, WrappedError(aggregate([str(e) for e in errors]))
    return False, None


# ------------------------------------------------------------ Recreate strategy

RECREATE_GATE = "StatefulSetRecreateStrategy"


def recreate_delete_and_wait(sts: StatefulSet, update: str, replicas: Mapping[int, Pod], condemned: list[Pod],
                             status: StatefulSetStatus, now: float, pod_control: PodControl,
                             log: list[Decision]) -> tuple[bool, StatefulSetStatus, Error | None]:
    """The first two phases of a Recreate update (``recreateDeleteAndWait``): delete every created
    pod not at *update* -- replicas (by slot) and condemned pods alike, all at once
    (``runForAll`` in burst mode, whatever the pod management policy) -- then wait until none of
    them is left.

    Deletes through *pod_control* (``DeleteStatefulPod``) in :func:`run_for_all`'s burst batches, records
    the waits in *log*; returns (whether every old-revision pod is gone, *status*, the error of a
    failed delete): while one is left the status gets ``Progressing`` True, RecreateInProgress,
    "Deleting old revision pods", and ``updateStatefulSet`` creates nothing; a failed delete ends the
    sync with the status as it was.  Slots number the replicas from 0 and the condemned pods after
    ``spec.replicas``, as upstream's concatenated slice does (only the slots up to the last pod are
    visited: the range may be 2147483647 slots long).
    """
    n = sts.spec.replicas
    slots = {i: replicas[i] for i in replicas}
    slots.update((n + j, pod) for j, pod in enumerate(condemned))
    in_progress = False

    def process_recreate_fn(slot: int) -> tuple[bool, Error | None]:
        nonlocal in_progress
        pod = slots.get(slot)
        if pod is None or not is_created(pod) or get_pod_revision(pod) == update:
            return False, None
        in_progress = True
        if is_terminating(pod):
            log.append(decision(action="wait", pod=pod.name, reason="recreate-terminating",
                                message=f"{pod.name} (revision {pod.revision or '?'}) is terminating; Recreate creates "
                                        "no new pod until every old-revision pod is gone.",
                                rule="recreate-terminating", step=STEP_RECREATE, slot=slot))
            return False, None
        # upstream logs "Recreate: deleting old revision pod"
        return True, pod_control.delete_stateful_pod(sts, pod, Why(
            reason="recreate", message=f"{pod.name} is at revision {pod.revision or '?'}, not {update}: "
            "Recreate deletes every old-revision pod at once.", rule=RULES["recreate"], step=STEP_RECREATE,
            slot=slot))

    _, error = run_for_all(max(slots) + 1 if slots else 0, process_recreate_fn, False)
    if error is not None:
        return False, status, error
    if in_progress:
        return False, set_progressing_condition(status, "True", RECREATE_IN_PROGRESS_REASON,
                                                  "Deleting old revision pods", now), None
    return True, status, None


def unknown_strategy(sts: StatefulSet) -> tuple[list[Decision], WrappedError]:
    """``updateStatefulSet`` with a Recreate set and the gate StatefulSetRecreateStrategy off: a
    Warning UnknownStrategy and a failed sync, before any status is counted.  Returns the rows (the
    warning, the failed wait) and the sync's error."""
    error = (f"statefulset {sts.namespace}/{sts.name} uses Recreate strategy but feature gate "
             f"{RECREATE_GATE} is disabled")
    return [decision(action="warn", pod=None, reason="unknown-strategy",
                     message="The set uses the Recreate strategy but its feature gate is "
                             "off: the controller does nothing for it (Warning UnknownStrategy).",
                     rule="unknown-strategy", step=STEP_RECREATE, payload=error),
            decision(action="wait", pod=None, reason="unknown-strategy", message=f"The sync fails: {error}.",
                     rule="unknown-strategy", step=STEP_RECREATE, error=error, applied=False)], WrappedError(error)


# ------------------------------------------------------------------- the sync


def truncate_history(sts: StatefulSet, pods, revisions, current: str | None, update: str | None,
                     pod_control: PodControl) -> Error | None:
    """Delete the oldest revisions beyond ``revisionHistoryLimit`` that no pod, nor the current or
    update revision, uses, stopping at the first delete that fails, whose error is returned
    (``truncateHistory``; *current* and *update* are None when ``getStatefulSetRevisions`` failed)."""
    # live whatever the limit: the current and update revisions (when known) and every pod's
    live = {r for r in (current, update) if r is not None} | {get_pod_revision(pod) for pod in pods}
    for r in history_to_truncate(list(revisions), live, sts.spec.revision_history_limit):
        error = pod_control.delete_revision(decision(
            action="delete-revision", pod=None, reason="history-limit",
            message=f"Revision {r.name} (number {r.revision}) is beyond "
                    f"revisionHistoryLimit={sts.spec.revision_history_limit}: delete it.",
            rule="truncate", target=r.name, step=STEP_HISTORY, payload=r))
        if error is not None:
            return error
    return None


def update_stateful_set(snap: Snapshot, profile: Profile, gates: Mapping[str, bool] | None,
                        pod_control: PodControl) -> SyncPlan:
    """One sync's work on the set (``UpdateStatefulSet``): :func:`perform_update`, then
    :func:`truncate_history`, which runs even when the revisions could not be made (then with only
    the pods' revisions live).  The requests go through *pod_control* as the steps reach them
    (``Cluster.preview()`` passes one whose object manager writes nothing); the decisions are recorded in
    upstream's order, where it logs or writes, and the sync's error is the one ``UpdateStatefulSet``
    returns: :func:`perform_update`'s, aggregated with :func:`truncate_history`'s (``NewAggregate``).
    """
    sts = snap.sts
    revisions = sort_revisions(list_revisions(sts, snap.namespace_revisions.values()))
    current, update, collisions, status, error = perform_update(snap, revisions, profile, gates or {}, pod_control)
    errors = [str(e) for e in (error, truncate_history(sts, snap.pods, revisions, current, update, pod_control))
              if e is not None]
    return SyncPlan(decisions=tuple(pod_control.log), status=status, current_revision=current or "",
                    update_revision=update or "", collision_count=collisions,
                    error=aggregate(errors) if errors else None)


def perform_update(snap: Snapshot, revisions: list[ControllerRevision], profile: Profile,
                   gates: Mapping[str, bool], pod_control: PodControl):
    """The revisions, the pods, then the status (``performUpdate``): :func:`get_stateful_set_revisions`,
    :func:`update_stateful_set_pods`, then ``updateStatefulSetStatus`` (:func:`update_stateful_set_status`),
    even when a pod request failed.  Returns (current revision, update revision, collisionCount, status,
    error); the revisions are None when they could not be made, the status None when none was counted,
    the error the pods' if they failed, else the status write's."""
    error, current_rev, update_rev, collisions = get_stateful_set_revisions(snap, revisions, profile, pod_control)
    if error is not None:
        return None, None, collisions, None, error
    status, error = update_stateful_set_pods(snap, current_rev, update_rev, collisions, profile, gates,
                                             pod_control.log, pod_control)
    if status is None:
        return current_rev.name, update_rev.name, collisions, None, error
    status, status_error = update_stateful_set_status(snap.sts, status, profile, pod_control,
                                                      snap.now if profile.gate(gates, RECREATE_GATE) else None)
    return current_rev.name, update_rev.name, collisions, status, error if error is not None else status_error


def update_stateful_set_status(sts: StatefulSet, status: StatefulSetStatus, profile: Profile,
                               pod_control: PodControl, recreate_time: float | None
                               ) -> tuple[StatefulSetStatus, Error | None]:
    """Complete the update if it is done (``completeUpdate``), and write the status if it differs from
    the set's (``inconsistentStatus``) through the status updater (``updateStatefulSetStatus``).
    Returns the status, written or not, and the write's error (None if it was written or not needed)."""
    status = complete_update(sts, status, profile, recreate_time)
    if not inconsistent_status(sts, status, profile):
        return status, None
    return status, pod_control.update_stateful_set_status(
        Decision(action="status", pod=None, reason="changed", message=status_sentence(status),
                 rule=RULES["status"], step=STEP_STATUS), sts, status)


def update_stateful_set_pods(snap: Snapshot, current_rev: ControllerRevision, update_rev: ControllerRevision,
                             collisions: int, profile: Profile, gates: Mapping[str, bool],
                             log: list[Decision], pod_control: PodControl
                             ) -> tuple[StatefulSetStatus | None, Error | None]:
    """Create, repair and delete pods towards the set's spec (upstream's unexported ``updateStatefulSet``).

    Named ``update_stateful_set_pods`` because Python's snake_case cannot tell it from
    ``UpdateStatefulSet`` (:func:`update_stateful_set`), which differs only by the case of its first
    letter.  In upstream's order: split the pods into replicas (ordinal range) and condemned, count
    the status (``updateStatus``), :func:`process_replica` for each slot (:func:`run_for_all`), then
    ``fixPodClaim`` and :func:`process_condemned` for each condemned pod, then the rolling update
    (the gate-off loop below, or :func:`update_stateful_set_after_invariant_established`).
    Appends its waits to *log*, makes its requests through *pod_control*, and stops at the step
    whose request failed; returns (status, the error or None).
    """
    sts, now = snap.sts, snap.now
    current, update = current_rev.name, update_rev.name
    current_set = apply_revision(sts, current_rev)  # the set at its current and at its update revision
    update_set = current_set if update_rev.name == current_rev.name else apply_revision(sts, update_rev)
    recreate_gate = profile.gate(gates, RECREATE_GATE)
    mrs = min_ready_seconds(sts, profile)
    start = get_start_ordinal(sts, start_ordinal_supported=profile.start_ordinal)

    # the pods in the ordinal range are the replicas (a later pod takes an earlier one's slot),
    # the others are condemned
    n = sts.spec.replicas
    existing: dict[int, Pod] = {}
    condemned: list[Pod] = []
    for pod in snap.pods:
        if pod_in_ordinal_range(sts, pod, start_ordinal_supported=profile.start_ordinal):
            existing[get_ordinal(pod) - start] = pod
        elif get_ordinal(pod) >= 0:
            condemned.append(pod)
    # updateStatus: over every pod while the set is being deleted, else over the pods that took a
    # slot and the condemned ones (a twin that lost its slot is not counted)
    counted = snap.pods if sts.deletion_timestamp is not None else [*existing.values(), *condemned]
    status = update_status(sts, counted, now, current, update, collisions, profile)
    condemned.sort(key=lambda pod: pod.ordinal, reverse=True)  # descendingOrdinal

    def new_pod(i: int) -> Pod:
        """The pod ``newVersionedStatefulSetPod`` makes for an empty slot *i*."""
        return new_versioned_stateful_set_pod(current_set, update_set, current, update, start + i, profile)

    # the first unavailable pod: lowest replica (an empty slot's new pod counts: it is not
    # created), else lowest condemned pod.  When every slot holds a pod, whether each one is
    # unavailable is worked out here once for the sync, and the rolling update reads it again.
    unavailable: list[bool] | None = None
    first_unavailable = None
    full = len(existing) == n
    if full:
        replicas: list[Pod] = [existing[i] for i in range(n)]
        unavailable = [is_unavailable(pod, mrs, now) for pod in replicas]
        if True in unavailable:
            first_unavailable = replicas[unavailable.index(True)]
    else:
        replicas = []  # filled slot by slot below, as processReplica reaches each one
        for i in range(n):
            pod = existing.get(i)
            if pod is None:
                first_unavailable = new_pod(i)
                break
            if is_unavailable(pod, mrs, now):
                first_unavailable = pod
                break
    if first_unavailable is None:
        first_unavailable = next((pod for pod in reversed(condemned) if is_unavailable(pod, mrs, now)), None)

    monotonic = not allows_burst(sts)
    if sts.spec.update_strategy == "Recreate" and not recreate_gate:
        rows, error = unknown_strategy(sts)
        pod_control.recorder.event(sts, "Warning", "UnknownStrategy", rows[0].payload)
        log += rows
        return None, error
    if sts.deletion_timestamp is not None:
        return status, None
    if sts.spec.update_strategy == "Recreate":
        all_old_pods_terminated, status, error = recreate_delete_and_wait(sts, update, existing, condemned, status,
                                                                          now, pod_control, log)
        if not all_old_pods_terminated:
            return status, error
        if current != update:
            status = set_progressing_condition(status, "True", RECREATE_IN_PROGRESS_REASON,
                                                 "Waiting for new-revision pods to be created", now)

    # processReplica for each slot of [getStartOrdinal, getEndOrdinal] (spec.replicas may be
    # 2147483647: only the slots a sync reaches are made, and the rolling update below is reached
    # only once every slot has been)
    def process_replica_fn(i: int) -> tuple[bool, Error | None]:
        if full:
            pod = replicas[i]
        else:
            pod = existing.get(i)
            if pod is None:
                pod = new_pod(i)
            replicas.append(pod)
        return process_replica(sts, pod, i, monotonic, snap, profile, mrs, pod_control)

    end = get_end_ordinal(sts, start_ordinal_supported=profile.start_ordinal)
    should_exit, error = run_for_all(end - start + 1, process_replica_fn, monotonic)
    if should_exit or error is not None:
        return status, error

    # fixPodClaim for each condemned pod, then processCondemned, highest ordinal first
    def fix_pod_claim(i: int) -> tuple[bool, Error | None]:
        pod = condemned[i]
        if not pod_control.claims_match_retention_policy(sts, pod):
            error = pod_control.update_pod_claim_for_retention_policy(sts, pod, Why(
                reason="", message="", rule=RULES["fix-claim"], step=STEP_CLAIMS_FIX, slot=i))
            if error is not None:
                return True, error
        return False, None

    should_exit, error = run_for_all(len(condemned), fix_pod_claim, monotonic)
    if should_exit or error is not None:
        return status, error

    def process_condemned_fn(i: int) -> tuple[bool, Error | None]:
        ds, stop, error = process_condemned(sts, condemned[i], i, first_unavailable, monotonic, now, profile,
                                            pod_control)
        log.extend(ds)
        return stop, error

    should_exit, error = run_for_all(len(condemned), process_condemned_fn, monotonic)
    if should_exit or error is not None:
        return status, error

    # the rolling update (OnDelete and Recreate sets have none)
    if sts.spec.update_strategy in ("OnDelete", "Recreate"):
        return status, None
    if profile.max_unavailable_supported and profile.gate(gates, "MaxUnavailableStatefulSet"):
        return update_stateful_set_after_invariant_established(sts, replicas, update, now, profile,
                                                               pod_control, log, status, unavailable)
    # gate off: one pod at a time, from the top down to the partition.  The highest pod not at the
    # update revision and not terminating is deleted (one per sync, then one is taken off
    # status.currentReplicas, whatever that pod's revision was); an updated pod that is not
    # Available stops the walk.  Pods below the partition are never looked at.
    update_min = sts.spec.partition
    for target in range(len(replicas) - 1, update_min - 1, -1):
        pod = replicas[target]
        if get_pod_revision(pod) != update and not is_terminating(pod):
            error = pod_control.delete_stateful_pod(sts, pod, Why(
                reason="update", message=f"{pod.name} is at revision {pod.revision or '?'}, not {update}: "
                "delete it so it comes back updated.", rule=RULES["update"], step=STEP_UPDATE, slot=target))
            if error is not None:
                return status, error
            return replace(status, current_replicas=status.current_replicas - 1), None
        if is_unavailable(pod, mrs, now):
            log.append(decision(action="wait", pod=pod.name, reason="update-unavailable",
                                message=f"{pod.name} is not yet Available; the rolling update waits for it.",
                                rule="update-unavailable", step=STEP_UPDATE, slot=target))
            break
    return status, None
