"""Predict, then see: questions about a situation the simulator sets up, answered in a code cell.

``stsedu.labs.reveal(qid)`` with no answer repeats the question and the form of an answer (what a
shipped notebook stores); with one it runs the simulator, shows what happened (decisions and a
chart) and says ✓ or ✗ with the rule.  The expected answer is what the simulator does, computed
each time; it is stored nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..api.arguments import as_number, whole_number
from ..lessons import examples
from ..lessons.exercises.kinds import ordinal_key
from ..cluster import Cluster
from ..controller.decisions import POD_ACTIONS, SyncResult
from .lab_base import LAB_CSS, BROKEN_IMAGE, CHARTS, show_chart, decisions_html
from .panels import esc
from ..i18n import N_, _
from .loop_lab import set_manifest, two_sets

__all__ = ["Question", "QUESTIONS", "question", "reveal", "Reveal"]


# ------------------------------------------------------------------- predictions


@dataclass
class Question:
    """A predict-then-see question: *setup* builds the situation, *act* makes the change and
    returns what happened (the thing to predict), computed by the simulator."""

    id: str
    text: str
    form: str
    kind: str  # "pods" | "decision" | "image" | "number" | "numbers" | "word" | "bool" | "value"
    setup: Callable[[], Cluster]
    act: Callable[[Cluster], Any]
    why: str
    chart: str = "timeline"
    choices: tuple[str, ...] = ()
    """For kind "word": the words an answer may be."""


def _up(manifest: dict, manual: bool = False, **kw) -> Cluster:
    c = Cluster(kubelet="manual" if manual else "auto", **kw)
    c.apply(manifest)
    if manual:
        c.settle("web")
    else:
        c.run("web")
    return c


def _decision_form(example: str) -> str:
    """The form of a decision answer.  A wait names the pod waited *for* (the one not yet Running and
    Ready), not the pod that waits: ("wait", "web-1") is "the controller waits for web-1"."""
    return (f'a pair (action, pod), e.g. ("{example}", "web-9"); for a wait, the pod waited for: '
            f'("wait", "web-9") means "waits for web-9"')


def form_words(form: str) -> str:
    """The form of an answer in the learner's language (a decision's form is built from the example)."""
    for example in ("create", "delete", "wait", "update"):
        if form == _decision_form(example):
            return _('a pair (action, pod), e.g. ("{example}", "web-9"); for a wait, the pod waited for: '
                     '("wait", "web-9") means "waits for web-9"').format(example=example)
    return _(form)


def _first_pod_decision(c: Cluster, *, skip_waits: bool = False) -> tuple[str, str] | None:
    r = c.sync("web")
    for d in r.decisions:
        if d.action in POD_ACTIONS and not (skip_waits and d.action == "wait"):
            return (d.action, d.pod)
    return None


def _pods(c: Cluster) -> list[str]:
    return [p.name for p in c.pods("web") if not p.terminating]


def _q_created_while_pending():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(4, ordinals={"start": 1}))
    c.sync("web")
    c.kubelet.start("web-1")
    c.kubelet.set_ready("web-1")
    c.sync("web")  # creates web-2, which stays Pending
    return c


def _q_blocked():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(5))
    c.settle("web")
    c.kubelet.set_unready("web-1")
    return c


def _scale_down_blocked(c):
    c.scale("web", 2)
    return _first_pod_decision(c)


def _partitioned(partition: int, replicas: int = 5):
    def setup():
        return _up(examples.web(replicas, updateStrategy={"type": "RollingUpdate",
                                                          "rollingUpdate": {"partition": partition}}))
    return setup


def _new_image_pods_at(image: str):
    def act(c):
        c.set_image("web", image)
        c.run("web")
        return [p.name for p in c.pods("web") if image in p.images()]
    return act


def _canary_setup():
    c = _partitioned(2, replicas=4)()
    c.set_image("web", "nginx:2")
    c.run("web")
    return c


def _midway_update():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(3))
    c.settle("web")
    c.set_image("web", "nginx:2")
    c.sync("web")                      # deletes web-2 for the update
    c.kubelet.finish_termination("web-2")
    c.sync("web")                      # creates it again at the new revision
    c.kubelet.start("web-2")
    return c


def _parallel_scale_down_deletes(c):
    c.scale("web", 1)
    r = c.sync("web")
    return sum(d.action == "delete" for d in r.decisions)


def _ready_at_zero_mrs():
    c = Cluster(kubelet="manual")
    c.apply(examples.web(2, minReadySeconds=10))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    return c


def _sync_at(t):
    def act(c):
        c.advance(max(0.0, t - c.now))
        return _first_pod_decision(c)
    return act


def _parallel_failed():
    c = _up(examples.web(3, policy="Parallel"), manual=True)
    c.kubelet.fail("web-0")
    return c


def _crash_looping():
    c = _up(examples.web(3), manual=True)
    c.kubelet.crash("web-1")
    return c


def _template_and_missing():
    c = _up(examples.web(2), manual=True)
    c.patch("web", {"spec": {"replicas": 3, "template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:2"}]}}}})
    return c


def _ondelete_two_images():
    c = _up(examples.web(3, updateStrategy={"type": "OnDelete"}))
    c.set_image("web", "nginx:2")
    c.run("web")
    c.set_image("web", "nginx:3")
    c.run("web")
    return c


def _image_of_recreated(pod: str):
    def act(c):
        c.delete_pod(pod)
        c.run("web")
        return c.pod(pod).images()[0]
    return act


def _orphan_then_scale():
    c = _up(examples.web(3))
    c.delete("web", cascade="orphan")
    c.advance(30)
    return c


def _recreate_with(replicas: int):
    def act(c):
        c.apply(examples.web(replicas))
        c.run("web")
        return sorted(p.name for p in c.pods() if not p.terminating)
    return act


def _storage_scaled_down():
    c = _up(examples.web(4, claims=True,
                         persistentVolumeClaimRetentionPolicy={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    return c


def _claims_after(n: int):
    def act(c):
        c.scale("web", n)
        c.run("web")
        c.advance(60)
        return sorted(p.name for p in c.pvcs() if not p.deleting)
    return act


def _parallel_first_sync(n: int):
    def act(c):
        c.scale("web", n)
        r = c.sync("web")
        return sum(d.action == "create" for d in r.decisions)
    return act


def _max_unavailable_first_deletes():
    return _up(examples.web(6, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}}))


def _first_sync_deletes(image: str):
    def act(c):
        c.set_image("web", image)
        r = c.sync("web")
        return sorted((d.pod for d in r.decisions if d.action == "delete"), key=lambda p: int(p.split("-")[1]))
    return act


def _for_seconds(c: Cluster, seconds: float) -> None:
    """Let *seconds* of simulated time pass with the controller running: it may stop early when nothing
    more is due (a stuck pod); the clock still reaches the end, as a wall clock would."""
    end = c.now + seconds
    c.run("web", until=end)
    if c.now < end:
        c.advance(end - c.now)


def _broken_rollout():
    c = Cluster()
    c.kubelet.never_ready(image=BROKEN_IMAGE)
    c.apply(examples.web(4))
    c.run("web")
    c.set_image("web", BROKEN_IMAGE)
    _for_seconds(c, 120)
    return c


def _revert_and_count_replaced(c):
    c.set_image("web", "nginx:1")
    _for_seconds(c, 120)
    return [p.name for p in c.pods("web") if BROKEN_IMAGE in p.images()]


def _history_setup():
    c = _up(examples.web(2))
    for img in ("nginx:2", "nginx:3"):
        c.set_image("web", img)
        c.run("web")
    return c


def _undo_number(c):
    c.rollout_undo("web")
    c.run("web")
    return max(r.revision for r in c.revisions("web"))


def _identity_setup():
    return _up(examples.web(3, ordinals={"start": 3}))


def _names_after_scale(n):
    def act(c):
        c.scale("web", n)
        c.run("web")
        return _pods(c)
    return act


def _v116_setup():
    return _up(examples.web(0, minReadySeconds=30), profile="v1.16")


def _v116_act(c):
    c.scale("web", 3)
    c.run("web", until=c.now + 20)
    return _pods(c)


def _orphaned_web() -> Cluster:
    c = two_sets()
    c.delete("web", cascade="orphan")
    c.run()  # the garbage collector removes the owner references and the set, as kubectl waits for
    return c


def _adopted_or_created(c: Cluster) -> str:
    n0 = len(c.trace.syncs())
    c.apply(set_manifest("web", 3))
    c.run()
    d = c.trace.decisions()
    later = d[d["set"].eq("web") & d["sync"].gt(n0)]
    return "adopt" if later["action"].eq("adopt").any() and not later["action"].eq("create").any() else "create"


def _failing_creates() -> Cluster:
    c = Cluster(seed=1)
    c.apply(set_manifest("web", 3))
    c.inject_error("create", "Pod", count=3)
    return c


def _rate_limited_pauses(c: Cluster) -> tuple[float, ...]:
    c.run()
    q = c.trace.queue("default/web")
    delays = q[q["event"].str.contains("rate")]["event"].str.extract(r"\(([\d.]+) s\)")[0].astype(float)
    return tuple(float(x) for x in delays.head(3))


def _late_pod_news() -> Cluster:
    return two_sets(informer_delay=0.5, run=False)


def _created_twice(c: Cluster) -> bool:
    c.run()
    return bool(c.trace.decisions()["error"].fillna("").str.contains("already exists").any())


QUESTIONS: dict[str, Question] = {q.id: q for q in [
    Question("01.a", N_("A set web has ordinals.start 3 and 3 replicas. You scale it to 5. Which pods exist "
             "once it is stable?"), N_('a list of pod names, e.g. ["web-0", "web-1"]'), "pods",
             _identity_setup, _names_after_scale(5),
             N_("Ordinals run from ordinals.start to start + replicas - 1: here 3..7. Names are "
             "<set>-<ordinal>, so scaling adds the next ordinals up, never fills in below start.")),
    Question("02.a", N_("Four pods web-0..web-3, each with its claim www-web-N; whenScaled is Delete. You scale "
             "to 2. Which claims are left once the scale-down is over?"), N_('a list of claim names, e.g. ["www-web-0"]'),
             "pods", _storage_scaled_down, _claims_after(2),
             N_("whenScaled: Delete removes the claims of the pods that scale-down removed (the controller makes "
             "each condemned pod the owner of its claims, so the garbage collector deletes them once that pod "
             "is gone); the claims of the pods that stay are kept."), chart="timeline"),
    Question("03.a", N_("A set starting at ordinal 1 (web-1, web-2, ...) with 4 replicas: web-1 is Running "
             "and Ready, web-2 was just created and is Pending. What does the next sync do?"),
             _decision_form("create"), "decision",
             _q_created_while_pending, _first_pod_decision,
             N_("OrderedReady creates pods one at a time: the next ordinal is created only once every lower one "
             "is Running and Ready. web-2 is Pending, so the sync waits for it and creates nothing.")),
    Question("03.b", N_("Five Ready pods web-0..web-4; web-1 turns not Ready. You scale to 2. What does the "
             "next sync do?"), _decision_form("delete"),
             "decision", _q_blocked, _scale_down_blocked,
             N_("Scale-down removes the highest ordinal first, but only while every pod that stays is healthy: "
             "with web-1 not Ready, the condemned pods wait (the concept page's web-0 example, one ordinal up).")),
    Question("04.a", N_("web is deleted with --cascade=orphan; its pods keep running without an owner. You apply "
             "web again. Does the new set create new pods or adopt the old ones?"), N_('"create" or "adopt"'), "word",
             _orphaned_web, _adopted_or_created,
             N_("The set's add event queues its key; its sync claims every orphan whose labels match the selector "
             "and whose name fits the set (ClaimPods) and adopts it: no pod is created."), chart="queue",
             choices=("create", "adopt")),
    Question("04.b", N_("web is alone in the cluster and creating its first pod fails three times in a row. After "
             "each failure its key goes back in the queue after a pause; the first pause is 5 ms. How long are "
             "the pauses after the 1st, 2nd and 3rd failure?"),
             N_("a tuple of three numbers of seconds, e.g. (0.005, 0.005, 0.005)"), "numbers",
             _failing_creates, _rate_limited_pauses,
             N_("The default controller rate limiter backs a key off exponentially: 5 ms, then double each time "
             "(at most 1000 s), until a successful sync forgets it."), chart="queue"),
    Question("04.c", N_("Pod events reach the controller 0.5 s late, the set's own events at once. Does the "
             "controller ever try to create a pod that already exists?"), N_("True or False"), "bool",
             _late_pod_news, _created_twice,
             N_("After creating web-0 the sync writes status; that event comes back at once and queues web again, "
             "but web-0's add event is still on its way. The controller remembers the resource versions of its "
             "own writes (the consistency store, on by default since v1.36) and does not sync while its pod "
             "cache is behind them: the key is requeued with rate limiting until web-0's event arrives, then "
             "the sync carries on. (The v1.16 controller had no such check: it did not see web-0, created it "
             "again and got AlreadyExists.)"), chart="queue"),
    Question("05.a", N_("Five Ready pods at nginx:1. You set image nginx:2 (RollingUpdate, no partition). "
             "Which pods does the FIRST sync delete?"), N_('a list of pod names, e.g. ["web-0"]'), "pods",
             lambda: _up(examples.web(5)), _first_sync_deletes("nginx:2"),
             N_("A rolling update (maxUnavailable 1, the default) deletes one pod at a time, the highest ordinal "
             "first."), chart="revisions"),
    Question("05.b", N_("Three pods are being updated to nginx:2. web-2 has been replaced: its new pod is Running "
             "but not Ready yet. What does the next sync do?"),
             _decision_form("delete"), "decision",
             _midway_update, _first_pod_decision,
             N_("The rolling update waits for each replacement to be Running and Ready before it deletes the "
             "next pod: here it waits for web-2."), chart="revisions"),
    Question("06.a", N_("Five Ready pods, partition 3. You set image nginx:2. Which pods run nginx:2 once the "
             "set is stable?"), N_('a list of pod names, e.g. ["web-0"]'), "pods",
             _partitioned(3), _new_image_pods_at("nginx:2"),
             N_("Only pods whose ordinal is at least the partition are updated: web-3 and web-4. The others "
             "stay at the old revision."), chart="revisions"),
    Question("06.b", N_("Five Ready pods, partition 10 (more than replicas). You set image nginx:2. Which pods "
             "run nginx:2 once the set is stable?"), N_('a list of pod names, or [] for none'), "pods",
             _partitioned(10), _new_image_pods_at("nginx:2"),
             N_("No ordinal is at least 10, so nothing is updated: a partition above replicas pauses the rollout."),
             chart="revisions"),
    Question("06.c", N_("Four pods, partition 2, image changed to nginx:2 (web-2 and web-3 run it). web-0 is "
             "deleted. Which image does the new web-0 run?"), N_('an image name, e.g. "nginx:1"'), "image",
             _canary_setup, _image_of_recreated("web-0"),
             N_("A pod below the partition is always recreated from the current (old) revision: only ordinals "
             "at or above the partition get the update revision."), chart="revisions"),
    Question("07.a", N_("An OnDelete set of 3 pods at nginx:1. You set nginx:2, then nginx:3, without deleting "
             "anything. Then you delete web-0. Which image does the new web-0 run?"),
             N_('an image name, e.g. "nginx:1"'), "image", _ondelete_two_images, _image_of_recreated("web-0"),
             N_("With OnDelete a pod is recreated from the update revision, the newest template: nginx:3. "
             "Revisions in between are never run by anyone."), chart="revisions"),
    Question("08.a", N_("Three pods were orphaned (the set was deleted with --cascade=orphan). You create the "
             "set again with replicas 2. Which pods exist once it is stable?"), N_('a list of pod names'),
             "pods", _orphan_then_scale, _recreate_with(2),
             N_("The new set adopts the orphans that match its selector, then treats them as its own: web-2 is "
             "outside replicas 2, so it is deleted like any scale-down.")),
    Question("09.a", N_("A Parallel set with 0 replicas is scaled to 4. How many pods does the first sync "
             "create?"), N_("a number"), "number",
             lambda: _up(examples.web(0, policy="Parallel")), _parallel_first_sync(4),
             N_("Parallel creates every missing pod in one sync without waiting for any of them.")),
    Question("09.b", N_("A Parallel set of 4 Ready pods is scaled to 1. How many pods does the first sync delete?"),
             N_("a number"), "number", lambda: _up(examples.web(4, policy="Parallel")), _parallel_scale_down_deletes,
             N_("Parallel also removes condemned pods without waiting: all three go in one sync.")),
    Question("10.a", N_("minReadySeconds is 10; web-0 became Ready at t=0 (web-1 does not exist yet). What does "
             "the sync at t=5 do?"), _decision_form("create"),
             "decision", _ready_at_zero_mrs, _sync_at(5),
             N_("Ready is not Available: a pod counts as Available only once it has been Ready for "
             "minReadySeconds. Until t=10 the controller waits for web-0 before it creates web-1.")),
    Question("10.b", N_("Six Ready pods, maxUnavailable 3. You set image nginx:2. Which pods does the FIRST "
             "sync delete?"), N_('a list of pod names'), "pods",
             _max_unavailable_first_deletes, _first_sync_deletes("nginx:2"),
             N_("With maxUnavailable 3 the rolling update may take down up to three pods at once, still "
             "highest ordinal first."), chart="revisions"),
    Question("11.a", N_("A Parallel set of 3 Ready pods; the kubelet evicts web-0 (the node ran low on memory: "
             "phase Failed, reason Evicted). What does the next sync do first?"),
             N_('a pair (action, pod), e.g. ("create", "web-9")'), "decision",
             _parallel_failed, _first_pod_decision,
             N_("A Failed pod is deleted so that it can be created again with the same name (and claims); "
             "that happens in the replica loop, lowest ordinal first.")),
    Question("11.b", N_("Three Ready pods (OrderedReady); web-1's container exits with an error, and the kubelet "
             "will restart it after a back-off (STATUS Error, then CrashLoopBackOff; phase Running). "
             "What does the next sync do with web-1?"),
             _decision_form("delete"), "decision",
             _crash_looping, _first_pod_decision,
             N_("A crash-looping pod is still in phase Running, only not Ready: restarting its container is "
             "the kubelet's business. The controller neither deletes nor replaces it; it waits on it, and "
             "a scale-up or a rollout stalls behind it.")),
    Question("11.c", N_("Four pods, web-0 to web-3. A rollout to a broken image is stuck: web-3 runs it and never "
             "becomes Ready. You set the image back to nginx:1 and wait two minutes. Which pods still run the "
             "broken image?"),
             N_('a list of pod names, or []'), "pods", _broken_rollout, _revert_and_count_replaced,
             N_("Reverting the template is not enough: the controller waits for the stuck pod to become Ready "
             "before it touches it, and it never will. You must delete it yourself (the documented forced "
             "rollback).")),
    Question("12.a", N_("Image nginx:1 was rolled out, then nginx:2, then nginx:3 (revisions 1, 2, 3). You run "
             "kubectl rollout undo. What is the highest revision number afterwards?"), N_("a number"), "number",
             _history_setup, _undo_number,
             N_("Undo goes back to the previous template (nginx:2); its ControllerRevision is reused and gets "
             "the next number, 4, instead of a new copy being made."), chart="revisions"),
    Question("14.a", N_("Two Ready pods; in one edit you change the image AND scale to 3. What does the next "
             "sync do first?"), N_('a pair (action, pod), e.g. ("delete", "web-9") or ("create", "web-9")'),
             "decision", _template_and_missing, _first_pod_decision,
             N_("Scaling comes before updating in every sync: the replica loop creates the missing web-2 (at the "
             "new revision) before the rolling update looks at old pods."), chart="strip"),
    Question("15.a", N_("Under the v1.16 controller, a set with minReadySeconds 30 is scaled from 0 to 3. "
             "Which pods exist 20 seconds later?"), N_('a list of pod names'), "pods",
             _v116_setup, _v116_act,
             N_("v1.16 knows nothing about minReadySeconds for StatefulSets: a pod that is Running and Ready is "
             "enough, so it creates the next pod as soon as the previous is Ready. Today's controller waits "
             "until each pod has been Ready for 30 s (Available) before it creates the next.")),
]}


def question(qid: str) -> Question:
    """The question *qid*; KeyError naming the known ones otherwise.  The lessons' questions are
    the practice set: answered in any kernel, an assessed one too (an assessed exercise is never
    one of them; see :mod:`stsedu.lessons.exercises.modes`)."""
    try:
        return QUESTIONS[qid]
    except (KeyError, TypeError):   # TypeError: a list is no question id
        raise KeyError(f"no question {qid!r}; known: {', '.join(QUESTIONS)}") from None


class WrongForm(ValueError):
    """An answer that does not have the form the question asks for; the message says what is wrong."""


def _norm(kind: str, value: Any, choices: tuple[str, ...] = ()) -> Any:
    """The answer *value* in a form comparable with the simulator's; WrongForm says why it is not."""
    if kind == "word":
        word = value.strip().strip('"').lower() if isinstance(value, str) else None
        if word not in choices:
            raise WrongForm(_("one of {choices} is asked for, not {value}").format(
                choices=_(" or ").join(repr(c) for c in choices), value=repr(value)))
        return word
    if kind == "pods":
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set)):
            raise WrongForm(_("a list is asked for, and {value} is not a list").format(value=repr(value)))
        bad = [v for v in value if not isinstance(v, str)]
        if bad:
            raise WrongForm(_("each item must be a name in quotes, and {value} is not").format(value=repr(bad[0])))
        return sorted((v.strip() for v in value), key=ordinal_key)
    if kind == "decision":
        if value is None:
            return None
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or len(value) != 2:
            raise WrongForm(_("a pair (action, pod) is asked for, and {value} is not a pair").format(value=repr(value)))
        a, p = value
        if not isinstance(a, str) or not isinstance(p, str):
            raise WrongForm(_("both parts of the pair are words in quotes"))
        a = a.strip().lower()
        if a not in POD_ACTIONS:
            raise WrongForm(_("the action is one of {actions}, not {value}").format(
                actions=", ".join(sorted(POD_ACTIONS)), value=repr(a)))
        return (a, p.strip())
    if kind == "image":
        if not isinstance(value, str):
            raise WrongForm(_("one image name in quotes is asked for, and {value} is not one").format(value=repr(value))
                            + (_(" (a list, not a name)") if isinstance(value, (list, tuple, set)) else ""))
        return value.strip()
    if kind == "number":
        try:
            return whole_number(value)
        except ValueError as e:
            raise WrongForm(str(e)) from None
    if kind == "numbers":
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise WrongForm(_("a tuple of numbers is asked for, and {value} is not one").format(value=repr(value))
                            + (_(" (a string: leave out the quotes)") if isinstance(value, str) else ""))
        if any(as_number(v)[0] is None for v in value):
            raise WrongForm(_("each item must be a finite number of seconds"))
        return tuple(round(float(as_number(v)[0]), 9) for v in value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise WrongForm(_("True or False is asked for (no quotes), and {value} is neither").format(value=repr(value)))
        return value
    if isinstance(value, str):
        return value.strip()
    return value


def _set_pods(c: Cluster, name: str = "web") -> list[str]:
    """The pods the question's set has or had, and those its spec asks for now."""
    pods = c.trace.pods()
    names = set(pods["pod"]) if not pods.empty else set()
    names |= {p.name for p in c.pods()}
    try:
        spec = c.statefulset(name).spec
        names |= {f"{name}-{k}" for k in range(spec.start_ordinal, spec.start_ordinal + spec.replicas)}
    except KeyError:
        pass
    return sorted(names, key=ordinal_key)


def _unknown_names(kind: str, given: Any, c: Cluster) -> list[str]:
    """Pods (or their claims, ``www-<pod>``) named in an answer that are not in the question's set."""
    if kind == "pods":
        names = list(given)
    elif kind == "decision" and given is not None:
        names = [given[1]]
    else:
        return []
    known = set(_set_pods(c))
    return [n for n in names if n not in known and not (n.startswith("www-") and n[4:] in known)]


@dataclass
class Reveal:
    """What :func:`reveal` shows: text for nbval and text/plain, HTML with the decisions and a chart."""

    text: str
    html: str = ""
    chart: Any = None

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html or f"<pre>{esc(self.text)}</pre>"

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display({"text/plain": self.text, "text/html": self._repr_html_()}, raw=True)
        if self.chart is not None:
            display(show_chart(self.chart))


NO_ANSWER = None

LINGER_SECONDS = 5.0
"""Simulated seconds a reveal lets pass after its change when nothing more is due (as a lab does)."""


def reveal(qid: str, answer: Any = NO_ANSWER) -> Reveal:
    """Predict, then see: with no *answer* repeat the question and how to answer; with one, run
    the simulator, show what happened and say ✓ or ✗ with the rule."""
    q = question(qid)
    text, form, why = _(q.text), form_words(q.form), _(q.why)
    head = _("Question {id}: {text}").format(id=q.id, text=text)
    if answer is NO_ANSWER or answer is ...:
        ask = _("No prediction recorded yet: write it as answer = {form}, then run this cell.").format(form=form)
        label = _("Question {id}:").format(id=esc(q.id))
        return Reveal(f"{head}\n{ask}", f"{LAB_CSS}<div class='stsedu-lab stsedu-reveal'><b>{label}</b> "
                                          f"{esc(text)}<br><span class='lab-note'>{esc(ask)}</span></div>")
    try:
        given = _norm(q.kind, answer, q.choices)
    except WrongForm as e:
        msg = _("Wrong form, not a wrong answer: {problem}. Write it as {form}.").format(problem=e, form=form)
        return Reveal(f"{head}\n{msg}", f"{LAB_CSS}<div class='stsedu-lab stsedu-reveal'><div class='lab-h'>{esc(head)}"
                                         f"</div><div class='lab-error'>{esc(msg)}</div></div>")
    c = q.setup()
    n0 = len(c.trace.rows()["syncs"])
    got = _norm(q.kind, q.act(c), q.choices)
    ok = given == got
    unknown = _unknown_names(q.kind, given, c)
    mark = _("✓ right") if ok else _("✗ not this time")
    if unknown:
        names = _set_pods(c)
        missing = _(", no ").join(unknown)
        mark += (_(" (there is no {names} in this set: its pods are {pods})").format(names=missing, pods=", ".join(names))
                 if names else _(" (there is no {names} in this set)").format(names=missing))
    shown = lambda v: _("nothing") if v in (None, []) else (", ".join(v) if isinstance(v, list) else  # noqa: E731
                                                         (" ".join(v) if isinstance(v, tuple) and q.kind == "decision"
                                                          else ", ".join(f"{x:g}" for x in v) if isinstance(v, tuple)
                                                          else str(v)))
    predicted = _("You predicted: {answer}")
    verdict = _("{mark}: the simulator agrees: {result}") if ok else _("{mark}: the simulator did: {result}")
    rule = _("The rule: {rule}")
    text = "\n".join([head, predicted.format(answer=shown(given)), verdict.format(mark=mark, result=shown(got)),
                      rule.format(rule=why)])
    results = [r for r in _results(c) if r.sync > n0]
    body = decisions_html(results)
    cls = "lab-ok" if ok else "lab-no"
    page = (f"{LAB_CSS}<div class='stsedu-lab stsedu-reveal'><div class='lab-h'>{esc(head)}</div>"
            f"<div>{predicted.format(answer=f'<b>{esc(shown(given))}</b>')}</div>"
            f"<div class='{cls}'>{verdict.format(mark=mark, result=esc(shown(got)))}</div>"
            f"<div class='lab-did'>{rule.format(rule=esc(why))}</div>"
            "<div class='lab-h'>" + _("What the controller decided") + f"</div>{body}</div>")
    chart = None
    try:
        chart = _chart(q, c)
    except Exception:  # noqa: BLE001 - the verdict matters more than the picture
        chart = None
    return Reveal(text, page, chart)


def _chart(q: Question, c: Cluster):
    """The question's chart of the run.  A pod timeline is drawn over syncs when the simulated clock
    did not move while the pods changed (a manual kubelet, or one sync at t=0): over time every bar
    would have zero width and the chart no rows."""
    from ..views import charts
    if c.clock.peek() is None and c.now > 0:
        # nothing more will happen: let a few seconds pass, as a lab does, so that the state the last
        # change began shows as a bar rather than a zero-width sliver at the axis's end
        c.advance(LINGER_SECONDS)
    if q.chart == "queue":
        return charts.queue_flow(c.trace, limit=80)
    if q.chart != "timeline":
        return getattr(charts, CHARTS[q.chart][0])(c.trace, "web")
    nxt = c.clock.peek()
    # when the next change is due at *nxt*, every pod stays as it is now until then, so the chart may
    # draw that stretch (the state the act left, with a width) without running past the act
    data = charts.pod_timeline_data(c.trace, "web", until=min(nxt, c.now + LINGER_SECONDS)
                                    if nxt is not None and nxt > c.now else None)
    if not data.rows["bars"]:
        data = charts.pod_timeline_data(c.trace, "web", x="sync")
    return data.chart()


def _results(c: Cluster) -> list[SyncResult]:
    """The syncs in a cluster's trace, as light SyncResult-likes for :func:`decisions_html`."""
    df = c.trace.decisions()
    out: dict[int, _TraceSync] = {}
    for row in df.itertuples(index=False):
        s = out.setdefault(int(row.sync), _TraceSync(int(row.sync), float(row.time), []))
        s.decisions.append(_TraceDecision(row.action, row.pod if isinstance(row.pod, str) else None,
                                          row.reason, row.rule, row.message))
    return [out[k] for k in sorted(out)]


@dataclass
class _TraceDecision:
    action: str
    pod: str | None
    reason: str
    rule: str
    message: str


@dataclass
class _TraceSync:
    sync: int
    time: float
    decisions: list
