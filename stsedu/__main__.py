"""The terminal entry point: ``python -m stsedu`` or the ``stsedu`` command.

* ``stsedu`` (no arguments): the concept page's web/nginx example, run to
  stability with the auto kubelet, printed as it happens;
* ``stsedu run SCENARIO [--trace FILE [--force]]``: replay a scenario file
  (or a shipped scenario by name), print it, check its expectations;
* ``stsedu list``: the shipped scenarios; ``stsedu show NAME``: one's YAML;
* ``stsedu kubectl COMMAND...``: kubectl against an embedded cluster kept between calls
  (``stsedu kubectl reset`` starts a new one; see :mod:`stsedu.console.cli`);
* ``stsedu live build|up|down|status|run``: a real control plane beside the kit (docs/live.md).

Exit status (:data:`EXIT_OK` ...): 0 every expectation held; 1 an expectation
failed; 2 the scenario is invalid (or a step was refused); 3 the trace file
cannot be written (a directory, a missing folder, a full device, an existing
file without ``--force``, or the scenario itself).

For teachers (exercises: ``docs/teaching.md``):

* ``stsedu exercise check FILE...``: validate exercise files (errors name the
  line), run each one and print the answer the simulator computes;
* ``stsedu exercise list [--exercises DIR]``: the exercises with their kinds and points;
* ``stsedu exercise key --out key.html``: the answer key (.html or .ipynb), never
  inside the students' notebooks/ folder;
* ``stsedu exercise release --out ps1.ipynb [--students roster.csv]``: an assessed students'
  notebook (no nbgrader), or one per student with each one's variant of exercises with parameters;
* ``stsedu grade SUBMISSIONS... --policy first|last|penalty --out scores.csv``: grade answer files;
* ``stsedu nbgrader --out source/ps1/ps1.ipynb``: an assessed nbgrader source notebook;
* ``stsedu class add-students roster.csv --data class/``, ``stsedu class serve --data class/ ...``,
  ``stsedu class export``: a class record that takes each attempt as the student makes it
  (:mod:`stsedu.lessons.classroom`); ``release --students ... --class class/ --url URL`` writes
  each student's token into their notebook, ``grade --class class/`` grades from the record.

``stsedu grade`` exits 1 when no answer file could be graded (every one malformed), 2 for a
bad option or answers to ids that no shipped exercise has without ``--exercises``, 3 for an
``--out`` that cannot or must not be written (one of the inputs).

``--exercises PATH`` (a file or a folder, repeatable) adds your exercises to the
shipped ones; ``--ids ID...`` picks the assignment from both (without it: your
files, or the shipped set if you give none); ``--only`` leaves the shipped set
out; ``--override`` lets your file replace a shipped exercise of the same id.

What is printed for each step: the step, then, in the order they happened,
each sync's decisions (``sync 3 at 14s``) and the pods' changes as
``kubectl get pods --watch`` lines; at the end
``kubectl get sts``, ``get pods`` and ``get pvc``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
import textwrap
from typing import TextIO

from . import __version__
from .lessons import scenarios as _scenarios
from .files import OutputError, check_output, write_output
from .trace import POD_COLUMNS

EXIT_OK, EXIT_EXPECTATION_FAILED, EXIT_INVALID_SCENARIO, EXIT_OUTPUT_ERROR = 0, 1, 2, 3
"""The exit statuses of ``stsedu run`` (documented in docs/scenarios.md)."""

DEMO = "first-statefulset"
"""The shipped scenario ``stsedu`` runs without arguments (web.yaml, auto kubelet, until stable)."""


EXIT_BROKEN_PIPE = 141
"""What ``stsedu ... | head`` exits with once the reader has gone (128 + SIGPIPE, as a
program the signal ends): quietly, without a traceback."""


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line *argv* (default ``sys.argv[1:]``), printing to *out*; returns the exit status."""
    out = out or sys.stdout
    try:
        return _main(argv, out)
    except BrokenPipeError:
        # the reader of our output is gone: say nothing more, and keep Python's exit-time
        # flush of stdout from printing a traceback about it
        if out is sys.__stdout__:
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
            except (OSError, ValueError):
                pass
        return EXIT_BROKEN_PIPE


def _main(argv: list[str] | None, out: TextIO) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["kubectl"]:  # kubectl's own flags: not argparse's business
        from .console.cli import main as kubectl_main
        return kubectl_main(argv[1:], out)
    parser = argparse.ArgumentParser(
        prog="stsedu", description="Watch the Kubernetes StatefulSet controller decide, one sync at a time. "
        "Without a command: run the concept page's web/nginx example until it settles.")
    parser.add_argument("--version", action="version", version=f"stsedu {__version__}")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="replay a scenario file (or a shipped scenario by name)")
    run.add_argument("scenario", help="path to a scenario .yaml, or the name of a shipped one")
    run.add_argument("--trace", metavar="FILE", help="write the trace to FILE (.jsonl, or .parquet with pyarrow)")
    run.add_argument("--force", action="store_true",
                     help="let --trace replace an existing file (never the scenario itself)")
    run.add_argument("-q", "--quiet", action="store_true", help="print only the steps and expectation results")
    sub.add_parser("list", help="list the shipped scenarios")
    show = sub.add_parser("show", help="print a shipped scenario's YAML (to copy and edit)")
    show.add_argument("name")
    _teacher_commands(sub)
    from .live import cli as _live_cli  # light: the Kubernetes client loads only when a live command runs
    _live_cli.add_parser(sub)
    args = parser.parse_args(argv)

    try:
        if args.command == "list":
            return _list(out)
        if args.command == "show":
            text = _scenarios.load(args.name).to_text()
            out.write(text if text.endswith("\n") else text + "\n")
            return 0
        if args.command == "run":
            return run_scenario(args.scenario, out, trace_path=args.trace, quiet=args.quiet,
                                force=args.force)
        if args.command in ("exercise", "grade", "nbgrader", "class"):
            from .lessons.exercises.modes import grading
            with grading():        # the teacher's side, even where STSEDU_MODE=assessed is set
                return _teacher(args, out, parser)
        if args.command == "live":
            return _live_cli.main(args, out)
        return run_scenario(DEMO, out)
    except _scenarios.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_SCENARIO
    except TraceFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_OUTPUT_ERROR


# ================================================================= teachers


def _selection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exercises", metavar="PATH", action="append",
                   help="your exercise file or folder, added to the shipped exercises (repeatable)")
    p.add_argument("--ids", metavar="ID", nargs="+",
                   help="these exercises, in this order (default: those of --exercises, else the shipped set)")
    p.add_argument("--only", action="store_true", help="use only the --exercises files, not the shipped set")
    p.add_argument("--override", action="store_true",
                   help="let an exercise of yours replace the shipped exercise with the same id")


def _teacher_commands(sub) -> None:
    ex = sub.add_parser("exercise", help="teachers: check exercise files, list them, write the answer key")
    exsub = ex.add_subparsers(dest="exercise_command")
    check = exsub.add_parser("check", help="validate exercise files and show the computed answers")
    check.add_argument("files", nargs="+", metavar="FILE", help="exercise .yaml files or folders")
    check.add_argument("--override", action="store_true",
                       help="allow ids of shipped exercises (your file replaces the shipped one)")
    lst = exsub.add_parser("list", help="list exercises (id, notebook, kind, points, question)")
    _selection_args(lst)
    key = exsub.add_parser("key", help="write the teacher's answer key (.html or .ipynb)")
    _selection_args(key)
    key.add_argument("--out", required=True, metavar="FILE", help="key.html or key.ipynb")
    grade = sub.add_parser("grade", help="grade students' answer files (JSON from save_answers)")
    grade.add_argument("submissions", nargs="*", metavar="SUBMISSION")
    grade.add_argument("--out", metavar="CSV", help="write the scores to this CSV file")
    grade.add_argument("--policy", choices=("first", "last", "penalty"), default="last",
                       help="which attempt counts: the first, the last (default), or the best less a "
                            "penalty per retry")
    grade.add_argument("--penalty", type=float, default=0.25, metavar="SHARE",
                       help="with --policy penalty: the share of an exercise's points lost per retry "
                            "(default 0.25)")
    _selection_args(grade)
    rel = exsub.add_parser("release", help="write an assessed students' notebook (questions only; no nbgrader)")
    _selection_args(rel)
    rel.add_argument("--out", required=True, metavar="FILE", help="e.g. release/ps1.ipynb")
    rel.add_argument("--title", default="StatefulSet assignment")
    rel.add_argument("--students", metavar="ROSTER",
                     help="one notebook per student (a name per line, or a CSV whose first column is the name), "
                          "each with the student's own variant of exercises with parameters: "
                          "OUT's folder/<student>/OUT's name")
    rel.add_argument("--class", dest="record", metavar="DATA",
                     help="with --students: each notebook posts its answers to this class record "
                          "(stsedu class add-students / serve), with the student's token")
    rel.add_argument("--url", metavar="URL", help="with --class: the address students reach the service at")
    rel.add_argument("--hub", action="store_true", help="with --class: the service knows each student by their "
                     "JupyterHub user (the roster's names; it runs as a hub service): the notebooks carry no token")
    grade.add_argument("--feedback", metavar="DIR",
                       help="write each student's feedback (points, and the rule behind each miss) to "
                            "DIR/<student>/feedback.md")
    grade.add_argument("--class", dest="record", metavar="DATA",
                       help="grade from this class record (stsedu class serve); the files only for students "
                            "it has nothing from")
    grade.add_argument("--nbgrader", metavar="GRADEBOOK",
                       help="also write the grades into this nbgrader gradebook (gradebook.db in the course "
                            "folder): nbgrader export and the formgrader show them; with --assignment")
    grade.add_argument("--assignment", metavar="NAME", help="with --nbgrader: the assignment's name (e.g. test1)")
    from .lessons.classroom import cli as _class_cli
    _class_cli.add_parser(sub, _selection_args)
    nbg = sub.add_parser("nbgrader", help="write an nbgrader source notebook for a set of exercises")
    _selection_args(nbg)
    nbg.add_argument("--out", required=True, metavar="FILE",
                     help="e.g. source/ps1/ps1.ipynb inside an nbgrader course folder")
    nbg.add_argument("--title", default="StatefulSet exercises")


def _nbgrader(exs: list, args, out: TextIO) -> int:
    """An assessed nbgrader source notebook at source/<assignment>/, its key beside source/."""
    from .lessons.exercises import handout as H
    from .lessons.exercises import notebooks as N
    from .lessons.exercises.exercise import ExerciseError
    p = Path(args.out)
    if p.suffix != ".ipynb" or p.parent.parent.name != "source":
        raise ExerciseError("give the notebook's place in an nbgrader course: source/<assignment>/<name>.ipynb",
                            args.out)
    others = sorted(x.name for x in p.parent.glob("*.ipynb") if x.name != p.name) if p.parent.is_dir() else []
    if others:
        raise ExerciseError(f"{p.parent} also holds {', '.join(others)}: nbgrader would grade them too (their "
                            "points would count in max_score). Remove them (nbgrader quickstart puts two "
                            "examples there) or choose another assignment name", args.out)
    course, assignment = p.parent.parent.parent, p.parent.name
    key = f"{H.KEY_DIR}/{assignment}"
    import nbformat
    nb = N.nbgrader_source(exs, args.title, key=key)
    H.write_key(exs, course, assignment)
    p = write_output(args.out, nbformat.writes(nb) + "\n", "--out", make_parents=True)
    out.write(f"nbgrader source notebook ({len(exs)} exercises, {sum(e.points for e in exs)} points) "
              f"written to {p}; the exercises its hidden tests read are in {course / key} (never released)\n"
              f"next: nbgrader generate_assignment {assignment}\n")
    return 0


def _teacher(args, out: TextIO, parser) -> int:
    from .lessons import exercises as E
    from .lessons.exercises import notebooks as N
    try:
        if args.command == "exercise" and args.exercise_command == "check":
            return _check_files(args.files, out, args.override)
        if args.command == "exercise" and args.exercise_command is None:
            parser.parse_args(["exercise", "--help"])
        if args.command == "class":
            from .lessons.classroom import cli as _class_cli
            return _class_cli.main(args, out, read_roster,
                                   lambda a: E.select(a.ids, a.exercises, only=a.only, override=a.override))
        inputs = tuple(getattr(args, "submissions", None) or ()) + _exercise_files(args.exercises)
        if getattr(args, "out", None) is not None:   # before any work: one line, exit 3
            check_output(args.out, "--out", inputs=inputs,
                         make_parents=args.command == "nbgrader" or getattr(args, "exercise_command", None) == "release")
            _refuse_out_in_exercise_folder(args.out, args.exercises)
        exs = E.select(args.ids, args.exercises, only=args.only, override=args.override)
        if args.command == "exercise" and args.exercise_command == "list":
            for e in exs:
                q = e.question if len(e.question) <= 70 else e.question[:67] + "..."
                out.write(f"{e.id:<8}{e.kind:<10}{e.points:>3} pt  {q}\n")
            return 0
        if args.command == "exercise" and args.exercise_command == "key":
            path = N.write_answer_key(exs, args.out)
            out.write(f"answer key for {len(exs)} exercises written to {path}\n")
            return 0
        if args.command == "exercise" and args.exercise_command == "release":
            import nbformat
            from .lessons.exercises import handout as H
            p = Path(args.out)
            if p.suffix != ".ipynb":
                raise E.ExerciseError("write the release to a .ipynb file", args.out)
            for e in exs:
                if e.situation_warning():
                    print(f"warning: {e.situation_warning()}", file=sys.stderr)
            if args.students:
                return _release_per_student(exs, args, out)
            if args.record or args.url:
                raise E.ExerciseError("--class needs --students roster.csv: each student's notebook carries "
                                      "that student's token", "--class")
            nb = H.release_notebook(exs, args.title)
            p = write_output(args.out, nbformat.writes(nb) + "\n", "--out", make_parents=True)
            out.write(f"assessed notebook ({len(exs)} exercises, {sum(e.points for e in exs)} points) written "
                      f"to {p}: hand it out; grade the answer files with stsedu grade ... "
                      f"{' '.join('--exercises ' + x for x in args.exercises or [])}\n")
            return 0
        if args.command == "grade":
            try:
                policy = E.Policy(args.policy, args.penalty)
            except ValueError as e:
                print(f"error: --penalty: {e}", file=sys.stderr)
                return 2
            if not args.submissions and not args.record:
                print("error: give the answer files to grade, or the class record with --class DATA",
                      file=sys.stderr)
                return 2
            if bool(args.nbgrader) != bool(args.assignment):
                raise E.ExerciseError("--nbgrader GRADEBOOK and --assignment NAME go together",
                                      "--assignment" if args.nbgrader else "--nbgrader")
            recorded = None
            if args.record:
                from .lessons.classroom.cli import open_record
                rec = open_record(args.record)
                recorded = rec.sheets()
                rec.close()
            grades = E.grade(args.submissions, exs, policy, recorded=recorded)
            forgotten = "" if args.exercises else _forgotten_exercises(grades)
            if forgotten:
                print(f"error: {forgotten}", file=sys.stderr)
                return 2
            for r in grades.results:
                if r.status != "ok":
                    out.write(r.line() + "\n")
            out.write(grades.summary() + "\n")
            if args.out:
                out.write(f"scores written to {grades.to_csv(args.out, inputs)}\n")
            if args.nbgrader:
                from .lessons.exercises.gradebook import write_gradebook
                out.write(write_gradebook(grades, args.nbgrader, args.assignment) + "\n")
            if args.feedback:
                written = grades.write_feedback(args.feedback, inputs)
                out.write(f"feedback for {len(written)} students written to {args.feedback}/<student>/feedback.md\n")
            malformed = sum(r.status == "malformed" for r in grades.results)
            if malformed == len(grades.results):
                print(f"error: no answer file could be graded ({malformed} malformed)", file=sys.stderr)
                return EXIT_EXPECTATION_FAILED
            return 0
        if args.command == "nbgrader":
            return _nbgrader(exs, args, out)
    except E.ExerciseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OutputError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_OUTPUT_ERROR
    except ValueError as e:         # the class record's RecordError, one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 2


def read_roster(path: str) -> list[str]:
    """The names of a roster: one per line, or a CSV's first column (a header ``student`` or
    ``name`` skipped); blank lines and ``#`` comments left out.  ExerciseError for a name twice."""
    import csv
    from . import files as _files
    from .lessons.exercises import ExerciseError
    try:
        text = _files.read_text(path, _files.Limits("roster", 1 << 20))
    except _files.FileReadError as e:
        raise ExerciseError(e.problem, path, e.line) from None
    names: list[str] = []
    for n, row in enumerate(csv.reader(text.splitlines()), 1):
        name = row[0].strip() if row else ""
        if not name or name.startswith("#") or (not names and name.lower() in ("student", "name")):
            continue
        if name in names:
            raise ExerciseError(f"{name!r} is listed twice", path, n)
        names.append(name)
    if not names:
        raise ExerciseError("no student names in it", path)
    return names


def _release_per_student(exs: list, args, out: TextIO) -> int:
    """``release --students``: OUT's folder/<student>/OUT's name, each with the student's variants."""
    import nbformat
    from .lessons.exercises import ExerciseError
    from .lessons.exercises import handout as H
    from .lessons.exercises.grading import student_folder
    names = read_roster(args.students)
    folders = {n: student_folder(n) for n in names}
    clash = [n for n in names if not folders[n] or list(folders.values()).count(folders[n]) > 1]
    if clash:
        raise ExerciseError(f"{clash[0]!r}: no folder name of its own (letters, digits, . _ -)", args.students)
    p = Path(args.out)
    tokens = _class_tokens(args, names)
    for name in names:
        url, token = (args.url, tokens[name]) if tokens else ("", "")
        nb = H.release_notebook(exs, args.title, student=name, record=url, token=token)
        write_output(p.parent / folders[name] / p.name, nbformat.writes(nb) + "\n", "--out", make_parents=True)
    varied = [e.id for e in exs if e.parameters]
    out.write(f"{len(names)} assessed notebooks ({len(exs)} exercises; a variant per student of "
              f"{', '.join(varied) or 'none'}) written to {p.parent}/<student>/{p.name}: hand each student "
              "their own; grade the answer files with stsedu grade ... "
              f"{' '.join('--exercises ' + x for x in args.exercises or [])}\n")
    return 0


def _class_tokens(args, names: list[str]) -> dict[str, str]:
    """``release --class DATA --url URL``: each student's token from the class record ({} without)."""
    from .lessons.exercises import ExerciseError
    if not args.record:
        for given, flag in ((args.url, "--url"), (args.hub, "--hub")):
            if given:
                raise ExerciseError(f"{flag} goes with --class (the class record the notebooks post to)", flag)
        return {}
    if not args.url or not args.url.startswith(("http://", "https://")):
        raise ExerciseError("--class needs --url http://HOST:PORT, the address students reach "
                            "stsedu class serve at", "--url")
    from .lessons.classroom.cli import open_record
    rec = open_record(args.record)
    tokens = rec.tokens()
    rec.close()
    missing = [n for n in names if n not in tokens]
    if missing:
        raise ExerciseError(f"{', '.join(missing[:5])} not in the class record: stsedu class add-students "
                            f"{args.students} --data {args.record}", "--class")
    if args.hub:             # the student's kernel sends its own JupyterHub token (JUPYTERHUB_API_TOKEN)
        return {n: "" for n in names}
    return tokens


def _exercise_files(paths: list[str] | None) -> tuple[str, ...]:
    """The files ``--exercises`` names: each file, and the ``*.yaml`` / ``*.yml`` of each folder."""
    out: list[str] = []
    for path in paths or []:
        p = Path(path)
        try:
            out += [str(q) for q in sorted(p.glob("*.y*ml"))] if p.is_dir() else [path]
        except OSError:
            out.append(path)
    return tuple(out)


def _refuse_out_in_exercise_folder(out_path: str, folders: list[str] | None) -> None:
    """An ``--out`` of ``.yaml`` in an ``--exercises`` folder would be read as an exercise next time."""
    p = Path(out_path)
    if p.suffix not in (".yaml", ".yml"):
        return
    for folder in folders or []:
        try:
            inside = Path(folder).is_dir() and p.resolve().parent == Path(folder).resolve()
        except OSError:
            inside = False
        if inside:
            raise OutputError(f"--out {out_path}: is inside the exercise folder {folder}: the next run would "
                              "read it as an exercise; write it elsewhere")


def _forgotten_exercises(grades) -> str:
    """Without ``--exercises``, answers to ids that no shipped exercise has mean the teacher's
    files were forgotten: what to say instead of grading everyone 0 ("" if none)."""
    from .lessons import exercises as E
    shipped = {e.id for e in E.EXERCISES}
    unknown = sorted({i for r in grades.results for i in r.unknown if i not in shipped})
    if not unknown:
        return ""
    shown = E.grading.printable(", ".join(unknown[:10]) + (", ..." if len(unknown) > 10 else ""))
    return (f"the answer files answer {shown}, which are not shipped exercises: give your exercise files "
            "with --exercises (for example --exercises my-exercises/)")


def _replay_variants(e) -> list[str]:
    """Each variant's answer (the first 100), shown; ExerciseError naming the variant that fails."""
    from .lessons.exercises import ExerciseError
    from .lessons.exercises import kinds as K
    from .lessons.exercises import variants as V
    answers = []
    for values in V.every(e.parameters):
        try:
            answers.append(K.show(e.with_values(values).expected_answer()))
        except ExerciseError as err:
            raise ExerciseError(f"variant {V.describe(values)}: {err.problem}", err.source, err.line,
                                err.field) from None
    return answers


def _check_files(paths: list[str], out: TextIO, override: bool = False) -> int:
    """Validate each file, run it, and check its hints and choices against the computed answer; refuse
    an id used by two files, or by a shipped exercise (unless *override*)."""
    from .lessons import exercises as E
    from .lessons.exercises import kinds as K
    from .lessons.exercises import registry as R
    from .lessons.exercises import variants as V
    bad = 0
    seen: dict[str, object] = {}
    for path in paths:
        p = Path(path)
        files = sorted(list(p.glob("*.yaml")) + list(p.glob("*.yml"))) if p.is_dir() else [p]
        if not files:
            print(f"error: {path}: no exercise files (*.yaml) in this folder", file=sys.stderr)
            bad += 1
        for f in files:
            try:
                e = E.load(f, register_them=False)[0]
                problems = []
                first = seen.setdefault(e.id, e)
                if first is not e and not R.same_file(first.source, e.source):
                    problems.append(f"{f}: line {e.line_of('id')}: id: {e.id!r} is already used by "
                                    f"{first.source} (line {first.line_of('id')}); give each exercise its own id")
                clash = R.shipped_clash(e)
                if clash is not None and not override:
                    problems.append(str(R.clash_error(e, clash)))
                answer = e.expected_answer()
                problems += [f"{f}: line {line}: hints[{i}].answer: the hint for {K.show(w)} is given for the "
                             "RIGHT answer" for i, ((w, _), line) in enumerate(zip(e.hints, e.hint_lines))
                             if w == answer]
                if e.kind == "choice" and answer not in e.choices:
                    problems.append(f"{f}: line {e.line_of('answer', 'choices')}: answer.choices: the "
                                    f"simulator's answer {answer!r} is not among the choices")
            except E.ExerciseError as err:
                problems = [str(err)]
            if problems:
                bad += 1
                for line in problems:
                    print(f"error: {line}", file=sys.stderr)
                continue
            variants = ""
            if e.parameters:
                answers = _replay_variants(e)
                variants = (f" for {V.describe(e.values)}; {V.count(e.parameters)} variants, "
                            f"{len(answers)} replayed, {len(set(answers))} different answers")
            out.write(f"ok  {f}: exercise {e.id} ({e.kind}, {e.points} pt); the simulator answers: "
                      f"{K.show(answer)}{variants}\n")
            if e.situation_warning():
                print(f"warning: {e.situation_warning()}", file=sys.stderr)
    return 2 if bad else 0


def _list(out: TextIO) -> int:
    lib = _scenarios.library()
    width = max(len(n) for n in lib["name"]) + 2
    for row in lib.itertuples():
        out.write(f"{row.name:<{width}}{row.title}\n")
    out.write("\nRun one with: stsedu run NAME   (see its YAML: stsedu show NAME)\n")
    return 0


class TraceFileError(Exception):
    """``--trace`` names a file that cannot or must not be written (exit status 3)."""


def check_trace_path(trace_path: str, inputs: list[Path], force: bool = False) -> Path:
    """The path ``--trace`` may write, checked before the run: not a directory, in a
    folder that exists, not one of *inputs* (the scenario file), and not an existing
    file unless *force*.  Raise TraceFileError saying which."""
    path = Path(trace_path)
    if path.is_dir():
        raise TraceFileError(f"--trace {trace_path}: is a directory; give a file name such as run.jsonl")
    if not path.parent.is_dir():
        raise TraceFileError(f"--trace {trace_path}: no such folder: {path.parent}")
    if path.exists() or path.is_symlink():
        for src in inputs:
            try:
                same = path.resolve() == src.resolve() or (src.exists() and path.samefile(src))
            except OSError:
                same = False
            if same:
                raise TraceFileError(f"--trace {trace_path}: is the scenario being run; "
                                     "refusing to overwrite an input (even with --force)")
        if not force:
            raise TraceFileError(f"--trace {trace_path}: file exists; add --force to replace it")
    return path


def write_trace(trace, path: Path) -> Path:
    """Save *trace* to *path* through a temporary file in the same folder, so a failed
    write (a full device, no permission) leaves no half-written trace and any old file as
    it was.  Raise TraceFileError with the reason."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        trace.save(tmp)
        os.replace(tmp, path)
    except ImportError as e:
        raise TraceFileError(f"--trace {path}: {e}") from None
    except OSError as e:
        raise TraceFileError(f"--trace {path}: cannot write the trace: {e.strerror or e}") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return path


def run_scenario(what: str, out: TextIO, trace_path: str | None = None, quiet: bool = False,
                 force: bool = False) -> int:
    """Load, print and run one scenario; returns 0 if every expectation held, else 1.

    Raise ScenarioError (exit 2) for an invalid scenario and TraceFileError (exit 3)
    if *trace_path* cannot or must not be written -- checked before the run.
    """
    sc = _scenarios.load(what)
    path = None
    if trace_path:
        path = check_trace_path(trace_path, [sc.path] if sc.path is not None else [], force)
    printer = Printer(out, quiet=quiet)
    printer.header(sc)
    result = sc.run(strict=False, observer=printer.step)
    printer.footer(result)
    if path is not None:
        write_trace(result.trace, path)
        out.write(f"trace written to {path}\n")
    return EXIT_OK if result.ok else EXIT_EXPECTATION_FAILED


# ================================================================= printing


class Printer:
    """Prints a scenario run step by step (used as ``Scenario.run``'s observer)."""

    def __init__(self, out: TextIO, quiet: bool = False, width: int = 100) -> None:
        self.out, self.quiet, self.width = out, quiet, width
        self.watch_header = False

    def w(self, line: str = "") -> None:
        self.out.write(line + "\n")

    def header(self, sc: "_scenarios.Scenario") -> None:
        self.w(f"stsedu {__version__} | scenario {sc.name}: {sc.title}")
        opts = sc.cluster_options
        gates = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in (opts.get("feature_gates") or {}).items())
        self.w(f"cluster: kubelet {opts.get('kubelet', 'auto')}, seed {opts.get('seed', 0)}, "
               f"profile {opts.get('profile', 'current')}" + (f", gates {gates}" if gates else ""))
        if sc.description and not self.quiet:
            self.w()
            for para in sc.description.split("\n\n"):
                self.w(textwrap.fill(" ".join(para.split()), self.width))
        self.w()

    def step(self, rec: "_scenarios.StepRecord", result: "_scenarios.RunResult") -> None:
        s = rec.step
        label = "objects" if s.number == 0 else f"step {s.number}"
        self.w(f"-- {label}: {s.describe()}  (t={_secs(rec.start_time)})")
        if s.note:
            for line in textwrap.wrap(" ".join(s.note.split()), self.width - 4):
                self.w(f"   {line}")
        if s.action in ("objects", "apply"):
            verb = "created" if s.number == 0 else "applied"
            for _, docs in s.args["entries"]:
                for d in docs:
                    kind = str(d.get("kind", "object")).lower() + (".apps" if d.get("kind") == "StatefulSet" else "")
                    self.w(f"   {kind}/{(d.get('metadata') or {}).get('name', '?')} {verb}")
        if rec.error is not None:
            self.w(f"   error (expected): {rec.error}")
        if not self.quiet:
            self._happenings(rec, result)
        if rec.checked:
            if rec.failures:
                for f in rec.failures:
                    self.w(f"   expect FAILED {f.field}: expected {_scenarios.format_value(f.expected)}, "
                           f"got {_scenarios.format_value(f.actual)}" + (f" ({f.detail})" if f.detail else ""))
            else:
                self.w(f"   expect ok: {', '.join(rec.checked)}")
        self.w()

    def _happenings(self, rec, result) -> None:
        """Each sync's decisions and the pods' watch lines, in the order they happened."""
        trace = result.trace
        rows = trace.rows()
        p0, p1 = rec.rows["pods"]
        if p0 == p1:
            header, body = "", []
        else:
            lines = _text("watch_lines")(trace)
            if len(lines) != len(rows["pods"]) + 1:  # not a header plus one line per pod change
                lines = _watch_lines(trace)
            header, body = lines[0], lines[1:]
        pods = list(zip(rows["pods"][p0:p1], body[p0:p1]))
        ev0, ev1 = rec.rows["events"]
        warnings = [r for r in rows["events"][ev0:ev1] if r[2] == "Warning"]
        syncs = {s.sync: s for s in rec.syncs}
        first = min(syncs) if syncs else None
        # pod changes before this step's first sync (the user's or the kubelet's) come first
        self._watch(header, [line for row, line in pods if first is None or row[0] < first])
        for n in sorted(syncs):
            self._sync(syncs[n], of_set=rec.step.action == "run_all")
            self._watch(header, [line for row, line in pods if row[0] == n])
        for w in warnings:
            self.w(f"   Warning {w[3]} {w[4]}: {w[5]}")

    def _sync(self, s, of_set: bool = False) -> None:
        st = s.status
        counts = (f"replicas {st.replicas}, ready {st.ready_replicas}, available {st.available_replicas}, "
                  f"current {st.current_replicas}, updated {st.updated_replicas}") if st else "no status"
        self.w(f"   sync {s.sync}{f' of {s.set_name}' if of_set else ''} at {_secs(s.time)} (status: {counts})" + (f"  ERROR {s.error}" if s.error else ""))
        lines = decision_lines(s)
        if not lines:
            self.w("      (nothing to do)")
        for line in lines:
            self.w("      " + line)

    def _watch(self, header: str, lines: list[str]) -> None:
        if not lines:
            return
        if not self.watch_header:
            self.w("      " + header)
            self.watch_header = True
        for line in lines:
            self.w("      " + line)

    def footer(self, result: "_scenarios.RunResult") -> None:
        c = result.cluster
        if not self.quiet:
            for title, fn in (("kubectl get sts", "get_sts_text"), ("kubectl get pods", "get_pods_text"),
                              ("kubectl get pvc", "get_pvc_text")):
                text = _text(fn)(c)
                self.w(f"$ {title}")
                self.w(text.rstrip("\n") or "No resources found in default namespace.")
                self.w()
        n_checked = sum(len(r.checked) for r in result.steps)
        fails = result.failures
        n_steps, n_syncs = len(result.steps) - 1, len(result.syncs)
        summary = (f"{n_steps} step{'s' * (n_steps != 1)}, {n_syncs} sync{'s' * (n_syncs != 1)}, "
                   f"{_secs(c.now)} simulated; ")
        if fails:
            self.w(summary + f"{len(fails)} expectation(s) FAILED:")
            for f in fails:
                self.w(f"  {f}")
        elif n_checked:
            self.w(summary + f"all {n_checked} expectations met")
        else:
            self.w(summary + "no expectations")


def _secs(t: float) -> str:
    return f"{t:g}s"


def decision_lines(sync) -> list[str]:
    """One line per decision of a SyncResult: action, pod (or target), reason, message."""
    out = []
    for d in sync.decisions:
        if d.action == "status":
            continue
        who = d.pod if d.pod and d.action in ("create", "delete", "update", "wait", "adopt", "release") \
            else (d.target or d.pod or "")
        flag = "" if d.applied is not False else "  [not applied" + (f": {d.error}]" if d.error else "]")
        out.append(f"{d.action:<16}{who:<16}{d.reason:<20}{d.message}{flag}")
    return out


# ---------------------------------------------------------------------------
# kubectl-style text comes from stsedu.tables (watch_lines, get_sts_text,
# get_pods_text, get_pvc_text, written by the "charts" helper).  Until those
# land on main, the small private fallbacks below stand in for them, with the
# same signatures.  TODO(scenarios): delete the fallbacks once tables has them.
# ---------------------------------------------------------------------------


def _text(name: str):
    """``stsedu.tables.<name>`` if it exists, else the private fallback of the same name."""
    from .views import tables
    return getattr(tables, name, None) or _FALLBACKS[name]


def _age(seconds: float) -> str:
    s = int(max(0.0, seconds))
    if s < 120:
        return f"{s}s"
    if s < 600:
        return f"{s // 60}m{s % 60}s" if s % 60 else f"{s // 60}m"
    return f"{s // 60}m" if s < 3 * 3600 else f"{s // 3600}h"


def _watch_lines(trace, set_name: str | None = None) -> list[str]:
    """``kubectl get pods -w --output-watch-events``: a header, then one line per pod change."""
    out = [f"{'EVENT':<10}{'NAME':<10}{'READY':<8}{'STATUS':<14}{'RESTARTS':<10}AGE"]
    created: dict[str, float] = {}
    for r in trace.rows()["pods"]:
        row = dict(zip(POD_COLUMNS, r))
        if row["event"] == "created":
            created[row["pod"]] = row["time"]
        status = "Terminating" if row["terminating"] else {"Failed": "Error", "Succeeded": "Completed"}.get(
            row["phase"], row["phase"])
        event = {"created": "ADDED", "updated": "MODIFIED", "deleted": "DELETED"}[row["event"]]
        out.append(f"{event:<10}{row['pod']:<10}{('1/1' if row['ready'] else '0/1'):<8}{status:<14}{0:<10}"
                   + _age(row["time"] - created.get(row["pod"], row["time"])))
    return out


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) + 3 for col in zip(header, *rows)]
    return "\n".join("".join(f"{str(x):<{w}}" for x, w in zip(line, widths)).rstrip()
                     for line in [header] + rows) if rows else "No resources found in default namespace."


def _get_sts_text(cluster) -> str:
    return _table(["NAME", "READY", "AGE"], [[s.name, f"{s.status.ready_replicas}/{s.spec.replicas}",
                                              _age(cluster.now - s.creation_timestamp)]
                                             for s in cluster.statefulsets("default")])


def _get_pods_text(cluster) -> str:
    return _table(["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                  [[p.name, f"{int(p.ready)}/1", p.status_text, str(p.restarts),
                    _age(cluster.now - p.creation_timestamp)] for p in cluster.pods()])


def _get_pvc_text(cluster) -> str:
    modes = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}
    return _table(["NAME", "STATUS", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "AGE"],
                  [[c.name, "Terminating" if c.deleting else c.phase, c.storage,
                    ",".join(modes.get(m, m) for m in c.spec.get("accessModes", [])),
                    c.spec.get("storageClassName", "") or "<unset>", _age(cluster.now - c.creation_timestamp)]
                   for c in cluster.pvcs()])


_FALLBACKS = {"watch_lines": _watch_lines, "get_sts_text": _get_sts_text,
              "get_pods_text": _get_pods_text, "get_pvc_text": _get_pvc_text}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
