"""ipywidgets panels that drive a simulated cluster and redraw its tables and charts.

* :class:`Playground`: the full panel.  It owns a :class:`~stsedu.Cluster`
  with one StatefulSet; its controls edit the set's spec the way ``kubectl``
  would (scale, merge patch, set image, delete and re-create), its buttons
  sync the controller, move the clock and the kubelet, and its views redraw
  after every action.  Pick fewer controls, actions or views for a focused
  panel (``Playground(controls=["replicas"], actions=["sync"], views=["decisions"])``).
* :class:`SyncStepper`: steps through the decisions of one sync and
  highlights the step of the upstream algorithm that made each.
* :class:`View` and its subclasses: the pluggable views a Playground shows.

Every action is a plain method (``pg.set_replicas(5)``, ``pg.sync_once()``)
that the widgets call; it never raises for a bad value: the API server's
error (field path and message) shows in the panel's error area, the
cluster is left exactly as it was, and the controls snap back to the
cluster's values.  ``pg.last_error`` holds the exception.
"""

from __future__ import annotations

import asyncio
import copy
import html
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import ipywidgets as W

from . import tables
from .cluster import Cluster
from .controller.decisions import (POD_ACTIONS, STEP_CLAIM, STEP_CLAIMS_FIX, STEP_CONDEMNED, STEP_HISTORY,
                        STEP_REPLICAS, STEP_REVISIONS, STEP_STATUS, STEP_UPDATE, Decision,
                        SyncResult)
from .api.errors import APIError, ValidationError
from .api.objects import REVISION_LABEL

__all__ = ["Playground", "SyncStepper", "View", "DecisionsView", "PodsView", "StatusView",
           "ChartView", "LogView", "CONTROLS", "ACTIONS", "VIEWS", "DEFAULT_VIEWS", "default_manifest"]

CONTROLS = ("replicas", "partition", "max_unavailable", "min_ready_seconds", "policy", "strategy",
            "image", "kubelet")
"""Control groups a Playground can show (``controls=``), in display order."""

ACTIONS = ("sync", "advance", "run", "pods", "never_ready", "undo", "reset")
"""Action groups a Playground can show (``actions=``): Sync once; Advance time; Run until
stable (with progress and Stop); the pod row (Start, Ready, Not ready, Fail, Delete, Finish
termination on a picked pod); Make an image never-ready; Undo rollout; Reset."""

VIEWS = ("decisions", "pods", "status", "timeline", "revisions", "strip", "counters", "overview", "log")
"""Built-in views (``views=``): the last sync's decisions, the pods, the status; charts from
:mod:`stsedu.charts` (``timeline`` = ``pod_timeline``, ``revisions`` = ``revision_map``,
``strip`` = ``decision_strip``, ``counters`` = ``status_counters``, ``overview``); the sync log.
``"charts"`` stands for timeline, revisions and strip."""

DEFAULT_VIEWS = ("decisions", "pods", "status", "timeline", "revisions", "strip", "log")
"""What a Playground shows by default.  ``counters`` and ``overview`` are left out: they take
about 0.5 s and 3 s to rebuild for 50 replicas (Altair validates every layer), against tens of
milliseconds for the others."""

SPEEDS = (("×0.25 (slow)", 0.25), ("×0.5", 0.5), ("×1", 1.0), ("×2", 2.0), ("×4 (fast)", 4.0))
"""Kubelet speeds: the stage profile's delays are divided by the factor."""

ADVANCE_STEPS = (1, 2, 5, 10, 30, 60)
"""Seconds the Advance button can move the clock by."""

DEFAULT_IMAGES = ("registry.k8s.io/nginx-slim:0.24", "registry.k8s.io/nginx-slim:0.25",
                  "registry.k8s.io/nginx-slim:0.26")
"""Images offered for the default manifest (the concept page's nginx-slim, then newer tags)."""

STEP_ORDER = (
    (STEP_CLAIM, "claim", "sync: adoptOrphanRevisions, getPodsForStatefulSet (ClaimPods)"),
    (STEP_REVISIONS, "revisions", "getStatefulSetRevisions"),
    (STEP_REPLICAS, "replicas", "updateStatefulSet: processReplica, for each ordinal in range"),
    (STEP_CLAIMS_FIX, "fix claims", "updateStatefulSet: fixPodClaim, for each condemned pod"),
    (STEP_CONDEMNED, "condemned", "updateStatefulSet: processCondemned, highest ordinal first"),
    (STEP_UPDATE, "rolling update", "updateStatefulSet: delete pods not at the update revision"),
    (STEP_STATUS, "status", "updateStatefulSetStatus"),
    (STEP_HISTORY, "history", "truncateHistory"),
)
"""The steps of one sync, in upstream order: (step key, short label, upstream function)."""

_POLICY_NOTE = ("Immutable: changing it deletes the set with <code>--cascade=orphan</code> "
                "(the pods keep running) and re-creates it; the next sync adopts the pods.")

_CSS = """
<style>
.stsedu-pg { font-size: 13px; }
.stsedu-pg .stsedu-title { font-size: 15px; font-weight: 600; margin: 2px 0 4px 0; }
.stsedu-pg .stsedu-sub { color: var(--jp-ui-font-color2, #666); font-weight: normal; font-size: 12px; }
.stsedu-pg .stsedu-rowlabel { font-weight: 600; color: var(--jp-ui-font-color1, #333); }
.stsedu-pg .stsedu-note { color: var(--jp-ui-font-color2, #666); font-size: 11.5px; line-height: 1.3; }
.stsedu-pg .stsedu-error { background: #fdecea; color: #8a1c14; border-left: 4px solid #d32f2f;
  padding: 4px 10px; margin: 2px 0; }
.stsedu-pg .stsedu-error ul { margin: 2px 0 2px 18px; padding: 0; }
.stsedu-pg .stsedu-info { background: #eef4fb; border-left: 4px solid #1f6feb; padding: 4px 10px;
  margin: 2px 0; color: #0b2a4a; }
.stsedu-pg .stsedu-viewtitle { font-weight: 600; margin: 6px 0 2px 0; }
.stsedu-pg table.stsedu { border-collapse: collapse; font-size: 12px; line-height: 1.35; }
.stsedu-pg table.stsedu th { text-align: left; padding: 2px 8px; border-bottom: 2px solid #bbb;
  font-weight: 600; white-space: nowrap; }
.stsedu-pg table.stsedu td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #e3e3e3;
  vertical-align: top; }
.stsedu-pg table.stsedu td.mono, .stsedu-pg table.stsedu th.mono {
  font-family: var(--jp-code-font-family, monospace); white-space: nowrap; }
.stsedu-pg table.stsedu td.code { font-family: var(--jp-code-font-family, monospace); }
.stsedu-pg table.stsedu td.rule { color: #666; font-size: 11px; }
.stsedu-pg .sa-create { color: #1a7f37; font-weight: 600; }
.stsedu-pg .sa-delete { color: #cf222e; font-weight: 600; }
.stsedu-pg .sa-update { color: #0969da; font-weight: 600; }
.stsedu-pg .sa-wait { color: #9a6700; font-weight: 600; }
.stsedu-pg .sa-other { color: #57606a; }
.stsedu-pg tr.minor td { color: #8c959f; }
.stsedu-pg .st-ready { color: #1a7f37; }
.stsedu-pg .st-wait { color: #9a6700; }
.stsedu-pg .st-bad { color: #cf222e; font-weight: 600; }
.stsedu-pg .st-term { color: #8c959f; }
.stsedu-pg .stsedu-scroll { max-height: 260px; overflow-y: auto; }
.stsedu-pg .stsedu-decisions-view table, .stsedu-pg .stsedu-stepper-table table { line-height: 1.35; }
.stsedu-pg pre.stsedu-pre { font-family: var(--jp-code-font-family, monospace); font-size: 12px;
  line-height: 1.35; margin: 0; padding: 4px 6px; background: var(--jp-layout-color2, #f6f8fa);
  border-radius: 3px; }
.stsedu-pg table.stsedu-steps { border-collapse: collapse; font-size: 12px; line-height: 1.3; }
.stsedu-pg table.stsedu-steps th { text-align: left; padding: 1px 6px; font-weight: 600;
  border-bottom: 2px solid #bbb; }
.stsedu-pg table.stsedu-steps td { padding: 2px 6px; border-left: 3px solid transparent; white-space: nowrap; }
.stsedu-pg table.stsedu-steps td.fn { color: #57606a; font-size: 11px; border-left: none; white-space: normal; }
.stsedu-pg table.stsedu-steps td.count { text-align: right; border-left: none; }
.stsedu-pg table.stsedu-steps tr.current td { background: #fff8c5; font-weight: 600; }
.stsedu-pg table.stsedu-steps tr.current td.step { border-left-color: #bf8700; }
.stsedu-pg table.stsedu-steps tr.empty td { color: #8c959f; }
.stsedu-pg .stsedu-card { border: 1px solid #d0d7de; border-radius: 4px; padding: 6px 10px; line-height: 1.4; }
.stsedu-pg tr.current td { background: #fff8c5; }
</style>
"""


def default_manifest() -> list[dict]:
    """The concept page's ``web`` example (headless Service ``nginx`` + StatefulSet ``web``).

    ``minReadySeconds: 10`` is removed, so the first syncs a learner sees are
    the plain OrderedReady dance (create, wait for Running and Ready, create);
    the panel's minReadySeconds control puts it back.
    """
    import yaml
    text = (Path(__file__).parent / "data" / "web.yaml").read_text()
    docs = [d for d in yaml.safe_load_all(text) if d]
    for d in docs:
        if d.get("kind") == "StatefulSet":
            d["spec"].pop("minReadySeconds", None)
    return docs


# =========================================================================== rendering
# Private HTML renderers.  They stand in for stsedu.tables / stsedu.charts until those land.

def _esc(x: Any) -> str:
    return "" if x is None else html.escape(str(x))


def _action_class(action: str) -> str:
    return f"sa-{action}" if action in POD_ACTIONS else "sa-other"


def _error_html(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        head = (f'{_esc(exc.kind)} "{_esc(exc.name)}" is invalid' if exc.name
                else f"{_esc(exc.kind)} is invalid")
        items = "".join(f"<li><code>{_esc(p)}</code>: {_esc(m)}</li>" if p else f"<li>{_esc(m)}</li>"
                        for p, m in exc.errors)
        return (f"<div class='stsedu-error'><b>Error:</b> {head}<ul>{items}</ul>"
                "Nothing was changed.</div>")
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return (f"<div class='stsedu-error'><b>Error ({type(exc).__name__}):</b> {_esc(text)}. "
            "Nothing was changed.</div>")


def _summary(decisions: Iterable) -> str:
    """'create web-3 · wait web-3 (not-running-ready)' for the pod decisions of a sync."""
    parts = []
    for d in decisions:
        action, pod, reason = (d.action, d.pod, d.reason) if isinstance(d, Decision) else d
        if action not in POD_ACTIONS:
            continue
        parts.append(f"<span class='{_action_class(action)}'>{_esc(action)}</span> "
                     f"{_esc(pod or '')} <span class='stsedu-note'>({_esc(reason)})</span>")
    return " · ".join(parts) if parts else "<span class='stsedu-note'>no pod decisions</span>"


# =============================================================================== views

class View:
    """One part of a Playground that redraws from the cluster after every action.

    Subclasses set :attr:`title`, build their widget in ``__init__`` (call
    ``super().__init__()``), and implement :meth:`update`.  *area* says where
    the panel puts the view, under the controls and in the order given:
    ``"full"`` (full width), ``"main"`` (consecutive main views share a
    row, side by side) or ``"tab"`` (one tab each, at the bottom; a tab
    redraws only while it is shown).
    """

    title = "view"
    area = "tab"

    def __init__(self) -> None:
        self.widget: W.Widget = W.HTML()

    def update(self, pg: "Playground") -> None:
        """Redraw from ``pg.cluster`` (and ``pg.last_result``, the last sync)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget incremental state (the panel made a new cluster)."""


class DecisionsView(View):
    """The decisions of the last sync, in the order the controller made them."""

    title = "Last sync's decisions"
    area = "full"

    def __init__(self) -> None:
        super().__init__()
        self.heading = W.HTML(f"<div class='stsedu-viewtitle'>{self.title}</div>")
        self.table = W.HTML()
        self.table.add_class("stsedu-decisions-view")
        self.widget = W.VBox([self.heading, self.table], layout=W.Layout(width="100%"))

    _shown: Any = None

    def reset(self) -> None:
        self._shown = None

    def update(self, pg: "Playground") -> None:
        r = pg.last_result
        if r is not None and r is self._shown:
            return  # still the same sync: the Styler is not rebuilt for a spec edit
        self._shown = r
        if r is None:
            self.heading.value = (f"<div class='stsedu-viewtitle'>{self.title} "
                                  "<span class='stsedu-sub'>(no sync yet: click Sync once)</span></div>")
            self.table.value = ""
            return
        err = f" · <span class='st-bad'>stopped: {_esc(r.error)}</span>" if r.error else ""
        self.heading.value = (f"<div class='stsedu-viewtitle'>{self.title} "
                              f"<span class='stsedu-sub'>sync {r.sync} of {_esc(r.set_name)}, "
                              f"t={r.time:g}s{err}</span></div>")
        if not r.decisions:
            self.table.value = (f"<p class='stsedu-note'>Sync {r.sync} decided nothing: no pod to create, "
                                "delete or wait for, and the status was already up to date. "
                                "The Sync log tab lists every sync.</p>")
            return
        self.table.value = (tables.decisions_table(r)
                            .hide(subset=["sync", "time"], axis="columns").to_html())


class PodsView(View):
    """The set's pods as ``kubectl get pods -L controller-revision-hash`` prints them now."""

    title = "Pods"
    area = "main"

    def __init__(self) -> None:
        super().__init__()
        self.heading = W.HTML(f"<div class='stsedu-viewtitle'>{self.title}</div>")
        self.table = W.HTML()
        self.table.add_class("stsedu-pods-view")
        self.widget = W.VBox([self.heading, self.table], layout=W.Layout(flex="0 0 auto"))

    _key: Any = None

    def reset(self) -> None:
        self._key = None

    def update(self, pg: "Playground") -> None:
        c = pg.cluster
        try:
            update_rev = c.statefulset(pg.name).status.update_revision
        except KeyError:
            update_rev = ""
        # every pod change is traced, and AGE follows the clock
        key = (id(c), c.now, len(c.trace.rows()["pods"]), update_rev)
        if key == self._key:
            return
        self._key = key
        rev = f" · update revision <code>{_esc(update_rev)}</code>" if update_rev else ""
        self.heading.value = (f"<div class='stsedu-viewtitle'>{self.title} <span class='stsedu-sub'>"
                              f"kubectl get pods -L controller-revision-hash · t={c.now:g}s{rev}</span></div>")
        text = tables.get_pods_text(c, pg.name, label_columns=(REVISION_LABEL,))
        self.table.value = f"<pre class='stsedu-pre stsedu-scroll'>{_esc(text)}</pre>"


class StatusView(View):
    """The set's status as ``kubectl get sts`` and ``kubectl rollout status`` would show it,
    plus what the next sync would do."""

    title = "Status"
    area = "main"

    def __init__(self) -> None:
        super().__init__()
        self.widget = W.HTML(layout=W.Layout(flex="1 1 320px"))
        self.widget.add_class("stsedu-status-view")

    def update(self, pg: "Playground") -> None:
        c = pg.cluster
        try:
            sts = c.statefulset(pg.name)
        except KeyError:
            self.widget.value = f"<p class='stsedu-note'>StatefulSet {_esc(pg.name)} does not exist.</p>"
            return
        s, spec = sts.status, sts.spec
        strategy = spec.update_strategy
        if spec.rolling_update is not None:
            ru = spec.rolling_update
            strategy += f" (partition {ru.partition}"
            strategy += f", maxUnavailable {ru.max_unavailable})" if ru.max_unavailable is not None else ")"
        rev = (f"current <code>{_esc(s.current_revision)}</code>" +
               ("" if s.update_revision == s.current_revision
                else f" → update <code>{_esc(s.update_revision)}</code>"))
        try:
            nxt = c.preview(pg.name)
            preview = _summary(nxt.decisions)
        except Exception as e:  # noqa: BLE001 - the preview is only a hint
            preview = f"<span class='stsedu-note'>(no preview: {_esc(e)})</span>"
        broken = sorted(pg.never_ready_images)
        broken_txt = ("<br><b>never-ready images:</b> " + ", ".join(f"<code>{_esc(b)}</code>" for b in broken)
                      if broken else "")
        self.widget.value = (
            f"<div class='stsedu-viewtitle'>{self.title} <span class='stsedu-sub'>"
            f"observedGeneration {s.observed_generation} of {sts.generation}</span></div>"
            f"<pre class='stsedu-pre'>{_esc(tables.get_sts_text(c))}</pre>"
            "<table class='stsedu stsedu-status'><tbody>"
            f"<tr><td><b>spec</b></td><td class='code'>replicas {spec.replicas} · "
            f"{_esc(spec.pod_management_policy)} · {_esc(strategy)} · minReadySeconds "
            f"{spec.min_ready_seconds} · generation {sts.generation}</td></tr>"
            f"<tr><td><b>status</b></td><td class='code'>replicas {s.replicas} · ready {s.ready_replicas} · "
            f"available {s.available_replicas} · current {s.current_replicas} · updated "
            f"{s.updated_replicas} · observedGeneration {s.observed_generation}</td></tr>"
            f"<tr><td><b>revisions</b></td><td>{rev}</td></tr>"
            f"<tr><td><b>rollout</b></td><td class='code'>{_esc(c.rollout_status(pg.name))}</td></tr>"
            f"<tr><td><b>next sync</b></td><td>{preview}{broken_txt}</td></tr>"
            "</tbody></table>")


_OFFLINE_DONE = False


def _enable_offline_charts() -> None:
    """Bundle Vega into the chart widget (once, and only under a kernel: no CDN needed)."""
    global _OFFLINE_DONE
    if _OFFLINE_DONE:
        return
    _OFFLINE_DONE = True
    try:
        from IPython import get_ipython
        if get_ipython() is None:
            return
    except ImportError:  # pragma: no cover
        return
    from . import charts
    charts.enable_offline()


class ChartView(View):
    """An Altair chart of the trace in an ``alt.JupyterChart`` that updates in place.

    *chart_fn(trace, set_name)* (or *chart_fn(trace)*) returns the chart.
    The chart is rebuilt only when the trace has grown or the clock moved.
    """

    title = "Chart"
    area = "tab"

    def __init__(self, chart_fn: Callable, title: str | None = None) -> None:
        super().__init__()
        import inspect

        import altair as alt
        _enable_offline_charts()
        self.chart_fn = chart_fn
        try:
            params = [p for p in inspect.signature(chart_fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            self._with_name = len(params) >= 2
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            self._with_name = False
        if title:
            self.title = title
        self.chart = None
        self._key: tuple | None = None
        self.jchart = alt.JupyterChart(alt.Chart().mark_point(), layout=W.Layout(display="none"))
        self.note = W.HTML()
        self.widget = W.VBox([self.note, self.jchart])

    def reset(self) -> None:
        self._key = None

    def update(self, pg: "Playground") -> None:
        trace = pg.cluster.trace
        rows = trace.rows()
        key = (id(trace), pg.cluster.now) + tuple(len(rows[k]) for k in ("syncs", "decisions", "pods", "status"))
        if key == self._key:
            return  # nothing the chart shows has changed (a spec edit waits for the next sync)
        self._key = key
        if not rows["syncs"]:
            self.note.value = "<p class='stsedu-note'>No syncs yet: the chart appears after the first sync.</p>"
            self.jchart.layout.display = "none"
            return
        try:
            chart = self.chart_fn(trace, pg.name) if self._with_name else self.chart_fn(trace)
        except Exception as e:  # noqa: BLE001 - a broken chart must not break the panel
            self.note.value = f"<div class='stsedu-error'>chart failed: {_esc(type(e).__name__)}: {_esc(e)}</div>"
            return
        self.note.value = ""
        self.chart = chart
        # Assigning a chart that compares "equal" is ignored by traitlets (Altair
        # expressions overload ==); None first, inside hold_sync, so the frontend
        # only ever receives the final spec (no blank frame, no flicker).
        with self.jchart.hold_sync():
            self.jchart.chart = None
            self.jchart.chart = chart
        self.jchart.layout.display = None


def _chart(name: str, title: str) -> Callable[[], ChartView]:
    def make() -> ChartView:
        from . import charts
        return ChartView(getattr(charts, name), title=title)
    make.__doc__ = f"A ChartView of stsedu.charts.{name}."
    return make


class LogView(View):
    """Every sync of the set: time, its pod decisions, the status it computed.  Grows incrementally."""

    title = "Sync log"
    area = "tab"
    keep = 300
    """How many syncs the log shows (the newest)."""

    def __init__(self) -> None:
        super().__init__()
        self.widget = W.HTML()
        self.widget.add_class("stsedu-log-view")
        self._rows: list[str] = []
        self._seen = 0

    def reset(self) -> None:
        self._rows, self._seen = [], 0

    def update(self, pg: "Playground") -> None:
        trace = pg.cluster.trace
        n = len(trace)
        if n > self._seen:
            syncs = trace.syncs()
            new = syncs.iloc[self._seen:]
            dec = trace.decisions()
            dec = dec[dec["sync"].isin(set(new["sync"]))]
            by_sync: dict[int, list] = {}
            for row in dec.itertuples(index=False):
                by_sync.setdefault(row.sync, []).append((row.action, row.pod, row.reason))
            st = trace.status()
            st = st[st["sync"].isin(set(new["sync"]))].set_index("sync")
            for row in new.itertuples(index=False):
                status = ""
                if row.sync in st.index:
                    s = st.loc[row.sync]
                    if hasattr(s, "ndim") and s.ndim > 1:  # pragma: no cover - one row per sync
                        s = s.iloc[-1]
                    status = (f"{int(s['ready_replicas'])}/{int(s['spec_replicas'])} ready, "
                              f"{int(s['updated_replicas'])} updated")
                err = f" <span class='st-bad'>{_esc(row.error)}</span>" if row.error else ""
                self._rows.append(
                    f"<tr><td class='mono'>{row.sync}</td><td class='mono'>{row.time:g}s</td>"
                    f"<td class='mono'>{_esc(row.set)}</td><td>{_summary(by_sync.get(row.sync, []))}{err}</td>"
                    f"<td class='mono'>{status}</td></tr>")
            self._seen = n
        shown = self._rows[-self.keep:]
        more = (f"<p class='stsedu-note'>{len(self._rows) - len(shown)} earlier syncs not shown.</p>"
                if len(self._rows) > len(shown) else "")
        if not shown:
            self.widget.value = "<p class='stsedu-note'>No syncs yet.</p>"
            return
        self.widget.value = (
            more + "<div class='stsedu-scroll'><table class='stsedu stsedu-log'><thead><tr><th>sync</th>"
            "<th>time</th><th>set</th><th>pod decisions</th><th>status</th></tr></thead><tbody>"
            + "".join(reversed(shown)) + "</tbody></table></div>")


_VIEW_CLASSES: dict[str, Callable[[], View]] = {
    "decisions": DecisionsView, "pods": PodsView, "status": StatusView,
    "timeline": _chart("pod_timeline", "Pod timeline"),
    "revisions": _chart("revision_map", "Revisions"),
    "strip": _chart("decision_strip", "Decisions per sync"),
    "counters": _chart("status_counters", "Status counters"),
    "overview": _chart("overview", "Overview"),
    "log": LogView,
}
_VIEW_ALIASES = {"charts": ("timeline", "revisions", "strip")}


# ========================================================================== Playground

def _kernel_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop if we run inside a Jupyter kernel (comm handlers run on it), else None."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:  # pragma: no cover
        return None
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _choose(given, known: Sequence[str], what: str) -> tuple[str, ...]:
    if given is None:
        return tuple(known)
    if isinstance(given, str):
        given = [given]
    given = tuple(given)
    bad = [g for g in given if g not in known]
    if bad:
        raise ValueError(f"unknown {what} {bad}; known: {', '.join(known)}")
    return given


class Playground:
    """A panel that owns a :class:`~stsedu.Cluster` with one StatefulSet and drives it.

    *manifest* is YAML text, a dict or a list of dicts (a Service beside the
    set is fine), or None for :func:`default_manifest` (the concept page's
    ``web`` example without minReadySeconds); *replicas* overrides its
    ``spec.replicas``.  *kubelet*, *seed*, *profile*,
    *feature_gates* and *stages* go to :class:`~stsedu.Cluster`.  With
    *settle* the set is first run until stable, so the panel starts from
    running pods.  *controls*, *actions* and *views* pick what the panel
    shows (names from :data:`CONTROLS`, :data:`ACTIONS`, :data:`VIEWS`;
    *views* may also hold :class:`View` instances).  *images* are the
    images offered for rollouts; *max_replicas* bounds the replicas slider.

    Attributes: ``cluster``, ``name`` (the set), ``widget`` (the root VBox),
    ``last_result`` (the last :class:`~stsedu.SyncResult` or None),
    ``last_error`` (the exception the last action showed, or None),
    ``views`` (the :class:`View` objects).  Every action method returns
    what the cluster call returned, or None when it showed an error.

    Raise ValueError for unknown control/action/view names or cluster
    options, and :class:`~stsedu.ValidationError` for an invalid manifest.
    """

    def __init__(self, manifest: str | Mapping | list | None = None, *, kubelet: str = "auto",
                 seed: int = 0, profile: str = "current", feature_gates: Mapping[str, bool] | None = None,
                 stages: Any = None, replicas: int | None = None, settle: bool = False,
                 controls: Sequence[str] | None = None, actions: Sequence[str] | None = None,
                 views: Sequence[str | View] | None = None, images: Sequence[str] | None = None,
                 max_replicas: int | None = None, max_syncs: int = 1000) -> None:
        self._manifest = _as_docs(manifest) if manifest is not None else default_manifest()
        if replicas is not None:
            for d in self._manifest:
                if d.get("kind") == "StatefulSet":
                    d.setdefault("spec", {})["replicas"] = replicas
        self._options = dict(seed=seed, profile=profile, feature_gates=feature_gates, stages=stages)
        self._settle = settle
        self.max_syncs = max_syncs
        self.controls_shown = _choose(controls, CONTROLS, "controls")
        self.actions_shown = _choose(actions, ACTIONS, "actions")
        view_list = list(DEFAULT_VIEWS) if views is None else (
            [views] if isinstance(views, (str, View)) else list(views))
        view_list = [a for v in view_list for a in (_VIEW_ALIASES.get(v, (v,)) if isinstance(v, str) else (v,))]
        self.views: list[View] = []
        for v in view_list:
            if isinstance(v, View):
                self.views.append(v)
            elif v in _VIEW_CLASSES:
                self.views.append(_VIEW_CLASSES[v]())
            else:
                raise ValueError(f"unknown view {v!r}; known: {', '.join(VIEWS)}, charts, or a View instance")
        self.last_result: SyncResult | None = None
        self.last_error: BaseException | None = None
        self._loading = False
        self._running = False
        self._stop_requested = False
        self._outcome = "max"
        self._task: asyncio.Task | None = None
        self._speed = 1.0
        self._base_stages = None
        self.never_ready_images: set[str] = set()
        """Images made never-ready in this panel (the kubelet keeps them until Reset)."""
        self.cluster, self.name = self._new_cluster(kubelet)
        self._image_choices = self._initial_images(images)
        self._max_replicas = max_replicas
        self._build()
        self.refresh()

    # ------------------------------------------------------------------ building
    def _new_cluster(self, kubelet: str) -> tuple[Cluster, str]:
        c = Cluster(kubelet=kubelet, **self._options)
        sts = c.apply(copy.deepcopy(self._manifest))
        from .api.objects import StatefulSet
        if not isinstance(sts, StatefulSet):
            raise ValueError("the manifest has no StatefulSet")
        self._base_stages = c.kubelet.stages
        self._apply_speed(c)
        if self._settle:
            if kubelet == "manual":
                c.settle(sts.name, max_syncs=self.max_syncs)
            else:
                c.run(sts.name, max_syncs=self.max_syncs)
        return c, sts.name

    def _initial_images(self, images) -> list[str]:
        current = self._current_images()
        out = list(images) if images is not None else (
            list(DEFAULT_IMAGES) if current and current[0] in DEFAULT_IMAGES else [])
        for img in current:
            if img not in out:
                out.insert(0, img)
        return out

    def _current_images(self) -> list[str]:
        try:
            sts = self.cluster.statefulset(self.name)
        except KeyError:
            return []
        return [c.get("image", "") for c in sts.spec.template.get("spec", {}).get("containers", [])]

    def _build(self) -> None:
        d110 = {"description_width": "110px"}

        def lay(width: str) -> W.Layout:
            return W.Layout(width=width)

        def label(text: str) -> W.HTML:
            return W.HTML(f"<span class='stsedu-rowlabel'>{text}</span>", layout=lay("80px"))

        def row(name: str, items: list[W.Widget]) -> W.HBox:
            return W.HBox([label(name)] + items, layout=W.Layout(flex_flow="row wrap", align_items="center"))

        self.title = W.HTML()
        self.error = W.HTML(layout=W.Layout(display="none"))
        self.error.add_class("stsedu-error-area")
        self.info = W.HTML()
        self.info.add_class("stsedu-info-area")

        # ---- controls: the spec (kubectl scale / patch / set image), the kubelet
        self.replicas = W.IntSlider(description="replicas", min=0, max=20, continuous_update=False,
                                    style=d110, layout=lay("400px"))
        self.partition = W.IntSlider(description="partition", min=0, max=3, continuous_update=False,
                                     style=d110, layout=lay("400px"))
        self.max_unavailable = W.Text(description="maxUnavailable", continuous_update=False,
                                      placeholder="1, 2 or 50%", style=d110, layout=lay("220px"))
        self.min_ready_seconds = W.IntText(description="minReadySeconds", style={"description_width": "125px"},
                                           layout=lay("235px"))
        self.strategy = W.Dropdown(description="updateStrategy", options=["RollingUpdate", "OnDelete"],
                                   style=d110, layout=lay("260px"))
        self.policy = W.Dropdown(description="podManagementPolicy", options=["OrderedReady", "Parallel"],
                                 style={"description_width": "160px"}, layout=lay("310px"))
        self.policy_note = W.HTML(f"<div class='stsedu-note'>{_POLICY_NOTE}</div>", layout=lay("520px"))
        self.image = W.Combobox(description="image", options=list(self._image_choices), ensure_option=False,
                                continuous_update=False, placeholder="an image; Enter to roll out",
                                style=d110, layout=lay("440px"))
        self.kubelet_mode = W.Dropdown(description="mode", options=["auto", "manual"],
                                       style={"description_width": "40px"}, layout=lay("140px"),
                                       tooltip="changing it starts a fresh cluster with the current spec")
        self.speed = W.Dropdown(description="speed", options=list(SPEEDS), value=1.0,
                                style={"description_width": "45px"}, layout=lay("170px"))

        self.replicas.observe(self._obs(self.set_replicas), names="value")
        self.partition.observe(self._obs(self.set_partition), names="value")
        self.max_unavailable.observe(self._obs(self.set_max_unavailable), names="value")
        self.min_ready_seconds.observe(self._obs(self.set_min_ready_seconds), names="value")
        self.policy.observe(self._obs(self.set_policy), names="value")
        self.strategy.observe(self._obs(self.set_strategy), names="value")
        self.image.observe(self._obs(self.set_image), names="value")
        self.kubelet_mode.observe(self._obs(self.set_kubelet_mode), names="value")
        self.speed.observe(self._obs(self.set_speed), names="value")

        # ---- actions
        self.sync_button = W.Button(description="Sync once", button_style="primary", icon="play",
                                    tooltip="One reconcile of the set: the controller's sync()",
                                    layout=lay("110px"))
        self.advance_button = W.Button(description="Advance time", icon="clock-o", layout=lay("135px"),
                                       tooltip="Move the clock; the kubelet acts, the controller does not")
        self.advance_by = W.Dropdown(options=[(f"{s} s", s) for s in ADVANCE_STEPS], value=5,
                                     layout=lay("70px"))
        self.run_button = W.Button(description="Run until stable", icon="forward", layout=lay("145px"),
                                   tooltip="Sync, and let time pass while the controller only waits")
        self.stop_button = W.Button(description="Stop", icon="stop", disabled=True, layout=lay("75px"))
        self.reset_button = W.Button(description="Reset", icon="refresh", layout=lay("85px"),
                                     tooltip="A new cluster from the original manifest")
        self.progress = W.IntProgress(value=0, min=0, max=1, layout=lay("110px"))
        self.progress_label = W.HTML()
        self.pod_pick = W.Dropdown(description="pod", options=[], style={"description_width": "30px"},
                                   layout=lay("150px"))

        def small(text: str, tip: str, width: str, **kw) -> W.Button:
            return W.Button(description=text, tooltip=tip, layout=lay(width), **kw)
        self.start_button = small("Start", "kubelet: Pending → Running", "70px")
        self.ready_button = small("Ready", "kubelet: the readiness probe passes", "70px")
        self.unready_button = small("Not ready", "kubelet: the readiness probe fails", "90px")
        self.fail_button = small("Fail", "kubelet: the phase becomes Failed", "65px", button_style="danger")
        self.delete_button = small("Delete", "kubectl delete pod (graceful)", "75px")
        self.finish_button = small("Finish termination", "kubelet: a terminating pod disappears", "145px")
        self.never_ready_pick = W.Dropdown(description="never-ready", options=list(self._image_choices),
                                           style={"description_width": "85px"}, layout=lay("340px"))
        self.never_ready_button = W.Button(description="Make never-ready", icon="ban", layout=lay("165px"),
                                           tooltip="Pods running this image never pass their readiness probe")
        self.undo_button = W.Button(description="Undo rollout", icon="undo", layout=lay("125px"),
                                    tooltip="kubectl rollout undo: put back the previous template")

        self.sync_button.on_click(lambda _b: self.sync_once())
        self.advance_button.on_click(lambda _b: self.advance())
        self.run_button.on_click(lambda _b: self._on_run_clicked())
        self.stop_button.on_click(lambda _b: self.stop())
        self.start_button.on_click(lambda _b: self.start_pod())
        self.ready_button.on_click(lambda _b: self.ready_pod())
        self.unready_button.on_click(lambda _b: self.unready_pod())
        self.fail_button.on_click(lambda _b: self.fail_pod())
        self.delete_button.on_click(lambda _b: self.delete_pod())
        self.finish_button.on_click(lambda _b: self.finish_termination())
        self.never_ready_button.on_click(lambda _b: self.make_never_ready())
        self.undo_button.on_click(lambda _b: self.undo_rollout())
        self.reset_button.on_click(lambda _b: self.reset())

        # ---- layout
        c, a = self.controls_shown, self.actions_shown

        def pick(pairs) -> list[W.Widget]:
            out: list[W.Widget] = []
            for key, widgets in pairs:
                if key in c or key in a:
                    out += widgets
            return out
        rows: list[W.Widget] = []
        ctl = pick([("sync", [self.sync_button]), ("advance", [self.advance_button, self.advance_by]),
                    ("run", [self.run_button, self.stop_button]), ("reset", [self.reset_button]),
                    ("run", [self.progress, self.progress_label])])
        if ctl:
            rows.append(row("Controller", ctl))
        spec_rows = [pick([("replicas", [self.replicas]), ("partition", [self.partition])]),
                     pick([("max_unavailable", [self.max_unavailable]),
                           ("min_ready_seconds", [self.min_ready_seconds]), ("strategy", [self.strategy])]),
                     pick([("policy", [self.policy, self.policy_note])])]
        for i, items in enumerate(r for r in spec_rows if r):
            rows.append(row("Spec" if i == 0 else "", items))
        rollout = pick([("image", [self.image]), ("undo", [self.undo_button])])
        if rollout:
            rows.append(row("Rollout", rollout))
        pod_row = pick([("pods", [self.pod_pick, self.start_button, self.ready_button, self.unready_button,
                                  self.fail_button, self.delete_button, self.finish_button])])
        if pod_row:
            rows.append(row("Pod", pod_row))
        kub = pick([("kubelet", [self.kubelet_mode, self.speed]),
                    ("never_ready", [self.never_ready_pick, self.never_ready_button])])
        if kub:
            rows.append(row("Kubelet", kub))

        parts: list[W.Widget] = [W.HTML(_CSS), self.title, self.error, self.info] + rows
        pending_main: list[W.Widget] = []

        def flush() -> None:
            if pending_main:
                parts.append(W.HBox(list(pending_main), layout=W.Layout(
                    flex_flow="row wrap", align_items="flex-start", grid_gap="24px", width="100%")))
                pending_main.clear()
        tabbed: list[View] = []
        for v in self.views:
            if v.area == "main":
                pending_main.append(v.widget)
            elif v.area == "full":
                flush()
                parts.append(v.widget)
            else:
                tabbed.append(v)
        flush()
        self.tabs = None
        if tabbed:
            self.tabs = W.Tab(children=[v.widget for v in tabbed], titles=[v.title for v in tabbed],
                              layout=W.Layout(margin="8px 0 0 0"))
            self.tabs.observe(lambda ch: self._update_views(), names="selected_index")
            parts.append(self.tabs)
        self._tabbed = tabbed
        self.widget = W.VBox(parts, layout=W.Layout(width="100%"))
        self.widget.add_class("stsedu-pg")

    def _obs(self, fn: Callable[[Any], Any]) -> Callable[[dict], None]:
        def handler(change):
            if not self._loading:
                fn(change["new"])
        return handler

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        try:
            spec = self._sts().spec
            what = (f"{spec.replicas} replicas, {spec.pod_management_policy}, {spec.update_strategy}")
        except KeyError:
            what = "deleted"
        return (f"<Playground: StatefulSet {self.name} ({what}), t={self.cluster.now:g}s, "
                f"{len(self.cluster.trace)} syncs>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": repr(self)}
        return bundle

    # ---------------------------------------------------------------- plumbing
    def _sts(self):
        return self.cluster.statefulset(self.name)

    def _act(self, fn: Callable[[], Any], info: str | Callable[[Any], str] | None = None) -> Any:
        """Run one user action: show its error (changing nothing) or its message; redraw."""
        try:
            out = fn()
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
            self._load_controls()
            self._update_views()
            return None
        self._clear_error()
        if info is not None:
            self._say(info(out) if callable(info) else info)
        self.refresh()
        return out

    def _show_error(self, e: BaseException) -> None:
        self.last_error = e
        self.error.value = _error_html(e)
        self.error.layout.display = None

    def _clear_error(self) -> None:
        self.last_error = None
        self.error.value = ""
        self.error.layout.display = "none"

    def _say(self, text: str) -> None:
        self.info.value = f"<div class='stsedu-info'>{text}</div>" if text else ""

    def _load_controls(self) -> None:
        """Set every control from the cluster (without firing the handlers)."""
        self._loading = True
        try:
            try:
                sts = self._sts()
            except KeyError:
                return
            spec = sts.spec
            self.replicas.max = max(self._max_replicas or 20, spec.replicas,
                                    self.replicas.max if self._max_replicas is None else 0)
            self.replicas.value = spec.replicas
            part = spec.partition
            self.partition.max = max(spec.replicas, part, 1)
            self.partition.value = part
            rolling = spec.update_strategy == "RollingUpdate"
            mu = spec.rolling_update.max_unavailable if spec.rolling_update else None
            self.max_unavailable.value = "" if mu is None else str(mu)
            gate = (self.cluster.profile.max_unavailable_supported
                    and self.cluster.profile.gate(self.cluster.feature_gates, "MaxUnavailableStatefulSet"))
            self.partition.disabled = not rolling
            self.max_unavailable.disabled = not rolling or not gate
            self.max_unavailable.tooltip = ("" if gate else
                                            "the MaxUnavailableStatefulSet gate is off in this profile")
            self.min_ready_seconds.value = spec.min_ready_seconds
            self.min_ready_seconds.disabled = not self.cluster.profile.min_ready_seconds
            self.policy.value = spec.pod_management_policy
            self.strategy.value = spec.update_strategy
            images = self._current_images()
            for img in images:
                if img not in self._image_choices:
                    self._image_choices.append(img)
            if list(self.image.options) != self._image_choices:
                self.image.options = list(self._image_choices)
            self.image.value = images[0] if images else ""
            never = [i for i in self._image_choices if i not in images] or self._image_choices
            if list(self.never_ready_pick.options) != never:
                keep = self.never_ready_pick.value
                self.never_ready_pick.options = never
                if keep in never:
                    self.never_ready_pick.value = keep
            self.kubelet_mode.value = self.cluster.kubelet.mode
            self.speed.value = self._speed
            self.speed.disabled = self.cluster.kubelet.mode == "manual"
            pods = [p.name for p in self.cluster.pods(self.name)]
            if list(self.pod_pick.options) != pods:
                keep = self.pod_pick.value
                self.pod_pick.options = pods
                self.pod_pick.value = keep if keep in pods else (pods[0] if pods else None)
        finally:
            self._loading = False

    def _update_views(self) -> None:
        """Redraw the views on show: main and full ones always, a tab only when selected."""
        selected = self.tabs.selected_index if self.tabs is not None else None
        for v in self.views:
            if v in self._tabbed and self._tabbed.index(v) != selected:
                continue
            v.update(self)

    def refresh(self) -> None:
        """Re-read the cluster into the controls and redraw the views (after editing
        ``pg.cluster`` from code, for example)."""
        self._load_controls()
        try:
            sts = self._sts()
            gen = f"generation {sts.generation}"
        except KeyError:
            gen = "deleted"
        c = self.cluster
        st = c.kubelet.stages
        kub = (f"kubelet {c.kubelet.mode}" if c.kubelet.mode == "manual" else
               f"kubelet auto (start {st.start:g}s, ready {st.ready:g}s, terminate {st.terminate:g}s)")
        self.title.value = (f"<div class='stsedu-title'>StatefulSet <code>{_esc(self.name)}</code> "
                            f"<span class='stsedu-sub'>· {gen} · t={c.now:g}s · {kub} "
                            f"· controller {c.profile.name} ({c.profile.version}) · {len(c.trace)} syncs"
                            "</span></div>")
        self._update_views()

    # -------------------------------------------------------------- the spec
    def set_replicas(self, replicas: int):
        """``kubectl scale --replicas``."""
        return self._act(lambda: self.cluster.scale(self.name, replicas),
                         lambda s: f"Scaled {self.name} to {replicas} (generation {s.generation}). "
                                   "Click <b>Sync once</b> to see what the controller decides.")

    def _patch(self, patch: Mapping, what: str):
        return self._act(lambda: self.cluster.patch(self.name, patch),
                         lambda s: f"Patched {what} (generation {s.generation}).")

    def set_partition(self, partition: int):
        """Merge-patch ``spec.updateStrategy.rollingUpdate.partition``."""
        return self._patch({"spec": {"updateStrategy": {"rollingUpdate": {"partition": partition}}}},
                           f"partition={partition}")

    def set_max_unavailable(self, value: int | str | None):
        """Merge-patch ``rollingUpdate.maxUnavailable``: an int, a percentage like ``"50%"``,
        or ""/None for the default."""
        if isinstance(value, str):
            text = value.strip()
            if text == "":
                value = None
            else:
                try:
                    value = int(text)
                except ValueError:
                    value = text
        return self._patch({"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": value}}}},
                           f"maxUnavailable={value if value is not None else '(default)'}")

    def set_min_ready_seconds(self, seconds: int):
        """Merge-patch ``spec.minReadySeconds``."""
        return self._patch({"spec": {"minReadySeconds": seconds}}, f"minReadySeconds={seconds}")

    def set_strategy(self, strategy: str):
        """``RollingUpdate`` or ``OnDelete`` (OnDelete removes ``rollingUpdate``, as the API requires)."""
        patch = {"spec": {"updateStrategy": {"type": strategy}}}
        if strategy != "RollingUpdate":
            patch["spec"]["updateStrategy"]["rollingUpdate"] = None
        return self._patch(patch, f"updateStrategy={strategy}")

    def set_image(self, image: str):
        """``kubectl set image`` on every container: a new revision, so a rollout."""
        return self._act(lambda: self.cluster.set_image(self.name, image),
                         lambda s: f"Image set to <code>{_esc(image)}</code> (generation {s.generation}): "
                                   "the next sync makes a new revision and starts the rollout.")

    def set_policy(self, policy: str):
        """Change ``podManagementPolicy``.  The field is immutable, so, as a person would with
        kubectl: delete the set with ``--cascade=orphan`` (pods keep running) and re-create it;
        the next sync adopts the pods.  Validated first on a scratch cluster."""
        def go():
            sts = self._sts()
            if sts.spec.pod_management_policy == policy:
                return sts
            m = sts.to_manifest()
            m.pop("status", None)
            m["metadata"] = {k: v for k, v in m["metadata"].items()
                             if k in ("name", "namespace", "labels", "annotations")}
            m["spec"]["podManagementPolicy"] = policy
            c = self.cluster
            Cluster(kubelet="manual", profile=c.profile, feature_gates=c.feature_gates).apply(m)
            t0 = c.now
            c.delete(self.name, cascade="orphan")
            # kubectl waits (--wait) until the garbage collector has orphaned the
            # dependents and removed the set; time passes meanwhile.
            while c.store.get("StatefulSet", sts.namespace, self.name) is not None:
                nxt = c.clock.peek()
                if nxt is None or nxt > t0 + 300:
                    raise ValueError(f"statefulset {self.name!r} was not deleted within 300 s")
                c.clock.advance_to(nxt)
            waited.append(c.now - t0)
            return c.apply(m)
        waited: list[float] = []
        return self._act(go, lambda s: (
            f"podManagementPolicy is immutable, so the panel ran <code>kubectl delete sts {self.name} "
            f"--cascade=orphan</code> (it waited {waited[0]:g}s for the garbage collector; the pods "
            f"keep running, without an owner) and re-created {self.name} with "
            f"podManagementPolicy={policy}. The next sync adopts the pods."))

    # ------------------------------------------------------------- kubelet
    def _apply_speed(self, c: Cluster) -> None:
        from dataclasses import replace
        b = self._base_stages
        if b is None:
            return
        f = self._speed
        c.kubelet.stages = replace(b, start=b.start / f, ready=b.ready / f, terminate=b.terminate / f,
                                   jitter=b.jitter / f)

    def set_speed(self, factor: float):
        """Kubelet speed: the stage delays (start, ready, terminate) are divided by *factor*."""
        def go():
            if not isinstance(factor, (int, float)) or factor <= 0:
                raise ValueError(f"speed must be a number > 0, not {factor!r}")
            self._speed = float(factor)
            self._apply_speed(self.cluster)
            return self.cluster.kubelet.stages
        return self._act(go, lambda s: f"Kubelet speed ×{factor:g}: pods start after {s.start:g}s "
                                       f"and turn Ready {s.ready:g}s later (from now on).")

    def set_kubelet_mode(self, mode: str):
        """``auto`` or ``manual``.  A kubelet cannot switch under running pods here, so this
        starts a fresh cluster with the current spec (pods, clock and trace start over)."""
        def go():
            if mode not in ("auto", "manual"):
                raise ValueError(f"kubelet mode must be 'auto' or 'manual', not {mode!r}")
            if mode == self.cluster.kubelet.mode:
                return None
            self.stop()
            m = self._sts().to_manifest()
            m.pop("status", None)
            m["metadata"] = {k: v for k, v in m["metadata"].items()
                             if k in ("name", "namespace", "labels", "annotations")}
            docs = [d for d in _as_docs(self._manifest) if d.get("kind") != "StatefulSet"] + [m]
            c = Cluster(kubelet=mode, **self._options)
            c.apply(docs)
            for img in self.never_ready_images:
                c.kubelet.never_ready(image=img)
            self._base_stages = c.kubelet.stages
            self._apply_speed(c)
            self._swap(c)
            return mode
        return self._act(go, lambda m: None if m is None else (
            f"Kubelet mode {mode}: a fresh cluster with the current spec (no pods yet, clock at 0)."))

    def _swap(self, c: Cluster) -> None:
        self.cluster = c
        self.last_result = None
        for v in self.views:
            v.reset()

    def _pod_name(self, pod: str | None) -> str:
        name = pod if pod is not None else self.pod_pick.value
        if not name:
            raise KeyError("no pod picked")
        return name

    def start_pod(self, pod: str | None = None):
        """kubelet: a Pending pod starts Running (default: the picked pod)."""
        return self._act(lambda: self.cluster.kubelet.start(self._pod_name(pod)),
                         lambda p: f"{p.name} is Running (not Ready yet).")

    def ready_pod(self, pod: str | None = None):
        """kubelet: the pod's readiness probe passes (start it first if Pending)."""
        def go():
            name = self._pod_name(pod)
            if self.cluster.pod(name).phase == "Pending":
                self.cluster.kubelet.start(name)
            return self.cluster.kubelet.set_ready(name)
        return self._act(go, lambda p: f"{p.name} is Running and Ready.")

    def unready_pod(self, pod: str | None = None):
        """kubelet: the pod's readiness probe fails."""
        return self._act(lambda: self.cluster.kubelet.set_unready(self._pod_name(pod)),
                         lambda p: f"{p.name} is not Ready.")

    def fail_pod(self, pod: str | None = None):
        """kubelet: the pod's phase becomes Failed (the next sync deletes and re-creates it)."""
        return self._act(lambda: self.cluster.kubelet.fail(self._pod_name(pod)),
                         lambda p: f"{p.name} has Failed. The next sync deletes it, then re-creates it.")

    def delete_pod(self, pod: str | None = None):
        """``kubectl delete pod`` (graceful: the pod is Terminating until the kubelet finishes it)."""
        return self._act(lambda: self.cluster.delete_pod(self._pod_name(pod)),
                         lambda p: f"Deleted {p.name}: it is Terminating until the kubelet finishes it.")

    def finish_termination(self, pod: str | None = None):
        """kubelet: a terminating pod disappears."""
        name_box: list[str] = []

        def go():
            name_box.append(self._pod_name(pod))
            return self.cluster.kubelet.finish_termination(name_box[0])
        return self._act(go, lambda _r: f"{name_box[0]} is gone.")

    def make_never_ready(self, image: str | None = None):
        """Pods running *image* (default: the picked one) never pass their readiness probe.
        Then set that image to start the broken rollout."""
        img = image if image is not None else self.never_ready_pick.value

        def go():
            if not img:
                raise ValueError("pick an image")
            self.cluster.kubelet.never_ready(image=img)
            self.never_ready_images.add(img)
            return img
        return self._act(go, lambda i: f"Pods running <code>{_esc(i)}</code> will never be Ready. "
                                       "Set it as the image to start a rollout that gets stuck.")

    # ---------------------------------------------------------- controller
    def sync_once(self) -> SyncResult | None:
        """One sync of the set (the controller's reconcile)."""
        def go():
            self.cluster.advance(0)
            r = self.cluster.sync(self.name)
            self.last_result = r
            return r
        return self._act(go, self._sync_message)

    def _sync_message(self, r: SyncResult) -> str:
        acts = [d for d in r.decisions if d.action in POD_ACTIONS]
        if r.error:
            return f"Sync {r.sync} stopped on an API error: {_esc(r.error)}"
        if not acts:
            return f"Sync {r.sync}: nothing to do."
        waits = [d for d in acts if d.action == "wait"]
        tail = ""
        if waits and self.cluster.kubelet.mode == "auto":
            tail = " Advance time so the kubelet can move the pods, then sync again."
        elif waits:
            tail = " Move the pod with the Pod row (manual kubelet), then sync again."
        return f"Sync {r.sync}: {_summary(r.decisions)}.{tail}"

    def advance(self, seconds: float | None = None):
        """Move the clock by *seconds* (default: the panel's choice); the kubelet acts, the
        controller does not (click Sync once for that)."""
        s = self.advance_by.value if seconds is None else seconds
        return self._act(lambda: self.cluster.advance(s), lambda t: f"The clock is at t={t:g}s.")

    def _steps(self, max_syncs: int) -> Iterator[SyncResult]:
        """``Cluster.iter_run``, remembering how it ended (stable, stopped or max_syncs)."""
        self._outcome = "max"
        n = 0
        for r in self.cluster.iter_run(self.name, max_syncs=max_syncs):
            n += 1
            self.last_result = r
            yield r
            if self._stop_requested:
                self._outcome = "stopped"
                return
        if n < max_syncs:
            self._outcome = "stable"

    def _progress(self, n: int) -> None:
        """Pods Ready at the revision they should have, out of the pods wanted."""
        try:
            sts = self._sts()
        except KeyError:
            return
        spec, st = sts.spec, sts.status
        pods = self.cluster.pods(self.name)
        lo = spec.start_ordinal
        hi = lo + spec.replicas
        done = 0
        for p in pods:
            if lo <= p.ordinal < hi and p.ready and not p.terminating and (
                    spec.update_strategy != "RollingUpdate" or p.ordinal - lo < spec.partition
                    or p.revision == st.update_revision):
                done += 1
        extra = sum(1 for p in pods if not lo <= p.ordinal < hi)
        self.progress.max = max(1, spec.replicas + extra)
        self.progress.value = min(done, self.progress.max)
        self.progress_label.value = (f"<span class='stsedu-note'>{n} syncs · t={self.cluster.now:g}s · "
                                     f"{done}/{spec.replicas} Ready at their revision</span>")

    def _run_started(self) -> None:
        self._running, self._stop_requested = True, False
        self.run_button.disabled = True
        self.stop_button.disabled = False
        self.stop_button.button_style = "warning"
        self.progress.bar_style = "info"

    def _run_finished(self, results: list[SyncResult]) -> None:
        self._running = False
        self.run_button.disabled = False
        self.stop_button.disabled = True
        self.stop_button.button_style = ""
        self._progress(len(results))
        last = results[-1] if results else None
        waits = [d for d in last.decisions if d.action == "wait"] if last else []
        self.progress.bar_style = "success" if self._outcome == "stable" and not waits else "warning"
        n = f"{len(results)} sync{'s' if len(results) != 1 else ''}"
        if self._outcome == "stable" and waits:
            msg = (f"Stopped after {n} (t={self.cluster.now:g}s): nothing else will happen by itself, "
                   f"and the controller is still waiting ({_esc(waits[0].message)}). "
                   "It is stuck until you act.")
        elif self._outcome == "stable":
            msg = f"Stable after {n} (t={self.cluster.now:g}s)."
        elif self._outcome == "stopped":
            msg = f"Stopped after {n} (t={self.cluster.now:g}s)."
        else:
            msg = f"Gave up after {n} (max_syncs); the set is not stable yet."
        self._say(msg)
        self.refresh()

    def run_until_stable(self, max_syncs: int | None = None) -> list[SyncResult] | None:
        """Sync, and let time pass while the controller only waits, until nothing is left to
        happen (like ``cluster.run``), at most *max_syncs* syncs.  Blocks; the Run button uses
        :meth:`run_async` under a kernel instead, so Stop works and the views move meanwhile."""
        limit = max_syncs or self.max_syncs
        results: list[SyncResult] = []
        self._run_started()
        try:
            for r in self._steps(limit):
                results.append(r)
                self._progress(len(results))
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
            self._run_finished(results)
            return None
        self._clear_error()
        self._run_finished(results)
        return results

    async def run_async(self, max_syncs: int | None = None, redraw_every: float = 0.25) -> list[SyncResult]:
        """:meth:`run_until_stable`, yielding to the event loop after every sync (so a Stop
        click is handled) and redrawing the views every *redraw_every* seconds."""
        limit = max_syncs or self.max_syncs
        results: list[SyncResult] = []
        self._run_started()
        last_draw = time.monotonic()
        try:
            for r in self._steps(limit):
                results.append(r)
                self._progress(len(results))
                if time.monotonic() - last_draw > redraw_every:
                    self.refresh()
                    last_draw = time.monotonic()
                    await asyncio.sleep(0.02)
                else:
                    await asyncio.sleep(0)
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
        else:
            self._clear_error()
        self._run_finished(results)
        return results

    def _on_run_clicked(self) -> None:
        if self._running:
            return
        loop = _kernel_loop()
        if loop is None:
            self.run_until_stable()
        else:
            self._task = loop.create_task(self.run_async())

    def stop(self) -> None:
        """Stop a running :meth:`run_async` after the sync in progress."""
        if self._running:
            self._stop_requested = True

    def undo_rollout(self):
        """``kubectl rollout undo``: put back the previous revision's template."""
        return self._act(lambda: self.cluster.rollout_undo(self.name),
                         lambda msg: f"<code>{_esc(msg)}</code>. A pod the broken rollout already "
                                     "replaced may still block an OrderedReady set: delete it.")

    def reset(self):
        """A new cluster from the original manifest and options, in the kubelet mode shown
        (never-ready images forgotten)."""
        def go():
            self.stop()
            c, _ = self._new_cluster(self.cluster.kubelet.mode)
            self._swap(c)
            self.never_ready_images.clear()
            self.progress.value = 0
            self.progress_label.value = ""
            return c
        return self._act(go, "Reset: a new cluster from the original manifest.")


def _as_docs(manifest) -> list[dict]:
    from .api.load import load_documents
    return [copy.deepcopy(d) for d in load_documents(manifest)]


# ========================================================================= SyncStepper

def _last_sync_from_trace(cluster: Cluster, name: str) -> SyncResult | None:
    """The newest sync of set *name* in the cluster's trace, rebuilt as a SyncResult (status None)."""
    syncs = cluster.trace.syncs()
    syncs = syncs[syncs["set"] == name]
    if not len(syncs):
        return None
    last = syncs.iloc[-1]
    rows = cluster.trace.decisions(int(last["sync"]))
    def opt(v):
        return None if v is None or (isinstance(v, float) and v != v) else v
    ds = []
    for r in rows.itertuples(index=False):
        ds.append(Decision(action=r.action, pod=opt(r.pod), reason=r.reason, message=r.message, rule=r.rule,
                           target=opt(r.target), step=r.step, applied=opt(r.applied), error=opt(r.error)))
    return SyncResult(sync=int(last["sync"]), time=float(last["time"]), set_name=name, decisions=tuple(ds),
                      status=None, error=opt(last["error"]))


class SyncStepper:
    """Step through the decisions of one sync, one at a time.

    Shows the steps of upstream's sync in order, with how many decisions
    each made, and highlights the step that made the current decision;
    below, the decision (message and upstream rule) and the whole table
    with the current row marked.

    *source* is a :class:`~stsedu.SyncResult` (just show it), a
    :class:`~stsedu.Cluster` (show the newest sync of set *name* from its
    trace; the "Sync" button runs the next one) or a :class:`Playground`
    (its last sync; the button syncs through the panel).
    """

    def __init__(self, source: SyncResult | Cluster | Playground, name: str | None = None) -> None:
        self.cluster: Cluster | None = None
        self.playground: Playground | None = None
        self.name = name
        self.result: SyncResult | None = None
        self.index = 0
        if isinstance(source, Playground):
            self.playground = source
            self.cluster = source.cluster
            self.name = name or source.name
            self.result = source.last_result
        elif isinstance(source, Cluster):
            self.cluster = source
            if self.name is None:
                sets = source.statefulsets()
                if not sets:
                    raise ValueError("the cluster has no StatefulSet; apply one first")
                self.name = sets[0].name
            source.statefulset(self.name)
            self.result = _last_sync_from_trace(source, self.name)
        elif isinstance(source, SyncResult):
            self.result = source
            self.name = source.set_name
        else:
            raise TypeError(f"SyncStepper needs a SyncResult, Cluster or Playground, not {type(source).__name__}")
        self.prev_button = W.Button(description="◀ Previous", layout=W.Layout(width="110px"))
        self.next_button = W.Button(description="Next ▶", layout=W.Layout(width="110px"))
        self.sync_button = W.Button(description="Sync", button_style="primary", icon="play",
                                    layout=W.Layout(display=None if self.cluster is not None else "none"))
        self.position = W.HTML()
        self.steps = W.HTML(layout=W.Layout(width="470px"))
        self.card = W.HTML(layout=W.Layout(flex="1 1 0%"))
        self.table = W.HTML()
        self.table.add_class("stsedu-stepper-table")
        self.prev_button.on_click(lambda _b: self.previous())
        self.next_button.on_click(lambda _b: self.next())
        self.sync_button.on_click(lambda _b: self.sync())
        self.widget = W.VBox([
            W.HTML(_CSS),
            W.HBox([self.sync_button, self.prev_button, self.next_button, self.position],
                   layout=W.Layout(align_items="center")),
            W.HBox([self.steps, self.card], layout=W.Layout(grid_gap="12px", align_items="flex-start")),
            self.table,
        ])
        self.widget.add_class("stsedu-pg")
        self._draw()

    def __repr__(self) -> str:
        r = self.result
        where = f"sync {r.sync} of {r.set_name}, decision {self.index + 1} of {len(r.decisions)}" if r else "no sync"
        return f"<SyncStepper: {where}>"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": repr(self)}
        return bundle

    @property
    def decision(self) -> Decision | None:
        """The decision shown now, or None if the sync made none."""
        if self.result is None or not self.result.decisions:
            return None
        return self.result.decisions[self.index]

    def show(self, result: SyncResult) -> None:
        """Show *result*, from its first decision."""
        self.result, self.index = result, 0
        self._draw()

    def select(self, index: int) -> None:
        """Show decision number *index* (0-based, clamped to the sync's decisions)."""
        n = len(self.result.decisions) if self.result is not None else 0
        self.index = max(0, min(index, n - 1)) if n else 0
        self._draw()

    def next(self) -> None:
        self.select(self.index + 1)

    def previous(self) -> None:
        self.select(self.index - 1)

    def sync(self) -> SyncResult | None:
        """Run the next sync (of the Playground, or of the cluster) and show it."""
        if self.playground is not None:
            r = self.playground.sync_once()
            self.cluster = self.playground.cluster
        elif self.cluster is not None:
            self.cluster.advance(0)
            r = self.cluster.sync(self.name)
        else:
            return None
        if r is not None:
            self.show(r)
        return r

    def _draw(self) -> None:
        r = self.result
        n = len(r.decisions) if r is not None else 0
        self.prev_button.disabled = self.index <= 0
        self.next_button.disabled = self.index >= n - 1
        if r is None:
            self.position.value = "<span class='stsedu-note'>no sync yet: click Sync</span>"
            self.steps.value = self._steps_html(None, ())
            self.card.value = ""
            self.table.value = ""
            return
        self.position.value = (f"<b>sync {r.sync}</b> of {_esc(r.set_name)} at t={r.time:g}s · "
                               + (f"decision {self.index + 1} of {n}" if n else "no decisions"))
        d = self.decision
        self.steps.value = self._steps_html(d, r.decisions)
        if d is None:
            self.card.value = "<div class='stsedu-card'>This sync decided nothing.</div>"
        else:
            done = {True: "done", False: f"not done ({_esc(d.error or 'not reached')})", None: "a wait"}[d.applied]
            obj = d.pod or d.target or ""
            self.card.value = (
                f"<div class='stsedu-card'><div><span class='mono {_action_class(d.action)}'>"
                f"{_esc(d.action)}</span> <code>{_esc(obj)}</code> "
                f"<span class='stsedu-note'>reason <code>{_esc(d.reason)}</code> · {done}</span></div>"
                f"<div style='margin:4px 0'>{_esc(d.message)}</div>"
                f"<div class='stsedu-note'>upstream: {_esc(d.rule)}</div></div>")
        if not n:
            self.table.value = ""
            return
        i = self.index
        styler = tables.decisions_table(r).apply(
            lambda row: ["box-shadow: inset 0 2px 0 #bf8700, inset 0 -2px 0 #bf8700; font-weight: 600"
                         if row.name == i else "" for _ in row],
            axis=1)
        self.table.value = styler.hide(subset=["sync", "time"], axis="columns").to_html()

    @staticmethod
    def _steps_html(current: Decision | None, decisions: Sequence[Decision]) -> str:
        counts: dict[str, int] = {}
        for d in decisions:
            counts[d.step] = counts.get(d.step, 0) + 1
        rows = []
        for key, label, fn in STEP_ORDER:
            k = counts.get(key, 0)
            cls = "current" if current is not None and current.step == key else ("" if k else "empty")
            rows.append(f"<tr class='{cls}' data-step='{key}'><td class='step'>{label}</td>"
                        f"<td class='count'>{k if k else '·'}</td><td class='fn'>{_esc(fn)}</td></tr>")
        return ("<table class='stsedu-steps'><thead><tr><th>step</th><th>#</th><th>upstream</th></tr></thead>"
                "<tbody>" + "".join(rows) + "</tbody></table>")
