"""Discards of the simulator's built-in policies in one-player games (:mod:`mjkit.sim.solo`).

The same policy kernels the four-player game plays (:func:`.policy.efficiency_discard`,
:func:`.policy.value_discard`), called for a batch of one-player games at once: closed
hands, no wild tiles, no claims.  Wins are judged by the caller with the batch scorer, so
nothing here links the evaluator.
"""

import numpy as np
from numba import njit

from .game_state import ValueAim
from .policy import POLICY_EFFICIENCY, efficiency_discard, policy_scratch, value_discard

N_KINDS = 34


@njit(cache=True)
def solo_discards(policy, hands, seen, active, seats, want, commit, dirs, tabs, out):
    """``out[g]``: the discard of game ``g``'s 14 tiles ``hands[g]`` (for ``active[g]``).

    Parameters
    ----------
    policy : int
        ``POLICY_EFFICIENCY`` or ``POLICY_VALUE``.
    hands, seen : int64 (n, 34)
        Concealed counts; the tiles the player has thrown (its only visible tiles).
    active : bool (n,)
    seats : SEAT_DTYPE (n,)
        Each game's player state (the value-aware aim kept from one discard to the next).
    want : int
        Fans a value-aware direction must bring (the bar less the small-fan allowance);
        at most 0, the value-aware player plays for speed alone (as in the game).
    commit : int
    dirs : Directions
    tabs : ShantenTables
    out : int64 (n,)
    """
    ps = policy_scratch()
    mtype = np.zeros(4, np.int64)
    mtile = np.zeros(4, np.int64)
    nocap = np.zeros(N_KINDS, np.int64)
    nm = np.int64(0)
    wild = np.int64(-1)
    aim = ValueAim(want, commit, False)
    for g in range(hands.shape[0]):
        if not active[g]:
            out[g] = -1
            continue
        c = hands[g]
        k = np.int64(-1)
        if policy != POLICY_EFFICIENCY and want > 0:
            k = value_discard(c, nm, mtype, mtile, wild, seats[g], aim, seen[g], np.int64(0),
                              dirs, tabs, ps)
        if k < 0:
            k, _ = efficiency_discard(c, nm, wild, nocap, seen[g], tabs, ps.sws)
        out[g] = k
