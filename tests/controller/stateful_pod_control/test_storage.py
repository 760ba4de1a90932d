"""Stable storage: PVCs from volumeClaimTemplates, their reuse, and the retention policy.

Each test names the upstream function (pkg/controller/statefulset) whose rule
it checks; expectations follow docs/behaviour.md sections 3 and 4.
"""

import dataclasses

import pytest

import stsedu
import stsedu.api.profiles
from stsedu.controller import stateful_set_utils as P
from stsedu.controller.recording_pod_control import recording_pod_control
from stsedu.controller.snapshot import Snapshot
from stsedu.api.objects import OwnerReference, PersistentVolumeClaim, Pod, StatefulSet
from storage_helpers import claim, decisions, docs_manifest, finish_all, owners, up, with_claims

RETAIN = {"whenScaled": "Retain", "whenDeleted": "Retain"}
SCALE_DELETE = {"whenScaled": "Delete", "whenDeleted": "Retain"}
SET_DELETE = {"whenScaled": "Retain", "whenDeleted": "Delete"}
BOTH_DELETE = {"whenScaled": "Delete", "whenDeleted": "Delete"}


def policy(p):
    return {"persistentVolumeClaimRetentionPolicy": p}


# ------------------------------------------------------------------ creation


def test_docs_manifest_claims_are_created_before_their_pods(manual_cluster):
    """CreateStatefulPod / getPersistentVolumeClaims: www-web-<n> is created right before web-<n>, in the same sync."""
    c = manual_cluster
    c.apply(docs_manifest())
    results = up(c)
    creates = [(r.sync,) + d for r in results for d in decisions(r, "create-pvc", "create")]
    syncs = [s for s, *_ in creates]
    assert [d for _, *d in creates] == [
        ["create-pvc", "web-0", "www-web-0", "missing"], ["create", "web-0", None, "missing"],
        ["create-pvc", "web-1", "www-web-1", "missing"], ["create", "web-1", None, "missing"],
        ["create-pvc", "web-2", "www-web-2", "missing"], ["create", "web-2", None, "missing"]]
    assert syncs[0] == syncs[1] < syncs[2] == syncs[3] < syncs[4] == syncs[5]
    rules = {d.action: d.rule for r in results for d in r.decisions if d.action in ("create-pvc", "create")}
    assert rules == {"create-pvc": "CreateStatefulPod: create missing claims first",
                     "create": "processReplica: create missing pod"}
    # the events a user sees with kubectl get events, in order
    msgs = [m for m in c.trace.events()["message"] if m.startswith("Create ")]
    assert msgs == ["Create Claim www-web-0 Pod web-0 in StatefulSet web success",
                    "Create Pod web-0 in StatefulSet web successful",
                    "Create Claim www-web-1 Pod web-1 in StatefulSet web success",
                    "Create Pod web-1 in StatefulSet web successful",
                    "Create Claim www-web-2 Pod web-2 in StatefulSet web success",
                    "Create Pod web-2 in StatefulSet web successful"]


def test_docs_manifest_claim_contents_and_pod_volumes(manual_cluster):
    """getPersistentVolumeClaims / updateStorage: claim = template spec + selector labels; pod mounts it by name."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    assert [p.name for p in c.pvcs("web")] == ["www-web-0", "www-web-1", "www-web-2"]
    pvc = claim(c, "www-web-1")
    assert pvc.labels == {"app": "nginx"}
    assert pvc.spec["accessModes"] == ["ReadWriteOnce"]
    assert pvc.spec["storageClassName"] == "my-storage-class"
    assert pvc.spec["resources"] == {"requests": {"storage": "1Gi"}}
    assert pvc.owner_references == ()  # default policy Retain/Retain: nobody owns it
    pod = c.pod("web-1")
    assert pod.spec["volumes"] == [{"name": "www", "persistentVolumeClaim": {"claimName": "www-web-1"}}]
    assert pod.spec["containers"][0]["volumeMounts"] == [{"name": "www", "mountPath": "/usr/share/nginx/html"}]


def test_claims_of_several_templates_and_start_ordinal(manual_cluster):
    """getPersistentVolumeClaimName: <template>-<set>-<ordinal> for every template, absolute ordinals."""
    c = manual_cluster
    m = with_claims(2, start=3)
    m["spec"]["volumeClaimTemplates"].append(
        {"metadata": {"name": "logs", "labels": {"tier": "logs"}},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
    c.apply(m)
    r = c.sync("web")
    assert decisions(r, "create-pvc", "create") == [
        ("create-pvc", "web-3", "data-web-3", "missing"), ("create-pvc", "web-3", "logs-web-3", "missing"),
        ("create", "web-3", None, "missing")]
    up(c)
    assert [p.name for p in c.pvcs("web")] == ["data-web-3", "data-web-4", "logs-web-3", "logs-web-4"]
    assert claim(c, "logs-web-4").labels == {"tier": "logs", "app": "nginx"}
    assert [v["persistentVolumeClaim"]["claimName"] for v in c.pod("web-4").spec["volumes"]] == [
        "data-web-4", "logs-web-4"]


def test_scale_3_to_1_to_3_keeps_the_same_claims(manual_cluster):
    """Claims are never deleted by the controller: scale down then up reuses www-web-1 and www-web-2."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    claim_uids = {p.name: p.uid for p in c.pvcs("web")}
    pod_uids = {p.name: p.uid for p in c.pods("web")}
    c.scale("web", 1)
    up(c)
    assert [p.name for p in c.pods("web")] == ["web-0"]
    assert {p.name: p.uid for p in c.pvcs("web")} == claim_uids
    c.scale("web", 3)
    results = up(c)
    assert [d for r in results for d in decisions(r, "create-pvc")] == []
    assert [d for r in results for d in decisions(r, "create")] == [
        ("create", "web-1", None, "missing"), ("create", "web-2", None, "missing")]
    assert {p.name: p.uid for p in c.pvcs("web")} == claim_uids
    for name in ("web-1", "web-2"):
        pod = c.pod(name)
        assert pod.uid != pod_uids[name]  # a new pod ...
        assert P.claim_volumes(pod) == {"www": f"www-{name}"}  # ... on the old disk


def test_pending_pod_gets_a_missing_claim_again(manual_cluster):
    """processReplica / createMissingPersistentVolumeClaims: a Pending pod's claim is recreated if it vanished.

    A claim can vanish under a Pending pod when it is deleted before the pod
    is scheduled (pvc-protection only counts scheduled pods); the test
    removes it from the store to stand for that.
    """
    c = manual_cluster
    c.apply(docs_manifest())
    c.sync("web")
    assert c.pod("web-0").phase == "Pending"
    old = claim(c, "www-web-0").uid
    c.store.remove("PersistentVolumeClaim", "default", "www-web-0")
    r = c.sync("web")
    assert decisions(r, "create-pvc", "wait") == [("create-pvc", "web-0", "www-web-0", "missing"),
                                                  ("wait", "web-0", None, "not-running-ready")]
    assert r.decisions[0].rule == "processReplica: create missing claims of Pending pod"
    assert claim(c, "www-web-0").uid != old


def test_claim_being_deleted_blocks_pod_creation_until_gone():
    """createPersistentVolumeClaims: a claim with a deletion timestamp fails the create (sync error) until it goes."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=5)
    c.apply(docs_manifest())
    up(c)
    old = claim(c, "www-web-1").uid
    c.delete_pvc("www-web-1")
    assert claim(c, "www-web-1").deleting  # pvc-protection: web-1 still mounts it
    assert c.sync("web").actions == []  # a running pod does not care
    c.delete_pod("web-1")
    c.kubelet.finish_termination("web-1")
    assert claim(c, "www-web-1").deleting  # the protection controller has not noticed yet
    r = c.sync("web")
    assert decisions(r, "wait", "create", "create-pvc") == [("wait", "web-1", "www-web-1", "claim-deleting")]
    assert r.error == "pvc www-web-1 is being deleted"
    events = c.trace.events()
    assert events.iloc[-1]["message"] == ("Create Pod web-1 in StatefulSet web failed error: "
                                          "pvc www-web-1 is being deleted")
    assert "web-1" not in [p.name for p in c.pods("web")]
    c.advance(5)
    assert claim(c, "www-web-1") is None
    r = c.sync("web")
    assert decisions(r, "create-pvc", "create") == [("create-pvc", "web-1", "www-web-1", "missing"),
                                                    ("create", "web-1", None, "missing")]
    assert claim(c, "www-web-1").uid != old  # a new, empty disk


# ----------------------------------------------------------- retention policy


@pytest.mark.parametrize("retention, in_range, condemned", [
    (None, [], []),
    (RETAIN, [], []),
    (SET_DELETE, [("StatefulSet", "web")], [("StatefulSet", "web")]),
    (SCALE_DELETE, [], [("Pod", "{pod}")]),
    (BOTH_DELETE, [("StatefulSet", "web")], [("Pod", "{pod}")]),
], ids=["nil", "Retain/Retain", "Retain/Delete", "Delete/Retain", "Delete/Delete"])
def test_claim_owner_refs_follow_the_policy_table(manual_cluster, retention, in_range, condemned):
    """isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod / fixPodClaim: the table of docs/behaviour.md section 4.

    Refs are controller refs with blockOwnerDeletion and the owner's uid.
    """
    c = manual_cluster
    c.apply(with_claims(3, retention))
    up(c)
    sts = c.statefulset("web")
    for n in range(3):
        assert owners(claim(c, f"data-web-{n}")) == in_range
    c.scale("web", 1)
    r = c.sync("web")
    fixes = decisions(r, "update-pvc")
    expected_fixes = [] if condemned == in_range else [
        ("update-pvc", "web-2", "data-web-2", "retention-policy"),
        ("update-pvc", "web-1", "data-web-1", "retention-policy")]
    assert fixes == expected_fixes
    assert all(d.rule == "fixPodClaim: claim owner refs of condemned pod" for d in r.decisions
               if d.action == "update-pvc")
    assert decisions(r, "delete") == [("delete", "web-2", None, "scale-down")]
    assert owners(claim(c, "data-web-0")) == in_range
    for n in (1, 2):
        pvc = claim(c, f"data-web-{n}")
        assert owners(pvc) == [(k, v.format(pod=f"web-{n}")) for k, v in condemned]
        for ref in pvc.owner_references:
            expected_uid = sts.uid if ref.kind == "StatefulSet" else c.pod(ref.name).uid
            assert (ref.uid, ref.controller, ref.block_owner_deletion) == (expected_uid, True, True)


@pytest.mark.parametrize("retention", [RETAIN, SCALE_DELETE], ids=["Retain", "Delete"])
def test_when_scaled_claims_go_only_after_their_pods(manual_cluster, retention):
    """whenScaled=Delete: the garbage collector deletes a condemned pod's claims once the pod is gone; Retain keeps them."""
    c = manual_cluster
    c.apply(docs_manifest(**policy(retention)))
    up(c)
    c.scale("web", 1)
    c.sync("web")  # fixPodClaim, then delete web-2
    assert c.pod("web-2").terminating
    assert not claim(c, "www-web-2").deleting  # its pod is still there
    assert decisions(c.sync("web"), "wait") == [("wait", "web-2", None, "terminating")]
    c.kubelet.finish_termination("web-2")
    if retention == SCALE_DELETE:
        assert claim(c, "www-web-2") is None
        ev = c.trace.events()
        assert list(ev[ev["object"] == "persistentvolumeclaim/www-web-2"]["reason"]) == [
            "ClaimDeleting", "ClaimDeleted"]
    else:
        assert claim(c, "www-web-2") is not None
    assert claim(c, "www-web-1") is not None and not claim(c, "www-web-1").deleting
    assert decisions(c.sync("web"), "delete") == [("delete", "web-1", None, "scale-down")]
    c.kubelet.finish_termination("web-1")
    c.sync("web")
    expected = ["www-web-0"] if retention == SCALE_DELETE else ["www-web-0", "www-web-1", "www-web-2"]
    assert [p.name for p in c.pvcs("web")] == expected
    assert owners(claim(c, "www-web-0")) == []


def test_when_scaled_delete_keeps_claims_of_pods_replaced_in_range(manual_cluster):
    """whenScaled=Delete only covers scale-down: an in-range pod deleted by hand keeps its claim (no pod ref)."""
    c = manual_cluster
    c.apply(docs_manifest(**policy(SCALE_DELETE)))
    up(c)
    uid = claim(c, "www-web-1").uid
    c.delete_pod("web-1")
    c.kubelet.finish_termination("web-1")
    up(c)
    assert claim(c, "www-web-1").uid == uid
    assert P.claim_volumes(c.pod("web-1")) == {"www": "www-web-1"}


def test_pod_back_in_range_loses_its_pod_ref_and_is_updated_unchanged(manual_cluster):
    """processReplica -> UpdateStatefulPod: a claim fix marks the pod dirty, so it is written (unchanged)."""
    c = manual_cluster
    c.apply(with_claims(3, SCALE_DELETE))
    up(c)
    c.scale("web", 1)
    c.sync("web")
    assert owners(claim(c, "data-web-1")) == [("Pod", "web-1")]
    rv = c.pod("web-1").resource_version
    c.scale("web", 3)  # web-1 is in range again before it was deleted
    r = c.sync("web")
    assert decisions(r, "update-pvc", "update", "wait") == [
        ("update-pvc", "web-1", "data-web-1", "retention-policy"),
        ("update", "web-1", None, "identity"),
        ("wait", "web-2", None, "terminating")]
    assert owners(claim(c, "data-web-1")) == []
    assert c.pod("web-1").resource_version == rv  # an update with no change writes nothing
    assert c.trace.events().iloc[-1]["message"] == "Update Pod web-1 in StatefulSet web successful"


@pytest.mark.parametrize("cascade", ["background", "foreground"])
def test_when_deleted_delete_removes_every_claim_after_the_set(manual_cluster, cascade):
    """whenDeleted=Delete: claims carry the set's ref, so the garbage collector deletes them after the set,
    including claims of pods scaled down earlier (Retain/Delete keeps the set ref on them)."""
    c = manual_cluster
    c.apply(docs_manifest(**policy(SET_DELETE)))
    up(c)
    c.scale("web", 2)
    up(c)
    assert [p.name for p in c.pvcs("web")] == ["www-web-0", "www-web-1", "www-web-2"]
    assert all(owners(p) == [("StatefulSet", "web")] for p in c.pvcs("web"))
    c.delete("web", cascade=cascade)
    # www-web-2 has no pod: it goes at once; the others wait for their pods
    assert [(p.name, p.deleting) for p in c.pvcs("web")] == [("www-web-0", True), ("www-web-1", True)]
    assert all(p.terminating for p in c.pods())
    if cascade == "foreground":
        assert c.statefulset("web").deletion_timestamp is not None
    else:
        with pytest.raises(KeyError):
            c.statefulset("web")
    finish_all(c)
    assert c.pvcs("web") == [] and c.pods() == []
    assert c.store.list("StatefulSet") == []


def test_when_deleted_retain_keeps_every_claim(manual_cluster):
    """whenDeleted=Retain (default): deleting the set leaves the claims, without owners."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    c.delete("web")
    finish_all(c)
    assert [(p.name, p.deleting, p.owner_references) for p in c.pvcs("web")] == [
        ("www-web-0", False, ()), ("www-web-1", False, ()), ("www-web-2", False, ())]


def test_stale_claim_blocks_pod_creation_until_it_is_gone():
    """PodClaimIsStale: with whenScaled=Delete, a claim still owned by the previous web-2 blocks creating web-2."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=5)
    c.apply(docs_manifest(**policy(SCALE_DELETE)))
    up(c)
    old_pod, old_claim = c.pod("web-2").uid, claim(c, "www-web-2").uid
    c.scale("web", 2)
    assert decisions(c.sync("web"), "update-pvc", "delete") == [
        ("update-pvc", "web-2", "www-web-2", "retention-policy"), ("delete", "web-2", None, "scale-down")]
    c.kubelet.finish_termination("web-2")
    pvc = claim(c, "www-web-2")  # the garbage collector comes 5 s later
    assert [(r.kind, r.name, r.uid) for r in pvc.owner_references] == [("Pod", "web-2", old_pod)]
    c.scale("web", 3)
    for _ in range(2):
        r = c.sync("web")
        assert decisions(r, "wait", "create", "create-pvc") == [("wait", "web-2", None, "stale-claim")]
        assert r.waits[0].rule == "processReplica: PodClaimIsStale, wait"
        assert r.error is None
    assert "web-2" not in [p.name for p in c.pods()]
    c.advance(5)
    assert claim(c, "www-web-2") is None
    r = c.sync("web")
    assert decisions(r, "create-pvc", "create") == [("create-pvc", "web-2", "www-web-2", "missing"),
                                                    ("create", "web-2", None, "missing")]
    assert claim(c, "www-web-2").uid != old_claim


def test_stale_claim_blocks_only_its_slot_in_parallel():
    """PodClaimIsStale in Parallel mode: only that slot waits; the others are still created."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=5)
    c.apply(with_claims(3, SCALE_DELETE, policy="Parallel"))
    up(c)
    c.scale("web", 0)
    c.sync("web")
    finish_all(c)
    c.scale("web", 3)
    c.store.remove("PersistentVolumeClaim", "default", "data-web-0")  # as if collected already
    r = c.sync("web")
    assert decisions(r, "wait", "create", "create-pvc") == [
        ("create-pvc", "web-0", "data-web-0", "missing"), ("create", "web-0", None, "missing"),
        ("wait", "web-1", None, "stale-claim"), ("wait", "web-2", None, "stale-claim")]


def test_v116_profile_has_no_retention_policy():
    """v1.16 (no StatefulSetAutoDeletePVC): claims never get owner refs, are never collected, never stale."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16", gc_delay=5)
    c.apply(with_claims(3, BOTH_DELETE))
    up(c)
    assert all(p.owner_references == () for p in c.pvcs("web"))
    c.scale("web", 1)
    up(c)
    c.scale("web", 3)
    results = up(c)
    assert not [d for r in results for d in r.decisions if d.reason == "stale-claim"]
    c.delete("web")
    c.advance(5)
    finish_all(c)
    c.advance(5)
    assert [(p.name, p.owner_references, p.deleting) for p in c.pvcs("web")] == [
        ("data-web-0", (), False), ("data-web-1", (), False), ("data-web-2", (), False)]


# ------------------------------------------------------- pure claim helpers


def _set(policy, replicas=1, name="stateful-set", uid="ss-456"):
    m = with_claims(replicas, policy, name=name)
    return dataclasses.replace(StatefulSet.from_manifest(m), uid=uid)


def _claim(*refs):
    return PersistentVolumeClaim(name="target-claim", owner_references=tuple(refs))


POD_1 = Pod(name="pod-1", uid="pod-123")


@pytest.mark.parametrize("refs, policy, expected", [
    ((OwnerReference("Pod", "pod-1", "pod-123", "v1"),), BOTH_DELETE, True),
    ((OwnerReference("Pod", "pod-1", "pod-123", "v1", controller=False),), BOTH_DELETE, False),
    ((OwnerReference("Pod", "pod-1", "pod-stale", "v1"),), BOTH_DELETE, True),
    ((OwnerReference("Pod", "pod-1", "pod-123", "v1"), OwnerReference("Pod", "Random", "random", "v1")),
     BOTH_DELETE, False),
    ((OwnerReference("StatefulSet", "stateful-set", "ss-456"),), SET_DELETE, True),
    ((OwnerReference("StatefulSet", "stateful-set", "ss-456", "appsv1", controller=False),), SET_DELETE, False),
    ((OwnerReference("StatefulSet", "stateful-set", "set-stale"),), SET_DELETE, True),
    ((OwnerReference("StatefulSet", "stateful-set", "ss-456"), OwnerReference("StatefulSet", "Random", "random")),
     SET_DELETE, False),
], ids=["pod controller", "pod non-controller", "stale pod", "unexpected controller, pod", "set controller",
        "set non-controller", "stale set", "unexpected controller, set"])
def test_claim_owner_up_to_date_edge_cases(refs, policy, expected):
    """isClaimOwnerUpToDate, upstream's TestClaimOwnerUpToDateEdgeCases table (set of 1 replica, pod-1 condemned)."""
    assert P.is_claim_owner_up_to_date(_set(policy), POD_1, _claim(*refs)) is expected


@pytest.mark.parametrize("refs, expected", [
    ((OwnerReference("StatefulSet", "sts", "123"), OwnerReference("Else", "foo", "x", "someone", controller=False)),
     [("StatefulSet", "sts", "123", True), ("Else", "foo", "x", False)]),
    ((OwnerReference("StatefulSet", "sts", "123", controller=False),), [("StatefulSet", "sts", "123", True)]),
    ((OwnerReference("else", "sts", "456", "someone", controller=False),),
     [("else", "sts", "456", False), ("StatefulSet", "sts", "123", True)]),
    ((), [("StatefulSet", "sts", "123", True)]),
    ((OwnerReference("StatefulSet", "sts", ""),), []),
    ((OwnerReference("StatefulSet", "sts", "", controller=False),), []),
], ids=["set correctly", "missing controller", "matching name but missing", "not present",
        "controller but no uid", "neither controller nor uid"])
def test_update_claim_owner_refs(refs, expected):
    """updateClaimOwnerRefForSetAndPod, upstream's TestUpdateClaimControllerRef (Delete/Delete, pod-0 in range).

    Compared as sets, like upstream's ownerRefsChanged.
    """
    sts = _set(BOTH_DELETE, name="sts", uid="123")
    got = P.update_claim_owner_ref_for_set_and_pod(sts, Pod(name="pod-0", uid="456"), _claim(*refs))
    assert sorted((r.kind, r.name, r.uid, r.controller) for r in got) == sorted(expected)


def test_unexpected_controller_scrubs_our_refs_and_adds_none():
    """updateClaimOwnerRefForSetAndPod: another controller on the claim -> our refs removed, none added."""
    sts = _set(BOTH_DELETE, replicas=5, name="ss", uid="ss-123")
    pod = Pod(name="pod-8", uid="pod-456")
    other = OwnerReference("Unknown", "unknown", "xyz", "custom/v1")
    pvc = _claim(OwnerReference("Pod", "pod-8", "pod-456", "v1"), other)
    assert P.has_unexpected_controller(pvc, sts, pod)
    assert not P.is_claim_owner_up_to_date(sts, pod, pvc)
    assert P.update_claim_owner_ref_for_set_and_pod(sts, pod, pvc) == (other,)
    assert P.is_claim_owner_up_to_date(sts, pod, _claim(other))  # nothing of ours left: leave it


def test_claim_is_stale_rules():
    """PodClaimIsStale: a ref to the pod's name with another uid (a not-created pod has none) is stale."""
    sts = dataclasses.replace(StatefulSet.from_manifest(with_claims(3, SCALE_DELETE)), uid="s")
    ref = OwnerReference("Pod", "web-1", "old-uid", "v1")
    claims = {"data-web-1": PersistentVolumeClaim(name="data-web-1", owner_references=(ref,))}
    spc = recording_pod_control(Snapshot(sts=sts, pods=(), claims=claims, namespace_revisions={}, now=0.0),
                                stsedu.api.profiles.CURRENT)  # GetClaim reads *claims*
    assert spc.pod_claim_is_stale(sts, Pod(name="web-1"))
    assert not spc.pod_claim_is_stale(sts, Pod(name="web-1", uid="old-uid"))
    assert not spc.pod_claim_is_stale(sts, Pod(name="web-2"))  # no claim yet: not stale
    retain = dataclasses.replace(StatefulSet.from_manifest(with_claims(3, SET_DELETE)), uid="s")
    assert not spc.pod_claim_is_stale(retain, Pod(name="web-1"))


def test_update_storage_puts_claim_volumes_first_and_keeps_others():
    """updateStorage: one volume per template (a same-named volume is replaced), other volumes kept after them."""
    sts = StatefulSet.from_manifest(with_claims(3))
    pod = Pod(name="web-1", spec={"volumes": [{"name": "cfg", "configMap": {"name": "c"}},
                                              {"name": "data", "emptyDir": {}}]})
    assert not P.storage_matches(sts, pod)
    spec = P.update_storage(sts, pod)
    assert spec["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                               {"name": "cfg", "configMap": {"name": "c"}}]
    assert P.storage_matches(sts, dataclasses.replace(pod, spec=spec))


def test_docs_retention_table_matches_the_code():
    """docs/storage.md's retention table is what claim_owner_refs_wanted (isClaimOwnerUpToDate's table) says."""
    from pathlib import Path
    text = (Path(__file__).parents[3] / "docs" / "storage.md").read_text()
    section = text.split("| whenScaled / whenDeleted |", 1)[1].split("\n\n", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines()[2:]]
    assert len(rows) == 4
    words = {(False, False): "no owner", (True, False): "the set", (False, True): "its pod"}
    for pol, in_range, condemned in rows:
        scaled, deleted = pol.split(" / ")
        sts = StatefulSet.from_manifest(with_claims(1, {"whenScaled": scaled, "whenDeleted": deleted}))
        policy = P.get_persistent_volume_claim_retention_policy(sts)
        assert words[P.claim_owner_refs_wanted(policy, scaled_down=False)] == in_range
        assert words[P.claim_owner_refs_wanted(policy, scaled_down=True)] == condemned


def test_failed_claim_create_stops_the_pod_create(manual_cluster):
    """CreateStatefulPod: if creating a claim fails, the pod is not created; both failures are events."""
    c = manual_cluster
    c.apply(docs_manifest())
    c.inject_error("create", "PersistentVolumeClaim")
    r = c.sync("web")
    assert [(d.action, d.applied) for d in r.decisions if d.action in ("create-pvc", "create")] == [
        ("create-pvc", False)]
    assert c.pods() == [] and c.pvcs() == []
    failed = list(c.trace.events().query("type == 'Warning'")["message"])
    assert failed[0].startswith("Create Claim www-web-0 for Pod web-0 in StatefulSet web failed error: ")
    assert failed[1].startswith("Create Pod web-0 in StatefulSet web failed error: failed to create PVC www-web-0")
    r = c.sync("web")  # retried
    assert decisions(r, "create-pvc", "create") == [("create-pvc", "web-0", "www-web-0", "missing"),
                                                    ("create", "web-0", None, "missing")]
    assert r.error is None and [p.name for p in c.pods()] == ["web-0"]
