"""Scenario files: loading, validation messages, the runner, expectations, the shipped library."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import stsedu
from stsedu import scenarios
from stsedu.lessons.scenarios import ExpectationFailed, ScenarioError

LIBRARY = sorted(p.stem for p in scenarios.LIBRARY_DIR.glob("*.yaml"))
NOTEBOOK_IDEAS = ["ordered-scale-up", "blocked-scale-down", "partition-canary", "ondelete",
                  "broken-rollout", "pvc-retention", "orphan-readopt", "max-unavailable", "crash-loop", "eviction"]


def scenario(body: str, source: str = "scenarios/foo.yaml", kubelet: str = "manual") -> scenarios.Scenario:
    """A scenario on the concept page's web.yaml with the given steps YAML."""
    head = f"cluster: {{kubelet: {kubelet}}}\nobjects: [stsedu:web.yaml]\n"
    return scenarios.loads(head + textwrap.dedent(body), source=source)


# ------------------------------------------------------------------ library


@pytest.mark.parametrize("name", LIBRARY)
def test_shipped_scenario_meets_its_expectations(name):
    """Every shipped scenario runs to the end with every expectation holding (strict run raises otherwise)."""
    sc = scenarios.load(name)
    result = sc.run()
    assert result.ok
    assert sum(len(r.checked) for r in result.steps) > 0, "a shipped scenario must check something"
    assert result.steps[-1].step.number == len(sc.steps)


def test_library_has_one_scenario_per_notebook_idea_with_title_and_description():
    """library() lists every shipped file, each with a title and a description."""
    lib = scenarios.library()
    assert list(lib.columns) == ["name", "title", "description"]
    assert sorted(lib["name"]) == LIBRARY
    assert set(NOTEBOOK_IDEAS) <= set(lib["name"])
    assert (lib["title"].str.len() > 0).all() and (lib["description"].str.len() > 40).all()
    assert (lib["title"] != lib["name"]).all()


def test_load_by_name_equals_load_by_path():
    """load("partition-canary") reads the shipped file; its source reads stsedu/lessons/scenarios/library/<name>.yaml."""
    by_name = scenarios.load("partition-canary")
    by_path = scenarios.load(scenarios.LIBRARY_DIR / "partition-canary.yaml")
    assert by_name == by_path
    assert by_name.source == "stsedu/lessons/scenarios/library/partition-canary.yaml"
    assert by_name.to_text().startswith("name: partition-canary")


def test_unknown_name_suggests_the_close_one():
    with pytest.raises(ScenarioError, match=r"did you mean 'partition-canary'\?.*shipped: "):
        scenarios.load("partition-canery")


def test_scenarios_is_reachable_from_the_package():
    """Notebooks write stsedu.scenarios.load(...) after a plain `import stsedu`."""
    assert stsedu.scenarios.load is scenarios.load


# ------------------------------------------------------------ expectations


def test_wrong_expectation_names_step_field_and_difference():
    """A wrong expectation fails with the file, step number and action, the field, expected and actual."""
    text = scenarios.load("ordered-scale-up").to_text().replace(
        "decisions: [[create, web-1, missing]]", "decisions: [[create, web-2, missing]]", 1)
    sc = scenarios.loads(text, source="scenarios/bad.yaml", base=scenarios.LIBRARY_DIR)
    with pytest.raises(ExpectationFailed) as info:
        sc.run()
    msg = str(info.value)
    assert msg.startswith("scenarios/bad.yaml: step 6 (sync): expect.decisions: ")
    assert "expected [[create, web-2, missing]], got [[create, web-1, missing]]" in msg
    f, = info.value.failures
    assert (f.step, f.action, f.field) == (6, "sync", "expect.decisions")
    # the run stopped at the failing step, with the cluster as it was then
    assert len(info.value.result.steps) == 7
    assert [p.name for p in info.value.result.cluster.pods("web")] == ["web-0", "web-1"]


def test_wrong_status_and_pod_expectations_say_what_differed():
    sc = scenario("""
        steps:
          - sync: {}
          - expect:
              status: {replicas: 2}
              pods: [{name: web-0, phase: Running, revision: 2}, web-1]
    """)
    result = sc.run(strict=False)
    assert not result.ok
    got = {f.field: str(f) for f in result.failures}
    assert got["expect.status.replicas"] == ("scenarios/foo.yaml: step 2 (expect): expect.status.replicas: "
                                             "expected 2, got 0")
    assert "expected [web-0, web-1], got [web-0] (missing web-1)" in got["expect.pods"]
    assert "expect.pods.web-0.phase: expected Running, got Pending" in got["expect.pods.web-0.phase"]
    rev = scenarios.expectations._revision_of(result.cluster, result.cluster.pod("web-0").revision)
    assert rev[0] == 1
    assert got["expect.pods.web-0.revision"].endswith(
        f"expected 2, got 1 ({result.cluster.pod('web-0').revision}: registry.k8s.io/nginx-slim:0.24)")


def test_non_strict_run_goes_on_and_collects_every_failure():
    sc = scenario("""
        steps:
          - sync: {}
            expect: {decisions: [[wait, web-0, not-running-ready]]}
          - sync: {}
            expect: {decisions: [[wait, web-0, not-running-ready]]}
          - sync: {}
            expect: {pods: [web-0, web-1]}
    """)
    result = sc.run(strict=False)
    assert [f.step for f in result.failures] == [1, 3]
    assert len(result.steps) == 4 and len(result.syncs) == 3


def test_revision_given_as_image_or_number():
    """A pod's (or the status') revision can be named by its number or by its template's image."""
    sc = scenario("""
        steps:
          - sync: {}
          - set_image: {image: "nginx:2"}
          - expect:
              pods: [{name: web-0, revision: "registry.k8s.io/nginx-slim:0.24"}]
              status: {current_revision: 1, update_revision: "registry.k8s.io/nginx-slim:0.24"}
          - sync: {}
            expect:
              status: {current_revision: "registry.k8s.io/nginx-slim:0.24", update_revision: "nginx:2"}
              revisions: [1, 2]
          - expect:
              status: {updateRevision: 1}
    """)
    result = sc.run(strict=False)
    assert [(f.step, f.field) for f in result.failures] == [(5, "expect.status.update_revision")]
    assert "expected 1, got 2 (" in str(result.failures[0])


def test_decisions_before_any_sync_is_a_failure_not_a_crash():
    sc = scenario("""
        steps:
          - expect: {decisions: []}
    """)
    f, = sc.run(strict=False).failures
    assert f.actual == "no sync yet"


# ------------------------------------------------------------------- steps


def test_cluster_validation_error_in_a_step_reports_the_step():
    """The cluster's ValidationError inside a step becomes a ScenarioError naming the step."""
    sc = scenario("""
        steps:
          - sync: {}
          - scale: {replicas: -1}
    """)
    with pytest.raises(ScenarioError) as info:
        sc.run()
    assert str(info.value) == ('scenarios/foo.yaml: step 2 (scale): ValidationError: StatefulSet.apps "web" '
                               'is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    assert (info.value.step, info.value.action) == (2, "scale")


def test_expected_error_is_checked_and_the_run_goes_on_unchanged():
    """`expect: {error: ...}` turns a refused step into a lesson: the cluster is left as it was."""
    sc = scenario("""
        steps:
          - scale: {replicas: -1}
            expect:
              error: "must be greater than or equal to 0"
          - expect:
              status: {replicas: 0}
          - patch: {spec: {replicas: 2}}
            expect: {error: "this will not happen"}
    """)
    result = sc.run(strict=False)
    assert result.steps[1].error.endswith("must be greater than or equal to 0")
    assert result.cluster.statefulset("web").spec.replicas == 2
    f, = result.failures
    assert (f.step, f.field, f.actual) == (3, "expect.error", "no error")


def test_unknown_pod_in_a_step_is_reported_with_the_step():
    sc = scenario("""
        steps:
          - delete_pod: web-7
    """)
    with pytest.raises(ScenarioError, match=r'^scenarios/foo.yaml: step 1 \(delete_pod\): KeyError: pods "web-7" not found$'):
        sc.run()


def test_kubelet_steps_and_sync_count():
    """start/set_ready/set_unready/fail/finish_termination mirror cluster.kubelet; `sync: 2` syncs twice."""
    sc = scenario("""
        steps:
          - sync: 2
            expect: {decisions: [[wait, web-0, not-running-ready]]}
          - start: web-0
          - set_ready: web-0
          - advance: 11
          - sync: {}
            expect: {decisions: [[create, web-1, missing]]}
          - fail: web-0
          - sync: {}
            expect:
              decisions: [[delete, web-0, failed]]
              pods: [{name: web-0, phase: Failed, terminating: true}, {name: web-1, phase: Pending}]
          - finish_termination: web-0
          - sync: {}
            expect: {decisions: [[create, web-0, missing]]}
    """)
    result = sc.run()
    assert [len(r.syncs) for r in result.steps] == [0, 2, 0, 0, 0, 1, 0, 1, 0, 1]


def test_inject_error_stops_the_sync_like_a_failed_request():
    """inject_error: the create fails, the sync reports the error; the next sync retries."""
    sc = scenario("""
        steps:
          - inject_error: {verb: create, kind: Pod}
          - sync: {}
            expect:
              decisions: [[create, web-0, missing]]
              pods: []
          - sync: {}
            expect:
              decisions: [[create, web-0, missing]]
              pods: [web-0]
    """)
    result = sc.run()
    first, second = result.syncs
    assert first.error and "simulated failure to create Pod" in first.error
    assert [d.applied for d in first.decisions if d.action == "create"] == [False]
    assert second.error is None


def test_orphan_delete_and_apply_steps_readopt():
    """delete {cascade: orphan} leaves ownerless pods; an apply step brings the set back to adopt them."""
    sc = scenario("""
        steps:
          - run: {}
          - delete: orphan
          - advance: 5
            expect: {exists: false, pods: [{name: web-0, owner: null}, web-1, web-2]}
          - apply: stsedu:web.yaml
          - sync: {}
            expect:
              decisions: [[adopt, web-0, orphan], [adopt, web-1, orphan], [adopt, web-2, orphan]]
              pods: [{name: web-0, owner: web}, {name: web-1, owner: web}, {name: web-2, owner: web}]
    """, kubelet="auto")
    assert sc.run().ok


def test_objects_entry_patch_and_relative_file(tmp_path):
    """An objects entry may be a path relative to the scenario file, with a merge patch for the set."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "web.yaml").write_text((scenarios.DATA_DIR / "web.yaml").read_text())
    f = tmp_path / "s.yaml"
    f.write_text(textwrap.dedent("""
        cluster: {kubelet: manual}
        objects:
          - file: m/web.yaml
            patch: {spec: {replicas: 1, podManagementPolicy: Parallel}}
        steps:
          - sync: {}
            expect: {decisions: [[create, web-0, missing]], status: {observed_generation: 1}}
    """))
    result = scenarios.load(str(f)).run()
    assert result.cluster.statefulset("web").spec.pod_management_policy == "Parallel"
    assert result.scenario.name == "s" and result.scenario.source == str(f)


def test_run_returns_cluster_and_trace_and_stop_after():
    """`cluster, trace = sc.run()`; stop_after=N leaves the cluster as it is after step N."""
    sc = scenarios.load("ordered-scale-up")
    cluster, trace = sc.run(stop_after=6)
    assert isinstance(cluster, stsedu.Cluster) and trace is cluster.trace
    assert [p.name for p in cluster.pods("web")] == ["web-0", "web-1"]
    assert len(trace) == 4  # steps 1, 2, 4 and 6 are syncs


def test_same_scenario_same_trace_and_meta():
    """Reproducible: a scenario run twice gives identical trace rows; the trace names version, profile, seed."""
    a = scenarios.load("max-unavailable").run().trace
    b = scenarios.load("max-unavailable").run().trace
    assert a.rows() == b.rows()
    assert a.meta["version"] == stsedu.__version__
    assert (a.meta["profile"], a.meta["seed"], a.meta["scenario"]) == ("current", 0, "max-unavailable")


def test_profile_and_gates_reach_the_cluster():
    sc = scenarios.loads("""
cluster: {profile: v1.36, seed: 7, feature_gates: {MaxUnavailableStatefulSet: true}, stages: {ready: 5}}
objects: [stsedu:web.yaml]
""")
    c = sc.make_cluster()
    assert (c.profile.name, c.seed, c.feature_gates["MaxUnavailableStatefulSet"]) == ("v1.36", 7, True)
    assert c.kubelet.stages.ready == 5


# -------------------------------------------------------------- validation


BAD = [
    ("steps:\n  - scale: {replicas: five}\n",
     "scenarios/foo.yaml: step 1 (scale): replicas: must be an integer, not a string"),
    ("steps:\n  - sync: {}\n  - scael: {replicas: 5}\n",
     "scenarios/foo.yaml: step 2: unknown action 'scael' (did you mean 'scale'?); known: sync, run,"),
    ("steps:\n  - scale: 3\n    patch: {spec: {}}\n",
     "scenarios/foo.yaml: step 1: one action per step, found scale, patch"),
    ("steps:\n  - sync: {}\n    expect: {pod: [web-0]}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.pod: unknown field (did you mean 'pods'?)"),
    ("steps:\n  - sync: {}\n    expect: {decisions: [[create, web-0]]}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.decisions[0]: must be [action, pod, reason] (pod may be null)"),
    ("steps:\n  - sync: {}\n    expect: {decisions: [[make, web-0, missing]]}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.decisions[0]: action must be one of create, delete,"),
    ("steps:\n  - sync: {}\n    expect: {status: {replica: 3}}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.status.replica: unknown field (did you mean 'replicas'?)"),
    ("steps:\n  - sync: {}\n    expect: {status: {replicas: three}}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.status.replicas: must be an integer, not a string"),
    ("steps:\n  - sync: {}\n    expect: {pods: [{name: web-0, phase: Runing}]}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.pods[0].phase: must be one of Pending, Running"),
    ("steps:\n  - sync: {}\n    expect: {pods: [web-0, web-0]}\n",
     "scenarios/foo.yaml: step 1 (sync): expect.pods: pod web-0 is listed twice"),
    ("steps:\n  - delete_pod: 3\n",
     "scenarios/foo.yaml: step 1 (delete_pod): pod: must be a non-empty string, not an integer"),
    ("steps:\n  - inject_error: {verb: get}\n",
     "scenarios/foo.yaml: step 1 (inject_error): verb: must be create, update or delete, not 'get'"),
    ("steps:\n  - delete: {cascade: all}\n",
     "scenarios/foo.yaml: step 1 (delete): cascade: must be one of background, foreground, orphan"),
    ("steps:\n  - advance: -1\n",
     "scenarios/foo.yaml: step 1 (advance): seconds: must be a number of seconds >= 0, not -1"),
    ("steps:\n  - never_ready: {}\n",
     "scenarios/foo.yaml: step 1 (never_ready): never_ready needs a pod (name) or an image"),
    ("steps:\n  - 42\n",
     "scenarios/foo.yaml: step 1: a step must be a mapping like {scale: {replicas: 5}}, not an integer"),
    ("steps: {sync: {}}\n", "scenarios/foo.yaml: steps: must be a list of steps, not a mapping"),
    ("step:\n  - sync: {}\n", "scenarios/foo.yaml: step: unknown field (did you mean 'steps'?)"),
]


@pytest.mark.parametrize("body,message", BAD, ids=[m.split(": ", 1)[1][:40] for _, m in BAD])
def test_bad_scenario_message_names_file_step_and_field(body, message):
    with pytest.raises(ScenarioError) as info:
        scenario(body)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("head,message", [
    ("objects: [stsedu:web.yaml]\ncluster: {kubelet: robot}\n",
     "scenarios/foo.yaml: cluster.kubelet: must be \"auto\" or \"manual\", not 'robot'"),
    ("objects: [stsedu:web.yaml]\ncluster: {profile: v9}\n",
     "scenarios/foo.yaml: cluster.profile: unknown profile 'v9'; known: current, v1.16, v1.36"),
    ("objects: [stsedu:web.yaml]\ncluster: {feature_gates: {Foo: true}}\n",
     "scenarios/foo.yaml: cluster.feature_gates.Foo: unknown feature gate"),
    ("cluster: {kubelet: manual}\n", "scenarios/foo.yaml: objects: required"),
    ("objects: [nowhere/web.yaml]\n", "scenarios/foo.yaml: step 0 (objects): objects[0].file: no such file: "),
    ("objects: [{kind: Service, apiVersion: v1, metadata: {name: s}}]\n",
     "scenarios/foo.yaml: objects: no StatefulSet among the objects"),
    ("objects:\n  - yaml: 'kind: [unclosed'\n",
     "scenarios/foo.yaml: step 0 (objects): objects[0]: "),
    ("objects: [stsedu:web.yaml]\nsteps:\n  - sync: {\n", "scenarios/foo.yaml: line "),
    ("- just a list\n", "scenarios/foo.yaml: a scenario must be a mapping"),
])
def test_bad_top_level_message(head, message):
    with pytest.raises(ScenarioError) as info:
        scenarios.loads(head, source="scenarios/foo.yaml", base=Path.cwd())
    assert str(info.value).startswith(message)


def test_invalid_manifest_is_reported_at_the_objects_step():
    """A manifest the API server would refuse stops the run at step 0 with the server's message."""
    sc = scenarios.loads("objects:\n  - file: stsedu:web.yaml\n    patch: {spec: {replicas: -2}}\n",
                         source="scenarios/foo.yaml")
    with pytest.raises(ScenarioError, match=r'^scenarios/foo.yaml: step 0 \(objects\): stsedu:web.yaml: '
                                            r'StatefulSet.apps "web" is invalid: spec.replicas'):
        sc.run()


def test_settle_and_kubelet_step_play_the_manual_kubelet():
    """settle mirrors Cluster.settle (sync, move one pod a stage, repeat); kubelet_step moves one pod one stage."""
    sc = scenario("""
        objects: []
        steps:
          - sync: {}
          - kubelet_step: 1
            expect: {pods: [{name: web-0, phase: Running, ready: false}]}
          - kubelet_step: {count: 1}
            expect: {pods: [{name: web-0, ready: true}]}
          - patch: {spec: {minReadySeconds: 0}}
          - settle: {}
            expect:
              pods: [web-0, web-1, web-2]
              status: {replicas: 3, ready_replicas: 3, available_replicas: 3}
    """.replace("        objects: []\n", ""))
    result = sc.run()
    assert len(result.steps[5].syncs) > 3


def test_documented_example_runs():
    """docs/scenarios.md's full example loads and meets its expectations."""
    import re
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scenarios.md").read_text()
    example = re.search(r"<!-- full example -->\s*```yaml\n(.*?)```", doc, flags=re.S).group(1)
    result = scenarios.loads(example, source="docs/scenarios.md").run()
    assert result.ok and len(result.steps) > 5


def test_step_set_key_and_inline_objects():
    """`set:` on a step acts on another StatefulSet; objects may be inline YAML text or a manifest mapping."""
    sc = scenarios.loads(textwrap.dedent("""
        cluster: {kubelet: manual}
        objects:
          - stsedu:web.yaml
          - yaml: |
              apiVersion: apps/v1
              kind: StatefulSet
              metadata: {name: db}
              spec:
                replicas: 2
                podManagementPolicy: Parallel
                serviceName: db
                selector: {matchLabels: {app: db}}
                template:
                  metadata: {labels: {app: db}}
                  spec: {containers: [{name: db, image: "postgres:16"}]}
        set: web
        steps:
          - sync: {}
            set: db
            expect: {decisions: [[create, db-0, missing], [create, db-1, missing]], pods: [db-0, db-1]}
          - expect: {pods: []}
          - sync: {}
            expect: {decisions: [[create, web-0, missing]], pods: [web-0]}
    """), source="two.yaml")
    assert sc.set_name == "web" and sc.steps[0].set_name == "db"
    assert sc.run().ok
