"""Labs: one small panel per idea of the notebook series, and predict-then-see questions.

A *lab* owns a :class:`~stsedu.Cluster` with one StatefulSet ``web`` and a
few controls: exactly the knobs of one idea (replicas and a blocked
scale-down, partition and image, the retention policy, ...).  Every change
is made the way a person would make it with kubectl, then the controller
runs until the set is stable; the lab redraws, in place,

* what you did and when (simulated time),
* the decisions of the syncs that change caused (plain words; the upstream
  rule shows on hover),
* the objects the idea is about (``kubectl get pods``, claims, history ...),
* a chart of the whole run (pod timeline, revision map, status counters).

Every control is also a plain method (``lab.set_replicas(2)``,
``lab.delete_pod("web-1")``), which the tests and the browser test use.  A
bad value never raises: the API server's error shows in the lab, the cluster
is left as it was and the controls snap back.

:func:`reveal` is the predict-then-see half: a question about a situation
the simulator sets up, answered in a code cell (``answer = ...``).  With no
answer it only repeats the question and the form of an answer; with one it
runs the simulator, shows what happened (decisions and chart) and says ✓ or
✗ with the rule.  The expected answer is never stored anywhere: it is what
the simulator does.
"""

from __future__ import annotations

import copy
import json

from typing import Any, Callable

import ipywidgets as W

from ..lessons import examples
from ..cluster import Cluster
from ..controller.decisions import SyncResult
from .lab_base import (LAB_ERRORS, BROKEN_IMAGE, CHARTS, IMAGES, MAX_REPLICAS, Lab, LabChart, decisions_html,
                       did_sentence)
from .panels import esc
from ..i18n import N_, _
from .predict import QUESTIONS, Question, Reveal, question, reveal

__all__ = ["Lab", "IdentityLab", "StorageLab", "ScalingLab", "UpdateLab", "PartitionLab", "OnDeleteLab",
           "OwnershipLab", "PolicyLab", "AvailabilityLab", "FaultLab", "HistoryLab", "ProfileLab", "StepLab",
           "LabChart", "Question", "QUESTIONS", "Reveal", "question", "reveal", "decisions_html", "IMAGES",
           "BROKEN_IMAGE", "CHARTS"]


class IdentityLab(Lab):
    """01: where the pods' names come from: ``ordinals.start`` and replicas."""

    title = N_("Identity lab: ordinals.start and replicas")
    intro = N_("Move the first ordinal or the number of replicas; watch which names exist and what each pod is called.")
    views = ("identity",)

    def _controls(self):
        s = self._sts().spec
        self.w_start = self.slider("ordinals.start", s.start_ordinal, 0, 5, self.set_start)
        self.w_replicas = self.slider("replicas", s.replicas, 0, MAX_REPLICAS, self.scale, MAX_REPLICAS)
        return [W.HBox([self.w_start, self.w_replicas])]

    def set_start(self, start: int):
        return self.patch({"spec": {"ordinals": {"start": start}}}, _("first ordinal {n}").format(n=start))


class StorageLab(Lab):
    """02: one claim per pod; what scale-down and deletion do to the claims."""

    title = N_("Storage lab: claims, scaling and the retention policy")
    intro = N_("Each pod gets its own PersistentVolumeClaim. Scale down and up, pick what happens to "
             "the claims when scaled down or when the set is deleted.")
    views = ("pods", "pvc")

    def default_manifest(self):
        return examples.web(3, claims=True)

    def _controls(self):
        self.w_replicas = self.slider("replicas", self._sts().spec.replicas, 0, MAX_REPLICAS, self.scale,
                                      MAX_REPLICAS)
        self.w_scaled = self.choice("whenScaled", ["Retain", "Delete"], "Retain",
                                    lambda v: self.set_retention(when_scaled=v))
        self.w_deleted = self.choice("whenDeleted", ["Retain", "Delete"], "Retain",
                                     lambda v: self.set_retention(when_deleted=v))
        self.b_delete = self.button(N_("Delete the set"), self.delete_set, "danger")
        self.b_create = self.button(N_("Create it again"), self.recreate, "success")
        return [W.HBox([self.w_replicas, self.b_delete, self.b_create]), W.HBox([self.w_scaled, self.w_deleted])]

    def set_retention(self, when_scaled: str | None = None, when_deleted: str | None = None):
        pol = {}
        if when_scaled:
            pol["whenScaled"] = when_scaled
        if when_deleted:
            pol["whenDeleted"] = when_deleted
        return self.patch({"spec": {"persistentVolumeClaimRetentionPolicy": pol}}, _("retention policy"))

    def delete_set(self):
        def go(c):
            c.delete(self.name)
            c.advance(60)  # kubectl waits while the garbage collector removes the pods
        return self.change(f"<code>kubectl delete sts {self.name}</code> (then 60s pass)", go, run=False)

    def recreate(self):
        if self._exists():
            self.last_error = ValueError(f"statefulset {self.name!r} already exists")
            self._redraw()
            return []
        m = examples.web(self.w_replicas.value, claims=True)
        m["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenScaled": self.w_scaled.value,
                                                             "whenDeleted": self.w_deleted.value}
        return self.change("<code>kubectl apply -f web.yaml</code>", lambda c: c.apply(m))


class ScalingLab(Lab):
    """03: OrderedReady scaling, and a scale-down blocked by an unhealthy pod."""

    title = N_("Scaling lab: replicas, and a pod that is not healthy")
    intro = N_("Move replicas up or down. Untick <i>web-0 healthy</i> to make web-0 fail its readiness "
             "probe, then scale down: what happens to the pods that should go?")
    views = ("pods",)

    def _controls(self):
        self.w_replicas = self.slider("replicas", self._sts().spec.replicas, 0, MAX_REPLICAS, self.scale,
                                      MAX_REPLICAS)
        self.w_healthy = W.Checkbox(value=True, description=_("web-0 healthy"), indent=False)
        self.w_healthy.observe(lambda ch: self._from_widget(self.set_healthy, ch["new"]), names="value")
        return [W.HBox([self.w_replicas, self.w_healthy])]

    def set_healthy(self, healthy: bool):
        """web-0's readiness probe passes (True) or fails (False) from now on, also for a web-0
        that does not exist yet (scaled to 0): the checkbox is a rule about web-0."""
        if not isinstance(healthy, bool):
            return self.refuse(ValueError(f"healthy must be True or False, not {healthy!r}"))

        def go(c):
            pod = next((p for p in c.pods(self.name) if p.name == "web-0"), None)
            if healthy:
                c.kubelet.clear_behaviours()
                if pod is not None and pod.phase == "Running" and not pod.ready:
                    c.kubelet.set_ready("web-0")
            else:
                c.kubelet.never_ready(pod="web-0")
                if pod is not None and pod.ready:
                    c.kubelet.set_unready("web-0")
        before, self._healthy = self._healthy, healthy
        out = self.change(_("web-0's readiness probe passes") if healthy else _("web-0's readiness probe fails"), go)
        if self.last_error is not None:
            self._healthy = before
            self._sync_controls()
        return out

    _healthy = True

    def _sync_controls(self) -> None:
        super()._sync_controls()
        if getattr(self, "w_healthy", None) is not None and self.w_healthy.value != self._healthy:
            self._set_control(self.w_healthy, self._healthy)


class PolicyLab(ScalingLab):
    """09: OrderedReady against Parallel, on the same scaling."""

    title = N_("Policy lab: OrderedReady or Parallel")
    intro = N_("Pick a pod management policy, then move replicas. The policy cannot be edited in place: "
             "the lab deletes the set with <code>--cascade=orphan</code> and creates it again.")

    def _controls(self):
        self.w_replicas = self.slider("replicas", self._sts().spec.replicas, 0, MAX_REPLICAS, self.scale,
                                      MAX_REPLICAS)
        self.w_policy = self.choice("podManagementPolicy", ["OrderedReady", "Parallel"], "OrderedReady",
                                    self.set_policy)
        return [W.HBox([self.w_policy]), W.HBox([self.w_replicas])]

    def set_policy(self, policy: str):
        """Delete the set with ``--cascade=orphan`` and create it again with *policy*; checked
        first on a scratch cluster, so a refused policy leaves the set (and its pods' owner)
        as they were.  The policy the set already has changes nothing."""
        if not self._exists():
            return self.refuse(KeyError(f"statefulset {self.name!r} does not exist"))
        if (policy if policy is not None else "OrderedReady") == self._sts().spec.pod_management_policy:
            return []                  # null is the default, as in a manifest: nothing to change
        m = self._sts().to_manifest()
        m.pop("status", None)
        m["metadata"] = {"name": self.name}
        m["spec"]["podManagementPolicy"] = policy
        try:
            Cluster(kubelet="manual", profile=self.cluster.profile).apply(copy.deepcopy(m))
        except LAB_ERRORS as e:
            return self.refuse(e)

        def go(c):
            c.delete(self.name, cascade="orphan")  # waits, like kubectl, until the set is gone
            c.apply(m)
        return self.change(_("{delete} and {apply} with podManagementPolicy={policy}").format(
            delete=f"<code>kubectl delete sts {self.name} --cascade=orphan</code>",
            apply="<code>kubectl apply</code>", policy=esc(policy)), go)


class UpdateLab(Lab):
    """05: a new image rolls out, highest ordinal first; or waits, with OnDelete."""

    title = N_("Update lab: image and update strategy")
    intro = N_("Pick an image to start a rollout; switch the strategy to OnDelete and pick another image.")
    chart_kind = "revisions"
    views = ("pods",)

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        self.w_strategy = self.choice("updateStrategy", ["RollingUpdate", "OnDelete"], "RollingUpdate",
                                      self.set_strategy)
        return [self.w_image, self.w_strategy]

    def set_strategy(self, strategy: str):
        # kubectl's patch must drop rollingUpdate when it leaves RollingUpdate: the API server refuses
        # rollingUpdate beside any other type (ValidateStatefulSetUpdateStrategy)
        strategy_patch: dict = {"type": strategy}
        if strategy != "RollingUpdate":
            strategy_patch["rollingUpdate"] = None
        return self.patch({"spec": {"updateStrategy": strategy_patch}}, f"strategy {strategy}")


class PartitionLab(Lab):
    """06: a partition stages a rollout: only ordinals >= partition are updated."""

    title = N_("Partition lab: partition and image")
    intro = N_("Only pods whose ordinal is at least the partition get the new image. Pick an image, "
             "then lower the partition step by step.")
    chart_kind = "revisions"

    def default_manifest(self):
        return examples.web(4, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 4}})

    def _controls(self):
        s = self._sts().spec
        self.w_partition = self.slider("partition", s.rolling_update.partition, 0, s.replicas, self.set_partition)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [self.w_image, self.w_partition]

    def set_partition(self, partition: int):
        return self.patch({"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                       "rollingUpdate": {"partition": partition}}}},
                          f"partition {partition}")


class OnDeleteLab(Lab):
    """07: OnDelete: a new image waits until you delete a pod."""

    title = N_("OnDelete lab: image, and delete a pod yourself")
    intro = N_("Pick a new image: nothing is replaced. Delete pods one by one and see what comes back.")
    chart_kind = "revisions"
    chart_since_setup = True

    def default_manifest(self):
        return examples.web(3, updateStrategy={"type": "OnDelete"})

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        # the set's pods, whatever its size: a menu of them (kept up to date at each redraw) and one button
        self.w_pod = W.Dropdown(options=self._pod_names(), description="pod",
                                style={"description_width": "initial"}, layout=W.Layout(width="180px"))
        self.b_delete = self.button(N_("Delete this pod"), lambda: self.delete_pod(self.w_pod.value), "warning")
        return [self.w_image, W.HBox([self.w_pod, self.b_delete])]

    def _pod_names(self) -> list[str]:
        return [p.name for p in sorted(self.cluster.pods(self.name), key=lambda p: p.ordinal)]

    def _redraw(self) -> None:
        names = self._pod_names()
        if list(self.w_pod.options) != names:
            keep = self.w_pod.value
            self.w_pod.options = names
            self.w_pod.value = keep if keep in names else (names[0] if names else None)
        super()._redraw()


class OwnershipLab(Lab):
    """08: deleting the set with or without its pods, and re-adoption."""

    title = N_("Ownership lab: delete the set, keep the pods, adopt them again")
    intro = N_("<code>--cascade=orphan</code> deletes only the StatefulSet: its pods keep running with no "
             "owner. Create the set again and watch it adopt them.")
    views = ("owners", "pods")

    def _controls(self):
        return [W.HBox([self.button(N_("Delete set (--cascade=orphan)"), lambda: self.delete_set("orphan"), "warning"),
                        self.button(N_("Delete set (cascade)"), lambda: self.delete_set("background"), "danger"),
                        self.button(N_("Create the set again"), self.recreate, "success")])]

    def delete_set(self, cascade: str):
        def go(c):
            c.delete(self.name, cascade=cascade)
            c.advance(30)  # the garbage collector acts while kubectl waits
        flag = " --cascade=orphan" if cascade == "orphan" else ""
        return self.change(f"<code>kubectl delete sts {self.name}{flag}</code> (then 30s pass)", go, run=False)

    def recreate(self):
        if self._exists():
            self.last_error = ValueError(f"statefulset {self.name!r} already exists")
            self._redraw()
            return []
        return self.change("<code>kubectl apply -f web.yaml</code>", lambda c: c.apply(self.manifest))


class AvailabilityLab(Lab):
    """10: minReadySeconds (Ready is not yet Available) and maxUnavailable."""

    title = N_("Availability lab: minReadySeconds and maxUnavailable")
    intro = N_("Set how long a pod must be Ready before it counts as Available, and how many pods a "
             "rollout may take down at once; then pick an image to start a rollout.")
    chart_kind = "counters"
    views = ("sts", "pods")

    def default_manifest(self):
        return examples.web(5)

    def _controls(self):
        self.w_mrs = self.slider("minReadySeconds", 0, 0, 30, self.set_min_ready)
        self.w_mu = self.slider("maxUnavailable", 1, 1, 5, self.set_max_unavailable)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [W.HBox([self.w_mrs, self.w_mu]), self.w_image]

    def set_min_ready(self, seconds: int):
        return self.patch({"spec": {"minReadySeconds": seconds}}, f"minReadySeconds {seconds}")

    def set_max_unavailable(self, n: int):
        return self.patch({"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                       "rollingUpdate": {"maxUnavailable": n}}}},
                          f"maxUnavailable {n}")


class FaultLab(Lab):
    """11: a crash loop (the kubelet's business), a Failed pod (the controller's), a stuck rollout, the way out."""

    title = N_("Fault lab: a crash loop, an eviction, a broken image, and the way out")
    intro = N_("Crash <code>web-1</code>'s container: the kubelet restarts it with back-off and the controller "
             "only waits. Evict it (or shut its node down, or give it an <code>activeDeadlineSeconds</code>): "
             "phase Failed, and the controller replaces it. "
             "<code>{image}</code> starts but never passes its readiness probe. Roll it out, "
             "then try to fix the set by putting <code>nginx:1</code> back, and by deleting the stuck pod.")

    def _build(self) -> None:
        super()._build()
        self.header.value = self.header.value.replace("{image}", BROKEN_IMAGE)
    chart_kind = "timeline"
    crash_seconds = 150.0
    """Simulated seconds a crash loop is shown for (crashes, restarts after 10, 20, 40, 80 s)."""

    def _new_cluster(self):
        c = Cluster(profile=self.profile)
        c.kubelet.never_ready(image=BROKEN_IMAGE)
        return c

    def _controls(self):
        return [W.HBox([self.button(N_("web-1 crash-loops"), lambda: self.crash_loop("web-1"), "warning"),
                        self.button(N_("Fix web-1's container"), lambda: self.fix_container("web-1"), "info"),
                        self.button(N_("Evict web-1"), lambda: self.evict("web-1"), "warning"),
                        self.button(N_("web-1's node shuts down"), lambda: self.shut_down_node("web-1"), "warning"),
                        self.button(N_("web-1: activeDeadlineSeconds 30"),
                                    lambda: self.set_deadline("web-1", 30), "warning")]),
                W.HBox([self.button(_("Roll out {image}").format(image=BROKEN_IMAGE), lambda: self.set_image(BROKEN_IMAGE), "danger"),
                        self.button(N_("Put nginx:1 back"), lambda: self.set_image("nginx:1"), "info"),
                        self.button(_("Delete {pod}").format(pod=self.first_updated()), lambda: self.delete_pod(self.first_updated()),
                                    "warning")])]

    def first_updated(self) -> str:
        """The pod a rolling update replaces first, so the one a broken rollout gets stuck on: the highest
        ordinal of the set (upstream: updateStatefulSet walks the replicas from the highest ordinal down)."""
        s = self._sts().spec
        return f"{self.name}-{s.start_ordinal + s.replicas - 1}"

    def crash_loop(self, pod: str):
        """The pod's container exits with an error 1 s after each start: a crash loop, shown for
        :attr:`crash_seconds` simulated seconds (it never ends by itself)."""
        t = self.cluster.now

        def go(c):
            c.kubelet.crash_loop(1, pod=pod)
            if c.pod(pod).phase == "Running" and not c.pod(pod).container_state:
                c.kubelet.crash(pod)
        return (self.change(_("{pod}'s container exits with an error 1 s after each start "
                              "(restartPolicy Always: the kubelet restarts it, with back-off)").format(pod=pod),
                            go, run=False)
                + self._run_for(t + self.crash_seconds))

    def fix_container(self, pod: str):
        """The container stops crashing: at its next restart it runs and turns Ready."""
        return self.change(_("{pod}'s container is fixed: it runs after its next restart").format(pod=pod),
                           lambda c: c.kubelet.clear_behaviours() or c.kubelet.never_ready(image=BROKEN_IMAGE))

    def evict(self, pod: str):
        return self.change(_("the kubelet evicts {pod}: the node ran low on memory (phase Failed, reason Evicted)")
                           .format(pod=pod),
                           lambda c: c.kubelet.evict(pod))

    def fail_pod(self, pod: str):
        """The old name of :meth:`evict` (a pod reaches phase Failed only for a named cause)."""
        return self.evict(pod)

    def shut_down_node(self, pod: str):
        return self.change(_("{pod}'s node shuts down gracefully (phase Failed, reason Terminated)").format(pod=pod),
                           lambda c: c.kubelet.shut_down_node(pod))

    def set_deadline(self, pod: str, seconds: int):
        t = self.cluster.now
        patch = {"spec": {"activeDeadlineSeconds": seconds}}
        return (self.change(f"<code>kubectl patch pod {pod} -p '{json.dumps(patch)}'</code>",
                            lambda c: c.patch_pod(pod, patch), run=False)
                + self._run_for(t + seconds + 60))

    def set_image(self, image):
        # a stuck rollout never becomes stable: stop after two minutes of simulated time
        t = self.cluster.now
        return self.change(f"<code>kubectl set image sts/{self.name} nginx={image}</code>",
                           lambda c: c.set_image(self.name, image), run=False) + self._run_for(t + 120)

    def delete_pod(self, pod):
        t = self.cluster.now
        return self.change(f"<code>kubectl delete pod {pod}</code>", lambda c: c.delete_pod(pod),
                           run=False) + self._run_for(t + 120)

    def _run_for(self, until: float) -> list[SyncResult]:
        if self.last_error is not None:
            return []
        # a stuck pod stays stuck: _run says so, and lets a few seconds pass so that the state it is
        # stuck in shows in the chart, as after any other change
        self._ran = True
        self.last_results = self._run(until=until)
        if self.cluster.clock.peek() is not None and self.cluster.now < until:
            # still going (a crash loop, a back-off): show the whole stretch the lab promised
            self.cluster.advance(until - self.cluster.now)
        self._redraw()
        return self.last_results


class HistoryLab(Lab):
    """12: ControllerRevisions, rollout undo and revisionHistoryLimit."""

    title = N_("History lab: images, undo and revisionHistoryLimit")
    intro = N_("Roll out a few images, undo, and lower the history limit: which revisions are kept?")
    chart_kind = "revisions"
    views = ("history", "revisions")

    def _controls(self):
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        self.w_limit = self.slider("revisionHistoryLimit", 10, 0, 10, self.set_limit)
        return [self.w_image, W.HBox([self.w_limit, self.button(N_("kubectl rollout undo"), self.undo, "info")])]

    def set_limit(self, n: int):
        return self.patch({"spec": {"revisionHistoryLimit": n}}, f"revisionHistoryLimit {n}")

    def undo(self):
        return self.change(f"<code>kubectl rollout undo sts/{self.name}</code>",
                           lambda c: c.rollout_undo(self.name))



class ProfileLab(Lab):
    """15: the same changes under today's controller and under v1.16."""

    title = N_("Profile lab: today's controller or v1.16")
    intro = N_("Pick a profile: the lab replays everything you did under that controller. "
             "Scale, roll out an image, and compare the decisions and the chart.")
    chart_kind = "strip"

    def __init__(self, manifest=None, **kw):
        self._log: list[tuple[str, Callable[[Cluster], Any]]] = []
        super().__init__(manifest, **kw)

    def default_manifest(self):
        return examples.web(3, minReadySeconds=5)

    def _controls(self):
        self.w_profile = self.choice("profile", ["current", "v1.16"], self.profile, self.set_profile)
        self.w_replicas = self.slider("replicas", self._sts().spec.replicas, 0, MAX_REPLICAS, self.scale,
                                      MAX_REPLICAS)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], self.set_image)
        return [self.w_profile, W.HBox([self.w_replicas]), self.w_image]

    def change(self, what, fn, run=True):
        out = super().change(what, fn, run)
        if self.last_error is None:
            self._log.append((what, fn))
        return out

    def set_profile(self, profile: str):
        """Replay the set's creation and every change so far under *profile* (on a new
        cluster: a profile that cannot be used leaves the lab as it was)."""
        old = self.profile
        try:
            self.profile = profile
            cluster = self._new_cluster()
            cluster.apply(self.manifest)
            results = cluster.run(self.name, max_syncs=self.budget())
            for _what, fn in self._log:
                fn(cluster)
                results = cluster.run(self.name, max_syncs=self.budget())
        except LAB_ERRORS as e:
            self.profile = old
            return self.refuse(e)
        self.cluster = cluster
        self.last_error = None
        results = results + self._run()  # to the end, and says why if the set is not stable
        self.last_results = results
        self.did = _("You ran everything again under profile {profile}; the last change").format(
            profile=f"<b>{esc(profile)}</b>")
        self.chart.reset()
        self._redraw()
        return results


class StepLab(Lab):
    """14: one sync at a time, by hand: you sync, you play the kubelet."""

    title = N_("Step lab: one sync at a time")
    intro = N_("Nothing happens until you press a button: <i>Sync once</i> runs exactly one sync, "
             "<i>Kubelet: one step</i> moves one pod one stage (Pending → Running → Ready, or a "
             "terminating pod away). The decision strip has one column per sync.")
    chart_kind = "strip"
    empty_note = N_("No sync yet since this change: press Sync once.")
    step_seconds = 1.0
    """Simulated time each button press takes, so that AGE and the chart's time axis move."""

    def _new_cluster(self):
        return Cluster(kubelet="manual", profile=self.profile)

    def _initial(self):
        self.cluster.apply(self.manifest)
        self.last_results = [self.cluster.sync(self.name)]
        self._ran = False
        self.did = _("You ran {command} and one sync").format(command="<code>kubectl apply -f web.yaml</code>")

    def _controls(self):
        self.w_replicas = self.slider("replicas", self._sts().spec.replicas, 0, MAX_REPLICAS, lambda n: self.change(
            f"<code>kubectl scale sts {self.name} --replicas={n}</code>", lambda c: c.scale(self.name, n), run=False),
            MAX_REPLICAS)
        self.w_image = self.choice("image", IMAGES, IMAGES[0], lambda img: self.change(
            f"<code>kubectl set image sts/{self.name} nginx={img}</code>", lambda c: c.set_image(self.name, img),
            run=False))
        return [W.HBox([self.button(N_("Sync once"), self.sync_once, "primary"),
                        self.button(N_("Kubelet: one step"), self.kubelet_step, "info"), self.w_replicas]),
                self.w_image]

    def sync_once(self) -> list[SyncResult]:
        results: list[SyncResult] = []

        self.cluster.advance(self.step_seconds)
        self.change(_("one sync"), lambda c: results.append(c.sync(self.name)), run=False)
        self.last_results = results
        self._redraw()
        return results

    def kubelet_step(self):
        moved: list = []

        self.cluster.advance(self.step_seconds)
        self.change(_("one kubelet step"), lambda c: moved.append(c.kubelet.step()), run=False)
        self.did = did_sentence(_("one kubelet step ({what})").format(
            what=esc(moved[0]) if moved and moved[0] else _("no pod could move")),
                                self.cluster.now)
        self._redraw()
        return []
