"""Reading the kit beside upstream: each Go function of pkg/controller/statefulset has a Python
function of the same snake_case name in the file of the same name, whose docstring cites it.

The Go functions are listed here (k8s.io/kubernetes v1.37.2; the sort helpers ``Len``,
``Swap``, ``Less`` aside) and checked against the Go source in the module cache when it is
there.  Issue 30 asks for all of them; ``NOT_YET`` lists, file by file, those the kit does
not have in that shape yet (none now).
The test fails both ways: a listed function that appears must leave ``NOT_YET``, and one
that is missing must be in it, so the list only shrinks.

The constructors are module-level factories that return the kit's objects, each used where the kit
builds that object: ``new_stateful_set_controller`` (the cluster's controller) calls
``new_real_stateful_set_status_updater`` and ``new_default_stateful_set_control`` (the profile's
``UpdateStatefulSet`` with that updater), as upstream's ``NewStatefulSetController`` does.  The pod
control is the exception: upstream builds one for the controller's life, the kit one per sync (the
informer-cache lag it models and its decision log belong to one sync), so ``sync`` calls
``new_stateful_pod_control``, which builds it over the real object manager (``ClusterObjects``), as
upstream's ``NewStatefulPodControl`` does (the preview's ``recording_pod_control`` calls
``new_stateful_pod_control_from_manager``); ``NewStatefulSetController -> NewStatefulPodControl`` stays in
``CALLS_NOT_YET`` for that reason.  The informer handlers (``addPod``, ``updatePod``, ``deletePod``,
``enqueueStatefulSet``) are registered by ``new_stateful_set_controller``, as upstream's constructor
does; they are methods of ``ControllerLoop``, the controller's work queue and workers, which it builds.
The pod control's claim work reads as upstream's: ``createPersistentVolumeClaims``,
``UpdatePodClaimForRetentionPolicy``, ``ClaimsMatchRetentionPolicy`` and ``PodClaimIsStale`` read each
claim through the object manager's ``get_claim`` (the claim lister: as the sync began, until a
Conflict brings the caches up to date), and the steps hand the pod control only the set and the pod.
Two more stay: ``syncStatefulSet -> enqueueSSAfter`` (the kit's sync returns ``requeue_after`` and
the loop that ran it adds the key after that delay, ``ControllerLoop.enqueue_ss_after``, since a sync
can also be run by hand, outside the loop), and ``updateStatefulSetStatus ->
getStatefulSetMaxUnavailable`` (upstream works it out there only to set a metrics gauge; the kit
keeps no metrics).

The callers too: ``UPSTREAM_CALLERS`` says, for each listed function, which listed functions call
it in upstream's source (read from the Go files when they are in the module cache), and each such
call must be there in the kit, by AST: the Python twin of the caller calls the twin of the callee.
``CALLS_NOT_YET`` lists, as ``"caller -> callee"``, the calls not mirrored yet (either twin missing,
or the kit calls it from elsewhere); it too only shrinks, and a twin that disappears or moves to another
caller makes the test fail.

And the order of the calls (``test_the_calls_are_made_in_upstream_s_order``): for each listed function,
the listed functions it calls or hands over, in the order the calls run as far as the text shows it,
read from the Go source with ``go/ast`` (tests/upstream/callseq/main.go, standard library only, built
once into ``~/.cache/stsedu-oracle``; its comment gives the rule) and from the Python twin with ``ast``
by the same rule (:func:`py_sequence`), must be the same sequence.  ``SEQUENCE_DIFFERS`` lists, with a
reason, the functions where they are not, and how far (``repeats``, ``calls`` or ``order``); it must
say exactly what the sources say, so an entry goes when its function comes to match.  A failure
names the function, how far the sources differ and what the list says, then both sequences
(``A|B``: a kit name that stands for two Go functions, such as ``delete_pod``).  Without Go or
upstream's source in the module cache the test skips with one line.
"""

from __future__ import annotations

import ast
import json
import re
import os
import subprocess
from functools import cache
from pathlib import Path

import pytest

import upstream_oracle
from helpers import unavailable

ROOT = Path(__file__).resolve().parents[3]
CONTROLLER = ROOT / "stsedu" / "controller"
# Go's module cache, where `go build` of the oracle or the control plane puts k8s.io/kubernetes
_MODCACHE = Path(os.environ.get("GOMODCACHE") or Path(
    (os.environ.get("GOPATH") or str(Path.home() / "go")).split(os.pathsep)[0]) / "pkg" / "mod")
GO_SOURCE = _MODCACHE / "k8s.io/kubernetes@v1.37.2/pkg/controller/statefulset"

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

NOT_YET: dict[str, set[str]] = {module: set() for module in UPSTREAM}


UPSTREAM_CALLERS = {
    # stateful_set_control.go
    "NewDefaultStatefulSetControl": ("NewStatefulSetController",),
    "UpdateStatefulSet": ("syncStatefulSet",),
    "performUpdate": ("UpdateStatefulSet",),
    "ListRevisions": ("UpdateStatefulSet", "adoptOrphanRevisions"),
    "AdoptOrphanRevisions": ("adoptOrphanRevisions",),
    "truncateHistory": ("UpdateStatefulSet",),
    "setMatchesLatestExistingRevision": ("getStatefulSetRevisions",),
    "getStatefulSetRevisions": ("performUpdate",),
    "slowStartBatch": ("runForAll",),
    "computeReplicaStatus": ("updateStatus",),
    "updateStatus": ("updateStatefulSet",),
    "processReplica": ("updateStatefulSet",),
    "processCondemned": ("updateStatefulSet",),
    "runForAll": ("updateStatefulSet", "recreateDeleteAndWait"),
    "updateStatefulSet": ("performUpdate",),
    "recreateDeleteAndWait": ("updateStatefulSet",),
    "updateStatefulSetAfterInvariantEstablished": ("updateStatefulSet",),
    "updateStatefulSetStatus": ("performUpdate",),
    # stateful_set_utils.go
    "getParentNameAndOrdinal": ("getOrdinal", "isMemberOf", "identityMatches"),
    "getOrdinal": (
        "updateStatefulSet", "podInOrdinalRange", "storageMatches", "getPersistentVolumeClaims",
        "updateIdentity", "ClaimsMatchRetentionPolicy", "UpdatePodClaimForRetentionPolicy"
    ),
    "getStartOrdinal": (
        "updateStatefulSet", "getEndOrdinal", "podInOrdinalRange", "newVersionedStatefulSetPod"
    ),
    "getEndOrdinal": ("updateStatefulSet", "podInOrdinalRange"),
    "podInOrdinalRange": ("updateStatefulSet", "isClaimOwnerUpToDate", "updateClaimOwnerRefForSetAndPod"),
    "getPodName": ("identityMatches", "updateIdentity", "newStatefulSetPod"),
    "getPersistentVolumeClaimName": (
        "storageMatches", "getPersistentVolumeClaims", "ClaimsMatchRetentionPolicy",
        "UpdatePodClaimForRetentionPolicy"
    ),
    "isMemberOf": ("getPodsForStatefulSet",),
    "identityMatches": ("processReplica", "UpdateStatefulPod"),
    "storageMatches": ("processReplica", "UpdateStatefulPod"),
    "getPersistentVolumeClaimRetentionPolicy": (
        "hasUnexpectedController", "isClaimOwnerUpToDate", "updateClaimOwnerRefForSetAndPod",
        "PodClaimIsStale"
    ),
    "matchesRef": ("hasUnexpectedController", "updateClaimOwnerRefForSetAndPod", "hasStaleOwnerRef"),
    "hasUnexpectedController": (
        "isClaimOwnerUpToDate", "updateClaimOwnerRefForSetAndPod", "UpdatePodClaimForRetentionPolicy"
    ),
    "hasNonControllerOwner": ("isClaimOwnerUpToDate",),
    "removeRefs": ("updateClaimOwnerRefForSetAndPod",),
    "isClaimOwnerUpToDate": ("ClaimsMatchRetentionPolicy", "UpdatePodClaimForRetentionPolicy"),
    "updateClaimOwnerRefForSetAndPod": ("UpdatePodClaimForRetentionPolicy",),
    "hasOwnerRef": ("isClaimOwnerUpToDate",),
    "hasStaleOwnerRef": ("isClaimOwnerUpToDate", "PodClaimIsStale"),
    "addControllerRef": ("updateClaimOwnerRefForSetAndPod",),
    "getPersistentVolumeClaims": ("updateStorage", "PodClaimIsStale", "createPersistentVolumeClaims"),
    "updateStorage": ("newStatefulSetPod", "UpdateStatefulPod"),
    "initIdentity": ("newStatefulSetPod",),
    "updateIdentity": ("initIdentity", "UpdateStatefulPod"),
    "isRunningAndReady": ("computeReplicaStatus", "processReplica", "processCondemned"),
    "isRunningAndAvailable": (
        "computeReplicaStatus", "processReplica", "processCondemned",
        "updateStatefulSetAfterInvariantEstablished"
    ),
    "isCreated": ("computeReplicaStatus", "processReplica", "recreateDeleteAndWait"),
    "isPending": ("processReplica",),
    "isTerminalPhase": ("processReplica",),
    "isTerminating": (
        "computeReplicaStatus", "processReplica", "processCondemned", "updateStatefulSet",
        "recreateDeleteAndWait", "updateStatefulSetAfterInvariantEstablished", "isUnavailable"
    ),
    "isUnavailable": ("updateStatefulSet", "updateStatefulSetAfterInvariantEstablished"),
    "allowsBurst": ("updateStatefulSet",),
    "setPodRevision": ("newVersionedStatefulSetPod",),
    "getPodRevision": (
        "truncateHistory", "computeReplicaStatus", "updateStatefulSet", "recreateDeleteAndWait",
        "updateStatefulSetAfterInvariantEstablished"
    ),
    "newStatefulSetPod": ("newVersionedStatefulSetPod",),
    "newVersionedStatefulSetPod": ("updateStatefulSet",),
    "getPatch": ("newRevision",),
    "newRevision": ("setMatchesLatestExistingRevision", "getStatefulSetRevisions"),
    "ApplyRevision": ("setMatchesLatestExistingRevision", "updateStatefulSet"),
    "nextRevision": ("getStatefulSetRevisions",),
    "inconsistentStatus": ("updateStatefulSetStatus",),
    "completeUpdate": ("updateStatefulSetStatus",),
    "getStatefulSetMaxUnavailable": ("updateStatefulSetAfterInvariantEstablished", "updateStatefulSetStatus"),
    "setProgressingCondition": ("updateStatefulSet", "recreateDeleteAndWait", "completeUpdate"),
    "newStatefulSetCondition": ("setProgressingCondition",),
    "getStatefulSetCondition": ("completeUpdate", "setStatefulSetCondition"),
    "setStatefulSetCondition": ("setProgressingCondition",),
    # stateful_pod_control.go
    "NewStatefulPodControl": ("NewStatefulSetController",),
    "CreatePod": ("CreateStatefulPod",),
    "GetPod": ("UpdateStatefulPod",),
    "UpdatePod": ("UpdateStatefulPod",),
    "DeletePod": ("DeleteStatefulPod",),
    "CreateClaim": ("createPersistentVolumeClaims",),
    "GetClaim": (
        "ClaimsMatchRetentionPolicy", "UpdatePodClaimForRetentionPolicy", "PodClaimIsStale",
        "createPersistentVolumeClaims"
    ),
    "UpdateClaim": ("UpdatePodClaimForRetentionPolicy",),
    "CreateStatefulPod": ("processReplica",),
    "UpdateStatefulPod": ("processReplica",),
    "DeleteStatefulPod": (
        "processReplica", "processCondemned", "updateStatefulSet", "recreateDeleteAndWait",
        "updateStatefulSetAfterInvariantEstablished"
    ),
    "ClaimsMatchRetentionPolicy": ("processReplica", "updateStatefulSet", "UpdateStatefulPod"),
    "UpdatePodClaimForRetentionPolicy": (
        "updateStatefulSet", "CreateStatefulPod", "UpdateStatefulPod", "createMissingPersistentVolumeClaims"
    ),
    "PodClaimIsStale": ("processReplica",),
    "recordPodEvent": (
        "CreateStatefulPod", "UpdateStatefulPod", "DeleteStatefulPod", "createMissingPersistentVolumeClaims"
    ),
    "recordClaimEvent": ("createPersistentVolumeClaims",),
    "createMissingPersistentVolumeClaims": ("processReplica",),
    "createPersistentVolumeClaims": (
        "CreateStatefulPod", "UpdateStatefulPod", "createMissingPersistentVolumeClaims"
    ),
    # stateful_set.go
    "addPod": ("NewStatefulSetController",),
    "updatePod": ("NewStatefulSetController",),
    "deletePod": ("NewStatefulSetController", "addPod"),
    "getPodsForStatefulSet": ("sync",),
    "canAdoptFunc": ("getPodsForStatefulSet", "adoptOrphanRevisions"),
    "adoptOrphanRevisions": ("sync",),
    "getStatefulSetsForPod": ("addPod", "updatePod"),
    "resolveControllerRef": ("addPod", "updatePod", "deletePod"),
    "enqueueStatefulSet": ("NewStatefulSetController", "addPod", "updatePod", "deletePod"),
    "enqueueSSAfter": ("updatePod", "syncStatefulSet"),
    "processNextWorkItem": ("worker",),
    "sync": ("processNextWorkItem",),
    "syncStatefulSet": ("sync",),
    # stateful_set_status_updater.go
    "NewRealStatefulSetStatusUpdater": ("NewStatefulSetController",),
    "UpdateStatefulSetStatus": ("updateStatefulSetStatus",),
}

CALLS_NOT_YET = {
    # the kit builds a pod control per sync (sync -> new_stateful_pod_control), not one per controller:
    # the informer-cache lag its object manager models and its decision log belong to one sync
    "NewStatefulSetController -> NewStatefulPodControl",
    # a sync can be run by hand, outside the loop: it returns requeue_after, and the loop that ran it
    # adds the key after that delay (ControllerLoop.enqueue_ss_after)
    "syncStatefulSet -> enqueueSSAfter",
    # upstream works maxUnavailable out there only to set a metrics gauge; the kit keeps no metrics
    "updateStatefulSetStatus -> getStatefulSetMaxUnavailable",
}
"""The upstream calls the kit does not make where upstream makes them, each with its reason."""

def snake(go_name: str) -> str:
    """``updateStatefulSetStatus`` -> ``update_stateful_set_status``, ``enqueueSSAfter`` -> ``enqueue_ss_after``."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", go_name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


TWIN_NAMES = {"updateStatefulSet": "update_stateful_set_pods"}
"""Go names whose snake_case would clash with another's: ``UpdateStatefulSet`` (exported) and
``updateStatefulSet`` (unexported) differ only by the case of their first letter, so the inner one
is ``update_stateful_set_pods`` in the kit (it creates, repairs and deletes the pods)."""


def twin(go_name: str) -> str:
    """The name of the kit's twin of *go_name*: its snake_case, unless ``TWIN_NAMES`` says otherwise."""
    return TWIN_NAMES.get(go_name, snake(go_name))


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse((CONTROLLER / f"{module}.py").read_text())


def functions(module: str) -> dict[str, str]:
    """Every function and method defined in ``stsedu/controller/<module>.py``, with its docstring."""
    tree = _tree(module)
    return {n.name: ast.get_docstring(n) or "" for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def there(module: str, go_name: str, defs: dict[str, str]) -> bool:
    """The function is there under upstream's name and its docstring cites the Go function."""
    return twin(go_name) in defs and f"``{go_name}``" in defs[twin(go_name)]


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


def go_callers() -> dict[str, tuple[str, ...]]:
    """For each listed Go function, the listed functions whose bodies call it (comments aside)."""
    listed = [g for gs in UPSTREAM.values() for g in gs]
    bodies: dict[str, str] = {}
    for module in UPSTREAM:
        text = re.sub(r"//[^\n]*", "", (GO_SOURCE / f"{module}.go").read_text())
        for part in re.split(r"(?m)^func ", text)[1:]:
            name = re.match(r"(?:\([^)]*\) )?(\w+)\(", part).group(1)
            if name not in ("Len", "Swap", "Less"):
                bodies[name] = part[part.index("{"):] if "{" in part else ""
    out: dict[str, tuple[str, ...]] = {}
    for callee in listed:
        callers = tuple(c for c in listed if c != callee
                        and re.search(rf"(?<!\w){callee}\(", bodies.get(c, "")))
        if callers:
            out[callee] = callers
    return out


def module_of(go_name: str) -> str:
    return next(m for m, gs in UPSTREAM.items() if go_name in gs)


def calls(caller: str, callee: str) -> bool:
    """The kit's twin of *caller* exists and calls the twin of *callee* (by name or as a method)."""
    module = module_of(caller)
    if not there(module, caller, functions(module)) or not there(module_of(callee), callee,
                                                                 functions(module_of(callee))):
        return False
    tree = _tree(module)
    want = twin(callee)
    top = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}

    def calls_directly(fn) -> bool:
        return any(isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Name) and node.func.id == want)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == want)) for node in ast.walk(fn))

    def hands_over(fn) -> bool:
        """Upstream's handler closures that only call *callee* (``AddFunc: func(obj) { ssc.addPod(logger,
        obj) }``) are the method itself handed over (``pods.on_add = loop.add_pod``), or a module function
        that calls it, handed over by name (``partial(_set_changed, loop, "added")``)."""
        return any((isinstance(node, ast.Attribute) and node.attr == want)
                   or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "partial"
                       and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in top
                       and calls_directly(top[node.args[0].id])) for node in ast.walk(fn))
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == twin(caller):
            if calls_directly(fn) or hands_over(fn):
                return True
    return False


@pytest.mark.skipif(not GO_SOURCE.is_dir(), reason="k8s.io/kubernetes v1.37.2 is not in the Go module cache")
def test_the_callers_are_upstream_s():
    """UPSTREAM_CALLERS is what upstream's source says (a call inside the caller's body)."""
    assert go_callers() == UPSTREAM_CALLERS


def test_each_upstream_call_is_mirrored_unless_listed_not_yet():
    """Each upstream call "caller -> callee" is made by the kit's twin of the caller, unless it is in
    CALLS_NOT_YET; and nothing in CALLS_NOT_YET is mirrored already."""
    relations = {f"{c} -> {g}" for g, cs in UPSTREAM_CALLERS.items() for c in cs}
    assert CALLS_NOT_YET <= relations, sorted(CALLS_NOT_YET - relations)
    missing = {rel for rel in relations if not calls(*rel.split(" -> "))}
    assert missing == CALLS_NOT_YET, (
        f"now mirrored, take out of CALLS_NOT_YET: {sorted(CALLS_NOT_YET - missing)}; "
        f"not mirrored, not in CALLS_NOT_YET: {sorted(missing - CALLS_NOT_YET)}")


def test_the_call_check_sees_a_call_and_its_absence():
    """calls() finds a call the kit makes (updateStatus counts with computeReplicaStatus) and not one
    it does not make (computeReplicaStatus does not call updateStatus)."""
    assert calls("updateStatus", "computeReplicaStatus")
    assert not calls("computeReplicaStatus", "updateStatus")


# ------------------------------------------------------------------ the order of the calls

SEQUENCE_DIFFERS = {
    # stateful_set.go
    "NewStatefulSetController": ("calls", "the pod control is built for each sync, in sync (CALLS_NOT_YET)"),
    "sync": ("calls", "it builds the sync's pod control first (new_stateful_pod_control), which upstream's "
                      "constructor builds once (CALLS_NOT_YET)"),
    "syncStatefulSet": ("calls", "the availability requeue (enqueueSSAfter) is the loop's, from the requeue_after "
                                 "the sync returns (CALLS_NOT_YET)"),
    # stateful_set_control.go
    "UpdateStatefulSet": ("repeats", "one truncateHistory serves both of upstream's returns, with and without "
                                     "performUpdate's error"),
    "updateStatefulSetStatus": ("calls", "getStatefulSetMaxUnavailable there feeds only a metrics gauge, and the "
                                         "kit keeps no metrics (CALLS_NOT_YET)"),
    "processReplica": ("order", "after a Parallel create the kit checks the new pod's claims and updates it there "
                                "(upstream gets there by going on: the new pod is neither Pending nor terminating "
                                "and its identity and storage match), to word that update; getPodName words the "
                                "identity repair's message"),
    "updateStatefulSet": ("order", "the kit makes only the slots a sync reaches (spec.replicas may be 2^31-1: "
                                   "newVersionedStatefulSetPod as processReplica reaches each, the first unavailable "
                                   "pod found with them), and counts the status once (updateStatus), over the pods "
                                   "upstream counts again at each return"),
    "updateStatefulSetAfterInvariantEstablished": (
        "order", "one function for both releases' rules (v1.37's Parallel fix behind "
                 "profile.parallel_max_unavailable_fix), with one delete (DeleteStatefulPod) and one old-pod test "
                 "(getPodRevision, isTerminating) where upstream writes them out in each loop"),
    # stateful_set_utils.go
    "isClaimOwnerUpToDate": ("repeats", "the retention policy's four cases are one table (claim_owner_refs_wanted): "
                                        "hasOwnerRef and podInOrdinalRange once, not once per case"),
    "updateClaimOwnerRefForSetAndPod": ("order", "the retention policy's four cases are one table "
                                                 "(claim_owner_refs_wanted), read after podInOrdinalRange, not a switch "
                                                 "that adds the set's ref before asking it"),
    "newVersionedStatefulSetPod": ("repeats", "the start ordinal is read once for the two conditions that each call "
                                              "getStartOrdinal upstream"),
    # stateful_pod_control.go
    "DeletePod": ("calls", "the object manager's delete is the simulated cluster's own delete_pod (self.c.delete_pod), "
                           "which a reading by names takes for the informer handler deletePod's twin"),
    "UpdateStatefulPod": ("repeats", "ClaimsMatchRetentionPolicy cannot fail in the kit (GetClaim reads the lister's "
                                     "dict: a missing claim is None), so no event for its error"),
    "createPersistentVolumeClaims": ("repeats", "GetClaim cannot fail in the kit (a missing claim is None), so no "
                                                "event for a failed read"),
}
"""The listed functions whose calls, in order, are not their Python twin's: ``"goFunc": (kind,
reason)``.  *kind* says how far they differ: ``"repeats"``, the same functions first called in the same
order, one side calling some again (in another branch); ``"calls"``, a function called by one side
only, the others first called in the same order; ``"order"``, the functions both sides call are first
called in another order."""


def read_go(folder: Path, files) -> dict[str, list[str]]:
    """What tests/upstream/callseq (``go/ast``) reads in *files* of *folder*; skip without Go."""
    try:
        reader = upstream_oracle.build_call_reader()
    except upstream_oracle.OracleUnavailable as e:
        unavailable(str(e))
    out = subprocess.run([str(reader), str(folder), *files], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def go_sequences() -> dict[str, list[str]]:
    """For each listed Go function, the listed functions it calls or hands over, in order; skip without
    Go or upstream's source."""
    if not GO_SOURCE.is_dir():
        pytest.skip("k8s.io/kubernetes v1.37.2 is not in the Go module cache")
    return read_go(GO_SOURCE, [f"{m}.go" for m in UPSTREAM])


_GO_NAMES: dict[str, set[str]] = {}
"""The kit's name -> the Go functions whose twin has it (two when only the case of the first letter tells
the Go names apart: ``delete_pod`` is ``DeletePod``'s, the object manager's, and ``deletePod``'s, the
informer handler's)."""
for _gs in UPSTREAM.values():
    for _g in _gs:
        _GO_NAMES.setdefault(twin(_g), set()).add(_g)


def twin_def(go_name: str) -> ast.FunctionDef | None:
    """The twin of *go_name*: the first function or method of its file with its name whose docstring
    cites it (the ``ObjectManager`` protocol's stubs cite nothing; ``ClusterObjects``' methods do)."""
    defs = [n for n in ast.walk(_tree(module_of(go_name))) if isinstance(n, ast.FunctionDef)
            and n.name == twin(go_name) and f"``{go_name}``" in (ast.get_docstring(n) or "")]
    return min(defs, key=lambda n: n.lineno, default=None)


def py_sequence(fn: ast.FunctionDef, top: dict[str, ast.FunctionDef], own: str = "") -> list[tuple[str, ...]]:
    """The listed functions *fn* calls or hands over, by tests/upstream/callseq's rule read in Python.

    A name is taken where it is called (``f(...)``, ``x.f(...)``) or handed over as a value (a call's
    argument, the right side of an assignment: ``pods.on_add = loop.add_pod``), unless it is a local
    name of *fn* or names *own* (the Go function *fn* is the twin of).  In the order the calls run, as
    far as it shows in the text: statements as written, every branch in turn, a call after its receiver
    and its arguments, a comprehension's loop before its element, a conditional expression's test
    first; nested functions and lambdas where they are written.  A module function handed over with
    ``partial`` (the kit's closure: a cluster's snapshot pickles the handlers) is read there, as
    upstream's closure is.  Each entry is the Go names the kit's name can stand for (one, or the two
    of ``_GO_NAMES``)."""
    local = {a.arg for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.Lambda))
             for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs, n.args.vararg, n.args.kwarg) if a}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    seq: list[tuple[str, ...]] = []

    def taken(node) -> tuple[str, ...]:
        if isinstance(node, ast.Name) and node.id not in local:
            return tuple(sorted(_GO_NAMES.get(node.id, set()) - {own}))
        if isinstance(node, ast.Attribute):
            return tuple(sorted(_GO_NAMES.get(node.attr, set()) - {own}))
        return ()

    def hand(node) -> None:
        """*node* handed over as a value: its name if it is a listed function's, else what it calls."""
        if isinstance(node, ast.Tuple):
            for elt in node.elts:
                hand(elt)
        elif names := taken(node):
            seq.append(names)
        else:
            visit(node)

    def visit(node) -> None:
        if isinstance(node, ast.Call):
            first = node.args[0] if node.args else None
            if (isinstance(node.func, ast.Name) and node.func.id == "partial" and isinstance(first, ast.Name)
                    and first.id in top and first.id not in _GO_NAMES):
                seq.extend(py_sequence(top[first.id], top, own))
                return
            visit(node.func.value if isinstance(node.func, ast.Attribute) else node.func)
            for arg in (*node.args, *(k.value for k in node.keywords)):
                hand(arg)
            if names := taken(node.func):
                seq.append(names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            if node.value is not None:
                hand(node.value)
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                visit(target)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for part in (*node.generators, *((node.key, node.value) if isinstance(node, ast.DictComp)
                                             else (node.elt,))):
                visit(part)
        elif isinstance(node, ast.comprehension):
            for part in (node.iter, node.target, *node.ifs):
                visit(part)
        elif isinstance(node, ast.IfExp):
            for part in (node.test, node.body, node.orelse):
                visit(part)
        else:
            for child in ast.iter_child_nodes(node):
                visit(child)

    for stmt in fn.body:
        visit(stmt)
    return seq


def kit_sequence(go_name: str) -> list[tuple[str, ...]]:
    fn = twin_def(go_name)
    tree = _tree(module_of(go_name))
    return py_sequence(fn, {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}, go_name)


def _first_calls(seq: list) -> list:
    return [x for i, x in enumerate(seq) if x not in seq[:i]]


def _matches(go: list[str], kit: list[tuple[str, ...]]) -> bool:
    return len(go) == len(kit) and all(g in names for g, names in zip(go, kit))


def sequence_kind(go: list[str], kit: list[tuple[str, ...]]) -> str:
    """``"same"``, ``"repeats"``, ``"calls"`` or ``"order"`` (see :data:`SEQUENCE_DIFFERS`)."""
    if _matches(go, kit):
        return "same"
    if _matches(_first_calls(go), _first_calls(kit)):
        return "repeats"
    go_common = [g for g in go if any(g in names for names in kit)]
    kit_common = [names for names in kit if set(names) & set(go)]
    if len(go_common) < len(go) or len(kit_common) < len(kit):
        if _matches(_first_calls(go_common), _first_calls(kit_common)):
            return "calls"
    return "order"


def test_the_calls_are_made_in_upstream_s_order():
    """Each listed function's calls to the other listed functions, in order, read from upstream's
    Go with ``go/ast`` (tests/upstream/callseq) and from the Python twin with ``ast`` by the same rule,
    are the same, unless SEQUENCE_DIFFERS lists the function with the kind of difference it has; an entry
    that no longer differs so must go."""
    go = go_sequences()
    assert set(go) == {g for gs in UPSTREAM.values() for g in gs}
    kinds = {g: sequence_kind(seq, kit_sequence(g)) for g, seq in go.items()}
    found = {g: k for g, k in kinds.items() if k != "same"}
    listed = {g: kind for g, (kind, _) in SEQUENCE_DIFFERS.items()}
    shown = "".join(f"\n{g}: the sources differ by {found.get(g, 'nothing')}, SEQUENCE_DIFFERS says "
                    f"{listed.get(g, 'nothing')}\n  upstream: {go[g]}\n  kit:      {['|'.join(n) for n in kit_sequence(g)]}"
                    for g in sorted(set(found) | set(listed)) if found.get(g) != listed.get(g))
    assert found == listed, "SEQUENCE_DIFFERS is not what the sources say:" + shown


def test_the_sequence_reader_reads_by_the_rule():
    """py_sequence takes calls (after their arguments' calls) and handed-over names, a partial's function
    where it is written, and leaves out locals, the function's own name and names merely read."""
    source = '''
def helper(loop):
    loop.enqueue_stateful_set(1)

def f(self, sync, pods):
    self.update_status(compute_replica_status(pods))
    pods.on_add = self.add_pod
    x = self.trace.sync + sync(1)
    h = partial(helper, self)
    if x:
        return [is_created(p) for p in get_pod_name(pods)]
    self.update_stateful_set_status(lambda: is_pending(1))
'''
    tree = ast.parse(source)
    top = {f.name: f for f in tree.body}
    assert py_sequence(top["f"], top, own="updateStatefulSetStatus") == [
        ("computeReplicaStatus",), ("updateStatus",), ("addPod",), ("enqueueStatefulSet",), ("getPodName",),
        ("isCreated",), ("isPending",), ("UpdateStatefulSetStatus",)]
    assert sequence_kind(["isCreated", "isTerminating", "isCreated"], [("isCreated",), ("isTerminating",)]) == "repeats"
    assert sequence_kind(["isTerminating", "isCreated"], [("isCreated",), ("isTerminating",)]) == "order"
    assert sequence_kind(["isCreated", "isPending"], [("isCreated",), ("isTerminating",), ("isPending",)]) == "calls"
    assert sequence_kind(["isPending", "isCreated"], [("isCreated",), ("isTerminating",), ("isPending",)]) == "order"
    assert sequence_kind(["deletePod"], [("DeletePod", "deletePod")]) == "same"


def test_the_go_reader_reads_by_the_rule(tmp_path):
    """callseq takes a call after its arguments' calls, names handed over, a defer and a closure where
    written, and leaves out locals (the parameter sync), the function's own name and the Len helper."""
    (tmp_path / "x.go").write_text('''package x
func isCreated() bool { return true }
func getPodName(s string) string { return s }
func updateStatus(n int) {}
func computeReplicaStatus() int { return 0 }
func sync() {}
func Len() int { return computeReplicaStatus() }
func f(sync func()) {
	updateStatus(computeReplicaStatus())
	h := isCreated
	defer getPodName("a")
	if isCreated() {
		go func() { updateStatus(Len()) }()
	}
	sync()
	f(nil)
}
''')
    got = read_go(tmp_path, ["x.go"])
    assert "Len" not in got
    assert got["f"] == ["computeReplicaStatus", "updateStatus", "isCreated", "getPodName", "isCreated",
                        "updateStatus"]


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
