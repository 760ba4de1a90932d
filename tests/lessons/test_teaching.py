"""A teacher's pack: own exercise files, answer sheets, grading a class to a CSV, the answer key.

The tests play a teacher with the command line (`stsedu exercise check`, `stsedu grade`,
`stsedu exercise key`) and students with the Python calls a notebook makes.
"""

from __future__ import annotations

import csv
import json
import textwrap
from pathlib import Path

import pytest

import stsedu.lessons.exercises as E
from teacher_files import PARTITION, cli, with_id

ROOT = Path(__file__).resolve().parents[2]

TEACHER_EXERCISE = with_id(PARTITION, "T.1")
SECOND_EXERCISE = textwrap.dedent("""\
    id: "T.2"
    question: Three Ready pods; you scale to 1. How many pods does the first sync delete?
    scenario:
      cluster: {kubelet: manual}
      objects: ["stsedu:web.yaml"]
      steps: [settle: {}, scale: 1]
    answer: {kind: number, from: next_sync, action: delete, count: true}
    why: Scale-down deletes one pod per sync, highest ordinal first.
    """)


@pytest.fixture(autouse=True)
def forget_teacher_exercises():
    """Each test starts with only the shipped exercises registered."""
    yield
    for e in E.all_exercises():
        if e not in E.EXERCISES:
            E.unregister(e.id)


@pytest.fixture
def course(tmp_path):
    """A teacher's folder with two exercise files."""
    folder = tmp_path / "my-exercises"
    folder.mkdir()
    (folder / "t1-partition.yaml").write_text(TEACHER_EXERCISE)
    (folder / "t2-scale-down.yaml").write_text(SECOND_EXERCISE)
    return folder


def write_sheet(path: Path, student: str, answers: dict) -> Path:
    sheet = E.AnswerSheet(student)
    for exercise_id, answer in answers.items():
        sheet.check(exercise_id, answer)
    assert "Saved" in sheet.save(path)
    return path


def test_a_teacher_writes_an_exercise_and_grades_a_class(course, tmp_path):
    """New exercise file -> check -> three students (right, wrong, malformed) + a partial one -> CSV."""
    code, out, err = cli("exercise", "check", str(course))
    assert code == 0, err
    assert "exercise T.1 (pods, 2 pt); the simulator answers: web-3, web-4" in out
    assert "exercise T.2 (number, 1 pt); the simulator answers: 1" in out

    E.load(course)                                       # registered: get("T.1") works
    assert E.get("T.1").points == 2 and E.get("T.1") in E.for_notebook("")

    subs = tmp_path / "submitted"
    subs.mkdir()
    write_sheet(subs / "ada.json", "Ada", {"T.1": ["web-3", "web-4"], "T.2": 1})
    write_sheet(subs / "bob.json", "Bob", {"T.1": ["web-0", "web-1", "web-2"], "T.2": 2})
    write_sheet(subs / "cy.json", "Cy", {"T.1": "web-4, web-3"})          # T.2 not answered
    (subs / "dan.json").write_text('{"student": "Dan", "answers": {"T.1": ["web-3"],}')  # broken JSON
    (subs / "eve.json").write_text('["web-3", "web-4"]')                                # not a sheet

    scores = tmp_path / "scores.csv"
    code, out, err = cli("grade", *sorted(map(str, subs.glob("*.json"))), "--exercises", str(course),
                         "--out", str(scores))
    assert code == 0 and err == "" and "Traceback" not in out
    by_file = {Path(r["file"]).stem: r for r in csv.DictReader(scores.open())}
    rows = {r["student"] if r["status"] != "malformed" else Path(r["file"]).stem: r for r in by_file.values()}
    assert set(rows) == {"Ada", "Bob", "Cy", "dan", "eve"}
    # a file that cannot be read has no name: it is "(no name)", with its path beside it
    assert rows["dan"]["student"] == "(no name)" and rows["dan"]["file"].endswith("dan.json")
    # the CSV and the summary agree: no score (blank total; "-" in the summary), the points it was out of
    assert (rows["dan"]["total"], rows["dan"]["out_of"], rows["dan"]["T.1"]) == ("", "3", "")
    assert (rows["Ada"]["T.1"], rows["Ada"]["T.2"], rows["Ada"]["total"], rows["Ada"]["out_of"]) == \
        ("2", "1", "3", "3")
    assert (rows["Bob"]["T.1"], rows["Bob"]["T.2"], rows["Bob"]["total"]) == ("0", "0", "0")
    # the rule behind each miss, with the exercise's own hint for a typical mistake
    assert "The partition protects the LOW ordinals." in rows["Bob"]["misses"]
    assert "Rule: Scale-down deletes one pod per sync" in rows["Bob"]["misses"]
    assert (rows["Cy"]["status"], rows["Cy"]["T.1"], rows["Cy"]["total"]) == ("partial", "2", "2")
    assert "T.2: no answer" in rows["Cy"]["misses"]
    assert rows["dan"]["status"] == "malformed" and "not JSON (line 1" in rows["dan"]["misses"]
    assert rows["eve"]["status"] == "malformed" and "not an answer file" in rows["eve"]["misses"]
    # the printed summary: a line per student and per exercise, and one clear line per bad file
    assert "dan.json: cannot grade: not JSON" in out
    assert "cy.json: Cy: 2/3 (1 unanswered: T.2)" in out
    lines = out.splitlines()
    assert any(line.split()[:4] == ["Ada", str(subs / "ada.json"), "3/3", "ok"] for line in lines)
    assert any(line.split()[:5] == ["(no", "name)", str(subs / "dan.json"), "-", "malformed:"] for line in lines)
    # per exercise: points, then how many students were right, wrong, did not answer
    assert any(line.split()[:5] == ["T.1", "2", "2", "1", "0"] for line in lines)
    assert any(line.split()[:5] == ["T.2", "1", "1", "1", "1"] for line in lines)


def test_answers_survive_the_file_and_merge_across_notebooks(tmp_path):
    """save_answers writes what check() recorded; saving again from another notebook keeps both."""
    path = tmp_path / "me.json"
    E.current_sheet().clear()
    assert "Nothing to save yet" in E.save_answers(path) and not path.exists()
    E.get("03.2").check(("delete", "web-2"))
    E.get("06.1").check(None)                             # not answered: not recorded
    assert "Saved 1 answer" in E.save_answers(path, student="Ada")
    E.current_sheet().clear()
    E.get("05.1").check("delete web-0")
    E.save_answers(path)
    sheet = E.load_answers(path)
    assert sheet.student == "Ada" and sheet.answers == {"03.2": [["delete", "web-2"]],
                                                        "05.1": [["delete", "web-0"]]}
    data = json.loads(path.read_text())
    assert data["format"] == "stsedu-answers" and data["version"] == 2 and data["mode"] == "practice"
    assert [a["answer"] for a in data["attempts"]["03.2"]] == [[["delete", "web-2"]]]
    grades = E.grade([path], [E.get("03.2"), E.get("05.1"), E.get("06.1")])
    r = grades.results[0]
    assert (r.points, r.total, r.status) == ({"03.2": 1, "05.1": 0, "06.1": 0}, 1, "partial")
    E.current_sheet().clear()


def test_the_answer_key_is_for_the_teacher_and_stays_out_of_notebooks(course, tmp_path):
    """The key holds every computed answer with its rule; it refuses the students' folder."""
    key = tmp_path / "key.html"
    code, out, _ = cli("exercise", "key", "--exercises", str(course), "--out", str(key))
    assert code == 0
    text = key.read_text()
    assert "web-3, web-4" in text and "Only ordinals at or above the partition" in text
    nb_key = tmp_path / "key.ipynb"
    assert cli("exercise", "key", "--ids", "06.1", "--out", str(nb_key))[0] == 0
    assert "web-2, web-3" in nb_key.read_text()
    code, _, err = cli("exercise", "key", "--out", str(ROOT / "notebooks" / "key.html"))
    assert code == 2 and "out of the students' notebooks folder" in err
    assert not (ROOT / "notebooks" / "key.html").exists()


# ------------------------------------------------------------ exercise check: errors name the line


def check_error(tmp_path, text: str) -> str:
    f = tmp_path / "bad.yaml"
    f.write_text(textwrap.dedent(text))
    code, out, err = cli("exercise", "check", str(f))
    assert code == 2 and "Traceback" not in err and out == ""
    assert err.count("\n") == 1, err
    return err.strip()


def replace_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("old, new, expected", [
    ('id: "T.1"', "id: 06.1",
     'line 1: id: write the id in quotes ("6.1"): unquoted, YAML reads it as the number 6.1'),
    ("answer: {kind: pods,", "answer: {kind: pod,",
     "line 16: answer.kind: must be one of pods, decisions, number, revision, bool, text, choice, "
     "not 'pod' (did you mean 'pods'?)"),
    ("from: pods, where", "from: podz, where", "line 16: answer.from: where the simulator's answer is read"),
    ("  - set_image:", "  - set_imgae:",
     "line 13: scenario.steps[1]: unknown action 'set_imgae' (did you mean 'set_image'?)"),
    ("  - settle: {}\nanswer", "  - scale: {replicas: many}\nanswer",
     "line 15: reveal[0].scale.replicas: must be an integer, not a string"),
    ("kubelet: manual}", "kubelet: manul}", 'line 7: scenario.cluster.kubelet: must be "auto" or "manual"'),
    ("points: 2", "points: -1", "line 5: points: must be a whole number >= 1, not -1"),
    ("  - answer: [web-0, web-1, web-2]", "  - answer: 3", "line 19: hints[0].answer: not a pods answer"),
    ("why:", "whyy:", "line 17: whyy: unknown field (did you mean 'why'?)"),
    ("reveal:\n  - settle: {}", "reveal: [\n  - settle: {}", "line 15: not valid YAML"),
])
def test_exercise_check_names_the_line(tmp_path, old, new, expected):
    """`stsedu exercise check FILE` says which line of a teacher's file is wrong, and why."""
    err = check_error(tmp_path, replace_line(TEACHER_EXERCISE, old, new))
    assert err.startswith(f"error: {tmp_path / 'bad.yaml'}: ")
    assert expected in err, err


def test_exercise_check_runs_the_scenario_and_checks_hints(tmp_path):
    """Errors that only running shows: an unknown pod, and a 'hint' given for the right answer."""
    text = TEACHER_EXERCISE.replace("where: {revision: 2}}", "where: {revision: 2}}\n").replace(
        "answer: [web-0, web-1, web-2]", "answer: [web-3, web-4]")
    assert "the hint for web-3, web-4 is given for the RIGHT answer" in check_error(tmp_path, text)
    text = TEACHER_EXERCISE.replace("reveal:\n  - settle: {}", "reveal:\n  - delete_pod: web-9")
    err = check_error(tmp_path, text)
    assert "line 15: reveal[0]: the scenario cannot run" in err and 'pods "web-9" not found' in err
    text = TEACHER_EXERCISE.replace("replicas: 5,", "replicas: -5,")
    err = check_error(tmp_path, text)
    assert "line 8: scenario.objects: the scenario cannot run" in err
    assert "spec.replicas: Invalid value: -5: must be greater than or equal to 0" in err
    text = replace_line(TEACHER_EXERCISE, "    - settle: {}\n    - set_image",
                        "    - settle: {}\n      expect: {pods: [web-0]}\n    - set_image")
    err = check_error(tmp_path, text)
    assert "line 13: scenario.steps[0].expect: an expectation of the scenario does not hold" in err


def test_a_teacher_id_cannot_shadow_another_file(course, tmp_path):
    E.load(course)
    other = tmp_path / "copy.yaml"
    other.write_text(TEACHER_EXERCISE)
    with pytest.raises(E.ExerciseError, match="already used by"):
        E.load(other)
    E.load(course)                   # loading the same files again (re-running a cell) is fine


def test_an_exercise_can_reuse_a_scenario_file(tmp_path):
    """`scenario:` may name a shipped scenario or a file beside the exercise; its expectations still hold."""
    by_name = E.loads(textwrap.dedent("""\
        id: "T.9"
        question: After the staged, canary and phased roll-out, which revision is current?
        scenario: partition-canary
        answer: {kind: revision, from: status, field: current_revision}
        why: Once every pod is updated and Ready, the update revision becomes the current one.
        """), register_it=False)
    assert by_name.expected() == 2 and len(by_name.scenario.steps) == by_name.question_steps > 5
    (tmp_path / "lesson.yaml").write_text(E.get("06.1").text.split("scenario:\n", 1)[1].split("reveal:")[0]
                                          .replace("\n  ", "\n").strip() + "\n")
    (tmp_path / "t.yaml").write_text(textwrap.dedent("""\
        id: "T.8"
        question: Which pods run the new revision once the set settles?
        scenario: lesson.yaml
        reveal: [settle: {}]
        answer: {kind: pods, from: pods, where: {revision: 2}}
        why: Only ordinals >= partition are updated.
        """))
    assert E.load(tmp_path / "t.yaml", register_them=False)[0].expected() == ["web-2", "web-3"]


def test_exercise_check_of_nothing_says_so(tmp_path):
    code, _, err = cli("exercise", "check", str(tmp_path))
    assert code == 2 and "no exercise files" in err
    code, _, err = cli("exercise", "check", str(tmp_path / "missing.yaml"))
    assert code == 2 and "no such file" in err


def test_the_documented_examples_are_valid_exercises():
    """The exercise in docs/teaching.md and in the format's docstring load and compute their answer."""
    import re

    import stsedu.lessons.exercises.exercise as X
    doc = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", doc, re.S).group(1)
    assert E.loads(block, register_it=False).expected() == ["web-3", "web-4"]
    example = X.__doc__.split("file::\n\n", 1)[1].split("\n\nThe answer", 1)[0]
    assert E.loads(textwrap.dedent(example), register_it=False).expected() == ["web-2", "web-3"]
