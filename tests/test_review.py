"""The coach and the review (issue 37 §2, §3): every decision rated with the advisor's
numbers on what the player saw, the engine's choice beside it, the flags and the exports.

The seats are those whose kernels the warm-up compiles (a learner, strong and strong_break
players); the learner is a Python function (the built-in ``efficiency`` player as a Bot), so
its choices often differ from the strong engine's.
"""

from __future__ import annotations

import csv
import dataclasses
import io

import pytest

import mjkit
from mjkit import HandError
from mjkit.bot import Bot, decide
from mjkit.review import coach, rate, review
from mjkit.table import Table
from mjkit.table.actions import Action
from mjkit.tiles import parse_tiles, tile_to_str, tiles_to_str

OTHERS = ("strong", "strong_break", "strong_break")


def _learner():
    bot = Bot("efficiency")

    def learner(obs, legal):
        return bot.decide(obs)
    return learner


@pytest.fixture(scope="module")
def hand():
    """A finished hand with a learner at the dealer's seat, and every decision it took."""
    t = Table("dazhong32", seed=3, hand=1, seats=(_learner(),) + OTHERS)
    seen = []
    Table.replay(t.events, on_decision=lambda tab, act, i: seen.append(
        (tab.observe(tab.to_act), tab.legal_actions(), act)) if tab.to_act == 0 else None)
    return t, seen, review(t)


def _independent_advice(obs):
    """mjkit.advise on the observation, its arguments read here without mjkit.review."""
    own = obs.melds[obs.seat]
    visible = [k for p in range(4) for k, _ in obs.discards[p]]
    for p in range(4):
        for m in obs.melds[p]:
            if p != obs.seat:
                visible += list(m.tiles)
            if m.claimed is not None:
                visible.remove(m.claimed)     # a claimed discard is in its meld
    melds = "".join(("{%s}" if m.kind == "concealed_kong" else "[%s]") % tiles_to_str(m.tiles)
                    for m in own)
    return mjkit.advise(melds + tiles_to_str(obs.hand), "dazhong32",
                        lianla=obs.level if obs.seat == 0 else 0,
                        draws_left=obs.wall_left // 4, visible=visible,
                        wild=None if obs.wild is None else tile_to_str(obs.wild),
                        mode="fast", seat_wind=obs.seat, round_wind=obs.round_wind)


def test_every_decision_of_the_learner_is_reviewed_in_order(hand):
    t, seen, rv = hand
    assert t.done and len(rv.decisions) == len(seen) > 5
    assert rv.seats == (0,)
    for d, (obs, legal, act) in zip(rv.decisions, seen):
        r = d.rating
        assert r.seat == 0 and r.asking == obs.asking
        assert r.action == str(act)
        assert r.engine == str(decide(obs, "strong"))
        assert d.wall_left == obs.wall_left
        rated = {o.action for o in r.options}
        if obs.asking != "exchange":
            assert rated == {str(a) for a in legal if a.kind != "exchange"}


def test_the_reviews_numbers_are_the_advisors_on_the_same_states(hand):
    _, seen, rv = hand
    checked = 0
    for d, (obs, legal, act) in zip(rv.decisions, seen):
        r = d.rating
        if obs.asking not in ("turn", "discard") or act.kind != "discard":
            continue
        adv = _independent_advice(obs)
        rows = {row.tile: row.p_win for row in adv.rows}
        assert r.p_action == pytest.approx(rows[tile_to_str(act.tile)], abs=1e-12)
        assert r.p_best == pytest.approx(max(rows.values()), abs=1e-12)
        assert r.loss == pytest.approx(max(rows.values()) - rows[tile_to_str(act.tile)],
                                       abs=1e-12)
        checked += 1
    assert checked >= 5


def test_totals_worst_first_and_exports(hand):
    _, _, rv = hand
    tot = rv.totals
    ds = [d.rating for d in rv.decisions]
    assert tot["decisions"] == len(ds)
    assert tot["match_rate"] == pytest.approx(sum(r.matches for r in ds) / len(ds))
    assert tot["p_win_lost"] == pytest.approx(sum(r.loss for r in ds if r.loss is not None))
    worst = rv.worst(3)
    losses = [d.rating.loss or 0 for d in worst]
    assert losses == sorted(losses, reverse=True)
    assert all(d.rating.flags for d in worst)
    for d in rv.decisions:
        if {"costly", "differs"} & set(d.rating.flags):
            assert d.rating.reason("en") and d.rating.reason("zh")
    frame = rv.to_frame()
    assert len(frame) == len(ds) and list(frame["action"]) == [r.action for r in ds]
    rows = list(csv.reader(io.StringIO(rv.to_csv())))
    assert rows[0][0] == "number" and len(rows) == len(ds) + 1
    page = rv.to_html("zh")
    assert "<svg" in page and "<text" not in page and "复盘" in page
    assert rv.to_html("en").count("<tr") == len(ds) + 1


def _position(hand_text, drawn):
    """An observation of the dealer's own turn holding ``hand_text`` (14 tiles)."""
    t = Table("dazhong32", seed=0, seats=("you",) + OTHERS)
    obs = t.observe(0)
    tiles = tuple(sorted(parse_tiles(hand_text)))
    return dataclasses.replace(obs, hand=tiles, drawn=drawn, first_round=False,
                               replacement=False, asking="turn", to_act=0, wild=None)


def test_a_false_win_and_a_legal_win_let_go_are_flagged_and_agree_with_score():
    low = _position("123m456m789p234s55p", 13)           # a plain hand: far below 32
    legal = [Action("win")] + [Action("discard", k) for k in sorted(set(low.hand))]
    r = rate(low, legal, "win")
    assert r.win is not None and not r.win.legal and "false_win" in r.flags
    s = mjkit.score(r.win.hand, rules="dazhong32", wait_rule="leftmost")
    assert (s.counted_points, s.legal) == (r.win.counted, False)
    assert r.win.short == r.win.bar - r.win.counted > 0
    assert r.p_action == 0.0 and r.loss > 0 and "P胡" in r.reason("zh")

    nine = _position("11123456789999m", 8)                # 九莲宝灯: far above the bar
    legal = [Action("win")] + [Action("discard", k) for k in sorted(set(nine.hand))]
    r = rate(nine, legal, "discard 1m")
    assert r.win.legal and "win_let_go" in r.flags and r.engine == "win"
    assert r.best.action == "win" and r.p_best == 1.0
    c = coach(nine, legal)
    assert c.action is None and c.flags == () and c.win.legal


def test_bad_input_is_refused():
    t = Table("dazhong32", seed=0, seats=("you",) + OTHERS)
    with pytest.raises(HandError, match="over"):
        review(t)
    with pytest.raises(HandError, match="legal"):
        rate(t.observe(0), [])
    with pytest.raises(HandError, match="mode"):
        rate(t.observe(0), t.legal_actions(0), mode="psychic")
    with pytest.raises(HandError, match="not asked"):
        rate(t.observe(1), t.legal_actions(0))
    absent = next(k for k in range(34) if k not in t.observe(0).hand)
    with pytest.raises(HandError):
        rate(t.observe(0), t.legal_actions(0), Action("discard", absent))
    done = Table("dazhong32", seed=3, hand=1, seats=(_learner(),) + OTHERS)
    with pytest.raises(HandError, match="built-in"):
        review(done, seats=1)
    with pytest.raises(HandError, match="0..3"):
        review(done, seats=7)
    with pytest.raises(HandError):
        review("not a record")
