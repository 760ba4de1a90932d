"""One exercise file: its format, validation (errors name the line) and the answer computed by the simulator.

An exercise is a YAML file::

    id: "T.1"                       # quoted: YAML would read 06.1 as the number 6.1
    notebook: "06"                  # optional: the notebook it belongs to
    question: Four Ready pods, partition 2, new image. Which pods run the new revision once it settles?
    points: 2                       # optional, default 1
    scenario:                       # a scenario, exactly as `stsedu run` reads it (or a path / shipped name)
      cluster: {kubelet: manual}
      objects:
        - {file: "stsedu:web.yaml", patch: {spec: {replicas: 4, updateStrategy:
              {type: RollingUpdate, rollingUpdate: {partition: 2}}}}}
      steps:
        - settle: {}
        - set_image: {image: "registry.k8s.io/nginx-slim:0.21"}
    reveal:                         # optional: steps played after the question, before reading the answer
      - settle: {}
    answer:                         # what the learner gives, and where the simulator's answer is read
      kind: pods
      from: pods
      where: {revision: 2}
    why: Only ordinals >= partition are updated; the rest stay at the current revision.
    hints:                          # optional: typical wrong answers and what to say about them
      - answer: [web-0, web-1]
        hint: The partition keeps the LOW ordinals on the old revision.

The answer is never written in the file: :meth:`Exercise.expected` replays
the scenario (then ``reveal``) on a fresh cluster and reads it with the
``answer`` block's ``from`` (see :data:`SOURCES`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ... import files as _files
from .. import scenarios as _scenarios
from . import kinds as K
from . import modes as _mode
from ...i18n import _, ngettext
from . import variants as V
from .measures import MeasureError, fits, measure, produces
from .sequence import SEQUENCE_KEYS, prefix_score

TOP_KEYS = ("id", "notebook", "title", "question", "points", "scenario", "reveal", "answer", "why",
            "hints", "format", "parameters")
REQUIRED = ("id", "question", "scenario", "answer", "why")
MAX_ID_LENGTH = 100
"""The longest exercise id: ids name files (``<id>.yaml`` in the nbgrader key folder), and 255 bytes is
the usual limit of one file name."""
ANSWER_KEYS = ("kind", "from", "choices", "action", "count", "field", "where", "all", "pod", "volume",
               "image") + SEQUENCE_KEYS

# where the simulator's answer is read: the keys each source takes
SOURCES: dict[str, tuple[str, ...]] = {
    "next_sync": ("action", "count", "field"),   # one more sync: its pod decisions (or their count / rule)
    "pods": ("where", "all", "count"),           # the set's pods (filtered), names or count
    "pod": ("pod", "field", "volume"),           # one pod's field
    "pvcs": ("count",),                          # the set's claims, names or count
    "status": ("field",),                        # a status field of the set
    "revisions": ("count", "image"),             # ControllerRevisions: count, or the number of one by image
    "sequence": ("action",) + SEQUENCE_KEYS,     # the pod decisions of the syncs until stable (or N syncs)
}
POD_FIELDS = ("revision", "phase", "ready", "available", "terminating", "dns_name", "claim")
WHERE_KEYS = ("revision", "image", "phase", "ready", "available", "terminating")
TABLE_COLUMNS = ("revision", "phase", "ready", "terminating")
"""What :meth:`Exercise.situation` shows of each pod (besides its name)."""
STATUS_FIELDS = ("replicas", "ready_replicas", "available_replicas", "current_replicas",
                 "updated_replicas", "current_revision", "update_revision")


RECORDED: dict[str, list] = {}
"""Every attempt :meth:`Exercise.check` was given in this session, by id (the current answer sheet's):
a list of ``{"answer": ..., "at": "2026-11-25T10:40:00"}``, oldest first."""


def record_attempt(attempts: dict, exercise_id: str, given: Any) -> None:
    """Add an attempt (canonical *given*) with the time; running a cell again with the same answer
    is not a new attempt."""
    import datetime as _dt
    value = K.jsonable(given)
    tries = attempts.setdefault(exercise_id, [])
    if tries and tries[-1].get("answer") == value:
        return
    tries.append({"answer": value, "at": _dt.datetime.now().replace(microsecond=0).isoformat()})


class ExerciseError(ValueError):
    """An exercise file is invalid, or its scenario cannot run.

    The message names the file, the line and the field:
    ``my/t1.yaml: line 7: answer.kind: must be one of pods, decisions, ...``.
    """

    def __init__(self, problem: str, source: str = "<exercise>", line: int | None = None,
                 field: str | None = None) -> None:
        self.problem, self.source, self.line, self.field = problem, source, line, field
        where = f"{source}: " + (f"line {line}: " if line else "") + (f"{field}: " if field else "")
        super().__init__(where + problem)


@dataclass
class Feedback:
    """The result of :meth:`Exercise.check`: ``ok`` and a ``message`` that explains."""

    ok: bool
    message: str
    answered: bool = True
    checked: bool = True
    """False in assessed mode: the answer was recorded, not judged."""

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_markdown_(self) -> str:
        return self.message.replace("<", "&lt;").replace(">", "&gt;")


# ======================================================================= lines


def _line_map(text: str) -> dict[tuple, int]:
    """(path) -> 1-based line for every key and list item of the YAML document (bounded:
    each node once, and nothing for text the exercise-file limits refuse)."""
    try:
        return _files.line_map(_files.compose_yaml(text, _files.EXERCISE)[1])
    except (_files.FileReadError, TypeError):
        return {}


def _split_field(fld: str | None) -> list:
    """``objects[0].file`` -> ["objects", 0, "file"]."""
    out: list = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", fld or ""):
        out.append(int(part[1:-1]) if part.startswith("[") else part)
    return out


class _Lines:
    def __init__(self, text: str, source: str) -> None:
        self.map, self.source = _line_map(text), source

    def line(self, *path) -> int | None:
        path = tuple(path)
        while path and path not in self.map:
            path = path[:-1]
        return self.map.get(path)

    def error(self, problem: str, *path) -> ExerciseError:
        fld = ""
        for p in path:
            fld += f"[{p}]" if isinstance(p, int) else (f".{p}" if fld else str(p))
        return ExerciseError(problem, self.source, self.line(*path), fld or None)


# ===================================================================== model


@dataclass(eq=False)
class Exercise:
    """One predict-then-check question, read from an exercise file (see the module's docstring)."""

    id: str
    question: str
    kind: str
    why: str
    scenario: Any = field(repr=False)
    """The scenario (question steps + reveal steps), a :class:`stsedu.scenarios.Scenario`."""
    question_steps: int = 0
    """How many of the scenario's steps build the question's state (the rest are ``reveal``)."""
    answer_spec: Mapping[str, Any] = field(default_factory=dict, repr=False)
    notebook: str = ""
    title: str = ""
    points: int = 1
    hints: tuple[tuple[Any, str], ...] = ()
    hint_lines: tuple[int | None, ...] = field(default=(), repr=False)
    choices: tuple[str, ...] = ()
    example: str = ""
    source: str = "<exercise>"
    text: str = field(default="", repr=False)
    """The exercise file's text (how the nbgrader notebook carries a teacher's exercise)."""
    external_scenario: bool = field(default=False, repr=False)
    """True if ``scenario:`` names a file or a shipped scenario (its errors are that file's)."""
    shipped: bool = field(default=False, repr=False)
    """True for the kit's own exercises (the practice set: answered in any kernel)."""
    parameters: tuple = field(default=(), repr=False)
    """``((name, values), ...)`` of an exercise with a variant per student (:mod:`.variants`)."""
    values: dict = field(default_factory=dict, repr=False)
    """This variant's values (the first of each parameter until :meth:`variant` picks a student's)."""
    raw: Any = field(default=None, repr=False, compare=False)
    base: Any = field(default=None, repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # ---------------------------------------------------------------- state

    # ---------------------------------------------------------------- variants

    def variant(self, student: str) -> "Exercise":
        """*student*'s variant (this exercise itself when it has no parameters): the values
        :func:`.variants.pick` seeds by the student's name and the id, substituted everywhere."""
        if not self.parameters:
            return self
        return self.with_values(V.pick(self.parameters, student, self.id))

    def with_values(self, values: Mapping[str, Any]) -> "Exercise":
        """The variant with these parameter values (built once, then kept)."""
        key = tuple(sorted(values.items()))
        cache = self._cache.setdefault("variants", {})
        if key not in cache:
            data = {k: v for k, v in self.raw.items() if k != "parameters"}
            try:
                data = V.substitute(data, values)
            except V.ParameterError as e:             # pragma: no cover - checked at load
                raise _Lines(self.text, self.source).error(e.problem, *e.path) from None
            ex = from_dict(data, self.source, self.base, self.text)
            ex.parameters, ex.values, ex.raw, ex.base, ex.shipped = self.parameters, dict(values), \
                self.raw, self.base, self.shipped
            cache[key] = ex
        return cache[key]

    # ---------------------------------------------------------------- the guard

    @property
    def assessed(self) -> bool:
        """True if this exercise belongs to the assessed set in this kernel: a teacher's exercise
        (not one the kit ships) in a kernel in assessed mode (:mod:`.modes`)."""
        return not self.shipped and _mode.is_assessed()

    def refuse_if_assessed(self, what: str) -> None:
        """The one guard every route to the answer passes: raise :class:`AssessedModeError`
        naming *what* for an assessed exercise, except in the teacher's grader."""
        if self.assessed and not _mode.is_grading():
            raise _mode.AssessedModeError(
                f"exercise {self.id}: {what} is off in assessed mode: answers are computed by your "
                "teacher's grader after you hand in")

    def cluster(self):
        """A fresh cluster in the state the question is about (off for an assessed exercise:
        one more sync on it would give the answer)."""
        self.refuse_if_assessed("cluster()")
        return self._run(self.question_steps).cluster

    def _run(self, stop_after: int | None):
        try:
            return self.scenario.run(strict=True, stop_after=stop_after)
        except _scenarios.ScenarioError as e:
            err = _scenario_error(e, _Lines(self.text, self.source), ("scenario",), self.question_steps,
                                  self.external_scenario)
            raise ExerciseError(f"the scenario cannot run: {_step_problem(e)}", self.source, err.line,
                                err.field) from None
        except _scenarios.ExpectationFailed as e:
            f = e.failures[0]
            err = _scenario_error(_scenarios.ScenarioError("", step=f.step, action=f.action, field="expect"),
                                  _Lines(self.text, self.source), ("scenario",), self.question_steps,
                                  self.external_scenario)
            raise ExerciseError(f"an expectation of the scenario does not hold: {e}", self.source,
                                err.line, err.field) from None

    def expected(self) -> Any:
        """The right answer, computed by replaying the scenario and reading it from the simulator.

        For teachers and graders (``stsedu exercise key``); the student
        notebooks never call it, and for an assessed exercise it is off.
        """
        return self._answer("expected()")

    def expected_answer(self) -> Any:
        """The same as :meth:`expected` (the graders' name)."""
        return self._answer("expected_answer()")

    def _answer(self, what: str) -> Any:
        """The answer, computed once; every route to it passes :meth:`refuse_if_assessed` here."""
        self.refuse_if_assessed(what)
        if "answer" not in self._cache:
            result = self._run(None)
            try:
                raw = measure(result.cluster, self.scenario.set_name, self.answer_spec)
            except MeasureError as e:
                line = _Lines(self.text, self.source).line(*_split_field(e.field))
                raise ExerciseError(e.problem, self.source, line, e.field) from None
            try:
                self._cache["answer"] = K.normalise(self.kind, raw, self.choices)
            except K.AnswerFormatError as e:
                raise ExerciseError(f"the simulator's answer {raw!r} does not fit kind {self.kind}: {e}",
                                    self.source, _Lines(self.text, self.source).line("answer", "kind"),
                                    "answer.kind") from None
        return self._cache["answer"]

    def line_of(self, *path) -> int | None:
        """The line of *path* (``"id"``, ``"answer", "kind"``) in the exercise's file."""
        return _Lines(self.text, self.source).line(*path)

    @property
    def answer_format(self) -> str:
        """How to write an answer to this exercise (never the answer itself): claim names for
        claims, pod names for pods, decisions for decisions."""
        return _(self.example) if self.example else K.placeholder(self.kind, self.choices, self.subject())

    def subject(self) -> str:
        """What the answer names, when its kind alone does not say (see ``kinds.SUBJECT_FORMS``)."""
        spec = self.answer_spec
        if spec.get("count"):
            return ""
        if spec["from"] == "pvcs":
            return "claims"
        if spec["from"] == "pod":
            return spec.get("field", "revision")
        if spec["from"] == "next_sync" and spec.get("field") == "rule":
            return "rule"
        return ""

    def situation_warning(self) -> str:
        """Why the situation a release prints gives the answer away ("" if it does not): the
        answer is read, with no reveal steps, from what the situation table shows."""
        if len(self.scenario.steps) > self.question_steps:
            return ""
        spec, shown = self.answer_spec, ""
        where = list(spec.get("where") or {})
        if spec["from"] == "pods" and set(where) <= set(TABLE_COLUMNS):
            shown = "pods" + (f" by {', '.join(where)}" if where else "")
        elif spec["from"] == "pod" and spec.get("field", "revision") in TABLE_COLUMNS:
            shown = f"pod {spec['pod']}'s {spec.get('field', 'revision')}"
        elif spec["from"] == "status" and spec["field"] in ("replicas", "ready_replicas"):
            shown = f"status {spec['field']}"
        if not shown:
            return ""
        return (f"{self.source}: line {self.line_of('answer')}: answer: the answer is read from the state the "
                f"situation table shows ({shown}, no reveal steps): a release would print it; add reveal "
                "steps, or ask about what happens next")

    # ---------------------------------------------------------------- learner

    def show(self) -> None:
        """Print the question and the objects it is about (kubectl-like)."""
        pts = _(" ({n} points)").format(n=self.points) if self.points != 1 else ""
        lines = [_("Exercise {id}{points}: {question}").format(id=self.id, points=pts, question=_(self.question)), "",
                 self.situation()]
        if self.choices:
            lines += [""] + [f"  {chr(ord('a') + i)}) {ch}" for i, ch in enumerate(self.choices)]
        lines += ["", _("Answer with {form}.").format(form=self.answer_format)]
        print("\n".join(lines))

    def situation(self) -> str:
        """The objects the question is about, as text (the set, then its pods): what an assessed
        release shows instead of the scenario."""
        c = self._run(self.question_steps).cluster      # the question's state, never the answer
        lines: list[str] = []
        revs: dict[str, int] = {}
        for sts in c.statefulsets():
            s = sts.spec
            lines.append(f"statefulset/{sts.name}: replicas={s.replicas} policy={s.pod_management_policy} "
                         f"strategy={s.update_strategy}"
                         + (f" partition={s.partition}" if s.rolling_update else ""))
            revs.update({r.name: r.revision for r in c.revisions(sts.name)})
        pods = c.pods()
        if pods:
            lines.append(f"{'NAME':<8} {'PHASE':<10} {'READY':<6} {'TERMINATING':<12} REVISION")
        for p in pods:
            lines.append(f"{p.name:<8} {p.phase:<10} {str(p.ready):<6} {str(p.terminating):<12} "
                         f"{revs.get(p.revision, '?')}")
        return "\n".join(lines)

    def read(self, answer: Any) -> Any:
        """*answer* in canonical form; raise :class:`~stsedu.lessons.exercises.kinds.AnswerFormatError` if unreadable."""
        return K.normalise(self.kind, answer, self.choices)

    def check(self, answer: Any, record: bool = True) -> Feedback:
        """Compare *answer* with what the simulator does; explain either way.

        A given answer is also recorded on the current answer sheet
        (:func:`stsedu.exercises.save_answers` writes it to a file).
        """
        try:
            given = self.read(answer)
        except K.AnswerFormatError as e:
            if str(e) == "no answer yet":
                return Feedback(False, _("Exercise {id}: write your prediction first ({form}).").format(
                    id=self.id, form=self.answer_format), answered=False)
            return Feedback(False, _("Exercise {id}: cannot read that answer: {problem}.").format(id=self.id, problem=e),
                            answered=False)
        if record:
            record_attempt(RECORDED, self.id, given)
        if self.assessed:
            return Feedback(False, _("Exercise {id}: answer recorded ({answer}). Assessed mode: it is checked "
                                     "after you hand in.").format(id=self.id, answer=K.show(given)), checked=False)
        return self.judge(given)

    def judge(self, given: Any) -> Feedback:
        """Feedback for an answer already in canonical form."""
        self.refuse_if_assessed("judge()")
        return self.judge_answer(given)

    def judge_answer(self, given: Any) -> Feedback:
        got = self._score(given, "judge_answer()")
        if got == self.points:
            return Feedback(True, _("✓ Exercise {id}: right. {why}").format(id=self.id, why=_(self.why)))
        part = (_(" ({got} of {points} points: the start of your sequence is right)").format(
            got=_pts(got), points=self.points) if got else "")
        return Feedback(False, _("✗ Exercise {id}: not quite — you said {answer}{part}. {hint}").format(
            id=self.id, answer=K.show(given), part=part, hint=self.hint_for(given)))

    def score(self, given: Any) -> float:
        """Points for an answer in canonical form: all or nothing, or (a sequence) the share of the
        right sequence that the answer's correct prefix covers."""
        return self._score(given, "score()")

    def _score(self, given: Any, what: str) -> float:
        expected = self._answer(what)
        if given == expected:
            return self.points
        if self.answer_spec.get("from") == "sequence":
            return round(self.points * prefix_score(given, expected), 2)
        return 0

    def hint_for(self, given: Any) -> str:
        """The exercise's hint for this wrong answer, or a generic one for its kind."""
        for wrong, hint in self.hints:
            if wrong == given:
                return _(hint)  # the library's hints are in the catalogue (tools/kit_catalogue.py)
        if self.answer_spec.get("from") == "sequence" and isinstance(given, list):
            right = self._answer("hint_for()")
            k = next((i for i, (a, b) in enumerate(zip(given, right)) if a != b), min(len(given), len(right)))
            if k == len(right):
                return _("Your first {k} steps are the whole sequence; the set is stable after them.").format(k=k)
            return ngettext("Your first {k} step matches what the controller does; look again at step {next}: "
                            "after each sync, what is the controller waiting for?",
                            "Your first {k} steps match what the controller does; look again at step {next}: "
                            "after each sync, what is the controller waiting for?", k).format(k=k, next=k + 1)
        return K.generic_hint(self.kind, given, self._answer("hint_for()"))

    def assert_correct(self, answer: Any) -> None:
        """Raise AssertionError (with the feedback) unless *answer* is right (a grader's check)."""
        self.refuse_if_assessed("assert_correct()")
        try:
            given = self.read(answer)
        except K.AnswerFormatError as e:
            raise AssertionError(f"Exercise {self.id}: cannot read that answer: {e}.") from None
        fb = self.judge_answer(given)
        assert fb.ok, fb.message


def _pts(x: float) -> str:
    return f"{x:g}"



# ================================================================== parsing


def _kind_of(v: Any) -> str:
    """How an error names a value's type (as the scenario reader does)."""
    if v is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a mapping"}.get(type(v), type(v).__name__)


def _close(word: str, known) -> str:
    m = difflib.get_close_matches(str(word), list(known), n=1)
    return f" (did you mean {m[0]!r}?)" if m else ""


def loads(text: str, source: str = "<exercise>", base: str | Path | None = None) -> Exercise:
    """Read one exercise from YAML *text*.  Raise :class:`ExerciseError` naming the line."""
    if not isinstance(text, str):
        raise TypeError(f"exercises.loads: text must be YAML text (str), not {type(text).__name__}")
    try:
        data = _files.load_yaml(text, _files.EXERCISE, _files.UniqueKeyLoader)   # a key twice: refused
    except _files.FileReadError as e:
        raise ExerciseError(e.problem, source, e.line) from None
    return from_dict(data, source=source, base=base, text=text)


def from_dict(data: Any, source: str = "<exercise>", base: str | Path | None = None,
              text: str = "") -> Exercise:
    """Validate an exercise given as a dict (the parsed YAML); *text* (its YAML) gives line numbers."""
    L = _Lines(text, source)
    base = Path(base) if base is not None else Path.cwd()
    if not isinstance(data, Mapping):
        raise ExerciseError(f"an exercise must be a mapping with keys {', '.join(REQUIRED)}, "
                            f"not {_kind_of(data)}", source, 1)
    params, raw = (), data
    try:
        if "parameters" in data:
            params = V.parse(data["parameters"])
        data = V.substitute({k: v for k, v in data.items() if k != "parameters"}, V.first(params))
    except V.ParameterError as e:
        raise L.error(e.problem, *e.path) from None
    for k in data:
        if k not in TOP_KEYS:
            raise L.error(f"unknown field{_close(k, TOP_KEYS)}; known: {', '.join(TOP_KEYS)}", k)
    for k in REQUIRED:
        if k not in data:
            raise ExerciseError("required", source, 1, k)
    ex_id = data["id"]
    if isinstance(ex_id, float):
        raise L.error(f"write the id in quotes (\"{data['id']}\"): unquoted, YAML reads it as the "
                      f"number {ex_id}", "id")
    if not isinstance(ex_id, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", ex_id):
        raise L.error("must be a short name in quotes such as \"T.1\" (letters, digits, . _ -)", "id")
    if len(ex_id) > MAX_ID_LENGTH:   # the id names files (the nbgrader key folder's <id>.yaml)
        raise L.error(f"must be a short name in quotes such as \"T.1\" (at most {MAX_ID_LENGTH} characters, "
                      f"not {len(ex_id)})", "id")
    for k in ("question", "why", "title", "format", "notebook"):
        if k in data and (not isinstance(data[k], str) or not data[k].strip()):
            if k == "notebook" and isinstance(data[k], int):
                raise L.error(f'write the notebook number in quotes ("{data[k]:02d}")', k)
            raise L.error(f"must be a non-empty string, not {_kind_of(data[k])}", k)
    points = data.get("points", 1)
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise L.error(f"must be a whole number >= 1, not {points!r}", "points")
    spec, kind, choices = _parse_answer(data["answer"], L)
    scenario, n_question = _parse_scenario(data["scenario"], data.get("reveal"), L, base)
    if not fits(kind, produces(spec)):
        raise L.error(f"kind {kind} does not fit what answer.from {spec['from']} gives "
                      f"({produces(spec)})", "answer", "kind")
    hints = _parse_hints(data.get("hints"), kind, choices, L)
    notebook = data.get("notebook") or (ex_id.split(".")[0] if re.fullmatch(r"\d\d\.\d+", ex_id) else "")
    return Exercise(id=ex_id, question=" ".join(data["question"].split()), kind=kind,
                    why=" ".join(data["why"].split()), scenario=scenario, question_steps=n_question,
                    answer_spec=spec, notebook=notebook, title=data.get("title", ""), points=points,
                    hints=hints, hint_lines=_hint_lines(data.get("hints"), L), choices=choices, example=data.get("format", ""), source=source, text=text,
                    external_scenario=isinstance(data["scenario"], str), parameters=params,
                    values=V.first(params), raw=raw, base=base)


def _parse_answer(a: Any, L: _Lines):
    if not isinstance(a, Mapping):
        raise L.error(f"must be a mapping like {{kind: pods, from: pods}}, not {_kind_of(a)}", "answer")
    for k in a:
        if k not in ANSWER_KEYS:
            raise L.error(f"unknown field{_close(k, ANSWER_KEYS)}; known: {', '.join(ANSWER_KEYS)}", "answer", k)
    a = dict(a)
    if isinstance(a.get("field"), str):          # readyReplicas or ready_replicas, as expect.status takes both
        a["field"] = _snake(a["field"])
    if isinstance(a.get("where"), Mapping):
        a["where"] = {_snake(k) if isinstance(k, str) else k: v for k, v in a["where"].items()}
    kind = a.get("kind")
    if kind not in K.KINDS:
        raise L.error(f"must be one of {', '.join(K.KINDS)}, not {kind!r}{_close(kind, K.KINDS)}",
                      "answer", "kind")
    src = a.get("from")
    if not isinstance(src, str) or src not in SOURCES:   # (a list is unhashable: not a dict key)
        raise L.error(f"where the simulator's answer is read: one of {', '.join(SOURCES)}, not "
                      f"{src!r}{_close(src, SOURCES)}", "answer", "from")
    allowed = SOURCES[src] + ("kind", "from", "choices")
    for k in a:
        if k not in allowed:
            raise L.error(f"not used with from: {src} (it takes {', '.join(SOURCES[src]) or 'nothing'})",
                          "answer", k)
    if "count" in a and not isinstance(a["count"], bool):
        raise L.error("must be true or false", "answer", "count")
    if "all" in a and not isinstance(a["all"], bool):
        raise L.error("must be true or false", "answer", "all")
    if "action" in a:
        acts = [a["action"]] if isinstance(a["action"], str) else a["action"]
        if not isinstance(acts, list) or any(x not in K.POD_ACTIONS for x in acts):
            raise L.error(f"must be one of {', '.join(K.POD_ACTIONS)} (or a list of them)", "answer", "action")
    if src == "next_sync" and a.get("field") not in (None, "rule", "decision"):
        raise L.error("must be rule (the upstream function of the first decision) or decision",
                      "answer", "field")
    if src == "pod":
        if not isinstance(a.get("pod"), str):
            raise L.error("required: the pod's name", "answer", "pod")
        if a.get("field", "revision") not in POD_FIELDS:
            raise L.error(f"must be one of {', '.join(POD_FIELDS)}{_close(a.get('field'), POD_FIELDS)}",
                          "answer", "field")
        if a.get("field") == "claim" and not isinstance(a.get("volume"), str):
            raise L.error("required with field: claim (the volumeClaimTemplate's name)", "answer", "volume")
    if src == "status" and a.get("field") not in STATUS_FIELDS:
        raise L.error(f"must be one of {', '.join(STATUS_FIELDS)}{_close(a.get('field'), STATUS_FIELDS)}",
                      "answer", "field")
    if src == "sequence" and "syncs" in a and (isinstance(a["syncs"], bool) or not isinstance(a["syncs"], int)
                                               or not 1 <= a["syncs"] <= 200):
        raise L.error("must be a whole number of syncs from 1 to 200 (leave it out: until the set is stable)",
                      "answer", "syncs")
    if src == "revisions" and not a.get("count") and not a.get("image"):
        raise L.error("give count: true or the image of one revision", "answer")
    where = a.get("where")
    if where is not None:
        if not isinstance(where, Mapping):
            raise L.error("must be a mapping like {revision: 2}", "answer", "where")
        for k, v in where.items():
            if k not in WHERE_KEYS:
                raise L.error(f"unknown field{_close(k, WHERE_KEYS)}; known: {', '.join(WHERE_KEYS)}",
                              "answer", "where", k)
            problem = _where_problem(k, v)
            if problem:
                raise L.error(problem, "answer", "where", k)
    choices: tuple[str, ...] = ()
    if kind == "choice":
        ch = a.get("choices")
        if not isinstance(ch, list) or len(ch) < 2 or not all(isinstance(x, (str, int)) and not
                                                                isinstance(x, bool) for x in ch):
            raise L.error("a choice needs choices: a list of at least two options", "answer", "choices")
        choices = tuple(str(x) for x in ch)
    elif "choices" in a:
        raise L.error("only for kind: choice", "answer", "choices")
    return dict(a), kind, choices


PHASES = ("Pending", "Running", "Succeeded", "Failed")


def _where_problem(key: str, value: Any) -> str:
    """Why *value* cannot filter pods by *key* ("" if it can): a value of another type would
    match no pod, and the answer would be "nothing" without a word."""
    if key == "revision" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"must be a revision number (a whole number), not {_kind_of(value)}"
    if key == "image" and not isinstance(value, str):
        return f"must be an image name (a string), not {_kind_of(value)}"
    if key == "phase" and value not in PHASES:
        return f"must be one of {', '.join(PHASES)}, not {value!r}"
    if key in ("ready", "available", "terminating") and not isinstance(value, bool):
        return f"must be true or false, not {_kind_of(value)}"
    return ""


def _parse_hints(h: Any, kind: str, choices, L: _Lines) -> tuple:
    if h is None:
        return ()
    if not isinstance(h, list):
        raise L.error("must be a list of {answer: ..., hint: ...}", "hints")
    out = []
    for i, item in enumerate(h):
        if not isinstance(item, Mapping) or set(item) != {"answer", "hint"}:
            raise L.error("must be a mapping with exactly answer (a typical wrong answer) and hint", "hints", i)
        if not isinstance(item["hint"], str) or not item["hint"].strip():
            raise L.error("must be a non-empty string", "hints", i, "hint")
        try:
            wrong = K.normalise(kind, item["answer"], choices)
        except K.AnswerFormatError as e:
            raise L.error(f"not a {kind} answer: {e}", "hints", i, "answer") from None
        out.append((wrong, " ".join(item["hint"].split())))
    return tuple(out)


def _hint_lines(h: Any, L: _Lines) -> tuple:
    return tuple(L.line("hints", i, "answer") for i in range(len(h))) if isinstance(h, list) else ()


def _snake(name: str) -> str:
    """``readyReplicas`` -> ``ready_replicas`` (snake_case stays as it is)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _parse_scenario(sc: Any, reveal: Any, L: _Lines, base: Path):
    """The question's scenario plus the reveal steps, as one Scenario; and how many steps are the question's."""
    if isinstance(sc, str):
        p = _scenario_path(sc, base, L)
        try:   # the scenario reader's own limits (1 MiB, aliases, depth, UTF-8)
            data = _files.load_yaml(_files.read_text(p, _files.SCENARIO), _files.SCENARIO)
        except _files.FileReadError as e:
            raise L.error(f"{p}: {e}", "scenario") from None
        sc_base, prefix, sc_source = p.parent, ("scenario",), str(p)
    elif isinstance(sc, Mapping):
        data, sc_base, prefix, sc_source = sc, base, ("scenario",), L.source
    else:
        raise L.error(f"must be a scenario (a mapping with objects and steps) or its path, not {_kind_of(sc)}",
                      "scenario")
    if not isinstance(data, Mapping):
        raise L.error("must be a scenario: a mapping with objects and steps", "scenario")
    data = dict(data)
    steps = data.get("steps") or []
    if not isinstance(steps, list):
        raise L.error("must be a list of steps", "scenario", "steps")
    if reveal is not None and not isinstance(reveal, list):
        raise L.error("must be a list of steps (like scenario steps)", "reveal")
    data["steps"] = list(steps) + list(reveal or [])
    data.setdefault("name", "exercise")
    try:
        scenario = _scenarios.from_dict(data, source=sc_source, base=sc_base)
    except _scenarios.ScenarioError as e:
        raise _scenario_error(e, L, prefix, len(steps), isinstance(sc, str)) from None
    return scenario, len(steps)


def _scenario_path(sc: str, base: Path, L: _Lines) -> Path:
    """The file ``scenario: NAME`` names, by the scenario files' rules: a relative path below
    the exercise's folder (no absolute path, no ``..``), or the name of a shipped scenario."""
    from ..scenarios.format import BadValue, confined_path
    shipped = "/" not in sc and "\\" not in sc and not sc.endswith((".yaml", ".yml")) \
        and not (base / sc).is_file()
    try:
        return _scenarios.library_path(sc) if shipped else confined_path(sc, base)
    except _scenarios.ScenarioError as e:
        raise L.error(str(e), "scenario") from None
    except BadValue as b:
        raise L.error(b.problem.replace("the scenario's folder", "the exercise's folder")
                      .replace("the scenario folder", "the exercise's folder"), "scenario") from None


def _scenario_error(e, L: _Lines, prefix: tuple, n_question: int, external: bool) -> ExerciseError:
    """A ScenarioError, placed on the exercise file's line (step n is scenario.steps or reveal)."""
    problem = getattr(e, "problem", str(e))
    step, fld = getattr(e, "step", None), _split_field(getattr(e, "field", None))
    if external:
        return L.error(str(e), "scenario")
    if not step and fld and fld[0] not in ("name", "title", "description", "cluster", "objects", "set", "steps"):
        fld = ["objects"]           # a manifest that the API server refused: its label is a file name
    if step and step > n_question:
        path = ("reveal", step - n_question - 1)
    elif step:
        path = prefix + ("steps", step - 1)
    else:
        path = prefix
    if step and getattr(e, "action", None) and fld:
        if fld[0] == "expect":
            full = path + tuple(fld)
        else:
            full = path + (e.action,) + tuple(fld)
    else:
        full = path + tuple(fld)
    return ExerciseError(problem, L.source, L.line(*full), _dotted(full))


def _step_problem(e) -> str:
    """A step's error in the API server's words: ``pods "web-9" not found`` is kubectl's NotFound."""
    problem = getattr(e, "problem", None) or str(e)
    m = re.fullmatch(r"KeyError: (\w+ \"[^\"]*\" not found)", problem)
    if m:
        return f"{e.action}: Error from server (NotFound): {m.group(1)}" if e.action else m.group(1)
    return problem if e.step else str(e)


def _dotted(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def load_file(path: str | Path) -> Exercise:
    """Read one exercise file.  Raise :class:`ExerciseError` (file, line, field) if it is invalid."""
    p = Path(path)
    try:
        text = _files.read_text(p, _files.EXERCISE)
    except _files.FileReadError as e:
        raise ExerciseError(e.problem, str(path), e.line) from None
    return loads(text, source=str(path), base=p.parent)
