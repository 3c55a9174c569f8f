"""What a hand pays: seed 001 D (现金牌桌成绩计算), one point per fan.

Two functions, the one home of the table's payments: :func:`hand_amount` (the points a
win is worth to each payer) and :func:`payments` (who pays whom, per position).  The
:class:`~mjkit.table.engine.Table` fills ``Outcome.payments`` with
``payments(result, winner, from_seat, hand_amount(counted, total, flowers))``, and a
:class:`~mjkit.table.session.Session` adds them up per player.

The seed lines each choice rests on (seeds in ``shared/seeds``, see ``docs/rules.md``):

* 001 D: "按实际胡牌番数由胡牌方收取点炮方相应胡牌金额；自摸时胡牌方同时向其他三方收取相应胡牌金额"
  — a discard win is paid by the discarder alone, a self-drawn win by each of the three
  others, the same amount each: the win's fans ("实际胡牌番数"), one point per fan (001 D
  prices a fan at "1番=2元"; mjkit counts points, one per fan).
* 001 C.l: "花牌：即春夏秋冬，梅兰竹菊，每花计一分。不计在起和分内，胡牌后才能计分" — flowers do
  not count toward the bar but are scored once the hand is won: they are paid.  So are
  the other fans added after the minimum (梅兰竹菊, 春夏秋冬, 季花, 无财神): they are fans of
  the win.
* 000 §一.2: "庄胡一局即为连1拉1，4番" and §一.3 "胡牌的番数+连拉的番数" — the 连拉 line is
  fans of the dealer's win (4 per level) and is paid with the rest.
* 001 B.b: "点胡：和他人打出的牌(包括抢杠胡)" — robbing a kong is a win on another player's
  tile, so the player whose kong was robbed pays, as a discarder does.
* 000 §四.2: "自行计算失误造成不够32番胡牌处理，俗称P胡；庄上P胡离开2圈…闲家P胡离开1圈" — the
  penalty of a P胡 (a declared win short of the bar) is sitting out, not a payment: a P胡
  pays nothing (a :class:`~mjkit.table.session.Session` models the sitting out).
* 003 (名词术语): "荒牌:每盘抓完第120…张牌，打出后仍无人胡…" — a drawn hand has no winner and pays
  nothing.

So the amount of a win is ``Outcome.total`` (= :attr:`mjkit.ScoreResult.total`: every fan
of the win, the 连拉 line, flowers and the other fans after the minimum included).
"""

from __future__ import annotations

from .. import validate as V
from ..errors import HandError

__all__ = ["RESULTS", "hand_amount", "payments"]

#: How a hand ends (``Outcome.result``): a legal win, a P胡, a drawn hand (荒牌).
RESULTS = ("win", "false_win", "drawn_out")

#: Points of one win are bounded far inside int32 (a hand's fans are a few hundred at
#: most; 连拉 adds 4 per level up to :data:`mjkit.validate.MAX_LEVEL`).
MAX_AMOUNT = 1_000_000


def _result(result):
    if not isinstance(result, str) or result not in RESULTS:
        raise HandError(f"result must be one of {', '.join(RESULTS)}, got {result!r}")
    return result


def hand_amount(counted, total, flowers=0):
    """Points each payer pays for a declared hand that wins (seed 001 D, 1 point per fan).

    Parameters
    ----------
    counted : int
        The fans counted toward the bar, the dealer's 连拉 line included
        (``Outcome.counted``).
    total : int
        Every fan of the hand: ``counted`` plus the fans added only after the minimum
        (花牌 one per flower, 季花, 梅兰竹菊, 春夏秋冬, 无财神) — ``Outcome.total``, as
        :attr:`mjkit.ScoreResult.total`.
    flowers : int
        The winner's flowers, 0..8.  They are already in ``total`` (the 花牌 fan, one
        point each) and are not added again.

    Returns
    -------
    int
        ``total``: 001 D pays "实际胡牌番数", the fans of the win, and the flowers (001 C.l:
        "每花计一分…胡牌后才能计分") and the 连拉 line (000 §一.2: "连1拉1，4番") are fans of
        the win.  Whether anything is paid at all (not for a P胡 or a drawn hand) is
        :func:`payments`' part.

    Raises
    ------
    HandError
        Counts that are not whole numbers (fans in 0..1,000,000, flowers in 0..8), or
        ``total`` below ``counted``.

    Examples
    --------
    >>> hand_amount(counted=36, total=38, flowers=2)
    38
    """
    counted = V.whole("counted", counted, 0, MAX_AMOUNT)
    total = V.whole("total", total, 0, MAX_AMOUNT)
    V.whole("flowers", flowers, 0, 8)
    if total < counted:
        raise HandError(f"total ({total}) must include the counted fans ({counted})")
    return total


def _position(x, name):
    return V.whole(name, x, 0, 3)


def payments(result, winner, from_seat, amount):
    """Points won (+) and paid (-) per position 0..3 for one hand; they sum to 0.

    Seed 001 D: "按实际胡牌番数由胡牌方收取点炮方相应胡牌金额；自摸时胡牌方同时向其他三方收取相应胡牌金额".

    Parameters
    ----------
    result : {"win", "false_win", "drawn_out"}
        How the hand ended.
    winner : int or None
        Position 0..3 of the winner (required for a win; for a P胡 the player who
        declared it, or None; None for a drawn hand).
    from_seat : int or None
        For a win: the position that discarded the winning tile, or whose added kong was
        robbed (001 B.b counts 抢杠胡 as 点胡); None for a self-drawn win.
    amount : int
        Points per payer (:func:`hand_amount`); not paid unless the hand is a win.

    Returns
    -------
    tuple of int
        Four ints by position.  A discard win (or a robbed kong): the winner gets
        ``amount``, ``from_seat`` pays it.  A self-drawn win: each of the other three pays
        ``amount``, the winner gets ``3 * amount``.  A P胡 or a drawn hand: all zero (a
        P胡's penalty is sitting out, 000 §四.2).

    Raises
    ------
    HandError
        An unknown result, an amount that is not a whole number in 0..1,000,000, a winner
        or from_seat outside 0..3, a win without a winner, from_seat equal to the
        winner, or a drawn hand with a winner.

    Examples
    --------
    >>> payments("win", 2, None, 40)
    (-40, -40, 120, -40)
    >>> payments("win", 1, 3, 33)
    (0, 33, 0, -33)
    >>> payments("false_win", 1, None, 20)
    (0, 0, 0, 0)
    """
    result = _result(result)
    amount = V.whole("amount", amount, 0, MAX_AMOUNT)
    if result == "drawn_out":
        if winner is not None or from_seat is not None:
            raise HandError("a drawn hand has no winner and no from_seat "
                            f"(winner={winner!r}, from_seat={from_seat!r} given)")
        return (0, 0, 0, 0)
    if winner is None:
        if result == "win":
            raise HandError("a win needs its winner's position (winner=None given)")
    else:
        winner = _position(winner, "winner")
    payer = None if from_seat is None else _position(from_seat, "from_seat")
    if payer is not None and payer == winner:
        raise HandError(f"from_seat {payer} is the winner: a self-drawn win has "
                        "from_seat None")
    if result == "false_win":
        return (0, 0, 0, 0)
    out = [0, 0, 0, 0]
    if payer is None:
        for p in range(4):
            out[p] = 3 * amount if p == winner else -amount
    else:
        out[winner] = amount
        out[payer] = -amount
    return tuple(out)
