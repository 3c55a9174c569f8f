"""One-player games (mjkit.sim.solo): the same walls for every policy, legal wins only."""

import numpy as np
import pytest

from mjkit import HandError, score
from mjkit.distance import nearest_patterns
from mjkit.rules import get_rules
from mjkit.sim import solo
from mjkit.tiles import tiles_of_counts, tiles_to_str, tile_to_str


def _text(h, last):
    """The 14 tiles ``h`` won on ``last``, self-drawn, in notation."""
    rest = h.copy()
    rest[last] -= 1
    return f"{tiles_to_str(tiles_of_counts(rest))} {tile_to_str(int(last))} | self_drawn"


def test_walls_are_seeded_shuffles_of_the_whole_set():
    a = solo.walls(7, 0, 5)
    assert (np.sort(a, axis=1) == np.repeat(np.arange(34), 4)).all()
    # game i of a seed does not depend on the slice asked for
    assert (solo.walls(7, 3, 2) == a[3:5]).all()
    assert not (solo.walls(8, 0, 1) == a[:1]).all()


@pytest.mark.parametrize("policy", ["efficiency", "value"])
@pytest.mark.parametrize("bar", [0, 8])
def test_wins_are_legal_at_the_bar_and_reproducible(policy, bar):
    r = solo.solo_games(policy, 150, bar=bar, seed=11, draws=17)
    again = solo.solo_games(policy, 150, bar=bar, seed=11, draws=17)
    assert (r.won == again.won).all() and (r.counted == again.counted).all()
    assert 0 < r.won.sum() < r.n
    wall = solo.walls(11, 0, 150)
    for g in np.flatnonzero(r.won)[:25]:
        h = r.hands[g]
        assert h.sum() == 14 and (h <= 4).all()
        at = r.won_at[g]
        if at == 0:
            continue
        assert r.last[g] == wall[g, 13 + at]
        res = score(_text(h, r.last[g]), rules="dazhong32")
        assert res.is_win and res.total >= bar and res.total == r.counted[g]
    # a lost game's last hand is no legal win on its last tile
    for g in np.flatnonzero(~r.won)[:25]:
        res = score(_text(r.hands[g], r.last[g]), rules="dazhong32")
        assert not (res.is_win and res.total >= bar)


def test_distance_policy_takes_the_least_distance():
    r = solo.solo_games("distance", 3, bar=8, seed=2, draws=2, progress=False)
    assert r.n == 3
    rs = get_rules("dazhong32")
    h = np.bincount(solo.walls(2, 0, 1)[0, :14], minlength=34).astype(np.int64)
    best = solo._Distance(rs, 8).one(h, np.zeros(34, np.int64))
    dist = {}
    for d in np.flatnonzero(h):
        h13 = h.copy()
        h13[d] -= 1
        over, _, _ = nearest_patterns(h13, [], np.zeros(34, np.int64), 4 - h, rs, 8, 0,
                                      (0, 0, True), 4096)
        dist[int(d)] = 13 - over if over >= 0 else 99
    assert dist[best] == min(dist.values())


def test_compare_policies_table():
    t = solo.compare_policies(200, bars=(0,), policies=("efficiency", "value"), seed=3)
    assert list(t.policy) == ["efficiency", "value"]
    assert ((t.lo <= t.rate) & (t.rate <= t.hi)).all()
    lo, hi = solo.wilson(20, 100)
    assert lo < 0.2 < hi and hi - lo < 0.17


def test_bad_arguments():
    with pytest.raises(HandError, match="policy"):
        solo.solo_games("greedy", 10)
    with pytest.raises(HandError, match="draws"):
        solo.solo_games("efficiency", 10, draws=200)
    with pytest.raises(HandError, match="n_games"):
        solo.solo_games("efficiency", 0)
