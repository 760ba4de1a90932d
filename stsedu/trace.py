"""The trace: an append-only record of everything that happened in a cluster.

Rows are appended as plain tuples while the simulation runs (cheap), and
turned into pandas DataFrames on demand.  Every frame has a ``sync`` column
(the number of the sync in progress, or of the last one, 0 before any) and a
``time`` column (the clock, in seconds).
"""

from __future__ import annotations

from typing import Any

DECISION_COLUMNS = ("sync", "time", "set", "seq", "action", "pod", "reason", "target",
                    "message", "rule", "step", "applied", "error")
"""Columns of :meth:`Trace.decisions`: one row per decision, in the order made.

``seq`` orders decisions within a sync; ``target`` names the PVC or revision
acted on; ``step`` is the part of the algorithm (revisions, replicas,
fix-claims, condemned, update, status, history, claim); ``applied`` is True
when carried out, False when an API error stopped it or it was not reached,
None for waits."""

POD_COLUMNS = ("sync", "time", "pod", "set", "ordinal", "event", "phase", "ready",
               "terminating", "revision", "cause", "restarts", "containers")
"""Columns of :meth:`Trace.pods`: one row per change of a pod.

``time`` is the clock when the change happened (a kubelet change between two
syncs has the sync number of the one before and its own time); ``event`` is
created, updated or deleted (gone from the store); ``cause`` says who changed
it (``sync 3: create (missing)``, ``kubelet: started``, ``user: delete_pod``,
``garbage collector``); ``restarts`` is the pod's container restart count and
``containers`` how many containers it has (kubectl's READY ``n/m``)."""

STATUS_COLUMNS = ("sync", "time", "set", "spec_replicas", "replicas", "ready_replicas",
                  "available_replicas", "current_replicas", "updated_replicas",
                  "current_revision", "update_revision", "observed_generation", "written",
                  "min_ready_seconds", "partition")
"""Columns of :meth:`Trace.status`: one row per sync, the status that sync computed;
``written`` is True when it differed from the stored status and was written.
``min_ready_seconds`` is the minReadySeconds the sync applied (0 where the profile
has none) and ``partition`` the RollingUpdate partition (None for OnDelete)."""

EVENT_COLUMNS = ("sync", "time", "type", "reason", "object", "message")
"""Columns of :meth:`Trace.events`: Kubernetes-style events (``kubectl get events``),
Normal or Warning, plus the user's own actions (reason ``User``)."""

SYNC_COLUMNS = ("sync", "time", "set", "decisions", "changed", "error")
"""Columns of :meth:`Trace.syncs`: one row per sync."""


class Trace:
    """Everything a cluster did, in order.

    ``decisions()``, ``pods()``, ``status()``, ``events()`` and ``syncs()``
    return DataFrames with the columns documented in this module.
    """

    def __init__(self, meta: dict[str, Any] | None = None, clock=None) -> None:
        self.meta: dict[str, Any] = dict(meta or {})
        self.clock = clock
        """The cluster's clock (anything with ``now``): pod changes and events are
        stamped with it; without one they get the time of the last sync."""
        self.sync = 0
        self.time = 0.0
        self._decisions: list[tuple] = []
        self._pods: list[tuple] = []
        self._status: list[tuple] = []
        self._events: list[tuple] = []
        self._syncs: list[tuple] = []

    # --------------------------------------------------------------- writing
    def add_decision(self, set_name: str, seq: int, d) -> None:
        self._decisions.append((self.sync, self.time, set_name, seq, d.action, d.pod, d.reason,
                                d.target, d.message, d.rule, d.step, d.applied, d.error))

    def _now(self) -> float:
        return self.clock.now if self.clock is not None else self.time

    def add_pod(self, pod, event: str, cause: str) -> None:
        self._pods.append((self.sync, self._now(), pod.name, pod.owner or pod.parent, pod.ordinal, event,
                           pod.phase, pod.ready, pod.deletion_timestamp is not None, pod.revision,
                           cause, pod.restarts, len(pod.spec.get("containers") or ()) or 1))

    def add_status(self, set_name: str, spec_replicas: int, st, written: bool,
                   min_ready_seconds: int = 0, partition: int | None = 0) -> None:
        self._status.append((self.sync, self.time, set_name, spec_replicas, st.replicas,
                             st.ready_replicas, st.available_replicas, st.current_replicas,
                             st.updated_replicas, st.current_revision, st.update_revision,
                             st.observed_generation, written, min_ready_seconds, partition))

    def add_event(self, type_: str, reason: str, obj: str, message: str) -> None:
        self._events.append((self.sync, self._now(), type_, reason, obj, message))

    def add_sync(self, set_name: str, n_decisions: int, changed: bool, error: str | None) -> None:
        self._syncs.append((self.sync, self.time, set_name, n_decisions, changed, error))

    # --------------------------------------------------------------- reading
    @staticmethod
    def _frame(rows, columns):
        import pandas as pd
        return pd.DataFrame.from_records(rows, columns=list(columns))

    def decisions(self, sync: int | None = None):
        """One row per decision (columns: :data:`DECISION_COLUMNS`); only sync *sync* if given."""
        rows = self._decisions if sync is None else [r for r in self._decisions if r[0] == sync]
        return self._frame(rows, DECISION_COLUMNS)

    def pods(self):
        """One row per pod change (columns: :data:`POD_COLUMNS`)."""
        return self._frame(self._pods, POD_COLUMNS)

    def status(self):
        """One row per sync with the status it computed (columns: :data:`STATUS_COLUMNS`)."""
        return self._frame(self._status, STATUS_COLUMNS)

    def events(self):
        """Kubernetes-style events (columns: :data:`EVENT_COLUMNS`)."""
        return self._frame(self._events, EVENT_COLUMNS)

    def syncs(self):
        """One row per sync (columns: :data:`SYNC_COLUMNS`)."""
        return self._frame(self._syncs, SYNC_COLUMNS)

    def __len__(self) -> int:
        return len(self._syncs)

    def rows(self) -> dict[str, list[tuple]]:
        """The raw rows of every table (for saving and comparing traces)."""
        return {"decisions": list(self._decisions), "pods": list(self._pods),
                "status": list(self._status), "events": list(self._events),
                "syncs": list(self._syncs)}
