"""The edges of a class (issue #42, item 5): what a teacher or a student meets at the margins of
handing out, saving and grading, each of which once lost or hid something.

* a hand-out's save merges with what the file holds (a restarted kernel never loses an answer);
* every file the kit writes follows the umask (a shared folder can read a release);
* a grading run that grades nothing exits non-zero; answers to ids the graded set lacks, without
  ``--exercises``, are said, not graded 0; ``--ids`` given twice and an ``--out`` that is an input
  are refused before any work;
* a student's name cannot put a formula in the teacher's spreadsheet (OWASP's CSV injection
  guidance) nor control characters on the teacher's terminal; attempts are a column per question;
* the form of an answer fits what is asked (claims, pods, a sequence of decisions);
* ``release`` and ``check`` warn when the situation a release shows holds the answer;
* an exercise file with a key twice is refused as a manifest is; ``where`` values of the wrong type
  are refused.
"""

from __future__ import annotations

import csv
import json
import os
import stat
import textwrap
from pathlib import Path

import pytest

import stsedu.lessons.exercises as E
from stsedu import files as F
from teacher_files import PARTITION, ROLLING, cli, exercise_folder

PUBLIC = [{"id": "T.1", "title": "", "points": 1, "question": "q1", "situation": "", "kind": "number",
           "choices": [], "format": "a whole number, like 7"},
          {"id": "T.2", "title": "", "points": 1, "question": "q2", "situation": "", "kind": "number",
           "choices": [], "format": "a whole number, like 7"}]


pytestmark = pytest.mark.usefixtures("practice_kernel")


@pytest.fixture
def mine(tmp_path) -> Path:
    return exercise_folder(tmp_path, {"t1.yaml": ROLLING, "t3.yaml": PARTITION})


def sheet_file(path: Path, student: str, attempts: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": "stsedu-answers", "version": 2, "mode": "practice", "student": student,
                                "answers": {k: v[-1] for k, v in attempts.items()},
                                "attempts": {k: [{"answer": a, "at": None} for a in v]
                                             for k, v in attempts.items()}}))
    return path


# ------------------------------------------------------------------ saving


def test_a_handout_saved_after_a_restart_keeps_the_earlier_answers(tmp_path):
    """Save T.1, restart the kernel (a new Handout), answer only T.2, save: the file holds both."""
    path = tmp_path / "my-answers.json"
    first = E.Handout(PUBLIC)
    first.answer("T.1", 3)
    assert first.save(str(path), student="Ada") == f"Saved 1 answer(s) to {path}."
    again = E.Handout(PUBLIC)                      # the kernel restarted: nothing of T.1 in memory
    again.answer("T.2", 5)
    assert again.save(str(path), student="Ada") == f"Saved 2 answer(s) to {path}."
    assert E.load_answers(path).answers == {"T.1": 3, "T.2": 5}


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_written_files_follow_the_umask(tmp_path, umask, mode):
    """As open() would make them: 0666 less the umask (mkstemp alone gives 0600 whatever it is);
    the write stays atomic, and replacing a file gives the new one the same rule."""
    old = os.umask(umask)
    try:
        out = F.write_output(tmp_path / "scores.csv", "a,b\n")
        assert stat.S_IMODE(out.stat().st_mode) == mode
        F.write_output(out, "a,b,c\n")
        assert stat.S_IMODE(out.stat().st_mode) == mode and out.read_text() == "a,b,c\n"
        assert [p.name for p in tmp_path.iterdir()] == ["scores.csv"]      # no temporary file left
    finally:
        os.umask(old)


def test_a_release_is_readable_by_the_class_with_umask_022(mine, tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "release" / "ps1.ipynb"
        assert cli("exercise", "release", "--exercises", str(mine), "--out", str(out))[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
    finally:
        os.umask(old)


# ------------------------------------------------------------------ grading runs


def test_a_run_that_grades_nothing_exits_non_zero(tmp_path):
    bad = tmp_path / "a.json"
    bad.write_text("{not json")
    empty = tmp_path / "b.json"
    empty.write_text("")
    code, out, err = cli("grade", str(bad), str(empty), "--ids", "06.1")
    assert code == 1, out + err
    assert "no answer file could be graded (2 malformed)" in err
    good = sheet_file(tmp_path / "c.json", "Cy", {"06.1": [["web-2", "web-3"]]})
    code, out, err = cli("grade", str(bad), str(good), "--ids", "06.1")
    assert code == 0, err


def test_answers_to_unknown_ids_without_exercises_are_said_not_graded_zero(mine, tmp_path):
    """Forgetting --exercises once graded everyone 0 against the shipped set, silently."""
    sub = sheet_file(tmp_path / "subs" / "ada.json", "Ada", {"T.1": [1], "T.3": [["web-3", "web-4"]]})
    out_csv = tmp_path / "scores.csv"
    code, out, err = cli("grade", str(sub), "--out", str(out_csv))
    assert code == 2 and not out_csv.exists()
    assert ("error: the answer files answer T.1, T.3, which are not shipped exercises: give your exercise "
            "files with --exercises (for example --exercises my-exercises/)") in err
    code, out, err = cli("grade", str(sub), "--exercises", str(mine), "--out", str(out_csv))
    assert code == 0 and "Ada" in out, err
    code, _, err = cli("grade", str(sub), "--ids", "T.1")
    assert code == 2 and "no exercise 'T.1' among" in err and "--exercises" in err


def test_an_id_given_twice_is_refused(tmp_path):
    sub = sheet_file(tmp_path / "ada.json", "Ada", {"06.1": [["web-2", "web-3"]]})
    code, out, err = cli("grade", str(sub), "--ids", "06.1", "06.1")
    assert code == 2 and "error: --ids: 06.1 is given twice (an exercise counts once)" in err and not out
    with pytest.raises(E.ExerciseError, match="06.1 is given twice"):
        E.select(["06.1", "03.2", "06.1"])


@pytest.mark.parametrize("command", ["grade", "key", "release"])
def test_out_never_overwrites_an_input(mine, tmp_path, command):
    """--out t1.yaml once replaced the teacher's exercise file with the scores."""
    sub = sheet_file(tmp_path / "ada.json", "Ada", {"T.1": [1]})
    target = mine / "t1.yaml"
    before = target.read_text()
    argv = {"grade": ["grade", str(sub)], "key": ["exercise", "key"], "release": ["exercise", "release"]}[command]
    code, out, err = cli(*argv, "--exercises", str(mine), "--out", str(target))
    assert code == 3 and f"--out {target}: is one of the input files; refusing to overwrite it" in err
    assert target.read_text() == before
    # a named file too, and a new .yaml in the exercise folder (it would be read as an exercise next time)
    code, _, err = cli("grade", str(sub), "--exercises", str(target), "--out", str(target))
    assert code == 3 and target.read_text() == before
    code, _, err = cli("grade", str(sub), "--exercises", str(mine), "--out", str(mine / "scores.yaml"))
    assert code == 3 and "inside the exercise folder" in err and not (mine / "scores.yaml").exists()


# ------------------------------------------------------------------ what the teacher reads


def test_a_students_name_cannot_put_a_formula_in_the_spreadsheet(tmp_path, monkeypatch):
    """OWASP CSV injection: a cell starting with = + - @ tab or CR is prefixed with a quote."""
    names = ['=HYPERLINK("http://x.invalid","Ada")', "+1+1", "-2+3", "@SUM(A1)", "\tTab", "\rCR", "Ann"]
    subs = [sheet_file(tmp_path / f"s{i}" / "a.json", n, {"06.1": [["web-2", "web-3"]]})
            for i, n in enumerate(names)]
    out_csv = tmp_path / "scores.csv"
    code, _, err = cli("grade", *map(str, subs), "--ids", "06.1", "--out", str(out_csv))
    assert code == 0, err
    got = [r["student"] for r in csv.DictReader(out_csv.open(newline=""))]
    assert got == ["'" + n.strip() if n.strip()[0] in "=+-@" else n.strip() for n in names]
    assert got[0] == '\'=HYPERLINK("http://x.invalid","Ada")'
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
               for row in csv.reader(out_csv.open(newline="")) for cell in row)
    # a relative file name: the same rule for every cell (a name is stripped; a cell keeps its tab)
    monkeypatch.chdir(tmp_path)
    evil = sheet_file(Path("=cmd") / "a.json", "Bo", {"06.1": [["web-2", "web-3"]]})
    assert cli("grade", str(evil), "--ids", "06.1", "--out", str(out_csv))[0] == 0
    assert next(csv.DictReader(out_csv.open(newline="")))["file"] == "'" + str(evil)
    assert [E.grading.csv_cell(x) for x in ("\tx", "\rx", "-1", "Ann", 3)] == ["'\tx", "'\rx", "'-1", "Ann", "3"]


def test_control_characters_in_a_name_never_reach_the_terminal(tmp_path):
    """ESC and BEL in a name (a terminal's escape sequences) and bidi overrides are stripped."""
    name = "Ada\x1b[2J\x1b]0;pwned\x07 L\u202eecalvoL\x9b"
    sub = sheet_file(tmp_path / "x\x1b[31m" / "a.json", name, {"06.1": [["web-0"]]})
    code, out, err = cli("grade", str(sub), "--ids", "06.1")
    assert code == 0, err
    assert not any(ord(ch) < 32 and ch != "\n" or 0x7f <= ord(ch) < 0xa0 or ch == "\u202e" for ch in out)
    assert "Ada[2J]0;pwned LecalvoL" in out


def test_attempts_are_a_column_per_question(tmp_path):
    sub = sheet_file(tmp_path / "a.json", "Ada", {"06.1": [["web-0"], ["web-2", "web-3"]], "03.2": [[]]})
    out_csv = tmp_path / "scores.csv"
    assert cli("grade", str(sub), "--ids", "06.1", "03.2", "05.1", "--out", str(out_csv))[0] == 0
    row = next(csv.DictReader(out_csv.open(newline="")))
    assert (row["attempts 06.1"], row["attempts 03.2"], row["attempts 05.1"]) == ("2", "1", "0")
    assert "attempts" not in row
    header = next(csv.reader(out_csv.open(newline="")))
    assert header.index("attempts 06.1") > header.index("out_of")


# ------------------------------------------------------------------ what the student reads


@pytest.mark.parametrize("exercise_id, form, answer", [
    ("02.2", 'a list of claim names, like ["data-web-0"]', None),            # from: pvcs
    ("06.1", 'a list of pod names, like ["web-0"]', None),                   # from: pods
    ("01.3", 'a claim name in quotes, like "data-web-0"', "www-web-2"),      # from: pod, field: claim
    ("01.1", 'a DNS name in quotes, like "web-7.nginx.default.svc.cluster.local"', None),
    ("03.4", 'a decision like ("create", "web-7") or ("wait", "web-7"), a list of them, or "nothing"', None),
])
def test_the_form_of_an_answer_fits_what_is_asked(exercise_id, form, answer):
    ex = E.get(exercise_id)
    assert ex.answer_format == form
    if answer is not None:                   # a student who follows the form is graded on the answer
        assert ex.score(ex.read(answer)) == ex.points


def test_the_form_for_claims_is_a_claim_name_and_scores_when_followed(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(textwrap.dedent("""\
        id: "C.1"
        question: Three pods; which claims exist?
        scenario:
          cluster: {kubelet: manual}
          objects: [{file: "stsedu:web.yaml"}]
          steps: [settle: {}]
        answer: {kind: pods, from: pvcs}
        why: one claim per pod and template.
        """))
    ex = E.load(f, register_them=False)[0]
    assert ex.answer_format == 'a list of claim names, like ["data-web-0"]'
    assert ex.score(ex.read(["www-web-0", "www-web-1", "www-web-2"])) == 1
    code, out, _ = cli("exercise", "release", "--exercises", str(f), "--out", str(tmp_path / "r.ipynb"))
    assert code == 0 and "a list of claim names" in (tmp_path / "r.ipynb").read_text()
    assert "a list of pod names" not in (tmp_path / "r.ipynb").read_text()


# ------------------------------------------------------------------ authoring


SHOWN = textwrap.dedent("""\
    id: "S.1"
    question: Five Ready pods, partition 3, new image, settled. Which pods run revision 2?
    scenario:
      cluster: {kubelet: manual}
      objects:
        - {file: "stsedu:web.yaml", patch: {spec: {replicas: 5, minReadySeconds: 0,
            updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 3}}}}}
      steps: [settle: {}, set_image: "registry.k8s.io/nginx-slim:0.21", settle: {}]
    answer: {kind: pods, from: pods, where: {revision: 2}}
    why: the partition.
    """)


def test_release_and_check_warn_when_the_situation_shows_the_answer(tmp_path):
    f = tmp_path / "s1.yaml"
    f.write_text(SHOWN)
    warning = (f"warning: {f}: line 9: answer: the answer is read from the state the situation table shows "
               "(pods by revision, no reveal steps): a release would print it; add reveal steps, or ask "
               "about what happens next")
    code, out, err = cli("exercise", "check", str(f))
    assert code == 0 and warning in err
    code, out, err = cli("exercise", "release", "--exercises", str(f), "--out", str(tmp_path / "r.ipynb"))
    assert code == 0 and warning in err
    # the same question asked with reveal steps: the situation is before them, no warning
    g = tmp_path / "s2.yaml"
    g.write_text(SHOWN.replace('"registry.k8s.io/nginx-slim:0.21", settle: {}]',
                               '"registry.k8s.io/nginx-slim:0.21"]\nreveal: [settle: {}]').replace("S.1", "S.2"))
    code, out, err = cli("exercise", "check", str(g))
    assert code == 0 and "warning" not in err, err
    # a field the table does not show (the claim's name) is not a warning either
    assert "warning" not in cli("exercise", "check", str(Path(E.get("01.3").source)), "--override")[2]


def test_an_exercise_file_with_a_key_twice_is_refused_as_a_manifest_is(tmp_path):
    f = tmp_path / "dup.yaml"
    f.write_text(ROLLING.replace("why: SECRET-WHY-1", "why: first why\nwhy: SECRET-WHY-1"))
    with pytest.raises(E.ExerciseError) as err:
        E.load(f, register_them=False)
    assert str(err.value) == f'{f}: line 10: not valid YAML: key "why" already set in map'
    # nested, inside the scenario
    g = tmp_path / "dup2.yaml"
    g.write_text(ROLLING.replace("cluster: {kubelet: manual}", "cluster: {kubelet: manual, kubelet: auto}"))
    code, _, err = cli("exercise", "check", str(g))
    assert code == 2 and 'line 4: not valid YAML: key "kubelet" already set in map' in err
    # the manifests' own words, for comparison
    import stsedu
    with pytest.raises(Exception, match='key "kind" already set in map'):
        stsedu.Cluster().apply("kind: Pod\nkind: Pod\n")


@pytest.mark.parametrize("where, problem", [
    ("{revision: [1, 2]}", "answer.where.revision: must be a revision number (a whole number), not a list"),
    ("{revision: true}", "answer.where.revision: must be a revision number (a whole number), not a boolean"),
    ("{ready: yes please}", "answer.where.ready: must be true or false, not a string"),
    ("{terminating: 1}", "answer.where.terminating: must be true or false, not an integer"),
    ("{phase: 3}", "answer.where.phase: must be one of Pending, Running, Succeeded, Failed, not 3"),
    ("{phase: Runing}", "answer.where.phase: must be one of Pending, Running, Succeeded, Failed, not 'Runing'"),
    ("{image: [a]}", "answer.where.image: must be an image name (a string), not a list"),
])
def test_a_where_value_of_the_wrong_type_is_refused(tmp_path, where, problem):
    f = tmp_path / "w.yaml"
    f.write_text(PARTITION.replace("where: {revision: 2}", f"where: {where}"))
    with pytest.raises(E.ExerciseError) as err:
        E.load(f, register_them=False)
    assert str(err.value) == f"{f}: line 16: {problem}"


def test_a_key_that_cannot_replay_leaves_no_key_folder_behind(tmp_path):
    """An exercise whose scenario is a file beside it cannot replay from the key folder: ``stsedu
    nbgrader`` refuses it, and leaves neither ``stsedu-key/`` nor a half-written key in the course."""
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING})
    (folder / "sc.yaml").write_text(textwrap.dedent("""\
        cluster: {kubelet: manual}
        objects:
          - {file: "stsedu:web.yaml", patch: {spec: {replicas: 4}}}
        steps: [settle: {}, set_image: "registry.k8s.io/nginx-slim:0.21"]
        """))
    (folder / "t2.yaml").write_text(ROLLING.replace('id: "T.1"', 'id: "T.2"').replace(
        ROLLING[ROLLING.index("scenario:"):ROLLING.index("answer:")], "scenario: sc.yaml\n"))
    course = tmp_path / "course"
    code, _, err = cli("nbgrader", "--exercises", str(folder / "t1.yaml"), "--exercises", str(folder / "t2.yaml"),
                       "--out", str(course / "source" / "ps1" / "ps1.ipynb"))
    assert code == 2 and "exercise T.2 cannot be replayed from the key folder" in err
    assert not (course / "stsedu-key").exists()
