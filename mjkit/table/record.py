"""Hand records: JSON lines written hand by hand, read back only after every check passes.

A record file (``docs/records.md``) is UTF-8 text, one JSON object per line: a header
``{"e": "record", "format": "mjkit-record", "version": 1, ...}``, then each hand's events
from ``{"e": "hand", ...}`` to ``{"e": "end", ...}`` (:mod:`mjkit.table.state`), and in a
session's record a ``{"e": "scores", ...}`` line after each hand.

- :class:`RecordWriter` creates a record (never over an existing file) or continues one
  it wrote, and writes each hand whole, flushed and fsynced once its ``"end"`` is
  written: a crash loses at most the hand being played.  What it writes is checked
  first, as a reader will check it, so a record mjkit writes always reads back.
- :func:`read_record` reads a file (or its text) and trusts nothing: size limits, one
  JSON object per line, the header, every event's keys and types, the order of the
  blocks, and the state every hand's events add up to (:class:`~mjkit.table.state.Fold`:
  no tile played that is not held, no fifth copy...).  Anything wrong raises
  :class:`mjkit.HandError` (code ``"damaged"``) naming the line.  A record cut short (the
  last hand without its ``"end"``, a last line without its newline) is refused too, or
  with ``partial=True`` read up to its last complete hand, the cut reported in
  :attr:`Record.truncated`.
- :class:`Record` (the header and its :class:`HandLog` s) prints back exactly:
  ``read_record(path).to_jsonl()`` is the file's text when mjkit wrote it.

Nothing read is ever evaluated or unpickled: lines go through :func:`json.loads` only.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..errors import HandError
from .state import EVENTS, MAX_NAME, Fold, Snapshot, BadEvent, check_int, check_players, show_value, fold

__all__ = ["FORMAT", "VERSION", "MAX_FILE", "MAX_LINE", "MAX_EVENTS", "HandLog", "Record",
           "RecordWriter", "read_record", "make_record", "dumps_line"]

#: The ``"format"`` of a record's header.
FORMAT = "mjkit-record"
#: The version of the format this mjkit writes and reads.
VERSION = 1
#: The largest record file read (bytes).
MAX_FILE = 64 * 2**20
#: The longest line read (bytes, without its newline).
MAX_LINE = 64 * 2**10
#: The most events in one hand.
MAX_EVENTS = 2048

_HEADER_KEYS = ("e", "format", "version", "players", "rules", "seed", "created", "mjkit")
_HEADER_OPTIONAL = ("session",)
_SCORES_KEYS = ("e", "after_hand", "scores")
_MAX_SCORE = 10**12
_MAX_SEED = 2**63 - 1


def dumps_line(obj: Any) -> str:
    """One record line: ``obj`` as compact JSON (keys in their order, UTF-8 kept), no newline."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass
class HandLog:
    """One hand of a record.

    Attributes
    ----------
    events : list of dict
        The hand's events, ``"hand"`` to ``"end"``.
    lines : list of int
        The line of each event in its record (1 is the header).
    scores : tuple of 4 int or None
        A session's scores after this hand, by player (the ``"scores"`` line).
    scores_line : int or None
    """

    events: list
    lines: list
    scores: tuple | None = None
    scores_line: int | None = None

    def snapshots(self) -> list[Snapshot]:
        """The table before the first event and after each (:func:`mjkit.table.state.fold`)."""
        return fold(self.events)

    @property
    def result(self) -> dict:
        """The ``"win"``, ``"false_win"`` or ``"drawn_out"`` event."""
        return self.events[-2]

    @property
    def payments(self) -> tuple:
        """The payments by position, from the ``"end"`` event."""
        return tuple(self.events[-1]["payments"])

    def _repr_html_(self) -> str:
        from .view import record_html

        return record_html(self)


@dataclass
class Record:
    """A record: its header and its hands.

    Attributes
    ----------
    header : dict
        The first line: format, version, players, rules, seed, created, mjkit, and a
        session's ``"session"`` options.
    hands : list of HandLog
    truncated : str or None
        Read with ``partial=True`` from a record cut short: what was cut (not compared).
    """

    header: dict
    hands: list = field(default_factory=list)
    truncated: str | None = field(default=None, compare=False)

    def to_jsonl(self) -> str:
        """The record as its file's text (every line ending in a newline)."""
        lines = [dumps_line(self.header)]
        for h in self.hands:
            lines.extend(dumps_line(ev) for ev in h.events)
            if h.scores is not None:
                lines.append(dumps_line({"e": "scores", "after_hand": h.events[0]["hand"],
                                         "scores": list(h.scores)}))
        return "".join(line + "\n" for line in lines)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the record to a new file ``path`` (an existing file is never replaced).

        Raises
        ------
        HandError
            ``code="io"`` when the file exists or cannot be written.
        """
        with RecordWriter(path) as w:
            w._put_header(dict(self.header))
            for h in self.hands:
                w.write_hand(h.events, scores=h.scores)
        return Path(path)

    def _repr_html_(self) -> str:
        from .view import summary_html

        return summary_html(self)


# ---------------------------------------------------------------- checks


def _check_header(obj: Any) -> dict:
    """The header line, checked (raises BadEvent)."""
    if type(obj) is not dict:
        raise BadEvent(f"the first line is the record's header, an object, got {show_value(obj)}")
    if obj.get("e") != "record" or obj.get("format") != FORMAT:
        raise BadEvent(f"not an mjkit record: the first line must be the header "
                   f"{{\"e\": \"record\", \"format\": \"{FORMAT}\", ...}}")
    version = obj.get("version")
    if type(version) is not int:
        raise BadEvent(f"the header's 'version' must be a whole number, got {show_value(version)}")
    if version != VERSION:
        raise BadEvent(f"record version {show_value(version)} is not known to this mjkit (it "
                   f"reads version {VERSION})")
    keys = set(obj)
    missing = [k for k in _HEADER_KEYS if k not in keys]
    if missing:
        raise BadEvent(f"the header lacks {', '.join(repr(k) for k in missing)}")
    extra = sorted(keys - set(_HEADER_KEYS) - set(_HEADER_OPTIONAL))
    if extra:
        raise BadEvent(f"the header has unknown keys {', '.join(show_value(k) for k in extra)}")
    check_players(obj["players"])
    rules = obj["rules"]
    if type(rules) is not str or len(rules) > 64:
        raise BadEvent(f"the header's 'rules' must be a rule set's name, got {show_value(rules)}")
    from ..rules import get_rules

    try:
        get_rules(rules)
    except HandError as exc:
        raise BadEvent(f"the header's 'rules': {exc}") from None
    check_int(obj["seed"], "seed", 0, _MAX_SEED)
    created = obj["created"]
    try:
        if type(created) is not str or len(created) > 40:
            raise ValueError
        _dt.datetime.fromisoformat(created)
    except ValueError:
        raise BadEvent(f"the header's 'created' must be an ISO date and time, got "
                   f"{show_value(created)}") from None
    version_text = obj["mjkit"]
    if type(version_text) is not str or not 1 <= len(version_text) <= MAX_NAME \
            or not version_text.isprintable():
        raise BadEvent(f"the header's 'mjkit' must be a version, got {show_value(version_text)}")
    if "session" in obj and type(obj["session"]) is not dict:
        raise BadEvent(f"the header's 'session' must be an object of the session's options, got "
                   f"{show_value(obj['session'])}")
    return obj


def _check_hand_start(ev: dict, header: dict) -> None:
    """A hand's ``"hand"`` event against the record's header (raises BadEvent)."""
    for key in ("rules", "seed"):
        if ev.get(key) != header[key] or type(ev.get(key)) is not type(header[key]):
            raise BadEvent(f"the hand's {key} {show_value(ev.get(key))} is not the record's "
                       f"({show_value(header[key])})")


def _check_scores(obj: dict, header: dict, last: HandLog | None) -> tuple:
    """A ``"scores"`` line after the hand ``last`` (raises BadEvent)."""
    if "session" not in header:
        raise BadEvent("a 'scores' line in a record that is not a session's (its header has no "
                   "'session')")
    if last is None or last.scores is not None:
        raise BadEvent("a 'scores' line comes once, right after a hand's 'end'")
    keys = set(obj)
    if keys != set(_SCORES_KEYS):
        extra = sorted(keys - set(_SCORES_KEYS))
        missing = [k for k in _SCORES_KEYS if k not in keys]
        raise BadEvent("a 'scores' line has the keys e, after_hand, scores"
                   + (f"; unknown: {', '.join(show_value(k) for k in extra)}" if extra else "")
                   + (f"; missing: {', '.join(missing)}" if missing else ""))
    hand_no = last.events[0]["hand"]
    if type(obj["after_hand"]) is not int or obj["after_hand"] != hand_no:
        raise BadEvent(f"'after_hand' {show_value(obj['after_hand'])} is not the hand just "
                   f"ended ({hand_no})")
    scores = obj["scores"]
    if type(scores) is not list or len(scores) != 4:
        raise BadEvent(f"'scores' must be a list of 4 whole numbers, got {show_value(scores)}")
    out = tuple(check_int(s, "scores", -_MAX_SCORE, _MAX_SCORE) for s in scores)
    if sum(out):
        raise BadEvent(f"'scores' {list(out)} do not sum to 0 (payments always do)")
    return out


def _no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError(f"the key {k!r} comes twice in one object")
        obj[k] = v
    return obj


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number a record holds")


def _loads(raw: bytes) -> Any:
    """One line's JSON (raises BadEvent)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadEvent("not UTF-8 text") from None
    if not text.strip():
        raise BadEvent("an empty line (each line is one JSON object)")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_refuse_constant)
    except RecursionError:
        raise BadEvent("JSON nested too deep") from None
    except ValueError as exc:
        raise BadEvent(f"not a JSON object: {exc}") from None


# ---------------------------------------------------------------- reading


class _Reader:
    """The record's lines in order, checked one at a time."""

    def __init__(self):
        self.header: dict | None = None
        self.hands: list[HandLog] = []
        self.fold: Fold | None = None        # the hand being read
        self.events: list = []
        self.lines: list = []

    def feed(self, n: int, obj: Any) -> None:
        where = f"record line {n}"
        try:
            if self.header is None:
                self.header = _check_header(obj)
                return
            if self.fold is not None:
                if len(self.events) >= MAX_EVENTS:
                    raise BadEvent(f"the hand from line {self.lines[0]} has more than "
                               f"{MAX_EVENTS} events")
                if isinstance(obj, dict) and obj.get("e") in ("record", "scores"):
                    raise BadEvent(f"a {obj['e']!r} line inside the hand from line "
                               f"{self.lines[0]} (which has no 'end')")
                self._event(n, obj, where)
                return
            kind = obj.get("e") if isinstance(obj, dict) else None
            if kind == "scores":
                last = self.hands[-1] if self.hands else None
                scores = _check_scores(obj, self.header, last)
                last.scores, last.scores_line = scores, n
            elif kind == "hand":
                self.fold, self.events, self.lines = Fold(), [], []
                self._event(n, obj, where)
                _check_hand_start(obj, self.header)
            elif kind == "record":
                raise BadEvent("a second header: one record per file")
            elif kind in EVENTS:
                raise BadEvent(f"a {kind!r} event outside a hand (a hand begins with 'hand')")
            else:
                raise BadEvent(f"unknown line {show_value(kind if kind else obj)}; after the header "
                           "come hands ('hand' ... 'end') and a session's 'scores'")
        except BadEvent as exc:
            raise HandError(f"{where}: {exc}", code="damaged") from None

    def _event(self, n: int, obj: Any, where: str) -> None:
        self.fold.apply(obj, where=where)       # its HandError names the line already
        self.events.append(obj)
        self.lines.append(n)
        if self.fold.done:
            self.hands.append(HandLog(self.events, self.lines))
            self.fold, self.events, self.lines = None, [], []


def _read_bytes(source: Any) -> tuple[bytes, str]:
    """The bytes of a record and how to name it."""
    if isinstance(source, bytes):
        data, name = source, "record"
    elif isinstance(source, str) and ("\n" in source or source.lstrip().startswith("{")):
        data, name = source.encode("utf-8", "surrogatepass"), "record"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            st = path.stat()
        except FileNotFoundError:
            raise HandError(f"no record file {str(path)!r}", code="not_found") from None
        except OSError as exc:
            raise HandError(f"cannot read the record {str(path)!r}: {exc.strerror}",
                            code="io") from None
        import stat as _stat

        if not _stat.S_ISREG(st.st_mode):
            raise HandError(f"{str(path)!r} is not a file", code="io")
        if st.st_size > MAX_FILE:
            raise HandError(f"record {str(path)!r} is {st.st_size} bytes; a record is at most "
                            f"{MAX_FILE} (64 MB)", code="damaged")
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_FILE + 1)
        except OSError as exc:
            raise HandError(f"cannot read the record {str(path)!r}: {exc.strerror}",
                            code="io") from None
        name = f"record {str(path)!r}"
    else:
        raise HandError(f"read_record takes a path, the record's text or bytes, got "
                        f"{type(source).__name__} {show_value(source)}")
    if len(data) > MAX_FILE:
        raise HandError(f"{name} is over {MAX_FILE} bytes (64 MB), the most a record holds",
                        code="damaged")
    return data, name


def read_record(source: Any, *, partial: bool = False) -> Record:
    """Read a record, checking everything before it is trusted.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path, or the record's text (a str holding a newline or starting with ``{``) or
        bytes.
    partial : bool
        Accept a record cut short (the last hand without its ``"end"``, a last line
        without its newline: what a crash while writing leaves): return its complete
        hands, the cut named in :attr:`Record.truncated`.  Damage anywhere else is
        refused all the same.

    Returns
    -------
    Record

    Raises
    ------
    HandError
        ``code="damaged"``, ``"record line N: <what is wrong>"``: a file over 64 MB or a
        line over 64 KiB, a line that is not one UTF-8 JSON object (an empty line, a key
        twice, NaN), a first line that is not a known version's header, an unknown event,
        a key missing or unknown, a value of the wrong type (true for a number, a number
        for a tile), a tile not written as mjkit writes it, an event outside a hand or
        after its end, a hand of another rule set or seed than the header's, more than
        1000 events in a hand, an event the state cannot hold (a tile played that is not
        held, a fifth copy, a claim of a discard that is not the last), a cut record
        (unless ``partial``).  ``"not_found"`` / ``"io"`` for a file that is missing or
        cannot be read.
    """
    return _read(source, partial)[0]


def _read(source: Any, partial: Any) -> tuple[Record, int]:
    """:func:`read_record`, and the length in bytes of the record's complete part (its
    header and complete hands, what a writer may continue after)."""
    if partial is not True and partial is not False:
        raise HandError(f"partial must be True or False, got {show_value(partial)}")
    data, name = _read_bytes(source)
    parts = data.split(b"\n")
    tail = parts.pop()                  # b"" when the text ends with a newline
    reader = _Reader()
    offset = good = 0
    for n, raw in enumerate(parts, start=1):
        offset += len(raw) + 1
        if len(raw) > MAX_LINE:
            raise HandError(f"record line {n}: {len(raw)} bytes; a line is at most {MAX_LINE} "
                            "(64 KiB)", code="damaged")
        try:
            obj = _loads(raw)
        except BadEvent as exc:
            raise HandError(f"record line {n}: {exc}", code="damaged") from None
        reader.feed(n, obj)
        if reader.fold is None:
            good = offset
    cut = None
    if tail:
        cut = (f"record line {len(parts) + 1}: the last line is cut off (no newline at its "
               "end): the record was not written to its end")
    elif reader.fold is not None:
        cut = (f"record line {reader.lines[-1]}: the hand from line {reader.lines[0]} has no "
               "'end': the record was not written to its end")
    if reader.header is None:
        raise HandError(cut or f"{name} is empty: a record begins with its header line",
                        code="damaged")
    if cut is not None and not partial:
        raise HandError(cut + " (read_record(..., partial=True) reads its complete hands)",
                        code="damaged")
    return Record(reader.header, reader.hands, cut), good


# ---------------------------------------------------------------- writing


def _block(header: dict, events: Any, scores: Any,
           first_line: int) -> tuple[HandLog, list[str]]:
    """One hand checked as a reader will check it: its HandLog and its lines (raises
    HandError naming the event)."""
    if isinstance(events, (str, bytes, dict)) or not hasattr(events, "__iter__"):
        raise HandError(f"a hand is a list of events, got {type(events).__name__}")
    events = list(events)
    if not events:
        raise HandError("a hand has no events")
    if len(events) > MAX_EVENTS:
        raise HandError(f"a hand of {len(events)} events; a record holds at most {MAX_EVENTS}")
    f = Fold()
    for i, ev in enumerate(events):
        f.apply(ev, where=f"event {i}")
        if i == 0:
            try:
                _check_hand_start(ev, header)
            except BadEvent as exc:
                raise HandError(f"event 0: {exc}", code="damaged") from None
    if not f.done:
        raise HandError(f"the hand's last event is {events[-1]['e']!r}: a hand is written "
                        "whole, to its 'end'", code="damaged")
    lines = [dumps_line(ev) for ev in events]
    log = HandLog(events, list(range(first_line, first_line + len(events))))
    if scores is not None:
        if isinstance(scores, (str, bytes)) or not hasattr(scores, "__iter__"):
            raise HandError(f"scores must be 4 whole numbers, got {show_value(scores)}")
        obj = {"e": "scores", "after_hand": events[0]["hand"], "scores": list(scores)[:5]}
        try:
            log.scores = _check_scores(obj, header, log)
        except BadEvent as exc:
            raise HandError(f"scores: {exc}") from None
        log.scores_line = first_line + len(events)
        lines.append(dumps_line(obj))
    for i, line in enumerate(lines):
        if len(line.encode("utf-8")) > MAX_LINE:
            raise HandError(f"event {i} is over {MAX_LINE} bytes as a line", code="damaged")
    return log, lines


class RecordWriter:
    """Write a record hand by hand, each hand durable once written.

    Parameters
    ----------
    path : str or os.PathLike
        The record file.
    append : bool
        False (default): create ``path``, which must not exist.  True: continue the
        record at ``path`` (read first, with every check; an unfinished hand at its end,
        left by a crash, is cut off the file) after its last complete hand.

    Raises
    ------
    HandError
        ``code="io"``: the file exists (``append=False``), cannot be created or opened, or
        another writer has it open; ``"not_found"``/``"damaged"`` from reading it
        (``append=True``).

    Examples
    --------
    >>> with RecordWriter("hands.jsonl") as w:                      # doctest: +SKIP
    ...     w.write_header(players=t.players, rules="dazhong32", seed=7)
    ...     w.write_hand(t.events)
    """

    def __init__(self, path: str | os.PathLike, *, append: bool = False):
        if append is not True and append is not False:
            raise HandError(f"append must be True or False, got {show_value(append)}")
        self.path = Path(path)
        self.header: dict | None = None
        self.hands: list[HandLog] = []
        self._lines = 0
        self._size = 0
        self._fd: int | None = None
        if append:
            self._open(os.O_WRONLY)                 # locked first: no writer in between
            try:
                record, keep = _read(self.path, True)
            except HandError:
                self.close()
                raise
            if os.fstat(self._fd).st_size != keep:
                os.ftruncate(self._fd, keep)        # the crashed hand's lines
                os.fsync(self._fd)
            os.lseek(self._fd, 0, os.SEEK_END)
            self.header, self.hands = record.header, list(record.hands)
            self._lines = 1 + sum(len(h.events) + (h.scores is not None) for h in self.hands)
            self._size = keep
        else:
            self._open(os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            with contextlib.suppress(OSError):      # make the new name durable
                dfd = os.open(self.path.resolve().parent, os.O_RDONLY)
                try:
                    os.fsync(dfd)
                finally:
                    os.close(dfd)

    def _open(self, flags: int) -> None:
        try:
            self._fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
        except FileNotFoundError:
            raise HandError(f"no record file {str(self.path)!r}"
                            + ("" if flags & os.O_CREAT else " to continue"),
                            code="not_found") from None
        except FileExistsError:
            raise HandError(f"{str(self.path)!r} exists: a record is never written over; "
                            "choose another name, or RecordWriter(path, append=True) to "
                            "continue it", code="io") from None
        except OSError as exc:
            raise HandError(f"cannot write the record {str(self.path)!r}: {exc.strerror}",
                            code="io") from None
        try:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:             # pragma: no cover - not POSIX
            pass
        except OSError:
            os.close(self._fd)
            self._fd = None
            raise HandError(f"another writer has the record {str(self.path)!r} open",
                            code="io") from None

    def _write(self, lines: list[str]) -> None:
        if self._fd is None:
            raise HandError(f"the record writer of {str(self.path)!r} is closed", code="io")
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        if self._size + len(data) > MAX_FILE:
            raise HandError(f"the record {str(self.path)!r} would pass {MAX_FILE} bytes (64 MB), "
                            "the most a record holds: start a new one", code="io")
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            os.fsync(self._fd)
        except OSError as exc:
            raise HandError(f"cannot write the record {str(self.path)!r}: {exc.strerror}",
                            code="io") from None
        self._size += len(data)
        self._lines += len(lines)

    def write_header(self, players: Iterable[str], rules: str, seed: int, *,
                     session: dict | None = None, created: str | None = None) -> dict:
        """Write the header line (once, first).

        Parameters
        ----------
        players : sequence of 4 str
            The players: by position for one table, by seat for a session.
        rules : str
        seed : int
        session : dict, optional
            A session's options (JSON values); a record with it may carry ``"scores"``.
        created : str, optional
            ISO date and time (default: now, UTC).

        Returns
        -------
        dict
            The header written.
        """
        from .. import __version__

        if self.header is not None:
            raise HandError(f"the record {str(self.path)!r} has its header already")
        if isinstance(players, (str, bytes)) or not hasattr(players, "__iter__"):
            raise HandError(f"players must be 4 names, got {show_value(players)}")
        header = {"e": "record", "format": FORMAT, "version": VERSION,
                  "players": list(players)[:5], "rules": rules, "seed": seed,
                  "created": created or _dt.datetime.now(_dt.timezone.utc)
                  .isoformat(timespec="seconds"), "mjkit": __version__}
        if session is not None:
            header["session"] = session
        return self._put_header(header)

    def _put_header(self, header: dict) -> dict:
        """Write ``header`` (a whole header line's object), checked."""
        if self.header is not None:
            raise HandError(f"the record {str(self.path)!r} has its header already")
        try:
            _check_header(header)
            line = dumps_line(header)
        except BadEvent as exc:
            raise HandError(f"record header: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise HandError(f"record header: not JSON: {exc}") from None
        if len(line.encode("utf-8")) > MAX_LINE:
            raise HandError(f"record header: over {MAX_LINE} bytes")
        self._write([line])
        self.header = header
        return header

    def write_hand(self, events: Iterable[dict], *, scores: Iterable[int] | None = None
                   ) -> HandLog:
        """Write one whole hand (and a session's scores after it), then fsync.

        Parameters
        ----------
        events : sequence of dict
            The hand's events, ``"hand"`` to ``"end"``, checked as :func:`read_record`
            checks them before anything is written.
        scores : sequence of 4 int, optional
            A session's scores by player after this hand (the header must have
            ``session``).

        Returns
        -------
        HandLog

        Raises
        ------
        HandError
            Naming the event (``"event 12: ..."``) that a reader would refuse; nothing
            is written then.
        """
        if self.header is None:
            raise HandError("write the record's header (write_header) before its hands")
        try:
            log, lines = _block(self.header, events, scores, self._lines + 1)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, HandError):
                raise
            raise HandError(f"a hand's events must be JSON: {exc}") from None
        self._write(lines)
        self.hands.append(log)
        return log

    def close(self) -> None:
        """Close the file (every hand written is already on disk)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()


def make_record(hands: Iterable[Iterable[dict]], *, players: Iterable[str] | None = None,
                rules: str | None = None, seed: int | None = None,
                session: dict | None = None, created: str | None = None,
                scores: Iterable[Iterable[int]] | None = None) -> Record:
    """A checked :class:`Record` of hands' events, in memory (``.save(path)`` writes it).

    Parameters
    ----------
    hands : iterable of lists of dict
        Each hand's events (e.g. ``[table.events]``).
    players, rules, seed : optional
        The header's; by default those of the first hand.
    session : dict, optional
        A session's options.
    created : str, optional
        ISO date and time (default: now, UTC).
    scores : iterable of 4 ints per hand, optional
        A session's scores after each hand.

    Raises
    ------
    HandError
        ``"hand i, event j: ..."`` for anything a reader would refuse.
    """
    from .. import __version__

    if isinstance(hands, (str, bytes, dict)) or not hasattr(hands, "__iter__"):
        raise HandError(f"hands must be a list of hands' events, got {show_value(hands)}")
    hands = list(hands)
    first = hands[0][0] if hands and hands[0] and isinstance(hands[0][0], dict) else {}
    header = {"e": "record", "format": FORMAT, "version": VERSION,
              "players": list(first.get("players", []) if players is None else players),
              "rules": first.get("rules") if rules is None else rules,
              "seed": first.get("seed") if seed is None else seed,
              "created": created or _dt.datetime.now(_dt.timezone.utc)
              .isoformat(timespec="seconds"), "mjkit": __version__}
    if session is not None:
        header["session"] = session
    try:
        _check_header(header)
    except BadEvent as exc:
        raise HandError(f"record header: {exc}") from None
    scores = [None] * len(hands) if scores is None else list(scores)
    if len(scores) != len(hands):
        raise HandError(f"{len(scores)} scores for {len(hands)} hands")
    out: list[HandLog] = []
    line = 2
    for i, (events, sc) in enumerate(zip(hands, scores)):
        try:
            log, lines = _block(header, events, sc, line)
        except HandError as exc:
            raise HandError(f"hand {i}, {exc}", code=exc.code) from None
        out.append(log)
        line += len(lines)
    return Record(header, out)
