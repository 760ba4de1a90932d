"""Tests for stsedu.manifests: loading, defaulting, validation, warnings."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from stsedu.api import admission
from stsedu.api import defaults
from stsedu.api import field_errors
from stsedu.api import load
from stsedu.api import quantities
from stsedu.api import schema
from stsedu.api.validation import service
from stsedu.api.validation import statefulset
from stsedu.api.errors import ValidationError

ROOT = Path(__file__).resolve().parents[2]
WEB_YAML = ROOT / "stsedu" / "data" / "web.yaml"
DOC = ROOT / "docs" / "validation.md"

FORBIDDEN = ("Forbidden: updates to statefulset spec for fields other than 'replicas',"
             " 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',"
             " 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
DNS_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters"
                 " or '-', and must start and end with an alphanumeric character (e.g."
                 " 'my-name',  or '123-abc', regex used for validation is"
                 " '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch (null deletes)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


@pytest.fixture(scope="module")
def web_text() -> str:
    return WEB_YAML.read_text()


@pytest.fixture(scope="module")
def web_docs(web_text):
    return load.load_documents(web_text)


@pytest.fixture()
def web(web_docs) -> dict:
    """The StatefulSet `web` of the concept page, as loaded (not defaulted)."""
    return copy.deepcopy(web_docs[1])


@pytest.fixture()
def nginx(web_docs) -> dict:
    """The headless Service `nginx` of the concept page, as loaded."""
    return copy.deepcopy(web_docs[0])


def create_errors(web, patch):
    return statefulset.validate_statefulset(defaults.default_statefulset(merge_patch(web, patch)))


def update_errors(web, patch):
    old = defaults.default_statefulset(web)
    new = defaults.default_statefulset(merge_patch(web, patch))
    return statefulset.validate_statefulset_update(new, old)


# ---------------------------------------------------------------------------
# The concept page example
# ---------------------------------------------------------------------------

def test_concept_page_example_is_valid(web_text):
    """The StatefulSet concept page's web/nginx example loads and validates cleanly."""
    checked = admission.check(web_text)
    assert [(c.kind, c.name) for c in checked] == [("Service", "nginx"), ("StatefulSet", "web")]
    assert all(c.ok and not c.errors and not c.warnings for c in checked)


def test_concept_page_example_content(web_docs):
    """web.yaml holds the concept page's example: headless nginx + web, 3 replicas, www claim."""
    svc, sts = web_docs
    assert svc["spec"] == {"ports": [{"port": 80, "name": "web"}], "clusterIP": "None",
                           "selector": {"app": "nginx"}}
    spec = sts["spec"]
    assert (spec["serviceName"], spec["replicas"], spec["minReadySeconds"]) == ("nginx", 3, 10)
    container = spec["template"]["spec"]["containers"][0]
    assert container == {"name": "nginx", "image": "registry.k8s.io/nginx-slim:0.24",
                         "ports": [{"containerPort": 80, "name": "web"}],
                         "volumeMounts": [{"name": "www", "mountPath": "/usr/share/nginx/html"}]}
    assert spec["volumeClaimTemplates"] == [{"metadata": {"name": "www"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "my-storage-class",
        "resources": {"requests": {"storage": "1Gi"}}}}]
    assert "app: nginx # has to match .spec.template.metadata.labels" in WEB_YAML.read_text()


# ---------------------------------------------------------------------------
# One test per rejected input
# ---------------------------------------------------------------------------

REJECTED = [
    ("name-missing", {"metadata": {"name": None}},
     ("metadata.name", "Required value: name or generateName is required")),
    ("name-with-dot", {"metadata": {"name": "web.v2"}},
     ("metadata.name", 'Invalid value: "web.v2": must not contain dots')),
    ("name-uppercase", {"metadata": {"name": "Web"}},
     ("metadata.name", f'Invalid value: "Web": {DNS_LABEL_MSG}')),
    ("name-too-long", {"metadata": {"name": "a" * 64}},
     ("metadata.name", f'Invalid value: "{"a" * 64}": must be no more than 63 characters')),
    ("label-key", {"metadata": {"labels": {"bad key!": "x"}}},
     ("metadata.labels", 'Invalid value: "bad key!": name part must consist of alphanumeric'
      " characters, '-', '_' or '.', and must start and end with an alphanumeric character"
      " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is"
      " '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("label-key-prefix", {"metadata": {"labels": {"/app": "x"}}},
     ("metadata.labels", 'Invalid value: "/app": prefix part must be non-empty')),
    ("label-value", {"metadata": {"labels": {"app": "-nginx"}}},
     ("metadata.labels", 'Invalid value: "-nginx": a valid label must be an empty string or'
      " consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
      " alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for"
      " validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
    ("label-value-number", {"metadata": {"labels": {"version": 1.5}}},
     ("metadata.labels[version]", "json: cannot unmarshal number into Go struct field"
      " ObjectMeta.metadata.labels of type string")),
    ("replicas-negative", {"spec": {"replicas": -1}},
     ("spec.replicas", "Invalid value: -1: must be greater than or equal to 0")),
    ("replicas-string", {"spec": {"replicas": "three"}},
     ("spec.replicas", "json: cannot unmarshal string into Go struct field"
      " StatefulSetSpec.spec.replicas of type int32")),
    ("replicas-fraction", {"spec": {"replicas": 2.5}},
     ("spec.replicas", "json: cannot unmarshal number 2.5 into Go struct field"
      " StatefulSetSpec.spec.replicas of type int32")),
    ("replicas-too-big", {"spec": {"replicas": 2 ** 31}},
     ("spec.replicas", "json: cannot unmarshal number 2147483648 into Go struct field"
      " StatefulSetSpec.spec.replicas of type int32")),
    ("spec-not-object", {"spec": "web"},
     ("spec", "json: cannot unmarshal string into Go struct field StatefulSet.spec of type"
      " v1.StatefulSetSpec")),
    ("containers-not-list", {"spec": {"template": {"spec": {"containers": {"name": "x"}}}}},
     ("spec.template.spec.containers", "json: cannot unmarshal object into Go struct field"
      " PodSpec.spec.template.spec.containers of type []v1.Container")),
    ("selector-missing", {"spec": {"selector": None}}, ("spec.selector", "Required value")),
    ("selector-empty", {"spec": {"selector": {"matchLabels": None}}},
     ("spec.selector", "Invalid value: {}: empty selector is invalid for statefulset")),
    ("selector-mismatch", {"spec": {"selector": {"matchLabels": {"app": "web"}}}},
     ("spec.template.metadata.labels", 'Invalid value: {"app":"nginx"}:'
      " `selector` does not match template `labels`")),
    ("selector-expression-mismatch",
     {"spec": {"selector": {"matchLabels": None, "matchExpressions": [
         {"key": "app", "operator": "NotIn", "values": ["nginx"]}]}}},
     ("spec.template.metadata.labels", 'Invalid value: {"app":"nginx"}:'
      " `selector` does not match template `labels`")),
    ("selector-bad-operator",
     {"spec": {"selector": {"matchLabels": None, "matchExpressions": [
         {"key": "app", "operator": "Within", "values": ["nginx"]}]}}},
     ("spec.selector.matchExpressions[0].operator",
      'Invalid value: "Within": not a valid selector operator')),
    ("selector-in-without-values",
     {"spec": {"selector": {"matchExpressions": [{"key": "tier", "operator": "In"}]}}},
     ("spec.selector.matchExpressions[0].values",
      "Required value: must be specified when `operator` is 'In' or 'NotIn'")),
    ("pod-management-policy", {"spec": {"podManagementPolicy": "Sequential"}},
     ("spec.podManagementPolicy",
      "Invalid value: \"Sequential\": must be 'OrderedReady' or 'Parallel'")),
    ("update-strategy-type", {"spec": {"updateStrategy": {"type": "Rolling"}}},
     ("spec.updateStrategy", 'Invalid value: {"Type":"Rolling","RollingUpdate":null}: must be'
      " 'RollingUpdate' or 'OnDelete'")),
    ("rolling-update-with-on-delete",
     {"spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}}},
     ("spec.updateStrategy.rollingUpdate", 'Invalid value: {"Partition":1,"MaxUnavailable":null}:'
      " only allowed for updateStrategy 'RollingUpdate'")),
    ("partition-negative", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": -1}}}},
     ("spec.updateStrategy.rollingUpdate.partition",
      "Invalid value: -1: must be greater than or equal to 0")),
    ("max-unavailable-zero", {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": 0}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable", "Invalid value: 0: cannot be 0")),
    ("max-unavailable-zero-percent",
     {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "0%"}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable", 'Invalid value: "0%": cannot be 0')),
    ("max-unavailable-negative",
     {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": -1}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable",
      "Invalid value: -1: must be greater than or equal to 0")),
    ("max-unavailable-not-percent",
     {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "5"}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable",
      'Invalid value: "5": a valid percent string must be a numeric string followed by an ending'
      " '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")),
    ("max-unavailable-over-100",
     {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": "101%"}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable",
      'Invalid value: "101%": must not be greater than 100%')),
    ("max-unavailable-bool",
     {"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": True}}}},
     ("spec.updateStrategy.rollingUpdate.maxUnavailable",
      "json: cannot unmarshal bool into Go struct field RollingUpdateStatefulSetStrategy"
      ".spec.updateStrategy.rollingUpdate.maxUnavailable of type int32")),
    ("min-ready-seconds-negative", {"spec": {"minReadySeconds": -5}},
     ("spec.minReadySeconds", "Invalid value: -5: must be greater than or equal to 0")),
    ("ordinals-start-negative", {"spec": {"ordinals": {"start": -1}}},
     ("spec.ordinals.start", "Invalid value: -1: must be greater than or equal to 0")),
    ("retention-when-deleted", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep"}}},
     ("spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
      'Unsupported value: "Keep": supported values: "Retain", "Delete"')),
    ("retention-when-scaled", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Remove"}}},
     ("spec.persistentVolumeClaimRetentionPolicy.whenScaled",
      'Unsupported value: "Remove": supported values: "Retain", "Delete"')),
    ("service-name", {"spec": {"serviceName": "Nginx"}},
     ("spec.serviceName", f'Invalid value: "Nginx": {DNS_LABEL_MSG}')),
    ("containers-missing", {"spec": {"template": {"spec": {"containers": None}}}},
     ("spec.template.spec.containers", "Required value")),
    ("container-name-missing", {"spec": {"template": {"spec": {"containers": [{"image": "nginx"}]}}}},
     ("spec.template.spec.containers[0].name", "Required value")),
    ("container-name-invalid",
     {"spec": {"template": {"spec": {"containers": [{"name": "nginx_1", "image": "nginx"}]}}}},
     ("spec.template.spec.containers[0].name", f'Invalid value: "nginx_1": {DNS_LABEL_MSG}')),
    ("container-name-duplicate",
     {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "a"},
                                                    {"name": "nginx", "image": "b"}]}}}},
     ("spec.template.spec.containers[1].name", 'Duplicate value: "nginx"')),
    ("image-missing", {"spec": {"template": {"spec": {"containers": [{"name": "nginx"}]}}}},
     ("spec.template.spec.containers[0].image", "Required value")),
    ("container-port-out-of-range",
     {"spec": {"template": {"spec": {"containers": [
         {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 70000}]}]}}}},
     ("spec.template.spec.containers[0].ports[0].containerPort",
      "Invalid value: 70000: must be between 1 and 65535, inclusive")),
    ("image-pull-policy",
     {"spec": {"template": {"spec": {"containers": [
         {"name": "nginx", "image": "nginx", "imagePullPolicy": "Sometimes"}]}}}},
     ("spec.template.spec.containers[0].imagePullPolicy",
      'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"')),
    ("restart-policy", {"spec": {"template": {"spec": {"restartPolicy": "OnFailure"}}}},
     ("spec.template.spec.restartPolicy", 'Unsupported value: "OnFailure": supported values: "Always"')),
    ("active-deadline-seconds", {"spec": {"template": {"spec": {"activeDeadlineSeconds": 30}}}},
     ("spec.template.spec.activeDeadlineSeconds",
      "Forbidden: activeDeadlineSeconds in StatefulSet is not Supported")),
    ("mount-not-found", {"spec": {"volumeClaimTemplates": None}},
     ("spec.template.spec.containers[0].volumeMounts[0].name", 'Not found: "www"')),
    ("claim-template-name-invalid",
     {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "WWW"}, "spec": {
         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
     ("spec.template.spec.volumes[0].name", f'Invalid value: "WWW": {DNS_LABEL_MSG}')),
    ("claim-template-name-missing",
     {"spec": {"volumeClaimTemplates": [{"spec": {
         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
     ("spec.template.spec.volumes[0].persistentVolumeClaim.claimName", "Required value")),
    ("claim-template-access-modes",
     {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
         "resources": {"requests": {"storage": "1Gi"}}}}]}},
     ("spec.volumeClaimTemplates[0].spec.accessModes",
      "Required value: at least 1 access mode is required")),
    ("claim-template-storage",
     {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
         "accessModes": ["ReadWriteOnce"]}}]}},
     ("spec.volumeClaimTemplates[0].spec.resources[storage]", "Required value")),
    ("claim-template-quantity",
     {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1 GB"}}}}]}},
     ("spec.volumeClaimTemplates[0].spec.resources.requests[storage]",
      quantities.QUANTITY_FORMAT_ERROR)),
]


@pytest.mark.parametrize("patch, expected", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejected_input(web, patch, expected):
    """Each bad input is reported with upstream's field path and wording."""
    errors = create_errors(web, patch)
    assert expected in errors, errors
    assert errors[0] == expected or len(errors) > 1


@pytest.mark.parametrize("patch, expected", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejected_input_raises_through_check(web, patch, expected):
    """check() reports the same problem, and raise_if_invalid raises ValidationError."""
    (checked,) = admission.check(merge_patch(web, patch))
    assert expected in checked.errors
    with pytest.raises(ValidationError) as info:
        checked.raise_if_invalid()
    assert expected in info.value.errors
    assert info.value.kind == "StatefulSet.apps"


def test_several_problems_reported_together(web):
    """All problems come back at once, in upstream's order."""
    errors = create_errors(web, {"metadata": {"name": "Web"}, "spec": {
        "replicas": -1, "podManagementPolicy": "Sequential", "minReadySeconds": -1,
        "updateStrategy": {"rollingUpdate": {"partition": -2}},
        "template": {"spec": {"containers": [{"name": "nginx"}]}}}})
    assert errors == [
        ("metadata.name", f'Invalid value: "Web": {DNS_LABEL_MSG}'),
        ("spec.podManagementPolicy",
         "Invalid value: \"Sequential\": must be 'OrderedReady' or 'Parallel'"),
        ("spec.updateStrategy.rollingUpdate.partition",
         "Invalid value: -2: must be greater than or equal to 0"),
        ("spec.replicas", "Invalid value: -1: must be greater than or equal to 0"),
        ("spec.minReadySeconds", "Invalid value: -1: must be greater than or equal to 0"),
        ("spec.template.spec.containers[0].image", "Required value"),
    ]


def test_missing_selector_also_fails_template_labels(web):
    """A nil selector matches nothing, so the template-label check fails too (upstream quirk)."""
    assert create_errors(web, {"spec": {"selector": None}}) == [
        ("spec.selector", "Required value"),
        ("spec.template.metadata.labels", 'Invalid value: {"app":"nginx"}:'
         " `selector` does not match template `labels`")]


def test_unparsable_selector_skips_template_checks(web):
    """An invalid selector is reported twice and the pod template is not looked at."""
    errors = create_errors(web, {"spec": {
        "selector": {"matchLabels": {"bad key!": "x"}},
        "template": {"spec": {"containers": [{"name": "nginx"}]}}}})
    assert [path for path, _ in errors] == ["spec.selector.matchLabels", "spec.selector"]
    assert errors[1] == ("spec.selector", 'Invalid value: {"matchLabels":{"app":"nginx","bad key!":"x"}}')


def test_decode_errors_stop_validation(web):
    """A field of the wrong type is reported alone: the object never reaches validation."""
    errors = create_errors(web, {"spec": {"replicas": "3", "podManagementPolicy": "Sequential"}})
    assert errors == [("spec.replicas", "json: cannot unmarshal string into Go struct field"
                       " StatefulSetSpec.spec.replicas of type int32")]


def test_valid_variations_are_accepted(web):
    """Common valid shapes produce no errors."""
    for patch in (
        {"spec": {"podManagementPolicy": "Parallel"}},
        {"spec": {"updateStrategy": {"type": "OnDelete"}}},
        {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {
            "partition": 2, "maxUnavailable": "50%"}}}},
        {"spec": {"serviceName": None}},
        {"spec": {"replicas": 0, "ordinals": {"start": 5}}},
        {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}},
        {"spec": {"selector": {"matchLabels": None, "matchExpressions": [
            {"key": "app", "operator": "In", "values": ["nginx", "web"]}]}}},
        {"spec": {"template": {"spec": {"volumes": [{"name": "cache", "emptyDir": {}}],
                                        "containers": [{"name": "nginx", "image": "nginx",
                                                        "volumeMounts": [{"name": "cache",
                                                                          "mountPath": "/c"}]}]}}}},
        {"spec": {"replicas": 3.0}},
    ):
        assert create_errors(web, patch) == [], patch


# ---------------------------------------------------------------------------
# Defaulting
# ---------------------------------------------------------------------------

def strategy_of(doc, **kw):
    return defaults.default_statefulset(doc, **kw)["spec"]["updateStrategy"]


def test_default_empty_type_gets_rolling_update_block(web):
    """type empty → RollingUpdate with rollingUpdate {partition: 0, maxUnavailable: 1}."""
    assert strategy_of(web) == {"type": "RollingUpdate",
                                "rollingUpdate": {"partition": 0, "maxUnavailable": 1}}


def test_default_empty_type_gate_off(web):
    """With the MaxUnavailableStatefulSet gate off, only the partition is defaulted."""
    assert strategy_of(web, max_unavailable_gate=False) == {
        "type": "RollingUpdate", "rollingUpdate": {"partition": 0}}


def test_default_explicit_rolling_update_without_block_stays_without_block(web):
    """type: RollingUpdate written without a rollingUpdate block keeps no block."""
    web["spec"]["updateStrategy"] = {"type": "RollingUpdate"}
    assert strategy_of(web) == {"type": "RollingUpdate"}
    assert "rollingUpdate" not in strategy_of(web, max_unavailable_gate=False)


def test_default_block_without_partition_gets_partition_zero(web):
    """A rollingUpdate block without partition gets partition 0 (and maxUnavailable 1)."""
    web["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
    assert strategy_of(web)["rollingUpdate"] == {"maxUnavailable": 2, "partition": 0}
    web["spec"]["updateStrategy"] = {"rollingUpdate": {"partition": 2}}
    assert strategy_of(web) == {"type": "RollingUpdate",
                                "rollingUpdate": {"partition": 2, "maxUnavailable": 1}}


def test_default_gate_off_drops_max_unavailable_unless_old_used_it(web):
    """dropStatefulSetDisabledFields: maxUnavailable is dropped with the gate off, unless in use."""
    web["spec"]["updateStrategy"] = {"rollingUpdate": {"maxUnavailable": 2}}
    assert strategy_of(web, max_unavailable_gate=False)["rollingUpdate"] == {"partition": 0}
    old = defaults.default_statefulset(web)
    kept = strategy_of(web, max_unavailable_gate=False, old=old)
    assert kept["rollingUpdate"] == {"maxUnavailable": 2, "partition": 0}


def test_default_on_delete_gets_no_block(web):
    """OnDelete is left alone."""
    web["spec"]["updateStrategy"] = {"type": "OnDelete"}
    assert strategy_of(web) == {"type": "OnDelete"}


def test_default_scalar_fields(web):
    """replicas 1, podManagementPolicy OrderedReady, revisionHistoryLimit 10, minReadySeconds 0."""
    for key in ("replicas", "minReadySeconds"):
        del web["spec"][key]
    spec = defaults.default_statefulset(web)["spec"]
    assert (spec["replicas"], spec["podManagementPolicy"], spec["revisionHistoryLimit"],
            spec["minReadySeconds"]) == (1, "OrderedReady", 10, 0)


def test_default_keeps_given_values(web):
    """Given values are never overwritten."""
    web["spec"].update(replicas=0, revisionHistoryLimit=2, podManagementPolicy="Parallel")
    spec = defaults.default_statefulset(web)["spec"]
    assert (spec["replicas"], spec["revisionHistoryLimit"], spec["podManagementPolicy"]) == (
        0, 2, "Parallel")


def test_default_retention_policy_halves(web):
    """Retain/Retain by default; a missing half becomes Retain."""
    policy = defaults.default_statefulset(web)["spec"]["persistentVolumeClaimRetentionPolicy"]
    assert policy == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    web["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenScaled": "Delete"}
    policy = defaults.default_statefulset(web)["spec"]["persistentVolumeClaimRetentionPolicy"]
    assert policy == {"whenScaled": "Delete", "whenDeleted": "Retain"}


def test_default_namespace_claims_and_untouched_parts(web):
    """Namespace default; claim templates get volumeMode; the selector is as given; the template keeps
    every field it had (defaults only add what is missing)."""
    sts = defaults.default_statefulset(web)
    assert sts["metadata"]["namespace"] == "default"
    assert sts["spec"]["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    assert sts["spec"]["volumeClaimTemplates"][0]["status"] == {"phase": "Pending"}  # SetDefaults_PersistentVolumeClaim
    assert sts["spec"]["template"]["metadata"] == web["spec"]["template"]["metadata"]
    given, defaulted = web["spec"]["template"]["spec"], sts["spec"]["template"]["spec"]
    assert {k: defaulted[k] for k in given if k != "containers"} == {k: v for k, v in given.items() if k != "containers"}
    for c_given, c_defaulted in zip(given["containers"], defaulted["containers"]):
        assert {k: c_defaulted[k] for k in c_given if k != "ports"} == {k: v for k, v in c_given.items() if k != "ports"}
    assert sts["spec"]["selector"] == web["spec"]["selector"]
    web["metadata"]["namespace"] = "shop"
    assert defaults.default_statefulset(web)["metadata"]["namespace"] == "shop"
    del web["spec"]["selector"]
    assert "selector" not in defaults.default_statefulset(web)["spec"]


def test_default_never_mutates_and_is_idempotent(web):
    """default_statefulset returns a new dict and applying it twice changes nothing."""
    before = copy.deepcopy(web)
    once = defaults.default_statefulset(web)
    assert web == before
    assert defaults.default_statefulset(once) == once
    once["spec"]["template"]["metadata"]["labels"]["x"] = "y"
    assert "x" not in web["spec"]["template"]["metadata"]["labels"]


def test_default_tolerates_wrong_types():
    """Bad types are left for decode_errors, not crashed on."""
    doc = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "x"},
           "spec": {"updateStrategy": "RollingUpdate", "persistentVolumeClaimRetentionPolicy": 3}}
    sts = defaults.default_statefulset(doc)
    assert sts["spec"]["updateStrategy"] == "RollingUpdate"
    assert statefulset.validate_statefulset(sts)[0][0] == "spec.updateStrategy"
    assert defaults.default_statefulset({"kind": "StatefulSet", "spec": 5})["spec"] == 5


def test_default_service(nginx):
    """Service: type ClusterIP, sessionAffinity None, port protocol TCP, targetPort = port."""
    svc = defaults.default_service(nginx)
    assert svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["sessionAffinity"] == "None"
    assert svc["spec"]["ports"] == [{"port": 80, "name": "web", "protocol": "TCP", "targetPort": 80}]
    assert svc["metadata"]["namespace"] == "default"
    assert "type" not in nginx["spec"]


# ---------------------------------------------------------------------------
# Updates
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("patch", [
    {"spec": {"replicas": 5}},
    {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}},
    {"spec": {"updateStrategy": {"type": "OnDelete"}}},
    {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 2}}}},
    {"spec": {"minReadySeconds": 0}},
    {"spec": {"revisionHistoryLimit": 3}},
    {"spec": {"ordinals": {"start": 1}}},
    {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Delete"}}},
    {"metadata": {"labels": {"team": "a"}}},
    {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "my-storage-class",
        "resources": {"requests": {"storage": "1024Mi"}}}}]}},
], ids=["replicas", "template", "on-delete", "partition", "min-ready", "history", "ordinals",
        "retention", "labels", "same-quantity"])
def test_update_of_mutable_fields_is_allowed(web, patch):
    """Only replicas, ordinals, template, updateStrategy, ... may change; these do."""
    assert update_errors(web, patch) == []


CLAIM_2GI_JSON = ('[{"name":"www","Spec":{"AccessModes":["ReadWriteOnce"],"Selector":null,"Resources":'
                  '{"Limits":null,"Requests":{"storage":"2Gi"}},"VolumeName":"","StorageClassName":'
                  '"my-storage-class","VolumeMode":"Filesystem","DataSource":null,"DataSourceRef":null,'
                  '"VolumeAttributesClassName":null},"Status":{"Phase":"Pending","AccessModes":null,'
                  '"Capacity":null,"Conditions":null,"AllocatedResources":null,"AllocatedResourceStatuses":'
                  'null,"CurrentVolumeAttributesClassName":null,"ModifyVolumeStatus":null,"HealthStatus":null}}]')
"""The v1.37 server's rendering of the internal []api.PersistentVolumeClaim (recorded from it)."""


@pytest.mark.parametrize("patch, field, shown", [
    ({"spec": {"serviceName": "other"}}, "serviceName", '"other"'),
    ({"spec": {"serviceName": None}}, "serviceName", '""'),
    ({"spec": {"podManagementPolicy": "Parallel"}}, "podManagementPolicy", '"Parallel"'),
    ({"spec": {"selector": {"matchLabels": {"tier": "web"}},
               "template": {"metadata": {"labels": {"tier": "web"}}}}},
     "selector", '{"matchLabels":{"app":"nginx","tier":"web"}}'),
    ({"spec": {"volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "my-storage-class",
        "resources": {"requests": {"storage": "2Gi"}}}}]}}, "volumeClaimTemplates", CLAIM_2GI_JSON),
], ids=["service-name", "service-name-removed", "pod-management", "selector", "claim-size"])
def test_update_of_other_fields_is_forbidden(web, patch, field, shown):
    """v1.37's ValidateStatefulSetUpdate names each immutable field that changed
    (ValidateImmutableField: 'field is immutable'); v1.36 refuses the same change with one
    spec Forbidden error listing what may change, and v1.16 with its own shorter list."""
    assert update_errors(web, patch) == [(f"spec.{field}", f"Invalid value: {shown}: field is immutable")]
    old = defaults.default_statefulset(web)
    new = defaults.default_statefulset(merge_patch(web, patch))
    assert statefulset.validate_statefulset_update(new, old, statefulset.V1_36) == [("spec", FORBIDDEN)]
    assert statefulset.validate_statefulset_update(new, old, statefulset.V1_16) == [
        ("spec", "Forbidden: updates to statefulset spec for fields other than 'replicas', 'template',"
                 " and 'updateStrategy' are forbidden")]


def test_update_reports_spec_errors_and_the_immutable_fields_together(web):
    """An update is validated like a create, then each immutable field (v1.37)."""
    assert update_errors(web, {"spec": {"replicas": -1, "serviceName": "other",
                                        "podManagementPolicy": "Parallel"}}) == [
        ("spec.replicas", "Invalid value: -1: must be greater than or equal to 0"),
        ("spec.serviceName", 'Invalid value: "other": field is immutable'),
        ("spec.podManagementPolicy", 'Invalid value: "Parallel": field is immutable')]


def test_update_name_is_immutable(web):
    """metadata.name cannot change."""
    assert update_errors(web, {"metadata": {"name": "web2"}}) == [
        ("metadata.name", 'Invalid value: "web2": field is immutable')]


def test_update_ratchets_what_old_already_had(web):
    """A stored object with an invalid serviceName or template can be scaled."""
    old = defaults.default_statefulset(merge_patch(web, {"spec": {
        "serviceName": "Nginx",
        "template": {"spec": {"containers": [{"name": "nginx"}]}}}}))
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 5
    assert statefulset.validate_statefulset(old) != []
    assert statefulset.validate_statefulset_update(new, old) == []
    good = defaults.default_statefulset(web)
    broken = copy.deepcopy(good)
    broken["spec"]["template"]["spec"]["containers"] = [{"name": "nginx"}]
    assert statefulset.validate_statefulset_update(broken, good) == [
        ("spec.template.spec.containers[0].image", "Required value")]


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------

def test_yaml_error_has_line_and_column():
    """Syntax errors name line and column (1-based) like kubectl's YAML-to-JSON error."""
    text = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\n  labels: app: x\n"
    with pytest.raises(ValidationError) as info:
        load.load_documents(text)
    assert info.value.kind == "manifest"
    assert info.value.errors == [("", "error converting YAML to JSON: yaml: line 5, column 14:"
                                      " mapping values are not allowed here")]


def test_yaml_duplicate_key_is_an_error():
    """A key set twice in one map is refused, as sigs.k8s.io/yaml does."""
    text = "kind: StatefulSet\napiVersion: apps/v1\nspec:\n  replicas: 1\n  replicas: 2\n"
    with pytest.raises(ValidationError, match='line 5, column 3: key "replicas" already set in map'):
        load.load_documents(text)


def test_size_limit():
    """Text over MAX_MANIFEST_BYTES (1 MiB) is refused before parsing, with both limits named."""
    assert load.MAX_MANIFEST_BYTES == 1024 * 1024
    text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  big: " + "x" * load.MAX_MANIFEST_BYTES
    for source in (text, text.encode()):
        with pytest.raises(ValidationError, match=r"over stsedu's limit of 1048576 bytes \(1 MiB\)"
                                                  r".*3145728 bytes \(3 MiB\)"):
            load.load_documents(source)
    big = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"big": "x" * load.MAX_MANIFEST_BYTES}}
    with pytest.raises(ValidationError, match="over stsedu's limit"):
        load.load_documents(big)
    small = "apiVersion: v1\nkind: ConfigMap\ndata:\n  big: " + "x" * 1000
    assert load.load_documents(small)[0]["data"]["big"] == "x" * 1000


def test_alias_bomb_is_refused():
    """Aliases that expand enormously are refused (go-yaml's 'excessive aliasing')."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(ValidationError, match="excessive aliasing"):
        load.load_documents("\n".join(lines))


def test_missing_kind_and_api_version():
    """A document without kind or apiVersion is refused, naming the document."""
    with pytest.raises(ValidationError) as info:
        load.load_documents("apiVersion: v1\nkind: Service\n---\nmetadata:\n  name: web\n")
    assert info.value.errors == [
        ("apiVersion", "Required value: Object 'apiVersion' is missing in document 2"),
        ("kind", "Required value: Object 'Kind' is missing in document 2")]


def test_empty_and_non_mapping_documents_are_skipped():
    """Empty documents, comments-only documents, scalars and lists are skipped."""
    text = "---\n# nothing\n---\n- a\n- b\n---\njust text\n---\napiVersion: v1\nkind: Service\n---\n"
    assert load.load_documents(text) == [{"apiVersion": "v1", "kind": "Service"}]
    assert load.load_documents("") == []


def test_inputs_dict_list_and_other_kinds(web):
    """A dict or a list of dicts is accepted (copied); other kinds come back unchanged."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    docs = load.load_documents([web, cm])
    assert docs == [web, cm] and docs[0] is not web
    docs[0]["spec"]["replicas"] = 99
    assert web["spec"]["replicas"] == 3
    assert load.load_documents(cm) == [cm]
    with pytest.raises(TypeError):
        load.load_documents(42)
    with pytest.raises(TypeError):
        load.load_documents([cm, "x"])
    (checked,) = admission.check(cm)
    assert not checked.supported and not checked.ok and checked.errors == ()


def test_kind_list_is_flattened(web):
    """A kind: List document contributes its items."""
    doc = {"apiVersion": "v1", "kind": "List", "items": [web, {"apiVersion": "v1", "kind": "Service"}]}
    assert [d["kind"] for d in load.load_documents(json.dumps(doc))] == ["StatefulSet", "Service"]


def test_yaml_reads_like_yaml_to_json():
    """Dates stay strings, keys become strings, 3.0 becomes 3, yes/on are booleans."""
    text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  when: 2024-01-01\n  1: 3.0\n  on: yes\n"
    assert load.load_documents(text)[0]["data"] == {"when": "2024-01-01", "1": 3, "true": True}


def test_old_api_version_is_reported():
    """apps/v1beta1 (old tutorials) is not served, in kubectl's words."""
    text = WEB_YAML.read_text().replace("apps/v1", "apps/v1beta1")
    checked = admission.check(text)[1]
    assert checked.errors[0] == ("apiVersion", 'no matches for kind "StatefulSet" in version "apps/v1beta1"')


# ---------------------------------------------------------------------------
# Warnings
# ---------------------------------------------------------------------------

def test_unknown_field_warning(web):
    """A misspelt field draws kubectl's warning, with its full path."""
    web["spec"]["replica"] = 3
    web["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    web["spec"]["template"]["spec"]["restartpolicy"] = "Always"
    assert schema.unknown_fields(web) == [  # in document order
        'unknown field "spec.template.spec.containers[0].imagee"',
        'unknown field "spec.template.spec.restartpolicy"',
        'unknown field "spec.replica"']
    (checked,) = admission.check(web)
    assert checked.warnings == tuple(schema.unknown_fields(web)) and checked.errors == ()


def test_no_false_warnings_on_a_rich_pod_spec(web):
    """Valid pod specs with deep fields draw no warnings; status is ignored."""
    pod_spec = web["spec"]["template"]["spec"]
    pod_spec.update({
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "nginx"}}, "topologyKey": "kubernetes.io/hostname"}]}},
        "securityContext": {"fsGroup": 1000, "runAsNonRoot": True},
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "volumes": [{"name": "config", "configMap": {"name": "nginx-conf", "items": [{"key": "a", "path": "b"}]}},
                    {"name": "data", "csi": {"driver": "x", "volumeAttributes": {"a": "b"}}}],
        "initContainers": [{"name": "init", "image": "busybox", "command": ["sh", "-c", "true"],
                            "restartPolicy": "Always"}],
        "topologySpreadConstraints": [{"maxSkew": 1}], "dnsConfig": {"options": [{"name": "ndots"}]},
    })
    pod_spec["containers"][0].update({
        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "envFrom": [{"configMapRef": {"name": "x"}}],
        "resources": {"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}},
        "readinessProbe": {"httpGet": {"path": "/", "port": "web"}, "periodSeconds": 5},
        "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
        "securityContext": {"capabilities": {"drop": ["ALL"]}},
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
    })
    web["metadata"]["annotations"] = {"example.com/note": "x"}
    web["status"] = {"replicas": 3, "whatever": True}
    assert schema.unknown_fields(web) == []
    assert create_errors(web, {}) == []


def test_unknown_fields_of_service_and_other_kinds(nginx):
    """Services are checked too; unsupported kinds draw no warnings."""
    nginx["spec"]["port"] = 80
    assert schema.unknown_fields(nginx) == ['unknown field "spec.port"']
    assert schema.unknown_fields({"apiVersion": "v1", "kind": "Pod", "spex": {}}) == []


# ---------------------------------------------------------------------------
# Service validation
# ---------------------------------------------------------------------------

def test_service_valid_and_invalid(nginx):
    """The headless Service is valid; a non-headless one needs ports."""
    assert service.validate_service(defaults.default_service(nginx)) == []
    broken = merge_patch(nginx, {"spec": {"clusterIP": None, "ports": None}})
    assert service.validate_service(defaults.default_service(broken)) == [("spec.ports", "Required value")]


# ---------------------------------------------------------------------------
# Error object and wording helpers
# ---------------------------------------------------------------------------

def test_validation_error_text(web):
    """The raised error reads like the API server's."""
    errors = create_errors(web, {"spec": {"replicas": -1}})
    err = admission.validation_error("StatefulSet", "web", errors, ["w"])
    assert str(err) == ('StatefulSet.apps "web" is invalid: spec.replicas: Invalid value: -1:'
                        " must be greater than or equal to 0")
    assert err.warnings == ["w"] and isinstance(err, ValueError)


def test_go_quote():
    """Strings are quoted as Go's strconv.Quote does."""
    assert field_errors.go_quote('a"b\\c\n\t\x01é') == '"a\\"b\\\\c\\n\\t\\x01é"'


@settings(max_examples=60, deadline=None)
@given(replicas=st.integers(min_value=-(2 ** 31), max_value=2 ** 31 - 1))
def test_replicas_property(replicas):
    """Any int32 replica count is valid iff it is not negative."""
    doc = load.load_documents(WEB_YAML.read_text())[1]
    doc["spec"]["replicas"] = replicas
    errors = statefulset.validate_statefulset(defaults.default_statefulset(doc))
    assert errors == ([] if replicas >= 0 else [
        ("spec.replicas", f"Invalid value: {replicas}: must be greater than or equal to 0")])


# ---------------------------------------------------------------------------
# docs/validation.md cannot drift
# ---------------------------------------------------------------------------

_ROW = re.compile(r"^\| (\d+) \| `(.*)` \| (—|`(.*)`) \| (.*) \|$")


def doc_tables() -> dict[str, list[tuple[str, str, str]]]:
    """{table name: [(input, path, message)]} from the marked tables of docs/validation.md."""
    tables: dict[str, list] = {}
    current = None
    for line in DOC.read_text().splitlines():
        marker = re.match(r"<!-- table: (\w+) -->", line)
        if marker:
            current = tables.setdefault(marker.group(1), [])
            continue
        if current is None:
            continue
        if not line.startswith("|"):
            if current:
                current = None
            continue
        row = _ROW.match(line)
        if row:
            current.append((row.group(2), row.group(4) or "", row.group(5)))
    return tables


def _grouped(rows):
    groups: dict[str, list] = {}
    for source, path, message in rows:
        groups.setdefault(source, []).append((path, message))
    return groups


MANIFEST_TABLES = ("create", "update", "service", "service_update", "loading")
"""The tables checked here; the "calls" table is checked by tests/kit/test_robustness.py."""


def _doc_cases():
    tables = doc_tables()
    return [(name, source, expected) for name, rows in tables.items() if name in MANIFEST_TABLES
            for source, expected in _grouped(rows).items()]


def test_docs_have_all_tables():
    """The doc has the checked tables, each with rows."""
    tables = doc_tables()
    assert set(MANIFEST_TABLES) <= set(tables)
    assert all(tables[name] for name in MANIFEST_TABLES)
    assert len(tables["create"]) >= 40


ACCEPTED = "Accepted"
"""The message of a table row whose input the API server accepts (path ``—``); with a
warning: ``Accepted, with a warning: <the warning>``, one row per warning."""


def kit_answer(table: str, patch: dict, web_docs, profile=None, *, obj: dict | None = None) -> list[tuple[str, str]]:
    """The kit's answer to a row's input, in the tables' form: the ``(path, message)`` errors,
    or one ``("", "Accepted")`` row (one ``("", "Accepted, with a warning: ...")`` per warning).
    The input (the merge *patch* applied to ``web``/``nginx``, or the whole *obj*) goes through
    :func:`stsedu.api.admission.admit` as ``kubectl apply`` sends it: a create, or an update of
    the stored, defaulted ``web``/``nginx``."""
    nginx, web = copy.deepcopy(web_docs[0]), copy.deepcopy(web_docs[1])
    base = nginx if table.startswith("service") else web
    old = None
    if table.endswith("update"):
        old, errs, _ = admission.admit(copy.deepcopy(base), profile=profile)
        assert not errs
    new = copy.deepcopy(obj) if obj is not None else merge_patch(base, patch)
    _, errs, warnings = admission.admit(new, old, profile=profile)
    if errs:
        return list(errs)
    return [("", f"{ACCEPTED}, with a warning: {w}") for w in warnings] or [("", ACCEPTED)]


@pytest.mark.parametrize("table, source, expected", _doc_cases(),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_doc_cases())])
def test_docs_table_rows_match(web_docs, table, source, expected):
    """Every row of docs/validation.md is exactly what the kit answers for its input."""
    if table == "loading":
        with pytest.raises(ValidationError) as info:
            load.load_documents(json.loads(source))
        assert info.value.errors == expected
        return
    assert kit_answer(table, json.loads(source), web_docs) == expected


def test_status_writes_are_validated_like_validate_stateful_set_status_update():
    """ValidateStatefulSetStatus (counts non-negative, ready/current/updated not above replicas) and
    ValidateStatefulSetStatusUpdate (collisionCount cannot be decremented), with upstream's field paths."""
    from stsedu.api.objects import StatefulSetStatus
    ok = StatefulSetStatus(observed_generation=2, replicas=3, ready_replicas=3, current_replicas=1,
                           updated_replicas=2, available_replicas=3, collision_count=1)
    assert statefulset.validate_stateful_set_status_update(ok, ok) == []
    bad = StatefulSetStatus(observed_generation=-1, replicas=2, ready_replicas=3, current_replicas=-1,
                            updated_replicas=4, available_replicas=0, collision_count=0)
    assert statefulset.validate_stateful_set_status_update(bad, ok) == [
        ("status.currentReplicas", "Invalid value: -1: must be greater than or equal to 0"),
        ("status.observedGeneration", "Invalid value: -1: must be greater than or equal to 0"),
        ("status.readyReplicas", "Invalid value: 3: cannot be greater than status.replicas"),
        ("status.updatedReplicas", "Invalid value: 4: cannot be greater than status.replicas"),
        ("status.collisionCount", "Invalid value: 0: cannot be decremented"),
    ]


@pytest.mark.parametrize("image, policy", [
    ("nginx", "Always"), ("nginx:latest", "Always"), ("registry.k8s.io/nginx-slim:0.24", "IfNotPresent"),
    ("localhost:5000/nginx", "Always"), ("localhost:5000/nginx:1.2", "IfNotPresent"),
    ("nginx@sha256:" + "a" * 64, "IfNotPresent"), ("nginx:latest@sha256:" + "a" * 64, "Always"),
])
def test_image_pull_policy_defaults_from_the_tag(image, policy):
    """SetDefaults_Container: Always for the tag latest (also when neither tag nor digest is given,
    as parsers.ParseImageName reads it), IfNotPresent otherwise."""
    assert defaults.image_pull_policy_default(image) == policy


def test_pod_template_gets_the_api_servers_defaults(web):
    """SetDefaults_PodSpec / SetDefaults_Container / SetDefaults_Volume and the generated defaults
    (port protocol, probe and httpGet, fieldRef apiVersion): what `kubectl get sts -o yaml` shows."""
    doc = merge_patch(web, {"spec": {"template": {"spec": {
        "volumes": [{"name": "cache"}, {"name": "conf", "configMap": {"name": "c"}}],
        "containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}],
                        "readinessProbe": {"httpGet": {"port": 80}},
                        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}}}})
    tpl = defaults.default_statefulset(doc)["spec"]["template"]
    spec = tpl["spec"]
    assert {k: spec[k] for k in ("dnsPolicy", "restartPolicy", "schedulerName", "securityContext",
                                 "terminationGracePeriodSeconds")} == {
        "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
        "securityContext": {}, "terminationGracePeriodSeconds": web["spec"]["template"]["spec"].get(
            "terminationGracePeriodSeconds", 30)}
    (c,) = spec["containers"]
    assert (c["imagePullPolicy"], c["terminationMessagePath"], c["terminationMessagePolicy"], c["resources"]) == (
        "Always", "/dev/termination-log", "File", {})
    assert c["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert c["readinessProbe"] == {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
    assert c["env"][0]["valueFrom"]["fieldRef"] == {"fieldPath": "metadata.name", "apiVersion": "v1"}
    assert spec["volumes"] == [{"name": "cache", "emptyDir": {}},
                               {"name": "conf", "configMap": {"name": "c", "defaultMode": 420}}]
    assert create_errors(doc, {}) == []  # a volume without a source is valid: it became an emptyDir
    more = defaults.default_statefulset(merge_patch(doc, {"spec": {"template": {"spec": {"volumes": [
        {"name": "info", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "all", "projected": {"sources": [
            {"serviceAccountToken": {"path": "t"}},
            {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}}]}}]}}}}))
    info, projected = more["spec"]["template"]["spec"]["volumes"]
    field_ref = {"fieldPath": "metadata.name", "apiVersion": "v1"}
    assert info["downwardAPI"] == {"items": [{"path": "n", "fieldRef": field_ref}], "defaultMode": 420}
    assert projected["projected"] == {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}},
        {"downwardAPI": {"items": [{"path": "n", "fieldRef": field_ref}]}}]}
    assert defaults.default_statefulset(defaults.default_statefulset(doc)) == defaults.default_statefulset(doc)


def test_pods_get_the_pod_only_defaults_when_created():
    """SetDefaults_Pod (pods only, not templates): enableServiceLinks true, and a container's missing
    requests copied from its limits; the set's template keeps neither."""
    import stsedu
    from helpers import web as small
    doc = small(1)
    doc["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "1Gi"},
                                                                     "requests": {"cpu": "500m"}}
    c = stsedu.Cluster(kubelet="manual")
    c.apply(doc)
    c.sync("web")
    pod_spec = c.pods("web")[0].spec
    assert pod_spec["enableServiceLinks"] is True
    assert pod_spec["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    template = c.statefulset("web").spec.template["spec"]
    assert "enableServiceLinks" not in template
    assert template["containers"][0]["resources"]["requests"] == {"cpu": "500m"}


@pytest.mark.parametrize("text, value", [
    ("1E", 10 ** 18), ("1Ei", 2 ** 60), ("2E3", 2000), ("3e2", 300), ("1.5Gi", 3 * 2 ** 29), ("500m", 0.5),
    ("1e", None), ("1Eix", None), ("1 Gi", None),
])
def test_quantity_suffixes_as_parse_quantity_reads_them(text, value):
    """resource.ParseQuantity: E and Ei are the exa and exbi suffixes, E/e followed by digits an exponent;
    anything else is malformed (None, reported by validation), never an exception."""
    from decimal import Decimal
    got = quantities.parse_quantity(text)
    assert got == (None if value is None else Decimal(str(value)))


def test_resource_quantities_are_stored_in_canonical_form(web):
    """SetDefaults_ResourceList: container and claim-template quantities rounded up to milli units and
    kept in Quantity.String's canonical form (what `kubectl get sts -o yaml` shows, and what the
    revision hash is computed over)."""
    doc = merge_patch(web, {"spec": {"template": {"spec": {"containers": [{
        "name": "nginx", "image": "nginx:1",
        "resources": {"limits": {"cpu": 0.5, "memory": "2048Mi"}, "requests": {"cpu": "0.0001", "memory": "1.5Gi"}}}]}}}})
    doc["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"] = "2048Mi"
    out = defaults.default_statefulset(doc)
    assert out["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "2Gi"}, "requests": {"cpu": "1m", "memory": "1536Mi"}}
    assert out["spec"]["volumeClaimTemplates"][0]["spec"]["resources"] == {"requests": {"storage": "2Gi"}}
    assert statefulset.validate_statefulset(out) == []


def test_each_profile_answers_in_its_releases_words(web_text):
    """The profiles' API servers word the same refusals as their releases do
    (profile_rules.release_of): v1.37 names the immutable field and prints values as JSON;
    v1.36.3 refuses the change with one spec Forbidden (ValidateStatefulSetUpdate before
    ValidateImmutableField); v1.16 with its shorter list, and prints values with %#v."""
    import stsedu
    answers = {}
    for profile in ("current", "v1.36", "v1.16"):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        c.apply(web_text)
        with pytest.raises(ValidationError) as update:
            c.patch("web", {"spec": {"podManagementPolicy": "Parallel"}})
        with pytest.raises(ValidationError) as value:
            c.patch("web", {"spec": {"updateStrategy": {"type": "Rolling", "rollingUpdate": None}}})
        answers[profile] = (update.value.errors, value.value.errors[0][1].split(": must")[0])
    assert answers["current"] == ([("spec.podManagementPolicy", 'Invalid value: "Parallel": field is immutable')],
                                  'Invalid value: {"Type":"Rolling","RollingUpdate":null}')
    assert answers["v1.36"] == ([("spec", FORBIDDEN)], 'Invalid value: {"Type":"Rolling","RollingUpdate":null}')
    assert answers["v1.16"] == (
        [("spec", "Forbidden: updates to statefulset spec for fields other than 'replicas', 'template',"
                  " and 'updateStrategy' are forbidden")],
        'Invalid value: apps.StatefulSetUpdateStrategy{Type:"Rolling",'
        ' RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}')


def test_a_negative_revision_history_limit_is_stored_with_the_servers_warning(web_text):
    """No release validates a StatefulSet's revisionHistoryLimit; v1.36 and v1.37 warn
    (WarningsOnCreate / WarningsOnUpdate), v1.16 did not."""
    import stsedu
    warning = ("spec.revisionHistoryLimit: a negative value retains all historical revisions;"
               " a value >= 0 is recommended")
    for profile, warned in (("current", True), ("v1.36", True), ("v1.16", False)):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        c.apply(web_text.replace("minReadySeconds: 10", "minReadySeconds: 10\n  revisionHistoryLimit: -1"))
        assert c.statefulset("web").spec.revision_history_limit == -1
        assert (warning in c.last_warnings) is warned, (profile, c.last_warnings)
