"""The class record: students, their tokens and every attempt, in a database through SQLAlchemy.

SQLite in the class's data folder by default (``<data>/class.db``, the folder made 0700: it
holds the students' tokens); any SQLAlchemy URL (``postgresql://...``) for a larger class.
Each attempt is one row, written and committed before the service answers, so stopping the
service loses nothing that it acknowledged; an attempt id is recorded once per student (a
repeated post, after a dropped connection, finds the first row).
"""

from __future__ import annotations

import datetime as _dt
import json
import secrets
import threading
from pathlib import Path
from typing import Any

import sqlalchemy as sa

DB_NAME = "class.db"
_META = sa.MetaData()
STUDENTS = sa.Table(
    "students", _META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("token", sa.String(100), nullable=False, unique=True),
    sa.Column("added", sa.String(40), nullable=False))
ATTEMPTS = sa.Table(
    "attempts", _META,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("student_id", sa.Integer, sa.ForeignKey("students.id"), nullable=False),
    sa.Column("attempt_id", sa.String(64), nullable=False),
    sa.Column("exercise", sa.String(100), nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("variant", sa.String(500), nullable=False, default=""),
    sa.Column("at", sa.String(40), nullable=False),
    sa.UniqueConstraint("student_id", "attempt_id", name="one_row_per_attempt"))


_INSERT = ATTEMPTS.insert()
_ONE = sa.select(ATTEMPTS).where(ATTEMPTS.c.student_id == sa.bindparam("student_id"),
                                 ATTEMPTS.c.attempt_id == sa.bindparam("attempt_id"))
_NUMBER = sa.select(sa.func.count()).select_from(ATTEMPTS).where(
    ATTEMPTS.c.student_id == sa.bindparam("student_id"), ATTEMPTS.c.exercise == sa.bindparam("exercise"),
    ATTEMPTS.c.seq <= sa.bindparam("seq"))
"""The statements of :meth:`ClassRecord.record`, built once (a post runs two of them)."""


class RecordError(ValueError):
    """The class record cannot be opened or changed; the message is one line."""


def now() -> str:
    """The service's clock (UTC, to the millisecond): the time every attempt is recorded with."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def url_of(data: str | Path) -> str:
    """The SQLAlchemy URL of *data*: a URL as it is, a folder as ``sqlite:///<folder>/class.db``."""
    text = str(data)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).resolve() / DB_NAME}"


class ClassRecord:
    """One class's record.  ``add_students(names)``, ``student_for(token)``, ``record(...)``,
    ``attempts()``, ``sheets()``."""

    def __init__(self, data: str | Path, create: bool = False) -> None:
        self.url = url_of(data)
        self.sqlite = self.url.startswith("sqlite")
        if self.sqlite and "://" not in str(data):
            folder = Path(data)
            if not folder.is_dir():
                if not create:
                    raise RecordError(f"{data}: no class record here; start one with "
                                      f"stsedu class add-students roster.csv --data {data}")
                folder.mkdir(mode=0o700, parents=True)
            elif not (folder / DB_NAME).is_file() and not create:
                raise RecordError(f"{data}: no {DB_NAME} in it; start one with "
                                  f"stsedu class add-students roster.csv --data {data}")
        try:
            self.engine = sa.create_engine(self.url, **({"connect_args": {"check_same_thread": False,
                                                                            "timeout": 30}}
                                                         if self.sqlite else {}))
            if self.sqlite:
                sa.event.listen(self.engine, "connect", _sqlite_pragmas)
            _META.create_all(self.engine)
        except (sa.exc.SQLAlchemyError, ValueError) as e:
            raise RecordError(f"{data}: cannot open the class record: {str(e).splitlines()[0]}") from None
        self._write = threading.Lock()     # SQLite takes one writer at a time: queue them here
        self._tokens: dict[str, tuple[int, str]] = {}
        self._names: dict[str, tuple[int, str]] = {}

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------ students

    def add_students(self, names: list[str]) -> dict[str, str]:
        """Add the students of *names* not yet in the record, each with a new token; returns
        every student's token (name -> token), the earlier ones unchanged."""
        with self._write, self.engine.begin() as db:
            have = {r.name for r in db.execute(sa.select(STUDENTS.c.name))}
            for name in names:
                if name not in have:
                    db.execute(STUDENTS.insert().values(name=name, token=secrets.token_urlsafe(24), added=now()))
                    have.add(name)
        return self.tokens()

    def tokens(self) -> dict[str, str]:
        with self.engine.connect() as db:
            return {r.name: r.token for r in db.execute(sa.select(STUDENTS.c.name, STUDENTS.c.token)
                                                        .order_by(STUDENTS.c.id))}

    def students(self) -> list[str]:
        return list(self.tokens())

    def student_for(self, token: str) -> tuple[int, str] | None:
        """(id, name) of the student whose token this is, or None."""
        if token not in self._tokens:
            with self.engine.connect() as db:
                row = db.execute(sa.select(STUDENTS.c.id, STUDENTS.c.name, STUDENTS.c.token)
                                 .where(STUDENTS.c.token == token)).first()
            if row is None or not secrets.compare_digest(row.token, token):
                return None
            self._tokens[token] = (row.id, row.name)
        return self._tokens[token]

    def student_named(self, name: str) -> tuple[int, str] | None:
        """(id, name) of the student of the roster called *name* (a JupyterHub user's name), or None."""
        if name not in self._names:
            with self.engine.connect() as db:
                row = db.execute(sa.select(STUDENTS.c.id).where(STUDENTS.c.name == name)).first()
            if row is None:
                return None
            self._names[name] = (row.id, name)
        return self._names[name]

    # ------------------------------------------------------------ attempts

    def record(self, student_id: int, attempt_id: str, exercise: str, answer: Any,
               variant: str = "") -> tuple[dict, bool]:
        """Record one attempt (the service's clock gives its time); returns (the row, whether it
        was already recorded: the same attempt id posted again changes nothing)."""
        row = {"attempt": attempt_id, "exercise": exercise, "answer": answer, "variant": variant, "at": now()}
        again = False
        with self._write, self.engine.begin() as db:     # (another process's duplicate: the unique key refuses it)
            old = db.execute(_ONE, {"student_id": student_id, "attempt_id": attempt_id}).first()
            if old is not None:                  # this attempt id is recorded already: that row
                row, again = _row(old), True
            else:
                row["seq"] = db.execute(_INSERT, {"student_id": student_id, "attempt_id": attempt_id,
                                                  "exercise": exercise, "answer": json.dumps(answer),
                                                  "variant": variant, "at": row["at"]}).inserted_primary_key[0]
            number = db.execute(_NUMBER, {"student_id": student_id, "exercise": row["exercise"],
                                          "seq": row["seq"]}).scalar_one()
        return {**row, "number": number}, again

    def attempts(self, student: str | None = None) -> list[dict]:
        """Every attempt (of *student*), in the order the service recorded them."""
        q = sa.select(ATTEMPTS, STUDENTS.c.name).join(STUDENTS).order_by(ATTEMPTS.c.seq)
        if student is not None:
            q = q.where(STUDENTS.c.name == student)
        with self.engine.connect() as db:
            return [{**_row(r), "student": r.name} for r in db.execute(q)]

    def sheets(self) -> dict[str, dict[str, list[dict]]]:
        """Every student's attempts as an answer sheet holds them: name -> id -> attempts
        (``{"answer", "at", "variant", "attempt"}``), the students without any included."""
        out: dict[str, dict[str, list[dict]]] = {name: {} for name in self.students()}
        for a in self.attempts():
            out[a["student"]].setdefault(a["exercise"], []).append(
                {"answer": a["answer"], "at": a["at"], "variant": a["variant"], "attempt": a["attempt"]})
        return out


def _row(r) -> dict:
    return {"attempt": r.attempt_id, "exercise": r.exercise, "answer": json.loads(r.answer),
            "variant": r.variant, "at": r.at, "seq": r.seq}


def _sqlite_pragmas(conn, _record) -> None:
    """WAL: readers never wait for the writer; NORMAL sync is durable across a stopped process."""
    cur = conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
