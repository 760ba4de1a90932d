"""The garbage collector and the PVC protection controller of the cluster.

* An object whose owners are all gone is deleted (pods gracefully, claims
  marked deleting, revisions removed); dangling refs to gone owners are
  dropped when other owners remain.
* A set deleted with ``foreground`` propagation keeps existing until its
  dependents that block owner deletion are gone.
* ``orphan`` propagation removes the set's refs from its dependents.
* A claim that is being deleted disappears once no pod uses it
  (``kubernetes.io/pvc-protection``).

Collection runs *delay* seconds after the change that triggers it (0: at once).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .clock import URGENT

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import Cluster

FOREGROUND = "foregroundDeletion"
DEPENDENT_KINDS = ("Pod", "PersistentVolumeClaim", "ControllerRevision")


class GarbageCollector:
    """Deletes dependents whose owners are gone (see module docstring)."""

    def __init__(self, cluster: "Cluster", delay: float = 0.0) -> None:
        self.cluster = cluster
        self.delay = delay
        self._scheduled = False
        self._running = False

    def trigger(self) -> None:
        """Ask for a collection pass (now, or after the delay)."""
        if self.delay <= 0:
            self.collect()
        elif not self._scheduled:
            self._scheduled = True
            clock = self.cluster.clock
            clock.schedule(clock.now + self.delay, self._scheduled_collect, priority=URGENT,
                           label="garbage collector")

    def _scheduled_collect(self) -> None:
        self._scheduled = False
        self.collect()

    def collect(self) -> None:
        """Run passes until nothing more changes."""
        if self._running:
            return
        self._running = True
        try:
            while self._pass():
                pass
        finally:
            self._running = False

    def _alive(self) -> set[str]:
        store = self.cluster.store
        return {o.uid for kind in ("StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision",
                                   "Service") for o in store.values(kind)}

    def _pass(self) -> bool:
        c, store = self.cluster, self.cluster.store
        changed = False
        alive = self._alive()
        foreground = {s.uid for s in store.values("StatefulSet") if FOREGROUND in s.finalizers}
        for kind in DEPENDENT_KINDS:
            for obj in list(store.values(kind)):
                refs = obj.owner_references
                if not refs:
                    continue
                gone = [r for r in refs if r.uid not in alive]
                owner_deleting = [r for r in refs if r.uid in foreground]
                if gone and len(gone) == len(refs) or owner_deleting and not [
                        r for r in refs if r.uid in alive and r.uid not in foreground]:
                    if obj.deletion_timestamp is None:
                        self._delete(kind, obj)
                        changed = True
                elif gone:
                    kept = tuple(r for r in refs if r.uid in alive)
                    if kind == "Pod":
                        c._write_pod(replace(obj, owner_references=kept), "garbage collector: drop dangling owner")
                    else:
                        store.update(kind, replace(obj, owner_references=kept))
                    changed = True
        # foreground: the owner goes once its blocking dependents are gone
        for sts in list(store.values("StatefulSet")):
            if FOREGROUND not in sts.finalizers:
                continue
            blocking = [o for kind in DEPENDENT_KINDS for o in store.values(kind)
                        if any(r.uid == sts.uid and r.block_owner_deletion for r in o.owner_references)]
            if not blocking:
                store.remove("StatefulSet", sts.namespace, sts.name)
                c.trace.add_event("Normal", "Deleted", f"statefulset/{sts.name}",
                                  "foreground deletion finished: every dependent is gone")
                changed = True
        changed |= self._protect_claims()
        return changed

    def _delete(self, kind: str, obj) -> None:
        c = self.cluster
        if kind == "Pod":
            c._delete_pod(obj.namespace, obj.name, "garbage collector")
        elif kind == "PersistentVolumeClaim":
            c.store.update(kind, replace(obj, deletion_timestamp=c.clock.now))
            c.trace.add_event("Normal", "ClaimDeleting", f"persistentvolumeclaim/{obj.name}",
                              f"garbage collector deletes claim {obj.name}: its owner is gone")
        else:
            c.store.remove(kind, obj.namespace, obj.name)

    def _protect_claims(self) -> bool:
        """Remove deleting claims that no pod uses any more."""
        store = self.cluster.store
        deleting = [p for p in store.values("PersistentVolumeClaim") if p.deletion_timestamp is not None]
        if not deleting:
            return False
        used = set()
        for pod in store.values("Pod"):
            for v in pod.spec.get("volumes", ()) or ():
                pvc = v.get("persistentVolumeClaim")
                if pvc:
                    used.add((pod.namespace, pvc.get("claimName")))
        changed = False
        for claim in deleting:
            if (claim.namespace, claim.name) not in used:
                store.remove("PersistentVolumeClaim", claim.namespace, claim.name)
                self.cluster.trace.add_event("Normal", "ClaimDeleted", f"persistentvolumeclaim/{claim.name}",
                                             f"claim {claim.name} is gone (no pod uses it)")
                changed = True
        return changed
