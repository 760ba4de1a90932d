"""Labs: one small panel per idea of the notebook series, and predict-then-see questions.

A *lab* owns a :class:`~stsedu.Cluster` with one StatefulSet ``web`` and a
few controls: exactly the knobs of one idea (replicas and a blocked
scale-down, partition and image, the retention policy, ...).  Every change
is made the way a person would make it with kubectl, then the controller
runs until the set is stable; the lab redraws, in place,

* what you did and when (simulated time),
* the decisions of the syncs that change caused (plain words; the upstream
  rule shows on hover),
* the objects the idea is about (``kubectl get pods``, claims, history ...),
* a chart of the whole run (pod timeline, revision map, status counters).

Every control is also a plain method (``lab.set_replicas(2)``,
``lab.delete_pod("web-1")``), which the tests and the browser test use.  A
bad value never raises: the API server's error shows in the lab, the cluster
is left as it was and the controls snap back.

:func:`reveal` is the predict-then-see half: a question about a situation
the simulator sets up, answered in a code cell (``answer = ...``).  With no
answer it only repeats the question and the form of an answer; with one it
runs the simulator, shows what happened (decisions and chart) and says ✓ or
✗ with the rule.  The expected answer is never stored anywhere: it is what
the simulator does.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import ipywidgets as W

from . import examples, tables
from .cluster import Cluster
from .decisions import POD_ACTIONS, SyncResult
from .errors import APIError, ValidationError

__all__ = ["Lab", "IdentityLab", "StorageLab", "ScalingLab", "UpdateLab", "PartitionLab", "OnDeleteLab",
           "OwnershipLab", "PolicyLab", "AvailabilityLab", "FaultLab", "HistoryLab", "ProfileLab", "StepLab",
           "LabChart", "Question", "QUESTIONS", "question", "reveal", "decisions_html"]

IMAGES = ("nginx:1", "nginx:2", "nginx:3")
"""Images the labs offer: nginx:1 is what the set starts with."""

BROKEN_IMAGE = "nginx:broken"
"""An image whose pods start but never pass their readiness probe (FaultLab)."""

CHARTS = {"timeline": ("pod_timeline", "Pods over time"),
          "revisions": ("revision_map", "Which revision each pod runs"),
          "counters": ("status_counters", "Status counters over time"),
          "strip": ("decision_strip", "Decisions, sync by sync")}
"""Chart kinds a lab can show: kind -> (function in stsedu.charts, title)."""

_ERRORS = (APIError, ValidationError, ValueError, KeyError)

_CSS = """
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


def _esc(x: Any) -> str:
    return "" if x is None else html.escape(str(x))


class LabChart:
    """One chart of a lab's run, redrawn in place after every change.

    Uses ``stsedu.charts.ChartWidget`` (one widget, ``update(chart)`` per change) when the
    package has it, else the Playground's ``ChartView``.  ``update(lab)`` rebuilds the chart
    only when the trace grew or the clock moved.
    """

    def __init__(self, kind: str) -> None:
        from . import charts
        fn, self.title = CHARTS[kind]
        self.fn = getattr(charts, fn)
        self.chart = None
        self._key: tuple | None = None
        widget_cls = getattr(charts, "ChartWidget", None)
        if widget_cls is not None:
            self._view = None
            self.widget = widget_cls(layout=W.Layout(width="100%"))
        else:
            from .widgets import ChartView
            self._view = ChartView(self.fn, title=self.title)
            self.widget = self._view.widget
        self.widget.add_class("stsedu-lab-chart")

    def reset(self) -> None:
        self._key = None
        if self._view is not None:
            self._view.reset()

    def update(self, lab: "Lab") -> None:
        trace = lab.cluster.trace
        rows = trace.rows()
        key = (id(trace), lab.cluster.now) + tuple(len(rows[k]) for k in ("syncs", "decisions", "pods", "status"))
        if key == self._key:
            return
        self._key = key
        if self._view is not None:
            self._view.update(lab)
            self.chart = self._view.chart
            return
        if not rows["syncs"]:
            self.widget.update(None)
            return
        self.chart = self.fn(trace, lab.name)
        self.widget.update(self.chart)


def _show_chart(chart):
    """A displayable form of an Altair chart: a ChartWidget when there is one, else the chart
    (with the kit's offline renderer)."""
    from . import charts
    widget_cls = getattr(charts, "ChartWidget", None)
    if widget_cls is not None:
        return widget_cls(chart)
    charts.enable_offline()
    return chart


# ------------------------------------------------------------------ decisions table


def decisions_html(results: Sequence[SyncResult], empty: str = "No sync decided anything.") -> str:
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
        return f"<p class='lab-note'>{_esc(empty)}</p>"
    out = ["<table class='lab-decisions'><thead><tr><th>at</th><th>sync</th><th>decision</th><th>pod</th>"
           "<th>why</th></tr></thead><tbody>"]
    for (action, pod, reason), first, last, t, d in rows:
        syncs = f"{first}" if first == last else f"{first}–{last}"
        tip = f"reason: {reason} · upstream: {d.rule}"
        out.append(f"<tr title='{_esc(tip)}'><td class='mono'>{t:g}s</td><td class='mono'>{syncs}</td>"
                   f"<td class='mono a-{_esc(action)}'>{_esc(action)}</td><td class='mono'>{_esc(pod)}</td>"
                   f"<td>{_esc(d.message)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


# ----------------------------------------------------------------------------- labs


class Lab:
    """A focused panel for one idea: controls, what they caused, and a chart of the run.

    *manifest* is the StatefulSet (default: ``examples.web(3)``); *chart* one
    of :data:`CHARTS`; *views* the kubectl texts to show under the decisions
    (``"pods"``, ``"pvc"``, ``"history"``, ``"revisions"``, ``"owners"``,
    ``"identity"``, ``"sts"``).  Subclasses add their controls in
    :meth:`_controls`.
    """

    title = "Lab"
    intro = ""
    empty_note = "No sync ran after this change."
    _ran = True
    linger_seconds = 5.0
    """Simulated seconds that pass after a change once the set is stable (the chart's last stretch)."""
    chart_kind = "timeline"
    views: tuple[str, ...] = ("pods",)

    def __init__(self, manifest: dict | None = None, *, chart: str | None = None,
                 views: Sequence[str] | None = None, profile: str = "current", name: str = "web",
                 max_syncs: int = 300) -> None:
        self.name = name
        self.manifest = manifest if manifest is not None else self.default_manifest()
        self.profile = profile
        self.max_syncs = max_syncs
        if chart is not None:
            self.chart_kind = chart
        if views is not None:
            self.views = tuple(views)
        self.last_error: BaseException | None = None
        self.last_results: list[SyncResult] = []
        self.did = ""
        self.cluster = self._new_cluster()
        self._initial()
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
        self.last_results = self.cluster.run(self.name, max_syncs=self.max_syncs)
        self.did = f"<code>kubectl apply -f web.yaml</code> at t=0s"

    # ---------------------------------------------------------- controls
    def _controls(self) -> list[W.Widget]:
        return []

    def slider(self, label: str, value: int, lo: int, hi: int, on: Callable[[int], Any]) -> W.IntSlider:
        s = W.IntSlider(value=value, min=lo, max=hi, description=label, continuous_update=False,
                        style={"description_width": "initial"}, layout=W.Layout(width="320px"))
        s.observe(lambda ch: self._from_widget(on, ch["new"]), names="value")
        return s

    def choice(self, label: str, options: Sequence, value: Any, on: Callable[[Any], Any]) -> W.ToggleButtons:
        t = W.ToggleButtons(options=list(options), value=value, description=label,
                            style={"description_width": "initial", "button_width": "auto"})
        t.observe(lambda ch: self._from_widget(on, ch["new"]), names="value")
        return t

    def button(self, label: str, on: Callable[[], Any], style: str = "") -> W.Button:
        b = W.Button(description=label, button_style=style, layout=W.Layout(width="auto"))
        b.on_click(lambda _b: self._from_widget(lambda _v: on(), None))
        return b

    _syncing = False

    def _from_widget(self, fn: Callable[[Any], Any], value: Any) -> None:
        if self._syncing:  # the lab is setting its own controls
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
                  "w_partition": ru.partition if ru is not None else None,
                  "w_mu": ru.max_unavailable if ru is not None else None}
        for attr, value in values.items():
            w = getattr(self, attr, None)
            if w is None or value is None:
                continue
            if isinstance(w, W.ToggleButtons) and value not in w.options:
                continue
            if isinstance(value, int) or isinstance(w, W.ToggleButtons):
                self._set_control(w, value)

    def _set_control(self, widget: W.Widget, value: Any) -> None:
        self._syncing = True
        try:
            widget.value = value
        finally:
            self._syncing = False

    # ----------------------------------------------------------- actions
    def change(self, what: str, fn: Callable[[Cluster], Any], run: bool = True) -> list[SyncResult]:
        """Make one change (*fn* on the cluster, described by *what*, kubectl-style), then let
        the controller run until the set is stable, and redraw.  Returns the syncs it caused."""
        t0 = self.cluster.now
        self.last_error = None
        try:
            fn(self.cluster)
        except _ERRORS as e:
            self.last_error = e
            self._sync_controls()
            self._redraw()
            return []
        self._sync_controls()
        results: list[SyncResult] = []
        self._ran = run and self._exists()
        if self._ran:
            results = self.cluster.run(self.name, max_syncs=self.max_syncs)
            if self.cluster.clock.peek() is None:
                # stable: let a few seconds pass so that the new state shows in the chart
                self.cluster.advance(self.linger_seconds)
        self.last_results = results
        self.did = f"{what} at t={t0:g}s"
        self._redraw()
        return results

    def _exists(self) -> bool:
        try:
            self.cluster.statefulset(self.name)
            return True
        except KeyError:
            return False

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
        return self.change(f"<code>kubectl patch sts {self.name} -p '{_esc(json.dumps(patch))}'</code>"
                           f" ({_esc(what)})", lambda c: c.patch(self.name, patch))

    def delete_pod(self, pod: str) -> list[SyncResult]:
        return self.change(f"<code>kubectl delete pod {pod}</code>", lambda c: c.delete_pod(pod))

    # ----------------------------------------------------------- drawing
    def _build(self) -> None:
        self.header = W.HTML(f"{_CSS}<div class='lab-title'>{_esc(self.title)}</div>"
                             + (f"<div class='lab-note'>{self.intro}</div>" if self.intro else ""))
        self.did_area = W.HTML()
        self.decisions = W.HTML()
        self.decisions.add_class("stsedu-lab-decisions")
        self.text = W.HTML()
        self.text.add_class("stsedu-lab-text")
        self.chart = LabChart(self.chart_kind)
        controls = self._controls()
        self.controls = W.VBox(controls)
        self.widget = W.VBox([
            self.header, self.controls, self.did_area,
            W.HBox([W.VBox([W.HTML("<div class='lab-h'>Decisions of the syncs your change caused</div>"),
                            self.decisions], layout=W.Layout(flex="1 1 0%", min_width="380px")),
                    W.VBox([self.text], layout=W.Layout(flex="1 1 0%", min_width="0", overflow="auto"))],
                   layout=W.Layout(grid_gap="16px", align_items="flex-start", width="100%")),
            self.chart.widget])
        self.widget.add_class("stsedu-lab")
        self.widget.add_class("stsedu-lab-panel")

    def _redraw(self) -> None:
        c = self.cluster
        if self.last_error is not None:
            from .widgets import _error_html
            self.did_area.value = _error_html(self.last_error).replace("stsedu-error", "lab-error")
        else:
            n = len(self.last_results)
            syncs = f"{n} sync{'s' * (n != 1)}"
            if self._ran:
                end = self.last_results[-1].time if self.last_results else c.now
                what = f": {syncs}, stable at t={end:g}s"
            else:
                what = f": {syncs}" if n else ""
            self.did_area.value = f"<div class='lab-did'>You ran {self.did}{what}. Now t={c.now:g}s.</div>"
        self.decisions.value = ("<div class='lab-scroll'>" +
                                decisions_html(self.last_results, self.empty_note if not self._ran else
                                               "No pod to create, delete or wait for: the pods already are as the spec asks.") + "</div>")
        self.text.value = "".join(self._view(v) for v in self.views)
        self.chart.update(self)

    def _view(self, kind: str) -> str:
        c, name = self.cluster, self.name
        if kind == "pods":
            from .model import REVISION_LABEL
            head, text = (f"kubectl get pods -L {REVISION_LABEL}",
                          tables.get_pods_text(c, name if self._exists() else None, label_columns=(REVISION_LABEL,)))
        elif kind == "pvc":
            head, text = "kubectl get pvc", tables.get_pvc_text(c)
        elif kind == "sts":
            head, text = "kubectl get sts", tables.get_sts_text(c)
        elif kind == "history":
            head = f"kubectl rollout history sts/{name}"
            text = tables.rollout_history_text(c, name) if self._exists() else "(no StatefulSet)"
        elif kind == "revisions":
            head, text = "kubectl get controllerrevisions", tables.get_controllerrevisions_text(c)
        elif kind == "owners":
            head = "pods and their owner"
            rows = [f"{p.name:<8} {('StatefulSet/' + p.owner) if p.owner else '<none> (orphan)'}"
                    for p in sorted(c.pods(), key=lambda p: p.ordinal)]
            text = "\n".join(["NAME     OWNER"] + rows) if rows else "No pods."
        elif kind == "identity":
            from .identity import pod_identity_table
            df = pod_identity_table(c, name) if self._exists() else None
            head = "each pod's identity"
            text = ("No pods." if df is None or df.empty else
                    df[["pod", "hostname", "dns_name", "pod_index_label"]].to_string(index=False))
        else:
            raise ValueError(f"unknown view {kind!r}")
        return f"<div class='lab-h'><code>{_esc(head)}</code></div><pre class='lab-pre lab-scroll'>{_esc(text)}</pre>"

    # -------------------------------------------------------- display
    def summary(self) -> str:
        """One line about the set now (also the lab's text form)."""
        if not self._exists():
            return f"no StatefulSet {self.name}; {len(self.cluster.pods())} pods left"
        s = self._sts()
        pods = self.cluster.pods(self.name)
        ready = sum(p.ready and not p.terminating for p in pods)
        return f"{s.spec.replicas} replicas, {ready} of {len(pods)} pods Ready"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ({self.title}): {self.summary()}. Run this cell to use it.>"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": repr(self)}
        return bundle


class IdentityLab(Lab):
    """01: where the pods' names come from: ``ordinals.start`` and replicas."""

    title = "Identity lab: ordinals.start and replicas"
    intro = "Move the first ordinal or the number of replicas; watch which names exist and what each pod is called."
    views = ("identity",)

    def _controls(self):
        s = self._sts().spec
        self.w_start = self.slider("ordinals.start", s.start_ordinal, 0, 5, self.set_start)
        self.w_replicas = self.slider("replicas", s.replicas, 0, 6, self.scale)
        return [W.HBox([self.w_start, self.w_replicas])]

    def set_start(self, start: int):
        return self.patch({"spec": {"ordinals": {"start": start}}}, f"first ordinal {start}")


class StorageLab(Lab):
    """02: one claim per pod; what scale-down and deletion do to the claims."""

    title = "Storage lab: claims, scaling and the retention policy"
    intro = ("Each pod gets its own PersistentVolumeClaim. Scale down and up, pick what happens to "
             "the claims when scaled down or when the set is deleted.")
    views = ("pods", "pvc")

    def default_manifest(self):
        return examples.web(3, claims=True)

    def _controls(self):
        self.w_replicas = self.slider("replicas", 3, 0, 5, self.scale)
        self.w_scaled = self.choice("whenScaled", ["Retain", "Delete"], "Retain",
                                    lambda v: self.set_retention(when_scaled=v))
        self.w_deleted = self.choice("whenDeleted", ["Retain", "Delete"], "Retain",
                                     lambda v: self.set_retention(when_deleted=v))
        self.b_delete = self.button("Delete the set", self.delete_set, "danger")
        self.b_create = self.button("Create it again", self.recreate, "success")
        return [W.HBox([self.w_replicas, self.b_delete, self.b_create]), W.HBox([self.w_scaled, self.w_deleted])]

    def set_retention(self, when_scaled: str | None = None, when_deleted: str | None = None):
        pol = {}
        if when_scaled:
            pol["whenScaled"] = when_scaled
        if when_deleted:
            pol["whenDeleted"] = when_deleted
        return self.patch({"spec": {"persistentVolumeClaimRetentionPolicy": pol}}, "retention policy")

    def delete_set(self):
        def go(c):
            c.delete(self.name)
            c.advance(60)  # kubectl waits while the garbage collector removes the pods
        return self.change(f"<code>kubectl delete sts {self.name}</code> (then 60s pass)", go, run=False)

    def recreate(self):
        if self._exists():
            self.last_error = ValueError(f"statefulset {self.name!r} already exists")
            self._redraw()
            return []
        m = examples.web(self.w_replicas.value, claims=True)
        m["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenScaled": self.w_scaled.value,
                                                             "whenDeleted": self.w_deleted.value}
        return self.change("<code>kubectl apply -f web.yaml</code>", lambda c: c.apply(m))


class ScalingLab(Lab):
    """03: OrderedReady scaling, and a scale-down blocked by an unhealthy pod."""

    title = "Scaling lab: replicas, and a pod that is not healthy"
    intro = ("Move replicas up or down. Untick <i>web-0 healthy</i> to make web-0 fail its readiness "
             "probe, then scale down: what happens to the pods that should go?")
    views = ("pods",)

    def _controls(self):
        self.w_replicas = self.slider("replicas", 3, 0, 6, self.scale)
        self.w_healthy = W.Checkbox(value=True, description="web-0 healthy", indent=False)
        self.w_healthy.observe(lambda ch: self._from_widget(self.set_healthy, ch["new"]), names="value")
        return [W.HBox([self.w_replicas, self.w_healthy])]

    def set_healthy(self, healthy: bool):
        def go(c):
            if healthy:
                c.kubelet.clear_behaviours()
                p = c.pod("web-0")
                if p.phase == "Running" and not p.ready:
                    c.kubelet.set_ready("web-0")
            else:
                c.kubelet.never_ready(pod="web-0")
                c.kubelet.set_unready("web-0")
        word = "passes" if healthy else "fails"
        return self.change(f"web-0's readiness probe {word}", go)


class PolicyLab(ScalingLab):
    """09: OrderedReady against Parallel, on the same scaling."""

    title = "Policy lab: OrderedReady or Parallel"
    intro = ("Pick a pod management policy, then move replicas. The policy cannot be edited in place: "
             "the lab deletes the set with <code>--cascade=orphan</code> and creates it again.")

    def _controls(self):
        self.w_replicas = self.slider("replicas", 3, 0, 6, self.scale)
        self.w_policy = self.choice("podManagementPolicy", ["OrderedReady", "Parallel"], "OrderedReady",
                                    self.set_policy)
        return [W.HBox([self.w_policy]), W.HBox([self.w_replicas])]

    def set_policy(self, policy: str):
        def go(c):
            m = self._sts().to_manifest()
            m.pop("status", None)
            m["metadata"] = {"name": self.name}
            m["spec"]["podManagementPolicy"] = policy
            c.delete(self.name, cascade="orphan")
            while self._exists():
                c.clock.advance_to(c.clock.peek())
            c.apply(m)
        return self.change(f"<code>kubectl delete sts {self.name} --cascade=orphan</code> and "
                           f"<code>kubectl apply</code> with podManagementPolicy={policy}", go)


class UpdateLab(Lab):
    """05: a new image rolls out, highest ordinal first; or waits, with OnDelete."""

    title = "Update lab: image and update strategy"
    intro = "Pick an image to start a rollout; switch the strategy to OnDelete and pick another image."
    chart_kind = "revisions"
    views = ("pods",)

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        self.w_strategy = self.choice("updateStrategy", ["RollingUpdate", "OnDelete"], "RollingUpdate",
                                      self.set_strategy)
        return [self.w_image, self.w_strategy]

    def set_strategy(self, strategy: str):
        return self.patch({"spec": {"updateStrategy": {"type": strategy}}}, f"strategy {strategy}")


class PartitionLab(Lab):
    """06: a partition stages a rollout: only ordinals >= partition are updated."""

    title = "Partition lab: partition and image"
    intro = ("Only pods whose ordinal is at least the partition get the new image. Pick an image, "
             "then lower the partition step by step.")
    chart_kind = "revisions"

    def default_manifest(self):
        return examples.web(4, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 4}})

    def _controls(self):
        self.w_partition = self.slider("partition", 4, 0, 4, self.set_partition)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [self.w_image, self.w_partition]

    def set_partition(self, partition: int):
        return self.patch({"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                       "rollingUpdate": {"partition": partition}}}},
                          f"partition {partition}")


class OnDeleteLab(Lab):
    """07: OnDelete: a new image waits until you delete a pod."""

    title = "OnDelete lab: image, and delete a pod yourself"
    intro = "Pick a new image: nothing is replaced. Delete pods one by one and see what comes back."
    chart_kind = "revisions"

    def default_manifest(self):
        return examples.web(3, updateStrategy={"type": "OnDelete"})

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        buttons = [self.button(f"Delete web-{i}", lambda i=i: self.delete_pod(f"web-{i}"), "warning")
                   for i in range(3)]
        return [self.w_image, W.HBox(buttons)]


class OwnershipLab(Lab):
    """08: deleting the set with or without its pods, and re-adoption."""

    title = "Ownership lab: delete the set, keep the pods, adopt them again"
    intro = ("<code>--cascade=orphan</code> deletes only the StatefulSet: its pods keep running with no "
             "owner. Create the set again and watch it adopt them.")
    views = ("owners", "pods")

    def _controls(self):
        return [W.HBox([self.button("Delete set (--cascade=orphan)", lambda: self.delete_set("orphan"), "warning"),
                        self.button("Delete set (cascade)", lambda: self.delete_set("background"), "danger"),
                        self.button("Create the set again", self.recreate, "success")])]

    def delete_set(self, cascade: str):
        def go(c):
            c.delete(self.name, cascade=cascade)
            c.advance(30)  # the garbage collector acts while kubectl waits
        flag = " --cascade=orphan" if cascade == "orphan" else ""
        return self.change(f"<code>kubectl delete sts {self.name}{flag}</code> (then 30s pass)", go, run=False)

    def recreate(self):
        if self._exists():
            self.last_error = ValueError(f"statefulset {self.name!r} already exists")
            self._redraw()
            return []
        return self.change("<code>kubectl apply -f web.yaml</code>", lambda c: c.apply(self.manifest))


class AvailabilityLab(Lab):
    """10: minReadySeconds (Ready is not yet Available) and maxUnavailable."""

    title = "Availability lab: minReadySeconds and maxUnavailable"
    intro = ("Set how long a pod must be Ready before it counts as Available, and how many pods a "
             "rollout may take down at once; then pick an image to start a rollout.")
    chart_kind = "counters"
    views = ("sts", "pods")

    def default_manifest(self):
        return examples.web(5)

    def _controls(self):
        self.w_mrs = self.slider("minReadySeconds", 0, 0, 30, self.set_min_ready)
        self.w_mu = self.slider("maxUnavailable", 1, 1, 5, self.set_max_unavailable)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [W.HBox([self.w_mrs, self.w_mu]), self.w_image]

    def set_min_ready(self, seconds: int):
        return self.patch({"spec": {"minReadySeconds": seconds}}, f"minReadySeconds {seconds}")

    def set_max_unavailable(self, n: int):
        return self.patch({"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                       "rollingUpdate": {"maxUnavailable": n}}}},
                          f"maxUnavailable {n}")


class FaultLab(Lab):
    """11: a pod fails; a rollout to a broken image gets stuck; the way out."""

    title = "Fault lab: a failed pod, a broken image, and the way out"
    intro = (f"<code>{BROKEN_IMAGE}</code> starts but never passes its readiness probe. Roll it out, "
             "then try to fix the set by putting <code>nginx:1</code> back, and by deleting the stuck pod.")
    chart_kind = "timeline"

    def _new_cluster(self):
        c = Cluster(profile=self.profile)
        c.kubelet.never_ready(image=BROKEN_IMAGE)
        return c

    def _controls(self):
        return [W.HBox([self.button("web-1 fails", lambda: self.fail_pod("web-1"), "warning"),
                        self.button(f"Roll out {BROKEN_IMAGE}", lambda: self.set_image(BROKEN_IMAGE), "danger"),
                        self.button("Put nginx:1 back", lambda: self.set_image("nginx:1"), "info"),
                        self.button("Delete web-2", lambda: self.delete_pod("web-2"), "warning")])]

    def fail_pod(self, pod: str):
        return self.change(f"{pod}'s container exits for good (phase Failed)",
                           lambda c: c.kubelet.fail(pod))

    def set_image(self, image):
        # a stuck rollout never becomes stable: stop after two minutes of simulated time
        t = self.cluster.now
        return self.change(f"<code>kubectl set image sts/{self.name} nginx={image}</code>",
                           lambda c: c.set_image(self.name, image), run=False) + self._run_for(t + 120)

    def delete_pod(self, pod):
        t = self.cluster.now
        return self.change(f"<code>kubectl delete pod {pod}</code>", lambda c: c.delete_pod(pod),
                           run=False) + self._run_for(t + 120)

    def _run_for(self, until: float) -> list[SyncResult]:
        if self.last_error is not None:
            return []
        self.last_results = self.cluster.run(self.name, max_syncs=self.max_syncs, until=until)
        self._redraw()
        return self.last_results


class HistoryLab(Lab):
    """12: ControllerRevisions, rollout undo and revisionHistoryLimit."""

    title = "History lab: images, undo and revisionHistoryLimit"
    intro = "Roll out a few images, undo, and lower the history limit: which revisions are kept?"
    chart_kind = "revisions"
    views = ("history", "revisions")

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        self.w_limit = self.slider("revisionHistoryLimit", 10, 0, 10, self.set_limit)
        return [self.w_image, W.HBox([self.w_limit, self.button("kubectl rollout undo", self.undo, "info")])]

    def set_limit(self, n: int):
        return self.patch({"spec": {"revisionHistoryLimit": n}}, f"revisionHistoryLimit {n}")

    def undo(self):
        return self.change(f"<code>kubectl rollout undo sts/{self.name}</code>",
                           lambda c: c.rollout_undo(self.name))



class ProfileLab(Lab):
    """15: the same changes under today's controller and under v1.16."""

    title = "Profile lab: today's controller or v1.16"
    intro = ("Pick a profile: the lab replays everything you did under that controller. "
             "Scale, roll out an image, and compare the decisions and the chart.")
    chart_kind = "strip"

    def __init__(self, manifest=None, **kw):
        self._log: list[tuple[str, Callable[[Cluster], Any]]] = []
        super().__init__(manifest, **kw)

    def default_manifest(self):
        return examples.web(3, minReadySeconds=5)

    def _controls(self):
        self.w_profile = self.choice("profile", ["current", "v1.16"], self.profile, self.set_profile)
        self.w_replicas = self.slider("replicas", 3, 0, 6, self.scale)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [self.w_profile, W.HBox([self.w_replicas]), self.w_image]

    def change(self, what, fn, run=True):
        out = super().change(what, fn, run)
        if self.last_error is None:
            self._log.append((what, fn))
        return out

    def set_profile(self, profile: str):
        """Replay the set's creation and every change so far under *profile*."""
        self.profile = profile
        self.cluster = self._new_cluster()
        self.cluster.apply(self.manifest)
        results = self.cluster.run(self.name, max_syncs=self.max_syncs)
        for _what, fn in self._log:
            fn(self.cluster)
            results = self.cluster.run(self.name, max_syncs=self.max_syncs)
        self.last_results = results
        self.did = f"everything again under profile <b>{_esc(profile)}</b>; the last change"
        self.chart.reset()
        self._redraw()
        return results


class StepLab(Lab):
    """14: one sync at a time, by hand: you sync, you play the kubelet."""

    title = "Step lab: one sync at a time"
    intro = ("Nothing happens until you press a button: <i>Sync once</i> runs exactly one sync, "
             "<i>Kubelet: one step</i> moves one pod one stage (Pending → Running → Ready, or a "
             "terminating pod away). The decision strip has one column per sync.")
    chart_kind = "strip"
    empty_note = "No sync yet since this change: press Sync once."
    step_seconds = 1.0
    """Simulated time each button press takes, so that AGE and the chart's time axis move."""

    def _new_cluster(self):
        return Cluster(kubelet="manual", profile=self.profile)

    def _initial(self):
        self.cluster.apply(self.manifest)
        self.last_results = [self.cluster.sync(self.name)]
        self._ran = False
        self.did = "<code>kubectl apply -f web.yaml</code> and one sync"

    def _controls(self):
        self.w_replicas = self.slider("replicas", 3, 0, 6, lambda n: self.change(
            f"<code>kubectl scale sts {self.name} --replicas={n}</code>", lambda c: c.scale(self.name, n), run=False))
        self.w_image = self.choice("image", IMAGES, IMAGES[0], lambda img: self.change(
            f"<code>kubectl set image sts/{self.name} nginx={img}</code>", lambda c: c.set_image(self.name, img),
            run=False))
        return [W.HBox([self.button("Sync once", self.sync_once, "primary"),
                        self.button("Kubelet: one step", self.kubelet_step, "info"), self.w_replicas]),
                self.w_image]

    def sync_once(self) -> list[SyncResult]:
        results: list[SyncResult] = []

        self.cluster.advance(self.step_seconds)
        self.change("one sync", lambda c: results.append(c.sync(self.name)), run=False)
        self.last_results = results
        self._redraw()
        return results

    def kubelet_step(self):
        moved: list = []

        self.cluster.advance(self.step_seconds)
        self.change("one kubelet step", lambda c: moved.append(c.kubelet.step()), run=False)
        self.did = f"one kubelet step ({_esc(moved[0]) if moved and moved[0] else 'no pod could move'})"
        self._redraw()
        return []


# ------------------------------------------------------------------- predictions


@dataclass
class Question:
    """A predict-then-see question: *setup* builds the situation, *act* makes the change and
    returns what happened (the thing to predict), computed by the simulator."""

    id: str
    text: str
    form: str
    kind: str  # "pods" | "decision" | "value"
    setup: Callable[[], Cluster]
    act: Callable[[Cluster], Any]
    why: str
    chart: str = "timeline"


def _up(manifest: dict, manual: bool = False, **kw) -> Cluster:
    c = Cluster(kubelet="manual" if manual else "auto", **kw)
    c.apply(manifest)
    if manual:
        c.settle("web")
    else:
        c.run("web")
    return c


def _first_pod_decision(c: Cluster, *, skip_waits: bool = False) -> tuple[str, str] | None:
    r = c.sync("web")
    for d in r.decisions:
        if d.action in POD_ACTIONS and not (skip_waits and d.action == "wait"):
            return (d.action, d.pod)
    return None


def _pods(c: Cluster) -> list[str]:
    return [p.name for p in c.pods("web") if not p.terminating]


def _q_created_while_pending():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(4, ordinals={"start": 1}))
    c.sync("web")
    c.kubelet.start("web-1")
    c.kubelet.set_ready("web-1")
    c.sync("web")  # creates web-2, which stays Pending
    return c


def _q_blocked():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(5))
    c.settle("web")
    c.kubelet.set_unready("web-1")
    return c


def _scale_down_blocked(c):
    c.scale("web", 2)
    return _first_pod_decision(c)


def _partitioned(partition: int, replicas: int = 5):
    def setup():
        return _up(examples.web(replicas, updateStrategy={"type": "RollingUpdate",
                                                          "rollingUpdate": {"partition": partition}}))
    return setup


def _new_image_pods_at(image: str):
    def act(c):
        c.set_image("web", image)
        c.run("web")
        return [p.name for p in c.pods("web") if image in p.images()]
    return act


def _canary_setup():
    c = _partitioned(2, replicas=4)()
    c.set_image("web", "nginx:2")
    c.run("web")
    return c


def _midway_update():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(3))
    c.settle("web")
    c.set_image("web", "nginx:2")
    c.sync("web")                      # deletes web-2 for the update
    c.kubelet.finish_termination("web-2")
    c.sync("web")                      # creates it again at the new revision
    c.kubelet.start("web-2")
    return c


def _parallel_scale_down_deletes(c):
    c.scale("web", 1)
    r = c.sync("web")
    return sum(d.action == "delete" for d in r.decisions)


def _ready_at_zero_mrs():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(2, minReadySeconds=10))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    return c


def _sync_at(t):
    def act(c):
        c.advance(max(0.0, t - c.now))
        return _first_pod_decision(c)
    return act


def _parallel_failed():
    c = _up(examples.web(3, policy="Parallel"), manual=True)
    c.kubelet.fail("web-0")
    return c


def _template_and_missing():
    c = _up(examples.web(2), manual=True)
    c.patch("web", {"spec": {"replicas": 3, "template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:2"}]}}}})
    return c


def _ondelete_two_images():
    c = _up(examples.web(3, updateStrategy={"type": "OnDelete"}))
    c.set_image("web", "nginx:2")
    c.run("web")
    c.set_image("web", "nginx:3")
    c.run("web")
    return c


def _image_of_recreated(pod: str):
    def act(c):
        c.delete_pod(pod)
        c.run("web")
        return c.pod(pod).images()[0]
    return act


def _orphan_then_scale():
    c = _up(examples.web(3))
    c.delete("web", cascade="orphan")
    c.advance(30)
    return c


def _recreate_with(replicas: int):
    def act(c):
        c.apply(examples.web(replicas))
        c.run("web")
        return sorted(p.name for p in c.pods() if not p.terminating)
    return act


def _storage_scaled_down():
    c = _up(examples.web(4, claims=True,
                         persistentVolumeClaimRetentionPolicy={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    return c


def _claims_after(n: int):
    def act(c):
        c.scale("web", n)
        c.run("web")
        c.advance(60)
        return sorted(p.name for p in c.pvcs() if not p.deleting)
    return act


def _parallel_first_sync(n: int):
    def act(c):
        c.scale("web", n)
        r = c.sync("web")
        return sum(d.action == "create" for d in r.decisions)
    return act


def _max_unavailable_first_deletes():
    return _up(examples.web(6, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}}))


def _first_sync_deletes(image: str):
    def act(c):
        c.set_image("web", image)
        r = c.sync("web")
        return sorted((d.pod for d in r.decisions if d.action == "delete"), key=lambda p: int(p.split("-")[1]))
    return act


def _available_count_at(t: float):
    def act(c):
        c.run("web", until=t)
        c.advance(max(0.0, t - c.now))
        return c.statefulset("web").status.available_replicas
    return act


def _broken_rollout():
    c = Cluster()
    c.kubelet.never_ready(image=BROKEN_IMAGE)
    c.apply(examples.web(4))
    c.run("web")
    c.set_image("web", BROKEN_IMAGE)
    c.run("web", until=c.now + 120)
    return c


def _revert_and_count_replaced(c):
    c.set_image("web", "nginx:1")
    c.run("web", until=c.now + 120)
    return [p.name for p in c.pods("web") if BROKEN_IMAGE in p.images()]


def _history_setup():
    c = _up(examples.web(2))
    for img in ("nginx:2", "nginx:3"):
        c.set_image("web", img)
        c.run("web")
    return c


def _undo_number(c):
    c.rollout_undo("web")
    c.run("web")
    return max(r.revision for r in c.revisions("web"))


def _identity_setup():
    return _up(examples.web(3, ordinals={"start": 3}))


def _names_after_scale(n):
    def act(c):
        c.scale("web", n)
        c.run("web")
        return _pods(c)
    return act


def _v116_setup():
    return _up(examples.web(0, minReadySeconds=30), profile="v1.16")


def _v116_act(c):
    c.scale("web", 3)
    c.run("web", until=c.now + 20)
    return _pods(c)


QUESTIONS: dict[str, Question] = {q.id: q for q in [
    Question("01.a", "A set web has ordinals.start 3 and 3 replicas. You scale it to 5. Which pods exist "
             "once it is stable?", 'a list of pod names, e.g. ["web-0", "web-1"]', "pods",
             _identity_setup, _names_after_scale(5),
             "Ordinals run from ordinals.start to start + replicas - 1: here 3..7. Names are "
             "<set>-<ordinal>, so scaling adds the next ordinals up, never fills in below start."),
    Question("02.a", "Four pods web-0..web-3, each with its claim www-web-N; whenScaled is Delete. You scale "
             "to 2. Which claims are left once the scale-down is over?", 'a list of claim names, e.g. ["www-web-0"]',
             "pods", _storage_scaled_down, _claims_after(2),
             "whenScaled: Delete removes the claims of the pods that scale-down removed (the controller makes "
             "the set their owner and the garbage collector deletes them once the pod is gone); the claims "
             "of the pods that stay are kept.", chart="timeline"),
    Question("03.a", "A set starting at ordinal 1 (web-1, web-2, ...) with 4 replicas: web-1 is Running "
             "and Ready, web-2 was just created and is Pending. What does the next sync do?",
             'a pair (action, pod), e.g. ("create", "web-9") or ("wait", "web-9")', "decision",
             _q_created_while_pending, lambda c: _first_pod_decision(c),
             "OrderedReady: before anything happens to a higher ordinal, every lower one must be Running and "
             "Ready. web-2 is Pending, so the sync waits for it and creates nothing."),
    Question("03.b", "Five Ready pods web-0..web-4; web-1 turns not Ready. You scale to 2. What does the "
             "next sync do?", 'a pair (action, pod), e.g. ("delete", "web-9") or ("wait", "web-9")',
             "decision", _q_blocked, _scale_down_blocked,
             "Scale-down removes the highest ordinal first, but only while every pod that stays is healthy: "
             "with web-1 not Ready, the condemned pods wait (the concept page's web-0 example, one ordinal up)."),
    Question("05.a", "Five Ready pods at nginx:1. You set image nginx:2 (RollingUpdate, no partition). "
             "Which pods does the FIRST sync delete?", 'a list of pod names, e.g. ["web-0"]', "pods",
             lambda: _up(examples.web(5)), _first_sync_deletes("nginx:2"),
             "A rolling update deletes one pod at a time, the highest ordinal first, and waits for its "
             "replacement to be Running and Ready before the next one.", chart="revisions"),
    Question("05.b", "Three pods are being updated to nginx:2. web-2 has been replaced: its new pod is Running "
             "but not Ready yet. What does the next sync do?",
             'a pair (action, pod), e.g. ("delete", "web-9") or ("wait", "web-9")', "decision",
             _midway_update, lambda c: _first_pod_decision(c),
             "The rolling update waits for each replacement to be Running and Ready before it deletes the "
             "next pod: here it waits for web-2.", chart="revisions"),
    Question("06.a", "Five Ready pods, partition 3. You set image nginx:2. Which pods run nginx:2 once the "
             "set is stable?", 'a list of pod names, e.g. ["web-0"]', "pods",
             _partitioned(3), _new_image_pods_at("nginx:2"),
             "Only pods whose ordinal is at least the partition are updated: web-3 and web-4. The others "
             "stay at the old revision, even if deleted.", chart="revisions"),
    Question("06.b", "Five Ready pods, partition 10 (more than replicas). You set image nginx:2. Which pods "
             "run nginx:2 once the set is stable?", 'a list of pod names, or [] for none', "pods",
             _partitioned(10), _new_image_pods_at("nginx:2"),
             "No ordinal is at least 10, so nothing is updated: a partition above replicas pauses the rollout.",
             chart="revisions"),
    Question("06.c", "Four pods, partition 2, image changed to nginx:2 (web-2 and web-3 run it). web-0 is "
             "deleted. Which image does the new web-0 run?", 'an image name, e.g. "nginx:1"', "value",
             _canary_setup, _image_of_recreated("web-0"),
             "A pod below the partition is always recreated from the current (old) revision: only ordinals "
             "at or above the partition get the update revision.", chart="revisions"),
    Question("07.a", "An OnDelete set of 3 pods at nginx:1. You set nginx:2, then nginx:3, without deleting "
             "anything. Then you delete web-0. Which image does the new web-0 run?",
             'an image name, e.g. "nginx:1"', "value", _ondelete_two_images, _image_of_recreated("web-0"),
             "With OnDelete a pod is recreated from the update revision, the newest template: nginx:3. "
             "Revisions in between are never run by anyone.", chart="revisions"),
    Question("08.a", "Three pods were orphaned (the set was deleted with --cascade=orphan). You create the "
             "set again with replicas 2. Which pods exist once it is stable?", 'a list of pod names',
             "pods", _orphan_then_scale, _recreate_with(2),
             "The new set adopts the orphans that match its selector, then treats them as its own: web-2 is "
             "outside replicas 2, so it is deleted like any scale-down."),
    Question("09.a", "A Parallel set with 0 replicas is scaled to 4. How many pods does the first sync "
             "create?", "a number", "value",
             lambda: _up(examples.web(0, policy="Parallel")), _parallel_first_sync(4),
             "Parallel creates every missing pod in one sync without waiting for any of them."),
    Question("09.b", "A Parallel set of 4 Ready pods is scaled to 1. How many pods does the first sync delete?",
             "a number", "value", lambda: _up(examples.web(4, policy="Parallel")), _parallel_scale_down_deletes,
             "Parallel also removes condemned pods without waiting: all three go in one sync."),
    Question("10.a", "Six Ready pods, maxUnavailable 3. You set image nginx:2. Which pods does the FIRST "
             "sync delete?", 'a list of pod names', "pods",
             _max_unavailable_first_deletes, _first_sync_deletes("nginx:2"),
             "With maxUnavailable 3 the rolling update may take down up to three pods at once, still "
             "highest ordinal first.", chart="revisions"),
    Question("10.b", "minReadySeconds is 10; web-0 became Ready at t=0 (web-1 does not exist yet). What does "
             "the sync at t=5 do?", 'a pair (action, pod), e.g. ("create", "web-9") or ("wait", "web-9")',
             "decision", _ready_at_zero_mrs, _sync_at(5),
             "Ready is not Available: a pod counts as Available only once it has been Ready for "
             "minReadySeconds. Until t=10 the controller waits for web-0 before it creates web-1."),
    Question("11.a", "A rollout to a broken image is stuck: web-3 runs it and never becomes Ready. You set the "
             "image back to nginx:1 and wait two minutes. Which pods still run the broken image?",
             'a list of pod names, or []', "pods", _broken_rollout, _revert_and_count_replaced,
             "Reverting the template is not enough: the controller waits for the stuck pod to become Ready "
             "before it touches it, and it never will. You must delete it yourself (the documented forced "
             "rollback)."),
    Question("11.b", "A Parallel set of 3 Ready pods; web-0's container exits for good (phase Failed). What "
             "does the next sync do first?", 'a pair (action, pod), e.g. ("create", "web-9")', "decision",
             _parallel_failed, lambda c: _first_pod_decision(c),
             "A Failed pod is deleted so that it can be created again with the same name (and claims); "
             "that happens in the replica loop, lowest ordinal first."),
    Question("12.a", "Image nginx:1 was rolled out, then nginx:2, then nginx:3 (revisions 1, 2, 3). You run "
             "kubectl rollout undo. What is the highest revision number afterwards?", "a number", "value",
             _history_setup, _undo_number,
             "Undo goes back to the previous template (nginx:2); its ControllerRevision is reused and gets "
             "the next number, 4, instead of a new copy being made.", chart="revisions"),
    Question("14.a", "Two Ready pods; in one edit you change the image AND scale to 3. What does the next "
             "sync do first?", 'a pair (action, pod), e.g. ("delete", "web-9") or ("create", "web-9")',
             "decision", _template_and_missing, lambda c: _first_pod_decision(c),
             "Scaling comes before updating in every sync: the replica loop creates the missing web-2 (at the "
             "new revision) before the rolling update looks at old pods.", chart="strip"),
    Question("15.a", "Under the v1.16 controller, a set with minReadySeconds 30 is scaled from 0 to 3. "
             "Which pods exist 20 seconds later?", 'a list of pod names', "pods",
             _v116_setup, _v116_act,
             "v1.16 knows nothing about minReadySeconds for StatefulSets: a pod that is Running and Ready is "
             "enough, so it creates the next pod as soon as the previous is Ready. Today's controller waits "
             "until each pod has been Ready for 30 s (Available) before it creates the next."),
]}


def question(qid: str) -> Question:
    """The question *qid*; KeyError naming the known ones otherwise."""
    try:
        return QUESTIONS[qid]
    except KeyError:
        raise KeyError(f"no question {qid!r}; known: {', '.join(QUESTIONS)}") from None


def _norm(kind: str, value: Any) -> Any:
    if kind == "pods":
        if isinstance(value, str) or not isinstance(value, (list, tuple, set)):
            raise TypeError
        return sorted((str(v) for v in value), key=lambda s: (s.rsplit("-", 1)[0], int(s.rsplit("-", 1)[1])
                                                              if s.rsplit("-", 1)[-1].isdigit() else 0))
    if kind == "decision":
        if value is None:
            return None
        a, p = value
        return (str(a).strip().lower(), str(p).strip())
    if isinstance(value, str):
        return value.strip()
    return value


@dataclass
class Reveal:
    """What :func:`reveal` shows: text for nbval and text/plain, HTML with the decisions and a chart."""

    text: str
    html: str = ""
    chart: Any = None

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html or f"<pre>{_esc(self.text)}</pre>"

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display({"text/plain": self.text, "text/html": self._repr_html_()}, raw=True)
        if self.chart is not None:
            display(_show_chart(self.chart))


NO_ANSWER = None


def reveal(qid: str, answer: Any = NO_ANSWER) -> Reveal:
    """Predict, then see: with no *answer* repeat the question and how to answer; with one, run
    the simulator, show what happened and say ✓ or ✗ with the rule."""
    q = question(qid)
    head = f"Question {q.id}: {q.text}"
    if answer is NO_ANSWER or answer is ...:
        ask = f"No prediction recorded yet: write it as answer = {q.form}, then run this cell."
        return Reveal(f"{head}\n{ask}", f"{_CSS}<div class='stsedu-lab stsedu-reveal'><b>Question {_esc(q.id)}:</b> "
                                          f"{_esc(q.text)}<br><span class='lab-note'>{_esc(ask)}</span></div>")
    try:
        given = _norm(q.kind, answer)
    except (TypeError, ValueError, IndexError):
        return Reveal(f"{head}\nYour answer {answer!r} does not have the form asked for: {q.form}.")
    c = q.setup()
    n0 = len(c.trace.rows()["syncs"])
    got = _norm(q.kind, q.act(c))
    ok = given == got
    mark = "✓ right" if ok else "✗ not this time"
    shown = lambda v: "nothing" if v in (None, []) else (", ".join(v) if isinstance(v, list) else  # noqa: E731
                                                         (" ".join(v) if isinstance(v, tuple) else str(v)))
    text = (f"{head}\nYou predicted: {shown(given)}\n{mark}: the simulator {'agrees' if ok else 'did'}: "
            f"{shown(got)}\nThe rule: {q.why}")
    results = [r for r in _results(c) if r.sync > n0]
    body = decisions_html(results)
    cls = "lab-ok" if ok else "lab-no"
    page = (f"{_CSS}<div class='stsedu-lab stsedu-reveal'><div class='lab-h'>{_esc(head)}</div>"
            f"<div>You predicted: <b>{_esc(shown(given))}</b></div>"
            f"<div class='{cls}'>{mark}: the simulator {'agrees' if ok else 'did'}: {_esc(shown(got))}</div>"
            f"<div class='lab-did'>The rule: {_esc(q.why)}</div>"
            f"<div class='lab-h'>What the controller decided</div>{body}</div>")
    chart = None
    try:
        from . import charts
        chart = getattr(charts, CHARTS[q.chart][0])(c.trace, "web")
    except Exception:  # noqa: BLE001 - the verdict matters more than the picture
        chart = None
    return Reveal(text, page, chart)


def _results(c: Cluster) -> list[SyncResult]:
    """The syncs in a cluster's trace, as light SyncResult-likes for :func:`decisions_html`."""
    df = c.trace.decisions()
    out: dict[int, _TraceSync] = {}
    for row in df.itertuples(index=False):
        s = out.setdefault(int(row.sync), _TraceSync(int(row.sync), float(row.time), []))
        s.decisions.append(_TraceDecision(row.action, row.pod if isinstance(row.pod, str) else None,
                                          row.reason, row.rule, row.message))
    return [out[k] for k in sorted(out)]


@dataclass
class _TraceDecision:
    action: str
    pod: str | None
    reason: str
    rule: str
    message: str


@dataclass
class _TraceSync:
    sync: int
    time: float
    decisions: list
