"""Invariants checked after every sync, and the drivers that check them.

Two kinds of checks:

* Upstream's own invariant functions (``stateful_set_control_test.go``), read
  over the cluster's objects after a sync: :func:`assert_monotonic_invariants`
  (``assertMonotonicInvariants``), :func:`assert_burst_invariants`
  (``assertBurstInvariants``), :func:`assert_update_invariants`
  (``assertUpdateInvariants``) and :func:`check_claim_invariants`
  (``checkClaimInvariants``).  They hold under upstream's harness, where pods
  only move forward; :func:`scale_up_control`, :func:`scale_down_control` and
  :func:`update_control` are that harness (``scaleUpStatefulSetControl``,
  ``scaleDownStatefulSetControl``, ``updateStatefulSetControl``), moving ONE
  pod chosen by a caller-supplied ``pick`` before each sync.
* :class:`SyncChecker`, which holds in ANY history (pods failing, users deleting
  pods, clock jumps, API errors): it wraps ``cluster.sync``, remembers the state
  each sync started from, and checks what the sync decided against it (no
  ordinal twice, OrderedReady creates only behind Running-and-Ready-and-Available
  pods, scale down highest first, nothing below the partition updated, status
  counted from the snapshot).

Every check raises AssertionError naming the pod and the rule.  The checks use
only the cluster's public reads and plain label/volume arithmetic, not the
controller's own predicates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import stsedu
from stsedu.api.objects import controller_of, selector_matches

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"


# ------------------------------------------------------------------ small reads

def set_pods(c: stsedu.Cluster, name: str) -> list[stsedu.Pod]:
    """Pods matching the set's selector, ascending by ordinal (upstream lists pods by selector)."""
    sts = c.statefulset(name)
    pods = [p for p in c.store.list("Pod", sts.namespace) if selector_matches(sts.spec.selector, p.labels)]
    return sorted(pods, key=lambda p: p.ordinal)


def start_ordinal(sts: stsedu.StatefulSet) -> int:
    return sts.spec.start_ordinal


def in_range(sts: stsedu.StatefulSet, ordinal: int) -> bool:
    """``podInOrdinalRange``."""
    start = start_ordinal(sts)
    return start <= ordinal < start + sts.spec.replicas


def running_and_ready(pod: stsedu.Pod) -> bool:
    return pod.phase == "Running" and pod.ready


def available(pod: stsedu.Pod, min_ready_seconds: int, now: float) -> bool:
    """Ready for at least minReadySeconds at *now* (``isRunningAndAvailable``: ``IsPodAvailable``
    tests ``lastTransitionTime + minReadySeconds <= now``)."""
    if not pod.ready:
        return False
    return min_ready_seconds <= 0 or (pod.ready_since is not None and pod.ready_since + min_ready_seconds <= now)


def healthy(pod: stsedu.Pod, min_ready_seconds: int, now: float) -> bool:
    """Running, Ready, Available and not terminating: what lets OrderedReady move past a pod."""
    return running_and_ready(pod) and not pod.terminating and available(pod, min_ready_seconds, now)


def claim_templates(sts: stsedu.StatefulSet) -> list[str]:
    return [t.get("metadata", {}).get("name", "") for t in sts.spec.volume_claim_templates]


def claim_names(sts: stsedu.StatefulSet, pod: stsedu.Pod) -> list[str]:
    """``getPersistentVolumeClaims``: ``<template>-<set>-<ordinal>``."""
    return [f"{t}-{sts.name}-{pod.ordinal}" for t in claim_templates(sts)]


def identity_ok(sts: stsedu.StatefulSet, pod: stsedu.Pod, pod_index_label: bool = True) -> bool:
    """``identityMatches`` (+ the pod-index label every new pod gets since v1.28)."""
    ok = (pod.ordinal >= 0 and pod.parent == sts.name and pod.namespace == sts.namespace
          and pod.labels.get(POD_NAME_LABEL) == pod.name)
    if pod_index_label:
        ok = ok and pod.labels.get(POD_INDEX_LABEL) == str(pod.ordinal)
    return ok


def storage_ok(sts: stsedu.StatefulSet, pod: stsedu.Pod) -> bool:
    """``storageMatches``: every claim template is mounted with its per-pod claim."""
    volumes = {v.get("name"): (v.get("persistentVolumeClaim") or {}).get("claimName")
               for v in pod.spec.get("volumes", ()) or ()}
    return pod.ordinal >= 0 and all(volumes.get(t) == f"{t}-{sts.name}-{pod.ordinal}"
                                    for t in claim_templates(sts))


def has_owner_ref(claim, owner) -> bool:
    """``hasOwnerRef``: some owner reference carries the owner's uid."""
    return any(r.uid == owner.uid for r in claim.owner_references)


# ------------------------------------------------------ upstream's invariants

def check_claim_invariants(sts: stsedu.StatefulSet, pod: stsedu.Pod, claim) -> None:
    """``checkClaimInvariants``: claim owner refs fit the retention policy once the pod is Running and Ready."""
    scaled, deleted = sts.spec.when_scaled, sts.spec.when_deleted
    if claim is None:
        assert scaled != "Retain", f"claim for Pod {pod.name} was not created"
        return
    if not running_and_ready(pod):
        return
    ref_set, ref_pod = has_owner_ref(claim, sts), has_owner_ref(claim, pod)
    condemned = not in_range(sts, pod.ordinal)
    if (scaled, deleted) == ("Retain", "Retain"):
        assert not ref_set, f"claim {claim.name} has unexpected owner ref on {sts.name} for StatefulSet retain"
        assert not ref_pod, f"claim {claim.name} has unexpected owner ref on pod {pod.name} for StatefulSet retain"
    elif (scaled, deleted) == ("Retain", "Delete"):
        assert ref_set, f"claim {claim.name} does not have owner ref on {sts.name} for StatefulSet deletion"
        assert not ref_pod, f"claim {claim.name} has unexpected owner ref on pod {pod.name} for StatefulSet deletion"
    elif (scaled, deleted) == ("Delete", "Retain"):
        assert not ref_set, f"claim {claim.name} has unexpected owner ref on {sts.name} for scaledown only"
        if condemned:
            assert ref_pod, f"claim {claim.name} does not have owner ref on condemned pod {pod.name} for scaledown delete"
        else:
            assert not ref_pod, f"claim {claim.name} has unexpected owner ref on pod {pod.name} for scaledown delete"
    else:  # Delete / Delete
        if condemned:
            assert ref_pod and not ref_set, (f"condemned claim {claim.name} has bad owner refs: "
                                             f"{claim.owner_references}")
        else:
            assert ref_set and not ref_pod, f"live claim {claim.name} has bad owner refs: {claim.owner_references}"


def _storage_identity_claims(c: stsedu.Cluster, name: str, pod: stsedu.Pod, *, claims_must_exist: bool) -> None:
    sts = c.statefulset(name)
    assert storage_ok(sts, pod), f"pod {pod.name} does not match the storage specification of StatefulSet {name}"
    for claim_name in claim_names(sts, pod):
        claim = c.store.get("PersistentVolumeClaim", sts.namespace, claim_name)
        if claims_must_exist:
            assert claim is not None, f'persistentvolumeclaim "{claim_name}" not found (pod {pod.name})'
        check_claim_invariants(sts, pod, claim)
    assert identity_ok(sts, pod, c.profile.pod_index_label), (
        f"pod {pod.name} does not match the identity specification of StatefulSet {name}")


def assert_monotonic_invariants(c: stsedu.Cluster, name: str = "web") -> None:
    """``assertMonotonicInvariants``: no Ready successor of an unready pod, no gaps, storage, claims, identity."""
    sts = c.statefulset(name)
    pods = set_pods(c, name)
    for idx, pod in enumerate(pods):
        if idx > 0 and running_and_ready(pod) and not running_and_ready(pods[idx - 1]):
            raise AssertionError(f"successor {pod.name} is Running and Ready while {pods[idx - 1].name} is not")
        want = idx + start_ordinal(sts)
        assert pod.ordinal == want, f"pods {pod.name} deployed in the wrong order {want}"
        _storage_identity_claims(c, name, pod, claims_must_exist=False)


def assert_burst_invariants(c: stsedu.Cluster, name: str = "web") -> None:
    """``assertBurstInvariants``: storage, every claim exists and fits the policy, identity."""
    for pod in set_pods(c, name):
        _storage_identity_claims(c, name, pod, claims_must_exist=True)


def assert_update_invariants(c: stsedu.Cluster, name: str = "web") -> None:
    """``assertUpdateInvariants``: the burst checks, then the lowest ``currentReplicas`` pods carry
    ``currentRevision`` and the highest ``updatedReplicas`` pods carry ``updateRevision``.

    Terminating pods are left out of the revision checks: upstream's fake client
    removes a deleted pod at once, so its update harness never sees one.
    """
    assert_burst_invariants(c, name)
    sts = c.statefulset(name)
    if sts.spec.update_strategy == "OnDelete":
        return
    pods = [p for p in set_pods(c, name) if not p.terminating]
    st = sts.status
    for pod in pods[:st.current_replicas]:
        assert pod.revision == st.current_revision, (
            f"pod {pod.name} want current revision {st.current_revision} got {pod.revision}")
    for pod in pods[len(pods) - st.updated_replicas:] if st.updated_replicas else []:
        assert pod.revision == st.update_revision, (
            f"pod {pod.name} want update revision {st.update_revision} got {pod.revision}")


# ------------------------------------------------------------ upstream's harness

Pick = Callable[[int], int]
"""``pick(n)`` returns an index in ``range(n)``: which pod the harness moves (upstream: ``rand.Int63n``)."""

MAX_STEPS = 400


def _advance_one(c: stsedu.Cluster, pods: list[stsedu.Pod], pick: Pick, *, finish_terminating: bool) -> bool:
    """Move ONE pod chosen by *pick* one step forward (Pending -> Running -> Ready); False if it could not move."""
    if not pods:
        return False
    pod = pods[pick(len(pods))]
    if pod.terminating:
        if finish_terminating:
            c.kubelet.finish_termination(pod.name)
            return True
        return False
    if pod.phase == "Pending":
        c.kubelet.start(pod.name)
    elif pod.phase == "Running" and not pod.ready:
        c.kubelet.set_ready(pod.name)
    else:
        return False
    return True


def scale_up_control(c: stsedu.Cluster, name: str, pick: Pick, invariants) -> list:
    """``scaleUpStatefulSetControl``: while readyReplicas < replicas, move one random pod a step
    (Pending -> Running, Running -> Ready), sync, check the invariants."""
    results = []
    for _ in range(MAX_STEPS):
        sts = c.statefulset(name)
        if sts.status.ready_replicas >= sts.spec.replicas:
            break
        movable = [p for p in set_pods(c, name) if not p.terminating
                   and (p.phase == "Pending" or (p.phase == "Running" and not p.ready))]
        if movable:  # upstream picks among all pods; a pick that cannot move only repeats a sync
            _advance_one(c, movable, pick, finish_terminating=False)
        results.append(c.sync(name))
        invariants(c, name)
    else:
        raise AssertionError(f"scale up of {name} did not finish in {MAX_STEPS} steps")
    invariants(c, name)
    return results


def scale_down_control(c: stsedu.Cluster, name: str, invariants) -> list:
    """``scaleDownStatefulSetControl``: while status.replicas > replicas: sync, let the highest
    pod terminate, sync, remove it, sync, check."""
    results = []
    for _ in range(MAX_STEPS):
        sts = c.statefulset(name)
        if sts.status.replicas <= sts.spec.replicas and results:
            break
        pods = set_pods(c, name)
        if pods:
            results.append(c.sync(name))
            highest = set_pods(c, name)[-1]
            results.append(c.sync(name))
            if highest.terminating or c.pod(highest.name).terminating:
                c.kubelet.finish_termination(highest.name)
        results.append(c.sync(name))
        invariants(c, name)
    else:
        raise AssertionError(f"scale down of {name} did not finish in {MAX_STEPS} steps")
    invariants(c, name)
    return results


def update_complete(c: stsedu.Cluster, name: str) -> bool:
    """``updateComplete``: every pod there and Ready, and every pod from the partition up updated."""
    sts = c.statefulset(name)
    pods = set_pods(c, name)
    n = sts.spec.replicas
    if len(pods) != n or sts.status.ready_replicas != n:
        return False
    if sts.spec.update_strategy == "OnDelete":
        return True
    ru = sts.spec.rolling_update
    if ru is None or ru.partition <= 0:
        return (sts.status.current_replicas >= n
                and all(p.revision == sts.status.current_revision for p in pods))
    # upstream requires len(pods) >= partition; a partition above replicas is simply "nothing to update"
    return all(p.revision == sts.status.update_revision for p in pods[ru.partition:])


def update_control(c: stsedu.Cluster, name: str, pick: Pick, invariants) -> list:
    """``updateStatefulSetControl``: sync, then until the update is complete move one random pod
    (a terminating one disappears, as in upstream's fake client), sync, check."""
    results = [c.sync(name)]
    invariants(c, name)
    for _ in range(MAX_STEPS):
        if update_complete(c, name):
            break
        movable = [p for p in set_pods(c, name) if p.terminating or p.phase == "Pending"
                   or (p.phase == "Running" and not p.ready)]
        if movable:
            _advance_one(c, movable, pick, finish_terminating=True)
        results.append(c.sync(name))
        invariants(c, name)
    else:
        raise AssertionError(f"update of {name} did not finish in {MAX_STEPS} steps")
    invariants(c, name)
    return results


def delete_failed_condemned(c: stsedu.Cluster, name: str) -> list[str]:
    """Delete (as a person would) the set's Failed/Succeeded pods outside its ordinal range.

    Upstream's OrderedReady scale down deletes only the lowest unhealthy condemned pod
    (``processCondemned`` waits on every other one that is not Running and Ready), and a
    Failed pod never becomes Ready, so with two Failed condemned pods it waits forever; only
    a ``kubectl delete pod`` gets it going.  Returns the names deleted.
    """
    sts = c.statefulset(name)
    start = sts.spec.start_ordinal if c.profile.start_ordinal else 0
    gone = []
    for p in c.pods(name):
        if p.phase in ("Failed", "Succeeded") and not p.terminating and not start <= p.ordinal < start + sts.spec.replicas:
            c.delete_pod(p.name)
            gone.append(p.name)
    return gone


def wait_for_availability(c: stsedu.Cluster, name: str) -> bool:
    """Let time pass until the first Ready pod of the set that is not yet Available becomes so.

    Upstream's ``sync`` requeues the set when minReadySeconds > 0 and not every replica is
    available (docs/behaviour.md 1.1 step 5); stsedu only requeues when a pod turns Ready, so a pod
    that was Ready before minReadySeconds was set (or before its set adopted it) leaves
    nothing scheduled (reported; see test_run_requeues_for_availability).  The drivers stand in
    for that requeue.  Returns True if the clock moved.
    """
    sts = c.statefulset(name)
    mrs = sts.spec.min_ready_seconds if c.profile.min_ready_seconds else 0
    waits = [p.ready_since + mrs for p in c.pods(name)
             if mrs > 0 and p.ready and not p.terminating and p.ready_since is not None
             and not available(p, mrs, c.now)]
    if not waits:
        return False
    c.advance(max(min(waits) - c.now, 0))
    return True


def run_until_stable(c: stsedu.Cluster, name: str, pick: Pick | None = None, check=None,
                     max_syncs: int = MAX_STEPS) -> list:
    """Drive a manual cluster until nothing more happens: sync, then move ONE pod one step
    (terminating -> gone, Pending -> Running, Running -> Ready), chosen by *pick* (lowest
    first if None), like upstream's harness; when no pod can move and the sync changed
    nothing, delete Failed pods outside the range (:func:`delete_failed_condemned`), or
    let time pass to the next scheduled event (minReadySeconds), as ``run`` does.  *check(cluster, name)* runs after every sync.
    Returns the SyncResults; raise AssertionError if it does not settle in *max_syncs*."""
    results = []
    for _ in range(max_syncs):
        r = c.sync(name)
        results.append(r)
        if check is not None:
            check(c, name)
        # the set's pods, and pods named like them that it does not own (a terminating orphan
        # blocks the creation of its name until it is gone)
        pods = sorted((p for p in c.store.list("Pod", c.statefulset(name).namespace) if p.parent == name),
                      key=lambda p: p.ordinal)
        movable = [p for p in pods if p.terminating or (p.owner == name and (
            p.phase == "Pending" or (p.phase == "Running" and not p.ready)))]
        if movable:
            _advance_one(c, movable, pick or (lambda n: 0), finish_terminating=True)
            continue
        if not r.changed and r.error is None and delete_failed_condemned(c, name):
            continue
        if not r.changed and r.error is None:
            nxt = c.clock.peek()  # e.g. a pod turning Available after minReadySeconds
            if nxt is not None:
                c.advance(max(nxt - c.now, 0))
                continue
            if wait_for_availability(c, name):
                continue
            return results
    raise AssertionError(f"{name} did not settle in {max_syncs} syncs")


# ------------------------------------------------ invariants of any history


@dataclass
class Before:
    """What a sync started from (the informer cache at sync start)."""

    sts: stsedu.StatefulSet
    pods: dict[int, stsedu.Pod]
    revisions: set[str]
    now: float


class SyncChecker:
    """Wraps ``cluster.sync`` so that every sync (also those ``run`` makes) is checked.

    After each sync of *name* it checks, against the state the sync began from:

    1. no two pods of the set with the same ordinal, every pod with its identity
       and storage (``identityMatches``, ``storageMatches``);
    2. OrderedReady creates at most one pod, inside the ordinal range, and only
       when every lower ordinal is Running, Ready, Available and not terminating
       (``processReplica``); no set creates a pod that existed;
    3. scale down deletes only condemned pods, highest first; OrderedReady
       deletes at most one, only when no higher condemned pod is left and every
       slot of the range is healthy (``processCondemned``);
    4. a rolling update deletes only pods at or above the partition that are not
       at the update revision, never with OnDelete; a new pod gets the revision
       ``newVersionedStatefulSetPod`` names (below the partition: current);
    5. the status is counted from the snapshot (replicas, ready, available,
       updated; current minus update deletions, or promoted), observedGeneration
       is the set's generation, and it is stored unless the write failed (or, in
       a profile that skips it, the sync failed).

    ``checker.syncs`` counts the checked syncs.  Use as ``SyncChecker(c).install()``.
    """

    def __init__(self, cluster: stsedu.Cluster, name: str = "web") -> None:
        self.c = cluster
        self.name = name
        self.syncs = 0
        self._sync = cluster.sync

    def install(self) -> "SyncChecker":
        self.c.sync = self.sync  # run() calls self.sync, so it is checked too
        return self

    def before(self) -> Before:
        c, sts = self.c, self.c.statefulset(self.name)
        pods = {}
        for p in c.store.list("Pod", sts.namespace):
            if not (selector_matches(sts.spec.selector, p.labels) and p.parent == self.name):
                continue
            ref = controller_of(p.owner_references)
            # claimed (ours), or an orphan this sync will adopt (ClaimPods)
            if (ref is not None and ref.uid == sts.uid) or (
                    ref is None and p.deletion_timestamp is None and sts.deletion_timestamp is None):
                assert p.ordinal not in pods, f"two pods with ordinal {p.ordinal}"
                pods[p.ordinal] = p
        return Before(sts, pods, {r.name for r in c.revisions(self.name)}, c.now)

    def sync(self, name: str, namespace: str = "default"):
        if name != self.name:
            return self._sync(name, namespace)
        b = self.before()
        result = self._sync(name, namespace)
        self.syncs += 1
        self.check(b, result)
        return result

    # ------------------------------------------------------------------ checks
    def check(self, b: Before, r) -> None:
        c, sts0 = self.c, b.sts
        sts = c.statefulset(self.name)
        mrs = sts0.spec.min_ready_seconds if c.profile.min_ready_seconds else 0
        start = sts0.spec.start_ordinal if c.profile.start_ordinal else 0
        end = start + sts0.spec.replicas
        monotonic = sts0.spec.pod_management_policy != "Parallel"
        where = f"sync {r.sync} at t={r.time}"

        # 1. ordinals, identity, storage of the pods the set controls
        seen = set()
        for p in set_pods(c, self.name):
            ref = controller_of(p.owner_references)
            if ref is None or ref.uid != sts.uid:
                continue  # another set's pod under an overlapping selector, or an orphan
            assert p.ordinal not in seen, f"{where}: two pods with ordinal {p.ordinal}"
            seen.add(p.ordinal)
            assert identity_ok(sts, p, c.profile.pod_index_label), f"{where}: {p.name} lost its identity"
            assert storage_ok(sts, p), f"{where}: {p.name} does not mount its claims"

        applied = [d for d in r.decisions if d.applied]
        creates = [d for d in applied if d.action == "create"]
        attempted_creates = [d for d in r.decisions if d.action == "create"]
        deletes = [d for d in applied if d.action == "delete"]

        # 2. creates
        for d in creates:
            o = _ordinal(d.pod)
            assert start <= o < end, f"{where}: created {d.pod} outside the ordinal range [{start}, {end})"
            assert o not in b.pods, f"{where}: created {d.pod}, which already existed"
            if monotonic:
                for j in range(start, o):
                    p = b.pods.get(j)
                    assert p is not None and healthy(p, mrs, b.now), (
                        f"{where}: OrderedReady created {d.pod} while {self.name}-{j} was "
                        f"{'missing' if p is None else p.status_text + (' (not Ready)' if not p.ready else '')}"
                        f"{'' if p is None or available(p, mrs, b.now) else ' (not Available)'}")
        if monotonic:
            assert len(attempted_creates) <= 1, f"{where}: OrderedReady tried {len(attempted_creates)} creates"

        # 3. scale down
        down = [d for d in deletes if d.reason == "scale-down"]
        ords = [_ordinal(d.pod) for d in down]
        assert ords == sorted(ords, reverse=True), f"{where}: scale down out of order: {ords}"
        for d, o in zip(down, ords):
            assert not start <= o < end, f"{where}: scale-down deleted {d.pod}, inside the range"
            assert not b.pods[o].terminating, f"{where}: deleted {d.pod} twice"
        if monotonic and down:
            assert len(down) == 1, f"{where}: OrderedReady deleted {len(down)} pods for scale down"
            o = ords[0]
            higher = [p.name for k, p in b.pods.items() if k > o and not start <= k < end]
            assert not higher, f"{where}: deleted {down[0].pod} while higher condemned {higher} remained"
            for j in range(start, end):
                p = b.pods.get(j)
                assert p is not None and healthy(p, mrs, b.now), (
                    f"{where}: OrderedReady scaled down {down[0].pod} while {self.name}-{j} was not healthy")
        failed = [d for d in deletes if d.reason == "failed"]
        for d in failed:
            assert b.pods[_ordinal(d.pod)].phase in ("Failed", "Succeeded"), f"{where}: deleted healthy {d.pod}"

        # 4. rolling update and revisions of new pods
        update_rev = r.status.update_revision if r.status is not None else None
        ru = sts0.spec.rolling_update
        partition = ru.partition if ru is not None else 0
        updates = [d for d in deletes if d.reason == "update"]
        if updates:
            assert sts0.spec.update_strategy == "RollingUpdate", f"{where}: OnDelete set deleted {updates[0].pod}"
        created_now = {_ordinal(d.pod): d.payload for d in creates}
        for d in updates:
            o = _ordinal(d.pod)
            assert start + partition <= o < end, (
                f"{where}: rolling update deleted {d.pod}, below the partition {partition}")
            # a pod this very sync created at the current revision is deleted too (upstream deletes
            # its in-memory replicas[i]; happens with type RollingUpdate and no rollingUpdate block)
            target = b.pods.get(o) or created_now.get(o)
            assert target is not None, f"{where}: deleted {d.pod}, which did not exist"
            assert target.revision != update_rev, f"{where}: deleted {d.pod}, already at {update_rev}"
            assert not target.terminating, f"{where}: deleted terminating {d.pod}"
        if update_rev is not None and creates:
            current = sts0.status.current_revision if sts0.status.current_revision in b.revisions else update_rev
            for d in creates:
                o = _ordinal(d.pod)
                use_current = ((sts0.spec.update_strategy == "RollingUpdate" and ru is None
                                and o < start + sts0.status.current_replicas)
                               or (ru is not None and o < start + partition))
                want = current if use_current else update_rev
                got = c.pod(d.pod).revision if c.store.get("Pod", sts.namespace, d.pod) else None
                assert got in (None, want), f"{where}: created {d.pod} at {got}, want {want}"

        # 5. status
        if r.status is not None:
            self._check_status(b, r, mrs, len(updates), where)
        write = [d for d in r.decisions if d.action == "status"]
        if write and write[0].applied:
            assert (sts.status.replicas, sts.status.update_revision) == (
                r.status.replicas, r.status.update_revision), f"{where}: written status not stored"
        failed_before = [d for d in r.decisions if d.applied is False and d.action != "status"
                         and d.step != "history"]
        if failed_before and not c.profile.update_in_steps:
            assert not write, f"{where}: {c.profile.name} wrote status after a failed request"

    def _check_status(self, b: Before, r, mrs: int, update_deletes: int, where: str) -> None:
        st = r.status
        c, sts0 = self.c, b.sts
        claimed = [p for p in b.pods.values() if p.ordinal >= 0]
        created = [p for p in claimed if p.phase]
        if c.profile.name == "v1.16":
            return  # v1.16 counts the pods the sync created too (docs/behaviour.md section 2)
        assert st.observed_generation == sts0.generation, f"{where}: observedGeneration {st.observed_generation}"
        assert st.replicas == len(created), f"{where}: status.replicas {st.replicas} != {len(created)} created pods"
        ready = [p for p in created if running_and_ready(p)]
        assert st.ready_replicas == len(ready), f"{where}: readyReplicas {st.ready_replicas} != {len(ready)}"
        avail = [p for p in ready if available(p, mrs, b.now)]
        assert st.available_replicas == len(avail), f"{where}: availableReplicas {st.available_replicas} != {len(avail)}"
        live = [p for p in created if not p.terminating]
        updated = sum(p.revision == st.update_revision for p in live)
        assert st.updated_replicas == updated, f"{where}: updatedReplicas {st.updated_replicas} != {updated}"
        promoted = (st.current_revision == st.update_revision and st.updated_replicas == sts0.spec.replicas
                    == st.ready_replicas == st.replicas)
        if not promoted:
            current = sum(p.revision == st.current_revision for p in live) - update_deletes
            assert st.current_replicas == current, f"{where}: currentReplicas {st.current_replicas} != {current}"
        else:
            assert st.current_replicas == st.updated_replicas
        assert 0 <= st.available_replicas <= st.ready_replicas <= st.replicas, f"{where}: counters {st}"
        assert st.update_revision in {rv.name for rv in c.store.list("ControllerRevision", sts0.namespace)}, (
            f"{where}: update revision {st.update_revision} is not stored")


def _ordinal(pod_name: str) -> int:
    return int(pod_name.rsplit("-", 1)[1])


def converged(c: stsedu.Cluster, name: str = "web") -> None:
    """Assert the set reached its spec: pods ``start..start+replicas-1`` all Running, Ready, not
    terminating; status counting them; RollingUpdate pods from the partition up at the update
    revision (all pods, and currentRevision promoted, when the partition is 0)."""
    sts = c.statefulset(name)
    start = sts.spec.start_ordinal if c.profile.start_ordinal else 0
    n = sts.spec.replicas
    pods = c.pods(name)
    assert [p.ordinal for p in pods] == list(range(start, start + n)), (
        f"pods {[p.name for p in pods]}, want ordinals {start}..{start + n - 1}")
    bad = [p.name for p in pods if not running_and_ready(p) or p.terminating]
    assert not bad, f"not Running and Ready: {bad}"
    st = sts.status
    assert (st.replicas, st.ready_replicas) == (n, n), f"status {st}"
    assert st.observed_generation == sts.generation
    if sts.spec.update_strategy == "RollingUpdate":
        ru = sts.spec.rolling_update
        p = ru.partition if ru is not None else 0
        stale = [x.name for x in pods[p:] if x.revision != st.update_revision]
        assert not stale, f"not updated to {st.update_revision}: {stale}"
        assert st.updated_replicas >= max(n - p, 0)
        if p == 0:
            assert st.current_revision == st.update_revision and st.current_replicas == n, f"not promoted: {st}"
