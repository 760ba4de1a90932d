"""The controller's outer loop: informer events -> handlers -> work queue -> worker -> sync.

Upstream, ``NewStatefulSetController`` registers handlers on the Pod and
StatefulSet informers (the ControllerRevision and PVC informers are only read
through their listers: their events enqueue nothing); the handlers turn
events into ``namespace/name`` keys in a rate-limited work queue; workers
(``--concurrent-statefulset-syncs``, default 1) take keys and run ``sync``.
:class:`ControllerLoop` does the same on the simulated clock; every step is
recorded in the trace's queue table (``Trace.queue()``).
"""

from __future__ import annotations

from ..api.objects import controller_of, selector_matches
from . import stateful_set_utils as P
from ..client.informers import Informers, Tombstone
from ..client.workqueue import WorkQueue
from .consistency import ConsistencyStore, recorded_write


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
        self.consistency = ConsistencyStore() if getattr(controller.profile, "consistency_store", False) else None
        """``StaleControllerConsistencyStatefulSet`` (stsedu.controller.consistency), or None."""
        self._syncing: tuple[str, str] | None = None
        informers.store.listeners.append(self._wrote)
        h = informers.handlers
        h["Pod"].on_add, h["Pod"].on_update, h["Pod"].on_delete = self.add_pod, self.update_pod, self.delete_pod
        h["StatefulSet"].on_add = lambda s: self.enqueue_stateful_set(s, f"StatefulSet {s.name} added")
        h["StatefulSet"].on_update = lambda old, s: self.enqueue_stateful_set(s, f"StatefulSet {s.name} updated")
        h["StatefulSet"].on_delete = lambda s: self.enqueue_stateful_set(
            s, f"StatefulSet {_obj(s).name} deleted")

    # ------------------------------------------------------------ handlers
    def enqueue_stateful_set(self, sts, cause: str) -> None:
        """Add the set's key to the queue (``enqueueStatefulSet``)."""
        self.queue.add(key_of(sts), cause)

    def resolve_controller_ref(self, namespace: str, ref):
        """The set a controllerRef points to, from the cache, if its kind and uid match (``resolveControllerRef``)."""
        if ref.kind != "StatefulSet":
            return None
        sts = self.lister.get("StatefulSet", namespace, ref.name)
        if sts is None or sts.uid != ref.uid:
            return None
        return sts

    def get_pod_stateful_sets(self, pod) -> list:
        """Every cached set of the pod's namespace whose selector matches its labels
        (``getStatefulSetsForPod`` / ``GetPodStatefulSets``); more than one is a user error, reported."""
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
        for sts in self.get_pod_stateful_sets(pod):
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
            mrs = P.min_ready_seconds(sts, self.controller.profile)
            if not old.ready and cur.ready and mrs > 0:
                self.queue.add_after(key_of(sts), mrs, f"Pod {cur.name} turned Ready (minReadySeconds={mrs})")
            return
        if label_changed or ref_changed:
            for sts in self.get_pod_stateful_sets(cur):
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
            ctl = self.controller
            store, ctl.store = ctl.store, self.lister  # the sync reads the informer caches (listers)
            self._syncing = (key, sts.uid)
            try:
                result = self.sync(name, namespace)
            finally:
                ctl.store = store
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
        self.queue.add_after(key, result.requeue_after, f"sync {result.sync}: Ready pods not yet Available")

    def run(self, max_syncs: int = 1000, until: float | None = None):
        """Run the controller until nothing is queued or scheduled, *max_syncs* syncs, or time *until*.

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
                for key in keys:
                    result = self.process_next_work_item(key)
                    if result is not None:
                        results.append(result)
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
