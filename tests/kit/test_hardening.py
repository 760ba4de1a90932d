"""Hardening (issues 21 and 32): one test per class of input that used to escape as a traceback, hang,
or be accepted where a real API server refuses it.

1. whole-string matching (Go's regexp), 2. finite numbers, 3. nesting depth, 4. wrong Python
types to public calls, 5. memory bounded by the pods that exist, 6. Trace.load on malformed
files, 7. scenario files and the CLI, 8. the real API server's answers (docs/validation.md,
"Matching the real API server").  Every refusal leaves the cluster exactly as it was.
"""

from __future__ import annotations

import copy
import errno
import json
import math
import tracemalloc
from pathlib import Path

import pytest

import stsedu
from stsedu import scenarios
from stsedu.__main__ import EXIT_INVALID_SCENARIO, EXIT_OUTPUT_ERROR, main
from stsedu.api import formats, load
from helpers import WEB_YAML
from test_robustness import fresh, state


def web_set(name="web", replicas=1, image="nginx", grace=None, policy="OrderedReady", **container):
    spec = {"containers": [{"name": "c", "image": image, **container}]}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "serviceName": name, "podManagementPolicy": policy,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def refused(c, call, *args, **kwargs) -> stsedu.ValidationError:
    """Make a call that must be refused with a ValidationError; the cluster must not change."""
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        call(*args, **kwargs)
    assert state(c) == before
    assert info.value.errors, "a refusal names its field or argument"
    return info.value


# ------------------------------------------------------- 1. whole-string matching

@pytest.mark.parametrize("check, value", [
    (formats.is_dns1123_label, "web\n"), (formats.is_dns1123_subdomain, "example.com\n"),
    (formats.is_dns1035_label, "nginx\n"), (formats.is_qualified_name, "app\n"),
    (formats.is_valid_label_value, "web\n"), (formats.is_valid_percent, "50%\n"),
    (formats.is_valid_port_name, "web\n"),
])
def test_whole_string_matching(check, value):
    """Go's regexp anchors ^...$ to the whole string: a value with a final newline is refused."""
    assert check(value.rstrip("\n")) == []
    assert check(value) != []


def test_newline_in_name_and_percent_is_a_field_error_not_a_crash():
    c = fresh()
    e = refused(c, c.apply, web_set(name="web\n"))
    assert e.errors[0][0] == "metadata.name"
    e = refused(c, c.patch, "web", {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "50%\n"}}}})
    assert {p for p, _ in e.errors} == {"spec.updateStrategy.rollingUpdate.maxUnavailable"}


# ------------------------------------------------------------- 2. finite numbers

@pytest.mark.parametrize("text, path", [
    ("cpu: .nan", "spec.template.spec.containers[0].resources.limits.cpu"),
    ("cpu: .inf", "spec.template.spec.containers[0].resources.limits.cpu"),
    ("cpu: -.inf", "spec.template.spec.containers[0].resources.limits.cpu"),
])
def test_non_finite_numbers_in_text(text, path):
    c = fresh()
    manifest = WEB_YAML.split("---")[-1].replace("        image:", f"        resources: {{limits: {{{text}}}}}\n"
                                                                  "        image:", 1)
    assert text in manifest
    e = refused(c, c.apply, manifest)
    assert e.errors[0][0] == path and "finite" in e.errors[0][1]


def test_non_finite_numbers_in_python_data_patches_and_calls():
    c = fresh()
    assert refused(c, c.patch, "web", {"spec": {"replicas": math.nan}}).errors[0][0] == "spec.replicas"
    assert refused(c, c.apply, web_set(name="db", replicas=math.inf)).errors[0][0] == "spec.replicas"
    for bad in (math.inf, math.nan, True, "5"):
        refused(c, c.kubelet.fail_after, bad, pod="web-0")
        refused(c, c.advance, bad)
    with pytest.raises(ValueError):
        c.clock.advance_to(math.inf)
    with pytest.raises(ValueError):
        c.clock.schedule(math.nan, lambda: None)
    assert math.isfinite(c.now)


# --------------------------------------------------------------- 3. nesting depth

DEEP = 600


@pytest.mark.parametrize("source", [
    "a: " + "[" * DEEP + "]" * DEEP,
    '{"apiVersion": "v1", "kind": "X", "a": ' + "[" * DEEP + "]" * DEEP + "}",
    "a:\n" + "".join("  " * i + "- \n" for i in range(1, 200)),
])
def test_nesting_depth_in_text(source):
    c = fresh()
    e = refused(c, c.apply, source)
    assert "max depth" in str(e) and "line" in str(e)
    refused(c, c.patch, "web", source)


def test_nesting_depth_in_python_data_and_cycles():
    c = fresh()
    deep: dict = {}
    node = deep
    for _ in range(DEEP):
        node["a"] = {}
        node = node["a"]
    doc = web_set(name="db")
    doc["spec"]["template"]["metadata"]["annotations"] = deep
    assert "max depth" in str(refused(c, c.apply, doc))
    cyclic = web_set(name="db")
    cyclic["spec"]["self"] = cyclic
    assert "max depth" in str(refused(c, c.apply, cyclic))
    assert "max depth" in str(refused(c, c.patch, "web", {"metadata": deep}))


def test_nesting_depth_in_scenarios_and_traces(tmp_path):
    with pytest.raises(scenarios.ScenarioError, match="max depth"):
        scenarios.loads("objects: [stsedu:web.yaml]\nsteps: " + "[" * DEEP + "]" * DEEP)
    t = tmp_path / "t.jsonl"
    stsedu.Cluster().trace.save(t)
    with t.open("a") as f:
        f.write("[" * 100000 + "]" * 100000 + "\n")
    with pytest.raises(ValueError, match="line 2"):
        stsedu.Trace.load(t)


# ------------------------------------------------------------ 4. wrong Python types

NAMED = ["statefulset", "pod", "service", "sync", "preview", "run", "settle", "scale", "delete_pod",
         "delete_pvc", "delete", "rollout_undo", "rollout_status", "rollout_history", "revisions"]


@pytest.mark.parametrize("method, bad", [(m, b) for m in NAMED for b in (5, None, ["web"], b"web")
                                         if (m, b) != ("run", None)])  # run(None): the whole controller
def test_every_named_call_checks_its_name(method, bad):
    c = fresh()
    args = (bad, 1) if method == "scale" else (bad,)
    e = refused(c, getattr(c, method), *args)
    assert e.errors[0][0] in ("name", "set_name")


@pytest.mark.parametrize("verb", ["start", "set_ready", "set_unready", "fail", "succeed", "crash",
                                  "finish_termination"])
def test_every_kubelet_verb_checks_its_pod(verb):
    c = fresh()
    for bad in (5, None, ["web-0"], {"name": "web-0"}):
        assert refused(c, getattr(c.kubelet, verb), bad).errors[0][0] == "pod"
    assert refused(c, getattr(c.kubelet, verb), "web-0", namespace=3).errors[0][0] == "namespace"


def test_listing_calls_check_their_filters():
    c = fresh()
    assert refused(c, c.pvcs, 5).errors[0][0] == "set_name"
    assert refused(c, c.pods, namespace=None).errors[0][0] == "namespace"
    assert refused(c, c.statefulsets, namespace=1).errors[0][0] == "namespace"
    assert refused(c, c.kubelet.never_ready, image=["x"]).errors[0][0] == "image"
    with pytest.raises(KeyError):  # the documented error of a missing object stays
        c.pod("web-9")


# ------------------------------------------- 5. memory follows the pods, not replicas

@pytest.mark.parametrize("profile", ["current", "v1.16"])
def test_max_int32_replicas_cost_memory_for_the_pods_that_exist(profile):
    """replicas: 2147483647 is valid (as upstream); a sync allocates for the pods that exist
    and the work it does (one create), not per replica slot (which was 2**31 slots)."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(web_set(replicas=3))
    c.settle("web")
    tracemalloc.start()
    try:
        c.scale("web", 2147483647)
        for _ in range(3):
            c.sync("web")
            c.kubelet.step()
            c.kubelet.step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000
    assert c.statefulset("web").spec.replicas == 2147483647
    assert [p.name for p in c.pods("web")][:4] == ["web-0", "web-1", "web-2", "web-3"]


# --------------------------------------------------------------- 6. Trace.load

GOOD_POD_ROW = {"table": "pods", "sync": 1, "time": 0.0, "pod": "web-0", "set": "web", "ordinal": 0,
                "event": "created", "phase": "Pending", "ready": False, "terminating": False,
                "revision": "web-1", "cause": "sync 1: create (missing)", "restarts": 0, "containers": 1}


@pytest.mark.parametrize("line, message", [
    ("not json", "line 2: not JSON"),
    ("[1, 2]", "line 2: a row must be a JSON object"),
    (json.dumps({**GOOD_POD_ROW, "table": "nodes"}), "line 2: unknown table \"nodes\""),
    (json.dumps({**GOOD_POD_ROW, "ready": "yes"}), "line 2: pods.ready: Invalid value"),
    (json.dumps({**GOOD_POD_ROW, "ordinal": "0"}), "line 2: pods.ordinal"),
    (json.dumps({**GOOD_POD_ROW, "time": None}), "line 2: pods.time"),
    (json.dumps(GOOD_POD_ROW).replace('"time": 0.0', '"time": NaN'), "line 2: pods.time"),
    (json.dumps({**GOOD_POD_ROW, "event": "exploded"}), "line 2: pods.event: Unsupported value"),
    (json.dumps({**GOOD_POD_ROW, "sync": True}), "line 2: pods.sync"),
    # issue 32, class 13: Python refuses ints of over 4300 digits; the error names the line
    (json.dumps(GOOD_POD_ROW).replace('"sync": 1', '"sync": ' + "9" * 5000), "line 2: not a trace row"),
])
def test_trace_load_names_the_line_and_column(tmp_path, line, message):
    path = stsedu.Cluster().trace.save(tmp_path / "t.jsonl")
    with path.open("a") as f:
        f.write(line + "\n")
    with pytest.raises(ValueError) as info:
        stsedu.Trace.load(path)
    assert message in str(info.value)


@pytest.mark.parametrize("header", [
    {"format": "stsedu-trace", "format_version": "1"},
    {"format": "stsedu-trace", "format_version": 1, "sync": -1},
    {"format": "stsedu-trace", "format_version": 1, "time": "soon"},
    {"format": "stsedu-trace", "format_version": 1, "meta": [1]},
])
def test_trace_load_checks_the_header(tmp_path, header):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(ValueError, match="header"):
        stsedu.Trace.load(path)


def test_trace_load_refuses_a_directory_and_binary(tmp_path):
    with pytest.raises(ValueError, match="directory"):
        stsedu.Trace.load(tmp_path)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"format": "stsedu-trace"}\n\xff\xfe\n')
    with pytest.raises(ValueError, match="UTF-8"):
        stsedu.Trace.load(path)


def test_a_loaded_trace_builds_its_tables(tmp_path):
    c = fresh()
    c.settle("web")
    path = c.trace.save(tmp_path / "t.jsonl")
    with path.open("a") as f:
        f.write(json.dumps({**GOOD_POD_ROW, "set": None, "revision": None, "time": 99}) + "\n")
    loaded = stsedu.Trace.load(path)
    assert stsedu.tables.watch_lines(loaded)


# ------------------------------------------------------ 7. scenario files and the CLI

def scenario_file(tmp_path, body, name="s.yaml"):
    p = tmp_path / name
    p.write_text(body)
    return p


def cli(*argv, capsys=None):
    import io
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


@pytest.mark.parametrize("step, field", [
    ("sync: 100000000000", "sync"), ("sync: {count: 100001}", "count"),
    ("run: {max_syncs: 10000000}", "max_syncs"), ("settle: {max_syncs: 10000000}", "max_syncs"),
    ("kubelet_step: 100000000000", "count"), ("advance: .inf", "advance"),
])
def test_step_counts_and_seconds_are_bounded(step, field):
    with pytest.raises(scenarios.ScenarioError) as info:
        scenarios.loads(f"cluster: {{kubelet: manual}}\nobjects: [stsedu:web.yaml]\nsteps:\n  - {step}\n")
    assert field in str(info.value)


def test_alias_bomb_is_refused_before_anything_runs_or_prints(tmp_path, capsys):
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join(["*a" if i == 1 else f"*a{i - 1}"] * 10) + "]")
    body = "\n".join(lines) + "\nobjects: [stsedu:web.yaml]\nsteps:\n  - scale: *a8\n"
    p = scenario_file(tmp_path, body)
    code, text = cli("run", str(p))
    assert code == EXIT_INVALID_SCENARIO and text == ""
    assert "excessive aliasing" in capsys.readouterr().err


def test_scenario_and_manifest_files_are_size_capped(tmp_path, capsys):
    big = scenario_file(tmp_path, "# " + "x" * (1 << 20) + "\nobjects: [stsedu:web.yaml]\n")
    assert cli("run", str(big))[0] == EXIT_INVALID_SCENARIO
    assert "over the limit" in capsys.readouterr().err
    scenario_file(tmp_path, "# " + "x" * (1 << 20) + "\n", name="big-manifest.yaml")
    p = scenario_file(tmp_path, "objects: [big-manifest.yaml]\n", name="uses-big.yaml")
    with pytest.raises(scenarios.ScenarioError, match="over the limit"):
        scenarios.load(p)


@pytest.mark.parametrize("entry, problem", [
    ("/etc/passwd", "must be a relative path"),
    ("../outside.yaml", "'..'"),
    ("sub/../../outside.yaml", "'..'"),
    ("stsedu:../scenarios/library/partition-canary.yaml", "'..'"),
    ("stsedu:/etc/passwd", "must be a relative path"),
    ("link.yaml", "leads outside"),
])
def test_file_paths_are_confined(tmp_path, entry, problem):
    folder = tmp_path / "sc"
    folder.mkdir()
    (tmp_path / "outside.yaml").write_text(WEB_YAML)
    (folder / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    p = scenario_file(folder, f"objects: [{json.dumps(entry)}]\n")
    with pytest.raises(scenarios.ScenarioError) as info:
        scenarios.load(p)
    assert problem in str(info.value) and "objects[0].file" in str(info.value)


def test_file_paths_inside_the_folder_still_load(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "web.yaml").write_text(WEB_YAML)
    p = scenario_file(tmp_path, "objects: [m/web.yaml]\nsteps: [sync]\n")
    assert scenarios.load(p).set_name == "web"


RUN = "cluster: {kubelet: manual}\nobjects: [stsedu:web.yaml]\nsteps:\n  - sync: 2\n"


def test_trace_file_errors_have_their_own_exit_status(tmp_path, capsys):
    p = scenario_file(tmp_path, RUN)
    assert cli("run", str(p), "-q", "--trace", str(tmp_path))[0] == EXIT_OUTPUT_ERROR
    assert "is a directory" in capsys.readouterr().err
    assert cli("run", str(p), "-q", "--trace", str(tmp_path / "no" / "t.jsonl"))[0] == EXIT_OUTPUT_ERROR
    assert "no such folder" in capsys.readouterr().err
    before = p.read_text()
    assert cli("run", str(p), "-q", "--trace", str(p), "--force")[0] == EXIT_OUTPUT_ERROR
    assert "is the scenario being run" in capsys.readouterr().err and p.read_text() == before
    existing = tmp_path / "old.jsonl"
    existing.write_text("keep me\n")
    assert cli("run", str(p), "-q", "--trace", str(existing))[0] == EXIT_OUTPUT_ERROR
    assert "--force" in capsys.readouterr().err and existing.read_text() == "keep me\n"
    code, text = cli("run", str(p), "-q", "--trace", str(existing), "--force")
    assert code == 0 and len(stsedu.Trace.load(existing)) == 2


def test_a_full_device_is_a_clear_error_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    p = scenario_file(tmp_path, RUN)
    target = tmp_path / "t.jsonl"

    def full(self, path):
        with open(path, "w") as f:
            f.write("half")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(stsedu.Trace, "save", full)
    assert cli("run", str(p), "-q", "--trace", str(target))[0] == EXIT_OUTPUT_ERROR
    assert "No space left on device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [p]


# ---------------------------------------------------- 8. the real API server's answers

def test_negative_grace_period(tmp_path):
    """GetWarningsForPodTemplate warns; CheckGracefulDelete turns the negative period into 1 s."""
    c = stsedu.Cluster()
    c.apply(web_set(grace=-5))
    assert c.last_warnings == ["spec.template.spec.terminationGracePeriodSeconds: must be >= 0; "
                               "negative values are invalid and will be treated as 1"]
    c.run("web")
    c.delete_pod("web-0", wait=False)
    assert c.pod("web-0").terminating
    c.advance(0.9)
    assert c.pod("web-0").terminating
    c.advance(0.2)
    assert "web-0" not in [p.name for p in c.pods("web") if p.terminating]


def test_image_with_whitespace(tmp_path):
    """Valid in a template; the pod create fails: a FailedCreate, no pod."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web_set(image=" nginx"))
    result = c.sync("web")
    assert c.pods("web") == []
    assert "spec.containers[0].image: Invalid value: \" nginx\": must not have leading or trailing whitespace" \
        in result.error
    events = c.trace.events()
    assert (events["reason"] == "FailedCreate").sum() == 1


def test_service_update_is_validated_as_an_update():
    c = fresh()
    e = refused(c, c.apply, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nginx"},
                             "spec": {"clusterIP": "10.96.0.10", "ports": [{"port": 80, "name": "web"}],
                                      "selector": {"app": "nginx"}}})
    # validateUpgradeDowngradeClusterIPs (v1.36, v1.37): the headless Service's "None" may not change
    assert e.errors == [("spec.clusterIPs[0]", 'Invalid value: ["10.96.0.10"]: may not change once set')]
    e = refused(c, c.apply, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
                             "spec": {"type": "NodePort", "clusterIP": "None",
                                      "ports": [{"port": 80, "name": "web"}]}})
    assert e.errors[0][0] == "spec.clusterIPs[0]"
    e = refused(c, c.apply, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
                             "spec": {"type": "ExternalName"}})
    assert e.errors == [("spec.externalName", "Required value")]


@pytest.mark.parametrize("patch, path", [
    ({"status": 3}, "status"),
    ({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "x",
                                                      "resources": {"limits": [1]}}]}}}},
     "spec.template.spec.containers[0].resources.limits"),
    ({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "x",
                                                      "resources": {"requests": {"cpu": "-1"}}}]}}}},
     "spec.template.spec.containers[0].resources.requests[cpu]"),
    ({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "x",
                                                      "resources": {"requests": {"memory": "2Gi"},
                                                                    "limits": {"memory": "1Gi"}}}]}}}},
     "spec.template.spec.containers[0].resources.requests"),
    ({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "x",
                                                      "livenessProbe": {"exec": "true"}}]}}}},
     "spec.template.spec.containers[0].livenessProbe.exec"),
])
def test_decoded_and_validated_below_the_simulated_levels(patch, path):
    c = fresh()
    assert path in [p for p, _ in refused(c, c.patch, "web", patch).errors]


# =====================================================================================
# Issue 32: the teacher's files, the labs' actions and bounded work.  One section per
# class of the issue; every case failed (a traceback, a hang, a changed state) before.
# =====================================================================================

from stsedu import exercises as E  # noqa: E402
from stsedu import files  # noqa: E402

EXERCISE = """id: "T.1"
question: How many replicas?
why: The spec says so.
answer: {kind: number, from: status, field: replicas}
scenario:
  cluster: {kubelet: manual}
  objects: ["stsedu:web.yaml"]
  steps: [settle: {}]
"""


def alias_bomb(levels=9, width=9):
    """A YAML value that expands to width**levels scalars (9**9: 387 million)."""
    value = "&a0 [" + ", ".join(["lol"] * width) + "]"
    for i in range(1, levels + 1):
        value = f"&a{i} [" + ", ".join([value] + [f"*a{i - 1}"] * (width - 1)) + "]"
    return value


def deep_flow(n=5000):
    return "[" * n + "]" * n


def run_bounded(fn, seconds=15.0, megabytes=200):
    """Call *fn*; its work must stay within *seconds* of this process's CPU and *megabytes* allocated
    (its budget).  CPU, not wall time: a bound on work holds however busy the machine is (a cold CI
    run, its Go builds first, made these take 14-35 s of wall time)."""
    import time
    tracemalloc.start()
    t0 = time.process_time()
    try:
        return fn()
    finally:
        elapsed = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert elapsed < seconds, f"took {elapsed:.1f} s of CPU"
        assert peak < megabytes << 20, f"used {peak >> 20} MB"


# --------------------------------------------------- 1. the exercise-file reader


@pytest.mark.parametrize("text, problem", [
    (EXERCISE.replace('id: "T.1"', "id: " + alias_bomb()), "line 1: more than 20000 values once YAML"
                                                           " aliases are followed"),
    (EXERCISE + "hints: " + alias_bomb() + "\n", "line 9: more than 20000 values"),
    (EXERCISE.replace("question: How many replicas?", "question: " + deep_flow()),
     "line 2: not valid YAML: exceeded max depth of 100 levels"),
    (EXERCISE.replace("question: How many replicas?", "question:\n" + "".join(
        " " * (i + 1) + "- \n" for i in range(300))), "exceeded max depth of 100 levels"),
    (EXERCISE + "#" + "x" * (5 << 20) + "\n", "over the limit of 1048576 bytes (1 MiB) for an exercise file"),
])
def test_exercise_files_are_read_within_their_limits(tmp_path, text, problem):
    p = tmp_path / "bomb.yaml"
    p.write_text(text)
    with pytest.raises(E.ExerciseError) as info:
        run_bounded(lambda: E.load(p, register_them=False))
    assert problem in str(info.value) and str(p) in str(info.value)
    with pytest.raises(E.ExerciseError):
        run_bounded(lambda: E.loads(text, register_it=False))
    code, _ = cli("exercise", "check", str(p))
    assert code == 2


def test_exercise_file_reader_refuses_devices_folders_and_binary(tmp_path):
    (tmp_path / "bin.yaml").write_bytes(b"id: \xff\xfe\n")
    from stsedu.lessons.exercises.exercise import load_file
    for path, problem in [("/dev/zero", "not a regular file"), (tmp_path, "is a folder"),
                          (tmp_path / "bin.yaml", r"line 1: not UTF-8 text \(byte 4\)")]:
        with pytest.raises(E.ExerciseError, match=problem):
            run_bounded(lambda: load_file(path), megabytes=20)
    with pytest.raises(E.ExerciseError, match="not UTF-8"):
        E.load(tmp_path, register_them=False)


def test_exercises_loads_names_the_expected_type():
    with pytest.raises(TypeError, match=r"text must be YAML text \(str\), not int"):
        E.loads(5)


def test_a_valid_exercise_with_aliases_still_loads_and_names_lines(tmp_path):
    text = EXERCISE.replace("steps: [settle: {}]", "steps: [settle: &s {}, sync, settle: *s]") + \
        "points: x\n"
    with pytest.raises(E.ExerciseError, match=r"line 9: points"):
        E.loads(text, register_it=False)
    assert E.loads(EXERCISE, register_it=False).expected() == 3


# ----------------------------------------- 2. an exercise's scenario: is a scenario file


@pytest.mark.parametrize("name, content, problem", [
    ("../outside.yaml", None, "must not leave the exercise's folder: '..'"),
    ("ABS", None, "must be a relative path (below the exercise's folder)"),
    ("big.yaml", "objects: [stsedu:web.yaml]\n#" + "x" * (3 << 20), "over the limit of 1048576 bytes (1 MiB)"
                                                                     " for a scenario file"),
    ("rand.yaml", bytes(range(128, 256)) * 8, "not UTF-8 text"),
    ("deep.yaml", "objects: " + deep_flow(), "exceeded max depth of 100 levels"),
    ("bomb.yaml", "objects: [stsedu:web.yaml]\nsteps: " + alias_bomb(), "excessive aliasing"),
    ("missing.yaml", None, "no such file"),
])
def test_an_exercises_scenario_path_follows_the_scenario_file_rules(tmp_path, name, content, problem):
    (tmp_path / "outside.yaml").write_text("objects: [stsedu:web.yaml]\n")
    folder = tmp_path / "ex"
    folder.mkdir()
    if name == "ABS":
        name = str(tmp_path / "outside.yaml")
    if content is not None:
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    p = folder / "t.yaml"
    p.write_text(EXERCISE.split("scenario:")[0] + f"scenario: {json.dumps(name)}\n")
    with pytest.raises(E.ExerciseError) as info:
        run_bounded(lambda: E.load(p, register_them=False))
    assert problem in str(info.value) and "line 5: scenario" in str(info.value)


def test_an_exercises_scenario_path_inside_its_folder_and_shipped_names_still_work(tmp_path):
    (tmp_path / "sc").mkdir()
    (tmp_path / "sc" / "lesson.yaml").write_text("cluster: {kubelet: manual}\nobjects: [stsedu:web.yaml]\n"
                                                 "steps: [settle: {}]\n")
    head = EXERCISE.split("scenario:")[0]
    (tmp_path / "t.yaml").write_text(head + "scenario: sc/lesson.yaml\n")
    assert E.load(tmp_path / "t.yaml", register_them=False)[0].expected() == 3
    (tmp_path / "u.yaml").write_text(head.replace("T.1", "T.2") + "scenario: first-statefulset\n")
    assert E.load(tmp_path / "u.yaml", register_them=False)[0].expected() >= 1


# ------------------------------------------------------- 3. answers that crashed the checker


@pytest.mark.parametrize("exercise_id, answer, says", [
    ("06.1", ["web-²"], "the digits 0-9"),             # "²".isdigit(), but int("²") fails
    ("06.1", "web-², web-1", "the digits 0-9"),
    ("06.1", ["web-" + "1" * 5000], "not quite"),
    ("02.1", 10 ** 5000, "at most 18 digits"),         # past Python's int-to-text limit
    ("02.1", "1" * 5000, "at most 18 digits"),
    ("02.1", "٣", "write a whole number"),             # a Unicode digit is not a number here
    ("02.1", float("inf"), "write a whole number"),
], ids=["superscript", "superscript-text", "long-ordinal", "huge-int", "huge-int-text", "arabic-digit", "inf"])
def test_hostile_answers_get_feedback_not_a_traceback(exercise_id, answer, says):
    fb = E.get(exercise_id).check(answer, record=False)
    assert not fb.ok and says in fb.message


def test_grade_never_raises_for_a_hostile_answer(tmp_path):
    p = tmp_path / "ada.json"
    p.write_text(json.dumps({"student": "Ada", "answers": {"06.1": ["web-²"], "02.1": "9" * 50}}))
    g = E.grade([p])
    (r,) = g.results
    assert r.status != "malformed" and r.points["06.1"] == 0 and "unreadable answer" in r.notes["02.1"]
    code, text = cli("grade", str(p))
    assert code == 0 and "Ada" in text


# ----------------------------------------------------------- 4. the answer-file reader


@pytest.mark.parametrize("content, problem", [
    ('{"answers": {"x": ' + deep_flow(100_000) + "}}", "line 1: nested deeper than 100 levels"),
    ('{"answers": {"02.1": ' + "1" * 5000 + "}}", "a number with more than 100 digits"),
    ('{"answers":\n {"x": "' + "a" * (2 << 20) + '"}}', "over the limit of 1048576 bytes (1 MiB)"
                                                       " for an answer file"),
    (b'{"answers": {"x": "\xff"}}', "not UTF-8 text"),
    ('{"answers": [', "not JSON (line 1"),
])
def test_answer_files_are_read_within_their_limits(tmp_path, content, problem):
    p = tmp_path / "s.json"
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match=re_escape(problem)):
        run_bounded(lambda: E.load_answers(p))
    code, text = run_bounded(lambda: cli("grade", str(p)))
    assert code == 1 and f"{p}: cannot grade: " in text and problem in text   # graded nothing: status 1


def test_grade_refuses_a_device_without_reading_it():
    code, text = run_bounded(lambda: cli("grade", "/dev/zero"), megabytes=50)
    assert "/dev/zero: cannot grade: is not a regular file" in text
    assert "cannot read it" not in text          # the reader's own reason, not wrapped again


def re_escape(text):
    import re
    return re.escape(text)


# ------------------------------------------- 5. save_answers never replaces a non-answer file


@pytest.fixture
def one_answer():
    saved = dict(E.current_sheet().answers)
    E.get("02.1").check(3)
    yield
    E.current_sheet().answers.clear()
    E.current_sheet().answers.update(saved)


@pytest.mark.parametrize("content", ['{"cells": [], "nbformat": 4}', "id: T.1\n", "", "\x00\xff"])
def test_save_answers_refuses_to_overwrite_what_is_not_an_answer_file(tmp_path, one_answer, content):
    p = tmp_path / "13-Exercises.ipynb"
    p.write_bytes(content.encode("latin-1"))
    message = E.save_answers(p)
    assert message.startswith(f"Not saved: {p} exists and is not an answer file")
    assert p.read_bytes() == content.encode("latin-1")


def test_save_answers_checks_the_student_and_writes_what_the_grader_reads(tmp_path, one_answer):
    p = tmp_path / "a.json"
    with pytest.raises(TypeError, match="save_answers: student must be a string"):
        E.save_answers(p, student={"a": 1})
    assert not p.exists()
    assert E.save_answers(p, student="Ada").startswith("Saved")
    assert E.save_answers(p).startswith("Saved")            # an answer file: merged and replaced
    (r,) = E.grade([p]).results
    assert r.student == "Ada" and r.points["02.1"] == 1
    for bad in (tmp_path, tmp_path / "no" / "a.json"):
        assert E.save_answers(bad).startswith("Not saved: ")


# --------------------------------------------------- 6. every teacher CLI output, one helper


def _outputs(tmp_path):
    (tmp_path / "afile").write_text("x")
    sheet = tmp_path / "ok.json"
    sheet.write_text(json.dumps({"student": "Ada", "answers": {"02.1": 3}}))
    return {"folder": (str(tmp_path), "is a folder"),
            "missing": (str(tmp_path / "no" / "x.out"), "no such folder"),
            "parent-is-file": (str(tmp_path / "afile" / "x.out"), "is a file, not a folder"),
            "input": (str(sheet), "is one of the input files")}


COMMANDS = {
    "grade": lambda t, out: ["grade", str(t / "ok.json"), "--ids", "02.1", "--out", out],
    "key": lambda t, out: ["exercise", "key", "--ids", "02.1", "--out", out],
    "nbgrader": lambda t, out: ["nbgrader", "--ids", "02.1", "--out", out],
}


@pytest.mark.parametrize("command, case", [(c, k) for c in COMMANDS for k in ("folder", "missing", "parent-is-file")]
                         + [("grade", "input")])   # only grade reads files
def test_teacher_outputs_refused_with_one_line_before_any_work(tmp_path, capsys, command, case):
    out, problem = _outputs(tmp_path)[case]
    if command == "nbgrader" and case == "missing":
        out, problem = str(tmp_path / "afile" / "ps1" / "ps1.ipynb"), "is a file, not a folder"
    if command != "nbgrader" or case != "folder":
        out = out if not out.endswith("x.out") else out.replace("x.out", "x.html")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, text = cli(*COMMANDS[command](tmp_path, out))
    err = capsys.readouterr().err
    assert code == EXIT_OUTPUT_ERROR and text == ""
    assert err.count("\n") == 1 and err.startswith(f"error: --out {out}: ") and problem in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_teacher_outputs_that_can_be_written_are_whole(tmp_path):
    csv_path = tmp_path / "scores.csv"
    csv_path.write_text("old")
    _outputs(tmp_path)
    assert cli(*COMMANDS["grade"](tmp_path, str(csv_path)))[0] == 0
    assert csv_path.read_text().startswith("student,file,source,status,policy,02.1")
    # (nbgrader's assessed source takes only the teacher's own exercises: tests/lessons/test_nbgrader.py writes one)
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []


def test_a_write_that_fails_leaves_the_old_file(tmp_path, capsys, monkeypatch):
    import os as _os
    _outputs(tmp_path)
    csv_path = tmp_path / "scores.csv"
    csv_path.write_text("old")

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(_os, "replace", full)
    code, _ = cli(*COMMANDS["grade"](tmp_path, str(csv_path)))
    assert code == EXIT_OUTPUT_ERROR and "No space left on device" in capsys.readouterr().err
    assert csv_path.read_text() == "old" and [p.name for p in tmp_path.glob(".*tmp")] == []


def test_a_closed_pipe_is_quiet(capsys):
    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
    from stsedu.__main__ import EXIT_BROKEN_PIPE
    for argv in (["exercise", "list"], ["list"], ["run", "first-statefulset"]):
        assert main(argv, out=ClosedPipe()) == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


# ------------------------------------ 7-8. lab and Playground actions: validate, then act


def _everything(obj):
    """A lab's or the Playground's cluster, kubelet rules and stages, own state and controls."""
    import ipywidgets as W
    c = obj.cluster
    k = c.kubelet
    controls = {name: w.value for name, w in vars(obj).items() if isinstance(w, W.ValueWidget)
                and not isinstance(w, (W.HTML, W.Output))}
    own = {name: getattr(obj, name) for name in ("profile", "name", "_speed", "_healthy", "never_ready_images",
                                                 "_image_choices") if hasattr(obj, name)}
    return {"cluster": state(c), "c": id(c), "never": (set(k._never_ready_pods), set(k._never_ready_images),
                                                      dict(k._crash_after)),
            "stages": k.stages, "controls": controls, "own": copy.deepcopy(own)}


LAB_REFUSALS = [
    ("IdentityLab", "set_start", (-1,)), ("IdentityLab", "set_start", ("x",)), ("IdentityLab", "scale", (-1,)),
    ("StorageLab", "set_retention", ("Bogus",)), ("StorageLab", "recreate", ()),
    ("ScalingLab", "scale", (float("nan"),)), ("ScalingLab", "set_healthy", ("no",)),
    ("PolicyLab", "set_policy", ("Random",)), ("PolicyLab", "set_policy", (7,)),
    ("UpdateLab", "set_strategy", ("Bogus",)), ("UpdateLab", "set_image", ("",)),
    ("PartitionLab", "set_partition", (-1,)), ("OwnershipLab", "delete_set", ("bogus",)),
    ("AvailabilityLab", "set_min_ready", (-1,)), ("AvailabilityLab", "set_max_unavailable", (0,)),
    ("FaultLab", "fail_pod", ("web-9",)), ("FaultLab", "delete_pod", ("web-9",)),
    ("HistoryLab", "set_limit", ("ten",)), ("ProfileLab", "set_profile", ("v1.99",)),
]


@pytest.mark.parametrize("lab_name, method, args", LAB_REFUSALS,
                         ids=[f"{a}.{b}{c!r}" for a, b, c in LAB_REFUSALS])
def test_a_refused_lab_action_changes_nothing(lab_name, method, args):
    from stsedu.widgets import labs
    lab = getattr(labs, lab_name)()
    before = _everything(lab)
    out = getattr(lab, method)(*args)
    assert out == [] and lab.last_error is not None
    assert _everything(lab) == before


def test_scaling_lab_health_rule_survives_scale_to_zero():
    from stsedu.widgets.labs import ScalingLab
    lab = ScalingLab()
    lab.scale(0)
    lab.set_healthy(False)
    assert lab.last_error is None and lab.w_healthy.value is False
    lab.scale(3)
    assert [(p.name, p.ready) for p in lab.cluster.pods()] == [("web-0", False)]
    lab.set_healthy(True)
    assert [p.ready for p in lab.cluster.pods()] == [True, True, True]


def test_policy_lab_same_or_default_policy_keeps_the_set():
    from stsedu.widgets.labs import PolicyLab
    lab = PolicyLab()
    uid = lab._sts().uid
    assert lab.set_policy("OrderedReady") == [] and lab.set_policy(None) == [] and lab._sts().uid == uid
    lab.set_policy("Parallel")
    assert lab.last_error is None and lab._sts().spec.pod_management_policy == "Parallel"
    assert all(p.controller_ref.uid == lab._sts().uid for p in lab.cluster.pods())   # adopted again


PLAYGROUND_REFUSALS = [
    ("set_replicas", (-1,)), ("set_replicas", ("x",)), ("set_partition", (-1,)),
    ("set_max_unavailable", (0,)), ("set_min_ready_seconds", (float("inf"),)), ("set_strategy", ("Bogus",)),
    ("set_image", ("",)), ("set_policy", ("Random",)), ("set_speed", (3,)),
    ("set_speed", (float("nan"),)), ("set_speed", (True,)), ("set_kubelet_mode", ("both",)),
    ("ready_pod", ("web-9",)), ("fail_pod", ("web-9",)), ("delete_pod", ("web-9",)),
    ("finish_termination", ("web-0",)), ("make_never_ready", ("",)), ("advance", (-1,)),
    ("advance", (float("nan"),)),
]


@pytest.mark.parametrize("method, args", PLAYGROUND_REFUSALS,
                         ids=[f"{a}{b!r}" for a, b in PLAYGROUND_REFUSALS])
def test_a_refused_playground_action_changes_nothing(method, args):
    from stsedu.widgets import Playground
    pg = Playground()
    before = _everything(pg)
    getattr(pg, method)(*args)
    assert pg.last_error is not None
    assert _everything(pg) == before


def test_playground_same_or_default_policy_is_a_no_op():
    from stsedu.widgets import Playground
    pg = Playground()
    uid = pg._sts().uid
    for policy in ("OrderedReady", None):
        pg.set_policy(policy)
        assert pg.last_error is None and pg._sts().uid == uid and "nothing to change" in pg.info.value


# ----------------------------- 9-10. list arguments and wrong types name the argument


def test_a_bare_string_where_a_list_goes_is_one_item(tmp_path):
    from stsedu.lessons.compare import compare
    from stsedu.widgets import Playground
    from stsedu.widgets.labs import IdentityLab
    pg = Playground(images="nginx:2")
    assert "nginx:2" in pg._image_choices and "n" not in pg._image_choices
    p = tmp_path / "ada.json"
    p.write_text(json.dumps({"student": "Ada", "answers": {"02.1": 3}}))
    assert [r.student for r in E.grade(str(p)).results] == ["Ada"]
    assert [e.id for e in E.select("02.1")] == ["02.1"]
    assert IdentityLab(views="pods").views == ("pods",)
    cmp = compare([], status_fields="replicas")
    assert cmp.status_fields == ("replicas",)
    with pytest.raises(ValueError, match=r"unknown status field\(s\) \['bogus'\]"):
        compare([], status_fields="bogus")


@pytest.mark.parametrize("call, message", [
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(max_replicas="x"),
     "max_replicas must be an integer or None, not str"),
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(max_syncs=0),
     "max_syncs must be at least 1"),
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(images=5),
     "images must be a list of image names, not int"),
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(images=[1]),
     "images must be a list of image names"),
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(controls=3),
     "controls must be a list of controls names, not int"),
    (lambda: __import__("stsedu.widgets.labs", fromlist=["IdentityLab"]).IdentityLab(chart="bogus"),
     "chart must be one of timeline, revisions, counters, strip, not 'bogus'"),
    (lambda: __import__("stsedu.widgets.labs", fromlist=["IdentityLab"]).IdentityLab(views=3),
     "views must be a list of view names, not int"),
    (lambda: __import__("stsedu.widgets", fromlist=["Playground"]).Playground(views=[["pods"]]),
     "unknown view ['pods']"),        # was a TypeError: unhashable type (outside fuzzing round)
    (lambda: E.loads(5), "text must be YAML text (str), not int"),
    (lambda: E.select(ids=5), "ids must be a list of exercise ids, not int"),
    (lambda: E.grade(5), "submissions must be a list of answer file paths, not int"),
    (lambda: __import__("stsedu.lessons.compare", fromlist=["compare"]).compare([], status_fields={"a": 1}),
     "status_fields must be a list of status field names, not a dict"),
])
def test_wrong_types_name_the_argument(call, message):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert message in str(info.value)


def test_sync_stepper_select_names_its_argument():
    from stsedu.widgets import Playground, SyncStepper
    st_ = SyncStepper(Playground())
    with pytest.raises(TypeError, match="index must be an integer, not str"):
        st_.select("x")
    st_.select(2.0)


# ------------------------------------------------------- 11. finite times that overflow


@pytest.mark.parametrize("stages", [{"start": 1e308, "ready": 1e308}, {"terminate": 1e10}, {"jitter": 2e9}])
def test_stage_delays_are_bounded_so_the_clock_stays_finite(stages):
    with pytest.raises(stsedu.ValidationError) as info:
        stsedu.Cluster(stages=stages)
    assert all(f"stages.{k}" in str(info.value) for k in stages)
    assert "must be less than or equal to 1e+09" in str(info.value)


def test_advance_past_the_clocks_limit_names_seconds_and_changes_nothing():
    c = fresh()
    for seconds in (1e308, 1e308 / 2):
        err = refused(c, c.advance, seconds)
        assert err.errors[0][0] == "seconds"
    c = stsedu.Cluster()
    for _ in range(1000):
        c.advance(10 ** 9)
    err = refused(c, c.advance, 1)
    assert "seconds" in str(err) and "1e+12" in str(err)
    with pytest.raises(stsedu.ValidationError, match="until"):
        c.run(until=1e300)


def test_a_slow_kubelet_within_bounds_runs_to_the_end():
    c = stsedu.Cluster(stages={"start": 1e9, "ready": 1e9})
    c.apply(WEB_YAML)
    c.run("web")
    assert c.statefulset("web").status.ready_replicas == 3 and math.isfinite(c.now)


# --------------------------------------------------------- 12. a budget on total work


def test_a_scenario_asking_for_too_much_work_is_refused_when_loaded():
    from stsedu import limits
    body = "objects: [stsedu:web.yaml]\nsteps:\n" + "  - sync: 10000\n" * 2000
    with pytest.raises(scenarios.ScenarioError) as info:
        run_bounded(lambda: scenarios.loads(body), seconds=10)
    assert "step 11 (sync)" in str(info.value) and "stsedu.limits.MAX_SCENARIO_WORK" in str(info.value)
    with pytest.raises(scenarios.ScenarioError, match=r"sync: must be at most 10000 .*MAX_STEP_COUNT"):
        scenarios.loads("objects: [stsedu:web.yaml]\nsteps:\n  - sync: 100000\n")
    with pytest.raises(scenarios.ScenarioError, match="budget of 100000"):
        scenarios.loads("objects: [stsedu:web.yaml]\nsteps:\n" + "  - run: {}\n" * 101)
    assert len(scenarios.loads("objects: [stsedu:web.yaml]\nsteps:\n" + "  - run: {}\n" * 100).steps) == 100
    old = limits.MAX_SCENARIO_WORK
    try:
        limits.MAX_SCENARIO_WORK = 10 ** 6
        assert len(scenarios.loads("objects: [stsedu:web.yaml]\nsteps:\n" + "  - run: {}\n" * 101).steps) == 101
    finally:
        limits.MAX_SCENARIO_WORK = old


def test_run_and_settle_bound_max_syncs_per_call():
    c = fresh()
    for call in (c.run, c.settle):
        err = refused(c, call, "web", max_syncs=10 ** 9)
        assert "max_syncs" in str(err) and "stsedu.limits.MAX_SYNCS_PER_CALL" in str(err)


def parallel_set(replicas):
    m = web_set(replicas=replicas, policy="Parallel")
    return m


@pytest.mark.parametrize("profile", ["current", "v1.16"])
def test_one_sync_creates_at_most_the_budget_then_throttles(profile):
    from stsedu import limits
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(parallel_set(2 ** 31 - 1))
    r = run_bounded(lambda: c.sync("web"), seconds=20, megabytes=150)
    created = [d for d in r.decisions if d.action == "create" and d.applied]
    assert len(created) == limits.MAX_PODS_PER_SYNC == len(c.pods("web"))
    assert "TooManyRequests" in r.error and "stsedu.limits.MAX_PODS_PER_SYNC" in r.error
    assert any(e for e in c.trace.rows()["events"] if "TooManyRequests" in e[5])


def test_a_set_within_the_budget_still_comes_up_in_one_sync():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(parallel_set(40))
    r = c.sync("web")
    assert r.error is None and len(c.pods("web")) == 40


def test_a_set_over_the_budget_comes_up_over_several_syncs():
    from stsedu import limits
    old = limits.MAX_PODS_PER_SYNC
    limits.MAX_PODS_PER_SYNC = 5
    try:
        c = stsedu.Cluster()
        c.apply(parallel_set(12))
        c.run("web")
        assert c.statefulset("web").status.ready_replicas == 12
        assert sum(1 for s in c.trace.rows()["syncs"] if s[-1] and "TooManyRequests" in s[-1]) >= 2
    finally:
        limits.MAX_PODS_PER_SYNC = old


# ------------------- every reader: a file under its size cap stays within a time/memory budget


def _big_yaml_steps(n):
    return "objects: [stsedu:web.yaml]\nsteps:\n" + "  - {sync: 1, expect: {pods: 3}}\n" * n


@pytest.mark.parametrize("kind", ["manifest", "scenario", "exercise", "answers", "trace"])
@pytest.mark.parametrize("shape", ["many-values", "alias-bomb", "deep"])
def test_each_reader_stays_within_its_budget_for_a_file_under_its_cap(tmp_path, kind, shape):
    """Just under 1 MiB of many small values, an alias bomb, 100,000 levels of nesting:
    each reader refuses (or reads) it in a few seconds and under 200 MB, with its own error."""
    big = (1 << 20) - 4096
    if kind == "manifest":
        head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n"
        text = {"many-values": head + "".join(f"  k{i}: v\n" for i in range(big // 10)),
                "alias-bomb": head + "  a: " + alias_bomb() + "\n",
                "deep": head + "  a: " + deep_flow(100_000)[:big - 100] + "\n"}[shape][:big]
        call, errors = (lambda: load.load_documents(text)), stsedu.ValidationError
    elif kind in ("scenario", "exercise"):
        text = {"many-values": _big_yaml_steps(big // 34),
                "alias-bomb": "objects: [stsedu:web.yaml]\nsteps: " + alias_bomb() + "\n",
                "deep": "objects: " + deep_flow(100_000) + "\n"}[shape]
        if kind == "exercise":
            text = EXERCISE.split("scenario:")[0] + "scenario:\n  " + text.replace("\n", "\n  ")
        p = tmp_path / "f.yaml"
        p.write_text(text[:big])
        call = (lambda: scenarios.load(p)) if kind == "scenario" else (lambda: E.load(p, register_them=False))
        errors = scenarios.ScenarioError if kind == "scenario" else E.ExerciseError
    elif kind == "answers":
        text = {"many-values": '{"answers": {"x": [' + ",".join(["1"] * (big // 2 - 20)) + "]}}",
                "alias-bomb": '{"answers": {"x": ' + "[" * 99 + "]" * 99 + "}}",
                "deep": '{"answers": ' + deep_flow(100_000) + "}"}[shape]
        p = tmp_path / "a.json"
        p.write_text(text)
        call, errors = (lambda: E.load_answers(p)), ValueError
    else:
        path = stsedu.Cluster().trace.save(tmp_path / "t.jsonl")
        row = {"many-values": json.dumps([1] * (big // 2 - 10)), "alias-bomb": json.dumps(GOOD_POD_ROW),
               "deep": deep_flow(100_000)}[shape]
        with path.open("a") as f:
            f.write(row + "\n")
        call, errors = (lambda: stsedu.Trace.load(path)), ValueError
    try:
        run_bounded(call, seconds=15, megabytes=200)   # (tracemalloc makes it about 3x slower)
    except errors as e:
        assert "Traceback" not in str(e) and len(str(e)) < 2000


# ------------------------------------------------ 14. the pod template, as ValidatePodSpec checks it


@pytest.mark.parametrize("spec, container, path", [
    ({"priorityClassName": "Bad_PC"}, {}, "spec.template.spec.priorityClassName"),  # ValidatePriorityClassName
    ({}, {"readinessProbe": {"periodSeconds": -1, "tcpSocket": {"port": 80}}},      # validateProbe
     "spec.template.spec.containers[0].readinessProbe.periodSeconds"),
    ({}, {"livenessProbe": {"successThreshold": 3, "exec": {"command": ["true"]}}},  # validateLivenessProbe
     "spec.template.spec.containers[0].livenessProbe.successThreshold"),
    ({}, {"startupProbe": {"failureThreshold": 1}},                                 # validateHandler
     "spec.template.spec.containers[0].startupProbe"),
    ({}, {"readinessProbe": {"tcpSocket": {"port": 0}}},                            # ValidatePortNumOrName
     "spec.template.spec.containers[0].readinessProbe.tcpSocket.port"),
])
def test_pod_template_fields_checked_as_validate_pod_spec_does(spec, container, path):
    c = fresh()
    m = web_set(name="db", **container)
    m["spec"]["template"]["spec"].update(spec)
    err = refused(c, c.apply, m)
    assert [p for p, _ in err.errors] == [path]


def test_template_hostname_and_subdomain_are_not_validated():
    """ValidateStatefulSetSpec blanks the template's hostname and subdomain before validating it:
    the controller overwrites them (initIdentity), so kube-apiserver v1.37 accepts bad ones
    (tests/live/test_live_validation.py checks it against the real server)."""
    c = fresh()
    m = web_set(name="db")
    m["spec"]["template"]["spec"].update({"hostname": "Bad_Host", "subdomain": "Bad_Sub"})
    c.apply(m)
    assert c.statefulset("db").spec.template["spec"]["hostname"] == "Bad_Host"


def test_scheduler_name_is_not_validated_upstream():
    c = stsedu.Cluster()
    m = web_set(name="db")
    m["spec"]["template"]["spec"]["schedulerName"] = "Bad name"
    c.apply(m)
    assert c.statefulset("db").spec.template["spec"]["schedulerName"] == "Bad name"


def test_an_unhashable_answer_source_is_an_exercise_error():
    """Found by tests/kit/test_fuzz.py: ``from: []`` was looked up in a dict (TypeError)."""
    with pytest.raises(E.ExerciseError, match=r"line 4: answer.from: where the simulator's answer is read"):
        E.loads(EXERCISE.replace("from: status", "from: []"), register_it=False)


def test_names_the_file_system_refuses_are_one_line_errors(tmp_path):
    """Found by the outside fuzzing round: a name too long for the file system escaped as OSError."""
    long = str(tmp_path / ("a" * 5000))
    with pytest.raises(E.ExerciseError, match="File name too long"):
        E.select(paths=long)
    assert "File name too long" in E.grade([long]).results[0].problem
    assert E.save_answers(long + ".json").startswith("Not saved:") if E.current_sheet().answers else True
    with pytest.raises(files.OutputError, match="File name too long"):
        files.check_output(long + ".csv", "--out")


def test_a_cluster_holds_at_most_max_pods_as_a_quota_would():
    """Found by the outside fuzzing round: 500 pods per sync, sync after sync, grew without end."""
    from stsedu import limits
    old = limits.MAX_PODS
    limits.MAX_PODS = 30
    try:
        c = stsedu.Cluster(kubelet="manual")
        c.apply(parallel_set(2 ** 31 - 1))
        for _ in range(3):
            r = c.sync("web")
        assert len(c.pods()) == 30 and "exceeded quota" in r.error and "stsedu.limits.MAX_PODS" in r.error
    finally:
        limits.MAX_PODS = old
