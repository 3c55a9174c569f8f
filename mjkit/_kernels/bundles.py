"""Named bundles of the arrays the kernels take.

A kernel receives a rule set, a shape table or a game's state as one
NamedTuple of arrays (numba passes a NamedTuple into nopython code as a
heterogeneous tuple with named fields), so no call depends on the order of a
long positional list and a cache key can hash the fields by name.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["RuleArrays", "SCORING_FIELDS", "ShantenTables", "Directions", "GameParams",
           "PolicyHooks", "PolicyScratch", "ScoreScratch", "Work", "Table", "SEAT_DTYPE",
           "HAND_DTYPE", "OUTCOME_DTYPE"]


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
# the simulator (mjkit._kernels.game, mjkit._kernels.policy)
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


class Directions(NamedTuple):
    """The directions of the value-aware policies (``mjkit.sim.directions.direction_arrays``).

    Attributes
    ----------
    info : int64 (n_directions, D_INFO)
        Per direction the columns ``D_*`` of :mod:`mjkit._kernels.policy`: its mask's row,
        shape, template length and sets, and the fans it brings closed and melded.
    masks : int64 (n_masks, 34)
        1 for the kinds a mask allows.
    tmpl_kinds, tmpl_copies : int64 (n_directions, N_TMPL)
        The template: kinds the hand must hold and how many copies of each.
    """

    info: np.ndarray
    masks: np.ndarray
    tmpl_kinds: np.ndarray
    tmpl_copies: np.ndarray


class GameParams(NamedTuple):
    """One simulation's settings (built and validated by ``mjkit.sim.engine.params``).

    Attributes
    ----------
    exhaust : int
        Tiles taken from the wall after which the hand is drawn out.
    level : int
        The dealer's 连拉 level N.
    minimum : int
        Counted fans a win needs (the 连拉 line counts for the dealer).
    round_wind : int
        0..3.
    solitaire : bool
        Only the dealer plays; the others draw and discard the tile drawn.
    discard_wins : bool
        Wins on a discard (and robbing a kong) allowed; else self-draw only.
    dealer_policy, others_policy : int
        ``POLICY_*`` of :mod:`mjkit._kernels.policy`.
    deal_only : bool
        Stop after the deal (the dealer's 天和 check only).
    dealer_bonus : int
        Fans the dealer's 连拉 level brings (4N in dazhong32).
    slack : int
        Small fans a value-aware player counts on besides its direction.
    commit : int
        Need at which a value-aware player commits to one direction.
    break_from : int
        破拉 acts against a dealer at this level or above.
    wild_mode : int
        ``WILD_NONE``, ``WILD_FIXED`` (kind ``wild_kind``) or ``WILD_TURNED``.
    wild_kind : int
    """

    exhaust: int
    level: int
    minimum: int
    round_wind: int
    solitaire: bool
    discard_wins: bool
    dealer_policy: int
    others_policy: int
    deal_only: bool
    dealer_bonus: int
    slack: int
    commit: int
    break_from: int
    wild_mode: int
    wild_kind: int


class PolicyHooks(NamedTuple):
    """The user-policy callbacks (numba ``cfunc`` of ``int64(int64[::1])``) asked by
    ``POLICY_USER`` players: one for the dealer, one for the others.  The engine passes
    ``None`` instead when no player has a user policy, and the asking code is then not
    compiled."""

    dealer: object
    others: object


class PolicyScratch(NamedTuple):
    """Work arrays of the policy kernels (``policy.policy_scratch`` makes them).

    Attributes
    ----------
    sws : int64 (shanten.WS_LEN,)
        The need reading's workspace (its own ``W_*`` layout, :mod:`.shanten`).
    v : int64 (34,)
        The hand with its melds read in.
    r : int64 (34,)
        What a template leaves of ``v``.
    outside : int64 (MAX_MASKS,)
        Tiles of ``v`` outside each mask.
    bound : int64 (MAX_DIRECTIONS,)
        A lower bound on each direction's need this decision (-1: not worth the bar).
    order : int64 (MAX_DIRECTIONS,)
        Directions sorted by that bound.
    bucket : int64 (N_LB + 2,)
        Start of each bound's run in ``order``.
    """

    sws: np.ndarray
    v: np.ndarray
    r: np.ndarray
    outside: np.ndarray
    bound: np.ndarray
    order: np.ndarray
    bucket: np.ndarray


class ScoreScratch(NamedTuple):
    """The buffers a game passes to ``evaluate.score_hand_row``.

    Attributes
    ----------
    row : int32 (layout.ROW_LEN,)
        The winning hand as a scoring row (``layout`` columns).
    fan, raw : int64
        Counted fans of the best reading; the raw fans (empty: not wanted).
    dec : int64 (layout.DEC_LEN,)
        The decision record (``DEC_*``).
    ws : int64 (evaluate.WS_LEN,)
        The evaluator's workspace.
    """

    row: np.ndarray
    fan: np.ndarray
    raw: np.ndarray
    dec: np.ndarray
    ws: np.ndarray


class Work(NamedTuple):
    """A game's scratch: the policy's, the evaluator's and what a user policy is shown
    (``user_view``: int64 (V_LEN,), laid out by the public ``V_*`` offsets of
    :mod:`mjkit.sim.policy`; not named ``view``, which numba reserves for arrays)."""

    pol: PolicyScratch
    score: ScoreScratch
    user_view: np.ndarray


class Table(NamedTuple):
    """A hand in play (:mod:`mjkit._kernels.game`); allocated once per run, reset per hand.

    Attributes
    ----------
    wall : int64 (144,)
        Tile ids 0..143 in the order they come off the wall (kind ``id // 4``; 136.. flowers).
    conc : int64 (4, 34)
        Each player's concealed counts.
    mtype, mtile : int64 (4, 4)
        Each player's melds: type (``layout.M_*``) and tile (a chow: its lowest).
    seen : int64 (34,)
        Tiles every player has seen (discards, melds).
    nocap : int64 (34,)
        All zeros: the copies in melds the need reading takes off (see ``game._need``).
    seats : SEAT_DTYPE (4,)
        Each player's state.
    hand : HAND_DTYPE (1,)
        The hand's state.
    rng : uint64 (1,)
        The hand's random stream (:mod:`.rng`).
    """

    wall: np.ndarray
    conc: np.ndarray
    mtype: np.ndarray
    mtile: np.ndarray
    seen: np.ndarray
    nocap: np.ndarray
    seats: np.ndarray
    hand: np.ndarray
    rng: np.ndarray


_I8 = np.int64

#: A player's state (``Table.seats``): melds and flowers, own turns, policy, and the
#: value-aware policy's aim kept from one discard to the next.
SEAT_DTYPE = np.dtype([
    ("n_melds", _I8),
    ("flowers", _I8),         # flowers set aside
    ("flower_mask", _I8),     # which of the eight
    ("own_draws", _I8),       # the player's own turns' draws
    ("policy", _I8),          # POLICY_*
    ("aim", _I8),             # the direction chosen at the last discard (-1 none)
    ("aim_need", _I8),        # its need then
    ("committed", _I8),       # 1: committed to ``aim`` (seed 000's 8上)
    ("aim2", _I8),            # the second direction kept (6看)
    ("since_look", _I8),      # discards since every direction was looked at
])

#: The hand's state (``Table.hand``): the wall's two ends, what has been taken, the wild
#: kind and the turns' draws.
HAND_DTYPE = np.dtype([
    ("front", _I8),           # next tile from the front of the wall
    ("back", _I8),            # next tile from the back (kong and flower replacements)
    ("taken", _I8),           # tiles taken in all
    ("limit", _I8),           # taken at which the hand is drawn out
    ("wild", _I8),            # the wild kind, -1 none
    ("draws", _I8),           # turns' draws after the deal (replacements not counted)
])

#: One simulated hand's outcome (the kernels write it by name; ``HandRecords.outcomes`` is
#: the same memory read as int32 columns in this order).
OUTCOME_DTYPE = np.dtype([(name, np.int32) for name in (
    "winner",        # seat 0..3, -1 drawn out
    "self_drawn",
    "draws",         # turns' draws by all players after the deal, up to the win
    "own_draws",     # the winner's own turns' draws
    "counted",       # counted fans of the win (连拉 included)
    "total",         # every fan of the win
    "taken",         # tiles taken from the wall in all (flowers and replacements included)
    "flowers",       # the winner's flowers
    "melds",         # the winner's melds (claimed sets and kongs)
    "wild",          # the hand's wild kind, -1 none
    "robbed",        # 1: the win robbed a kong (抢杠和)
    "error",         # a user policy's bad answer: ERR_* (the hand stops there)
    "short",         # complete hands that fell short of their player's bar (a P胡 avoided)
)])


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


class IndexQuery(NamedTuple):
    """One nearest-pattern query (``value_index.nearest``).

    Attributes
    ----------
    h, unseen : int64 (34,)
        The hand's concealed counts; copies of each kind that can still be drawn.
    check_unseen : bool
        Skip a pattern needing more copies of a kind than ``unseen``.
    ids : uint16 or uint32
        Per pattern number its row id; empty: every pattern is verified.
    accept : int8
        Per id ``ACCEPT_NO`` / ``ACCEPT_YES`` / ``ACCEPT_VERIFY``.
    wind_mode : bool
        Decide patterns without a wind pung by the code alone.
    row : int32 (ROW_LEN,)
        The situation (melds, flags, winds, 连拉) a pattern is verified in.
    all_tiles : bool
        Verify with every choice of winning tile (no shortcut).
    min_counted : int
        The bar a verified pattern must reach.
    """

    h: np.ndarray
    unseen: np.ndarray
    check_unseen: bool
    ids: np.ndarray
    accept: np.ndarray
    wind_mode: bool
    row: np.ndarray
    all_tiles: bool
    min_counted: int


class MeldRanking(NamedTuple):
    """Meld mode of ``value_index.nearest``: the closed counterpart of a concealed part.

    ``pos_s`` empty: no meld mode.  See ``value_index.rank_regular``.

    Attributes
    ----------
    meld_counts : int64 (34,)
        Tiles of the melds.
    pos_s, pos_h : int32
        Part positions by base-5 key (suits 5**9, honours 5**7).
    cls_of : int64 (10, 10, 10, 10)
        Class of each quadruple of regular lists.
    full_off : int64
        ``class_off`` of the full families.
    suit_ptr, hon_ptr : int64
        List boundaries of the full families.
    """

    meld_counts: np.ndarray
    pos_s: np.ndarray
    pos_h: np.ndarray
    cls_of: np.ndarray
    full_off: np.ndarray
    suit_ptr: np.ndarray
    hon_ptr: np.ndarray
