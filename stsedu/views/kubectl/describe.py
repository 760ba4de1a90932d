"""kubectl's description of a pod template: what ``kubectl rollout history statefulset/<name>
--revision=N`` prints under its first line.

Mirrors kubectl's ``pkg/describe`` (``describe.go``): :func:`describe_pod_template` is
``DescribePodTemplate`` and the helpers below are named after the kubectl function each one
follows.  kubectl's ``printTemplate`` (polymorphichelpers/history.go) writes through a
``PrefixWriter`` straight into a buffer, with no tabwriter, so the tab characters stay in the
text (a terminal shows them at 8-column stops).  The prefix writer indents each write by two
spaces per level (only at the start of that write) and replaces ESC and CR like
``printers.WriteEscaped``.

Covered: labels, annotations (``printAnnotationsMultiline``, long and multi-line values
included), service account, init containers and containers (image, ports and host ports,
seccomp profile, command and args, limits and requests, liveness/readiness/startup probes
with exec, http-get, tcp-socket and grpc, environment from values, fieldRef,
resourceFieldRef, secretKeyRef, configMapKeyRef, envFrom, mounts and devices), volumes
(hostPath, emptyDir, gcePersistentDisk, awsElasticBlockStore, gitRepo, secret, configMap,
nfs, glusterfs, persistentVolumeClaim, ephemeral, quobyte, downwardAPI, vsphereVolume,
photonPersistentDisk, portworxVolume, storageos, fc, azureFile, flocker, projected, csi,
image), topology spread constraints, priority class, node selectors and tolerations.

Not covered: the volume types whose kubectl text prints Go structs, pointers or maps
(iscsi, rbd, azureDisk, cinder, scaleIO, cephfs, flexVolume) get one line that says so;
``schedulingGroup`` (alpha) is not printed, as stsedu drops that field when it loads a
manifest.  Lists kubectl sorts with ``sort.Slice`` (tolerations, spread constraints) are
sorted stably here; Go's sort is stable too for up to 12 entries.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal, localcontext
from typing import Any, Mapping

from ...api.quantities import parse_quantity, quantity_string

__all__ = ["describe_pod_template", "quantity_string", "format_label_selector"]


# ----------------------------------------------------------------------------- writer


class PrefixWriter:
    """kubectl's ``prefixWriter``: ``write`` indents by two spaces per level; ``write_line`` ends a line."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, level: int, text: str) -> None:
        self.parts.append("  " * level + text)

    def write_line(self, text: str = "") -> None:
        self.parts.append(text + "\n")

    def text(self) -> str:
        # printers.WriteEscaped: ESC -> ^[ and CR -> \r, in every write
        return "".join(self.parts).replace("\x1b", "^[").replace("\r", "\\r")


class _NestedWriter:
    """``nestedPrefixWriter``: every write (a whole line too) goes *indent* levels deeper."""

    def __init__(self, out, indent: int) -> None:
        self.out, self.indent = out, indent

    def write(self, level: int, text: str) -> None:
        self.out.write(level + self.indent, text)

    def write_line(self, text: str = "") -> None:
        self.out.write(self.indent, text + "\n")


def _b(value: Any) -> str:
    """Go's ``%v``/``%t`` of a bool (an absent field is false)."""
    return "true" if value else "false"


def _v(value: Any) -> str:
    """Go's ``%v`` of a string or integer field (an absent field is its zero value)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _b(value)
    return str(value)


def _d(value: Any) -> str:
    """Go's ``%d``/``%v`` of an integer field (absent: 0)."""
    return str(value) if value is not None else "0"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _go_quote(s: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``)."""
    out = ['"']
    named = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
             "\v": "\\v", "\\": "\\\\", '"': '\\"'}
    for ch in s:
        if ch in named:
            out.append(named[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


# ------------------------------------------------------------------------- quantities

def _quantity_value(value: Any, scale: int) -> int:
    """``Quantity.ScaledValue``: the value in units of 10**scale, rounded up (0 if absent)."""
    amount = parse_quantity(value) if value is not None else None
    if amount is None:
        return 0
    with localcontext() as ctx:
        ctx.prec = 80
        return int((amount / Decimal(10) ** scale).to_integral_value(rounding=ROUND_CEILING))


# --------------------------------------------------------------------------- selectors


def format_label_selector(selector: Mapping | None) -> str:
    """``metav1.FormatLabelSelector``: requirements sorted by key, ``k=v``, ``k in (a,b)``,
    ``k notin (a,b)``, ``k``, ``!k``; ``<none>`` when empty, ``<error>`` for an unknown operator."""
    if selector is None:
        return "<none>"
    reqs = [(k, f"{k}={v}") for k, v in _dict(selector.get("matchLabels")).items()]
    for expr in _list(selector.get("matchExpressions")):
        expr = _dict(expr)
        key, op, values = expr.get("key", ""), expr.get("operator"), sorted(_list(expr.get("values")))
        if op == "In":
            reqs.append((key, f"{key} in ({','.join(values)})"))
        elif op == "NotIn":
            reqs.append((key, f"{key} notin ({','.join(values)})"))
        elif op == "Exists":
            reqs.append((key, key))
        elif op == "DoesNotExist":
            reqs.append((key, f"!{key}"))
        else:
            return "<error>"
    text = ",".join(r for _, r in sorted(reqs, key=lambda r: r[0]))
    return text or "<none>"


# -------------------------------------------------------------------- labels and such

_MAX_ANNOTATION_LEN = 140
_SKIP_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


def _print_pairs(w, level: int, pairs: Any, max_len: int | None = None) -> None:
    """The ``k=v`` lines of a map after its title, sorted by key, ``<none>`` for an empty one; further
    pairs on lines starting with a tab; a pair longer than *max_len* bytes is cut (``printLabelsMultiline``,
    ``printCSIPersistentVolumeAttributesMultilineIndent``)."""
    pairs = _dict(pairs)
    if not pairs:
        w.write_line("<none>")
        return
    for i, key in enumerate(sorted(pairs)):
        if i:
            w.write(level, "")
            w.write(level, "\t")
        line = f"{key}={_v(pairs[key])}"
        if max_len is not None and len(line.encode()) > max_len:
            line = _shorten(line, max_len)
        w.write(level, f"{line}\n")


def print_labels(w, title: str, labels: Any) -> None:
    """``printLabelsMultiline``: ``title:\\tk=v``, further labels on lines starting with a tab."""
    w.write(0, f"{title}:\t")
    _print_pairs(w, 0, labels)


def _shorten(s: str, n: int) -> str:
    raw = s.encode()
    if len(raw) > n:
        return raw[:n].decode(errors="replace") + "..."
    return s


def print_annotations(w, title: str, annotations: Any) -> None:
    """``printAnnotationsMultiline``: ``key: value``; a value longer than the 140-byte limit (with
    its key) or spread over lines gets ``key:`` and then its lines, each cut at 138 bytes."""
    w.write(0, f"{title}:\t")
    annotations = _dict(annotations)
    keys = sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
    if not keys:
        w.write_line("<none>")
        return
    for i, key in enumerate(keys):
        if i:
            w.write(0, "\t")
        value = _v(annotations[key])
        if value.endswith("\n"):
            value = value[:-1]
        if len(value.encode()) + len(key.encode()) + 2 > _MAX_ANNOTATION_LEN or "\n" in value:
            w.write(0, f"{key}:\n")
            for line in value.split("\n"):
                w.write(0, f"\t  {_shorten(line, _MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(0, f"{key}: {value}\n")


def _print_tolerations(w, title: str, tolerations: Any) -> None:
    """``printPodTolerationsMultiline``: ``key[=value][:effect][ op=Exists][ for Ns]``, by key."""
    w.write(0, f"{title}:\t")
    tolerations = [_dict(t) for t in _list(tolerations)]
    if not tolerations:
        w.write_line("<none>")
        return
    for i, t in enumerate(sorted(tolerations, key=lambda t: _v(t.get("key")))):
        if i:
            w.write(0, "")
            w.write(0, "\t")
        key, value, effect = _v(t.get("key")), _v(t.get("value")), _v(t.get("effect"))
        text = key + (f"={value}" if value else "") + (f":{effect}" if effect else "")
        if t.get("operator") == "Exists" and not value:
            text += " op=Exists" if key or effect else "op=Exists"
        if t.get("tolerationSeconds") is not None:
            text += f" for {t['tolerationSeconds']}s"
        w.write(0, text + "\n")


def _describe_topology_spread_constraints(tscs: Any, w, space: str) -> None:
    """``describeTopologySpreadConstraints``: only when there are some, by topology key."""
    tscs = [_dict(t) for t in _list(tscs)]
    if not tscs:
        return
    w.write(0, f"{space}Topology Spread Constraints:\t")
    for i, t in enumerate(sorted(tscs, key=lambda t: _v(t.get("topologyKey")))):
        if i:
            w.write(0, space)
            w.write(0, "\t")
        w.write(0, f"{_v(t.get('topologyKey'))}:")
        w.write(0, _v(t.get("whenUnsatisfiable")))
        w.write(0, f" when max skew {_d(t.get('maxSkew'))} is exceeded")
        if t.get("labelSelector") is not None:
            w.write(0, f" for selector {format_label_selector(_dict(t['labelSelector']))}")
        w.write(0, "\n")


# --------------------------------------------------------------------------- containers


def _describe_containers(label: str, containers: list, w, space: str) -> None:
    """``describeContainers`` for a template (no container statuses, no env resolver)."""
    none = " <none>" if not containers else ""  # describeContainersLabel
    w.write(0, f"{space}{label}:{none}\n")
    for c in containers:
        c = _dict(c)
        _describe_container_basic_info(c, space, w)
        _describe_container_command(c, w)
        _describe_resources(_dict(c.get("resources")), w, 2)
        _describe_container_probe(c, w)
        if _list(c.get("envFrom")):
            _describe_container_env_from(c, w)
        _describe_container_env_vars(c, w)
        _describe_container_volumes(c, w)


def _ports_text(ports: list, field: str) -> str:
    """``describeContainerPorts`` / ``describeContainerHostPorts``: ``80/TCP (web), 0/UDP``."""
    out = []
    for p in ports:
        p = _dict(p)
        text = f"{_d(p.get(field))}/{_v(p.get('protocol'))}"
        if p.get("name"):
            text += f" ({p['name']})"
        out.append(text)
    return ", ".join(out)


def _describe_container_basic_info(c: dict, space: str, w) -> None:
    """``describeContainerBasicInfo``: name, image, Port(s), Host Port(s), seccomp profile."""
    w.write(1, f"{' ' if space else ''}{_v(c.get('name'))}:\n")
    w.write(2, f"Image:\t{_v(c.get('image'))}\n")
    ports = _list(c.get("ports"))
    for field, one, many in (("containerPort", "Port", "Ports"), ("hostPort", "Host Port", "Host Ports")):
        text = _ports_text(ports, field)
        if "," in text:
            w.write(2, f"{many}:\t{text}\n")
        else:
            w.write(2, f"{one}:\t{text or '<none>'}\n")
    profile = _dict(c.get("securityContext")).get("seccompProfile")
    if profile is not None:
        profile = _dict(profile)
        w.write(2, f"SeccompProfile:\t{_v(profile.get('type'))}\n")
        if profile.get("type") == "Localhost":
            w.write(3, f"LocalhostProfile:\t{_v(profile.get('localhostProfile'))}\n")


def _describe_container_command(c: dict, w) -> None:
    """``describeContainerCommand``: Command and Args, one line per line of each entry."""
    for key, title in (("command", "Command"), ("args", "Args")):
        items = _list(c.get(key))
        if items:
            w.write(2, f"{title}:\n")
            for item in items:
                for line in _v(item).split("\n"):
                    w.write(3, f"{line}\n")


def _describe_resources(resources: dict, w, level: int) -> None:
    """``describeResources``: Limits then Requests, resource names sorted, canonical quantities."""
    for key, title in (("limits", "Limits"), ("requests", "Requests")):
        values = _dict(resources.get(key))
        if values:
            w.write(level, f"{title}:\n")
        for name in sorted(values):
            w.write(level + 1, f"{name}:\t{quantity_string(values[name])}\n")


def _describe_container_probe(c: dict, w) -> None:
    """``describeContainerProbe``: Liveness, Readiness, Startup."""
    for key, title in (("livenessProbe", "Liveness"), ("readinessProbe", "Readiness"),
                       ("startupProbe", "Startup")):
        if c.get(key) is not None:
            w.write(2, f"{title}:\t{describe_probe(_dict(c[key]))}\n")


_UNRESERVED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")
_PATH_OK = _UNRESERVED | frozenset("$&+,/:;=@")
_HOST_OK = _UNRESERVED | frozenset("!$&'()*+,;=:[]<>\"")


def _escape(s: str, allowed: frozenset) -> str:
    """Go's ``url.escape``: bytes outside *allowed* become ``%XX`` (upper-case hex)."""
    return "".join(chr(b) if chr(b) in allowed else f"%{b:02X}" for b in s.encode())


def _join_host_port(host: str, port: str) -> str:
    """``net.JoinHostPort``: brackets around a host that contains a colon."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def describe_probe(probe: Mapping) -> str:
    """``DescribeProbe``: the handler, then ``delay=…s timeout=…s period=…s #success=… #failure=…``.

    http-get prints a URL as Go's ``url.URL.String`` builds it from the lower-cased scheme,
    ``host:port`` and the (escaped) path, e.g. ``http-get http://:8080/healthz``; exec prints
    the command as Go prints a string slice (``exec [cat /tmp/ready]``); tcp-socket
    ``host:port``; grpc ``<pod>:port service``.
    """
    attrs = (f"delay={_d(probe.get('initialDelaySeconds'))}s timeout={_d(probe.get('timeoutSeconds'))}s "
             f"period={_d(probe.get('periodSeconds'))}s #success={_d(probe.get('successThreshold'))} "
             f"#failure={_d(probe.get('failureThreshold'))}")
    if probe.get("exec") is not None:
        command = " ".join(_v(x) for x in _list(_dict(probe["exec"]).get("command")))
        return f"exec [{command}] {attrs}"
    if probe.get("httpGet") is not None:
        get = _dict(probe["httpGet"])
        scheme = _v(get.get("scheme")).lower()
        # an absent port is the zero IntOrString, which prints as 0
        port = _v(get.get("port")) if get.get("port") is not None else "0"
        host, path = _v(get.get("host")), _v(get.get("path"))
        host = _join_host_port(host, port) if port else host
        url = f"{scheme}:" if scheme else ""
        if scheme or host:
            if host or path:
                url += "//"
            url += _escape(host, _HOST_OK)
        escaped = _escape(path, _PATH_OK) if path != "*" else "*"
        if path and not path.startswith("/") and host:
            url += "/"
        return f"http-get {url}{escaped} {attrs}"
    if probe.get("tcpSocket") is not None:
        tcp = _dict(probe["tcpSocket"])
        return f"tcp-socket {_v(tcp.get('host'))}:{_v(tcp.get('port'))} {attrs}"
    if probe.get("grpc") is not None:
        grpc = _dict(probe["grpc"])
        return f"grpc <pod>:{_d(grpc.get('port'))} {_v(grpc.get('service'))} {attrs}"
    return f"unknown {attrs}"


def _container_resource_value(ref: dict, container: dict) -> str:
    """``ExtractContainerResourceValue`` (kubectl util/resource): the value a resourceFieldRef
    gives, in divisor units, rounded up; "" for an unsupported resource."""
    divisor = ref.get("divisor")
    if divisor is None or not parse_quantity(divisor):  # a zero divisor means 1
        divisor = "1"
    resources = _dict(container.get("resources"))
    kind, _, name = _v(ref.get("resource")).partition(".")
    if kind not in ("limits", "requests") or name not in ("cpu", "memory", "ephemeral-storage"):
        return ""
    value = _dict(resources.get(kind)).get(name)
    scale = -3 if name == "cpu" else 0  # MilliValue for cpu, Value for memory and storage
    return str(int(math.ceil(float(_quantity_value(value, scale)) / float(_quantity_value(divisor, scale)))))


def _describe_container_env_vars(c: dict, w) -> None:
    """``describeContainerEnvVars`` without a resolver (a template has no pod to read from):
    a fieldRef shows an empty value and ``(apiVersion:fieldPath)``."""
    env = _list(c.get("env"))
    none = "" if env else "\t<none>"
    w.write(2, f"Environment:{none}\n")
    for e in env:
        e = _dict(e)
        name = _v(e.get("name"))
        source = e.get("valueFrom")
        if source is None:
            for i, line in enumerate(_v(e.get("value")).split("\n")):
                w.write(3, f"{name}:\t{line}\n" if i == 0 else f"\t{line}\n")
            continue
        source = _dict(source)
        if source.get("fieldRef") is not None:
            ref = _dict(source["fieldRef"])
            w.write(3, f"{name}:\t ({_v(ref.get('apiVersion'))}:{_v(ref.get('fieldPath'))})\n")
        elif source.get("resourceFieldRef") is not None:
            ref = _dict(source["resourceFieldRef"])
            value = _container_resource_value(ref, c)
            resource = _v(ref.get("resource"))
            if value == "0" and resource in ("limits.cpu", "limits.memory"):
                value = "node allocatable"
            w.write(3, f"{name}:\t{value} ({resource})\n")
        elif source.get("secretKeyRef") is not None:
            ref = _dict(source["secretKeyRef"])
            w.write(3, f"{name}:\t<set to the key '{_v(ref.get('key'))}' in secret '{_v(ref.get('name'))}'>"
                       f"\tOptional: {_b(ref.get('optional'))}\n")
        elif source.get("configMapKeyRef") is not None:
            ref = _dict(source["configMapKeyRef"])
            w.write(3, f"{name}:\t<set to the key '{_v(ref.get('key'))}' of config map '{_v(ref.get('name'))}'>"
                       f"\tOptional: {_b(ref.get('optional'))}\n")


def _describe_container_env_from(c: dict, w) -> None:
    """``describeContainerEnvFrom``: ``name\\tConfigMap[ with prefix 'p']\\tOptional: false``."""
    w.write(2, "Environment Variables from:\n")
    for e in _list(c.get("envFrom")):
        e = _dict(e)
        source, kind = {}, ""
        if e.get("configMapRef") is not None:
            source, kind = _dict(e["configMapRef"]), "ConfigMap"
        elif e.get("secretRef") is not None:
            source, kind = _dict(e["secretRef"]), "Secret"
        name, optional, prefix = _v(source.get("name")), _b(source.get("optional")), _v(e.get("prefix"))
        if prefix:
            w.write(3, f"{name}\t{kind} with prefix '{prefix}'\tOptional: {optional}\n")
        else:
            w.write(3, f"{name}\t{kind}\tOptional: {optional}\n")


def _describe_container_volumes(c: dict, w) -> None:
    """``describeContainerVolumes``: mounts by path, ``/path from name (rw|ro[,path="sub"])``;
    then devices (their header reuses the mounts' ``<none>``, as kubectl's does)."""
    mounts = [_dict(m) for m in _list(c.get("volumeMounts"))]
    none = "" if mounts else "\t<none>"
    w.write(2, f"Mounts:{none}\n")
    for m in sorted(mounts, key=lambda m: _v(m.get("mountPath"))):
        flags = ["ro" if m.get("readOnly") else "rw"]
        if m.get("subPath"):
            flags.append(f"path={_go_quote(_v(m['subPath']))}")
        w.write(3, f"{_v(m.get('mountPath'))} from {_v(m.get('name'))} ({','.join(flags)})\n")
    devices = [_dict(d) for d in _list(c.get("volumeDevices"))]
    if devices:
        w.write(2, f"Devices:{none}\n")
        for d in sorted(devices, key=lambda d: _v(d.get("devicePath"))):
            w.write(3, f"{_v(d.get('devicePath'))} from {_v(d.get('name'))}\n")


# ------------------------------------------------------------------------------ volumes

# Volume types kubectl prints as a type line and "field:\tvalue" lines of plain values:
# json key -> (the Type line's text, [(label, json field, kind)]), kind "s" string, "b" bool, "d" int.
_SIMPLE_VOLUMES = {
    "gcePersistentDisk": ("GCEPersistentDisk (a Persistent Disk resource in Google Compute Engine)",
                          [("PDName", "pdName", "s"), ("FSType", "fsType", "s"), ("Partition", "partition", "d"),
                           ("ReadOnly", "readOnly", "b")]),
    "awsElasticBlockStore": ("AWSElasticBlockStore (a Persistent Disk resource in AWS)",
                             [("VolumeID", "volumeID", "s"), ("FSType", "fsType", "s"),
                              ("Partition", "partition", "d"), ("ReadOnly", "readOnly", "b")]),
    "gitRepo": ("GitRepo (a volume that is pulled from git when the pod is created)",
                [("Repository", "repository", "s"), ("Revision", "revision", "s")]),
    "secret": ("Secret (a volume populated by a Secret)",
               [("SecretName", "secretName", "s"), ("Optional", "optional", "b")]),
    "configMap": ("ConfigMap (a volume populated by a ConfigMap)",
                  [("Name", "name", "s"), ("Optional", "optional", "b")]),
    "nfs": ("NFS (an NFS mount that lasts the lifetime of a pod)",
            [("Server", "server", "s"), ("Path", "path", "s"), ("ReadOnly", "readOnly", "b")]),
    "glusterfs": ("Glusterfs (a Glusterfs mount on the host that shares a pod's lifetime)",
                  [("EndpointsName", "endpoints", "s"), ("Path", "path", "s"), ("ReadOnly", "readOnly", "b")]),
    "persistentVolumeClaim": ("PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
                              [("ClaimName", "claimName", "s"), ("ReadOnly", "readOnly", "b")]),
    "quobyte": ("Quobyte (a Quobyte mount on the host that shares a pod's lifetime)",
                [("Registry", "registry", "s"), ("Volume", "volume", "s"), ("ReadOnly", "readOnly", "b")]),
    "vsphereVolume": ("vSphereVolume (a Persistent Disk resource in vSphere)",
                      [("VolumePath", "volumePath", "s"), ("FSType", "fsType", "s"),
                       ("StoragePolicyName", "storagePolicyName", "s")]),
    "photonPersistentDisk": ("PhotonPersistentDisk (a Persistent Disk resource in photon platform)",
                             [("PdID", "pdID", "s"), ("FSType", "fsType", "s")]),
    "portworxVolume": ("PortworxVolume (a Portworx Volume resource)", [("VolumeID", "volumeID", "s")]),
    "storageos": ("StorageOS (a StorageOS Persistent Disk resource)",
                  [("VolumeName", "volumeName", "s"), ("VolumeNamespace", "volumeNamespace", "s"),
                   ("FSType", "fsType", "s"), ("ReadOnly", "readOnly", "b")]),
    "azureFile": ("AzureFile (an Azure File Service mount on the host and bind mount to the pod)",
                  [("SecretName", "secretName", "s"), ("ShareName", "shareName", "s"), ("ReadOnly", "readOnly", "b")]),
    "flocker": ("Flocker (a Flocker volume mounted by the Flocker agent)",
                [("DatasetName", "datasetName", "s"), ("DatasetUUID", "datasetUUID", "s")]),
    "image": ("Image (a container image or OCI artifact)",
              [("Reference", "reference", "s"), ("PullPolicy", "pullPolicy", "s")]),
}

# The order of kubectl's switch in describeVolumes (the first source present wins).
_VOLUME_ORDER = ("hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
                 "configMap", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "ephemeral", "rbd",
                 "quobyte", "downwardAPI", "azureDisk", "vsphereVolume", "cinder", "photonPersistentDisk",
                 "portworxVolume", "scaleIO", "cephfs", "storageos", "fc", "azureFile", "flexVolume",
                 "flocker", "projected", "csi", "image")
_NOT_COVERED = ("iscsi", "rbd", "azureDisk", "cinder", "scaleIO", "cephfs", "flexVolume")


def _describe_volumes(volumes: list, w, space: str) -> None:
    """``describeVolumes``: ``Volumes:\\t<none>``, or each volume's name and its source's lines."""
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for volume in volumes:
        volume = _dict(volume)
        w.write(1, f"{' ' if space else ''}{_v(volume.get('name'))}:\n")
        kind = next((k for k in _VOLUME_ORDER if volume.get(k) is not None), None)
        source = _dict(volume.get(kind)) if kind else {}
        if kind is None:
            w.write(1, "<unknown>\n")
        elif kind in _NOT_COVERED:  # kubectl prints Go structs here; say so rather than guess
            w.write(2, f"Type:\t{kind} (stsedu does not print this volume type as kubectl does)\n")
        elif kind == "hostPath":  # printHostPathVolumeSource
            kind_text = "<none>" if source.get("type") is None else _v(source.get("type"))
            w.write(2, f"Type:\tHostPath (bare host directory volume)\n    Path:\t{_v(source.get('path'))}\n"
                       f"    HostPathType:\t{kind_text}\n")
        elif kind == "emptyDir":  # printEmptyDirVolumeSource
            limit = source.get("sizeLimit")
            size = quantity_string(limit) if limit is not None and (parse_quantity(limit) or 0) > 0 else "<unset>"
            w.write(2, f"Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
                       f"    Medium:\t{_v(source.get('medium'))}\n    SizeLimit:\t{size}\n")
        elif kind == "ephemeral":
            _print_ephemeral_volume_source(source, w)
        elif kind == "downwardAPI":  # printDownwardAPIVolumeSource
            w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
            for item in _list(source.get("items")):
                item = _dict(item)
                if item.get("fieldRef") is not None:
                    w.write(3, f"{_v(_dict(item['fieldRef']).get('fieldPath'))} -> {_v(item.get('path'))}\n")
                if item.get("resourceFieldRef") is not None:
                    w.write(3, f"{_v(_dict(item['resourceFieldRef']).get('resource'))} -> {_v(item.get('path'))}\n")
        elif kind == "fc":  # printFCVolumeSource
            lun = "<none>" if source.get("lun") is None else str(source["lun"])
            w.write(2, f"Type:\tFC (a Fibre Channel disk)\n"
                       f"    TargetWWNs:\t{', '.join(_v(x) for x in _list(source.get('targetWWNs')))}\n"
                       f"    LUN:\t{lun}\n    FSType:\t{_v(source.get('fsType'))}\n"
                       f"    ReadOnly:\t{_b(source.get('readOnly'))}\n")
        elif kind == "projected":
            _print_projected_volume_source(source, w)
        elif kind == "csi":
            _print_csi_volume_source(source, w)
        else:
            title, fields = _SIMPLE_VOLUMES[kind]
            text = f"Type:\t{title}\n"
            for label, key, how in fields:
                value = source.get(key)
                text += f"    {label}:\t{_b(value) if how == 'b' else _d(value) if how == 'd' else _v(value)}\n"
            w.write(2, text)


def _print_projected_volume_source(source: dict, w) -> None:
    """``printProjectedVolumeSource``: one entry per secret, downward API, config map or token source."""
    w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
    for s in _list(source.get("sources")):
        s = _dict(s)
        if s.get("secret") is not None:
            ref = _dict(s["secret"])
            w.write(2, f"SecretName:\t{_v(ref.get('name'))}\n    Optional:\t{_b(ref.get('optional'))}\n")
        elif s.get("downwardAPI") is not None:
            w.write(2, "DownwardAPI:\ttrue\n")
        elif s.get("configMap") is not None:
            ref = _dict(s["configMap"])
            w.write(2, f"ConfigMapName:\t{_v(ref.get('name'))}\n    Optional:\t{_b(ref.get('optional'))}\n")
        elif s.get("serviceAccountToken") is not None:
            w.write(2, f"TokenExpirationSeconds:\t{_d(_dict(s['serviceAccountToken']).get('expirationSeconds'))}\n")


def _print_csi_volume_source(source: dict, w) -> None:
    """``printCSIVolumeSource`` and its volume attributes (each ``k=v`` cut at 140 bytes)."""
    w.write(2, f"Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"
               f"    Driver:\t{_v(source.get('driver'))}\n    FSType:\t{_v(source.get('fsType'))}\n"
               f"    ReadOnly:\t{_b(source.get('readOnly'))}\n")
    w.write(2, "VolumeAttributes:\t")
    _print_pairs(w, 2, source.get("volumeAttributes"), _MAX_ANNOTATION_LEN)


def _print_ephemeral_volume_source(source: dict, w) -> None:
    """``printEphemeralVolumeSource``: the claim template through ``printPersistentVolumeClaim``
    (not a full claim) on a writer nested two levels deeper, quirks included (``Labels:\\t    <none>``)."""
    w.write(2, "Type:\tEphemeralVolume (an inline specification for a volume that gets created and "
               "deleted with the pod)\n")
    claim = source.get("volumeClaimTemplate")
    if claim is None:
        return
    claim = _dict(claim)
    meta, spec = _dict(claim.get("metadata")), _dict(claim.get("spec"))
    n = _NestedWriter(w, 2)
    annotations = _dict(meta.get("annotations"))
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class",
                                    spec.get("storageClassName") or "")
    n.write(0, f"StorageClass:\t{_v(storage_class)}\n")
    n.write(0, f"Volume:\t{_v(spec.get('volumeName'))}\n")
    print_labels(n, "Labels", meta.get("labels"))
    print_annotations(n, "Annotations", annotations)
    bound = bool(spec.get("volumeName"))
    n.write(0, f"Capacity:\t{'0' if bound else ''}\n")  # a template has no status capacity
    n.write(0, "Access Modes:\t\n")
    if spec.get("volumeMode") is not None:
        n.write(0, f"VolumeMode:\t{_v(spec['volumeMode'])}\n")
    if spec.get("dataSource") is not None:
        ds = _dict(spec["dataSource"])
        n.write(0, "DataSource:\n")
        if ds.get("apiGroup") is not None:
            n.write(1, f"APIGroup:\t{_v(ds['apiGroup'])}\n")
        n.write(1, f"Kind:\t{_v(ds.get('kind'))}\n")
        n.write(1, f"Name:\t{_v(ds.get('name'))}\n")


# ------------------------------------------------------------------------- the template


def describe_pod_template(template: Mapping | None) -> str:
    """The text of kubectl's ``DescribePodTemplate`` for *template* (a pod template as stored,
    API-server defaults included), exactly as ``printTemplate`` returns it: tabs kept, every
    line ending in a newline.

    In order: ``Pod Template:``, ``  Labels:`` (``<none>`` when empty), ``  Annotations:``
    (only when there are some), ``  Service Account:`` (only when set), ``  Init Containers:``
    (only when there are some), ``  Containers:``, ``  Volumes:``, ``  Topology Spread
    Constraints:`` (only when set), ``  Priority Class Name:`` (only when set),
    ``  Node-Selectors:`` and ``  Tolerations:`` (``<none>`` when empty).  Container statuses
    (Container ID, Image ID, State, Ready, Restart Count) are a pod's, so a template has none.
    A volume type this module does not print (see the module docstring) gets a line saying so.
    """
    w = PrefixWriter()
    w.write(0, "Pod Template:\n")
    if template is None:
        w.write(1, "<unset>")
        return w.text()
    meta, spec = _dict(template.get("metadata")), _dict(template.get("spec"))
    print_labels(w, "  Labels", meta.get("labels"))
    if _dict(meta.get("annotations")):
        print_annotations(w, "  Annotations", meta["annotations"])
    # the API server fills serviceAccountName from the deprecated serviceAccount
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        w.write(1, f"Service Account:\t{_v(account)}\n")
    if _list(spec.get("initContainers")):
        _describe_containers("Init Containers", spec["initContainers"], w, "  ")
    _describe_containers("Containers", _list(spec.get("containers")), w, "  ")
    _describe_volumes(_list(spec.get("volumes")), w, "  ")
    _describe_topology_spread_constraints(spec.get("topologySpreadConstraints"), w, "  ")
    if spec.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{_v(spec['priorityClassName'])}\n")
    print_labels(w, "  Node-Selectors", spec.get("nodeSelector"))
    _print_tolerations(w, "  Tolerations", spec.get("tolerations"))
    return w.text()
