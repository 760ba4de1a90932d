"""Answer sheets: a student's predictions, every checked attempt with its time, saved as a small JSON file.

An answer file (version 2) looks like::

    {"format": "stsedu-answers", "version": 2, "mode": "practice", "student": "Ada",
     "saved": "2026-11-25T10:40:00",
     "answers": {"06.1": ["web-2", "web-3"]},
     "attempts": {"06.1": [{"answer": ["web-0", "web-1"], "at": "2026-11-25T10:31:02"},
                           {"answer": ["web-2", "web-3"], "at": "2026-11-25T10:32:40"}]}}

``answers`` holds each exercise's last attempt (what a version 1 file held, and all it held);
``attempts`` every answer the student checked, oldest first.  :mod:`.grading` scores them
under a policy (first attempt, last attempt, or a penalty per retry).

A student's name is required when saving, and the placeholder ``"your name"`` is refused, so
that a class's files can be told apart.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from ... import files as _files
from .exercise import RECORDED, record_attempt
from .modes import ASSESSED, MODES, PRACTICE
from ...i18n import _

FORMAT = "stsedu-answers"
VERSION = 2
MAX_ATTEMPTS = 1000
"""At most this many attempts per exercise in a file (a longer list is not a sheet save_answers wrote)."""
PLACEHOLDER_NAMES = frozenset({"", "your name", "name", "student", "...", "<your name>", "your-name",
                               "your_name", "firstname lastname"})


def name_problem(student: Any) -> str:
    """Why *student* cannot be saved as a name ("" if it can)."""
    if not isinstance(student, str):
        return "the name must be a string"
    if student.strip().lower() in PLACEHOLDER_NAMES:
        return 'write your own name: save_answers("my-answers.json", student="Ada Lovelace")'
    return ""


class AnswerSheet:
    """A student's answers by exercise id: every attempt, oldest first (canonical, JSON-friendly values).

    ``sheet.check(id, answer)`` checks and records an attempt; ``sheet.answers`` holds the last
    attempt of each; ``sheet.save(path)`` writes the file the grader reads.
    :meth:`Exercise.check <stsedu.exercises.Exercise.check>` records on :func:`current_sheet`.
    """

    def __init__(self, student: str = "", answers: dict | None = None, attempts: dict | None = None,
                 mode: str = PRACTICE) -> None:
        self.student = student
        self.mode = mode
        self.saved = False
        """Whether the last :meth:`save` wrote the file."""
        self.attempts: dict[str, list[dict]] = {str(k): [dict(a) for a in v] for k, v in (attempts or {}).items()}
        for k, v in (answers or {}).items():          # one untimed attempt each (a version 1 file)
            self.attempts.setdefault(str(k), [{"answer": v, "at": None}])

    @property
    def answers(self) -> dict[str, Any]:
        """The last attempt at each exercise."""
        return {k: v[-1]["answer"] for k, v in self.attempts.items() if v}

    def clear(self) -> None:
        self.attempts.clear()

    def check(self, exercise_id: str, answer: Any):
        """Check *answer* to one exercise (✓/✗ with the rule or a hint) and record the attempt."""
        from .registry import get
        ex = get(exercise_id)
        fb = ex.check(answer, record=False)
        if fb.answered:
            record_attempt(self.attempts, ex.id, ex.read(answer))
        return fb

    def show(self, exercise_id: str) -> None:
        from .registry import get
        get(exercise_id).show()

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "mode": self.mode, "student": self.student,
                "saved": _dt.datetime.now().replace(microsecond=0).isoformat(),
                "answers": self.answers, "attempts": {k: list(v) for k, v in self.attempts.items() if v}}

    def save(self, path: str | Path, merge: bool = True) -> str:
        """Write the attempts to *path* (JSON); with *merge*, attempts already in that file are kept.

        Returns a one-line message; writes nothing while no exercise is answered, or while the
        sheet has no name of its own (``"your name"`` is refused). :attr:`saved` says whether it wrote.
        """
        self.saved = False
        if not isinstance(path, (str, Path)):
            raise TypeError(f"save: path must be a file name (str or Path), not {type(path).__name__}")
        if not isinstance(self.student, str):
            raise TypeError(f"save: student must be a string, not {type(self.student).__name__}")
        p = Path(path)
        try:   # the path first: a folder, a NUL byte, a missing folder are refused whatever is answered
            _files.check_output(p, example="my-answers.json")
        except _files.OutputError as e:
            return f"Not saved: {e}."
        attempts = {k: list(v) for k, v in self.attempts.items() if v}
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
                for k, tries in old.attempts.items():
                    mine = attempts.get(k, [])
                    attempts[k] = list(tries) + [a for a in mine if a not in tries]
                student = student or old.student
        if not attempts:
            return _("Nothing to save yet: answer at least one exercise first.")
        problem = name_problem(student)
        if problem:
            return f"Not saved: {problem}."
        sheet = AnswerSheet(student.strip(), attempts=attempts, mode=self.mode)
        try:
            _files.write_output(p, json.dumps(sheet.to_dict(), indent=1) + "\n", example="my-answers.json")
        except _files.OutputError as e:
            return f"Not saved: {e}."
        self.saved = True
        return f"Saved {len(attempts)} answer(s) to {p}."

    def __repr__(self) -> str:
        return f"AnswerSheet({self.student!r}: {len(self.attempts)} answer(s))"


_CURRENT = [AnswerSheet()]
_CURRENT[0].attempts = RECORDED          # what Exercise.check records


def current_sheet() -> AnswerSheet:
    """The sheet that :meth:`Exercise.check` records on (one per Python session)."""
    return _CURRENT[0]


def save_answers(path: str | Path = "my-answers.json", student: str = "") -> str:
    """Save every attempt checked in this session to *path* (merging with what the file has).

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
        text = _files.read_text(p, _files.ANSWERS)
        if not text.strip():
            raise ValueError("empty file (0 bytes): no answers were saved into it"
                             if not text else "empty file (only blank space): no answers were saved into it")
        data = _files.load_json(text, _files.ANSWERS)
    except _files.FileReadError as e:
        raise ValueError(str(e)) from None
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise ValueError('not an answer file: expected {"answers": {...}} as save_answers() writes it')
    student = data.get("student") or ""
    if not isinstance(student, str):
        raise ValueError("student must be a string")
    mode = data.get("mode", PRACTICE)
    if mode not in MODES:
        raise ValueError(f"mode must be {PRACTICE} or {ASSESSED}, not {mode!r}")
    attempts = data.get("attempts")
    if attempts is not None:
        if not isinstance(attempts, dict):
            raise ValueError('attempts must be {"id": [{"answer": ..., "at": ...}, ...]}')
        for k, tries in attempts.items():
            if not isinstance(tries, list) or not all(isinstance(a, dict) and "answer" in a for a in tries):
                raise ValueError(f'attempts.{k}: must be a list of {{"answer": ..., "at": ...}}')
            if len(tries) > MAX_ATTEMPTS:
                raise ValueError(f"attempts.{k}: more than {MAX_ATTEMPTS} attempts")
            if any(not isinstance(a.get("at"), (str, type(None))) for a in tries):
                raise ValueError(f"attempts.{k}: each attempt's time (at) must be a string")
    return AnswerSheet(student.strip(), {str(k): v for k, v in data["answers"].items()},
                       {str(k): v for k, v in (attempts or {}).items() if v}, mode=mode)


