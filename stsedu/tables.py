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
