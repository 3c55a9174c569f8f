"""The notation home: every scanner and writer of tiles, melds and hands lives in
``mjkit.tiles`` and ``mjkit.hand``, and other modules use their public names."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import mjkit
from mjkit import HandError
from mjkit.hand import (
    Hand, Meld, hand_text, hand_to_str, parse_hand, parse_meld, parse_situation, read_tile_part,
)
from mjkit.random_hands import random_hand_parts, random_winning_hands
from mjkit.tiles import (
    counts34, scan_groups, set_tiles, tile_index, tiles_of_counts, tiles_to_str,
)

PACKAGE = pathlib.Path(mjkit.__file__).parent
# (sorted tiles, concealed) of every meld notation accepts
_VALID = {(m.tiles, m.concealed) for t in range(34)
          for m in [Meld("pung", t), Meld("kong", t), Meld("kong", t, True)]
          + ([Meld("chow", t)] if t < 27 and t % 9 < 7 else [])}


def _outcome(f, *args):
    try:
        return f(*args)
    except HandError as exc:
        return ("error", exc.code)


# -- scanners -------------------------------------------------------------------


def test_scan_groups_matches_read_tile_part():
    texts = [t.partition("|")[0] for t in random_winning_hands(500, seed=21)]
    bad = ["[123m", "123m]", "[12m]", "[[123m]]", "{123m}", "[123m}", "1[23m]", "0m", "8z",
           "12", "m", "[]", "[1m 2m 3m]", "1 2 3 m", "X", "[EEE]{FFFF}", "1f2f", "🀀🀀🀀"]
    for text in texts + bad:
        fast = scan_groups(text)
        slow = _outcome(read_tile_part, text)
        if fast is None:
            continue  # gave up: only the checked reader says why
        groups, loose = fast
        if isinstance(slow, tuple) and slow and slow[0] == "error":
            # scanned, but a group is no meld ([12m], []): read_tile_part refuses
            assert slow[1] in ("bad_meld", "syntax"), (text, slow)
            assert any((tuple(sorted(g)), c) not in _VALID for g, c in groups), text
            continue
        melds, tiles = slow
        assert loose == tiles, text
        assert [tuple(sorted(g)) for g, _ in groups] == [tuple(sorted(m.tiles)) for m in melds]
        assert [c for _, c in groups] == [m.concealed for m in melds], text
    assert scan_groups("[123m]{EEEE}45p") == ([((0, 1, 2), False), ((27,) * 4, True)], [12, 13])
    assert scan_groups("[123m") is None and scan_groups("12") is None


def test_read_tile_part_errors_have_codes():
    for text, code in [("[123m", "syntax"), ("[12m]", "bad_meld"), ("0m", "unknown_tile"),
                       ("X", "syntax"), ("1" * 2000, "syntax")]:
        with pytest.raises(HandError) as info:
            read_tile_part(text)
        assert info.value.code == code, (text, info.value)
    with pytest.raises(HandError):
        read_tile_part(123)


def test_parse_meld_and_situation():
    assert parse_meld("[123m]") == Meld("chow", 0)
    assert parse_meld("{EEEE}") == Meld("kong", 27, True)
    for bad in ("123m", "[123m][456p]", "[123m]4m", 5):
        with pytest.raises(HandError):
            parse_meld(bad)
    assert parse_situation("self_drawn seat=S flowers=13f") == {
        "self_drawn": True, "seat_wind": "S", "flowers": "13f"}
    assert parse_situation("天和 round = W") == {"heavenly_hand": True, "round_wind": "W"}
    for bad in ("nope", "self_drawn=1", "seat=", "seat=S seat=E"):
        with pytest.raises(HandError) as info:
            parse_situation(bad)
        assert info.value.code == "bad_flag"


def test_tile_index():
    assert tile_index(np.int64(41)) == 41 and type(tile_index(np.int8(3))) is int
    for bad, code in [(42, "unknown_tile"), (-1, "unknown_tile"), (True, "bad_argument"),
                      ("1m", "bad_argument"), (1.0, "bad_argument")]:
        with pytest.raises(HandError) as info:
            tile_index(bad)
        assert info.value.code == code, bad


# -- writers --------------------------------------------------------------------


def test_tiles_of_counts_inverts_counts34():
    rng = np.random.default_rng(3)
    for _ in range(50):
        tiles = sorted(rng.integers(0, 34, 14).tolist())
        assert tiles_of_counts(counts34(tiles)) == tiles
    assert tiles_of_counts([0, 2, 1]) == [1, 1, 2] and tiles_of_counts(np.zeros(34, int)) == []


def test_set_tiles():
    assert set_tiles("chow", 9) == (9, 10, 11) and set_tiles("kong", 5) == (5,) * 4
    assert set_tiles("pung", 33) == (33,) * 3 and set_tiles("pair", 0) == (0, 0)
    for m in [Meld("chow", 20), Meld("pung", 27), Meld("kong", 3, True)]:
        assert set_tiles(m.kind, m.tile) == m.tiles
    with pytest.raises(HandError):
        set_tiles("knitted", 0)


def test_hand_text():
    melds = [Meld("chow", 0), Meld("kong", 27, True)]
    assert hand_text([13, 12, 31], melds) == "[123m]{EEEE}45pP"
    assert hand_text([13, 12, 31], melds, win_tile=12) == "[123m]{EEEE}5pP 4p"
    assert hand_text([], ()) == ""
    with pytest.raises(HandError) as info:
        hand_text([1, 2], win_tile=3)
    assert info.value.code == "win_tile"


def test_hand_to_str_round_trips():
    for h in random_hand_parts(2000, seed=22):
        plain = h.to_hand()
        text = hand_to_str(plain)
        assert text == str(plain) and parse_hand(text) == plain
        full = hand_to_str(plain, all_winds=True)
        assert full == h.notation() and parse_hand(full) == plain
        assert "seat=" in full and "round=" in full
        melds, tiles = read_tile_part(text.partition("|")[0])
        assert tuple(melds) == plain.melds and sorted(tiles) == list(plain.concealed)
    h = parse_hand("[123m] 456p 789s 55m EE E | seat=S flowers=2")
    assert hand_to_str(h) == "[123m]55m456p789sEE E | seat=S flowers=2"
    assert hand_to_str(h, all_winds=True) == "[123m]55m456p789sEE E | seat=S round=E flowers=2"
    assert str(parse_hand("123m456p789s55mEE E")) == "12355m456p789sEE E"


def test_tiles_to_str_of_sets_is_the_meld_body():
    for m in [Meld("chow", 6), Meld("pung", 30), Meld("kong", 18), Meld("kong", 33, True)]:
        body = tiles_to_str(m.tiles)
        assert str(m) in (f"[{body}]", f"{{{body}}}")


# -- one home ---------------------------------------------------------------------


def _imports(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield node.module.rsplit(".", 1)[-1], alias.name


def test_no_private_imports_across_modules():
    bad = [(str(p.relative_to(PACKAGE)), mod, name)
           for p in PACKAGE.rglob("*.py") for mod, name in _imports(p)
           if name.startswith("_") and not name.startswith("__")]
    assert not bad, bad


def test_no_second_hand_model_or_writer():
    import mjkit.random_hands as R

    for gone in ("MeldSpec", "HandParts", "format_hand", "_format_tiles", "_format_meld"):
        assert not hasattr(R, gone), gone
    assert issubclass(R.RandomHand, Hand)
    source = (PACKAGE / "random_hands.py").read_text(encoding="utf-8")
    assert "N_TILES = 34" not in source
