"""The Playground's widgets: how its controls, buttons and views are laid out and wired."""

from __future__ import annotations

import time
from typing import Any, Callable

import ipywidgets as W

from .panels import ADVANCE_STEPS, SPEEDS, View, PLAYGROUND_CSS, POLICY_NOTE
from ..i18n import N_, _


MAX_REPLICAS = 500
"""The Playground's replicas slider ends here (``max_replicas`` changes it)."""


class PlaygroundLayout:
    """Builds a :class:`~stsedu.widgets.playground.Playground`'s widgets (a base class of it)."""

    def _build(self) -> None:
        d110 = {"description_width": "110px"}

        def lay(width: str) -> W.Layout:
            return W.Layout(width=width)

        def label(text: str) -> W.HTML:
            return W.HTML(f"<span class='stsedu-rowlabel'>{text}</span>", layout=lay("80px"))

        def row(name: str, items: list[W.Widget]) -> W.HBox:
            return W.HBox([label(name)] + items, layout=W.Layout(flex_flow="row wrap", align_items="center"))

        self.title = W.HTML()
        self.error = W.HTML(layout=W.Layout(display="none"))
        self.error.add_class("stsedu-error-area")
        self.info = W.HTML()
        self.info.add_class("stsedu-info-area")

        # ---- controls: the spec (kubectl scale / patch / set image), the kubelet
        # no readout on the slider: a value typed into it would be clamped without a word; the box
        # beside it takes any number and says so when it is out of range (set_replicas_typed)
        self.replicas = W.IntSlider(description="replicas", min=0, max=MAX_REPLICAS, continuous_update=False,
                                    readout=False, style=d110, layout=lay("330px"))
        self.replicas_box = W.IntText(value=0, layout=lay("72px"))
        self.partition = W.IntSlider(description="partition", min=0, max=3, continuous_update=False,
                                     style=d110, layout=lay("400px"))
        self.max_unavailable = W.Text(description="maxUnavailable", continuous_update=False,
                                      placeholder="1, 2 or 50%", style=d110, layout=lay("220px"))
        self.min_ready_seconds = W.IntText(description="minReadySeconds", style={"description_width": "125px"},
                                           layout=lay("235px"))
        self.strategy = W.Dropdown(description="updateStrategy", options=["RollingUpdate", "OnDelete"],
                                   style=d110, layout=lay("260px"))
        self.policy = W.Dropdown(description="podManagementPolicy", options=["OrderedReady", "Parallel"],
                                 style={"description_width": "160px"}, layout=lay("310px"))
        self.policy_note = W.HTML(f"<div class='stsedu-note'>{_(POLICY_NOTE)}</div>", layout=lay("520px"))
        self.image = W.Combobox(description="image", options=list(self._image_choices), ensure_option=False,
                                continuous_update=False, placeholder=_("an image; Enter to roll out"),
                                style=d110, layout=lay("440px"))
        self.kubelet_mode = W.Dropdown(description=_("mode"), options=["auto", "manual"],
                                       style={"description_width": "40px"}, layout=lay("140px"),
                                       tooltip=_("changing it starts a fresh cluster with the current spec"))
        self.speed = W.Dropdown(description=_("speed"), options=[(_(label), v) for label, v in SPEEDS], value=1.0,
                                style={"description_width": "45px"}, layout=lay("170px"))

        self.replicas.observe(self._obs(self.set_replicas), names="value")
        self.replicas_box.observe(self._obs(self.set_replicas_typed), names="value")
        self.partition.observe(self._obs(self.set_partition), names="value")
        self.max_unavailable.observe(self._obs(self.set_max_unavailable), names="value")
        self.min_ready_seconds.observe(self._obs(self.set_min_ready_seconds), names="value")
        self.policy.observe(self._obs(self.set_policy), names="value")
        self.strategy.observe(self._obs(self.set_strategy), names="value")
        self.image.observe(self._obs(self.set_image), names="value")
        self.kubelet_mode.observe(self._obs(self.set_kubelet_mode), names="value")
        self.speed.observe(self._obs(self.set_speed), names="value")

        # ---- actions
        self.sync_button = W.Button(description=_("Sync once"), button_style="primary", icon="play",
                                    tooltip=_("One reconcile of the set: the controller's sync()"),
                                    layout=lay("110px"))
        self.advance_button = W.Button(description=_("Advance time"), icon="clock-o", layout=lay("135px"),
                                       tooltip=_("Move the clock; the kubelet acts, the controller does not"))
        self.advance_by = W.Dropdown(options=[(f"{s} s", s) for s in ADVANCE_STEPS], value=5,
                                     layout=lay("70px"))
        self.run_button = W.Button(description=_("Run until stable"), icon="forward", layout=lay("145px"),
                                   tooltip=_("Sync, and let time pass while the controller only waits"))
        self.stop_button = W.Button(description=_("Stop"), icon="stop", disabled=True, layout=lay("75px"))
        self.reset_button = W.Button(description=_("Reset"), icon="refresh", layout=lay("85px"),
                                     tooltip=_("A new cluster from the original manifest"))
        self.progress = W.IntProgress(value=0, min=0, max=1, layout=lay("110px"))
        self.progress_label = W.HTML()
        self.pod_pick = W.Dropdown(description="pod", options=[], style={"description_width": "30px"},
                                   layout=lay("150px"))

        def small(text: str, tip: str, width: str, **kw) -> W.Button:
            return W.Button(description=_(text), tooltip=_(tip), layout=lay(width), **kw)
        self.start_button = small(N_("Start"), N_("kubelet: Pending → Running"), "70px")
        self.ready_button = small(N_("Ready"), N_("kubelet: the readiness probe passes"), "70px")
        self.unready_button = small(N_("Not ready"), N_("kubelet: the readiness probe fails"), "90px")
        self.fail_button = small(N_("Evict"), N_("kubelet: evict the pod (phase Failed, reason Evicted)"), "65px", button_style="danger")
        self.delete_button = small(N_("Delete"), N_("kubectl delete pod (graceful)"), "75px")
        self.finish_button = small(N_("Finish termination"), N_("kubelet: a terminating pod disappears"), "145px")
        self.never_ready_pick = W.Dropdown(description="never-ready", options=list(self._image_choices),
                                           style={"description_width": "85px"}, layout=lay("340px"))
        self.never_ready_button = W.Button(description=_("Make never-ready"), icon="ban", layout=lay("165px"),
                                           tooltip=_("Pods running this image never pass their readiness probe"))
        self.undo_button = W.Button(description=_("Undo rollout"), icon="undo", layout=lay("125px"),
                                    tooltip=_("kubectl rollout undo: put back the previous template"))

        self.sync_button.on_click(lambda _b: self.sync_once())
        self.advance_button.on_click(lambda _b: self.advance())
        self.run_button.on_click(lambda _b: self._on_run_clicked())
        self.stop_button.on_click(lambda _b: self.stop())
        self.start_button.on_click(lambda _b: self.start_pod())
        self.ready_button.on_click(lambda _b: self.ready_pod())
        self.unready_button.on_click(lambda _b: self.unready_pod())
        self.fail_button.on_click(lambda _b: self.fail_pod())
        self.delete_button.on_click(lambda _b: self.delete_pod())
        self.finish_button.on_click(lambda _b: self.finish_termination())
        self.never_ready_button.on_click(lambda _b: self.make_never_ready())
        self.undo_button.on_click(lambda _b: self.undo_rollout())
        self.reset_button.on_click(lambda _b: self.reset())

        # ---- layout
        c, a = self.controls_shown, self.actions_shown

        def pick(pairs) -> list[W.Widget]:
            out: list[W.Widget] = []
            for key, widgets in pairs:
                if key in c or key in a:
                    out += widgets
            return out
        rows: list[W.Widget] = []
        ctl = pick([("sync", [self.sync_button]), ("advance", [self.advance_button, self.advance_by]),
                    ("run", [self.run_button, self.stop_button]), ("reset", [self.reset_button]),
                    ("run", [self.progress, self.progress_label])])
        if ctl:
            rows.append(row("Controller", ctl))
        spec_rows = [pick([("replicas", [self.replicas, self.replicas_box]), ("partition", [self.partition])]),
                     pick([("max_unavailable", [self.max_unavailable]),
                           ("min_ready_seconds", [self.min_ready_seconds]), ("strategy", [self.strategy])]),
                     pick([("policy", [self.policy, self.policy_note])])]
        for i, items in enumerate(r for r in spec_rows if r):
            rows.append(row("Spec" if i == 0 else "", items))
        rollout = pick([("image", [self.image]), ("undo", [self.undo_button])])
        if rollout:
            rows.append(row("Rollout", rollout))
        pod_row = pick([("pods", [self.pod_pick, self.start_button, self.ready_button, self.unready_button,
                                  self.fail_button, self.delete_button, self.finish_button])])
        if pod_row:
            rows.append(row("Pod", pod_row))
        kub = pick([("kubelet", [self.kubelet_mode, self.speed]),
                    ("never_ready", [self.never_ready_pick, self.never_ready_button])])
        if kub:
            rows.append(row("Kubelet", kub))

        parts: list[W.Widget] = [W.HTML(PLAYGROUND_CSS), self.title, self.error, self.info] + rows
        pending_main: list[W.Widget] = []

        def flush() -> None:
            if pending_main:
                parts.append(W.HBox(list(pending_main), layout=W.Layout(
                    flex_flow="row wrap", align_items="flex-start", grid_gap="24px", width="100%")))
                pending_main.clear()
        tabbed: list[View] = []
        for v in self.views:
            if v.area == "main":
                pending_main.append(v.widget)
            elif v.area == "full":
                flush()
                parts.append(v.widget)
            else:
                tabbed.append(v)
        flush()
        self.tabs = None
        if tabbed:
            self.tabs = W.Tab(children=[v.widget for v in tabbed], titles=[_(v.title) for v in tabbed],
                              layout=W.Layout(margin="8px 0 0 0"))
            self.tabs.observe(lambda ch: self._update_views(), names="selected_index")
            parts.append(self.tabs)
        self._tabbed = tabbed
        self.widget = W.VBox(parts, layout=W.Layout(width="100%"))
        self.widget.add_class("stsedu-pg")

    def _obs(self, fn: Callable[[Any], Any]) -> Callable[[dict], None]:
        def handler(change):
            if not self._loading:
                fn(change["new"])
        return handler
