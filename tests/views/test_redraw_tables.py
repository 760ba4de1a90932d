"""Issue 26 item 5: a redraw works each trace table out once and shares it between its views (``kubectl
get pods`` and the chart both need the pods' incarnations), and nothing a view works out is kept on the
trace: the project keeps no memo caches, so the speed comes from passing one redraw's tables down."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stsedu import charts, examples, labs, tables, widgets
from stsedu.views import trace_tables
from stsedu.views.charts.chart_data import records
from stsedu.views.charts.common import merge_segments, pod_segments


def _snapshot(trace) -> dict:
    """Each attribute of the trace, as (object, size, and for a dict what each key holds): a view that
    kept something on it changes one."""
    return {k: (id(v), len(v) if hasattr(v, "__len__") else v,
                {key: id(x) for key, x in v.items()} if isinstance(v, dict) else None)
            for k, v in vars(trace).items()}


def _frames_in(value, depth: int = 3) -> int:
    """How many DataFrames *value* holds (in dicts, lists and tuples, *depth* levels down)."""
    if isinstance(value, pd.DataFrame):
        return 1
    if depth and isinstance(value, dict):
        return sum(_frames_in(v, depth - 1) for v in value.values())
    if depth and isinstance(value, (list, tuple)):
        return sum(_frames_in(v, depth - 1) for v in value)
    return 0


def test_the_views_keep_nothing_on_the_trace():
    lab = labs.UpdateLab(examples.web(3))
    lab.set_image("nginx:2")
    trace = lab.cluster.trace
    before = _snapshot(trace)
    tables.pod_intervals(trace, "web")
    tables.get_pods_text(lab.cluster, "web", wide=True)
    for fn in ("pod_timeline", "revision_map", "decision_strip"):
        getattr(charts, f"{fn}_data")(trace, "web")
    assert _snapshot(trace) == before
    assert _frames_in(vars(trace)) == 0, "a table a view worked out is kept on the trace"


def test_pod_intervals_of_a_grown_trace_are_worked_out_afresh():
    lab = labs.ScalingLab()
    trace = lab.cluster.trace
    first = tables.pod_intervals(trace, "web")
    lab.scale(4)
    grown = tables.pod_intervals(trace, "web")
    assert set(grown["pod"]) - set(first["pod"]), "the new pods are missing from the segments"


def _count(monkeypatch, trace) -> dict[str, int]:
    """How many times the redraw reads the trace's pod changes (as a DataFrame or as raw rows) and works
    out the pods' incarnations."""
    built = {"pods": 0, "incarnations": 0}
    real_pods, real_rows, real_inc = trace.pods, trace.table_rows, trace_tables.incarnations_and_ips

    def pods(*a, **k):
        built["pods"] += 1
        return real_pods(*a, **k)

    def table_rows(table):
        built["pods"] += table == "pods"
        return real_rows(table)

    def incarnations(*a, **k):
        built["incarnations"] += 1
        return real_inc(*a, **k)
    monkeypatch.setattr(trace, "pods", pods)
    monkeypatch.setattr(trace, "table_rows", table_rows)
    monkeypatch.setattr(trace_tables, "incarnations_and_ips", incarnations)
    return built


@pytest.mark.parametrize("name", ["ScalingLab", "UpdateLab"])
def test_a_lab_redraw_works_out_the_pods_once_for_get_pods_and_the_chart(name, monkeypatch):
    lab = getattr(labs, name)()
    assert "pods" in lab.views
    lab.chart.reset()  # the chart is redrawn even though the trace did not grow
    built = _count(monkeypatch, lab.cluster.trace)
    lab._redraw()
    assert built == {"pods": 1, "incarnations": 1}  # the chart's (`get pods` reads the pods in the store)
    monkeypatch.undo()
    assert lab.chart.widget.spec == charts.to_spec(lab.chart.fn(lab.cluster.trace, lab.name))


def test_get_pods_wide_and_a_chart_share_the_pods_incarnations(monkeypatch):
    lab = labs.UpdateLab()
    lab.set_image("nginx:2")
    built = _count(monkeypatch, lab.cluster.trace)
    once = trace_tables.TablesOnce(lab.cluster.trace)
    text = tables.get_pods_text(lab.cluster, "web", wide=True, tables=once)  # -o wide shows the IPs
    data = charts.revision_map_data(once, "web")
    assert built == {"pods": 1, "incarnations": 1}
    monkeypatch.undo()
    assert text == tables.get_pods_text(lab.cluster, "web", wide=True) and "10.244.0." in text
    assert data.rows == charts.revision_map_data(lab.cluster.trace, "web").rows


def test_a_playground_redraw_works_out_the_pods_once_for_get_pods_and_the_chart(monkeypatch):
    pg = widgets.Playground(replicas=3, settle=True)
    pg.tabs.selected_index = [v.title for v in pg._tabbed].index("Pod timeline")
    built = _count(monkeypatch, pg.cluster.trace)
    pg.sync_once()
    assert built["incarnations"] == 1 and built["pods"] <= 2, built  # the panel's own "changed now?" check reads pods
    assert pg.redraw_tables is None, "the redraw's tables outlived it"


def _merge_by_groupby(seg, key):
    """merge_segments as it was written before, with a pandas groupby: the reference it must still equal."""
    seg = seg.sort_values(["ordinal", "incarnation", "x0"], kind="stable").reset_index(drop=True)
    same = seg["ordinal"].eq(seg["ordinal"].shift()) & seg["incarnation"].eq(seg["incarnation"].shift())
    for k in key:
        same &= seg[k].eq(seg[k].shift())
    same &= seg["x0"].le(seg["x1"].shift())
    how = {c: "first" for c in seg.columns}
    how.update({c: "last" for c in ("x1", "end", "last_sync", "sync_end", "ongoing")})
    return seg.groupby((~same).cumsum(), sort=False).agg(how).reset_index(drop=True)


@pytest.mark.parametrize("x", ["sync", "time"])
def test_merged_segments_are_those_of_a_groupby(x):
    lab = labs.FaultLab()
    for k in range(3):
        lab.set_image(("nginx:2", "nginx:1")[k % 2])
    seg = pod_segments(lab.cluster.trace, "web", x)
    seg = seg.assign(look=np.where(seg["state"] == "Terminating", "terminating", "other"))
    assert len(merge_segments(seg, ("look",))) < len(seg)  # merges happen (and fill missing actions)
    for key in (("revision", "look"), ("look",), ("action",)):  # actions are missing in many rows
        pd.testing.assert_frame_equal(merge_segments(seg, key), _merge_by_groupby(seg, key))


def _revision_bars_by_frames(trace, set_name):
    """The revision map's bars as they were worked out before, through DataFrames: the pod segments on
    the sync axis, each given its look, merged on (revision, look) by merge_segments."""
    seg = pod_segments(trace, set_name, "sync")
    seg = seg.assign(look=np.where(seg["state"] == "Terminating", "terminating",
                                   np.where(seg["state"].isin(["Ready", "Available"]), "Ready", "not Ready")))
    seg = merge_segments(seg, ("revision", "look"))
    data = seg.assign(y0=seg["ordinal"] - 0.45, y1=seg["ordinal"] + 0.45,
                      syncs=[f"{a}" if a == b else f"{a}–{b}"
                             for a, b in zip(seg["first_sync"].tolist(), seg["last_sync"].tolist())])
    return records(data.reindex(columns=["pod", "ordinal", "revision", "look", "x0", "x1", "y0", "y1", "syncs"]))


def _fault_run():
    lab = labs.FaultLab()
    for k in range(3):
        lab.set_image(("nginx:2", "nginx:1")[k % 2])
    return lab


def _partition_run():
    lab = labs.PartitionLab()
    lab.set_image("nginx:2")
    lab.set_partition(2)
    lab.set_partition(0)
    return lab


def _update_run():
    lab = labs.UpdateLab(examples.web(12))
    lab.set_image("nginx:2")
    lab.set_strategy("OnDelete")
    lab.set_image("nginx:3")
    return lab


@pytest.mark.parametrize("run", [_fault_run, _partition_run, _update_run])
def test_the_revision_maps_bars_are_those_of_the_pod_segments_merged(run):
    """The revision map's bars come from one plain pass over the trace's rows (no DataFrame); they must
    be, value for value and type for type, the bars the DataFrame pipeline gives."""
    lab = run()
    bars = charts.revision_map_data(lab.cluster.trace, "web").rows["bars"]
    reference = _revision_bars_by_frames(lab.cluster.trace, "web")
    assert len(bars) > 3 and any(b["syncs"].count("–") for b in bars)  # merged bars are there
    assert bars == reference
    assert [[type(v) for v in b.values()] for b in bars] == [[type(v) for v in b.values()] for b in reference]


def test_a_tables_raw_rows_are_the_rows_of_its_dataframe_and_an_unknown_table_is_named():
    lab = labs.UpdateLab()
    lab.set_image("nginx:2")
    trace = lab.cluster.trace
    for table in ("pods", "status", "syncs", "decisions"):
        rows = trace.table_rows(table)
        assert rows == trace.rows()[table] and len(rows) == len(getattr(trace, table)()) > 0
        rows.clear()  # a copy: the trace keeps its rows
        assert trace.table_rows(table)
    with pytest.raises(ValueError, match="no trace table 'pod'; the tables are: decisions, pods"):
        trace.table_rows("pod")
