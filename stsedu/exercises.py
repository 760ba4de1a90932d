"""Predict-then-check exercises for the classroom.

Every exercise builds a small cluster, asks a question about what the
controller will do, and checks the learner's answer against what the
simulator *actually* does (answers are computed, never stored), with
feedback that explains the rule instead of a bare True/False.

    ex = stsedu.exercises.get("02.1")
    ex.show()                    # the question and the state it is about
    ex.check(("create", "web-1"))

Teachers: ``stsedu.exercises.teacher_mode()`` (or the environment variable
``STSEDU_TEACHER=1``) makes :meth:`Exercise.solution` show the answers;
``stsedu.exercises.catalog()`` lists every exercise.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from . import examples
from .cluster import Cluster

_TEACHER = [os.environ.get("STSEDU_TEACHER", "") not in ("", "0", "false", "False")]


def teacher_mode(on: bool = True) -> None:
    """Let :meth:`Exercise.solution` reveal answers (for teachers and solution notebooks)."""
    _TEACHER[0] = bool(on)


# ------------------------------------------------------------------ helpers


def _web(replicas=3, policy="OrderedReady", image="nginx:1", **spec) -> dict:
    return examples.web(replicas, policy, image, **spec)


def _claims(**spec) -> dict:
    return examples.web(claims=True, **spec)


def settle(c: Cluster, name: str = "web") -> Cluster:
    """Play the kubelet until the set is stable (:meth:`Cluster.settle`); returns the cluster."""
    c.settle(name)
    return c


def _up(manifest: dict, **cluster) -> Cluster:
    c = Cluster(kubelet="manual", **cluster)
    c.apply(manifest)
    return settle(c)


def _next(c: Cluster, name: str = "web") -> list[tuple[str, str | None]]:
    return [(d.action, d.pod) for d in c.sync(name).decisions
            if d.action in ("create", "delete", "update", "wait")]


def _rev_number(c: Cluster, pod: str, set_name: str = "web") -> int:
    names = {r.name: r.revision for r in c.revisions(set_name)}
    return names[c.pod(pod).revision]


# ----------------------------------------------------------- normalising


def _norm_decisions(ans: Any) -> list[tuple[str, str | None]]:
    """Accept ("create", "web-1"), [("wait", "web-0")], "create web-1", "nothing" / [] ..."""
    if ans is None:
        raise ValueError("no answer yet")
    if isinstance(ans, str):
        text = ans.strip().lower()
        if text in ("", "nothing", "none", "no action", "[]"):
            return []
        parts = [p.strip() for p in re.split(r"[;,]| and ", text) if p.strip()]
        out = []
        for p in parts:
            words = p.split()
            out.append((words[0], words[1] if len(words) > 1 else None))
        return out
    if isinstance(ans, tuple) and ans and isinstance(ans[0], str):
        return [(ans[0].lower(), ans[1] if len(ans) > 1 else None)]
    return [(a[0].lower(), a[1] if len(a) > 1 else None) for a in ans]


def _norm_pods(ans: Any) -> list[str]:
    if ans is None:
        raise ValueError("no answer yet")
    if isinstance(ans, str):
        ans = [a for a in re.split(r"[\s,]+", ans) if a]
    return sorted(ans, key=lambda n: (n.rsplit("-", 1)[0], int(n.rsplit("-", 1)[1])
                                      if n.rsplit("-", 1)[-1].isdigit() else -1))


def _norm_value(ans: Any) -> Any:
    if ans is None:
        raise ValueError("no answer yet")
    if isinstance(ans, str):
        t = ans.strip()
        if t.lower() in ("true", "yes"):
            return True
        if t.lower() in ("false", "no"):
            return False
        try:
            return int(t)
        except ValueError:
            return t
    return ans


ANSWER_FORMATS = {
    "decisions": 'a decision such as ("create", "web-7") or ("wait", "web-7"), a list of them, or "nothing"',
    "pods": 'a list of pod or claim names such as ["web-8", "web-9"]',
    "value": "a value: a number, True/False or a string",
}

NORMALISERS = {"decisions": _norm_decisions, "pods": _norm_pods, "value": _norm_value}


# ------------------------------------------------------------------ model


@dataclass
class Feedback:
    """The result of :meth:`Exercise.check`: ``ok`` and a ``message`` that explains."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_markdown_(self) -> str:
        return self.message


@dataclass
class Exercise:
    """One predict-then-check question.

    *setup* builds the cluster the question is about; *answer* computes the
    expected answer from a fresh copy of it by letting the simulator act;
    *why* explains the rule (shown with every check); *hints* map typical
    wrong answers (normalised) to a targeted hint.
    """

    id: str
    notebook: str
    question: str
    kind: str
    setup: Callable[[], Cluster]
    answer: Callable[[Cluster], Any]
    why: str
    hints: dict = field(default_factory=dict)
    example: str = ""

    def cluster(self) -> Cluster:
        """A fresh cluster in the state the question is about."""
        return self.setup()

    def expected(self) -> Any:
        return NORMALISERS[self.kind](self.answer(self.setup()))

    @property
    def answer_format(self) -> str:
        """How to write an answer to this exercise (never the answer itself)."""
        return self.example or ANSWER_FORMATS[self.kind]

    def show(self) -> None:
        """Print the question and the pods it is about (kubectl-like)."""
        c = self.setup()
        lines = [f"Exercise {self.id}: {self.question}", ""]
        for sts in c.statefulsets():
            s = sts.spec
            lines.append(f"statefulset/{sts.name}: replicas={s.replicas} policy={s.pod_management_policy} "
                         f"strategy={s.update_strategy}"
                         + (f" partition={s.partition}" if s.rolling_update else ""))
        lines.append(f"{'NAME':<8} {'PHASE':<10} {'READY':<6} {'TERMINATING':<12} REVISION")
        revs = {}
        for sts in c.statefulsets():
            revs.update({r.name: r.revision for r in c.revisions(sts.name)})
        for p in c.pods():
            lines.append(f"{p.name:<8} {p.phase:<10} {str(p.ready):<6} {str(p.terminating):<12} "
                         f"{revs.get(p.revision, '?')}")
        lines += ["", f"Answer with {self.answer_format}."]
        print("\n".join(lines))

    def check(self, answer: Any) -> Feedback:
        """Compare *answer* with what the simulator does; explain either way."""
        norm = NORMALISERS[self.kind]
        try:
            given = norm(answer)
        except (ValueError, TypeError, IndexError):
            return Feedback(False, f"Exercise {self.id}: write your prediction first "
                                   f"({self.answer_format}).")
        expected = self.expected()
        if given == expected:
            return Feedback(True, f"✓ Exercise {self.id}: right. {self.why}")
        key = _hint_key(given)
        hint = self.hints.get(key) or _generic_hint(self.kind, given, expected)
        return Feedback(False, f"✗ Exercise {self.id}: not quite — you said {_show(given)}. {hint}")

    def solution(self) -> Feedback:
        """The answer and why (only in teacher mode)."""
        if not _TEACHER[0]:
            return Feedback(False, "Solutions are for teachers: call stsedu.exercises.teacher_mode() "
                                   "or set STSEDU_TEACHER=1.")
        return Feedback(True, f"Exercise {self.id}: {_show(self.expected())}. {self.why}")


def _hint_key(given: Any):
    if isinstance(given, list):
        return tuple(tuple(g) if isinstance(g, (list, tuple)) else g for g in given)
    return given


def _show(v: Any) -> str:
    if isinstance(v, list) and v and isinstance(v[0], tuple):
        return ", ".join(f"{a} {p}" if p else a for a, p in v)
    if v == []:
        return "nothing"
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return repr(v)


def _generic_hint(kind: str, given: Any, expected: Any) -> str:
    if kind == "decisions":
        if given and expected and [a for a, _ in given] == [a for a, _ in expected]:
            return "The kind of action is right; look again at which pod it concerns."
        if given and expected and [p for _, p in given] == [p for _, p in expected]:
            return "The pod is right; what does the controller do with it?"
        if expected == []:
            return "Look again: is there anything left for the controller to do?"
        return "Walk through the sync in order: replicas first (lowest ordinal), then condemned pods, then the update."
    if kind == "pods":
        missing = sorted(set(expected) - set(given))
        extra = sorted(set(given) - set(expected))
        parts = []
        if missing:
            parts.append(f"{len(missing)} pod(s) missing from your list")
        if extra:
            parts.append(f"{len(extra)} pod(s) too many")
        return "; ".join(parts) + "." if parts else "Check the names."
    if isinstance(expected, bool):
        return "Think about the exact rule (strictly, or at least?)."
    if isinstance(expected, int) and isinstance(given, int):
        return "Too many." if given > expected else "Too few."
    return "Compare with the rule in the notebook's text."


# --------------------------------------------------------------- the set


def _ex(id, notebook, question, kind, setup, answer, why, hints=None, example=""):
    return Exercise(id, notebook, question, kind, setup, answer, why, hints or {}, example)


def _partition_setup():
    c = _up(_web(4, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}))
    c.set_image("web", "nginx:2")
    return c


EXERCISES: list[Exercise] = [
    _ex("01.1", "01", "What is the stable DNS name of pod web-1 (Service nginx, namespace default, "
        "cluster domain cluster.local)?", "value",
        lambda: _up(_web(3)),
        lambda c: f"{c.pod('web-1').spec['hostname']}.{c.pod('web-1').spec['subdomain']}.{c.pod('web-1').namespace}.svc.{c.cluster_domain}",
        "A pod's DNS name is <pod>.<governing service>.<namespace>.svc.<cluster domain>; it stays the same "
        "when the pod is rescheduled."),
    _ex("01.2", "01", "With ordinals.start: 5 and replicas: 3, which pods exist once the set is up?", "pods",
        lambda: _applied(_web(3, ordinals={"start": 5})),
        lambda c: [p.name for p in settle(c).pods("web")],
        "Ordinals run from start to start + replicas - 1 (getStartOrdinal / getEndOrdinal).",
        {("web-0", "web-1", "web-2"): "ordinals.start moves the first ordinal."}),
    _ex("01.3", "01", "Pod web-2 mounts the volumeClaimTemplate 'www'. What is its PVC called?", "value",
        lambda: _up(_claims(replicas=3)),
        lambda c: [v["persistentVolumeClaim"]["claimName"] for v in c.pod("web-2").spec["volumes"]
                   if v["name"] == "www"][0],
        "Claims are named <template>-<set>-<ordinal> (getPersistentVolumeClaimName).",
        {"web-2-www": "The template name comes first.", "www-2": "The set's name is part of it."}),
    _ex("02.1", "02", "web-0 is Running and Ready; web-1 was just created and is Pending. "
        "What does the next sync do?", "decisions",
        lambda: _two_of_three(),
        lambda c: _next(c),
        "OrderedReady waits for each pod to be Running and Ready before it creates the next "
        "(processReplica: 'waiting for Pod to be Running and Ready').",
        {(("create", "web-2"),): "Not yet: web-1 must be Running and Ready before web-2 is created."}),
    _ex("02.2", "02", "Three Ready pods; you scale to 1. Which pod does the first sync delete?", "decisions",
        lambda: _scaled(_up(_web(3)), 1),
        lambda c: _next(c),
        "Scale-down goes from the highest ordinal down, one pod per sync (processCondemned).",
        {(("delete", "web-1"),): "Condemned pods are taken highest ordinal first.",
         (("delete", "web-0"),): "web-0 stays: it is inside the new ordinal range."}),
    _ex("02.3", "02", "Three Ready pods, scaled to 1; web-2 is gone; now web-0 turns not Ready. "
        "What does the next sync do?", "decisions",
        lambda: _blocked_scale_down(),
        lambda c: _next(c),
        "Scale-down waits while a pod in range is unhealthy: the replica loop stops at web-0 before "
        "any condemned pod is considered (the concept page's web-0 example).",
        {(("delete", "web-1"),): "web-1 is not deleted while web-0 is not Running and Ready."}),
    _ex("03.1", "03", "A Parallel set scales from 0 to 4. How many pods does the first sync create?", "value",
        lambda: _applied(_web(4, "Parallel")),
        lambda c: sum(1 for a, _ in _next(c) if a == "create"),
        "Parallel creates every missing pod in one sync (slowStartBatch: 1, 2, 4, ... at once).",
        {1: "That is OrderedReady. Parallel does not wait."}),
    _ex("03.2", "03", "A Parallel set of 3 Ready pods gets a new image. How many pods does the first "
        "update sync delete?", "value",
        lambda: _image(_up(_web(3, "Parallel")), "nginx:2"),
        lambda c: sum(1 for a, _ in _next(c) if a == "delete"),
        "podManagementPolicy only changes scaling; updates still honour maxUnavailable (default 1), "
        "so one pod at a time.",
        {3: "Parallel does not apply to updates: the rolling update replaces maxUnavailable pods at a time."}),
    _ex("04.1", "04", "Three Ready pods get a new image. Which pod does the first sync delete?", "decisions",
        lambda: _image(_up(_web(3)), "nginx:2"),
        lambda c: _next(c),
        "A rolling update replaces pods from the highest ordinal down.",
        {(("delete", "web-0"),): "Updates go in reverse ordinal order: highest first."}),
    _ex("04.2", "04", "During that rolling update, web-2 has been recreated at the new revision and is "
        "Pending. What does the next sync do?", "decisions",
        lambda: _update_midway(),
        lambda c: _next(c),
        "The replaced pod must be Running, Ready and Available before the next one is deleted.",
        {(("delete", "web-1"),): "Not yet: the updated web-2 is not Ready."}),
    _ex("05.1", "05", "Four Ready pods, partition 2, new image. Once the set settles, which pods run the "
        "new revision?", "pods",
        lambda: _partition_setup(),
        lambda c: [p.name for p in settle(c).pods("web") if _rev_number(c, p.name) == 2],
        "Only ordinals >= partition are updated; the rest stay at the current revision.",
        {("web-0", "web-1"): "The partition keeps the LOW ordinals on the old revision."}),
    _ex("05.2", "05", "Same set after the partitioned rollout: you delete web-0. At which revision number "
        "does it come back?", "value",
        lambda: _deleted(settle(_partition_setup()), "web-0"),
        lambda c: _rev_number(settle(c), "web-0"),
        "newVersionedStatefulSetPod: a pod below the partition is created at the current (old) revision.",
        {2: "Below the partition, new pods get the current revision, not the update revision."}),
    _ex("05.3", "05", "Three Ready pods, partition 5, new image. How many pods are updated once the set "
        "settles?", "value",
        lambda: _image(_up(_web(3, updateStrategy={"type": "RollingUpdate",
                                                    "rollingUpdate": {"partition": 5}})), "nginx:2"),
        lambda c: settle(c).statefulset("web").status.updated_replicas,
        "A partition at or above replicas updates nothing."),
    _ex("06.1", "06", "An OnDelete set of 3 Ready pods gets a new image. What does the next sync do?",
        "decisions",
        lambda: _image(_up(_web(3, updateStrategy={"type": "OnDelete"})), "nginx:2"),
        lambda c: _next(c),
        "With OnDelete the controller never deletes pods for an update.",
        {(("delete", "web-2"),): "That is RollingUpdate. OnDelete waits for you."}),
    _ex("06.2", "06", "Same OnDelete set: you delete web-1. At which revision number does it come back?",
        "value",
        lambda: _deleted(_image(_up(_web(3, updateStrategy={"type": "OnDelete"})), "nginx:2"), "web-1"),
        lambda c: _rev_number(settle(c), "web-1"),
        "A pod you delete is recreated from the update revision.",
        {1: "OnDelete recreates deleted pods at the NEW revision."}),
    _ex("07.1", "07", "minReadySeconds is 10 and web-0 became Ready at t=0. From what time t (in seconds) "
        "is web-0 Available?", "value",
        lambda: _ready_at_zero(),
        lambda c: next(t / 2 for t in range(0, 41)
                       if (c.advance(t / 2 - c.now), c.pod("web-0").available)[1]),
        "Available means Ready for at least minReadySeconds (isRunningAndAvailable: "
        "lastTransitionTime + minReadySeconds <= now), so from t = 10 on.",
        {11: "Not strictly more than minReadySeconds: exactly minReadySeconds is enough (<=, not <).",
         10.5: "Not strictly more than minReadySeconds: exactly minReadySeconds is enough (<=, not <)."}),
    _ex("07.2", "07", "Five Ready pods, maxUnavailable 2, new image. How many pods does the first update "
        "sync delete?", "value",
        lambda: _image(_up(_web(5, updateStrategy={"type": "RollingUpdate",
                                                    "rollingUpdate": {"maxUnavailable": 2}})), "nginx:2"),
        lambda c: sum(1 for a, _ in _next(c) if a == "delete"),
        "With maxUnavailable 2 the update deletes up to 2 old pods per wave (MaxUnavailableStatefulSet)."),
    _ex("07.3", "07", "Five replicas, maxUnavailable '50%'. How many pods may be unavailable at once?",
        "value",
        lambda: _up(_web(5, updateStrategy={"type": "RollingUpdate",
                                             "rollingUpdate": {"maxUnavailable": "50%"}})),
        lambda c: _max_unavailable(c),
        "Percentages are rounded down against spec.replicas, and at least 1 (getStatefulSetMaxUnavailable).",
        {3: "Percentages are rounded DOWN: 50% of 5 is 2."}),
    _ex("08.1", "08", "Three Ready pods; web-1 fails (phase Failed). What does the next sync do?", "decisions",
        lambda: _failed(_up(_web(3)), "web-1"),
        lambda c: _next(c),
        "A Failed pod is deleted; its replacement is created on a later sync, once it is gone.",
        {(("create", "web-1"),): "The failed pod must be deleted (and gone) before a new web-1 can exist."}),
    _ex("08.2", "08", "A rollout to a broken image is stuck on web-2; you put the old image back. "
        "What does the next sync do?", "decisions",
        lambda: _broken_reverted(),
        lambda c: _next(c),
        "Reverting the template is not enough: OrderedReady still waits on the broken web-2 until you "
        "delete it (the concept page's forced rollback).",
        {(("delete", "web-2"),): "The controller does not delete a pod that is not Running and Ready; you must."}),
    _ex("09.1", "09", "Image v1 was rolled out, then v2; now you set the image back to v1. Once that is rolled out, how many ControllerRevisions "
        "does the set have?", "value",
        lambda: _v1_v2_v1(),
        lambda c: len(settle(c).revisions("web")),
        "Going back to an earlier template reuses its revision (renumbered) instead of making a new one.",
        {3: "The v1 revision is reused, not created again."}),
    _ex("09.2", "09", "Same set: once v1 is rolled out again, what is the revision NUMBER of the v1 revision?", "value",
        lambda: _v1_v2_v1(),
        lambda c: next(r.revision for r in settle(c).revisions("web") if "nginx:1" in r.data),
        "A rollback bumps the reused revision to the next number (getStatefulSetRevisions).",
        {1: "Its number is bumped to max + 1 when it is reused."}),
    _ex("10.1", "10", "Three pods with a 'www' claim each; scale to 1 (retention Retain). When the pods are "
        "gone, how many PVCs are left?", "value",
        lambda: _scaled(_up(_claims(replicas=3)), 1),
        lambda c: len(settle(c).pvcs("web")),
        "By default (Retain) claims outlive their pods, so scaling back up finds the same data.",
        {1: "With the default Retain policy nothing deletes the claims."}),
    _ex("10.2", "10", "Same, but whenScaled: Delete. Which PVCs are left once the condemned pods are gone?",
        "pods",
        lambda: _scaled(_up(_claims(replicas=3, persistentVolumeClaimRetentionPolicy={
            "whenScaled": "Delete", "whenDeleted": "Retain"})), 1),
        lambda c: [p.name for p in settle(c).pvcs("web")],
        "whenScaled: Delete makes each condemned pod the owner of its claims; the garbage collector removes "
        "them after the pod is gone."),
    _ex("11.1", "11", "Three Ready pods; you delete the set with cascade=orphan. How many pods are left?",
        "value",
        lambda: _up(_web(3)),
        lambda c: len([p for p in _orphaned(c).pods() if not p.terminating]),
        "Orphan deletion removes the owner, not the pods; a new set with the same selector adopts them.",
        {0: "cascade=orphan leaves the pods running."}),
    _ex("12.1", "12", "Which upstream function decides to wait for a pod to be Running and Ready?", "value",
        lambda: _applied(_web(1)),
        lambda c: (c.sync("web"), c.sync("web").decisions[0].rule.split(":")[0])[1],
        "processReplica runs once per ordinal in range; in OrderedReady it stops at the first pod that "
        "is not Running and Ready.",
        {"processCondemned": "processCondemned handles pods outside the range (scale-down)."}),
]


def _two_of_three():
    c = Cluster(kubelet="manual")
    c.apply(_web(3))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    c.sync("web")
    return c


def _scaled(c, n):
    c.scale("web", n)
    return c


def _blocked_scale_down():
    c = _scaled(_up(_web(3)), 1)
    c.sync("web")
    c.kubelet.finish_termination("web-2")
    c.kubelet.set_unready("web-0")
    return c


def _applied(m):
    c = Cluster(kubelet="manual")
    c.apply(m)
    return c


def _image(c, image):
    c.set_image("web", image)
    return c


def _update_midway():
    c = _image(_up(_web(3)), "nginx:2")
    c.sync("web")
    c.kubelet.finish_termination("web-2")
    c.sync("web")
    return c


def _deleted(c, pod):
    c.delete_pod(pod)
    return c


def _ready_at_zero():
    c = Cluster(kubelet="manual")
    c.apply(_web(2, minReadySeconds=10))
    c.sync("web")
    c.kubelet.start("web-0")
    c.kubelet.set_ready("web-0")
    return c


def _max_unavailable(c):
    from .controller.history import scaled_max_unavailable
    s = c.statefulset("web").spec
    return scaled_max_unavailable(s.rolling_update.max_unavailable, s.replicas)


def _failed(c, pod):
    c.kubelet.fail(pod)
    return c


def _broken_reverted():
    c = _up(_web(3))
    c.kubelet.never_ready(image="nginx:broken")
    c.set_image("web", "nginx:broken")
    for _ in range(6):
        c.sync("web")
        for p in c.pods("web"):
            if p.terminating:
                c.kubelet.finish_termination(p.name)
            elif p.phase == "Pending":
                c.kubelet.start(p.name)
    c.set_image("web", "nginx:1")
    return c


def _v1_v2_v1():
    """v1 rolled out, then v2 rolled out, then the image set back to v1 (not yet synced)."""
    c = _up(_web(3))
    settle(_image(c, "nginx:2"))
    return _image(c, "nginx:1")


def _orphaned(c):
    c.delete("web", cascade="orphan")
    return c


_BY_ID = {e.id: e for e in EXERCISES}


def get(exercise_id: str) -> Exercise:
    """The exercise with this id (e.g. ``"02.1"``).  Raise KeyError listing the ids otherwise."""
    try:
        return _BY_ID[exercise_id]
    except KeyError:
        raise KeyError(f"no exercise {exercise_id!r}; there are: {', '.join(_BY_ID)}") from None


def for_notebook(notebook: str) -> list[Exercise]:
    """The exercises of one notebook (``"05"``)."""
    return [e for e in EXERCISES if e.notebook == notebook]


def catalog():
    """Every exercise as a DataFrame: id, notebook, kind, question."""
    import pandas as pd
    return pd.DataFrame([{"id": e.id, "notebook": e.notebook, "kind": e.kind, "question": e.question}
                         for e in EXERCISES])
