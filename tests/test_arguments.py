"""Issue 12 §4: every out-of-range integer and every malformed argument of the
scoring API and the CLI is a clear HandError (or an argparse error naming the
option, exit 2) before any work: never an OverflowError, a wrapped int32, a
segfault or a silently scored garbage row."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mjkit
from mjkit import HandError
from mjkit._kernels import layout as L
from mjkit.cli import main

HAND = "123m456p789s55mEE E"
DEALER = HAND + " | self_drawn"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(hands=(DEALER, "111m111p111s999m9p 9p | self_drawn", "[123m]456p789s55mEE E")):
    return np.array(mjkit.HandBatch.from_hands(list(hands)).rows, np.int64)


# ------------------------------------------------------------- 连拉 as an integer

@pytest.mark.parametrize("level", [2**31, 2**32 + 2, 1001, -1, True, 1.5, "2"])
def test_score_refuses_an_out_of_range_level(level):
    with pytest.raises(HandError, match="lianla"):
        mjkit.score(DEALER, rules="dazhong32", lianla=level)


def test_score_batch_refuses_a_level_that_would_wrap():
    # 2**32 + 2 used to be written to the int32 field as 2 and scored at 连2拉2
    with pytest.raises(HandError, match="lianla"):
        mjkit.score_batch([DEALER], rules="dazhong32", lianla=2**32 + 2)
    batch = mjkit.HandBatch.from_hands([DEALER, DEALER])
    with pytest.raises(HandError, match="lianla"):
        mjkit.score_batch(batch, rules="dazhong32", lianla=2**32 + 2)


@pytest.mark.parametrize("levels", [
    np.array([1, 2**32 + 2], np.int64), np.array([1, 2**63 + 5], np.uint64),
    [1, 2**40], [1, -3], [1, 2.0], [1, None], np.array([1.0, 2.0])])
def test_per_hand_levels_are_checked_element_wise(levels):
    with pytest.raises(HandError, match=r"hand [01]: lianla"):
        mjkit.score_batch([DEALER, DEALER], rules="dazhong32", lianla=levels)


def test_per_hand_levels_in_range_score_as_single_hands():
    levels = np.array([0, 3, 8, 1000], np.int64)
    res = mjkit.score_batch([DEALER] * 4, rules="dazhong32", lianla=levels)
    for i, n in enumerate(levels.tolist()):
        r = mjkit.score(DEALER, rules="dazhong32", lianla=n)
        assert res.totals[i] == r.total and res.counted[i] == r.counted_points
    assert res.lianla.tolist() == [0, 3, 8, 1000]


def test_threshold_refuses_a_huge_level():
    with pytest.raises(HandError, match="lianla"):
        mjkit.threshold("dazhong32", lianla=2**31)
    assert mjkit.threshold("dazhong32", lianla=1000) == 0


def test_distance_and_targets_refuse_a_huge_level_before_any_work():
    with pytest.raises(HandError, match="lianla"):
        mjkit.distance_to("123m234m345m678m9m", lianla=2**31)
    with pytest.raises(HandError, match="lianla"):
        mjkit.targets("123m234m345m678m9m", lianla=2**31)
    with pytest.raises(HandError, match="min_fans"):
        mjkit.distance_to("123m234m345m678m9m", 2**40)


# -------------------------------------------------------------- HandBatch(rows)

_SCRIPT = textwrap.dedent("""
    import numpy as np, mjkit
    from mjkit._kernels import layout as L
    rows = np.array(mjkit.HandBatch.from_hands(["123m456p789s55mEE E | self_drawn"]).rows,
                    np.int64)
    {change}
    try:
        batch = mjkit.HandBatch(rows=rows)
        res = mjkit.score_batch(batch, rules="dazhong")
    except mjkit.HandError as exc:
        print("refused:", exc)
    else:
        print("scored:", res.totals.tolist())
""")


@pytest.mark.parametrize("change, field", [
    ("rows[0, L.WIN] = 10**9", "win tile"),
    ("rows[0, L.MELDS] = 7", "meld codes"),
    ("rows[0, L.FLOWERS] = 10**6", "flowers"),
    ("rows[0, L.COUNTS] = 40", "tile counts"),
    ("rows[0, L.LIANLA] = 2**32 + 2", "lianla"),
    ("rows[0, L.WILD] = 99", "wild"),
])
def test_garbage_rows_are_refused_not_crashed_or_scored(change, field):
    # a subprocess: on the old code some of these segfault (rc 139)
    p = subprocess.run([sys.executable, "-c", _SCRIPT.format(change=change)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("refused: row 0: " + field), p.stdout


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.__setitem__((0, L.COUNTS + 5), 4), "concealed tiles"),
    (lambda r: r.__setitem__((2, L.MELDS + 1), 25), "meld tiles"),       # chow 8m9m1p
    (lambda r: r.__setitem__((2, L.MELDS + 3), 9), "empty meld slot holds a tile"),
    (lambda r: r.__setitem__((2, L.MELDS + 4), L.M_PUNG), "melds must fill the first slots"),
    (lambda r: r.__setitem__((0, L.WIN), 33), "not in the hand"),
    (lambda r: r.__setitem__((0, L.FLAGS), L.F_WILD_SUBST), "unknown flag bits"),
    (lambda r: r.__setitem__((0, L.SEAT), 4), "seat must be a wind"),
    (lambda r: r.__setitem__((0, L.ROUND), -1), "round must be a wind"),
    (lambda r: r.__setitem__((0, L.FLOWER_MASK), 3), "flower mask holds 2"),
    (lambda r: r.__setitem__((0, L.LIANLA), 1001), "lianla must be 0..1000"),
    (lambda r: r.__setitem__((0, L.FLAGS), L.F_KONG | L.F_SELF_DRAWN), "杠上开花"),
    (lambda r: r.__setitem__((0, L.FLAGS), L.F_HEAVENLY_HAND), "天和"),
    (lambda r: (r.__setitem__((2, L.WILD), 0)), "wild tile"),            # 1m in [123m]
    (lambda r: r.__setitem__((0, L.COUNTS + 30), 2**31), "32-bit"),
])
def test_each_field_of_a_row_is_checked(edit, message):
    rows = _rows()
    edit(rows)
    with pytest.raises(HandError, match="row [02]: .*" + message):
        mjkit.HandBatch(rows)


def test_a_fifth_copy_across_hand_and_meld_is_refused():
    rows = _rows(["[111m]234m456p789s5m 5m"])
    rows[0, L.COUNTS + 1] -= 1          # 2m and 3m out, two 1m in: 2 in hand + 3 melded
    rows[0, L.COUNTS + 2] -= 1
    rows[0, L.COUNTS + 0] += 2
    with pytest.raises(HandError, match="row 0: 5 copies of 1m"):
        mjkit.HandBatch(rows)


@pytest.mark.parametrize("rows, message", [
    (np.zeros((2, 3), np.int32), "shape"),
    (np.zeros(50, np.int32), "shape"),
    (np.zeros((1, 50)), "integer array"),
    (np.zeros((1, 50), bool), "integer array"),
    ([["x"] * 50], "integer array"),
])
def test_rows_must_be_an_integer_array_of_the_row_shape(rows, message):
    with pytest.raises(HandError, match=message):
        mjkit.HandBatch(rows)


def test_valid_rows_round_trip_and_cannot_be_changed_after_the_check():
    batch = mjkit.HandBatch.from_hands([DEALER, "111m111p111s999m9p 9p | self_drawn"])
    again = mjkit.HandBatch(np.array(batch.rows))
    assert (mjkit.score_batch(again).totals == mjkit.score_batch(batch).totals).all()
    with pytest.raises(ValueError):
        again.rows[0, L.WIN] = 10**6
    assert len(mjkit.HandBatch(np.zeros((0, L.ROW_LEN), np.int64))) == 0


_FUZZ = textwrap.dedent("""
    import numpy as np, mjkit
    from mjkit.score import HandBatch, check_rows, _decode_row, encode_hand
    from mjkit._kernels import layout as L
    from mjkit.random_hands import random_winning_hands
    base = np.array(HandBatch.from_hands(random_winning_hands(200, seed=3)).rows, np.int64)
    rng = np.random.default_rng(7)
    vals = [-2**31, -1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 27, 33, 34, 255, 256, 1000, 1001,
            2**31 - 1, 16, 512, 2048, 4096]
    accepted = 0
    for _ in range(3000):
        r = base[rng.integers(len(base))].copy()
        for _ in range(rng.integers(1, 3)):
            c = rng.integers(L.ROW_LEN)
            r[c] = vals[rng.integers(len(vals))] if rng.random() < .6 else r[c] + rng.integers(-2, 3)
        try:
            out = check_rows(r[None])
        except mjkit.HandError:
            continue
        accepted += 1
        # an accepted row is exactly the row of a valid Hand with valid options
        h = _decode_row(out[0])
        again = encode_hand(h, wild=int(out[0, L.WILD]), lianla=int(out[0, L.LIANLA]),
                            flags=int(out[0, L.FLAGS]) & L.F_LEFTMOST)
        assert (again == out[0]).all(), (r.tolist(), again.tolist())
        try:
            mjkit.score_batch(HandBatch(out), rules="dazhong32" if out[0, L.LIANLA] else "gb")
        except mjkit.HandError:
            pass        # e.g. 连拉 on a discard win: refused, not crashed
    print("accepted", accepted)
""")


def test_fuzzed_rows_never_crash_and_accepted_rows_are_valid_hands():
    p = subprocess.run([sys.executable, "-c", _FUZZ], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert int(p.stdout.split()[-1]) > 100


# ------------------------------------------------------------ score_batch input

def test_score_batch_refuses_none_and_a_single_string():
    with pytest.raises(HandError, match="sequence of hands.*NoneType"):
        mjkit.score_batch(None)
    with pytest.raises(HandError, match=r"use score\(\) for a single hand"):
        mjkit.score_batch(HAND)
    with pytest.raises(HandError, match="sequence of hands"):
        mjkit.HandBatch.from_hands(42)


def test_a_per_hand_wild_error_names_the_hand():
    with pytest.raises(HandError, match="hand 1: wild"):
        mjkit.score_batch([HAND, HAND], wild=["P", "Z"])
    with pytest.raises(HandError, match="hand 2: wild"):
        mjkit.HandBatch.from_hands([HAND] * 3, wild=["P", None, 99])
    batch = mjkit.HandBatch.from_hands([HAND, HAND])
    with pytest.raises(HandError, match="hand 1: wild"):
        mjkit.score_batch(batch, wild=[None, 3.5])


def test_a_bad_wild_names_wild():
    with pytest.raises(HandError, match="^wild"):
        mjkit.score(HAND, wild="Z")


def test_a_blank_flower_count_is_refused():
    with pytest.raises(HandError, match="flowers"):
        mjkit.score(HAND, flowers=" ")
    with pytest.raises(HandError, match="flowers must be a count"):
        mjkit.score(HAND, flowers="-1")


# ---------------------------------------------------------------------- the CLI

@pytest.mark.parametrize("argv, option", [
    (["score", HAND, "--flowers=-1"], "--flowers"),
    (["score", HAND, "--flowers", " "], "--flowers"),
    (["score", HAND, "--wild", "Z"], "--wild"),
    (["score", HAND, "--lianla", str(2**31)], "--lianla"),
    (["score", HAND, "--lianla", "-1"], "--lianla"),
    (["score", HAND, "--lianla", "9" * 5000], "--lianla"),
    (["score", HAND, "--seat", "Q"], "--seat"),
    (["waits", "123m234m345m678m9m", "--lianla", str(2**40)], "--lianla"),
    (["distance", "123m234m345m678m9m", "--lianla", str(2**31)], "--lianla"),
    (["distance", "123m234m345m678m9m", "--min-fans", str(2**40)], "--min-fans"),
    (["distance", "123m234m345m678m9m", "--examples", "0"], "--examples"),
    (["targets", "123m234m345m678m9m", "--top", "-1"], "--top"),
])
def test_cli_options_are_checked_and_named(capsys, argv, option):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert f"argument {option}:" in err
    assert "Traceback" not in err and "unknown character '-'" not in err.split(":", 2)[-1][:5]
