"""A hand's record shown move by move: the table drawn with mjkit's tile pictures.

:func:`hand_html` draws the table at one moment (a :class:`~mjkit.table.state.Snapshot`):
the four seats (position, wind, player) with their concealed tiles, melds, flowers and
discards (those claimed greyed), the wild tile, the tiles left in the wall, the last
event in words and, once the hand is over, its result (fans, payments).
:func:`record_html` is a whole hand as static HTML: its last state and the list of its
moves.  :class:`RecordView` is the Jupyter widget: a slider over the events and
previous / next buttons, each position drawn by :func:`hand_html` (the widget only wires
the controls; everything shown is computed from the snapshots of
:func:`mjkit.table.state.fold`).

Tiles are the SVG pictures of :mod:`mjkit.pictures` (drawn from mjkit's own outlines,
never a font); every word comes from the zh/en catalogue (:mod:`mjkit.messages`,
entries ``record.*``).
"""

from __future__ import annotations

import html
from typing import Any, Iterable

from .. import messages as M
from ..errors import HandError
from ..validate import lang as check_lang
from ..validate import whole
from .state import Snapshot, fold

__all__ = ["hand_html", "record_html", "summary_html", "event_text", "RecordView"]

_SMALL = 0.7            # flowers and discards, relative to the hand's tiles


def _t(key: str, lang: str, **fields) -> str:
    """The record view's text ``key`` (catalogue entry ``record.<key>``)."""
    return M.text("record." + key, lang, **fields)


def _size(size: Any) -> int:
    return whole("size", size, 12, 120)


def _events(hand: Any) -> list:
    """The events of a HandLog (anything with an ``events`` list: the view reads records
    without importing :mod:`.record`, which imports the view) or of a list of events."""
    events = getattr(hand, "events", None)
    if isinstance(events, list):
        return events
    if isinstance(hand, (str, bytes, dict)) or not hasattr(hand, "__iter__"):
        raise HandError(f"expected a HandLog or a hand's list of events, got "
                        f"{type(hand).__name__}")
    return list(hand)


def _seat_word(seat: int, lang: str) -> str:
    return _t("seat", lang, wind=M.value("builder.winds", lang)[seat])


def _label(tile: int, lang: str) -> str:
    from ..pictures import tile_label

    return tile_label(tile, lang)


def _tile_of(text: str) -> int:
    from ..tiles import tile_from_str

    return tile_from_str(text)


def event_text(event: dict | None, lang: str = "zh", hidden: Iterable[int] = ()) -> str:
    """An event in words, e.g. ``东家 打出 5万`` / ``East discards 5m``.

    The event is taken as a fold accepted it (see :mod:`mjkit.table.state`).  A draw or an
    exchange of a seat in ``hidden`` is told without its tiles (what another player sees).
    """
    lang = check_lang(lang)
    if event is None:
        return _t("start", lang)
    e = event["e"]
    f: dict[str, Any] = {}
    if "seat" in event:
        f["seat"] = _seat_word(event["seat"], lang)
    if isinstance(event.get("from"), int):
        f["from"] = _seat_word(event["from"], lang)
    if isinstance(event.get("tile"), str):
        f["tile"] = _label(_tile_of(event["tile"]), lang)
    if e == "hand":
        names = M.value("builder.rule_sets", lang)
        return _t("ev.hand", lang, hand=event["hand"], rules=names.get(event["rules"],
                                                                      event["rules"]))
    if e in ("draw", "exchange") and event["seat"] in hidden:
        return _t("ev." + e + "_hidden", lang, seat=f["seat"])
    if e == "draw":
        return _t("ev.draw_back" if event["back"] else "ev.draw", lang, **f)
    if e == "exchange":
        return _t("ev.exchange", lang, seat=f["seat"], gave=_label(_tile_of(event["gave"]), lang),
                  got=_label(_tile_of(event["got"]), lang))
    if e == "chow":
        from ..tiles import parse_tiles

        tiles = "".join(_label(t, lang) for t in parse_tiles(event["tiles"]))
        return _t("ev.chow", lang, tiles=tiles, **f)
    if e == "kong":
        key = ("ev.concealed_kong" if event.get("concealed") else
               "ev.added_kong" if event.get("added") else "ev.kong")
        return _t(key, lang, **f)
    if e == "pass":
        return _t("ev.pass_win" if event["win"] else "ev.pass", lang, **f)
    if e == "win":
        key = ("ev.win_self" if event["from"] is None else
               "ev.win_robbed" if event["robbed"] else "ev.win_discard")
        return _t(key, lang, **f)
    return _t("ev." + e, lang, **f)


def _row(tiles, states, size, lang) -> str:
    """A row of tiles as one inline picture (nothing for no tiles)."""
    from ..pictures import tiles_svg

    if not tiles:
        return ""
    return (f'<span style="display:inline-block;vertical-align:bottom;margin-right:6px">'
            f'{tiles_svg(list(tiles), size=size, lang=lang, states=list(states))}</span>')


def _meld_states(meld, wild) -> list:
    if meld.kind == "concealed_kong":
        return ["concealed", None, None, "concealed"]
    return [None] * len(meld.tiles)


def _seat_html(snap: Snapshot, seat: int, size: int, lang: str, hidden: bool = False,
               omitted: bool = False) -> str:
    e = html.escape
    wild = snap.wild
    ev = snap.event or {}
    acting = ev.get("seat") == seat
    head = [_seat_word(seat, lang)]
    if seat == 0:
        head.append(_t("dealer", lang))
    if snap.players:
        head.append(snap.players[seat])
    title = " · ".join(e(x) for x in head)
    hand = list(snap.hands[seat])
    states = [("wild",) if t == wild else None for t in hand]
    r = snap.result
    if r is not None and r["e"] != "drawn_out" and r["seat"] == seat:
        won = _tile_of(r["tile"])          # the winning tile last, marked
        hand.remove(won)
        hand.append(won)
        states = [("wild",) if t == wild else None for t in hand[:-1]]
        states.append(("win", "wild") if won == wild else ("win",))
    if omitted and r is None:
        parts = []                          # drawn by the caller (a player's own tiles)
    elif hidden and r is None:
        # face down, and nothing of the tiles in the page (a tile's picture names it)
        parts = [_row([0] * len(hand), [("concealed",)] * len(hand), size, lang)]
    else:
        parts = [_row(hand, states, size, lang)]
    for m in snap.melds[seat]:
        parts.append(_row(m.tiles, _meld_states(m, wild), size, lang))
    small = max(12, round(size * _SMALL))
    flowers = snap.flowers[seat]
    fl = (f'<span title="{e(_t("flowers", lang))}">'
          f'{_row(flowers, [None] * len(flowers), small, lang)}</span>') if flowers else ""
    discards = snap.discards[seat]
    last = snap.last_discard
    dstates = [("dim",) if taken else ("win",) if last == (seat, i) else None
               for i, (_, taken) in enumerate(discards)]
    disc = (f'<div class="mjkit-discards" data-seat="{seat}" '
            f'title="{e(_t("discards", lang))}">'
            f'{_row([t for t, _ in discards], dstates, small, lang)}</div>') if discards else ""
    border = "#d4a017" if acting else "#ddd"
    return (f'<div class="mjkit-seat" data-seat="{seat}" data-tiles="{len(hand)}" '
            f'style="border:2px solid {border};border-radius:6px;padding:4px 6px;margin:4px 0">'
            f'<div style="font-weight:bold">{title} {fl}</div>'
            f'<div class="mjkit-hand-picture">{"".join(parts)}</div>{disc}</div>')


def _result_html(snap: Snapshot, lang: str) -> str:
    e = html.escape
    r = snap.result
    if r is None:
        return ""
    out = ['<div class="mjkit-result" style="margin:6px 0">']
    if snap.event is not r:                 # after the end: the result said again
        out.append(f"<div>{e(event_text(r, lang))}</div>")
    if r["e"] in ("win", "false_win"):
        line = _t("value", lang, counted=r["counted"], total=r["total"])
        if r["e"] == "false_win":
            line += " · " + _t("short", lang, bar=r["bar"], short=r["short"])
        colour = "#1b6e2a" if r["e"] == "win" else "#b00020"
        out.append(f'<div style="color:{colour};font-weight:bold">{e(line)}</div>')
        if r["fans"]:
            from ..rules.catalogue import catalogue_lists

            cat = catalogue_lists()
            rows = []
            for key, n in r["fans"].items():
                i = cat.key.index(key)
                name = M.text("widgets.term", lang, zh=cat.zh[i], en=cat.en[i])
                rows.append(f"<tr><td>{e(name)}</td><td style='text-align:right'>{n}</td></tr>")
            out.append(f"<table class='mjkit-fans'><tr><th colspan='2'>{e(_t('fans', lang))}"
                       f"</th></tr>{''.join(rows)}</table>")
    if snap.payments is not None:
        cells = "".join(
            f"<tr><td>{e(_seat_word(s, lang))} · {e(snap.players[s])}</td>"
            f"<td style='text-align:right'>{p:+d}</td></tr>"
            for s, p in enumerate(snap.payments))
        out.append(f"<table class='mjkit-payments'><tr><th colspan='2'>"
                   f"{e(_t('payments', lang))}</th></tr>{cells}</table>")
    out.append("</div>")
    return "".join(out)


def hand_html(snapshot: Snapshot, *, lang: str = "zh", size: int = 32, total: int | None = None,
              hidden: Iterable[int] = (), omitted: Iterable[int] = ()) -> str:
    """The table at one moment of a hand, as HTML.

    Parameters
    ----------
    snapshot : Snapshot
        The state (:func:`mjkit.table.state.fold`).
    lang : {"zh", "en"}
        The language of the words and the tile labels.
    size : int
        The height of the hand's tiles in pixels (12..120); flowers and discards are
        drawn smaller.
    total : int, optional
        The hand's number of events, to show "event i of n".
    hidden : positions
        Seats whose concealed tiles are drawn face down until the hand is over (a player
        at the table sees only their own): the page then holds nothing of those tiles.
    omitted : positions
        Seats whose concealed tiles are not drawn until the hand is over (the practice
        table draws the learner's own as buttons).

    Returns
    -------
    str
        A ``<div class="mjkit-table">``: a line on the hand (round, 连拉, the wild tile,
        the wall), the last event in words, the four seats (``data-seat``), the result.

    Raises
    ------
    HandError
        For a bad ``snapshot``, ``lang`` or ``size``.
    """
    from ..fonts import css_stack
    from ..pictures import tiles_svg

    if not isinstance(snapshot, Snapshot):
        raise HandError(f"expected a Snapshot, got {type(snapshot).__name__}")
    lang = check_lang(lang)
    size = _size(size)
    e = html.escape
    snap = snapshot
    info = []
    if snap.rules is not None:
        names = M.value("builder.rule_sets", lang)
        info.append(e(names.get(snap.rules, snap.rules)))
        info.append(e(_t("hand_no", lang, n=snap.hand)))
        info.append(e(_t("round", lang, wind=M.value("builder.winds", lang)[snap.round_wind])))
        if snap.level:
            info.append(e(_t("level", lang, n=snap.level)))
        if snap.wild is not None:
            pic = tiles_svg([snap.wild], size=max(12, round(size * _SMALL)), lang=lang,
                            states=[("wild",)])
            info.append(f'<span class="mjkit-wild">{e(_t("wild", lang))} '
                        f'<span style="display:inline-block;vertical-align:middle">{pic}'
                        "</span></span>")
        info.append(f'<span class="mjkit-wall" data-left="{snap.wall_left}">'
                    f'{e(_t("wall", lang, n=snap.wall_left))}</span>')
    if total is not None:
        info.append(e(_t("step", lang, i=snap.index, n=total)))
    hidden, omitted = set(hidden), set(omitted)
    seats = "".join(_seat_html(snap, s, size, lang, s in hidden, s in omitted)
                    for s in range(4)) if snap.players else ""
    return (f'<div class="mjkit-table" data-index="{snap.index}" '
            f'style="font-family:{css_stack()};font-size:13px">'
            f'<div style="color:#555">{" · ".join(info)}</div>'
            f'<div class="mjkit-event" style="font-weight:bold;margin:4px 0">'
            f'{e(event_text(snap.event, lang, hidden if snap.result is None else ()))}</div>'
            f"{seats}{_result_html(snap, lang)}</div>")


def record_html(hand: Any, *, lang: str = "zh", size: int = 32) -> str:
    """A whole hand as static HTML: the table at its end and every move in words.

    Parameters
    ----------
    hand : HandLog or list of dict
        The hand's events (a record's :class:`~mjkit.table.record.HandLog`).
    lang : {"zh", "en"}
    size : int

    Raises
    ------
    HandError
        For events the fold refuses (naming the event), or a bad ``lang`` or ``size``.
    """
    lang = check_lang(lang)
    events = _events(hand)
    snaps = fold(events)
    e = html.escape
    moves = "".join(f"<li>{e(event_text(ev, lang))}</li>" for ev in events)
    last = hand_html(snaps[-1], lang=lang, size=size, total=len(events))
    return (f'<div class="mjkit-record">{last}'
            f'<details><summary>{e(_t("moves", lang))}</summary>'
            f'<ol start="1" style="font-size:12px">{moves}</ol></details></div>')


def summary_html(record: Any, *, lang: str = "zh", size: int = 32) -> str:
    """A whole record as HTML: a line per hand (its number, result and payments), then
    its last hand drawn by :func:`record_html`.

    Parameters
    ----------
    record : Record
    lang : {"zh", "en"}
    size : int
    """
    if not isinstance(getattr(record, "hands", None), list):
        raise HandError(f"expected a Record, got {type(record).__name__}")
    lang = check_lang(lang)
    e = html.escape
    rows = []
    for h in record.hands:
        pay = " ".join(f"{p:+d}" for p in h.payments)
        rows.append(f"<li>{e(_t('hand_no', lang, n=h.events[0]['hand']))}: "
                    f"{e(event_text(h.result, lang))} ({pay})</li>")
    last = record_html(record.hands[-1], lang=lang, size=size) if record.hands else ""
    return f'<div class="mjkit-records"><ol>{"".join(rows)}</ol>{last}</div>'


class RecordView:
    """A hand move by move in Jupyter: a slider over its events, previous and next.

    Parameters
    ----------
    hand : HandLog or list of dict
        The hand's events.
    lang : {"zh", "en"}
    size : int
        Tile height in pixels.
    index : int, optional
        The position shown first: events applied (default: the table after the deal).

    Attributes
    ----------
    snapshots : list of Snapshot
        The table before the first event and after each.
    slider, prev, next : ipywidgets controls
    out : ipywidgets.HTML
        :func:`hand_html` of the position shown.
    widget : ipywidgets.VBox
    """

    def __init__(self, hand: Any, *, lang: str = "zh", size: int = 32,
                 index: int | None = None):
        import ipywidgets as W

        self.lang = check_lang(lang)
        self.size = _size(size)
        self.events = _events(hand)
        self.snapshots = fold(self.events)
        n = len(self.events)
        if index is None:
            index = next((i + 1 for i, ev in enumerate(self.events) if ev["e"] == "dealt"), 0)
        index = whole("index", index, 0, n)
        self.slider = W.IntSlider(value=index, min=0, max=n, step=1,
                                  description=_t("slider", self.lang),
                                  layout=W.Layout(width="100%", max_width="480px"))
        self.prev = W.Button(description=_t("prev", self.lang), layout=W.Layout(width="auto"))
        self.next = W.Button(description=_t("next", self.lang), layout=W.Layout(width="auto"))
        self.out = W.HTML()
        self.slider.observe(lambda _: self._draw(), names="value")
        self.prev.on_click(lambda _: self.go(self.slider.value - 1))
        self.next.on_click(lambda _: self.go(self.slider.value + 1))
        self.widget = W.VBox([W.HBox([self.prev, self.slider, self.next],
                                     layout=W.Layout(flex_flow="row wrap")), self.out],
                             layout=W.Layout(width="100%"))
        self._draw()

    @property
    def index(self) -> int:
        """The position shown: events applied."""
        return self.slider.value

    @property
    def snapshot(self) -> Snapshot:
        """The table shown."""
        return self.snapshots[self.slider.value]

    def go(self, index: int) -> None:
        """Show the table after ``index`` events (clamped to the hand)."""
        self.slider.value = max(0, min(self.slider.max, whole("index", index)))

    def _draw(self) -> None:
        i = self.slider.value
        self.prev.disabled = i <= 0
        self.next.disabled = i >= self.slider.max
        self.out.value = hand_html(self.snapshots[i], lang=self.lang, size=self.size,
                                   total=len(self.events))

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
