"""A table anyone can sit at: the game engine step by step, sessions with 连拉 carried,
hand records, and mjkit's players as bots.

Parts: :mod:`.actions` (what a player does, and its notation), :mod:`.state` (the public
state a hand's events add up to), :mod:`.engine` (:class:`Table`, the numba game kernel
driven step by step), :mod:`.payments` and :mod:`.session` (hand after hand), :mod:`.record`
(JSON-lines records, read back with a check) and :mod:`.view` (a record shown move by move).
"""

from .actions import Action, parse_action
from .engine import Outcome, Table
from .observation import Observation
from .state import Meld, Snapshot

__all__ = ["Table", "Outcome", "Observation", "Action", "parse_action", "Meld", "Snapshot",
           "Session", "read_record", "RecordWriter", "RecordView"]


def __getattr__(name):
    # the session, records and their view load on first use (the view needs ipywidgets)
    if name == "Session":
        from .session import Session
        return Session
    if name in ("read_record", "RecordWriter"):
        from . import record
        return getattr(record, name)
    if name == "RecordView":
        from .view import RecordView
        return RecordView
    raise AttributeError(f"module 'mjkit.table' has no attribute {name!r}")
