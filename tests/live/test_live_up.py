"""`stsedu live up` as a learner meets it (marker ``live``): pods run after `up` alone, a plane that is
already up says so, `down` leaves no kubectl cache behind, and the API server's death during `live run`
answers in one line with its logs kept (docs/live.md, "Start it" and "When something stops").

One background plane (``STSEDU_LIVE_STATE`` in a temp folder, ``KUBECACHEDIR`` too, so the user's own
plane and ~/.kube/cache are not touched) serves the tests in this file, in order; the last two stop it (`down`) and start one to kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from stsedu.live import build as live_build
from helpers import unavailable

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[2]
WEB_YAML = ROOT / "stsedu" / "data" / "tutorial" / "web.yaml"


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    why = live_build.missing_reason()
    if why:
        unavailable(f"live control plane unavailable: {why}")
    d = tmp_path_factory.mktemp("live-up")
    env = {**os.environ, "STSEDU_LIVE_STATE": str(d / "running.json"), "KUBECACHEDIR": str(d / "kube-cache"),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cli = [sys.executable, "-m", "stsedu", "live"]
    up = subprocess.run(cli + ["up"], env=env, capture_output=True, text=True, timeout=200)
    assert up.returncode == 0, up.stderr
    info = {"env": env, "cli": cli, "dir": d, "up": up.stdout,
            "kubeconfig": up.stdout.split("export KUBECONFIG=", 1)[1].strip(),
            "state": json.loads((d / "running.json").read_text())}
    yield info
    subprocess.run(cli + ["down"], env=env, capture_output=True, text=True, timeout=60)


def _kubectl(plane, *args, timeout=60):
    return subprocess.run([live_build.kubectl_path(), "--kubeconfig", plane["kubeconfig"], *args],
                          env=plane["env"], capture_output=True, text=True, timeout=timeout)


def test_after_up_the_tutorials_pods_run_and_turn_ready(plane):
    """The StatefulSet Basics tutorial after `stsedu live up` alone: `kubectl apply -f web.yaml`, then
    `kubectl get pods -w` shows web-0 and web-1 Running and Ready (1/1), with the real kubectl."""
    assert "kubelet" in plane["up"] and "--no-kubelet" in plane["up"]
    assert _kubectl(plane, "apply", "-f", str(WEB_YAML)).returncode == 0
    watch = subprocess.Popen([live_build.kubectl_path(), "--kubeconfig", plane["kubeconfig"], "get", "pods", "-w",
                              "-l", "app=nginx"], env=plane["env"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(watch.stdout), daemon=True).start()
    ready = set()
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline and ready != {"web-0", "web-1"}:
            ready = {ln.split()[0] for ln in list(lines) if ln.split()[1:3] == ["1/1", "Running"]}
            time.sleep(0.2)
    finally:
        watch.terminate()
        watch.wait(10)
    assert ready == {"web-0", "web-1"}, "".join(lines)
    nodes = _kubectl(plane, "get", "nodes").stdout
    assert nodes.splitlines()[1].split()[:2] == ["node-1", "Ready"], nodes
    wide = _kubectl(plane, "get", "pods", "-o", "wide").stdout
    assert all(" node-1 " in ln for ln in wide.splitlines()[1:]), wide


def test_up_when_up_says_so_in_one_line(plane):
    again = subprocess.run(plane["cli"] + ["up"], env=plane["env"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.splitlines() == [f"a control plane is already up at {plane['state']['server']}: "
                                         f"export KUBECONFIG={plane['kubeconfig']}"]


def test_run_in_the_namespace_ups_kubelet_serves_is_refused(plane):
    """`live run` drives its own stsedu-live-... namespace with its own kubelet; in a namespace the
    background kubelet runs, a second kubelet would fight it: one line, status 4, nothing done."""
    got = subprocess.run(plane["cli"] + ["run", "first-statefulset", "--namespace", "default"], env=plane["env"],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 4 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and "is run by `stsedu live up`'s kubelet" in got.stderr


def test_down_removes_kubectls_caches_of_this_plane(plane):
    """kubectl caches discovery and the API's answers under ~/.kube/cache (here $KUBECACHEDIR): `down`
    removes the entries of this plane's server and leaves another server's alone."""
    cache = plane["dir"] / "kube-cache"
    other = cache / "discovery" / "10.0.0.1_6443"
    other.mkdir(parents=True, exist_ok=True)
    (cache / "http").mkdir(exist_ok=True)
    (cache / "http" / ("f" * 64)).write_bytes(b"an answer of another cluster")
    host = plane["state"]["server"].removeprefix("https://").replace(":", "_")
    ours = [f for f in (cache / "http").iterdir() if f.is_file() and f.name != "f" * 64]
    assert ours, "kubectl cached nothing: the test would prove nothing"
    down = subprocess.run(plane["cli"] + ["down"], env=plane["env"], capture_output=True, text=True, timeout=60)
    assert down.returncode == 0
    assert not (cache / "discovery" / host).exists() and not any(f.exists() for f in ours)
    assert other.exists() and (cache / "http" / ("f" * 64)).exists()


def test_the_api_servers_death_during_a_run_is_one_line_with_its_logs_kept(plane):
    """kube-apiserver killed while `live run` plays a lesson: one line names what stopped and the folder
    its logs are kept in, exit status 5 (not a client's retry traceback, not 1 "differed")."""
    up = subprocess.run(plane["cli"] + ["up"], env=plane["env"], capture_output=True, text=True, timeout=200)
    assert up.returncode == 0, up.stderr
    state = json.loads((plane["dir"] / "running.json").read_text())
    run = subprocess.Popen(plane["cli"] + ["run", "first-statefulset"], env=plane["env"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    # killed once the run is playing (its namespace exists), not after a fixed time: at load 30 the run
    # had not yet read the plane's state after 8 s, found the API server dead and said "no plane" (exit 4)
    kubeconfig = ["--kubeconfig", state["kubeconfig"]]
    deadline = time.monotonic() + 120
    while "namespace/stsedu-live-" not in subprocess.run(
            [live_build.kubectl_path(), *kubeconfig, "get", "namespaces", "-o", "name"], env=plane["env"],
            capture_output=True, text=True, timeout=60).stdout:
        assert run.poll() is None and time.monotonic() < deadline, "the run never made its namespace"
        time.sleep(0.5)
    time.sleep(2)
    os.kill(state["pids"]["kube-apiserver"], signal.SIGKILL)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 5, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("stsedu live: kube-apiserver stopped (exit status -9) during the run"), err
    logs = Path(err.rsplit("logs are kept in ", 1)[1].strip())
    assert (logs / "kube-apiserver.log").stat().st_size > 0 and (logs / "etcd.log").exists()
