"""Answer sheets (a student's predictions, saved as a small JSON file) and the grader.

An answer file looks like::

    {"format": "stsedu-answers", "version": 1, "student": "Ada",
     "saved": "2026-11-23T20:40:00", "answers": {"03.2": [["delete", "web-2"]], "06.1": ["web-2", "web-3"]}}

:func:`grade` reads a class's files against a set of exercises: points per
exercise, totals and, for each miss, what the student said and the rule.
A file that cannot be read gets one clear line, never a traceback.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .. import files as _files
from . import kinds as K
from .exercise import RECORDED

FORMAT = "stsedu-answers"


class AnswerSheet:
    """A student's answers, by exercise id (canonical, JSON-friendly values).

    ``sheet.check(id, answer)`` checks and records; ``sheet.save(path)``
    writes the file the grader reads.  :meth:`Exercise.check
    <stsedu.exercises.Exercise.check>` records on :func:`current_sheet`.
    """

    def __init__(self, student: str = "", answers: dict | None = None) -> None:
        self.student = student
        self.answers: dict[str, Any] = dict(answers or {})

    def check(self, exercise_id: str, answer: Any):
        """Check *answer* to one exercise (✓/✗ with the rule or a hint) and record it."""
        from .registry import get
        ex = get(exercise_id)
        fb = ex.check(answer, record=False)
        if fb.answered:
            self.answers[ex.id] = K.jsonable(ex.read(answer))
        return fb

    def show(self, exercise_id: str) -> None:
        from .registry import get
        get(exercise_id).show()

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": 1, "student": self.student,
                "saved": _dt.datetime.now().replace(microsecond=0).isoformat(),
                "answers": dict(self.answers)}

    def save(self, path: str | Path, merge: bool = True) -> str:
        """Write the answers to *path* (JSON); with *merge*, answers already in that file are kept.

        Returns a one-line message; writes nothing while no exercise is answered.
        """
        if not isinstance(path, (str, Path)):
            raise TypeError(f"save: path must be a file name (str or Path), not {type(path).__name__}")
        if not isinstance(self.student, str):
            raise TypeError(f"save: student must be a string, not {type(self.student).__name__}")
        p = Path(path)
        answers = dict(self.answers)
        student = self.student
        try:
            exists = p.exists() or p.is_symlink()
        except (OSError, ValueError) as e:
            return f"Not saved: {str(p)[:200]}: {getattr(e, 'strerror', None) or e}."
        if exists:
            # never replace what is not an answer sheet (a notebook, an exercise file...)
            try:
                old = load_answers(p)
            except ValueError as e:
                return (f"Not saved: {p} exists and is not an answer file ({e}); "
                        "choose another name, such as my-answers.json.")
            if merge:
                answers = {**old.answers, **answers}
                student = student or old.student
        if not answers:
            return "Nothing to save yet: answer at least one exercise first."
        sheet = AnswerSheet(student, answers)
        try:
            _files.write_output(p, json.dumps(sheet.to_dict(), indent=1) + "\n", example="my-answers.json")
        except _files.OutputError as e:
            return f"Not saved: {e}."
        return f"Saved {len(answers)} answer(s) to {p}."

    def __repr__(self) -> str:
        return f"AnswerSheet({self.student!r}: {len(self.answers)} answer(s))"


_CURRENT = [AnswerSheet()]
_CURRENT[0].answers = RECORDED          # what Exercise.check records


def current_sheet() -> AnswerSheet:
    """The sheet that :meth:`Exercise.check` records on (one per Python session)."""
    return _CURRENT[0]


def save_answers(path: str | Path = "my-answers.json", student: str = "") -> str:
    """Save every answer checked in this session to *path* (merging with what the file has).

    Returns (and a notebook shows) a one-line message.
    """
    if not isinstance(student, str):
        raise TypeError(f"save_answers: student must be a string (the student's name), "
                        f"not {type(student).__name__}")
    sheet = current_sheet()
    if student:
        sheet.student = student
    return sheet.save(path)


def load_answers(path: str | Path) -> AnswerSheet:
    """Read an answer file.  Raise ValueError with a one-line reason if it is not one."""
    p = Path(path)
    try:  # bounded: 1 MiB, a regular file, UTF-8, 100 levels, numbers of at most 100 digits
        data = _files.load_json(_files.read_text(p, _files.ANSWERS), _files.ANSWERS)
    except _files.FileReadError as e:
        raise ValueError(str(e)) from None
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise ValueError('not an answer file: expected {"answers": {...}} as save_answers() writes it')
    student = data.get("student") or ""
    if not isinstance(student, str):
        raise ValueError("student must be a string")
    return AnswerSheet(student.strip() or p.stem, {str(k): v for k, v in data["answers"].items()})


# ==================================================================== grading


@dataclass
class Result:
    """One student's grade."""

    file: str
    student: str
    status: str                              # "ok", "partial" or "malformed"
    points: dict[str, int] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    total: int = 0
    out_of: int = 0
    problem: str = ""

    def line(self) -> str:
        if self.status == "malformed":
            return f"{self.file}: cannot grade: {self.problem}"
        missing = [i for i, n in self.notes.items() if n == "no answer"]
        extra = f" ({len(missing)} unanswered: {', '.join(missing)})" if missing else ""
        return f"{self.file}: {self.student}: {self.total}/{self.out_of}{extra}"


@dataclass
class Grades:
    """A class's grades: one :class:`Result` per submission.  ``to_csv``, ``summary``, ``frame``."""

    exercises: list
    results: list[Result]

    def rows(self) -> list[dict]:
        out = []
        for r in self.results:
            row = {"student": r.student, "file": r.file, "status": r.status}
            for e in self.exercises:
                row[e.id] = r.points.get(e.id, 0) if r.status != "malformed" else ""
            row["total"] = r.total
            row["out_of"] = r.out_of
            row["misses"] = r.problem if r.status == "malformed" else " | ".join(
                f"{i}: {n}" for i, n in r.notes.items())
            out.append(row)
        return out

    def columns(self) -> list[str]:
        return ["student", "file", "status"] + [e.id for e in self.exercises] + ["total", "out_of", "misses"]

    def to_csv(self, path: str | Path) -> Path:
        import io
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=self.columns())
        w.writeheader()
        w.writerows(self.rows())
        return _files.write_output(path, buf.getvalue(), example="scores.csv")   # whole, or nothing

    def frame(self):
        import pandas as pd
        return pd.DataFrame(self.rows(), columns=self.columns())

    def summary(self) -> str:
        """A table to print: one line per student, then how many got each exercise right."""
        out_of = sum(e.points for e in self.exercises)
        width = max([len("STUDENT")] + [len(r.student) for r in self.results]) + 2
        lines = [f"{'STUDENT':<{width}}{'POINTS':<10}STATUS"]
        for r in self.results:
            pts = f"{r.total}/{out_of}" if r.status != "malformed" else "-"
            lines.append(f"{r.student:<{width}}{pts:<10}" + (r.status if r.status != "malformed"
                                                              else f"malformed: {r.problem}"))
        graded = [r for r in self.results if r.status != "malformed"]
        lines += ["", f"{'EXERCISE':<10}{'POINTS':<8}{'RIGHT':<8}{'WRONG':<8}{'UNANSWERED':<12}QUESTION"]
        for e in self.exercises:
            right = sum(1 for r in graded if r.points.get(e.id, 0) == e.points)
            blank = sum(1 for r in graded if r.notes.get(e.id) == "no answer")
            q = e.question if len(e.question) <= 60 else e.question[:57] + "..."
            lines.append(f"{e.id:<10}{e.points:<8}{right:<8}{len(graded) - right - blank:<8}{blank:<12}{q}")
        return "\n".join(lines)


def grade_sheet(sheet: AnswerSheet, exercises: list, file: str = "") -> Result:
    """Grade one sheet: full points for a right answer, none otherwise; a note for each miss."""
    res = Result(file or sheet.student, sheet.student, "ok", out_of=sum(e.points for e in exercises))
    for e in exercises:
        raw = sheet.answers.get(e.id)
        try:
            given = e.read(raw)
        except K.AnswerFormatError as err:
            res.points[e.id] = 0
            res.notes[e.id] = "no answer" if str(err) == "no answer yet" else f"unreadable answer ({err})"
            continue
        if given == e.expected():
            res.points[e.id] = e.points
        else:
            res.points[e.id] = 0
            res.notes[e.id] = f"said {K.show(given)}; {e.hint_for(given)} Rule: {e.why}"
    res.total = sum(res.points.values())
    if any(n == "no answer" for n in res.notes.values()):
        res.status = "partial"
    unknown = sorted(set(sheet.answers) - {e.id for e in exercises})
    if unknown:
        res.notes["(other)"] = f"answers to exercises not in this assignment ignored: {', '.join(unknown)}"
    return res


def grade(submissions: Iterable[str | Path], exercises: list | None = None) -> Grades:
    """Grade answer files against *exercises* (default: the shipped library).  Never raises for a bad file.

    A single path (a string) is one file."""
    if exercises is None:
        from .registry import EXERCISES
        exercises = list(EXERCISES)
    from ..api.arguments import as_list
    results = []
    for path in as_list(submissions, "submissions", "answer file paths"):   # one path: one file
        try:
            sheet = load_answers(path)
        except ValueError as e:
            results.append(Result(str(path), Path(path).stem, "malformed", problem=str(e),
                                  out_of=sum(x.points for x in exercises)))
            continue
        results.append(grade_sheet(sheet, exercises, str(path)))
    return Grades(list(exercises), results)
