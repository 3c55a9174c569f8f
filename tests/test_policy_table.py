"""The policy table of docs/simulation.md: the shipped counts, the document, the engine."""

from __future__ import annotations

import json

import pytest

from mjkit import HandError
from mjkit.locations import SOURCE_ROOT
from mjkit.sim import policy_table as PT
from mjkit.sim.study import wilson


@pytest.fixture(scope="module")
def data():
    return PT.load()


def _cells(data):
    return {(r["setting"], r["policy"], r["bar"]): r for r in data["rows"]}


def test_every_cell_is_there_once_on_the_same_hands(data):
    cells = _cells(data)
    assert len(cells) == len(data["rows"])
    for setting, (_, policies) in PT.SETTINGS.items():
        sizes = set()
        for bar in PT.BARS:
            for policy in policies:
                r = cells[setting, policy, bar]
                assert 0 <= r["wins"] <= r["hands"]
                sizes.add(r["hands"])
        assert len(sizes) == 1 and sizes.pop() >= 1000, setting


def test_the_document_shows_the_saved_table(data):
    text = (SOURCE_ROOT / "docs" / "simulation.md").read_text(encoding="utf-8")
    assert PT.render(text, data) == text, "run: python -m mjkit.sim.policy_table --doc-only"


@pytest.mark.parametrize("setting,policy,bar", [
    ("table", "efficiency", 0),      # every policy plays tile efficiency at a void bar
    # the one-player strong cell replays 3 minutes of strong hands: -m slow (the stored
    # sample of tools/game_sample.py checks the same kernel's strong players by default)
    pytest.param("one_player", "strong", 24, marks=pytest.mark.slow),
    ("solo", "value", 16),
])
def test_the_current_engine_plays_the_saved_counts(data, setting, policy, bar):
    r = _cells(data)[setting, policy, bar]
    assert PT.play_cell(setting, policy, bar, r["hands"], data["seed"]) == (r["wins"],
                                                                          r["hands"])


def test_strong_is_not_beaten_beyond_the_intervals(data):
    # at every bar of every setting, no policy wins significantly more often than strong
    # (its rate above strong's 95% upper bound); and strong is ahead where the bar bites
    cells = _cells(data)
    for setting, (_, policies) in PT.SETTINGS.items():
        for bar in PT.BARS:
            s = cells[setting, "strong", bar]
            _, hi = wilson(s["wins"], s["hands"])
            for policy in policies:
                o = cells[setting, policy, bar]
                assert o["wins"] / o["hands"] <= hi, (setting, bar, policy)
        for bar in (16, 32):
            s = cells[setting, "strong", bar]["wins"]
            assert s > max(cells[setting, p, bar]["wins"] for p in policies if p != "strong")


def test_the_dealer_odds_rise_as_the_bar_falls(data):
    # a lower bar never loses beyond the noise: each rate is at least the 95% lower bound
    # of the rate at the bar above it
    cells = _cells(data)
    for setting in ("table", "one_player"):
        prev_lo = 0.0
        for b in sorted(PT.BARS, reverse=True):
            c = cells[setting, "strong", b]
            assert c["wins"] / c["hands"] >= prev_lo, (setting, b)
            prev_lo = wilson(c["wins"], c["hands"])[0]


def test_a_damaged_table_is_refused(tmp_path, data):
    from mjkit.storage import write_sealed_json

    path = tmp_path / "t.json"
    write_sealed_json(path, data, context="mjkit policy table")
    assert PT.load(path) == data
    doc = json.loads(path.read_text())
    doc["data"]["rows"][0]["wins"] += 1
    path.write_text(json.dumps(doc))
    with pytest.raises(HandError, match="checksum"):
        PT.load(path)
    with pytest.raises(HandError, match="markers"):
        PT.render("no block here", data)
    with pytest.raises(HandError, match="bar"):
        PT.level_of_bar(5)
    with pytest.raises(HandError, match="settings"):
        PT.policy_table(10, settings=("tabel",), progress=False)
    with pytest.raises(HandError, match="no number"):
        PT.policy_table({"table": 10}, settings=("table", "solo"), progress=False)
    with pytest.raises(HandError, match="no cell"):
        PT.play_cell("solo", "break", 0, 10, 1)


def test_the_frame_has_a_row_per_cell_with_its_interval(data):
    df = PT.policy_frame(data)
    assert len(df) == len(data["rows"])
    row = df[(df.setting == "table") & (df.bar == 32) & (df.policy == "strong")].iloc[0]
    lo, hi = wilson(row["wins"], row["hands"])
    assert (row["lo"], row["hi"]) == (lo, hi) and lo < row["rate"] < hi
