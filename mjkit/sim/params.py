"""The simulator's settings: :func:`params` builds and validates the rule set and the game
kernel's ``GameParams``, for :func:`mjkit.sim.play_hands`, :class:`mjkit.table.Table` and
:mod:`mjkit.bot` alike (so the table needs nothing of the simulator's runner)."""

from __future__ import annotations

from .._kernels import fan_ids as F
from .._kernels import game as G
from .._kernels.game_state import GameParams
from ..errors import HandError, short_repr
from ..rules import get_rules
from ..score import wait_flag
from ..validate import MAX_LEVEL, boolean, whole, wild_kind
from ..validate import level as _level
from ..validate import wind as _wind
from .policy import resolve

__all__ = ["MAX_FIRST", "params"]

#: Highest first hand number: hand numbers stay below 2**63 (the kernel's int64).
MAX_FIRST = 2**62


def _wild(wild):
    """(mode, kind) of the ``wild=`` option: None, ``"turned"`` or a tile in notation."""
    if wild is None or wild is False:
        return G.WILD_NONE, -1
    if not isinstance(wild, str):     # a study's wild is text; an index here is a slip
        raise HandError(f"wild must be None, 'turned' or a tile such as 'P' or '5m', "
                        f"got {short_repr(wild)}")
    if wild.strip().lower() == "turned":
        return G.WILD_TURNED, -1
    return G.WILD_FIXED, wild_kind(wild, "wild")


def params(rules, level=0, *, solitaire=False, exhaust=120, round_wind="E",
           discard_wins=None, dealer_policy="efficiency", others_policy="efficiency",
           deal_only=False, wild=None, slack=4, commit=5, break_from=1, claims=True,
           exchange=False, dealer_draws=None, wait_rule="unique"):
    """The rule set and the kernel's settings (a ``GameParams``, validated); see
    :func:`play_hands` (and :class:`mjkit.table.Table` for ``wait_rule``)."""
    rs = get_rules(rules)
    level = _level(level, "level (lianla)")
    rs.threshold(level)          # 连拉 only where the rule set has it
    exhaust = whole("exhaust (tiles taken from the wall)", exhaust, 53, G.N_WALL)
    solitaire = boolean(solitaire, "solitaire")
    deal_only = boolean(deal_only, "deal_only")
    claims = boolean(claims, "claims")
    exchange = boolean(exchange, "exchange")
    dealer_draws = 0 if dealer_draws is None else whole("dealer_draws", dealer_draws, 1,
                                                           G.N_WALL)
    if discard_wins is None:
        discard_wins = claims and not rs.self_drawn_only
    discard_wins = boolean(discard_wins, "discard_wins")
    if discard_wins and not claims:
        raise HandError("claims=False takes no discard, so it wins on none: discard_wins=True "
                        "is not allowed with it")
    if discard_wins and rs.self_drawn_only:
        raise HandError(f"rule set {rs.name!r} wins by self-draw only: discard_wins=True "
                        "is not allowed")
    round_wind = _wind(round_wind, "round_wind")
    dealer_code = resolve(dealer_policy)[0]
    others_code = resolve(others_policy)[0]
    slack = whole("slack", slack, -200, 200)
    commit = whole("commit", commit, 0, 14)
    break_from = whole("break_from", break_from, 0, MAX_LEVEL)
    wild_mode, wild_kind = _wild(wild)
    # plain ints and bools: the kernel is compiled once for these field types
    par = GameParams(
        exhaust=int(exhaust), level=int(level), minimum=int(rs.minimum),
        round_wind=int(round_wind), solitaire=bool(solitaire),
        discard_wins=bool(discard_wins), dealer_policy=int(dealer_code),
        others_policy=int(others_code), deal_only=bool(deal_only),
        dealer_bonus=int(rs.points_list[F.LIANLA] * level), slack=int(slack),
        commit=int(commit), break_from=int(break_from), wild_mode=int(wild_mode),
        wild_kind=int(wild_kind), claims=bool(claims), exchange=bool(exchange),
        dealer_draws=int(dealer_draws), wait_flags=int(wait_flag(wait_rule)))
    return rs, par
