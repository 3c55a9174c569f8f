"""Actions at the table (mjkit.table.actions): the notation read and printed, bad texts
refused naming what is wrong, an action without its tile completed from the legal ones
(or refused naming the choices), the kernel rows, and every legal exchange listed."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from mjkit import HandError
from mjkit.table.actions import (A_CHOW, A_DISCARD, A_EXCHANGE, A_KONG, A_NONE, A_PASS,
                                 A_PUNG, A_WIN, KINDS, Action, as_action, exchange_choices,
                                 from_kernel, parse_action, resolve, to_kernel)
from mjkit.tiles import parse_tiles, tile_from_str

T = tile_from_str

GOOD = [
    # (text, canonical text, Action)
    ("discard 5m", "discard 5m", Action("discard", T("5m"))),
    ("  DISCARD   5M ", "discard 5m", Action("discard", T("5m"))),
    ("discard e", "discard E", Action("discard", T("E"))),
    ("discard 1z", "discard E", Action("discard", T("E"))),
    ("discard5p", "discard 5p", Action("discard", T("5p"))),
    ("chow 345m", "chow 345m", Action("chow", T("3m"))),
    ("chow 3m", "chow 345m", Action("chow", T("3m"))),
    ("Chow 5 4 3 s", "chow 345s", Action("chow", T("3s"))),
    ("chow 7p", "chow 789p", Action("chow", T("7p"))),
    ("chow", "chow", Action("chow")),
    ("pung", "pung", Action("pung")),
    ("pung 5m", "pung 5m", Action("pung", T("5m"))),
    ("pung 555m", "pung 5m", Action("pung", T("5m"))),
    ("Pung p", "pung P", Action("pung", T("P"))),
    ("kong 7p", "kong 7p", Action("kong", T("7p"))),
    ("kong 7777p", "kong 7p", Action("kong", T("7p"))),
    ("kong", "kong", Action("kong")),
    ("win", "win", Action("win")),
    ("WIN", "win", Action("win")),
    ("pass", "pass", Action("pass")),
    ("exchange", "exchange", Action("exchange")),
    ("exchange 1m 9p E", "exchange 1m 9p E", Action("exchange", tiles=(0, 17, 27))),
    ("exchange E 9p 1m", "exchange E 9p 1m", Action("exchange", tiles=(27, 17, 0))),
    ("exchange e 9P 1M", "exchange E 9p 1m", Action("exchange", tiles=(27, 17, 0))),
    ("exchange 11m", "exchange 1m 1m", Action("exchange", tiles=(0, 0))),
    ("exchange 🀄", "exchange C", Action("exchange", tiles=(T("C"),))),
]


@pytest.mark.parametrize("text, canonical, action", GOOD, ids=[g[0] for g in GOOD])
def test_notation_is_read_and_printed(text, canonical, action):
    a = parse_action(text)
    assert a == action and str(a) == canonical
    assert parse_action(str(a)) == a                    # printing reads back
    assert as_action(text) == a and as_action(a) is a
    assert repr(a) == f"Action({canonical!r})"


BAD = [
    # (text, code, what the message says)
    ("fold", "syntax", "unknown verb 'fold'"),
    ("", "syntax", "unknown verb"),
    ("discardE", "syntax", "unknown verb"),
    ("kongE", "syntax", "unknown verb"),
    ("discard", "tile_count", "exactly one tile, got 0"),
    ("discard 5m 6m", "tile_count", "exactly one tile, got 2"),
    ("discard 1f", "unknown_tile", "1f is a flower"),
    ("discard 0m", "unknown_tile", "0m at position 8 is not a tile"),
    ("discard 5x", "syntax", "unknown character 'x'"),
    ("discard 55", "syntax", "have no suit letter"),
    ("chow E", "bad_meld", "honours make no chow"),
    ("chow EEE", "bad_meld", "honours make no chow"),
    ("chow 8m", "bad_meld", "no chow starts at 8m"),
    ("chow 89m", "tile_count", "three tiles in a row"),
    ("chow 357m", "bad_meld", "not three tiles in a row"),
    ("chow 3m4p5s", "bad_meld", "not three tiles in a row"),
    ("pung 5m6m", "bad_meld", "names its tile once"),
    ("pung 55m", "bad_meld", "names its tile once"),
    ("kong 777p", "bad_meld", "names its tile once"),
    ("win 5m", "syntax", "win takes no tile"),
    ("pass E", "syntax", "pass takes no tile"),
    ("exchange 1m 2m 3m 4m", "tile_count", "at most 3"),
    ("exchange 1f", "unknown_tile", "flower"),
    ("discard " + "5m" * 60, "syntax", "too long"),
]


@pytest.mark.parametrize("text, code, message", BAD, ids=[b[0][:20] or "empty" for b in BAD])
def test_bad_notation_is_refused_naming_the_text(text, code, message):
    with pytest.raises(HandError, match=message) as err:
        parse_action(text)
    assert err.value.code == code
    if "too long" not in message:
        assert repr(text) in str(err.value)


@pytest.mark.parametrize("bad", [5, None, b"discard 5m", ["discard", "5m"], (1, 4, -1, -1)])
def test_only_actions_and_text_are_actions(bad):
    with pytest.raises(HandError, match="an action is"):
        as_action(bad)


@pytest.mark.parametrize("args, message", [
    (("shout",), "unknown action kind"),
    (("discard",), "a discard needs its tile"),
    (("win", 3), "a win action takes no tile"),
    (("discard", 34), "a flower is never played"),
    (("discard", -1), "tile kind 0..33"),
    (("discard", True), "tile kind 0..33"),
    (("discard", "5m"), "tile kind 0..33"),
    (("chow", 7), "no chow starts at 8m"),
    (("chow", 27), "honours make no chow"),
    (("pung", None, (1,)), "only an exchange gives up tiles"),
    (("exchange", None, (1, 2, 3, 4)), "at most 3"),
    (("exchange", None, "123"), "tuple of tile kinds"),
])
def test_an_action_value_is_checked_when_made(args, message):
    with pytest.raises(HandError, match=message):
        Action(*args)


def test_actions_are_values():
    assert Action("discard", np.int64(4)) == Action("discard", 4)
    assert type(Action("discard", np.int64(4)).tile) is int
    assert len({Action("pung", 4), parse_action("pung 5m"), Action("pung")}) == 2
    with pytest.raises(AttributeError):
        Action("pung").tile = 3


# ------------------------------------------------------------------ matching the legal ones

LEGAL = [Action("chow", T("3m")), Action("chow", T("4m")), Action("pung", T("5m")),
         Action("kong", T("5m")), Action("pass")]


def test_an_action_without_its_tile_is_completed_from_the_legal_ones():
    assert parse_action("pung").normalise(LEGAL) == Action("pung", T("5m"))
    assert resolve("kong", LEGAL) == Action("kong", T("5m"))
    assert resolve("chow 456m", LEGAL) == Action("chow", T("4m"))
    assert resolve("chow 4m", LEGAL) is LEGAL[1]
    assert resolve(Action("pass"), LEGAL) is LEGAL[4]
    assert Action("pung").matches(LEGAL[2]) and not Action("pung", 3).matches(LEGAL[2])
    assert not Action("pung").matches("pung 5m")


def test_an_ambiguous_action_names_the_choices():
    with pytest.raises(HandError, match=r"^seat 1 \(claim\): 'chow' could be chow 345m, "
                                        r"chow 456m: say which, e\.g\. 'chow 345m'$"):
        parse_action("chow").resolve(LEGAL, what="seat 1 (claim)")


def test_an_illegal_action_names_the_legal_ones():
    with pytest.raises(HandError, match=r"'discard 5m' is not a legal action now; legal: "
                                        r"chow 345m, chow 456m, pung 5m, kong 5m, pass$"):
        resolve("discard 5m", LEGAL)
    with pytest.raises(HandError, match=r"'chow 567m' is not a legal action now"):
        resolve("chow 567m", LEGAL)
    many = exchange_choices([2] * 14 + [0] * 20)
    with pytest.raises(HandError, match=r"\.\.\. \(\d+ in all\)$"):
        resolve("exchange E", many)


# ------------------------------------------------------------------ kernel rows


def test_kernel_codes_follow_the_kinds():
    assert [A_NONE, A_DISCARD, A_CHOW, A_PUNG, A_KONG, A_WIN, A_PASS, A_EXCHANGE] == \
        list(range(8))
    assert KINDS == ("discard", "chow", "pung", "kong", "win", "pass", "exchange")


def test_the_kernel_reads_the_same_codes():
    """The game kernel's module holds the codes as numba globals: they are these."""
    from mjkit._kernels import game_state as S

    names = ["A_NONE", "A_DISCARD", "A_CHOW", "A_PUNG", "A_KONG", "A_WIN", "A_PASS",
             "A_EXCHANGE"]
    import mjkit.table.actions as A

    assert [getattr(S, n) for n in names] == [getattr(A, n) for n in names]


@pytest.mark.parametrize("text, row", [
    ("discard 5m", (A_DISCARD, 4, -1, -1)),
    ("chow 456p", (A_CHOW, 12, -1, -1)),
    ("pung E", (A_PUNG, 27, -1, -1)),
    ("kong 9s", (A_KONG, 26, -1, -1)),
    ("win", (A_WIN, -1, -1, -1)),
    ("pass", (A_PASS, -1, -1, -1)),
    ("exchange", (A_EXCHANGE, -1, -1, -1)),
    ("exchange C 1m", (A_EXCHANGE, 33, 0, -1)),
    ("exchange 1m 1m 9s", (A_EXCHANGE, 0, 0, 26)),
])
def test_kernel_rows_round_trip(text, row):
    a = parse_action(text)
    assert a.to_kernel() == row == to_kernel(text)
    assert all(type(x) is int for x in a.to_kernel())
    assert from_kernel(row) == a
    assert from_kernel(np.asarray(row, np.int32)) == a


def test_an_incomplete_action_never_goes_to_the_kernel():
    with pytest.raises(HandError, match="normalise it against the legal actions"):
        Action("pung").to_kernel()


@pytest.mark.parametrize("row, message", [
    ((A_NONE, -1, -1, -1), "unknown code 0"),
    ((9, 0, -1, -1), "unknown code 9"),
    ((A_DISCARD, 4, 5, -1), "uses only its first field"),
    ((A_WIN, 3, -1, -1), "takes no tile"),
    ((A_DISCARD, 40, -1, -1), "a flower is never played"),
    ((A_EXCHANGE, -1, 3, -1), "after an unused field"),
    ((A_DISCARD, 4, -1), "four whole numbers"),
    ((A_DISCARD, 4.0, -1, -1), "four whole numbers"),
    ((True, 4, -1, -1), "four whole numbers"),
    ("1 4 -1 -1", "four whole numbers"),
])
def test_bad_kernel_rows_are_refused(row, message):
    with pytest.raises(HandError, match=message):
        from_kernel(row)


# ------------------------------------------------------------------ exchanges


def _brute(counts, wild):
    held = [t for t in range(34) for _ in range(counts[t]) if t != wild]
    out = set()
    for n in range(4):
        out |= set(itertools.combinations(held, n))
    return sorted(out, key=lambda c: (len(c), c))


@pytest.mark.parametrize("hand, wild", [
    ("123456789m 11p 23p E", None),
    ("123456789m 11p 23p E", "1p"),
    ("1111m 2222p 3333s EE", -1),
    ("5m", None),
    ("", None),
])
def test_exchange_choices_are_every_multiset_once(hand, wild):
    counts = [0] * 34
    for t in parse_tiles(hand):
        counts[t] += 1
    w = T(wild) if isinstance(wild, str) else wild
    got = exchange_choices(np.asarray(counts, np.int8), w)
    assert [a.tiles for a in got] == _brute(counts, -1 if w is None else w)
    assert got[0] == Action("exchange") and len(set(got)) == len(got)
    for a in got:
        assert a.kind == "exchange" and a.tiles == tuple(sorted(a.tiles))
        assert all(n <= counts[t] for t, n in Counter(a.tiles).items())
        assert w is None or w not in a.tiles


@pytest.mark.parametrize("counts, wild, message", [
    ([0] * 33, None, "34 copy counts, got 33"),
    ([0] * 35, None, "got 35 or more"),
    ([5] + [0] * 33, None, "copy counts 0..4"),
    ([0.5] * 34, None, "whole numbers"),
    ("1m", None, "34 copy counts"),
    ([0] * 34, 34, "wild_kind must be"),
    ([0] * 34, True, "wild_kind must be"),
])
def test_exchange_choices_check_their_arguments(counts, wild, message):
    with pytest.raises(HandError, match=message):
        exchange_choices(counts, wild)
