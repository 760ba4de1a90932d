"""Admission: what the API server does with a create or an update, in one pipeline.

:func:`admit` takes one decoded document (and the stored object it updates, if
any) through the steps the API server takes, in order:

1. the apiVersion: a kind at another version is no resource it serves;
2. :func:`~stsedu.api.schema.unknown_fields` -- the warnings ``kubectl`` shows
   for fields the schema does not know (``unknown field "spec.replica"``);
3. defaulting (:mod:`stsedu.api.defaults`, ``SetDefaults_StatefulSet``);
4. pruning: unknown fields are dropped, and so are the fields the profile's
   release does not know (:mod:`stsedu.api.profile_rules`, with a warning);
5. validation (:mod:`stsedu.api.validation`), as a create or as an update,
   in the rules and wording of the profile's release (:func:`~stsedu.api.profile_rules.release_of`).

``Cluster.apply``, ``Cluster.patch`` (and every other edit of a set) and
:func:`check` all go through :func:`admit`.  Loading the text first is
:func:`~stsedu.api.load.load_documents`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import ValidationError
from .defaults import default_service, default_statefulset
from .field_errors import Error
from .load import load_documents
from .profile_rules import prune_fields, release_of
from .schema import SCHEMAS, prune, unknown_fields
from .validation.pod import pod_template_warnings
from .validation.service import keep_allocated_values, validate_service, validate_service_update
from .validation.statefulset import statefulset_warnings, validate_statefulset, validate_statefulset_update


# ---------------------------------------------------------------------------
# Convenience: a whole manifest at once
# ---------------------------------------------------------------------------

API_VERSIONS = {"StatefulSet": "apps/v1", "Service": "v1"}
"""The one apiVersion stsedu serves per supported kind."""

ERROR_KINDS = {"StatefulSet": "StatefulSet.apps", "Service": "Service"}
"""How the API server names each kind in "<kind> "<name>" is invalid"."""


@dataclass(frozen=True)
class Checked:
    """One document of a manifest after :func:`check`.

    *manifest* is the defaulted document (the original one for unsupported kinds),
    *errors* the ``(path, message)`` problems, *warnings* the unknown-field warnings,
    *supported* False for kinds stsedu does not simulate.
    """

    kind: str
    name: str
    namespace: str
    manifest: dict
    errors: tuple = ()
    warnings: tuple = ()
    supported: bool = True

    @property
    def ok(self) -> bool:
        """True if the document is supported and valid."""
        return self.supported and not self.errors

    def raise_if_invalid(self) -> None:
        """Raise :class:`~stsedu.api.errors.ValidationError` if there are errors."""
        if self.errors:
            raise validation_error(self.kind, self.name, self.errors, self.warnings)


def validation_error(kind: str, name: str, errors: Iterable[Error],
                     warnings: Iterable[str] = ()) -> ValidationError:
    """A :class:`~stsedu.api.errors.ValidationError` worded like the API server's
    ``StatefulSet.apps "web" is invalid: ...``."""
    return ValidationError(list(errors), kind=ERROR_KINDS.get(kind, kind), name=name,
                           warnings=list(warnings))


def _api_version_errors(doc: dict) -> list[Error]:
    kind, version = doc.get("kind"), doc.get("apiVersion")
    if API_VERSIONS.get(kind, version) != version:
        return [("apiVersion", f'no matches for kind "{kind}" in version "{version}"')]
    return []


def admit(doc: dict, old: dict | None = None, *, profile=None, max_unavailable_gate: bool = True,
          recreate_gate: bool = False) -> tuple[dict | None, list[Error], list[str]]:
    """One StatefulSet or Service document through admission: ``(stored manifest, errors, warnings)``.

    *old* is the stored object's manifest when *doc* updates it (a StatefulSet
    is then defaulted from it and validated as an update).  *profile* (a
    :class:`~stsedu.api.profiles.Profile`) prunes the fields its release
    does not know and adds its release's own errors; None applies the newest
    rules only.  The manifest is None when the apiVersion is not served.  *recreate_gate*:
    StatefulSetRecreateStrategy is on (``updateStrategy.type: Recreate`` is accepted).
    """
    kind = doc.get("kind")
    warnings = unknown_fields(doc)
    errs = _api_version_errors(doc)
    release = release_of(profile)
    if kind == "Service":
        new = prune(default_service(doc), SCHEMAS[kind])
        if old is not None:  # patchAllocatedValues, then ValidateServiceUpdate
            new = keep_allocated_values(new, old)
            return new, errs + validate_service_update(new, old, release.relaxed_service_names), warnings
        return new, errs + validate_service(new, release.relaxed_service_names), warnings
    if errs:  # the API server has no such resource: nothing else is looked at
        return None, errs, warnings
    new = default_statefulset(doc, max_unavailable_gate=max_unavailable_gate, old=old)
    new = prune(new, SCHEMAS[kind])  # unknown fields: warned above, dropped here
    if profile is not None:
        new, dropped = prune_fields(doc, new, profile)
        warnings += dropped
    errs += (validate_statefulset_update(new, old, release, recreate_gate) if old is not None
             else validate_statefulset(new, release, recreate_gate))
    if not errs:  # WarningsOnCreate / WarningsOnUpdate: GetWarningsForPodTemplate, then the set's own
        spec = new.get("spec") or {}
        warnings += pod_template_warnings(spec.get("template") or {}, "spec.template")
        warnings += statefulset_warnings(new, release)
    return new, errs, warnings


def check(source: str | bytes | dict | list, *, max_unavailable_gate: bool = True,
          recreate_gate: bool = False) -> list[Checked]:
    """Load, default and validate every document of *source*; one :class:`Checked` each.

    Raises what :func:`load_documents` raises; problems inside documents are returned,
    not raised (see :meth:`Checked.raise_if_invalid`).
    """
    out = []
    for doc in load_documents(source):
        kind = doc["kind"]
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        name = meta.get("name") or ""
        if kind not in ("StatefulSet", "Service"):
            out.append(Checked(kind, name, meta.get("namespace") or "default", doc, supported=False))
            continue
        manifest, errs, warnings = admit(doc, max_unavailable_gate=max_unavailable_gate,
                                         recreate_gate=recreate_gate)
        if manifest is None:
            manifest = doc
        namespace = (manifest.get("metadata") or {}).get("namespace") or "default"
        out.append(Checked(kind, name, namespace, manifest, tuple(errs), tuple(warnings)))
    return out
