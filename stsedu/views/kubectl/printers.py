"""Resource types as kubectl names them, objects as the API server returns them, and ``get``'s printers.

* :data:`TYPES` and :func:`resolve_type`: ``pods``/``po``/``pod``, ``statefulsets``/``sts``,
  ``persistentvolumeclaims``/``pvc``, ``controllerrevisions``, ``services``/``svc`` (and the
  ``.apps`` forms), as discovery and kubectl's RESTMapper resolve them;
* :func:`api_object`: a stored object as ``kubectl get -o json`` shows it (timestamps in
  RFC 3339 from :data:`EPOCH`, integers as integers);
* :func:`table`: the default and ``-o wide`` columns of each type (``printPod``,
  ``printStatefulSet``, ``printService``, ...), with ``-L`` and ``--show-labels``;
* :func:`render`: ``-o yaml|json|name|jsonpath=...|go-template=...``.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass

from . import get as G
from .flags import KubectlError
from .templates import go_template, jsonpath

EPOCH = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
"""The wall-clock time of the embedded cluster's second 0 (creationTimestamp and friends)."""


@dataclass(frozen=True)
class RType:
    """A resource type: its *resource* (plural), *kind*, API *group* and the names kubectl accepts."""

    resource: str
    kind: str
    group: str
    names: tuple[str, ...]
    namespaced: bool = True

    @property
    def qualified(self) -> str:
        """``statefulsets.apps``, ``pods``: how the API server names the resource in its errors."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def name_prefix(self) -> str:
        """``statefulset.apps``, ``pod``: how ``-o name`` and the ``TYPE/NAME created`` lines begin."""
        k = self.kind.lower()
        return f"{k}.{self.group}" if self.group else k

    def not_found(self, name: str) -> KubectlError:
        return KubectlError(f'Error from server (NotFound): {self.qualified} "{name}" not found')


TYPES = (
    RType("pods", "Pod", "", ("po", "pod", "pods")),
    RType("statefulsets", "StatefulSet", "apps", ("sts", "statefulset", "statefulsets")),
    RType("persistentvolumeclaims", "PersistentVolumeClaim", "", ("pvc", "persistentvolumeclaim",
                                                                  "persistentvolumeclaims")),
    RType("controllerrevisions", "ControllerRevision", "apps", ("controllerrevision", "controllerrevisions")),
    RType("services", "Service", "", ("svc", "service", "services")),
)
BY_KIND = {t.kind: t for t in TYPES}
_LOOKUP = {}
for _t in TYPES:
    for _n in _t.names:
        _LOOKUP[_n] = _t
        if _t.group:
            _LOOKUP[f"{_n}.{_t.group}"] = _t
            _LOOKUP[f"{_n}.v1.{_t.group}"] = _t
        else:
            _LOOKUP[f"{_n}.v1"] = _t
_OTHER_SERVED = {"deployments", "deploy", "deployment", "replicasets", "rs", "daemonsets", "ds", "jobs", "job",
                 "cronjobs", "cj", "configmaps", "cm", "secrets", "nodes", "no", "node", "namespaces", "ns",
                 "events", "ev", "endpoints", "ep", "persistentvolumes", "pv", "serviceaccounts", "sa",
                 "storageclasses", "sc", "poddisruptionbudgets", "pdb", "ingresses", "ing", "all"}


def resolve_type(word: str) -> RType:
    """The type a word names, or kubectl's ``the server doesn't have a resource type "x"``."""
    t = _LOOKUP.get(word.lower())  # the RESTMapper matches resource names case-insensitively
    if t is not None:
        return t
    if word.lower() in _OTHER_SERVED:
        raise KubectlError(f'error: stsedu simulates pods, statefulsets, persistentvolumeclaims, '
                           f'controllerrevisions and services only, not "{word}"')
    raise KubectlError(f'error: the server doesn\'t have a resource type "{word}"')


# ====================================================================== objects

def timestamp(seconds: float | None) -> str | None:
    """Simulated seconds as the RFC 3339 time the API server writes (``2026-01-01T00:00:05Z``)."""
    if seconds is None:
        return None
    return (EPOCH + _dt.timedelta(seconds=int(seconds))).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clean(v):
    """Drop None values; floats that are whole become integers (JSON numbers, as Go encodes int fields)."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def api_object(obj, ips: dict | None = None) -> dict:
    """*obj* (a stored Pod, StatefulSet, claim, revision or Service) as the API server returns it
    (*ips*: pod name -> simulated IP, from :func:`ip_table`)."""
    m = obj.to_manifest()
    meta = m.get("metadata") or {}
    for key in ("creationTimestamp", "deletionTimestamp"):
        if key in meta:
            meta[key] = timestamp(meta[key])
    if getattr(obj, "deletion_timestamp", None) is not None and m.get("kind") == "Pod":
        meta.setdefault("deletionGracePeriodSeconds", obj.grace_period_seconds)
    status = m.get("status")
    if isinstance(status, dict):
        if "startTime" in status:
            status["startTime"] = timestamp(status["startTime"])
        for c in status.get("conditions") or ():
            if isinstance(c, dict) and "lastTransitionTime" in c:
                c["lastTransitionTime"] = timestamp(c["lastTransitionTime"])
        if m.get("kind") == "Pod" and status.get("phase") and status.get("phase") != "Pending":
            ip = (ips or {}).get(obj.name)
            if ip:
                status["podIP"] = ip
            status["hostIP"] = "172.18.0.2"
    if m.get("kind") == "Pod":
        m["spec"].setdefault("nodeName", G.SIM_NODE)
    return _clean(m)


def ip_table(cluster) -> dict[str, str]:
    """Pod name -> its simulated IP now (``get -o wide``'s column)."""
    return G.pod_ips(cluster.trace)


def as_list(objs: list[dict]) -> dict:
    """kubectl's ``List`` around several objects (``-o json|yaml`` of a list)."""
    return {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}


# ====================================================================== tables


def _labels_text(labels) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items())) or "<none>"


def _svc_row(cluster, s, wide: bool) -> list[str]:
    spec = s.spec
    ports = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or ()) or "<none>"
    row = [s.name, spec.get("type", "ClusterIP"), spec.get("clusterIP") or "<none>",
           "<none>", ports, G.human_duration(cluster.now - s.creation_timestamp)]
    if wide:
        row.append(",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>")
    return row


def table(cluster, rtype: RType, objs: list, wide: bool = False, label_columns=(), show_labels: bool = False,
          no_headers: bool = False, with_kind: bool = False) -> list[list[str]]:
    """The rows (header first) of ``kubectl get TYPE`` for *objs*."""
    now = cluster.now
    label_columns = list(label_columns)
    if rtype.kind == "Pod":
        rows = [list(G.WATCH_HEADER) + (list(G.WIDE_HEADER) if wide else [])] + G.pod_rows(cluster, objs, wide)
    elif rtype.kind == "StatefulSet":
        header = ["NAME", "READY", "AGE"] + (["CONTAINERS", "IMAGES"] if wide else [])
        rows = [header]
        for s in objs:
            row = [s.name, f"{s.status.ready_replicas}/{s.spec.replicas}", G.human_duration(now - s.creation_timestamp)]
            if wide:
                cs = s.spec.template.get("spec", {}).get("containers", [])
                row += [",".join(c.get("name", "") for c in cs), ",".join(c.get("image", "") for c in cs)]
            rows.append(row)
    elif rtype.kind == "PersistentVolumeClaim":
        header = ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                  "VOLUMEATTRIBUTESCLASS", "AGE"] + (["VOLUMEMODE"] if wide else [])
        rows = [header]
        for c in objs:
            bound = c.phase == "Bound"
            spec = c.spec
            row = [c.name, "Terminating" if c.deleting else c.phase, f"pvc-{c.uid}" if bound else "",
                   c.storage if bound else "", G.access_modes(spec.get("accessModes")) if bound else "",
                   c.annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or ""),
                   spec.get("volumeAttributesClassName") or "<unset>", G.human_duration(now - c.creation_timestamp)]
            if wide:
                row.append(spec.get("volumeMode") or "Filesystem")
            rows.append(row)
    elif rtype.kind == "ControllerRevision":
        from ...api.objects import controller_of
        rows = [["NAME", "CONTROLLER", "REVISION", "AGE"]]
        for r in objs:
            ref = controller_of(r.owner_references)
            controller = "<none>"
            if ref is not None:
                group = ref.api_version.rpartition("/")[0] if "/" in ref.api_version else ""
                controller = f"{ref.kind.lower()}{'.' + group if group else ''}/{ref.name}"
            rows.append([r.name, controller, str(r.revision), G.human_duration(now - r.creation_timestamp)])
    else:
        rows = [["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"] + (["SELECTOR"] if wide else [])]
        rows += [_svc_row(cluster, s, wide) for s in objs]
    for key in label_columns:
        rows[0].append(key.rsplit("/", 1)[-1].upper())
        for row, o in zip(rows[1:], objs):
            row.append((o.labels or {}).get(key, ""))
    if show_labels:
        rows[0].append("LABELS")
        for row, o in zip(rows[1:], objs):
            row.append(_labels_text(o.labels))
    if with_kind:
        for row in rows[1:]:
            row[0] = f"{rtype.name_prefix}/{row[0]}"
    return rows[1:] if no_headers else rows


def lay_out(rows: list[list[str]]) -> str:
    """kubectl's tabwriter over *rows*."""
    return "\n".join(G.KubectlTabWriter().flush(rows))


# ====================================================================== -o

OUTPUTS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file", "json", "jsonpath",
           "jsonpath-as-json", "jsonpath-file", "kyaml", "name", "template", "templatefile", "wide", "yaml")
"""kubectl get's output formats, sorted as ``NoCompatiblePrinterError`` prints them."""


def output_kind(output: str, template: str) -> tuple[str, str]:
    """``(format, template)`` from ``-o`` and ``--template``; kubectl's error for a format it lacks."""
    if not output and template:
        return "go-template", template
    fmt, _, arg = output.partition("=")
    if fmt in ("", "wide", "yaml", "json", "name"):
        return fmt, ""
    if fmt in OUTPUTS and fmt not in ("jsonpath", "go-template", "template"):
        raise KubectlError(f"error: stsedu does not print -o {fmt}; it prints -o wide, yaml, json, name, "
                           "jsonpath=... and go-template=...")
    if fmt in ("jsonpath", "go-template", "template"):
        if not arg and not template:
            raise KubectlError(f"error: template format specified but no template given")
        return ("go-template" if fmt == "template" else fmt), arg or template
    raise KubectlError(f'error: unable to match a printer suitable for the output format "{output}", '
                       f"allowed formats are: {','.join(OUTPUTS)}")


def to_yaml(data) -> str:
    """YAML as kubectl prints it (sigs.k8s.io/yaml over go-yaml): keys sorted, lists not indented,
    a string that would read back as another type (``"True"``, ``"0"``, a timestamp) or is empty
    in double quotes, a multi-line string as a ``|`` block."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper, value):
        if "\n" in value:
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
        plain = (dumper.resolve(yaml.ScalarNode, value, (True, False)) == "tag:yaml.org,2002:str"
                 and dumper.analyze_scalar(value).allow_block_plain)
        return dumper.represent_scalar("tag:yaml.org,2002:str", value,
                                       style=None if plain and value else '"')
    Dumper.add_representer(str, text)
    return yaml.dump(data, Dumper=Dumper, default_flow_style=False, sort_keys=True, allow_unicode=True,
                     width=10**9)


def render(fmt: str, template: str, items: list[tuple[RType, object]], single: bool,
           ips: dict | None = None) -> str:
    """``-o`` output for *items* (``(type, object)``); *single*: one object named on the line."""
    if fmt == "name":
        return "".join(f"{t.name_prefix}/{o.name}\n" for t, o in items)
    data = [api_object(o, ips) for _, o in items]
    doc = data[0] if single and len(data) == 1 else as_list(data)
    if fmt == "json":
        return json.dumps(doc, indent=4, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return to_yaml(doc)
    if fmt == "jsonpath":
        return jsonpath(template, doc)
    return go_template(template, doc)
