"""The real kube-apiserver as the judge of bad input (marker ``live``; issue 28, item 5).

Three sets of inputs go to the real kube-apiserver v1.37.2 of the local control plane and to
the kit (:func:`test_manifests.kit_answer`, the admission the kit's ``apply`` uses), and the
answers must be the same -- accepted (with the same warnings, such as a negative
``terminationGracePeriodSeconds`` or ``revisionHistoryLimit``), refused as Invalid (the same
field paths and messages, in order) or refused while decoding (400 BadRequest, the server's
``StatefulSet in version "v1" cannot be handled as a StatefulSet: <the first decode error>``):

* every row of the create, update, service and service_update tables of docs/validation.md
  (each row is also checked against the kit by tests/api/test_manifests.py);
* a seeded sample of the fuzz cases that have an API-server answer (:func:`fuzz_sample`: 300 a
  run, another sample each day, all of them with ``STSEDU_LIVE_FUZZ=all``): every field of the concept page's ``web`` and
  ``nginx`` set to each of a fixed list of hostile values (the values tests/kit/test_fuzz.py draws
  from, the finite ones: NaN and infinity cannot be sent as JSON), and the rejected inputs of
  tests/api/test_manifests.py, tests/kit/test_hardening.py and tests/api/test_api_errors.py -- each as a
  create and as an update of the stored object -- and every manifest and edit the Hypothesis
  histories of tests/kit/test_properties.py draw;
* the doc rows again through the real ``kubectl apply --dry-run=server``, whose error text
  must hold the kit's ``ValidationError`` text, and whose warnings the kit's.

The raw API requests use ``dryRun=All`` (validated and admitted, never stored): a create is a
POST into an empty namespace, an update a PUT over the stored ``web``/``nginx``.  Where the
kit and the server differ the real server wins; :data:`KNOWN` lists what cannot be compared.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess

import pytest

from stsedu.api import load
from stsedu.api.merge_patch import merge_patch
from stsedu.api.quantities import QUANTITY_FORMAT_ERROR
from stsedu.live import build as live_build
from test_manifests import REJECTED, WEB_YAML as WEB_YAML_PATH, _grouped, doc_tables, kit_answer
from helpers import live_fuzz_seed, unavailable

pytestmark = pytest.mark.live

TABLES = ("create", "update", "service", "service_update")
CREATE_NS = "stsedu-creates"
KUBECTL_NS = "stsedu-kubectl"

KNOWN: dict[tuple[str, str], str] = {
    ('update', '{"metadata":{"name":"web2"}}'):
        "not comparable: an update cannot rename; the server answers by the name in the URL "
        "(the name of the object (web2) does not match the name on the URL (web))",
}
"""(table, input) -> why the kit's answer cannot be compared with the real server's."""

WEB_DOCS = load.load_documents(WEB_YAML_PATH.read_text())
KIND_OF = {"create": "StatefulSet", "update": "StatefulSet", "service": "Service", "service_update": "Service"}


@pytest.fixture(scope="module")
def server():
    why = live_build.missing_reason()
    if why:
        unavailable(f"live control plane unavailable: {why}")
    from kubernetes import client
    from stsedu.live.controlplane import ControlPlane
    from stsedu.live.client import api_client
    with ControlPlane() as cp:
        api = api_client(str(cp.kubeconfig))
        for ns in (CREATE_NS, KUBECTL_NS):
            client.CoreV1Api(api).create_namespace({"metadata": {"name": ns}})
        for d in WEB_DOCS:  # the old objects of the update tables
            if d["kind"] == "Service":
                client.CoreV1Api(api).create_namespaced_service("default", d)
            else:
                client.AppsV1Api(api).create_namespaced_stateful_set("default", d)
        yield api, cp


def _request(api, method, path, body=None, query=()):
    """(HTTP status, JSON answer, warnings) of one raw API request (the client's serializer and
    auth, no model)."""
    m, url, headers, data, post = api.param_serialize(method, path, query_params=list(query), body=body,
                                                header_params={"Content-Type": "application/json",
                                                               "Accept": "application/json"},
                                                auth_settings=["BearerToken"])
    resp = api.call_api(m, url, headers, data, post)
    resp.read()
    warnings = [_warning_text(w) for w in resp.response.headers.getlist("Warning")]
    return resp.status, json.loads(resp.data or b"{}"), warnings


def _warning_text(header: str) -> str:
    """The text of one ``Warning: 299 - "..."`` header (RFC 7234 quoted string)."""
    match = re.fullmatch(r'\d{3} \S+ "((?:[^"\\]|\\.)*)"(?: .*)?', header)
    return re.sub(r"\\(.)", r"\1", match.group(1)) if match else header


def server_answer(api, table: str, obj: dict) -> list[tuple[str, str]]:
    """The server's answer to *obj* (a dry run), in the tables' form: the causes of an Invalid
    answer, ``("", "Accepted")`` (or one ``("", "Accepted, with a warning: ...")`` per warning),
    or ``("", "BadRequest: <message>")``."""
    kind = "services" if table.startswith("service") else "statefulsets"
    base = "/api/v1" if kind == "services" else "/apis/apps/v1"
    if table.endswith("update"):  # over the stored object in namespace "default"
        target = "nginx" if kind == "services" else "web"
        _, current, _ = _request(api, "GET", f"{base}/namespaces/default/{kind}/{target}")
        if isinstance(obj.get("metadata"), dict):
            obj["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        status, answer, warnings = _request(api, "PUT", f"{base}/namespaces/default/{kind}/{target}", obj,
                                            [("dryRun", "All")])
    else:  # in an empty namespace, so that no stored object of the same name answers AlreadyExists
        if isinstance(obj.get("metadata"), dict):
            obj["metadata"].pop("namespace", None)
        status, answer, warnings = _request(api, "POST", f"{base}/namespaces/{CREATE_NS}/{kind}", obj,
                                            [("dryRun", "All")])
    if status < 400:
        return [("", f"Accepted, with a warning: {w}") for w in warnings] or [("", "Accepted")]
    if answer.get("reason") != "Invalid":
        return [("", f"{answer.get('reason')}: {answer.get('message', '')}")]
    return [(c.get("field", ""), c.get("message", "")) for c in (answer.get("details") or {}).get("causes") or ()]


def _is_decode(message: str) -> bool:
    return message.startswith(("json: cannot unmarshal", QUANTITY_FORMAT_ERROR))


def as_served(table: str, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The kit's rows as the server words them: decode errors become the one 400 BadRequest
    the decoder answers with (its first error; the kit lists them all)."""
    if rows and all(_is_decode(m) for _, m in rows):
        kind = KIND_OF[table]
        return [("", f'BadRequest: {kind} in version "v1" cannot be handled as a {kind}: {rows[0][1]}')]
    return rows


def _obj(table: str, patch: dict) -> dict:
    base = copy.deepcopy(WEB_DOCS[0] if table.startswith("service") else WEB_DOCS[1])
    return merge_patch(base, patch)


# ---------------------------------------------------------------------------
# 1. the rows of docs/validation.md
# ---------------------------------------------------------------------------

def _doc_cases():
    tables = doc_tables()
    return [(t, source, expected) for t in TABLES for source, expected in _grouped(tables[t]).items()]


@pytest.mark.parametrize("table, source, expected", _doc_cases(), ids=[f"{c[0]}-{i}" for i, c in enumerate(_doc_cases())])
def test_real_api_server_gives_the_rows_answer(server, table, source, expected):
    api, _ = server
    got = server_answer(api, table, _obj(table, json.loads(source)))
    if (table, source) in KNOWN:
        assert got != as_served(table, expected), f"now agrees: remove {(table, source)} from KNOWN and docs/live.md"
    else:
        assert got == as_served(table, expected)


# ---------------------------------------------------------------------------
# 2. the fuzz cases that have an API-server answer
# ---------------------------------------------------------------------------

HOSTILE = [None, "", -1, 0, 2.5, "abc", True, "web\n", " nginx ", "50%\n", "1Gi", [], {}, 2 ** 31, "é",
           {"name": "x"}, "a" * 300]
"""The finite values tests/kit/test_fuzz.py draws from (its SCALARS and small containers)."""


def _paths(value, prefix=()):
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


def _mutations():
    """(table, patch) for every field of web and nginx set to every hostile value, as a create
    and as an update; kind and apiVersion name other resources, and an update cannot rename."""
    out = []
    for index, table in ((1, "create"), (0, "service")):
        for path in _paths(WEB_DOCS[index]):
            if path[0] in ("apiVersion", "kind"):
                continue
            for value in HOSTILE:
                doc = copy.deepcopy(WEB_DOCS[index])
                node = doc
                for key in path[:-1]:
                    node = node[key]
                node[path[-1]] = value
                updates = [] if path[0] == "metadata" and (path[1:] in ((), ("name",))) else [
                    "update" if table == "create" else "service_update"]
                label = ".".join(str(k) for k in path) + "=" + json.dumps(value)[:40]
                out += [(f"{t} {label}", t, doc) for t in [table] + updates]
    return out


def _fixtures():
    """The rejected inputs of tests/api/test_manifests.py (REJECTED) and the manifests the
    hardening and API-error tests refuse, as creates and updates of web."""
    patches = [patch for _, patch, _ in REJECTED]
    patches += [
        {"status": 3},
        {"spec": {"template": {"spec": {"terminationGracePeriodSeconds": -5}}}},
        {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": " nginx"}]}}}},
        {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "x",
                                                         "resources": {"requests": {"memory": "2Gi"},
                                                                       "limits": {"memory": "1Gi"}}}]}}}},
        {"spec": {"replicas": -1, "podManagementPolicy": "Parallel"}},
        {"spec": {"serviceName": None}},
        {"spec": {"revisionHistoryLimit": -3, "replicas": 2}},
        {"metadata": {"labels": {"tier": 1}}},
        {"metadata": {"annotations": {"bad key!": "x"}}},
    ]
    return [(t, patch) for patch in patches for t in ("create", "update")
            if not (t == "update" and "name" in (patch.get("metadata") or {}))]  # an update cannot rename


def _unique(cases):
    seen: dict[str, int] = {}
    out = []
    for label, table, doc in cases:
        seen[label] = seen.get(label, 0) + 1
        out.append((label if seen[label] == 1 else f"{label} #{seen[label]}", table, doc))
    return out


def _properties():
    """The manifests and edits the Hypothesis histories of tests/kit/test_properties.py draw (each
    is one the kit accepts): every manifest ``_manifest`` can make, as a create, and every
    edit ``_act`` sends, as an update of the stored web."""
    from helpers import web
    from test_properties import IMAGES, POLICIES, RETENTIONS
    out = []
    strategies = [None, {"type": "RollingUpdate"}, {"type": "OnDelete"},
                  {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}]
    for policy in POLICIES:
        for name, retention in RETENTIONS.items():
            for k, strategy in enumerate(strategies):
                for replicas, min_ready, start in ((0, 0, None), (4, 5, 1)):
                    m = web(replicas, policy, claims=True, retention=retention, strategy=strategy,
                            min_ready=min_ready, start=start)
                    out.append((f"create properties {policy} {name} strategy{k} {replicas}", "create", m))
    edits = ([{"spec": {"replicas": n}} for n in range(6)]
             + [{"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": i}]}}}} for i in IMAGES]
             + [{"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": n}}}}
                for n in range(6)]
             + [{"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": v}}}}
                for v in (1, 2, "50%")]
             + [{"spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": None}}},
                {"spec": {"updateStrategy": {"type": "RollingUpdate"}}},
                {"spec": {"minReadySeconds": 30, "replicas": 4}}])
    out += [(f"update properties {json.dumps(e)}", "update", _obj("update", e)) for e in edits]
    return out


FUZZ_CASES = _unique(_mutations() + [(f"{t} {json.dumps(p)[:120]}", t, _obj(t, p)) for t, p in _fixtures()]
                     + _properties())
"""(label, table, object) of every fuzz case."""


def _why(label: str) -> str:
    if label.startswith("update spec.volumeClaimTemplates"):
        return ("the internal []PersistentVolumeClaim the server prints in 'field is immutable' for an "
                "emptied or nulled template: the kit's JSON rendering differs (not yet fixed)")
    if "storage=2.5" in label:
        return ("a fractional byte quantity in a claim template: the server warns (GetWarningsForPersistentVolumeClaimSpec); "
                "the kit does not model that warning yet")
    return ""


FUZZ_KNOWN: dict[str, str] = {label: _why(label) for label in (
    'update spec.volumeClaimTemplates=[]',
    'update spec.volumeClaimTemplates.0=null',
    'create spec.volumeClaimTemplates.0.spec.resources.requests.storage=2.5',
)}
"""Fuzz cases where the kit still answers differently from the real server, and why (``_why``)."""


def fuzz_sample(cases=FUZZ_CASES) -> list[int]:
    """The indices of the fuzz cases this run sends: ``STSEDU_LIVE_FUZZ`` of them (default 300;
    ``all`` for every case) drawn with the seed of :func:`helpers.live_fuzz_seed` (today's date
    unless ``STSEDU_LIVE_FUZZ_SEED`` names one, so each day checks another sample and a failure
    replays with the seed the report header printed), plus every case of :data:`FUZZ_KNOWN`."""
    want = os.environ.get("STSEDU_LIVE_FUZZ", "300").strip().lower()
    if want == "all":
        return list(range(len(cases)))
    if not want.isdecimal() or not want.isascii():
        raise pytest.UsageError(f"STSEDU_LIVE_FUZZ={want!r}: give a whole number of cases or 'all'")
    known = [i for i, c in enumerate(cases) if c[0] in FUZZ_KNOWN]
    drawn = random.Random(live_fuzz_seed()).sample(range(len(cases)), min(int(want), len(cases)))
    return sorted(set(drawn) | set(known))


@pytest.mark.parametrize("i", fuzz_sample(), ids=lambda i: FUZZ_CASES[i][0])
def test_real_api_server_gives_the_kits_answer_to_fuzz_cases(server, i):
    api, _ = server
    label, table, doc = FUZZ_CASES[i]
    want = as_served(table, kit_answer(table, {}, WEB_DOCS, obj=doc))
    got = server_answer(api, table, copy.deepcopy(doc))
    if label in FUZZ_KNOWN:
        assert FUZZ_KNOWN[label], label
        assert got != want, f"now agrees: remove {label!r} from FUZZ_KNOWN"
    else:
        assert got == want, (f"{json.dumps(doc)[:400]} (replay: STSEDU_LIVE_FUZZ_SEED={live_fuzz_seed()} "
                             f"pytest -m live -k {label!r})")


# ---------------------------------------------------------------------------
# 3. kubectl apply
# ---------------------------------------------------------------------------

def _kubectl(cp, *args, stdin: str):
    from stsedu.live import kubectl_path
    done = subprocess.run([kubectl_path(), f"--kubeconfig={cp.kubeconfig}", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


KUBECTL_CASES = [c for c in _doc_cases() if c[0] in ("create", "service")]

_DECODE = ("a manifest the server cannot decode: real kubectl prints 'Error from server (BadRequest): error when "
           "creating \"STDIN\": StatefulSet in version \"v1\" cannot be handled as a StatefulSet: ...'; the kit's "
           "kubectl prints it as an Invalid error (the raw API answers agree: test_real_api_server_gives_the_rows_answer)")
KUBECTL_KNOWN: dict[tuple[str, str], str] = {
    ("create", '{"metadata":{"name":null}}'):
        "kubectl apply first GETs the object by name and stops: 'resource name may not be empty'; the kit's "
        "kubectl sends it and prints the server's Required value",
    ("create", '{"metadata":{"labels":{"version":1.0}}}'):
        "kubectl decodes metadata itself: 'error: unable to decode \"STDIN\": json: cannot unmarshal ...'",
    **{("create", source): _DECODE for source in (
        '{"spec":{"replicas":"three"}}', '{"spec":{"replicas":2.5}}',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","resources":{"limits":[1]}}]}}}}',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","resources":{"limits":{"cpu":"abc"}}}]}}}}',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","readinessProbe":{"httpGet":"/healthz"}}]}}}}',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24","env":[{"name":"POD","valueFrom":{"fieldRef":"metadata.name"}}]}]}}}}',
        '{"status":3}')},
}
"""Rows whose kubectl text the kit's kubectl does not yet print as the real kubectl does, and why."""


@pytest.mark.parametrize("table, source, expected", KUBECTL_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(KUBECTL_CASES)])
def test_kubectl_apply_gives_the_kits_text(server, table, source, expected):
    """The real ``kubectl apply --dry-run=server -f -`` of the row's manifest and the kit's
    ``kubectl apply -f -`` (:class:`stsedu.console.session.Session`, on a new cluster) print the
    same error, or, when both accept it, the same ``Warning:`` lines."""
    import stsedu
    from stsedu.console.session import Session
    _, cp = server
    obj = _obj(table, json.loads(source))
    if isinstance(obj.get("metadata"), dict):
        obj["metadata"].pop("namespace", None)
    code, _, err = _kubectl(cp, "apply", "--dry-run=server", "-n", KUBECTL_NS, "-f", "-", stdin=json.dumps(obj))
    kit = Session(stsedu.Cluster(kubelet="manual")).run("apply -f -", stdin=json.dumps(obj))
    warnings = [line for line in err.splitlines() if line.startswith("Warning: ")]
    if (table, source) in KUBECTL_KNOWN:
        assert kit.stderr != err, f"now agrees: remove {(table, source)} from KUBECTL_KNOWN"
        return
    if code == 0:
        assert kit.status == 0, kit.stderr
        assert [line for line in kit.stderr.splitlines() if line.startswith("Warning: ")] == warnings
    else:
        assert kit.status != 0
        assert kit.stderr == err
