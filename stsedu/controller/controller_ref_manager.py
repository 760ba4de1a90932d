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

    def _patch_refs(self, d: Decision, refs, what: str, skip=is_not_found) -> None:
        """Patch pod ``d.pod``'s owner references to ``refs(pod)``; a refusal that *skip* names (a pod
        that is gone, NotFound) skips it, as ``ClaimObject`` ignores it."""
        o = self.objects
        try:
            o.check("update", "Pod", d.pod)
        except APIError as e:
            if skip(e):
                return
            raise
        pod = o.c.store.get("Pod", o.sts.namespace, d.pod)
        if pod is None:
            return
        o.c.write_pod(replace(pod, owner_references=refs(pod)), f"{o.cause}: {what}")
        o.wrote("Pod", pod)

    def adopt_pod(self, d: Decision) -> None:
        """``AdoptPod``: patch a controller ref to the set onto the orphan pod ``d.pod``; a pod that
        is gone (NotFound) is skipped."""
        self._patch_refs(d, lambda pod: pod.owner_references + (self.objects.sts.ref(),), "adopt")

    def release_pod(self, d: Decision) -> None:
        """``ReleasePod``: patch the set's ref off a pod that no longer matches (NotFound and Invalid
        are ignored; the pod is then simply not released)."""
        uid = self.objects.sts.uid
        self._patch_refs(d, lambda pod: tuple(r for r in pod.owner_references if r.uid != uid), "release",
                         skip=lambda e: is_not_found(e) or is_invalid(e))
