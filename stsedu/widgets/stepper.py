"""SyncStepper: steps through the decisions of one sync, highlighting the upstream step of each."""

from __future__ import annotations

import time
from typing import Sequence

import ipywidgets as W

from ..views import tables
from ..api.arguments import int_argument
from ..cluster import Cluster
from ..i18n import _
from ..controller.decisions import Decision, SyncResult
from .playground import Playground
from .panels import STEP_ORDER, PLAYGROUND_CSS, DisplayedAsWidget, action_class, esc

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


class SyncStepper(DisplayedAsWidget):
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
        self.prev_button = W.Button(description=_("◀ Previous"), layout=W.Layout(width="110px"))
        self.next_button = W.Button(description=_("Next ▶"), layout=W.Layout(width="110px"))
        self.sync_button = W.Button(description=_("Sync"), button_style="primary", icon="play",
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
            W.HTML(PLAYGROUND_CSS),
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
        index = int_argument(index, "index")
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
            self.position.value = "<span class='stsedu-note'>" + _("no sync yet: click Sync") + "</span>"
            self.steps.value = self._steps_html(None, ())
            self.card.value = ""
            self.table.value = ""
            return
        self.position.value = (_("{sync} of {set} at t={t}s").format(
            sync="<b>" + _("sync {n}").format(n=r.sync) + "</b>", set=esc(r.set_name), t=f"{r.time:g}") + " · "
            + (_("decision {i} of {n}").format(i=self.index + 1, n=n) if n else _("no decisions")))
        d = self.decision
        self.steps.value = self._steps_html(d, r.decisions)
        if d is None:
            self.card.value = "<div class='stsedu-card'>" + _("This sync decided nothing.") + "</div>"
        else:
            done = {True: _("done"), False: _("failed ({error})").format(error=esc(d.error or "refused")),
                    None: _("a wait")}[d.applied]
            obj = d.pod or d.target or ""
            self.card.value = (
                f"<div class='stsedu-card'><div><span class='mono {action_class(d.action)}'>"
                f"{esc(d.action)}</span> <code>{esc(obj)}</code> "
                "<span class='stsedu-note'>" + _("reason {reason}").format(reason=f"<code>{esc(d.reason)}</code>")
                + f" · {done}</span></div>"
                f"<div style='margin:4px 0'>{esc(d.message)}</div>"
                "<div class='stsedu-note'>" + esc(_("upstream: {rule}").format(rule=_(d.rule))) + "</div></div>")
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
                        f"<td class='count'>{k if k else '·'}</td><td class='fn'>{esc(_(fn))}</td></tr>")
        step, upstream = esc(_("step")), esc(_("upstream"))
        return (f"<table class='stsedu-steps'><thead><tr><th>{step}</th><th>#</th><th>{upstream}</th></tr></thead>"
                "<tbody>" + "".join(rows) + "</tbody></table>")
