"""The teachers' commands (exercises: ``docs/teaching.md``):

* ``stsedu exercise check FILE...``: validate exercise files (errors name the line), run each one
  and print the answer the simulator computes;
* ``stsedu exercise list [--exercises DIR]``: the exercises with their kinds and points;
* ``stsedu exercise key --out key.html``: the answer key (.html or .ipynb), never inside the
  students' notebooks/ folder;
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

They run in grading mode (:func:`stsedu.lessons.exercises.modes.grading`), the teacher's side even
where ``STSEDU_MODE=assessed`` is set.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..files import OutputError, check_output, write_output
from . import EXIT_EXPECTATION_FAILED, EXIT_OUTPUT_ERROR

COMMANDS = ("exercise", "grade", "nbgrader", "class")
"""The commands :func:`add_parsers` adds and :func:`main` runs."""


def _selection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exercises", metavar="PATH", action="append",
                   help="your exercise file or folder, added to the shipped exercises (repeatable)")
    p.add_argument("--ids", metavar="ID", nargs="+",
                   help="these exercises, in this order (default: those of --exercises, else the shipped set)")
    p.add_argument("--only", action="store_true", help="use only the --exercises files, not the shipped set")
    p.add_argument("--override", action="store_true",
                   help="let an exercise of yours replace the shipped exercise with the same id")


def add_parsers(sub) -> None:
    """The teachers' commands, on the ``stsedu`` parser's subparsers *sub*."""
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
    rel.add_argument("--hub", action="store_true",
                     help="with --class: the service knows each student by their JupyterHub user (the roster's "
                          "names; it runs as a hub service): the notebooks carry no token")
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
    from ..lessons.classroom import cli as _class_cli
    _class_cli.add_parser(sub, _selection_args)
    nbg = sub.add_parser("nbgrader", help="write an nbgrader source notebook for a set of exercises")
    _selection_args(nbg)
    nbg.add_argument("--out", required=True, metavar="FILE",
                     help="e.g. source/ps1/ps1.ipynb inside an nbgrader course folder")
    nbg.add_argument("--title", default="StatefulSet exercises")


def _nbgrader(exs: list, args, out: TextIO) -> int:
    """An assessed nbgrader source notebook at source/<assignment>/, its key beside source/."""
    from ..lessons.exercises import handout as H
    from ..lessons.exercises import notebooks as N
    from ..lessons.exercises.exercise import ExerciseError
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


def main(args, out: TextIO, parser: argparse.ArgumentParser) -> int:
    """Run the teachers' command *args* (parsed by *parser*), printing to *out*; returns the exit status."""
    from ..lessons.exercises.modes import grading
    with grading():
        return _run(args, out, parser)


def _run(args, out: TextIO, parser: argparse.ArgumentParser) -> int:
    from ..lessons import exercises as E
    from ..lessons.exercises import notebooks as N
    try:
        if args.command == "exercise" and args.exercise_command == "check":
            return _check_files(args.files, out, args.override)
        if args.command == "exercise" and args.exercise_command is None:
            parser.parse_args(["exercise", "--help"])
        if args.command == "class":
            from ..lessons.classroom import cli as _class_cli
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
            from ..lessons.exercises import handout as H
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
                from ..lessons.classroom.cli import open_record
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
                from ..lessons.exercises.gradebook import write_gradebook
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
    from .. import files as _files
    from ..lessons.exercises import ExerciseError
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
    from ..lessons.exercises import ExerciseError
    from ..lessons.exercises import handout as H
    from ..lessons.exercises.grading import student_folder
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
    from ..lessons.exercises import ExerciseError
    if not args.record:
        for given, flag in ((args.url, "--url"), (args.hub, "--hub")):
            if given:
                raise ExerciseError(f"{flag} goes with --class (the class record the notebooks post to)", flag)
        return {}
    if not args.url or not args.url.startswith(("http://", "https://")):
        raise ExerciseError("--class needs --url http://HOST:PORT, the address students reach "
                            "stsedu class serve at", "--url")
    from ..lessons.classroom.cli import open_record
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
    from ..lessons import exercises as E
    shipped = {e.id for e in E.EXERCISES}
    unknown = sorted({i for r in grades.results for i in r.unknown if i not in shipped})
    if not unknown:
        return ""
    shown = E.grading.printable(", ".join(unknown[:10]) + (", ..." if len(unknown) > 10 else ""))
    return (f"the answer files answer {shown}, which are not shipped exercises: give your exercise files "
            "with --exercises (for example --exercises my-exercises/)")


def _replay_variants(e) -> list[str]:
    """Each variant's answer (the first 100), shown; ExerciseError naming the variant that fails."""
    from ..lessons.exercises import ExerciseError
    from ..lessons.exercises import kinds as K
    from ..lessons.exercises import variants as V
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
    from ..lessons import exercises as E
    from ..lessons.exercises import kinds as K
    from ..lessons.exercises import registry as R
    from ..lessons.exercises import variants as V
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
