"""A cluster's snapshot (stsedu.sim.snapshot) and the state file of ``stsedu kubectl`` that keeps one.

Dump, load, carry on: every later output and the whole trace are those of never having stopped
(same seed, same trace), checked by running seeded command sequences both ways.  A state file
that is not this user's snapshot is refused with one line and left as it was.
"""

from __future__ import annotations

import base64
import io
import json
import random

import pytest

from stsedu import Cluster
from stsedu.console import cli
from stsedu.console.session import Session
from stsedu.sim.snapshot import SnapshotError, dump, load
from helpers import web

KEY = b"k" * 32

COMMANDS = [
    "apply -f https://k8s.io/examples/application/web/web.yaml",
    "apply -f https://k8s.io/examples/application/web/web-parallel.yaml",
    "get pods", "get pods -o wide", "get pods -w -l app=nginx", "get sts web -o yaml", "get pvc",
    "describe sts web", "get controllerrevisions",
    "scale sts web --replicas={n}", "set image sts/web nginx=registry.k8s.io/nginx-slim:0.{v}",
    "patch sts web -p '{{\"spec\":{{\"updateStrategy\":{{\"type\":\"OnDelete\"}}}}}}'",
    "patch sts web -p '{{\"spec\":{{\"updateStrategy\":{{\"type\":\"RollingUpdate\"}}}}}}'",
    "delete pod web-{i}", "delete pod web-{i} --wait=false", "delete pod web-{i} --grace-period=0 --force",
    "rollout status sts/web", "rollout history sts/web", "rollout undo sts/web", "rollout restart sts/web",
    "label pod web-{i} tier=x --overwrite", "annotate sts web note={v} --overwrite",
    "exec web-{i} -- sh -c 'echo {v} > /usr/share/nginx/html/index.html'",
    "exec web-{i} -- curl http://localhost/", "exec web-{i} -- hostname",
    "delete sts web --cascade=orphan", "delete sts web --wait=false", "delete pvc www-web-{i}",
    "scale sts web --replicas=bogus", "get nope",
]


def commands(seed: int, count: int) -> list[str]:
    """*count* command lines drawn with *seed*: the tutorial's verbs on its set, refusals among them."""
    rng = random.Random(seed)
    return [rng.choice(COMMANDS).format(n=rng.randint(0, 5), v=rng.randint(20, 29), i=rng.randint(0, 4))
            for _ in range(count)]


def outcome(r) -> tuple:
    return r.stdout, r.stderr, r.status, r.start, r.end, r.settled, r.changed, r.warned_first


def everything(s: Session) -> tuple:
    """All a learner could read back: the objects, the clock, the trace, the events still due."""
    c = s.cluster
    return c.dump(), c.now, c.trace.rows(), c.clock.pending(), s.files.data, s.last_command


TUTORIAL = ["apply -f https://k8s.io/examples/application/web/web.yaml", "get pods -w -l app=nginx",
            "scale sts web --replicas=5", "get pods -w -l app=nginx", "delete pod web-1 --wait=false",
            "get pods -w", "exec web-0 -- sh -c 'echo hi > /usr/share/nginx/html/index.html'",
            "set image sts/web nginx=registry.k8s.io/nginx-slim:0.27", "rollout status sts/web",
            "delete pod web-0", "exec web-0 -- curl http://localhost/", "rollout undo sts/web", "get pods -w"]


@pytest.mark.parametrize("seed,jitter", [(1, 0.0), (2, 1.5), (3, 0.7), (None, 0.9)])
def test_a_session_loaded_from_its_snapshot_after_each_command_says_what_one_that_never_stopped_says(seed, jitter):
    """Random lines (seeded), or the tutorial's with its watches; the kubelet's stages jittered by
    the cluster's seeded generator, so that the generator's state is part of what must come back."""
    lines = TUTORIAL if seed is None else commands(seed, 40)
    straight = Session(Cluster(seed=seed or 0, stages={"jitter": jitter}))
    kept = Session(Cluster(seed=seed or 0, stages={"jitter": jitter}))
    for line in lines:
        kept = load(dump(kept, KEY), KEY)
        assert outcome(kept.run(line)) == outcome(straight.run(line)), line
    assert everything(load(dump(kept, KEY), KEY)) == everything(straight)


def test_a_cluster_stopped_with_events_in_flight_carries_on_as_if_it_had_not():
    """Stopped half way through a rollout, with kubelet steps, informer events (delay 0.5 s), the
    garbage collector and a work queue's back-off all scheduled, and a fault injected: the loaded
    copy runs on to the same trace."""
    def start():
        c = Cluster(seed=7, informer_delay=0.5, concurrent_syncs=2, stages={"jitter": 2.0})
        c.apply(web(4, "Parallel", claims=True, min_ready=2))
        c.inject_error("create", "Pod", count=2)
        c.kubelet.crash_loop(5, pod="web-2")
        c.run(until=3.2)
        c.delete_pod("web-0", wait=False)
        c.advance(0.3)
        return c
    straight, stopped = start(), start()
    assert stopped.clock.pending(), "something must be in flight for this test to mean anything"
    copy = load(dump(stopped, KEY), KEY)
    for c in (straight, copy):
        c.set_image("web", "nginx:2")
        c.run(until=60)
    assert copy.dump() == straight.dump()
    assert copy.trace.rows() == straight.trace.rows()
    assert copy.clock.pending() == straight.clock.pending()


def test_a_loaded_cluster_is_its_own():
    """The copy shares nothing with the original: a change to one leaves the other as it was."""
    c = Cluster(seed=1)
    c.apply(web(2))
    c.run()
    copy = load(dump(c, KEY), KEY)
    copy.scale("web", 5)
    copy.run()
    assert len(copy.pods()) == 5 and len(c.pods()) == 2


@pytest.mark.parametrize("change", ["another key", "a flipped byte", "cut short", "nothing"])
def test_a_snapshot_that_is_not_this_keys_is_refused_before_anything_is_read(change):
    data = dump(Cluster(), KEY)
    key = KEY
    if change == "another key":
        key = b"x" * 32
    elif change == "a flipped byte":
        data = data[:-5] + bytes([data[-5] ^ 1]) + data[-4:]
    elif change == "cut short":
        data = data[:20]
    else:
        data = b""
    with pytest.raises(SnapshotError, match="not a snapshot this user's stsedu"):
        load(data, key)


def test_a_signed_snapshot_naming_anything_but_the_kits_classes_is_refused():
    import pickle
    import zlib

    from stsedu.sim import snapshot
    body = zlib.compress(pickle.dumps(io.StringIO()))
    with pytest.raises(SnapshotError, match=r"names _io.StringIO, which a cluster's snapshot never holds"):
        load(snapshot._signature(KEY, body) + body, KEY)  # noqa: SLF001 - forging one on purpose


# ------------------------------------------------------------------ the state file of stsedu kubectl


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """``stsedu kubectl ARGV...`` with its state in a fresh file and its key in a fresh home."""
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(tmp_path / "state.json"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def run(*argv, stdin=""):
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(list(argv), out, err, io.StringIO(stdin))
        assert "Traceback" not in out.getvalue() + err.getvalue()
        return code, out.getvalue(), err.getvalue()
    run.path = tmp_path / "state.json"
    return run


def test_the_terminal_says_what_one_session_says(kubectl):
    """Each call loads the snapshot the last one wrote: the outputs are those of one session."""
    import shlex
    assert kubectl("reset", "--seed", "5")[0] == 0
    one = Session(seed=5)
    for line in commands(5, 25):
        r = one.run(line)
        assert kubectl(*shlex.split(line)) == (r.status, r.stdout, r.stderr), line


def test_the_state_file_is_a_snapshot_not_a_list_of_commands(kubectl):
    kubectl("apply", "-f", "https://k8s.io/examples/application/web/web.yaml")
    state = json.loads(kubectl.path.read_text())
    assert sorted(state) == ["seed", "snapshot", "version"]
    assert isinstance(load_from(state, kubectl.path.parent / "home"), Session)


def load_from(state: dict, home) -> Session:
    from stsedu.sim.snapshot import user_key
    return load(base64.b64decode(state["snapshot"]), user_key(home / ".cache" / "stsedu"))


def test_an_older_kits_list_of_commands_is_replayed_once_and_kept_as_a_snapshot(kubectl):
    kubectl.path.write_text(json.dumps({"version": "0.0", "seed": 3, "commands": [
        ["apply -f https://k8s.io/examples/application/web/web.yaml", None, {}],
        ["scale sts web --replicas=3", None]]}))
    code, out, err = kubectl("get", "pods", "-o", "name")
    assert (code, out) == (0, "pod/web-0\npod/web-1\npod/web-2\n")
    assert err == (f"stsedu kubectl: {kubectl.path} is an older kit's list of 2 commands; "
                   "replaying them once, then keeping a snapshot\n")
    assert "snapshot" in json.loads(kubectl.path.read_text())
    assert kubectl("get", "pods", "-o", "name") == (0, "pod/web-0\npod/web-1\npod/web-2\n", "")


def _snapshot_state(kubectl) -> dict:
    kubectl("apply", "-f", "https://k8s.io/examples/application/web/web.yaml")
    return json.loads(kubectl.path.read_text())


@pytest.mark.parametrize("damage,why", [
    (lambda s: {**s, "version": "0.0.1"}, 'it was written by stsedu "0.0.1", and this is stsedu'),
    (lambda s: {**s, "snapshot": 5}, "the snapshot is not text"),
    (lambda s: {**s, "snapshot": "not base64!"}, "the snapshot is not base64 text"),
    (lambda s: {**s, "snapshot": base64.b64encode(b"0" * 40).decode()}, "not a snapshot this user's stsedu"),
    (lambda s: {**s, "snapshot": s["snapshot"][:-8] + "AAAAAAA="}, "not a snapshot this user's stsedu"),
    (lambda s: {**s, "snapshot": "é"}, "the snapshot is not base64 text"),
    (lambda s: {**s, "seed": -1}, "seed is not a whole number"),
    (lambda s: {"seed": 0}, "not a stsedu kubectl state file"),
])
def test_a_damaged_or_foreign_snapshot_is_one_line_and_the_file_stays(kubectl, damage, why):
    text = json.dumps(damage(_snapshot_state(kubectl)))
    kubectl.path.write_text(text)
    code, out, err = kubectl("get", "pods")
    assert code == 1 and out == ""
    assert err.startswith(f"error: cannot read the state file {kubectl.path}: ") and why in err, err
    assert err.count("\n") == 1 and err.rstrip().endswith("run 'stsedu kubectl reset' to start a new cluster")
    assert kubectl.path.read_text() == text
    assert kubectl("reset")[0] == 0 and kubectl("get", "pods")[2] == "No resources found in default namespace.\n"


def test_another_users_snapshot_is_refused(kubectl, tmp_path, monkeypatch):
    """Signed with another user's key (another home): refused, never unpickled."""
    _snapshot_state(kubectl)
    text = kubectl.path.read_text()
    monkeypatch.setenv("HOME", str(tmp_path / "someone-else"))
    code, _, err = kubectl("get", "pods")
    assert code == 1 and "not a snapshot this user's stsedu" in err and kubectl.path.read_text() == text


def test_reset_with_a_seed_gives_that_seeds_cluster(kubectl):
    kubectl("reset", "--seed", "9")
    assert json.loads(kubectl.path.read_text())["seed"] == 9
    kubectl("apply", "-f", "https://k8s.io/examples/application/web/web.yaml")
    kubectl("get", "pods")
    s = Session(seed=9)
    s.run("apply -f https://k8s.io/examples/application/web/web.yaml")
    s.run("get pods")
    state = json.loads(kubectl.path.read_text())
    assert state["seed"] == 9
    assert everything(load_from(state, kubectl.path.parent / "home")) == everything(s)
