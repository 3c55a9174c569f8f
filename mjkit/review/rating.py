"""One decision rated: every option open to a player with its chance of a legal win, the
engine's choice and, for an action taken, what it cost.

The numbers are the advisor's (:func:`mjkit.advise`) on exactly what the player saw
(:mod:`.position`), so the coach during play, the review after it and the drills all show
the same figure for the same state:

* a discard (on its own turn or after a claim): ``p_win`` of the 13 tiles it leaves, the
  row of :func:`~mjkit.advise` for that tile;
* letting another's discard go (``pass``): ``p_win`` of the 13 tiles as they are;
* 吃 / 碰: ``p_win`` of the best discard after the meld (the melded hand, 14 tiles);
* a kong: ``p_win`` of the 13 tiles after it, with the replacement as one draw more;
* declaring a win: 1 when it reaches the bar (the hand is won now), 0 when it does not
  (a P胡: the hand ends with its penalty, and nothing is won); the count is
  :func:`mjkit.score`'s on the declared hand, read the table's way (``wait_rule``);
* 起手换牌: the tiles that come in are unknown, so the picks are compared with the
  engine's only.

The advisor's model is one player drawing alone (its approximations are
:func:`mjkit.winprob.win_chances`'s): every option is rated with the same draws, a quarter of
the tiles still in the wall, as the built-in players count them.  The engine's choice is the
built-in player's (:func:`mjkit.bot.decide`, ``strong`` by default): the review shows it
beside the advisor's best, which it usually is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import messages as M
from ..errors import HandError
from ..hand import Meld
from ..tiles import tile_to_str
from .position import position

__all__ = ["Option", "WinCheck", "Rating", "rate", "COSTLY", "MODES"]

#: A decision whose ``p_win`` is this far below the best option's is flagged costly.
COSTLY = 0.02
#: The advisor's modes a rating may use (``fast`` at once; ``deep`` takes seconds).
MODES = ("fast", "deep")


@dataclass(frozen=True)
class WinCheck:
    """Whether declaring the complete hand the player holds is a legal win.

    Attributes
    ----------
    hand : str
        The declared hand in notation (what :func:`mjkit.score` reads).
    counted, bar : int
        Counted fans toward the bar (the dealer's 连拉 line included) and the bar.
    legal : bool
    short : int
        ``bar - counted`` when below the bar, else 0.
    """

    hand: str
    counted: int
    bar: int
    legal: bool
    short: int

    def text(self, lang="en"):
        if self.legal:
            return M.text("review.win_legal", lang, counted=self.counted, bar=self.bar,
                          over=self.counted - self.bar)
        return M.text("review.win_short", lang, counted=self.counted, bar=self.bar,
                      short=self.short)


@dataclass(frozen=True)
class Option:
    """One action open to the player and where it leads.

    Attributes
    ----------
    action : str
        The action in the table's notation (``"discard 5m"``, ``"pung"``, ``"win"``).
    p_win : float or None
        Chance of a legal win after it (None: not rated, the exchange).
    exp_fans : float or None
        Expected counted fans given a win.
    target : object or None
        The likeliest target the hand keeps (:class:`mjkit.advise.AdviceTarget`).
    """

    action: str
    p_win: float | None
    exp_fans: float | None = None
    target: object = None

    def keeps(self, lang="en"):
        """What the hand keeps, in words (its likeliest target)."""
        t = self.target
        if t is None:
            return M.text("review.no_target", lang)
        from ..advise import percent
        return M.text("review.target", lang, hand=t.hand, need=t.need or "—",
                      counted=t.counted, fans="、".join(t.fans) if lang == "zh" else
                      ", ".join(t.fans), p=percent(t.p_alone))


@dataclass(frozen=True)
class Rating:
    """A decision rated (:func:`rate`).

    Attributes
    ----------
    seat : int
    asking : str
        What the player was asked (``"exchange"``, ``"turn"``, ``"discard"``, ``"claim"``,
        ``"rob"``).
    tile : str or None
        The tile drawn (own turn) or the tile asked about (a claim, a kong to rob).
    options : tuple of Option
        Every legal action rated, best first (unrated ones last).
    engine : str
        The built-in player's choice.
    action : str or None
        The action taken (None: the coach, before the decision).
    win : WinCheck or None
        When a win is among the options.
    mode : str
    """

    seat: int
    asking: str
    tile: str | None
    options: tuple
    engine: str
    action: str | None
    win: WinCheck | None
    mode: str

    def option(self, action):
        """The :class:`Option` of ``action`` (its text), or None."""
        for o in self.options:
            if o.action == str(action):
                return o
        return None

    @property
    def best(self):
        """The best rated option (None when none is rated)."""
        o = self.options[0] if self.options else None
        return o if o is not None and o.p_win is not None else None

    @property
    def p_best(self):
        return None if self.best is None else self.best.p_win

    @property
    def p_action(self):
        o = None if self.action is None else self.option(self.action)
        return None if o is None else o.p_win

    @property
    def p_engine(self):
        o = self.option(self.engine)
        return None if o is None else o.p_win

    @property
    def loss(self):
        """``p_win`` given up against the best option (0 when the action is the best; None
        when not rated)."""
        if self.p_action is None or self.p_best is None:
            return None
        return max(0.0, self.p_best - self.p_action)

    @property
    def matches(self):
        """Whether the action is the engine's."""
        return self.action is not None and self.action == self.engine

    @property
    def flags(self):
        """What the review marks: ``"false_win"``, ``"win_let_go"``, ``"costly"``,
        ``"differs"``."""
        out = []
        if self.action is None:
            return tuple(out)
        if self.action == "win" and self.win is not None and not self.win.legal:
            out.append("false_win")
        if self.win is not None and self.win.legal and self.action != "win":
            out.append("win_let_go")
        if self.loss is not None and self.loss >= COSTLY and "false_win" not in out \
                and "win_let_go" not in out:
            out.append("costly")
        if not self.matches:
            out.append("differs")
        return tuple(out)

    def reason(self, lang="en"):
        """One line on a flagged decision: what each choice keeps, with its chance (the
        answer to "why does it prefer this?"); "" when nothing is flagged."""
        from ..advise import percent
        flags = self.flags
        if not flags:
            return ""
        mine = self.option(self.action)
        best = self.best
        from ..table.actions import action_text

        def p(x):
            return "—" if x is None else percent(x)

        def words(a):
            return action_text(a, lang)
        if "false_win" in flags:
            return M.text("review.reason_false", lang, counted=self.win.counted,
                          bar=self.win.bar, short=self.win.short,
                          best=words(best.action) if best else "—",
                          p_best=p(self.p_best))
        if "win_let_go" in flags:
            return M.text("review.reason_win", lang, counted=self.win.counted,
                          bar=self.win.bar, mine=words(self.action),
                          p_mine=p(self.p_action))
        if "costly" in flags and mine is not None and best is not None:
            return M.text("review.reason", lang, mine=words(self.action),
                          p_mine=p(mine.p_win), mine_keeps=mine.keeps(lang),
                          best=words(best.action),
                          p_best=p(best.p_win), best_keeps=best.keeps(lang))
        return M.text("review.reason_engine", lang, engine=words(self.engine),
                      mine=words(self.action))


# ---------------------------------------------------------------- computing

def _advice(pos, mode, draws_left=None):
    from ..advise import advise
    kw = pos.advise_kwargs()
    if draws_left is not None:
        kw["draws_left"] = draws_left
    return advise(mode=mode, top_targets=1, progress=False, **kw)


def _row_option(action, row):
    exp = None if row.p_win <= 0 or math.isnan(row.exp_fans) else float(row.exp_fans)
    return Option(action, float(row.p_win), exp, row.targets[0] if row.targets else None)


def _best_option(action, adv):
    return _row_option(action, adv.best)


def win_check(obs, tile=None):
    """The :class:`WinCheck` of the player of ``obs`` declaring a win now: on its own
    turn the hand it holds, on a claim or a kong to rob with ``obs.tile`` added."""
    from .. import score
    from ..bot import self_flags
    from .._kernels import layout as L
    from ..table.state import declared_text
    c = obs.counts()
    if obs.asking in ("claim", "rob"):
        tile = obs.tile
        c[tile] += 1
        flags = L.F_KONG if obs.asking == "rob" else 0
    else:
        tile = obs.drawn if obs.drawn is not None else int(max(obs.hand))
        flags = self_flags(obs)
    text = declared_text(obs.melds[obs.seat], c, tile, flags, obs.seat, obs.round_wind,
                         obs.flowers[obs.seat])
    wild = None if obs.wild is None else tile_to_str(obs.wild)
    r = score(text, rules=obs.rules, wild=wild, lianla=obs.level if obs.seat == 0 else 0,
              wait_rule=obs.options.get("wait_rule", "unique"))
    counted = int(r.counted_points)
    bar = int(r.minimum)
    return WinCheck(text, counted, bar, counted >= bar, max(0, bar - counted))


def _meld_after(pos, act, tile):
    """The position after the claim ``act`` of ``tile`` (a chow, pung or exposed kong)."""
    if act.kind == "chow":
        run = [act.tile, act.tile + 1, act.tile + 2]
        run.remove(tile)
        return pos.with_meld(Meld("chow", act.tile), run, tile)
    if act.kind == "pung":
        return pos.with_meld(Meld("pung", tile), [tile] * 2, tile)
    return pos.with_meld(Meld("kong", tile), [tile] * 3, tile, draws_left=pos.draws_left + 1)


def _own_kong(pos, k):
    """The position after a concealed or added kong of ``k`` on the player's own turn."""
    c = pos.counts.copy()
    melds = list(pos.melds)
    if c[k] == 4:
        c[k] = 0
        melds.append(Meld("kong", k, concealed=True))
    else:
        c[k] -= 1
        melds = [Meld("kong", k) if (m.kind == "pung" and m.tile == k) else m for m in melds]
    return replace(pos, counts=c, melds=tuple(melds), draws_left=pos.draws_left + 1)


def rate(observation, legal, action=None, *, mode="fast", engine="strong"):
    """Rate the decision the player of ``observation`` faces (the coach) or took (the
    review).

    Parameters
    ----------
    observation : Observation
        What the player saw (:meth:`mjkit.table.Table.observe`; checked).
    legal : list of Action
        The actions open to it (:meth:`mjkit.table.Table.legal_actions`).
    action : Action or str, optional
        The action taken; must be one of ``legal``.
    mode : {"fast", "deep"}
        The advisor's search (``fast``: a few milliseconds an option).
    engine : str
        The built-in player whose choice is shown (:func:`mjkit.bot.decide`).

    Returns
    -------
    Rating

    Raises
    ------
    HandError
        A forged observation, a player not asked anything, an empty ``legal``, an action
        that is not legal, an unknown mode.
    """
    from ..bot import decide
    from ..table.actions import as_action
    from ..table.observation import check_observation
    obs = check_observation(observation)
    if mode not in MODES:
        raise HandError(f"mode must be one of {MODES}, got {mode!r}", code="unknown_name")
    if obs.asking is None or obs.to_act != obs.seat:
        raise HandError(f"seat {obs.seat} is not asked anything in this observation")
    if not isinstance(legal, (list, tuple)) or not legal:
        raise HandError("rate needs the legal actions (Table.legal_actions(seat))")
    legal = [as_action(a) for a in legal]
    taken = None
    if action is not None:
        taken = str(as_action(action).normalise(legal, what=f"seat {obs.seat} "
                                                          f"({obs.asking})"))
    eng = str(decide(obs, engine))
    pos = position(obs)
    wc = None
    options = []
    kinds = {a.kind for a in legal}
    if "win" in kinds:
        wc = win_check(obs)
        options.append(Option("win", 1.0 if wc.legal else 0.0))
    if obs.asking in ("turn", "discard"):
        adv = _advice(pos, mode)
        rows = {r.tile: r for r in adv.rows}
        for a in legal:
            if a.kind == "discard":
                row = rows.get(tile_to_str(a.tile))
                options.append(_row_option(str(a), row) if row is not None else
                               Option(str(a), None))
            elif a.kind == "kong":
                options.append(_best_option(str(a), _advice(_own_kong(pos, a.tile),
                                                            mode)))
    elif obs.asking in ("claim", "rob"):
        for a in legal:
            if a.kind == "pass":
                options.append(_best_option("pass", _advice(pos, mode)))
            elif a.kind in ("chow", "pung", "kong"):
                options.append(_best_option(str(a), _advice(_meld_after(pos, a, obs.tile),
                                                            mode)))
    else:                                           # exchange: not rated
        for a in ([as_action(eng)] + ([as_action(taken)] if taken else [])):
            if str(a) not in [o.action for o in options]:
                options.append(Option(str(a), None))
    # best first; among equals the action taken, then the engine's (so that "best" names
    # another choice only when it is better)
    options.sort(key=lambda o: (o.p_win is None, -(o.p_win or 0.0), o.action != taken,
                                o.action != eng, -(o.exp_fans or 0.0)))
    tile = obs.drawn if obs.asking == "turn" else \
        obs.tile if obs.asking in ("claim", "rob") else None
    return Rating(obs.seat, obs.asking, None if tile is None else tile_to_str(tile),
                  tuple(options), eng, taken, wc, mode)
