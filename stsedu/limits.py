"""The kit's budget on total work: how much one call, one sync and one scenario may do.

The real controller's bursts are bounded by the API server's rate limits (a flood of
creates meets ``429 TooManyRequests``); a simulator in a notebook needs its own bounds
so that a valid input cannot ask for minutes of work.  Each refusal names its limit
and how to raise it: set the attribute here, e.g. ``stsedu.limits.MAX_PODS_PER_SYNC = 5000``.
"""

from __future__ import annotations

MAX_PODS_PER_SYNC = 500
"""Pods one sync of a Parallel set may create (the size of one full ``slowStartBatch``
batch, about a third of a second of work).  Past it the simulated API server answers
each further create with ``TooManyRequests`` (as its rate limits would): the slow-start
batch it falls in runs to its end, as upstream's does, and the sync ends with that
batch's errors; the set is synced again (with the work queue's backoff)."""

MAX_PODS = 10_000
"""Pods one cluster may hold, as a ResourceQuota on pods would: past it a create is answered
``Forbidden: exceeded quota`` (a sync's memory and time follow the pods that exist)."""

MAX_SYNCS_PER_CALL = 100_000
"""``max_syncs`` of one ``Cluster.run`` / ``settle`` call."""

MAX_STEP_COUNT = 10_000
"""Syncs or kubelet steps one scenario step may ask for (``sync: N``, ``kubelet_step: N``,
``max_syncs``); one such step takes about a second."""

MAX_SCENARIO_WORK = 100_000
"""Syncs and kubelet steps a whole scenario may ask for, its steps' counts added up; an
``advance`` counts one per :data:`ADVANCE_SECONDS_PER_WORK` simulated seconds."""

ADVANCE_SECONDS_PER_WORK = 10
"""Simulated seconds of an ``advance`` step that count as one step of a scenario's work: the kubelet
acts on a pod at most about that often (a crash-looping container restarts after 10 s at the
soonest), so ``advance: 1000000000`` is refused when the file is loaded, not run for minutes."""


def hint(name: str) -> str:
    """How to raise the limit *name* (the end of each refusal's message)."""
    return f"stsedu.limits.{name} (now {globals()[name]}) sets this limit"
