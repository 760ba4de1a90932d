"""Classroom exercises: answers come from the simulator and match upstream's rules; feedback helps."""

import re
from pathlib import Path

import pytest

import stsedu.lessons.exercises as E

ROOT = Path(__file__).resolve().parents[2]

# What upstream's rules say each answer must be (the rule is in each exercise's `why`).
RULE_ANSWERS = {
    "01.1": "web-1.nginx.default.svc.cluster.local",
    "01.2": ["web-5", "web-6", "web-7"],
    "01.3": "www-web-2",
    "01.4": ["web-2"],           # ordinals start..start+replicas-1; scale-down from the highest
    "02.1": 3,
    "02.2": ["www-web-0"],
    "02.3": 2,                   # the retention policy acts on scale-down and set deletion only
    "03.1": [("wait", "web-1")],
    "03.2": [("delete", "web-2")],
    "03.3": [("wait", "web-0")],
    "03.4": [("delete", "web-2"), ("wait", "web-2"), ("delete", "web-1"), ("wait", "web-1")],
    "05.1": [("delete", "web-2")],
    "05.2": [("wait", "web-2")],
    "05.3": [("delete", "web-2"), ("delete", "web-1"), ("delete", "web-0")],
    "06.1": ["web-2", "web-3"],
    "06.2": 1,
    "06.3": 0,
    "06.4": ["web-3"],
    "07.1": [],
    "07.2": 2,
    "07.3": ["web-0", "web-2"],  # OnDelete: only the pods you delete move
    "08.1": 3,
    "08.2": [],                  # the new set adopts the orphans: nothing to create
    "09.1": 4,
    "09.2": 1,
    "09.3": 2,                   # Parallel creates the missing pods whatever the others' health
    "10.1": True,  # IsPodAvailable: lastTransitionTime + minReadySeconds <= now
    "10.2": 2,
    "10.3": 2,
    "11.1": [("delete", "web-1")],
    "11.2": [("wait", "web-2")],
    "12.1": 2,
    "12.2": 3,
    "14.1": "processReplica",
}


def test_the_shipped_exercises_are_files_across_the_series():
    """34 exercise files in the package, spread over the notebooks, ids numbered like the series."""
    files = sorted((ROOT / "stsedu" / "lessons" / "exercises" / "library").glob("*.yaml"))
    assert len(files) == len(E.EXERCISES) == 34
    assert [e.id for e in E.EXERCISES] == sorted(RULE_ANSWERS)
    assert all(f.name.startswith(e.id + "-") for f, e in zip(files, E.EXERCISES))
    assert len({e.notebook for e in E.EXERCISES}) >= 10
    assert list(E.catalog().columns) == ["id", "notebook", "kind", "points", "question"]
    assert {e.kind for e in E.EXERCISES} >= {"pods", "decisions", "number", "revision", "choice"}


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_simulated_answer_follows_the_rule(ex):
    """Each exercise's answer, computed by running the simulator, is the one upstream's rule gives."""
    assert ex.expected() == ex.read(RULE_ANSWERS[ex.id])


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_check_accepts_the_right_answer_and_explains_a_wrong_one(ex):
    """check() says ✓ with the rule for the right answer, ✗ with a hint otherwise, and asks when empty."""
    right = ex.check(RULE_ANSWERS[ex.id], record=False)
    assert right.ok and right.message.startswith("✓") and ex.why in right.message
    empty = ex.check(None, record=False)
    assert not empty.ok and "write your prediction" in empty.message and ex.why not in empty.message
    for wrong, hint in ex.hints:
        fb = ex.check(wrong, record=False)
        assert not fb.ok and fb.message.startswith("✗") and hint in fb.message


def test_no_answer_is_stored_in_an_exercise_file():
    """The files hold questions, scenarios and hints; the right answer never appears as a hint."""
    for ex in E.EXERCISES:
        assert all(wrong != ex.expected() for wrong, _ in ex.hints), ex.id
        assert "expected" not in ex.text and "solution" not in ex.text


def test_answers_in_several_spellings():
    """Learners may write a decision as a tuple, a list of tuples, a sentence; a choice by its letter."""
    ex = E.get("03.2")
    assert ex.check(("delete", "web-2"), record=False)
    assert ex.check([("delete", "web-2")], record=False)
    assert ex.check(["delete", "web-2"], record=False)
    assert ex.check("delete web-2", record=False)
    assert not ex.check("delete web-1", record=False)
    assert "highest ordinal first" in ex.check("delete web-1", record=False).message
    assert E.get("07.1").check("nothing", record=False)
    assert E.get("06.1").check("web-3, web-2", record=False)
    assert E.get("06.2").check("revision 1", record=False)
    assert E.get("10.1").check("yes", record=False)
    assert E.get("14.1").check("a", record=False) and E.get("14.1").check("processreplica", record=False)
    bad = E.get("14.1").check("runForAll", record=False)
    assert not bad.answered and "not one of the choices" in bad.message


def test_old_ids_still_resolve():
    """OLD_IDS maps the numbering before the series was reordered; old=True reads an id that way."""
    assert E.get("02.2", old=True) is E.get("03.2")      # ordered scale-down, now in notebook 03
    assert E.get("10.1", old=True) is E.get("02.1")      # storage, now notebook 02
    assert E.get("04.1") is E.get("05.1")                # an old id no new exercise uses
    assert set(E.OLD_IDS.values()) <= set(RULE_ANSWERS)
    assert E.get("02.3", old=True) is E.get("03.3")      # an old id a new exercise now uses: old=True


def test_unknown_exercise_lists_the_ids():
    with pytest.raises(KeyError, match="06.1"):
        E.get("99.9")


def test_no_teacher_mode_and_no_solutions_for_students():
    """Answers are for the teacher's tools (key, grader), never unlockable in a student notebook."""
    assert not hasattr(E, "teacher_mode") and not hasattr(E.Exercise, "solution")
    for folder, pattern in ((ROOT / "tools" / "notebooks", "*.py"), (ROOT / "notebooks", "*.ipynb")):
        for path in folder.glob(pattern):
            text = path.read_text(encoding="utf-8")
            assert "teacher_mode" not in text and "STSEDU_TEACHER" not in text, path.name
            assert ".expected()" not in text and "answer_key" not in text, path.name


def test_notebooks_use_the_exercises_of_their_own_number():
    """Notebook NN asks exercises NN.x (ids follow the series' numbering)."""
    for path in (ROOT / "tools" / "notebooks").glob("[0-9][0-9]-*.py"):
        if path.name.startswith("13-"):
            continue            # the exercise sheet asks exercises from the whole series
        ids = re.findall(r'exercises\.get\("([^"]+)"\)', path.read_text(encoding="utf-8"))
        assert all(i.startswith(path.name[:3].replace("-", ".")) for i in ids), (path.name, ids)


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_show_explains_the_format_without_giving_the_answer(ex, capsys):
    """show() prints the question and which form to use; never the answer."""
    ex.show()
    out = capsys.readouterr().out
    assert ex.question in out and f"Answer with {ex.answer_format}." in out
    expected = ex.expected()
    if isinstance(expected, list):
        assert not expected or not all(str(x[1] if isinstance(x, list) else x) in ex.answer_format
                                       for x in expected)
    elif ex.kind not in ("choice", "bool"):      # those list every option
        assert f" {expected!r}" not in ex.answer_format and f"like {expected}" not in ex.answer_format


def test_the_exercise_sheet_asks_without_answering():
    """Notebook 13: every exercise cell has `answer = None  # <which form>`, and nothing stored reveals a result."""
    import nbformat
    src = (ROOT / "tools" / "notebooks" / "13-Exercises.py").read_text(encoding="utf-8")
    cells = re.findall(r'get\("([^"]+)"\)\nex\.show\(\)\nanswer = (.*?)  # (.*)\nex\.check\(answer\)', src)
    assert len(cells) >= 8 and len({i for i, _, _ in cells}) == len(cells)
    for exercise_id, value, form in cells:
        assert value == "None" and form == E.get(exercise_id).answer_format
    nb = nbformat.read(ROOT / "notebooks" / "13-Exercises.ipynb", as_version=4)
    stored = "\n".join(str(o) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "✓" not in stored and "✗" not in stored and "write your prediction first" in stored
    assert "save_answers" in src


ODD_ANSWERS = [0, -1, 2.5, True, "", "   ", "???", [], [[]], [1, 2], ["create", 5], ("create",), {"a": 1},
               [("fly", "web-1")], ["web-0", None], object(), b"web-0", float("nan"), "revision x", Ellipsis]


@pytest.mark.parametrize("ex", E.EXERCISES, ids=lambda e: e.id)
def test_any_answer_gets_feedback_never_a_traceback(ex):
    """Whatever a learner types, check() answers with a Feedback (and records only readable answers)."""
    for answer in ODD_ANSWERS:
        fb = ex.check(answer, record=False)
        assert isinstance(fb, E.Feedback) and fb.message.startswith(("✓", "✗", f"Exercise {ex.id}:"))
