"""The Playground and SyncStepper widgets, driven without a browser or a kernel.

Widgets are driven the way a learner would (set ``.value``, ``.click()``) and
through the handler methods directly, because ``Button.click()`` swallows
exceptions without a kernel.  Assertions are on the cluster and on what the
views show.
"""

from __future__ import annotations

import asyncio
import re
import threading

import ipywidgets as W
import pytest

import stsedu
from stsedu import widgets as sw
from helpers import web

BAD = "registry.k8s.io/nginx-slim:0.25"


def pod_names_in(html: str) -> set[str]:
    return set(re.findall(r"\bweb-\d+\b", html))


def decisions_html(pg) -> str:
    return next(v for v in pg.views if isinstance(v, sw.DecisionsView)).table.value


def view(pg, cls):
    return next(v for v in pg.views if isinstance(v, cls))


def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def run_coroutine(fn):
    """``asyncio.run(fn())`` in a fresh thread, immune to an event loop left running in this one."""
    out: dict = {}

    def target():
        try:
            out["value"] = asyncio.run(fn())
        except BaseException as e:  # noqa: BLE001 - re-raised below
            out["error"] = e
    t = threading.Thread(target=target)
    t.start()
    t.join(120)
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def pg():
    """A Playground whose set has settled at 3 Ready pods (auto kubelet, seed 0)."""
    return sw.Playground(settle=True)


# ------------------------------------------------------------------ construction

def test_default_manifest_is_the_concept_page_web_example_without_min_ready_seconds():
    """The default set is web/nginx with 3 replicas and minReadySeconds 0; the Service comes too."""
    pg = sw.Playground()
    sts = pg.cluster.statefulset("web")
    assert (pg.name, sts.spec.replicas, sts.spec.min_ready_seconds) == ("web", 3, 0)
    assert sts.spec.volume_claim_templates  # the concept page's www claim template is kept
    assert pg.cluster.service("nginx").headless
    assert pg.cluster.pods("web") == [] and pg.last_result is None
    assert (pg.replicas.value, pg.partition.value, pg.policy.value, pg.strategy.value) == \
        (3, 0, "OrderedReady", "RollingUpdate")
    assert pg.image.value == "registry.k8s.io/nginx-slim:0.24"


def test_manifest_and_cluster_options_are_passed_through():
    """A dict manifest and Cluster options (kubelet, profile, stages) reach the owned cluster."""
    pg = sw.Playground(web(replicas=2, name="db"), kubelet="manual", profile="v1.36",
                       stages={"start": 3})
    assert pg.name == "db" and pg.cluster.statefulset("db").spec.replicas == 2
    assert pg.cluster.kubelet.mode == "manual" and pg.cluster.profile.name == "v1.36"
    assert pg.cluster.kubelet.stages.start == 3
    assert pg.kubelet_mode.value == "manual"


def test_invalid_manifest_raises_validation_error():
    with pytest.raises(stsedu.ValidationError, match="spec.replicas"):
        sw.Playground(web(replicas=-1))


def test_unknown_control_action_or_view_names_raise():
    with pytest.raises(ValueError, match="unknown controls"):
        sw.Playground(controls=["replicaz"])
    with pytest.raises(ValueError, match="unknown view"):
        sw.Playground(views=["nope"])
    assert [v.title for v in sw.Playground(views=["charts"]).views] == \
        ["Pod timeline", "Revisions", "Decisions per sync"]


def test_bare_playground_displays_as_its_widget():
    """``Playground()`` as a cell's last expression shows the root VBox."""
    pg = sw.Playground()
    bundle = pg._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == pg.widget.model_id
    assert isinstance(pg.widget, W.VBox)


# ------------------------------------------------------------ spec controls

def test_replicas_slider_scales_and_sync_button_shows_the_new_decisions(pg):
    """Move the slider from 3 to 5, click Sync once: OrderedReady creates only web-3."""
    pg.replicas.value = 5
    assert pg.cluster.statefulset("web").spec.replicas == 5
    pg.sync_button.click()
    assert pg.last_result.actions[0] == ("create", "web-3", "missing")
    assert ("create", "web-4", "missing") not in pg.last_result.actions
    table = decisions_html(pg)
    assert "web-3" in pod_names_in(table) and "web-4" not in pod_names_in(table)
    assert "processReplica: create missing pod" in table
    assert "web-3" in view(pg, sw.PodsView).table.value


def test_scale_down_deletes_highest_ordinal_first(pg):
    pg.replicas.value = 1
    r = pg.sync_once()
    assert r.actions == [("delete", "web-2", "scale-down")]
    assert "scale-down" in decisions_html(pg)


def test_invalid_max_unavailable_shows_the_api_error_and_changes_nothing(pg):
    """maxUnavailable 0: the field path and message show; the cluster and the text stay as they were."""
    before = pg.cluster.dump()
    pg.max_unavailable.value = "0"
    assert pg.cluster.dump() == before
    assert isinstance(pg.last_error, stsedu.ValidationError)
    assert pg.error.layout.display != "none"
    assert "spec.updateStrategy.rollingUpdate.maxUnavailable" in pg.error.value
    assert "cannot be 0" in pg.error.value
    assert pg.max_unavailable.value == "1"  # snapped back to the cluster's value
    pg.set_max_unavailable("50%")  # a valid value clears the error
    assert pg.error.layout.display == "none" and pg.last_error is None
    assert pg.cluster.statefulset("web").spec.rolling_update.max_unavailable == "50%"


def test_invalid_partition_shows_the_error_and_the_slider_snaps_back(pg):
    pg.set_partition(2)
    before = pg.cluster.dump()
    assert pg.set_partition(-1) is None
    assert pg.cluster.dump() == before
    assert "spec.updateStrategy.rollingUpdate.partition" in pg.error.value
    assert "must be greater than or equal to 0" in pg.error.value
    assert pg.partition.value == 2


def test_partition_slider_is_bounded_by_replicas_and_scaling_does_not_move_partition(pg):
    """The slider's max follows replicas but never cuts the stored partition."""
    assert pg.partition.max == 3
    pg.partition.value = 3
    pg.replicas.value = 1
    sts = pg.cluster.statefulset("web")
    assert sts.spec.partition == 3  # scaling down did not patch the partition
    assert pg.partition.value == 3 and pg.partition.max == 3
    pg.replicas.value = 6
    assert pg.partition.max == 6


def test_partition_holds_back_the_rollout(pg):
    """With partition 2 only ordinals >= 2 are updated (updateStatefulSet's partition rule)."""
    pg.partition.value = 2
    pg.image.value = "registry.k8s.io/nginx-slim:0.26"
    pg.run_until_stable()
    sts = pg.cluster.statefulset("web")
    new = sts.status.update_revision
    assert [p.revision == new for p in pg.cluster.pods("web")] == [False, False, True]


def test_min_ready_seconds_control(pg):
    pg.min_ready_seconds.value = 10
    assert pg.cluster.statefulset("web").spec.min_ready_seconds == 10
    before = pg.cluster.dump()
    pg.min_ready_seconds.value = -1
    assert pg.cluster.dump() == before
    assert "spec.minReadySeconds" in pg.error.value
    assert pg.min_ready_seconds.value == 10


def test_on_delete_strategy_removes_rolling_update_and_stops_automatic_updates(pg):
    pg.strategy.value = "OnDelete"
    sts = pg.cluster.statefulset("web")
    assert sts.spec.update_strategy == "OnDelete" and sts.spec.rolling_update is None
    assert pg.partition.disabled and pg.max_unavailable.disabled
    pg.set_image("registry.k8s.io/nginx-slim:0.26")
    r = pg.sync_once()
    assert not any(a[0] == "delete" for a in r.actions)
    pg.strategy.value = "RollingUpdate"
    assert pg.cluster.statefulset("web").spec.update_strategy == "RollingUpdate"
    assert not pg.partition.disabled


def test_policy_change_recreates_the_set_with_orphan_cascade_and_readopts_pods(pg):
    """podManagementPolicy is immutable: delete --cascade=orphan, re-create, adopt (ClaimPods)."""
    uids = {p.name: p.uid for p in pg.cluster.pods("web")}
    old_uid = pg.cluster.statefulset("web").uid
    pg.policy.value = "Parallel"
    sts = pg.cluster.statefulset("web")
    assert sts.spec.pod_management_policy == "Parallel" and sts.uid != old_uid
    assert "cascade=orphan" in pg.info.value and "immutable" in pg.info.value
    assert {p.name: p.uid for p in pg.cluster.pods()} == uids  # the pods kept running
    r = pg.sync_once()
    assert {d.pod for d in r.decisions if d.action == "adopt" and d.pod} == set(uids)
    pg.replicas.value = 5
    r = pg.sync_once()
    assert {a for a in r.actions if a[0] == "create"} == {("create", "web-3", "missing"),
                                                           ("create", "web-4", "missing")}


def test_image_change_starts_a_rollout_from_the_highest_ordinal(pg):
    pg.image.value = "registry.k8s.io/nginx-slim:0.26"
    assert pg.cluster.statefulset("web").spec.template["spec"]["containers"][0]["image"].endswith("0.26")
    r = pg.sync_once()
    assert ("delete", "web-2", "update") in r.actions
    assert any(d.action == "create-revision" for d in r.decisions)


def test_empty_image_is_rejected(pg):
    before = pg.cluster.dump()
    pg.image.value = ""
    assert pg.cluster.dump() == before
    assert "Required value" in pg.error.value
    assert pg.image.value == "registry.k8s.io/nginx-slim:0.24"


# ------------------------------------------------------------------- actions

def test_broken_rollout_undo_and_manual_pod_delete(pg):
    """The concept page's forced rollback: a never-Ready image stalls web-2; undo alone does not
    unstick OrderedReady; deleting web-2 does."""
    pg.never_ready_pick.value = BAD
    pg.never_ready_button.click()
    assert BAD in pg.never_ready_images
    pg.image.value = BAD
    pg.run_button.click()
    assert "stuck" in pg.info.value and "web-2" in pg.info.value
    assert pg.last_result.actions == [("wait", "web-2", "not-running-ready")]
    assert pg.progress.bar_style == "warning"
    old = pg.cluster.revisions("web")[0].name
    pg.undo_button.click()
    assert "rolled back" in pg.info.value
    pg.run_until_stable()
    assert pg.last_result.actions == [("wait", "web-2", "not-running-ready")]
    pg.pod_pick.value = "web-2"
    pg.delete_button.click()
    assert pg.cluster.pod("web-2").terminating
    pg.run_until_stable()
    assert "Stable after" in pg.info.value and pg.progress.bar_style == "success"
    assert all(p.ready and p.revision == old for p in pg.cluster.pods("web"))


def test_fail_a_picked_pod_then_sync_deletes_it(pg):
    pg.pod_pick.value = "web-1"
    pg.fail_button.click()
    assert pg.cluster.pod("web-1").phase == "Failed"
    r = pg.sync_once()
    assert ("delete", "web-1", "failed") in r.actions
    assert "web-1" in pod_names_in(decisions_html(pg))


def test_pod_actions_on_a_missing_pod_show_an_error():
    pg = sw.Playground()
    before = pg.cluster.dump()
    assert pg.fail_pod("web-7") is None
    assert pg.cluster.dump() == before
    assert "web-7" in pg.error.value


def test_manual_kubelet_pod_row_moves_pods():
    """Manual mode: Sync creates web-0; Start and Ready move it; the next sync creates web-1."""
    pg = sw.Playground(kubelet="manual")
    assert pg.sync_once().actions == [("create", "web-0", "missing")]
    assert pg.pod_pick.options == ("web-0",)
    pg.start_button.click()
    assert pg.cluster.pod("web-0").phase == "Running"
    r = pg.sync_once()
    assert r.actions == [("wait", "web-0", "not-running-ready")]
    pg.ready_button.click()
    assert pg.sync_once().actions[0] == ("create", "web-1", "missing")
    pg.unready_pod("web-0")
    assert not pg.cluster.pod("web-0").ready
    pg.delete_pod("web-1")
    pg.finish_termination("web-1")
    assert [p.name for p in pg.cluster.pods("web")] == ["web-0"]


def test_advance_time_moves_the_clock_and_the_auto_kubelet(pg):
    pg.replicas.value = 4
    pg.sync_once()
    assert pg.cluster.pod("web-3").phase == "Pending"
    t = pg.cluster.now
    pg.advance_by.value = 5
    pg.advance_button.click()
    assert pg.cluster.now == t + 5
    assert pg.cluster.pod("web-3").ready
    assert pg.last_result.sync == len(pg.cluster.trace)  # advancing did not sync


def test_run_until_stable_reaches_the_same_state_as_cluster_run(pg):
    """The panel's run loop stops where Cluster.run would (same seed, same trace), then lets
    LINGER_SECONDS pass, as a lab does, so that the last state shows in the pod timeline."""
    from stsedu.widgets.playground import LINGER_SECONDS
    ref = stsedu.Cluster(seed=0)
    ref.apply(sw.default_manifest())
    ref.run("web")
    ref.advance(LINGER_SECONDS)
    ref.scale("web", 6)
    ref.run("web")
    ref.advance(LINGER_SECONDS)
    pg.replicas.value = 6
    results = pg.run_until_stable()
    assert pg.cluster.trace.decisions().equals(ref.trace.decisions())
    assert pg.cluster.now == ref.now
    assert pg.progress.value == pg.progress.max == 6
    assert results[-1].sync == len(pg.cluster.trace)


def test_run_async_can_be_stopped():
    """Stop ends run_async after the sync in progress, long before the set is stable."""
    pg = sw.Playground(web(replicas=20))

    async def go():
        task = asyncio.ensure_future(pg.run_async())
        for _ in range(5):
            await asyncio.sleep(0)
        assert pg._running and pg.run_button.disabled and not pg.stop_button.disabled
        pg.stop_button.click()
        return await task
    results = run_coroutine(go)
    assert 0 < len(results) < 20
    assert "Stopped after" in pg.info.value
    assert len(pg.cluster.pods("web")) < 20
    assert not pg._running and pg.stop_button.disabled and not pg.run_button.disabled


def test_run_button_blocks_without_a_kernel():
    """No kernel (plain Python, even with an event loop running): the Run button runs to the end."""
    pg = sw.Playground()

    async def go():
        pg.run_button.click()
    run_coroutine(go)
    assert pg._task is None and len(pg.cluster.pods("web")) == 3 and "Stable after" in pg.info.value


def test_run_button_starts_a_task_under_a_kernel(monkeypatch):
    """Under a kernel (its loop runs the comm handlers) the Run button schedules run_async instead."""
    pg = sw.Playground()
    monkeypatch.setattr(sw.playground, "kernel_loop", asyncio.get_running_loop)

    async def go():
        pg.run_button.click()
        assert pg._task is not None and pg.cluster.pods("web") == []  # not run yet: it is a task
        await pg._task
    run_coroutine(go)
    assert len(pg.cluster.pods("web")) == 3 and "Stable after" in pg.info.value


def test_speed_scales_the_stage_delays(pg):
    base = pg.cluster.kubelet.stages
    pg.speed.value = 2.0
    assert pg.cluster.kubelet.stages.start == base.start / 2
    assert pg.cluster.kubelet.stages.ready == base.ready / 2
    pg.speed.value = 1.0
    assert pg.cluster.kubelet.stages == base


def test_kubelet_mode_change_starts_a_fresh_cluster_with_the_current_spec(pg):
    pg.replicas.value = 5
    pg.never_ready_pick.value = BAD
    pg.make_never_ready()
    pg.kubelet_mode.value = "manual"
    c = pg.cluster
    assert c.kubelet.mode == "manual" and c.now == 0 and len(c.trace) == 0
    assert c.statefulset("web").spec.replicas == 5 and c.pods("web") == []
    assert c.service("nginx").headless
    assert "fresh cluster" in pg.info.value


def test_reset_rebuilds_the_original_cluster(pg):
    pg.replicas.value = 6
    pg.make_never_ready(BAD)
    pg.sync_once()
    pg.reset_button.click()
    assert pg.cluster.statefulset("web").spec.replicas == 3
    assert pg.replicas.value == 3 and pg.never_ready_images == set()
    assert len(pg.cluster.pods("web")) == 3  # settle=True applies again
    assert pg.last_result is None


def test_refresh_rereads_a_cluster_edited_from_code(pg):
    pg.cluster.scale("web", 7)
    pg.refresh()
    assert pg.replicas.value == 7 and pg.partition.max == 7


# --------------------------------------------------------------------- views

def test_status_view_shows_status_rollout_and_next_sync(pg):
    pg.replicas.value = 4
    html = view(pg, sw.StatusView).widget.value
    assert "replicas 4" in html and "ready 3" in html
    assert pg.cluster.rollout_status("web") in html
    assert "create</span> web-3" in html  # the next sync's preview


def test_log_view_lists_every_sync_incrementally():
    pg = sw.Playground()
    pg.tabs.selected_index = [v.title for v in pg._tabbed].index("Sync log")
    log = view(pg, sw.LogView)
    pg.run_until_stable()
    n = len(pg.cluster.trace)
    assert log.widget.value.count("<tr>") == n + 1  # header + one row per sync
    pg.sync_once()
    assert log.widget.value.count("<tr>") == n + 2
    assert log._seen == n + 1


def test_chart_views_update_their_jupyter_charts_in_place(pg):
    """The default chart tabs are stsedu.charts' pod timeline (up to now: views._timeline_to_now), revision
    map and decision strip; the shown one gets a new spec after syncs, in the same ChartWidget."""
    titles = [v.title for v in pg._tabbed]
    assert titles == ["Pod timeline", "Revisions", "Decisions per sync", "Sync log"]
    timeline = pg._tabbed[0]
    from stsedu.widgets.panels import _timeline_to_now
    assert pg.tabs.selected_index == 0 and timeline.chart_fn is _timeline_to_now
    widget, before = timeline.jchart, timeline.jchart.spec
    sent = (widget._base, widget._patch)
    assert before is not None and timeline.jchart.layout.display is None
    pg.replicas.value = 5
    # a spec edit alone changes nothing the chart shows: nothing new goes to the page
    assert (widget._base, widget._patch) == sent and widget.spec == before
    pg.run_until_stable()
    assert timeline.jchart is widget and timeline.jchart.spec != before
    assert (widget._base, widget._patch) != sent
    pods_in_chart = {row["pod"] for rows in timeline.chart.to_dict()["datasets"].values()
                     for row in rows if "pod" in row}
    assert {"web-3", "web-4"} <= pods_in_chart
    revisions = pg._tabbed[1]
    assert revisions.chart is None  # hidden tabs are not drawn
    pg.tabs.selected_index = 1
    assert revisions.chart is not None


def test_chart_view_waits_for_the_first_sync_and_takes_any_chart_function():
    calls = []

    def my_chart(trace):
        import altair as alt
        calls.append(len(trace))
        return alt.Chart(trace.syncs()).mark_tick().encode(x="sync:Q")
    view_ = sw.ChartView(my_chart, title="Mine")
    pg = sw.Playground(views=[view_])
    assert calls == [] and "No syncs yet" in view_.note.value
    pg.sync_once()
    assert calls == [1] and view_.jchart.spec["mark"]["type"] == "tick"


def test_tab_views_redraw_only_when_shown_and_custom_views_plug_in():
    class Counter(sw.View):
        title = "Counter"

        def __init__(self):
            super().__init__()
            self.calls = 0

        def update(self, pg):
            self.calls += 1
            self.widget.value = f"pods: {len(pg.cluster.pods(pg.name))}"

    counter = Counter()
    pg = sw.Playground(views=["decisions", counter, "log"])
    assert pg.tabs.titles == ("Counter", "Sync log")
    assert counter.calls == 1  # first tab is selected
    pg.tabs.selected_index = 1
    calls = counter.calls
    pg.sync_once()
    assert counter.calls == calls  # hidden: not redrawn
    pg.tabs.selected_index = 0
    assert counter.calls == calls + 1 and counter.widget.value == "pods: 1"


def test_a_focused_panel_shows_only_what_was_asked():
    pg = sw.Playground(controls=["replicas"], actions=["sync"], views=["decisions"])
    shown = set(map(id, walk(pg.widget)))
    assert id(pg.replicas) in shown and id(pg.sync_button) in shown
    assert id(pg.partition) not in shown and id(pg.run_button) not in shown
    assert pg.tabs is None and len(pg.views) == 1
    pg.replicas.value = 1
    pg.sync_button.click()
    assert pod_names_in(decisions_html(pg)) == {"web-0"}


# ---------------------------------------------------------------- SyncStepper

def test_stepper_highlights_the_step_of_each_decision():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(replicas=3, claims=True))
    r = c.sync("web")
    s = sw.SyncStepper(r)
    seen = []
    for i in range(len(r.decisions)):
        s.select(i)
        current = re.findall(r"<tr class='current' data-step='([\w-]+)'", s.steps.value)
        assert current == [r.decisions[i].step]
        assert r.decisions[i].message.split(":")[0] in s.card.value
        seen.append(current[0])
    assert seen[0] == "revisions" and "replicas" in seen and seen[-1] == "status"
    s.select(99)
    assert s.index == len(r.decisions) - 1 and s.next_button.disabled
    s.select(-5)
    assert s.index == 0 and s.prev_button.disabled


def test_stepper_on_a_cluster_syncs_and_follows():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(replicas=2))
    s = sw.SyncStepper(c)
    assert s.decision is None and "no sync yet" in s.position.value
    s.sync_button.click()
    assert s.result.actions == [("create", "web-0", "missing")]
    assert f"sync {s.result.sync}" in s.position.value
    assert "web-0" in s.table.value


def test_stepper_on_a_cluster_starts_at_its_newest_sync():
    """Given a cluster that has synced, the stepper shows that sync's decisions (from the trace)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(replicas=2, claims=True))
    c.sync("web")
    c.inject_error("create", "Pod")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    r = c.sync("web")
    s = sw.SyncStepper(c, "web")
    assert s.result.sync == r.sync
    assert [(d.action, d.pod, d.reason, d.step, d.applied, d.error) for d in s.result.decisions] == \
        [(d.action, d.pod, d.reason, d.step, d.applied, d.error) for d in r.decisions]
    assert s.result.error == r.error and r.error


def test_stepper_on_a_playground_uses_its_sync(pg):
    s = sw.SyncStepper(pg)
    pg.replicas.value = 4
    r = s.sync()
    assert r is pg.last_result and ("create", "web-3", "missing") in r.actions


def test_stepper_rejects_other_sources():
    with pytest.raises(TypeError):
        sw.SyncStepper("web")
    with pytest.raises(ValueError, match="no StatefulSet"):
        sw.SyncStepper(stsedu.Cluster())


def test_iter_run_is_run_one_sync_at_a_time_and_stops_when_the_caller_stops():
    """Cluster.iter_run yields the syncs Cluster.run returns; breaking out leaves the clock where it was."""
    a, b = stsedu.Cluster(seed=3), stsedu.Cluster(seed=3)
    for c in (a, b):
        c.apply(web(replicas=4))
    assert [r.actions for r in a.run("web")] == [r.actions for r in b.iter_run("web")]
    assert a.trace.rows() == b.trace.rows() and a.now == b.now
    c = stsedu.Cluster(seed=3)
    c.apply(web(replicas=4))
    for r in c.iter_run("web"):
        if r.sync == 2:
            break
    assert len(c.trace) == 2 and c.now == 0


def test_settle_in_manual_mode_plays_the_kubelet():
    pg = sw.Playground(kubelet="manual", settle=True)
    assert [(p.name, p.ready) for p in pg.cluster.pods("web")] == [(f"web-{i}", True) for i in range(3)]


def test_a_sync_that_decides_nothing_says_so(pg):
    r = pg.sync_once()
    assert r.decisions == ()
    assert f"Sync {r.sync} decided nothing" in decisions_html(pg)
    s = sw.SyncStepper(r)
    assert "decided nothing" in s.card.value and s.table.value == ""


def test_pods_view_follows_pod_changes_at_the_same_instant(pg):
    """The pods table is cached per (clock, pod changes): a kubelet change at the same time still shows."""
    pods = view(pg, sw.PodsView)
    before = pods.table.value
    pg.replicas.value = 4  # a spec edit: no pod changed
    assert pods.table.value == before
    t = pg.cluster.now
    pg.fail_pod("web-1")
    assert pg.cluster.now == t
    line = next(ln for ln in pods.table.value.splitlines() if ln.startswith("web-1 "))
    assert "Evicted" in line


def test_settle_brings_up_a_set_larger_than_max_syncs_allows():
    """Playground(settle=True) starts from a stable set even when it takes more syncs than max_syncs
    (an OrderedReady set comes up in about four syncs per pod: 260 pods need more than 1,000)."""
    pg = sw.Playground(replicas=260, settle=True, views=["decisions"])
    st = pg.cluster.statefulset(pg.name).status
    assert pg.max_syncs is None and pg.budget() > 1000 and st.ready_replicas == st.replicas == 260


def test_run_until_stable_takes_the_syncs_the_set_needs_and_a_refusal_names_its_limit():
    """Issue #41 item 1: at 500 replicas Run until stable said "Gave up after 1000 syncs (max_syncs)" with
    250/500 Ready: an OrderedReady create takes about four syncs a pod.  The budget now follows the set's
    size (300 pods: more than 1,000 syncs); a run cut by an explicit max_syncs says which limit and how to
    raise it."""
    pg = sw.Playground(replicas=300, views=["decisions"])
    results = pg.run_until_stable()
    st = pg.cluster.statefulset(pg.name).status
    assert len(results) > 1000 and st.ready_replicas == 300 and "Stable after" in pg.info.value
    small = sw.Playground(replicas=30, views=["decisions"], max_syncs=20)
    small.run_until_stable()
    info = small.info.value
    assert "Gave up after 20 syncs" in info and "max_syncs" in info and "not stable" in info, info


def test_sync_log_marks_only_the_sync_that_failed():
    """After one sync ends on an API error, the Sync log shows that error on its row alone: the syncs
    without one showed 'nan' in red (the trace's error column is NaN where a sync had none)."""
    pg = sw.Playground(views=["log"], kubelet="manual")
    pg.cluster.inject_error("create", "Pod")
    pg.sync_once()  # web-0's create fails
    pg.sync_once()  # web-0 created
    log = pg.views[0].widget.value
    rows = re.findall(r"<tr><td class='mono'>(\d+)</td>.*?</tr>", log)
    bad = re.findall(r"<tr><td class='mono'>(\d+)</td>(?:(?!</tr>).)*st-bad'>([^<]*)<", log)
    assert rows == ["2", "1"] and [n for n, _ in bad] == ["1"], log
    assert "simulated failure to create" in bad[0][1] and "nan" not in log
