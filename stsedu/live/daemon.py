"""``stsedu live up`` / ``down`` / ``status``: a control plane that outlives the command.

``up`` starts a small supervisor process (``python -m stsedu.live.daemon STATE``) in its own
session. The supervisor starts a :class:`~stsedu.live.controlplane.ControlPlane`, writes
its state (folder, kubeconfig, server, process ids) to the STATE file and waits; on SIGTERM
or SIGINT it stops the control plane, which removes its folder, and deletes STATE. Its
children end with it even if it is killed (``PR_SET_PDEATHSIG``); ``down`` then ends any
that remain and removes what is left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from .build import LiveUnavailable, cache_base

START_TIMEOUT = 150.0


def state_path() -> Path:
    return Path(os.environ.get("STSEDU_LIVE_STATE") or cache_base() / "running.json")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _is_ours(pid: int, workdir: str) -> bool:
    """True when *pid* is a process of this control plane (its command line names the folder or a live binary)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return workdir in cmd or "stsedu.live.daemon" in cmd


def read_state(path: Path | None = None) -> dict | None:
    """The running control plane's state file, read through the kit's bounded reader (a FIFO or a
    folder at ``$STSEDU_LIVE_STATE`` is no state, not a hang); None when there is none."""
    from ..files import FileReadError, Limits, load_json, read_text
    limits = Limits("live state file", 1 << 20)
    path = path or state_path()
    try:
        data = load_json(read_text(path, limits), limits)
    except FileReadError:
        return None
    return data if isinstance(data, dict) else None


def up(path: Path | None = None) -> dict:
    """Start a control plane in the background; return its state. Raise LiveUnavailable (one line)."""
    path = path or state_path()
    state = read_state(path)
    if state and _alive(state.get("supervisor", -1)):
        return state
    if state:  # left by a crashed run
        down(path)
    from . import build
    reason = build.missing_reason()
    if reason:
        raise LiveUnavailable(reason)
    path.parent.mkdir(parents=True, exist_ok=True)
    err = path.with_suffix(".err")
    err.unlink(missing_ok=True)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen([sys.executable, "-m", "stsedu.live.daemon", str(path)], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        state = read_state(path)
        if state:
            return state
        if proc.poll() is not None:
            msg = err.read_text().strip() if err.exists() else f"the supervisor exited with status {proc.returncode}"
            err.unlink(missing_ok=True)
            raise LiveUnavailable(msg)
        time.sleep(0.2)
    proc.terminate()
    raise LiveUnavailable(f"the control plane did not start within {START_TIMEOUT:.0f} s")


def down(path: Path | None = None) -> bool:
    """Stop the background control plane; True if there was one. Leaves no process or folder behind."""
    path = path or state_path()
    state = read_state(path)
    if state is None:
        return False
    sup = state.get("supervisor")
    workdir = state.get("workdir") or ""
    if isinstance(sup, int) and _alive(sup) and _is_ours(sup, workdir):
        os.kill(sup, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while _alive(sup) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(sup):
            os.kill(sup, signal.SIGKILL)
    for pid in (state.get("pids") or {}).values():
        if isinstance(pid, int) and _alive(pid) and workdir and _is_ours(pid, workdir):
            os.kill(pid, signal.SIGKILL)
    if workdir and Path(workdir).name.startswith("stsedu-live-") and Path(workdir).exists():
        shutil.rmtree(workdir, ignore_errors=True)
    path.unlink(missing_ok=True)
    return True


def status(path: Path | None = None) -> dict | None:
    """The state of the background control plane with ``ready`` (bool), or None if there is none."""
    state = read_state(path or state_path())
    if state is None:
        return None
    state = dict(state)
    state["ready"] = bool(_alive(state.get("supervisor", -1)) and
                          all(_alive(p) for p in (state.get("pids") or {}).values()))
    return state


def _supervise(path: Path) -> int:
    from .controlplane import ControlPlane
    stop = {"now": False}

    def on_signal(signum, frame):
        stop["now"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    cp = ControlPlane()
    try:
        cp.start()
    except BaseException as e:  # noqa: BLE001 - reported to `up` in one line
        path.with_suffix(".err").write_text(str(e) if isinstance(e, LiveUnavailable) else f"{type(e).__name__}: {e}")
        return 1
    try:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(cp.state()))
        os.replace(tmp, path)
        while not stop["now"]:
            if any(p.poll() is not None for p in cp.procs.values()):
                break
            time.sleep(0.3)
    finally:
        cp.stop()
        path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(_supervise(Path(sys.argv[1])))
