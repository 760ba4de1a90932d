"""Defaulting, as the API server does it on create and update
(``pkg/apis/apps/v1/defaults.go`` ``SetDefaults_StatefulSet``, ``pkg/apis/core/v1/defaults.go``)."""

from __future__ import annotations

import copy

from .quantities import parse_quantity, quantity_string


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
    if isinstance(ports, list):  # other types: a decode error later
        ports[:] = [{} if port is None else port for port in ports]  # null decodes to a zero ServicePort
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict):
            if not port.get("protocol"):
                port["protocol"] = "TCP"
            if port.get("targetPort") in (None, 0, ""):
                port["targetPort"] = port.get("port") or 0
    return svc
