"""Carrying out a sync plan through the pod control (the kit's, until the steps call it directly).

:func:`apply_plan` performs the decisions of a :class:`~stsedu.controller.decisions.SyncPlan`
through an :class:`~.stateful_pod_control.ObjectManager`, and stops where upstream's
``UpdateStatefulSet`` stops when a request fails:

* monotonic (OrderedReady): at the first failed request;
* burst (Parallel): ``runForAll`` uses ``slowStartBatch`` (1, 2, 4, ... slots),
  so every slot of the failing batch is attempted, and no later batch;
* then the status is still written (newest; v1.16 skipped it on error), and
  ``truncateHistory`` always runs.

Decisions that were not carried out are returned with ``applied=False`` and an ``error`` saying
why.  ``UpdateStatefulPod``'s retry on a Conflict, ``createPersistentVolumeClaims``' aggregated
errors and the pod events that follow them are carried out here too, in upstream's order.
"""

from __future__ import annotations

from dataclasses import replace

from . import stateful_set_utils as P
from .decisions import (RULES, STEP_CLAIMS_FIX, STEP_CONDEMNED, STEP_HISTORY, STEP_RECREATE, STEP_REPLICAS,
                        STEP_REVISIONS, STEP_STATUS, STEP_UPDATE, Decision, SyncPlan)
from ..api.errors import APIError
from ..api.objects import StatefulSet, StatefulSetStatus
from ..api.profiles import Profile
from .stateful_pod_control import (DEFAULT_BACKOFF_STEPS, VERBS, ObjectManager, canonical_pod_name,
                                   claim_path_verb, is_conflict)

NOT_REACHED = "not reached: an earlier request in this sync failed"


def _do(d: Decision, om: ObjectManager) -> Decision:
    """Carry out one decision; return it marked applied or failed."""
    if d.error:  # a failure the plan already knows about (claim being deleted)
        return replace(d, applied=False)
    verb = VERBS.get(d.action)
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
    verb = claim_path_verb(_claim_run_path(d))
    if errors and verb is not None:
        # UpdateStatefulPod has renamed the pod already (updateIdentity: web-00 is web-0 there)
        om.pod_event(verb, canonical_pod_name(d.pod) if verb == "update" else d.pod, _aggregate(errors))


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


