"""Validation of a StatefulSet, its updates and its status (``pkg/apis/apps/validation/validation.go``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..field_errors import (Error, GoText, child_path, dedupe, forbidden, go_quote, invalid, not_supported,
                            required)
from ..formats import NEGATIVE_MSG, is_valid_percent, name_is_dns_label
from ..quantities import parse_quantity
from ..schema import STATEFUL_SET_SPEC, as_int, prune, decode_errors
from ..selectors import Selector, label_selector_as_selector
from ..validation.meta import (validate_annotations, validate_label_selector, validate_labels,
                               validate_nonnegative_field, validate_object_meta,
                               validate_object_meta_update)
from ..validation.pod import validate_pod_template_spec
from ..validation.pvc import volume_claim_names, validate_volume_claim_templates


# ---------------------------------------------------------------------------
# Go renderings of the values upstream puts in its messages
# ---------------------------------------------------------------------------

def _go_string_map(labels: dict | None) -> GoText:
    """``%#v`` of a ``map[string]string`` (keys sorted, as fmt prints maps)."""
    if labels is None:
        return GoText("map[string]string(nil)")
    items = ", ".join(f"{go_quote(k)}:{go_quote(str(v))}" for k, v in sorted(labels.items()))
    return GoText("map[string]string{" + items + "}")


def _go_label_selector(selector: dict) -> GoText:
    """``(*metav1.LabelSelector).String()``, the generated protobuf printer."""
    labels = selector.get("matchLabels") or {}
    label_text = "".join(f"{k}: {v}," for k, v in sorted(labels.items()))
    exprs = ""
    for req in selector.get("matchExpressions") or ():
        values = " ".join(str(v) for v in (req.get("values") or ()))
        exprs += (f"LabelSelectorRequirement{{Key:{req.get('key') or ''},"
                  f"Operator:{req.get('operator') or ''},Values:[{values}],}},")
    return GoText(f"&LabelSelector{{MatchLabels:map[string]string{{{label_text}}},"
                  f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def _go_int_or_string(value: Any) -> GoText:
    """``(*intstr.IntOrString).String()``: the number, or the string unquoted."""
    return GoText(str(value) if isinstance(value, str) else str(as_int(value)))


_ADDRESS = "0xc000010000"
"""Stand-in for a pointer address Go would print (the real one varies per request)."""


def _go_rolling_update(rolling: dict) -> GoText:
    """``%#v`` of the internal ``apps.RollingUpdateStatefulSetStrategy``."""
    partition = as_int(rolling.get("partition")) or 0
    max_unavailable = ("(*intstr.IntOrString)(nil)" if rolling.get("maxUnavailable") is None
                       else f"(*intstr.IntOrString)({_ADDRESS})")
    return GoText(f"apps.RollingUpdateStatefulSetStrategy{{Partition:{partition},"
                  f" MaxUnavailable:{max_unavailable}}}")


def _go_update_strategy(strategy: dict) -> GoText:
    """``%#v`` of the internal ``apps.StatefulSetUpdateStrategy``."""
    rolling = ("(*apps.RollingUpdateStatefulSetStrategy)(nil)" if strategy.get("rollingUpdate") is None
               else f"(*apps.RollingUpdateStatefulSetStrategy)({_ADDRESS})")
    return GoText(f"apps.StatefulSetUpdateStrategy{{Type:{go_quote(strategy.get('type') or '')},"
                  f" RollingUpdate:{rolling}}}")


# ---------------------------------------------------------------------------
# StatefulSet (pkg/apis/apps/validation/validation.go)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class StatefulSetValidationOptions:
    """Mirror of ``StatefulSetValidationOptions``: what an update tolerates because the
    stored object already had it (ratcheting)."""

    allow_invalid_service_name: bool = False
    skip_validate_pod_template_spec: bool = False
    skip_validate_volume_claim_templates: bool = False
    allow_negative_revision_history_limit: bool = False


_RETENTION = ("Retain", "Delete")


def validate_persistent_volume_claim_retention_policy(policy: dict | None, path: str) -> list[Error]:
    """Mirror of ``ValidatePersistentVolumeClaimRetentionPolicy``."""
    if policy is None:
        return []
    errs = []
    for half in ("whenDeleted", "whenScaled"):
        value = policy.get(half) or ""
        if value not in _RETENTION:
            errs.append(not_supported(child_path(path, half), value, _RETENTION))
    return errs


def validate_rolling_update_stateful_set(rolling: dict, path: str) -> list[Error]:
    """Mirror of ``validateRollingUpdateStatefulSet`` (partition; maxUnavailable a
    positive int or a percentage, not 0, not over 100%)."""
    errs = validate_nonnegative_field(rolling.get("partition") or 0, child_path(path, "partition"))
    value = rolling.get("maxUnavailable")
    if value is None:
        return errs
    at = child_path(path, "maxUnavailable")
    shown = _go_int_or_string(value)
    percent_errs = is_valid_percent(value) if isinstance(value, str) else []
    if isinstance(value, str):
        errs += [invalid(at, shown, m) for m in percent_errs]
        amount = _atoi(value) if percent_errs else int(value[:-1])
    else:
        amount = as_int(value)
        if amount < 0:
            errs.append(invalid(at, shown, NEGATIVE_MSG))
    if amount == 0:
        errs.append(invalid(at, shown, "cannot be 0"))
    if isinstance(value, str) and not percent_errs and amount > 100:
        errs.append(invalid(at, shown, "must not be greater than 100%"))
    return errs


def _atoi(text: str) -> int:
    """``intstr.IntValue`` of a string: Go's ``strconv.Atoi``, 0 when it fails."""
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else 0


def validate_update_strategy(strategy: dict, path: str) -> list[Error]:
    """The ``updateStrategy`` switch of ``ValidateStatefulSetSpec``."""
    kind = strategy.get("type") or ""
    rolling = strategy.get("rollingUpdate")
    if kind == "":
        return [required(path)]
    if kind == "OnDelete":
        if rolling is not None:
            return [invalid(child_path(path, "rollingUpdate"), _go_rolling_update(rolling),
                            "only allowed for updateStrategy 'RollingUpdate'")]
        return []
    if kind == "RollingUpdate":
        return [] if rolling is None else validate_rolling_update_stateful_set(
            rolling, child_path(path, "rollingUpdate"))
    return [invalid(path, _go_update_strategy(strategy), "must be 'RollingUpdate' or 'OnDelete'")]


def validate_pod_template_spec_for_stateful_set(template: dict, selector: Selector,
                                                claim_names: list[str], path: str,
                                                opts: StatefulSetValidationOptions) -> list[Error]:
    """Mirror of ``ValidatePodTemplateSpecForStatefulSet``: the selector must match the
    template's labels, then the template itself is validated with one volume per claim
    template added (unless an update ratchets it off)."""
    errs = []
    labels = (template.get("metadata") or {}).get("labels")
    if not selector.empty and not selector.matches(labels):
        errs.append(invalid(child_path(path, "metadata", "labels"), _go_string_map(labels),
                            "`selector` does not match template `labels`"))
    meta = template.get("metadata") or {}
    errs += validate_labels(meta.get("labels"), child_path(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), child_path(path, "annotations"))
    if not opts.skip_validate_pod_template_spec:
        errs += validate_pod_template_spec(template, claim_names, path)
    return errs


def _validate_selector_and_template(spec: dict, path: str,
                                    opts: StatefulSetValidationOptions) -> list[Error]:
    """The selector part of ``ValidateStatefulSetSpec``: required, valid, not empty,
    parsable -- and only if parsable, the pod template is validated against it."""
    errs = []
    selector_doc = spec.get("selector")
    if selector_doc is None:
        errs.append(required(child_path(path, "selector")))
    else:
        errs += validate_label_selector(selector_doc, child_path(path, "selector"))
        if not selector_doc.get("matchLabels") and not selector_doc.get("matchExpressions"):
            errs.append(invalid(child_path(path, "selector"), _go_label_selector(selector_doc),
                                "empty selector is invalid for statefulset"))
    selector = label_selector_as_selector(selector_doc)
    if selector is None:
        errs.append(invalid(child_path(path, "selector"), _go_label_selector(selector_doc)))
    else:
        errs += validate_pod_template_spec_for_stateful_set(
            spec.get("template") or {}, selector, volume_claim_names(spec), child_path(path, "template"), opts)
    return errs


def validate_stateful_set_status_update(status, old_status, path: str = "status") -> list[Error]:
    """Mirror of ``ValidateStatefulSetStatus`` plus the collisionCount rule of
    ``ValidateStatefulSetStatusUpdate``: what the API server checks when a
    controller writes a set's status (*status* and *old_status* are
    :class:`~stsedu.api.objects.StatefulSetStatus`)."""
    errs: list[Error] = []
    for attr, name in (("replicas", "replicas"), ("ready_replicas", "readyReplicas"),
                       ("current_replicas", "currentReplicas"), ("updated_replicas", "updatedReplicas"),
                       ("observed_generation", "observedGeneration"), ("collision_count", "collisionCount")):
        errs += validate_nonnegative_field(getattr(status, attr), f"{path}.{name}")
    for attr, name in (("ready_replicas", "readyReplicas"), ("current_replicas", "currentReplicas"),
                       ("updated_replicas", "updatedReplicas")):
        value = getattr(status, attr)
        if value > status.replicas:
            errs.append(invalid(f"{path}.{name}", value, "cannot be greater than status.replicas"))
    if (status.collision_count or 0) < (old_status.collision_count or 0):
        errs.append(invalid(f"{path}.collisionCount", status.collision_count or 0, "cannot be decremented"))
    return errs


def validate_stateful_set_spec(spec: dict, path: str = "spec",
                               opts: StatefulSetValidationOptions = StatefulSetValidationOptions(),
                               ) -> list[Error]:
    """Mirror of ``ValidateStatefulSetSpec``, in upstream's order."""
    errs = []
    policy = spec.get("podManagementPolicy") or ""
    if policy == "":
        errs.append(required(child_path(path, "podManagementPolicy")))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid(child_path(path, "podManagementPolicy"), policy,
                            "must be 'OrderedReady' or 'Parallel'"))
    errs += validate_update_strategy(spec.get("updateStrategy") or {}, child_path(path, "updateStrategy"))
    errs += validate_persistent_volume_claim_retention_policy(
        spec.get("persistentVolumeClaimRetentionPolicy"),
        child_path(path, "persistentVolumeClaimRetentionPolicy"))
    if not opts.skip_validate_volume_claim_templates:
        errs += validate_volume_claim_templates(spec.get("volumeClaimTemplates") or [],
                                                child_path(path, "volumeClaimTemplates"))
    errs += validate_nonnegative_field(spec.get("replicas"), child_path(path, "replicas"))
    errs += validate_nonnegative_field(spec.get("minReadySeconds"), child_path(path, "minReadySeconds"))
    if not opts.allow_negative_revision_history_limit:
        errs += validate_nonnegative_field(spec.get("revisionHistoryLimit"),
                                           child_path(path, "revisionHistoryLimit"))
    if spec.get("ordinals") is not None:
        errs += validate_nonnegative_field(spec["ordinals"].get("start") or 0,
                                           child_path(path, "ordinals.start"))
    service = spec.get("serviceName") or ""
    if service and not opts.allow_invalid_service_name:
        errs += [invalid(child_path(path, "serviceName"), service, m) for m in name_is_dns_label(service)]
    errs += _validate_selector_and_template(spec, path, opts)
    pod_spec = (spec.get("template") or {}).get("spec") or {}
    restart = pod_spec.get("restartPolicy") or "Always"
    if restart != "Always":
        errs.append(not_supported(child_path(path, "template", "spec", "restartPolicy"), restart,
                                  ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(child_path(path, "template", "spec", "activeDeadlineSeconds"),
                              "activeDeadlineSeconds in StatefulSet is not Supported"))
    return errs


def validate_statefulset(sts: dict) -> list[Error]:
    """Problems the API server would report creating *sts* (a DEFAULTED dict).

    Mirror of ``ValidateStatefulSet``: ``ValidateObjectMeta`` (the name must be a
    DNS-1123 label, ``ValidateStatefulSetName``) then ``ValidateStatefulSetSpec``.
    Every problem is reported, in upstream's order, as ``(field_path, message)``;
    duplicates are dropped as ``ToAggregate`` drops them.  If the object would not even
    decode (a field of the wrong type) only the decode errors are returned.
    """
    errs = decode_errors(sts)
    if errs:
        return errs
    errs = validate_object_meta(sts.get("metadata") or {}, name_is_dns_label)
    errs += validate_stateful_set_spec(sts.get("spec") or {}, "spec")
    return dedupe(errs)


MUTABLE_SPEC_FIELDS = ("replicas", "ordinals", "template", "updateStrategy",
                       "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy",
                       "minReadySeconds")
"""Spec fields an update may change (everything else is immutable)."""

FORBIDDEN_UPDATE_MSG = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template',"
    " 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and"
    " 'minReadySeconds' are forbidden")
"""The newest upstream wording of the immutable-spec error."""


def _semantic(value: Any, key: str = "") -> Any:
    """Normal form for ``apiequality.Semantic.DeepEqual``: nil equals empty, quantities
    compare by value, Go zero values equal absent fields."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _semantic(v, k)
            if v is None or v == {} or v == []:
                continue
            if k in ("requests", "limits") and isinstance(v, dict):
                v = {rk: parse_quantity(rv) if parse_quantity(rv) is not None else rv
                     for rk, rv in v.items()}
            if (v == "" or v is False or v == 0) and k != "storageClassName":
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [_semantic(v) for v in value]
    return value


def _immutable_part(spec: dict) -> Any:
    pruned = prune(spec, STATEFUL_SET_SPEC)
    return _semantic({k: v for k, v in pruned.items() if k not in MUTABLE_SPEC_FIELDS})


def _update_options(old: dict) -> StatefulSetValidationOptions:
    spec = old.get("spec") or {}
    template_errs = validate_pod_template_spec(spec.get("template") or {}, volume_claim_names(spec),
                                               "spec.template")
    claim_errs = validate_volume_claim_templates(spec.get("volumeClaimTemplates") or [],
                                                 "spec.volumeClaimTemplates")
    history = as_int(spec.get("revisionHistoryLimit"))
    return StatefulSetValidationOptions(
        allow_invalid_service_name=True,
        skip_validate_pod_template_spec=bool(template_errs),
        skip_validate_volume_claim_templates=bool(claim_errs),
        allow_negative_revision_history_limit=history is not None and history < 0)


def validate_statefulset_update(new: dict, old: dict) -> list[Error]:
    """Problems the API server would report updating *old* to *new* (both DEFAULTED).

    Mirror of ``ValidateStatefulSetUpdate``: ``ValidateObjectMetaUpdate`` (the name is
    not re-validated), ``ValidateStatefulSetSpec`` on *new* -- ratcheting what *old*
    already had wrong (an invalid serviceName, pod template, claim templates or a
    negative revisionHistoryLimit does not block an unrelated update) -- then the rule
    that only the fields in :data:`MUTABLE_SPEC_FIELDS` may change::

        ("spec", "Forbidden: updates to statefulset spec for fields other than ...")
    """
    errs = decode_errors(new)
    if errs:
        return errs
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_stateful_set_spec(new.get("spec") or {}, "spec", _update_options(old))
    if _immutable_part(new.get("spec") or {}) != _immutable_part(old.get("spec") or {}):
        errs.append(forbidden("spec", FORBIDDEN_UPDATE_MSG))
    return dedupe(errs)
