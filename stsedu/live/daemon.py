"""``stsedu live up`` / ``down`` / ``status``: a control plane that outlives the command.

``up`` starts a small supervisor process (``python -m stsedu.live.daemon STATE``) in its own
session. The supervisor starts a :class:`~stsedu.live.controlplane.ControlPlane`, writes
its state (folder, kubeconfig, server, process ids) to the STATE file and waits; on SIGTERM
or SIGINT it stops the control plane, which removes its folder, and deletes STATE. Unless started
with ``--no-kubelet`` it also registers node ``node-1`` and runs the kit's API kubelet
(:class:`~stsedu.live.kubelet.NamespaceKubelets`) in every namespace but ``kube-*`` and the
``stsedu-live-*`` ones ``stsedu live run`` makes and drives with a kubelet of its own; with
``--kubelet kwok`` KWOK runs the pods instead, on node ``kwok-node-1`` (:mod:`.kwok`, default
stages; not ``node-1``, where ``live run``'s kit kubelet binds its pods), and the kit only binds
pods and claims there. Its
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

KUBELET = "the kit's API kubelet (stsedu.live.kubelet)"
KWOK_NODE = "kwok-node-1"
"""The node of ``up --kubelet kwok``: not the kit's ``node-1``, whose pods ``live run``'s own kit kubelet binds."""
"""What the state's ``kubelet`` names when ``up`` runs one (None with ``--no-kubelet``)."""


class PlaneStopped(Exception):
    """The control plane (or a user's cluster) stopped answering during a command: one line, what stopped."""


def state_path() -> Path:
    return Path(os.environ.get("STSEDU_LIVE_STATE") or cache_base() / "running.json")


def died_path(path: Path | None = None) -> Path:
    """Where the supervisor writes what stopped (name, exit status, kept logs) when a process of the plane died."""
    return (path or state_path()).with_suffix(".died")


def stopped_reason(path: Path | None = None, wait: float = 5.0) -> str:
    """One line: which process of the background plane stopped and where its logs are kept (waiting up to
    *wait* seconds for the supervisor to say), or that the plane was stopped."""
    deadline = time.monotonic() + wait
    while True:
        try:
            died = json.loads(died_path(path).read_text())
            return (f"{died['stopped']} stopped (exit status {died['status']}) during the run; the control plane "
                    f"is down, its logs are kept in {died['logs']}")
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if time.monotonic() > deadline:
            return "the local control plane stopped during the run (`stsedu live down`?)"
        time.sleep(0.2)


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


def up(path: Path | None = None, kubelet: bool | str = True) -> dict:
    """Start a control plane in the background; return its state (``"already": True`` when one was up).
    With *kubelet* the supervisor also runs the kit's API kubelet (:data:`KUBELET`) and node ``node-1``;
    with ``kubelet="kwok"``, KWOK and node :data:`KWOK_NODE`. Raise LiveUnavailable (one line)."""
    path = path or state_path()
    state = read_state(path)
    if state and _alive(state.get("supervisor", -1)):
        return {**state, "already": True}
    if state:  # left by a crashed run
        down(path)
    from . import build
    reason = build.missing_reason() or (build.kwok_missing_reason() if kubelet == "kwok" else None)
    if reason:
        raise LiveUnavailable(reason)
    path.parent.mkdir(parents=True, exist_ok=True)
    died_path(path).unlink(missing_ok=True)
    err = path.with_suffix(".err")
    err.unlink(missing_ok=True)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    argv = [sys.executable, "-m", "stsedu.live.daemon", str(path)] + (
        ["--kubelet=kwok"] if kubelet == "kwok" else [] if kubelet else ["--no-kubelet"])
    proc = subprocess.Popen(argv, env=env,
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
    remove_kubectl_caches(state.get("server"), state.get("uids") or ())
    path.unlink(missing_ok=True)
    return True


def kubectl_cache_dir() -> Path:
    """kubectl's cache folder: ``--cache-dir``'s default, ``$KUBECACHEDIR`` or ``~/.kube/cache``."""
    return Path(os.environ.get("KUBECACHEDIR") or Path.home() / ".kube" / "cache")


def remove_kubectl_caches(server: str | None, uids) -> list[Path]:
    """Remove what kubectl cached about the plane at *server*: its discovery folder (named after the
    host and port, as cli-runtime's ``computeDiscoverCacheDir`` names it) and the HTTP cache's entries
    of its answers (named by a hash of the URL; told apart by the plane's own flow-schema *uids*, which
    every answer's ``X-Kubernetes-Pf-*-Uid`` headers carry). Return what was removed."""
    import re
    removed = []
    cache = kubectl_cache_dir()
    if server:
        host = re.sub(r"[^(\w/.)]", "_", server.replace("https://", "", 1).replace("http://", "", 1))
        d = cache / "discovery" / host
        if host and d.is_dir():
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    marks = [u.encode() for u in uids if u]
    http = cache / "http"
    if marks and http.is_dir():
        for f in http.iterdir():
            try:
                if f.is_file() and any(m in f.read_bytes() for m in marks):
                    f.unlink()
                    removed.append(f)
            except OSError:
                pass
    return removed


def _plane_uids(api_client) -> list[str]:
    """The uids of the plane's flow schemas and priority levels (the API server makes them at start)."""
    from kubernetes import client
    fc = client.FlowcontrolApiserverV1Api(api_client)
    try:
        return sorted({o.metadata.uid for o in fc.list_flow_schema().items} |
                      {o.metadata.uid for o in fc.list_priority_level_configuration().items})
    except Exception:  # noqa: BLE001 - without them `down` removes the discovery folder only
        return []


def status(path: Path | None = None) -> dict | None:
    """The state of the background control plane with ``ready`` (bool), or None if there is none."""
    state = read_state(path or state_path())
    if state is None:
        return None
    state = dict(state)
    state["ready"] = bool(_alive(state.get("supervisor", -1)) and
                          all(_alive(p) for p in (state.get("pids") or {}).values()))
    return state


class Watchdog:
    """Watches the background plane during ``stsedu live run``; if it stops, interrupts the run at once
    (the API client would otherwise retry for many seconds and end in a traceback)."""

    def __init__(self, state: dict) -> None:
        import threading
        self.supervisor = state.get("supervisor")
        self.stopped = threading.Event()
        self._done = threading.Event()
        threading.Thread(target=self._watch, name="stsedu-live-watchdog", daemon=True).start()

    def _watch(self) -> None:
        import _thread
        while not self._done.wait(0.5):
            st = status()
            if st is None or not st["ready"] or st.get("supervisor") != self.supervisor:
                self.stopped.set()
                _thread.interrupt_main()
                return

    def stop(self) -> bool:
        """End the watch; True if the plane stopped meanwhile."""
        self._done.set()
        return self.stopped.is_set()


def _supervise(path: Path, kubelet: bool | str = True) -> int:
    from .controlplane import ControlPlane
    from .kubelet import NODE, NamespaceKubelets, register_node
    stop = {"now": False}

    def on_signal(signum, frame):
        stop["now"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    cp = ControlPlane()
    kubelets = kwok = None
    try:
        cp.start()
        if kubelet == "kwok":
            from . import kwok as _kwok
            from ..sim.kubelet import StageProfile
            kwok = _kwok.KwokKubelet(cp.api_client(), str(cp.kubeconfig), None, StageProfile(), node=KWOK_NODE).start()
            kubelets = NamespaceKubelets(cp.api_client(), mode="schedule", node=KWOK_NODE)
            kubelets.poll()
        elif kubelet:
            register_node(cp.api_client())
            kubelets = NamespaceKubelets(cp.api_client())
            kubelets.poll()
    except BaseException as e:  # noqa: BLE001 - reported to `up` in one line
        path.with_suffix(".err").write_text(str(e) if isinstance(e, LiveUnavailable) else f"{type(e).__name__}: {e}")
        return 1
    try:
        tmp = path.with_suffix(".tmp")
        named = (kwok and _kwok.KUBELET) or (KUBELET if kubelet else None)
        tmp.write_text(json.dumps({**cp.state(), "kubelet": named, "node": KWOK_NODE if kwok else NODE,
                                   "uids": _plane_uids(cp.api_client())}))
        os.replace(tmp, path)
        polled = time.monotonic()
        while not stop["now"]:
            dead = next(((n, p.returncode) for n, p in cp.procs.items() if p.poll() is not None), None)
            if dead:
                _keep_logs(path, cp, *dead)
                break
            if kubelets is not None and time.monotonic() - polled >= 1.0:
                polled = time.monotonic()
                try:
                    kubelets.poll()
                except Exception:  # noqa: BLE001 - the API server busy or going: try again next second
                    pass
            time.sleep(0.3)
    finally:
        if kubelets is not None:
            kubelets.stop()
        if kwok is not None:
            kwok.stop()
        cp.stop()
        path.unlink(missing_ok=True)
    return 0


def _keep_logs(path: Path, cp, name: str, status: int) -> None:
    """A process of the plane died: copy the plane's logs beside STATE (the folder goes with the plane)
    and say in :func:`died_path` what stopped."""
    kept = path.parent / f"stsedu-live-logs-{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        shutil.copytree(cp.workdir / "logs", kept, dirs_exist_ok=True)
    except OSError:
        kept = cp.workdir / "logs"
    died_path(path).write_text(json.dumps({"stopped": name, "status": status, "logs": str(kept)}))


if __name__ == "__main__":
    sys.exit(_supervise(Path(sys.argv[1]), kubelet="kwok" if "--kubelet=kwok" in sys.argv[2:]
                        else "--no-kubelet" not in sys.argv[2:]))
