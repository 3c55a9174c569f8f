"""``visible=`` is read one way everywhere (issue 35 §2).

Every public function that takes the tiles seen outside the hand reads them with
:func:`mjkit.validate.visible_counts`: a number, a flag, an object, a dict or a set, a
nested list, a bad tile or a fifth copy (alone or with the hand's) is a
:class:`mjkit.HandError` whose message names ``visible``, never a TypeError or a silent
answer; every accepted spelling gives the same answer.
"""

from __future__ import annotations

import numpy as np
import pytest

import mjkit
from mjkit import validate
from mjkit.errors import HandError
from mjkit.shanten import read_hand_counts
from mjkit.tiles import tile_to_str
from mjkit.winprob import win_chances

HAND = "123m456p789s1236s"      # 13 tiles waiting on 6s / 9s: one 6s held

# Every public function with a ``visible`` argument, called on HAND (the searches with
# one draw, so a good value answers in milliseconds).
CALLS = {
    "waits": lambda v: mjkit.waits(HAND, "gb", visible=v),
    "shanten": lambda v: mjkit.shanten(HAND, visible=v),
    "distance_to": lambda v: mjkit.distance_to(HAND, visible=v),
    "targets": lambda v: mjkit.targets(HAND, visible=v, top=1),
    "win_chances": lambda v: win_chances(HAND, 1, "gb", visible=v, mode="exact"),
    "advise": lambda v: mjkit.advise(HAND, "gb", draws_left=1, visible=v, mode="exact",
                                     top_targets=1),
    "read_hand_counts": lambda v: read_hand_counts(HAND, None, v),
    "visible_counts": validate.visible_counts,
}

BAD = {
    "-1": -1,
    "int": 5,
    "float": 1.5,
    "object": object(),
    "True": True,
    "numpy int": np.int64(3),
    "dict": {"1m": 1},
    "set": {"1m", "2m"},
    "bytes": b"1m",
    "bad tile in list": ["1m", "0m"],
    "float in list": ["1m", 1.5],
    "None in list": [None],
    "bool in list": [True],
    "index past the flowers": [42],
    "two tiles in one item": ["12m"],
    "nested list": [["1m", "2m"]],
    "2-d array": np.array([[0, 1], [2, 3]]),
    "bad notation": "1m0m",
    "unreadable text": "1m x",
    "text too long": "1m" * 600,
    "fifth copy seen": "1m1m1m1m1m",
    "fifth copy with the hand's": "6s6s6s6s",
    "too many tiles": ["1m"] * 200,
}


# visible_counts alone does not know the hand: the reader of the hand counts its copies
PAIRS = [(fn, bad) for fn in CALLS for bad in BAD
         if (fn, bad) != ("visible_counts", "fifth copy with the hand's")]


@pytest.mark.parametrize("fn, bad", PAIRS, ids=[f"{fn}-{bad}" for fn, bad in PAIRS])
def test_a_bad_visible_is_a_hand_error_naming_visible(fn, bad):
    with pytest.raises(HandError) as info:
        CALLS[fn](BAD[bad])
    assert "visible" in str(info.value), str(info.value)


def test_copies_are_counted_with_the_hand():
    with pytest.raises(HandError) as info:
        read_hand_counts(HAND, None, "6s6s6s6s")
    assert info.value.code == "too_many_copies"
    with pytest.raises(HandError) as info:
        mjkit.waits("1111m456p789s123s", "gb", visible="1m")    # a tile that is no wait
    assert info.value.code == "too_many_copies" and "visible" in str(info.value)


# Spellings of the same tiles seen: 6s twice, East and 1m, a flower (set aside)
SAME = {
    "notation": "6s 6s E 1m",
    "notation with a flower": "6s6sE 1f 1m",
    "list of notation": ["6s", "6s", "E", "1m"],
    "list of indices": [23, 23, 27, 0],
    "numpy indices": np.array([23, 23, 27, 0]),
    "mixed, from a generator": lambda: (t for t in ["6s", 23, "E", np.int32(0)]),
    "tuple": ("6s", "6s", "E", "1m"),
}


def _answer(fn, v):
    r = CALLS[fn](v)
    if fn == "waits":
        return [(w.tile, w.unseen) for w in r.waits]
    if fn == "shanten":
        return r.shanten, list(r.useful), r.unseen_total
    if fn == "distance_to":
        return r.distance, str(r)
    if fn == "targets":
        return r.table.drop(columns=["seconds"], errors="ignore").to_csv()
    if fn == "win_chances":
        return [(c.tile, c.p_win) for c in r.choices], r.states
    if fn == "advise":
        return r.to_frame().to_csv()
    if fn == "read_hand_counts":
        return r[3].tolist()
    return r.tolist()


@pytest.mark.parametrize("fn", list(CALLS), ids=list(CALLS))
def test_every_spelling_of_the_same_tiles_gives_the_same_answer(fn):
    want = _answer(fn, "6s6sE1m")
    for name, v in SAME.items():
        assert _answer(fn, v() if callable(v) else v) == want, name
    # nothing seen, however written
    assert _answer(fn, None) == _answer(fn, "") == _answer(fn, []) == _answer(fn, ())


def test_the_counts():
    assert validate.visible_counts(None).tolist() == [0] * 34
    got = validate.visible_counts("[456p] 6s 6s 1f E")
    assert got.dtype == np.int64 and got.shape == (34,)
    assert {tile_to_str(int(t)): int(got[t]) for t in np.flatnonzero(got)} == {
        "4p": 1, "5p": 1, "6p": 1, "6s": 2, "E": 1}
    assert validate.visible_counts("1m" * 4)[0] == 4                    # four is fine
    assert "seen" in str(pytest.raises(HandError, validate.visible_counts, "E" * 5).value)
    # a waits answer: the unseen copies of its wait drop by the tiles seen
    assert {w.tile: w.unseen for w in mjkit.waits(HAND, "gb", visible=["6s", 23]).waits} \
        == {"6s": 1, "9s": 3}
