"""Records (mjkit.table.record): written hand by hand, read back exactly, and every kind of
damage refused naming its line — a cut file, a forged tile, a fifth copy, a wrong key, a
bool for a number, an unknown event, blocks out of order, an oversize line or file —
while ``partial=True`` reads what a crash leaves up to its last complete hand."""

from __future__ import annotations

import copy
import json
import os

import pytest

from mjkit import HandError
from mjkit.table import record as R
from mjkit.table.record import (HandLog, Record, RecordWriter, dumps_line, make_record,
                                read_record)
from mjkit.table.state import fold
from test_table_state import PLAYERS, demo_events, robbed_events


def _write(path, hands, *, session=None, scores=None):
    with RecordWriter(path) as w:
        w.write_header(PLAYERS, "dazhong32", 7, session=session,
                       created="2024-05-01T10:00:00+00:00")
        for i, events in enumerate(hands):
            w.write_hand(events, scores=None if scores is None else scores[i])
    return path


@pytest.fixture
def recorded(tmp_path):
    """A record of two demo hands: its path and its lines."""
    path = _write(tmp_path / "r.jsonl", [demo_events(), demo_events()])
    return path, path.read_text(encoding="utf-8").splitlines(keepends=True)


def _line_of(lines, start=1, **match):
    """The line number (1-based) of the first line from ``start`` matching ``match``."""
    for n, line in enumerate(lines[start - 1:], start=start):
        obj = json.loads(line)
        if all(obj.get(k) == v for k, v in match.items()):
            return n
    raise AssertionError(match)


def _edit(lines, n, **changes):
    """The lines with line ``n``'s object changed (None deletes a key)."""
    obj = json.loads(lines[n - 1])
    for k, v in changes.items():
        if v is None:
            obj.pop(k)
        else:
            obj[k] = v
    out = list(lines)
    out[n - 1] = json.dumps(obj, ensure_ascii=False) + "\n"
    return out


# ------------------------------------------------------------------ round trip


def test_a_record_reads_back_exactly(recorded):
    path, lines = recorded
    rec = read_record(path)
    assert rec.truncated is None and len(rec.hands) == 2
    assert rec.header["players"] == PLAYERS and rec.header["version"] == R.VERSION
    assert rec.hands[0].events == demo_events() == rec.hands[1].events
    assert rec.hands[0].lines == list(range(2, 2 + len(demo_events())))
    assert rec.hands[1].lines[0] == 2 + len(demo_events())
    text = path.read_text(encoding="utf-8")
    assert rec.to_jsonl() == text                             # byte for byte
    assert read_record(text) == rec == read_record(text.encode("utf-8"))
    assert read_record(str(path)) == rec
    assert rec.hands[0].snapshots() == fold(demo_events())
    assert rec.hands[0].result["e"] == "win" and rec.hands[0].payments == (105, -35, -35, -35)


def test_save_and_make_record_round_trip(tmp_path):
    rec = make_record([demo_events(), demo_events()],
                      created="2024-05-01T10:00:00")
    assert rec.header["players"] == PLAYERS and rec.header["rules"] == "dazhong32"
    rec.save(tmp_path / "a.jsonl")
    back = read_record(tmp_path / "a.jsonl")
    assert back == rec and back.to_jsonl() == (tmp_path / "a.jsonl").read_text("utf-8")
    with pytest.raises(HandError, match="exists: a record is never written over") as err:
        rec.save(tmp_path / "a.jsonl")
    assert err.value.code == "io"


def test_a_session_record_carries_its_scores(tmp_path):
    scores = [[105, -35, -35, -35], [210, -70, -70, -70]]
    path = _write(tmp_path / "s.jsonl", [demo_events(), demo_events()],
                  session={"hands": 2, "next_dealer": "next"}, scores=scores)
    rec = read_record(path)
    assert [h.scores for h in rec.hands] == [tuple(s) for s in scores]
    assert rec.hands[0].scores_line == 2 + len(demo_events())
    assert rec.header["session"] == {"hands": 2, "next_dealer": "next"}
    assert rec.to_jsonl() == path.read_text("utf-8")
    lines = path.read_text("utf-8").splitlines(keepends=True)
    n = rec.hands[1].scores_line
    with pytest.raises(HandError, match=rf"^record line {n}: 'scores' .* do not sum to 0"):
        read_record("".join(_edit(lines, n, scores=[1, 0, 0, 0])))
    with pytest.raises(HandError, match=rf"^record line {n}: 'after_hand' 3 is not"):
        read_record("".join(_edit(lines, n, after_hand=3)))
    twice = lines[:n] + [lines[n - 1]]
    with pytest.raises(HandError, match=rf"^record line {n + 1}: a 'scores' line comes once"):
        read_record("".join(twice))


def test_scores_need_a_session(tmp_path):
    with RecordWriter(tmp_path / "t.jsonl") as w:
        w.write_header(PLAYERS, "dazhong32", 7)
        with pytest.raises(HandError, match="not a session's"):
            w.write_hand(demo_events(), scores=[0, 0, 0, 0])
        assert w.hands == []
    assert len((tmp_path / "t.jsonl").read_text("utf-8").splitlines()) == 1


# ------------------------------------------------------------------ damage, by line


def _forged_tile(lines):
    n = _line_of(lines, e="discard", tile="E")
    return _edit(lines, n, tile="5s"), n, "discard of 5s by seat 0, who does not hold it"


def _fifth_copy(lines):
    n = _line_of(lines, e="draw", tile="2s", seat=3)       # after the fourth E was drawn
    return _edit(lines, n, tile="E"), n, "draw of E by seat 3: a fifth copy of E"


def _wrong_key(lines):
    n = _line_of(lines, e="pung")
    return _edit(lines, n, claimed="E"), n, "a 'pung' event has unknown key \"claimed\""


def _missing_key(lines):
    n = _line_of(lines, e="pung")
    return _edit(lines, n, **{"from": None}), n, "a 'pung' event lacks 'from'"


def _bool_for_int(lines):
    n = _line_of(lines, e="discard")
    return _edit(lines, n, seat=False), n, "'seat' must be a seat 0..3, got false"


def _float_for_int(lines):
    return _edit(lines, 2, seed=7.0), 2, "'seed' must be a whole number"


def _unknown_event(lines):
    n = _line_of(lines, e="dealt")
    return _edit(lines, n, e="riichi"), n, "unknown event \"riichi\""


def _end_first(lines):
    n = _line_of(lines, e="win")
    out = list(lines)
    out[n - 1], out[n] = out[n], out[n - 1]
    return out, n, "'end' before the hand's result"


def _event_before_hand(lines):
    out = list(lines)
    out.insert(1, lines[5])
    return out, 2, "a 'draw' event outside a hand"


def _hand_inside_hand(lines):
    n = _line_of(lines, e="dealt")
    out = list(lines)
    out.insert(n, lines[1])
    return out, n + 1, "a second 'hand' event"


def _header_twice(lines):
    n = _line_of(lines, e="end")
    out = list(lines)
    out.insert(n, lines[0])
    return out, n + 1, "a second header"


def _header_not_first(lines):
    return lines[1:], 1, "not an mjkit record"


def _unknown_version(lines):
    return _edit(lines, 1, version=2), 1, "record version 2 is not known"


def _header_extra(lines):
    return _edit(lines, 1, owner="me"), 1, "the header has unknown keys \"owner\""


def _other_rules(lines):
    n = _line_of(lines, start=3, e="hand")
    return (_edit(lines, n, rules="dazhong"), n,
            "the hand's rules \"dazhong\" is not the record's")


def _non_canonical_tile(lines):
    n = _line_of(lines, e="discard", tile="E")
    return _edit(lines, n, tile="1z"), n, "tile \"1z\" is not written as mjkit writes it"


def _not_json(lines):
    out = list(lines)
    out[3] = out[3][:-5] + "\n"
    return out, 4, "not a JSON object"


def _duplicate_key(lines):
    out = list(lines)
    out[4] = out[4].replace('"seat":', '"seat":1,"seat":', 1)
    return out, 5, "the key 'seat' comes twice"


def _nan(lines):
    out = list(lines)
    out[3] = out[3].replace('"seat":0', '"seat":NaN', 1)
    return out, 4, "NaN is not a number a record holds"


def _empty_line(lines):
    out = list(lines)
    out.insert(6, "\n")
    return out, 7, "an empty line"


def _oversize_line(lines):
    out = list(lines)
    out[6] = out[6].rstrip("\n")[:-1] + ',"pad":"' + "x" * R.MAX_LINE + '"}\n'
    return out, 7, f"bytes; a line is at most {R.MAX_LINE}"


def _not_utf8(lines):
    return [x.encode("utf-8") for x in lines[:8]] + [b'{"e":"\xff"}\n'], 9, "not UTF-8 text"


def _array_line(lines):
    out = list(lines)
    out.insert(2, "[1, 2]\n")
    return out, 3, "a hand begins with a 'hand' event|an event is an object"


DAMAGE = [_forged_tile, _fifth_copy, _wrong_key, _missing_key, _bool_for_int, _float_for_int,
          _unknown_event, _end_first, _event_before_hand, _hand_inside_hand, _header_twice,
          _header_not_first, _unknown_version, _header_extra, _other_rules,
          _non_canonical_tile, _not_json, _duplicate_key, _nan, _empty_line, _oversize_line,
          _not_utf8, _array_line]


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__[1:] for d in DAMAGE])
def test_damage_is_refused_naming_the_line(recorded, tmp_path, damage):
    _, lines = recorded
    damaged, n, message = damage(lines)
    data = b"".join(x if isinstance(x, bytes) else x.encode("utf-8") for x in damaged)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(data)
    for source in (path, data):
        with pytest.raises(HandError, match=rf"^record line {n}: .*({message})") as err:
            read_record(source)
        assert err.value.code == "damaged"
        with pytest.raises(HandError, match=rf"^record line {n}: "):
            read_record(source, partial=True)      # damage is not a cut: refused all the same


def test_a_cut_record_is_refused_or_read_to_its_last_complete_hand(recorded):
    path, lines = recorded
    text = "".join(lines)
    first = len(demo_events()) + 1                     # the header and the first hand
    # a half line at the end
    cut = text[:-20]
    with pytest.raises(HandError, match=rf"^record line {len(lines)}: the last line is cut "
                                        r"off .*partial=True") as err:
        read_record(cut)
    assert err.value.code == "damaged"
    rec = read_record(cut, partial=True)
    assert len(rec.hands) == 1 and rec.hands[0].events == demo_events()
    assert rec.truncated.startswith(f"record line {len(lines)}: the last line is cut off")
    # the last hand without its end
    cut = "".join(lines[:-3])
    with pytest.raises(HandError, match=rf"^record line {len(lines) - 3}: the hand from line "
                                        rf"{first + 1} has no 'end'"):
        read_record(cut)
    rec = read_record(cut, partial=True)
    assert len(rec.hands) == 1 and "has no 'end'" in rec.truncated
    # cut right after a hand: complete, nothing to report
    rec = read_record("".join(lines[:first]))
    assert len(rec.hands) == 1 and rec.truncated is None
    # the header alone, or less
    assert read_record(lines[0]).hands == []
    with pytest.raises(HandError, match=r"^record line 1: the last line is cut off"):
        read_record(lines[0][:-1].encode("utf-8"), partial=True)
    with pytest.raises(HandError, match="is empty"):
        read_record(b"")


def test_size_limits(recorded, tmp_path, monkeypatch):
    path, lines = recorded
    monkeypatch.setattr(R, "MAX_FILE", path.stat().st_size - 1)
    with pytest.raises(HandError, match="a record is at most") as err:
        read_record(path)
    assert err.value.code == "damaged"
    with pytest.raises(HandError, match="the most a record holds"):
        read_record(path.read_bytes())
    monkeypatch.undo()
    monkeypatch.setattr(R, "MAX_EVENTS", 20)
    with pytest.raises(HandError, match=r"^record line 22: the hand from line 2 has more than "
                                        r"20 events"):
        read_record(path)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(HandError, match="no record file") as err:
        read_record(tmp_path / "none.jsonl")
    assert err.value.code == "not_found"
    with pytest.raises(HandError, match="is not a file") as err:
        read_record(tmp_path)
    assert err.value.code == "io"
    with pytest.raises(HandError, match="takes a path"):
        read_record(42)
    with pytest.raises(HandError, match="partial must be True or False"):
        read_record(b"", partial=1)


# ------------------------------------------------------------------ the writer


def test_the_writer_never_writes_over_a_file(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("keep me\n")
    with pytest.raises(HandError, match="exists") as err:
        RecordWriter(path)
    assert err.value.code == "io" and path.read_text() == "keep me\n"


def test_the_writer_checks_a_hand_before_writing_any_of_it(tmp_path):
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as w:
        with pytest.raises(HandError, match="write the record's header"):
            w.write_hand(demo_events())
        w.write_header(PLAYERS, "dazhong32", 7)
        with pytest.raises(HandError, match="has its header already"):
            w.write_header(PLAYERS, "dazhong32", 7)
        size = path.stat().st_size
        bad = demo_events()
        n = next(i for i, ev in enumerate(bad) if ev["e"] == "chow")
        bad[n]["tiles"] = "234m"
        bad[n]["tile"] = "2m"
        with pytest.raises(HandError, match=rf"^event {n}: chow of 2m"):
            w.write_hand(bad)
        with pytest.raises(HandError, match="written whole, to its 'end'"):
            w.write_hand(demo_events()[:-1])
        with pytest.raises(HandError, match=r"^event 0: the hand's seed 8 is not the record's"):
            w.write_hand([dict(demo_events()[0], seed=8)] + demo_events()[1:])
        unjson = demo_events()
        unjson[-1]["payments"] = (105, -35, -35, -35)        # a tuple: not what reads back
        with pytest.raises(HandError, match="'payments' must be a list"):
            w.write_hand(unjson)
        assert path.stat().st_size == size and w.hands == []
        log = w.write_hand(demo_events())
    assert isinstance(log, HandLog) and log.lines[0] == 2
    assert read_record(path).hands == [log]
    with pytest.raises(HandError, match="is closed"):
        w.write_hand(demo_events())


@pytest.mark.parametrize("kwargs, message", [
    (dict(players=["a", "b"], rules="dazhong32", seed=7), "'players' must be a list of 4"),
    (dict(players=PLAYERS, rules="nope", seed=7), "unknown rule set"),
    (dict(players=PLAYERS, rules="dazhong32", seed=-7), "'seed' must be a whole number"),
    (dict(players=PLAYERS, rules="dazhong32", seed=7, created="yesterday"), "ISO date"),
    (dict(players=PLAYERS, rules="dazhong32", seed=7, session=[1]), "'session' must be"),
    (dict(players=PLAYERS, rules="dazhong32", seed=7, session={"x": float("nan")}),
     "not JSON"),
])
def test_the_header_is_checked_before_it_is_written(tmp_path, kwargs, message):
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as w:
        with pytest.raises(HandError, match=message):
            w.write_header(**kwargs)
    assert path.read_bytes() == b""


def test_the_writer_continues_a_record_after_a_crash(recorded):
    path, lines = recorded
    whole = path.read_bytes()
    # a crash while the third hand was written: its first lines and half a line
    path.write_bytes(whole + "".join(lines[1:6]).encode() + lines[6][:15].encode())
    with pytest.raises(HandError, match="has no 'end'|cut off"):
        read_record(path)
    with RecordWriter(path, append=True) as w:
        assert path.read_bytes() == whole                 # the unfinished hand is cut off
        assert len(w.hands) == 2 and w.header["seed"] == 7
        log = w.write_hand(demo_events())
    rec = read_record(path)
    assert len(rec.hands) == 3 and rec.hands[2] == log
    assert log.lines[0] == 2 + 2 * len(demo_events())
    assert rec.to_jsonl() == path.read_text("utf-8")


def test_append_refuses_a_damaged_record_and_a_second_writer(recorded):
    path, lines = recorded
    with RecordWriter(path, append=True):
        with pytest.raises(HandError, match="another writer has the record") as err:
            RecordWriter(path, append=True)
        assert err.value.code == "io"
    damaged, n, _ = _forged_tile(lines)
    path.write_text("".join(damaged), encoding="utf-8")
    with pytest.raises(HandError, match=rf"^record line {n}: "):
        RecordWriter(path, append=True)
    assert path.read_text("utf-8") == "".join(damaged)     # left as it was
    with pytest.raises(HandError, match="no record file"):
        RecordWriter(path.with_name("none.jsonl"), append=True)


def test_every_hand_is_on_disk_once_written(tmp_path):
    """What a crash leaves: the file read by another process after each write_hand."""
    path = tmp_path / "r.jsonl"
    w = RecordWriter(path)
    w.write_header(PLAYERS, "dazhong32", 7)
    for k in range(1, 4):
        w.write_hand(demo_events())
        fd = os.open(path, os.O_RDONLY)
        try:
            data = os.read(fd, 1 << 20)
        finally:
            os.close(fd)
        assert len(read_record(data).hands) == k
    del w                                           # closed by the collector


def test_make_record_names_the_hand_and_event():
    bad = copy.deepcopy(demo_events())
    bad[-2]["fans"] = {"NOT_A_FAN": 1}
    with pytest.raises(HandError, match=rf"^hand 1, event {len(bad) - 2}: 'fans'"):
        make_record([demo_events(), bad])
    with pytest.raises(HandError, match="2 scores for 1 hands"):
        make_record([demo_events()], session={}, scores=[[0] * 4, [0] * 4])
    rec = make_record([robbed_events()], created="2024-05-01T10:00:00")
    assert rec.header["rules"] == "dazhong" and read_record(rec.to_jsonl()) == rec


def test_dumps_line_is_compact_and_keeps_chinese():
    assert dumps_line({"e": "x", "n": "连拉", "a": [1, 2]}) == '{"e":"x","n":"连拉","a":[1,2]}'
    with pytest.raises(ValueError):
        dumps_line({"x": float("inf")})


def test_a_record_shows_as_html():
    rec = make_record([demo_events()], created="2024-05-01T10:00:00")
    assert isinstance(rec, Record)
    html = rec.hands[0]._repr_html_()
    assert 'class="mjkit-record"' in html and "<svg" in html
    two = make_record([demo_events(), demo_events()], created="2024-05-01T10:00:00")
    html = two._repr_html_()
    assert html.count("<li>牌局 0: 东家 自摸 1万 和牌 (+105 -35 -35 -35)</li>") == 2
    assert html.count('class="mjkit-record"') == 1


# ------------------------------------------------------------------ real tables


def test_tables_of_the_engine_write_records_that_read_back(tmp_path):
    """Hands played by the game engine (built-in players, several rule sets and options):
    written hand by hand, read back equal, each hand folding to the engine's own end."""
    from mjkit.table.engine import Table

    seats = ("strong", "strong_break", "efficiency", "efficiency")    # as the warm-up
    tables = [Table("dazhong32", seed=7, hand=k, seats=seats, exchange=k % 2 == 0)
              for k in range(3)]
    path = tmp_path / "t.jsonl"
    with RecordWriter(path) as w:
        w.write_header(list(tables[0].players), "dazhong32", 7)
        for t in tables:
            w.write_hand(t.events)
    rec = read_record(path)
    assert rec.to_jsonl() == path.read_text("utf-8") and len(rec.hands) == 3
    for t, h in zip(tables, rec.hands):
        end = h.snapshots()[-1]
        assert end.done and end.result["e"] == t.outcome.result
        assert end.wall_left == t.outcome.wall_left
        assert end.payments == t.outcome.payments == h.payments
    other = Table("dazhong", seed=5, seats=seats, wild="turned")
    rec = make_record([other.events])
    assert read_record(rec.to_jsonl()) == rec
