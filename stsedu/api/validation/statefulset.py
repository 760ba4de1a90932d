"""Validation of a StatefulSet, its updates and its status (``pkg/apis/apps/validation/validation.go``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..field_errors import (Error, GoText, child_path, dedupe, forbidden, go_json, go_quote, invalid,
                            not_supported, required)
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


def _json_string_map(labels: dict | None) -> GoText:
    """``json.Marshal`` of a ``map[string]string`` (keys sorted, as Go writes maps)."""
    return go_json(None if labels is None else {k: labels[k] for k in sorted(labels)})


def _json_label_selector(selector: dict | None) -> GoText:
    """``json.Marshal`` of a ``*metav1.LabelSelector`` (its json tags, empty parts left out)."""
    return go_json(_label_selector_value(selector))


def _label_selector_value(selector: dict | None) -> Any:
    if selector is None:
        return None
    out: dict = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = {k: selector["matchLabels"][k] for k in sorted(selector["matchLabels"])}
    if selector.get("matchExpressions"):
        reqs = []
        for req in selector["matchExpressions"]:
            item = {"key": req.get("key") or "", "operator": req.get("operator") or ""}
            if req.get("values"):
                item["values"] = list(req["values"])
            reqs.append(item)
        out["matchExpressions"] = reqs
    return out


def _json_int_or_string(value: Any) -> Any:
    return value if isinstance(value, str) else as_int(value)


def _json_rolling_update(rolling: dict | None) -> Any:
    """The internal ``apps.RollingUpdateStatefulSetStrategy`` as ``json.Marshal`` writes it
    (no json tags: Go's field names)."""
    if rolling is None:
        return None
    max_unavailable = rolling.get("maxUnavailable")
    return {"Partition": as_int(rolling.get("partition")) or 0,
            "MaxUnavailable": None if max_unavailable is None else _json_int_or_string(max_unavailable)}


def _sorted_map(value: Any, zero: Any = "") -> Any:
    """A Go map as ``json.Marshal`` writes it: keys sorted, a null value decoded as *zero*;
    absent is null, empty is ``{}``."""
    if not isinstance(value, dict):
        return None
    return {k: zero if value[k] is None else value[k] for k in sorted(value)}


def _strings(value: Any) -> Any:
    """A Go ``[]string``: null stays null, an empty list ``[]``, a null item ``""``."""
    return None if not isinstance(value, list) else ["" if v is None else v for v in value]


_OBJECT_META_JSON = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                     "generation", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                     "annotations", "ownerReferences", "finalizers", "managedFields")
"""``metav1.ObjectMeta``'s json fields in declaration order (all omitempty; creationTimestamp omitzero)."""


def _json_claim_templates(claims: list | None) -> GoText:
    """``json.Marshal`` of the internal ``[]api.PersistentVolumeClaim`` (v1.37): the embedded
    ObjectMeta by its json tags, Spec and Status by Go's field names."""
    if not claims:
        return go_json(None)
    out = []
    for claim in claims:
        claim = claim or {}
        meta = claim.get("metadata") or {}
        spec = claim.get("spec") or {}
        status = claim.get("status") or {}
        resources = spec.get("resources") or {}
        item = {k: meta[k] for k in _OBJECT_META_JSON if meta.get(k) not in (None, "", 0, [], {})}
        for k in ("labels", "annotations"):
            if k in item:
                item[k] = _sorted_map(item[k])
        source = spec.get("dataSource")
        ref = spec.get("dataSourceRef")
        item["Spec"] = {
            "AccessModes": _strings(spec.get("accessModes")),
            "Selector": _label_selector_value(spec.get("selector")),
            "Resources": {"Limits": _sorted_map(resources.get("limits"), "0"),
                          "Requests": _sorted_map(resources.get("requests"), "0")},
            "VolumeName": spec.get("volumeName") or "",
            "StorageClassName": spec.get("storageClassName"),
            "VolumeMode": spec.get("volumeMode"),
            "DataSource": None if source is None else {
                "APIGroup": source.get("apiGroup"), "Kind": source.get("kind") or "",
                "Name": source.get("name") or ""},
            "DataSourceRef": None if ref is None else {
                "APIGroup": ref.get("apiGroup"), "Kind": ref.get("kind") or "",
                "Name": ref.get("name") or "", "Namespace": ref.get("namespace")},
            "VolumeAttributesClassName": spec.get("volumeAttributesClassName")}
        item["Status"] = {
            "Phase": status.get("phase") or "", "AccessModes": _strings(status.get("accessModes")),
            "Capacity": _sorted_map(status.get("capacity"), "0"), "Conditions": None,
            "AllocatedResources": _sorted_map(status.get("allocatedResources"), "0"),
            "AllocatedResourceStatuses": _sorted_map(status.get("allocatedResourceStatuses")),
            "CurrentVolumeAttributesClassName": status.get("currentVolumeAttributesClassName"),
            "ModifyVolumeStatus": None, "HealthStatus": None}
        out.append(item)
    return go_json(out)


@dataclass(frozen=True)
class Release:
    """What the API server releases the profiles model word or rule differently.

    *json_values*: since v1.36 ``field.Error`` prints a bad value that is neither a string
    nor a number as JSON (``Invalid value: {"app":"nginx"}``); before, with ``%#v`` or its
    ``String()`` (``map[string]string{"app":"nginx"}``).  *immutable_fields*: v1.37's
    ``ValidateStatefulSetUpdate`` names each immutable field that changed (``spec.serviceName:
    Invalid value: "other": field is immutable``); before, one ``spec: Forbidden`` error with
    *forbidden_update_msg*, for a change outside *mutable_fields*.  *history_limit_warning*:
    ``WarningsOnCreate``/``WarningsOnUpdate`` warn about a negative revisionHistoryLimit
    (no release validates it).  *relaxed_service_names*: a Service name is a DNS-1123 label
    (RelaxedServiceNameValidation, on since v1.36), not a DNS-1035 one."""

    json_values: bool = True
    immutable_fields: bool = True
    forbidden_update_msg: str = ""
    mutable_fields: tuple[str, ...] = ()
    history_limit_warning: bool = True
    relaxed_service_names: bool = True


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
    json_values: bool = True
    """Print bad values as JSON (v1.36 and later) rather than Go's ``%#v`` (:class:`Release`)."""
    allow_stateful_set_recreate_strategy: bool = False
    """``AllowStatefulSetRecreateStrategy``: the gate StatefulSetRecreateStrategy is on, or (an
    update) the stored set already uses Recreate (pkg/registry/apps/statefulset/strategy.go)."""


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


def validate_rolling_update_stateful_set(rolling: dict, path: str, json_values: bool = True) -> list[Error]:
    """Mirror of ``validateRollingUpdateStatefulSet`` (partition; maxUnavailable a
    positive int or a percentage, not 0, not over 100%)."""
    errs = validate_nonnegative_field(rolling.get("partition") or 0, child_path(path, "partition"))
    value = rolling.get("maxUnavailable")
    if value is None:
        return errs
    at = child_path(path, "maxUnavailable")
    shown = go_json(_json_int_or_string(value)) if json_values else _go_int_or_string(value)
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


def validate_update_strategy(strategy: dict, path: str, json_values: bool = True,
                             allow_recreate: bool = False) -> list[Error]:
    """The ``updateStrategy`` switch of ``ValidateStatefulSetSpec``; *allow_recreate* is
    ``AllowStatefulSetRecreateStrategy`` (v1.37: Recreate is a valid type only with it)."""
    kind = strategy.get("type") or ""
    rolling = strategy.get("rollingUpdate")
    if kind == "":
        return [required(path)]
    if kind == "OnDelete" or (kind == "Recreate" and allow_recreate):
        if rolling is not None:
            shown = go_json(_json_rolling_update(rolling)) if json_values else _go_rolling_update(rolling)
            return [invalid(child_path(path, "rollingUpdate"), shown,
                            "only allowed for updateStrategy 'RollingUpdate'")]
        return []
    if kind == "RollingUpdate":
        return [] if rolling is None else validate_rolling_update_stateful_set(
            rolling, child_path(path, "rollingUpdate"), json_values)
    shown = (go_json({"Type": kind, "RollingUpdate": _json_rolling_update(rolling)}) if json_values
             else _go_update_strategy(strategy))
    valid = ("must be 'RollingUpdate', 'OnDelete', or 'Recreate'" if allow_recreate
             else "must be 'RollingUpdate' or 'OnDelete'")
    return [invalid(path, shown, valid)]


def validate_pod_template_spec_for_stateful_set(template: dict, selector: Selector,
                                                claim_names: list[str], path: str,
                                                opts: StatefulSetValidationOptions) -> list[Error]:
    """Mirror of ``ValidatePodTemplateSpecForStatefulSet``: the selector must match the
    template's labels, then the template itself is validated with one volume per claim
    template added (unless an update ratchets it off)."""
    errs = []
    labels = (template.get("metadata") or {}).get("labels")
    if not selector.empty and not selector.matches(labels):
        shown = _json_string_map(labels) if opts.json_values else _go_string_map(labels)
        errs.append(invalid(child_path(path, "metadata", "labels"), shown,
                            "`selector` does not match template `labels`"))
    if not opts.skip_validate_pod_template_spec:
        errs += validate_pod_template_spec(_without_identity(template), claim_names, path)
    meta = template.get("metadata") or {}
    errs += validate_labels(meta.get("labels"), child_path(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), child_path(path, "annotations"))
    return errs


def _without_identity(template: dict) -> dict:
    """The template ``ValidateStatefulSetSpec`` validates: ``hostname`` and ``subdomain``
    blanked, since the controller overwrites them with the pod's name and the serviceName
    (``initIdentity``), so a bad one is never checked."""
    spec = template.get("spec")
    if not isinstance(spec, dict) or not (spec.get("hostname") or spec.get("subdomain")):
        return template
    return {**template, "spec": {k: v for k, v in spec.items() if k not in ("hostname", "subdomain")}}


def _validate_selector_and_template(spec: dict, path: str,
                                    opts: StatefulSetValidationOptions) -> list[Error]:
    """The selector part of ``ValidateStatefulSetSpec``: required, valid, not empty,
    parsable -- and only if parsable, the pod template is validated against it."""
    errs = []
    show = _json_label_selector if opts.json_values else _go_label_selector
    selector_doc = spec.get("selector")
    if selector_doc is None:
        errs.append(required(child_path(path, "selector")))
    else:
        errs += validate_label_selector(selector_doc, child_path(path, "selector"))
        if not selector_doc.get("matchLabels") and not selector_doc.get("matchExpressions"):
            errs.append(invalid(child_path(path, "selector"), show(selector_doc),
                                "empty selector is invalid for statefulset"))
    selector = label_selector_as_selector(selector_doc)
    if selector is None:
        errs.append(invalid(child_path(path, "selector"), show(selector_doc)))
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
    errs += validate_update_strategy(spec.get("updateStrategy") or {}, child_path(path, "updateStrategy"),
                                     opts.json_values, opts.allow_stateful_set_recreate_strategy)
    errs += validate_persistent_volume_claim_retention_policy(
        spec.get("persistentVolumeClaimRetentionPolicy"),
        child_path(path, "persistentVolumeClaimRetentionPolicy"))
    if not opts.skip_validate_volume_claim_templates:
        errs += validate_volume_claim_templates(spec.get("volumeClaimTemplates") or [],
                                                child_path(path, "volumeClaimTemplates"))
    errs += validate_nonnegative_field(spec.get("replicas"), child_path(path, "replicas"))
    errs += validate_nonnegative_field(spec.get("minReadySeconds"), child_path(path, "minReadySeconds"))
    # revisionHistoryLimit is not validated (a negative one keeps every revision): Release.history_limit_warning
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


MUTABLE_SPEC_FIELDS = ("replicas", "ordinals", "template", "updateStrategy",
                       "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy",
                       "minReadySeconds")
"""Spec fields an update may change (everything else is immutable)."""

IMMUTABLE_SPEC_FIELDS = ("selector", "volumeClaimTemplates", "serviceName", "podManagementPolicy")
"""The immutable spec fields, in the order v1.37's ``ValidateStatefulSetUpdate`` checks them."""

FORBIDDEN_UPDATE_MSG = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template',"
    " 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and"
    " 'minReadySeconds' are forbidden")
"""The v1.26-v1.36 wording of the immutable-spec error (one ``spec: Forbidden``)."""

V1_37 = Release()
V1_36 = Release(immutable_fields=False, forbidden_update_msg=FORBIDDEN_UPDATE_MSG,
                mutable_fields=MUTABLE_SPEC_FIELDS)
V1_16 = Release(json_values=False, immutable_fields=False,
                forbidden_update_msg=("updates to statefulset spec for fields other than 'replicas', "
                                      "'template', and 'updateStrategy' are forbidden"),
                mutable_fields=("replicas", "template", "updateStrategy"), history_limit_warning=False,
                relaxed_service_names=False)
RELEASES = {"v1.37": V1_37, "v1.36": V1_36, "v1.16": V1_16}
"""The :class:`Release` of each profile's version (``Profile.version``)."""


def validate_statefulset(sts: dict, release: Release = V1_37, recreate_gate: bool = False) -> list[Error]:
    """Problems the API server would report creating *sts* (a DEFAULTED dict).

    Mirror of ``ValidateStatefulSet``: ``ValidateObjectMeta`` (the name must be a
    DNS-1123 label, ``ValidateStatefulSetName``) then ``ValidateStatefulSetSpec``.
    Every problem is reported, in upstream's order, as ``(field_path, message)``;
    duplicates are dropped as ``ToAggregate`` drops them.  If the object would not even
    decode (a field of the wrong type) only the decode errors are returned.
    *recreate_gate*: StatefulSetRecreateStrategy is on (``updateStrategy.type: Recreate`` is valid).
    """
    errs = decode_errors(sts)
    if errs:
        return errs
    errs = validate_object_meta(sts.get("metadata") or {}, name_is_dns_label)
    errs += validate_stateful_set_spec(sts.get("spec") or {}, "spec",
                                       StatefulSetValidationOptions(
                                           json_values=release.json_values,
                                           allow_stateful_set_recreate_strategy=recreate_gate))
    return dedupe(errs)


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


def _spec_part(spec: dict, keep) -> Any:
    pruned = prune(spec, STATEFUL_SET_SPEC)
    return _semantic({k: v for k, v in pruned.items() if keep(k)})


def _update_options(old: dict, release: Release, recreate_gate: bool) -> StatefulSetValidationOptions:
    """``ValidateUpdate``'s options (pkg/registry/apps/statefulset/strategy.go): a stored
    serviceName and claim templates are never re-validated (both are immutable), and if the
    stored spec has any error the pod template is not validated either (ratcheting).  Recreate
    stays allowed for a set that already uses it, gate on or off."""
    stored_recreate = ((old.get("spec") or {}).get("updateStrategy") or {}).get("type") == "Recreate"
    opts = StatefulSetValidationOptions(allow_invalid_service_name=True,
                                        skip_validate_volume_claim_templates=True,
                                        json_values=release.json_values,
                                        allow_stateful_set_recreate_strategy=recreate_gate or stored_recreate)
    if validate_stateful_set_spec(old.get("spec") or {}, "spec", opts):
        return replace(opts, skip_validate_pod_template_spec=True)
    return opts


def _immutable_errors(new_spec: dict, old_spec: dict, release: Release) -> list[Error]:
    if release.immutable_fields:  # v1.37: ValidateImmutableField, one field at a time
        errs = []
        for key in IMMUTABLE_SPEC_FIELDS:
            if _spec_part(new_spec, lambda k: k == key) != _spec_part(old_spec, lambda k: k == key):
                value = new_spec.get(key)
                shown = (_json_label_selector(value) if key == "selector" else
                         _json_claim_templates(value) if key == "volumeClaimTemplates" else value or "")
                errs.append(invalid(child_path("spec", key), shown, "field is immutable"))
        return errs
    mutable = release.mutable_fields
    if _spec_part(new_spec, lambda k: k not in mutable) != _spec_part(old_spec, lambda k: k not in mutable):
        return [forbidden("spec", release.forbidden_update_msg)]
    return []


def validate_statefulset_update(new: dict, old: dict, release: Release = V1_37,
                                recreate_gate: bool = False) -> list[Error]:
    """Problems the API server would report updating *old* to *new* (both DEFAULTED).

    Mirror of ``ValidateStatefulSetUpdate``: ``ValidateObjectMetaUpdate`` (the name is
    not re-validated), ``ValidateStatefulSetSpec`` on *new* -- ratcheting what *old*
    already had wrong (an invalid serviceName, pod template or claim templates does not
    block an unrelated update) -- then the immutable fields: in v1.37 each one that
    changed (``("spec.serviceName", 'Invalid value: "other": field is immutable')``),
    in earlier releases one ``("spec", "Forbidden: updates to statefulset spec for fields
    other than ...")`` (*release*).
    """
    errs = decode_errors(new)
    if errs:
        return errs
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_stateful_set_spec(new.get("spec") or {}, "spec", _update_options(old, release, recreate_gate))
    errs += _immutable_errors(new.get("spec") or {}, old.get("spec") or {}, release)
    return dedupe(errs)


def statefulset_warnings(sts: dict, release: Release = V1_37) -> list[str]:
    """The StatefulSet part of ``WarningsOnCreate``/``WarningsOnUpdate`` beyond the pod
    template's: a negative revisionHistoryLimit is stored (it keeps every revision), with a
    warning."""
    limit = as_int((sts.get("spec") or {}).get("revisionHistoryLimit"))
    if release.history_limit_warning and limit is not None and limit < 0:
        return ["spec.revisionHistoryLimit: a negative value retains all historical revisions;"
                " a value >= 0 is recommended"]
    return []
