"""What one sync works from (:class:`Snapshot`): the informer caches as the sync began.

Upstream's ``UpdateStatefulSet`` reads the set and its pods from its arguments and the claims and
revisions from listers; the kit hands the set control one :class:`Snapshot` of the same state, so
the steps' own writes do not show in what they read (docs/behaviour.md section 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..api.objects import ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The state one sync works from, as the informer cache held it when the sync began."""

    sts: StatefulSet
    pods: tuple[Pod, ...]
    """Pods claimed by the set (adoption and release already done)."""
    claims: Mapping[str, PersistentVolumeClaim]
    """PVCs of the set's namespace, by name."""
    namespace_revisions: Mapping[str, ControllerRevision]
    """Every revision of the namespace, by name (the revision lister:
    :func:`~stsedu.controller.stateful_set_control.list_revisions` picks the set's, a name collision
    looks the others up)."""
    now: float
