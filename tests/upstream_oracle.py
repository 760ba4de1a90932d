"""The real controller as an oracle: build, run and compare against tests/upstream (Go).

tests/upstream/ is a small Go program that runs one sync of ``k8s.io/kubernetes``'s StatefulSet
controller code over client-go's fake clientset (see tests/upstream/main.go). For ``current``
(v1.37.2) it is built in the control plane's module (``stsedu/live/controlplane/go.mod``), so the
oracle and ``stsedu live`` share one set of versions and every compiled package; ``v136/go.mod``
pins v1.36.3 and ``v116/`` holds v1.16.15's own program and module.  This module builds that program
into a cache directory, talks to it (one JSON line per request and per answer) and
compares one stsedu sync with the real code's sync of the very same objects.

How one comparison works (:func:`checked_sync`): take ``cluster.dump()`` and the pending
injected errors, let the kit sync, send the same objects, clock and errors to the oracle,
then compare

* the API writes, in order: creates, updates, patches and deletes of pods, claims,
  revisions and the status write, failed ones included (for ``Parallel`` sets, whose
  upstream writes run in goroutines, as a sorted list);
* every object after the sync (docs/upstream-oracle.md lists the fields), the set's status
  with its conditions;
* the events the controller recorded, the requeue ``syncStatefulSet`` plans and whether the
  sync failed.

The kit's world around the controller (its kubelet, its garbage collector, the clock)
is not compared: every sync starts both from the kit's objects.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent / "upstream"
# the control plane's module: the current oracle is built with its go.mod and go.sum
CONTROL_PLANE_MODULE = Path(__file__).resolve().parent.parent / "stsedu" / "live" / "controlplane"

PROFILES = {
    # profile -> (k8s.io/kubernetes version, directory of its go.mod/go.sum)
    "current": ("v1.37.2", CONTROL_PLANE_MODULE),
    "v1.36": ("v1.36.3", HERE / "v136"),
    # its own main.go (v1.16's API differs) and a stub module for vbom.ml/util (docs/profiles.md)
    "v1.16": ("v1.16.15", HERE / "v116"),
}


def _sources(profile: str) -> list[Path]:
    """The files the build of *profile* copies: its Go files (the profile's own main.go if it has one),
    go.mod, go.sum, and the local stub modules its go.mod replaces unreachable ones with."""
    _, moddir = PROFILES[profile]
    # protocol.go (the protocol, shared by every release) with the profile's own main.go (its
    # sync), else the program of today's API: protocol.go, main.go (the sync) and timing.go
    # (benchmarks/run.py's timing mode)
    own = moddir / "main.go"
    go = [HERE / "protocol.go", HERE / "serial.go", own] if own.exists() else sorted(HERE.glob("*.go"))
    stubs = sorted(p for p in (moddir / "stubs").rglob("*") if p.is_file()) if (moddir / "stubs").is_dir() else []
    return [*go, moddir / "go.mod", moddir / "go.sum", *stubs]


class OracleUnavailable(Exception):
    """Go is missing or the oracle cannot be built; the message says why, in one line."""


def _go_helpers():
    """stsedu/live/build.py, loaded by path: the kit's one way to find Go and a cache folder
    (standard library only; .ci/run imports this module with a python3 that has no pandas, so
    ``import stsedu`` is not possible here)."""
    spec = importlib.util.spec_from_file_location(
        "stsedu_live_build", Path(__file__).resolve().parent.parent / "stsedu" / "live" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GO = _go_helpers()


def go_binary() -> str | None:
    return _GO.go_binary()


def cache_dir() -> Path:
    return _GO.cache_folder("STSEDU_ORACLE_CACHE", "stsedu-oracle")


def _source_key(profile: str) -> str:
    h = hashlib.sha256()
    for f in _sources(profile):
        h.update(f.read_bytes())
    h.update(" ".join(_GO.go_build_command("go", "out")).encode())  # the flags too
    return h.hexdigest()[:16]


def binary_path(profile: str) -> Path:
    return cache_dir() / f"stsedu-oracle-{profile}-{_source_key(profile)}"


def build(profile: str = "current") -> Path:
    """Build the oracle for *profile* if it is not in the cache yet; return its path.

    Raise :class:`OracleUnavailable` without Go or when the build fails.
    """
    target = binary_path(profile)
    if target.exists():
        return target
    go = go_binary()
    if go is None:
        raise OracleUnavailable("Go is not installed (need go >= 1.26 on PATH or /usr/local/go/bin/go)")
    _, moddir = PROFILES[profile]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="stsedu-oracle-") as tmp:
        for f in _sources(profile):
            dest = Path(tmp) / (f.relative_to(moddir) if f.is_relative_to(moddir / "stubs") else f.name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, dest)
        env = dict(os.environ)
        env.setdefault("GOFLAGS", "-mod=mod")
        partial = str(target) + ".partial"
        proc = subprocess.run(_GO.go_build_command(go, partial), cwd=tmp, env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise OracleUnavailable(f"building the {profile} oracle failed: " + " | ".join(tail))
        os.replace(partial, target)
    for old in target.parent.glob(f"stsedu-oracle-{profile}-*"):  # builds of older sources
        if old != target and not old.name.endswith(".partial"):
            old.unlink(missing_ok=True)
    return target


CALL_READER = HERE / "callseq" / "main.go"
"""The reading test's Go program (standard library only): the calls each upstream function makes."""


def build_call_reader() -> Path:
    """Build tests/upstream/callseq/main.go into the cache if it is not there yet; return its path.

    It needs no module, so no proxy: a `go build` of one file of the standard library.  Raise
    :class:`OracleUnavailable` without Go or when the build fails."""
    h = hashlib.sha256(CALL_READER.read_bytes())
    command = _GO.go_build_command("go", "out", "main.go", ldflags="-s -w")
    h.update(" ".join(command).encode())
    target = cache_dir() / f"stsedu-callseq-{h.hexdigest()[:16]}"
    if target.exists():
        return target
    go = go_binary()
    if go is None:
        raise OracleUnavailable("Go is not installed (need go >= 1.26 on PATH or /usr/local/go/bin/go)")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = f"{target}.{os.getpid()}.partial"  # two test workers may build it at once
    with tempfile.TemporaryDirectory(prefix="stsedu-callseq-") as tmp:
        shutil.copy(CALL_READER, Path(tmp) / "main.go")
        env = dict(os.environ, GOFLAGS="")  # outside any module: the oracle's -mod=mod does not apply
        proc = subprocess.run(_GO.go_build_command(go, partial, "main.go", ldflags="-s -w"), cwd=tmp, env=env,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise OracleUnavailable("building the call reader failed: " + " | ".join(tail))
    os.replace(partial, target)
    for old in target.parent.glob("stsedu-callseq-*"):  # builds of older sources
        if old != target and not old.name.endswith(".partial"):
            old.unlink(missing_ok=True)
    return target


class Oracle:
    """A running oracle process (one per profile and test session)."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self.proc = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.hello = self.call({"op": "hello"})

    def call(self, request: dict) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the oracle {self.path} stopped")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)

    def sync(self, name: str, objects: dict, now: float, faults, gates: dict,
             namespace: str = "default", conflicts: bool = False, pod_order=()) -> dict:
        answer = self.call({"op": "sync", "name": name, "namespace": namespace, "now": now,
                            "objects": objects, "gates": gates, "conflicts": conflicts,
                            "pod_order": list(pod_order),
                            "faults": [{"verb": v, "kind": k, "after": a, "count": c, "reason": r}
                                       for v, k, a, c, r in faults]})
        if not answer.get("ok"):
            raise RuntimeError(f"oracle problem: {answer.get('problem')}")
        return answer


# ------------------------------------------------------------------ comparison

UPSTREAM_GATES = ("MaxUnavailableStatefulSet", "StatefulSetRecreateStrategy")

_WRITE_OF = {  # kit decision action -> (verb, kind); target names the object unless it is the pod
    "create": ("create", "Pod"),
    "delete": ("delete", "Pod"),
    "update": ("update", "Pod"),
    "create-pvc": ("create", "PersistentVolumeClaim"),
    "update-pvc": ("update", "PersistentVolumeClaim"),
    "create-revision": ("create", "ControllerRevision"),
    "update-revision": ("update", "ControllerRevision"),
    "delete-revision": ("delete", "ControllerRevision"),
    "release": ("patch", "Pod"),
    "status": ("update", "StatefulSet"),
}


_PROBES = {"reuse-revision"}  # a create answered AlreadyExists, as CreateControllerRevision expects


def kit_writes(result, set_name: str) -> list[tuple]:
    """The API requests one kit sync made, in order: (verb, kind, name, failed).

    A request retried on Conflict (``retry.RetryOnConflict``) appears once per attempt; the
    create ``CreateControllerRevision`` sends for a taken name counts as failed (AlreadyExists),
    as the oracle reports it."""
    out = []
    for d in result.decisions:
        if d.action == "adopt":
            verb_kind = ("patch", "Pod") if d.pod else ("patch", "ControllerRevision")
        elif d.action in _PROBES:
            verb_kind = ("create", "ControllerRevision")
        else:
            verb_kind = _WRITE_OF.get(d.action)
        if verb_kind is None:
            continue
        if d.applied is None:  # a wait, or a row that failed before any request (a claim being deleted)
            continue
        verb, kind = verb_kind
        if kind == "StatefulSet":
            name = set_name
        elif kind == "Pod":
            # an update goes to the name updateIdentity gives (web-00 is written as web-0)
            name = d.payload.name if d.action == "update" and d.payload is not None else d.pod
        else:
            name = d.target
        probe = d.action in _PROBES or (d.action == "create-revision" and d.reason == "collision")
        if d.resent:  # UpdateStatefulPod: every request of its retries, in order
            out.extend(tuple(r) for r in d.resent)
            continue
        for _ in range(d.retries):
            out.append((verb, kind, name, True))
        out.append((verb, kind, name, d.error is not None or probe))
    return out


def oracle_writes(answer: dict, delete_ignores_not_found: bool = True) -> list[tuple]:
    """The oracle's requests as (verb, kind, name, failed).  A pod delete answered NotFound
    counts as done (``DeleteStatefulPod``; not in v1.16), so do a pod adoption or release
    answered NotFound and a release answered Invalid (``ClaimObject``, ``ReleasePod``)."""
    def ignored(w):
        reason = w.get("reason")
        if (w["verb"], w["kind"]) == ("delete", "Pod"):
            return reason == "NotFound" and delete_ignores_not_found
        if (w["verb"], w["kind"]) == ("patch", "Pod"):
            return reason == "NotFound" or (reason == "Invalid" and bool(w.get("release")))
        return False
    return [(w["verb"], w["kind"], w["name"], bool(w.get("error")) and not ignored(w))
            for w in answer["writes"]]


def canonical(writes: list[tuple]) -> list[tuple]:
    """Sort each run of consecutive claim creates by name; one entry for retried requests.

    Upstream retries a conflicting update (``retry.RetryOnConflict``) with the same
    stale object, so a failed request can repeat; the kit records it once.

    Upstream creates a pod's claims by ranging over a Go map
    (``getPersistentVolumeClaims``), so their order is random there; the kit uses the
    template order, one of the orders upstream can take.
    """
    out: list[tuple] = []
    run: list[tuple] = []
    for w in writes + [None]:
        if w is not None and w[:2] in (("create", "PersistentVolumeClaim"), ("patch", "ControllerRevision"),
                                       ("patch", "Pod")):
            run.append(w)
            continue
        if run and run[0][:2] == ("patch", "ControllerRevision") and any(w[3] for w in run):
            # AdoptOrphanRevisions stops at the first failure, and which revision comes first
            # is random upstream: compare how many were tried and how many failed
            run = [("patch", "ControllerRevision", f"{len(run)} orphan revision(s)",
                    sum(w[3] for w in run))]
        out.extend(sorted(run))
        run = []
        if w is not None and not (out and out[-1] == w and w[3]):
            out.append(w)
    return out


def _owners(meta: dict) -> tuple:
    return tuple(sorted((r.get("kind"), r.get("name"), bool(r.get("controller")))
                        for r in meta.get("ownerReferences") or ()))


_STATUS_KEYS = ("observedGeneration", "replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                "availableReplicas", "currentRevision", "updateRevision", "collisionCount")


def status_view(status: dict | None) -> dict | None:
    """Every status field, conditions too (without their times, which each side writes in its
    own clock format)."""
    if status is None:
        return None
    view = {k: status.get(k) or (0 if k not in ("currentRevision", "updateRevision") else "")
            for k in _STATUS_KEYS}
    view["conditions"] = sorted((c.get("type"), c.get("status"), c.get("reason") or "", c.get("message") or "")
                                for c in status.get("conditions") or ())
    return view


def _containers(spec: dict) -> list:
    return [(c.get("name"), c.get("image")) for c in spec.get("containers") or ()]


def _volumes(spec: dict) -> list:
    """The pod's volumes, sorted: ``updateStorage`` adds the claim volumes by ranging over a Go map."""
    out = []
    for v in spec.get("volumes") or ():
        source = {k: val for k, val in v.items() if k != "name"}
        out.append((v.get("name"), json.dumps(source, sort_keys=True)))
    return sorted(out)


def _data(rev: dict):
    data = rev.get("data")
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError:
            return data
    return data


def state_view(objects: dict, set_name: str, namespace: str = "default") -> dict:
    """What the controller decides, read from a dump's objects (the kit's or the oracle's)."""
    view: dict = {}
    for key, pod in sorted((objects.get("Pod") or {}).items()):
        meta, status, spec = pod["metadata"], pod.get("status") or {}, pod.get("spec") or {}
        labels = dict(meta.get("labels") or {})
        view[("Pod", meta["name"])] = {
            "revision": labels.get("controller-revision-hash"),
            "labels": labels,
            "owners": _owners(meta),
            "terminating": meta.get("deletionTimestamp") is not None,
            "phase": status.get("phase"),
            "volumes": _volumes(spec),
            "containers": _containers(spec),
            "hostname": spec.get("hostname"),
            "subdomain": spec.get("subdomain"),
        }
    for key, pvc in sorted((objects.get("PersistentVolumeClaim") or {}).items()):
        meta = pvc["metadata"]
        view[("PersistentVolumeClaim", meta["name"])] = {"owners": _owners(meta),
                                                         "labels": dict(meta.get("labels") or {})}
    for key, rev in sorted((objects.get("ControllerRevision") or {}).items()):
        meta = rev["metadata"]
        view[("ControllerRevision", meta["name"])] = {"revision": rev.get("revision"), "owners": _owners(meta),
                                                      "labels": dict(meta.get("labels") or {}),
                                                      "data": _data(rev)}
    for key, sts in sorted((objects.get("StatefulSet") or {}).items()):
        meta = sts["metadata"]
        view[("StatefulSet", meta["name"])] = {"status": status_view(sts.get("status")),
                                               "owners": _owners(meta)}
    return view


_CONTROLLER_EVENT = ("Successful", "Failed")


def collected_pods(rows: list[tuple]) -> set:
    """The view keys of the pods the kit's garbage collector deleted, from trace event rows."""
    return {("Pod", obj.split("/", 1)[1]) for _, _, _, reason, obj, _ in rows
            if reason == "GarbageCollected" and obj.startswith("pod/")}


def kit_events(rows: list[tuple], set_name: str) -> list[tuple]:
    """(type, reason, message) of the events the kit's controller recorded on the set: the
    ones upstream's ``StatefulPodControl`` records (``recordPodEvent``, ``recordClaimEvent``,
    ConflictingController, UnknownStrategy); the kit's own notes on revisions and its world's events
    are not upstream's."""
    return [(t, reason, msg) for _, _, t, reason, obj, msg in rows
            if obj == f"statefulset/{set_name}"
            and (reason.startswith(_CONTROLLER_EVENT)
                 or reason in ("ConflictingController", "RecreatingFailedPod", "UnknownStrategy"))]


def oracle_events(answer: dict) -> list[tuple]:
    return [(e["type"], e["reason"], e["message"]) for e in answer.get("events") or ()]


def diff_views(kit: dict, oracle: dict) -> list[str]:
    out = []
    for key in sorted(set(kit) | set(oracle), key=str):
        a, b = kit.get(key), oracle.get(key)
        if a == b:
            continue
        if a is None or b is None:
            out.append(f"{key[0]} {key[1]}: {'only upstream has it' if a is None else 'only the kit has it'}")
            continue
        for field in sorted(set(a) | set(b)):
            if a.get(field) != b.get(field):
                out.append(f"{key[0]} {key[1]}.{field}: kit {a.get(field)!r} != upstream {b.get(field)!r}")
    return out


def orphan_revisions(objects: dict, set_name: str, namespace: str = "default") -> set:
    """The view keys of the revisions ``adoptOrphanRevisions`` would try to adopt for the set, from a
    dump's objects: in its namespace, its selector matching, no controller owner."""
    from stsedu.api.objects import selector_matches  # lazily: .ci/run imports this module without stsedu
    sts = (objects.get("StatefulSet") or {}).get(f"{namespace}/{set_name}")
    if sts is None:
        return set()
    selector = (sts.get("spec") or {}).get("selector") or {}
    out = set()
    for rev in (objects.get("ControllerRevision") or {}).values():
        meta = rev["metadata"]
        if (meta.get("namespace") or "default") == namespace \
                and not any(r.get("controller") for r in meta.get("ownerReferences") or ()) \
                and selector_matches(selector, meta.get("labels") or {}):
            out.add(("ControllerRevision", meta["name"]))
    return out


REFUSED = "attempt to adopt revision owned by"  # v1.16's AdoptControllerRevision, for a revision with a controller


def fold_random_adoptions(kit: dict, oracle: dict, before: dict, orphans: set, kit_raw: list,
                          any_count: bool = False) -> list[str]:
    """Compare the owners of *orphans* as upstream's set of possible outcomes of a failed adoption run.

    ``AdoptOrphanRevisions`` adopts the orphan revisions one by one and stops at the first failure;
    their order comes from the lister's index (a Go map), so which ones were adopted before the
    failure is random upstream: any of them, as many as upstream adopted.  So each orphan's owners
    become what the sync changed (nothing, or the owner refs the adoption added), and those changes
    are compared as a sorted list; every other field is still compared by name.  A revision the kit
    patched that is not an orphan of the set is a difference (upstream could never have tried it).
    *kit* and *oracle* are the views after the sync (changed in place), *before* the kit's before it.
    With *any_count* (v1.16's run, which ends at the set's own first revision) each side may have
    adopted any number of the orphans: each change need only be none or the one adoption.
    """
    problems = [f"ControllerRevision {n}: the kit tried to adopt it, but it is no orphan of the set"
                for verb, kind, n, _ in kit_raw
                if (verb, kind) == ("patch", "ControllerRevision") and (kind, n) not in orphans]

    def change(view: dict, key) -> tuple:
        owners = list(view[key]["owners"])
        for ref in before[key]["owners"] if key in before else ():
            if ref in owners:
                owners.remove(ref)
        return tuple(owners)  # () if unchanged (or owners removed: compared by name below)

    shared = sorted(k for k in orphans if k in kit and k in oracle and k in before)
    kit_changes = sorted(change(kit, k) for k in shared)
    oracle_changes = sorted(change(oracle, k) for k in shared)
    if any_count:
        allowed = {c for c in kit_changes + oracle_changes if c}
        if len(allowed) > 1:
            problems.append(f"orphan revisions adopted before the failure: kit {kit_changes} != upstream "
                            f"{oracle_changes} (each adoption must add the same owner)")
    elif kit_changes != oracle_changes:
        problems.append(f"orphan revisions adopted before the failure: kit {kit_changes} != upstream {oracle_changes}")
    for k in shared:
        if all(ref in kit[k]["owners"] for ref in before[k]["owners"]) \
                and all(ref in oracle[k]["owners"] for ref in before[k]["owners"]):
            kit[k] = dict(kit[k], owners=None)
            oracle[k] = dict(oracle[k], owners=None)
    return problems


class Mismatch(AssertionError):
    pass


_AGGREGATE = re.compile(r"^(.* failed error: )\[(failed to create PVC .*|pvc .*)\]$")


def _aggregate_sorted(message: str) -> str:
    """An aggregated error (``errorutils.NewAggregate``) with its parts sorted: a pod's claims are
    tried in Go map order, so the order of the parts is random upstream."""
    m = _AGGREGATE.match(message)
    if not m:
        return message
    parts = re.split(r", (?=failed to create PVC |pvc )", m.group(2))
    return m.group(1) + "[" + ", ".join(sorted(parts)) + "]"


def _events_canonical(events: list[tuple], parallel: bool) -> list[tuple]:
    """Events in a comparable order: Parallel pod work runs in goroutines upstream (sorted
    then), and a pod's claims are created in Go map order (each run of claim events sorted,
    and the parts of an aggregated error)."""
    events = [(t, reason, _aggregate_sorted(msg)) for t, reason, msg in events]
    if parallel:
        return sorted(events)
    out, run = [], []
    for e in events + [None]:
        if e is not None and " Claim " in e[2] and e[1].endswith("Create"):
            run.append(e)
            continue
        out.extend(sorted(run))
        run = []
        if e is not None:
            out.append(e)
    return out


def checked_sync(cluster, oracle: Oracle, name: str, namespace: str = "default", log: list | None = None,
                 conflicts: bool = False):
    """One kit sync, compared with the real controller's sync of the same objects.

    Compared: the API requests (in order; sorted for Parallel sets), every object after the
    sync, the events the controller recorded, the requeue ``syncStatefulSet`` plans and whether
    the sync failed."""
    before = cluster.dump()["objects"]
    pod_order = [p.name for p in cluster.store.list("Pod", namespace)]  # the kit's list order
    now = cluster.now
    faults = cluster.pending_errors()
    gates = {g: bool(cluster.feature_gates.get(g, False)) for g in UPSTREAM_GATES
             if g != "StatefulSetRecreateStrategy" or g in cluster.profile.known_gates}  # v1.37 on
    n_events = len(cluster.trace.rows()["events"])
    from stsedu.controller.stateful_pod_control import ClusterObjects
    ClusterObjects.stale_cache = conflicts  # the fake clientset checks resourceVersions only if asked
    try:
        result = cluster.sync(name, namespace)
    finally:
        ClusterObjects.stale_cache = True
    events = cluster.trace.rows()["events"][n_events:]
    after = cluster.dump()["objects"]
    answer = oracle.sync(name, before, now, faults, gates, namespace, conflicts=conflicts, pod_order=pod_order)
    sts = (before.get("StatefulSet") or {}).get(f"{namespace}/{name}") or {}
    parallel = (sts.get("spec") or {}).get("podManagementPolicy") == "Parallel"
    # recreateDeleteAndWait deletes in goroutines (runForAll in burst mode) whatever the policy
    parallel = parallel or any(d.step == "recreate" for d in result.decisions)
    problems = []
    if answer.get("unordered"):  # tests/upstream/serial.go could not keep a batch's goroutines in order
        problems.append("the oracle ran a Parallel batch's goroutines out of order (a wait timed out)")
    kit_raw, oracle_raw = kit_writes(result, name), oracle_writes(answer, cluster.profile.delete_ignores_not_found)
    kw, ow = canonical(kit_raw), canonical(oracle_raw)
    # v1.16 hands the set's own revisions to AdoptOrphanRevisions too and fails at the first one:
    # how many orphans the lister's (random) order put before it is random, none to all
    refused = all(REFUSED in (e or "") for e in (result.error, answer.get("error")))
    if refused:
        kw, ow = ([w for w in ws if w[:2] != ("patch", "ControllerRevision")] for ws in (kw, ow))
    if parallel:
        kw, ow = sorted(kw), sorted(ow)
    if kw != ow:
        problems.append(f"writes differ:\n    kit:      {kw}\n    upstream: {ow}")
    kv, ov = state_view(after, name, namespace), state_view(answer["objects"], name, namespace)
    # Every object is compared.  Objects no request of either side touched are taken as the
    # kit had them before the sync: what the kit's world did meanwhile (its garbage collector,
    # woken by a pod the sync removed, which the fake clientset lacks) is not the controller's.
    # An object only upstream still has is that collector at work too, unless the kit's
    # controller deleted it (then the writes differ as well).
    # (by the requests' own names: canonical() folds a run of revision adoptions into counts)
    touched = {(w[1], w[2]) for w in kit_raw + oracle_raw} | {("StatefulSet", name)}
    kb = state_view(before, name, namespace)
    for key in set(kv) | set(kb):
        if key not in touched:
            if key in kb:
                kv[key] = kb[key]
            else:
                kv.pop(key, None)
    kit_deleted = {(w[1], w[2]) for w in kw if w[0] == "delete"}
    for key in list(ov):
        if key not in kv and key not in kit_deleted:
            del ov[key]
    # A touched pod the kit's garbage collector deleted during the sync (its owner is gone; woken
    # by a pod the sync removed) is terminating by the kit's world: its other fields are compared.
    for key in collected_pods(events) & set(kv) & set(ov):
        kv[key] = dict(kv[key], terminating=ov[key]["terminating"])
    # A failed run of revision adoptions: which orphans went first is random upstream
    if refused or any(w[3] for w in kit_raw + oracle_raw if w[:2] == ("patch", "ControllerRevision")):
        problems += fold_random_adoptions(kv, ov, kb, orphan_revisions(before, name, namespace), kit_raw,
                                          any_count=refused)
    # A pod (revision) adopted in this sync and then updated: upstream sends the object as
    # its cache had it (no owner yet).  A real API server refuses that stale write (Conflict) and the next
    # sync repeats it; the fake clientset without resourceVersion checks would drop the owner.
    # The kit re-reads adopted pods.  Not compared while conflicts are off.
    if not conflicts:
        adopted = {("Pod", d.pod) if d.pod else ("ControllerRevision", d.target)
                   for d in result.decisions if d.action == "adopt" and d.applied}
        for key in adopted & set(kv) & set(ov):
            kv[key] = dict(kv[key], owners=None)
            ov[key] = dict(ov[key], owners=None)
    problems += diff_views(kv, ov)
    ke, oe = _events_canonical(kit_events(events, name), parallel), _events_canonical(oracle_events(answer), parallel)
    if ke != oe:
        problems.append(f"events differ:\n    kit:      {ke}\n    upstream: {oe}")
    if (result.error is not None) != (answer.get("error") is not None):
        problems.append(f"sync error: kit {result.error!r} != upstream {answer.get('error')!r}")
    if not _same_delay(result.requeue_after, answer.get("requeue_after")):
        problems.append(f"requeue_after: kit {result.requeue_after!r} != upstream {answer.get('requeue_after')!r}")
    if log is not None:
        log.append({"time": now, "set": name, "kit": kw, "upstream": ow, "problems": problems,
                    "events": len(oe), "requeue": answer.get("requeue_after")})
    if problems:
        raise Mismatch(f"sync of {name} at t={now} (profile {cluster.profile.name}):\n  "
                       + "\n  ".join(problems)
                       + f"\n  kit decisions: {[(d.action, d.pod, d.target, d.reason, d.applied, d.error) for d in result.decisions]}"
                       + f"\n  upstream error: {answer.get('error')}")
    return result, answer


def _same_delay(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) < 1e-6
