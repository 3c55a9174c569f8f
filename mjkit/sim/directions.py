"""What a value-aware simulated player aims at: directions built from the fan table.

A direction is a mask of allowed kinds, a shape and an optional template of
tiles, with the fans a hand of that direction is sure to carry (清一色 +
七对, 清一色 + 清龙, 一色三步高 ...).  Its value is the sum of those fans'
points under the rule set after their 不计, plus the fan a closed
(门前清 / 不求人) or melded (自摸 in a self-drawn game) hand adds.  The
kernel (:mod:`mjkit._kernels.policy`) measures how far a hand is from
each direction; the player goes for the quickest one worth its bar.

A direction whose fans the rule set does not score is left out, so each
rule set gets the directions its own table makes worth something.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from .._kernels import fan_ids as F
from .._kernels import policy as P
from .._kernels.game_state import Directions
from ..rules import get_rules

__all__ = ["Direction", "directions", "direction_arrays"]

_SUITS = "mps"


def _mask(kinds):
    m = np.zeros(34, np.int64)
    m[list(kinds)] = 1
    return m


def _masks():
    """Masks by name, in the kernel's row order."""
    out = {"all": _mask(range(34))}
    for s, ch in enumerate(_SUITS):
        out[ch] = _mask(range(9 * s, 9 * s + 9))
    for s, ch in enumerate(_SUITS):
        out[ch + "+z"] = _mask(list(range(9 * s, 9 * s + 9)) + list(range(27, 34)))
    out["simples"] = _mask([9 * s + r for s in range(3) for r in range(1, 8)])
    out["upper"] = _mask([9 * s + r for s in range(3) for r in (6, 7, 8)])
    out["middle"] = _mask([9 * s + r for s in range(3) for r in (3, 4, 5)])
    out["lower"] = _mask([9 * s + r for s in range(3) for r in (0, 1, 2)])
    out["terminals+z"] = _mask([9 * s + r for s in range(3) for r in (0, 8)] + list(range(27, 34)))
    out["z"] = _mask(range(27, 34))
    return out


#: fans each mask guarantees
_MASK_FANS = {"all": (), "m": (F.FULL_FLUSH,), "p": (F.FULL_FLUSH,), "s": (F.FULL_FLUSH,),
              "m+z": (F.HALF_FLUSH,), "p+z": (F.HALF_FLUSH,), "s+z": (F.HALF_FLUSH,),
              "simples": (F.ALL_SIMPLES,), "upper": (F.UPPER_TILES,),
              "middle": (F.MIDDLE_TILES,), "lower": (F.LOWER_TILES,),
              "terminals+z": (F.ALL_TERMINALS_AND_HONORS,), "z": (F.ALL_HONORS,)}
#: masks that only make sense as pungs or pairs
_NO_CHOWS = ("terminals+z", "z")


@dataclass(frozen=True)
class Direction:
    """One direction of the value-aware policies.

    Attributes
    ----------
    name : str
        e.g. ``"m 清龙 (清一色)"``.
    mask : str
        Name of the allowed kinds (``"all"``, ``"m"``, ``"m+z"``, ``"simples"`` ...).
    shape : int
        ``SHAPE_REGULAR``, ``SHAPE_PAIRS`` or ``SHAPE_PUNGS`` of :mod:`mjkit._kernels.policy`.
    template : tuple of (int, int)
        (kind, copies) the hand must hold; empty for none.
    sets : int
        Sets the template makes.
    fans : tuple of int
        Catalogue rows of the fans the direction carries.
    value_closed, value_open : int
        Fans the direction is sure to bring, closed and melded.
    """

    name: str
    mask: str
    shape: int
    template: tuple
    sets: int
    fans: tuple
    value_closed: int
    value_open: int


def _chow(k):
    return ((k, 1), (k + 1, 1), (k + 2, 1))


def _merge(*parts):
    out = {}
    for part in parts:
        for k, n in part:
            out[k] = out.get(k, 0) + n
    return tuple(sorted(out.items()))


def _templates():
    """(name, suit or None, fan, tiles, sets)."""
    out = []
    for s, ch in enumerate(_SUITS):
        b = 9 * s
        out.append((f"{ch} 清龙", s, F.PURE_STRAIGHT,
                    _merge(_chow(b), _chow(b + 3), _chow(b + 6)), 3))
        for a in range(5):
            out.append((f"{ch} 一色三步高 {a + 1}{a + 2}{a + 3}+1", s, F.PURE_SHIFTED_CHOWS,
                        _merge(_chow(b + a), _chow(b + a + 1), _chow(b + a + 2)), 3))
        for a in range(3):
            out.append((f"{ch} 一色三步高 {a + 1}{a + 2}{a + 3}+2", s, F.PURE_SHIFTED_CHOWS,
                        _merge(_chow(b + a), _chow(b + a + 2), _chow(b + a + 4)), 3))
        for a in range(7):
            # the same nine tiles make 一色三同顺 or 一色三节高: the evaluator takes the better
            out.append((f"{ch} 一色三同顺 {a + 1}{a + 2}{a + 3}", s, F.PURE_TRIPLE_CHOW,
                        _merge(_chow(b + a), _chow(b + a), _chow(b + a)), 3))
    for a in range(7):
        out.append((f"三色三同顺 {a + 1}{a + 2}{a + 3}", None, F.MIXED_TRIPLE_CHOW,
                    _merge(_chow(a), _chow(9 + a), _chow(18 + a)), 3))
    for perm in permutations(range(3)):
        name = "".join(_SUITS[s] for s in perm)
        out.append((f"花龙 {name}", None, F.MIXED_STRAIGHT,
                    _merge(_chow(9 * perm[0]), _chow(9 * perm[1] + 3), _chow(9 * perm[2] + 6)),
                    3))
    return out


def directions(rules="dazhong32"):
    """The directions of a rule set (a list of :class:`Direction`), quickest to evaluate first."""
    rs = get_rules(rules)
    pts = rs.points_list
    closed_extra = F.FULLY_CONCEALED_HAND if rs.self_drawn_only else F.CONCEALED_HAND
    open_extra = (F.SELF_DRAWN,) if rs.self_drawn_only else ()
    hidden_pungs = F.FOUR_CONCEALED_PUNGS if rs.self_drawn_only else F.THREE_CONCEALED_PUNGS
    out = []

    def add(name, mask, shape, template, sets, fans, closed_fans=()):
        if any(pts[f] <= 0 for f in fans):
            return
        vc = rs.combined_points(tuple(fans) + tuple(closed_fans) + (closed_extra,) + open_extra)
        vo = rs.combined_points(tuple(fans) + open_extra)
        out.append(Direction(name, mask, shape, template, sets, tuple(fans), vc, vo))

    for mask, mfans in _MASK_FANS.items():
        if mask not in _NO_CHOWS:
            add(mask, mask, P.SHAPE_REGULAR, (), 0, mfans)
        add(f"{mask} 七对", mask, P.SHAPE_PAIRS, (), 0, mfans + (F.SEVEN_PAIRS,))
        pung_fans = mfans if mask == "terminals+z" else mfans + (F.ALL_PUNGS,)
        add(f"{mask} 碰碰和", mask, P.SHAPE_PUNGS, (), 0, pung_fans, (hidden_pungs,))
    for name, suit, fan, tiles, sets in _templates():
        add(name, "all", P.SHAPE_REGULAR, tiles, sets, (fan,))
        if suit is not None:
            ch = _SUITS[suit]
            add(f"{name} (清一色)", ch, P.SHAPE_REGULAR, tiles, sets, (fan, F.FULL_FLUSH))
            add(f"{name} (混一色)", ch + "+z", P.SHAPE_REGULAR, tiles, sets,
                (fan, F.HALF_FLUSH))
    return out


def direction_arrays(rules="dazhong32"):
    """The kernel's tables: a ``Directions`` bundle ``(info, masks, tmpl_kinds, tmpl_copies)``
    (see :mod:`mjkit._kernels.policy`)."""
    rs = get_rules(rules)
    key = "directions"
    if key not in rs._cache:
        masks = _masks()
        names = list(masks)
        dirs = directions(rs)
        if len(dirs) > P.MAX_DIRECTIONS or len(names) > P.MAX_MASKS:
            raise AssertionError("more directions or masks than the policy workspace holds")
        dinfo = np.zeros((len(dirs), P.D_INFO), np.int64)
        dtk = np.zeros((len(dirs), P.N_TMPL), np.int64)
        dtn = np.zeros((len(dirs), P.N_TMPL), np.int64)
        for i, d in enumerate(dirs):
            dinfo[i] = (names.index(d.mask), d.shape, len(d.template), d.sets, d.value_closed,
                        d.value_open)
            for j, (k, n) in enumerate(d.template):
                dtk[i, j] = k
                dtn[i, j] = n
        dmask = np.stack([masks[n] for n in names])
        rs._cache[key] = Directions(dinfo, dmask, dtk, dtn)
    return rs._cache[key]
