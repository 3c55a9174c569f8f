"""The table: the game kernel step by step (issue 36 §1, §2, §4, §5).

One engine: a Table of built-in players plays exactly the simulator's hand; a seat played
from outside by mjkit's bot makes exactly the built-in player's decisions; the stored
sample of simulated hands (written before the kernel became resumable) is unchanged; a
declared hand below the bar is a P胡 whose verdict ``score()`` agrees with; a record
replays to the same states and a damaged one is refused.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from mjkit import HandError, score
from mjkit.bot import Bot, decide
from mjkit.sim import play_hands
from mjkit.table.engine import Table
from mjkit.table.observation import check_observation

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools"))
import game_sample  # noqa: E402

SEATS = ("you", "strong", "strong_break", "strong_break")


# ---------------------------------------------------------------- one engine

#: Parts of the stored sample checked by default (their kernels are compiled by other tests
#: too); every part with ``-m slow``.
QUICK = ("efficiency-lvl0", "efficiency-gb", "value-lvl8", "strong-lvl0", "solitaire",
         "dealer-draws", "dazhong-noclaims", "user")


def _sample_parts():
    parts = game_sample.configs() + [game_sample.user_config()]
    return [pytest.param(p, marks=() if p[0] in QUICK else pytest.mark.slow, id=p[0])
            for p in parts]


@pytest.mark.parametrize("part", _sample_parts())
def test_simulated_hands_are_the_stored_sample(part):
    name, n, kw = part
    stored = np.load(game_sample.SAMPLE)
    r = play_hands(n, **kw)
    want = stored[f"{name}/outcomes"]
    cols = want.shape[1]
    assert np.array_equal(np.asarray(r.outcomes)[:, :cols], want)
    assert np.array_equal(np.asarray(r.fan_counts), stored[f"{name}/fans"])


@pytest.mark.parametrize("rules,level,players", [
    ("dazhong32", 0, ("efficiency",) * 4),
    ("dazhong32", 3, ("value", "break", "break", "break")),
    ("dazhong32", 2, ("strong", "strong_break", "strong_break", "strong_break")),
    ("gb", 0, ("efficiency",) * 4),
])
def test_a_table_of_built_in_players_plays_the_simulators_hand(rules, level, players):
    from mjkit.rules import get_rules
    rs = get_rules(rules)
    r = play_hands(6, rules, level=level, seed=5, dealer_policy=players[0],
                   others_policy=players[1], wild=rs.table_wild, exchange=rs.table_exchange)
    df = r.to_frame()
    for i in range(6):
        t = Table(rules, seed=5, hand=i, level=level, seats=players, wait_rule="unique")
        assert t.done
        o = t.outcome
        row = df.loc[i]
        assert (o.winner if o.winner is not None else -1) == row.winner
        assert o.counted == (row.counted if row.winner >= 0 else 0)
        assert o.wall_left == 120 - row.taken
        assert sum(o.payments) == 0


def test_the_simulator_gives_a_hands_record_on_request():
    r = play_hands(4, "dazhong32", level=2, seed=8, dealer_policy="efficiency",
                   others_policy="efficiency", wild="turned", exchange=True)
    df = r.to_frame()
    for i in range(4):
        ev = r.hand_record(i)
        end = [e for e in ev if e["e"] in ("win", "false_win", "drawn_out")][-1]
        assert (end.get("seat", -1)) == df.loc[i].winner
        assert Table.replay(ev).events == ev
    with pytest.raises(HandError, match="0..3"):
        r.hand_record(4)
    from mjkit.sim import user_policy
    sys.path.insert(0, str(HERE))
    from user_policies import highest
    u = play_hands(1, "gb", seed=1, dealer_policy=user_policy(highest))
    with pytest.raises(HandError, match="user policy"):
        u.hand_record(0)


@pytest.mark.parametrize("policy,rules,level", [
    ("efficiency", "dazhong32", 0), ("value", "dazhong32", 2), ("break", "dazhong32", 3),
    ("strong", "dazhong32", 0), ("strong_break", "dazhong32", 4), ("strong", "gb", 0),
    ("value", "gb", 0),
])
def test_the_bot_makes_every_decision_of_the_built_in_player(policy, rules, level):
    """Seat 1 played from outside by ``Bot(policy)`` gives the very hand that seat played
    by the built-in ``policy`` gives: every decision (exchange, discard, kong, claim, win)
    is the same, so every event is."""
    others = "strong" if policy.startswith("strong") else "value"
    n_asked = 0
    for hand in range(3):
        builtin = Table(rules, seed=21, hand=hand, level=level,
                        seats=(others, policy, others, others))
        bot = Bot(policy)
        asked = []

        def player(obs, legal):
            asked.append(obs.asking)
            return bot.decide(obs)

        outside = Table(rules, seed=21, hand=hand, level=level,
                        seats=(others, player, others, others))
        assert builtin.done and outside.done
        strip = [e for e in outside.events if e["e"] != "pass"]
        assert [dict(e, players=None) if e["e"] == "hand" else e for e in strip] == \
            [dict(e, players=None) if e["e"] == "hand" else e for e in builtin.events]
        n_asked += len(asked)
    assert n_asked > 10


# ---------------------------------------------------------------- stepping

def _until(t, asking):
    while not t.done and t.asking != asking:
        t.step(Bot("efficiency").decide(t.observe(t.to_act)))


def test_observe_shows_own_tiles_and_public_state_only():
    t = Table("dazhong32", seed=7, seats=SEATS)
    assert t.asking == "exchange" and t.to_act == 0
    o = check_observation(t.observe(0))
    assert len(o.hand) == 14 and o.bars == (32, 32, 32, 32) and o.wild is not None
    other = t.observe(1)
    assert len(other.hand) == 13 and other.hand != o.hand
    assert "you" in t.players[0]


def test_actions_in_notation_and_their_errors_leave_the_table_unchanged():
    t = Table("dazhong32", seed=7, seats=SEATS)
    t.step("exchange")
    assert t.asking == "turn"
    before = (list(t.events), t.legal_actions(0), t.observe(0))
    held = set(t.observe(0).hand)
    missing = next(k for k in range(27) if k not in held)
    from mjkit.tiles import tile_to_str
    for bad, why in [(f"discard {tile_to_str(missing)}", "not a legal action"),
                     ("pung", "not a legal action"), ("discard 9x", "unknown character"),
                     (42, "an action is an Action or text")]:
        with pytest.raises(HandError, match=why):
            t.step(bad)
    with pytest.raises(HandError, match="not seat 2's decision"):
        t.step(f"discard {tile_to_str(min(held))}", seat=2)
    assert (list(t.events), t.legal_actions(0), t.observe(0)) == before
    assert t.legal_actions(2) == []


def test_after_the_end_no_action_is_taken():
    t = Table("gb", seed=3, seats=("you", "efficiency", "efficiency", "efficiency"))
    while not t.done:
        t.step(Bot("efficiency").decide(t.observe(t.to_act)))
    with pytest.raises(HandError, match="the hand is over"):
        t.step("pass")
    assert t.to_act is None and t.legal_actions(0) == []


def test_a_python_function_plays_a_seat_and_a_bad_answer_is_named():
    def stubborn(obs, legal):
        return "discard 1f"
    with pytest.raises(HandError, match="1f|flower"):
        Table("gb", seed=1, seats=(stubborn, "efficiency", "efficiency", "efficiency"))

    def boom(obs, legal):
        raise RuntimeError("no idea")
    with pytest.raises(HandError, match="seat 0 .*RuntimeError: no idea"):
        Table("gb", seed=1, seats=(boom, "efficiency", "efficiency", "efficiency"))


@pytest.mark.parametrize("seats,why", [
    (("you", "strong"), "four players"),
    (("you", "nobody", "strong", "strong"), "unknown player 'nobody'"),
    (("you", 3, "strong", "strong"), "seats\\[1\\]"),
])
def test_bad_seats_are_refused(seats, why):
    with pytest.raises(HandError, match=why):
        Table("dazhong32", seats=seats)


# ---------------------------------------------------------------- P胡

def _declarer(obs, legal):
    """Declares every complete hand, else plays as the efficiency bot."""
    if any(a.kind == "win" for a in legal):
        return "win"
    return Bot("efficiency").decide(obs)


def test_a_declared_hand_below_the_bar_is_a_false_win_and_score_agrees():
    found = None
    for hand in range(40):
        t = Table("dazhong32", seed=2, hand=hand, seats=(_declarer,) + ("efficiency",) * 3)
        if t.outcome.result == "false_win":
            found = t
            break
    assert found is not None, "no P胡 in 40 hands of a player who declares every hand"
    o = found.outcome
    assert o.winner == 0 and o.counted < o.bar == 32 and o.short == o.bar - o.counted
    assert o.payments == (0, 0, 0, 0)
    ev = [e for e in found.events if e["e"] == "false_win"][0]
    assert ev["short"] == o.short and ev["counted"] == o.counted
    wild = found.observe(0).wild
    from mjkit.tiles import tile_to_str
    r = score(o.hand, "dazhong32", wild=tile_to_str(wild), lianla=found.level,
              wait_rule="leftmost")
    assert not r.legal and r.total == o.total and r.bar - r.short_by == o.counted


def test_a_legal_win_not_declared_is_a_decision_and_the_hand_goes_on():
    from mjkit.tiles import tile_to_str
    passes = 0
    for hand in range(20):
        def passer(obs, legal):
            if any(a.kind == "win" for a in legal):
                return f"discard {tile_to_str(obs.drawn)}" if obs.asking == "turn" else "pass"
            return Bot("efficiency").decide(obs)
        t = Table("gb", seed=4, hand=hand, seats=(passer,) + ("efficiency",) * 3)
        p = [e for e in t.events if e["e"] == "pass"]
        passes += len(p)
        assert t.outcome.winner != 0
        if p:       # a record with wins let go (on its own draw too) replays the same
            assert Table.replay(t.events).events == t.events
    assert passes > 0


# ---------------------------------------------------------------- records and replay

def test_a_record_replays_to_identical_states():
    t = Table("dazhong32", seed=9, level=2,
              seats=(_declarer, "strong", "strong_break", "strong_break"))
    again = Table.replay(t.events, states=True)
    assert again.events == t.events and again.outcome == t.outcome
    assert len(again.states) == len(t.events)
    assert again.states[-1].done
    json.loads(json.dumps(t.events))


def test_a_table_saves_its_record_and_it_reads_back_and_replays(tmp_path):
    from mjkit.table.record import read_record
    t = Table("gb", seed=11, seats=(_declarer, "efficiency", "efficiency", "efficiency"))
    path = t.save(tmp_path / "hand.jsonl")
    rec = read_record(path)
    assert len(rec.hands) == 1 and rec.hands[0].events == t.events
    assert Table.replay(rec.hands[0]).outcome == t.outcome
    with pytest.raises(HandError):
        t.save(path)                       # never over an existing record


def test_a_damaged_record_is_refused_naming_the_event():
    t = Table("gb", seed=9, seats=("efficiency",) * 4)
    ev = [dict(e) for e in t.events]
    i = next(i for i, e in enumerate(ev) if e["e"] == "discard" and i > 60)
    ev[i]["tile"] = "9m" if ev[i]["tile"] != "9m" else "1m"
    with pytest.raises(HandError, match=f"event {i}"):
        Table.replay(ev)
    with pytest.raises(HandError, match="truncated|ends"):
        Table.replay(t.events[:i])
    for junk in (5, None, "discard 5m", {"e": "discard"}):
        with pytest.raises(HandError, match="event 3"):
            Table.replay(t.events[:3] + [junk] + t.events[3:])
    forged = [dict(t.events[0], seed=10)] + t.events[1:]
    with pytest.raises(HandError, match="event [0-9]+"):
        Table.replay(forged)


# ---------------------------------------------------------------- the bot from outside

def test_decide_checks_a_forged_observation():
    t = Table("dazhong32", seed=7, seats=SEATS)
    o = t.observe(0)
    import dataclasses
    for field, value, why in [("hand", o.hand + (0, 0, 0, 0, 0), "seen|tiles"),
                              ("seat", 7, "seat"), ("wild", 40, "wild"),
                              ("bars", (32,), "bars"), ("options", {"evil": 1}, "option")]:
        with pytest.raises(HandError, match=why):
            decide(dataclasses.replace(o, **{field: value}), "strong")
    with pytest.raises(HandError, match="policy"):
        decide(o, "cheat")
    assert decide(o, "strong").kind == "exchange"
