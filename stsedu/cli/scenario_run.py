"""``stsedu run SCENARIO`` (and ``stsedu`` alone): a scenario loaded, run and printed step by step.

What is printed for each step: the step, then, in the order they happened, each sync's decisions
(``sync 3 at 14s``) and the pods' changes as ``kubectl get pods --watch`` prints them; at the end
``kubectl get sts``, ``get pods`` and ``get pvc``, and a summary.
"""

from __future__ import annotations

import textwrap
from typing import TextIO

from ..lessons import scenarios as _scenarios
from ..trace import POD_COLUMNS
from ..version import __version__
from . import EXIT_EXPECTATION_FAILED, EXIT_OK
from .trace_file import check_trace_path, write_trace


def run_scenario(what: str, out: TextIO, trace_path: str | None = None, quiet: bool = False,
                 force: bool = False) -> int:
    """Load, print and run one scenario; returns 0 if every expectation held, else 1.

    Raise ScenarioError (exit 2) for an invalid scenario and TraceFileError (exit 3)
    if *trace_path* cannot or must not be written -- checked before the run.
    """
    sc = _scenarios.load(what)
    path = None
    if trace_path:
        path = check_trace_path(trace_path, [sc.path] if sc.path is not None else [], force)
    printer = Printer(out, quiet=quiet)
    printer.header(sc)
    result = sc.run(strict=False, observer=printer.step)
    printer.footer(result)
    if path is not None:
        write_trace(result.trace, path)
        out.write(f"trace written to {path}\n")
    return EXIT_OK if result.ok else EXIT_EXPECTATION_FAILED


class Printer:
    """Prints a scenario run step by step (used as ``Scenario.run``'s observer)."""

    def __init__(self, out: TextIO, quiet: bool = False, width: int = 100) -> None:
        self.out, self.quiet, self.width = out, quiet, width
        self.watch_header = False

    def w(self, line: str = "") -> None:
        self.out.write(line + "\n")

    def header(self, sc: "_scenarios.Scenario") -> None:
        self.w(f"stsedu {__version__} | scenario {sc.name}: {sc.title}")
        opts = sc.cluster_options
        gates = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in (opts.get("feature_gates") or {}).items())
        self.w(f"cluster: kubelet {opts.get('kubelet', 'auto')}, seed {opts.get('seed', 0)}, "
               f"profile {opts.get('profile', 'current')}" + (f", gates {gates}" if gates else ""))
        if sc.description and not self.quiet:
            self.w()
            for para in sc.description.split("\n\n"):
                self.w(textwrap.fill(" ".join(para.split()), self.width))
        self.w()

    def step(self, rec: "_scenarios.StepRecord", result: "_scenarios.RunResult") -> None:
        s = rec.step
        label = "objects" if s.number == 0 else f"step {s.number}"
        self.w(f"-- {label}: {s.describe()}  (t={_secs(rec.start_time)})")
        if s.note:
            for line in textwrap.wrap(" ".join(s.note.split()), self.width - 4):
                self.w(f"   {line}")
        if s.action in ("objects", "apply"):
            verb = "created" if s.number == 0 else "applied"
            for _, docs in s.args["entries"]:
                for d in docs:
                    kind = str(d.get("kind", "object")).lower() + (".apps" if d.get("kind") == "StatefulSet" else "")
                    self.w(f"   {kind}/{(d.get('metadata') or {}).get('name', '?')} {verb}")
        if rec.error is not None:
            self.w(f"   error (expected): {rec.error}")
        if not self.quiet:
            self._happenings(rec, result)
        if rec.checked:
            if rec.failures:
                for f in rec.failures:
                    self.w(f"   expect FAILED {f.field}: expected {_scenarios.format_value(f.expected)}, "
                           f"got {_scenarios.format_value(f.actual)}" + (f" ({f.detail})" if f.detail else ""))
            else:
                self.w(f"   expect ok: {', '.join(rec.checked)}")
        self.w()

    def _happenings(self, rec, result) -> None:
        """Each sync's decisions and the pods' watch lines, in the order they happened."""
        trace = result.trace
        rows = trace.rows()
        p0, p1 = rec.rows["pods"]
        header, groups = ("", []) if p0 == p1 else watch_line_groups(trace)
        pods = list(zip(rows["pods"][p0:p1], groups[p0:p1]))
        ev0, ev1 = rec.rows["events"]
        warnings = [r for r in rows["events"][ev0:ev1] if r[2] == "Warning"]
        syncs = {s.sync: s for s in rec.syncs}
        first = min(syncs) if syncs else None
        # pod changes before this step's first sync (the user's or the kubelet's) come first
        self._watch(header, [line for row, lines in pods if first is None or row[0] < first for line in lines])
        for n in sorted(syncs):
            self._sync(syncs[n], of_set=rec.step.action == "run_all")
            self._watch(header, [line for row, lines in pods if row[0] == n for line in lines])
        for w in warnings:
            self.w(f"   Warning {w[3]} {w[4]}: {w[5]}")

    def _sync(self, s, of_set: bool = False) -> None:
        st = s.status
        counts = (f"replicas {st.replicas}, ready {st.ready_replicas}, available {st.available_replicas}, "
                  f"current {st.current_replicas}, updated {st.updated_replicas}") if st else "no status"
        self.w(f"   sync {s.sync}{f' of {s.set_name}' if of_set else ''} at {_secs(s.time)} (status: {counts})"
               + (f"  ERROR {s.error}" if s.error else ""))
        lines = decision_lines(s)
        if not lines:
            self.w("      (nothing to do)")
        for line in lines:
            self.w("      " + line)

    def _watch(self, header: str, lines: list[str]) -> None:
        if not lines:
            return
        if not self.watch_header:
            self.w("      " + header)
            self.watch_header = True
        for line in lines:
            self.w("      " + line)

    def footer(self, result: "_scenarios.RunResult") -> None:
        c = result.cluster
        if not self.quiet:
            from ..views.tables import get_pods_text, get_pvc_text, get_sts_text
            for title, get in (("kubectl get sts", get_sts_text), ("kubectl get pods", get_pods_text),
                               ("kubectl get pvc", get_pvc_text)):
                text = get(c)
                self.w(f"$ {title}")
                self.w(text.rstrip("\n") or "No resources found in default namespace.")
                self.w()
        n_checked = sum(len(r.checked) for r in result.steps)
        fails = result.failures
        n_steps, n_syncs = len(result.steps) - 1, len(result.syncs)
        summary = (f"{n_steps} step{'s' * (n_steps != 1)}, {n_syncs} sync{'s' * (n_syncs != 1)}, "
                   f"{_secs(c.now)} simulated; ")
        if fails:
            self.w(summary + f"{len(fails)} expectation(s) FAILED:")
            for f in fails:
                self.w(f"  {f}")
        elif n_checked:
            self.w(summary + f"all {n_checked} expectations met")
        else:
            self.w(summary + "no expectations")


def _secs(t: float) -> str:
    return f"{t:g}s"


def decision_lines(sync) -> list[str]:
    """One line per decision of a SyncResult: action, pod (or target), reason, message."""
    out = []
    for d in sync.decisions:
        if d.action == "status":
            continue
        who = d.pod if d.pod and d.action in ("create", "delete", "update", "wait", "adopt", "release") \
            else (d.target or d.pod or "")
        flag = "" if d.applied is not False else "  [not applied" + (f": {d.error}]" if d.error else "]")
        out.append(f"{d.action:<16}{who:<16}{d.reason:<20}{d.message}{flag}")
    return out


def watch_line_groups(trace) -> tuple[str, list[list[str]]]:
    """``kubectl get pods -w`` over the whole run (:func:`stsedu.views.tables.watch_lines`): its header,
    and the lines of each row of the trace's pod table, in order (:func:`~stsedu.views.tables.watch_line_count`
    of them), so a step's rows map to its lines."""
    from ..views.tables import watch_line_count, watch_lines
    lines = watch_lines(trace)
    if not lines:
        return "", []
    event = POD_COLUMNS.index("event")
    groups, i = [], 1
    for row in trace.table_rows("pods"):
        n = watch_line_count(row[event])
        groups.append(lines[i:i + n])
        i += n
    return lines[0], groups
