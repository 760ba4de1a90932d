"""Classroom exercises: answers come from the simulator and match upstream's rules; feedback helps."""

import pytest

import stsedu.exercises as E

# What upstream's rules say each answer must be (the rule is in each exercise's `why`).
RULE_ANSWERS = {
    "01.1": "web-1.nginx.default.svc.cluster.local",
    "01.2": ["web-5", "web-6", "web-7"],
    "01.3": "www-web-2",
    "02.1": [("wait", "web-1")],
    "02.2": [("delete", "web-2")],
    "02.3": [("wait", "web-0")],
    "03.1": 4,
    "03.2": 1,
    "04.1": [("delete", "web-2")],
    "04.2": [("wait", "web-2")],
    "05.1": ["web-2", "web-3"],
    "05.2": 1,
    "05.3": 0,
    "06.1": [],
    "06.2": 2,
    "07.1": 10,  # IsPodAvailable: lastTransitionTime + minReadySeconds <= now
    "07.2": 2,
    "07.3": 2,
    "08.1": [("delete", "web-1")],
    "08.2": [("wait", "web-2")],
    "09.1": 2,
    "09.2": 3,
    "10.1": 3,
    "10.2": ["www-web-0"],
    "11.1": 3,
    "12.1": "processReplica",
}


def test_at_least_twenty_exercises_across_the_series():
    """Issue 8: at least 20 exercises, spread over the notebooks."""
    assert len(E.EXERCISES) >= 20
    assert len({e.notebook for e in E.EXERCISES}) >= 10
    assert list(E.catalog().columns) == ["id", "notebook", "kind", "question"]


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_simulated_answer_follows_the_rule(ex):
    """Each exercise's answer, computed by running the simulator, is the one upstream's rule gives."""
    assert ex.expected() == E.NORMALISERS[ex.kind](RULE_ANSWERS[ex.id])


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_check_accepts_the_right_answer_and_explains_a_wrong_one(ex):
    """check() says ✓ with the rule for the right answer, ✗ with a hint otherwise, and asks when empty."""
    right = ex.check(RULE_ANSWERS[ex.id])
    assert right.ok and right.message.startswith("✓") and ex.why in right.message
    empty = ex.check(None)
    assert not empty.ok and "write your prediction" in empty.message
    for wrong, hint in ex.hints.items():
        answer = list(wrong) if isinstance(wrong, tuple) else wrong
        fb = ex.check(answer)
        assert not fb.ok and hint in fb.message


def test_answers_in_several_spellings():
    """Learners may write a decision as a tuple, a list of tuples or a sentence."""
    ex = E.get("02.2")
    assert ex.check(("delete", "web-2"))
    assert ex.check([("delete", "web-2")])
    assert ex.check("delete web-2")
    assert not ex.check("delete web-1")
    assert "highest ordinal first" in ex.check("delete web-1").message
    assert E.get("06.1").check("nothing")


def test_solutions_only_in_teacher_mode():
    """solution() hides the answer unless teacher mode is on."""
    ex = E.get("04.1")
    E.teacher_mode(False)
    assert "teacher" in ex.solution().message and not ex.solution().ok
    E.teacher_mode(True)
    try:
        assert "delete web-2" in ex.solution().message
    finally:
        E.teacher_mode(False)


def test_unknown_exercise_lists_the_ids():
    with pytest.raises(KeyError, match="02.1"):
        E.get("99.9")


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_show_explains_the_format_without_giving_the_answer(ex, capsys):
    """The 'answer with ...' hint is about the format only; it never contains the answer."""
    ex.show()
    out = capsys.readouterr().out
    assert ex.question in out and f"Answer with {ex.answer_format}." in out
    expected = E.NORMALISERS[ex.kind](RULE_ANSWERS[ex.id])
    shown = ex.answer_format
    if isinstance(expected, list):
        assert not expected or not all(str(x[1] if isinstance(x, tuple) else x) in shown for x in expected)
    else:
        assert f" {expected!r}" not in shown and f"e.g. {expected}" not in shown
