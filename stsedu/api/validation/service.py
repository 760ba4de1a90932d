"""Validation of a Service (``pkg/apis/core/validation`` ``ValidateService``, the common parts)."""

from __future__ import annotations

import ipaddress

from ..field_errors import Error, _child, _dedupe, _index, duplicate, invalid, not_supported, required
from ..formats import is_dns1123_label, is_valid_port_name, is_valid_port_num, name_is_dns1035_label
from ..schema import _as_int, decode_errors
from ..validation.meta import validate_labels, validate_object_meta


# ---------------------------------------------------------------------------
# Service (pkg/apis/core/validation ValidateService, the common parts)
# ---------------------------------------------------------------------------

_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _validate_service_ports(ports: list, path: str) -> list[Error]:
    errs = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        at = _index(path, i)
        port = port or {}
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(required(_child(at, "name")))
        elif name:
            errs += [invalid(_child(at, "name"), name, m) for m in is_dns1123_label(name)]
            if name in names:
                errs.append(duplicate(_child(at, "name"), name))
            names.add(name)
        number = _as_int(port.get("port")) or 0
        errs += [invalid(_child(at, "port"), number, m) for m in is_valid_port_num(number)]
        protocol = port.get("protocol") or ""
        if protocol not in ("SCTP", "TCP", "UDP"):
            errs.append(not_supported(_child(at, "protocol"), protocol, ("SCTP", "TCP", "UDP")))
        target = port.get("targetPort")
        if isinstance(target, str):
            errs += [invalid(_child(at, "targetPort"), target, m) for m in is_valid_port_name(target)]
        elif target is not None:
            errs += [invalid(_child(at, "targetPort"), _as_int(target), m)
                     for m in is_valid_port_num(_as_int(target))]
    return errs


def validate_service(svc: dict) -> list[Error]:
    """Problems the API server would report creating Service *svc* (a DEFAULTED dict).

    Mirror of the common parts of ``ValidateService``: the name (a DNS-1035 label),
    ports (required unless headless or ExternalName; names, numbers, protocols,
    target ports), type, session affinity, selector labels and the cluster IP.
    """
    errs = decode_errors(svc)
    if errs:
        return errs
    errs = validate_object_meta(svc.get("metadata") or {}, name_is_dns1035_label)
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
    if cluster_ip and cluster_ip != "None":
        try:
            ipaddress.ip_address(cluster_ip)
        except ValueError:
            errs.append(invalid("spec.clusterIPs[0]", cluster_ip,
                                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
    return _dedupe(errs)
