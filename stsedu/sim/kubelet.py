"""The simulated kubelet: moves pods through their lifecycle.

Two modes:

* ``manual``: nothing moves until the caller calls :meth:`Kubelet.start`,
  :meth:`Kubelet.set_ready`, ... (exercises and exact tests);
* ``auto``: after a pod is created, it starts, then turns Ready, after the
  delays of a :class:`StageProfile` (like KWOK's stages), with optional
  seeded jitter; a deleted pod disappears after its shutdown time.

The same verbs work in both modes, so a learner can intervene in an auto
run (crash a container, evict a pod, make one never Ready).

A StatefulSet's pods have ``restartPolicy: Always``, so a container that
exits is restarted, never given up on: the pod stays ``Running`` (not Ready)
while its container crashes (STATUS ``Error``), waits out the kubelet's
back-off (``CrashLoopBackOff``: 10 s, doubling, at most 300 s; reset once the
container has run for 10 minutes, as the Pod lifecycle page documents) and
starts again (RESTARTS + 1).  Phase ``Failed`` comes only from a named cause,
with ``status.reason`` and ``status.message`` as the kubelet writes them:
node-pressure eviction (``Evicted``), graceful node shutdown (``Terminated``)
and ``activeDeadlineSeconds`` (``DeadlineExceeded``).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..api.arguments import checked, name, one_of, optional, pod_ref, seconds
from ..api.errors import ValidationError
from ..api.objects import detached
from .clock import NORMAL

if TYPE_CHECKING:  # pragma: no cover
    from .writes import Writes
    from ..api.objects import Pod


@dataclass(frozen=True, slots=True)
class StageProfile:
    """Delays, in seconds, of the auto kubelet's stages."""

    start: float = 1.0
    """Pending -> Running (scheduling, image pull, container start)."""
    ready: float = 2.0
    """Running -> Ready (the readiness probe passes)."""
    terminate: float = 1.0
    """Terminating -> gone (graceful shutdown; never longer than the pod's grace period)."""
    jitter: float = 0.0
    """Up to this many seconds added at random (seeded) to each delay."""

    @classmethod
    def from_dict(cls, d: dict | None) -> "StageProfile":
        if not d:
            return cls()
        unknown = set(d) - {"start", "ready", "terminate", "jitter"}
        if unknown:
            raise ValueError(f"unknown stage(s) {sorted(unknown)}; known: start, ready, terminate, jitter")
        errs = [e for k, v in d.items() for e in seconds(v, f"stages.{k}")]
        if errs:
            raise ValidationError(errs, kind="StageProfile")
        return cls(**{k: float(v) for k, v in d.items()})


BACKOFF_INITIAL = 10.0
"""The kubelet's first restart delay for a crashed container (seconds)."""
BACKOFF_MAX = 300.0
"""The restart delay doubles after each crash up to this (5 minutes)."""
BACKOFF_RESET = 600.0
"""A container that ran this long before it crashed starts its back-off again at 10 s."""
STATUS_SYNC = 1.0
"""How long after a crash the kubelet's next pod sync reports the back-off (its relist period)."""

FAILED_CAUSES: dict[str, str] = {
    "Evicted": "The node was low on resource: {resource}. ",
    "Terminated": "Pod was terminated in response to imminent node shutdown.",
    "DeadlineExceeded": "Pod was active on the node longer than the specified deadline",
}
"""``status.reason`` -> ``status.message`` of a Failed pod, as the kubelet writes them
(eviction manager, node shutdown manager, active deadline handler)."""

RESOURCES = ("memory", "ephemeral-storage", "nodefs", "imagefs", "pids")


def _a_cause(value, argument: str):
    return one_of(value, argument, FAILED_CAUSES)


def _a_resource(value, argument: str):
    return one_of(value, argument, RESOURCES)


def backoff_delays(n: int) -> list[float]:
    """The first *n* restart delays of a container that keeps crashing at once: 10, 20, 40 ... 300."""
    return [min(BACKOFF_INITIAL * 2 ** i, BACKOFF_MAX) for i in range(n)]


def _name(pod) -> str:
    return pod if isinstance(pod, str) else pod.name


def _hands_out_a_copy(verb):
    """A manual verb returns the caller's copy of the pod: changing it changes nothing stored."""
    @functools.wraps(verb)
    def wrapper(self, *args, **kwargs):
        return detached(verb(self, *args, **kwargs))
    return wrapper


class Kubelet:
    """Moves pods through Pending, Running, Ready, Terminating and gone."""

    def __init__(self, writes: "Writes", mode: str = "auto", stages: StageProfile | None = None,
                 seed: int = 0) -> None:
        if mode not in ("auto", "manual"):
            raise ValueError(f"kubelet mode must be 'auto' or 'manual', not {mode!r}")
        self.mode = mode
        self.stages = stages or StageProfile()
        self._writes = writes
        self._rng = random.Random(seed)
        self._never_ready_pods: set[str] = set()
        self._never_ready_images: set[str] = set()
        self._crash_after: dict[tuple[str, str], float] = {}
        self._backoff: dict[str, float] = {}
        """Pod uid -> the restart delay its container's last crash got."""
        self._container_started: dict[str, float] = {}
        """Pod uid -> when its container (this instance) started."""
        self._exited_at: dict[str, float] = {}
        """Pod uid -> when its container last exited."""
        self.step_seconds = 0.0
        """Manual mode: simulated seconds each verb takes (the clock moves that much, and the
        garbage collector and requeues due meanwhile act, before the pod changes), so that AGE,
        timelines and "at Ns" mean something when a learner plays the kubelet.  0 (the default)
        keeps every manual step at the same instant, as exact tests want."""

    # ------------------------------------------------------------ behaviours
    @checked("Kubelet", pod=optional(pod_ref), image=optional(name))
    def never_ready(self, pod: str | None = None, image: str | None = None) -> None:
        """Make a pod (by name) or every pod running *image* never pass its readiness probe."""
        if pod is None and image is None:
            raise ValidationError([("pod", "Required value: a pod name or an image")],
                                  kind="Kubelet.never_ready()")
        if pod is not None:
            self._never_ready_pods.add(_name(pod))
        if image is not None:
            self._never_ready_images.add(image)

    @checked("Kubelet", seconds=seconds, pod=optional(pod_ref), image=optional(name))
    def crash_loop(self, seconds: float, pod: str | None = None, image: str | None = None) -> None:
        """Make a pod's container (or that of every pod running *image*) exit with an error
        *seconds* after each start: with ``restartPolicy: Always`` it crash-loops (auto mode)."""
        if pod is None and image is None:
            raise ValidationError([("pod", "Required value: a pod name or an image")],
                                  kind="Kubelet.crash_loop()")
        if pod is not None:
            self._crash_after[("pod", _name(pod))] = float(seconds)
        if image is not None:
            self._crash_after[("image", image)] = float(seconds)

    def fail_after(self, seconds: float, pod: str | None = None, image: str | None = None) -> None:
        """The old name of :meth:`crash_loop` (a container that exits is restarted, not Failed)."""
        self.crash_loop(seconds, pod=pod, image=image)

    def clear_behaviours(self) -> None:
        """Forget never_ready and crash_loop settings."""
        self._never_ready_pods.clear()
        self._never_ready_images.clear()
        self._crash_after.clear()

    def _is_never_ready(self, pod: "Pod") -> bool:
        return pod.name in self._never_ready_pods or any(i in self._never_ready_images for i in pod.images())

    def _crash_delay(self, pod: "Pod") -> float | None:
        d = self._crash_after.get(("pod", pod.name))
        if d is None:
            for img in pod.images():
                d = self._crash_after.get(("image", img))
                if d is not None:
                    break
        return d

    # --------------------------------------------------------------- helpers
    def _pod(self, pod, namespace: str) -> "Pod":
        return self._writes.pod(_name(pod), namespace=namespace)

    def _write(self, pod: "Pod", cause: str) -> "Pod":
        return self._writes.write_pod(pod, f"kubelet: {cause}")

    def _delay(self, base: float) -> float:
        if self.stages.jitter > 0:
            return base + self._rng.uniform(0, self.stages.jitter)
        return base

    def _later(self, delay: float, uid: str, ns: str, name: str, what: str, fn) -> None:
        clock = self._writes.clock
        clock.schedule(clock.now + delay, functools.partial(self._fire, uid, ns, name, fn), priority=NORMAL,
                       label=f"kubelet: {what} {name}")

    def _fire(self, uid: str, ns: str, name: str, fn) -> None:
        """A scheduled step: *fn* on the pod, if it is still the one (*uid*) it was scheduled for
        (a method and its arguments, not a closure: a cluster's snapshot pickles it)."""
        pod = self._writes.store.get("Pod", ns, name)
        if pod is not None and pod.uid == uid:
            fn(pod)

    def _tick(self) -> None:
        """A manual verb takes :attr:`step_seconds` (called once the verb is known to be allowed)."""
        if self.mode == "manual" and self.step_seconds > 0:
            self._writes.clock.advance_to(self._writes.now + self.step_seconds)

    # ----------------------------------------------------------- manual verbs
    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def start(self, pod, namespace: str = "default") -> "Pod":
        """A Pending pod becomes Running (not yet Ready).  Raise ValueError if it is not Pending."""
        p = self._pod(pod, namespace)
        if p.phase != "Pending" or p.terminating:
            raise ValueError(f'pod "{p.name}" is {p.status_text}; start() moves a Pending pod to Running')
        self._tick()
        p = self._write(replace(p, phase="Running", started_at=self._writes.now), "started")
        if self.mode == "auto":
            self._after_start(p)
        return p

    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def set_ready(self, pod, namespace: str = "default") -> "Pod":
        """The pod's Ready condition becomes True (since now).  Raise ValueError unless Running."""
        p = self._pod(pod, namespace)
        if p.phase != "Running":
            raise ValueError(f'pod "{p.name}" is {p.status_text}; only a Running pod can become Ready')
        if p.container_state:
            raise ValueError(f'pod "{p.name}" is {p.status_text}: its container has crashed; restart() it first')
        if p.ready:
            return p
        self._tick()
        return self._write(replace(p, ready=True, ready_since=self._writes.now), "ready")

    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def set_unready(self, pod, namespace: str = "default") -> "Pod":
        """The pod's Ready condition becomes False (a failing readiness probe)."""
        p = self._pod(pod, namespace)
        if not p.ready:
            return p
        self._tick()
        return self._write(replace(p, ready=False, ready_since=self._writes.now), "not ready")

    @checked("Kubelet", pod=pod_ref, namespace=name, reason=_a_cause, resource=_a_resource)
    @_hands_out_a_copy
    def fail(self, pod, namespace: str = "default", reason: str = "Evicted", resource: str = "memory") -> "Pod":
        """The pod's phase becomes Failed, for a named cause (*reason*, with the kubelet's message).

        ``Evicted`` (node-pressure eviction; *resource* is what the node ran low on),
        ``Terminated`` (graceful node shutdown) or ``DeadlineExceeded`` (the pod's
        ``activeDeadlineSeconds`` passed).  Its containers are stopped, it is not Ready.
        """
        p = self._pod(pod, namespace)
        if p.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{p.name}" has already ended ({p.phase})')
        self._tick()
        return self._failed(p, reason, FAILED_CAUSES[reason].format(resource=resource))

    @checked("Kubelet", pod=pod_ref, namespace=name, resource=_a_resource)
    def evict(self, pod, namespace: str = "default", resource: str = "memory") -> "Pod":
        """Node-pressure eviction: phase Failed, reason ``Evicted``, ``The node was low on resource: memory.``"""
        return self.fail(pod, namespace, reason="Evicted", resource=resource)

    @checked("Kubelet", pod=pod_ref, namespace=name)
    def shut_down_node(self, pod, namespace: str = "default") -> "Pod":
        """Graceful node shutdown of the pod's node: phase Failed, reason ``Terminated``."""
        return self.fail(pod, namespace, reason="Terminated")

    def _failed(self, p: "Pod", reason: str, message: str) -> "Pod":
        return self._write(replace(p, phase="Failed", ready=False, container_state="",
                                   ready_since=self._writes.now if p.ready else p.ready_since,
                                   reason=reason, message=message), f"failed ({reason})")

    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def succeed(self, pod, namespace: str = "default") -> "Pod":
        """The pod's phase becomes Succeeded (all containers exited 0)."""
        p = self._pod(pod, namespace)
        if p.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{p.name}" has already ended ({p.phase})')
        self._tick()
        return self._write(replace(p, phase="Succeeded", ready=False, ready_since=self._writes.now),
                           "succeeded")

    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def crash(self, pod, namespace: str = "default") -> "Pod":
        """The pod's container exits with an error: STATUS ``Error``, not Ready, phase still Running.

        In auto mode the kubelet then backs off (``CrashLoopBackOff``) and restarts it
        (:data:`BACKOFF_INITIAL` s, doubling per crash up to :data:`BACKOFF_MAX`); in manual
        mode call :meth:`restart` (or :meth:`step`).  Raise ValueError unless its container runs.
        """
        p = self._pod(pod, namespace)
        if p.phase != "Running" or p.terminating or p.container_state:
            raise ValueError(f'pod "{p.name}" is {p.status_text}; only a running container can crash')
        self._tick()
        return self._crashed(p)

    @checked("Kubelet", pod=pod_ref, namespace=name)
    @_hands_out_a_copy
    def restart(self, pod, namespace: str = "default") -> "Pod":
        """The kubelet starts a crashed container again: Running (not Ready), restarts + 1.

        Raise ValueError unless the pod's container has crashed (``Error`` or ``CrashLoopBackOff``).
        """
        p = self._pod(pod, namespace)
        if p.phase != "Running" or p.terminating or not p.container_state:
            raise ValueError(f'pod "{p.name}" is {p.status_text}; restart() restarts a crashed container')
        self._tick()
        return self._restarted(p)

    def _crashed(self, p: "Pod") -> "Pod":
        now = self._writes.now
        ran = now - self._container_started.get(p.uid, p.started_at or now)
        prev = self._backoff.get(p.uid)
        delay = BACKOFF_INITIAL if prev is None or ran >= BACKOFF_RESET else min(prev * 2, BACKOFF_MAX)
        self._backoff[p.uid] = delay
        self._exited_at[p.uid] = now
        p = self._write(replace(p, ready=False, ready_since=now if p.ready else p.ready_since,
                                container_state="Error"), "container exited (Error)")
        if self.mode == "auto":
            self._later(STATUS_SYNC, p.uid, p.namespace, p.name, "back-off", self._auto_back_off)
            self._later(delay, p.uid, p.namespace, p.name, "restart", self._auto_restart)
        return p

    def _back_off(self, p: "Pod") -> "Pod":
        return self._write(replace(p, container_state="CrashLoopBackOff",
                                   last_exit_at=self._exited_at.get(p.uid, self._writes.now)),
                           f"back-off {self._backoff.get(p.uid, BACKOFF_INITIAL):g}s restarting failed container")

    def _restarted(self, p: "Pod") -> "Pod":
        now = self._writes.now
        self._container_started[p.uid] = now
        p = self._write(replace(p, container_state="", restarts=p.restarts + 1,
                                last_exit_at=self._exited_at.get(p.uid, now)), "container restarted")
        if self.mode == "auto":
            self._after_container_start(p)
        return p

    @checked("Kubelet", pod=pod_ref, namespace=name)
    def finish_termination(self, pod, namespace: str = "default") -> None:
        """A terminating pod disappears.  Raise ValueError if it is not terminating."""
        p = self._pod(pod, namespace)
        if not p.terminating:
            raise ValueError(f'pod "{p.name}" is not terminating; delete it first')
        self._tick()
        self._writes.remove_pod(p, "kubelet: terminated")

    @checked("Kubelet", namespace=name)
    def step(self, namespace: str = "default") -> str | None:
        """Move ONE pod one stage, lowest ordinal first; say what moved (None if nothing could).

        A terminating pod disappears; else a Pending pod starts; else a Running
        pod turns Ready (unless made never-ready).  Upstream's test harness
        advances pods the same way between syncs.
        """
        for pod in self._writes.pods(namespace):
            if pod.terminating:
                self.finish_termination(pod.name, namespace)
                return f"{pod.name} is gone"
            if pod.phase == "Pending":
                self.start(pod.name, namespace)
                return f"{pod.name} started (Running)"
            if pod.phase == "Running" and pod.container_state == "Error":
                self._tick()
                self._back_off(pod)
                return f"{pod.name} is in CrashLoopBackOff"
            if pod.phase == "Running" and pod.container_state:
                self.restart(pod.name, namespace)
                return f"{pod.name}'s container restarted"
            if pod.phase == "Running" and not pod.ready and not self._is_never_ready(pod):
                self.set_ready(pod.name, namespace)
                return f"{pod.name} is Ready"
        return None

    # ------------------------------------------------------------ auto hooks
    def on_created(self, pod: "Pod") -> None:
        """Called by the cluster when a pod is created."""
        if self.mode == "auto":
            self._later(self._delay(self.stages.start), pod.uid, pod.namespace, pod.name, "start",
                        self._auto_start)

    def on_deleted(self, pod: "Pod") -> None:
        """Called by the cluster when a pod becomes terminating."""
        if self.mode == "auto":
            delay = min(self._delay(self.stages.terminate), pod.grace_period_seconds)
            self._later(delay, pod.uid, pod.namespace, pod.name, "terminate",
                        self._auto_terminated)

    def _auto_terminated(self, pod: "Pod") -> None:
        self._writes.remove_pod(pod, "kubelet: terminated")

    def _auto_start(self, pod: "Pod") -> None:
        if pod.phase == "Pending" and not pod.terminating:
            p = self._write(replace(pod, phase="Running", started_at=self._writes.now), "started")
            self._after_start(p)

    def on_patched(self, pod: "Pod") -> None:
        """Called by the cluster after a user patched a pod (its ``activeDeadlineSeconds`` may be new)."""
        if self.mode == "auto":
            self._watch_deadline(pod)

    def _watch_deadline(self, p: "Pod") -> None:
        """The active deadline handler: fail the pod once it has been active *activeDeadlineSeconds*."""
        deadline = p.spec.get("activeDeadlineSeconds")
        if deadline is None or p.started_at is None or p.phase != "Running":
            return
        due = max(0.0, p.started_at + deadline - self._writes.now)
        self._later(due, p.uid, p.namespace, p.name, "active deadline", self._auto_deadline)

    def _auto_deadline(self, pod: "Pod") -> None:
        deadline = pod.spec.get("activeDeadlineSeconds")
        if (pod.phase == "Running" and not pod.terminating and deadline is not None
                and pod.started_at is not None and self._writes.now >= pod.started_at + deadline):
            self._failed(pod, "DeadlineExceeded", FAILED_CAUSES["DeadlineExceeded"])

    def _after_start(self, p: "Pod") -> None:
        self._container_started[p.uid] = self._writes.now
        self._after_container_start(p)
        self._watch_deadline(p)

    def _after_container_start(self, p: "Pod") -> None:
        if not self._is_never_ready(p):
            self._later(self._delay(self.stages.ready), p.uid, p.namespace, p.name, "ready",
                        self._auto_ready)
        crash = self._crash_delay(p)
        if crash is not None:
            started = self._container_started[p.uid]
            self._later(crash, p.uid, p.namespace, p.name, "crash",
                        functools.partial(self._auto_crash, started=started))

    def _auto_ready(self, pod: "Pod") -> None:
        if pod.phase == "Running" and not pod.ready and not pod.terminating and not pod.container_state:
            self._write(replace(pod, ready=True, ready_since=self._writes.now), "ready")

    def _auto_crash(self, pod: "Pod", started: float) -> None:
        # only the container instance this crash was scheduled for (not one restarted since)
        if (pod.phase == "Running" and not pod.terminating and not pod.container_state
                and self._container_started.get(pod.uid) == started):
            self._crashed(pod)

    def _auto_back_off(self, pod: "Pod") -> None:
        if pod.phase == "Running" and not pod.terminating and pod.container_state == "Error":
            self._back_off(pod)

    def _auto_restart(self, pod: "Pod") -> None:
        if pod.phase == "Running" and not pod.terminating and pod.container_state:
            self._restarted(pod)
