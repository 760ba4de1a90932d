"""Informers: the controller's cached view of the cluster, fed by a watch of every write.

Every write to the store (by the controller, the kubelet, the garbage
collector or the user) becomes a watch event.  The informer delivers it
*delay* seconds later (0: at once): it updates its cache first, then calls
the handlers registered for that kind (``cache.ResourceEventHandlerFuncs``:
``on_add(new)``, ``on_update(old, new)``, ``on_delete(old)``), as client-go's
shared informer does.  The controller reads the cache through
:class:`Lister`, so with a delay it can act on a stale view; the API server
(the store) then refuses what no longer fits (AlreadyExists, NotFound) and
the key is retried.

:meth:`Informers.relist` plays a re-list after a dropped watch: objects the
cache holds but the store no longer has are delivered as
:class:`Tombstone` deletes (``cache.DeletedFinalStateUnknown``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any, Callable

from ..sim.clock import NORMAL

WATCHED = ("StatefulSet", "Pod", "ControllerRevision", "PersistentVolumeClaim")
"""The kinds the StatefulSet controller's informers watch (``NewStatefulSetController``'s arguments)."""

DELAYED = ("Pod",)
"""The kinds whose events the delay holds back: the pod watch lags while the set's does not, so
a sync can see its own status write but not yet the pod it created (separate watches keep no
order between them)."""


@dataclass(frozen=True)
class Tombstone:
    """A delete whose final state the informer missed (``cache.DeletedFinalStateUnknown``).

    *obj* is the last version the cache held (it may be stale)."""

    key: str
    obj: Any


@dataclass
class Handlers:
    """The event handlers registered for one kind (``cache.ResourceEventHandlerFuncs``)."""

    on_add: Callable[[Any], None] | None = None
    on_update: Callable[[Any, Any], None] | None = None
    on_delete: Callable[[Any], None] | None = None


class Lister:
    """Read-only access to an informer cache, with the store's read methods (``get``, ``list``, ``view``)."""

    def __init__(self, cache: dict[str, dict[str, dict[str, Any]]]) -> None:
        self._cache = cache
        self._views: dict[tuple[str, str], Any] = {}

    def __getstate__(self) -> dict:
        """Pickled without the read-only views (made again on first use): a cluster's snapshot."""
        return {**vars(self), "_views": {}}

    def get(self, kind: str, namespace: str, name: str):
        return self._cache[kind].get(namespace, {}).get(name)

    def list(self, kind: str, namespace: str | None = None) -> list:
        if namespace is None:
            return [o for ns in self._cache[kind].values() for o in ns.values()]
        return list(self._cache[kind].get(namespace, {}).values())

    def values(self, kind: str) -> list:
        return self.list(kind)

    def view(self, kind: str, namespace: str):
        proxy = self._views.get((kind, namespace))
        if proxy is None:
            proxy = self._views[(kind, namespace)] = MappingProxyType(
                self._cache[kind].setdefault(namespace, {}))
        return proxy


class Informers:
    """One informer per watched kind; the Pod informer delivers *delay* seconds late (simulated)."""

    def __init__(self, store, clock, delay: float = 0.0) -> None:
        self.store = store
        self.clock = clock
        self.delay = float(delay)
        """How long after a pod write its event reaches the cache and the handlers."""
        self.cache: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in WATCHED}
        self.lister = Lister(self.cache)
        self.handlers: dict[str, Handlers] = {k: Handlers() for k in WATCHED}
        self.in_flight = 0
        """Events written but not yet delivered."""
        self.synced_rv: dict[str, int] = {k: 0 for k in WATCHED}
        """The newest resource version each informer has seen (``LastStoreSyncResourceVersion``)."""
        for kind in WATCHED:  # start from what is already stored (the initial list)
            for obj in store.list(kind):
                self.cache[kind].setdefault(obj.namespace, {})[obj.name] = obj
                self.synced_rv[kind] = max(self.synced_rv[kind], obj.resource_version or 0)
        store.listeners.append(self._on_write)

    def _on_write(self, kind: str, verb: str, old, new) -> None:
        if kind not in self.cache:
            return
        if self.delay <= 0 or kind not in DELAYED:
            self._deliver(kind, verb, old, new)
            return
        self.in_flight += 1
        name = (new or old).name
        self.clock.schedule(self.clock.now + self.delay, partial(self._deliver_late, kind, verb, old, new),
                            priority=NORMAL, label=f"informer: {kind} {name} {verb}")

    def _deliver_late(self, kind: str, verb: str, old, new) -> None:
        self.in_flight -= 1
        self._deliver(kind, verb, old, new)

    def _deliver(self, kind: str, verb: str, old, new) -> None:
        """Update the cache, then call the kind's handlers (the shared informer's ``HandleDeltas``)."""
        objs = self.cache[kind].setdefault((new or old).namespace, {})
        h = self.handlers[kind]
        self.synced_rv[kind] = max(self.synced_rv[kind], (new or old).resource_version or 0)
        if verb == "remove":
            objs.pop(old.name, None)
            if h.on_delete:
                h.on_delete(old)
            return
        cached = objs.get(new.name)
        objs[new.name] = new
        if cached is None:
            if h.on_add:
                h.on_add(new)
        elif h.on_update:
            h.on_update(cached, new)

    def relist(self) -> None:
        """Re-list every watched kind, as after a dropped watch (``Reflector.ListAndWatch`` / ``Replace``).

        Objects the store has and the cache misses or holds older arrive as
        add / update events; objects the cache holds that are gone from the
        store arrive as :class:`Tombstone` deletes.
        """
        for kind in WATCHED:
            h = self.handlers[kind]
            live = {(o.namespace, o.name): o for o in self.store.list(kind)}
            self.synced_rv[kind] = max([self.synced_rv[kind]] + [o.resource_version or 0 for o in live.values()])
            for ns, objs in self.cache[kind].items():
                for name in list(objs):
                    if (ns, name) not in live:
                        last = objs.pop(name)
                        if h.on_delete:
                            h.on_delete(Tombstone(f"{ns}/{name}", last))
            for (ns, name), obj in live.items():
                objs = self.cache[kind].setdefault(ns, {})
                cached = objs.get(name)
                objs[name] = obj
                if cached is None:
                    if h.on_add:
                        h.on_add(obj)
                elif cached is not obj and h.on_update:
                    h.on_update(cached, obj)
