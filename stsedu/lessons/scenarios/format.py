"""The scenario file format: its keys, its records, and how a file is read into steps.

Every problem with a file raises :class:`ScenarioError` naming the file, the
step and the field (docs/scenarios.md documents the format).
"""

from __future__ import annotations

import copy
import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Callable, Mapping

import yaml

from ... import files as _files
from ... import limits as _limits
from ...api.arguments import MAX_SECONDS
from ...api.errors import ValidationError
from ...api.merge_patch import merge_patch
from ...cluster import CASCADES, Cluster
from ...controller.decisions import POD_ACTIONS, SyncResult
from ...trace import Trace
from .describe import DESCRIBE, format_value

LIBRARY_DIR = Path(__file__).parent / "library"
"""Where the shipped scenarios live (``stsedu/lessons/scenarios/library/*.yaml``)."""
DATA_DIR = Path(__file__).parents[2] / "data"
"""Manifests shipped with the package; a scenario names them ``stsedu:web.yaml``."""
PACKAGE_PREFIX = "stsedu:"

MAX_SCENARIO_BYTES = 1 << 20
"""Largest scenario file (and largest manifest file it names): 1 MiB, as for manifests."""
MAX_SCENARIO_NODES = 20_000
"""Values a scenario may expand to once YAML aliases are followed (an alias bomb is
refused when the file is loaded, before anything runs or is printed)."""
MAX_STEP_COUNT = _limits.MAX_STEP_COUNT
"""Largest count of a ``sync`` or ``kubelet_step`` step and largest ``max_syncs`` (the
default; ``stsedu.limits.MAX_STEP_COUNT`` is read when a file is loaded): a step that
would run longer is refused when the file is loaded."""

DEFAULT_MAX_SYNCS = 1000
"""``max_syncs`` of a ``run`` / ``settle`` step that names none (``Cluster.run``'s default)."""


def step_work(action: str, args: Mapping[str, Any]) -> int:
    """The most syncs and kubelet steps one parsed step may make (its share of
    ``stsedu.limits.MAX_SCENARIO_WORK``)."""
    if action in ("sync", "kubelet_step"):
        return args.get("count", 1)
    if action in ("run", "run_all", "settle"):
        return args.get("max_syncs", DEFAULT_MAX_SYNCS)
    if action == "advance":
        return math.ceil(args["seconds"] / _limits.ADVANCE_SECONDS_PER_WORK)
    return 0

TOP_KEYS = ("name", "title", "description", "cluster", "objects", "set", "steps")
CLUSTER_KEYS = ("kubelet", "seed", "profile", "feature_gates", "stages", "gc_delay", "informer_delay",
                "concurrent_syncs")
STEP_KEYS = ("expect", "note", "set")
EXPECT_KEYS = ("pods", "status", "decisions", "rollout_status", "pvcs", "revisions", "exists", "error")
POD_KEYS = ("name", "revision", "phase", "ready", "available", "terminating", "owner", "status", "reason",
            "restarts")
PVC_KEYS = ("name", "deleting", "owners")
STATUS_FIELDS = ("replicas", "ready_replicas", "available_replicas", "current_replicas",
                 "updated_replicas", "current_revision", "update_revision",
                 "observed_generation", "collision_count")
_CAMEL = {"readyReplicas": "ready_replicas", "availableReplicas": "available_replicas",
          "currentReplicas": "current_replicas", "updatedReplicas": "updated_replicas",
          "currentRevision": "current_revision", "updateRevision": "update_revision",
          "observedGeneration": "observed_generation", "collisionCount": "collision_count"}
PHASES = ("Pending", "Running", "Succeeded", "Failed")
EXPECTED_DECISION_ACTIONS = POD_ACTIONS + ("adopt", "release")
"""Actions an ``expect.decisions`` list is compared with (a sync's pod decisions)."""


# ================================================================== errors


class ScenarioError(ValueError):
    """A scenario file is invalid, or a step could not be carried out.

    The message names the file, the step (numbered from 1; the objects are
    step 0) and the field, for example
    ``scenarios/foo.yaml: step 3 (scale): replicas: must be an integer``.
    *source*, *step*, *action*, *field* and *problem* hold the parts.
    """

    def __init__(self, problem: str, source: str = "<scenario>", step: int | None = None,
                 action: str | None = None, field: str | None = None) -> None:
        self.source, self.step, self.action, self.field, self.problem = source, step, action, field, problem
        super().__init__(_where(source, step, action) + (f"{field}: " if field else "") + problem)


def _where(source: str, step: int | None, action: str | None) -> str:
    out = f"{source}: "
    if step is not None:
        out += f"step {step}" + (f" ({action})" if action else "") + ": "
    elif action:
        out += f"{action}: "
    return out


class BadValue(Exception):
    """Internal: a field of a scenario is wrong (turned into a ScenarioError with its place)."""

    def __init__(self, field: str | None, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


@dataclass(frozen=True)
class Failure:
    """One expectation that did not hold: where (step, field), what was expected and what was found."""

    source: str
    step: int
    action: str
    field: str
    expected: Any
    actual: Any
    detail: str = ""

    def __str__(self) -> str:
        text = f"expected {format_value(self.expected)}, got {format_value(self.actual)}"
        if self.detail:
            text += f" ({self.detail})"
        return _where(self.source, self.step, self.action) + f"{self.field}: {text}"


class ExpectationFailed(AssertionError):
    """Expectations of a scenario did not hold.  *failures* lists them; *result* is the run so far."""

    def __init__(self, failures: list[Failure], result: "RunResult") -> None:
        self.failures = list(failures)
        self.result = result
        lines = [str(f) for f in self.failures]
        super().__init__(lines[0] if len(lines) == 1 else
                         f"{len(lines)} expectations failed:\n" + "\n".join("  " + s for s in lines))


# ================================================================ records


@dataclass(frozen=True)
class Step:
    """One step of a scenario: *action* with its parsed *args*, optional *expect*, *note* and set."""

    number: int
    action: str
    args: Mapping[str, Any]
    set_name: str
    expect: Mapping[str, Any] | None = None
    note: str | None = None

    def describe(self) -> str:
        """A short line saying what the step does (``scale web to 5 replicas``)."""
        return DESCRIBE.get(self.action, lambda s: s.action)(self)


@dataclass
class StepRecord:
    """What one step did: its syncs, the trace rows it added, its error (if expected) and failures.

    *rows* maps each trace table to the ``(start, stop)`` slice of rows the
    step added.  Record 0 is the objects being applied.
    """

    step: Step
    syncs: list[SyncResult] = field(default_factory=list)
    rows: dict[str, tuple[int, int]] = field(default_factory=dict)
    start_time: float = 0.0
    end_time: float = 0.0
    error: str | None = None
    failures: list[Failure] = field(default_factory=list)
    checked: tuple[str, ...] = ()
    """The expectation keys that were checked (``("pods", "status")``)."""


@dataclass
class RunResult:
    """A finished (or stopped) run: the cluster, its trace and one record per step.

    Unpacks as ``cluster, trace = scenario.run()``.
    """

    scenario: "Scenario"
    cluster: Cluster
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def trace(self) -> Trace:
        return self.cluster.trace

    @property
    def failures(self) -> list[Failure]:
        return [f for rec in self.steps for f in rec.failures]

    @property
    def ok(self) -> bool:
        """True if every expectation held."""
        return not self.failures

    @property
    def syncs(self) -> list[SyncResult]:
        return [s for rec in self.steps for s in rec.syncs]

    def __iter__(self):
        return iter((self.cluster, self.trace))


def kind_name(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a mapping"}.get(type(v), type(v).__name__)


def no_unknown(d: Mapping, known: tuple[str, ...], source: str, step: int | None = None,
                action: str | None = None, prefix: str = "") -> None:
    for k in d:
        if k not in known:
            close = difflib.get_close_matches(str(k), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ScenarioError(f"unknown field{hint}; known: {', '.join(known)}", source, step, action,
                                f"{prefix}{k}")


def parse_cluster_options(d: Any, source: str) -> dict:
    if not isinstance(d, Mapping):
        raise ScenarioError(f"must be a mapping, not {kind_name(d)}", source, field="cluster")
    no_unknown(d, CLUSTER_KEYS, source, prefix="cluster.")
    out: dict[str, Any] = {}
    kubelet = d.get("kubelet", "auto")
    if kubelet not in ("auto", "manual"):
        raise ScenarioError(f'must be "auto" or "manual", not {kubelet!r}', source, field="cluster.kubelet")
    out["kubelet"] = kubelet
    seed = d.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError(f"must be an integer, not {kind_name(seed)}", source, field="cluster.seed")
    out["seed"] = seed
    profile = d.get("profile", "current")
    from ...api.profiles import PROFILES
    if profile not in PROFILES:
        raise ScenarioError(f"unknown profile {profile!r}; known: {', '.join(sorted(PROFILES))}", source,
                            field="cluster.profile")
    out["profile"] = profile
    gates = d.get("feature_gates") or {}
    from ...api.profiles import KNOWN_GATES
    if not isinstance(gates, Mapping):
        raise ScenarioError(f"must be a mapping of gate: true/false, not {kind_name(gates)}", source,
                            field="cluster.feature_gates")
    for g, v in gates.items():
        if g not in KNOWN_GATES:
            raise ScenarioError(f"unknown feature gate; known: {', '.join(KNOWN_GATES)}", source,
                                field=f"cluster.feature_gates.{g}")
        if not isinstance(v, bool):
            raise ScenarioError(f"must be true or false, not {kind_name(v)}", source,
                                field=f"cluster.feature_gates.{g}")
    if gates:
        out["feature_gates"] = dict(gates)
    stages = d.get("stages")
    if stages is not None:
        if not isinstance(stages, Mapping):
            raise ScenarioError(f"must be a mapping, not {kind_name(stages)}", source, field="cluster.stages")
        no_unknown(stages, ("start", "ready", "terminate", "jitter"), source, prefix="cluster.stages.")
        for k, v in stages.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise ScenarioError(f"must be a number of seconds >= 0, not {v!r}", source,
                                    field=f"cluster.stages.{k}")
        out["stages"] = dict(stages)
    if "gc_delay" in d:
        v = d["gc_delay"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ScenarioError(f"must be a number of seconds >= 0, not {v!r}", source, field="cluster.gc_delay")
        out["gc_delay"] = float(v)
    if "informer_delay" in d:
        v = d["informer_delay"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ScenarioError(f"must be a number of seconds >= 0, not {v!r}", source,
                                field="cluster.informer_delay")
        out["informer_delay"] = float(v)
    if "concurrent_syncs" in d:
        v = d["concurrent_syncs"]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ScenarioError(f"must be an integer >= 1, not {v!r}", source, field="cluster.concurrent_syncs")
        out["concurrent_syncs"] = v
    return out


def object_entry(e: Any, label: str, base: Path, source: str, step: int,
                  action: str) -> tuple[str, tuple[dict, ...]]:
    """One entry of ``objects:`` (or an ``apply`` step): a path, ``{file, patch}``, ``{yaml}`` or a manifest."""
    from ...api.load import load_documents
    patch = None
    if isinstance(e, str):
        e = {"file": e}
    if not isinstance(e, Mapping):
        raise ScenarioError(f"must be a path, a manifest or {{file: path}}, not {kind_name(e)}", source, step,
                            action, label)
    if "kind" in e or "apiVersion" in e:
        text, what = dict(e), label
    else:
        no_unknown(e, ("file", "yaml", "patch"), source, step, action, prefix=label + ".")
        patch = e.get("patch")
        if patch is not None and not isinstance(patch, Mapping):
            raise ScenarioError(f"must be a mapping (a JSON merge patch), not {kind_name(patch)}", source, step,
                                action, label + ".patch")
        if ("file" in e) == ("yaml" in e):
            raise ScenarioError("give exactly one of file (a path) or yaml (manifest text)", source, step,
                                action, label)
        if "file" in e:
            f = e["file"]
            if not isinstance(f, str):
                raise ScenarioError(f"must be a path, not {kind_name(f)}", source, step, action, label + ".file")
            try:
                p = confined_path(f, base)
                text = read_text(p, MAX_SCENARIO_BYTES, "manifest")
            except BadValue as b:
                raise ScenarioError(b.problem, source, step, action, label + ".file") from None
            what = f
        else:
            text, what = e["yaml"], label
            if not isinstance(text, str):
                raise ScenarioError(f"must be manifest text, not {kind_name(text)}", source, step, action,
                                    label + ".yaml")
    try:
        docs = load_documents(text)
    except ValidationError as err:
        raise ScenarioError(str(err), source, step, action, label) from None
    if patch is not None:
        docs = [merge_patch(d, patch) if d.get("kind") == "StatefulSet" else d for d in docs]
    return what, tuple(docs)


def confined_path(f: str, base: Path) -> Path:
    """The file a scenario's ``file:`` names: a relative path below the scenario's folder
    (no absolute path, no ``..``), or ``stsedu:NAME`` for a manifest shipped in
    ``stsedu/data``.  Raise BadValue otherwise, or if there is no such file."""
    package = f.startswith(PACKAGE_PREFIX)
    rel = f[len(PACKAGE_PREFIX):] if package else f
    root = DATA_DIR if package else base
    pure = PurePosixPath(rel.replace("\\", "/"))
    if not rel or "\0" in rel or pure.is_absolute() or PureWindowsPath(rel).drive:
        raise BadValue(None, f"must be a relative path (below the scenario's folder{' or stsedu/data' if package else ''}),"
                         f" not {rel!r}")
    if ".." in pure.parts:
        raise BadValue(None, f"must not leave the scenario's folder: '..' in {rel!r}")
    p = root / pure
    try:
        inside = p.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise BadValue(None, f"{rel!r} leads outside {'stsedu/data' if package else 'the scenario folder'}")
    if not p.is_file():
        shipped = ""
        if package:
            shipped = " (shipped: " + ", ".join(q.name for q in sorted(DATA_DIR.glob("*.yaml"))) + ")"
        raise BadValue(None, f"no such file: {p}{shipped}")
    return p


def read_text(p: Path, limit: int, kind: str = "scenario file") -> str:
    """The UTF-8 text of the regular file *p*, refusing files over *limit* bytes before
    reading them (:func:`stsedu.files.read_text`); raise BadValue with a clear problem otherwise."""
    try:
        return _files.read_text(p, _files.Limits(kind, limit))
    except _files.FileReadError as exc:
        raise BadValue(None, f"{p}: {exc}") from None


# ----------------------------------------------------------------- steps


def parse_step(raw: Any, n: int, default_set: str, base: Path, source: str) -> Step:
    if isinstance(raw, str):
        raw = {raw: None}
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"a step must be a mapping like {{scale: {{replicas: 5}}}}, not {kind_name(raw)}",
                            source, n)
    actions = [k for k in raw if k not in STEP_KEYS]
    if not actions:
        if "expect" not in raw:
            raise ScenarioError(f"no action; known actions: {', '.join(_PARSERS)}", source, n)
        action = "expect"
    elif len(actions) > 1:
        raise ScenarioError(f"one action per step, found {', '.join(map(str, actions))}", source, n)
    else:
        action = actions[0]
    if action not in _PARSERS:
        close = difflib.get_close_matches(str(action), list(_PARSERS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ScenarioError(f"unknown action {action!r}{hint}; known: {', '.join(_PARSERS)}", source, n)
    set_name = raw.get("set", default_set)
    if not isinstance(set_name, str):
        raise ScenarioError(f"must be a StatefulSet name, not {kind_name(set_name)}", source, n, action, "set")
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        raise ScenarioError(f"must be a string, not {kind_name(note)}", source, n, action, "note")
    try:
        if action == "apply":
            args = {"entries": tuple(object_entry(e, f"apply[{i}]", base, source, n, action)
                                     for i, e in enumerate(_as_list(raw["apply"])))}
        else:
            args = _PARSERS[action](raw.get(action) if action != "expect" else None)
        expect = _parse_expect(raw["expect"]) if raw.get("expect") is not None else None
    except BadValue as b:
        raise ScenarioError(b.problem, source, n, action, b.field) from None
    return Step(n, action, args, set_name, expect, note.strip() if note else None)


def _as_list(v: Any) -> list:
    return v if isinstance(v, list) else [v]


def _int(v: Any, fld: str, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadValue(fld, f"must be an integer, not {kind_name(v)}")
    if minimum is not None and v < minimum:
        raise BadValue(fld, f"must be an integer >= {minimum}, not {v}")
    return v


def _count(v: Any, fld: str) -> int:
    """A number of syncs or kubelet steps: 1 .. MAX_STEP_COUNT."""
    n = _int(v, fld, 1)
    if n > _limits.MAX_STEP_COUNT:
        raise BadValue(fld, f"must be at most {_limits.MAX_STEP_COUNT} (one step runs at most that many;"
                        f" {_limits.hint('MAX_STEP_COUNT')}), not {n}")
    return n


def _seconds(v: Any, fld: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise BadValue(fld, f"must be a number of seconds >= 0, not {v!r}")
    if not math.isfinite(v):
        raise BadValue(fld, f"must be a finite number of seconds, not {v!r}")
    if v > MAX_SECONDS:
        raise BadValue(fld, f"must be at most {MAX_SECONDS:g} seconds (about 31.7 years), not {v!r}")
    return float(v)


def _str(v: Any, fld: str) -> str:
    if not isinstance(v, str) or not v:
        raise BadValue(fld, f"must be a non-empty string, not {kind_name(v)}")
    return v


def _mapping(v: Any, fld: str | None, known: tuple[str, ...], required: tuple[str, ...] = (),
             shown: tuple[str, ...] | None = None) -> Mapping:
    if v is None:
        v = {}
    if not isinstance(v, Mapping):
        raise BadValue(fld, f"must be a mapping, not {kind_name(v)}")
    for k in v:
        if k not in known:
            close = difflib.get_close_matches(str(k), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise BadValue(k if fld is None else f"{fld}.{k}",
                       f"unknown field{hint}; known: {', '.join(shown or known)}")
    for k in required:
        if k not in v:
            raise BadValue(k if fld is None else f"{fld}.{k}", "required")
    return v


def _p_sync(v):
    if v is None or v == {}:
        return {"count": 1}
    if isinstance(v, int) and not isinstance(v, bool):
        return {"count": _count(v, "sync")}
    m = _mapping(v, None, ("count",))
    return {"count": _count(m.get("count", 1), "count")}


def _p_run(v):
    m = _mapping(v, None, ("max_syncs", "until"))
    out = {}
    if "max_syncs" in m:
        out["max_syncs"] = _count(m["max_syncs"], "max_syncs")
    if "until" in m:
        out["until"] = _seconds(m["until"], "until")
    return out


def _p_settle(v):
    m = _mapping(v, None, ("max_syncs",))
    return {"max_syncs": _count(m["max_syncs"], "max_syncs")} if "max_syncs" in m else {}


def _p_kubelet_step(v):
    if v is None or v == {}:
        return {"count": 1}
    if isinstance(v, Mapping):
        v = _mapping(v, None, ("count",)).get("count", 1)
    return {"count": _count(v, "count")}


def _p_advance(v):
    if isinstance(v, Mapping):
        m = _mapping(v, None, ("seconds",), ("seconds",))
        return {"seconds": _seconds(m["seconds"], "seconds")}
    return {"seconds": _seconds(v, "seconds")}


def _p_scale(v):
    if isinstance(v, Mapping):
        m = _mapping(v, None, ("replicas",), ("replicas",))
        return {"replicas": _int(m["replicas"], "replicas")}
    return {"replicas": _int(v, "replicas")}


def _p_patch(v):
    if not isinstance(v, Mapping) or not v:
        raise BadValue("patch", f"must be a non-empty mapping (a JSON merge patch), not {kind_name(v)}")
    return {"patch": copy.deepcopy(dict(v))}


def _p_set_image(v):
    if isinstance(v, str):
        return {"image": _str(v, "image"), "container": None}
    m = _mapping(v, None, ("image", "container"), ("image",))
    c = m.get("container")
    return {"image": _str(m["image"], "image"), "container": None if c is None else _str(c, "container")}


def _p_pods(name):
    def parse(v):
        if isinstance(v, Mapping):
            m = _mapping(v, None, ("pod",), ("pod",))
            v = m["pod"]
        pods = _as_list(v)
        if not pods:
            raise BadValue(name, "needs a pod name (or a list of them)")
        return {"pods": [_str(p, "pod" if len(pods) == 1 else f"pod[{i}]") for i, p in enumerate(pods)]}
    return parse


def _p_patch_pod(v):
    m = _mapping(v, None, ("pod", "patch"), ("pod", "patch"))
    if not isinstance(m["patch"], Mapping):
        raise BadValue("patch", f"must be a mapping (a JSON merge patch), not {kind_name(m['patch'])}")
    return {"pod": _str(m["pod"], "pod"), "patch": copy.deepcopy(dict(m["patch"]))}


def _p_delete_pod(v):
    if isinstance(v, Mapping) and "wait" in v:
        m = _mapping(v, None, ("pod", "wait"), ("pod", "wait"))
        return {**_p_pods("delete_pod")(m["pod"]), "wait": _bool(m["wait"], "wait")}
    return _p_pods("delete_pod")(v)


def _p_evict(v):
    if isinstance(v, Mapping) and "resource" in v:
        m = _mapping(v, None, ("pod", "resource"), ("pod", "resource"))
        return {**_p_pods("evict")(m["pod"]), "resource": _str(m["resource"], "resource")}
    return _p_pods("evict")(v)


def _p_pod_or_image(name, extra=()):
    def parse(v):
        m = _mapping(v, None, ("pod", "image") + extra)
        if "pod" not in m and "image" not in m:
            raise BadValue(None, f"{name} needs a pod (name) or an image")
        out = {k: _str(m[k], k) for k in ("pod", "image") if k in m}
        for k in extra:
            if k in m:
                out[k] = _seconds(m[k], k)
            else:
                raise BadValue(k, "required")
        return out
    return parse


def _p_none(name):
    def parse(v):
        _mapping(v, None, ())
        return {}
    return parse


def _p_inject_error(v):
    m = _mapping(v, None, ("verb", "kind", "count", "reason"), ("verb",))
    verb = m["verb"]
    if verb not in ("create", "update", "delete"):
        raise BadValue("verb", f"must be create, update or delete, not {verb!r}")
    kinds = ("Pod", "PersistentVolumeClaim", "ControllerRevision", "StatefulSet")
    kind = m.get("kind", "Pod")
    if kind not in kinds:
        raise BadValue("kind", f"must be one of {', '.join(kinds)}, not {kind!r}")
    out = {"verb": verb, "kind": kind, "count": _int(m.get("count", 1), "count", 1)}
    if "reason" in m:
        out["reason"] = _str(m["reason"], "reason")
    return out


def _p_rollout_undo(v):
    if v is None or v == {}:
        return {"to_revision": None}
    if isinstance(v, int) and not isinstance(v, bool):
        return {"to_revision": _int(v, "to_revision", 1)}
    m = _mapping(v, None, ("to_revision",))
    t = m.get("to_revision")
    return {"to_revision": None if t is None else _int(t, "to_revision", 1)}


def _p_delete(v):
    if isinstance(v, str):
        v = {"cascade": v}
    m = _mapping(v, None, ("cascade",))
    cascade = m.get("cascade", "background")
    if cascade not in CASCADES:
        raise BadValue("cascade", f"must be one of {', '.join(CASCADES)}, not {cascade!r}")
    return {"cascade": cascade}


_PARSERS: dict[str, Callable[[Any], dict]] = {
    "sync": _p_sync, "run": _p_run, "run_all": _p_run, "settle": _p_settle, "advance": _p_advance,
    "kubelet_step": _p_kubelet_step,
    "apply": lambda v: {}, "scale": _p_scale, "patch": _p_patch, "set_image": _p_set_image,
    "delete_pod": _p_delete_pod, "patch_pod": _p_patch_pod,
    "start": _p_pods("start"), "set_ready": _p_pods("set_ready"), "set_unready": _p_pods("set_unready"),
    "fail": _p_pods("fail"), "succeed": _p_pods("succeed"), "crash": _p_pods("crash"),
    "restart": _p_pods("restart"), "evict": _p_evict, "shut_down_node": _p_pods("shut_down_node"),
    "finish_termination": _p_pods("finish_termination"),
    "never_ready": _p_pod_or_image("never_ready"),
    "crash_loop": _p_pod_or_image("crash_loop", ("seconds",)),
    "fail_after": _p_pod_or_image("fail_after", ("seconds",)),
    "clear_behaviours": _p_none("clear_behaviours"),
    "inject_error": _p_inject_error, "rollout_undo": _p_rollout_undo, "delete": _p_delete,
    "expect": lambda v: {},
}


# ------------------------------------------------------------ expectations


def _revision_spec(v: Any, fld: str) -> int | str:
    if isinstance(v, bool) or not isinstance(v, (int, str)) or v == "":
        raise BadValue(fld, f"must be a revision number or a template image, not {kind_name(v)}")
    return v


def _bool(v: Any, fld: str) -> bool:
    if not isinstance(v, bool):
        raise BadValue(fld, f"must be true or false, not {kind_name(v)}")
    return v


def _parse_expect(v: Any) -> dict:
    m = _mapping(v, "expect", EXPECT_KEYS)
    out: dict[str, Any] = {}
    if "pods" in m:
        out["pods"] = _parse_pods(m["pods"])
    if "status" in m:
        st = _mapping(m["status"], "expect.status", STATUS_FIELDS + tuple(_CAMEL), shown=STATUS_FIELDS)
        norm = {}
        for k, val in st.items():
            key = _CAMEL.get(k, k)
            fld = f"expect.status.{k}"
            if key in ("current_revision", "update_revision"):
                norm[key] = _revision_spec(val, fld)
            else:
                norm[key] = _int(val, fld, 0)
        out["status"] = norm
    if "decisions" in m:
        ds = m["decisions"]
        if not isinstance(ds, list):
            raise BadValue("expect.decisions", f"must be a list of [action, pod, reason], not {kind_name(ds)}")
        triples = []
        for i, d in enumerate(ds):
            fld = f"expect.decisions[{i}]"
            if not isinstance(d, list) or len(d) != 3:
                raise BadValue(fld, "must be [action, pod, reason] (pod may be null)")
            action, pod, reason = d
            if action not in EXPECTED_DECISION_ACTIONS:
                raise BadValue(fld, f"action must be one of {', '.join(EXPECTED_DECISION_ACTIONS)}, "
                                f"not {action!r}")
            if pod is not None and not isinstance(pod, str):
                raise BadValue(fld, f"pod must be a pod name or null, not {kind_name(pod)}")
            triples.append((action, pod, _str(reason, fld + " reason")))
        out["decisions"] = triples
    if "rollout_status" in m:
        out["rollout_status"] = _str(m["rollout_status"], "expect.rollout_status")
    if "pvcs" in m:
        out["pvcs"] = _parse_pvcs(m["pvcs"])
    if "revisions" in m:
        rs = m["revisions"]
        if not isinstance(rs, list):
            raise BadValue("expect.revisions", f"must be a list of revision numbers, not {kind_name(rs)}")
        out["revisions"] = [_int(r, f"expect.revisions[{i}]", 1) for i, r in enumerate(rs)]
    if "exists" in m:
        out["exists"] = _bool(m["exists"], "expect.exists")
    if "error" in m:
        out["error"] = _str(m["error"], "expect.error")
    return out


def _named_items(v: Any, field: str, known: tuple[str, ...], what: str) -> list[tuple[str, dict]]:
    """(field path, mapping) for each item of a list of names or ``{name: ..., ...}`` mappings."""
    if not isinstance(v, list):
        raise BadValue(field, f"must be a list of {what}, not {kind_name(v)}")
    out = []
    for i, item in enumerate(v):
        fld = f"{field}[{i}]"
        item = dict(_mapping({"name": item} if isinstance(item, str) else item, fld, known, ("name",)))
        _str(item["name"], fld + ".name")
        out.append((fld, item))
    return out


def _parse_pods(v: Any) -> list[dict]:
    out = []
    for fld, p in _named_items(v, "expect.pods", POD_KEYS, "pods ({name: web-0, revision: 1} or names)"):
        if "revision" in p:
            _revision_spec(p["revision"], fld + ".revision")
        if "phase" in p and p["phase"] not in PHASES:
            raise BadValue(fld + ".phase", f"must be one of {', '.join(PHASES)}, not {p['phase']!r}")
        for k in ("ready", "available", "terminating"):
            if k in p:
                _bool(p[k], f"{fld}.{k}")
        if "owner" in p and p["owner"] is not None:
            _str(p["owner"], fld + ".owner")
        for k in ("status", "reason"):
            if k in p:
                _str(p[k], f"{fld}.{k}")
        if "restarts" in p:
            _int(p["restarts"], fld + ".restarts", 0)
        out.append(p)
    names = [p["name"] for p in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise BadValue("expect.pods", f"pod {sorted(dup)[0]} is listed twice")
    return out


def _parse_pvcs(v: Any) -> list[dict]:
    out = []
    for fld, c in _named_items(v, "expect.pvcs", PVC_KEYS, "claims (names or {name, deleting, owners})"):
        if "deleting" in c:
            _bool(c["deleting"], fld + ".deleting")
        if "owners" in c:
            if not isinstance(c["owners"], list):
                raise BadValue(fld + ".owners", f"must be a list of owner names, not {kind_name(c['owners'])}")
            c["owners"] = [_str(o, f"{fld}.owners[{j}]") for j, o in enumerate(c["owners"])]
        out.append(c)
    return out
