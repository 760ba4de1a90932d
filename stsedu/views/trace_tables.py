"""A trace's tables as one redraw reads them: each built once, for that redraw only.

A lab's or the Playground's redraw reads the same trace tables from several places: the
kubectl texts (``get pods`` needs the pods' incarnations for their IPs) and each chart (the
set's name, the trace's end, the pod segments, the revision colours, the partition line).
:class:`TablesOnce` wraps the trace for the length of that redraw, so that each table (and
each table worked out from them, such as the pods' incarnations or their state segments) is
built once and handed to every reader (a DataFrame as a copy; the raw rows, which the charts read
in plain passes without pandas, as tuples that cannot change).  It is made by the redraw and
dropped with it: nothing is kept on the trace, and a later redraw starts from the trace again.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd

from ..trace import TABLES


def columns_of(table: str, *names: str) -> Callable[[tuple], tuple]:
    """A function that picks the columns *names* (in that order) from a raw row of *table*
    (:meth:`~stsedu.trace.Trace.table_rows`); with one name, that column's value alone."""
    cols = TABLES[table]
    return operator.itemgetter(*(cols.index(n) for n in names))


def incarnations_and_ips(pods: list, events: list, phases: list) -> tuple[list[int], list[str]]:
    """Each pod change's incarnation (0, 1, ... per pod name: each create starts a new pod; -1
    before a pod's first create) and IP, from the columns ``pod``, ``event`` and ``phase`` of
    the trace's pod changes in their order.  One pass.

    The IP is simulated as a node's IPAM would hand them out: the n-th pod (by start, i.e.
    its first change out of Pending) gets 10.244.0.(n+1); a recreated pod gets a new
    address; a Pending pod has ``<none>``."""
    created: dict[str, int] = {}
    ips: dict[tuple[str, int], str] = {}
    incarnations, out_ips = [], []
    for pod, event, phase in zip(pods, events, phases):
        inc = created.get(pod, 0) + (event == "created")
        created[pod] = inc
        inc -= 1
        incarnations.append(inc)
        if phase == "Pending":
            out_ips.append("<none>")
            continue
        ip = ips.get((pod, inc))
        if ip is None:
            n = len(ips)
            ip = ips[(pod, inc)] = f"10.244.{n // 254}.{n % 254 + 1}"
        out_ips.append(ip)
    return incarnations, out_ips


def pod_incarnations(pods_df):
    """*pods_df* (the trace's pod changes) with ``incarnation`` and ``ip`` added
    (:func:`incarnations_and_ips`)."""
    df = pods_df.copy()
    inc, ips = incarnations_and_ips(df["pod"].tolist(), df["event"].tolist(), df["phase"].tolist())
    df["incarnation"] = np.array(inc, dtype=int)
    df["ip"] = np.array(ips, dtype=object)
    return df


class TablesOnce:
    """*trace* for the length of one redraw: its whole tables (``syncs()``, ``pods()``,
    ``status()``, ``decisions()``; DataFrames, handed out as copies), their raw rows
    (:meth:`table_rows`), the pods' incarnations and IPs (:meth:`incarnation_rows`) and whatever
    a view works out with :meth:`once` are built once; everything else is the trace's own.

    Made afresh by each redraw (or by a chart function called on its own) and dropped with it,
    never kept on the trace: the trace must not grow while one is in use."""

    def __init__(self, trace) -> None:
        self._trace = trace
        self._tables: dict[Hashable, object] = {}

    @classmethod
    def of(cls, trace) -> TablesOnce:
        """*trace* itself if it already is a redraw's tables, else a new one around it."""
        return trace if isinstance(trace, cls) else cls(trace)

    def once(self, key: Hashable, make: Callable[[], object]):
        """``make()``, which runs at the first call with *key* in this redraw: a DataFrame is handed
        out as a copy, anything else (a tuple of tuples, made so that it cannot change) as it is."""
        if key not in self._tables:
            self._tables[key] = make()
        value = self._tables[key]
        return value.copy() if isinstance(value, pd.DataFrame) else value

    def table_rows(self, table: str) -> tuple[tuple, ...]:
        """The trace's raw rows of *table* (:meth:`~stsedu.trace.Trace.table_rows`), as a tuple."""
        return self.once(("rows", table), lambda: tuple(self._trace.table_rows(table)))

    def incarnation_rows(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """:func:`incarnations_and_ips` of all the trace's pod changes (every set's: the IPs count
        them all), in the order of :meth:`table_rows` ``("pods")``."""
        def make():
            rows = self.table_rows("pods")
            inc, ips = incarnations_and_ips(*(list(map(columns_of("pods", c), rows))
                                              for c in ("pod", "event", "phase")))
            return tuple(inc), tuple(ips)
        return self.once("incarnation_rows", make)

    def syncs(self):
        return self.once("syncs", self._trace.syncs)

    def pods(self):
        return self.once("pods", self._trace.pods)

    def status(self):
        return self.once("status", self._trace.status)

    def decisions(self, sync: int | None = None):
        return self.once("decisions", self._trace.decisions) if sync is None else self._trace.decisions(sync)

    def __len__(self) -> int:
        return len(self._trace)

    def __getattr__(self, name):
        return getattr(self._trace, name)
