"""Issue 26 item 5: a lab's redraw computes its chart's data and, when the chart's structure is the one
on screen, sends the new rows and numbers alone, building no Altair object; what it sends is what a
full redraw of the same run would have changed."""

from __future__ import annotations

import altair as alt
import pytest

from stsedu import charts, examples, labs
from stsedu.views.charts.chart_data import ChartData
from stsedu.views.charts.spec_patch import split

CHANGES = {
    "ScalingLab": lambda lab, k: lab.scale(2 if k % 2 == 0 else 3),
    "UpdateLab": lambda lab, k: lab.set_image(("nginx:2", "nginx:1")[k % 2]),
    "StepLab": lambda lab, k: lab.sync_once(),
    "FaultLab": lambda lab, k: lab.set_image(("nginx:2", "nginx:1")[k % 2]),
    # issue 41: its status counters were built whole in Altair on every change (259 ms of a 288 ms redraw)
    "AvailabilityLab": lambda lab, k: lab.set_max_unavailable(2 if k % 2 == 0 else 1),
}


def _full(lab):
    """The lab's chart built from scratch by its chart function, split as the widget splits a spec."""
    return split(charts.to_spec(lab.chart.fn(lab.cluster.trace, lab.name)))


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_same_structure_redraw_builds_no_altair_chart_and_sends_what_a_full_redraw_would(name, monkeypatch):
    lab = getattr(labs, name)()
    change = CHANGES[name]
    change(lab, 0)
    change(lab, 1)  # both revisions (or states) seen: the next changes keep the structure
    widget = lab.chart.widget
    base = widget._base

    def no_altair(*a, **k):
        raise AssertionError("an Altair chart was built for a redraw of the same structure")

    for k in range(2, 5):
        with monkeypatch.context() as m:
            m.setattr(alt.Chart, "__init__", no_altair)
            m.setattr(alt.LayerChart, "__init__", no_altair)
            change(lab, k)
        _, skeleton, values = _full(lab)
        assert widget._base is base, "the page redrew a new view"
        assert skeleton == widget._skeleton
        assert widget._patch == values, f"change {k}: the values sent differ from a full redraw's"
        assert widget.spec == charts.to_spec(lab.chart.fn(lab.cluster.trace, lab.name))


def test_a_new_structure_draws_the_chart_anew():
    lab = labs.UpdateLab()
    base = lab.chart.widget._base
    lab.set_image("nginx:2")  # a new revision: a new colour in the legend
    assert lab.chart.widget._base is not base
    drawn, _, _ = _full(lab)
    assert lab.chart.widget._base == drawn and lab.chart.widget._patch == {}


def _two_tables(data):
    return alt.hconcat(*(alt.Chart({"values": rows}).mark_point().encode(x="a:Q") for rows in data.rows.values()))


def test_data_whose_parts_the_spec_merges_is_always_drawn_whole():
    """Two datasets with equal rows are one dataset in the spec: sending them apart is impossible, so the
    widget draws such a chart whole, and the next one too."""
    same = ChartData(build=_two_tables, structure=("t",), rows={"a": [{"a": 1}], "b": [{"a": 1}]}, params={},
                     width=100, height=100)
    w = charts.ChartWidget()
    w.show(same)
    first = w._base
    w.show(ChartData(build=_two_tables, structure=("t",), rows={"a": [{"a": 1}], "b": [{"a": 2}]}, params={},
                     width=100, height=100))
    assert w._base is not first and sorted(len(v) for v in w._base["datasets"].values()) == [1, 1]


def test_every_chart_function_with_data_is_its_data_drawn():
    lab = labs.UpdateLab(examples.web(4))
    lab.set_image("nginx:2")
    trace = lab.cluster.trace
    for fn in ("pod_timeline", "revision_map", "decision_strip", "status_counters"):
        chart, data = getattr(charts, fn)(trace), getattr(charts, f"{fn}_data")(trace)
        assert charts.to_spec(chart) == charts.to_spec(data.chart()), fn
        chart.to_dict()  # and the spec is valid Vega-Lite (Altair's full check)


@pytest.mark.parametrize("fn", [charts.pod_timeline_data, charts.revision_map_data, charts.decision_strip_data,
                                charts.status_counters_data])
def test_a_chart_data_function_reads_each_trace_table_once(fn, monkeypatch):
    """Issue 26 item 5: the set's name, the trace's end, the pod segments, the revision colours and the
    partition line of one redraw read each trace table once (as a DataFrame or as its raw rows), not
    once each."""
    lab = labs.UpdateLab(examples.web(4))
    lab.set_image("nginx:2")
    trace = lab.cluster.trace
    built: dict[str, int] = {}
    for table in ("pods", "status", "syncs", "decisions"):
        real = getattr(trace, table)

        def counted(*a, _real=real, _table=table, **k):
            built[_table] = built.get(_table, 0) + 1
            return _real(*a, **k)
        monkeypatch.setattr(trace, table, counted)
    real_rows = trace.table_rows

    def counted_rows(table):
        built[table] = built.get(table, 0) + 1
        return real_rows(table)
    monkeypatch.setattr(trace, "table_rows", counted_rows)
    expected = fn(trace, "web")
    assert built and max(built.values()) == 1, built
    monkeypatch.undo()
    assert fn(trace, "web").rows == expected.rows


@pytest.mark.parametrize("name, change", [
    ("ScalingLab", lambda lab, k: lab.scale(lab.manifest["spec"]["replicas"] - 1 + k % 2)),  # pod timeline
    ("OnDeleteLab", lambda lab, k: lab.set_image(("nginx:2", "nginx:1")[k % 2])),  # revision map
    ("ProfileLab", lambda lab, k: lab.scale(lab.manifest["spec"]["replicas"] - 1 + k % 2)),  # decision strip
])
def test_an_aggregated_chart_keeps_its_structure_from_one_change_to_the_next(name, change):
    """Issue 41: a set too big to draw a row a pod is drawn as a grid of bands and bins, whose subtitle said
    the bins' width ("x in 50 bins of 30.4") or the decisions counted: numbers that move with every change,
    so at 500 replicas each change drew a new view in the page (and built a new Altair chart in the kernel).
    The subtitle now says how the grid is made, the numbers that move being on the axes and in the tooltips;
    after a first change the next ones send only values."""
    cls = getattr(labs, name)
    m = cls.default_manifest(object.__new__(cls))
    m["spec"]["replicas"] = 300
    lab = cls(m)
    change(lab, 0)
    change(lab, 1)
    assert "aggregated" in str(lab.chart.widget.spec["title"])
    base = lab.chart.widget._base
    for k in range(2, 4):
        change(lab, k)
        assert lab.chart.widget._base is base, f"change {k} drew a new view"
