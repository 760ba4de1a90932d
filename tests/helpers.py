"""Shared helpers for tests: small manifests and ways to move pods by hand."""

from __future__ import annotations

import copy
from pathlib import Path

import stsedu

WEB_YAML = (Path(stsedu.__file__).parent / "data" / "web.yaml").read_text()


def web(replicas: int = 3, policy: str = "OrderedReady", *, image: str = "nginx:1", min_ready: int = 0,
        claims: bool = False, strategy: dict | None = None, start: int | None = None,
        retention: dict | None = None, history: int | None = None, name: str = "web") -> dict:
    """A small StatefulSet manifest like the concept page's, as a dict."""
    m = {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas, "serviceName": "nginx", "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}},
                         "spec": {"containers": [{"name": "nginx", "image": image}]}},
        },
    }
    spec = m["spec"]
    if min_ready:
        spec["minReadySeconds"] = min_ready
    if claims:
        spec["volumeClaimTemplates"] = [{"metadata": {"name": "data"},
                                         "spec": {"accessModes": ["ReadWriteOnce"],
                                                  "resources": {"requests": {"storage": "1Gi"}}}}]
        spec["template"]["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    if strategy is not None:
        spec["updateStrategy"] = copy.deepcopy(strategy)
    if start is not None:
        spec["ordinals"] = {"start": start}
    if retention is not None:
        spec["persistentVolumeClaimRetentionPolicy"] = retention
    if history is not None:
        spec["revisionHistoryLimit"] = history
    return m


def acts(result) -> list[tuple]:
    """(action, pod, reason) of a sync's pod decisions."""
    return result.actions


def st(result_or_sts) -> tuple[int, int, int, int, int]:
    """(replicas, ready, available, current, updated) of a SyncResult or a StatefulSet."""
    s = result_or_sts.status
    return (s.replicas, s.ready_replicas, s.available_replicas, s.current_replicas, s.updated_replicas)


def one_ready_pod() -> stsedu.Cluster:
    """A manual-kubelet cluster with a one-replica ``web`` whose ``web-0`` is Running and Ready."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    ready(c, "web-0")
    return c


def ready(c: stsedu.Cluster, *names: str) -> None:
    """Start each pod if Pending and make it Ready (manual kubelet)."""
    for n in names:
        p = c.pod(n)
        if p.phase == "Pending":
            c.kubelet.start(n)
        c.kubelet.set_ready(n)


def gone(c: stsedu.Cluster, *names: str) -> None:
    """Finish the termination of terminating pods."""
    for n in names:
        c.kubelet.finish_termination(n)


def settle(c: stsedu.Cluster, name: str = "web", max_syncs: int = 500, check=None) -> list:
    """Drive a manual cluster to stability: sync, then move ONE pod a step, like upstream's harness.

    Pods move as ``Kubelet.step`` moves them: lowest ordinal first, Pending -> Running -> Ready;
    terminating -> gone (never-ready pods stay).
    *check(cluster, result)* runs after every sync.  Returns the SyncResults.
    """
    results = []
    for _ in range(max_syncs):
        r = c.sync(name)
        results.append(r)
        if check is not None:
            check(c, r)
        moved = c.kubelet.step() is not None
        if not moved and not r.changed:
            c.advance(0)
            if not c.sync(name).changed:
                return results
    raise AssertionError(f"no stable state after {max_syncs} syncs")


def live_fuzz_seed() -> int:
    """The seed of the live suite's sample of validation fuzz cases: ``STSEDU_LIVE_FUZZ_SEED``, else
    today's date as a number (20261128), so each day draws another sample; the report header
    prints it (tests/conftest.py)."""
    import datetime
    import os
    given = os.environ.get("STSEDU_LIVE_FUZZ_SEED", "").strip()
    if given.isascii() and given.isdecimal():
        return int(given)
    return int(datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d"))


def unavailable(reason: str) -> None:
    """Skip a test whose real reference (the upstream oracle, the live control plane) is missing,
    with one line; but in CI (``CI`` set) with Go installed the reference must be there, so a
    missing or failed build fails the test instead of hiding behind a skip."""
    import os
    import shutil

    import pytest
    go = shutil.which("go") or os.access("/usr/local/go/bin/go", os.X_OK)
    if os.environ.get("CI") and go:
        pytest.fail(f"{reason} (CI with Go installed: .ci/run builds it, so it must not be skipped)")
    pytest.skip(reason)


LIVE_TEST = "marked live"
LIVE_COMPARISONS = "live controller comparisons"
"""The user property of a live test that compares the real controller's behaviour with the kit's."""


def live_summary(reports) -> str | None:
    """One line for the live tests among *reports*: the controller-behaviour comparisons (tests and runs
    compared), the validation sample (tests/live/test_live_validation.py) and the rest, each by outcome."""
    outcome, runs = {}, {}
    for r in reports:
        props = dict(getattr(r, "user_properties", ()))
        if getattr(r, "when", None) is None or LIVE_TEST not in props:
            continue
        was = outcome.get(r.nodeid)
        if r.outcome == "failed" or (r.outcome == "skipped" and was != "failed"):
            outcome[r.nodeid] = r.outcome
        elif r.when == "call" or r.nodeid not in outcome:
            outcome[r.nodeid] = was or "passed"
        if LIVE_COMPARISONS in props:
            runs[r.nodeid] = props[LIVE_COMPARISONS]
    if not outcome:
        return None

    def counted(ids):
        by = {}
        for i in ids:
            by[outcome[i]] = by.get(outcome[i], 0) + 1
        return ", ".join(f"{n} {o}" for o, n in sorted(by.items())) or "none"
    compared = [i for i in outcome if i in runs]
    validation = [i for i in outcome if i not in runs and "test_live_validation.py" in i]
    other = [i for i in outcome if i not in runs and i not in validation]
    passed_runs = sum(runs[i] for i in compared if outcome[i] == "passed")
    return (f"live: controller behaviour compared in {len(compared)} tests ({counted(compared)}; "
            f"{passed_runs} of {sum(runs[i] for i in compared)} runs in passing tests); "
            f"validation sample: {len(validation)} tests ({counted(validation)}); "
            f"other live tests: {len(other)} ({counted(other)})")
