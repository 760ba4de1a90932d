"""The simulated kubelet as a Kubernetes engineer knows it: crash loops with back-off, and phase
Failed only for a named cause (Pod lifecycle page; kubelet's eviction manager, node shutdown
manager and active deadline handler; kubectl's printPod)."""

from __future__ import annotations

import pytest

import stsedu
from stsedu import tables
from stsedu.api.errors import ValidationError
from stsedu.views.palette import STATE_COLORS
from stsedu.sim.kubelet import backoff_delays

from helpers import one_ready_pod, web


def _crash_looping(seconds: float = 5.0, until: float = 700.0, seed: int = 0) -> stsedu.Cluster:
    c = stsedu.Cluster(seed=seed)
    c.apply(web(3))
    c.run("web")
    c.kubelet.crash_loop(seconds, pod="web-1")
    c.kubelet.crash("web-1")
    c.run("web", until=until)
    c.advance(max(0.0, until - c.now))
    return c


def _rows(c, pod: str, cause_prefix: str) -> list[float]:
    p = c.trace.pods()
    return p[(p["pod"] == pod) & p["cause"].str.startswith(cause_prefix)]["time"].tolist()


def test_a_crashed_container_restarts_after_the_documented_back_off():
    """Pod lifecycle, "Container restarts": 10 s, doubling, capped at 300 s; restartCount climbs."""
    c = _crash_looping(until=1300)
    exits = _rows(c, "web-1", "kubelet: container exited")
    restarts = _rows(c, "web-1", "kubelet: container restarted")
    gaps = [r - e for e, r in zip(exits, restarts)]
    assert gaps[:7] == backoff_delays(7) == [10, 20, 40, 80, 160, 300, 300]
    pod = c.pod("web-1")
    assert pod.phase == "Running" and not pod.ready
    assert pod.restarts == len(restarts) >= 7


def test_a_crash_looping_pod_stays_running_and_not_ready_and_never_fails():
    c = _crash_looping()
    p = c.trace.pods()
    mine = p[p["pod"] == "web-1"]
    assert set(mine["phase"]) == {"Pending", "Running"}
    assert not mine[mine["status"].isin(["Error", "CrashLoopBackOff"])]["ready"].any()
    assert (mine["event"] == "created").sum() == 1  # the controller never replaced it


def test_get_pods_shows_error_then_crash_loop_back_off_and_restarts():
    """printPod: a terminated container's reason (Error), then the waiting reason (CrashLoopBackOff);
    RESTARTS with "(Ns ago)" from lastState.terminated.finishedAt."""
    c = _crash_looping(until=60)
    lines = [line.split() for line in tables.watch_lines(c.trace, "web") if line.startswith("web-1")]
    statuses = [w[2] for w in lines]
    first_error = statuses.index("Error")
    assert statuses[first_error + 1] == "CrashLoopBackOff"
    assert lines[first_error][1] == "0/1" and lines[first_error][3] == "0"
    after = [w for w in lines[first_error:] if w[2] == "Running"]
    assert after[0][3:6] == ["1", "(10s", "ago)"]  # restarted 10 s after the crash


def test_get_pods_now_during_back_off():
    c = one_ready_pod()
    c.kubelet.crash("web-0")
    assert tables.get_pods_text(c).splitlines()[1].split()[:4] == ["web-0", "0/1", "Error", "0"]
    assert c.kubelet.step() == "web-0 is in CrashLoopBackOff"
    assert tables.get_pods_text(c).splitlines()[1].split()[:4] == ["web-0", "0/1", "CrashLoopBackOff", "0"]
    assert c.kubelet.step() == "web-0's container restarted"
    assert tables.get_pods_text(c).splitlines()[1].split()[:4] == ["web-0", "0/1", "Running", "1"]
    m = c.pod("web-0").to_manifest()["status"]
    assert m["phase"] == "Running"
    cs = m["containerStatuses"][0]
    assert cs["restartCount"] == 1 and cs["state"] == {"running": {}}
    assert cs["lastState"]["terminated"]["reason"] == "Error"


def test_the_container_state_in_the_manifest_follows_the_kubelet():
    c = one_ready_pod()
    c.kubelet.crash("web-0")
    cs = c.pod("web-0").to_manifest()["status"]["containerStatuses"][0]
    assert cs["state"] == {"terminated": {"exitCode": 1, "reason": "Error"}} and cs["ready"] is False
    c.kubelet.step()
    cs = c.pod("web-0").to_manifest()["status"]["containerStatuses"][0]
    assert cs["state"]["waiting"]["reason"] == "CrashLoopBackOff"


def test_back_off_resets_after_ten_minutes_of_running_fine():
    """The kubelet forgets the back-off of a container that ran 10 minutes without a problem."""
    c = stsedu.Cluster()
    c.apply(web(1))
    c.run("web")
    for _ in range(3):  # 10, 20, 40
        c.kubelet.crash("web-0")
        c.advance(100)
    c.advance(600)  # runs fine for ten minutes
    c.kubelet.crash("web-0")
    c.advance(100)
    exits = _rows(c, "web-0", "kubelet: container exited")
    restarts = _rows(c, "web-0", "kubelet: container restarted")
    assert [r - e for e, r in zip(exits, restarts)] == [10, 20, 40, 10]


def test_the_controller_waits_on_a_crash_looping_pod_and_a_rollout_stalls():
    """A crash-looping pod is Running and not Ready: OrderedReady waits on it, the rollout stalls."""
    c = stsedu.Cluster()
    c.apply(web(3))
    c.run("web")
    c.kubelet.crash_loop(1, image="nginx:2")  # exits before its readiness probe ever passes
    c.set_image("web", "nginx:2")
    c.run("web", until=c.now + 400)
    pods = {p.name: p for p in c.pods("web")}
    assert pods["web-2"].images() == ("nginx:2",) and pods["web-2"].restarts >= 3
    assert pods["web-2"].phase == "Running" and not pods["web-2"].ready
    assert pods["web-1"].images() == ("nginx:1",) and pods["web-0"].images() == ("nginx:1",)
    waits = c.trace.decisions()
    assert (waits[waits["action"] == "wait"]["pod"] == "web-2").any()
    assert not (waits[(waits["action"] == "delete")]["pod"] == "web-2").iloc[1:].any()


@pytest.mark.parametrize("fault, reason, message", [
    (lambda c: c.kubelet.evict("web-1"), "Evicted", "The node was low on resource: memory. "),
    (lambda c: c.kubelet.evict("web-1", resource="ephemeral-storage"), "Evicted",
     "The node was low on resource: ephemeral-storage. "),
    (lambda c: c.kubelet.shut_down_node("web-1"), "Terminated",
     "Pod was terminated in response to imminent node shutdown."),
    (lambda c: c.kubelet.fail("web-1", reason="DeadlineExceeded"), "DeadlineExceeded",
     "Pod was active on the node longer than the specified deadline"),
])
def test_phase_failed_only_for_a_named_cause_and_the_controller_replaces_it(fault, reason, message):
    c = stsedu.Cluster()
    c.apply(web(3))
    c.run("web")
    old = c.pod("web-1").uid
    pod = fault(c)
    assert (pod.phase, pod.reason, pod.message) == ("Failed", reason, message)
    st = pod.to_manifest()["status"]
    assert (st["phase"], st["reason"], st["message"]) == ("Failed", reason, message)
    assert tables.get_pods_text(c).splitlines()[2].split()[:3] == ["web-1", "0/1", reason]
    c.run("web")
    d = c.trace.decisions()
    assert ((d["action"] == "delete") & (d["pod"] == "web-1") & (d["reason"] == "failed")).any()
    new = c.pod("web-1")
    assert new.uid != old and new.phase == "Running" and new.ready


def test_active_deadline_seconds_patched_on_a_pod_fails_it_when_it_passes():
    """kubelet's active deadline handler: Failed, DeadlineExceeded, activeDeadlineSeconds after startTime."""
    c = stsedu.Cluster()
    c.apply(web(2))
    c.run("web")
    started = c.pod("web-0").started_at
    c.patch_pod("web-0", {"spec": {"activeDeadlineSeconds": 60}})
    c.advance(started + 59 - c.now)
    assert c.pod("web-0").phase == "Running"
    c.advance(1)
    assert (c.pod("web-0").phase, c.pod("web-0").reason) == ("Failed", "DeadlineExceeded")


@pytest.mark.parametrize("patch, message", [
    ({"spec": {"activeDeadlineSeconds": 0}}, "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1"),
    ({"spec": {"activeDeadlineSeconds": "5"}}, "spec.activeDeadlineSeconds: json: cannot unmarshal string"),
    ({"spec": {"containers": []}}, "spec.containers: Forbidden"),
])
def test_a_bad_pod_spec_patch_is_refused_and_changes_nothing(patch, message):
    c = stsedu.Cluster()
    c.apply(web(1))
    c.run("web")
    before = c.dump()
    with pytest.raises(ValidationError, match=message):
        c.patch_pod("web-0", patch)
    assert c.dump() == before


def test_active_deadline_may_only_go_down():
    c = stsedu.Cluster()
    c.apply(web(1))
    c.run("web")
    c.patch_pod("web-0", {"spec": {"activeDeadlineSeconds": 100}})
    before = c.dump()
    with pytest.raises(ValidationError, match="must be less than or equal to previous value"):
        c.patch_pod("web-0", {"spec": {"activeDeadlineSeconds": 200}})
    with pytest.raises(ValidationError, match="must not update from a positive integer to nil value"):
        c.patch_pod("web-0", {"spec": {"activeDeadlineSeconds": None}})
    assert c.dump() == before


def test_a_failure_needs_a_known_cause():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    before = c.dump()
    with pytest.raises(ValidationError, match='reason: Unsupported value: "OOM"'):
        c.kubelet.fail("web-0", reason="OOM")
    with pytest.raises(ValidationError, match='resource: Unsupported value: "cpu"'):
        c.kubelet.evict("web-0", resource="cpu")
    assert c.dump() == before


def test_only_a_running_container_crashes_and_only_a_crashed_one_restarts():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    with pytest.raises(ValueError, match="only a running container can crash"):
        c.kubelet.crash("web-0")  # still ContainerCreating
    c.kubelet.start("web-0")
    with pytest.raises(ValueError, match="restarts a crashed container"):
        c.kubelet.restart("web-0")
    c.kubelet.crash("web-0")
    with pytest.raises(ValueError, match="only a running container can crash"):
        c.kubelet.crash("web-0")
    with pytest.raises(ValueError, match="its container has crashed"):
        c.kubelet.set_ready("web-0")


def test_same_seed_same_crash_loop_trace():
    a = _crash_looping(seed=3, until=400)
    b = _crash_looping(seed=3, until=400)
    assert a.trace.rows() == b.trace.rows()


def test_the_timeline_draws_a_crash_looping_state_in_its_own_colour():
    c = _crash_looping(until=120)
    seg = tables.pod_intervals(c.trace, "web")
    mine = seg[seg["pod"] == "web-1"]
    assert "CrashLoopBackOff" in set(mine["state"])
    assert "CrashLoopBackOff" in tables.STATES and STATE_COLORS["CrashLoopBackOff"] not in (
        STATE_COLORS[s] for s in STATE_COLORS if s != "CrashLoopBackOff")
    # the crash-looping stretches never count as Ready or Available
    crash = mine[mine["state"] == "CrashLoopBackOff"]
    assert len(crash) >= 3


# ------------------------------------------------------------------ scenarios


def test_the_crash_loop_scenario_shows_back_off_intervals_10_20_40():
    from stsedu import scenarios
    result = scenarios.load("crash-loop").run()
    c = result.cluster
    exits = _rows(c, "web-1", "kubelet: container exited")
    restarts = _rows(c, "web-1", "kubelet: container restarted")
    assert [r - e for e, r in zip(exits, restarts)][:3] == [10, 20, 40]
    w = tables.watch_frame(c.trace, "web")
    assert {"Error", "CrashLoopBackOff"} <= set(w[w["pod"] == "web-1"]["status"])
    d = c.trace.decisions()
    assert not ((d["action"] == "delete") & (d["pod"] == "web-1")).any()  # the controller never deletes it


def test_the_eviction_scenario_replaces_the_failed_pods():
    from stsedu import scenarios
    c = scenarios.load("eviction").run().cluster
    d = c.trace.decisions()
    deleted = d[(d["action"] == "delete") & (d["reason"] == "failed")]["pod"].tolist()
    assert deleted == ["web-1", "web-2", "web-0"]
    events = tables.watch_frame(c.trace, "web")
    assert {"Evicted", "Terminated", "DeadlineExceeded"} <= set(events["status"])


def test_a_pod_expectation_on_status_restarts_and_reason_is_checked():
    from stsedu import scenarios
    from stsedu.lessons.scenarios import ExpectationFailed
    sc = scenarios.loads(
        "cluster: {kubelet: manual}\nobjects: [stsedu:web.yaml]\nsteps:\n"
        "  - settle: {}\n  - crash: web-0\n"
        "  - expect: {pods: [{name: web-0, status: CrashLoopBackOff, restarts: 0}, web-1, web-2]}\n")
    with pytest.raises(ExpectationFailed, match="expect.pods.web-0.status: expected CrashLoopBackOff, got Error"):
        sc.run()
    bad = "cluster: {kubelet: manual}\nobjects: [stsedu:web.yaml]\nsteps:\n  - expect: {pods: [{name: web-0, restarts: -1}]}\n"
    with pytest.raises(scenarios.ScenarioError, match="restarts"):
        scenarios.loads(bad)


# ------------------------------------------------------------------ the Fault lab


def _chart_rows(lab, pod):
    spec = lab.chart.widget.spec
    return [r for d in spec["datasets"].values() for r in d if r.get("pod") == pod]


def test_the_fault_lab_shows_a_crash_loop_and_the_controller_only_waiting():
    from stsedu.widgets import labs
    lab = labs.FaultLab()
    uid = lab.cluster.pod("web-1").uid
    lab.crash_loop("web-1")
    pod = lab.cluster.pod("web-1")
    assert pod.uid == uid and pod.phase == "Running" and not pod.ready and pod.restarts >= 3
    assert "CrashLoopBackOff" in {r.get("state") for r in _chart_rows(lab, "web-1")}
    # the chart reaches the time the lab let pass, though the loop goes on
    assert max(r["x1"] for r in _chart_rows(lab, "web-1")) == lab.cluster.now
    lab.fix_container("web-1")
    assert lab.cluster.pod("web-1").ready and lab.cluster.pod("web-1").uid == uid


@pytest.mark.parametrize("button, reason", [("evict", "Evicted"), ("shut_down_node", "Terminated")])
def test_the_fault_lab_fails_a_pod_for_a_named_cause_and_it_is_replaced(button, reason):
    from stsedu.widgets import labs
    lab = labs.FaultLab()
    uid = lab.cluster.pod("web-1").uid
    getattr(lab, button)("web-1")
    p = lab.cluster.trace.pods()
    assert ((p["pod"] == "web-1") & (p["status"] == reason)).any()
    assert lab.cluster.pod("web-1").uid != uid and lab.cluster.pod("web-1").ready
    assert "Failed" in {r.get("state") for r in _chart_rows(lab, "web-1")}


def test_the_fault_lab_deadline_button_fails_the_pod_with_deadline_exceeded():
    from stsedu.widgets import labs
    lab = labs.FaultLab()
    uid = lab.cluster.pod("web-1").uid
    lab.set_deadline("web-1", 30)
    p = lab.cluster.trace.pods()
    assert ((p["pod"] == "web-1") & (p["status"] == "DeadlineExceeded")).any()
    assert lab.cluster.pod("web-1").uid != uid
