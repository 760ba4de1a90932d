"""Practice and assessed mode: whether this kernel may show a teacher's exercises' answers.

* **Practice** (the default): self-paced.  ``ex.check(answer)`` says ✓ or ✗ with the rule,
  as often as the learner likes; every checked attempt is kept on the answer sheet.
* **Assessed** (a teacher's assignment): nothing of the assessed set is checked or revealed
  before hand-in.  A kernel enters it with :func:`assessed` (the first cell of a released
  assignment calls it) or when it starts with ``STSEDU_MODE=assessed`` in its environment (a
  class's JupyterHub); once on, it stays on until the kernel restarts.

The mode belongs to the exercise set, not to the server: the assessed set is the teacher's
exercises (any exercise that does not ship with the kit).  The kit's own exercises and the
lessons' predict-then-see questions are the practice set, answered in any kernel (anyone with
the kit can compute them), so a lesson and a test can share a server.  Every route to an
assessed exercise's answer (``expected()``, ``expected_answer()``, ``score()``, ``judge()``,
``judge_answer()``, ``hint_for()``, ``assert_correct()``, ``cluster()``) goes through one
guard in the exercise (``Exercise.refuse_if_assessed``); the teacher's grader computes them
inside :func:`grading`.

The mode is a guard against revealing by accident.  What keeps an assessed answer away from a
student is that the release never carries it: an assessed notebook holds the question, the
situation as text and the form of an answer, never the exercise file (see docs/teaching.md).
"""

from __future__ import annotations

import contextlib
import os

PRACTICE, ASSESSED = "practice", "assessed"
MODES = (PRACTICE, ASSESSED)

_STATE = {"mode": ASSESSED if os.environ.get("STSEDU_MODE", "").strip().lower() == ASSESSED else PRACTICE,
          "grading": 0}


class AssessedModeError(RuntimeError):
    """Something that would show an answer was asked for in assessed mode."""


def mode() -> str:
    """``"practice"`` or ``"assessed"``."""
    return _STATE["mode"]


def is_assessed() -> bool:
    return _STATE["mode"] == ASSESSED


def assessed() -> str:
    """Switch this kernel to assessed mode (until it restarts); returns a one-line notice."""
    _STATE["mode"] = ASSESSED
    return ("Assessed mode: nothing is checked or revealed before you hand in; your answers are "
            "graded by your teacher afterwards.")


def practice() -> str:
    """Back to practice mode; refused in a kernel that is in assessed mode."""
    if is_assessed():
        raise AssessedModeError("this kernel is in assessed mode until it restarts; answers are "
                                "graded after you hand in")
    return "Practice mode: check your answers as often as you like."


@contextlib.contextmanager
def grading():
    """The teacher's grader at work (``stsedu grade``, the key, nbgrader's hidden tests): inside
    it, assessed exercises compute their answers even in an assessed kernel."""
    _STATE["grading"] += 1
    try:
        yield
    finally:
        _STATE["grading"] -= 1


def is_grading() -> bool:
    return _STATE["grading"] > 0
