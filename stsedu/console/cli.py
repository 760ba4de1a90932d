"""``stsedu kubectl …`` in a terminal: kubectl against an embedded cluster kept between calls.

Each call replays the commands of the state file (by default ``~/.cache/stsedu/kubectl.json``,
or ``$STSEDU_KUBECTL_STATE``) on a new cluster with the same seed, which gives back the same
cluster, clock and files (same seed, same trace), then runs the new command, prints what
kubectl prints and exits with kubectl's status.  The file keeps each command's standard input
and the text of the ``-f`` files it read, so a replay reads them as they were.  A refused
command (kubectl's error, and nothing changed in the cluster) is not kept: the state file is
left exactly as it was.  ``stsedu kubectl reset`` forgets the cluster.  ``-f -`` reads standard input.

The state file is read through the kit's bounded reader (:mod:`stsedu.files`): a regular file of
at most :data:`MAX_STATE_BYTES` bytes, JSON nested at most 100 levels; anything else is refused
with one line saying so and how to start again.
"""

from __future__ import annotations

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
MAX_STATE_BYTES = 20_000_000
STATE = Limits("kubectl state file", MAX_STATE_BYTES)
MAX_SEED = 2 ** 63 - 1
"""The largest ``--seed`` (a seed is a whole number from 0 to 2**63 - 1, ASCII digits)."""

USAGE = ("usage: stsedu kubectl COMMAND [ARGS...]   e.g. stsedu kubectl get pods\n"
         "       stsedu kubectl reset [--seed N]\n"
         "       stsedu kubectl --help\n")


def state_path() -> Path:
    """Where the cluster's commands are kept."""
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


def _load(path: Path) -> dict:
    try:
        text = read_text(path, STATE)
    except FileReadError as e:
        if e.problem == "no such file":
            return {"version": __version__, "seed": 0, "commands": []}
        raise SystemExit(_unreadable(path, e)) from None
    try:
        state = load_json(text, STATE)
        if not isinstance(state, dict) or not isinstance(state.get("commands"), list):
            raise ValueError("not a stsedu kubectl state file")
        if len(state["commands"]) > MAX_COMMANDS:
            raise ValueError(f"more than {MAX_COMMANDS} commands")
        if not all(_entry_ok(c) for c in state["commands"]):
            raise ValueError("a command entry is not [line, stdin, files]")
        if not _is_seed(state.get("seed", 0)):
            raise ValueError(f"seed is not a whole number from 0 to {MAX_SEED}: {json.dumps(state.get('seed'))[:40]}")
    except ValueError as e:
        raise SystemExit(_unreadable(path, e)) from None
    return state


def _unreadable(path: Path, e: Exception) -> str:
    return (f"error: cannot read the state file {path}: {e}; "
            f"run 'stsedu kubectl reset' to start a new cluster")


def _save(path: Path, state: dict) -> None:
    """Write *state* through a temporary file beside it (nothing half-written, no temporary file
    left on failure); OutputError naming the path otherwise (a folder, a file in the way)."""
    write_output(path, json.dumps(state), label="the state file", example="kubectl.json", make_parents=True)


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
        _save(path, {"version": __version__, "seed": seed, "commands": []})
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


def main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    """Run ``stsedu kubectl ARGV…``; returns kubectl's exit status."""
    from .session import Session
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
        state = _load(path)
    except SystemExit as e:
        err.write(f"{e}\n")
        return 1
    if len(state["commands"]) >= MAX_COMMANDS:
        err.write(f"error: this cluster has run {MAX_COMMANDS} commands, the most the state file keeps; "
                  "run 'stsedu kubectl reset' to start a new one\n")
        return 1
    s = Session(seed=state.get("seed", 0))
    for entry in state["commands"]:
        s.run(entry[0], entry[1], entry[2] if len(entry) > 2 else None)
    line = shlex.join(argv)
    body = None
    words = argv
    if "-" in words and any(w in ("-f", "--filename") for w in words) or any(
            w in ("-f-", "-f=-", "--filename=-") for w in words):
        body = (stdin or sys.stdin).read(1_000_001)
    res = s.run(line, body)
    for stream, text in ([(err, res.stderr), (out, res.stdout)] if res.warned_first
                         else [(out, res.stdout), (err, res.stderr)]):
        stream.write(text)
    if res.status == 0 or res.changed:   # a refused command changes nothing, the state file included
        state["commands"].append([line, body, s.files_read])
        try:
            _save(path, state)
        except OutputError as e:
            err.write(f"error: {e}\n")
            return 1
    return res.status
