"""The shipped algorithm decides what the earlier, hand-tuned planner decided.

The planner used to take one lean pass over the pods with inlined predicates,
a memo of per-pod checks and a replay cache for quiet syncs; it was checked
against a plain statement of the algorithm kept in this file.  The plain
algorithm is now the one shipped.  ``tests/data/walks.json`` holds what the
hand-tuned planner decided on every sync of seeded random walks through
real cluster states (scaling, rollouts, failures, label edits, orphaning and
adoption, claims and retention policies, the maxUnavailable gate flipping,
three profiles), recorded before it was replaced (``tests/walks.py``); each
walk is replayed here and every sync must decide the same.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache

import pytest

import stsedu
import walks
from helpers import web
from stsedu.api.objects import Pod
from stsedu.controller.decisions import STEP_UPDATE

RECORDED = json.loads(walks.DATA.read_text())


@lru_cache(maxsize=None)
def replay(name: str) -> dict:
    """The walk *name* of the recording, replayed with the shipped algorithm."""
    return walks.rollout() if name == "rollout" else walks.walk(int(name.split("-")[1]))


@pytest.mark.parametrize("name", sorted(RECORDED, key=lambda k: (len(k), k)))
def test_every_sync_of_a_recorded_walk_decides_as_before(name):
    """UpdateStatefulSet, ClaimPods, updateStatus, truncateHistory: the same decisions (and whether each
    took effect), the same status, on every sync; the same objects and trace at the end."""
    got = replay(name)
    want = RECORDED[name]["syncs"].split()
    lines = got["syncs"]
    for i, (line, recorded) in enumerate(zip(lines, want)):
        assert walks.fingerprint(line) == recorded, f"{name}: sync {i} differs from the recording: {line}"
    assert len(lines) == len(want)
    assert got["digest"] == RECORDED[name]["digest"]


def test_the_recording_covers_what_the_algorithm_does():
    """The walks reach the decisions that matter (a recording of idle syncs would prove nothing)."""
    seen = set()
    for name in RECORDED:
        for line in replay(name)["syncs"]:
            rows = line[:line.rindex("]")]  # the decisions: the last bracket (a sync's error may have its own)
            seen |= {d.split(",")[0] + ":" + d.split(",")[3] for d in rows[rows.rindex("[") + 1:].split(";") if d}
    for want in ("create:missing", "delete:update", "delete:scale-down", "delete:failed", "wait:not-running-ready",
                 "update:identity", "adopt:orphan", "release:selector-mismatch", "create-revision:new-template",
                 "update-revision:rollback", "delete-revision:history-limit", "create-pvc:missing",
                 "update-pvc:retention-policy", "status:changed", "wait:max-unavailable", "wait:claim-deleting",
                 "wait:scale-down-blocked", "wait:not-available"):
        assert want in seen, want


def check_plan(c: stsedu.Cluster, name: str = "web"):
    """The plan the next sync would carry out (None if the set is gone)."""
    try:
        return c.preview(name)
    except KeyError:
        return None


@pytest.mark.parametrize("gate", [True, False])
@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
@pytest.mark.parametrize("profile", ["current", "v1.36"])
def test_update_step_has_nothing_to_do_when_every_replica_is_healthy_and_updated(policy, profile, gate):
    """updateStatefulSet's last loop (gate off) and updateStatefulSetAfterInvariantEstablished (gate
    on) decide nothing when every replica is Running, Ready, Available and at the update revision."""
    c = stsedu.Cluster(profile=profile, feature_gates={"MaxUnavailableStatefulSet": gate})
    for strategy in (None, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
                     {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 2}}):
        c.apply(web(4, policy, min_ready=2, strategy=strategy))
        c.run("web")
        c.advance(5)
        sts = c.statefulset("web")
        assert all(p.revision == sts.status.update_revision and p.ready for p in c.pods("web"))
        assert [d for d in c.preview("web").decisions if d.step == STEP_UPDATE] == []


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
    """getStatefulSetRevisions: the candidate revision follows a template change, and two clusters
    whose sets share a uid (uids are deterministic) each get their own."""
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
    the next sync, although the pod itself did not change."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(3, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Delete"}))
    c.run("web")
    assert check_plan(c).decisions == ()
    claim = c.store.get("PersistentVolumeClaim", "default", "data-web-1")
    c.store.update("PersistentVolumeClaim", replace(claim, owner_references=()))
    plan = check_plan(c)
    assert ("update-pvc", "web-1", "retention-policy") in [d.as_tuple() for d in plan.decisions]
    c.sync("web")
    assert check_plan(c).decisions == ()


def test_a_pod_becoming_available_later_is_seen():
    """processReplica: with minReadySeconds, the same unchanged Ready pod first blocks (not Available)
    and, once time has passed, no longer does (nothing about availability is cached)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, min_ready=10))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    assert [d.as_tuple() for d in check_plan(c).decisions if d.action != "status"] == [("wait", "web-0", "not-available")]
    c.advance(11)
    assert [d.as_tuple() for d in check_plan(c).decisions if d.action != "status"] == [("create", "web-1", "missing")]


def test_overview_sync_summary_matches_a_groupby_per_sync():
    """linked.sync_summary (one pass over the decision columns) words each sync as a groupby would."""
    import math

    import pandas as pd

    linked = pytest.importorskip("stsedu.views.charts.linked")
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
        got = linked.sync_summary(c.trace, "web", max_points=max_points)
        thinned = want.iloc[:: math.ceil(len(want) / max_points)] if len(want) > max_points else want
        pd.testing.assert_frame_equal(got, thinned.reset_index(drop=True))


def test_time_alone_making_pods_available_is_not_a_quiet_repeat():
    """isRunningAndAvailable: Ready pods that become Available with nothing written but the clock moving
    are counted by the next sync."""
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
    set and its own pods are unchanged since the quiet sync before."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(2))
    c.run("web")
    assert c.sync("web").decisions == () and c.sync("web").decisions == ()
    sts = c.statefulset("web")
    pod = c.pods("web")[0]
    c._writes.create_pod(Pod(name="web-7", labels=dict(pod.labels), spec=dict(pod.spec)), "test: orphan")
    assert [d.as_tuple() for d in c.sync("web").decisions][:1] == [("adopt", "web-7", "orphan")]
    assert c.statefulset("web").uid == sts.uid
