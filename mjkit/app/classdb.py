"""The class's answers in one SQLite database in the teacher's results folder.

Every student's page runs in a kernel of its own; each kernel records the student
(:meth:`ClassDB.join`) and every checked answer (:meth:`ClassDB.record`) into the same
database, and the teacher's page reads it (:meth:`ClassDB.summary`, :meth:`ClassDB.frame`).
SQLite in WAL mode lets the ~30 writer processes of a class and the reader work at once;
each write is one short transaction, so a finished answer is on disk when the student
sees the feedback.

The server makes the file with :func:`new_class_db`: a name no other run can have
(``class-<UTC time>-<random>-seed<seed>.sqlite``), created exclusively (an existing
file is never opened), holding a random *run id* that only this server run and its
kernels know; opened with ``run=``, a database of another run is refused.  Nothing a
visitor sends becomes a path, a table name or SQL (every value is a bound parameter).

Nothing read from the file is trusted.  Opening checks the ``application_id``, the
schema version and the schema itself, runs ``PRAGMA integrity_check`` and reads every
row through the same checks a write passes (text is UTF-8, names as
:func:`clean_name` keeps them, seats 1..999, question numbers 0..199, known kinds,
times within 2000..2200); :meth:`ClassDB.summary` and :meth:`ClassDB.frame` check
every row they read again, so a file damaged even after it was opened raises
:class:`mjkit.HandError` with a clear message, never a sqlite3, decoding or pandas
error.
"""

from __future__ import annotations

import hmac
import math
import os
import re
import sqlite3
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from ..errors import HandError, short_repr

__all__ = ["ClassDB", "StudentRecorder", "APPLICATION_ID", "SCHEMA_VERSION", "db_name",
           "new_class_db", "clean_name"]

#: ``PRAGMA application_id`` of a class database ("mjkc").
APPLICATION_ID = 0x6D6A6B63
#: 2: the ``meta`` table holds the run id.
SCHEMA_VERSION = 2
#: Longest student name kept (characters).
MAX_NAME = 40
#: Highest question index (a quiz has at most 200 questions).
MAX_QUESTION = 199
#: Longest hand, expected or given answer kept (characters).
MAX_TEXT = 400
#: Times (unix seconds) a class database may hold: 2000-01-01 .. 2200-01-01 UTC.
TIME_RANGE = (946684800.0, 7258118400.0)

_KINDS = ("fans", "total", "legal")      # mjkit.quiz.KINDS, without importing the quiz
_RUN = re.compile(r"[0-9a-f]{32}")
# what reading a damaged file (or pandas on its values) may raise; HandError is a
# ValueError and passes through unchanged
_READ_ERRORS = (sqlite3.Error, ValueError, OverflowError, TypeError, KeyError, IndexError,
                AttributeError, MemoryError)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
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


def db_name(seed: int, now: float | None = None, tag: str = "") -> str:
    """The file name of a class's database: ``class-<UTC time>[-<tag>]-seed<seed>.sqlite``.

    :func:`new_class_db` gives a random ``tag``, so two runs never share a name.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    return f"class-{stamp}{'-' + tag if tag else ''}-seed{int(seed)}.sqlite"


def new_class_db(folder, seed) -> tuple[Path, str]:
    """Make a new, empty class database in ``folder`` for one server run.

    The name has the time and 64 random bits (:func:`db_name`) and the file is
    created exclusively (``O_EXCL``: an existing file, or a link, is never
    opened), so two servers started at once with the same folder and seed get
    two databases.  A random run id is stored inside; the server passes it to
    its kernels, which open the file with ``ClassDB(path, run=run)``.

    Parameters
    ----------
    folder : path
        The teacher's results folder (it must exist).
    seed : int
        The class's quiz seed (in the name, for the teacher).

    Returns
    -------
    (pathlib.Path, str)
        The database and its run id (32 hex digits).
    """
    import secrets

    from ..validate import whole

    seed = whole("seed", seed, 0)
    folder = Path(folder)
    run = secrets.token_hex(16)
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    for _ in range(16):
        path = folder / db_name(seed, tag=secrets.token_hex(8))
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise HandError(f"cannot make the class database in {folder}: "
                            f"{exc.strerror or exc}", code="io") from None
        try:
            made = os.fstat(fd)
            ClassDB(path, create=True, run=run).close()
            now = os.stat(path)
            if (now.st_dev, now.st_ino) != (made.st_dev, made.st_ino):
                raise HandError(f"the class database {path} was replaced while it was made",
                                code="io")
        except BaseException:
            for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                try:
                    p.unlink()
                except OSError:
                    pass
            raise
        finally:
            os.close(fd)
        return path, run
    raise HandError(f"no free name for a class database in {folder}", code="io")


def clean_name(name) -> str:
    """A student's name as kept: printable, spaces collapsed, at most :data:`MAX_NAME`."""
    if not isinstance(name, str):
        raise HandError(f"a name must be text, got {type(name).__name__}")
    text = " ".join("".join(ch for ch in name if ch.isprintable()).split())[:MAX_NAME]
    if not text:
        raise HandError("a name is needed (1 to 40 characters)")
    return text


# ------------------------------------------------------------------ one check per value
# Every value is checked by the same function when it is written and when it is read
# back, so the file never holds what a read would refuse, and a read refuses all else.

def _text(value, what: str, lo: int = 0, hi: int = MAX_TEXT) -> str:
    """Printable text of ``lo..hi`` characters (bytes read from the file: strict UTF-8)."""
    if isinstance(value, (bytes, bytearray)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise HandError(f"{what} is not UTF-8 text", code="damaged") from None
    if not isinstance(value, str):
        raise HandError(f"{what} must be text, got {type(value).__name__}")
    if not lo <= len(value) <= hi or not value.isprintable():
        raise HandError(f"{what} must be printable text of {lo} to {hi} characters, "
                        f"got {short_repr(value)}")
    return value


def _whole(value, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise HandError(f"{what} is a number from {lo} to {hi}, got {short_repr(value)}")
    return value


def _time(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not TIME_RANGE[0] <= value <= TIME_RANGE[1]:
        raise HandError(f"{what} is not a time between 2000 and 2200, got {short_repr(value)}")
    return float(value)


def _session(value) -> str:
    if isinstance(value, str) and not 8 <= len(value) <= 64:
        raise HandError("a session id of 8 to 64 characters is needed")
    return _text(value, "a session id", 8, 64)


def _name(value) -> str:
    value = _text(value, "a name", 1, MAX_NAME)
    if clean_name(value) != value:
        raise HandError(f"the name {short_repr(value)} is not as a name is kept")
    return value


def _seat(value):
    if value is None:
        return None
    return _whole(value, "a seat", 1, 999)


def _run(value) -> str:
    value = _text(value, "a run id", 32, 32)
    if not _RUN.fullmatch(value):
        raise HandError(f"a run id is 32 hex digits, got {short_repr(value)}")
    return value


def _student_row(row) -> tuple:
    """``(id, session, name, seat, joined, seen)``, checked."""
    sid, session, name, seat, joined, seen = row
    return (_whole(sid, "a student id", 1, 2**62), _session(session), _name(name),
            _seat(seat), _time(joined, "a join time"), _time(seen, "a last-seen time"))


def _answer_row(row) -> tuple:
    """``(student, question, kind, hand, expected, given, correct, at)``, checked."""
    student, question, kind, hand, expected, given, correct, at = row
    kind = _text(kind, "a question kind")
    if kind not in _KINDS:
        raise HandError(f"a question kind is one of {', '.join(_KINDS)}, "
                        f"got {short_repr(kind)}")
    return (_whole(student, "a student id", 1, 2**62),
            _whole(question, "a question number", 0, MAX_QUESTION), kind,
            _text(hand, "a hand", 1), _text(expected, "an expected answer"),
            _text(given, "a given answer"), _whole(correct, "correct", 0, 1),
            _time(at, "an answer time"))


_reference: list = []


def _expected_schema() -> set:
    """``sqlite_master`` of a class database as :data:`_SCHEMA` makes it (root pages aside)."""
    if not _reference:
        con = sqlite3.connect(":memory:")
        try:
            con.executescript(_SCHEMA)
            _reference.append(set(con.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master")))
        finally:
            con.close()
    return _reference[0]


class ClassDB:
    """One class's database (see the module docstring).

    Parameters
    ----------
    path : path
        The database file.
    create : bool
        Make it (and its tables) when it does not exist or is empty; otherwise it
        must exist.  The server uses :func:`new_class_db` instead.
    run : str or None
        The run id of the server run (:func:`new_class_db`): a database holding
        another one is refused ("not made by this server run").  When creating,
        the run id to store (None: a random one).

    Attributes
    ----------
    run : str
        The run id the database holds.

    Raises
    ------
    HandError
        A missing, foreign, damaged or other run's file; every method raises
        HandError too (never a sqlite3, decoding or pandas error) when the file
        is found damaged later.
    """

    def __init__(self, path, *, create: bool = False, run: str | None = None):
        import secrets

        self.path = Path(path)
        if run is not None:
            run = _run(run)
        if not create and not self.path.is_file():
            raise HandError(f"no class database at {self.path}", code="not_found")
        self._con = None
        try:
            self._con = con = sqlite3.connect(str(self.path), timeout=30,
                                              isolation_level=None, check_same_thread=False)
            # text comes back as bytes and is decoded strictly by the checks (_text)
            con.text_factory = bytes
            con.execute("PRAGMA busy_timeout = 30000")
            con.execute("PRAGMA foreign_keys = ON")
            app = con.execute("PRAGMA application_id").fetchone()[0]
            version = con.execute("PRAGMA user_version").fetchone()[0]
            empty = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            if empty and create:
                self._create(run or secrets.token_hex(16))
            elif app != APPLICATION_ID or version != SCHEMA_VERSION:
                raise HandError(f"{self.path} is not an mjkit class database of this version "
                                f"(application_id {app:#x}, version {version})",
                                code="damaged")
            encoding = con.execute("PRAGMA encoding").fetchone()[0]
            if encoding != b"UTF-8":
                raise HandError(f"the class database {self.path} is damaged: encoding "
                                f"{encoding!r}", code="damaged")
            problems = [r[0] for r in con.execute("PRAGMA integrity_check(5)")]
            if problems != [b"ok"]:
                said = "; ".join(bytes(p).decode("utf-8", "replace") for p in problems)
                said = " ".join(said.split())
                raise HandError(f"the class database {self.path} is damaged: {said[:300]}",
                                code="damaged")
            self.run = self._check()
            if run is not None and not hmac.compare_digest(run, self.run):
                raise HandError(f"the class database {self.path} was not made by this "
                                "server run", code="damaged")
            con.execute("PRAGMA journal_mode = WAL")    # persists in the file; cheap if set
        except BaseException as exc:
            if self._con is not None:
                self._con.close()
            if isinstance(exc, HandError) or not isinstance(exc, _READ_ERRORS):
                raise
            raise HandError(f"the class database {self.path} is damaged or unreadable "
                            f"({_describe(exc)})", code="damaged") from None

    def _create(self, run: str) -> None:
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                # one by one (executescript would commit): all or nothing
                for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                    con.execute(stmt)
                con.execute("INSERT INTO meta (key, value) VALUES ('run', ?)", (_run(run),))
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def _guard(self, doing: str):
        """Any error of the file, its values or pandas on them as a HandError."""
        try:
            yield
        except HandError as exc:
            if exc.code != "damaged":
                raise
            raise HandError(f"the class database {self.path} is damaged: {exc}",
                            code="damaged") from None
        except _READ_ERRORS as exc:
            raise HandError(f"the class database {self.path} could not be {doing} "
                            f"({_describe(exc)})", code="damaged") from None

    # ---------------------------------------------------------------- checks

    def _check(self) -> str:
        """The schema and every row checked (:meth:`_rows`); the run id."""
        con = self._con
        with self._guard("read"):
            found = {tuple(bytes(v).decode("utf-8") if isinstance(v, bytes) else v
                           for v in row)
                     for row in con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")}
            if found != _expected_schema():
                raise HandError("its tables are not those of a class database",
                                code="damaged")
            meta, _, _ = self._rows()
            if set(meta) != {"run"}:
                raise HandError(f"unexpected settings {sorted(meta)}", code="damaged")
            return _run(meta["run"])

    def _rows(self):
        """``meta`` (dict), students and answers (lists of checked tuples), read in one
        transaction; HandError(code="damaged") at the first bad value."""
        con = self._con
        con.execute("BEGIN")
        try:
            meta = con.execute("SELECT key, value FROM meta").fetchall()
            students = con.execute("SELECT id, session, name, seat, joined, seen FROM students "
                                   "ORDER BY id").fetchall()
            answers = con.execute("SELECT student, question, kind, hand, expected, given, "
                                  "correct, at FROM answers ORDER BY rowid").fetchall()
        finally:
            if con.in_transaction:
                try:
                    con.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
        try:
            settings = {_text(k, "a setting", 1, 20): _text(v, "a setting's value")
                        for k, v in meta}
            students = [_student_row(r) for r in students]
            answers = [_answer_row(r) for r in answers]
        except HandError as exc:
            raise HandError(str(exc), code="damaged") from None
        ids = {s[0] for s in students}
        if len(ids) != len(students) or len({s[1] for s in students}) != len(students):
            raise HandError("a student is there twice", code="damaged")
        if len({a[:2] for a in answers}) != len(answers):
            raise HandError("an answer is there twice", code="damaged")
        if any(a[0] not in ids for a in answers):
            raise HandError("an answer of no student", code="damaged")
        return settings, students, answers

    # ---------------------------------------------------------------- writes

    def join(self, session: str, name, seat=None) -> int:
        """The student of ``session`` (a random id the server gave the page), created or
        renamed; returns their row id."""
        session, name = _session(session), clean_name(name)
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 999:
                raise HandError(f"a seat is a number from 1 to 999, got {seat!r}")
        now = time.time()
        with self._guard("written"), self._con:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.execute(
                "INSERT INTO students (session, name, seat, joined, seen) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(session) DO UPDATE SET name = excluded.name, "
                "seat = excluded.seat, seen = excluded.seen", (session, name, seat, now, now))
            row = self._con.execute("SELECT id FROM students WHERE session = ?",
                                    (session,)).fetchone()
            return _whole(row[0], "a student id", 1, 2**62)

    def record(self, student: int, question: int, kind: str, hand: str, expected: str,
               given: str, correct: bool) -> None:
        """A checked answer (the last one of a question counts).

        Every value passes the checks a read applies (question 0..199, a known kind,
        printable texts of at most :data:`MAX_TEXT` characters); ``student`` must be
        a row id :meth:`join` gave.
        """
        now = time.time()
        row = _answer_row((student, question, kind, hand, expected, given, int(bool(correct)),
                           now))
        with self._guard("written"), self._con:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.execute(
                "INSERT OR REPLACE INTO answers (student, question, kind, hand, expected, given, "
                "correct, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
            self._con.execute("UPDATE students SET seen = ? WHERE id = ?", (now, row[0]))

    # ---------------------------------------------------------------- reads

    def frame(self):
        """Every answer with its student: one row per (student, question).

        Columns ``name, seat, question, kind, hand, expected, given, correct,
        answered_at`` (a UTC time), ordered by seat (none last), name and question.
        """
        from .._lazy import pandas as pd

        with self._guard("read"):
            _, students, answers = self._rows()
            who = {s[0]: s for s in students}
            rows = sorted(((who[a[0]][2], who[a[0]][3]) + a[1:] for a in answers),
                          key=lambda r: (r[1] is None, r[1] or 0, r[0], r[2]))
            df = pd.DataFrame(rows, columns=["name", "seat", "question", "kind", "hand",
                                             "expected", "given", "correct", "answered_at"])
            df["correct"] = df["correct"].astype(bool)
            df["answered_at"] = pd.to_datetime(df["answered_at"], unit="s", utc=True)
            return df

    def summary(self, top: int = 3) -> dict:
        """What the teacher's page shows: students, per-question rates, common wrong answers.

        ``students``: ``name, seat, answered, correct, seen`` per student (by seat, none
        last, then name); ``questions``: ``question, kind, hand, expected, answered,
        correct, rate, wrong`` (the ``top`` most common wrong answers with their counts)
        per question answered.
        """
        with self._guard("read"):
            _, students, answers = self._rows()
            mine = {s[0]: [0, 0] for s in students}
            per_q: dict = {}
            for sid, q, kind, hand, expected, given, correct, _ in answers:
                mine[sid][0] += 1
                mine[sid][1] += correct
                if q not in per_q:
                    per_q[q] = {"question": q, "kind": kind, "hand": hand,
                                "expected": expected, "answered": 0, "correct": 0,
                                "wrong": Counter()}
                d = per_q[q]
                d["answered"] += 1
                d["correct"] += correct
                if not correct:
                    d["wrong"][given] += 1
            out_students = [
                {"name": name, "seat": seat, "answered": mine[sid][0], "correct": mine[sid][1],
                 "seen": seen}
                for sid, _, name, seat, _, seen in sorted(
                    students, key=lambda s: (s[3] is None, s[3] or 0, s[2], s[0]))]
            questions = []
            for q in sorted(per_q):
                d = per_q[q]
                d["rate"] = d["correct"] / d["answered"]
                d["wrong"] = d["wrong"].most_common(top)
                questions.append(d)
            return {"students": out_students, "questions": questions}


def _describe(exc: BaseException) -> str:
    """An error in a few words for a message (its type and first 200 characters)."""
    text = str(exc).replace("\n", " ")[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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
    run : str or None
        The server run's id (:func:`new_class_db`): a database of another run is
        refused.
    quiz : mjkit.quiz.Quiz or None
        The class's own quiz, built from the server's seed, questions and
        difficulty (never the widget's, which a student can change).  Given, only
        answers to its questions are recorded: an index outside it, or a question
        whose kind, hand, rules or answer differ from the class's question there,
        raises HandError (the widget shows "not recorded"), and the expected answer
        and verdict recorded are the class question's.  None (a plain notebook):
        every answer is recorded as given.
    """

    def __init__(self, path, student=None, *, run=None, quiz=None):
        import secrets

        if quiz is not None:
            from ..quiz import Quiz

            if not isinstance(quiz, Quiz):
                raise HandError(f"quiz must be an mjkit.quiz.Quiz, got {type(quiz).__name__}")
        self.quiz = quiz
        if student is None:
            token = secrets.token_urlsafe(6)
            student = {"name": f"guest {token}", "seat": None, "session": "guest-" + token * 2}
        self.name = student["name"]
        self._db = ClassDB(path, run=run)
        self.id = self._db.join(student["session"], student["name"], student.get("seat"))

    def __call__(self, index: int, question, feedback) -> None:
        if self.quiz is None:
            self._db.record(self.id, index, question.kind, question.hand,
                            _show(question.answer), _show(feedback.given), feedback.correct)
            return
        own = self._own(index, question)
        given = getattr(feedback, "given", None)
        expected = own.answer
        self._db.record(self.id, index, own.kind, own.hand, _show(expected), _show(given),
                        bool(given == expected))

    def _own(self, index, question):
        """The class's question ``index``, when ``question`` is it; HandError otherwise."""
        n = len(self.quiz.questions)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise HandError(f"question {short_repr(index)} is not one of the class's "
                            f"{n} questions")
        own = self.quiz.questions[index]
        try:
            same = (question.kind, question.hand, question.rules, question.lianla) == \
                (own.kind, own.hand, own.rules, own.lianla) and question.answer == own.answer
        except Exception:           # noqa: BLE001 - not a Question at all
            same = False
        if not same:
            raise HandError(f"question {index + 1} is not the class's question {index + 1} "
                            "(another seed or difficulty): not recorded")
        return own
