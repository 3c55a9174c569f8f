"""A table anyone can sit at: the simulator's game kernel played step by step.

:class:`Table` deals one hand and plays it with the numba kernel of the simulator
(:func:`mjkit._kernels.game.advance`): built-in players decide inside the kernel, and the
kernel stops when a seat played from outside — a person, or a Python function — must
decide.  ``observe(seat)`` is what that player may see, ``legal_actions(seat)`` what it may
do, and ``step(action)`` plays it and everything after it up to the next outside decision.
Every hand keeps its events (the record of :mod:`mjkit.table.record`); ``Table.replay``
plays a record again and checks that each event comes out the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import game as G
from .._kernels import game_state as S
from .._kernels.bundles import ShantenTables
from .._kernels.policy import (
    POLICY_BREAK, POLICY_OUTSIDE, POLICY_STRONG, POLICY_STRONG_BREAK, POLICY_VALUE, V_LEN,
)
from .. import first_run
from ..errors import HandError, short_repr
from ..tiles import tile_to_str, tiles_to_str
from ..validate import seed as _seed
from ..validate import whole
from .actions import as_action, exchange_choices, from_kernel, to_kernel
from .state import Fold

__all__ = ["Table", "Outcome", "OUTSIDE", "ASKING"]

#: How a seat played from outside is named in ``seats=`` (or None).
OUTSIDE = "you"

#: What a seat is asked, by the kernel's ``Q_*`` code.
ASKING = {S.Q_EXCHANGE: "exchange", S.Q_TURN: "turn", S.Q_DISCARD: "discard",
          S.Q_CLAIM: "claim", S.Q_ROB: "rob"}

_RESULTS = ("win", "false_win", "drawn_out")


@dataclass(frozen=True)
class Outcome:
    """How a hand ended.

    Attributes
    ----------
    result : str
        ``"win"``, ``"false_win"`` (a declared hand below the bar: P胡) or ``"drawn_out"``
        (荒牌).
    winner : int or None
        The position that declared (0 is the dealer).
    from_seat : int or None
        The position that discarded the winning tile or whose kong was robbed; None for a
        self-drawn win.
    self_drawn, robbed : bool
    tile : int or None
        The winning tile's kind.
    counted : int
        Counted fans (the 连拉 line included for the dealer).
    total : int
        Every fan of the hand, flowers included.
    bar : int
        Counted fans a win needs (the rule set's minimum).
    short : int
        A false win's shortfall, ``bar - counted``; else 0.
    fans : dict
        Fan key → count of the declared hand.
    flowers : int
        The winner's flowers.
    level : int
        The dealer's 连拉 level.
    payments : tuple of int
        What each position gains (positive) or pays (negative); they sum to 0
        (:func:`mjkit.table.payments.payments`).
    wall_left : int
        Tiles still to be taken when the hand ended.
    hand : str or None
        The declared hand in mjkit's notation, its situation after ``|`` (the text
        :func:`mjkit.score` reads: ``score(outcome.hand, rules, wild=..., lianla=...,
        wait_rule=...)`` gives the same verdict); None when drawn out.
    """

    result: str
    winner: int | None
    from_seat: int | None
    self_drawn: bool
    robbed: bool
    tile: int | None
    counted: int
    total: int
    bar: int
    short: int
    fans: dict
    flowers: int
    level: int
    payments: tuple
    wall_left: int
    hand: str | None = None


# ---------------------------------------------------------------- kernels (Python's side)

def kernel_bundles(rs, par, codes):
    """The kernel's bundles for a table of rule set ``rs`` whose built-in players play the
    policies ``codes``: the value-aware directions only when one plays ``value`` or
    ``break``, the strong players' tables only when one plays ``strong`` or
    ``strong_break`` (None otherwise, as :func:`mjkit.sim.play_hands` passes them: the
    kernel is then the one the simulator compiled for the same players)."""
    from ..shanten import shanten_tables
    from ..sim.directions import direction_arrays
    tabs = ShantenTables(*shanten_tables())
    rules = rs.kernel_rules()
    dirs = direction_arrays(rs) if POLICY_VALUE in codes or POLICY_BREAK in codes else None
    fast = None
    if POLICY_STRONG in codes or POLICY_STRONG_BREAK in codes:
        from ..winprob import fast_scratch, fast_tables
        fast = S.strong_play(fast_tables(rs, max(par.minimum - par.dealer_bonus, 0)),
                             fast_tables(rs, par.minimum), fast_scratch(), rules)
    return tabs, rules, dirs, fast


def work_scratch(n_fans):
    from .._kernels.policy import policy_scratch
    return S.Work(policy_scratch(), G.score_scratch(n_fans), np.zeros(V_LEN, np.int64),
                  np.zeros(3, np.int64))


# ---------------------------------------------------------------- seats

def seat_player(x, i):
    """(kernel policy code, name, callable or None) of ``seats[i]``."""
    from ..sim.policy import POLICIES
    if x is None or (isinstance(x, str) and x.strip().lower() == OUTSIDE):
        return POLICY_OUTSIDE, OUTSIDE, None
    if isinstance(x, str):
        if x not in POLICIES:
            raise HandError(f"seats[{i}]: unknown player {x!r}; a built-in policy "
                            f"({', '.join(POLICIES)}), {OUTSIDE!r} (played step by step) "
                            "or a Python function f(observation, legal_actions) -> action")
        return POLICIES[x], x, None
    if callable(x) and not hasattr(x, "hook"):
        # "py:" keeps a function's name apart from the built-in players' (a replay plays a
        # seat named "strong" with the built-in player)
        return POLICY_OUTSIDE, "py:" + str(getattr(x, "__name__", "function"))[:60], x
    raise HandError(f"seats[{i}] must be a policy name, {OUTSIDE!r}, None or a Python "
                    f"function, got {short_repr(x)} (a numba user policy plays in "
                    "mjkit.sim.play_hands; at a table give the Python function itself)")


# ---------------------------------------------------------------- events

def _event(row, out, fan_keys, fans, bar):
    """The record's event (a dict) of a kernel event row ``[EV_*, seat, a, b]``."""
    e, seat, a, b = (int(x) for x in row)
    if e == S.EV_WILD:
        return {"e": "wild", "tile": tile_to_str(a)}
    if e == S.EV_DRAW:
        return {"e": "draw", "seat": seat, "tile": tile_to_str(a), "back": bool(b)}
    if e == S.EV_FLOWER:
        return {"e": "flower", "seat": seat, "tile": tile_to_str(a)}
    if e == S.EV_DEALT:
        return {"e": "dealt"}
    if e == S.EV_EXCHANGE:
        return {"e": "exchange", "seat": seat, "gave": tile_to_str(a), "got": tile_to_str(b)}
    if e == S.EV_DISCARD:
        return {"e": "discard", "seat": seat, "tile": tile_to_str(a)}
    if e == S.EV_CHOW:
        return {"e": "chow", "seat": seat, "tiles": tiles_to_str([a, a + 1, a + 2]),
                "tile": None, "from": b}          # the claimed tile: filled by the caller
    if e == S.EV_PUNG:
        return {"e": "pung", "seat": seat, "tile": tile_to_str(a), "from": b}
    if e == S.EV_KONG:
        return {"e": "kong", "seat": seat, "tile": tile_to_str(a), "from": b}
    if e == S.EV_CKONG:
        return {"e": "kong", "seat": seat, "tile": tile_to_str(a), "concealed": True}
    if e == S.EV_AKONG:
        return {"e": "kong", "seat": seat, "tile": tile_to_str(a), "added": True}
    if e in (S.EV_WIN, S.EV_FALSE_WIN):
        ev = {"e": "win" if e == S.EV_WIN else "false_win", "seat": seat,
              "tile": tile_to_str(a), "from": None if b < 0 else b}
        if e == S.EV_WIN:
            ev["robbed"] = bool(out["robbed"])
        ev["counted"] = int(out["counted"])
        ev["total"] = int(out["total"])
        if e == S.EV_FALSE_WIN:
            ev["bar"] = bar
            ev["short"] = bar - int(out["counted"])
        ev["fans"] = {fan_keys[i]: int(fans[i]) for i in np.flatnonzero(fans)}
        return ev
    if e == S.EV_DRAWN_OUT:
        return {"e": "drawn_out"}
    raise HandError(f"the game kernel wrote an unknown event {e}")   # pragma: no cover


# ---------------------------------------------------------------- the table

class Table:
    """One hand at a table: built-in players, people and Python functions, step by step.

    Parameters
    ----------
    rules : str or RuleSet
        ``"dazhong32"`` (default), ``"dazhong"`` or ``"gb"``.
    seed, hand : int
        The wall is hand ``hand`` of (``seed``, ``wall_level``): the same hand
        :func:`mjkit.sim.play_hands` plays as hand ``hand`` of (``seed``, ``level``) with
        the same players.
    level : int
        The dealer's 连拉 level (连N拉N: the dealer's win counts 4N more, ``dazhong32``).
    seats : sequence of four
        Per position (0 is the dealer, East; then South, West, North): a built-in policy
        name (``"efficiency"``, ``"value"``, ``"break"``, ``"strong"``,
        ``"strong_break"``), ``"you"`` or None (the seat is played from outside with
        :meth:`step`), or a Python function ``f(observation, legal_actions)`` returning an
        :class:`~mjkit.table.actions.Action` or its text (the table asks it itself).
    round_wind : str or int
    wild : None, "turned" or a tile, optional
        Wild tiles (财神); default the rule set's table (``"turned"`` for ``dazhong32``).
    exchange : bool, optional
        起手换牌 (seed 001 A.c); default the rule set's table (on for the 大众 rule sets).
    wait_rule : {"unique", "leftmost"}, optional
        How a declared win's waits are read (``score``'s ``wait_rule``); default the rule
        set's table: ``"leftmost"`` for ``dazhong32``, the old client's reading (seed 000
        §六.2), which decides whether a declared hand is a P胡.
    wall_level : int, optional
        The level the wall is drawn for (default ``level``); a session passes 0 so that its
        walls depend only on (seed, hand number) whoever wins.
    exhaust, discard_wins, claims, slack, commit, break_from
        As :func:`mjkit.sim.play_hands`.

    Examples
    --------
    >>> t = Table("dazhong32", seed=7, seats=("you", "strong", "strong", "strong"))
    >>> t.legal_actions(0)[:2]                                        # doctest: +SKIP
    >>> t.step("discard 9p")                                          # doctest: +SKIP
    """

    def __init__(self, rules="dazhong32", *, seed=0, hand=0, level=0,
                 seats=(OUTSIDE, "strong", "strong", "strong"), round_wind="E", wild=...,
                 exchange=None, wait_rule=None, wall_level=None, exhaust=120,
                 discard_wins=None, claims=True, slack=4, commit=5, break_from=1):
        from ..rules import get_rules
        from ..sim.params import MAX_FIRST, params
        rs = get_rules(rules)
        seed = _seed(seed)
        hand = whole("hand", hand, 0, MAX_FIRST)
        if isinstance(seats, (str, bytes)) or not hasattr(seats, "__len__") or len(seats) != 4:
            raise HandError(f"seats must be four players (positions 0..3, 0 the dealer), "
                            f"got {short_repr(seats)}")
        parts = [seat_player(x, i) for i, x in enumerate(seats)]
        wild = rs.table_wild if wild is ... else wild
        exchange = rs.table_exchange if exchange is None else exchange
        wait_rule = rs.table_wait_rule if wait_rule is None else wait_rule
        rs, par = params(rs, level, exhaust=exhaust, round_wind=round_wind,
                         discard_wins=discard_wins, wild=wild, slack=slack, commit=commit,
                         break_from=break_from, claims=claims, exchange=exchange,
                         wait_rule=wait_rule)
        wall_level = par.level if wall_level is None else whole("wall_level", wall_level, 0,
                                                                 10**6)
        self.rules = rs
        self.seed, self.hand, self.level, self.wall_level = seed, int(hand), par.level, int(
            wall_level)
        self.players = tuple(name for _, name, _ in parts)
        self._fns = tuple(fn for _, _, fn in parts)
        wild_text = (None if par.wild_mode == G.WILD_NONE else "turned"
                     if par.wild_mode == G.WILD_TURNED else tile_to_str(par.wild_kind))
        self.options = {"exchange": bool(par.exchange), "wild": wild_text,
                        "wait_rule": wait_rule, "exhaust": par.exhaust,
                        "discard_wins": bool(par.discard_wins), "claims": bool(par.claims)}
        self.round_wind = par.round_wind
        self._par = par
        from ..rules.catalogue import catalogue_lists
        self._fan_keys = list(catalogue_lists().key[:rs.n_fans])
        self._tabs, self._rules, self._dirs, self._fast = kernel_bundles(
            rs, par, [code for code, _, _ in parts])
        self._t = G.new_table(S.EV_MAX)
        self._t.seat_policy[:] = [code for code, _, _ in parts]
        self._wk = work_scratch(rs.n_fans)
        self._out = np.zeros(1, S.OUTCOME_DTYPE)
        self._fans = np.zeros((1, rs.n_fans), np.int16)   # as play_hands: one kernel
        self.events = [self._header()]
        self._fold = Fold()
        self._fold.apply(self.events[0])
        self._seen_ev = 0
        self._last_discard = None
        self.outcome = None
        with first_run.family("table"):
            G.start_hand(seed, self.wall_level, self.hand, par, self._t, self._out[0],
                         self._fans[0])
        self._run()

    # ------------------------------------------------------------ what a seat sees

    def _header(self):
        return {"e": "hand", "rules": self.rules.name, "seed": self.seed, "hand": self.hand,
                "wall_level": self.wall_level, "level": self.level,
                "round_wind": "ESWN"[self.round_wind], "players": list(self.players),
                "options": dict(self.options)}

    @property
    def done(self):
        """Whether the hand is over (:attr:`outcome` says how)."""
        return self.outcome is not None

    @property
    def to_act(self):
        """The position whose decision is awaited, or None when the hand is over."""
        if self.done:
            return None
        return int(self._t.hand[0]["ask_seat"])

    @property
    def asking(self):
        """What the seat :attr:`to_act` is asked: ``"exchange"`` (起手换牌), ``"turn"``
        (its own turn: win, kong or discard), ``"discard"`` (after a claim), ``"claim"``
        (another's discard: win, kong, pung, chow or pass) or ``"rob"`` (a tile added to a
        pung: win or pass); None when the hand is over."""
        if self.done:
            return None
        return ASKING[int(self._t.hand[0]["ask"])]

    def observe(self, seat):
        """What the player at position ``seat`` may see now (an
        :class:`~mjkit.table.observation.Observation`)."""
        from .observation import observation
        seat = self._seat_arg(seat)
        return observation(self, seat)

    def legal_actions(self, seat=None):
        """The actions open to position ``seat`` (default: the one asked); ``[]`` when it
        is not asked."""
        if seat is None:
            seat = self.to_act
            if seat is None:
                return []
        seat = self._seat_arg(seat)
        if self.done or seat != self.to_act:
            return []
        h = self._t.hand[0]
        if int(h["ask"]) == S.Q_EXCHANGE:
            return exchange_choices(self._t.conc[seat], int(h["wild"]))
        return [from_kernel(row) for row in self._t.legal[:int(h["n_legal"])]]

    def _seat_arg(self, seat):
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < 4:
            raise HandError(f"seat must be a position 0..3 (0 the dealer), got "
                            f"{short_repr(seat)}")
        return int(seat)

    # ------------------------------------------------------------ playing

    def step(self, action, seat=None):
        """Play ``action`` (an :class:`~mjkit.table.actions.Action` or its text, e.g.
        ``"discard 5m"``, ``"pung"``, ``"win"``) for the seat asked, then every built-in
        player and Python function up to the next decision of a seat played from outside.

        Raises
        ------
        HandError
            After the end of the hand, out of turn (``seat`` given and not the one asked),
            or an action that is not legal now; the table is then unchanged.
        """
        if self.done:
            raise HandError("the hand is over: no action is taken after its end "
                            f"({self.outcome.result})")
        asked = self.to_act
        if seat is not None and self._seat_arg(seat) != asked:
            raise HandError(f"it is not seat {seat}'s decision: seat {asked} is asked "
                            f"({self.asking})")
        act = self._checked(asked, action)
        self._answer(asked, act)
        self._run()

    def _checked(self, seat, action):
        """``action`` as one of the seat's legal actions (HandError naming why not)."""
        legal = self.legal_actions(seat)
        return as_action(action).normalise(legal, what=f"seat {seat} ({self.asking})")

    def _answer(self, seat, act):
        legal = self.legal_actions(seat)
        if act.kind != "win" and any(a.kind == "win" for a in legal):
            h = self._t.hand[0]
            tile = int(h["w"]) if self.asking == "turn" else int(h["d"])
            self._note({"e": "pass", "seat": seat, "tile": tile_to_str(tile), "win": True})
        self._t.act[seat, :] = to_kernel(act)

    def _note(self, ev):
        self.events.append(ev)
        self._fold.apply(ev)

    def _run(self):
        """Play on until a seat played from outside by a person must decide, or the end;
        Python functions at the table are asked on the way."""
        while True:
            with first_run.family("table"):
                G.advance(self._par, self._tabs, self._rules, self._dirs, None, self._fast,
                          self._t.legal, self._t, self._wk, self._out[0], self._fans[0])
            self._pull_events()
            h = self._t.hand[0]
            if int(h["phase"]) == S.PH_END:
                self._finish()
                return
            seat = int(h["ask_seat"])
            fn = self._fns[seat]
            if fn is None:
                return
            obs = self.observe(seat)
            legal = self.legal_actions(seat)
            try:
                answer = fn(obs, legal)
            except HandError:
                raise
            except Exception as e:
                raise HandError(f"the player at seat {seat} ({self.players[seat]}) raised "
                                f"{type(e).__name__}: {e}") from e
            act = self._checked(seat, answer)
            self._answer(seat, act)

    def _pull_events(self):
        h = self._t.hand[0]
        n = int(h["n_ev"])
        if n > self._t.ev.shape[0]:
            raise HandError(f"the hand's events overflowed the record ({n} > "
                            f"{self._t.ev.shape[0]})")              # pragma: no cover
        out = self._out[0]
        fans = self._fans[0]
        for i in range(self._seen_ev, n):
            ev = _event(self._t.ev[i], out, self._fan_keys, fans, self._par.minimum)
            if ev["e"] == "chow":
                ev["tile"] = self._last_discard
            elif ev["e"] == "discard":
                self._last_discard = ev["tile"]
            self._note(ev)
        self._seen_ev = n

    def _finish(self):
        from .payments import hand_amount, payments
        o = self._out[0]
        h = self._t.hand[0]
        if int(o["error"]):
            raise HandError("a player's answer was refused by the game kernel")  # pragma: no cover
        winner = int(o["winner"])
        if winner < 0:
            result = "drawn_out"
        else:
            result = "false_win" if int(o["false_win"]) else "win"
        frm = int(o["from_seat"])
        fans = self._fans[0]
        fan_dict = {self._fan_keys[i]: int(fans[i]) for i in np.flatnonzero(fans)}
        if winner >= 0:
            amount = hand_amount(counted=int(o["counted"]), total=int(o["total"]),
                                 flowers=int(o["flowers"]))
        else:
            amount = 0
        pay = payments(result, None if winner < 0 else winner,
                       None if frm < 0 else frm, amount)
        counted = int(o["counted"]) if winner >= 0 else 0
        self.outcome = Outcome(
            result=result, winner=None if winner < 0 else winner,
            from_seat=None if frm < 0 else frm, self_drawn=bool(o["self_drawn"]),
            robbed=bool(o["robbed"]), tile=None if winner < 0 else int(o["win_tile"]),
            counted=counted, total=int(o["total"]) if winner >= 0 else 0,
            bar=self._par.minimum,
            short=self._par.minimum - counted if result == "false_win" else 0,
            fans=fan_dict, flowers=int(o["flowers"]) if winner >= 0 else 0,
            level=self.level, payments=tuple(int(x) for x in pay),
            wall_left=int(h["limit"] - h["taken"]),
            hand=None if winner < 0 else self._hand_text(winner, int(o["win_tile"]),
                                                         int(o["flags"])))
        self._note({"e": "end", "result": result, "payments": list(self.outcome.payments)})

    def _hand_text(self, p, tile, flags):
        """The notation of position ``p``'s declared hand (its tiles now, ``tile`` won)."""
        from .state import declared_text
        snap = self._fold.snapshot
        return declared_text(snap.melds[p], self._t.conc[p], tile, flags, p, self.round_wind,
                             snap.flowers[p])

    # ------------------------------------------------------------ records

    def record(self):
        """The hand's record (a checked :class:`mjkit.table.record.Record` of one hand;
        ``.save(path)`` writes it as JSON lines, ``docs/records.md``)."""
        from .record import make_record
        return make_record([self.events])

    def save(self, path):
        """Write the hand's record to a new file ``path`` (never over an existing one)."""
        return self.record().save(path)

    def snapshot(self):
        """The public state of the hand now (:class:`mjkit.table.state.Snapshot`)."""
        return self._fold.snapshot

    @classmethod
    def replay(cls, events, *, states=False, on_decision=None):
        """Play a hand's recorded events again and check every one.

        ``events`` is a hand's list of events (``Table.events``, or a ``HandLog`` of
        :func:`mjkit.table.record.read_record`).  Every seat is played from the record:
        the table is set up from the "hand" event, each decision is taken from the events
        that follow, and every event the engine writes must equal the recorded one.

        Returns the replayed :class:`Table` (``states=True``: with ``.states``, the
        snapshot after every event).

        ``on_decision(table, action, index)``, if given, is called at every decision read
        from the record, before it is played: ``table`` stands where the seat
        ``table.to_act`` decides (``observe``, ``legal_actions``), ``action`` is what the
        record says it did and ``index`` the record's event where it shows (the review
        rates each decision this way).

        Raises
        ------
        HandError
            Naming the event (and its line, for a ``HandLog``) that differs, or an action
            the record implies that is not legal.
        """
        from .replay import replay
        return replay(cls, events, states=states, on_decision=on_decision)

    def __repr__(self):
        state = f"done: {self.outcome.result}" if self.done else \
            f"seat {self.to_act} to {self.asking}"
        return (f"Table({self.rules.name!r}, seed={self.seed}, hand={self.hand}, "
                f"level={self.level}, players={self.players}, {state})")

