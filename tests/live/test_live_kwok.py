"""KWOK as the kubelet: the kit's kubelet model against a kubelet the kit did not write (marker ``live``).

Every other live test drives the pods with the kit's own kubelet model (:mod:`stsedu.live.kubelet`), so
both sides of those comparisons share the kit's idea of a pod's life. Here KWOK v0.8.0
(``sigs.k8s.io/kwok``, :mod:`stsedu.live.kwok`) runs the pods of a node of its own, with stages that
make them Pending, Running, Ready and gone after the scenario's delays, and each shipped scenario is
compared with the kit as in tests/live/test_live.py (creates and deletes in order, revisions, claims,
status, kubectl's texts). The scenarios run all at once, one namespace and one KWOK each, on a
control plane of their own with the StatefulSetRecreateStrategy gate on (``recreate`` needs it; it
changes nothing for a set of another strategy).

KWOK plays no readiness probe, no crash, no eviction, no node shutdown and no manual kubelet: a
scenario that needs one of them differs, and :data:`KNOWN_KWOK` says how, each reason checked against
the run (docs/live.md, "KWOK as the kubelet"). A handful run by default (:data:`DEFAULT`, all at once,
about two minutes); ``STSEDU_LIVE_KWOK=all`` runs all thirteen. Without the binaries every test skips
with one line.
"""

from __future__ import annotations

import io
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from stsedu import scenarios
from stsedu.live import build as live_build
from stsedu.live.runner import LiveSession, differences, order_free, play, play_kit
from stsedu.sim.kubelet import StageProfile
from helpers import unavailable

pytestmark = pytest.mark.live

GATES = {"StatefulSetRecreateStrategy": True}


def _skipped(*verbs):
    """The run skipped the kit's kubelet *verbs* because KWOK runs the pods."""
    return lambda kit, live: all(any(f"({v}): KWOK runs the pods" in s for s in live.skipped) for v in verbs)


def _shown(state):
    """The kit shows a pod in *state* ((name, revision, phase, ready, terminating, owner) -> bool) at some
    stable point, and the KWOK run never does."""
    def check(kit, live):
        def seen(run):
            return any(state(p) for pt in run.points for p in pt["observed"]["pods"])
        return seen(kit) and not seen(live)
    return check


def _replaced(kit, live):
    """The kit deletes and recreates pods nobody deleted (a kubelet failed them); KWOK's run replaces none."""
    def deletes(run):
        return [c for pt in run.points[1:] for c in pt["changes"] if c[0] == "delete"]
    return bool(deletes(kit)) and not deletes(live)


def _all(*checks):
    return lambda kit, live: all(c(kit, live) for c in checks)


def _running_not_ready(p):
    return p[2] == "Running" and not p[3] and not p[4]


KNOWN_KWOK: dict[str, tuple[str, object]] = {
    "blocked-scale-down": ("set_unready: KWOK has no readiness probe to fail, so no pod turns unready and the "
                           "scale-down the kit blocks goes through", _all(_skipped("set_unready"),
                                                                           _shown(_running_not_ready))),
    "broken-rollout": ("never_ready: KWOK makes every pod Ready after stages.ready (no readiness probe), so the "
                       "new revision's pod the kit keeps unready turns Ready and the rollout completes",
                       _all(_skipped("never_ready"), _shown(_running_not_ready))),
    "crash-loop": ("crash_loop, crash: KWOK's containers never exit (no crash, no CrashLoopBackOff, no restart)",
                   _all(_skipped("crash_loop", "crash"), _shown(_running_not_ready))),
    "eviction": ("evict, shut_down_node: KWOK neither evicts nor shuts a node down, so no pod fails and the "
                 "controller replaces none", _all(_skipped("evict", "shut_down_node"), _replaced)),
    "ordered-scale-up": ("a manual kubelet (start, set_ready): KWOK starts and readies every pod by itself, so "
                         "the pods the kit keeps Pending until told run at once",
                         _all(_skipped("start", "set_ready"), _shown(lambda p: p[2] == "Pending"))),
}
"""Shipped scenarios that differ under KWOK: name -> (why, a check of that reason against (kit, live)).
Each needs a part of the kit's kubelet model KWOK does not play (docs/live.md, "KWOK as the kubelet")."""

KWOK_TIMING = {
    "ondelete": "two pods deleted together: their removals may land either side of the controller's next sync "
                "(tests/live/test_live.py's KNOWN, with the kit's kubelet); only the creates and deletes between "
                "two stable points may interleave differently",
}
"""Scenarios whose creates and deletes between two stable points may interleave differently (the stable
points must agree)."""

DEFAULT = ["first-statefulset", "ondelete", "partition-canary", "pvc-retention", "recreate", "broken-rollout",
           "eviction"]
"""The handful of scenarios run by default (rollouts, OnDelete, claims, Recreate, and two that differ);
``STSEDU_LIVE_KWOK=all`` runs every shipped scenario."""

SHIPPED = [p.stem for p in sorted(scenarios.format.LIBRARY_DIR.glob("*.yaml"))]
NAMES = SHIPPED if os.environ.get("STSEDU_LIVE_KWOK") == "all" else DEFAULT


@pytest.fixture(scope="module")
def plane():
    why = live_build.missing_reason() or live_build.kwok_missing_reason()
    if why:
        unavailable(f"live control plane or KWOK unavailable: {why}")
    from stsedu.live.controlplane import ControlPlane
    with ControlPlane(feature_gates=GATES) as cp:
        yield cp


@pytest.fixture(scope="module")
def kwok_runs(plane):
    """Every shipped scenario on the kit and with KWOK as the kubelet, all at once (one namespace each)."""
    def one(name):
        sc = scenarios.load(name)
        kit = play_kit(sc)
        with LiveSession(str(plane.kubeconfig), kubelet="kwok",
                         stages=StageProfile.from_dict(sc.cluster_options.get("stages"))) as s:
            live = play(sc, s, kit=kit)
            errors = list(s.kubelet.errors)
        return name, (sc, kit, live, errors)
    with ThreadPoolExecutor(len(NAMES)) as pool:
        return dict(pool.map(one, NAMES))


def test_the_known_kwok_differences_are_shipped_scenarios():
    assert set(KNOWN_KWOK) | set(KWOK_TIMING) | set(DEFAULT) <= set(SHIPPED)


@pytest.mark.parametrize("name", NAMES)
def test_shipped_scenario_under_kwok(compares, kwok_runs, name):
    sc, kit, live, errors = kwok_runs[name]
    assert errors == []  # the kit's binds of pods and claims
    diffs, (why, check) = differences(kit, live, **order_free(sc)), KNOWN_KWOK.get(name, (None, None))
    if check is not None:
        assert diffs, f"{name} agrees under KWOK now: remove it from KNOWN_KWOK and docs/live.md"
        assert check(kit, live), f"{name} differs, but not as KNOWN_KWOK says ({why}):\n" + "\n".join(diffs)
    elif name in KWOK_TIMING:
        assert all(d.startswith("pod creates/deletes up to step") for d in diffs), "\n".join(diffs)
    else:
        assert diffs == [], "\n".join(diffs)


def test_kwok_not_the_kit_writes_the_pods_status(plane):
    """The pods go Pending (ContainerCreating), Running not Ready, Ready, then gone on delete, and every
    status write is KWOK's (the API server's managedFields name the writer), on KWOK's node; the kit only
    binds them, as a scheduler would."""
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": {
        "serviceName": "nginx", "replicas": 1, "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}},
                     "spec": {"containers": [{"name": "nginx", "image": "registry.k8s.io/nginx-slim:0.24"}]}}}}
    with LiveSession(str(plane.kubeconfig), kubelet="kwok",
                     stages=StageProfile(start=0.5, ready=0.5, terminate=0.5)) as s:
        s.apply([sts])
        assert s.wait_stable(60)
        pod = s.objects()["Pod"][0]
        s.kubectl("delete", "pod", "web-0", "--wait=false")
        assert s.wait_stable(60)
        states = []
        for rv, _, kind, k, o in s.recorder.ordered():
            if k != "Pod" or o["metadata"].get("uid") != pod["metadata"]["uid"]:
                continue
            st = o.get("status") or {}
            waiting = [c["state"]["waiting"]["reason"] for c in st.get("containerStatuses") or ()
                       if "waiting" in (c.get("state") or {})]
            ready = any(c["type"] == "Ready" and c["status"] == "True" for c in st.get("conditions") or ())
            state = "gone" if kind == "DELETED" else ("Terminating" if o["metadata"].get("deletionTimestamp")
                                                      else (waiting or [st.get("phase", "Pending")])[0])
            if not states or states[-1] != (state, ready):
                states.append((state, ready))
        node = s.kwok.node
    assert pod["spec"]["nodeName"] == node == f"kwok-{s.namespace}"
    writers = {m["manager"] for m in pod["metadata"]["managedFields"] if m.get("subresource") == "status"}
    assert writers == {"kwok"}, writers
    assert [x for x in states if x[0] != "Pending"] == [
        ("ContainerCreating", False), ("Running", False), ("Running", True), ("Terminating", True),
        ("gone", True)], states


def test_live_run_with_kwok_from_the_command_line(compares, plane, capsys):
    """`stsedu live run SCENARIO --kubelet kwok --compare` names KWOK and counts what it compared."""
    from stsedu.__main__ import main
    out = io.StringIO()
    rc = main(["live", "run", "first-statefulset", "--kubeconfig", str(plane.kubeconfig), "--kubelet", "kwok",
               "--compare"], out=out)
    text = out.getvalue()
    assert rc == 0, text + capsys.readouterr().err
    assert "(KWOK as the kubelet)" in text.splitlines()[0]
    assert text.strip().splitlines()[-1].startswith("controller behaviour: ") and \
        text.strip().endswith("agree at every stable point")


def test_up_with_kwok_runs_the_tutorials_pods(tmp_path):
    """`stsedu live up --kubelet kwok`: the tutorial's web.yaml applied with the real kubectl runs on KWOK's
    node, web-0 and web-1 Running and Ready (1/1); `down` stops KWOK with the plane."""
    import json
    import subprocess
    import sys
    import time
    from pathlib import Path
    why = live_build.missing_reason() or live_build.kwok_missing_reason()
    if why:
        unavailable(f"live control plane or KWOK unavailable: {why}")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "STSEDU_LIVE_STATE": str(tmp_path / "running.json"), "KUBECACHEDIR": str(tmp_path / "kc"),
           "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cli = [sys.executable, "-m", "stsedu", "live"]
    up = subprocess.run(cli + ["up", "--kubelet", "kwok"], env=env, capture_output=True, text=True, timeout=200)
    try:
        assert up.returncode == 0, up.stderr
        assert "pods run on node kwok-node-1 with KWOK v0.8.0" in up.stdout, up.stdout
        kubectl = [live_build.kubectl_path(), "--kubeconfig", up.stdout.split("export KUBECONFIG=", 1)[1].strip()]
        assert subprocess.run(kubectl + ["apply", "-f", str(root / "stsedu" / "data" / "tutorial" / "web.yaml")],
                              capture_output=True, timeout=60).returncode == 0
        deadline, table = time.monotonic() + 90, ""
        while time.monotonic() < deadline:
            table = subprocess.run(kubectl + ["get", "pods", "-o", "wide"], capture_output=True, text=True,
                                   timeout=60).stdout
            rows = [ln.split() for ln in table.splitlines()[1:]]
            if sorted((r[0], r[1], r[2], r[6]) for r in rows) == [("web-0", "1/1", "Running", "kwok-node-1"),
                                                                   ("web-1", "1/1", "Running", "kwok-node-1")]:
                break
            time.sleep(0.5)
        else:
            pytest.fail(table)
        nodes = subprocess.run(kubectl + ["get", "nodes"], capture_output=True, text=True, timeout=60).stdout
        assert nodes.splitlines()[1].split()[:2] == ["kwok-node-1", "Ready"] and "kwok-v0.8.0" in nodes, nodes
        state = json.loads((tmp_path / "running.json").read_text())
    finally:
        subprocess.run(cli + ["down"], env=env, capture_output=True, text=True, timeout=60)
    def kwoks():
        return [p for p in Path("/proc").glob("[0-9]*") if _cmdline(p).startswith(live_build.kwok_path() + "\0")
                and state["kubeconfig"] in _cmdline(p)]
    deadline = time.monotonic() + 10
    while kwoks() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert kwoks() == [], "KWOK outlived `stsedu live down`"


def _cmdline(proc) -> str:
    try:
        return (proc / "cmdline").read_text()
    except OSError:
        return ""
