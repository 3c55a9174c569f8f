"""The fast paths of parse_hand / Hand agree with the checked ones.

``parse_hand`` reads well-formed text with a one-pass scanner and builds the
Hand without re-normalising fields it has already validated; ``Hand(...)``
skips normalisation when the fields are already canonical; ``scan_tiles``
and ``tiles_to_str`` have fast paths too.  Each fast path must give exactly
the result of the general one, and fall back to it for every error, so the
messages stay the same.  These tests compare the two on many random inputs.
"""

import random
import re

import numpy as np
import pytest

from mjkit import hand as H
from mjkit import tiles as T
from mjkit.errors import HandError
from mjkit.hand import Hand, Meld, parse_hand
from mjkit.random_hands import random_winning_hands

try:
    from test_hand_situation import situation_problems  # tests/ is on sys.path
except ImportError:  # pragma: no cover - run as a package
    from tests.test_hand_situation import situation_problems

FIELDS = tuple(Hand.__dataclass_fields__)
ALPHABET = (list("0123456789mpszf ESWNPFC[]{}|=,_\t\u3000xe") + list(T.TILE_GLYPHS)
            + ["\U0001F02B", "５"])
TOKENS = ["self_drawn", "last_copy", "kong", "last_wall", "seat=S", "seat = W", "round=N",
          "round=1", "flowers=2", "flowers=1f3f", "flowers=9", "flowers=", "win_tile=E",
          "win_tile=5m", "seat", "tsumo", "round_wind=south", ",", "=", "flowers=1f1f",
          "kong=1", "seat=东", "seat=West", "heavenly_hand", "earthly_hand", "human_hand",
          "heavenly_ready", "earthly_ready", "declared_ready", "double_ready", "天和", "人和",
          "地听", "报听", "双报听", "报听=1", "double_ready=", "天"]
EXTRA_VALID = [
    "[123m]{EEEE}456p789s1p 1p", "1 2 3 m4 56p789s5 5mE E E", "[555p][1111s]{9999m}[123m] C C",
    "123m456p789s55mEE E | seat = N, round = south", "123m 1f 456p789s55mEE 3f E",
    "🀇🀈🀉🀙🀚🀛🀐🀑🀒🀋🀋🀀🀀 🀀", "123m456p789s55mEE E|win_tile=5m",
    "[5555m]123p456p789s1s 1s | self_drawn kong", "[555m]123p456p789s1s 5m | last_copy",
    "{5555m}123p456p789s1s 1s | self_drawn kong", "[321m] 5m5m 987s 654p E E E",
    "123m456p789s55mEE E | self_drawn heavenly_hand", "123m456p789s55mEE E | 人和",
    "123m456p789s55mEE E | self_drawn earthly_hand heavenly_ready double_ready seat=S",
    "{5555m}123p456p789s1s 1s | declared_ready 双报听", "123m456p789s55mEE E | earthly_ready",
]


def outcome(func, *args, **kwargs):
    """("ok", value) or ("error", message); anything else is a test failure."""
    try:
        return "ok", func(*args, **kwargs)
    except HandError as exc:
        return "error", str(exc)


def fields_of(hand):
    """Field values with their types, so int/bool/tuple normalisation is compared too."""
    out = []
    for name in FIELDS:
        value = getattr(hand, name)
        if name == "melds":
            value = tuple((type(m), m.kind, m.tile, type(m.tile), m.concealed,
                           type(m.concealed)) for m in value)
        elif isinstance(value, tuple):
            value = (value, tuple(type(v) for v in value))
        out.append((name, type(value), value))
    return out


def mutate(rnd, text):
    chars = list(text)
    for _ in range(rnd.choice([1, 1, 2, 3])):
        pos = rnd.randrange(len(chars) + 1)
        op = rnd.random()
        if op < 0.35 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op < 0.7:
            chars.insert(pos, rnd.choice(ALPHABET))
        elif chars:
            chars[min(pos, len(chars) - 1)] = rnd.choice(ALPHABET)
    return "".join(chars)


def random_texts(seed, n):
    """Valid hands, mutated hands, character soup and situation-suffix soup."""
    rnd = random.Random(seed)
    valid = random_winning_hands(500, seed=seed) + EXTRA_VALID
    for _ in range(n):
        r = rnd.random()
        if r < 0.3:
            yield rnd.choice(valid)
        elif r < 0.65:
            yield mutate(rnd, rnd.choice(valid))
        elif r < 0.8:
            yield "".join(rnd.choice(ALPHABET) for _ in range(rnd.randrange(30)))
        else:
            base = rnd.choice(valid).partition("|")[0]
            sep = rnd.choice([" ", ", ", "  ", "\t"])
            yield base + " | " + sep.join(rnd.sample(TOKENS, rnd.randrange(5)))


class Checked(Hand):
    """H._build constructs subclasses with Hand(...); numpy tile values make
    Hand.__post_init__ take its general normalisation path as well."""

    def __post_init__(self):
        object.__setattr__(self, "concealed", [np.int64(t) for t in self.concealed])
        super().__post_init__()


def checked_parse(text, **situation):
    """parse_hand forced onto the checked path: reference scanner, full Hand()."""
    overrides = H._canonical_situation(situation, "keyword")
    tile_part, bar, suffix = text.partition("|")
    if "|" in suffix:
        return parse_hand(text, **situation)  # the error comes before any scanning
    melds, tiles = H._read_tile_part_checked(tile_part)
    merged = reference_parse_suffix(suffix) if bar else {}
    merged.update(overrides)
    hand = H._build(Checked, tiles, melds, merged)
    reference_validate(hand)
    return Hand(**{name: getattr(hand, name) for name in FIELDS})


def reference_parse_suffix(text):
    """The original, regex-only H.parse_situation."""
    text = re.sub(r"\s*=\s*", "=", text)
    out = {}
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        key, eq, value = token.partition("=")
        name = H._ALIASES.get(key, key)
        if name in H._FLAGS:
            if eq:
                raise HandError(f"situation token {key!r} takes no value")
            value = True
        elif name in H._VALUED:
            if not value:
                raise HandError(f"situation token {key!r} needs a value, e.g. {key}=…")
        else:
            raise HandError(f"unknown situation token {T._short_repr(token)}")
        if name in out:
            raise HandError(f"situation token {name!r} given twice")
        out[name] = value
    return out


def reference_validate(hand):
    """The original, numpy-based Hand._validate (cross-field checks), with the
    first-turn / ready rules as tests/test_hand_situation.py states them; a
    refusal by those says only "situation: ..."."""
    H._check_count(len(hand.concealed), len(hand.melds))
    win = hand.win_tile
    name = T.tile_to_str(win)
    if win not in hand.concealed:
        raise HandError(f"winning tile {name} is not in the hand")
    in_hand = hand.counts()
    in_melds = hand.all_counts() - in_hand
    for t in np.flatnonzero(in_hand + in_melds > 4):
        c, m = int(in_hand[t]), int(in_melds[t])
        raise HandError(f"{H._ordinal(c + m)} copy of {T.tile_to_str(t)} "
                        f"({c} in hand, {m} in melds); only 4 exist")
    flags = {name: getattr(hand, name) for name in H._FLAGS}
    problems = situation_problems(flags, hand.melds, hand.seat_wind)
    if problems:
        raise HandError("situation: " + "; ".join(problems))
    others = int(in_hand[win]) - 1
    if hand.kong and hand.self_drawn:
        if not any(m.kind == "kong" for m in hand.melds):
            raise HandError("kong=True on a self-draw needs a kong meld (杠上开花)")
    elif hand.kong and (others or in_melds[win]):
        raise HandError(f"robbing a kong (抢杠和) but the hand already holds {name}")
    if hand.last_copy and others:
        copies = "1 other copy" if others == 1 else f"{others} other copies"
        verb = "is" if others == 1 else "are"
        raise HandError(f"last_copy (和绝张) but {copies} of {name} {verb} in "
                        "the concealed hand")


def unvalidated(concealed, melds, win_tile, **situation):
    """A Hand with these (canonical) fields and no checks at all."""
    hand = object.__new__(Hand)
    fields = dict(Hand.__dataclass_fields__)
    hand.__dict__.update({name: f.default for name, f in fields.items()})
    hand.__dict__.update(concealed=tuple(sorted(concealed)), melds=tuple(melds),
                         win_tile=win_tile, **situation)
    return hand


@pytest.mark.parametrize("seed", range(4))
def test_parse_hand_matches_checked_path(seed):
    n_ok = 0
    for text in random_texts(seed, 3000):
        fast, slow = outcome(parse_hand, text), outcome(checked_parse, text)
        assert fast[0] == slow[0], text
        if fast[0] == "ok":
            n_ok += 1
            hand = fast[1]
            assert type(hand) is Hand and hand == slow[1], text
            assert fields_of(hand) == fields_of(slow[1]), text
            assert str(hand) == str(slow[1]) and hash(hand) == hash(slow[1])
            assert parse_hand(str(hand)) == hand
        else:
            assert fast[1] == slow[1], text
    assert n_ok > 500  # the comparison covered plenty of valid hands too


def test_trusted_hands_equal_validated_construction():
    """Hands from parse_hand equal Hand(...) built from the same fields given
    loosely typed (lists, numpy ints), which forces full normalisation."""
    rnd = random.Random(5)
    for text in random_winning_hands(3000, seed=11) + EXTRA_VALID:
        hand = parse_hand(text)
        loose = dict(
            concealed=[np.int64(t) for t in rnd.sample(hand.concealed, len(hand.concealed))],
            melds=list(hand.melds), win_tile=np.int32(hand.win_tile),
            seat_wind="ESWN"[hand.seat_wind], round_wind=np.int64(hand.round_wind),
            flowers=np.int64(hand.flowers), flower_tiles=list(hand.flower_tiles),
            **{name: np.bool_(getattr(hand, name)) for name in H._FLAGS})
        again = Hand(**loose)
        assert again == hand and fields_of(again) == fields_of(hand)
        plain = Hand(**{name: getattr(hand, name) for name in FIELDS})  # fast __post_init__
        assert plain == hand and fields_of(plain) == fields_of(hand)
        assert str(again) == str(hand) == str(plain)
        assert parse_hand(hand) == hand


def test_direct_construction_fast_and_general_paths_agree():
    """Hand(...) with plain values (fast path) versus the same values wrapped
    so that the general normalisation runs: same Hand or same error."""
    rnd = random.Random(7)
    melds = [Meld("chow", 0), Meld("pung", 27), Meld("kong", 4, True), Meld("kong", 9),
             Meld("pung", 4)]
    n_ok = 0
    for _ in range(5000):
        chosen = tuple(rnd.choice(melds) for _ in range(rnd.choice([0, 0, 1, 2, 3, 4, 5])))
        size = max(0, 14 - 3 * min(len(chosen), 4) + rnd.choice([0, 0, 0, 0, -1, 1]))
        tiles = [rnd.choice([4, 27, 0, 9, rnd.randrange(34)]) for _ in range(size)]
        win = rnd.choice(tiles) if tiles and rnd.random() < 0.9 else rnd.randrange(34)
        situation = dict(self_drawn=rnd.random() < 0.5, last_copy=rnd.random() < 0.2,
                         kong=rnd.random() < 0.3, last_wall=rnd.random() < 0.2,
                         seat_wind=rnd.randrange(4), round_wind=rnd.randrange(4),
                         flowers=rnd.randrange(9))
        situation.update(random_first_turn_flags(rnd))
        fast = outcome(Hand, tuple(tiles), chosen, win, **situation)
        general = outcome(Hand, [np.int64(t) for t in tiles], list(chosen), np.int64(win),
                          **{k: np.int64(v) if "wind" in k or k == "flowers" else np.bool_(v)
                             for k, v in situation.items()})
        assert fast[0] == general[0]
        if len(chosen) <= 4:  # more is refused before the cross-field checks
            reference = outcome(reference_validate,
                                unvalidated(tiles, chosen, win, **situation))
            assert fast[0] == reference[0], (tiles, chosen, win, situation, fast)
            if reference[0] == "error" and reference[1].startswith("situation: "):
                assert any(name in fast[1] for name in H._SITUATION_FLAGS if situation[name])
            elif reference[0] == "error":
                assert fast[1] == reference[1]
        if fast[0] == "ok":
            n_ok += 1
            assert fields_of(fast[1]) == fields_of(general[1])
        else:
            assert fast[1] == general[1]
    assert n_ok > 200


def random_first_turn_flags(rnd):
    """The seven first-turn / ready flags, each set now and then."""
    return {name: rnd.random() < 0.12 for name in H._SITUATION_FLAGS}


def test_first_turn_flags_fast_and_checked_paths_agree():
    """parse_hand (fast scanner, _trusted_hand) against the checked path and
    against Hand(...) with loosely typed values, on random hands with random
    first-turn / ready flags: same Hand or same error."""
    rnd = random.Random(13)
    n_ok = n_flagged = 0
    for text in random_winning_hands(2000, seed=17):
        situation = random_first_turn_flags(rnd)
        situation.update(self_drawn=rnd.random() < 0.5, seat_wind=rnd.randrange(4))
        if rnd.random() < 0.5:  # some as tokens, Chinese names now and then
            words = [rnd.choice([name, H._SITUATION_ZH[name]])
                     for name in H._SITUATION_FLAGS if situation.pop(name)]
            text += (" " if "|" in text else " | ") + " ".join(words)
        fast, slow = outcome(parse_hand, text, **situation), outcome(checked_parse, text,
                                                                     **situation)
        assert fast[0] == slow[0], (text, situation)
        if fast[0] == "error":
            assert fast[1] == slow[1]
            continue
        hand = fast[1]
        n_ok += 1
        n_flagged += any(getattr(hand, name) for name in H._SITUATION_FLAGS)
        assert fields_of(hand) == fields_of(slow[1]) and parse_hand(str(hand)) == hand
        loose = {name: np.bool_(getattr(hand, name)) for name in H._FLAGS}
        again = Hand([np.int64(t) for t in hand.concealed], list(hand.melds),
                     np.int64(hand.win_tile), seat_wind=hand.seat_wind,
                     round_wind=np.int64(hand.round_wind), flowers=hand.flowers,
                     flower_tiles=hand.flower_tiles, **loose)
        plain = Hand(**{name: getattr(hand, name) for name in FIELDS})
        assert fields_of(again) == fields_of(hand) == fields_of(plain)
    assert n_ok > 500 and n_flagged > 150


@pytest.mark.parametrize("seed", range(3))
def test_tile_part_scanner_matches_reference(seed):
    for text in random_texts(100 + seed, 3000):
        tile_part = text.partition("|")[0]
        fast = H._fast_tile_part(tile_part)
        slow = outcome(H._read_tile_part_checked, tile_part)
        if fast is None:
            assert slow[0] == "error", tile_part  # gives up only on errors
        else:
            assert slow == ("ok", fast), tile_part


@pytest.mark.parametrize("seed", range(3))
def test_scan_tiles_matches_reference(seed):
    rnd = random.Random(seed)
    for _ in range(5000):
        text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randrange(12)))
        if rnd.random() < 0.5:
            text = mutate(rnd, T.tiles_to_str(rnd.randrange(42) for _ in range(rnd.randrange(8))))
        offset = rnd.randrange(20)
        fast = T._scan_fast(text, offset)
        slow = outcome(T._scan_checked, text, offset)
        if fast is None:
            assert slow[0] == "error", text
        else:
            assert slow == ("ok", fast), text
        assert outcome(T.scan_tiles, text, offset) == slow


def reference_tiles_to_str(tiles):
    idx = sorted(tiles)
    parts = []
    for letter, base in (("m", 0), ("p", 9), ("s", 18)):
        ranks = "".join(str(i - base + 1) for i in idx if base <= i < base + 9)
        if ranks:
            parts.append(ranks + letter)
    parts.append("".join(T.HONOR_LETTERS[i - 27] for i in idx if 27 <= i < 34))
    flowers = "".join(str(i - 33) for i in idx if i >= 34)
    return "".join(parts) + (flowers + "f" if flowers else "")


def test_tiles_to_str_and_counts_match_reference():
    rnd = random.Random(3)
    for _ in range(3000):
        tiles = [rnd.randrange(42) for _ in range(rnd.randrange(16))]
        expected = reference_tiles_to_str(tiles)
        assert T.tiles_to_str(tiles) == expected
        assert T.tiles_to_str(tuple(tiles)) == expected
        assert T.tiles_to_str(iter(tiles)) == expected
        assert T.tiles_to_str([np.int64(t) for t in tiles]) == expected
        kinds = [t for t in tiles if t < 34]
        counts = T.counts34(kinds)
        assert counts.dtype == np.int64 and counts.shape == (34,)
        assert counts.tolist() == [kinds.count(k) for k in range(34)]
    for bad in ([True], [1.0], [42], [-1], ["5m"]):
        with pytest.raises(HandError):
            T.tiles_to_str(bad)


def test_meld_labels_and_tables():
    for (kind, tile, concealed), label in H._MELD_LABELS.items():
        meld = Meld(kind, tile, concealed)
        assert str(meld) == label == meld._label()
    for table, concealed in ((H._EXPOSED_MELDS, False), (H._CONCEALED_MELDS, True)):
        for tiles, meld in table.items():
            assert Meld.from_tiles(tiles, concealed=concealed) == meld
            assert type(meld) is Meld and type(meld.tile) is int
    # every valid bracket content is in a table (from_tiles on all small multisets)
    for a in range(34):
        for b in range(a, min(a + 3, 34)):
            for c in range(b, min(b + 3, 34)):
                for tiles in ((a, b, c), (a, b, c, c)):
                    for concealed, table in ((False, H._EXPOSED_MELDS),
                                             (True, H._CONCEALED_MELDS)):
                        ok = outcome(Meld.from_tiles, tiles, concealed=concealed)
                        assert (ok[0] == "ok") == (tiles in table), (tiles, concealed)


def test_suffix_parser_matches_reference():
    rnd = random.Random(9)
    pieces = TOKENS + [" ", "  ", "\t", "\u3000", "=", " = ", "\x1c", "\xa0", ",", "=,"]
    for _ in range(5000):
        text = "".join(rnd.choice(pieces) + rnd.choice(["", " "])
                       for _ in range(rnd.randrange(6)))
        assert outcome(H.parse_situation, text) == outcome(reference_parse_suffix, text), text
