"""The consistency store: no sync on a cache that has not yet seen the controller's own writes.

Upstream (``pkg/controller/util/consistency``, used by ``pkg/controller/statefulset`` when the
``StaleControllerConsistencyStatefulSet`` gate is on: beta and on by default from v1.36, with
client-go's ``AtomicFIFO``, also on by default) the controller remembers, per set, the newest
resource version it wrote of each resource (``WroteAt``: a pod created, updated, adopted; a claim
created or updated; the set's status).  Before a sync, ``EnsureReady`` compares them with the
resource version each informer has last synced (``LastStoreSyncResourceVersion``): if an informer
is behind, the sync returns a ``ConsistencyError`` and the key is requeued with rate limiting;
once every informer has caught up the record is cleared and the sync runs.  Deleting a pod, a
revision write or a release (the pod has no controller any more) records nothing.

In stsedu this matters only with ``Cluster(informer_delay=...)``: pod events arrive late, and a
sync woken by the controller's own status write waits for the pod informer instead of creating
the pod it just created again.  The v1.16 profile has no such store (``Profile.consistency_store``).
"""

from __future__ import annotations

from ..api.objects import controller_of

RESOURCES = {"Pod": "pods", "PersistentVolumeClaim": "persistentvolumeclaims", "StatefulSet": "statefulsets.apps"}
"""The resources whose writes are recorded (``podGroupResource``, ...), as ``GroupResource.String()`` writes them."""


class ConsistencyStore:
    """``RealConsistencyStore``: per set key, the set's uid and the newest resource version written
    of each kind."""

    def __init__(self) -> None:
        self.writes: dict[str, tuple[str, dict[str, int]]] = {}

    def wrote_at(self, key: str, owner_uid: str, kind: str, rv: int) -> None:
        """``WroteAt``: keep the newest written resource version (a record of another uid is replaced)."""
        uid, versions = self.writes.get(key, (owner_uid, {}))
        if uid != owner_uid:
            versions = {}
        versions[kind] = max(rv, versions.get(kind, 0))
        self.writes[key] = (owner_uid, versions)

    def clear(self, key: str) -> None:
        """``Clear`` (with no uid: whatever the record's owner)."""
        self.writes.pop(key, None)

    def ensure_ready(self, key: str, synced: dict[str, int]) -> str | None:
        """``EnsureReady``: None (and the record cleared) when every informer has synced at least what
        was written, else the ``ConsistencyError`` message."""
        record = self.writes.get(key)
        if record is None:
            return None
        for kind, wrote in record[1].items():
            read = synced.get(kind, 0)
            if wrote > read:
                return (f"read version: {read} is not as new as written version: {wrote} "
                        f"for group resource {RESOURCES[kind]}")
        self.clear(key)
        return None


def recorded_write(kind: str, verb: str, old, new) -> bool:
    """Whether a controller write is one upstream records with ``WroteAt``."""
    if kind not in RESOURCES or verb == "remove" or new is None:
        return False
    if kind == "Pod":
        if new.deletion_timestamp is not None and (old is None or old.deletion_timestamp is None):
            return False  # DeleteStatefulPod records nothing
        if controller_of(new.owner_references) is None:
            return False  # a release: PatchPod's OnWrite has no controller to record for
    return True
