"""``stsedu class serve``: the HTTP service that records a class's attempts as they are made.

The standard library's ThreadingHTTPServer, JSON in and out:

* ``POST .../attempts`` with ``Authorization: Bearer <the student's token>`` and
  ``{"attempt": "<id>", "exercise": "T.1", "answer": ..., "variant": "replicas=5"}``: the
  attempt is checked (a known exercise of the assignment, an answer of its kind, the student's
  own variant), timed by the service's clock and recorded once per attempt id; the answer is
  what was recorded (201, or 200 for an attempt id already recorded, changing nothing);
* ``GET .../attempts`` with the token: the student's own record;
* ``GET .../health``: that the service runs, and how many students and exercises it has.

Paths may carry a prefix (JupyterHub's proxy forwards ``/services/<name>/attempts``).  Bad input
gets a status and ``{"error": "<field>: <problem>"}``, records nothing and never a traceback;
a body is read only up to :data:`MAX_BODY` bytes, within :data:`READ_TIMEOUT` seconds.
"""

from __future__ import annotations

import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ... import files as _files
from ..exercises import kinds as K
from ..exercises.grading import printable
from ..exercises.variants import describe
from .record import ClassRecord

MAX_BODY = 64 * 1024
"""The largest request body read (an answer is a few hundred bytes)."""
READ_TIMEOUT = 10
"""Seconds a client has to send its request (a stalled one holds no thread longer)."""
ATTEMPT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
BODY_KEYS = ("attempt", "exercise", "answer", "variant")
LIMITS = _files.Limits("request body", MAX_BODY, 2_000)


class Refused(Exception):
    """A request the service refuses: its HTTP status and the message for the student."""

    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, message
        super().__init__(message)


class ClassService:
    """What the service does, apart from HTTP (so it can be called directly in a test)."""

    def __init__(self, record: ClassRecord, exercises: list, log=None) -> None:
        self.record = record
        self.exercises = {e.id: e for e in exercises}
        self.log = log
        self._variants: dict[tuple[str, str], tuple] = {}

    def student(self, authorization: str | None) -> tuple[int, str]:
        if not authorization or not authorization.startswith("Bearer ") or not authorization[7:].strip():
            raise Refused(401, "no token: send the header Authorization: Bearer <your token>")
        found = self.record.student_for(authorization[7:].strip())
        if found is None:
            raise Refused(401, "unknown token: not a student of this class (use the notebook released to you)")
        return found

    def post(self, authorization: str | None, body: bytes) -> tuple[int, dict]:
        """Record one attempt: (status, what was recorded)."""
        return self.post_as(self.student(authorization), body)

    def post_as(self, student: tuple[int, str], body: bytes) -> tuple[int, dict]:
        sid, name = student
        data = parse_body(body)
        ex = self.exercises.get(data["exercise"])
        if ex is None:
            ids = ", ".join(self.exercises)
            raise Refused(404, f"exercise: no exercise {printable(data['exercise'])[:100]!r} in this class's "
                               f"assignment ({ids})")
        mine, variant = self.variant(ex, name)
        if data.get("variant", variant) != variant:
            raise Refused(409, f"variant: {printable(data['variant'])[:200]!r} is not {name}'s variant of "
                               f"{ex.id} ({variant or 'it has none'})")
        try:
            given = K.jsonable(mine.read(data["answer"]))      # its form only: never judged here
        except K.AnswerFormatError as e:
            raise Refused(400, f"answer: cannot read it as exercise {ex.id}'s answer: {e}") from None
        row, again = self.record.record(sid, data["attempt"], ex.id, given, variant)
        if again and (row["exercise"] != ex.id or row["answer"] != given):
            raise Refused(409, f"attempt: {data['attempt']} is already recorded with another answer; "
                               "a new attempt takes a new id")
        if self.log and not again:
            self.log(f"{row['at']}  {printable(name)}  {ex.id}  attempt {row['number']}")
        return (200 if again else 201), {"recorded": True, "duplicate": again, "student": name, **row}

    def variant(self, ex, name: str):
        """*name*'s variant of *ex* and its description (kept: a student posts many times)."""
        key = (ex.id, name)
        if key not in self._variants:
            mine = ex.variant(name)
            self._variants[key] = (mine, describe(mine.values) if ex.parameters else "")
        return self._variants[key]

    def mine(self, authorization: str | None) -> dict:
        _sid, name = self.student(authorization)
        return {"student": name, "attempts": self.record.attempts(name)}

    def health(self) -> dict:
        return {"service": "stsedu class record", "students": len(self.record.students()),
                "exercises": list(self.exercises)}


def parse_body(body: bytes) -> dict:
    """The JSON body of a post, checked: Refused(400, field: problem) otherwise."""
    try:
        data = _files.load_json(_files.decode(body, LIMITS), LIMITS)
    except _files.FileReadError as e:
        raise Refused(400, f"body: {e}") from None
    if not isinstance(data, dict):
        raise Refused(400, 'body: must be a JSON object {"attempt": ..., "exercise": ..., "answer": ...}')
    for k in data:
        if k not in BODY_KEYS:
            raise Refused(400, f"{printable(k)[:50]}: unknown field; known: {', '.join(BODY_KEYS)}")
    for k in ("attempt", "exercise", "answer"):
        if k not in data:
            raise Refused(400, f"{k}: required")
    if not isinstance(data["attempt"], str) or not ATTEMPT_ID.fullmatch(data["attempt"]):
        raise Refused(400, "attempt: must be an id of 8 to 64 letters, digits, - or _")
    if not isinstance(data["exercise"], str):
        raise Refused(400, "exercise: must be an exercise id (a string)")
    if "variant" in data and not isinstance(data["variant"], str):
        raise Refused(400, "variant: must be a string such as 'replicas=5 partition=2'")
    return data


class Handler(BaseHTTPRequestHandler):
    """One request: routed by the path's last part, answered with JSON."""

    server_version = "stsedu-class"
    timeout = READ_TIMEOUT
    service: ClassService      # set on the server's subclass by serve()

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path.rsplit("/", 1)[-1]

    def _answer(self, fn) -> None:
        try:
            status, payload = fn()
        except Refused as r:
            status, payload = r.status, {"error": r.message}
        except Exception as e:             # never a traceback to the student; one line for the teacher
            print(f"stsedu class serve: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  file=sys.stderr)
            status, payload = 500, {"error": "the class record could not record it; try again"}
        self._send(status, payload)

    def do_GET(self) -> None:
        route = self._route()
        if route == "attempts":
            self._answer(lambda: (200, self.service.mine(self.headers.get("Authorization"))))
        elif route in ("health", ""):
            self._answer(lambda: (200, self.service.health()))
        else:
            self._send(404, {"error": f"path: {printable(self.path)[:200]} is not a path of this service "
                                      "(POST .../attempts, GET .../attempts, GET .../health)"})

    def do_POST(self) -> None:
        if self._route() != "attempts":
            self.close_connection = True
            self._send(404, {"error": f"path: {printable(self.path)[:200]}: post attempts to .../attempts"})
            return
        self._answer(self._post)

    def _post(self) -> tuple[int, Any]:
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise Refused(411, "Content-Length: required (the body's size in bytes)")
        if not length.isdigit():
            self.close_connection = True
            raise Refused(400, "Content-Length: must be a whole number of bytes")
        if int(length) > MAX_BODY:
            self.close_connection = True        # the body is never read
            raise Refused(413, f"body: {int(length)} bytes is too large (at most {MAX_BODY})")
        student = self.service.student(self.headers.get("Authorization"))   # before reading anything
        try:
            body = self.rfile.read(int(length))
        except OSError:                         # a stalled client: READ_TIMEOUT ran out
            self.close_connection = True
            raise Refused(408, f"body: not sent within {READ_TIMEOUT} s") from None
        if len(body) != int(length):
            self.close_connection = True
            raise Refused(400, f"body: {len(body)} bytes arrived of the {length} announced")
        return self.service.post_as(student, body)

    def log_message(self, format: str, *args) -> None:     # the service logs attempts, not requests
        pass


class ClassServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:   # a dropped connection: one line
        exc = sys.exc_info()[1]
        print(f"stsedu class serve: {client_address[0]}: {type(exc).__name__}", file=sys.stderr)


def make_server(record: ClassRecord, exercises: list, host: str = "127.0.0.1", port: int = 8765,
                log=None) -> ClassServer:
    """A server bound to *host*:*port* (0: a free port; ``server.server_address`` says which)."""
    service = ClassService(record, exercises, log)
    handler = type("BoundHandler", (Handler,), {"service": service})
    return ClassServer((host, port), handler)
