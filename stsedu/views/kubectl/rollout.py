"""kubectl's ``rollout status`` and ``rollout history`` text for a StatefulSet."""

from __future__ import annotations

from ...api.objects import StatefulSet

OBSERVING = "Waiting for statefulset spec update to be observed..."
"""What ``rollout status`` prints while the controller has not yet observed the set's last change."""


def rollout_status_text(sts: StatefulSet) -> str:
    """The line ``kubectl rollout status statefulset/<name>`` prints for *sts* now.

    Mirrors kubectl's ``StatefulSetStatusViewer.Status`` (polymorphichelpers/rollout_status.go).
    """
    spec, st = sts.spec, sts.status
    if spec.update_strategy != "RollingUpdate":
        return "error: rollout status is only available for RollingUpdate strategy type"
    if st.observed_generation == 0 or sts.generation > st.observed_generation:
        return OBSERVING
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


def rollout_history_text(cluster, name: str, namespace: str = "default", revision: int | None = None) -> str:
    """What ``kubectl rollout history statefulset/<name> [--revision=N]`` prints now, byte for byte.

    Mirrors kubectl's ``StatefulSetHistoryViewer`` (``printHistory``): the
    revisions the set controls and that match its selector, one row per
    revision number, ascending, with the ``kubernetes.io/change-cause``
    annotation (copied from the set when the revision was made) or
    ``<none>``; aligned like Go's tabwriter (padding 2).  The first line is
    kubectl's name printer with an empty operation, so it ends in a space, and
    the output ends with an empty line.  ``No rollout history found.`` when
    there is none.  Raise KeyError if the set does not exist.

    With *revision* N > 0 the first line is ``statefulset.apps/<name> with
    revision #N`` and the rest is that revision's pod template as kubectl's
    ``printTemplate`` / ``DescribePodTemplate`` write it (see
    :func:`stsedu.views.kubectl.describe.describe_pod_template`: tab characters kept, no
    tabwriter), then an empty line.  *revision* 0 is the table, as
    ``--revision=0`` is.  Raise :class:`~stsedu.api.errors.RolloutError` with
    kubectl's message: ``revision must be a positive integer: N`` for a
    negative number (``RolloutHistoryOptions.Validate``, checked before the
    set is looked up), ``unable to find the specified revision`` for a number
    the history does not have (``printHistory``); an empty history prints
    ``No rollout history found.`` whatever the number.  A volume type
    stsedu does not describe raises NotImplementedError.
    """
    from ...api.errors import RolloutError
    from ...controller.history import controlled_history
    if revision is not None:
        if isinstance(revision, bool) or not isinstance(revision, int):
            raise RolloutError(f'invalid argument "{revision}" for "--revision" flag: '
                               f'strconv.ParseInt: parsing "{revision}": invalid syntax', name=name)
        if revision < 0:
            raise RolloutError(f"revision must be a positive integer: {revision}", name=name)
    sts = cluster.statefulset(name, namespace)
    by_number = {r.revision: r for r in controlled_history(
        sts, cluster.store.list("ControllerRevision", namespace))}
    if revision:
        if not by_number:
            body = "No rollout history found."
        elif revision not in by_number:
            raise RolloutError("unable to find the specified revision", name=name)
        else:
            from .describe import describe_pod_template
            template = by_number[revision].template  # applyStatefulSetHistory: the patch replaces the template
            template.pop("$patch", None)
            body = describe_pod_template(template)
        return f"statefulset.apps/{name} with revision #{revision}\n{body}\n"
    if not by_number:
        body = "No rollout history found."
    else:
        rows = [("REVISION", "CHANGE-CAUSE")]
        rows += [(str(n), by_number[n].annotations.get("kubernetes.io/change-cause") or "<none>")
                 for n in sorted(by_number)]
        width = max(len(first) for first, _ in rows) + 2
        body = "".join(f"{first.ljust(width)}{rest}\n" for first, rest in rows)
    return f"statefulset.apps/{name} \n{body}\n"
