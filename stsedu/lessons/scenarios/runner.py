"""Scenarios loaded and replayed: :func:`load` and :func:`library`, and :meth:`Scenario.run`,
which makes a fresh cluster, carries out each step's action and checks its expectations.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ...api.errors import APIError, ValidationError
from ...cluster import Cluster
from ...trace import Trace
from .expectations import RunState, check_expectations
from ... import files as _files
from ... import limits as _limits
from ...api.load import to_json_data
from .format import (DEFAULT_MAX_SYNCS, ExpectationFailed, LIBRARY_DIR, MAX_SCENARIO_BYTES, MAX_SCENARIO_NODES, RunResult,
                     ScenarioError, Step, StepRecord, TOP_KEYS, BadValue, parse_cluster_options, kind_name, no_unknown,
                     object_entry, parse_step, read_text, step_work)
from ...frames import kit_frame

# ================================================================ scenario


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario.  :meth:`run` replays it on a fresh cluster."""

    name: str
    title: str
    description: str
    source: str
    cluster_options: Mapping[str, Any]
    objects: tuple[tuple[str, tuple[dict, ...]], ...]
    """(label, documents) per entry of ``objects:``, documents as plain manifest dicts."""
    set_name: str
    steps: tuple[Step, ...]
    path: Path | None = None
    """The file the scenario was read from (None when it came from text)."""

    def make_cluster(self) -> Cluster:
        """A new cluster with the scenario's options (nothing applied yet)."""
        try:
            c = Cluster(**dict(self.cluster_options))
        except ValueError as e:
            raise ScenarioError(str(e), self.source, field="cluster") from None
        c.trace.meta["scenario"] = self.name
        return c

    def run(self, strict: bool = True, stop_after: int | None = None,
            observer: Callable[[StepRecord, RunResult], None] | None = None) -> RunResult:
        """Replay the scenario on a fresh cluster; returns a :class:`RunResult`.

        *strict* True raises :class:`ExpectationFailed` at the first step
        whose expectations do not hold; False records the failures and goes
        on (``result.ok``, ``result.failures``).  *stop_after* stops after
        that step number (the cluster is then yours to explore).
        *observer(record, result)* is called after the objects (record 0) and
        after every step.  Raise :class:`ScenarioError` if the cluster refuses
        a step (a ValidationError, an unknown pod, ...) that the step did not
        expect (``expect: {error: ...}``).
        """
        cluster = self.make_cluster()
        result = RunResult(self, cluster)
        state = RunState(cluster)
        objects_step = Step(0, "objects", {"entries": self.objects}, self.set_name)
        rec = self._record(objects_step, cluster)
        for label, docs in self.objects:
            try:
                cluster.apply(list(docs))
            except ValidationError as e:
                raise ScenarioError(str(e), self.source, 0, "objects", label) from e
        self._close(rec, cluster)
        result.steps.append(rec)
        if observer is not None:
            observer(rec, result)
        for step in self.steps:
            if stop_after is not None and step.number > stop_after:
                break
            rec = self._record(step, cluster)
            expected_error = (step.expect or {}).get("error")
            try:
                rec.syncs = list(ACTIONS[step.action](cluster, step, self) or [])
            except (ValidationError, KeyError, ValueError, APIError) as e:
                if isinstance(e, ScenarioError):
                    raise
                text = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
                if expected_error is None:
                    raise ScenarioError(f"{type(e).__name__}: {text}", self.source, step.number,
                                        step.action) from e
                rec.error = str(text)
            for s in rec.syncs:
                state.last_sync[s.set_name] = s
            if step.expect:
                rec.failures = check_expectations(step, step.expect, cluster, state, rec, self.source)
                rec.checked = tuple(step.expect)
            self._close(rec, cluster)
            result.steps.append(rec)
            if observer is not None:
                observer(rec, result)
            if strict and rec.failures:
                raise ExpectationFailed(rec.failures, result)
        return result

    @staticmethod
    def _record(step: Step, cluster: Cluster) -> StepRecord:
        rec = StepRecord(step, start_time=cluster.now)
        rec.rows = {t: (n, n) for t, n in _counts(cluster.trace).items()}
        return rec

    @staticmethod
    def _close(rec: StepRecord, cluster: Cluster) -> None:
        rec.end_time = cluster.now
        rec.rows = {t: (rec.rows[t][0], n) for t, n in _counts(cluster.trace).items()}

    def to_text(self) -> str:
        """The scenario file's text (what ``stsedu show NAME`` prints); "" if it came from text."""
        return self.path.read_text(encoding="utf-8") if self.path is not None else ""


def _counts(trace: Trace) -> dict[str, int]:
    return {t: len(rows) for t, rows in trace.rows().items()}


# ================================================================ loading


def library_path(name: str) -> Path:
    """The file of the shipped scenario *name*.  Raise ScenarioError naming the known ones."""
    p = LIBRARY_DIR / f"{name}.yaml"
    if p.is_file():
        return p
    names = [q.stem for q in sorted(LIBRARY_DIR.glob("*.yaml"))]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ScenarioError(f"no such file, and no shipped scenario of that name{hint} "
                        f"(shipped: {', '.join(names)})", name)


def library():
    """The shipped scenarios as a DataFrame: ``name``, ``title``, ``description`` (one per notebook idea)."""
    rows = []
    for p in sorted(LIBRARY_DIR.glob("*.yaml")):
        s = load(p)
        rows.append({"name": s.name, "title": s.title, "description": s.description})
    return kit_frame(rows, columns=["name", "title", "description"])


def load(what: str | Path) -> Scenario:
    """Load a scenario from a file path, or by name from the shipped library (``load("partition-canary")``).

    Raise :class:`ScenarioError` if the file is missing or invalid.
    """
    p = Path(what)
    source = str(what)
    if not p.is_file():
        if isinstance(what, str) and "/" not in what and not what.endswith((".yaml", ".yml")):
            p = library_path(what)
            source = f"stsedu/lessons/scenarios/library/{p.name}"
        else:
            raise ScenarioError("no such file", str(what))
    elif p.resolve().parent == LIBRARY_DIR.resolve():
        source = f"stsedu/lessons/scenarios/library/{p.name}"
    try:
        text = read_text(p, MAX_SCENARIO_BYTES)
    except BadValue as b:
        raise ScenarioError(b.problem, source) from None
    sc = loads(text, source=source, base=p.parent, default_name=p.stem)
    return replace(sc, path=p)


def loads(text: str, source: str = "<scenario>", base: str | Path | None = None,
          default_name: str = "scenario") -> Scenario:
    """Load a scenario from YAML *text*; *base* is where relative object paths start (default: cwd).

    Raise :class:`ScenarioError` for text over 1 MiB, YAML that cannot be read
    (with its line), nesting deeper than 100 levels, an alias bomb (more than
    :data:`~stsedu.lessons.scenarios.format.MAX_SCENARIO_NODES` values once aliases are
    followed), NaN or infinite numbers, and every problem :func:`from_dict` finds.
    """
    if not isinstance(text, str):
        raise ScenarioError(f"a scenario is YAML text, not {type(text).__name__}", source)
    try:  # size, depth, and aliases counted before anything is expanded
        data = _files.load_yaml(text, _files.Limits("scenario file", MAX_SCENARIO_BYTES, MAX_SCENARIO_NODES))
    except _files.FileReadError as e:
        where = f"line {e.line}: " if e.line else ""
        raise ScenarioError(f"{where}{e.problem}", source) from None
    return from_dict(data, source=source, base=base, default_name=default_name)


def from_dict(data: Any, source: str = "<scenario>", base: str | Path | None = None,
              default_name: str = "scenario") -> Scenario:
    """Validate a scenario given as a dict (the parsed YAML) and return it."""
    base = Path(base) if base is not None else Path.cwd()
    try:  # bounded before anything walks it: aliases expanded, depth, finite numbers
        to_json_data(data, max_nodes=MAX_SCENARIO_NODES)
    except ValidationError as err:
        path, message = err.errors[0] if err.errors else ("", str(err))
        raise ScenarioError(message, source, field=path or None) from None
    if not isinstance(data, Mapping):
        raise ScenarioError(f"a scenario must be a mapping with keys {', '.join(TOP_KEYS)}, "
                            f"not {kind_name(data)}", source)
    no_unknown(data, TOP_KEYS, source)
    name = data.get("name", default_name)
    title = data.get("title", name)
    description = data.get("description", "")
    for key, val in (("name", name), ("title", title), ("description", description)):
        if not isinstance(val, str):
            raise ScenarioError(f"must be a string, not {kind_name(val)}", source, field=key)
    options = parse_cluster_options(data.get("cluster") or {}, source)
    if "objects" not in data:
        raise ScenarioError("required: the objects to apply first (paths or manifests)", source,
                            field="objects")
    entries = data["objects"]
    if not isinstance(entries, list) or not entries:
        raise ScenarioError("must be a non-empty list of paths or manifests", source, field="objects")
    objects = tuple(object_entry(e, f"objects[{i}]", base, source, 0, "objects")
                    for i, e in enumerate(entries))
    sets = [d["metadata"]["name"] for _, docs in objects for d in docs
            if d.get("kind") == "StatefulSet" and isinstance(d.get("metadata"), Mapping)
            and isinstance(d["metadata"].get("name"), str)]
    set_name = data.get("set")
    if set_name is None:
        if not sets:
            raise ScenarioError("no StatefulSet among the objects: add one, or name the set with `set:`",
                                source, field="objects")
        set_name = sets[-1]
    elif not isinstance(set_name, str):
        raise ScenarioError(f"must be a StatefulSet name, not {kind_name(set_name)}", source, field="set")
    raw_steps = data.get("steps") or []
    if not isinstance(raw_steps, list):
        raise ScenarioError(f"must be a list of steps, not {kind_name(raw_steps)}", source, field="steps")
    steps, work = [], 0
    for i, raw in enumerate(raw_steps):   # the budget on total work, before anything runs
        s = parse_step(raw, i + 1, set_name, base, source)
        steps.append(s)
        work += step_work(s.action, s.args)
        if work > _limits.MAX_SCENARIO_WORK:
            raise ScenarioError(f"the steps so far ask for up to {work} syncs and kubelet steps, over the"
                                f" budget of {_limits.MAX_SCENARIO_WORK} for one scenario"
                                f" ({_limits.hint('MAX_SCENARIO_WORK')}; a run or settle without"
                                f" max_syncs counts {DEFAULT_MAX_SYNCS}, an advance one per"
                                f" {_limits.ADVANCE_SECONDS_PER_WORK} s)",
                                source, s.number, s.action)
    description = "\n\n".join(" ".join(para.split()) for para in description.split("\n\n") if para.strip())
    return Scenario(name=name, title=title, description=description, source=source,
                    cluster_options=options, objects=objects, set_name=set_name, steps=tuple(steps))


# ================================================================ actions


def _nothing(_result: Any) -> list:
    """Steps other than sync and run make no syncs."""
    return []


def _each_pod(fn_name: str):
    def act(c: Cluster, s: Step, sc: Scenario):
        for p in s.args["pods"]:
            getattr(c.kubelet, fn_name)(p)
        return []
    return act


def _apply(c: Cluster, s: Step, sc: Scenario):
    for label, docs in s.args["entries"]:
        c.apply(list(docs))
    return []


def _delete_pods(c: Cluster, s: Step, sc: Scenario):
    # kubectl delete pod A B: delete them all, then (unless --wait=false) wait for each to be gone
    uids = {p: c.pod(p).uid for p in s.args["pods"]}
    for p in s.args["pods"]:
        c.delete_pod(p, wait=False)
    if s.args.get("wait", True):
        for p, uid in uids.items():
            if any(q.uid == uid for q in c.pods() if q.name == p):
                c.delete_pod(p, wait=True)
    return []


def _never_ready(c: Cluster, s: Step, sc: Scenario):
    c.kubelet.never_ready(pod=s.args.get("pod"), image=s.args.get("image"))
    return []


def _crash_loop(c: Cluster, s: Step, sc: Scenario):
    c.kubelet.crash_loop(s.args["seconds"], pod=s.args.get("pod"), image=s.args.get("image"))
    return []


def _evict(c: Cluster, s: Step, sc: Scenario):
    for p in s.args["pods"]:
        c.kubelet.evict(p, resource=s.args.get("resource", "memory"))
    return []


ACTIONS: dict[str, Callable[[Cluster, Step, Scenario], list | None]] = {
    "sync": lambda c, s, sc: [c.sync(s.set_name) for _ in range(s.args["count"])],
    "run": lambda c, s, sc: c.run(s.set_name, **s.args),
    "run_all": lambda c, s, sc: c.run(None, **s.args),
    "settle": lambda c, s, sc: c.settle(s.set_name, **s.args),
    "kubelet_step": lambda c, s, sc: _nothing([c.kubelet.step() for _ in range(s.args["count"])]),
    "advance": lambda c, s, sc: _nothing(c.advance(s.args["seconds"])),
    "apply": _apply,
    "scale": lambda c, s, sc: _nothing(c.scale(s.set_name, s.args["replicas"])),
    "patch": lambda c, s, sc: _nothing(c.patch(s.set_name, s.args["patch"])),
    "set_image": lambda c, s, sc: _nothing(c.set_image(s.set_name, s.args["image"], s.args["container"])),
    "delete_pod": _delete_pods,
    "patch_pod": lambda c, s, sc: _nothing(c.patch_pod(s.args["pod"], s.args["patch"])),
    "start": _each_pod("start"), "set_ready": _each_pod("set_ready"),
    "set_unready": _each_pod("set_unready"), "fail": _each_pod("fail"),
    "succeed": _each_pod("succeed"), "crash": _each_pod("crash"), "restart": _each_pod("restart"),
    "evict": _evict, "shut_down_node": _each_pod("shut_down_node"),
    "finish_termination": _each_pod("finish_termination"),
    "never_ready": _never_ready, "crash_loop": _crash_loop, "fail_after": _crash_loop,
    "clear_behaviours": lambda c, s, sc: _nothing(c.kubelet.clear_behaviours()),
    "inject_error": lambda c, s, sc: _nothing(c.inject_error(**s.args)),
    "rollout_undo": lambda c, s, sc: _nothing(c.rollout_undo(s.set_name, s.args["to_revision"])),
    "delete": lambda c, s, sc: _nothing(c.delete(s.set_name, s.args["cascade"])),
    "expect": lambda c, s, sc: [],
}
