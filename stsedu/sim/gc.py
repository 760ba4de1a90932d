"""The garbage collector and the PVC protection controller of the cluster.

What the real ``kube-controller-manager`` garbage collector
(``pkg/controller/garbagecollector``) and ``pvc-protection`` controller do,
for the kinds stsedu stores:

* Each owner reference of a dependent (pod, claim, revision) is *solid*
  (the owner exists), *dangling* (the owner is gone, or has another uid) or
  *waiting* (the owner is being deleted in the foreground).  A dependent with
  no solid owner is deleted: pods gracefully (they become terminating),
  claims are marked deleting, revisions removed.  A dependent that still has
  a solid owner loses its dangling and waiting refs
  (``attemptToDeleteItem`` / ``classifyReferences``).
* ``foreground`` deletion: the owner keeps existing, with a deletion
  timestamp and the ``foregroundDeletion`` finalizer, until no dependent
  with ``blockOwnerDeletion`` points at it any more
  (``processDeletingDependentsItem``).
* ``orphan`` deletion: the owner's refs are removed from its dependents,
  then the owner goes (``attemptToOrphan``).
* A claim that is being deleted disappears once no pod uses it (the
  ``kubernetes.io/pvc-protection`` finalizer).  Every pod counts as
  scheduled here, so any pod that mounts the claim keeps it.

Collection runs *delay* seconds after the change that triggers it (0: at
once).  The real collector works from informers and takes a moment; a delay
makes windows such as a stale claim (``PodClaimIsStale``) visible.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .clock import URGENT

if TYPE_CHECKING:  # pragma: no cover
    from .writes import Writes

FOREGROUND = "foregroundDeletion"
"""Finalizer of an owner deleted with ``propagationPolicy: Foreground``."""
ORPHAN = "orphan"
"""Finalizer of an owner deleted with ``propagationPolicy: Orphan``."""
DEPENDENT_KINDS = ("Pod", "PersistentVolumeClaim", "ControllerRevision")
OWNER_KINDS = ("StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision", "Service")
_RESOURCE = {"Pod": "pod", "PersistentVolumeClaim": "persistentvolumeclaim",
             "ControllerRevision": "controllerrevision", "StatefulSet": "statefulset"}


class GarbageCollector:
    """Deletes dependents whose owners are gone (see module docstring)."""

    def __init__(self, writes: "Writes", delay: float = 0.0) -> None:
        self.writes = writes
        self.delay = delay
        self._scheduled = False
        self._running = False

    def trigger(self) -> None:
        """Ask for a collection pass (now, or after the delay)."""
        if self.delay <= 0:
            self.collect()
        elif not self._scheduled:
            self._scheduled = True
            clock = self.writes.clock
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

    # ----------------------------------------------------------------- a pass
    def _owners(self) -> dict[str, object]:
        store = self.writes.store
        return {o.uid: o for kind in OWNER_KINDS for o in store.values(kind)}

    def _pass(self) -> bool:
        changed = self._orphan_dependents()
        owners = self._owners()
        waiting = {uid for uid, o in owners.items()
                   if o.deletion_timestamp is not None and FOREGROUND in getattr(o, "finalizers", ())}
        solid = owners.keys() - waiting if waiting else owners
        for kind in DEPENDENT_KINDS:
            for obj in self.writes.store.values(kind):  # a list: writes below do not disturb it
                for r in obj.owner_references:
                    if r.uid not in solid:  # a dangling or waiting ref: work to do
                        changed |= self._attempt_to_delete(kind, obj, owners, waiting)
                        break
                # every ref solid (or none at all): _attempt_to_delete would do nothing
        changed |= self._finish_foreground()
        changed |= self._protect_claims()
        return changed

    def _attempt_to_delete(self, kind: str, obj, owners: dict, waiting: set[str]) -> bool:
        """Delete *obj* if no owner is solid, or drop its dangling/waiting refs (``attemptToDeleteItem``)."""
        refs = obj.owner_references
        dangling = [r for r in refs if r.uid not in owners]
        waiting_refs = [r for r in refs if r.uid in waiting and r not in dangling]
        solid = [r for r in refs if r not in dangling and r not in waiting_refs]
        if solid:
            if not dangling and not waiting_refs:
                return False
            gone = {id(r) for r in dangling + waiting_refs}
            kept = tuple(r for r in refs if id(r) not in gone)
            what = ", ".join(f"{r.kind.lower()}/{r.name}" for r in dangling + waiting_refs)
            self._event(kind, obj, "OwnerRefRemoved",
                        f"garbage collector: removed the ref to {what} (gone or being deleted); "
                        f"{kind.lower()} {obj.name} keeps its other owner(s)")
            self._write(kind, replace(obj, owner_references=kept), "garbage collector: drop dangling owner")
            return True
        if obj.deletion_timestamp is not None:
            return False
        why = ("its owner " + ", ".join(f"{r.kind.lower()}/{r.name}" for r in refs)
               + (" is being deleted (foreground)" if waiting_refs and not dangling else " is gone"))
        self._delete(kind, obj, why)
        return True

    def _orphan_dependents(self) -> bool:
        """Owners deleted with ``orphan``: strip their refs from dependents, then remove them (``attemptToOrphan``)."""
        c, store = self.writes, self.writes.store
        changed = False
        for sts in list(store.values("StatefulSet")):
            if sts.deletion_timestamp is None or ORPHAN not in sts.finalizers:
                continue
            for kind in DEPENDENT_KINDS:
                for obj in list(store.values(kind)):
                    if obj.namespace == sts.namespace and any(r.uid == sts.uid for r in obj.owner_references):
                        kept = tuple(r for r in obj.owner_references if r.uid != sts.uid)
                        self._write(kind, replace(obj, owner_references=kept), "garbage collector: orphan")
                        self._event(kind, obj, "Orphaned",
                                    f"garbage collector: removed the ref to statefulset/{sts.name}; "
                                    f"{kind.lower()} {obj.name} stays, without that owner")
            store.remove("StatefulSet", sts.namespace, sts.name)
            c.trace.add_event("Normal", "Deleted", f"statefulset/{sts.name}",
                              "orphan deletion finished: the set is gone, its dependents stay")
            changed = True
        return changed

    def _finish_foreground(self) -> bool:
        """Remove foreground-deleted owners once nothing blocks them (``processDeletingDependentsItem``)."""
        c, store = self.writes, self.writes.store
        changed = False
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
        return changed

    # ---------------------------------------------------------------- writes
    def _write(self, kind: str, obj, cause: str) -> None:
        if kind == "Pod":
            self.writes.write_pod(obj, cause)
        else:
            self.writes.store.update(kind, obj)

    def _event(self, kind: str, obj, reason: str, message: str) -> None:
        self.writes.trace.add_event("Normal", reason, f"{_RESOURCE[kind]}/{obj.name}", message)

    def _delete(self, kind: str, obj, why: str) -> None:
        c = self.writes
        if kind == "Pod":
            self._event(kind, obj, "GarbageCollected", f"garbage collector deletes pod {obj.name}: {why}")
            c.delete_pod(obj.namespace, obj.name, "garbage collector")
        elif kind == "PersistentVolumeClaim":
            c.store.update(kind, replace(obj, deletion_timestamp=c.clock.now))
            self._event(kind, obj, "ClaimDeleting", f"garbage collector deletes claim {obj.name}: {why}")
        else:
            c.store.remove(kind, obj.namespace, obj.name)
            self._event(kind, obj, "GarbageCollected", f"garbage collector deletes {kind} {obj.name}: {why}")

    def _protect_claims(self) -> bool:
        """Remove deleting claims that no pod uses any more (``pvc-protection``)."""
        store = self.writes.store
        deleting = [p for p in store.values("PersistentVolumeClaim") if p.deletion_timestamp is not None]
        if not deleting:
            return False
        used = claims_in_use(store.values("Pod"))
        changed = False
        for claim in deleting:
            if (claim.namespace, claim.name) not in used:
                store.remove("PersistentVolumeClaim", claim.namespace, claim.name)
                self.writes.trace.add_event("Normal", "ClaimDeleted", f"persistentvolumeclaim/{claim.name}",
                                             f"claim {claim.name} is gone (no pod uses it)")
                changed = True
        return changed


def claims_in_use(pods) -> set[tuple[str, str]]:
    """(namespace, claim name) of every claim mounted by one of *pods* (``podUsesPVC``)."""
    used = set()
    for pod in pods:
        for v in pod.spec.get("volumes", ()) or ():
            pvc = v.get("persistentVolumeClaim")
            if pvc:
                used.add((pod.namespace, pvc.get("claimName")))
    return used
