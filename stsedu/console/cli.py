"""``stsedu kubectl …`` in a terminal: kubectl against an embedded cluster kept between calls.

The state file (by default ``~/.cache/stsedu/kubectl.json``, or ``$STSEDU_KUBECTL_STATE``) holds
a snapshot of the whole session (:mod:`stsedu.sim.snapshot`: the cluster's objects, clock and
scheduled events, the kubelet's random generator, the trace, the files ``exec`` wrote).  Each
call loads it, runs the new command, prints what kubectl prints, exits with kubectl's status and
writes the new snapshot (through a temporary file: nothing half-written).  Loading and carrying
on gives what never stopping would have given: same seed, same trace.  A refused command
(kubectl's error, and nothing changed in the cluster) writes nothing: the state file is left
exactly as it was.  ``stsedu kubectl reset [--seed N]`` starts a new cluster.  ``-f -`` reads
standard input.

The state file is read through the kit's bounded reader (:mod:`stsedu.files`): a regular file of
at most :data:`MAX_STATE_BYTES` bytes, JSON nested at most 100 levels; the snapshot in it is
signed with this user's key (``~/.cache/stsedu/snapshot.key``) and read only if the signature
matches; anything else is refused with one line saying so and how to start again.  A state file
of an older kit (the list of commands it replayed at every call) is replayed once and kept as a
snapshot from then on.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import TextIO

from ..files import FileReadError, Limits, OutputError, load_json, read_text, write_output
from ..version import __version__

MAX_COMMANDS = 2_000
"""The most commands an older kit's state file held (it replayed them at every call)."""
MAX_STATE_BYTES = 20_000_000
STATE = Limits("kubectl state file", MAX_STATE_BYTES)
MAX_SEED = 2 ** 63 - 1
"""The largest ``--seed`` (a seed is a whole number from 0 to 2**63 - 1, ASCII digits)."""

USAGE = ("usage: stsedu kubectl COMMAND [ARGS...]   e.g. stsedu kubectl get pods\n"
         "       stsedu kubectl reset [--seed N]\n"
         "       stsedu kubectl --help\n")


def state_path() -> Path:
    """Where the cluster's snapshot is kept."""
    env = os.environ.get("STSEDU_KUBECTL_STATE")
    return Path(env) if env else Path.home() / ".cache" / "stsedu" / "kubectl.json"


def seed_value(text: str) -> int:
    """The seed *text* names (``--seed N``): ASCII digits, at most :data:`MAX_SEED`; ValueError
    saying so otherwise (``"²".isdigit()`` is true, but ² is no seed)."""
    if not re.fullmatch(r"[0-9]{1,19}", text or "") or int(text) > MAX_SEED:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f'--seed needs a whole number from 0 to {MAX_SEED}, not "{shown}"')
    return int(text)


def _is_seed(value) -> bool:
    return type(value) is int and 0 <= value <= MAX_SEED


def _entry_ok(c) -> bool:
    return (isinstance(c, list) and len(c) in (2, 3) and isinstance(c[0], str)
            and (c[1] is None or isinstance(c[1], str))
            and (len(c) == 2 or (isinstance(c[2], dict) and all(isinstance(v, str) for v in c[2].values()))))


def _key() -> bytes:
    """This user's key for signing snapshots (beside the default state file)."""
    from ..sim.snapshot import user_key
    folder = Path.home() / ".cache" / "stsedu"
    try:
        return user_key(folder)
    except OSError as e:
        raise SystemExit(f"error: cannot keep the state file's key in {folder}: {e.strerror or e}") from None


def _load(path: Path) -> dict:
    """The state file's JSON, checked: ``{"version", "seed", "snapshot"}`` (a snapshot, or None for a
    new cluster) or an older kit's ``{"seed", "commands"}``.  SystemExit with one line otherwise."""
    try:
        text = read_text(path, STATE)
    except FileReadError as e:
        if e.problem == "no such file":
            return {"version": __version__, "seed": 0, "snapshot": None}
        raise SystemExit(_unreadable(path, e)) from None
    try:
        state = load_json(text, STATE)
        if not isinstance(state, dict) or not (isinstance(state.get("commands"), list) or "snapshot" in state):
            raise ValueError("not a stsedu kubectl state file")
        if not _is_seed(state.get("seed", 0)):
            raise ValueError(f"seed is not a whole number from 0 to {MAX_SEED}: {json.dumps(state.get('seed'))[:40]}")
        if "snapshot" in state:
            if state["snapshot"] is not None and not isinstance(state["snapshot"], str):
                raise ValueError("the snapshot is not text")
            if state.get("version") != __version__:
                raise ValueError(f"it was written by stsedu {json.dumps(state.get('version'))[:40]}, "
                                 f"and this is stsedu {__version__}")
        else:
            if len(state["commands"]) > MAX_COMMANDS:
                raise ValueError(f"more than {MAX_COMMANDS} commands")
            if not all(_entry_ok(c) for c in state["commands"]):
                raise ValueError("a command entry is not [line, stdin, files]")
    except ValueError as e:
        raise SystemExit(_unreadable(path, e)) from None
    return state


def load_session(path: Path, err: TextIO | None = None):
    """The :class:`~stsedu.console.session.Session` the state file at *path* keeps (a new one if
    there is none); SystemExit with one line if it cannot be read.  An older kit's list of
    commands is replayed once (saying so on *err*)."""
    from ..sim.snapshot import SnapshotError, load
    from .session import Session
    state = _load(path)
    if "commands" in state and "snapshot" not in state:
        s = Session(seed=state.get("seed", 0))
        if state["commands"] and err is not None:
            err.write(f"stsedu kubectl: {path} is an older kit's list of {len(state['commands'])} commands; "
                      "replaying them once, then keeping a snapshot\n")
        for entry in state["commands"]:
            s.run(entry[0], entry[1], entry[2] if len(entry) > 2 else None)
        return s
    if state["snapshot"] is None:
        return Session(seed=state["seed"])
    try:
        data = base64.b64decode(state["snapshot"].encode("ascii"), validate=True)
    except (ValueError, UnicodeError):   # binascii.Error
        raise SystemExit(_unreadable(path, "the snapshot is not base64 text")) from None
    try:
        s = load(data, _key())
    except SnapshotError as e:
        raise SystemExit(_unreadable(path, e)) from None
    if not isinstance(s, Session):
        raise SystemExit(_unreadable(path, SnapshotError("it holds no kubectl session")))
    return s


def save_session(path: Path, s) -> None:
    """Write the snapshot of *s* to *path* (through a temporary file beside it); OutputError
    naming the path otherwise, or if the snapshot has grown past :data:`MAX_STATE_BYTES`."""
    from ..sim.snapshot import dump
    text = json.dumps({"version": __version__, "seed": s.cluster.seed,
                       "snapshot": base64.b64encode(dump(s, _key())).decode("ascii")})
    if len(text) > MAX_STATE_BYTES:
        raise OutputError(f"the cluster's state has grown past {MAX_STATE_BYTES} bytes, the most the state "
                          f"file {path} keeps; run 'stsedu kubectl reset' to start a new cluster")
    _save(path, text)


def _unreadable(path: Path, e: Exception | str) -> str:
    return (f"error: cannot read the state file {path}: {e}; "
            f"run 'stsedu kubectl reset' to start a new cluster")


def _save(path: Path, text: str) -> None:
    """Write *text* through a temporary file beside it (nothing half-written, no temporary file
    left on failure); OutputError naming the path otherwise (a folder, a file in the way)."""
    write_output(path, text, label="the state file", example="kubectl.json", make_parents=True)


def _reset(argv: list[str], path: Path, out: TextIO, err: TextIO) -> int:
    try:
        if not argv:
            seed = 0
        elif argv[0] == "--seed" and len(argv) == 2:
            seed = seed_value(argv[1])
        elif argv[0].startswith("--seed=") and len(argv) == 1:
            seed = seed_value(argv[0][len("--seed="):])
        else:
            err.write("usage: stsedu kubectl reset [--seed N]\n")
            return 2
        _save(path, json.dumps({"version": __version__, "seed": seed, "snapshot": None}))
    except ValueError as e:   # a bad seed, or an OutputError
        err.write(f"error: {e}\n")
        return 1
    out.write(f"stsedu kubectl: a new, empty cluster (seed {seed}); state in {path}\n")
    return 0


def _refused_early(argv: list[str], out: TextIO, err: TextIO) -> int | None:
    """kubectl's answer to a line it refuses (or answers with help) before it needs the cluster."""
    from ..views.kubectl.flags import KubectlError, parse, split
    try:
        parse(split(shlex.join(argv)))
    except KubectlError as e:
        (out if e.status == 0 else err).write(e.message if e.message.endswith("\n") else e.message + "\n")
        return e.status
    return None


def reads_stdin(words: list[str]) -> bool:
    """Whether the command line *words* reads standard input (``-f -``)."""
    return "-" in words and any(w in ("-f", "--filename") for w in words) or any(
        w in ("-f-", "-f=-", "--filename=-") for w in words)


def main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    """Run ``stsedu kubectl ARGV…``; returns kubectl's exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    path = state_path()
    if argv[:1] == ["reset"]:
        return _reset(argv[1:], path, out, err)
    if not argv:
        err.write(USAGE)
        return 2
    early = _refused_early(argv, out, err)
    if early is not None:
        return early
    try:
        s = load_session(path, err)
    except SystemExit as e:
        err.write(f"{e}\n")
        return 1
    line = shlex.join(argv)
    body = (stdin or sys.stdin).read(1_000_001) if reads_stdin(argv) else None
    res = s.run(line, body)
    for stream, text in ([(err, res.stderr), (out, res.stdout)] if res.warned_first
                         else [(out, res.stdout), (err, res.stderr)]):
        stream.write(text)
    if res.status == 0 or res.changed:   # a refused command changes nothing, the state file included
        try:
            save_session(path, s)
        except (OutputError, SystemExit) as e:
            err.write(f"{e}\n" if isinstance(e, SystemExit) else f"error: {e}\n")
            return 1
    return res.status
