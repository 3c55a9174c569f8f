"""The class's answers in one SQLite database in the teacher's results folder.

Every student's page runs in a kernel of its own; each kernel records the student
(:meth:`ClassDB.join`) and every checked answer (:meth:`ClassDB.record`) into the same
database, and the teacher's page reads it (:meth:`ClassDB.summary`, :meth:`ClassDB.frame`).
SQLite in WAL mode lets the ~30 writer processes of a class and the reader work at once;
each write is one short transaction, so a finished answer is on disk when the student
sees the feedback.

The file is made by the server under a name it chooses
(``class-<UTC time>-seed<seed>.sqlite``); nothing a visitor sends becomes a path, a
table name or SQL (every value is a bound parameter).  Opening checks the file's
``application_id`` and schema version and runs ``PRAGMA quick_check``: a damaged or
foreign file raises :class:`mjkit.HandError` instead of being trusted.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from pathlib import Path

from ..errors import HandError

__all__ = ["ClassDB", "StudentRecorder", "APPLICATION_ID", "SCHEMA_VERSION", "db_name",
           "clean_name"]

#: ``PRAGMA application_id`` of a class database ("mjkc").
APPLICATION_ID = 0x6D6A6B63
SCHEMA_VERSION = 1
#: Longest student name kept (characters).
MAX_NAME = 40

_SCHEMA = """
CREATE TABLE IF NOT EXISTS students (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    seat INTEGER,
    joined REAL NOT NULL,
    seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    student INTEGER NOT NULL REFERENCES students(id),
    question INTEGER NOT NULL,
    kind TEXT NOT NULL,
    hand TEXT NOT NULL,
    expected TEXT NOT NULL,
    given TEXT NOT NULL,
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    at REAL NOT NULL,
    PRIMARY KEY (student, question)
);
"""


def db_name(seed: int, now: float | None = None) -> str:
    """The file name the server gives a class's database."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    return f"class-{stamp}-seed{int(seed)}.sqlite"


def clean_name(name) -> str:
    """A student's name as kept: printable, spaces collapsed, at most :data:`MAX_NAME`."""
    if not isinstance(name, str):
        raise HandError(f"a name must be text, got {type(name).__name__}")
    text = " ".join("".join(ch for ch in name if ch.isprintable()).split())[:MAX_NAME]
    if not text:
        raise HandError("a name is needed (1 to 40 characters)")
    return text


class ClassDB:
    """One class's database (see the module docstring).

    Parameters
    ----------
    path : path
        The database file.
    create : bool
        Make it (and its tables) when it does not exist; otherwise it must exist.
    """

    def __init__(self, path, *, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise HandError(f"no class database at {self.path}")
        try:
            self._con = sqlite3.connect(str(self.path), timeout=30, isolation_level=None,
                                        check_same_thread=False)
            con = self._con
            con.execute("PRAGMA busy_timeout = 30000")
            app = con.execute("PRAGMA application_id").fetchone()[0]
            version = con.execute("PRAGMA user_version").fetchone()[0]
            empty = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            if empty and create:
                con.execute("BEGIN IMMEDIATE")
                for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                    con.execute(stmt)
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.execute("COMMIT")
            elif app != APPLICATION_ID or version != SCHEMA_VERSION:
                raise HandError(f"{self.path} is not an mjkit class database "
                                f"(application_id {app:#x}, version {version})")
            ok = con.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise HandError(f"the class database {self.path} is damaged: {ok}")
            con.execute("PRAGMA journal_mode = WAL")    # persists in the file; cheap if set
        except sqlite3.DatabaseError as exc:
            raise HandError(f"the class database {self.path} is damaged or unreadable "
                            f"({exc})") from None

    def close(self) -> None:
        self._con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---------------------------------------------------------------- writes

    def join(self, session: str, name, seat=None) -> int:
        """The student of ``session`` (a random id the server gave the page), created or
        renamed; returns their row id."""
        if not isinstance(session, str) or not 8 <= len(session) <= 64:
            raise HandError("a session id of 8 to 64 characters is needed")
        name = clean_name(name)
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 999:
                raise HandError(f"a seat is a number from 1 to 999, got {seat!r}")
        now = time.time()
        with self._con:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.execute(
                "INSERT INTO students (session, name, seat, joined, seen) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(session) DO UPDATE SET name = excluded.name, "
                "seat = excluded.seat, seen = excluded.seen", (session, name, seat, now, now))
            row = self._con.execute("SELECT id FROM students WHERE session = ?",
                                    (session,)).fetchone()
        return int(row[0])

    def record(self, student: int, question: int, kind: str, hand: str, expected: str,
               given: str, correct: bool) -> None:
        """A checked answer (the last one of a question counts)."""
        now = time.time()
        with self._con:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.execute(
                "INSERT OR REPLACE INTO answers (student, question, kind, hand, expected, given, "
                "correct, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (int(student), int(question), str(kind), str(hand), str(expected), str(given),
                 int(bool(correct)), now))
            self._con.execute("UPDATE students SET seen = ? WHERE id = ?", (now, int(student)))

    # ---------------------------------------------------------------- reads

    def frame(self):
        """Every answer with its student: one row per (student, question)."""
        from .._lazy import pandas as pd

        rows = self._con.execute(
            "SELECT s.name, s.seat, a.question, a.kind, a.hand, a.expected, a.given, "
            "a.correct, a.at FROM answers a JOIN students s ON s.id = a.student "
            "ORDER BY s.seat IS NULL, s.seat, s.name, a.question").fetchall()
        df = pd.DataFrame(rows, columns=["name", "seat", "question", "kind", "hand", "expected",
                                         "given", "correct", "answered_at"])
        df["correct"] = df["correct"].astype(bool)
        df["answered_at"] = pd.to_datetime(df["answered_at"], unit="s", utc=True)
        return df

    def summary(self, top: int = 3) -> dict:
        """What the teacher's page shows: students, per-question rates, common wrong answers."""
        con = self._con
        students = [
            {"name": n, "seat": s, "answered": int(a or 0), "correct": int(c or 0),
             "seen": seen}
            for n, s, a, c, seen in con.execute(
                "SELECT s.name, s.seat, count(a.question), sum(a.correct), s.seen "
                "FROM students s LEFT JOIN answers a ON a.student = s.id GROUP BY s.id "
                "ORDER BY s.seat IS NULL, s.seat, s.name")]
        questions = []
        for q, kind, hand, expected, n, right in con.execute(
                "SELECT question, kind, hand, expected, count(*), sum(correct) FROM answers "
                "GROUP BY question ORDER BY question"):
            wrong = Counter(g for (g,) in con.execute(
                "SELECT given FROM answers WHERE question = ? AND correct = 0", (q,)))
            questions.append({"question": int(q), "kind": kind, "hand": hand,
                              "expected": expected, "answered": int(n), "correct": int(right),
                              "rate": right / n, "wrong": wrong.most_common(top)})
        return {"students": students, "questions": questions}


def _show(value) -> str:
    """An answer as the teacher reads it (fan names sorted and spaced, yes/no)."""
    if isinstance(value, (frozenset, set)):
        return " ".join(sorted(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class StudentRecorder:
    """What a student's quiz widget calls after each checked answer (``recorder=``).

    Parameters
    ----------
    path : path
        The class database (made by the server).
    student : dict or None
        ``name``, ``seat``, ``session`` (:func:`mjkit.app.server.student_from_query`);
        None: a guest of a loopback server, under a random session.
    """

    def __init__(self, path, student=None):
        import secrets

        if student is None:
            token = secrets.token_urlsafe(6)
            student = {"name": f"guest {token}", "seat": None, "session": "guest-" + token * 2}
        self.name = student["name"]
        self._db = ClassDB(path)
        self.id = self._db.join(student["session"], student["name"], student.get("seat"))

    def __call__(self, index: int, question, feedback) -> None:
        self._db.record(self.id, index, question.kind, question.hand, _show(question.answer),
                        _show(feedback.given), feedback.correct)
