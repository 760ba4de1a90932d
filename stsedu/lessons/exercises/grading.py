"""Grading a class's answer files: points per exercise under an attempt policy, a CSV and a summary.

The right answers are computed here, on the teacher's side, by the simulator (the students'
files hold only what they answered).  Every attempt is scored (all or nothing; a ``sequence``
answer by its correct prefix), and the :class:`Policy` turns an exercise's attempts into its
points:

* ``first``: the first attempt counts;
* ``last``: the last attempt counts (the default; what a sheet without attempts holds);
* ``penalty``: each attempt scores its points minus *penalty* x the exercise's points for every
  attempt before it (never below 0), and the best of them counts: right the first time is full
  marks, right on the third try with penalty 0.25 is half.

A file that cannot be read gets one clear line (its path and the reason), never a traceback.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from . import kinds as K
from .answers import AnswerSheet, load_answers
from .modes import ASSESSED, grading
from .posting import NOT_RECORDED
from .variants import describe
from ...frames import kit_frame

POLICIES = ("first", "last", "penalty")
RECORD = "class record"
RECORD_FILE = "(class record)"
FALLBACK = "file, not recorded by the class"
NO_NAME = "(no name)"


@dataclass(frozen=True)
class Policy:
    """Which attempt counts: ``Policy("first")``, ``Policy("last")``, ``Policy("penalty", 0.25)``."""

    name: str = "last"
    penalty: float = 0.25

    def __post_init__(self) -> None:
        if self.name not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {self.name!r}")
        if isinstance(self.penalty, bool) or not isinstance(self.penalty, (int, float)) \
                or not 0 <= self.penalty <= 1:
            raise ValueError(f"the penalty per retry must be a number from 0 to 1, not {self.penalty!r}")

    def describe(self) -> str:
        if self.name == "penalty":
            return f"penalty {self.penalty:g} of the points per retry"
        return f"{self.name} attempt"

    def points(self, scores: list[float], out_of: int) -> float:
        """The points for an exercise whose attempts scored *scores* (oldest first)."""
        if not scores:
            return 0
        if self.name == "first":
            return scores[0]
        if self.name == "last":
            return scores[-1]
        return round(max(max(0.0, s - self.penalty * out_of * i) for i, s in enumerate(scores)), 2)


def _num(x: float) -> str:
    return f"{x:g}"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet may read as the start of a formula (OWASP, "CSV Injection")."""


def csv_cell(value) -> str:
    """*value* as a CSV cell a spreadsheet shows as text: a cell starting with = + - @, a tab or
    a carriage return gets a leading ``'`` (OWASP's advice), so a student's name such as
    ``=HYPERLINK(...)`` is never a formula in the teacher's spreadsheet."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def printable(text) -> str:
    """*text* without control characters (ESC, BEL, C1 codes, DEL) or format characters such as
    bidirectional overrides; other spaces become plain ones.  What a student wrote reaches the
    teacher's terminal as text, never as an escape sequence."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else " " if ch.isspace() else "" for ch in text)


@dataclass
class Result:
    """One student's grade."""

    file: str
    student: str
    status: str                              # "ok", "partial" or "malformed"
    points: dict[str, float] = field(default_factory=dict)
    attempts: dict[str, int] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    total: float = 0
    out_of: int = 0
    problem: str = ""
    unknown: list[str] = field(default_factory=list)
    """Ids in the file that are not exercises of this assignment (their answers are ignored)."""
    variants: dict[str, str] = field(default_factory=dict)
    """The student's variant of each exercise with parameters (``replicas=5 unready=web-2``)."""
    source: str = "file"
    """Where the attempts came from: ``class record``, ``file``, or a file standing in for the
    class record (:data:`FALLBACK`)."""
    unused: list[str] = field(default_factory=list)
    """Files handed in by a student whom the class record grades (never read for points)."""
    from_file: list[str] = field(default_factory=list)
    """Exercises the record has nothing of, graded from the attempts the student's file marks
    as not recorded by the class."""

    def remarks(self) -> str:
        parts = []
        missing = [i for i, n in self.notes.items() if n == "no answer"]
        if missing:
            parts.append(f"{len(missing)} unanswered: {', '.join(missing)}")
        if self.unknown:
            parts.append(f"answers to unknown exercises ignored: {', '.join(self.unknown)}")
        if self.source.startswith(FALLBACK):
            parts.append(f"graded from the student's {self.source}")
        if self.unused:
            parts.append(f"file not used, the class record is: {', '.join(self.unused)}")
        if self.from_file:
            parts.append(f"{', '.join(self.from_file)} graded from the student's file, not recorded by the class")
        return "; ".join(parts)

    def line(self) -> str:
        """One line for the terminal (without control characters)."""
        if self.status == "malformed":
            return printable(f"{self.file}: cannot grade: {self.problem}")
        extra = f" ({self.remarks()})" if self.remarks() else ""
        return printable(f"{self.file}: {self.student}: {_num(self.total)}/{self.out_of}{extra}")


@dataclass
class Grades:
    """A class's grades: one :class:`Result` per submission.  ``to_csv``, ``summary``, ``frame``."""

    exercises: list
    results: list[Result]
    policy: Policy = field(default_factory=Policy)

    def rows(self) -> list[dict]:
        out = []
        for r in self.results:
            bad = r.status == "malformed"
            row = {"student": r.student, "file": r.file, "source": r.source, "status": r.status,
                   "policy": self.policy.describe()}
            for e in self.exercises:
                row[e.id] = "" if bad else _num(r.points.get(e.id, 0))
            row["total"] = "" if bad else _num(r.total)       # the summary's "-": no score
            row["out_of"] = r.out_of
            for e in self.exercises:
                row[f"attempts {e.id}"] = "" if bad else r.attempts.get(e.id, 0)
            for e in self.exercises:
                if e.parameters:
                    row[f"variant {e.id}"] = r.variants.get(e.id, "")
            notes = [f"{i}: {n}" for i, n in r.notes.items()]
            if r.unknown:
                notes.append(f"answers to unknown exercises ignored: {', '.join(r.unknown)}")
            if r.unused:
                notes.append(f"file not used, the class record is: {', '.join(r.unused)}")
            if r.from_file:
                notes.append(f"{', '.join(r.from_file)} graded from the student's file, not recorded by the class")
            row["misses"] = r.problem if bad else " | ".join(notes)
            out.append(row)
        return out

    def columns(self) -> list[str]:
        return (["student", "file", "source", "status", "policy"] + [e.id for e in self.exercises]
                + ["total", "out_of"] + [f"attempts {e.id}" for e in self.exercises]
                + [f"variant {e.id}" for e in self.exercises if e.parameters] + ["misses"])

    def to_csv(self, path: str | Path, inputs: tuple = ()) -> Path:
        """Write the rows to *path* (never one of *inputs*); every cell through :func:`csv_cell`."""
        import io
        from ... import files as _files
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow([csv_cell(c) for c in self.columns()])
        w.writerows([csv_cell(row[c]) for c in self.columns()] for row in self.rows())
        return _files.write_output(path, buf.getvalue(), example="scores.csv", inputs=inputs)   # whole, or nothing

    def write_feedback(self, folder: str | Path, inputs: tuple = ()) -> list[Path]:
        """One ``<folder>/<student>/feedback.md`` per graded student (after the class: the rule
        behind each miss, on the student's own variant); returns the files written."""
        from ... import files as _files
        written: list[Path] = []
        taken: set[str] = set()
        for r in self.results:
            if r.status == "malformed":
                continue
            name = student_folder(r.student) or "student"
            while name in taken:
                name += "_"
            taken.add(name)
            written.append(_files.write_output(Path(folder) / name / "feedback.md", self.feedback(r), "--feedback",
                                               example="feedback/", inputs=inputs, make_parents=True))
        return written

    def feedback(self, r: Result) -> str:
        """A student's feedback as markdown: points per exercise, and for each miss what was said,
        the hint and the rule."""
        lines = [f"# Feedback for {printable(r.student)}", "",
                 f"{_num(r.total)} of {r.out_of} points ({self.policy.describe()}; graded from the "
                 f"{'class record' if r.source.startswith(RECORD) else 'answer file'}).", ""]
        for e in self.exercises:
            pts = r.points.get(e.id, 0)
            q = (e.variant(r.student) if e.parameters else e).question
            lines += [f"## {e.id} ({_num(pts)} of {e.points})", "", q, ""]
            if r.variants.get(e.id):
                lines += [f"Your variant: {r.variants[e.id]}.", ""]
            note = r.notes.get(e.id, "")
            lines += [printable(note) if note else "Right.", ""]
        return "\n".join(lines)

    def frame(self):
        return kit_frame(self.rows(), columns=self.columns())

    def summary(self) -> str:
        """A table to print: one line per file (student, file, points), then how each exercise went."""
        out_of = sum(e.points for e in self.exercises)
        width = max([len("STUDENT")] + [len(printable(r.student)) for r in self.results]) + 2
        fwidth = max([len("FILE")] + [len(printable(r.file)) for r in self.results]) + 2
        lines = [f"Policy: {self.policy.describe()}.",
                 f"{'STUDENT':<{width}}{'FILE':<{fwidth}}{'POINTS':<10}STATUS"]
        for r in self.results:
            if r.status == "malformed":
                pts, status = "-", f"malformed: {r.problem}"
            else:
                pts = f"{_num(r.total)}/{out_of}"
                status = r.status + (f" ({r.remarks()})" if r.remarks() else "")
            lines.append(f"{printable(r.student):<{width}}{printable(r.file):<{fwidth}}{pts:<10}"
                         + printable(status))
        graded = [r for r in self.results if r.status != "malformed"]
        lines += ["", f"{'EXERCISE':<10}{'POINTS':<8}{'RIGHT':<8}{'WRONG':<8}{'UNANSWERED':<12}QUESTION"]
        for e in self.exercises:
            right = sum(1 for r in graded if r.points.get(e.id, 0) == e.points)
            blank = sum(1 for r in graded if r.notes.get(e.id) == "no answer")
            q = e.question if len(e.question) <= 60 else e.question[:57] + "..."
            lines.append(f"{e.id:<10}{e.points:<8}{right:<8}{len(graded) - right - blank:<8}{blank:<12}{q}")
        return "\n".join(lines)


def student_folder(name: str) -> str:
    """A folder name for *name* (letters, digits, . _ -; "" if nothing is left)."""
    import re
    return re.sub(r"[^\w.-]+", "-", name).strip("-.")


def _score(e, raw) -> tuple[float, str]:
    """(points, note) for one attempt's raw answer."""
    try:
        given = e.read(raw)
    except K.AnswerFormatError as err:
        return 0, ("no answer" if str(err) == "no answer yet" else f"unreadable answer ({err})")
    got = e.score(given)
    if got == e.points:
        return got, ""
    part = f" ({_num(got)} of {e.points} for the right start)" if got else ""
    return got, f"said {K.show(given)}{part}; {e.hint_for(given)} Rule: {e.why}"


def grade_sheet(sheet: AnswerSheet, exercises: list, file: str = "", policy: Policy | None = None) -> Result:
    """Grade one sheet under *policy* (default: the last attempt); a note for each miss.  An
    exercise with parameters is graded on the sheet's student's variant."""
    policy = policy or Policy()
    res = Result(file or sheet.student, sheet.student or NO_NAME, "ok", out_of=sum(e.points for e in exercises))
    for e in exercises:
        if e.parameters:                    # the student's own situation, replayed here
            e = e.variant(sheet.student)
            res.variants[e.id] = describe(e.values)
        tries = [a.get("answer") for a in sheet.attempts.get(e.id, [])]
        scored = [_score(e, raw) for raw in tries]
        scored = [(s, n) for s, n in scored if n != "no answer"]
        res.attempts[e.id] = len(scored)
        if not scored:
            res.points[e.id] = 0
            res.notes[e.id] = "no answer"
            continue
        res.points[e.id] = policy.points([s for s, _ in scored], e.points)
        if res.points[e.id] != e.points:
            last = scored[0] if policy.name == "first" else scored[-1]
            tried = f" ({len(scored)} attempts)" if len(scored) > 1 else ""
            res.notes[e.id] = (last[1] or "right, less the penalty for retries") + tried
    res.total = round(sum(res.points.values()), 2)
    if any(n == "no answer" for n in res.notes.values()):
        res.status = "partial"
    res.unknown = sorted(set(sheet.attempts) - {e.id for e in exercises})
    return res


def grade(submissions: Iterable[str | Path], exercises: list | None = None,
          policy: Policy | str | None = None, recorded: dict | None = None) -> Grades:
    """Grade answer files against *exercises* (default: the shipped library) under *policy*
    (``"first"``, ``"last"`` or ``"penalty"``, or a :class:`Policy`).  Never raises for a bad file.

    With *recorded* (a class record's attempts: student -> id -> attempts, as
    ``ClassRecord.sheets()`` gives them), each student of the record is graded from it; a file
    counts only for a student the record has nothing from (or who is not in it), marked so."""
    if exercises is None:
        from .registry import EXERCISES
        exercises = list(EXERCISES)
    policy = Policy(policy) if isinstance(policy, str) else (policy or Policy())
    from ...api.arguments import as_list
    out_of = sum(x.points for x in exercises)
    results: list[Result] = []
    files: dict[str, list[tuple[str, AnswerSheet]]] = {}
    for path in as_list(submissions, "submissions", "answer file paths"):   # one path: one file
        try:
            sheet = load_answers(path)
        except ValueError as e:
            results.append(Result(str(path), NO_NAME, "malformed", problem=str(e), out_of=out_of))
            continue
        if recorded is None:
            with grading():              # the teacher's side: assessed exercises answer here
                results.append(grade_sheet(sheet, exercises, str(path), policy))
        else:
            files.setdefault(sheet.student.strip().casefold(), []).append((str(path), sheet))
    if recorded is None:
        return Grades(list(exercises), results, policy)
    graded: list[Result] = []
    for name, attempts in recorded.items():
        graded += _from_record(name, attempts, files.pop(name.strip().casefold(), []), exercises, policy)
    for theirs in files.values():        # students the roster does not have: their files, marked
        for path, sheet in theirs:
            with grading():
                r = grade_sheet(sheet, exercises, path, policy)
            r.source = FALLBACK + " (the student is not on the class roster)"
            graded.append(r)
    return Grades(list(exercises), graded + results, policy)


def _from_record(name: str, attempts: dict, files: list, exercises: list, policy: Policy) -> list[Result]:
    """A roster student's grade: the record's attempts; for an exercise the record has nothing of,
    the attempts their file marks as not recorded by the class (the notebook could not post them).
    A student the record has nothing from at all is graded from their file(s), marked."""
    if not attempts and files:
        out = []
        for path, sheet in files:
            with grading():
                r = grade_sheet(sheet, exercises, path, policy)
            r.source = FALLBACK
            out.append(r)
        return out
    extra: dict[str, list] = {}
    unused = []
    for path, sheet in files:
        took = False
        for k, tries in sheet.attempts.items():
            kept = [a for a in tries if a.get("class") == NOT_RECORDED]
            if k not in attempts and k not in extra and kept:
                extra[k], took = kept, True
        if not took:
            unused.append(path)
    with grading():
        r = grade_sheet(AnswerSheet(name, attempts={**attempts, **extra}, mode=ASSESSED), exercises,
                        RECORD_FILE, policy)
    r.source = (RECORD if attempts else f"{RECORD}: nothing recorded") + (" + file" if extra else "")
    r.from_file, r.unused = sorted(extra), unused
    return [r]
