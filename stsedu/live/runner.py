"""A scenario's steps on a real cluster, and the comparison with the kit.

:class:`LiveSession` runs in one namespace of a real cluster (the local control plane or a
user's, through any kubeconfig and context): it records the watch events
(:class:`~.recorder.Recorder`), drives the pods with the kit's kubelet model
(:class:`~.kubelet.APIKubelet`) unless the cluster has its own kubelet, and makes the user's
changes with the real kubectl (``apply``, ``scale``, ``set image``, ``patch``, ``delete``,
``rollout undo``), as a learner would type them.

The real controller runs by itself, so a scenario's ``sync``/``run``/``advance`` steps cannot
be replayed one sync at a time. :func:`play` and :func:`play_kit` therefore compare *stable
points*: every change step is carried out, then both sides run until nothing moves (the kit
with ``run``, the live cluster until its writes stop), and what a learner can observe there is
taken (:func:`observe`): each pod's revision and state, the claims, the revisions and their
numbers, the set's status; and over the whole run the order of pod creates and deletes.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from .build import LiveUnavailable, find_kubectl
from .kubelet import RUN_PREFIX
from .texts import TIMED_TEXTS, describe_parts, kit_texts, live_texts, normalise, same_events, text_differences

WAIT_ACTIONS = frozenset({"sync", "run", "run_all", "settle", "advance", "kubelet_step", "expect"})
"""Scenario steps that only let the controller and time act: a stable point on both sides."""

LIVE_SKIPPED = {
    "inject_error": "the real API server cannot be made to fail on cue; the kit's retry reaches the same stable point",
}
"""Steps the live run skips, with the reason (the kit still carries them out)."""

QUIET = 3.0
"""Seconds without a write (and without a kubelet timer pending) after which a live run counts as stable."""

LAG = 0.35
"""Seconds a live point in time is first read after the kit's instant: the real writes land that much later."""

SLACK = 0.8
"""Seconds after :data:`LAG` a live point in time may go on reading until it shows the kit's state: on a
loaded machine the kubelet's timers and the API server's writes run later still. It is shorter than any
state a timed scenario shows (the shortest, a container up for a second before it exits, lasts 1 s), so a
late cluster is read in the state the kit shows, and a cluster in another state is still caught."""

REQUEUE_SLACK = 5.0
"""Seconds past a Ready pod's minReadySeconds during which a live run is not yet stable: the controller
syncs the set again once minReadySeconds have passed (its requeue), and on a loaded machine that sync
runs late (CI saw it more than 1.5 s late: the last old pod of a maxUnavailable rollout deleted after the
stable point had been read)."""

DUE_WAIT = 10.0
"""Seconds a live point in time may wait past its instant for the kit's kubelet to carry out the stages due by
then (:meth:`~.kubelet.APIKubelet.wait_due`): on a loaded machine its timers fire late and its writes are
slow. A stage still not written after that is read as it is, and differs."""

EVENT_SLACK = 12.0
"""Seconds a stable point may go on reading ``describe`` until its events are the kit's. The controller
manager's event broadcaster posts events in the background, and a post that fails (an API server busy on a
loaded machine) is tried again up to 10 s later (client-go's ``tools/record``), so an event can land after
the objects have been quiet for :data:`QUIET` seconds. Events that never come, or come different, are still
caught."""


# ================================================================ what a learner observes

def observe(objects: dict[str, list[dict]], set_name: str | None = None) -> dict:
    """The observable state from API-form objects ``{kind: [manifest, ...]}`` (the kit's dump or a live list)."""
    def ready(p):
        return any(c.get("type") == "Ready" and c.get("status") == "True"
                   for c in (p.get("status") or {}).get("conditions") or ())
    pods = sorted((p["metadata"]["name"], (p["metadata"].get("labels") or {}).get("controller-revision-hash", ""),
                   (p.get("status") or {}).get("phase") or "Pending", ready(p),
                   bool(p["metadata"].get("deletionTimestamp")),
                   ",".join(sorted(r["name"] for r in p["metadata"].get("ownerReferences") or ()
                                   if r.get("controller"))))
                  for p in objects.get("Pod", ()))
    pvcs = sorted((c["metadata"]["name"], ",".join(sorted(r["kind"] + "/" + r["name"]
                                                          for r in c["metadata"].get("ownerReferences") or ())))
                  for c in objects.get("PersistentVolumeClaim", ()))
    revisions = sorted((r["metadata"]["name"], int(r.get("revision") or 0),
                        ",".join(sorted(o["name"] for o in r["metadata"].get("ownerReferences") or ()
                                        if o.get("controller"))))
                       for r in objects.get("ControllerRevision", ()))
    sets = {}
    for s in objects.get("StatefulSet", ()):
        st = s.get("status") or {}
        sets[s["metadata"]["name"]] = {
            "spec_replicas": (s.get("spec") or {}).get("replicas", 1),
            **{k: st.get(k) or 0 for k in ("replicas", "readyReplicas", "availableReplicas", "currentReplicas",
                                           "updatedReplicas")},
            "currentRevision": st.get("currentRevision", ""), "updateRevision": st.get("updateRevision", ""),
            "terminating": bool(s["metadata"].get("deletionTimestamp"))}
    return {"pods": pods, "pvcs": pvcs, "revisions": revisions, "sets": sets}


def kit_objects(cluster) -> dict[str, list[dict]]:
    return {k: list(v.values()) for k, v in cluster.dump()["objects"].items()}


def pod_changes_kit(trace) -> list[tuple[str, str]]:
    """The order of pod creates and (final) deletes in a kit trace."""
    return [("create" if row[5] == "created" else "delete", row[2]) for row in trace.rows()["pods"]
            if row[5] in ("created", "deleted")]


# ================================================================ the kit side

@dataclass
class Run:
    """Stable points and pod changes of one run (kit or live)."""

    points: list[dict] = field(default_factory=list)
    """(step number, action, observation) per stable point."""
    pod_changes: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    """Steps the live cluster refused (a pod the kit has is not there, ...)."""
    trace: Any = None
    writes: list = field(default_factory=list)


def _segments(scenario):
    """The scenario's steps grouped: a run of change steps, then the wait steps after it."""
    changes, waits = [], []
    for step in scenario.steps:
        if step.action in WAIT_ACTIONS:
            waits.append(step)
            continue
        if changes and waits:
            yield changes, waits
            changes = []
        waits = []  # waits before the first change are the objects' stable point
        changes.append(step)
    if changes:
        yield changes, waits


TIMED_ACTIONS = frozenset({"crash_loop", "fail_after"})
"""Steps after which the scenario never settles (a crash loop goes on for ever): such a scenario is
compared *in time* (:func:`timed`)."""


def timed(scenario) -> bool:
    """True if *scenario* is compared in time: each ``advance`` and ``run`` with ``until`` after a
    change is a point of its own, taken on the live side as many wall-clock seconds after the change
    as the kit's clock moved (plus :data:`LAG`); a ``run`` without ``until`` still waits until stable."""
    return any(s.action in TIMED_ACTIONS for s in scenario.steps)


def _is_timed_wait(step) -> bool:
    return step.action == "advance" or (step.action == "run" and step.args.get("until") is not None)


def _points(scenario):
    """``(changes, waits)`` per point: *waits* is ``None`` for a stable point (run until nothing moves),
    else the one timed wait step of a point in time (only in :func:`timed` scenarios)."""
    is_timed = timed(scenario)
    for changes, waits in _segments(scenario):
        if not is_timed or not any(_is_timed_wait(w) for w in waits):
            yield changes, None
            continue
        first = True
        for w in waits:
            if _is_timed_wait(w):
                yield (changes if first else []), w
                first = False
            elif not first:
                yield [], None  # a run to stability after the timed points
                first = True


def play_kit(scenario, texts: bool = True) -> Run:
    """The scenario on the kit, with a ``run`` to stability wherever the live side waits.

    In a :func:`timed` scenario a timed wait step is carried out as written, and the point records
    ``since``: the simulated seconds since the changes that began this stretch of points in time."""
    from ..lessons.scenarios.runner import ACTIONS
    c = scenario.make_cluster()
    run = Run()
    seen = 0
    anchor = None

    def point(step, actions, since=None):
        nonlocal seen
        changes = pod_changes_kit(c.trace)
        got = kit_texts(c, scenario.set_name) if texts else {}
        if since is not None:  # a point in time: only what the live side can read at that instant
            got = {k: v for k, v in got.items() if k in TIMED_TEXTS}
        run.points.append({"step": step, "actions": actions, "observed": observe(kit_objects(c)),
                           "changes": changes[seen:], "texts": got, "time": c.now, "since": since})
        seen = len(changes)
    for _, docs in scenario.objects:
        c.apply(list(docs))
    _kit_settle(c)
    point(0, ["objects"])
    for chunk, wait in _points(scenario):
        if anchor is None or wait is None:
            anchor = c.now
        for step in chunk:
            ACTIONS[step.action](c, step, scenario)
        if wait is None:
            _kit_settle(c)
            anchor = None
            point(chunk[-1].number if chunk else run.points[-1]["step"], [s.action for s in chunk] or ["run"])
        else:  # the whole controller runs while time passes, as on the real control plane
            until = (c.now + wait.args["seconds"]) if wait.action == "advance" else wait.args["until"]
            c.run(None, until=until)
            if c.now < until:  # run stops at its last event before *until*; the clock reaches it
                c.advance(until - c.now)
            point(wait.number, [s.action for s in chunk] + [wait.action], since=c.now - anchor)
    run.pod_changes = pod_changes_kit(c.trace)
    run.trace = c.trace
    run.cluster = c
    return run


def _kit_settle(c) -> None:
    c.run(None)  # the whole controller (informers, queue, every set), until nothing is queued or scheduled


# ================================================================ the live side

def _ready_since(pod: dict) -> float | None:
    """When the pod's Ready condition turned True (epoch seconds), or None if it is not Ready."""
    import calendar
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "Ready" and c.get("status") == "True":
            when = c.get("lastTransitionTime")
            if isinstance(when, str):
                return calendar.timegm(time.strptime(when[:19], "%Y-%m-%dT%H:%M:%S"))
            return when.timestamp() if when is not None else 0.0
    return None


KUBECTL_TIMEOUT = 60
"""Seconds one kubectl command of a live session may take."""


class LiveSession:
    """One namespace of a real cluster, recorded, with the kit's kubelet unless *kubelet* is False.

    *kubelet* ``"kwok"`` runs the pods with KWOK instead (:mod:`.kwok`: a node of its own, the kit
    binding pods and claims as a scheduler and a provisioner would); *stages* are its delays too.

    *kubeconfig*/*context* name the cluster (``None``: ``$KUBECONFIG`` / ``~/.kube/config``).
    *namespace* None makes a new ``stsedu-live-xxxxxx`` namespace and deletes it at the end.
    """

    def __init__(self, kubeconfig: str | None = None, context: str | None = None, namespace: str | None = None,
                 kubelet: bool | str = True, stages=None) -> None:
        from .client import api_client
        self.kubeconfig, self.context = kubeconfig, context
        self.api = api_client(kubeconfig, context)
        self.own_namespace = namespace is None
        self.namespace = namespace or f"{RUN_PREFIX}{secrets.token_hex(3)}"
        self.kubelet_mode = "auto" if kubelet is True else kubelet
        self.stages = stages
        self.kubelet = None
        self.kwok = None
        self.recorder = None

    def __enter__(self) -> "LiveSession":
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException
        from .kubelet import APIKubelet
        from .recorder import Recorder
        core = client.CoreV1Api(self.api)
        try:
            if self.own_namespace:
                core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=self.namespace)))
            deadline = time.monotonic() + 60
            while True:  # without the default ServiceAccount every pod create is refused
                try:
                    core.read_namespaced_service_account("default", self.namespace)
                    break
                except ApiException as e:
                    if e.status != 404 or time.monotonic() > deadline:
                        raise
                time.sleep(0.2)
        except ApiException as e:
            raise LiveUnavailable(f"cannot prepare namespace {self.namespace}: {e.status} {e.reason}") from None
        except LiveUnavailable:  # a timeout, named by the client
            raise
        except Exception as e:  # noqa: BLE001 - connection refused, bad certificate, ...
            raise LiveUnavailable(f"cannot reach the cluster: {type(e).__name__}: {str(e)[:200]}") from None
        self.recorder = Recorder(self.api, self.namespace).start()
        if self.kubelet_mode == "kwok":
            from ..sim.kubelet import StageProfile
            from .kwok import KwokKubelet
            try:
                self.kwok = KwokKubelet(self.api, self.kubeconfig or os.path.expanduser(
                    os.environ.get("KUBECONFIG") or "~/.kube/config"), self.namespace, self.stages or StageProfile(),
                    self.context).start()
            except BaseException:
                self._close()
                raise
            self.kubelet = APIKubelet(self.api, self.namespace, mode="schedule", node=self.kwok.node).watch()
        elif self.kubelet_mode:
            self.kubelet = APIKubelet(self.api, self.namespace, self.stages, mode=self.kubelet_mode).watch()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._close()
        finally:
            if self.kwok is not None:
                self.kwok.stop()

    def _close(self) -> None:
        if self.kubelet is not None:
            self.kubelet.stop()
        if self.recorder is not None:
            self.recorder.stop()
        if self.own_namespace:
            from kubernetes import client
            core = client.CoreV1Api(self.api)
            try:
                core.delete_namespace(self.namespace)
                if self.kubelet_mode:  # no kubelet will finish the pods: remove them as it would
                    core.delete_collection_namespaced_pod(self.namespace, grace_period_seconds=0)
            except Exception:  # noqa: BLE001 - best effort; the namespace holds only this run
                pass

    # ------------------------------------------------------------ kubectl
    def kubectl(self, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        cmd = [find_kubectl()]
        if self.kubeconfig:
            cmd += ["--kubeconfig", self.kubeconfig]
        if self.context:
            cmd += ["--context", self.context]
        cmd += ["-n", self.namespace, *args]
        try:
            proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=KUBECTL_TIMEOUT,
                                  env={**os.environ, "KUBECTL_INTERACTIVE_DELETE": "false"})
        except subprocess.TimeoutExpired:
            raise LiveUnavailable(f"kubectl {' '.join(args)[:200]} did not finish within {KUBECTL_TIMEOUT} s") from None
        if check and proc.returncode != 0:
            raise LiveUnavailable(f"kubectl {' '.join(args)} failed: {proc.stderr.strip()[:300]}")
        return proc

    # ------------------------------------------------------------ observing
    def pods_table(self) -> str:
        """``kubectl get pods`` as the API server prints it (kubectl's table comes from the server:
        ``printPod`` runs there), in one request: for a point in time, where starting kubectl itself
        takes longer than the state lasts."""
        request = self.api.param_serialize(
            "GET", f"/api/v1/namespaces/{self.namespace}/pods",
            header_params={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, auth_settings=["BearerToken"])
        resp = self.api.call_api(*request, _request_timeout=30)
        table = json.loads(resp.read())
        shown = [i for i, c in enumerate(table.get("columnDefinitions") or ()) if not c.get("priority")]
        if not table.get("rows"):
            return "No resources found in {} namespace.\n".format(self.namespace)
        rows = [[table["columnDefinitions"][i]["name"].upper() for i in shown]]
        rows += [[str(r["cells"][i]) for i in shown] for r in table["rows"]]
        return "".join("   ".join(r) + "\n" for r in rows)

    def objects(self) -> dict[str, list[dict]]:
        from kubernetes import client
        core, apps = client.CoreV1Api(self.api), client.AppsV1Api(self.api)
        san = self.api.sanitize_for_serialization
        ns = self.namespace
        return {"Pod": san(core.list_namespaced_pod(ns).items),
                "PersistentVolumeClaim": san(core.list_namespaced_persistent_volume_claim(ns).items),
                "ControllerRevision": san(apps.list_namespaced_controller_revision(ns).items),
                "StatefulSet": san(apps.list_namespaced_stateful_set(ns).items)}

    def wait_stable(self, timeout: float = 120.0, quiet: float = QUIET) -> bool:
        """Wait until no write for *quiet* seconds, no kubelet timer pending, every set's status
        observed its generation and no Ready pod is still waiting out minReadySeconds. True if reached."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.2)
            last = max((e[1] for e in self.recorder.events), default=0.0)
            if self.recorder.now() - last < quiet:
                continue
            if self.kubelet is not None and self.kubelet.pending():
                continue
            objs = self.objects()
            settled = True
            if self.kubelet is not None and self.kubelet.mode in ("auto", "schedule"):
                for p in objs["Pod"]:  # the kubelet moves these on: its watch may not have seen them yet
                    if (not (p.get("spec") or {}).get("nodeName") or p["metadata"].get("deletionTimestamp")
                            or (p.get("status") or {}).get("phase", "Pending") == "Pending"
                            or (self.kwok is not None and _ready_since(p) is None)):  # KWOK's timers are its own
                        settled = False
            now = time.time()
            for s in objs["StatefulSet"]:
                st = s.get("status") or {}
                if s["metadata"].get("deletionTimestamp"):
                    continue
                mine = [p for p in objs["Pod"] if any(r.get("controller") and r.get("name") == s["metadata"]["name"]
                                                      for r in p["metadata"].get("ownerReferences") or ())]
                ready_since = [_ready_since(p) for p in mine]
                min_ready = (s.get("spec") or {}).get("minReadySeconds") or 0
                if any(t is not None and now - t < min_ready + REQUEUE_SLACK for t in ready_since):
                    settled = False  # the controller requeues when minReadySeconds have passed
                if mine and all(t is not None for t in ready_since) and len(mine) != (s.get("spec") or {}).get("replicas", 1):
                    settled = False  # every pod healthy, yet not as many as wanted: the controller is due
                if (st.get("observedGeneration") or 0) < s["metadata"].get("generation", 0):
                    settled = False
                if (st.get("availableReplicas") or 0) < (st.get("readyReplicas") or 0) and \
                        (s.get("spec") or {}).get("minReadySeconds"):
                    settled = False
            if settled:
                return True
        return False

    # ------------------------------------------------------------ the user's changes
    def apply(self, docs: list[dict]) -> None:
        for d in docs:
            d = json.loads(json.dumps(d))
            d.setdefault("metadata", {}).pop("namespace", None)
            self.kubectl("apply", "-f", "-", stdin=json.dumps(d))

    def _own_kubelet(self) -> str:
        """Why a step of the kit's kubelet is skipped: the pods are another kubelet's."""
        if self.kwok is not None:
            return "KWOK runs the pods: it has no such verb (docs/live.md, KWOK as the kubelet)"
        return "the cluster's own kubelet runs the pods"

    def step(self, step, set_name: str) -> str | None:
        """Carry out one change step; returns None, or why it was skipped."""
        a, args = step.action, step.args
        name = step.set_name or set_name
        rec = self.recorder
        if a in LIVE_SKIPPED:
            return LIVE_SKIPPED[a]
        if a == "apply":
            for _, docs in args["entries"]:
                self.apply(list(docs))
        elif a == "scale":
            self.kubectl("scale", f"statefulset/{name}", f"--replicas={args['replicas']}")
        elif a == "patch":
            self.kubectl("patch", f"statefulset/{name}", "--type", "merge", "-p", json.dumps(args["patch"]))
        elif a == "set_image":
            self.kubectl("set", "image", f"statefulset/{name}", f"{args['container'] or '*'}={args['image']}")
        elif a == "delete_pod":
            self.kubectl("delete", "pod", *args["pods"], "--wait=false")  # one command: deleted together
        elif a == "patch_pod":
            self.kubectl("patch", "pod", args["pod"], "--type", "merge", "-p", json.dumps(args["patch"]))
        elif a == "delete":
            self.kubectl("delete", f"statefulset/{name}", f"--cascade={args['cascade']}", "--wait=false")
        elif a == "rollout_undo":
            extra = [f"--to-revision={args['to_revision']}"] if args.get("to_revision") else []
            self.kubectl("rollout", "undo", f"statefulset/{name}", *extra)
        elif a in ("start", "set_ready", "set_unready", "fail", "crash", "restart", "finish_termination", "succeed",
                   "shut_down_node", "evict"):
            if self.kubelet is None or self.kwok is not None:
                return self._own_kubelet()
            extra = {"resource": args["resource"]} if a == "evict" and args.get("resource") else {}
            for p in args["pods"]:
                getattr(self.kubelet, a)(p, **extra)
        elif a in ("crash_loop", "fail_after"):
            if self.kubelet is None or self.kwok is not None:
                return self._own_kubelet()
            self.kubelet.crash_loop(args["seconds"], pod=args.get("pod"), image=args.get("image"))
        elif a == "never_ready":
            if self.kubelet is None or self.kwok is not None:
                return self._own_kubelet()
            self.kubelet.never_ready(pod=args.get("pod"), image=args.get("image"))
        elif a == "clear_behaviours":
            if self.kubelet is not None:
                self.kubelet.clear_behaviours()
        else:
            return f"stsedu live cannot play a {a!r} step"
        if rec is not None:
            rec.note(f"user: {a} {json.dumps(args, default=str, sort_keys=True)[:120]}")
        return None


def play(scenario, session: LiveSession, timeout: float = 120.0, texts: bool = True, kit: Run | None = None) -> Run:
    """The scenario on a live session, stable point by stable point (see the module's docstring).

    A :func:`timed` scenario's points in time are taken at the kit's times (*kit*, the same scenario
    played by :func:`play_kit`; played here when not given); a wait for stability gets *timeout*
    plus the simulated seconds the kit needed to get there."""
    if timed(scenario) and kit is None:
        kit = play_kit(scenario, texts=False)
    kit_points = kit.points if kit is not None else []
    run = Run()
    mark = 0
    anchor = chain = None

    def point(step, actions, since=None):
        nonlocal mark
        if since is None:
            objs = session.objects()
            got = live_texts(session, scenario.set_name) if texts else {}
        else:  # a point in time: what changes by the second first, in one request each
            got = {"get pods": session.pods_table()} if texts else {}
            objs = session.objects()
        evs = session.recorder.ordered()
        new_mark = max((e[0] for e in evs), default=0)
        changes = [("create" if t == "ADDED" else "delete", o["metadata"]["name"]) for rv, _, t, k, o in evs
                   if k == "Pod" and t in ("ADDED", "DELETED") and mark < rv <= new_mark]
        mark = new_mark
        run.points.append({"step": step, "actions": actions, "observed": observe(objs), "changes": changes,
                           "stable": stable, "texts": got, "namespace": session.namespace, "since": since})

    def kit_elapsed() -> float:
        n = len(run.points)
        if 0 < n < len(kit_points):
            return max(0.0, (kit_points[n].get("time") or 0) - (kit_points[n - 1].get("time") or 0))
        return 0.0
    for _, docs in scenario.objects:
        session.apply(list(docs))
    def settled_point(step, actions):
        point(step, actions)
        if texts and len(run.points) <= len(kit_points):
            _await_events(session, scenario.set_name, kit_points[len(run.points) - 1], run.points[-1])
    stable = session.wait_stable(timeout)
    settled_point(0, ["objects"])
    for chunk, wait in _points(scenario):
        fresh = anchor is None or wait is None
        if fresh:
            anchor = time.time()
        for step in chunk:
            try:
                why = session.step(step, scenario.set_name)
            except Exception as e:  # noqa: BLE001 - the kit carried the step out; the live cluster refused it
                run.failed.append(f"step {step.number} ({step.action}) failed live: {type(e).__name__}: "
                                  f"{str(e).splitlines()[0][:200]}")
                continue
            if why:
                run.skipped.append(f"step {step.number} ({step.action}): {why}")
        if fresh:  # the kubelet's timers count from the steps as they ran here, however long they took
            chain = time.time()
        if wait is None:
            stable = session.wait_stable(timeout + kit_elapsed())
            anchor = None
            settled_point(chunk[-1].number if chunk else run.points[-1]["step"], [s.action for s in chunk] or ["run"])
        else:
            want = kit_points[len(run.points)] if len(run.points) < len(kit_points) else {"since": 0.0}
            since = want["since"]
            time.sleep(max(0.0, anchor + since + LAG - time.time()))
            due = anchor + since
            if session.kubelet is not None:  # its stages due by then written, however late (DUE_WAIT)
                before = time.time()
                session.kubelet.wait_due(chain + since, DUE_WAIT)
                due += time.time() - before  # what the controller makes of a late write, read as late
            stable = True
            point(wait.number, [s.action for s in chunk] + [wait.action], since=since)
            while not _agrees_in_time(want, run.points[-1]) and time.time() < due + LAG + SLACK:
                early = run.points.pop()  # read again: the cluster may be running late (SLACK)
                time.sleep(0.1)
                point(wait.number, [s.action for s in chunk] + [wait.action], since=since)
                run.points[-1]["changes"][:0] = early["changes"]
    run.trace = session.recorder.trace({"scenario": scenario.name})
    run.writes = session.recorder.writes()
    run.pod_changes = [("create" if v == "create" else "delete", n) for v, k, n, _ in run.writes
                       if k == "Pod" and v in ("create", "delete")]
    return run


def _await_events(session, set_name: str, kit_point: dict, live_point: dict) -> None:
    """Read ``describe`` again, for up to :data:`EVENT_SLACK` seconds, until *live_point* lists the events
    *kit_point* lists (the events are posted after the writes they tell of)."""
    name = "describe sts: events"
    want, got = kit_point.get("texts") or {}, live_point["texts"]
    if want.get(name) is None or got.get(name) is None:
        return
    deadline = time.time() + EVENT_SLACK
    while not same_events(want[name], got[name], live_point["namespace"]) and time.time() < deadline:
        time.sleep(0.5)
        got.update(describe_parts(session.kubectl("describe", f"statefulset/{set_name}", check=False).stdout))


def _agrees_in_time(kit_point: dict, live_point: dict) -> bool:
    """True if a live point in time shows what the kit's shows (its pods and ``kubectl get pods``)."""
    if "observed" not in kit_point:
        return True
    if kit_point["observed"]["pods"] != live_point["observed"]["pods"]:
        return False
    a, b = kit_point["texts"].get("get pods"), live_point["texts"].get("get pods")
    return a is None or b is None or normalise(a) == normalise(b, live_point["namespace"])


def order_free(scenario) -> dict[str, bool]:
    """:func:`differences`' *parallel* and *recreate* for *scenario*: a set of podManagementPolicy Parallel,
    a set of updateStrategy Recreate (recreateDeleteAndWait deletes the old pods through slowStartBatch:
    one, then the rest from goroutines)."""
    specs = [d.get("spec") or {} for _, docs in scenario.objects for d in docs if d.get("kind") == "StatefulSet"]
    return {"parallel": any(s.get("podManagementPolicy") == "Parallel" for s in specs),
            "recreate": any((s.get("updateStrategy") or {}).get("type") == "Recreate" for s in specs)}


def _deletes_as_sets(changes: list) -> list:
    """*changes* with each run of consecutive deletes sorted (deletes issued together, in no defined order)."""
    from itertools import groupby
    return [c for verb, run in groupby(changes, key=lambda c: c[0]) for c in (sorted(run) if verb == "delete" else run)]


def differences(kit: Run, live: Run, parallel: bool = False, recreate: bool = False) -> list[str]:
    """Where a learner would see the two runs differ; [] when they agree.

    Between two stable points the pod creates and deletes must come in the same order; with
    *parallel* (podManagementPolicy Parallel, whose creates and deletes upstream issues from
    goroutines) as the same set; with *recreate* each run of deletes as a set (:func:`order_free`).
    """
    out = list(live.failed)
    for k, l in zip(kit.points, live.points):
        kc, lc = k["changes"], l["changes"]
        if recreate:
            kc, lc = _deletes_as_sets(kc), _deletes_as_sets(lc)
        # the garbage collector deletes a deleted set's pods from several workers: in no defined order
        unordered = parallel or "delete" in k["actions"]
        if (sorted(kc) != sorted(lc)) if unordered else (kc != lc):
            out.append(f"pod creates/deletes up to step {k['step']}: kit {kc} live {lc}")
        if not l.get("stable", True):
            out.append(f"after step {l['step']}: the live run did not settle")
        if k.get("texts") and l.get("texts"):
            out += [f"after step {k['step']}: {d}" for d in text_differences(k["texts"], l["texts"], l["namespace"])]
        for part in ("pods", "pvcs", "revisions", "sets"):
            if k["observed"][part] != l["observed"][part]:
                out.append(f"after step {k['step']} ({'+'.join(k['actions'])}): {part}: "
                           f"kit {k['observed'][part]} live {l['observed'][part]}")
    if len(kit.points) != len(live.points):
        out.append(f"stable points: kit {len(kit.points)}, live {len(live.points)}")
    return out
