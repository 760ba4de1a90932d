"""``stsedu class add-students | serve | export``: the teacher's commands for a class record.

* ``stsedu class add-students roster.csv --data class/``: the record (``class/class.db``) with
  a token per student of the roster (names as ``exercise release --students`` reads them);
  students already in it keep theirs;
* ``stsedu class serve --data class/ --exercises my-exercises/ [--host H] [--port P]``: the
  service the released notebooks post to, until Ctrl-C (or SIGTERM); run by JupyterHub as a
  service, it also knows students by their hub user (``--hub-api``, ``$JUPYTERHUB_API_URL``);
* ``stsedu class export --data class/ --out attempts.csv``: every recorded attempt, one a row.
"""

from __future__ import annotations

import csv
import io
import os
import signal
import sys
from typing import TextIO

DEFAULT_PORT = 8765


def add_parser(sub, selection_args) -> None:
    cls = sub.add_parser("class", help="teachers: a class record that the students' notebooks post to")
    csub = cls.add_subparsers(dest="class_command")
    add = csub.add_parser("add-students", help="add the students of a roster to the class record, a token each")
    add.add_argument("roster", help="a name per line, or a CSV whose first column is the name")
    add.add_argument("--data", required=True, metavar="DIR", help="the class's data folder (or a SQLAlchemy URL)")
    serve = csub.add_parser("serve", help="record the students' attempts as they post them (until Ctrl-C)")
    serve.add_argument("--data", required=True, metavar="DIR", help="the class's data folder (or a SQLAlchemy URL)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    serve.add_argument("-q", "--quiet", action="store_true", help="do not print a line per recorded attempt")
    serve.add_argument("--hub-api", metavar="URL", default=None,
                       help="also know students by their JupyterHub user: the hub's API (default: "
                            "$JUPYTERHUB_API_URL, which JupyterHub sets for its services; '' for none)")
    selection_args(serve)
    exp = csub.add_parser("export", help="write every recorded attempt to a CSV file")
    exp.add_argument("--data", required=True, metavar="DIR", help="the class's data folder (or a SQLAlchemy URL)")
    exp.add_argument("--out", required=True, metavar="CSV", help="e.g. attempts.csv")


class NeedsSQLAlchemy(ValueError):
    """The class record needs SQLAlchemy, which is not installed."""


def open_record(data, create: bool = False):
    """The class record in *data* (a folder or a SQLAlchemy URL); one line if SQLAlchemy is missing."""
    try:
        from .record import ClassRecord
    except ImportError:
        raise NeedsSQLAlchemy("the class record needs SQLAlchemy: pip install 'stsedu[class]' "
                              "(or pip install sqlalchemy)") from None
    return ClassRecord(data, create=create)


def main(args, out: TextIO, read_roster, select) -> int:
    """Run ``stsedu class ...``; *read_roster* and *select* are the command line's own helpers."""
    if args.class_command == "add-students":
        names = read_roster(args.roster)
        rec = open_record(args.data, create=True)
        before = set(rec.students())
        tokens = rec.add_students(names)
        rec.close()
        new = [n for n in names if n not in before]
        out.write(f"{len(new)} student(s) added to the class record {rec.url} ({len(tokens)} in all); each has "
                  "a token, which `stsedu exercise release --students ... --class DATA --url URL` writes into "
                  "that student's notebook\n")
        return 0
    if args.class_command == "serve":
        from ..exercises.exercise import ExerciseError
        from ..exercises.handout import refuse_shipped
        if not args.exercises:
            raise ExerciseError("give the assignment's exercises, as released: --exercises my-exercises/",
                                "--exercises")
        exs = select(args)
        refuse_shipped(exs)           # (no --exercises: the shipped set, which a release refuses too)
        from .hub import HubIdentity
        hub_api = os.environ.get("JUPYTERHUB_API_URL", "") if args.hub_api is None else args.hub_api
        rec = open_record(args.data)
        return serve(rec, exs, args.host, args.port, out, quiet=args.quiet,
                     hub=HubIdentity(hub_api) if hub_api else None)
    if args.class_command == "export":
        from ... import files as _files
        from ..exercises.grading import csv_cell
        rec = open_record(args.data)
        _files.check_output(args.out, "--out", example="attempts.csv")
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        cols = ["seq", "student", "exercise", "answer", "variant", "at", "attempt"]
        w.writerow(cols)
        rows = rec.attempts()
        for a in rows:
            a = {**a, "answer": _json(a["answer"])}
            w.writerow([csv_cell(a[c]) for c in cols])
        p = _files.write_output(args.out, buf.getvalue(), "--out", example="attempts.csv")
        out.write(f"{len(rows)} attempts of {len(rec.students())} students written to {p}\n")
        rec.close()
        return 0
    print("usage: stsedu class {add-students,serve,export} ... (stsedu class --help)", file=sys.stderr)
    return 2


def _json(value) -> str:
    import json
    return json.dumps(value)


def serve(rec, exercises: list, host: str, port: int, out: TextIO, quiet: bool = False, hub=None) -> int:
    """Serve until Ctrl-C or SIGTERM (how JupyterHub stops a service); every acknowledged attempt is
    already committed, so stopping loses none."""
    from .server import make_server
    log = None if quiet else (lambda line: (out.write(line + "\n"), out.flush()))
    try:
        server = make_server(rec, exercises, host, port, log, hub)
    except OSError as e:
        print(f"error: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 3
    h, p = server.server_address[:2]
    out.write(f"class record {rec.url}: {len(rec.students())} students, exercises "
              f"{', '.join(e.id for e in exercises)}\n"
              + (f"students known by their roster token or their JupyterHub user ({hub.api_url})\n" if hub else "")
              + f"listening on http://{h}:{p}/ (POST /attempts); Ctrl-C stops\n")
    out.flush()

    def stop(_sig, _frame):
        raise KeyboardInterrupt
    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:           # not the main thread (a test): Ctrl-C only
        old = None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        rec.close()
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    out.write("stopped; every recorded attempt is in the class record\n")
    return 0
