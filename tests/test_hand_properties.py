"""Property tests: parse_hand never crashes, hangs or accepts garbage silently.

Whatever the input, the outcome is a ``Hand`` that survives a round trip
through ``str()``, or a ``HandError``.  Valid hands built from random tile
sets in random notation styles always parse to the expected ``Hand``.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjkit.errors import HandError
from mjkit.hand import Hand, Meld, parse_hand
from mjkit.tiles import HONOR_LETTERS, TILE_GLYPHS, tile_to_str, tiles_to_str

try:
    from test_hand_situation import ALL_FLAGS, NEW_FLAGS, ZH, situation_problems
except ImportError:  # pragma: no cover - run as a package
    from tests.test_hand_situation import ALL_FLAGS, NEW_FLAGS, ZH, situation_problems

FAST = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
BASE = "123m456p789s55mEE E"

NOTATION_CHARS = list("0123456789mpszf ESWNPFC[]{}|=,_") + list(TILE_GLYPHS[:6])
FRAGMENTS = (
    [tile_to_str(i) for i in range(42)] + [f"{r}z" for r in range(0, 10)]
    + ["[123m]", "[789s]", "[EEE]", "[5555p]", "{5555p}", "{EEEE}", "[135m]", "[]",
       "[", "]", "{", "}", "5", "m", "z", " ", "|", " self_drawn", " last_copy",
       " kong", " last_wall", " seat=S", " round=W", " flowers=2", " flowers=1f3f",
       " win_tile=E", "=", "123m456p789s", "55m", "EE"]
    + [" " + name for name in NEW_FLAGS] + [" " + zh for zh in ZH.values()] + [" seat=N"]
)


def outcome(func, *args, **kwargs):
    """Call ``func``; the only acceptable outcomes are a Hand or a HandError."""
    try:
        hand = func(*args, **kwargs)
    except HandError:
        return None
    assert isinstance(hand, Hand)
    check_hand(hand)
    return hand


def check_hand(hand):
    """Invariants of every Hand, and its round trip through str()."""
    assert parse_hand(str(hand)) == hand
    assert hand.concealed == tuple(sorted(hand.concealed))
    assert hand.win_tile in hand.concealed
    assert len(hand.concealed) == 14 - 3 * len(hand.melds)
    assert hand.all_counts().max() <= 4
    assert 0 <= hand.flowers <= 8
    assert not hand.flower_tiles or len(hand.flower_tiles) == hand.flowers
    flags = {name: getattr(hand, name) for name in ALL_FLAGS}
    assert all(type(value) is bool for value in flags.values())
    assert not situation_problems(flags, hand.melds, hand.seat_wind)


@FAST
@given(st.text(alphabet=st.one_of(st.sampled_from(NOTATION_CHARS), st.characters()),
               max_size=60))
def test_random_text(text):
    outcome(parse_hand, text)


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=20))
def test_random_fragments(parts):
    outcome(parse_hand, "".join(parts))


@FAST
@given(st.binary(max_size=40))
def test_random_bytes(data):
    assert outcome(parse_hand, data) is None
    outcome(parse_hand, data.decode("latin-1"))


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                 st.lists(st.integers()), st.dictionaries(st.text(), st.integers()),
                 st.tuples(st.text()), st.builds(object)))
def test_non_str_objects(obj):
    assert outcome(parse_hand, obj) is None


@FAST
@given(st.lists(st.integers(-3, 45), max_size=16),
       st.lists(st.tuples(st.sampled_from(["chow", "pung", "kong", "x"]),
                          st.integers(-1, 40), st.booleans()), max_size=5),
       st.integers(-1, 45))
def test_random_tile_lists(tiles, meld_args, win):
    outcome(Hand.from_parts, tiles)
    outcome(Hand.from_parts, tiles, win_tile=win)
    try:
        melds = tuple(Meld(*args) for args in meld_args)
    except HandError:
        return
    outcome(Hand, tuple(tiles), melds, win)


SITUATION_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.text(max_size=6),
    st.sampled_from(["E", "south", "1f3f", "2", "5m", "E", "9", "1f1f"]),
    st.lists(st.integers(25, 45), max_size=4),
)
SITUATION_KEYS = (["self_drawn", "last_copy", "kong", "last_wall", "seat_wind", "seat",
                   "round_wind", "round", "flowers", "win_tile", "bogus"]
                  + list(NEW_FLAGS) + list(ZH.values()))
# Hands the first-turn / ready flags meet: closed, exposed pung, concealed
# kong, exposed kong; the winning tile 3m is the only copy, so last_copy and
# robbing a kong are possible.
SITUATION_BASES = ["12m456p789s55mEEE 3m", "[EEE]12m456p789s55m 3m",
                   "{EEEE}12m456p789s55m 3m", "[EEEE]12m456p789s55m 3m"]


@FAST
@given(st.dictionaries(st.sampled_from(SITUATION_KEYS), SITUATION_VALUES, max_size=4))
def test_random_situation_keywords(kwargs):
    outcome(parse_hand, BASE, **kwargs)
    outcome(parse_hand, "[555m]123p456p789s1s 5m", **kwargs)


FLAG_KEYS = list(ALL_FLAGS) + list(ZH.values())
ZH_TO_NAME = {zh: name for name, zh in ZH.items()}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SITUATION_BASES),
       st.dictionaries(st.sampled_from(FLAG_KEYS),
                       st.one_of(st.booleans(), st.sampled_from([0, 1, None])), max_size=7),
       st.integers(0, 3), st.booleans())
def test_random_first_turn_situations(base, flags, seat, as_tokens):
    """Random sets of the eleven flags (canonical or Chinese names, bools,
    0/1 or None), as keywords or as tokens: a Hand that keeps the rules, or a
    HandError."""
    hand = outcome(parse_hand, base, seat=seat, **flags)
    if as_tokens:
        words = [key for key, value in flags.items() if value]
        by_tokens = outcome(parse_hand, f"{base} | seat={'ESWN'[seat]} {' '.join(words)}")
        names = [ZH_TO_NAME.get(key, key) for key in flags]
        if len(set(names)) == len(names):  # a name and its alias both: "given twice"
            assert by_tokens == hand
    if hand is not None:
        for key, value in flags.items():
            assert getattr(hand, ZH_TO_NAME.get(key, key)) is bool(value)


# ---------------------------------------------------------------------------
# valid hands from random tile sets
# ---------------------------------------------------------------------------

def _tile_forms(t):
    """Every way one tile may be written on its own."""
    forms = [tile_to_str(t), TILE_GLYPHS[t]]
    if 27 <= t < 34:
        forms.append(f"{t - 26}z")
    return forms


def written_tiles(rnd, tiles):
    """Notation for ``tiles`` in this order, each tile in a random form."""
    return "".join(rnd.choice(_tile_forms(t)) + rnd.choice(["", "", " "]) for t in tiles)


def shuffled(rnd, items):
    items = list(items)
    rnd.shuffle(items)
    return items


@st.composite
def valid_hands(draw):
    """(text, situation kwargs, expected Hand) for a random valid hand."""
    # The hand's content comes from hypothesis draws (so failures shrink to
    # small hands); the many cosmetic choices of how to write it come from
    # one seeded Random, because hundreds of tiny draws per example are slow.
    rnd = draw(st.randoms(use_true_random=False))
    pool = [4] * 34
    melds = []
    for _ in range(draw(st.integers(0, 4))):
        options = []
        for t in range(34):
            if pool[t] >= 3:
                options.append(("pung", t))
            if pool[t] == 4:
                options.append(("kong", t))
            if t < 27 and t % 9 <= 6 and min(pool[t:t + 3]) > 0:
                options.append(("chow", t))
        kind, t = draw(st.sampled_from(options))
        meld = Meld(kind, t, kind == "kong" and draw(st.booleans()))
        for x in meld.tiles:
            pool[x] -= 1
        melds.append(meld)
    remaining = [t for t in range(34) for _ in range(pool[t])]
    tiles = []  # drawn one by one: permuting the whole wall is slow
    for _ in range(14 - 3 * len(melds)):
        tiles.append(remaining.pop(draw(st.integers(0, len(remaining) - 1))))
    win = tiles[-1]

    others = tiles.count(win) - 1
    in_melds = sum(m.tiles.count(win) for m in melds)
    self_drawn = draw(st.booleans())
    kong_ok = (any(m.kind == "kong" for m in melds) if self_drawn
               else others == 0 and in_melds == 0)
    sit = dict(
        self_drawn=self_drawn,
        kong=kong_ok and draw(st.booleans()),
        last_copy=others == 0 and draw(st.booleans()),
        last_wall=draw(st.booleans()),
        seat_wind=draw(st.integers(0, 3)),
        round_wind=draw(st.integers(0, 3)),
    )
    # First-turn / ready flags: each one drawn is kept if the set stays legal.
    for name in draw(st.permutations(NEW_FLAGS))[:draw(st.integers(0, 4))]:
        if not situation_problems({**sit, name: True}, melds, sit["seat_wind"]):
            sit[name] = True
    flower_tiles = sorted(draw(st.sets(st.integers(34, 41), max_size=8)))
    count_only = draw(st.booleans())
    expected = Hand(tuple(tiles), tuple(melds), win, **sit,
                    flowers=draw(st.integers(0, 8)) if count_only else len(flower_tiles),
                    flower_tiles=() if count_only else tuple(flower_tiles))

    # Write it: melds with their tiles shuffled, concealed tiles shuffled
    # (winning tile last), flowers among the tiles or in the suffix/keywords.
    text = ""
    for m in melds:
        inner = written_tiles(rnd, shuffled(rnd, m.tiles))
        text += ("{%s}" if m.concealed else "[%s]") % inner
    loose = shuffled(rnd, tiles[:-1]) + [win]
    if not count_only and rnd.random() < 0.5:
        loose = flower_tiles + loose          # flowers written among the tiles
        flower_value = None
    else:
        flower_value = expected.flowers if count_only else tiles_to_str(flower_tiles)
    if rnd.random() < 0.5:
        text += written_tiles(rnd, loose)
    else:
        text += tiles_to_str(loose[:-1]) + " " + tile_to_str(win)

    tokens, kwargs = [], {}
    for name, value in sit.items():
        in_suffix = rnd.random() < 0.5
        if name.endswith("_wind"):
            key = rnd.choice([name, name[:-5]])
            if in_suffix:
                tokens.append(f"{key}={HONOR_LETTERS[value]}")
            else:
                kwargs[key] = rnd.choice([value, HONOR_LETTERS[value]])
        elif value:
            if name in ZH and rnd.random() < 0.3:
                name = ZH[name]  # the Chinese alias
            if in_suffix:
                tokens.append(name)
            else:
                kwargs[name] = True
    if flower_value:  # 0 flowers or an empty set: nothing to write
        if rnd.random() < 0.5:
            tokens.append(f"flowers={flower_value}")
        else:
            kwargs["flowers"] = flower_value
    if tokens or rnd.random() < 0.5:
        text += " | " + " ".join(shuffled(rnd, tokens))
    return text, kwargs, expected


@settings(max_examples=250, deadline=None)
@given(valid_hands())
def test_generated_valid_hands_parse(case):
    text, kwargs, expected = case
    hand = parse_hand(text, **kwargs)
    assert hand == expected
    check_hand(hand)
    assert parse_hand(hand) == hand
