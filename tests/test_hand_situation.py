"""First-turn and ready-declaration situations on Hand (大众 rules).

天和 heavenly_hand, 地和 earthly_hand, 人和 human_hand, 天听 heavenly_ready,
地听 earthly_ready, 报听 declared_ready, 双报听 double_ready: how they are
given (keywords, tokens, Chinese aliases, ``Hand(...)``), written back, and
which combinations are refused.

:func:`situation_problems` states the rules a second time, flag by flag and
independently of ``mjkit.hand``; the exhaustive test checks every combination
of the eleven flags against it, and the other hand test files use it too.
"""

import copy
import dataclasses
import inspect
import itertools
import pickle

import numpy as np
import pytest

from mjkit.errors import HandError
from mjkit.hand import Hand, parse_hand

ZH = {
    "heavenly_hand": "天和", "earthly_hand": "地和", "human_hand": "人和",
    "heavenly_ready": "天听", "earthly_ready": "地听", "declared_ready": "报听",
    "double_ready": "双报听",
}
NEW_FLAGS = tuple(ZH)
OLD_FLAGS = ("self_drawn", "last_copy", "kong", "last_wall")
ALL_FLAGS = OLD_FLAGS + NEW_FLAGS

BASE = "123m456p789s55mEE E"   # closed, the winning tile E has a copy in hand
# The smallest legal company of each flag (BASE is seat East unless seat is given).
LEGAL_WITH = {
    "heavenly_hand": dict(self_drawn=True),
    "earthly_hand": dict(self_drawn=True, seat_wind=1),
    "human_hand": {},
    "heavenly_ready": {},
    "earthly_ready": {},
    "declared_ready": {},
    "double_ready": dict(declared_ready=True),
}


# ---------------------------------------------------------------------------
# the rules, stated independently
# ---------------------------------------------------------------------------

def situation_problems(flags, melds, seat):
    """Why these situation flags cannot happen together (empty list: they can).

    ``flags`` maps flag names to bools (missing ones are False), ``melds`` is
    a sequence of Meld, ``seat`` 0..3 with 0 the dealer (East).  Each rule is
    written from the point of view of one flag: what it implies about the
    moment of the win and about the hand.
    """
    on = {name for name, value in flags.items() if value}
    exposed = any(not m.concealed for m in melds)
    problems = []

    def need(condition, why):
        if not condition:
            problems.append(why)

    # When the win happens: at most one of the first-turn wins.
    need(len(on & {"heavenly_hand", "earthly_hand", "human_hand"}) <= 1,
         "two first-turn wins")
    declarations = on & {"heavenly_ready", "earthly_ready", "declared_ready", "double_ready"}
    if "heavenly_hand" in on:       # dealer, dealt tiles, nothing else happened
        need("self_drawn" in on, "天和 is self-drawn")
        need(seat == 0, "天和 is the dealer's")
        need(not melds, "天和 has no melds")
        need(not on & {"kong", "last_copy", "last_wall"}, "nothing is shown or used at the deal")
        need(not declarations, "no declaration before 天和")
    if "earthly_hand" in on:        # non-dealer, on the first draw
        need("self_drawn" in on, "地和 is self-drawn")
        need(seat != 0, "地和 is a non-dealer's")
        need(not melds, "地和 has no melds")
        need(not on & {"kong", "last_wall", "earthly_ready"}, "first draw")
        need("last_copy" not in on or seat == 3, "3 discards are seen only by North")
        need("declared_ready" not in on or "heavenly_ready" in on, "only 天听 so early")
    if "human_hand" in on:          # on a discard, before the winner's first draw
        need("self_drawn" not in on, "人和 is won on a discard")
        need(not melds, "人和 has no melds")
        need(not on & {"kong", "last_wall", "earthly_ready"}, "before the first draw")
        need("last_copy" not in on or seat == 0, "3 earlier discards are seen only by East")
        need("declared_ready" not in on or "heavenly_ready" in on, "only 天听 so early")
    for name in ("heavenly_ready", "earthly_ready", "declared_ready"):
        if name in on:
            need(not exposed, "declaring ready needs a concealed hand")
    need(not {"heavenly_ready", "earthly_ready"} <= on, "天听 or 地听, not both")
    if "double_ready" in on:
        need(on & {"heavenly_ready", "earthly_ready", "declared_ready"}, "declared first")
        need("kong" not in on, "a kong in between voids 双报听")
    return problems


def tile_problems(flags, melds, in_hand_besides_win, win_in_melds):
    """The older kong / last_copy checks (for hands built in these tests)."""
    problems = []
    if flags.get("kong") and flags.get("self_drawn"):
        if not any(m.kind == "kong" for m in melds):
            problems.append("杠上开花 without a kong")
    elif flags.get("kong") and (in_hand_besides_win or win_in_melds):
        problems.append("robbing a kong of a held tile")
    if flags.get("last_copy") and in_hand_besides_win:
        problems.append("last copy of a held tile")
    return problems


# ---------------------------------------------------------------------------
# giving the flags
# ---------------------------------------------------------------------------

def tokens_for(situation):
    out = []
    for name, value in situation.items():
        if name == "seat_wind":
            out.append(f"seat={'ESWN'[value]}")
        elif value:
            out.append(name)
    return " ".join(out)


@pytest.mark.parametrize("flag", NEW_FLAGS)
def test_flag_by_keyword(flag):
    h = parse_hand(BASE, **{flag: True}, **LEGAL_WITH[flag])
    assert getattr(h, flag) is True
    for other in NEW_FLAGS:
        if other != flag and other not in LEGAL_WITH[flag]:
            assert getattr(h, other) is False
    assert Hand.from_parts(BASE.replace(" ", ""), **{flag: True}, **LEGAL_WITH[flag]) == h


@pytest.mark.parametrize("flag", NEW_FLAGS)
def test_flag_by_token(flag):
    text = f"{BASE} | {flag} {tokens_for(LEGAL_WITH[flag])}"
    h = parse_hand(text)
    assert h == parse_hand(BASE, **{flag: True}, **LEGAL_WITH[flag])
    assert getattr(h, flag) is True


@pytest.mark.parametrize("flag", NEW_FLAGS)
def test_chinese_alias(flag):
    expected = parse_hand(BASE, **{flag: True}, **LEGAL_WITH[flag])
    assert parse_hand(BASE, **{ZH[flag]: True}, **LEGAL_WITH[flag]) == expected
    assert parse_hand(f"{BASE} | {ZH[flag]} {tokens_for(LEGAL_WITH[flag])}") == expected
    assert Hand.from_parts(BASE.replace(" ", ""), **{ZH[flag]: True},
                           **LEGAL_WITH[flag]) == expected


def test_chinese_keywords_as_identifiers():
    h = parse_hand(BASE, self_drawn=True, 天和=True)
    assert h.heavenly_hand and h.self_drawn
    assert parse_hand(BASE, 人和=True, 天听=True, 报听=True, 双报听=True) == parse_hand(
        BASE, human_hand=True, heavenly_ready=True, declared_ready=True, double_ready=True)


@pytest.mark.parametrize("flag", NEW_FLAGS)
def test_round_trip_through_str(flag):
    h = parse_hand(BASE, **{flag: True}, **LEGAL_WITH[flag])
    assert flag in h.situation_tokens()
    assert flag in str(h)
    assert parse_hand(str(h)) == h
    assert eval(repr(h), {"Hand": Hand}) == h
    assert parse_hand(h) == h


def test_canonical_token_order():
    h = parse_hand(BASE + " | 双报听 天听 地和 seat=S self_drawn flowers=2")
    assert str(h) == ("12355m456p789sEE E | self_drawn earthly_hand heavenly_ready "
                      "double_ready seat=S flowers=2")
    assert h.situation_tokens() == ["self_drawn", "earthly_hand", "heavenly_ready",
                                    "double_ready", "seat=S", "flowers=2"]


def test_all_flags_default_false():
    h = parse_hand(BASE)
    assert all(getattr(h, name) is False for name in NEW_FLAGS)
    assert h.situation_tokens() == []
    for name in NEW_FLAGS:
        assert Hand.__dataclass_fields__[name].default is False


def test_keywords_override_tokens():
    text = BASE + " | declared_ready double_ready"
    assert not parse_hand(text, double_ready=False).double_ready
    assert parse_hand(text, double_ready=None).double_ready  # None: not given
    h = parse_hand(text, heavenly_ready=True)
    assert h.heavenly_ready and h.declared_ready and h.double_ready
    with pytest.raises(HandError, match="double_ready"):
        parse_hand(text, declared_ready=False)


def test_parse_hand_of_hand_applies_new_flags():
    h = parse_hand(BASE + " | declared_ready")
    assert parse_hand(h, 双报听=True) == parse_hand(BASE + " | declared_ready double_ready")
    assert parse_hand(h, declared_ready=False) == parse_hand(BASE)


def test_flag_values_are_normalised():
    assert parse_hand(BASE, declared_ready=1).declared_ready is True
    assert parse_hand(BASE, declared_ready=np.bool_(True)).declared_ready is True
    assert parse_hand(BASE, declared_ready=np.int64(0)).declared_ready is False
    with pytest.raises(HandError, match="declared_ready must be True or False, got 'yes'"):
        parse_hand(BASE, declared_ready="yes")
    with pytest.raises(HandError, match="double_ready must be True or False, got 2"):
        parse_hand(BASE, 双报听=2)


@pytest.mark.parametrize("text, kwargs, match", [
    (BASE + " | heavenly_hand=1", {}, r"situation token 'heavenly_hand' takes no value"),
    (BASE + " | 天和=yes", {}, r"situation token '天和' takes no value"),
    (BASE + " | 天和 heavenly_hand", {}, r"situation token 'heavenly_hand' given twice"),
    (BASE + " | 天", {}, r"unknown situation token '天'"),
    (BASE, {"天和": True, "heavenly_hand": True}, r"heavenly_hand given twice"),
    (BASE, {"tenhou": True}, r"unknown situation keyword 'tenhou'"),
])
def test_notation_errors(text, kwargs, match):
    with pytest.raises(HandError, match=match):
        parse_hand(text, **kwargs)


# ---------------------------------------------------------------------------
# Hand(...) directly
# ---------------------------------------------------------------------------

CLOSED = parse_hand(BASE)


def test_direct_construction_with_new_fields():
    h = Hand(CLOSED.concealed, (), CLOSED.win_tile, self_drawn=True, heavenly_hand=True)
    assert h == parse_hand(BASE + " | self_drawn heavenly_hand")
    h = Hand(list(reversed(CLOSED.concealed)), [], np.int64(CLOSED.win_tile), seat_wind="S",
             self_drawn=np.bool_(True), earthly_hand=1, heavenly_ready=np.bool_(True))
    assert h == parse_hand(BASE + " | self_drawn earthly_hand heavenly_ready seat=S")
    assert type(h.earthly_hand) is bool and type(h.heavenly_ready) is bool
    # positional, in field order
    h = Hand(CLOSED.concealed, (), CLOSED.win_tile, False, False, False, False, 0, 0, 0, (),
             False, False, True, True)
    assert h.human_hand and h.heavenly_ready and not h.double_ready
    with pytest.raises(HandError, match=r"heavenly_hand \(天和\) needs self_drawn"):
        Hand(CLOSED.concealed, (), CLOSED.win_tile, heavenly_hand=True)
    with pytest.raises(HandError, match="human_hand must be True or False"):
        Hand(CLOSED.concealed, (), CLOSED.win_tile, human_hand="no")
    with pytest.raises(TypeError):
        Hand(CLOSED.concealed, (), CLOSED.win_tile, 天和=True)  # aliases: parse_hand only
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.double_ready = True  # type: ignore[misc]
    assert dataclasses.replace(h, double_ready=True).double_ready
    with pytest.raises(HandError, match="double_ready"):
        dataclasses.replace(h, heavenly_ready=False, double_ready=True)


def test_copy_and_pickle_keep_new_fields():
    h = parse_hand(BASE + " | self_drawn earthly_hand heavenly_ready double_ready seat=N")
    for again in (copy.copy(h), copy.deepcopy(h), pickle.loads(pickle.dumps(h))):
        assert again == h and hash(again) == hash(h)
        assert again.__dict__ == h.__dict__


def test_init_signature_matches_fields():
    """Hand.__init__ is written out; it must take exactly the dataclass fields."""
    params = list(inspect.signature(Hand).parameters.values())
    fields = dataclasses.fields(Hand)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields):
        default = (inspect.Parameter.empty if f.default is dataclasses.MISSING
                   else f.default)
        assert p.default == default and type(p.default) is type(default), p.name


# ---------------------------------------------------------------------------
# the rules, one by one
# ---------------------------------------------------------------------------

ACCEPT = [
    # 天和: the dealer, self-drawn, no melds (flowers are fine: 补花)
    (BASE + " | self_drawn heavenly_hand", {}),
    (BASE + " | self_drawn heavenly_hand flowers=3 round=S", {}),
    # 地和: a non-dealer's first draw
    (BASE + " | self_drawn earthly_hand seat=S", {}),
    (BASE + " | self_drawn earthly_hand seat=N", {}),
    # a non-dealer dealt a ready hand declares 天听 and wins on the first draw
    (BASE + " | self_drawn earthly_hand heavenly_ready seat=W", {}),
    (BASE + " | self_drawn earthly_hand heavenly_ready double_ready seat=W", {}),
    (BASE + " | self_drawn earthly_hand heavenly_ready declared_ready double_ready seat=S", {}),
    # 地和 + 和绝张: East, South and West each discarded a copy, North draws the 4th
    ("12m456p789s55mEEE 3m | self_drawn earthly_hand last_copy seat=N", {}),
    # 人和: on a discard, any seat (the dealer's first go-round included)
    (BASE + " | human_hand", {}),
    (BASE + " | human_hand seat=S", {}),
    (BASE + " | human_hand heavenly_ready seat=N", {}),
    (BASE + " | human_hand heavenly_ready declared_ready double_ready", {}),
    # 人和 + 和绝张: East, South and West discard a copy each, the dealer wins on North's
    ("12m456p789s55mEEE 3m | human_hand last_copy", {}),
    # declarations: concealed kongs are fine
    ("{5555p}123m789s55mEE E | heavenly_ready", {}),
    ("{5555p}123m789s55mEE E | earthly_ready", {}),
    ("{5555p}123m789s55mEE E | declared_ready", {}),
    ("{5555p}123m789s55mEE E | self_drawn kong heavenly_ready", {}),  # 杠上开花 later on
    ("12m456p789s55mEEE 3m | kong declared_ready", {}),               # robbing a kong
    (BASE + " | declared_ready last_wall self_drawn", {}),
    (BASE + " | heavenly_ready declared_ready", {}),
    (BASE + " | earthly_ready declared_ready double_ready", {}),
    (BASE + " | earthly_ready double_ready self_drawn", {}),
    (BASE + " | heavenly_ready double_ready", {}),
    ("12m456p789s55mEEE 3m | declared_ready double_ready last_copy last_wall", {}),
    # exposed melds are fine without a declaration
    ("[123m]456p789s55mEE E | seat=S", {}),
]


@pytest.mark.parametrize("text, kwargs", ACCEPT)
def test_legal_combinations(text, kwargs):
    h = parse_hand(text, **kwargs)
    flags = {name: getattr(h, name) for name in ALL_FLAGS}
    assert situation_problems(flags, h.melds, h.seat_wind) == []
    assert parse_hand(str(h)) == h


REJECT = [
    # 天和
    (BASE + " | heavenly_hand", r"heavenly_hand \(天和\) needs self_drawn"),
    (BASE + " | self_drawn heavenly_hand seat=S", r"heavenly_hand \(天和\) needs seat=E"),
    ("{5555p}123m789s55mEE E | self_drawn heavenly_hand",
     r"heavenly_hand \(天和\) allows no melds, got \{5555p\}"),
    ("[123m]456p789s55mEE E | self_drawn heavenly_hand", r"heavenly_hand .*no melds"),
    ("{5555p}123m789s55mEE E | self_drawn kong heavenly_hand",
     r"heavenly_hand \(天和\) and kong .*cannot both hold: a kong after the deal"),
    ("12m456p789s55mEEE 3m | self_drawn last_copy heavenly_hand",
     r"heavenly_hand \(天和\) and last_copy \(和绝张\) cannot both hold"),
    (BASE + " | self_drawn last_wall heavenly_hand", r"heavenly_hand .* and last_wall"),
    (BASE + " | self_drawn heavenly_hand earthly_hand", r"heavenly_hand .* and earthly_hand"),
    (BASE + " | self_drawn heavenly_hand human_hand", r"heavenly_hand .* and human_hand"),
    (BASE + " | human_hand heavenly_hand", r"heavenly_hand .* and human_hand"),
    (BASE + " | self_drawn heavenly_hand heavenly_ready", r"heavenly_hand .* and heavenly_ready"),
    (BASE + " | self_drawn heavenly_hand earthly_ready", r"heavenly_hand .* and earthly_ready"),
    (BASE + " | self_drawn heavenly_hand declared_ready",
     r"heavenly_hand .* and declared_ready"),
    (BASE + " | self_drawn heavenly_hand double_ready", r"heavenly_hand .* and double_ready"),
    # 地和
    (BASE + " | earthly_hand seat=S", r"earthly_hand \(地和\) needs self_drawn"),
    (BASE + " | self_drawn earthly_hand", r"earthly_hand \(地和\) needs a non-dealer seat"),
    ("{5555p}123m789s55mEE E | self_drawn earthly_hand seat=S",
     r"earthly_hand \(地和\) allows no melds"),
    ("{5555p}123m789s55mEE E | self_drawn kong earthly_hand seat=S",
     r"earthly_hand \(地和\) and kong"),
    (BASE + " | self_drawn last_wall earthly_hand seat=S", r"earthly_hand .* and last_wall"),
    (BASE + " | self_drawn earthly_hand human_hand seat=S", r"earthly_hand .* and human_hand"),
    (BASE + " | self_drawn earthly_hand earthly_ready seat=S",
     r"earthly_hand \(地和\) and earthly_ready \(地听\) cannot both hold"),
    ("12m456p789s55mEEE 3m | self_drawn earthly_hand last_copy seat=W",
     r"earthly_hand \(地和\) with last_copy \(和绝张\) needs seat=N"),
    (BASE + " | self_drawn earthly_hand declared_ready seat=S",
     r"declared_ready \(报听\) with earthly_hand \(地和\) needs heavenly_ready"),
    (BASE + " | self_drawn earthly_hand double_ready seat=S", r"double_ready \(双报听\) needs"),
    # 人和
    (BASE + " | self_drawn human_hand", r"human_hand \(人和\) is a win on a discard"),
    ("[123m]456p789s55mEE E | human_hand", r"human_hand \(人和\) allows no melds, got \[123m\]"),
    ("12m456p789s55mEEE 3m | kong human_hand", r"human_hand \(人和\) and kong .*voids 人和"),
    (BASE + " | last_wall human_hand", r"human_hand .* and last_wall"),
    (BASE + " | human_hand earthly_ready", r"human_hand \(人和\) and earthly_ready"),
    ("12m456p789s55mEEE 3m | human_hand last_copy seat=N",
     r"human_hand \(人和\) with last_copy \(和绝张\) needs seat=E"),
    (BASE + " | human_hand declared_ready",
     r"declared_ready \(报听\) with human_hand \(人和\) needs heavenly_ready"),
    # 天听 / 地听 / 报听
    (BASE + " | heavenly_ready earthly_ready",
     r"heavenly_ready \(天听\) and earthly_ready \(地听\) cannot both hold"),
    ("[123m]456p789s55mEE E | heavenly_ready",
     r"heavenly_ready \(天听\) allows no exposed melds, got \[123m\]"),
    ("[EEE]123m456p789s5m 5m | earthly_ready", r"earthly_ready \(地听\) allows no exposed melds"),
    ("[5555p]123m789s55mEE E | declared_ready",
     r"declared_ready \(报听\) allows no exposed melds, got \[5555p\]"),
    # 双报听
    (BASE + " | double_ready", r"double_ready \(双报听\) needs a ready declaration"),
    ("{5555p}123m789s55mEE E | self_drawn kong declared_ready double_ready",
     r"double_ready \(双报听\) and kong .*voids 双报听"),
    ("12m456p789s55mEEE 3m | kong declared_ready double_ready", r"double_ready .* and kong"),
]


@pytest.mark.parametrize("text, match", REJECT)
def test_illegal_combinations(text, match):
    with pytest.raises(HandError, match=match):
        parse_hand(text)
    tile_part, _, suffix = text.partition("|")
    hand = parse_hand(tile_part)
    flags = {t: True for t in suffix.split() if t in ALL_FLAGS}
    seat = "ESWN".index(suffix.split("seat=")[1][0]) if "seat=" in suffix else 0
    assert situation_problems(flags, hand.melds, seat), text
    # the same through keywords and Hand(...)
    with pytest.raises(HandError, match=match):
        parse_hand(tile_part, **flags, seat_wind=seat)
    with pytest.raises(HandError, match=match):
        Hand(hand.concealed, hand.melds, hand.win_tile, seat_wind=seat, **flags)


# ---------------------------------------------------------------------------
# every combination
# ---------------------------------------------------------------------------

SHAPES = [
    "12m456p789s55mEEE 3m",      # closed; the winning tile 3m is the only copy
    "[EEE]12m456p789s55m 3m",    # exposed pung
    "{EEEE}12m456p789s55m 3m",   # concealed kong
    "[EEEE]12m456p789s55m 3m",   # exposed kong
]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_flag_combination(shape):
    """All 2**11 flag sets on each shape and seat: accepted exactly when the
    independent statement of the rules finds nothing wrong, and every
    refusal names one of the first-turn / ready flags that are set (or the
    older kong / last_copy rule)."""
    base = parse_hand(shape)
    n_ok = 0
    for bits in itertools.product((False, True), repeat=len(ALL_FLAGS)):
        flags = dict(zip(ALL_FLAGS, bits))
        on = [name for name in NEW_FLAGS if flags[name]]
        for seat in range(4):
            expected = (situation_problems(flags, base.melds, seat)
                        + tile_problems(flags, base.melds, 0, False))
            try:
                h = Hand(base.concealed, base.melds, base.win_tile, seat_wind=seat, **flags)
            except HandError as exc:
                assert expected, (shape, flags, seat, str(exc))
                message = str(exc)
                if situation_problems(flags, base.melds, seat):
                    assert any(name in message for name in on), (flags, seat, message)
                continue
            assert not expected, (shape, flags, seat, expected)
            n_ok += 1
            tokens = " ".join(name for name in ALL_FLAGS if flags[name])
            text = f"{shape} | {tokens} seat={'ESWN'[seat]}"
            assert parse_hand(text) == h
            assert parse_hand(str(h)) == h
    assert n_ok >= 40  # 48 and 64 with an exposed pung or kong, more when closed
