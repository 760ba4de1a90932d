"""The trace: an append-only record of everything that happened in a cluster.

Rows are appended as plain tuples while the simulation runs (cheap), and
turned into pandas DataFrames on demand.  Every frame has a ``sync`` column
(the number of the sync in progress, or of the last one, 0 before any) and a
``time`` column (the clock, in seconds).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from .frames import kit_records

DECISION_COLUMNS = ("sync", "time", "set", "seq", "action", "pod", "reason", "target",
                    "message", "rule", "step", "applied", "error")
"""Columns of :meth:`Trace.decisions`: one row per decision, in the order made.

``seq`` orders decisions within a sync; ``target`` names the PVC or revision
acted on; ``step`` is the part of the algorithm (revisions, replicas,
fix-claims, condemned, update, status, history, claim); ``applied`` is True
when carried out, False when the API server refused it (the sync stopped there),
None for waits."""

POD_COLUMNS = ("sync", "time", "pod", "set", "ordinal", "event", "phase", "ready",
               "terminating", "revision", "cause", "restarts", "containers", "status", "last_exit")
"""Columns of :meth:`Trace.pods`: one row per change of a pod.

``time`` is the clock when the change happened (a kubelet change between two
syncs has the sync number of the one before and its own time); ``event`` is
created, updated or deleted (gone from the store); ``cause`` says who changed
it (``sync 3: create (missing)``, ``kubelet: started``, ``user: delete_pod``,
``garbage collector``); ``restarts`` is the pod's container restart count and
``containers`` how many containers it has (kubectl's READY ``n/m``); ``status`` is
kubectl's STATUS for the pod after the change (``Running``, ``Error``,
``CrashLoopBackOff``, ``Evicted`` ...) and ``last_exit`` when its container's previous
instance exited (RESTARTS' "ago"), or null."""

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

QUEUE_COLUMNS = ("sync", "time", "key", "event", "cause")
"""Columns of :meth:`Trace.queue`: one row per change of a key in the controller's work queue.

``key`` is ``namespace/name``; ``event`` is what happened to it (added, handed to
worker, done, requeued with rate limit, requeued after delay, requeued because it
was added while processing, forgotten); ``cause`` the informer event or sync
result that led to it (empty when the event speaks for itself)."""

TABLES = {"decisions": DECISION_COLUMNS, "pods": POD_COLUMNS, "status": STATUS_COLUMNS,
          "events": EVENT_COLUMNS, "syncs": SYNC_COLUMNS, "queue": QUEUE_COLUMNS}
"""Every table of a trace and its columns, in the order :meth:`Trace.save` writes them."""

FORMAT = "stsedu-trace"
FORMAT_VERSION = 1

MAX_TRACE_LINE_BYTES = 1 << 20
"""Longest line :meth:`Trace.load` reads (a row is a few hundred bytes)."""

_S, _S0, _I, _I0, _B, _B0, _T, _T0 = "text", "text or null", "integer", "integer or null", "bool", \
    "bool or null", "time", "time or null"
_COLUMN_TYPES = {
    "sync": _I, "time": _T, "set": _S0, "seq": _I, "action": _S, "pod": _S0, "reason": _S0,
    "target": _S0, "message": _S0, "rule": _S0, "step": _S0, "applied": _B0, "error": _S0,
    "ordinal": _I, "event": _S, "phase": _S0, "ready": _B, "terminating": _B, "revision": _S0,
    "cause": _S0, "restarts": _I0, "containers": _I0, "status": _S0, "last_exit": _T0, "spec_replicas": _I0, "replicas": _I0,
    "ready_replicas": _I0, "available_replicas": _I0, "current_replicas": _I0,
    "updated_replicas": _I0, "current_revision": _S0, "update_revision": _S0,
    "observed_generation": _I0, "written": _B0, "min_ready_seconds": _I0, "partition": _I0,
    "type": _S, "object": _S0, "decisions": _I0, "changed": _B0, "key": _S}
"""What :meth:`Trace.load` accepts in each column (a row of another type would load, then
break the tables built from it)."""

_POD_EVENTS = ("created", "updated", "deleted")


def _type_ok(value: Any, kind: str) -> bool:
    if value is None:
        return kind.endswith("or null")
    if kind in (_S, _S0):
        return isinstance(value, str)
    if kind in (_I, _I0):
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1 << 63
    if kind in (_B, _B0):
        return isinstance(value, bool)
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


def _row(rec: Any, where: str) -> tuple[str, tuple]:
    """(table, row) from one loaded record; ValueError naming *where* and the column if it is bad."""
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: a row must be a JSON object, not {type(rec).__name__}")
    t = rec.get("table")
    if not isinstance(t, str) or t not in TABLES:
        raise ValueError(f"{where}: unknown table {json.dumps(t)[:80]} in a row")
    row = []
    for c in TABLES[t]:
        value = rec.get(c)
        if c == "time" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not _type_ok(value, _COLUMN_TYPES[c]):
            raise ValueError(f"{where}: {t}.{c}: Invalid value: {json.dumps(value)[:80]}: "
                             f"must be {'a finite time >= 0' if c == 'time' else _COLUMN_TYPES[c]}")
        row.append(value)
    if t == "pods" and rec.get("event") not in _POD_EVENTS:
        raise ValueError(f"{where}: pods.event: Unsupported value: {json.dumps(rec.get('event'))}: "
                         f"supported values: {', '.join(_POD_EVENTS)}")
    return t, tuple(row)


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError(f"{where}: nested too deeply to be a trace row") from None
    except ValueError as exc:  # an integer past Python's 4300-digit limit
        raise ValueError(f"{where}: not a trace row: {exc}") from None


class Trace:
    """Everything a cluster did, in order.

    ``decisions()``, ``pods()``, ``status()``, ``events()``, ``syncs()`` and ``queue()``
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
        self._queue: list[tuple] = []

    # --------------------------------------------------------------- writing
    def begin_sync(self, time: float) -> int:
        """A sync begins at *time*: the rows written from now on carry its number, which is returned."""
        self.sync += 1
        self.time = time
        return self.sync

    def add_decision(self, set_name: str, seq: int, d) -> None:
        self._decisions.append((self.sync, self.time, set_name, seq, d.action, d.pod, d.reason,
                                d.target, d.message, d.rule, d.step, d.applied, d.error))

    def _now(self) -> float:
        return self.clock.now if self.clock is not None else self.time

    def add_pod(self, pod, event: str, cause: str) -> None:
        self._pods.append((self.sync, self._now(), pod.name, pod.owner or pod.parent, pod.ordinal, event,
                           pod.phase, pod.ready, pod.deletion_timestamp is not None, pod.revision,
                           cause, pod.restarts, len(pod.spec.get("containers") or ()) or 1,
                           pod.status_text, pod.last_exit_at))

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

    def add_queue(self, key: str, event: str, cause: str) -> None:
        self._queue.append((self.sync, self._now(), key, event, cause))

    # --------------------------------------------------------------- reading
    @staticmethod
    def _frame(rows, columns):
        return kit_records(rows, list(columns))

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

    def queue(self, key: str | None = None):
        """One row per work-queue change (columns: :data:`QUEUE_COLUMNS`); only *key* (``ns/name``) if given."""
        rows = self._queue if key is None else [r for r in self._queue if r[2] == key]
        return self._frame(rows, QUEUE_COLUMNS)

    def __len__(self) -> int:
        return len(self._syncs)

    def counts(self) -> tuple[int, int, int, int, int]:
        """Row counts of (decisions, pods, status, events, syncs): changes whenever the trace grows."""
        return (len(self._decisions), len(self._pods), len(self._status), len(self._events),
                len(self._syncs))

    def table_rows(self, table: str) -> list[tuple]:
        """The raw rows of one table of :data:`TABLES` (a new list; each row a tuple in that table's
        column order): for a view that reads them in one plain pass, without a DataFrame."""
        if table not in TABLES:
            raise ValueError(f"no trace table {table!r}; the tables are: {', '.join(TABLES)}")
        return list(getattr(self, "_" + table))

    def rows(self) -> dict[str, list[tuple]]:
        """The raw rows of every table (for saving and comparing traces)."""
        return {"decisions": list(self._decisions), "pods": list(self._pods),
                "status": list(self._status), "events": list(self._events),
                "syncs": list(self._syncs), "queue": list(self._queue)}

    # ----------------------------------------------------------- save / load
    def save(self, path: str | Path) -> Path:
        """Write the trace to *path*: JSON lines, or Parquet if *path* ends in ``.parquet``.

        JSON lines: the first line is a header (``format``, ``format_version``,
        ``meta`` with the kit version, profile and seed, and the trace's
        ``sync``/``time`` counters); every other line is one row,
        ``{"table": "pods", "sync": 1, "time": 0.0, ...}`` with the columns of
        that table.  Parquet (needs pyarrow, which stsedu does not install):
        one table holding every row, a ``table`` column saying which table it
        belongs to, and the header in the file's key-value metadata.

        :meth:`load` gives back a trace whose DataFrames equal this one's.
        Raise ImportError for Parquet without pyarrow.  Returns the path.
        """
        path = Path(path)
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "meta": self.meta,
                  "sync": self.sync, "time": self.time}
        rows = self.rows()
        if path.suffix == ".parquet":
            pa, pq = _pyarrow()
            records = [{"table": t, **dict(zip(cols, r))} for t, cols in TABLES.items() for r in rows[t]]
            columns = ["table"] + list(dict.fromkeys(c for cols in TABLES.values() for c in cols))
            table = pa.Table.from_pylist(records, schema=_parquet_schema(pa, records, columns))
            table = table.replace_schema_metadata({"stsedu": json.dumps(header)})
            pq.write_table(table, path)
            return path
        with path.open("w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            for t, cols in TABLES.items():
                for r in rows[t]:
                    f.write(json.dumps({"table": t, **dict(zip(cols, r))}) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Trace":
        """Read a trace written by :meth:`save` (JSON lines, or Parquet by the ``.parquet`` suffix).

        Raise ValueError if the file is not an stsedu trace, was written by a newer
        format version, or holds a row that is not what :meth:`save` writes (not
        JSON, nested too deeply, an unknown table, a column of the wrong type, a
        time that is not finite): the message names the line (the header is line
        1) and the column, e.g. ``t.jsonl: line 7: pods.ready: Invalid value:
        "yes": must be bool``.  OSError if the file cannot be opened.
        """
        path = Path(path)
        if path.suffix == ".parquet":
            pa, pq = _pyarrow()
            try:
                table = pq.read_table(path)
            except (OSError, pa.ArrowException) as exc:
                raise ValueError(f"{path}: not a readable Parquet file: {exc}") from None
            raw = (table.schema.metadata or {}).get(b"stsedu")
            if raw is None:
                raise ValueError(f"{path}: not an stsedu trace (no stsedu metadata)")
            header = _json(raw.decode("utf-8", "replace"), f"{path}: header")
            records = [(f"{path}: row {n}", r) for n, r in enumerate(table.to_pylist(), start=1)]
        else:
            try:
                f = path.open(encoding="utf-8", errors="strict")
            except IsADirectoryError:
                raise ValueError(f"{path}: is a directory, not a trace file") from None
            with f:
                try:
                    first = f.readline(MAX_TRACE_LINE_BYTES + 1)
                    try:
                        header = json.loads(first) if first.strip() else {}
                    except (ValueError, RecursionError):
                        header = {}
                    if not isinstance(header, dict) or header.get("format") != FORMAT:
                        raise ValueError(f"{path}: not an stsedu trace (the first line is not its header)")
                    records = []
                    for n, line in enumerate(iter(lambda: f.readline(MAX_TRACE_LINE_BYTES + 1), ""),
                                             start=2):
                        where = f"{path}: line {n}"
                        if len(line) > MAX_TRACE_LINE_BYTES:
                            raise ValueError(f"{where}: longer than {MAX_TRACE_LINE_BYTES} bytes")
                        if line.strip():
                            records.append((where, _json(line, where)))
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
        if not isinstance(header, dict):
            raise ValueError(f"{path}: not an stsedu trace (the header is not a JSON object)")
        version = header.get("format_version", 0)
        if not _type_ok(version, _I):
            raise ValueError(f"{path}: header: format_version: Invalid value: {json.dumps(version)}:"
                             " must be an integer")
        if version > FORMAT_VERSION:
            raise ValueError(f"{path}: trace format version {header['format_version']} is newer than "
                             f"this stsedu reads ({FORMAT_VERSION}); upgrade stsedu")
        meta, sync, time = header.get("meta"), header.get("sync", 0), header.get("time", 0.0)
        if meta is not None and not isinstance(meta, dict):
            raise ValueError(f"{path}: header: meta: Invalid value: must be a JSON object")
        if not _type_ok(sync, _I) or sync < 0:
            raise ValueError(f"{path}: header: sync: Invalid value: {json.dumps(sync)}:"
                             " must be an integer >= 0")
        if isinstance(time, int) and not isinstance(time, bool):
            time = float(time)
        if not _type_ok(time, _T):
            raise ValueError(f"{path}: header: time: Invalid value: {json.dumps(time)}:"
                             " must be a finite time >= 0")
        trace = cls(meta)
        trace.sync = sync
        trace.time = time
        tables = {t: getattr(trace, "_" + t) for t in TABLES}
        for where, rec in records:
            t, row = _row(rec, where)
            tables[t].append(row)
        return trace


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("writing or reading a .parquet trace needs pyarrow (pip install pyarrow); "
                          "stsedu itself does not install it: use a .jsonl path instead") from None
    return pa, pq


def _parquet_schema(pa, records, columns):
    """One nullable type per column, taken from its first non-null value (time columns are floats)."""
    types = {}
    for c in columns:
        sample = next((r[c] for r in records if r.get(c) is not None), None)
        if c == "time" or isinstance(sample, float):
            types[c] = pa.float64()
        elif isinstance(sample, bool):
            types[c] = pa.bool_()
        elif isinstance(sample, int):
            types[c] = pa.int64()
        else:
            types[c] = pa.string()
    return pa.schema([(c, types[c]) for c in columns])
