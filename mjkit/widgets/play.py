"""The practice table: a learner plays a session against three built-in players, with a
coach during play and a review after each hand.

The game is a :class:`mjkit.table.Session` (hand after hand, 连拉 carried, points per seed
001 D, a P胡 sits its player out), the learner is its player 0 ("you"), the others are
built-in players deciding inside the kernel.  The widget only wires controls to it:

* the table (:func:`mjkit.table.view.hand_html`: every seat's melds, discards in order,
  flowers, the turned 财神, the wall, the level; the others' tiles face down until the
  hand ends), the session's scores and each seat's bar (:func:`status_html`);
* the learner's concealed tiles as tile-picture buttons: a click discards the tile (or, at
  起手换牌, picks it for the exchange); the claims, kongs, pass and the declaration of a
  win are buttons (:func:`mjkit.table.actions.action_text`);
* the coach (:func:`mjkit.review.coach`, the advisor's fast mode at once): ``p_win``
  under each tile, the best choice and the engine's, on a claim each meld's ``p_win``
  against passing, at a complete hand whether declaring is legal at the bar
  (:func:`coach_html`); the deep mode on request, computed on a background thread with
  "computing…" (the page never waits for it);
* the exam mode, as seed 000's players play: no coach and no hint at the win button —
  the learner declares on their own count, and a P胡 is a P胡, with the session's penalty;
* after each hand its review (:func:`mjkit.review.review`): every decision of the
  learner against the engine, the costliest first.

Every string comes from the zh/en catalogue (:mod:`mjkit.messages`).  The methods the
buttons call (:meth:`PlayTable.click_tile`, :meth:`PlayTable.act`,
:meth:`PlayTable.next_hand`) are what the tests drive.  ipywidgets has no keyboard events
of its own: the buttons are reached with Tab and pressed with Enter or Space, as any
button of the page.
"""

from __future__ import annotations

import html
import threading
import time

import ipywidgets as W

from .. import messages as M
from ..errors import HandError
from ..pictures import tile_label
from ..table.actions import action_text
from ..tiles import tile_to_str
from ..validate import boolean, lang as check_lang
from .layout import (DEFAULT_TILE_SIZE, check_tile_size, style_widget, tile_button_layout,
                     tile_class, tile_css, tile_size_slider)

__all__ = ["PlayTable", "coach_html", "status_html"]

#: The learner is the session's player 0.
LEARNER = 0
#: Longest pause between two built-in players' moves (seconds).
MAX_PACE = 2.0


def _t(key, lang, **fields):
    return M.text("play." + key, lang, **fields)


def _percent(p):
    from ..advise import percent
    return "—" if p is None else percent(p)


def status_html(session, lang):
    """The session's table by position: who sits there, their bar (the dealer's 连拉 line
    taken off) and their points so far."""
    e = html.escape
    t = session.table
    winds = M.value("builder.winds", lang)
    bars = t.observe(0).bars
    players = (session.hands[-1].players if t.done and session.hands else
               tuple(session.state.player_at(p) for p in range(4)))
    rows = []
    for position in range(4):
        name = t.players[position]
        who = _t("you", lang) if name == "you" else name
        score = session.scores[players[position]]
        rows.append(f"<tr data-position='{position}'><td>{e(winds[position])} · {e(who)}</td>"
                    f"<td style='text-align:right'>{bars[position]}</td>"
                    f"<td style='text-align:right'>{score:+d}</td></tr>")
    head = "".join(f"<th>{e(h)}</th>" for h in M.value("play.status_head", lang))
    return (f"<table class='mjkit-play-status' style='font-size:13px'><tr>{head}</tr>"
            f"{''.join(rows)}</table>")


def coach_html(rating, lang, exam=False):
    """The coach's panel of a rating (:func:`mjkit.review.coach`): the best choice and the
    engine's, every option's ``p_win``, and at a complete hand the win check."""
    if exam or rating is None:
        return ""
    e = html.escape
    parts = []
    if rating.win is not None:
        colour = "#1b6e2a" if rating.win.legal else "#b00020"
        parts.append(f"<div style='color:{colour};font-weight:bold'>"
                     f"{e(rating.win.text(lang))}</div>")
    best = rating.best
    if best is not None:
        words = _t("best", lang, action=action_text(best.action, lang), p=_percent(best.p_win))
        parts.append(f"<div>{e(words)} — {e(best.keeps(lang))}</div>")
    parts.append(f"<div>{e(_t('engine', lang, action=action_text(rating.engine, lang)))}</div>")
    if rating.asking in ("claim", "rob"):
        opts = " · ".join(_t("option", lang, action=action_text(o.action, lang),
                             p=_percent(o.p_win)) for o in rating.options)
        parts.append(f"<div>{e(opts)}</div>")
    return (f"<div class='mjkit-coach' data-mode='{rating.mode}' "
            f"style='border-left:3px solid #1f5fa8;padding-left:6px;margin:4px 0'>"
            f"{''.join(parts)}</div>")


class PlayTable:
    """Play a session of 大众32番连拉 (or 大众 / 国标) against three built-in players.

    Parameters
    ----------
    rules : str
        ``"dazhong32"`` (default), ``"dazhong"`` or ``"gb"``.
    seed : int
        The session's seed: it fixes every wall (the same seed, the same deals).
    level : int
        The first dealer's 连拉 level (the learner deals the first hand).
    hands : int
        Hands in the session.
    opponents : three built-in policy names
        Default ``("strong", "strong_break", "strong_break")``.
    coach : bool
        Show the coach (default True; a control).
    exam : bool
        Exam mode: no coach, no hint at the win button (a control).
    wild, exchange
        As :class:`mjkit.table.Table` (default the rule set's table).
    lang : {"zh", "en"}
    tile_size : int
        The learner's tiles in pixels, 28..120 (a control); the table's are drawn smaller.
    pace : float
        Seconds between two built-in players' moves as they are shown (0: at once).

    Attributes
    ----------
    session : mjkit.table.Session
    rating : mjkit.review.Rating or None
        The coach's rating of the decision the learner faces now (None in exam mode).
    action_buttons : list of (Action, ipywidgets.Button)
        The buttons of the actions open now besides a discard (win, pass, claims, kongs).
    reviews : list of mjkit.review.Review
        The review of each finished hand the learner played.
    widget : ipywidgets.VBox
    """

    def __init__(self, rules="dazhong32", *, seed=0, level=0, hands=4,
                 opponents=("strong", "strong_break", "strong_break"), coach=True, exam=False,
                 wild=..., exchange=None, lang="zh", tile_size=DEFAULT_TILE_SIZE, pace=0.0):
        from ..table import Session
        from ..validate import number
        self.lang = check_lang(lang)
        size = check_tile_size(tile_size)
        self.pace = number("pace", pace, 0.0, MAX_PACE)
        if isinstance(opponents, str) or len(opponents) != 3:
            raise HandError("opponents must be three built-in policy names")
        kw = {} if wild is ... else {"wild": wild}
        self.session = Session(rules, seed=seed, players=("you",) + tuple(opponents),
                               hands=hands, level=level, exchange=exchange, **kw)
        self.reviews = []
        self.rating = None
        self._picked = []                  # tiles picked for the exchange
        self._lock = threading.RLock()
        self._deep_key = None
        self._rated = None                 # the decision self.rating is of
        lang = self.lang
        self.style = style_widget(tile_css(lang))
        self.status = W.HTML()
        self.board = W.HTML()
        self.board.add_class("mjkit-play-board")
        self.prompt = W.HTML()
        self.message = W.HTML()
        self.hand_row = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self.chance_row = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self.actions = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self.coach_out = W.HTML()
        self.review_out = W.HTML()
        self.coach = W.Checkbox(value=boolean(coach, "coach"), description=_t("coach", lang),
                                indent=False)
        self.exam = W.Checkbox(value=boolean(exam, "exam"), description=_t("exam", lang),
                               indent=False)
        self.deep = W.Button(description=_t("deep", lang))
        self.next_button = W.Button(description=_t("next", lang), button_style="primary")
        self.tile_size = tile_size_slider(lang, size)
        self.coach.observe(lambda _: self._redraw(), names="value")
        self.exam.observe(lambda _: self._redraw(), names="value")
        self.tile_size.observe(lambda _: self._redraw(), names="value")
        self.deep.on_click(lambda _: self.deep_coach())
        self.next_button.on_click(lambda _: self.next_hand())
        self.widget = W.VBox([
            self.style, self.status, self.board, self.prompt, self.hand_row, self.chance_row,
            self.actions, self.message, self.coach_out,
            W.HBox([self.coach, self.exam, self.deep, self.next_button]), self.tile_size,
            self.review_out], layout=W.Layout(width="100%"))
        self.widget.add_class("mjkit-play")
        self._shown = 0                    # events of the current hand drawn so far
        self._redraw()

    # -- what the learner sees -----------------------------------------------

    @property
    def table(self):
        return self.session.table

    def _seat(self):
        """The learner's position at the current table, or None (sitting out)."""
        players = self.table.players
        return players.index("you") if "you" in players else None

    def _asked(self):
        """The learner's position when the learner must decide now, else None."""
        t = self.table
        seat = self._seat()
        if seat is None or t.done or t.to_act != seat:
            return None
        return seat

    @property
    def exam_mode(self):
        return bool(self.exam.value)

    def _coaching(self):
        return self.coach.value and not self.exam_mode

    def _redraw(self, snapshot=None):
        """Draw everything from the session (``snapshot``: a moment of the built-in players'
        moves, while they are shown at the chosen pace)."""
        from ..table.view import hand_html
        with self._lock:
            lang = self.lang
            t = self.table
            seat = self._seat()
            others = [p for p in range(4) if p != seat]
            snap = snapshot if snapshot is not None else t.snapshot()
            self.status.value = status_html(self.session, lang)
            self.board.value = hand_html(snap, lang=lang,
                                         size=max(12, round(self.tile_size.value * 0.6)),
                                         hidden=others, omitted=() if seat is None else (seat,))
            asked = self._asked() if snapshot is None else None
            key = (id(t), len(t.events))
            if asked is None or not self._coaching():
                self.rating, self._rated = None, None
            elif self._rated != key:        # rated once per decision (a redraw keeps it)
                from ..review import coach
                self.rating = coach(t.observe(asked), t.legal_actions(asked))
                self._rated = key
            self._draw_hand(asked)
            self._draw_actions(asked)
            self._draw_prompt(asked)
            self.coach_out.value = coach_html(self.rating, lang, self.exam_mode)
            self.deep.disabled = self.rating is None
            self.next_button.disabled = not (t.done and not self.session.done)

    def _draw_hand(self, asked):
        lang = self.lang
        t = self.table
        seat = self._seat()
        old = list(self.hand_row.children) + list(self.chance_row.children)
        if seat is None:
            self.hand_row.children, self.chance_row.children = (), ()
        else:
            obs = t.observe(seat)
            tiles = list(obs.hand)
            if obs.drawn is not None and asked is not None:
                tiles.remove(obs.drawn)
                tiles.append(obs.drawn)          # the tile just drawn last, as at a table
            size = self.tile_size.value
            layout = tile_button_layout(size)
            buttons, chances = [], []
            for i, k in enumerate(tiles):
                b = W.Button(description=tile_label(k, lang),
                             layout=W.Layout(width=layout.width, height=layout.height,
                                             padding="0", margin="1px"),
                             disabled=asked is None or t.asking == "claim" or t.asking == "rob")
                for c in ("mjkit-tile", "mjkit-play-tile", tile_class(k, lang)):
                    b.add_class(c)
                if t.asking == "exchange" and i in self._picked:
                    b.button_style = "info"
                b.on_click(lambda _, i=i, k=k: self.click_tile(k, i))
                buttons.append(b)
                p = None
                if self.rating is not None and t.asking in ("turn", "discard"):
                    o = self.rating.option(f"discard {tile_to_str(k)}")
                    p = None if o is None else o.p_win
                chances.append(W.HTML(
                    value=("" if p is None else f"<div style='font-size:11px;text-align:center'"
                           f">{html.escape(_percent(p))}</div>"),
                    layout=W.Layout(width=layout.width, margin="1px")))
            layout.close()
            self.hand_row.children = buttons
            self.chance_row.children = chances
        for w in old:
            w.close()

    def _draw_actions(self, asked):
        lang = self.lang
        t = self.table
        old = list(self.actions.children)
        buttons = []
        self.action_buttons = []
        if asked is not None:
            if t.asking == "exchange":
                b = W.Button(description=_t("exchange", lang, n=len(self._picked)),
                             button_style="primary")
                b.on_click(lambda _: self.exchange())
                buttons.append(b)
            else:
                for a in t.legal_actions(asked):
                    if a.kind in ("discard", "exchange"):
                        continue
                    b = W.Button(description=action_text(a, lang),
                                 button_style="danger" if a.kind == "win" else "")
                    if self.rating is not None and a.kind == "win" and self.rating.win:
                        b.tooltip = self.rating.win.text(lang)
                    b.on_click(lambda _, a=a: self.act(a))
                    buttons.append(b)
                    self.action_buttons.append((a, b))
        self.actions.children = buttons
        for w in old:
            w.close()

    def _draw_prompt(self, asked):
        lang = self.lang
        t = self.table
        e = html.escape
        away = _t("sitting_out", lang) + " · " if self._seat() is None else ""
        if self.session.done and t.done:
            text = away + _t("session_over", lang, n=len(self.session.hands))
        elif t.done:
            text = away + _t("hand_over", lang)
        elif asked is None:
            text = ""
        elif t.asking == "exchange":
            text = _t("exchange_help", lang)
        elif t.asking in ("claim", "rob"):
            obs = t.observe(asked)
            text = _t(t.asking, lang, seat=M.value("builder.winds", lang)[obs.from_seat],
                      tile=tile_label(obs.tile, lang))
        else:
            text = _t(t.asking, lang)
        bar = ""
        if self._seat() is not None and not t.done:
            obs = t.observe(self._seat())
            bar = " · " + _t("bar", lang, bar=obs.bars[obs.seat])
        self.prompt.value = f"<b>{e(text)}</b>{e(bar)}"

    # -- what the learner does (the buttons call these; so do the tests) -------

    def click_tile(self, kind, index=None):
        """A click on one of the learner's tiles: discard it, or at 起手换牌 pick it (again:
        unpick)."""
        t = self.table
        asked = self._asked()
        if asked is None:
            return self._refuse(HandError("it is not your decision now"))
        if t.asking == "exchange":
            if index is None:
                index = t.observe(asked).hand.index(kind)
            if index in self._picked:
                self._picked.remove(index)
            elif len(self._picked) < 3:
                self._picked.append(index)
            self._redraw()
            return None
        from ..table.actions import Action
        return self.act(Action("discard", kind))

    def exchange(self):
        """Exchange the tiles picked (none: keep the hand)."""
        from ..table.actions import Action
        asked = self._asked()
        if asked is None:
            return self._refuse(HandError("it is not your decision now"))
        hand = self.table.observe(asked).hand
        tiles = tuple(hand[i] for i in self._picked)
        return self.act(Action("exchange", tiles=tiles))

    def act(self, action):
        """Play ``action`` (an Action or its text) for the learner, then the built-in
        players up to the learner's next decision; at the end of a hand, its review."""
        with self._lock:
            t = self.table
            if self._asked() is None:
                return self._refuse(HandError("it is not your decision now"))
            before = len(t.events)
            try:
                self.session.step(action)
            except HandError as exc:
                return self._refuse(exc)
            self._picked = []
            self.message.value = ""
            self._show_moves(before)
            if t.done:
                self._review(t)
            self._redraw()
            return t.outcome

    def next_hand(self):
        """Deal the next hand of the session (after the current one has ended)."""
        with self._lock:
            try:
                t = self.session.next_hand()
            except HandError as exc:
                return self._refuse(exc)
            self._picked = []
            self.message.value = ""
            self._show_moves(1)
            if t.done and self._seat() is not None:
                self._review(t)
            self._redraw()
            return t

    def deep_coach(self):
        """The coach in the advisor's deep mode, computed on a background thread: the panel
        says "computing…" at once and shows the answer if the decision is still the same."""
        asked = self._asked()
        if asked is None or not self._coaching():
            return None
        t = self.table
        key = (id(t), len(t.events))
        self._deep_key = key
        self.coach_out.value = (coach_html(self.rating, self.lang) +
                                f"<div class='mjkit-computing'>"
                                f"{html.escape(_t('computing', self.lang))}</div>")
        obs, legal = t.observe(asked), t.legal_actions(asked)

        def work():
            from ..review import coach
            try:
                rating = coach(obs, legal, mode="deep")
            except HandError as exc:
                self._refuse(exc)
                return
            with self._lock:
                if self._deep_key == key and (id(self.table), len(self.table.events)) == key:
                    self.rating = rating
                    self.coach_out.value = coach_html(rating, self.lang, self.exam_mode)
        thread = threading.Thread(target=work, daemon=True, name="mjkit-deep-coach")
        thread.start()
        return thread

    def _show_moves(self, start):
        """Show the built-in players' moves since event ``start`` at the chosen pace."""
        if self.pace <= 0:
            return
        from ..table.state import Fold
        t = self.table
        fold = Fold()
        snap = None
        for i, ev in enumerate(t.events):
            snap = fold.apply(ev)
            if i >= start and ev.get("e") in ("discard", "chow", "pung", "kong"):
                self._redraw(snapshot=snap)
                time.sleep(self.pace)

    def _review(self, table):
        from ..review import review
        self.review_out.value = f"<i>{html.escape(_t('computing', self.lang))}</i>"
        rv = review(table, progress=False)
        self.reviews.append(rv)
        self.review_out.value = rv.to_html(self.lang)

    def _refuse(self, exc):
        self.message.value = (f"<span style='color:#b00'>"
                              f"{html.escape(_t('refused', self.lang, why=exc))}</span>")
        return None

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)
