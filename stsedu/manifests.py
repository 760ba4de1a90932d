"""Manifests in, API-server verdicts out: loading, defaulting and validation.

Pure functions over plain dicts (camelCase Kubernetes manifests).  Nothing here
touches a cluster.  The flow mirrors what the API server does with a request:

1. :func:`load_documents` -- YAML (or JSON) text, a dict or a list of dicts in,
   a list of plain dicts out (sigs.k8s.io/yaml ``YAMLToJSON``, with a size limit).
2. :func:`decode_errors` -- type errors a strict JSON decode would report
   ("json: cannot unmarshal string into Go struct field ...").
3. :func:`default_statefulset` / :func:`default_service` -- the defaulting
   functions (``pkg/apis/apps/v1/defaults.go`` ``SetDefaults_StatefulSet``).
4. :func:`validate_statefulset` / :func:`validate_statefulset_update` /
   :func:`validate_service` -- the validation functions
   (``pkg/apis/apps/validation/validation.go``), returning
   ``[(field_path, message)]`` pairs worded as ``field.Error`` prints them.
5. :func:`unknown_fields` -- the warnings ``kubectl`` shows for fields the
   schema does not know (``unknown field "spec.replica"``).

:func:`check` strings these together for a whole multi-document manifest.
"""

from __future__ import annotations

import base64
import copy
import datetime
import ipaddress
import json
import re
from dataclasses import dataclass, field as dc_field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation, localcontext
from typing import Any, Iterable

import yaml

from stsedu.errors import ValidationError

__all__ = [
    "MAX_MANIFEST_BYTES",
    "MUTABLE_SPEC_FIELDS",
    "Checked",
    "Selector",
    "check",
    "decode_errors",
    "default_service",
    "default_statefulset",
    "label_selector_as_selector",
    "load_documents",
    "unknown_fields",
    "validate_service",
    "validate_statefulset",
    "validate_statefulset_update",
    "validation_error",
]

MAX_MANIFEST_BYTES = 1 << 20
"""Largest manifest :func:`load_documents` accepts: 1 MiB of text (or of JSON for a
dict).  The real API server refuses request bodies over 3 MiB; a teaching cluster has
no use for anything near that, so stsedu stops at 1 MiB."""

API_SERVER_REQUEST_LIMIT_BYTES = 3 << 20
"""The real API server's request-body limit (3 MiB), quoted in the size error."""

_MAX_YAML_NODES = 1_000_000
"""Values a loaded document may expand to once YAML aliases are followed; more is
reported as go-yaml does ("document contains excessive aliasing")."""

Error = tuple[str, str]
"""One problem: ``(field_path, message)``, e.g. ``("spec.replicas", "Invalid value: -1:
must be greater than or equal to 0")``."""


# ---------------------------------------------------------------------------
# field.Error wording (k8s.io/apimachinery/pkg/util/validation/field)
# ---------------------------------------------------------------------------

class GoText(str):
    """A bad value already rendered the way Go's ``fmt`` prints it (no quoting added)."""


def go_quote(text: str) -> str:
    """Quote *text* as Go's ``strconv.Quote`` (and ``%q``) does."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                        "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _render(value: Any) -> str:
    """Render a bad value as ``field.Error.ErrorBody`` does (``%v``, ``%q`` or ``%#v``)."""
    if isinstance(value, GoText):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_quote(json.dumps(value, separators=(",", ":")))


def _body(kind: str, value: Any = None, detail: str = "", *, show_value: bool = True) -> str:
    text = f"{kind}: {_render(value)}" if show_value else kind
    return f"{text}: {detail}" if detail else text


def required(path: str, detail: str = "") -> Error:
    """Mirror of ``field.Required``."""
    return (path, _body("Required value", detail=detail, show_value=False))


def invalid(path: str, value: Any, detail: str = "") -> Error:
    """Mirror of ``field.Invalid``."""
    return (path, _body("Invalid value", value, detail))


def not_supported(path: str, value: Any, supported: Iterable[str]) -> Error:
    """Mirror of ``field.NotSupported``: ``Unsupported value: "X": supported values: ...``."""
    values = ", ".join(go_quote(v) for v in supported)
    return (path, _body("Unsupported value", value, f"supported values: {values}" if values else ""))


def forbidden(path: str, detail: str) -> Error:
    """Mirror of ``field.Forbidden``."""
    return (path, _body("Forbidden", detail=detail, show_value=False))


def duplicate(path: str, value: Any) -> Error:
    """Mirror of ``field.Duplicate``."""
    return (path, _body("Duplicate value", value))


def not_found(path: str, value: Any) -> Error:
    """Mirror of ``field.NotFound``."""
    return (path, _body("Not found", value))


def too_long(path: str, max_bytes: int) -> Error:
    """Mirror of ``field.TooLong``."""
    return (path, _body("Too long", detail=f"must have at most {max_bytes} bytes", show_value=False))


def _child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def _index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def _dedupe(errors: Iterable[Error]) -> list[Error]:
    """Drop repeated messages, as ``field.ErrorList.ToAggregate`` does."""
    seen: set[Error] = set()
    out = []
    for err in errors:
        if err not in seen:
            seen.add(err)
            out.append(err)
    return out


# ---------------------------------------------------------------------------
# String formats (k8s.io/apimachinery/pkg/api/validate/content, util/validation)
# ---------------------------------------------------------------------------

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_PERCENT_FMT = "[0-9]+%"

_DNS1123_LABEL_RE = re.compile(f"^{_DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1035_LABEL_RE = re.compile(f"^{_DNS1035_LABEL_FMT}$")
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_PERCENT_RE = re.compile(f"^{_PERCENT_FMT}$")

NEGATIVE_MSG = "must be greater than or equal to 0"
"""``IsNegativeErrorMsg`` of ``ValidateNonnegativeField``."""


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Mirror of ``RegexError`` (note the double space before each " or ")."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """Mirror of ``content.MaxLenError``."""
    return f"must be no more than {length} bytes"


def inclusive_range_error(lo: int, hi: int) -> str:
    """Mirror of ``InclusiveRangeError``."""
    return f"must be between {lo} and {hi}, inclusive"


def _name_errors(value: str, max_len: int, pattern, message: str, fmt: str, *examples: str,
                 dotted=None) -> list[str]:
    """The length and format checks the DNS name validators share (``IsDNS1123Label`` and kin).

    *dotted*, if given, is a pattern that, when it matches a value the format
    rejects, is reported as ``must not contain dots`` instead.
    """
    errs = []
    if len(value.encode()) > max_len:
        errs.append(max_len_error(max_len))
    if not pattern.match(value):
        if dotted is not None and dotted.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(message, fmt, *examples))
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """Mirror of ``IsDNS1123Label``."""
    return _name_errors(
        value, 63, _DNS1123_LABEL_RE,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters"
        " or '-', and must start and end with an alphanumeric character",
        _DNS1123_LABEL_FMT, "my-name", "123-abc", dotted=_DNS1123_SUBDOMAIN_RE)


def is_dns1123_subdomain(value: str) -> list[str]:
    """Mirror of ``IsDNS1123Subdomain``."""
    return _name_errors(
        value, 253, _DNS1123_SUBDOMAIN_RE,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,"
        " '-' or '.', and must start and end with an alphanumeric character",
        _DNS1123_SUBDOMAIN_FMT, "example.com")


def is_dns1035_label(value: str) -> list[str]:
    """Mirror of ``IsDNS1035Label``."""
    return _name_errors(
        value, 63, _DNS1035_LABEL_RE,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start"
        " with an alphabetic character, and end with an alphanumeric character",
        _DNS1035_LABEL_FMT, "my-name", "abc-123")


_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start"
                  " and end with an alphanumeric character")


def is_qualified_name(value: str) -> list[str]:
    """Mirror of ``IsQualifiedName`` / ``content.IsLabelKey``."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [("a valid label key "
                 + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                 + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + max_len_error(63))
    if not _LABEL_KEY_RE.match(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT,
                                               "MyName", "my.name", "123-abc"))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """Mirror of ``IsValidLabelValue`` / ``content.IsLabelValue``."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-',"
            " '_' or '.', and must start and end with an alphanumeric character",
            _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_valid_percent(value: str) -> list[str]:
    """Mirror of ``IsValidPercent``."""
    if _PERCENT_RE.match(value):
        return []
    return [regex_error("a valid percent string must be a numeric string followed by an"
                        " ending '%'", _PERCENT_FMT, "1%", "93%")]


def is_valid_port_num(port: int) -> list[str]:
    """Mirror of ``IsValidPortNum``."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_valid_port_name(port: str) -> list[str]:
    """Mirror of ``IsValidPortName``."""
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not re.match(r"^[-a-z0-9]+$", port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNSLabel`` (a generateName prefix may end in '-')."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1123_label(name)


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNSSubdomain``."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1123_subdomain(name)


def name_is_dns1035_label(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNS1035Label`` (Service names)."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1035_label(name)


# ---------------------------------------------------------------------------
# Quantities (k8s.io/apimachinery/pkg/api/resource)
# ---------------------------------------------------------------------------

_QUANTITY_RE = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
                          r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")
_QUANTITY_SUFFIX = {
    None: Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"),
    "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
    "P": Decimal("1e15"), "E": Decimal("1e18"), "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40, "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}
QUANTITY_FORMAT_ERROR = ("quantities must match the regular expression"
                         " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
"""``resource.ErrFormatWrong``: what decoding a malformed quantity reports."""


def parse_quantity(value: Any) -> Decimal | None:
    """Value of a quantity such as ``"1Gi"``, ``"500m"`` or ``3``; None if malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY_RE.match(value.strip())
    if not match:
        return None
    number, suffix = match.groups()
    try:
        if suffix in _QUANTITY_SUFFIX:  # "E" and "Ei" are exa and exbi; "E3" / "e3" are exponents
            return Decimal(number) * _QUANTITY_SUFFIX[suffix]
        return Decimal(number) * (Decimal(10) ** int(suffix[1:]))
    except (InvalidOperation, ValueError):
        return None


_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}


def quantity_string(value: Any, places: int = 9) -> str:
    """A resource quantity as apimachinery's ``Quantity.String`` prints it (canonical form).

    The format follows the suffix written: a binary suffix (``Ki`` … ``Ei``) stays binary
    when the value is a whole number of at least 1024 (``1024Mi`` -> ``1Gi``, ``1536Mi``
    stays), else it is printed decimal (``0.5Ki`` -> ``512``); an exponent (``1e3``) stays an
    exponent; otherwise decimal SI with the largest suffix that keeps an integer mantissa
    (``0.5`` -> ``500m``, ``2000`` -> ``2k``, ``1500`` stays).  Values are rounded up to
    nano units, as ``ParseQuantity`` does (to *places* decimals: 3 is ``SetDefaults_ResourceList``'s
    milli rounding); zero is ``0``.  A value that is not a quantity is returned as text.
    """
    amount = parse_quantity(value)
    if amount is None:
        return str(value)
    suffix = str(value).strip().lstrip("+-0123456789.")
    if suffix in _BINARY:
        fmt = "binary"
    elif re.fullmatch(r"[eE][+-]?[0-9]+", suffix):
        fmt = "exponent"
    else:
        fmt = "decimal"
    with localcontext() as ctx:
        ctx.prec = 80
        nanos = (amount * Decimal(10) ** places).to_integral_value(  # rounded away from zero
            rounding=ROUND_CEILING if amount >= 0 else ROUND_FLOOR) * Decimal(10) ** (9 - places)
        if nanos == 0:
            return "0"
        sign = "-" if nanos < 0 else ""
        nanos = abs(int(nanos))
        if fmt == "binary":
            whole = nanos % 10 ** 9 == 0
            if nanos < 1024 * 10 ** 9 or not whole:
                fmt = "decimal"
            else:
                number, power = nanos // 10 ** 9, 0
                while number >= 1024 and number % 1024 == 0 and power < len(_BINARY):
                    number //= 1024
                    power += 1
                return f"{sign}{number}{'' if power == 0 else _BINARY[power - 1]}"
        mantissa, exponent = nanos, -9
        while mantissa >= 10 and mantissa % 10 == 0:
            mantissa //= 10
            exponent += 1
        shift = exponent % 3  # lower the exponent to a multiple of 3
        mantissa *= 10 ** shift
        exponent -= shift
        if fmt == "decimal" and exponent in _DECIMAL_SUFFIX:
            return f"{sign}{mantissa}{_DECIMAL_SUFFIX[exponent]}"
        return f"{sign}{mantissa}{'' if exponent == 0 else f'e{exponent}'}"


# ---------------------------------------------------------------------------
# The schema: what a strict decode knows about (types, Go names, fields)
# ---------------------------------------------------------------------------

STRING, INT32, INT64, BOOL, ANY, INTSTR, QUANTITY = (
    "string", "int32", "int64", "bool", "any", "intstr", "quantity")
"""Leaf types of the schema; ANY accepts anything without a look."""


@dataclass(frozen=True)
class Struct:
    """A Go struct: *go* is its printed type (``v1.StatefulSetSpec``); *fields* maps
    JSON names to schemas; an *open* struct accepts unknown keys without warning."""

    go: str
    fields: dict = dc_field(default_factory=dict)
    open: bool = False

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

CONTAINER = Struct("v1.Container", {
    "name": STRING, "image": STRING, "command": _STRINGS, "args": _STRINGS, "workingDir": STRING,
    "ports": ListOf(Struct("v1.ContainerPort", {
        "name": STRING, "hostPort": INT32, "containerPort": INT32, "protocol": STRING,
        "hostIP": STRING}), "[]v1.ContainerPort"),
    "envFrom": ListOf(_open("v1.EnvFromSource"), "[]v1.EnvFromSource"),
    "env": ListOf(Struct("v1.EnvVar", {
        "name": STRING, "value": STRING, "valueFrom": _open("v1.EnvVarSource")}), "[]v1.EnvVar"),
    "resources": _open("v1.ResourceRequirements"), "resizePolicy": ANY,
    "restartPolicy": STRING, "restartPolicyRules": ANY,
    "volumeMounts": ListOf(Struct("v1.VolumeMount", {
        "name": STRING, "readOnly": BOOL, "recursiveReadOnly": STRING, "mountPath": STRING,
        "subPath": STRING, "mountPropagation": STRING, "subPathExpr": STRING}), "[]v1.VolumeMount"),
    "volumeDevices": ANY, "livenessProbe": _open("v1.Probe"), "readinessProbe": _open("v1.Probe"),
    "startupProbe": _open("v1.Probe"), "lifecycle": _open("v1.Lifecycle"),
    "terminationMessagePath": STRING, "terminationMessagePolicy": STRING,
    "imagePullPolicy": STRING, "securityContext": _open("v1.SecurityContext"),
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
    "ephemeralContainers": ANY, "restartPolicy": STRING, "terminationGracePeriodSeconds": INT64,
    "activeDeadlineSeconds": INT64, "dnsPolicy": STRING, "nodeSelector": _STRING_MAP,
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
    "resources": _open("v1.ResourceRequirements"), "hostnameOverride": STRING,
    "workloadRef": ANY})

POD_TEMPLATE_SPEC = Struct("v1.PodTemplateSpec", {"metadata": OBJECT_META, "spec": POD_SPEC})

_QUANTITY_MAP = MapOf(QUANTITY, "v1.ResourceList")

PVC_SPEC = Struct("v1.PersistentVolumeClaimSpec", {
    "accessModes": ListOf(STRING, "[]v1.PersistentVolumeAccessMode"),
    "selector": LABEL_SELECTOR,
    "resources": Struct("v1.VolumeResourceRequirements", {
        "limits": _QUANTITY_MAP, "requests": _QUANTITY_MAP}),
    "volumeName": STRING, "storageClassName": STRING, "volumeMode": STRING,
    "dataSource": _open("v1.TypedLocalObjectReference"),
    "dataSourceRef": _open("v1.TypedObjectReference"), "volumeAttributesClassName": STRING})

PERSISTENT_VOLUME_CLAIM = Struct("v1.PersistentVolumeClaim", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META, "spec": PVC_SPEC,
    "status": ANY})

STATEFUL_SET_SPEC = Struct("v1.StatefulSetSpec", {
    "replicas": INT32, "selector": LABEL_SELECTOR, "template": POD_TEMPLATE_SPEC,
    "volumeClaimTemplates": ListOf(PERSISTENT_VOLUME_CLAIM, "[]v1.PersistentVolumeClaim"),
    "serviceName": STRING, "podManagementPolicy": STRING,
    "updateStrategy": Struct("v1.StatefulSetUpdateStrategy", {
        "type": STRING,
        "rollingUpdate": Struct("v1.RollingUpdateStatefulSetStrategy", {
            "partition": INT32, "maxUnavailable": INTSTR})}),
    "revisionHistoryLimit": INT32, "minReadySeconds": INT32,
    "persistentVolumeClaimRetentionPolicy": Struct(
        "v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
        {"whenDeleted": STRING, "whenScaled": STRING}),
    "ordinals": Struct("v1.StatefulSetOrdinals", {"start": INT32})})

STATEFUL_SET = Struct("v1.StatefulSet", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META, "spec": STATEFUL_SET_SPEC,
    "status": ANY})
"""The apps/v1 StatefulSet as a strict decoder sees it (status is not looked at)."""

SERVICE = Struct("v1.Service", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META,
    "spec": Struct("v1.ServiceSpec", {
        "ports": ListOf(Struct("v1.ServicePort", {
            "name": STRING, "protocol": STRING, "appProtocol": STRING, "port": INT32,
            "targetPort": INTSTR, "nodePort": INT32}), "[]v1.ServicePort"),
        "selector": _STRING_MAP, "clusterIP": STRING, "clusterIPs": _STRINGS, "type": STRING,
        "externalIPs": _STRINGS, "sessionAffinity": STRING, "loadBalancerIP": STRING,
        "loadBalancerSourceRanges": _STRINGS, "externalName": STRING,
        "externalTrafficPolicy": STRING, "healthCheckNodePort": INT32,
        "publishNotReadyAddresses": BOOL, "sessionAffinityConfig": _open("v1.SessionAffinityConfig"),
        "ipFamilies": _STRINGS, "ipFamilyPolicy": STRING, "allocateLoadBalancerNodePorts": BOOL,
        "loadBalancerClass": STRING, "internalTrafficPolicy": STRING,
        "trafficDistribution": STRING}),
    "status": ANY})
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


def _as_int(value: Any) -> int | None:
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
                    self.type_error(_index(path, i), item, struct, gopath, schema.item.go)
                    continue
                self.walk(item, schema.item, _index(path, i), struct, gopath)
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
                    self.unknown.append(f'unknown field "{_child(path, key)}"')
                continue
            self.walk(item, sub, _child(path, key), schema.name, _child(gopath, key))

    def walk_leaf(self, value: Any, leaf: str, path: str, struct: str, gopath: str) -> None:
        if value is None or leaf == ANY:
            return
        if leaf == STRING:
            if not isinstance(value, str):
                self.type_error(path, value, struct, gopath, "string")
        elif leaf == BOOL:
            if not isinstance(value, bool):
                self.type_error(path, value, struct, gopath, "bool")
        elif leaf in _INT_RANGE:
            number = _as_int(value)
            lo, hi = _INT_RANGE[leaf]
            if number is None or not lo <= number <= hi:
                self.type_error(path, value, struct, gopath, leaf)
        elif leaf == INTSTR:
            if isinstance(value, str):
                return
            number = _as_int(value)
            if number is None or not -(1 << 31) <= number < (1 << 31):
                kind = _json_kind(value)
                if kind == "number":
                    kind = f"number {_number_literal(value)}"
                self.errors.append((path, f"json: cannot unmarshal {kind} into Go value of type int32"))
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
    return [] if walker is None else _dedupe(walker.errors)


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


def _prune(value: Any, schema: Any) -> Any:
    """Drop the fields a decode would drop (unknown keys), keeping everything else.

    Like Go's decoder, a ``null`` value in a string map (``labels: {app: null}``)
    becomes ``""``.
    """
    if schema == ANY or value is None:
        return value
    if isinstance(schema, Struct) and isinstance(value, dict):
        if schema.open:
            return value
        return {k: _prune(v, schema.fields[k]) for k, v in value.items() if k in schema.fields}
    if isinstance(schema, ListOf) and isinstance(value, list):
        return [_prune(v, schema.item) for v in value]
    if isinstance(schema, MapOf) and schema.value == STRING and isinstance(value, dict):
        return {k: "" if v is None else v for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------
# Loading (sigs.k8s.io/yaml YAMLToJSON, kubectl's document splitting)
# ---------------------------------------------------------------------------

class _KubeLoader(yaml.SafeLoader):
    """SafeLoader that reads YAML the way sigs.k8s.io/yaml does: timestamps stay
    strings, keys become strings (``true``, ``1``), and a key set twice in one map is
    an error."""

    def construct_mapping(self, node, deep=False):
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)
        seen: set[str] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = _go_key(self.construct_object(key_node, deep=True))
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f'key "{key}" already set in map', key_node.start_mark)
            seen.add(key)
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise yaml.constructor.ConstructorError(
                    None, None, "invalid map key: a list or map cannot be a key",
                    key_node.start_mark)
            mapping[_go_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping


_KubeLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _manifest_error(message: str) -> ValidationError:
    return ValidationError([("", message)], kind="manifest")


def _size_error(size: int) -> ValidationError:
    return _manifest_error(
        f"manifest is {size} bytes, over stsedu's limit of {MAX_MANIFEST_BYTES} bytes (1 MiB);"
        f" the real API server refuses request bodies over {API_SERVER_REQUEST_LIMIT_BYTES}"
        " bytes (3 MiB)")


def _go_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _to_json_value(value: Any, budget: list[int]) -> Any:
    """Plain JSON data from what YAML built: string keys, no dates, aliases expanded."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _manifest_error("error converting YAML to JSON: yaml: document contains"
                              " excessive aliasing")
    if isinstance(value, dict):
        return {_go_key(k): _to_json_value(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json_value(v, budget) for v in value]
    if isinstance(value, set):
        return {_go_key(k): None for k in value}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    return value


def _yaml_error(exc: yaml.YAMLError) -> ValidationError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    if mark is not None:
        where = f"line {mark.line + 1}, column {mark.column + 1}: "
    else:
        where = ""
    return _manifest_error(f"error converting YAML to JSON: yaml: {where}{problem}")


def _parse_yaml(text: str) -> list[Any]:
    try:
        return list(yaml.load_all(text, Loader=_KubeLoader))  # a SafeLoader: safe_load_all
    except yaml.YAMLError as exc:
        raise _yaml_error(exc) from None


def _flatten(docs: Iterable[Any]) -> list[dict]:
    """Mapping documents only; ``kind: List`` documents contribute their items."""
    out: list[dict] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out.extend(_flatten(doc["items"]))
        else:
            out.append(doc)
    return out


def _missing_type_errors(docs: list[dict]) -> list[Error]:
    errs = []
    for n, doc in enumerate(docs, start=1):
        where = f"document {n}" if len(docs) > 1 else "the manifest"
        if not isinstance(doc.get("apiVersion"), str) or not doc.get("apiVersion"):
            errs.append(required("apiVersion", f"Object 'apiVersion' is missing in {where}"))
        if not isinstance(doc.get("kind"), str) or not doc.get("kind"):
            errs.append(required("kind", f"Object 'Kind' is missing in {where}"))
    return errs


def load_documents(source: str | bytes | dict | list) -> list[dict]:
    """Plain manifest dicts from YAML/JSON text (multi-document), a dict or a list of dicts.

    Always returns new objects (the input is never mutated).  Empty and non-mapping
    documents are skipped; ``kind: List`` documents are flattened to their items.
    Documents of kinds other than StatefulSet and Service are returned as they are.

    Raises :class:`~stsedu.errors.ValidationError` (kind ``"manifest"``) if the text is
    over :data:`MAX_MANIFEST_BYTES`, is not valid YAML (message
    ``error converting YAML to JSON: yaml: line L, column C: <problem>``, line and column
    1-based and counted from the start of the whole text), or has a document without
    ``apiVersion`` or ``kind``.  Raises :class:`TypeError` for other input types.
    """
    if isinstance(source, bytes):
        if len(source) > MAX_MANIFEST_BYTES:
            raise _size_error(len(source))
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _manifest_error(f"error converting YAML to JSON: yaml: invalid UTF-8: {exc}") from None
    if isinstance(source, str):
        size = len(source.encode("utf-8"))
        if size > MAX_MANIFEST_BYTES:
            raise _size_error(size)
        raw = _parse_yaml(source)
    elif isinstance(source, dict):
        raw = [source]
    elif isinstance(source, list):
        bad = [type(d).__name__ for d in source if not isinstance(d, dict)]
        if bad:
            raise TypeError(f"load_documents: a list must hold dicts, not {bad[0]}")
        raw = list(source)
    else:
        raise TypeError(f"load_documents: expected YAML text, a dict or a list of dicts,"
                        f" not {type(source).__name__}")
    budget = [_MAX_YAML_NODES]
    docs = [_to_json_value(d, budget) for d in _flatten(raw)]
    if not isinstance(source, str):
        size = len(json.dumps(docs, default=str).encode("utf-8"))
        if size > MAX_MANIFEST_BYTES:
            raise _size_error(size)
    errs = _missing_type_errors(docs)
    if errs:
        raise ValidationError(errs, kind="manifest")
    return docs


# ---------------------------------------------------------------------------
# Defaulting (pkg/apis/apps/v1/defaults.go, pkg/apis/core/v1/defaults.go)
# ---------------------------------------------------------------------------

def _dict_at(parent: dict, key: str) -> dict | None:
    """``parent[key]`` as a dict, creating it if absent or null; None if it is not a dict."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else None


def _default_namespace(obj: dict) -> None:
    meta = _dict_at(obj, "metadata")
    if meta is not None and not meta.get("namespace"):
        meta["namespace"] = "default"


def _max_unavailable_in_use(sts: dict | None) -> bool:
    """Mirror of ``maxUnavailableInUse`` (pkg/registry/apps/statefulset/strategy.go)."""
    try:
        return sts["spec"]["updateStrategy"]["rollingUpdate"].get("maxUnavailable") is not None
    except (KeyError, TypeError, AttributeError):
        return False


def _default_claim_templates(spec: dict) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec`` (volumeMode Filesystem) and
    ``SetDefaults_PersistentVolumeClaim`` (``status.phase`` Pending) on each claim template."""
    claims = spec.get("volumeClaimTemplates")
    for claim in claims if isinstance(claims, list) else ():  # other types: a decode error later
        if isinstance(claim, dict):
            claim_spec = _dict_at(claim, "spec")
            if claim_spec is not None and not claim_spec.get("volumeMode"):
                claim_spec["volumeMode"] = "Filesystem"
            if claim_spec is not None:
                _default_resource_lists(claim_spec.get("resources"))
            status = _dict_at(claim, "status")
            if status is not None and not status.get("phase"):
                status["phase"] = "Pending"


def _dicts(value) -> list[dict]:
    """The dict items of *value* if it is a list (other shapes are left for decode_errors)."""
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _default_handler(handler) -> None:
    """``SetDefaults_HTTPGetAction`` on a probe's or lifecycle hook's ``httpGet``."""
    if isinstance(handler, dict) and isinstance(handler.get("httpGet"), dict):
        action = handler["httpGet"]
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def image_pull_policy_default(image) -> str:
    """``SetDefaults_Container``'s pull policy: Always for the tag ``latest`` (also when the
    reference has neither tag nor digest, as ``parsers.ParseImageName`` reads it), else IfNotPresent."""
    if not isinstance(image, str):
        return "IfNotPresent"
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ""
    if not tag and not digest:
        tag = "latest"
    return "Always" if tag == "latest" else "IfNotPresent"


def _default_resource_lists(resources) -> None:
    """``SetDefaults_ResourceList`` on ``limits`` and ``requests``: each quantity rounded up to milli
    units and stored in canonical form (``0.5`` -> ``500m``, ``1024Mi`` -> ``1Gi``), as the API server
    returns it.  Values that are not quantities are left for validation to report."""
    if not isinstance(resources, dict):
        return
    for key in ("limits", "requests"):
        values = resources.get(key)
        if isinstance(values, dict):
            for name, value in values.items():
                if parse_quantity(value) is not None:
                    values[name] = quantity_string(value, places=3)


def _default_field_ref(holder) -> None:
    """``SetDefaults_ObjectFieldSelector``: the ``fieldRef`` of *holder* (an env ``valueFrom`` or a
    downwardAPI item) gets ``apiVersion: v1`` when it has none."""
    ref = holder.get("fieldRef") if isinstance(holder, dict) else None
    if isinstance(ref, dict) and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _downward_api_items(source: dict) -> list[dict]:
    """The ``downwardAPI.items`` of a volume or a projected source (other shapes: none)."""
    api = source.get("downwardAPI")
    return _dicts(api.get("items") if isinstance(api, dict) else None)


def _default_container(container: dict) -> None:
    """``SetDefaults_Container`` plus the generated defaults of its ports, env and probes.

    ``resources: {}`` is added when absent: not a default but what the API server
    returns, as Go always writes that struct field (and what the revision data holds).
    """
    if container.get("resources") is None:
        container["resources"] = {}
    _default_resource_lists(container["resources"])
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = image_pull_policy_default(container.get("image"))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = "/dev/termination-log"
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in _dicts(container.get("ports")):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
    for env in _dicts(container.get("env")):
        _default_field_ref(env.get("valueFrom"))
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(key)
        if isinstance(probe, dict):
            for field_, value in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1),
                                  ("failureThreshold", 3)):
                if not probe.get(field_):
                    probe[field_] = value
            _default_handler(probe)
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for key in ("postStart", "preStop"):
            _default_handler(lifecycle.get(key))


_DEFAULT_MODE = 420
"""0644, the default file mode of secret, configMap, downwardAPI and projected volumes."""


def _default_volume(volume: dict) -> None:
    """``SetDefaults_Volume`` (no source: emptyDir) and the defaults of the common sources."""
    sources = [k for k in volume if k != "name"]
    if not sources:
        volume["emptyDir"] = {}
    for key in ("secret", "configMap", "downwardAPI", "projected"):
        source = volume.get(key)
        if isinstance(source, dict) and source.get("defaultMode") is None:
            source["defaultMode"] = _DEFAULT_MODE
    if isinstance(volume.get("hostPath"), dict) and volume["hostPath"].get("type") is None:
        volume["hostPath"]["type"] = ""
    for item in _downward_api_items(volume):
        _default_field_ref(item)
    projected = volume.get("projected")
    for source in _dicts(projected.get("sources") if isinstance(projected, dict) else None):
        token = source.get("serviceAccountToken")
        if isinstance(token, dict) and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = 3600  # SetDefaults_ServiceAccountTokenProjection
        for item in _downward_api_items(source):
            _default_field_ref(item)


def default_pod_template(template) -> None:
    """Apply core/v1 defaults to a pod template in place, as the API server stores it.

    ``SetDefaults_PodSpec`` (dnsPolicy ClusterFirst, restartPolicy Always,
    ``securityContext: {}``, terminationGracePeriodSeconds 30, schedulerName
    default-scheduler), ``SetDefaults_Container`` for containers and init
    containers (imagePullPolicy from the tag, terminationMessagePath and
    Policy), port protocol TCP, probe and ``httpGet`` defaults, fieldRef
    apiVersion v1, and the volume defaults (``SetDefaults_Volume``, file
    modes 420, hostPath type, token expiry).  Pod-only defaults
    (``SetDefaults_Pod``: enableServiceLinks, requests from limits) are not
    template defaults.  Wrong shapes are skipped (decode_errors reports them).
    """
    if not isinstance(template, dict):
        return
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return
    for key, value in (("dnsPolicy", "ClusterFirst"), ("restartPolicy", "Always"),
                       ("schedulerName", "default-scheduler")):
        if not spec.get(key):
            spec[key] = value
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    for key in ("initContainers", "containers"):
        for container in _dicts(spec.get(key)):
            _default_container(container)
    for volume in _dicts(spec.get("volumes")):
        _default_volume(volume)


def default_pod(spec) -> dict:
    """A NEW pod spec with ``SetDefaults_Pod``'s pod-only defaults: enableServiceLinks true, and each
    container's requests filled from its limits where a request is missing.  *spec* is not changed;
    the parts left alone are shared with it (stored objects are never mutated)."""
    spec = dict(spec)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        out = []
        for container in containers:
            resources = container.get("resources") if isinstance(container, dict) else None
            limits = resources.get("limits") if isinstance(resources, dict) else None
            requests = resources.get("requests") if isinstance(resources, dict) else None
            if isinstance(limits, dict) and limits and (requests is None or isinstance(requests, dict)):
                merged = {**limits, **(requests or {})}
                if merged != requests:
                    container = {**container, "resources": {**resources, "requests": merged}}
            out.append(container)
        spec[key] = out
    return spec


def default_statefulset(doc: dict, *, max_unavailable_gate: bool = True,
                        old: dict | None = None) -> dict:
    """A NEW dict: *doc* with the API server's apps/v1 defaults applied.

    Mirror of ``SetDefaults_StatefulSet``:

    * ``spec.podManagementPolicy`` OrderedReady; ``spec.replicas`` 1;
      ``spec.revisionHistoryLimit`` 10; ``spec.minReadySeconds`` 0;
    * ``spec.updateStrategy.type`` RollingUpdate, and ONLY when the type was empty,
      ``rollingUpdate: {}`` is added.  Then, for type RollingUpdate with a
      ``rollingUpdate`` block, ``partition`` defaults to 0 and (gate
      MaxUnavailableStatefulSet on) ``maxUnavailable`` to 1.  A user who writes
      ``type: RollingUpdate`` without a block keeps no block;
    * ``spec.persistentVolumeClaimRetentionPolicy`` Retain/Retain (each half separately);
    * ``metadata.namespace`` "default" when absent; claim templates get
      ``volumeMode: Filesystem`` (core defaults).

    With *max_unavailable_gate* off, ``maxUnavailable`` is dropped unless *old* already
    used it (``dropStatefulSetDisabledFields``).  The selector is never defaulted; the
    pod template gets the core/v1 defaults (:func:`default_pod_template`).  Fields of
    the wrong type are left for :func:`decode_errors` to report.
    """
    sts = copy.deepcopy(doc)
    _default_namespace(sts)
    spec = _dict_at(sts, "spec")
    if spec is None:
        return sts
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = _dict_at(spec, "updateStrategy")
    if strategy is not None:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            if strategy.get("rollingUpdate") is None:
                strategy["rollingUpdate"] = {}
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
            if rolling.get("partition") is None:
                rolling["partition"] = 0
            if max_unavailable_gate and rolling.get("maxUnavailable") is None:
                rolling["maxUnavailable"] = 1
        if (not max_unavailable_gate and isinstance(rolling, dict)
                and not _max_unavailable_in_use(old)):
            rolling.pop("maxUnavailable", None)
    policy = _dict_at(spec, "persistentVolumeClaimRetentionPolicy")
    if policy is not None:
        for half in ("whenDeleted", "whenScaled"):
            if not policy.get(half):
                policy[half] = "Retain"
    for key, value in (("replicas", 1), ("revisionHistoryLimit", 10), ("minReadySeconds", 0)):
        if spec.get(key) is None:
            spec[key] = value
    _default_claim_templates(spec)
    default_pod_template(spec.get("template"))
    return sts


def default_service(doc: dict) -> dict:
    """A NEW dict: *doc* with the API server's core/v1 Service defaults applied.

    Mirror of ``SetDefaults_Service``: ``spec.type`` ClusterIP,
    ``spec.sessionAffinity`` None, each port's ``protocol`` TCP and ``targetPort``
    the port number; ``metadata.namespace`` "default" when absent.
    """
    svc = copy.deepcopy(doc)
    _default_namespace(svc)
    spec = _dict_at(svc, "spec")
    if spec is None:
        return svc
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    ports = spec.get("ports")
    for port in ports if isinstance(ports, list) else ():  # other types: a decode error later
        if isinstance(port, dict):
            if not port.get("protocol"):
                port["protocol"] = "TCP"
            if port.get("targetPort") in (None, 0, ""):
                port["targetPort"] = port.get("port")
    return svc


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
    return GoText(str(value) if isinstance(value, str) else str(_as_int(value)))


_ADDRESS = "0xc000010000"
"""Stand-in for a pointer address Go would print (the real one varies per request)."""


def _go_rolling_update(rolling: dict) -> GoText:
    """``%#v`` of the internal ``apps.RollingUpdateStatefulSetStrategy``."""
    partition = _as_int(rolling.get("partition")) or 0
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
# Label selectors (k8s.io/apimachinery/pkg/apis/meta/v1, pkg/labels)
# ---------------------------------------------------------------------------

_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


@dataclass(frozen=True)
class Selector:
    """A parsed label selector: *requirements* are ``(key, operator, values)``;
    *nothing* marks the selector of a nil ``LabelSelector`` (matches nothing)."""

    requirements: tuple = ()
    nothing: bool = False

    @property
    def empty(self) -> bool:
        """True if it selects everything (``labels.Selector.Empty``)."""
        return not self.nothing and not self.requirements

    def matches(self, labels: dict | None) -> bool:
        """True if *labels* satisfy every requirement (``labels.Selector.Matches``)."""
        if self.nothing:
            return False
        labels = labels or {}
        for key, op, values in self.requirements:
            has = key in labels
            if op == "In" and not (has and labels[key] in values):
                return False
            if op == "NotIn" and has and labels[key] in values:
                return False
            if op == "Exists" and not has:
                return False
            if op == "DoesNotExist" and has:
                return False
        return True


def label_selector_as_selector(selector: dict | None) -> Selector | None:
    """Mirror of ``metav1.LabelSelectorAsSelector``; None where upstream returns an error."""
    if selector is None:
        return Selector(nothing=True)
    reqs = []
    for key, value in (selector.get("matchLabels") or {}).items():
        if is_qualified_name(key) or is_valid_label_value(value):
            return None
        reqs.append((key, "In", (value,)))
    for expr in selector.get("matchExpressions") or ():
        key, op, values = expr.get("key") or "", expr.get("operator"), tuple(expr.get("values") or ())
        if op not in _SELECTOR_OPERATORS or is_qualified_name(key):
            return None
        if (op in ("In", "NotIn")) != bool(values):
            return None
        if any(is_valid_label_value(v) for v in values):
            return None
        reqs.append((key, op, values))
    return Selector(tuple(reqs))


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
    number = _as_int(value)
    return [invalid(path, number, NEGATIVE_MSG)] if number is not None and number < 0 else []


def validate_object_meta(meta: dict, name_fn, path: str = "metadata",
                         requires_namespace: bool = True) -> list[Error]:
    """Mirror of ``ValidateObjectMeta`` (generateName, name, namespace, generation,
    labels, annotations, finalizers)."""
    errs = []
    name, generate_name = meta.get("name") or "", meta.get("generateName") or ""
    if generate_name:
        errs += [invalid(_child(path, "generateName"), generate_name, m)
                 for m in name_fn(generate_name, True)]
    if not name:
        errs.append(required(_child(path, "name"), "name or generateName is required"))
    else:
        errs += [invalid(_child(path, "name"), name, m) for m in name_fn(name, False)]
    namespace = meta.get("namespace") or ""
    if requires_namespace:
        if not namespace:
            errs.append(required(_child(path, "namespace")))
        else:
            errs += [invalid(_child(path, "namespace"), namespace, m)
                     for m in name_is_dns_label(namespace)]
    errs += validate_nonnegative_field(meta.get("generation"), _child(path, "generation"))
    errs += validate_labels(meta.get("labels"), _child(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), _child(path, "annotations"))
    for finalizer in meta.get("finalizers") or ():
        errs += [invalid(_child(path, "finalizers"), finalizer, m)
                 for m in is_qualified_name(finalizer)]
    return errs


def validate_object_meta_update(new: dict, old: dict, path: str = "metadata") -> list[Error]:
    """Mirror of ``ValidateObjectMetaUpdate`` (name and namespace immutable; labels and
    annotations valid).  Resource version and generation are the cluster's business."""
    errs = []
    for key in ("name", "namespace"):
        if (new.get(key) or "") != (old.get(key) or ""):
            errs.append(invalid(_child(path, key), new.get(key) or "", "field is immutable"))
    errs += validate_labels(new.get("labels"), _child(path, "labels"))
    errs += validate_annotations(new.get("annotations"), _child(path, "annotations"))
    return errs


def validate_label_selector(selector: dict, path: str) -> list[Error]:
    """Mirror of ``ValidateLabelSelector`` (strict: label values in selectors checked)."""
    errs = validate_labels(selector.get("matchLabels"), _child(path, "matchLabels"))
    for i, expr in enumerate(selector.get("matchExpressions") or ()):
        at = _index(_child(path, "matchExpressions"), i)
        op, values = expr.get("operator") or "", expr.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(_child(at, "values"),
                                     "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(_child(at, "values"), "may not be specified when"
                                      " `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(_child(at, "operator"), op, "not a valid selector operator"))
        key = expr.get("key") or ""
        errs += [invalid(_child(at, "key"), key, m) for m in is_qualified_name(key)]
        for j, value in enumerate(values):
            errs += [invalid(_index(_child(at, "values"), j), value, m)
                     for m in is_valid_label_value(value)]
    return errs


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
        errs.append(required(_child(path, "accessModes"), "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        errs += validate_label_selector(spec["selector"], _child(path, "selector"))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errs.append(not_supported(_child(path, "accessModes"), mode, _ACCESS_MODES))
    if "ReadWriteOncePod" in modes and len(set(modes)) > 1:
        errs.append(forbidden(_child(path, "accessModes"),
                              "may not use ReadWriteOncePod with other access modes"))
    requests = ((spec.get("resources") or {}).get("requests")) or {}
    storage_path = _child(path, "resources") + "[storage]"
    if "storage" not in requests or requests["storage"] is None:
        errs.append(required(storage_path))
    else:
        amount = parse_quantity(requests["storage"])
        if amount is not None and amount <= 0:
            errs.append(invalid(storage_path, str(requests["storage"]), "must be greater than zero"))
    class_name = spec.get("storageClassName")
    if class_name:
        errs += [invalid(_child(path, "storageClassName"), class_name, m)
                 for m in name_is_dns_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode and mode not in ("Block", "Filesystem"):
        errs.append(not_supported(_child(path, "volumeMode"), mode, ("Block", "Filesystem")))
    return errs


def validate_volume_claim_templates(claims: list, path: str) -> list[Error]:
    """Mirror of ``ValidateVolumeClaimTemplates``.  The name check (a claim template's
    name becomes a pod volume name, so it must be a DNS-1123 label) is reported here at
    ``metadata.name``; upstream meets it only inside the generated pod volumes."""
    errs = []
    for i, claim in enumerate(claims):
        at = _index(path, i)
        claim = claim or {}
        name = (claim.get("metadata") or {}).get("name") or ""
        name_path = _child(at, "metadata", "name")
        if not name:
            errs.append(required(name_path))
        else:
            errs += [invalid(name_path, name, m) for m in is_dns1123_label(name)]
        errs += validate_persistent_volume_claim_spec(claim.get("spec") or {}, _child(at, "spec"))
    return errs


def _claim_names(spec: dict) -> list[str]:
    return [((c or {}).get("metadata") or {}).get("name") or ""
            for c in spec.get("volumeClaimTemplates") or []]


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
            errs.append(not_supported(_child(path, half), value, _RETENTION))
    return errs


def validate_rolling_update_stateful_set(rolling: dict, path: str) -> list[Error]:
    """Mirror of ``validateRollingUpdateStatefulSet`` (partition; maxUnavailable a
    positive int or a percentage, not 0, not over 100%)."""
    errs = validate_nonnegative_field(rolling.get("partition") or 0, _child(path, "partition"))
    value = rolling.get("maxUnavailable")
    if value is None:
        return errs
    at = _child(path, "maxUnavailable")
    shown = _go_int_or_string(value)
    percent_errs = is_valid_percent(value) if isinstance(value, str) else []
    if isinstance(value, str):
        errs += [invalid(at, shown, m) for m in percent_errs]
        amount = _atoi(value) if percent_errs else int(value[:-1])
    else:
        amount = _as_int(value)
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
            return [invalid(_child(path, "rollingUpdate"), _go_rolling_update(rolling),
                            "only allowed for updateStrategy 'RollingUpdate'")]
        return []
    if kind == "RollingUpdate":
        return [] if rolling is None else validate_rolling_update_stateful_set(
            rolling, _child(path, "rollingUpdate"))
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
        errs.append(invalid(_child(path, "metadata", "labels"), _go_string_map(labels),
                            "`selector` does not match template `labels`"))
    meta = template.get("metadata") or {}
    errs += validate_labels(meta.get("labels"), _child(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), _child(path, "annotations"))
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
        errs.append(required(_child(path, "selector")))
    else:
        errs += validate_label_selector(selector_doc, _child(path, "selector"))
        if not selector_doc.get("matchLabels") and not selector_doc.get("matchExpressions"):
            errs.append(invalid(_child(path, "selector"), _go_label_selector(selector_doc),
                                "empty selector is invalid for statefulset"))
    selector = label_selector_as_selector(selector_doc)
    if selector is None:
        errs.append(invalid(_child(path, "selector"), _go_label_selector(selector_doc)))
    else:
        errs += validate_pod_template_spec_for_stateful_set(
            spec.get("template") or {}, selector, _claim_names(spec), _child(path, "template"), opts)
    return errs


def validate_stateful_set_status_update(status, old_status, path: str = "status") -> list[Error]:
    """Mirror of ``ValidateStatefulSetStatus`` plus the collisionCount rule of
    ``ValidateStatefulSetStatusUpdate``: what the API server checks when a
    controller writes a set's status (*status* and *old_status* are
    :class:`~stsedu.model.StatefulSetStatus`)."""
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
        errs.append(required(_child(path, "podManagementPolicy")))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid(_child(path, "podManagementPolicy"), policy,
                            "must be 'OrderedReady' or 'Parallel'"))
    errs += validate_update_strategy(spec.get("updateStrategy") or {}, _child(path, "updateStrategy"))
    errs += validate_persistent_volume_claim_retention_policy(
        spec.get("persistentVolumeClaimRetentionPolicy"),
        _child(path, "persistentVolumeClaimRetentionPolicy"))
    if not opts.skip_validate_volume_claim_templates:
        errs += validate_volume_claim_templates(spec.get("volumeClaimTemplates") or [],
                                                _child(path, "volumeClaimTemplates"))
    errs += validate_nonnegative_field(spec.get("replicas"), _child(path, "replicas"))
    errs += validate_nonnegative_field(spec.get("minReadySeconds"), _child(path, "minReadySeconds"))
    if not opts.allow_negative_revision_history_limit:
        errs += validate_nonnegative_field(spec.get("revisionHistoryLimit"),
                                           _child(path, "revisionHistoryLimit"))
    if spec.get("ordinals") is not None:
        errs += validate_nonnegative_field(spec["ordinals"].get("start") or 0,
                                           _child(path, "ordinals.start"))
    service = spec.get("serviceName") or ""
    if service and not opts.allow_invalid_service_name:
        errs += [invalid(_child(path, "serviceName"), service, m) for m in name_is_dns_label(service)]
    errs += _validate_selector_and_template(spec, path, opts)
    pod_spec = (spec.get("template") or {}).get("spec") or {}
    restart = pod_spec.get("restartPolicy") or "Always"
    if restart != "Always":
        errs.append(not_supported(_child(path, "template", "spec", "restartPolicy"), restart,
                                  ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(_child(path, "template", "spec", "activeDeadlineSeconds"),
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
    return _dedupe(errs)


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
    pruned = _prune(spec, STATEFUL_SET_SPEC)
    return _semantic({k: v for k, v in pruned.items() if k not in MUTABLE_SPEC_FIELDS})


def _update_options(old: dict) -> StatefulSetValidationOptions:
    spec = old.get("spec") or {}
    template_errs = validate_pod_template_spec(spec.get("template") or {}, _claim_names(spec),
                                               "spec.template")
    claim_errs = validate_volume_claim_templates(spec.get("volumeClaimTemplates") or [],
                                                 "spec.volumeClaimTemplates")
    history = _as_int(spec.get("revisionHistoryLimit"))
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
    return _dedupe(errs)


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


# ---------------------------------------------------------------------------
# Convenience: a whole manifest at once
# ---------------------------------------------------------------------------

API_VERSIONS = {"StatefulSet": "apps/v1", "Service": "v1"}
"""The one apiVersion stsedu serves per supported kind."""

ERROR_KINDS = {"StatefulSet": "StatefulSet.apps", "Service": "Service"}
"""How the API server names each kind in "<kind> "<name>" is invalid"."""


@dataclass(frozen=True)
class Checked:
    """One document of a manifest after :func:`check`.

    *manifest* is the defaulted document (the original one for unsupported kinds),
    *errors* the ``(path, message)`` problems, *warnings* the unknown-field warnings,
    *supported* False for kinds stsedu does not simulate.
    """

    kind: str
    name: str
    namespace: str
    manifest: dict
    errors: tuple = ()
    warnings: tuple = ()
    supported: bool = True

    @property
    def ok(self) -> bool:
        """True if the document is supported and valid."""
        return self.supported and not self.errors

    def raise_if_invalid(self) -> None:
        """Raise :class:`~stsedu.errors.ValidationError` if there are errors."""
        if self.errors:
            raise validation_error(self.kind, self.name, self.errors, self.warnings)


def validation_error(kind: str, name: str, errors: Iterable[Error],
                     warnings: Iterable[str] = ()) -> ValidationError:
    """A :class:`~stsedu.errors.ValidationError` worded like the API server's
    ``StatefulSet.apps "web" is invalid: ...``."""
    return ValidationError(list(errors), kind=ERROR_KINDS.get(kind, kind), name=name,
                           warnings=list(warnings))


def _api_version_errors(doc: dict) -> list[Error]:
    kind, version = doc.get("kind"), doc.get("apiVersion")
    if API_VERSIONS.get(kind, version) != version:
        return [("apiVersion", f'no matches for kind "{kind}" in version "{version}"')]
    return []


def check(source: str | bytes | dict | list, *, max_unavailable_gate: bool = True) -> list[Checked]:
    """Load, default and validate every document of *source*; one :class:`Checked` each.

    Raises what :func:`load_documents` raises; problems inside documents are returned,
    not raised (see :meth:`Checked.raise_if_invalid`).
    """
    out = []
    for doc in load_documents(source):
        kind = doc["kind"]
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        name = meta.get("name") or ""
        if kind == "StatefulSet":
            manifest = default_statefulset(doc, max_unavailable_gate=max_unavailable_gate)
            errs = _api_version_errors(doc) + validate_statefulset(manifest)
        elif kind == "Service":
            manifest = default_service(doc)
            errs = _api_version_errors(doc) + validate_service(manifest)
        else:
            out.append(Checked(kind, name, meta.get("namespace") or "default", doc, supported=False))
            continue
        namespace = (manifest.get("metadata") or {}).get("namespace") or "default"
        out.append(Checked(kind, name, namespace, manifest, tuple(errs),
                           tuple(unknown_fields(doc))))
    return out


# ---------------------------------------------------------------------------
# Behaviour profiles (what an older API server accepts): see stsedu/profile_rules.py
# ---------------------------------------------------------------------------

def profile_errors(new: dict, profile, old: dict | None = None) -> list[Error]:
    """Errors the *profile*'s release reports for *new* (an update of *old* if given) beyond
    the newest rules; delegates to :func:`stsedu.profile_rules.profile_errors`."""
    from stsedu.profile_rules import profile_errors as rules
    return rules(new, profile, old)
