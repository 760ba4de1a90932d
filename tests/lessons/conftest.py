"""Fixtures shared by the class tests."""

from __future__ import annotations

import pytest

import stsedu.lessons.exercises as E
from stsedu.lessons.exercises import modes as M


@pytest.fixture
def practice_kernel():
    """Practice mode, an empty current sheet and only the shipped exercises, before and after."""
    M._STATE["mode"] = M.PRACTICE
    E.current_sheet().clear()
    yield
    M._STATE["mode"] = M.PRACTICE
    E.current_sheet().clear()
    for e in E.all_exercises():
        if e not in E.EXERCISES:
            E.unregister(e.id)
