"""Stable network identity: names, labels, hostname/subdomain, DNS names, and the identity repair.

Upstream rules: newStatefulSetPod / initIdentity / updateIdentity / identityMatches
(stateful_set_utils.go), UpdateStatefulPod (stateful_pod_control.go); the DNS table
is the one on the StatefulSet concept page.
"""

import pytest

import stsedu
from stsedu.views.identity_tables import DNS_COLUMNS
from storage_helpers import decisions, docs_manifest, up, with_claims

# The concept page's table (content/en/docs/concepts/workloads/controllers/statefulset.md).
CONCEPT_PAGE_TABLE = """\
Cluster Domain | Service (ns/name) | StatefulSet (ns/name)  | StatefulSet Domain  | Pod DNS | Pod Hostname |
-------------- | ----------------- | ----------------- | -------------- | ------- | ------------ |
 cluster.local | default/nginx     | default/web       | nginx.default.svc.cluster.local | web-{0..N-1}.nginx.default.svc.cluster.local | web-{0..N-1} |
 cluster.local | foo/nginx         | foo/web           | nginx.foo.svc.cluster.local     | web-{0..N-1}.nginx.foo.svc.cluster.local     | web-{0..N-1} |
 kube.local    | foo/nginx         | foo/web           | nginx.foo.svc.kube.local        | web-{0..N-1}.nginx.foo.svc.kube.local        | web-{0..N-1} |
"""


def _rows(table: str) -> list[tuple[str, ...]]:
    lines = [line for line in table.splitlines() if line.strip()]
    return [tuple(cell.strip() for cell in line.strip().strip("|").split("|")) for line in lines]


def test_dns_table_reproduces_the_concept_page_rows():
    """The concept page's three examples: cluster domain and namespace change the names, the pattern does not."""
    header, _, *rows = _rows(CONCEPT_PAGE_TABLE)
    assert header == DNS_COLUMNS
    got = []
    for domain, namespace in (("cluster.local", None), ("cluster.local", "foo"), ("kube.local", "foo")):
        c = stsedu.Cluster(kubelet="manual") if domain == "cluster.local" else stsedu.Cluster(
            kubelet="manual", cluster_domain=domain)
        c.apply(docs_manifest(namespace=namespace))
        table = stsedu.dns_table(c, "web", namespace=namespace or "default")
        assert tuple(table.columns) == DNS_COLUMNS
        got.append(tuple(table.iloc[0]))
    assert got == rows


def test_dns_table_cluster_domain_argument_and_start_ordinal(manual_cluster):
    """dns_table(cluster_domain=...) overrides the cluster's; spec.ordinals.start shifts the range."""
    c = manual_cluster
    c.apply(docs_manifest(ordinals={"start": 2}))
    row = stsedu.dns_table(c, "web", cluster_domain="kube.local").iloc[0]
    assert row["Pod DNS"] == "web-{2..N+1}.nginx.default.svc.kube.local"
    assert row["Pod Hostname"] == "web-{2..N+1}"
    with pytest.raises(KeyError):
        stsedu.dns_table(c, "nope")


def test_dns_table_without_a_service_name(manual_cluster):
    """serviceName is optional: then pods get a hostname but no subdomain, so no per-pod DNS name."""
    c = manual_cluster
    m = with_claims(2)
    del m["spec"]["serviceName"]
    c.apply(m)
    c.sync("web")
    assert tuple(stsedu.dns_table(c, "web").iloc[0]) == ("cluster.local", "", "default/web", "", "", "web-{0..N-1}")
    row = stsedu.pod_identity_table(c, "web").iloc[0]
    assert (row["hostname"], row["subdomain"], row["dns_name"], row["resolves"]) == ("web-0", "", "", False)


def test_pod_identity_name_hostname_subdomain_and_labels(manual_cluster):
    """newStatefulSetPod + initIdentity: name <set>-<ordinal>, hostname = name, subdomain = serviceName,
    pod-name and pod-index labels, controller-revision-hash = the revision's full name, controller ref."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    revision = c.revisions("web")[0].name
    sts = c.statefulset("web")
    for n, pod in enumerate(c.pods("web")):
        assert pod.name == f"web-{n}" and pod.ordinal == n
        assert (pod.spec["hostname"], pod.spec["subdomain"]) == (f"web-{n}", "nginx")
        assert pod.labels == {"app": "nginx", "statefulset.kubernetes.io/pod-name": f"web-{n}",
                              "apps.kubernetes.io/pod-index": str(n), "controller-revision-hash": revision}
        assert [(r.kind, r.name, r.uid, r.controller, r.block_owner_deletion)
                for r in pod.owner_references] == [("StatefulSet", "web", sts.uid, True, True)]


def test_pod_identity_table(manual_cluster):
    """One row per pod: hostname, subdomain, DNS name, whether DNS answers (Ready pods of a headless Service)."""
    c = manual_cluster
    c.apply(docs_manifest())
    c.sync("web")
    t = stsedu.pod_identity_table(c, "web")
    assert list(t["pod"]) == ["web-0"]
    row = t.iloc[0]
    assert (row["hostname"], row["subdomain"], row["dns_name"]) == (
        "web-0", "nginx", "web-0.nginx.default.svc.cluster.local")
    assert not row["resolves"]  # Pending: no address yet
    up(c)
    t = stsedu.pod_identity_table(c, "web")
    assert list(t["dns_name"]) == [f"web-{n}.nginx.default.svc.cluster.local" for n in range(3)]
    assert list(t["resolves"]) == [True, True, True]
    assert list(t["claims"]) == ["www-web-0", "www-web-1", "www-web-2"]
    assert list(t["identity_matches"]) == [True] * 3 and list(t["storage_matches"]) == [True] * 3
    c.kubelet.set_unready("web-1")
    c.patch_pod("web-2", {"metadata": {"labels": {"app": "debug"}}})  # the Service no longer selects it
    t = stsedu.pod_identity_table(c, "web")
    assert list(t["resolves"]) == [True, False, False]


def test_identity_label_is_restored_after_a_manual_edit(manual_cluster):
    """identityMatches fails -> UpdateStatefulPod puts the pod-name label back (and the pod-index label)."""
    c = manual_cluster
    c.apply(docs_manifest())
    up(c)
    uid = c.pod("web-1").uid
    c.patch_pod("web-1", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": "web-7"}}})
    assert not stsedu.pod_identity_table(c, "web")["identity_matches"][1]
    r = c.sync("web")
    assert decisions(r, "update", "create", "delete") == [("update", "web-1", None, "identity")]
    d = r.decisions[0]
    assert d.rule == "processReplica: UpdateStatefulPod restores identity and storage"
    assert d.message == "web-1 lost its identity (label statefulset.kubernetes.io/pod-name); restore it."
    pod = c.pod("web-1")
    assert pod.labels["statefulset.kubernetes.io/pod-name"] == "web-1" and pod.uid == uid
    assert c.trace.events().iloc[-1]["message"] == "Update Pod web-1 in StatefulSet web successful"
    assert decisions(c.sync("web"), "update") == []  # repaired for good


def test_removed_identity_label_is_restored(manual_cluster):
    """updateIdentity also runs when the label is missing altogether."""
    c = manual_cluster
    c.apply(with_claims(2))
    up(c)
    c.patch_pod("web-0", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": None}}})
    assert decisions(c.sync("web"), "update") == [("update", "web-0", None, "identity")]
    assert c.pod("web-0").labels["statefulset.kubernetes.io/pod-name"] == "web-0"


def test_pod_index_label_alone_is_not_checked(manual_cluster):
    """identityMatches does not look at apps.kubernetes.io/pod-index: editing it alone is not repaired;
    once the pod-name label is repaired too, updateIdentity sets both."""
    c = manual_cluster
    c.apply(with_claims(2))
    up(c)
    c.patch_pod("web-1", {"metadata": {"labels": {"apps.kubernetes.io/pod-index": "9"}}})
    assert decisions(c.sync("web"), "update") == []
    assert c.pod("web-1").labels["apps.kubernetes.io/pod-index"] == "9"
    c.patch_pod("web-1", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": "x"}}})
    assert decisions(c.sync("web"), "update") == [("update", "web-1", None, "identity")]
    labels = c.pod("web-1").labels
    assert (labels["statefulset.kubernetes.io/pod-name"], labels["apps.kubernetes.io/pod-index"]) == ("web-1", "1")


def test_identity_repair_waits_for_predecessors_in_ordered_mode(manual_cluster):
    """processReplica checks identity last: in OrderedReady mode a pod behind an unready one is not repaired yet."""
    c = manual_cluster
    c.apply(with_claims(3))
    up(c)
    c.kubelet.set_unready("web-0")
    c.patch_pod("web-2", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": "x"}}})
    assert decisions(c.sync("web"), "update", "wait") == [("wait", "web-0", None, "not-running-ready")]
    c.kubelet.set_ready("web-0")
    assert decisions(c.sync("web"), "update", "wait") == [("update", "web-2", None, "identity")]


def test_v116_profile_pods_have_no_pod_index_label():
    """v1.16: no apps.kubernetes.io/pod-index label (PodIndexLabel came in 1.28)."""
    c = stsedu.Cluster(kubelet="manual", profile="v1.16")
    c.apply(with_claims(1))
    c.sync("web")
    assert "apps.kubernetes.io/pod-index" not in c.pod("web-0").labels
    assert c.pod("web-0").labels["statefulset.kubernetes.io/pod-name"] == "web-0"


# ------------------------------------------------------------- the Service


def test_headless_service_beside_the_set_is_stored_and_shown(manual_cluster):
    """apply() of the concept page's file stores the Service; no warning because it is headless."""
    c = manual_cluster
    c.apply(docs_manifest())
    assert [(s.name, s.headless, dict(s.spec["selector"])) for s in c.services()] == [
        ("nginx", True, {"app": "nginx"})]
    assert "ServiceMissing" not in set(c.trace.events()["reason"])


def test_service_after_the_set_in_the_same_file_counts(manual_cluster):
    """The warning looks at the whole apply, so document order does not matter."""
    c = manual_cluster
    svc, sts = docs_manifest()
    c.apply([sts, svc])
    assert "ServiceMissing" not in set(c.trace.events()["reason"])


def test_missing_governing_service_gets_a_warning(manual_cluster):
    """The concept page: the user must create the headless Service; stsedu warns (not an upstream event)."""
    c = manual_cluster
    _, sts = docs_manifest()
    c.apply(sts)
    ev = c.trace.events()
    warn = ev[ev["reason"] == "ServiceMissing"]
    assert list(warn["type"]) == ["Warning"] and list(warn["object"]) == ["statefulset/web"]
    assert warn["message"].iloc[0] == ('the governing Service "default/nginx" does not exist: create a headless '
                                       "Service so each pod gets its DNS name")
    c.sync("web")
    assert c.pod("web-0").spec["subdomain"] == "nginx"  # the pod still gets hostname and subdomain
    up(c)
    assert list(stsedu.pod_identity_table(c, "web")["resolves"]) == [False, False, False]


def test_service_with_a_cluster_ip_gets_a_warning(manual_cluster):
    """A governing Service must be headless (clusterIP: None) for per-pod DNS records."""
    c = manual_cluster
    svc, sts = docs_manifest()
    del svc["spec"]["clusterIP"]
    c.apply([svc, sts])
    msgs = list(c.trace.events().query("reason == 'ServiceMissing'")["message"])
    assert msgs == ['the governing Service "default/nginx" is not headless (clusterIP: None): create a '
                    "headless Service so each pod gets its DNS name"]


# ------------------------------------------------------------- claim table


def test_claim_table_shows_owners_and_fate(manual_cluster):
    """claim_table: which pod a claim is for, its owners, and what will delete it."""
    c = manual_cluster
    c.apply(docs_manifest(persistentVolumeClaimRetentionPolicy={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    up(c)
    t = stsedu.claim_table(c, "web")
    assert list(t["claim"]) == ["www-web-0", "www-web-1", "www-web-2"]
    assert list(t["fate"]) == ["kept: no owner, nothing deletes it"] * 3
    c.scale("web", 2)
    c.sync("web")
    row = stsedu.claim_table(c, "web").iloc[2]
    assert (row["pod"], row["pod_exists"], row["owners"]) == ("web-2", True, "pod/web-2")
    assert row["fate"] == "deleted by the garbage collector once pod/web-2 is gone"
