"""Tables made from a cluster's trace (pandas DataFrames), and kubectl's text by its public names.

The kubectl text itself is written in :mod:`stsedu.views.kubectl`; ``stsedu.tables``
re-exports it (``get_pods_text``, ``watch_lines``, ``rollout_status_text`` ...).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re

import pandas as pd

from .kubectl.get import (  # noqa: F401  (kubectl text: public as stsedu.tables.*)
    human_duration, KubectlTabWriter, pod_status_text, watch_frame, watch_line_count, watch_lines, pods_frame, get_pods_text,
    get_sts_text, get_controllerrevisions_text, get_pvc_text, TABWRITER_MIN_WIDTH, TABWRITER_PADDING,
    SIM_NODE, WATCH_HEADER, WIDE_HEADER, REVISION_LABEL_HEADER)
from .kubectl.rollout import rollout_history_text, rollout_status_text  # noqa: F401
from .trace_tables import TablesOnce, columns_of, pod_incarnations  # noqa: F401  (pod_incarnations: public as stsedu.tables.*)
from ..trace import POD_COLUMNS
from ..i18n import ENGLISH, _, current_language, ngettext, pgettext
from ..controller.decisions import SyncResult
from .palette import ACTION_COLORS
from ..frames import kit_frame

DECISION_TABLE_COLUMNS = ("sync", "time", "action", "pod", "target", "reason", "rule", "message", "outcome")
"""Columns of :func:`decisions_frame`."""

POD_ACTIONS = ("create", "delete", "update", "wait")


def _outcome(action: str, applied, error) -> str:
    if isinstance(error, str) and error:  # (a column of None can come back as NaN)
        return f"failed: {error}"
    if action == "wait" or applied is None or applied != applied:
        return ""
    return "done" if applied else "failed"


def decisions_frame(decisions_or_trace, sync: int | None = None, time: float | None = None,
                    pod_actions: bool = False):
    """The decisions as a table: sync, time, action, pod, target, reason, rule, message, outcome.

    ``target`` names the object acted on when it is not the pod (a claim, a revision).

    Accepts a :class:`~stsedu.trace.Trace` (every sync, or only *sync*), its
    ``decisions()`` DataFrame, a :class:`~stsedu.controller.decisions.SyncResult`, or a
    list of :class:`~stsedu.controller.decisions.Decision` (then *sync* and *time* fill
    those columns).  ``outcome`` is ``done``, ``failed: <error>`` (the API
    server refused it: the sync stopped there, as upstream's does) or empty for
    waits.  *pod_actions* keeps only create,
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
        rows = kit_frame([{"sync": sync, "time": time, "action": d.action, "pod": d.pod,
                              "target": d.target, "reason": d.reason, "rule": d.rule,
                              "message": d.message, "applied": d.applied, "error": d.error}
                             for d in obj],
                            columns=["sync", "time", "action", "pod", "target", "reason", "rule",
                                     "message", "applied", "error"])
    out = kit_frame({
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
    # the rule in the learner's language (the trace keeps upstream's English; messages stay English)
    out["rule"] = [_(r) if isinstance(r, str) and r else r for r in out["rule"].tolist()]
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
    classes = kit_frame([[f"act-{k}"] * len(df.columns) for k in kinds], index=df.index, columns=df.columns)
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
    n = ngettext("{n} decision", "{n} decisions", len(df)).format(n=len(df))
    if sync is not None:
        caption = _("Sync {sync}: {n}").format(sync=sync, n=n)
    elif len(df) and df["sync"].notna().any():
        lo, hi = int(df["sync"].min()), int(df["sync"].max())
        caption = (_("Syncs {lo}–{hi}: {n}").format(lo=lo, hi=hi, n=n) if lo != hi
                   else _("Sync {sync}: {n}").format(sync=lo, n=n))
    else:
        caption = n
    caption += " " + _("(green create · vermilion delete · orange update · blue wait · grey other)")
    styler = (df.style.set_uuid(f"stsedu-{digest}").hide(axis="index").set_td_classes(classes)
              .set_table_styles(styles).set_table_styles(nowrap, overwrite=False).set_caption(caption)
              .format({"time": "{:.1f}"}, na_rep=""))
    if current_language() != ENGLISH:  # the titles shown; the frame's columns keep their names
        styler = styler.format_index(decision_column_title, axis="columns")
    return styler


def decision_column_title(column: str) -> str:
    """The title of a column of :func:`decisions_frame` in the learner's language (the column's name
    in English, as code reads it)."""
    titles = {"sync": pgettext("column", "sync"), "time": pgettext("column", "time"),
              "action": pgettext("column", "action"), "pod": pgettext("column", "pod"),
              "target": pgettext("column", "target"), "reason": pgettext("column", "reason"),
              "rule": pgettext("column", "rule"), "message": pgettext("column", "message"),
              "outcome": pgettext("column", "outcome")}
    return titles.get(column, column)


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


STATES = ("Pending", "Running", "CrashLoopBackOff", "Ready", "Available", "Terminating", "Failed",
          "Succeeded")
"""Pod states the timeline shows, in lifecycle order.

Pending (created, not started), Running (not Ready), CrashLoopBackOff (phase
Running, its container crashed: exited with an error or waiting out the kubelet's
back-off; the controller waits on it like any not-Ready pod), Ready (Ready, not yet
Available: minReadySeconds not passed), Available (Ready for longer than
minReadySeconds; with minReadySeconds 0, Ready pods are Available at once,
as ``isRunningAndAvailable`` says), Terminating (deleted, not gone yet),
Failed (evicted, node shut down, deadline exceeded) and Succeeded (ended; the
controller deletes and recreates them)."""

INTERVAL_COLUMNS = ("set", "pod", "ordinal", "incarnation", "state", "revision", "start", "end",
                    "sync_start", "sync_end", "first_sync", "last_sync", "cause", "action", "decision",
                    "rule", "ongoing")
"""Columns of :func:`pod_intervals`."""


_CRASHED = ("Error", "CrashLoopBackOff")


def _base_state(phase: str, ready: bool, terminating: bool, status: str | None = None) -> str:
    if phase in ("Failed", "Succeeded"):  # an ended pod stays Failed while deleted (printPod)
        return phase
    if terminating:
        return "Terminating"
    if phase == "Running" and status in _CRASHED:
        return "CrashLoopBackOff"
    if phase == "Running":
        return "Ready" if ready else "Running"
    return "Pending"


_POD_SET = POD_COLUMNS.index("set")

_CAUSE_RE = re.compile(r"^sync (\d+): ([a-z-]+)")


def trace_end(trace) -> tuple[float, int]:
    """(time, sync) of the last thing the trace recorded."""
    tables = TablesOnce.of(trace)
    times = [0.0]
    for table in ("syncs", "pods"):
        rows = tables.table_rows(table)
        if rows:
            times.append(float(max(map(columns_of(table, "time"), rows))))
    return max(times), int(trace.sync)


def trace_now(trace) -> float:
    """The trace's "now": its cluster's clock if it has one (a lab lets time pass after a change),
    else the time of the last thing it recorded (a loaded trace).  Never before :func:`trace_end`."""
    end, _sync = trace_end(trace)
    clock = getattr(trace, "clock", None)
    now = getattr(clock, "now", None) if clock is not None else None
    return max(end, float(now)) if isinstance(now, (int, float)) else end


def pod_intervals(trace, set_name: str | None = None, until: float | None = None):
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

    Columns: :data:`INTERVAL_COLUMNS`.  *trace* may be a redraw's
    :class:`~stsedu.views.trace_tables.TablesOnce`: its charts then work the segments
    out once for all of them.
    """
    return kit_frame(list(interval_rows(trace, set_name, until)), columns=list(INTERVAL_COLUMNS))


def interval_rows(trace, set_name: str | None = None, until: float | None = None) -> tuple[tuple, ...]:
    """:func:`pod_intervals`'s rows as plain tuples (in :data:`INTERVAL_COLUMNS`' order), without a
    DataFrame: for a chart that reads them in one pass.  Worked out once per
    :class:`~stsedu.views.trace_tables.TablesOnce`."""
    tables = TablesOnce.of(trace)
    return tables.once(("interval_rows", set_name, until), lambda: _intervals(tables, set_name, until))


def _intervals(trace: TablesOnce, set_name: str | None, until: float | None) -> tuple[tuple, ...]:
    end_time, end_sync = trace_end(trace)
    if until is not None:
        end_time = until
    incarnations = trace.incarnation_rows()[0]
    pick = columns_of("pods", "sync", "time", "pod", "set", "ordinal", "event", "phase", "ready",
                      "terminating", "revision", "cause", "status")
    pods = [(*pick(r), inc) for r, inc in zip(trace.table_rows("pods"), incarnations)
            if set_name is None or r[_POD_SET] == set_name]
    if not pods:
        return ()
    # minReadySeconds per set over time, and each set's sync times (for availability in sync positions)
    mrs_by_set: dict[str, tuple[list[float], list[int]]] = {}
    for s, t, v in map(columns_of("status", "set", "time", "min_ready_seconds"), trace.table_rows("status")):
        times, vals = mrs_by_set.setdefault(s, ([], []))
        times.append(t)
        vals.append(int(v) if v is not None and v == v else 0)
    sync_times: dict[str, tuple[list[float], list[int]]] = {}
    for s, t, n in map(columns_of("syncs", "set", "time", "sync"), trace.table_rows("syncs")):
        times, nums = sync_times.setdefault(s, ([], []))
        times.append(t)
        nums.append(int(n))
    dec_index = {}
    for sync, pod, action, message, rule in map(columns_of("decisions", "sync", "pod", "action", "message", "rule"),
                                                trace.table_rows("decisions")):
        if pod is not None:
            dec_index.setdefault((int(sync), pod, action), (message, rule))

    def mrs_at(s: str, t: float) -> int:
        times, vals = mrs_by_set.get(s, ([], []))
        if not vals:
            return 0
        i = bisect.bisect_right(times, t) - 1
        return vals[max(i, 0)]

    def first_sync_from(s: str, t: float) -> float:
        """Sync position of the first sync of set *s* at or after time *t* (a pod that turns
        Available at *t* counts as available for a sync at *t*: ``IsPodAvailable`` uses <=)."""
        times, nums = sync_times.get(s, ([], []))
        i = bisect.bisect_left(times, t)
        return float(nums[i]) if i < len(nums) else end_sync + 0.5

    # one pass over the plain rows, column by column
    cols = dict(zip(("sync", "time", "pod", "set", "ordinal", "event", "phase", "ready", "terminating", "revision",
                     "cause", "status", "incarnation"), (list(c) for c in zip(*pods))))
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
            state = _base_state(cols["phase"][i], ready, bool(cols["terminating"][i]), cols["status"][i])
            if ready and ready_since is None:
                ready_since = t
            if not ready:
                ready_since = None
            action = m.group(2) if m else None
            message, rule = dec_index.get((int(m.group(1)), pod, action), (None, None)) if m else (None, None)
            mrs = mrs_at(set_, t)
            if state == "Ready" and (mrs <= 0 or t >= ready_since + mrs):
                state = "Available"
            revision = cols["revision"][i]
            points.append((t, pos, state, revision, cause, action, message, rule))
            if state == "Ready":
                avail_t = ready_since + mrs
                nxt = cols["time"][idx[n + 1]] if n + 1 < len(idx) else None
                if avail_t < end_time and (nxt is None or avail_t < nxt):
                    points.append((avail_t, first_sync_from(set_, avail_t), "Available", revision,
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
    return tuple(sorted(out, key=lambda r: (r[0], r[2], r[6], r[3])))  # set, ordinal, start, incarnation


# ===================================================================== rollout



def sync_result_html(result: SyncResult) -> str:
    """A SyncResult in Jupyter: its decisions as a table.  ``import stsedu`` registers it with
    IPython's HTML formatter (the record knows no views, and no view patches the record)."""
    return decisions_frame(result.decisions, sync=result.sync, time=result.time).to_html(index=False)


EXPLAIN_COLUMNS = ("sync", "time", "action", "pod", "message")
"""What ``%kubectl --explain`` shows of each decision (the reason code and upstream rule are in the
HTML table's row tooltip, and in ``stsedu.last()``)."""


def explain_heads() -> tuple[str, ...]:
    """The titles of :data:`EXPLAIN_COLUMNS` in the learner's language."""
    return (pgettext("column", "sync"), pgettext("column", "time"), pgettext("column", "action"),
            pgettext("column", "pod"), pgettext("column", "message"))


class Explained:
    """The decisions behind one kubectl command, shown as a table a learner reads (``%kubectl --explain``).

    In a notebook: an HTML table, left-aligned, blanks instead of ``None``, the pod name never wrapped,
    the reason and upstream rule in each row's tooltip; as text: the same columns, aligned, the
    message left-aligned and whole.  *frame* is ``Session.last()``'s DataFrame (kept as ``.frame``)."""

    def __init__(self, frame) -> None:
        self.frame = frame

    def _cells(self) -> list[list[str]]:
        rows = []
        for r in self.frame.to_dict("records"):
            cells = []
            for c in EXPLAIN_COLUMNS:
                v = r.get(c)
                cells.append("" if v is None or v != v else f"{v:g}" if isinstance(v, float) else str(v))
            rows.append(cells)
        return rows

    def __repr__(self) -> str:
        rows = [list(explain_heads()), *self._cells()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(EXPLAIN_COLUMNS) - 1)]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]
                         for row in rows)

    def _repr_html_(self) -> str:
        import html
        head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(c)}</th>" for c in explain_heads())
        body = []
        for r, cells in zip(self.frame.to_dict("records"), self._cells()):
            tip = html.escape(_("reason: {reason} · upstream: {rule}").format(
                reason=r.get("reason") or "", rule=_(r["rule"]) if r.get("rule") else ""), quote=True)
            tds = "".join(f"<td style='text-align:left;padding:2px 8px;white-space:"
                          f"{'normal' if c == 'message' else 'nowrap'}'>{html.escape(v)}</td>"
                          for c, v in zip(EXPLAIN_COLUMNS, cells))
            body.append(f"<tr title='{tip}'>{tds}</tr>")
        return (f"<table class='stsedu-explain'><thead><tr>{head}</tr></thead>"
                f"<tbody>{''.join(body)}</tbody></table>")

