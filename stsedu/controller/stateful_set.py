"""One sync of one StatefulSet, end to end (≈ upstream ``stateful_set.go``).

``sync`` = adopt orphan revisions, claim pods (adopt / release), take a
snapshot, :func:`~stsedu.controller.stateful_set_control.plan_sync`,
:func:`~stsedu.controller.stateful_pod_control.apply_plan`, and record it all
in the trace.  The writes go through
:class:`~stsedu.controller.stateful_pod_control.ClusterObjects`, which asks the
cluster's :class:`~stsedu.sim.writes.Writes` (where simulated API errors are
injected).  :class:`StatefulSetController` is the controller a cluster owns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import stateful_set_control as control
from .decisions import RULES, STEP_CLAIM, Decision, SyncResult
from ..api.errors import APIError
from ..api.objects import OwnerReference, Pod, StatefulSet, StatefulSetStatus, controller_of, selector_matches
from .stateful_pod_control import ClusterObjects, apply_plan
from .stateful_set_utils import availability_times
from .history import sort_revisions

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes


# ------------------------------------------------------------------ claiming


def plan_claims(sts: StatefulSet, pods, revisions, memo: dict | None = None
                ) -> tuple[list[Decision], list[Pod]]:
    """Adopt/release decisions, and the pods the set already controls and that match it.

    Mirrors ``adoptOrphanRevisions`` and ``ClaimPods``: a pod matches when the
    selector matches its labels and its name parses to the set's name.  An
    orphan that matches is adopted (unless it is terminating or the set is
    being deleted); a pod we control that no longer matches is released.
    Adopted pods are not in the returned list: re-read them after adopting.
    """
    out: list[Decision] = []
    claimed: list[Pod] = []
    deleting = sts.deletion_timestamp is not None
    for r in revisions:
        if controller_of(r.owner_references) is None and selector_matches(sts.spec.selector, r.labels):
            if deleting:
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
    # One lean pass over every pod of the namespace (it runs on every sync).  Each pod's
    # standing towards the set is cached with the pod object it was worked out from and
    # reused while the store still lists that very object; claimed pods are cached
    # apart, so the common case costs one lookup.
    claimed_cache, others = _claim_cache(sts, memo)
    was_claimed, other = claimed_cache.get, others.get
    append = claimed.append
    for pod in pods:
        if was_claimed(pod.name) is pod:
            append(pod)
            continue
        hit = other(pod.name)
        if hit is not None and hit[0] is pod:
            standing = hit[1]
        else:
            standing = _standing(sts, pod)
            if standing is _CLAIMED:
                claimed_cache[pod.name] = pod
                others.pop(pod.name, None)
                append(pod)
                continue
            others[pod.name] = (pod, standing)
            claimed_cache.pop(pod.name, None)
        if standing is _OTHER or deleting:
            continue
        if standing is _MISMATCHED:
            out.append(Decision("release", pod.name, "selector-mismatch",
                                f"{pod.name} no longer matches the selector or name of {sts.name}: "
                                "release it (it keeps running, without an owner).",
                                RULES["release"], step=STEP_CLAIM, payload=pod))
        elif pod.deletion_timestamp is None:  # _ORPHAN
            out.append(Decision("adopt", pod.name, "orphan",
                                f"{pod.name} has no owner and matches {sts.name}: adopt it.",
                                RULES["adopt"], step=STEP_CLAIM, payload=pod))
    return out, claimed


_CLAIMED, _MISMATCHED, _ORPHAN, _OTHER = "claimed", "mismatched", "orphan", "other"
"""A pod's standing towards a set: controlled by it and matching; controlled by it but
no longer matching (release); matching without a controller (adopt); anything else."""


def _standing(sts: StatefulSet, pod: Pod) -> str:
    """The pod's standing towards *sts* (``ClaimObject``'s cases)."""
    ref = controller_of(pod.owner_references)
    if ref is not None and ref.uid != sts.uid:
        return _OTHER
    match = pod.parent == sts.name and selector_matches(sts.spec.selector, pod.labels)
    if ref is not None:
        return _CLAIMED if match else _MISMATCHED
    return _ORPHAN if match else _OTHER


def _claim_cache(sts: StatefulSet, memo: dict | None) -> tuple[dict, dict]:
    """The set's caches: claimed pods by name, and (pod, standing) of the others by name.

    Stored objects are frozen and replaced on every write, so an entry whose
    pod ``is`` the listed pod is still right; the caches are dropped when the
    set's selector object or name changes (a new spec is a new object).
    """
    if memo is None:
        return {}, {}
    key = ("claims", sts.uid)
    entry = memo.get(key)
    if entry is None or entry[0] is not sts.spec.selector or entry[1] != sts.name:
        entry = memo[key] = (sts.spec.selector, sts.name, {}, {})
    return entry[2], entry[3]


def claimed_pods(sts: StatefulSet, pods, memo: dict | None = None) -> list[Pod]:
    """Pods the set controls and that match it."""
    return plan_claims(sts, pods, (), memo)[1]


def set_revisions(sts: StatefulSet, revisions) -> list:
    """The set's revisions: matching the selector, owned by it or by nobody (``ListControllerRevisions``)."""
    out = []
    for r in revisions:
        ref = controller_of(r.owner_references)
        if (ref is None or ref.uid == sts.uid) and selector_matches(sts.spec.selector, r.labels):
            out.append(r)
    return sort_revisions(out)


# ------------------------------------------------------------- object manager


# --------------------------------------------------------------------- sync


@dataclass(frozen=True, slots=True)
class QuietSync:
    """What a sync read and what it concluded, when it changed nothing and did not depend on the clock.

    Stored objects are frozen and replaced on every write, so the next sync of
    the set, finding every one of these the very same object, would decide
    exactly the same: nothing to do, the same status, nothing to write.
    """

    sts: StatefulSet
    pods: tuple
    """Every pod of the namespace, in store order (claiming looks at orphans too)."""
    revisions: tuple
    claims: tuple
    profile: object
    planner: object
    gates: dict
    status: StatefulSetStatus
    views: tuple
    """The store's live views the three tuples were read from (pods, revisions, claims)."""
    status_row: tuple
    """``add_status``'s arguments after the set's name."""


def _quiet_key(namespace: str, name: str) -> tuple:
    return ("quiet", namespace, name)


def _clock_free(sts: StatefulSet, pods, now: float, profile) -> bool:
    """True if no pod's availability can change by time alone (``isRunningAndAvailable`` at any later now).

    A Ready pod becomes Available once ``readySince + minReadySeconds < now``:
    the plan of a set with such a pod still waiting depends on the clock.
    """
    return not availability_times(pods, sts.spec.min_ready_seconds if profile.min_ready_seconds else 0, now)


def _reuse_quiet(ctl: "StatefulSetController", sts: StatefulSet, namespace: str) -> QuietSync | None:
    """The set's last quiet sync if every input of this sync is the very object it read, else None.

    One pass over the namespace's pods (an identity check per pod) instead
    of the full plan: a sync of a stable set repeats its predecessor.
    """
    key = _quiet_key(namespace, sts.name)
    q = ctl.memo.get(key)
    if q is None:
        return None
    pods, revisions, claims = q.views
    if (q.sts is sts and q.profile is ctl.profile and q.planner is ctl.planner
            and q.gates == ctl.feature_gates and tuple(pods.values()) == q.pods
            and tuple(revisions.values()) == q.revisions and tuple(claims.values()) == q.claims):
        return q
    del ctl.memo[key]
    return None


def _remember_quiet(ctl: "StatefulSetController", sts: StatefulSet, namespace: str, claimed, status) -> None:
    """Keep this sync's inputs for :func:`_reuse_quiet` (called only after a sync that wrote nothing)."""
    if not ctl.reuse_quiet_syncs or not _clock_free(sts, claimed, ctl.clock.now, ctl.profile):
        return
    views = tuple(ctl.store.view(kind, namespace)
                  for kind in ("Pod", "ControllerRevision", "PersistentVolumeClaim"))
    ctl.memo[_quiet_key(namespace, sts.name)] = QuietSync(
        sts=sts, pods=tuple(views[0].values()), revisions=tuple(views[1].values()),
        claims=tuple(views[2].values()), profile=ctl.profile, planner=ctl.planner,
        gates=dict(ctl.feature_gates), status=status, views=views,
        status_row=_status_row(ctl, sts, status, False))


def sync(ctl: "StatefulSetController", name: str, namespace: str = "default") -> SyncResult:
    """One reconcile of one StatefulSet (``StatefulSetController.sync``).

    A sync whose inputs are all the very objects its set's previous sync read,
    when that sync changed nothing and its outcome did not hang on the clock,
    repeats that outcome without planning again (:func:`_reuse_quiet`); the
    trace records it like any other sync.
    """
    store, trace = ctl.store, ctl.trace
    sts = store.get("StatefulSet", namespace, name)
    if sts is None:
        raise KeyError(f'statefulsets.apps "{name}" not found')
    trace.sync += 1
    trace.time = ctl.clock.now
    n = trace.sync
    if ctl.reuse_quiet_syncs:
        quiet = _reuse_quiet(ctl, sts, namespace)
        if quiet is not None:  # what _finish records for a sync without decisions
            trace.add_status(sts.name, *quiet.status_row)
            trace.add_sync(sts.name, 0, False, None)
            return SyncResult(sync=n, time=trace.time, set_name=sts.name, decisions=(),
                              status=quiet.status, error=None)
    cause = f"sync {n}"
    om = ClusterObjects(ctl.writes, sts, cause)
    decisions: list[Decision] = []
    error: str | None = None

    # 1. adopt orphan revisions, claim pods
    claim_decisions, claimed = plan_claims(sts, store.view("Pod", namespace).values(),
                                           store.view("ControllerRevision", namespace).values(),
                                           ctl.memo)
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
        claimed = claimed_pods(sts, store.view("Pod", namespace).values(), ctl.memo)

    # 2. snapshot, plan, act
    revisions = store.view("ControllerRevision", namespace)
    snap = control.Snapshot(
        sts=sts, pods=tuple(claimed), claims=store.view("PersistentVolumeClaim", namespace),
        revisions=tuple(set_revisions(sts, revisions.values())), namespace_revisions=revisions,
        now=ctl.clock.now, memo=ctl.memo)
    plan = ctl.planner(snap, ctl.profile, ctl.feature_gates)
    done, status, error = apply_plan(plan, sts, om, ctl.profile)
    ctl.writes.requeue_for_availability(sts, snap.pods, snap.now)
    for d in done:
        # CreateStatefulPod reports a claim that is being deleted as a failed pod create
        if (d.reason == "claim-deleting" and d.applied is False and d.error and d.error.startswith("pvc ")
                and store.get("Pod", namespace, d.pod) is None):
            om._event(False, "create", f"Pod {d.pod}", d.error)
    decisions.extend(done)
    if not decisions and error is None and status is not None:
        _remember_quiet(ctl, sts, namespace, snap.pods, status)
    return _finish(ctl, sts, n, decisions, status, error)


def _finish(ctl, sts, n, decisions, status, error) -> SyncResult:
    trace = ctl.trace
    for seq, d in enumerate(decisions):
        trace.add_decision(sts.name, seq, d)
    if status is not None:
        written = any(d.action == "status" and d.applied for d in decisions)
        trace.add_status(sts.name, *_status_row(ctl, sts, status, written))
    result = SyncResult(sync=n, time=ctl.clock.now, set_name=sts.name,
                        decisions=tuple(decisions), status=status, error=error)
    trace.add_sync(sts.name, len(decisions), result.changed, error)
    return result


def _status_row(ctl, sts: StatefulSet, status: StatefulSetStatus, written: bool) -> tuple:
    """``Trace.add_status``'s arguments after the set's name."""
    return (sts.spec.replicas, status, written,
            sts.spec.min_ready_seconds if ctl.profile.min_ready_seconds else 0,
            sts.spec.partition if sts.spec.update_strategy == "RollingUpdate" else None)


class StatefulSetController:
    """The StatefulSet controller of one cluster (``StatefulSetController``): it syncs one set at a time.

    It reads the store and writes through *writes* (the cluster's
    :class:`~stsedu.sim.writes.Writes`); *planner* is the profile's
    ``plan_sync``; *feature_gates* the cluster's gates (shared, not copied).
    """

    def __init__(self, writes: "Writes", profile, feature_gates: dict, planner) -> None:
        self.writes = writes
        self.store = writes.store
        self.clock = writes.clock
        self.trace = writes.trace
        self.profile = profile
        self.feature_gates = feature_gates
        self.planner = planner
        self.memo: dict = {}
        self.reuse_quiet_syncs = True

    def sync(self, name: str, namespace: str = "default") -> SyncResult:
        """One reconcile of one StatefulSet; KeyError if it does not exist."""
        return sync(self, name, namespace)

    def preview(self, sts: StatefulSet, namespace: str = "default"):
        """The plan the next sync of *sts* would carry out, without doing anything."""
        snap = control.Snapshot(
            sts=sts, pods=tuple(claimed_pods(sts, self.store.list("Pod", namespace))),
            claims=self.store.view("PersistentVolumeClaim", namespace),
            revisions=tuple(set_revisions(sts, self.store.list("ControllerRevision", namespace))),
            namespace_revisions=self.store.view("ControllerRevision", namespace), now=self.clock.now)
        return self.planner(snap, self.profile, self.feature_gates)


def planner_for(profile):
    """The profile's ``plan_sync``: the v1.16 algorithm for ``v1.16``, else today's."""
    if profile.name == "v1.16":
        from .stateful_set_control_v116 import plan_sync as plan_v116
        return plan_v116
    return control.plan_sync
