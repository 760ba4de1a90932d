"""Hardening, round three (issue 44): the kubectl console and its state file, the files it is pointed
at, numbers given to the Python API, and the network of ``stsedu live``.

Each test is one case of the issue: what a learner would type, the one clear line it must answer
(naming the argument, flag, field or path), and that the refusal changed nothing -- the state file
of ``stsedu kubectl`` included -- in bounded time.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest

from stsedu.console import cli, magic
from stsedu.console.session import Session

WEB = str(Path(__file__).parents[2] / "stsedu" / "data" / "web.yaml")


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """``stsedu kubectl ARGV...`` with its state in a fresh file: returns (status, stdout, stderr)."""
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(tmp_path / "state.json"))

    def run(*argv, stdin=""):
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(list(argv), out, err, io.StringIO(stdin))
        assert "Traceback" not in out.getvalue() + err.getvalue()
        return code, out.getvalue(), err.getvalue()
    run.path = tmp_path / "state.json"
    return run


def state_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


# ------------------------------------------------------------------ the console's own arguments

@pytest.mark.parametrize("seed", ["²", "٣", "-1", "1e3", "99999999999999999999", ""])
def test_reset_seed_must_be_ascii_digits(kubectl, seed):
    """``'²'.isdigit()`` is true but ``int('²')`` fails: the seed is read as ASCII digits only."""
    code, out, err = kubectl("reset", "--seed", seed)
    assert code in (1, 2) and out == ""
    assert "--seed" in err or "usage" in err
    assert not kubectl.path.exists()


def test_reset_seed_in_the_magic_must_be_ascii_digits(capsys):
    assert magic.run_magic("--reset --seed ²") is None
    assert 'error: --seed needs a whole number from 0 to 9223372036854775807, not "²"' in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["help"]])
def test_kubectl_help_answers_with_help(kubectl, argv):
    code, out, err = kubectl(*argv)
    assert (code, err) == (0, "")
    assert "Commands simulated:" in out and "  rollout\n" in out and "no command given" not in out
    assert not kubectl.path.exists()  # help reads no state and writes none


def test_kubectl_command_help_lists_its_flags(kubectl):
    code, out, err = kubectl("scale", "--help")
    assert (code, err) == (0, "")
    assert "--replicas=-1" in out and "--timeout=0s" in out


def test_the_magic_help_answers_with_help(capsys):
    magic.run_magic("--help")
    out = capsys.readouterr()
    assert "Commands simulated:" in out.out and out.err == ""
    assert magic.result().status == 0


# ------------------------------------------------------------------ the state file

@pytest.mark.parametrize("text,why", [
    ("[" * 100_000, "nested deeper than 100 levels"),
    ('{"seed": true, "commands": []}', "seed is not a whole number"),
    ('{"seed": 1.5, "commands": []}', "seed is not a whole number"),
    ('{"seed": 0, "commands": [[1, null]]}', "a command entry is not"),
])
def test_a_bad_state_file_is_one_line(kubectl, text, why):
    kubectl.path.write_text(text)
    code, out, err = kubectl("get", "pods")
    assert code == 1 and out == ""
    assert err.startswith(f"error: cannot read the state file {kubectl.path}: ") and why in err
    assert err.rstrip().endswith("run 'stsedu kubectl reset' to start a new cluster")
    assert kubectl.path.read_text() == text


def test_a_state_file_that_is_a_folder_is_refused_and_nothing_is_left_beside_it(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir()
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(folder))
    for argv in (["reset"], ["get", "pods"]):
        out, err = io.StringIO(), io.StringIO()
        assert cli.main(argv, out, err, io.StringIO()) == 1
        assert "state" in err.getvalue() and "is a folder" in err.getvalue(), err.getvalue()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"] and list(folder.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_state_file_that_is_a_fifo_is_refused(kubectl):
    os.mkfifo(kubectl.path)
    code, _, err = kubectl("get", "pods")
    assert code == 1 and "is not a regular file" in err


def test_a_refused_command_leaves_the_state_file_as_it_was(kubectl, tmp_path):
    """``apply -f later.yaml`` refused (no such file) is not kept: creating the file afterwards
    does not make the set appear at the next call."""
    assert kubectl("apply", "-f", WEB)[0] == 0
    before = state_bytes(kubectl.path)
    later = tmp_path / "later.yaml"
    refusals = [("apply", "-f", str(later)), ("scale", "sts", "web", "--replica=3"), ("get", "sts", "nope"),
                ("delete", "sts", "web", "--timeout=xyz"), ("bogus",)]
    for argv in refusals:
        code, _, err = kubectl(*argv)
        assert code != 0 and err, argv
        assert state_bytes(kubectl.path) == before, argv
    later.write_text(Path(WEB).read_text().replace("name: web", "name: later"))
    code, out, _ = kubectl("get", "sts", "-o", "name")
    assert (code, out) == (0, "statefulset.apps/web\n")


def test_a_refused_standard_input_does_not_grow_the_state_file(kubectl):
    kubectl("get", "pods")
    before = state_bytes(kubectl.path)
    code, _, err = kubectl("apply", "-f", "-", stdin="x" * 1_000_001)
    assert code == 1 and "standard input is longer than" in err
    assert state_bytes(kubectl.path) == before


# ------------------------------------------------------------------ files kubectl is pointed at

@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs a FIFO")
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("line", ["apply -f {fifo}", "apply -f /dev/zero", "patch sts web --patch-file {fifo}",
                                  "patch sts web --patch-file /dev/zero", "create -f {fifo}"])
def test_a_pipe_or_a_device_is_refused_before_it_is_read(fifo, line):
    if "/dev/zero" in line and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    s = Session()
    s.run(f"apply -f {WEB}")
    t = time.monotonic()
    r = s.run(line.format(fifo=fifo))
    assert time.monotonic() - t < 5
    path = fifo if "{fifo}" in line else "/dev/zero"
    assert r.status == 1 and f"{path}: is not a regular file (a device or a pipe)" in r.stderr, r.stderr
    assert "could not carry out" not in r.stderr


def test_a_patch_file_that_is_missing_or_a_folder(tmp_path):
    s = Session()
    s.run(f"apply -f {WEB}")
    r = s.run(f"patch sts web --patch-file {tmp_path / 'none.yaml'}")
    assert r.stderr == f"error: unable to read patch file: open {tmp_path / 'none.yaml'}: no such file or directory\n"
    r = s.run(f"patch sts web --patch-file {tmp_path}")
    assert r.status == 1 and "is a folder" in r.stderr


# ------------------------------------------------------------------ durations, timeouts

def test_delete_with_a_bad_timeout_is_refused_before_it_deletes():
    s = Session()
    s.run(f"apply -f {WEB}")
    r = s.run("delete sts web --timeout=xyz")
    assert (r.status, r.stdout) == (1, "")
    assert r.stderr == ('error: invalid argument "xyz" for "--timeout" flag: time: invalid duration "xyz"\n'
                        "See 'kubectl delete --help' for usage.\n")
    assert s.cluster.store.get("StatefulSet", "default", "web") is not None
    assert s.run("delete sts web --timeout=1m30s").status == 0


@pytest.mark.parametrize("value", ["99999999999999999999999h", "9999999999999s", "1x", "h"])
def test_a_request_timeout_kubectl_cannot_read_is_its_flag_error(value):
    s = Session()
    r = s.run(f"get pods -w --request-timeout={value}")
    assert r.status == 1
    assert f'invalid argument "{value}" for "--request-timeout" flag: time: invalid duration' in r.stderr
    assert "could not carry out" not in r.stderr


def test_rollout_status_of_a_crash_loop_times_out_and_says_why():
    """kubectl's ``rollout status`` waits until its --timeout and then says ``timed out waiting for
    the condition`` (exit 1); without --timeout the kit stops after ten simulated minutes, quickly."""
    s = Session()
    s.run(f"apply -f {WEB}")
    s.run("get pods")
    s.cluster.kubelet.crash_loop(5, image="nginx:bad")
    s.run("set image sts/web nginx=nginx:bad")
    t = time.monotonic()
    r = s.run("rollout status sts/web")
    assert time.monotonic() - t < 10
    assert r.status == 1 and r.stderr.startswith("error: timed out waiting for the condition (stsedu waited 10m")
    assert r.stdout.startswith("Waiting for")
    r = s.run("rollout status sts/web --timeout=30s")
    assert (r.status, r.stderr) == (1, "error: timed out waiting for the condition\n")
    assert 30 <= r.end - r.start <= 60


# ------------------------------------------------------------------ bounded work and output

@pytest.fixture(scope="module")
def two_pods():
    s = Session()
    s.run(f"apply -f {WEB}")
    s.run("get pods")
    return s


@pytest.mark.parametrize("output", [
    "go-template='" + "{{range $.items}}" * 40 + "x" + "{{end}}" * 40 + "'",
    "jsonpath='" + "{range $..*}" * 3 + "x" + "{end}" * 3 + "'",
])
def test_nested_template_ranges_stop_at_the_work_budget(two_pods, output):
    from stsedu.views.kubectl.templates import MAX_WORK
    t = time.monotonic()
    r = two_pods.run(f"get pods -o {output}")
    assert time.monotonic() - t < 10
    assert (r.status, r.stdout) == (1, "")
    assert r.stderr == (f"error: the template takes more than {MAX_WORK} steps (nested ranges multiply); "
                        "the kit stops there\n")


def test_a_template_within_the_budget_still_prints(two_pods):
    r = two_pods.run("get pods -o go-template='{{range .items}}{{range $.items}}{{.metadata.name}} {{end}}{{end}}'")
    names = [p.name for p in two_pods.cluster.pods()]
    assert len(names) >= 2
    assert (r.status, r.stdout) == (0, "".join(n + " " for n in names) * len(names))


def test_a_long_in_selector_is_read_in_linear_time(two_pods):
    """The selector used to be split with a lookahead per comma (quadratic): 98k characters took 14-33 s."""
    values = ",".join(["b"] * 49_000)
    t = time.monotonic()
    r = two_pods.run(f"get pods -l 'a in ({values})'")
    assert time.monotonic() - t < 5
    assert (r.status, r.stderr) == (0, "No resources found in default namespace.\n")
    r = two_pods.run("get pods -l 'app in (x,nginx),app notin (y)' -o name")
    assert r.stdout == "".join(f"pod/{p.name}\n" for p in two_pods.cluster.pods()) != ""


def test_exec_output_is_cut_with_a_note(two_pods):
    from stsedu.views.kubectl.flags import MAX_OUTPUT
    s = two_pods
    s.run("exec web-0 -- sh -c 'echo hello > /c'")
    for _ in range(12):
        s.run("exec web-0 -- sh -c 'cat /c /c /c >> /c'")
    size = len(s.run("exec web-0 -- cat /c").stdout)
    assert 100_000 < size < MAX_OUTPUT
    t = time.monotonic()
    r = s.run("exec web-0 -- cat " + " ".join(["/c"] * 300))
    assert time.monotonic() - t < 5 and r.status == 0
    assert MAX_OUTPUT - 10_000 < len(r.stdout) < MAX_OUTPUT + 200
    assert r.stdout.endswith(" characters, as a terminal's scrollback would drop the rest)\n")
    assert r.stdout.startswith("hello\n")


# ------------------------------------------------------------------ numbers: NumPy's accepted, the rest named

np = pytest.importorskip("numpy")


@pytest.fixture
def web_cluster():
    import stsedu
    c = stsedu.Cluster()
    c.apply(Path(WEB).read_text())
    c.run("web")
    return c


def test_numpy_numbers_are_numbers(web_cluster):
    """A learner's numbers often come from NumPy or pandas: what numbers.Integral / numbers.Real
    accept is accepted, and the clock gets a Python float."""
    c = web_cluster
    t = c.now
    assert c.advance(np.float32(1.5)) == t + 1.5 and type(c.now) is float
    assert c.advance(np.int64(2)) == t + 3.5
    assert c.rollout_undo("web", np.int64(1)).startswith("statefulset.apps/web ")
    assert c.scale("web", np.int64(2)).spec.replicas == 2
    c.run(max_syncs=np.int64(5), until=np.float64(c.now + 10))
    c.inject_error("create", count=np.int64(1), after=np.int32(0))


@pytest.mark.parametrize("call,message", [
    (lambda c: c.advance(np.float64("nan")), "Cluster.advance() is invalid: seconds: Invalid value: nan: "
                                             "must be a finite number of seconds"),
    (lambda c: c.advance(10 ** 5000), "Cluster.advance() is invalid: seconds: Invalid value: "
                                      '"<an integer of about 5001 digits>": must have at most 100 digits'),
    (lambda c: c.run(until=10 ** 5000), "Cluster.run() is invalid: until: Invalid value: "
                                        '"<an integer of about 5001 digits>": must have at most 100 digits'),
    (lambda c: c.scale("web", 10 ** 5000), 'StatefulSet.apps "web" is invalid: spec.replicas: json: cannot '
                                           "unmarshal number <an integer of about 5001 digits> into Go struct "
                                           "field ScaleSpec.spec.replicas of type int32"),
    (lambda c: c.inject_error("create", count=10 ** 200), "Cluster.inject_error() is invalid: count: Invalid value: "
                                                          '"<an integer of about 201 digits>": must have at most '
                                                          "100 digits"),
    (lambda c: c.inject_error("create", count=np.bool_(True)), "count: Invalid value: "),
    (lambda c: c.advance(True), "seconds: Invalid value: true: must be a number of seconds, not bool"),
], ids=["nan", "huge-seconds", "huge-until", "huge-replicas", "huge-count", "numpy-bool", "bool"])
def test_bad_numbers_are_refused_naming_the_argument(web_cluster, call, message):
    from test_robustness import state
    import stsedu
    before = state(web_cluster)
    with pytest.raises(stsedu.ValidationError) as e:
        call(web_cluster)
    assert message in str(e.value)
    assert state(web_cluster) == before


@pytest.mark.parametrize("answer,why", [
    (float("nan"), "nan is not one (must be a finite number)"),
    (float("inf"), "inf is not one (must be a finite number)"),
    (10 ** 5000, "<an integer of about 5001 digits> is not one (must have at most 100 digits)"),
    (4.5, "4.5 is not one (must be a whole number)"),
    (True, "True is not one (must be an integer, not bool)"),
], ids=["nan", "inf", "huge", "fraction", "bool"])
def test_a_reveal_answer_that_is_no_whole_number_is_a_wrong_form(answer, why):
    from stsedu.widgets import labs
    text = str(labs.reveal("09.a", answer))
    assert f"Wrong form, not a wrong answer: a whole number is asked for, and {why}" in text


def test_a_reveal_takes_numpy_numbers_and_odd_names():
    from stsedu.widgets import labs
    assert "You predicted: 4" in str(labs.reveal("09.a", np.int64(4)))
    assert "You predicted: web-²" in str(labs.reveal("06.a", ["web-²"]))
    with pytest.raises(KeyError, match="no question"):
        labs.reveal(["06.a"], 1)


# ------------------------------------------------------------------ stsedu live: the kubeconfig and the network

def _live_run(kubeconfig) -> tuple[int, str]:
    import contextlib
    from stsedu.__main__ import main
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["live", "run", "first-statefulset", "--kubeconfig", str(kubeconfig)], io.StringIO())
    return code, err.getvalue()


@pytest.mark.parametrize("kind,why", [
    ("folder", "is a folder, not a kubeconfig"),
    ("fifo", "is not a regular file (a device or a pipe); a kubeconfig must be one"),
    ("/dev/zero", "is not a regular file (a device or a pipe); a kubeconfig must be one"),
    ("bad yaml", "line 1: not valid YAML: mapping values are not allowed in this context"),
    ("a list", "not a kubeconfig (a YAML mapping with clusters, contexts and users), but list"),
])
def test_live_run_refuses_a_kubeconfig_it_cannot_read(tmp_path, kind, why):
    pytest.importorskip("kubernetes")
    path = tmp_path / "kubeconfig"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs a FIFO")
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("no /dev/zero")
    else:
        path.write_text("a: b: c\n" if kind == "bad yaml" else "- a\n- b\n")
    t = time.monotonic()
    code, err = _live_run(path)
    assert time.monotonic() - t < 10
    assert code == 4 and err == f"stsedu live: cannot read the kubeconfig {path}: {why}\n"


def test_a_server_that_never_answers_is_a_read_timeout_named_in_the_message(tmp_path, monkeypatch):
    """The server accepts the connection (the listen backlog does) and never answers: the client's
    read timeout fires and is named, instead of a wait with no end."""
    import socket
    pytest.importorskip("kubernetes")
    from stsedu.live import client
    monkeypatch.setattr(client, "READ_TIMEOUT", 1.0)
    monkeypatch.setattr(client, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
            f"clusters: [{{name: c, cluster: {{server: '{url}'}}}}]\n"
            "users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n")
        t = time.monotonic()
        code, err = _live_run(kubeconfig)
    assert time.monotonic() - t < 15
    assert code == 4
    assert err == f"stsedu live: the API server at {url} did not answer within the read timeout of 1 s\n"


# ------------------------------------------------------------------ the pod quota: a refusal is not retried for ever

def test_commands_after_a_quota_refusal_answer_quickly(monkeypatch):
    """A Parallel set scaled past the pod quota: the create the quota refuses is retried with the
    controller's back-off, but the console's catch-up stops once only those retries are left (each
    sync of a large set is costly), so the next commands answer at once."""
    from stsedu import limits
    monkeypatch.setattr(limits, "MAX_PODS", 300)
    s = Session()
    s.run("apply -f https://k8s.io/examples/application/web/web-parallel.yaml")
    assert s.run("scale sts web --replicas=301").status == 0
    first = s.run("get sts web")
    assert "300/301" in first.stdout
    syncs = len(s.cluster.trace.rows()["syncs"])
    r = s.run("get sts web")
    assert "300/301" in r.stdout
    assert len(s.cluster.trace.rows()["syncs"]) - syncs <= 2   # was 1000 retries per command
    assert r.settled <= 2_000


# ------------------------------------------------------------------ scenarios: advance is work too

def test_a_scenario_advance_counts_in_its_work_limit():
    """``crash_loop`` then ``advance: 1000000000`` ran for minutes: an advance now counts one step of
    work per ADVANCE_SECONDS_PER_WORK simulated seconds, so the file is refused when loaded."""
    from stsedu import limits, scenarios
    text = ("name: long\nobjects: [\"stsedu:web.yaml\"]\nset: web\nsteps:\n"
            "  - crash_loop: {seconds: 5, image: nginx}\n  - advance: 1000000000\n")
    t = time.monotonic()
    with pytest.raises(scenarios.ScenarioError) as e:
        scenarios.loads(text)
    assert time.monotonic() - t < 2
    assert f"over the budget of {limits.MAX_SCENARIO_WORK} for one scenario" in str(e.value)
    assert f"an advance one per {limits.ADVANCE_SECONDS_PER_WORK} s" in str(e.value)
    assert "step 2" in str(e.value) or "advance" in str(e.value)
    short = scenarios.loads(text.replace("1000000000", "60"))
    assert short.steps[-1].action == "advance"


def test_a_live_state_file_that_is_a_fifo_is_no_state(tmp_path, monkeypatch):
    """``$STSEDU_LIVE_STATE`` pointing at a FIFO hung ``stsedu live status``; it is now no state."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs a FIFO")
    from stsedu.live import daemon
    path = tmp_path / "running.json"
    os.mkfifo(path)
    monkeypatch.setenv("STSEDU_LIVE_STATE", str(path))
    t = time.monotonic()
    assert daemon.read_state() is None and daemon.status() is None
    assert time.monotonic() - t < 5


# ------------------------------------------------------------------ a long session stays fast

def test_marking_where_a_watch_starts_counts_on_instead_of_rebuilding_the_watch():
    """Each command that changes something marks where a later ``get -w`` starts.  That mark used to
    rebuild the whole watch frame from the trace (quadratic over a session: 2,000 recorded commands
    took over a minute to replay); it now counts on from the last mark, and says the same."""
    from stsedu.views.kubectl import get as G
    s = Session()
    lines = ["apply -f " + WEB, "get pods", "scale sts web --replicas=5", "delete pod web-1",
             "set image sts/web nginx=nginx:2", "get pods", "scale sts web --replicas=0", "get pods",
             "rollout undo sts/web", "scale sts web --replicas=2", "get pods -w --request-timeout=3s", "get pods"]
    mark = (0, 0)
    for line in lines:
        assert s.run(line).status == 0, line
        mark = G.watch_frame_length(s.cluster.trace, mark)
        assert mark[0] == len(G.watch_frame(s.cluster.trace)) == G.watch_frame_length(s.cluster.trace)[0], line
    t = time.monotonic()
    for i in range(300):
        s.run(f"scale sts web --replicas={i % 3 + 1}")
    assert time.monotonic() - t < 60


def test_a_leading_kubectl_word_is_still_dropped(kubectl):
    assert kubectl("kubectl", "get", "pods") == (0, "", "No resources found in default namespace.\n")
    code, out, err = kubectl("kubectl", "--help")
    assert (code, err) == (0, "") and "Commands simulated:" in out


def test_a_seed_of_more_than_a_hundred_digits_is_named():
    import stsedu
    with pytest.raises(stsedu.ValidationError) as e:
        stsedu.Cluster(seed=10 ** 200)
    assert str(e.value) == 'Cluster() is invalid: seed: Invalid value: "<an integer of about 201 digits>": must have at most 100 digits'


# ------------------------------------------------------------ the rest of issue 44 (branch h44b)

def stsedu_main(*argv) -> tuple[int, str]:
    """``stsedu ARGV...``: (status, what it printed); never a traceback."""
    from stsedu.__main__ import main
    out = io.StringIO()
    code = main(list(argv), out=out)
    assert "Traceback" not in out.getvalue()
    return code, out.getvalue()


def test_grade_reads_an_ordinal_in_other_digits_as_an_unreadable_answer(tmp_path):
    """``'²'.isdigit()`` is true but ² is no ordinal: ``web-²`` is unreadable, as in a reveal's sort."""
    import json
    from stsedu import exercises as E
    sheet = tmp_path / "ada.json"
    sheet.write_text(json.dumps({"student": "Ada", "answers": {"06.1": ["web-²", "web-1"]}}))
    (r,) = E.grade([sheet]).results
    assert r.points["06.1"] == 0
    assert r.notes["06.1"] == "unreadable answer (the ordinal in 'web-²' must be written with the digits 0-9)"
    code, _ = stsedu_main("grade", str(sheet), "--ids", "06.1", "--out", str(tmp_path / "scores.csv"))
    assert code == 0 and "06.1: unreadable answer (the ordinal in 'web-²'" in (tmp_path / "scores.csv").read_text()


def test_nbgrader_refuses_an_id_too_long_for_a_file_name_and_writes_nothing(tmp_path, capsys):
    """The key folder holds one file per exercise id: an id no file system takes is refused when
    the exercise is read, before ``course/stsedu-key/`` or the notebook is made."""
    shipped = Path(__file__).parents[2] / "stsedu" / "lessons" / "exercises" / "library" / "01.2-start-ordinal.yaml"
    mine = tmp_path / "long.yaml"
    mine.write_text(shipped.read_text().replace('id: "01.2"', 'id: "' + "a" * 5000 + '"'))
    course = tmp_path / "course"
    code, text = stsedu_main("nbgrader", "--exercises", str(mine), "--out", str(course / "source" / "ps1" / "ps1.ipynb"))
    assert code != 0 and text == ""
    assert capsys.readouterr().err == (f'error: {mine}: line 1: id: must be a short name in quotes such as "T.1" '
                                       "(at most 100 characters, not 5000)\n")
    assert not course.exists()


@pytest.fixture
def one_answer():
    """This session's answer sheet with one answer (02.1), restored afterwards."""
    from stsedu import exercises as E
    saved = dict(E.current_sheet().answers)
    E.current_sheet().answers.clear()
    E.get("02.1").check(3)
    yield E
    E.current_sheet().answers.clear()
    E.current_sheet().answers.update(saved)


def test_save_answers_refuses_a_nul_in_the_name_and_a_folder_naming_the_path(tmp_path, monkeypatch, one_answer):
    E = one_answer
    monkeypatch.chdir(tmp_path)
    assert E.save_answers("x\0y.json", student="Ada") == \
        "Not saved: 'x\\x00y.json': cannot write it: a file name cannot hold a NUL byte."
    folder = tmp_path / "answers"
    folder.mkdir()
    said = f"Not saved: {folder}: is a folder; give a file name such as my-answers.json."
    assert E.save_answers(folder, student="Ada") == said
    E.current_sheet().answers.clear()            # with nothing answered yet, the path is still checked first
    assert E.save_answers(folder, student="Ada") == said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers"] and not any(folder.iterdir())


def test_exercise_check_says_a_pipe_or_a_device_is_no_regular_file(tmp_path, capsys):
    """They exist: "no such file or folder" was untrue.  The bounded reader refuses them unread."""
    fifo = tmp_path / "exercise.yaml"
    os.mkfifo(fifo)
    t = time.monotonic()
    code, text = stsedu_main("exercise", "check", str(fifo), "/dev/zero", str(tmp_path / "nope.yaml"))
    assert code != 0 and text == "" and time.monotonic() - t < 30
    assert capsys.readouterr().err.splitlines() == [
        f"error: {fifo}: is not a regular file (a device or a pipe); an exercise file must be one",
        "error: /dev/zero: is not a regular file (a device or a pipe); an exercise file must be one",
        f"error: {tmp_path / 'nope.yaml'}: no such file or folder"]


def test_a_playground_too_big_to_settle_names_its_replicas_and_the_limit():
    """Not ``Cluster.settle() max_syncs 200300``, an argument the learner never gave."""
    from stsedu import limits
    from stsedu.widgets.playground import Playground
    with pytest.raises(ValueError) as e:
        Playground(replicas=20000, settle=True, kubelet="manual")
    assert str(e.value) == ("replicas must be at most 9970 with settle=True, not 20000: bringing the set up may "
                            "take 200300 syncs, over the limit of 100000 for one run "
                            f"(the kit's budget; {limits.hint('MAX_SYNCS_PER_CALL')})")
    assert "Cluster.settle()" not in str(e.value)


@pytest.mark.parametrize("value", [10 ** 9, 100_001])
def test_a_playground_checks_max_syncs_against_its_bound_before_building(value, monkeypatch):
    from stsedu import limits
    from stsedu.widgets import playground

    def build(self, *args):
        raise AssertionError("a cluster was built before max_syncs was checked")
    monkeypatch.setattr(playground.Playground, "_new_cluster", build)
    with pytest.raises(ValueError) as e:
        playground.Playground(max_syncs=value)
    assert str(e.value) == (f"max_syncs must be at most 100000, not {value} "
                            f"(the kit's budget; {limits.hint('MAX_SYNCS_PER_CALL')})")
