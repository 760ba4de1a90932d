"""The real kube-apiserver as the judge of docs/validation.md (marker ``live``).

Every row of the create, update, service and service_update tables of docs/validation.md
(each row is the kit's answer: tests/api/test_manifests.py checks the kit against them) is sent
to the real kube-apiserver v1.37.2 of the local control plane, through the raw API with
``dryRun=All`` (validated and admitted, never stored): the create as a POST, the update as a
PUT over the stored ``web``/``nginx``. The server's answer — its status reason and, per
cause, the field path and message — must be the rows' in the same order. A decode error
(the server's 400 BadRequest) must carry the row's ``json: cannot unmarshal ...`` message.
Where they differ the real server wins: :data:`KNOWN` lists the rows the kit still words
differently, each with the server's answer (docs/live.md).
"""

from __future__ import annotations

import copy
import json

import pytest

from stsedu.api import load
from stsedu.api.merge_patch import merge_patch
from stsedu.live import build as live_build
from test_manifests import WEB_YAML as WEB_YAML_PATH, _grouped, doc_tables

pytestmark = pytest.mark.live

TABLES = ("create", "update", "service", "service_update")
CREATE_NS = "stsedu-creates"

KNOWN: dict[tuple[str, str], str] = {
    ('create', '{"spec":{"selector":null}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"selector":{"matchLabels":null}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"selector":{"matchLabels":{"app":"web"}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"selector":{"matchLabels":{"app":"nginx","tier":"db"}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"selector":{"matchLabels":null,"matchExpressions":[{"key":"app","operator":"Within","values":["nginx"]}]}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"updateStrategy":{"type":"Rolling"}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":{"partition":1}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"0%"}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"half"}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"150%"}}}}'):
        'value: v1.37 prints an invalid value as JSON ({"app":"nginx"}, "0%"); the kit prints Go\'s %#v or the bare string',
    ('create', '{"spec":{"revisionHistoryLimit":-1}}'):
        'accepted: v1.37 accepts a negative revisionHistoryLimit; the kit refuses it',
    ('create', '{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"WWW"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}'):
        "path: v1.37 reports the claim template's bad name at spec.template.spec.volumes[0].name",
    ('create', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","resources":{"limits":{"cpu":"abc"}}}]}}}}'):
        'decode: v1.37 refuses a bad quantity while decoding (400 BadRequest), not as a field error',
    ('create', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","readinessProbe":{"httpGet":"/healthz"}}]}}}}'):
        "decode: v1.37's Go struct path is ...readinessProbe.ProbeHandler.httpGet",
    ('update', '{"spec":{"serviceName":"other"}}'):
        "immutable: v1.37 names each immutable field ('field is immutable'); the kit gives the older one 'spec: Forbidden' error",
    ('update', '{"spec":{"podManagementPolicy":"Parallel"}}'):
        "immutable: v1.37 names each immutable field ('field is immutable'); the kit gives the older one 'spec: Forbidden' error",
    ('update', '{"spec":{"selector":{"matchLabels":{"app":"nginx","tier":"web"}},"template":{"metadata":{"labels":{"tier":"web"}}}}}'):
        "immutable: v1.37 names each immutable field ('field is immutable'); the kit gives the older one 'spec: Forbidden' error",
    ('update', '{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"www"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"my-storage-class","resources":{"requests":{"storage":"2Gi"}}}}]}}'):
        "immutable: v1.37 says spec.volumeClaimTemplates: field is immutable; the kit gives the older 'spec: Forbidden' error",
    ('update', '{"metadata":{"name":"web2"}}'):
        'not comparable: an update cannot rename; the server answers by the name in the URL',
    ('update', '{"spec":{"replicas":-1,"serviceName":"other"}}'):
        "immutable: v1.37 names each immutable field ('field is immutable'); the kit gives the older one 'spec: Forbidden' error",
    ('service', '{"metadata":{"name":"1nginx"}}'):
        'accepted: v1.37 accepts a Service name starting with a digit (RFC 1123 label); the kit refuses it',
    ('service_update', '{"spec":{"clusterIP":"10.96.0.10"}}'):
        'service update: v1.37 answers at spec.clusterIPs[0] (or keeps the old clusterIP when it is left out)',
    ('service_update', '{"spec":{"clusterIP":null}}'):
        'service update: v1.37 answers at spec.clusterIPs[0] (or keeps the old clusterIP when it is left out)',
}
"""(table, input) -> why the kit's answer differs from the real server's."""


@pytest.fixture(scope="module")
def server():
    why = live_build.missing_reason()
    if why:
        pytest.skip(f"live control plane unavailable: {why}")
    from kubernetes import client
    from stsedu.live.controlplane import ControlPlane
    from stsedu.live.client import api_client
    with ControlPlane() as cp:
        api = api_client(str(cp.kubeconfig))
        web_docs = load.load_documents(WEB_YAML_PATH.read_text())
        client.CoreV1Api(api).create_namespace({"metadata": {"name": CREATE_NS}})
        for d in web_docs:  # the old objects of the update tables
            if d["kind"] == "Service":
                client.CoreV1Api(api).create_namespaced_service("default", d)
            else:
                client.AppsV1Api(api).create_namespaced_stateful_set("default", d)
        yield api, web_docs


def _request(api, method, path, body=None, query=()):
    """(HTTP status, JSON answer) of one raw API request (the client's serializer and auth, no model)."""
    m, url, headers, data, post = api.param_serialize(method, path, query_params=list(query), body=body,
                                                header_params={"Content-Type": "application/json",
                                                               "Accept": "application/json"},
                                                auth_settings=["BearerToken"])
    resp = api.call_api(m, url, headers, data, post)
    resp.read()
    return resp.status, json.loads(resp.data or b"{}")


def _answer(api, table, obj):
    """(reason, [(field, message)], message) of the server's answer to *obj* (a dry run)."""
    kind = "services" if table.startswith("service") else "statefulsets"
    base = "/api/v1" if kind == "services" else "/apis/apps/v1"
    name = obj["metadata"].get("name") if isinstance(obj.get("metadata"), dict) else None
    if table.endswith("update"):  # over the stored object in namespace "default"
        target = "nginx" if kind == "services" else "web"
        _, current = _request(api, "GET", f"{base}/namespaces/default/{kind}/{target}")
        if isinstance(obj.get("metadata"), dict):
            obj["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        status, answer = _request(api, "PUT", f"{base}/namespaces/default/{kind}/{target}", obj, [("dryRun", "All")])
    else:  # in an empty namespace, so that no stored object of the same name answers AlreadyExists
        if isinstance(obj.get("metadata"), dict):
            obj["metadata"].pop("namespace", None)
        status, answer = _request(api, "POST", f"{base}/namespaces/{CREATE_NS}/{kind}", obj, [("dryRun", "All")])
    if status < 400:
        return "Accepted", [], ""
    causes = [(c.get("field", ""), c.get("message", "")) for c in (answer.get("details") or {}).get("causes") or ()]
    return answer.get("reason"), causes, answer.get("message", "")


def _cases():
    tables = doc_tables()
    return [(t, source, expected) for t in TABLES for source, expected in _grouped(tables[t]).items()]


@pytest.mark.parametrize("table, source, expected", _cases(), ids=[f"{c[0]}-{i}" for i, c in enumerate(_cases())])
def test_real_api_server_gives_the_rows_answer(server, table, source, expected):
    api, web_docs = server
    base = copy.deepcopy(web_docs[0] if table.startswith("service") else web_docs[1])
    obj = merge_patch(base, json.loads(source))
    reason, causes, message = _answer(api, table, obj)
    decode = [m for _, m in expected if m.startswith("json: cannot unmarshal")]
    if decode:
        got = ("BadRequest", all(m in message for m in decode))
        want = ("BadRequest", True)
    else:
        got = (reason, causes)
        want = ("Invalid", list(expected))
    if (table, source) in KNOWN:
        assert got != want, f"now agrees: remove {(table, source)} from KNOWN and docs/live.md"
    else:
        assert got == want, f"real server: {reason}: {message}"
