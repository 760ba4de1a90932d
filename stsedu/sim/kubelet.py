"""The simulated kubelet: moves pods through their lifecycle.

Two modes:

* ``manual``: nothing moves until the caller calls :meth:`Kubelet.start`,
  :meth:`Kubelet.set_ready`, ... (exercises and exact tests);
* ``auto``: after a pod is created, it starts, then turns Ready, after the
  delays of a :class:`StageProfile` (like KWOK's stages), with optional
  seeded jitter; a deleted pod disappears after its shutdown time.

The same verbs work in both modes, so a learner can intervene in an auto
run (fail a pod, make one never Ready).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

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
        for k, v in d.items():
            if not isinstance(v, (int, float)) or v < 0:
                raise ValueError(f"stage {k!r} must be a number of seconds >= 0, not {v!r}")
        return cls(**{k: float(v) for k, v in d.items()})


def _name(pod) -> str:
    return pod if isinstance(pod, str) else pod.name


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
        self._fail_after: dict[tuple[str, str], float] = {}

    # ------------------------------------------------------------ behaviours
    def never_ready(self, pod: str | None = None, image: str | None = None) -> None:
        """Make a pod (by name) or every pod running *image* never pass its readiness probe."""
        if pod is None and image is None:
            raise ValueError("never_ready needs a pod name or an image")
        if pod is not None:
            self._never_ready_pods.add(_name(pod))
        if image is not None:
            self._never_ready_images.add(image)

    def fail_after(self, seconds: float, pod: str | None = None, image: str | None = None) -> None:
        """Make a pod (or pods running *image*) fail *seconds* after they start Running."""
        if pod is None and image is None:
            raise ValueError("fail_after needs a pod name or an image")
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, not {seconds}")
        if pod is not None:
            self._fail_after[("pod", _name(pod))] = float(seconds)
        if image is not None:
            self._fail_after[("image", image)] = float(seconds)

    def clear_behaviours(self) -> None:
        """Forget never_ready and fail_after settings."""
        self._never_ready_pods.clear()
        self._never_ready_images.clear()
        self._fail_after.clear()

    def _is_never_ready(self, pod: "Pod") -> bool:
        return pod.name in self._never_ready_pods or any(i in self._never_ready_images for i in pod.images())

    def _fail_delay(self, pod: "Pod") -> float | None:
        d = self._fail_after.get(("pod", pod.name))
        if d is None:
            for img in pod.images():
                d = self._fail_after.get(("image", img))
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

        def fire():
            pod = self._writes.store.get("Pod", ns, name)
            if pod is not None and pod.uid == uid:
                fn(pod)
        clock.schedule(clock.now + delay, fire, priority=NORMAL, label=f"kubelet: {what} {name}")

    # ----------------------------------------------------------- manual verbs
    def start(self, pod, namespace: str = "default") -> "Pod":
        """A Pending pod becomes Running (not yet Ready).  Raise ValueError if it is not Pending."""
        p = self._pod(pod, namespace)
        if p.phase != "Pending" or p.terminating:
            raise ValueError(f'pod "{p.name}" is {p.status_text}; start() moves a Pending pod to Running')
        p = self._write(replace(p, phase="Running", started_at=self._writes.now), "started")
        if self.mode == "auto":
            self._after_start(p)
        return p

    def set_ready(self, pod, namespace: str = "default") -> "Pod":
        """The pod's Ready condition becomes True (since now).  Raise ValueError unless Running."""
        p = self._pod(pod, namespace)
        if p.phase != "Running":
            raise ValueError(f'pod "{p.name}" is {p.status_text}; only a Running pod can become Ready')
        if p.ready:
            return p
        return self._write(replace(p, ready=True, ready_since=self._writes.now), "ready")

    def set_unready(self, pod, namespace: str = "default") -> "Pod":
        """The pod's Ready condition becomes False (a failing readiness probe)."""
        p = self._pod(pod, namespace)
        if not p.ready:
            return p
        return self._write(replace(p, ready=False, ready_since=self._writes.now), "not ready")

    def fail(self, pod, namespace: str = "default") -> "Pod":
        """The pod's phase becomes Failed (evicted, node lost, ...)."""
        p = self._pod(pod, namespace)
        if p.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{p.name}" has already ended ({p.phase})')
        return self._write(replace(p, phase="Failed", ready=False, ready_since=self._writes.now),
                           "failed")

    def succeed(self, pod, namespace: str = "default") -> "Pod":
        """The pod's phase becomes Succeeded (all containers exited 0)."""
        p = self._pod(pod, namespace)
        if p.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{p.name}" has already ended ({p.phase})')
        return self._write(replace(p, phase="Succeeded", ready=False, ready_since=self._writes.now),
                           "succeeded")

    def crash(self, pod, namespace: str = "default") -> "Pod":
        """A container crashes and restarts: the pod stays Running, not Ready, restarts + 1."""
        p = self._pod(pod, namespace)
        if p.phase != "Running":
            raise ValueError(f'pod "{p.name}" is {p.status_text}; only a Running pod can crash')
        p = self._write(replace(p, ready=False, ready_since=self._writes.now, restarts=p.restarts + 1),
                        "container restarted")
        if self.mode == "auto" and not self._is_never_ready(p):
            self._later(self._delay(self.stages.ready), p.uid, p.namespace, p.name, "ready",
                        lambda q: self._auto_ready(q))
        return p

    def finish_termination(self, pod, namespace: str = "default") -> None:
        """A terminating pod disappears.  Raise ValueError if it is not terminating."""
        p = self._pod(pod, namespace)
        if not p.terminating:
            raise ValueError(f'pod "{p.name}" is not terminating; delete it first')
        self._writes.remove_pod(p, "kubelet: terminated")

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
                        lambda q: self._writes.remove_pod(q, "kubelet: terminated"))

    def _auto_start(self, pod: "Pod") -> None:
        if pod.phase == "Pending" and not pod.terminating:
            p = self._write(replace(pod, phase="Running", started_at=self._writes.now), "started")
            self._after_start(p)

    def _after_start(self, p: "Pod") -> None:
        if not self._is_never_ready(p):
            self._later(self._delay(self.stages.ready), p.uid, p.namespace, p.name, "ready",
                        self._auto_ready)
        fail = self._fail_delay(p)
        if fail is not None:
            self._later(fail, p.uid, p.namespace, p.name, "fail", self._auto_fail)

    def _auto_ready(self, pod: "Pod") -> None:
        if pod.phase == "Running" and not pod.ready and not pod.terminating:
            self._write(replace(pod, ready=True, ready_since=self._writes.now), "ready")

    def _auto_fail(self, pod: "Pod") -> None:
        if pod.phase == "Running" and not pod.terminating:
            self._write(replace(pod, phase="Failed", ready=False, ready_since=self._writes.now),
                        "failed")
