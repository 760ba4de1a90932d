"""A chart's data apart from its drawing: :class:`ChartData` (the rows, the numeric domains, the size, and
what else the drawing depends on) and :func:`records` (a frame's rows as the spec holds them).

Part of :mod:`stsedu.views.charts`.  Each chart that a lab redraws has a data function beside its
Altair function (``pod_timeline_data`` beside ``pod_timeline``, ...); the Altair function is the
data function followed by the chart's ``build`` of that data, so the rows come from one place.  A
lab's redraw computes only the data: when its ``structure`` is the one on screen, the
:class:`~stsedu.views.charts.widget.ChartWidget` sends the rows and numbers alone and no Altair
object is made; the full spec is built only when the structure changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .common import with_config
from .widget import build_chart


@dataclass(frozen=True)
class ChartData:
    """What one chart draws, computed without Altair.

    ``build(data)`` makes the chart's Altair panel (no configuration) from this object alone, so two
    ChartData with the same ``build`` and ``structure`` make specs that differ only in ``rows`` (each
    a named inline dataset), ``params`` (numeric scale domains and axis tick lists), ``width`` and
    ``height``.  ``structure`` is everything else the drawing reads: titles, legends' domains,
    which layers there are, whether the run was aggregated.
    """

    build: Callable
    structure: tuple
    rows: dict
    params: dict
    width: int | None
    height: int | None
    """The chart's size; None for a chart of several panels, each with its own (the status counters' lanes)."""

    def chart(self):
        """The Altair chart of this data, as the chart function beside its data function returns it."""
        return with_config(build_chart(self.build, self))


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of *frame* as JSON-ready dicts: Python numbers and strings, ``None`` for a missing value
    (NaN), as Altair writes a DataFrame into a spec."""
    out = frame.to_dict("records")
    for row in out:
        for k, v in row.items():
            if isinstance(v, float) and math.isnan(v):
                row[k] = None
    return out


def axes_params(x_lo: float, x_hi: float, o_lo: int, o_hi: int, ticks: list[int] | None) -> dict:
    """The numeric parts of a pod chart's axes: the x domain, the ordinal (y) domain and, when every
    ordinal is labelled, the list of ordinals (see :func:`~stsedu.views.charts.common.ordinal_ticks`)."""
    params = {"x": [x_lo, x_hi], "y": [o_lo - 0.5, o_hi + 0.5]}
    if ticks is not None:
        params["yticks"] = ticks
    return params


def ordinals_of(data: ChartData) -> tuple[int, int]:
    """The lowest and highest ordinal on *data*'s y axis (its domain runs half a row past each)."""
    lo, hi = data.params["y"]
    return round(lo + 0.5), round(hi - 0.5)
