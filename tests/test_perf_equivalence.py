"""The fast paths of a sync decide exactly what the plain algorithm decides.

``plan_sync`` takes one lean pass over the pods and skips the slots where
``processReplica`` has nothing to do; ``plan_claims`` and the conformance
checks reuse answers cached per pod object.  Here a seeded random walk
through real cluster states (scaling, rollouts, failures, label edits,
orphaning and adoption, claims and retention policies, several profiles)
compares, before every sync, the fast result with a plain statement of
the algorithm that calls ``processReplica`` on every slot and keeps no memo.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import stsedu
from helpers import web
from stsedu.controller import stateful_set_control as control
from stsedu.controller import stateful_set as controller
from stsedu.controller import stateful_set_utils as P
from stsedu.controller.stateful_set_control import (Snapshot, _claim_owner_decisions, _d, base_status, claims_match,
                            plan_classic_update, plan_max_unavailable_update, plan_revisions,
                            placeholder, process_condemned, process_replica, versioned_revision)
from stsedu.controller.decisions import STEP_CLAIMS_FIX, STEP_HISTORY, SyncPlan
from stsedu.api.errors import APIError
from stsedu.api.objects import POD_NAME_LABEL, OwnerReference, Pod
from stsedu.controller.history import history_to_truncate


def reference_plan_sync(snap: Snapshot, profile, gates) -> SyncPlan:
    """``UpdateStatefulSet`` as BEHAVIOUR.md states it: every slot through processReplica, no memo."""
    snap = replace(snap, memo=None)
    sts, now = snap.sts, snap.now
    rev_decisions, current, update, collisions, update_rev = plan_revisions(snap, profile)
    by_name = {r.name: r for r in snap.revisions}
    by_name[update_rev.name] = update_rev
    decisions = list(rev_decisions)
    mrs = sts.spec.min_ready_seconds if profile.min_ready_seconds else 0
    start = sts.spec.start_ordinal if profile.start_ordinal else 0
    n = sts.spec.replicas
    replicas = [None] * n
    condemned = []
    for pod in snap.pods:
        if start <= pod.ordinal < start + n:
            replicas[pod.ordinal - start] = pod
        elif pod.ordinal >= 0:
            condemned.append(pod)
    for i in range(n):
        if replicas[i] is None:
            replicas[i] = placeholder(sts, start + i, versioned_revision(sts, current, update, start + i, profile))
    condemned.sort(key=lambda p: p.ordinal, reverse=True)
    first_unavailable = next((p for p in replicas if P.is_unavailable(p, mrs, now)), None)
    if first_unavailable is None:
        first_unavailable = next((p for p in reversed(condemned) if P.is_unavailable(p, mrs, now)), None)
    monotonic = sts.spec.pod_management_policy != "Parallel"
    live = {current, update} | {p.revision for p in snap.pods}
    status = base_status(sts, snap.pods, now, current, update, collisions, profile)

    def truncate(live_names):
        return [_d("delete-revision", None, "history-limit",
                   f"Revision {r.name} (number {r.revision}) is beyond "
                   f"revisionHistoryLimit={sts.spec.revision_history_limit}: delete it.",
                   "truncate", target=r.name, step=STEP_HISTORY, payload=r)
                for r in history_to_truncate(list(snap.revisions), live_names, sts.spec.revision_history_limit)]

    def finish():
        decisions.extend(truncate(live))
        # a failed revision write leaves no current/update revision: only the pods' are live
        fallback = (tuple(truncate({p.revision or "" for p in snap.pods})) if rev_decisions and any(
            d.action in ("create-revision", "update-revision") for d in rev_decisions) else None)
        return SyncPlan(decisions=tuple(decisions), status=status, current_revision=current,
                        update_revision=update, collision_count=collisions, monotonic=monotonic,
                        replica_slots=n, condemned_slots=len(condemned), live_revisions=frozenset(live),
                        history_if_revisions_fail=fallback)

    if sts.deletion_timestamp is not None:
        return finish()
    for i in range(n):
        ds, stop = process_replica(sts, replicas[i], i, monotonic, snap, profile, by_name)
        decisions.extend(ds)
        if monotonic and (stop or any(d.error for d in ds)):
            return finish()
    for i, pod in enumerate(condemned):
        if not claims_match(sts, pod, snap.claims, True, profile):
            decisions.extend(_claim_owner_decisions(sts, pod, snap.claims, True, "fix-claim", i,
                                                    STEP_CLAIMS_FIX, profile))
    for i, pod in enumerate(condemned):
        ds, stop = process_condemned(sts, pod, i, first_unavailable, monotonic, now, profile)
        decisions.extend(ds)
        if stop and monotonic:
            return finish()
    if sts.spec.update_strategy == "OnDelete":
        return finish()
    if profile.max_unavailable_supported and profile.gate(gates, "MaxUnavailableStatefulSet"):
        decisions.extend(plan_max_unavailable_update(sts, replicas, update, now, profile))
    else:
        decisions.extend(plan_classic_update(sts, replicas, update, now, profile))
    return finish()


def reference_claims(sts, pods, revisions):
    """``ClaimPods`` with no cache, straight from the rules."""
    out, claimed = [], []
    deleting = sts.deletion_timestamp is not None
    if not deleting:
        out += [r.name for r in revisions if not any(x.controller for x in r.owner_references)
                and stsedu.api.objects.selector_matches(sts.spec.selector, r.labels)]
    for pod in pods:
        ref = next((r for r in pod.owner_references if r.controller), None)
        if ref is not None and ref.uid != sts.uid:
            continue
        match = pod.parent == sts.name and stsedu.api.objects.selector_matches(sts.spec.selector, pod.labels)
        if ref is not None and match:
            claimed.append(pod)
        elif ref is not None and not deleting:
            out.append(("release", pod.name))
        elif ref is None and match and not deleting and pod.deletion_timestamp is None:
            out.append(("adopt", pod.name))
    return out, claimed


def check_sync_paths(c: stsedu.Cluster, name: str = "web") -> SyncPlan | None:
    """Compare the fast and the plain claim and plan results on the cluster's current state."""
    sts = c.store.get("StatefulSet", "default", name)
    if sts is None:
        return None
    pods = c.store.view("Pod", "default")
    revs = c.store.view("ControllerRevision", "default")
    decisions, claimed = controller.plan_claims(sts, pods.values(), revs.values(), c.controller.memo)
    want_decisions, want_claimed = reference_claims(sts, list(pods.values()), list(revs.values()))
    assert [d.target if d.pod is None else (d.action, d.pod) for d in decisions] == want_decisions
    assert len(claimed) == len(want_claimed) and all(a is b for a, b in zip(claimed, want_claimed))
    snap = Snapshot(sts=sts, pods=tuple(claimed), claims=c.store.view("PersistentVolumeClaim", "default"),
                    revisions=tuple(controller.set_revisions(sts, revs.values())), namespace_revisions=revs,
                    now=c.now, memo=c.controller.memo)
    fast = control.plan_sync(snap, c.profile, c.feature_gates)
    slow = reference_plan_sync(snap, c.profile, c.feature_gates)
    assert fast.decisions == slow.decisions
    assert [d.payload for d in fast.decisions] == [d.payload for d in slow.decisions]
    assert fast == slow
    return fast


IMAGES = ("nginx:1", "nginx:2", "nginx:3")


def random_action(c: stsedu.Cluster, rng: random.Random, manifest: dict) -> None:
    """One thing a learner, the kubelet or a fault could do next."""
    pods = c.store.list("Pod", "default")
    pod = rng.choice(pods) if pods else None
    roll = rng.random()
    try:
        if roll < 0.25:  # move the lowest pod one step on, as a kubelet would
            for p in sorted(pods, key=lambda p: p.name):
                if p.deletion_timestamp is not None:
                    c.kubelet.finish_termination(p.name)
                elif p.phase == "Pending":
                    c.kubelet.start(p.name)
                elif p.phase == "Running" and not p.ready:
                    c.kubelet.set_ready(p.name)
                else:
                    continue
                break
        elif roll < 0.40 and pod is not None:
            verb = rng.choice(["start", "set_ready", "set_ready", "set_unready", "fail", "succeed", "crash",
                               "finish_termination"])
            getattr(c.kubelet, verb)(pod.name)
        elif roll < 0.47 and pod is not None:
            c.delete_pod(pod.name)
        elif roll < 0.53:
            c.scale("web", rng.randrange(0, 7))
        elif roll < 0.58:
            c.set_image("web", rng.choice(IMAGES))
        elif roll < 0.63:
            c.patch("web", {"spec": {"updateStrategy": rng.choice([
                {"type": "OnDelete", "rollingUpdate": None},
                {"type": "RollingUpdate", "rollingUpdate": {"partition": rng.randrange(0, 4)}},
                {"type": "RollingUpdate", "rollingUpdate": {"partition": 0,
                                                            "maxUnavailable": rng.choice([1, 2, "50%"])}}])}})
        elif roll < 0.70 and pod is not None:
            # break or restore identity, or stop matching the selector (release)
            c.patch_pod(pod.name, {"metadata": {"labels": rng.choice([
                {POD_NAME_LABEL: None}, {POD_NAME_LABEL: "someone-else"}, {POD_NAME_LABEL: pod.name},
                {"app": "other"}, {"app": "nginx"}])}})
        elif roll < 0.73:
            c.delete("web", cascade="orphan")
            c.apply(manifest)
        elif roll < 0.76 and pod is not None and pod.ordinal >= 0:
            # a second pod on an occupied ordinal (web-01 next to web-1), owned by the set
            sts = c.statefulset("web")
            twin = Pod(name=f"web-0{pod.ordinal}", labels=dict(pod.labels), spec=dict(pod.spec),
                       owner_references=(sts.ref(),))
            if c.store.get("Pod", "default", twin.name) is None:
                c._writes.create_pod(twin, "test: twin")
        elif roll < 0.79:
            claims = c.store.list("PersistentVolumeClaim", "default")
            if claims:
                claim = rng.choice(claims)
                c.store.update("PersistentVolumeClaim", replace(claim, owner_references=rng.choice([
                    (), (OwnerReference(kind="Pod", name="web-9", uid="gone", api_version="v1"),)])))
        elif roll < 0.82:
            c.inject_error(rng.choice(["create", "delete", "update"]), rng.choice(["Pod", "PersistentVolumeClaim"]))
        else:
            c.advance(rng.choice([0, 1, 3, 11]))
    except (ValueError, KeyError, APIError):
        pass


@pytest.mark.parametrize("seed", range(12))
def test_fast_paths_decide_like_the_plain_algorithm(seed):
    """processReplica / ClaimPods / updateStatefulSet: the fast paths and the plain algorithm agree
    on every state of a random walk (decisions with payloads, status, live revisions)."""
    rng = random.Random(seed)
    profile = ["current", "v1.36", "v1.16"][seed % 3]
    manifest = web(rng.randrange(1, 6), ["OrderedReady", "Parallel"][seed // 3 % 2], image="nginx:1",
                   min_ready=5 if seed % 4 in (1, 2) else 0, claims=seed % 2 == 0,
                   start=rng.choice([None, 1]) if profile != "v1.16" else None,
                   retention=rng.choice([None, {"whenScaled": "Delete", "whenDeleted": "Delete"},
                                         {"whenScaled": "Retain", "whenDeleted": "Delete"}])
                   if profile != "v1.16" else None, history=1)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(manifest)
    plans = 0
    for _ in range(150):
        if check_sync_paths(c) is not None:
            plans += 1
        if c.store.get("StatefulSet", "default", "web") is not None:
            c.sync("web")
        random_action(c, rng, manifest)
    assert plans > 100


def test_fast_paths_agree_during_a_whole_rollout():
    """processReplica's skipped slots: an auto rollout, a rolling update and a scale-down,
    checked before every sync."""
    c = stsedu.Cluster(seed=3)
    c.apply(web(8, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    for step in (lambda: None, lambda: c.set_image("web", "nginx:2"), lambda: c.scale("web", 3)):
        step()
        for _ in range(400):
            check_sync_paths(c)
            r = c.sync("web")
            if not (r.changed or r.error):
                nxt = c.clock.peek()
                if nxt is None:
                    break
                c.clock.advance_to(nxt)
        assert c.statefulset("web").status.ready_replicas == c.statefulset("web").spec.replicas


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
@pytest.mark.parametrize("profile", ["current", "v1.36"])
def test_update_step_has_nothing_to_do_when_every_replica_is_healthy_and_updated(policy, profile):
    """updateStatefulSet / updateStatefulSetAfterInvariantEstablished decide nothing when every
    replica is Running, Ready, Available and at the update revision (plan_sync skips the step then)."""
    c = stsedu.Cluster(profile=profile)
    for strategy in (None, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
                     {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 2}}):
        c.apply(web(4, policy, min_ready=2, strategy=strategy))
        c.run("web")
        c.advance(5)
        sts = c.statefulset("web")
        replicas = c.pods("web")
        assert all(p.revision == sts.status.update_revision and p.ready for p in replicas)
        p = c.profile
        assert plan_classic_update(sts, replicas, sts.status.update_revision, c.now, p) == []
        assert plan_max_unavailable_update(sts, replicas, sts.status.update_revision, c.now, p) == []


def test_store_view_stays_live_for_a_namespace_created_later():
    """The store's cached read-only views show objects written after the view was taken."""
    c = stsedu.Cluster(kubelet="manual")
    view = c.store.view("StatefulSet", "team-a")
    assert len(view) == 0
    m = web(1)
    m["metadata"]["namespace"] = "team-a"
    c.apply(m)
    assert list(view) == ["web"] and view["web"] is c.store.get("StatefulSet", "team-a", "web")


def test_revision_candidate_follows_the_template_and_the_cluster():
    """getStatefulSetRevisions: the remembered candidate never outlives a template change, and two
    clusters whose sets share a uid (uids are deterministic) each get their own."""
    a, b = stsedu.Cluster(kubelet="manual"), stsedu.Cluster(kubelet="manual")
    a.apply(web(1, image="nginx:1"))
    b.apply(web(1, image="nginx:2"))
    assert a.statefulset("web").uid == b.statefulset("web").uid
    a.sync("web")
    b.sync("web")
    ra, rb = a.revisions("web")[-1], b.revisions("web")[-1]
    assert ra.name != rb.name and '"nginx:1"' in ra.data and '"nginx:2"' in rb.data
    a.set_image("web", "nginx:2")
    a.sync("web")
    assert a.revisions("web")[-1].name == rb.name


def test_a_claim_changed_under_an_unchanged_pod_is_seen():
    """UpdatePodClaimForRetentionPolicy: a healthy pod whose claim lost its owner refs is fixed on
    the next sync, although the pod itself did not change (the memo checks the claim objects too)."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(3, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Delete"}))
    c.run("web")
    assert check_sync_paths(c).decisions == ()
    claim = c.store.get("PersistentVolumeClaim", "default", "data-web-1")
    c.store.update("PersistentVolumeClaim", replace(claim, owner_references=()))
    plan = check_sync_paths(c)
    assert ("update-pvc", "web-1", "retention-policy") in [d.as_tuple() for d in plan.decisions]
    c.sync("web")
    assert check_sync_paths(c).decisions == ()


def test_a_pod_becoming_available_later_is_seen():
    """processReplica: with minReadySeconds, the same unchanged Ready pod first blocks (not Available)
    and, once time has passed, no longer does (nothing about availability is cached)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, min_ready=10))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    assert [d.as_tuple() for d in check_sync_paths(c).decisions] == [("wait", "web-0", "not-available")]
    c.advance(11)
    assert [d.as_tuple() for d in check_sync_paths(c).decisions] == [("create", "web-1", "missing")]


def test_overview_sync_summary_matches_a_groupby_per_sync():
    """charts._sync_summary (one pass over the decision columns) words each sync as a groupby would."""
    import math

    import pandas as pd

    charts = pytest.importorskip("stsedu.charts")
    from stsedu import tables

    c = stsedu.Cluster(seed=1)
    c.apply(web(7, "Parallel"))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    c.scale("web", 2)
    c.run("web")
    syncs = c.trace.syncs()[["sync", "time"]]
    dec = c.trace.decisions()
    dec = dec[dec["action"].isin(tables.POD_ACTIONS)]
    words = {}
    for s, g in dec.groupby("sync"):
        parts = [f"{a} {p}" + (f" ({r})" if a == "wait" else "") for a, p, r in zip(g["action"], g["pod"], g["reason"])]
        words[int(s)] = "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")
    want = syncs.assign(decided=[words.get(int(s), "nothing about pods") for s in syncs["sync"]])
    assert any(w.endswith("more") for w in words.values())
    for max_points in (400, 10):
        got = charts._sync_summary(c.trace, "web", max_points=max_points)
        thinned = want.iloc[:: math.ceil(len(want) / max_points)] if len(want) > max_points else want
        pd.testing.assert_frame_equal(got, thinned.reset_index(drop=True))


def _outcome(r):
    return (r.sync, r.time, r.set_name, [(d.as_tuple(), d.applied, d.error, d.payload) for d in r.decisions],
            r.status, r.error)


@pytest.mark.parametrize("seed", range(12))
def test_a_repeated_quiet_sync_decides_like_a_full_sync(seed, monkeypatch):
    """StatefulSetController.sync: a sync that reuses its set's previous quiet outcome (every input the
    very same object, nothing clock-dependent) returns, writes and records exactly what planning the
    sync afresh does.  Two clusters take the same random walk, one with reuse switched off."""
    hits = []
    real = controller._reuse_quiet
    monkeypatch.setattr(controller, "_reuse_quiet", lambda *a: hits.append(real(*a)) or hits[-1])
    profile = ["current", "v1.36", "v1.16"][seed % 3]
    walk = random.Random(seed)
    manifest = web(walk.randrange(1, 6), ["OrderedReady", "Parallel"][seed // 3 % 2], image="nginx:1",
                   min_ready=5 if seed % 4 in (1, 2) else 0, claims=seed % 2 == 0,
                   retention={"whenScaled": "Delete", "whenDeleted": "Delete"} if profile != "v1.16" else None)
    clusters = [stsedu.Cluster(kubelet="manual", profile=profile) for _ in range(2)]
    clusters[1].reuse_quiet_syncs = False
    rngs = [random.Random(seed), random.Random(seed)]
    for c in clusters:
        c.apply(manifest)
    for step in range(200):
        results = []
        for c, rng in zip(clusters, rngs):
            for _ in range(2):  # a second sync straight away: the case reuse is for
                if c.store.get("StatefulSet", "default", "web") is not None:
                    results.append(_outcome(c.sync("web")))
            roll = rng.random()
            if roll < 0.05:
                c.feature_gates["MaxUnavailableStatefulSet"] = not c.feature_gates.get("MaxUnavailableStatefulSet")
            elif roll < 0.15:
                c.advance(rng.choice([1, 6]))
            elif roll < 0.35:  # let the set settle: the kubelet moves pods on, time passes minReadySeconds
                for _ in range(15):
                    if c.store.get("StatefulSet", "default", "web") is not None:
                        c.sync("web")
                    c.kubelet.step()
                c.advance(6)
            else:
                random_action(c, rng, manifest)
        half = len(results) // 2
        assert results[:half] == results[half:], f"step {step}"
    fast, full = clusters
    assert fast.store.dump() == full.store.dump()
    for table in ("decisions", "pods", "status", "events", "syncs"):
        assert getattr(fast.trace, table)().equals(getattr(full.trace, table)()), table
    reused = sum(q is not None for q in hits)
    assert reused > 20 and reused < len(hits)


def test_time_alone_making_pods_available_is_not_a_quiet_repeat():
    """isRunningAndAvailable: Ready pods that become Available with nothing written but the clock moving
    are counted by the next sync (a quiet sync whose outcome hangs on the clock is not reused)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, "Parallel", min_ready=10))
    c.sync("web")
    for name in ("web-0", "web-1"):
        c.kubelet.start(name)
        c.kubelet.set_ready(name)
    c.sync("web")
    quiet = c.sync("web")
    assert quiet.decisions == () and quiet.status.available_replicas == 0
    c.advance(11)
    later = c.sync("web")
    assert [d.action for d in later.decisions] == ["status"]
    assert c.statefulset("web").status.available_replicas == 2


def test_a_repeated_quiet_sync_sees_a_new_orphan_pod():
    """ClaimPods: an orphan that appears next to a stable set is adopted by the next sync, although the
    set and its own pods are the same objects as in the quiet sync before."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(2))
    c.run("web")
    assert c.sync("web").decisions == () and c.sync("web").decisions == ()
    sts = c.statefulset("web")
    pod = c.pods("web")[0]
    c._writes.create_pod(Pod(name="web-7", labels=dict(pod.labels), spec=dict(pod.spec)), "test: orphan")
    assert [d.as_tuple() for d in c.sync("web").decisions][:1] == [("adopt", "web-7", "orphan")]
    assert c.statefulset("web").uid == sts.uid
