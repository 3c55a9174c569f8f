"""Sessions: hand after hand at one table, the deal rotating, 连拉 carried, points added up.

A :class:`Session` seats four players at physical seats 0..3 (player 0 deals the first
hand) and plays hand after hand, each a :class:`~mjkit.table.engine.Table`.  What happens
between two hands — who deals next, at which 连拉 level, which round it is, who sits out
after a P胡 — is one pure function, :func:`next_state`, of the :class:`SessionState` and
the hand's result, so the rules of a session can be read (and tested) apart from the game.
``docs/rules.md`` ("Sessions") states the rules with the seed lines they come from:

* The dealer keeps the deal after a win: at 连N+1拉N+1 where the rule set has 连拉
  (seed 000 §一.2: "连拉即指庄家连庄，庄胡一局即为连1拉1"), else at level 0 (连庄 without
  拉).  Otherwise the deal passes to the dealer's next seat (003: "庄家如果胡牌，
  则下一把可继续连庄，否则即由庄家的下家做庄"), or with ``next_dealer="winner"`` to a non-dealer winner
  (003: "以后则为胡牌的人为庄家,如果荒牌则算庄家的下一家坐庄").  A hand without a winner (荒牌,
  003: "荒牌后庄家的下家坐庄", or a P胡) passes the deal to the next seat in both.
* A round (圈) is four passes of the deal: in the default rotation the deal has gone once
  around the table and every player has dealt.  Round winds E, S, W, N; four rounds are
  a full game (003: "牌局通常在四位玩家…轮流做过四次庄后结束").
* P胡 (000 §四.2: "庄上P胡离开2圈，2圈满惩罚结束；闲家P胡离开1圈，1圈满惩罚结束；如P胡者有连拉，
  在离开的时间内没有破拉，则连拉继续计算"): the player sits out 2 rounds (8 passes of the deal)
  after a P胡 as dealer, 1 round (4 passes) otherwise, counted from the pass that ends the
  P胡 hand; a built-in ``substitute`` plays the seat meanwhile.  A dealer's streak is held
  while away and given back if no hand is won in the absence (破拉, 000 §一.5: "让非连拉的
  庄家胡牌，中断已有的连拉"): then the deal is back at the player's seat exactly when the
  absence ends, and the player deals on at 连N拉N.
* Payments: :mod:`mjkit.table.payments` (seed 001 D).  A player's score is their seat's:
  what a substitute wins or pays in it counts too (scores always sum to 0), and
  :attr:`Session.substitute_scores` shows that share.

Hand ``k`` of a session is dealt from wall ``k`` of the session's seed (``wall_level=0``),
whatever happened before it: the same session seed with other players deals the same
tiles to the same positions (duplicate play).
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field, replace

from .. import validate as V
from ..errors import HandError, short_repr
from ..rules import get_rules
from ..sim.policy import POLICIES
from .payments import RESULTS

__all__ = ["SessionState", "HandSummary", "Session", "next_state", "round_wind",
           "NEXT_DEALER", "PASSES_PER_ROUND", "AWAY_ROUNDS"]

#: Who deals after a hand the dealer did not win: the dealer's next seat (003, line 3)
#: or the winner (003, line 37).
NEXT_DEALER = ("next", "winner")

#: Passes of the deal in one round (圈): the deal once around a table of four.
PASSES_PER_ROUND = 4

#: Rounds a P胡 player sits out: (as a non-dealer, as the dealer) — 000 §四.2.
AWAY_ROUNDS = (1, 2)

#: The most hands or rounds a session may be asked for (bounds, not rules: a record holds
#: at most 64 MB, about 7,000 hands of some 9 kB; a full game is 4 rounds).
MAX_HANDS = 5_000
MAX_ROUNDS = 250

_WINDS = "ESWN"
_UNSET = object()
#: The options a session's record header holds (``"session"``): the session's, then the
#: tables'.
_TABLE_KEYS = ("exchange", "wild", "wait_rule")
_OPTION_KEYS = ("hands", "rounds", "next_dealer", "substitute", "sit_out", "level") + _TABLE_KEYS
#: Options a record written before they existed may lack (and their value then).
_OPTION_DEFAULTS = {"level": 0}


@dataclass(frozen=True)
class SessionState:
    """Where a session stands between two hands.

    Players are physical seats 0..3 (player 0 dealt the first hand); the player at
    position ``p`` of a hand (0 = the dealer, East) is ``(dealer + p) % 4``.

    Attributes
    ----------
    hand : int
        Hands finished; the next hand is hand ``hand`` (dealt from wall ``hand``).
    dealer : int
        The player who deals the next hand.
    level : int
        The dealer's 连拉 level for the next hand (0 where the rule set has no 连拉).
    passes : int
        Passes of the deal so far (a dealer keeping the deal is no pass).
    away : tuple of int
        Per player, passes of the deal still to sit out after a P胡 (0: seated).
    held : tuple of int
        Per player, the 连拉 level held while sitting out after a P胡 as the dealer
        (0: none); dropped when any hand is won in the absence (破拉).
    """

    hand: int = 0
    dealer: int = 0
    level: int = 0
    passes: int = 0
    away: tuple = (0, 0, 0, 0)
    held: tuple = (0, 0, 0, 0)

    @property
    def round(self):
        """The round (圈) of the next hand, 0-based: ``passes // 4``."""
        return self.passes // PASSES_PER_ROUND

    @property
    def round_wind(self):
        """The next hand's round wind: E, S, W, N for rounds 0..3, then again."""
        return round_wind(self.round)

    def player_at(self, position):
        """The player at ``position`` (0 = the dealer) of the next hand."""
        return (self.dealer + position) % 4

    def position_of(self, player):
        """The position of ``player`` in the next hand (0 = the dealer)."""
        return (player - self.dealer) % 4


def round_wind(rnd):
    """The wind of round ``rnd`` (0-based): ``"E"``, ``"S"``, ``"W"``, ``"N"``, then again."""
    return _WINDS[V.whole("round", rnd, 0) % 4]


def next_state(state, result, seat=None, *, next_dealer="next", streaks=True, sit_out=True):
    """The state after a hand: who deals next, at which level, who sits out.

    A pure function: the whole of a session's rotation rules (``docs/rules.md``,
    "Sessions").

    Parameters
    ----------
    state : SessionState
        The state the hand was dealt in.
    result : {"win", "false_win", "drawn_out"}
        How the hand ended.
    seat : int or None
        The position (0 = dealer) of the winner, or of the player who declared the P胡;
        None for a drawn hand.
    next_dealer : {"next", "winner"}
        After a non-dealer's win, the deal goes to the dealer's next seat (seed 003:
        "庄家如果胡牌， 则下一把可继续连庄，否则即由庄家的下家做庄") or to the winner (003: "以后
        则为胡牌的人为庄家,如果荒牌则算庄家的下一家坐庄").  A hand without a winner passes to the
        next seat either way (003: "荒牌后庄家的下家坐庄").
    streaks : bool
        Whether the rule set has 连拉: a dealer who wins deals again one level up
        (000 §一.2); without, the dealer deals again at level 0.
    sit_out : bool
        Whether a P胡 sends its player out (000 §四.2); without, a P胡 is just a hand
        without a winner.

    Returns
    -------
    SessionState
    """
    if not isinstance(state, SessionState):
        raise HandError(f"state must be a SessionState, got {short_repr(state)}")
    if not isinstance(result, str) or result not in RESULTS:
        raise HandError(f"result must be one of {', '.join(RESULTS)}, got {result!r}")
    if next_dealer not in NEXT_DEALER:
        raise HandError(f"next_dealer must be one of {', '.join(NEXT_DEALER)}, "
                        f"got {short_repr(next_dealer)}", code="unknown_name")
    if result == "drawn_out":
        if seat is not None:
            raise HandError(f"a drawn hand has no seat (seat={seat!r} given)")
        player = None
    else:
        if seat is None:
            raise HandError(f"a {result} needs the position of its player (seat=None given)")
        player = state.player_at(V.whole("seat", seat, 0, 3))
    away = list(state.away)
    held = list(state.held)
    # 破拉 (000 §一.5): a hand won while a player sits out drops that player's held streak.
    if result == "win":
        held = [0 if away[p] else held[p] for p in range(4)]
    if result == "win" and player == state.dealer:
        return replace(state, hand=state.hand + 1, away=tuple(away), held=tuple(held),
                       level=min(state.level + 1, V.MAX_LEVEL) if streaks else 0)
    if result == "win" and next_dealer == "winner":
        dealer = player
    else:
        dealer = (state.dealer + 1) % 4
    if result == "false_win" and sit_out:
        as_dealer = player == state.dealer
        away[player] = max(away[player], AWAY_ROUNDS[as_dealer] * PASSES_PER_ROUND)
        if as_dealer:
            held[player] = state.level
    level = 0
    for p in range(4):          # the pass that ends this hand counts toward every absence
        if away[p]:
            away[p] -= 1
            if not away[p]:
                # Back at the table.  With no win in the absence the deal only went to the
                # next seat, so it is back at this seat: the streak goes on (000 §四.2).
                if held[p] and p == dealer:
                    level = held[p]
                held[p] = 0
    return SessionState(hand=state.hand + 1, dealer=dealer, level=level,
                        passes=state.passes + 1, away=tuple(away), held=tuple(held))


@dataclass(frozen=True)
class HandSummary:
    """One finished hand of a session.

    Attributes
    ----------
    number : int
        The hand's number in the session (0-based; its wall).
    dealer : int
        The player who dealt.
    level : int
        The dealer's 连拉 level.
    round : int
        The round (0-based).
    round_wind : str
        ``"E"``, ``"S"``, ``"W"`` or ``"N"``.
    players : tuple of int
        The player at each position (0 = the dealer).
    away : tuple of int
        Players sitting out (their seat played by the substitute).
    outcome : Outcome
        The table's outcome (positions).
    payments : tuple of int
        The outcome's payments by player (whoever played the seat).
    scores : tuple of int
        The players' scores after this hand.
    events : tuple of dict
        The hand's events (``Table.events``).
    """

    number: int
    dealer: int
    level: int
    round: int
    round_wind: str
    players: tuple
    away: tuple
    outcome: object
    payments: tuple
    scores: tuple
    events: tuple = field(repr=False, default=())


def _player(spec, i):
    """``(spec, name)`` of ``players[i]``, checked as the table checks a seat."""
    from .engine import seat_player

    try:
        _, name, _ = seat_player(spec, i)
    except HandError as exc:
        raise HandError(str(exc).replace(f"seats[{i}]", f"players[{i}]", 1),
                        code=exc.code) from None
    return spec, name


def _limit(x, name, hi):
    return None if x is None else V.whole(name, x, 1, hi)


def _path(x):
    if isinstance(x, (str, os.PathLike)) and str(x):
        return x
    raise HandError(f"path must be a file name (str or os.PathLike), got {short_repr(x)}")


class Session:
    """Hands in order at one table: the deal rotating, 连拉 carried, points added up.

    Parameters
    ----------
    rules : str or RuleSet, default "dazhong32"
    seed : int, default 0
        Fixes every wall: hand ``k`` is hand ``k`` of (``seed``, wall level 0), whoever
        plays it (duplicate play).
    players : sequence of 4
        By physical seat; player 0 deals the first hand.  Each is ``"you"`` (or None: an
        outside seat, driven with :meth:`step`), a built-in policy name (``"efficiency"``,
        ``"value"``, ``"break"``, ``"strong"``, ``"strong_break"``) or a function
        ``f(observation, legal_actions) -> Action or str`` that the table calls.
    hands : int, optional
        End after this many hands (at most 5,000, which also ends any session).
    rounds : int, optional
        End after this many rounds (圈: four passes of the deal each; 4 rounds are a full
        game).  Default: 1 when ``hands`` is not given, else no round limit.  Given both,
        the session ends at whichever comes first.
    next_dealer : {"next", "winner"}, default "next"
        Who deals after a non-dealer's win: the dealer's next seat (seed 003: "否则即由庄家的
        下家做庄") or the winner (003: "以后则为胡牌的人为庄家").
    substitute : str, default "strong"
        The built-in policy that plays a seat while its player sits out after a P胡.
    sit_out : bool, optional
        Whether a P胡 sends its player out (000 §四.2).  Default: True where the rule set
        has 连拉 (seed 000's game, ``dazhong32``), else False.
    exchange : bool, optional
        起手换牌 at every hand (``Table``'s ``exchange``); default the rule set's table.
    wild : None, "turned" or a tile, optional
        The wild tile (``Table``'s ``wild``); default the rule set's table.
    wait_rule : {"leftmost", "unique"}, optional
        ``Table``'s ``wait_rule``; default the rule set's table.
    path : str or os.PathLike, optional
        A new file the record is written to hand by hand as hands end (each hand
        flushed to disk when it ends, so a crash loses no finished hand).
    level : int, default 0
        The first dealer's 连拉 level (连N拉N) at the first hand: a session can start on a
        streak, as a practice of a dealer at 连N does (rule sets with 连拉 only).

    Attributes
    ----------
    table : Table
        The current hand; it stays, finished, until :meth:`next_hand` deals the next.
    names : tuple of str
        The players' names by seat (a function's ``__name__``), as the record holds them.

    Examples
    --------
    A full game (four rounds) of built-in players, saved hand by hand::

        s = Session(seed=7, players=("strong", "strong_break", "strong_break", "value"),
                    rounds=4, path="game.jsonl")
        s.play()
        s.scores, s.hands[-1]

    After a crash, ``Session.resume("game.jsonl", players=...)`` goes on from the last
    hand on file.  Playing a seat from Python, step by step::

        s = Session(players=("you", "strong", "strong_break", "strong_break"), hands=4)
        while not s.done:
            t = s.table
            if t.done:
                s.next_hand()
                continue
            seat = t.to_act
            s.step(choose(t.observe(seat), t.legal_actions(seat)))
        s.scores
    """

    def __init__(self, rules="dazhong32", *, seed=0,
                 players=("you", "strong", "strong_break", "strong_break"),
                 hands=None, rounds=None, next_dealer="next", substitute="strong",
                 sit_out=None, exchange=None, wild=_UNSET, wait_rule=None, path=None,
                 level=0):
        if path is not None:
            path = _path(path)
        table_options = {"exchange": exchange, "wait_rule": wait_rule}
        if wild is not _UNSET:
            table_options["wild"] = wild
        self._setup(rules, seed, players, hands, rounds, next_dealer, substitute, sit_out,
                    table_options, level)
        self.created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        self.table = self._deal()       # checks wild and wait_rule before any file is made
        # the options as the table read them, so that a record says them whole
        self._table_options = {k: self.table.options[k]
                               for k in ("exchange", "wild", "wait_rule")}
        if path is not None:
            from .record import RecordWriter, make_record

            # the header checked before the file is made (a record names a registered
            # rule set): no empty file is left behind
            make_record([], players=self.names, rules=self.rules.name, seed=self.seed,
                        session=self.options(), created=self.created)
            self._writer = RecordWriter(path)
            try:
                self._writer.write_header(self.names, self.rules.name, self.seed,
                                          session=self.options(), created=self.created)
            except HandError:
                self._writer.close()
                raise
        self._sync()

    def _setup(self, rules, seed, players, hands, rounds, next_dealer, substitute, sit_out,
               table_options, level=0):
        """Check the arguments and set up a session before its first hand."""
        self.rules = get_rules(rules)
        self.seed = V.seed(seed)
        items = V.take(players, 4, "players")
        if len(items) != 4:
            raise HandError(f"players must name 4 players (one per seat), got {len(items)}",
                            code="tile_count")
        checked = [_player(p, i) for i, p in enumerate(items)]
        self.players = tuple(spec for spec, _ in checked)
        self.names = tuple(name for _, name in checked)
        self.hands_limit = _limit(hands, "hands", MAX_HANDS)
        rounds = _limit(rounds, "rounds", MAX_ROUNDS)
        self.rounds_limit = 1 if rounds is None and self.hands_limit is None else rounds
        if next_dealer not in NEXT_DEALER:
            raise HandError(f"next_dealer must be one of {', '.join(NEXT_DEALER)}, "
                            f"got {short_repr(next_dealer)}", code="unknown_name")
        self.next_dealer = next_dealer
        if not isinstance(substitute, str) or substitute not in POLICIES:
            raise HandError(f"substitute must be a built-in policy "
                            f"({', '.join(sorted(POLICIES))}), got {short_repr(substitute)}",
                            code="unknown_name")
        self.substitute = substitute
        self.streaks = self.rules.streak_points > 0
        self.sit_out = self.streaks if sit_out is None else V.boolean(sit_out, "sit_out")
        # exchange, wild and wait_rule are the Table's: it checks them at the first deal.
        self._table_options = dict(table_options)
        self.start_level = V.level(level, "level (lianla)")
        if self.start_level and not self.streaks:
            raise HandError(f"rule set {self.rules.name!r} has no 连拉: a session of it starts "
                            "at level 0")
        self._state = SessionState(level=self.start_level)
        self._hands = []
        self._scores = [0, 0, 0, 0]
        self._sub_scores = [0, 0, 0, 0]
        self._closed = False
        self._over = False
        self._writer = None

    @classmethod
    def resume(cls, path, players):
        """Continue the session whose record is at ``path`` (a session made with ``path``).

        The record is read with every check of :func:`~mjkit.table.record.read_record` (an
        unfinished hand at its end, left by a crash, is cut off), every hand is played
        again on the engine (``Table.replay``) and must be the hand the session's rules
        deal next — its number, dealer, level, round wind and who sat where — with the
        scores the record states.  Then play goes on, each new hand added to the file.

        Parameters
        ----------
        path : str or os.PathLike
        players : sequence of 4
            The players again, by seat (a function cannot be stored in a record); their
            names must be the record's.

        Raises
        ------
        HandError
            The record cannot be read, is not a session's, or a hand is not what the
            session would have dealt (naming its line); players whose names differ.
        """
        from .engine import Table
        from .record import RecordWriter

        writer = RecordWriter(_path(path), append=True)
        try:
            header = writer.header
            opts = header.get("session")
            if isinstance(opts, dict):
                opts = {**{k: v for k, v in _OPTION_DEFAULTS.items() if k not in opts},
                        **opts}
            if not isinstance(opts, dict) or set(opts) != set(_OPTION_KEYS):
                raise HandError(f"{str(path)!r} is not a session's record: its header's "
                                f"'session' must hold {', '.join(_OPTION_KEYS)}",
                                code="damaged")
            self = cls.__new__(cls)
            try:
                self._setup(header["rules"], header["seed"], players, opts["hands"],
                            opts["rounds"], opts["next_dealer"], opts["substitute"],
                            opts["sit_out"], {k: opts[k] for k in _TABLE_KEYS},
                            opts["level"])
            except HandError as exc:
                raise HandError(f"record line 1: the session's options: {exc}",
                                code="damaged") from None
            if self.names != tuple(header["players"]):
                raise HandError(f"players {list(self.names)} are not the record's "
                                f"{header['players']}")
            self.created = header["created"]
            self.table = None
            for log in writer.hands:
                if self._over:
                    raise HandError(f"record line {log.lines[0]}: a hand after the session's "
                                    "end", code="damaged")
                where = f"record line {log.lines[0]}"
                self._expect(log.events[0], where)
                self.table = Table.replay(log)
                self._closed = False
                self._sync()
                if log.scores != self._hands[-1].scores:
                    line = log.lines[-1] if log.scores_line is None else log.scores_line
                    raise HandError(f"record line {line}: the scores after hand "
                                    f"{self._hands[-1].number} "
                                    f"are {list(self._hands[-1].scores)}, not "
                                    f"{None if log.scores is None else list(log.scores)}",
                                    code="damaged")
            self._writer = writer
            if self._over:
                writer.close()
            else:
                self.table = self._deal()
                self._closed = False
                self._sync()
        except BaseException:
            writer.close()
            raise
        return self

    def _expect(self, head, where):
        """HandError unless a hand's ``"hand"`` event is the one this session deals next."""
        st = self._state
        want = {"rules": self.rules.name, "seed": self.seed, "hand": st.hand,
                "wall_level": 0, "level": st.level, "round_wind": st.round_wind,
                "players": [self._name(p, st) for p in (st.player_at(q) for q in range(4))]}
        for key, value in want.items():
            if head.get(key) != value:
                raise HandError(f"{where}: the hand's {key} is {short_repr(head.get(key))}; "
                                f"the session deals hand {st.hand} with {key} "
                                f"{short_repr(value)}", code="damaged")
        for key, value in self._table_options.items():
            if head["options"].get(key) != value:
                raise HandError(f"{where}: the hand's option {key} is "
                                f"{short_repr(head['options'].get(key))}, the session's "
                                f"{short_repr(value)}", code="damaged")

    def _name(self, player, state):
        return self.substitute if state.away[player] else self.names[player]

    # -- the hands ---------------------------------------------------------

    def _seats(self, state):
        seats = []
        for position in range(4):
            player = state.player_at(position)
            seats.append(self.substitute if state.away[player] else self.players[player])
        return tuple(seats)

    def _deal(self):
        from .engine import Table   # the engine (numba) loads with the first table

        st = self._state
        return Table(self.rules, seed=self.seed, hand=st.hand, wall_level=0,
                     level=st.level, seats=self._seats(st), round_wind=st.round_wind,
                     **self._table_options)

    def _sync(self):
        """Close the current hand if it has ended and is not closed yet: its summary, the
        scores, the next state, and (with ``path``) its lines on disk — written first, so
        a hand that cannot be saved is not closed (the error says why; asking again
        retries)."""
        if self._closed or not self.table.done:
            return
        t, st = self.table, self._state
        out = t.outcome
        by_player = [0, 0, 0, 0]
        for position, pts in enumerate(out.payments):
            by_player[st.player_at(position)] = int(pts)
        scores = tuple(a + b for a, b in zip(self._scores, by_player))
        sub = tuple(a + (b if st.away[p] else 0)
                    for p, (a, b) in enumerate(zip(self._sub_scores, by_player)))
        seat = None if out.result == "drawn_out" else out.winner
        state = next_state(st, out.result, seat, next_dealer=self.next_dealer,
                           streaks=self.streaks, sit_out=self.sit_out)
        summary = HandSummary(
            number=st.hand, dealer=st.dealer, level=st.level, round=st.round,
            round_wind=st.round_wind, players=tuple(st.player_at(p) for p in range(4)),
            away=tuple(p for p in range(4) if st.away[p]), outcome=out,
            payments=tuple(by_player), scores=scores, events=tuple(t.events))
        if self._writer is not None:
            self._writer.write_hand(t.events, scores=scores)
        self._hands.append(summary)
        self._scores, self._sub_scores, self._state = list(scores), list(sub), state
        self._closed = True
        self._over = (state.hand >= (self.hands_limit or MAX_HANDS)
                      or (self.rounds_limit is not None and state.round >= self.rounds_limit))
        if self._over and self._writer is not None:
            self._writer.close()

    def next_hand(self):
        """Deal the next hand (after the current one has ended) and return its table.

        A hand whose seats are all built-in players or functions is played at once;
        its table is then already done.

        Raises
        ------
        HandError
            The current hand is not over, or the session is.
        """
        self._sync()
        if self._over:
            raise HandError(f"the session is over ({len(self._hands)} hands played)")
        if not self.table.done:
            raise HandError(self._waiting(f"hand {self._state.hand} is not over"))
        self.table = self._deal()
        self._closed = False
        self._sync()
        return self.table

    def step(self, action, seat=None):
        """Play ``action`` at the current table (``Table.step``); close the hand if it ends.

        Returns
        -------
        Outcome or None
            The hand's outcome if this action ended it (its points are then in
            :attr:`scores` and the hand in :attr:`hands`; :meth:`next_hand` deals the
            next), else None.

        Raises
        ------
        HandError
            The session is over, the hand is over (call :meth:`next_hand`), or the table
            refuses the action (nothing changes).
        """
        self._sync()
        if self._over:
            raise HandError(f"the session is over ({len(self._hands)} hands played)")
        if self.table.done:
            raise HandError(f"hand {self._state.hand - 1} is over: call next_hand() to deal "
                            "the next")
        self.table.step(action, seat=seat)
        self._sync()
        return self.table.outcome if self._closed else None

    def play(self, until=None, *, progress=None):
        """Play hands to the end of the session (or until ``until`` hands are finished).

        Every seat that must decide has to be a built-in player or a function: an
        outside seat (``"you"``) asked to act stops play with a HandError (drive it with
        :meth:`step`).  A progress bar counts the hands (``progress=False``: none).

        Returns
        -------
        list of HandSummary
            The hands finished by this call.
        """
        if until is not None:
            until = V.whole("until", until, 0)
        before = len(self.hands)
        from tqdm.auto import tqdm
        total = until if until is not None else self.hands_limit   # None: rounds decide
        with tqdm(total=total, initial=before, unit="hand", desc="session",
                  disable=progress is False, leave=False) as bar:
            while not self.done and (until is None or len(self._hands) < until):
                if not self.table.done:
                    raise HandError(self._waiting(f"hand {self._state.hand} waits for a "
                                                  "player outside the table") +
                                    "; drive it with Session.step")
                self.next_hand()
                bar.update(len(self._hands) - bar.n)
        return self._hands[before:]

    def _waiting(self, what):
        t = self.table
        position = t.to_act
        player = self._state.player_at(position)
        return (f"{what}: position {position} (player {player}, {self.names[player]}) "
                f"must act ({t.asking})")

    # -- what a session shows ------------------------------------------------

    @property
    def state(self):
        """The :class:`SessionState` the current hand was dealt in, or once it has ended,
        the state the next hand will be dealt in."""
        self._sync()
        return self._state

    @property
    def done(self):
        """Whether every hand of the session has been played."""
        self._sync()
        return self._over

    @property
    def hands(self):
        """The finished hands, as :class:`HandSummary` (a copy of the list)."""
        self._sync()
        return list(self._hands)

    @property
    def scores(self):
        """Points per player (physical seat 0..3): every payment of the seat, the hands a
        substitute played it included (the four sum to 0)."""
        self._sync()
        return tuple(self._scores)

    @property
    def substitute_scores(self):
        """Per player, the part of :attr:`scores` a substitute won or paid in the seat
        while the player sat out (``scores[p] - substitute_scores[p]`` is the player's
        own)."""
        self._sync()
        return tuple(self._sub_scores)

    # -- records -------------------------------------------------------------

    def options(self):
        """The session's options as its record's header states them (``"session"``): its
        own and the tables' (``exchange``, ``wild``, ``wait_rule`` as the table read them)."""
        return {"hands": self.hands_limit, "rounds": self.rounds_limit,
                "next_dealer": self.next_dealer, "substitute": self.substitute,
                "sit_out": self.sit_out, "level": self.start_level, **self._table_options}

    def record(self):
        """The finished hands as a checked :class:`~mjkit.table.record.Record`: the header
        (players by seat, the session's options), each hand's events and the scores
        after it (``.to_jsonl()`` is the file's text, ``.save(path)`` writes it)."""
        from .record import make_record

        hands = self.hands
        return make_record([h.events for h in hands], players=self.names,
                           rules=self.rules.name, seed=self.seed, session=self.options(),
                           created=self.created, scores=[h.scores for h in hands])

    def save(self, path):
        """Write the record of the finished hands to a new file ``path`` (never over an
        existing one); returns its path.  To have every hand on disk as it ends, give
        ``path`` to the session instead."""
        return self.record().save(path)

    def close(self):
        """Close the record file given as ``path`` (every finished hand is on it).  A
        session closed before its end cannot finish another hand (HandError: the record
        is closed); :meth:`resume` goes on from the file."""
        if self._writer is not None:
            self._writer.close()

    def __repr__(self):
        st = self._state
        where = "over" if self._over else (
            f"hand {st.hand}, {st.round_wind} round, dealer player {st.dealer}"
            + (f" at 连{st.level}拉{st.level}" if st.level else ""))
        return (f"Session({self.rules.name!r}, seed={self.seed}, players={self.names}, "
                f"{len(self._hands)} hands played, {where}, scores={tuple(self._scores)})")
