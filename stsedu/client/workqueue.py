"""The controller's work queue, on simulated time (after client-go ``util/workqueue``).

Three layers, as in client-go:

* :class:`WorkQueue` (``queue.go``): a FIFO of keys with a *dirty* set and a
  *processing* set.  A key waits at most once; a key being processed is not
  handed out again, and if it was added meanwhile it goes back in the queue
  when the worker calls :meth:`WorkQueue.done`.
* delays (``delaying_queue.go``): :meth:`WorkQueue.add_after` adds the key
  when the clock reaches the time; the earliest of several delays wins.
* rate limiting (``rate_limiting_queue.go``, ``default_rate_limiters.go``):
  :meth:`WorkQueue.add_rate_limited` waits as long as the rate limiter says;
  :meth:`WorkQueue.forget` clears a key's failures.  The limiter is
  ``DefaultControllerRateLimiter``: the larger of a per-key exponential
  backoff (5 ms doubling, at most 1000 s) and one token bucket shared by all
  keys (10 per second, bursts of 100).

Every change of a key is reported to *record* ``(key, event, cause)``; the
cluster writes it to the trace's queue table.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from ..sim.clock import LATE

ADDED = "added"
"""The key was not waiting and now is (``Add``)."""
GET = "handed to worker"
"""A worker took the key (``Get``)."""
DONE = "done"
"""The worker finished the key (``Done``)."""
REQUEUED_DIRTY = "requeued (added while processing)"
"""``Done`` found the key added again while it was processed, and queued it again."""
RATE_LIMITED = "requeued with rate limit"
"""``AddRateLimited``: the key comes back after the rate limiter's delay."""
AFTER = "requeued after delay"
"""``AddAfter``: the key comes back after a fixed delay (minReadySeconds)."""
FORGOTTEN = "forgotten"
"""``Forget``: the key's failure count is reset after a successful sync."""


class ItemExponentialFailureRateLimiter:
    """Per-key backoff ``base * 2**failures``, at most *max_delay* (``ItemExponentialFailureRateLimiter``)."""

    def __init__(self, base: float = 0.005, max_delay: float = 1000.0) -> None:
        self.base, self.max_delay = base, max_delay
        self.failures: dict[str, int] = {}

    def when(self, key: str, now: float) -> float:
        """The delay for this failure of *key* (``When``); counts the failure."""
        n = self.failures.get(key, 0)
        self.failures[key] = n + 1
        if n > 60:  # 2**61 * 5 ms is far beyond the cap (upstream guards the overflow the same way)
            return self.max_delay
        return min(self.base * 2 ** n, self.max_delay)

    def num_requeues(self, key: str) -> int:
        return self.failures.get(key, 0)

    def forget(self, key: str) -> None:
        self.failures.pop(key, None)


class BucketRateLimiter:
    """One token bucket for every key: *qps* tokens a second, at most *burst* (``BucketRateLimiter``).

    Each call takes a token; with none left the delay is how long until one
    is back (``rate.Limiter.Reserve().Delay()``).
    """

    def __init__(self, qps: float = 10.0, burst: int = 100) -> None:
        self.qps, self.burst = qps, burst
        self.tokens = float(burst)
        self.last = 0.0

    def when(self, key: str, now: float) -> float:
        self.tokens = min(float(self.burst), self.tokens + max(0.0, now - self.last) * self.qps)
        self.last = max(self.last, now)
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.qps

    def num_requeues(self, key: str) -> int:
        return 0

    def forget(self, key: str) -> None:
        pass


class MaxOfRateLimiter:
    """The longest delay of several limiters (``MaxOfRateLimiter``); every one counts the call."""

    def __init__(self, *limiters) -> None:
        self.limiters = limiters

    def when(self, key: str, now: float) -> float:
        return max(lim.when(key, now) for lim in self.limiters)

    def num_requeues(self, key: str) -> int:
        return max(lim.num_requeues(key) for lim in self.limiters)

    def forget(self, key: str) -> None:
        for lim in self.limiters:
            lim.forget(key)


def default_controller_rate_limiter() -> MaxOfRateLimiter:
    """``DefaultControllerRateLimiter``: exponential 5 ms..1000 s per key, and a 10 qps / 100 burst bucket."""
    return MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(10.0, 100))


class WorkQueue:
    """A rate-limiting, delaying work queue of ``namespace/name`` keys on the cluster's clock."""

    def __init__(self, clock, rate_limiter=None, record: Callable[[str, str, str], None] | None = None) -> None:
        self.clock = clock
        self.rate_limiter = rate_limiter or default_controller_rate_limiter()
        self.record = record or _no_record
        self.queue: list[str] = []
        """Keys waiting to be handed out, oldest first."""
        self.dirty: set[str] = set()
        """Keys that need processing (waiting, or added again while processed)."""
        self.processing: set[str] = set()
        """Keys a worker holds now."""
        self._why: dict[str, str] = {}
        self.waiting: dict[str, tuple[float, object]] = {}
        """Keys added with a delay: key -> (ready time, clock entry)."""

    def __len__(self) -> int:
        return len(self.queue)

    # --------------------------------------------------------------- queue.go
    def add(self, key: str, cause: str = "") -> None:
        """Mark *key* as needing processing (``Type.Add``).

        Nothing happens if it is already dirty (a key waits at most once);
        if a worker holds it, it is only marked dirty and comes back at
        :meth:`done`.
        """
        if key in self.dirty:
            return
        self.dirty.add(key)
        if key in self.processing:
            self._why[key] = cause
            self.record(key, ADDED + " (while processing: waits for done)", cause)
            return
        self.queue.append(key)
        self.record(key, ADDED, cause)

    def get(self) -> str | None:
        """Hand the oldest waiting key to a worker (``Type.Get``), or None if none waits."""
        if not self.queue:
            return None
        key = self.queue.pop(0)
        self.processing.add(key)
        self.dirty.discard(key)
        self.record(key, GET, "")
        return key

    def done(self, key: str, cause: str = "") -> None:
        """The worker is finished with *key* (``Type.Done``); queue it again if it became dirty meanwhile."""
        self.processing.discard(key)
        self.record(key, DONE, cause)
        if key in self.dirty:
            self.queue.append(key)
            self.record(key, REQUEUED_DIRTY, self._why.pop(key, ""))

    # ------------------------------------------------------ delaying_queue.go
    def add_after(self, key: str, delay: float, cause: str = "", event: str = AFTER) -> None:
        """Add *key* after *delay* seconds (``AddAfter``); at once if *delay* <= 0.

        If the key already waits for a later time, the earlier time wins
        (``waitingForQueue``'s rule); a later one changes nothing.
        """
        if delay <= 0:
            self.add(key, cause)
            return
        at = self.clock.now + delay
        old = self.waiting.get(key)
        if old is not None:
            if old[0] <= at:
                self.record(key, f"{event} ({delay:g} s)", f"{cause}; already due at {old[0]:g} s")
                return
            self.clock.cancel(old[1])
        entry = self.clock.schedule(at, partial(self._ready, key, cause), priority=LATE,
                                    label=f"workqueue: {key} ({event})")
        self.waiting[key] = (at, entry)
        self.record(key, f"{event} ({delay:g} s)", cause)

    def _ready(self, key: str, cause: str) -> None:
        self.waiting.pop(key, None)
        self.add(key, cause)

    # ------------------------------------------------- rate_limiting_queue.go
    def add_rate_limited(self, key: str, cause: str = "") -> float:
        """Add *key* after the rate limiter's delay (``AddRateLimited``); returns the delay."""
        delay = self.rate_limiter.when(key, self.clock.now)
        self.add_after(key, delay, cause, event=RATE_LIMITED)
        if delay <= 0:
            self.record(key, f"{RATE_LIMITED} (0 s)", cause)
        return delay

    def forget(self, key: str) -> None:
        """Stop tracking *key*'s failures (``Forget``): its next failure backs off from 5 ms again."""
        if self.rate_limiter.num_requeues(key):
            self.record(key, FORGOTTEN, "sync succeeded")
        self.rate_limiter.forget(key)

    def num_requeues(self, key: str) -> int:
        """How many times *key* failed since it was last forgotten (``NumRequeues``)."""
        return self.rate_limiter.num_requeues(key)


def _no_record(key: str, event: str, cause: str) -> None:
    """The default recorder: records nothing (a module function, so a snapshot can pickle it)."""
