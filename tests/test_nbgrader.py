"""nbgrader end to end: `stsedu nbgrader` writes a source notebook; nbgrader's own pipeline
(generate_assignment -> a student fills in the released copy -> submitted/ -> autograde ->
export) grades it by running the simulator in the hidden test cells."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from stsedu.__main__ import main

pytest.importorskip("nbgrader")
ROOT = Path(__file__).resolve().parent.parent

TEACHER_EXERCISE = textwrap.dedent("""\
    id: "T.1"
    question: Three Ready pods get a new image. How many pods does the first sync delete?
    points: 3
    scenario:
      cluster: {kubelet: manual}
      objects: ["stsedu:web.yaml"]
      steps: [settle: {}, set_image: "registry.k8s.io/nginx-slim:0.21"]
    answer: {kind: number, from: next_sync, action: delete, count: true}
    why: A rolling update replaces one pod at a time (maxUnavailable 1), highest ordinal first.
    """)


def nbgrader(course: Path, *args: str) -> str:
    env = dict(os.environ)
    # nbgrader runs `alembic` from its own environment; the kernel must import this stsedu
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def fill(released: Path, submitted: Path, answers: dict[str, str]) -> None:
    """What a student does: replace each answer cell's stub with an assignment."""
    nb = nbformat.read(released, as_version=4)
    for cell in nb.cells:
        for var, value in answers.items():
            if cell.cell_type == "code" and cell.source.startswith(f"# {var} ="):
                cell.source = cell.source.replace("raise NotImplementedError()", f"{var} = {value}")
    submitted.parent.mkdir(parents=True)
    nbformat.write(nb, submitted)


def test_the_source_notebook_has_nbgrader_cells(tmp_path):
    """Answer cells hold the computed solution between nbgrader's markers; test cells are hidden,
    locked, graded with the exercise's points; a teacher's exercise travels inside the notebook."""
    (tmp_path / "t1.yaml").write_text(TEACHER_EXERCISE)
    out = tmp_path / "source" / "ps1" / "ps1.ipynb"
    assert main(["nbgrader", "--exercises", str(tmp_path / "t1.yaml"), "--out", str(out)],
                out=io.StringIO()) == 0
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells}
    answer, check = cells["answer_T_1"], cells["check_T_1"]
    assert answer.metadata["nbgrader"]["solution"] and not answer.metadata["nbgrader"]["grade"]
    assert "### BEGIN SOLUTION\nanswer_T_1 = 1\n### END SOLUTION" in answer.source
    meta = check.metadata["nbgrader"]
    assert (meta["grade"], meta["locked"], meta["points"], meta["solution"]) == (True, True, 3, False)
    assert "### BEGIN HIDDEN TESTS" in check.source and "assert_correct(answer_T_1)" in check.source
    assert "stsedu.exercises.loads(" in cells["setup"].source and '"T.1"' in cells["setup"].source


@pytest.mark.slow
def test_nbgrader_autogrades_a_generated_assignment(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        'c = get_config()\nc.CourseDirectory.course_id = "sts"\nc.CourseDirectory.root = "."\n')
    (tmp_path / "t1.yaml").write_text(TEACHER_EXERCISE)
    out = io.StringIO()
    assert main(["nbgrader", "--exercises", str(ROOT / "stsedu" / "exercises" / "library"),
                 "--exercises", str(tmp_path / "t1.yaml"), "--ids", "06.1", "14.1", "T.1",
                 "--out", str(course / "source" / "ps1" / "ps1.ipynb")], out=out) == 0
    assert "3 exercises, 5 points" in out.getvalue()

    # the source notebook carries nbgrader's cell metadata (schema version 3)
    source = nbformat.read(course / "source" / "ps1" / "ps1.ipynb", as_version=4)
    meta = [c.metadata["nbgrader"] for c in source.cells]
    assert all(m["schema_version"] == 3 for m in meta)
    assert [(m["grade_id"], m["points"]) for m in meta if m["grade"]] == [
        ("check_06_1", 1), ("check_14_1", 1), ("check_T_1", 3)]
    assert sum(m["solution"] for m in meta) == 3

    nbgrader(course, "generate_assignment", "ps1", "--force")
    released = course / "release" / "ps1" / "ps1.ipynb"
    text = released.read_text()
    # students see neither the solutions nor the hidden checks
    assert "BEGIN SOLUTION" not in text and "assert_correct" not in text and "web-3" not in text
    assert "raise NotImplementedError()" in text

    # ada is right twice (06.1, T.1) and wrong once (14.1); bob leaves everything blank
    fill(released, course / "submitted" / "ada" / "ps1" / "ps1.ipynb",
         {"answer_06_1": '["web-2", "web-3"]', "answer_14_1": '"processCondemned"', "answer_T_1": "1"})
    fill(released, course / "submitted" / "bob" / "ps1" / "ps1.ipynb", {})
    nbgrader(course, "autograde", "ps1", "--force")
    nbgrader(course, "export", "--to", "grades.csv")
    rows = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert (float(rows["ada"]["score"]), float(rows["ada"]["max_score"])) == (4.0, 5.0)
    assert float(rows["bob"]["score"]) == 0.0

    # the autograded copy explains the miss with the exercise's hint
    graded = (course / "autograded" / "ada" / "ps1" / "ps1.ipynb").read_text()
    assert "processCondemned handles pods outside the range" in graded


def test_nbgrader_fits_the_installed_jupyterlab():
    """nbgrader's JupyterLab extension is installed, and built for the JupyterLab major we run."""
    import json
    from importlib.metadata import version

    ext = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "package.json"
    if not ext.is_file():
        pytest.skip("nbgrader's lab extension is not in this environment's prefix")
    wanted = json.loads(ext.read_text())["dependencies"]["@jupyterlab/application"]   # "^4.4.0"
    lab = version("jupyterlab").split(".")
    major, minor = wanted.lstrip("^").split(".")[:2]
    assert lab[0] == major and int(lab[1]) >= int(minor), (wanted, version("jupyterlab"))
    assert tuple(int(x) for x in version("nbgrader").split(".")[:2]) >= (0, 9)
