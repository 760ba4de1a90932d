"""Small pure helpers of the controller (≈ upstream ``stateful_set_utils.go``).

Each predicate mirrors the upstream function named in its docstring.  Time
is always a parameter (*now*); nothing here reads a clock or writes anything.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import replace
from typing import Mapping, Sequence

from ..api.pod_util import is_pod_available
from .history import go_json, revision_hash, revision_name
from ..api.objects import (HASH_LABEL, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, OwnerReference, Pod,
                           ControllerRevision, PersistentVolumeClaim, StatefulSet, StatefulSetSpec,
                           StatefulSetStatus)


def is_created(pod: Pod) -> bool:
    """True if the pod exists in the API (``isCreated``: its phase is set)."""
    return pod.phase != ""


def is_pending(pod: Pod) -> bool:
    """True if the pod's phase is Pending (``isPending``)."""
    return pod.phase == "Pending"


def is_failed(pod: Pod) -> bool:
    """True if the pod's phase is Failed (``isFailed``)."""
    return pod.phase == "Failed"


def is_terminal_phase(pod: Pod) -> bool:
    """True if the pod's phase is Failed or Succeeded: its containers will not run again
    (``isTerminalPhase``, v1.37; v1.31 to v1.36 asked ``isFailed`` or ``isSucceeded``, v1.16 ``isFailed`` only)."""
    return pod.phase == "Failed" or pod.phase == "Succeeded"


def is_terminating(pod: Pod) -> bool:
    """True if the pod has a deletion timestamp (``isTerminating``)."""
    return pod.deletion_timestamp is not None


def is_running_and_ready(pod: Pod) -> bool:
    """True if the pod is Running with Ready=True (``isRunningAndReady``)."""
    return pod.phase == "Running" and pod.ready


def is_running_and_available(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """True if Ready for at least *min_ready_seconds* at *now* (``isRunningAndAvailable``).

    Upstream's is one call of ``podutil.IsPodAvailable`` (:func:`stsedu.api.pod_util.is_pod_available`),
    and so is this: the Ready condition only, not the phase; the boundary counts.
    """
    return is_pod_available(pod, min_ready_seconds, now)


def is_unavailable(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """True if not yet Available or terminating (``isUnavailable``: ``!IsPodAvailable(pod) ||
    isTerminating(pod)``).

    Like upstream's, it reads the Ready condition, not the phase: the kit's kubelet clears
    Ready whenever a pod leaves Running, so a pod that is not Running is unavailable here too.
    """
    return not is_pod_available(pod, min_ready_seconds, now) or is_terminating(pod)


def is_healthy(pod: Pod) -> bool:
    """True if Running and Ready and not terminating (``isHealthy``, v1.16 era)."""
    return is_running_and_ready(pod) and not is_terminating(pod)


def availability_times(pods, min_ready_seconds: int, now: float) -> list[float]:
    """When each Ready pod that is not Available at *now* becomes so (``readySince +
    minReadySeconds``, after *now*; ``isRunningAndAvailable`` counts that instant as available);
    empty when *min_ready_seconds* is 0 or less, as availability then never waits on the clock."""
    if min_ready_seconds <= 0:
        return []
    return [p.ready_since + min_ready_seconds for p in pods
            if p.ready and p.ready_since is not None and p.ready_since + min_ready_seconds > now]


def allows_burst(sts: StatefulSet) -> bool:
    """True if the set's podManagementPolicy is Parallel (``allowsBurst``)."""
    return sts.spec.pod_management_policy == "Parallel"


def get_pod_name(set_name: str, ordinal: int) -> str:
    """``<set>-<ordinal>`` (``getPodName``)."""
    return f"{set_name}-{ordinal}"


def get_persistent_volume_claim_name(template_name: str, set_name: str, ordinal: int) -> str:
    """``<template>-<set>-<ordinal>`` (``getPersistentVolumeClaimName``)."""
    return f"{template_name}-{set_name}-{ordinal}"


def get_parent_name_and_ordinal(pod: Pod) -> tuple[str, int]:
    """The set name and the ordinal the pod's name parses to, ``("", -1)`` when it does not end in
    ``-<digits>`` (``getParentNameAndOrdinal``).  The name is parsed once, when the pod is built
    (:func:`~stsedu.api.objects.parse_pod_name`), as :func:`get_pod_revision` reads ``Pod.revision``."""
    return pod.parent, pod.ordinal


def get_ordinal(pod: Pod) -> int:
    """The pod's ordinal, or -1 (``getOrdinal``)."""
    return get_parent_name_and_ordinal(pod)[1]


def get_start_ordinal(sts: StatefulSet, *, start_ordinal_supported: bool = True) -> int:
    """First ordinal of the set (``getStartOrdinal``); 0 where the profile lacks ``ordinals``."""
    return sts.spec.start_ordinal if start_ordinal_supported else 0


def get_end_ordinal(sts: StatefulSet, *, start_ordinal_supported: bool = True) -> int:
    """Last ordinal of the set, inclusive: start + replicas - 1 (``getEndOrdinal``)."""
    return get_start_ordinal(sts, start_ordinal_supported=start_ordinal_supported) + sts.spec.replicas - 1


def pod_in_ordinal_range(sts: StatefulSet, pod: Pod, *, start_ordinal_supported: bool = True) -> bool:
    """True if the pod's ordinal is in ``[getStartOrdinal, getEndOrdinal]`` (``podInOrdinalRange``)."""
    ordinal = get_ordinal(pod)
    return (get_start_ordinal(sts, start_ordinal_supported=start_ordinal_supported) <= ordinal
            <= get_end_ordinal(sts, start_ordinal_supported=start_ordinal_supported))


def is_member_of(sts: StatefulSet, pod: Pod) -> bool:
    """True if the pod's name parses to this set's name (``isMemberOf``)."""
    return get_parent_name_and_ordinal(pod)[0] == sts.name


def identity_matches(sts: StatefulSet, pod: Pod) -> bool:
    """True if the pod's name, namespace and pod-name label fit the set (``identityMatches``): the
    name must be the one its ordinal gives (``getPodName``), so ``web-00`` is not ``web-0``."""
    parent, ordinal = get_parent_name_and_ordinal(pod)
    return (ordinal >= 0 and parent == sts.name and pod.name == get_pod_name(sts.name, ordinal)
            and pod.namespace == sts.namespace and pod.labels.get(POD_NAME_LABEL) == pod.name)


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
    ordinal = get_ordinal(pod)
    if ordinal < 0:
        return False
    templates = sts.spec.volume_claim_templates
    if not templates:
        return True
    volumes = claim_volumes(pod)
    for t in templates:
        tname = t.get("metadata", {}).get("name", "")
        if volumes.get(tname) != get_persistent_volume_claim_name(tname, sts.name, ordinal):
            return False
    return True


def get_persistent_volume_claims(sts: StatefulSet, pod: Pod) -> list[tuple[str, Mapping]]:
    """(claim name, template) for each volumeClaimTemplate of the set, named for the pod's ordinal
    (``getPersistentVolumeClaims``, which asks ``getOrdinal``)."""
    ordinal = get_ordinal(pod)
    return [(get_persistent_volume_claim_name(t.get("metadata", {}).get("name", ""), sts.name, ordinal), t)
            for t in sts.spec.volume_claim_templates]


def new_claim(sts: StatefulSet, template: Mapping, name: str) -> PersistentVolumeClaim:
    """The PVC the controller creates from *template* (labels: template's + selector's matchLabels)."""
    labels = dict(template.get("metadata", {}).get("labels") or {})
    labels.update(sts.spec.selector.get("matchLabels") or {})
    return PersistentVolumeClaim(name=name, namespace=sts.namespace, labels=labels,
                                 annotations=dict(template.get("metadata", {}).get("annotations") or {}),
                                 spec=copy.deepcopy(dict(template.get("spec") or {})))


def update_identity(sts: StatefulSet, pod: Pod, *, pod_index_label: bool = True) -> Pod:
    """The pod with its identity restored (``updateIdentity``): the name its ordinal gives (web-00 is
    web-0: the name the update is sent to), the set's namespace, and the pod-name (and pod-index)
    labels."""
    ordinal = get_ordinal(pod)
    name = get_pod_name(sts.name, ordinal)
    labels = dict(pod.labels)
    labels[POD_NAME_LABEL] = name
    if pod_index_label:
        labels[POD_INDEX_LABEL] = str(ordinal)
    return replace(pod, name=name, namespace=sts.namespace, labels=labels)


def init_identity(sts: StatefulSet, pod: Pod, *, pod_index_label: bool = True) -> Pod:
    """A new pod's identity (``initIdentity``): :func:`update_identity`, then the hostname and
    subdomain, which only a pod's creation sets."""
    pod = update_identity(sts, pod, pod_index_label=pod_index_label)
    spec = dict(pod.spec)
    spec["hostname"] = pod.name
    if sts.spec.service_name:
        spec["subdomain"] = sts.spec.service_name
    return replace(pod, spec=spec)


def update_storage(sts: StatefulSet, pod: Pod) -> dict:
    """The pod's spec with its claim volumes rebuilt (``updateStorage``).

    One volume per claim template, named after the template and pointing at
    ``<template>-<set>-<ordinal>``, comes first; the pod's other volumes are
    kept after them; a volume with a template's name is replaced.
    """
    spec = copy.deepcopy(dict(pod.spec))
    wanted = {t.get("metadata", {}).get("name", ""): claim
              for claim, t in get_persistent_volume_claims(sts, pod)}
    volumes = [{"name": vname, "persistentVolumeClaim": {"claimName": cname}}
               for vname, cname in wanted.items()]
    volumes += [v for v in spec.get("volumes", []) or [] if v.get("name") not in wanted]
    spec["volumes"] = volumes
    return spec


def new_stateful_set_pod(sts: StatefulSet, ordinal: int, *, pod_index_label: bool = True) -> Pod:
    """The pod for *ordinal* built from the set's template (``newStatefulSetPod``): named by
    :func:`get_pod_name`, its identity set (:func:`init_identity`), its claim volumes added
    (:func:`update_storage`).

    The result is a plan (phase ``""``): the API server gives it a uid and
    phase Pending when it is created.
    """
    template = sts.spec.template
    meta = template.get("metadata") or {}
    spec = copy.deepcopy(dict(template.get("spec") or {}))
    grace = float(spec.pop("terminationGracePeriodSeconds", 30) or 0)
    pod = Pod(name=get_pod_name(sts.name, ordinal), namespace=sts.namespace, labels=dict(meta.get("labels") or {}),
              annotations=dict(meta.get("annotations") or {}),
              owner_references=(sts.ref(),), grace_period_seconds=grace, spec=spec)
    pod = init_identity(sts, pod, pod_index_label=pod_index_label)
    if sts.spec.volume_claim_templates:
        pod = replace(pod, spec=update_storage(sts, pod))
    return pod


def set_pod_revision(pod: Pod, revision: str) -> Pod:
    """The pod with its ``controller-revision-hash`` label set to *revision* (``setPodRevision``)."""
    return replace(pod, labels={**pod.labels, REVISION_LABEL: revision})




# ------------------------------------------------------------- claim retention
#
# The PVC retention policy (persistentVolumeClaimRetentionPolicy) works through
# owner references on the claims; the garbage collector does the deleting.
# These mirror the helpers of upstream's stateful_set_utils.go and
# stateful_pod_control.go one by one (docs/behaviour.md section 4).

SET_KIND = ("apps/v1", "StatefulSet")
POD_KIND = ("v1", "Pod")


def matches_ref(ref: OwnerReference, kind: tuple[str, str], name: str) -> bool:
    """True if *ref* names an object of *kind* ``(apiVersion, kind)`` called *name* (``matchesRef``)."""
    return ref.api_version == kind[0] and ref.kind == kind[1] and ref.name == name


def has_owner_ref(obj, owner_uid: str) -> bool:
    """True if *obj* has an owner reference with uid *owner_uid*, controller or not (``hasOwnerRef``)."""
    return any(r.uid == owner_uid for r in obj.owner_references)


def has_stale_owner_ref(claim: PersistentVolumeClaim, kind: tuple[str, str], name: str, uid: str) -> bool:
    """True if the claim's first ref to *kind*/*name* has another uid than *uid* (``hasStaleOwnerRef``).

    The ref then points at an earlier object of the same name.  A pod that
    is not created yet has uid ``""``, so any ref to its name is stale.
    """
    for r in claim.owner_references:
        if matches_ref(r, kind, name):
            return r.uid != uid
    return False


def get_persistent_volume_claim_retention_policy(sts: StatefulSet) -> tuple[str, str]:
    """(whenScaled, whenDeleted) of the set's claim retention policy, Retain where unset
    (``getPersistentVolumeClaimRetentionPolicy``; the defaults are filled when the spec is parsed)."""
    return sts.spec.when_scaled, sts.spec.when_deleted


def has_unexpected_controller(claim: PersistentVolumeClaim, sts: StatefulSet, pod: Pod) -> bool:
    """True if another controller manages the claim under a non-Retain policy (``hasUnexpectedController``).

    A ref to this set's or this pod's name with another uid counts as
    unexpected too (the claim was orphaned from an earlier object).
    """
    if get_persistent_volume_claim_retention_policy(sts) == ("Retain", "Retain"):
        return False
    for r in claim.owner_references:
        if matches_ref(r, SET_KIND, sts.name):
            if r.uid != sts.uid:
                return True
            continue
        if matches_ref(r, POD_KIND, pod.name):
            if r.uid != pod.uid:
                return True
            continue
        if r.controller:
            return True
    return False


def has_non_controller_owner(claim: PersistentVolumeClaim, sts: StatefulSet, pod: Pod) -> bool:
    """True if the set or the pod owns the claim without being its controller (``hasNonControllerOwner``)."""
    return any((r.uid == sts.uid or r.uid == pod.uid) and not r.controller for r in claim.owner_references)


def claim_owner_refs_wanted(policy: tuple[str, str], scaled_down: bool) -> tuple[bool, bool]:
    """(set ref wanted, pod ref wanted) on a claim of a pod, under *policy* (whenScaled,
    whenDeleted) and whether the pod is *scaled_down*.

    ============================  =============  ==================
    whenScaled / whenDeleted      pod in range   pod condemned
    ============================  =============  ==================
    Retain / Retain               none           none
    Retain / Delete               set            set
    Delete / Retain               none           pod
    Delete / Delete               set            pod
    ============================  =============  ==================

    The callers tell *scaled_down* by ``podInOrdinalRange`` (or a condemned pod's step).
    """
    scaled, deleted = policy
    down = scaled_down
    if scaled == "Retain" and deleted == "Delete":
        return True, False
    if scaled == "Delete" and deleted == "Retain":
        return False, down
    if scaled == "Delete" and deleted == "Delete":
        return (not down), down
    return False, False  # Retain/Retain, and unknown values are treated as Retain


def is_claim_owner_up_to_date(sts: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, *,
                           condemned: bool | None = None) -> bool:
    """True if the claim's owner refs already fit the retention policy (``isClaimOwnerUpToDate``).

    Claims in a state the controller does not understand are reported up to
    date so they are left alone: a stale ref (this set's or pod's name, other
    uid), or another controller when none of our refs is there.
    """
    if (has_stale_owner_ref(claim, SET_KIND, sts.name, sts.uid)
            or has_stale_owner_ref(claim, POD_KIND, pod.name, pod.uid)):
        return True
    if has_unexpected_controller(claim, sts, pod):
        # our refs beside another controller must be cleaned up; otherwise leave it be
        return not (has_owner_ref(claim, sts.uid) or has_owner_ref(claim, pod.uid))
    if has_non_controller_owner(claim, sts, pod):
        return False
    policy = get_persistent_volume_claim_retention_policy(sts)
    scaled_down = (not pod_in_ordinal_range(sts, pod)) if condemned is None else condemned
    want_set, want_pod = claim_owner_refs_wanted(policy, scaled_down)
    return has_owner_ref(claim, sts.uid) == want_set and has_owner_ref(claim, pod.uid) == want_pod


def update_claim_owner_ref_for_set_and_pod(sts: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, *,
                     condemned: bool | None = None) -> tuple[OwnerReference, ...]:
    """The claim's owner refs after ``updateClaimOwnerRefForSetAndPod``.

    Every ref to this set's or pod's name is removed; then, unless another
    controller manages the claim, controller refs are added as the policy
    wants (see :func:`claim_owner_refs_wanted`).
    """
    unexpected = has_unexpected_controller(claim, sts, pod)
    refs = remove_refs(claim.owner_references,
                       lambda r: matches_ref(r, SET_KIND, sts.name) or matches_ref(r, POD_KIND, pod.name))
    if unexpected:
        return refs
    policy = get_persistent_volume_claim_retention_policy(sts)
    scaled_down = (not pod_in_ordinal_range(sts, pod)) if condemned is None else condemned
    want_set, want_pod = claim_owner_refs_wanted(policy, scaled_down)
    if want_set:
        refs = add_controller_ref(refs, sts.ref())
    if want_pod and pod.uid:
        refs = add_controller_ref(refs, OwnerReference(kind="Pod", name=pod.name, uid=pod.uid, api_version="v1"))
    return refs


def remove_refs(refs: tuple[OwnerReference, ...], predicate) -> tuple[OwnerReference, ...]:
    """*refs* without those *predicate* holds for (``removeRefs``)."""
    return tuple(r for r in refs if not predicate(r))


def add_controller_ref(refs: tuple[OwnerReference, ...], ref: OwnerReference) -> tuple[OwnerReference, ...]:
    """*refs* with the controller ref *ref* appended, unless one to its uid is there already
    (``addControllerRef``)."""
    if any(r.uid == ref.uid for r in refs):
        return refs
    return (*refs, ref)


def get_pod_revision(pod: Pod) -> str:
    """The pod's ``controller-revision-hash`` label, or ``""`` (``getPodRevision``): read once when
    the pod was built (``Pod.revision``), as Go reads a typed field, not searched again per call."""
    return pod.revision


def min_ready_seconds(sts: StatefulSet, profile) -> int:
    """``spec.minReadySeconds``, or 0 under a profile whose controller did not read it (v1.16)."""
    return sts.spec.min_ready_seconds if profile.min_ready_seconds else 0


def new_versioned_stateful_set_pod(current_set: StatefulSet, update_set: StatefulSet, current: str, update: str,
                                   ordinal: int, profile) -> Pod:
    """The pod for *ordinal*, at the revision it should have (``newVersionedStatefulSetPod``).

    It gets the current revision (built from *current_set*, the set at that revision:
    :func:`apply_revision`) when either the strategy is RollingUpdate without a
    ``rollingUpdate`` block and the ordinal is below start + ``status.currentReplicas``, or
    there is a ``rollingUpdate`` block and the ordinal is below start + partition; otherwise
    the update revision (from *update_set*).  Its phase is ``""``: ``isCreated`` is False
    until the API server has it.
    """
    start = get_start_ordinal(current_set, start_ordinal_supported=profile.start_ordinal)
    ru = current_set.spec.rolling_update
    if ((current_set.spec.update_strategy == "RollingUpdate" and ru is None
         and ordinal < start + current_set.status.current_replicas)
            or (ru is not None and ordinal < start + ru.partition)):
        pod = new_stateful_set_pod(current_set, ordinal, pod_index_label=profile.pod_index_label)
        return set_pod_revision(pod, current)
    pod = new_stateful_set_pod(update_set, ordinal, pod_index_label=profile.pod_index_label)
    return set_pod_revision(pod, update)


def inconsistent_status(sts: StatefulSet, status: StatefulSetStatus, profile) -> bool:
    """True if *status* differs from the stored one in a field that triggers a write (``inconsistentStatus``)."""
    old = sts.status
    return (status.observed_generation > old.observed_generation
            or status.replicas != old.replicas
            or status.current_replicas != old.current_replicas
            or status.ready_replicas != old.ready_replicas
            or status.updated_replicas != old.updated_replicas
            or status.current_revision != old.current_revision
            or (profile.min_ready_seconds and status.available_replicas != old.available_replicas)
            or status.update_revision != old.update_revision
            or (profile.status_conditions and tuple(status.conditions) != tuple(old.conditions)))


def complete_update(sts: StatefulSet, status: StatefulSetStatus, profile,
                    recreate_time: float | None = None) -> StatefulSetStatus:
    """Promote the update revision once every replica is updated and ready (``completeUpdate``,
    ``completeRollingUpdate`` before v1.37).

    Ready, not Available: minReadySeconds is not consulted here.  Up to v1.36
    only RollingUpdate sets are promoted; from v1.37 OnDelete (and Recreate) sets too.
    *recreate_time* is the sync's time when StatefulSetRecreateStrategy is on (None: off): a
    Recreate set that carries a ``Progressing`` condition then gets it False, RecreateCompleted.
    """
    if sts.spec.update_strategy != "RollingUpdate" and not profile.ondelete_promotes:
        return status
    n = sts.spec.replicas
    if status.updated_replicas == n and status.ready_replicas == n and status.replicas == n:
        if status.current_replicas != status.updated_replicas or status.current_revision != status.update_revision:
            status = replace(status, current_replicas=status.updated_replicas,
                             current_revision=status.update_revision)
        if (get_stateful_set_condition(status, "Progressing") is not None
                and sts.spec.update_strategy == "Recreate" and recreate_time is not None):
            status = set_progressing_condition(status, "False", RECREATE_COMPLETED_REASON,
                                               "All pods recreated successfully", recreate_time)
    return status


def get_stateful_set_max_unavailable(max_unavailable: int | str | None, replica_count: int) -> int:
    """maxUnavailable as a pod count, at least 1 (``getStatefulSetMaxUnavailable``).

    An integer is taken as is; a percentage is rounded down against
    *replica_count* (``GetScaledValueFromIntOrPercent`` with roundUp false).
    """
    if max_unavailable is None:
        return 1
    if isinstance(max_unavailable, str):
        n = math.floor(int(max_unavailable.rstrip("%")) * replica_count / 100)
    else:
        n = int(max_unavailable)
    return max(n, 1)


# ------------------------------------------------------------------ revisions


def get_patch(template: Mapping, null_creation_timestamp: bool = False) -> str:
    """The revision's data: the patch that replaces ``spec.template`` (``getPatch``).

    The template is the stored (defaulted) one.  Since v1.34 a zero
    ``metadata.creationTimestamp`` is omitted; up to v1.33 Go wrote it as null
    (*null_creation_timestamp*, the v1.16 profile).
    """
    tpl = dict(template)
    tpl["$patch"] = "replace"
    if null_creation_timestamp:
        meta = tpl.get("metadata")
        tpl["metadata"] = {**(meta if isinstance(meta, dict) else {}), "creationTimestamp": None}
    return go_json({"spec": {"template": tpl}})


def new_revision(sts: StatefulSet, number: int, collision_count: int | None,
                 null_creation_timestamp: bool = False) -> ControllerRevision:
    """The candidate revision for the set's live template (``newRevision``; a *collision_count* of
    None hashes the data alone)."""
    data = get_patch(sts.spec.template, null_creation_timestamp)
    h = revision_hash(data, collision_count)
    labels = dict((sts.spec.template.get("metadata") or {}).get("labels") or {})
    labels[HASH_LABEL] = h
    return ControllerRevision(name=revision_name(sts.name, h), namespace=sts.namespace,
                              labels=labels, annotations=dict(sts.annotations),
                              owner_references=(sts.ref(),), data=data, revision=number)


def apply_revision(sts: StatefulSet, revision: ControllerRevision) -> StatefulSet:
    """The set with its spec restored from *revision* (``ApplyRevision``): the revision's data is a
    patch that replaces ``spec.template`` (``$patch: replace``, the directive itself dropped), so
    only the template changes; read into Go's types, a null ``creationTimestamp`` is the zero time."""
    template = {k: v for k, v in json.loads(revision.data)["spec"]["template"].items() if k != "$patch"}
    meta = template.get("metadata")
    if isinstance(meta, dict) and "creationTimestamp" in meta and meta["creationTimestamp"] is None:
        # Go reads a null time as the zero time, which it does not write again (since v1.34)
        template["metadata"] = {k: v for k, v in meta.items() if k != "creationTimestamp"}
    return replace(sts, spec=StatefulSetSpec.from_manifest({**sts.spec.raw, "template": template}))


def next_revision(revisions: Sequence[ControllerRevision]) -> int:
    """One more than the highest revision number, or 1 (``nextRevision``)."""
    return revisions[-1].revision + 1 if revisions else 1


RECREATE_IN_PROGRESS_REASON = "RecreateInProgress"
"""The ``Progressing`` condition's reason while a Recreate update deletes old pods or waits for
them, then for the new ones (``RecreateInProgressReason``)."""
RECREATE_COMPLETED_REASON = "RecreateCompleted"
"""Its reason once every replica is at the update revision and ready (``RecreateCompletedReason``)."""


def set_progressing_condition(status: StatefulSetStatus, condition_status: str, reason: str, message: str,
                              now: float) -> StatefulSetStatus:
    """*status* with its ``Progressing`` condition set (``setProgressingCondition``)."""
    return set_stateful_set_condition(status, new_stateful_set_condition(
        "Progressing", condition_status, reason, message, now))


def new_stateful_set_condition(cond_type: str, status: str, reason: str, message: str, now: float) -> dict:
    """A condition dated *now* (``newStatefulSetCondition``; upstream reads the wall clock, the kit
    its simulated one)."""
    return {"type": cond_type, "status": status, "lastTransitionTime": now, "reason": reason,
            "message": message}


def get_stateful_set_condition(status: StatefulSetStatus, cond_type: str) -> Mapping | None:
    """The condition of *cond_type* in *status*, or None (``getStatefulSetCondition``)."""
    return next((c for c in status.conditions if c.get("type") == cond_type), None)


def set_stateful_set_condition(status: StatefulSetStatus, condition: Mapping) -> StatefulSetStatus:
    """*status* with *condition* added, or put in place of the one of its type
    (``setStatefulSetCondition``): unchanged if status, reason and message are the same; the
    old lastTransitionTime kept if only reason or message changed."""
    current = get_stateful_set_condition(status, condition["type"])
    if current is None:
        return replace(status, conditions=(*status.conditions, dict(condition)))
    if all(current.get(k) == condition[k] for k in ("status", "reason", "message")):
        return status
    new = dict(current, status=condition["status"], reason=condition["reason"], message=condition["message"],
               lastTransitionTime=(current.get("lastTransitionTime") if current.get("status") == condition["status"]
                                   else condition["lastTransitionTime"]))
    return replace(status, conditions=tuple(new if c is current else c for c in status.conditions))
