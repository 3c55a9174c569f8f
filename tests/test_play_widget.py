"""The practice table widget (issue 37 §1, §2, §7): a learner plays whole hands by clicks,
with the coach, in exam mode with a P胡 and its penalty, and a session with 连拉 carried.

The learner's clicks are made the way a person makes them (the widget's own click
methods, which its buttons call); what to click is what the strong engine would do.  The
others are the players whose kernels the warm-up compiles.
"""

from __future__ import annotations

import pytest

from mjkit import HandError
from mjkit.bot import Bot
from mjkit.pictures import tile_label
from mjkit.widgets import PlayTable

OTHERS = ("strong", "strong_break", "strong_break")


def _click(w, action):
    """Make ``action`` through the widget the way its buttons do."""
    t = w.table
    if action.kind == "discard":
        # the button of that tile in the learner's row (its text is the tile's label)
        label = tile_label(action.tile, w.lang)
        button = next(b for b in w.hand_row.children if b.description == label)
        assert not button.disabled
        button.click()
    elif action.kind == "exchange":
        hand = list(t.observe(t.to_act).hand)
        for k in action.tiles:
            w.click_tile(k, hand.index(k))
            hand[hand.index(k)] = None
        [b for b in w.actions.children][0].click()
    else:
        button = next(b for a, b in w.action_buttons if a == action)
        button.click()


def _play_hand(w, choose):
    """Play the current hand to its end, ``choose(obs, legal)`` deciding for the learner."""
    steps = 0
    while not w.table.done:
        t = w.table
        seat = t.to_act
        obs, legal = t.observe(seat), t.legal_actions(seat)
        _click(w, choose(obs, legal))
        steps += 1
        assert steps < 300
    return w.table.outcome


def test_a_coached_session_by_clicks_with_reviews_and_lianla_carried():
    w = PlayTable("dazhong32", seed=5, level=2, hands=2, opponents=OTHERS, lang="en")
    bot = Bot("strong")
    assert w.session.state.level == 2 and w.table.level == 2
    seat = w._seat()
    assert seat == 0                                  # the learner deals the first hand
    # at the first decision: the coach's figures are shown and the others' tiles are not
    t = w.table
    if t.asking == "turn":
        shown = [c.value for c in w.chance_row.children]
        assert any("%" in v for v in shown)
    assert "mjkit-coach" in w.coach_out.value and w.rating is not None
    seats = w.board.value.split('class="mjkit-seat"')[1:]
    assert len(seats) == 4
    for p, part in enumerate(seats):
        assert part.startswith(f' data-seat="{p}"')
        # the others' concealed tiles face down (nothing of them in the page), the
        # learner's drawn as buttons
        assert ("face down" in part) == (p != 0)
    assert len(w.hand_row.children) == len(t.observe(0).hand)
    hands = 0
    while not w.session.done:
        if w.table.done:
            assert not w.next_button.disabled
            w.next_button.click()
            continue
        bot.reset()
        _play_hand(w, lambda obs, legal: bot.decide(obs))
        hands += 1
        assert len(w.reviews) == hands
        rv = w.reviews[-1]
        assert rv.decisions and "Review" in w.review_out.value
    assert sum(w.session.scores) == 0 and len(w.session.hands) == 2
    assert "session is over" in w.prompt.value
    assert w.next_button.disabled
    first = w.session.hands[0]
    assert first.level == 2


def _declarer(bot):
    """The engine's choices, but any complete hand is declared (a P胡 below the bar)."""
    def choose(obs, legal):
        if any(a.kind == "win" for a in legal):
            return next(a for a in legal if a.kind == "win")
        return bot.decide(obs)
    return choose


def test_exam_mode_gives_no_hint_and_a_false_win_is_a_false_win_with_its_penalty():
    bot = Bot("strong")
    found = None
    for seed in range(40):
        w = PlayTable("dazhong32", seed=seed, hands=2, exam=True, opponents=OTHERS)
        assert w.rating is None and w.coach_out.value == ""
        for b in w.actions.children:
            assert not b.tooltip
        bot.reset()
        out = _play_hand(w, _declarer(bot))
        if out.result == "false_win" and out.winner == w._seat():
            found = w
            break
    assert found is not None, "no P胡 in 40 seeded hands"
    w = found
    out = w.table.outcome
    assert out.short > 0 and out.counted < out.bar
    assert "false_win" in w.reviews[-1].decisions[-1].rating.flags
    w.next_button.click()
    # the learner (the dealer of the first hand) sits out two rounds: a substitute plays
    assert w._seat() is None and w.table.done
    assert "substitute" in w.prompt.value or "替身" in w.prompt.value


def test_clicks_out_of_turn_and_forged_actions_change_nothing():
    from mjkit.fonts import FAMILY
    from mjkit.widgets import layout
    # the widget carries mjkit's own CJK font for its text (no system font needed), unless
    # the page has it already (the classroom app says so; a test of it may have run here)
    layout.use_page_font(True)
    assert "@font-face" not in PlayTable("dazhong32", seed=1, hands=1, opponents=OTHERS,
                                         lang="en", coach=False).style.value
    layout.use_page_font(False)
    w = PlayTable("dazhong32", seed=1, hands=1, opponents=OTHERS, lang="en", coach=False)
    t = w.table
    assert "@font-face" in w.style.value and FAMILY in w.style.value
    events = list(t.events)
    assert w.rating is None and w.coach_out.value == ""
    if t.asking == "exchange":
        w.exchange()                                  # keep the hand
    events = list(w.table.events)
    missing = next(k for k in range(34) if k not in w.table.observe(w._seat()).hand)
    w.click_tile(missing)
    assert "Not possible" in w.message.value and w.table.events == events
    w.act("pung")
    assert w.table.events == events
    with pytest.raises(HandError):
        PlayTable("dazhong32", pace=-1)
    with pytest.raises(HandError):
        PlayTable("dazhong32", opponents=("strong",))
    with pytest.raises(HandError):
        PlayTable("dazhong32", level=-1)


def test_deep_coach_runs_in_the_background_and_draws_if_still_current():
    w = PlayTable("dazhong32", seed=2, hands=1, opponents=OTHERS, lang="en")
    if w.table.asking == "exchange":
        w.exchange()
    thread = w.deep_coach()
    assert "computing" in w.coach_out.value
    thread.join(300)
    assert not thread.is_alive()
    assert 'data-mode="deep"' in w.coach_out.value or "data-mode='deep'" in w.coach_out.value
    assert w.rating.mode == "deep"
    assert w.rating.best is not None
    assert all(o.action.startswith("discard") for o in w.rating.options)
