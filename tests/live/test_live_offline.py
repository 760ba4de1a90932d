"""``stsedu live`` without a control plane: light import, clear one-line messages, and the
trace built from watch events (fed recorded events, so no cluster is needed)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from stsedu.__main__ import main
from stsedu.live import build as live_build


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STSEDU_LIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STSEDU_LIVE_STATE", str(tmp_path / "running.json"))
    return tmp_path


def test_import_stsedu_and_its_cli_stay_light():
    code = ("import sys, stsedu, stsedu.__main__, stsedu.live, stsedu.live.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'urllib3')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_kubectl_path_is_none_until_built(empty_cache):
    assert live_build.kubectl_path() is None
    (live_build.bin_dir()).mkdir(parents=True)
    kubectl = live_build.binary("kubectl")
    kubectl.write_text("#!/bin/sh\n")
    kubectl.chmod(0o755)
    assert live_build.kubectl_path() == str(kubectl)


def test_cache_key_follows_the_pinned_versions():
    text = (live_build.MODULE / "go.mod").read_text()
    assert "k8s.io/kubernetes v1.37.2" in text and "go.etcd.io/etcd/server/v3 v3.7.0" in text
    for pkg in live_build.COMMANDS.values():
        assert f"\t{pkg}\n" in text.split("tool (", 1)[1]  # each command is a tool directive
    assert live_build.bin_dir().name == live_build.source_key() and len(live_build.source_key()) == 16


def test_kwok_is_pinned_by_a_module_of_its_own_and_cached_apart():
    """KWOK v0.8.0 is a tool of stsedu/live/kwok/go.mod, keyed on that module alone: a change of KWOK
    leaves the control plane's cache key (and its 9-minute build) as it is."""
    text = (live_build.KWOK_MODULE / "go.mod").read_text()
    assert f"sigs.k8s.io/kwok {live_build.KWOK_VERSION}" in text and f"tool {live_build.KWOK_PACKAGE}\n" in text
    assert "sigs.k8s.io/kwok" not in (live_build.MODULE / "go.mod").read_text()
    assert live_build.kwok_binary().parent.name == "kwok-" + live_build.module_key(live_build.KWOK_MODULE,
                                                                                     live_build.KWOK_LDFLAGS)
    assert live_build.kwok_binary().parent != live_build.bin_dir()


def test_live_run_with_kwok_not_built_says_how_in_one_line(empty_cache, capsys, monkeypatch):
    monkeypatch.setattr(live_build, "missing_reason", lambda: None)  # as if the control plane were built
    monkeypatch.setattr("stsedu.live.daemon.status", lambda: {"ready": True, "kubeconfig": "/nonexistent"})
    out = io.StringIO()
    assert main(["live", "run", "first-statefulset", "--kubelet", "kwok"], out=out) == 4
    text = capsys.readouterr().err + out.getvalue()
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    assert "KWOK v0.8.0 is not built yet: run `stsedu live build`" in text


def test_kwok_stages_follow_the_kits_lifecycle_and_delays():
    """Pending (ContainerCreating) at once, Running after stages.start, Ready after stages.ready, gone
    stages.terminate after a delete: the kit's StageProfile, in KWOK's Stage objects."""
    from stsedu.live.kwok import stages
    from stsedu.sim.kubelet import StageProfile
    got = {s["metadata"]["name"]: s["spec"] for s in stages(StageProfile(start=1.5, ready=2.0, terminate=0.3))}
    assert {n: s["delay"]["durationMilliseconds"] for n, s in got.items() if s["resourceRef"]["kind"] == "Pod"} == {
        "stsedu-pod-create": 0, "stsedu-pod-start": 1500, "stsedu-pod-ready": 2000, "stsedu-pod-delete": 300}
    # KWOK manages a node's pods only when it has a node stage (its node controller starts with one)
    assert [n for n, s in got.items() if s["resourceRef"]["kind"] == "Node"] == ["stsedu-node-ready"]
    assert got["stsedu-pod-delete"]["next"] == {"delete": True}
    assert "phase: Running" in got["stsedu-pod-start"]["next"]["statusTemplate"]
    assert "reason: ContainerCreating" in got["stsedu-pod-create"]["next"]["statusTemplate"]


def test_recreates_deletes_compare_as_a_set_its_creates_in_order():
    """upstream's recreateDeleteAndWait deletes the old pods through slowStartBatch (web-0, then web-1 and
    web-2 from goroutines): with *recreate* a run of deletes compares as a set; the creates keep their order."""
    from stsedu.live.runner import Run, differences

    def run(changes):
        return Run(points=[{"step": 2, "actions": ["set_image"], "changes": changes, "observed": {
            "pods": [], "pvcs": [], "revisions": [], "sets": {}}}])
    d, c = [("delete", f"web-{i}") for i in range(3)], [("create", f"web-{i}") for i in range(3)]
    kit, live = run(d + c), run([d[0], d[2], d[1]] + c)
    assert differences(kit, live, recreate=True) == []
    assert differences(kit, live) != []
    assert differences(kit, run([d[0], d[2], d[1]] + [c[1], c[0], c[2]]), recreate=True) != []


def test_the_live_summary_counts_controller_comparisons_apart_from_the_validation_sample():
    from types import SimpleNamespace as R
    from helpers import LIVE_COMPARISONS, LIVE_TEST, live_summary
    def rep(nodeid, when, outcome, runs=None):
        return R(nodeid=nodeid, when=when, outcome=outcome,
                 user_properties=[(LIVE_TEST, True)] + ([(LIVE_COMPARISONS, runs)] if runs else []))
    reports = [rep("tests/live/test_live.py::test_shipped[a]", "setup", "passed", 1),
               rep("tests/live/test_live.py::test_shipped[a]", "call", "passed", 1),
               rep("tests/live/test_live.py::test_histories", "setup", "passed", 1),
               rep("tests/live/test_live.py::test_histories", "call", "failed", 50),
               rep("tests/live/test_live_validation.py::test_row[1]", "call", "passed"),
               rep("tests/live/test_live_validation.py::test_row[2]", "call", "passed"),
               rep("tests/live/test_live_up.py::test_up", "setup", "skipped"),
               R(nodeid="tests/live/test_live_offline.py::t", when="call", outcome="passed", user_properties=[])]
    assert live_summary(reports) == (
        "live: controller behaviour compared in 2 tests (1 failed, 1 passed; 1 of 51 runs in passing tests); "
        "validation sample: 2 tests (2 passed); other live tests: 1 (1 skipped)")
    assert live_summary(reports[-1:]) is None


@pytest.mark.parametrize("argv", [["live", "up"], ["live", "status"], ["live", "run", "first-statefulset"]])
def test_without_binaries_one_line_and_status_4(empty_cache, capsys, argv):
    out = io.StringIO()
    assert main(argv, out=out) == 4
    err = capsys.readouterr().err
    text = err + out.getvalue()
    assert "stsedu live build" in text or "stsedu live up" in text
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1


def test_down_without_a_control_plane(empty_cache):
    out = io.StringIO()
    assert main(["live", "down"], out=out) == 0
    assert out.getvalue() == "no local control plane is running\n"


def test_build_without_go_says_so(empty_cache, monkeypatch, capsys):
    monkeypatch.setattr(live_build, "go_binary", lambda: None)
    assert main(["live", "build"], out=io.StringIO()) == 4
    assert "Go is not installed" in capsys.readouterr().err


# ------------------------------------------------------------------ the trace from watch events

def _pod(name, rv, phase="Pending", ready=False, rev="web-1", deleting=False, uid=None):
    meta = {"name": name, "uid": uid or f"uid-{name}", "resourceVersion": str(rv),
            "labels": {"controller-revision-hash": rev},
            "ownerReferences": [{"kind": "StatefulSet", "name": "web", "controller": True}]}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "spec": {"containers": [{"name": "nginx"}]},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def _sts(rv, replicas, ready):
    return {"metadata": {"name": "web", "uid": "uid-web", "resourceVersion": str(rv), "generation": 1},
            "spec": {"replicas": 1, "updateStrategy": {"type": "RollingUpdate"}},
            "status": {"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready,
                       "currentRevision": "web-1", "updateRevision": "web-1", "observedGeneration": 1}}


def test_trace_rows_follow_resource_versions_not_arrival():
    from stsedu.live.recorder import Recorder, NOTE
    rec = Recorder(api_client=None, namespace="ns")
    # arrival order differs from write order (four watches): the trace follows resourceVersion
    rec.events = [
        (12, 0.6, "MODIFIED", "StatefulSet", _sts(12, 1, 0)),
        (11, 0.5, "ADDED", "Pod", _pod("web-0", 11)),
        (20, 2.0, "MODIFIED", "Pod", _pod("web-0", 20, "Running")),
        (10, 0.4, "ADDED", "StatefulSet", _sts(10, 0, 0)),
        (30, 4.0, "MODIFIED", "Pod", _pod("web-0", 30, "Running", True)),
        (31, 4.1, "MODIFIED", "StatefulSet", _sts(31, 1, 1)),
        (40, 6.0, "MODIFIED", "Pod", _pod("web-0", 40, "Running", True, deleting=True)),
        (41, 7.0, "DELETED", "Pod", _pod("web-0", 41, "Running", True, deleting=True)),
    ]
    tr = rec.trace()
    pods = tr.pods()
    assert pods["cause"].tolist() == ["controller: create", "kubelet: started", "kubelet: ready",
                                      "delete (terminating)", "kubelet: terminated"]
    assert pods["event"].tolist() == ["created", "updated", "updated", "updated", "deleted"]
    assert pods["sync"].tolist() == [1, 2, 2, 3, 3]  # rows after the n-th status write: sync n + 1
    st = tr.status()
    assert st["sync"].tolist() == [1, 2] and st["ready_replicas"].tolist() == [0, 1] and st["written"].all()
    assert tr.decisions().empty and tr.meta["note"] == NOTE
    assert rec.writes()[:3] == [("create", "StatefulSet", "web", ""), ("create", "Pod", "web-0", ""),
                                ("update", "StatefulSet", "web", "status")]
    from stsedu import charts
    for chart in (charts.pod_timeline(tr), charts.revision_map(tr), charts.status_counters(tr)):
        assert chart.to_dict()  # the kit's charts draw the real run


def test_a_crash_looping_pod_reads_as_kubectl_shows_it():
    """printPod: a container's waiting/terminated reason is the STATUS (Error, CrashLoopBackOff);
    the restart count and when it last exited feed RESTARTS, as in the kit's trace."""
    from stsedu.live.recorder import Recorder

    def crashed(rv, reason, restarts, waiting=True):
        pod = _pod("web-0", rv, "Running")
        state = {"waiting": {"reason": reason}} if waiting else {"terminated": {"reason": reason, "exitCode": 1}}
        pod["status"]["containerStatuses"] = [{"name": "nginx", "restartCount": restarts, "state": state}]
        return pod

    rec = Recorder(api_client=None, namespace="default")
    rec.events = [
        (10, 0.0, "ADDED", "Pod", _pod("web-0", 10)),
        (11, 1.0, "MODIFIED", "Pod", _pod("web-0", 11, "Running")),
        (12, 2.0, "MODIFIED", "Pod", crashed(12, "Error", 0, waiting=False)),
        (13, 3.0, "MODIFIED", "Pod", crashed(13, "CrashLoopBackOff", 1)),
    ]
    pods = rec.trace().pods()
    assert pods["status"].tolist() == ["ContainerCreating", "Running", "Error", "CrashLoopBackOff"]
    assert pods["restarts"].tolist() == [0, 0, 0, 1]
    assert pods["last_exit"].tolist()[2:] == [2.0, 2.0]


def test_observe_reads_what_a_learner_sees_in_the_kit():
    import stsedu
    from stsedu.live.runner import kit_objects, observe
    from helpers import WEB_YAML as WEB
    c = stsedu.Cluster(seed=0)
    c.apply(WEB)
    c.run("web")
    o = observe(kit_objects(c))
    assert [p[0] for p in o["pods"]] == ["web-0", "web-1", "web-2"]
    (rev, number, owner), = o["revisions"]
    assert (number, owner) == (1, "web") and {p[1] for p in o["pods"]} == {rev}
    assert all(p[2:5] == ("Running", True, False) for p in o["pods"])
    assert [c_[0] for c_ in o["pvcs"]] == ["www-web-0", "www-web-1", "www-web-2"]
    assert o["sets"]["web"]["readyReplicas"] == 3


def test_text_comparison_drops_only_what_two_clusters_cannot_share():
    """Ages, RESTARTS' "(5s ago)", an event's "(x2 over 65s)" durations, timestamps and the namespace
    are normalised; counts, states and names are not. Events of one second may come in either order (kubectl
    sorts them by a timestamp in seconds); the event correlator's "(combined from similar events): " is dropped."""
    from stsedu.live.texts import describe_events, normalise, text_differences
    kit = "NAME    READY   STATUS             RESTARTS      AGE\nweb-1   0/1     CrashLoopBackOff   1 (19s ago)   56s\n"
    live = "NAME    READY   STATUS             RESTARTS     AGE\nweb-1   0/1     CrashLoopBackOff   1 (2s ago)   1m1s\n"
    assert normalise(kit) == normalise(live)
    assert normalise(kit) != normalise(live.replace("1 (2s", "2 (2s"))
    assert normalise(kit) != normalise(live.replace("CrashLoopBackOff", "Error           "))
    head = "Events:\n  Type    Reason            Age   From                    Message\n  ----    ------    ----  ----  -------\n"
    a = head + ("  Normal  SuccessfulDelete  14s                statefulset-controller  Delete Pod web-1 in StatefulSet web successful\n"
                "  Normal  SuccessfulCreate  13s (x2 over 40s)  statefulset-controller  Create Pod web-1 in StatefulSet web successful\n")
    b = head + ("  Normal  SuccessfulCreate  19s (x2 over 62s)  statefulset-controller  (combined from similar events): "
                "Create Pod web-1 in StatefulSet web successful\n"
                "  Normal  SuccessfulDelete  19s  statefulset-controller  Delete Pod web-1 in StatefulSet web successful\n")
    assert sorted(describe_events(a)) == sorted(describe_events(b))
    assert sorted(describe_events(a)) != sorted(describe_events(b.replace("Delete Pod web-1", "Delete Pod web-2")))
    assert text_differences({"describe sts: events": a}, {"describe sts: events": b}, "ns") == []
    assert text_differences({"describe sts": "Namespace:  default\nCreationTimestamp:  Thu, 01 Jan 2026 00:00:00 +0000\n"},
                            {"describe sts": "Namespace:  ns\nCreationTimestamp:  Wed, 25 Nov 2026 16:01:02 +0000\n"},
                            "ns") == []


def test_a_crash_loop_is_compared_in_time_on_the_kit():
    """The crash-loop scenario never settles: each advance after the crash is a point at the kit's time
    (``since`` the crash), with the whole controller run meanwhile (the set's status follows the pod)."""
    from stsedu import scenarios
    from stsedu.live.runner import play_kit, timed
    sc = scenarios.load("crash-loop")
    assert timed(sc) and not timed(scenarios.load("eviction"))
    run = play_kit(sc)
    points = [(p["since"], [x[3] for x in p["observed"]["pods"]], p["observed"]["sets"]["web"]["readyReplicas"])
              for p in run.points]
    assert points[1:5] == [(1.0, [True, False, True], 2), (10.0, [True, False, True], 2),
                           (30.0, [True, False, True], 2), (31.0, [True, False, True], 2)]
    assert "CrashLoopBackOff" in run.points[1]["texts"]["get pods"] and list(run.points[1]["texts"]) == ["get pods"]
    assert " 2 (20s ago) " in run.points[4]["texts"]["get pods"]
    assert points[-1][0] is None and points[-1][2] == 4  # after clear_behaviours: stable, web-3 made


def test_the_api_kubelet_binds_pods_to_the_kits_node():
    """`kubectl get pods -o wide` shows the same NODE on both sides."""
    from stsedu.views.kubectl.get import SIM_NODE
    from stsedu.live.kubelet import NODE
    assert NODE == SIM_NODE == "node-1"


EVENTS_HEAD = ("Events:\n  Type    Reason            Age   From                    Message\n"
               "  ----    ------            ----  ----                    -------\n")


def _events(*rows):
    return EVENTS_HEAD + "".join(f"  Normal  {r}  {a}  statefulset-controller  {m} Pod {p} in StatefulSet web successful\n"
                                 for r, a, m, p in rows)


def test_events_differing_in_count_or_in_order_across_seconds_differ():
    """`kubectl describe` lists events sorted by lastTimestamp (whole seconds; kubectl's
    event.SortableEvents with an unstable sort) and shows how often each came (`(x7 over 2m)`):
    a learner sees a different count, or a different order of events seconds apart, as different."""
    from stsedu.live.texts import text_differences
    kit = _events(("SuccessfulCreate", "40s", "create", "web-0"), ("SuccessfulCreate", "38s", "create", "web-1"),
                  ("SuccessfulDelete", "9s (x2 over 20s)", "delete", "web-1"))
    def differ(live):
        return text_differences({"describe sts: events": kit}, {"describe sts: events": live}, "ns") != []
    assert not differ(kit)
    # web-1 created twice instead of once
    assert differ(kit.replace("38s  statefulset", "38s (x2 over 50s)  statefulset"))
    # deleted once instead of twice
    assert differ(kit.replace("9s (x2 over 20s)", "9s"))
    # web-1 created before web-0, two seconds apart: an order kubectl defines
    assert differ(_events(("SuccessfulCreate", "40s", "create", "web-1"), ("SuccessfulCreate", "38s", "create", "web-0"),
                          ("SuccessfulDelete", "9s (x2 over 20s)", "delete", "web-1")))
    # within one second (the same age on the live side) either order is kubectl's
    assert not differ(_events(("SuccessfulCreate", "41s", "create", "web-1"), ("SuccessfulCreate", "41s", "create", "web-0"),
                              ("SuccessfulDelete", "10s (x2 over 21s)", "delete", "web-1")))


def test_a_delete_the_real_controller_repeats_from_a_stale_cache_is_not_a_difference():
    """Upstream's DeleteStatefulPod records SuccessfulDelete for every delete it sends, also of a pod that
    is already terminating (its pod cache lagging its set cache; the StatefulSet controller keeps no
    expectations): the real describe may count a delete more often than took effect. The deletes that took
    effect are compared from the pods' watch; a create, or a delete counted less often, still differs.
    (CI saw `Delete Pod web-2 (x3 ...)` against the kit's x2 in blocked-scale-down, under load.)"""
    from stsedu.live.texts import text_differences
    kit = _events(("SuccessfulCreate", "40s", "create", "web-0"), ("SuccessfulDelete", "9s (x2 over 20s)", "delete", "web-1"))
    def differ(live):
        return text_differences({"describe sts: events": kit}, {"describe sts: events": live}, "ns") != []
    assert not differ(kit.replace("(x2 over 20s)", "(x3 over 20s)"))
    assert differ(kit.replace("9s (x2 over 20s)", "9s"))
    assert differ(kit.replace("40s  statefulset", "40s (x2 over 50s)  statefulset"))
    assert differ(kit.replace("(x2 over 20s)", "(x3 over 20s)").replace("delete Pod web-1", "delete Pod web-2"))


def test_ups_kubelet_leaves_live_runs_namespaces_to_their_own():
    """`stsedu live up`'s kubelet runs the pods of every namespace a learner uses; `live run` makes
    stsedu-live-... namespaces and drives them with a kubelet of its own (the scenario's stages and
    verbs), so the two never act on the same pods."""
    from stsedu.live.kubelet import served_by_background
    assert served_by_background("default") and served_by_background("demo")
    assert not served_by_background("kube-system") and not served_by_background("stsedu-live-1a2b3c")
