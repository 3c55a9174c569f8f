"""Tests for mjkit.hand: Meld, Hand and parse_hand."""

import dataclasses
import time

import numpy as np
import pytest

from mjkit.errors import HandError
from mjkit.hand import MAX_TEXT_LEN, Hand, Meld, parse_hand

# Each valid string is annotated with its tile count check: 14 - 3 * melds.
VALID = [
    "[123m]{EEEE}456p789s1p 1p",                       # 2 melds, 8 concealed
    "[123m]456p789s55mEE E",                           # 1 meld, 11
    "[123m]456p789s55m1z1z 1z",                        # honours as 1z..7z
    "123m456p789s55mEE E",                             # closed, 14
    "123m 456p 789s 55m EE  E",                        # spaces anywhere
    "1 2 3 m4 56p789s5 5mE E E",
    "[555p][1111s]{9999m}[123m] C C",                  # 4 melds, 2
    "[123m]456p789s55mEE E | self_drawn",
    "123m456p789s55mEE E | self_drawn last_wall seat=S round=W flowers=2",
    "123m456p789s55mEE E | seat = N, round = south",
    "123m456p789s55mEE E | flowers=1f3f",
    "123m 1f 456p789s55mEE 3f E",                      # flowers set aside
    "[5555m]123p456p789s1s 1s | self_drawn kong",      # 杠上开花
    "123m456p789s11p46m 5m | kong",                    # 抢杠和
    "[555m]123p456p789s1s 5m | last_copy",             # other copies in a meld
    "1112345678999m 9m",
    "19m19p19sESWNPFC C",                              # 十三幺 shape
    "11223344556677z",
    "🀇🀈🀉🀙🀚🀛🀐🀑🀒🀋🀋🀀🀀 🀀",                            # Unicode glyphs
    "123m456p789s55mEE E|win_tile=5m",
    "123m456p789s55mEE E | self_drawn 天和",              # 大众 first-turn flags
    "{5555p}123m789s55mEE E | declared_ready double_ready seat=W",
]


@pytest.mark.parametrize("text", VALID)
def test_round_trip(text):
    hand = parse_hand(text)
    again = parse_hand(str(hand))
    assert again == hand
    assert str(again) == str(hand)
    assert eval(repr(hand), {"Hand": Hand}) == hand
    assert hash(again) == hash(hand)


@pytest.mark.parametrize("text, canonical", [
    ("[123m]{EEEE}456p789s1p 1p", "[123m]{EEEE}1456p789s 1p"),
    ("[123m]456p789s55mEE E", "[123m]55m456p789sEE E"),
    ("[123m]456p789s55m1z1z 1z", "[123m]55m456p789sEE E"),
    ("[321m] 5m5m 987s 654p E E E", "[123m]55m456p789sEE E"),
    ("123m 1f 456p789s55mEE 3f E", "12355m456p789sEE E | flowers=13f"),
    ("123m456p789s55mEE E|self_drawn seat=E round=E flowers=0",
     "12355m456p789sEE E | self_drawn"),
    ("123m456p789s55mEE E|last_wall self_drawn round=N seat=W",
     "12355m456p789sEE E | self_drawn last_wall seat=W round=N"),
])
def test_canonical_str(text, canonical):
    assert str(parse_hand(text)) == canonical


def test_fields_of_contract_example():
    h = parse_hand("[123m]{EEEE}456p789s1p 1p")
    assert h.melds == (Meld("chow", 0, False), Meld("kong", 27, True))
    assert h.concealed == (9, 9, 12, 13, 14, 24, 25, 26)
    assert h.win_tile == 9
    assert (h.self_drawn, h.last_copy, h.kong, h.last_wall) == (False,) * 4
    assert (h.seat_wind, h.round_wind, h.flowers, h.flower_tiles) == (0, 0, 0, ())
    assert not h.is_closed
    assert h.counts().sum() == 8 and h.counts()[9] == 2
    assert h.all_counts().sum() == 8 + 3 + 4 and h.all_counts()[27] == 4
    assert h.counts().dtype == np.int64 and h.all_counts().shape == (34,)


def test_situation_suffix_values():
    h = parse_hand("123m456p789s55mEE E | self_drawn last_wall seat=S round=W flowers=2")
    assert h.self_drawn and h.last_wall and not h.kong and not h.last_copy
    assert (h.seat_wind, h.round_wind, h.flowers, h.flower_tiles) == (1, 2, 2, ())


def test_flowers_from_tiles_and_suffix():
    h = parse_hand("123m 1f 456p789s55mEE 3f E")
    assert h.flowers == 2 and h.flower_tiles == (34, 36)
    assert parse_hand("123m456p789s55mEE E", flowers="1f3f") == h
    assert parse_hand("123m456p789s55mEE E", flowers=["1f", 36]) == h
    assert parse_hand("123m 1f 456p789s55mEE E | flowers=3f") == h
    assert parse_hand("123m 1f 456p789s55mEE 3f E | flowers=2") == h


def test_closed_hand_with_concealed_kong():
    h = parse_hand("{5555m}123p456p789s1s 1s | self_drawn kong")
    assert h.is_closed and h.kong and h.self_drawn


def test_kwargs_override_suffix():
    text = "123m456p789s55mEE E | self_drawn seat=S flowers=3"
    h = parse_hand(text, self_drawn=False, seat="W", flowers=None)
    assert not h.self_drawn and h.seat_wind == 2 and h.flowers == 3
    assert parse_hand(text, flowers=1).flowers == 1
    assert parse_hand(text, seat_wind=3).seat_wind == 3
    assert parse_hand(text, round="north").round_wind == 3
    assert parse_hand(text, round_wind=np.int64(1)).round_wind == 1


@pytest.mark.parametrize("value, wind", [
    (0, 0), (3, 3), ("E", 0), ("s", 1), ("West", 2), ("NORTH", 3), ("北", 3),
])
def test_wind_values(value, wind):
    assert parse_hand("123m456p789s55mEE E", seat=value).seat_wind == wind


def test_win_tile_keyword():
    full = "123m456p789s55mEE E"
    assert parse_hand(full, win_tile="5m").win_tile == 4
    assert parse_hand(full, win_tile=4).win_tile == 4
    short = parse_hand("123m456p789s55mEE", win_tile="E")
    assert short == parse_hand(full)
    with_meld = parse_hand("[123m]456p789s55mEE", win_tile="1z")
    assert with_meld == parse_hand("[123m]456p789s55mEE E")


def test_from_parts():
    h = parse_hand("[123m]{EEEE}456p789s1p 1p | self_drawn")
    assert Hand.from_parts("456p789s1p1p", "[123m]{EEEE}", self_drawn=True) == h
    assert Hand.from_parts([12, 13, 14, 24, 25, 26, 9], ["[123m]", Meld("kong", 27, True)],
                           win_tile="1p", self_drawn=True) == h
    assert Hand.from_parts(["4p", "5p", "6p", "7s", "8s", "9s", "1p", "1p"],
                           [Meld("chow", 0), Meld("kong", 27, True)],
                           self_drawn=True) == h
    with pytest.raises(HandError, match="outside brackets"):
        Hand.from_parts("456p789s1p1p", "[123m]5m{EEEE}")
    with pytest.raises(HandError, match="exactly one meld"):
        Hand.from_parts("456p789s1p1p", ["[123m]{EEEE}"])


def test_parse_hand_accepts_hand():
    h = parse_hand("[555m]123p456p789s1s 5m")
    h2 = parse_hand(h, last_copy=True, seat="W", flowers="2f")
    assert h2 == parse_hand("[555m]123p456p789s1s 5m | last_copy seat=W flowers=2f")
    assert parse_hand(h) == h


def test_direct_construction_normalises_and_validates():
    h = Hand((9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 0), (), np.int64(0), seat_wind="S")
    assert h.concealed == (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 10)
    assert h.win_tile == 0 and type(h.win_tile) is int and h.seat_wind == 1
    assert h == parse_hand("123456789m1112p 1m | seat=S")
    with pytest.raises(HandError, match="wrong number of tiles"):
        Hand((0, 0), (), 0)
    with pytest.raises(HandError, match="Meld objects"):
        Hand((0, 0), ("[123m]",), 0)
    with pytest.raises(HandError, match="flower"):
        Hand(tuple(range(13)) + (34,), (), 0)
    with pytest.raises(HandError):
        Hand("123m456p789s55mEE", (), 27)
    with pytest.raises(HandError, match="flower_tiles"):
        Hand(h.concealed, (), 0, flowers="1f")
    with pytest.raises(HandError, match="flowers=1 but 2 flower tiles"):
        Hand(h.concealed, (), 0, flowers=1, flower_tiles=(34, 35))
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.win_tile = 3  # type: ignore[misc]


def test_endless_iterables_do_not_hang():
    import itertools
    with pytest.raises(HandError, match="too many"):
        Hand(itertools.repeat(0), (), 0)
    with pytest.raises(HandError, match="too many"):
        Hand.from_parts(itertools.count())


def test_meld():
    assert str(Meld("chow", 0)) == "[123m]"
    assert str(Meld("pung", 27)) == "[EEE]"
    assert str(Meld("kong", 13, True)) == "{5555p}"
    assert Meld("chow", 9).tiles == (9, 10, 11)
    assert Meld("kong", 33).tiles == (33,) * 4
    assert Meld.from_tiles([2, 0, 1]) == Meld("chow", 0)
    assert Meld.from_tiles([5] * 4, concealed=True) == Meld("kong", 5, True)
    assert Meld(kind="pung", tile=np.int64(4)).tile == 4


@pytest.mark.parametrize("args, match", [
    (("chow", 27), r"chow \[ESW\]: honours cannot form a chow"),
    (("chow", 7), r"chow \[89m1p\] is not a run"),
    (("pung", 4, True), r"concealed meld \{555m\} is not a kong"),
    (("set", 4), r"unknown meld kind 'set'"),
    (("pung", 34), r"flower 1f cannot be a meld tile"),
    (("pung", 99), r"out of range"),
    (("pung", "5m"), r"expected a tile index"),
    (("pung", 4, "yes"), r"concealed must be True or False"),
])
def test_meld_errors(args, match):
    with pytest.raises(HandError, match=match):
        Meld(*args)


BASE = "123m456p789s55mEE E"   # a valid closed hand used by the keyword tests

ERRORS = [
    # notation
    ("123m456p789s55mEx E", r"unknown character 'x' at position 16"),
    ("123m456p789s55mEE e", r"unknown character 'e' at position 18"),
    ("123m456p789s55mEE 5", r"digits '5' at position 18 have no suit letter"),
    ("12[3m]", r"digits '12' at position 0 have no suit letter"),
    ("m123m456p789s55mEE E", r"suit letter 'm' at position 0 has no digits"),
    ("0m23m456p789s55mEE E", r"0m at position 0 is not a tile"),
    ("123m456p789s55mEE 8z", r"8z at position 18 is not a tile"),
    ("123m456p789s55mEE E 9f", r"9f at position 20 is not a tile"),
    ("[123m456p789s55mEE E", r"unbalanced brackets: '\[' at position 0 is never closed"),
    ("123m]456p789s55mEE E", r"unbalanced brackets: '\]' at position 4 has no opening"),
    ("[123m}456p789s55mEE E", r"unbalanced brackets: '\[' at position 0 closed by '\}'"),
    ("[1[23m]]456p789s55mEE E", r"unbalanced brackets: '\[' at position 2 inside"),
    ("[]123m456p789s55mEE E", r"empty meld \[\] at position 0"),
    ("{ }123m456p789s55mEE E", r"empty meld \{\} at position 0"),
    ("123m456p789s55mEE E | self_drawn | kong", r"more than one '\|'"),
    # melds
    ("{555p}123m456p789s 1s", r"concealed meld \{555p\} is not a kong"),
    ("[135m]456p789s55mEE E", r"chow \[135m\] is not a run"),
    ("[ESW]456p789s55mEE N", r"chow \[ESW\]: honours cannot form a chow"),
    ("[567z]456p789s55mEE E", r"honours cannot form a chow"),
    ("[12m3p]456p789s55mEE E", r"chow \[12m3p\] mixes suits"),
    ("[557m]456p789s55mEE E", r"meld \[557m\] is neither a chow nor a pung"),
    ("[5556m]456p789s55mEE E", r"kong \[5556m\] must be four copies of one tile"),
    ("[12m]456p789s55mEE E", r"meld \[12m\] has 2 tiles"),
    ("[11111m]456p789s55mEE E", r"meld \[11111m\] has 5 tiles"),
    ("[1f23m]456p789s55mEE E", r"meld \[23m1f\] contains a flower"),
    ("[123m][456m][789m][123p][456p] 1s1s", r"more than 4 melds"),
    # counts
    ("[123m]456p789s55mEEE E", r"wrong number of tiles: 12 concealed with 1 meld, expected 11"),
    ("123m456p789s55mE E", r"wrong number of tiles: 13 concealed with 0 melds, expected 14"),
    ("", r"wrong number of tiles: 0 concealed"),
    ("[345m]5555m123p456p 7s", r"5th copy of 5m \(4 in hand, 1 in melds\)"),
    ("[5555m]5m123p456p789s 1s", r"5th copy of 5m \(1 in hand, 4 in melds\)"),
    ("11111m123p456p78s 9s", r"5th copy of 1m \(5 in hand, 0 in melds\)"),
    # situation
    ("123m456p789s55mEE E | self_drawn kong", r"kong=True on a self-draw needs a kong meld \(杠上开花\)"),
    ("456p789s123mEE55m 5m | last_copy",
     r"last_copy \(和绝张\) but 2 other copies of 5m are in the concealed hand"),
    ("456p789s123mEE55m 5m | last_copy",
     r"last_copy \(和绝张\) but 2 other copies"),
    ("456p789s123m5mEEE 5m | kong", r"robbing a kong \(抢杠和\) but the hand already holds 5m"),
    ("[345m]456p789sEE11p 5m | kong", r"robbing a kong \(抢杠和\) but the hand already holds 5m"),
    ("123m456p789s55mEE E | seat=X", r"bad wind value 'X' for seat_wind"),
    ("123m456p789s55mEE E | round=1", r"bad wind value '1' for round_wind"),
    ("123m456p789s55mEE E | flowers=9", r"flowers out of range: 9"),
    ("123m456p789s55mEE E | flowers=1f1f", r"flower 1f repeated"),
    ("123m1f456p789s55mEE E | flowers=1f", r"flower 1f repeated"),
    ("123m1f456p789s55mEE E | flowers=2", r"flowers=2 but 1 flower tiles are written"),
    ("123m456p789s55mEE E | flowers=5m", r"5m is not a flower"),
    ("123m456p789s55mEE E | flowers=", r"needs a value"),
    ("123m456p789s55mEE E | seat", r"situation token 'seat' needs a value"),
    ("123m456p789s55mEE E | self_drawn=1", r"situation token 'self_drawn' takes no value"),
    ("123m456p789s55mEE E | tsumo", r"unknown situation token 'tsumo'"),
    ("123m456p789s55mEE E | kong kong", r"situation token 'kong' given twice"),
    ("123m456p789s55mEE E | seat=S seat_wind=W", r"'seat_wind' given twice"),
    ("123m456p789s55mEE E | win_tile=3s", r"winning tile 3s is not in the hand"),
    ("123m456p789s55mEE E | win_tile=1f", r"flower 1f cannot be a winning tile"),
    ("123m456p789s55mEE E | win_tile=x", r"unknown character 'x'"),
]


@pytest.mark.parametrize("text, match", ERRORS)
def test_errors(text, match):
    with pytest.raises(HandError, match=match):
        parse_hand(text)


KW_ERRORS = [
    (dict(win_tile="3s"), r"winning tile 3s is not in the hand"),
    (dict(win_tile=99), r"out of range"),
    (dict(win_tile=2.0), r"expected a tile index"),
    (dict(seat_wind=4), r"bad wind value 4 for seat_wind"),
    (dict(seat=-1), r"bad wind value -1 for seat_wind"),
    (dict(round=True), r"bad wind value True for round_wind"),
    (dict(round_wind="1z"), r"bad wind value '1z' for round_wind"),
    (dict(seat=1.0), r"bad wind value 1.0"),
    (dict(flowers=9), r"flowers out of range: 9"),
    (dict(flowers=-1), r"flowers out of range: -1"),
    (dict(flowers=True), r"flowers must be a count or flower tiles"),
    (dict(flowers="1f2f3f4f5f6f7f8f1f"), r"flower 1f repeated"),
    (dict(flowers=[34, 34]), r"flower 1f repeated"),
    (dict(flowers=[27]), r"E is not a flower"),
    (dict(flowers=2.5), r"flowers must be a count, flower tiles or notation, got float"),
    (dict(flowers="09"), r"flowers out of range: 9 "),
    (dict(flowers="9" * 5000), r"flowers out of range"),
    (dict(flowers=10 ** 5000), r"flowers out of range"),
    (dict(win_tile=10 ** 5000), r"tile index .* out of range"),
    (dict(seat=10 ** 5000), r"bad wind value"),
    (dict(self_drawn="yes"), r"self_drawn must be True or False, got 'yes'"),
    (dict(kong=2), r"kong must be True or False"),
    (dict(self_drawn=True, kong=True), r"needs a kong meld"),
    (dict(foo=1), r"unknown situation keyword 'foo'"),
    (dict(seat=1, seat_wind=1), r"seat_wind given twice"),
]


@pytest.mark.parametrize("kwargs, match", KW_ERRORS)
def test_keyword_errors(kwargs, match):
    with pytest.raises(HandError, match=match):
        parse_hand(BASE, **kwargs)


def test_win_tile_with_wrong_count():
    # Only a hand exactly one tile short gets the winning tile added.
    with pytest.raises(HandError, match="wrong number of tiles: 11 concealed"):
        parse_hand("123m456p789s5mE", win_tile="E")


@pytest.mark.parametrize("obj", [None, 123, 1.5, b"123m456p789s55mEE E",
                                 bytearray(b"1m"), ["1m"], object(), {"a": 1}])
def test_non_str_input(obj):
    with pytest.raises(HandError, match="expected a hand in notation"):
        parse_hand(obj)


@pytest.mark.parametrize("text", [
    "1m" * 100_000,
    "[" * 1_000_000,
    "123m456p789s55mEE E | " + "kong " * 100_000,
    "5" * (MAX_TEXT_LEN + 1),
])
def test_long_input_rejected_quickly(text):
    start = time.perf_counter()
    with pytest.raises(HandError, match="input too long"):
        parse_hand(text)
    assert time.perf_counter() - start < 0.5


def test_long_keyword_values_rejected_quickly():
    start = time.perf_counter()
    with pytest.raises(HandError):
        parse_hand(BASE, win_tile="5m" * 1_000_000)
    with pytest.raises(HandError):
        parse_hand(BASE, flowers="1f" * 1_000_000)
    with pytest.raises(HandError):
        parse_hand(BASE, flowers="9" * 1_000_000)
    assert time.perf_counter() - start < 0.5


def test_str_subclass_is_read_as_plain_str():
    class Sneaky(str):
        def partition(self, *args):
            raise RuntimeError("not called")

    assert parse_hand(Sneaky(BASE)) == parse_hand(BASE)


def test_hand_error_is_value_error():
    assert issubclass(HandError, ValueError)
    with pytest.raises(ValueError):
        parse_hand("nonsense")
