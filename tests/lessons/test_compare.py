"""stsedu.compare: one scenario under two profiles, the first divergence, and the side-by-side views.

For each v1.16 difference of docs/behaviour.md section 2 that changes a decision, the
comparison with the current profile must point at the sync where it first shows.
Expected syncs come from the run itself: a ``mark`` step records how many syncs
happened before the triggering step, so the divergence must be the next one.
"""

import pytest

import stsedu
from helpers import web
from stsedu.lessons.compare import KINDS, Comparison, Divergence, compare


def run(c):
    c.run("web")


def marker(marks):
    """A step that records, per profile, how many syncs have happened so far."""
    return lambda c: marks.setdefault(c.profile.name, len(c.trace))


def first_sync_with(cmp, profile_index, predicate):
    """The aligned sync number of the first sync of one run with a decision matching *predicate*."""
    for n, s in cmp._syncs[profile_index].items():
        if any(predicate(d) for d in s["decisions"]):
            return n
    raise AssertionError("no such decision")


# ------------------------------------------------------------------ divergence per difference


@pytest.mark.parametrize("trigger, expect_a, expect_b", [
    (lambda c: c.kubelet.fail("web-1"), "delete web-1 (failed)",
     'create web-1 (missing) ✗ pods "web-1" already exists'),
    (lambda c: c.kubelet.succeed("web-1"), "delete web-1 (failed)", "wait web-1 (not-running-ready)"),
], ids=["failed-pod", "succeeded-pod"])
def test_divergence_at_the_ended_pod(trigger, expect_a, expect_b):
    """docs/behaviour.md section 2, item 2: v1.16 recreates a Failed pod in the same pass (AlreadyExists) and ignores a
    Succeeded one; the first divergence is the first sync after the pod ended."""
    marks = {}
    cmp = compare([run, marker(marks), trigger, run], web(3))
    d = cmp.first_divergence
    assert d.kind == "decisions"
    assert d.trace_syncs == (marks["current"] + 1, marks["v1.16"] + 1)
    assert expect_a in d.a and expect_b in d.b


def test_divergence_for_parallel_without_slow_start():
    """docs/behaviour.md section 2, item 1: different decisions: v1.16 returns at web-1's failed
    create and never reaches web-2; v1.36 creates web-2 in the same slowStartBatch.  (Against v1.36, whose gate-off
    update loop also waits on unhealthy Parallel pods as v1.16 does; the current profile's
    maxUnavailable path does not, so it differs from sync 1.)"""
    marks = {}
    cmp = compare([run, lambda c: c.scale("web", 4), marker(marks),
                   lambda c: c.inject_error("create", "Pod"), lambda c: c.sync("web")],
                  web(1, "Parallel"), profiles=("v1.36", "v1.16"))
    d = cmp.first_divergence
    assert d.kind == "decisions" and d.trace_syncs == (marks["v1.36"] + 1, marks["v1.16"] + 1)
    assert "create web-2 (missing)" in d.a and "✗" not in d.a.split("create web-2")[1].split(";")[0]
    assert "create web-1 (missing) ✗" in d.b and "web-2" not in d.b


def test_divergence_for_min_ready_seconds():
    """docs/behaviour.md section 2, item 3: where the current controller first waits for web-0 to be Available, v1.16
    (which dropped minReadySeconds) already creates web-1."""
    cmp = compare(run, web(3, min_ready=5))
    expected = first_sync_with(cmp, 0, lambda d: d.reason == "not-available")
    d = cmp.first_divergence
    assert (d.sync, d.kind) == (expected, "decisions")
    assert d.a == "wait web-0 (not-available)" and d.b == "create web-1 (missing)"
    assert any("minReadySeconds" in w for w in cmp.runs[1].cluster.last_warnings)
    assert cmp.runs[0].cluster.last_warnings == []


def test_divergence_for_start_ordinal():
    """docs/behaviour.md section 2, item 4: the very first create differs (web-2 with ordinals.start 2; web-0 in v1.16)."""
    cmp = compare(run, web(3, start=2))
    d = cmp.first_divergence
    assert (d.sync, d.kind) == (1, "decisions")
    assert "create web-2 (missing)" in d.a and "create web-0 (missing)" in d.b


def test_divergence_for_pvc_retention():
    """docs/behaviour.md section 2, item 5: the first sync where the current controller sets claim owner refs; v1.16
    makes the same pod decisions without them."""
    cmp = compare(run, web(2, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Delete"}))
    expected = first_sync_with(cmp, 0, lambda d: d.action == "update-pvc")
    d = cmp.first_divergence
    assert (d.sync, d.kind) == (expected, "decisions")
    assert "update-pvc" in d.a and "update-pvc" not in d.b


def test_divergence_for_max_unavailable():
    """docs/behaviour.md section 2, item 6: after the template change the current controller deletes two pods within
    maxUnavailable 2; v1.16 (field dropped) deletes one."""
    marks = {}
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 2}}
    cmp = compare([run, marker(marks), lambda c: c.set_image("web", "nginx:2"), run], web(3, strategy=strategy))
    d = cmp.first_divergence
    assert d.kind == "decisions" and d.trace_syncs == (marks["current"] + 1, marks["v1.16"] + 1)
    assert "delete web-2 (update); delete web-1 (update)" in d.a
    assert d.b.endswith("delete web-2 (update)")


def test_status_divergence_without_decision_divergence():
    """docs/behaviour.md section 2, item 9: scaling up makes the same decisions in both releases, but v1.16 counts the pod
    it creates in the same sync, so the status differs from sync 1."""
    cmp = compare(run, web(3))
    assert cmp.first_divergence is None
    s = cmp.first_status_divergence
    assert (s.sync, s.kind) == (1, "status")
    assert "0/0/0/0/0" in s.a and "1/0/–/1/1" in s.b
    assert "made the same decisions" in cmp.summary()


def test_status_divergence_when_a_failed_sync_writes_nothing():
    """docs/behaviour.md section 2, item 10: the same failed create; the current controller writes a status, v1.16 none."""
    cmp = compare([lambda c: c.inject_error("create", "Pod"), lambda c: c.sync("web")], web(2))
    assert cmp.first_divergence is None
    s = cmp.first_status_divergence
    assert s.sync == 1 and s.b == "no status written yet"


def test_step_refused_under_one_profile_is_reported():
    """A step that v1.16 refuses (revisionHistoryLimit is immutable there) stops that run only."""
    cmp = compare([run, lambda c: c.patch("web", {"spec": {"revisionHistoryLimit": 3}})], web(2))
    assert cmp.runs[0].error is None
    assert cmp.runs[1].error.startswith("ValidationError") and "Forbidden" in cmp.runs[1].error
    assert "stopped with an error under v1.16" in cmp.summary()


# ------------------------------------------------------------------ the comparison itself


def test_same_profile_twice_never_diverges():
    """Determinism: the same scenario, profile and seed give identical traces."""
    cmp = compare([run, lambda c: c.kubelet.fail("web-0"), run], web(2), profiles=("v1.16", "v1.16"))
    assert cmp.first_divergence is None and cmp.first_status_divergence is None
    assert cmp.profiles == ("v1.16 (1)", "v1.16 (2)")
    assert (cmp.table().differs == "").all()


def test_per_run_options():
    """A (profile, options) pair gives one run its own Cluster options (here a feature gate)."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
    steps = [run, lambda c: c.set_image("web", "nginx:2"), run]
    cmp = compare(steps, web(3, strategy=strategy),
                  profiles=(("current", {"feature_gates": {"MaxUnavailableStatefulSet": False}}), "v1.36"))
    assert cmp.runs[0].cluster.feature_gates["MaxUnavailableStatefulSet"] is False
    assert cmp.first_divergence is None  # both run the classic one-at-a-time update


def test_needs_two_known_profiles():
    with pytest.raises(ValueError, match="exactly two"):
        compare(run, web(1), profiles=("current", "v1.36", "v1.16"))
    with pytest.raises(ValueError, match="unknown profile"):
        compare(run, web(1), profiles=("current", "v1.99"))


def _syncs_listed(column) -> list[int]:
    out = []
    for cell in column:
        if cell:
            first, _, last = cell.partition("-")
            out += list(range(int(first), int(last or first) + 1))
    return out


@pytest.mark.parametrize("align", ["repeats", "sync"])
def test_table_aligns_both_traces_by_sync(align):
    """Every trace sync of each run appears exactly once, in order; rows past the shorter run are
    marked 'length'; a failed request is marked with ✗.  With align='sync' row n is sync n."""
    cmp = compare([run, lambda c: c.kubelet.fail("web-1"), run], web(2), align=align)
    t = cmp.table()
    for p, r in zip(cmp.profiles, cmp.runs):
        assert _syncs_listed(t[f"{p} syncs"]) == list(range(1, len(r.cluster.trace) + 1))
    if align == "sync":
        assert list(t.sync) == list(range(1, max(len(r.cluster.trace) for r in cmp.runs) + 1))
    assert {"current decisions", "v1.16 decisions", "current status", "v1.16 status", "differs"} <= set(t)
    d = cmp.first_divergence.sync
    assert "decisions" in t.set_index("sync").loc[d, "differs"]
    assert t["v1.16 decisions"].str.contains('✗ pods "web-1" already exists').any()
    short = t[(t["current syncs"] == "") | (t["v1.16 syncs"] == "")]
    assert len(short) and short.differs.str.contains("length").all()
    only = cmp.table(only_differences=True)
    assert (only.differs != "").all() and len(only) <= len(t)


def test_repeated_syncs_are_folded():
    """A run that wakes up more often (here: current resyncs after each of its status writes) has
    the same rows once repeats are folded; strict alignment shifts them."""
    folded = compare(run, web(3))
    assert folded.first_divergence is None
    assert len(folded.runs[0].cluster.trace) != len(folded.runs[1].cluster.trace)
    strict = compare(run, web(3), align="sync")
    assert strict.first_divergence is not None
    with pytest.raises(ValueError, match="align"):
        compare(run, web(1), align="time")


def test_sync_view_lists_both_profiles_with_messages():
    cmp = compare([run, lambda c: c.kubelet.fail("web-1"), run], web(2))
    view = cmp.sync(cmp.first_divergence.sync)
    assert set(view.profile) == {"current", "v1.16"}
    v116 = view[view.profile == "v1.16"]
    assert list(v116.action) == ["delete", "create"] and list(v116.outcome) == ["done", "failed"]
    assert "AlreadyExists" in v116.message.iloc[1]


def test_chart_has_a_panel_per_profile_and_marks_the_divergence():
    """The chart is a vertical concatenation of one layered panel per profile on a shared sync axis,
    with a rule at the first divergence; its data holds every decision of both runs."""
    cmp = compare([run, lambda c: c.kubelet.fail("web-1"), run], web(2))
    spec = cmp.chart().to_dict()
    assert len(spec["vconcat"]) == 2
    titles = [p["title"] for p in spec["vconcat"]]
    assert titles == ["profile current", "profile v1.16"]
    rules = [layer for p in spec["vconcat"] for layer in p["layer"] if layer["mark"]["type"] == "rule"]
    assert len(rules) == 2 and all(r["data"]["values"] == [{"sync": cmp.first_divergence.sync}] for r in rules)
    data = cmp.chart_data()
    n_decisions = sum(len(s["decisions"]) for syncs in cmp._syncs for s in syncs.values())
    assert len(data) == n_decisions
    assert set(data.outcome) <= {"done", "failed", "-"}


def test_divergence_reads_as_a_sentence():
    d = Divergence(4, "decisions", ("current", "v1.16"), "wait web-0 (not-available)", "create web-1 (missing)")
    assert str(d) == ("sync 4: the two controllers decide differently. current: wait web-0 "
                      "(not-available). v1.16: create web-1 (missing).")
    assert d.kind in KINDS and isinstance(compare(run, web(1)), Comparison)


def test_status_fields_isolate_the_revision_promotion():
    """docs/behaviour.md section 2, item 11: v1.16 promotes currentRevision for RollingUpdate sets only; the current
    profile (v1.37, PR #136833) also for OnDelete.  Comparing only currentRevision skips the
    counting differences and finds the sync of the promotion."""
    settle = lambda c: c.settle("web")  # noqa: E731
    steps = [settle, lambda c: c.set_image("web", "nginx:2"), settle]
    for pod in ("web-1", "web-0"):
        steps += [lambda c, pod=pod: c.delete_pod(pod), settle]
    cmp = compare(steps, web(2, strategy={"type": "OnDelete"}), kubelet="manual",
                  status_fields=("current_revision",))
    assert cmp.first_divergence is None
    status = cmp.runs[0].cluster.trace.status()
    new = cmp.runs[0].cluster.statefulset("web").status.update_revision
    promoted = int(status[status.current_revision == new].sync.min())
    s = cmp.first_status_divergence
    assert s.kind == "status" and s.trace_syncs[0] == promoted
    assert cmp.runs[1].cluster.statefulset("web").status.current_revision != new


def test_unknown_status_field():
    with pytest.raises(ValueError, match="unknown status field"):
        compare(run, web(1), status_fields=("ready",))
