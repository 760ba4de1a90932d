"""Validation of object metadata, labels, annotations and label selectors."""

from __future__ import annotations

from typing import Any

from ..field_errors import Error, child_path, index_path, forbidden, invalid, required, too_long
from ..formats import NEGATIVE_MSG, is_qualified_name, is_valid_label_value, name_is_dns_label
from ..schema import as_int


# ---------------------------------------------------------------------------
# Object metadata (k8s.io/apimachinery/pkg/api/validation/objectmeta.go)
# ---------------------------------------------------------------------------

def validate_labels(labels: dict | None, path: str) -> list[Error]:
    """Mirror of ``ValidateLabels`` (errors in document order; Go's map order is random)."""
    errs = []
    for key, value in (labels or {}).items():
        value = "" if value is None else value  # Go decodes null in a string map as ""
        errs += [invalid(path, key, m) for m in is_qualified_name(key)]
        errs += [invalid(path, value, m) for m in is_valid_label_value(value)]
    return errs


TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024


def validate_annotations(annotations: dict | None, path: str) -> list[Error]:
    """Mirror of ``ValidateAnnotations`` (keys are qualified names, case-insensitively)."""
    errs = []
    total = 0
    for key, value in (annotations or {}).items():
        errs += [invalid(path, key, m) for m in is_qualified_name(key.lower())]
        total += len(key.encode()) + len(str(value).encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def validate_nonnegative_field(value: Any, path: str) -> list[Error]:
    """Mirror of ``ValidateNonnegativeField``."""
    number = as_int(value)
    return [invalid(path, number, NEGATIVE_MSG)] if number is not None and number < 0 else []


def validate_object_meta(meta: dict, name_fn, path: str = "metadata",
                         requires_namespace: bool = True) -> list[Error]:
    """Mirror of ``ValidateObjectMeta`` (generateName, name, namespace, generation,
    labels, annotations, finalizers)."""
    errs = []
    name, generate_name = meta.get("name") or "", meta.get("generateName") or ""
    if generate_name:
        errs += [invalid(child_path(path, "generateName"), generate_name, m)
                 for m in name_fn(generate_name, True)]
    if not name:
        errs.append(required(child_path(path, "name"), "name or generateName is required"))
    else:
        errs += [invalid(child_path(path, "name"), name, m) for m in name_fn(name, False)]
    namespace = meta.get("namespace") or ""
    if requires_namespace:
        if not namespace:
            errs.append(required(child_path(path, "namespace")))
        else:
            errs += [invalid(child_path(path, "namespace"), namespace, m)
                     for m in name_is_dns_label(namespace)]
    errs += validate_nonnegative_field(meta.get("generation"), child_path(path, "generation"))
    errs += validate_labels(meta.get("labels"), child_path(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), child_path(path, "annotations"))
    for finalizer in meta.get("finalizers") or ():
        errs += [invalid(child_path(path, "finalizers"), finalizer, m)
                 for m in is_qualified_name(finalizer)]
    return errs


def validate_object_meta_update(new: dict, old: dict, path: str = "metadata") -> list[Error]:
    """Mirror of ``ValidateObjectMetaUpdate`` (name and namespace immutable; labels and
    annotations valid).  Resource version and generation are the cluster's business."""
    errs = []
    for key in ("name", "namespace"):
        if (new.get(key) or "") != (old.get(key) or ""):
            errs.append(invalid(child_path(path, key), new.get(key) or "", "field is immutable"))
    errs += validate_labels(new.get("labels"), child_path(path, "labels"))
    errs += validate_annotations(new.get("annotations"), child_path(path, "annotations"))
    return errs


def validate_label_selector(selector: dict, path: str) -> list[Error]:
    """Mirror of ``ValidateLabelSelector`` (strict: label values in selectors checked)."""
    errs = validate_labels(selector.get("matchLabels"), child_path(path, "matchLabels"))
    for i, expr in enumerate(selector.get("matchExpressions") or ()):
        at = index_path(child_path(path, "matchExpressions"), i)
        op, values = expr.get("operator") or "", expr.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(child_path(at, "values"),
                                     "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(child_path(at, "values"), "may not be specified when"
                                      " `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(child_path(at, "operator"), op, "not a valid selector operator"))
        key = expr.get("key") or ""
        errs += [invalid(child_path(at, "key"), key, m) for m in is_qualified_name(key)]
        for j, value in enumerate(values):
            errs += [invalid(index_path(child_path(at, "values"), j), value, m)
                     for m in is_valid_label_value(value)]
    return errs
