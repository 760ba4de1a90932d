"""kubectl's text: ``get`` (pods, statefulsets, revisions, claims) and ``get pods -w``, byte for byte.

Each function takes a cluster (or its trace) and returns the text kubectl
prints: its tabwriter's column layout, its ``AGE`` durations, its
``STATUS`` column.
"""

from __future__ import annotations

import pandas as pd

from ...api.objects import controller_of, kubectl_status
from ...frames import kit_frame
from ..trace_tables import TablesOnce, columns_of, pod_incarnations


# ===================================================================== durations


def human_duration(seconds: float) -> str:
    """A duration the way kubectl prints AGE (apimachinery ``duration.HumanDuration``).

    Whole seconds below 2 minutes (``87s``); minutes and seconds below 10
    minutes (``2m3s``, ``5m``); minutes below 3 hours (``95m``); hours and
    minutes below 8 hours (``3h20m``); hours below 2 days (``30h``); days and
    hours below 8 days (``3d4h``); days below 2 years; then years and days.
    A small negative skew (up to -2 s, excluded) prints ``0s``; less than
    that prints ``<invalid>``.
    """
    whole = int(seconds)  # Go truncates toward zero
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        s = whole % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if dy == 0 else f"{years}y{dy}d"
    return f"{hours // 24 // 365}y"


# ===================================================================== kubectl text

TABWRITER_MIN_WIDTH = 6
TABWRITER_PADDING = 3


class KubectlTabWriter:
    """Column alignment as kubectl's printers do it (cli-runtime ``printers.GetNewTabWriter``).

    Each cell is padded to its column's width: the widest cell plus 3
    spaces, at least 6; the last cell of a line is not padded.  Like
    kubectl's writer (``RememberWidths``), widths are remembered from one
    :meth:`flush` to the next and only ever grow, which is why the lines of
    ``kubectl get pods -w`` stay aligned until a wider value arrives.
    """

    def __init__(self) -> None:
        self.widths: list[int] = []

    def flush(self, rows) -> list[str]:
        """Lay out *rows* (lists of cell strings) as one block; return the lines."""
        rows = [[str(c) for c in r] for r in rows]
        for r in rows:
            for i, cell in enumerate(r[:-1]):
                w = max(len(cell) + TABWRITER_PADDING, TABWRITER_MIN_WIDTH)
                if i < len(self.widths):
                    self.widths[i] = max(self.widths[i], w)
                else:
                    self.widths.append(w)
        return ["".join(c.ljust(self.widths[i]) for i, c in enumerate(r[:-1])) + (r[-1] if r else "")
                for r in rows]


def _table_text(header, rows, empty: str = "No resources found in default namespace.") -> str:
    if not rows:
        return empty
    return "\n".join(KubectlTabWriter().flush([header] + rows))


def pod_status_text(phase: str, terminating: bool, reason: str | None = None,
                    container_state: str | None = None) -> str:
    """kubectl's STATUS column for a pod (``printPod``'s reason, as stsedu's kubelet can produce it).

    Terminating while deleting unless the phase is terminal (Failed or
    Succeeded); a Pending pod shows ``ContainerCreating`` (stsedu schedules at
    once, so the container is being created), a Succeeded one ``Completed``; a
    Failed pod its ``status.reason`` (``Evicted``, ``Terminated``,
    ``DeadlineExceeded``); a crashed container ``Error`` and, while the kubelet
    backs off, ``CrashLoopBackOff`` (:func:`stsedu.api.objects.kubectl_status`).
    """
    return kubectl_status(phase or "", bool(terminating), reason or "", container_state or "")


def _restarts_text(restarts: int, last_restart: float | None, now: float) -> str:
    """RESTARTS: ``2`` or, once a restart time is known, ``2 (5s ago)`` (``printPod``)."""
    if restarts and last_restart is not None:
        return f"{restarts} ({human_duration(now - last_restart)} ago)"
    return str(restarts)


def access_modes(modes) -> str:
    """``helper.GetAccessModesAsString``: short names in a fixed order."""
    short = [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP")]
    modes = set(modes or ())
    return ",".join(s for m, s in short if m in modes)


SIM_NODE = "node-1"
"""The one node stsedu's kubelet runs every pod on (``kubectl get pods -o wide``'s NODE)."""


def _last_restart_times(df) -> list[float | None]:
    """Per row: when the container's previous instance exited (``lastState.terminated.finishedAt``),
    or None.  Traces saved before the ``last_exit`` column fall back on the time of the last
    ``kubelet: container restarted`` row of that pod incarnation."""
    if "last_exit" in df and df["last_exit"].notna().any():
        return [None if pd.isna(x) else float(x) for x in df["last_exit"]]
    out, last = [], {}
    for pod, inc, cause, t in zip(df["pod"], df["incarnation"], df["cause"], df["time"]):
        if cause == "kubelet: container restarted":
            last[(pod, inc)] = t
        out.append(last.get((pod, inc)))
    return out


def _status_column(df) -> list[str]:
    """STATUS per trace row: the recorded one, or (older traces) one made from phase and terminating."""
    recorded = df["status"] if "status" in df else [None] * len(df)
    return [s if isinstance(s, str) and s else pod_status_text(ph, term)
            for s, ph, term in zip(recorded, df["phase"], df["terminating"])]


WATCH_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE")
WIDE_HEADER = ("IP", "NODE", "NOMINATED NODE", "READINESS GATES")
REVISION_LABEL_HEADER = "CONTROLLER-REVISION-HASH"


def watch_frame(trace, set_name: str | None = None):
    """One row per line ``kubectl get pods -w`` prints: each pod change, and for a new pod the
    three lines a real watch shows (``Pending`` when created, ``Pending`` again when the
    scheduler binds it, ``ContainerCreating`` when the kubelet takes it).

    Columns: sync, time, pod, ready (``1/1``), status, restarts, age (all
    strings as kubectl prints them at the moment of the change), revision,
    ip, node, cause.  *set_name* keeps the pods of one set.
    """
    pods = trace.pods()
    if set_name is not None:
        pods = pods[pods["set"] == set_name]
    cols = ["sync", "time", "pod", "ready", "status", "restarts", "age", "revision", "ip", "node", "cause"]
    if pods.empty:
        return kit_frame(columns=cols)
    df = pod_incarnations(pods.reset_index(drop=True))
    # traces saved before these columns existed load them as None
    df["containers"] = df["containers"].fillna(1).astype(int)
    df["restarts"] = df["restarts"].fillna(0).astype(int)
    c = df[df["event"] == "created"]
    created = dict(zip(zip(c["pod"], c["incarnation"]), c["time"]))
    born = [created.get((p, i), t0) for p, i, t0 in
            zip(df["pod"], df["incarnation"], df.groupby(["pod", "incarnation"])["time"].transform("min"))]
    last_restart = _last_restart_times(df)
    out = kit_frame({
        "sync": df["sync"], "time": df["time"], "pod": df["pod"],
        # containers are stopped before the pod object goes: its last line reads 0/n
        "ready": [f"{n if r and ev != 'deleted' else 0}/{n}"
                  for r, n, ev in zip(df["ready"], df["containers"], df["event"])],
        "status": _status_column(df),
        "restarts": [_restarts_text(int(n), lr, t) for n, lr, t in zip(df["restarts"], last_restart, df["time"])],
        "age": [human_duration(t - b) for t, b in zip(df["time"], born)],
        "revision": df["revision"], "ip": df["ip"],
        "node": SIM_NODE, "cause": df["cause"],
    })
    # A new pod, as a watch sees it: ADDED unscheduled (Pending), bound to the node by the
    # scheduler (Pending), then taken by the kubelet (ContainerCreating).
    created = (df["event"] == "created").to_numpy()
    if created.any():
        first = out[created].assign(status="Pending", node="<none>")
        bound = out[created].assign(status="Pending", cause="scheduler: bound to " + SIM_NODE)
        out["_order"] = range(len(out))
        first["_order"] = [o - 0.2 for o in out.loc[created, "_order"]]
        bound["_order"] = [o - 0.1 for o in out.loc[created, "_order"]]
        out.loc[created, "cause"] = "kubelet: creating containers"
        out = (pd.concat([out, first, bound]).sort_values("_order", kind="stable")
               .drop(columns="_order").reset_index(drop=True))
    return out[cols]


def watch_line_count(event: str) -> int:
    """Lines ``kubectl get pods -w`` prints for one pod change of the trace (:func:`watch_frame`): three
    for a new pod (unscheduled, bound, taken by the kubelet), one for any other change."""
    return 3 if event == "created" else 1


_EVENT = None


def watch_frame_length(trace, since: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """``(len(watch_frame(trace)), pod rows read)`` without building the frame: each pod row is one
    line and a created pod two more.  *since* is an earlier answer to count on from (the trace only
    grows), so that marking where a watch starts stays cheap however long the session runs."""
    global _EVENT
    if _EVENT is None:
        from ...trace import POD_COLUMNS
        _EVENT = POD_COLUMNS.index("event")
    lines, read = since
    rows = trace.table_rows("pods")
    for row in rows[read:]:
        lines += watch_line_count(row[_EVENT])
    return lines, len(rows)


def watch_lines(trace, set_name: str | None = None, wide: bool = False, revision: bool = False) -> list[str]:
    """What ``kubectl get pods -w`` prints while the trace's run unfolds: a header, then one line per pod change.

    Like kubectl (which starts the watch on an empty list here), the header
    and the first line are laid out together, then each change is printed
    on its own with the column widths kubectl's writer remembers (they
    only grow).  AGE and RESTARTS are as of the change.  *wide* adds
    ``-o wide``'s IP, NODE, NOMINATED NODE and READINESS GATES (simulated:
    one node, IPs handed out in start order); *revision* adds the column
    ``-L controller-revision-hash`` would.
    """
    w = watch_frame(trace, set_name)
    header = list(WATCH_HEADER) + (list(WIDE_HEADER) if wide else []) + ([REVISION_LABEL_HEADER] if revision else [])
    rows = []
    for r in w.itertuples(index=False):
        row = [r.pod, r.ready, r.status, r.restarts, r.age]
        if wide:
            row += [r.ip, r.node, "<none>", "<none>"]
        if revision:
            row.append(r.revision)
        rows.append(row)
    if not rows:
        return []
    tw = KubectlTabWriter()
    lines = tw.flush([header, rows[0]])
    for row in rows[1:]:
        lines += tw.flush([row])
    return lines


def pods_frame(cluster, set_name: str | None = None):
    """The pods as they are now, one row per pod, by set and ordinal.

    Columns: pod, set, ordinal, status (kubectl's STATUS), phase, ready,
    available (honours minReadySeconds), terminating, revision, restarts,
    age (kubectl's AGE), created (clock time), ready_since.
    """
    now = cluster.now
    rows = [{"pod": p.name, "set": p.owner, "ordinal": p.ordinal,
             "status": p.status_text, "phase": p.phase, "ready": p.ready,
             "available": p.available, "terminating": p.terminating, "revision": p.revision,
             "restarts": p.restarts, "age": human_duration(now - p.creation_timestamp),
             "created": p.creation_timestamp, "ready_since": p.ready_since if p.ready else None}
            for p in cluster.pods(set_name)]
    return kit_frame(rows, columns=["pod", "set", "ordinal", "status", "phase", "ready", "available",
                                       "terminating", "revision", "restarts", "age", "created", "ready_since"])


def get_pods_text(cluster, set_name: str | None = None, wide: bool = False,
                  label_columns=(), tables: TablesOnce | None = None) -> str:
    """What ``kubectl get pods`` prints now (``-o wide`` with *wide*; ``-L key`` per *label_columns*).

    Rows are in name order, as the API server lists them (so ``web-10``
    comes before ``web-2``).  With *set_name*, only that set's pods (like
    ``-l`` with its selector).  Says ``No resources found in default
    namespace.`` when there are none.  *tables*: the redraw's tables of ``cluster.trace``, when
    the caller reads them for more than this text.
    """
    pods = sorted(cluster.pods(set_name), key=lambda p: p.name)
    header = list(WATCH_HEADER) + (list(WIDE_HEADER) if wide else []) + [k.upper() for k in label_columns]
    rows = pod_rows(cluster, pods, wide, tables)
    for row, p in zip(rows, pods):
        row += [p.labels.get(k, "") for k in label_columns]
    return _table_text(header, rows)


def pod_ips(trace) -> dict[str, str]:
    """Pod name -> its simulated IP now (``get -o wide``'s column), for the pods that have one.
    *trace* may be a redraw's :class:`~stsedu.views.trace_tables.TablesOnce`."""
    tables = TablesOnce.of(trace)
    last = dict(zip(map(columns_of("pods", "pod"), tables.table_rows("pods")), tables.incarnation_rows()[1]))
    return {p: ip for p, ip in last.items() if ip != "<none>"}


def pod_rows(cluster, pods, wide: bool = False, tables: TablesOnce | None = None) -> list[list[str]]:
    """The cells of ``kubectl get pods`` for *pods*: NAME READY STATUS RESTARTS AGE (and ``-o wide``'s four).
    *tables*: the redraw's tables of ``cluster.trace``, if it has them."""
    now = cluster.now
    ips = pod_ips(tables if tables is not None else cluster.trace) if wide else {}  # only -o wide shows IPs
    rows = []
    for p in pods:
        n = len(p.spec.get("containers") or ()) or 1
        row = [p.name, f"{n if p.ready else 0}/{n}", p.status_text,
               _restarts_text(p.restarts, p.last_exit_at, now), human_duration(now - p.creation_timestamp)]
        if wide:
            row += [ips.get(p.name, "<none>") if p.phase != "Pending" else "<none>", SIM_NODE, "<none>", "<none>"]
        rows.append(row)
    return rows


def get_sts_text(cluster, wide: bool = False) -> str:
    """What ``kubectl get statefulsets`` prints now: NAME READY AGE (``printStatefulSet``).

    READY is readyReplicas/spec.replicas; *wide* adds CONTAINERS and IMAGES.
    """
    now = cluster.now
    header = ["NAME", "READY", "AGE"] + (["CONTAINERS", "IMAGES"] if wide else [])
    rows = []
    for s in sorted(cluster.statefulsets("default"), key=lambda s: s.name):
        row = [s.name, f"{s.status.ready_replicas}/{s.spec.replicas}", human_duration(now - s.creation_timestamp)]
        if wide:
            cs = s.spec.template.get("spec", {}).get("containers", [])
            row += [",".join(c.get("name", "") for c in cs), ",".join(c.get("image", "") for c in cs)]
        rows.append(row)
    return _table_text(header, rows)


def get_controllerrevisions_text(cluster, set_name: str | None = None, namespace: str = "default") -> str:
    """What ``kubectl get controllerrevisions`` prints now: NAME CONTROLLER REVISION AGE
    (``printControllerRevision``).

    CONTROLLER is the controller reference as ``statefulset.apps/<name>`` (the
    reference's group and kind, lower case; ``<none>`` for an orphan).  *set_name*
    keeps the revisions that set controls.  Rows in name order, as the API server
    lists them.
    """
    now = cluster.now
    rows = []
    for r in sorted(cluster.store.list("ControllerRevision", namespace), key=lambda r: r.name):
        ref = controller_of(r.owner_references)
        if set_name is not None and (ref is None or ref.kind != "StatefulSet" or ref.name != set_name):
            continue
        controller = "<none>"
        if ref is not None:
            group = ref.api_version.rpartition("/")[0] if "/" in ref.api_version else ""
            controller = f"{ref.kind.lower()}{'.' + group if group else ''}/{ref.name}"
        rows.append([r.name, controller, str(r.revision), human_duration(now - r.creation_timestamp)])
    return _table_text(["NAME", "CONTROLLER", "REVISION", "AGE"], rows,
                       empty=f"No resources found in {namespace} namespace.")


def get_pvc_text(cluster, set_name: str | None = None, wide: bool = False) -> str:
    """What ``kubectl get pvc`` prints now (``printPersistentVolumeClaim``).

    Columns NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS
    VOLUMEATTRIBUTESCLASS AGE, as current kubectl prints them (*wide* adds
    VOLUMEMODE).  stsedu binds every claim at once to a simulated volume
    named ``pvc-<claim uid>``, as dynamic provisioning names them; a claim
    being deleted shows ``Terminating``.
    """
    now = cluster.now
    header = ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
              "VOLUMEATTRIBUTESCLASS", "AGE"] + (["VOLUMEMODE"] if wide else [])
    rows = []
    for c in sorted(cluster.pvcs(set_name), key=lambda c: c.name):
        spec = c.spec
        bound = c.phase == "Bound"
        row = [c.name, "Terminating" if c.deleting else c.phase,
               f"pvc-{c.uid}" if bound else "", c.storage if bound else "",
               access_modes(spec.get("accessModes")) if bound else "",
               c.annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or ""),
               spec.get("volumeAttributesClassName") or "<unset>",
               human_duration(now - c.creation_timestamp)]
        if wide:
            row.append(spec.get("volumeMode") or "<unset>")
        rows.append(row)
    return _table_text(header, rows)


# ===================================================================== decisions
