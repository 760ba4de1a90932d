"""What each profile's API server accepts: spec fields it does not know, updates it forbids.

A StatefulSet manifest written for today's Kubernetes may use fields an old
release never had.  A real v1.16 API server decodes the object into its own
(older) types, so an unknown field is **silently dropped** (pruned) and the
object is stored without it; ``kubectl`` of that era validated on the client
side first and refused such a manifest unless given ``--validate=false``
(newer kubectl falls back to the same client-side check against an old
server).  stsedu takes the API server's side: it accepts the manifest, drops
the field, and says so in a warning (``cluster.last_warnings`` and a Warning
event ``UnknownField`` in the trace), naming the release that added the field.

:func:`prune_fields` does the dropping; :func:`release_of` names the rules and
wording of the profile's release where they differ from the newest (how a bad value is
printed, how an immutable field is refused).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from .profiles import Profile
from .validation.statefulset import RELEASES, V1_16, V1_37, Release

__all__ = ["NEWER_FIELDS", "FieldIntroduced", "prune_fields", "release_of",
           "V116_FORBIDDEN_UPDATE_MSG"]

@dataclass(frozen=True, slots=True)
class FieldIntroduced:
    """A StatefulSet field that appeared after v1.16, and the profile switch that says whether a profile has it."""

    path: tuple[str, ...]
    added_in: str
    """The release whose API server first knew the field (as alpha, behind *gate*)."""
    gate: str
    switch: str
    """The :class:`~stsedu.api.profiles.Profile` attribute that is False where the field is unknown."""

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


NEWER_FIELDS = (
    FieldIntroduced(("spec", "minReadySeconds"), "v1.22", "StatefulSetMinReadySeconds",
                    "min_ready_seconds"),
    FieldIntroduced(("spec", "persistentVolumeClaimRetentionPolicy"), "v1.23",
                    "StatefulSetAutoDeletePVC", "pvc_retention"),
    FieldIntroduced(("spec", "updateStrategy", "rollingUpdate", "maxUnavailable"), "v1.24",
                    "MaxUnavailableStatefulSet", "max_unavailable_supported"),
    FieldIntroduced(("spec", "ordinals"), "v1.26", "StatefulSetStartOrdinal", "start_ordinal"),
)
"""StatefulSet spec fields newer than v1.16 (feature-gate pages of kubernetes/website)."""

V116_FORBIDDEN_UPDATE_MSG = "Forbidden: " + V1_16.forbidden_update_msg
"""The v1.16 wording of the immutable-spec error (``ValidateStatefulSetUpdate``)."""


def release_of(profile: Profile | None) -> Release:
    """The API server rules and wording of *profile*'s release (None: the newest): how a
    bad value is printed, how an immutable field is refused, which warnings are given
    (:class:`~stsedu.api.validation.statefulset.Release`)."""
    return V1_37 if profile is None else RELEASES.get(profile.version, V1_37)


def _get(doc: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return False, None
        doc = doc[key]
    return True, doc


def _drop(doc: dict, path: tuple[str, ...]) -> None:
    for key in path[:-1]:
        doc = doc.get(key)
        if not isinstance(doc, dict):
            return
    doc.pop(path[-1], None)


def unknown_fields(profile: Profile) -> list[FieldIntroduced]:
    """The fields of :data:`NEWER_FIELDS` that *profile*'s API server does not know."""
    return [f for f in NEWER_FIELDS if not getattr(profile, f.switch)]


def prune_fields(user_doc: dict, manifest: dict, profile: Profile) -> tuple[dict, list[str]]:
    """*manifest* without the spec fields *profile*'s API server does not know, and the warnings.

    *user_doc* is what the user sent (before defaulting): only a field the
    user wrote gets a warning; a field that defaulting added is dropped
    quietly.  Returns a NEW dict (or *manifest* itself when nothing is
    dropped) and one warning per dropped field, for example::

        unknown field "spec.minReadySeconds": the v1.16 API server does not know it
        (added in v1.22, feature StatefulSetMinReadySeconds) and drops it; ...
    """
    missing = unknown_fields(profile)
    if not missing:
        return manifest, []
    out = copy.deepcopy(manifest)
    warnings = []
    for f in missing:
        written, value = _get(user_doc, f.path)
        if written:
            warnings.append(
                f'unknown field "{f.dotted}": the {profile.version} API server does not know it '
                f"(added in {f.added_in}, feature {f.gate}) and drops it, so the controller never "
                f"sees it (value {json.dumps(value)} ignored); kubectl of that release refuses the manifest "
                "unless run with --validate=false")
        _drop(out, f.path)
    return out, warnings
