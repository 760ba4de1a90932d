"""Is the set stable?  The test behind every "stable" a lab or the Playground prints.

A set is *stable* when its status matches its spec and no sync has work left: the controller has
seen the latest spec (``observedGeneration``), exactly ``replicas`` pods exist and none is
terminating, each is Ready (and Available, with ``minReadySeconds``), and a RollingUpdate has
reached every ordinal at or above its partition.  This is what ``kubectl rollout status``
waits for (kubectl's ``StatefulSetStatusViewer``), said in the learner's words, pod by pod, plus
the pods kubectl does not count (a condemned or terminating pod still present).
"""

from __future__ import annotations

from ..cluster import Cluster

__all__ = ["unsettled", "describe_stop"]

_SHOWN = 4
"""At most this many pod names in one reason; the rest are counted."""


def _names(pods) -> str:
    names = [p.name for p in pods]
    more = len(names) - _SHOWN
    return ", ".join(names[:_SHOWN]) + (f" and {more} more" if more > 0 else "")


def unsettled(cluster: Cluster, name: str, namespace: str = "default") -> list[str]:
    """Why the set *name* is not stable, in plain words; ``[]`` when it is stable.

    A missing set is not "stable" either: the one reason is that it does not exist.
    """
    try:
        sts = cluster.statefulset(name, namespace)
    except KeyError:
        return [f"there is no StatefulSet {name}"]
    spec, st = sts.spec, sts.status
    out: list[str] = []
    if st.observed_generation < sts.generation:
        out.append("the controller has not yet seen the latest spec")
    pods = sorted(cluster.pods(name, namespace), key=lambda p: p.ordinal)
    terminating = [p for p in pods if p.terminating]
    live = [p for p in pods if not p.terminating]
    lo = spec.start_ordinal
    in_range = [p for p in live if lo <= p.ordinal < lo + spec.replicas]
    condemned = [p for p in live if not lo <= p.ordinal < lo + spec.replicas]
    missing = spec.replicas - len(in_range)
    if missing > 0:
        out.append(f"{missing} pod{'s' * (missing != 1)} still to create")
    if condemned:
        out.append(f"{len(condemned)} pod{'s' * (len(condemned) != 1)} still to delete ({_names(condemned[::-1])})")
    if terminating:
        out.append(f"{_names(terminating)} still terminating")
    not_ready = [p for p in in_range if not p.ready]
    if not_ready:
        out.append(f"{_names(not_ready)} not Ready")
    elif spec.min_ready_seconds > 0:
        waiting = [p for p in in_range if not p.available]
        if waiting:
            out.append(f"{_names(waiting)} Ready but not yet Available (minReadySeconds {spec.min_ready_seconds})")
    if spec.update_strategy == "RollingUpdate" and st.update_revision:
        partition = spec.rolling_update.partition if spec.rolling_update is not None else 0
        old = [p for p in in_range if p.ordinal - lo >= partition and p.revision != st.update_revision]
        if old:
            out.append(f"{_names(old)} still at the old revision")
    return out


def describe_stop(reasons: list[str], why: str) -> str:
    """One sentence for a run that ended with the set not stable: what is left, and why it stopped."""
    return f"not stable: {'; '.join(reasons)}. The lab stopped because {why}"
