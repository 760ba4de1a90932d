"""The loop lab and the questions of notebook 04, "From an event to a sync".

:class:`LoopLab` runs two StatefulSets (``web`` with 3 replicas, ``db`` with
2) through the whole controller (``cluster.run()``) and draws the loop with
:func:`stsedu.charts.queue_flow`.  Its controls: the pod informer's delay, an
API error on pod creation (three failures), and the number of workers.  Every
change re-runs the same seeded scenario and redraws the chart in place.

:func:`reveal` answers the notebook's predict-then-see questions: with no
answer it only repeats the question; with one it runs the simulator and says
whether the prediction matched, and why.  Expected answers are computed by
the simulator each time, never stored.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable

import ipywidgets as w

from ..cluster import Cluster

__all__ = ["LoopLab", "two_sets", "reveal", "LOOP_QUESTIONS"]


def set_manifest(name: str, replicas: int) -> dict:
    """A small StatefulSet whose pods carry ``app: <name>``."""
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": "nginx:1"}]}}}}


def two_sets(seed: int = 1, informer_delay: float = 0.0, api_error: bool = False,
             workers: int = 1, run: bool = True) -> Cluster:
    """A cluster with ``web`` (3 replicas) and ``db`` (2), optionally run by the whole controller."""
    c = Cluster(seed=seed, informer_delay=informer_delay, concurrent_syncs=workers)
    c.apply(set_manifest("web", 3))
    c.apply(set_manifest("db", 2))
    if api_error:
        c.inject_error("create", "Pod", count=3)
    if run:
        c.run()
    return c


def loop_summary(c: Cluster) -> dict[str, Any]:
    """What a learner checks after a run: syncs, when both sets were Ready, requeues and errors."""
    q, d = c.trace.queue(), c.trace.decisions()
    return {"syncs": len(c.trace.syncs()),
            "both sets Ready at (s)": float(c.trace.status().groupby("set")["time"].max().max()),
            "rate-limited requeues": int(q["event"].str.contains("rate").sum()),
            "failed API calls": int(d["error"].notna().sum()),
            "'already exists' errors": int(d["error"].fillna("").str.contains("already exists").sum())}


class LoopLab(w.VBox):
    """Two sets, one queue: an informer-delay slider, an API-error toggle and a workers control.

    Plain methods (``set_delay``, ``set_api_error``, ``set_workers``) do what
    the controls do, for tests and scripts; :attr:`cluster` is the last run.
    """

    def __init__(self, seed: int = 1, limit: int = 80) -> None:
        from ..charts import ChartWidget
        self.seed, self.limit = seed, limit
        self.delay = w.FloatSlider(value=0.0, min=0.0, max=2.0, step=0.25, description="informer delay (s)",
                                   style={"description_width": "initial"}, continuous_update=False)
        self.error = w.ToggleButton(value=False, description="API error on pod create", icon="bolt")
        self.workers = w.IntSlider(value=1, min=1, max=2, description="workers", continuous_update=False)
        self.start = w.IntSlider(value=0, min=0, max=0, step=10, description="first step",
                                 continuous_update=False)
        self.chart = ChartWidget()
        self.summary = w.HTML()
        for control in (self.delay, self.error, self.workers):
            control.observe(lambda _change: self.refresh(), names="value")
        self.start.observe(lambda _change: self.redraw(), names="value")
        super().__init__([w.HBox([self.delay, self.error, self.workers]), self.start, self.chart, self.summary])
        # the classes the series' browser test looks for in every lab (tests/e2e/test_labs_browser.py)
        self.add_class("stsedu-lab-panel")
        self.chart.add_class("stsedu-lab-chart")
        self.summary.add_class("stsedu-lab-decisions")
        self.cluster: Cluster | None = None
        self.refresh()

    def set_delay(self, seconds: float) -> None:
        self.delay.value = seconds

    def set_api_error(self, on: bool) -> None:
        self.error.value = on

    def set_workers(self, n: int) -> None:
        self.workers.value = n

    def refresh(self) -> None:
        """Run the scenario again with the controls' values, then redraw."""
        self.cluster = two_sets(self.seed, self.delay.value, self.error.value, self.workers.value)
        from ..loop_chart import queue_flow_data
        steps = len(queue_flow_data(self.cluster.trace, limit=None))
        self.start.max = max(0, steps - self.limit)
        self.start.value = min(self.start.value, self.start.max)
        self.redraw()
        rows = "".join(f"<tr><td>{html.escape(k)}</td><td><b>{v:g}</b></td></tr>"
                       for k, v in loop_summary(self.cluster).items())
        self.summary.value = f"<table>{rows}</table>"

    def redraw(self) -> None:
        from ..charts import queue_flow
        self.chart.update(queue_flow(self.cluster.trace, limit=self.limit, start=self.start.value))


# ---------------------------------------------------------------- questions


@dataclass(frozen=True)
class LoopQuestion:
    id: str
    text: str
    form: str
    expected: Callable[[], Any]
    why: str


def _rate_delays() -> tuple[float, ...]:
    c = Cluster(seed=1)
    c.apply(set_manifest("web", 3))
    c.inject_error("create", "Pod", count=3)
    c.run()
    q = c.trace.queue("default/web")
    delays = q[q["event"].str.contains("rate")]["event"].str.extract(r"\(([\d.]+) s\)")[0].astype(float)
    return tuple(delays.head(3))


def _readopted() -> str:
    c = two_sets()
    c.delete("web", cascade="orphan")
    c.run()
    c.apply(set_manifest("web", 3))
    c.run()
    d = c.trace.decisions()
    later = d[d["set"].eq("web") & d["sync"].gt(d[d["set"].eq("web")]["sync"].max() - 5)]
    return "adopt" if later["action"].eq("adopt").any() and not later["action"].eq("create").any() else "create"


def _stale_create() -> bool:
    c = two_sets(informer_delay=0.5)
    return bool(c.trace.decisions()["error"].fillna("").str.contains("already exists").any())


LOOP_QUESTIONS = {q.id: q for q in (
    LoopQuestion("04.a", "web is alone in the cluster and creating its first pod fails three times in a row. The key goes back in the queue "
                         "with rate limiting after each failure. How long a pause does the queue give it "
                         "after the 1st, 2nd and 3rd failure?", "a tuple of three numbers of seconds, e.g. (1, 1, 1)",
                 _rate_delays,
                 "The default controller rate limiter backs a key off exponentially: 5 ms, then double "
                 "each time (at most 1000 s), until a successful sync forgets it."),
    LoopQuestion("04.b", "web is deleted with --cascade=orphan; its pods keep running without an owner. "
                         "You apply web again. Does the new set create new pods or adopt the old ones?",
                 '"create" or "adopt"', _readopted,
                 "The set's add event queues its key; its sync claims every orphan whose labels match the "
                 "selector and whose name fits the set (ClaimPods) and adopts it: no pod is created."),
    LoopQuestion("04.c", "Pod events reach the controller 0.5 s late, the set's own events at once. Does "
                         "the controller ever try to create a pod that already exists?", "True or False",
                 _stale_create,
                 "After creating web-0 the sync writes status; that event comes back at once and queues "
                 "web again, but web-0's add event is still on its way, so the next sync does not see "
                 "web-0 and creates it again: AlreadyExists. The failure requeues the key with rate "
                 "limiting and a later sync, once the cache has caught up, carries on."),
)}


def reveal(qid: str, answer: Any = None):
    """Predict, then see: with no *answer* repeat question *qid*; with one, check it against the simulator."""
    q = LOOP_QUESTIONS[qid]
    if answer is None:
        return w.HTML(f"<b>Question {q.id}.</b> {html.escape(q.text)}<br><i>No prediction recorded yet: "
                      f"answer with {html.escape(q.form)}, then run this cell again.</i>")
    from ..exercises.modes import is_assessed
    if is_assessed():
        return w.HTML(f"<b>Question {q.id}.</b> Predictions are not revealed in assessed mode.")
    expected = q.expected()
    ok = _same(answer, expected)
    mark = "✓ Right" if ok else f"✗ Not quite: the simulator gives {html.escape(repr(expected))}"
    return w.HTML(f"<b>{mark}.</b> {html.escape(q.why)}")


def _same(answer, expected) -> bool:
    if isinstance(expected, tuple):
        try:
            return len(answer) == len(expected) and all(abs(float(a) - e) < 1e-9 for a, e in zip(answer, expected))
        except (TypeError, ValueError):
            return False
    if isinstance(expected, str):
        return str(answer).strip().strip('"').lower() == expected
    return answer == expected
