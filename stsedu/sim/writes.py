"""The object writes of the cluster, with their side effects and the injected API errors.

What the API server and the watching components do when an object is
written: a created pod gets the API server's pod defaults and starts Pending
(and the kubelet hears of it), a deleted pod turns terminating (or goes at
once with a zero grace period), a removal wakes the garbage collector, and a
pod that turns Ready requeues its set once it can be Available.  The
controller's requests go through :meth:`Writes.check_fault` first, where
``Cluster.inject_error`` makes them fail.

:class:`Writes` takes the store, the clock and the trace; the kubelet and the
garbage collector are attached once they are made (they write through it).
Nothing here knows the ``Cluster`` facade.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from ..api.defaults import default_pod
from ..api.errors import APIError, ValidationError
from ..api.validation.pod import validate_pod_only
from ..api.objects import Pod, StatefulSet
from ..api.pod_util import is_pod_available
from .clock import LATE


@dataclass
class Fault:
    """A simulated API failure: after *after* requests of *verb* on *kind* succeed, *count* fail."""

    verb: str
    kind: str
    count: int
    reason: str = "InternalError"
    after: int = 0


class Writes:
    """Pod writes with their side effects, availability requeues and fault injection."""

    def __init__(self, store, clock, trace, profile) -> None:
        self.store = store
        self.clock = clock
        self.trace = trace
        self.profile = profile
        self.kubelet = None
        """The kubelet told of created and deleted pods (attached by the cluster)."""
        self.gc = None
        """The garbage collector woken by removals (attached by the cluster)."""
        self.faults: list[Fault] = []
        self._seq = 0
        self._requeues: set = set()
        store.listeners.append(self._on_write)

    @property
    def now(self) -> float:
        return self.clock.now

    # ------------------------------------------------------------------ reads
    def with_availability(self, pod: Pod) -> Pod:
        """*pod* with ``available`` as of now (honours its set's minReadySeconds)."""
        mrs = 0
        owner = pod.owner
        if owner is not None and self.profile.min_ready_seconds:
            sts = self.store.get("StatefulSet", pod.namespace, owner)
            if sts is not None:
                mrs = sts.spec.min_ready_seconds
        avail = pod.phase == "Running" and is_pod_available(pod, mrs, self.now)
        return pod if avail == pod.available else replace(pod, available=avail)

    def pod(self, name: str, namespace: str = "default") -> Pod:
        """One stored pod, availability as of now.  Raise KeyError if there is none."""
        pod = self.store.get("Pod", namespace, name)
        if pod is None:
            raise KeyError(f'pods "{name}" not found')
        return self.with_availability(pod)

    def pods(self, namespace: str = "default") -> list[Pod]:
        """The namespace's pods by set and ordinal, availability as of now."""
        return sorted((self.with_availability(p) for p in self.store.list("Pod", namespace)),
                      key=lambda p: (p.parent, p.ordinal, p.name))

    # ----------------------------------------------------------------- faults
    def check_fault(self, verb: str, kind: str, name: str) -> None:
        """Raise the injected :class:`APIError` due for this request, if any."""
        hit = None
        for f in self.faults:
            if f.verb == verb and f.kind == kind:
                if f.after > 0:  # this fault lets this request through and fails later ones
                    f.after -= 1
                elif hit is None:
                    hit = f
        if hit is not None:
            hit.count -= 1
            if hit.count <= 0:
                self.faults.remove(hit)
            raise APIError(verb, kind, name, reason=hit.reason)

    def next_seq(self) -> int:
        """The next creation number of a revision (orders revisions of the same number)."""
        self._seq += 1
        return self._seq

    # ----------------------------------------------------------------- writes
    def _on_write(self, kind: str, verb: str, old, new) -> None:
        if kind != "Pod":
            if verb == "remove" and self.gc is not None:
                self.gc.trigger()
            return

    def write_pod(self, pod: Pod, cause: str) -> Pod:
        old = self.store.get("Pod", pod.namespace, pod.name)
        stored = self.store.update("Pod", pod)
        self.trace.add_pod(stored, "updated", cause)
        if stored.ready and (old is None or not old.ready):
            self._schedule_availability(stored)
        return stored

    def create_pod(self, pod: Pod, cause: str) -> Pod:
        """Create *pod* as the API server would: with ``SetDefaults_Pod``'s pod-only defaults, Pending.

        Raise APIError (reason Invalid) for what the API server refuses on a pod but not
        in a template (``validateContainersOnlyForPod``: an image with leading or trailing
        whitespace): the controller records a FailedCreate and no pod is made.
        """
        errs = validate_pod_only(pod.spec)
        if errs:
            raise APIError("create", "Pod", pod.name, reason="Invalid",
                           message=str(ValidationError(errs, kind="Pod", name=pod.name)))
        stored = self.store.create("Pod", replace(pod, spec=default_pod(pod.spec), phase="Pending",
                                                  ready=False))
        self.trace.add_pod(stored, "created", cause)
        self.kubelet.on_created(stored)
        return stored

    def update_pod_from(self, pod: Pod, cause: str) -> Pod:
        """Write the controller's repaired labels/volumes onto the stored pod."""
        stored = self.store.get("Pod", pod.namespace, pod.name)
        if stored is None:
            raise APIError("update", "Pod", pod.name, reason="NotFound")
        if pod.uid and stored.uid != pod.uid:  # the API server's uid precondition
            raise APIError("update", "Pod", pod.name, reason="Conflict",
                           message=f'Operation cannot be fulfilled on pods "{pod.name}": Precondition failed: '
                                   f"UID in precondition: {pod.uid}, UID in object meta: {stored.uid}")
        return self.write_pod(replace(stored, labels=pod.labels, spec=pod.spec), cause)

    def delete_pod(self, namespace: str, name: str, cause: str) -> Pod | None:
        pod = self.store.get("Pod", namespace, name)
        if pod is None:
            raise APIError("delete", "Pod", name, reason="NotFound")
        if pod.deletion_timestamp is not None:
            return pod
        if pod.grace_period_seconds == 0:
            self.remove_pod(pod, cause)
            return None
        if pod.grace_period_seconds < 0:  # the pod strategy's CheckGracefulDelete: a negative period is 1 s
            pod = replace(pod, grace_period_seconds=1.0)
        stored = self.store.update("Pod", replace(pod, deletion_timestamp=self.now))
        self.trace.add_pod(stored, "updated", cause)
        self.kubelet.on_deleted(stored)
        return stored

    def remove_pod(self, pod: Pod, cause: str) -> None:
        self.store.remove("Pod", pod.namespace, pod.name)
        self.trace.add_pod(pod, "deleted", cause)
        self.gc.trigger()

    # --------------------------------------------------------------- requeues
    def requeue_for_availability(self, sts: StatefulSet, at: float) -> None:
        """Wake the set at *at*, when ``syncStatefulSet`` planned its next availability check
        (``enqueueSSAfter``; the delay comes from ``next_sync_duration``, checked against the
        real controller's ``requeue_after`` by tests/controller/upstream/test_upstream.py)."""
        key = (sts.namespace, sts.name, at)
        if key in self._requeues:
            return
        self._requeues.add(key)
        self.clock.schedule(at, partial(self._requeues.discard, key), priority=LATE,
                            label=f"controller: requeue {sts.name} (minReadySeconds)")

    def _schedule_availability(self, pod: Pod) -> None:
        """Requeue the owner when the pod becomes Available (``updatePod`` enqueues the set
        minReadySeconds after it sees the pod turn Ready)."""
        owner = pod.owner
        if owner is None or not self.profile.min_ready_seconds:
            return
        sts = self.store.get("StatefulSet", pod.namespace, owner)
        if sts is None or sts.spec.min_ready_seconds <= 0:
            return
        self.clock.schedule(self.now + sts.spec.min_ready_seconds, wake_up, priority=LATE,
                            label=f"controller: requeue {owner} ({pod.name} Available)")


def wake_up() -> None:
    """A scheduled event that only wakes the loop (a pod's minReadySeconds passing): a module
    function rather than a lambda, so a cluster's snapshot can pickle it."""
