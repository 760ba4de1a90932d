"""``stsedu kubectl …`` in a terminal: kubectl against an embedded cluster kept between calls.

Each call replays the commands of the state file (by default ``~/.cache/stsedu/kubectl.json``,
or ``$STSEDU_KUBECTL_STATE``) on a new cluster with the same seed, which gives back the same
cluster, clock and files (same seed, same trace), then runs the new command, prints what
kubectl prints and exits with kubectl's status.  The file keeps each command's standard input
and the text of the ``-f`` files it read, so a replay reads them as they were.  ``stsedu kubectl reset`` forgets the cluster.
``-f -`` reads standard input.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import TextIO

from ..version import __version__

MAX_COMMANDS = 2_000
MAX_STATE_BYTES = 20_000_000


def state_path() -> Path:
    """Where the cluster's commands are kept."""
    env = os.environ.get("STSEDU_KUBECTL_STATE")
    return Path(env) if env else Path.home() / ".cache" / "stsedu" / "kubectl.json"


def _load(path: Path) -> dict:
    if not path.exists():
        return {"version": __version__, "seed": 0, "commands": []}
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            raise ValueError(f"larger than {MAX_STATE_BYTES} bytes")
        state = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(state, dict) or not isinstance(state.get("commands"), list):
            raise ValueError("not a stsedu kubectl state file")
        for c in state["commands"]:
            if not (isinstance(c, list) and len(c) in (2, 3) and isinstance(c[0], str)
                    and (c[1] is None or isinstance(c[1], str))
                    and (len(c) == 2 or (isinstance(c[2], dict)
                                         and all(isinstance(v, str) for v in c[2].values())))):
                raise ValueError("a command entry is not [line, stdin, files]")
        if not isinstance(state.get("seed", 0), int):
            raise ValueError("seed is not a whole number")
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: cannot read the state file {path}: {e}; "
                         f"run 'stsedu kubectl reset' to start a new cluster") from None
    return state


def _save(path: Path, state: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    """Run ``stsedu kubectl ARGV…``; returns kubectl's exit status."""
    from .session import Session
    out, err = out or sys.stdout, err or sys.stderr
    path = state_path()
    if argv[:1] == ["reset"]:
        seed = 0
        if argv[1:2] == ["--seed"] and len(argv) > 2 and argv[2].isdigit():
            seed = int(argv[2])
        elif len(argv) > 1:
            err.write("usage: stsedu kubectl reset [--seed N]\n")
            return 2
        _save(path, {"version": __version__, "seed": seed, "commands": []})
        out.write(f"stsedu kubectl: a new, empty cluster (seed {seed}); state in {path}\n")
        return 0
    if not argv:
        err.write("usage: stsedu kubectl COMMAND [ARGS...]   e.g. stsedu kubectl get pods\n"
                  "       stsedu kubectl reset [--seed N]\n")
        return 2
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
    state["commands"].append([line, body, s.files_read])
    _save(path, state)
    return res.status
