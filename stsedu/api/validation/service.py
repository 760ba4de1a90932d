"""Validation of a Service (``pkg/apis/core/validation`` ``ValidateService``, the common parts)."""

from __future__ import annotations

import ipaddress

from ..field_errors import (Error, child_path, dedupe, index_path, duplicate, forbidden, go_json, invalid,
                            not_supported, required)
from ..formats import (is_dns1123_label, is_dns1123_subdomain, is_valid_port_name, is_valid_port_num,
                       name_is_dns1035_label, name_is_dns_label)
from ..schema import as_int, decode_errors
from ..validation.meta import validate_labels, validate_object_meta


# ---------------------------------------------------------------------------
# Service (pkg/apis/core/validation ValidateService, the common parts)
# ---------------------------------------------------------------------------

_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _validate_service_ports(ports: list, path: str) -> list[Error]:
    errs = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        at = index_path(path, i)
        port = port or {}
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(required(child_path(at, "name")))
        elif name:
            errs += [invalid(child_path(at, "name"), name, m) for m in is_dns1123_label(name)]
            if name in names:
                errs.append(duplicate(child_path(at, "name"), name))
            names.add(name)
        number = as_int(port.get("port")) or 0
        errs += [invalid(child_path(at, "port"), number, m) for m in is_valid_port_num(number)]
        protocol = port.get("protocol") or ""
        if protocol not in ("SCTP", "TCP", "UDP"):
            errs.append(not_supported(child_path(at, "protocol"), protocol, ("SCTP", "TCP", "UDP")))
        target = port.get("targetPort")
        if isinstance(target, str):
            errs += [invalid(child_path(at, "targetPort"), target, m) for m in is_valid_port_name(target)]
        elif target is not None:
            errs += [invalid(child_path(at, "targetPort"), as_int(target), m)
                     for m in is_valid_port_num(as_int(target))]
    return errs


def validate_service(svc: dict, relaxed_names: bool = True) -> list[Error]:
    """Problems the API server would report creating Service *svc* (a DEFAULTED dict).

    Mirror of the common parts of ``ValidateService``: the name (a DNS-1123 label since
    RelaxedServiceNameValidation, beta and on in v1.36, GA in v1.37; a DNS-1035 label, no
    leading digit, when *relaxed_names* is False, as in v1.16),
    ports (required unless headless or ExternalName; names, numbers, protocols,
    target ports), type, session affinity, selector labels and the cluster IP.
    """
    errs = decode_errors(svc)
    if errs:
        return errs
    errs = validate_object_meta(svc.get("metadata") or {},
                                name_is_dns_label if relaxed_names else name_is_dns1035_label)
    spec = svc.get("spec") or {}
    kind = spec.get("type") or ""
    cluster_ip = spec.get("clusterIP") or ""
    ports = spec.get("ports") or []
    if not ports and cluster_ip != "None" and kind != "ExternalName":
        errs.append(required("spec.ports"))
    errs += _validate_service_ports(ports, "spec.ports")
    if kind not in _SERVICE_TYPES:
        errs.append(not_supported("spec.type", kind, _SERVICE_TYPES))
    affinity = spec.get("sessionAffinity") or ""
    if affinity not in ("ClientIP", "None"):
        errs.append(not_supported("spec.sessionAffinity", affinity, ("ClientIP", "None")))
    errs += validate_labels(spec.get("selector"), "spec.selector")
    if kind in ("LoadBalancer", "NodePort") and cluster_ip == "None":
        errs.append(invalid("spec.clusterIPs[0]", "None", f"may not be set to 'None' for {kind} services"))
    if kind == "ExternalName":
        if cluster_ip or spec.get("clusterIPs"):
            errs.append(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        external = spec.get("externalName") or ""
        clean = external[:-1] if external.endswith(".") else external  # a trailing dot: fully qualified
        if clean:
            errs += [invalid("spec.externalName", clean, m) for m in is_dns1123_subdomain(clean)]
        else:
            errs.append(required("spec.externalName"))
    if cluster_ip and cluster_ip != "None" and kind != "ExternalName":
        try:
            ipaddress.ip_address(cluster_ip)
        except ValueError:
            errs.append(invalid("spec.clusterIPs[0]", cluster_ip,
                                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
    return dedupe(errs)


def cluster_ips(spec: dict) -> list[str]:
    """``spec.clusterIPs``, or ``[spec.clusterIP]`` when only that is given (the API server
    fills one from the other before validating)."""
    ips = spec.get("clusterIPs")
    if isinstance(ips, list) and ips:
        return [str(ip) for ip in ips]
    return [spec["clusterIP"]] if spec.get("clusterIP") else []


def keep_allocated_values(svc: dict, old: dict) -> dict:
    """Mirror of ``patchAllocatedValues`` (pkg/registry/core/service/storage/storage.go): an
    update that leaves ``clusterIP`` (or ``clusterIPs``) out keeps the stored one, unless
    either side is an ExternalName Service.  Returns *svc* itself or a changed copy."""
    spec, old_spec = svc.get("spec"), old.get("spec") or {}
    if not isinstance(spec, dict) or "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return svc
    patched = dict(spec)
    if patched.get("clusterIP") in (None, "") and old_spec.get("clusterIP"):
        patched["clusterIP"] = old_spec["clusterIP"]
    if patched.get("clusterIPs") in (None, []) and old_spec.get("clusterIPs"):
        patched["clusterIPs"] = old_spec["clusterIPs"]
    return svc if patched == spec else {**svc, "spec": patched}


def validate_service_update(svc: dict, old: dict, relaxed_names: bool = True) -> list[Error]:
    """Problems the API server would report updating Service *old* to *svc* (both defaulted,
    *svc* through :func:`keep_allocated_values`).

    Mirror of ``ValidateServiceUpdate``: ``validateUpgradeDowngradeClusterIPs`` -- the
    cluster IPs cannot change once set, for every type but ExternalName, and a headless
    Service may stay headless (``spec.clusterIPs[0]: Invalid value: ["10.96.0.10"]: may not
    change once set``) -- then ``ValidateService``.  stsedu allocates no cluster IP: a stored
    Service of another type without one stands for a Service the real server gave an IP, so
    setting one (``None`` included) on it is refused too.
    """
    errs = decode_errors(svc)
    if errs:  # the decoder answers first
        return errs
    spec, old_spec = svc.get("spec") or {}, old.get("spec") or {}
    if spec.get("type") != "ExternalName" and old_spec.get("type") != "ExternalName":
        new_ips, old_ips = cluster_ips(spec), cluster_ips(old_spec)
        headless = new_ips[:1] == ["None"] and old_ips[:1] == ["None"]
        if not old_ips and new_ips:
            old_ips = ["<allocated>"]   # the IP the real server would have allocated
        if new_ips and new_ips[0] != "None":  # an address that is no IP is reported as such, alone
            try:
                ipaddress.ip_address(new_ips[0])
            except ValueError:
                new_ips = []
        if not headless and new_ips and old_ips and new_ips[0] != old_ips[0]:
            errs.append(invalid("spec.clusterIPs[0]", go_json(new_ips), "may not change once set"))
    return dedupe(errs + validate_service(svc, relaxed_names))
