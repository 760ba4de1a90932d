"""One sync of one StatefulSet, end to end (≈ upstream ``stateful_set.go``).

``sync`` = adopt orphan revisions, claim pods (adopt / release), take a
snapshot, :func:`~stsedu.controller.stateful_set_control.update_stateful_set`
with the :class:`~stsedu.controller.stateful_pod_control.StatefulPodControl`, and record it all
in the trace.  The writes go through
:class:`~stsedu.controller.stateful_pod_control.ClusterObjects`, which asks the
cluster's :class:`~stsedu.sim.writes.Writes` (where simulated API errors are
injected).  :class:`StatefulSetController` is the controller a cluster owns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import stateful_set_control as control
from .decisions import RULES, STEP_CLAIM, Decision, SyncResult
from ..api.errors import APIError
from ..api.objects import Pod, StatefulSet, StatefulSetStatus, controller_of, label_selector_as_selector
from .stateful_pod_control import ClusterObjects, StatefulPodControl
from . import stateful_set_utils as P
from .history import sort_revisions

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes


# ------------------------------------------------------------------ claiming


def plan_claims(sts: StatefulSet, pods, revisions,
                recheck_deletion: bool = True) -> tuple[list[Decision], list[Pod]]:
    """Adopt/release decisions, and the pods the set already controls and that match it.

    Mirrors ``adoptOrphanRevisions`` and ``ClaimPods``: a pod matches when the
    selector matches its labels and its name parses to the set's name
    (``isMemberOf``).  An orphan that matches is adopted (unless it is
    terminating or the set is being deleted); a pod we control that no
    longer matches is released.  Adopted pods are not in the returned list:
    re-read them after adopting.  Without *recheck_deletion* (v1.16, which compared only the
    set's uid) a set being deleted still adopts orphan revisions; never pods (``ClaimPods``).
    """
    out: list[Decision] = []
    claimed: list[Pod] = []
    deleting = sts.deletion_timestamp is not None
    selects = label_selector_as_selector(sts.spec.selector)  # once per call, as ClaimPods builds it
    for r in revisions:
        if controller_of(r.owner_references) is None and selects(r.labels):
            if deleting and recheck_deletion:
                # adoptOrphanRevisions re-reads the set first (RecheckDeletionTimestamp): a set
                # being deleted cannot adopt, and the sync fails before UpdateStatefulSet
                msg = (f"can't adopt ControllerRevisions: {sts.namespace}/{sts.name} has just been "
                       "deleted")
                out.append(Decision("error", None, "deleting", f"Revision {r.name} has no owner, but "
                                    f"{sts.name} is being deleted: it cannot adopt it, and the sync "
                                    "stops here.", RULES["adopt-revision"], target=r.name,
                                    step=STEP_CLAIM, applied=False, error=msg))
                break
            out.append(Decision("adopt", None, "orphan-revision",
                                f"Revision {r.name} has no owner and matches the selector: adopt it.",
                                RULES["adopt-revision"], target=r.name, step=STEP_CLAIM, payload=r))
    for pod in pods:
        ref = pod.controller_ref  # GetControllerOf
        if ref is not None and ref.uid != sts.uid:
            continue  # another controller's pod
        matches = P.is_member_of(sts, pod) and selects(pod.labels)
        if ref is not None and matches:
            claimed.append(pod)
        elif deleting:
            continue
        elif ref is not None:
            out.append(Decision("release", pod.name, "selector-mismatch",
                                f"{pod.name} no longer matches the selector or name of {sts.name}: "
                                "release it (it keeps running, without an owner).",
                                RULES["release"], step=STEP_CLAIM, payload=pod))
        elif matches and not P.is_terminating(pod):
            out.append(Decision("adopt", pod.name, "orphan",
                                f"{pod.name} has no owner and matches {sts.name}: adopt it.",
                                RULES["adopt"], step=STEP_CLAIM, payload=pod))
    return out, claimed


def claimed_pods(sts: StatefulSet, pods) -> list[Pod]:
    """Pods the set controls and that match it."""
    return plan_claims(sts, pods, ())[1]


def set_revisions(sts: StatefulSet, revisions) -> list:
    """The set's revisions: matching the selector, owned by it or by nobody (``ListControllerRevisions``)."""
    out = []
    for r in revisions:
        ref = controller_of(r.owner_references)
        if (ref is None or ref.uid == sts.uid) and sts.spec.selects(r.labels):
            out.append(r)
    return sort_revisions(out)


# --------------------------------------------------------------------- sync


def sync(ctl: "StatefulSetController", name: str, namespace: str = "default") -> SyncResult:
    """One reconcile of one StatefulSet (``StatefulSetController.sync``)."""
    store, trace = ctl.store, ctl.trace
    sts = store.get("StatefulSet", namespace, name)
    if sts is None:
        raise KeyError(f'statefulsets.apps "{name}" not found')
    trace.sync += 1
    trace.time = ctl.clock.now
    n = trace.sync
    cause = f"sync {n}"
    om = ClusterObjects(ctl.writes, sts, cause)
    om.title_case_messages = ctl.profile.event_verbs_title_case
    om.recreating_failed_event = not ctl.profile.event_verbs_title_case
    om.delete_ignores_not_found = ctl.profile.delete_ignores_not_found
    decisions: list[Decision] = []
    error: str | None = None

    # 1. adopt orphan revisions, claim pods
    claim_decisions, claimed = plan_claims(sts, store.view("Pod", namespace).values(),
                                           store.view("ControllerRevision", namespace).values(),
                                           ctl.profile.revision_adoption_rechecks_deletion)
    for d in claim_decisions:
        if d.action == "error":  # the set is being deleted and may not adopt (see plan_claims)
            decisions.append(d)
            error = d.error
            break
        try:
            getattr(om, d.action)(d)
            decisions.append(replace(d, applied=True))
        except APIError as e:
            decisions.append(replace(d, applied=False, error=str(e)))
            error = error or str(e)
            if d.pod is None:
                # AdoptOrphanRevisions stops at the first failure and the sync ends there,
                # before any pod is claimed (ClaimPods, by contrast, tries every pod)
                break
    if error is not None:
        return _finish(ctl, sts, n, decisions, None, error)
    if claim_decisions and any(d.action == "adopt" and d.pod for d in claim_decisions):
        claimed = claimed_pods(sts, store.view("Pod", namespace).values())

    # 2. snapshot, then UpdateStatefulSet through the pod control
    # the informer cache as the sync begins: the steps' own writes do not show in it
    revisions = dict(store.view("ControllerRevision", namespace))
    snap = control.Snapshot(
        sts=sts, pods=tuple(claimed), claims=dict(store.view("PersistentVolumeClaim", namespace)),
        revisions=tuple(set_revisions(sts, revisions.values())), namespace_revisions=revisions,
        now=ctl.clock.now)
    done = ctl.update_stateful_set(snap, ctl.profile, ctl.feature_gates, StatefulPodControl(om, []))
    status, error = done.status, done.error
    requeue = None
    if error is None:  # syncStatefulSet returns before it plans a requeue when the sync failed
        requeue = next_sync_duration(sts, snap.pods, status, snap.now, ctl.profile)
        if requeue is not None:
            ctl.writes.requeue_for_availability(sts, snap.now + requeue)
    decisions.extend(done.decisions)
    return _finish(ctl, sts, n, decisions, status, error, requeue)


def next_sync_duration(sts: StatefulSet, pods, status: StatefulSetStatus | None, now: float,
                       profile) -> float | None:
    """When to sync the set again for availability, in seconds from *now*, or None (``syncStatefulSet``).

    With minReadySeconds, when the status has Ready pods that are not yet Available: at the
    earliest instant one of *pods* becomes Available (``FindMinNextPodAvailabilityCheck``),
    or after minReadySeconds when no pod tells when.
    """
    mrs = P.min_ready_seconds(sts, profile)
    if mrs <= 0 or status is None or status.ready_replicas == status.available_replicas:
        return None
    times = P.availability_times(pods, mrs, now)
    return (min(times) - now) if times else float(mrs)


def _finish(ctl, sts, n, decisions, status, error, requeue_after=None) -> SyncResult:
    trace = ctl.trace
    for seq, d in enumerate(decisions):
        trace.add_decision(sts.name, seq, d)
    if status is not None:
        written = any(d.action == "status" and d.applied for d in decisions)
        trace.add_status(sts.name, *_status_row(ctl, sts, status, written))
    result = SyncResult(sync=n, time=ctl.clock.now, set_name=sts.name,
                        decisions=tuple(decisions), status=status, error=error,
                        requeue_after=requeue_after)
    trace.add_sync(sts.name, len(decisions), result.changed, error)
    return result


def _status_row(ctl, sts: StatefulSet, status: StatefulSetStatus, written: bool) -> tuple:
    """``Trace.add_status``'s arguments after the set's name."""
    return (sts.spec.replicas, status, written,
            P.min_ready_seconds(sts, ctl.profile),
            sts.spec.partition if sts.spec.update_strategy == "RollingUpdate" else None)


class StatefulSetController:
    """The StatefulSet controller of one cluster (``StatefulSetController``): it syncs one set at a time.

    It reads the store and writes through *writes* (the cluster's
    :class:`~stsedu.sim.writes.Writes`); *update_stateful_set* is the profile's
    ``UpdateStatefulSet`` (upstream's ``ssc.control``); *feature_gates* the cluster's gates (shared,
    not copied).
    """

    def __init__(self, writes: "Writes", profile, feature_gates: dict, update_stateful_set) -> None:
        self.writes = writes
        self.store = writes.store
        self.clock = writes.clock
        self.trace = writes.trace
        self.profile = profile
        self.feature_gates = feature_gates
        self.update_stateful_set = update_stateful_set

    def sync(self, name: str, namespace: str = "default") -> SyncResult:
        """One reconcile of one StatefulSet; KeyError if it does not exist."""
        return sync(self, name, namespace)

    def preview(self, sts: StatefulSet, namespace: str = "default"):
        """What the next sync of *sts* would do if every request succeeded, run against a pod control
        that writes nothing (``RecordingPodControl``)."""
        snap = control.Snapshot(
            sts=sts, pods=tuple(claimed_pods(sts, self.store.list("Pod", namespace))),
            claims=self.store.view("PersistentVolumeClaim", namespace),
            revisions=tuple(set_revisions(sts, self.store.list("ControllerRevision", namespace))),
            namespace_revisions=self.store.view("ControllerRevision", namespace), now=self.clock.now)
        return self.update_stateful_set(snap, self.profile, self.feature_gates)


def set_control_for(profile):
    """The profile's ``UpdateStatefulSet``: the v1.16 algorithm for ``v1.16``, else today's."""
    if profile.name == "v1.16":
        from .stateful_set_control_v116 import update_stateful_set as update_stateful_set_v116
        return update_stateful_set_v116
    return control.update_stateful_set
