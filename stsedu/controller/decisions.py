"""Decision and SyncPlan records: the vocabulary of what a sync decides.

A :class:`Decision` is one thing the controller decided in a sync: an action
on an object (create, delete, update, ...) or a reason to stop and wait.
``rule`` names the step of the upstream algorithm that made it, so a learner
can find it in ``pkg/controller/statefulset``.  The last section says how a request's row reads
the API server's answer (applied, or refused with its error; a Conflict, AlreadyExists).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..api.objects import StatefulSetStatus
from ..i18n import N_, _

if TYPE_CHECKING:  # pragma: no cover
    from ..api.errors import APIError

# Actions that change pods, or stop the controller (the action table in docs/api.md).
POD_ACTIONS = ("create", "delete", "update", "wait")

# Steps of one sync, in the order upstream runs them.
STEP_CLAIM = "claim"            # getPodsForStatefulSet / adoptOrphanRevisions
STEP_REVISIONS = "revisions"    # getStatefulSetRevisions
STEP_RECREATE = "recreate"      # recreateDeleteAndWait (the Recreate strategy, before processReplica)
STEP_REPLICAS = "replicas"      # processReplica over the ordinal range
STEP_CLAIMS_FIX = "fix-claims"  # fixPodClaim over condemned pods
STEP_CONDEMNED = "condemned"    # processCondemned
STEP_UPDATE = "update"          # rolling update
STEP_STATUS = "status"          # updateStatefulSetStatus
STEP_HISTORY = "history"        # truncateHistory

RULES = {
    # the Recreate strategy (gate StatefulSetRecreateStrategy)
    "recreate": N_("recreateDeleteAndWait: delete every old-revision pod at once"),
    "recreate-terminating": N_("recreateDeleteAndWait: wait until every old-revision pod is gone"),
    "unknown-strategy": N_("updateStatefulSet: Recreate strategy with its feature gate off"),
    # processReplica
    "failed": N_("processReplica: delete Failed or Succeeded pod"),
    "failed-terminating": N_("processReplica: wait for Failed pod to be removed"),
    "stale-claim": N_("processReplica: PodClaimIsStale, wait"),
    "create": N_("processReplica: create missing pod"),
    "create-pvc": N_("CreateStatefulPod: create missing claims first"),
    "pending-pvc": N_("processReplica: create missing claims of Pending pod"),
    "claim-deleting": N_("createPersistentVolumeClaims: claim is being deleted"),
    "identity-pvc": N_("UpdateStatefulPod: create missing claims while restoring storage"),
    "claim-owner": N_("UpdatePodClaimForRetentionPolicy: set claim owner refs"),
    "terminating": N_("processReplica: wait for terminating pod"),
    "not-running-ready": N_("processReplica: wait for Running and Ready"),
    "not-available": N_("processReplica: wait for Available (minReadySeconds)"),
    "identity": N_("processReplica: UpdateStatefulPod restores identity and storage"),
    # fixPodClaim / processCondemned
    "fix-claim": N_("fixPodClaim: claim owner refs of condemned pod"),
    "condemned-terminating": N_("processCondemned: wait for terminating pod"),
    "scale-down-blocked": N_("processCondemned: wait for first unhealthy pod"),
    "scale-down": N_("processCondemned: delete condemned pod"),
    # rolling update
    "update": N_("updateStatefulSet: delete pod not at update revision"),
    "update-unavailable": N_("updateStatefulSet: wait for updated pod to be Available"),
    "mu-update": N_("updateStatefulSetAfterInvariantEstablished: delete old-revision pods within maxUnavailable"),
    "max-unavailable": N_("updateStatefulSetAfterInvariantEstablished: unavailable pods reach maxUnavailable"),
    # revisions, status, history
    "create-revision": N_("getStatefulSetRevisions: create revision for new template"),
    "rollback": N_("getStatefulSetRevisions: reuse earlier equal revision (rollback)"),
    "collision": N_("CreateControllerRevision: name collision, collisionCount+1"),
    "reuse-revision": N_("CreateControllerRevision: name exists with equal data, reuse it"),
    "status": N_("updateStatefulSetStatus: write changed status"),
    "truncate": N_("truncateHistory: delete revisions beyond revisionHistoryLimit"),
    "adopt": N_("ClaimPods: adopt orphan that matches selector and name"),
    "release": N_("ClaimPods: release pod that no longer matches"),
    "adopt-revision": N_("adoptOrphanRevisions: adopt orphan revision"),
    "deleting": N_("updateStatefulSet: set is being deleted, only status"),
}


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a sync.

    *action* and *reason* follow the action table in docs/api.md; *pod* names the pod it is
    about (or None); *target* names the object acted on when that is not the
    pod (a PVC, a revision); *message* is a sentence for a learner; *rule* the
    upstream step.  *applied* is True once carried out, False if a (simulated)
    API error refused it, None for waits (and for ``preview()``'s requests).  *retries* counts the
    requests that were answered Conflict and sent again (``retry.RetryOnConflict``).
    """

    action: str
    pod: str | None
    reason: str
    message: str
    rule: str
    target: str | None = None
    step: str = STEP_REPLICAS
    slot: int = -1
    applied: bool | None = None
    error: str | None = None
    payload: Any = field(default=None, compare=False, repr=False)
    retries: int = 0
    resent: tuple = ()
    """The requests ``UpdateStatefulPod``'s retries sent after its first pod update was answered
    Conflict, in order, as ``(verb, kind, name, failed)`` (the claims, then the pod again)."""
    cause: "APIError | None" = field(default=None, compare=False, repr=False)
    """The API server's answer *error* is, or wraps (Go's ``%w``), when it is one: what
    ``apierrors.IsConflict`` and the other predicates of :mod:`stsedu.api.errors` read."""

    def as_tuple(self) -> tuple[str, str | None, str]:
        """(action, pod, reason): handy in tests and exercises."""
        return (self.action, self.pod, self.reason)

    @property
    def rule_text(self) -> str:
        """*rule* in the learner's language (``stsedu.set_language``); *rule* itself stays English."""
        return _(self.rule) if self.rule else self.rule


def decision(*, action: str, pod: str | None, reason: str, message: str, rule: str, **kw) -> Decision:
    """A row, its fields named, whose rule is ``RULES[rule]`` (the rest as :class:`Decision` takes it)."""
    return Decision(action=action, pod=pod, reason=reason, message=message, rule=RULES[rule], **kw)


@dataclass(frozen=True, slots=True)
class Why:
    """What a step says of a request it hands the pod control, where upstream's step logs it: the
    row's *reason*, its sentence (*message*), the *rule* text of the step, and where in the sync it
    is (*step*, *slot*).  The pod control makes the request's row of it (:meth:`row`)."""

    reason: str
    message: str
    rule: str
    step: str = STEP_REPLICAS
    slot: int = -1

    def row(self, action: str, pod: str | None, **kw) -> Decision:
        """The row of the request *action* on *pod* (the rest as :class:`Decision` takes it)."""
        return Decision(action=action, pod=pod, reason=self.reason, message=self.message, rule=self.rule,
                        step=self.step, slot=self.slot, **kw)


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What ``UpdateStatefulSet`` did in one sync (``update_stateful_set``'s result), or would do if every
    request succeeded (``Cluster.preview()``).

    *decisions* are the requests as carried out and the waits, in upstream's order; the steps stop
    where upstream's stop when a request fails, so no row follows the failure they did not reach.
    *status* is the status the sync counted (written if it differed from the set's; None when
    none was counted: the revisions could not be made, or a Recreate set with its gate off).
    *error* is the error ``UpdateStatefulSet`` returns, worded as upstream's (None if the sync succeeded).
    """

    decisions: tuple[Decision, ...]
    status: StatefulSetStatus | None
    current_revision: str = ""
    update_revision: str = ""
    collision_count: int = 0
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SyncResult:
    """The outcome of ``cluster.sync(name)``: its decisions and the status it wrote."""

    sync: int
    time: float
    set_name: str
    decisions: tuple[Decision, ...]
    status: StatefulSetStatus | None
    error: str | None = None
    requeue_after: float | None = None
    """Seconds after which ``syncStatefulSet`` enqueues the set again (minReadySeconds: the
    next pod to turn Available), or None."""

    @property
    def actions(self) -> list[tuple[str, str | None, str]]:
        """(action, pod, reason) of the pod decisions (create/delete/update/wait)."""
        return [d.as_tuple() for d in self.decisions if d.action in POD_ACTIONS]

    @property
    def changed(self) -> bool:
        """True if the sync created, deleted or updated anything (status writes aside)."""
        return any(d.applied and d.action not in ("wait", "status") for d in self.decisions)

    @property
    def waits(self) -> list[Decision]:
        return [d for d in self.decisions if d.action == "wait"]


def status_sentence(st: StatefulSetStatus) -> str:
    """The message of the status row: the status the sync writes."""
    return (f"Write status: replicas={st.replicas} ready={st.ready_replicas} "
            f"available={st.available_replicas} current={st.current_replicas} "
            f"updated={st.updated_replicas}, revisions {st.current_revision} -> {st.update_revision}.")


# ------------------------------------------------ a request's row, as the API server answered it


def refused(d: Decision, e: APIError) -> Decision:
    """*d* not carried out: the API server answered *e* (after *e.retries* retries, if any)."""
    return replace(d, applied=False, error=str(e), retries=getattr(e, "retries", 0), cause=e.answer())


def aggregate(errors: list[str]) -> str:
    """``errorutils.NewAggregate(errs).Error()``: one message as it is, several in brackets,
    repeated messages once."""
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"
