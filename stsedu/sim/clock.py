"""A simulated clock with a deterministic event queue (after SimPy's ``Environment``).

Entries are ``(time, priority, seq, action)``: a monotonic counter breaks ties,
so the same calls always run in the same order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Callable

URGENT = 0
"""Priority of events that must run before others at the same instant (garbage collection)."""
NORMAL = 1
"""Priority of kubelet stage changes."""
LATE = 2
"""Priority of controller wake-ups (run after everything else at that instant)."""


@dataclass(order=True, slots=True)
class _Entry:
    time: float
    priority: int
    seq: int
    action: Callable[[], None] = field(compare=False)
    label: str = field(compare=False, default="")
    cancelled: bool = field(compare=False, default=False)


class Clock:
    """Simulated time in seconds, starting at 0, and the events scheduled on it.

    * ``now``: the current time;
    * ``schedule(at, action)``: *action* runs when time reaches *at*;
    * ``advance_to(t)``: run every event due up to *t*, in order, then set ``now = t``.
    """

    def __init__(self) -> None:
        self.now: float = 0.0
        self._queue: list[_Entry] = []
        self._seq = 0

    def schedule(self, at: float, action: Callable[[], None], *, priority: int = NORMAL,
                 label: str = "") -> _Entry:
        """Queue *action* to run at time *at* (never earlier than now)."""
        self._seq += 1
        entry = _Entry(max(at, self.now), priority, self._seq, action, label)
        heapq.heappush(self._queue, entry)
        return entry

    @staticmethod
    def cancel(entry: _Entry) -> None:
        """Make a scheduled event do nothing."""
        entry.cancelled = True

    def peek(self) -> float | None:
        """Time of the next live event, or None."""
        while self._queue and self._queue[0].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0].time if self._queue else None

    def pending(self) -> list[tuple[float, str]]:
        """(time, label) of every live event, soonest first."""
        return [(e.time, e.label) for e in sorted(self._queue) if not e.cancelled]

    def advance_to(self, t: float) -> int:
        """Run every event due at or before *t*; return how many ran.  Raise ValueError if *t* < now."""
        if t < self.now:
            raise ValueError(f"cannot move the clock back from {self.now} to {t}")
        ran = 0
        while True:
            nxt = self.peek()
            if nxt is None or nxt > t:
                break
            entry = heapq.heappop(self._queue)
            self.now = entry.time
            entry.action()
            ran += 1
        self.now = t
        return ran
