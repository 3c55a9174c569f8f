"""The study layer of the simulator: chunks, checkpoints, Dask, saved results."""

from __future__ import annotations

import json
import math

import numba
import numpy as np
import pandas as pd
import pytest

import mjkit
from mjkit import HandError, storage
from mjkit.sim import (StudyTable, backend, default_study, load_results, play_hands, results,
                       simulate, streak_chain, study_combinations)

from user_policies import highest

LEVELS = [0, 8]
HANDS = 400
SEED = 5


def _study(**kw):
    args = {"levels": LEVELS, "hands": HANDS, "seed": SEED, "chunk": 150, "progress": False}
    args.update(kw)
    return simulate("dazhong32", **args)


def assert_same_study(a, b):
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
    pd.testing.assert_frame_equal(a.combinations, b.combinations)
    pd.testing.assert_frame_equal(a.fan_totals, b.fan_totals)
    assert a.stats == b.stats


@pytest.fixture(scope="module")
def base():
    return _study()


@pytest.fixture(scope="module")
def direct():
    """The same hands played in one call per level (the study's table: a turned wild and
    起手换牌)."""
    return {level: play_hands(HANDS, "dazhong32", level=level, seed=SEED, dealer_policy="value",
                              others_policy="break", wild="turned", exchange=True)
            for level in LEVELS}


def test_simulate_is_a_frame_per_level_with_the_rest_attached(base):
    assert isinstance(base, pd.DataFrame) and isinstance(base, StudyTable)
    assert list(base.index) == LEVELS and base.index.name == "level"
    assert list(base["bar"]) == [32, 0]
    assert (base["hands"] == HANDS).all()
    parts = base["dealer_wins"] + base["other_wins"] + base["drawn_out"]
    assert (parts == HANDS).all()
    assert base["p_dealer"].add(base["p_other"]).add(base["p_drawn_out"]).sub(1).abs().max() < 1e-12
    # anything derived is a plain DataFrame
    assert type(base[["p_dealer"]]) is pd.DataFrame and type(base.copy()) is pd.DataFrame
    assert base.params["levels"] == LEVELS and base.params["seed"] == SEED
    assert base.params["engine"]["dealer_policy"] == "value"
    assert base.params["engine"]["others_policy"] == "break"
    assert base.params["engine"]["wild"] == "turned"       # dazhong32's table
    assert base.info["version"] == mjkit.__version__
    assert base.streak is None                     # levels 0..8 not all played
    json.dumps(base.params)                        # plain JSON
    assert mjkit.simulate is simulate


def test_counts_equal_a_direct_count_of_the_same_hands(base, direct):
    combos = base.combinations
    ft = base.fan_totals
    rs = mjkit.get_rules("dazhong32")
    lianla = rs.fan_index("LIANLA")
    for level, rec in direct.items():
        o = rec.outcomes
        w = o[:, 0]
        row = base.loc[level]
        assert row["dealer_wins"] == (w == 0).sum()
        assert row["other_wins"] == (w > 0).sum()
        assert row["drawn_out"] == (w < 0).sum()
        wins = w >= 0
        if wins.any():
            assert row["mean_draws_to_win"] == pytest.approx(o[wins, 2].mean())
            assert row["mean_own_draws_to_win"] == pytest.approx(o[wins, 3].mean())
        if (w == 0).any():
            assert row["mean_counted_dealer"] == pytest.approx(o[w == 0, 4].mean())
        present = rec.fan_counts > 0
        keys = rec.fan_keys
        mine = combos[combos["level"] == level]
        for fans, k, kd in zip(mine["fans"], mine["k"], mine["k_dealer"]):
            has = present[:, [keys.index(f) for f in fans.split()]].all(axis=1)
            assert k == (has & wins).sum(), fans
            assert kd == (has & (w == 0)).sum(), fans
        # counted fans of the win without the 连拉 line
        hand = o[:, 4] - rec.fan_counts[:, lianla].astype(int) * 4
        got = ft[ft["level"] == level].set_index("fans")
        values, counts = np.unique(hand[wins], return_counts=True)
        assert list(got.index) == list(values)
        assert list(got["wins"]) == list(counts)
        assert got["dealer"].sum() == (w == 0).sum()
        if wins.any():
            assert got["p_win"].sum() == pytest.approx(1.0)
    # something is counted at all: level 8 has dealer wins and common fans
    assert base.loc[8, "dealer_wins"] > 20
    assert combos[combos["level"] == 8]["k"].max() > 10


def test_intervals_contain_the_estimates(base):
    for name in ("dealer", "other", "drawn_out"):
        p, lo, hi = base[f"p_{name}"], base[f"p_{name}_lo"], base[f"p_{name}_hi"]
        assert ((lo <= p) & (p <= hi) & (lo >= 0) & (hi <= 1)).all(), name
    c = base.combinations
    for name in ("p_hand", "p_dealer_hand"):
        assert ((c[f"{name}_lo"] <= c[name]) & (c[name] <= c[f"{name}_hi"])).all()
    ok = c["wins"] > 0
    assert ((c.loc[ok, "p_win_lo"] <= c.loc[ok, "p_win"])
            & (c.loc[ok, "p_win"] <= c.loc[ok, "p_win_hi"])).all()
    assert (c["p_hand"] == c["k"] / c["hands"]).all()


def test_same_numbers_whatever_the_chunks_and_threads(base):
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _study(chunk=HANDS)                 # one chunk per level, one thread
    finally:
        numba.set_num_threads(threads)
    assert_same_study(one, base)
    other = _study(seed=SEED + 1)
    assert other.stats != base.stats


def test_default_combinations():
    table = study_combinations("dazhong32")
    seed_rows = table[table["source"].str.contains("seed")]
    assert len(seed_rows) == 9                       # every row of data/targets.csv
    assert "FULL_FLUSH PURE_SHIFTED_CHOWS" in set(table["fans"])
    singles = table[table["size"] == 1]
    rs = mjkit.get_rules("dazhong32")
    assert len(singles) == len(rs.used_fans()) - 1   # every scored fan but 连拉
    assert "LIANLA" not in set(table["fans"])
    assert not table["fans"].duplicated().any()
    gb = study_combinations("gb")                    # seed 000 is about 32番连拉
    assert not gb["source"].str.contains("seed").any()


def test_user_combinations(direct):
    df = _study(levels=[8], chunk=HANDS,
                combinations=["清一色 + 一色三步高", "Seven Pairs", ("FULL_FLUSH",), "MELDED_KONG"])
    c = df.combinations
    assert list(c["fans"]) == ["FULL_FLUSH PURE_SHIFTED_CHOWS", "SEVEN_PAIRS", "FULL_FLUSH",
                               "MELDED_KONG"]
    assert (c["source"] == "user").all()
    rec = direct[8]
    full = rec.fan_counts[:, rec.fan_keys.index("FULL_FLUSH")] > 0
    assert c.loc[2, "k"] == (full & (rec.outcomes[:, 0] >= 0)).sum()
    with pytest.raises(HandError, match="unknown fan"):
        study_combinations("dazhong32", ["清一色 + 不存在"])
    with pytest.raises(HandError, match="not scored"):
        study_combinations("gb", ["二五八将"])


def test_resume_after_an_interruption_gives_the_same_numbers(base, tmp_path, monkeypatch):
    folder = tmp_path / "ck"
    real = backend.chunk_stats
    calls = []

    def dies_after_three(payload, level, c):
        if len(calls) == 3:
            raise KeyboardInterrupt("killed")
        calls.append((level, c))
        return real(payload, level, c)

    monkeypatch.setattr(backend, "chunk_stats", dies_after_three)
    with pytest.raises(KeyboardInterrupt):
        _study(checkpoint=folder)
    monkeypatch.setattr(backend, "chunk_stats", real)
    saved = sorted(p.name for p in folder.iterdir())
    assert saved == sorted(["study.json"] + [f"L{lv}_C{c}.json" for lv, c in calls])
    assert not [p for p in folder.iterdir() if p.suffix == ".tmp"]
    resumed = _study(checkpoint=folder)
    assert resumed.info["chunks_resumed"] == 3 and resumed.info["chunks_played"] == 3
    assert_same_study(resumed, base)
    again = _study(checkpoint=folder)              # everything finished: nothing is played
    assert again.info["chunks_played"] == 0
    assert_same_study(again, base)


def test_checkpoint_of_another_study_is_refused(tmp_path):
    folder = tmp_path / "ck"
    _study(levels=[8], hands=100, chunk=100, checkpoint=folder)
    with pytest.raises(HandError, match="other parameters.*seed"):
        _study(levels=[8], hands=100, chunk=100, seed=SEED + 1, checkpoint=folder)
    with pytest.raises(HandError, match="other parameters"):
        _study(levels=[8], hands=100, chunk=100, checkpoint=folder, round_wind="S")
    (tmp_path / "file").write_text("x")
    with pytest.raises(HandError, match="is a file"):
        _study(levels=[8], hands=100, checkpoint=tmp_path / "file")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    with pytest.raises(HandError, match="not a mjkit checkpoint"):
        _study(levels=[8], hands=100, checkpoint=other)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def test_dask_cluster_gives_the_same_numbers(base, client, tmp_path):
    remote = _study(client=client, checkpoint=tmp_path / "ck")
    assert remote.info["backend"] == "dask" and remote.info["chunks_played"] == 6
    assert_same_study(remote, base)
    assert len(list((tmp_path / "ck").glob("L*_C*.json"))) == 6
    # the local run resumes the Dask run's checkpoint: nothing left to play
    local = _study(checkpoint=tmp_path / "ck")
    assert local.info["chunks_played"] == 0
    assert_same_study(local, base)


def test_user_policies_locally_and_on_dask(client):
    from mjkit.sim import user_policy

    policy = user_policy(highest)
    args = {"levels": [0], "hands": 240, "seed": 4, "chunk": 120, "progress": False,
            "others_policy": "efficiency"}
    local = simulate("gb", dealer_policy=policy, **args)
    rec = play_hands(240, "gb", seed=4, dealer_policy=policy)
    assert local.loc[0, "dealer_wins"] == (rec.outcomes[:, 0] == 0).sum()
    assert local.params["engine"]["dealer_policy"] == "highest"
    assert local.stats != simulate("gb", **args).stats          # the policy is used
    remote = simulate("gb", dealer_policy=policy, client=client, **args)
    assert_same_study(remote, local)


def test_engine_options_are_passed_and_saved():
    df = simulate("gb", levels=[0], hands=200, seed=2, chunk=120, progress=False,
                  round_wind="S", exhaust=100)
    rec = play_hands(200, "gb", seed=2, round_wind="S", exhaust=100, dealer_policy="value",
                     others_policy="break")
    assert df.loc[0, "dealer_wins"] == (rec.outcomes[:, 0] == 0).sum()
    assert df.loc[0, "other_wins"] == (rec.outcomes[:, 0] > 0).sum()
    assert df.params["engine"]["round_wind"] == "S" and df.params["engine"]["exhaust"] == 100
    assert df.loc[0, "self_drawn_wins"] < df.loc[0, "dealer_wins"] + df.loc[0, "other_wins"]
    with pytest.raises(HandError, match="sets first itself"):
        simulate("gb", levels=[0], hands=10, first=3, progress=False)
    with pytest.raises(HandError, match="unknown policy"):
        simulate("gb", levels=[0], hands=10, dealer_policy="magic", progress=False)


def test_options_are_stored_as_plain_json():
    from mjkit.sim.study import _jsonable

    class Policy:
        name = "my policy"

    def my_policy():
        pass

    assert _jsonable(Policy()) == "my policy"
    assert _jsonable(my_policy) == "my_policy"
    assert _jsonable((1, np.int64(2), [np.float32(0.5)], {"a": None})) == [1, 2, [0.5], {"a": None}]


def test_solitaire():
    df = _study(levels=[8], hands=200, chunk=200, solitaire=True)
    assert df.loc[8, "other_wins"] == 0 and df.loc[8, "dealer_wins"] > 10
    assert df.params["engine"]["solitaire"] is True


def test_save_and_load(base, tmp_path):
    path = base.save("small", tmp_path)
    assert path == tmp_path / "small.json"
    data = storage.read_sealed_json(path)       # sealed: a checksum over its content
    assert data["info"]["version"] == mjkit.__version__
    assert data["params"]["hands"] == HANDS and data["params"]["engine"]["exhaust"] == 120
    for suffix in (".csv", ".combinations.csv", ".fan_totals.csv"):
        assert (tmp_path / f"small{suffix}").exists()
    csv = pd.read_csv(tmp_path / "small.csv", index_col="level")
    np.testing.assert_allclose(csv["p_dealer"], base["p_dealer"])
    for ref in (tmp_path / "small.json", tmp_path / "small.csv", str(tmp_path / "small.csv")):
        assert_same_study(load_results(ref), base)
    loaded = load_results("small", tmp_path)
    assert_same_study(loaded, base)
    assert loaded.params == base.params
    with pytest.raises(HandError, match="no saved study"):
        load_results("missing", tmp_path)


def test_streak_and_plot_of_a_full_study(tmp_path):
    df = _study(levels=range(9), hands=60, chunk=60)
    chain = df.streak
    pd.testing.assert_frame_equal(chain, streak_chain(pd.DataFrame(df)))
    assert chain.loc[1, "p_reach"] == pytest.approx(df.loc[0, "p_dealer"])
    assert chain.attrs["expected_length"] >= chain.loc[1, "p_reach"]
    # joint intervals: the products of Bonferroni-widened per-level intervals
    assert (chain["p_reach_lo"] <= chain["p_reach"]).all()
    assert (chain["p_reach"] <= chain["p_reach_hi"]).all()
    assert chain.loc[1, "p_reach_hi"] > df.loc[0, "p_dealer_hi"]       # wider than one level's
    assert chain.loc[8, "p_reach_hi"] > 0
    a = chain.attrs
    assert a["expected_length_lo"] <= a["expected_length"] <= a["expected_length_hi"]
    text = df.summary()
    assert "连8拉8" in text and "expected length" in text
    df.save("full", tmp_path)
    assert (tmp_path / "full.streak.csv").exists()
    out = tmp_path / "full.png"
    df.plot(out)
    assert out.stat().st_size > 1000


def test_default_study_loads_saved_results_without_playing(tmp_path, monkeypatch):
    monkeypatch.setenv("MJKIT_RESULTS_DIR", str(tmp_path))
    monkeypatch.setitem(results.DEFAULT_STUDY, "levels", [8])
    monkeypatch.setitem(results.DEFAULT_STUDY, "hands", 100)
    made = default_study(progress=False)
    assert (tmp_path / "default.json").exists()
    assert (tmp_path / "default.checkpoint" / "study.json").exists()
    import mjkit.sim.study as study

    def no_play(*a, **k):
        raise AssertionError("played hands")

    monkeypatch.setattr(study, "simulate", no_play)
    assert_same_study(default_study(), made)
    monkeypatch.setitem(results.DEFAULT_STUDY, "hands", 200)
    with pytest.warns(UserWarning, match="other parameters"):
        default_study()


@pytest.mark.parametrize("kwargs,msg", [
    ({"hands": 0}, "hands must be"),
    ({"chunk": 0}, "chunk must be"),
    ({"levels": [-1]}, "levels must be"),
    ({"levels": [1, 1]}, "must not repeat"),
    ({"levels": ["x"]}, "levels must be"),
    ({"seed": -1}, "seed"),
    ({"exhaust": 5}, "exhaust"),
])
def test_bad_input(kwargs, msg):
    args = {"levels": [0], "hands": 10, "progress": False, **kwargs}
    with pytest.raises(HandError, match=msg):
        simulate("dazhong32", **args)


def test_gb_has_no_streak_levels():
    with pytest.raises(HandError, match="连拉"):
        simulate("gb", levels=[0, 1], hands=10, progress=False)
    assert math.isclose(mjkit.sim.wilson(5, 10)[0], 0.2366, abs_tol=1e-3)


def test_the_rule_sets_table_sets_the_wild_tile_unless_told():
    assert mjkit.get_rules("dazhong32").table_wild == "turned"
    assert mjkit.get_rules("gb").table_wild is None
    plain = _study(levels=[0], hands=150, wild=None)
    assert plain.params["engine"]["wild"] is None
    rec = play_hands(150, "dazhong32", level=0, seed=SEED, dealer_policy="value",
                     others_policy="break", exchange=True)
    assert plain.loc[0, "dealer_wins"] == (rec.outcomes[:, 0] == 0).sum()
    assert "wild" not in simulate("gb", levels=[0], hands=50, seed=1,
                                  progress=False).params["engine"]


def test_the_rule_sets_table_exchanges_unless_told():
    # seed 001 A.c: 起手换牌 at the 大众 tables, not in 国标
    assert mjkit.get_rules("dazhong32").table_exchange
    assert mjkit.get_rules("dazhong").table_exchange
    assert not mjkit.get_rules("gb").table_exchange
    assert _study(levels=[0], hands=50).params["engine"]["exchange"] is True
    off = _study(levels=[0], hands=150, exchange=False)
    assert off.params["engine"]["exchange"] is False
    rec = play_hands(150, "dazhong32", level=0, seed=SEED, dealer_policy="value",
                     others_policy="break", wild="turned")
    assert off.loc[0, "dealer_wins"] == (rec.outcomes[:, 0] == 0).sum()
    on = _study(levels=[0], hands=150)
    assert on.stats != off.stats
    assert "exchange" not in simulate("gb", levels=[0], hands=50, seed=1,
                                      progress=False).params["engine"]


def test_dealer_draws_ends_the_hand_after_the_dealers_draws():
    kw = dict(level=4, seed=3, solitaire=True, claims=False, exhaust=144, wild="turned")
    none = play_hands(300, "dazhong32", minimum=10**6, dealer_draws=10, **kw).outcomes
    # turns run seats 1, 2, 3, dealer: the dealer's 10th draw is turn draw 40, and the
    # three seats after it still draw before the dealer would draw an 11th
    assert (none[:, 0] == -1).all()
    assert set(none[:, 2]) == {43}
    won = play_hands(600, "dazhong32", dealer_draws=6, **kw).outcomes
    w = won[:, 0] == 0
    assert w.any() and (won[w, 3] <= 6).all()
    longer = play_hands(600, "dazhong32", dealer_draws=12, **kw).outcomes
    assert (longer[:, 0] == 0).sum() > w.sum()
    with pytest.raises(HandError, match="dealer_draws"):
        play_hands(1, "dazhong32", dealer_draws=0)


def test_reach_study_is_a_one_player_study():
    from mjkit.sim import reach_study

    r = reach_study(levels=[4, 8], hands=200, draws=10, seed=2, policy="efficiency",
                    progress=False, chunk=100)
    e = r.params["engine"]
    assert (e["solitaire"], e["claims"], e["dealer_draws"], e["exhaust"]) == (True, False, 10,
                                                                               144)
    assert e["exchange"] is True and e["wild"] == "turned"
    assert (r["other_wins"] == 0).all()
    assert r.loc[8, "p_dealer"] > r.loc[4, "p_dealer"]
    direct = play_hands(200, "dazhong32", level=4, seed=2, solitaire=True, claims=False,
                        exhaust=144, dealer_draws=10, wild="turned", exchange=True)
    assert r.loc[4, "dealer_wins"] == (direct.outcomes[:, 0] == 0).sum()
    with pytest.raises(HandError, match="draws"):
        reach_study(draws=21)
    with pytest.raises(HandError, match="claims"):
        reach_study(claims=True)
