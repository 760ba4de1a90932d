"""Small pure helpers of the controller (≈ upstream ``stateful_set_utils.go``).

Each predicate mirrors the upstream function named in its docstring.  Time
is always a parameter (*now*); nothing here reads a clock or writes anything.
"""

from __future__ import annotations

import copy
from typing import Mapping

from .model import (POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, OwnerReference, Pod,
                    PersistentVolumeClaim, StatefulSet)


def is_created(pod: Pod) -> bool:
    """True if the pod exists in the API (``isCreated``: its phase is set)."""
    return pod.phase != ""


def is_pending(pod: Pod) -> bool:
    """True if the pod's phase is Pending (``isPending``)."""
    return pod.phase == "Pending"


def is_failed(pod: Pod) -> bool:
    """True if the pod's phase is Failed (``isFailed``)."""
    return pod.phase == "Failed"


def is_succeeded(pod: Pod) -> bool:
    """True if the pod's phase is Succeeded (``isSucceeded``)."""
    return pod.phase == "Succeeded"


def is_terminating(pod: Pod) -> bool:
    """True if the pod has a deletion timestamp (``isTerminating``)."""
    return pod.deletion_timestamp is not None


def is_running_and_ready(pod: Pod) -> bool:
    """True if the pod is Running with Ready=True (``isRunningAndReady``)."""
    return pod.phase == "Running" and pod.ready


def is_running_and_available(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """True if Ready for strictly more than *min_ready_seconds* at *now* (``isRunningAndAvailable``).

    Like upstream, this tests the Ready condition only, not the phase.
    """
    if not pod.ready:
        return False
    if min_ready_seconds <= 0:
        return True
    since = pod.ready_since if pod.ready_since is not None else now
    return since + min_ready_seconds < now


def is_unavailable(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """True if terminating, not Running and Ready, or not yet Available (``isUnavailable``).

    Upstream (v1.35+) tests terminating or not available; a pod that is not
    Running is treated as unavailable too (BEHAVIOUR.md 1.5, UNCONFIRMED).
    """
    return (pod.deletion_timestamp is not None or not (pod.phase == "Running" and pod.ready)
            or not is_running_and_available(pod, min_ready_seconds, now))


def is_healthy(pod: Pod) -> bool:
    """True if Running and Ready and not terminating (``isHealthy``, v1.16 era)."""
    return is_running_and_ready(pod) and not is_terminating(pod)


def available_at(pod: Pod, min_ready_seconds: int) -> float | None:
    """The first time the pod counts as Available, or None if it is not Ready."""
    if not pod.ready or pod.ready_since is None:
        return None
    return pod.ready_since + min_ready_seconds if min_ready_seconds > 0 else pod.ready_since


def allows_burst(sts: StatefulSet) -> bool:
    """True if the set's podManagementPolicy is Parallel (``allowsBurst``)."""
    return sts.spec.pod_management_policy == "Parallel"


def pod_name(set_name: str, ordinal: int) -> str:
    """``<set>-<ordinal>`` (``getPodName``)."""
    return f"{set_name}-{ordinal}"


def claim_name(template_name: str, set_name: str, ordinal: int) -> str:
    """``<template>-<set>-<ordinal>`` (``getPersistentVolumeClaimName``)."""
    return f"{template_name}-{set_name}-{ordinal}"


def start_ordinal(sts: StatefulSet, *, start_ordinal_supported: bool = True) -> int:
    """First ordinal of the set (``getStartOrdinal``); 0 where the profile lacks ``ordinals``."""
    return sts.spec.start_ordinal if start_ordinal_supported else 0


def is_member_of(sts: StatefulSet, pod: Pod) -> bool:
    """True if the pod's name parses to this set's name (``isMemberOf``)."""
    return pod.parent == sts.name


def identity_matches(sts: StatefulSet, pod: Pod) -> bool:
    """True if the pod's name, namespace and pod-name label fit the set (``identityMatches``)."""
    return (pod.ordinal >= 0 and pod.parent == sts.name and pod.namespace == sts.namespace
            and pod.labels.get(POD_NAME_LABEL) == pod.name)


def claim_volumes(pod: Pod) -> dict[str, str]:
    """Volume name -> claimName of the pod's PVC volumes."""
    out = {}
    for v in pod.spec.get("volumes", ()) or ():
        pvc = v.get("persistentVolumeClaim")
        if pvc:
            out[v.get("name")] = pvc.get("claimName")
    return out


def storage_matches(sts: StatefulSet, pod: Pod) -> bool:
    """True if every claim template is mounted with the expected claim name (``storageMatches``)."""
    if pod.ordinal < 0:
        return False
    templates = sts.spec.volume_claim_templates
    if not templates:
        return True
    volumes = claim_volumes(pod)
    for t in templates:
        tname = t.get("metadata", {}).get("name", "")
        if volumes.get(tname) != claim_name(tname, sts.name, pod.ordinal):
            return False
    return True


def claim_names(sts: StatefulSet, ordinal: int) -> list[tuple[str, Mapping]]:
    """(claim name, template) for each volumeClaimTemplate of the set (``getPersistentVolumeClaims``)."""
    return [(claim_name(t.get("metadata", {}).get("name", ""), sts.name, ordinal), t)
            for t in sts.spec.volume_claim_templates]


def new_claim(sts: StatefulSet, template: Mapping, name: str) -> PersistentVolumeClaim:
    """The PVC the controller creates from *template* (labels: template's + selector's matchLabels)."""
    labels = dict(template.get("metadata", {}).get("labels") or {})
    labels.update(sts.spec.selector.get("matchLabels") or {})
    return PersistentVolumeClaim(name=name, namespace=sts.namespace, labels=labels,
                                 annotations=dict(template.get("metadata", {}).get("annotations") or {}),
                                 spec=copy.deepcopy(dict(template.get("spec") or {})))


def update_identity(sts: StatefulSet, pod: Pod, *, pod_index_label: bool = True) -> dict[str, str]:
    """The pod's labels with its identity restored (``updateIdentity``)."""
    labels = dict(pod.labels)
    labels[POD_NAME_LABEL] = pod.name
    if pod_index_label:
        labels[POD_INDEX_LABEL] = str(pod.ordinal)
    return labels


def update_storage(sts: StatefulSet, pod: Pod) -> dict:
    """The pod's spec with its claim volumes rebuilt (``updateStorage``)."""
    spec = copy.deepcopy(dict(pod.spec))
    wanted = {t.get("metadata", {}).get("name", ""): name
              for name, t in ((claim_name(t.get("metadata", {}).get("name", ""), sts.name, pod.ordinal), t)
                              for t in sts.spec.volume_claim_templates)}
    volumes = [v for v in spec.get("volumes", []) or [] if v.get("name") not in wanted]
    for vname, cname in wanted.items():
        volumes.append({"name": vname, "persistentVolumeClaim": {"claimName": cname}})
    spec["volumes"] = volumes
    return spec


def new_stateful_pod(sts: StatefulSet, template: Mapping, revision: str, ordinal: int, *,
                     pod_index_label: bool = True) -> Pod:
    """The pod for *ordinal* built from *template* (``newStatefulSetPod`` + ``setPodRevision``).

    The result is a plan (phase ``""``): the API server gives it a uid and
    phase Pending when it is created.
    """
    name = pod_name(sts.name, ordinal)
    meta = template.get("metadata") or {}
    spec = copy.deepcopy(dict(template.get("spec") or {}))
    labels = dict(meta.get("labels") or {})
    labels[POD_NAME_LABEL] = name
    if pod_index_label:
        labels[POD_INDEX_LABEL] = str(ordinal)
    labels[REVISION_LABEL] = revision
    spec["hostname"] = name
    if sts.spec.service_name:
        spec["subdomain"] = sts.spec.service_name
    grace = float(spec.pop("terminationGracePeriodSeconds", 30) or 0)
    pod = Pod(name=name, namespace=sts.namespace, labels=labels,
              annotations=dict(meta.get("annotations") or {}),
              owner_references=(sts.ref(),), grace_period_seconds=grace, spec=spec)
    if sts.spec.volume_claim_templates:
        pod = _replace_spec(pod, update_storage(sts, pod))
    return pod


def _replace_spec(pod: Pod, spec: dict) -> Pod:
    from dataclasses import replace
    return replace(pod, spec=spec)


def dns_name(pod: Pod, service: str, cluster_domain: str = "cluster.local") -> str:
    """The pod's stable DNS name ``<pod>.<service>.<namespace>.svc.<cluster-domain>``."""
    return f"{pod.name}.{service}.{pod.namespace}.svc.{cluster_domain}"


# ------------------------------------------------------------- claim retention


def _refers_to(ref: OwnerReference, kind: str, name: str, api_version: str) -> bool:
    return ref.kind == kind and ref.name == name and ref.api_version == api_version


def claim_owner_refs_wanted(sts: StatefulSet, pod: Pod, *, condemned: bool) -> tuple[bool, bool]:
    """(set ref wanted, pod ref wanted) on a claim of *pod* (``isClaimOwnerUpToDate`` table)."""
    scaled, deleted = sts.spec.when_scaled, sts.spec.when_deleted
    if scaled == "Retain" and deleted == "Retain":
        return False, False
    if scaled == "Retain" and deleted == "Delete":
        return True, False
    if scaled == "Delete" and deleted == "Retain":
        return False, condemned
    # Delete / Delete
    return (not condemned), condemned


def claim_owner_up_to_date(sts: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, *,
                           condemned: bool) -> bool:
    """True if the claim's owner refs already fit the retention policy (``isClaimOwnerUpToDate``)."""
    set_refs = [r for r in claim.owner_references if _refers_to(r, "StatefulSet", sts.name, "apps/v1")]
    pod_refs = [r for r in claim.owner_references if _refers_to(r, "Pod", pod.name, "v1")]
    # A ref to an earlier object with the same name: leave the claim alone.
    if any(r.uid != sts.uid for r in set_refs) or any(pod.uid and r.uid != pod.uid for r in pod_refs):
        return True
    policy_retain = sts.spec.when_scaled == "Retain" and sts.spec.when_deleted == "Retain"
    others = [r for r in claim.owner_references if r.controller and r not in set_refs and r not in pod_refs]
    if others and not policy_retain:
        return True
    want_set, want_pod = claim_owner_refs_wanted(sts, pod, condemned=condemned)
    has_set = any(r.controller for r in set_refs)
    has_pod = any(r.controller for r in pod_refs)
    if any(not r.controller for r in set_refs + pod_refs):
        return False
    return has_set == want_set and has_pod == want_pod


def claim_owner_refs(sts: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, *,
                     condemned: bool) -> tuple[OwnerReference, ...]:
    """The claim's owner refs after ``updateClaimOwnerRefForSetAndPod``."""
    keep = tuple(r for r in claim.owner_references
                 if not _refers_to(r, "StatefulSet", sts.name, "apps/v1")
                 and not _refers_to(r, "Pod", pod.name, "v1"))
    want_set, want_pod = claim_owner_refs_wanted(sts, pod, condemned=condemned)
    if want_set:
        keep += (sts.ref(),)
    if want_pod and pod.uid:
        keep += (OwnerReference(kind="Pod", name=pod.name, uid=pod.uid, api_version="v1"),)
    return keep


def claim_is_stale(sts: StatefulSet, pod: Pod, claims: Mapping[str, PersistentVolumeClaim]) -> bool:
    """True if a claim still carries a ref to an earlier pod of this name (``PodClaimIsStale``).

    Only for whenScaled=Delete; a missing claim is not stale.
    """
    if sts.spec.when_scaled != "Delete":
        return False
    for name, _ in claim_names(sts, pod.ordinal):
        claim = claims.get(name)
        if claim is None:
            continue
        for r in claim.owner_references:
            if r.kind == "Pod" and r.api_version == "v1" and r.name == pod.name and r.uid != pod.uid:
                return True
    return False


def revision_label(pod: Pod) -> str:
    """``getPodRevision``."""
    return pod.labels.get(REVISION_LABEL, "")
