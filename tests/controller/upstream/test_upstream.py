"""Differential tests: the kit's controller against the real one (marker ``upstream``).

Every sync here runs twice from the same objects: once in stsedu, once in the real
StatefulSet controller code of ``k8s.io/kubernetes`` (v1.37.2 for the ``current``
profile, v1.36.3 for ``v1.36``), built from tests/upstream/ (see upstream_oracle.py and
docs/upstream-oracle.md).  Per sync they must agree on the API writes (in order), every
object after the sync, the events recorded, the requeue planned and whether the sync failed.

* ``test_random_histories``: hypothesis makes random histories (scaling, image changes,
  partition, strategy (Recreate too, its gate on in half the current profile's histories) and policy, maxUnavailable, pod phase and readiness changes,
  failures, deletions, time steps, injected API errors of every reason the controller
  treats apart (Conflict and Invalid too), claim templates and retention policies,
  ordinals.start, minReadySeconds, orphaning and re-adoption, delete and re-apply, hand-made
  pods, a lagging garbage collector).
  ``STSEDU_UPSTREAM_HISTORIES=N`` sets how many per profile (default 50); resource-version
  conflicts are on (``STSEDU_UPSTREAM_CONFLICTS=0`` turns them off; docs/upstream-oracle.md).
* ``test_shipped_scenarios``: every scenario of the library, every sync of it.
* ``test_error_paths_agree``: reviewed error paths and the minimised histories of issue 27;
  ``test_conflict_paths_agree``: those of the runs with conflicts on.

Without Go, or when the oracle cannot be built, the whole module skips with one line.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import stsedu
from stsedu.api.objects import OwnerReference, Pod
import test_oracle_comparison as comparison
import test_upstream_rules as rules
import upstream_oracle as uo
from helpers import unavailable

pytestmark = pytest.mark.upstream

HISTORIES = int(os.environ.get("STSEDU_UPSTREAM_HISTORIES", "50"))
PROGRESS = os.environ.get("STSEDU_UPSTREAM_PROGRESS")  # a file to append a line to every 50 histories
# resourceVersion checks in the oracle's fake API server (on; STSEDU_UPSTREAM_CONFLICTS=0 turns them off)
CONFLICTS = os.environ.get("STSEDU_UPSTREAM_CONFLICTS", "1") == "1"
PROFILES = ("current", "v1.36", "v1.16")

_oracles: dict = {}


def oracle_for(profile: str) -> uo.Oracle:
    """The running oracle of *profile* (built into the cache on first use), or skip."""
    if profile not in _oracles:
        try:
            _oracles[profile] = uo.Oracle(uo.build(profile))
        except uo.OracleUnavailable as e:
            _oracles[profile] = e
    got = _oracles[profile]
    if isinstance(got, Exception):
        unavailable(f"upstream oracle unavailable: {got}")
    return got


@pytest.fixture(scope="module", autouse=True)
def _close_oracles():
    yield
    for o in _oracles.values():
        if isinstance(o, uo.Oracle):
            o.close()
    _oracles.clear()


def test_oracle_runs_the_pinned_release():
    """The oracle reports the k8s.io/kubernetes version each profile names."""
    for profile in PROFILES:
        assert oracle_for(profile).hello["kubernetes"] == uo.PROFILES[profile][0]


# ------------------------------------------------------------------ histories

IMAGES = ("nginx:1", "nginx:2", "nginx:3")


def strategies(recreate: bool) -> list[str]:
    """The update strategies a history picks from: Recreate too, and most often, when its gate is on."""
    return ["RollingUpdate", "RollingUpdate", "OnDelete"] + (["Recreate"] * 4 if recreate else [])


def manifest(draw, recreate: bool = False) -> dict:
    replicas = draw(st.integers(0, 5))
    policy = draw(st.sampled_from(["OrderedReady", "Parallel"]))
    strategy = draw(st.sampled_from(strategies(recreate)))
    spec: dict = {
        "replicas": replicas,
        "podManagementPolicy": policy,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "nginx", "image": draw(st.sampled_from(IMAGES))}],
                              "terminationGracePeriodSeconds": draw(st.sampled_from([30, 30, 0]))}},
        "updateStrategy": {"type": strategy},
    }
    if strategy == "RollingUpdate" and draw(st.booleans()):
        ru: dict = {"partition": draw(st.integers(0, 3))}
        if draw(st.booleans()):
            ru["maxUnavailable"] = draw(st.sampled_from([1, 2, 3, "50%", "100%"]))
        spec["updateStrategy"]["rollingUpdate"] = ru
    if draw(st.booleans()):
        spec["minReadySeconds"] = draw(st.integers(1, 5))
    if draw(st.booleans()):
        spec["ordinals"] = {"start": draw(st.integers(0, 3))}
    if draw(st.booleans()):
        spec["revisionHistoryLimit"] = draw(st.integers(0, 3))
    n_claims = draw(st.integers(0, 2))
    if n_claims:
        spec["volumeClaimTemplates"] = [
            {"metadata": {"name": name},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
            for name in ("data", "logs")[:n_claims]]
        spec["persistentVolumeClaimRetentionPolicy"] = {
            "whenDeleted": draw(st.sampled_from(["Retain", "Delete"])),
            "whenScaled": draw(st.sampled_from(["Retain", "Delete"]))}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": spec}


STEPS = ["sync"] * 12 + ["kubelet_step"] * 8 + ["start", "ready"] * 2 + [
    "unready", "fail", "evict", "shut_down_node", "succeed", "crash", "crash", "restart", "delete_pod",
    "finish", "finish", "advance", "advance",
    "scale", "image", "partition", "max_unavailable", "strategy", "min_ready", "ordinals", "retention",
    "error", "error", "undo", "relabel", "orphan", "foreground", "reapply", "handmade"]

RECREATE_STEPS = ["image", "undo"] + ["sync", "kubelet_step"] * 3
"""In the histories with Recreate's gate on: more template changes (each starts a Recreate), and more
syncs and kubelet steps to see it through."""

REASONS = ["InternalError", "InternalError", "NotFound", "AlreadyExists", "Conflict", "Conflict", "Invalid"]


def _pod(draw, c):
    pods = c.pods("web")
    if not pods:
        return None
    return draw(st.sampled_from([p.name for p in pods]))


def step(draw, c, kind: str, parallel: bool) -> str | None:
    """Carry out one step of *kind* on the kit; return a label (None: nothing to do)."""
    k = c.kubelet
    if kind in ("start", "ready", "unready", "fail", "evict", "shut_down_node", "succeed", "crash", "restart",
                "delete_pod", "finish", "relabel"):
        name = _pod(draw, c)
        if name is None:
            return None
        # crash/restart: a crash-looping pod is, to the controller, a Running pod that is not Ready
        fn = {"start": k.start, "ready": k.set_ready, "unready": k.set_unready,
              "fail": lambda n: k.fail(n, reason="DeadlineExceeded"), "evict": k.evict,
              "shut_down_node": k.shut_down_node, "crash": k.crash, "restart": k.restart,
              "succeed": k.succeed, "delete_pod": c.delete_pod, "finish": k.finish_termination,
              "relabel": lambda n: c.patch_pod(n, {"metadata": {"labels": {"app": "other"}}})}[kind]
        fn(name)
        return f"{kind} {name}"
    if kind == "kubelet_step":
        return f"kubelet step: {k.step()}"
    if kind == "advance":
        s = draw(st.sampled_from([0.5, 1, 2, 3, 5, 7]))
        c.advance(s)
        return f"advance {s}"
    if kind == "scale":
        n = draw(st.integers(0, 5))
        c.scale("web", n)
        return f"scale {n}"
    if kind == "image":
        image = draw(st.sampled_from(IMAGES))
        c.set_image("web", image)
        return f"image {image}"
    if kind == "partition":
        p = draw(st.integers(0, 4))
        c.patch("web", {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": p}}}})
        return f"partition {p}"
    if kind == "max_unavailable":
        mu = draw(st.sampled_from([1, 2, 3, "50%", "100%"]))
        c.patch("web", {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": mu}}}})
        return f"maxUnavailable {mu}"
    if kind == "strategy":
        recreate = c.feature_gates.get("StatefulSetRecreateStrategy", False)
        t = draw(st.sampled_from(["RollingUpdate", "OnDelete"] + (["Recreate"] * 2 if recreate else [])))
        patch = {"type": t} if t == "RollingUpdate" else {"type": t, "rollingUpdate": None}
        c.patch("web", {"spec": {"updateStrategy": patch}})
        return f"strategy {t}"
    if kind == "min_ready":
        m = draw(st.integers(0, 5))
        c.patch("web", {"spec": {"minReadySeconds": m}})
        return f"minReadySeconds {m}"
    if kind == "ordinals":
        s = draw(st.integers(0, 3))
        c.patch("web", {"spec": {"ordinals": {"start": s}}})
        return f"ordinals.start {s}"
    if kind == "retention":
        pol = {"whenDeleted": draw(st.sampled_from(["Retain", "Delete"])),
               "whenScaled": draw(st.sampled_from(["Retain", "Delete"]))}
        c.patch("web", {"spec": {"persistentVolumeClaimRetentionPolicy": pol}})
        return f"retention {pol}"
    if kind == "undo":
        c.rollout_undo("web")
        return "rollout undo"
    if kind == "error":
        verb = draw(st.sampled_from(uo_verbs()))
        obj_kind = draw(st.sampled_from(["Pod", "Pod", "PersistentVolumeClaim", "ControllerRevision",
                                         "StatefulSet"]))
        reason = draw(st.sampled_from(REASONS))
        several_claims = len(c.statefulset("web").spec.volume_claim_templates) > 1
        burst = parallel or c.statefulset("web").spec.update_strategy == "Recreate"  # recreateDeleteAndWait
        if (burst and obj_kind in ("Pod", "PersistentVolumeClaim")) or (
                obj_kind == "PersistentVolumeClaim" and several_claims):
            # Parallel pod work runs in goroutines upstream: which request fails first is up to
            # the scheduler; and a pod's claims are created in Go map order (getPersistentVolumeClaims
            # returns a map), which is random. So fail them all (order-free) for this sync.
            count, after = 50, 0
        else:
            count, after = draw(st.integers(1, 2)), draw(st.integers(0, 2))
        c.inject_error(verb, obj_kind, count=count, reason=reason, after=after)
        return f"error {verb} {obj_kind} {reason} x{count} after {after}"
    if kind == "orphan":
        # delete the set leaving its pods, claims and revisions, then apply it again: the
        # new set (new uid) adopts the orphans
        m = c.statefulset("web").to_manifest()
        c.delete("web", cascade="orphan")
        c.advance(0)
        m["metadata"] = {"name": "web"}
        m.pop("status", None)
        c.apply(m)
        return "orphan and re-create"
    if kind == "foreground":
        c.delete("web", cascade="foreground")
        return "delete (foreground)"
    if kind == "reapply":
        # delete the set (background: its dependents wait for the garbage collector) and apply
        # the same name again: a new uid meets the old set's pods, claims and revisions
        m = c.statefulset("web").to_manifest()
        c.delete("web")
        m["metadata"] = {"name": "web"}
        m.pop("status", None)
        c.apply(m)
        return "delete and re-apply"
    if kind == "handmade":
        return handmade_pod(draw, c)
    raise AssertionError(kind)


def handmade_pod(draw, c) -> str | None:
    """A pod the controller did not make: a leading-zero name (web-02 where web-2 is free), one
    owned by another controller, or an orphan whose name and labels match the set."""
    sts = c.store.get("StatefulSet", "default", "web")
    what = draw(st.sampled_from(["leading-zero", "foreign", "orphan"]))
    ordinal = draw(st.integers(0, 5))
    labels = dict((sts.spec.template.get("metadata") or {}).get("labels") or {})
    if what == "leading-zero":
        name, owners = f"web-0{ordinal}", (sts.ref(),)
        if c.store.get("Pod", "default", f"web-{ordinal}") is not None:
            return None  # a twin of an existing pod: which one takes the slot is random upstream
    elif what == "foreign":
        name = f"web-{ordinal}"
        owners = (OwnerReference(kind="ReplicaSet", name="other", uid="foreign-uid", api_version="apps/v1",
                                 controller=True),)
    else:
        name, owners = f"web-{ordinal}", ()
    if c.store.get("Pod", "default", name) is not None:
        return None
    spec = {"containers": [{"name": "nginx", "image": "nginx:1"}], "hostname": name}
    c.store.create("Pod", Pod(name=name, labels=labels, owner_references=owners, spec=spec, phase="Pending"))
    c.kubelet.start(name)
    if draw(st.booleans()):
        c.kubelet.set_ready(name)
    return f"hand-made pod {name} ({what})"


def uo_verbs():
    return ["create", "update", "delete"]


def run_history(data, profile: str) -> list:
    oracle = oracle_for(profile)
    gc_delay = data.draw(st.sampled_from([0, 0, 2, 5]), label="gc_delay")
    # the alpha Recreate strategy (v1.37): its gate on in half the current profile's histories
    recreate = profile == "current" and data.draw(st.booleans(), label="StatefulSetRecreateStrategy")
    c = stsedu.Cluster(kubelet="manual", profile=profile, gc_delay=gc_delay,
                       feature_gates={"StatefulSetRecreateStrategy": True} if recreate else None)
    m = manifest(data.draw, recreate)
    c.apply(m)
    parallel = m["spec"]["podManagementPolicy"] == "Parallel"
    log: list = []
    labels = [f"apply {m}"]
    n_steps = data.draw(st.integers(20, 100), label="steps")
    for _ in range(n_steps):
        kind = data.draw(st.sampled_from(STEPS + RECREATE_STEPS if recreate else STEPS), label="step")
        try:
            c.statefulset("web")
        except KeyError:
            break
        if kind == "sync":
            try:
                uo.checked_sync(c, oracle, "web", log=log, conflicts=CONFLICTS)
            except uo.Mismatch as e:
                raise uo.Mismatch("history:\n    " + "\n    ".join(labels[-40:]) + f"\n{e}") from None
            labels.append("sync")
            c.clear_errors()  # an injected error lasts for one sync at most
            continue
        try:
            label = step(data.draw, c, kind, parallel)
        except (ValueError, KeyError):
            continue  # the kit refused the step (not Running, immutable field, ...): skip it
        if label:
            labels.append(label)
    return log


COMMON = dict(deadline=None, database=None, derandomize=True, print_blob=False,
              suppress_health_check=list(HealthCheck))
if os.environ.get("STSEDU_UPSTREAM_SHRINK", "1") == "0":  # quicker failures while exploring
    COMMON["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]


@pytest.mark.parametrize("profile", PROFILES)
def test_random_histories(profile):
    """Random histories: per sync, the kit and the real controller agree (count: STSEDU_UPSTREAM_HISTORIES)."""
    oracle_for(profile)
    syncs = []
    done = [0]

    @settings(max_examples=HISTORIES, **COMMON)
    @given(st.data())
    def history(data):
        syncs.extend(run_history(data, profile))
        done[0] += 1
        if PROGRESS and done[0] % 50 == 0:
            with open(PROGRESS, "a") as f:
                print(f"{profile}: {done[0]} histories, {len(syncs)} syncs agree", file=f)

    history()
    print(f"\n{profile}: {HISTORIES} histories, {len(syncs)} syncs compared, "
          f"{sum(1 for e in syncs if e['kit'])} with writes, "
          f"{sum(1 for e in syncs if any(w[3] for w in e['kit']))} with a failed request")
    assert syncs, "no sync was compared"
    assert any(entry["kit"] for entry in syncs), "no sync wrote anything"


# ------------------------------------------------------------------ shipped scenarios

@pytest.mark.parametrize("name", sorted(stsedu.scenarios.library()["name"]))
def test_shipped_scenarios(name):
    """Every sync of every shipped scenario agrees with the real controller of its profile."""
    sc = stsedu.scenarios.load(name)
    make = sc.make_cluster
    problems: list[str] = []
    compared = []

    def make_checked():
        c = make()
        if c.profile.name not in uo.PROFILES:
            pytest.skip(f"profile {c.profile.name} has no upstream oracle")
        oracle = oracle_for(c.profile.name)
        plain = c.sync

        def sync(set_name, namespace="default"):
            c.sync = plain
            try:
                result, _ = uo.checked_sync(c, oracle, set_name, namespace, log=compared)
            except uo.Mismatch as e:
                problems.append(str(e))
                raise
            finally:
                c.sync = sync
            return result

        c.sync = sync
        return c

    object.__setattr__(sc, "make_cluster", make_checked)  # Scenario is a frozen dataclass
    try:
        sc.run(strict=False)
    except uo.Mismatch:
        pass
    assert not problems, problems[0]
    assert compared, f"scenario {name} made no sync"


# ------------------------------------------------------------------ the error paths, one by one

def _web(name="web", **spec):
    base = {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]}}}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name}, "spec": base}


def _bring_up(c, oracle, log):
    for _ in range(40):
        uo.checked_sync(c, oracle, "web", log=log)
        if c.kubelet.step() is None and all(p.ready for p in c.pods("web")) \
                and len(c.pods("web")) == c.statefulset("web").spec.replicas:
            return


def _notfound_on_update_delete(c, oracle, log):
    c.apply(_web())
    _bring_up(c, oracle, log)
    c.set_image("web", "nginx:2")
    c.inject_error("delete", "Pod", reason="NotFound")


def _failed_revision_create(c, oracle, log):
    c.apply(_web(updateStrategy={"type": "OnDelete"}, revisionHistoryLimit=0))
    _bring_up(c, oracle, log)
    c.set_image("web", "nginx:2")
    uo.checked_sync(c, oracle, "web", log=log)
    c.set_image("web", "nginx:3")
    c.inject_error("create", "ControllerRevision")


def _deleting_set_with_orphan_revision(c, oracle, log):
    c.apply(_web(replicas=1))
    _bring_up(c, oracle, log)
    # another set with the same selector leaves an orphan revision behind
    c.apply(_web("old", replicas=0, template={"metadata": {"labels": {"app": "web"}},
                                              "spec": {"containers": [{"name": "nginx", "image": "nginx:9"}]}}))
    c.sync("old")
    c.delete("old", cascade="orphan")
    c.advance(0)
    c.delete("web", cascade="foreground")  # web-0 blocks: web stays, being deleted


def _failed_pod_create_with_claims(c, oracle, log):
    claims = [{"metadata": {"name": "data"},
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    c.apply(_web(replicas=1, volumeClaimTemplates=claims))
    _bring_up(c, oracle, log)
    c.patch("web", {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}})
    c.delete_pod("web-0")
    c.kubelet.finish_termination("web-0")
    c.inject_error("create", "Pod")


def _issue27(setup, **cluster):
    """A minimised history of issue 27 (tests/controller/upstream/test_upstream_rules.py), run beside the real code."""
    def run(c, oracle, log):
        setup(c)
    run.cluster = cluster  # Cluster() arguments of the history
    return run


def _status_conflict(c):
    c.apply(rules.web(1))
    c.inject_error("update", "StatefulSet", reason="Conflict")


def _pod_conflict(c):
    c.apply(rules.web(1))
    c.sync("web")
    rules.ready(c, "web-0")
    c.patch_pod("web-0", {"metadata": {"labels": {"statefulset.kubernetes.io/pod-name": None}}})
    c.inject_error("update", "Pod", reason="Conflict")


def _failed_sync_with_min_ready(c):
    rules.ready_with_min_ready_seconds(c)
    c.inject_error("update", "StatefulSet")


def _revision_create_error(c):
    rules.reapply_while_the_old_revision_waits_for_gc(c)
    c.inject_error("create", "ControllerRevision")


def _two_failed_claims(c):
    c.apply(rules.web(1, claims=2))
    c.inject_error("create", "PersistentVolumeClaim", count=2)


ISSUE_27 = {
    "issue 27: claim update error, no claim create after it": _issue27(rules.claim_update_error_then_no_claim_create),
    "issue 27: revision create POSTed for a taken name": _issue27(rules.reapply_while_the_old_revision_waits_for_gc,
                                                                 gc_delay=5),
    "issue 27: revision create error for a taken name": _issue27(_revision_create_error, gc_delay=5),
    "issue 27: status Conflict retried": _issue27(_status_conflict),
    "issue 27: pod update Conflict retried": _issue27(_pod_conflict),
    "issue 27: leading-zero ordinal": _issue27(rules.hand_made_leading_zero_pod),
    "issue 27: no requeue after a failed sync": _issue27(_failed_sync_with_min_ready),
    "issue 27: release answered Invalid": _issue27(rules.released_pod_answers_invalid),
    "issue 27: two failed claims, one pod event": _issue27(_two_failed_claims),
    "issue 27: claim update Conflict inside UpdateStatefulPod": _issue27(rules.claim_conflict_in_update_closure),
    "issue 27: twin pods, only the one in the slot counted": _issue27(rules.orphan_adopted_beside_a_leading_zero_twin),
    # web-01 made after web-1 comes later in the kit's list and takes the slot; the oracle
    # lists pods in the kit's order (random upstream), else web-1 would take it there
    "issue 27: twin pod made after the canonical one": _issue27(rules.hand_made_twin_pod),
}


ERROR_PATHS = {
    "rolling-update delete answered NotFound": _notfound_on_update_delete,
    "failed revision create, then truncateHistory": _failed_revision_create,
    "set being deleted with an orphan revision": _deleting_set_with_orphan_revision,
    "failed pod create still fixes its claims' owner refs": _failed_pod_create_with_claims,
}


ERROR_PATHS.update(ISSUE_27)


# Paths v1.16.15 took otherwise, so that its sync has no failed request there (docs/profiles.md):
# what it does instead, checked on its answer.
V116_PATHS = {
    # adoptOrphanRevisions compared only the uid of the set it re-read, not its deletion timestamp
    "set being deleted with an orphan revision":
        lambda answer: ("patch", "ControllerRevision", "old-8df5464bd") in
                       [(w["verb"], w["kind"], w["name"]) for w in answer["writes"]],
}


# What the random histories with resource-version conflicts found (tests/controller/upstream/test_upstream_rules.py),
# compared with the checks on: UpdateStatefulPod's retry over caught-up caches.
CONFLICT_PATHS = {
    "adopted pod, claim without owner: the retry finds the pod consistent": rules.orphan_whose_claim_lost_its_owner,
    "Parallel batch: a pod update from the listed copy after another pod's Conflict":
        rules.parallel_orphans_whose_claims_lost_their_owner,
    "adopted Running orphan without volumes: the retry creates no claim": rules.running_orphan_without_volumes,
}


@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
@pytest.mark.parametrize("case", sorted(CONFLICT_PATHS))
def test_conflict_paths_agree(case, profile):
    """The minimised histories of the conflicts run: that sync and the next agree with the real
    controller with resource-version checks on."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    CONFLICT_PATHS[case](c)
    result, answer = uo.checked_sync(c, oracle, "web", conflicts=True)
    assert any(w.get("reason") == "Conflict" for w in answer["writes"]), "no write met a Conflict"
    uo.checked_sync(c, oracle, "web", conflicts=True)


@pytest.mark.parametrize("conflict", ("stale copy", "injected"))
@pytest.mark.parametrize("profile", PROFILES)
def test_revision_renumbering_after_a_conflict_agrees(profile, conflict):
    """UpdateControllerRevision's retry after a Conflict renumbers the empty object the client
    returned beside the error, which client-go refuses unsent: both sides send one renumbering,
    answered 409, and fail the sync with "resource name may not be empty"; the next sync agrees too.
    The Conflict comes from the stale cache copy of a revision adopted in the same sync (checks on),
    or is injected (checks off)."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    rules.orphaned_and_reapplied_with_an_older_template(c)
    if conflict == "injected":
        c.inject_error("update", "ControllerRevision", reason="Conflict", after=2)  # after the adoptions
    result, answer = uo.checked_sync(c, oracle, "web", conflicts=conflict == "stale copy")
    renumbering = [(w["verb"], w["kind"], w.get("reason")) for w in answer["writes"] if w["verb"] == "update"]
    assert renumbering == [("update", "ControllerRevision", "Conflict")], answer["writes"]
    assert answer["error"] == result.error == "resource name may not be empty"
    c.clear_errors()
    uo.checked_sync(c, oracle, "web", conflicts=conflict == "stale copy")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_failed_adoption_run_agrees_in_either_order(profile):
    """AdoptOrphanRevisions stops at the first failed patch, and the orphans come from the revision
    lister's index (a Go map): which of two orphans upstream adopts before the second patch fails
    is random. Found by the current long run 3 of branch rev409, where the owners were compared by
    name. The same history a dozen times (upstream took either order here), each sync and the
    next agree with the real controller."""
    oracle = oracle_for(profile)
    for _ in range(12):
        c = stsedu.Cluster(kubelet="manual", profile=profile)
        comparison.two_orphan_revisions_second_adoption_fails(c)
        _, answer = uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)
        assert [bool(w.get("error")) for w in answer["writes"]] == [False, True], answer["writes"]
        if profile == "v1.16":  # the next sync meets one owned and one orphan revision: below
            continue
        c.clear_errors()
        uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_pod_the_kit_s_garbage_collector_deletes_during_the_sync_agrees(profile):
    """The kit's world is not compared: a foreign pod whose owner is gone, which the kit's garbage
    collector deletes during the sync (woken by the failed pod the sync removes, grace 0), is
    terminating on the kit's side only. Here the sync also writes that pod (a leading-zero web-01
    renamed onto it, refused by the uid precondition, then the retry updates the foreign web-1), so
    it is compared: every field but whether it is terminating. Found by the current long run of
    branch oracle4 (history ~1,500, after the claim difference above, retention Retain)."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile, gc_delay=0)
    template = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}], "terminationGracePeriodSeconds": 0}}
    c.apply(rules.web(1, podManagementPolicy="Parallel", template=template))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.fail("web-0", reason="DeadlineExceeded")
    spec = {"containers": [{"name": "nginx", "image": "nginx:1"}]}
    c.store.create("Pod", Pod(name="web-01", labels={"app": "web"}, phase="Pending", spec=dict(spec, hostname="web-01"),
                              owner_references=(c.store.get("StatefulSet", "default", "web").ref(),)))
    other = OwnerReference(kind="ReplicaSet", name="other", uid="foreign-uid", api_version="apps/v1", controller=True)
    c.store.create("Pod", Pod(name="web-1", labels={"app": "web"}, phase="Pending", spec=dict(spec, hostname="web-1"),
                              owner_references=(other,)))
    c.scale("web", 2)
    _, answer = uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)
    assert c.pod("web-1").deletion_timestamp is not None, "the kit's garbage collector did not delete web-1"
    assert ("update", "Pod", "web-1", False) in uo.oracle_writes(answer), answer["writes"]


def _beside_an_orphan_revision(profile: str) -> stsedu.Cluster:
    """``web`` owns its revision (number 1); another set with the same selector, deleted with
    ``--cascade=orphan``, left its own number-1 revision, made at the same time, as an orphan."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(1))
    c.sync("web")
    c.apply(_web("old", replicas=0, template={"metadata": {"labels": {"app": "web"}},
                                              "spec": {"containers": [{"name": "nginx", "image": "nginx:9"}]}}))
    c.sync("old")
    c.delete("old", cascade="orphan")
    c.advance(0)
    return c


def test_v116_adopts_every_revision_of_the_set_once_one_is_an_orphan():
    """v1.16.15's adoptOrphanRevisions (stateful_set.go) hands every revision ListRevisions returns,
    the set's own ones too, to AdoptOrphanRevisions as soon as one of them is an orphan, and
    AdoptControllerRevision (controller_history.go) refuses a revision that has a controller before
    any request ("attempt to adopt revision owned by ..."): the sync fails there, after the orphans
    the lister's (random) order put first. Later releases pass the orphans only. Found by
    test_a_failed_adoption_run_agrees_in_either_order's next sync; minimised: the set owns one
    revision, another set with the same selector left an orphan one. The kit tries the orphans
    first (one of the lister's orders), so its sync fails once, having adopted them, and the next
    goes on; upstream may adopt fewer first, which the comparison accepts (run a few times)."""
    oracle = oracle_for("v1.16")
    for _ in range(4):
        c = _beside_an_orphan_revision("v1.16")
        orphan = next(r.name for r in c.store.list("ControllerRevision", "default") if not r.owner_references)
        result, _ = uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)
        assert result.error.startswith("attempt to adopt revision owned by &OwnerReference{Kind:StatefulSet,"
                                       "Name:web,"), result.error
        assert [r.name for r in c.store.get("ControllerRevision", "default", orphan).owner_references] == ["web"]
    result, _ = uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)
    assert result.error is None, "with no orphan left, the next sync goes on"


@pytest.mark.parametrize("profile", PROFILES)
def test_revisions_of_one_number_made_at_the_same_time_are_ordered_by_name(profile):
    """SortControllerRevisions (controller_history.go) orders revisions by number, then
    creationTimestamp, then name. A set adopts the orphan revision another set left, both number 1
    and made at the same time: the newest is the one whose name sorts last, so whether the set's own
    template is 'immediately prior' (getStatefulSetRevisions: no renumbering) follows the names. The
    kit broke the tie by creation order, renumbered its own revision and wrote it (found by the v1.16
    adoption test's second sync)."""
    oracle = oracle_for(profile)
    c = _beside_an_orphan_revision(profile)
    for _ in range(2):  # v1.16's first sync fails after the adoption (above)
        uo.checked_sync(c, oracle, "web", conflicts=CONFLICTS)
    assert [r.revision for r in c.revisions("web")] == [1, 1], "no revision was renumbered"


def _requests_sent(cluster, answer) -> list[tuple]:
    """(verb, kind, name) of every request the real controller's sync sent (which the kit's matched)."""
    return [w[:3] for w in uo.oracle_writes(answer, cluster.profile.delete_ignores_not_found)]


@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
def test_claims_after_a_pod_create_answered_conflict_agree(profile):
    """CreateStatefulPod sets its claims' owner refs after a failed pod create
    (UpdatePodClaimForRetentionPolicy, from the claim lister). Found by the v1.36 long run of branch
    rev409: the pod create answered Conflict, so the oracle's fake API server caught its caches up
    and the lister held the claims this sync had just created: upstream updates them (the kit planned
    the claim work before the sync and skipped them, until StatefulPodControl.create_stateful_pod read
    the caught-up claims after a Conflict)."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(1, claims=1, persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete",
                                                                          "whenScaled": "Delete"}))
    c.inject_error("create", "Pod", reason="Conflict")
    _, answer = uo.checked_sync(c, oracle, "web", conflicts=True)
    assert ("update", "PersistentVolumeClaim", "data-web-0") in _requests_sent(c, answer)


@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
def test_retry_fixes_the_owner_refs_of_a_claim_its_first_try_created(profile):
    """UpdateStatefulPod's retry.RetryOnConflict closure, run again over caught-up caches, checks
    ClaimsMatchRetentionPolicy and calls UpdatePodClaimForRetentionPolicy. Found by the current long
    run of branch rev409: a Parallel set with a retention policy adopts a hand-made Running orphan
    without volumes; the first try creates its claim and sends the pod from the stale copy (409); the
    retry finds the new claim without the set's owner ref and updates it (the kit's retry re-sent the
    pod only, until StatefulPodControl's retry read the claims again: now its closure reads them through
    ClusterObjects.get_claim, caught up by the Conflict)."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(0, claims=1, podManagementPolicy="Parallel",
                      persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}))
    c.sync("web")
    c.store.create("Pod", Pod(name="web-0", labels={"app": "web"}, phase="Pending",
                              spec={"containers": [{"name": "nginx", "image": "nginx:1"}], "hostname": "web-0"}))
    c.kubelet.start("web-0")
    c.scale("web", 1)
    _, answer = uo.checked_sync(c, oracle, "web", conflicts=True)
    assert ("update", "PersistentVolumeClaim", "data-web-0") in _requests_sent(c, answer)


@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
def test_retry_after_a_rename_onto_a_foreign_pod_fixes_the_claim_it_created(profile):
    """The same rule as above (UpdateStatefulPod's retry.RetryOnConflict closure: ClaimsMatchRetentionPolicy,
    then UpdatePodClaimForRetentionPolicy over caught-up caches), reached another way. Found by the
    current long run of branch oracle4 with the step-around on: a leading-zero pod web-00 beside a
    foreign pod web-0 (another controller's); updateIdentity renames web-00 to web-0, the first try
    creates data-web-0 and sends the pod to pods/web-0, refused by the uid precondition (409); the
    retry re-reads web-0 (the foreign pod), finds data-web-0 without the set's owner ref and updates
    it. The kit's retry sent the pod only (it left another pod's claims alone), until it looked again
    at the claims its first try created."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(0, claims=1, podManagementPolicy="Parallel",
                      persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}))
    c.sync("web")
    spec = {"containers": [{"name": "nginx", "image": "nginx:1"}]}
    c.store.create("Pod", Pod(name="web-00", labels={"app": "web"}, phase="Pending", spec=dict(spec, hostname="web-00"),
                              owner_references=(c.store.get("StatefulSet", "default", "web").ref(),)))
    c.kubelet.start("web-00")
    other = OwnerReference(kind="ReplicaSet", name="other", uid="foreign-uid", api_version="apps/v1", controller=True)
    c.store.create("Pod", Pod(name="web-0", labels={"app": "web"}, phase="Pending", spec=dict(spec, hostname="web-0"),
                              owner_references=(other,)))
    c.scale("web", 1)
    _, answer = uo.checked_sync(c, oracle, "web", conflicts=True)
    assert ("update", "PersistentVolumeClaim", "data-web-0") in _requests_sent(c, answer)


@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
def test_retry_of_a_renamed_pod_goes_on_with_the_pod_it_fixed_in_place(profile):
    """UpdateStatefulPod's retry.RetryOnConflict closure works on its own copy of the pod: after a
    Conflict, GetPod of the new name finds nothing, so the copy it renamed (updateIdentity) and gave
    volumes (updateStorage) is kept. Its next run checks ClaimsMatchRetentionPolicy for that copy and
    updates the claims it created; the run after finds the copy consistent and returns nil, so the
    sync goes on. Found by the current long run on main at 166cdaa (5,350 histories in): a leading-zero
    pod web-01, two claim templates, whenDeleted Delete, every pod update answered Conflict. The kit
    looked the renamed pod up by name (none), fixed no claim, sent the pod again and failed the sync."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(0, claims=2, podManagementPolicy="Parallel", updateStrategy={"type": "OnDelete"},
                      persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}))
    c.sync("web")
    spec = {"containers": [{"name": "nginx", "image": "nginx:1"}], "hostname": "web-01"}
    c.store.create("Pod", Pod(name="web-01", labels={"app": "web"}, phase="Pending", spec=spec,
                              owner_references=(c.store.get("StatefulSet", "default", "web").ref(),)))
    c.kubelet.start("web-01")
    c.scale("web", 3)
    c.inject_error("update", "Pod", count=50, reason="Conflict")
    result, answer = uo.checked_sync(c, oracle, "web", conflicts=True)
    assert answer["error"] is None and c.pod("web-2") is not None, "upstream's sync went on to create web-2"


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", sorted(ERROR_PATHS))
def test_error_paths_agree(case, profile):
    """The error paths a review found the kit handled unlike upstream: the sync that takes
    each path, and the one after it, agree with the real controller."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile, **getattr(ERROR_PATHS[case], "cluster", {}))
    log: list = []
    ERROR_PATHS[case](c, oracle, log)
    result, answer = uo.checked_sync(c, oracle, "web", log=log)
    if profile == "v1.16" and case in V116_PATHS:
        assert V116_PATHS[case](answer), "v1.16's own path was not taken"
    else:
        assert any(w.get("error") for w in answer["writes"]) or answer["error"] or case.startswith("issue 27"), \
            "the error path was not taken"
    c.clear_errors()
    uo.checked_sync(c, oracle, "web", log=log)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_sync_past_the_create_budget_sends_what_upstream_sends_when_creates_are_refused(profile, monkeypatch):
    """The kit's create budget (stsedu.limits.MAX_PODS_PER_SYNC) stands for the API server's rate
    limits: past it a create is answered TooManyRequests.  The real controller, answered
    TooManyRequests for the same creates, sends the same requests: slowStartBatch (v1.36, v1.37)
    sends the rest of the batch the first refusal falls in (slots 3-6 here: web-5 and web-6 refused)
    and no later batch; v1.16's loop returns at the first failed create.  The kit stopped at the
    first refusal in every profile before."""
    monkeypatch.setattr(stsedu.limits, "MAX_PODS_PER_SYNC", 5)
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(12, podManagementPolicy="Parallel"))
    before, now = c.dump()["objects"], c.now
    gates = {g: bool(c.feature_gates.get(g, False)) for g in uo.UPSTREAM_GATES
             if g != "StatefulSetRecreateStrategy" or g in c.profile.known_gates}
    result = c.sync("web")
    answer = oracle.sync("web", before, now, [("create", "Pod", 5, 100, "TooManyRequests")], gates)
    kit = sorted(uo.canonical(uo.kit_writes(result, "web")))
    assert kit == sorted(uo.canonical(uo.oracle_writes(answer, c.profile.delete_ignores_not_found)))
    assert [w[2] for w in kit if w[3]] == (["web-5"] if profile == "v1.16" else ["web-5", "web-6"])
    assert result.error is not None and answer["error"] is not None


@pytest.mark.parametrize("profile", PROFILES)
def test_every_failed_adoption_is_in_the_sync_error(profile):
    """ClaimPods tries every pod and returns all their errors aggregated (utilerrors.NewAggregate),
    which syncStatefulSet returns: two orphans whose adoption is refused give one error naming both,
    word for word the real controller's.  The kit returned the first (found by reading)."""
    oracle = oracle_for(profile)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply(rules.web(2))
    spec = {"containers": [{"name": "nginx", "image": "nginx:1"}]}
    for name in ("web-0", "web-1"):
        c.store.create("Pod", Pod(name=name, labels={"app": "web"}, phase="Pending", spec=dict(spec, hostname=name)))
    c.inject_error("update", "Pod", count=2)
    result, answer = uo.checked_sync(c, oracle, "web")
    assert result.error == answer["error"] and "'web-0'" in result.error and "'web-1'" in result.error


# ------------------------------------------------------------------ issue 40: a second driver's five shapes

def _checked_up(c, oracle, log, conflicts, syncs=30):
    """Sync, kubelet step, one second, until every replica is Ready, then a sync that counts them
    (each sync checked)."""
    for _ in range(syncs):
        uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
        c.kubelet.step()
        c.advance(1)
        pods = c.pods("web")
        if len(pods) == c.statefulset("web").spec.replicas and all(p.ready for p in pods):
            uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
            return


def _claims_of_pending_pods(c, oracle, log, conflicts):
    """Shape 1: Parallel, minReadySeconds, retention Delete/Delete; sync, one kubelet step, sync."""
    c.apply(rules.web(3, claims=1, podManagementPolicy="Parallel", minReadySeconds=3, serviceName="",
                      persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"}))
    c.set_image("web", "nginx:2")
    uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
    c.kubelet.step()


def _status_conflict_after_a_strategy_change(c, oracle, log, conflicts):
    """Shape 2: Parallel OnDelete with a claim, then RollingUpdate maxUnavailable 2 and a new image,
    with a Conflict on the status update."""
    c.apply(rules.web(3, claims=1, podManagementPolicy="Parallel", updateStrategy={"type": "OnDelete"}))
    for _ in range(3):
        uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
        c.kubelet.step()
    c.patch("web", {"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                "rollingUpdate": {"maxUnavailable": 2, "partition": 0}},
                             "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:3"}]}}}})
    c.inject_error("update", "StatefulSet", reason="Conflict")


def _reapplied_at_once(c, oracle, log, conflicts):
    """Shape 3: OrderedReady with two claims, whenDeleted Delete, the collector 5 s behind; Ready,
    deleted in the background and applied again at once."""
    m = rules.web(4, claims=2, persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete"})
    c.apply(m)
    _checked_up(c, oracle, log, conflicts)
    c.delete("web")
    c.apply(m)


def _rollback_among_orphaned_revisions(c, oracle, log, conflicts):
    """Shape 4: revisionHistoryLimit 0, minReadySeconds 2; Ready, a new image, web-1 failing three
    times; orphaned and applied again two seconds later with the first image (a rollback)."""
    m = rules.web(3, revisionHistoryLimit=0, minReadySeconds=2)
    c.apply(m)
    _checked_up(c, oracle, log, conflicts)
    c.set_image("web", "nginx:2")
    uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
    for _ in range(3):
        c.kubelet.fail("web-1")
        for _ in range(2):  # deleted, then created again
            uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
            c.kubelet.step()
    c.delete("web", cascade="orphan")
    c.advance(2)
    c.apply(m)


def _leading_zero_orphan(c, oracle, log, conflicts):
    """Shape 5: Parallel OnDelete, two claims, whenScaled Delete, ordinals from 1, five Ready pods
    (web-1 to web-5) and a hand-made Ready web-05 with the set's labels: a twin of web-5."""
    c.apply(rules.web(5, claims=2, podManagementPolicy="Parallel", updateStrategy={"type": "OnDelete"},
                      persistentVolumeClaimRetentionPolicy={"whenScaled": "Delete"}, ordinals={"start": 1}))
    _checked_up(c, oracle, log, conflicts)
    c.store.create("Pod", Pod(name="web-05", labels={"app": "web"}, phase="Pending",
                              spec={"containers": [{"name": "nginx", "image": "nginx:1"}]}))
    rules.ready(c, "web-05")


def _sent(answer, verb, kind, name) -> list:
    """The real controller's requests *verb* *kind* *name* in its sync, as their answers' reasons."""
    return [w.get("reason") for w in answer["writes"] if (w["verb"], w["kind"], w["name"]) == (verb, kind, name)]


# case: (history, Cluster() arguments, what the real controller's sync shows, given whether checks are on)
ISSUE_40 = {
    "1: claims of Pending pods updated again from the stale lister": (
        _claims_of_pending_pods, {},
        lambda a, on: _sent(a, "update", "PersistentVolumeClaim", "data-web-1") == [None, "Conflict" if on else None]),
    "2: status update sent again after a Conflict": (
        _status_conflict_after_a_strategy_change, {},
        lambda a, on: _sent(a, "update", "StatefulSet", "web") == ["Conflict", None]),
    "3: revision create sent for a name that exists": (
        _reapplied_at_once, {"gc_delay": 5},
        lambda a, on: "AlreadyExists" in [w.get("reason") for w in a["writes"] if w["kind"] == "ControllerRevision"]),
    "4: rollback among orphaned revisions": (
        _rollback_among_orphaned_revisions, {},
        lambda a, on: (a["error"] == "resource name may not be empty") == on
        and _sent(a, "update", "ControllerRevision", "web-84df6466") == ["Conflict" if on else None]),
    "5: leading-zero orphan adopted": (
        _leading_zero_orphan, {},
        lambda a, on: _sent(a, "patch", "Pod", "web-05") == [None] and _sent(a, "update", "Pod", "web-5")),
}


@pytest.mark.parametrize("conflicts", (True, False), ids=("checks on", "checks off"))
@pytest.mark.parametrize("profile", ("current", "v1.36"))  # retention policies: not in v1.16
@pytest.mark.parametrize("case", sorted(ISSUE_40))
def test_issue_40_shapes_agree(case, profile, conflicts):
    """The five shapes an independent driver reported (issue 40), as histories: every sync agrees
    with the real controller, with resourceVersion checks (a real API server; the driver ran the
    kit so) and without (the driver's fake clientset), the shape's sync and the next one too."""
    oracle = oracle_for(profile)
    setup, cluster, shows = ISSUE_40[case]
    c = stsedu.Cluster(kubelet="manual", profile=profile, **cluster)
    log: list = []
    setup(c, oracle, log, conflicts)
    _, answer = uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)
    assert shows(answer, conflicts), f"the shape was not reached: {answer['writes']}"
    c.clear_errors()
    uo.checked_sync(c, oracle, "web", log=log, conflicts=conflicts)


def test_issue_40_leading_zero_twin_listed_first_is_only_adopted():
    """Shape 5's other outcome: updateStatefulSet puts each pod at replicas[ordinal - start], the
    later-listed twin taking the slot, and the informer lists pods in a Go map's order (random).
    Listed by name, as the second driver's harness did, web-05 comes before web-5: upstream adopts
    it, web-5 keeps the slot and nothing else is sent.  The kit lists in creation order (web-05
    last, so it takes the slot and is renamed by updateIdentity), and the suite hands the oracle
    that order (test_issue_40_shapes_agree)."""
    oracle = oracle_for("current")
    c = stsedu.Cluster(kubelet="manual")
    _leading_zero_orphan(c, oracle, [], True)
    by_name = sorted(p.name for p in c.store.list("Pod", "default"))
    answer = oracle.sync("web", c.dump()["objects"], c.now, c.pending_errors(), {}, "default",
                         conflicts=True, pod_order=by_name)
    assert [(w["verb"], w["kind"], w["name"]) for w in answer["writes"]] == [("patch", "Pod", "web-05")]
    assert answer["error"] is None


# ------------------------------------------------------------------ the Recreate strategy (v1.37, alpha)

RECREATE_ON = {"StatefulSetRecreateStrategy": True}


def _recreate_failed_delete(c, oracle, log):
    c.apply(_web(updateStrategy={"type": "Recreate"}))
    _bring_up(c, oracle, log)
    c.set_image("web", "nginx:2")
    c.inject_error("delete", "Pod", count=50)  # every delete: they run in goroutines


def _recreate_gate_switched_off(c, oracle, log):
    c.apply(_web(updateStrategy={"type": "Recreate"}, revisionHistoryLimit=0))
    _bring_up(c, oracle, log)
    c.set_image("web", "nginx:2")
    uo.checked_sync(c, oracle, "web", log=log)
    c.feature_gates["StatefulSetRecreateStrategy"] = False  # a stored Recreate set, the gate now off


def _recreate_scale_down_during_recreate(c, oracle, log):
    c.apply(_web(updateStrategy={"type": "Recreate"}, podManagementPolicy="Parallel", replicas=4))
    _bring_up(c, oracle, log)
    c.set_image("web", "nginx:2")
    c.scale("web", 2)
    c.inject_error("delete", "Pod", count=50, reason="InternalError")


RECREATE_PATHS = {
    "recreateDeleteAndWait: a failed delete, no Progressing condition set": _recreate_failed_delete,
    "updateStatefulSet: Recreate with the gate off, UnknownStrategy": _recreate_gate_switched_off,
    "recreateDeleteAndWait: condemned old pods too, every delete failing": _recreate_scale_down_during_recreate,
}


@pytest.mark.parametrize("case", sorted(RECREATE_PATHS))
def test_recreate_paths_agree(case):
    """Recreate's error paths (gate StatefulSetRecreateStrategy on, current profile): the sync that
    takes each one and the syncs after it agree with the real controller, up to a stable set."""
    oracle = oracle_for("current")
    c = stsedu.Cluster(kubelet="manual", profile="current", feature_gates=dict(RECREATE_ON))
    log: list = []
    RECREATE_PATHS[case](c, oracle, log)
    _, answer = uo.checked_sync(c, oracle, "web", log=log)
    assert any(w.get("error") for w in answer["writes"]) or answer["error"], "the error path was not taken"
    c.clear_errors()
    c.feature_gates["StatefulSetRecreateStrategy"] = True
    _bring_up(c, oracle, log)
    assert {p.revision for p in c.pods("web")} == {c.statefulset("web").status.update_revision}
