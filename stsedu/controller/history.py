"""Controller history: hash, name, equality, truncation, and the revision create.

Mirrors ``pkg/controller/history/controller_history.go`` (and the history
truncation of ``stateful_set_control.go``).  All pure but :func:`create_controller_revision`,
which sends its requests through the pod control it is given (the kit's pod control carries
upstream's controller history), and :class:`ClusterHistory`, the history's requests
(``history.Interface``) over a simulated cluster.  The revision helpers upstream keeps
in ``stateful_set_utils.go`` (``getPatch``, ``newRevision``, ``nextRevision``)
are in ``stateful_set_utils.py``.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from ..api.errors import APIError, is_already_exists, is_conflict
from ..api.objects import HASH_LABEL, ControllerRevision, StatefulSet, controller_of, selector_matches
from .decisions import STEP_REVISIONS, Decision, decision

_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
MAX_PREFIX = 223
"""Set names longer than this are cut when naming a revision (``ControllerRevisionName``)."""


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value) -> str:
    """*value* as Go's ``json.Marshal`` writes a map: sorted keys, no spaces, UTF-8 kept,
    and ``<``, ``>``, ``&``, U+2028, U+2029 escaped (Go's HTML-safe default)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if any(c in text for c in _GO_ESCAPES):
        text = "".join(_GO_ESCAPES.get(c, c) for c in text)
    return text


_FNV_PRIME = 0x01000193
_EIGHT_BYTES = struct.Struct("8B")


def fnv1_32(data: bytes) -> int:
    """FNV-1 (not 1a) 32-bit hash, as Go's ``hash/fnv.New32``: for each byte, multiply by the FNV
    prime modulo 2**32, then XOR the byte in.

    Eight bytes a step: the XOR touches only the low eight bits and the low 32 bits of a product
    depend only on the low 32 bits of its factors, so the reduction modulo 2**32 can wait until
    the eighth byte (a revision's data is hashed on every sync, and a Python step costs more than
    the arithmetic in it)."""
    p = _FNV_PRIME
    h = 0x811C9DC5
    whole = len(data) - len(data) % 8
    for a, b, c, d, e, f, g, i in _EIGHT_BYTES.iter_unpack(data[:whole]):
        h = ((((((((h * p ^ a) * p ^ b) * p ^ c) * p ^ d) * p ^ e) * p ^ f) * p ^ g) * p ^ i) & 0xFFFFFFFF
    for b in data[whole:]:
        h = ((h * p) & 0xFFFFFFFF) ^ b
    return h


def safe_encode(s: str) -> str:
    """Map each byte onto a vowel-free alphabet (``rand.SafeEncodeString``)."""
    return "".join(_SAFE_ALPHABET[b % len(_SAFE_ALPHABET)] for b in s.encode())


def revision_hash(data: str, collision_count: int | None) -> str:
    """Hash of a revision's data and the collision count (``HashControllerRevision``)."""
    raw = data.encode()
    if collision_count is not None:
        raw += str(collision_count).encode()
    return safe_encode(str(fnv1_32(raw)))


def revision_name(set_name: str, hash_: str) -> str:
    """``<set>-<hash>`` with the set name cut to 223 characters (``ControllerRevisionName``)."""
    return f"{set_name[:MAX_PREFIX]}-{hash_}"


def sort_revisions(revisions: Iterable[ControllerRevision]) -> list[ControllerRevision]:
    """Ascending by number, then creationTimestamp, then name (``SortControllerRevisions``): two
    revisions of one number made at the same time (a set's own and one it adopted from another
    set, both number 1) are ordered by name, not by which was made first."""
    return sorted(revisions, key=lambda r: (r.revision, r.creation_timestamp, r.name))


def _hash_label_value(rev: ControllerRevision) -> int | None:
    """The hash label read as Go's ``strconv.ParseInt(s, 10, 32)`` would, or None if that fails."""
    return _parse_int32(rev.labels.get(HASH_LABEL))


_DECIMAL = re.compile(r"[+-]?[0-9]+")


def _parse_int32(text: str | None) -> int | None:
    if not text or not _DECIMAL.fullmatch(text):
        return None
    value = int(text)
    return value if -(2 ** 31) <= value < 2 ** 31 else None


def equal_revision(a: ControllerRevision, b: ControllerRevision) -> bool:
    """True if both hold the same template (``EqualRevision``).

    The hash labels are compared first, but only when both parse as 32-bit
    integers (most hashes contain letters and are skipped); then the data.
    """
    ha, hb = _hash_label_value(a), _hash_label_value(b)
    if ha is not None and hb is not None and ha != hb:
        return False
    return a.data == b.data


def find_equal(revisions: Sequence[ControllerRevision], candidate: ControllerRevision) -> list[ControllerRevision]:
    """Revisions equal to *candidate*, in the given order (``FindEqualRevisions``)."""
    return [r for r in revisions if equal_revision(r, candidate)]


def controlled_history(sts: StatefulSet, revisions: Iterable[ControllerRevision]
                       ) -> list[ControllerRevision]:
    """Revisions that match the set's selector AND are controlled by it, by name.

    What ``kubectl rollout history`` / ``rollout undo`` read
    (``controlledHistoryV1``): unlike the controller's own list, orphans that
    the controller has not adopted yet are left out.
    """
    out = []
    for r in revisions:
        ref = controller_of(r.owner_references)
        if ref is not None and ref.uid == sts.uid and selector_matches(sts.spec.selector, r.labels):
            out.append(r)
    return sorted(out, key=lambda r: r.name)


def find_history(to_revision: int, history: Sequence[ControllerRevision]) -> ControllerRevision | None:
    """The revision ``kubectl rollout undo`` goes back to (``findHistory``).

    *to_revision* 0 means the one before the newest (the second highest
    number); otherwise the first revision, in *history*'s order, with that
    number.  None if there is no such revision.
    """
    if to_revision == 0:
        if len(history) <= 1:
            return None
        return sorted(history, key=lambda r: r.revision)[-2]
    return next((r for r in history if r.revision == to_revision), None)


def history_to_truncate(revisions: Sequence[ControllerRevision], live: set[str],
                        limit: int, *, negative_means_unlimited: bool = True) -> list[ControllerRevision]:
    """Oldest non-live revisions beyond *limit* (``truncateHistory``).

    *revisions* must be sorted ascending.  A negative limit keeps everything
    (newest); the v1.16 code had no such guard.
    """
    history = [r for r in revisions if r.name not in live]
    if limit < 0 and negative_means_unlimited:
        return []
    if len(history) <= max(limit, 0):
        return []
    return history[: len(history) - max(limit, 0)]


def adoption_refused(rev: ControllerRevision) -> str | None:
    """``AdoptControllerRevision``'s check before its patch: a revision that already has a controller
    is refused with this error (the reference as Go's ``%v`` prints a ``*metav1.OwnerReference``)."""
    ref = controller_of(rev.owner_references)
    if ref is None:
        return None
    return (f"attempt to adopt revision owned by &OwnerReference{{Kind:{ref.kind},Name:{ref.name},UID:{ref.uid},"
            f"APIVersion:{ref.api_version},Controller:*{str(ref.controller).lower()},"
            f"BlockOwnerDeletion:*{str(ref.block_owner_deletion).lower()},}}")


def create_controller_revision(set_name: str, candidate: ControllerRevision, existing: Mapping[str, ControllerRevision],
                               collisions: int, changed: bool, control) -> tuple[APIError | None, ControllerRevision, int]:
    """Create *candidate* (``CreateControllerRevision``), each request through *control* (the pod
    control: its ``create_revision``, or ``probe_revision`` for a name that is taken), which returns
    its error.  On a name clash (*existing*: the namespace's revisions by name) with the
    same data it is reused as it is; with different data a collision is counted and the create is
    tried again under a new name.  Only the name changes: the hash label keeps the value
    ``newRevision`` computed with the starting count.  *changed*: the set had revisions before
    (the row's words).  Returns (the error of the request that failed or None, the revision,
    collisionCount)."""
    while True:
        taken = existing.get(candidate.name)
        if taken is None:
            what = "The pod template changed" if changed else "No revision records this pod template yet"
            error = control.create_revision(decision(action="create-revision", pod=None, reason="new-template",
                                     message=f"{what}: create revision {candidate.name} (number {candidate.revision}).",
                                     rule="create-revision", target=candidate.name, step=STEP_REVISIONS,
                                     payload=candidate))
            return error, candidate, collisions
        if taken.data == candidate.data:
            error = control.probe_revision(decision(action="reuse-revision", pod=None, reason="already-exists",
                                     message=f"Revision {candidate.name} already exists with the same template; "
                                             "use it as it is.",
                                     rule="reuse-revision", target=candidate.name, step=STEP_REVISIONS))
            return error, taken, collisions
        collisions += 1
        error = control.probe_revision(decision(action="create-revision", pod=None, reason="collision",
                                 message=f"Revision name {candidate.name} is taken by a different template; "
                                         f"collisionCount becomes {collisions}.",
                                 rule="collision", target=candidate.name, step=STEP_REVISIONS))
        if error is not None:
            return error, candidate, collisions
        candidate = replace(candidate, name=revision_name(set_name, revision_hash(candidate.data, collisions)))


# ------------------------------------------------------------ the controller history's requests


def unnamed_update_error(kind: str) -> APIError:
    """What client-go's REST client answers, without sending anything, to a request for an object
    without a name (``Request.Name``): ``resource name may not be empty``."""
    return APIError("update", kind, "", reason="", message="resource name may not be empty")


class ClusterHistory:
    """The controller history over a simulated cluster (``history.Interface``, ``realHistory``): the
    revision requests, each described by its row *d* (the revision in ``d.payload``, or its name in
    ``d.target``).  It writes through *objects*, the sync's
    :class:`~.stateful_pod_control.ClusterObjects`, whose informer caches (and their lag) it shares;
    a failed request raises :class:`~stsedu.api.errors.APIError`."""

    def __init__(self, objects) -> None:
        self.objects = objects

    def create_revision(self, d: Decision) -> None:
        """``CreateControllerRevision``'s create of a new name."""
        o, rev = self.objects, d.payload
        o.check("create", "ControllerRevision", rev.name)
        o.c.store.create("ControllerRevision", replace(rev, seq=o.c.next_seq()))
        o.c.trace.add_event("Normal", "RevisionCreated", f"controllerrevision/{rev.name}",
                            f"created revision {rev.name} (number {rev.revision})")

    def probe_revision(self, d: Decision) -> None:
        """The create ``CreateControllerRevision`` sends for a name that is taken: the API server
        answers AlreadyExists, which is what the controller expects (it then reads the revision and
        reuses it, or counts a collision).  Only an injected error other than AlreadyExists fails it."""
        try:
            self.objects.check("create", "ControllerRevision", d.target)
        except APIError as e:
            if not is_already_exists(e):
                raise

    def update_revision(self, d: Decision) -> int:
        """``UpdateControllerRevision``: renumber it.  Its ``retry.RetryOnConflict`` closure takes the
        object the typed client returned beside a Conflict as its copy, and client-go returns a new,
        empty object with every error; the lister has no revision named "", so the retry renumbers an
        object without a name, which client-go refuses before sending a request: the renumbering
        fails after one request (docs/upstream-oracle.md, "A revision renumbered from a stale copy")."""
        o, rev = self.objects, d.payload
        try:
            o.check("update", "ControllerRevision", rev.name)
            stored = o.c.store.get("ControllerRevision", rev.namespace, rev.name)
            if stored is None:
                raise APIError("update", "ControllerRevision", rev.name, reason="NotFound")
            o.update_as_cached("ControllerRevision", stored, replace(stored, revision=rev.revision))
        except APIError as e:
            if is_conflict(e):
                raise unnamed_update_error("ControllerRevision") from None  # a new error: it wraps nothing
            raise
        o.c.trace.add_event("Normal", "RevisionReused", f"controllerrevision/{rev.name}",
                            f"reused revision {rev.name}, renumbered {rev.revision}")
        return 0

    def delete_revision(self, d: Decision) -> None:
        """``DeleteControllerRevision`` (``truncateHistory``)."""
        o, rev = self.objects, d.payload
        o.check("delete", "ControllerRevision", rev.name)
        o.c.store.remove("ControllerRevision", rev.namespace, rev.name)
        o.c.trace.add_event("Normal", "RevisionTruncated", f"controllerrevision/{rev.name}",
                            f"deleted revision {rev.name} (number {rev.revision}): history limit")

    def adopt_revision(self, d: Decision) -> None:
        """``AdoptControllerRevision``: patch a controller ref to the sync's set onto the orphan
        revision ``d.target``; one that is gone fails the sync (NotFound)."""
        o = self.objects
        o.check("update", "ControllerRevision", d.target)
        rev = o.c.store.get("ControllerRevision", o.sts.namespace, d.target)
        if rev is None:
            raise APIError("update", "ControllerRevision", d.target, reason="NotFound")
        o.c.store.update("ControllerRevision", replace(rev, owner_references=rev.owner_references + (o.sts.ref(),)))
        o.wrote("ControllerRevision", rev)
