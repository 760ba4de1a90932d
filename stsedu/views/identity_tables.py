"""What makes ``web-1`` still ``web-1``: stable network identity and stable storage, as tables.

* :func:`dns_table`: the concept page's table (Cluster Domain, Service,
  StatefulSet, StatefulSet Domain, Pod DNS, Pod Hostname) for one set;
* :func:`pod_identity_table`: one row per pod of the set: hostname,
  subdomain, DNS name, identity labels, claims, and whether the controller's
  identity and storage checks (``identityMatches``, ``storageMatches``) pass;
* :func:`claim_table`: one row per claim of the set: which pod it belongs
  to, its owners, and what the retention policy will do with it.

Each returns a pandas DataFrame; nothing here changes the cluster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..controller import stateful_set_utils as P
from ..api.objects import POD_INDEX_LABEL, POD_NAME_LABEL, Pod, Service, StatefulSet, selector_matches
from ..frames import kit_frame
from ..i18n import _, ngettext

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

Cluster = Any
"""A :class:`stsedu.Cluster`, read through its public methods only: the views sit before the facade
in the package's rooms and never import it."""

DNS_COLUMNS = ("Cluster Domain", "Service (ns/name)", "StatefulSet (ns/name)", "StatefulSet Domain",
               "Pod DNS", "Pod Hostname")
"""Columns of :func:`dns_table`, as on the StatefulSet concept page."""

POD_COLUMNS = ("pod", "ordinal", "owner", "hostname", "subdomain", "dns_name", "resolves",
               "pod_name_label", "pod_index_label", "revision", "claims", "identity_matches",
               "storage_matches")
"""Columns of :func:`pod_identity_table`."""

CLAIM_COLUMNS = ("claim", "template", "ordinal", "pod", "pod_exists", "uid", "created", "owners",
                 "deleting", "fate")
"""Columns of :func:`claim_table`."""


def statefulset_domain(service: str, namespace: str, cluster_domain: str = "cluster.local") -> str:
    """``<service>.<namespace>.svc.<cluster-domain>``: the domain the governing Service controls."""
    return f"{service}.{namespace}.svc.{cluster_domain}"


def pod_dns_name(pod_name: str, service: str, namespace: str, cluster_domain: str = "cluster.local") -> str:
    """``<pod>.<service>.<namespace>.svc.<cluster-domain>``: a pod's stable DNS name."""
    return f"{pod_name}.{statefulset_domain(service, namespace, cluster_domain)}"


def _ordinal_range(start: int) -> str:
    """``{0..N-1}`` as the concept page writes it, shifted by the start ordinal."""
    last = "N-1" if start == 0 else "N" if start == 1 else f"N+{start - 1}"
    return f"{{{start}..{last}}}"


def _domain(cluster: "Cluster", cluster_domain: str | None) -> str:
    return cluster_domain if cluster_domain is not None else cluster.cluster_domain


def dns_table(cluster: "Cluster", set_name: str, namespace: str = "default",
              cluster_domain: str | None = None) -> "pd.DataFrame":
    """The set's row of the concept page's DNS table (columns :data:`DNS_COLUMNS`).

    *cluster_domain* defaults to the cluster's (``Cluster(cluster_domain=...)``,
    itself ``cluster.local`` by default).  Ordinals are written as the page
    writes them, ``web-{0..N-1}`` (shifted when ``spec.ordinals.start`` is
    set).  A set without ``serviceName`` gets empty Service and DNS cells.
    Raise KeyError if the set does not exist.
    """
    sts = cluster.statefulset(set_name, namespace)
    domain = _domain(cluster, cluster_domain)
    svc, ns = sts.spec.service_name, sts.namespace
    names = f"{sts.name}-{_ordinal_range(P.get_start_ordinal(sts, start_ordinal_supported=cluster.profile.start_ordinal))}"
    if svc:
        row = (domain, f"{ns}/{svc}", f"{ns}/{sts.name}", statefulset_domain(svc, ns, domain),
               pod_dns_name(names, svc, ns, domain), names)
    else:  # serviceName is optional: no subdomain, so no per-pod DNS name
        row = (domain, "", f"{ns}/{sts.name}", "", "", names)
    return kit_frame([row], columns=list(DNS_COLUMNS))


def resolves(pod: Pod, service: Service | None) -> bool:
    """True if cluster DNS would answer for the pod's name now.

    The endpoints controller gives the pod's address its hostname when the
    pod's ``subdomain`` names the Service (same namespace) and the Service
    selects the pod; DNS publishes it for headless Services, for ready
    addresses only (a terminating or unready pod is not ready) unless the
    Service sets ``publishNotReadyAddresses``.  A pod that has not started
    has no IP yet; a Failed or Succeeded pod is not an endpoint.
    """
    if service is None or not service.headless:
        return False
    hostname, subdomain = pod.spec.get("hostname"), pod.spec.get("subdomain")
    selector = service.spec.get("selector") or {}
    if not hostname or subdomain != service.name or pod.namespace != service.namespace or not selector:
        return False
    if not selector_matches({"matchLabels": selector}, pod.labels):
        return False
    if pod.phase in ("Failed", "Succeeded") or pod.started_at is None:
        return False
    if service.spec.get("publishNotReadyAddresses"):
        return True
    return pod.ready and not pod.terminating


def _set_pods(cluster: "Cluster", sts: StatefulSet) -> list[Pod]:
    """Pods whose name parses to the set's name, owned by it or orphans (a released pod shows up too)."""
    return [p for p in cluster.pods(namespace=sts.namespace)
            if p.parent == sts.name and (p.owner is None or p.owner == sts.name)]


def pod_identity_table(cluster: "Cluster", set_name: str, namespace: str = "default",
                       cluster_domain: str | None = None) -> "pd.DataFrame":
    """One row per pod named ``<set>-<ordinal>`` (owned by the set or orphaned), by ordinal.

    Columns (:data:`POD_COLUMNS`): *owner* (the set's name, or None for an
    orphan), the pod's *hostname* and *subdomain* (set once, at creation),
    its *dns_name* and whether it *resolves* now (see :func:`resolves`), the
    identity labels, *revision* (``controller-revision-hash``), its *claims*
    (claim names it mounts, comma separated), and the controller's checks
    *identity_matches* and *storage_matches*.  Raise KeyError if the set
    does not exist.
    """
    sts = cluster.statefulset(set_name, namespace)
    domain = _domain(cluster, cluster_domain)
    rows = []
    for pod in _set_pods(cluster, sts):
        subdomain = pod.spec.get("subdomain") or ""
        service = cluster.store.get("Service", pod.namespace, subdomain) if subdomain else None
        hostname = pod.spec.get("hostname") or ""
        dns = pod_dns_name(hostname, subdomain, pod.namespace, domain) if hostname and subdomain else ""
        rows.append((pod.name, pod.ordinal, pod.owner, hostname, subdomain, dns, resolves(pod, service),
                     pod.labels.get(POD_NAME_LABEL), pod.labels.get(POD_INDEX_LABEL), pod.revision,
                     ", ".join(P.claim_volumes(pod).values()), P.identity_matches(sts, pod),
                     P.storage_matches(sts, pod)))
    return kit_frame(rows, columns=list(POD_COLUMNS))


def _fate(claim, owners_alive: dict[str, bool]) -> str:
    """What becomes of *claim*, in the learner's language (the owners' kind/name stay as kubectl writes them)."""
    if claim.deleting:
        return _("being deleted (gone once no pod uses it)")
    if not claim.owner_references:
        return _("kept: no owner, nothing deletes it")
    names = _(" and ").join(f"{r.kind.lower()}/{r.name}" for r in claim.owner_references)
    n = len(claim.owner_references)
    if not any(owners_alive.values()):
        return ngettext("about to be deleted by the garbage collector: {owners} is gone",
                        "about to be deleted by the garbage collector: {owners} are all gone", n).format(owners=names)
    return ngettext("deleted by the garbage collector once {owners} is gone",
                    "deleted by the garbage collector once {owners} are all gone", n).format(owners=names)


def claim_table(cluster: "Cluster", set_name: str, namespace: str = "default") -> "pd.DataFrame":
    """One row per claim of the set's volumeClaimTemplates, by template then ordinal.

    Columns (:data:`CLAIM_COLUMNS`): the *claim* name, its *template* and
    *ordinal*, the *pod* it is for and whether that pod exists, the claim's
    *uid* and *created* time (unchanged when a pod comes back and reuses it),
    its *owners* (``statefulset/web``, ``pod/web-2``: set by the retention
    policy), *deleting*, and its *fate* in words.  Works after the set is
    deleted too (then any ``<template>-<set>-<ordinal>`` claim is listed).
    """
    rows = []
    for claim in cluster.pvcs(set_name, namespace):
        head, _, ordinal = claim.name.rpartition("-")
        template = head[:-len(set_name) - 1]
        pod_name = f"{set_name}-{ordinal}"
        alive = {r.uid: _exists(cluster, namespace, r) for r in claim.owner_references}
        rows.append((claim.name, template, int(ordinal), pod_name,
                     cluster.store.get("Pod", namespace, pod_name) is not None, claim.uid,
                     claim.creation_timestamp,
                     ", ".join(f"{r.kind.lower()}/{r.name}" for r in claim.owner_references),
                     claim.deleting, _fate(claim, alive)))
    return kit_frame(rows, columns=list(CLAIM_COLUMNS))


def _exists(cluster: "Cluster", namespace: str, ref) -> bool:
    obj = cluster.store.get(ref.kind, namespace, ref.name) if ref.kind in ("Pod", "StatefulSet") else None
    return obj is not None and obj.uid == ref.uid
