"""The fast mode: the target-chance kernel, its calibration map, win_chances/advise/solo use."""

import math

import numpy as np
import pytest

from mjkit import HandError, advise
from mjkit import fast_calibration as FC
from mjkit._kernels import target_chances as KT
from mjkit.shanten import read_hand_counts
from mjkit.sim.solo import solo_games, wilson
from mjkit.tiles import tile_from_str
from mjkit.winprob import fast_choice, fast_rates, p_alone, win_chances


def _counts(text):
    c, _, _, _ = read_hand_counts(text, None, ())
    return np.ascontiguousarray(c, np.int64)


def _rate(h, live, draws, pats, wild=-1, discard=True):
    out = KT.discard_chances_out()
    pats = np.asarray(pats, np.int64).reshape(-1, 34)
    KT.discard_chances(h, live, np.int64(draws), np.int64(wild), discard,
                       KT.TargetSet(pats, np.full(len(pats), 40.0)), out)
    return out


def test_hyper_tails_are_the_hypergeometric_law():
    out = np.zeros((5, 5))
    KT.hyper_tails(np.int64(100), np.int64(12), out)
    for u in range(5):
        for n in range(5):
            exact = sum(math.comb(u, k) * math.comb(100 - u, 12 - k) for k in range(n, u + 1))
            assert out[n, u] == pytest.approx(exact / math.comb(100, 12), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("hand,throw,target", [
    ("123m456m789m11pEE", "9s", "123m456m789m11pEEE"),      # a pung's third tile
    ("123m456m789m1pEEE", "9s", "123m456m789m11pEEE"),      # the pair's second tile
    ("123m456m78m11pEEE", "9s", "123m456m789m11pEEE"),      # a chow's end
])
def test_one_needed_kind_is_exact(hand, throw, target):
    h = _counts(hand)
    x = tile_from_str(throw)
    h[x] += 1
    t = _counts(target)
    live = np.ascontiguousarray(4 - h, np.int64)
    out = _rate(h, live, 10, t[None, :])
    need = np.maximum(t - _counts(hand), 0)
    at = np.flatnonzero(need)
    want = p_alone(list(zip(need[at], live[at])), 10, int(live.sum()))
    assert out.score[x] == pytest.approx(want, rel=1e-9)
    assert out.top[x] == out.score[x] == pytest.approx(out.union[x])
    assert out.short[x] == 1
    # throwing a tile the target needs makes it two tiles short
    y = int(np.flatnonzero(t & (h > 0))[0])
    assert out.short[y] == 2 and out.score[y] < out.score[x]


def test_several_kinds_multiply_tails_and_never_fall_below_the_exact_chance():
    rng = np.random.default_rng(3)
    for _ in range(40):
        h = np.zeros(34, np.int64)
        kinds = rng.choice(34, 6, replace=False)
        for k in kinds[:4]:
            h[k] = 3
        h[kinds[4]] = 2                         # 14 tiles: 4 pungs and a pair
        t = h.copy()
        # the target moves three pung tiles elsewhere: three kinds of need
        t[kinds[0]] = 0
        t[kinds[5]] = 3
        h2 = h.copy()
        h2[kinds[5]] = 1
        h2[kinds[1]] -= 1
        live = np.ascontiguousarray(4 - h2 - rng.integers(0, 2, 34) * (h2 < 3), np.int64)
        live = np.maximum(live, 0)
        draws = int(rng.integers(4, 18))
        out = _rate(h2, live, draws, t[None, :])
        for x in np.flatnonzero(h2):
            h13 = h2.copy()
            h13[x] -= 1
            need = np.maximum(t - h13, 0)
            at = np.flatnonzero(need)
            exact = p_alone(list(zip(need[at], live[at])), draws, int(live.sum()))
            assert out.score[x] >= exact - 1e-12
            if exact >= 0.01:       # a close approximation where it matters
                assert out.score[x] <= exact * 1.6
            assert out.short[x] == (need.sum() if exact > 0 or out.score[x] > 0 else 99)


def test_wild_tiles_held_and_drawn_are_jokers():
    t = _counts("123m456m789m11pEEE")
    w = tile_from_str("P")
    east = tile_from_str("E")
    # 12 of the target's tiles, a wild tile and a stray 9s: the wild is the missing East
    h = t.copy()
    h[east] -= 1
    h[tile_from_str("1m")] -= 1
    h[w] += 1
    h[tile_from_str("9s")] += 1
    h[tile_from_str("1m")] += 1
    live = np.ascontiguousarray(4 - h, np.int64)
    live[east] = 0                              # no live East: only a joker fills it
    live[w] = 0
    out = _rate(h, live, 5, t[None, :], wild=w)
    assert out.score[tile_from_str("9s")] == 1.0 and out.short[tile_from_str("9s")] == 0
    # throwing the wild leaves the East missing with none live
    assert out.score[w] == 0.0
    # with no wild held, the four live wild copies are the only way to the East
    h3 = t.copy()
    h3[east] -= 1
    h3[tile_from_str("9s")] += 1
    live3 = np.ascontiguousarray(4 - h3, np.int64)
    live3[east] = 0
    live3[w] = 4
    n = int(live3.sum())
    out = _rate(h3, live3, 6, t[None, :], wild=w)
    want = 1 - math.comb(n - 4, 6) / math.comb(n, 6)
    assert out.score[tile_from_str("9s")] == pytest.approx(want, rel=1e-9)
    assert out.short[tile_from_str("9s")] == 1


def test_a_thirteen_tile_hand_is_rated_in_slot_zero():
    t = _counts("123m456m789m11pEEE")
    h = t.copy()
    h[tile_from_str("E")] -= 1
    live = np.ascontiguousarray(4 - h, np.int64)
    out = _rate(h, live, 8, t[None, :], discard=False)
    want = p_alone([(1, 2)], 8, int(live.sum()))      # one of the two live Easts
    assert out.score[0] == pytest.approx(want, rel=1e-9)
    assert (out.score[1:] == -1).all()


def test_fast_choice_and_win_chances_agree():
    r = win_chances("123m234m345m67m9sEP", 12, min_fans=32, mode="fast")
    assert r.mode == "fast" and not r.exact
    c = _counts("123m234m345m67m9sEP")
    from mjkit.rules import get_rules
    out, pats = fast_rates(c, [], np.zeros(34, np.int64), np.ascontiguousarray(4 - c), 12,
                           get_rules("dazhong32"), 32, 0, (0, 0), -1)
    assert len(pats) > 0
    assert tile_from_str(r.best.tile) == fast_choice(out, c)
    assert all(0.0 <= ch.p_win <= 1.0 for ch in r.choices)
    assert len({ch.tile for ch in r.choices}) == 10
    thirteen = win_chances("123m234m345m67m9sE", 12, min_fans=32, mode="fast")
    assert thirteen.best.tile is None and 0.0 <= thirteen.p_win <= 1.0
    with pytest.raises(HandError):
        win_chances("123m234m345m67m9sEPP", 12, mode="fast")
    with pytest.raises(HandError):
        win_chances("123m234m345m67m9sEP", -1, mode="fast")


def test_fast_mode_with_melds_and_wild_tiles():
    r = win_chances("[123m]234m345m67m9sEP", 10, min_fans=8, mode="fast", wild="P")
    assert r.choices and all(0.0 <= c.p_win <= 1.0 for c in r.choices)
    a = advise("123m234m345m67m9sEP", lianla=2, draws_left=12, wild="P", mode="fast")
    assert "fast mode" in a.summary()
    assert a.to_frame()["tile"].iloc[0] == a.best.tile


def test_calibration_map_is_monotone_and_checked():
    info = FC.fit_info()
    assert info["decisions"] > 100_000 and info["seed"] != 2026   # the tests' seed is unseen
    for bar in (0, 8, 16, 24, 32, 40):
        for draws in (1, 5, 17, 30):
            for short in (1, 2, 3, 4, 5, 99):
                ps = [FC.fast_p_win(s, short, draws, bar) for s in (0, 0.01, 0.1, 0.5, 2, 20)]
                assert all(0.0 <= p <= 1.0 for p in ps)
                assert all(a <= b for a, b in zip(ps, ps[1:]))
    assert FC.fast_p_win(1.0, 1, 0, 0) == 0.0
    with pytest.raises(HandError):
        FC.fast_p_win(-0.5, 2, 10, 0)
    fit, table = FC._shipped()
    bad = {**table, "bars": list(reversed(table["bars"]))}
    with pytest.raises(RuntimeError, match="damaged"):
        FC._check(fit, bad)
    with pytest.raises(RuntimeError, match="damaged"):
        FC._check({**fit, "digest": "0" * 64}, table)


def test_fit_table_is_monotone_and_keeps_the_observed_rate():
    rng = np.random.default_rng(5)
    n = 6000
    lefts = rng.integers(1, 4, n)
    shorts = rng.integers(1, 5, n)
    scores = rng.exponential(0.5, n)
    p = np.clip(0.4 / shorts + 0.1 * scores, 0, 1)
    won = rng.random(n) < p
    table = FC.fit_table(np.zeros(n, int), lefts, shorts, scores, won)
    fitted = np.array([FC.fast_p_win(s, sh, m, 0, table) for s, sh, m in
                       zip(scores, shorts, lefts)])
    assert abs(fitted.mean() - won.mean()) < 0.01
    # a hand missing fewer tiles never reads as less likely
    for m in (1, 2, 3):
        by_short = [FC.fast_p_win(0.5, sh, m, 0, table) for sh in (1, 2, 3, 4)]
        assert all(a >= b for a, b in zip(by_short, by_short[1:]))
    with pytest.raises(ValueError):
        FC.fit_table([0], [1, 2], [1], [0.1], [True])


def test_fitted_knots_rise_despite_rounding():
    """Bins of nearly equal scores: their means may round an ulp out of order; the knots
    the table keeps (and its own check demands) still never fall."""
    base = 0.997209935789211         # 351 copies average above 395 copies of the next float
    assert np.full(351, base).mean() > np.full(395, np.nextafter(base, 2.0)).mean()
    scores = np.array([base] * 351 + [np.nextafter(base, 2.0)] * 395)
    n = len(scores)
    won = np.arange(n) % 7 == 0
    table = FC.fit_table(np.zeros(n, int), np.ones(n, int), np.ones(n, int), scores, won,
                         min_bin=150)
    for groups in table["knots"].values():
        for _, _, xs, ys, _ in groups:
            assert all(a <= b for a, b in zip(xs, xs[1:]))
            assert all(a <= b for a, b in zip(ys, ys[1:]))
    FC._check({"digest": FC.storage.digest_bytes(FC.storage.canonical_json(table))}, table)


def test_fast_solo_games_record_predictions_and_repeat():
    a = solo_games("fast", 30, bar=8, seed=4, trace=True, progress=False)
    b = solo_games("fast", 30, bar=8, seed=4, progress=False)
    assert (a.won == b.won).all() and np.allclose(a.first_p, b.first_p)
    assert np.isfinite(a.first_p).all() and ((a.first_p >= 0) & (a.first_p <= 1)).all()
    assert a.trace.shape[1] == 5 and len(a.trace) >= 30
    assert set(np.unique(a.trace[:, 0]).astype(int)) <= set(range(30))


def test_fast_mode_is_calibrated_on_unseen_walls():
    """Mean predicted p_win at the first decision within the 99% interval of the rate
    realised by the fast mode's own play (a sample of the benchmark's 95% check)."""
    r = solo_games("fast", 400, bar=0, seed=2026, progress=False)
    lo, hi = wilson(int(r.won.sum()), r.n, z=2.5758)
    assert lo <= float(r.first_p.mean()) <= hi, (r.first_p.mean(), lo, hi)


def test_cli_advise_in_fast_mode(capsys):
    from mjkit import cli
    code = cli.main(["advise", "123m234m345m67m9sEP", "--lianla", "2", "--draws", "12",
                     "--wild", "P", "--mode", "fast"])
    out = capsys.readouterr().out
    assert code == 0 and "fast mode" in out and "p_win" in out


def test_scores_equal_but_for_rounding_are_a_tie_in_kernel_and_python():
    from mjkit._kernels import fast_play as KF
    from mjkit.winprob import fast_order
    out = KT.discard_chances_out()
    h = np.zeros(34, np.int64)
    h[[3, 7, 20]] = [1, 2, 1]
    out.score[:] = -1.0
    out.score[3], out.score[7], out.score[20] = 0.3, 0.1 + 0.2, 0.25   # 0.3 < 0.1 + 0.2
    out.top[3] = out.top[7] = out.top[20] = 0.1
    assert KF.fast_pick(out, h) == 3 == fast_order(out, h)[0]
    out.top[7] = 0.2                            # a real difference in top decides
    assert KF.fast_pick(out, h) == 7 == fast_order(out, h)[0]
    assert list(fast_order(out, h)) == [7, 3, 20]
    assert list(fast_order(out, h, 20)) == [20, 7, 3]


def test_at_a_void_bar_the_fast_mode_plays_the_efficiency_discard():
    from mjkit._kernels import policy as KP
    from mjkit._kernels import solo as KS
    from mjkit._kernels.bundles import ShantenTables
    from mjkit._kernels.game_state import SEAT_DTYPE
    from mjkit.sim.directions import direction_arrays
    from mjkit.rules import get_rules
    from mjkit.shanten import shanten_tables
    from mjkit.winprob import fast_tables, fast_void_discard
    rs = get_rules("dazhong32")
    assert fast_tables(rs, 0).void and fast_tables(rs, 4).void
    assert not fast_tables(rs, 8).void and not fast_tables(rs, 32).void
    # the same walls, the same games: every discard is the efficiency player's
    fast = solo_games("fast", 120, bar=0, seed=31, progress=False)
    eff = solo_games("efficiency", 120, bar=0, seed=31, progress=False)
    assert (fast.won_at == eff.won_at).all() and (fast.hands == eff.hands).all()
    assert 0 < fast.won.sum() < 120
    # advise and win_chances lead with that discard, by the same kernel
    text = "12m258p369sESWNCF"
    c = _counts(text)
    live = np.ascontiguousarray(4 - c, np.int64)
    tabs = ShantenTables(*shanten_tables())
    want = np.zeros(1, np.int64)
    KS.solo_discards(np.int64(KP.POLICY_EFFICIENCY), c[None, :].copy(),
                     np.zeros((1, 34), np.int64), np.ones(1, bool), np.zeros(1, SEAT_DTYPE),
                     np.int64(0), np.int64(5), direction_arrays(rs), tabs, want)
    assert fast_void_discard(c, [], live, rs, 0, (0, 0), -1) == want[0]
    assert fast_void_discard(c, [], live, rs, 32, (0, 0), -1) == -1
    assert fast_void_discard(c, [], live, rs, 0, (1, 0), -1) == -1
    r = win_chances(text, 17, min_fans=0, mode="fast")
    assert tile_from_str(r.best.tile) == want[0]
    assert r.by_efficiency
    assert not win_chances(text, 17, min_fans=32, mode="fast").by_efficiency
    a = advise(text, lianla=8, draws_left=17, mode="fast")
    assert a.best.tile == r.best.tile and "tile efficiency" in a.summary()
    assert "牌效" in a.summary("zh")
    assert "tile efficiency" not in advise(text, lianla=0, draws_left=17, mode="fast").summary()


@pytest.mark.parametrize("bar", [8, 24])
def test_short_and_useful_are_those_of_the_nearest_targets(bar):
    """Per discard: the fewest tiles a reachable target misses, and the live copies of the
    kinds the targets missing that few need (the fast mode's first two keys)."""
    from mjkit.random_hands import random_closed_counts
    from mjkit.rules import get_rules
    from mjkit.winprob import fast_order
    rs = get_rules("dazhong32")
    checked = 0
    for h in random_closed_counts(12, 40 + bar, n_tiles=14):
        h = np.ascontiguousarray(h, np.int64)
        live = np.ascontiguousarray(4 - h, np.int64)
        live[np.flatnonzero(h)[:3]] = 0         # some kinds out of reach
        out, pats = fast_rates(h, [], np.zeros(34, np.int64), live, 12, rs, bar, 0, (0, 0),
                               -1)
        for x in np.flatnonzero(h):
            h13 = h.copy()
            h13[x] -= 1
            need = np.maximum(pats - h13, 0)
            ok = (need <= live).all(axis=1)
            if not ok.any():
                assert out.short[x] == 99 and out.useful[x] == 0
                continue
            missing = need.sum(axis=1)
            m = missing[ok].min()
            kinds = (need[ok & (missing == m)] > 0).any(axis=0)
            assert out.short[x] == m
            assert out.useful[x] == live[kinds].sum()
            checked += 1
        order = fast_order(out, h)
        keys = [(out.short[x], -out.useful[x]) for x in order]
        assert keys == sorted(keys)
    assert checked > 50
