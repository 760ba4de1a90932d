"""The controller's outer loop: the work queue's semantics, the informer handlers' rules, and
``cluster.run()`` driving several sets from events (docs/loop.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import stsedu
from stsedu.api.errors import ValidationError
from stsedu.client.informers import Tombstone
from stsedu.client.workqueue import (BucketRateLimiter, ItemExponentialFailureRateLimiter, WorkQueue,
                                         default_controller_rate_limiter)
from stsedu.sim.clock import Clock


def sts(name: str, replicas: int = 2, labels: dict | None = None, min_ready: int = 0) -> dict:
    labels = labels or {"app": name}
    m = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
         "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": dict(labels)},
                  "template": {"metadata": {"labels": dict(labels)},
                               "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}}
    if min_ready:
        m["spec"]["minReadySeconds"] = min_ready
    return m


def new_queue():
    clock, rows = Clock(), []
    q = WorkQueue(clock, record=lambda key, event, cause: rows.append((clock.now, key, event, cause)))
    return clock, q, rows


def drain(c: stsedu.Cluster) -> None:
    """Hand out and finish every queued key without syncing (to watch what handlers enqueue next)."""
    while (key := c.loop.queue.get()) is not None:
        c.loop.queue.done(key)


def queued(c: stsedu.Cluster) -> list[str]:
    return list(c.loop.queue.queue)


# ---------------------------------------------------------------- work queue


def test_a_key_waits_at_most_once():
    """``Type.Add``: adding a key that is already waiting changes nothing (the dirty set)."""
    _, q, _ = new_queue()
    q.add("default/web")
    q.add("default/db")
    q.add("default/web")
    assert q.queue == ["default/web", "default/db"]


def test_a_key_being_processed_is_not_handed_out_again_and_is_requeued_if_dirty():
    """``Type.Get`` / ``Type.Done``: while a worker holds a key, adding it only marks it dirty; Done queues it."""
    _, q, rows = new_queue()
    q.add("default/web")
    assert q.get() == "default/web"
    q.add("default/web", "Pod web-0 added")
    assert q.get() is None, "the key a worker holds is not handed to a second worker"
    q.done("default/web")
    assert q.queue == ["default/web"]
    assert rows[-1][2].startswith("requeued") and rows[-1][3] == "Pod web-0 added"


def test_done_without_a_new_add_does_not_requeue():
    """``Type.Done``: a key nobody added while it was processed leaves the queue."""
    _, q, _ = new_queue()
    q.add("default/web")
    q.done(q.get())
    assert q.get() is None and not q.dirty and not q.processing


def test_add_after_adds_when_the_time_comes_and_the_earliest_delay_wins():
    """``delayingType.AddAfter``: the key is added at now+delay; a second, earlier delay replaces a later one."""
    clock, q, _ = new_queue()
    q.add_after("default/web", 10)
    q.add_after("default/web", 3)
    q.add_after("default/web", 7)  # later than the waiting 3 s: changes nothing
    clock.advance_to(2.9)
    assert q.get() is None
    clock.advance_to(3)
    assert q.get() == "default/web"
    q.done("default/web")
    clock.advance_to(20)
    assert q.get() is None, "the cancelled 10 s entry does not add the key again"
    q.add_after("default/db", 0)
    assert q.queue == ["default/db"], "a delay <= 0 adds at once"


def test_rate_limited_requeues_back_off_exponentially_and_forget_resets():
    """``ItemExponentialFailureRateLimiter`` (5 ms doubling, capped at 1000 s) and ``Forget``."""
    lim = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    assert [lim.when("k", 0) for _ in range(4)] == [0.005, 0.01, 0.02, 0.04]
    assert lim.num_requeues("k") == 4
    for _ in range(30):
        last = lim.when("k", 0)
    assert last == 1000.0
    lim.forget("k")
    assert lim.when("k", 0) == 0.005
    assert lim.when("other", 0) == 0.005, "each key backs off on its own"


def test_the_overall_bucket_allows_100_at_once_then_10_per_second():
    """``BucketRateLimiter`` (``rate.NewLimiter(10, 100)``) inside ``DefaultControllerRateLimiter`` (max of both)."""
    bucket = BucketRateLimiter(10, 100)
    assert [bucket.when(f"k{i}", 0.0) for i in range(100)] == [0.0] * 100
    assert bucket.when("k100", 0.0) == pytest.approx(0.1)
    assert bucket.when("k101", 0.0) == pytest.approx(0.2)
    assert bucket.when("k102", 10.0) == 0.0, "tokens come back at 10 a second"
    lim = default_controller_rate_limiter()
    delays = [lim.when(f"k{i}", 0.0) for i in range(101)]
    assert delays[:100] == [0.005] * 100 and delays[100] == pytest.approx(0.1)


def test_add_rate_limited_then_forget_in_the_queue():
    """``AddRateLimited`` waits the limiter's delay; ``Forget`` clears ``NumRequeues``."""
    clock, q, rows = new_queue()
    assert q.add_rate_limited("default/web", "sync 1 failed") == 0.005
    assert q.add_rate_limited("default/web", "sync 2 failed") == 0.01, "the second failure backs off twice as long"
    assert q.num_requeues("default/web") == 2
    clock.advance_to(0.005)  # still waiting from the first: the earlier time wins
    assert q.get() == "default/web"
    q.forget("default/web")
    assert q.num_requeues("default/web") == 0
    assert any("rate" in r[2] for r in rows) and rows[-1][2] == "forgotten"


# ------------------------------------------------------------------ handlers


@pytest.fixture
def two_sets():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(sts("web"))
    c.apply(sts("db"))
    c.run()
    drain(c)
    return c


def test_set_events_enqueue_the_set():
    """``enqueueStatefulSet`` from the StatefulSet informer's add, update and delete handlers."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(sts("web"))
    assert queued(c) == ["default/web"]
    drain(c)
    c.scale("web", 3)
    assert queued(c) == ["default/web"]
    drain(c)
    c.delete("web")
    assert queued(c) == ["default/web"]
    assert c.trace.queue()["cause"].tolist()[-1] == "StatefulSet web deleted"


def test_add_pod_with_a_controller_ref_enqueues_only_its_owner(two_sets):
    """``addPod``: a pod with a controllerRef enqueues the set it resolves to (``resolveControllerRef``)."""
    c = two_sets
    c.loop.add_pod(c.store.get("Pod", "default", "web-0"))
    assert queued(c) == ["default/web"]


def test_add_orphan_pod_enqueues_every_matching_set_and_reports_overlap():
    """``addPod`` / ``getStatefulSetsForPod``: an orphan enqueues every set whose selector matches;
    more than one is a user error that is reported."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(sts("a", labels={"tier": "x"}))
    c.apply(sts("b", labels={"tier": "x"}))
    drain(c)
    pod = c.store.list("Pod")  # none yet: make an orphan directly in the store
    assert pod == []
    from stsedu.api.objects import Pod
    c.store.create("Pod", Pod(name="stray", namespace="default", labels={"tier": "x"}))
    assert queued(c) == ["default/a", "default/b"]
    assert any("more than one" in w.lower() for w in c.loop.warnings)


def test_resolve_controller_ref_ignores_a_ref_whose_uid_does_not_match(two_sets):
    """``resolveControllerRef``: same name, other uid (an old owner) resolves to nothing."""
    c = two_sets
    pod = c.store.get("Pod", "default", "web-0")
    ref = replace(pod.owner_references[0], uid="not-the-set")
    c.loop.add_pod(replace(pod, owner_references=(ref,)))
    assert queued(c) == []


def test_update_pod_with_the_same_resource_version_is_a_resync(two_sets):
    """``updatePod``: same ResourceVersion means a periodic resync: nothing is enqueued."""
    c = two_sets
    pod = c.store.get("Pod", "default", "web-0")
    c.loop.update_pod(pod, pod)
    assert queued(c) == []


def test_update_pod_with_a_changed_controller_ref_enqueues_old_and_new_owner(two_sets):
    """``updatePod``: controllerRef changed: the old owner is enqueued, then the new one."""
    c = two_sets
    old = c.store.get("Pod", "default", "web-0")
    db = c.store.get("StatefulSet", "default", "db")
    cur = replace(old, owner_references=(db.ref(),), resource_version=old.resource_version + 1)
    c.loop.update_pod(old, cur)
    assert queued(c) == ["default/web", "default/db"]


def test_update_orphan_pod_whose_labels_move_it_to_another_set(two_sets):
    """``updatePod``: an orphan whose labels changed enqueues the sets that now select it (not the old one)."""
    c = two_sets
    old = c.store.get("Pod", "default", "web-0")
    orphan = replace(old, owner_references=())
    cur = replace(orphan, labels={**old.labels, "app": "db"}, resource_version=old.resource_version + 1)
    c.loop.update_pod(orphan, cur)
    assert queued(c) == ["default/db"]
    drain(c)
    c.loop.update_pod(orphan, replace(orphan, resource_version=old.resource_version + 2))
    assert queued(c) == [], "an orphan whose labels and ref did not change wakes nobody"


def test_update_pod_turning_ready_requeues_after_min_ready_seconds():
    """``updatePod``: a pod of a set with minReadySeconds that turns Ready is enqueued again after it
    (``enqueueSSAfter``)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(sts("web", replicas=1, min_ready=5))
    c.sync("web")
    drain(c)
    c.kubelet.step()  # Pending -> Running
    c.kubelet.step()  # Running -> Ready
    q = c.trace.queue()
    after = q[q["event"].str.startswith("requeued after delay")]
    assert after["event"].tolist() == ["requeued after delay (5 s)"]
    assert "turned Ready" in after["cause"].iloc[0]


def test_delete_pod_enqueues_its_owner_also_from_a_tombstone(two_sets):
    """``deletePod``: the owner of a deleted pod is enqueued; a ``DeletedFinalStateUnknown`` tombstone is
    unwrapped first; an orphan's delete wakes nobody."""
    c = two_sets
    pod = c.store.get("Pod", "default", "web-0")
    c.loop.delete_pod(Tombstone("default/web-0", pod))
    assert queued(c) == ["default/web"]
    drain(c)
    c.loop.delete_pod(replace(pod, owner_references=()))
    assert queued(c) == []


def test_a_relist_after_a_dropped_watch_delivers_a_tombstone(two_sets):
    """``Reflector`` re-list / ``DeletedFinalStateUnknown``: a delete the informer missed arrives as a
    tombstone holding the last known pod, and still wakes its owner."""
    c = two_sets
    listener = c.loop.informers._on_write
    c.store.listeners.remove(listener)  # the watch drops ...
    c.store.remove("Pod", "default", "db-0")  # ... and misses this delete
    c.store.listeners.append(listener)
    assert queued(c) == [] and c.loop.lister.get("Pod", "default", "db-0") is not None, "stale cache"
    c.loop.informers.relist()
    assert queued(c) == ["default/db"]
    assert c.trace.queue()["cause"].iloc[-1] == "Pod db-0 deleted (tombstone)"
    assert c.loop.lister.get("Pod", "default", "db-0") is None


def test_revision_and_claim_events_enqueue_nothing(two_sets):
    """``NewStatefulSetController`` registers handlers on the Pod and StatefulSet informers only: a
    ControllerRevision write is read through the lister and wakes no set."""
    c = two_sets
    rev = c.store.list("ControllerRevision")[0]
    c.store.update("ControllerRevision", replace(rev))
    assert queued(c) == []
    assert c.loop.lister.get("ControllerRevision", "default", rev.name).resource_version > rev.resource_version


# ---------------------------------------------------------------- the loop


def test_run_with_no_name_brings_two_sets_up_together():
    """``cluster.run()`` runs the whole controller: both sets, one queue, interleaved syncs."""
    c = stsedu.Cluster(seed=3)
    c.apply(sts("web", 3))
    c.apply(sts("db", 2))
    results = c.run()
    assert [p.name for p in c.pods() if p.ready] == ["db-0", "db-1", "web-0", "web-1", "web-2"]
    assert c.statefulset("web").status.ready_replicas == 3 and c.statefulset("db").status.ready_replicas == 2
    names = [r.set_name for r in results]
    switches = sum(a != b for a, b in zip(names, names[1:]))
    assert switches >= 3, f"the two sets' syncs interleave: {names}"
    assert set(c.trace.queue()["key"]) == {"default/web", "default/db"}
    assert c.loop.queue.get() is None and c.clock.peek() is None, "stops when nothing is queued or scheduled"


def test_a_two_set_run_is_deterministic_for_a_seed():
    """Same seed, same trace: every table, queue included, and the same clock."""
    def go(seed):
        c = stsedu.Cluster(seed=seed, stages={"jitter": 2.0})
        c.apply(sts("web", 3))
        c.apply(sts("db", 3))
        c.run()
        c.scale("db", 1)
        c.run()
        return c.trace.rows(), c.now
    assert go(7) == go(7)
    assert go(7) != go(8)


def test_an_api_error_shows_a_rate_limited_requeue_then_forget():
    """``processNextWorkItem``: a failed sync is ``AddRateLimited`` (5 ms, then 10 ms) and a good one ``Forget``s."""
    c = stsedu.Cluster(seed=1)
    c.apply(sts("web", 2))
    c.inject_error("create", "Pod", count=2)
    c.run()
    q = c.trace.queue("default/web")
    rate = q[q["event"].str.contains("rate")]
    assert rate["event"].tolist() == ["requeued with rate limit (0.005 s)", "requeued with rate limit (0.01 s)"]
    assert rate["cause"].str.contains("failed").all()
    assert "forgotten" in q["event"].tolist()
    assert [p.name for p in c.pods("web") if p.ready] == ["web-0", "web-1"]


def test_concurrent_syncs_hand_out_several_keys_at_once():
    """``--concurrent-statefulset-syncs``: with 2 workers both keys are handed out before either is done."""
    c = stsedu.Cluster(kubelet="manual", concurrent_syncs=2)
    c.apply(sts("web"))
    c.apply(sts("db"))
    c.run(max_syncs=2)
    events = c.trace.queue()["event"].tolist()
    assert events[2:4] == ["handed to worker", "handed to worker"]
    one = stsedu.Cluster(kubelet="manual")
    one.apply(sts("web"))
    one.apply(sts("db"))
    one.run(max_syncs=2)
    assert one.trace.queue()["event"].tolist()[2:4] == ["handed to worker", "added (while processing: waits for done)"]


def test_pods_orphaned_by_cascade_orphan_are_adopted_when_the_set_returns():
    """``ClaimPods`` driven by events: the orphaning's pod update events wake the old owner
    (``updatePod``, controllerRef changed); the set's add event wakes it when it returns; it adopts
    the pods and their update events come back to it."""
    c = stsedu.Cluster(seed=2)
    c.apply(sts("web", 2))
    c.run()
    old_uid = c.statefulset("web").uid
    c.delete("web", cascade="orphan", wait=False)  # the controller runs while the collector orphans
    c.run()
    assert [p.owner for p in c.pods()] == [None, None]
    q = c.trace.queue()
    assert q["cause"].str.contains("Pod web-0 updated (controllerRef changed, old owner)", regex=False).any()
    c.apply(sts("web", 2))
    n = len(c.trace.queue())
    c.run()
    new_uid = c.statefulset("web").uid
    assert new_uid != old_uid
    assert [(p.name, p.owner_references[0].uid) for p in c.pods()] == [("web-0", new_uid), ("web-1", new_uid)]
    later = c.trace.queue().iloc[n:]
    assert later["cause"].str.contains("Pod web-0 updated").any(), "the adoption's own pod events come back"
    d = c.trace.decisions()
    assert sorted(d[d["action"].eq("adopt") & d["pod"].notna()]["pod"]) == ["web-0", "web-1"]


def test_a_pod_relabelled_back_into_its_set_is_adopted_through_its_update_event():
    """``updatePod`` on an orphan whose labels changed: the matching set is woken and adopts it."""
    c = stsedu.Cluster(seed=2)
    c.apply(sts("web", 2))
    c.run()
    c.patch_pod("web-1", {"metadata": {"labels": {"app": None}}})
    c.run(max_syncs=10)  # released; a new web-1 cannot be made while it exists: failing syncs back off
    assert c.pod("web-1").owner is None
    n = len(c.trace.queue())
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "web"}}})
    c.run(max_syncs=10)
    assert c.pod("web-1").owner == "web"
    assert c.trace.queue().iloc[n:]["cause"].str.contains("orphan Pod web-1 updated").any()


def test_min_ready_seconds_is_reached_through_delayed_requeues():
    """``syncStatefulSet``: while Ready pods are not yet Available the key comes back after a delay."""
    c = stsedu.Cluster(seed=0)
    c.apply(sts("web", 2, min_ready=5))
    c.run()
    assert c.statefulset("web").status.available_replicas == 2
    assert c.trace.queue()["event"].str.startswith("requeued after delay").any()


def test_an_informer_delay_gives_a_stale_cache_that_the_loop_tolerates():
    """A lagging pod watch under v1.16 (no consistency store): a sync sees its own status write but
    not yet the pod it created, tries to create it again, gets AlreadyExists (``CreateStatefulPod``),
    and is requeued with rate limiting until the pod's event arrives; the sets still converge."""
    c = stsedu.Cluster(seed=4, informer_delay=0.5, profile="v1.16")
    c.apply(sts("web", 3))
    c.apply(sts("db", 2))
    c.run()
    assert c.statefulset("web").status.ready_replicas == 3 and c.statefulset("db").status.ready_replicas == 2
    assert c.loop.informers.in_flight == 0
    errors = c.trace.decisions()["error"].dropna()
    assert errors.str.contains("already exists").any()
    assert c.trace.queue()["event"].str.contains("rate").any()
    fresh = stsedu.Cluster(seed=4)
    fresh.apply(sts("web", 3))
    fresh.apply(sts("db", 2))
    fresh.run()
    assert fresh.trace.decisions()["error"].dropna().empty, "no delay, no stale read"


def test_bad_loop_options_are_refused():
    """Bad ``informer_delay`` / ``concurrent_syncs`` / ``max_syncs``: a ValidationError naming the field,
    nothing changed."""
    with pytest.raises(ValidationError, match="informer_delay"):
        stsedu.Cluster(informer_delay=-1)
    with pytest.raises(ValidationError, match="concurrent_syncs"):
        stsedu.Cluster(concurrent_syncs=0)
    c = stsedu.Cluster()
    with pytest.raises(ValidationError, match="max_syncs"):
        c.run(max_syncs=0)
    with pytest.raises(ValidationError):
        c.informer_delay = "soon"
    assert c.informer_delay == 0.0


# ------------------------------------------------------------ chart and lab


def test_queue_flow_draws_the_loop_in_order():
    """``charts.queue_flow``: for the first key, informer event -> work queue -> worker -> sync -> API write,
    and the write's own event comes back to the queue."""
    c = stsedu.Cluster(seed=1)
    c.apply(sts("web", 1))
    c.run()
    df = stsedu.charts.queue_flow_data(c.trace, limit=None)
    lanes = df["lane"].tolist()
    assert lanes[:5] == ["informer event", "work queue", "worker", "sync", "API write"]
    after_write = lanes[lanes.index("API write"):]
    assert "informer event" in after_write and "work queue" in after_write
    spec = stsedu.charts.ChartWidget(stsedu.charts.queue_flow(c.trace, limit=10)).spec
    assert len(spec["datasets"][next(iter(spec["datasets"]))]) == 10


def test_loop_lab_controls_rerun_and_redraw_in_place():
    """LoopLab: the informer-delay slider and the API-error toggle re-run the two sets; the same chart
    widget shows the new run; the summary counts failed calls and rate-limited requeues."""
    from stsedu.widgets import LoopLab
    lab = LoopLab()
    chart, first = lab.chart, lab.chart.spec
    assert "rate-limited requeues</td><td><b>0<" in lab.summary.value
    lab.set_api_error(True)
    assert lab.chart is chart and lab.chart.spec != first
    assert "rate-limited requeues</td><td><b>0<" not in lab.summary.value
    lab.set_api_error(False)
    lab.set_delay(1.0)
    assert lab.cluster.informer_delay == 1.0
    # the consistency store: no sync on a pod cache behind the controller's own writes, so no
    # pod is created twice; the key waits, rate-limited, for the pod events
    assert not lab.cluster.trace.decisions()["error"].fillna("").str.contains("already exists").any()
    assert lab.cluster.trace.queue()["cause"].str.contains("caches behind the set's own writes").any()
    assert "rate-limited requeues</td><td><b>0<" not in lab.summary.value


def test_reveal_shows_no_answer_before_a_prediction():
    """Predict, then see: with no answer only the question shows; an answer is checked against the simulator."""
    from stsedu import labs
    bare = labs.reveal("04.b").text
    assert "Question 04.b" in bare and "✓" not in bare and "✗" not in bare and "0.01" not in bare
    assert "✓" in labs.reveal("04.b", (0.005, 0.01, 0.02)).text
    assert "Wrong form" in labs.reveal("04.b", "0.005, 0.01, 0.02").text
    assert "✗" in labs.reveal("04.a", "create").text
    assert "✓" in labs.reveal("04.a", "adopt").text


def test_loop_lab_workers_change_what_the_lab_shows():
    """Two workers sync web and db at the same moment (concurrent-statefulset-syncs); the lab's counter says so."""
    from stsedu.widgets import LoopLab
    lab = LoopLab()
    assert "most syncs at the same moment (busy workers)</td><td><b>1<" in lab.summary.value
    lab.set_workers(2)
    assert "most syncs at the same moment (busy workers)</td><td><b>2<" in lab.summary.value
    assert "both sets stable" in lab.did_area.value and "a-create" in lab.decisions.value
    assert "Run this cell" in repr(lab)


# ----------------------------------------------------------------- scenarios


def test_the_two_sets_scenario_runs_the_whole_controller_and_repeats():
    """A scenario with two sets and ``run_all`` steps: every expectation holds, same trace twice."""
    sc = stsedu.scenarios.load("two-sets")
    c1, t1 = sc.run()
    c2, t2 = sc.run()
    assert t1.rows() == t2.rows()
    assert set(t1.syncs()["set"]) == {"web", "db"}
    assert t1.queue()["event"].str.contains("rate").any()


def test_scenario_loop_options_are_checked(tmp_path):
    """``cluster.informer_delay`` / ``concurrent_syncs`` in a scenario: used, and refused with the field named."""
    from stsedu.lessons.scenarios import ScenarioError
    text = ("objects: [stsedu:web.yaml]\ncluster: {informer_delay: 0.5, concurrent_syncs: 2}\n"
            "steps:\n  - run_all: {}\n    expect: {status: {ready_replicas: 3}}\n")
    good = tmp_path / "good.yaml"
    good.write_text(text)
    cluster, _ = stsedu.scenarios.load(good).run()
    assert cluster.informer_delay == 0.5 and cluster.loop.workers == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("0.5", "-1"))
    with pytest.raises(ScenarioError, match="cluster.informer_delay"):
        stsedu.scenarios.load(bad)
