"""The schema a strict decode knows (types, Go names, fields), and strict decoding with it:
type errors and unknown fields, and pruning of unknown fields."""

from __future__ import annotations

import json
from dataclasses import dataclass, field as dc_field
from typing import Any

from .field_errors import Error, child_path, dedupe, index_path
from .quantities import QUANTITY_FORMAT_ERROR, parse_quantity


# ---------------------------------------------------------------------------
# The schema: what a strict decode knows about (types, Go names, fields)
# ---------------------------------------------------------------------------

STRING, INT32, INT64, BOOL, ANY, INTSTR, QUANTITY = (
    "string", "int32", "int64", "bool", "any", "intstr", "quantity")
"""Leaf types of the schema; ANY accepts anything without a look."""

NAMED_STRINGS: set[str] = set()
"""Go string types with their own name (``v1.RestartPolicy``): decoded as a string, and the
decoder's error names the type (``... of type v1.RestartPolicy``)."""


def _str(go: str) -> str:
    NAMED_STRINGS.add(go)
    return go


@dataclass(frozen=True)
class Struct:
    """A Go struct: *go* is its printed type (``v1.StatefulSetSpec``); *fields* maps
    JSON names to schemas; an *open* struct accepts unknown keys without warning."""

    go: str
    fields: dict = dc_field(default_factory=dict)
    open: bool = False
    embedded: dict = dc_field(default_factory=dict)
    """JSON name -> the embedded Go struct that holds it (``v1.Probe`` embeds ``ProbeHandler``):
    Go's decode error names it in the field path (``readinessProbe.ProbeHandler.httpGet``)."""

    @property
    def name(self) -> str:
        """The bare struct name used in decode errors (``StatefulSetSpec``)."""
        return self.go.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class ListOf:
    """A Go slice of *item*."""

    item: Any
    go: str


@dataclass(frozen=True)
class MapOf:
    """A Go map from string to *value*."""

    value: Any
    go: str = "map[string]string"


def _open(go: str) -> Struct:
    return Struct(go, {}, open=True)


_STRINGS = ListOf(STRING, "[]string")
_STRING_MAP = MapOf(STRING)

OWNER_REFERENCE = Struct("v1.OwnerReference", {
    "apiVersion": STRING, "kind": STRING, "name": STRING, "uid": STRING,
    "controller": BOOL, "blockOwnerDeletion": BOOL})

OBJECT_META = Struct("v1.ObjectMeta", {
    "name": STRING, "generateName": STRING, "namespace": STRING, "selfLink": STRING,
    "uid": STRING, "resourceVersion": STRING, "generation": INT64, "creationTimestamp": ANY,
    "deletionTimestamp": ANY, "deletionGracePeriodSeconds": INT64, "labels": _STRING_MAP,
    "annotations": _STRING_MAP, "ownerReferences": ListOf(OWNER_REFERENCE, "[]v1.OwnerReference"),
    "finalizers": _STRINGS, "managedFields": ANY})

LABEL_SELECTOR = Struct("v1.LabelSelector", {
    "matchLabels": _STRING_MAP,
    "matchExpressions": ListOf(Struct("v1.LabelSelectorRequirement", {
        "key": STRING, "operator": STRING, "values": _STRINGS}), "[]v1.LabelSelectorRequirement")})

_QUANTITY_MAP = MapOf(QUANTITY, "v1.ResourceList")

RESOURCE_REQUIREMENTS = Struct("v1.ResourceRequirements", {
    "limits": _QUANTITY_MAP, "requests": _QUANTITY_MAP,
    "claims": ListOf(Struct("v1.ResourceClaim", {"name": STRING, "request": STRING}),
                     "[]v1.ResourceClaim")})

_KEY_SELECTOR = {"name": STRING, "key": STRING, "optional": BOOL}

ENV_VAR_SOURCE = Struct("v1.EnvVarSource", {
    "fieldRef": Struct("v1.ObjectFieldSelector", {"apiVersion": STRING, "fieldPath": STRING}),
    "resourceFieldRef": Struct("v1.ResourceFieldSelector", {
        "containerName": STRING, "resource": STRING, "divisor": QUANTITY}),
    "configMapKeyRef": Struct("v1.ConfigMapKeySelector", _KEY_SELECTOR),
    "secretKeyRef": Struct("v1.SecretKeySelector", _KEY_SELECTOR),
    "fileKeyRef": _open("v1.FileKeySelector")})

ENV_FROM_SOURCE = Struct("v1.EnvFromSource", {
    "prefix": STRING,
    "configMapRef": Struct("v1.ConfigMapEnvSource", {"name": STRING, "optional": BOOL}),
    "secretRef": Struct("v1.SecretEnvSource", {"name": STRING, "optional": BOOL})})

_HTTP_HEADER = Struct("v1.HTTPHeader", {"name": STRING, "value": STRING})
_HANDLER_FIELDS = {
    "exec": Struct("v1.ExecAction", {"command": _STRINGS}),
    "httpGet": Struct("v1.HTTPGetAction", {
        "path": STRING, "port": INTSTR, "host": STRING, "scheme": STRING,
        "httpHeaders": ListOf(_HTTP_HEADER, "[]v1.HTTPHeader")}),
    "tcpSocket": Struct("v1.TCPSocketAction", {"port": INTSTR, "host": STRING})}

PROBE = Struct("v1.Probe", {
    **_HANDLER_FIELDS,
    "grpc": Struct("v1.GRPCAction", {"port": INT32, "service": STRING}),
    "initialDelaySeconds": INT32, "timeoutSeconds": INT32, "periodSeconds": INT32,
    "successThreshold": INT32, "failureThreshold": INT32,
    "terminationGracePeriodSeconds": INT64},
    embedded={k: "ProbeHandler" for k in ("exec", "httpGet", "tcpSocket", "grpc")})

LIFECYCLE_HANDLER = Struct("v1.LifecycleHandler", {
    **_HANDLER_FIELDS, "sleep": Struct("v1.SleepAction", {"seconds": INT64})})

LIFECYCLE = Struct("v1.Lifecycle", {
    "postStart": LIFECYCLE_HANDLER, "preStop": LIFECYCLE_HANDLER, "stopSignal": STRING})

CONTAINER = Struct("v1.Container", {
    "name": STRING, "image": STRING, "command": _STRINGS, "args": _STRINGS, "workingDir": STRING,
    "ports": ListOf(Struct("v1.ContainerPort", {
        "name": STRING, "hostPort": INT32, "containerPort": INT32, "protocol": _str("v1.Protocol"),
        "hostIP": STRING}), "[]v1.ContainerPort"),
    "envFrom": ListOf(ENV_FROM_SOURCE, "[]v1.EnvFromSource"),
    "env": ListOf(Struct("v1.EnvVar", {
        "name": STRING, "value": STRING, "valueFrom": ENV_VAR_SOURCE}), "[]v1.EnvVar"),
    "resources": RESOURCE_REQUIREMENTS, "resizePolicy": ANY,
    "restartPolicy": _str("v1.ContainerRestartPolicy"), "restartPolicyRules": ANY,
    "volumeMounts": ListOf(Struct("v1.VolumeMount", {
        "name": STRING, "readOnly": BOOL, "recursiveReadOnly": STRING, "mountPath": STRING,
        "subPath": STRING, "mountPropagation": STRING, "subPathExpr": STRING}), "[]v1.VolumeMount"),
    "volumeDevices": ANY, "livenessProbe": PROBE, "readinessProbe": PROBE,
    "startupProbe": PROBE, "lifecycle": LIFECYCLE,
    "terminationMessagePath": STRING, "terminationMessagePolicy": _str("v1.TerminationMessagePolicy"),
    "imagePullPolicy": _str("v1.PullPolicy"), "securityContext": _open("v1.SecurityContext"),
    "stdin": BOOL, "stdinOnce": BOOL, "tty": BOOL})

VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
    "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder",
    "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
    "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
    "storageos", "csi", "ephemeral", "image")
"""The volume types a pod volume may name (exactly one of them)."""

VOLUME = Struct("v1.Volume", {"name": STRING, **{s: _open("v1." + s[0].upper() + s[1:] + "VolumeSource")
                                                 for s in VOLUME_SOURCES}})

POD_SPEC = Struct("v1.PodSpec", {
    "volumes": ListOf(VOLUME, "[]v1.Volume"),
    "initContainers": ListOf(CONTAINER, "[]v1.Container"),
    "containers": ListOf(CONTAINER, "[]v1.Container"),
    "ephemeralContainers": ANY, "restartPolicy": _str("v1.RestartPolicy"), "terminationGracePeriodSeconds": INT64,
    "activeDeadlineSeconds": INT64, "dnsPolicy": _str("v1.DNSPolicy"), "nodeSelector": _STRING_MAP,
    "serviceAccountName": STRING, "serviceAccount": STRING, "automountServiceAccountToken": BOOL,
    "nodeName": STRING, "hostNetwork": BOOL, "hostPID": BOOL, "hostIPC": BOOL,
    "shareProcessNamespace": BOOL, "securityContext": _open("v1.PodSecurityContext"),
    "imagePullSecrets": ANY, "hostname": STRING, "subdomain": STRING,
    "affinity": _open("v1.Affinity"), "schedulerName": STRING, "tolerations": ANY,
    "hostAliases": ANY, "priorityClassName": STRING, "priority": INT32,
    "dnsConfig": _open("v1.PodDNSConfig"), "readinessGates": ANY, "runtimeClassName": STRING,
    "enableServiceLinks": BOOL, "preemptionPolicy": STRING, "overhead": ANY,
    "topologySpreadConstraints": ANY, "setHostnameAsFQDN": BOOL, "os": _open("v1.PodOS"),
    "hostUsers": BOOL, "schedulingGates": ANY, "resourceClaims": ANY,
    "resources": RESOURCE_REQUIREMENTS, "hostnameOverride": STRING,
    "workloadRef": ANY})

POD_TEMPLATE_SPEC = Struct("v1.PodTemplateSpec", {"metadata": OBJECT_META, "spec": POD_SPEC})

PVC_SPEC = Struct("v1.PersistentVolumeClaimSpec", {
    "accessModes": ListOf(_str("v1.PersistentVolumeAccessMode"), "[]v1.PersistentVolumeAccessMode"),
    "selector": LABEL_SELECTOR,
    "resources": Struct("v1.VolumeResourceRequirements", {
        "limits": _QUANTITY_MAP, "requests": _QUANTITY_MAP}),
    "volumeName": STRING, "storageClassName": STRING, "volumeMode": _str("v1.PersistentVolumeMode"),
    "dataSource": _open("v1.TypedLocalObjectReference"),
    "dataSourceRef": _open("v1.TypedObjectReference"), "volumeAttributesClassName": STRING})

PERSISTENT_VOLUME_CLAIM = Struct("v1.PersistentVolumeClaim", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META, "spec": PVC_SPEC,
    "status": _open("v1.PersistentVolumeClaimStatus")})

STATEFUL_SET_SPEC = Struct("v1.StatefulSetSpec", {
    "replicas": INT32, "selector": LABEL_SELECTOR, "template": POD_TEMPLATE_SPEC,
    "volumeClaimTemplates": ListOf(PERSISTENT_VOLUME_CLAIM, "[]v1.PersistentVolumeClaim"),
    "serviceName": STRING, "podManagementPolicy": _str("v1.PodManagementPolicyType"),
    "updateStrategy": Struct("v1.StatefulSetUpdateStrategy", {
        "type": _str("v1.StatefulSetUpdateStrategyType"),
        "rollingUpdate": Struct("v1.RollingUpdateStatefulSetStrategy", {
            "partition": INT32, "maxUnavailable": INTSTR})}),
    "revisionHistoryLimit": INT32, "minReadySeconds": INT32,
    "persistentVolumeClaimRetentionPolicy": Struct(
        "v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
        {"whenDeleted": _str("v1.PersistentVolumeClaimRetentionPolicyType"),
         "whenScaled": _str("v1.PersistentVolumeClaimRetentionPolicyType")}),
    "ordinals": Struct("v1.StatefulSetOrdinals", {"start": INT32})})

STATEFUL_SET = Struct("v1.StatefulSet", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META, "spec": STATEFUL_SET_SPEC,
    "status": _open("v1.StatefulSetStatus")})
"""The apps/v1 StatefulSet as a strict decoder sees it (status must be an object; its
fields are not looked at)."""

SERVICE = Struct("v1.Service", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META,
    "spec": Struct("v1.ServiceSpec", {
        "ports": ListOf(Struct("v1.ServicePort", {
            "name": STRING, "protocol": _str("v1.Protocol"), "appProtocol": STRING, "port": INT32,
            "targetPort": INTSTR, "nodePort": INT32}), "[]v1.ServicePort"),
        "selector": _STRING_MAP, "clusterIP": STRING, "clusterIPs": _STRINGS, "type": _str("v1.ServiceType"),
        "externalIPs": _STRINGS, "sessionAffinity": _str("v1.ServiceAffinity"), "loadBalancerIP": STRING,
        "loadBalancerSourceRanges": _STRINGS, "externalName": STRING,
        "externalTrafficPolicy": STRING, "healthCheckNodePort": INT32,
        "publishNotReadyAddresses": BOOL, "sessionAffinityConfig": _open("v1.SessionAffinityConfig"),
        "ipFamilies": _STRINGS, "ipFamilyPolicy": STRING, "allocateLoadBalancerNodePorts": BOOL,
        "loadBalancerClass": STRING, "internalTrafficPolicy": STRING,
        "trafficDistribution": STRING}),
    "status": _open("v1.ServiceStatus")})
"""The core/v1 Service as a strict decoder sees it."""

SCHEMAS = {"StatefulSet": STATEFUL_SET, "Service": SERVICE}
"""Schema per supported kind."""


# ---------------------------------------------------------------------------
# Strict decoding: type errors and unknown fields
# ---------------------------------------------------------------------------

def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _number_literal(value: Any) -> str:
    return json.dumps(value)


def as_int(value: Any) -> int | None:
    """The integer a JSON number decodes to (``3.0`` becomes 3, as YAMLToJSON makes it)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


_INT_RANGE = {INT32: (-(1 << 31), (1 << 31) - 1), INT64: (-(1 << 63), (1 << 63) - 1)}


class _Walk:
    """One strict-decode pass: collects type errors and unknown-field warnings."""

    def __init__(self) -> None:
        self.errors: list[Error] = []
        self.unknown: list[str] = []

    def type_error(self, path: str, value: Any, struct: str, gopath: str, gotype: str) -> None:
        kind = _json_kind(value)
        if kind == "number" and gotype in (INT32, INT64):
            kind = f"number {_number_literal(value)}"
        self.errors.append((path, f"json: cannot unmarshal {kind} into Go struct field"
                                  f" {struct}.{gopath} of type {gotype}"))

    def walk(self, value: Any, schema: Any, path: str, struct: str, gopath: str) -> None:
        if value is None or schema == ANY:
            return
        if isinstance(schema, Struct):
            self.walk_struct(value, schema, path, struct, gopath)
        elif isinstance(schema, ListOf):
            if not isinstance(value, list):
                self.type_error(path, value, struct, gopath, schema.go)
                return
            for i, item in enumerate(value):
                if isinstance(schema.item, Struct) and item is not None and not isinstance(item, dict):
                    self.type_error(index_path(path, i), item, struct, gopath, schema.item.go)
                    continue
                self.walk(item, schema.item, index_path(path, i), struct, gopath)
        elif isinstance(schema, MapOf):
            if not isinstance(value, dict):
                self.type_error(path, value, struct, gopath, schema.go)
                return
            for key, item in value.items():
                self.walk_leaf(item, schema.value, f"{path}[{key}]", struct, gopath)
        else:
            self.walk_leaf(value, schema, path, struct, gopath)

    def walk_struct(self, value: Any, schema: Struct, path: str, struct: str, gopath: str) -> None:
        if not isinstance(value, dict):
            self.type_error(path, value, struct, gopath, schema.go)
            return
        for key, item in value.items():
            sub = schema.fields.get(key)
            if sub is None:
                if not schema.open:
                    self.unknown.append(f'unknown field "{child_path(path, key)}"')
                continue
            self.walk(item, sub, child_path(path, key), schema.name,
                      child_path(gopath, *([schema.embedded[key]] if key in schema.embedded else []), key))

    def walk_leaf(self, value: Any, leaf: str, path: str, struct: str, gopath: str) -> None:
        if value is None or leaf == ANY:
            return
        if leaf == STRING or leaf in NAMED_STRINGS:
            if not isinstance(value, str):
                self.type_error(path, value, struct, gopath, leaf)
        elif leaf == BOOL:
            if not isinstance(value, bool):
                self.type_error(path, value, struct, gopath, "bool")
        elif leaf in _INT_RANGE:
            number = as_int(value)
            lo, hi = _INT_RANGE[leaf]
            if number is None or not lo <= number <= hi:
                self.type_error(path, value, struct, gopath, leaf)
        elif leaf == INTSTR:
            if isinstance(value, str):
                return
            number = as_int(value)
            if number is None or not -(1 << 31) <= number < (1 << 31):  # IntOrString.UnmarshalJSON, as Go 1.26 words it
                self.type_error(path, value, struct, gopath, INT32)
        elif leaf == QUANTITY:
            if parse_quantity(value) is None:
                self.errors.append((path, QUANTITY_FORMAT_ERROR))


def _walk(doc: dict) -> _Walk | None:
    schema = SCHEMAS.get(doc.get("kind")) if isinstance(doc, dict) else None
    if schema is None:
        return None
    walker = _Walk()
    walker.walk_struct(doc, schema, "", schema.name, "")
    return walker


def decode_errors(doc: dict) -> list[Error]:
    """Type errors a strict JSON decode of *doc* would report, one per bad field.

    Wording is Go's ``encoding/json`` as the API server returns it, e.g.
    ``("spec.replicas", "json: cannot unmarshal string into Go struct field
    StatefulSetSpec.spec.replicas of type int32")``.  (The real decoder stops being
    useful after the first one; stsedu lists them all.)  Kinds other than
    StatefulSet and Service give no errors.
    """
    walker = _walk(doc)
    return [] if walker is None else dedupe(walker.errors)


def unknown_fields(doc: dict) -> list[str]:
    """kubectl-style warnings for fields the schema does not know.

    ``unknown_fields({"kind": "StatefulSet", "spec": {"replica": 3}})`` is
    ``['unknown field "spec.replica"']``.  ``status`` is never looked at; inside a pod
    template only the levels stsedu knows (metadata, the pod spec's own fields,
    containers, ports, env, volume mounts, volumes) are checked, and anything deeper is
    accepted.
    """
    walker = _walk(doc)
    return [] if walker is None else list(dict.fromkeys(walker.unknown))


def prune(value: Any, schema: Any) -> Any:
    """Drop the fields a decode would drop (unknown keys), keeping everything else.

    Like Go's decoder, a ``null`` value in a string map (``labels: {app: null}``)
    becomes ``""``.
    """
    if schema == ANY or value is None:
        return value
    if isinstance(schema, Struct) and isinstance(value, dict):
        if schema.open:
            return value
        return {k: prune(v, schema.fields[k]) for k, v in value.items() if k in schema.fields}
    if isinstance(schema, ListOf) and isinstance(value, list):
        return [prune(v, schema.item) for v in value]
    if isinstance(schema, MapOf) and schema.value == STRING and isinstance(value, dict):
        return {k: "" if v is None else v for k, v in value.items()}
    return value
