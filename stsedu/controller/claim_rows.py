"""The rows of one pod's claim work, read from the claims as the sync's cache holds them.

:func:`claim_decisions` describes what ``createPersistentVolumeClaims`` does for a pod (a create
for each missing claim, a failing row for a claim being deleted), :func:`claim_owner_decisions`
what ``UpdatePodClaimForRetentionPolicy`` does (the owner-ref fixes and the ConflictingController
warnings).  The steps hand these rows to the pod control
(:class:`~stsedu.controller.stateful_pod_control.StatefulPodControl`), which sends them;
:func:`claim_event_pod` names the pod a claim create's event speaks of.  :class:`ListedClaims` reads
claims from a claim lister (``GetClaim``) for the claim checks.
"""

from __future__ import annotations

from typing import Mapping, Protocol

from . import stateful_set_utils as P
from .decisions import Decision, decision
from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, parse_pod_name
from ..api.profiles import Profile


class ClaimGetter(Protocol):
    """What the claim checks read a claim through: an object manager's ``GetClaim``."""

    def get_claim(self, name: str) -> PersistentVolumeClaim | None: ...


class ListedClaims:
    """``GetClaim`` over a claim lister (*claims*, by name): the recording pod control's reads, and the
    claim checks of ``UpdateStatefulPod``'s retry over the caught-up cache."""

    def __init__(self, claims: Mapping[str, PersistentVolumeClaim]) -> None:
        self.claims = claims

    def get_claim(self, name: str) -> PersistentVolumeClaim | None:
        """``GetClaim``: the claim of that name as the lister holds it."""
        return self.claims.get(name)


def claim_decisions(sts: StatefulSet, pod: Pod, claims: Mapping[str, PersistentVolumeClaim],
                    rule_key: str, slot: int, step: str) -> list[Decision]:
    """Creates for missing claims of *pod*, then a failing row (with its error) for each claim
    being deleted.

    Like ``createPersistentVolumeClaims``: every missing claim is created,
    and a claim that is being deleted makes the whole call fail afterwards.
    """
    out, deleting = [], []
    for name, template in P.get_persistent_volume_claims(sts, pod):
        claim = claims.get(name)
        if claim is None:
            out.append(decision("create-pvc", pod.name, "missing",
                                f"Create claim {name} for {pod.name} before the pod.",
                                rule_key, target=name, step=step, slot=slot,
                                payload=P.new_claim(sts, template, name)))
        elif claim.deleting:
            deleting.append(decision("wait", pod.name, "claim-deleting",
                                     f"Claim {name} is being deleted; {pod.name} cannot use it until it is gone.",
                                     "claim-deleting", target=name, step=step, slot=slot,
                                     error=f"pvc {name} is being deleted", payload=rule_key))
    return out + deleting


def claim_owner_decisions(sts: StatefulSet, pod: Pod, claims: Mapping[str, PersistentVolumeClaim],
                          condemned: bool, rule_key: str, slot: int, step: str,
                          profile: Profile) -> list[Decision]:
    """Owner-ref fixes for the existing claims of *pod* (``UpdatePodClaimForRetentionPolicy``)."""
    if not profile.pvc_retention:
        return []
    out = []
    for name, _ in P.get_persistent_volume_claims(sts, pod):
        claim = claims.get(name)
        if claim is None:
            continue
        conflicting = P.has_unexpected_controller(claim, sts, pod)
        if conflicting:
            # UpdatePodClaimForRetentionPolicy warns about every such claim it looks at
            out.append(decision("warn", pod.name, "conflicting-controller",
                                f"Claim {name} has another managing controller: the retention policy is "
                                "ignored for it (Warning ConflictingController).",
                                rule_key, target=name, step=step, slot=slot))
        if P.is_claim_owner_up_to_date(sts, pod, claim, condemned=condemned):
            continue
        refs = P.update_claim_owner_ref_for_set_and_pod(sts, pod, claim, condemned=condemned)
        owners = ", ".join(f"{r.kind} {r.name}" for r in refs) or "no owner"
        if conflicting:
            out.append(decision("update-pvc", pod.name, "conflicting-controller",
                                f"Claim {name} has another controller; remove this set's and {pod.name}'s refs "
                                f"and ignore the retention policy for it (owners left: {owners}).",
                                rule_key, target=name, step=step, slot=slot, payload=refs))
            continue
        out.append(decision("update-pvc", pod.name, "retention-policy",
                            f"Set the owner of claim {name} to {owners} (whenScaled={sts.spec.when_scaled}, "
                            f"whenDeleted={sts.spec.when_deleted}).",
                            rule_key, target=name, step=step, slot=slot, payload=refs))
    return out


def claim_path_verb(rule: str | None) -> str | None:
    """The pod event a failed ``createPersistentVolumeClaims`` leads to, by the function that called
    it, which the claim create's rule names: ``CreateStatefulPod`` (create), ``UpdateStatefulPod``
    (update; today through ``processReplica``); none for a Pending pod's
    ``createMissingPersistentVolumeClaims``."""
    if not rule:
        return None
    if rule.startswith("CreateStatefulPod"):
        return "create"
    return "update" if "UpdateStatefulPod" in rule else None


def claim_event_pod(d: Decision) -> str:
    """The pod a claim create's event names: ``UpdateStatefulPod`` has renamed its pod
    (``updateIdentity``: web-00 is web-0) before it creates the claims."""
    return canonical_pod_name(d.pod) if claim_path_verb(d.rule) == "update" else d.pod


def canonical_pod_name(pod: str) -> str:
    """The name ``getPodName`` gives the pod's ordinal (``web-00`` -> ``web-0``)."""
    parent, ordinal = parse_pod_name(pod)
    return f"{parent}-{ordinal}" if ordinal >= 0 else pod
