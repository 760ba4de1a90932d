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
from ..i18n import _, ngettext

__all__ = ["unsettled", "describe_stop", "left_to_delete", "left_note", "pod_names", "progress_words"]

_SHOWN = 4
"""At most this many pod names in one reason; the rest are counted."""


def pod_names(pods) -> str:
    """"web-0, web-1, web-2, web-3 and 6 more": the first few names of *pods*, the rest counted."""
    names = [p.name for p in pods]
    more = len(names) - _SHOWN
    return ", ".join(names[:_SHOWN]) + (_(" and {n} more").format(n=more) if more > 0 else "")


def unsettled(cluster: Cluster, name: str, namespace: str = "default") -> list[str]:
    """Why the set *name* is not stable, in plain words; ``[]`` when it is stable.

    A missing set is not "stable" either: the one reason is that it does not exist.
    """
    try:
        sts = cluster.statefulset(name, namespace)
    except KeyError:
        return [_("there is no StatefulSet {name}").format(name=name)]
    spec, st = sts.spec, sts.status
    out: list[str] = []
    if st.observed_generation < sts.generation:
        out.append(_("the controller has not yet seen the latest spec"))
    pods = sorted(cluster.pods(name, namespace), key=lambda p: p.ordinal)
    terminating = [p for p in pods if p.terminating]
    live = [p for p in pods if not p.terminating]
    lo = spec.start_ordinal
    in_range = [p for p in live if lo <= p.ordinal < lo + spec.replicas]
    condemned = [p for p in live if not lo <= p.ordinal < lo + spec.replicas]
    missing = spec.replicas - len(in_range)
    if missing > 0:
        out.append(ngettext("{n} pod still to create", "{n} pods still to create", missing).format(n=missing))
    if condemned:
        out.append(ngettext("{n} pod still to delete ({pods})", "{n} pods still to delete ({pods})",
                            len(condemned)).format(n=len(condemned), pods=pod_names(condemned[::-1])))
    if terminating:
        out.append(_("{pods} still terminating").format(pods=pod_names(terminating)))
    not_ready = [p for p in in_range if not p.ready]
    if not_ready:
        out.append(_("{pods} not Ready").format(pods=pod_names(not_ready)))
    elif spec.min_ready_seconds > 0:
        waiting = [p for p in in_range if not p.available]
        if waiting:
            out.append(_("{pods} Ready but not yet Available (minReadySeconds {seconds})").format(
                pods=pod_names(waiting), seconds=spec.min_ready_seconds))
    if spec.update_strategy == "RollingUpdate" and st.update_revision:
        partition = spec.rolling_update.partition if spec.rolling_update is not None else 0
        old = [p for p in in_range if p.ordinal - lo >= partition and p.revision != st.update_revision]
        if old:
            # not "the old revision": after a rollback the revision a pod still runs is the newer one
            out.append(_("{pods} not yet at the revision the spec asks for{images}").format(
                pods=pod_names(old), images=_wanted(sts)))
    return out


def _wanted(sts) -> str:
    """`` (nginx:1)``: the image(s) of the set's template, the revision a pod is updated to."""
    images = [c.get("image", "") for c in sts.spec.template.get("spec", {}).get("containers", [])]
    return f" ({', '.join(images)})" if images else ""


def left_to_delete(cluster: Cluster, name: str, namespace: str = "default") -> list:
    """Under OnDelete, the set's pods (in its ordinal range, not terminating) that run another revision
    than the update revision: the controller is done with them and replaces each only once it is deleted
    (upstream: updateStatefulSet returns early for OnDeleteStatefulSetStrategyType).  ``[]`` under
    RollingUpdate, or when every pod is at the update revision."""
    try:
        sts = cluster.statefulset(name, namespace)
    except KeyError:
        return []
    spec, st = sts.spec, sts.status
    if spec.update_strategy != "OnDelete" or not st.update_revision:
        return []
    lo = spec.start_ordinal
    return [p for p in sorted(cluster.pods(name, namespace), key=lambda p: p.ordinal)
            if lo <= p.ordinal < lo + spec.replicas and not p.terminating and p.revision != st.update_revision]


def left_note(cluster: Cluster, name: str, namespace: str = "default") -> str:
    """What is left to the learner under OnDelete, in one sentence ("" when nothing is): how many pods
    wait for a delete before they get the revision the spec asks for, and which."""
    left = left_to_delete(cluster, name, namespace)
    if not left:
        return ""
    sts = cluster.statefulset(name, namespace)
    n = len(left)
    return ngettext("Under OnDelete the controller is done, but {n} pod waits for you to delete it before it runs "
                    "the revision the spec asks for{images}: {pods}.",
                    "Under OnDelete the controller is done, but {n} pods wait for you to delete them before they "
                    "run the revision the spec asks for{images}: {pods}.", n).format(
        n=n, images=_wanted(sts), pods=pod_names(left))


def describe_stop(reasons: list[str], why: str) -> str:
    """One sentence for a run that ended with the set not stable: what is left, and why it stopped."""
    return _("not stable: {reasons}. The lab stopped because {why}").format(reasons=_("; ").join(reasons), why=why)


def progress_words(cluster: Cluster, name: str, done: int, spec) -> str:
    """"12/50 pods Ready at the revision the spec asks for"; under OnDelete the Ready pods, and how many
    wait for a delete (the controller will not replace them); before the controller has seen the latest
    spec, the Ready pods and that (their revision is not yet the one the spec asks for)."""
    sts = cluster.statefulset(name)
    if sts.status.observed_generation < sts.generation:
        return _("{done}/{replicas} pods Ready · the controller has not yet seen generation "
                 "{generation}: the next sync acts on it").format(done=done, replicas=spec.replicas,
                                                                 generation=sts.generation)
    if spec.update_strategy != "OnDelete":
        return _("{done}/{replicas} pods Ready at the revision the spec asks for").format(done=done,
                                                                                          replicas=spec.replicas)
    pods = left_to_delete(cluster, name)
    left = len(pods)
    wait = (ngettext(" · {n} pod waits for a delete (OnDelete): {pods}",
                     " · {n} pods wait for a delete (OnDelete): {pods}", left).format(n=left, pods=pod_names(pods))
            if left else "")
    return _("{done}/{replicas} pods Ready{wait}").format(done=done, replicas=spec.replicas, wait=wait)
