"""Named bundles of the arrays the kernels take.

A kernel receives a rule set, a shape table or a game's state as one
NamedTuple of arrays (numba passes a NamedTuple into nopython code as a
heterogeneous tuple with named fields), so no call depends on the order of a
long positional list and a cache key can hash the fields by name.

The simulator's bundles (settings, table, scratch, outcome records) live in
:mod:`.game_state`: the value index's cache key hashes this file, and a
change to the game must not rebuild the index.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["RuleArrays", "SCORING_FIELDS", "ShantenTables", "EvalScratch", "HandFacts",
           "ScoreOut", "PatternFamilies", "IndexSymmetry", "WinScratch"]


class RuleArrays(NamedTuple):
    """A rule set as the evaluator sees it (built by ``RuleSet.kernel_rules``).

    Attributes
    ----------
    points : int64 (n_fans,)
        Points of each fan (0: not used by the rule set).
    excl_ptr, excl_idx : int64
        The 不计 lists as CSR: fan ``f`` excludes ``excl_idx[excl_ptr[f]:excl_ptr[f + 1]]``.
    order : int64 (n_fans,)
        Fans by points, highest first (the order 不计 is applied in).
    rank : int64 (n_fans,)
        Position of each fan in ``order``.
    tie_order : int64
        Preference among equal-valued readings (the old client's order).
    covers : int64 (n_fans,)
        1 if the fan keeps the 幺九刻 of its own sets from counting.
    table : uint8
        The one-suit pattern table (``tables.suit_table``, 2 MB).
    wtable : uint16
        The wild-tile (sets, pair) option table (``tables.wild_table``, 4 MB).
    """

    points: np.ndarray
    excl_ptr: np.ndarray
    excl_idx: np.ndarray
    order: np.ndarray
    rank: np.ndarray
    tie_order: np.ndarray
    covers: np.ndarray
    table: np.ndarray
    wtable: np.ndarray


# The fields that are the rule set itself (the shape tables are the same for every rule set
# and are covered by the kernels' sources): what a cache key hashes.
SCORING_FIELDS = ("points", "excl_ptr", "excl_idx", "order", "rank", "tie_order", "covers")


# --------------------------------------------------------------------------
# the need (shanten) reading (mjkit._kernels.shanten; the game and its policies use it too)
# --------------------------------------------------------------------------

class ShantenTables(NamedTuple):
    """The shape tables of the need (shanten) reading (``mjkit.shanten.shanten_tables``).

    Attributes
    ----------
    stab : uint8 (5**9, 10)
        One suit's counts (base-5 key) to their (sets, pair) distances.
    htab : uint8 (5**7, 10)
        The same for the honours (no chows).
    """

    stab: np.ndarray
    htab: np.ndarray


class EvalScratch(NamedTuple):
    """The evaluator's scratch space: named views of one int64 array.

    ``evaluate.eval_scratch(ws)`` carves them out of a ``WS_LEN`` workspace
    (one per thread), so scoring a hand allocates nothing.

    Attributes
    ----------
    c, allc, standing, rem : int64 (34,)
        Concealed counts (winning tile included); counts with the melds; the
        concealed counts without the winning tile; what a knitted straight leaves.
    kind, tile, exposed, fixed : int64 (4,)
        The four sets of the reading being scored, melds first.
    knit_set : int64 (12,)
        Kind, tile and fixed flag of the one set of a knitted reading (4 each).
    work : int64 (32,)
        Scratch for the split search and the fan detectors.
    base, cand, cand_raw, present : int64 (MAX_FANS,)
        Fans every reading shares; the fans of the reading being scored,
        after and before 不计; fans present, in rule order (``apply_rules``).
    cand_dec : int64 (DEC_LEN,)
        The decomposition record of the reading being scored.
    split_kind, split_tile : int64 (4 * MAX_DIVISIONS,)
        Sets of every split (``shapes.enumerate_divisions``).
    split_pair, split_key, split_order : int64 (MAX_DIVISIONS,)
        Pair of every split, its reading-order key and the visiting order.
    leftmost : int64 (84,)
        Scratch of the old client's reading (``evaluate.leftmost_wait_fan``).
    wild : int64 (WILD_WS_LEN,)
        The wild-tile search's workspace (``wild.wild_completions_ws``).
    fan : int64 (MAX_FANS,)
        A row's fans (batch scoring).
    """

    c: np.ndarray
    allc: np.ndarray
    standing: np.ndarray
    rem: np.ndarray
    kind: np.ndarray
    tile: np.ndarray
    exposed: np.ndarray
    fixed: np.ndarray
    knit_set: np.ndarray
    work: np.ndarray
    base: np.ndarray
    cand: np.ndarray
    cand_raw: np.ndarray
    present: np.ndarray
    cand_dec: np.ndarray
    split_kind: np.ndarray
    split_tile: np.ndarray
    split_pair: np.ndarray
    split_key: np.ndarray
    split_order: np.ndarray
    leftmost: np.ndarray
    wild: np.ndarray
    fan: np.ndarray


class HandFacts(NamedTuple):
    """What every reading of one row needs to know besides its sets (scalars).

    Attributes
    ----------
    win, seat, rnd, flags : int
        Winning tile, seat and round wind (0..3), the row's flag bits.
    n_fixed, n_exposed : int
        Melds declared; of them exposed (not concealed kongs).
    self_drawn : bool
    n_distinct_suited : int
        Suited kinds in the concealed hand (a knitted straight needs 9).
    all_flowers : bool
        All eight flowers (八花聚顶).
    """

    win: int
    seat: int
    rnd: int
    flags: int
    n_fixed: int
    n_exposed: int
    self_drawn: bool
    n_distinct_suited: int
    all_flowers: bool


class ScoreOut(NamedTuple):
    """Where a scored row goes: ``fan`` (counted fans), ``raw`` (the fans before
    不计, or an empty array to skip them), ``dec`` (the reading, ``layout.DEC_*``)."""

    fan: np.ndarray
    raw: np.ndarray
    dec: np.ndarray


# ---------------------------------------------------------------- the value index (helper C)


class PatternFamilies(NamedTuple):
    """Complete patterns as products of group parts plus explicit rows (``Families.arrays()``).

    Attributes
    ----------
    classes : int64 (C, 4)
        Per class the list of each group (m, p, s: lists of ``suit_vecs``; honours:
        lists of ``hon_vecs``).
    class_off : int64 (C + 1,)
        First pattern number of each class; ``class_off[-1]`` product patterns.
    suit_vecs, hon_vecs : uint8 (n, 9) and (n, 7)
        The parts.
    suit_ptr, hon_ptr : int64
        List ``L`` is ``vecs[ptr[L]:ptr[L + 1]]``.
    small : uint8 (X, 34)
        Explicit patterns, numbered after the products.
    """

    classes: np.ndarray
    class_off: np.ndarray
    suit_vecs: np.ndarray
    suit_ptr: np.ndarray
    hon_vecs: np.ndarray
    hon_ptr: np.ndarray
    small: np.ndarray


class IndexSymmetry(NamedTuple):
    """The symmetries the value index is built with (``value_index.symmetry()``).

    Attributes
    ----------
    suit_list, suit_pos : int64 (n_suit_vecs,)
        List and position in it of every suit part.
    suit_flags : int64 (n_suit_vecs,)
        ``SUIT_*`` bits of :mod:`mjkit._kernels.value_index`.
    hon_list : int64 (n_hon_vecs,)
        List of every honour part.
    hon_flags : int64 (n_hon_vecs,)
        ``HON_*`` bits.
    hon_images : int64 (n_hon_vecs, 36)
        The honour part each permutation of the winds S, W, N and of the three
        dragons maps a part to (column 0: the identity).
    hon_canon : int64 (n_hon_vecs,)
        The least of those images: the representative's honour part.
    cls_of : int64 (L, L, L, L)
        Class of each quadruple of lists (-1: none).
    """

    suit_list: np.ndarray
    suit_pos: np.ndarray
    suit_flags: np.ndarray
    hon_list: np.ndarray
    hon_flags: np.ndarray
    hon_images: np.ndarray
    hon_canon: np.ndarray
    cls_of: np.ndarray


class WinScratch(NamedTuple):
    """Scratch space of ``complete.best_win_score`` (``complete.win_scratch(n_fans)``).

    Attributes
    ----------
    fan, best_fan : int64 (n_fans,)
        Fans of the tile being tried, and of the best one.
    raw : int64 (0,)
        No explanation wanted.
    dec : int64 (DEC_LEN,)
    ws : int64 (WS_LEN,)
    standing : int64 (34,)
    """

    fan: np.ndarray
    best_fan: np.ndarray
    raw: np.ndarray
    dec: np.ndarray
    ws: np.ndarray
    standing: np.ndarray
