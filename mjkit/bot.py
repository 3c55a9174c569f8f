"""mjkit's players as bots anyone can call: a built-in policy's decision from an observation.

:func:`decide` gives the action a built-in player (``"efficiency"``, ``"value"``,
``"break"``, ``"strong"``, ``"strong_break"``) takes in the situation an
:class:`~mjkit.table.observation.Observation` describes — the same decision the
simulator's player makes at that point, by the same kernel code
(:func:`mjkit._kernels.game.decide` calls the game's own discard, claim, kong, win and
exchange choices).  ``"value"`` and ``"break"`` remember the direction they aim at from one
discard to the next: a :class:`Bot` keeps that memory over a hand (``decide`` alone starts
from none, as at the deal).

>>> from mjkit.table import Table
>>> from mjkit.bot import Bot
>>> t = Table("gb", seed=1, seats=("you", "strong", "strong", "strong"))
>>> bot = Bot("strong")
>>> t.step(bot.decide(t.observe(0)))                                       # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from ._kernels import game as G
from ._kernels import game_state as S
from ._kernels import layout as L
from . import first_run
from .errors import HandError, short_repr
from .table.actions import Action, from_kernel
from .table.observation import Observation, check_observation, seen_counts

__all__ = ["decide", "Bot", "POLICIES", "self_flags"]

_ASK = {"exchange": S.Q_EXCHANGE, "turn": S.Q_TURN, "discard": S.Q_DISCARD,
        "claim": S.Q_CLAIM, "rob": S.Q_ROB}

#: What a value-aware player remembers between decisions (``SEAT_DTYPE`` fields).
_MEMORY = ("aim", "aim_need", "committed", "aim2", "since_look")


def _policies():
    from .sim.policy import POLICIES
    return POLICIES


#: The built-in policies a bot plays (``mjkit.sim.POLICIES``).
POLICIES = ("efficiency", "value", "break", "strong", "strong_break")


class _Kit:
    """A rule set's and a level's kernel bundles and a bot's scratch (one per Bot)."""

    def __init__(self, rs, par, code):
        from .table.engine import kernel_bundles, work_scratch
        self.tabs, self.rules, self.dirs, self.fast = kernel_bundles(rs, par, [code])
        self.wk = work_scratch(rs.n_fans)
        self.t = G.new_table(0)
        self.answer = np.zeros(4, np.int64)


def _params(obs, options, slack, commit, break_from):
    from .rules import get_rules
    from .sim.params import params
    rs = get_rules(obs.rules)
    opts = dict(options or {})
    rs, par = params(rs, obs.level, round_wind=obs.round_wind,
                     exchange=bool(opts.get("exchange", rs.table_exchange)),
                     wait_rule=opts.get("wait_rule", rs.table_wait_rule),
                     discard_wins=opts.get("discard_wins"), claims=opts.get("claims", True),
                     exhaust=opts.get("exhaust", 120), slack=slack, commit=commit,
                     break_from=break_from)
    return rs, par


class Bot:
    """A built-in player that decides from observations, keeping its memory over a hand.

    Parameters
    ----------
    policy : str
        ``"efficiency"``, ``"value"``, ``"break"``, ``"strong"`` or ``"strong_break"``.
    slack, commit, break_from : int
        The value-aware and 破拉 players' settings, as :func:`mjkit.sim.play_hands` and
        :class:`~mjkit.table.Table` take them (the same defaults).

    ``decide(observation)`` returns an :class:`~mjkit.table.actions.Action`; call it at
    every decision of the seat in a hand, in order (a value-aware player's direction is
    remembered from one discard to the next), and :meth:`reset` (or a new Bot) for a new
    hand.  A Bot can sit at a :class:`~mjkit.table.Table` as a Python player:
    ``seats=(Bot("strong"), ...)``.
    """

    def __init__(self, policy="strong", *, slack=4, commit=5, break_from=1):
        codes = _policies()
        if not isinstance(policy, str) or policy not in codes:
            raise HandError(f"policy must be one of {', '.join(codes)}, got "
                            f"{short_repr(policy)}")
        self.policy = policy
        from .validate import MAX_LEVEL, whole
        self._settings = (whole("slack", slack, -200, 200), whole("commit", commit, 0, 14),
                          whole("break_from", break_from, 0, MAX_LEVEL))
        self._code = codes[policy]
        self._kits = {}
        self.reset()
        self.__name__ = f"bot:{policy}"

    def reset(self):
        """Forget the hand (a new hand starts with no direction chosen)."""
        self.memory = {"aim": -1, "aim_need": -1, "committed": 0, "aim2": -1,
                       "since_look": 0}

    def __call__(self, observation, legal_actions=None):
        return self.decide(observation)

    def decide(self, observation):
        """The action this player takes (an :class:`~mjkit.table.actions.Action`)."""
        obs = check_observation(observation)
        if obs.asking is None or obs.to_act != obs.seat:
            raise HandError(f"observation of seat {obs.seat}: it is not asked anything now "
                            f"(asked: {obs.to_act}, {obs.asking})")
        key = (obs.rules, obs.level, obs.round_wind, tuple(sorted(obs.options.items())))
        kit = self._kits.get(key)
        if kit is None:
            rs, par = _params(obs, obs.options, *self._settings)
            kit = self._kits[key] = (_Kit(rs, par, self._code), par)
        kit, par = kit
        p = obs.seat
        t = kit.t
        _fill(t, obs, self._code, self.memory, par)
        ask = _ASK[obs.asking]
        tile = -1
        if ask == S.Q_TURN:
            tile = obs.drawn if obs.drawn is not None else -1
        elif ask in (S.Q_CLAIM, S.Q_ROB):
            tile = obs.tile
        frm = -1 if obs.from_seat is None else obs.from_seat
        flags = self_flags(obs)
        with first_run.family("bot"):
            G.decide(p, ask, tile, frm, flags, par, kit.tabs, kit.rules, kit.dirs, kit.fast, t,
                     kit.wk, kit.answer)
        s = t.seats[p]
        for f in _MEMORY:
            self.memory[f] = int(s[f])
        act = from_kernel(kit.answer)
        if act.kind == "win":
            return Action("win")
        return act


def self_flags(obs):
    """A self-drawn win's situation flags, from what the player sees."""
    flags = L.F_SELF_DRAWN
    if obs.wall_left <= 0:
        flags |= L.F_LAST_WALL
    if obs.replacement:
        flags |= L.F_KONG
    if obs.first_round and obs.seat == 0:
        flags |= L.F_HEAVENLY_HAND
    elif obs.first_round:
        flags |= L.F_EARTHLY_HAND
    return flags


def _fill(t, obs, code, memory, par):
    """Write what the player at ``obs.seat`` knows into the kernel table ``t``."""
    p = obs.seat
    t.conc[:, :] = 0
    t.mtype[:, :] = 0
    t.mtile[:, :] = 0
    t.conc[p] = obs.counts()
    t.seen[:] = seen_counts(obs)
    melds = obs.melds[p]
    kinds = {"chow": L.M_CHOW, "pung": L.M_PUNG, "kong": L.M_KONG,
             "concealed_kong": L.M_CKONG}
    for i, m in enumerate(melds):
        t.mtype[p, i] = kinds[m.kind]
        t.mtile[p, i] = m.tile
    s = t.seats[p]
    s["n_melds"] = len(melds)
    s["flowers"] = len(obs.flowers[p])
    mask = 0
    for f in obs.flowers[p]:
        mask |= 1 << (f - 34)
    s["flower_mask"] = mask
    s["own_draws"] = (0 if p == 0 else 1) if obs.first_round else 2
    s["policy"] = code
    for f in _MEMORY:
        s[f] = memory[f]
    h = t.hand[0]
    h["limit"] = par.exhaust
    h["taken"] = par.exhaust - obs.wall_left
    h["wild"] = -1 if obs.wild is None else obs.wild
    h["draws"] = 0


def decide(observation, policy="strong", memory=None):
    """The action built-in ``policy`` takes in the situation ``observation`` describes.

    Parameters
    ----------
    observation : Observation
        What the player sees (:meth:`mjkit.table.Table.observe`, or one built by another
        program: every field is checked).
    policy : str
        ``"efficiency"``, ``"value"``, ``"break"``, ``"strong"`` or ``"strong_break"``.
    memory : dict, optional
        A value-aware player's memory (:attr:`Bot.memory`); default none (as at the deal).

    Returns
    -------
    Action
    """
    if not isinstance(observation, Observation):
        raise HandError(f"decide() takes a mjkit.table.Observation, got "
                        f"{short_repr(observation)}")
    bot = _bot(policy)
    bot.reset()
    if memory is not None:
        if not isinstance(memory, dict) or set(memory) != set(_MEMORY):
            raise HandError(f"memory must be a dict with the keys {_MEMORY}")
        bot.memory = {k: int(v) for k, v in memory.items()}
    return bot.decide(observation)


_BOTS = {}


def _bot(policy):
    b = _BOTS.get(policy)
    if b is None:
        b = _BOTS[policy] = Bot(policy)
    return b

