"""The StatefulSet controller (≈ upstream ``stateful_set.go``): its loop and one sync.

The loop: upstream's ``NewStatefulSetController`` registers handlers on the Pod and StatefulSet
informers (the ControllerRevision and PVC informers are only read through their listers: their
events enqueue nothing); the handlers turn events into ``namespace/name`` keys in a rate-limited
work queue; workers (``--concurrent-statefulset-syncs``, default 1) take keys and run ``sync``.
:class:`ControllerLoop` does the same on the simulated clock, every step recorded in the trace's
queue table (``Trace.queue()``).

One sync (:func:`sync`) = adopt orphan revisions, claim pods (adopt / release), take a snapshot,
:func:`~stsedu.controller.stateful_set_control.update_stateful_set` with the
:class:`~stsedu.controller.stateful_pod_control.StatefulPodControl`, and record it all in the trace.
The writes go through :class:`~stsedu.controller.stateful_pod_control.ClusterObjects` (the pod
control's object manager), :class:`~stsedu.controller.history.ClusterHistory` (the revisions) and
:class:`~stsedu.controller.controller_ref_manager.PodControllerRefManager` (adopting and releasing
pods), which ask the cluster's :class:`~stsedu.sim.writes.Writes` (where simulated API errors are
injected).
:class:`StatefulSetController` is the controller a cluster owns.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Callable

from . import stateful_set_control as control
from .decisions import RULES, STEP_CLAIM, Decision, SyncResult, aggregate
from ..api.errors import APIError
from ..api.objects import (Pod, StatefulSet, StatefulSetStatus, controller_of, label_selector_as_selector,
                           selector_matches)
from ..client.informers import Informers, Tombstone
from ..client.workqueue import WorkQueue
from .consistency import ConsistencyStore, recorded_write
from .recording_pod_control import recording_pod_control
from .controller_ref_manager import PodControllerRefManager
from .history import ClusterHistory
from .stateful_pod_control import StatefulPodControl, new_stateful_pod_control
from .stateful_set_status_updater import new_real_stateful_set_status_updater
from .stateful_set_utils import availability_times, is_member_of, is_terminating, min_ready_seconds

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes


# ------------------------------------------------------------------ claiming


def orphan_revisions(revisions) -> list:
    """The revisions of *revisions* without a controller (what ``adoptOrphanRevisions`` keeps of
    ``ListRevisions``)."""
    return [r for r in revisions if controller_of(r.owner_references) is None]


def can_adopt_func(ctl: "StatefulSetController", sts: StatefulSet, recheck_deletion: bool = True) -> str | None:
    """Whether *sts*, the set as the sync read it from the informer cache, may adopt (``canAdoptFunc``:
    ``RecheckDeletionTimestamp`` on a fresh read of the set from the API server): the error that
    forbids it when the set of that name is gone, is another set now (another uid), or is being
    deleted; else None.  The fresh read differs from the cache only while the cache lags (the
    cluster's ``informer_delay``).  v1.16's revision adoption compared only the uid, with no
    deletion recheck (*recheck_deletion* off): a set being deleted could still adopt revisions."""
    fresh = ctl.writes.store.get("StatefulSet", sts.namespace, sts.name)
    if fresh is None:
        error = f'statefulsets.apps "{sts.name}" not found'
    elif fresh.uid != sts.uid:
        error = f"original StatefulSet {sts.namespace}/{sts.name} is gone: got uid {fresh.uid}, wanted {sts.uid}"
    elif fresh.deletion_timestamp is not None and recheck_deletion:
        return f"{sts.namespace}/{sts.name} has just been deleted"
    else:
        return None
    return f"can't recheck DeletionTimestamp: {error}" if recheck_deletion else error


def pods_to_claim(sts: StatefulSet, pods, member: Callable[[Pod], bool] | None = None
                  ) -> tuple[list[Decision], list[Pod]]:
    """Adopt/release decisions of ``ClaimPods``, and the pods the set already controls and that
    match it.

    A pod matches when the selector matches its labels and *member* says it belongs to the set
    (:func:`get_pods_for_stateful_set` passes ``isMemberOf``: its name parses to the set's name; the
    default is the same test).  An orphan that matches is adopted (unless it is terminating or the
    set is being deleted); a pod we control that no longer matches is released.  Adopted pods are
    not in the returned list: re-read them after adopting.
    """
    if member is None:
        def member(pod: Pod) -> bool:
            return is_member_of(sts, pod)
    out: list[Decision] = []
    claimed: list[Pod] = []
    deleting = sts.deletion_timestamp is not None
    selects = label_selector_as_selector(sts.spec.selector)  # once per call, as ClaimPods builds it
    for pod in pods:
        ref = pod.controller_ref  # GetControllerOf
        if ref is not None and ref.uid != sts.uid:
            continue  # another controller's pod
        matches = member(pod) and selects(pod.labels)
        if ref is not None and matches:
            claimed.append(pod)
        elif deleting:
            continue
        elif ref is not None:
            out.append(Decision("release", pod.name, "selector-mismatch",
                                f"{pod.name} no longer matches the selector or name of {sts.name}: "
                                "release it (it keeps running, without an owner).",
                                RULES["release"], step=STEP_CLAIM, payload=pod))
        elif matches and not is_terminating(pod):
            out.append(Decision("adopt", pod.name, "orphan",
                                f"{pod.name} has no owner and matches {sts.name}: adopt it.",
                                RULES["adopt"], step=STEP_CLAIM, payload=pod))
    return out, claimed


def claimed_pods(sts: StatefulSet, pods, member: Callable[[Pod], bool] | None = None) -> list[Pod]:
    """Pods the set controls and that match it (*member* as :func:`pods_to_claim` takes it)."""
    return pods_to_claim(sts, pods, member)[1]


# --------------------------------------------------------------------- sync


def sync(ctl: "StatefulSetController", listers, name: str, namespace: str = "default") -> SyncResult:
    """One reconcile of one StatefulSet (``sync``), reading the objects from *listers*:
    :func:`adopt_orphan_revisions`, :func:`get_pods_for_stateful_set`, then :func:`sync_stateful_set`,
    each ending the sync on an error."""
    trace = ctl.trace
    sts = listers.get("StatefulSet", namespace, name)
    if sts is None:
        raise KeyError(f'statefulsets.apps "{name}" not found')
    n = trace.begin_sync(ctl.clock.now)
    pod_control = new_stateful_pod_control(ctl.writes, sts, f"sync {n}", ctl.profile, ctl.control.status_updater)
    decisions: list[Decision] = []
    error = adopt_orphan_revisions(ctl, listers, sts, pod_control.history, decisions)
    if error is not None:
        return _finish(ctl, sts, n, decisions, None, error)
    pods, error = get_pods_for_stateful_set(ctl, listers, sts, PodControllerRefManager(pod_control.om), decisions)
    if error is not None:
        return _finish(ctl, sts, n, decisions, None, error)
    return sync_stateful_set(ctl, listers, sts, pods, pod_control, n, decisions)


def adopt_orphan_revisions(ctl: "StatefulSetController", listers, sts: StatefulSet, history: ClusterHistory,
                           decisions: list[Decision]) -> str | None:
    """Adopt the set's orphan revisions (``adoptOrphanRevisions``), if :func:`can_adopt_func` allows it
    (else one error row), through the set control's
    :func:`~stsedu.controller.stateful_set_control.adopt_orphan_revisions`; its error, or None."""
    listed = control.list_revisions(sts, listers.view("ControllerRevision", sts.namespace).values())
    orphans = orphan_revisions(listed)
    if not orphans:
        return None
    error = can_adopt_func(ctl, sts, ctl.profile.revision_adoption_rechecks_deletion)
    if error is not None:
        error = f"can't adopt ControllerRevisions: {error}"
        decisions.append(Decision("error", None, "deleting", f"Revision {orphans[0].name} has no owner, but "
                                  f"{sts.name} is being deleted or is gone: it cannot adopt it, and the sync "
                                  "stops here.",
                                  RULES["adopt-revision"], target=orphans[0].name, step=STEP_CLAIM,
                                  applied=False, error=error))
        return error
    if not ctl.profile.revision_adoption_orphans_only:
        # v1.16: every revision ListRevisions returns, the set's own too, in the kit's stand-in for the
        # lister's (random) order: the orphans first, so one failed sync adopts them all
        orphans += [r for r in listed if controller_of(r.owner_references) is not None]
    return control.adopt_orphan_revisions(sts, orphans, history, decisions)


def get_pods_for_stateful_set(ctl: "StatefulSetController", listers, sts: StatefulSet,
                              ref_manager: PodControllerRefManager, decisions: list[Decision]
                              ) -> tuple[list[Pod], str | None]:
    """The pods the set owns after ``ClaimPods`` (``getPodsForStatefulSet``): orphans that match are
    adopted, owned pods that no longer match released; every pod is tried, and their errors are
    returned with the pods, aggregated (``NewAggregate``).  Only a pod whose name is the set's may be
    claimed (``isMemberOf``, the filter upstream hands to ``ClaimPods``)."""
    def member(pod: Pod) -> bool:
        return is_member_of(sts, pod)

    claim_decisions, claimed = pods_to_claim(sts, listers.view("Pod", sts.namespace).values(), member)
    adopting = any(d.action == "adopt" for d in claim_decisions)
    # ClaimPods asks canAdoptFunc once, at the first adoption
    can_adopt = can_adopt_func(ctl, sts) if adopting else None
    errors: list[str] = []
    for d in claim_decisions:
        if d.action == "adopt" and can_adopt is not None:
            refused = f"can't adopt Pod {d.payload.namespace}/{d.pod} ({d.payload.uid}): {can_adopt}"
            decisions.append(replace(d, applied=False, error=refused))
            errors.append(refused)
            continue
        try:
            if d.action == "adopt":
                ref_manager.adopt_pod(d)
            else:
                ref_manager.release_pod(d)
            decisions.append(replace(d, applied=True))
        except APIError as e:
            decisions.append(replace(d, applied=False, error=str(e)))
            errors.append(str(e))
    if adopting:
        claimed = claimed_pods(sts, listers.view("Pod", sts.namespace).values(), member)
    return claimed, aggregate(errors) if errors else None



def sync_stateful_set(ctl: "StatefulSetController", listers, sts: StatefulSet, pods: list[Pod],
                      pod_control: StatefulPodControl, n: int, decisions: list[Decision]) -> SyncResult:
    """``UpdateStatefulSet`` on the set and its pods, through the pod control, then the requeue for
    availability (``syncStatefulSet``: ``enqueueSSAfter`` after :func:`next_sync_duration`, only
    when the sync succeeded)."""
    namespace = sts.namespace
    # the informer cache as the sync begins: the steps' own writes do not show in it
    revisions = dict(listers.view("ControllerRevision", namespace))
    snap = control.Snapshot(
        sts=sts, pods=tuple(pods), claims=dict(listers.view("PersistentVolumeClaim", namespace)),
        namespace_revisions=revisions, now=ctl.clock.now)
    done = ctl.control.update_stateful_set(snap, ctl.profile, ctl.feature_gates, pod_control)
    requeue = None
    if done.error is None:
        requeue = next_sync_duration(sts, snap.pods, done.status, snap.now, ctl.profile)
        if requeue is not None:
            ctl.writes.requeue_for_availability(sts, snap.now + requeue)
    decisions.extend(done.decisions)
    return _finish(ctl, sts, n, decisions, done.status, done.error, requeue)


def next_sync_duration(sts: StatefulSet, pods, status: StatefulSetStatus | None, now: float,
                       profile) -> float | None:
    """When to sync the set again for availability, in seconds from *now*, or None (``syncStatefulSet``).

    With minReadySeconds, when the status has Ready pods that are not yet Available: at the
    earliest instant one of *pods* becomes Available (``FindMinNextPodAvailabilityCheck``),
    or after minReadySeconds when no pod tells when.
    """
    mrs = min_ready_seconds(sts, profile)
    if mrs <= 0 or status is None or status.ready_replicas == status.available_replicas:
        return None
    times = availability_times(pods, mrs, now)
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
            min_ready_seconds(sts, ctl.profile),
            sts.spec.partition if sts.spec.update_strategy == "RollingUpdate" else None)


class StatefulSetController:
    """The StatefulSet controller of one cluster (``StatefulSetController``): it syncs one set at a time.

    A sync reads the listers of the worker running it (:attr:`ControllerLoop.syncing_listers`), or the
    store when called directly, and writes through *writes* (the cluster's
    :class:`~stsedu.sim.writes.Writes`); *control* is its set control (``ssc.control``: the profile's
    ``UpdateStatefulSet`` and the status updater); *feature_gates* the cluster's gates (shared, not
    copied).  :func:`new_stateful_set_controller` builds it.
    """

    def __init__(self, writes: "Writes", profile, feature_gates: dict,
                 control: "control.DefaultStatefulSetControl") -> None:
        self.writes = writes
        self.store = writes.store
        self.clock = writes.clock
        self.trace = writes.trace
        self.profile = profile
        self.feature_gates = feature_gates
        self.control = control
        self.loop: ControllerLoop | None = None
        """Its work queue and workers, when :func:`new_stateful_set_controller` was given informers."""

    def sync(self, name: str, namespace: str = "default") -> SyncResult:
        """One reconcile of one StatefulSet (``sync``, the function above); KeyError if it does not exist.
        It reads the listers of the worker that runs it (:meth:`ControllerLoop.process_next_work_item`),
        or, called directly (``Cluster.sync``), the API server's objects, as caches that have caught up."""
        listers = self.loop.syncing_listers if self.loop is not None else None
        return sync(self, self.store if listers is None else listers, name, namespace)

    def preview(self, sts: StatefulSet, namespace: str = "default"):
        """What the next sync of *sts* would do if every request succeeded, run with a pod control whose
        object manager writes nothing (:func:`~.recording_pod_control.recording_pod_control`); its
        requests' rows are neither applied nor refused (``applied`` None)."""
        snap = control.Snapshot(
            sts=sts, pods=tuple(claimed_pods(sts, self.store.list("Pod", namespace))),
            claims=self.store.view("PersistentVolumeClaim", namespace),
            namespace_revisions=self.store.view("ControllerRevision", namespace), now=self.clock.now)
        plan = self.control.update_stateful_set(snap, self.profile, self.feature_gates,
                                                recording_pod_control(snap, self.profile, self.store.count("Pod")))
        return replace(plan, decisions=tuple(replace(d, applied=None) for d in plan.decisions))


def new_stateful_set_controller(writes: "Writes", profile, feature_gates: dict, informers: Informers | None = None,
                                workers: int = 1, sync=None) -> StatefulSetController:
    """The controller of a cluster (``NewStatefulSetController``): its set control
    (``NewDefaultStatefulSetControl``: the profile's ``UpdateStatefulSet``, :func:`set_control_for`) with
    the status updater (``NewRealStatefulSetStatusUpdater``).  With *informers*, its loop too
    (:class:`ControllerLoop`, ``controller.loop``: the work queue and *workers* workers, each sync
    through *sync*), and the handlers on the Pod and StatefulSet informers: ``addPod``, ``updatePod``,
    ``deletePod``, and ``enqueueStatefulSet`` for a set added, updated or deleted.  The pod control is
    built for each sync (:func:`~stsedu.controller.stateful_pod_control.new_stateful_pod_control`, in
    :func:`sync`): the informer-cache lag it models and its decision log belong to one sync."""
    status_updater = new_real_stateful_set_status_updater(writes)
    ctl = StatefulSetController(writes, profile, feature_gates,
                                control.new_default_stateful_set_control(set_control_for(profile), status_updater))
    if informers is None:
        return ctl
    loop = ctl.loop = ControllerLoop(ctl, informers, workers, sync)
    pods, sets = informers.handlers["Pod"], informers.handlers["StatefulSet"]
    # methods and partials, not closures: a cluster's snapshot pickles them (stsedu.console.state)
    pods.on_add, pods.on_update, pods.on_delete = loop.add_pod, loop.update_pod, loop.delete_pod
    sets.on_add = partial(_set_changed, loop, "added")
    sets.on_update = partial(_set_changed, loop, "updated")
    sets.on_delete = partial(_set_changed, loop, "deleted")
    return ctl


def _set_changed(loop: "ControllerLoop", what: str, *objs) -> None:
    """A StatefulSet informer's handler: ``enqueueStatefulSet`` with the set (the last of *objs*)."""
    loop.enqueue_stateful_set(objs[-1], f"StatefulSet {_obj(objs[-1]).name} {what}")


def set_control_for(profile):
    """The profile's ``UpdateStatefulSet``: today's, or v1.16's where the profile's rule
    ``update_in_steps`` is off."""
    if not profile.update_in_steps:
        from .stateful_set_control_v116 import update_stateful_set as update_stateful_set_v116
        return update_stateful_set_v116
    return control.update_stateful_set


# ------------------------------------------------------------------ the loop


def key_of(obj) -> str:
    """``namespace/name`` (``controller.KeyFunc``: ``MetaNamespaceKeyFunc``, tombstones included)."""
    if isinstance(obj, Tombstone):
        return obj.key
    return f"{obj.namespace}/{obj.name}"


class ControllerLoop:
    """Informers, the pod and set handlers, a work queue and *workers* workers around one controller."""

    def __init__(self, controller, informers: Informers, workers: int = 1, sync=None) -> None:
        self.controller = controller
        self.sync = sync or controller.sync
        """``sync(name, namespace)``: one reconcile (the cluster passes its own, which hands back copies)."""
        self.informers = informers
        self.lister = informers.lister
        self.clock = controller.clock
        self.trace = controller.trace
        self.workers = workers
        """How many keys are handed out at once (``--concurrent-statefulset-syncs``)."""
        self.queue = WorkQueue(self.clock, record=self.trace.add_queue)
        self.warnings: list[str] = []
        """Errors the handlers report (``utilruntime.HandleError``), e.g. overlapping selectors."""
        self.consistency = ConsistencyStore() if controller.profile.consistency_store else None
        """``StaleControllerConsistencyStatefulSet`` (stsedu.controller.consistency), or None."""
        self._syncing: tuple[str, str] | None = None
        informers.store.listeners.append(self._wrote)

    @property
    def syncing_listers(self):
        """The listers (informer caches) a sync the worker is running reads, or None between syncs."""
        return self.lister if self._syncing is not None else None

    # ------------------------------------------------------------ handlers
    def enqueue_stateful_set(self, sts, cause: str) -> None:
        """Add the set's key to the queue (``enqueueStatefulSet``)."""
        self.queue.add(key_of(sts), cause)

    def enqueue_ss_after(self, sts, duration: float, cause: str) -> None:
        """Add the set's key to the queue after *duration* seconds (``enqueueSSAfter``)."""
        self.queue.add_after(key_of(sts), duration, cause)

    def resolve_controller_ref(self, namespace: str, ref):
        """The set a controllerRef points to, from the cache, if its kind and uid match (``resolveControllerRef``)."""
        if ref.kind != "StatefulSet":
            return None
        sts = self.lister.get("StatefulSet", namespace, ref.name)
        if sts is None or sts.uid != ref.uid:
            return None
        return sts

    def get_stateful_sets_for_pod(self, pod) -> list:
        """Every cached set of the pod's namespace whose selector matches its labels
        (``getStatefulSetsForPod``, through the lister's ``GetPodStatefulSets``); more than one is a
        user error, reported."""
        if not pod.labels:
            return []
        sets = [s for s in self.lister.list("StatefulSet", pod.namespace)
                if s.spec.selector and selector_matches(s.spec.selector, pod.labels)]
        if len(sets) > 1:
            self.warnings.append(f"More than one StatefulSet is selecting pods with same labels: "
                                 f"pod {pod.name}, sets {', '.join(s.name for s in sets)}")
        return sets

    def add_pod(self, pod) -> None:
        """A new pod (``addPod``): a terminating one is handled as a delete; one with a controllerRef
        enqueues that set; an orphan enqueues every set whose selector matches (one may adopt it)."""
        if pod.deletion_timestamp is not None:
            self.delete_pod(pod)
            return
        ref = controller_of(pod.owner_references)
        if ref is not None:
            sts = self.resolve_controller_ref(pod.namespace, ref)
            if sts is not None:
                self.enqueue_stateful_set(sts, f"Pod {pod.name} added")
            return
        for sts in self.get_stateful_sets_for_pod(pod):
            self.enqueue_stateful_set(sts, f"orphan Pod {pod.name} added")

    def update_pod(self, old, cur) -> None:
        """A changed pod (``updatePod``).

        Same resource version: a resync, nothing to do.  A changed
        controllerRef enqueues the old owner.  With a controllerRef, enqueue
        that set, and again after minReadySeconds when the pod just turned
        Ready.  An orphan whose labels or ref changed enqueues every set whose
        selector matches it (so a pod relabelled into a set is adopted).
        """
        if cur.resource_version == old.resource_version:
            return
        label_changed = dict(cur.labels) != dict(old.labels)
        cur_ref, old_ref = controller_of(cur.owner_references), controller_of(old.owner_references)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            sts = self.resolve_controller_ref(old.namespace, old_ref)
            if sts is not None:
                self.enqueue_stateful_set(sts, f"Pod {cur.name} updated (controllerRef changed, old owner)")
        if cur_ref is not None:
            sts = self.resolve_controller_ref(cur.namespace, cur_ref)
            if sts is None:
                return
            self.enqueue_stateful_set(sts, f"Pod {cur.name} updated")
            mrs = min_ready_seconds(sts, self.controller.profile)
            if not old.ready and cur.ready and mrs > 0:
                self.enqueue_ss_after(sts, mrs, f"Pod {cur.name} turned Ready (minReadySeconds={mrs})")
            return
        if label_changed or ref_changed:
            for sts in self.get_stateful_sets_for_pod(cur):
                self.enqueue_stateful_set(sts, f"orphan Pod {cur.name} updated (labels or controllerRef changed)")

    def delete_pod(self, obj) -> None:
        """A deleted pod (``deletePod``): unwrap a tombstone; enqueue its controller, if it has one
        (deleting an orphan wakes no set)."""
        pod, how = (obj.obj, " (tombstone)") if isinstance(obj, Tombstone) else (obj, "")
        ref = controller_of(pod.owner_references)
        if ref is None:
            return
        sts = self.resolve_controller_ref(pod.namespace, ref)
        if sts is not None:
            verb = "deleted" if isinstance(obj, Tombstone) or pod.deletion_timestamp is None else "terminating"
            self.enqueue_stateful_set(sts, f"Pod {pod.name} {verb}{how}")

    # --------------------------------------------------------------- worker
    def _wrote(self, kind: str, verb: str, old, new) -> None:
        """``WroteAt`` for a write the running sync made (the consistency store's record)."""
        if self._syncing is not None and self.consistency is not None and recorded_write(kind, verb, old, new):
            self.consistency.wrote_at(*self._syncing, kind, new.resource_version)

    def process_next_work_item(self, key: str):
        """Sync one key the worker holds (``processNextWorkItem``): on error ``AddRateLimited``,
        else ``Forget``; ``Done`` always.  Returns the SyncResult, or None if the set is gone or
        the caches have not yet seen the set's last writes (``EnsureReady``: no sync then)."""
        namespace, _, name = key.partition("/")
        result = None
        stale = None
        try:
            if self.consistency is not None:
                stale = self.consistency.ensure_ready(key, self.informers.synced_rv)
                if stale is not None:
                    self.queue.add_rate_limited(key, f"caches behind the set's own writes: {stale}")
                    return None
            sts = self.lister.get("StatefulSet", namespace, name)
            if sts is None:  # ``sync``: "StatefulSet has been deleted"
                if self.consistency is not None:
                    self.consistency.clear(key)
                self.queue.forget(key)
                return None
            self._syncing = (key, sts.uid)
            try:
                result = self.sync(name, namespace)  # it reads the informer caches (syncing_listers)
            finally:
                self._syncing = None
            if result.error:
                self.queue.add_rate_limited(key, f"sync {result.sync} failed: {result.error}")
            else:
                self.queue.forget(key)
                self._requeue_for_availability(sts, key, result)
            return result
        finally:
            self.queue.done(key, f"no sync: {stale}" if stale is not None else "set not found: deleted"
                            if result is None else f"sync {result.sync}: {_outcome(result)}")

    def _requeue_for_availability(self, sts, key: str, result) -> None:
        """``syncStatefulSet``'s ``enqueueSSAfter``: with minReadySeconds, while some Ready pod is not
        yet Available, sync again at the instant the first one can be (``result.requeue_after``)."""
        if result.requeue_after is None:
            return
        self.enqueue_ss_after(sts, result.requeue_after, f"sync {result.sync}: Ready pods not yet Available")

    def worker(self, keys: list[str], results: list) -> None:
        """The workers' turn at one instant (``worker``): each key handed out is synced
        (``processNextWorkItem``), its result kept in *results*."""
        for key in keys:
            result = self.process_next_work_item(key)
            if result is not None:
                results.append(result)

    def run(self, max_syncs: int = 1000, until: float | None = None):
        """Run the controller until nothing is queued or scheduled, *max_syncs* syncs, or time *until*
        (``Run``: its workers, one :meth:`worker` turn per instant).

        Each round hands up to :attr:`workers` keys out at the same instant and
        syncs them in turn; with nothing queued the clock jumps to the next
        scheduled event (a delivery, a kubelet stage, a delayed key).
        """
        results = []
        while len(results) < max_syncs:
            self.clock.advance_to(self.clock.now)
            keys = []
            while len(keys) < self.workers:
                key = self.queue.get()
                if key is None:
                    break
                keys.append(key)
            if keys:
                self.worker(keys, results)
                continue
            nxt = self.clock.peek()
            if nxt is None or (until is not None and nxt > until):
                break
            self.clock.advance_to(nxt)
        return results


def _outcome(result) -> str:
    if result.error:
        return "error"
    if result.changed:
        return "changed objects"
    if any(d.action == "status" and d.applied for d in result.decisions):
        return "wrote status"
    return "nothing to do"


def _obj(obj):
    return obj.obj if isinstance(obj, Tombstone) else obj
