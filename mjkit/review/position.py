"""A player's position as the advisor reads it: an observation of the table turned into
the arguments of :func:`mjkit.advise` (one place, for the coach, the review and the drills).

What the player sees is exactly what the advisor is given: its concealed tiles and melds,
every tile seen elsewhere (discards, claimed ones included, and the other seats' melds),
the wild kind, its seat and the round, the dealer's 连拉 level (its 4N fans count toward the
dealer's own bar only) and the draws it has left as the built-in players count them: a
quarter of the tiles still to be taken from the wall.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..hand import Meld as HandMeld
from ..tiles import tiles_of_counts

__all__ = ["Position", "position"]


@dataclass(frozen=True)
class Position:
    """The advisor's reading of one seat's situation (keyword arguments of ``advise``).

    Attributes
    ----------
    counts : numpy.ndarray
        Concealed tiles per kind, int64 (34,).
    melds : tuple of mjkit.Meld
        The seat's own melds (a concealed kong as ``{5555m}``).
    visible : tuple of int
        Every tile seen elsewhere (discards and the other seats' melds).
    rules : str
    lianla : int
        The 连拉 level when the seat is the dealer, else 0.
    seat_wind, round_wind : int
    wild : int or None
    draws_left : int
    """

    counts: np.ndarray
    melds: tuple
    visible: tuple
    rules: str
    lianla: int
    seat_wind: int
    round_wind: int
    wild: int | None
    draws_left: int

    def advise_kwargs(self):
        """The keyword arguments of :func:`mjkit.advise` (the hand as ``hand=``)."""
        return dict(hand=self.counts, rules=self.rules, lianla=self.lianla,
                    draws_left=self.draws_left, visible=self.visible,
                    wild=None if self.wild is None else int(self.wild),
                    seat_wind=self.seat_wind, round_wind=self.round_wind,
                    melds=list(self.melds))

    def with_meld(self, meld, taken, claimed, draws_left=None):
        """The position after the seat claims the discard ``claimed`` (seen until now)
        into ``meld`` (a :class:`mjkit.Meld`) with the tiles ``taken`` from its hand."""
        c = self.counts.copy()
        for k in taken:
            c[k] -= 1
        visible = list(self.visible)
        visible.remove(claimed)              # in the meld now, no longer a discard seen
        return Position(c, self.melds + (meld,), tuple(visible), self.rules, self.lianla,
                        self.seat_wind, self.round_wind, self.wild,
                        self.draws_left if draws_left is None else draws_left)


def _hand_meld(m):
    """A table meld (:class:`mjkit.table.state.Meld`) as hand notation's :class:`mjkit.Meld`."""
    if m.kind == "concealed_kong":
        return HandMeld("kong", m.tile, concealed=True)
    return HandMeld(m.kind, m.tile)


def position(obs):
    """The :class:`Position` of the player who sees ``obs`` (an
    :class:`~mjkit.table.observation.Observation`, checked)."""
    from ..table.observation import check_observation, seen_counts

    obs = check_observation(obs)
    seen = seen_counts(obs)
    for m in obs.melds[obs.seat]:            # its own melds are its hand's, not seen
        for k in m.tiles:
            seen[k] -= 1
    counts = obs.counts()
    return Position(counts=counts, melds=tuple(_hand_meld(m) for m in obs.melds[obs.seat]),
                    visible=tuple(int(k) for k in tiles_of_counts(seen)), rules=obs.rules,
                    lianla=obs.level if obs.seat == 0 else 0, seat_wind=obs.seat,
                    round_wind=obs.round_wind, wild=obs.wild,
                    draws_left=max(0, obs.wall_left // 4))


