"""``stsedu class serve``: the HTTP service that records a class's attempts as they are made.

The standard library's asyncio (one event loop, one thread: :class:`ClassServer`), JSON in and out:

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

import asyncio
import json
import re
import socket
import sys
import threading
from http import HTTPStatus
from typing import Any

from ... import files as _files
from ..exercises import kinds as K
from ..exercises.grading import printable
from ..exercises.variants import describe
from .hub import HubError, HubIdentity
from .record import ClassRecord

MAX_BODY = 64 * 1024
"""The largest request body read (an answer is a few hundred bytes)."""
READ_TIMEOUT = 10
"""Seconds a client has to send its request (a stalled one holds no thread longer)."""
ATTEMPT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
BODY_KEYS = ("attempt", "exercise", "answer", "variant")
LIMITS = _files.Limits("request body", MAX_BODY, 2_000)
MAX_HEAD = 16 * 1024
"""The largest request line and headers read."""
BACKLOG = 1024
"""Connections the kernel holds while the service is busy: a whole class connecting at once
(with the old default of 5, the 6th connect of a burst waited for the kernel's SYN retry, 1 s)."""


class Refused(Exception):
    """A request the service refuses: its HTTP status and the message for the student."""

    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, message
        super().__init__(message)


class ClassService:
    """What the service does, apart from HTTP (so it can be called directly in a test)."""

    def __init__(self, record: ClassRecord, exercises: list, log=None, hub: HubIdentity | None = None) -> None:
        self.record = record
        self.exercises = {e.id: e for e in exercises}
        self.log = log
        self.hub = hub
        """JupyterHub, when the service runs as a hub service: a student's own hub token identifies them."""
        self._variants: dict[tuple[str, str], tuple] = {}

    @staticmethod
    def token(authorization: str | None) -> str:
        """The token of an ``Authorization: Bearer <token>`` header (or JupyterHub's ``token <token>``)."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() not in ("bearer", "token") or not token.strip():
            raise Refused(401, "no token: send the header Authorization: Bearer <your token>")
        return token.strip()

    def student(self, authorization: str | None) -> tuple[int, str]:
        """(id, name) of the student whose token this is: a roster token, else (on a hub) a hub user's."""
        token = self.token(authorization)
        return self.record.student_for(token) or self.hub_student(token)

    def hub_student(self, token: str) -> tuple[int, str]:
        """The student of the roster whose JupyterHub token *token* is (this asks the hub: it may wait)."""
        if self.hub is None:
            raise Refused(401, "unknown token: not a student of this class (use the notebook released to you)")
        try:
            name = self.hub.who(token)
        except HubError as e:
            raise Refused(503, f"hub: {e}; try again") from None
        if name is None:
            raise Refused(401, "unknown token: neither a student's token of this class nor a JupyterHub user's")
        found = self.record.student_named(name)
        if found is None:
            raise Refused(403, f"student: {printable(name)[:100]!r} (your JupyterHub user) is not in this class's "
                               "roster; ask your teacher to add you")
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

    def mine(self, student: tuple[int, str]) -> dict:
        return {"student": student[1], "attempts": self.record.attempts(student[1])}

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


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict]:
    """The request line and headers (names lower-cased): (method, path, headers)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise Refused(431, f"headers: larger than {MAX_HEAD} bytes") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise Refused(400, f"request line: {printable(lines[0])[:100]!r} is not METHOD PATH HTTP/1.x")
    headers = {}
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep or not name.strip():
                raise Refused(400, f"header: {printable(line)[:100]!r} is not Name: value")
            headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], headers


def _route(path: str) -> str:
    """The path's last part (a JupyterHub prefix such as /services/<name>/ before it)."""
    return path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class ClassServer:
    """The service's HTTP side: one asyncio event loop in the thread that calls
    :meth:`serve_forever`, a coroutine per connection, the record written in the loop.

    One thread does all the work: no thread per connection and no lock between them.  With
    the standard library's ThreadingHTTPServer, 60 students posting at once meant 60 threads
    queueing for the record's write lock, and the thread holding it gave the GIL away at each
    SQLite call and waited up to the interpreter's 5 ms switch interval to get it back: a post
    that needs 0.3 ms of CPU took 40 ms to 0.7 s (issue #42's benchmark).  Reading a slow
    client's request waits without blocking anyone (:data:`READ_TIMEOUT`).
    """

    def __init__(self, service: ClassService, host: str, port: int) -> None:
        self.service = service
        self.socket = socket.create_server((host, port), backlog=BACKLOG,
                                           family=socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.server_address = self.socket.getsockname()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started, self._done = threading.Event(), threading.Event()

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (another thread) or KeyboardInterrupt (Ctrl-C, SIGTERM)."""
        try:
            asyncio.run(self._serve())
        finally:
            self._done.set()

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        server = await asyncio.start_server(self._connection, sock=self.socket, limit=MAX_HEAD,
                                            backlog=BACKLOG)
        self._started.set()
        async with server:
            await self._stop.wait()

    def shutdown(self) -> None:
        """Stop serving (from another thread); returns once the loop has ended."""
        if self._started.wait(5) and self._loop is not None and not self._done.is_set():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._done.wait(10)

    def server_close(self) -> None:
        self.socket.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            try:
                status, payload = await asyncio.wait_for(self._request(reader), READ_TIMEOUT)
            except Refused as r:
                status, payload = r.status, {"error": r.message}
            except asyncio.TimeoutError:            # a stalled client holds nothing longer
                status, payload = 408, {"error": f"request: not sent within {READ_TIMEOUT} s"}
            except (asyncio.IncompleteReadError, ConnectionError):
                return                              # the client went away: nothing to answer
            body = json.dumps(payload).encode("utf-8")
            writer.write(f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nServer: stsedu-class\r\n"
                         f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                         "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode("latin-1") + body)
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _student(self, headers: dict) -> tuple[int, str]:
        """The student of the request's token; asking the hub (a network call) waits in a thread."""
        token = self.service.token(headers.get("authorization"))
        return (self.service.record.student_for(token)
                or await asyncio.get_running_loop().run_in_executor(None, self.service.hub_student, token))

    async def _request(self, reader: asyncio.StreamReader) -> tuple[int, Any]:
        method, path, headers = await _read_request(reader)
        route, service = _route(path), self.service
        try:
            if method == "GET" and route == "attempts":
                return 200, service.mine(await self._student(headers))
            if method == "GET" and route in ("health", ""):
                return 200, service.health()
            if method == "GET":
                raise Refused(404, f"path: {printable(path)[:200]} is not a path of this service "
                                   "(POST .../attempts, GET .../attempts, GET .../health)")
            if method != "POST":
                raise Refused(405, f"method: {printable(method)[:20]} is not served (GET or POST)")
            if route != "attempts":
                raise Refused(404, f"path: {printable(path)[:200]}: post attempts to .../attempts")
            length = headers.get("content-length")
            if length is None:
                raise Refused(411, "Content-Length: required (the body's size in bytes)")
            if not length.isdigit():
                raise Refused(400, "Content-Length: must be a whole number of bytes")
            if int(length) > MAX_BODY:                  # the body is never read
                raise Refused(413, f"body: {int(length)} bytes is too large (at most {MAX_BODY})")
            try:
                student = await self._student(headers)  # before the body is used
            except Refused:                  # read the body still: closing over unread bytes resets the
                try:                         # connection, and the student would see no answer, not why
                    await reader.readexactly(int(length))
                except asyncio.IncompleteReadError:
                    pass
                raise
            try:
                body = await reader.readexactly(int(length))
            except asyncio.IncompleteReadError as e:
                raise Refused(400, f"body: {len(e.partial)} bytes arrived of the {length} announced") from None
            return service.post_as(student, body)
        except Refused:
            raise
        except Exception as e:             # never a traceback to the student; one line for the teacher
            print(f"stsedu class serve: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  file=sys.stderr)
            return 500, {"error": "the class record could not record it; try again"}


def make_server(record: ClassRecord, exercises: list, host: str = "127.0.0.1", port: int = 8765,
                log=None, hub: HubIdentity | None = None) -> ClassServer:
    """A server bound to *host*:*port* (0: a free port; ``server.server_address`` says which);
    with *hub*, a JupyterHub user's own token identifies them too."""
    return ClassServer(ClassService(record, exercises, log, hub), host, port)
