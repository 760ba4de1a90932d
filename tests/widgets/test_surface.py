"""What the learner sees is true of the cluster it draws (issue #26): the labs' controls, status
lines and charts, and the charts under the reveals, checked against the cluster with
tests/surface_checks.py."""

import pytest

from stsedu import examples, labs
from surface_checks import chart_problems, control_problems, leaves, status_problems

LABS = [labs.IdentityLab, labs.StorageLab, labs.ScalingLab, labs.PolicyLab, labs.UpdateLab, labs.PartitionLab,
        labs.OnDeleteLab, labs.OwnershipLab, labs.AvailabilityLab, labs.FaultLab, labs.HistoryLab,
        labs.ProfileLab, labs.StepLab]


def _problems(lab) -> list[str]:
    return chart_problems(lab.chart.chart, lab.cluster, lab.name) + status_problems(lab) + control_problems(lab)


def _true(lab):
    problems = _problems(lab)
    assert problems == [], problems


# ------------------------------------------------------------------ defect 1: a refused change


def test_update_lab_on_delete_is_accepted_and_drops_rolling_update_as_kubectl_patch_must():
    """ValidateStatefulSetUpdateStrategy: rollingUpdate is only allowed with type RollingUpdate, so the
    lab's patch that switches to OnDelete sets rollingUpdate to null; then a new image replaces nothing."""
    lab = labs.UpdateLab()
    lab.w_strategy.value = "OnDelete"
    assert lab.last_error is None, lab.last_error
    sts = lab.cluster.statefulset("web")
    assert sts.spec.update_strategy == "OnDelete" and "rollingUpdate" not in sts.spec.raw["updateStrategy"]
    lab.w_image.value = "nginx:2"
    assert [p.images()[0] for p in lab.cluster.pods("web")] == ["nginx:1"] * 3
    assert "a-delete" not in lab.decisions.value
    lab.w_strategy.value = "RollingUpdate"
    assert [p.images()[0] for p in lab.cluster.pods("web")] == ["nginx:2"] * 3
    _true(lab)


def _refuse_every_change(cluster):
    def refused(*_a, **_k):
        raise ValueError("refused by the test: the API server said no")
    for verb in ("scale", "set_image", "patch", "apply", "delete", "delete_pod", "rollout_undo"):
        setattr(cluster, verb, refused)


@pytest.mark.parametrize("cls", LABS, ids=lambda c: c.__name__)
def test_after_a_refused_change_every_control_shows_the_clusters_value(cls):
    lab = cls()
    _refuse_every_change(lab.cluster)
    for attr in ("w_replicas", "w_start", "w_mrs", "w_limit", "w_image", "w_partition", "w_mu", "w_strategy",
                 "w_policy", "w_scaled", "w_deleted"):
        w = getattr(lab, attr, None)
        if w is None:
            continue
        other = ([o for o in w.options if o != w.value][0] if hasattr(w, "options")
                 else (w.max if w.value != w.max else w.min))
        w.value = other
        assert lab.last_error is not None, f"{attr}: the refusal was not shown"
        assert control_problems(lab) == [], (attr, control_problems(lab))


# --------------------------------------------------------- defect 2: empty charts under reveals


def _an_answer(q):
    return {"pods": [], "decision": ("wait", "web-0"), "image": "nginx:1", "number": 0, "numbers": (1, 1, 1),
            "word": q.choices[0] if q.choices else "", "bool": True, "value": 0}[q.kind]


@pytest.mark.parametrize("qid", list(labs.QUESTIONS))
def test_every_reveal_chart_has_rows_and_names_only_pods_that_existed(qid):
    q = labs.question(qid)
    c = q.setup()
    q.act(c)
    from stsedu.widgets.predict import _chart
    assert chart_problems(_chart(q, c), c) == []
    assert labs.reveal(qid, _an_answer(q)).chart is not None


# ------------------------------------------- defect 3: the pod timeline reaches the cluster's now


@pytest.mark.parametrize("cls", LABS, ids=lambda c: c.__name__)
def test_a_lab_first_view_is_true(cls):
    """The first view: the last pod to turn Ready is drawn Ready (as kubectl's 1/1 beside it says),
    the axis reaches now, the status line is true and the controls show the spec."""
    assert _problems(cls()) == []


# ----------------------------------------------------- defect 4: "stable" only when it is


def test_a_60_pod_rollout_runs_to_the_end_and_is_stable_when_the_lab_says_so():
    """A rolling update of 60 OrderedReady pods takes more than 300 syncs (the labs' old fixed limit)."""
    lab = labs.UpdateLab(examples.web(60))
    lab.w_image.value = "nginx:3"
    assert "stable at" in lab.did_area.value and "not stable" not in lab.did_area.value
    assert {p.images()[0] for p in lab.cluster.pods("web")} == {"nginx:3"}
    assert all(p.ready for p in lab.cluster.pods("web"))
    _true(lab)


def test_a_blocked_scale_down_is_not_called_stable_and_the_lab_says_why():
    lab = labs.ScalingLab()
    lab.w_healthy.value = False
    lab.w_replicas.value = 1
    line = lab.did_area.value
    assert "not stable" in line and "web-0 not Ready" in line and "still to delete" in line
    assert "nothing more happens by itself" in line
    _true(lab)


def test_a_run_cut_by_the_labs_limit_says_so():
    lab = labs.UpdateLab(examples.web(10), max_syncs=5)
    lab.w_image.value = "nginx:2"
    assert "not stable" in lab.did_area.value and "limit of 5 syncs" in lab.did_area.value
    _true(lab)


# --------------------------------------- item 2: every control of every lab, checked after each move


def _moves(lab):
    """Every control of *lab* moved once to each other value it offers (sliders: to their ends)."""
    import ipywidgets as W
    for w in list(leaves(lab.controls)):
        if isinstance(w, W.Button):
            yield w.description, w.click
        elif isinstance(w, W.ToggleButtons):
            for o in [o for o in w.options if o != w.value] + [w.value]:
                yield f"{w.description}={o}", lambda w=w, o=o: setattr(w, "value", o)
        elif isinstance(w, (W.IntSlider, W.Checkbox)):
            ends = [not w.value, w.value] if isinstance(w, W.Checkbox) else [w.max, w.min, w.value]
            for v in ends:
                yield f"{w.description}={v}", lambda w=w, v=v: setattr(w, "value", v)


@pytest.mark.parametrize("cls", LABS, ids=lambda c: c.__name__)
def test_every_control_of_every_lab_leaves_a_true_screen(cls):
    lab = cls()
    for what, move in _moves(lab):
        move()
        problems = (chart_problems(lab.chart.chart, lab.cluster, lab.name) if lab._exists() else []) \
            + status_problems(lab) + control_problems(lab)
        assert problems == [], (what, problems)


# ------------------------------------------------------------------------------ the Playground


def _playground_problems(pg):
    from stsedu.widgets.panels import ChartView
    out = []
    for v in pg.views:
        if isinstance(v, ChartView):
            v.update(pg)
            out += [f"{v.title}: {p}" for p in chart_problems(v.chart, pg.cluster, pg.name)]
    from stsedu.widgets.settled import unsettled
    info = pg.info.value
    if "Stable after" in info and unsettled(pg.cluster, pg.name):
        out.append(f"says {info!r} but the set is not stable: {unsettled(pg.cluster, pg.name)}")
    spec = pg.cluster.statefulset(pg.name).spec
    shown = {"replicas": (pg.replicas.value, spec.replicas), "strategy": (pg.strategy.value, spec.update_strategy),
             "policy": (pg.policy.value, spec.pod_management_policy),
             "minReadySeconds": (pg.min_ready_seconds.value, spec.min_ready_seconds),
             "image": (pg.image.value, spec.template["spec"]["containers"][0]["image"]),
             "partition": (pg.partition.value, spec.partition)}
    out += [f"{k} shows {a!r}, the cluster has {b!r}" for k, (a, b) in shown.items() if a != b]
    return out


def test_every_playground_action_leaves_a_true_screen():
    from stsedu.widgets import Playground
    pg = Playground(settle=True)
    steps = [
        ("scale to 5", lambda: pg.set_replicas(5)), ("run", pg.run_until_stable),
        ("OnDelete", lambda: pg.set_strategy("OnDelete")), ("nginx:2", lambda: pg.set_image("nginx:2")),
        ("run", pg.run_until_stable),
        ("RollingUpdate", lambda: pg.set_strategy("RollingUpdate")), ("run", pg.run_until_stable),
        ("partition -1 (refused)", lambda: pg.set_partition(-1)),
        ("minReadySeconds -5 (refused)", lambda: pg.set_min_ready_seconds(-5)),
        ("nginx:3 never ready", lambda: pg.make_never_ready("nginx:3")),
        ("nginx:3", lambda: pg.set_image("nginx:3")), ("run (stuck)", pg.run_until_stable),
        ("scale to 1", lambda: pg.set_replicas(1)), ("run (blocked)", pg.run_until_stable),
        ("advance", lambda: pg.advance(30)), ("one sync", pg.sync_once),
    ]
    for what, step in steps:
        step()
        problems = _playground_problems(pg)
        assert problems == [], (what, problems)


# ------------------------------------------------------------- answers before questions, answer forms


def test_no_rule_gives_away_a_later_question():
    """A reveal's rule is shown once the learner answered; it must not answer the next question."""
    q = labs.QUESTIONS
    assert "even if deleted" not in q["06.a"].why                  # 06.c: a deleted pod below the partition
    assert "waits" not in q["05.a"].why                            # 05.b: the update waits for the replacement
    assert "condemned" not in q["03.a"].why and "delete" not in q["03.a"].why  # 03.b: the blocked scale-down
    from stsedu.widgets.panels import POLICY_NOTE
    assert "adopt" not in POLICY_NOTE                             # 04.a/08.a: what happens to the orphans


@pytest.mark.parametrize("qid,answer,says", [
    ("06.c", ["nginx:1"], "a list, not a name"),
    ("09.a", "4", "a whole number"),
    ("03.a", "wait web-2", "a pair (action, pod)"),
    ("03.a", ("hold", "web-2"), "the action is one of create, delete, update, wait"),
    ("05.a", "web-4", "a list"),
])
def test_an_answer_of_the_wrong_form_is_not_called_wrong(qid, answer, says):
    text = labs.reveal(qid, answer).text
    assert "Wrong form, not a wrong answer" in text and says in text
    assert "✗" not in text and "✓" not in text and labs.question(qid).why not in text


def test_a_pod_that_is_not_in_the_set_is_named_as_such():
    text = labs.reveal("03.a", ("wait", "web-7")).text
    assert "✗" in text and "there is no web-7 in this set" in text
    assert "there is no" not in labs.reveal("03.a", ("create", "web-3")).text
    assert "there is no web-9" in labs.reveal("05.a", ["web-4", "web-9"]).text


def test_questions_come_in_order_in_every_notebook():
    import re
    from pathlib import Path
    for src in sorted(Path(__file__).parents[2].joinpath("tools", "notebooks").glob("*.py")):
        ids = re.findall(r'reveal\("(\d\d)\.([a-z])"', src.read_text())
        letters = [b for _a, b in ids]
        assert letters == sorted(letters), (src.name, ids)


# --------------------------------------------------- words checked against the run they describe


def _cells(nb: str) -> list[str]:
    from pathlib import Path
    src = (Path(__file__).parents[2] / "tools" / "notebooks" / nb).read_text()
    return src.split("# %%")


def _run_cells_until(nb: str, marker: str) -> dict:
    """Run the code cells of notebook source *nb* up to and including the first that contains *marker*."""
    import contextlib
    import io
    ns: dict = {}
    for cell in _cells(nb):
        if cell.startswith(" [markdown]"):
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(cell, nb, "exec"), ns)  # noqa: S102 - the notebook's own code
        if marker in cell:
            return ns
    raise AssertionError(f"no cell with {marker!r} in {nb}")


def test_05_before_the_next_sync_there_is_one_revision_and_every_pod_carries_it():
    """05's second cell says: one revision so far, every pod carries its hash, the new one comes at the next sync."""
    ns = _run_cells_until("05-Rolling-Updates.py", "get_controllerrevisions_text")
    c = ns["cluster"]
    revs = c.revisions("web")
    assert len(revs) == 1 and {p.revision for p in c.pods("web")} == {revs[0].name}
    c.sync("web")
    assert len(c.revisions("web")) == 2


def test_11_the_stuck_rollout_cell_lets_two_minutes_pass():
    ns = _run_cells_until("11-When-Things-Break.py", "t2 = cluster.now")
    assert ns["cluster"].now - ns["t2"] == 120
    q = labs.question("11.c")
    c = q.setup()
    t = c.now
    q.act(c)
    assert c.now - t == 120  # "wait two minutes": the clock, and so the chart, reach the end of them


def test_partitioned_roll_out_complete_with_no_partition_is_what_kubectl_prints():
    """kubectl's StatefulSetStatusViewer takes the partition branch whenever rollingUpdate is set, and the
    API server defaults rollingUpdate.partition to 0: 05's note explains the word."""
    ns = _run_cells_until("05-Rolling-Updates.py", "rollout_status")
    assert ns["cluster"].statefulset("web").spec.raw["updateStrategy"]["rollingUpdate"]["partition"] == 0
    assert "partitioned roll out complete" in ns["cluster"].rollout_status("web")
    assert any("partitioned" in cell and "default" in cell for cell in _cells("05-Rolling-Updates.py"))


# ------------------------------------------------------------------------------ labs at real sizes


WITH_REPLICAS = [labs.IdentityLab, labs.StorageLab, labs.ScalingLab, labs.PolicyLab, labs.ProfileLab, labs.StepLab]


@pytest.mark.parametrize("cls", WITH_REPLICAS, ids=lambda c: c.__name__)
def test_a_labs_replicas_control_reaches_50_and_a_typed_value_out_of_range_is_answered(cls):
    lab = cls()
    w = lab.w_replicas
    assert w.max >= 50
    before = lab.cluster.statefulset("web").generation
    w.stsedu_box.value = 80
    assert "goes up to 50 and you typed 80" in lab.did_area.value
    w.stsedu_box.value = -1
    assert "spec.replicas" in lab.did_area.value and "Nothing was changed" in lab.did_area.value
    assert lab.cluster.statefulset("web").generation == before
    assert w.value == w.stsedu_box.value == lab.cluster.statefulset("web").spec.replicas
    if cls is labs.StepLab:
        return
    w.stsedu_box.value = 50
    assert lab.cluster.statefulset("web").spec.replicas == 50 and w.value == 50
    _true(lab)


def test_the_playground_goes_to_500_replicas_and_answers_a_typed_value_out_of_range():
    from stsedu.widgets import Playground
    pg = Playground(settle=True)
    assert pg.replicas.max >= 500
    pg.replicas_box.value = 600
    assert "goes up to 500 and you typed 600" in pg.error.value
    assert pg.cluster.statefulset("web").spec.replicas == 3 == pg.replicas.value == pg.replicas_box.value
    pg.replicas_box.value = -2
    assert "spec.replicas" in pg.error.value and pg.replicas_box.value == 3
    pg.replicas_box.value = 7
    assert pg.cluster.statefulset("web").spec.replicas == 7 == pg.replicas.value


def test_a_long_lab_run_goes_in_the_background_with_progress_and_stops_when_asked(monkeypatch):
    import asyncio

    from stsedu.widgets import playground
    lab = labs.UpdateLab(examples.web(30))

    async def go():
        monkeypatch.setattr(playground, "kernel_loop", lambda: asyncio.get_running_loop())
        lab.w_image.value = "nginx:2"
        assert "running" in lab.did_area.value and lab._task is not None
        for _ in range(40):
            await asyncio.sleep(0)
        assert lab._running and lab.progress_row.layout.display is None
        lab.w_strategy.value = "OnDelete"  # one change at a time: refused, and the toggle snaps back
        assert "still running" in lab.did_area.value and lab.w_strategy.value == "RollingUpdate"
        lab.stop()
        await lab._task
    asyncio.run(go())
    assert not lab._running and lab.progress_row.layout.display == "none"
    line = lab.did_area.value
    assert "not stable" in line and "you pressed Stop" in line
    assert any(p.images()[0] == "nginx:1" for p in lab.cluster.pods("web"))
    _true(lab)


def test_every_control_of_the_loop_lab_leaves_a_true_screen():
    """04's LoopLab: its status line says both sets are stable only when they are; its chart has rows."""
    from stsedu.widgets import LoopLab
    from stsedu.widgets.settled import unsettled
    lab = LoopLab()
    for what, move in [("delay", lambda: lab.set_delay(1.0)), ("error", lambda: lab.set_api_error(True)),
                       ("workers", lambda: lab.set_workers(2)), ("first step", lambda: setattr(lab.start, "value", 10))]:
        move()
        left = {n: unsettled(lab.cluster, n) for n in ("web", "db")}
        says_stable = "both sets stable" in lab.did_area.value
        assert says_stable == (not any(left.values())), (what, lab.did_area.value, left)
        assert sum(len(v) for v in lab.chart.spec["datasets"].values()) > 0, what
        assert "a-create" in lab.decisions.value, what


def test_the_playground_timeline_shows_a_pod_that_changed_at_this_instant():
    """A sync that creates web-3, or a kubelet button that starts web-0, changes a pod at the clock's now:
    the timeline still draws it, in the state it is in (a stub past now), not the state before."""
    from stsedu.widgets import Playground
    pg = Playground(settle=True)
    pg.set_replicas(4)
    pg.sync_once()
    assert _playground_problems(pg) == []
    manual = Playground(kubelet="manual")
    for step in (manual.sync_once, lambda: manual.start_pod("web-0"), lambda: manual.ready_pod("web-0"),
                 manual.sync_once):
        step()
        assert _playground_problems(manual) == []


def test_a_500_replica_playground_shows_at_once_and_comes_up_in_the_background_with_progress_and_stop(
        monkeypatch):
    """Playground(replicas=500, settle=True) under a kernel: the panel is built before any sync runs (it
    took ~40 s to appear), then the set comes up in the background: the progress bar moves, Stop ends it
    and says so, and what the panel shows is true of the cluster it stopped in."""
    import asyncio

    from stsedu.widgets import Playground, playground

    async def go():
        monkeypatch.setattr(playground, "kernel_loop", lambda: asyncio.get_running_loop())
        pg = Playground(replicas=500, settle=True)
        assert len(pg.cluster.trace) == 0 and pg._task is not None
        assert "Bringing the set up: 500 pods" in pg.info.value and "Stop" in pg.info.value
        for _ in range(200):
            await asyncio.sleep(0)
        assert pg._running and not pg.stop_button.disabled and pg.progress.max == 500
        assert "syncs · t=" in pg.progress_label.value
        pg.stop_button.click()
        await pg._task
        return pg
    pg = asyncio.run(go())
    assert not pg._running and "Stopped after" in pg.info.value
    assert 0 < len(pg.cluster.pods("web")) < 500
    assert _playground_problems(pg) == []


def test_a_small_playground_or_one_without_a_kernel_settles_before_it_shows():
    from stsedu.widgets import Playground
    pg = Playground(replicas=60, settle=True)  # no kernel here: runs to the end at once, as before
    assert pg._task is None and len(pg.cluster.pods("web")) == 60 and all(p.ready for p in pg.cluster.pods("web"))


# ------------------------------------- item 2: every notebook's counts, times and revisions, checked


def _prose(nb: str) -> str:
    """The markdown of notebook source *nb*, as one text (comment marks removed, lines joined)."""
    import re
    return " ".join(re.sub(r"^# ?", "", line) for cell in _cells(nb) if cell.startswith(" [markdown]")
                    for line in cell.splitlines()[1:])


def test_00_the_pods_came_up_as_many_seconds_apart_as_the_prose_says():
    import re
    ns = _run_cells_until("00-Index.py", 'decisions.action == "create"')
    d = ns["decisions"]
    creates = d[d.action == "create"]
    assert creates["pod"].tolist() == ["web-0", "web-1", "web-2"]
    gaps = set(creates["time"].diff().dropna())
    said = {float(n) for n in re.findall(r"(\d+) seconds (?:later|after|apart|here)", _prose("00-Index.py"))}
    assert said and gaps == said, (gaps, said)
    assert creates["time"].iloc[0] == 0  # "web-0 at once"


def test_06_before_the_partition_is_lowered_every_pod_has_the_first_revision():
    ns = _run_cells_until("06-Partitions-And-Canaries.py", "label_columns")
    c = ns["cluster"]
    assert "four pods, with partition 4" in _prose("06-Partitions-And-Canaries.py")
    sts = c.statefulset("web")
    assert sts.spec.replicas == 4 and sts.spec.rolling_update.partition == 4
    first = min(c.revisions("web"), key=lambda r: r.revision)
    assert {p.revision for p in c.pods("web")} == {first.name} and len(c.revisions("web")) == 2


def test_09_the_watch_shows_all_four_pods_pending_before_any_runs():
    import contextlib
    import io
    ns = _run_cells_until("09-Parallel-Pod-Management.py", "first_running")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print("\n".join(ns["lines"][:ns["first_running"] + 1]))
    shown = out.getvalue().splitlines()
    pending = {line.split()[0] for line in shown if " Pending " in line}
    assert "all four pods are Pending before any of them runs" in " ".join(_prose("09-Parallel-Pod-Management.py").split())
    assert pending == {"web-0", "web-1", "web-2", "web-3"} and " Running " in shown[-1]


@pytest.mark.parametrize("cls", LABS, ids=lambda c: c.__name__)
def test_a_lab_first_view_at_50_replicas_is_true(cls):
    """Built on a 50-replica set, every lab's controls show 50 (StepLab's replicas slider said 3), its
    status line and its chart are true (found by the browser walk, tests/e2e/test_lab_walk_browser.py)."""
    m = cls.default_manifest(object.__new__(cls))
    m["spec"]["replicas"] = 50
    lab = cls(m)
    _true(lab)
    if getattr(lab, "w_replicas", None) is not None:
        assert lab.w_replicas.value == lab.w_replicas.stsedu_box.value == 50


def test_04_neither_set_waits_for_the_other_and_the_second_failed_sync_ran_at_once():
    """04 said "both were Ready at the same time" (db was Ready at 6 s, web at 9 s); it now prints when
    each was, beside web alone: web is Ready when it would be alone.  And "the 2nd sync ran at once,
    not 5 ms later": the failed syncs 1 and 2 at the same time, the 3rd 5 ms on."""
    ns = _run_cells_until("04-From-An-Event-To-A-Sync.py", "alone.run()")
    ready_at, cluster, alone = ns["ready_at"], ns["cluster"], ns["alone"]
    assert ready_at(cluster, "web") == ready_at(alone, "web")
    assert "both were Ready at the same time" not in _prose("04-From-An-Event-To-A-Sync.py")
    ns = _run_cells_until("04-From-An-Event-To-A-Sync.py", 'inject_error("create", "Pod", count=3)')
    syncs = ns["broken"].trace.syncs()
    t = syncs["time"].tolist()
    assert "the 2nd sync ran at once, not 5 ms later" in " ".join(_prose("04-From-An-Event-To-A-Sync.py").split())
    assert t[1] == t[0] and abs(t[2] - t[1] - 0.005) < 1e-9 and syncs["error"].notna().tolist()[:3] == [True] * 3


def test_11_the_crash_loop_cells_last_the_minutes_they_say_and_the_back_offs_double_from_10_s():
    prose = " ".join(_prose("11-When-Things-Break.py").split())
    assert "Five simulated minutes" in prose and "give it two simulated minutes" in prose
    assert "back-off delay of 10 s, doubling (20 s, 40 s, ...)" in prose
    ns = _run_cells_until("11-When-Things-Break.py", 'restarts = mine[')
    crash, t0 = ns["crash"], ns["t0"]
    assert crash.now - t0 == 300
    gaps = [r - e for e, r in zip(ns["exits"], ns["restarts"])]
    assert gaps[:4] == [10, 20, 40, 80] and all(g <= 300 for g in gaps)
    ns = _run_cells_until("11-When-Things-Break.py", "t1 = crash.now")
    crash, t0, t1 = ns["crash"], ns["t0"], ns["t1"]
    assert crash.now - t1 == 120
    d = crash.trace.decisions()
    mine = d[(d.pod == "web-1") & (d.time > t0) & (d.time <= t1)]
    assert set(mine["action"]) == {"wait"}  # "only waits"
    assert "web-3" not in {p.name for p in crash.pods("web")}  # "whatever comes after web-1 waits too"
    assert crash.pod("web-1").phase == "Running"  # "never Failed, never deleted"


def test_05_the_watch_shows_each_pod_terminating_then_back_ready_at_the_new_hash_highest_first():
    """05 printed the last 12 lines, in which only web-0 went Terminating; it now prints the rollout."""
    ns = _run_cells_until("05-Rolling-Updates.py", "revision=True)")
    lines, c = ns["lines"][ns["start"]:], ns["cluster"]
    new, pods = c.statefulset("web").status.update_revision, [p.name for p in c.pods("web")]
    order = []
    for pod in pods:
        mine = [line.split() for line in lines if line.split()[0] == pod]
        states = [(f[1], f[2], f[-1]) for f in mine]
        first_term = next(i for i, s in enumerate(states) if s[1] == "Terminating")
        assert states[first_term][2] != new, (pod, states)
        assert ("1/1", "Running", new) in states[first_term:] and states[-1] == ("1/1", "Running", new), (pod, states)
        order.append(lines.index(next(line for line in lines if line.startswith(pod + " "))))
    assert [pods[i] for i in sorted(range(len(pods)), key=lambda i: order[i])] == sorted(pods, reverse=True)


def test_15_the_failed_pod_row_and_the_max_unavailable_divergence_are_what_the_prose_says():
    prose = " ".join(_prose("15-Then-And-Now-v1.16.py").split())
    assert "v1.16 still showed **3 ready** (`3/3/–/3/3`)" in prose
    ns = _run_cells_until("15-Then-And-Now-v1.16.py", 'query("sync >= @n")')
    rows = ns["cmp"].table().query(f"sync >= {ns['n']}")
    failed = rows[rows["v1.16 error"].fillna("") != ""]
    assert len(failed) >= 1 and set(failed["v1.16 status"]) == {"3/3/–/3/3"}
    assert all(s.split("/")[1] == "2" for s in failed["current status"])  # today: the Failed pod is not ready
    assert "Today two old pods go at once" in prose
    ns = _run_cells_until("15-Then-And-Now-v1.16.py", 'maxUnavailable": 2}}')
    text = str(ns["cmp"].first_divergence)
    current, v116 = text.split("current:", 1)[1].split("v1.16:", 1)
    assert current.count("(update)") == 2 and v116.count("(update)") == 1, text


def test_02_the_first_sync_creates_the_claim_then_the_pod_and_scaled_down_claims_are_kept():
    """02: "The first sync creates the claim, then the pod"; scaled to 1 and back to 3, web-1 and web-2
    come back (created twice) on the claims made the first time (each claim created once)."""
    ns = _run_cells_until("02-Storage.py", 'decisions_frame(cluster.sync("web"))')
    d = ns["cluster"].trace.decisions()
    first = d[(d["sync"] == 1) & d["action"].isin(["create-pvc", "create"])]
    assert list(zip(first["action"], first["pod"])) == [("create-pvc", "web-0"), ("create", "web-0")]
    ns = _run_cells_until("02-Storage.py", "get_pvc_text")
    d = ns["cluster"].trace.decisions()
    claims = d[d["action"] == "create-pvc"]["target"].tolist()
    pods = d[d["action"] == "create"]["pod"].tolist()
    assert sorted(claims) == ["www-web-0", "www-web-1", "www-web-2"]
    assert pods.count("web-1") == pods.count("web-2") == 2 and pods.count("web-0") == 1
    assert ns["cluster"].statefulset("web").spec.replicas == 3


def test_12_the_revision_numbers_the_prose_states_are_those_of_its_run():
    """12 says: three images make revisions 1, 2, 3; ``--to-revision=1`` reuses revision 1 and numbers it 4
    (no copy); ``truncateHistory`` keeps at most ``revisionHistoryLimit`` (default 10) of those no pod runs and
    never the current or the update revision (upstream: getStatefulSetRevisions' reuse, nextRevision,
    truncateHistory)."""
    prose = " ".join(_prose("12-History-And-Rollback.py").split())
    assert "`nginx:1`, `nginx:2`, `nginx:3`" in prose and "(revisions 1, 2, 3)" in prose
    ns = _run_cells_until("12-History-And-Rollback.py", "get_controllerrevisions_text")
    c = ns["cluster"]
    by_number = {r.revision: r for r in c.revisions("web")}
    assert sorted(by_number) == [1, 2, 3]
    assert c.statefulset("web").spec.revision_history_limit == 10 and "(default 10)" in prose
    first = by_number[1].name
    ns = _run_cells_until("12-History-And-Rollback.py", "to_revision=1")
    c = ns["cluster"]
    by_number = {r.revision: r for r in c.revisions("web")}
    assert sorted(by_number) == [2, 3, 4] and by_number[4].name == first  # reused, given the next number
    assert "reuses the old revision and gives it the next number: no copy is made" in prose
    ns = _run_cells_until("12-History-And-Rollback.py", "\"revisionHistoryLimit\": 1")
    c = ns["cluster"]
    sts = c.statefulset("web")
    kept = {r.name for r in c.revisions("web")}
    running = {p.revision for p in c.pods("web")}
    assert "With the limit at 1 on the first cluster" in prose and sts.spec.revision_history_limit == 1
    assert {sts.status.current_revision, sts.status.update_revision} | running <= kept
    assert len(kept - running - {sts.status.current_revision, sts.status.update_revision}) <= 1
    assert any(d.action.endswith("revision") for r in ns["syncs"] for d in r.decisions)  # something was trimmed


def _outputs(nb: str) -> list[str]:
    """The text each code cell of the built notebook *nb* printed (nbval checks it is what a run prints)."""
    import nbformat
    from pathlib import Path
    book = nbformat.read(Path(__file__).parents[2] / "notebooks" / nb, 4)
    return ["".join(o.get("text", "") if o.output_type == "stream" else str(o.get("data", {}).get("text/plain", ""))
                    for o in cell.outputs) for cell in book.cells if cell.cell_type == "code"]


def _watch(text: str) -> list[tuple[str, str, str]]:
    """(pod, READY, STATUS) of each ``web-N`` line of a ``get pods`` or ``-w`` output."""
    import re
    return [tuple(m) for m in re.findall(r"^(web-\d+)\s+(\d/\d)\s+(\S+)", text, flags=re.M)]


def test_16_the_counts_and_names_the_prose_states_are_those_its_outputs_show():
    """16's sentences against the outputs of its run: two replicas up one at a time; the claims www-web-0
    and www-web-1; five replicas then three, highest ordinal first, the claims kept; web-2 back at the old
    image under partition 3 and updated at partition 2; the orphan path re-creating web-0 and removing web-2."""
    prose = " ".join(_prose("16-StatefulSet-Basics-With-kubectl.py").split())
    out = _outputs("16-StatefulSet-Basics-With-kubectl.ipynb")
    create, _identity, storage, scale, roll, partition, _ondelete, orphan = out[:8]
    assert "a StatefulSet `web` with two replicas" in prose and "each Running and Ready before the next" in prose
    lines = _watch(create)
    assert {p for p, *_ in lines} == {"web-0", "web-1"}
    first_web1 = next(i for i, (p, *_) in enumerate(lines) if p == "web-1")
    assert ("web-0", "1/1", "Running") in lines[:first_web1]
    assert "`www-web-0` and `www-web-1`" in prose
    assert [w for w in storage.split() if w.startswith("www-")] == ["www-web-0", "www-web-1"]
    assert "Scale to five replicas" in prose and "scale down to three" in prose
    assert {p for p, *_ in _watch(scale)} == {f"web-{i}" for i in range(5)}
    import re
    explained = scale.split("statefulset.apps/web patched", 1)[1]  # --explain's decisions of the scale-down
    assert re.findall(r"\bdelete\s+(web-\d+)", explained) == ["web-4", "web-3"]  # the highest ordinals go first
    assert "their claims stay" in prose
    claims_later = [w for w in out[8].split() if w.startswith("www-")]
    assert claims_later == [f"www-web-{i}" for i in range(5)]
    assert "one at a time" in prose and [p for p, _r, s in _watch(roll) if s == "Terminating"][::2] == \
        ["web-2", "web-1", "web-0"]
    assert "With `partition: 3` nothing changes" in prose and "Lowering the partition to 2 updates `web-2` only" in prose
    images = [w for w in partition.split() if w.startswith("registry.k8s.io/")]
    assert images == ["registry.k8s.io/nginx-slim:0.24", "registry.k8s.io/nginx-slim:0.21"]
    assert "re-creates the missing `web-0` and removes `web-2`" in prose
    after_apply = orphan.split("statefulset.apps/web created", 1)[1]
    states = _watch(after_apply)
    assert ("web-0", "0/1", "Pending") in states and ("web-2", "1/1", "Terminating") in states
    assert not any(p == "web-2" and s == "Pending" for p, _r, s in states)
    # every pod the watch shows replaced (terminated, then created again) is named in the prose
    replaced = {p for p, _r, s in states if s == "Terminating"} & {p for p, _r, s in states if s == "Pending"}
    assert replaced == {"web-1"}, replaced
    assert "It also replaces `web-1`" in prose and "`nginx-slim:0.24`" in prose


def test_17_what_the_prose_says_of_the_run_holds_for_the_stored_real_run():
    """17's sentences against the run it shows (recorded on a real control plane, shipped with the kit; the
    live suite checks a fresh run the same way): three web pods, one at a time, each after the one before is
    Running and Ready, every stable point agreeing; the version it names and the histories the live suite runs."""
    import re
    from pathlib import Path

    from stsedu.live import build, lesson
    from surface_checks import lesson17_problems
    prose = " ".join(_prose("17-The-Same-Lesson-On-A-Real-Control-Plane.py").split())
    assert "three `web` pods created one at a time" in prose and "once `web-0` is Running and Ready" in prose
    assert lesson17_problems(lesson.stored("first-statefulset")) == []
    assert f"Kubernetes {build.KUBERNETES_VERSION} Go modules" in prose
    live_suite = (Path(__file__).parents[1] / "live" / "test_live.py").read_text()
    default = re.search(r'STSEDU_LIVE_HISTORIES", "(\d+)"', live_suite).group(1)
    assert default == "50" and "every shipped scenario and fifty random histories" in prose


# ------------------------------------------ issue #41: every line the learner reads, true at any size


def _text(html):
    import re
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


@pytest.mark.parametrize("replicas", [3, 50])
def test_on_delete_stable_says_how_many_pods_wait_for_a_delete_and_which(replicas):
    """UpdateLab and OnDeleteLab under OnDelete with a new image said "2 syncs, stable" with every pod on the
    old revision (upstream: updateStatefulSet returns early for OnDelete): the line says what is left."""
    lab = labs.UpdateLab(examples.web(replicas))
    lab.w_strategy.value = "OnDelete"
    lab.w_image.value = "nginx:3"
    line = _text(lab.did_area.value)
    assert f"{replicas} pods wait for you to delete them" in line and "web-0" in line, line
    _true(lab)
    od = labs.OnDeleteLab(examples.web(replicas, updateStrategy={"type": "OnDelete"}))
    od.w_image.value = "nginx:2"
    assert f"{replicas} pods wait" in _text(od.did_area.value)
    od.delete_pod("web-0")
    line = _text(od.did_area.value)
    assert f"{replicas - 1} pod{'s' * (replicas != 2)} wait" in line and "web-1" in line, line
    _true(od)


def test_the_playground_says_what_is_left_under_on_delete_after_a_run_and_in_its_progress_line():
    from stsedu.widgets import Playground
    from surface_checks import on_delete_problems
    pg = Playground(replicas=5, settle=True)
    pg.set_strategy("OnDelete")
    pg.set_image("nginx:2")
    pg.run_until_stable()
    assert on_delete_problems(_text(pg.info.value), pg.cluster) == [], pg.info.value
    assert on_delete_problems(_text(pg.progress_label.value), pg.cluster) == [], pg.progress_label.value
    assert "Ready at their revision" not in pg.progress_label.value


def test_the_playground_progress_line_is_of_the_cluster_shown_after_a_kubelet_mode_switch():
    """After switching the kubelet to manual (a fresh cluster, clock at 0, no pods) the progress line said
    "20 syncs · t=70s · 5/5 Ready at their revision" in full green."""
    from stsedu.widgets import Playground
    pg = Playground(replicas=5, settle=True)
    pg.run_until_stable()
    pg.set_kubelet_mode("manual")
    label = _text(pg.progress_label.value)
    assert pg.cluster.now == 0 and len(pg.cluster.pods("web")) == 0
    assert "t=0s" in label and "0/5" in label, label
    assert pg.progress.value == 0 and pg.progress.bar_style != "success"


def test_the_playground_info_line_says_a_run_is_going_on_while_it_runs(monkeypatch):
    """During a long run the info line kept saying "Click Sync once to see what the controller decides"."""
    import asyncio

    from stsedu.widgets import Playground, playground
    pg = Playground(replicas=3, settle=True)

    async def go():
        monkeypatch.setattr(playground, "kernel_loop", lambda: asyncio.get_running_loop())
        pg.set_replicas(60)
        assert "Sync once" in pg.info.value  # after a scale, the hint is right
        pg.run_button.click()
        for _ in range(30):
            await asyncio.sleep(0)
        assert pg._running
        info = _text(pg.info.value)
        assert "Sync once" not in info and "Running" in info and "Stop" in info, info
        pg.stop_button.click()
        await pg._task
    asyncio.run(go())


def test_fault_lab_after_putting_the_image_back_names_the_revision_the_spec_wants():
    """After nginx:broken then nginx:1 again, web-2 runs the broken revision and the spec wants nginx:1:
    the line said "web-2 still at the old revision"."""
    lab = labs.FaultLab()
    lab.set_image(labs.BROKEN_IMAGE)
    lab.set_image("nginx:1")
    line = _text(lab.did_area.value)
    assert "old revision" not in line and "web-2" in line and "(nginx:1)" in line, line
    _true(lab)


def test_fault_lab_at_50_deletes_the_pod_the_rollout_is_stuck_on():
    """FaultLab(web(50)): the rollout sticks at web-49 (highest ordinal first); its delete button deleted web-2,
    a healthy pod."""
    import ipywidgets as W

    from surface_checks import leaves
    lab = labs.FaultLab(examples.web(50))
    lab.set_image(labs.BROKEN_IMAGE)
    stuck = [p.name for p in lab.cluster.pods("web") if not p.ready]
    assert stuck == ["web-49"]
    button = next(w for w in leaves(lab.controls) if isinstance(w, W.Button) and w.description.startswith("Delete"))
    assert button.description == "Delete web-49"
    before = lab.cluster.pod("web-2").uid
    button.click()
    assert lab.cluster.pod("web-2").uid == before
    assert "kubectl delete pod web-49" in lab.did_area.value


def test_on_delete_lab_at_50_offers_every_pod_of_the_set():
    lab = labs.OnDeleteLab(examples.web(50, updateStrategy={"type": "OnDelete"}))
    assert list(lab.w_pod.options) == [f"web-{i}" for i in range(50)]
    lab.w_image.value = "nginx:2"
    lab.w_pod.value = "web-49"
    lab.b_delete.click()
    assert list(lab.cluster.pod("web-49").images()) == ["nginx:2"]
    assert "kubectl delete pod web-49" in lab.did_area.value
    _true(lab)


def test_history_lab_undo_with_no_earlier_revision_is_kubectls_client_side_error():
    """kubectl rollout undo prints "error: no last revision to roll back to": no "is invalid" (that is the
    API server's 422 form, and no request was sent)."""
    lab = labs.HistoryLab()
    lab.undo()
    line = _text(lab.did_area.value)
    assert "is invalid" not in line and "error: no last revision to roll back to" in line, line
    assert "Nothing was changed" in line


def test_a_lab_event_is_not_something_you_ran():
    """"You ran web-0's readiness probe fails", "You ran the kubelet evicts web-1": only a command is run."""
    lab = labs.ScalingLab()
    lab.w_healthy.value = False
    line = _text(lab.did_area.value)
    assert "You ran" not in line and "web-0's readiness probe fails" in line, line
    fault = labs.FaultLab()
    fault.evict("web-1")
    assert "You ran the kubelet" not in _text(fault.did_area.value)
    lab.w_replicas.value = 2
    assert "You ran kubectl scale" in _text(lab.did_area.value)


def test_one_decision_is_one_decision():
    """A decisions table of one sync with one pod decision said "Sync 1: 1 decisions"."""
    from stsedu.cluster import Cluster
    from stsedu.views import tables
    c = Cluster(kubelet="manual")
    c.apply(examples.web(1))
    c.sync("web")
    frame = tables.decisions_frame(c.trace, pod_actions=True)
    assert len(frame) == 1 and set(frame["sync"]) == {1}, frame
    caption = tables.decisions_table(c.trace, pod_actions=True).caption
    assert caption.startswith("Sync 1: 1 decision ") and "1 decisions" not in caption, caption


def test_the_playground_undo_note_speaks_of_a_broken_rollout_only_after_one():
    from stsedu.widgets import Playground
    pg = Playground(replicas=3, settle=True)
    pg.set_image("nginx:2")
    pg.run_until_stable()
    pg.undo_rollout()
    assert "broken rollout" not in pg.info.value, pg.info.value
    broken = Playground(replicas=3, settle=True)
    broken.make_never_ready("nginx:3")
    broken.set_image("nginx:3")
    broken.run_until_stable()
    broken.undo_rollout()
    assert "broken rollout" in broken.info.value and "web-2" in broken.info.value, broken.info.value


def test_a_decision_answer_form_says_which_pod_a_wait_names():
    """03.b's form `("wait", "web-9")` did not say whether web-9 is the pod that waits or the one waited for;
    the simulator's wait names the pod waited for (web-1 in 03.b, the pod that is not Ready)."""
    import re
    from pathlib import Path
    with_wait = [q for q in labs.QUESTIONS.values() if q.kind == "decision" and '"wait"' in q.form]
    assert "03.b" in {q.id for q in with_wait} and all("the pod waited for" in q.form for q in with_wait)
    q = labs.question("03.b")
    assert q.act(q.setup()) == ("wait", "web-1")
    for src in sorted(Path(__file__).parents[2].joinpath("tools", "notebooks").glob("*.py")):
        for comment in re.findall(r'answer = None  # (a pair \(action, pod\).*)', src.read_text()):
            if '"wait"' in comment:
                assert 'means "waits for web-9"' in comment, (src.name, comment)


def test_no_cell_after_a_reveal_points_at_the_message_above():
    """03 cell 5 said "The message above" of the first sync's message, with the reveal's output between."""
    from pathlib import Path
    for src in sorted(Path(__file__).parents[2].joinpath("tools", "notebooks").glob("*.py")):
        cells = src.read_text().split("# %%")
        for before, cell in zip(cells, cells[1:]):
            if "reveal(" in before and cell.startswith(" [markdown]"):
                assert "message above" not in cell.lower() and "output above" not in cell.lower(), (src.name, cell[:120])


def test_every_stored_output_renders_offline():
    """Notebook 17's stored charts loaded Vega from a CDN ("Error loading script" offline), the only ones in the
    series that did; the README promises charts with no network.  No stored output other than plain text
    (what a command printed) may name a network address: no script source, no module import from the web."""
    import re
    from pathlib import Path

    import nbformat
    found = []
    for path in sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb")):
        book = nbformat.read(path, 4)
        for i, cell in enumerate(book.cells):
            for out in cell.get("outputs", []):
                for mime, value in (out.get("data") or {}).items():
                    if mime == "text/plain":
                        continue
                    text = value if isinstance(value, str) else str(value)
                    # a schema URL is a name inside a chart spec, never fetched to draw it
                    text = re.sub(r"https://vega\.github\.io/schema/[^\"'\s]*", "", text)
                    for url in re.findall(r"https?://[^\s\"'<>)]+", text):
                        found.append((path.name, i, mime, url))
    assert found == [], found[:10]


def test_17_tells_how_to_run_stsedu_from_a_cell_with_this_kernels_python():
    """`!stsedu live status` failed with "command not found" in a JupyterLab started as `.venv/bin/jupyter`
    (no activated venv: the venv's bin is not on PATH); `{sys.executable} -m stsedu` is this kernel's Python."""
    import re
    src = "".join(_cells("17-The-Same-Lesson-On-A-Real-Control-Plane.py"))
    assert "!{sys.executable} -m stsedu live status" in src
    assert not re.search(r"!stsedu\b", src.replace("a bare `!stsedu`", ""))


def test_00_shows_the_500_pod_timeline_in_ordinal_bands():
    """Issue #41 item 2: notebook 00 shows the aggregated view at 500 pods; the prose's words are its own."""
    ns = _run_cells_until("00-Index.py", "pod_timeline(big.trace")
    big = ns["big"]
    assert len(big.pods("web")) == 500 and all(p.ready for p in big.pods("web"))
    from stsedu import charts
    spec = charts.pod_timeline(big.trace, "web").to_dict()
    assert "aggregated: 500 ordinals in bands" in " ".join(spec["title"]["subtitle"])
    assert "draws *bands* of ordinals" in _prose("00-Index.py").replace("  ", " ")


def test_the_playground_progress_line_does_not_count_pods_at_the_new_revision_before_the_controller_saw_it():
    """After *Undo rollout* (or any template change) and before a sync, the progress line said "50/50 Ready at
    their revision" while the status read `updated 0`: the controller had not yet seen the new spec."""
    from stsedu.widgets import Playground
    pg = Playground(replicas=3, settle=True)
    pg.set_image("nginx:2")
    pg.run_until_stable()
    pg.undo_rollout()
    sts = pg.cluster.statefulset("web")
    assert sts.status.observed_generation < sts.generation
    label = _text(pg.progress_label.value)
    assert "Ready at the revision the spec asks for" not in label, label
    assert "not yet seen" in label and f"generation {sts.generation}" in label, label
    pg.run_until_stable()
    assert "3/3 pods Ready at the revision the spec asks for" in _text(pg.progress_label.value)
