"""Carrying out a sync plan (≈ upstream ``stateful_pod_control.go`` and the status updater).

:func:`apply_plan` is the only controller code that writes.  It performs the
decisions of a :class:`~stsedu.controller.decisions.SyncPlan` through an
:class:`ObjectManager`, and stops where upstream's ``UpdateStatefulSet``
stops when a request fails:

* monotonic (OrderedReady): at the first failed request;
* burst (Parallel): ``runForAll`` uses ``slowStartBatch`` (1, 2, 4, ... slots),
  so every slot of the failing batch is attempted, and no later batch;
* then the status is still written (newest; v1.16 skipped it on error), and
  ``truncateHistory`` always runs.

Decisions that were not carried out are returned with ``applied=False`` and
an ``error`` saying why.

:class:`ClusterObjects` is the object manager of a simulated cluster: each
write with the events upstream's ``StatefulPodControl`` records
(``SuccessfulCreate``, ``FailedDelete`` ...).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, Protocol

from . import stateful_set_utils as P
from .decisions import (RULES, STEP_CLAIMS_FIX, STEP_CONDEMNED, STEP_HISTORY, STEP_RECREATE, STEP_REPLICAS,
                        STEP_REVISIONS, STEP_STATUS, STEP_UPDATE, Decision, SyncPlan)
from ..api.errors import APIError
from ..api.objects import PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus, parse_pod_name
from ..api.profiles import Profile
from .stateful_set_status_updater import retry_on_conflict, update_stateful_set_status

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes

NOT_REACHED = "not reached: an earlier request in this sync failed"

DEFAULT_BACKOFF_STEPS = 4
"""Attempts of ``retry.RetryOnConflict(retry.DefaultBackoff, ...)`` (pod and revision updates)."""


def is_conflict(error: str | None) -> bool:
    """True if *error* is the API server's Conflict answer (``apierrors.IsConflict``)."""
    return bool(error) and "Operation cannot be fulfilled" in error


class ObjectManager(Protocol):
    """The writes a sync may make (``StatefulPodControlObjectManager`` + history + status).

    Each raises :class:`~stsedu.api.errors.APIError` when the request fails.
    """

    def create_pod(self, d: Decision) -> None: ...
    def delete_stateful_pod(self, d: Decision) -> None: ...
    def update_pod(self, d: Decision) -> None: ...
    def pod_event(self, verb: str, pod: str, error: str | None) -> None: ...
    def create_claim(self, d: Decision) -> None: ...
    def warn(self, d: Decision) -> None: ...
    def update_claim(self, d: Decision) -> None: ...
    def claim_up_to_date(self, d: Decision, pod_name: str) -> bool: ...

    def create_revision(self, d: Decision) -> None: ...
    def probe_revision(self, d: Decision) -> None: ...
    def update_revision(self, d: Decision) -> None: ...
    def delete_revision(self, d: Decision) -> None: ...
    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int: ...


_VERBS = {
    "create": "create_pod", "delete": "delete_stateful_pod", "update": "update_pod",
    "create-pvc": "create_claim", "update-pvc": "update_claim",
    "create-revision": "create_revision", "update-revision": "update_revision",
    "delete-revision": "delete_revision", "reuse-revision": "probe_revision",
    "warn": "warn",
}


def claims_match_retention_policy(sts: StatefulSet, pod: Pod, claims: Mapping[str, PersistentVolumeClaim],
                                  condemned: bool, profile: Profile) -> bool:
    """True if every existing claim's refs fit the policy (``ClaimsMatchRetentionPolicy``)."""
    if not profile.pvc_retention or not sts.spec.volume_claim_templates:
        return True
    for name, _ in P.get_persistent_volume_claims(sts, pod.ordinal):
        claim = claims.get(name)
        if claim is not None and not P.is_claim_owner_up_to_date(sts, pod, claim, condemned=condemned):
            return False
    return True


def _do(d: Decision, om: ObjectManager) -> Decision:
    """Carry out one decision; return it marked applied or failed."""
    if d.error:  # a failure the plan already knows about (claim being deleted)
        return replace(d, applied=False)
    verb = _VERBS.get(d.action)
    if verb is None:  # waits and notes
        return d
    if verb == "warn":  # an event, no request
        om.warn(d)
        return d
    if d.action == "create-revision" and d.payload is None:  # a collision: the create finds the name taken
        verb = "probe_revision"
    try:
        retries = getattr(om, verb)(d)
    except APIError as e:
        return replace(d, applied=False, error=str(e), retries=getattr(e, "retries", 0))
    return replace(d, applied=True, retries=retries or 0)


def _closure_of_update(out: list[Decision], d: Decision) -> list[Decision]:
    """The claim work ``UpdateStatefulPod``'s retry closure did before the pod update *d*: the
    claims it created (storage) and the trailing claim owner-ref fixes and warnings (retention),
    each once."""
    group: list[Decision] = []
    seen: set = set()
    for prev in reversed(out):
        if prev.pod != d.pod or prev.action not in ("create-pvc", "update-pvc", "warn") \
                or (prev.action, prev.target) in seen:
            break
        if prev.action == "create-pvc" and prev.rule != RULES["identity"]:
            break
        seen.add((prev.action, prev.target))
        group.append(prev)
    return group[::-1]


def _closure_of(ds: list[Decision], i: int) -> list[Decision] | None:
    """The closure of ``UpdateStatefulPod`` that decision *i* belongs to (the claim work right
    before that pod's update), or None if *i* is not in one."""
    d = ds[i]
    j = next((k for k in range(i + 1, len(ds)) if ds[k].action == "update" and ds[k].pod == d.pod), None)
    if j is None:
        return None
    group = _closure_of_update(list(ds[:j]), ds[j])
    return group if any(g is d for g in group) else None


def _update_stateful_pod(d: Decision, group: list[Decision], om: ObjectManager,
                         first: Decision | None = None) -> Decision:
    """``UpdateStatefulPod``: the pod update and, on Conflict, the whole closure again as the
    informer cache has it (``retry.RetryOnConflict(retry.DefaultBackoff, ...)``): the claim work
    the caught-up cache still calls for is sent again (``claim_up_to_date``; with a cache that
    never catches up, every claim again: a create meets AlreadyExists and ends it).  Each
    failure inside the closure records a FailedUpdate, and the outcome one more event
    (``recordPodEvent``)."""
    name = d.payload.name if d.payload is not None else d.pod
    retries = 0
    resent: list[tuple] = []
    attempted = first is None  # the pod update was sent (UpdateStatefulPod's attemptedUpdate)

    def send(g: Decision) -> Decision:
        x = _do(g, om)
        kind = "PersistentVolumeClaim" if g.action in ("create-pvc", "update-pvc") else "Pod"
        if g.action != "warn":
            resent.append((g.action.split("-")[0], kind, g.target if kind != "Pod" else name,
                           x.applied is False))
        return x

    if first is None:
        done = send(d)
    else:  # the closure's claim update was answered Conflict before the pod update was sent
        resent.append(("update", "PersistentVolumeClaim", first.target, True))
        error = _claim_update_error(first)
        om.pod_event("update", name, error)
        done = replace(d, applied=False, error=error)
    from_claims = first is not None  # the closure failed in its claim work: the pod keeps its in-place fixes
    while done.applied is False and is_conflict(done.error) and retries < DEFAULT_BACKOFF_STEPS - 1:
        retries += 1
        again = d if from_claims or not hasattr(om, "reread") else om.reread(d)
        if again is None:  # the pod the cache holds under that name is consistent as it is
            done = replace(d, applied=True, error=None)
            break
        if again is not d:  # the pod as the cache holds it; another pod of that name: its claims are left alone
            d, name, group = again, again.payload.name, (group if again.payload.uid == d.payload.uid else [])
        tried = [] if from_claims else [send(g) for g in group if g.action == "create-pvc" and not (
            hasattr(om, "claim_up_to_date") and om.claim_up_to_date(g, name))]
        errors = [f"failed to create PVC {x.target}: {x.error}" for x in tried if x.applied is False]
        fixed = False
        if not errors:
            for g in group:
                if g.action == "create-pvc" or (g.action == "update-pvc" and hasattr(om, "claim_up_to_date")
                                                 and om.claim_up_to_date(g, name)):
                    continue  # the retry reads the claim again: a fix that went through is not sent again
                x = send(g)
                fixed = fixed or g.action == "update-pvc"
                if x.applied is False:
                    errors = [_claim_update_error(x)]
                    break
        if errors:
            error = _aggregate(errors)
            om.pod_event("update", name, error)
            done, from_claims = replace(d, applied=False, error=error), True
            continue
        if from_claims and not fixed and hasattr(om, "claim_up_to_date"):
            done = replace(d, applied=True, error=None)  # identity and storage fixed in place, claims now fit:
            break                                        # consistent, no pod update
        done, from_claims = send(d), False
        attempted = True
    if attempted:
        om.pod_event("update", name, done.error if done.applied is False else None)
    return replace(done, retries=retries, resent=tuple(resent))


def _failed(d: Decision) -> bool:
    return d.applied is False


def _path_verb(rule: str | None) -> str | None:
    """The pod event a failed ``createPersistentVolumeClaims`` leads to, by the function that called
    it, which the claim create's rule names: ``CreateStatefulPod`` (create), ``UpdateStatefulPod``
    (update; today through ``processReplica``); none for a Pending pod's
    ``createMissingPersistentVolumeClaims``."""
    if not rule:
        return None
    if rule.startswith("CreateStatefulPod"):
        return "create"
    return "update" if "UpdateStatefulPod" in rule else None


def _in_claim_run(d: Decision) -> bool:
    """A request (or refusal) of ``createPersistentVolumeClaims``: a claim create or a claim
    found being deleted."""
    return d.action == "create-pvc" or (d.action == "wait" and d.reason == "claim-deleting")


def _claim_run_path(d: Decision) -> str | None:
    if d.action == "create-pvc":
        return d.rule
    return RULES.get(d.payload) if isinstance(d.payload, str) else None


def _aggregate(errors: list[str]) -> str:
    """``errorutils.NewAggregate(errs).Error()``: one message as it is, several in brackets,
    repeated messages once."""
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def _run_sequential(ds: list[Decision], om: ObjectManager) -> tuple[list[Decision], bool]:
    """Carry out *ds* in order, stopping at the first failure as upstream's sync does, with the
    events ``StatefulPodControl`` records: one pod event per ``createPersistentVolumeClaims`` that
    failed (its errors aggregated); a pod's create event only after its claims' owner refs are
    set (a failed claim update records FailedUpdate instead)."""
    out: list[Decision] = []
    failed = False
    create: Decision | None = None      # the pod create whose claim owner refs are being set
    create_claims: set | None = None    # ... and the claims seen so far
    absorbed = None                     # (claim update answered Conflict, its closure) until its pod update
    for i, d in enumerate(ds):
        if create is not None:
            if d.action == "update-pvc" and d.pod == create.pod and d.target not in create_claims \
                    or (d.action == "warn" and d.pod == create.pod and d.target not in create_claims):
                # CreateStatefulPod sets the claims' owner refs whether the pod create worked or
                # not (any error but AlreadyExists), stopping at the first failed update
                if d.action == "update-pvc":
                    create_claims.add(d.target)
                if any(x.pod == create.pod and x.action == "update-pvc" and x.applied is False
                       for x in out[out.index(create) + 1:]):
                    out.append(replace(d, applied=False, error=NOT_REACHED))
                else:
                    out.append(_do(d, om))
                    failed = failed or _failed(out[-1])
                continue
            _finish_create(create, out, om)
            create, create_claims = None, None
        if failed and _in_claim_run(d) and out and _in_claim_run(out[-1]) and out[-1].pod == d.pod \
                and out[-1].error != NOT_REACHED:
            # createPersistentVolumeClaims tries every claim of the pod, then reports them all
            out.append(_do(d, om))
            _claim_run_event(ds, i, out, om)
            continue
        if failed:
            out.append(replace(d, applied=False, error=NOT_REACHED))
            continue
        if absorbed is not None:
            if d.action == "update" and d.pod == absorbed[0].pod:
                out.append(_update_stateful_pod(d, absorbed[1], om, first=absorbed[0]))
                failed = _failed(out[-1])
                absorbed = None
            continue  # the rest of the closure's first attempt: not sent
        if d.action == "update":
            done = _update_stateful_pod(d, _closure_of_update(out, d), om)
        else:
            done = _do(d, om)
        if d.action == "update-pvc" and _failed(done) and is_conflict(done.error):
            closure = _closure_of(ds, i)
            if closure is not None:
                # UpdateStatefulPod's closure returned the (wrapped) Conflict: it runs again
                absorbed = (done, closure)
                continue
        out.append(done)
        failed = _failed(done)
        if _in_claim_run(d):
            _claim_run_event(ds, i, out, om)
        if failed and d.action == "update-pvc" and d.rule == RULES["claim-owner"]:
            # createMissingPersistentVolumeClaims and UpdateStatefulPod record the pod's FailedUpdate
            om.pod_event("update", d.pod, _claim_update_error(done))
        if d.action == "create" and not (failed and _already_exists(done.error)):
            # CreateStatefulPod returns AlreadyExists at once, without an event
            create, create_claims = done, set()
    if create is not None:
        _finish_create(create, out, om)
    return out, failed


def _finish_create(create: Decision, out: list[Decision], om: ObjectManager) -> None:
    """``CreateStatefulPod``'s last word: FailedUpdate if a claim owner update failed, else the
    create's own event (successful or failed)."""
    after = out[out.index(create) + 1:]
    bad = next((x for x in after if x.pod == create.pod and x.action == "update-pvc"
                and x.applied is False and x.error != NOT_REACHED), None)
    if bad is not None:
        om.pod_event("update", create.pod, _claim_update_error(bad))
    else:
        om.pod_event("create", create.pod, create.error if create.applied is False else None)


def _canonical(pod: str) -> str:
    """The name ``getPodName`` gives the pod's ordinal (``web-00`` -> ``web-0``)."""
    parent, ordinal = parse_pod_name(pod)
    return f"{parent}-{ordinal}" if ordinal >= 0 else pod


def _claim_update_error(d: Decision) -> str:
    """How ``UpdatePodClaimForRetentionPolicy`` words a failed claim update."""
    return f"could not update claim {d.target} for delete policy ownerRefs: {d.error}"


def _claim_run_event(ds: list[Decision], i: int, out: list[Decision], om: ObjectManager) -> None:
    """At the end of one ``createPersistentVolumeClaims``, the pod event of its failures."""
    d = ds[i]
    if i + 1 < len(ds) and _in_claim_run(ds[i + 1]) and ds[i + 1].pod == d.pod:
        return
    run = []
    for x in reversed(out):
        if not _in_claim_run(x) or x.pod != d.pod:
            break
        run.append(x)
    errors = [(f"failed to create PVC {x.target}: {x.error}" if x.action == "create-pvc" else x.error)
              for x in reversed(run) if x.applied is False and x.error and x.error != NOT_REACHED]
    verb = _path_verb(_claim_run_path(d))
    if errors and verb is not None:
        # UpdateStatefulPod has renamed the pod already (updateIdentity: web-00 is web-0 there)
        om.pod_event(verb, _canonical(d.pod) if verb == "update" else d.pod, _aggregate(errors))


def _already_exists(error: str | None) -> bool:
    return bool(error) and ("AlreadyExists" in error or "already exists" in error)


def _run_slots(ds: list[Decision], monotonic: bool, om: ObjectManager,
               slow_start_batch) -> tuple[list[Decision], bool]:
    """Apply one ``runForAll`` step: in order (monotonic), or slot by slot in the batches of the set
    control's *slow_start_batch* (burst): every slot of the batch in which a request failed is
    still attempted, no later one (``NOT_REACHED``).  Only the slots up to the last one with
    decisions are visited (not every slot of spec.replicas).  Decisions of no slot (``slot < 0``: the
    step's own, as Recreate's UnknownStrategy) run in order."""
    if monotonic or all(d.slot < 0 for d in ds):
        return _run_sequential(ds, om)
    by_slot: dict[int, list[Decision]] = {}
    for d in ds:
        by_slot.setdefault(d.slot, []).append(d)
    out: dict[int, list[Decision]] = {}

    def run_slot(i: int) -> tuple[bool, str | None]:
        if i not in by_slot:
            return False, None
        out[i], slot_failed = _run_sequential(by_slot[i], om)
        return False, ("failed" if slot_failed else None)

    _, errors = slow_start_batch(1, max(by_slot) + 1 if by_slot else 0, run_slot)
    for i, slot_ds in by_slot.items():
        if i not in out:
            out[i] = [replace(d, applied=False, error=NOT_REACHED) for d in slot_ds]
    # keep the plan's order
    order = {id(d): k for k, d in enumerate(ds)}
    flat = [d for slot in out.values() for d in slot]
    originals = {}
    for slot, slot_ds in by_slot.items():
        for orig, done in zip(slot_ds, out.get(slot, [])):
            originals[id(done)] = order[id(orig)]
    flat.sort(key=lambda d: originals.get(id(d), 0))
    return flat, bool(errors)


def apply_plan(plan: SyncPlan, sts: StatefulSet, om: ObjectManager, profile: Profile,
               slow_start_batch) -> tuple[list[Decision], StatefulSetStatus | None, str | None]:
    """Carry out *plan*; return (decisions as carried out, status written or None, error or None).

    *slow_start_batch* is the set control's ``slowStartBatch``
    (:func:`~stsedu.controller.stateful_set_control.slow_start_batch`), passed in because the pod
    control does not import the set control: a Parallel set's slots are written in its batches."""
    steps: dict[str, list[Decision]] = {}
    for d in plan.decisions:
        steps.setdefault(d.step, []).append(d)
    done: list[Decision] = []
    error: str | None = None

    def skip(ds):
        return [replace(d, applied=False, error=NOT_REACHED) for d in ds]

    revs, failed = _run_sequential(steps.get(STEP_REVISIONS, []), om)
    done += revs
    if failed:
        error = next(d.error for d in revs if _failed(d))
        for step in (STEP_REPLICAS, STEP_CLAIMS_FIX, STEP_CONDEMNED, STEP_UPDATE):
            done += skip(steps.get(step, []))
        # truncateHistory still runs, with no current or update revision live (v1.16 returned first)
        history = (plan.history_if_revisions_fail if plan.history_if_revisions_fail is not None
                   else steps.get(STEP_HISTORY, []))
        done += _run_sequential(list(history), om)[0] if profile.status_on_error else skip(history)
        return done, None, error

    for step in (STEP_RECREATE, STEP_REPLICAS, STEP_CLAIMS_FIX, STEP_CONDEMNED):
        if error is not None:
            done += skip(steps.get(step, []))
            continue
        # no slowStartBatch in v1.16 (even Parallel sets stop at the first failure); Recreate is burst
        ds, failed = _run_slots(steps.get(step, []),
                                (plan.monotonic and step != STEP_RECREATE) or not profile.slow_start_batches,
                                om, slow_start_batch)
        done += ds
        if failed:
            error = next(d.error for d in ds if _failed(d) and d.error != NOT_REACHED)
            if step == STEP_RECREATE and plan.status_if_recreate_fails is not None:
                plan = replace(plan, status=plan.status_if_recreate_fails)

    if error is None:
        ds, failed = _run_sequential(steps.get(STEP_UPDATE, []), om)
        done += ds
        if failed:
            error = next(d.error for d in ds if _failed(d))
    else:
        done += skip(steps.get(STEP_UPDATE, []))

    written: StatefulSetStatus | None = None
    if plan.status is not None and (error is None or profile.status_on_error):
        # the plan's status took one off currentReplicas for each update delete (as upstream's
        # update loops do once DeleteStatefulPod returned): give back those that failed or were not reached
        not_deleted = sum(1 for d in done if d.step == STEP_UPDATE and d.action == "delete" and not d.applied)
        status = plan.status if not not_deleted else replace(
            plan.status, current_replicas=plan.status.current_replicas + not_deleted)
        status = P.complete_update(sts, status, profile, plan.recreate_time)
        if P.inconsistent_status(sts, status, profile):
            d = Decision(action="status", pod=None, reason="changed",
                         message=_status_sentence(status), rule=RULES["status"], step=STEP_STATUS)
            try:
                retries = om.write_status(sts, status) or 0
                done.append(replace(d, applied=True, retries=retries))
                written = status
            except APIError as e:
                done.append(replace(d, applied=False, error=str(e), retries=getattr(e, "retries", 0)))
                error = error or str(e)
        else:
            written = None
        plan_status = status
    else:
        plan_status = None

    if error is not None and not profile.status_on_error:  # v1.16: UpdateStatefulSet returned already
        done += skip(steps.get(STEP_HISTORY, []))
        return done, plan_status, error
    hist, failed = _run_sequential(steps.get(STEP_HISTORY, []), om)
    done += hist
    if failed and error is None:
        error = next(d.error for d in hist if _failed(d))
    return done, (written if written is not None else plan_status), error


def _status_sentence(st: StatefulSetStatus) -> str:
    return (f"Write status: replicas={st.replicas} ready={st.ready_replicas} "
            f"available={st.available_replicas} current={st.current_replicas} "
            f"updated={st.updated_replicas}, revisions {st.current_revision} -> {st.update_revision}.")


class ClusterObjects:
    """The :class:`~stsedu.controller.stateful_pod_control.ObjectManager` that writes through the cluster's
    :class:`~stsedu.sim.writes.Writes`."""

    def __init__(self, writes: "Writes", sts: StatefulSet, cause: str) -> None:
        self.c = writes
        self.sts = sts
        self.cause = cause
        self.cached_rv: dict[tuple[str, str], int] = {}
        """The resourceVersion the informer cache still holds for each object this sync wrote:
        the one from before its first write (the watch events of the sync's own writes have not
        arrived), until a Conflict brings the caches up to date."""
        self.listed_rv: dict[str, int] = {}  # pods as listed: processReplica's copy, not caught up until reread

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
        if e.reason == "Conflict":
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
        (see :func:`~stsedu.controller.stateful_set_control.over_create_budget`)."""
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
        """The pod create of ``CreateStatefulPod``; its event comes after the claims' owner refs
        are set (see ``_run_sequential``)."""
        pod: Pod = d.payload
        self._throttle(pod.name)
        self._check("create", "Pod", pod.name)
        self.c.create_pod(pod, f"{self.cause}: create ({d.reason})")

    delete_ignores_not_found = True
    """``Profile.delete_ignores_not_found`` (v1.16's ``DeleteStatefulPod`` returned NotFound too)."""

    recreating_failed_event = False
    """v1.16's ``updateStatefulSet`` records a Warning ``RecreatingFailedPod`` before it deletes a
    Failed pod (``Profile.event_verbs_title_case`` off marks that release)."""

    def delete_stateful_pod(self, d: Decision) -> None:
        """``DeleteStatefulPod``: a pod that is already gone (NotFound) counts as deleted."""
        pod: Pod = d.payload
        if self.recreating_failed_event and d.reason == "failed":
            self.c.trace.add_event("Warning", "RecreatingFailedPod", f"statefulset/{self.sts.name}",
                                   f"StatefulSet {self.sts.namespace}/{self.sts.name} is recreating "
                                   f"failed Pod {pod.name}")
        try:
            self._check("delete", "Pod", pod.name)
            self.c.delete_pod(pod.namespace, pod.name, f"{self.cause}: delete ({d.reason})")
        except APIError as e:
            if e.reason != "NotFound" or not self.delete_ignores_not_found:
                self._event(False, "delete", f"Pod {pod.name}", str(e))
                raise
        self._event(True, "delete", f"Pod {pod.name}")

    def update_pod(self, d: Decision) -> None:
        """One request of ``UpdateStatefulPod``: write the restored labels/volumes (sent even if
        nothing changed).  Its event comes once the retries are over (:meth:`pod_event`)."""
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

    def reread(self, d: Decision) -> Decision | None:
        """What ``UpdateStatefulPod``'s retry sends after a Conflict: it reads the pod of that name
        from the informer cache (caught up) and checks it: None if consistent, else its fix; *d* again
        for a pod just created or gone.  It may be another pod (web-01 renamed web-1 beside web-1)."""
        pod = d.payload
        self.listed_rv.pop(pod.name, None)
        stored = self.c.store.get("Pod", self.sts.namespace, pod.name)
        if stored is None or not pod.uid:
            return d
        profile = self.c.profile
        identity_ok, storage_ok = P.identity_matches(self.sts, stored), P.storage_matches(self.sts, stored)
        claims = self.c.store.view("PersistentVolumeClaim", self.sts.namespace)
        if identity_ok and storage_ok and claims_match_retention_policy(self.sts, stored, claims, False, profile):
            return None
        fixed = replace(stored, labels=P.update_identity(self.sts, stored, pod_index_label=profile.pod_index_label),
                        spec=P.update_storage(self.sts, stored) if not storage_ok else stored.spec)
        return replace(d, pod=stored.name, payload=fixed)

    def pod_event(self, verb: str, pod: str, error: str | None) -> None:
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

    def _claim_event(self, ok: bool, verb: str, claim: str, pod: str | None, err: str | None = None) -> None:
        """``recordClaimEvent``'s wording."""
        if ok:
            self.c.trace.add_event("Normal", f"Successful{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} Claim {claim} Pod {pod} in StatefulSet {self.sts.name} success")
        else:
            self.c.trace.add_event("Warning", f"Failed{verb.title()}", f"statefulset/{self.sts.name}",
                                   f"{self._verb(verb)} Claim {claim} for Pod {pod} in StatefulSet {self.sts.name} "
                                   f"failed error: {err}")

    def create_claim(self, d: Decision) -> None:
        claim = d.payload
        # UpdateStatefulPod renames the pod (updateIdentity) before it creates the claims
        pod = _canonical(d.pod) if _path_verb(d.rule) == "update" else d.pod
        try:
            self._check("create", "PersistentVolumeClaim", claim.name)
            self.c.store.create("PersistentVolumeClaim", claim)
        except APIError as e:
            if e.reason != "AlreadyExists":
                self._claim_event(False, "create", claim.name, pod, str(e))
            raise
        self._claim_event(True, "create", claim.name, pod)

    def update_claim(self, d: Decision) -> None:
        """Set a claim's owner refs (``UpdatePodClaimForRetentionPolicy``; no event on success: the
        callers record the pod's FailedUpdate on an error, fixPodClaim records nothing)."""
        self._check("update", "PersistentVolumeClaim", d.target)
        claim = self.c.store.get("PersistentVolumeClaim", self.sts.namespace, d.target)
        if claim is None:
            raise APIError("update", "PersistentVolumeClaim", d.target, reason="NotFound")
        # a pod ref needs the pod's uid, known only once the pod exists
        fixed = []
        for r in d.payload:
            if r.kind == "Pod" and not r.uid:
                pod = self.c.store.get("Pod", self.sts.namespace, r.name)
                if pod is None:
                    continue
                r = replace(r, uid=pod.uid)
            fixed.append(r)
        self._update("PersistentVolumeClaim", claim, replace(claim, owner_references=tuple(fixed)))

    def claim_up_to_date(self, d: Decision, pod_name: str) -> bool:
        """What ``UpdateStatefulPod``'s retry finds for the claim work *d* in the (caught-up) cache: a
        claim to create is there (``createPersistentVolumeClaims`` skips it); a claim fix's owner refs
        already fit the policy (``isClaimOwnerUpToDate``), or it is gone.  A cache that never catches
        up (``stale_cache`` off) still holds the claims as they were: all sent again."""
        if not self.stale_cache:
            return False
        claim = self.c.store.get("PersistentVolumeClaim", self.sts.namespace, d.target)
        if d.action == "create-pvc":
            return claim is not None
        pod = self.c.store.get("Pod", self.sts.namespace, pod_name)
        return claim is None or (pod is not None and P.is_claim_owner_up_to_date(self.sts, pod, claim,
                                                                                 condemned=False))

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
            if e.reason != "AlreadyExists":
                raise

    def update_revision(self, d: Decision) -> int:
        """``UpdateControllerRevision``: renumber it, sent again on Conflict (``retry.DefaultBackoff``)."""
        rev = d.payload

        def attempt():
            self._check("update", "ControllerRevision", rev.name)
            stored = self.c.store.get("ControllerRevision", rev.namespace, rev.name)
            if stored is None:
                raise APIError("update", "ControllerRevision", rev.name, reason="NotFound")
            self._update("ControllerRevision", stored, replace(stored, revision=rev.revision))
        retries = retry_on_conflict(DEFAULT_BACKOFF_STEPS, attempt)
        self.c.trace.add_event("Normal", "RevisionReused", f"controllerrevision/{rev.name}",
                               f"reused revision {rev.name}, renumbered {rev.revision}")
        return retries

    def delete_revision(self, d: Decision) -> None:
        rev = d.payload
        self._check("delete", "ControllerRevision", rev.name)
        self.c.store.remove("ControllerRevision", rev.namespace, rev.name)
        self.c.trace.add_event("Normal", "RevisionTruncated", f"controllerrevision/{rev.name}",
                               f"deleted revision {rev.name} (number {rev.revision}): history limit")

    def write_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int:
        """The status updater's ``UpdateStatefulSetStatus``; returns the number of retries."""
        return update_stateful_set_status(self.c, sts, status)

    # claiming
    def _check_unless_not_found(self, verb: str, kind: str, name: str) -> bool:
        """``_check``, but a NotFound answer means "skip it" (False), as for a pod that is gone."""
        try:
            self._check(verb, kind, name)
        except APIError as e:
            if e.reason == "NotFound":
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
        pod = self.c.store.get("Pod", self.sts.namespace, d.pod)
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
            if e.reason == "Invalid":
                return
            raise
        pod = self.c.store.get("Pod", self.sts.namespace, d.pod)
        if pod is None:
            return
        refs = tuple(r for r in pod.owner_references if r.uid != self.sts.uid)
        self.c.write_pod(replace(pod, owner_references=refs), f"{self.cause}: release")
        self._wrote("Pod", pod)
