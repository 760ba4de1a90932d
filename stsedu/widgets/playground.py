"""The Playground: one StatefulSet on a simulated cluster behind sliders and buttons.

Every action is a plain method (``pg.set_replicas(5)``, ``pg.sync_once()``)
that the widgets call; it never raises for a bad value: the API server's
error (field path and message) shows in the panel's error area, the
cluster is left exactly as it was, and the controls snap back to the
cluster's values.  ``pg.last_error`` holds the exception.
"""

from __future__ import annotations

import asyncio
import copy
import time
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..api.arguments import as_list, int_argument
from ..api.errors import APIError, ValidationError
from ..cluster import Cluster
from ..controller.decisions import SyncResult
from ..views.trace_tables import TablesOnce
from .layout import MAX_REPLICAS, PlaygroundLayout
from .playground_text import progress_html, run_outcome, say, sync_message, title_html, undo_note
from .panels import (ACTIONS, CONTROLS, DEFAULT_IMAGES, DEFAULT_VIEWS, SPEEDS, VIEWS, DisplayedAsWidget, View,
                    VIEW_ALIASES, VIEW_CLASSES, error_html, esc, default_manifest)

SETTLE_IN_BACKGROUND_FROM = 50
"""Under a kernel, ``Playground(settle=True)`` with at least this many replicas (auto kubelet) shows the
panel at once and brings the set up in the background, with a progress bar and Stop (500 OrderedReady
pods take about 2,000 syncs: tens of seconds on a slow machine); smaller sets come up before it shows."""

MANUAL_STEP_SECONDS = 1.0
"""Manual kubelet: simulated seconds each pod button (Start, Ready, ...) takes (``kubelet.step_seconds``)."""

# ========================================================================== Playground

def kernel_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop if we run inside a Jupyter kernel (comm handlers run on it), else None."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:  # pragma: no cover
        return None
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _choose(given, known: Sequence[str], what: str) -> tuple[str, ...]:
    if given is None:
        return tuple(known)
    given = tuple(as_list(given, what, f"{what} names"))
    bad = [g for g in given if g not in known]
    if bad:
        raise ValueError(f"unknown {what} {bad}; known: {', '.join(known)}")
    return given


class Playground(DisplayedAsWidget, PlaygroundLayout):
    """A panel that owns a :class:`~stsedu.Cluster` with one StatefulSet and drives it.

    *manifest* is YAML text, a dict or a list of dicts (a Service beside the
    set is fine), or None for :func:`default_manifest` (the concept page's
    ``web`` example without minReadySeconds); *replicas* overrides its
    ``spec.replicas``.  *kubelet*, *seed*, *profile*,
    *feature_gates* and *stages* go to :class:`~stsedu.Cluster`.  With
    *settle* the set is first run until stable, so the panel starts from
    running pods.  *controls*, *actions* and *views* pick what the panel
    shows (names from :data:`CONTROLS`, :data:`ACTIONS`, :data:`VIEWS`;
    *views* may also hold :class:`View` instances).  *images* are the
    images offered for rollouts; *max_replicas* bounds the replicas slider.

    Attributes: ``cluster``, ``name`` (the set), ``widget`` (the root VBox),
    ``last_result`` (the last :class:`~stsedu.SyncResult` or None),
    ``last_error`` (the exception the last action showed, or None),
    ``views`` (the :class:`View` objects).  Every action method returns
    what the cluster call returned, or None when it showed an error.

    Raise ValueError for unknown control/action/view names or cluster
    options, and :class:`~stsedu.ValidationError` for an invalid manifest.
    """

    def __init__(self, manifest: str | Mapping | list | None = None, *, kubelet: str = "auto",
                 seed: int = 0, profile: str = "current", feature_gates: Mapping[str, bool] | None = None,
                 stages: Any = None, replicas: int | None = None, settle: bool = False,
                 controls: Sequence[str] | None = None, actions: Sequence[str] | None = None,
                 views: Sequence[str | View] | None = None, images: Sequence[str] | None = None,
                 max_replicas: int | None = None, max_syncs: int | None = None) -> None:
        # every argument checked before anything is built (each error names its argument)
        if images is not None:
            images = as_list(images, "images", "image names")
            if not all(isinstance(i, str) and i.strip() for i in images):
                raise TypeError(f"images must be a list of image names (non-empty strings), not {images!r}"[:200])
        max_replicas = int_argument(max_replicas, "max_replicas", minimum=1, allow_none=True)
        max_syncs = int_argument(max_syncs, "max_syncs", minimum=1, allow_none=True, limit="MAX_SYNCS_PER_CALL")
        self._manifest = _as_docs(manifest) if manifest is not None else default_manifest()
        if replicas is not None:
            for d in self._manifest:
                if d.get("kind") == "StatefulSet":
                    d.setdefault("spec", {})["replicas"] = replicas
        self._options = dict(seed=seed, profile=profile, feature_gates=feature_gates, stages=stages)
        self._settle = settle
        self._replicas_given = replicas is not None
        self.max_syncs = max_syncs
        """The most syncs one run may take; None (the default): :meth:`budget`, from the set's size."""
        self._last_run: int | None = None
        self.controls_shown = _choose(controls, CONTROLS, "controls")
        self.actions_shown = _choose(actions, ACTIONS, "actions")
        view_list = list(DEFAULT_VIEWS) if views is None else (
            [views] if isinstance(views, (str, View)) else list(views))
        view_list = [a for v in view_list for a in (VIEW_ALIASES.get(v, (v,)) if isinstance(v, str) else (v,))]
        self.views: list[View] = []
        for v in view_list:
            if isinstance(v, View):
                self.views.append(v)
            elif isinstance(v, str) and v in VIEW_CLASSES:
                self.views.append(VIEW_CLASSES[v]())
            else:
                raise ValueError(f"unknown view {v!r}; known: {', '.join(VIEWS)}, charts, or a View instance")
        self.last_result: SyncResult | None = None
        self.last_error: BaseException | None = None
        self._loading = False
        self._running = False
        self._stop_requested = False
        self._outcome = "max"
        self._task: asyncio.Task | None = None
        self._speed = 1.0
        self._base_stages = None
        self.never_ready_images: set[str] = set()
        """Images made never-ready in this panel (the kubelet keeps them until Reset)."""
        self.cluster, self.name = self._new_cluster(kubelet)
        self._image_choices = self._initial_images(images)
        self._max_replicas = max_replicas
        self._build()
        self.refresh()
        self._settle_in_background()

    # ------------------------------------------------------------------ building
    def _new_cluster(self, kubelet: str) -> tuple[Cluster, str]:
        c = Cluster(kubelet=kubelet, **self._options)
        sts = c.apply(copy.deepcopy(self._manifest))
        from ..api.objects import StatefulSet
        if not isinstance(sts, StatefulSet):
            raise ValueError("the manifest has no StatefulSet")
        self._base_stages = c.kubelet.stages
        self._apply_speed(c)
        self._settle_pending = 0
        if self._settle:
            # a set comes up in about four syncs per pod: give the start room for every pod
            budget = max(self.max_syncs or 0, sync_budget(sts.spec.replicas))
            _refuse_too_big_to_settle(sts.spec.replicas, budget, "replicas" if self._replicas_given
                                      else "the manifest's spec.replicas")
            if kubelet != "manual" and sts.spec.replicas >= SETTLE_IN_BACKGROUND_FROM and kernel_loop():
                self._settle_pending = budget  # under a kernel: with a progress bar and Stop, once shown
            elif kubelet == "manual":
                c.settle(sts.name, max_syncs=budget)
            else:
                c.run(sts.name, max_syncs=budget)
            _linger(c)
        return c, sts.name

    def _settle_in_background(self) -> None:
        """Bring a large set up (``settle=True``) as a run in the background: the panel shows at once,
        the progress bar moves, the views redraw now and then, and Stop ends it (see :meth:`run_async`)."""
        budget, self._settle_pending = self._settle_pending, 0
        loop = kernel_loop()
        if not budget or loop is None:
            return
        message = say("bringing_up", n=self._sts().spec.replicas)
        self._say(message)
        before = self._task if self._running else None  # a run asked to stop (Reset) ends first

        async def settle():
            if before is not None:
                await before
            return await self.run_async(budget, message=message)
        self._task = loop.create_task(settle())

    def _initial_images(self, images) -> list[str]:
        current = self._current_images()
        out = list(images) if images is not None else (
            list(DEFAULT_IMAGES) if current and current[0] in DEFAULT_IMAGES else [])
        for img in current:
            if img not in out:
                out.insert(0, img)
        return out

    def _current_images(self) -> list[str]:
        try:
            sts = self.cluster.statefulset(self.name)
        except KeyError:
            return []
        return [c.get("image", "") for c in sts.spec.template.get("spec", {}).get("containers", [])]

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        try:
            spec = self._sts().spec
            what = (f"{spec.replicas} replicas, {spec.pod_management_policy}, {spec.update_strategy}")
        except KeyError:
            what = "deleted"
        return (f"<Playground: StatefulSet {self.name} ({what}), t={self.cluster.now:g}s, "
                f"{len(self.cluster.trace)} syncs>")

    # ---------------------------------------------------------------- plumbing
    def _sts(self):
        return self.cluster.statefulset(self.name)

    def _act(self, fn: Callable[[], Any], info: str | Callable[[Any], str] | None = None) -> Any:
        """Run one user action: show its error (changing nothing) or its message; redraw."""
        try:
            out = fn()
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
            self._load_controls()
            self._update_views()
            return None
        self._clear_error()
        if info is not None:
            self._say(info(out) if callable(info) else info)
        self._last_run = None  # the progress line now speaks of the cluster, not of the last run
        self.progress.bar_style = ""
        self.refresh()
        return out

    def _show_error(self, e: BaseException) -> None:
        self.last_error = e
        self.error.value = error_html(e)
        self.error.layout.display = None

    def _clear_error(self) -> None:
        self.last_error = None
        self.error.value = ""
        self.error.layout.display = "none"

    def _say(self, text: str) -> None:
        self.info.value = f"<div class='stsedu-info'>{text}</div>" if text else ""

    def _load_controls(self) -> None:
        """Set every control from the cluster (without firing the handlers)."""
        self._loading = True
        try:
            try:
                sts = self._sts()
            except KeyError:
                return
            spec = sts.spec
            self.replicas.max = max(self._max_replicas or MAX_REPLICAS, spec.replicas,
                                    self.replicas.max if self._max_replicas is None else 0)
            self.replicas.value = spec.replicas
            self.replicas_box.value = spec.replicas
            part = spec.partition
            self.partition.max = max(spec.replicas, part, 1)
            self.partition.value = part
            rolling = spec.update_strategy == "RollingUpdate"
            mu = spec.rolling_update.max_unavailable if spec.rolling_update else None
            self.max_unavailable.value = "" if mu is None else str(mu)
            gate = (self.cluster.profile.max_unavailable_supported
                    and self.cluster.profile.gate(self.cluster.feature_gates, "MaxUnavailableStatefulSet"))
            self.partition.disabled = not rolling
            self.max_unavailable.disabled = not rolling or not gate
            self.max_unavailable.tooltip = "" if gate else say("gate_off")
            self.min_ready_seconds.value = spec.min_ready_seconds
            self.min_ready_seconds.disabled = not self.cluster.profile.min_ready_seconds
            self.policy.value = spec.pod_management_policy
            self.strategy.value = spec.update_strategy
            images = self._current_images()
            for img in images:
                if img not in self._image_choices:
                    self._image_choices.append(img)
            if list(self.image.options) != self._image_choices:
                self.image.options = list(self._image_choices)
            self.image.value = images[0] if images else ""
            never = [i for i in self._image_choices if i not in images] or self._image_choices
            if list(self.never_ready_pick.options) != never:
                keep = self.never_ready_pick.value
                self.never_ready_pick.options = never
                if keep in never:
                    self.never_ready_pick.value = keep
            self.kubelet_mode.value = self.cluster.kubelet.mode
            self.speed.value = self._speed
            self.speed.disabled = self.cluster.kubelet.mode == "manual"
            pods = [p.name for p in self._owned_pods()]
            if list(self.pod_pick.options) != pods:
                keep = self.pod_pick.value
                self.pod_pick.options = pods
                self.pod_pick.value = keep if keep in pods else (pods[0] if pods else None)
        finally:
            self._loading = False

    redraw_tables: TablesOnce | None = None
    """While the views redraw, the trace's tables for that redraw (``get pods`` and the chart
    read the same ones, built once); None between redraws."""

    def _update_views(self) -> None:
        """Redraw the views on show: main and full ones always, a tab only when selected."""
        selected = self.tabs.selected_index if self.tabs is not None else None
        self.redraw_tables = TablesOnce(self.cluster.trace)
        try:
            for v in self.views:
                if v in self._tabbed and self._tabbed.index(v) != selected:
                    continue
                v.update(self)
        finally:
            self.redraw_tables = None

    def refresh(self) -> None:
        """Re-read the cluster into the controls and redraw the views (after editing
        ``pg.cluster`` from code, for example)."""
        self._load_controls()
        self._redraw()

    def _redraw(self) -> None:
        """:meth:`refresh` but the controls (a run's redraws leave them to :meth:`_run_finished`)."""
        try:
            generation = self._sts().generation
        except KeyError:
            generation = None
        self.title.value = title_html(self.name, generation, self.cluster)
        if not self._running:
            self._progress(self._last_run)
        self._update_views()

    def _owned_pods(self) -> list:
        """The set's pods as the store holds them, by ordinal, read only: not deep-copied one by one as
        ``cluster.pods`` hands them out (at 500 pods, a copy of each at every redraw cost more than the syncs)."""
        return sorted((p for p in self.cluster.store.list("Pod", "default") if p.owner == self.name),
                      key=lambda p: (p.ordinal, p.name))

    def budget(self) -> int:
        """The most syncs one run may take: *max_syncs* if given, else enough for the work the set
        needs (:func:`sync_budget` of its replicas or pods, whichever is more)."""
        if self.max_syncs is not None:
            return self.max_syncs
        try:
            wanted = self._sts().spec.replicas
        except KeyError:
            wanted = 0
        return sync_budget(max(wanted, len(self.cluster.store.list("Pod", "default"))))

    # -------------------------------------------------------------- the spec
    def set_replicas(self, replicas: int):
        """``kubectl scale --replicas``."""
        return self._act(lambda: self.cluster.scale(self.name, replicas),
                         lambda s: say("scaled", name=self.name, replicas=replicas, generation=s.generation))

    def set_replicas_typed(self, replicas: int):
        """A number typed into the box beside the replicas slider: above the slider's end, a message
        (nothing changes); else ``kubectl scale`` (a negative number gets the API server's error)."""
        if replicas > self.replicas.max:
            self._show_error(ValueError(say("too_many", most=self.replicas.max, replicas=replicas)))
            self._load_controls()
            return None
        return self.set_replicas(replicas)

    def _patch(self, patch: Mapping, what: str):
        return self._act(lambda: self.cluster.patch(self.name, patch),
                         lambda s: say("patched", what=what, generation=s.generation))

    def set_partition(self, partition: int):
        """Merge-patch ``spec.updateStrategy.rollingUpdate.partition``."""
        return self._patch({"spec": {"updateStrategy": {"rollingUpdate": {"partition": partition}}}},
                           f"partition={partition}")

    def set_max_unavailable(self, value: int | str | None):
        """Merge-patch ``rollingUpdate.maxUnavailable``: an int, a percentage like ``"50%"``,
        or ""/None for the default."""
        if isinstance(value, str):
            text = value.strip()
            if text == "":
                value = None
            else:
                try:
                    value = int(text)
                except ValueError:
                    value = text
        return self._patch({"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": value}}}},
                           f"maxUnavailable={value if value is not None else '(default)'}")

    def set_min_ready_seconds(self, seconds: int):
        """Merge-patch ``spec.minReadySeconds``."""
        return self._patch({"spec": {"minReadySeconds": seconds}}, f"minReadySeconds={seconds}")

    def set_strategy(self, strategy: str):
        """``RollingUpdate`` or ``OnDelete`` (OnDelete removes ``rollingUpdate``, as the API requires)."""
        patch = {"spec": {"updateStrategy": {"type": strategy}}}
        if strategy != "RollingUpdate":
            patch["spec"]["updateStrategy"]["rollingUpdate"] = None
        return self._patch(patch, f"updateStrategy={strategy}")

    def set_image(self, image: str):
        """``kubectl set image`` on every container: a new revision, so a rollout."""
        return self._act(lambda: self.cluster.set_image(self.name, image),
                         lambda s: say("image_set", image=esc(image), generation=s.generation))

    def set_policy(self, policy: str):
        """Change ``podManagementPolicy``.  The field is immutable, so, as a person would with
        kubectl: delete the set with ``--cascade=orphan`` (pods keep running) and re-create it;
        the next sync adopts the pods.  Validated first on a scratch cluster."""
        def go():
            sts = self._sts()
            # null is the default, as in a manifest: the same policy changes nothing
            if sts.spec.pod_management_policy == (policy if policy is not None else "OrderedReady"):
                return sts
            m = sts.to_manifest()
            m.pop("status", None)
            m["metadata"] = {k: v for k, v in m["metadata"].items()
                             if k in ("name", "namespace", "labels", "annotations")}
            m["spec"]["podManagementPolicy"] = policy
            c = self.cluster
            Cluster(kubelet="manual", profile=c.profile, feature_gates=c.feature_gates).apply(m)
            # like kubectl (--wait), delete returns once the garbage collector has orphaned
            # the dependents and removed the set; time passes meanwhile
            t0 = c.now
            c.delete(self.name, cascade="orphan")
            if c.store.get("StatefulSet", sts.namespace, self.name) is not None:
                raise ValueError(f"statefulset {self.name!r} was not deleted")
            waited.append(c.now - t0)
            return c.apply(m)
        waited: list[float] = []
        return self._act(go, lambda s: (
            say("policy_same", policy=s.spec.pod_management_policy) if not waited else
            say("policy_changed", name=self.name, waited=float(waited[0]), policy=policy)))

    # ------------------------------------------------------------- kubelet
    def _apply_speed(self, c: Cluster) -> None:
        from dataclasses import replace
        # a learner playing the kubelet: each pod button takes simulated time (AGE, charts)
        c.kubelet.step_seconds = MANUAL_STEP_SECONDS
        b = self._base_stages
        if b is None:
            return
        f = self._speed
        c.kubelet.stages = replace(b, start=b.start / f, ready=b.ready / f, terminate=b.terminate / f,
                                   jitter=b.jitter / f)

    def set_speed(self, factor: float):
        """Kubelet speed: the stage delays (start, ready, terminate) are divided by *factor*."""
        def go():
            # the speed menu's values only (the stages stay finite, the dropdown can show it)
            if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
                    or factor not in [v for _, v in SPEEDS]:
                raise ValueError(f"speed must be one of {', '.join(f'{v:g}' for _, v in SPEEDS)}"
                                 f" (the speed menu), not {factor!r}")
            self._speed = float(factor)
            self._apply_speed(self.cluster)
            return self.cluster.kubelet.stages
        return self._act(go, lambda s: say("speed", factor=float(factor), start=float(s.start),
                                           ready=float(s.ready)))

    def set_kubelet_mode(self, mode: str):
        """``auto`` or ``manual``.  A kubelet cannot switch under running pods here, so this
        starts a fresh cluster with the current spec (pods, clock and trace start over)."""
        def go():
            if mode not in ("auto", "manual"):
                raise ValueError(f"kubelet mode must be 'auto' or 'manual', not {mode!r}")
            if mode == self.cluster.kubelet.mode:
                return None
            self.stop()
            m = self._sts().to_manifest()
            m.pop("status", None)
            m["metadata"] = {k: v for k, v in m["metadata"].items()
                             if k in ("name", "namespace", "labels", "annotations")}
            docs = [d for d in _as_docs(self._manifest) if d.get("kind") != "StatefulSet"] + [m]
            c = Cluster(kubelet=mode, **self._options)
            c.apply(docs)
            for img in self.never_ready_images:
                c.kubelet.never_ready(image=img)
            self._base_stages = c.kubelet.stages
            self._apply_speed(c)
            self._swap(c)
            return mode
        return self._act(go, lambda m: None if m is None else say("kubelet_mode", mode=mode))

    def _swap(self, c: Cluster) -> None:
        self.cluster = c
        self.last_result = None
        self._last_run = None
        self.progress.bar_style = ""
        for v in self.views:
            v.reset()

    def _pod_name(self, pod: str | None) -> str:
        name = pod if pod is not None else self.pod_pick.value
        if not name:
            raise KeyError(say("no_pod"))
        return name

    def start_pod(self, pod: str | None = None):
        """kubelet: a Pending pod starts Running (default: the picked pod)."""
        return self._act(lambda: self.cluster.kubelet.start(self._pod_name(pod)),
                         lambda p: say("started", pod=p.name))

    def ready_pod(self, pod: str | None = None):
        """kubelet: the pod's readiness probe passes (start it first if Pending)."""
        def go():
            name = self._pod_name(pod)
            if self.cluster.pod(name).phase == "Pending":
                self.cluster.kubelet.start(name)
            return self.cluster.kubelet.set_ready(name)
        return self._act(go, lambda p: say("ready", pod=p.name))

    def unready_pod(self, pod: str | None = None):
        """kubelet: the pod's readiness probe fails."""
        return self._act(lambda: self.cluster.kubelet.set_unready(self._pod_name(pod)),
                         lambda p: say("unready", pod=p.name))

    def fail_pod(self, pod: str | None = None):
        """kubelet: the pod is evicted, phase Failed, reason Evicted (the next sync deletes and re-creates it)."""
        return self._act(lambda: self.cluster.kubelet.evict(self._pod_name(pod)),
                         lambda p: say("evicted", pod=p.name))

    def delete_pod(self, pod: str | None = None):
        """``kubectl delete pod --wait=false`` (graceful: the pod is Terminating until the kubelet finishes it)."""
        # --wait=false: the Playground shows each step, the terminating pod included
        return self._act(lambda: self.cluster.delete_pod(self._pod_name(pod), wait=False),
                         lambda p: say("deleted", pod=p.name))

    def finish_termination(self, pod: str | None = None):
        """kubelet: a terminating pod disappears."""
        name_box: list[str] = []

        def go():
            name_box.append(self._pod_name(pod))
            return self.cluster.kubelet.finish_termination(name_box[0])
        return self._act(go, lambda _r: say("gone", pod=name_box[0]))

    def make_never_ready(self, image: str | None = None):
        """Pods running *image* (default: the picked one) never pass their readiness probe.
        Then set that image to start the broken rollout."""
        img = image if image is not None else self.never_ready_pick.value

        def go():
            if not img:
                raise ValueError(say("no_image"))
            self.cluster.kubelet.never_ready(image=img)
            self.never_ready_images.add(img)
            return img
        return self._act(go, lambda i: say("never_ready", image=esc(i)))

    # ---------------------------------------------------------- controller
    def sync_once(self) -> SyncResult | None:
        """One sync of the set (the controller's reconcile)."""
        def go():
            self.cluster.advance(0)
            r = self.cluster.sync(self.name)
            self.last_result = r
            return r
        return self._act(go, self._sync_message)

    def _sync_message(self, r: SyncResult) -> str:
        return sync_message(r, self.cluster.kubelet.mode)

    def advance(self, seconds: float | None = None):
        """Move the clock by *seconds* (default: the panel's choice); the kubelet acts, the
        controller does not (click Sync once for that)."""
        s = self.advance_by.value if seconds is None else seconds
        return self._act(lambda: self.cluster.advance(s), lambda t: say("clock", t=float(t)))

    def _steps(self, max_syncs: int) -> Iterator[SyncResult]:
        """``Cluster.iter_run``, remembering how it ended (stable, stopped or max_syncs)."""
        self._outcome = "max"
        n = 0
        for r in self.cluster.iter_run(self.name, max_syncs=max_syncs):
            n += 1
            self.last_result = r
            yield r
            if self._stop_requested:
                self._outcome = "stopped"
                return
        if n < max_syncs:
            self._outcome = "stable"
            _linger(self.cluster)

    def _progress(self, n: int | None) -> None:
        """Pods Ready at the revision they should have, out of the pods wanted; *n*: the syncs of the run
        going on or just ended (None: no run since the last change)."""
        try:
            sts = self._sts()
        except KeyError:
            return
        spec, st = sts.spec, sts.status
        pods = self._owned_pods()
        lo = spec.start_ordinal
        hi = lo + spec.replicas
        done = 0
        for p in pods:
            if lo <= p.ordinal < hi and p.ready and not p.terminating and (
                    spec.update_strategy != "RollingUpdate" or p.ordinal - lo < spec.partition
                    or p.revision == st.update_revision):
                done += 1
        extra = sum(1 for p in pods if not lo <= p.ordinal < hi)
        self.progress.max = max(1, spec.replicas + extra)
        self.progress.value = min(done, self.progress.max)
        self.progress_label.value = progress_html(self.cluster, self.name, n, done, spec)

    def _run_started(self, message: str | None = None) -> None:
        self._running, self._stop_requested = True, False
        self._last_run = 0
        self.progress.bar_style = "info"
        self._progress(0)  # the line speaks of this run from its start (then a few times a second)
        self._say(message or say("running"))
        self.run_button.disabled = True
        self.stop_button.disabled = False
        self.stop_button.button_style = "warning"

    def _run_finished(self, results: list[SyncResult]) -> None:
        self._running = False
        self._last_run = len(results)
        self.run_button.disabled = False
        self.stop_button.disabled = True
        self.stop_button.button_style = ""
        self._progress(len(results))
        last = results[-1] if results else None
        waits = [d for d in last.decisions if d.action == "wait"] if last else []
        self.progress.bar_style = "success" if self._outcome == "stable" and not waits else "warning"
        self._say(run_outcome(self.cluster, self.name, self._outcome, len(results), waits, self.max_syncs))
        self.refresh()

    def run_until_stable(self, max_syncs: int | None = None) -> list[SyncResult] | None:
        """Sync, and let time pass while the controller only waits, until nothing is left to
        happen (like ``cluster.run``), at most *max_syncs* syncs.  Blocks; the Run button uses
        :meth:`run_async` under a kernel instead, so Stop works and the views move meanwhile."""
        limit = max_syncs or self.budget()
        results: list[SyncResult] = []
        self._run_started()
        try:
            for r in self._steps(limit):  # blocking: nothing is drawn before the end, so no progress per sync
                results.append(r)
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
            self._run_finished(results)
            return None
        self._clear_error()
        self._run_finished(results)
        return results

    async def run_async(self, max_syncs: int | None = None, redraw_every: float = 0.25,
                        message: str | None = None) -> list[SyncResult]:
        """:meth:`run_until_stable`, yielding to the event loop after every sync (so a Stop
        click is handled) and redrawing the views every *redraw_every* seconds."""
        limit = max_syncs or self.budget()
        results: list[SyncResult] = []
        self._run_started(message)
        last_draw = last_progress = time.monotonic()
        gap = progress_gap = redraw_every
        try:
            for r in self._steps(limit):
                results.append(r)
                now = time.monotonic()
                if now - last_draw > gap:
                    # the views at most a few times a second, and never for more than about a tenth of
                    # the run's time: a redraw that cost d waits 9d for the next (at 500 pods, ~1-2 s)
                    self._progress(len(results))
                    self._redraw()
                    last_draw = last_progress = time.monotonic()
                    gap = max(redraw_every, 9 * (last_draw - now))
                elif now - last_progress > progress_gap:  # the progress bar alone, with the same cap
                    self._progress(len(results))
                    last_progress = time.monotonic()
                    progress_gap = max(redraw_every, 9 * (last_progress - now))
                await asyncio.sleep(0)  # a turn of the loop (Stop); the messages leave on the IOPub thread
        except (ValidationError, ValueError, KeyError, APIError) as e:
            self._show_error(e)
        else:
            self._clear_error()
        self._run_finished(results)
        return results

    def _on_run_clicked(self) -> None:
        if self._running:
            return
        loop = kernel_loop()
        if loop is None:
            self.run_until_stable()
        else:
            self._task = loop.create_task(self.run_async())

    def stop(self) -> None:
        """Stop a running :meth:`run_async` after the sync in progress."""
        if self._running:
            self._stop_requested = True

    def undo_rollout(self):
        """``kubectl rollout undo``: put back the previous revision's template.  When a pod runs a
        never-ready image and is not Ready (a broken rollout got that far), the note names it: under
        OrderedReady it blocks the way back until it is deleted."""
        def note(msg: str) -> str:
            return undo_note(msg, [p.name for p in self.cluster.pods(self.name)
                                   if not p.ready and set(p.images()) & self.never_ready_images])
        return self._act(lambda: self.cluster.rollout_undo(self.name), note)

    def reset(self):
        """A new cluster from the original manifest and options, in the kubelet mode shown
        (never-ready images forgotten)."""
        def go():
            self.stop()
            c, _ = self._new_cluster(self.cluster.kubelet.mode)
            self._swap(c)
            self.never_ready_images.clear()
            self.progress.value = 0
            self.progress_label.value = ""
            return c
        out = self._act(go, say("reset"))
        self._settle_in_background()
        return out


LINGER_SECONDS = 5.0
"""Simulated seconds that pass after a run once nothing more is due (as in a lab), so that the state
the last change began shows in the pod timeline with a width, not as a sliver at the axis's end."""


def sync_budget(pods: int) -> int:
    """The most syncs a run may take for a set of *pods* pods: an OrderedReady create takes about four
    syncs a pod and a rolling update about six, so ten a pod and 300 to spare (as the labs allow)."""
    return 300 + 10 * pods


def _refuse_too_big_to_settle(replicas: int, budget: int, what: str) -> None:
    """ValueError naming *what* (the Playground's replicas) when bringing the set up with ``settle=True``
    may take more syncs than one run may (:data:`stsedu.limits.MAX_SYNCS_PER_CALL`)."""
    from .. import limits
    most = limits.MAX_SYNCS_PER_CALL
    if budget > most:
        fits = max(0, (most - sync_budget(0)) // (sync_budget(1) - sync_budget(0)))
        raise ValueError(f"{what} must be at most {fits} with settle=True, not {replicas}: bringing the set up "
                         f"may take {budget} syncs, over the limit of {most} for one run "
                         f"(the kit's budget; {limits.hint('MAX_SYNCS_PER_CALL')})")


def _linger(c: Cluster) -> None:
    if c.clock.peek() is None:
        c.advance(LINGER_SECONDS)


def _as_docs(manifest) -> list[dict]:
    from ..api.load import load_documents
    return [copy.deepcopy(d) for d in load_documents(manifest)]
