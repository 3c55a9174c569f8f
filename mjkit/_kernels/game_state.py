"""Named bundles of the simulator's kernels (:mod:`.game`, :mod:`.policy`).

The settings of a run (``GameParams``), the value-aware directions
(``Directions``), the user-policy callbacks (``PolicyHooks``), the hand in
play (``Table``, with its records ``SEAT_DTYPE`` and ``HAND_DTYPE``), the
scratch (``Work``: ``PolicyScratch`` and ``ScoreScratch``) and one
``OUTCOME_DTYPE`` record per hand.  They are kept apart from
:mod:`.bundles` (the rule set, shape tables and the evaluator's and value
index's bundles) because the value index's cache key hashes the scoring
kernels' sources and this file is not one of them.
"""

from typing import NamedTuple

import numpy as np

from .layout import N_KINDS

__all__ = ["Directions", "GameParams", "PolicyHooks", "PolicyScratch", "ScoreScratch", "Work",
           "StrongPlay", "strong_play", "Table", "SEAT_DTYPE", "HAND_DTYPE", "OUTCOME_DTYPE"]


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
    claims : bool
        Discards may be claimed (吃, 碰, 明杠); False: none is (nor won on).
    exchange : bool
        起手换牌 (seed 001 A.c): after the deal each player may exchange up to three tiles
        for random tiles of the wall.
    dealer_draws : int
        The hand is drawn out once the dealer has had this many own draws (the one-player
        reach study's draw count); 0: no such limit.
    wait_flags : int
        Situation flags every win is scored with besides its own: ``layout.F_LEFTMOST``
        reads the waits the old client's way (``wait_rule="leftmost"``), else 0.
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
    claims: bool
    exchange: bool
    dealer_draws: int
    wait_flags: int


class StrongPlay(NamedTuple):
    """What ``POLICY_STRONG`` players read (one per thread).

    Attributes
    ----------
    dealer, others : FastTables
        The fast mode's tables (``mjkit.winprob.fast_tables``) at the dealer's and at the
        others' bar (fans the hand itself needs).
    fs : FastScratch
        This thread's (``mjkit.winprob.fast_scratch``).
    live, use, held : int64 (34,)
        Copies not yet seen; copies the nearest targets use (起手换牌); the tiles a
        破拉 discard is chosen from.
    rules : RuleArrays
        The rule set's, which scores the targets of a hand with melds
        (:mod:`.strong_melds`).
    mcount, readin : int64 (34,)
        A hand's meld tiles; its tiles with the meld tiles added.
    now_key : int64 (2, NOW_KEY_LEN)
        Row ``NOW_LAST``: every input of the last rating of a hand without the meld it
        weighs (``game._now_chance``; the fields ``NK_*``; -1 first: none yet); row
        ``NOW_ASKED``: those of the rating asked for now ...
    now_val : float64 (1,)
        ... and the last rating.
    """

    dealer: tuple
    others: tuple
    fs: tuple
    live: np.ndarray
    use: np.ndarray
    held: np.ndarray
    rules: tuple
    mcount: np.ndarray
    readin: np.ndarray
    now_key: np.ndarray
    now_val: np.ndarray


# StrongPlay.now_key: its rows, and the fields of a row
NOW_LAST, NOW_ASKED = 0, 1
NK_PLAYER, NK_MELDS, NK_DRAWS, NK_CLAIM, NK_WILD = 0, 1, 2, 3, 4
NK_TILES = 5                        # the concealed tiles, per kind
NK_LIVE = NK_TILES + N_KINDS        # the live copies, per kind
NK_MELD = NK_LIVE + N_KINDS         # (type, tile) of each of four melds (-1: none)
NOW_KEY_LEN = NK_MELD + 2 * 4


def strong_play(dealer, others, fs, rules):
    """A thread's :class:`StrongPlay`: the tables at the dealer's and the others' bar,
    its ``FastScratch`` ``fs`` and the rule set's arrays, with fresh scratch."""
    live, use, held, mcount, readin = (np.zeros(N_KINDS, np.int64) for _ in range(5))
    return StrongPlay(dealer, others, fs, live, use, held, rules, mcount, readin,
                      np.full((2, NOW_KEY_LEN), -1, np.int64), np.zeros(1))


class PolicyHooks(NamedTuple):
    """The user-policy callbacks (numba ``cfunc`` of ``int64(int64[::1])``) asked by
    ``POLICY_USER`` players: one for the dealer, one for the others.  The engine passes
    ``None`` instead when no player has a user policy, and the asking code is then not
    compiled."""

    dealer: object
    others: object


class ValueAim(NamedTuple):
    """What a value-aware discard aims at (:func:`~.policy.value_discard`).

    Attributes
    ----------
    want : int
        Fans a direction must bring (the bar less the small-fan allowance).
    commit : int
        The need at or below which the player commits to its direction (8上).
    defend : bool
        破拉: keep one direction and hold back tiles the dealer could claim.
    """

    want: int
    commit: int
    defend: bool


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
    :mod:`mjkit.sim.policy`; not named ``view``, which numba reserves for arrays) and the
    tiles a player chose to exchange at 起手换牌 (``swap``: int64 (3,))."""

    pol: PolicyScratch
    score: ScoreScratch
    user_view: np.ndarray
    swap: np.ndarray


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
        All zeros: the copies in melds the need reading takes off (see ``shanten.wild_need``).
    seats : SEAT_DTYPE (4,)
        Each player's state.
    hand : HAND_DTYPE (1,)
        The hand's state, where the game stands included (``phase`` and the rest: a hand
        is played by ``game.advance`` in steps, and resumes from them).
    rng : uint64 (1,)
        The hand's random stream (:mod:`.rng`).
    act : int64 (4, 4)
        An outside player's answer per seat: ``[code, a, b, c]`` (the ``A_*`` codes of
        ``mjkit.table.actions``; ``A_NONE`` = 0: none yet).
    legal : int64 (LEGAL_MAX, 4)
        The actions open to the seat asked (``hand.n_legal`` rows, the same layout).
    ev : int32 (n, 4)
        The hand's events ``[EV_*, seat, a, b]`` (``hand.n_ev`` of them; n = 0: not kept).
    seat_policy : int64 (4,)
        Each seat's policy (``POLICY_*``); -1: the ``GameParams``' dealer / others policy.
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
    act: np.ndarray
    legal: np.ndarray
    ev: np.ndarray
    seat_policy: np.ndarray


#: Rows of ``Table.legal`` (the most a seat is ever offered: 14 discards, 4 kongs, a win).
LEGAL_MAX = 32
#: Rows of ``Table.ev`` a recorded hand has room for (a hand takes at most 144 tiles:
#: far fewer events).
EV_MAX = 1024


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
    # where the game stands (``game.advance`` resumes from here)
    ("phase", _I8),           # PH_*
    ("cur", _I8),             # the player whose turn it is
    ("w", _I8),               # the tile last drawn by ``cur`` (-1: the wall ran out)
    ("first_round", _I8),     # 1: no claim or kong yet, and the dealer has not drawn again
    ("replacement", _I8),     # 1: the tile in hand came from a kong
    ("claimed", _I8),         # 1: ``cur`` claimed a discard and discards only
    ("d", _I8),               # the last discard (or the tile added to a pung: PH_ROB)
    ("ex_seat", _I8),         # the next seat to exchange (PH_EXCHANGE)
    ("asked", _I8),           # bit q: outside seat q has answered on this discard or kong
    ("ask", _I8),             # what an outside seat is asked now (Q_*), 0: nothing
    ("ask_seat", _I8),
    ("n_legal", _I8),         # rows of Table.legal
    ("n_ev", _I8),            # events written (more than Table.ev holds: some were lost)
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
    "false_win",     # 1: the winner declared a hand below the bar (P胡; outside seats only)
    "from_seat",     # the seat that discarded the winning tile or whose kong was robbed, -1
    "win_tile",      # the winning tile's kind, -1 none
    "flags",         # the win's situation (layout.F_*: self-drawn, kong, last tile ...)
)])

# An outside seat's answer (``Table.act``, ``Table.legal`` rows ``[code, a, b, c]``);
# ``mjkit.table.actions`` reads and writes them.
A_NONE = 0          # no answer yet
A_DISCARD = 1       # a: the kind
A_CHOW = 2          # a: the chow's first kind
A_PUNG = 3          # a: the kind
A_KONG = 4          # a: the kind (on a discard, concealed or added: the situation says)
A_WIN = 5
A_PASS = 6
A_EXCHANGE = 7      # a, b, c: the kinds given up (-1: none)

# What an outside seat is asked (``hand.ask``).
Q_NONE = 0
Q_EXCHANGE = 1      # 起手换牌: up to three tiles
Q_TURN = 2          # its own turn: win, a kong or a discard
Q_DISCARD = 3       # after a claim: a discard
Q_CLAIM = 4         # another's discard: win, kong, pung, chow or pass
Q_ROB = 5           # a tile added to a pung: win (抢杠和) or pass

# Where a hand stands (``hand.phase``).
PH_EXCHANGE = 1     # 起手换牌, seat ``ex_seat`` next
PH_TURN = 2         # ``cur`` has drawn ``w`` (or claimed): the top of a turn
PH_OWN = 3          # ``cur``'s own turn: a self-drawn win, a kong, else the discard
PH_ROB = 4          # ``cur`` added ``d`` to a pung: may it be robbed?
PH_KONG_DRAW = 5    # ``cur`` declared a kong: the replacement from the back
PH_DISCARD = 6      # ``cur`` discards
PH_CLAIMS = 7       # ``cur`` discarded ``d``: wins, then 碰/杠, then 吃, else the next draw
PH_END = 8          # the hand is over (``OUTCOME_DTYPE``)

# Events (``Table.ev`` rows ``[EV_*, seat, a, b]``; ``mjkit.table.engine`` turns them into
# the record's events, docs/records.md).
EV_WILD = 1         # a: the wild kind turned
EV_DRAW = 2         # a: the kind, b: 1 from the back
EV_FLOWER = 3       # a: the flower (34..41) set aside
EV_DEALT = 4
EV_EXCHANGE = 5     # a: the kind given up, b: the tile that came (34..: a flower)
EV_DISCARD = 6      # a: the kind
EV_CHOW = 7         # a: the chow's first kind, b: the seat that discarded
EV_PUNG = 8         # a: the kind, b: the seat that discarded
EV_KONG = 9         # a: the kind, b: the seat that discarded (exposed, on a discard)
EV_CKONG = 10       # a: the kind (concealed)
EV_AKONG = 11       # a: the kind (added to a pung)
EV_WIN = 12         # a: the winning tile, b: the seat it came from (-1: self-drawn)
EV_FALSE_WIN = 13   # a, b: as EV_WIN; a declared hand below the bar (P胡)
EV_DRAWN_OUT = 14   # 荒牌
EV_ERROR = 15       # a user policy's bad answer (the hand stops)
