"""Predict-then-check exercises, kept as YAML files, with an answer sheet and a grader.

Every exercise is a small YAML file (format: :mod:`stsedu.exercises.exercise`):
a scenario (the same format as ``stsedu run``), a question, the kind of answer
expected, points and hints.  The right answer is never stored: it is computed
by replaying the scenario on the simulator.

    ex = stsedu.exercises.get("03.2")
    ex.show()                        # the question and the pods it is about
    ex.check(("delete", "web-2"))    # ✓ / ✗ with the rule or a hint; records the attempt
    stsedu.exercises.save_answers("me.json", student="Ada")

Two modes (:mod:`.modes`): *practice* (the default: check as often as you like; every checked
attempt is kept, with its time) and *assessed* (a teacher's assignment: nothing of the teacher's
exercises is checked or revealed before hand-in; the release carries no exercise file, and the
grader computes the answers on the teacher's side).  An exercise may declare ``parameters``:
each student then gets a variant of their own (:mod:`.variants`).

Teachers keep their own folder: ``stsedu.exercises.load("my-exercises/")``
registers every file in it, after which ``get("T.1")`` works;
``stsedu exercise check FILE`` validates one, ``stsedu grade`` grades a class
(:func:`grade`), ``stsedu exercise key`` writes the answer key and
``stsedu nbgrader`` an nbgrader source notebook (:mod:`.nbgrader`).

Ids follow the notebook series (exercise 06.1 belongs to notebook 06).
:data:`OLD_IDS` maps the ids of the earlier numbering to the new ones.
"""

from __future__ import annotations

from . import kinds  # noqa: F401
from .answers import AnswerSheet, current_sheet, load_answers, save_answers  # noqa: F401
from .grading import Grades, Policy, grade  # noqa: F401
from .handout import Handout, autograde  # noqa: F401
from .modes import AssessedModeError, assessed, mode, practice  # noqa: F401
from .exercise import Exercise, ExerciseError, Feedback, from_dict  # noqa: F401
from .registry import (EXERCISES, LIBRARY_DIR, OLD_IDS, all_exercises, catalog, for_notebook,  # noqa: F401
                       get, library, load, loads, register, select, unregister)

__all__ = ["Exercise", "Feedback", "ExerciseError", "AnswerSheet", "Grades", "get", "catalog", "load",
           "loads", "register", "unregister", "all_exercises", "select", "for_notebook", "library",
           "save_answers", "load_answers", "grade", "current_sheet", "EXERCISES", "OLD_IDS", "LIBRARY_DIR",
           "kinds", "Policy", "mode", "assessed", "practice", "AssessedModeError", "Handout", "autograde"]
