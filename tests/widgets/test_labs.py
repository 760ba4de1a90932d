"""stsedu.labs: each lab's controls change the cluster and redraw the decisions table and the chart;
predict-then-see questions never show their answer before a prediction, and judge it by the simulator."""

import pytest

from stsedu import labs

LABS = [labs.IdentityLab, labs.StorageLab, labs.ScalingLab, labs.PolicyLab, labs.UpdateLab, labs.PartitionLab,
        labs.OnDeleteLab, labs.OwnershipLab, labs.AvailabilityLab, labs.FaultLab, labs.HistoryLab,
        labs.ProfileLab]


@pytest.mark.parametrize("cls", LABS, ids=lambda c: c.__name__)
def test_a_lab_starts_with_the_set_up_and_says_so(cls):
    lab = cls()
    assert "Ready" in repr(lab) and "Run this cell" in repr(lab)
    assert "create" in lab.decisions.value  # the creation of the set's pods is the first thing shown
    assert lab.chart.chart is not None


def _moved(lab, action):
    before = (lab.decisions.value, lab.chart.widget.spec, lab.text.value)
    action(lab)
    assert lab.last_error is None, lab.last_error
    after = (lab.decisions.value, lab.chart.widget.spec, lab.text.value)
    assert after[0] != before[0] and after[1] != before[1] and lab.chart.shows_now(lab.cluster)
    return lab


def test_scaling_lab_blocked_scale_down_waits_until_web_0_is_healthy_again():
    """processCondemned is not reached while a pod in range is not Running and Ready (OrderedReady)."""
    lab = labs.ScalingLab()
    lab.w_healthy.value = False
    lab.w_replicas.value = 1
    assert "wait" in lab.decisions.value and "delete" not in lab.decisions.value
    assert [p.name for p in lab.cluster.pods("web")] == ["web-0", "web-1", "web-2"]
    _moved(lab, lambda lab: setattr(lab.w_healthy, "value", True))
    assert "delete" in lab.decisions.value
    assert [p.name for p in lab.cluster.pods("web")] == ["web-0"]


def test_partition_lab_updates_only_ordinals_at_or_above_the_partition():
    lab = labs.PartitionLab()
    _moved(lab, lambda lab: setattr(lab.w_image, "value", "nginx:2"))
    _moved(lab, lambda lab: setattr(lab.w_partition, "value", 2))
    images = {p.name: p.images()[0] for p in lab.cluster.pods("web")}
    assert images == {"web-0": "nginx:1", "web-1": "nginx:1", "web-2": "nginx:2", "web-3": "nginx:2"}


@pytest.mark.parametrize("cls,action", [
    (labs.IdentityLab, lambda lab: setattr(lab.w_start, "value", 2)),
    (labs.StorageLab, lambda lab: setattr(lab.w_replicas, "value", 1)),
    (labs.PolicyLab, lambda lab: setattr(lab.w_policy, "value", "Parallel")),
    (labs.UpdateLab, lambda lab: setattr(lab.w_image, "value", "nginx:2")),
    (labs.OnDeleteLab, lambda lab: lab.delete_pod("web-1")),
    (labs.OwnershipLab, lambda lab: lab.delete_set("orphan")),
    (labs.AvailabilityLab, lambda lab: setattr(lab.w_image, "value", "nginx:2")),
    (labs.FaultLab, lambda lab: lab.fail_pod("web-1")),
    (labs.HistoryLab, lambda lab: setattr(lab.w_image, "value", "nginx:3")),
    (labs.ProfileLab, lambda lab: setattr(lab.w_replicas, "value", 5)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_each_lab_control_redraws_table_and_chart(cls, action):
    lab = _moved(cls(), action)
    assert lab.decisions.value and any(lab.chart.widget.spec["datasets"].values())


def test_a_stuck_pod_shows_in_the_lab_chart_for_the_seconds_the_lab_let_pass():
    """The chart reaches the clock's now: web-2 stuck Running, not Ready, after a broken rollout is a bar
    of the lab's linger time, not a zero-width sliver at the last change."""
    lab = labs.FaultLab()
    lab.set_image(labs.BROKEN_IMAGE)
    now = lab.cluster.now
    spec = lab.chart.widget.spec
    bars = [r for d in spec["datasets"].values() for r in d if r.get("pod") == "web-2"]
    last = max(bars, key=lambda r: r["x1"])
    assert last["state"] == "Running" and last["x1"] == now
    assert last["x1"] - last["x0"] >= lab.linger_seconds


def test_ownership_lab_orphans_keep_running_and_are_adopted_again():
    lab = labs.OwnershipLab()
    lab.delete_set("orphan")
    assert [p.owner for p in lab.cluster.pods()] == [None, None, None]
    lab.recreate()
    assert [p.owner for p in lab.cluster.pods()] == ["web", "web", "web"]


def test_profile_lab_replays_the_changes_under_the_other_profile():
    lab = labs.ProfileLab()
    lab.scale(5)
    lab.w_profile.value = "v1.16"
    assert lab.cluster.profile.name == "v1.16"
    assert lab.cluster.statefulset("web").spec.replicas == 5


def test_a_bad_value_shows_the_api_error_and_changes_nothing():
    lab = labs.AvailabilityLab()
    gen = lab.cluster.statefulset("web").generation
    lab.set_max_unavailable(0)
    assert "maxUnavailable" in lab.did_area.value and "Nothing was changed" in lab.did_area.value
    assert lab.cluster.statefulset("web").generation == gen
    assert lab.w_mu.value == 1  # the control snapped back


@pytest.mark.parametrize("qid", list(labs.QUESTIONS))
def test_question_without_answer_repeats_the_question_only(qid):
    q = labs.question(qid)
    r = labs.reveal(qid)
    assert q.text in r.text and "No prediction recorded yet" in r.text
    assert "✓" not in r.text and "✗" not in r.text and q.why not in r.text
    assert labs.reveal(qid, None).text == r.text


@pytest.mark.parametrize("qid", list(labs.QUESTIONS))
def test_question_judges_by_the_simulator(qid):
    q = labs.question(qid)
    got = q.act(q.setup())  # what the simulator does: never stored
    right = labs.reveal(qid, got)
    assert "✓" in right.text and q.why in right.text
    wrong = {"pods": ["web-99"], "decision": ("update", "web-99"), "image": "nginx:99", "number": 99,
             "numbers": (9, 9, 9), "bool": not got, "word": [c for c in q.choices if c != got][0] if q.choices else ""}[q.kind]
    assert "✗" in labs.reveal(qid, wrong).text


def test_answer_of_the_wrong_form_says_which_form():
    assert "Wrong form" in labs.reveal("06.a", "web-3").text
    with pytest.raises(KeyError, match="no question"):
        labs.question("99.z")


def test_decisions_table_keeps_whole_sentences():
    lab = labs.ScalingLab()
    lab.scale(4)
    assert "…" not in lab.decisions.value and "..." not in lab.decisions.value
    assert "does not exist: create it" in lab.decisions.value


def test_step_lab_one_sync_per_press_and_each_press_takes_a_second():
    lab = labs.StepLab()
    assert [p.name for p in lab.cluster.pods("web")] == ["web-0"] and lab.cluster.now == 0
    lab.sync_once()  # web-0 is Pending: OrderedReady waits
    assert "wait" in lab.decisions.value and len(lab.cluster.pods("web")) == 1 and lab.cluster.now == 1
    lab.kubelet_step()
    assert lab.cluster.pod("web-0").phase == "Running" and lab.cluster.now == 2


def test_manual_kubelet_steps_take_simulated_time_when_asked():
    """kubelet.step_seconds: each manual verb moves the clock first, so AGE and watch lines mean something;
    a refused verb moves nothing; the default (0) keeps exact tests at one instant."""
    import stsedu
    c = stsedu.Cluster(kubelet="manual")
    assert c.kubelet.step_seconds == 0
    c.kubelet.step_seconds = 1
    c.apply(stsedu.examples.web(1))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    assert c.now == 2 and c.pod("web-0").ready_since == 2
    with pytest.raises(ValueError):
        c.kubelet.start("web-0")  # not Pending: refused, and no time passes
    assert c.now == 2
    assert stsedu.tables.get_pods_text(c, "web").splitlines()[1].split()[-1] == "2s"


def test_playground_manual_pod_buttons_take_a_simulated_second():
    from stsedu.widgets import Playground
    pg = Playground(kubelet="manual")
    pg.sync_once()
    t = pg.cluster.now
    pg.start_pod("web-0")
    assert pg.cluster.now == t + 1 and pg.cluster.pod("web-0").phase == "Running"


def test_on_delete_lab_at_50_spreads_its_deletes_across_the_revision_map():
    """OnDeleteLab at 50 replicas (issue #41): bringing the set up takes about 200 syncs and each delete a
    few, so on a sync axis from sync 1 the deletes were squeezed into the chart's right edge.  The revision
    map shows the syncs since the set came up: the x domain starts there, the deletes' syncs fill most of
    it, and every bar drawn lies in it (the pods' whole rows stay on the ordinal axis)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from surface_checks import chart_problems, encoded
    from stsedu import examples
    lab = labs.OnDeleteLab(examples.web(50, updateStrategy={"type": "OnDelete"}))
    came_up = len(lab.cluster.trace)
    assert came_up > 150  # the creation of 50 pods, one by one
    lab.w_image.value = "nginx:2"
    for pod in ("web-49", "web-20", "web-0"):
        lab.w_pod.value = pod
        lab.b_delete.click()
    last = len(lab.cluster.trace)
    assert {lab.cluster.pod(p).images()[0] for p in ("web-49", "web-20", "web-0")} == {"nginx:2"}
    spec = lab.chart.widget.spec
    x_domains = {tuple(n["encoding"]["x"]["scale"]["domain"]) for n in encoded(spec)
                 if "domain" in (n["encoding"].get("x", {}).get("scale") or {})}
    assert len(x_domains) == 1, x_domains
    (lo, hi), = x_domains
    assert lo <= came_up + 0.5 and hi >= last, (lo, hi, came_up, last)
    assert (last - came_up) / (hi - lo) >= 0.5, f"the deletes' syncs take {(last - came_up) / (hi - lo):.0%} of the axis"
    bars = spec["datasets"][next(k for k, v in spec["datasets"].items() if v and "revision" in v[0])]
    assert bars and all(b["x1"] > lo and b["x0"] >= lo for b in bars)
    # the replaced pods show their new revision inside the window
    new_rev = lab.cluster.statefulset("web").status.update_revision
    assert {b["pod"] for b in bars if b["revision"] == new_rev} >= {"web-49", "web-20", "web-0"}
    assert chart_problems(lab.chart.chart, lab.cluster) == []
    assert "since" in str(spec.get("title", "")), spec.get("title")
