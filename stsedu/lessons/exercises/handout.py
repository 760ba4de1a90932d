"""Assessed assignments: what a release carries (the questions, never the exercise files), and the
grader's side.

An assessed release holds, for each exercise, only its :func:`public` part: the question, the
situation as text (the set and its pods, computed on the teacher's machine), the kind and form
of an answer, the choices and the points.  Never the scenario, the ``reveal`` steps, the
``answer`` block, the ``why`` or the hints: nothing from which the simulator could compute the
answer in the student's kernel.  Exercises that ship with the kit are refused (any student can
compute theirs).

* :func:`release_notebook` - the students' notebook without nbgrader (``stsedu exercise
  release``): a :class:`Handout` records each answer (its form is checked, never its content)
  and saves an assessed answer sheet for ``stsedu grade``;
* :func:`write_key` and :func:`autograde` - with nbgrader: the teacher's exercise files are
  copied to ``<course>/stsedu-key/<assignment>/``, which nbgrader never releases, and each
  hidden test cell calls ``autograde(id, answer, key=...)`` there at autograde time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from . import kinds as K
from .answers import AnswerSheet
from .exercise import ExerciseError, record_attempt
from .modes import ASSESSED, assessed, grading
from ...i18n import _

PUBLIC_KEYS = ("id", "title", "points", "question", "situation", "kind", "choices", "format")
KEY_DIR = "stsedu-key"
"""The folder of a course (beside ``source/``) that keeps the exercise files of assessed assignments."""


def slug(exercise_id: str) -> str:
    """``"06.1"`` -> ``"06_1"`` (for variable names, grade ids and file names)."""
    return re.sub(r"\W", "_", exercise_id)


def is_shipped(ex) -> bool:
    from .registry import EXERCISES
    return any(e is ex or e.id == ex.id and e.text == ex.text for e in EXERCISES)


def refuse_shipped(exercises: list) -> None:
    """Raise :class:`ExerciseError` if an assessed release would hold an exercise the kit ships."""
    shipped = [e.id for e in exercises if is_shipped(e)]
    if shipped:
        raise ExerciseError(f"{', '.join(shipped)} ship{'s' * (len(shipped) == 1)} with stsedu: any student "
                            "can compute the answer with stsedu.exercises.get(...). An assessed assignment "
                            "takes exercises of your own (copy a shipped file, change the situation and the "
                            "id)", "--ids")


def public(ex) -> dict:
    """What a student may see of an exercise (see the module's docstring)."""
    return {"id": ex.id, "title": ex.title, "points": ex.points, "question": ex.question,
            "situation": ex.situation(), "kind": ex.kind, "choices": list(ex.choices),
            "format": ex.answer_format}


class Handout:
    """The student's side of an assessed release: records answers without judging them.

    Each answer written is kept with its time (a changed answer is a new attempt: ``stsedu grade
    --policy last``, the default, grades the final one).  Nothing here can tell a right answer:
    the handout holds only the :func:`public` part of each exercise."""

    def __init__(self, exercises: list[dict], student: str = "") -> None:
        self.exercises = {str(e["id"]): dict(e) for e in exercises}
        self.student = student
        """The student this notebook was released to (its situations are that student's variant)."""
        self.sheet = AnswerSheet(mode=ASSESSED)
        self.notice = assessed() + (_(" This notebook is {student}'s own variant.").format(student=student)
                                    if student else "")

    def answer(self, exercise_id: str, answer: Any) -> str:
        """Record *answer* (its form is checked, not whether it is right); returns a one-line message."""
        e = self.exercises.get(exercise_id)
        if e is None:
            return _("No exercise {id} in this assignment; there are: {ids}.").format(id=repr(exercise_id),
                                                                                    ids=", ".join(self.exercises))
        try:
            given = K.normalise(e["kind"], answer, tuple(e.get("choices") or ()))
        except K.AnswerFormatError as err:
            if str(err) == "no answer yet":
                return _("Exercise {id}: no answer yet (write it as {form}).").format(id=exercise_id, form=e["format"])
            return _("Exercise {id}: cannot read that answer: {problem}.").format(id=exercise_id, problem=err)
        record_attempt(self.sheet.attempts, exercise_id, given)
        return _("Exercise {id}: answer recorded ({answer}); it is graded after you hand in.").format(
            id=exercise_id, answer=K.show(given))

    def save(self, path: str = "my-answers.json", student: str = "") -> str:
        """Write the answers to *path* for the teacher (your name is required), keeping every
        answer the file already holds (saved before the kernel restarted, or from another notebook).
        A notebook released to a student saves under that student's name, and only that one."""
        if self.student:
            if student.strip() and student.strip() != self.student:
                return _("Not saved: this notebook is {student}'s (its situations are {student}'s variant); "
                         "hand in the one released to you.").format(student=self.student)
            student = self.student
        self.sheet.student = student
        return self.sheet.save(path)


# ====================================================================== notebooks


def _md(text: str, **meta):
    import nbformat
    return nbformat.v4.new_markdown_cell(text, metadata=meta)


def question_markdown(p: dict) -> str:
    """The question, the situation and the form of an answer, as a markdown cell."""
    pts = f"{p['points']} point{'s' * (p['points'] != 1)}"
    lines = [f"## Exercise {p['id']} ({pts})", "", p["question"], "", "```text", p["situation"], "```"]
    if p["choices"]:
        lines += [""] + [f"{chr(ord('a') + i)}) {ch}  " for i, ch in enumerate(p["choices"])]
    lines += ["", f"Answer with {p['format']}."]
    return "\n".join(lines)


def release_notebook(exercises: list, title: str = "StatefulSet assignment", student: str = ""):
    """The students' assessed notebook (no nbgrader): questions, answer cells, a save cell.  With
    *student*, that student's variant of each exercise with parameters (one notebook each)."""
    import nbformat    # here, not at import: nbformat loads jsonschema's validators
    refuse_shipped(exercises)
    if not student:
        refuse_parameters(exercises, "give the class's roster: stsedu exercise release --students roster.txt")
    pubs = [public(e.variant(student) if student else e) for e in exercises]
    total = sum(p["points"] for p in pubs)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(_md(
        f"# {title}\n\nAssessed: {len(pubs)} questions, {total} points. For each one, read the situation, "
        "predict what the StatefulSet controller does, and write your prediction in place of `None`. "
        "Nothing is checked before you hand in: run the last cell" + ("" if student else " with your name")
        + " and hand in "
        "`my-answers.json`. Your teacher grades it by running the simulator."))
    nb.cells.append(nbformat.v4.new_code_cell(
        "import stsedu\nsheet = stsedu.exercises.Handout(" + repr(pubs) + (f", student={student!r}" if student else "")
        + ")\nprint(sheet.notice)"))
    for p in pubs:
        nb.cells.append(_md(question_markdown(p)))
        nb.cells.append(nbformat.v4.new_code_cell(
            f"answer = None  # {p['format']}\n"
            f"print(sheet.answer({p['id']!r}, answer))"))
    nb.cells.append(_md("## Hand in\n\n" + ("Run the cell and hand in `my-answers.json` (this notebook is "
                                              f"{student}'s: it saves under that name)." if student else
                                              "Write your name, run the cell, and hand in `my-answers.json`.")))
    nb.cells.append(nbformat.v4.new_code_cell(
        'print(sheet.save("my-answers.json"))' if student else
        'print(sheet.save("my-answers.json", student=""))  # your name in the quotes'))
    return nb


def refuse_parameters(exercises: list, instead: str) -> None:
    """Raise :class:`ExerciseError` if one notebook for the class would hold an exercise with a
    variant per student (each student must see, and be graded on, their own)."""
    mine = [e.id for e in exercises if e.parameters]
    if mine:
        raise ExerciseError(f"{', '.join(mine)} ha{'s' if len(mine) == 1 else 've'} parameters (a variant per "
                            f"student): one notebook for the whole class cannot show each student's; {instead}",
                            "--exercises")


def write_key(exercises: list, course: Path, assignment: str) -> Path:
    """Copy the exercise files to ``<course>/stsedu-key/<assignment>/`` and check that each
    replays from there (an exercise whose scenario or manifests are files beside it cannot)."""
    folder = course / KEY_DIR / assignment
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.yaml"):
        old.unlink()
    from .exercise import load_file
    for e in exercises:
        path = folder / f"{slug(e.id)}.yaml"
        path.write_text(e.text, encoding="utf-8")
        try:
            copy = load_file(path)
            with grading():
                same = copy.expected_answer() == e.expected_answer()
            if not same:
                raise ExerciseError("gives another answer from the key folder", str(path))
        except ExerciseError as err:
            raise ExerciseError(f"exercise {e.id} cannot be replayed from the key folder ({err}); write its "
                                "scenario and manifests inline, or name shipped ones (stsedu:web.yaml)",
                                e.source) from None
    return folder


def find_key(key: str, start: str | Path | None = None, levels: int = 6) -> Path:
    """The folder *key* (relative) in *start* (default: the current folder) or one of its parents."""
    here = Path(start or os.getcwd()).resolve()
    for d in [here, *here.parents][:levels + 1]:
        if (d / key).is_dir():
            return d / key
    raise FileNotFoundError(f"no folder {key} here ({here}) or above: autograde in the course folder that "
                            "`stsedu nbgrader` wrote it into")


def autograde(exercise_id: str, answer: Any, key: str) -> float:
    """An nbgrader hidden test: the points *answer* earns, computed from the teacher's copy of the
    exercise in *key*; prints the verdict with the rule (or the hint), which the feedback shows."""
    from .exercise import load_file
    ex = load_file(find_key(key) / f"{slug(exercise_id)}.yaml")
    try:
        given = ex.read(answer)
    except K.AnswerFormatError as err:
        print(f"✗ Exercise {exercise_id}: cannot read that answer: {err}.")
        return 0.0
    with grading():       # nbgrader's kernel ran assessed(): the hidden test is the teacher's side
        got = float(ex.score(given))
        fb = ex.judge_answer(given)
    print(fb.message if fb.ok else f"{fb.message} Rule: {ex.why}")
    return got
