"""Errors raised by stsedu, in the API server's style."""

from __future__ import annotations

from collections.abc import Iterable


class ValidationError(ValueError):
    """Raised when a manifest or an edit is invalid; nothing has been changed.

    *errors* is a list of ``(field_path, message)`` pairs, in the order the
    API server would report them, for example
    ``("spec.replicas", "must be greater than or equal to 0")``.  *kind* and
    *name* name the object, as in ``StatefulSet.apps "web" is invalid``.
    *warnings* are the unknown-field warnings of the manifest; *others* hold
    one ValidationError per further invalid document of a multi-document
    manifest (each printed on its own line, as kubectl prints them).
    """

    def __init__(self, errors: Iterable[tuple[str, str]], kind: str = "StatefulSet.apps",
                 name: str = "", warnings: Iterable[str] = (), others: Iterable["ValidationError"] = ()):
        self.errors = [(str(p), str(m)) for p, m in errors]
        self.kind = kind
        self.name = name
        self.warnings = list(warnings)
        self.others = list(others)
        """Errors of further invalid documents of the same manifest (one per document)."""
        super().__init__("\n".join([self._text()] + [o._text() for o in self.others]))

    def _text(self) -> str:
        head = f'{self.kind} "{self.name}" is invalid' if self.name else f"{self.kind} is invalid"
        parts = [f"{p}: {m}" if p else m for p, m in self.errors]
        if len(parts) == 1:
            return f"{head}: {parts[0]}"
        return f"{head}: [" + ", ".join(parts) + "]"


class APIError(RuntimeError):
    """A simulated API server failure (injected with ``cluster.inject_error``).

    The controller treats it as upstream treats a failed request: the sync
    stops where upstream's would, and the set is synced again later.
    """

    def __init__(self, verb: str, kind: str, name: str, reason: str = "InternalError",
                 message: str | None = None):
        self.verb, self.kind, self.name, self.reason = verb, kind, name, reason
        resource = _RESOURCES.get(kind, kind.lower() + "s")
        if message is not None:  # the API server's own words (e.g. a status it found Invalid)
            pass
        elif reason == "AlreadyExists":  # worded as the API server's StatusReasonAlreadyExists
            message = f'{resource} "{name}" already exists'
        elif reason == "NotFound":
            message = f'{resource} "{name}" not found'
        elif reason == "Conflict":  # a stale resourceVersion (optimistic concurrency)
            message = (f'Operation cannot be fulfilled on {resource} "{name}": the object has been '
                       "modified; please apply your changes to the latest version and try again")
        else:
            message = f"{reason}: simulated failure to {verb} {kind} {name!r}"
        super().__init__(message)


class RolloutError(ValidationError):
    """Raised by the ``kubectl rollout``-like calls when kubectl would print ``error: ...``.

    A :class:`ValidationError` whose text is kubectl's own sentence, for
    example ``unable to find specified revision 5 in history``; nothing has
    been changed.
    """

    def __init__(self, message: str, name: str = ""):
        super().__init__([("", message)], kind="StatefulSet.apps", name=name)

    def _text(self) -> str:
        return self.errors[0][1]


_RESOURCES = {"Pod": "pods", "PersistentVolumeClaim": "persistentvolumeclaims",
              "StatefulSet": "statefulsets.apps", "ControllerRevision": "controllerrevisions.apps",
              "Service": "services"}
