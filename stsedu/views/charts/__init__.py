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

Colours come from :mod:`stsedu.views.palette`, the same in every chart and table.
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

One module per chart (:mod:`.timeline`, :mod:`.revisions`, :mod:`.status`, :mod:`.strip`,
:mod:`.linked` (the overview), :mod:`.queue` for the controller's loop), what they share in :mod:`.common`, and
the widget, offline display and export in :mod:`.widget`.
"""

from .widget import EXPORT_HINT, ChartWidget, alt, build_chart, enable_offline, save, to_spec  # noqa: F401  (first: imports Altair)
from ..palette import ACTION_COLORS, ACTION_SHAPES, COUNTER_COLORS, REVISION_COLORS, STATE_COLORS  # noqa: F401
from .common import MAX_ROWS, revision_colors  # noqa: F401
from .chart_data import ChartData  # noqa: F401
from .timeline import pod_timeline, pod_timeline_data  # noqa: F401
from .revisions import revision_map, revision_map_data  # noqa: F401
from .status import status_counters, status_counters_data  # noqa: F401
from .strip import decision_strip, decision_strip_data  # noqa: F401
from .linked import overview  # noqa: F401
from .queue import queue_flow, queue_flow_data  # noqa: F401

__all__ = ["queue_flow", "queue_flow_data", "pod_timeline", "revision_map", "status_counters", "decision_strip", "overview",
           "pod_timeline_data", "revision_map_data", "decision_strip_data", "status_counters_data", "ChartData",
           "ChartWidget", "to_spec", "build_chart", "enable_offline", "save", "EXPORT_HINT", "revision_colors", "STATE_COLORS", "ACTION_COLORS",
           "ACTION_SHAPES", "REVISION_COLORS", "COUNTER_COLORS", "MAX_ROWS"]
