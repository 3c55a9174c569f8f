"""``mjkit.targets`` and its catalogue: the combinations, their distances
against a brute force, and the 6看 7停 8上 advice."""

from __future__ import annotations

import numpy as np
import pytest

import mjkit
from mjkit import HandError, exact
from mjkit.distance import distance_to
from mjkit.rules.catalogue import fan_catalogue
from mjkit.targets import seed_rows, target_catalogue, targets
from mjkit.tiles import parse_tiles

try:
    from brute import all_draws, complete_rows, sub_multisets
except ImportError:  # pragma: no cover - tests/ made a package
    from tests.brute import all_draws, complete_rows, sub_multisets

RULES = "dazhong32"


def _counts(text):
    return np.bincount(parse_tiles(text), minlength=34)


@pytest.fixture(scope="module")
def draws():
    return all_draws()


@pytest.fixture(scope="module")
def catalogue():
    return target_catalogue(RULES)


def test_catalogue_reaches_the_bar(catalogue):
    rs = mjkit.get_rules(RULES)
    cat = fan_catalogue()
    pts = dict(zip(cat["key"], rs.points_list))
    kinds = dict(zip(cat["key"], cat["kind"]))
    for r in catalogue.itertuples():
        keys = r.fans.split()
        total = sum(pts[k] for k in keys)
        assert total == r.points
        if r.kind == "fan":
            assert len(keys) == 1 and total >= 32
        elif r.kind == "pair":
            assert len(keys) == 2 and total >= 32 and max(pts[k] for k in keys) < 32
        elif r.kind == "fan + small fans":
            assert len(keys) == 1 and 16 <= total < 32
        assert all(kinds[k] == "hand" for k in keys) or "seed" in r.source


def test_catalogue_holds_every_seed_combination(catalogue):
    listed = {tuple(sorted(f.split())) for f in catalogue["fans"]}
    level8 = target_catalogue(RULES, lianla=8)
    listed8 = {tuple(sorted(f.split())) for f in level8["fans"]}
    for row in seed_rows():
        key = tuple(sorted(row["fans"].split()))
        if int(row["level"]) == 0:
            assert key in listed, row
        assert key in listed8, row
    # 七对 never wins on the last copy: the evaluator rules the seed's 七对 + 和绝张 out
    pairs_last = catalogue[catalogue["fans"].str.contains("LAST_TILE")]
    assert len(pairs_last) and not pairs_last["possible"].any()
    assert pairs_last["note"].str.contains("impossible").all()
    # 清一色 + 一色三步高 is the first seed line and reachable closed
    row = catalogue[catalogue["fans"] == "FULL_FLUSH PURE_SHIFTED_CHOWS"]
    assert len(row) == 1 and bool(row["possible"].iat[0]) and "seed" in row["source"].iat[0]


def test_lianla_widens_the_catalogue():
    bar32 = target_catalogue(RULES)
    bar20 = target_catalogue(RULES, lianla=3)
    singles = set(bar20.loc[bar20["kind"] == "fan", "fans"])
    assert "FULL_FLUSH" in singles and "SEVEN_PAIRS" in singles       # 24 >= 20
    assert "FULL_FLUSH" not in set(bar32.loc[bar32["kind"] == "fan", "fans"])


class _Brute:
    """Every complete hand within ``max_d`` of ``h`` (kept subsets plus draws), scored once."""

    def __init__(self, h, draws, max_d=2):
        self.levels = []
        n = int(h.sum())
        unseen = 4 - h
        for d in range(-1, max_d + 1):
            keep = 13 - d
            add = 14 - keep
            if keep > n:
                continue
            if add == 0:
                rows = h[None].copy()
            else:
                a = draws[add]
                a = a[(a <= unseen).all(axis=1)]
                rows = np.concatenate([K + a for K in sub_multisets(h, keep)])
            rows = complete_rows(rows[rows.max(axis=1) <= 4])
            if len(rows):
                self.levels.append((d, exact.best_scores(rows, RULES)))

    def distance(self, keys, bar, max_d=2):
        """Smallest d to a complete hand carrying ``keys`` with >= bar counted fans."""
        for d, b in self.levels:
            if d > max_d:
                break
            cols = [b.keys.index(k) for k in keys]
            if ((b.counted >= bar) & (b.fan_counts[:, cols] > 0).all(axis=1)).any():
                return d
        return None


@pytest.mark.parametrize("hand", [
    "123m234m345m678m9m",          # 清一色 + 一色三步高, ready
    "123m234m345m67m99s",          # one suit away
    "1122m3344p5566s7z",           # seven pairs
    "111m222m333m4p5p6s7s",          # 一色三节高
])
def test_distances_against_brute_force(hand, draws):
    h = _counts(hand)
    res = targets(h, top=3)
    plain = distance_to(h, 32, RULES).distance
    assert res.distance >= plain
    brute = _Brute(h, draws)
    checked = 0
    for r in res.table.itertuples():
        if r.distance > 2:
            continue
        keys = r.fans.split()
        want = brute.distance(keys, 32)
        assert r.distance == want, (hand, r.combination_en)
        checked += 1
    assert checked or res.distance > 2
    # entries the table leaves out are farther than 2 (or out of reach)
    shown = set(res.table["fans"])
    for r in target_catalogue(RULES).itertuples():
        if r.possible and r.fans not in shown and r.kind != "seed":
            assert brute.distance(r.fans.split(), 32) is None, (hand, r.combination_en)


def test_examples_carry_their_combination():
    res = targets("123m456p789s1122zE", top=6)
    assert len(res.table) > 10
    assert list(res.table["rank"][:3]) == [1, 2, 3]
    assert (np.diff(res.table["distance"].to_numpy()) >= 0).all()
    for r in res.table.head(6).itertuples():
        s = mjkit.score(r.example, rules=RULES, self_drawn=True)
        keys = {f.key for f in s.fans}
        assert set(r.fans.split()) <= keys, r.combination_en
        assert s.counted_points == r.counted >= 32
        assert r.distance == 13 - r.fit


def test_advice_follows_the_seed():
    assert "8上" in targets("123m234m345m678m9m").advice
    assert "7停" in targets("2468m13579p2468s").advice
    far = targets("147m258p369sESWNC")
    assert far.fit <= 7
    assert "合用" in far.summary("zh")


def test_visible_tiles_are_respected():
    free = targets("123m234m345m678m9m")
    gone = targets("123m234m345m678m9m", visible="3m6m9m9m9m")
    assert gone.table["need"].str.contains("9m").sum() == 0
    assert gone.distance >= free.distance


def test_bad_input():
    with pytest.raises(HandError, match="closed"):
        targets("[123m]234m345m678m9m")
    with pytest.raises(HandError, match="top"):
        targets("123m234m345m678m9m", top=-1)
    with pytest.raises(HandError, match="wrong number"):
        targets("123m")
    with pytest.raises(HandError, match="连拉"):
        targets("123m234m345m678m9m", rules="gb", lianla=1)
