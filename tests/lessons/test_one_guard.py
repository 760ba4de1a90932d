"""One guard at the source (issue #42, item 3): in assessed mode every route to an assessed
exercise's answer refuses in one place, the exercise; the mode belongs to the exercise set, so the
kit's practice exercises and the lessons' predict-then-see questions keep answering in an assessed
kernel (a lesson and a test can share a server), and the teacher's grader still computes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import stsedu
import stsedu.lessons.exercises as E
from stsedu.lessons.exercises import handout as H
from stsedu.widgets import predict
from teacher_files import PARTITION, ROLLING, exercise_folder

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.usefixtures("practice_kernel")

ROUTES = {
    "expected()": lambda ex: ex.expected(),
    "expected_answer()": lambda ex: ex.expected_answer(),
    "score()": lambda ex: ex.score(1),
    "judge()": lambda ex: ex.judge(1),
    "judge_answer()": lambda ex: ex.judge_answer(1),
    "hint_for()": lambda ex: ex.hint_for(3),
    "assert_correct()": lambda ex: ex.assert_correct(1),
    "cluster()": lambda ex: ex.cluster(),
}


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_to_an_assessed_answer_refuses_in_the_exercise(tmp_path, route):
    """A teacher's exercise in an assessed kernel: each route raises, naming the exercise."""
    (ex,) = E.load(exercise_folder(tmp_path, {"t1.yaml": ROLLING}))
    assert ex.expected_answer() == 1                     # practice: the teacher's own kernel answers
    ex._cache.clear()
    E.assessed()
    with pytest.raises(E.AssessedModeError, match=rf"^exercise T\.1: {route[:-2]}\(\) is off in assessed mode"):
        ROUTES[route](ex)
    assert "answer" not in ex._cache                     # nothing was computed


def test_a_check_and_a_sheet_record_without_judging(tmp_path):
    (ex,) = E.load(exercise_folder(tmp_path, {"t1.yaml": ROLLING}))
    E.assessed()
    fb = ex.check(1)
    assert not fb.checked and "answer recorded" in fb.message and "✓" not in fb.message
    sheet = E.AnswerSheet("Ada")
    fb = sheet.check("T.1", 4)
    assert not fb.checked and "SECRET" not in fb.message
    assert sheet.answers == {"T.1": 4} and E.current_sheet().answers == {"T.1": 1}


def test_the_lessons_questions_are_never_an_assessed_exercise(tmp_path):
    """The QUESTIONS route: a lesson question is its own (practice) question; an assessed id is not one."""
    E.load(exercise_folder(tmp_path, {"t1.yaml": ROLLING}))
    E.assessed()
    with pytest.raises(KeyError, match="no question 'T.1'"):
        stsedu.labs.question("T.1")
    assert not set(predict.QUESTIONS) & {e.id for e in E.all_exercises()}


def test_the_practice_set_answers_in_an_assessed_kernel():
    """The kit's exercises and the lessons' reveals: anyone with the kit computes them, so they stay on."""
    E.assessed()
    ex = E.get("06.1")
    assert ex.expected() == ["web-2", "web-3"] and ex.check(["web-2", "web-3"]).ok
    q = stsedu.labs.question("06.a")
    assert q.act(q.setup()) is not None
    assert "✓" in repr(stsedu.labs.reveal("06.a", ["web-2", "web-3"])) or \
        "✗" in repr(stsedu.labs.reveal("06.a", ["web-2", "web-3"]))


def test_the_grader_computes_in_an_assessed_kernel(tmp_path, capsys, monkeypatch):
    """grade(), the key and nbgrader's hidden test (autograde, in the kernel that ran assessed())."""
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING, "t3.yaml": PARTITION})
    exs = E.load(folder, register_them=False)
    E.assessed()
    sub = tmp_path / "ada.json"
    sub.write_text(json.dumps({"student": "Ada", "answers": {"T.1": 1, "T.3": ["web-3", "web-4"]}}))
    assert E.grade([sub], exs).results[0].total == 3
    H.write_key(exs, tmp_path / "course", "ps1")
    monkeypatch.chdir(tmp_path / "course")
    assert E.autograde("T.3", ["web-3", "web-4"], key="stsedu-key/ps1") == 2.0
    assert "✓ Exercise T.3: right." in capsys.readouterr().out
    with pytest.raises(E.AssessedModeError):          # and outside the grader, still off
        exs[0].expected()


LESSON_AND_TEST = textwrap.dedent("""\
    import stsedu, stsedu.lessons.exercises as E
    print("MODE", E.mode())
    print("REVEAL", "✓" in repr(stsedu.labs.reveal("06.a", ["web-2", "web-3"])) or
          "✗" in repr(stsedu.labs.reveal("06.a", ["web-2", "web-3"])))
    print("SHIPPED", E.get("06.1").expected())
    (t1,) = E.load(FOLDER)
    try:
        t1.expected_answer()
        print("TEACHER answered")
    except E.AssessedModeError as e:
        print("TEACHER", e)
    """)


def test_a_lesson_and_a_test_share_a_server_started_with_STSEDU_MODE_assessed(tmp_path):
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING})
    env = {"STSEDU_MODE": "assessed", "PYTHONPATH": str(ROOT), "PATH": "", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", f"FOLDER = {str(folder)!r}\n" + LESSON_AND_TEST], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines == {"MODE": "assessed", "REVEAL": "True", "SHIPPED": "['web-2', 'web-3']",
                     "TEACHER": "exercise T.1: expected_answer() is off in assessed mode: answers are computed "
                                "by your teacher's grader after you hand in"}
    # the teacher's command line on that server grades
    sub = tmp_path / "ada.json"
    sub.write_text(json.dumps({"student": "Ada", "answers": {"T.1": 1}}))
    done = subprocess.run([sys.executable, "-m", "stsedu", "grade", str(sub), "--exercises", str(folder)],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0 and "Ada" in done.stdout and "1/1" in done.stdout, done.stderr
