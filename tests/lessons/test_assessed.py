"""A class you can grade (issue #31): assessed mode keeps answers on the teacher's side, attempts
count under a policy, the teacher's tools refuse what would grade wrongly, and a sequence answer
earns partial credit for a correct prefix.

The teacher is played with the command line, students with the calls a notebook makes.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

import stsedu
import stsedu.lessons.exercises as E
from teacher_files import ROLLING, SEQUENCE as SEQUENCE_EXERCISE, cli, exercise_folder

ROOT = Path(__file__).resolve().parents[2]

T1, T2 = ROLLING, SEQUENCE_EXERCISE
SEQUENCE = [["create", "web-2"], ["wait", "web-2"], ["create", "web-3"], ["wait", "web-3"]]


pytestmark = pytest.mark.usefixtures("practice_kernel")


@pytest.fixture
def mine(tmp_path) -> Path:
    return exercise_folder(tmp_path, {"t1.yaml": T1, "t2.yaml": T2})


# ------------------------------------------------------------------ 1. assessed mode


def test_assessed_mode_turns_off_the_teachers_exercises_and_keeps_the_practice_set(mine):
    """expected() and a checked verdict are off for the assessed set (the teacher's exercises); a
    check only records.  The kit's exercises and the lessons' questions are the practice set (every
    route is tried in test_one_guard.py)."""
    ex = E.load(mine)[0]
    assert ex.expected() == 1                             # practice: the teacher's key works
    print(E.assessed())
    ex._cache.clear()
    with pytest.raises(E.AssessedModeError, match="off in assessed mode"):
        ex.expected()
    fb = ex.check(1)
    assert not fb.checked and "recorded" in fb.message and "right" not in fb.message and "✓" not in fb.message
    assert E.get("06.1").expected() == ["web-2", "web-3"]
    assert "06.a" in repr(stsedu.labs.reveal("06.a", ["web-2"]))
    with pytest.raises(E.AssessedModeError, match="until it restarts"):
        E.practice()
    assert E.current_sheet().answers == {"T.1": 1}


def test_a_kernel_started_with_STSEDU_MODE_assessed_is_assessed():
    code = "import stsedu; print(stsedu.exercises.mode())"
    env = {"STSEDU_MODE": "assessed", "PYTHONPATH": str(ROOT), "PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "assessed", done.stderr


def test_the_release_carries_the_questions_and_nothing_that_computes_an_answer(mine, tmp_path):
    """stsedu exercise release: question, situation, answer form; no why, hint, scenario or answer."""
    out = tmp_path / "release" / "ps1.ipynb"
    code, text, err = cli("exercise", "release", "--exercises", str(mine), "--out", str(out))
    assert code == 0, err
    released = out.read_text()
    for secret in ("SECRET", "scenario", "nginx-slim:0.21", "next_sync", "sequence", "settle", "set_image",
                   "stsedu:web.yaml", "exercises.load"):
        assert secret not in released, secret
    nb = nbformat.read(out, as_version=4)
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "Four Ready pods get a new image" in md and "web-3    Running" in md       # the situation, as text
    assert "Answer with a whole number" in md
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")     # ships unexecuted


def test_a_shipped_exercise_cannot_be_assessed(tmp_path):
    code, _, err = cli("exercise", "release", "--ids", "06.1", "--out", str(tmp_path / "r.ipynb"))
    assert code == 2 and "06.1 ships with stsedu" in err and not (tmp_path / "r.ipynb").exists()


def run_release(release: Path, answers: dict[str, str], student: str, cwd: Path, extra: str = "") -> str:
    """A student in a fresh Python: run the release's cells with *answers* put in, then *extra*."""
    nb = nbformat.read(release, as_version=4)
    cells = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        src = c.source
        for ex_id, value in answers.items():
            if f"sheet.answer({ex_id!r}" in src:
                src = src.replace("answer = None", f"answer = {value}", 1)
        cells.append(src.replace('student=""', f"student={student!r}"))
    script = "\n".join(cells[:-1]) + "\n" + extra + "\n" + cells[-1] + "\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "", "HOME": str(cwd)})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


CHEAT = textwrap.dedent("""\
    import glob, os
    found = []
    for ex_id in ("T.1", "T.2", "06.1"):
        try:
            found.append(("expected", ex_id, stsedu.exercises.get(ex_id).expected()))
        except Exception as e:
            found.append(("expected", ex_id, type(e).__name__))
    try:
        found.append(("act", stsedu.labs.question("06.a").act))
    except Exception as e:
        found.append(("act", type(e).__name__))
    files = [p for p in glob.glob(os.path.join(RELEASE, "**"), recursive=True) if os.path.isfile(p)]
    text = "".join(open(p, encoding="utf-8", errors="replace").read() for p in files)
    found.append(("files", len(files), "SECRET" in text or "scenario" in text or "why" in text.lower()))
    found.append(("sheet", [k for k in vars(sheet)], sorted(sheet.exercises["T.1"])))
    print("CHEATER", found)
    """)


def test_a_cheating_student_finds_nothing(mine, tmp_path):
    """expected() and every released file: nothing gives an assessed answer away."""
    release = tmp_path / "release"
    assert cli("exercise", "release", "--exercises", str(mine), "--out", str(release / "ps1.ipynb"))[0] == 0
    home = tmp_path / "eve"
    home.mkdir()
    out = run_release(release / "ps1.ipynb", {"T.1": "1"}, "Eve", home,
                      extra=f"RELEASE = {str(release)!r}\n" + CHEAT)
    line = next(x for x in out.splitlines() if x.startswith("CHEATER"))
    assert "('expected', 'T.1', 'KeyError')" in line and "('expected', 'T.2', 'KeyError')" in line
    # the kit's own exercises and lesson questions are the practice set: open book, not the assignment
    assert "('expected', '06.1', ['web-2', 'web-3'])" in line
    assert "('files', 1, False)" in line
    # the handout holds each exercise's public part only
    assert "['choices', 'format', 'id', 'kind', 'points', 'question', 'situation', 'title']" in line
    assert "Saved 1 answer(s)" in out


# ------------------------------------------------------------------ 2. attempts count


def test_every_checked_attempt_is_kept_with_its_time_and_graded_by_policy(tmp_path):
    """Wrong, wrong (run again: not a new attempt), right: first 0, last 1, penalty 0.25 -> 0.5."""
    ex = E.get("06.1")
    for answer in (["web-0", "web-1"], ["web-1", "web-2"], ["web-1", "web-2"], ["web-2", "web-3"]):
        ex.check(answer)
    path = tmp_path / "me.json"
    assert "Saved 1 answer" in E.save_answers(path, student="Rita")
    data = json.loads(path.read_text())
    tries = data["attempts"]["06.1"]
    assert [t["answer"] for t in tries] == [["web-0", "web-1"], ["web-1", "web-2"], ["web-2", "web-3"]]
    assert all(len(t["at"]) == 19 and t["at"][10] == "T" for t in tries)
    scores = {}
    for policy in ("first", "last", "penalty"):
        csv_path = tmp_path / f"{policy}.csv"
        code, out, err = cli("grade", str(path), "--ids", "06.1", "--policy", policy, "--out", str(csv_path))
        assert code == 0, err
        row = next(csv.DictReader(csv_path.open()))
        scores[policy] = (row["06.1"], row["total"], row["policy"], row["attempts 06.1"])
    assert scores == {"first": ("0", "0", "first attempt", "3"),
                      "last": ("1", "1", "last attempt", "3"),
                      "penalty": ("0.5", "0.5", "penalty 0.25 of the points per retry", "3")}
    code, out, _ = cli("grade", str(path), "--ids", "06.1", "--policy", "penalty", "--penalty", "0.5")
    assert "Policy: penalty 0.5 of the points per retry." in out and "Rita" in out and " 0/1 " in out
    code, _, err = cli("grade", str(path), "--ids", "06.1", "--policy", "penalty", "--penalty", "2")
    assert code == 2 and "--penalty: the penalty per retry must be a number from 0 to 1" in err


def test_saving_again_keeps_the_earlier_attempts(tmp_path):
    path = tmp_path / "me.json"
    E.get("03.2").check("delete web-0")
    E.save_answers(path, student="Ada")
    E.current_sheet().clear()
    E.get("03.2").check("delete web-2")
    E.save_answers(path)
    E.save_answers(path)                                   # saving twice adds nothing
    sheet = E.load_answers(path)
    assert [a["answer"] for a in sheet.attempts["03.2"]] == [[["delete", "web-0"]], [["delete", "web-2"]]]
    assert sheet.answers == {"03.2": [["delete", "web-2"]]}


def test_a_version_1_file_is_one_attempt_per_exercise(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "stsedu-answers", "version": 1, "student": "Old",
                                "answers": {"06.1": ["web-2", "web-3"]}}))
    r = E.grade([path], [E.get("06.1")], "first").results[0]
    assert (r.student, r.total, r.attempts) == ("Old", 1, {"06.1": 1})


@pytest.mark.parametrize("name", ["your name", "", "  Your Name ", "..."])
def test_the_placeholder_name_is_refused_at_save_time(tmp_path, name):
    E.get("06.1").check(["web-2", "web-3"])
    msg = E.save_answers(tmp_path / "me.json", student=name)
    assert msg.startswith("Not saved: write your own name") and not (tmp_path / "me.json").exists()


# ------------------------------------------------------------------ 3. the teacher's tools


def test_exercise_check_refuses_an_id_used_twice(mine, tmp_path):
    (mine / "t1-copy.yaml").write_text(T1)
    code, out, err = cli("exercise", "check", str(mine))
    assert code == 2 and "t1-copy.yaml: exercise T.1" in out
    assert f"error: {mine / 't1.yaml'}: line 1: id: 'T.1' is already used by {mine / 't1-copy.yaml'} (line 1)" in err


def test_exercise_check_refuses_a_shipped_id_unless_overriding(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text(T1.replace('id: "T.1"', 'id: "06.1"'))
    code, _, err = cli("exercise", "check", str(f))
    assert code == 2 and "line 1: id: id '06.1' is a shipped exercise's (06.1-partition.yaml)" in err
    assert "--override" in err
    code, out, _ = cli("exercise", "check", "--override", str(f))
    assert code == 0 and "exercise 06.1" in out
    # the same refusal where the exercises are used
    code, _, err = cli("exercise", "list", "--exercises", str(f))
    assert code == 2 and "is a shipped exercise's" in err
    code, out, _ = cli("exercise", "list", "--exercises", str(f), "--override", "--ids", "06.1")
    assert code == 0 and "Four Ready pods" in out


def test_exercises_add_to_the_shipped_set(mine):
    code, out, err = cli("exercise", "list", "--exercises", str(mine), "--ids", "T.1", "03.2")
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()] == ["T.1", "03.2"]
    # without --ids: your files are the assignment
    assert [line.split()[0] for line in cli("exercise", "list", "--exercises", str(mine))[1].splitlines()] == \
        ["T.1", "T.2"]
    # the library folder given again is the shipped set, not a second copy of it
    lib = str(ROOT / "stsedu" / "lessons" / "exercises" / "library")
    code, out, _ = cli("exercise", "list", "--exercises", str(mine), "--exercises", lib)
    ids = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and ids.count("06.1") == 1 and len(ids) == 2 + len(E.EXERCISES)
    # --only: your files alone
    code, _, err = cli("exercise", "list", "--exercises", str(mine), "--only", "--ids", "T.1", "03.2")
    assert code == 2 and "no exercise '03.2' among T.1, T.2" in err


def test_grading_names_students_and_their_files(mine, tmp_path):
    """The name is the file's student field, the path beside it; an unknown id and an empty file
    are said in the summary and the CSV alike."""
    E.load(mine)
    subs = tmp_path / "submissions"
    for who, answers in (("ada", {"T.1": 1, "T.2": SEQUENCE}), ("bo", {"T.1": 1, "X.9": 3})):
        (subs / who).mkdir(parents=True)
        sheet = E.AnswerSheet(who.title())
        for k, v in answers.items():
            if k in ("T.1", "T.2"):
                sheet.check(k, v)
            else:
                sheet.attempts[k] = [{"answer": v, "at": None}]
        sheet.save(subs / who / "my-answers.json")
    (subs / "cy").mkdir()
    (subs / "cy" / "my-answers.json").write_text("")
    files = sorted(str(p) for p in subs.glob("*/my-answers.json"))
    code, out, err = cli("grade", *files, "--exercises", str(mine), "--out", str(tmp_path / "s.csv"))
    assert code == 0, err
    rows = {r["file"]: r for r in csv.DictReader((tmp_path / "s.csv").open())}
    bo = rows[str(subs / "bo" / "my-answers.json")]
    assert (bo["student"], bo["total"], bo["status"]) == ("Bo", "1", "partial")
    assert "answers to unknown exercises ignored: X.9" in bo["misses"]
    cy = rows[str(subs / "cy" / "my-answers.json")]
    assert (cy["student"], cy["status"], cy["total"]) == ("(no name)", "malformed", "")
    assert cy["misses"] == "empty file (0 bytes): no answers were saved into it"
    assert any("Bo" in line and "answers to unknown exercises ignored: X.9" in line for line in out.splitlines())
    assert f"{subs / 'cy' / 'my-answers.json'}: cannot grade: empty file (0 bytes)" in out
    assert rows[str(subs / "ada" / "my-answers.json")]["total"] == "3"


def test_the_key_shows_a_number_once(tmp_path):
    key = tmp_path / "key.html"
    assert cli("exercise", "key", "--ids", "02.1", "--out", str(key))[0] == 0
    assert "<dt>Answer</dt><dd>3</dd>" in key.read_text()


@pytest.mark.parametrize("old, new, expected", [
    ("answer: {kind: number, from: next_sync, action: delete, count: true}",
     "answer: {kind: revision, from: next_sync, action: delete, count: true}",
     "line 8: answer.kind: kind revision does not fit what answer.from next_sync gives (number)"),
    ("answer: {kind: number, from: next_sync, action: delete, count: true}",
     "answer: {kind: revision, from: pod, pod: web-9}",
     "line 8: answer.pod: no pod 'web-9' once the scenario has run (pods: web-0, web-1, web-2, web-3)"),
    ("steps: [settle: {}, set_image", "steps: [delete_pod: web-9, set_image",
     'line 7: scenario.steps[0]: the scenario cannot run: delete_pod: Error from server (NotFound): '
     'pods "web-9" not found'),
    ("  - {answer: 4, hint:", "  - {answer: 1, hint:",
     "line 11: hints[0].answer: the hint for 1 is given for the RIGHT answer"),
])
def test_file_errors_name_the_line(tmp_path, old, new, expected):
    f = tmp_path / "bad.yaml"
    f.write_text(T1.replace(old, new))
    code, out, err = cli("exercise", "check", str(f))
    assert code == 2 and out == "" and "Traceback" not in err
    assert expected in err, err


def test_a_revision_source_takes_kind_revision_only(tmp_path):
    text = T1.replace("answer: {kind: number, from: next_sync, action: delete, count: true}",
                      "answer: {kind: number, from: status, field: updateRevision}")
    with pytest.raises(E.ExerciseError, match="kind number does not fit what answer.from status gives"):
        E.loads(text, register_it=False)


def test_status_fields_in_camel_case_or_snake_case():
    base = T1.replace("answer: {kind: number, from: next_sync, action: delete, count: true}",
                      "answer: {kind: number, from: status, field: FIELD}")
    camel = E.loads(base.replace("FIELD", "readyReplicas"), register_it=False)
    snake = E.loads(base.replace("FIELD", "ready_replicas"), register_it=False)
    assert camel.expected() == snake.expected() == 4


# ------------------------------------------------------------------ 4. a sequence of decisions


def test_a_sequence_until_stable_with_partial_credit_for_a_right_start(mine):
    ex = E.load(mine)[1]
    assert ex.expected() == SEQUENCE
    assert ex.check(SEQUENCE).ok
    half = ex.check([("create", "web-2"), ("wait", "web-2"), ("create", "web-3")] + [("create", "web-4")])
    assert not half.ok and "(1.5 of 2 points: the start of your sequence is right)" in half.message
    assert "Your first 3 steps match what the controller does; look again at step 4" in half.message
    assert ex.score([["create", "web-2"], ["create", "web-3"]]) == 0.5      # 1 of 4 steps right
    assert ex.score([["wait", "web-2"]]) == 0
    assert ex.score(SEQUENCE + [["create", "web-4"]]) == 1.6                # 4 of 5: one step too many


def test_a_sequence_across_n_syncs_and_of_some_actions(tmp_path):
    base = T2.replace("answer: {kind: decisions, from: sequence}", "answer: {kind: decisions, from: sequence, X}")
    two = E.loads(base.replace("X", "syncs: 2"), register_it=False)
    assert two.expected() == [["create", "web-2"], ["wait", "web-2"]]
    creates = E.loads(base.replace("X", "action: create"), register_it=False)
    assert creates.expected() == [["create", "web-2"], ["create", "web-3"]]
    with pytest.raises(E.ExerciseError, match="answer.syncs: must be a whole number of syncs from 1 to 200"):
        E.loads(base.replace("X", "syncs: 0"), register_it=False)


def test_import_stsedu_stays_light_with_the_teachers_tools():
    """The assessed-mode and grading modules load with the kit; nbformat (and jsonschema) only when a
    notebook is written."""
    code = "import sys, stsedu; print(sorted(m for m in ('nbformat', 'jsonschema') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT), "PATH": ""},
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
