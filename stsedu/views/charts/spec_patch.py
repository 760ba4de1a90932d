"""A chart's Vega-Lite spec split into its structure and its values, so that a redraw that changes
only the values reaches the page as a few rows and numbers for the Vega view already there.

Part of :mod:`stsedu.views.charts` (used by :class:`~stsedu.views.charts.widget.ChartWidget`).

:func:`split` rewrites a spec so that what a lab's change moves is named, not written in:

- each inline dataset gets a name fixed by its order (``stsedu_data_0``, ...), not Altair's hash
  of its rows, so the same chart kind with new rows has the same structure;
- a numeric scale domain (the x axis reaching "now", the ordinals' extent) and an axis's list of
  tick values become top-level parameters (``stsedu_p0``, ...) the scale or axis reads by
  expression (Vega-Lite's ExprRef), with today's values as the parameters' values;
- the top-level width and height are left in the spec and also returned, since Vega sets them
  on a live view (``view.width``/``view.height``).

The result is ``(spec, skeleton, values)``: the spec to draw (same marks, colours, axes and
tooltips as the given one), the structure to compare with the one on screen (the rewritten spec
without its rows, parameter values and size), and the values (``datasets``, ``signals``,
``width``, ``height``) that bring a view of that structure to this chart.  Discrete domains
with their own colour or shape ranges (a legend) stay written in: a new revision or a new kind
of decision is a change of structure.
"""

from __future__ import annotations

PREFIX = "stsedu_"


def _numbers(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)


def _param(params: list, kind: str, value: list) -> str:
    """The parameter holding *value*: one already made with an equal value (the layers of one chart
    share their x domain, and Vega-Lite merges their scales), else a new one."""
    for name, k, v in params:
        if k == kind and v == value:
            return name
    name = f"{PREFIX}p{len(params)}"
    params.append((name, kind, value))
    return name


def _lift(node, names: dict, params: list):
    """A copy of *node* with its datasets renamed (via *names*) and its numeric domains and tick
    values replaced by parameters (appended to *params* as (name, value))."""
    if isinstance(node, list):
        return [_lift(x, names, params) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k == "data" and isinstance(v, dict) and isinstance(v.get("name"), str):
            out[k] = {**v, "name": names.setdefault(v["name"], f"{PREFIX}data_{len(names)}")}
        elif k == "scale" and isinstance(v, dict) and _numbers(v.get("domain")):
            out[k] = {**_lift(v, names, params), "domain": {"expr": _param(params, "domain", v["domain"])}}
        elif k == "axis" and isinstance(v, dict) and _numbers(v.get("values")):
            out[k] = {**_lift(v, names, params), "values": {"expr": _param(params, "values", v["values"])}}
        else:
            out[k] = _lift(v, names, params)
    return out


def split(spec: dict) -> tuple[dict, dict, dict]:
    """``(spec to draw, skeleton, values)`` of the Vega-Lite dict *spec* (see the module's text)."""
    names: dict[str, str] = {}
    params: list[tuple[str, str, list]] = []
    body = {k: v for k, v in spec.items() if k != "datasets"}
    body = _lift(body, names, params)
    datasets = {new: spec.get("datasets", {}).get(old, []) for old, new in names.items()}
    skeleton = {**body, "stsedu_params": [n for n, _, _ in params],
                "width": "w" if isinstance(body.get("width"), (int, float)) else body.get("width"),
                "height": "h" if isinstance(body.get("height"), (int, float)) else body.get("height")}
    drawn = dict(body)
    if params:
        drawn["params"] = list(body.get("params", [])) + [{"name": n, "value": v} for n, _, v in params]
    if datasets:
        drawn["datasets"] = datasets
    values = {"datasets": datasets, "signals": {n: v for n, _, v in params}}
    for k in ("width", "height"):
        if isinstance(body.get(k), (int, float)):
            values[k] = body[k]
    return drawn, skeleton, values
