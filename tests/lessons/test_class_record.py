"""The class record (issue #42, item 1): ``stsedu class serve`` records attempts as they are made.

A service is started in the test on a free port (the standard library's ThreadingHTTPServer over
an SQLite file); students post through the kit's own client (the released notebook's Handout)
or by hand, as a student trying their luck would.  What a user checks: bad input gets a status
and a one-line error and records nothing; a repeated post records once; stopping and starting
the service loses nothing; posts at once lose none; grading reads the record, and a student's
own file counts only when the record has nothing from them, marked so.
"""

from __future__ import annotations

import csv
import http.client
import json
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

import stsedu.lessons.exercises as E
from stsedu.lessons.classroom.record import ClassRecord
from stsedu.lessons.classroom.server import MAX_BODY, make_server
from stsedu.lessons.exercises import posting
from stsedu.lessons.exercises import variants as V
from stsedu.lessons.exercises.handout import NOT_RECORDED, public
from stsedu.lessons.exercises.modes import grading
from teacher_files import PARTITION, ROLLING, cli, exercise_folder

pytestmark = pytest.mark.usefixtures("practice_kernel")

ROOT = Path(__file__).resolve().parents[2]
VARIED = ROOT / "docs" / "assessed-set" / "a4-partition.yaml"     # a variant per student


class Service:
    """A class record and its service, in this process, on a free port."""

    def __init__(self, data: Path, exercises: list, names=("Ada", "Bo")) -> None:
        self.data, self.exercises = data, exercises
        self.record = ClassRecord(data, create=True)
        self.tokens = self.record.add_students(list(names))
        self.start()

    def start(self, port: int = 0) -> None:
        self.server = make_server(self.record, self.exercises, "127.0.0.1", port)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.record.close()

    def restart(self) -> None:
        """A new process's view: the record opened again from its folder, a new server on the same port."""
        port = self.port
        self.stop()
        self.record = ClassRecord(self.data)
        self.start(port)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = json.loads(resp.read())
        conn.close()
        return resp.status, data

    def post(self, student: str, payload, token: str | None = None):
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return self.request("POST", "/attempts", body,
                            {"Authorization": f"Bearer {token or self.tokens[student]}",
                             "Content-Type": "application/json"})


@pytest.fixture
def exercises(tmp_path) -> list:
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING, "t3.yaml": PARTITION})
    return E.load(folder, register_them=False) + E.load(VARIED, register_them=False)


@pytest.fixture
def service(tmp_path, exercises):
    s = Service(tmp_path / "class", exercises)
    yield s
    s.stop()


def attempt(exercise: str, answer, **extra) -> dict:
    return {"attempt": uuid.uuid4().hex, "exercise": exercise, "answer": answer, **extra}


def test_an_attempt_is_recorded_with_the_services_time_once_per_attempt_id(service):
    before = time.time()
    payload = attempt("T.1", 1)
    status, got = service.post("Ada", payload)
    assert status == 201 and (got["student"], got["exercise"], got["answer"], got["number"]) == ("Ada", "T.1", 1, 1)
    at = time.mktime(time.strptime(got["at"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    assert before - 1 <= at <= time.time() + 1          # the service's clock; the student sends no time
    again = service.post("Ada", payload)                   # a retry after a dropped connection
    assert again[0] == 200 and again[1]["duplicate"] and again[1]["at"] == got["at"]
    assert len(service.record.attempts("Ada")) == 1
    status, err = service.post("Ada", {**payload, "answer": 4})
    assert status == 409 and "already recorded with another answer" in err["error"]
    assert [a["answer"] for a in service.record.attempts("Ada")] == [1]
    # the same id from another student is that student's own attempt
    assert service.post("Bo", payload)[0] == 201
    status, mine = service.request("GET", "/attempts", headers={"Authorization": f"Bearer {service.tokens['Ada']}"})
    assert status == 200 and [a["answer"] for a in mine["attempts"]] == [1] and mine["student"] == "Ada"


def raw_post(port: int, head: str, body: bytes = b"") -> tuple[int, dict]:
    """A request written by hand (a header missing, a length that lies)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head.encode() + b"\r\n\r\n" + body)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head_part, _, payload = data.partition(b"\r\n\r\n")
    return int(head_part.split()[1]), json.loads(payload)


@pytest.mark.parametrize("case, status, error", [
    ("no token", 401, "no token: send the header Authorization: Bearer <your token>"),
    ("bad token", 401, "unknown token: not a student of this class"),
    ("malformed JSON", 400, "body: not JSON (line 1: "),
    ("not an object", 400, 'body: must be a JSON object {"attempt": ..., "exercise": ..., "answer": ...}'),
    ("unknown exercise", 404, "exercise: no exercise 'Z.9' in this class's assignment (T.1, T.3, A.4)"),
    ("unreadable answer", 400, "answer: cannot read it as exercise T.1's answer: write a whole number"),
    ("another's variant", 409, "variant: 'replicas=9 partition=9' is not Ada's variant of A.4"),
    ("unknown field", 400, "at: unknown field; known: attempt, exercise, answer, variant"),
    ("bad attempt id", 400, "attempt: must be an id of 8 to 64 letters, digits, - or _"),
    ("no answer", 400, "answer: required"),
    ("not UTF-8", 400, "body: "),
])
def test_bad_input_gets_a_clear_error_and_records_nothing(service, case, status, error):
    body = {"no token": attempt("T.1", 1), "bad token": attempt("T.1", 1), "malformed JSON": b'{"attempt": ',
            "not an object": b"[1, 2]", "unknown exercise": attempt("Z.9", 1),
            "unreadable answer": attempt("T.1", "several"),
            "another's variant": attempt("A.4", ["web-1"], variant="replicas=9 partition=9"),
            "unknown field": {**attempt("T.1", 1), "at": "2020-01-01T00:00:00"},
            "bad attempt id": {**attempt("T.1", 1), "attempt": "1"},
            "no answer": {k: v for k, v in attempt("T.1", 1).items() if k != "answer"},
            "not UTF-8": b'{"attempt": "\xff\xfe"}'}[case]
    if case == "no token":
        got = service.request("POST", "/attempts", json.dumps(body).encode())
    else:
        got = service.post("Ada", body, token="not-a-token" if case == "bad token" else None)
    assert got[0] == status and got[1]["error"].startswith(error), got
    assert list(got[1]) == ["error"] and "Traceback" not in got[1]["error"]
    assert service.record.attempts() == []


def test_an_oversize_body_is_refused_unread_and_a_missing_length_too(service):
    token = service.tokens["Ada"]
    status, err = raw_post(service.port, f"POST /attempts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                                         f"Content-Length: {MAX_BODY + 1}")   # and no body sent: never read
    assert (status, err["error"]) == (413, f"body: {MAX_BODY + 1} bytes is too large (at most {MAX_BODY})")
    status, err = raw_post(service.port, f"POST /attempts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}")
    assert (status, err["error"]) == (411, "Content-Length: required (the body's size in bytes)")
    status, err = service.request("POST", "/students", b"{}")
    assert status == 404 and "post attempts to .../attempts" in err["error"]
    assert service.record.attempts() == []


def test_a_jupyterhub_prefix_reaches_the_service(service):
    """JupyterHub's proxy forwards /services/<name>/... with the prefix."""
    status, got = service.request("POST", "/services/stsedu-class/attempts", json.dumps(attempt("T.1", 1)).encode(),
                                  {"Authorization": f"Bearer {service.tokens['Ada']}"})
    assert status == 201 and got["student"] == "Ada"
    assert service.request("GET", "/services/stsedu-class/health")[1]["students"] == 2


def test_a_restart_loses_nothing(service):
    """Post, stop, start (the record opened again from its folder), read."""
    for n in range(3):
        assert service.post("Ada", attempt("T.1", n))[0] == 201
    service.restart()
    assert [a["answer"] for a in service.record.attempts("Ada")] == [0, 1, 2]
    assert service.post("Ada", attempt("T.1", 5))[1]["number"] == 4       # numbering goes on


def test_posts_at_once_lose_none(tmp_path, exercises):
    """12 students x 5 attempts, each student a thread posting as fast as it can (the benchmark's
    60 x 20 in miniature: benchmarks/run.py item 11)."""
    names = [f"S{i:02d}" for i in range(12)]
    s = Service(tmp_path / "class", exercises, names)
    failures = []

    def student(name):
        for n in range(5):
            status, got = s.post(name, attempt("T.1", n))
            if status != 201:
                failures.append((name, status, got))
    threads = [threading.Thread(target=student, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert failures == []
        rows = s.record.attempts()
        assert len(rows) == 60
        for name in names:
            assert [a["answer"] for a in rows if a["student"] == name] == [0, 1, 2, 3, 4]
    finally:
        s.stop()


def handout(service, student: str = "Ada", url: str | None = None):
    pubs = [public(e.variant(student)) for e in service.exercises]
    return E.Handout(pubs, student=student, record=service.url if url is None else url,
                     token=service.tokens[student])


def test_the_notebook_posts_each_new_attempt_and_says_what_the_class_recorded(service, tmp_path):
    h = handout(service)
    msg = h.answer("T.1", 4)
    assert msg.startswith("Exercise T.1: answer 4 recorded by the class at 20") and "(server time)" in msg
    assert h.answer("T.1", 4).startswith("Exercise T.1: answer 4 recorded")   # the same cell again: no new attempt
    h.answer("T.1", 1)
    mine = E.load(VARIED, register_them=False)[0].variant("Ada")
    with grading():
        right = mine.expected_answer()
    assert "recorded by the class" in h.answer("A.4", list(right))
    rows = service.record.attempts("Ada")
    assert [(a["exercise"], a["answer"]) for a in rows] == [("T.1", 4), ("T.1", 1), ("A.4", list(right))]
    assert rows[-1]["variant"] == V.describe(mine.values)          # the service's: Ada's own variant
    # the file is the receipt: each attempt with the time the class recorded it
    h.save(str(tmp_path / "my-answers.json"))
    saved = json.loads((tmp_path / "my-answers.json").read_text())["attempts"]["T.1"]
    assert [a["class"] for a in saved] == [r["at"] for r in rows[:2]]


def test_without_the_service_the_file_keeps_the_answer_marked_not_recorded_and_a_rerun_posts_it(service, tmp_path):
    h = handout(service)
    service.stop()
    msg = h.answer("T.1", 1)
    assert msg.startswith("Exercise T.1: answer 1 kept in your file only, NOT recorded by the class (no answer "
                          f"from the class record at {service.url}")
    h.save(str(tmp_path / "my-answers.json"))
    saved = json.loads((tmp_path / "my-answers.json").read_text())["attempts"]["T.1"]
    assert [a["class"] for a in saved] == [NOT_RECORDED]
    service.record = ClassRecord(service.data)
    service.start(service.port)
    assert "recorded by the class at" in h.answer("T.1", 1)          # the same cell run again: posted now
    assert [a["answer"] for a in service.record.attempts("Ada")] == [1]


def test_the_client_retries_a_dropped_connection_with_the_same_attempt_id(service, monkeypatch):
    real, calls = posting.urllib.request.urlopen, []

    def flaky(req, timeout):
        calls.append(json.loads(req.data)["attempt"])
        if len(calls) == 1:
            real(req, timeout=timeout).close()          # recorded, but the answer is lost on the way
            raise posting.urllib.error.URLError("connection reset")
        return real(req, timeout=timeout)
    monkeypatch.setattr(posting.urllib.request, "urlopen", flaky)
    got = posting.post(service.url, service.tokens["Ada"], attempt("T.1", 1))
    assert len(calls) == 2 and calls[0] == calls[1] and got["duplicate"] is True
    assert len(service.record.attempts("Ada")) == 1


def write_sheet(path: Path, student: str, attempts: dict) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"student": student, "answers": {},
                                "attempts": {k: [{"answer": a, "at": None} for a in v] for k, v in attempts.items()}}))
    return str(path)


def test_grading_reads_the_record_and_a_students_edited_file_gains_nothing(service, tmp_path):
    """Ada answered T.1 wrong then right (recorded); her file, edited, says right at once.  Bo's
    notebook could not reach the service: his file counts, marked.  Cy, on the roster, sent nothing."""
    service.record.add_students(["Cy"])
    service.post("Ada", attempt("T.1", 4))
    service.post("Ada", attempt("T.1", 1))
    ada = write_sheet(tmp_path / "subs" / "ada" / "my-answers.json", "Ada", {"T.1": [1], "T.3": [["web-3", "web-4"]]})
    bo = write_sheet(tmp_path / "subs" / "bo" / "my-answers.json", "Bo", {"T.1": [1]})
    out_csv = tmp_path / "scores.csv"
    code, out, err = cli("grade", ada, bo, "--class", str(service.data), "--exercises", str(tmp_path / "my-exercises"),
                         "--policy", "first", "--out", str(out_csv))
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader(out_csv.open(newline=""))}
    assert (rows["Ada"]["source"], rows["Ada"]["T.1"], rows["Ada"]["T.3"], rows["Ada"]["attempts T.1"]) == (
        "class record", "0", "0", "2")
    assert f"file not used, the class record is: {ada}" in rows["Ada"]["misses"]
    assert (rows["Bo"]["source"], rows["Bo"]["T.1"]) == ("file, not recorded by the class", "1")
    assert rows["Cy"]["source"] == "class record: nothing recorded" and rows["Cy"]["status"] == "partial"
    assert "graded from the student's file, not recorded by the class" in out
    # without --policy first, Ada's recorded last attempt counts: the record, not the file, decides
    code, out, err = cli("grade", ada, "--class", str(service.data), "--exercises", str(tmp_path / "my-exercises"),
                         "--out", str(out_csv))
    rows = {r["student"]: r for r in csv.DictReader(out_csv.open(newline=""))}
    assert (rows["Ada"]["T.1"], rows["Ada"]["T.3"], rows["Ada"]["total"]) == ("1", "0", "1")


def test_the_class_commands_say_what_is_wrong_in_one_line(tmp_path):
    code, _, err = cli("class", "serve", "--data", str(tmp_path / "none"))
    assert code == 2 and err == "error: --exercises: give the assignment's exercises, as released: --exercises my-exercises/\n"
    code, _, err = cli("class", "serve", "--data", str(tmp_path / "none"), "--exercises", str(VARIED))
    assert code == 2 and err == (f"error: {tmp_path / 'none'}: no class record here; start one with stsedu class "
                                 f"add-students roster.csv --data {tmp_path / 'none'}\n")
    (tmp_path / "roster.csv").write_text("student\nAda\nBo\n")
    code, out, _ = cli("class", "add-students", str(tmp_path / "roster.csv"), "--data", str(tmp_path / "class"))
    assert code == 0 and out.startswith("2 student(s) added") and (tmp_path / "class").stat().st_mode & 0o777 == 0o700
    tokens = ClassRecord(tmp_path / "class").tokens()
    (tmp_path / "roster.csv").write_text("student\nAda\nBo\nCy\n")
    code, out, _ = cli("class", "add-students", str(tmp_path / "roster.csv"), "--data", str(tmp_path / "class"))
    assert out.startswith("1 student(s) added") and ClassRecord(tmp_path / "class").tokens().items() >= tokens.items()
    folder = exercise_folder(tmp_path, {"t1.yaml": ROLLING})
    code, _, err = cli("exercise", "release", "--exercises", str(folder), "--students", str(tmp_path / "roster.csv"),
                       "--class", str(tmp_path / "class"), "--out", str(tmp_path / "rel" / "ps1.ipynb"))
    assert code == 2 and "--class needs --url http://HOST:PORT" in err
    code, _, err = cli("grade", "--exercises", str(folder))
    assert code == 2 and "give the answer files to grade, or the class record with --class DATA" in err


def test_saving_says_whether_the_class_has_every_answer(service, tmp_path):
    h = handout(service)
    h.answer("T.1", 1)
    assert h.save(str(tmp_path / "a.json")).endswith("The class has recorded every answer; the file is your receipt.")
    service.stop()
    h.answer("T.1", 4)
    said = h.save(str(tmp_path / "a.json"))
    assert "1 answer(s) are NOT recorded by the class (no answer from the class record" in said
    assert said.endswith("hand in this file, it is what counts for them.")
    service.record = ClassRecord(service.data)
    service.start(service.port)


def test_answers_the_class_could_not_record_count_from_the_file_marked(service, tmp_path):
    """Ada's first answer reaches the class; then her network fails and T.3 stays in her file,
    marked.  Her file counts for T.3 only: not for T.1 (the record has it), and not for an attempt
    she adds by hand without the mark."""
    h = handout(service)
    h.answer("T.1", 4)                                   # recorded: wrong
    service.stop()
    h.answer("T.1", 1)                                   # not recorded: the record's T.1 stays 4
    h.answer("T.3", ["web-3", "web-4"])                  # not recorded: right
    path = tmp_path / "subs" / "ada" / "my-answers.json"
    path.parent.mkdir(parents=True)
    h.save(str(path))
    data = json.loads(path.read_text())
    data["attempts"]["A.4"] = [{"answer": ["web-1"], "at": None}]          # added by hand, unmarked
    path.write_text(json.dumps(data))
    out_csv = tmp_path / "scores.csv"
    code, out, err = cli("grade", str(path), "--class", str(service.data), "--exercises",
                         str(tmp_path / "my-exercises"), "--out", str(out_csv))
    service.record = ClassRecord(service.data)
    service.start(service.port)
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader(out_csv.open(newline=""))}
    ada = rows["Ada"]
    assert (ada["source"], ada["T.1"], ada["T.3"], ada["attempts T.1"], ada["attempts T.3"]) == (
        "class record + file", "0", "2", "1", "1")
    assert "T.3 graded from the student's file, not recorded by the class" in ada["misses"]
    assert "T.3 graded from the student's file, not recorded by the class" in out
