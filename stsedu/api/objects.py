"""Kubernetes-shaped objects: Pod, StatefulSet, PVC, ControllerRevision, Service.

Every object is a frozen dataclass.  The store keeps one version of each
object and replaces it with :func:`dataclasses.replace` on every write, so a
reference taken at the start of a sync is a consistent snapshot (the
controller's informer cache).  Nested Kubernetes structures that stsedu does
not interpret (a pod template's containers, a claim template's spec) are kept
as plain dicts and never mutated in place.
"""

from __future__ import annotations

import sys

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
"""Label naming the pod, set by the controller (``identityMatches`` checks it)."""
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
"""Label holding the pod's ordinal (since v1.28, ``PodIndexLabel``)."""
REVISION_LABEL = "controller-revision-hash"
"""Pod label holding the full name of the pod's ControllerRevision."""
HASH_LABEL = "controller.kubernetes.io/hash"
"""ControllerRevision label holding the template hash."""

_ORDINAL_RE = re.compile(r"(.*)-([0-9]+)")


def detached(obj):
    """A copy of a stored object that shares nothing with the store: what the cluster hands to callers
    (changing it changes nothing stored)."""
    return copy.deepcopy(obj)


def parse_pod_name(name: str) -> tuple[str, int]:
    """Parent name and ordinal of a pod name (mirror of ``getParentNameAndOrdinal``).

    A name that does not end in ``-<digits>`` gives ``("", -1)``.
    """
    m = _ORDINAL_RE.fullmatch(name)
    if not m:
        return "", -1
    try:
        return m.group(1), int(m.group(2))
    except ValueError:  # pragma: no cover - the regex only admits digits
        return "", -1


@dataclass(frozen=True, slots=True)
class OwnerReference:
    """A reference from a dependent to its owner (``metadata.ownerReferences[*]``)."""

    kind: str
    name: str
    uid: str
    api_version: str = "apps/v1"
    controller: bool = True
    block_owner_deletion: bool = True

    def __post_init__(self):
        object.__setattr__(self, "uid", sys.intern(self.uid))

    def to_manifest(self) -> dict:
        return {"apiVersion": self.api_version, "kind": self.kind, "name": self.name,
                "uid": self.uid, "controller": self.controller,
                "blockOwnerDeletion": self.block_owner_deletion}

    @classmethod
    def from_manifest(cls, d: Mapping) -> "OwnerReference":
        return cls(kind=d.get("kind", ""), name=d.get("name", ""), uid=d.get("uid", ""),
                   api_version=d.get("apiVersion", "apps/v1"),
                   controller=bool(d.get("controller", False)),
                   block_owner_deletion=bool(d.get("blockOwnerDeletion", False)))


def controller_of(refs: tuple[OwnerReference, ...]) -> OwnerReference | None:
    """The owner reference with ``controller: true``, if any (``metav1.GetControllerOf``)."""
    for ref in refs:
        if ref.controller:
            return ref
    return None


def _meta(obj, extra: Mapping | None = None) -> dict:
    meta: dict[str, Any] = {"name": obj.name, "namespace": obj.namespace}
    if obj.uid:
        meta["uid"] = obj.uid
    if obj.resource_version:
        meta["resourceVersion"] = str(obj.resource_version)
    if obj.labels:
        meta["labels"] = dict(obj.labels)
    if getattr(obj, "annotations", None):
        meta["annotations"] = dict(obj.annotations)
    if obj.owner_references:
        meta["ownerReferences"] = [r.to_manifest() for r in obj.owner_references]
    meta["creationTimestamp"] = obj.creation_timestamp
    if obj.deletion_timestamp is not None:
        meta["deletionTimestamp"] = obj.deletion_timestamp
    if extra:
        meta.update(extra)
    return meta


@dataclass(frozen=True, slots=True)
class ObjectMeta:
    """The ``metadata`` every stored object has; the kinds below add their own fields."""

    name: str
    namespace: str = "default"
    uid: str = ""
    resource_version: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    creation_timestamp: float = 0.0
    deletion_timestamp: float | None = None


# --------------------------------------------------------------------------- Pod


def kubectl_status(phase: str, terminating: bool, reason: str = "", container_state: str = "") -> str:
    """kubectl's STATUS for a pod of one container, by ``printPod``'s rules.

    The pod's phase, or its ``status.reason`` when set (``Evicted``, ...); a container
    waiting or terminated with a reason shows that reason instead (``ContainerCreating``
    while Pending, ``Error`` when it exited with an error, ``CrashLoopBackOff`` while
    the kubelet backs off, ``Completed`` in a Succeeded pod); ``Terminating`` once
    deleted unless the phase is terminal (Failed, Succeeded).
    """
    shown = reason or phase
    if container_state:
        shown = container_state
    elif phase == "Pending":
        shown = "ContainerCreating"
    elif phase == "Succeeded":
        shown = "Completed"
    if terminating and phase not in ("Failed", "Succeeded"):
        return "Terminating"
    return shown or "Pending"


@dataclass(frozen=True, slots=True)
class Pod(ObjectMeta):
    """A pod, with only the status the controller reads.

    Lifecycle, as the simulated kubelet drives it:

    * created by the controller: ``phase == "Pending"``, not ready;
    * started: ``phase == "Running"``; then ``ready`` (``ready_since`` = when);
    * a container may crash: ``container_state`` becomes ``"Error"`` (it exited with an
      error), then ``"CrashLoopBackOff"`` (waiting out the back-off), then ``""`` again when
      the kubelet restarts it (``restarts`` + 1); the phase stays ``"Running"``, not ready;
    * may become ``"Failed"`` only for a named cause (``reason``/``message`` as the kubelet
      writes them: ``Evicted``, ``Terminated`` on node shutdown, ``DeadlineExceeded``), or
      ``"Succeeded"``;
    * deleted: ``deletion_timestamp`` is set (``terminating``), phase and
      readiness unchanged, until the kubelet finishes it and it disappears.

    ``phase == ""`` marks a pod the controller has only planned (upstream's
    in-memory pod that ``isCreated`` rejects).
    """

    grace_period_seconds: float = 30.0
    spec: Mapping[str, Any] = field(default_factory=dict)
    phase: str = ""
    ready: bool = False
    ready_since: float | None = None
    started_at: float | None = None
    restarts: int = 0
    container_state: str = ""
    """``""`` (waiting to be created while Pending, else running), ``"Error"`` (terminated with
    exit code 1) or ``"CrashLoopBackOff"`` (waiting to be restarted): the container's state."""
    last_exit_at: float | None = None
    """When the container's previous instance exited (``lastState.terminated.finishedAt``)."""
    reason: str = ""
    """``status.reason``: why a Failed pod failed (``Evicted``, ``Terminated``, ``DeadlineExceeded``)."""
    message: str = ""
    """``status.message``: the kubelet's sentence for *reason*."""
    available: bool = False
    """Filled in when the cluster hands the pod out (honours minReadySeconds)."""
    # Facts read from the fields above once, when the pod is built (like Go's typed fields), so a
    # sync reads them as plain attributes instead of parsing the name or searching labels and refs.
    parent: str = field(init=False, default="")
    """The set name the pod's name parses to (``getParentNameAndOrdinal``), or ``""``."""
    ordinal: int = field(init=False, default=-1)
    """The ordinal the pod's name parses to, or -1."""
    revision: str = field(init=False, default="", compare=False)
    """The ``controller-revision-hash`` label, or ``""`` (``getPodRevision``)."""
    controller_ref: OwnerReference | None = field(init=False, default=None, compare=False, repr=False)
    """The owner reference with ``controller: true``, or None (``metav1.GetControllerOf``)."""

    def __post_init__(self):
        parent, ordinal = parse_pod_name(self.name)
        object.__setattr__(self, "name", sys.intern(self.name))
        object.__setattr__(self, "parent", sys.intern(parent))
        object.__setattr__(self, "ordinal", ordinal)
        object.__setattr__(self, "revision", sys.intern(self.labels.get(REVISION_LABEL, "")))
        object.__setattr__(self, "controller_ref", controller_of(self.owner_references))

    @property
    def terminating(self) -> bool:
        """True once the pod has a deletion timestamp."""
        return self.deletion_timestamp is not None

    def __repr__(self) -> str:
        ready = "ready" if self.ready else "not ready"
        term = ", terminating" if self.deletion_timestamp is not None else ""
        return f"<Pod {self.name}: {self.phase or 'planned'}, {ready}{term}, revision {self.revision or '-'}>"

    @property
    def owner(self) -> str | None:
        """Name of the StatefulSet that controls this pod, or None."""
        ref = self.controller_ref
        return ref.name if ref is not None and ref.kind == "StatefulSet" else None

    @property
    def status_text(self) -> str:
        """What ``kubectl get pods`` shows in the STATUS column (``printPod``)."""
        if not self.phase:
            return "<planned>"
        return kubectl_status(self.phase, self.terminating, self.reason, self.container_state)

    def _container_status(self, c: Mapping) -> dict:
        if self.container_state == "Error":
            state: dict = {"terminated": {"exitCode": 1, "reason": "Error"}}
        elif self.container_state == "CrashLoopBackOff":
            state = {"waiting": {"reason": "CrashLoopBackOff",
                                 "message": f"back-off restarting failed container {c.get('name')}"}}
        elif self.phase == "Pending":
            state = {"waiting": {"reason": "ContainerCreating"}}
        elif self.phase == "Running":
            state = {"running": {}}
        elif self.phase == "Succeeded":
            state = {"terminated": {"exitCode": 0, "reason": "Completed"}}
        else:  # Failed: the kubelet killed the container; its runtime status is reported later
            state = {}
        out = {"name": c.get("name"), "image": c.get("image"), "ready": self.ready,
               "restartCount": self.restarts, "state": state}
        if self.last_exit_at is not None:
            out["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error"}}
        return out

    def to_manifest(self) -> dict:
        spec = copy.deepcopy(dict(self.spec))
        spec.setdefault("terminationGracePeriodSeconds", self.grace_period_seconds)
        conditions = []
        if self.phase:
            conditions.append({"type": "Ready", "status": "True" if self.ready else "False",
                               "lastTransitionTime": self.ready_since})
        status: dict[str, Any] = {"phase": self.phase or None, "conditions": conditions}
        if self.started_at is not None:
            status["startTime"] = self.started_at
        if self.reason:
            status["reason"], status["message"] = self.reason, self.message
        status["containerStatuses"] = [self._container_status(c) for c in spec.get("containers", [])]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(self),
                "spec": spec, "status": status}

    def images(self) -> tuple[str, ...]:
        return tuple(c.get("image", "") for c in self.spec.get("containers", ()))


# --------------------------------------------------------------------------- PVC


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim(ObjectMeta):
    """A PersistentVolumeClaim made from a volumeClaimTemplate."""

    spec: Mapping[str, Any] = field(default_factory=dict)
    phase: str = "Bound"

    @property
    def deleting(self) -> bool:
        """True once the claim has a deletion timestamp (kept while a pod uses it)."""
        return self.deletion_timestamp is not None

    def __repr__(self) -> str:
        owners = ", ".join(f"{r.kind} {r.name}" for r in self.owner_references) or "no owner"
        return f"<PersistentVolumeClaim {self.name}: {self.phase}{', deleting' if self.deleting else ''}, {owners}>"

    @property
    def storage(self) -> str:
        return str(self.spec.get("resources", {}).get("requests", {}).get("storage", ""))

    def to_manifest(self) -> dict:
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": _meta(self),
                "spec": copy.deepcopy(dict(self.spec)), "status": {"phase": self.phase}}


# --------------------------------------------------------------------- Revision


@dataclass(frozen=True, slots=True)
class ControllerRevision(ObjectMeta):
    """A snapshot of a StatefulSet's pod template (``apps/v1`` ControllerRevision).

    *data* is the JSON text of the patch that a rollout compares (only
    ``spec.template``); *revision* is its number in the set's history.
    """

    data: str = ""
    revision: int = 0
    seq: int = 0
    """Creation order, used to break ties the way creationTimestamp does upstream."""

    def __repr__(self) -> str:
        return f"<ControllerRevision {self.name}: revision {self.revision}>"

    @property
    def template(self) -> dict:
        import json
        return json.loads(self.data)["spec"]["template"]

    def to_manifest(self) -> dict:
        import json
        return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": _meta(self),
                "data": json.loads(self.data), "revision": self.revision}


# ---------------------------------------------------------------------- Service


@dataclass(frozen=True, slots=True)
class Service(ObjectMeta):
    """A Service, stored and shown; ``headless`` when ``clusterIP: None``."""

    spec: Mapping[str, Any] = field(default_factory=dict)

    @property
    def headless(self) -> bool:
        return self.spec.get("clusterIP") == "None"

    def to_manifest(self) -> dict:
        return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(self),
                "spec": copy.deepcopy(dict(self.spec))}


# ------------------------------------------------------------------ StatefulSet


@dataclass(frozen=True, slots=True)
class StatefulSetStatus:
    """``status`` of a StatefulSet, as the controller writes it."""

    observed_generation: int = 0
    replicas: int = 0
    ready_replicas: int = 0
    current_replicas: int = 0
    updated_replicas: int = 0
    available_replicas: int = 0
    current_revision: str = ""
    update_revision: str = ""
    collision_count: int | None = None
    conditions: tuple[Mapping[str, Any], ...] = ()

    def to_manifest(self) -> dict:
        out = {"observedGeneration": self.observed_generation, "replicas": self.replicas,
               "readyReplicas": self.ready_replicas, "currentReplicas": self.current_replicas,
               "updatedReplicas": self.updated_replicas,
               "availableReplicas": self.available_replicas,
               "currentRevision": self.current_revision, "updateRevision": self.update_revision}
        if self.collision_count is not None:
            out["collisionCount"] = self.collision_count
        if self.conditions:
            out["conditions"] = [dict(c) for c in self.conditions]
        return out

    @classmethod
    def from_manifest(cls, d: Mapping | None) -> "StatefulSetStatus":
        d = d or {}
        return cls(observed_generation=int(d.get("observedGeneration", 0) or 0),
                   replicas=int(d.get("replicas", 0) or 0),
                   ready_replicas=int(d.get("readyReplicas", 0) or 0),
                   current_replicas=int(d.get("currentReplicas", 0) or 0),
                   updated_replicas=int(d.get("updatedReplicas", 0) or 0),
                   available_replicas=int(d.get("availableReplicas", 0) or 0),
                   current_revision=d.get("currentRevision", "") or "",
                   update_revision=d.get("updateRevision", "") or "",
                   collision_count=d.get("collisionCount"),
                   conditions=tuple(d.get("conditions", ()) or ()))


@dataclass(frozen=True, slots=True)
class RollingUpdate:
    """``spec.updateStrategy.rollingUpdate``."""

    partition: int = 0
    max_unavailable: int | str | None = None


@dataclass(frozen=True, slots=True)
class StatefulSetSpec:
    """The parsed, defaulted ``spec`` of a StatefulSet (read-only view of *raw*)."""

    raw: Mapping[str, Any]
    replicas: int
    selector: Mapping[str, Any]
    service_name: str
    template: Mapping[str, Any]
    volume_claim_templates: tuple[Mapping[str, Any], ...]
    pod_management_policy: str
    update_strategy: str
    rolling_update: RollingUpdate | None
    revision_history_limit: int
    min_ready_seconds: int
    start_ordinal: int
    when_deleted: str
    when_scaled: str

    @classmethod
    def from_manifest(cls, spec: Mapping[str, Any]) -> "StatefulSetSpec":
        strategy = spec.get("updateStrategy") or {}
        ru = strategy.get("rollingUpdate")
        policy = spec.get("persistentVolumeClaimRetentionPolicy") or {}
        return cls(
            raw=spec,
            replicas=int(spec.get("replicas", 1)),
            selector=spec.get("selector") or {},
            service_name=spec.get("serviceName", "") or "",
            template=spec.get("template") or {},
            volume_claim_templates=tuple(spec.get("volumeClaimTemplates") or ()),
            pod_management_policy=spec.get("podManagementPolicy", "OrderedReady"),
            update_strategy=strategy.get("type", "RollingUpdate"),
            rolling_update=None if ru is None else RollingUpdate(
                partition=int(ru.get("partition", 0) or 0),
                max_unavailable=ru.get("maxUnavailable")),
            revision_history_limit=int(spec.get("revisionHistoryLimit", 10)),
            min_ready_seconds=int(spec.get("minReadySeconds", 0) or 0),
            start_ordinal=int((spec.get("ordinals") or {}).get("start", 0) or 0),
            when_deleted=policy.get("whenDeleted", "Retain"),
            when_scaled=policy.get("whenScaled", "Retain"),
        )

    @property
    def partition(self) -> int:
        return self.rolling_update.partition if self.rolling_update else 0

    def selects(self, labels: Mapping[str, str]) -> bool:
        """True if the set's selector matches *labels* (:func:`selector_matches` of ``selector``)."""
        return selector_matches(self.selector, labels)


@dataclass(frozen=True, slots=True)
class StatefulSet(ObjectMeta):
    """A StatefulSet: metadata, the defaulted *spec* and the controller's *status*."""

    spec: StatefulSetSpec = field(kw_only=True)
    status: StatefulSetStatus = StatefulSetStatus()
    generation: int = 1
    finalizers: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "name", sys.intern(self.name))
        object.__setattr__(self, "uid", sys.intern(self.uid))

    @classmethod
    def from_manifest(cls, d: Mapping[str, Any]) -> "StatefulSet":
        """Build from a defaulted manifest (metadata and spec; status is ignored)."""
        meta = d.get("metadata") or {}
        return cls(name=meta.get("name", ""), namespace=meta.get("namespace", "default"),
                   spec=StatefulSetSpec.from_manifest(copy.deepcopy(d.get("spec") or {})),
                   labels=dict(meta.get("labels") or {}),
                   annotations=dict(meta.get("annotations") or {}))

    def __repr__(self) -> str:
        st, sp = self.status, self.spec
        deleting = ", deleting" if self.deletion_timestamp is not None else ""
        return (f"<StatefulSet {self.namespace}/{self.name}: replicas {sp.replicas}, ready "
                f"{st.ready_replicas}/{sp.replicas}, generation {self.generation}, revisions "
                f"{st.current_revision or '-'} -> {st.update_revision or '-'}{deleting}>")

    def to_manifest(self) -> dict:
        return {"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": _meta(self, {"generation": self.generation}),
                "spec": copy.deepcopy(dict(self.spec.raw)),
                "status": self.status.to_manifest()}

    def ref(self) -> OwnerReference:
        """A controller owner reference to this set (``metav1.NewControllerRef``)."""
        return OwnerReference(kind="StatefulSet", name=self.name, uid=self.uid)


# --------------------------------------------------------------------- selector


def label_selector_as_selector(selector: Mapping[str, Any]) -> Callable[[Mapping[str, str]], bool]:
    """A LabelSelector read once into a test of labels (``metav1.LabelSelectorAsSelector``, then
    ``Matches``): ``matchLabels`` and ``matchExpressions``, for a caller that matches many objects
    against one selector (``ClaimPods``).

    An empty selector matches nothing, as ``LabelSelectorAsSelector`` gives for
    StatefulSets (validation rejects it anyway).
    """
    match_labels = tuple(((selector or {}).get("matchLabels") or {}).items())
    exprs = tuple((e.get("key"), e.get("operator"), e.get("values") or ())
                  for e in ((selector or {}).get("matchExpressions") or ()))
    if not match_labels and not exprs:
        return _matches_nothing

    def matches(labels: Mapping[str, str]) -> bool:
        for k, v in match_labels:
            if labels.get(k) != v:
                return False
        for key, op, values in exprs:
            if op == "In" and labels.get(key) not in values:
                return False
            if op == "NotIn" and key in labels and labels[key] in values:
                return False
            if op == "Exists" and key not in labels:
                return False
            if op == "DoesNotExist" and key in labels:
                return False
        return True
    return matches


def _matches_nothing(labels: Mapping[str, str]) -> bool:
    return False


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """True if *labels* satisfy a LabelSelector (:func:`label_selector_as_selector`)."""
    return label_selector_as_selector(selector)(labels)
