"""Pod helpers the API types carry (upstream ``pkg/api/v1/pod/util.go``).

The controller's ``isRunningAndAvailable`` and the simulated cluster's availability both ask
``podutil.IsPodAvailable``; it lives here, before both rooms, so neither imports the other.
"""

from __future__ import annotations

from .objects import Pod


def is_pod_available(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """True if *pod* has been Ready for at least *min_ready_seconds* at *now* (``IsPodAvailable``).

    Upstream tests the Ready condition only, not the phase, and the boundary counts:
    ``lastTransitionTime + minReadySeconds <= now``.
    """
    if not pod.ready:
        return False
    if min_ready_seconds <= 0:
        return True
    since = pod.ready_since if pod.ready_since is not None else now
    return since + min_ready_seconds <= now
