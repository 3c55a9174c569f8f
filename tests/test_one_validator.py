"""One validator for each kind of argument, one wording of each refusal.

The language of a text (``lang=`` / ``--lang``), yes/no flags and the wild
tile are each checked by one function of :mod:`mjkit.validate`; every
caller refuses a bad value with that function's message and code.  The
waits summary reads its texts from the zh/en catalogue.
"""

from __future__ import annotations

import numpy as np
import pytest

from mjkit import messages, pictures, validate
from mjkit.app.server import check_options
from mjkit.errors import HandError
from mjkit.reach import Wait, WaitsResult
from mjkit.shanten import shanten
from mjkit.sim.params import params
from mjkit.tiles import tile_name
from mjkit.widgets.state import BuilderState


def _refusal(fn):
    with pytest.raises(HandError) as info:
        fn()
    return info.value


@pytest.mark.parametrize("good", ["zh", "en"])
def test_lang_accepts_the_catalogue_languages(good):
    assert validate.lang(good) == good and good in messages.LANGS


@pytest.mark.parametrize("bad", ["fr", "ZH", " en", "", None, 1, b"zh", ("zh",)])
def test_lang_refuses_everything_else(bad):
    err = _refusal(lambda: validate.lang(bad, "--lang"))
    assert err.code == "unknown_name"
    assert str(err).startswith("--lang must be zh or en: unknown language ")


@pytest.mark.parametrize("call", [
    lambda: tile_name(3, "fr"),
    lambda: messages.text("quiz.prompt.total", "fr"),
    lambda: messages.section("cli", "fr"),
    lambda: pictures.tile_svg("5m", lang="fr"),
    lambda: pictures.tile_label("5m", lang="fr"),
    lambda: shanten("123m456p789s EES P").explain("fr"),
    lambda: BuilderState().with_options(lang="fr"),
    lambda: check_options(lang="fr", create=False),
], ids=["tiles", "messages.text", "messages.section", "tile_svg", "tile_label", "shanten",
        "widget state", "app"])
def test_every_lang_argument_is_refused_in_one_wording(call):
    err = _refusal(call)
    assert err.code == "unknown_name"
    assert "must be zh or en: unknown language 'fr'" in str(err)


def test_strict_boolean_takes_only_true_and_false():
    assert validate.boolean(1, "flag") is True and validate.boolean(np.False_, "flag") is False
    assert validate.boolean(True, "label", strict=True) is True
    for bad in (1, 0, np.True_, "yes", None):
        err = _refusal(lambda: validate.boolean(bad, "label", strict=True))
        assert str(err).startswith("label must be True or False, got ")
    assert "label must be True or False, got 1" in str(
        _refusal(lambda: pictures.tile_svg("5m", label=1)))


@pytest.mark.parametrize("wild", ["3f", "Q", "9z"])
def test_the_simulator_refuses_a_wild_tile_as_validate_does(wild):
    want = _refusal(lambda: validate.wild_kind(wild, "wild"))
    got = _refusal(lambda: params("dazhong32", wild=wild))
    assert (str(got), got.code) == (str(want), want.code)


def test_the_simulator_wild_option():
    assert params("dazhong32", wild="P")[1].wild_kind == 31
    assert params("dazhong32", wild=" turned ")[1].wild_mode != params("dazhong32")[1].wild_mode
    assert "got 7" in str(_refusal(lambda: params("dazhong32", wild=7)))  # an index: a slip
    assert "a flower cannot be the wild tile" in str(_refusal(lambda: validate.wild_kind("3f")))


def _waits(lianla=0, legal=True):
    w = Wait(tile="5m", unseen=3, total=40, hand_points=40 if legal else 8, legal=legal,
             short_by=0 if legal else 12, fans=("花龙", "单钓将"))
    return WaitsResult(hand="1235m456p789sEEE", rules="dazhong32", lianla=lianla,
                       bar=32 - 4 * lianla, waits=[w])


def test_waits_summary_reads_the_catalogue():
    r = _waits(lianla=3, legal=False)
    assert r.summary("en") == (
        "1235m456p789sEEE: waits on 1 kind(s), 3 unseen; 20 fans needed at 连3拉3, 0 unseen "
        "tiles make a legal win\n  5m (3 left): 8 counted fans, P胡: 12 short - 花龙 单钓将")
    assert r.summary("zh") == ("1235m456p789sEEE：听 1 种牌，共 3 张未见；起和 20（连3拉3）\n"
                               "  5m（剩 3 张）：8 番，P胡，差 12 番 — 花龙 单钓将")
    assert r.summary("fr") == r.summary("en") == str(r)       # any other value reads English
    ok = _waits()
    assert ok.summary("zh").endswith("40 番，够番 — 花龙 单钓将")
    assert "32 fans needed, 3 unseen tiles make a legal win" in ok.summary()
    none = WaitsResult(hand="19m", rules="gb", lianla=0, bar=8, waits=[])
    assert none.summary("zh") == "19m: 未听牌 (not ready)"
    assert none.summary() == messages.text("reach.not_ready", "en", hand="19m")
