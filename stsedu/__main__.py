"""The terminal entry point: ``python -m stsedu`` or the ``stsedu`` command.

* ``stsedu`` (no arguments): the concept page's web/nginx example, run to
  stability with the auto kubelet, printed as it happens;
* ``stsedu run SCENARIO [--trace FILE [--force]]``: replay a scenario file
  (or a shipped scenario by name), print it, check its expectations
  (:mod:`stsedu.cli.scenario_run`, the trace file :mod:`stsedu.cli.trace_file`);
* ``stsedu list``: the shipped scenarios; ``stsedu show NAME``: one's YAML;
* ``stsedu kubectl COMMAND...``: kubectl against an embedded cluster kept between calls
  (``stsedu kubectl reset`` starts a new one; see :mod:`stsedu.console.cli`);
* ``stsedu live build|up|down|status|run``: a real control plane beside the kit (docs/live.md);
* for teachers, ``stsedu exercise check|list|key|release``, ``stsedu grade``, ``stsedu nbgrader``
  and ``stsedu class add-students|serve|export`` (:mod:`stsedu.cli.teacher`, docs/teaching.md).

Exit status (:data:`stsedu.cli.EXIT_OK` ...): 0 every expectation held; 1 an expectation
failed; 2 the scenario is invalid (or a step was refused); 3 the trace file
cannot be written (a directory, a missing folder, a full device, an existing
file without ``--force``, or the scenario itself).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from . import __version__
from .cli import EXIT_INVALID_SCENARIO, EXIT_OUTPUT_ERROR
from .cli import teacher
from .cli.scenario_run import run_scenario
from .cli.trace_file import TraceFileError
from .lessons import scenarios as _scenarios

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
    teacher.add_parsers(sub)
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
        if args.command in teacher.COMMANDS:
            return teacher.main(args, out, parser)
        if args.command == "live":
            return _live_cli.main(args, out)
        return run_scenario(DEMO, out)
    except _scenarios.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_SCENARIO
    except TraceFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_OUTPUT_ERROR


def _list(out: TextIO) -> int:
    lib = _scenarios.library()
    width = max(len(n) for n in lib["name"]) + 2
    for row in lib.itertuples():
        out.write(f"{row.name:<{width}}{row.title}\n")
    out.write("\nRun one with: stsedu run NAME   (see its YAML: stsedu show NAME)\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
