"""The controller's outer loop drawn from a trace: event -> queue -> worker -> sync -> API write.

:func:`queue_flow` (re-exported as ``stsedu.charts.queue_flow``) draws one
point per step a key takes through the loop, in the order they happened, on
five lanes; a line joins the steps of one key, so a learner can follow a
set's key from the informer event that queued it to the writes its sync made
(whose own events queue it again).  :func:`queue_flow_data` is the table
behind it.
"""

from __future__ import annotations

import pandas as pd

from .widget import alt
from ...frames import kit_frame
from ...i18n import _

LANES = ("informer event", "work queue", "worker", "sync", "API write")
"""The lanes of :func:`queue_flow`, top to bottom: the loop's structure."""

FLOW_COLUMNS = ("step", "time", "key", "lane", "what", "detail")


def queue_flow_data(trace, limit: int | None = 80, start: int = 0) -> pd.DataFrame:
    """One row per step of the loop (columns :data:`FLOW_COLUMNS`), at most *limit* from step *start*.

    From ``trace.queue()``: an added key gives an ``informer event`` row (its
    cause) and a ``work queue`` row; a key handed out a ``worker`` row, then
    a ``sync`` row and the applied writes of that sync (``API write``, from
    ``trace.decisions()``); a finished key a ``worker`` row with the sync's
    outcome; requeues (rate limit, delay, added while processing) and
    forgets are ``work queue`` rows.
    """
    q = trace.queue()
    d = trace.decisions()
    d = d[d["applied"].eq(True) & ~d["action"].isin(["wait"])]
    writes = {n: g for n, g in d.groupby("sync")}
    syncs = trace.syncs().set_index("sync")
    rows = []
    outstanding: list[str] = []  # keys handed out and not yet done, in order: their syncs run in that order
    for r in q.itertuples(index=False):
        ev, key, t, cause = r.event, r.key, r.time, r.cause
        if ev == "added" or ev.startswith("added (while processing"):
            if cause and not cause.startswith("sync "):
                rows.append((t, key, "informer event", cause, ""))
            rows.append((t, key, "work queue", "added" if ev == "added" else "marked dirty", cause))
        elif ev == "handed to worker":
            rows.append((t, key, "worker", "handed to worker", ""))
            outstanding.append(key)
            n = r.sync + len(outstanding)  # the sync this key gets
            if n in syncs.index and syncs.loc[n, "set"] == key.split("/", 1)[1]:
                rows.append((t, key, "sync", f"sync {n}", ""))
                for w in (writes[n].itertuples(index=False) if n in writes else ()):
                    target = w.pod if isinstance(w.pod, str) else w.target if isinstance(w.target, str) else ""
                    rows.append((t, key, "API write", f"{w.action} {target}".strip(), w.message))
        elif ev == "done":
            if key in outstanding:
                outstanding.remove(key)
            rows.append((t, key, "worker", "done: " + (cause.split(": ", 1)[-1] if cause else ""), cause))
        else:  # requeues, forgotten
            rows.append((t, key, "work queue", ev, cause))
    df = kit_frame(rows, columns=["time", "key", "lane", "what", "detail"])
    df.insert(0, "step", range(len(df)))
    df = df.iloc[start:] if limit is None else df.iloc[start:start + limit]
    return df.reset_index(drop=True)


def queue_flow(trace, limit: int | None = 80, start: int = 0):
    """The loop drawn from *trace*: lanes informer event, work queue, worker, sync, API write.

    x is the step (the order things happened; many happen at the same
    simulated instant), colour the key (``namespace/name``); a line joins the
    steps of one key; hover a point for the time and the detail.  Shows at
    most *limit* steps from step *start* (None: all).
    """
    df = queue_flow_data(trace, limit, start)
    backoff = df["what"].str.contains("rate|delay", regex=True)
    df = df.assign(kind=["backoff" if b else "step" for b in backoff])
    base = alt.Chart(df).encode(
        x=alt.X("step:Q", title=_("step (in the order it happened)"), axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("lane:N", sort=list(LANES), title=None, scale=alt.Scale(domain=list(LANES))),
        color=alt.Color("key:N", title=_("key")),
    )
    line = base.mark_line(opacity=0.35, interpolate="step-after").encode(order="step:Q", detail="key:N")
    points = base.mark_point(filled=True, size=70).encode(
        shape=alt.Shape("kind:N", title=None, scale=alt.Scale(domain=["step", "backoff"],
                                                              range=["circle", "triangle-down"])),
        tooltip=["step:Q", "time:Q", "key:N", "lane:N", "what:N", "detail:N"])
    return (line + points).properties(
        width=640, height=200,
        title=alt.TitleParams(_("From an event to a sync"), subtitle=[
            _("informer event → work queue → worker → sync → API write → (new events)")]))
