"""The overview: the pod timeline, revision map, decision strip and status lanes on one sync axis,
linked by hovering.

Part of :mod:`stsedu.views.charts` (see there for how the charts are built and shown).
"""

from __future__ import annotations

import math

from .widget import alt  # first: imports Altair as the kit sets it up
from altair.utils.schemapi import debug_mode
import pandas as pd

from .. import tables
from . import common
from ..trace_tables import TablesOnce
from .common import CONFIG, WIDTH, chart_title, pick_set, x_extent, x_scale
from .timeline import timeline_panel
from .revisions import revision_panel
from .status import LANE_PX, status_layers
from .strip import strip_panel
from ...i18n import _


def sync_summary(trace, set_name: str, max_points: int = 400) -> pd.DataFrame:
    """One row per sync (thinned to at most *max_points*): sync, time, and what it decided, in words."""
    max_points = min(max_points, common.MAX_ROWS)
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
    set_name = pick_set(trace, set_name)
    # Built without Altair's check of each part as it is made: these parts are fixed by this code, and
    # to_dict() (which every display runs) validates the whole spec anyway.
    with debug_mode(False):
        return _overview(TablesOnce.of(trace), set_name)


def _overview(trace, set_name: str):
    lo, hi = x_extent(trace, "sync")
    marks = sync_summary(trace, set_name)
    marks = _rows(marks)
    xs = alt.X("sync:Q", scale=x_scale(lo, hi))
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
    tip = [alt.Tooltip("sync:Q"), alt.Tooltip("time:Q", title=_("time (s)"), format=".1f")]
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

    panels = [linked(timeline_panel(trace, set_name, "sync"), n_lanes, 0, with_label=True),
              linked(revision_panel(trace, set_name), n_lanes + 1, 1),
              linked(strip_panel(trace, set_name, emphasis=hovered), n_lanes + 2, 2)]
    data, lanes, lanes_title = status_layers(trace, set_name, "sync")
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
        title=chart_title(_("{set}: {n} syncs in {seconds} s").format(set=set_name, n=n, seconds=f"{end:.0f}"),
                          _("hover anywhere to pick a sync: a line marks it in every panel")),
        config=alt.Config(**CONFIG))
