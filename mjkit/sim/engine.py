"""Play simulated hands with the numba game kernel (:mod:`mjkit._kernels.game`).

:func:`play_hands` plays ``n`` hands of one 连拉 level and returns one row per
hand; hand ``i`` of (``seed``, ``level``) is always the same hand, whatever
the number of threads, the chunking or the slice asked for (``first=``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from .._kernels import game as G
from .._kernels.bundles import ShantenTables
from .._kernels.game_state import OUTCOME_DTYPE, PolicyHooks, strong_play
from .._kernels.policy import (
    POLICY_BREAK, POLICY_STRONG, POLICY_STRONG_BREAK, POLICY_USER, POLICY_VALUE,
)
from ..errors import HandError, short_repr
from ..shanten import shanten_tables
from ..validate import INT32_MAX, whole
from ..validate import seed as _seed
from .directions import direction_arrays
from .params import MAX_FIRST, params
from .policy import POLICIES, label, resolve

__all__ = ["HandRecords", "play_hands", "POLICIES"]

# the outcome columns: the kernel's record fields, in order
_COLUMNS = OUTCOME_DTYPE.names


@dataclass
class HandRecords:
    """Outcomes of simulated hands.

    Attributes
    ----------
    rules : str
    level : int
        The dealer's 连拉 level.
    seed : int
    first : int
        Number of the first hand (hands ``first .. first + n - 1``).
    outcomes : numpy.ndarray
        int32 (n, 13): winner (seat 0 = dealer, -1 drawn out), self-drawn,
        turns' draws after the deal up to the win (replacements not counted),
        the winner's own draws, counted
        fans, total fans, tiles taken from the wall, the winner's flowers and
        melds, the hand's wild kind (-1 none), 1 if the win robbed a kong
        (抢杠和), a user policy's error code (0), and how many complete
        hands fell short of their player's bar (each a P胡 avoided).
    fan_counts : numpy.ndarray
        int16 (n, fans of the catalogue): the winning hand's counted fans
        (wide enough for the 连拉 line's count, the level, up to
        :data:`mjkit.validate.MAX_LEVEL`).
    fan_keys : list of str
    table : dict or None
        How a :class:`mjkit.table.Table` sets up these hands (rule set, players, options):
        :meth:`hand_record` plays hand ``i`` there again (None: a user policy played, or
        a study setting a table does not have: solitaire, deal_only, dealer_draws,
        minimum).
    """

    rules: str
    level: int
    seed: int
    first: int
    outcomes: np.ndarray
    fan_counts: np.ndarray
    fan_keys: list
    table: dict | None = None

    def hand_record(self, i):
        """The record of hand ``first + i`` (its events, ``docs/records.md``): the same
        kernel plays the same hand again at a :class:`mjkit.table.Table`, with every event
        kept, so runs that do not ask for records are not slowed down.

        Raises
        ------
        HandError
            For a hand outside the run, or a run a table cannot play again (a user policy:
            give the table the Python function itself; solitaire, deal_only,
            dealer_draws, minimum).
        """
        n = len(self.outcomes)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
            raise HandError(f"hand_record(i): i must be 0..{n - 1} (hand first + i), got "
                            f"{short_repr(i)}")
        if self.table is None:
            raise HandError("records are made at a mjkit.table.Table, which does not play "
                            "these hands: a user policy (give the table the Python function "
                            "itself) or solitaire / deal_only / dealer_draws / minimum")
        from ..table import Table
        t = Table(seed=self.seed, hand=self.first + int(i), level=self.level, **self.table)
        return t.events

    def __len__(self):
        return len(self.outcomes)

    def to_frame(self):
        """One row per hand (the columns of ``outcomes``)."""
        df = pd.DataFrame(self.outcomes, columns=list(_COLUMNS))
        df.index = pd.RangeIndex(self.first, self.first + len(df), name="hand")
        return df


def _run_threads(seed, first, par, rs, policies, out, fans):
    """Slices of the hands on numba's thread count (the kernel releases the GIL).

    Only what the players use is passed: the value-aware directions when a
    player plays ``value`` or ``break``, the callbacks when one has a user
    policy, the fast mode's tables (at the dealer's and the others' bar) and a
    scratch per thread when one plays ``strong``, else ``None`` (and the
    kernel is compiled without that code).
    """
    n = len(out)
    threads = max(1, min(numba.get_num_threads(), n // 64 or 1))
    tabs = ShantenTables(*shanten_tables())
    rules = rs.kernel_rules()
    codes = [code for code, _ in policies]
    dirs = direction_arrays(rs) if POLICY_VALUE in codes or POLICY_BREAK in codes else None
    hooks = PolicyHooks(*(hook for _, hook in policies)) if POLICY_USER in codes else None
    tables = None
    if POLICY_STRONG in codes or POLICY_STRONG_BREAK in codes:
        from ..winprob import fast_scratch, fast_tables    # winprob imports the scorer
        tables = (fast_tables(rs, max(par.minimum - par.dealer_bonus, 0)),
                  fast_tables(rs, par.minimum))
    cuts = [n * j // threads for j in range(threads + 1)]

    def run(j):
        lo, hi = cuts[j], cuts[j + 1]
        fast = None
        if tables is not None:
            fast = strong_play(*tables, fast_scratch(), rules)
        G.play_hands(seed, first + lo, par, tabs, rules, dirs, hooks, fast, out[lo:hi],
                     fans[lo:hi])

    if threads == 1:
        run(0)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(run, range(threads)))


def play_hands(n, rules="dazhong32", *, level=0, seed=0, first=0, solitaire=False,
               exhaust=120, round_wind="E", discard_wins=None, dealer_policy="efficiency",
               others_policy="efficiency", deal_only=False, minimum=None, wild=None, slack=4,
               commit=5, break_from=1, claims=True, exchange=False, dealer_draws=None):
    """Play ``n`` hands at one 连拉 level.

    Parameters
    ----------
    n : int
        Number of hands.
    rules : str or RuleSet
    level : int
        The dealer's 连N拉N level (``dazhong32``), 0..1000
        (:data:`mjkit.validate.MAX_LEVEL`): the dealer's wins count 4N more
        toward the bar.
    seed : int
        Hand ``i`` of (``seed``, ``level``) is always the same hand.
    first : int
        Number of the first hand, to play a slice of a longer run.
    solitaire : bool
        Only the dealer plays; the others draw and throw the tile drawn.  The
        dealer may still claim their throws (碰 and 明杠 from any seat, 吃 from
        the seat before it) and win on them where ``discard_wins`` allows:
        with ``claims=False`` it is a one-player game (own draws only).
    claims : bool
        Whether a discard may be claimed (吃, 碰, 明杠, and with ``discard_wins``
        a win on it or on a kong robbed).  False: every player keeps to its own
        draws (concealed kongs stay); ``discard_wins`` then defaults to, and
        must be, False.
    exhaust : int
        The hand is drawn out once this many tiles have been taken from the
        wall (seed 003: 120).
    round_wind : str or int
    discard_wins : bool, optional
        Whether a player may win on a discard or by robbing a kong (抢杠和)
        (default: not in ``dazhong32``, which is self-draw only, nor with
        ``claims=False``; yes otherwise).
    dealer_policy, others_policy : str, UserPolicy or function
        Names in :data:`POLICIES` (``"efficiency"``, ``"value"``,
        ``"break"``, ``"strong"``, ``"strong_break"``), or your own (see
        :mod:`mjkit.sim.policy`).
    exchange : bool
        起手换牌 (seed 001 A.c): after the deal and the flowers' replacement
        each player may swap up to three tiles for tiles at random places of
        the wall; the policy picks them.  Off by default here; a study turns
        it on for the 大众 rule sets (``RuleSet.table_exchange``).
    dealer_draws : int, optional
        The hand is drawn out once the dealer has had this many own draws
        (after the deal), if the wall (``exhaust``) lasts that long: the
        one-player reach study's draw count.  None: no such limit.
    deal_only : bool
        Stop after the deal: only the dealer's 天和 is checked (for the
        exact checks).
    minimum : int, optional
        Override the rule set's minimum (e.g. 0: every complete hand wins).
    wild : None, "turned" or str
        Wild tiles (财神): none, the kind of the first tile from the back of
        the wall that is not a flower (turned up for each hand; it stays in
        the wall), or a fixed kind such as ``"P"``.  A wild tile stands for
        any tile; it is never discarded by the built-in policies, never
        claimed, and never used in a claimed set.
    slack : int
        Fans a value-aware player expects from small fans besides its
        direction (the direction must bring the bar less this).
    commit : int
        A value-aware player keeps two directions until one needs at most
        this many tiles (5: eight of thirteen tiles fit, seed 000's 8上).
    break_from : int
        ``"break"`` players play 破拉 against a dealer at this 连拉 level
        or above, and play ``"value"`` otherwise (``"strong_break"``:
        ``"strong"``).

    Returns
    -------
    HandRecords
    """
    n = whole("n", n, 0, INT32_MAX)
    first = whole("first", first, 0, MAX_FIRST)
    seed = _seed(seed)
    rs, par = params(rules, level, solitaire=solitaire, exhaust=exhaust,
                     round_wind=round_wind, discard_wins=discard_wins,
                     dealer_policy=dealer_policy, others_policy=others_policy,
                     deal_only=deal_only, wild=wild, slack=slack, commit=commit,
                     break_from=break_from, claims=claims, exchange=exchange,
                     dealer_draws=dealer_draws)
    if minimum is not None:
        par = par._replace(minimum=int(whole("minimum", minimum, 0, INT32_MAX)))
    records = np.zeros(n, OUTCOME_DTYPE)
    # int16: a fan's count is at most the 连拉 level (<= MAX_LEVEL), never wrapped
    fans = np.zeros((n, rs.n_fans), np.int16)
    policies = (resolve(dealer_policy), resolve(others_policy))
    if n:
        _run_threads(seed, int(first), par, rs, policies, records, fans)
        bad = np.flatnonzero(records["error"])
        if len(bad):
            i = int(bad[0])
            raise HandError(f"hand {first + i}: a user policy discarded a tile not in hand "
                            f"(policies: dealer {label(dealer_policy)!r}, others "
                            f"{label(others_policy)!r})")
    from ..rules.catalogue import catalogue_lists

    # the records read as int32 columns (the same memory, in _COLUMNS order)
    outcomes = records.view(np.int32).reshape(n, len(_COLUMNS))
    table = None
    if policies[0][0] != POLICY_USER and policies[1][0] != POLICY_USER and not (
            solitaire or deal_only or dealer_draws or minimum is not None):
        table = dict(rules=rules, seats=(dealer_policy,) + (others_policy,) * 3,
                     round_wind=round_wind, wild=wild, exchange=exchange, exhaust=exhaust,
                     discard_wins=discard_wins, claims=claims, slack=slack, commit=commit,
                     break_from=break_from, wait_rule="unique")
    return HandRecords(rules=rs.name, level=par.level, seed=seed,
                       first=int(first), outcomes=outcomes, fan_counts=fans,
                       fan_keys=list(catalogue_lists().key[:rs.n_fans]), table=table)
