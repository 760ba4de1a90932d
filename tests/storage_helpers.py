"""Helpers for the identity, storage and ownership tests (manual kubelet)."""

from __future__ import annotations

import copy

import yaml

import stsedu
from helpers import WEB_YAML, web


def docs_manifest(namespace: str | None = None, **spec_changes) -> list[dict]:
    """The concept page's Service + StatefulSet (stsedu/data/web.yaml) as dicts, optionally changed."""
    docs = [d for d in yaml.safe_load_all(WEB_YAML)]
    for d in docs:
        if namespace is not None:
            d["metadata"]["namespace"] = namespace
        if d["kind"] == "StatefulSet":
            d["spec"].update(copy.deepcopy(spec_changes))
    return docs


def with_claims(replicas: int = 3, retention: dict | None = None, **kw) -> dict:
    """helpers.web with one claim template ``data`` (claims ``data-web-<n>``)."""
    return web(replicas, claims=True, retention=retention, **kw)


def up(c: stsedu.Cluster, name: str = "web", namespace: str = "default", max_syncs: int = 200) -> list:
    """Sync and make pods Ready by hand (one per sync, lowest ordinal first) until nothing is left to do.

    Terminating pods are finished; when only minReadySeconds is left to wait
    for, the clock moves past it.  Returns the SyncResults.
    """
    results = []
    for _ in range(max_syncs):
        r = c.sync(name, namespace)
        results.append(r)
        moved = False
        for p in c.pods(name, namespace):
            if p.terminating:
                c.kubelet.finish_termination(p.name, namespace)
            elif p.phase == "Pending":
                c.kubelet.start(p.name, namespace)
            elif p.phase == "Running" and not p.ready:
                c.kubelet.set_ready(p.name, namespace)
            else:
                continue
            moved = True
            break
        if moved or r.changed or r.error:
            continue
        if r.waits:
            c.advance(c.statefulset(name, namespace).spec.min_ready_seconds + 1)
            continue
        return results
    raise AssertionError(f"{name} did not settle in {max_syncs} syncs")


def finish_all(c: stsedu.Cluster, namespace: str = "default") -> None:
    """Finish the termination of every terminating pod."""
    for p in c.pods(namespace=namespace):
        if p.terminating:
            c.kubelet.finish_termination(p.name, namespace)


def claim(c: stsedu.Cluster, name: str, namespace: str = "default"):
    """The stored claim, or None."""
    return c.store.get("PersistentVolumeClaim", namespace, name)


def owners(obj) -> list[tuple[str, str]]:
    """(kind, name) of each owner reference."""
    return [(r.kind, r.name) for r in obj.owner_references]


def decisions(r, *actions) -> list[tuple]:
    """(action, pod, target, reason) of a sync's decisions, only *actions* if given."""
    return [(d.action, d.pod, d.target, d.reason) for d in r.decisions
            if not actions or d.action in actions]
