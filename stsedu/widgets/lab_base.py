"""The pieces every lab is made of: :class:`Lab` (cluster, controls, redraw), :class:`LabChart`
(one chart widget updated in place) and :func:`decisions_html` (the plain-words decisions table).

The labs themselves are in :mod:`stsedu.widgets.labs`."""

from __future__ import annotations

import html
from typing import Any, Callable, Sequence

import ipywidgets as W

from ..lessons import examples
from ..views import tables
from ..views.trace_tables import TablesOnce
from ..api.arguments import as_list, int_argument
from ..api.errors import APIError, ValidationError
from ..cluster import Cluster
from ..i18n import ENGLISH, N_, _, current_language, ngettext, pgettext
from ..controller.decisions import POD_ACTIONS, SyncResult
from .settled import describe_stop, left_note, progress_words, unsettled
from .panels import ChartView, DisplayedAsWidget, DrawnChart, error_html, esc

__all__ = ["Lab", "LabChart", "decisions_html", "IMAGES", "BROKEN_IMAGE", "CHARTS"]

MAX_REPLICAS = 50
"""The most replicas a lab's replicas control offers (the Playground goes to 500)."""

IMAGES = ("nginx:1", "nginx:2", "nginx:3")
"""Images the labs offer: nginx:1 is what the set starts with."""

BROKEN_IMAGE = "nginx:broken"
"""An image whose pods start but never pass their readiness probe (FaultLab)."""

CHARTS = {"timeline": ("pod_timeline", N_("Pods over time")),
          "revisions": ("revision_map", N_("Which revision each pod runs")),
          "counters": ("status_counters", N_("Status counters over time")),
          "strip": ("decision_strip", "Decisions, sync by sync")}
"""Chart kinds a lab can show: kind -> (function in stsedu.charts, title)."""

LAB_ERRORS = (APIError, ValidationError, ValueError, KeyError)

LAB_CSS = """
<style>
.stsedu-lab { font-size: 13px; }
.stsedu-lab .lab-title { font-size: 15px; font-weight: 600; margin: 2px 0; }
.stsedu-lab .lab-note { color: var(--jp-ui-font-color2, #666); font-size: 12px; }
.stsedu-lab .lab-did { background: #eef4fb; border-left: 4px solid #1f6feb; padding: 3px 10px; margin: 4px 0;
  color: #0b2a4a; }
.stsedu-lab .lab-error { background: #fdecea; color: #8a1c14; border-left: 4px solid #d32f2f;
  padding: 3px 10px; margin: 4px 0; }
.stsedu-lab .lab-h { font-weight: 600; margin: 6px 0 2px 0; }
.stsedu-lab table.lab-decisions { border-collapse: collapse; font-size: 12px; line-height: 1.35; }
.stsedu-lab table.lab-decisions th { text-align: left; padding: 2px 8px; border-bottom: 2px solid #bbb; }
.stsedu-lab table.lab-decisions td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #e3e3e3;
  vertical-align: top; white-space: normal; }
.stsedu-lab table.lab-decisions td.mono { font-family: var(--jp-code-font-family, monospace); white-space: nowrap; }
.stsedu-lab .a-create { color: #1a7f37; font-weight: 600; }
.stsedu-lab .a-delete { color: #cf222e; font-weight: 600; }
.stsedu-lab .a-update { color: #0969da; font-weight: 600; }
.stsedu-lab .a-wait { color: #9a6700; font-weight: 600; }
.stsedu-lab pre.lab-pre { font-family: var(--jp-code-font-family, monospace); font-size: 12px; line-height: 1.35;
  margin: 0; padding: 4px 6px; background: var(--jp-layout-color2, #f6f8fa); border-radius: 3px;
  white-space: pre; overflow-x: auto; }
.stsedu-lab .lab-scroll { max-height: 240px; overflow-y: auto; }
.stsedu-lab .lab-ok { color: #1a7f37; font-weight: 600; }
.stsedu-lab .lab-no { color: #cf222e; font-weight: 600; }
</style>
"""


class LabChart(DrawnChart):
    """One chart of a lab's run, redrawn in place after every change.

    Uses ``stsedu.charts.ChartWidget`` (one widget, ``show(data)`` per change, with the data
    function beside the chart function, e.g. ``pod_timeline_data``) when the package has it,
    else the Playground's ``ChartView``.  ``update(lab)`` recomputes the chart's data only when
    the trace grew or the clock moved; the Altair chart is built only when the chart's
    structure changes (and ``chart`` builds it when asked).
    """

    def __init__(self, kind: str) -> None:
        from ..views import charts
        fn, self.title = CHARTS[kind]
        self.fn = getattr(charts, fn)
        self.data_fn = getattr(charts, f"{fn}_data", None)
        widget_cls = getattr(charts, "ChartWidget", None)
        if widget_cls is not None:
            self._view = None
            self.widget = widget_cls(layout=W.Layout(width="100%"))
        else:
            self._view = ChartView(self.fn, title=_(self.title))
            self.widget = self._view.widget
        self.widget.add_class("stsedu-lab-chart")

    def reset(self) -> None:
        super().reset()
        if self._view is not None:
            self._view.reset()

    @property
    def chart(self):
        """The Altair chart shown (None before the first sync)."""
        return self._view.chart if self._view is not None else self.widget.chart

    def update(self, lab: "Lab", tables: TablesOnce | None = None) -> None:
        """Redraw from ``lab.cluster``; *tables*: the redraw's tables of its trace, if the lab has them."""
        trace = lab.cluster.trace
        if self.shows_now(lab.cluster):
            return
        if self._view is not None:
            self._view.update(lab)
        elif not len(trace):
            self.widget.update(None)
        elif self.data_fn is not None:
            since = lab.chart_since()
            self.widget.show(self.data_fn(tables if tables is not None else trace, lab.name,
                                          **({} if since is None else {"since_sync": since})))
        else:
            from ..views.charts import build_chart
            self.widget.update(build_chart(self.fn, trace, lab.name))
        self.drawn_now(lab.cluster)  # once it is drawn (a failed chart is tried again)


def _with_boxes(widget: W.Widget) -> W.Widget:
    """*widget* with each slider made by :meth:`Lab.slider` followed by its typed-value box."""
    box = getattr(widget, "stsedu_box", None)
    if box is not None:
        return W.HBox([widget, box], layout=W.Layout(align_items="center"))
    kids = getattr(widget, "children", None)
    if kids and isinstance(widget, W.Box):
        widget.children = tuple(_with_boxes(k) for k in kids)
    return widget


def show_chart(chart):
    """A displayable form of an Altair chart: a ChartWidget when there is one, else the chart
    (with the kit's offline renderer)."""
    from ..views import charts
    widget_cls = getattr(charts, "ChartWidget", None)
    if widget_cls is not None:
        return widget_cls(chart)
    charts.enable_offline()
    return chart


# ------------------------------------------------------------------ status words


def did_sentence(what: str, t0: float) -> str:
    """The start of a lab's status line: "You ran <code>kubectl …</code> at t=3s" for a command, "At t=42s,
    web-0's readiness probe fails" for something that happened (a probe, the kubelet, a node)."""
    if what.startswith("<code>"):
        return _("You ran {command} at t={t}s").format(command=what, t=f"{t0:g}")
    return _("At t={t}s, {what}").format(t=f"{t0:g}", what=what)


# ------------------------------------------------------------------ decisions table


def decisions_html(results: Sequence[SyncResult], empty: str | None = None) -> str:
    """The pod decisions of *results* as an HTML table in plain words, nothing truncated.

    One row per decision (create, delete, update, wait); a wait repeated by
    consecutive syncs is one row (``syncs 4–7``).  The reason code and the
    upstream rule are in the row's tooltip (the "under the hood" layer).
    """
    rows: list[list] = []
    for r in results:
        for d in r.decisions:
            if d.action not in POD_ACTIONS:
                continue
            key = (d.action, d.pod, d.reason)
            if rows and rows[-1][0] == key and d.action == "wait" and rows[-1][2] == r.sync - 1:
                rows[-1][2] = r.sync
                continue
            rows.append([key, r.sync, r.sync, r.time, d])
    if not rows:
        return "<p class='lab-note'>" + esc(_("No sync decided anything.") if empty is None else empty) + "</p>"
    heads = (pgettext("column", "at"), pgettext("column", "sync"), pgettext("column", "decision"),
             pgettext("column", "pod"), pgettext("column", "why"))
    out = ["<table class='lab-decisions'><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in heads)
           + "</tr></thead><tbody>"]
    for (action, pod, reason), first, last, t, d in rows:
        syncs = f"{first}" if first == last else f"{first}–{last}"
        tip = _("reason: {reason} · upstream: {rule}").format(reason=reason, rule=_(d.rule))
        why = d.message
        if current_language() != ENGLISH and d.rule:
            # the message mirrors upstream's English log line: in another language the row says why
            # with the translated rule, and the message stays in the tooltip
            why, tip = _(d.rule), f"{tip} · {d.message}"
        out.append(f"<tr title='{esc(tip)}'><td class='mono'>{t:g}s</td><td class='mono'>{syncs}</td>"
                   f"<td class='mono a-{esc(action)}'>{esc(action)}</td><td class='mono'>{esc(pod)}</td>"
                   f"<td>{esc(why)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


# ----------------------------------------------------------------------------- labs


class Lab(DisplayedAsWidget):
    """A focused panel for one idea: controls, what they caused, and a chart of the run.

    *manifest* is the StatefulSet (default: ``examples.web(3)``); *chart* one
    of :data:`CHARTS`; *views* the kubectl texts to show under the decisions
    (``"pods"``, ``"pvc"``, ``"history"``, ``"revisions"``, ``"owners"``,
    ``"identity"``, ``"sts"``).  Subclasses add their controls in
    :meth:`_controls`.
    """

    title = N_("Lab")
    intro = ""
    empty_note = N_("No sync ran after this change.")
    _ran = True
    linger_seconds = 5.0
    """Simulated seconds that pass after a change once the set is stable (the chart's last stretch)."""
    chart_kind = "timeline"
    views: tuple[str, ...] = ("pods",)
    chart_since_setup = False
    """Once a change has run, the chart shows the syncs since the set came up, not its creation (a lab whose
    changes take a few syncs each: at 50 replicas the creation's 200 would squeeze them into the edge)."""
    _came_up = 0

    def __init__(self, manifest: dict | None = None, *, chart: str | None = None,
                 views: Sequence[str] | None = None, profile: str = "current", name: str = "web",
                 max_syncs: int | None = None) -> None:
        if chart is not None and (not isinstance(chart, str) or chart not in CHARTS):
            raise ValueError(f"chart must be one of {', '.join(CHARTS)}, not {chart!r}")
        self.name = name
        self.manifest = manifest if manifest is not None else self.default_manifest()
        self.profile = profile
        self.max_syncs = int_argument(max_syncs, "max_syncs", minimum=1, allow_none=True)
        if chart is not None:
            self.chart_kind = chart
        if views is not None:
            self.views = tuple(as_list(views, "views", "view names"))
        self.last_error: BaseException | None = None
        self.last_results: list[SyncResult] = []
        self.did = ""
        self.stopped = ""
        """Why the last run ended with the set not stable ("" if it is stable or nothing ran)."""
        self.cluster = self._new_cluster()
        self._initial()
        self._came_up = len(self.cluster.trace)
        self._build()
        self._redraw()

    # ------------------------------------------------------------- setup
    def default_manifest(self) -> dict:
        return examples.web(3)

    def _new_cluster(self) -> Cluster:
        return Cluster(profile=self.profile)

    def _initial(self) -> None:
        """Create the set and let it come up (the first thing the lab shows)."""
        self.cluster.apply(self.manifest)
        self.last_results = self._run()
        self.did = did_sentence("<code>kubectl apply -f web.yaml</code>", 0)

    def chart_since(self) -> int | None:
        """The first sync the chart shows (:attr:`chart_since_setup`), or None for the whole run: until a
        change has run a sync, the creation is all there is to show."""
        if not self.chart_since_setup or len(self.cluster.trace) <= self._came_up:
            return None
        return self._came_up + 1

    def budget(self) -> int:
        """The most syncs one change may run: *max_syncs* if given, else enough for the set's size
        (a rolling update of n Parallel pods takes about 6n syncs)."""
        if self.max_syncs is not None:
            return self.max_syncs
        n = 0
        if self._exists():
            # a count of the set's pods: read in the store, not deep-copied pod by pod as pods() hands them out
            owned = sum(p.owner == self.name for p in self.cluster.store.list("Pod", "default"))
            n = max(self._sts().spec.replicas, owned)
        return 300 + 10 * n

    def _run(self, until: float | None = None) -> list[SyncResult]:
        """Run the controller until the set is stable, nothing more can happen, time *until* or the
        sync budget; set :attr:`stopped` to why the set is not stable (or "") and let
        :attr:`linger_seconds` pass when nothing more is due, so that the end state shows in the chart."""
        steps = self._run_steps(until)
        for _ in steps:
            pass
        return self._results

    def _run_steps(self, until: float | None = None):
        """:meth:`_run`, yielding after every sync (for a run in the background that Stop can end)."""
        c, budget, t0 = self.cluster, self.budget(), self.cluster.now
        results: list[SyncResult] = []
        self._results = results
        for r in c.iter_run(self.name, max_syncs=budget, until=until):
            results.append(r)
            yield len(results)
            if self._cancelled:
                break
        nxt = c.clock.peek() if self._exists() else None
        reasons = unsettled(c, self.name) if self._exists() else []
        if not reasons:
            self.stopped = ""
        elif self._cancelled:
            self.stopped = describe_stop(reasons, _("you pressed Stop after {n} syncs.").format(n=len(results)))
        elif nxt is not None and len(results) >= budget:
            self.stopped = describe_stop(reasons, _("it reached its limit of {n} syncs for one change.").format(n=budget))
        elif nxt is not None and until is not None:
            self.stopped = describe_stop(reasons, _("{seconds} simulated seconds passed.").format(seconds=f"{until - t0:g}"))
        else:
            self.stopped = describe_stop(reasons, _("nothing more happens by itself: no pod changes state "
                                                    "and no sync is due."))
        self._end = results[-1].time if results else c.now
        if nxt is None:
            c.advance(self.linger_seconds)
        return results

    _cancelled = False
    _running = False
    _end = 0.0
    _results: list = []
    _task = None
    background_from = 20
    """Runs of a set with at least this many replicas go in the background under a kernel, with a
    progress bar and Stop; smaller ones finish at once."""

    def stop(self) -> None:
        """Stop a run in the background after the sync in progress (the Stop button)."""
        if self._running:
            self._cancelled = True

    def _progress_now(self, n: int) -> None:
        """Pods Ready at the revision they should have, out of those wanted; syncs and the clock."""
        if not self._exists():
            return
        sts = self._sts()
        spec, st = sts.spec, sts.status
        lo, hi = spec.start_ordinal, spec.start_ordinal + spec.replicas
        partition = spec.rolling_update.partition if spec.rolling_update is not None else 0
        # the store's pods, read only (not deep-copied one by one as cluster.pods hands them out)
        done = sum(1 for p in self.cluster.store.list("Pod", "default")
                   if p.owner == self.name and lo <= p.ordinal < hi and p.ready and not p.terminating
                   and (spec.update_strategy != "RollingUpdate" or p.ordinal - lo < partition
                        or p.revision == st.update_revision))
        self.progress.max = max(1, spec.replicas)
        self.progress.value = min(done, self.progress.max)
        self.progress_label.value = ("<span class='lab-note'>"
                                     + _("{n} syncs · t={t}s · {progress}").format(
                                         n=n, t=f"{self.cluster.now:g}",
                                         progress=progress_words(self.cluster, self.name, done, spec))
                                     + "</span>")

    def _in_background(self) -> bool:
        if not self._exists() or self._sts().spec.replicas < self.background_from:
            return False
        from .playground import kernel_loop
        return kernel_loop() is not None

    async def _run_async(self, finish: Callable[[list[SyncResult]], None], until: float | None = None,
                         redraw_every: float = 0.25) -> list[SyncResult]:
        """:meth:`_run` in the background: yields to the kernel after every sync, so that a Stop click
        is handled; the progress bar moves meanwhile; *finish* gets the syncs at the end."""
        import asyncio
        import time
        self._running = True
        self.progress_row.layout.display = None
        last = time.monotonic()
        try:
            for n in self._run_steps(until):
                if time.monotonic() - last > redraw_every:
                    self._progress_now(n)
                    last = time.monotonic()
                    await asyncio.sleep(0.01)
                else:
                    await asyncio.sleep(0)
        finally:
            self._running = False
            self.progress_row.layout.display = "none"
        finish(self._results)
        return self._results

    # ---------------------------------------------------------- controls
    def _controls(self) -> list[W.Widget]:
        return []

    def slider(self, label: str, value: int, lo: int, hi: int, on: Callable[[int], Any],
               hard_max: int | None = None) -> W.IntSlider:
        """An int slider for *on*, with a box beside it to type a value (:meth:`typed`).

        The slider's own readout is off: typed into it, a value out of range would be clamped without
        a word.  *hard_max*: the most this lab allows (a typed value above it gets a message); without
        it a typed value above the slider's end widens the slider."""
        s = W.IntSlider(value=value, min=lo, max=max(hi, value), description=label, continuous_update=False, readout=False,
                        style={"description_width": "initial"}, layout=W.Layout(width="260px"))
        box = W.IntText(value=value, layout=W.Layout(width="72px"))
        s.observe(lambda ch: self._from_widget(on, ch["new"]), names="value")
        s.observe(lambda ch: self._set_control(box, ch["new"]), names="value")
        box.observe(lambda ch: self._from_widget(lambda v: self.typed(s, v, on, hard_max), ch["new"]), names="value")
        s.stsedu_box = box  # the typed-value box, kept in step with the slider
        return s

    def typed(self, slider: W.IntSlider, value: int, on: Callable[[int], Any], hard_max: int | None = None):
        """A value typed into a slider's box: in range, as if the slider moved; below the slider's start,
        handed to the cluster (the API server's error says what is wrong); above *hard_max*, refused
        with a message; else the slider widens to it."""
        if value > slider.max and hard_max is not None and value > hard_max:
            self.last_error = ValueError(_(
                "{control}: this lab goes up to {most} and you typed {value} (the Playground, "
                "stsedu.widgets.Playground(), takes more)").format(control=slider.description, most=hard_max,
                                                                   value=value))
            self._set_control(slider.stsedu_box, slider.value)
            self._redraw()
            return []
        if value >= slider.min:
            slider.max = max(slider.max, value)
            if value != slider.value:
                slider.value = value  # runs *on* through the slider's observer
            return self.last_results
        out = on(value)  # below the range: the cluster refuses it in the API server's words
        self._sync_controls()
        self._set_control(slider.stsedu_box, slider.value)
        return out

    def choice(self, label: str, options: Sequence, value: Any, on: Callable[[Any], Any]) -> W.ToggleButtons:
        t = W.ToggleButtons(options=list(options), value=value, description=_(label),
                            style={"description_width": "initial", "button_width": "auto"})
        t.observe(lambda ch: self._from_widget(on, ch["new"]), names="value")
        return t

    def button(self, label: str, on: Callable[[], Any], style: str = "") -> W.Button:
        b = W.Button(description=_(label), button_style=style, layout=W.Layout(width="auto"))
        b.on_click(lambda _b: self._from_widget(lambda _v: on(), None))
        return b

    _syncing = False

    def _from_widget(self, fn: Callable[[Any], Any], value: Any) -> None:
        if self._syncing:  # the lab is setting its own controls
            return
        if self._running:  # a run is going on in the background: one change at a time
            self._sync_controls()
            busy = ValueError(_("a change is still running: wait for it, or press Stop"))
            self.did_area.value = error_html(busy).replace("stsedu-error", "lab-error")
            return
        fn(value)

    def _sync_controls(self) -> None:
        """Put the controls back to the cluster's values (after an error or a replay)."""
        if not self._exists():
            return
        s = self._sts().spec
        ru = s.rolling_update
        values = {"w_replicas": s.replicas, "w_start": s.start_ordinal, "w_mrs": s.min_ready_seconds,
                  "w_limit": s.revision_history_limit,
                  "w_image": s.template["spec"]["containers"][0]["image"],
                  "w_strategy": s.update_strategy, "w_policy": s.pod_management_policy,
                  "w_scaled": s.when_scaled, "w_deleted": s.when_deleted, "w_profile": self.profile,
                  "w_partition": ru.partition if ru is not None else None,
                  "w_mu": ru.max_unavailable if ru is not None else None}
        for attr, value in values.items():
            w = getattr(self, attr, None)
            if w is None or value is None:
                continue
            if isinstance(w, W.ToggleButtons) and value not in w.options:
                continue
            if isinstance(w, W.IntSlider) and isinstance(value, int) and value > w.max:
                w.max = value  # never clamp: the control shows the cluster's value
            if isinstance(value, int) or isinstance(w, W.ToggleButtons):
                self._set_control(w, value)

    def _set_control(self, widget: W.Widget, value: Any) -> None:
        before, self._syncing = self._syncing, True
        try:
            widget.value = value
        finally:
            self._syncing = before

    # ----------------------------------------------------------- actions
    def change(self, what: str, fn: Callable[[Cluster], Any], run: bool = True) -> list[SyncResult]:
        """Make one change (*fn* on the cluster, described by *what*, kubectl-style), then let
        the controller run until the set is stable, and redraw.  Returns the syncs it caused."""
        t0 = self.cluster.now
        self.last_error = None
        try:
            fn(self.cluster)
        except LAB_ERRORS as e:
            self.last_error = e
            self._sync_controls()
            self._redraw()
            return []
        self._sync_controls()
        results: list[SyncResult] = []
        self._ran = run and self._exists()
        self.stopped = ""

        def finish(results: list[SyncResult]) -> None:
            self.last_results = results
            self.did = did_sentence(what, t0)
            self._redraw()
        if self._ran and self._in_background():
            from .playground import kernel_loop
            self.did_area.value = ("<div class='lab-did'>" + _("{did}: running…").format(did=did_sentence(what, t0))
                                   + "</div>")
            self._task = kernel_loop().create_task(self._run_async(finish))
            return []
        if self._ran:
            results = self._run()
        finish(results)
        return results

    def refuse(self, error: BaseException) -> list[SyncResult]:
        """Show *error* and change nothing: the cluster is untouched, the controls snap back."""
        self.last_error = error
        self._sync_controls()
        self._redraw()
        return []

    def _exists(self) -> bool:
        # looked up in the store: cluster.statefulset would deep-copy the set only to be dropped
        return self.cluster.store.get("StatefulSet", "default", self.name) is not None

    def _sts(self):
        return self.cluster.statefulset(self.name)

    def scale(self, replicas: int) -> list[SyncResult]:
        return self.change(f"<code>kubectl scale sts {self.name} --replicas={replicas}</code>",
                           lambda c: c.scale(self.name, replicas))

    def set_image(self, image: str) -> list[SyncResult]:
        return self.change(f"<code>kubectl set image sts/{self.name} nginx={image}</code>",
                           lambda c: c.set_image(self.name, image))

    def patch(self, patch: dict, what: str) -> list[SyncResult]:
        import json
        return self.change(f"<code>kubectl patch sts {self.name} -p '{esc(json.dumps(patch))}'</code>"
                           f" ({esc(what)})", lambda c: c.patch(self.name, patch))

    def delete_pod(self, pod: str) -> list[SyncResult]:
        return self.change(f"<code>kubectl delete pod {pod}</code>", lambda c: c.delete_pod(pod))

    # ----------------------------------------------------------- drawing
    def _build(self) -> None:
        self.header = W.HTML(f"{LAB_CSS}<div class='lab-title'>{esc(_(self.title))}</div>"
                             + (f"<div class='lab-note'>{_(self.intro)}</div>" if self.intro else ""))
        self.did_area = W.HTML()
        self.decisions = W.HTML()
        self.decisions.add_class("stsedu-lab-decisions")
        self.text = W.HTML()
        self.text.add_class("stsedu-lab-text")
        self.chart = LabChart(self.chart_kind)
        controls = [_with_boxes(c) for c in self._controls()]
        self.progress = W.IntProgress(value=0, min=0, max=1, description="", layout=W.Layout(width="260px"))
        self.progress_label = W.HTML()
        self.stop_button = W.Button(description=_("Stop"), icon="stop", button_style="warning",
                                    layout=W.Layout(width="auto"))
        self.stop_button.on_click(lambda _b: self.stop())
        self.progress_row = W.HBox([self.progress, self.progress_label, self.stop_button],
                                   layout=W.Layout(display="none", align_items="center", grid_gap="8px"))
        self.controls = W.VBox(controls)
        self.widget = W.VBox([
            self.header, self.controls, self.progress_row, self.did_area,
            W.HBox([W.VBox([W.HTML("<div class='lab-h'>" + _("Decisions of the syncs your change caused")
                                   + "</div>"),
                            self.decisions], layout=W.Layout(flex="1 1 380px", min_width="380px")),
                    # the kubectl texts keep their natural width (no column cut off at the edge): beside
                    # the decisions when the notebook is wide enough, else below them
                    W.VBox([self.text], layout=W.Layout(flex="0 1 auto", min_width="0", max_width="100%",
                                                        overflow="auto"))],
                   layout=W.Layout(grid_gap="16px", align_items="flex-start", width="100%",
                                   flex_flow="row wrap")),
            self.chart.widget])
        self.widget.add_class("stsedu-lab")
        self.widget.add_class("stsedu-lab-panel")

    def _redraw(self) -> None:
        c = self.cluster
        if self.last_error is not None:
            self.did_area.value = error_html(self.last_error).replace("stsedu-error", "lab-error")
        else:
            n = len(self.last_results)
            syncs = ngettext("{n} sync", "{n} syncs", n).format(n=n)
            end = f"{self._end:g}"
            if self._ran and self.stopped:
                what = _(": {syncs}, then at t={t}s {why}").format(syncs=syncs, t=end, why=esc(self.stopped))
            elif self._ran:
                what = _(": {syncs}, stable at t={t}s").format(syncs=syncs, t=end)
            else:
                what = f": {syncs}" if n else ""
            what = what if what.endswith((".", "。")) else what + _(".")
            left = left_note(c, self.name) if self._ran and not self.stopped else ""
            left = f" {esc(left)}" if left else ""
            now = _("Now t={t}s.").format(t=f"{c.now:g}")
            self.did_area.value = f"<div class='lab-did'>{self.did}{what}{left} {now}</div>"
        self.decisions.value = ("<div class='lab-scroll'>" +
                                decisions_html(self.last_results, _(self.empty_note) if not self._ran else
                                               _("The controller found no pod to create, delete or wait for.")) + "</div>")
        # the trace's tables for this redraw: `get pods` and the chart read the same ones
        once = TablesOnce(c.trace)
        self.text.value = "".join(self._view(v, once) for v in self.views)
        self.chart.update(self, once)

    def _view(self, kind: str, once: TablesOnce | None = None) -> str:
        c, name = self.cluster, self.name
        if kind == "pods":
            from ..api.objects import REVISION_LABEL
            head, text = (f"kubectl get pods -L {REVISION_LABEL}",
                          tables.get_pods_text(c, name if self._exists() else None, label_columns=(REVISION_LABEL,),
                                               tables=once))
        elif kind == "pvc":
            head, text = "kubectl get pvc", tables.get_pvc_text(c)
        elif kind == "sts":
            head, text = "kubectl get sts", tables.get_sts_text(c)
        elif kind == "history":
            head = f"kubectl rollout history sts/{name}"
            text = tables.rollout_history_text(c, name) if self._exists() else _("(no StatefulSet)")
        elif kind == "revisions":
            head, text = "kubectl get controllerrevisions", tables.get_controllerrevisions_text(c)
        elif kind == "owners":
            head = _("pods and their owner")
            rows = [f"{p.name:<8} {('StatefulSet/' + p.owner) if p.owner else '<none> (orphan)'}"
                    for p in sorted(c.pods(), key=lambda p: p.ordinal)]
            text = "\n".join(["NAME     OWNER"] + rows) if rows else _("No pods.")
        elif kind == "identity":
            from ..views.identity_tables import pod_identity_table
            df = pod_identity_table(c, name) if self._exists() else None
            head = _("each pod's identity")
            text = (_("No pods.") if df is None or df.empty else
                    df[["pod", "hostname", "dns_name", "pod_index_label"]].to_string(index=False))
        else:
            raise ValueError(f"unknown view {kind!r}")
        return f"<div class='lab-h'><code>{esc(head)}</code></div><pre class='lab-pre lab-scroll'>{esc(text)}</pre>"

    # -------------------------------------------------------- display
    def summary(self) -> str:
        """One line about the set now (also the lab's text form)."""
        if not self._exists():
            return _("no StatefulSet {name}; {n} pods left").format(name=self.name, n=len(self.cluster.pods()))
        s = self._sts()
        pods = self.cluster.pods(self.name)
        ready = sum(p.ready and not p.terminating for p in pods)
        return _("{replicas} replicas, {ready} of {pods} pods Ready").format(replicas=s.spec.replicas, ready=ready,
                                                                             pods=len(pods))

    def __repr__(self) -> str:
        return "<" + _("{lab} ({title}): {summary}. Run this cell to use it.").format(
            lab=type(self).__name__, title=_(self.title), summary=self.summary()) + ">"
