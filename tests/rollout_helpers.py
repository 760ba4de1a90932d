"""Helpers for the update tests: bring a set up by hand, move pods, read revisions."""

from __future__ import annotations

import stsedu
from helpers import ready, st, web

OFF = {"MaxUnavailableStatefulSet": False}
ON = {"MaxUnavailableStatefulSet": True}


def bring_up(c: stsedu.Cluster, n: int = 3, policy: str = "OrderedReady", **kw):
    """Apply web with *n* replicas and make one pod Ready by hand after each sync; return the last sync."""
    c.apply(web(n, policy, **kw))
    for _ in range(4 * n + 2):
        c.sync("web")
        for p in c.pods("web"):
            if not p.ready:
                ready(c, p.name)
                break
    return c.sync("web")


def ready_set(c: stsedu.Cluster, n: int = 3, policy: str = "OrderedReady", **kw) -> str:
    """Apply web with *n* replicas, bring every pod to Ready by hand; return the revision name."""
    r = bring_up(c, n, policy, **kw)
    assert st(r) == (n, n, n, n, n), st(r)
    assert r.status.current_revision == r.status.update_revision
    return r.status.current_revision


def move_all(c: stsedu.Cluster) -> None:
    """Move every pod one stage: terminating -> gone, Pending -> Running and Ready."""
    for p in c.pods("web"):
        if p.terminating:
            c.kubelet.finish_termination(p.name)
        elif p.phase == "Pending":
            ready(c, p.name)


def revs(result) -> tuple[str, str]:
    """(currentRevision, updateRevision) of a SyncResult."""
    return result.status.current_revision, result.status.update_revision


def numbers(c: stsedu.Cluster) -> list[tuple[str, int]]:
    """(name, revision number) of the set's ControllerRevisions, oldest number first."""
    return [(r.name, r.revision) for r in c.revisions("web")]


def pod_revisions(c: stsedu.Cluster) -> dict[str, str]:
    """Pod name -> its controller-revision-hash label."""
    return {p.name: p.revision for p in c.pods("web")}


def kinds(result, action: str) -> list[tuple]:
    """(reason, target) of the decisions of one non-pod *action* (create-revision, ...)."""
    return [(d.reason, d.target) for d in result.decisions if d.action == action]
