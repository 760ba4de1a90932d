"""Ownership: adopting and releasing pods and revisions, and deleting the set (cascading or orphaning).

Each test names the upstream rule it checks: ClaimPods / claimObject
(pkg/controller/controller_ref_manager.go), adoptOrphanRevisions and
getPodsForStatefulSet (stateful_set.go), the garbage collector.
"""

import pytest

import stsedu
from storage_helpers import claim, decisions, docs_manifest, finish_all, owners, up, with_claims


def test_relabelled_pod_is_released_and_replaced_once_the_orphan_is_gone(manual_cluster):
    """ClaimPods: a pod that stops matching the selector is released; the replacement of the same name then fails
    with AlreadyExists (an error, retried) until the orphan is gone (docs/behaviour.md section 5, last point)."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    sts_uid, old_uid = c.statefulset("web").uid, c.pod("web-1").uid
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "debug"}}})
    r = c.sync("web")
    release = r.decisions[0]
    assert (release.action, release.pod, release.reason, release.applied) == (
        "release", "web-1", "selector-mismatch", True)
    assert release.rule == "ClaimPods: release pod that no longer matches"
    orphan = c.pod("web-1")
    assert orphan.owner is None and orphan.uid == old_uid and not orphan.terminating
    assert all(ref.uid != sts_uid for ref in orphan.owner_references)
    assert [p.name for p in c.pods("web")] == ["web-0", "web-2"]
    create = [d for d in r.decisions if d.action == "create"]
    assert [(d.pod, d.applied, d.error) for d in create] == [("web-1", False, 'pods "web-1" already exists')]
    assert r.error == 'pods "web-1" already exists'
    assert not any("web-1" in m for m in c.trace.events()["message"] if "failed" in m)  # no event upstream
    r = c.sync("web")  # retried: same error, nothing left to release
    assert decisions(r, "release", "create") == [("create", "web-1", None, "missing")]
    assert r.error == 'pods "web-1" already exists'
    c.delete_pod("web-1")  # the user removes the orphan
    assert c.sync("web").error == 'pods "web-1" already exists'  # still there while terminating
    c.kubelet.finish_termination("web-1")
    r = c.sync("web")
    assert decisions(r, "create-pvc", "create") == [("create", "web-1", None, "missing")]  # claim reused
    assert r.error is None
    new = c.pod("web-1")
    assert new.uid != old_uid and new.owner == "web" and new.labels["app"] == "nginx"
    assert P_claim(new) == "www-web-1"


def P_claim(pod):
    return [v["persistentVolumeClaim"]["claimName"] for v in pod.spec["volumes"]][0]


def test_released_pod_is_adopted_again_when_it_matches(manual_cluster):
    """ClaimPods: an orphan that matches the selector and the name pattern is adopted (no new pod)."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    uid = c.pod("web-1").uid
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "debug"}}})
    c.sync("web")
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "nginx"}}})
    r = c.sync("web")
    assert decisions(r, "adopt", "create") == [("adopt", "web-1", None, "orphan")]
    assert r.decisions[0].rule == "ClaimPods: adopt orphan that matches selector and name"
    assert r.error is None
    pod = c.pod("web-1")
    assert pod.uid == uid and pod.owner == "web"
    assert [(ref.kind, ref.name, ref.uid, ref.controller) for ref in pod.owner_references] == [
        ("StatefulSet", "web", c.statefulset("web").uid, True)]


def test_terminating_orphan_is_not_adopted(manual_cluster):
    """claimObject: an orphan that is being deleted is ignored, even if it matches."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "debug"}}})
    c.sync("web")
    c.delete_pod("web-1")
    c.patch_pod("web-1", {"metadata": {"labels": {"app": "nginx"}}})
    r = c.sync("web")
    assert decisions(r, "adopt") == []
    assert c.pod("web-1").owner is None


def test_sets_with_overlapping_selectors_claim_only_their_own_names(manual_cluster):
    """isMemberOf (ClaimPods filter): only pods whose name parses to the set's name are claimed; a matching
    orphan named after another set is left alone."""
    c = manual_cluster
    c.apply(with_claims(1))
    c.apply(with_claims(1, name="db"))  # same selector app=nginx: the sets overlap
    up(c, "web")
    up(c, "db")
    assert [p.owner for p in c.pods()] == ["db", "web"]  # each set claims only its own names
    c.patch_pod("db-0", {"metadata": {"labels": {"app": "debug"}}})
    c.sync("db")  # released by db
    r = c.sync("web")
    assert decisions(r, "adopt", "release") == []  # web never adopts db-0
    assert c.pod("db-0").owner is None


def test_orphan_delete_then_recreate_readopts_the_same_pods(manual_cluster):
    """cascade=orphan: the pods keep running without an owner; a new set with the same name and selector adopts
    them and their revision (adoptOrphanRevisions, ClaimPods) without creating or deleting any pod."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    old_set = c.statefulset("web").uid
    pods = {p.name: (p.uid, p.revision) for p in c.pods("web")}
    revision = c.revisions("web")[0].name
    c.delete("web", cascade="orphan")
    with pytest.raises(KeyError):
        c.statefulset("web")
    assert [(p.name, p.owner, p.terminating) for p in c.pods()] == [
        ("web-0", None, False), ("web-1", None, False), ("web-2", None, False)]
    assert c.store.get("ControllerRevision", "default", revision).owner_references == ()
    c.apply(docs_manifest())
    new_set = c.statefulset("web").uid
    assert new_set != old_set
    r = c.sync("web")
    assert decisions(r, "adopt") == [("adopt", None, revision, "orphan-revision"),
                                     ("adopt", "web-0", None, "orphan"), ("adopt", "web-1", None, "orphan"),
                                     ("adopt", "web-2", None, "orphan")]
    assert r.actions == []  # nothing created, deleted or updated
    assert {p.name: (p.uid, p.revision) for p in c.pods("web")} == pods
    assert all(p.owner_references[0].uid == new_set for p in c.pods("web"))
    assert (r.status.replicas, r.status.ready_replicas, r.status.current_revision) == (3, 3, revision)
    assert [x.name for x in c.revisions("web")] == [revision]


def test_orphaned_claims_get_the_new_sets_ref(manual_cluster):
    """cascade=orphan strips the set's ref from claims too (so whenDeleted=Delete does not delete them);
    the re-created set puts its own ref back (isClaimOwnerUpToDate), writing each pod unchanged."""
    c = manual_cluster
    c.apply(docs_manifest(persistentVolumeClaimRetentionPolicy={"whenScaled": "Retain", "whenDeleted": "Delete"}))
    up(c)
    c.delete("web", cascade="orphan")
    assert all(p.owner_references == () and not p.deleting for p in c.pvcs("web"))
    c.apply(docs_manifest(persistentVolumeClaimRetentionPolicy={"whenScaled": "Retain", "whenDeleted": "Delete"}))
    r = c.sync("web")
    assert decisions(r, "update-pvc", "update", "create", "delete") == [
        ("update-pvc", "web-0", "www-web-0", "retention-policy"), ("update", "web-0", None, "identity"),
        ("update-pvc", "web-1", "www-web-1", "retention-policy"), ("update", "web-1", None, "identity"),
        ("update-pvc", "web-2", "www-web-2", "retention-policy"), ("update", "web-2", None, "identity")]
    uid = c.statefulset("web").uid
    assert all([(ref.kind, ref.uid) for ref in p.owner_references] == [("StatefulSet", uid)] for p in c.pvcs("web"))


def test_background_delete_terminates_every_pod_at_once(manual_cluster):
    """cascade=background: the set goes at once; the garbage collector deletes all its pods together, in no
    order, and its revisions."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    revision = c.revisions("web")[0].name
    c.advance(7)
    c.delete("web")
    with pytest.raises(KeyError):
        c.statefulset("web")
    pods = c.pods()
    assert [(p.name, p.owner, p.terminating) for p in pods] == [
        ("web-0", "web", True), ("web-1", "web", True), ("web-2", "web", True)]
    assert {p.deletion_timestamp for p in pods} == {c.now}
    assert c.store.list("ControllerRevision") == []
    ev = c.trace.events()
    assert list(ev[ev["reason"] == "GarbageCollected"]["object"]) == [
        "pod/web-0", "pod/web-1", "pod/web-2", f"controllerrevision/{revision}"]
    assert list(ev[ev["reason"] == "User"]["message"].iloc[-2:]) == [
        'user: delete --cascade=background: statefulset.apps "web" deleted',
        'user: wait: statefulset.apps "web" is gone after 0s']  # the set itself goes at once
    finish_all(c)
    assert c.pods() == []


def test_foreground_delete_keeps_the_set_until_its_pods_are_gone(manual_cluster):
    """cascade=foreground: the set stays with a deletion timestamp; its syncs only write status
    (updateStatefulSet returns early) and never adopt or release; it goes when the last pod is gone."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    c.delete("web", cascade="foreground")
    sts = c.statefulset("web")
    assert sts.deletion_timestamp == c.now and "foregroundDeletion" in sts.finalizers
    assert all(p.terminating for p in c.pods("web"))
    c.patch_pod("web-0", {"metadata": {"labels": {"app": "debug"}}})
    r = c.sync("web")
    assert decisions(r, "release", "adopt", "create", "delete", "update", "wait") == []
    assert c.pod("web-0").owner == "web"  # not released while the set is being deleted ...
    # ... nor claimed: the status counts web-1 and web-2 (terminating pods count, but not as current)
    assert (r.status.replicas, r.status.current_replicas) == (2, 0)
    c.kubelet.finish_termination("web-2")
    c.kubelet.finish_termination("web-0")
    assert c.statefulset("web").deletion_timestamp is not None  # web-1 still blocks
    c.kubelet.finish_termination("web-1")
    with pytest.raises(KeyError):
        c.statefulset("web")
    assert c.trace.events().iloc[-1]["message"] == "foreground deletion finished: every dependent is gone"


def test_scale_to_zero_first_terminates_in_order(manual_cluster):
    """The docs' advice: scale to 0 before deleting, for ordered termination (processCondemned, highest first)."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    c.scale("web", 0)
    results = up(c)
    assert [d for r in results for d in decisions(r, "delete")] == [
        ("delete", "web-2", None, "scale-down"), ("delete", "web-1", None, "scale-down"),
        ("delete", "web-0", None, "scale-down")]
    c.delete("web")
    assert c.pods() == [] and c.store.list("StatefulSet") == []
    assert [p.name for p in c.pvcs("web")] == ["www-web-0", "www-web-1", "www-web-2"]


def test_orphan_delete_waits_for_the_garbage_collector():
    """cascade=orphan: the set carries the orphan finalizer until the collector has removed its refs (attemptToOrphan)."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=2)
    c.apply(docs_manifest())
    up(c)
    c.delete("web", cascade="orphan", wait=False)  # kubectl --wait=false: see the set while it goes
    sts = c.statefulset("web")
    assert sts.deletion_timestamp is not None and sts.finalizers == ("orphan",)
    assert all(p.owner == "web" for p in c.pods())
    r = c.sync("web")
    assert r.actions == []
    c.advance(2)
    with pytest.raises(KeyError):
        c.statefulset("web")
    assert [(p.owner, p.terminating) for p in c.pods()] == [(None, False)] * 3


def test_delete_rejects_an_unknown_cascade(manual_cluster):
    """kubectl's --cascade takes background, foreground or orphan; anything else changes nothing."""
    c = manual_cluster
    c.apply(docs_manifest())
    before = c.dump()
    with pytest.raises(stsedu.ValidationError) as e:
        c.delete("web", cascade="true")
    assert e.value.errors == [("propagationPolicy", 'Unsupported value: "true": supported values: '
                                                    '"background", "foreground", "orphan"')]
    assert c.dump() == before
    with pytest.raises(KeyError):
        c.delete("nope")


def test_patch_pod_rejects_bad_edits_and_changes_nothing(manual_cluster):
    """patch_pod: only labels, annotations and activeDeadlineSeconds; invalid label values rejected like the API server."""
    c = manual_cluster
    c.apply(docs_manifest())
    c.sync("web")
    before = c.dump()
    for patch, path in [({"spec": {"hostname": "x"}}, "spec.hostname"),
                        ({"metadata": {"name": "other"}}, "metadata.name"),
                        ({"metadata": {"labels": {"app": "bad value!"}}}, "metadata.labels"),
                        ({"metadata": {"labels": {"app": 3}}}, "metadata.labels[app]"),
                        ({"metadata": {"labels": ["app"]}}, "metadata.labels")]:
        with pytest.raises(stsedu.ValidationError) as e:
            c.patch_pod("web-0", patch)
        assert e.value.errors[0][0] == path
        assert c.dump() == before


def test_claims_survive_a_released_pod(manual_cluster):
    """A released pod keeps mounting its claim; the replacement created later mounts the same claim."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    uid = claim(c, "www-web-2").uid
    c.patch_pod("web-2", {"metadata": {"labels": {"app": None}}})
    c.sync("web")
    c.delete_pod("web-2")
    c.kubelet.finish_termination("web-2")
    up(c)
    assert claim(c, "www-web-2").uid == uid and owners(claim(c, "www-web-2")) == []
    assert c.pod("web-2").owner == "web"


def test_can_adopt_reads_the_set_fresh_not_as_the_sync_read_it():
    """canAdoptFunc (stateful_set.go): RecheckDeletionTimestamp on a fresh GET of the set, so a sync that
    read the set before it was deleted, or before another set of that name replaced it, may not adopt.
    The kit's StatefulSet informer does not lag, so in a sync the two reads agree; the function is
    asked here with the set as an earlier read had it."""
    from stsedu.controller.stateful_set import can_adopt_func
    c = stsedu.Cluster(seed=0)
    c.apply(docs_manifest())
    c.run("web")
    read = c.statefulset("web")
    assert can_adopt_func(c.controller, read) is None
    c.delete("web", cascade="foreground", wait=False)
    assert can_adopt_func(c.controller, read) == "default/web has just been deleted"
    assert can_adopt_func(c.controller, read, recheck_deletion=False) is None  # v1.16's revisions: uid only
    c.delete("web", cascade="foreground")  # waits until it is gone
    assert can_adopt_func(c.controller, read) == (
        """can't recheck DeletionTimestamp: statefulsets.apps "web" not found""")
    c.apply(docs_manifest())
    again = c.statefulset("web")
    assert can_adopt_func(c.controller, read) == (
        "can't recheck DeletionTimestamp: original StatefulSet default/web is gone: "
        f"got uid {again.uid}, wanted {read.uid}")
    assert can_adopt_func(c.controller, again) is None
