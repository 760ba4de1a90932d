"""The pod control (upstream ``stateful_pod_control.go``), function for function.

:class:`StatefulPodControl` is what the steps of :mod:`.stateful_set_control` call with the set and
a pod, as upstream's steps call ``CreateStatefulPod(ctx, set, pod)``, ``UpdateStatefulPod`` and
``DeleteStatefulPod``: it reads the claims through its object manager (``GetClaim``), decides,
makes the requests (``CreatePod``, ``UpdateClaim`` ...), records upstream's events through its
event recorder and returns the error upstream's returns.  Each request it makes becomes a row of
its log (:class:`~stsedu.controller.decisions.Decision`), with the words the step gave it
(:class:`~stsedu.controller.decisions.Why`).

:class:`ObjectManager` is upstream's ``StatefulPodControlObjectManager`` (seven methods);
:class:`ClusterObjects` the real one of a simulated cluster, whose informer caches lag the sync's
own writes until a Conflict as a real cluster's do (a stale write is refused 409).  ``preview()``
gives the same pod control another object manager, which records and writes nothing
(:mod:`.recording_pod_control`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Mapping, Protocol

from .stateful_set_utils import (POD_KIND, get_ordinal, get_persistent_volume_claim_name,
                                 get_persistent_volume_claim_retention_policy, get_persistent_volume_claims,
                                 has_stale_owner_ref, has_unexpected_controller,
                                 identity_matches, is_claim_owner_up_to_date, new_claim, storage_matches,
                                 update_claim_owner_ref_for_set_and_pod, update_identity, update_storage)
from .decisions import RULES, Decision, Why, aggregate, decision, refused
from .history import ClusterHistory
from .stateful_set_status_updater import retry_on_conflict
from ..api.errors import (APIError, WrappedError, api_answer, is_already_exists, is_conflict,
                          is_not_found)
from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus
from ..api.profiles import Profile

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes
    from .stateful_set_status_updater import RealStatefulSetStatusUpdater


DEFAULT_BACKOFF_STEPS = 4
"""Attempts of ``retry.RetryOnConflict(retry.DefaultBackoff, ...)`` (pod and revision updates)."""


class ObjectManager(Protocol):
    """``StatefulPodControlObjectManager``: the pod control's reads (the listers) and writes (the
    clientset).  A write raises :class:`~stsedu.api.errors.APIError` when it fails; a read answers
    None for NotFound.  *reason* (the kit's) is the step's reason, which the cluster's trace shows
    as the write's cause."""

    def create_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None: ...
    def get_pod(self, namespace: str, name: str) -> Pod | None: ...
    def update_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None: ...
    def delete_pod(self, pod: Pod, reason: str = "") -> None: ...
    def create_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None: ...
    def get_claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None: ...
    def update_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None: ...


class ControllerHistory(Protocol):
    """``history.Interface``: the revision requests the sync makes, each described by its row *d*
    (:class:`~.history.ClusterHistory`, or the preview's, which writes nothing)."""

    def create_revision(self, d: Decision) -> None: ...
    def probe_revision(self, d: Decision) -> None: ...
    def update_revision(self, d: Decision) -> int | None: ...
    def delete_revision(self, d: Decision) -> None: ...


class EventRecorder(Protocol):
    """``record.EventRecorder``: an event about the set."""

    def event(self, sts: StatefulSet, type_: str, reason: str, message: str) -> None: ...


class TraceRecorder:
    """The event recorder of a simulated cluster: each event goes to the cluster's trace."""

    def __init__(self, trace) -> None:
        self.trace = trace

    def event(self, sts: StatefulSet, type_: str, reason: str, message: str) -> None:
        """``Event``: one event about the set *sts*."""
        self.trace.add_event(type_, reason, f"statefulset/{sts.name}", message)


class ClusterObjects:
    """The object manager over a simulated cluster (``realStatefulPodControlObjectManager``): writes
    through its :class:`~stsedu.sim.writes.Writes`, reads from the informer caches, which hold the
    objects as the sync began until a Conflict brings them up to date (the watch events of the
    sync's own writes arrive by the retry's first backoff).  The controller history
    (:class:`~.history.ClusterHistory`) and the pod ref manager
    (:class:`~.controller_ref_manager.PodControllerRefManager`) write through it, sharing its caches;
    it also hands the status to the status updater.  Upstream's object manager records each of its
    writes in the consistency store (``WroteAt``) itself; the kit's controller records every write
    the sync makes, as it is made, through one hook (:func:`~.consistency.recorded_write` says which)."""

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
        self.listed_claims: Mapping[str, PersistentVolumeClaim] = self._claims_now()
        """The claim lister ``GetClaim`` reads: the claims as the sync began, or as the last Conflict
        found them (the caches caught up then; the sync's later writes lag again)."""

    def check(self, verb: str, kind: str, name: str) -> None:
        """The answer the API server gives to *verb* on *kind* *name* (an injected fault raises it;
        a Conflict catches the caches up)."""
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
            if self.stale_cache:
                self.listed_claims = self._claims_now()

    def _claims_now(self) -> dict[str, PersistentVolumeClaim]:
        """The claims of the set's namespace as the API server holds them now."""
        return dict(self.c.store.view("PersistentVolumeClaim", self.sts.namespace))

    stale_cache = True
    """The informer caches lag the sync's own writes until a Conflict, and the API server checks
    resourceVersions (a real cluster).  ``tests/upstream_oracle.py`` turns it off to compare with
    the fake clientset run without resource-version checks (``conflicts=False``)."""

    def wrote(self, kind: str, old) -> None:
        """Note that this sync wrote *old* (as the cache holds it, until a Conflict)."""
        if self.stale_cache:
            self.cached_rv.setdefault((kind, old.name), old.resource_version)
            if kind == "Pod":
                self.listed_rv.setdefault(old.name, old.resource_version)

    def update_as_cached(self, kind: str, stored, new) -> None:
        """Update *stored* to *new*, sent with the resourceVersion the informer cache holds: the API
        server refuses a stale one with 409 Conflict."""
        sent = replace(new, resource_version=self.cached_rv.get((kind, stored.name), stored.resource_version))
        try:
            self.c.store.update(kind, sent)
        except APIError as e:
            self._caught_up(e)
            raise
        self.wrote(kind, stored)

    _creates = 0

    def _throttle(self, name: str) -> None:
        """The kit's create limits (:func:`throttle_create`) over the cluster's pods as they are now."""
        self._creates = throttle_create(name, self._creates, self.c.store.count("Pod"))

    def create_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None:
        """``CreatePod``, within the kit's create limits (:meth:`_throttle`)."""
        self._throttle(pod.name)
        self.check("create", "Pod", pod.name)
        self.c.create_pod(pod, f"{self.cause}: create ({reason})")

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """``GetPod``: the pod of that name, read from the store.  Upstream reads the pod lister; the
        two differ only while the cache lags, and ``UpdateStatefulPod`` uses what it reads only for a
        retry, which follows a Conflict, after which the kit's caches are caught up (:meth:`_caught_up`).
        From then on the caller's copy is this one, no longer the one the sync listed."""
        self.listed_rv.pop(name, None)
        return self.c.store.get("Pod", namespace, name)

    def update_pod(self, pod: Pod, sts: StatefulSet, reason: str = "") -> None:
        """``UpdatePod``: write the pod's labels and volumes.  An unchanged pod is kept as it is (its
        resourceVersion too); a pod sent from a stale copy is refused 409."""
        self.check("update", "Pod", pod.name)
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
            self.c.update_pod_from(pod, f"{self.cause}: update ({reason})")
        except APIError as e:
            self._caught_up(e)
            raise
        if stored is not None:
            self.wrote("Pod", stored)

    def delete_pod(self, pod: Pod, reason: str = "") -> None:
        """``DeletePod``."""
        self.check("delete", "Pod", pod.name)
        self.c.delete_pod(pod.namespace, pod.name, f"{self.cause}: delete ({reason})")

    def create_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None:
        """``CreateClaim``."""
        self.check("create", "PersistentVolumeClaim", claim.name)
        self.c.store.create("PersistentVolumeClaim", claim)

    def get_claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """``GetClaim``: the claim as the claim lister holds it (:attr:`listed_claims`)."""
        return self.listed_claims.get(name)

    def update_claim(self, claim: PersistentVolumeClaim, sts: StatefulSet) -> None:
        """``UpdateClaim``: its owner refs, sent with the resourceVersion the cache holds.  A pod ref
        without a uid (the pod this sync created) takes the created pod's."""
        self.check("update", "PersistentVolumeClaim", claim.name)
        stored = self.c.store.get("PersistentVolumeClaim", claim.namespace, claim.name)
        if stored is None:
            raise APIError("update", "PersistentVolumeClaim", claim.name, reason="NotFound")
        fixed = []
        for r in claim.owner_references:
            if r.kind == "Pod" and not r.uid:
                pod = self.c.store.get("Pod", claim.namespace, r.name)
                if pod is None:
                    continue
                r = replace(r, uid=pod.uid)
            fixed.append(r)
        self.update_as_cached("PersistentVolumeClaim", stored, replace(stored, owner_references=tuple(fixed)))

    # ------------------------------------------------------------- the status
    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int:
        """The status updater's ``UpdateStatefulSetStatus``; returns the number of retries."""
        return self.status_updater.update_stateful_set_status(sts, status)


def throttle_create(name: str, creates: int, pods: int) -> int:
    """The kit's stand-in for the API server's rate limits and a pod quota, asked by an object manager
    before it creates pod *name*, the sync having made *creates* creates and the cluster holding *pods*
    pods: with ``stsedu.limits.MAX_PODS`` pods the create is ``Forbidden: exceeded quota``; past
    ``MAX_PODS_PER_SYNC`` creates in one sync it is ``TooManyRequests`` (each raised as the
    :class:`~stsedu.api.errors.APIError` the API server would answer).  Returns the sync's creates,
    this one counted.  :class:`ClusterObjects` and the preview's object manager both ask it, so a
    preview is refused at the create a sync would be."""
    from .. import limits
    if pods >= limits.MAX_PODS:
        raise APIError("create", "Pod", name, reason="Forbidden", message=(
            f'pods "{name}" is forbidden: exceeded quota: stsedu, requested: pods=1, used:'
            f" pods={pods}, limited: pods={limits.MAX_PODS} ({limits.hint('MAX_PODS')})"))
    creates += 1
    if creates > limits.MAX_PODS_PER_SYNC:
        raise APIError("create", "Pod", name, reason="TooManyRequests", message=(
            f"TooManyRequests: stsedu creates at most {limits.MAX_PODS_PER_SYNC} pods in one sync"
            f" ({limits.hint('MAX_PODS_PER_SYNC')}); the set is synced again to go on"))
    return creates


# ------------------------------------------------------------------ the pod control the steps call


def _template_name(template: Mapping) -> str:
    """A claim template's name."""
    return template.get("metadata", {}).get("name", "")


Error = APIError | WrappedError
"""What the pod control's methods return when a request failed, as upstream's return an ``error``:
the API server's answer (:class:`~stsedu.api.errors.APIError`), or an error made of others
(:class:`~stsedu.api.errors.WrappedError`), which the predicates of :mod:`stsedu.api.errors` read
(``is_conflict``, ``is_too_many_requests`` ...); a caller that records or prints it makes its text."""


class StatefulPodControl:
    """The pod control the steps call (``StatefulPodControl``): its object manager *om*, its event
    recorder *recorder*, and the log its requests are recorded in, each as a row carried out
    (applied, or failed with the API server's answer).  *profile* gives the release's wording of
    its events and which of its checks the release has (PVC retention).  It also carries the
    controller history *history* (upstream's set control holds it: ``controllerHistory``), so the
    revision requests are recorded in the same log."""

    def __init__(self, om: ObjectManager, recorder: EventRecorder, profile: Profile,
                 history: ControllerHistory, log: list[Decision] | None = None) -> None:
        self.om = om
        self.recorder = recorder
        self.profile = profile
        self.history = history
        self.log: list[Decision] = [] if log is None else log
        self._resent: list[tuple] | None = None
        """While ``UpdateStatefulPod`` retries: where its requests go, as ``(verb, kind, name,
        failed)`` (the update's row carries them, :attr:`Decision.resent`), instead of the log."""

    # ------------------------------------------------------------------ the requests' rows
    def _note(self, row: Decision) -> None:
        """Record the row of one request, or of a claim that fails the call without one."""
        if self._resent is None:
            self.log.append(row)
        elif row.action != "wait":
            kind = "PersistentVolumeClaim" if row.action.endswith("-pvc") else "Pod"
            self._resent.append((row.action.split("-")[0], kind, row.target if kind != "Pod" else row.pod,
                                 row.applied is False))

    def _request(self, row: Decision, call: Callable[[], object]) -> APIError | None:
        """Make the request *call*, record *row* as the API server answered it; its error."""
        try:
            call()
        except APIError as e:
            self._note(refused(row, e))
            return e
        self._note(replace(row, applied=True))
        return None

    # ------------------------------------------------------------------ upstream's methods
    def create_stateful_pod(self, sts: StatefulSet, pod: Pod, why: Why) -> Error | None:
        """``CreateStatefulPod``."""
        if (err := self.create_persistent_volume_claims(sts, pod, why, "create-pvc")) is not None:
            self.record_pod_event("create", sts, pod, err)
            return err
        err = self._request(why.row("create", pod.name, payload=pod),
                            lambda: self.om.create_pod(pod, sts, why.reason))
        if is_already_exists(err):
            return err
        if (claim_err := self.update_pod_claim_for_retention_policy(sts, pod, why)) is not None:
            self.record_pod_event("update", sts, pod, claim_err)
            return claim_err
        self.record_pod_event("create", sts, pod, err)
        return err

    def update_stateful_pod(self, sts: StatefulSet, pod: Pod, why: Why) -> Error | None:
        """``UpdateStatefulPod``."""
        om = self.om
        name = pod.name  # the row's pod: the one processReplica gave, or the one GetPod read and updated
        reread = False
        attempted = False
        tries = 0
        resent: list[tuple] = []  # the requests from the first pod update on

        def closure() -> None:
            nonlocal pod, attempted, tries, name, reread
            tries += 1
            if tries == 2:
                self._resent = resent
            consistent = True
            if not identity_matches(sts, pod):
                pod = update_identity(sts, pod, pod_index_label=self.profile.pod_index_label)
                consistent = False
            if not storage_matches(sts, pod):
                pod = replace(pod, spec=update_storage(sts, pod))
                consistent = False
                if (err := self.create_persistent_volume_claims(sts, pod, why, "identity-pvc")) is not None:
                    self.record_pod_event("update", sts, pod, err)
                    raise err
            if not self.claims_match_retention_policy(sts, pod):
                if (err := self.update_pod_claim_for_retention_policy(sts, pod, why)) is not None:
                    self.record_pod_event("update", sts, pod, err)
                    if tries == 1 and is_conflict(err):  # the first try's last row: it is tried again
                        self._resent = resent
                        self._note(self.log.pop())
                    raise err
                consistent = False
            if consistent:
                return
            attempted = True
            self._resent = resent
            if reread:
                name = pod.name
            try:
                om.update_pod(pod, sts, why.reason)
            except APIError as e:
                resent.append(("update", "Pod", pod.name, True))
                if (updated := om.get_pod(sts.namespace, pod.name)) is not None:
                    pod, reread = updated, True
                raise e
            resent.append(("update", "Pod", pod.name, False))

        error: APIError | WrappedError | None = None
        try:
            retries = retry_on_conflict(DEFAULT_BACKOFF_STEPS, closure)
        except (APIError, WrappedError) as e:
            error, retries = e, e.retries
        finally:
            self._resent = None
        if attempted:
            self.record_pod_event("update", sts, pod, error)
        if tries == 1 and not attempted and error is not None:
            return error  # the first try's claim work failed: no update was sent
        self.log.append(why.row("update", name, payload=pod, applied=error is None,
                                error=None if error is None else str(error), cause=api_answer(error),
                                retries=retries, resent=tuple(resent)))
        return error

    def delete_stateful_pod(self, sts: StatefulSet, pod: Pod, why: Why) -> APIError | None:
        """``DeleteStatefulPod``: a NotFound counts as deleted (not in v1.16)."""
        row = why.row("delete", pod.name, payload=pod)
        try:
            self.om.delete_pod(pod, why.reason)
        except APIError as e:
            if not (is_not_found(e) and self.profile.delete_ignores_not_found):
                self.log.append(refused(row, e))
                self.record_pod_event("delete", sts, pod, e)
                return e
        self.log.append(replace(row, applied=True))
        self.record_pod_event("delete", sts, pod, None)
        return None

    def claims_match_retention_policy(self, sts: StatefulSet, pod: Pod) -> bool:
        """``ClaimsMatchRetentionPolicy``."""
        if not self.profile.pvc_retention:
            return True
        ordinal = get_ordinal(pod)
        for template in sts.spec.volume_claim_templates:
            name = get_persistent_volume_claim_name(_template_name(template), sts.name, ordinal)
            claim = self.om.get_claim(sts.namespace, name)
            if claim is not None and not is_claim_owner_up_to_date(sts, pod, claim):
                return False
        return True

    def update_pod_claim_for_retention_policy(self, sts: StatefulSet, pod: Pod, why: Why
                                              ) -> WrappedError | None:
        """``UpdatePodClaimForRetentionPolicy``: *why*'s rule names its caller (fixPodClaim's, or the
        pod control's own: ``claim-owner``)."""
        if not self.profile.pvc_retention:
            return None
        rule = why.rule if why.rule == RULES["fix-claim"] else RULES["claim-owner"]
        ordinal = get_ordinal(pod)
        for template in sts.spec.volume_claim_templates:
            name = get_persistent_volume_claim_name(_template_name(template), sts.name, ordinal)
            claim = self.om.get_claim(sts.namespace, name)
            if claim is None:
                continue
            conflicting = has_unexpected_controller(claim, sts, pod)
            if conflicting:
                self.recorder.event(sts, "Warning", "ConflictingController",
                                    f"PersistentVolumeClaim {name} has a conflicting OwnerReference that acts "
                                    "as a manging controller, the retention policy is ignored for this claim")
                self._note(Decision("warn", pod.name, "conflicting-controller",
                                    f"Claim {name} has another managing controller: the retention policy is "
                                    "ignored for it (Warning ConflictingController).", rule, target=name,
                                    step=why.step, slot=why.slot))
            if is_claim_owner_up_to_date(sts, pod, claim):
                continue
            refs = update_claim_owner_ref_for_set_and_pod(sts, pod, claim)
            owners = ", ".join(f"{r.kind} {r.name}" for r in refs) or "no owner"
            if conflicting:
                reason, message = "conflicting-controller", (
                    f"Claim {name} has another controller; remove this set's and {pod.name}'s refs "
                    f"and ignore the retention policy for it (owners left: {owners}).")
            else:
                reason, message = "retention-policy", (
                    f"Set the owner of claim {name} to {owners} (whenScaled={sts.spec.when_scaled}, "
                    f"whenDeleted={sts.spec.when_deleted}).")
            row = Decision("update-pvc", pod.name, reason, message, rule, target=name, step=why.step,
                           slot=why.slot, payload=refs)
            if (err := self._request(row, lambda: self.om.update_claim(replace(claim, owner_references=refs),
                                                                       sts))) is not None:
                return WrappedError(f"could not update claim {name} for delete policy ownerRefs: {err}", err)
        return None

    def pod_claim_is_stale(self, sts: StatefulSet, pod: Pod) -> bool:
        """``PodClaimIsStale``: under whenScaled=Delete, a claim of the pod that still belongs to an
        earlier pod of that name (a missing claim is not stale)."""
        when_scaled, _ = get_persistent_volume_claim_retention_policy(sts)
        if when_scaled == "Retain":
            return False
        for name, _ in get_persistent_volume_claims(sts, pod):
            claim = self.om.get_claim(sts.namespace, name)
            if claim is not None and has_stale_owner_ref(claim, POD_KIND, pod.name, pod.uid):
                return True
        return False

    def _verb(self, verb: str) -> str:
        """The verb in an event's message: title-cased (v1.16 wrote it as given)."""
        return verb.title() if self.profile.event_verbs_title_case else verb

    def record_pod_event(self, verb: str, sts: StatefulSet, pod: Pod, err: BaseException | None) -> None:
        """``recordPodEvent``."""
        if err is None:
            self.recorder.event(sts, "Normal", f"Successful{verb.title()}",
                                f"{self._verb(verb)} Pod {pod.name} in StatefulSet {sts.name} successful")
        else:
            self.recorder.event(sts, "Warning", f"Failed{verb.title()}",
                                f"{self._verb(verb)} Pod {pod.name} in StatefulSet {sts.name} failed error: {err}")

    def record_claim_event(self, verb: str, sts: StatefulSet, pod: Pod, claim: str,
                           err: BaseException | None) -> None:
        """``recordClaimEvent``."""
        if err is None:
            self.recorder.event(sts, "Normal", f"Successful{verb.title()}",
                                f"{self._verb(verb)} Claim {claim} Pod {pod.name} in StatefulSet {sts.name} success")
        else:
            self.recorder.event(sts, "Warning", f"Failed{verb.title()}",
                                f"{self._verb(verb)} Claim {claim} for Pod {pod.name} in StatefulSet {sts.name} "
                                f"failed error: {err}")

    def create_missing_persistent_volume_claims(self, sts: StatefulSet, pod: Pod, why: Why) -> WrappedError | None:
        """``createMissingPersistentVolumeClaims``."""
        if (err := self.create_persistent_volume_claims(sts, pod, why, "pending-pvc")) is not None:
            return err
        if (err := self.update_pod_claim_for_retention_policy(sts, pod, why)) is not None:
            self.record_pod_event("update", sts, pod, err)
            return err
        return None

    def create_persistent_volume_claims(self, sts: StatefulSet, pod: Pod, why: Why, rule: str
                                        ) -> WrappedError | None:
        """``createPersistentVolumeClaims``: *rule* (a key of ``RULES``) names its caller.  Rows of the
        claims being deleted follow the creates."""
        errors, deleting = [], []
        for name, template in get_persistent_volume_claims(sts, pod):
            claim = self.om.get_claim(sts.namespace, name)
            if claim is None:
                new = new_claim(sts, template, name)
                words = "while restoring its storage" if rule == "identity-pvc" else "before the pod"
                row = decision(action="create-pvc", pod=pod.name, reason="missing",
                               message=f"Create claim {name} for {pod.name} {words}.", rule=rule, target=name,
                               step=why.step, slot=why.slot, payload=new)
                err = self._request(row, lambda: self.om.create_claim(new, sts))
                if err is not None:
                    errors.append(f"failed to create PVC {name}: {err}")
                if err is None or not is_already_exists(err):
                    self.record_claim_event("create", sts, pod, name, err)
            elif claim.deleting and self.profile.pvc_retention:
                errors.append(f"pvc {name} is being deleted")
                deleting.append(decision(action="wait", pod=pod.name, reason="claim-deleting",
                                         message=f"Claim {name} is being deleted; {pod.name} cannot use it until "
                                                 "it is gone.",
                                         rule="claim-deleting", target=name, step=why.step, slot=why.slot,
                                         applied=False, error=f"pvc {name} is being deleted"))
        for row in deleting:
            self._note(row)
        return WrappedError(aggregate(errors)) if errors else None

    # ------------------------------------------------------------------ the sync's other requests
    # Upstream's steps call the controller history and the status updater themselves; the kit's
    # go through these methods, which only add the request's row to the same log as the pods'.
    def create_revision(self, d: Decision) -> APIError | None:
        """The create of ``CreateControllerRevision`` (the controller history's), its row *d*; its error."""
        return self._request(d, lambda: self.history.create_revision(d))

    def probe_revision(self, d: Decision) -> APIError | None:
        """The create ``CreateControllerRevision`` sends for a name that is taken (answered AlreadyExists,
        which it expects); its row *d*; its error."""
        return self._request(d, lambda: self.history.probe_revision(d))

    def update_revision(self, d: Decision) -> APIError | None:
        """``UpdateControllerRevision`` (a rollback's renumbering), its row *d*; its error."""
        return self._request(d, lambda: self.history.update_revision(d))

    def delete_revision(self, d: Decision) -> APIError | None:
        """``DeleteControllerRevision`` (``truncateHistory``), its row *d*; its error."""
        return self._request(d, lambda: self.history.delete_revision(d))

    def update_stateful_set_status(self, d: Decision, sts: StatefulSet, status: StatefulSetStatus
                                   ) -> APIError | None:
        """``updateStatefulSetStatus``: the status write *d* describes, through the status updater."""
        try:
            retries = self.om.write_status(sts, status) or 0
        except APIError as e:
            self.log.append(refused(d, e))
            return e
        self.log.append(replace(d, applied=True, retries=retries))
        return None


def new_stateful_pod_control(writes: "Writes", sts: StatefulSet, cause: str, profile: Profile,
                             status_updater: "RealStatefulSetStatusUpdater") -> StatefulPodControl:
    """The pod control over the real object manager, :class:`ClusterObjects`, recording to the
    cluster's trace (``NewStatefulPodControl``).  Upstream's controller builds one for its life; the
    kit's lives for one sync (*cause* names it), as the informer-cache lag it models and its log do,
    so :func:`~stsedu.controller.stateful_set.sync` builds it."""
    objects = ClusterObjects(writes, sts, cause, status_updater)
    return StatefulPodControl(objects, TraceRecorder(writes.trace), profile, ClusterHistory(objects))


def new_stateful_pod_control_from_manager(om, recorder: EventRecorder, profile: Profile,
                                          history: "ControllerHistory") -> StatefulPodControl:
    """The pod control over *om* and *recorder*, with the controller history *history*, its log empty
    (``NewStatefulPodControlFromManager``)."""
    return StatefulPodControl(om, recorder, profile, history)
