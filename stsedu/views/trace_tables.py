"""A trace's tables as one redraw reads them: each built once, for that redraw only.

A lab's or the Playground's redraw reads the same trace tables from several places: the
kubectl texts (``get pods`` needs the pods' incarnations for their IPs) and each chart (the
set's name, the trace's end, the pod segments, the revision colours, the partition line).
:class:`TablesOnce` wraps the trace for the length of that redraw, so that each table (and
each table worked out from them, such as the pods' incarnations or their state segments) is
built once and handed to every reader as a copy.  It is made by the redraw and dropped with
it: nothing is kept on the trace, and a later redraw starts from the trace again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import pandas as pd


def pod_incarnations(pods_df):
    """Add ``incarnation`` (0, 1, ... per pod name: each create starts a new pod) and ``ip``.

    The IP is simulated as a node's IPAM would hand them out: the n-th pod
    (by start) gets 10.244.0.(n+1); a recreated pod gets a new address.
    """
    df = pods_df.copy()
    df["incarnation"] = (df["event"] == "created").astype(int).groupby(df["pod"]).cumsum() - 1
    started = df[df["phase"] != "Pending"].drop_duplicates(["pod", "incarnation"])
    ips = {}
    for n, key in enumerate(zip(started["pod"], started["incarnation"])):
        ips[key] = f"10.244.{n // 254}.{n % 254 + 1}"
    df["ip"] = [ips.get(k, "<none>") if ph != "Pending" else "<none>"
                for k, ph in zip(zip(df["pod"], df["incarnation"]), df["phase"])]
    return df


class TablesOnce:
    """*trace* for the length of one redraw: its whole tables (``syncs()``, ``pods()``,
    ``status()``, ``decisions()``), the pods' incarnations and whatever a view works out with
    :meth:`once` are built once and handed out as copies; everything else is the trace's own.

    Made afresh by each redraw (or by a chart function called on its own) and dropped with it,
    never kept on the trace: the trace must not grow while one is in use."""

    def __init__(self, trace) -> None:
        self._trace = trace
        self._tables: dict[Hashable, pd.DataFrame] = {}

    @classmethod
    def of(cls, trace) -> TablesOnce:
        """*trace* itself if it already is a redraw's tables, else a new one around it."""
        return trace if isinstance(trace, cls) else cls(trace)

    def once(self, key: Hashable, make: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """A copy of ``make()``, which runs at the first call with *key* in this redraw."""
        if key not in self._tables:
            self._tables[key] = make()
        return self._tables[key].copy()

    def syncs(self):
        return self.once("syncs", self._trace.syncs)

    def pods(self):
        return self.once("pods", self._trace.pods)

    def status(self):
        return self.once("status", self._trace.status)

    def decisions(self, sync: int | None = None):
        return self.once("decisions", self._trace.decisions) if sync is None else self._trace.decisions(sync)

    def incarnations(self):
        """:func:`pod_incarnations` of all the trace's pods (every set's: the IPs count them all)."""
        return self.once("incarnations", lambda: pod_incarnations(self.pods()))

    def __len__(self) -> int:
        return len(self._trace)

    def __getattr__(self, name):
        return getattr(self._trace, name)
