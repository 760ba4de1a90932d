"""The pod control that writes nothing: it records each request as a decision.

Upstream's steps call the ``StatefulPodControl`` interface (``CreateStatefulPod``,
``UpdateStatefulPod``, ``DeleteStatefulPod``, ``UpdatePodClaimForRetentionPolicy``,
``createMissingPersistentVolumeClaims``); its tests pass a fake one that only counts the
requests.  The kit's steps call the same interface (:func:`~stsedu.controller.stateful_set_control.process_replica`,
``fixPodClaim``, :func:`~stsedu.controller.stateful_set_control.process_condemned` and the
rolling updates), each request described by its decision rows.  A sync passes the real one,
:class:`~stsedu.controller.stateful_pod_control.StatefulPodControl`, which sends each request when
the step makes it; ``Cluster.preview()`` passes a :class:`RecordingPodControl`: each request becomes
decision rows in the sync's log, in the order the steps make it, and succeeds.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..api.objects import PersistentVolumeClaim
from .claim_rows import ListedClaims
from .decisions import Decision


class RecordingPodControl:
    """A pod control whose requests are appended to *log* (the sync's decision rows) and succeed;
    its reads (*om*) answer from the claims :meth:`list_claims` was given."""

    def __init__(self, log: list[Decision]) -> None:
        self.log = log
        self.om = ListedClaims({})

    def list_claims(self, claims: Mapping[str, PersistentVolumeClaim]) -> None:
        """Take the claim lister as the sync began, for the claim checks' ``GetClaim``."""
        self.om = ListedClaims(claims)

    def create_stateful_pod(self, claims: list[Decision], create: Decision, owners: list[Decision]) -> str | None:
        """Record ``CreateStatefulPod``: the claim creates of ``createPersistentVolumeClaims``
        (*claims*), the pod create, then ``UpdatePodClaimForRetentionPolicy``'s rows (*owners*).
        A claim being deleted (a row with an error) fails ``createPersistentVolumeClaims``: then
        no pod is created, and that error is returned; else None."""
        self.log.extend(claims)
        error = _claim_error(claims)
        if error is not None:
            return error
        self.log.append(create)
        self.log.extend(owners)
        return None

    def update_stateful_pod(self, claims: list[Decision], owners: list[Decision], update: Decision) -> str | None:
        """Record ``UpdateStatefulPod``: the claim creates of ``createPersistentVolumeClaims``
        (*claims*, when the pod's storage did not match), the claim owner fixes of
        ``UpdatePodClaimForRetentionPolicy`` (*owners*), then the pod update."""
        self.log.extend(claims)
        error = _claim_error(claims)
        if error is not None:
            return error
        self.log.extend(owners)
        self.log.append(update)
        return None

    def create_missing_persistent_volume_claims(self, claims: list[Decision], owners: list[Decision]
                                                ) -> str | None:
        """Record ``createMissingPersistentVolumeClaims`` (a Pending pod): its claim creates, then
        its claim owner fixes; a claim being deleted fails it before the fixes (its error is
        returned)."""
        self.log.extend(claims)
        error = _claim_error(claims)
        if error is not None:
            return error
        self.log.extend(owners)
        return None

    def update_pod_claim_for_retention_policy(self, owners: list[Decision]) -> None:
        """Record ``UpdatePodClaimForRetentionPolicy`` (``fixPodClaim``): the claim owner fixes
        and the ConflictingController warnings of one pod's claims."""
        self.log.extend(owners)

    def delete_stateful_pod(self, d: Decision) -> None:
        """Record the request of ``DeleteStatefulPod`` that *d* describes (its pod is ``d.payload``)."""
        self.log.append(d)

    def request(self, d: Decision) -> str | None:
        """Record one request of the sync's own (a revision create, renumbering or delete); a row
        that knows its failure already (a Recreate set with its gate off) returns it."""
        self.log.append(d)
        return d.error

    def update_stateful_set_status(self, d: Decision, sts, status) -> None:
        """Record the status write."""
        self.log.append(d)


def _claim_error(claims: list[Decision]) -> str | None:
    """The error of ``createPersistentVolumeClaims`` the rows *claims* already know of (a claim
    being deleted), or None."""
    return next((d.error for d in claims if d.error), None)
