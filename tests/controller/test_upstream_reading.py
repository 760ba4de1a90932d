"""Reading the kit beside upstream: each Go function of pkg/controller/statefulset has a Python
function of the same snake_case name in the file of the same name, whose docstring cites it.

The Go functions are listed here (k8s.io/kubernetes v1.37.2; the sort helpers ``Len``,
``Swap``, ``Less`` aside) and checked against the Go source in the module cache when it is
there.  Issue 30 asks for all of them; ``NOT_YET`` lists, file by file, those the kit does
not have in that shape yet (the plan-then-apply controller has no ``performUpdate``,
``runForAll`` or ``slowStartBatch`` of its own, the pod control works from decisions, ...).
The test fails both ways: a listed function that appears must leave ``NOT_YET``, and one
that is missing must be in it, so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTROLLER = ROOT / "stsedu" / "controller"
GO_SOURCE = Path.home() / "go/pkg/mod/k8s.io/kubernetes@v1.37.2/pkg/controller/statefulset"

UPSTREAM = {
    "stateful_set_control": (
        "NewDefaultStatefulSetControl", "UpdateStatefulSet", "performUpdate", "ListRevisions",
        "AdoptOrphanRevisions", "truncateHistory", "setMatchesLatestExistingRevision",
        "getStatefulSetRevisions", "slowStartBatch", "computeReplicaStatus", "updateStatus",
        "processReplica", "processCondemned", "runForAll", "updateStatefulSet", "recreateDeleteAndWait",
        "updateStatefulSetAfterInvariantEstablished", "updateStatefulSetStatus"),
    "stateful_set_utils": (
        "getParentNameAndOrdinal", "getOrdinal", "getStartOrdinal", "getEndOrdinal", "podInOrdinalRange",
        "getPodName", "getPersistentVolumeClaimName", "isMemberOf", "identityMatches", "storageMatches",
        "getPersistentVolumeClaimRetentionPolicy", "matchesRef", "hasUnexpectedController",
        "hasNonControllerOwner", "removeRefs", "isClaimOwnerUpToDate", "updateClaimOwnerRefForSetAndPod",
        "hasOwnerRef", "hasStaleOwnerRef", "addControllerRef", "getPersistentVolumeClaims", "updateStorage",
        "initIdentity", "updateIdentity", "isRunningAndReady", "isRunningAndAvailable", "isCreated",
        "isPending", "isTerminalPhase", "isTerminating", "isUnavailable", "allowsBurst", "setPodRevision",
        "getPodRevision", "newStatefulSetPod", "newVersionedStatefulSetPod", "getPatch", "newRevision",
        "ApplyRevision", "nextRevision", "inconsistentStatus", "completeUpdate",
        "getStatefulSetMaxUnavailable", "setProgressingCondition", "newStatefulSetCondition",
        "getStatefulSetCondition", "setStatefulSetCondition"),
    "stateful_pod_control": (
        "NewStatefulPodControl", "NewStatefulPodControlFromManager", "CreatePod", "GetPod", "UpdatePod",
        "DeletePod", "CreateClaim", "GetClaim", "UpdateClaim", "CreateStatefulPod", "UpdateStatefulPod",
        "DeleteStatefulPod", "ClaimsMatchRetentionPolicy", "UpdatePodClaimForRetentionPolicy",
        "PodClaimIsStale", "recordPodEvent", "recordClaimEvent", "createMissingPersistentVolumeClaims",
        "createPersistentVolumeClaims"),
    "stateful_set": (
        "NewStatefulSetController", "Run", "addPod", "updatePod", "deletePod", "getPodsForStatefulSet",
        "canAdoptFunc", "adoptOrphanRevisions", "getStatefulSetsForPod", "resolveControllerRef",
        "enqueueStatefulSet", "enqueueSSAfter", "processNextWorkItem", "worker", "sync", "syncStatefulSet"),
    "stateful_set_status_updater": ("NewRealStatefulSetStatusUpdater", "UpdateStatefulSetStatus"),
}

NOT_YET = {
    "stateful_set_control": {
        "NewDefaultStatefulSetControl", "UpdateStatefulSet", "performUpdate", "ListRevisions",
        "AdoptOrphanRevisions", "truncateHistory", "setMatchesLatestExistingRevision",
        "getStatefulSetRevisions", "slowStartBatch", "runForAll", "updateStatefulSet",
        "recreateDeleteAndWait", "updateStatefulSetAfterInvariantEstablished", "updateStatefulSetStatus"},
    "stateful_set_utils": {
        "getParentNameAndOrdinal", "getOrdinal", "getEndOrdinal", "getPersistentVolumeClaimRetentionPolicy",
        "removeRefs", "addControllerRef", "initIdentity", "isTerminalPhase", "setPodRevision",
        "ApplyRevision", "setProgressingCondition", "newStatefulSetCondition",
        "getStatefulSetCondition", "setStatefulSetCondition"},
    "stateful_pod_control": {
        "NewStatefulPodControl", "NewStatefulPodControlFromManager", "CreatePod", "GetPod", "UpdatePod",
        "DeletePod", "CreateClaim", "GetClaim", "UpdateClaim", "CreateStatefulPod", "UpdateStatefulPod",
        "DeleteStatefulPod", "UpdatePodClaimForRetentionPolicy", "PodClaimIsStale", "recordPodEvent",
        "recordClaimEvent", "createMissingPersistentVolumeClaims", "createPersistentVolumeClaims"},
    "stateful_set": {
        "NewStatefulSetController", "Run", "addPod", "updatePod", "deletePod", "getPodsForStatefulSet",
        "canAdoptFunc", "adoptOrphanRevisions", "getStatefulSetsForPod", "resolveControllerRef",
        "enqueueStatefulSet", "enqueueSSAfter", "processNextWorkItem", "worker", "sync", "syncStatefulSet"},
    "stateful_set_status_updater": {"NewRealStatefulSetStatusUpdater"},
}


def snake(go_name: str) -> str:
    """``updateStatefulSetStatus`` -> ``update_stateful_set_status``, ``enqueueSSAfter`` -> ``enqueue_ss_after``."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", go_name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def functions(module: str) -> dict[str, str]:
    """Every function and method defined in ``stsedu/controller/<module>.py``, with its docstring."""
    tree = ast.parse((CONTROLLER / f"{module}.py").read_text())
    return {n.name: ast.get_docstring(n) or "" for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def there(module: str, go_name: str, defs: dict[str, str]) -> bool:
    """The function is there under upstream's name and its docstring cites the Go function."""
    return snake(go_name) in defs and f"``{go_name}``" in defs[snake(go_name)]


@pytest.mark.skipif(not GO_SOURCE.is_dir(), reason="k8s.io/kubernetes v1.37.2 is not in the Go module cache")
@pytest.mark.parametrize("module", sorted(UPSTREAM))
def test_the_list_is_upstream_s(module):
    """The Go functions listed are those of upstream's file, in its order (sort helpers aside)."""
    text = (GO_SOURCE / f"{module}.go").read_text()
    found = [n for n in re.findall(r"^func (?:\([^)]*\) )?(\w+)\(", text, re.M) if n not in ("Len", "Swap", "Less")]
    assert tuple(found) == UPSTREAM[module]


@pytest.mark.parametrize("module", sorted(UPSTREAM))
def test_each_upstream_function_is_in_the_file_of_the_same_name(module):
    """Present (same snake_case name, docstring citing the Go name) unless listed in NOT_YET; and
    nothing in NOT_YET is present already."""
    defs = functions(module)
    missing = {g for g in UPSTREAM[module] if not there(module, g, defs)}
    assert missing == NOT_YET[module], (
        f"now present, take out of NOT_YET: {sorted(NOT_YET[module] - missing)}; "
        f"missing, not in NOT_YET: {sorted(missing - NOT_YET[module])}")


def test_snake_case_names():
    assert [snake(g) for g in ("UpdateStatefulSet", "getStatefulSetMaxUnavailable", "enqueueSSAfter",
                               "ApplyRevision", "isTerminalPhase")] == [
        "update_stateful_set", "get_stateful_set_max_unavailable", "enqueue_ss_after", "apply_revision",
        "is_terminal_phase"]


_MEMO = re.compile(r"\blru_cache\b|\bfunctools\.cache\b|@cache\b|\bcached_property\b|\.facts\b")


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in CONTROLLER.glob("*.py"))
                         + ["stsedu/api/objects.py"])
def test_no_memo_cache_in_the_controller_or_the_objects(path):
    """No cache decorator and no memo of derived facts (issue 30): every sync works from the objects."""
    text = (ROOT / path).read_text()
    assert not _MEMO.search(text), _MEMO.search(text).group(0)
