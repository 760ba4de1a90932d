"""What every chart of a trace shares: sizes and the row bound, the teaching configuration, the set a
chart is about, the ordinal and x axes, pod segments and their aggregation for large runs.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

import math

from .widget import alt  # first: imports Altair as the kit sets it up
import numpy as np
import pandas as pd

from .. import tables
from ..palette import REVISION_COLORS
from ..trace_tables import TablesOnce, columns_of
from ...frames import kit_frame
from ...i18n import N_, _


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




def pick_set(trace, set_name: str | None) -> str:
    """The set a chart is about: *set_name*, or the trace's only set (raise ValueError otherwise)."""
    rows = TablesOnce.of(trace)
    names = list(dict.fromkeys(n for table in ("syncs", "pods")
                               for n in map(columns_of(table, "set"), rows.table_rows(table)) if n is not None))
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


def with_config(chart):
    """*chart*, a chart its caller has just made, with :data:`CONFIG` set on it in place.

    ``chart.configure(...)`` would return a deep copy of the whole chart (every layer, scale and
    tooltip): a sixth of a lab's redraw in the kernel, for an object nobody else holds."""
    chart.config = alt.Config(**CONFIG)
    return chart


def chart_title(text: str, *subtitle: str) -> alt.TitleParams:
    return alt.TitleParams(text=text, subtitle=[s for s in subtitle if s])


def revision_colors(trace, set_name: str | None = None) -> dict[str, str]:
    """Revision name -> colour, by order of first appearance (the first grey, the second orange, ...).

    The same trace gives the same colours in every chart.
    """
    rows = TablesOnce.of(trace)
    set_name = pick_set(rows, set_name)
    order: list[tuple[int, int, str]] = []
    for s, set_, r in map(columns_of("pods", "sync", "set", "revision"), rows.table_rows("pods")):
        if set_ == set_name and r != "":
            order.append((int(s), 1, r))
    for s, set_, cur, upd in map(columns_of("status", "sync", "set", "current_revision", "update_revision"),
                                 rows.table_rows("status")):
        if set_ == set_name:
            order += [(int(s), 0, cur), (int(s), 0, upd)]
    names: list[str] = []
    for _t, _o, r in sorted(order, key=lambda x: (x[0], x[1])):
        if r and r not in names:
            names.append(r)
    return {r: REVISION_COLORS[i % len(REVISION_COLORS)] for i, r in enumerate(names)}


AXIS_ORDINALS = 26
"""Up to this many ordinals, the ordinal axis labels every one of them (rows stay at least
16 px apart: :data:`MAX_HEIGHT` / 26), with no label hidden as "overlapping"."""


_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000)


def ordinal_ticks(lo: int | None, hi: int | None) -> list[int] | None:
    """The ordinals *lo*..*hi* the axis labels: every one when there are few enough
    (:data:`AXIS_ORDINALS`), else every 2nd, 5th, 10th, ... (the multiples of the first step that
    keeps at most :data:`AXIS_ORDINALS` labels), so that labels never run together.  None without ordinals."""
    if lo is None or hi is None:
        return None
    n = hi - lo + 1
    step = next((s for s in _STEPS if math.ceil(n / s) <= AXIS_ORDINALS), _STEPS[-1])
    if step == 1:
        return list(range(lo, hi + 1))
    first = -(-lo // step) * step  # the first multiple of step at or above lo
    return list(range(first, hi + 1, step))


MAX_DRAWN_ORDINALS = MAX_HEIGHT // 4
"""The most ordinals the pod charts draw one row each (at least 4 px a row); a larger set is drawn in
ordinal bands (:func:`aggregate`): 500 rows of under a pixel were a pale, near-empty triangle."""


def outgrows(n_rows: int, n_ordinals: int) -> bool:
    """Whether a pod chart's rows outgrow it: more data rows than :data:`MAX_ROWS`, or more ordinals than
    :data:`MAX_DRAWN_ORDINALS`; the chart is then aggregated."""
    return n_rows > MAX_ROWS or n_ordinals > MAX_DRAWN_ORDINALS


def ordinal_axis(set_name: str, title: str | None = None, lo: int | None = None,
                  hi: int | None = None) -> alt.Axis:
    """A y axis of ordinals labelled like pod names (the top ordinal at the top).

    Labels sit on whole ordinals only (``web-0``, never ``web-0.5``): every
    ordinal *lo*..*hi* when there are few, else the axis's own ticks with
    the ones between ordinals left unlabelled.
    """
    ticks = ordinal_ticks(lo, hi)
    values = alt.Undefined if ticks is None else ticks
    return alt.Axis(title=title, tickMinStep=1, format="d", values=values,
                    labelExpr=f"datum.value % 1 ? '' : '{set_name}-' + datum.value",
                    labelOverlap=alt.Undefined if values is alt.Undefined else False,
                    grid=False, domain=False, ticks=False, labelPadding=6)


def chart_height(n_rows: int) -> int:
    return int(min(MAX_HEIGHT, max(90, ROW_PX * n_rows)))


def ordinal_range(segments: pd.DataFrame) -> tuple[int, int]:
    if segments.empty:
        return 0, 0
    return int(segments["ordinal"].min()), int(segments["ordinal"].max())


def sync_range(trace) -> tuple[int, int]:
    syncs = [int(n) for n in map(columns_of("syncs", "sync"), TablesOnce.of(trace).table_rows("syncs"))]
    if not syncs:
        return 0, 1
    return min(syncs), max(syncs)


MERGED_LAST = ("x1", "end", "last_sync", "sync_end", "ongoing")
"""Columns a merged segment takes from the last segment it merges (the others from the first)."""


def merge_segments(seg: pd.DataFrame, key: tuple[str, ...]) -> pd.DataFrame:
    """Merge neighbouring segments of one pod incarnation that agree on every column in *key*.

    Segments merge when they follow each other (in ordinal, incarnation and ``x0`` order) without
    a gap on the x axis and have the same ordinal, incarnation and *key* values (a missing value
    equals nothing).  A merged segment has the first segment's values, but those of
    :data:`MERGED_LAST` from the last one; where that value is missing (None, NaN), the nearest
    segment of the merge that has one gives it (pandas' ``first``/``last``).  One pass over the
    sorted rows."""
    if seg.empty:
        return seg
    # the columns as arrays in (ordinal, incarnation, x0) order, stable (a Series per column of a
    # kit frame would copy its attrs each time)
    order = np.lexsort((seg["x0"].to_numpy(), seg["incarnation"].to_numpy(), seg["ordinal"].to_numpy()))
    arrays = {c: values[order] for c, values in zip(seg.columns, (seg[c].to_numpy() for c in seg.columns))}
    starts = segment_runs(*(arrays[c].tolist() for c in ("ordinal", "incarnation", "x0", "x1")),
                          [arrays[c].tolist() for c in key])
    ends = [*starts[1:], len(order)]
    firsts, lasts = np.array(starts), np.array(ends) - 1
    merged = {}
    for c, values in arrays.items():
        missing = pd.isna(values) if values.dtype.kind in "OfcmM" else None
        if missing is None or not missing.any():
            merged[c] = values[lasts if c in MERGED_LAST else firsts]
            continue
        picked = []
        for a, b in zip(starts, ends):
            run = range(b - 1, a - 1, -1) if c in MERGED_LAST else range(a, b)
            picked.append(next((values[i] for i in run if not missing[i]), values[a]))
        merged[c] = np.array(picked, dtype=values.dtype)
    out = pd.DataFrame(merged)
    out.attrs = dict(seg.attrs)
    return out


def segment_runs(ordinals: list, incarnations: list, x0: list, x1: list, keys: list[list]) -> list[int]:
    """Where each run of segments that merge starts (:func:`merge_segments`' rule), given the segments'
    columns in (ordinal, incarnation, ``x0``) order and the columns of the merge's key."""
    checks = [ordinals, incarnations, *keys]
    starts = [0] if x0 else []
    for i in range(1, len(x0)):
        if not x0[i] <= x1[i - 1] or not all(_same(col[i], col[i - 1]) for col in checks):
            starts.append(i)
    return starts


def _same(a, b) -> bool:
    """*a* equals *b*, and neither is missing (None or NaN: pandas' ``eq``)."""
    return a is not None and not (isinstance(a, float) and math.isnan(a)) and a == b


def pod_segments(trace, set_name: str, x: str, key: tuple[str, ...] | None = None,
              until: float | None = None) -> pd.DataFrame:
    """Pod segments (:func:`stsedu.tables.pod_intervals`) with their extent ``x0``..``x1`` on the x axis.

    ``x="time"``: clock times; ``x="sync"``: the syncs that ended with the
    pod in that state, ``first_sync - 0.5 .. last_sync + 0.5``.  Segments
    empty on that axis are dropped; with *key*, neighbours equal on it are merged.
    Segments still open are cut at *until* (default: the end of the trace).
    """
    seg = kit_frame(segment_rows(trace, set_name, x, until), columns=list(SEGMENT_COLUMNS))
    return merge_segments(seg, key) if key else seg


SEGMENT_COLUMNS = (*tables.INTERVAL_COLUMNS, "x0", "x1")
"""Columns of :func:`pod_segments` and of the rows of :func:`segment_rows`."""

_START, _END, _FIRST_SYNC, _LAST_SYNC = (tables.INTERVAL_COLUMNS.index(c)
                                         for c in ("start", "end", "first_sync", "last_sync"))


def segment_rows(trace, set_name: str, x: str, until: float | None = None) -> list[tuple]:
    """:func:`pod_segments`' rows (unmerged) as plain tuples in :data:`SEGMENT_COLUMNS`' order, in
    :func:`stsedu.tables.pod_intervals`' order: one pass over :func:`stsedu.tables.interval_rows`."""
    rows = tables.interval_rows(trace, set_name, until)
    if x == "time":
        return [(*r, r[_START], r[_END]) for r in rows if r[_END] > r[_START]]
    return [(*r, r[_FIRST_SYNC] - 0.5, r[_LAST_SYNC] + 0.5) for r in rows if r[_LAST_SYNC] >= r[_FIRST_SYNC]]


def aggregate(seg: pd.DataFrame, value: str, order: list[str], lo: float, hi: float) -> tuple[pd.DataFrame, str]:
    """Sample the segments on a grid of ordinal bands x bins of the x axis; keep the commonest *value*.

    Returns the grid (y0, y1, x0, x1, band, value, pods, of), at most
    :data:`MAX_ROWS` cells, and a sentence saying how it was aggregated.
    """
    n_bins = max(1, min(N_BINS, MAX_ROWS))
    n_bands = max(1, min(N_BANDS, MAX_ROWS // n_bins))
    o_lo, o_hi = ordinal_range(seg)
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
                         "band": _("ordinals {first}–{last}").format(first=first, last=last), value: best[0],
                         "pods": best[1],
                         "of": sum(cnt.values())})
    # the grid's make, not its bins' width: that moves with every change (the x axis reaches a later "now"), and a
    # subtitle that moves is a new chart structure, drawn anew in the page; each cell's tooltip has its x extent
    how = _("aggregated: {n} ordinals in bands of {band}, the x axis in {bins} equal bins; "
            "colour = the commonest {value} in each cell").format(
                n=n_ord, band=band, bins=n_bins, value=_(_VALUE_WORDS[value]) if value in _VALUE_WORDS else value)
    return pd.DataFrame(rows, columns=["y0", "y1", "x0", "x1", "band", value, "pods", "of"]), how


_VALUE_WORDS = {"state": N_("state"), "revision": N_("revision")}
"""What :func:`aggregate`'s subtitle calls the value a cell's colour shows (translated where it is said)."""


def x_scale(lo: float, hi: float) -> alt.Scale:
    return alt.Scale(domain=[lo, hi], nice=False, zero=False)


X_LABELS = 8
"""About this many labels on an x axis (80 px apart on :data:`WIDTH`): "100120140160180" ran together."""


def x_axis(x: str) -> alt.Axis:
    """The x axis: at most about :data:`X_LABELS` labels, any that would still collide left out."""
    thin = dict(tickCount=X_LABELS, labelOverlap="greedy", labelSeparation=8, labelFlush=True)
    if x == "sync":
        return alt.Axis(title=_("sync number"), tickMinStep=1, format="d", **thin)
    return alt.Axis(title=_("time (s)"), **thin)


def until_time(trace, until: float | None) -> float:
    """The right end of a time axis: *until*, or the trace's "now" (:func:`stsedu.tables.trace_now`).

    Charts reach "now", not just the last recorded change, so the state a
    change left (and the seconds a lab let pass after it) shows with its real width.
    """
    if until is None:
        return tables.trace_now(trace)
    if isinstance(until, bool) or not isinstance(until, (int, float)) or not until == until:
        raise ValueError(f"until must be a number of seconds, not {until!r}")
    return max(float(until), tables.trace_end(trace)[0])


def x_extent(trace, x: str, until: float | None = None) -> tuple[float, float]:
    if x == "sync":
        lo, hi = sync_range(trace)
        return lo - 0.5, hi + 0.5
    return 0.0, max(until_time(trace, until), 1.0)


STATE_LABELS = {"Running": N_("Running, not Ready")}
"""Pod states as the pod timeline's legend words them (the others as :data:`stsedu.tables.STATES`)."""


def label_expr(labels: dict[str, str]) -> str:
    """A legend's label expression (Vega) that shows each value of *labels* as its text in the learner's
    language; other values as they are."""
    return "".join(f"datum.label == '{k}' ? '{_(v)}' : " for k, v in labels.items()) + "datum.label"


def state_label_expr() -> str:
    """The pod timeline legend's label expression: :data:`STATE_LABELS` in the learner's language."""
    return label_expr(STATE_LABELS)


def check_x(x: str) -> None:
    if x not in ("time", "sync"):
        raise ValueError(f"x must be 'time' or 'sync', not {x!r}")
