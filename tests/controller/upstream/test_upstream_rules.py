"""Issue 27: what an independent differential run found the kit doing unlike the real controller.

Each test is the minimised history of one divergence, named after the upstream rule it checks
(k8s.io/kubernetes v1.37.2, ``pkg/controller/statefulset`` and ``pkg/controller/history``).
``tests/controller/upstream/test_upstream.py`` runs the same histories beside the real code (``ISSUE_27``).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import pytest

import stsedu
from stsedu.api.objects import POD_NAME_LABEL, Pod

CLAIMS = [{"metadata": {"name": name},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
          for name in ("data", "logs")]


def web(replicas=1, claims=0, **spec) -> dict:
    body = {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]}}}
    if claims:
        body["volumeClaimTemplates"] = CLAIMS[:claims]
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": body}


def one_stable_pod(profile: str = "current") -> stsedu.Cluster:
    """A manual-kubelet cluster of *profile* with a one-replica ``web`` whose ``web-0`` is Running and
    Ready and already counted by a second sync."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(web(1))
    c.sync("web")
    ready(c, "web-0")
    c.sync("web")
    return c


def ready(c, name):
    c.kubelet.start(name)
    c.kubelet.set_ready(name)


def events(c, sync=None):
    rows = c.trace.rows()["events"]
    return [(t, reason, msg) for n, _, t, reason, obj, msg in rows
            if obj == "statefulset/web" and (sync is None or n == sync)
            and (reason.startswith(("Successful", "Failed")) or reason == "ConflictingController")]


# ------------------------------------------------------------------ the six divergences

def claim_update_error_then_no_claim_create(c):
    c.apply(web(2, claims=2))
    c.sync("web")
    ready(c, "web-0")
    c.patch("web", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}})
    c.inject_error("update", "PersistentVolumeClaim")


def test_failed_claim_update_ends_the_ordered_sync_before_the_next_pods_claims():
    """UpdateStatefulPod returns the error of UpdatePodClaimForRetentionPolicy, processReplica
    returns it and an OrderedReady sync stops: web-1's createPersistentVolumeClaims never runs,
    so no claim of web-1 is created (the kit created logs-web-1)."""
    c = stsedu.Cluster(kubelet="manual")
    claim_update_error_then_no_claim_create(c)
    r = c.sync("web")
    assert r.error is not None
    assert [p.name for p in c.pvcs("web")] == ["data-web-0", "logs-web-0"]
    assert not [d for d in r.decisions if d.action == "create-pvc" and d.applied is not False]
    assert ("Warning", "FailedUpdate") in [e[:2] for e in events(c, r.sync)]


def reapply_while_the_old_revision_waits_for_gc(c):
    c.apply(web(0))
    c.sync("web")
    c.delete("web")
    c.apply(web(0))


def test_revision_create_is_sent_even_when_the_name_is_taken():
    """CreateControllerRevision POSTs the revision first and reuses an equal one only on
    AlreadyExists; an injected create error therefore fails getStatefulSetRevisions and the sync."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=5)
    reapply_while_the_old_revision_waits_for_gc(c)
    c.inject_error("create", "ControllerRevision")
    r = c.sync("web")
    assert r.error is not None
    c.clear_errors()
    r = c.sync("web")
    probe = [d for d in r.decisions if d.action == "reuse-revision"]
    assert r.error is None and probe and probe[0].applied is True


def test_status_update_is_retried_on_conflict():
    """UpdateStatefulSetStatus runs retry.RetryOnConflict(retry.DefaultRetry): one Conflict, then
    the status is written and the sync succeeds; five Conflicts fail it."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.inject_error("update", "StatefulSet", reason="Conflict")
    r = c.sync("web")
    status = [d for d in r.decisions if d.action == "status"]
    assert r.error is None and status[0].applied is True and status[0].retries == 1
    assert c.statefulset("web").status.observed_generation == 1
    c.scale("web", 2)
    ready(c, "web-0")
    c.inject_error("update", "StatefulSet", reason="Conflict", count=5)
    r = c.sync("web")
    status = [d for d in r.decisions if d.action == "status"]
    assert r.error is not None and status[0].applied is False and status[0].retries == 4


def test_pod_update_is_retried_on_conflict():
    """UpdateStatefulPod runs its closure under retry.RetryOnConflict(retry.DefaultBackoff): a pod
    that lost its identity is updated after one Conflict, with one SuccessfulUpdate event."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    ready(c, "web-0")
    c.patch_pod("web-0", {"metadata": {"labels": {POD_NAME_LABEL: None}}})
    c.inject_error("update", "Pod", reason="Conflict")
    r = c.sync("web")
    update = [d for d in r.decisions if d.action == "update"]
    assert r.error is None and update[0].applied is True and update[0].resent == (("update", "Pod", "web-0", True),
                                                                                ("update", "Pod", "web-0", False))
    assert c.pod("web-0").labels[POD_NAME_LABEL] == "web-0"
    assert [e[:2] for e in events(c, r.sync)] == [("Normal", "SuccessfulUpdate")]


def hand_made_leading_zero_pod(c):
    c.apply(web(1))
    sts = c.store.get("StatefulSet", "default", "web")
    c.store.create("Pod", Pod(name="web-00", labels={"app": "web"}, owner_references=(sts.ref(),),
                              spec={"containers": [{"name": "nginx", "image": "nginx:1"}]}, phase="Pending"))
    c.kubelet.start("web-00")
    c.kubelet.set_ready("web-00")


def test_leading_zero_ordinal_is_not_the_pods_identity():
    """identityMatches requires pod.Name == getPodName(set, ordinal): web-00 (ordinal 0) is not
    web-0, so updateIdentity renames it and the update goes to pods/web-0, which does not
    exist (NotFound); the sync fails and web-00 is left as it was."""
    c = stsedu.Cluster(kubelet="manual")
    hand_made_leading_zero_pod(c)
    before = c.pod("web-00")
    r = c.sync("web")
    update = [d for d in r.decisions if d.action == "update"]
    assert update and update[0].payload.name == "web-0" and update[0].applied is False
    assert 'pods "web-0" not found' in r.error
    assert c.pod("web-00").labels == before.labels
    assert events(c, r.sync) == [("Warning", "FailedUpdate",
                                  'Update Pod web-0 in StatefulSet web failed error: pods "web-0" not found')]


def ready_with_min_ready_seconds(c):
    c.apply(web(1, minReadySeconds=5))
    c.sync("web")
    ready(c, "web-0")


def test_no_availability_requeue_after_a_failed_sync():
    """syncStatefulSet returns UpdateStatefulSet's error before enqueueSSAfter: a failed sync plans
    no availability requeue (the kit scheduled one at t=5)."""
    c = stsedu.Cluster(kubelet="manual")
    ready_with_min_ready_seconds(c)
    c.inject_error("update", "StatefulSet")
    r = c.sync("web")
    assert r.error is not None and r.requeue_after is None
    assert not [label for _, label in c.clock.pending() if "minReadySeconds" in label]
    c.clear_errors()
    r = c.sync("web")
    assert r.error is None and r.requeue_after == 5


def test_availability_requeue_is_at_the_instant_the_pod_is_available():
    """FindMinNextPodAvailabilityCheck: the loop requeues the set at lastTransitionTime +
    minReadySeconds, when the pod counts as available, not one second after."""
    c = stsedu.Cluster(kubelet="auto")
    c.apply(web(2, minReadySeconds=3))
    c.run()
    ready_at = sorted(p.ready_since for p in c.pods("web"))
    q = c.trace.queue()
    requeues = q[q["cause"].str.contains("Ready pods not yet Available")]
    assert len(requeues) >= 2
    for _, row in requeues.iterrows():
        due = max(t for t in ready_at if t <= row["time"]) + 3
        assert row["event"] == f"requeued after delay ({due - row['time']:g} s)"


def released_pod_answers_invalid(c):
    c.apply(web(1))
    c.sync("web")
    c.patch_pod("web-0", {"metadata": {"labels": {"app": "other"}}})
    c.inject_error("update", "Pod", reason="Invalid")


def test_release_answered_invalid_is_ignored():
    """ReleasePod ignores NotFound and Invalid (the pod has no such owner any more, or was
    re-created): the sync goes on to UpdateStatefulSet, whose create of the missing web-0 then
    meets the unreleased pod of that name (AlreadyExists)."""
    c = stsedu.Cluster(kubelet="manual")
    released_pod_answers_invalid(c)
    r = c.sync("web")
    assert [(d.action, d.applied) for d in r.decisions][:2] == [("release", True), ("create", False)]
    assert r.error == 'pods "web-0" already exists'
    assert c.pod("web-0").owner == "web"  # not released


# ------------------------------------------------------------------ events

def test_event_messages_are_title_case():
    """recordPodEvent and recordClaimEvent title-case the verb: "Create Pod web-0 ...", "Create
    Claim data-web-0 Pod web-0 ..." (the kit wrote "create ...")."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, claims=1))
    c.sync("web")
    assert [e[2] for e in events(c)] == ["Create Claim data-web-0 Pod web-0 in StatefulSet web success",
                                         "Create Pod web-0 in StatefulSet web successful"]


def test_failed_claims_make_one_pod_event_with_every_error():
    """createPersistentVolumeClaims aggregates its errors (errorutils.NewAggregate) and
    CreateStatefulPod records one FailedCreate for the pod, after one per claim."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, claims=2))
    c.inject_error("create", "PersistentVolumeClaim", count=2)
    r = c.sync("web")
    got = events(c, r.sync)
    assert [e[1] for e in got] == ["FailedCreate"] * 3
    pod_event = got[-1][2]
    assert pod_event.startswith("Create Pod web-0 in StatefulSet web failed error: [failed to create PVC data-web-0: ")
    assert ", failed to create PVC logs-web-0: " in pod_event and pod_event.endswith("]")


def test_fix_pod_claim_records_no_event():
    """fixPodClaim (claims of pods being scaled away) returns the error of
    UpdatePodClaimForRetentionPolicy without recording a pod event."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, claims=1, podManagementPolicy="Parallel"))
    c.sync("web")
    for name in ("web-0", "web-1"):
        ready(c, name)
    c.patch("web", {"spec": {"replicas": 1,
                             "persistentVolumeClaimRetentionPolicy": {"whenScaled": "Delete"}}})
    c.inject_error("update", "PersistentVolumeClaim", count=50)
    r = c.sync("web")
    assert r.error is not None
    assert [d.rule for d in r.decisions if d.action == "update-pvc" and d.applied is False][:1] \
        == ["fixPodClaim: claim owner refs of condemned pod"]
    assert not [e for e in events(c, r.sync) if e[1] == "FailedUpdate" and "web-1" in e[2]]


def test_claim_being_deleted_fails_the_create_even_with_an_old_pod_of_that_name():
    """CreateStatefulPod records FailedCreate when createPersistentVolumeClaims finds a claim being
    deleted, whatever else exists (the kit skipped it while a same-named old pod was still there)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, claims=1))
    c.sync("web")
    ready(c, "web-0")
    claim = c.store.get("PersistentVolumeClaim", "default", "data-web-0")
    c.store.update("PersistentVolumeClaim", replace(claim, deletion_timestamp=c.now))
    old = c.store.get("Pod", "default", "web-0")
    c.store.update("Pod", replace(old, owner_references=()))  # an orphan the set does not adopt...
    c.patch_pod("web-0", {"metadata": {"labels": {"app": "old"}}})  # ...because it no longer matches
    r = c.sync("web")
    assert r.error == "pvc data-web-0 is being deleted"
    assert ("Warning", "FailedCreate", "Create Pod web-0 in StatefulSet web failed error: pvc data-web-0 "
            "is being deleted") in events(c, r.sync)


def test_conflicting_controller_is_warned_about_whenever_the_claims_are_looked_at():
    """UpdatePodClaimForRetentionPolicy records ConflictingController for every claim with
    another managing controller, also when its refs need no change (CreateStatefulPod calls it
    for every new pod)."""
    from stsedu.api.objects import OwnerReference
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, claims=1, persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete"}))
    c.sync("web")
    claim = c.store.get("PersistentVolumeClaim", "default", "data-web-0")
    other = OwnerReference(kind="Deployment", name="other", uid="u-other", api_version="apps/v1",
                           controller=True)
    c.store.update("PersistentVolumeClaim", replace(claim, owner_references=(other,)))
    c.store.remove("Pod", "default", "web-0")
    r = c.sync("web")
    assert [e[1] for e in events(c, r.sync)] == ["ConflictingController", "SuccessfulCreate"]
    assert "acts as a manging controller" in events(c, r.sync)[0][2]  # upstream's wording


def test_no_successful_create_when_the_claim_owner_update_fails():
    """CreateStatefulPod: when UpdatePodClaimForRetentionPolicy fails after the pod create, it records
    FailedUpdate and returns, without the SuccessfulCreate."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1, claims=1))  # Retain: the claim has no owner
    c.sync("web")
    c.store.remove("Pod", "default", "web-0")
    c.patch("web", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}})
    c.inject_error("update", "PersistentVolumeClaim")
    r = c.sync("web")
    assert [e[1] for e in events(c, r.sync)] == ["FailedUpdate"]
    assert r.error is not None


def hand_made_twin_pod(c):
    c.apply(web(2))
    c.sync("web")
    ready(c, "web-0")
    c.sync("web")
    ready(c, "web-1")
    sts = c.store.get("StatefulSet", "default", "web")
    twin = c.pod("web-1")
    c.store.create("Pod", Pod(name="web-01", labels=dict(twin.labels), owner_references=(sts.ref(),),
                              spec=dict(twin.spec), phase="Pending"))
    ready(c, "web-01")


def test_renamed_update_meets_the_uid_precondition_and_rereads():
    """updateIdentity renames web-01 to web-1, but pods/web-1 is another pod: the API server's uid
    precondition answers Conflict, and UpdateStatefulPod's retry reads web-1 from the cache; web-1
    is consistent, so the retry sends nothing and the update counts as done."""
    c = stsedu.Cluster(kubelet="manual")
    hand_made_twin_pod(c)
    r = c.sync("web")
    update = [d for d in r.decisions if d.action == "update"]
    assert update and update[0].applied is True and update[0].retries == 1
    assert [e[:2] for e in events(c, r.sync)][:1] == [("Normal", "SuccessfulUpdate")]
    assert c.pod("web-1").uid != c.pod("web-01").uid  # web-1 was not overwritten with web-01


def claim_conflict_in_update_closure(c):
    c.apply(web(1, claims=1))
    c.sync("web")
    ready(c, "web-0")
    c.patch("web", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}})
    c.inject_error("update", "PersistentVolumeClaim", reason="Conflict")


def test_claim_update_conflict_reruns_the_update_closure():
    """UpdatePodClaimForRetentionPolicy wraps the claim update's error with %w, so a Conflict there
    makes UpdateStatefulPod's RetryOnConflict run the closure again: the claim is updated, then
    the pod, and the sync succeeds (FailedUpdate for the first try, SuccessfulUpdate at the end)."""
    c = stsedu.Cluster(kubelet="manual")
    claim_conflict_in_update_closure(c)
    r = c.sync("web")
    assert r.error is None
    update = [d for d in r.decisions if d.action == "update"][0]
    assert update.resent == (("update", "PersistentVolumeClaim", "data-web-0", True),
                             ("update", "PersistentVolumeClaim", "data-web-0", False),
                             ("update", "Pod", "web-0", False))
    assert [e[1] for e in events(c, r.sync)] == ["FailedUpdate", "SuccessfulUpdate"]
    assert [o.kind for o in c.pvcs("web")[0].owner_references] == ["StatefulSet"]


def test_store_refuses_a_stale_update_with_conflict():
    """The API server's optimistic concurrency: an update read at an older resourceVersion is
    answered 409 Conflict in the API server's words, and nothing changes."""
    import pytest
    from stsedu.api.errors import APIError
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    stale = c.store.get("Pod", "default", "web-0")
    c.patch_pod("web-0", {"metadata": {"labels": {"tier": "a"}}})
    fresh = c.store.get("Pod", "default", "web-0")
    with pytest.raises(APIError) as e:
        c.store.update("Pod", replace(stale, labels={"tier": "b"}))
    assert e.value.reason == "Conflict"
    assert str(e.value) == ('Operation cannot be fulfilled on pods "web-0": the object has been modified; '
                            "please apply your changes to the latest version and try again")
    assert c.store.get("Pod", "default", "web-0") == fresh


@pytest.mark.parametrize("profile", ["current", "v1.16"])
def test_claims_created_while_restoring_identity_name_the_renamed_pod(profile):
    """UpdateStatefulPod runs updateIdentity before createPersistentVolumeClaims, so the claim
    events of web-00 name web-0 (found by the widened generator's leading-zero pods; in v1.16 by
    the v1.16 long run, whose UpdateStatefulPod does the same)."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(web(1, claims=1))
    sts = c.store.get("StatefulSet", "default", "web")
    c.store.create("Pod", Pod(name="web-00", labels={"app": "web"}, owner_references=(sts.ref(),),
                              spec={"containers": [{"name": "nginx", "image": "nginx:1"}]}, phase="Pending"))
    ready(c, "web-00")
    r = c.sync("web")
    create, update = ("Create", "Update") if profile == "current" else ("create", "update")
    assert [e[2] for e in events(c, r.sync)] == [
        f"{create} Claim data-web-0 Pod web-0 in StatefulSet web success",
        f'{update} Pod web-0 in StatefulSet web failed error: pods "web-0" not found']


def orphan_adopted_beside_a_leading_zero_twin(c):
    """web-01, the set's pod, holds slot 1; a hand-made orphan web-1 with the set's labels is adopted."""
    c.apply(web(2))
    c.sync("web")
    ready(c, "web-0")
    sts = c.store.get("StatefulSet", "default", "web")
    spec = dict(c.pod("web-0").spec)
    c.store.create("Pod", Pod(name="web-01", labels={"app": "web"}, owner_references=(sts.ref(),),
                              spec=spec, phase="Pending"))
    ready(c, "web-01")
    c.store.create("Pod", Pod(name="web-1", labels={"app": "web"}, spec=spec, phase="Pending"))
    ready(c, "web-1")


def test_status_counts_only_the_pod_that_took_the_slot():
    """updateStatefulSet puts each pod at replicas[getOrdinal(pod)-start], a later pod of the same
    ordinal taking the slot, and its status comes from updateStatus(..., replicas, condemned):
    of the twins web-01 and web-1 (both ordinal 1) only the one in the slot is counted, so
    status.replicas is 2, not 3 (found by the widened generator's orphan step)."""
    c = stsedu.Cluster(kubelet="manual")
    orphan_adopted_beside_a_leading_zero_twin(c)
    r = c.sync("web")
    assert r.error is None
    assert {p.name for p in c.pods("web")} == {"web-0", "web-01", "web-1"}
    st = c.store.get("StatefulSet", "default", "web").status
    assert (st.replicas, st.ready_replicas) == (2, 2)


def test_status_of_a_set_being_deleted_counts_every_pod():
    """A set with a deletion timestamp returns the status updateStatus(..., pods) counted over every
    claimed pod before the split: both twins count there (3)."""
    c = stsedu.Cluster(kubelet="manual")
    orphan_adopted_beside_a_leading_zero_twin(c)
    c.sync("web")
    c.delete("web", cascade="foreground")
    c.sync("web")
    st = c.store.get("StatefulSet", "default", "web").status
    assert st.replicas == 3


# ------------------------------------------------------------------ the consistency store

def test_no_sync_while_the_pod_cache_is_behind_the_sets_own_writes():
    """StaleControllerConsistencyStatefulSet (beta, on by default in v1.36 and v1.37): the controller
    records the resource version of each pod it writes (WroteAt) and EnsureReady refuses a sync while
    the pod informer's LastStoreSyncResourceVersion is older (ConsistencyError, AddRateLimited). With
    pod events 0.5 s late, the sync woken by the set's own status write waits for web-0's event
    instead of creating web-0 again (AlreadyExists, as v1.16 does)."""
    for profile, twice in (("current", False), ("v1.36", False), ("v1.16", True)):
        c = stsedu.Cluster(seed=4, informer_delay=0.5, profile=profile)
        c.apply(web(3))
        c.run()
        assert c.statefulset("web").status.ready_replicas == 3
        errors = c.trace.decisions()["error"].fillna("")
        assert errors.str.contains("already exists").any() == twice, profile
        waits = c.trace.queue()["cause"].fillna("")
        waits = waits[waits.str.contains("caches behind")]
        assert waits.empty == twice, profile
        if not twice:
            assert waits.iloc[0].endswith("read version: 0 is not as new as written version: 3 "
                                          "for group resource pods")


def test_consistency_record_ignores_deletes_and_releases():
    """DeleteStatefulPod records nothing (WroteAt is called on create and update only), and
    PatchPod's OnWrite records a pod only for its controller: a released pod is not waited for."""
    from stsedu.controller.consistency import recorded_write
    pod = Pod(name="web-0", labels={"app": "web"})
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    owned = c.pod("web-0")
    assert recorded_write("Pod", "create", None, owned)
    assert not recorded_write("Pod", "update", owned, replace(owned, deletion_timestamp=1.0))
    assert not recorded_write("Pod", "update", owned, replace(owned, owner_references=()))
    assert not recorded_write("Pod", "remove", owned, None)
    assert not recorded_write("ControllerRevision", "create", None, pod)


# ------------------------------------------------------------------ v1.16 (k8s.io/kubernetes v1.16.15)

def test_v116_events_keep_the_verb_as_given_and_warn_before_recreating_a_failed_pod():
    """v1.16's recordPodEvent/recordClaimEvent title-case the verb in the reason only ("create Pod
    web-0 ..."), and updateStatefulSet records a Warning RecreatingFailedPod before it deletes a
    Failed pod (found by the v1.16 oracle)."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16")
    c.apply(web(1, claims=1))
    r = c.sync("web")
    assert [e[1:] for e in events(c, r.sync)] == [
        ("SuccessfulCreate", "create Claim data-web-0 Pod web-0 in StatefulSet web success"),
        ("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful")]
    c.kubelet.start("web-0")
    c.kubelet.fail("web-0")
    r = c.sync("web")
    rows = [(t, reason, msg) for n, _, t, reason, obj, msg in c.trace.rows()["events"]
            if obj == "statefulset/web" and n == r.sync]
    assert ("Warning", "RecreatingFailedPod", "StatefulSet default/web is recreating failed Pod web-0") in rows
    assert ("Normal", "SuccessfulDelete", "delete Pod web-0 in StatefulSet web successful") in rows
    now = stsedu.Cluster(kubelet="manual")
    now.apply(web(1))
    r = now.sync("web")
    assert [e[2] for e in events(now, r.sync)] == ["Create Pod web-0 in StatefulSet web successful"]


def test_v116_delete_answered_not_found_fails_the_sync():
    """v1.16's DeleteStatefulPod returns the Delete error as it is: NotFound is a FailedDelete and
    the sync fails (today's ignores NotFound and counts the pod as deleted)."""
    for profile, fails in (("v1.16", True), ("current", False)):
        c = one_stable_pod(profile)
        c.patch("web", {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:2"}]}}}})
        c.inject_error("delete", "Pod", reason="NotFound")
        r = c.sync("web")
        assert (r.error is not None) == fails, profile
        assert [e[1] for e in events(c, r.sync)] == (["FailedDelete"] if fails else ["SuccessfulDelete"])


def test_v116_failed_sync_does_not_truncate_history():
    """v1.16's UpdateStatefulSet returns at the first error, before updateStatefulSetStatus and
    truncateHistory: a failed revision create leaves every old revision in place."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16")
    c.apply(web(1, revisionHistoryLimit=0, updateStrategy={"type": "OnDelete"}))
    c.sync("web")
    for image in ("nginx:2", "nginx:3"):
        c.patch("web", {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}})
        if image == "nginx:3":
            c.inject_error("create", "ControllerRevision")
        r = c.sync("web")
    assert r.error is not None
    assert not [d for d in r.decisions if d.action == "delete-revision" and d.applied]


def test_v116_failed_claims_make_a_pod_event_on_both_paths_of_create_persistent_volume_claims():
    """v1.16's createPersistentVolumeClaims aggregates its errors like today's, and both of its callers
    record a pod event with them: CreateStatefulPod a FailedCreate, UpdateStatefulPod (restoring a
    pod's storage) a FailedUpdate, each after one FailedCreate per claim."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16")
    c.apply(web(1, claims=2))
    c.inject_error("create", "PersistentVolumeClaim", count=2)
    r = c.sync("web")
    got = events(c, r.sync)
    assert [e[1] for e in got] == ["FailedCreate"] * 3
    assert got[-1][2].startswith("create Pod web-0 in StatefulSet web failed error: [failed to create PVC data-web-0: ")
    assert ", failed to create PVC logs-web-0: " in got[-1][2] and got[-1][2].endswith("]")
    # a Running and Ready pod without the claim volume: UpdateStatefulPod creates the claim first
    c = one_stable_pod("v1.16")
    c.delete("web", cascade="orphan")
    c.apply(web(1, claims=1))
    c.inject_error("create", "PersistentVolumeClaim")
    r = c.sync("web")
    got = events(c, r.sync)
    assert [e[1] for e in got] == ["FailedCreate", "FailedUpdate"], got
    assert got[-1][2].startswith("update Pod web-0 in StatefulSet web failed error: failed to create PVC data-web-0: ")


def test_v116_set_being_deleted_still_adopts_an_orphan_revision():
    """v1.16's adoptOrphanRevisions re-read the set and compared only its uid, not its deletion
    timestamp: a set being deleted adopts an orphan revision and its sync goes on (today's
    RecheckDeletionTimestamp refuses and the sync fails there)."""
    for profile, adopts in (("v1.16", True), ("current", False)):
        c = one_stable_pod(profile)
        old = web(0)
        old["metadata"]["name"] = "old"
        old["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:9"
        c.apply(old)
        c.sync("old")
        c.delete("old", cascade="orphan")
        c.advance(0)
        c.delete("web", cascade="foreground")  # web-0 blocks: web stays, being deleted
        r = c.sync("web")
        adopted = [d.target for d in r.decisions if d.action == "adopt" and d.applied]
        assert (len(adopted) == 1 and (r.error is None)) == adopts, (profile, r.error, adopted)
        owner = c.store.get("ControllerRevision", "default", adopted[0]).owner_references if adopts else ()
        assert [o.name for o in owner] == (["web"] if adopts else [])


# ------------------------------------------------------------------ resource-version conflicts

def test_update_from_the_stale_cache_copy_of_an_adopted_pod_is_refused_and_retried():
    """The API server's optimistic concurrency meets UpdateStatefulPod's retry.RetryOnConflict:
    ClaimPods adopts an orphan (a patch, no resourceVersion), then processReplica updates the pod
    from the informer cache, which still holds it at the version before the adoption: 409
    Conflict.  By the retry's first backoff the adoption's watch event has arrived; the closure
    reads the pod again and its update goes through, keeping the new owner."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    ready(c, "web-0")
    pod = c.store.get("Pod", "default", "web-0")
    labels = {k: v for k, v in pod.labels.items() if k != POD_NAME_LABEL}
    c.store.update("Pod", replace(pod, labels=labels, owner_references=()))
    r = c.sync("web")
    assert r.error is None
    update = [d for d in r.decisions if d.action == "update"][0]
    assert update.resent == (("update", "Pod", "web-0", True), ("update", "Pod", "web-0", False))
    pod = c.pod("web-0")
    assert pod.labels[POD_NAME_LABEL] == "web-0"
    assert [o.kind for o in pod.owner_references] == ["StatefulSet"]
    assert [e[1] for e in events(c, r.sync)] == ["SuccessfulUpdate"]


def test_closure_retry_after_a_stale_claim_write_rereads_the_claims_and_finds_the_pod_consistent():
    """UpdateStatefulPod's closure after a Conflict on its claim update (found by the differential
    suite with resource-version conflicts on): a Parallel set's claim fix (processReplica's
    UpdatePodClaimForRetentionPolicy) updates data-web-0; the closure then sends its own update of
    that claim from the informer cache's stale copy: 409.  RetryOnConflict runs the closure again
    on the same pod object (its identity and storage were fixed in place), the caught-up claim
    fits the policy, so the pod is consistent: no claim update again, no pod update, one
    FailedUpdate and no SuccessfulUpdate; the sync succeeds."""
    c = stsedu.Cluster(kubelet="manual", profile="current")
    c.apply(web(1, claims=1, podManagementPolicy="Parallel",
                persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}))
    c.sync("web")
    r = c.sync("web")
    assert r.error is None
    assert [(d.action, d.target or d.pod, d.applied) for d in r.decisions if d.action in ("update", "update-pvc")] \
        == [("update-pvc", "data-web-0", True), ("update", "web-0", True)]
    update = [d for d in r.decisions if d.action == "update"][0]
    assert update.resent == (("update", "PersistentVolumeClaim", "data-web-0", True),)
    assert [e[1] for e in events(c, r.sync)] == ["FailedUpdate"]
    assert "could not update claim data-web-0 for delete policy ownerRefs: Operation cannot be fulfilled on " \
           'persistentvolumeclaims "data-web-0": the object has been modified' in events(c, r.sync)[0][2]
    assert [o.kind for o in c.pvcs("web")[0].owner_references] == ["StatefulSet"]


def orphan_whose_claim_lost_its_owner(c):
    c.apply(web(1, claims=1, persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}))
    c.sync("web")
    ready(c, "web-0")
    c.store.update("Pod", replace(c.store.get("Pod", "default", "web-0"), owner_references=()))
    c.store.update("PersistentVolumeClaim", replace(c.pvcs("web")[0], owner_references=()))


def test_retry_after_a_stale_pod_write_rereads_the_pod_and_finds_it_consistent():
    """UpdateStatefulPod's retry.RetryOnConflict closure reads the pod again from the (caught-up)
    informer cache and checks identityMatches, storageMatches and the claims' retention policy on
    that copy (found by the differential suite with resource-version conflicts on, a set orphaned
    and applied again).  ClaimPods adopts the orphan web-0 (a patch); its claim lost its owner, so
    processReplica's ClaimsMatchRetentionPolicy sends it to UpdateStatefulPod: the claim update goes
    through, the pod update from the stale cache copy is refused (409).  The retry's pod has its
    identity and storage and its claim now fits: consistent, no second pod update, and the sync
    records one SuccessfulUpdate (the kit sent the pod update again)."""
    c = stsedu.Cluster(kubelet="manual")
    orphan_whose_claim_lost_its_owner(c)
    r = c.sync("web")
    assert r.error is None
    update = next(d for d in r.decisions if d.action == "update")
    assert update.resent == (("update", "Pod", "web-0", True),)
    assert [o.kind for o in c.pod("web-0").owner_references] == ["StatefulSet"]
    assert [o.kind for o in c.pvcs("web")[0].owner_references] == ["StatefulSet"]
    assert [e[1] for e in events(c, r.sync)] == ["SuccessfulUpdate"]


def parallel_orphans_whose_claims_lost_their_owner(c):
    c.apply(web(2, claims=2, podManagementPolicy="Parallel",
                persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"}))
    c.sync("web")
    c.kubelet.start("web-1")
    for name in ("web-0", "web-1"):
        c.store.update("Pod", replace(c.store.get("Pod", "default", name), owner_references=()))
    for claim in c.pvcs("web"):
        c.store.update("PersistentVolumeClaim", replace(claim, owner_references=()))


def test_pod_update_after_another_pods_conflict_still_sends_the_listed_copy():
    """processReplica hands UpdateStatefulPod the pod as the sync listed it (replicas[i]); a Conflict
    brings the informer caches up to date, not that copy (found by the differential suite with
    resource-version conflicts on, its Parallel batch run one goroutine after another).  Two
    orphaned pods are adopted (patches); web-0's claim work meets a stale claim (409), which catches
    the caches up; web-1's closure fixes its claims and sends its pod update from the copy listed
    before the adoption: 409, and the retry reads web-1 again and finds it consistent (the kit sent
    the update from the caught-up cache and it went through)."""
    c = stsedu.Cluster(kubelet="manual")
    parallel_orphans_whose_claims_lost_their_owner(c)
    r = c.sync("web")
    assert r.error is None
    update = next(d for d in r.decisions if d.action == "update" and d.pod == "web-1")
    assert update.resent == (("update", "Pod", "web-1", True),)
    assert [o.kind for o in c.pod("web-1").owner_references] == ["StatefulSet"]
    assert ("Normal", "SuccessfulUpdate", "Update Pod web-1 in StatefulSet web successful") in events(c, r.sync)


def running_orphan_without_volumes(c):
    c.apply(web(0, claims=1, podManagementPolicy="Parallel"))
    c.sync("web")
    c.store.create("Pod", Pod(name="web-0", labels={"app": "web"}, phase="Pending",
                              spec={"containers": [{"name": "nginx", "image": "nginx:1"}], "hostname": "web-0"}))
    c.kubelet.start("web-0")
    c.scale("web", 1)


def test_retry_after_a_stale_pod_write_does_not_create_the_claims_again():
    """UpdateStatefulPod's retry runs createPersistentVolumeClaims again over the caught-up claim
    lister, which skips a claim it holds (found by the differential suite with resource-version
    conflicts on).  A Parallel set adopts a hand-made Running orphan web-0 without volumes (a patch);
    the closure creates its claim, restores its storage and sends the pod from the stale copy: 409.
    The retry re-reads web-0, restores its storage again, finds data-web-0 in the cache (no create)
    and the pod update goes through (the kit created the claim again: AlreadyExists, FailedUpdate)."""
    c = stsedu.Cluster(kubelet="manual")
    running_orphan_without_volumes(c)
    r = c.sync("web")
    update = next(d for d in r.decisions if d.action == "update" and d.pod == "web-0")
    assert update.applied and update.resent == (("update", "Pod", "web-0", True), ("update", "Pod", "web-0", False))
    assert [(d.action, d.applied) for d in r.decisions if d.action == "create-pvc"] == [("create-pvc", True)]
    assert ("Normal", "SuccessfulUpdate", "Update Pod web-0 in StatefulSet web successful") in events(c, r.sync)
    assert not [e for e in events(c, r.sync) if e[1] == "FailedUpdate"]


def orphaned_and_reapplied_with_an_older_template(c):
    c.apply(web(0))
    c.sync("web")
    c.set_image("web", "nginx:2")
    c.sync("web")
    c.delete("web", cascade="orphan")
    c.advance(0)
    c.apply(web(0))  # nginx:1 again: equal to revision 1, which is not the newest


def revision_numbers(c) -> dict:
    return {r.name: r.revision for r in c.store.list("ControllerRevision", "default")}


@pytest.mark.parametrize("profile", ("current", "v1.36", "v1.16"))
def test_revision_renumbered_from_the_stale_copy_fails_the_sync_without_a_second_request(profile):
    """UpdateControllerRevision (pkg/controller/history) under retry.RetryOnConflict: after a
    Conflict the closure takes the object the typed client returned beside the error as its copy,
    and client-go returns a new, empty object with every error; the lister has no revision named
    "", so the next try renumbers an object without a name, which client-go's REST client refuses
    before sending anything ("resource name may not be empty"): getStatefulSetRevisions fails and so
    does the sync (found by the differential suite with resource-version conflicts on; run against
    a real kube-apiserver v1.37.2 the same way: one PUT answered 409, then that error).  Here a set
    orphaned and applied again with its first template adopts its revisions (patches) and renumbers
    revision 1 from the informer cache's copy from before the adoption: 409.  The kit sent the
    renumbering again and went on.  The next sync reads the caught-up cache and renumbers it."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    orphaned_and_reapplied_with_an_older_template(c)
    before = revision_numbers(c)
    r = c.sync("web")
    assert r.error is not None and "resource name may not be empty" in r.error
    renumber = [d for d in r.decisions if d.action == "update-revision"]
    assert [(d.applied, d.retries, d.error) for d in renumber] == [(False, 0, "resource name may not be empty")]
    assert revision_numbers(c) == before
    assert not [e for e in events(c, r.sync)]  # upstream records no event for it: the sync's error is logged
    r = c.sync("web")
    assert r.error is None
    assert sorted(revision_numbers(c).values()) == [2, 3]
    assert c.statefulset("web").status.update_revision == min(before, key=before.get)


# ------------------------------------------------------------------ issue 40: a second driver's five shapes
# An independent differential driver compared the kit, run as a real cluster answers (resourceVersion
# checks, informer caches behind the sync's own writes), with the real code over a fake clientset
# without those checks.  Each shape below, run beside the real code in both worlds
# (test_upstream.py, ISSUE_40), agrees; what the driver saw as a difference is the two worlds.


@contextmanager
def without_resource_version_checks():
    """The fake clientset's world: the API server takes a write from a stale copy (no 409), as the
    oracle runs with ``conflicts=False``."""
    from stsedu.controller.stateful_pod_control import ClusterObjects
    ClusterObjects.stale_cache = False
    try:
        yield
    finally:
        ClusterObjects.stale_cache = True


def pending_pod_whose_claim_needs_owners(c):
    """Shape 1: a Parallel set's claim is created before its pod, so its owner refs are set a sync later;
    web-1 is still Pending then."""
    c.apply(web(2, claims=1, podManagementPolicy="Parallel",
                persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"}))
    c.sync("web")
    c.kubelet.start("web-0")


def claim_owner_updates(r, pod):
    return [(d.action, d.applied) for d in r.decisions if d.pod == pod and d.action in ("update-pvc", "update")]


def test_pending_pods_claim_is_sent_twice_and_the_stale_second_write_is_refused():
    """createMissingPersistentVolumeClaims (a Pending pod) sets the claim's owners through
    UpdatePodClaimForRetentionPolicy; UpdateStatefulPod's closure then checks the claim again
    through the claim lister, which has not seen that write, and sends it again from the stale
    copy: a real API server answers 409, RetryOnConflict runs the closure again over the caught-up
    lister, the claim fits and the pod is consistent (no pod update).  Issue 40, shape 1."""
    c = stsedu.Cluster(kubelet="manual")
    pending_pod_whose_claim_needs_owners(c)
    r = c.sync("web")
    assert r.error is None
    assert claim_owner_updates(r, "web-1") == [("update-pvc", True), ("update", True)]
    update = [d for d in r.decisions if d.action == "update" and d.pod == "web-1"][0]
    assert update.resent == (("update", "PersistentVolumeClaim", "data-web-1", True),)
    claim = next(p for p in c.pvcs("web") if p.name == "data-web-1")
    assert {o.kind for o in claim.owner_references} == {"StatefulSet"}


def test_pending_pods_claim_is_sent_twice_then_the_pod_without_resource_version_checks():
    """The same sync where the API server takes stale writes (the second driver's fake clientset):
    the closure's second claim update goes through, the pod counts as changed and UpdatePod is sent
    (upstream there: data-web-1 updated twice, then the pod).  Issue 40, shape 1."""
    c = stsedu.Cluster(kubelet="manual")
    pending_pod_whose_claim_needs_owners(c)
    with without_resource_version_checks():
        r = c.sync("web")
    assert r.error is None
    assert claim_owner_updates(r, "web-1") == [("update-pvc", True), ("update-pvc", True), ("update", True)]
    assert claim_owner_updates(r, "web-0") == [("update-pvc", True), ("update", True)]  # Running: the closure's only


def test_rollback_among_adopted_revisions_is_renumbered_without_resource_version_checks():
    """UpdateControllerRevision from the cache copy of a revision adopted in the same sync: with
    resourceVersion checks the write meets 409 and the retry's unnamed copy fails the sync
    (test_revision_renumbered_from_the_stale_copy_...); where the API server takes stale writes it
    goes through and the sync succeeds, which is what the second driver's upstream did.  Issue 40,
    shape 4."""
    c = stsedu.Cluster(kubelet="manual")
    orphaned_and_reapplied_with_an_older_template(c)
    before = revision_numbers(c)
    with without_resource_version_checks():
        r = c.sync("web")
    assert r.error is None
    renumber = [d for d in r.decisions if d.action == "update-revision"]
    assert [(d.applied, d.retries) for d in renumber] == [(True, 0)]
    assert revision_numbers(c)[min(before, key=before.get)] == max(before.values()) + 1
