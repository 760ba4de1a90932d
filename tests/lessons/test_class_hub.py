"""``stsedu class serve`` as a JupyterHub service (issue #42): a student's own hub token identifies them.

No real JupyterHub: a fake hub API on loopback answers ``GET /hub/api/user`` as JupyterHub does
(the token's owner, ``kind`` and ``name``; 403 for a token it does not know), and counts how
often it is asked.  What a teacher checks: a roster student posts with the token their hub
server holds and the record names them; a hub user not on the roster, a hub service and an
unknown token are refused and record nothing; a hub that does not answer is said, not a
traceback; the roster's own tokens still work beside the hub; the notebook released with
``--hub`` carries no token and its kernel sends ``JUPYTERHUB_API_TOKEN``.
"""

from __future__ import annotations

import http.client
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import stsedu.lessons.exercises as E
from stsedu.lessons.classroom.hub import HubIdentity
from stsedu.lessons.classroom.record import ClassRecord
from stsedu.lessons.classroom.server import make_server
from stsedu.lessons.exercises.handout import public
from teacher_files import ROLLING, cli, exercise_folder

pytestmark = pytest.mark.usefixtures("practice_kernel")

HUB_TOKENS = {"tok-ada": {"kind": "user", "name": "Ada"},
              "tok-zed": {"kind": "user", "name": "Zed"},              # a hub user, not on the roster
              "tok-svc": {"kind": "service", "name": "announcement"}}  # a hub service


class FakeHub:
    """JupyterHub's ``GET /hub/api/user`` for the tokens of :data:`HUB_TOKENS`."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        hub = self

        class Api(BaseHTTPRequestHandler):
            def do_GET(self):
                scheme, _, token = self.headers.get("Authorization", "").partition(" ")
                hub.asked.append(token)
                model = HUB_TOKENS.get(token) if scheme == "token" and self.path == "/hub/api/user" else None
                body = json.dumps({**model, "scopes": ["access:servers!user"]} if model
                                  else {"status": 403, "message": "Forbidden"}).encode()
                self.send_response(200 if model else 403)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
        self.api = f"http://127.0.0.1:{self.server.server_address[1]}/hub/api"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hub():
    h = FakeHub()
    yield h
    h.stop()


@pytest.fixture
def service(tmp_path, hub):
    exs = E.load(exercise_folder(tmp_path, {"t1.yaml": ROLLING}), register_them=False)
    rec = ClassRecord(tmp_path / "class", create=True)
    tokens = rec.add_students(["Ada", "Bo"])
    server = make_server(rec, exs, "127.0.0.1", 0, hub=HubIdentity(hub.api))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url, server.record, server.tokens, server.exercises = (
        f"http://127.0.0.1:{server.server_address[1]}", rec, tokens, exs)
    yield server
    server.shutdown()
    server.server_close()
    rec.close()


def post(server, token: str, answer=1, scheme: str = "Bearer") -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.request("POST", "/services/stsedu-class/attempts",
                 json.dumps({"attempt": uuid.uuid4().hex, "exercise": "T.1", "answer": answer}).encode(),
                 {"Authorization": f"{scheme} {token}"})
    resp = conn.getresponse()
    got = resp.status, json.loads(resp.read())
    conn.close()
    return got


def test_a_students_hub_token_identifies_them_and_the_hub_is_asked_once(service, hub):
    status, got = post(service, "tok-ada")
    assert (status, got["student"], got["number"]) == (201, "Ada", 1)
    status, got = post(service, "tok-ada", 2, scheme="token")        # JupyterHub's own header form
    assert (status, got["student"], got["number"]) == (201, "Ada", 2)
    assert [a["answer"] for a in service.record.attempts("Ada")] == [1, 2]
    assert hub.asked == ["tok-ada"]                                  # the hub's answer is kept
    status, got = post(service, service.tokens["Bo"])                # a roster token, beside the hub
    assert (status, got["student"]) == (201, "Bo") and hub.asked == ["tok-ada"]


@pytest.mark.parametrize("token, status, error", [
    ("tok-zed", 403, "student: 'Zed' (your JupyterHub user) is not in this class's roster; ask your teacher"),
    ("tok-svc", 401, "unknown token: neither a student's token of this class nor a JupyterHub user's"),
    ("tok-nobody", 401, "unknown token: neither a student's token of this class nor a JupyterHub user's"),
])
def test_who_the_hub_does_not_name_as_a_student_of_the_roster_records_nothing(service, token, status, error):
    got = post(service, token)
    assert got[0] == status and got[1]["error"].startswith(error), got
    assert service.record.attempts() == []


def test_a_hub_that_does_not_answer_is_said_in_one_line(service, hub):
    hub.stop()
    status, got = post(service, "tok-ada")
    assert status == 503 and got["error"].startswith(f"hub: cannot ask JupyterHub at {hub.api} (")
    assert service.record.attempts() == []
    status, got = post(service, service.tokens["Bo"])                 # roster tokens need no hub
    assert status == 201


def test_without_a_hub_a_hub_token_is_unknown(tmp_path, hub):
    exs = E.load(exercise_folder(tmp_path, {"t1.yaml": ROLLING}), register_them=False)
    rec = ClassRecord(tmp_path / "class", create=True)
    rec.add_students(["Ada"])
    server = make_server(rec, exs, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        status, got = post(server, "tok-ada")
        assert status == 401 and got["error"].startswith("unknown token: not a student of this class")
        assert hub.asked == [] and rec.attempts() == []
    finally:
        server.shutdown()
        server.server_close()
        rec.close()


def test_a_notebook_released_for_the_hub_carries_no_token_and_posts_with_the_kernels(service, tmp_path,
                                                                                       monkeypatch):
    (tmp_path / "roster.csv").write_text("Ada\nBo\n")
    code, out, err = cli("exercise", "release", "--exercises", str(tmp_path / "my-exercises"), "--students",
                         str(tmp_path / "roster.csv"), "--class", str(tmp_path / "class"), "--url", service.url,
                         "--hub", "--out", str(tmp_path / "release" / "test1.ipynb"))
    assert code == 0, err
    text = (tmp_path / "release" / "Ada" / "test1.ipynb").read_text()
    assert service.url in text and service.tokens["Ada"] not in text and "token=''" in text
    # Ada's kernel on the hub: her server's token in its environment
    monkeypatch.delenv("STSEDU_CLASS_TOKEN", raising=False)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "tok-ada")
    h = E.Handout([public(e.variant("Ada")) for e in service.exercises], student="Ada", record=service.url, token="")
    assert "recorded by the class at" in h.answer("T.1", 3)
    assert [(a["student"], a["answer"]) for a in service.record.attempts()] == [("Ada", 3)]


def test_hub_goes_with_class(tmp_path):
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING})
    (tmp_path / "roster.csv").write_text("Ada\n")
    code, out, err = cli("exercise", "release", "--exercises", str(folder), "--students", str(tmp_path / "roster.csv"),
                         "--hub", "--out", str(tmp_path / "r" / "t.ipynb"))
    assert code != 0 and "--hub goes with --class" in err and "Traceback" not in err


def test_a_refused_token_reaches_the_notebook_as_the_services_words(service):
    """The kit's own client, with a token the class does not know: the refusal in the service's words,
    not 'no answer' (the service reads the body it refuses before closing: closing over unread bytes
    may reset the connection; on loopback the answer has arrived first either way)."""
    from stsedu.lessons.exercises import posting
    for _ in range(20):
        with pytest.raises(posting.PostError) as e:
            posting.post(service.url, "not-a-token", {"attempt": uuid.uuid4().hex, "exercise": "T.1", "answer": 1},
                         tries=1)
        assert str(e.value).startswith("the class record refused it: unknown token"), e.value
