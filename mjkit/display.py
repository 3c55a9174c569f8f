"""Notebook display of results: HTML built around the tile pictures of :mod:`mjkit.pictures`.

:func:`score_html` is what a :class:`~mjkit.score.ScoreResult` shows in
Jupyter (its ``_repr_html_``): the hand as tiles, a table of the counted fans
(Chinese and English name, points, count, value), the fans not counted (不计)
with the fans that exclude them, and the total against the bar with the
verdict, in red when declaring the win would be a false win (P胡).  All text
is escaped; the markup carries inline styles only, so it looks the same in
any notebook front end.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .errors import HandError
from .fonts import css_stack

__all__ = ["score_html"]

_TABLE = "border-collapse:collapse;margin:4px 0;font-size:13px"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd"
_NUM = _CELL + ";text-align:right"


def score_html(result: Any, *, lang: str = "zh", size: float = 40) -> str:
    """HTML of a :class:`~mjkit.score.ScoreResult`: the hand as tiles, the fans, the total.

    Parameters
    ----------
    result : ScoreResult
    lang : {"zh", "en"}
        Language of the tile labels and of the verdict shown first (the
        other language follows it).
    size : float, default 40
        Tile height in pixels.

    Returns
    -------
    str
        A ``<div>`` with an inline SVG of the hand and a ``<table>`` of fans.

    Raises
    ------
    HandError
        If ``result`` is no ScoreResult, or for a bad ``lang`` or ``size``.
    """
    from .pictures import hand_svg
    from .score import ScoreResult

    if not isinstance(result, ScoreResult):
        raise HandError(f"expected a ScoreResult, got {type(result).__name__}")
    parts = [f'<div class="mjkit-score" style="font-family:{css_stack()}">',
             f"<div>{hand_svg(result.hand, size=size, lang=lang, wild=result.wild)}</div>"]
    info = [escape(result.rules)]
    if result.is_win:
        info.append(escape(result.form))
    if result.wild:
        info.append(f"财神 wild {escape(result.wild)}"
                    + (f" → {escape(' '.join(result.wild_as))}" if result.wild_as else ""))
    parts.append(f'<div style="color:#666;font-size:12px">{" · ".join(info)}</div>')

    if result.fans:
        after = result.after_minimum
        rows = []
        for f in result.fans:
            mark = " †" if f.key in after else ""
            rows.append(
                f'<tr><td style="{_CELL}">{escape(f.zh)}{mark}</td>'
                f'<td style="{_CELL}">{escape(f.en)}</td>'
                f'<td style="{_NUM}">{f.points}</td><td style="{_NUM}">×{f.count}</td>'
                f'<td style="{_NUM}">{f.value}</td></tr>')
        head = "".join(f'<th style="{_CELL};text-align:{a}">{escape(h)}</th>' for h, a in (
            ("番种", "left"), ("Fan", "left"), ("番 points", "right"), ("count", "right"),
            ("value", "right")))
        parts.append(
            f'<table class="mjkit-fans" style="{_TABLE}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody>'
            f'<tfoot><tr><th colspan="4" style="{_CELL};text-align:left">总计 total</th>'
            f'<th style="{_NUM}">{result.total}</th></tr></tfoot></table>')
        if any(f.key in after for f in result.fans):
            parts.append('<div style="color:#666;font-size:12px">† 起和后计 / scored after '
                         "the minimum: does not count toward the bar</div>")
    else:
        parts.append(f'<table class="mjkit-fans" style="{_TABLE}"><tr><td style="{_CELL}">'
                     f"no fans</td><td style=\"{_NUM}\">total {result.total}</td></tr></table>")

    if result.not_counted:
        items = "".join(
            f'<li>{escape(name)} <span style="color:#666">— '
            + (f"因 {escape('、'.join(by))} 不计 / not counted: part of "
               f"{escape(', '.join(by))}" if by else "不计 / not counted")
            + "</span></li>"
            for name, by in result.not_counted)
        parts.append(f'<div style="font-size:13px">不计 not counted<ul style="margin:2px 0">'
                     f"{items}</ul></div>")

    ok = result.legal
    colour = "#1b6e2a" if ok else "#b00020"
    other = "en" if lang == "zh" else "zh"
    bar = (f"计番 counted {result.hand_points} / 起和 bar {result.bar}"
           if result.is_win else "")
    parts.append(
        f'<div class="mjkit-verdict" style="color:{colour};font-weight:bold;font-size:13px;'
        f'margin-top:4px">{escape(bar)}{"<br>" if bar else ""}'
        f"{escape(result.verdict(lang))}<br>{escape(result.verdict(other))}</div>")
    if result.notes:
        notes = "".join(f"<li>{escape(n)}</li>" for n in result.notes)
        parts.append(f'<ul style="font-size:12px;color:#666">{notes}</ul>')
    parts.append("</div>")
    return "".join(parts)
