"""The decision strip: what each sync did, and to which pod.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

import math

from .widget import alt  # first: imports Altair as the kit sets it up
import pandas as pd

from .. import tables
from ..palette import ACTION_COLORS, ACTION_SHAPES
from . import common
from .chart_data import ChartData, axes_params, ordinals_of, records
from ..trace_tables import TablesOnce, columns_of
from .common import N_BANDS, N_BINS, WIDTH, chart_height, chart_title, check_x, ordinal_axis, ordinal_ticks, pick_set, x_axis, x_extent, x_scale
from ...i18n import _


def _decision_data(trace, set_name: str, include_other: bool) -> pd.DataFrame:
    dec = trace.decisions()
    dec = dec[dec["set"] == set_name]
    df = tables.decisions_frame(dec, pod_actions=not include_other)
    df = df[df["pod"].notna()].copy()
    df["ordinal"] = [int(p.rsplit("-", 1)[1]) if p.rsplit("-", 1)[-1].isdigit() else -1
                     for p in df["pod"].tolist()]
    df["kind"] = [tables.action_kind(a) for a in df["action"].tolist()]
    return df[df["ordinal"] >= 0].reset_index(drop=True)


def strip_data(trace, set_name: str, include_other: bool = False, x: str = "sync", emphasis=None,
               until: float | None = None) -> ChartData:
    """What :func:`strip_panel` draws (see :mod:`.chart_data`): one mark per decision about a pod, or a
    count of them per band and bin."""
    check_x(x)
    df = _decision_data(trace, set_name, include_other)
    lo, hi = x_extent(trace, x, until)
    seen = set(df["kind"].tolist())
    kinds = tuple(k for k in ACTION_COLORS if k in seen) or ("create",)
    o_lo, o_hi = (int(df["ordinal"].min()), int(df["ordinal"].max())) if len(df) else (0, 0)
    ordinals = [int(o) for s, o in map(columns_of("pods", "set", "ordinal"), TablesOnce.of(trace).table_rows("pods"))
                if s == set_name and o >= 0]
    if ordinals:  # the same rows as the pod charts, so the strip lines up with them
        o_lo, o_hi = min(o_lo, min(ordinals)), max(o_hi, max(ordinals))
    ticks = ordinal_ticks(o_lo, o_hi)
    subtitle = _("what each sync did to which pod (hollow: it waited on that pod); hover a mark for the rule")
    xfield = "sync" if x == "sync" else "time"
    aggregated = common.outgrows(len(df), o_hi - o_lo + 1)
    if aggregated:
        n_ord = o_hi - o_lo + 1
        band = max(1, math.ceil(n_ord / N_BANDS))
        width = max(1.0, (hi - lo) / N_BINS) if x == "sync" else (hi - lo) / N_BINS
        while True:  # one mark per band, bin and kind of decision: coarser until at most common.MAX_ROWS
            g = df.assign(b=(df["ordinal"] - o_lo) // band, xb=((df[xfield] - lo) // width).astype(int))
            grid = g.groupby(["b", "xb", "kind"], as_index=False).size()
            if len(grid) <= common.MAX_ROWS or (band >= n_ord and width >= hi - lo):
                break
            band, width = band * 2, width * 2
        rows = grid.assign(xc=lo + (grid["xb"] + 0.5) * width, yc=o_lo + (grid["b"] + 0.5) * band - 0.5,
                           band=[f"ordinals {o_lo + b * band}–{min(o_hi, o_lo + (b + 1) * band - 1)}"
                                 for b in grid["b"]])
        # neither the decisions counted nor the bins' width, which move with every change (a new structure, drawn
        # anew in the page): the axes and each mark's tooltip (its count) say them
        subtitle = _("aggregated: decisions counted per band of {band} ordinals and per bin of the {x} axis; "
                     "size = how many").format(band=band, x=x)
    else:
        rows = df[["sync", "time", "action", "kind", "pod", "ordinal", "reason", "rule", "message", "outcome"]]
    return ChartData(build=strip_build,
                     structure=(set_name, x, kinds, aggregated, subtitle, ticks is None, emphasis),
                     rows={"marks": records(rows)}, params=axes_params(lo, hi, o_lo, o_hi, ticks),
                     width=WIDTH, height=chart_height(o_hi - o_lo + 1))


def strip_build(data: ChartData):
    """The decision strip's Altair panel (no configuration) of *data*, made by :func:`strip_data`."""
    set_name, x, kinds, aggregated, subtitle, _ticks, emphasis = data.structure
    lo, hi = data.params["x"]
    o_lo, o_hi = ordinals_of(data)
    kscale = dict(domain=list(kinds))
    stroke = alt.Stroke("kind:N", title=_("decision"), scale=alt.Scale(**kscale, range=[ACTION_COLORS[k] for k in kinds]))
    shape = alt.Shape("kind:N", title=_("decision"), scale=alt.Scale(**kscale, range=[ACTION_SHAPES[k] for k in kinds]))
    fill = alt.Fill("kind:N", title=_("decision"),
                    scale=alt.Scale(**kscale, range=["#FFFFFF" if k == "wait" else ACTION_COLORS[k] for k in kinds]),
                    legend=alt.Legend(orient="right"))
    y_scale = alt.Scale(domain=data.params["y"], nice=False, zero=False)
    y_axis = ordinal_axis(set_name, lo=o_lo, hi=o_hi)
    base = alt.Chart({"values": data.rows["marks"]})
    if aggregated:
        chart = base.mark_point(filled=True, strokeWidth=2, opacity=0.85).encode(
            x=alt.X("xc:Q", scale=x_scale(lo, hi), axis=x_axis(x)),
            y=alt.Y("yc:Q", scale=y_scale, axis=y_axis),
            fill=fill, stroke=stroke, shape=shape,
            size=alt.Size("size:Q", title=_("decisions"), scale=alt.Scale(range=[30, 400])),
            tooltip=[alt.Tooltip("band:N", title=_("pods")), alt.Tooltip("kind:N", title=_("decision")),
                     alt.Tooltip("size:Q", title=_("how many"))])
    else:
        size = alt.value(170) if emphasis is None else alt.condition(emphasis, alt.value(480), alt.value(150))
        chart = base.mark_point(filled=True, strokeWidth=2, opacity=1).encode(
            x=alt.X(f"{'sync' if x == 'sync' else 'time'}:Q", scale=x_scale(lo, hi), axis=x_axis(x)),
            y=alt.Y("ordinal:Q", scale=y_scale, axis=y_axis),
            fill=fill, stroke=stroke, shape=shape, size=size,
            tooltip=[alt.Tooltip("sync:Q"), alt.Tooltip("time:Q", title=_("time (s)"), format=".1f"),
                     alt.Tooltip("action:N"), alt.Tooltip("pod:N"), alt.Tooltip("reason:N"),
                     alt.Tooltip("message:N"), alt.Tooltip("rule:N"), alt.Tooltip("outcome:N")])
    return chart.properties(width=data.width, height=data.height,
                            title=chart_title(_("What each sync of {set} decided").format(set=set_name), subtitle))


def strip_panel(trace, set_name: str, include_other: bool = False, x: str = "sync", emphasis=None,
                until: float | None = None):
    return strip_build(strip_data(trace, set_name, include_other, x, emphasis, until))


def decision_strip_data(trace, set_name: str | None = None, include_other: bool = False, x: str = "sync",
                        until: float | None = None) -> ChartData:
    """:func:`decision_strip`'s data without the chart: ``charts.decision_strip_data(...).chart()`` is that chart."""
    trace = TablesOnce.of(trace)  # one DataFrame per table for this chart, or for the redraw (see there)
    return strip_data(trace, pick_set(trace, set_name), include_other, x, until=until)


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
    return decision_strip_data(trace, set_name, include_other, x, until).chart()
