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
    stops where upstream's would, and the set is synced again later.  It keeps the
    answer's *reason* (``metav1.StatusReason``) and its HTTP *code*, which the
    predicates below read, as ``k8s.io/apimachinery/pkg/api/errors`` reads a
    ``StatusError``; an empty reason with code 0 is an error the client made
    itself, without an answer (``StatusReasonUnknown``).
    """

    def __init__(self, verb: str, kind: str, name: str, reason: str = "InternalError",
                 message: str | None = None, code: int | None = None):
        self.verb, self.kind, self.name, self.reason = verb, kind, name, reason
        self.code = CODES.get(reason, 500 if reason else 0) if code is None else code
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
        self.message = message
        super().__init__(message)

    def answer(self) -> "APIError":
        """The answer alone: the same verb, kind, name, reason, code and message, without the
        traceback and chained exceptions of where it was raised (what a decision row keeps)."""
        return APIError(self.verb, self.kind, self.name, self.reason, self.message, self.code)


class WrappedError(RuntimeError):
    """An error a controller function makes of others (Go's ``fmt.Errorf("...: %w", err)``): its
    own text, and the error it wraps as ``__cause__`` (None for an aggregate:
    ``errorutils.NewAggregate`` wraps nothing ``errors.As`` finds), which the predicates below read."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.__cause__ = cause


def api_answer(err: BaseException | None) -> "APIError | None":
    """The API server's answer *err* is or wraps (:meth:`APIError.answer`), or None."""
    while err is not None:
        if isinstance(err, APIError):
            return err.answer()
        err = err.__cause__
    return None


CODES = {"BadRequest": 400, "Unauthorized": 401, "Forbidden": 403, "NotFound": 404,
         "MethodNotAllowed": 405, "NotAcceptable": 406, "AlreadyExists": 409, "Conflict": 409,
         "Gone": 410, "Expired": 410, "RequestEntityTooLarge": 413, "UnsupportedMediaType": 415,
         "Invalid": 422, "TooManyRequests": 429, "InternalError": 500, "ServiceUnavailable": 503,
         "Timeout": 504, "ServerTimeout": 500, "StoreReadError": 500}
"""The HTTP code the API server answers with each ``metav1.StatusReason`` (``NewConflict``,
``NewNotFound``, ...); a reason it does not know is answered 500."""


def reason_and_code(err: BaseException | None) -> tuple[str, int]:
    """``reasonAndCodeForError``: the reason and code of the :class:`APIError` *err* is or wraps
    (Python's ``raise ... from``, as Go's ``%w``), else ``("", 0)``."""
    while err is not None:
        if isinstance(err, APIError):
            return err.reason, err.code
        err = err.__cause__
    return "", 0


def _is(err: BaseException | None, reason: str, code: int | None) -> bool:
    got, got_code = reason_and_code(err)
    return got == reason or (code is not None and got not in CODES and got_code == code)


def is_conflict(err: BaseException | None) -> bool:
    """``apierrors.IsConflict``: *err* is (or wraps) a Conflict answer, or a 409 of a reason the
    API server does not name; False for None."""
    return _is(err, "Conflict", 409)


def is_not_found(err: BaseException | None) -> bool:
    """``apierrors.IsNotFound``: *err* is (or wraps) a NotFound answer, or a 404 of an unknown reason."""
    return _is(err, "NotFound", 404)


def is_already_exists(err: BaseException | None) -> bool:
    """``apierrors.IsAlreadyExists``: *err* is (or wraps) an AlreadyExists answer (by reason only)."""
    return _is(err, "AlreadyExists", None)


def is_invalid(err: BaseException | None) -> bool:
    """``apierrors.IsInvalid``: *err* is (or wraps) an Invalid answer, or a 422 of an unknown reason."""
    return _is(err, "Invalid", 422)


def is_too_many_requests(err: BaseException | None) -> bool:
    """``apierrors.IsTooManyRequests``: *err* is (or wraps) a TooManyRequests answer, or any answer
    with code 429 (whatever its reason, as apimachinery reads the status code itself)."""
    reason, code = reason_and_code(err)
    return reason == "TooManyRequests" or code == 429


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
