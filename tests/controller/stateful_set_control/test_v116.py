"""The v1.16 profile: each difference of docs/behaviour.md section 2, pinned decision by decision.

The rules are those of the 1.14-1.20 ``stateful_set_control.go`` (``updateStatefulSet``,
``truncateHistory``), ``stateful_set_utils.go`` (``completeRollingUpdate``, ``isHealthy``),
``stateful_pod_control.go`` (``createPersistentVolumeClaims``) and the v1.16 apps
validation (``ValidateStatefulSetUpdate``); each test names the one it checks.
"""

from dataclasses import replace

import pytest

import stsedu
from helpers import acts, gone, ready, st, web
from rollout_helpers import bring_up
from stsedu.controller import stateful_set_control as control
from stsedu.controller import stateful_set_control_v116 as control_v116
from stsedu.controller.stateful_set import claimed_pods, set_control_for
from stsedu.api.objects import POD_INDEX_LABEL, StatefulSetSpec
from stsedu.api.profiles import CURRENT, V1_16
from stsedu.controller.recording_pod_control import recording_pod_control

POLICIES = ["OrderedReady", "Parallel"]


def v116(**kw):
    return stsedu.Cluster(kubelet="manual", profile="v1.16", **kw)


def up(c, n=3, policy="OrderedReady", **kw):
    """Apply web and bring every pod to Running and Ready by hand, one sync at a time."""
    r = bring_up(c, n, policy, **kw)
    assert (r.status.replicas, r.status.ready_replicas) == (n, n)
    return r


def plan_v116(snap):
    """The v1.16 ``UpdateStatefulSet`` of *snap*, its requests recorded by a pod control that writes nothing."""
    return control_v116.update_stateful_set(snap, V1_16, {}, recording_pod_control(snap, V1_16))


def plan_current(snap):
    """Today's ``UpdateStatefulSet`` of *snap*, its requests recorded by a pod control that writes nothing."""
    return control.update_stateful_set(snap, CURRENT, {}, recording_pod_control(snap, CURRENT))


def test_the_v116_update_is_the_profile_rule_update_in_steps_off_whatever_the_profile_is_called():
    """docs/behaviour.md, "How the kit models releases": the set control runs v1.16's
    ``updateStatefulSet`` for a profile whose rule ``update_in_steps`` is off, and today's otherwise;
    the profile's name chooses nothing."""
    assert set_control_for(V1_16) is control_v116.update_stateful_set
    assert set_control_for(replace(V1_16, name="walkthrough")) is control_v116.update_stateful_set
    assert set_control_for(replace(V1_16, update_in_steps=True)) is control.update_stateful_set
    assert set_control_for(CURRENT) is control.update_stateful_set


def snapshot(c, name="web", **spec_changes):
    """The snapshot the next sync would use, optionally with spec fields changed behind the API's back."""
    sts = c.statefulset(name)
    if spec_changes:
        sts = replace(sts, spec=StatefulSetSpec.from_manifest({**sts.spec.raw, **spec_changes}))
    return control.Snapshot(
        sts=sts, pods=tuple(claimed_pods(sts, c.store.list("Pod", "default"))),
        claims=c.store.view("PersistentVolumeClaim", "default"),
        namespace_revisions=c.store.view("ControllerRevision", "default"), now=c.now)


def plan_acts(plan):
    return [d.as_tuple() for d in plan.decisions if d.action in ("create", "delete", "update", "wait")]


# ------------------------------------------------------------------ 2.1 no slowStartBatch


def test_parallel_stops_at_first_failed_request():
    """updateStatefulSet (v1.16) has no slowStartBatch: a Parallel sync walks the slots one by one
    and returns at the first failed create; the newest controller still tries the rest of the batch."""
    outcomes = {}
    for profile in ("current", "v1.16"):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        up(c, 1, "Parallel")
        c.scale("web", 4)
        c.inject_error("create", "Pod")
        r = c.sync("web")
        outcomes[profile] = {d.pod: d.applied for d in r.decisions if d.action == "create"}
        assert r.error is not None
        assert "web-3" not in [p.name for p in c.pods("web")]
    assert outcomes["v1.16"] == {"web-1": False}                     # returned at the first failure
    assert outcomes["current"] == {"web-1": False, "web-2": True}    # the rest of its batch (1, 2), no later one


# ------------------------------------------------------------------ 2.2 failed pods


@pytest.mark.parametrize("policy", POLICIES)
def test_failed_pod_deleted_and_recreated_in_one_pass_fails_with_already_exists(policy):
    """updateStatefulSet (v1.16): isFailed -> DeleteStatefulPod, then CreateStatefulPod in the same
    iteration; the old pod is still terminating, so the create gets AlreadyExists, the sync errors,
    no status is written, and every retry deletes again until the pod is gone (S8, v1.16)."""
    c = v116()
    up(c, 3, policy)
    before = c.statefulset("web").status
    old_uid = c.pod("web-1").uid
    c.kubelet.fail("web-1")
    for _ in range(2):
        r = c.sync("web")
        assert acts(r)[:2] == [("delete", "web-1", "failed"), ("create", "web-1", "missing")]
        # the failed create returns from updateStatefulSet: the rolling-update loop is not reached
        assert [d for d in r.decisions if d.step == "update"] == []
        delete, create = [d for d in r.decisions if d.action in ("delete", "create")]
        assert delete.applied is True and create.applied is False
        assert create.error == 'pods "web-1" already exists' and "AlreadyExists" in create.message
        assert r.error and r.status is None
        assert c.statefulset("web").status == before  # still 3 ready: nothing was written
        assert c.pod("web-1").terminating and c.pod("web-1").uid == old_uid
    assert not c.pod("web-2").terminating
    gone(c, "web-1")
    r = c.sync("web")
    assert acts(r)[0] == ("create", "web-1", "missing") and r.error is None
    assert st(r) == (3, 2, 0, 3, 3)  # the new pod is counted at once


def test_failed_pod_with_zero_grace_period_is_replaced_in_the_same_sync():
    """updateStatefulSet (v1.16): with terminationGracePeriodSeconds 0 the delete removes the pod
    at once, so the replacement is created in the same sync; status: -1 then +1 replicas."""
    c = v116()
    m = web(3)
    m["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 0
    c.apply(m)
    for _ in range(8):
        c.sync("web")
        for p in c.pods("web"):
            if not p.ready:
                ready(c, p.name)
                break
    old_uid = c.pod("web-1").uid
    c.kubelet.fail("web-1")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-1", "failed"), ("create", "web-1", "missing")]
    assert all(d.applied for d in r.decisions if d.action in ("delete", "create")) and r.error is None
    assert c.pod("web-1").uid != old_uid and c.pod("web-1").phase == "Pending"
    assert st(r) == (3, 2, 0, 3, 3)


def test_succeeded_pod_is_not_replaced():
    """updateStatefulSet (v1.16) tests isFailed only: a Succeeded pod is not Running and Ready, so an
    OrderedReady set waits on it for ever (newest: deleted like a Failed pod, PR #121389)."""
    c = v116()
    up(c, 3)
    c.kubelet.succeed("web-1")
    for _ in range(3):
        r = c.sync("web")
        assert acts(r) == [("wait", "web-1", "not-running-ready")]
        assert "Succeeded" in r.waits[0].message
    assert c.pod("web-1").phase == "Succeeded" and not c.pod("web-1").terminating


def test_succeeded_pod_in_parallel_set_is_left_alone():
    """updateStatefulSet (v1.16), burst mode: a Succeeded pod passes identity/storage and is kept."""
    c = v116()
    up(c, 2, "Parallel")
    c.kubelet.succeed("web-0")
    # only the update loop's 'waiting for Pod to update' on the not-healthy pod (isHealthy)
    assert acts(c.sync("web")) == [("wait", "web-0", "update-unavailable")]
    assert st(c.statefulset("web")) == (2, 1, 0, 2, 2)


# ------------------------------------------------------------------ 2.3 no minReadySeconds


def test_min_ready_seconds_is_dropped_with_a_warning_and_never_waited_for():
    """A v1.16 API server prunes spec.minReadySeconds (added in v1.22); the controller creates the
    next pod as soon as the previous one is Running and Ready, and never counts availableReplicas."""
    c = v116()
    c.apply(web(2, min_ready=30))
    assert len(c.last_warnings) == 1
    w = c.last_warnings[0]
    assert '"spec.minReadySeconds"' in w and "v1.22" in w and "v1.16" in w and "--validate=false" in w
    assert "minReadySeconds" not in c.statefulset("web").to_manifest()["spec"]
    events = c.trace.events()
    assert (events[events.reason == "UnknownField"].message == w).all()
    c.sync("web")
    ready(c, "web-0")
    r = c.sync("web")
    assert acts(r) == [("create", "web-1", "missing")]
    assert r.status.available_replicas == 0


def test_planner_ignores_min_ready_seconds_in_a_snapshot():
    """update_stateful_set (v1.16) ignores minReadySeconds even if a snapshot carries it; the newest planner
    waits for the pod to be Available (isRunningAndAvailable)."""
    c = v116()
    c.apply(web(2))
    c.sync("web")
    ready(c, "web-0")
    snap = snapshot(c, minReadySeconds=100)
    assert snap.sts.spec.min_ready_seconds == 100
    assert plan_acts(plan_v116(snap)) == [("create", "web-1", "missing")]
    assert plan_acts(plan_current(snap)) == [("wait", "web-0", "not-available")]


# ------------------------------------------------------------------ 2.4 no start ordinal


def test_start_ordinal_is_dropped_and_pods_start_at_zero():
    """spec.ordinals (v1.26) is pruned; v1.16 slots are 0..replicas-1 and scale down removes the
    highest ordinal first (condemned sorted ascending, walked from the top)."""
    c = v116()
    up(c, 3, start=5)
    assert any('"spec.ordinals"' in w and "v1.26" in w for w in c.trace.events().message)
    assert [p.name for p in c.pods("web")] == ["web-0", "web-1", "web-2"]
    c.scale("web", 1)
    assert acts(c.sync("web")) == [("delete", "web-2", "scale-down")]
    assert plan_acts(plan_v116(snapshot(c, ordinals={"start": 5}))) == [
        ("wait", "web-2", "terminating")]


# ------------------------------------------------------------------ 2.5 no PVC retention


def test_retention_policy_is_dropped_and_claims_get_no_owners():
    """persistentVolumeClaimRetentionPolicy (v1.23) is pruned: claims never get owner refs and
    survive scale down (the controller never deletes claims)."""
    c = v116()
    up(c, 3, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Delete"})
    assert any("persistentVolumeClaimRetentionPolicy" in w for w in c.trace.events().message)
    assert [p.name for p in c.pvcs("web")] == ["data-web-0", "data-web-1", "data-web-2"]
    assert all(p.owner_references == () for p in c.pvcs("web"))
    c.scale("web", 1)
    for _ in range(4):
        c.sync("web")
        for p in c.pods("web"):
            if p.terminating:
                gone(c, p.name)
        c.advance(1)
    assert [p.name for p in c.pods("web")] == ["web-0"]
    assert [p.name for p in c.pvcs("web")] == ["data-web-0", "data-web-1", "data-web-2"]
    d = c.trace.decisions()
    assert not d.action.isin(["update-pvc"]).any()


def test_claim_being_deleted_does_not_block_create():
    """createPersistentVolumeClaims (v1.16) only creates missing claims: an existing claim, even one
    being deleted, lets the pod be created; the newest controller waits (claim-deleting)."""
    c = v116()
    c.apply(web(1, claims=True))
    c.sync("web")
    c.delete_pod("web-0")
    gone(c, "web-0")
    claim = c.store.get("PersistentVolumeClaim", "default", "data-web-0")
    c.store.update("PersistentVolumeClaim", replace(claim, deletion_timestamp=c.now))
    snap = snapshot(c)
    assert plan_acts(plan_v116(snap)) == [("create", "web-0", "missing")]
    assert plan_acts(plan_current(snap)) == [("wait", "web-0", "claim-deleting")]


def test_pending_pod_claim_is_not_recreated():
    """updateStatefulSet (v1.16) has no 'create claims of a Pending pod' step: a claim deleted under
    a Pending pod stays missing while the set waits on the pod."""
    c = v116()
    c.apply(web(1, claims=True))
    c.sync("web")
    c.store.remove("PersistentVolumeClaim", "default", "data-web-0")
    snap = snapshot(c)
    v116_plan = plan_v116(snap)
    assert [d.action for d in v116_plan.decisions if d.action != "status"] == ["wait"]
    assert "create-pvc" in [d.action for d in plan_current(snap).decisions]


# ------------------------------------------------------------------ 2.6 no maxUnavailable


def test_max_unavailable_is_dropped_and_update_goes_one_pod_at_a_time():
    """rollingUpdate.maxUnavailable (v1.24) is pruned; the v1.16 update loop deletes the highest
    old-revision pod and returns: one pod per sync."""
    c = v116()
    up(c, 3, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 3}})
    assert "maxUnavailable" not in c.statefulset("web").to_manifest()["spec"]["updateStrategy"]["rollingUpdate"]
    c.set_image("web", "nginx:2")
    r = c.sync("web")
    assert acts(r) == [("delete", "web-2", "update")]
    assert st(r) == (3, 3, 0, 2, 0)
    assert acts(c.sync("web")) == [("wait", "web-2", "terminating")]
    newest = stsedu.Cluster(kubelet="manual")  # gate on: all three within maxUnavailable 3
    up(newest, 3, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 3}})
    newest.set_image("web", "nginx:2")
    assert acts(newest.sync("web")) == [("delete", f"web-{i}", "update") for i in (2, 1, 0)]


def test_rolling_update_waits_on_unhealthy_updated_pod():
    """updateStatefulSet (v1.16): after replacing web-2 the loop waits while it is not isHealthy."""
    c = v116()
    up(c, 3)
    c.set_image("web", "nginx:2")
    c.sync("web")
    gone(c, "web-2")
    r = c.sync("web")
    assert acts(r) == [("create", "web-2", "missing")]
    assert st(r) == (3, 2, 0, 2, 1)  # docs/behaviour.md section 6, rolling update, sync 3, in v1.16: the new pod is counted
    assert acts(c.sync("web")) == [("wait", "web-2", "not-running-ready")]
    ready(c, "web-2")
    assert acts(c.sync("web")) == [("delete", "web-1", "update")]


# ------------------------------------------------------------------ 2.7 no pod-index label


def test_pods_have_no_pod_index_label():
    """newStatefulSetPod (v1.16) sets only the pod-name and revision labels."""
    c = v116()
    up(c, 2)
    assert all(POD_INDEX_LABEL not in p.labels for p in c.pods("web"))
    assert all(p.labels["statefulset.kubernetes.io/pod-name"] == p.name for p in c.pods("web"))


# ------------------------------------------------------------------ 2.8 firstUnhealthyPod
# (test_scaling.py: test_scale_down_waits_for_first_unhealthy_condemned_pod, both profiles)


# ------------------------------------------------------------------ 2.9 status arithmetic


def test_status_counts_created_pod_at_once():
    """updateStatefulSet (v1.16): +1 replicas/current/updated for each pod created (S1, v1.16)."""
    c = v116()
    c.apply(web(3))
    r = c.sync("web")
    assert acts(r) == [("create", "web-0", "missing")]
    assert st(r) == (1, 0, 0, 1, 1)
    assert st(c.statefulset("web")) == (1, 0, 0, 1, 1)


def test_status_scale_down_decrements_current_and_updated_not_replicas():
    """updateStatefulSet (v1.16): a condemned pod deleted is -1 current/updated, replicas kept (S3)."""
    c = v116()
    up(c, 3)
    c.scale("web", 1)
    r = c.sync("web")
    assert acts(r) == [("delete", "web-2", "scale-down")]
    assert st(r) == (3, 3, 0, 2, 2)
    r = c.sync("web")
    assert acts(r) == [("wait", "web-2", "terminating")] and st(r) == (3, 3, 0, 2, 2)
    gone(c, "web-2")
    assert st(c.sync("web")) == (2, 2, 0, 1, 1)


def test_status_counts_every_claimed_pod():
    """updateStatefulSet (v1.16): status.replicas counts all claimed pods, terminating ones too."""
    c = v116()
    up(c, 3, "Parallel")
    c.delete_pod("web-1")
    r = c.sync("web")
    assert [a for a in acts(r) if a[0] != "wait"] == []
    assert st(r) == (3, 3, 0, 2, 2)


# ------------------------------------------------------------------ 2.10 no status on error


def test_failed_sync_writes_no_status():
    """performUpdate (v1.16) returns before updateStatefulSetStatus when updateStatefulSet fails;
    the newest controller still writes the status it computed."""
    stored = {}
    for profile in ("current", "v1.16"):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        c.apply(web(2))
        c.sync("web")
        ready(c, "web-0")
        before = c.statefulset("web").status
        c.inject_error("create", "Pod")
        r = c.sync("web")
        assert acts(r) == [("create", "web-1", "missing")] and r.error
        stored[profile] = (before, c.statefulset("web").status, r.status)
    before, after, result = stored["v1.16"]
    assert after == before and result is None
    before, after, result = stored["current"]
    assert after.ready_replicas == 1 and before.ready_replicas == 0 and result is not None


# ------------------------------------------------------------------ 2.11 completeRollingUpdate


def test_complete_rolling_update_compares_with_counted_replicas():
    """completeRollingUpdate (v1.16): updated == ready == status.replicas promotes the update revision
    even when fewer pods than spec.replicas exist (here: the set is being deleted, nothing is created)."""
    c = v116()
    up(c, 3)
    c.set_image("web", "nginx:2")
    for victim in ("web-2", "web-1"):
        c.sync("web")
        gone(c, victim)
        c.sync("web")
        ready(c, victim)
        c.sync("web")
    c.delete_pod("web-0")
    gone(c, "web-0")
    sts = c.statefulset("web")
    snap = replace(snapshot(c), sts=replace(sts, deletion_timestamp=c.now))
    old, new = sts.status.current_revision, sts.status.update_revision
    assert old != new
    p116 = plan_v116(snap)
    assert (p116.status.replicas, p116.status.updated_replicas) == (2, 2)
    assert p116.status.current_revision == new
    assert plan_current(snap).status.current_revision == old  # newest: 2 != spec.replicas 3


def test_ondelete_set_never_promotes_current_revision():
    """completeRollingUpdate (v1.16) only promotes RollingUpdate sets."""
    c = v116()
    up(c, 2, strategy={"type": "OnDelete"})
    c.set_image("web", "nginx:2")
    c.sync("web")
    for name in ("web-1", "web-0"):
        c.delete_pod(name)
        gone(c, name)
        c.sync("web")
        ready(c, name)
        c.sync("web")
    sts = c.statefulset("web")
    assert st(sts) == (2, 2, 0, 0, 2)
    assert sts.status.current_revision != sts.status.update_revision


# ------------------------------------------------------------------ 2.13 negative history limit


def test_negative_history_limit_fails_the_sync():
    """truncateHistory (v1.16) has no guard for revisionHistoryLimit < 0 and panics (#129018);
    stsedu fails the sync with an error decision and writes no status."""
    c = v116()
    up(c, 1)
    snap = snapshot(c, revisionHistoryLimit=-1)
    plan = plan_v116(snap)
    errors = [d for d in plan.decisions if d.action == "error"]
    assert len(errors) == 1 and errors[0].reason == "negative-history-limit"
    assert "panic" in errors[0].error
    assert not [d for d in plan_current(snap).decisions if d.action in ("error", "delete-revision")]


def test_history_is_truncated_like_newest():
    """truncateHistory (v1.16): the oldest non-live revisions beyond the limit are deleted."""
    c = v116()
    up(c, 1, history=1)
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        c.set_image("web", image)
        for _ in range(6):
            c.sync("web")
            for p in c.pods("web"):
                if p.terminating:
                    gone(c, p.name)
                elif not p.ready:
                    ready(c, p.name)
    c.sync("web")
    assert len(c.revisions("web")) <= 1 + 2


# ------------------------------------------------------------------ 2.14/2.15 same as newest


def test_revisions_and_rollback_match_newest():
    """getStatefulSetRevisions is unchanged since v1.16 (rollback renumbers the old revision, same
    name); only the names differ, as v1.16 serialised the template with creationTimestamp: null."""
    made = {}
    for profile in ("current", "v1.16"):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        up(c, 1)
        first = c.revisions("web")[0].name
        c.set_image("web", "nginx:2")
        c.sync("web")
        second = c.revisions("web")[-1].name
        c.rollout_undo("web")
        c.sync("web")
        made[profile] = ([(r.name, r.revision) for r in c.revisions("web")], first, second,
                         [r.data for r in c.revisions("web")])
    for profile, (revisions, first, second, data) in made.items():
        assert revisions == [(second, 2), (first, 3)], profile
    assert made["current"][1] != made["v1.16"][1]
    assert all('"creationTimestamp":null' in d for d in made["v1.16"][3])
    assert not any("creationTimestamp" in d for d in made["current"][3])


# ------------------------------------------------------------------ the API of v1.16


def test_revision_history_limit_is_immutable_in_v116():
    """ValidateStatefulSetUpdate (v1.16): only replicas, template and updateStrategy may change;
    the cluster is left exactly as it was."""
    c = v116()
    c.apply(web(1))
    before = c.dump()
    with pytest.raises(stsedu.ValidationError) as e:
        c.patch("web", {"spec": {"revisionHistoryLimit": 3}})
    assert e.value.errors == [("spec", "Forbidden: updates to statefulset spec for fields other than "
                                       "'replicas', 'template', and 'updateStrategy' are forbidden")]
    assert c.dump() == before
    newest = stsedu.Cluster(kubelet="manual")
    newest.apply(web(1))
    assert newest.patch("web", {"spec": {"revisionHistoryLimit": 3}}).spec.revision_history_limit == 3


def test_patch_with_newer_field_is_accepted_and_dropped():
    """A v1.16 API server prunes a field it does not know on every write, patches included."""
    c = v116()
    c.apply(web(1))
    gen = c.statefulset("web").generation
    sts = c.patch("web", {"spec": {"minReadySeconds": 5}})
    assert sts.generation == gen and "minReadySeconds" not in sts.spec.raw
    assert len(c.last_warnings) == 1 and "minReadySeconds" in c.last_warnings[0]
    c.scale("web", 2)
    assert c.last_warnings == []


def test_newest_profile_keeps_the_fields_without_warnings():
    """The current profile knows every field: nothing is dropped, nothing is warned."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, min_ready=5, start=1))
    assert c.last_warnings == []
    assert c.statefulset("web").spec.min_ready_seconds == 5
    assert c.statefulset("web").spec.start_ordinal == 1


def test_v116_knows_no_feature_gates():
    """kube-controller-manager v1.16 refuses a gate it does not know (MaxUnavailableStatefulSet: 1.24)."""
    with pytest.raises(ValueError, match="MaxUnavailableStatefulSet was added in v1.24"):
        stsedu.Cluster(profile="v1.16", feature_gates={"MaxUnavailableStatefulSet": True})


def test_run_backs_off_after_failed_syncs():
    """The workqueue requeues a failed key with rate limiting (5 ms, doubling): in auto mode the
    v1.16 retries of a Failed pod come at growing intervals until the old pod is gone."""
    c = stsedu.Cluster(profile="v1.16", seed=0)
    c.apply(web(2))
    c.run("web")
    c.kubelet.fail("web-1")
    results = c.run("web")
    failing = [r.time for r in results if r.error]
    assert len(failing) >= 3
    gaps = [b - a for a, b in zip(failing, failing[1:])]
    assert all(abs(g2 - 2 * g1) < 1e-9 for g1, g2 in zip(gaps, gaps[1:]))
    assert results[-1].error is None and st(c.statefulset("web")) == (2, 2, 0, 2, 2)


def test_v116_sync_fails_with_create_stateful_pods_error_when_a_claim_create_fails():
    """v1.16 ``CreateStatefulPod`` returns ``createPersistentVolumeClaims``' aggregate ("failed to create
    PVC <name>: <err>", stateful_pod_control.go of v1.16.15), which ``updateStatefulSet`` returns: the
    sync's error is that, not the API server's answer alone."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16")
    c.apply(web(1, claims=True))
    c.inject_error("create", "PersistentVolumeClaim")
    r = c.sync("web")
    assert r.error == ("failed to create PVC data-web-0: InternalError: simulated failure to create "
                       "PersistentVolumeClaim 'data-web-0'")
    assert [d.as_tuple() for d in r.decisions if d.action in ("create-pvc", "create")] == [
        ("create-pvc", "web-0", "missing")]
