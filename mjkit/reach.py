"""Reach analysis: what a ready hand waits for, and what each wait is worth.

:func:`waits` tries every tile kind as the winning tile of a 13-tile hand,
scores the completed hands with the same kernel as :func:`mjkit.score` and
says, per winning tile, how many copies are still unseen, the fans and total
it would score and whether that win is legal at the 连拉 level.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ._lazy import pandas as pd  # imported on first use: scoring needs no pandas

from .errors import HandError
from .hand import Hand, hand_text, parse_hand, read_tile_part
from .messages import lang_or_en, text
from .rules import get_rules
from .score import score
from .tiles import N_KINDS, tile_to_str
from .validate import visible_counts

__all__ = ["Wait", "WaitsResult", "waits"]


@dataclass(frozen=True)
class Wait:
    """One winning tile of a ready hand."""

    tile: str
    unseen: int
    total: int
    hand_points: int
    legal: bool
    short_by: int
    fans: tuple
    result: object = field(repr=False, compare=False, default=None)


@dataclass
class WaitsResult:
    """The waits of a 13-tile hand (see :func:`waits`)."""

    hand: str
    rules: str
    lianla: int
    bar: int
    waits: list

    @property
    def tiles(self):
        """The winning tiles, in tile order."""
        return [w.tile for w in self.waits]

    @property
    def is_ready(self):
        return bool(self.waits)

    @property
    def unseen_total(self):
        return sum(w.unseen for w in self.waits)

    @property
    def legal_unseen(self):
        """Unseen copies of the tiles that would make a legal win."""
        return sum(w.unseen for w in self.waits if w.legal)

    def to_frame(self):
        """One row per winning tile: unseen copies, total, counted fans, legality, fans."""
        return pd.DataFrame(
            [{"tile": w.tile, "unseen": w.unseen, "total": w.total,
              "counted": w.hand_points, "legal": w.legal, "short_by": w.short_by,
              "fans": " ".join(w.fans)} for w in self.waits],
            columns=["tile", "unseen", "total", "counted", "legal", "short_by", "fans"])

    def summary(self, lang="en"):
        """A few lines a player reads at a glance (``"zh"``; any other value reads English)."""
        lang = lang_or_en(lang)
        if not self.waits:
            return text("reach.not_ready", lang, hand=self.hand)
        level = text("reach.level", lang, n=self.lianla) if self.lianla else ""
        lines = [text("reach.head", lang, hand=self.hand, kinds=len(self.waits),
                      unseen=self.unseen_total, bar=self.bar, level=level,
                      legal=self.legal_unseen)]
        for w in self.waits:
            verdict = (text("reach.legal", lang) if w.legal
                       else text("reach.short", lang, short=w.short_by))
            lines.append(text("reach.row", lang, tile=w.tile, unseen=w.unseen,
                              points=w.hand_points, verdict=verdict, fans=" ".join(w.fans)))
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    def _repr_html_(self):
        return self.to_frame().to_html(index=False)


def waits(hand13, rules="gb", *, lianla=0, wild=None, wait_rule="unique", visible=None,
          **situation):
    """Every winning tile of a 13-tile hand, what it scores and whether it is legal.

    Parameters
    ----------
    hand13 : str
        The hand before the winning tile, in notation: melds and 13 − 3k
        concealed tiles, e.g. ``"[123m] 456p 789s 5m EEE"``; an optional
        ``| situation`` suffix as for :func:`mjkit.parse_hand`.
    rules, lianla, wild, wait_rule
        As for :func:`mjkit.score`.  ``dazhong32`` wins are self-drawn, so
        there ``self_drawn`` defaults to True.
    visible : str or sequence of tiles, optional
        Tiles seen elsewhere (discards, other players' melds): they reduce
        the unseen copies.  Read by :func:`mjkit.validate.visible_counts`
        (notation such as ``"1m [456p]"`` or a list of tiles; flowers set
        aside).
    **situation
        Situation of the win (``self_drawn``, ``seat_wind``, ...).

    Returns
    -------
    WaitsResult
        ``.waits`` (one :class:`Wait` per winning tile), ``.to_frame()``,
        ``.summary()``.

    Raises
    ------
    HandError
        For a malformed hand, a hand that is not 13 tiles (melds counted
        as 3), more copies of a tile than exist (the hand, its melds and
        ``visible`` together), or a ``visible`` that is not tiles (the
        message names ``visible``).
    """
    if isinstance(hand13, Hand):
        raise HandError("waits() takes the 13 tiles before the win, in notation; a Hand "
                        "already has its winning tile")
    if not isinstance(hand13, str):
        raise HandError(f"expected a hand in notation (str), got {type(hand13).__name__}")
    melds, tiles = read_tile_part(hand13.partition("|")[0])
    tiles = [t for t in tiles if t < N_KINDS]  # flowers: the situation's, not the wait's
    n = len(tiles)
    if n != 13 - 3 * len(melds):
        raise HandError(f"waits() takes the hand before the win: {13 - 3 * len(melds)} "
                        f"concealed tiles with {len(melds)} meld(s), got {n}")
    rs = get_rules(rules)
    if rs.self_drawn_only:
        situation.setdefault("self_drawn", True)
    seen = visible_counts(visible).tolist()
    concealed = [0] * N_KINDS
    for t in tiles:
        concealed[t] += 1
    held = list(concealed)
    in_meld = [False] * N_KINDS
    for m in melds:
        for t in m.tiles:
            held[t] += 1
            in_meld[t] = True
    for t in range(N_KINDS):     # every kind, not only the waits: a fifth copy is an error
        if seen[t] and held[t] + seen[t] > 4:
            raise HandError(f"visible: {seen[t]} {tile_to_str(t)} seen but "
                            f"{held[t]} already in the hand; only 4 exist",
                            code="too_many_copies")
    # The hand with its situation, read once on a tile that no situation flag
    # objects to (no copy held); each wait is that hand with another winning
    # tile, so the text is not read again and no error is caught.
    # (13 tiles and 4 melds cover at most 17 of the 34 kinds: one is free.)
    free = next(t for t in range(N_KINDS) if held[t] == 0)
    base = parse_hand(hand13, win_tile=free, **situation)
    # What the flags need of the winning tile (Hand._validate): 和绝张 no
    # other concealed copy, 抢杠和 none in the hand or its melds.
    robbed = base.kong and not base.self_drawn
    found = []
    for t in range(N_KINDS):
        if held[t] >= 4:
            continue  # all four copies already held: not a wait
        if (base.last_copy or robbed) and concealed[t]:
            continue  # 和绝张 / 抢杠和 with a copy in hand: not this tile's win
        if robbed and in_meld[t]:
            continue
        h = base if t == base.win_tile else replace(
            base, concealed=tuple(sorted(tiles + [t])), win_tile=t)
        unseen = int(4 - held[t] - seen[t])
        r = score(h, rules=rs, lianla=lianla, wild=wild, wait_rule=wait_rule)
        if not r.is_win:
            continue
        found.append(Wait(tile=tile_to_str(t), unseen=unseen, total=r.total,
                          hand_points=r.hand_points, legal=r.legal, short_by=r.short_by,
                          fans=tuple(f.zh for f in r.fans), result=r))
    return WaitsResult(hand=hand_text(tiles, melds), rules=rs.name, lianla=lianla,
                       bar=rs.threshold(lianla), waits=found)
