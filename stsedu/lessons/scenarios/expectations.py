"""A step's expectations checked against the cluster (``expect:`` in a scenario file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ...cluster import Cluster
from ...controller.decisions import POD_ACTIONS, SyncResult
from .format import Failure, Step, StepRecord

@dataclass
class RunState:
    """What expectations need beyond the cluster: the last sync of each set."""

    cluster: Cluster
    last_sync: dict[str, SyncResult] = field(default_factory=dict)


def _revision_of(cluster: Cluster, name: str, namespace: str = "default") -> tuple[int | None, tuple[str, ...]]:
    """(number, template images) of the ControllerRevision called *name* ((None, ()) if it is gone)."""
    rev = cluster.store.get("ControllerRevision", namespace, name)
    if rev is None:
        return None, ()
    images = tuple(c.get("image", "") for c in rev.template.get("spec", {}).get("containers", []))
    return rev.revision, images


def _revision_matches(cluster: Cluster, want: int | str, rev_name: str,
                      fallback_images: tuple[str, ...] = ()) -> tuple[bool, str]:
    number, images = _revision_of(cluster, rev_name)
    images = images or fallback_images
    shown = (f"{number}" if number is not None else "?") + (f" ({rev_name}: {', '.join(images)})"
                                                          if rev_name else " (no revision)")
    if isinstance(want, int):
        return number == want, shown
    return want in images, shown


def check_expectations(step: Step, expect: Mapping, cluster: Cluster, state: RunState, rec: StepRecord,
           source: str) -> list[Failure]:
    fails: list[Failure] = []

    def fail(fld, expected, actual, detail=""):
        fails.append(Failure(source, step.number, step.action, fld, expected, actual, detail))

    name = step.set_name
    if "error" in expect:
        if rec.error is None:
            fail("expect.error", expect["error"], "no error")
        elif expect["error"] not in rec.error:
            fail("expect.error", f"an error containing {expect['error']!r}", rec.error)
    sts = cluster.store.get("StatefulSet", "default", name)
    if "exists" in expect and expect["exists"] != (sts is not None):
        fail("expect.exists", expect["exists"], sts is not None,
             f'statefulset "{name}" ' + ("exists" if sts is not None else "is gone"))
    if "pods" in expect:
        pods = {p.name: p for p in cluster.pods() if p.parent == name}
        want = {p["name"]: p for p in expect["pods"]}
        missing = [n for n in want if n not in pods]
        extra = [n for n in sorted(pods, key=lambda n: pods[n].ordinal) if n not in want]
        if missing or extra:
            fail("expect.pods", list(want), sorted(pods, key=lambda n: pods[n].ordinal),
                 "; ".join(filter(None, [missing and "missing " + ", ".join(missing),
                                         extra and "unexpected " + ", ".join(extra)])))
        for n, w in want.items():
            p = pods.get(n)
            if p is None:
                continue
            for k, v in w.items():
                if k == "name":
                    continue
                fld = f"expect.pods.{n}.{k}"
                if k == "revision":
                    ok, shown = _revision_matches(cluster, v, p.revision, p.images())
                    if not ok:
                        fail(fld, v, shown)
                elif k == "owner":
                    if p.owner != v:
                        fail(fld, v, p.owner)
                elif k == "status":  # kubectl's STATUS column
                    if p.status_text != v:
                        fail(fld, v, p.status_text)
                elif getattr(p, k) != v:
                    fail(fld, v, getattr(p, k))
    if "status" in expect:
        if sts is None:
            fail("expect.status", expect["status"], None, f'statefulset "{name}" does not exist')
        else:
            for k, v in expect["status"].items():
                actual = getattr(sts.status, k)
                if k in ("current_revision", "update_revision"):
                    ok, shown = _revision_matches(cluster, v, actual)
                    if not ok:
                        fail(f"expect.status.{k}", v, shown)
                elif actual != v:
                    fail(f"expect.status.{k}", v, actual)
    if "decisions" in expect:
        last = state.last_sync.get(name)
        want = [list(t) for t in expect["decisions"]]
        if last is None:
            fail("expect.decisions", want, "no sync yet", f"no sync of {name} has run")
        else:
            got = [[d.action, d.pod, d.reason] for d in last.decisions
                   if d.action in POD_ACTIONS or (d.action in ("adopt", "release") and d.pod)]
            if got != want:
                fail("expect.decisions", want, got, f"sync {last.sync}")
    if "rollout_status" in expect:
        try:
            text = cluster.rollout_status(name)
        except KeyError as e:
            text = f"Error from server (NotFound): {e.args[0]}"
        if text != expect["rollout_status"]:
            fail("expect.rollout_status", expect["rollout_status"], text)
    if "pvcs" in expect:
        claims = {c.name: c for c in cluster.pvcs(name)}
        want = {c["name"]: c for c in expect["pvcs"]}
        if set(claims) != set(want):
            missing = [n for n in want if n not in claims]
            extra = [n for n in claims if n not in want]
            fail("expect.pvcs", list(want), list(claims),
                 "; ".join(filter(None, [missing and "missing " + ", ".join(missing),
                                         extra and "unexpected " + ", ".join(extra)])))
        for n, w in want.items():
            c = claims.get(n)
            if c is None:
                continue
            if "deleting" in w and c.deleting != w["deleting"]:
                fail(f"expect.pvcs.{n}.deleting", w["deleting"], c.deleting)
            if "owners" in w:
                owners = sorted(r.name for r in c.owner_references)
                if owners != sorted(w["owners"]):
                    fail(f"expect.pvcs.{n}.owners", sorted(w["owners"]), owners)
    if "revisions" in expect:
        got = [r.revision for r in cluster.revisions(name)]
        if got != expect["revisions"]:
            fail("expect.revisions", expect["revisions"], got)
    return fails
