"""The class's grades where an nbgrader teacher reads grades (issue #42): ``stsedu grade --class
class/ ... --nbgrader gradebook.db --assignment test1`` writes them into nbgrader's gradebook with
its own API, and they are read back here with that API and with ``nbgrader export``'s CSV plugin."""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import pytest

from stsedu.lessons.classroom.record import ClassRecord
from teacher_files import PARTITION, ROLLING, cli, exercise_folder

nbgrader_api = pytest.importorskip("nbgrader.api")
pytestmark = pytest.mark.usefixtures("practice_kernel")


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A class record (Ada: T.1 wrong then right, T.3 right; Bo: T.1 right; Cy: nothing) and an
    nbgrader course's empty gradebook."""
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING, "t3.yaml": PARTITION})
    rec = ClassRecord(tmp_path / "class", create=True)
    ids = {name: rec.student_named(name)[0] for name in rec.add_students(["Ada", "Bo", "Cy"])}
    for n, (who, ex, answer) in enumerate([("Ada", "T.1", 4), ("Ada", "T.1", 1), ("Ada", "T.3", ["web-3", "web-4"]),
                                           ("Bo", "T.1", 1)]):
        rec.record(ids[who], f"attempt-{n:04d}", ex, answer)
    rec.close()
    db = tmp_path / "gradebook.db"
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    nbgrader_api.Gradebook(f"sqlite:///{db}").close()        # what nbgrader quickstart leaves (it runs alembic)
    return tmp_path, folder, db


def grade(tmp_path, folder, db, *extra):
    return cli("grade", "--class", str(tmp_path / "class"), "--exercises", str(folder),
               "--nbgrader", str(db), "--assignment", "test1", *extra)


def scores(db) -> dict:
    with nbgrader_api.Gradebook(f"sqlite:///{db}") as gb:
        out = {}
        for s in gb.students:
            try:
                sub = gb.find_submission("test1", s.id)
            except nbgrader_api.MissingEntry:
                out[s.id] = None
            else:
                out[s.id] = sub.score
        return out


def test_the_grades_are_in_nbgraders_gradebook_and_its_export(course):
    tmp_path, folder, db = course
    code, out, err = grade(tmp_path, folder, db)            # --policy last: Ada's last T.1 is right
    assert code == 0, err
    assert "2 students' grades written to nbgrader's gradebook" in out
    assert scores(db) == {"Ada": 3.0, "Bo": 1.0}            # Cy sent nothing: no submission
    with nbgrader_api.Gradebook(f"sqlite:///{db}") as gb:
        a = gb.find_assignment("test1")
        assert a.max_score == 3.0
        assert sorted(c.name for n in a.notebooks for c in n.grade_cells) == ["check_T_1", "check_T_3"]
        from nbgrader.plugins.export import CsvExportPlugin
        CsvExportPlugin(to=str(tmp_path / "grades.csv")).export(gb)
    rows = {r["student_id"]: r for r in csv.DictReader((tmp_path / "grades.csv").open(newline=""))}
    assert {k: (r["assignment"], float(r["score"]), float(r["max_score"])) for k, r in rows.items()} == {
        "Ada": ("test1", 3.0, 3.0), "Bo": ("test1", 1.0, 3.0)}


def test_grading_again_replaces_the_grades_written_before(course):
    tmp_path, folder, db = course
    assert grade(tmp_path, folder, db)[0] == 0
    code, out, err = grade(tmp_path, folder, db, "--policy", "first")     # Ada's first T.1 was wrong
    assert code == 0, err
    assert scores(db) == {"Ada": 2.0, "Bo": 1.0}
    with nbgrader_api.Gradebook(f"sqlite:///{db}") as gb:
        assert len(gb.find_assignment("test1").submissions) == 2


def test_an_assignment_with_other_grade_cells_is_refused_and_left_as_it_was(course):
    tmp_path, folder, db = course
    with nbgrader_api.Gradebook(f"sqlite:///{db}") as gb:
        gb.add_assignment("test1")
        gb.add_notebook("problems", "test1")
        gb.add_grade_cell("q1", "problems", "test1", max_score=5, cell_type="code")
    code, out, err = grade(tmp_path, folder, db)
    assert code == 2 and err.startswith("error: --assignment: test1: this assignment in the gradebook has grade "
                                        "cells that are not these exercises' (problems/q1)")
    with nbgrader_api.Gradebook(f"sqlite:///{db}") as gb:
        assert [c.name for n in gb.find_assignment("test1").notebooks for c in n.grade_cells] == ["q1"]
        assert gb.students == []


@pytest.mark.parametrize("args, error", [
    (["--nbgrader", "gradebook.db"], "error: --assignment: --nbgrader GRADEBOOK and --assignment NAME go together"),
    (["--assignment", "test1"], "error: --nbgrader: --nbgrader GRADEBOOK and --assignment NAME go together"),
    (["--nbgrader", "nowhere.db", "--assignment", "test1"], "error: --nbgrader: nowhere.db: no gradebook there"),
])
def test_nbgrader_options_say_what_is_missing_in_one_line(course, args, error, monkeypatch):
    tmp_path, folder, _db = course
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("grade", "--class", "class", "--exercises", str(folder), *args)
    assert code == 2 and err.startswith(error), err
    assert "Traceback" not in err
