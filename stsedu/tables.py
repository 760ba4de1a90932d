"""Tables and kubectl-style text made from a cluster or its trace."""

from __future__ import annotations

from .model import StatefulSet


def rollout_status_text(sts: StatefulSet) -> str:
    """The line ``kubectl rollout status statefulset/<name>`` prints for *sts* now.

    Mirrors kubectl's ``StatefulSetStatusViewer.Status`` (polymorphichelpers/rollout_status.go).
    """
    spec, st = sts.spec, sts.status
    if spec.update_strategy != "RollingUpdate":
        return "error: rollout status is only available for RollingUpdate strategy type"
    if st.observed_generation == 0 or sts.generation > st.observed_generation:
        return "Waiting for statefulset spec update to be observed..."
    if st.ready_replicas < spec.replicas:
        return f"Waiting for {spec.replicas - st.ready_replicas} pods to be ready..."
    if spec.rolling_update is not None:
        wanted = spec.replicas - spec.rolling_update.partition
        if st.updated_replicas < wanted:
            return (f"Waiting for partitioned roll out to finish: {st.updated_replicas} out of "
                    f"{wanted} new pods have been updated...")
        return f"partitioned roll out complete: {st.updated_replicas} new pods have been updated..."
    if st.update_revision != st.current_revision:
        return (f"waiting for statefulset rolling update to complete {st.updated_replicas} pods "
                f"at revision {st.update_revision}...")
    return (f"statefulset rolling update complete {st.current_replicas} pods at revision "
            f"{st.current_revision}...")


def rollout_history_text(cluster, name: str, namespace: str = "default") -> str:
    """What ``kubectl rollout history statefulset/<name>`` prints now, byte for byte.

    Mirrors kubectl's ``StatefulSetHistoryViewer`` (``printHistory``): the
    revisions the set controls and that match its selector, one row per
    revision number, ascending, with the ``kubernetes.io/change-cause``
    annotation (copied from the set when the revision was made) or
    ``<none>``; aligned like Go's tabwriter (padding 2).  The first line is
    kubectl's name printer with an empty operation, so it ends in a space, and
    the output ends with an empty line.  ``No rollout history found.`` when
    there is none.  Raise KeyError if the set does not exist.
    """
    from .revisions import controlled_history
    sts = cluster.statefulset(name, namespace)
    by_number = {r.revision: r for r in controlled_history(
        sts, cluster.store.list("ControllerRevision", namespace))}
    if not by_number:
        body = "No rollout history found."
    else:
        rows = [("REVISION", "CHANGE-CAUSE")]
        rows += [(str(n), by_number[n].annotations.get("kubernetes.io/change-cause") or "<none>")
                 for n in sorted(by_number)]
        width = max(len(first) for first, _ in rows) + 2
        body = "".join(f"{first.ljust(width)}{rest}\n" for first, rest in rows)
    return f"statefulset.apps/{name} \n{body}\n"
