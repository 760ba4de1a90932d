"""Bad input never corrupts a cluster; same seed and same calls give the same trace.

* Every row of docs/validation.md's "calls" table is one refused call: the test
  makes the call and compares the error (type, field paths, messages) with the
  row, and the whole cluster state before and after.
* The manifest tables (create, update, service, loading) are replayed through
  ``cluster.apply`` / ``cluster.patch``: same errors, nothing changed.
* Multi-document manifests, unknown-field warnings, YAML safety.
* hypothesis feeds ``apply``, ``patch``, ``patch_pod`` and ``scale`` random input:
  anything refused is a ValidationError and changes nothing; anything accepted
  can be synced.
* Determinism: two runs with the same seed and the same calls give equal
  DataFrames; another seed (with jitter) gives another trace.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from pandas.testing import assert_frame_equal

import stsedu
from stsedu.api import load
from helpers import WEB_YAML, web
from invariants import SyncChecker
from test_manifests import doc_tables, merge_patch
from test_properties import examples

DOC = Path(__file__).resolve().parents[2] / "docs" / "validation.md"
_CALL_ROW = re.compile(r"^\| (\d+) \| `(.*)` \| (\w+) \| (—|`(.*)`) \| (.*) \|$")
ERRORS = {"ValidationError": stsedu.ValidationError, "KeyError": KeyError, "TypeError": TypeError,
          "ValueError": ValueError}
FUZZ = examples(ci=60, long=3000)


# ------------------------------------------------------------------ helpers

def fresh() -> stsedu.Cluster:
    """The docs' cluster: manual kubelet, the concept page's nginx + web applied, one sync."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(WEB_YAML)
    c.sync("web")
    return c


def busy() -> stsedu.Cluster:
    """An auto cluster with history: pods at two revisions, a pending error, events scheduled."""
    c = stsedu.Cluster(seed=3, stages={"jitter": 0.5})
    c.apply(WEB_YAML)
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web", max_syncs=3)
    c.inject_error("delete", "Pod", after=5)
    c.kubelet.crash("web-0")
    return c


def state(c: stsedu.Cluster) -> dict:
    """Everything a call could change: objects, clock and its queue, trace rows, errors, warnings, counters."""
    return {"dump": c.dump(), "rows": c.trace.rows(), "sync": c.trace.sync, "time": c.trace.time,
            "pending": c.clock.pending(), "faults": c.pending_errors(), "warnings": list(c.last_warnings),
            "skipped": list(c.last_skipped), "rv": c.store._rv, "uids": c.store._uids,
            "rng": c.kubelet._rng.getstate()}


def _target(c, func):
    if isinstance(func, ast.Name):
        return stsedu.Cluster if func.id == "Cluster" else getattr(c, func.id)
    return getattr(_target(c, func.value), func.attr)


def call(c: stsedu.Cluster, source: str):
    """Run a call written as in the docs (``scale("web", -1)``); arguments are Python literals."""
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call), source
    args = [ast.literal_eval(a) for a in node.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    return _target(c, node.func)(*args, **kwargs)


def calls_table() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """[(call, error type, [(path, message)])] from docs/validation.md's calls table."""
    rows: dict[tuple[str, str], list] = {}
    inside = False
    for line in DOC.read_text().splitlines():
        if line.strip() == "<!-- table: calls -->":
            inside = True
            continue
        if inside and not line.startswith("|"):
            if rows:
                break
            continue
        m = _CALL_ROW.match(line) if inside else None
        if m:
            rows.setdefault((m.group(2), m.group(3)), []).append((m.group(5) or "", m.group(6)))
    return [(src, err, expected) for (src, err), expected in rows.items()]


CALLS = calls_table()


def refuse(c, source, error, expected):
    """Make the call; check the error it raises against the table's rows."""
    with pytest.raises(ERRORS[error]) as info:
        call(c, source)
    e = info.value
    assert type(e) is ERRORS[error] or (error == "ValidationError" and isinstance(e, stsedu.ValidationError))
    if isinstance(e, stsedu.ValidationError):
        assert e.errors == expected
        assert isinstance(e, ValueError)
    else:
        assert [("", e.args[0] if isinstance(e, KeyError) else str(e))] == expected
    return e


# ----------------------------------------------------------- the calls table

def test_calls_table_covers_every_call_that_can_refuse():
    """The table has rows for the constructor and every user call that checks its input."""
    called = {re.match(r"[\w.]+", src).group(0) for src, _, _ in CALLS}
    assert called >= {"Cluster", "apply", "scale", "patch", "set_image", "delete_pod", "patch_pod", "delete",
                      "rollout_undo", "inject_error", "advance", "run", "sync", "kubelet.start"}
    assert len(CALLS) >= 55


@pytest.mark.parametrize("source, error, expected", CALLS, ids=[src[:60] for src, _, _ in CALLS])
def test_docs_calls_table(source, error, expected):
    """Each row of the calls table: the call raises exactly that error, and the cluster is unchanged."""
    c = fresh()
    before = state(c)
    refuse(c, source, error, expected)
    assert state(c) == before


# rows refused only in the docs' cluster: `busy` has two revisions, and its web-0 is Running
FRESH_ONLY = ('rollout_undo("web")', 'kubelet.set_ready("web-0")', 'kubelet.restart("web-0")')
BUSY = [row for row in CALLS if not row[0].startswith("Cluster(") and row[0] not in FRESH_ONLY]


@pytest.mark.parametrize("source, error, expected", BUSY, ids=[src[:60] for src, _, _ in BUSY])
def test_refused_calls_leave_a_busy_cluster_as_it_was(source, error, expected):
    """The same refused calls on a cluster in the middle of a rollout, with events scheduled and an
    injected error pending: objects, clock, queue, trace rows, errors and warnings stay the same."""
    c = busy()
    before = state(c)
    with pytest.raises(ERRORS[error]):
        call(c, source)
    assert state(c) == before


# ------------------------------------------- the manifest tables, through the cluster

def _table(name):
    """The refused inputs of a table of docs/validation.md (rows the API server accepts,
    path ``—`` and message ``Accepted...``, are checked by test_manifests.py)."""
    groups: dict[str, list] = {}
    for source, path, message in doc_tables()[name]:
        groups.setdefault(source, []).append((path, message))
    return [(source, rows) for source, rows in groups.items() if not rows[0][1].startswith("Accepted")]


def _web_docs():
    return load.load_documents(WEB_YAML)


@pytest.mark.parametrize("source, expected", _table("create"))
def test_apply_refuses_every_create_row_and_changes_nothing(source, expected):
    """cluster.apply gives the create table's errors for a new set, and stores nothing (not even the Service)."""
    nginx, sts = _web_docs()
    c = stsedu.Cluster(kubelet="manual")
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply([nginx, merge_patch(sts, json.loads(source))])
    assert info.value.errors == expected
    assert state(c) == before


@pytest.mark.parametrize("source, expected", _table("update"))
def test_patch_refuses_every_update_row_and_changes_nothing(source, expected):
    """cluster.patch gives the update table's errors for the stored set, and changes nothing."""
    c = fresh()
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        c.patch("web", json.loads(source))
    assert info.value.errors == expected
    assert state(c) == before


@pytest.mark.parametrize("source, expected", _table("service"))
def test_apply_refuses_every_service_row_and_changes_nothing(source, expected):
    """cluster.apply gives the service table's errors, and stores nothing."""
    nginx, _ = _web_docs()
    c = stsedu.Cluster(kubelet="manual")
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(merge_patch(nginx, json.loads(source)))
    assert info.value.errors == expected
    assert state(c) == before


@pytest.mark.parametrize("source, expected", _table("loading"))
def test_apply_refuses_every_loading_row_and_changes_nothing(source, expected):
    """cluster.apply gives the loading table's errors for text it cannot read."""
    c = fresh()
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(json.loads(source))
    assert info.value.errors == expected
    assert state(c) == before


# ------------------------------------------------------------ multi-document apply

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}


def test_apply_stores_statefulsets_and_services_and_reports_other_kinds(manual_cluster):
    """kubectl apply -f with a ConfigMap among the documents: the Service and the set are stored, the
    ConfigMap is skipped and reported in last_skipped, last_warnings and a Warning event."""
    c = manual_cluster
    nginx, sts = _web_docs()
    stored = c.apply([CONFIGMAP, nginx, sts])
    assert stored.name == "web" and c.service("nginx").name == "nginx"
    assert c.last_skipped == [("ConfigMap", "cfg")]
    assert c.last_warnings == ['skipped ConfigMap "cfg": no matches for kind "ConfigMap" in version "v1" '
                               "(stsedu simulates StatefulSet and Service objects only)"]
    ev = c.trace.events()
    assert list(ev[ev.reason == "Skipped"].object) == ["configmap/cfg"]
    assert set(c.store.dump()) == {"StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision",
                                   "Service"}


def test_apply_with_one_invalid_document_stores_nothing(manual_cluster):
    """A valid Service and an invalid set: neither is stored; the error is the set's."""
    c = manual_cluster
    nginx, sts = _web_docs()
    bad = merge_patch(sts, {"spec": {"replicas": -1}})
    before = state(c)
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply([nginx, bad])
    assert (info.value.kind, info.value.name) == ("StatefulSet.apps", "web")
    assert info.value.errors == [("spec.replicas", "Invalid value: -1: must be greater than or equal to 0")]
    assert state(c) == before


def test_apply_reports_every_invalid_document(manual_cluster):
    """Two invalid documents: the error lists the first one's problems, .others the second's, and the
    text has one line per document, as kubectl prints them."""
    c = manual_cluster
    nginx, sts = _web_docs()
    bad_svc = merge_patch(nginx, {"spec": {"type": "Headless"}})
    bad_sts = merge_patch(sts, {"spec": {"podManagementPolicy": "Sequential"}})
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply([bad_svc, bad_sts])
    e = info.value
    assert (e.kind, e.name) == ("Service", "nginx")
    assert [(o.kind, o.name, o.errors[0][0]) for o in e.others] == [
        ("StatefulSet.apps", "web", "spec.podManagementPolicy")]
    assert str(e).splitlines()[1].startswith('StatefulSet.apps "web" is invalid: spec.podManagementPolicy')


def test_apply_twice_the_same_name_in_one_manifest_is_an_update(manual_cluster):
    """A later document with the same name updates the earlier one (generation 2); an immutable change
    between them is refused as an update, and then nothing is stored."""
    c = manual_cluster
    c.apply([web(3), web(5)])
    assert (c.statefulset("web").spec.replicas, c.statefulset("web").generation) == (5, 2)
    d = stsedu.Cluster(kubelet="manual")
    before = state(d)
    with pytest.raises(stsedu.ValidationError) as info:
        d.apply([web(3), web(3, "Parallel")])
    assert info.value.errors[0] == ("spec.podManagementPolicy", 'Invalid value: "Parallel": field is immutable')
    assert state(d) == before


def test_apply_refuses_an_unserved_api_version(manual_cluster):
    """apps/v1beta1 StatefulSets are gone from the API server: no matches for the kind in that version."""
    c = manual_cluster
    old = dict(web(1), apiVersion="apps/v1beta2")
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(old)
    assert info.value.errors == [("apiVersion", 'no matches for kind "StatefulSet" in version "apps/v1beta2"')]
    assert c.statefulsets() == []


# ------------------------------------------------------------------ warnings

def test_unknown_fields_warn_on_apply_and_patch(manual_cluster):
    """kubectl apply warns `unknown field "spec.replica"` and applies the rest; stsedu keeps the warnings
    in last_warnings and as Warning events, for apply and for patch."""
    c = manual_cluster
    m = web(2)
    m["spec"]["replica"] = 3
    m["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    sts = c.apply(m)
    assert sts.spec.replicas == 2 and "replica" not in sts.spec.raw
    assert sorted(c.last_warnings) == ['unknown field "spec.replica"',
                                       'unknown field "spec.template.spec.containers[0].imagee"']
    assert "imagee" not in c.revisions("web")[0].data if c.revisions("web") else True
    ev = c.trace.events()
    assert list(ev[ev.reason == "UnknownField"].object) == ["statefulset/web"] * 2
    c.patch("web", {"spec": {"minReadySecond": 5}})
    assert c.last_warnings == ['unknown field "spec.minReadySecond"']
    assert c.statefulset("web").spec.min_ready_seconds == 0
    c.scale("web", 1)
    assert c.last_warnings == []


def test_a_refused_manifest_carries_its_warnings(manual_cluster):
    """An invalid manifest with an unknown field: ValidationError.warnings has it, last_warnings is untouched."""
    c = manual_cluster
    c.apply(web(1))
    m = web(-1)
    m["spec"]["replica"] = 3
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(m)
    assert info.value.warnings == ['unknown field "spec.replica"'] and c.last_warnings == []


# ------------------------------------------------------------------ YAML safety

def test_yaml_cannot_build_python_objects(manual_cluster):
    """Only safe loading: a python/object tag is an error with its position, and nothing runs."""
    c = manual_cluster
    text = WEB_YAML + "---\n!!python/object/apply:builtins.exec ['import sys; sys.stsedu_pwned = 1']\n"
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(text)
    assert not hasattr(sys, "stsedu_pwned")
    assert "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply" \
        in info.value.errors[0][1]
    assert re.search(r"line \d+, column 1", info.value.errors[0][1])
    assert c.statefulsets() == []


def test_yaml_size_limit_and_alias_bombs_are_refused(manual_cluster):
    """Text over 1 MiB, and aliases expanding past a million values, are refused with a clear message."""
    c = manual_cluster
    with pytest.raises(stsedu.ValidationError, match=r"over stsedu's limit of 1048576 bytes \(1 MiB\)"):
        c.apply(WEB_YAML + "# " + "x" * (1 << 20) + "\n")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(6))
    with pytest.raises(stsedu.ValidationError, match="excessive aliasing"):
        c.apply("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n" + bomb)
    assert c.dump()["objects"]["Service"] == {}


def test_yaml_syntax_errors_say_where(manual_cluster):
    """A broken manifest names line and column (1-based, from the start of the text)."""
    c = manual_cluster
    text = WEB_YAML.replace("  replicas: 3", "  replicas: 3\n   minReadySeconds: 1", 1)
    with pytest.raises(stsedu.ValidationError) as info:
        c.apply(text)
    line = 1 + WEB_YAML[:WEB_YAML.index("  replicas: 3")].count("\n")
    assert info.value.kind == "manifest"
    assert f"line {line + 1}, column" in info.value.errors[0][1]


# ------------------------------------------------------------- fuzzing (hypothesis)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 1 << 33) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _mutated(data, doc):
    """*doc* with a few values replaced by random JSON, or a few random keys added."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = [p for p in _paths(doc) if p]
        path = data.draw(st.sampled_from(paths), label="path")
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and data.draw(st.booleans(), label="add a key"):
            parent[data.draw(st.sampled_from(["replicas", "spec", "x", "name", "labels"]))] = data.draw(JSON)
        else:
            parent[path[-1]] = data.draw(JSON, label="value")
    return doc


def _accepted_then_syncable(c):
    """After an accepted call, the controller can sync every set (and checks its invariants)."""
    for sts in c.statefulsets():
        if sts.spec.replicas <= 50:
            SyncChecker(c, sts.name).sync(sts.name, sts.namespace)


@FUZZ
@given(data=st.data())
def test_fuzzed_manifests_are_refused_cleanly_or_accepted(data):
    """Random changes to the concept page's manifest: apply either raises a ValidationError (and changes
    nothing) or stores something the controller can sync."""
    c = fresh()
    nginx, sts = _web_docs()
    docs = [_mutated(data, d) if data.draw(st.booleans(), label="mutate") else d for d in (nginx, sts)]
    docs[1] = _mutated(data, docs[1])
    before = state(c)
    try:
        c.apply(docs)
    except stsedu.ValidationError:
        assert state(c) == before
        return
    _accepted_then_syncable(c)


PATCH = st.recursive(st.none() | JSON, lambda inner: st.dictionaries(
    st.sampled_from(["spec", "metadata", "replicas", "template", "updateStrategy", "rollingUpdate",
                     "partition", "labels", "app", "containers", "image", "x"]), inner, max_size=3), max_leaves=8)


@FUZZ
@given(patch=PATCH)
def test_fuzzed_patches_are_refused_cleanly_or_accepted(patch):
    """Random merge patches on the set: a ValidationError that changes nothing, or a set that syncs."""
    c = fresh()
    before = state(c)
    try:
        c.patch("web", patch)
    except stsedu.ValidationError:
        assert state(c) == before
        return
    _accepted_then_syncable(c)


@FUZZ
@given(patch=PATCH)
def test_fuzzed_pod_patches_are_refused_cleanly_or_accepted(patch):
    """Random merge patches on a pod: a ValidationError that changes nothing, or labels the controller copes with."""
    c = fresh()
    before = state(c)
    try:
        c.patch_pod("web-0", patch)
    except stsedu.ValidationError:
        assert state(c) == before
        return
    pod = c.pod("web-0")
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in pod.labels.items())
    c.sync("web")


@FUZZ
@given(value=JSON | st.integers())
def test_fuzzed_scale_values(value):
    """scale accepts exactly the int32 numbers >= 0 (and integral floats); anything else changes nothing."""
    c = fresh()
    before = state(c)
    try:
        c.scale("web", value)
    except stsedu.ValidationError:
        assert state(c) == before
        return
    assert not isinstance(value, bool)
    assert c.statefulset("web").spec.replicas == value and 0 <= value < 1 << 31


# ------------------------------------------------------------------ determinism

STEPS = st.lists(st.one_of(
    st.tuples(st.just("scale"), st.integers(0, 5)),
    st.tuples(st.just("image"), st.sampled_from(["nginx:1", "nginx:2"])),
    st.tuples(st.just("run"), st.integers(1, 30)),
    st.tuples(st.just("advance"), st.sampled_from([0.3, 1, 4])),
    st.tuples(st.just("delete_pod"), st.integers(0, 4)),
    st.tuples(st.just("error"), st.sampled_from(["create", "delete"])),
), max_size=12)


def _replay(seed, steps, policy):
    c = stsedu.Cluster(seed=seed, stages={"jitter": 0.8})
    c.apply(web(2, policy, claims=True))
    for step in steps:
        kind, arg = step
        if kind == "scale":
            c.scale("web", arg)
        elif kind == "image":
            c.set_image("web", arg)
        elif kind == "run":
            c.run("web", max_syncs=arg)
        elif kind == "advance":
            c.advance(arg)
        elif kind == "delete_pod":
            if c.store.get("Pod", "default", f"web-{arg}") is not None:
                c.delete_pod(f"web-{arg}")
        else:
            c.inject_error(arg, "Pod")
    c.run("web")
    return c.trace


def _frames(trace):
    return {name: getattr(trace, name)() for name in ("decisions", "pods", "status", "events", "syncs")}


@examples(ci=15, long=300)
@given(steps=STEPS, seed=st.integers(0, 2 ** 32), policy=st.sampled_from(["OrderedReady", "Parallel"]))
def test_same_seed_and_calls_give_the_same_trace(steps, seed, policy):
    """Two clusters with the same seed (jittered kubelet) and the same calls record identical DataFrames."""
    first, second = _frames(_replay(seed, steps, policy)), _frames(_replay(seed, steps, policy))
    assert list(first) == list(second) and len(first["syncs"]) > 0
    for name in first:
        assert_frame_equal(first[name], second[name], check_exact=True)


def test_another_seed_gives_another_trace():
    """The seed matters: with jitter, seeds 1 and 2 give different pod timings (so the test above can fail)."""
    steps = [("run", 50)]
    one, two = _frames(_replay(1, steps, "OrderedReady")), _frames(_replay(2, steps, "OrderedReady"))
    assert not one["pods"].time.equals(two["pods"].time)
    assert list(one["pods"].pod) == list(two["pods"].pod)  # same order of events, other times


def test_patch_pod_follows_json_merge_patch(manual_cluster):
    """RFC 7386 on a pod's metadata: a null value deletes that key, a null map deletes the whole map;
    YAML text works as a patch too."""
    c = manual_cluster
    c.apply(web(1))
    c.sync("web")
    c.patch_pod("web-0", "metadata:\n  annotations: {note: one, other: two}\n")
    c.patch_pod("web-0", {"metadata": {"annotations": {"note": None}}})
    assert c.pod("web-0").annotations == {"other": "two"}
    c.patch_pod("web-0", {"metadata": {"annotations": None}})
    assert c.pod("web-0").annotations == {}
    assert c.last_warnings == []
