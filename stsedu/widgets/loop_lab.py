"""The loop lab of notebook 04, "From an event to a sync".

:class:`LoopLab` runs two StatefulSets (``web`` with 3 replicas, ``db`` with
2) through the whole controller (``cluster.run()``) and draws the loop with
:func:`stsedu.charts.queue_flow`.  Its controls: the pod informer's delay, an
API error on pod creation (three failures), and the number of workers.  Every
change re-runs the same seeded scenario and redraws, in place, what it did,
the decisions of its syncs, a few counters and the chart.

The notebook's predict-then-see questions (04.a-04.c) are with the others in
:mod:`stsedu.widgets.predict` (``stsedu.labs.reveal("04.a", answer)``).
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..cluster import Cluster
from ..i18n import N_, _, ngettext
from .lab_base import LAB_CSS, decisions_html
from .settled import unsettled

__all__ = ["LoopLab", "two_sets", "set_manifest", "loop_summary", "ready_at"]


def set_manifest(name: str, replicas: int) -> dict:
    """A small StatefulSet whose pods carry ``app: <name>``."""
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": "nginx:1"}]}}}}


SETS = (("web", 3), ("db", 2))
"""The lab's two sets and their replicas."""


def two_sets(seed: int = 1, informer_delay: float = 0.0, api_error: bool = False,
             workers: int = 1, run: bool = True) -> Cluster:
    """A cluster with ``web`` (3 replicas) and ``db`` (2), optionally run by the whole controller."""
    c = Cluster(seed=seed, informer_delay=informer_delay, concurrent_syncs=workers)
    for name, replicas in SETS:
        c.apply(set_manifest(name, replicas))
    if api_error:
        c.inject_error("create", "Pod", count=3)
    if run:
        c.run()
    return c


def ready_at(c: Cluster, name: str) -> float:
    """The first time the status of set *name* counted every replica Ready (NaN if it never did)."""
    st = c.trace.status()
    return float(st[(st["set"] == name) & (st["ready_replicas"] == st["spec_replicas"])]["time"].min())


def most_at_once(c: Cluster) -> int:
    """The most keys being synced at the same moment (one per busy worker), from ``trace.queue()``."""
    busy = top = 0
    for event in c.trace.queue()["event"]:
        if event == "handed to worker":
            busy += 1
            top = max(top, busy)
        elif event == "done":
            busy -= 1
    return top


def loop_summary(c: Cluster) -> dict[str, Any]:
    """What a learner checks after a run: syncs, keys synced at once, when both sets were Ready,
    requeues and errors."""
    q, d = c.trace.queue(), c.trace.decisions()
    return {N_("syncs"): len(c.trace.syncs()),
            N_("most syncs at the same moment (busy workers)"): most_at_once(c),
            N_("both sets Ready at (s)"): float(c.trace.status().groupby("set")["time"].max().max()),
            N_("rate-limited requeues"): int(q["event"].str.contains("rate").sum()),
            N_("failed API calls"): int(d["error"].notna().sum()),
            N_("'already exists' errors"): int(d["error"].fillna("").str.contains("already exists").sum())}


class LoopLab(w.VBox):
    """Two sets, one queue: an informer-delay slider, an API-error toggle and a workers control.

    Plain methods (``set_delay``, ``set_api_error``, ``set_workers``) do what
    the controls do, for tests and scripts; :attr:`cluster` is the last run and
    :attr:`last_results` its syncs.
    """

    title = N_("Loop lab: late news, a broken API, and workers")

    def __init__(self, seed: int = 1, limit: int = 80) -> None:
        from ..views.charts import ChartWidget
        self.seed, self.limit = seed, limit
        style = {"description_width": "initial"}
        self.delay = w.FloatSlider(value=0.0, min=0.0, max=2.0, step=0.25, description=_("informer delay (s)"),
                                   style=style, continuous_update=False)
        self.error = w.ToggleButton(value=False, description=_("API error on pod create"), icon="bolt",
                                    layout=w.Layout(width="auto"))
        self.workers = w.IntSlider(value=1, min=1, max=2, description=_("workers"), continuous_update=False,
                                   style=style)
        self.start = w.IntSlider(value=0, min=0, max=0, step=10, description=_("first step"),
                                 continuous_update=False, style=style)
        self.header = w.HTML(
            f"{LAB_CSS}<div class='lab-title'>{html.escape(_(self.title))}</div><div class='lab-note'>"
            + _("Two sets, <code>web</code> (3 pods) and <code>db</code> (2), share one queue. A sync takes no "
                "simulated time here, so a second worker does not make the pods Ready sooner: it lets "
                "<code>web</code> and <code>db</code> be synced at the same moment (see <i>{most}</i>).").format(
                    most=html.escape(_("most syncs at the same moment"))) + "</div>")
        self.did_area = w.HTML()
        self.chart = ChartWidget()
        self.summary = w.HTML()
        self.decisions = w.HTML()
        for control in (self.delay, self.error, self.workers):
            control.observe(lambda _change: self.refresh(), names="value")
        self.start.observe(lambda _change: self.redraw(), names="value")
        super().__init__([self.header, w.HBox([self.delay, self.error, self.workers]), self.did_area,
                          w.HBox([w.VBox([w.HTML("<div class='lab-h'>" + _("Decisions of the syncs of this run") + "</div>"),
                                          self.decisions], layout=w.Layout(flex="1 1 380px", min_width="380px")),
                                  w.VBox([w.HTML("<div class='lab-h'>" + _("Counters") + "</div>"), self.summary])],
                                 layout=w.Layout(grid_gap="16px", align_items="flex-start", width="100%",
                                                 flex_flow="row wrap")),
                          self.start, self.chart])
        # the classes the series' browser test looks for in every lab (tests/e2e/test_labs_browser.py)
        self.add_class("stsedu-lab")
        self.add_class("stsedu-lab-panel")
        self.chart.add_class("stsedu-lab-chart")
        self.decisions.add_class("stsedu-lab-decisions")
        self.cluster: Cluster | None = None
        self.last_results: list = []
        self.refresh()

    def set_delay(self, seconds: float) -> None:
        self.delay.value = seconds

    def set_api_error(self, on: bool) -> None:
        self.error.value = on

    def set_workers(self, n: int) -> None:
        self.workers.value = n

    def refresh(self) -> None:
        """Run the scenario again with the controls' values, then redraw."""
        self.cluster = c = two_sets(self.seed, self.delay.value, self.error.value, self.workers.value, run=False)
        self.last_results = c.run()
        from ..views.charts.queue import queue_flow_data
        steps = len(queue_flow_data(c.trace, limit=None))
        self.start.max = max(0, steps - self.limit)
        self.start.value = min(self.start.value, self.start.max)
        self.redraw()
        rows = "".join(f"<tr><td>{html.escape(_(k))}</td><td><b>{v:g}</b></td></tr>"
                       for k, v in loop_summary(c).items())
        self.summary.value = f"<table>{rows}</table>"
        self.decisions.value = "<div class='lab-scroll'>" + decisions_html(self.last_results) + "</div>"
        left = {name: unsettled(c, name) for name, _ in SETS}
        what = _("informer delay {delay}s, API error on pod create {on}, {workers}").format(
            delay=f"{self.delay.value:g}", on=_("on") if self.error.value else _("off"),
            workers=ngettext("{n} worker", "{n} workers", self.workers.value).format(n=self.workers.value))
        n = len(self.last_results)
        end = self.last_results[-1].time if self.last_results else c.now
        if any(left.values()):
            state = _("; ").join(_("{set} not stable: {reasons}").format(set=k, reasons=", ".join(v))
                                 for k, v in left.items() if v)
        else:
            state = _("both sets stable")
        self.did_area.value = ("<div class='lab-did'>" + _(
            "The lab ran the two sets again with {what}: {n} syncs, {state} at t={t}s.").format(
                what=html.escape(what), n=n, state=html.escape(state), t=f"{end:g}") + "</div>")

    def redraw(self) -> None:
        from ..views.charts import build_chart, queue_flow
        self.chart.update(build_chart(queue_flow, self.cluster.trace, limit=self.limit, start=self.start.value))

    def __repr__(self) -> str:
        return "<" + _("{lab} ({title}): {summary}. Run this cell to use it.").format(
            lab="LoopLab", title=_(self.title), summary=_("{n} syncs").format(n=len(self.last_results))) + ">"
