"""The revision map: ordinal x sync, coloured by each pod's revision, with the partition drawn in.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

from .widget import alt  # first: imports Altair as the kit sets it up
import numpy as np
import pandas as pd

from .. import tables
from ..palette import PARTITION_COLOR
from . import common
from .chart_data import ChartData, axes_params, ordinals_of, records
from ..trace_tables import TablesOnce
from .common import WIDTH, aggregate, chart_height, chart_title, merge_segments, ordinal_axis, ordinal_range, ordinal_ticks, pick_set, pod_segments, revision_colors, x_axis, x_extent, x_scale


def _partition_line(trace, set_name: str, lo: float, hi: float) -> pd.DataFrame:
    """The partition as a step line along the sync axis: points (x, y, partition), y = partition - 0.5.

    Empty unless some sync applied a partition above 0 (RollingUpdate only).
    """
    st = tables.status_frame(trace, set_name)
    st = st[st["partition"].notna()]
    if st.empty or not (st["partition"] > 0).any():
        return pd.DataFrame(columns=["x", "y", "partition"])
    part = st["partition"].astype(int)
    keep = part.ne(part.shift())
    pts = pd.DataFrame({"x": st.loc[keep, "sync"].astype(float) - 0.5, "partition": part[keep]})
    pts = pd.concat([pts, pd.DataFrame({"x": [hi], "partition": [int(part.iloc[-1])]})], ignore_index=True)
    pts["x"] = pts["x"].clip(lower=lo)
    return pts.assign(y=pts["partition"] - 0.5)[["x", "y", "partition"]]


REVISION_LOOKS = {
    "Ready": "M-1,-0.8H1V0.8H-1Z",                                      # a filled bar
    "not Ready": "M-1,-0.8H1V0.8H-1Z M-0.72,-0.52V0.52H0.72V-0.52Z",    # an outline (a ring)
    "terminating": "M-1,-0.22H-0.5V0.22H-1Z M-0.25,-0.22H0.25V0.22H-0.25Z M0.5,-0.22H1V0.22H0.5Z",  # dashes
}
"""How the revision map draws a pod's state apart from its revision's colour, as legend symbols (SVG paths):
Ready a filled bar, not Ready an outline, terminating a dashed line."""


def revision_data(trace, set_name: str) -> ChartData:
    """What :func:`revision_panel` draws (see :mod:`.chart_data`): each pod's revision sync by sync, the
    state's legend, and the partition when one was set."""
    seg = pod_segments(trace, set_name, "sync")
    if not seg.empty:
        seg = seg.assign(look=np.where(seg["state"] == "Terminating", "terminating",
                                       np.where(seg["state"].isin(["Ready", "Available"]), "Ready", "not Ready")))
        seg = merge_segments(seg, ("revision", "look"))
    colors = revision_colors(trace, set_name) if not seg.empty else {}
    lo, hi = x_extent(trace, "sync")
    o_lo, o_hi = ordinal_range(seg)
    ticks = ordinal_ticks(o_lo, o_hi)
    subtitle = ["colour = the pod's revision (first grey, next orange); "
                "filled = Ready, outline = not Ready, dashed line = terminating"]
    aggregated = len(seg) > common.MAX_ROWS
    if aggregated:
        grid, how = aggregate(seg, "revision", list(colors), lo, hi)
        rows = {"bars": records(grid)}
        subtitle = [how]
    else:
        data = seg.assign(y0=seg["ordinal"] - 0.45, y1=seg["ordinal"] + 0.45,
                          syncs=[f"{a}" if a == b else f"{a}–{b}"
                                 for a, b in zip(seg["first_sync"].tolist(), seg["last_sync"].tolist())])
        data = data.reindex(columns=["pod", "ordinal", "revision", "look", "x0", "x1", "y0", "y1", "syncs"])
        rows = {"bars": records(data), "key": [{"look": k, "x0": None, "y0": None} for k in REVISION_LOOKS]}
    part = _partition_line(trace, set_name, lo, hi)
    if not part.empty:
        rows["partition"] = records(part)
        subtitle.append(f"purple line: the partition (now {int(part['partition'].iloc[-1])}); only ordinals "
                        "at or above it are updated")
    return ChartData(build=revision_build,
                     structure=(set_name, tuple(colors.items()), aggregated, tuple(subtitle), ticks is None,
                                "partition" in rows),
                     rows=rows, params=axes_params(lo, hi, o_lo, o_hi, ticks),
                     width=WIDTH, height=chart_height(o_hi - o_lo + 1))


def revision_build(data: ChartData):
    """The revision map's Altair panel (no configuration) of *data*, made by :func:`revision_data`."""
    set_name, colors, aggregated, subtitle, _, with_partition = data.structure
    colors = dict(colors)
    lo, hi = data.params["x"]
    o_lo, o_hi = ordinals_of(data)
    y_scale = alt.Scale(domain=data.params["y"], nice=False, zero=False)
    x_enc = alt.X("x0:Q", scale=x_scale(lo, hi), axis=x_axis("sync"))
    y_axis = ordinal_axis(set_name, lo=o_lo, hi=o_hi)  # on every layer: layered axes are merged
    y_enc = alt.Y("y0:Q", scale=y_scale, axis=y_axis)
    rev_scale = alt.Scale(domain=list(colors) or [""], range=list(colors.values()) or ["#BBBBBB"])
    color = alt.Color("revision:N", title="revision", scale=rev_scale,
                      legend=alt.Legend(orient="right", labelLimit=220))
    if aggregated:
        layer = alt.Chart({"values": data.rows["bars"]}).mark_rect().encode(
            x=x_enc, x2=alt.X2("x1:Q"), y=y_enc, y2=alt.Y2("y1:Q"), color=color,
            tooltip=[alt.Tooltip("band:N", title="pods"), alt.Tooltip("revision:N"),
                     alt.Tooltip("pods:Q", title="pods at that revision"), alt.Tooltip("of:Q", title="pods in band"),
                     alt.Tooltip("x0:Q", title="syncs from", format=".0f"),
                     alt.Tooltip("x1:Q", title="syncs to", format=".0f")])
        layers, top_data = [layer], alt.Undefined
    else:
        # Revision and pod state on separate channels: the revision is the hue, the state is the form
        # (a filled bar, an outline, a dashed line).  A paler shade of the revision's colour for "not
        # Ready" made a Ready pod of the grey first revision read as "not Ready".
        looks = list(REVISION_LOOKS)
        ready_or_not = alt.FieldOneOfPredicate(field="look", oneOf=["Ready", "not Ready"])
        tip = [alt.Tooltip("pod:N"), alt.Tooltip("revision:N"), alt.Tooltip("look:N", title="pod is"),
               alt.Tooltip("syncs:N", title="syncs")]
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
            shape=alt.Shape("look:N", title="pod", scale=alt.Scale(domain=looks, range=list(REVISION_LOOKS.values())),
                            legend=alt.Legend(orient="right")))
        layers, top_data = [bars, going, key], {"values": data.rows["bars"]}
    if with_partition:
        # A solid line in its own colour: a dashed one read as "terminating" (the dashes of a pod going
        # away), and text labels on it collided with the bars and the legend; its value is in the
        # tooltip and, at the end of the run, in the subtitle.
        line = alt.Chart({"values": data.rows["partition"]}).mark_line(
            interpolate="step-after", color=PARTITION_COLOR, strokeWidth=3, clip=True).encode(
            x=alt.X("x:Q", scale=x_scale(lo, hi)), y=alt.Y("y:Q", scale=y_scale, axis=y_axis),
            tooltip=[alt.Tooltip("partition:Q", title="partition")])
        layers += [line]
    chart = alt.layer(*layers, data=top_data) if len(layers) > 1 else layers[0]
    return chart.properties(width=data.width, height=data.height,
                            title=chart_title(f"Revisions of {set_name}, sync by sync", *subtitle))


def revision_panel(trace, set_name: str):
    return revision_build(revision_data(trace, set_name))


def revision_map_data(trace, set_name: str | None = None) -> ChartData:
    """:func:`revision_map`'s data without the chart: ``charts.revision_map_data(...).chart()`` is that chart."""
    trace = TablesOnce.of(trace)  # one DataFrame per table for this chart, or for the redraw (see there)
    return revision_data(trace, pick_set(trace, set_name))


def revision_map(trace, set_name: str | None = None):
    """Ordinal x sync, each cell coloured by the revision of the pod there after that sync.

    A rolling update shows as the new revision's colour sweeping down from
    the top ordinal, one pod at a time, and stopping at the partition (the
    solid purple line, drawn when a partition above 0 was set).  Revision colours
    follow :func:`revision_colors` (the first revision grey, the next orange);
    pale cells are pods not Ready, faint ones terminating, empty ones no pod.
    """
    return revision_map_data(trace, set_name).chart()
