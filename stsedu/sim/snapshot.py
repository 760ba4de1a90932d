"""A whole cluster as bytes and back: :func:`dump` beside :meth:`Cluster.dump <stsedu.Cluster.dump>`
(which gives the objects' manifests, to compare states) and :func:`load`.

``load(dump(x, key), key)`` gives back *x* -- a :class:`~stsedu.Cluster`, or a kubectl
:class:`~stsedu.console.session.Session` around one -- with everything a later call's output
depends on: the stored objects and the uid and resourceVersion counters, the clock and its
scheduled events (kubelet steps, the garbage collector, the work queue's delayed keys, informer
events in flight), the kubelet's random generator and behaviours, the informer caches, the work
queue and rate limiter, the trace, and a session's files and watch marks.  Carrying on from the
loaded copy gives the same outputs and the same trace as never having stopped
(``tests/kit/test_snapshot.py`` runs seeded command sequences both ways).

The bytes are Python's pickle, which only a program that trusts them may read: each dump is
signed with a key (HMAC-SHA256, the key is the caller's: ``stsedu kubectl`` keeps one per user,
:func:`user_key`), and :func:`load` unpickles nothing whose signature does not match, so a file
from elsewhere, or changed since, is refused before any of it is read.  A signed snapshot is still
read with only the kit's own classes and a few of the standard library's allowed.  A snapshot
belongs to the kit version that wrote it (:data:`FORMAT` names it).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import secrets
import zlib
from pathlib import Path

from ..version import __version__

FORMAT = f"stsedu {__version__} snapshot 1"
"""What a snapshot's bytes are: the kit version that wrote them (another version's classes may differ)."""
MAX_EXPANDED = 1 << 30
"""The most bytes a snapshot's compressed pickle may expand to (far above a 2,000-command cluster's)."""
_STDLIB = {("builtins", "set"), ("builtins", "frozenset"), ("builtins", "getattr"), ("builtins", "slice"),
           ("copyreg", "_reconstructor"), ("copyreg", "__newobj__"), ("builtins", "object"),
           ("functools", "partial"), ("random", "Random"), ("collections", "deque"),
           ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "Counter")}


class SnapshotError(ValueError):
    """The bytes are not a snapshot this kit (and this key) wrote; the message says which."""


class _KitUnpickler(pickle.Unpickler):
    """Only the kit's classes and functions, and the few standard ones a cluster holds."""

    def find_class(self, module: str, name: str):
        if module == "stsedu" or module.startswith("stsedu.") or (module, name) in _STDLIB:
            return super().find_class(module, name)
        raise SnapshotError(f"it names {module}.{name}, which a cluster's snapshot never holds")


def _signature(key: bytes, body: bytes) -> bytes:
    return hmac.new(key, FORMAT.encode() + b"\n" + body, hashlib.sha256).digest()


def dump(obj, key: bytes) -> bytes:
    """*obj* (a Cluster or a Session) as signed, compressed bytes for :func:`load`."""
    body = zlib.compress(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), 1)
    return _signature(key, body) + body


def load(data: bytes, key: bytes):
    """What :func:`dump` was given, from its bytes; SnapshotError if they are not a snapshot this
    kit version wrote with *key* (a file from another user, machine or version, or changed since)."""
    mac, body = data[:32], data[32:]
    if len(mac) < 32 or not hmac.compare_digest(mac, _signature(key, body)):
        raise SnapshotError(f"it is not a snapshot this user's {FORMAT.rsplit(' ', 2)[0]} wrote "
                            "(another user's, another version's, or changed since)")
    try:
        d = zlib.decompressobj()
        raw = d.decompress(body, MAX_EXPANDED)
        if d.unconsumed_tail:
            raise SnapshotError(f"it expands past {MAX_EXPANDED} bytes")
        return _KitUnpickler(io.BytesIO(raw)).load()
    except SnapshotError:
        raise
    except Exception as e:  # signed by this user's kit, yet unreadable: a changed kit of the same version
        raise SnapshotError(f"this kit cannot read it back ({type(e).__name__}: {e})") from None


def user_key(folder: Path) -> bytes:
    """This user's signing key, in *folder*/``snapshot.key`` (made on first use, readable by the
    user only); OSError if it cannot be read or made."""
    path = folder / "snapshot.key"
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        pass
    except ValueError:
        raise OSError(f"{path} is not a key this kit wrote; delete it to make a new one") from None
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    tmp = folder / f".snapshot.key.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex() + "\n")
    try:
        os.link(tmp, path)  # the first writer wins; another call at the same moment reads its key
    except FileExistsError:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except OSError:  # a file system without hard links
        os.replace(tmp, path)
        return key
    finally:
        if tmp.exists():
            os.unlink(tmp)
    return key
