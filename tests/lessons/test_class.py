"""A class, end to end, as docs/teaching.md tells a teacher to run it (issue #31).

The teacher writes three exercises, runs the documented commands (the ``sh`` blocks that
docs/teaching.md marks ``<!-- class-test: NAME -->``, read from the doc, so the doc is this
test's script), releases the assignment and grades it; students are played with the calls
their notebook makes: an honest one, a cheater (expected(), question().act, every released
file), a retrier, a malformed file, an unknown id, an empty file.  Without nbgrader, then with
nbgrader's own pipeline.  Also: the lesson plan uses only what the repository has, and the
answer sheet asks situations no earlier cell shows.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

import stsedu
import stsedu.lessons.exercises as E
from stsedu.lessons.exercises import kinds as K
from stsedu.lessons.exercises import variants as V
from stsedu.lessons.exercises.modes import grading
from teacher_files import PARTITION, ROLLING, SEQUENCE

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "teaching.md"

EXERCISES = {"t1-rolling.yaml": ROLLING, "t2-sequence.yaml": SEQUENCE, "t3-partition.yaml": PARTITION}
SECRETS = ("SECRET", "scenario", "reveal", "next_sync", "sequence", "set_image", "nginx-slim:0.21",
           "stsedu:web.yaml", "stsedu-key")
# The answers upstream's rules give: maxUnavailable 1 deletes one pod; OrderedReady creates the
# next ordinal only once the previous is Running and Ready; the partition updates ordinals >= 3.
RIGHT = {"T.1": "1", "T.2": '[("create", "web-2"), ("wait", "web-2"), ("create", "web-3"), ("wait", "web-3")]',
         "T.3": '["web-3", "web-4"]'}
POINTS = {"T.1": 1, "T.2": 2, "T.3": 2}


# ------------------------------------------------------------------ running the doc's commands


def doc_block(name: str) -> list[str]:
    """The command lines of the ``sh`` block that docs/teaching.md marks ``<!-- class-test: name -->``."""
    m = re.search(rf"<!-- class-test: {re.escape(name)} -->\n```sh\n(.*?)```", DOC.read_text(), re.S)
    assert m, f"docs/teaching.md has no sh block marked class-test: {name}"
    return [line.split("#")[0].strip() for line in m.group(1).splitlines() if line.split("#")[0].strip()]


class Shell:
    """Runs the doc's lines as a shell would: ``&&``, ``cd``, ``rm -r``, globs; ``stsedu`` and
    ``nbgrader`` are this Python's; ``pip install`` is what the test environment already did."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{self.env.get('PYTHONPATH', '')}"
        self.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{self.env.get('PATH', '')}"
        self.log = ""

    def run(self, lines: list[str], replace: dict[str, str] | None = None) -> str:
        out = ""
        for line in lines:
            for old, new in (replace or {}).items():
                line = line.replace(old, new)
            for part in line.split("&&"):
                out += self.one(shlex.split(part))
        self.log += out
        return out

    def one(self, argv: list[str]) -> str:
        words = []
        for a in argv:
            hits = sorted(glob.glob(str(self.cwd / a))) if "*" in a else []
            words += [os.path.relpath(h, self.cwd) for h in hits] if hits else [a]
        cmd, args = words[0], words[1:]
        if cmd == "cd":
            self.cwd = (self.cwd / args[0]).resolve()
            return ""
        if cmd == "rm" and args[0] == "-r":
            for a in args[1:]:
                shutil.rmtree(self.cwd / a)
            return ""
        if cmd == "pip":
            assert args[:1] == ["install"]
            pytest.importorskip(args[1])
            return ""
        assert cmd in ("stsedu", "nbgrader"), f"the doc runs {cmd!r}, which this test does not know"
        done = subprocess.run([sys.executable, "-m", cmd, *args], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(words)}:\n{done.stdout}{done.stderr}"
        return done.stdout + done.stderr


@pytest.fixture
def teacher(tmp_path) -> Path:
    """A teacher's folder holding my-exercises/ with three exercise files."""
    folder = tmp_path / "my-exercises"
    folder.mkdir()
    for name, text in EXERCISES.items():
        (folder / name).write_text(text)
    return tmp_path


def released_text(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


CHEAT = textwrap.dedent("""\
    import glob, os, re
    def attempt(f):
        try:
            return f()
        except Exception as e:
            return type(e).__name__
    got = {i: attempt(lambda i=i: stsedu.exercises.get(i).expected()) for i in ("T.1", "T.2", "T.3")}
    got["act"] = attempt(lambda: stsedu.labs.question("06.a").act)
    text = "".join(open(p, errors="replace").read() for p in glob.glob(RELEASE + "/**", recursive=True)
                   if os.path.isfile(p))
    print("CHEATER", got, [s for s in SECRETS if s in text])
    """)


def student(release: Path, home: Path, name: str, answers: dict[str, list[str]], extra: str = "") -> str:
    """A student runs the released notebook (without nbgrader) top to bottom in a fresh Python,
    writing each of *answers* in turn into the exercise's cell and running it again."""
    nb = nbformat.read(release, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    script = [code[0], extra]
    for cell in code[1:-1]:
        ex_id = re.search(r"sheet\.answer\('([^']+)'", cell).group(1)
        script.append(cell)
        for value in answers.get(ex_id, []):
            script.append(cell.replace("answer = None", f"answer = {value}", 1))
    script.append(code[-1].replace('student=""', f"student={name!r}"))
    home.mkdir(parents=True)
    done = subprocess.run([sys.executable, "-c", "\n".join(script)], cwd=home, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "", "HOME": str(home)})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def grades(path: Path) -> dict[str, dict]:
    return {Path(r["file"]).parent.name: r for r in csv.DictReader(path.open())}


@pytest.mark.slow
def test_an_assessed_class_without_nbgrader(teacher):
    """release -> six students -> stsedu grade under each policy -> the CSV and the summary."""
    sh = Shell(teacher)
    out = sh.run(doc_block("release"))
    assert "exercise T.2 (decisions, 2 pt)" in out and "assessed notebook (3 exercises, 5 points)" in out
    release = teacher / "release" / "ps1.ipynb"
    assert not [s for s in SECRETS if s in released_text(teacher / "release")]

    subs = teacher / "submissions"
    secrets = f"RELEASE = {str(teacher / 'release')!r}\nSECRETS = {SECRETS!r}\n"
    ada = student(release, subs / "ada", "Ada", {k: [v] for k, v in RIGHT.items()})
    assert ada.count("answer recorded") == 3 and "✓" not in ada and "SECRET" not in ada
    # the cheater: expected() and question().act give nothing, the released file holds nothing;
    # she answers from what the release shows (every pod of the situation, how many there are)
    eve = student(release, subs / "eve", "Eve", {"T.1": ["4"], "T.3": ['["web-0", "web-1", "web-2", "web-3", '
                                                                        '"web-4"]']}, extra=secrets + CHEAT)
    line = next(x for x in eve.splitlines() if x.startswith("CHEATER"))
    assert line.startswith("CHEATER {'T.1': 'KeyError', 'T.2': 'KeyError', 'T.3': 'KeyError', 'act': <")
    assert line.endswith("} []")           # a lesson's question (the practice set) answers; nothing released
    # the retrier changes two answers (wrong, then right) and leaves T.2 out
    student(release, subs / "rita", "Rita", {"T.1": ["4", "1"], "T.3": ['["web-0", "web-1", "web-2"]', RIGHT["T.3"]]})
    (subs / "mal").mkdir()
    (subs / "mal" / "my-answers.json").write_text('{"student": "Mal", "answers": {"T.1": 1,}')
    student(release, subs / "uri", "Uri", {"T.1": [RIGHT["T.1"]]})
    data = json.loads((subs / "uri" / "my-answers.json").read_text())
    data["answers"]["Z.9"] = 3                                 # an id the assignment does not have
    (subs / "uri" / "my-answers.json").write_text(json.dumps(data))
    (subs / "emma").mkdir()
    (subs / "emma" / "my-answers.json").write_text("")

    expected_totals = {"last": {"ada": "5", "eve": "0", "rita": "3", "uri": "1"},
                       "first": {"ada": "5", "eve": "0", "rita": "0", "uri": "1"},
                       "penalty": {"ada": "5", "eve": "0", "rita": "2.25", "uri": "1"}}
    for policy, totals in expected_totals.items():
        out = sh.run(doc_block("grade"), replace={"--policy last": f"--policy {policy}"})
        rows = grades(teacher / "scores.csv")
        assert set(rows) == {"ada", "eve", "rita", "mal", "uri", "emma"}
        assert {k: r["total"] for k, r in rows.items() if r["status"] != "malformed"} == totals, policy
        assert all(r["out_of"] == "5" for r in rows.values())
        assert {r["policy"] for r in rows.values()} == {{"last": "last attempt", "first": "first attempt",
                                                         "penalty": "penalty 0.25 of the points per retry"}[policy]}
    # last policy (the doc's), row by row
    out = sh.run(doc_block("grade"))
    rows = grades(teacher / "scores.csv")
    assert [(rows["ada"][k], rows["eve"][k], rows["rita"][k]) for k in POINTS] == \
        [("1", "0", "1"), ("2", "0", "0"), ("2", "0", "2")]
    assert (rows["ada"]["student"], rows["ada"]["status"], rows["rita"]["status"]) == ("Ada", "ok", "partial")
    assert [rows["rita"][f"attempts {k}"] for k in POINTS] == ["2", "0", "2"]
    assert "SECRET-HINT-1" in rows["eve"]["misses"] and "SECRET-WHY-3" in rows["eve"]["misses"]
    assert (rows["mal"]["status"], rows["mal"]["total"], rows["mal"]["student"]) == ("malformed", "", "(no name)")
    assert rows["mal"]["misses"].startswith("not JSON (line 1")
    assert (rows["emma"]["status"], rows["emma"]["misses"]) == (
        "malformed", "empty file (0 bytes): no answers were saved into it")
    assert "answers to unknown exercises ignored: Z.9" in rows["uri"]["misses"]
    # the summary says the same as the CSV
    summary = {m.group(2): (m.group(1), m.group(3)) for m in
               (re.match(r"(.+?) +(submissions/\w+/my-answers\.json) +(\S+ +\S+)", line) for line in out.splitlines())
               if m}
    assert summary["submissions/ada/my-answers.json"] == ("Ada", "5/5       ok")
    assert summary["submissions/mal/my-answers.json"] == ("(no name)", "-         malformed:")
    assert "Policy: last attempt." in out
    assert "submissions/uri/my-answers.json: Uri: 1/5 (2 unanswered: T.2, T.3; answers to unknown exercises " \
           "ignored: Z.9)" in out




def fill(released: Path, submitted: Path, answers: dict[str, str]) -> None:
    """What a student does in nbgrader's release: replace each answer cell's stub with an assignment."""
    nb = nbformat.read(released, as_version=4)
    for cell in nb.cells:
        for ex_id, value in answers.items():
            var = "answer_" + ex_id.replace(".", "_")
            if cell.cell_type == "code" and cell.source.startswith(f"# {var} ="):
                cell.source = cell.source.replace("raise NotImplementedError()", f"{var} = {value}")
    submitted.parent.mkdir(parents=True)
    nbformat.write(nb, submitted)


@pytest.mark.slow
def test_an_assessed_class_with_nbgrader(teacher):
    """The doc's nbgrader commands: quickstart, release, three students, autograde, export, feedback."""
    pytest.importorskip("nbgrader")
    sh = Shell(teacher)
    out = sh.run(doc_block("nbgrader-release"))
    assert "nbgrader source notebook (3 exercises, 5 points)" in out
    course = sh.cwd
    released = course / "release" / "ps1" / "ps1.ipynb"
    assert not [s for s in SECRETS if s in released_text(course / "release")]
    assert sorted(p.name for p in (course / "stsedu-key" / "ps1").iterdir()) == ["T_1.yaml", "T_2.yaml", "T_3.yaml"]

    fill(released, course / "submitted" / "ada" / "ps1" / "ps1.ipynb", RIGHT)
    # bob: the sequence's first step only, then a wrong one (1 of 4 steps: 0.5 of 2 points); T.3 wrong
    fill(released, course / "submitted" / "bob" / "ps1" / "ps1.ipynb",
         {"T.1": "4", "T.2": '[("create", "web-2"), ("create", "web-3")]', "T.3": '["web-0", "web-1", "web-2"]'})
    fill(released, course / "submitted" / "eve" / "ps1" / "ps1.ipynb",
         {"T.1": 'stsedu.exercises.get("T.1").expected()', "T.2": 'stsedu.labs.question("03.a").act(None)',
          "T.3": 'stsedu.exercises.get("06.1").expected()'})
    log = sh.run(doc_block("nbgrader-grade"))
    rows = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert {k: (float(r["score"]), float(r["max_score"])) for k, r in rows.items()} == {
        "ada": (5.0, 5.0), "bob": (0.5, 5.0), "eve": (0.0, 5.0)}
    # the only "has changed" lines are nbgrader putting each hidden test back: one per exercise and student
    changed = re.findall(r"Attribute '(\w+)' for cell (\w+) has changed", log)
    assert sorted(set(changed)) == [("checksum", "check_T_1"), ("checksum", "check_T_2"), ("checksum", "check_T_3")]
    assert len(changed) == 9
    feedback = (course / "feedback" / "bob" / "ps1" / "ps1.html").read_text()
    assert "SECRET-HINT-1" in feedback and "SECRET-WHY-3" in feedback
    assert "(0.5 of 2 points: the start of your sequence is right)" in feedback
    eve = (course / "autograded" / "eve" / "ps1" / "ps1.ipynb").read_text()
    assert "AssessedModeError" in eve or "KeyError" in eve


# ------------------------------------------------------------------ the lesson plan


def plan_rows(heading: str) -> list[list[str]]:
    text = DOC.read_text()
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| min") and not line.startswith("|---")]


def notebook_source(nn: str) -> str:
    (path,) = (ROOT / "tools" / "notebooks").glob(f"{nn}-*.py")
    return path.read_text()


def sheet_ids() -> list[str]:
    return re.findall(r'stsedu\.exercises\.get\("([^"]+)"\)', notebook_source("13"))


def test_the_plans_use_only_notebooks_and_questions_in_the_repo():
    """Every notebook a block names exists; every question it stops at is asked in that notebook."""
    readme = (ROOT / "README.md").read_text()
    names = {nn: title for nn, title, path in re.findall(r"\| (\d\d) \| \[([^\]]+)\]\((notebooks/[^)]+)\)", readme)
             if (ROOT / path).is_file()}
    for heading in ("A 90-minute lesson", "A 45-minute lesson"):
        rows = plan_rows(heading)
        assert rows[0][1].startswith("Setup") or rows[0][1].startswith("**Setup")
        for row in rows:
            for nn, title in re.findall(r"\b(\d\d) ([A-Z][a-z]+(?: [a-z]+)*)", row[1]):
                assert nn in names and names[nn].lower().startswith(title.lower()), (nn, title)
            for q in re.findall(r"\b(\d\d\.[a-z])\b", row[-1]):
                assert f'reveal("{q}"' in notebook_source(q[:2]), q
        spans = [tuple(int(x) for x in r[0].split("–")) for r in rows]
        assert spans[0][0] == 0 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        assert spans[-1][1] == int(heading.split()[1].split("-")[0])


def situation(cluster) -> tuple:
    """The state a learner reasons about: the set's spec and each pod's phase, readiness and revision."""
    sets = cluster.statefulsets()
    revs = {r.name: r.revision for r in cluster.revisions(sets[0].name)} if sets else {}
    spec = (lambda s: (s.replicas, s.pod_management_policy, s.update_strategy, s.partition, s.start_ordinal))(
        sets[0].spec) if sets else "no set"
    return (spec, tuple((p.name, p.phase, p.ready, p.terminating, revs.get(p.revision)) for p in cluster.pods()))


def test_the_answer_sheet_asks_new_situations():
    """Notebook 13's sheet: exercises in the repo, from the notebooks the 90-minute plan covers (one
    extra), that no notebook before it names and whose situation no question of the series sets up."""
    from stsedu.widgets.predict import QUESTIONS
    ids = sheet_ids()
    assert len(ids) == 8 and all(E.get(i) in E.EXERCISES for i in ids)
    covered = {nn for row in plan_rows("A 90-minute lesson") for nn in re.findall(r"\b(\d\d) [A-Z]", row[1])}
    assert len([i for i in ids if i[:2] not in covered]) <= 1
    plan = DOC.read_text().split("## A 90-minute lesson", 1)[1].split("\n## ", 1)[0]
    assert ", ".join(i for i in ids if i[:2] in covered) in plan
    earlier = "".join(notebook_source(f"{n:02d}") for n in range(13))
    for i in ids:
        assert f'"{i}"' not in earlier, i
    seen = {situation(q.setup()) for q in QUESTIONS.values() if q.id[:2] <= "13"}
    for i in ids:
        assert situation(E.get(i).cluster()) not in seen, i


def test_each_misconception_names_a_cell_that_exists():
    rows = [r for r in plan_rows("Misconceptions, and the cell that addresses each") if "question" in r[-1]]
    assert len(rows) >= 12
    for row in rows:
        nn, q = re.fullmatch(r"(\d\d) [A-Za-z ]+, question (\d\d\.[a-z])", row[-1]).groups()
        assert q.startswith(nn) and f'reveal("{q}"' in notebook_source(nn), row
    assert "behaviour.md#8-easy-to-get-wrong" in DOC.read_text()
    assert "## 8. Easy to get wrong" in (ROOT / "docs" / "behaviour.md").read_text()


def test_the_lessons_grade_command_grades_its_sheet_without_the_early_finishers_item(tmp_path):
    """The 90-minute plan's exact command: the seven exercises of its blocks, not 09.3 (an extra that
    left most students "partial"); a student who answers those seven is "ok", full marks."""
    plan = DOC.read_text().split("## A 90-minute lesson", 1)[1].split("\n## ", 1)[0]
    (command,) = re.findall(r"```sh\n(stsedu grade .*?)\n```", plan)
    argv = shlex.split(command)
    ids = argv[argv.index("--ids") + 1:argv.index("--policy")]
    covered = {nn for row in plan_rows("A 90-minute lesson") for nn in re.findall(r"\b(\d\d) [A-Z]", row[1])}
    assert ids == [i for i in sheet_ids() if i[:2] in covered] and "09.3" not in ids and len(ids) == 7
    sheet = E.AnswerSheet("Ada")
    for i in ids:
        sheet.check(i, E.get(i).expected())
    (tmp_path / "submissions" / "ada").mkdir(parents=True)
    sheet.save(tmp_path / "submissions" / "ada" / "my-answers.json")
    Shell(tmp_path).run([command])
    (row,) = csv.DictReader((tmp_path / "scores.csv").open())
    assert row["status"] == "ok" and row["total"] == row["out_of"] == str(sum(E.get(i).points for i in ids))


def test_the_misconception_about_an_unhealthy_pod_is_what_the_controller_does():
    """Upstream's processCondemned: condemned pods go highest ordinal first, and a not-Ready condemned
    pod does not hold the scale-down back when it is the first unhealthy pod; processReplica waits on
    a pod that stays.  With web-3 not Ready, 5 -> 2 deletes web-4 first; with web-1, it waits on web-1."""
    row = next(r for r in plan_rows("Misconceptions, and the cell that addresses each") if "scale-down" in r[0])
    assert "with web-3 not Ready, 5 → 2 deletes web-4 first" in row[1] and "waits on web-1" in row[1]
    first = {}
    for unready in ("web-3", "web-1"):
        c = stsedu.Cluster(kubelet="manual")
        c.apply(stsedu.examples.web(5))
        c.settle("web")
        c.kubelet.set_unready(unready)
        c.scale("web", 2)
        first[unready] = next((d.action, d.pod, d.rule.split(":")[0]) for d in c.sync("web").decisions
                              if d.pod is not None)
    assert first == {"web-3": ("delete", "web-4", "processCondemned"),
                     "web-1": ("wait", "web-1", "processReplica")}


def test_the_lab_in_the_doc_works():
    """The "Writing a new lab" example, run as written, then moved as a test would move it."""
    pytest.importorskip("ipywidgets")
    code = DOC.read_text().split("## Writing a new lab", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(compile(code, "teaching.md", "exec"), scope)
    lab = scope["CanaryLab"]()
    lab.set_partition(3)
    lab.set_image("nginx:2")
    revs = {r.name: r.revision for r in lab.cluster.revisions("web")}
    assert [p.name for p in lab.cluster.pods() if revs[p.revision] == 2] == ["web-3"]


def test_projector_mode():
    big = stsedu.display(scale=1.6)
    assert "zoom: 1.6" in big._repr_html_() and "1.6x" in repr(big)
    assert "zoom: normal" in stsedu.display(scale=1)._repr_html_()
    for bad in (0, 10, True, "big"):
        with pytest.raises(ValueError, match="scale: must be a number from 0.5 to 4"):
            stsedu.display(scale=bad)


# ------------------------------------------------------------------ an assessed class with a class record


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(sh: Shell, port: int) -> subprocess.Popen:
    """The doc's ``stsedu class serve`` line, on this machine only and on a free port, in the background."""
    (line,) = doc_block("class-serve")
    argv = shlex.split(line.replace("--host 0.0.0.0", "--host 127.0.0.1").replace("--port 8765", f"--port {port}"))
    assert argv[:3] == ["stsedu", "class", "serve"]
    proc = subprocess.Popen([sys.executable, "-m", "stsedu", *argv[1:]], cwd=sh.cwd, env=sh.env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for out in proc.stdout:
        if out.startswith("listening on"):
            return proc
    pytest.fail(f"the service did not start: {proc.wait()}")


def stop_service(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)              # how JupyterHub stops a service
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 0, rest
    return rest


@pytest.mark.slow
def test_an_assessed_class_with_a_class_record(tmp_path):
    """The doc's class plan, command by command: prepare (check, add-students, release), serve,
    four students answer in their own notebooks (posting to the service), the service is stopped
    and started mid-class, then export and grade from the record.  Ada answers right; Eve answers
    wrong, then edits her file to the right answers; Cy hands in Ada's answers (another variant);
    Dee's notebook cannot reach the service (her file counts, marked)."""
    shutil.copytree(ROOT / "docs" / "assessed-set", tmp_path / "docs" / "assessed-set")
    (tmp_path / "roster.csv").write_text("student,email\nAda,a@x.invalid\nEve,e@x.invalid\nCy,c@x.invalid\n"
                                         "Dee,d@x.invalid\n")
    sh = Shell(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out = sh.run(doc_block("class-prepare"), replace={"http://HOST:8765": url})
    assert "4 student(s) added" in out and "4 assessed notebooks (8 exercises;" in out
    exs = E.load(tmp_path / "docs" / "assessed-set", register_them=False)
    assert len(exs) >= 8 and all(e.parameters for e in exs)

    def answers(name: str) -> dict:
        """The simulator's answers to *name*'s variants, on the teacher's side."""
        with grading():
            return {e.id: K.jsonable(e.variant(name).expected_answer()) for e in exs}

    def right(name: str) -> dict[str, list[str]]:
        return {k: [repr(v)] for k, v in answers(name).items()}

    def release(name: str) -> Path:
        return tmp_path / "release" / name / "test1.ipynb"
    for name in ("Ada", "Eve", "Cy", "Dee"):
        text = release(name).read_text()
        tokens = re.findall(r"token='([^']+)'", text)
        assert len(tokens) == 1 and url in text and "SECRET" not in text and "scenario" not in text
    subs = tmp_path / "submissions"
    service = start_service(sh, port)
    try:
        ada = student(release("Ada"), subs / "Ada", "Ada", right("Ada"))
        assert ada.count("recorded by the class at") == 8 and "NOT recorded" not in ada
        rest = stop_service(service)                       # stopped mid-class, started again
        assert "stopped; every recorded attempt is in the class record" in rest
        service = start_service(sh, port)
        wrong = {"A.4": ['["web-0"]'], "A.6": ["0"], "A.8": ["0"]}
        eve = student(release("Eve"), subs / "Eve", "Eve", wrong)
        assert eve.count("recorded by the class at") == 3
        cy = student(release("Cy"), subs / "Cy", "Cy", right("Ada"))        # the neighbour's answers
        assert cy.count("recorded by the class at") == 8
        dead = release("Dee").read_text().replace(url, f"http://127.0.0.1:{free_port()}")
        release("Dee").write_text(dead)
        dee = student(release("Dee"), subs / "Dee", "Dee", right("Dee"))
        assert dee.count("kept in your file only, NOT recorded by the class") == 8
        assert "8 answer(s) are NOT recorded by the class" in dee and "hand in this file" in dee
        assert "The class has recorded every answer; the file is your receipt." in ada
    finally:
        stop_service(service)
    # Eve edits her own file: every answer right, each one attempt
    data = json.loads((subs / "Eve" / "my-answers.json").read_text())
    data["attempts"] = {k: [{"answer": v, "at": "2026-01-01T00:00:00"}] for k, v in answers("Eve").items()}
    (subs / "Eve" / "my-answers.json").write_text(json.dumps(data))

    out = sh.run(doc_block("class-grade"))
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "scores.csv").open(newline=""))}
    assert {k: (r["source"], r["total"]) for k, r in rows.items()} == {
        "Ada": ("class record", "10"), "Eve": ("class record", "0"), "Cy": ("class record", rows["Cy"]["total"]),
        "Dee": ("file, not recorded by the class", "10")}
    assert float(rows["Cy"]["total"]) < 10                 # copied answers score on Cy's own variants only
    assert "file not used, the class record is: submissions/Eve/my-answers.json" in rows["Eve"]["misses"]
    assert "graded from the student's file, not recorded by the class" in out
    assert all(rows["Ada"][f"variant {e.id}"] == V.describe(e.variant("Ada").values) for e in exs)
    attempts = list(csv.DictReader((tmp_path / "attempts.csv").open(newline="")))
    assert [(a["student"], a["exercise"]) for a in attempts][:8] == [("Ada", e.id) for e in sorted(exs, key=lambda e: e.id)]
    assert len(attempts) == 8 + 3 + 8 and {a["student"] for a in attempts} == {"Ada", "Eve", "Cy"}
    feedback = (tmp_path / "feedback" / "Eve" / "feedback.md").read_text()
    assert feedback.startswith("# Feedback for Eve\n\n0 of 10 points") and "graded from the class record" in feedback
    with grading():
        a4 = [e for e in exs if e.id == "A.4"][0].variant("Eve")
        assert a4.question in feedback and a4.why in feedback
