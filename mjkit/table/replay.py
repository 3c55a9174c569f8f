"""Play a recorded hand again on the engine and check every event (``Table.replay``).

The table is set up from the record's ``"hand"`` event.  A seat the record names as a
built-in player (``"strong"``, ...) is played by that player again, in the kernel; every
other seat (a person, a Python function) is played from the record: at each decision the
kernel asks for, the action is read from the events that follow (a discard, a kong, a win,
a claim, the tiles exchanged; a seat whose claim did not happen passed).  Every event the
engine then writes must equal the recorded one.  So a record replays to the same states,
or is refused at the first event that differs — a damaged, forged or truncated record
never gives a silently different game.  (A person's decision changed in a record into
another legal one, and every event after it changed to match, is another game that could
have been played: nothing tells it from the real one.)
"""

from __future__ import annotations

from ..errors import HandError
from ..tiles import parse_tiles, tile_from_str
from .actions import Action

__all__ = ["replay"]

_MELDS = ("chow", "pung", "kong")
_WINS = ("win", "false_win")


def _where(lines, i):
    if lines is not None and i < len(lines):
        return f"record line {lines[i]}"
    return f"event {i}"


def _events(events):
    """(events, line numbers or None) of a list of dicts or a ``HandLog``."""
    if hasattr(events, "events") and hasattr(events, "lines"):
        return list(events.events), list(events.lines)
    if isinstance(events, (list, tuple)):
        return list(events), None
    raise HandError("replay takes a hand's events (a list of dicts, Table.events) or a "
                    f"HandLog of mjkit.table.record, got {type(events).__name__}")


def _decision(table, rec, i, lines):
    """The action the record says the seat asked took, reading from event ``i``."""
    seat = table.to_act
    asking = table.asking
    legal = table.legal_actions(seat)
    if asking == "exchange":
        gave = []
        j = i
        while j < len(rec):
            ev = rec[j]
            name = ev.get("e")
            if name == "exchange" and ev.get("seat") == seat:
                gave.append(tile_from_str(ev["gave"]))
                j += 1
            elif name in ("flower", "draw") and ev.get("seat") == seat and gave:
                j += 1                              # a flower that came, and its replacement
            else:
                break
        return Action("exchange", tiles=tuple(gave))      # in the order swapped
    if i >= len(rec):
        raise HandError(f"{_where(lines, len(rec) - 1)}: the record ends while seat {seat} "
                        f"is asked ({asking}): it is truncated")
    ev = rec[i]
    name = ev.get("e")
    if asking == "turn" and name == "pass" and ev.get("seat") == seat:
        # a win on its own draw let go ("pass"), then its move
        if i + 1 >= len(rec):
            raise HandError(f"{_where(lines, i)}: the record ends while seat {seat} is to "
                            "play: it is truncated")
        i += 1
        ev = rec[i]
        name = ev.get("e")
    if asking in ("turn", "discard"):
        if ev.get("seat") != seat:
            raise HandError(f"{_where(lines, i)}: seat {seat} is to play ({asking}), but the "
                            f"record has {name} by seat {ev.get('seat')}")
        if name in _WINS and asking == "turn":
            return Action("win")
        if name == "kong" and asking == "turn" and (ev.get("concealed") or ev.get("added")):
            return Action("kong", tile_from_str(ev["tile"]))
        if name == "discard":
            return Action("discard", tile_from_str(ev["tile"]))
        raise HandError(f"{_where(lines, i)}: seat {seat} is to play ({asking}); {name} is "
                        "not a move it can make")
    # a claim or a kong to rob: the seats asked answer before anything is resolved; a
    # "pass" event says a seat let a legal win go; the event after the passes says what
    # happened
    j = i
    passed = False
    while j < len(rec) and rec[j].get("e") == "pass":
        if rec[j].get("seat") == seat:
            passed = True
        j += 1
    if j >= len(rec):
        raise HandError(f"{_where(lines, len(rec) - 1)}: the record ends while seat {seat} "
                        f"is asked ({asking}): it is truncated")
    res = rec[j]
    can_win = any(a.kind == "win" for a in legal)
    if res.get("seat") == seat and res.get("e") in _WINS:
        return Action("win")
    if can_win and not passed:
        if res.get("e") in _WINS:
            return Action("win")        # an earlier seat's win came first
        raise HandError(f"{_where(lines, j)}: seat {seat} could win on the tile and neither "
                        "declared nor passed (a pass event is missing)")
    if res.get("seat") == seat and res.get("e") in _MELDS and not res.get("concealed") \
            and not res.get("added"):
        tile = parse_tiles(res["tiles"])[0] if res["e"] == "chow" else \
            tile_from_str(res["tile"])
        return Action(res["e"], tile)
    return Action("pass")


def replay(cls, events, *, states=False, on_decision=None):
    """See :meth:`mjkit.table.Table.replay`."""
    rec, lines = _events(events)
    if not rec or not isinstance(rec[0], dict) or rec[0].get("e") != "hand":
        raise HandError(f"{_where(lines, 0)}: a hand's record starts with its \"hand\" event")
    head = rec[0]
    from .state import Fold, fan_keys_of, parse_event
    # every event's form checked first, so that reading the decisions below never meets a
    # malformed one; whether the events add up is the engine's to say, event by event
    keys = None
    for k, ev in enumerate(rec):
        try:
            name, fields = parse_event(ev, keys)
        except HandError as e:
            raise HandError(f"{_where(lines, k)}: {e}") from None
        if k == 0:
            keys = fan_keys_of(fields["rules"])
    fold = Fold()
    snaps = [fold.apply(head, where=_where(lines, 0))]
    opts = head["options"]
    from ..sim.policy import POLICIES
    players = head.get("players") if isinstance(head.get("players"), list) else []
    seats = tuple(p if isinstance(p, str) and p in POLICIES else None for p in players)
    table = cls(head["rules"], seed=head["seed"], hand=head["hand"], level=head["level"],
                wall_level=head["wall_level"], round_wind=head["round_wind"],
                seats=seats, wild=opts["wild"], exchange=opts["exchange"],
                wait_rule=opts["wait_rule"], exhaust=opts["exhaust"],
                discard_wins=opts["discard_wins"], claims=opts["claims"])
    mine = table._header()
    mine["players"] = head["players"]
    if mine != head:
        diff = sorted(k for k in set(mine) | set(head) if mine.get(k) != head.get(k))
        raise HandError(f"{_where(lines, 0)}: the hand event's {', '.join(diff)} do not "
                        "describe a table the engine sets up the same way")
    table.players = tuple(head["players"])
    table.events[0] = dict(head)
    done = 1

    def check():
        nonlocal done
        got = table.events
        for k in range(done, len(got)):
            if k >= len(rec):
                raise HandError(f"{_where(lines, len(rec) - 1)}: the record ends here, but "
                                f"the game goes on with {got[k]}")
            if got[k] != rec[k]:
                raise HandError(f"{_where(lines, k)}: the record has {rec[k]}, the game "
                                f"gives {got[k]}")
            if states:
                snaps.append(fold.apply(rec[k], where=_where(lines, k)))
        done = len(got)

    check()
    while not table.done:
        act = _decision(table, rec, done, lines)
        if on_decision is not None:
            on_decision(table, act, done)
        try:
            table.step(act)
        except HandError as e:
            raise HandError(f"{_where(lines, min(done, len(rec) - 1))}: the record's move "
                            f"{act} is not possible here: {e}") from None
        check()
    if len(rec) > done:
        raise HandError(f"{_where(lines, done)}: the hand ended at the event before; the "
                        "record goes on")
    if states:
        table.states = snaps
    return table
