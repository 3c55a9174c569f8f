"""The strong player's ratings of hands with melds: the fast mode's targets, kept only where
the melds still stand and the hand, scored with them, still reaches the bar.

The fast mode (:mod:`.fast_play`) rates closed hands: its index holds closed complete
patterns accepted as closed, self-drawn hands.  A hand with melds is read in as the tiles
it holds with each meld's tiles added (a kong as three), and the index's nearest patterns
to those tiles are found as for a closed hand.  A pattern is then kept only if

* it holds every meld's tiles, and with them set aside (the concealed part the hand must
  complete) the rest is a complete hand *with those melds as melds*: the scorer
  (``evaluate.score_hand_row``) must accept it;
* its counted fans, scored with the melds exposed (a claimed set loses 不求人 and 门前清,
  an exposed pung is not concealed), reach the bar of the tables.

A melded hand never scores more than the same tiles closed, so the closed index loses no
pattern the filter would keep; but only the nearest closed patterns are looked at, and
when none survives the rating is empty (the caller plays the tile-efficiency discard).
The targets left are the concealed parts, so :func:`.target_chances.discard_chances`
rates the concealed tiles as for any hand.

Each pattern is scored once, in the index's situation (East seat and round, self-drawn,
no flowers, no wild tile: the pattern's tiles are plain), with a tile the hand is still
missing as the winning tile (the last tile drawn is one of them), or the first concealed
kind when none is missing.  Everything here is iterative and every table an argument.
"""

import numpy as np
from numba import njit

from .evaluate import score_hand_row
from .fast_play import fast_targets
from .layout import (
    COUNTS, DEC_COUNTED, F_SELF_DRAWN, FLAGS, MELDS, ROW_LEN, SEAT, WILD, WIN,
)
from .policy import read_in
from .target_chances import TargetSet, discard_chances

N_KINDS = 34


@njit(cache=True)
def _keeps(pat, c, nm, mtype, mtile, mcount, bar, rules, sc):
    """Whether pattern ``pat`` (the read-in tiles) keeps the melds and reaches ``bar`` with
    them; if so ``pat`` becomes its concealed part."""
    for k in range(N_KINDS):
        if pat[k] < mcount[k]:
            return False
    row = sc.row
    for i in range(ROW_LEN):
        row[i] = 0
    win = -1
    for k in range(N_KINDS):
        x = pat[k] - mcount[k]
        row[COUNTS + k] = x
        if win < 0 and x > c[k]:
            win = k
    if win < 0:
        for k in range(N_KINDS):
            if row[COUNTS + k] > 0:
                win = k
                break
    for i in range(nm):
        row[MELDS + 2 * i] = mtype[i]
        row[MELDS + 2 * i + 1] = mtile[i]
    row[WIN] = win
    row[FLAGS] = F_SELF_DRAWN
    row[SEAT] = 0
    row[WILD] = -1
    total = score_hand_row(row, rules, sc.fan, sc.raw, sc.dec, sc.ws)
    if total < 0 or sc.dec[DEC_COUNTED] < bar:
        return False
    for k in range(N_KINDS):
        pat[k] -= mcount[k]
    return True


@njit(cache=True)
def melded_targets(c, nm, mtype, mtile, wild, ft, strong, sc):
    """The targets of concealed tiles ``c`` with ``nm`` melds (``mtype``, ``mtile``) into
    ``strong.fs.targets`` (their concealed parts), the live copies read from
    ``strong.live``; returns how many.  With no melds, the fast mode's own targets.

    ``strong`` is the ``game_state.StrongPlay`` bundle (its ``rules``, and ``mcount`` and
    ``readin`` as scratch); ``sc`` a ``game_state.ScoreScratch``.
    """
    fs = strong.fs
    if nm == 0:
        return fast_targets(c, strong.live, wild, ft, fs)
    h = strong.readin
    read_in(c, nm, mtype, mtile, np.int64(-1), h)   # wild tiles kept: the query reads them
    mcount = strong.mcount
    for k in range(N_KINDS):
        mcount[k] = h[k] - c[k]
    n = fast_targets(h, strong.live, wild, ft, fs)
    kept = 0
    for i in range(n):
        pat = fs.targets[i]
        if _keeps(pat, c, nm, mtype, mtile, mcount, ft.bar, strong.rules, sc):
            if kept < i:
                fs.targets[kept, :] = pat
            kept += 1
    return kept


@njit(cache=True)
def melded_rate(c, nm, mtype, mtile, wild, draws, discard, ft, strong, sc):
    """Rate each discard of ``c`` (or ``c`` itself, ``discard`` False) into
    ``strong.fs.out`` against :func:`melded_targets`, ``draws`` draws left; returns the
    number of targets (0: nothing rated)."""
    n = melded_targets(c, nm, mtype, mtile, wild, ft, strong, sc)
    if n > 0:
        fs = strong.fs
        discard_chances(c, strong.live, draws, wild, discard,
                        TargetSet(fs.targets[:n], fs.fans[:n]), fs.out)
    return n
