"""Sessions: the rotation rules (a pure function) and whole sessions at the table."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mjkit.errors import HandError
from mjkit.table.session import Session, SessionState, next_state, round_wind
from mjkit.validate import MAX_LEVEL

# ---------------------------------------------------------------- the rotation, pure


def _after(state, *hands, **kw):
    """The state after hands given as (result, seat) pairs."""
    for result, seat in hands:
        state = next_state(state, result, seat, **kw)
    return state


def test_a_dealer_who_wins_deals_again_one_level_up():
    st = SessionState(hand=5, dealer=2, level=1, passes=6)
    after = next_state(st, "win", 0)
    assert (after.hand, after.dealer, after.level, after.passes) == (6, 2, 2, 6)


def test_without_lianla_a_dealer_who_wins_deals_again_at_level_0():
    after = _after(SessionState(dealer=1), ("win", 0), ("win", 0), streaks=False)
    assert (after.dealer, after.level, after.passes, after.hand) == (1, 0, 0, 2)


def test_the_level_stops_at_the_highest_level_accepted():
    assert next_state(SessionState(level=MAX_LEVEL), "win", 0).level == MAX_LEVEL


@pytest.mark.parametrize("next_dealer", ["next", "winner"])
def test_a_drawn_hand_passes_the_deal_to_the_next_seat(next_dealer):
    after = next_state(SessionState(dealer=3, level=4, passes=2), "drawn_out",
                       next_dealer=next_dealer)
    assert (after.dealer, after.level, after.passes) == (0, 0, 3)


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_a_non_dealer_win_passes_the_deal_to_the_dealer_next_seat(seat):
    after = next_state(SessionState(dealer=1, level=3), "win", seat)
    assert (after.dealer, after.level, after.passes) == (2, 0, 1)


@pytest.mark.parametrize("seat,player", [(1, 3), (2, 0), (3, 1)])
def test_with_next_dealer_winner_the_winner_deals(seat, player):
    # dealer is player 2: position p is player (2 + p) % 4
    after = next_state(SessionState(dealer=2, level=3), "win", seat, next_dealer="winner")
    assert (after.dealer, after.level, after.passes) == (player, 0, 1)


def test_round_winds_follow_four_passes_each():
    st = SessionState()
    winds = []
    for _ in range(17):
        winds.append(st.round_wind)
        st = next_state(st, "drawn_out")
    assert "".join(winds) == "EEEESSSSWWWWNNNNE"
    assert [round_wind(r) for r in range(6)] == list("ESWNES")
    # a dealer keeping the deal is no pass: the round does not move
    assert _after(SessionState(passes=3), ("win", 0), ("win", 0)).round_wind == "E"


def test_positions_and_players():
    st = SessionState(dealer=3)
    assert [st.player_at(p) for p in range(4)] == [3, 0, 1, 2]
    assert [st.position_of(p) for p in range(4)] == [1, 2, 3, 0]


def test_a_false_win_of_a_non_dealer_sits_them_out_one_round():
    st = next_state(SessionState(dealer=0, level=2), "false_win", 2)    # player 2
    assert st.dealer == 1 and st.level == 0        # no winner: the deal passes
    assert st.away == (0, 0, 3, 0) and st.held == (0, 0, 0, 0)
    # a dealer keeping the deal does not shorten the absence
    st = _after(st, ("win", 0), ("win", 0))
    assert st.away == (0, 0, 3, 0) and st.dealer == 1 and st.level == 2
    st = _after(st, ("drawn_out", None), ("drawn_out", None))
    assert st.away == (0, 0, 1, 0)
    st = next_state(st, "drawn_out")
    assert st.away == (0, 0, 0, 0) and st.dealer == 0     # back after 4 passes: one round


def test_a_false_win_of_the_dealer_sits_them_out_two_rounds_and_keeps_the_streak():
    # player 1 deals at 连3拉3 and declares a P胡
    st = next_state(SessionState(dealer=1, level=3, passes=5), "false_win", 0)
    assert st.away == (0, 7, 0, 0) and st.held == (0, 3, 0, 0)
    assert st.dealer == 2 and st.level == 0
    # seven more hands without a win (荒牌 and a P胡 of another player): nobody 破拉
    st = _after(st, *[("drawn_out", None)] * 3)
    assert st.dealer == 1 and st.level == 0           # the substitute deals, at level 0
    st = _after(st, ("drawn_out", None), ("false_win", 1), ("drawn_out", None))
    assert st.away[1] == 1 and st.held[1] == 3
    st = next_state(st, "drawn_out")
    # two rounds after the P胡 hand the deal is back at player 1, who deals on at 连3拉3
    assert st.away[1] == 0 and st.dealer == 1 and st.level == 3 and st.held == (0,) * 4
    assert st.passes == 5 + 8


def test_a_win_while_the_dealer_sits_out_breaks_the_held_streak():
    st = next_state(SessionState(dealer=0, level=2), "false_win", 0)
    st = next_state(st, "win", 0)           # player 1 deals and wins: 破拉
    assert st.held == (0,) * 4 and st.away[0] == 7
    st = _after(st, *[("drawn_out", None)] * 7)
    assert st.away == (0,) * 4 and st.dealer == 0 and st.level == 0


def test_without_sit_out_a_false_win_is_a_hand_without_winner():
    st = next_state(SessionState(dealer=0, level=2), "false_win", 0, sit_out=False)
    assert (st.dealer, st.level, st.away, st.held) == (1, 0, (0,) * 4, (0,) * 4)


@pytest.mark.parametrize("call,words", [
    (lambda: next_state("state", "win", 0), "state must be a SessionState"),
    (lambda: next_state(SessionState(), "won", 0), "result must be one of"),
    (lambda: next_state(SessionState(), "win", None), "needs the position"),
    (lambda: next_state(SessionState(), "win", 4), "seat must be a whole number in 0..3"),
    (lambda: next_state(SessionState(), "drawn_out", 1), "a drawn hand has no seat"),
    (lambda: next_state(SessionState(), "win", 1, next_dealer="east"), "next_dealer must be"),
])
def test_next_state_refuses_bad_arguments(call, words):
    with pytest.raises(HandError, match=words):
        call()


# ---------------------------------------------------------------- the rules as documented

ROOT = Path(__file__).resolve().parent.parent
_SEEDS = Path(os.environ.get("MJKIT_SEEDS", ROOT.parent / "shared" / "seeds"))
# the seed lines docs/rules.md ("Sessions") rests on
SESSION_QUOTES = [
    "庄家如果胡牌， 则下一把可继续连庄，否则即由庄家的下家做庄",       # 003: next seat deals
    "以后则为胡牌的人为庄家,如果荒牌则算庄家的下一家坐庄",            # 003: the winner deals
    "荒牌后庄家的下家坐庄",                                          # 003: 荒牌
    "庄上P胡离开2圈，2圈满惩罚结束；闲家P胡离开1圈，1圈满惩罚结束；如P胡者有连拉，在离开的时间内没有破拉，则连拉继续计算",
    "破拉，场上玩家通过配合让非连拉的庄家胡牌，中断已有的连拉",
    "按实际胡牌番数由胡牌方收取点炮方相应胡牌金额；自摸时胡牌方同时向其他三方收取相应胡牌金额",
    "每花计一分。不计在起和分内，胡牌后才能计分",
    "点胡：和他人打出的牌(包括抢杠胡)",
]


@pytest.mark.parametrize("quote", SESSION_QUOTES)
def test_the_sessions_section_quotes_the_seeds(quote):
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text[text.index("## Sessions"):text.index("## All fans")]
    assert quote in section
    texts = sorted(_SEEDS.glob("00*.txt")) if _SEEDS.is_dir() else []
    if not texts:
        pytest.skip("seed texts not available (set MJKIT_SEEDS)")
    assert quote in "\n".join(p.read_text(encoding="utf-8") for p in texts)


# ---------------------------------------------------------------- sessions at the table

BOTS = ("strong", "strong_break", "strong_break", "strong_break")


def _check_rotation(s):
    """Every hand of session ``s`` follows the rotation rules from the one before, and its
    table was set up for it (wall, level, round wind, who sat where); scores add up."""
    st = SessionState()
    scores = [0, 0, 0, 0]
    for k, h in enumerate(s.hands):
        assert (h.number, h.dealer, h.level, h.round, h.round_wind) == (
            k, st.dealer, st.level, st.round, st.round_wind)
        assert h.players == tuple(st.player_at(p) for p in range(4))
        assert h.away == tuple(p for p in range(4) if st.away[p])
        head = h.events[0]
        assert (head["hand"], head["wall_level"], head["level"], head["round_wind"]) == (
            k, 0, st.level, st.round_wind)
        assert head["players"] == [s.substitute if st.away[p] else s.names[p]
                                   for p in h.players]
        out = h.outcome
        assert sum(out.payments) == 0 and out.level == st.level
        if out.result == "win":     # 001 D: the win's every fan, by the discarder or all three
            want = [0, 0, 0, 0] if out.from_seat is not None else [-out.total] * 4
            want[out.winner] = out.total if out.from_seat is not None else 3 * out.total
            if out.from_seat is not None:
                want[out.from_seat] = -out.total
            assert out.payments == tuple(want) and out.total > 0
        else:
            assert out.payments == (0, 0, 0, 0)
        for position, player in enumerate(h.players):
            assert h.payments[player] == out.payments[position]
            scores[player] += out.payments[position]
        assert h.scores == tuple(scores)
        st = next_state(st, out.result, None if out.result == "drawn_out" else out.winner,
                        next_dealer=s.next_dealer, streaks=s.streaks, sit_out=s.sit_out)
    assert st == s.state and s.scores == tuple(scores) and sum(scores) == 0
    return st


def test_a_session_of_built_in_players_plays_one_round():
    s = Session(seed=3, players=BOTS)
    assert s.rounds_limit == 1 and s.hands_limit is None
    assert len(s.hands) == 1          # the first hand of built-in players is played at once
    played = s.play()
    assert s.done and played == s.hands[1:] and len(s.hands) >= 4
    st = _check_rotation(s)
    # one round: the 4th pass of the deal ended the last hand; every player dealt
    assert st.passes == 4 and st.round == 1
    last = s.hands[-1]
    assert last.dealer == 3 and not (last.outcome.result == "win" and last.outcome.winner == 0)
    assert {h.dealer for h in s.hands} == {0, 1, 2, 3}
    # the dealer's win carried to the next hand: same dealer, 连1拉1 at the table
    kept = [(h, nxt) for h, nxt in zip(s.hands, s.hands[1:])
            if h.outcome.result == "win" and h.outcome.winner == 0]
    assert kept and all(nxt.dealer == h.dealer and nxt.level == h.level + 1
                        and nxt.events[0]["level"] == nxt.level for h, nxt in kept)
    with pytest.raises(HandError, match="the session is over"):
        s.next_hand()


def test_a_session_ends_after_its_hands_and_play_stops_where_asked():
    s = Session(seed=11, players=BOTS, hands=5)
    assert s.rounds_limit is None
    assert len(s.play(until=2)) == 1 and len(s.hands) == 2 and not s.done
    assert s.play(until=1) == []                  # already there
    assert len(s.play()) == 3 and s.done and len(s.hands) == 5
    _check_rotation(s)


def test_round_winds_of_a_two_round_session_with_the_winner_dealing():
    s = Session(seed=5, players=BOTS, rounds=2, next_dealer="winner")
    s.play()
    st = _check_rotation(s)
    assert st.passes == 8
    winds = [h.round_wind for h in s.hands]
    assert winds == sorted(winds, key="ES".index) and set(winds) == {"E", "S"}
    # a non-dealer won and dealt the next hand, not the dealer's next seat
    taken = [(h, nxt) for h, nxt in zip(s.hands, s.hands[1:]) if h.outcome.result == "win"
             and h.players[h.outcome.winner] not in (h.dealer, (h.dealer + 1) % 4)]
    assert taken and all(nxt.dealer == h.players[h.outcome.winner] for h, nxt in taken)


def test_without_lianla_the_dealer_keeps_the_deal_at_level_0():
    s = Session("dazhong", seed=3, players=BOTS, hands=6)
    s.play()
    _check_rotation(s)
    assert not s.streaks and not s.sit_out
    assert all(h.level == 0 and h.outcome.level == 0 for h in s.hands)
    kept = [(h, nxt) for h, nxt in zip(s.hands, s.hands[1:])
            if h.outcome.result == "win" and h.outcome.winner == 0]
    assert kept and all(nxt.dealer == h.dealer for h, nxt in kept)
    # dazhong wins on discards too: the discarder alone pays (seed 001 D)
    discard_wins = [h.outcome for h in s.hands
                    if h.outcome.result == "win" and h.outcome.from_seat is not None]
    assert discard_wins
    for out in discard_wins:
        pay = [0, 0, 0, 0]
        pay[out.winner], pay[out.from_seat] = out.total, -out.total
        assert out.payments == tuple(pay)


def test_duplicate_play_deals_the_same_tiles_whoever_plays():
    a = Session(seed=3, players=BOTS, hands=4)
    b = Session(seed=3, players=("efficiency",) * 4, hands=4)
    a.play()
    b.play()
    # the sessions went apart (another dealer, another level), the walls did not
    assert [(h.dealer, h.level) for h in a.hands] != [(h.dealer, h.level) for h in b.hands]

    def deal(h):
        ev = list(h.events)
        return ev[1:ev.index({"e": "dealt"}) + 1]

    for ha, hb in zip(a.hands, b.hands):
        assert deal(ha) == deal(hb) and len(deal(ha)) > 53
    assert [h.events[0]["players"] for h in a.hands] != [h.events[0]["players"]
                                                          for h in b.hands]


def _greedy(calls):
    """A Python player: declares every win it may (P胡 included), never claims, and
    discards the tile with the fewest neighbours in its hand."""
    def greedy(obs, legal):
        calls.append(obs.seat)
        kinds = [a.kind for a in legal]
        if "win" in kinds:
            return legal[kinds.index("win")]
        discards = [a for a in legal if a.kind == "discard"]
        if not discards:
            return next((a for a in legal if a.kind == "pass"), legal[0])
        hand = list(obs.hand)

        def company(t):
            near = [t + d for d in (-2, -1, 1, 2) if t < 27 and 0 <= t + d < 27
                    and (t + d) // 9 == t // 9]
            return 3 * hand.count(t) + sum(hand.count(u) * (3 - abs(u - t)) for u in near)
        return min(discards, key=lambda a: (company(a.tile), -a.tile))
    return greedy


@pytest.mark.parametrize("seed,as_dealer", [(6, True), (1, False)])
def test_a_python_player_sits_out_after_a_false_win(seed, as_dealer):
    calls = []
    s = Session(seed=seed, players=(_greedy(calls), "strong", "strong", "strong"), hands=10)
    assert s.names[0] == "py:greedy"
    per_hand = [len(calls)]                 # hand 0 is played as the session is made
    while not s.done:
        s.play(until=len(s.hands) + 1)
        per_hand.append(len(calls))
    asked = [per_hand[0]] + [b - a for a, b in zip(per_hand, per_hand[1:])]
    _check_rotation(s)                      # who sat out, and the substitute in the seat
    false_wins = [h.number for h in s.hands
                  if h.outcome.result == "false_win" and h.players[h.outcome.winner] == 0]
    assert false_wins, "the greedy player declared no P胡 in these hands"
    first = s.hands[false_wins[0]]
    assert (first.dealer == 0) == as_dealer and first.outcome.short > 0
    # away from the next hand until the deal has passed 8 times (as dealer) or 4, the
    # P胡 hand's own pass included; a dealer keeping the deal is no pass
    rounds = 2 if as_dealer else 1
    passes, expect = 1, []
    for h in s.hands[first.number + 1:]:
        if passes == 4 * rounds:
            break
        expect.append(h.number)
        passes += not (h.outcome.result == "win" and h.outcome.winner == 0)
    later = false_wins[1] if len(false_wins) > 1 else len(s.hands)
    away = [h.number for h in s.hands if 0 in h.away]
    assert expect and [k for k in away if k <= later] == expect
    # the function is asked in every hand it sits in, and not while it sits out
    assert all((asked[k] == 0) == (k in away) for k in range(len(s.hands)))
    assert sum(s.scores) == 0 and sum(s.substitute_scores) == sum(
        h.payments[0] for h in s.hands if 0 in h.away)


def test_a_seat_played_from_outside_step_by_step(tmp_path):
    path = tmp_path / "s.jsonl"
    s = Session(seed=4, players=("you", "strong", "strong", "strong"), hands=2, path=path)
    outcomes = []
    with pytest.raises(HandError, match="must act"):
        s.play()
    while not s.done:
        t = s.table
        if t.done:
            with pytest.raises(HandError, match="call next_hand"):
                s.step("pass")
            s.next_hand()
            continue
        with pytest.raises(HandError, match="is not over"):
            s.next_hand()
        legal = t.legal_actions(t.to_act)
        pick = next((a for a in legal if a.kind == "pass"), legal[-1])
        out = s.step(pick)
        assert (out is not None) == s.table.done
        if out is not None:
            outcomes.append(out)
            assert s.hands[-1].outcome is out and s.table.done
    # each hand ended on one of the outside seat's steps, which returned its outcome
    assert outcomes == [h.outcome for h in s.hands] and len(outcomes) == 2
    _check_rotation(s)
    with pytest.raises(HandError, match="the session is over"):
        s.step("pass")
    # the record on disk holds every hand, as the session's own record
    from mjkit.table.record import read_record
    rec = read_record(path)
    assert rec == s.record() and rec.header["session"]["hands"] == 2
    assert [h.scores for h in rec.hands] == [h.scores for h in s.hands]
    assert rec.to_jsonl() == path.read_text(encoding="utf-8")


def test_the_record_is_on_disk_after_every_hand(tmp_path):
    from mjkit.table.record import read_record
    path = tmp_path / "long.jsonl"
    s = Session(seed=8, players=BOTS, hands=3, path=path)
    for n in (1, 2, 3):
        if n > 1:
            s.next_hand()
        assert len(read_record(path).hands) == n
    assert s.done
    with pytest.raises(HandError, match="exists"):
        Session(seed=8, players=BOTS, hands=1, path=path)
    saved = s.save(tmp_path / "copy.jsonl")
    assert saved.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("kw,words", [
    (dict(players=("strong",) * 3), "players must name 4 players"),
    (dict(players="strong"), "players must be a sequence"),
    (dict(players=("strong", "strong", "strong", "best")), r"players\[3\]: unknown player"),
    (dict(players=("strong", 7, "strong", "strong")), r"players\[1\] must be"),
    (dict(hands=0), "hands must be a whole number in 1.."),
    (dict(hands=True), "hands must be a whole number"),
    (dict(rounds=-1), "rounds must be a whole number in 1.."),
    (dict(rounds=2.0), "rounds must be a whole number"),
    (dict(next_dealer="east"), "next_dealer must be one of next, winner"),
    (dict(substitute="you"), "substitute must be a built-in policy"),
    (dict(substitute=print), "substitute must be a built-in policy"),
    (dict(sit_out="yes"), "sit_out must be True or False"),
    (dict(seed=-1), "seed must be a whole number"),
    (dict(rules="mahjong"), "unknown rule set"),
    (dict(path=7), "path must be a file name"),
])
def test_bad_arguments_are_refused_by_name(kw, words):
    kw = {"players": BOTS, **kw}
    with pytest.raises(HandError, match=words):
        Session(**kw)


def test_table_options_are_checked_at_the_first_deal(tmp_path):
    with pytest.raises(HandError, match="wild"):
        Session(players=BOTS, wild="3f", path=tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()      # no file for a session that never began


def test_a_session_resumes_from_its_record_after_a_crash(tmp_path):
    whole = Session(seed=8, players=BOTS, hands=4)
    whole.play()
    path = tmp_path / "crash.jsonl"
    s = Session(seed=8, players=BOTS, hands=4, path=path)
    s.play(until=2)
    s.close()
    # a crash in the middle of writing the next hand: half of its lines, the last one cut
    lines = [json.dumps(e, ensure_ascii=False) for e in whole.hands[2].events[:30]]
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n".join(lines)[:-7])
    r = Session.resume(path, players=BOTS)
    # the two hands on file, then the next one dealt (and played: built-in players)
    assert len(r.hands) == 3 and r.hands[:2] == s.hands and r.hands[1].scores == s.scores
    r.play()
    assert r.done and r.scores == whole.scores
    assert [h.events for h in r.hands] == [h.events for h in whole.hands]
    from mjkit.table.record import read_record
    assert [h.events for h in read_record(path).hands] == [list(h.events) for h in whole.hands]


def test_resume_refuses_a_record_that_is_not_the_session(tmp_path):
    path = tmp_path / "s.jsonl"
    Session(seed=8, players=BOTS, hands=2, path=path).play()
    with pytest.raises(HandError, match="are not the record's"):
        Session.resume(path, players=("strong",) * 4)
    text = path.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(text) if '"e":"scores"' in line)
    forged = json.loads(text[n])
    forged["scores"] = [forged["scores"][1], forged["scores"][0]] + forged["scores"][2:]
    if forged["scores"] == json.loads(text[n])["scores"]:
        forged["scores"] = [1, -1, 0, 0]
    text[n] = json.dumps(forged, separators=(",", ":"))
    bad = tmp_path / "forged.jsonl"
    bad.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(HandError, match=r"record line \d+: the scores after hand 0"):
        Session.resume(bad, players=BOTS)
