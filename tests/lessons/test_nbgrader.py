"""nbgrader: `stsedu nbgrader` writes an assessed source notebook and the key folder its hidden tests
read.  nbgrader's own pipeline, run as docs/teaching.md says, is tests/lessons/test_class.py."""

from __future__ import annotations

import io
import sys
import textwrap
from contextlib import redirect_stderr
from pathlib import Path

import nbformat
import pytest

from stsedu.__main__ import main

pytest.importorskip("nbgrader")
ROOT = Path(__file__).resolve().parents[2]

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


def test_the_source_notebook_has_nbgrader_cells(tmp_path):
    """Answer cells hold the computed solution between nbgrader's markers; test cells are locked, graded
    with the exercise's points, and their hidden test reads the teacher's copy of the exercise in
    <course>/stsedu-key/<assignment>/, a folder nbgrader never releases.  The notebook itself carries
    no exercise file."""
    (tmp_path / "t1.yaml").write_text(TEACHER_EXERCISE)
    course = tmp_path / "course"
    out = course / "source" / "ps1" / "ps1.ipynb"
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
    assert ("### BEGIN HIDDEN TESTS\nstsedu.exercises.autograde('T.1', answer_T_1, key='stsedu-key/ps1')\n"
            "### END HIDDEN TESTS") in check.source
    assert "stsedu.exercises.assessed()" in cells["setup"].source
    assert "statefulset/web: replicas=3" in cells["question_T_1"].source       # the situation, as text
    text = out.read_text()
    assert "rolling update replaces one pod" not in text and "scenario" not in text
    assert (course / "stsedu-key" / "ps1" / "T_1.yaml").read_text() == TEACHER_EXERCISE


def test_nbgrader_refuses_a_folder_with_other_notebooks(tmp_path):
    """nbgrader quickstart leaves problem1/problem2 in source/ps1: they would count in max_score."""
    (tmp_path / "t1.yaml").write_text(TEACHER_EXERCISE)
    folder = tmp_path / "course" / "source" / "ps1"
    folder.mkdir(parents=True)
    (folder / "problem1.ipynb").write_text("{}")
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["nbgrader", "--exercises", str(tmp_path / "t1.yaml"), "--out", str(folder / "ps1.ipynb")],
                    out=io.StringIO())
    assert code == 2 and "also holds problem1.ipynb: nbgrader would grade them too" in err.getvalue()
    assert not (folder / "ps1.ipynb").exists()
    with redirect_stderr(err):
        assert main(["nbgrader", "--exercises", str(tmp_path / "t1.yaml"), "--out", str(tmp_path / "x.ipynb")],
                    out=io.StringIO()) == 2
    assert "source/<assignment>/<name>.ipynb" in err.getvalue()


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
