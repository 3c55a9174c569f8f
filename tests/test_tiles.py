"""Tests for mjkit.tiles: encoding, names, glyphs and plain tile notation."""

import unicodedata

import numpy as np
import pytest

from mjkit import tiles as T
from mjkit.errors import HandError


def test_constants_and_ranges():
    assert T.N_KINDS == 34 and T.N_FLOWERS == 8 and T.N_TILES == 42
    assert list(T.MAN) + list(T.PIN) + list(T.SOU) == list(T.SUITED)
    assert list(T.WINDS) + list(T.DRAGONS) == list(T.HONORS)
    assert (T.EAST, T.SOUTH, T.WEST, T.NORTH) == (27, 28, 29, 30)
    assert (T.WHITE, T.GREEN, T.RED) == (31, 32, 33)
    assert list(T.FLOWERS) == list(range(34, 42))


@pytest.mark.parametrize("text, index", [
    ("1m", 0), ("9m", 8), ("1p", 9), ("5p", 13), ("9p", 17), ("1s", 18), ("9s", 26),
    ("E", 27), ("S", 28), ("W", 29), ("N", 30), ("P", 31), ("F", 32), ("C", 33),
    ("1z", 27), ("4z", 30), ("5z", 31), ("7z", 33),
    ("1f", 34), ("8f", 41), (" 5m ", 4),
])
def test_tile_from_str(text, index):
    assert T.tile_from_str(text) == index


@pytest.mark.parametrize("text", ["", "5", "m", "55m", "0m", "8z", "9f", "x", "e", "5M",
                                  "5m" * 100])
def test_tile_from_str_rejects(text):
    with pytest.raises(HandError):
        T.tile_from_str(text)


@pytest.mark.parametrize("obj", [None, 5, b"5m", ["5m"]])
def test_tile_from_str_rejects_non_str(obj):
    with pytest.raises(HandError):
        T.tile_from_str(obj)


def test_tile_to_str_round_trip():
    for i in range(T.N_TILES):
        assert T.tile_from_str(T.tile_to_str(i)) == i
    assert T.tile_to_str(4) == "5m" and T.tile_to_str(27) == "E"
    assert T.tile_to_str(31) == "P" and T.tile_to_str(34) == "1f"


@pytest.mark.parametrize("bad", [-1, 42, 1.0, "5m", None, True])
def test_tile_to_str_rejects(bad):
    with pytest.raises(HandError):
        T.tile_to_str(bad)


def test_tile_to_str_accepts_numpy_ints():
    assert T.tile_to_str(np.int64(13)) == "5p"


@pytest.mark.parametrize("text, expected", [
    ("123m E 1z", [0, 1, 2, 27, 27]),
    ("1 2 3m", [0, 1, 2]),                       # whitespace is ignored everywhere
    ("19m19p19sESWNPFC", [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]),
    ("5671234z", [31, 32, 33, 27, 28, 29, 30]),  # digit runs of 1z..7z
    ("13f", [34, 36]),
    ("", []),
    ("\U0001F007\U0001F019\U0001F010\U0001F000\U0001F006\U0001F004", [0, 9, 18, 27, 31, 33]),
])
def test_parse_tiles(text, expected):
    assert T.parse_tiles(text) == expected


@pytest.mark.parametrize("text, match", [
    ("12x3m", r"unknown character 'x' at position 2"),
    ("123", r"digits '123' at position 0 have no suit letter"),
    ("12E", r"digits '12' at position 0 have no suit letter"),
    ("1m p", r"suit letter 'p' at position 3 has no digits"),
    ("10m", r"0m at position 1 is not a tile"),
    ("8z", r"8z at position 0 is not a tile"),
    ("9f", r"9f at position 0 is not a tile"),
    ("e", r"unknown character 'e'"),
    ("\U0001F02B", r"unknown character"),             # tile back is no tile
    ("５m", r"unknown character"),                      # full-width digit
])
def test_parse_tiles_errors(text, match):
    with pytest.raises(HandError, match=match):
        T.parse_tiles(text)


def test_scan_tiles_offset_and_positions():
    assert T.scan_tiles("12m E", offset=10) == [(0, 12), (1, 12), (27, 14)]
    with pytest.raises(HandError, match="position 13"):
        T.scan_tiles("12mx", offset=10)


@pytest.mark.parametrize("tiles, text", [
    ([0, 1, 2, 12, 13, 14, 24, 25, 26], "123m456p789s"),
    ([27, 33, 31, 0], "1mEPC"),
    ([30, 27, 9, 9], "11pEN"),
    ([41, 34, 20], "3s18f"),
    ([], ""),
])
def test_tiles_to_str(tiles, text):
    assert T.tiles_to_str(tiles) == text
    assert sorted(T.parse_tiles(text)) == sorted(tiles)


def test_counts34():
    c = T.counts34([0, 0, 33, 27])
    assert c.dtype == np.int64 and c.shape == (34,)
    assert c[0] == 2 and c[33] == 1 and c[27] == 1 and c.sum() == 4
    assert (T.counts34("11m C E") == c).all()
    with pytest.raises(HandError, match="flower"):
        T.counts34([34])


def test_names():
    assert T.TILE_NAMES_ZH[0] == "一万" and T.TILE_NAMES_EN[0] == "1 Character"
    assert T.TILE_NAMES_ZH[13] == "五饼" and T.TILE_NAMES_EN[13] == "5 Dot"
    assert T.TILE_NAMES_ZH[26] == "九条" and T.TILE_NAMES_EN[26] == "9 Bamboo"
    assert T.tile_name(27, "zh") == "东风" and T.tile_name(27) == "East Wind"
    assert T.tile_name(31, "zh") == "白板" and T.tile_name(31) == "White Dragon"
    assert T.tile_name(32, "zh") == "发财" and T.tile_name(33, "zh") == "红中"
    assert T.TILE_NAMES_ZH[34:] == ("春", "夏", "秋", "冬", "梅", "兰", "竹", "菊")
    assert T.tile_name(34) == "Spring" and T.tile_name(41) == "Chrysanthemum"
    assert len(T.TILE_NAMES_ZH) == len(T.TILE_NAMES_EN) == T.N_TILES
    with pytest.raises(HandError):
        T.tile_name(0, "fr")


def _glyph_words(i):
    return unicodedata.name(T.tile_glyph(i))


def test_glyphs_match_unicode_names():
    # The Unicode names are the ground truth for the code-point table.
    assert len(set(T.TILE_GLYPHS)) == T.N_TILES
    assert _glyph_words(0) == "MAHJONG TILE ONE OF CHARACTERS"
    assert _glyph_words(17) == "MAHJONG TILE NINE OF CIRCLES"
    assert _glyph_words(18) == "MAHJONG TILE ONE OF BAMBOOS"
    assert _glyph_words(27) == "MAHJONG TILE EAST WIND"
    assert _glyph_words(31) == "MAHJONG TILE WHITE DRAGON"
    assert _glyph_words(32) == "MAHJONG TILE GREEN DRAGON"
    assert _glyph_words(33) == "MAHJONG TILE RED DRAGON"
    seasons_and_flowers = ["SPRING", "SUMMER", "AUTUMN", "WINTER",
                           "PLUM", "ORCHID", "BAMBOO", "CHRYSANTHEMUM"]
    for k, word in enumerate(seasons_and_flowers):
        assert _glyph_words(34 + k) == f"MAHJONG TILE {word}"
    assert T.TILE_GLYPHS[34] == "🀦" and T.TILE_GLYPHS[38] == "🀢"
    for i in range(T.N_TILES):
        assert T.parse_tiles(T.tile_glyph(i)) == [i]


def test_predicates():
    assert T.is_suited(0) and T.is_suited(26) and not T.is_suited(27)
    assert [T.suit_of(i) for i in (0, 9, 18, 27, 34)] == ["m", "p", "s", "z", "f"]
    assert [T.rank_of(i) for i in (0, 13, 26, 27, 33, 34, 41)] == [1, 5, 9, 1, 7, 1, 8]
    assert T.is_terminal(0) and T.is_terminal(17) and not T.is_terminal(4)
    assert not T.is_terminal(27)
    assert T.is_honor(27) and T.is_honor(33) and not T.is_honor(26) and not T.is_honor(34)
    assert T.is_wind(30) and not T.is_wind(31)
    assert T.is_dragon(31) and not T.is_dragon(30)
    assert T.is_flower(34) and not T.is_flower(33)
    assert T.is_terminal_or_honor(8) and T.is_terminal_or_honor(32)
    assert not T.is_terminal_or_honor(1)
    with pytest.raises(HandError):
        T.is_honor(99)
