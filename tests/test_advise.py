"""mjkit.advise: what to discard, checked against win_chances, distance_to and brute force."""

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import mjkit
from mjkit import cli
from mjkit.advise import Advice, advise, default_draws, p_alone, percent
from mjkit.errors import HandError
from mjkit.shanten import read_hand_counts
from mjkit.tiles import parse_tiles, tile_from_str, tile_to_str, tiles_of_counts, tiles_to_str
from mjkit.winprob import win_chances

# (notation, options): 14 and 13 tiles, a meld, visible tiles, a wild tile, the graph
CASES = {
    "ready after E": ("123m234m345m67m99sE", dict(lianla=2, draws_left=2)),
    "13 tiles": ("123m234m345m67m99s", dict(lianla=2, draws_left=3)),
    "a meld": ("[123p]45m678m99s11pEE", dict(lianla=8, draws_left=2)),
    "visible": ("123m234m345m67m99sE", dict(draws_left=3, visible="5m8m9s")),
    "wild": ("123m234m345m67m9sEP", dict(lianla=2, draws_left=2, wild="P")),
    "graph": ("123m234m345m67m99sE", dict(lianla=2, draws_left=12)),
}
EXACT = [k for k in CASES if k != "graph"]


@functools.lru_cache(maxsize=None)
def _advice(name):
    hand, kw = CASES[name]
    return advise(hand, **kw)


def _parts(name):
    """Concealed counts, melds, the visible counts and the live pool of a case's 14 (13) tiles."""
    hand, kw = CASES[name]
    counts, melds, melded, seen = read_hand_counts(hand, None, kw.get("visible"))
    return counts, melds, seen, 4 - counts - melded - seen


def _after(name, row):
    """The hand left by a row's discard and the visible tiles with the discard among them."""
    counts, melds, seen, pool = _parts(name)
    h = counts.copy()
    vis = seen.copy()
    if row.tile is not None:
        h[tile_from_str(row.tile)] -= 1
        vis[tile_from_str(row.tile)] += 1
    return h, melds, vis, pool


@pytest.mark.parametrize("name", list(CASES))
def test_rows_are_win_chances(name):
    hand, kw = CASES[name]
    adv = _advice(name)
    kw = dict(kw)
    draws = kw.pop("draws_left")
    wc = win_chances(hand, draws, "dazhong32", **kw)
    assert [r.tile for r in adv.rows] == [c.tile for c in wc.choices]
    for r, c in zip(adv.rows, wc.choices):
        assert r.p_win == c.p_win
        assert r.exp_fans == c.exp_fans or (np.isnan(r.exp_fans) and np.isnan(c.exp_fans))
        assert r.exp_per_hand == (c.p_win * c.exp_fans if c.p_win > 0 else 0.0)
    assert (adv.bar, adv.lianla, adv.draws, adv.is_win, adv.cut) == (
        wc.bar, wc.lianla, wc.draws, wc.is_win, wc.cut)
    assert adv.best is adv.rows[0] and adv.p_win == wc.p_win
    assert isinstance(adv, Advice) and adv.chances.hand == wc.hand


@pytest.mark.parametrize("name", list(CASES))
def test_distance_is_distance_to(name):
    adv = _advice(name)
    for row in adv.rows:
        h, melds, vis, _ = _after(name, row)
        d = mjkit.distance_to(h, adv.bar, "dazhong32", lianla=adv.lianla, melds=melds,
                              visible=tiles_to_str(tiles_of_counts(vis)) or None, examples=1)
        assert row.distance == d.distance, row.tile


@pytest.mark.parametrize("name", ["ready after E", "13 tiles", "visible"])
def test_useful_tiles_are_those_that_lower_the_distance(name):
    adv = _advice(name)
    for row in adv.rows[:2]:
        h, melds, vis, pool = _after(name, row)
        lower = []
        for x in np.flatnonzero(pool > 0):
            h2 = h.copy()
            h2[x] += 1
            d = mjkit.distance_to(h2, adv.bar, "dazhong32", lianla=adv.lianla, melds=melds,
                                  visible=tiles_to_str(tiles_of_counts(vis)) or None,
                                  examples=1).distance
            if d is not None and d < row.distance:
                lower.append((tile_to_str(int(x)), int(pool[x])))
        assert list(row.useful) == lower, row.tile
        assert row.live == sum(n for _, n in lower)


def _brute_alone(need, draws, pool):
    """Probability by listing every set of ``draws`` tiles of a labelled pool."""
    labels = [k for k, (_, u) in enumerate(need) for _ in range(u)]
    labels += [-1] * (pool - len(labels))
    hits = total = 0
    for pick in itertools.combinations(range(pool), draws):
        got = [0] * len(need)
        for i in pick:
            if labels[i] >= 0:
                got[labels[i]] += 1
        total += 1
        hits += all(g >= n for g, (n, _) in zip(got, need))
    return Fraction(hits, total)


@pytest.mark.parametrize("need, pool", [
    ([(1, 4)], 10), ([(2, 3), (1, 2)], 11), ([(1, 1), (1, 3), (2, 4)], 12),
    ([(3, 3)], 7), ([(2, 1)], 6), ([], 5), ([(1, 2), (1, 2), (1, 2)], 9)])
def test_p_alone_is_the_brute_force(need, pool):
    for draws in range(pool + 1):
        assert p_alone(need, draws, pool) == float(_brute_alone(need, draws, pool)), draws
    # more draws than tiles: every tile is drawn
    assert p_alone(need, pool + 3, pool) == p_alone(need, pool, pool)


def test_p_alone_refuses_bad_counts():
    with pytest.raises(HandError, match="pool"):
        p_alone([(1, 4), (1, 4)], 3, 7)
    with pytest.raises(HandError, match="draws"):
        p_alone([(1, 4)], -1, 10)


@pytest.mark.parametrize("name", ["ready after E", "13 tiles", "a meld"])
def test_targets_are_nearest_accepted_hands_by_p_alone(name):
    adv = _advice(name)
    _, _, _, pool = _parts(name)
    for row in adv.rows:
        ps = [t.p_alone for t in row.targets]
        assert ps == sorted(ps, reverse=True)
        assert 0 < len(row.targets) <= 3
        for t in row.targets:
            assert t.counted >= adv.bar
            need = np.bincount(parse_tiles(t.need), minlength=34)
            assert need.sum() == row.distance + 1
            kinds = np.flatnonzero(need)
            assert t.p_alone == p_alone(list(zip(need[kinds], pool[kinds])), adv.draws,
                                        int(pool.sum()))
            assert {tile_to_str(int(k)) for k in kinds} <= {u for u, _ in row.useful}


def test_frame_columns():
    adv = _advice("ready after E")
    df = adv.to_frame()
    assert list(df.columns) == ["tile", "p_win", "exp_fans", "exp_per_hand", "distance",
                                "useful", "live", "targets"]
    assert len(df) == len(adv.rows) and df.tile.tolist() == [r.tile for r in adv.rows]
    first = adv.rows[0]
    assert df.useful[0] == " ".join(f"{t}×{n}" for t, n in first.useful)
    assert df.live[0] == first.live and df.distance[0] == first.distance
    assert df.targets[0].startswith(first.targets[0].hand + " " + percent(
        first.targets[0].p_alone))


@pytest.mark.parametrize("name", ["ready after E", "13 tiles", "wild"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_summary(name, lang):
    adv = _advice(name)
    text = adv.summary(lang)
    assert percent(adv.p_win) in text and adv.best.targets[0].hand in text
    if adv.best.tile is not None:
        assert adv.best.tile in text.splitlines()[0]
    assert (("财神" if lang == "zh" else "wild ") in text) == (adv.wild is not None)


def test_summary_of_a_legal_win_says_declare_it():
    adv = advise("123m456m789m111pEE", lianla=8, draws_left=1)
    assert adv.is_win and adv.win_fans >= adv.bar
    assert f"legal win worth {adv.win_fans}" in adv.summary("en")
    assert "宣布和牌" in adv.summary("zh")


def test_html_shows_tiles_bars_and_each_percentage():
    adv = _advice("ready after E")
    html = adv._repr_html_()
    assert html.count('class="tile"') >= 14 and "<svg" in html and "<image" in html
    for r in adv.rows:
        assert percent(r.p_win) in html
    assert "<table" in html


def test_default_draws():
    assert default_draws(0) == 17 and default_draws(8) == 15 and default_draws(200) == 0
    adv = advise("123m234m345m67m99s", visible="1p2p3p4p5p6p7p8p")
    assert adv.draws == 15


@pytest.mark.parametrize("hand, kw, match", [
    ("11111m234m345m67m9s", {}, "5th copy"),
    ("123m234m345m67m9s", {}, "12"),
    ("123m234m345m67m99sE", {"draws_left": -1}, "draws_left"),
    ("123m234m345m67m99sE", {"draws_left": 5, "mode": "exact"}, "draws_left"),
    ("123m234m345m67m99sE", {"top_targets": 51}, "top_targets"),
    ("123m234m345m67m99sE", {"mode": "fastest"}, "mode"),
    ("123m234m345m67m99sE", {"lianla": 2, "seat_wind": "S"}, "dealer|seat"),
])
def test_bad_input_is_a_hand_error(hand, kw, match):
    with pytest.raises(HandError, match=match):
        advise(hand, **kw)


def test_bad_language_is_a_hand_error():
    adv = _advice("13 tiles")
    with pytest.raises(HandError, match="lang"):
        adv.summary("fr")
    with pytest.raises(HandError, match="lang"):
        adv.to_html(lang="de")


def test_cli_prints_summary_and_table(capsys):
    code = cli.main(["advise", "123m234m345m67m99sE", "--lianla", "2", "--draws", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and not err
    adv = _advice("ready after E")
    lines = out.splitlines()
    assert lines[0] == adv.summary("en").splitlines()[0]
    assert "p_win" in out and "useful" in out
    for r in adv.rows:
        assert any(line.split()[:2] == [r.tile, percent(r.p_win)] for line in lines)


def test_cli_bad_hand_exits_2(capsys):
    code = cli.main(["advise", "123m234m345m67m99sEP", "--draws", "2"])
    out, err = capsys.readouterr()
    assert code == 2 and not out and err.startswith("error:") and "15" in err
    code = cli.main(["advise", "123m234m345m67m99sE", "--draws", "-1"])
    assert code == 2
    assert "draws_left" in capsys.readouterr().err


def test_cli_json(capsys):
    import json

    code = cli.main(["advise", "123m234m345m67m99s", "--lianla", "2", "--draws", "3",
                     "--json"])
    data = json.loads(capsys.readouterr().out)
    adv = _advice("13 tiles")
    assert code == 0 and data["rows"][0]["p_win"] == adv.p_win
    assert data["rows"][0]["useful"] == [list(u) for u in adv.best.useful]
    assert math.isclose(data["rows"][0]["targets"][0]["p_alone"], adv.best.targets[0].p_alone)


def test_useful_tiles_when_the_pattern_list_is_cut(monkeypatch):
    """Past the last capacity the useful kinds are completed one query per live kind."""
    import sys

    full = _advice("13 tiles")
    monkeypatch.setattr(sys.modules["mjkit.advise"], "_CAPACITY", (2,))
    hand, kw = CASES["13 tiles"]
    cut = advise(hand, **kw)
    assert [r.useful for r in cut.rows] == [r.useful for r in full.rows]
    assert [r.distance for r in cut.rows] == [r.distance for r in full.rows]
