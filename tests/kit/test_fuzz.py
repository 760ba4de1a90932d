"""Fuzz every public entry point and file reader (issues 21 and 32), with hypothesis.

Issue 32 added the teacher's files (exercise fields and lines, answers to every shipped
exercise, answer files of any bytes) and the actions of the Playground and the labs (a
refused action changes nothing: cluster, kubelet rules, lab state, controls).

The invariant, for every call: it either succeeds, or raises one of the errors its
docstring documents -- a :class:`stsedu.ValidationError` naming a field or an argument,
the ``KeyError`` of a missing object, the kubelet's ``ValueError`` for a pod in the wrong
state, a ``ScenarioError`` / ``ValueError`` naming the file's place -- and after a refusal
the cluster (objects, clock, queue, trace, counters) is exactly as it was.  Never a
traceback from deep inside (RecursionError, AttributeError, decimal errors, MemoryError).

The values are hostile: NaN and infinities, huge and negative integers, bools where
numbers go, strings with newlines and whitespace, nesting past every bound, wrong
containers.  Bounded to about a minute in CI (``STSEDU_HYPOTHESIS_PROFILE=ci``, the
default; ``long`` runs thousands of cases).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import stsedu
from stsedu import scenarios
from stsedu.api import load
from helpers import WEB_YAML
from test_properties import examples
from test_robustness import fresh, state

FUZZ = examples(ci=150, long=2000)

SCALARS = (st.none() | st.booleans() | st.integers(-(2 ** 64), 2 ** 64)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from(["", " ", "web\n", "web-0", "nginx", " nginx ", "-1", "50%\n", "abc", "1Gi",
                              "None", "Parallel", "OnDelete", "\x00", "é", "a" * 300])
           | st.text(max_size=12))


def _deep(value, depth):
    for _ in range(depth):
        value = [value]
    return value


VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6) | st.sampled_from(["name", "image", "cpu"]),
                                        inner, max_size=3), max_leaves=8)
HOSTILE = VALUES | st.builds(_deep, SCALARS, st.integers(90, 400))
"""Any JSON-like value, sometimes nested past the depth bound."""

WEB = load.load_documents(WEB_YAML)


def _paths(value, prefix=()):
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


WEB_PATHS = [(1, p) for p in _paths(WEB[1]) if p] + [(0, p) for p in _paths(WEB[0]) if p]
"""(document, path) of every field of the concept page's Service (0) and StatefulSet (1)."""


def _set(doc, path, value):
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def named(error: BaseException) -> bool:
    """The error says where: a ValidationError lists (field, message) pairs; others have text."""
    if isinstance(error, stsedu.ValidationError):
        return bool(error.errors) and all(isinstance(p, str) and isinstance(m, str) and m
                                          for p, m in error.errors)
    return bool(str(error))


def tried(c, call, *args, documented=(stsedu.ValidationError, KeyError), **kwargs):
    """Make the call; return (what it returned, or None when refused; what was wrong with a refusal:
    an error that names nothing, or a cluster that changed)."""
    before = state(c)
    try:
        return call(*args, **kwargs), []
    except documented as e:
        return None, ([] if named(e) else [f"unnamed error {e!r}"]) + (
            [] if state(c) == before else [f"{e!r} changed the cluster"])


def refuses_cleanly(c, call, *args, documented=(stsedu.ValidationError, KeyError), **kwargs):
    """Make the call: success, or a documented, named error that changed nothing."""
    value, problems = tried(c, call, *args, documented=documented, **kwargs)
    assert problems == []
    return value


# ----------------------------------------------------------------- manifests

@FUZZ
@given(where=st.sampled_from(WEB_PATHS), value=HOSTILE, as_text=st.booleans())
def test_apply_any_mutation_of_the_concept_page_manifest(where, value, as_text):
    """A create (a new name) or an update (the stored set or Service) of any mutation."""
    c = fresh()
    index, path = where
    doc = _set(WEB[index], path, value)
    if as_text:
        try:
            doc = json.dumps(doc, allow_nan=True)
        except (ValueError, RecursionError):
            return
    accepted, problems = tried(c, c.apply, doc)
    assert problems == []
    if accepted is not None:
        assert c.sync("web").error is None  # anything accepted syncs


@FUZZ
@given(path=st.sampled_from([p for i, p in WEB_PATHS if i == 1]), value=HOSTILE)
def test_patch_any_field(path, value):
    c = fresh()
    patch: dict = {}
    node = patch
    for key in [k for k in path if isinstance(k, str)][:-1]:
        node = node.setdefault(key, {})
    node[[k for k in path if isinstance(k, str)][-1]] = value
    accepted, problems = tried(c, c.patch, "web", patch)
    assert problems == []
    if accepted is not None:
        assert c.sync("web").error is None


@FUZZ
@given(text=st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_apply_and_patch_any_text(text):
    c = fresh()
    assert tried(c, c.apply, text)[1] == []
    assert tried(c, c.patch, "web", text)[1] == []


# --------------------------------------------------------------- other calls

CALLS = [
    ("scale", lambda c, v: c.scale("web", v)),
    ("scale-name", lambda c, v: c.scale(v, 2)),
    ("set_image", lambda c, v: c.set_image("web", v)),
    ("set_image-container", lambda c, v: c.set_image("web", "nginx:2", container=v)),
    ("patch_pod", lambda c, v: c.patch_pod("web-0", {"metadata": {"labels": {"app": v}}})),
    ("advance", lambda c, v: c.advance(v)),
    ("run-until", lambda c, v: c.run("web", max_syncs=3, until=v)),
    ("run_all-until", lambda c, v: c.run(None, max_syncs=3, until=v)),
    ("run_all-max", lambda c, v: c.run(max_syncs=v) if not isinstance(v, int) or v < 50 else None),
    ("run-max", lambda c, v: c.run("web", max_syncs=v) if not isinstance(v, int) or v < 50 else None),
    ("settle", lambda c, v: c.settle("web", max_syncs=v) if not isinstance(v, int) or v < 50 else None),
    ("inject_error", lambda c, v: c.inject_error("create", count=v)),
    ("inject_error-verb", lambda c, v: c.inject_error(v)),
    ("rollout_undo", lambda c, v: c.rollout_undo("web", to_revision=v)),
    ("delete", lambda c, v: c.delete("web", cascade=v)),
    ("delete_pod", lambda c, v: c.delete_pod(v)),
    ("delete_pvc", lambda c, v: c.delete_pvc(v)),
    ("pods", lambda c, v: c.pods(v)),
    ("pvcs", lambda c, v: c.pvcs(v)),
    ("pod", lambda c, v: c.pod(v)),
    ("statefulset", lambda c, v: c.statefulset("web", namespace=v)),
    ("services", lambda c, v: c.services(v)),
    ("revisions", lambda c, v: c.revisions(v)),
    ("rollout_status", lambda c, v: c.rollout_status(v)),
    ("preview", lambda c, v: c.preview(v)),
    ("sync", lambda c, v: c.sync(v)),
    ("kubelet.start", lambda c, v: c.kubelet.start(v)),
    ("kubelet.fail", lambda c, v: c.kubelet.fail(v)),
    ("kubelet.step", lambda c, v: c.kubelet.step(v)),
    ("kubelet.never_ready", lambda c, v: c.kubelet.never_ready(image=v)),
    ("kubelet.fail_after", lambda c, v: c.kubelet.fail_after(v, pod="web-0")),
    ("kubelet.fail_after-pod", lambda c, v: c.kubelet.fail_after(1, pod=v)),
]


@FUZZ
@given(call=st.sampled_from(CALLS), value=HOSTILE)
def test_every_call_with_any_argument(call, value):
    """The kubelet's verbs also raise a plain ValueError for a pod in the wrong state (documented)."""
    c = fresh()
    name, fn = call
    documented = (stsedu.ValidationError, KeyError) + ((ValueError,) if name.startswith("kubelet") else ())
    refuses_cleanly(c, fn, c, value, documented=documented)
    assert math.isfinite(c.now)


@FUZZ
@given(option=st.sampled_from(["kubelet", "seed", "profile", "feature_gates", "stages", "cluster_domain",
                               "gc_delay", "informer_delay", "concurrent_syncs"]), value=HOSTILE)
def test_cluster_options(option, value):
    try:
        c = stsedu.Cluster(**{option: value})
    except stsedu.ValidationError as e:
        assert named(e) and e.errors[0][0].split(".")[0].split("[")[0] == option
        return
    c.apply(WEB_YAML)
    c.run("web", max_syncs=20)
    assert math.isfinite(c.now)


# ------------------------------------------------------------------ file readers

SCENARIO = (Path(scenarios.LIBRARY_DIR) / "partition-canary.yaml").read_text()
SCENARIO_LINES = SCENARIO.splitlines()


@FUZZ
@given(line=st.integers(0, len(SCENARIO_LINES) - 1),
       replacement=st.sampled_from(["  - sync: 100000000000", "  - advance: .nan", "steps: 3", "objects: []",
                                    "  - scale: {replicas: -1}", "  - run: {max_syncs: 0}", "a: [",
                                    "  - apply: [/etc/passwd]", "  - apply: [../x.yaml]", "  - kubelet_step: .inf",
                                    "  - patch: {spec: {replicas: .inf}}", "  - delete_pod: 7", "!!python/object {}"])
       | st.text(max_size=40))
def test_scenario_text_any_line_changed(line, replacement):
    lines = list(SCENARIO_LINES)
    lines[line] = replacement
    try:
        sc = scenarios.loads("\n".join(lines), base=scenarios.LIBRARY_DIR)
    except scenarios.ScenarioError as e:
        assert named(e)
        return
    try:
        sc.run(strict=False)
    except scenarios.ScenarioError as e:  # a step the cluster refused
        assert named(e)


@FUZZ
@given(data=HOSTILE)
def test_scenario_from_any_data(data):
    try:
        sc = scenarios.from_dict(data, base=scenarios.LIBRARY_DIR)
    except scenarios.ScenarioError as e:
        assert named(e)
        return
    sc.run(strict=False)


@pytest.fixture(scope="module")
def trace_lines(tmp_path_factory):
    c = fresh()
    c.settle("web")
    c.scale("web", 2)
    c.settle("web")
    path = c.trace.save(tmp_path_factory.mktemp("trace") / "t.jsonl")
    return path.read_text().splitlines()


@FUZZ
@given(data=st.data())
def test_trace_load_any_row_changed(trace_lines, tmp_path_factory, data):
    """A malformed row is refused with its line; a row that loads never breaks the tables."""
    lines = list(trace_lines)
    i = data.draw(st.integers(0, len(lines) - 1))
    row = json.loads(lines[i])
    if data.draw(st.booleans()) and row:
        key = data.draw(st.sampled_from(sorted(row)))
        row[key] = data.draw(HOSTILE)
        try:
            lines[i] = json.dumps(row, allow_nan=True)
        except (ValueError, RecursionError):
            return
    else:
        # one line (readline splits on \n, and text mode turns \r into \n)
        lines[i] = data.draw(st.text(max_size=30)).replace("\n", " ").replace("\r", " ")
    path = tmp_path_factory.mktemp("fuzz") / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    try:
        trace = stsedu.Trace.load(path)
    except ValueError as e:
        assert str(path) in str(e) and (i == 0 or f"line {i + 1}" in str(e) or "header" in str(e)), str(e)
        return
    stsedu.tables.watch_lines(trace)
    for name in ("decisions", "pods", "status", "events", "syncs"):
        getattr(trace, name)()


@FUZZ
@given(source=HOSTILE | st.binary(max_size=100))
def test_load_documents_any_input(source):
    try:
        load.load_documents(source)
    except stsedu.ValidationError as e:
        assert named(e)
    except TypeError as e:  # documented: not text, a dict or a list of dicts
        assert str(e).startswith("load_documents:")


# ----------------------------------------------------- issue 32: the teacher's files and the labs

from stsedu import exercises as E  # noqa: E402

EXERCISE_YAML = """id: "F.1"
question: How many replicas?
why: The spec says so.
answer: {kind: pods, from: pods}
scenario:
  cluster: {kubelet: manual}
  objects: ["stsedu:web.yaml"]
  steps: [settle: {}]
hints:
  - {answer: [web-0], hint: Count again.}
"""
EXERCISE_LINES = EXERCISE_YAML.splitlines()
EXERCISE_DATA = __import__("yaml").safe_load(EXERCISE_YAML)
EXERCISE_PATHS = [p for p in _paths(EXERCISE_DATA) if p]


@FUZZ
@given(path=st.sampled_from(EXERCISE_PATHS), value=HOSTILE)
def test_exercise_with_any_field_changed(path, value):
    """Any value anywhere in an exercise file: it loads, or an ExerciseError names the file."""
    data = _set(EXERCISE_DATA, path, value)
    try:
        text = json.dumps(data, allow_nan=True)
    except (ValueError, RecursionError):
        return
    try:
        E.loads(text, source="f.yaml", register_it=False)
    except E.ExerciseError as e:
        assert str(e).startswith("f.yaml") and named(e)


@FUZZ
@given(line=st.integers(0, len(EXERCISE_LINES) - 1),
       replacement=st.text(max_size=40) | st.sampled_from(["id: *a", "id: &a [*a]", "question: [" * 30,
                                                            "scenario: ../x.yaml", "scenario: /etc/passwd",
                                                            "points: 1e999", "answer: !!python/none ''"]))
def test_exercise_text_any_line_changed(line, replacement):
    lines = list(EXERCISE_LINES)
    lines[line] = replacement
    try:
        E.loads("\n".join(lines) + "\n", source="f.yaml", register_it=False)
    except E.ExerciseError as e:
        assert str(e).startswith("f.yaml") and named(e)


ANSWER_VALUES = HOSTILE | st.sampled_from(["web-²", "web-" + "9" * 5000, "٣", "r 7", "nothing", "a"]) \
    | st.integers(-(10 ** 30), 10 ** 30) | st.lists(st.text(max_size=8), max_size=4)


@FUZZ
@given(exercise=st.sampled_from([e.id for e in E.EXERCISES]), answer=ANSWER_VALUES)
def test_any_answer_to_any_exercise_gets_feedback(exercise, answer):
    fb = E.get(exercise).check(answer, record=False)
    assert isinstance(fb.message, str) and fb.message


@FUZZ
@given(answers=st.dictionaries(st.sampled_from([e.id for e in E.EXERCISES[:6]]) | st.text(max_size=5),
                               ANSWER_VALUES, max_size=4),
       student=HOSTILE, raw=st.none() | st.text(max_size=60) | st.binary(max_size=60))
def test_grade_any_answer_file(tmp_path_factory, answers, student, raw):
    """Any answer file (JSON or not): graded or 'malformed' with a reason, never an exception."""
    p = tmp_path_factory.mktemp("g") / "s.json"
    if raw is None:
        try:
            p.write_text(json.dumps({"student": student, "answers": answers}, allow_nan=True))
        except (ValueError, RecursionError, TypeError):
            return
    else:
        p.write_bytes(raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass"))
    (result,) = E.grade([p], E.EXERCISES[:6]).results
    assert result.status in ("ok", "partial", "malformed")
    assert result.status != "malformed" or result.problem


PLAYGROUND_ACTIONS = ["set_replicas", "set_partition", "set_max_unavailable", "set_min_ready_seconds",
                      "set_strategy", "set_image", "set_policy", "set_speed", "set_kubelet_mode",
                      "ready_pod", "fail_pod", "delete_pod", "make_never_ready", "advance"]


@examples(ci=20, long=500)
@given(action=st.sampled_from(PLAYGROUND_ACTIONS), value=HOSTILE)
def test_playground_action_with_any_value(action, value):
    """A Playground action either acts or shows its error and changes nothing."""
    from test_hardening import _everything
    from stsedu.widgets import Playground
    pg = Playground(kubelet="manual")
    before = _everything(pg)
    getattr(pg, action)(value)
    if pg.last_error is not None:
        assert _everything(pg) == before


LAB_ACTIONS = [("IdentityLab", "set_start"), ("ScalingLab", "scale"), ("ScalingLab", "set_healthy"),
               ("PolicyLab", "set_policy"), ("UpdateLab", "set_strategy"), ("PartitionLab", "set_partition"),
               ("AvailabilityLab", "set_min_ready"), ("AvailabilityLab", "set_max_unavailable"),
               ("HistoryLab", "set_limit"), ("ProfileLab", "set_profile"), ("FaultLab", "fail_pod")]


@examples(ci=15, long=300)
@given(action=st.sampled_from(LAB_ACTIONS), value=HOSTILE)
def test_lab_action_with_any_value(action, value):
    from test_hardening import _everything
    from stsedu.widgets import labs
    lab = getattr(labs, action[0])()
    before = _everything(lab)
    getattr(lab, action[1])(value)
    if lab.last_error is not None:
        assert _everything(lab) == before


# ------------------------------------------------------------------ issue 44: `stsedu kubectl` command lines

_VERBS = ["get", "describe", "scale", "delete", "patch", "apply", "create", "label", "annotate", "edit",
          "rollout status", "rollout undo", "rollout history", "rollout restart", "rollout pause",
          "set image", "exec", "run", "logs", "gett", "help", "version", ""]
_TARGETS = ["sts", "sts/web", "pods", "pod/web-0", "web", "web-0", "pvc", "svc", "controllerrevisions", "nope"]
_FLAGS = ["--replicas", "--timeout", "--request-timeout", "-o", "--output", "-l", "--selector", "-f", "-p",
          "--patch-file", "--type", "--to-revision", "--revision", "--cascade", "--grace-period", "-w",
          "--wait", "--force", "--seed", "-n", "--help", "-h", "--template", "-L", "--", "--overwrite"]
_VALUES = ["3", "-1", "²", "٣", "0x1f", "99999999999999999999999", "1e999", "nan", "xyz", "1m30s",
           "99999999999999999999999h", "5s", "yaml", "json", "name", "wide", "jsonpath={..*}",
           "go-template={{range $.items}}{{range $.items}}{{.}}{{end}}{{end}}", "app=nginx",
           "a in (b,b,b)", "nginx=nginx:2", '{"spec":{"replicas":2}}', "/dev/zero", "/nonexistent.yaml", "-",
           ".", "orphan", "foreground", "true", "false", "", "'", '"', "{{", "hostname", "a-", "x=y"]


@pytest.fixture(scope="module")
def kubectl_base(tmp_path_factory):
    """A state file holding the tutorial's set, made once; each example starts from a copy of it."""
    import io
    import os
    from stsedu.console import cli
    folder = tmp_path_factory.mktemp("kubectl-fuzz")
    path = folder / "base.json"
    old = os.environ.get("STSEDU_KUBECTL_STATE")
    os.environ["STSEDU_KUBECTL_STATE"] = str(path)
    try:
        for argv in (["apply", "-f", "https://k8s.io/examples/application/web/web.yaml"], ["get", "pods"]):
            assert cli.main(argv, io.StringIO(), io.StringIO(), io.StringIO()) == 0
    finally:
        if old is None:
            del os.environ["STSEDU_KUBECTL_STATE"]
        else:
            os.environ["STSEDU_KUBECTL_STATE"] = old
    return path.read_bytes(), folder


@examples(ci=40, long=1000)
@given(verb=st.sampled_from(_VERBS), target=st.lists(st.sampled_from(_TARGETS), max_size=2),
       rest=st.lists(st.sampled_from(_FLAGS) | st.sampled_from(_VALUES)
                     | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6), max_size=6))
def test_any_kubectl_command_line(kubectl_base, verb, target, rest):
    """Random verbs, flags and values on `stsedu kubectl`: an answer with kubectl's status, never a
    traceback, in bounded time, and a refusal (non-zero status) that leaves the state file as it was
    unless the command did change the cluster (a partial apply, a rollout status that let time pass)."""
    import io
    import os
    import time
    import shlex
    from stsedu.console import cli
    base, folder = kubectl_base
    path = folder / "state.json"
    path.write_bytes(base)
    argv = verb.split() + target + rest
    old = os.environ.get("STSEDU_KUBECTL_STATE")
    os.environ["STSEDU_KUBECTL_STATE"] = str(path)
    out, err = io.StringIO(), io.StringIO()
    t = time.monotonic()
    try:
        status = cli.main(argv, out, err, io.StringIO("apiVersion: v1\nkind: Service\n"))
    finally:
        if old is None:
            del os.environ["STSEDU_KUBECTL_STATE"]
        else:
            os.environ["STSEDU_KUBECTL_STATE"] = old
    assert time.monotonic() - t < 20, argv
    text = out.getvalue() + err.getvalue()
    assert status in (0, 1, 2, 126, 127), (argv, text)
    assert "Traceback" not in text and "could not carry out" not in text, (argv, text)
    if status != 0 and argv[:1] != ["reset"] and path.read_bytes() != base:
        # kept only if the command changed the cluster: run it again on the session the base file keeps
        path.write_bytes(base)
        s = cli.load_session(path)
        body = "apiVersion: v1\nkind: Service\n" if cli.reads_stdin(argv) else None
        assert s.run(shlex.join(argv), body).changed, (argv, text)
