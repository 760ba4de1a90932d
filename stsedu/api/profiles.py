"""Behaviour profiles: which release of the controller to reproduce.

``current`` is the newest behaviour in docs/behaviour.md (the v1.37 line, checked against v1.37.2);
``v1.36`` differs in the MaxUnavailableStatefulSet gate's default and in two
v1.37 changes; ``v1.16`` is the release most source walkthroughs describe.

A release is the newest controller with named rules switched off: each field of :class:`Profile`
is one difference, named for what it changes, its docstring naming the upstream change (PR or
release) that brought it.  The controller reads a rule where upstream's code differs between the
releases, as it reads a feature gate.  One rule is a whole function: with :attr:`Profile.update_in_steps`
off the set control runs v1.16's ``updateStatefulSet`` (``stsedu/controller/stateful_set_control_v116.py``),
which reads the other rules from the same profile (docs/behaviour.md, "Releases").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

KNOWN_GATES = ("MaxUnavailableStatefulSet", "StatefulSetRecreateStrategy")
GATE_ADDED_IN = {"MaxUnavailableStatefulSet": "v1.24", "StatefulSetRecreateStrategy": "v1.37"}
"""The release that introduced each gate in :data:`KNOWN_GATES`."""


@dataclass(frozen=True, slots=True)
class Profile:
    """The rules that differ between releases, each named for what it changes (True: the newest)."""

    name: str
    version: str
    gates: Mapping[str, bool] = field(default_factory=dict)
    """Feature-gate defaults of the release."""
    parallel_max_unavailable_fix: bool = True
    """PR #137666 (v1.37): broken old pods in Parallel sets do not eat the maxUnavailable budget."""
    ondelete_promotes: bool = True
    """PR #136833 (v1.37: ``completeUpdate`` in v1.37.2 has no strategy test; v1.36.3's
    ``completeRollingUpdate`` does): OnDelete sets promote currentRevision too."""
    min_ready_seconds: bool = True
    """minReadySeconds gates availability (GA 1.25); absent in v1.16."""
    start_ordinal: bool = True
    """``spec.ordinals.start`` (GA 1.31); absent in v1.16."""
    pvc_retention: bool = True
    """``persistentVolumeClaimRetentionPolicy`` (GA 1.32); absent in v1.16."""
    pod_index_label: bool = True
    """``apps.kubernetes.io/pod-index`` label (GA 1.32); absent in v1.16."""
    succeeded_restarts: bool = True
    """Succeeded pods are replaced like Failed ones (PR #121389, 1.29)."""
    update_in_steps: bool = True
    """``updateStatefulSet`` runs its steps, each slot through ``processReplica`` and each condemned
    pod through ``processCondemned`` under ``runForAll`` (``slowStartBatch`` for Parallel sets:
    PR #117865, v1.28), counts the status before them, and writes it even when a request failed.
    Off: v1.16's ``updateStatefulSet`` (:mod:`stsedu.controller.stateful_set_control_v116`), one loop
    over the slots and the condemned pods, the status counted as it goes, ``UpdateStatefulSet``
    returning at the first error, before the status and ``truncateHistory``."""
    revision_adoption_rechecks_deletion: bool = True
    """``adoptOrphanRevisions`` re-reads the set and adopts nothing while it is being deleted
    (``RecheckDeletionTimestamp``: the sync fails there); v1.16.15 compared only the uid of the
    set it re-read, so a set being deleted still adopted an orphan revision."""
    revision_adoption_orphans_only: bool = True
    """``adoptOrphanRevisions`` hands ``AdoptOrphanRevisions`` only the orphans; v1.16.15 handed it
    every revision ``ListRevisions`` returned (the set's own too) once one was an orphan, and its
    ``AdoptControllerRevision`` refused the first one with a controller before any request: the
    sync failed there, after the orphans listed before it."""
    delete_ignores_not_found: bool = True
    """``DeleteStatefulPod`` counts a pod that is already gone (NotFound) as deleted; v1.16
    returned the error (FailedDelete, the sync fails)."""
    max_unavailable_supported: bool = True
    """``rollingUpdate.maxUnavailable`` exists (alpha 1.24)."""
    null_creation_timestamp: bool = False
    """Revision data holds ``"creationTimestamp":null`` in the template's metadata, as Go wrote a
    zero time up to v1.33 (PR #130989 omits it from v1.34; upstream's testdata
    compatibility_revision_1.33.0.json / _1.34.0.json show both)."""
    semantic_revision_comparison: bool = True
    """``setMatchesLatestExistingRevision`` (gate ``StatefulSetSemanticRevisionComparison``, beta, on by
    default; in v1.36.3's and v1.37.2's source, not v1.16's): the newest revision, written again as
    this release writes it, counts as the update revision when it equals the live template's."""
    status_conditions: bool = True
    """Each status carries the set's ``status.conditions`` over, and a change in them alone is
    written (v1.37.2 ``updateStatefulSet`` / ``inconsistentStatus``); v1.36.3 and v1.16 build
    every status from empty, so a written status drops them."""
    event_verbs_title_case: bool = True
    """Event messages start with the verb title-cased ("Create Pod web-0 in StatefulSet web
    successful"); v1.16's ``recordPodEvent`` wrote it as given ("create Pod ...")."""
    consistency_store: bool = True
    """``StaleControllerConsistencyStatefulSet`` (beta, on by default from v1.36): no sync until the
    informers have seen the set's own last writes (:mod:`stsedu.controller.consistency`); absent in v1.16."""
    known_gates: tuple[str, ...] = KNOWN_GATES
    """Feature gates the release's controller manager accepts (v1.16 knows none of stsedu's)."""

    def gate(self, gates: Mapping[str, bool], name: str) -> bool:
        return bool(gates.get(name, self.gates.get(name, False)))


CURRENT = Profile(name="current", version="v1.37",
                  gates={"MaxUnavailableStatefulSet": True, "StatefulSetRecreateStrategy": False})
V1_36 = Profile(name="v1.36", version="v1.36", gates={"MaxUnavailableStatefulSet": False},
                parallel_max_unavailable_fix=False, ondelete_promotes=False, status_conditions=False,
                known_gates=("MaxUnavailableStatefulSet",))
V1_16 = Profile(name="v1.16", version="v1.16", gates={}, parallel_max_unavailable_fix=False,
                ondelete_promotes=False, min_ready_seconds=False, start_ordinal=False,
                pvc_retention=False, pod_index_label=False, succeeded_restarts=False,
                update_in_steps=False, max_unavailable_supported=False,
                null_creation_timestamp=True, semantic_revision_comparison=False,
                status_conditions=False,
                event_verbs_title_case=False, delete_ignores_not_found=False, consistency_store=False,
                revision_adoption_rechecks_deletion=False, revision_adoption_orphans_only=False,
                known_gates=())

PROFILES: dict[str, Profile] = {p.name: p for p in (CURRENT, V1_36, V1_16)}


def get_profile(name: str | Profile) -> Profile:
    """The profile called *name*; raise ValueError naming the known ones otherwise."""
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known profiles: "
                         + ", ".join(sorted(PROFILES))) from None
