"""The in-memory object store: the only mutable state of a cluster.

It keeps one current version of each object per ``(kind, namespace, name)``,
assigns uids and resource versions, and tells its listeners about every
write, so the trace, the kubelet and the garbage collector can react.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from ..api.errors import APIError

KINDS = ("StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision", "Service")

Listener = Callable[[str, str, Any, Any], None]
"""``listener(kind, verb, old, new)``; verb is create, update or remove."""


class Store:
    """Objects by kind, then by ``(namespace, name)``.

    Raises :class:`APIError` with reason ``AlreadyExists`` on a duplicate create
    and ``NotFound`` on an update of a missing object, as the API server does.
    """

    def __init__(self, clock) -> None:
        self._clock = clock
        self._objects: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in KINDS}
        self._rv = 0
        self._uids = 0
        self._views: dict[tuple[str, str], Mapping[str, Any]] = {}
        self.listeners: list[Listener] = []

    def __getstate__(self) -> dict:
        """Pickled without the read-only views (made again on first use): a cluster's snapshot."""
        return {**vars(self), "_views": {}}

    # ------------------------------------------------------------------ reads
    def get(self, kind: str, namespace: str, name: str):
        """The object, or None."""
        ns = self._objects[kind].get(namespace)
        return None if ns is None else ns.get(name)

    def list(self, kind: str, namespace: str | None = None) -> list:
        """Objects of *kind* (in *namespace* if given), in insertion order."""
        if namespace is None:
            return [o for ns in self._objects[kind].values() for o in ns.values()]
        return list(self._objects[kind].get(namespace, {}).values())

    def view(self, kind: str, namespace: str) -> Mapping[str, Any]:
        """The live name -> object mapping of one namespace (read it, never write it)."""
        proxy = self._views.get((kind, namespace))
        if proxy is None:  # namespace dicts are never dropped, so one proxy serves for good
            proxy = self._views[(kind, namespace)] = MappingProxyType(
                self._objects[kind].setdefault(namespace, {}))
        return proxy

    @property
    def revision(self) -> int:
        """The last resourceVersion handed out: it moves on every write (a check that nothing changed)."""
        return self._rv

    def values(self, kind: str) -> Iterable:
        return [o for ns in self._objects[kind].values() for o in ns.values()]

    def count(self, kind: str) -> int:
        """How many objects of *kind* exist, in every namespace."""
        return sum(len(ns) for ns in self._objects[kind].values())

    # ----------------------------------------------------------------- writes
    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    def new_uid(self) -> str:
        """A deterministic uid (same calls, same uids)."""
        self._uids += 1
        n = self._uids
        return f"{n:08x}-0000-4000-8000-{n:012x}"

    def create(self, kind: str, obj):
        """Store a new object with a uid, a resource version and a creation time."""
        ns = self._objects[kind].setdefault(obj.namespace, {})
        if obj.name in ns:
            raise APIError("create", kind, obj.name, reason="AlreadyExists")
        obj = replace(obj, uid=obj.uid or self.new_uid(), resource_version=self._next_rv(),
                      creation_timestamp=self._clock.now)
        ns[obj.name] = obj
        self._notify(kind, "create", None, obj)
        return obj

    def update(self, kind: str, obj):
        """Replace the stored version with *obj*, bumping the resource version.

        Optimistic concurrency, as the API server has it: *obj* carries the resource version
        it was read at; if the object has been written since, the update is refused with
        Conflict (409, "the object has been modified; please apply your changes to the latest
        version and try again") and nothing changes.  An object with no resource version (0)
        is not checked (an unconditional update).
        """
        ns = self._objects[kind].get(obj.namespace, {})
        old = ns.get(obj.name)
        if old is None:
            raise APIError("update", kind, obj.name, reason="NotFound")
        if obj.resource_version and obj.resource_version != old.resource_version:
            raise APIError("update", kind, obj.name, reason="Conflict")
        obj = replace(obj, resource_version=self._next_rv())
        ns[obj.name] = obj
        self._notify(kind, "update", old, obj)
        return obj

    def remove(self, kind: str, namespace: str, name: str):
        """Take the object out of the store for good (after graceful deletion)."""
        old = self._objects[kind].get(namespace, {}).pop(name, None)
        if old is not None:
            self._notify(kind, "remove", old, None)
        return old

    def _notify(self, kind, verb, old, new) -> None:
        for listener in self.listeners:
            listener(kind, verb, old, new)

    # --------------------------------------------------------------- dumping
    def dump(self) -> dict:
        """Every object's manifest, for comparing states (tests of 'nothing changed')."""
        return {kind: {f"{ns}/{name}": o.to_manifest() for ns, objs in sorted(by_ns.items())
                       for name, o in sorted(objs.items())}
                for kind, by_ns in self._objects.items()}
