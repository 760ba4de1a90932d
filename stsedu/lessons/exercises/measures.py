"""Where an exercise's answer is read: the ``answer`` block's sources, measured on the cluster
after the scenario and its reveal steps (:func:`measure`), and the kind of value each gives."""

from __future__ import annotations

from typing import Any, Mapping

from . import kinds as K
from .sequence import measure_sequence


class MeasureError(ValueError):
    """The answer cannot be read as the ``answer`` block says; *field* is its dotted path."""

    def __init__(self, problem: str, field: str = "answer") -> None:
        self.problem, self.field = problem, field
        super().__init__(problem)


def revision_numbers(c, set_name: str) -> dict[str, int]:
    return {r.name: r.revision for r in c.revisions(set_name)}


def measure(c, set_name: str, spec: Mapping[str, Any]) -> Any:
    """Read the answer from cluster *c* as the ``answer`` block says (after the reveal steps)."""
    src = spec["from"]
    try:
        if src == "next_sync":
            decisions = [d for d in c.sync(set_name).decisions if d.action in K.POD_ACTIONS]
            actions = spec.get("action")
            if actions is not None:
                actions = [actions] if isinstance(actions, str) else list(actions)
                decisions = [d for d in decisions if d.action in actions]
            if spec.get("field") == "rule":
                if not decisions:
                    raise MeasureError("answer.from next_sync with field rule: the sync made no such "
                                       "decision", field="answer")
                return decisions[0].rule.split(":")[0].strip()
            if spec.get("count"):
                return len(decisions)
            return [[d.action, d.pod] for d in decisions]
        if src == "sequence":
            return measure_sequence(c, set_name, spec)
        if src == "pods":
            pods = c.pods() if spec.get("all") else c.pods(set_name)
            revs = revision_numbers(c, set_name)
            for k, v in (spec.get("where") or {}).items():
                if k == "revision":
                    pods = [p for p in pods if revs.get(p.revision) == v]
                elif k == "image":
                    pods = [p for p in pods if v in p.images()]
                else:
                    pods = [p for p in pods if getattr(p, k) == v]
            return len(pods) if spec.get("count") else [p.name for p in pods]
        if src == "pod":
            try:
                p = c.pod(spec["pod"])
            except KeyError:
                names = ", ".join(x.name for x in c.pods()) or "none"
                raise MeasureError(f"no pod {spec['pod']!r} once the scenario has run (pods: {names})",
                                   field="answer.pod") from None
            f = spec.get("field", "revision")
            if f == "revision":
                return revision_numbers(c, set_name).get(p.revision)
            if f == "dns_name":
                return f"{p.spec['hostname']}.{p.spec['subdomain']}.{p.namespace}.svc.{c.cluster_domain}"
            if f == "claim":
                vol = spec.get("volume")
                for v in p.spec.get("volumes", []):
                    if v.get("name") == vol and "persistentVolumeClaim" in v:
                        return v["persistentVolumeClaim"]["claimName"]
                raise MeasureError(f"pod {p.name} has no claim for volume {vol!r}", field="answer")
            return getattr(p, f)
        if src == "pvcs":
            claims = c.pvcs(set_name)
            return len(claims) if spec.get("count") else [x.name for x in claims]
        if src == "status":
            st = c.statefulset(set_name).status
            v = getattr(st, spec["field"])
            if spec["field"] in ("current_revision", "update_revision"):
                return revision_numbers(c, set_name).get(v)
            return v
        if src == "revisions":
            revs = c.revisions(set_name)
            if spec.get("image"):
                found = [r.revision for r in revs
                         if any(spec["image"] in str(ct.get("image", ""))
                                for ct in r.template.get("spec", {}).get("containers", []))]
                if not found:
                    raise MeasureError(f"no revision has image {spec['image']!r}", field="answer.image")
                return found[-1]
            return len(revs)
    except KeyError as e:
        raise MeasureError(f"cannot read the answer: {e.args[0] if e.args else e}", field="answer") from None
    raise MeasureError(f"unknown source {src!r}", field="answer.from")  # pragma: no cover


def produces(spec: Mapping[str, Any]) -> str:
    """The kind of value a source gives (to check it against ``answer.kind``)."""
    src = spec["from"]
    if spec.get("count"):
        return "number"
    if src == "next_sync":
        return "text" if spec.get("field") == "rule" else "decisions"
    if src == "sequence":
        return "decisions"
    if src in ("pods", "pvcs"):
        return "pods"
    if src == "pod":
        f = spec.get("field", "revision")
        return {"revision": "revision", "phase": "text", "dns_name": "text", "claim": "text"}.get(f, "bool")
    if src == "status":
        return "revision" if spec.get("field") in ("current_revision", "update_revision") else "number"
    return "revision" if spec.get("image") else "number"


def fits(kind: str, produced: str) -> bool:
    """The kind must be what the source gives (a revision is not a count); a choice takes any
    single value."""
    if kind == produced:
        return True
    return kind == "choice" and produced in ("text", "number", "revision", "bool")
