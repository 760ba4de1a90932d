"""The pod control (≈ upstream ``stateful_pod_control.go``): the requests a sync makes.

:class:`ObjectManager` is the interface the sync's requests go through (create, update and
delete a stateful pod, the claim work, revisions, the status write); :class:`ClusterObjects`
is the real one of a simulated cluster: each write goes to the store, with the events
upstream's ``StatefulPodControl`` records (``SuccessfulCreate``, ``FailedDelete`` ...), and
a stale write is refused 409 as a real API server refuses it.
:func:`claims_match_retention_policy` and :func:`pod_claim_is_stale` are upstream's
``ClaimsMatchRetentionPolicy`` and ``PodClaimIsStale``: each reads the claims through ``get_claim``
(``GetClaim``: the claim lister as the sync began, :meth:`ClusterObjects.list_claims`).
:class:`StatefulPodControl` is the pod control the sync's steps call (``CreateStatefulPod``,
``UpdateStatefulPod``, ``DeleteStatefulPod`` ...): each request goes out through an
:class:`ObjectManager` when the step makes it (its methods call the object manager's
``create_pod``, ``get_pod``, ``update_pod``, ``delete_pod``, ``create_claim``, ``update_claim`` as
upstream's call ``CreatePod`` ...), and the step stops where upstream's stops when one fails.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Mapping, Protocol

from . import stateful_set_utils as P
from .claim_rows import (ClaimGetter, ListedClaims, canonical_pod_name, claim_event_pod, claim_owner_decisions,
                         claim_path_verb)
from .decisions import RULES, Decision, aggregate, failed, refused
from ..api.errors import APIError, is_already_exists, is_conflict, is_invalid, is_not_found
from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus
from ..api.profiles import Profile

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes
    from .stateful_set_status_updater import RealStatefulSetStatusUpdater


DEFAULT_BACKOFF_STEPS = 4
"""Attempts of ``retry.RetryOnConflict(retry.DefaultBackoff, ...)`` (pod and revision updates)."""


class ObjectManager(Protocol):
    """The writes a sync may make (``StatefulPodControlObjectManager`` + history + status).

    Each raises :class:`~stsedu.api.errors.APIError` when the request fails.
    """

    sts: StatefulSet
    profile: Profile
    def create_pod(self, d: Decision) -> None: ...
    def get_pod(self, name: str) -> Pod | None: ...
    def update_pod(self, d: Decision) -> None: ...
    def delete_pod(self, d: Decision) -> None: ...
    def record_pod_event(self, verb: str, pod: str, error: str | None) -> None: ...
    def record_claim_event(self, ok: bool, verb: str, claim: str, pod: str | None, err: str | None = None) -> None: ...
    def create_claim(self, d: Decision) -> None: ...
    def get_claim(self, name: str) -> PersistentVolumeClaim | None: ...
    def list_claims(self, claims: Mapping[str, PersistentVolumeClaim]) -> None: ...
    def warn(self, d: Decision) -> None: ...
    def update_claim(self, d: Decision) -> None: ...
    def claim_up_to_date(self, d: Decision, pod_name: str, pod: Pod | None = None) -> bool: ...
    def drop_listed_copy(self, name: str) -> None: ...
    def claim_lister(self) -> Mapping[str, PersistentVolumeClaim]: ...
    def claim_owner_fix(self, d: Decision, pod_name: str, pod: Pod | None = None) -> Decision | None: ...
    def recreating_failed_pod(self, pod: str) -> None: ...

    def create_revision(self, d: Decision) -> None: ...
    def probe_revision(self, d: Decision) -> None: ...
    def update_revision(self, d: Decision) -> None: ...
    def delete_revision(self, d: Decision) -> None: ...
    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int: ...


VERBS = {
    "create": "create_pod", "delete": "delete_pod", "update": "update_pod",
    "create-pvc": "create_claim", "update-pvc": "update_claim",
    "create-revision": "create_revision", "update-revision": "update_revision",
    "delete-revision": "delete_revision", "reuse-revision": "probe_revision",
    "warn": "warn",
}


def claims_match_retention_policy(sts: StatefulSet, pod: Pod, om: ClaimGetter, condemned: bool,
                                  profile: Profile) -> bool:
    """True if every existing claim's refs fit the policy (``ClaimsMatchRetentionPolicy``), each claim
    read through *om*'s ``get_claim`` (``GetClaim``)."""
    if not profile.pvc_retention or not sts.spec.volume_claim_templates:
        return True
    ordinal = P.get_ordinal(pod)
    for template in sts.spec.volume_claim_templates:
        claim = om.get_claim(P.get_persistent_volume_claim_name(template.get("metadata", {}).get("name", ""),
                                                                sts.name, ordinal))
        if claim is not None and not P.is_claim_owner_up_to_date(sts, pod, claim, condemned=condemned):
            return False
    return True


def pod_claim_is_stale(sts: StatefulSet, pod: Pod, om: ClaimGetter) -> bool:
    """True if a claim of the pod still belongs to an earlier pod of that name (``PodClaimIsStale``,
    called by ``processReplica`` before it creates the pod): each claim read through *om*'s
    ``get_claim`` (``GetClaim``: the claim lister as the sync began).

    Only under whenScaled=Delete (with Retain claims are meant to be reused).
    A missing claim is not stale.  While stale, the pod is not created: the
    garbage collector is about to delete the claim.
    """
    when_scaled, _ = P.get_persistent_volume_claim_retention_policy(sts)
    if when_scaled == "Retain":
        return False
    for name, _ in P.get_persistent_volume_claims(sts, pod):
        claim = om.get_claim(name)
        if claim is not None and P.has_stale_owner_ref(claim, P.POD_KIND, pod.name, pod.uid):
            return True
    return False


def unnamed_update_error(kind: str) -> APIError:
    """What client-go's REST client answers, without sending anything, to a request for an object
    without a name (``Request.Name``): ``resource name may not be empty``."""
    return APIError("update", kind, "", reason="", message="resource name may not be empty")


class ClusterObjects:
    """The :class:`~stsedu.controller.stateful_pod_control.ObjectManager` that writes through the cluster's
    :class:`~stsedu.sim.writes.Writes`."""

    def __init__(self, writes: "Writes", sts: StatefulSet, cause: str,
                 status_updater: "RealStatefulSetStatusUpdater") -> None:
        self.c = writes
        self.sts = sts
        self.cause = cause
        self.status_updater = status_updater
        self.profile = writes.profile
        self.cached_rv: dict[tuple[str, str], int] = {}
        """The resourceVersion the informer cache still holds for each object this sync wrote:
        the one from before its first write (the watch events of the sync's own writes have not
        arrived), until a Conflict brings the caches up to date."""
        self.listed_rv: dict[str, int] = {}  # pods as listed (processReplica's copy) until GetPod reads them again
        self.listed_claims: Mapping[str, PersistentVolumeClaim] = {}  # the claim lister as the sync began

    title_case_messages = True
    """``recordPodEvent``/``recordClaimEvent`` title-case the verb in the message too; v1.16 wrote it
    as given ("create Pod web-0 ...": ``Profile.event_verbs_title_case``)."""

    def _verb(self, verb: str) -> str:
        return verb.title() if self.title_case_messages else verb

    def _check(self, verb: str, kind: str, name: str) -> None:
        try:
            self.c.check_fault(verb, kind, name)
        except APIError as e:
            self._caught_up(e)
            raise

    # optimistic concurrency: what the informer cache holds, as the controller sends it
    def _caught_up(self, e: APIError) -> None:
        """A Conflict: by the retry's first backoff the watch events of this sync's own writes
        have arrived, so the caches hold the current objects again."""
        if is_conflict(e):
            self.cached_rv.clear()

    stale_cache = True
    """The informer caches lag the sync's own writes until a Conflict, and the API server checks
    resourceVersions (a real cluster).  ``tests/upstream_oracle.py`` turns it off to compare with
    the fake clientset run without resource-version checks (``conflicts=False``)."""

    def _wrote(self, kind: str, old) -> None:
        """Note that this sync wrote *old* (as the cache holds it, until a Conflict)."""
        if self.stale_cache:
            self.cached_rv.setdefault((kind, old.name), old.resource_version)
            if kind == "Pod":
                self.listed_rv.setdefault(old.name, old.resource_version)

    def _update(self, kind: str, stored, new) -> None:
        """Update *stored* to *new*, sent with the resourceVersion the informer cache holds: the API
        server refuses a stale one with 409 Conflict."""
        sent = replace(new, resource_version=self.cached_rv.get((kind, stored.name), stored.resource_version))
        try:
            self.c.store.update(kind, sent)
        except APIError as e:
            self._caught_up(e)
            raise
        self._wrote(kind, stored)

    _creates = 0

    def _throttle(self, name: str) -> None:
        """The kit's stand-in for the API server's rate limits and a pod quota: with
        ``stsedu.limits.MAX_PODS`` pods in the cluster a create is ``Forbidden: exceeded
        quota``; past ``MAX_PODS_PER_SYNC`` creates in one sync it is ``TooManyRequests``
        (see :func:`~stsedu.limits.over_create_budget`)."""
        from .. import limits
        if self.c.store.count("Pod") >= limits.MAX_PODS:
            raise APIError("create", "Pod", name, reason="Forbidden", message=(
                f'pods "{name}" is forbidden: exceeded quota: stsedu, requested: pods=1, used:'
                f" pods={self.c.store.count('Pod')}, limited: pods={limits.MAX_PODS}"
                f" ({limits.hint('MAX_PODS')})"))
        self._creates += 1
        if self._creates > limits.MAX_PODS_PER_SYNC:
            raise APIError("create", "Pod", name, reason="TooManyRequests", message=(
                f"TooManyRequests: stsedu creates at most {limits.MAX_PODS_PER_SYNC} pods in one sync"
                f" ({limits.hint('MAX_PODS_PER_SYNC')}); the set is synced again to go on"))

    def _event(self, ok: bool, verb: str, what: str, err: str | None = None) -> None:
        if ok:
            self.c.trace.add_event("Normal", f"Successful{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} {what} in StatefulSet {self.sts.name} successful")
        else:
            self.c.trace.add_event("Warning", f"Failed{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} {what} in StatefulSet {self.sts.name} failed error: {err}")

    def create_pod(self, d: Decision) -> None:
        """``CreatePod``: the pod create of ``CreateStatefulPod``; its event comes after the claims'
        owner refs are set (``StatefulPodControl.create_stateful_pod``)."""
        pod: Pod = d.payload
        self._throttle(pod.name)
        self._check("create", "Pod", pod.name)
        self.c.create_pod(pod, f"{self.cause}: create ({d.reason})")

    delete_ignores_not_found = True
    """``Profile.delete_ignores_not_found`` (v1.16's ``DeleteStatefulPod`` returned NotFound too)."""

    recreating_failed_event = False
    """v1.16's ``updateStatefulSet`` records a Warning ``RecreatingFailedPod`` before it deletes a
    Failed pod (``Profile.event_verbs_title_case`` off marks that release)."""

    def delete_pod(self, d: Decision) -> None:
        """``DeletePod``: the delete of ``DeleteStatefulPod``, which records its event
        (``StatefulPodControl.delete_stateful_pod``)."""
        pod: Pod = d.payload
        try:
            self._check("delete", "Pod", pod.name)
            self.c.delete_pod(pod.namespace, pod.name, f"{self.cause}: delete ({d.reason})")
        except APIError as e:
            if not is_not_found(e) or not self.delete_ignores_not_found:
                raise  # a pod already gone counts as deleted (v1.16 returned the NotFound)

    def recreating_failed_pod(self, pod: str) -> None:
        """v1.16's Warning before it deletes a Failed pod (``recreating_failed_event``)."""
        if self.recreating_failed_event:
            self.c.trace.add_event("Warning", "RecreatingFailedPod", f"statefulset/{self.sts.name}",
                                   f"StatefulSet {self.sts.namespace}/{self.sts.name} is recreating "
                                   f"failed Pod {pod}")

    def update_pod(self, d: Decision) -> None:
        """``UpdatePod``, one request of ``UpdateStatefulPod``: write the restored labels/volumes (sent even if
        nothing changed).  Its event comes once the retries are over (:meth:`record_pod_event`)."""
        pod: Pod = d.payload
        self._check("update", "Pod", pod.name)
        stored = self.c.store.get("Pod", pod.namespace, pod.name)
        if stored is not None and not pod.uid:
            # the pod this sync just created (Parallel): the API server keeps its uid,
            # status and the defaults it added
            pod = replace(pod, uid=stored.uid, spec=stored.spec)
        elif stored is not None and stored.uid == pod.uid:
            cached = self.listed_rv.get(pod.name, self.cached_rv.get(("Pod", pod.name), stored.resource_version))
            if cached != stored.resource_version:  # sent from a stale copy
                self._caught_up(e := APIError("update", "Pod", pod.name, reason="Conflict"))
                raise e
        if stored is not None and stored.uid == pod.uid and (
                dict(stored.labels) == dict(pod.labels) and dict(stored.spec) == dict(pod.spec)):
            return  # the API server keeps the object (and its resourceVersion) as it was
        try:
            self.c.update_pod_from(pod, f"{self.cause}: update ({d.reason})")
        except APIError as e:
            self._caught_up(e)
            raise
        if stored is not None:
            self._wrote("Pod", stored)

    def drop_listed_copy(self, name: str) -> None:
        """After a Conflict ``UpdateStatefulPod``'s closure reads its pod again (``GetPod``): from then
        on its copy is the caught-up cache's, no longer the one the sync listed."""
        self.listed_rv.pop(name, None)

    def claim_lister(self) -> Mapping[str, PersistentVolumeClaim]:
        """The claims of the set's namespace, by name, as the (caught-up) cache holds them."""
        return self.c.store.view("PersistentVolumeClaim", self.sts.namespace)

    def get_pod(self, name: str) -> Pod | None:
        """``GetPod``: the pod of that name in the set's namespace, as the (caught-up) cache holds it."""
        return self.c.store.get("Pod", self.sts.namespace, name)

    def list_claims(self, claims: Mapping[str, PersistentVolumeClaim]) -> None:
        """Take the claim lister as the sync began (the snapshot's claims), for :meth:`get_claim`."""
        self.listed_claims = claims

    def get_claim(self, name: str) -> PersistentVolumeClaim | None:
        """``GetClaim``: the claim of that name as the claim lister held it when the sync began (the
        snapshot's; the kit's steps read the claims as they were then)."""
        return self.listed_claims.get(name)

    def _stored_claim(self, name: str) -> PersistentVolumeClaim | None:
        """The claim as the API server holds it: what ``UpdateClaim`` updates, a retry reads again."""
        return self.c.store.get("PersistentVolumeClaim", self.sts.namespace, name)

    def record_pod_event(self, verb: str, pod: str, error: str | None) -> None:
        """``recordPodEvent``."""
        self._event(error is None, verb, f"Pod {pod}", error)

    def warn(self, d: Decision) -> None:
        """A Warning, no request: ``updateStatefulSet``'s UnknownStrategy (a Recreate set, gate off), or
        ``UpdatePodClaimForRetentionPolicy``'s ConflictingController (its spelling "manging" included)."""
        if d.reason == "unknown-strategy":
            return self.c.trace.add_event("Warning", "UnknownStrategy", f"statefulset/{self.sts.name}", d.payload)
        self.c.trace.add_event("Warning", "ConflictingController", f"statefulset/{self.sts.name}",
                               f"PersistentVolumeClaim {d.target} has a conflicting OwnerReference that acts "
                               "as a manging controller, the retention policy is ignored for this claim")

    def record_claim_event(self, ok: bool, verb: str, claim: str, pod: str | None, err: str | None = None) -> None:
        """``recordClaimEvent``."""
        if ok:
            self.c.trace.add_event("Normal", f"Successful{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} Claim {claim} Pod {pod} in StatefulSet {self.sts.name} success")
        else:
            self.c.trace.add_event("Warning", f"Failed{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} Claim {claim} for Pod {pod} in StatefulSet {self.sts.name} "
                                   f"failed error: {err}")

    def create_claim(self, d: Decision) -> None:
        """``CreateClaim``, for ``createPersistentVolumeClaims``, which records its event."""
        claim = d.payload
        self._check("create", "PersistentVolumeClaim", claim.name)
        self.c.store.create("PersistentVolumeClaim", claim)

    def update_claim(self, d: Decision) -> None:
        """``UpdateClaim``: set a claim's owner refs (``UpdatePodClaimForRetentionPolicy``; no event on success: the
        callers record the pod's FailedUpdate on an error, fixPodClaim records nothing)."""
        self._check("update", "PersistentVolumeClaim", d.target)
        claim = self._stored_claim(d.target)
        if claim is None:
            raise APIError("update", "PersistentVolumeClaim", d.target, reason="NotFound")
        # a pod ref needs the pod's uid, known only once the pod exists
        fixed = []
        for r in d.payload:
            if r.kind == "Pod" and not r.uid:
                pod = self.get_pod(r.name)
                if pod is None:
                    continue
                r = replace(r, uid=pod.uid)
            fixed.append(r)
        self._update("PersistentVolumeClaim", claim, replace(claim, owner_references=tuple(fixed)))

    def claim_up_to_date(self, d: Decision, pod_name: str, pod: Pod | None = None) -> bool:
        """What ``UpdateStatefulPod``'s retry finds for the claim work *d* in the (caught-up) cache: a
        claim to create is there (``createPersistentVolumeClaims`` skips it); a claim fix's owner refs
        already fit the policy (``isClaimOwnerUpToDate``, for the pod of that name or *pod*, the
        closure's own copy when GetPod did not replace it), or it is gone.  A cache that never catches
        up (``stale_cache`` off) still holds the claims as they were: all sent again."""
        if not self.stale_cache:
            return False
        claim = self._stored_claim(d.target)
        if d.action == "create-pvc":
            return claim is not None
        if pod is None:
            pod = self.get_pod(pod_name)
        return claim is None or (pod is not None and P.is_claim_owner_up_to_date(self.sts, pod, claim,
                                                                                 condemned=False))

    def claim_owner_fix(self, d: Decision, pod_name: str, pod: Pod | None = None) -> Decision | None:
        """The owner-ref fix ``UpdateStatefulPod``'s retry makes for the claim that the create *d* of its
        first try made: the caught-up cache holds that claim now, and ``UpdatePodClaimForRetentionPolicy``
        updates it if its refs do not fit the policy (``isClaimOwnerUpToDate``), for the pod of that
        name (or *pod*: one whose create failed, or the retry's own copy of a renamed pod): the row
        :func:`~.claim_rows.claim_owner_decisions` makes for that claim.  None when there is nothing to
        fix (or a cache that never catches up: ``stale_cache`` off)."""
        if not self.stale_cache:
            return None
        claim = self._stored_claim(d.target)
        if pod is None:
            pod = self.get_pod(pod_name)
        if claim is None or pod is None:
            return None
        # the first try's owner rows for that one claim (a claim just created has no other controller
        # to warn about: only its fix is taken)
        return next((r for r in claim_owner_decisions(self.sts, pod, {claim.name: claim}, False, "claim-owner",
                                                      d.slot, d.step, self.c.profile) if r.action == "update-pvc"), None)

    def create_revision(self, d: Decision) -> None:
        rev = d.payload
        self._check("create", "ControllerRevision", rev.name)
        self.c.store.create("ControllerRevision", replace(rev, seq=self.c.next_seq()))
        self.c.trace.add_event("Normal", "RevisionCreated", f"controllerrevision/{rev.name}",
                               f"created revision {rev.name} (number {rev.revision})")

    def probe_revision(self, d: Decision) -> None:
        """The create ``CreateControllerRevision`` sends for a name that is taken: the API server
        answers AlreadyExists, which is what the controller expects (it then reads the revision and
        reuses it, or counts a collision).  Only an injected error other than AlreadyExists fails it."""
        try:
            self._check("create", "ControllerRevision", d.target)
        except APIError as e:
            if not is_already_exists(e):
                raise

    def update_revision(self, d: Decision) -> int:
        """``UpdateControllerRevision``: renumber it.  Its ``retry.RetryOnConflict`` closure takes the
        object the typed client returned beside a Conflict as its copy, and client-go returns a new,
        empty object with every error; the lister has no revision named "", so the retry renumbers an
        object without a name, which client-go refuses before sending a request: the renumbering
        fails after one request (docs/upstream-oracle.md, "A revision renumbered from a stale copy")."""
        rev = d.payload
        try:
            self._check("update", "ControllerRevision", rev.name)
            stored = self.c.store.get("ControllerRevision", rev.namespace, rev.name)
            if stored is None:
                raise APIError("update", "ControllerRevision", rev.name, reason="NotFound")
            self._update("ControllerRevision", stored, replace(stored, revision=rev.revision))
        except APIError as e:
            if is_conflict(e):
                raise unnamed_update_error("ControllerRevision") from None  # a new error: it wraps nothing
            raise
        self.c.trace.add_event("Normal", "RevisionReused", f"controllerrevision/{rev.name}",
                               f"reused revision {rev.name}, renumbered {rev.revision}")
        return 0

    def delete_revision(self, d: Decision) -> None:
        rev = d.payload
        self._check("delete", "ControllerRevision", rev.name)
        self.c.store.remove("ControllerRevision", rev.namespace, rev.name)
        self.c.trace.add_event("Normal", "RevisionTruncated", f"controllerrevision/{rev.name}",
                               f"deleted revision {rev.name} (number {rev.revision}): history limit")

    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int:
        """The status updater's ``UpdateStatefulSetStatus``; returns the number of retries."""
        return self.status_updater.update_stateful_set_status(sts, status)

    # claiming
    def _check_unless_not_found(self, verb: str, kind: str, name: str) -> bool:
        """``_check``, but a NotFound answer means "skip it" (False), as for a pod that is gone."""
        try:
            self._check(verb, kind, name)
        except APIError as e:
            if is_not_found(e):
                return False
            raise
        return True

    def adopt(self, d: Decision) -> None:
        """Patch a controller ref to this set onto an orphan (``AdoptPod`` / ``AdoptControllerRevision``).

        A pod that is gone (NotFound) is skipped, as ``ClaimObject`` ignores it; a revision
        that is gone fails the sync (``AdoptControllerRevision`` returns the error).
        """
        if d.pod is None:  # a revision
            self._check("update", "ControllerRevision", d.target)
            rev = self.c.store.get("ControllerRevision", self.sts.namespace, d.target)
            if rev is None:
                raise APIError("update", "ControllerRevision", d.target, reason="NotFound")
            self.c.store.update("ControllerRevision", replace(rev, owner_references=rev.owner_references
                                                              + (self.sts.ref(),)))
            self._wrote("ControllerRevision", rev)
            return
        if not self._check_unless_not_found("update", "Pod", d.pod):
            return
        pod = self.get_pod(d.pod)
        if pod is None:
            return
        self.c.write_pod(replace(pod, owner_references=pod.owner_references + (self.sts.ref(),)),
                          f"{self.cause}: adopt")
        self._wrote("Pod", pod)

    def release(self, d: Decision) -> None:
        """Patch this set's ref off a pod that no longer matches (``ReleasePod``: NotFound and
        Invalid are ignored; the pod is then simply not released)."""
        try:
            if not self._check_unless_not_found("update", "Pod", d.pod):
                return
        except APIError as e:
            if is_invalid(e):
                return
            raise
        pod = self.get_pod(d.pod)
        if pod is None:
            return
        refs = tuple(r for r in pod.owner_references if r.uid != self.sts.uid)
        self.c.write_pod(replace(pod, owner_references=refs), f"{self.cause}: release")
        self._wrote("Pod", pod)


# ------------------------------------------------------------------ the pod control the steps call


def sent(d: Decision, request: Callable[[Decision], object]) -> Decision:
    """The row *d* once *request* (one call of the object manager's, with *d*) has been sent:
    carried out (with the retries *request* reports, if any), or refused with the API server's
    answer."""
    try:
        retries = request(d)
    except APIError as e:
        return refused(d, e)
    return replace(d, applied=True, retries=retries or 0)


def carry_out(d: Decision, om: ObjectManager) -> Decision:
    """Send the request *d* describes through *om*, by the method its action names (:func:`sent`).
    A row that already knows its failure (a claim being deleted) is not sent; waits and notes pass
    as they are; a Warning is recorded, no request."""
    if d.error:
        return replace(d, applied=False)
    verb = VERBS.get(d.action)
    if verb is None:
        return d
    if verb == "warn":
        om.warn(d)
        return d
    if d.action == "create-revision" and d.payload is None:  # a collision: the create finds the name taken
        verb = "probe_revision"
    return sent(d, getattr(om, verb))


def first_failure(log: list[Decision], default: str | None = None) -> str | None:
    """The sync's error: the first row of *log* that was not carried out has it, else *default*."""
    return next((d.error for d in log if d.applied is False), default)


def claim_update_error(d: Decision) -> str:
    """How ``UpdatePodClaimForRetentionPolicy`` words a failed claim update."""
    return f"could not update claim {d.target} for delete policy ownerRefs: {d.error}"


class StatefulPodControl:
    """The pod control the steps call (``StatefulPodControl``).

    Each method makes its requests through *om* at once, appends their rows to *log* as carried
    out (applied, or failed with the API server's answer), records upstream's pod events, and
    returns the error upstream's method returns (None when it succeeded).  The steps stop on it as
    upstream's do.  :class:`~stsedu.controller.recording_pod_control.RecordingPodControl` has the
    same methods and writes nothing.
    """

    def __init__(self, om: ObjectManager, log: list[Decision]) -> None:
        self.om = om
        self.log = log

    def list_claims(self, claims: Mapping[str, PersistentVolumeClaim]) -> None:
        """Hand the object manager the claim lister as the sync began (its ``get_claim`` reads it)."""
        self.om.list_claims(claims)

    def request(self, d: Decision) -> str | None:
        """One request of the sync's own (a revision create, renumbering or delete); its error."""
        x = carry_out(d, self.om)
        self.log.append(x)
        return failed(x)

    def update_stateful_set_status(self, d: Decision, sts: StatefulSet, status: StatefulSetStatus) -> str | None:
        """``updateStatefulSetStatus``: the status write *d* describes, through the status updater."""
        try:
            retries = self.om.write_status(sts, status) or 0
        except APIError as e:
            self.log.append(refused(d, e))
            return str(e)
        self.log.append(replace(d, applied=True, retries=retries))
        return None

    def create_persistent_volume_claims(self, claims: list[Decision], retried: list[Decision] | None = None
                                        ) -> str | None:
        """``createPersistentVolumeClaims``: every claim of *claims* is tried (``CreateClaim``, its
        event by ``recordClaimEvent``, none for AlreadyExists); a row that already knows its error
        (the lister holds the claim, being deleted) is not sent.  The errors, aggregated, make one
        pod event, by the method that called it (the rule of the claim rows).  *retried*, when given,
        takes the rows instead of the log and no pod event is recorded: a retry of
        ``UpdateStatefulPod``'s closure, which records its own."""
        errors = []
        for c in claims:
            if c.error:
                x = replace(c, applied=False)
            else:
                x = sent(c, lambda row: self.om.create_claim(row))
                if not is_already_exists(x.cause):
                    self.om.record_claim_event(x.error is None, "create", c.payload.name, claim_event_pod(c),
                                               x.error)
            (self.log if retried is None else retried).append(x)
            if x.applied is False:
                errors.append(f"failed to create PVC {x.target}: {x.error}" if x.action == "create-pvc" else x.error)
        if not errors:
            return None
        error = aggregate(errors)
        if retried is not None:
            return error
        first = claims[0]
        verb = claim_path_verb(first.rule if first.action == "create-pvc" else
                               RULES.get(first.payload) if isinstance(first.payload, str) else None)
        if verb is not None:
            # UpdateStatefulPod has renamed the pod already (updateIdentity: web-00 is web-0 there)
            self.om.record_pod_event(verb, canonical_pod_name(first.pod) if verb == "update" else first.pod, error)
        return error

    def update_pod_claim_for_retention_policy(self, owners: list[Decision]) -> str | None:
        """``UpdatePodClaimForRetentionPolicy``: each claim's owner refs (and the ConflictingController
        warnings), stopping at the first update that fails; its error as upstream words it (no event
        of its own: ``fixPodClaim`` records none, the other callers a FailedUpdate of the pod)."""
        for o in owners:
            if o.action == "warn":  # the claim has another managing controller
                self.om.warn(o)
                x = o
            else:
                x = sent(o, lambda row: self.om.update_claim(row))
            self.log.append(x)
            if x.applied is False:
                return claim_update_error(x)
        return None

    def create_stateful_pod(self, claims: list[Decision], create: Decision, owners: list[Decision]) -> str | None:
        """``CreateStatefulPod``: the claims, the pod, then the claims' owner refs (set whether the pod
        create worked or not, unless it met AlreadyExists); one pod event at the end."""
        error = self.create_persistent_volume_claims(claims)
        if error is not None:
            return error
        x = sent(create, lambda row: self.om.create_pod(row))
        self.log.append(x)
        if is_already_exists(x.cause):
            return x.error  # returned at once, without an event
        if is_conflict(x.cause):
            # the Conflict brought the caches up to date: the claim lister that
            # UpdatePodClaimForRetentionPolicy reads holds the claims just created
            owners = [g for g in self._owner_work(claims + owners, create.pod, create.payload)
                      if g.action != "create-pvc"]
        error = self.update_pod_claim_for_retention_policy(owners)
        if error is not None:
            self.om.record_pod_event("update", create.pod, error)
            return error
        self.om.record_pod_event("create", create.pod, failed(x))
        return failed(x)

    def create_missing_persistent_volume_claims(self, claims: list[Decision], owners: list[Decision]
                                                ) -> str | None:
        """``createMissingPersistentVolumeClaims`` (a Pending pod): its claims, then their owner refs."""
        error = self.create_persistent_volume_claims(claims)
        if error is not None:
            return error
        error = self.update_pod_claim_for_retention_policy(owners)
        if error is not None:
            self.om.record_pod_event("update", owners[0].pod, error)
        return error

    def delete_stateful_pod(self, d: Decision) -> str | None:
        """``DeleteStatefulPod``: the delete (``DeletePod``) and its event."""
        if d.reason == "failed":
            self.om.recreating_failed_pod(d.pod)
        x = sent(d, lambda row: self.om.delete_pod(row))
        self.log.append(x)
        self.om.record_pod_event("delete", d.pod, failed(x))
        return failed(x)

    def update_stateful_pod(self, claims: list[Decision], owners: list[Decision], update: Decision) -> str | None:
        """``UpdateStatefulPod``: inside ``retry.RetryOnConflict``, the claims (when the pod's storage did
        not match), the claims' owner refs, then the pod update (``UpdatePod``).  The first try's checks
        (``identityMatches`` ...) are ``processReplica``'s rows; a Conflict runs the whole closure again
        (:meth:`_retry_update`, the kit's ``RetryOnConflict``) on the pod ``GetPod`` reads again,
        checked again here."""
        om = self.om

        def get_pod_again(d: Decision) -> Decision | None:
            """The closure's copy after a Conflict: the pod of that name as the caught-up cache holds it
            (``GetPod``; it may be another pod: web-01 renamed web-1 beside web-1).  None if it is
            consistent (``identityMatches``, ``storageMatches``, ``ClaimsMatchRetentionPolicy``), else
            the update of its fix (``updateIdentity``, ``updateStorage``); *d* again for a pod just
            created or gone."""
            pod = d.payload
            om.drop_listed_copy(pod.name)
            stored = om.get_pod(pod.name)
            if stored is None or not pod.uid:
                return d
            identity_ok, storage_ok = P.identity_matches(om.sts, stored), P.storage_matches(om.sts, stored)
            if identity_ok and storage_ok and claims_match_retention_policy(om.sts, stored, ListedClaims(om.claim_lister()),
                                                                            False, om.profile):
                return None
            fixed = replace(stored, labels=P.update_identity(om.sts, stored,
                                                             pod_index_label=om.profile.pod_index_label),
                            spec=P.update_storage(om.sts, stored) if not storage_ok else stored.spec)
            return replace(d, pod=stored.name, payload=fixed)

        def update_pod(d: Decision) -> Decision:
            """The closure's ``UpdatePod``: the row carried out, or refused with the API server's answer."""
            return sent(d, lambda row: om.update_pod(row))

        error = self.create_persistent_volume_claims(claims) if claims else None
        if error is not None:
            return error
        error = self.update_pod_claim_for_retention_policy(owners)
        if error is not None:
            if is_conflict(self.log[-1].cause):  # wrapped with %w
                # the closure returned the (wrapped) Conflict: it runs again, and its retries report it
                return self._retry_update(update, claims + owners, get_pod_again, update_pod, first=self.log.pop())
            om.record_pod_event("update", update.pod, error)
            return error
        return self._retry_update(update, claims + owners, get_pod_again, update_pod)

    def _owner_work(self, group: list[Decision], name: str, pod: Pod | None = None) -> list[Decision]:
        """The claim work of a retry of ``UpdateStatefulPod``'s closure, in the order of the set's claim
        templates: the first try's (its claim creates, its owner fixes and warnings), and the owner
        fixes of the claims its first try created (``ClusterObjects.claim_owner_fix``)."""
        work = list(group)
        work += [fix for g in group if g.action == "create-pvc"
                 if (fix := self.om.claim_owner_fix(g, name, pod)) is not None]
        if len(work) > len(group):  # in the order of the claim templates, as upstream walks them
            named = Pod(name=group[0].pod)  # the pod of the rows' name: its ordinal names the claims
            order = {n: i for i, (n, _) in enumerate(P.get_persistent_volume_claims(self.om.sts, named))}
            work.sort(key=lambda g: order.get(g.target, len(order)))
        return work

    def _retry_update(self, d: Decision, group: list[Decision], get_pod_again, update_pod,
                      first: Decision | None = None) -> str | None:
        """The pod update and, on Conflict, the whole closure again as the informer cache has it
        (``retry.RetryOnConflict(retry.DefaultBackoff, ...)``): the claim work the caught-up cache
        still calls for is sent again (``claim_up_to_date``; with a cache that never catches up,
        every claim again: a create meets AlreadyExists and ends it).  Each failure inside the
        closure records a FailedUpdate, and the outcome one more event (``recordPodEvent``).
        *first* is the claim update of the first try that was answered Conflict before the pod
        update was sent.  *get_pod_again* and *update_pod* are ``UpdateStatefulPod``'s steps: its
        ``GetPod`` and checks after a Conflict, and its ``UpdatePod``."""
        om = self.om
        name = d.payload.name if d.payload is not None else d.pod
        retries = 0
        resent: list[tuple] = []
        attempted = first is None  # the pod update was sent (UpdateStatefulPod's attemptedUpdate)

        def send(g: Decision) -> Decision:
            x = update_pod(g) if g.action == "update" else carry_out(g, om)
            kind = "PersistentVolumeClaim" if g.action in ("create-pvc", "update-pvc") else "Pod"
            if g.action != "warn":
                resent.append((g.action.split("-")[0], kind, g.target if kind != "Pod" else name,
                               x.applied is False))
            return x

        if first is None:
            done = send(d)
        else:
            resent.append(("update", "PersistentVolumeClaim", first.target, True))
            error = claim_update_error(first)
            om.record_pod_event("update", name, error)
            done = replace(d, applied=False, error=error, cause=first.cause)  # %w
        from_claims = first is not None  # the closure failed in its claim work: the pod keeps its in-place fixes
        while done.applied is False and is_conflict(done.cause) and retries < DEFAULT_BACKOFF_STEPS - 1:
            retries += 1
            again = d if from_claims else get_pod_again(d)
            if again is None:  # the pod the cache holds under that name is consistent as it is
                done = replace(d, applied=True, error=None)
                break
            # GetPod did not replace the closure's copy of an existing pod (its claim work failed, or no pod
            # has its new name): identity and storage stay fixed in place, only its claims are checked again
            kept = from_claims or (again is d and d.payload is not None and bool(d.payload.uid))
            if again is not d:  # the pod as the cache holds it; another pod of that name: only the claims
                # the first try created are looked at again (ClaimsMatchRetentionPolicy for that pod)
                d, name, group = again, again.payload.name, (
                    group if again.payload.uid == d.payload.uid else [g for g in group if g.action == "create-pvc"])
            tried: list[Decision] = []
            error = None if kept else self.create_persistent_volume_claims(
                [g for g in group if g.action == "create-pvc" and not om.claim_up_to_date(g, name)], retried=tried)
            resent += [("create", "PersistentVolumeClaim", x.target, x.applied is False) for x in tried]
            errors = [error] if error is not None else []
            cause = None  # createPersistentVolumeClaims' aggregate wraps nothing errors.As finds
            fixed = False
            if not errors:
                pod = d.payload if kept else None  # else GetPod's
                for g in self._owner_work(group, name, pod):
                    if g.action == "create-pvc" or (g.action == "update-pvc" and om.claim_up_to_date(g, name, pod)):
                        continue  # the retry reads the claim again: a fix that went through is not sent again
                    x = send(g)
                    fixed = fixed or g.action == "update-pvc"
                    if x.applied is False:
                        errors, cause = [claim_update_error(x)], x.cause  # wrapped with %w
                        break
            if errors:
                error = aggregate(errors)
                om.record_pod_event("update", name, error)
                done, from_claims = replace(d, applied=False, error=error, cause=cause), True
                continue
            if kept and not fixed:
                done = replace(d, applied=True, error=None)  # identity and storage fixed in place, claims now fit:
                break                                        # consistent, no pod update
            done, from_claims = send(d), False
            attempted = True
        if attempted:
            om.record_pod_event("update", name, failed(done))
        done = replace(done, retries=retries, resent=tuple(resent))
        self.log.append(done)
        return failed(done)


def new_stateful_pod_control(writes: "Writes", sts: StatefulSet, cause: str, profile: Profile,
                             status_updater: "RealStatefulSetStatusUpdater") -> StatefulPodControl:
    """The pod control over the real object manager, :class:`ClusterObjects`, with the profile's event
    wording (``NewStatefulPodControl``).  Upstream's controller builds one for its life; the kit's
    lives for one sync (*cause* names it), as the informer-cache lag it models and its log do, so
    :func:`~stsedu.controller.stateful_set.sync` builds it."""
    om = ClusterObjects(writes, sts, cause, status_updater)
    om.title_case_messages = profile.event_verbs_title_case
    om.recreating_failed_event = not profile.event_verbs_title_case
    om.delete_ignores_not_found = profile.delete_ignores_not_found
    return new_stateful_pod_control_from_manager(om)


def new_stateful_pod_control_from_manager(om: ObjectManager) -> StatefulPodControl:
    """The pod control over *om*, its log empty (``NewStatefulPodControlFromManager``)."""
    return StatefulPodControl(om, [])
