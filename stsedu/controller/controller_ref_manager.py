"""The pod ref manager of one sync (≈ upstream ``pkg/controller/controller_ref_manager.go``).

:func:`~.stateful_set.get_pods_for_stateful_set` decides which pods the set adopts and releases
(``ClaimPods``); :class:`PodControllerRefManager` makes those patches, as upstream's
``PodControllerRefManager`` does with ``AdoptPod`` and ``ReleasePod``.  Revisions are adopted
through the controller history (:meth:`~.history.ClusterHistory.adopt_revision`), as upstream's
``AdoptOrphanRevisions`` calls ``AdoptControllerRevision``.
"""

from __future__ import annotations

from dataclasses import replace

from ..api.errors import APIError, is_invalid, is_not_found
from .decisions import Decision


class PodControllerRefManager:
    """Adopt and release the set's pods through *objects*, the sync's
    :class:`~.stateful_pod_control.ClusterObjects` (the set, the writes, the caches it shares); a
    failed patch raises :class:`~stsedu.api.errors.APIError`."""

    def __init__(self, objects) -> None:
        self.objects = objects

    def _check_unless_not_found(self, verb: str, kind: str, name: str) -> bool:
        """The answer to the patch, but a NotFound means "skip it" (False), as for a pod that is gone."""
        try:
            self.objects.check(verb, kind, name)
        except APIError as e:
            if is_not_found(e):
                return False
            raise
        return True

    def adopt_pod(self, d: Decision) -> None:
        """``AdoptPod``: patch a controller ref to the set onto the orphan pod ``d.pod``; a pod that
        is gone (NotFound) is skipped, as ``ClaimObject`` ignores it."""
        o = self.objects
        if not self._check_unless_not_found("update", "Pod", d.pod):
            return
        pod = o.c.store.get("Pod", o.sts.namespace, d.pod)
        if pod is None:
            return
        o.c.write_pod(replace(pod, owner_references=pod.owner_references + (o.sts.ref(),)), f"{o.cause}: adopt")
        o.wrote("Pod", pod)

    def release_pod(self, d: Decision) -> None:
        """``ReleasePod``: patch the set's ref off a pod that no longer matches (NotFound and Invalid
        are ignored; the pod is then simply not released)."""
        o = self.objects
        try:
            if not self._check_unless_not_found("update", "Pod", d.pod):
                return
        except APIError as e:
            if is_invalid(e):
                return
            raise
        pod = o.c.store.get("Pod", o.sts.namespace, d.pod)
        if pod is None:
            return
        refs = tuple(r for r in pod.owner_references if r.uid != o.sts.uid)
        o.c.write_pod(replace(pod, owner_references=refs), f"{o.cause}: release")
        o.wrote("Pod", pod)
