"""Validation of volume claim templates (core ``ValidatePersistentVolumeClaimSpec``)."""

from __future__ import annotations


from ..field_errors import Error, child_path, index_path, forbidden, invalid, not_supported, required
from ..formats import name_is_dns_subdomain
from ..quantities import parse_quantity
from ..validation.meta import validate_label_selector


# ---------------------------------------------------------------------------
# Volume claim templates (core ValidatePersistentVolumeClaimSpec)
# ---------------------------------------------------------------------------

_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


def validate_persistent_volume_claim_spec(spec: dict, path: str) -> list[Error]:
    """Mirror of ``ValidatePersistentVolumeClaimSpec`` (access modes, storage request,
    storage class name, volume mode, selector)."""
    errs = []
    modes = spec.get("accessModes") or []
    if not modes:
        errs.append(required(child_path(path, "accessModes"), "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        errs += validate_label_selector(spec["selector"], child_path(path, "selector"))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(not_supported(child_path(path, "accessModes"), "" if mode is None else mode, _ACCESS_MODES))
    if "ReadWriteOncePod" in modes and len(set(modes)) > 1:
        errs.append(forbidden(child_path(path, "accessModes"),
                              "may not use ReadWriteOncePod with other access modes"))
    requests = ((spec.get("resources") or {}).get("requests")) or {}
    storage_path = child_path(path, "resources") + "[storage]"
    if "storage" not in requests:
        errs.append(required(storage_path))
    else:  # a null quantity decodes as 0
        value = "0" if requests["storage"] is None else requests["storage"]
        amount = parse_quantity(value)
        if amount is not None and amount <= 0:
            errs.append(invalid(storage_path, str(value), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        errs += [invalid(child_path(path, "storageClassName"), class_name, m)
                 for m in name_is_dns_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode and mode not in ("Block", "Filesystem"):
        errs.append(not_supported(child_path(path, "volumeMode"), mode, ("Block", "Filesystem")))
    return errs


def validate_volume_claim_templates(claims: list, path: str) -> list[Error]:
    """Mirror of ``validateVolumeClaimTemplates``: each template's spec.  A template's name is
    not checked here: it becomes a pod volume (``volumesToAddForTemplates``), and a bad one is
    reported where upstream meets it, at ``spec.template.spec.volumes[i].name``."""
    errs = []
    for i, claim in enumerate(claims):
        errs += validate_persistent_volume_claim_spec((claim or {}).get("spec") or {},
                                                      child_path(index_path(path, i), "spec"))
    return errs


def volume_claim_names(spec: dict) -> list[str]:
    return [((c or {}).get("metadata") or {}).get("name") or ""
            for c in spec.get("volumeClaimTemplates") or []]
