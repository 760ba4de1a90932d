"""Validation of the pod template (``pkg/apis/core/validation``, the parts a learner meets)."""

from __future__ import annotations

from typing import Iterable

from ..field_errors import (Error, _child, _index, duplicate, forbidden, invalid, not_found, not_supported,
                            required)
from ..formats import (inclusive_range_error, is_dns1123_label, is_valid_port_name, is_valid_port_num,
                       name_is_dns_subdomain)
from ..schema import VOLUME_SOURCES, _as_int
from ..validation.meta import validate_annotations, validate_labels


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
        at = _index(path, i)
        volume = volume or {}
        own = []
        sources = [s for s in VOLUME_SOURCES if volume.get(s) is not None]
        if not sources:
            own.append(required(at, "must specify a volume type"))
        own += [forbidden(_child(at, s), "may not specify more than 1 volume type")
                for s in sources[1:]]
        name = volume.get("name") or ""
        if not name:
            own.append(required(_child(at, "name")))
        else:
            own += [invalid(_child(at, "name"), name, m) for m in is_dns1123_label(name)]
        if name in names:
            own.append(duplicate(_child(at, "name"), name))
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
        at = _index(path, i)
        port = port or {}
        name = port.get("name") or ""
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errs += [invalid(_child(at, "name"), name, m) for m in msgs]
            elif name in seen:
                errs.append(duplicate(_child(at, "name"), name))
            else:
                seen.add(name)
        number = _as_int(port.get("containerPort")) or 0
        if number == 0:
            errs.append(required(_child(at, "containerPort")))
        else:
            errs += [invalid(_child(at, "containerPort"), number, m) for m in is_valid_port_num(number)]
        host = _as_int(port.get("hostPort")) or 0
        if host:
            errs += [invalid(_child(at, "hostPort"), host, m) for m in is_valid_port_num(host)]
        protocol = port.get("protocol")
        if protocol and protocol not in ("SCTP", "TCP", "UDP"):
            errs.append(not_supported(_child(at, "protocol"), protocol, ("SCTP", "TCP", "UDP")))
    return errs


def validate_env(env: list, path: str) -> list[Error]:
    """Mirror of ``ValidateEnv`` with relaxed environment variable names."""
    errs = []
    for i, var in enumerate(env):
        at = _child(_index(path, i), "name")
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
        at = _index(path, i)
        mount = mount or {}
        name, mount_path = mount.get("name") or "", mount.get("mountPath") or ""
        if not name:
            errs.append(required(_child(at, "name")))
        if name not in volumes:
            errs.append(not_found(_child(at, "name"), name))
        if not mount_path:
            errs.append(required(_child(at, "mountPath")))
        if mount_path in mount_paths:
            errs.append(invalid(_child(at, "mountPath"), mount_path, "must be unique"))
        mount_paths.add(mount_path)
    return errs


def validate_container_common(container: dict, volumes: set[str], path: str) -> list[Error]:
    """Mirror of ``validateContainerCommon`` (name, image, termination message policy,
    ports, env, volume mounts, image pull policy)."""
    errs = []
    name = container.get("name") or ""
    if not name:
        errs.append(required(_child(path, "name")))
    else:
        errs += [invalid(_child(path, "name"), name, m) for m in is_dns1123_label(name)]
    if not container.get("image"):
        errs.append(required(_child(path, "image")))
    policy = container.get("terminationMessagePolicy")
    if policy and policy not in ("File", "FallbackToLogsOnError"):
        errs.append(not_supported(_child(path, "terminationMessagePolicy"), policy,
                                  ("File", "FallbackToLogsOnError")))
    errs += validate_container_ports(container.get("ports") or [], _child(path, "ports"))
    errs += validate_env(container.get("env") or [], _child(path, "env"))
    errs += validate_volume_mounts(container.get("volumeMounts") or [], volumes,
                                   _child(path, "volumeMounts"))
    pull = container.get("imagePullPolicy")
    if pull and pull not in ("Always", "IfNotPresent", "Never"):
        errs.append(not_supported(_child(path, "imagePullPolicy"), pull,
                                  ("Always", "IfNotPresent", "Never")))
    return errs


def _validate_each_container(containers: list, names: set[str], volumes: set[str], path: str) -> list[Error]:
    """``validateContainerCommon`` on each container, and a Duplicate for a name already in *names*
    (which collects the names seen)."""
    errs = []
    for i, container in enumerate(containers):
        at = _index(path, i)
        container = container or {}
        errs += validate_container_common(container, volumes, at)
        name = container.get("name") or ""
        if name in names:
            errs.append(duplicate(_child(at, "name"), name))
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
    return _validate_each_container(init, {(c or {}).get("name") or "" for c in containers}, volumes, path)


def validate_pod_spec(spec: dict, claim_names: Iterable[str], path: str) -> list[Error]:
    """Mirror of ``ValidatePodSpec`` for a StatefulSet template whose volumes include one
    per volume claim template (``volumesToAddForTemplates``)."""
    claims = set(claim_names)
    volumes = [v for v in spec.get("volumes") or [] if (v or {}).get("name") not in claims]
    names, errs = validate_volumes(volumes, _child(path, "volumes"))
    names |= {c for c in claims if c and not is_dns1123_label(c)}
    containers = spec.get("containers") or []
    errs += validate_containers(containers, names, _child(path, "containers"))
    errs += validate_init_containers(spec.get("initContainers") or [], containers, names,
                                     _child(path, "initContainers"))
    restart = spec.get("restartPolicy")
    if restart and restart not in ("Always", "OnFailure", "Never"):
        errs.append(not_supported(_child(path, "restartPolicy"), restart,
                                  ("Always", "OnFailure", "Never")))
    dns = spec.get("dnsPolicy")
    if dns and dns not in ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"):
        errs.append(not_supported(_child(path, "dnsPolicy"), dns,
                                  ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")))
    errs += validate_labels(spec.get("nodeSelector"), _child(path, "nodeSelector"))
    account = spec.get("serviceAccountName") or ""
    if account:
        errs += [invalid(_child(path, "serviceAccountName"), account, m)
                 for m in name_is_dns_subdomain(account)]
    deadline = _as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= (1 << 31) - 1:
        errs.append(invalid(_child(path, "activeDeadlineSeconds"), deadline,
                            inclusive_range_error(1, (1 << 31) - 1)))
    return errs


def validate_pod_template_spec(template: dict, claim_names: Iterable[str], path: str) -> list[Error]:
    """Mirror of ``ValidatePodTemplateSpec`` (labels are reported at ``<path>.labels``,
    upstream's own path, not ``<path>.metadata.labels``)."""
    meta = template.get("metadata") or {}
    errs = validate_labels(meta.get("labels"), _child(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), _child(path, "annotations"))
    spec = template.get("spec") or {}
    errs += validate_pod_spec(spec, claim_names, _child(path, "spec"))
    if spec.get("ephemeralContainers"):
        errs.append(forbidden(_child(path, "spec", "ephemeralContainers"),
                              "ephemeral containers not allowed in pod template"))
    return errs
