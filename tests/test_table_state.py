"""The state a hand's events add up to (mjkit.table.state): a hand written by hand is folded
event by event to the right hands, melds, discards, flowers and wall, and every event the
state cannot hold is refused naming its index, the fold unchanged.

The builders here (:func:`demo_events`, :func:`robbed_events`) are the small hands the
record and view tests use too.
"""

from __future__ import annotations

import copy

import pytest

from mjkit import HandError
from mjkit.table.state import Fold, Meld, fold, parse_event
from mjkit.tiles import parse_tiles, tile_from_str, tile_to_str

PLAYERS = ["you", "strong", "strong_break", "strong_break"]
#: The deal of the demo hand, by position (the dealer 14 tiles, seat 2 one short: its
#: flower's replacement completes it).
DEAL = ("123456789m 11p 23p E", "234m 55p 678p 123s S 9s", "EE 5p 99p 3p 456s 789s",
        "1m 9m 4p 6p 789s NN FF CC")


def hand_event(rules="dazhong32", **options):
    opts = {"exchange": True, "wild": "turned", "wait_rule": "leftmost", "exhaust": 120,
            "discard_wins": False, "claims": True}
    opts.update(options)
    return {"e": "hand", "rules": rules, "seed": 7, "hand": 0, "wall_level": 0, "level": 0,
            "round_wind": "E", "players": list(PLAYERS), "options": opts}


def deal(hands):
    return [{"e": "draw", "seat": s, "tile": tile_to_str(t), "back": False}
            for s, h in enumerate(hands) for t in parse_tiles(h)]


def demo_events(deal_hands=DEAL):
    """A short dazhong32 hand: a flower in the deal, two exchanges (one brings a flower),
    a pung, a chow, an added kong and its replacement, a self-drawn win."""
    return ([hand_event(), {"e": "wild", "tile": "P"}] + deal(deal_hands) + [
        {"e": "flower", "seat": 2, "tile": "3f"},
        {"e": "draw", "seat": 2, "tile": "W", "back": True},
        {"e": "dealt"},
        {"e": "exchange", "seat": 1, "gave": "S", "got": "7f"},
        {"e": "flower", "seat": 1, "tile": "7f"},
        {"e": "draw", "seat": 1, "tile": "6s", "back": True},
        {"e": "exchange", "seat": 3, "gave": "9m", "got": "5m"},
        {"e": "discard", "seat": 0, "tile": "E"},
        {"e": "pung", "seat": 2, "tile": "E", "from": 0},
        {"e": "discard", "seat": 2, "tile": "W"},
        {"e": "draw", "seat": 3, "tile": "3s", "back": False},
        {"e": "discard", "seat": 3, "tile": "1m"},
        {"e": "chow", "seat": 0, "tiles": "123m", "tile": "1m", "from": 3},
        {"e": "discard", "seat": 0, "tile": "9m"},
        {"e": "draw", "seat": 1, "tile": "4s", "back": False},
        {"e": "discard", "seat": 1, "tile": "9s"},
        {"e": "draw", "seat": 2, "tile": "E", "back": False},
        {"e": "kong", "seat": 2, "tile": "E", "added": True},
        {"e": "draw", "seat": 2, "tile": "9p", "back": True},
        {"e": "discard", "seat": 2, "tile": "5p"},
        {"e": "draw", "seat": 3, "tile": "2s", "back": False},
        {"e": "discard", "seat": 3, "tile": "2s"},
        {"e": "draw", "seat": 0, "tile": "1m", "back": False},
        {"e": "win", "seat": 0, "tile": "1m", "from": None, "robbed": False, "counted": 34,
         "total": 35, "fans": {"SELF_DRAWN": 1, "FLOWER_TILES": 1}},
        {"e": "end", "result": "win", "payments": [105, -35, -35, -35]},
    ])


def robbed_events():
    """A dazhong hand (wins on discards): a pung, a pass on a win, the fourth tile added
    to the pung and the kong robbed."""
    return ([hand_event("dazhong", exchange=False, wild=None, discard_wins=True)]
            + deal(("123m 456m 789m 7p 11s 23s", "77p 123s 456s 789s E S",
                    "234p 56p 88p 456m 123s", "EE SS WW NN PP FF C"))
            + [{"e": "dealt"},
               {"e": "discard", "seat": 0, "tile": "7p"},
               {"e": "pass", "seat": 2, "tile": "7p", "win": True},
               {"e": "pung", "seat": 1, "tile": "7p", "from": 0},
               {"e": "discard", "seat": 1, "tile": "E"},
               {"e": "draw", "seat": 2, "tile": "9m", "back": False},
               {"e": "discard", "seat": 2, "tile": "9m"},
               {"e": "draw", "seat": 3, "tile": "C", "back": False},
               {"e": "discard", "seat": 3, "tile": "C"},
               {"e": "draw", "seat": 0, "tile": "3p", "back": False},
               {"e": "discard", "seat": 0, "tile": "3p"},
               {"e": "draw", "seat": 1, "tile": "7p", "back": False},
               {"e": "kong", "seat": 1, "tile": "7p", "added": True},
               {"e": "win", "seat": 2, "tile": "7p", "from": 1, "robbed": True, "counted": 9,
                "total": 9, "fans": {"ROBBING_THE_KONG": 1, "ALL_CHOWS": 1}},
               {"e": "end", "result": "win", "payments": [0, -9, 9, 0]}])


def kinds(text):
    return tuple(sorted(parse_tiles(text)))


def index_of(events, **match):
    return next(i for i, ev in enumerate(events)
                if all(ev.get(k) == v for k, v in match.items()))


# ------------------------------------------------------------------ a whole hand


def test_the_demo_hand_folds_to_the_right_table():
    events = demo_events()
    snaps = fold(events)
    assert len(snaps) == len(events) + 1
    assert [s.index for s in snaps] == list(range(len(events) + 1))
    first, end = snaps[0], snaps[-1]
    assert first.players == () and first.hands == ((),) * 4 and not first.dealt
    assert end.done and end.result["e"] == "win" and end.payments == (105, -35, -35, -35)
    assert end.players == tuple(PLAYERS) and end.rules == "dazhong32"
    assert end.wild == tile_from_str("P") and end.round_wind == 0 and end.level == 0
    # the deal: 14 for the dealer, 13 for the others, seat 2's flower set aside
    dealt = snaps[index_of(events, e="dealt") + 1]
    assert dealt.dealt and [dealt.hand_size(s) for s in range(4)] == [14, 13, 13, 13]
    assert dealt.flowers == ((), (), (tile_from_str("3f"),), ())
    assert dealt.hands[2] == kinds("EE 5p 99p 3p 456s 789s W")
    # wall: 120 less every draw and every flower drawn (the exchanged flower takes none)
    draws = sum(ev["e"] == "draw" for ev in events)
    assert end.wall_left == 120 - draws - 1
    assert dealt.wall_left == 120 - 53 - 1
    # the end of the hand
    assert end.hands[0] == kinds("1m 4m5m6m7m8m 11p 23p 1m")      # the winning 1m kept
    assert end.melds[0] == (Meld("chow", 0, claimed=0, from_seat=3),)
    assert end.melds[2] == (Meld("kong", tile_from_str("E"), tile_from_str("E"), 0, True),)
    assert end.hands[1] == kinds("234m 55p 678p 123s 6s 4s")
    assert end.hands[3] == kinds("5m 4p 6p 789s NN FF CC 3s")
    assert end.flowers[1] == (tile_from_str("7f"),)
    E, m9 = tile_from_str("E"), tile_from_str("9m")
    assert end.discards[0] == ((E, True), (m9, False))
    assert end.discards[3] == ((0, True), (tile_from_str("2s"), False))
    assert end.melds[2][0].tiles == (E,) * 4 and end.melds[0][0].tiles == (0, 1, 2)


def test_the_claimable_discard_is_the_last_one_until_a_draw():
    events = demo_events()
    snaps = fold(events)
    i = index_of(events, e="discard", tile="1m")
    assert snaps[i + 1].last_discard == (3, 0)
    assert snaps[i + 2].last_discard is None                      # the chow took it
    j = index_of(events, e="discard", tile="9s")
    assert snaps[j + 1].last_discard == (1, 0) and snaps[j + 2].last_discard is None


def test_a_robbed_kong_returns_to_a_pung_and_a_pass_changes_nothing():
    events = robbed_events()
    snaps = fold(events)
    p7 = tile_from_str("7p")
    i = index_of(events, e="pass")
    assert snaps[i + 1].hands == snaps[i].hands and snaps[i + 1].last_discard == (0, 0)
    k = index_of(events, e="kong")
    assert snaps[k + 1].melds[1] == (Meld("kong", p7, p7, 0, True),)
    end = snaps[-1]
    assert end.melds[1] == (Meld("pung", p7, p7, 0),)
    assert end.hands[2] == kinds("234p 56p 88p 456m 123s 7p")
    assert end.hand_size(2) == 14 and end.hand_size(1) == 13


def test_a_win_on_a_discard_takes_it():
    events = robbed_events()[:-2]
    k = index_of(events, e="kong")
    events = events[:k] + [{"e": "discard", "seat": 1, "tile": "7p"},
                           {"e": "win", "seat": 2, "tile": "7p", "from": 1, "robbed": False,
                            "counted": 8, "total": 8, "fans": {"ALL_CHOWS": 1}},
                           {"e": "end", "result": "win", "payments": [0, -8, 8, 0]}]
    end = fold(events)[-1]
    assert end.discards[1][-1] == (tile_from_str("7p"), True)
    assert end.hands[2] == kinds("234p 56p 88p 456m 123s 7p")


def test_fold_is_incremental_and_agrees_with_fold():
    events = demo_events()
    f = Fold()
    for i, ev in enumerate(events):
        s = f.apply(ev)
        assert s is f.snapshot and s.index == i + 1 == f.index and s.event is ev
    assert f.done and f.snapshot == fold(events)[-1]


def test_parse_event_reads_tiles_as_kinds():
    name, f = parse_event({"e": "chow", "seat": 1, "tiles": "345p", "tile": "4p", "from": 0})
    assert name == "chow" and f["first"] == tile_from_str("3p") and f["tile"] == 12


# ------------------------------------------------------------------ impossible events


def _set(i, **kw):
    def change(events):
        events[i].update(kw)
        return events
    return change


def _insert(i, ev):
    def change(events):
        events.insert(i, ev)
        return events
    return change


def _at(events, **match):
    return index_of(events, **match)


D = demo_events()
FIRST_DISCARD = _at(D, e="discard", tile="E")
CHOW = _at(D, e="chow")
KONG = _at(D, e="kong")
DEALT = _at(D, e="dealt")
WIN = _at(D, e="win")

BAD = [
    # (change, index of the refused event, message)
    (_set(FIRST_DISCARD, tile="5s"), FIRST_DISCARD,
     "discard of 5s by seat 0, who does not hold it"),
    (_set(FIRST_DISCARD, seat=4), FIRST_DISCARD, "'seat' must be a seat 0..3, got 4"),
    (_set(FIRST_DISCARD, seat=True), FIRST_DISCARD, "'seat' must be a seat 0..3, got true"),
    (_set(FIRST_DISCARD, tile="1z"), FIRST_DISCARD, "not written as mjkit writes it"),
    (_set(FIRST_DISCARD, tile="3f"), FIRST_DISCARD, "must be a tile kind"),
    (_set(FIRST_DISCARD, how="fast"), FIRST_DISCARD, "unknown key \"how\""),
    (_set(CHOW, **{"from": 2}), CHOW, "not the discard that may be claimed"),
    (_set(CHOW, seat=1), CHOW, "not the discard that may be claimed|only the next seat"),
    (_set(CHOW, tiles="234m", tile="2m"), CHOW, "not the discard that may be claimed"),
    (_set(CHOW, tiles="135m"), CHOW, "is not a chow"),
    (_set(KONG, tile="9p"), KONG, "who has no pung of it"),
    (_insert(WIN + 2, {"e": "drawn_out"}), WIN + 2, "after the hand's 'end'"),
    (_insert(WIN, {"e": "end", "result": "win", "payments": [0, 0, 0, 0]}), WIN,
     "'end' before the hand's result"),
    (_set(WIN + 1, result="drawn_out"), WIN + 1, "but the hand ended in 'win'"),
    (_set(WIN + 1, payments=[1, 0, 0, 0]), WIN + 1, "do not sum to 0"),
    (_set(WIN, fans={"QING_YI_SE": 24}), WIN, "not a fan of this rule set"),
    (_set(WIN, tile="9s"), WIN, "who does not hold it"),
    (_insert(DEALT, {"e": "discard", "seat": 0, "tile": "E"}), DEALT, "during the deal"),
    (_insert(1, {"e": "riichi", "seat": 0}), 1, "unknown event \"riichi\""),
    (_insert(0, {"e": "dealt"}), 0, "a hand begins with a 'hand' event"),
    (_insert(DEALT + 1, {"e": "exchange", "seat": 0, "gave": "5s", "got": "1m"}), DEALT + 1,
     "does not hold it"),
    (_set(DEALT + 2, tile="8f"), DEALT + 2, "a 'flower' event of it must follow"),
    (_set(DEALT, e="drawn_out"), DEALT, "during the deal|tiles still in the wall"),
    (_insert(DEALT, {"e": "draw", "seat": 1, "tile": "1s", "back": False}), DEALT + 1,
     "the deal ends with"),
    (_set(1, tile="F"), None, "not the fixed one|"),          # turned: any tile is fine
    (lambda ev: [ev[0]] + ev[2:], DEALT - 1, "without the 'wild' event"),
]


@pytest.mark.parametrize("change, index, message", BAD, ids=[b[2][:30] for b in BAD])
def test_an_impossible_event_is_refused_naming_its_index(change, index, message):
    events = change(copy.deepcopy(demo_events()))
    if index is None:                     # the control: a change the state can hold
        fold(events)
        return
    with pytest.raises(HandError, match=rf"^event {index}: .*({message})") as err:
        fold(events)
    assert err.value.code == "damaged"


def test_a_fifth_copy_and_an_empty_wall_are_refused():
    head = [hand_event(exhaust=53), {"e": "wild", "tile": "P"}]
    draws = [{"e": "draw", "seat": 0, "tile": "1m", "back": False}] * 5
    with pytest.raises(HandError, match=r"^event 6: draw of 1m by seat 0: a fifth copy of 1m"):
        fold(head + draws)
    full = head + deal(DEAL)                  # 52 tiles, then one more: 53 taken
    full += [{"e": "draw", "seat": 2, "tile": "W", "back": False},
             {"e": "draw", "seat": 3, "tile": "S", "back": False}]
    with pytest.raises(HandError, match=rf"^event {len(full) - 1}: draw of S .* no tile left"):
        fold(full)


def test_a_wild_event_needs_a_wild_tile_in_play():
    events = [hand_event(wild=None), {"e": "wild", "tile": "P"}]
    with pytest.raises(HandError, match=r"^event 1: .*plays without a wild tile"):
        fold(events)
    with pytest.raises(HandError, match=r"^event 1: .*not the fixed one"):
        fold([hand_event(wild="C"), {"e": "wild", "tile": "P"}])
    with pytest.raises(HandError, match=r"^event 0: .*'options.wild'.*not written as mjkit"):
        fold([hand_event(wild="5z")])


@pytest.mark.parametrize("change, message", [
    (dict(discard_wins=True), "wins by self-draw only"),
    (dict(exhaust=200), "'options.exhaust' must be a whole number 53..144"),
    (dict(wait_rule="left"), "'options.wait_rule' must be one of"),
    (dict(claims=1), "'options.claims' must be true or false"),
    (dict(colour="red"), "unknown key"),
])
def test_options_are_checked(change, message):
    with pytest.raises(HandError, match=rf"^event 0: .*{message}"):
        fold([hand_event(**change)])


@pytest.mark.parametrize("key, value, message", [
    ("rules", "mahjong", "unknown rule set"),
    ("seed", -1, "'seed' must be a whole number"),
    ("level", 1.0, "'level' must be a whole number"),
    ("round_wind", 0, "'round_wind' must be one of"),
    ("players", ["a", "b", "c"], "'players' must be a list of 4"),
    ("players", ["a", "b", "c", "x" * 65], "1..64 characters"),
])
def test_the_hand_event_is_checked(key, value, message):
    ev = hand_event()
    ev[key] = value
    with pytest.raises(HandError, match=rf"^event 0: .*{message}"):
        fold([ev])


def test_a_level_needs_a_rule_set_with_lianla():
    ev = hand_event("gb", exchange=False, wild=None, discard_wins=True)
    ev["level"] = 2
    with pytest.raises(HandError, match="has no 连拉"):
        fold([ev])


def test_a_refused_event_leaves_the_fold_unchanged():
    events = demo_events()
    f = Fold()
    for ev in events[:CHOW]:
        f.apply(ev)
    before = f.snapshot
    bad = dict(events[CHOW], tiles="234m", tile="2m")
    with pytest.raises(HandError):
        f.apply(bad)
    bad = dict(events[CHOW], seat=1)
    with pytest.raises(HandError):
        f.apply(bad, where="record line 99")
    assert f.snapshot is before and f.index == CHOW
    for ev in events[CHOW:]:
        f.apply(ev)
    assert f.snapshot == fold(events)[-1]


def test_where_names_the_event_as_the_caller_says():
    with pytest.raises(HandError, match=r"^record line 12: a hand begins"):
        Fold().apply({"e": "dealt"}, where="record line 12")


@pytest.mark.parametrize("bad", [None, [], "hand", {"e": 3}, {"seat": 0}])
def test_an_event_that_is_not_an_event_object_is_refused(bad):
    with pytest.raises(HandError, match=r"^event 0: "):
        Fold().apply(bad)


def test_the_demo_tiles_are_consistent():
    """The builders' deal: no kind more than 4 times (else every test above is moot)."""
    counts = {}
    for h in DEAL:
        for t in parse_tiles(h):
            counts[t] = counts.get(t, 0) + 1
    assert max(counts.values()) <= 4 and sum(counts.values()) == 52
