"""The revision map: ordinal x sync, coloured by each pod's revision, with the partition drawn in.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

from .widget import alt  # first: imports Altair as the kit sets it up
import pandas as pd

from ..palette import PARTITION_COLOR
from . import common
from .chart_data import ChartData, axes_params, ordinals_of, records
from ..trace_tables import TablesOnce
from ..trace_tables import columns_of
from .common import (SEGMENT_COLUMNS, WIDTH, aggregate, chart_height, chart_title, ordinal_axis, ordinal_ticks, pick_set,
                     revision_colors, segment_rows, segment_runs, x_axis, x_extent, x_scale)
from ...i18n import N_, _


def _partition_line(trace, set_name: str, lo: float, hi: float) -> list[dict]:
    """The partition as a step line along the sync axis: points {x, y, partition}, y = partition - 0.5,
    one where the partition changes (at its sync - 0.5, not before *lo*) and one at *hi*.

    Empty unless some sync applied a partition above 0 (RollingUpdate only).
    """
    points: list[list] = []
    for sync, set_, partition in map(columns_of("status", "sync", "set", "partition"),
                                     TablesOnce.of(trace).table_rows("status")):
        if set_ == set_name and partition is not None and (not points or points[-1][1] != partition):
            points.append([float(sync) - 0.5, int(partition)])
    if not any(p > 0 for _, p in points):
        return []
    points.append([float(hi), points[-1][1]])
    return [{"x": float(max(x, lo)), "y": p - 0.5, "partition": p} for x, p in points]


REVISION_LOOKS = {
    "Ready": "M-1,-0.8H1V0.8H-1Z",                                      # a filled bar
    "not Ready": "M-1,-0.8H1V0.8H-1Z M-0.72,-0.52V0.52H0.72V-0.52Z",    # an outline (a ring)
    "terminating": "M-1,-0.22H-0.5V0.22H-1Z M-0.25,-0.22H0.25V0.22H-0.25Z M0.5,-0.22H1V0.22H0.5Z",  # dashes
}
"""How the revision map draws a pod's state apart from its revision's colour, as legend symbols (SVG paths):
Ready a filled bar, not Ready an outline, terminating a dashed line."""

LOOK_LABELS = {"Ready": N_("Ready"), "not Ready": N_("not Ready"), "terminating": N_("terminating")}
"""The looks as the legend words them, translated where it is drawn."""


_POD, _ORDINAL, _INCARNATION, _STATE, _REVISION, _FIRST_SYNC, _LAST_SYNC, _X0, _X1 = (
    SEGMENT_COLUMNS.index(c) for c in ("pod", "ordinal", "incarnation", "state", "revision", "first_sync",
                                       "last_sync", "x0", "x1"))


def _look(state: str) -> str:
    """How the revision map draws a pod in *state* (a key of :data:`REVISION_LOOKS`)."""
    return "terminating" if state == "Terminating" else "Ready" if state in ("Ready", "Available") else "not Ready"


def revision_bars(trace, set_name: str) -> list[dict]:
    """The revision map's bars: each pod's segments on the sync axis (:func:`segment_rows`) with their
    look, neighbours of one incarnation with the same revision and look merged (:func:`merge_segments`'
    rule), in (ordinal, incarnation, sync) order; one plain pass, no DataFrame."""
    rows = sorted(segment_rows(trace, set_name, "sync"), key=lambda r: (r[_ORDINAL], r[_INCARNATION], r[_X0]))
    looks = [_look(r[_STATE]) for r in rows]
    starts = segment_runs([r[_ORDINAL] for r in rows], [r[_INCARNATION] for r in rows], [r[_X0] for r in rows],
                          [r[_X1] for r in rows], [[r[_REVISION] for r in rows], looks])
    bars = []
    for a, b in zip(starts, [*starts[1:], len(rows)]):
        first, last = rows[a], rows[b - 1]
        o, s0, s1 = first[_ORDINAL], first[_FIRST_SYNC], last[_LAST_SYNC]
        bars.append({"pod": first[_POD], "ordinal": o, "revision": first[_REVISION], "look": looks[a],
                     "x0": first[_X0], "x1": last[_X1], "y0": o - 0.45, "y1": o + 0.45,
                     "syncs": f"{s0}" if s0 == s1 else f"{s0}–{s1}"})
    return bars


def revision_data(trace, set_name: str, since_sync: int | None = None) -> ChartData:
    """What :func:`revision_panel` draws (see :mod:`.chart_data`): each pod's revision sync by sync, the
    state's legend, and the partition when one was set.  *since_sync*: the x axis starts at that sync
    (bars cut there, the ordinal axis still every pod's), so that a few syncs after a long creation are
    not squeezed into the chart's edge; the subtitle says which syncs are left out."""
    bars = revision_bars(trace, set_name)
    colors = revision_colors(trace, set_name) if bars else {}
    lo, hi = x_extent(trace, "sync")
    o_lo, o_hi = (min(b["ordinal"] for b in bars), max(b["ordinal"] for b in bars)) if bars else (0, 0)
    subtitle = [_("colour = the pod's revision (first grey, next orange); "
                  "filled = Ready, outline = not Ready, dashed line = terminating")]
    if since_sync is not None and lo < since_sync - 0.5 < hi:
        first, lo = lo + 0.5, since_sync - 0.5
        bars = [dict(b, x0=max(b["x0"], lo)) for b in bars if b["x1"] > lo]
        subtitle.insert(0, _("syncs since the set came up: from sync {since} on (its creation, syncs "
                             "{first}–{last}, left out)").format(since=since_sync, first=f"{first:g}",
                                                                  last=since_sync - 1))
    ticks = ordinal_ticks(o_lo, o_hi)
    aggregated = common.outgrows(len(bars), o_hi - o_lo + 1)
    if aggregated:
        grid, how = aggregate(pd.DataFrame(bars), "revision", list(colors), lo, hi)
        rows = {"bars": records(grid)}
        subtitle = [how]
    else:
        rows = {"bars": bars, "key": [{"look": k, "x0": None, "y0": None} for k in REVISION_LOOKS]}
    part = _partition_line(trace, set_name, lo, hi)
    if part and any(o_lo - 0.5 <= p["y"] <= o_hi + 0.5 for p in part):
        rows["partition"] = part
        subtitle.append(_("purple line: the partition (now {partition}); only ordinals "
                          "at or above it are updated").format(partition=part[-1]['partition']))
    elif part:  # a partition above every pod's ordinal: its line would lie off the chart, so none is drawn
        subtitle.append(_("partition {partition}: above every ordinal shown, so no pod is updated").format(
            partition=part[-1]['partition']))
    return ChartData(build=revision_build,
                     structure=(set_name, tuple(colors.items()), aggregated, tuple(subtitle), ticks is None,
                                "partition" in rows),
                     rows=rows, params=axes_params(lo, hi, o_lo, o_hi, ticks),
                     width=WIDTH, height=chart_height(o_hi - o_lo + 1))


def revision_build(data: ChartData):
    """The revision map's Altair panel (no configuration) of *data*, made by :func:`revision_data`."""
    set_name, colors, aggregated, subtitle, _ticks, with_partition = data.structure
    colors = dict(colors)
    lo, hi = data.params["x"]
    o_lo, o_hi = ordinals_of(data)
    y_scale = alt.Scale(domain=data.params["y"], nice=False, zero=False)
    x_enc = alt.X("x0:Q", scale=x_scale(lo, hi), axis=x_axis("sync"))
    y_axis = ordinal_axis(set_name, lo=o_lo, hi=o_hi)  # on every layer: layered axes are merged
    y_enc = alt.Y("y0:Q", scale=y_scale, axis=y_axis)
    rev_scale = alt.Scale(domain=list(colors) or [""], range=list(colors.values()) or ["#BBBBBB"])
    color = alt.Color("revision:N", title=_("revision"), scale=rev_scale,
                      legend=alt.Legend(orient="right", labelLimit=220))
    if aggregated:
        layer = alt.Chart({"values": data.rows["bars"]}).mark_rect().encode(
            x=x_enc, x2=alt.X2("x1:Q"), y=y_enc, y2=alt.Y2("y1:Q"), color=color,
            tooltip=[alt.Tooltip("band:N", title=_("pods")), alt.Tooltip("revision:N"),
                     alt.Tooltip("pods:Q", title=_("pods at that revision")), alt.Tooltip("of:Q", title=_("pods in band")),
                     alt.Tooltip("x0:Q", title=_("syncs from"), format=".0f"),
                     alt.Tooltip("x1:Q", title=_("syncs to"), format=".0f")])
        layers, top_data = [layer], alt.Undefined
    else:
        # Revision and pod state on separate channels: the revision is the hue, the state is the form
        # (a filled bar, an outline, a dashed line).  A paler shade of the revision's colour for "not
        # Ready" made a Ready pod of the grey first revision read as "not Ready".
        looks = list(REVISION_LOOKS)
        ready_or_not = alt.FieldOneOfPredicate(field="look", oneOf=["Ready", "not Ready"])
        tip = [alt.Tooltip("pod:N"), alt.Tooltip("revision:N"), alt.Tooltip("look:N", title=_("pod is")),
               alt.Tooltip("syncs:N", title=_("syncs"))]
        bars = alt.Chart().transform_filter(ready_or_not).mark_rect(strokeWidth=2).encode(
            x=x_enc, x2=alt.X2("x1:Q"), y=y_enc, y2=alt.Y2("y1:Q"), color=color,
            stroke=alt.Stroke("revision:N", scale=rev_scale, legend=None),
            fillOpacity=alt.FillOpacity("look:N", scale=alt.Scale(domain=looks[:2], range=[1.0, 0.1]), legend=None),
            tooltip=tip)
        going = alt.Chart().transform_filter(alt.FieldEqualPredicate(field="look", equal="terminating")).mark_rule(
            strokeWidth=3, strokeDash=[5, 3]).encode(
            x=x_enc, x2=alt.X2("x1:Q"), y=alt.Y("ordinal:Q", scale=y_scale, axis=y_axis),
            color=alt.Color("revision:N", scale=rev_scale, legend=None), tooltip=tip)
        # The state's legend: Vega-Lite draws none for a rect's fill opacity, so invisible points (no
        # position) carry it, each form drawn as a filled symbol: a square, a square ring, three dashes.
        key = alt.Chart({"values": data.rows["key"]}).mark_point(
            filled=True, opacity=1, color="#555555").encode(
            x=alt.X("x0:Q", scale=x_scale(lo, hi)), y=alt.Y("y0:Q", scale=y_scale, axis=y_axis),
            shape=alt.Shape("look:N", title=_("pod"), scale=alt.Scale(domain=looks, range=list(REVISION_LOOKS.values())),
                            legend=alt.Legend(orient="right", labelExpr=common.label_expr(LOOK_LABELS))))
        layers, top_data = [bars, going, key], {"values": data.rows["bars"]}
    if with_partition:
        # A solid line in its own colour: a dashed one read as "terminating" (the dashes of a pod going
        # away), and text labels on it collided with the bars and the legend; its value is in the
        # tooltip and, at the end of the run, in the subtitle.
        line = alt.Chart({"values": data.rows["partition"]}).mark_line(
            interpolate="step-after", color=PARTITION_COLOR, strokeWidth=3, clip=True).encode(
            x=alt.X("x:Q", scale=x_scale(lo, hi)), y=alt.Y("y:Q", scale=y_scale, axis=y_axis),
            tooltip=[alt.Tooltip("partition:Q", title=_("partition"))])
        layers += [line]
    chart = alt.layer(*layers, data=top_data) if len(layers) > 1 else layers[0]
    return chart.properties(width=data.width, height=data.height,
                            title=chart_title(_("Revisions of {set}, sync by sync").format(set=set_name), *subtitle))


def revision_panel(trace, set_name: str):
    return revision_build(revision_data(trace, set_name))


def revision_map_data(trace, set_name: str | None = None, since_sync: int | None = None) -> ChartData:
    """:func:`revision_map`'s data without the chart: ``charts.revision_map_data(...).chart()`` is that chart."""
    trace = TablesOnce.of(trace)  # one DataFrame per table for this chart, or for the redraw (see there)
    return revision_data(trace, pick_set(trace, set_name), since_sync)


def revision_map(trace, set_name: str | None = None, since_sync: int | None = None):
    """Ordinal x sync, each cell coloured by the revision of the pod there after that sync.

    A rolling update shows as the new revision's colour sweeping down from
    the top ordinal, one pod at a time, and stopping at the partition (the
    solid purple line, drawn when a partition above 0 was set).  Revision colours
    follow :func:`revision_colors` (the first revision grey, the next orange);
    pale cells are pods not Ready, faint ones terminating, empty ones no pod.
    *since_sync*: show the syncs from that one on only (the ordinal axis keeps every pod).
    """
    return revision_map_data(trace, set_name, since_sync).chart()
