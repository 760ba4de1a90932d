"""Watch events from a real cluster, turned into the kit's trace rows.

:class:`Recorder` watches the pods, StatefulSets, ControllerRevisions and
PersistentVolumeClaims of one namespace (one watch each, from a list's resourceVersion,
relisting after a 410) and keeps every event. :meth:`Recorder.trace` orders them by
resourceVersion (one etcd: the order the writes were made in) and builds a
:class:`stsedu.trace.Trace` whose pod, status and event tables the kit's tables and charts
read: ``stsedu.charts.pod_timeline(rec.trace())`` draws the real run like a kit run.

What the trace can and cannot say: the real controller's *decisions* (why it created or
waited) are not observable from outside; the trace holds its *writes* in order (pod creates
and deletes, label updates, status writes), so its decisions table is empty. The ``sync``
column counts the set's observed status writes (a status row has the number of its write;
rows after the n-th status write have sync n + 1, as the kit numbers a sync's pod writes), and ``time`` is seconds since the recorder started, on this machine's clock.
:meth:`Recorder.writes` lists every write as ``(verb, kind, name, what)``.
"""

from __future__ import annotations

import re
import threading
import time

from ..api.objects import kubectl_status
from ..i18n import N_
from ..trace import Trace

KINDS = ("Pod", "StatefulSet", "ControllerRevision", "PersistentVolumeClaim")

NOTE = N_("A trace of a real cluster: it shows the controller's writes (creates, deletes, updates), "
           "in the order they reached the API server; the decisions behind them are not observable.")
"""The note a live trace carries in its ``meta`` (English, as stored; :attr:`stsedu.live.lesson.Lesson.note`
shows it in the learner's language)."""

_ORDINAL = re.compile(r"^(.*)-(\d+)$")


def _rv(obj: dict) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def _owner_set(meta: dict) -> str | None:
    for ref in meta.get("ownerReferences") or ():
        if ref.get("kind") == "StatefulSet" and ref.get("controller"):
            return ref.get("name")
    return None


def pod_facts(pod: dict) -> dict:
    """What the kit's trace keeps of a pod, read from its API object."""
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    name = meta.get("name", "")
    m = _ORDINAL.match(name)
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
    statuses = status.get("containerStatuses") or ()
    restarts = max((c.get("restartCount") or 0 for c in statuses), default=0)
    container_state = ""
    for c in statuses[:1]:  # printPod reads the container's waiting or terminated reason
        state = c.get("state") or {}
        reason = (state.get("waiting") or state.get("terminated") or {}).get("reason") or ""
        container_state = "" if reason == "ContainerCreating" else reason
    phase = status.get("phase") or "Pending"
    return {"name": name, "set": _owner_set(meta) or (m.group(1) if m else None),
            "ordinal": int(m.group(2)) if m else -1, "phase": phase, "ready": ready,
            "status": kubectl_status(phase, bool(meta.get("deletionTimestamp")), status.get("reason") or "",
                                     container_state),
            "terminating": bool(meta.get("deletionTimestamp")),
            "revision": (meta.get("labels") or {}).get("controller-revision-hash"),
            "restarts": restarts, "containers": len(spec.get("containers") or ()) or 1,
            "uid": meta.get("uid"), "owner": _owner_set(meta), "node": spec.get("nodeName")}


def _pod_cause(old: dict | None, new: dict, event: str) -> str:
    if event == "created":
        return "controller: create" if new["owner"] else "user: create"
    if event == "deleted":
        return "kubelet: terminated" if old and old["terminating"] else "deleted"
    if new["terminating"] and not (old and old["terminating"]):
        return "delete (terminating)"
    if old is None:
        return "updated"
    if new["revision"] != old["revision"]:
        return "controller: update"
    if new["owner"] != old["owner"]:
        return "controller: adopt" if new["owner"] else "controller: release"
    if new["node"] != old["node"]:
        return f"bound to {new['node']}"
    if new["phase"] != old["phase"]:
        return "kubelet: started" if new["phase"] == "Running" else f"kubelet: {new['phase'].lower()}"
    if new["restarts"] != old["restarts"]:
        return "kubelet: container restarted"
    if new["ready"] != old["ready"]:
        return "kubelet: ready" if new["ready"] else "kubelet: not ready"
    return "updated"


class Recorder:
    """Watches one namespace and keeps its events; :meth:`trace` and :meth:`writes` read them."""

    def __init__(self, api_client, namespace: str = "default") -> None:
        self.api = api_client
        self.namespace = namespace
        self.events: list[tuple[int, float, str, str, dict]] = []
        """(resourceVersion, seconds since start, type, kind, object) per watch event."""
        self.user: list[tuple[int, float, str]] = []
        """(resourceVersion reached, time, text) per user action noted with :meth:`note`."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._t0 = time.monotonic()
        self._synced = {k: threading.Event() for k in KINDS}

    # ------------------------------------------------------------ watching
    def _lister(self, kind: str):
        from kubernetes import client
        core, apps = client.CoreV1Api(self.api), client.AppsV1Api(self.api)
        return {"Pod": core.list_namespaced_pod, "StatefulSet": apps.list_namespaced_stateful_set,
                "ControllerRevision": apps.list_namespaced_controller_revision,
                "PersistentVolumeClaim": core.list_namespaced_persistent_volume_claim}[kind]

    def start(self) -> "Recorder":
        for kind in KINDS:
            t = threading.Thread(target=self._watch, args=(kind,), name=f"stsedu-watch-{kind}", daemon=True)
            t.start()
            self._threads.append(t)
        for kind in KINDS:
            self._synced[kind].wait(timeout=30)
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=7)

    def __enter__(self) -> "Recorder":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def now(self) -> float:
        return time.monotonic() - self._t0

    def _add(self, etype: str, kind: str, obj: dict) -> None:
        with self._lock:
            self.events.append((_rv(obj), self.now(), etype, kind, obj))

    def _watch(self, kind: str) -> None:
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException
        lister = self._lister(kind)
        rv = None
        known: dict[str, dict] = {}
        while not self._stop.is_set():
            try:
                if rv is None:
                    listed = lister(self.namespace, _preload_content=False)
                    import json
                    data = json.loads(listed.data)
                    rv = data["metadata"]["resourceVersion"]
                    for obj in data.get("items") or ():
                        uid = obj["metadata"]["uid"]
                        if known.get(uid, {}).get("metadata", {}).get("resourceVersion") != obj["metadata"].get("resourceVersion"):
                            self._add("ADDED" if uid not in known else "MODIFIED", kind, obj)
                        known[uid] = obj
                    self._synced[kind].set()
                w = watch.Watch()
                for ev in w.stream(lister, self.namespace, resource_version=rv, timeout_seconds=5,
                                   _request_timeout=10):
                    obj = ev["raw_object"]
                    if ev["type"] == "ERROR":
                        if obj.get("code") == 410:
                            rv = None
                        break
                    rv = obj["metadata"].get("resourceVersion", rv)
                    if ev["type"] == "BOOKMARK":
                        continue
                    self._add(ev["type"], kind, obj)
                    uid = obj["metadata"].get("uid")
                    if ev["type"] == "DELETED":
                        known.pop(uid, None)
                    else:
                        known[uid] = obj
                    if self._stop.is_set():
                        w.stop()
                        break
            except ApiException as e:
                if e.status == 410:
                    rv = None
                else:
                    time.sleep(0.2)
            except Exception:  # noqa: BLE001 - a dropped connection: watch again from rv
                if self._stop.is_set():
                    return
                time.sleep(0.2)

    # ------------------------------------------------------------ reading
    def note(self, text: str) -> None:
        """Record a user action (shown in the trace's events as reason ``User``)."""
        with self._lock:
            last = max((e[0] for e in self.events), default=0)
            self.user.append((last, self.now(), text))

    def ordered(self) -> list[tuple[int, float, str, str, dict]]:
        """The events in write order (by resourceVersion; the time made non-decreasing)."""
        with self._lock:
            evs = sorted(self.events, key=lambda e: (e[0], e[1]))
        out, t = [], 0.0
        seen = set()
        for rv, when, etype, kind, obj in evs:
            key = (rv, etype, kind, obj["metadata"].get("uid"))
            if key in seen:  # the same event from a relist and a watch
                continue
            seen.add(key)
            t = max(t, when)
            out.append((rv, t, etype, kind, obj))
        return out

    def writes(self) -> list[tuple[str, str, str, str]]:
        """Every write seen, in order: ``(verb, kind, name, what)``; *what* says which part changed."""
        out = []
        last: dict[str, dict] = {}
        for rv, t, etype, kind, obj in self.ordered():
            meta = obj["metadata"]
            uid, name = meta.get("uid"), meta.get("name")
            old = last.get(uid)
            if etype == "ADDED":
                out.append(("create", kind, name, ""))
            elif etype == "DELETED":
                out.append(("delete", kind, name, ""))
            else:
                what = []
                if old is not None:
                    if meta.get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
                        what.append("deletionTimestamp")
                    for part in ("spec", "status", "data", "revision"):
                        if obj.get(part) != old.get(part):
                            what.append(part)
                    for part in ("labels", "ownerReferences", "finalizers"):
                        if meta.get(part) != old["metadata"].get(part):
                            what.append(part)
                out.append(("update", kind, name, ",".join(what)))
            last[uid] = obj
        return out

    def trace(self, meta: dict | None = None) -> Trace:
        """The events as a kit :class:`~stsedu.trace.Trace` (pods, status, events tables)."""
        from ..version import __version__
        tr = Trace({"version": __version__, "source": "live", "namespace": self.namespace, "note": NOTE,
                    **(meta or {})})
        pods: dict[str, dict] = {}
        status_writes = 0
        sts_last: dict[str, dict] = {}
        user = sorted(self.user)
        ui = 0
        for rv, t, etype, kind, obj in self.ordered():
            while ui < len(user) and user[ui][0] < rv:
                tr.time = max(tr.time, user[ui][1])
                tr.add_event("Normal", "User", "", user[ui][2])
                ui += 1
            tr.time = t
            tr.sync = status_writes + 1  # the sync in progress: the one that ends with the next status write
            if kind == "Pod":
                facts = pod_facts(obj)
                old = pods.get(facts["uid"])
                # when the container last exited: seen here as the first Error or restart after a run
                exited = old is not None and old["status"] != "Error" and (
                    facts["status"] == "Error" or facts["restarts"] > old["restarts"])
                facts["last_exit"] = t if exited else (old or {}).get("last_exit")
                event = {"ADDED": "created", "DELETED": "deleted"}.get(etype, "updated")
                tr.add_pod(_PodRow(facts), event, _pod_cause(old, facts, event))
                if etype == "DELETED":
                    pods.pop(facts["uid"], None)
                else:
                    pods[facts["uid"]] = facts
            elif kind == "StatefulSet" and etype != "DELETED":
                name = obj["metadata"]["name"]
                st, spec = obj.get("status") or {}, obj.get("spec") or {}
                prev = sts_last.get(name)
                sts_last[name] = obj
                if etype == "ADDED" or prev is None or prev.get("status") == obj.get("status"):
                    continue  # the user's create or a spec change, not a status write
                status_writes += 1
                tr.sync = status_writes
                strategy = spec.get("updateStrategy") or {}
                partition = ((strategy.get("rollingUpdate") or {}).get("partition") or 0
                             if strategy.get("type", "RollingUpdate") == "RollingUpdate" else None)
                tr.add_status(name, spec.get("replicas", 1), _Status(st), True,
                              spec.get("minReadySeconds") or 0, partition)
            elif etype in ("ADDED", "DELETED"):
                verb = "created" if etype == "ADDED" else "deleted"
                tr.add_event("Normal", f"Observed{verb.capitalize()}", f"{kind.lower()}/{obj['metadata']['name']}",
                             f"{kind} {obj['metadata']['name']} {verb}")
        for _, t, text in user[ui:]:
            tr.time = max(tr.time, t)
            tr.add_event("Normal", "User", "", text)
        return tr


class _PodRow:
    """The attributes Trace.add_pod reads, from :func:`pod_facts`."""

    def __init__(self, f: dict) -> None:
        self.name, self.owner, self.parent, self.ordinal = f["name"], f["owner"], f["set"], f["ordinal"]
        self.phase, self.ready, self.revision, self.restarts = f["phase"], f["ready"], f["revision"], f["restarts"]
        self.deletion_timestamp = 0 if f["terminating"] else None
        self.status_text, self.last_exit_at = f["status"], f.get("last_exit")
        self.spec = {"containers": [None] * f["containers"]}


class _Status:
    def __init__(self, st: dict) -> None:
        self.replicas = st.get("replicas") or 0
        self.ready_replicas = st.get("readyReplicas") or 0
        self.available_replicas = st.get("availableReplicas") or 0
        self.current_replicas = st.get("currentReplicas") or 0
        self.updated_replicas = st.get("updatedReplicas") or 0
        self.current_revision = st.get("currentRevision")
        self.update_revision = st.get("updateRevision")
        self.observed_generation = st.get("observedGeneration")
