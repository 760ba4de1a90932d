"""What the Playground says, in the learner's language: the line under its buttons after each action
(:func:`say`), the outcome of a run (:func:`run_outcome`), the progress line (:func:`progress_html`)
and the panel's title (:func:`title_html`).

Only the kit's own words are translated (:mod:`stsedu.i18n`): kubectl commands, the API server's
messages, field names and the controller's decision messages (upstream's log lines) are put into
these texts as they are, in English, as on a real cluster.
"""

from __future__ import annotations

from ..controller.decisions import POD_ACTIONS
from ..i18n import N_, _, ngettext
from .panels import decisions_summary, esc
from .settled import left_note, progress_words, unsettled

ACTION = {
    "bringing_up": N_("Bringing the set up: {n} pods, one sync at a time. Press <b>Stop</b> to stop it; "
                      "<b>Run until stable</b> goes on from where it stopped."),
    "running": N_("Running: the controller syncs, and time passes while it only waits, until nothing is left "
                  "to happen. Press <b>Stop</b> to end it after the sync in progress."),
    "scaled": N_("Scaled {name} to {replicas} (generation {generation}). Click <b>Sync once</b> to see what "
                 "the controller decides."),
    "patched": N_("Patched {what} (generation {generation})."),
    "image_set": N_("Image set to <code>{image}</code> (generation {generation}): the next sync makes a new "
                    "revision and starts the rollout."),
    "policy_same": N_("podManagementPolicy is already {policy}: nothing to change."),
    "policy_changed": N_("podManagementPolicy is immutable, so the panel ran <code>kubectl delete sts {name} "
                         "--cascade=orphan</code> (it waited {waited}s for the garbage collector; the pods keep "
                         "running, without an owner) and re-created {name} with podManagementPolicy={policy}. "
                         "The next sync adopts the pods."),
    "speed": N_("Kubelet speed ×{factor}: pods start after {start}s and turn Ready {ready}s later "
                "(from now on)."),
    "kubelet_mode": N_("Kubelet mode {mode}: a fresh cluster with the current spec (no pods yet, clock at 0)."),
    "started": N_("{pod} is Running (not Ready yet)."),
    "ready": N_("{pod} is Running and Ready."),
    "unready": N_("{pod} is not Ready."),
    "evicted": N_("The kubelet evicted {pod} (phase Failed, reason Evicted). The next sync deletes it, then "
                  "re-creates it."),
    "deleted": N_("Deleted {pod}: it is Terminating until the kubelet finishes it."),
    "gone": N_("{pod} is gone."),
    "never_ready": N_("Pods running <code>{image}</code> will never be Ready. Set it as the image to start a "
                      "rollout that gets stuck."),
    "clock": N_("The clock is at t={t}s."),
    "reset": N_("Reset: a new cluster from the original manifest."),
    "no_pod": N_("no pod picked"),
    "no_image": N_("pick an image"),
    "too_many": N_("replicas: this panel goes up to {most} and you typed {replicas} "
                   "(Playground(max_replicas=...) takes more)"),
    "gate_off": N_("the MaxUnavailableStatefulSet gate is off in this profile"),
}
"""The Playground's messages, by name (English; :func:`say` translates them)."""


def say(key: str, **values) -> str:
    """The message *key* of :data:`ACTION` in the current language, with *values* put in (numbers
    written as ``:g`` writes them)."""
    return _(ACTION[key]).format(**{k: f"{v:g}" if isinstance(v, float) else v for k, v in values.items()})


def syncs(n: int) -> str:
    """"1 sync", "12 syncs" (Chinese: "12 次同步")."""
    return ngettext("{n} sync", "{n} syncs", n).format(n=n)


def title_html(name: str, generation: int | None, cluster) -> str:
    """The panel's title: the set, its generation, the clock, the kubelet, the controller, the syncs so far."""
    gen = _("generation {n}").format(n=generation) if generation is not None else _("deleted")
    kubelet = cluster.kubelet
    st = kubelet.stages
    kub = (_("kubelet {mode}").format(mode=kubelet.mode) if kubelet.mode == "manual" else
           _("kubelet auto (start {start}s, ready {ready}s, terminate {terminate}s)").format(
               start=f"{st.start:g}", ready=f"{st.ready:g}", terminate=f"{st.terminate:g}"))
    controller = _("controller {name} ({version})").format(name=cluster.profile.name,
                                                           version=cluster.profile.version)
    return (f"<div class='stsedu-title'>StatefulSet <code>{esc(name)}</code> "
            f"<span class='stsedu-sub'>· {gen} · t={cluster.now:g}s · {kub} · {controller} "
            f"· {syncs(len(cluster.trace))}</span></div>")


def progress_html(cluster, name: str, n: int | None, done: int, spec) -> str:
    """The line beside the progress bar: the run's syncs (*n*; None: no run since the last change),
    the clock, and how many pods are Ready at the revision they should have."""
    head = "" if n is None else f"{syncs(n)} · "
    return (f"<span class='stsedu-note'>{head}t={cluster.now:g}s · "
            f"{progress_words(cluster, name, done, spec)}</span>")


def sync_message(r, kubelet_mode: str) -> str:
    """What one sync (``Sync once``) did, and what to do next when it only waits."""
    if r.error:
        return _("Sync {n} stopped on an API error: {error}").format(n=r.sync, error=esc(r.error))
    acts = [d for d in r.decisions if d.action in POD_ACTIONS]
    if not acts:
        return _("Sync {n}: nothing to do.").format(n=r.sync)
    tail = ""
    if any(d.action == "wait" for d in acts):
        tail = " " + (_("Advance time so the kubelet can move the pods, then sync again.")
                      if kubelet_mode == "auto" else
                      _("Move the pod with the Pod row (manual kubelet), then sync again."))
    return _("Sync {n}: {decisions}.").format(n=r.sync, decisions=decisions_summary(r.decisions)) + tail


def run_outcome(cluster, name: str, outcome: str, n: int, waits: list, max_syncs: int | None) -> str:
    """How a run ended: *outcome* is ``"stable"``, ``"stopped"`` or ``"max"`` (the run's limit),
    after *n* syncs; *waits* are the last sync's wait decisions (their messages stay upstream's)."""
    t = f"{cluster.now:g}"
    if outcome == "stable" and waits:
        return _("Stopped after {syncs} (t={t}s): nothing else will happen by itself, and the controller is "
                 "still waiting ({message}). It is stuck until you act.").format(
            syncs=syncs(n), t=t, message=esc(waits[0].message))
    if outcome == "stable" and unsettled(cluster, name):
        return _("Stopped after {syncs} (t={t}s): nothing else will happen by itself, and the set is not "
                 "stable: {reasons}.").format(syncs=syncs(n), t=t,
                                             reasons=esc(_("; ").join(unsettled(cluster, name))))
    if outcome == "stable":
        left = left_note(cluster, name)
        return _("Stable after {syncs} (t={t}s).").format(syncs=syncs(n), t=t) + (f" {esc(left)}" if left else "")
    if outcome == "stopped":
        return _("Stopped after {syncs} (t={t}s).").format(syncs=syncs(n), t=t)
    reasons = esc(_("; ").join(unsettled(cluster, name)))
    if max_syncs is None:
        return _("Gave up after {syncs}: the limit of one run for a set of this size; the set is not stable yet "
                 "({reasons}). To go further: Playground(max_syncs=...) or the <b>Run until stable</b> button "
                 "again (it goes on from here).").format(syncs=syncs(n), reasons=reasons)
    return _("Gave up after {syncs}: the limit of one run; the set is not stable yet ({reasons}). To go further: "
             "a larger Playground(max_syncs=...).").format(syncs=syncs(n), reasons=reasons)


def undo_note(message: str, stuck: list[str]) -> str:
    """After ``kubectl rollout undo``: kubectl's line, and the pods on a never-ready image that block
    the way back under OrderedReady (*stuck*)."""
    said = f"<code>{esc(message)}</code>."
    if not stuck:
        return said
    return said + " " + ngettext(
        "{pods} already runs the broken rollout's image and will never be Ready: under OrderedReady the way "
        "back waits for it, so delete it.",
        "{pods} already run the broken rollout's image and will never be Ready: under OrderedReady the way "
        "back waits for them, so delete them.", len(stuck)).format(pods=", ".join(stuck))
