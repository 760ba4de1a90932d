"""The kit's kubelet model, acting on a real API server.

A local control plane has no kubelet and no scheduler, so pods would stay Pending for ever.
:class:`APIKubelet` watches the namespace's pods and moves them as the kit's auto kubelet
(:class:`stsedu.sim.kubelet.Kubelet`) does, with the same :class:`~stsedu.sim.kubelet.StageProfile`
delays, in wall-clock seconds:

* a new pod is bound to the node ``node-1`` (the kit's one node) (a ``pods/binding`` create, as the scheduler
  does) and reported as ``ContainerCreating`` (kubectl's STATUS then matches the kit's), then, after ``stages.start``, its status becomes phase Running with a running
  container (``pods/status`` patch), and after ``stages.ready`` the Ready condition turns True;
* a new claim is bound at once to a volume named ``pvc-<claim uid>``, as the kit binds claims
  (no PersistentVolume object is made; nothing provisions storage);
* a pod marked for deletion (``deletionTimestamp``) is removed after
  ``min(stages.terminate, its grace period)`` with a zero-grace delete, as a kubelet does once
  the containers have stopped.

A container that crashes goes through the kit's crash loop: its state becomes
``terminated`` (reason ``Error``, exit code 1), a second later (:data:`~stsedu.sim.kubelet.STATUS_SYNC`)
``waiting`` (``CrashLoopBackOff``), and after the back-off (10 s, doubling per crash up to 300 s,
reset once the container ran 10 minutes: :data:`~stsedu.sim.kubelet.BACKOFF_INITIAL` ...) it runs
again with ``restartCount`` + 1 and ``lastState.terminated`` saying when it last exited; the pod
stays Running, not Ready, meanwhile. :meth:`crash_loop` makes a pod's (or an image's) container
exit that many seconds after each start. A pod fails (phase ``Failed``) only for a named cause,
with ``status.reason`` and ``status.message`` as the kubelet writes them: :meth:`evict`
(``Evicted``), :meth:`shut_down_node` (``Terminated``) and ``activeDeadlineSeconds``
(``DeadlineExceeded``, watched like the kubelet's active deadline handler).

The verbs of the manual kubelet (:meth:`set_ready`, :meth:`set_unready`, :meth:`fail`,
:meth:`crash`, :meth:`restart`, :meth:`never_ready`, ...) patch the status the same way, so a
scenario's steps can be played on a real cluster. Each write names the pod's uid as a precondition, so a pod
that was replaced meanwhile (same name, new uid) is never touched by a stale timer.
"""

from __future__ import annotations

import datetime as _dt
import threading
import time

from ..sim.kubelet import (BACKOFF_INITIAL, BACKOFF_MAX, BACKOFF_RESET, FAILED_CAUSES, STATUS_SYNC,
                           StageProfile)

NODE = "node-1"
"""The one node, named as the kit names it (:data:`stsedu.views.kubectl.get.SIM_NODE`: `get pods -o wide`'s NODE)."""
STRATEGIC = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"


KIT_KUBELET = "the kit's API kubelet (stsedu.live.kubelet)"


def register_node(api_client, name: str = NODE, kubelet: str = KIT_KUBELET, version: str = "stsedu-api-kubelet") -> None:
    """Create the Node *name* (if missing) and report it Ready, so that ``kubectl get nodes`` lists the
    node the pods are bound to. No node lifecycle controller runs, so no heartbeat is needed.
    *kubelet* names what runs the node's pods (the Ready condition's message)."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException
    core = client.CoreV1Api(api_client)
    try:
        core.create_node(client.V1Node(metadata=client.V1ObjectMeta(
            name=name, labels={"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"})))
    except ApiException as e:
        if e.status != 409:
            raise
    now = _now_rfc3339()
    core.patch_node_status(name, {"status": {
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                        "message": f"{kubelet} is posting ready status",
                        "lastHeartbeatTime": now, "lastTransitionTime": now}],
        "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}, {"type": "Hostname", "address": name}],
        "capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"},
        "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
        "nodeInfo": {"kubeletVersion": version, "architecture": "amd64", "operatingSystem": "linux",
                     "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "", "kubeProxyVersion": "",
                     "machineID": "", "osImage": "", "systemUUID": ""}}}, _content_type=STRATEGIC)


SERVED_ELSEWHERE = ("kube-system", "kube-public", "kube-node-lease")
RUN_PREFIX = "stsedu-live-"
"""``stsedu live run`` makes its namespaces with this prefix and drives them with a kubelet of its own
(the scenario's stages and verbs): the background kubelet leaves them alone."""


def served_by_background(namespace: str) -> bool:
    """True if ``stsedu live up``'s kubelet runs the pods of *namespace*."""
    return namespace not in SERVED_ELSEWHERE and not namespace.startswith(RUN_PREFIX)


class NamespaceKubelets:
    """One :class:`APIKubelet` (auto mode, default stages) per namespace that :func:`served_by_background`
    names: the kubelet ``stsedu live up`` runs beside the control plane. :meth:`poll` follows the
    namespaces as they are created and deleted."""

    def __init__(self, api_client, mode: str = "auto", node: str = NODE) -> None:
        self.api = api_client
        self.mode, self.node = mode, node  # "schedule": only bind to *node*, KWOK's (stsedu live up --kubelet kwok)
        self.kubelets: dict[str, APIKubelet] = {}

    def poll(self) -> None:
        from kubernetes import client
        names = {n.metadata.name for n in client.CoreV1Api(self.api).list_namespace(_request_timeout=5).items
                 if not n.metadata.deletion_timestamp and served_by_background(n.metadata.name)}
        for ns in names - set(self.kubelets):
            self.kubelets[ns] = APIKubelet(self.api, ns, mode=self.mode, node=self.node).watch()
        for ns in set(self.kubelets) - names:
            self.kubelets.pop(ns).stop()

    def stop(self) -> None:
        for k in self.kubelets.values():
            k._stop.set()
        for k in self.kubelets.values():
            k.stop()
        self.kubelets.clear()


def _now_rfc3339() -> str:
    return _rfc3339(time.time())


def _rfc3339(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _epoch(value) -> float | None:
    """An API timestamp (RFC 3339 text or a datetime) as epoch seconds."""
    if value is None:
        return None
    if isinstance(value, str):
        return _dt.datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=_dt.timezone.utc).timestamp()
    return value.timestamp()


class APIKubelet:
    """Moves the pods of *namespace* through Pending, Running, Ready and gone, through the API.

    *mode* ``auto`` runs the stages by themselves, ``manual`` only on the verbs; ``schedule`` only binds
    pods to *node* and claims to volumes, for a node whose own kubelet runs the pods (:mod:`.kwok`)."""

    def __init__(self, api_client, namespace: str = "default", stages: StageProfile | None = None,
                 node: str = NODE, mode: str = "auto") -> None:
        if mode not in ("auto", "manual", "schedule"):
            raise ValueError(f"kubelet mode must be 'auto', 'manual' or 'schedule', not {mode!r}")
        self.mode = mode
        from kubernetes import client
        self.api = api_client
        self.core = client.CoreV1Api(api_client)
        self.namespace = namespace
        self.stages = stages or StageProfile()
        self.node = node
        self._never_ready_pods: set[str] = set()
        self._never_ready_images: set[str] = set()
        self._crash_after: dict[tuple[str, str], float] = {}
        self._seen: dict[str, set[str]] = {}  # uid -> stages already scheduled
        self._backoff: dict[str, float] = {}  # uid -> the restart delay of its container's last crash
        self._container_started: dict[str, float] = {}  # uid -> when this container instance started
        self._exited_at: dict[str, float] = {}  # uid -> when its container last exited (epoch seconds)
        self._timers: list[tuple[float, threading.Timer]] = []  # (when it is due, the timer)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []
        """Writes that failed for a reason other than the pod being gone or replaced."""

    # ------------------------------------------------------------ lifecycle
    def watch(self) -> "APIKubelet":
        """Start watching the namespace (two threads: pods, claims); :meth:`stop` ends them."""
        self._threads = [
            threading.Thread(target=self._watch_loop, args=(self.core.list_namespaced_pod, self._on_pod),
                             name="stsedu-api-kubelet", daemon=True),
            threading.Thread(target=self._watch_loop,
                             args=(self.core.list_namespaced_persistent_volume_claim, self._on_claim),
                             name="stsedu-api-volumes", daemon=True)]
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for _, t in self._timers:
                t.cancel()
            self._timers.clear()
        for t in getattr(self, "_threads", ()):
            t.join(timeout=7)

    def __enter__(self) -> "APIKubelet":
        return self.watch()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _watch_loop(self, lister, handler) -> None:
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException
        rv = None
        while not self._stop.is_set():
            try:
                if rv is None:
                    listed = lister(self.namespace)
                    rv = listed.metadata.resource_version
                    for p in listed.items:
                        handler(self.api.sanitize_for_serialization(p))
                w = watch.Watch()
                for ev in w.stream(lister, self.namespace, resource_version=rv,
                                   timeout_seconds=5, _request_timeout=10, allow_watch_bookmarks=True):
                    if self._stop.is_set():
                        w.stop()
                        break
                    obj = ev["raw_object"]
                    rv = (obj.get("metadata") or {}).get("resourceVersion", rv)
                    if ev["type"] in ("ADDED", "MODIFIED"):
                        handler(obj)
            except ApiException as e:
                if e.status == 410:  # the watch window passed: list again
                    rv = None
                else:
                    time.sleep(0.2)
            except Exception:  # noqa: BLE001 - a dropped connection: watch again
                if self._stop.is_set():
                    return
                time.sleep(0.2)

    # ------------------------------------------------------------ reactions
    def pending(self) -> int:
        """How many stage timers have not fired yet."""
        with self._lock:
            return sum(1 for _, t in self._timers if t.is_alive())

    def wait_due(self, until: float, timeout: float) -> bool:
        """Wait, at most *timeout* seconds, until every stage due by the time *until* (epoch seconds) has
        been carried out, its write answered; False if one is still running then. On a loaded machine a
        timer fires late, or its write is slow: a point in time is read once the kubelet has done what it
        owed by then, as the kit's kubelet has at the same instant."""
        deadline = time.time() + timeout
        while True:
            with self._lock:
                owed = any(due <= until and t.is_alive() for due, t in self._timers)
            if not owed:
                return True
            if time.time() >= deadline:
                return False
            time.sleep(0.05)

    def _later(self, delay: float, fn, *args) -> None:
        if self._stop.is_set():
            return
        delay = max(0.0, delay)
        t = threading.Timer(delay, self._guarded, (fn,) + args)
        t.daemon = True
        with self._lock:
            self._timers = [x for x in self._timers if x[1].is_alive()]
            self._timers.append((time.time() + delay, t))
        t.start()

    def _guarded(self, fn, *args) -> None:
        if self._stop.is_set():
            return
        from kubernetes.client.exceptions import ApiException
        try:
            fn(*args)
        except ApiException as e:
            if e.status not in (404, 409):  # gone, or replaced (uid precondition)
                self.errors.append(f"{fn.__name__}: {e.status} {e.reason}")
        except ValueError:  # the pod moved on between the timer's read and its write (crashed, ended)
            pass

    def _once(self, uid: str, stage: str) -> bool:
        with self._lock:
            done = self._seen.setdefault(uid, set())
            if stage in done:
                return False
            done.add(stage)
            return True

    def _on_pod(self, pod: dict) -> None:
        meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
        name, uid = meta.get("name"), meta.get("uid")
        if meta.get("deletionTimestamp"):
            if self.mode == "auto" and self._once(uid, "terminate"):
                grace = meta.get("deletionGracePeriodSeconds")
                grace = spec.get("terminationGracePeriodSeconds", 30) if grace is None else grace
                self._later(min(self.stages.terminate, float(grace)), self._remove, name, uid)
            return
        if not spec.get("nodeName") and self._once(uid, "bind"):
            self._bind(name, uid)
        if self.mode == "schedule":
            return
        if self.mode == "auto" and status.get("phase", "Pending") == "Pending" and self._once(uid, "start"):
            self._later(self.stages.start, self._start, name, uid)
        deadline, started = spec.get("activeDeadlineSeconds"), _epoch(status.get("startTime"))
        if (self.mode == "auto" and deadline is not None and started is not None and status.get("phase") == "Running"
                and self._once(uid, f"deadline {deadline}")):
            self._later(started + deadline - time.time(), self._deadline, name, uid)

    def _on_claim(self, pvc: dict) -> None:
        """Bind a new claim at once, as the kit does (its provisioner model): a volume named
        ``pvc-<claim uid>`` (dynamic provisioning's naming), the requested size, the access modes."""
        meta, spec = pvc.get("metadata") or {}, pvc.get("spec") or {}
        if spec.get("volumeName") or meta.get("deletionTimestamp") or not self._once(meta.get("uid"), "bind"):
            return
        self._later(0, self._bind_claim, meta["name"], meta["uid"], spec)

    def _bind_claim(self, name: str, uid: str, spec: dict) -> None:
        body = {"metadata": {"uid": uid}, "spec": {"volumeName": f"pvc-{uid}"}}
        self.core.patch_namespaced_persistent_volume_claim(name, self.namespace, body, _content_type=MERGE)
        size = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        self.core.patch_namespaced_persistent_volume_claim_status(name, self.namespace, {
            "metadata": {"uid": uid}, "status": {"phase": "Bound", "accessModes": spec.get("accessModes") or [],
                                                 **({"capacity": {"storage": size}} if size else {})}},
            _content_type=MERGE)

    # ------------------------------------------------------------ writes
    def _bind(self, name: str, uid: str) -> None:
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException
        body = client.V1Binding(metadata=client.V1ObjectMeta(name=name, uid=uid),
                                target=client.V1ObjectReference(kind="Node", name=self.node))
        try:
            self.core.create_namespaced_pod_binding(name, self.namespace, body, _preload_content=False)
            if self.mode == "schedule":  # the node's own kubelet (KWOK) reports the containers
                return
            pod, containers = self._pod_now(name)
            if pod.metadata.uid != uid:
                return
            # what a kubelet reports once it has the pod: its containers are being created
            self._patch_status(name, uid, {
                "hostIP": "127.0.0.1",
                "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": _now_rfc3339()}],
                "containerStatuses": [{"name": c["name"], "image": c["image"], "imageID": "", "ready": False,
                                       "started": False, "restartCount": 0,
                                       "state": {"waiting": {"reason": "ContainerCreating"}}} for c in containers]})
        except ApiException as e:
            if e.status not in (404, 409):
                self.errors.append(f"bind {name}: {e.status} {e.reason}")

    def _patch_status(self, name: str, uid: str, status: dict) -> dict:
        body = {"metadata": {"uid": uid}, "status": status}
        return self.api.sanitize_for_serialization(
            self.core.patch_namespaced_pod_status(name, self.namespace, body, _content_type=STRATEGIC))

    def _containers(self, name: str) -> list[dict]:
        pod = self.core.read_namespaced_pod(name, self.namespace)
        return [{"name": c.name, "image": c.image} for c in pod.spec.containers]

    def _container_statuses(self, containers, ready: bool, restarts: int = 0, started: str | None = None,
                            uid: str | None = None, state: dict | None = None):
        """Each container's status: running since *started* (or *state*), with ``lastState`` once it exited."""
        exited = self._exited_at.get(uid) if uid else None
        out = []
        for c in containers:
            st = {"name": c["name"], "image": c["image"], "imageID": "", "ready": ready,
                  "started": state is None, "restartCount": restarts,
                  "state": state if state is not None else {"running": {"startedAt": started or _now_rfc3339()}}}
            if exited is not None:
                st["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": _rfc3339(exited)}}
            out.append(st)
        return out

    def _conditions(self, ready: bool) -> list[dict]:
        now = _now_rfc3339()
        value = "True" if ready else "False"
        # in the order a kubelet reports them (and the kit's describe lists them)
        return [{"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": now},
                {"type": "Initialized", "status": "True", "lastTransitionTime": now},
                {"type": "Ready", "status": value, "lastTransitionTime": now},
                {"type": "ContainersReady", "status": value, "lastTransitionTime": now},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": now}]

    def _start(self, name: str, uid: str) -> None:
        pod = self.core.read_namespaced_pod(name, self.namespace)
        if pod.metadata.uid != uid or pod.metadata.deletion_timestamp or (pod.status.phase or "Pending") != "Pending":
            return
        containers = [{"name": c.name, "image": c.image} for c in pod.spec.containers]
        now = _now_rfc3339()
        self._patch_status(name, uid, {
            "phase": "Running", "startTime": now, "hostIP": "127.0.0.1", "podIP": "127.0.0.1",
            "conditions": self._conditions(False),
            "containerStatuses": self._container_statuses(containers, False, started=now)})
        self._after_container_start(name, uid, [c["image"] for c in containers])

    def _after_container_start(self, name: str, uid: str, images, at: float | None = None) -> None:
        """The container started at *at* (epoch seconds; now if None): time its Ready and its crash
        from then, so that the delays of a crash loop add up as on the kit's clock, not with each write's lag."""
        started = self._container_started[uid] = time.time() if at is None else at
        if self.mode != "auto":
            return
        if not self._is_never_ready(name, images):
            self._later(started + self.stages.ready - time.time(), self._ready, name, uid)
        crash = self._crash_delay(name, images)
        if crash is not None:
            self._later(started + crash - time.time(), self._auto_crash, name, uid, started, started + crash)

    def _ready(self, name: str, uid: str) -> None:
        pod = self.core.read_namespaced_pod(name, self.namespace)
        if pod.metadata.uid != uid or pod.metadata.deletion_timestamp or pod.status.phase != "Running":
            return
        if self._is_never_ready(name, [c.image for c in pod.spec.containers]) or self._crashed_state(pod):
            return
        self.set_ready(name)

    def _remove(self, name: str, uid: str) -> None:
        from kubernetes import client
        self.core.delete_namespaced_pod(name, self.namespace, body=client.V1DeleteOptions(
            grace_period_seconds=0, preconditions=client.V1Preconditions(uid=uid)))

    def _is_never_ready(self, name: str, images) -> bool:
        return name in self._never_ready_pods or any(i in self._never_ready_images for i in images)

    # ------------------------------------------------------------ manual verbs (as the kit's)
    def _pod_now(self, name: str):
        pod = self.core.read_namespaced_pod(name, self.namespace)
        return pod, [{"name": c.name, "image": c.image} for c in pod.spec.containers]

    def _restarts(self, pod) -> int:
        return max((s.restart_count or 0 for s in (pod.status.container_statuses or [])), default=0)

    @staticmethod
    def _crashed_state(pod) -> str:
        """``"Error"``, ``"CrashLoopBackOff"`` or ``""``: the kit's ``container_state`` of an API pod."""
        for cs in (pod.status.container_statuses or [])[:1]:
            if cs.state and cs.state.terminated and cs.state.terminated.reason == "Error":
                return "Error"
            if cs.state and cs.state.waiting and cs.state.waiting.reason == "CrashLoopBackOff":
                return "CrashLoopBackOff"
        return ""

    def _is_running(self, pod) -> bool:
        return pod.status.phase == "Running" and not pod.metadata.deletion_timestamp

    def start(self, name: str) -> None:
        """A Pending pod becomes Running (manual mode's first step)."""
        pod, _ = self._pod_now(name)
        if (pod.status.phase or "Pending") != "Pending" or pod.metadata.deletion_timestamp:
            raise ValueError(f'pod "{name}" is not Pending; start() moves a Pending pod to Running')
        self._start(name, pod.metadata.uid)

    def finish_termination(self, name: str) -> None:
        """A terminating pod disappears."""
        pod, _ = self._pod_now(name)
        if not pod.metadata.deletion_timestamp:
            raise ValueError(f'pod "{name}" is not terminating; delete it first')
        self._remove(name, pod.metadata.uid)

    def set_ready(self, name: str) -> None:
        """The pod's Ready condition becomes True (it must be Running, its container not crashed)."""
        pod, containers = self._pod_now(name)
        if pod.status.phase != "Running":
            raise ValueError(f'pod "{name}" is {pod.status.phase}; only a Running pod can become Ready')
        if self._crashed_state(pod):
            raise ValueError(f'pod "{name}": its container has crashed; restart() it first')
        uid = pod.metadata.uid
        self._patch_status(name, uid, {
            "conditions": self._conditions(True),
            "containerStatuses": self._container_statuses(containers, True, self._restarts(pod), uid=uid)})

    def set_unready(self, name: str) -> None:
        """The pod's Ready condition becomes False (a failing readiness probe)."""
        pod, containers = self._pod_now(name)
        uid = pod.metadata.uid
        self._patch_status(name, uid, {
            "conditions": self._conditions(False),
            "containerStatuses": self._container_statuses(containers, False, self._restarts(pod), uid=uid)})

    def fail(self, name: str, reason: str = "Evicted", resource: str = "memory") -> None:
        """The pod's phase becomes Failed for a named cause (*reason*: ``Evicted``, ``Terminated`` or
        ``DeadlineExceeded``), with the kubelet's ``status.message``; its containers are stopped."""
        if reason not in FAILED_CAUSES:
            raise ValueError(f"reason must be one of {', '.join(FAILED_CAUSES)}, not {reason!r}")
        pod, containers = self._pod_now(name)
        if pod.status.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{name}" has already ended ({pod.status.phase})')
        self._failed(name, pod, containers, reason, FAILED_CAUSES[reason].format(resource=resource))

    def _failed(self, name, pod, containers, reason: str, message: str) -> None:
        uid = pod.metadata.uid
        self._patch_status(name, uid, {
            "phase": "Failed", "reason": reason, "message": message, "conditions": self._conditions(False),
            # the kit's kubelet reports no runtime state for the stopped container (printPod shows the reason)
            "containerStatuses": self._container_statuses(containers, False, self._restarts(pod), uid=uid, state={})})

    def evict(self, name: str, resource: str = "memory") -> None:
        """Node-pressure eviction: phase Failed, reason ``Evicted``, ``The node was low on resource: memory. ``"""
        self.fail(name, "Evicted", resource)

    def shut_down_node(self, name: str) -> None:
        """Graceful node shutdown: phase Failed, reason ``Terminated``."""
        self.fail(name, "Terminated")

    def succeed(self, name: str) -> None:
        """The pod's phase becomes Succeeded (its containers exited 0)."""
        pod, containers = self._pod_now(name)
        if pod.status.phase in ("Failed", "Succeeded"):
            raise ValueError(f'pod "{name}" has already ended ({pod.status.phase})')
        uid = pod.metadata.uid
        self._patch_status(name, uid, {
            "phase": "Succeeded", "conditions": self._conditions(False),
            "containerStatuses": self._container_statuses(
                containers, False, self._restarts(pod), uid=uid,
                state={"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": _now_rfc3339()}})})

    def _deadline(self, name: str, uid: str) -> None:
        """The active deadline handler: fail the pod once it ran ``activeDeadlineSeconds``."""
        pod, containers = self._pod_now(name)
        started, deadline = _epoch(pod.status.start_time), pod.spec.active_deadline_seconds
        if (pod.metadata.uid == uid and self._is_running(pod) and deadline is not None and started is not None
                and time.time() >= started + deadline - 0.5):
            self._failed(name, pod, containers, "DeadlineExceeded", FAILED_CAUSES["DeadlineExceeded"])

    # ------------------------------------------------------------ crash loops
    def crash_loop(self, seconds: float, pod: str | None = None, image: str | None = None) -> None:
        """Make a pod's container (or that of every pod running *image*) exit with an error
        *seconds* after each start (auto mode): with ``restartPolicy: Always`` it crash-loops."""
        if pod is None and image is None:
            raise ValueError("crash_loop needs a pod name or an image")
        if pod is not None:
            self._crash_after[("pod", pod)] = float(seconds)
        if image is not None:
            self._crash_after[("image", image)] = float(seconds)

    fail_after = crash_loop

    def _crash_delay(self, name: str, images) -> float | None:
        d = self._crash_after.get(("pod", name))
        for img in images:
            if d is None:
                d = self._crash_after.get(("image", img))
        return d

    def crash(self, name: str) -> None:
        """The pod's container exits with an error: ``Error``, not Ready, phase still Running; in auto
        mode ``CrashLoopBackOff`` a second later and a restart after the back-off."""
        pod, containers = self._pod_now(name)
        if not self._is_running(pod) or self._crashed_state(pod):
            raise ValueError(f'pod "{name}": only a running container can crash')
        self._crashed(name, pod, containers)

    def restart(self, name: str) -> None:
        """The kubelet starts a crashed container again: Running (not Ready), restarts + 1."""
        pod, containers = self._pod_now(name)
        if not self._is_running(pod) or not self._crashed_state(pod):
            raise ValueError(f'pod "{name}": restart() restarts a crashed container')
        self._restarted(name, pod, containers)

    def _crashed(self, name: str, pod, containers, at: float | None = None) -> None:
        uid, now = pod.metadata.uid, time.time() if at is None else at
        ran = now - self._container_started.get(uid, _epoch(pod.status.start_time) or now)
        prev = self._backoff.get(uid)
        delay = BACKOFF_INITIAL if prev is None or ran >= BACKOFF_RESET else min(prev * 2, BACKOFF_MAX)
        self._backoff[uid] = delay
        started = _rfc3339(self._container_started.get(uid, now))
        self._patch_status(name, uid, {
            "conditions": self._conditions(False),
            "containerStatuses": self._container_statuses(
                containers, False, self._restarts(pod), uid=uid,
                state={"terminated": {"exitCode": 1, "reason": "Error", "startedAt": started,
                                      "finishedAt": _rfc3339(now)}})})
        self._exited_at[uid] = now  # lastState from the back-off on, as the kit's last_exit_at
        if self.mode == "auto":
            self._later(now + STATUS_SYNC - time.time(), self._auto_back_off, name, uid)
            self._later(now + delay - time.time(), self._auto_restart, name, uid, now + delay)

    def _auto_back_off(self, name: str, uid: str) -> None:
        pod, containers = self._pod_now(name)
        if pod.metadata.uid != uid or not self._is_running(pod) or self._crashed_state(pod) != "Error":
            return
        delay = self._backoff.get(uid, BACKOFF_INITIAL)
        self._patch_status(name, uid, {"containerStatuses": self._container_statuses(
            containers, False, self._restarts(pod), uid=uid, state={"waiting": {
                "reason": "CrashLoopBackOff",
                "message": f"back-off {delay:g}s restarting failed container={containers[0]['name']} "
                           f"pod={name}_{self.namespace}({uid})"}})})

    def _auto_restart(self, name: str, uid: str, at: float) -> None:
        pod, containers = self._pod_now(name)
        if pod.metadata.uid == uid and self._is_running(pod) and self._crashed_state(pod):
            self._restarted(name, pod, containers, at)

    def _restarted(self, name: str, pod, containers, at: float | None = None) -> None:
        uid = pod.metadata.uid
        self._patch_status(name, uid, {
            "conditions": self._conditions(False),
            "containerStatuses": self._container_statuses(containers, False, self._restarts(pod) + 1, uid=uid)})
        self._after_container_start(name, uid, [c["image"] for c in containers], at)

    def _auto_crash(self, name: str, uid: str, started: float, at: float) -> None:
        pod, containers = self._pod_now(name)
        # only the container instance this crash was scheduled for (not one restarted since)
        if (pod.metadata.uid == uid and self._is_running(pod) and not self._crashed_state(pod)
                and self._container_started.get(uid) == started):
            self._crashed(name, pod, containers, at)

    def never_ready(self, pod: str | None = None, image: str | None = None) -> None:
        if pod is not None:
            self._never_ready_pods.add(pod)
        if image is not None:
            self._never_ready_images.add(image)

    def clear_behaviours(self) -> None:
        """Forget never_ready and crash_loop settings."""
        self._never_ready_pods.clear()
        self._never_ready_images.clear()
        self._crash_after.clear()
