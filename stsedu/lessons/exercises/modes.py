"""Practice and assessed mode: whether this kernel may show answers.

* **Practice** (the default): self-paced.  ``ex.check(answer)`` says ✓ or ✗ with the rule,
  as often as the learner likes; every checked attempt is kept on the answer sheet.
* **Assessed** (a teacher's assignment): nothing is checked or revealed before hand-in.
  ``Exercise.expected()``, ``Exercise.check()`` verdicts and ``stsedu.labs`` answers are off.
  A kernel enters it with :func:`assessed` (the first cell of a released assignment calls it)
  or when it starts with ``STSEDU_MODE=assessed`` in its environment (a class's JupyterHub);
  once on, it stays on until the kernel restarts.

The mode is a guard against revealing by accident.  What keeps an assessed answer away from a
student is that the release never carries it: an assessed notebook holds the question, the
situation as text and the form of an answer, never the exercise file (see docs/teaching.md).
"""

from __future__ import annotations

import os

PRACTICE, ASSESSED = "practice", "assessed"
MODES = (PRACTICE, ASSESSED)

_STATE = {"mode": ASSESSED if os.environ.get("STSEDU_MODE", "").strip().lower() == ASSESSED else PRACTICE}


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


def refuse(what: str) -> None:
    """Raise :class:`AssessedModeError` naming *what* if the kernel is in assessed mode."""
    if is_assessed():
        raise AssessedModeError(f"{what} is off in assessed mode: answers are computed by your "
                                "teacher's grader after you hand in")
