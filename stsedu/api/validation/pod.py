"""Validation of the pod template (``pkg/apis/core/validation``, the parts a learner meets)."""

from __future__ import annotations

from typing import Iterable

from ..field_errors import (Error, child_path, index_path, duplicate, forbidden, invalid, not_found, not_supported,
                            required)
from ..formats import (inclusive_range_error, is_dns1123_label, is_valid_port_name, is_valid_port_num,
                       name_is_dns_subdomain)
from ..quantities import parse_quantity, quantity_string
from ..schema import VOLUME_SOURCES, as_int
from ..validation.meta import validate_annotations, validate_labels, validate_nonnegative_field


# ---------------------------------------------------------------------------
# Pod template (pkg/apis/core/validation/validation.go, the parts a learner meets)
# ---------------------------------------------------------------------------

def validate_volumes(volumes: list, path: str) -> tuple[set[str], list[Error]]:
    """Mirror of ``ValidateVolumes``: the names of the valid volumes, and the errors.

    A volume with any error is left out of the names, so mounts of it are "Not found"
    too, as upstream.  Volume sources are counted, not looked into.
    """
    names: set[str] = set()
    errs = []
    for i, volume in enumerate(volumes):
        at = index_path(path, i)
        volume = volume or {}
        own = []
        sources = [s for s in VOLUME_SOURCES if volume.get(s) is not None]
        if not sources:
            own.append(required(at, "must specify a volume type"))
        own += [forbidden(child_path(at, s), "may not specify more than 1 volume type")
                for s in sources[1:]]
        claim = volume.get("persistentVolumeClaim")
        if sources == ["persistentVolumeClaim"] and isinstance(claim, dict) and not claim.get("claimName"):
            own.append(required(child_path(at, "persistentVolumeClaim", "claimName")))  # validatePersistentClaimVolumeSource
        name = volume.get("name") or ""
        if not name:
            own.append(required(child_path(at, "name")))
        else:
            own += [invalid(child_path(at, "name"), name, m) for m in is_dns1123_label(name)]
        if name in names:
            own.append(duplicate(child_path(at, "name"), name))
        if own:
            errs += own
        else:
            names.add(name)
    return names, errs


def validate_container_ports(ports: list, path: str) -> list[Error]:
    """Mirror of ``validateContainerPorts``."""
    errs = []
    seen: set[str] = set()
    for i, port in enumerate(ports):
        at = index_path(path, i)
        port = port or {}
        name = port.get("name") or ""
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errs += [invalid(child_path(at, "name"), name, m) for m in msgs]
            elif name in seen:
                errs.append(duplicate(child_path(at, "name"), name))
            else:
                seen.add(name)
        number = as_int(port.get("containerPort")) or 0
        if number == 0:
            errs.append(required(child_path(at, "containerPort")))
        else:
            errs += [invalid(child_path(at, "containerPort"), number, m) for m in is_valid_port_num(number)]
        host = as_int(port.get("hostPort")) or 0
        if host:
            errs += [invalid(child_path(at, "hostPort"), host, m) for m in is_valid_port_num(host)]
        protocol = port.get("protocol")
        if protocol and protocol not in ("SCTP", "TCP", "UDP"):
            errs.append(not_supported(child_path(at, "protocol"), protocol, ("SCTP", "TCP", "UDP")))
    return errs


def validate_env(env: list, path: str) -> list[Error]:
    """Mirror of ``ValidateEnv`` with relaxed environment variable names."""
    errs = []
    for i, var in enumerate(env):
        at = child_path(index_path(path, i), "name")
        name = (var or {}).get("name") or ""
        if not name:
            errs.append(required(at))
            errs.append(invalid(at, name, "environment variable name must be non-empty"))
        elif any(ord(c) > 126 or ord(c) < 32 or c == "=" for c in name):
            errs.append(invalid(at, name, "a valid environment variable name must consist only"
                                          " of printable ASCII characters other than '='"))
    return errs


def validate_volume_mounts(mounts: list, volumes: set[str], path: str) -> list[Error]:
    """Mirror of ``ValidateVolumeMounts``: each mount names a volume of the pod (or a
    volume claim template) and has a unique mount path."""
    errs = []
    mount_paths: set[str] = set()
    for i, mount in enumerate(mounts):
        at = index_path(path, i)
        mount = mount or {}
        name, mount_path = mount.get("name") or "", mount.get("mountPath") or ""
        if not name:
            errs.append(required(child_path(at, "name")))
        if name not in volumes:
            errs.append(not_found(child_path(at, "name"), name))
        if not mount_path:
            errs.append(required(child_path(at, "mountPath")))
        if mount_path in mount_paths:
            errs.append(invalid(child_path(at, "mountPath"), mount_path, "must be unique"))
        mount_paths.add(mount_path)
    return errs


def validate_container_common(container: dict, volumes: set[str], path: str) -> list[Error]:
    """Mirror of ``validateContainerCommon`` (name, image, termination message policy,
    ports, env, volume mounts, image pull policy)."""
    errs = []
    name = container.get("name") or ""
    if not name:
        errs.append(required(child_path(path, "name")))
    else:
        errs += [invalid(child_path(path, "name"), name, m) for m in is_dns1123_label(name)]
    if not container.get("image"):
        errs.append(required(child_path(path, "image")))
    policy = container.get("terminationMessagePolicy")
    if policy and policy not in ("File", "FallbackToLogsOnError"):
        errs.append(not_supported(child_path(path, "terminationMessagePolicy"), policy,
                                  ("File", "FallbackToLogsOnError")))
    errs += validate_container_ports(container.get("ports") or [], child_path(path, "ports"))
    errs += validate_env(container.get("env") or [], child_path(path, "env"))
    errs += validate_volume_mounts(container.get("volumeMounts") or [], volumes,
                                   child_path(path, "volumeMounts"))
    pull = container.get("imagePullPolicy")
    if pull and pull not in ("Always", "IfNotPresent", "Never"):
        errs.append(not_supported(child_path(path, "imagePullPolicy"), pull,
                                  ("Always", "IfNotPresent", "Never")))
    errs += validate_resource_requirements(container.get("resources") or {}, child_path(path, "resources"))
    return errs


_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")


def _port_num_or_name(port, path: str) -> list[Error]:
    """Mirror of ``ValidatePortNumOrName``."""
    if isinstance(port, str):
        return [invalid(path, port, m) for m in is_valid_port_name(port)]
    number = as_int(port)
    number = 0 if number is None else number
    return [invalid(path, number, m) for m in is_valid_port_num(number)]


def validate_probe(probe, kind: str, path: str) -> list[Error]:
    """Mirror of ``validateProbe`` (``validateHandler`` for its one handler, the non-negative
    counts, ``terminationGracePeriodSeconds`` > 0) plus what ``validateLivenessProbe``,
    ``validateReadinessProbe`` and ``validateStartupProbe`` add for *kind*.  *probe* is
    defaulted (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3;
    ``httpGet`` path "/" and scheme HTTP)."""
    if not isinstance(probe, dict):
        return []
    errs: list[Error] = []
    handlers = [h for h in _PROBE_HANDLERS if probe.get(h) is not None]
    for extra in handlers[1:]:
        errs.append(forbidden(child_path(path, extra), "may not specify more than 1 handler type"))
    handler = handlers[0] if handlers else None
    action = probe.get(handler) if handler else None
    action = action if isinstance(action, dict) else {}
    at = child_path(path, handler) if handler else path
    if handler is None:
        errs.append(required(path, "must specify a handler type"))
    elif handler == "exec":
        if not action.get("command"):
            errs.append(required(child_path(at, "command")))
    elif handler == "httpGet":
        if not action.get("path"):
            errs.append(required(child_path(at, "path")))
        errs += _port_num_or_name(action.get("port"), child_path(at, "port"))
        scheme = action.get("scheme") or ""
        if scheme not in ("HTTP", "HTTPS"):
            errs.append(not_supported(child_path(at, "scheme"), scheme, ("HTTP", "HTTPS")))
    else:   # tcpSocket, grpc
        errs += _port_num_or_name(action.get("port") if handler == "tcpSocket" else as_int(action.get("port")),
                                  child_path(at, "port"))
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs += validate_nonnegative_field(probe.get(key), child_path(path, key))
    grace = as_int(probe.get("terminationGracePeriodSeconds"))
    if grace is not None and grace <= 0:
        errs.append(invalid(child_path(path, "terminationGracePeriodSeconds"), grace, "must be greater than 0"))
    if kind in ("livenessProbe", "startupProbe"):
        success = as_int(probe.get("successThreshold"))
        if success is not None and success != 1:
            errs.append(invalid(child_path(path, "successThreshold"), success, "must be 1"))
    elif grace is not None:
        errs.append(invalid(child_path(path, "terminationGracePeriodSeconds"), grace,
                            "must not be set for readinessProbes"))
    return errs


def validate_resource_requirements(resources: dict, path: str) -> list[Error]:
    """Mirror of ``ValidateResourceRequirements`` (the quantity checks): no limit or request
    below 0 (``ValidateNonnegativeQuantity``, at ``limits[cpu]``), and no request above the
    limit of the same resource (``must be less than or equal to cpu limit of 1``, reported
    at ``requests`` itself, as upstream does).  Values are printed as ``Quantity.String``."""
    errs: list[Error] = []
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    parsed_limits = {}
    for name, value in limits.items():
        amount = parse_quantity(value)
        if amount is None:
            continue  # a decode error already
        parsed_limits[name] = (amount, value)
        if amount < 0:
            errs.append(invalid(f"{child_path(path, 'limits')}[{name}]", quantity_string(value),
                                "must be greater than or equal to 0"))
    for name, value in requests.items():
        amount = parse_quantity(value)
        if amount is None:
            continue
        if amount < 0:
            errs.append(invalid(f"{child_path(path, 'requests')}[{name}]", quantity_string(value),
                                "must be greater than or equal to 0"))
        if name in parsed_limits and amount > parsed_limits[name][0]:
            errs.append(invalid(child_path(path, "requests"), quantity_string(value),
                                f"must be less than or equal to {name} limit of "
                                f"{quantity_string(parsed_limits[name][1])}"))
    return errs


def validate_pod_only(spec: dict, path: str = "spec") -> list[Error]:
    """What the API server checks on a pod but not on a pod template
    (``validateContainersOnlyForPod``): an image with leading or trailing whitespace.
    A StatefulSet with such a template is valid; the controller's pod create fails."""
    errs = []
    for key in ("initContainers", "containers"):
        for i, container in enumerate(spec.get(key) or []):
            image = (container or {}).get("image")
            if isinstance(image, str) and image != image.strip():
                errs.append(invalid(child_path(index_path(child_path(path, key), i), "image"), image,
                                    "must not have leading or trailing whitespace"))
    return errs


def pod_template_warnings(template: dict, path: str) -> list[str]:
    """Warnings the API server returns for a pod template (``GetWarningsForPodTemplate``, the
    part stsedu models): a negative ``terminationGracePeriodSeconds`` is accepted, and
    treated as 1 when a pod is deleted."""
    spec = (template or {}).get("spec") or {}
    grace = as_int(spec.get("terminationGracePeriodSeconds"))
    if grace is not None and grace < 0:
        return [f"{child_path(path, 'spec', 'terminationGracePeriodSeconds')}: must be >= 0; negative values"
                " are invalid and will be treated as 1"]
    return []


def _validate_each_container(containers: list, names: set[str], volumes: set[str], path: str,
                             probes: bool = True) -> list[Error]:
    """``validateContainerCommon`` on each container, and a Duplicate for a name already in *names*
    (which collects the names seen)."""
    errs = []
    for i, container in enumerate(containers):
        at = index_path(path, i)
        container = container or {}
        errs += validate_container_common(container, volumes, at)
        if probes:
            for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
                errs += validate_probe(container.get(kind), kind, child_path(at, kind))
        name = container.get("name") or ""
        if name in names:
            errs.append(duplicate(child_path(at, "name"), name))
        else:
            names.add(name)
    return errs


def validate_containers(containers: list, volumes: set[str], path: str) -> list[Error]:
    """Mirror of ``validateContainers``: at least one; names unique."""
    if not containers:
        return [required(path)]
    return _validate_each_container(containers, set(), volumes, path)


def validate_init_containers(init: list, containers: list, volumes: set[str],
                             path: str) -> list[Error]:
    """Mirror of ``validateInitContainers``: names unique among all containers."""
    # (an init container's probes are validated by validateInitContainers only for restartable
    # sidecars, which the kit does not model: left to the real API server)
    return _validate_each_container(init, {(c or {}).get("name") or "" for c in containers}, volumes, path,
                                    probes=False)


def validate_pod_spec(spec: dict, claim_names: Iterable[str], path: str) -> list[Error]:
    """Mirror of ``ValidatePodSpec`` for a StatefulSet template whose volumes include one
    per volume claim template (``volumesToAddForTemplates``)."""
    claims = list(dict.fromkeys(claim_names))   # upstream keys them by name (a Go map)
    volumes = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    volumes += [v for v in spec.get("volumes") or [] if (v or {}).get("name") not in claims]
    names, errs = validate_volumes(volumes, child_path(path, "volumes"))
    containers = spec.get("containers") or []
    errs += validate_containers(containers, names, child_path(path, "containers"))
    errs += validate_init_containers(spec.get("initContainers") or [], containers, names,
                                     child_path(path, "initContainers"))
    restart = spec.get("restartPolicy")
    if restart and restart not in ("Always", "OnFailure", "Never"):
        errs.append(not_supported(child_path(path, "restartPolicy"), restart,
                                  ("Always", "OnFailure", "Never")))
    dns = spec.get("dnsPolicy")
    if dns and dns not in ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"):
        errs.append(not_supported(child_path(path, "dnsPolicy"), dns,
                                  ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")))
    errs += validate_labels(spec.get("nodeSelector"), child_path(path, "nodeSelector"))
    account = spec.get("serviceAccountName") or ""
    if account:
        errs += [invalid(child_path(path, "serviceAccountName"), account, m)
                 for m in name_is_dns_subdomain(account)]
    for key in ("hostname", "subdomain"):     # ValidateDNS1123Label
        value = spec.get(key) or ""
        if isinstance(value, str) and value:
            errs += [invalid(child_path(path, key), value, m) for m in is_dns1123_label(value)]
    priority_class = spec.get("priorityClassName") or ""   # ValidatePriorityClassName
    if isinstance(priority_class, str) and priority_class:
        errs += [invalid(child_path(path, "priorityClassName"), priority_class, m)
                 for m in name_is_dns_subdomain(priority_class)]
    # schedulerName: ValidatePodSpec does not check it (any string; default-scheduler if empty)
    deadline = as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= (1 << 31) - 1:
        errs.append(invalid(child_path(path, "activeDeadlineSeconds"), deadline,
                            inclusive_range_error(1, (1 << 31) - 1)))
    return errs


def validate_pod_template_spec(template: dict, claim_names: Iterable[str], path: str) -> list[Error]:
    """Mirror of ``ValidatePodTemplateSpec`` (labels are reported at ``<path>.labels``,
    upstream's own path, not ``<path>.metadata.labels``)."""
    meta = template.get("metadata") or {}
    errs = validate_labels(meta.get("labels"), child_path(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), child_path(path, "annotations"))
    spec = template.get("spec") or {}
    errs += validate_pod_spec(spec, claim_names, child_path(path, "spec"))
    if spec.get("ephemeralContainers"):
        errs.append(forbidden(child_path(path, "spec", "ephemeralContainers"),
                              "ephemeral containers not allowed in pod template"))
    return errs
