"""The Playground's vocabulary (controls, actions, views, speeds, its CSS and default manifest), and
the pluggable views it shows: :class:`View` and its subclasses redraw one table or chart of a cluster.
"""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import ipywidgets as W

from ..views import tables
from ..i18n import N_, _, ngettext, pgettext
from ..api.errors import RolloutError, ValidationError
from ..api.objects import REVISION_LABEL
from ..controller.decisions import (Decision, POD_ACTIONS, STEP_CLAIM, STEP_CLAIMS_FIX, STEP_CONDEMNED,
                                    STEP_HISTORY, STEP_RECREATE, STEP_REPLICAS, STEP_REVISIONS, STEP_STATUS,
                                    STEP_UPDATE)


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

SPEEDS = ((N_("×0.25 (slow)"), 0.25), ("×0.5", 0.5), ("×1", 1.0), ("×2", 2.0), (N_("×4 (fast)"), 4.0))
"""Kubelet speeds: the stage profile's delays are divided by the factor."""

ADVANCE_STEPS = (1, 2, 5, 10, 30, 60)
"""Seconds the Advance button can move the clock by."""

DEFAULT_IMAGES = ("registry.k8s.io/nginx-slim:0.24", "registry.k8s.io/nginx-slim:0.25",
                  "registry.k8s.io/nginx-slim:0.26")
"""Images offered for the default manifest (the concept page's nginx-slim, then newer tags)."""

STEP_ORDER = (
    (STEP_CLAIM, "claim", N_("sync: adoptOrphanRevisions, getPodsForStatefulSet (ClaimPods)")),
    (STEP_REVISIONS, "revisions", "getStatefulSetRevisions"),
    (STEP_RECREATE, "recreate", N_("updateStatefulSet: recreateDeleteAndWait (Recreate strategy only)")),
    (STEP_REPLICAS, "replicas", N_("updateStatefulSet: processReplica, for each ordinal in range")),
    (STEP_CLAIMS_FIX, "fix claims", N_("updateStatefulSet: fixPodClaim, for each condemned pod")),
    (STEP_CONDEMNED, "condemned", N_("updateStatefulSet: processCondemned, highest ordinal first")),
    (STEP_UPDATE, "rolling update", N_("updateStatefulSet: delete pods not at the update revision")),
    (STEP_STATUS, "status", "updateStatefulSetStatus"),
    (STEP_HISTORY, "history", "truncateHistory"),
)
"""The steps of one sync, in upstream order: (step key, short label, upstream function; what it does,
translated where it is shown)."""

POLICY_NOTE = N_("Immutable: changing it deletes the set with <code>--cascade=orphan</code> "
                   "(the pods keep running) and re-creates it with the new policy.")

PLAYGROUND_CSS = """
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
    text = (Path(__file__).parents[1] / "data" / "web.yaml").read_text()
    docs = [d for d in yaml.safe_load_all(text) if d]
    for d in docs:
        if d.get("kind") == "StatefulSet":
            d["spec"].pop("minReadySeconds", None)
    return docs


# =========================================================================== rendering
# Private HTML renderers.  They stand in for stsedu.tables / stsedu.charts until those land.

def esc(x: Any) -> str:
    return "" if x is None else html.escape(str(x))


def action_class(action: str) -> str:
    return f"sa-{action}" if action in POD_ACTIONS else "sa-other"


def error_html(exc: BaseException) -> str:
    if isinstance(exc, RolloutError):
        # kubectl's own client-side error: no request reached the API server, so no "is invalid"
        return (f"<div class='stsedu-error'><b>error:</b> {esc(exc.errors[0][1])}. "
                + _("Nothing was changed.") + "</div>")
    if isinstance(exc, ValidationError):
        head = (f'{esc(exc.kind)} "{esc(exc.name)}" is invalid' if exc.name
                else f"{esc(exc.kind)} is invalid")
        items = "".join(f"<li><code>{esc(p)}</code>: {esc(m)}</li>" if p else f"<li>{esc(m)}</li>"
                        for p, m in exc.errors)
        label = esc(_("Error:"))
        return (f"<div class='stsedu-error'><b>{label}</b> {head}<ul>{items}</ul>"
                + _("Nothing was changed.") + "</div>")
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    label = esc(_("Error ({kind}):").format(kind=type(exc).__name__))
    return (f"<div class='stsedu-error'><b>{label}</b> {esc(text)}. "
            + _("Nothing was changed.") + "</div>")


def decisions_summary(decisions: Iterable) -> str:
    """'create web-3 · wait web-3 (not-running-ready)' for the pod decisions of a sync."""
    parts = []
    for d in decisions:
        action, pod, reason = (d.action, d.pod, d.reason) if isinstance(d, Decision) else d
        if action not in POD_ACTIONS:
            continue
        parts.append(f"<span class='{action_class(action)}'>{esc(action)}</span> "
                     f"{esc(pod or '')} <span class='stsedu-note'>({esc(reason)})</span>")
    return " · ".join(parts) if parts else "<span class='stsedu-note'>" + _("no pod decisions") + "</span>"


# =============================================================================== views

class DisplayedAsWidget:
    """Shown in a notebook as its ``widget``, with its ``repr`` as the plain-text form
    (what a front end without widgets, nbval or a terminal prints)."""

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": repr(self)}
        return bundle


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

    title = N_("Last sync's decisions")
    area = "full"

    def __init__(self) -> None:
        super().__init__()
        self.heading = W.HTML(f"<div class='stsedu-viewtitle'>{_(self.title)}</div>")
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
            self.heading.value = (f"<div class='stsedu-viewtitle'>{_(self.title)} "
                                  "<span class='stsedu-sub'>" + _("(no sync yet: click Sync once)") + "</span></div>")
            self.table.value = ""
            return
        err = (" · <span class='st-bad'>" + _("stopped: {error}").format(error=esc(r.error)) + "</span>"
               if r.error else "")
        self.heading.value = (f"<div class='stsedu-viewtitle'>{_(self.title)} <span class='stsedu-sub'>"
                              + _("sync {n} of {name}, t={t}s").format(n=r.sync, name=esc(r.set_name), t=f"{r.time:g}")
                              + f"{err}</span></div>")
        if not r.decisions:
            self.table.value = ("<p class='stsedu-note'>" + _(
                "Sync {n} decided nothing: no pod to create, delete or wait for, and the status was already up "
                "to date. The Sync log tab lists every sync.").format(n=r.sync) + "</p>")
            return
        self.table.value = (tables.decisions_table(r)
                            .hide(subset=["sync", "time"], axis="columns").to_html())


class PodsView(View):
    """The set's pods as ``kubectl get pods -L controller-revision-hash`` prints them now."""

    title = N_("Pods")
    area = "main"

    def __init__(self) -> None:
        super().__init__()
        self.heading = W.HTML(f"<div class='stsedu-viewtitle'>{_(self.title)}</div>")
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
        key = (id(c), c.now, c.trace.counts()[1], update_rev)
        if key == self._key:
            return
        self._key = key
        rev = (" · " + _("update revision {revision}").format(revision=f"<code>{esc(update_rev)}</code>")
               if update_rev else "")
        self.heading.value = (f"<div class='stsedu-viewtitle'>{_(self.title)} <span class='stsedu-sub'>"
                              f"kubectl get pods -L controller-revision-hash · t={c.now:g}s{rev}</span></div>")
        text = tables.get_pods_text(c, pg.name, label_columns=(REVISION_LABEL,),
                                    tables=getattr(pg, "redraw_tables", None))
        self.table.value = f"<pre class='stsedu-pre stsedu-scroll'>{esc(text)}</pre>"


class StatusView(View):
    """The set's status as ``kubectl get sts`` and ``kubectl rollout status`` would show it,
    plus what the next sync would do."""

    title = N_("Status")
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
            self.widget.value = ("<p class='stsedu-note'>" + _("StatefulSet {name} does not exist.").format(
                name=esc(pg.name)) + "</p>")
            return
        s, spec = sts.status, sts.spec
        strategy = spec.update_strategy
        if spec.rolling_update is not None:
            ru = spec.rolling_update
            strategy += f" (partition {ru.partition}"
            strategy += f", maxUnavailable {ru.max_unavailable})" if ru.max_unavailable is not None else ")"
        rev = (_("current {revision}").format(revision=f"<code>{esc(s.current_revision)}</code>") +
               ("" if s.update_revision == s.current_revision
                else " → " + _("update {revision}").format(revision=f"<code>{esc(s.update_revision)}</code>")))
        try:
            nxt = c.preview(pg.name)
            preview = decisions_summary(nxt.decisions)
        except Exception as e:  # noqa: BLE001 - the preview is only a hint
            preview = "<span class='stsedu-note'>" + _("(no preview: {error})").format(error=esc(e)) + "</span>"
        broken = sorted(pg.never_ready_images)
        broken_txt = ("<br><b>" + _("never-ready images:") + "</b> " + ", ".join(f"<code>{esc(b)}</code>" for b in broken)
                      if broken else "")
        revisions, rollout, next_sync = _("revisions"), _("rollout"), _("next sync")
        self.widget.value = (
            f"<div class='stsedu-viewtitle'>{_(self.title)} <span class='stsedu-sub'>"
            f"observedGeneration {s.observed_generation} of {sts.generation}</span></div>"
            f"<pre class='stsedu-pre'>{esc(tables.get_sts_text(c))}</pre>"
            "<table class='stsedu stsedu-status'><tbody>"
            f"<tr><td><b>spec</b></td><td class='code'>replicas {spec.replicas} · "
            f"{esc(spec.pod_management_policy)} · {esc(strategy)} · minReadySeconds "
            f"{spec.min_ready_seconds} · generation {sts.generation}</td></tr>"
            f"<tr><td><b>status</b></td><td class='code'>replicas {s.replicas} · ready {s.ready_replicas} · "
            f"available {s.available_replicas} · current {s.current_replicas} · updated "
            f"{s.updated_replicas} · observedGeneration {s.observed_generation}</td></tr>"
            f"<tr><td><b>{revisions}</b></td><td>{rev}</td></tr>"
            f"<tr><td><b>{rollout}</b></td><td class='code'>{esc(c.rollout_status(pg.name))}</td></tr>"
            f"<tr><td><b>{next_sync}</b></td><td>{preview}{broken_txt}</td></tr>"
            "</tbody></table>")


class DrawnChart:
    """What a chart of a cluster's trace has drawn, so that a redraw skips an unchanged chart and a test
    (or the browser walk's probe) can ask whether the chart on screen is the trace as it is now.

    The key is the trace (by identity), the clock (a chart reaches "now") and the trace's row counts
    except the events' (a spec edit writes an event and draws nothing until the next sync)."""

    _drawn: tuple | None = None

    @staticmethod
    def _key_of(cluster) -> tuple:
        decisions, pods, status, _events, syncs = cluster.trace.counts()
        return (id(cluster.trace), cluster.now, decisions, pods, status, syncs)

    def shows_now(self, cluster) -> bool:
        """Whether the chart drawn is that of *cluster*'s trace as it is now."""
        return self._drawn == self._key_of(cluster)

    def drawn_now(self, cluster) -> None:
        """Record that the chart of *cluster*'s trace as it is now is drawn."""
        self._drawn = self._key_of(cluster)

    def reset(self) -> None:
        """Forget what is drawn: the next redraw draws again."""
        self._drawn = None


class ChartView(DrawnChart, View):
    """An Altair chart of the trace in a :class:`stsedu.charts.ChartWidget` that redraws in place.

    *chart_fn(trace, set_name)* (or *chart_fn(trace)*) returns the chart, or its
    :class:`~stsedu.charts.ChartData` (a chart's data function, such as
    ``charts.pod_timeline_data``: then a redraw of the same structure sends the new rows
    and numbers alone and builds no Altair chart).  The chart is rebuilt only when the
    trace has grown or the clock moved, and the same widget (``jchart``) gets it: it draws
    offline, from the Vega JavaScript shipped in the package, with no vl-convert.
    """

    title = "Chart"
    area = "tab"

    def __init__(self, chart_fn: Callable, title: str | None = None) -> None:
        super().__init__()
        import inspect

        from ..views.charts import ChartWidget
        self.chart_fn = chart_fn
        try:
            params = [p for p in inspect.signature(chart_fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            self._with_name = len(params) >= 2
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            self._with_name = False
        if title:
            self.title = title
        self.jchart = ChartWidget(layout=W.Layout(display="none"))
        self.note = W.HTML()
        self.widget = W.VBox([self.note, self.jchart])

    def update(self, pg: "Playground") -> None:
        trace = pg.cluster.trace
        if self.shows_now(pg.cluster):
            return  # nothing the chart shows has changed (a spec edit waits for the next sync)
        self.drawn_now(pg.cluster)
        if not len(trace):
            self.note.value = ("<p class='stsedu-note'>" + _("No syncs yet: the chart appears after the first sync.")
                               + "</p>")
            self.jchart.layout.display = "none"
            return
        try:
            from ..views.charts import ChartData, build_chart
            once = getattr(pg, "redraw_tables", None) or trace  # the redraw's tables, when it has them
            chart = build_chart(self.chart_fn, *((once, pg.name) if self._with_name else (once,)))
        except Exception as e:  # noqa: BLE001 - a broken chart must not break the panel
            self.note.value = ("<div class='stsedu-error'>" + _("chart failed: {error}").format(
                error=f"{esc(type(e).__name__)}: {esc(e)}") + "</div>")
            return
        self.note.value = ""
        # The same widget, a new chart: only its values when its structure is the one shown (an
        # unchanged chart sends nothing); else the browser swaps the drawing when the new one is
        # ready, so nothing blanks.
        if isinstance(chart, ChartData):
            self.jchart.show(chart)
        else:
            self.jchart.update(chart)
        self.jchart.layout.display = None

    @property
    def chart(self):
        """The Altair chart shown (None before the first sync)."""
        return self.jchart.chart


NOW_PAD = 0.5
"""Seconds the Playground's pod timeline runs past now when a pod changed at this very instant."""


def _timeline_to_now(trace, set_name: str):
    """The pod timeline's data (:func:`stsedu.charts.pod_timeline_data`) up to now; when a pod changed at this instant (a sync created it, a kubelet
    button moved it), a stub of NOW_PAD seconds past now shows the state it is in, which an axis
    ending at now would leave out (nothing changes before the next sync or button press)."""
    from ..views import charts, tables
    now = tables.trace_now(trace)
    pods = trace.pods()
    began_now = not pods.empty and bool((pods["time"] >= now).any())
    return charts.pod_timeline_data(trace, set_name, until=max(now + NOW_PAD, 1.0) if began_now else None)


def _chart(name: str, title: str) -> Callable[[], ChartView]:
    def make() -> ChartView:
        from ..views import charts
        return ChartView(getattr(charts, f"{name}_data", None) or getattr(charts, name), title=title)
    make.__doc__ = f"A ChartView of stsedu.charts.{name} (of its data function, where it has one)."
    return make


class LogView(View):
    """Every sync of the set: time, its pod decisions, the status it computed.  Grows incrementally."""

    title = N_("Sync log")
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
                    status = _("{ready}/{replicas} ready, {updated} updated").format(
                        ready=int(s['ready_replicas']), replicas=int(s['spec_replicas']),
                        updated=int(s['updated_replicas']))
                # NaN where a sync had no error, once another sync had one (a column of the trace's frame)
                err = f" <span class='st-bad'>{esc(row.error)}</span>" if isinstance(row.error, str) and row.error else ""
                self._rows.append(
                    f"<tr><td class='mono'>{row.sync}</td><td class='mono'>{row.time:g}s</td>"
                    f"<td class='mono'>{esc(row.set)}</td><td>{decisions_summary(by_sync.get(row.sync, []))}{err}</td>"
                    f"<td class='mono'>{status}</td></tr>")
            self._seen = n
        shown = self._rows[-self.keep:]
        hidden = len(self._rows) - len(shown)
        more = ("<p class='stsedu-note'>" + ngettext("{n} earlier sync not shown.", "{n} earlier syncs not shown.",
                                                     hidden).format(n=hidden) + "</p>" if hidden > 0 else "")
        if not shown:
            self.widget.value = "<p class='stsedu-note'>" + _("No syncs yet.") + "</p>"
            return
        heads = "".join(f"<th>{h}</th>" for h in (pgettext("column", "sync"), pgettext("column", "time"), "StatefulSet",
                                                 _("pod decisions"), _("status")))
        self.widget.value = (
            more + "<div class='stsedu-scroll'><table class='stsedu stsedu-log'><thead><tr>"
            f"{heads}</tr></thead><tbody>"
            + "".join(reversed(shown)) + "</tbody></table></div>")


VIEW_CLASSES: dict[str, Callable[[], View]] = {
    "decisions": DecisionsView, "pods": PodsView, "status": StatusView,
    "timeline": lambda: ChartView(_timeline_to_now, title=N_("Pod timeline")),
    "revisions": _chart("revision_map", N_("Revisions")),
    "strip": _chart("decision_strip", N_("Decisions per sync")),
    "counters": _chart("status_counters", N_("Status counters")),
    "overview": _chart("overview", N_("Overview")),
    "log": LogView,
}
VIEW_ALIASES = {"charts": ("timeline", "revisions", "strip")}
