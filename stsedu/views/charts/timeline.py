"""The pod timeline: one row per ordinal, bars coloured by pod state.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

from .widget import alt  # first: imports Altair as the kit sets it up

from .. import tables
from ..palette import STATE_COLORS
from . import common
from .common import STATE_LABEL_EXPR, WIDTH, aggregate, chart_height, chart_title, check_x, ordinal_axis, ordinal_range, pick_set, pod_segments, until_time, with_config, x_axis, x_extent, x_scale


def timeline_panel(trace, set_name: str, x: str = "time", until: float | None = None):
    check_x(x)
    end = until_time(trace, until) if x == "time" else None
    seg = pod_segments(trace, set_name, x, until=end)
    lo, hi = x_extent(trace, x, end)
    seen = set(seg["state"].tolist())
    present = [s for s in tables.STATES if s in seen] or ["Pending"]
    color = alt.Color("state:N", title="pod state",
                      scale=alt.Scale(domain=present, range=[STATE_COLORS[s] for s in present]),
                      # "Running" alone reads as "fine": the state is a container running, not yet Ready
                      legend=alt.Legend(orient="right", labelExpr=STATE_LABEL_EXPR))
    o_lo, o_hi = ordinal_range(seg)
    y_scale = alt.Scale(domain=[o_lo - 0.5, o_hi + 0.5], nice=False, zero=False)
    n_ord = o_hi - o_lo + 1
    subtitle = "one row per ordinal; colour = pod state; hover a bar for the change that began it"
    if len(seg) > common.MAX_ROWS:
        grid, how = aggregate(seg, "state", list(tables.STATES), lo, hi)
        chart = alt.Chart(grid).mark_rect().encode(
            x=alt.X("x0:Q", scale=x_scale(lo, hi), axis=x_axis(x)), x2=alt.X2("x1:Q"),
            y=alt.Y("y0:Q", scale=y_scale, axis=ordinal_axis(set_name, lo=o_lo, hi=o_hi)), y2=alt.Y2("y1:Q"),
            color=color,
            tooltip=[alt.Tooltip("band:N", title="pods"), alt.Tooltip("state:N"),
                     alt.Tooltip("pods:Q", title="pods in that state"), alt.Tooltip("of:Q", title="pods in band"),
                     alt.Tooltip("x0:Q", title=f"{x} from", format=".1f"),
                     alt.Tooltip("x1:Q", title=f"{x} to", format=".1f")])
        subtitle = how
    else:
        data = seg.assign(y0=seg["ordinal"] - 0.38, y1=seg["ordinal"] + 0.38,
                          syncs=[f"{a}" if a == b else f"{a}–{b}" if b >= a else "–"
                                 for a, b in zip(seg["first_sync"].tolist(), seg["last_sync"].tolist())],
                          decision=seg["decision"].fillna(""), rule=seg["rule"].fillna(""))
        data = data[["pod", "ordinal", "state", "revision", "x0", "x1", "y0", "y1", "start", "end", "syncs",
                     "cause", "decision", "rule"]]
        chart = alt.Chart(data).mark_rect(stroke="white", strokeWidth=1).encode(
            x=alt.X("x0:Q", scale=x_scale(lo, hi), axis=x_axis(x)), x2=alt.X2("x1:Q"),
            y=alt.Y("y0:Q", scale=y_scale, axis=ordinal_axis(set_name, lo=o_lo, hi=o_hi)), y2=alt.Y2("y1:Q"),
            color=color,
            tooltip=[alt.Tooltip("pod:N"), alt.Tooltip("state:N"), alt.Tooltip("revision:N"),
                     alt.Tooltip("start:Q", title="from (s)", format=".1f"),
                     alt.Tooltip("end:Q", title="to (s)", format=".1f"),
                     alt.Tooltip("syncs:N", title="syncs that saw it"),
                     alt.Tooltip("cause:N", title="changed by"), alt.Tooltip("decision:N"),
                     alt.Tooltip("rule:N")])
    return chart.properties(width=WIDTH, height=chart_height(n_ord),
                            title=chart_title(f"Pods of {set_name} over " + ("time" if x == "time" else "syncs"),
                                         subtitle))


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
    return with_config(timeline_panel(trace, pick_set(trace, set_name), x, until))
