"""A variant per student (issue #42, item 2): an exercise declares parameters, each student gets a
variant seeded by name and exercise, the teacher's grader replays that student's variant with the
simulator, and the CSV shows it; a neighbour's answer copied onto one's own variant scores nothing.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

import stsedu.lessons.exercises as E
from stsedu.lessons.exercises import variants as V
from teacher_files import PARTITION, cli, exercise_folder, with_id

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.usefixtures("practice_kernel")

# Upstream's rolling update (updateStatefulSet's partition check): ordinals >= partition move to the
# update revision.  The partition and the replicas vary per student.
VARIED = with_id(PARTITION, "V.1").replace('id: "V.1"\n', 'id: "V.1"\n' + textwrap.dedent("""\
    parameters:
      replicas: {range: [4, 6]}
      partition: {choices: [1, 2, 3]}
    """)).replace("Five Ready pods, partition 3,", "${replicas} Ready pods, partition ${partition},").replace(
    "replicas: 5,", 'replicas: "${replicas}",').replace("partition: 3}", 'partition: "${partition}"}')
assert VARIED.count("${") == 4, VARIED


def right(values: dict) -> list[str]:
    """Upstream's rule, worked out by hand: web-<partition> .. web-<replicas - 1>."""
    return [f"web-{i}" for i in range(values["partition"], values["replicas"])]


@pytest.fixture
def varied(tmp_path) -> Path:
    return exercise_folder(tmp_path, {"v1.yaml": VARIED})


def test_each_student_gets_a_variant_seeded_by_name_and_exercise(varied):
    (ex,) = E.load(varied, register_them=False)
    assert ex.parameters == (("replicas", (4, 5, 6)), ("partition", (1, 2, 3)))
    names = ["Ada", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
    got = {n: ex.variant(n).values for n in names}
    assert got == {n: ex.variant(n).values for n in names}          # the same every time
    assert ex.variant(" ada ").values == got["Ada"]                 # name's case and spaces do not count
    assert len({tuple(v.items()) for v in got.values()}) >= 4        # the class does not share one
    for n in names:
        v = ex.variant(n)
        assert v.expected_answer() == right(v.values), n             # computed by the simulator
        assert f"{v.values['replicas']} Ready pods, partition {v.values['partition']}" in v.question


def test_a_copied_answer_scores_nothing_on_ones_own_variant(varied, tmp_path):
    (ex,) = E.load(varied, register_them=False)
    ada, bo = ex.variant("Ada"), ex.variant("Bo")
    assert right(ada.values) != right(bo.values)
    subs = tmp_path / "subs"
    for who, answer in (("Ada", right(ada.values)), ("Bo", right(ada.values))):     # Bo copies Ada
        (subs / who).mkdir(parents=True)
        (subs / who / "a.json").write_text(json.dumps({"student": who, "answers": {"V.1": answer}}))
    out_csv = tmp_path / "scores.csv"
    code, out, err = cli("grade", str(subs / "Ada" / "a.json"), str(subs / "Bo" / "a.json"),
                         "--exercises", str(varied), "--out", str(out_csv))
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader(out_csv.open(newline=""))}
    assert (rows["Ada"]["V.1"], rows["Bo"]["V.1"]) == ("2", "0")
    assert rows["Ada"]["variant V.1"] == V.describe(ada.values)
    assert rows["Bo"]["variant V.1"] == V.describe(bo.values)


def test_release_per_student_shows_each_their_own_situation(varied, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,email\nAda,ada@x.invalid\nBo,bo@x.invalid\n")
    code, out, err = cli("exercise", "release", "--exercises", str(varied), "--students", str(roster),
                         "--out", str(tmp_path / "release" / "ps1.ipynb"))
    assert code == 0, err
    assert "2 assessed notebooks" in out and "a variant per student of V.1" in out
    (ex,) = E.load(varied, register_them=False)
    for who in ("Ada", "Bo"):
        nb = nbformat.read(tmp_path / "release" / who / "ps1.ipynb", as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        v = ex.variant(who).values
        assert f"{v['replicas']} Ready pods, partition {v['partition']}" in text
        assert f"student={who!r}" in text and "${" not in text and "SECRET" not in text and "scenario" not in text
        assert text.count("web-") >= v["replicas"]                    # the situation: every pod of the variant
    # without a roster, one notebook for the class is refused: it cannot show each one's variant
    code, _, err = cli("exercise", "release", "--exercises", str(varied), "--out", str(tmp_path / "r.ipynb"))
    assert code == 2 and "V.1 has parameters (a variant per student)" in err and "--students" in err
    code, _, err = cli("nbgrader", "--exercises", str(varied), "--out", str(tmp_path / "c" / "source" / "ps1" / "p.ipynb"))
    assert code == 2 and "V.1 has parameters" in err


def test_a_handout_released_to_a_student_saves_under_that_name(tmp_path):
    h = E.Handout([{"id": "V.1", "title": "", "points": 1, "question": "q", "situation": "", "kind": "number",
                    "choices": [], "format": "a whole number"}], student="Ada")
    h.answer("V.1", 3)
    assert h.save(str(tmp_path / "a.json"), student="Bo").startswith("Not saved: this notebook is Ada's")
    assert h.save(str(tmp_path / "a.json")) == f"Saved 1 answer(s) to {tmp_path / 'a.json'}."
    assert E.load_answers(tmp_path / "a.json").student == "Ada"


def test_check_replays_every_variant(varied):
    code, out, err = cli("exercise", "check", str(varied))
    assert code == 0, err
    assert "for replicas=4 partition=1; 9 variants, 9 replayed, 9 different answers" in out


@pytest.mark.parametrize("params, problem", [
    ("parameters: {replicas: {range: [6, 4]}}", "line 2: parameters.replicas.range: must be [low, high]"),
    ("parameters: {replicas: {choices: []}}", "line 2: parameters.replicas.choices: must be a list of at least one"),
    ("parameters: {replicas: {between: [1, 2]}}", "line 2: parameters.replicas: must be {choices: [a, b, ...]}"),
    ("parameters: {replicas: {range: [1, 100000]}}", "parameters.replicas: more than 10000 variants"),
])
def test_wrong_parameters_are_refused_with_their_line(tmp_path, params, problem):
    f = tmp_path / "v.yaml"
    block = "parameters:\n  replicas: {range: [4, 6]}\n  partition: {choices: [1, 2, 3]}"
    assert block in VARIED
    f.write_text(VARIED.replace(block, params))
    with pytest.raises(E.ExerciseError, match=re.escape(problem)):
        E.load(f, register_them=False)


def test_an_unknown_placeholder_is_refused_with_its_line(tmp_path):
    f = tmp_path / "v.yaml"
    f.write_text(VARIED.replace("partition ${partition}, new image", "partition ${partitoin}, new image"))
    with pytest.raises(E.ExerciseError) as err:
        E.load(f, register_them=False)
    assert str(err.value) == (f"{f}: line 5: question: unknown parameter ${{partitoin}} "
                              "(parameters: replicas, partition)")


def run_notebook(release: Path, home: Path, answer: str) -> str:
    """A student runs their released notebook top to bottom in a fresh Python, *answer* written in."""
    nb = nbformat.read(release, as_version=4)
    code = [c.source.replace("answer = None", f"answer = {answer}", 1) for c in nb.cells if c.cell_type == "code"]
    home.mkdir(parents=True)
    done = subprocess.run([sys.executable, "-c", "\n".join(code)], cwd=home, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "", "HOME": str(home)})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_class_of_variants_end_to_end(varied, tmp_path):
    """Release per student, each runs their own notebook (Bo copies Ada's answer), grade: Ada's
    answer is right on Ada's variant, and on Bo's it is not."""
    roster = tmp_path / "roster.txt"
    roster.write_text("Ada\nBo\n")
    assert cli("exercise", "release", "--exercises", str(varied), "--students", str(roster),
               "--out", str(tmp_path / "release" / "ps1.ipynb"))[0] == 0
    (ex,) = E.load(varied, register_them=False)
    adas = repr(right(ex.variant("Ada").values))
    for who in ("Ada", "Bo"):
        out = run_notebook(tmp_path / "release" / who / "ps1.ipynb", tmp_path / "subs" / who, adas)
        assert f"This notebook is {who}'s own variant" in out and "Saved 1 answer(s)" in out
    out_csv = tmp_path / "scores.csv"
    code, out, err = cli("grade", *sorted(str(p) for p in (tmp_path / "subs").glob("*/my-answers.json")),
                         "--exercises", str(varied), "--out", str(out_csv))
    assert code == 0, err
    rows = {r["student"]: (r["V.1"], r["variant V.1"]) for r in csv.DictReader(out_csv.open(newline=""))}
    assert rows == {"Ada": ("2", V.describe(ex.variant("Ada").values)),
                    "Bo": ("0", V.describe(ex.variant("Bo").values))}
