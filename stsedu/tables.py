"""Tables and kubectl-style text made from a cluster or its trace."""

from __future__ import annotations

from .model import StatefulSet, controller_of


# ----------------------------------------------------------------------------
# Tables of a trace and kubectl-style text (stsedu.charts draws the same frames).
# ----------------------------------------------------------------------------

import bisect
import hashlib
import math
import re

import pandas as pd

from .palette import ACTION_COLORS

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


def pod_status_text(phase: str, terminating: bool) -> str:
    """kubectl's STATUS column for a pod (``printPod``'s reason, as stsedu's kubelet can produce it).

    Terminating while deleting unless the phase is terminal (Failed or
    Succeeded); a Failed pod shows its container's reason ``Error``, a
    Succeeded one ``Completed``; a Pending pod ``ContainerCreating``
    (stsedu schedules at once, so the container is being created).
    """
    if terminating and phase not in ("Failed", "Succeeded"):
        return "Terminating"
    return {"Pending": "ContainerCreating", "Failed": "Error", "Succeeded": "Completed",
            "Running": "Running"}.get(phase, phase or "Pending")


def _restarts_text(restarts: int, last_restart: float | None, now: float) -> str:
    """RESTARTS: ``2`` or, once a restart time is known, ``2 (5s ago)`` (``printPod``)."""
    if restarts and last_restart is not None:
        return f"{restarts} ({human_duration(now - last_restart)} ago)"
    return str(restarts)


def _access_modes(modes) -> str:
    """``helper.GetAccessModesAsString``: short names in a fixed order."""
    short = [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP")]
    modes = set(modes or ())
    return ",".join(s for m, s in short if m in modes)


SIM_NODE = "node-1"
"""The one node stsedu's kubelet runs every pod on (``kubectl get pods -o wide``'s NODE)."""


def _pod_incarnations(pods_df):
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


def _last_restart_times(df) -> list[float | None]:
    """Per row: time of the last container restart of that pod incarnation so far (or None)."""
    out, last = [], {}
    for pod, inc, cause, t in zip(df["pod"], df["incarnation"], df["cause"], df["time"]):
        if cause == "kubelet: container restarted":
            last[(pod, inc)] = t
        out.append(last.get((pod, inc)))
    return out


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
        return pd.DataFrame(columns=cols)
    df = _pod_incarnations(pods.reset_index(drop=True))
    # traces saved before these columns existed load them as None
    df["containers"] = df["containers"].fillna(1).astype(int)
    df["restarts"] = df["restarts"].fillna(0).astype(int)
    c = df[df["event"] == "created"]
    created = dict(zip(zip(c["pod"], c["incarnation"]), c["time"]))
    born = [created.get((p, i), t0) for p, i, t0 in
            zip(df["pod"], df["incarnation"], df.groupby(["pod", "incarnation"])["time"].transform("min"))]
    last_restart = _last_restart_times(df)
    out = pd.DataFrame({
        "sync": df["sync"], "time": df["time"], "pod": df["pod"],
        # containers are stopped before the pod object goes: its last line reads 0/n
        "ready": [f"{n if r and ev != 'deleted' else 0}/{n}"
                  for r, n, ev in zip(df["ready"], df["containers"], df["event"])],
        "status": [pod_status_text(ph, term) for ph, term in zip(df["phase"], df["terminating"])],
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
             "status": pod_status_text(p.phase, p.terminating), "phase": p.phase, "ready": p.ready,
             "available": p.available, "terminating": p.terminating, "revision": p.revision,
             "restarts": p.restarts, "age": human_duration(now - p.creation_timestamp),
             "created": p.creation_timestamp, "ready_since": p.ready_since if p.ready else None}
            for p in cluster.pods(set_name)]
    return pd.DataFrame(rows, columns=["pod", "set", "ordinal", "status", "phase", "ready", "available",
                                       "terminating", "revision", "restarts", "age", "created", "ready_since"])


def get_pods_text(cluster, set_name: str | None = None, wide: bool = False,
                  label_columns=()) -> str:
    """What ``kubectl get pods`` prints now (``-o wide`` with *wide*; ``-L key`` per *label_columns*).

    Rows are in name order, as the API server lists them (so ``web-10``
    comes before ``web-2``).  With *set_name*, only that set's pods (like
    ``-l`` with its selector).  Says ``No resources found in default
    namespace.`` when there are none.
    """
    now = cluster.now
    pods = sorted(cluster.pods(set_name), key=lambda p: p.name)
    ips = {}
    restarts_at: dict[str, float] = {}
    tp = cluster.trace.pods()
    if not tp.empty:
        inc = _pod_incarnations(tp)
        last = inc.drop_duplicates("pod", keep="last")
        ips = dict(zip(last["pod"], last["ip"]))
        rs = inc[inc["cause"] == "kubelet: container restarted"]
        restarts_at = dict(zip(rs["pod"], rs["time"]))
    header = list(WATCH_HEADER) + (list(WIDE_HEADER) if wide else []) + [k.upper() for k in label_columns]
    rows = []
    for p in pods:
        n = len(p.spec.get("containers") or ()) or 1
        last_restart = restarts_at.get(p.name)
        if last_restart is not None and last_restart < p.creation_timestamp:
            last_restart = None
        row = [p.name, f"{n if p.ready else 0}/{n}", pod_status_text(p.phase, p.terminating),
               _restarts_text(p.restarts, last_restart, now), human_duration(now - p.creation_timestamp)]
        if wide:
            row += [ips.get(p.name, "<none>") if p.phase != "Pending" else "<none>", SIM_NODE, "<none>", "<none>"]
        row += [p.labels.get(k, "") for k in label_columns]
        rows.append(row)
    return _table_text(header, rows)


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
               _access_modes(spec.get("accessModes")) if bound else "",
               c.annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or ""),
               spec.get("volumeAttributesClassName") or "<unset>",
               human_duration(now - c.creation_timestamp)]
        if wide:
            row.append(spec.get("volumeMode") or "<unset>")
        rows.append(row)
    return _table_text(header, rows)


# ===================================================================== decisions

DECISION_TABLE_COLUMNS = ("sync", "time", "action", "pod", "target", "reason", "rule", "message", "outcome")
"""Columns of :func:`decisions_frame`."""

POD_ACTIONS = ("create", "delete", "update", "wait")


def _outcome(action: str, applied, error) -> str:
    if isinstance(error, str) and error:  # (a column of None can come back as NaN)
        return error if error.startswith("not reached") else f"failed: {error}"
    if action == "wait" or applied is None or applied != applied:
        return ""
    return "done" if applied else "not reached"


def decisions_frame(decisions_or_trace, sync: int | None = None, time: float | None = None,
                    pod_actions: bool = False):
    """The decisions as a table: sync, time, action, pod, target, reason, rule, message, outcome.

    ``target`` names the object acted on when it is not the pod (a claim, a revision).

    Accepts a :class:`~stsedu.trace.Trace` (every sync, or only *sync*), its
    ``decisions()`` DataFrame, a :class:`~stsedu.decisions.SyncResult`, or a
    list of :class:`~stsedu.decisions.Decision` (then *sync* and *time* fill
    those columns).  ``outcome`` is ``done``, ``failed: <error>`` (an API
    error stopped it), ``not reached...`` (an earlier failure stopped the
    sync first) or empty for waits.  *pod_actions* keeps only create,
    delete, update and wait.
    """
    obj = decisions_or_trace
    if hasattr(obj, "decisions") and callable(obj.decisions):  # a Trace
        df = obj.decisions(sync)
        rows = df
    elif isinstance(obj, pd.DataFrame):
        rows = obj if sync is None else obj[obj["sync"] == sync]
    else:
        if hasattr(obj, "decisions"):  # a SyncResult
            sync = obj.sync if sync is None else sync
            time = obj.time if time is None else time
            obj = obj.decisions
        rows = pd.DataFrame([{"sync": sync, "time": time, "action": d.action, "pod": d.pod,
                              "target": d.target, "reason": d.reason, "rule": d.rule,
                              "message": d.message, "applied": d.applied, "error": d.error}
                             for d in obj],
                            columns=["sync", "time", "action", "pod", "target", "reason", "rule",
                                     "message", "applied", "error"])
    out = pd.DataFrame({
        "sync": rows["sync"].to_numpy(), "time": rows["time"].to_numpy(),
        "action": rows["action"].to_numpy(), "pod": rows["pod"].to_numpy(),
        "target": rows["target"].to_numpy(),
        "reason": rows["reason"].to_numpy(), "rule": rows["rule"].to_numpy(),
        "message": rows["message"].to_numpy(),
        "outcome": [_outcome(a, ap, e) for a, ap, e in zip(rows["action"].tolist(), rows["applied"].tolist(),
                                                            rows["error"].tolist())],
    }, columns=list(DECISION_TABLE_COLUMNS))
    out["pod"] = out["pod"].astype(object).where(out["pod"].notna(), None)
    out["target"] = out["target"].astype(object).where(out["target"].notna(), None)
    if pod_actions:
        out = out[out["action"].isin(POD_ACTIONS)].reset_index(drop=True)
    return out


def action_kind(action: str) -> str:
    """create, delete, update, wait, or other (PVCs, revisions, status, adopt/release)."""
    return action if action in POD_ACTIONS else "other"


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


def decisions_table(decisions_or_trace, sync: int | None = None, time: float | None = None,
                    pod_actions: bool = False):
    """:func:`decisions_frame` as a pandas Styler, each row tinted by its action.

    Colours are :data:`stsedu.charts.ACTION_COLORS` (green create, vermilion
    delete, orange update, blue wait, grey other), laid on as translucent
    tints with a solid bar beside the action, so the text keeps the theme's
    own colour and stays readable in JupyterLab's light and dark themes.
    Failed decisions get a dashed outline.  Element ids are derived from the
    content, so the same table renders to the same HTML (stable for nbval).
    """
    df = decisions_frame(decisions_or_trace, sync=sync, time=time, pod_actions=pod_actions)
    kinds = [action_kind(a) for a in df["action"]]
    classes = pd.DataFrame([[f"act-{k}"] * len(df.columns) for k in kinds], index=df.index, columns=df.columns)
    for i, o in enumerate(df["outcome"]):
        if str(o).startswith("failed"):
            classes.iloc[i] = classes.iloc[i] + " failed"
    if len(df):
        classes["action"] = classes["action"] + " action"
    digest = hashlib.sha1(df.to_csv(index=False).encode()).hexdigest()[:10]
    styles = [
        {"selector": "", "props": "border-collapse: collapse; font-size: 0.95em;"},
        {"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold; padding: 4px 0;"},
        {"selector": "th", "props": "text-align: left; padding: 4px 8px;"},
        {"selector": "td", "props": "text-align: left; padding: 3px 8px; vertical-align: top;"},
        {"selector": "td.action", "props": "font-weight: bold;"},
        {"selector": "td.failed", "props": "outline: 1px dashed currentColor;"},
    ]
    nowrap = {c: [{"selector": "td", "props": "white-space: nowrap;"}]
              for c in ("sync", "time", "action", "pod", "reason")}
    for kind, color in ACTION_COLORS.items():
        styles.append({"selector": f"td.act-{kind}", "props": f"background-color: {_rgba(color, 0.22)};"})
        styles.append({"selector": f"td.act-{kind}.action",
                       "props": f"border-left: 6px solid {color};"})
    if sync is not None:
        caption = f"Sync {sync}: {len(df)} decision" + ("s" if len(df) != 1 else "")
    elif len(df) and df["sync"].notna().any():
        lo, hi = int(df["sync"].min()), int(df["sync"].max())
        caption = f"Syncs {lo}–{hi}: {len(df)} decisions" if lo != hi else f"Sync {lo}: {len(df)} decisions"
    else:
        caption = f"{len(df)} decisions"
    caption += " (green create · vermilion delete · orange update · blue wait · grey other)"
    return (df.style.set_uuid(f"stsedu-{digest}").hide(axis="index").set_td_classes(classes)
            .set_table_styles(styles).set_table_styles(nowrap, overwrite=False).set_caption(caption)
            .format({"time": "{:.1f}"}, na_rep=""))


# ===================================================================== status and pod states

STATUS_FRAME_COLUMNS = ("sync", "time", "set", "spec_replicas", "replicas", "ready", "available", "current",
                        "updated", "current_revision", "update_revision", "observed_generation",
                        "min_ready_seconds", "partition", "written")
COUNTERS = ("replicas", "ready", "available", "current", "updated")
"""The status counters, in the order kubectl and the charts show them."""


def status_frame(trace, set_name: str | None = None):
    """One row per sync: the status it computed, counters under short names.

    Columns: :data:`STATUS_FRAME_COLUMNS` (``spec_replicas`` is what the
    spec asked for at that sync; ``ready`` is readyReplicas and so on).
    """
    st = trace.status()
    if set_name is not None:
        st = st[st["set"] == set_name]
    st = st.rename(columns={"ready_replicas": "ready", "available_replicas": "available",
                            "current_replicas": "current", "updated_replicas": "updated"})
    return st.reindex(columns=list(STATUS_FRAME_COLUMNS)).reset_index(drop=True)


STATES = ("Pending", "Running", "Ready", "Available", "Terminating", "Failed", "Succeeded")
"""Pod states the timeline shows, in lifecycle order.

Pending (created, not started), Running (not Ready), Ready (Ready, not yet
Available: minReadySeconds not passed), Available (Ready for longer than
minReadySeconds; with minReadySeconds 0, Ready pods are Available at once,
as ``isRunningAndAvailable`` says), Terminating (deleted, not gone yet),
Failed and Succeeded (ended; the controller deletes and recreates them)."""

INTERVAL_COLUMNS = ("set", "pod", "ordinal", "incarnation", "state", "revision", "start", "end",
                    "sync_start", "sync_end", "first_sync", "last_sync", "cause", "action", "decision",
                    "rule", "ongoing")
"""Columns of :func:`pod_intervals`."""


def _base_state(phase: str, ready: bool, terminating: bool) -> str:
    if terminating:
        return "Terminating"
    if phase in ("Failed", "Succeeded"):
        return phase
    if phase == "Running":
        return "Ready" if ready else "Running"
    return "Pending"


_CAUSE_RE = re.compile(r"^sync (\d+): ([a-z-]+)")


def trace_end(trace) -> tuple[float, int]:
    """(time, sync) of the last thing the trace recorded."""
    times = [0.0]
    for f in (trace.syncs(), trace.pods()):
        if not f.empty:
            times.append(float(f["time"].max()))
    return max(times), int(trace.sync)


def _pod_intervals(trace, set_name: str | None = None, until: float | None = None):
    """Each pod's life as state segments: one row per stretch of one state (and revision).

    Built from the trace's pod changes.  Available is derived: a pod Ready
    since *t* is Available from *t* + minReadySeconds (the value the set's
    syncs applied, from the status rows), at once when that is 0.

    Each segment has clock times (``start``, ``end``) and sync positions:
    ``sync_start``/``sync_end`` place a change at sync *k* if sync *k* made
    it and at *k* + 0.5 if it happened after sync *k* (kubelet, user);
    ``first_sync``..``last_sync`` are the syncs that ended with the pod in
    that state (none if ``first_sync > last_sync``).  ``cause`` says who made
    the change that began it; ``action``, ``decision`` and ``rule`` name the
    controller decision behind it, if any.  Segments still open at *until*
    (default: the end of the trace) are cut there and marked ``ongoing``.

    Columns: :data:`INTERVAL_COLUMNS`.
    """
    pods = trace.pods()
    if set_name is not None:
        pods = pods[pods["set"] == set_name]
    end_time, end_sync = trace_end(trace)
    if until is not None:
        end_time = until
    if pods.empty:
        return pd.DataFrame(columns=list(INTERVAL_COLUMNS))
    pods = _pod_incarnations(pods.reset_index(drop=True))
    status = trace.status()
    syncs = trace.syncs()
    # minReadySeconds per set over time, and each set's sync times (for availability in sync positions)
    mrs_by_set: dict[str, tuple[list[float], list[int]]] = {}
    for s, g in status.groupby("set", sort=False):
        mrs_by_set[s] = (g["time"].tolist(), [int(v) if v is not None and v == v else 0
                                               for v in g["min_ready_seconds"]])
    sync_times: dict[str, tuple[list[float], list[int]]] = {}
    for s, g in syncs.groupby("set", sort=False):
        sync_times[s] = (g["time"].tolist(), g["sync"].astype(int).tolist())
    dec = trace.decisions()
    dec_index = {}
    for r in dec[dec["pod"].notna()].itertuples(index=False):
        dec_index.setdefault((int(r.sync), r.pod, r.action), (r.message, r.rule))

    def mrs_at(s: str, t: float) -> int:
        times, vals = mrs_by_set.get(s, ([], []))
        if not vals:
            return 0
        i = bisect.bisect_right(times, t) - 1
        return vals[max(i, 0)]

    def first_sync_after(s: str, t: float) -> float:
        """Sync position of the first sync of set *s* strictly after time *t*."""
        times, nums = sync_times.get(s, ([], []))
        i = bisect.bisect_right(times, t)
        return float(nums[i]) if i < len(nums) else end_sync + 0.5

    # one pass over plain lists (pandas row access per group is slow for thousands of pods)
    cols = {c: pods[c].tolist() for c in ("sync", "time", "pod", "set", "ordinal", "event", "phase", "ready",
                                          "terminating", "revision", "cause", "incarnation")}
    groups: dict[tuple[str, int], list[int]] = {}
    for i, key in enumerate(zip(cols["pod"], cols["incarnation"])):
        groups.setdefault(key, []).append(i)
    out = []
    for (pod, inc), idx in groups.items():
        set_ = cols["set"][idx[0]]
        ordinal = int(cols["ordinal"][idx[0]])
        points = []  # (time, sync position, state, revision, cause, action, decision, rule)
        ready_since = None
        gone = None
        for n, i in enumerate(idx):
            t, sync, cause = cols["time"][i], int(cols["sync"][i]), str(cols["cause"][i])
            m = _CAUSE_RE.match(cause)
            own = m is not None and int(m.group(1)) == sync
            pos = float(sync) if own else sync + 0.5
            if cols["event"][i] == "deleted":
                gone = (t, pos)
                break
            ready = bool(cols["ready"][i])
            state = _base_state(cols["phase"][i], ready, bool(cols["terminating"][i]))
            if ready and ready_since is None:
                ready_since = t
            if not ready:
                ready_since = None
            action = m.group(2) if m else None
            message, rule = dec_index.get((int(m.group(1)), pod, action), (None, None)) if m else (None, None)
            mrs = mrs_at(set_, t)
            if state == "Ready" and (mrs <= 0 or t > ready_since + mrs):
                state = "Available"
            revision = cols["revision"][i]
            points.append((t, pos, state, revision, cause, action, message, rule))
            if state == "Ready":
                avail_t = ready_since + mrs
                nxt = cols["time"][idx[n + 1]] if n + 1 < len(idx) else None
                if avail_t < end_time and (nxt is None or avail_t < nxt):
                    points.append((avail_t, first_sync_after(set_, avail_t), "Available", revision,
                                   f"minReadySeconds ({mrs} s) passed", None, None, None))
        stop_t, stop_pos = gone if gone is not None else (end_time, end_sync + 0.5)
        merged = []
        for p in points:
            if merged and merged[-1][2] == p[2] and merged[-1][3] == p[3]:
                continue
            merged.append(p)
        for j, p in enumerate(merged):
            t1, s1 = (merged[j + 1][0], merged[j + 1][1]) if j + 1 < len(merged) else (stop_t, stop_pos)
            first, last = math.ceil(p[1]), math.ceil(s1) - 1
            if t1 <= p[0] and last < first:
                continue  # empty in time and in syncs
            out.append((set_, pod, ordinal, int(inc), p[2], p[3], float(p[0]), float(t1), p[1], s1,
                        first, last, p[4], p[5], p[6], p[7], j + 1 == len(merged) and gone is None))
    df = pd.DataFrame(out, columns=list(INTERVAL_COLUMNS))
    return df.sort_values(["set", "ordinal", "start", "incarnation"], kind="stable").reset_index(drop=True)


# ===================================================================== rollout



def pod_intervals(trace, set_name: str | None = None, until: float | None = None):
    """Each pod's life as state segments (see :func:`_pod_intervals`), cached per trace state.

    Several charts of one trace need the same segments; the result is kept
    on the trace until it grows (a copy is returned, so callers may change it).
    """
    key = ("pod_intervals", set_name, until, *trace.counts()) if hasattr(trace, "counts") else None
    cache = getattr(trace, "_view_cache", None) if key else None
    if cache is not None and cache.get("key") == key:
        return cache["value"].copy()
    value = _pod_intervals(trace, set_name, until)
    if key:
        trace._view_cache = {"key": key, "value": value}
        return value.copy()
    return value

def rollout_status_text(sts: StatefulSet) -> str:
    """The line ``kubectl rollout status statefulset/<name>`` prints for *sts* now.

    Mirrors kubectl's ``StatefulSetStatusViewer.Status`` (polymorphichelpers/rollout_status.go).
    """
    spec, st = sts.spec, sts.status
    if spec.update_strategy != "RollingUpdate":
        return "error: rollout status is only available for RollingUpdate strategy type"
    if st.observed_generation == 0 or sts.generation > st.observed_generation:
        return "Waiting for statefulset spec update to be observed..."
    if st.ready_replicas < spec.replicas:
        return f"Waiting for {spec.replicas - st.ready_replicas} pods to be ready..."
    if spec.rolling_update is not None:
        wanted = spec.replicas - spec.rolling_update.partition
        if st.updated_replicas < wanted:
            return (f"Waiting for partitioned roll out to finish: {st.updated_replicas} out of "
                    f"{wanted} new pods have been updated...")
        return f"partitioned roll out complete: {st.updated_replicas} new pods have been updated..."
    if st.update_revision != st.current_revision:
        return (f"waiting for statefulset rolling update to complete {st.updated_replicas} pods "
                f"at revision {st.update_revision}...")
    return (f"statefulset rolling update complete {st.current_replicas} pods at revision "
            f"{st.current_revision}...")


def rollout_history_text(cluster, name: str, namespace: str = "default", revision: int | None = None) -> str:
    """What ``kubectl rollout history statefulset/<name> [--revision=N]`` prints now, byte for byte.

    Mirrors kubectl's ``StatefulSetHistoryViewer`` (``printHistory``): the
    revisions the set controls and that match its selector, one row per
    revision number, ascending, with the ``kubernetes.io/change-cause``
    annotation (copied from the set when the revision was made) or
    ``<none>``; aligned like Go's tabwriter (padding 2).  The first line is
    kubectl's name printer with an empty operation, so it ends in a space, and
    the output ends with an empty line.  ``No rollout history found.`` when
    there is none.  Raise KeyError if the set does not exist.

    With *revision* N > 0 the first line is ``statefulset.apps/<name> with
    revision #N`` and the rest is that revision's pod template as kubectl's
    ``printTemplate`` / ``DescribePodTemplate`` write it (see
    :func:`stsedu.describe.describe_pod_template`: tab characters kept, no
    tabwriter), then an empty line.  *revision* 0 is the table, as
    ``--revision=0`` is.  Raise :class:`~stsedu.errors.RolloutError` with
    kubectl's message: ``revision must be a positive integer: N`` for a
    negative number (``RolloutHistoryOptions.Validate``, checked before the
    set is looked up), ``unable to find the specified revision`` for a number
    the history does not have (``printHistory``); an empty history prints
    ``No rollout history found.`` whatever the number.  A volume type
    stsedu does not describe raises NotImplementedError.
    """
    from .errors import RolloutError
    from .revisions import controlled_history
    if revision is not None:
        if isinstance(revision, bool) or not isinstance(revision, int):
            raise RolloutError(f'invalid argument "{revision}" for "--revision" flag: '
                               f'strconv.ParseInt: parsing "{revision}": invalid syntax', name=name)
        if revision < 0:
            raise RolloutError(f"revision must be a positive integer: {revision}", name=name)
    sts = cluster.statefulset(name, namespace)
    by_number = {r.revision: r for r in controlled_history(
        sts, cluster.store.list("ControllerRevision", namespace))}
    if revision:
        if not by_number:
            body = "No rollout history found."
        elif revision not in by_number:
            raise RolloutError("unable to find the specified revision", name=name)
        else:
            from .describe import describe_pod_template
            template = by_number[revision].template  # applyStatefulSetHistory: the patch replaces the template
            template.pop("$patch", None)
            body = describe_pod_template(template)
        return f"statefulset.apps/{name} with revision #{revision}\n{body}\n"
    if not by_number:
        body = "No rollout history found."
    else:
        rows = [("REVISION", "CHANGE-CAUSE")]
        rows += [(str(n), by_number[n].annotations.get("kubernetes.io/change-cause") or "<none>")
                 for n in sorted(by_number)]
        width = max(len(first) for first, _ in rows) + 2
        body = "".join(f"{first.ljust(width)}{rest}\n" for first, rest in rows)
    return f"statefulset.apps/{name} \n{body}\n"
