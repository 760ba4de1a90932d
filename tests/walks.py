"""Seeded random walks through real cluster states, and what each sync decided along them.

``tests/controller/upstream/test_perf_equivalence.py`` replays these walks and compares every
sync's outcome with ``tests/data/walks.json``, recorded with the earlier,
hand-tuned planner (the one with inlined fast paths and memos, before the
plain algorithm replaced it): the shipped algorithm must decide exactly what
it decided.  ``python tests/walks.py --record`` rewrites the file (only ever
from a commit whose algorithm is known to be right).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

import stsedu  # noqa: E402
from helpers import web  # noqa: E402
from stsedu.api.errors import APIError  # noqa: E402
from stsedu.api.objects import POD_NAME_LABEL, OwnerReference, Pod  # noqa: E402

DATA = Path(__file__).parent / "data" / "walks.json"
IMAGES = ("nginx:1", "nginx:2", "nginx:3")
SEEDS = range(12)


def random_action(c: stsedu.Cluster, rng: random.Random, manifest: dict) -> None:
    """One thing a learner, the kubelet or a fault could do next."""
    pods = c.store.list("Pod", "default")
    pod = rng.choice(pods) if pods else None
    roll = rng.random()
    try:
        if roll < 0.25:  # move the lowest pod one step on, as a kubelet would
            for p in sorted(pods, key=lambda p: p.name):
                if p.deletion_timestamp is not None:
                    c.kubelet.finish_termination(p.name)
                elif p.phase == "Pending":
                    c.kubelet.start(p.name)
                elif p.phase == "Running" and not p.ready:
                    c.kubelet.set_ready(p.name)
                else:
                    continue
                break
        elif roll < 0.40 and pod is not None:
            verb = rng.choice(["start", "set_ready", "set_ready", "set_unready", "fail", "succeed", "crash",
                               "finish_termination"])
            getattr(c.kubelet, verb)(pod.name)
            if verb == "crash":  # the world of the recording: a crash was a restart at once
                c.kubelet.restart(pod.name)
        elif roll < 0.47 and pod is not None:
            c.delete_pod(pod.name, wait=False)  # the recording's deletes returned at once
        elif roll < 0.53:
            c.scale("web", rng.randrange(0, 7))
        elif roll < 0.58:
            c.set_image("web", rng.choice(IMAGES))
        elif roll < 0.63:
            c.patch("web", {"spec": {"updateStrategy": rng.choice([
                {"type": "OnDelete", "rollingUpdate": None},
                {"type": "RollingUpdate", "rollingUpdate": {"partition": rng.randrange(0, 4)}},
                {"type": "RollingUpdate", "rollingUpdate": {"partition": 0,
                                                            "maxUnavailable": rng.choice([1, 2, "50%"])}}])}})
        elif roll < 0.70 and pod is not None:
            # break or restore identity, or stop matching the selector (release)
            c.patch_pod(pod.name, {"metadata": {"labels": rng.choice([
                {POD_NAME_LABEL: None}, {POD_NAME_LABEL: "someone-else"}, {POD_NAME_LABEL: pod.name},
                {"app": "other"}, {"app": "nginx"}])}})
        elif roll < 0.73:
            c.delete("web", cascade="orphan", wait=False)
            c.apply(manifest)
        elif roll < 0.76 and pod is not None and pod.ordinal >= 0:
            # a second pod on an occupied ordinal (web-01 next to web-1), owned by the set
            sts = c.store.get("StatefulSet", "default", "web")
            twin = Pod(name=f"web-0{pod.ordinal}", labels=dict(pod.labels), spec=dict(pod.spec),
                       owner_references=(sts.ref(),))
            if c.store.get("Pod", "default", twin.name) is None:
                c.store.create("Pod", replace(twin, phase="Pending"))
        elif roll < 0.79:
            claims = c.store.list("PersistentVolumeClaim", "default")
            if claims:
                claim = rng.choice(claims)
                c.store.update("PersistentVolumeClaim", replace(claim, owner_references=rng.choice([
                    (), (OwnerReference(kind="Pod", name="web-9", uid="gone", api_version="v1"),)])))
        elif roll < 0.82:
            c.inject_error(rng.choice(["create", "delete", "update"]), rng.choice(["Pod", "PersistentVolumeClaim"]))
        else:
            c.advance(rng.choice([0, 1, 3, 11]))
    except (ValueError, KeyError, APIError, AttributeError):
        pass


def outcome(r) -> str:
    """One sync's outcome as a line: decisions (with whether they took effect) and the status."""
    s = r.status
    status = "-" if s is None else (f"{s.observed_generation} {s.replicas} {s.ready_replicas} {s.available_replicas} "
                                    f"{s.current_replicas} {s.updated_replicas} {s.current_revision} "
                                    f"{s.update_revision} {s.collision_count}")
    decisions = ";".join(f"{d.action},{d.pod or ''},{d.target or ''},{d.reason},{d.applied},{d.error or ''}"
                         for d in r.decisions)
    return f"{r.sync}@{r.time:g} {r.error or ''} [{decisions}] {status}"


def digest(c: stsedu.Cluster) -> str:
    """The cluster's objects and its whole trace, hashed (what payloads did, beyond the decisions)."""
    h = hashlib.sha256(json.dumps(c.store.dump(), sort_keys=True, default=str).encode())
    for table in ("decisions", "pods", "status", "events", "syncs"):
        h.update(getattr(c.trace, table)().to_csv(index=False).encode())
    return h.hexdigest()[:16]


def _setup(seed: int) -> tuple[stsedu.Cluster, random.Random, dict]:
    rng = random.Random(seed)
    profile = ["current", "v1.36", "v1.16"][seed % 3]
    manifest = web(rng.randrange(1, 6), ["OrderedReady", "Parallel"][seed // 3 % 2], image="nginx:1",
                   min_ready=5 if seed % 4 in (1, 2) else 0, claims=seed % 2 == 0,
                   start=rng.choice([None, 1]) if profile != "v1.16" else None,
                   retention=rng.choice([None, {"whenScaled": "Delete", "whenDeleted": "Delete"},
                                         {"whenScaled": "Retain", "whenDeleted": "Delete"}])
                   if profile != "v1.16" else None, history=1)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(manifest)
    return c, rng, manifest


def walk(seed: int) -> dict:
    """150 steps: sync, then one random action; the second half settles the set now and then."""
    c, rng, manifest = _setup(seed)
    lines = []
    for step in range(150):
        if c.store.get("StatefulSet", "default", "web") is not None:
            lines.append(outcome(c.sync("web")))
        roll = rng.random()
        if step >= 75 and roll < 0.1:
            c.feature_gates["MaxUnavailableStatefulSet"] = not c.feature_gates.get("MaxUnavailableStatefulSet")
        elif step >= 75 and roll < 0.3:  # let the set settle: the kubelet moves pods on, time passes
            for _ in range(15):
                if c.store.get("StatefulSet", "default", "web") is not None:
                    lines.append(outcome(c.sync("web")))
                c.kubelet.step()
            c.advance(6)
        else:
            random_action(c, rng, manifest)
    return {"syncs": lines, "digest": digest(c)}


def rollout() -> dict:
    """An auto-kubelet rollout with claims: create 8, roll to a new image, scale down to 3."""
    c = stsedu.Cluster(seed=3)
    c.apply(web(8, claims=True, retention={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    lines = [outcome(r) for r in c.run("web")]
    c.set_image("web", "nginx:2")
    lines += [outcome(r) for r in c.run("web")]
    c.scale("web", 3)
    lines += [outcome(r) for r in c.run("web")]
    return {"syncs": lines, "digest": digest(c)}


def all_walks() -> dict:
    out = {f"seed-{seed}": walk(seed) for seed in SEEDS}
    out["rollout"] = rollout()
    return out


def fingerprint(line: str) -> str:
    """A sync's outcome line, hashed short (the recording keeps these, not the lines)."""
    return hashlib.sha256(line.encode()).hexdigest()[:8]


def recorded(walks: dict) -> dict:
    """What the data file keeps of *walks*: per walk, one short hash per sync and the final digest."""
    return {k: {"syncs": " ".join(fingerprint(x) for x in v["syncs"]), "digest": v["digest"]}
            for k, v in walks.items()}


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/walks.py --record")
    DATA.write_text(json.dumps(recorded(all_walks()), indent=1) + "\n")
    print(DATA, DATA.stat().st_size, "bytes")
