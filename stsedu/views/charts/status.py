"""The status counters: one lane per status field as step lines, ``spec.replicas`` for reference.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

from .widget import alt  # first: imports Altair as the kit sets it up
import pandas as pd

from .. import tables
from ..palette import COUNTER_COLORS, SPEC_COLOR
from . import common
from .chart_data import ChartData, records
from .common import WIDTH, chart_title, check_x, pick_set, x_axis, x_extent, x_scale
from ..trace_tables import TablesOnce
from ...i18n import _


COUNTER_TITLES = {"spec_replicas": "spec.replicas", "replicas": "replicas", "ready": "readyReplicas",
                  "available": "availableReplicas", "current": "currentReplicas", "updated": "updatedReplicas"}
"""Status frame column -> the field name a learner sees in ``kubectl get sts -o yaml``."""

LANE_PX = 46
"""Height of one counter's lane in :func:`status_counters`."""


def _status_data(trace, set_name: str, x: str, lo: float, hi: float) -> tuple[pd.DataFrame, str]:
    """The status rows where some counter (or spec.replicas) changed, with ``x``, closed at the right edge."""
    st = tables.status_frame(trace, set_name)
    cols = ["spec_replicas", *tables.COUNTERS]
    if st.empty:
        return pd.DataFrame(columns=["x", "sync", "time", *cols]), ""
    changed = st[cols].ne(st[cols].shift()).any(axis=1)
    data = st[changed].copy()
    data["x"] = data["sync"].astype(float) - 0.5 if x == "sync" else data["time"].astype(float)
    # several syncs at one instant: only the last one's status lasts (a step needs one value per x)
    data = data.drop_duplicates("x", keep="last")
    how = ""
    if len(data) >= common.MAX_ROWS:  # >=: the row carried to the right edge below must fit too
        n = max(1, common.MAX_ROWS - 1)
        step = (hi - lo) / n
        b = ((data["x"] - lo) // step).clip(upper=n - 1).astype(int)
        data = data.assign(bin=b).drop_duplicates("bin", keep="last").drop(columns="bin")
        how = _("aggregated: the status at the end of each of {n} equal stretches of the x axis").format(n=n)
    if data["x"].iloc[-1] < hi:  # carry the last status to the right edge
        data = pd.concat([data, data.iloc[[-1]].assign(x=hi)], ignore_index=True)
    return data[["x", "sync", "time", *cols]].reset_index(drop=True), how


def _top(data: pd.DataFrame) -> int:
    """The top of every lane's y axis: the most any counter (or spec.replicas) reached, at least 1."""
    values = data[["spec_replicas", *tables.COUNTERS]].to_numpy()
    return int(max(1, values.max() if values.size else 1))


def _title(set_name: str, x: str, how: str):
    subtitle = how or _("one lane per status field, as each sync computed it; "
                        "dashed: spec.replicas, the number asked for")
    title = _("Status of {set} over time") if x == "time" else _("Status of {set} over syncs")
    return chart_title(title.format(set=set_name), subtitle)


def _lane_layers(x: str, lo: float, hi: float, top: int) -> list[list]:
    """One [area, spec, line] per counter, on an x axis from *lo* to *hi* and a y axis from 0 to *top*;
    the layers carry no data."""
    xenc = alt.X("x:Q", scale=x_scale(lo, hi))
    lanes = []
    for k, c in enumerate(tables.COUNTERS):
        name = COUNTER_TITLES[c]
        last = k == len(tables.COUNTERS) - 1
        axis_x = x_axis(x) if last else None
        # the ticks listed top first: the same two ticks as [0, top], and a list apart from the scale's
        # domain, so that a redraw can send each as its own value (chart_data.ChartData.params)
        y = alt.Y(f"{c}:Q", scale=alt.Scale(domain=[0, top], nice=False), stack=None,
                  axis=alt.Axis(values=[top, 0], title=name, titleAngle=0, titleAlign="right",
                                titleBaseline="middle", titleY=LANE_PX / 2, titleX=-14 - 8 * len(str(top)),
                                titleFontWeight="bold", titleColor=COUNTER_COLORS[c], domain=False, ticks=False,
                                grid=True, gridOpacity=0.35))
        tip = [alt.Tooltip(f"{c}:Q", title=name), alt.Tooltip("spec_replicas:Q", title="spec.replicas"),
               alt.Tooltip("sync:Q", title=_("since sync")), alt.Tooltip("time:Q", title=_("since (s)"), format=".1f")]
        base = alt.Chart()
        area = base.mark_area(interpolate="step-after", color=COUNTER_COLORS[c], opacity=0.22, clip=True).encode(
            x=xenc.axis(axis_x), y=y)
        line = base.mark_line(interpolate="step-after", color=COUNTER_COLORS[c], strokeWidth=2.5).encode(
            x=xenc.axis(axis_x), y=y, tooltip=tip)
        spec = base.mark_line(interpolate="step-after", color=SPEC_COLOR, strokeWidth=1.5, strokeDash=[6, 4]).encode(
            x=xenc.axis(axis_x), y=alt.Y("spec_replicas:Q", scale=alt.Scale(domain=[0, top], nice=False)))
        lanes.append([area, spec, line])
    return lanes


def status_layers(trace, set_name: str, x: str = "time", until: float | None = None):
    """The status lanes' parts: (data, one [area, spec, line] per counter, title); the layers carry no data."""
    check_x(x)
    lo, hi = x_extent(trace, x, until)
    data, how = _status_data(trace, set_name, x, lo, hi)
    return data, _lane_layers(x, lo, hi, _top(data)), _title(set_name, x, how)


def status_data(trace, set_name: str, x: str = "time", until: float | None = None) -> ChartData:
    """What :func:`status_build` draws (see :mod:`.chart_data`): the status rows, the x extent and the lanes' top."""
    check_x(x)
    lo, hi = x_extent(trace, x, until)
    data, how = _status_data(trace, set_name, x, lo, hi)
    top = _top(data)
    # no size of its own: the lanes have theirs (a vconcat's width and height are not the spec's top level)
    return ChartData(build=status_build, structure=(set_name, x, how, len(str(top))), rows={"status": records(data)},
                     params={"x": [lo, hi], "y": [0, top], "yticks": [top, 0]}, width=None, height=None)


def status_build(data: ChartData):
    """The status counters' Altair chart (no configuration) of *data*, made by :func:`status_data`."""
    set_name, x, how, _digits = data.structure
    lo, hi = data.params["x"]
    rows = {"values": data.rows["status"]}
    lanes = [alt.layer(*layers, data=rows).properties(width=WIDTH, height=LANE_PX)
             for layers in _lane_layers(x, lo, hi, data.params["y"][1])]
    return alt.vconcat(*lanes, spacing=6).properties(title=_title(set_name, x, how))


def status_counters_data(trace, set_name: str | None = None, x: str = "time", until: float | None = None) -> ChartData:
    """:func:`status_counters`' data without the chart: ``charts.status_counters_data(...).chart()`` is that chart."""
    trace = TablesOnce.of(trace)  # one DataFrame per table for this chart, or for the redraw
    return status_data(trace, pick_set(trace, set_name), x, until)


def status_lanes(trace, set_name: str, x: str = "time", until: float | None = None):
    """One small step chart per counter, same x; returns (lanes, title)."""
    data, lanes, title = status_layers(trace, set_name, x, until)
    return [alt.layer(*layers, data=data).properties(width=WIDTH, height=LANE_PX) for layers in lanes], title


def status_counters(trace, set_name: str | None = None, x: str = "time", until: float | None = None):
    """The status counters (replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas) over time.

    One lane per counter, each a step line (with a light fill) of the status
    the syncs computed, and spec.replicas dashed in every lane for reference.
    Only the corners of the steps are kept (unchanged syncs are dropped).
    *x* is ``"time"`` or ``"sync"``; a time axis ends at *until* (default:
    now, as in :func:`pod_timeline`), the last status carried to it.
    """
    return status_counters_data(trace, set_name, x, until).chart()
