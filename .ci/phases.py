"""CI's phases: install, build, test, each timed; a table of them at the end of the log.

Run by .ci/run with the machine's python3 (standard library only). Works on a fresh Debian
machine where only python3 (with venv) and pip exist: it installs what it needs.

The test groups are the README's test command (TEST below) split by marker, so together they
run exactly what that command runs (tests/meta/test_project_files.py checks the split). Two
things run beside others because they mostly wait rather than compute:

* the Go builds (the current oracle and the control plane, one module, one build cache) start
  first and go on while apt and uv download;
* the second environment (newest pandas, oldest Altair) installs after the first, beside the
  tests, and its tests run when it is ready;
* the live group (a real control plane: most of its time is waiting for the cluster to settle)
  starts when the control plane is built and goes on beside every group after that.

Two groups are spread over both cores with pytest-xdist (SPREAD).

Exit status: 0 when every phase passed (pytest's 5, "no test collected", counts as passed for a
group whose tests a machine cannot run); otherwise 1. The last line is the suite's count.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / ".ci" / "reports"

# The README's "Run every test" command (tests/meta/test_project_files.py keeps them equal).
VENV = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]'"
TEST = (".venv/bin/python -m pytest tests notebooks --nbval --nbval-current-env "
        "--nbval-sanitize-with tests/nbval_sanitize.cfg")


def with_uv(install: str) -> str:
    """*install* (``python3 -m venv ENV && ENV/bin/pip install ARGS``) with the same requirements
    installed by uv instead of pip: it resolves the same versions from the same index, and keeps
    unpacked wheels in its cache, so a warm install takes seconds (pip took 84 s for .venv and
    257 s for .venv-compat warm, on the critical path and beside the unit group)."""
    make, _, args = install.partition(" && ")
    env = make.split()[-1]
    args = args.removeprefix(f"{env}/bin/pip install ")
    return f"{make} && {env}/bin/pip install -q uv && {env}/bin/uv pip install --python {env}/bin/python {args}"


# The second environment: the newest pandas (3.x) with the oldest supported Altair (6.0), for the
# tests that touch pandas, Altair or ipywidgets (what Pyodide/JupyterLite ships is close to this pair).
COMPAT_VENV = "python3 -m venv .venv-compat && .venv-compat/bin/pip install -e '.[test]' 'pandas>=3' 'altair==6.0.*'"
COMPAT_TEST = ".venv-compat/bin/python -m pytest -m compat tests"

# marker expression of each group of TEST; together a partition of what TEST collects
GROUPS = {
    "unit and notebooks": "not upstream and not live and not browser",
    "upstream oracle": "upstream and not browser",
    "live control plane": "live and not upstream and not browser",
    "browser": "browser",
}
# how a group is spread over the machine's two cores (pytest-xdist); the oracle group already keeps
# a Go process busy beside Python. Each browser worker has its own JupyterLab and Chromium.
SPREAD = {
    "unit and notebooks": "-n 2 --dist loadscope",
    "live control plane": "-n 2 --dist loadfile",
    "browser": "-n 2 --dist load",
}

def build_go(which: str) -> int:
    """`python3 .ci/phases.py go current|older`: build the Go binaries into their caches outside the
    repository (a cache hit takes a second). Without Go, or when a build fails, say so in one line:
    the tests that need them then fail in CI (tests/helpers.py: ``unavailable``)."""
    import importlib.util
    sys.path.insert(0, str(ROOT / "tests"))
    import upstream_oracle as oracle
    spec = importlib.util.spec_from_file_location("live_build", ROOT / "stsedu" / "live" / "build.py")
    live = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(live)
    modules = ["go", "mod", "download", "k8s.io/kubernetes"]  # the rest comes with the builds
    todo = {"modules": [("k8s.io/kubernetes v1.37.2's source", lambda: subprocess.run(
                modules, cwd=ROOT / "stsedu" / "live" / "controlplane", check=True,
                env=dict(os.environ, GOFLAGS="-mod=mod")) and "downloaded")],
            "current": [("oracle current", lambda: oracle.build("current")),
                        ("live control plane", lambda: live.build(log=print))],
            "older": [("oracle v1.36", lambda: oracle.build("v1.36")),
                      ("oracle v1.16", lambda: oracle.build("v1.16"))]}[which]
    for what, make in todo:
        start = time.monotonic()
        try:
            print(f"{what}: {make()} ({time.monotonic() - start:.0f} s)", flush=True)
        except (oracle.OracleUnavailable, live.LiveUnavailable, subprocess.CalledProcessError, OSError) as e:
            print(f"note: {e}", file=sys.stderr)
    return 0


APT_CHROMIUM = """
# fonts-noto-cjk: without a CJK font Chromium draws the Chinese notebooks' text as empty boxes
if [[ -x /usr/bin/chromium ]] && dpkg -s fonts-noto-cjk >/dev/null 2>&1; then echo "chromium and a CJK font present"; exit 0; fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-noto-cjk; } ||
    echo "note: could not install chromium and fonts-noto-cjk with apt-get; browser tests will be skipped" >&2
else
  echo "note: /usr/bin/chromium is missing and apt-get is unavailable (or not root); browser tests will be skipped" >&2
fi
"""


FIRST_CALL = "echo -10 2>/dev/null >/proc/self/autogroup || renice -n -10 -p $$ >/dev/null 2>&1 || true\n"
"""Run a phase first when the two cores are short: in a session of its own (``start_new_session``)
whose scheduling group (Linux autogroup) weighs about nine times a default one. A cold run's Go builds
are its critical path (the live and oracle groups wait for them) while the unit and browser groups run
beside them; warm, they take a second. Without root or autogroup this does nothing."""


class Phase:
    def __init__(self, name: str, command: str, pytest_group: bool = False, first_call: bool = False):
        self.name, self.command, self.pytest_group = name, command, pytest_group
        self.first_call = first_call
        self.start = self.end = None
        self.rc: int | None = None
        self.done = threading.Event()

    def run(self, quiet: bool = False) -> int:
        """Run the command; with *quiet* (a phase beside others) its output goes to a file under
        .ci/reports and is printed whole when it ends, so the log does not interleave."""
        self.start = time.monotonic()
        try:
            print(f"\n==== {self.name} {'(beside the others) ' if quiet else ''}====\n$ {self.command}", flush=True)
            log = REPORTS / (self.name.split(":")[-1].strip().replace(" ", "-") + ".log")
            with open(log, "w") if quiet else open(os.devnull) as out:
                first = FIRST_CALL if self.first_call else ""
                self.rc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + first + self.command], cwd=ROOT,
                                         stdout=out if quiet else None, stderr=subprocess.STDOUT if quiet else None,
                                         start_new_session=self.first_call).returncode
            if quiet:
                print(f"\n==== output of {self.name} ====\n{log.read_text(errors='replace')}", flush=True)
            if self.pytest_group and self.rc == 5:  # no test collected: nothing of this group can run here
                self.rc = 0
        finally:
            if self.rc is None:
                self.rc = 1
            self.end = time.monotonic()
            print(f"==== {self.name}: exit {self.rc} after {self.end - self.start:.0f} s ====", flush=True)
            self.done.set()
        return self.rc

    def beside(self, after: "Phase | None" = None) -> threading.Thread:
        """Run in the background (quietly), once *after* has ended."""
        def go():
            if after is not None:
                after.done.wait()
            self.run(quiet=True)
        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        return thread


def go_available() -> bool:
    return any(os.access(p, os.X_OK) for p in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go")) or bool(
        subprocess.run(["bash", "-c", "command -v go"], capture_output=True).stdout)


def group(name: str, expr: str) -> Phase:
    xml = REPORTS / (name.replace(" ", "-") + ".xml")
    spread = SPREAD.get(name, "")
    return Phase(f"tests: {name}", f'{TEST} -m "{expr}" {spread} -p no:cacheprovider --junitxml={xml}',
                 pytest_group=True)


def counts() -> dict[str, int]:
    total = {"passed": 0, "failed": 0, "skipped": 0}
    for xml in REPORTS.glob("*.xml"):
        try:
            root = ET.parse(xml).getroot()
        except ET.ParseError:
            continue
        for suite in root.iter("testsuite"):
            tests, failures, errors, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
            total["failed"] += failures + errors
            total["skipped"] += skipped
            total["passed"] += tests - failures - errors - skipped
    return total


def table(phases: list[Phase], began: float) -> str:
    rows = [f"{'phase':<34} {'start':>7} {'seconds':>8}  result"]
    for p in phases:
        if p.start is None:
            rows.append(f"{p.name:<34} {'-':>7} {'-':>8}  not run")
            continue
        result = "ok" if p.rc == 0 else f"FAILED (exit {p.rc})"
        rows.append(f"{p.name:<34} {p.start - began:>7.0f} {p.end - p.start:>8.0f}  {result}")
    rows.append(f"{'total (wall clock)':<34} {'':>7} {time.monotonic() - began:>8.0f}")
    return "\n".join(rows)


def main() -> int:
    began = time.monotonic()
    REPORTS.mkdir(parents=True, exist_ok=True)
    for old in [*REPORTS.glob("*.xml"), *REPORTS.glob("*.log")]:
        old.unlink()
    os.environ.setdefault("STSEDU_UPSTREAM_HISTORIES", "200")
    # resource-version conflicts on in the oracle's fake API server (the suite's default too)
    os.environ.setdefault("STSEDU_UPSTREAM_CONFLICTS", "1")
    if os.access("/usr/local/go/bin/go", os.X_OK):
        os.environ["PATH"] += os.pathsep + "/usr/local/go/bin"
    go = go_available()
    if not go:
        print("note: Go is not installed; the upstream and live tests will be skipped", file=sys.stderr)

    modules = Phase("go: module download", "python3 .ci/phases.py go modules")
    build = Phase("go: oracle current + control plane", "python3 .ci/phases.py go current", first_call=True)
    older = Phase("go: oracles v1.36, v1.16", "python3 .ci/phases.py go older", first_call=True)
    apt = Phase("apt: chromium", APT_CHROMIUM)
    venv = Phase("uv: .venv", with_uv(VENV))
    compat_venv = Phase("uv: .venv-compat", with_uv(COMPAT_VENV))
    compat = Phase("tests: compat (pandas 3, Altair 6.0)", COMPAT_TEST + " -p no:cacheprovider", pytest_group=True)
    unit, upstream, live, browser = (group(n, e) for n, e in GROUPS.items())
    phases = [modules, build, apt, venv, compat_venv, compat, unit, older, live, upstream, browser]

    failed: list[str] = []
    background: list[threading.Thread] = []
    try:
        if go:  # the modules first: the reading test of the unit group reads upstream's source there
            background += [modules.beside(), build.beside(after=modules)]
        apt.run()
        if venv.run() != 0:
            return 1
        # the second environment and its tests beside everything after the first (not at once with it:
        # both editable installs write stsedu.egg-info in the checkout)
        background += [compat_venv.beside(), compat.beside(after=compat_venv)]
        if go:  # the live group as soon as the control plane is built, beside everything after it
            background.append(live.beside(after=build))
        if go:
            modules.done.wait()
        unit.run()
        # the browser group beside the oracle group: its pages mostly wait on a kernel or Chromium, and
        # one after the other the two made the warm run 28 minutes (docs/testing.md)
        background.append(browser.beside())
        if go:
            build.done.wait()
            older.run()
        upstream.run()
        for thread in background:
            thread.join()
    finally:
        print("\n==== CI phases ====")
        print(table(phases, began))
        c = counts()
        failed = [p.name for p in phases if p.start is not None and p.rc != 0]
        if failed:
            print("failed phases: " + ", ".join(failed))
        # the plain closing line: the whole suite's count (every group's junit report)
        print(f"ci: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(build_go(sys.argv[2]) if sys.argv[1:2] == ["go"] else main())
