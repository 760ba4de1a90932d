"""The pod timeline: one row per ordinal, bars coloured by pod state.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

from .widget import alt  # first: imports Altair as the kit sets it up

from .. import tables
from ..palette import STATE_COLORS
from . import common
from .chart_data import ChartData, axes_params, ordinals_of, records
from ..trace_tables import TablesOnce
from .common import WIDTH, aggregate, chart_height, chart_title, check_x, ordinal_axis, ordinal_range, ordinal_ticks, pick_set, pod_segments, state_label_expr, until_time, x_axis, x_extent, x_scale
from ...i18n import _


def timeline_data(trace, set_name: str, x: str = "time", until: float | None = None) -> ChartData:
    """What :func:`timeline_panel` draws (see :mod:`.chart_data`): bars of pod states, or a grid of them."""
    check_x(x)
    end = until_time(trace, until) if x == "time" else None
    seg = pod_segments(trace, set_name, x, until=end)
    lo, hi = x_extent(trace, x, end)
    seen = set(seg["state"].tolist())
    present = tuple(s for s in tables.STATES if s in seen) or ("Pending",)
    o_lo, o_hi = ordinal_range(seg)
    ticks = ordinal_ticks(o_lo, o_hi)
    subtitle = _("one row per ordinal; colour = pod state; hover a bar for the change that began it")
    aggregated = common.outgrows(len(seg), o_hi - o_lo + 1)
    if aggregated:
        rows, subtitle = aggregate(seg, "state", list(tables.STATES), lo, hi)
    else:
        rows = seg.assign(y0=seg["ordinal"] - 0.38, y1=seg["ordinal"] + 0.38,
                          syncs=[f"{a}" if a == b else f"{a}–{b}" if b >= a else "–"
                                 for a, b in zip(seg["first_sync"].tolist(), seg["last_sync"].tolist())],
                          decision=seg["decision"].fillna(""), rule=seg["rule"].fillna(""))
        rows = rows[["pod", "ordinal", "state", "revision", "x0", "x1", "y0", "y1", "start", "end", "syncs",
                     "cause", "decision", "rule"]]
    return ChartData(build=timeline_build, structure=(set_name, x, present, aggregated, subtitle, ticks is None),
                     rows={"bars": records(rows)}, params=axes_params(lo, hi, o_lo, o_hi, ticks),
                     width=WIDTH, height=chart_height(o_hi - o_lo + 1))


def timeline_build(data: ChartData):
    """The pod timeline's Altair panel (no configuration) of *data*, made by :func:`timeline_data`."""
    set_name, x, present, aggregated, subtitle, _ticks = data.structure
    lo, hi = data.params["x"]
    o_lo, o_hi = ordinals_of(data)
    color = alt.Color("state:N", title=_("pod state"),
                      scale=alt.Scale(domain=list(present), range=[STATE_COLORS[s] for s in present]),
                      # "Running" alone reads as "fine": the state is a container running, not yet Ready
                      legend=alt.Legend(orient="right", labelExpr=state_label_expr()))
    y_scale = alt.Scale(domain=data.params["y"], nice=False, zero=False)
    base = alt.Chart({"values": data.rows["bars"]})
    position = {"x": alt.X("x0:Q", scale=x_scale(lo, hi), axis=x_axis(x)), "x2": alt.X2("x1:Q"),
                "y": alt.Y("y0:Q", scale=y_scale, axis=ordinal_axis(set_name, lo=o_lo, hi=o_hi)),
                "y2": alt.Y2("y1:Q"), "color": color}
    if aggregated:
        chart = base.mark_rect().encode(
            **position,
            tooltip=[alt.Tooltip("band:N", title=_("pods")), alt.Tooltip("state:N"),
                     alt.Tooltip("pods:Q", title=_("pods in that state")), alt.Tooltip("of:Q", title=_("pods in band")),
                     alt.Tooltip("x0:Q", title=_("time from") if x == "time" else _("sync from"), format=".1f"),
                     alt.Tooltip("x1:Q", title=_("time to") if x == "time" else _("sync to"), format=".1f")])
    else:
        chart = base.mark_rect(stroke="white", strokeWidth=1).encode(
            **position,
            tooltip=[alt.Tooltip("pod:N"), alt.Tooltip("state:N"), alt.Tooltip("revision:N"),
                     alt.Tooltip("start:Q", title=_("from (s)"), format=".1f"),
                     alt.Tooltip("end:Q", title=_("to (s)"), format=".1f"),
                     alt.Tooltip("syncs:N", title=_("syncs that saw it")),
                     alt.Tooltip("cause:N", title=_("changed by")), alt.Tooltip("decision:N"),
                     alt.Tooltip("rule:N")])
    return chart.properties(width=data.width, height=data.height,
                            title=chart_title((_("Pods of {set} over time") if x == "time" else _("Pods of {set} over syncs")).format(set=set_name),
                                              subtitle))


def timeline_panel(trace, set_name: str, x: str = "time", until: float | None = None):
    return timeline_build(timeline_data(trace, set_name, x, until))


def pod_timeline_data(trace, set_name: str | None = None, x: str = "time", until: float | None = None) -> ChartData:
    """:func:`pod_timeline`'s data without the chart: ``charts.pod_timeline_data(...).chart()`` is that chart."""
    trace = TablesOnce.of(trace)  # one DataFrame per table for this chart, or for the redraw (see there)
    return timeline_data(trace, pick_set(trace, set_name), x, until)


def pod_timeline(trace, set_name: str | None = None, x: str = "time", until: float | None = None):
    """One row per ordinal (the top ordinal on top), bars coloured by pod state over time.

    *x* is ``"time"`` (seconds on the clock) or ``"sync"`` (each bar covers
    the syncs that ended with the pod in that state).  States and colours:
    :data:`stsedu.tables.STATES`, :data:`STATE_COLORS`.  Tooltips name the
    change that began each bar and the controller decision behind it.
    With ``x="time"`` the axis ends at *until* (seconds; default: the
    cluster's clock now, or the trace's last change for a loaded trace), so
    the last state shows with its real width.
    Raise ValueError if the trace has several sets and *set_name* is None.
    """
    return pod_timeline_data(trace, set_name, x, until).chart()
