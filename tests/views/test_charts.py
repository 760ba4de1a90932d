"""Charts are checked on their Vega-Lite specs (``to_dict()``): encodings, scales and data rows, never pixels."""

from __future__ import annotations

import warnings

import altair as alt
import pytest

import stsedu
from stsedu import charts, tables
from stsedu.views import palette
from stsedu.views.charts import common
from stsedu.views.charts import linked as linked_charts, revisions as revision_charts, status as status_charts
from stsedu.views.charts import strip as strip_charts, timeline as timeline_charts
from stsedu.views.palette import ACTION_COLORS, COUNTER_COLORS, REVISION_COLORS, STATE_COLORS
from helpers import web
from test_tables import delete_syncs, manifest_rollout

CHARTS = ("pod_timeline", "revision_map", "status_counters", "decision_strip", "overview")


@pytest.fixture(scope="module")
def rollout():
    return manifest_rollout()


@pytest.fixture(scope="module")
def specs(rollout):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Altair warnings either
        return {name: getattr(charts, name)(rollout.trace).to_dict() for name in CHARTS}


def units(spec):
    """Every unit view (a dict with a mark) in a spec, depth first."""
    if "mark" in spec:
        yield spec
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for sub in spec.get(key, ()):
            yield from units(sub)


def rows(spec, unit):
    """The rows *unit* draws: its own dataset, or else the one of the layer at the top of *spec*."""
    data = unit.get("data") or spec.get("data")
    return spec["datasets"][data["name"]] if data else None


def unit_with(spec, mark, field=None, channel="color"):
    for u in units(spec):
        m = u["mark"]["type"] if isinstance(u["mark"], dict) else u["mark"]
        if m == mark and (field is None or u.get("encoding", {}).get(channel, {}).get("field") == field):
            return u
    raise AssertionError(f"no {mark} mark with {channel}={field}")


def subtitle(spec) -> str:
    return " ".join(spec["title"].get("subtitle", []))


# ------------------------------------------------------------------ each chart


def test_pod_timeline_bars_are_pod_states_over_time(specs, rollout):
    spec = specs["pod_timeline"]
    bar = unit_with(spec, "rect", "state")
    enc = bar["encoding"]
    assert (enc["x"]["field"], enc["x2"]["field"], enc["y"]["field"], enc["y2"]["field"]) == ("x0", "x1", "y0", "y1")
    assert enc["x"]["axis"]["title"] == "time (s)"
    domain, colours = enc["color"]["scale"]["domain"], enc["color"]["scale"]["range"]
    assert domain == ["Pending", "Running", "Ready", "Available", "Terminating"]
    assert colours == [STATE_COLORS[s] for s in domain]
    assert {t["field"] for t in enc["tooltip"]} >= {"pod", "state", "cause", "decision", "rule"}
    data = rows(spec, bar)
    assert len(data) == len(tables.pod_intervals(rollout.trace))
    w2 = [(r["state"], r["x0"], r["x1"]) for r in data if r["pod"] == "web-2"]
    # web-2 turns Available at 39 s (Ready since 29, minReadySeconds 10) and the sync at that
    # very instant deletes it for the update: no Available bar of zero length
    assert w2[:5] == [("Pending", 26.0, 27.0), ("Running", 27.0, 29.0), ("Ready", 29.0, 39.0),
                      ("Terminating", 39.0, 40.0), ("Pending", 40.0, 41.0)]
    assert w2[-1] == ("Available", 53.0, 81.0)
    term = next(r for r in data if r["pod"] == "web-1" and r["state"] == "Terminating")
    assert term["cause"] == f"sync {delete_syncs(rollout.trace)['web-1']}: delete (update)"
    assert term["decision"].startswith("web-1 is at revision")
    # one row per ordinal, the top ordinal on top, labelled like pod names
    assert enc["y"]["scale"]["domain"] == [-0.5, 2.5]
    assert enc["y"]["axis"]["values"] == [0, 1, 2]  # a label at each whole ordinal, none between
    assert enc["y"]["axis"]["labelExpr"] == "datum.value % 1 ? '' : 'web-' + datum.value"
    assert spec["title"]["text"] == "Pods of web over time"


def test_pod_timeline_by_sync(rollout):
    spec = charts.pod_timeline(rollout.trace, x="sync").to_dict()
    bar = unit_with(spec, "rect", "state")
    assert bar["encoding"]["x"]["axis"]["title"] == "sync number"
    w2 = [(r["state"], r["x0"], r["x1"]) for r in rows(spec, bar) if r["pod"] == "web-2"]
    d = rollout.trace.decisions()
    created = list(d[(d.action == "create") & (d.pod == "web-2")].sync)
    deleted = delete_syncs(rollout.trace)["web-2"]
    # each bar covers the syncs that ended with the pod in that state: from the sync that made the change
    assert w2[0][:2] == ("Pending", created[0] - 0.5)
    assert next(b for b in w2 if b[0] == "Terminating")[1] == deleted - 0.5
    assert [b for b in w2 if b[0] == "Pending"][1][:2] == ("Pending", created[1] - 0.5)
    assert all(a[2] == b[1] for a, b in zip(w2[:4], w2[1:5]))  # no gaps while the pod exists


def test_revision_map_sweeps_from_the_top_ordinal(specs, rollout):
    spec = specs["revision_map"]
    cell = unit_with(spec, "rect", "revision")
    scale = cell["encoding"]["color"]["scale"]
    old, new = rollout.revisions("web")[0].name, rollout.revisions("web")[1].name
    assert scale["domain"] == [old, new] and scale["range"] == list(REVISION_COLORS[:2])
    data = rows(spec, cell)
    first_new = {r["pod"]: r["x0"] for r in sorted(data, key=lambda r: -r["x0"]) if r["revision"] == new}
    assert first_new["web-2"] < first_new["web-1"] < first_new["web-0"]  # top ordinal first
    assert not any("partition" in str(u.get("encoding", {})) for u in units(spec))  # partition 0: no line


def test_revision_map_state_and_revision_on_separate_channels(specs):
    """Issue 16 item 5: the revision is the hue, the pod's state is the form, so a Ready pod of the grey
    first revision cannot read as "not Ready" (a paler grey); the legend shows three different forms."""
    spec = specs["revision_map"]
    bar = unit_with(spec, "rect", "revision")
    enc = bar["encoding"]
    assert enc["color"]["field"] == enc["stroke"]["field"] == "revision"  # hue: the revision only
    assert "look" not in str(enc["color"]) and "opacity" not in enc
    fill = enc["fillOpacity"]
    assert fill["field"] == "look" and dict(zip(fill["scale"]["domain"], fill["scale"]["range"])) == {
        "Ready": 1.0, "not Ready": 0.1}  # filled bar vs outline
    assert {r["look"] for r in rows(spec, bar)} >= {"Ready", "not Ready", "terminating"}
    gone = unit_with(spec, "rule", "revision")  # terminating: a dashed line in the revision's colour
    assert gone["mark"]["strokeDash"] and "terminating" in str(gone["transform"])
    key = unit_with(spec, "point", "look", channel="shape")
    shapes = key["encoding"]["shape"]["scale"]
    assert shapes["domain"] == ["Ready", "not Ready", "terminating"] and len(set(shapes["range"])) == 3
    assert key["encoding"]["shape"]["title"] == "pod" and "pod" not in str(enc["color"].get("title"))
    assert "filled = Ready, outline = not Ready" in subtitle(spec)


def _partitioned_rollout(replicas: int, partition: int):
    """A set of *replicas* under *partition*, then nginx:2: the cluster and its revision map's spec."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(replicas, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": partition}}))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    return c, charts.revision_map(c.trace).to_dict()


def test_revision_map_draws_the_partition(tmp_path):
    """With partition 2 only web-2 moves to the new revision, and the partition line sits between web-1 and web-2:
    solid and in its own colour (dashes mean a terminating pod), with no text label to collide with bars."""
    c, spec = _partitioned_rollout(3, 2)
    new = c.statefulset("web").status.update_revision
    cells = rows(spec, unit_with(spec, "rect", "revision"))
    assert {r["pod"] for r in cells if r["revision"] == new} == {"web-2"}
    line = unit_with(spec, "line")
    assert "strokeDash" not in line["mark"] and line["mark"]["color"] == palette.PARTITION_COLOR
    assert {r["y"] for r in rows(spec, line)} == {1.5}
    assert not [u for u in units(spec) if (u.get("mark") or {}).get("type", u.get("mark")) == "text"]
    assert "partition (now 2)" in subtitle(spec)


def test_revision_map_names_a_purple_line_only_when_it_draws_one():
    """06.b (partition 10 over five pods): the subtitle named a "purple line: the partition (now 10)" that lies
    above every ordinal, clipped away.  Now it says the partition is above every ordinal, and draws no line."""
    _c, spec = _partitioned_rollout(5, 10)
    assert "purple line" not in subtitle(spec) and "partition 10: above every ordinal" in subtitle(spec)
    assert not [u for u in units(spec) if (u.get("mark") or {}).get("type", u.get("mark")) == "line"]


def test_status_counters_lanes(specs, rollout):
    spec = specs["status_counters"]
    lanes = spec["vconcat"]
    assert [lane["layer"][2]["encoding"]["y"]["field"] for lane in lanes] == list(tables.COUNTERS)
    assert [lane["layer"][2]["mark"]["color"] for lane in lanes] == [COUNTER_COLORS[c] for c in tables.COUNTERS]
    assert [lane["layer"][2]["encoding"]["y"]["axis"]["title"] for lane in lanes] == [
        "replicas", "readyReplicas", "availableReplicas", "currentReplicas", "updatedReplicas"]
    for lane in lanes:
        spec_line = lane["layer"][1]
        assert spec_line["encoding"]["y"]["field"] == "spec_replicas" and spec_line["mark"]["strokeDash"]
        assert lane["layer"][2]["mark"]["interpolate"] == "step-after"
    data = next(iter(spec["datasets"].values()))
    cols = ["spec_replicas", *tables.COUNTERS]
    # only the corners of the steps: no two neighbours with the same counters, except the closing point
    assert all(any(a[c] != b[c] for c in cols) for a, b in zip(data[:-2], data[1:-1]))
    assert data[-1]["x"] == 81.0 and [data[-1][c] for c in cols] == [3, 3, 3, 3, 3, 3]
    at_39 = next(r for r in data if r["x"] == 39.0)
    assert (at_39["current"], at_39["updated"]) == (2, 0)  # the status at 39 s: web-2 deleted, not yet back


def test_decision_strip_marks_each_pod_decision(specs, rollout):
    spec = specs["decision_strip"]
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("sync", "ordinal")
    kinds = enc["shape"]["scale"]["domain"]
    assert kinds == ["create", "delete", "wait"]
    assert enc["stroke"]["scale"]["range"] == [ACTION_COLORS[k] for k in kinds]
    assert enc["fill"]["scale"]["range"][kinds.index("wait")] == "#FFFFFF"  # waits are hollow
    data = next(iter(spec["datasets"].values()))
    pod_decisions = tables.decisions_frame(rollout.trace, pod_actions=True)
    assert len(data) == len(pod_decisions)
    deletes = [(r["sync"], r["pod"]) for r in data if r["action"] == "delete"]
    assert deletes == sorted((s, p) for p, s in delete_syncs(rollout.trace).items())
    assert [p for _, p in deletes] == ["web-2", "web-1", "web-0"]  # from the top ordinal down
    assert {t["field"] for t in enc["tooltip"]} >= {"message", "rule", "reason"}


def test_overview_links_every_panel_to_one_hovered_sync(specs, rollout):
    spec = specs["overview"]
    params = spec["params"]
    assert all(p["select"]["on"] == "pointerover" and p["select"]["fields"] == ["sync"] for p in params)
    assert len(params) == 4 + len(tables.COUNTERS) - 1
    names = {p["name"] for p in params}
    rules = [u for u in units(spec) if (u["mark"]["type"] if isinstance(u["mark"], dict) else u["mark"]) == "rule"
             and u["encoding"]["x"]["field"] == "sync"]  # the hover lines (not the revision map's terminating pods)
    assert len(rules) == len(params)
    for r in rules:  # each panel's line shows when ANY panel holds a sync, and only then
        test = r["encoding"]["opacity"]["condition"]["test"]["or"]
        assert {t["param"] for t in test} == names and all(t["empty"] is False for t in test)
    strip = unit_with(spec, "point", "kind", channel="shape")
    assert strip["encoding"]["size"]["condition"]["value"] > strip["encoding"]["size"]["value"]
    assert [p["title"]["text"] for p in spec["vconcat"]] == [
        "Pods of web over syncs", "Revisions of web, sync by sync", "What each sync of web decided",
        "Status of web over syncs"]
    assert spec["title"]["text"] == f"web: {len(rollout.trace)} syncs in 81 s"


def _overview_by_altair(trace, set_name="web"):
    """The overview composed the plain Altair way (layer, then re-wrap; concat): the reference for its spec.

    This is how charts.overview was built before it assembled its parts itself; Altair's own
    combining (data hoisting, view names, lifted params) decides the result here.
    """
    lo, hi = common.x_extent(trace, "sync")
    marks = linked_charts.sync_summary(trace, set_name)
    xs = alt.X("sync:Q", scale=common.x_scale(lo, hi))
    params = [alt.selection_point(name=f"sync_hover_{i}", fields=["sync"], on="pointerover", nearest=True,
                                  empty=False, clear="pointerout") for i in range(3 + len(tables.COUNTERS))]
    hovered = alt.LogicalOrPredicate(**{"or": [alt.ParameterPredicate(param=p.name, empty=False) for p in params]})
    counter = iter(params)

    def linked(panel, with_label=False):
        param = next(counter)
        selector = alt.Chart(marks, name=f"{param.name}_view").mark_point(opacity=0, size=10).encode(
            x=xs, tooltip=[alt.Tooltip("sync:Q"), alt.Tooltip("time:Q", title="time (s)", format=".1f")]
        ).add_params(param)
        rule = alt.Chart(marks).mark_rule(color="#222222", strokeWidth=1.5).encode(
            x=xs, opacity=alt.condition(hovered, alt.value(0.85), alt.value(0.0)))
        layers = list(panel.layer) if isinstance(panel, alt.LayerChart) else [panel]
        layers.append(rule)
        if with_label:
            layers.append(alt.Chart(marks).transform_calculate(
                label="'sync ' + datum.sync + ' at ' + format(datum.time, '.1f') + ' s: ' + datum.decided").mark_text(
                align="left", baseline="bottom", x=0, y=-4, fontSize=13, fontWeight="bold",
                limit=common.WIDTH).encode(
                text=alt.Text("label:N"), opacity=alt.condition(hovered, alt.value(1.0), alt.value(0.0))))
        layers.append(selector)
        props = {k: panel[k] for k in ("data", "width", "height", "title") if panel[k] is not alt.Undefined}
        return alt.LayerChart(layer=layers, **props)

    lanes, lanes_title = status_charts.status_lanes(trace, set_name, "sync")
    status = alt.VConcatChart(vconcat=[linked(lane) for lane in lanes], spacing=6, title=lanes_title)
    panels = [linked(timeline_charts.timeline_panel(trace, set_name, "sync"), with_label=True),
              linked(revision_charts.revision_panel(trace, set_name)),
              linked(strip_charts.strip_panel(trace, set_name, emphasis=hovered)), status]
    end = tables.trace_now(trace)
    n = int(trace.syncs().query("set == @set_name")["sync"].nunique())
    independent = {c: "independent" for c in ("color", "fill", "shape", "opacity", "size", "stroke")}
    return alt.VConcatChart(
        vconcat=panels, spacing=30,
        resolve=alt.Resolve(scale=alt.ScaleResolveMap(**independent), legend=alt.LegendResolveMap(**independent)),
        title=common.chart_title(f"{set_name}: {n} syncs in {end:.0f} s",
                            "hover anywhere to pick a sync: a line marks it in every panel"),
        config=alt.Config(**common.CONFIG))


def partition_rollout():
    c = stsedu.Cluster(seed=0)
    c.apply(web(3, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    return c


@pytest.mark.parametrize("case", ["rollout", "partition"])
def test_overview_is_the_spec_altair_composes(case, rollout):
    """The overview assembles its linked panels itself (for speed); its spec is the one Altair's own
    layering and concatenation give: same datasets, views, encodings, params and names.  With a
    partition, the revision panel also has the partition line."""
    trace = (rollout if case == "rollout" else partition_rollout()).trace
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chart = charts.overview(trace)
        spec = chart.to_dict()
        # Altair 6.3 numbers the selector views (sync_hover_5_view_0), 6.0 does not (sync_hover_5_view):
        # compared with the numbers taken out, after checking that every param names a view that exists.
        views = {u["name"] for u in units(spec) if "name" in u}
        assert all(set(p["views"]) <= views for p in spec["params"])
        import json
        import re

        def unnumbered(s):
            return json.loads(re.sub(r"(sync_hover_\d+_view)_\d+", r"\1", json.dumps(s)))
        assert unnumbered(spec) == unnumbered(_overview_by_altair(trace).to_dict())
        assert chart.copy().to_dict() == spec  # Altair's deep copy keeps it whole
    panel = spec["vconcat"][1]
    # bars, terminating pods, state legend (+ partition line), hover rule, selector
    assert len(panel["layer"]) == (6 if case == "partition" else 5)
    bare = chart.copy(deep=False)  # composable like any Altair chart (once its config is left to the outer one)
    bare.config = alt.Undefined
    both = alt.vconcat(bare, timeline_charts.timeline_panel(trace, "web", "sync")).to_dict()
    assert both["params"] == spec["params"] and both["vconcat"][0]["vconcat"] == spec["vconcat"]


def test_charts_are_configured_for_a_projector(specs):
    for name, spec in specs.items():
        assert spec["config"]["axis"]["labelFontSize"] >= 13, name
        assert spec["config"]["title"]["fontSize"] >= 18, name


def test_colours_are_the_same_in_every_chart(specs):
    """A state, an action, a revision: one colour everywhere (overview included)."""
    overview_units = list(units(specs["overview"]))
    for u in overview_units:
        scale = u.get("encoding", {}).get("color", {}).get("scale")
        if scale and u["encoding"]["color"]["field"] == "state":
            assert scale["range"] == [STATE_COLORS[s] for s in scale["domain"]]
        if scale and u["encoding"]["color"]["field"] == "revision":
            assert scale["range"] == list(REVISION_COLORS[:len(scale["domain"])])


# ------------------------------------------------------------------ size, errors, rendering


@pytest.mark.slow
def test_large_runs_are_aggregated_and_say_so():
    """1,000 replicas: every chart's data stays far below Altair's 5,000-row limit; the subtitle says how."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(1000, "Parallel"))
    c.run("web")
    c.scale("web", 400)
    c.run("web")
    aggregated = []
    for name in CHARTS:
        spec = getattr(charts, name)(c.trace).to_dict()  # no MaxRowsError
        assert all(len(v) < 5000 for v in spec["datasets"].values()), name
        texts = [subtitle(spec)] + [subtitle(p) for p in spec.get("vconcat", []) if "title" in p]
        if any("aggregated" in t for t in texts):
            aggregated.append(name)
    assert {"pod_timeline", "revision_map", "overview"} <= set(aggregated)
    grid = unit_with(charts.pod_timeline(c.trace).to_dict(), "rect", "state")
    assert {t["field"] for t in grid["encoding"]["tooltip"]} >= {"band", "pods", "of"}


def test_charts_need_a_set_name_when_the_trace_has_several():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.apply(web(1, name="db"))
    c.sync("web")
    c.sync("db")
    with pytest.raises(ValueError, match="several StatefulSets"):
        charts.pod_timeline(c.trace)
    with pytest.raises(ValueError, match="no StatefulSet 'nope'"):
        charts.revision_map(c.trace, "nope")
    with pytest.raises(ValueError, match="x must be"):
        charts.pod_timeline(c.trace, "db", x="ordinal")
    spec = charts.pod_timeline(c.trace, "db", x="sync").to_dict()  # no time passed: only syncs show it
    assert {r["pod"] for r in next(iter(spec["datasets"].values()))} == {"db-0"}


def test_revision_colors_by_first_appearance(rollout):
    cols = charts.revision_colors(rollout.trace)
    assert list(cols) == [r.name for r in rollout.revisions("web")]
    assert list(cols.values()) == list(REVISION_COLORS[:2])


def test_save_png_and_svg_offline(tmp_path, rollout):
    chart = charts.decision_strip(rollout.trace)
    png = charts.save(chart, tmp_path / "strip.png")
    svg = charts.save(chart, tmp_path / "strip.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert svg.read_text().startswith("<svg") and "web-2" in svg.read_text()
    with pytest.raises(ValueError, match="use .png"):
        charts.save(chart, tmp_path / "strip.gif")


def test_enable_offline_is_idempotent_quiet_and_never_uses_a_cdn_or_vl_convert(capsys, rollout):
    """After enable_offline a chart is shown as a ChartWidget (the shipped Vega bundle), with no CDN and,
    by default, no static SVG (which would need vl-convert)."""
    before = alt.renderers.active
    try:
        charts.enable_offline()
        charts.enable_offline()
        assert alt.renderers.active == "stsedu"
        bundle = alt.renderers.get()(charts.decision_strip(rollout.trace).to_dict())
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        assert "application/vnd.jupyter.widget-view+json" in data
        assert "image/svg+xml" not in data
        assert "cdn.jsdelivr" not in str(data)
        assert capsys.readouterr() == ("", "")
    finally:
        alt.renderers.enable(before)


def test_docs_figures_come_from_the_script():
    """docs/img holds one PNG per chart of tools/make_figures.py, and README/docs list exactly those."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("make_figures", root / "tools" / "make_figures.py")
    mf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mf)
    assert set(mf.FIGURES) == set(CHARTS)
    for name in mf.FIGURES:
        assert (root / "docs" / "img" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert mf.figure_block("docs/img/") in (root / "README.md").read_text()
    assert mf.figure_block("img/") in (root / "docs" / "charts.md").read_text()


def test_time_charts_reach_now_so_the_last_state_has_its_real_width():
    """A lab lets simulated seconds pass after a change: the state the change left must show that long,
    not as a zero-width bar at the last recorded change."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(1))
    c.run("web")
    last_change, _ = tables.trace_end(c.trace)
    now = c.advance(5)
    assert now > last_change
    spec = charts.pod_timeline(c.trace).to_dict()
    bar = unit_with(spec, "rect", "state")
    assert bar["encoding"]["x"]["scale"]["domain"] == [0.0, now]
    last = [r for r in rows(spec, bar) if r["pod"] == "web-0"][-1]
    assert (last["state"], last["x1"]) == ("Available", now) and last["x1"] - last["x0"] >= 5
    lanes = charts.status_counters(c.trace).to_dict()
    assert max(r["x"] for r in lanes["datasets"][next(iter(lanes["datasets"]))]) == now
    # an explicit end: earlier than the trace's last change is not allowed to cut it off
    early = charts.pod_timeline(c.trace, until=0.0).to_dict()
    assert unit_with(early, "rect", "state")["encoding"]["x"]["scale"]["domain"] == [0.0, max(last_change, 1.0)]
    with pytest.raises(ValueError, match="until must be a number"):
        charts.pod_timeline(c.trace, until="now")


def test_ordinal_axes_label_whole_ordinals_only():
    """One pod: the decision strip once labelled its axis web--0.5, web-0, web-0.5."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(1))
    c.run("web")
    for fn in (charts.decision_strip, charts.pod_timeline, charts.revision_map):
        spec = fn(c.trace).to_dict()
        axes = [u["encoding"]["y"]["axis"] for u in units(spec)
                if isinstance(u.get("encoding", {}).get("y", {}).get("axis"), dict)]
        assert axes and all(a["values"] == [0] for a in axes), fn.__name__


def _y_axis_values(spec):
    out = []
    for u in units(spec):
        y = (u.get("encoding") or {}).get("y") or {}
        vals = (y.get("axis") or {}).get("values")
        if vals:
            out.append(vals)
    return out


@pytest.mark.parametrize("n", [3, 50, 500])
def test_pod_charts_stay_readable_from_3_to_500_pods(n):
    """Issue #41 item 2: at 50 replicas the x-axis labels ran together ("100120140160180...") and the ordinal
    axis had no labels of its own; at 500 the timeline was a pale, near-empty triangle (rows under a pixel).
    Now: at most 26 ordinal labels, on whole ordinals at an even step; at most about 8 x labels, any
    overlapping one left out; beyond what the height can draw, ordinal bands (aggregated, said in the subtitle)."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(n))
    c.run("web", max_syncs=20 * n + 100)
    for fn in (charts.pod_timeline, charts.revision_map, charts.decision_strip):
        spec = fn(c.trace).to_dict()
        ys = _y_axis_values(spec)
        assert ys, (fn.__name__, "no ordinal labels")
        for vals in ys:
            steps = {b - a for a, b in zip(vals, vals[1:])}
            assert len(vals) <= common.AXIS_ORDINALS and len(steps) <= 1, (fn.__name__, vals)
            assert all(float(v).is_integer() and 0 <= v < n for v in vals), (fn.__name__, vals)
        xs = [(u.get("encoding") or {}).get("x", {}).get("axis") or {} for u in units(spec)]
        xs = [a for a in xs if a.get("title")]
        assert xs and all(a.get("labelOverlap") and a.get("tickCount", 99) <= 10 for a in xs), (fn.__name__, xs)
        aggregated = "aggregated" in subtitle(spec)
        assert aggregated == (n > common.MAX_DRAWN_ORDINALS), (fn.__name__, n, subtitle(spec))
