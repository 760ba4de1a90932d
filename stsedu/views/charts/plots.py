"""Altair charts of a trace: pods, revisions, status and decisions over time.

Every chart is a pure function of a :class:`~stsedu.trace.Trace` (the data
comes from :mod:`stsedu.tables`) and returns an Altair chart without
displaying it; ``chart.to_dict()`` is its full specification, data included.

* :func:`pod_timeline`: one row per ordinal, bars coloured by pod state;
* :func:`revision_map`: ordinal x sync, coloured by the pod's revision, with
  the partition drawn in;
* :func:`status_counters`: the status counters as step lines, with
  ``spec.replicas`` for reference;
* :func:`decision_strip`: what each sync did, and to which pod;
* :func:`overview`: all four, stacked on one sync axis, linked by hovering.

Colours come from :mod:`stsedu.palette`, the same in every chart and table.
Large runs (thousands of pods or syncs) are aggregated in pandas before
charting, so no chart carries more than :data:`MAX_ROWS` rows in a dataset,
Altair's 5,000-row limit is never hit, and the chart's subtitle says how it
was aggregated.

:class:`ChartWidget` shows a chart and redraws it in place; its Vega
JavaScript is shipped in the package, so charts draw with no network and no
vl-convert.  In JupyterLab, call :func:`enable_offline` once so that a chart
at the end of a cell is shown the same way (Altair 6's default renderer loads
Vega from a CDN, and its mimetype renderer shows nothing in JupyterLab 4; see
docs/charts.md).  :func:`save` writes HTML and JSON with the kit alone, and
PNG, SVG or PDF with the optional vl-convert-python (``stsedu[export]``).
"""

from __future__ import annotations

import math

from .widget import EXPORT_HINT, ChartWidget, alt, enable_offline, save, to_spec  # first: imports Altair
from altair.utils.schemapi import debug_mode
import numpy as np
import pandas as pd

from .. import tables
from .queue import queue_flow, queue_flow_data
from ..palette import (ACTION_COLORS, ACTION_SHAPES, COUNTER_COLORS, PARTITION_COLOR, REVISION_COLORS,
                      SPEC_COLOR, STATE_COLORS)

__all__ = ["queue_flow", "queue_flow_data", "pod_timeline", "revision_map", "status_counters", "decision_strip", "overview",
           "ChartWidget", "to_spec", "enable_offline", "save", "EXPORT_HINT", "revision_colors", "STATE_COLORS", "ACTION_COLORS",
           "ACTION_SHAPES", "REVISION_COLORS", "COUNTER_COLORS", "MAX_ROWS"]

MAX_ROWS = 2000
"""Most rows any dataset of any chart holds: larger runs are aggregated first (Altair refuses above 5,000)."""

WIDTH = 640
"""Width of every chart's plot area, in pixels (readable on a projector at 100%)."""

ROW_PX = 26
"""Height of one ordinal's row in the pod charts, until the chart reaches :data:`MAX_HEIGHT`."""
MAX_HEIGHT = 420
N_BANDS = 40
"""Ordinal bands when a large run is aggregated."""
N_BINS = 50
"""Time or sync bins when a large run is aggregated."""

FONT = "sans-serif"


# ------------------------------------------------------------------ plumbing


def _pick_set(trace, set_name: str | None) -> str:
    """The set a chart is about: *set_name*, or the trace's only set (raise ValueError otherwise)."""
    names = []
    for frame in (trace.syncs(), trace.pods()):
        if not frame.empty:
            for n in frame["set"].dropna().tolist():
                if n not in names:
                    names.append(n)
    if set_name is not None:
        if set_name not in names:
            raise ValueError(f"the trace has no StatefulSet {set_name!r}; it has: {', '.join(names) or 'none'}")
        return set_name
    if len(names) == 1:
        return names[0]
    if not names:
        raise ValueError("the trace is empty: apply a StatefulSet and sync it first")
    raise ValueError(f"the trace has several StatefulSets ({', '.join(names)}): pass set_name=")


CONFIG = dict(
    font=FONT,
    axis=alt.AxisConfig(labelFontSize=13, titleFontSize=14, titleFontWeight="normal", grid=False),
    legend=alt.LegendConfig(labelFontSize=13, titleFontSize=14, symbolSize=160),
    title=alt.TitleConfig(fontSize=18, subtitleFontSize=13, subtitleColor="#444444", anchor="start", offset=8),
    view=alt.ViewConfig(stroke=None),
    padding={"left": 12, "right": 28, "top": 6, "bottom": 6},  # browsers' fonts run wider than vl-convert's
)
"""Teaching defaults: large fonts, titles on the left, no frame around the plot."""


def _configure(chart):
    """Apply :data:`CONFIG` (one ``configure`` call: each call copies the whole chart)."""
    return chart.configure(**CONFIG)


def _title(text: str, *subtitle: str) -> alt.TitleParams:
    return alt.TitleParams(text=text, subtitle=[s for s in subtitle if s])


def revision_colors(trace, set_name: str | None = None) -> dict[str, str]:
    """Revision name -> colour, by order of first appearance (the first grey, the second orange, ...).

    The same trace gives the same colours in every chart.
    """
    set_name = _pick_set(trace, set_name)
    order: list[tuple[int, int, str]] = []
    pods = trace.pods()
    pods = pods[(pods["set"] == set_name) & (pods["revision"] != "")]
    for s, r in zip(pods["sync"].tolist(), pods["revision"].tolist()):
        order.append((int(s), 1, r))
    st = trace.status()
    st = st[st["set"] == set_name]
    for s, cur, upd in zip(st["sync"].tolist(), st["current_revision"].tolist(), st["update_revision"].tolist()):
        order += [(int(s), 0, cur), (int(s), 0, upd)]
    names: list[str] = []
    for _, _, r in sorted(order, key=lambda x: (x[0], x[1])):
        if r and r not in names:
            names.append(r)
    return {r: REVISION_COLORS[i % len(REVISION_COLORS)] for i, r in enumerate(names)}


AXIS_ORDINALS = 26
"""Up to this many ordinals, the ordinal axis labels every one of them (rows stay at least
16 px apart: :data:`MAX_HEIGHT` / 26), with no label hidden as "overlapping"."""


def _ordinal_axis(set_name: str, title: str | None = None, lo: int | None = None,
                  hi: int | None = None) -> alt.Axis:
    """A y axis of ordinals labelled like pod names (the top ordinal at the top).

    Labels sit on whole ordinals only (``web-0``, never ``web-0.5``): every
    ordinal *lo*..*hi* when there are few, else the axis's own ticks with
    the ones between ordinals left unlabelled.
    """
    values = list(range(lo, hi + 1)) if lo is not None and hi is not None and hi - lo < AXIS_ORDINALS \
        else alt.Undefined
    return alt.Axis(title=title, tickMinStep=1, format="d", values=values,
                    labelExpr=f"datum.value % 1 ? '' : '{set_name}-' + datum.value",
                    labelOverlap=alt.Undefined if values is alt.Undefined else False,
                    grid=False, domain=False, ticks=False, labelPadding=6)


def _height(n_rows: int) -> int:
    return int(min(MAX_HEIGHT, max(90, ROW_PX * n_rows)))


def _ordinal_range(segments: pd.DataFrame) -> tuple[int, int]:
    if segments.empty:
        return 0, 0
    return int(segments["ordinal"].min()), int(segments["ordinal"].max())


def _sync_range(trace) -> tuple[int, int]:
    syncs = trace.syncs()
    if syncs.empty:
        return 0, 1
    return int(syncs["sync"].min()), int(syncs["sync"].max())


def _merge(seg: pd.DataFrame, key: tuple[str, ...]) -> pd.DataFrame:
    """Merge neighbouring segments of one pod incarnation that agree on every column in *key*."""
    if seg.empty:
        return seg
    seg = seg.sort_values(["ordinal", "incarnation", "x0"], kind="stable").reset_index(drop=True)
    same = seg["ordinal"].eq(seg["ordinal"].shift()) & seg["incarnation"].eq(seg["incarnation"].shift())
    for k in key:
        same &= seg[k].eq(seg[k].shift())
    same &= seg["x0"].le(seg["x1"].shift())
    group = (~same).cumsum()
    how = {c: "first" for c in seg.columns}
    how.update({c: "last" for c in ("x1", "end", "last_sync", "sync_end", "ongoing")})
    return seg.groupby(group, sort=False).agg(how).reset_index(drop=True)


def _segments(trace, set_name: str, x: str, key: tuple[str, ...] | None = None,
              until: float | None = None) -> pd.DataFrame:
    """Pod segments (:func:`stsedu.tables.pod_intervals`) with their extent ``x0``..``x1`` on the x axis.

    ``x="time"``: clock times; ``x="sync"``: the syncs that ended with the
    pod in that state, ``first_sync - 0.5 .. last_sync + 0.5``.  Segments
    empty on that axis are dropped; with *key*, neighbours equal on it are merged.
    Segments still open are cut at *until* (default: the end of the trace).
    """
    seg = tables.pod_intervals(trace, set_name, until)
    if seg.empty:
        return seg.assign(x0=[], x1=[])
    if x == "time":
        seg = seg.assign(x0=seg["start"], x1=seg["end"])
        seg = seg[seg["x1"] > seg["x0"]]
    else:
        seg = seg[seg["last_sync"] >= seg["first_sync"]]
        seg = seg.assign(x0=seg["first_sync"] - 0.5, x1=seg["last_sync"] + 0.5)
    seg = seg.reset_index(drop=True)
    return _merge(seg, key) if key else seg


def _aggregate(seg: pd.DataFrame, value: str, order: list[str], lo: float, hi: float) -> tuple[pd.DataFrame, str]:
    """Sample the segments on a grid of ordinal bands x bins of the x axis; keep the commonest *value*.

    Returns the grid (y0, y1, x0, x1, band, value, pods, of), at most
    :data:`MAX_ROWS` cells, and a sentence saying how it was aggregated.
    """
    n_bins = max(1, min(N_BINS, MAX_ROWS))
    n_bands = max(1, min(N_BANDS, MAX_ROWS // n_bins))
    o_lo, o_hi = _ordinal_range(seg)
    n_ord = o_hi - o_lo + 1
    band = max(1, math.ceil(n_ord / n_bands))
    edges = np.linspace(lo, hi, n_bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    rank = {v: i for i, v in enumerate(order)}
    a0, a1 = seg["x0"].to_numpy(), seg["x1"].to_numpy()
    bands = ((seg["ordinal"].to_numpy() - o_lo) // band).astype(int)
    values = seg[value].to_numpy()
    rows = []
    for i, c in enumerate(centers):
        hit = (a0 <= c) & (c < a1)
        if not hit.any():
            continue
        counts: dict[int, dict[str, int]] = {}
        for b, v in zip(bands[hit], values[hit]):
            counts.setdefault(int(b), {}).setdefault(v, 0)
            counts[int(b)][v] += 1
        for b, cnt in counts.items():
            best = max(cnt.items(), key=lambda kv: (kv[1], -rank.get(kv[0], 99)))
            first, last = o_lo + b * band, min(o_hi, o_lo + (b + 1) * band - 1)
            rows.append({"y0": first - 0.5, "y1": last + 0.5, "x0": float(edges[i]), "x1": float(edges[i + 1]),
                         "band": f"ordinals {first}–{last}", value: best[0], "pods": best[1],
                         "of": sum(cnt.values())})
    width = (hi - lo) / n_bins
    how = (f"aggregated: {n_ord} ordinals in bands of {band}, x in {n_bins} bins of {width:.3g}; "
           f"colour = the commonest {value} in each cell")
    return pd.DataFrame(rows, columns=["y0", "y1", "x0", "x1", "band", value, "pods", "of"]), how


def _x_scale(lo: float, hi: float) -> alt.Scale:
    return alt.Scale(domain=[lo, hi], nice=False, zero=False)


def _x_axis(x: str) -> alt.Axis:
    if x == "sync":
        return alt.Axis(title="sync number", tickMinStep=1, format="d")
    return alt.Axis(title="time (s)")


def _until(trace, until: float | None) -> float:
    """The right end of a time axis: *until*, or the trace's "now" (:func:`stsedu.tables.trace_now`).

    Charts reach "now", not just the last recorded change, so the state a
    change left (and the seconds a lab let pass after it) shows with its real width.
    """
    if until is None:
        return tables.trace_now(trace)
    if isinstance(until, bool) or not isinstance(until, (int, float)) or not until == until:
        raise ValueError(f"until must be a number of seconds, not {until!r}")
    return max(float(until), tables.trace_end(trace)[0])


def _x_extent(trace, x: str, until: float | None = None) -> tuple[float, float]:
    if x == "sync":
        lo, hi = _sync_range(trace)
        return lo - 0.5, hi + 0.5
    return 0.0, max(_until(trace, until), 1.0)


STATE_LABELS = {"Running": "Running, not Ready"}
"""Pod states as the pod timeline's legend words them (the others as :data:`stsedu.tables.STATES`)."""

STATE_LABEL_EXPR = " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in STATE_LABELS.items()) + " : datum.label"


def _check_x(x: str) -> None:
    if x not in ("time", "sync"):
        raise ValueError(f"x must be 'time' or 'sync', not {x!r}")


# ------------------------------------------------------------------ pod timeline


def _pod_timeline(trace, set_name: str, x: str = "time", until: float | None = None):
    _check_x(x)
    end = _until(trace, until) if x == "time" else None
    seg = _segments(trace, set_name, x, until=end)
    lo, hi = _x_extent(trace, x, end)
    seen = set(seg["state"].tolist())
    present = [s for s in tables.STATES if s in seen] or ["Pending"]
    color = alt.Color("state:N", title="pod state",
                      scale=alt.Scale(domain=present, range=[STATE_COLORS[s] for s in present]),
                      # "Running" alone reads as "fine": the state is a container running, not yet Ready
                      legend=alt.Legend(orient="right", labelExpr=STATE_LABEL_EXPR))
    o_lo, o_hi = _ordinal_range(seg)
    y_scale = alt.Scale(domain=[o_lo - 0.5, o_hi + 0.5], nice=False, zero=False)
    n_ord = o_hi - o_lo + 1
    subtitle = "one row per ordinal; colour = pod state; hover a bar for the change that began it"
    if len(seg) > MAX_ROWS:
        grid, how = _aggregate(seg, "state", list(tables.STATES), lo, hi)
        chart = alt.Chart(grid).mark_rect().encode(
            x=alt.X("x0:Q", scale=_x_scale(lo, hi), axis=_x_axis(x)), x2="x1:Q",
            y=alt.Y("y0:Q", scale=y_scale, axis=_ordinal_axis(set_name, lo=o_lo, hi=o_hi)), y2="y1:Q",
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
            x=alt.X("x0:Q", scale=_x_scale(lo, hi), axis=_x_axis(x)), x2="x1:Q",
            y=alt.Y("y0:Q", scale=y_scale, axis=_ordinal_axis(set_name, lo=o_lo, hi=o_hi)), y2="y1:Q",
            color=color,
            tooltip=[alt.Tooltip("pod:N"), alt.Tooltip("state:N"), alt.Tooltip("revision:N"),
                     alt.Tooltip("start:Q", title="from (s)", format=".1f"),
                     alt.Tooltip("end:Q", title="to (s)", format=".1f"),
                     alt.Tooltip("syncs:N", title="syncs that saw it"),
                     alt.Tooltip("cause:N", title="changed by"), alt.Tooltip("decision:N"),
                     alt.Tooltip("rule:N")])
    return chart.properties(width=WIDTH, height=_height(n_ord),
                            title=_title(f"Pods of {set_name} over " + ("time" if x == "time" else "syncs"),
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
    return _configure(_pod_timeline(trace, _pick_set(trace, set_name), x, until))


# ------------------------------------------------------------------ revision map


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


def _revision_map(trace, set_name: str):
    seg = _segments(trace, set_name, "sync")
    if not seg.empty:
        seg = seg.assign(look=np.where(seg["state"] == "Terminating", "terminating",
                                       np.where(seg["state"].isin(["Ready", "Available"]), "Ready", "not Ready")))
        seg = _merge(seg, ("revision", "look"))
    colors = revision_colors(trace, set_name) if not seg.empty else {}
    lo, hi = _x_extent(trace, "sync")
    o_lo, o_hi = _ordinal_range(seg)
    y_scale = alt.Scale(domain=[o_lo - 0.5, o_hi + 0.5], nice=False, zero=False)
    x_enc = alt.X("x0:Q", scale=_x_scale(lo, hi), axis=_x_axis("sync"))
    y_axis = _ordinal_axis(set_name, lo=o_lo, hi=o_hi)  # on every layer: layered axes are merged
    y_enc = alt.Y("y0:Q", scale=y_scale, axis=y_axis)
    rev_scale = alt.Scale(domain=list(colors) or [""], range=list(colors.values()) or ["#BBBBBB"])
    color = alt.Color("revision:N", title="revision", scale=rev_scale,
                      legend=alt.Legend(orient="right", labelLimit=220))
    subtitle = ["colour = the pod's revision (first grey, next orange); "
                "filled = Ready, outline = not Ready, dashed line = terminating"]
    if len(seg) > MAX_ROWS:
        grid, how = _aggregate(seg, "revision", list(colors), lo, hi)
        layer = alt.Chart(grid).mark_rect().encode(
            x=x_enc, x2="x1:Q", y=y_enc, y2="y1:Q", color=color,
            tooltip=[alt.Tooltip("band:N", title="pods"), alt.Tooltip("revision:N"),
                     alt.Tooltip("pods:Q", title="pods at that revision"), alt.Tooltip("of:Q", title="pods in band"),
                     alt.Tooltip("x0:Q", title="syncs from", format=".0f"),
                     alt.Tooltip("x1:Q", title="syncs to", format=".0f")])
        layers, top_data = [layer], alt.Undefined
        subtitle = [how]
    else:
        data = seg.assign(y0=seg["ordinal"] - 0.45, y1=seg["ordinal"] + 0.45,
                          syncs=[f"{a}" if a == b else f"{a}–{b}"
                                 for a, b in zip(seg["first_sync"].tolist(), seg["last_sync"].tolist())])
        data = data.reindex(columns=["pod", "ordinal", "revision", "look", "x0", "x1", "y0", "y1", "syncs"])
        # Revision and pod state on separate channels: the revision is the hue, the state is the form
        # (a filled bar, an outline, a dashed line).  A paler shade of the revision's colour for "not
        # Ready" made a Ready pod of the grey first revision read as "not Ready".
        looks = list(REVISION_LOOKS)
        ready_or_not = alt.FieldOneOfPredicate(field="look", oneOf=["Ready", "not Ready"])
        tip = [alt.Tooltip("pod:N"), alt.Tooltip("revision:N"), alt.Tooltip("look:N", title="pod is"),
               alt.Tooltip("syncs:N", title="syncs")]
        bars = alt.Chart().transform_filter(ready_or_not).mark_rect(strokeWidth=2).encode(
            x=x_enc, x2="x1:Q", y=y_enc, y2="y1:Q", color=color,
            stroke=alt.Stroke("revision:N", scale=rev_scale, legend=None),
            fillOpacity=alt.FillOpacity("look:N", scale=alt.Scale(domain=looks[:2], range=[1.0, 0.1]), legend=None),
            tooltip=tip)
        going = alt.Chart().transform_filter(alt.FieldEqualPredicate(field="look", equal="terminating")).mark_rule(
            strokeWidth=3, strokeDash=[5, 3]).encode(
            x=x_enc, x2="x1:Q", y=alt.Y("ordinal:Q", scale=y_scale, axis=y_axis),
            color=alt.Color("revision:N", scale=rev_scale, legend=None), tooltip=tip)
        # The state's legend: Vega-Lite draws none for a rect's fill opacity, so invisible points (no
        # position) carry it, each form drawn as a filled symbol: a square, a square ring, three dashes.
        key = alt.Chart(pd.DataFrame({"look": looks, "x0": [None] * 3, "y0": [None] * 3})).mark_point(
            filled=True, opacity=1, color="#555555").encode(
            x=alt.X("x0:Q", scale=_x_scale(lo, hi)), y=alt.Y("y0:Q", scale=y_scale, axis=y_axis),
            shape=alt.Shape("look:N", title="pod", scale=alt.Scale(domain=looks, range=list(REVISION_LOOKS.values())),
                            legend=alt.Legend(orient="right")))
        layers, top_data = [bars, going, key], data
    part = _partition_line(trace, set_name, lo, hi)
    if not part.empty:
        # A solid line in its own colour: a dashed one read as "terminating" (the dashes of a pod going
        # away), and text labels on it collided with the bars and the legend; its value is in the
        # tooltip and, at the end of the run, in the subtitle.
        line = alt.Chart(part).mark_line(interpolate="step-after", color=PARTITION_COLOR, strokeWidth=3,
                                         clip=True).encode(
            x=alt.X("x:Q", scale=_x_scale(lo, hi)), y=alt.Y("y:Q", scale=y_scale, axis=y_axis),
            tooltip=[alt.Tooltip("partition:Q", title="partition")])
        layers += [line]
        subtitle.append(f"purple line: the partition (now {int(part['partition'].iloc[-1])}); only ordinals "
                        "at or above it are updated")
    chart = alt.layer(*layers, data=top_data) if len(layers) > 1 else layers[0]
    return chart.properties(width=WIDTH, height=_height(o_hi - o_lo + 1),
                            title=_title(f"Revisions of {set_name}, sync by sync", *subtitle))


def revision_map(trace, set_name: str | None = None):
    """Ordinal x sync, each cell coloured by the revision of the pod there after that sync.

    A rolling update shows as the new revision's colour sweeping down from
    the top ordinal, one pod at a time, and stopping at the partition (the
    solid purple line, drawn when a partition above 0 was set).  Revision colours
    follow :func:`revision_colors` (the first revision grey, the next orange);
    pale cells are pods not Ready, faint ones terminating, empty ones no pod.
    """
    return _configure(_revision_map(trace, _pick_set(trace, set_name)))


# ------------------------------------------------------------------ status counters

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
    if len(data) >= MAX_ROWS:  # >=: the row carried to the right edge below must fit too
        n = max(1, MAX_ROWS - 1)
        step = (hi - lo) / n
        b = ((data["x"] - lo) // step).clip(upper=n - 1).astype(int)
        data = data.assign(bin=b).drop_duplicates("bin", keep="last").drop(columns="bin")
        how = f"aggregated: the status at the end of each of {n} equal stretches of the x axis"
    if data["x"].iloc[-1] < hi:  # carry the last status to the right edge
        data = pd.concat([data, data.iloc[[-1]].assign(x=hi)], ignore_index=True)
    return data[["x", "sync", "time", *cols]].reset_index(drop=True), how


def _status_layers(trace, set_name: str, x: str = "time", until: float | None = None):
    """The status lanes' parts: (data, one [area, spec, line] per counter, title); the layers carry no data."""
    _check_x(x)
    lo, hi = _x_extent(trace, x, until)
    data, how = _status_data(trace, set_name, x, lo, hi)
    values = data[["spec_replicas", *tables.COUNTERS]].to_numpy()
    top = int(max(1, values.max() if values.size else 1))
    xenc = alt.X("x:Q", scale=_x_scale(lo, hi))
    lanes = []
    for k, c in enumerate(tables.COUNTERS):
        name = COUNTER_TITLES[c]
        last = k == len(tables.COUNTERS) - 1
        axis_x = _x_axis(x) if last else None
        y = alt.Y(f"{c}:Q", scale=alt.Scale(domain=[0, top], nice=False), stack=None,
                  axis=alt.Axis(values=[0, top], title=name, titleAngle=0, titleAlign="right",
                                titleBaseline="middle", titleY=LANE_PX / 2, titleX=-14 - 8 * len(str(top)),
                                titleFontWeight="bold", titleColor=COUNTER_COLORS[c], domain=False, ticks=False,
                                grid=True, gridOpacity=0.35))
        tip = [alt.Tooltip(f"{c}:Q", title=name), alt.Tooltip("spec_replicas:Q", title="spec.replicas"),
               alt.Tooltip("sync:Q", title="since sync"), alt.Tooltip("time:Q", title="since (s)", format=".1f")]
        base = alt.Chart()
        area = base.mark_area(interpolate="step-after", color=COUNTER_COLORS[c], opacity=0.22, clip=True).encode(
            x=xenc.axis(axis_x), y=y)
        line = base.mark_line(interpolate="step-after", color=COUNTER_COLORS[c], strokeWidth=2.5).encode(
            x=xenc.axis(axis_x), y=y, tooltip=tip)
        spec = base.mark_line(interpolate="step-after", color=SPEC_COLOR, strokeWidth=1.5, strokeDash=[6, 4]).encode(
            x=xenc.axis(axis_x), y=alt.Y("spec_replicas:Q", scale=alt.Scale(domain=[0, top], nice=False)))
        lanes.append([area, spec, line])
    subtitle = how or ("one lane per status field, as each sync computed it; "
                       "dashed: spec.replicas, the number asked for")
    return data, lanes, _title(f"Status of {set_name} over " + ("time" if x == "time" else "syncs"), subtitle)


def _status_lanes(trace, set_name: str, x: str = "time", until: float | None = None):
    """One small step chart per counter, same x; returns (lanes, title)."""
    data, lanes, title = _status_layers(trace, set_name, x, until)
    return [alt.layer(*layers, data=data).properties(width=WIDTH, height=LANE_PX) for layers in lanes], title


def status_counters(trace, set_name: str | None = None, x: str = "time", until: float | None = None):
    """The status counters (replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas) over time.

    One lane per counter, each a step line (with a light fill) of the status
    the syncs computed, and spec.replicas dashed in every lane for reference.
    Only the corners of the steps are kept (unchanged syncs are dropped).
    *x* is ``"time"`` or ``"sync"``; a time axis ends at *until* (default:
    now, as in :func:`pod_timeline`), the last status carried to it.
    """
    lanes, title = _status_lanes(trace, _pick_set(trace, set_name), x, until)
    return _configure(alt.vconcat(*lanes, spacing=6).properties(title=title))


# ------------------------------------------------------------------ decision strip

def _decision_data(trace, set_name: str, include_other: bool) -> pd.DataFrame:
    dec = trace.decisions()
    dec = dec[dec["set"] == set_name]
    df = tables.decisions_frame(dec, pod_actions=not include_other)
    df = df[df["pod"].notna()].copy()
    df["ordinal"] = [int(p.rsplit("-", 1)[1]) if p.rsplit("-", 1)[-1].isdigit() else -1
                     for p in df["pod"].tolist()]
    df["kind"] = [tables.action_kind(a) for a in df["action"].tolist()]
    return df[df["ordinal"] >= 0].reset_index(drop=True)


def _decision_strip(trace, set_name: str, include_other: bool = False, x: str = "sync", emphasis=None,
                    until: float | None = None):
    _check_x(x)
    df = _decision_data(trace, set_name, include_other)
    lo, hi = _x_extent(trace, x, until)
    seen = set(df["kind"].tolist())
    kinds = [k for k in ACTION_COLORS if k in seen] or ["create"]
    kscale = dict(domain=kinds)
    stroke = alt.Stroke("kind:N", title="decision", scale=alt.Scale(**kscale, range=[ACTION_COLORS[k] for k in kinds]))
    shape = alt.Shape("kind:N", title="decision", scale=alt.Scale(**kscale, range=[ACTION_SHAPES[k] for k in kinds]))
    fill = alt.Fill("kind:N", title="decision",
                    scale=alt.Scale(**kscale, range=["#FFFFFF" if k == "wait" else ACTION_COLORS[k] for k in kinds]),
                    legend=alt.Legend(orient="right"))
    o_lo, o_hi = (int(df["ordinal"].min()), int(df["ordinal"].max())) if len(df) else (0, 0)
    pods = trace.pods()
    pods = pods[(pods["set"] == set_name) & (pods["ordinal"] >= 0)]
    if not pods.empty:  # the same rows as the pod charts, so the strip lines up with them
        o_lo, o_hi = min(o_lo, int(pods["ordinal"].min())), max(o_hi, int(pods["ordinal"].max()))
    y_scale = alt.Scale(domain=[o_lo - 0.5, o_hi + 0.5], nice=False, zero=False)
    subtitle = "what each sync did to which pod (hollow: it waited on that pod); hover a mark for the rule"
    xfield = "sync" if x == "sync" else "time"
    if len(df) > MAX_ROWS:
        n_ord = o_hi - o_lo + 1
        band = max(1, math.ceil(n_ord / N_BANDS))
        width = max(1.0, (hi - lo) / N_BINS) if x == "sync" else (hi - lo) / N_BINS
        while True:  # one mark per band, bin and kind of decision: coarser until at most MAX_ROWS
            g = df.assign(b=(df["ordinal"] - o_lo) // band, xb=((df[xfield] - lo) // width).astype(int))
            grid = g.groupby(["b", "xb", "kind"], as_index=False).size()
            if len(grid) <= MAX_ROWS or (band >= n_ord and width >= hi - lo):
                break
            band, width = band * 2, width * 2
        grid = grid.assign(xc=lo + (grid["xb"] + 0.5) * width, yc=o_lo + (grid["b"] + 0.5) * band - 0.5,
                           band=[f"ordinals {o_lo + b * band}–{min(o_hi, o_lo + (b + 1) * band - 1)}"
                                 for b in grid["b"]])
        chart = alt.Chart(grid).mark_point(filled=True, strokeWidth=2, opacity=0.85).encode(
            x=alt.X("xc:Q", scale=_x_scale(lo, hi), axis=_x_axis(x)),
            y=alt.Y("yc:Q", scale=y_scale, axis=_ordinal_axis(set_name, lo=o_lo, hi=o_hi)),
            fill=fill, stroke=stroke, shape=shape,
            size=alt.Size("size:Q", title="decisions", scale=alt.Scale(range=[30, 400])),
            tooltip=[alt.Tooltip("band:N", title="pods"), alt.Tooltip("kind:N", title="decision"),
                     alt.Tooltip("size:Q", title="how many")])
        subtitle = (f"aggregated: {len(df)} decisions counted per band of {band} ordinals and "
                    f"{x} bin of {width:.3g}; size = how many")
    else:
        data = df[["sync", "time", "action", "kind", "pod", "ordinal", "reason", "rule", "message", "outcome"]]
        size = alt.value(170) if emphasis is None else alt.condition(emphasis, alt.value(480), alt.value(150))
        chart = alt.Chart(data).mark_point(filled=True, strokeWidth=2, opacity=1).encode(
            x=alt.X(f"{xfield}:Q", scale=_x_scale(lo, hi), axis=_x_axis(x)),
            y=alt.Y("ordinal:Q", scale=y_scale, axis=_ordinal_axis(set_name, lo=o_lo, hi=o_hi)),
            fill=fill, stroke=stroke, shape=shape, size=size,
            tooltip=[alt.Tooltip("sync:Q"), alt.Tooltip("time:Q", title="time (s)", format=".1f"),
                     alt.Tooltip("action:N"), alt.Tooltip("pod:N"), alt.Tooltip("reason:N"),
                     alt.Tooltip("message:N"), alt.Tooltip("rule:N"), alt.Tooltip("outcome:N")])
    return chart.properties(width=WIDTH, height=_height(o_hi - o_lo + 1),
                            title=_title(f"What each sync of {set_name} decided", subtitle))


def decision_strip(trace, set_name: str | None = None, include_other: bool = False, x: str = "sync",
                   until: float | None = None):
    """One mark per decision about a pod: x = the sync (or its time), y = the pod's ordinal.

    Colour and shape say what the sync did (:data:`ACTION_COLORS`,
    :data:`ACTION_SHAPES`): create ▲, delete ✕, update ◆, wait ○ (hollow);
    with *include_other*, also the other decisions that name a pod (claims).
    The rows line up with :func:`pod_timeline` and :func:`revision_map`.
    The y axis has a tick at each whole ordinal only; a time axis ends at
    *until* (default: now, as in :func:`pod_timeline`).
    """
    return _configure(_decision_strip(trace, _pick_set(trace, set_name), include_other, x, until=until))


# ------------------------------------------------------------------ overview


def _sync_summary(trace, set_name: str, max_points: int = 400) -> pd.DataFrame:
    """One row per sync (thinned to at most *max_points*): sync, time, and what it decided, in words."""
    max_points = min(max_points, MAX_ROWS)
    syncs = trace.syncs()
    syncs = syncs[syncs["set"] == set_name][["sync", "time"]]
    dec = trace.decisions()
    dec = dec[(dec["set"] == set_name) & dec["action"].isin(tables.POD_ACTIONS)]
    by_sync: dict[int, list[str]] = {}  # one pass over plain columns (a groupby per sync is slow)
    for s, a, p, r in zip(dec["sync"].tolist(), dec["action"].tolist(), dec["pod"].tolist(),
                          dec["reason"].tolist()):
        by_sync.setdefault(int(s), []).append(f"{a} {p}" + (f" ({r})" if a == "wait" else ""))
    words = {s: "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")
             for s, parts in by_sync.items()}
    out = syncs.assign(decided=[words.get(int(s), "nothing about pods") for s in syncs["sync"]])
    if len(out) > max_points:
        out = out.iloc[:: math.ceil(len(out) / max_points)]
    return out.reset_index(drop=True)


class _Layered(alt.LayerChart):
    """A LayerChart whose layers are given already combined (data, params, names, width/height), kept as given.

    Altair's LayerChart and VConcatChart combine their parts (deep copies of
    every layer below them) each time one is built *or copied*, and
    ``to_dict()`` copies every chart of a composition once more; for the
    overview's eight linked panels that was most of its cost.  The overview
    assembles its parts once, in exactly the form Altair's combining gives
    (tests/views/test_charts.py checks the spec is the same), so these two classes
    skip it.  Everything else (``to_dict``, validation, data handling,
    display) is Altair's own.
    """

    def __init__(self, data=alt.Undefined, layer=(), **kwargs):
        alt.TopLevelLayerSpec.__init__(self, data=data, layer=list(layer), **kwargs)


class _Stacked(alt.VConcatChart):
    """A VConcatChart of parts already combined, kept as given (see :class:`_Layered`)."""

    def __init__(self, data=alt.Undefined, vconcat=(), **kwargs):
        alt.TopLevelVConcatSpec.__init__(self, data=data, vconcat=list(vconcat), **kwargs)


class _TablesOnce:
    """*trace* for the length of one chart: its whole tables (``syncs()``, ``pods()``, ``status()``,
    ``decisions()``) are built once and handed out as copies; everything else is the trace's own."""

    def __init__(self, trace) -> None:
        object.__setattr__(self, "_trace", trace)
        object.__setattr__(self, "_tables", {})

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self._tables:
            self._tables[name] = getattr(self._trace, name)()
        return self._tables[name].copy()

    def syncs(self):
        return self._table("syncs")

    def pods(self):
        return self._table("pods")

    def status(self):
        return self._table("status")

    def decisions(self, sync: int | None = None):
        return self._table("decisions") if sync is None else self._trace.decisions(sync)

    def __getattr__(self, name):
        return getattr(self._trace, name)

    def __setattr__(self, name, value) -> None:  # e.g. the cache tables.pod_intervals keeps on the trace
        setattr(self._trace, name, value)


def _rows(data):
    """*data* (a DataFrame) converted as Altair converts a chart's data in ``to_dict()``: the same rows,
    the same dataset name; converted once here for data several layers show."""
    return alt.data_transformers.get()(data) if isinstance(data, pd.DataFrame) else data


def _without(chart, *props: str):
    """A shallow copy of *chart* without *props* (what a LayerChart does to a layer's width and height)."""
    chart = chart.copy(deep=False)
    for p in props:
        chart[p] = alt.Undefined
    return chart


def overview(trace, set_name: str | None = None):
    """The pod timeline, revision map, decision strip and status lanes on one sync axis, linked.

    Hovering anywhere picks the nearest sync: a line marks it in every panel,
    its decisions grow in the strip, and a label above the pods gives its
    number, its time and what it decided.
    """
    set_name = _pick_set(trace, set_name)
    # Built without Altair's check of each part as it is made: these parts are fixed by this code, and
    # to_dict() (which every display runs) validates the whole spec anyway.
    with debug_mode(False):
        return _overview(_TablesOnce(trace), set_name)


def _overview(trace, set_name: str):
    lo, hi = _x_extent(trace, "sync")
    marks = _sync_summary(trace, set_name)
    marks = _rows(marks)
    xs = alt.X("sync:Q", scale=_x_scale(lo, hi))
    # One hover selection per panel (Altair warns when one selection is shared by several views),
    # each in a view with its own name; every panel highlights when any of them holds a sync.
    # (Chaining ``p1 | p2 | ...`` would drop ``empty: false`` from all but the first, so the test is
    # written out.)  Numbering, view names and order are those Altair's combining gives: the status
    # lanes' selections first (0-4, views named by lane), then pods, revisions, decisions (5-7,
    # views named by panel).
    n_lanes = len(tables.COUNTERS)
    n_views = 3 + n_lanes
    params = [alt.selection_point(name=f"sync_hover_{i}", fields=["sync"], on="pointerover", nearest=True,
                                  empty=False, clear="pointerout") for i in range(n_views)]
    hovered = alt.LogicalOrPredicate(**{"or": [alt.ParameterPredicate(param=p.name, empty=False) for p in params]})
    # (no text field in the selector's tooltip: Vega-Lite 6 reads text fields of a `nearest` tooltip from
    # the wrong datum and shows "undefined"; what the sync decided is in the label instead)
    rule = alt.Chart(marks).mark_rule(color="#222222", strokeWidth=1.5).encode(
        x=xs, opacity=alt.condition(hovered, alt.value(0.85), alt.value(0.0)))
    label = alt.Chart(marks).transform_calculate(  # one fixed place, so the invisible labels do not widen the layout
        label="'sync ' + datum.sync + ' at ' + format(datum.time, '.1f') + ' s: ' + datum.decided").mark_text(
        align="left", baseline="bottom", x=0, y=-4, fontSize=13, fontWeight="bold", limit=WIDTH).encode(
        text=alt.Text("label:N"), opacity=alt.condition(hovered, alt.value(1.0), alt.value(0.0)))
    tip = [alt.Tooltip("sync:Q"), alt.Tooltip("time:Q", title="time (s)", format=".1f")]
    lifted = []

    def selector(k: int, view: int):
        """The invisible points that hold selection *k*, in a view named by its place *view*."""
        name = f"{params[k].name}_view_{view}"
        lifted.append(alt.TopLevelSelectionParameter(**params[k].param.to_dict(), views=[name]))
        return alt.Chart(marks, name=name).mark_point(opacity=0, size=10).encode(x=xs, tooltip=tip)

    def linked(panel, k: int, view: int, with_label: bool = False):
        props = {p: panel[p] for p in ("data", "width", "height", "title") if panel[p] is not alt.Undefined}
        if isinstance(panel, alt.LayerChart):
            layers = list(panel.layer)
        else:  # the panel's data is shown twice (panel and layer): converted once
            layers = [_without(panel, "width", "height")]
            props["data"] = layers[0].data = _rows(panel.data)
        layers += [rule, label, selector(k, view)] if with_label else [rule, selector(k, view)]
        return _Layered(layer=layers, **props)  # data hoisted onto *panel* stays with its layers

    panels = [linked(_pod_timeline(trace, set_name, "sync"), n_lanes, 0, with_label=True),
              linked(_revision_map(trace, set_name), n_lanes + 1, 1),
              linked(_decision_strip(trace, set_name, emphasis=hovered), n_lanes + 2, 2)]
    data, lanes, lanes_title = _status_layers(trace, set_name, "sync")
    panels.append(_Stacked(data=data, spacing=6, title=lanes_title, vconcat=[
        _Layered(layer=[*layers, rule, selector(k, k)], width=WIDTH, height=LANE_PX)
        for k, layers in enumerate(lanes)]))
    end = tables.trace_now(trace)
    n = int(trace.syncs().query("set == @set_name")["sync"].nunique())
    independent = {c: "independent" for c in ("color", "fill", "shape", "opacity", "size", "stroke")}
    return _Stacked(
        vconcat=panels, params=lifted, spacing=30,
        resolve=alt.Resolve(scale=alt.ScaleResolveMap(**independent),
                            legend=alt.LegendResolveMap(**independent)),
        title=_title(f"{set_name}: {n} syncs in {end:.0f} s",
                     "hover anywhere to pick a sync: a line marks it in every panel"),
        config=alt.Config(**CONFIG))
