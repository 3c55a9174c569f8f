"""The hand builder and fan view: ipywidgets wired to a state and a pure view.

Click a tile of the palette to add it (or, in a meld mode, the meld that
starts with it); click a tile of the hand to take it out; choose the winning
tile, the situation, the rule set and the 连拉 level.  Every change goes
through :class:`~mjkit.widgets.state.BuilderState` (which refuses a fifth
copy or a fifteenth tile with a message) and the fan view is redrawn from
:func:`~mjkit.widgets.view.fan_view`.  The widget holds no mahjong logic of
its own.

The palette and the hand are tile pictures (a tile keyboard: see
:mod:`~mjkit.widgets.layout`), each with a badge of the copies left, scaled by
the tile-size control.  Every label, choice, tooltip and message comes from
:mod:`mjkit.messages` in the builder's language; the language control relabels
them all.

With 13 tiles, or 14 that are not a legal win, the view also shows the win
chances of :func:`mjkit.advise` for the draws left (a control): the redraw
shows "computing…" at once and a :class:`~mjkit.widgets.chances.ChanceWorker`
computes them on a background thread, then draws them, unless the hand has
changed meanwhile (an answer is drawn only while its key is the builder's
current one).  Answers are cached, so going back to a hand shows its chances
at once.  The worker's work is bounded per builder (one student): a request is
computed only after it has been the newest for a moment (changing the draws
again and again costs one computation, for the value it stops at), and within a
CPU budget (a quarter of a core in the long run); see
:mod:`~mjkit.widgets.chances`.

A redraw changes what changed and makes no widget it does not keep: the hand's
tile buttons are made again only when the hand (or the language) changes, and
the ones replaced are closed, and the tile-size control resizes the tiles'
layouts in place.  (Every redraw used to make new buttons, and every resize new
layouts, and keep the old ones: ~40 widgets and ~120 kB per click of the draws
box, for good.)
"""

from __future__ import annotations

import html
import threading
import time

import ipywidgets as W

from .. import messages as M
from ..errors import HandError
from ..pictures import tile_label
from ..rules.ruleset import DEALER_ONLY
from ..tiles import TILE_NAMES_EN, TILE_NAMES_ZH, tile_to_str
from .chances import DEFAULT_DRAWS, MAX_DRAWS, MIN_DRAWS, ChanceWorker, chance_request
from .layout import (DEFAULT_TILE_SIZE, check_tile_size, set_class, style_widget,
                     tile_button_layout, tile_class, tile_css, tile_size_slider)
from .state import MELD_MODES, SITUATION_FLAGS, BuilderState
from .view import fan_view

__all__ = ["HandBuilder"]

_RULE_SETS = ("dazhong32", "dazhong", "gb")


def _tile_name(kind, lang):
    """A tile's name for a tooltip: ``五万``, or ``5 Character (5m)``."""
    return TILE_NAMES_ZH[kind] if lang == "zh" else f"{TILE_NAMES_EN[kind]} ({tile_to_str(kind)})"


def _t(key, lang, **fields):
    """The builder's label ``key`` (messages entry ``builder.<key>``) in ``lang``."""
    if fields:
        return M.text("builder." + key, lang, **fields)
    return M.value("builder." + key, lang)


def _close(widgets):
    """Close buttons no longer shown, with their layouts and styles (each their own)."""
    for w in widgets:
        for part in (getattr(w, "layout", None), getattr(w, "style", None), w):
            if part is not None:
                part.close()


class HandBuilder:
    """Build a hand by clicking tiles and watch its fans appear.

    Parameters
    ----------
    rules : str
        ``"dazhong32"`` (default), ``"dazhong"`` or ``"gb"``.
    lianla : int
        Starting 连N拉N level.
    lang : str
        ``"zh"`` or ``"en"``: every label, choice, tooltip and message (a control).
    hand : str, optional
        A hand in notation to start from.
    draws : int
        Draws left for the win chances, 1..30 (default 12; a control).
    chances : bool or ChanceWorker
        Show the win chances of 13 tiles, or of 14 that are not a legal win (default
        True: a worker of the builder's own, with the process's shared cache); a
        :class:`~mjkit.widgets.chances.ChanceWorker` to use that one; False: none.
        Shown only when the rule set's value index is built (as the distance is).
    tile_size : int
        The tiles' height in pixels, 28..120, of the palette, the hand and the fan
        view (default 56; a control).

    Attributes
    ----------
    state : BuilderState
    view : FanView
        What the fan view shows now (its chances too, once computed).
    chances : ChanceWorker or None
    draws : ipywidgets.BoundedIntText
    tile_size : ipywidgets.IntSlider
    widget : ipywidgets.VBox
        The whole builder (displayed by the notebook).
    palette : list of ipywidgets.Button
        One button per tile kind (index = kind), showing the tile's picture; its
        (hidden) text is the tile's label and the copies left, e.g. ``1万·4``, its
        tooltip the tile's name in the builder's language.
    last_update_ms : float
        How long the last redraw took (a click to "computing…").
    last_chances_ms : float
        From the last redraw that asked for chances to their drawing (None until some are
        drawn; a cached answer is drawn by the redraw itself).
    """

    def __init__(self, rules="dazhong32", lianla=0, lang="zh", hand=None, draws=DEFAULT_DRAWS,
                 chances=True, tile_size=DEFAULT_TILE_SIZE):
        self.state = BuilderState(rules=rules, lang=lang).with_options(lianla=lianla)
        size = check_tile_size(tile_size)
        if isinstance(chances, ChanceWorker):
            self.chances = chances
        elif chances is True:
            self.chances = ChanceWorker()
        elif chances is False or chances is None:
            self.chances = None
        else:
            raise HandError(f"chances must be True, False or a ChanceWorker, got {chances!r}")
        # the worker thread draws answers: one lock keeps a redraw and a drawing apart
        self._lock = threading.RLock()
        self._chance_key = None
        self._chance_since = 0.0
        self.last_chances_ms = None
        self._labelled = None               # the language the controls are labelled in
        self.style = style_widget("")
        self.message = W.HTML()
        self.out = W.HTML()
        self.out.add_class("mjkit-fan-view")
        self.palette = [self._palette_button(k, size) for k in range(34)]
        wrap = W.Layout(flex_flow="row wrap", align_items="center")
        rows = [W.HBox(self.palette[9 * s:9 * s + 9], layout=wrap) for s in range(3)]
        rows.append(W.HBox(self.palette[27:], layout=wrap))
        auto = {"description_width": "initial"}
        self.mode = W.ToggleButtons(value=None, style={"button_width": "auto", **auto})
        self.hand_row = W.HBox(layout=wrap)
        self.melds_row = W.HBox(layout=wrap)
        self.win = W.Dropdown(options=[], style=auto, layout=W.Layout(width="auto"))
        self.rules = W.Dropdown(style=auto, layout=W.Layout(width="auto"))
        self.lianla = W.IntSlider(min=0, max=8, value=lianla, style=auto)
        self.self_drawn = W.Checkbox(value=True, style=auto)
        self.seat = W.Dropdown(value=None, style=auto, layout=W.Layout(width="auto"))
        self.round = W.Dropdown(value=None, style=auto, layout=W.Layout(width="auto"))
        self.flowers = W.IntSlider(min=0, max=8, value=0, style=auto)
        self.wild = W.Dropdown(value=None, style=auto, layout=W.Layout(width="auto"))
        self.flags = W.SelectMultiple(rows=4, style=auto)
        self.lang = W.ToggleButtons(style={"button_width": "auto"})
        self.draws = W.BoundedIntText(min=MIN_DRAWS, max=MAX_DRAWS, value=draws, style=auto,
                                      layout=W.Layout(width="auto"),
                                      disabled=self.chances is None)
        self.clear_button = W.Button(icon="trash")
        self.tile_size = tile_size_slider(self.state.lang, size)
        self._label_controls(self.state.lang)
        self.mode.value = "tile"
        self.rules.value = rules
        self.draws.observe(lambda _: self._refresh(), names="value")
        self.tile_size.observe(lambda _: self._resize(), names="value")
        self.clear_button.on_click(lambda _: self._apply(self.state.clear()))
        for ctl, name in ((self.rules, "rules"), (self.lianla, "lianla"),
                          (self.self_drawn, "self_drawn"), (self.seat, "seat"),
                          (self.round, "round"), (self.flowers, "flowers"), (self.wild, "wild"),
                          (self.flags, "flags"), (self.lang, "lang")):
            ctl.observe(self._option_changed(name), names="value")
        self.win.observe(self._win_changed, names="value")
        controls = W.VBox([
            W.HBox([self.rules, self.lianla, self.lang], layout=wrap),
            W.HBox([self.self_drawn, self.seat, self.round, self.wild], layout=wrap),
            W.HBox([self.flowers, self.flags], layout=wrap),
            W.HBox([self.draws, self.tile_size], layout=wrap),
        ])
        self.widget = W.VBox([self.out, self.message,
                              W.HBox([self.hand_row, self.win], layout=wrap),
                              self.melds_row, self.mode, *rows, W.HBox([self.clear_button]),
                              controls, self.style], layout=W.Layout(width="100%"))
        self.widget.add_class("mjkit-builder")
        self.last_update_ms = 0.0
        self.view = None
        self._hand_shown = self._melds_shown = None     # what the rows' buttons show
        if hand:
            self.load(hand)
        self._refresh()

    # -- the widget's parts ----------------------------------------------------

    def _label_controls(self, lang):
        """Every control's label and choices in ``lang`` (values kept: the caller syncs
        them to the state)."""
        self._labelled = lang
        self.style.value = f"<style>{tile_css(lang)}</style>"
        mode = self.mode.value
        modes = _t("modes", lang)
        self.mode.options = [(modes[m], m) for m in MELD_MODES]
        self.mode.value = mode
        self.mode.description = _t("mode", lang)
        self.win.description = _t("win", lang)
        names = _t("rule_sets", lang)
        self.rules.options = [(names[r], r) for r in _RULE_SETS]
        self.rules.description = _t("rules", lang)
        self.lianla.description = _t("lianla", lang)
        self.self_drawn.description = _t("self_drawn", lang)
        winds = list(enumerate(_t("winds", lang)))
        for ctl, key in ((self.seat, "seat"), (self.round, "round")):
            ctl.options = [(name, w) for w, name in winds]
            ctl.description = _t(key, lang)
        self.flowers.description = _t("flowers", lang)
        self.wild.options = [(_t("no_wild", lang), None)] + [(tile_label(k, lang), k)
                                                             for k in range(34)]
        self.wild.description = _t("wild", lang)
        flags = _t("flag_names", lang)
        self.flags.options = [(flags[f], f) for f in SITUATION_FLAGS]
        self.flags.description = _t("flags", lang)
        self.lang.options = [(_t("lang_zh", lang), "zh"), (_t("lang_en", lang), "en")]
        self.draws.description = _t("draws", lang)
        self.clear_button.description = _t("clear", lang)
        self.tile_size.description = M.text("widgets.tile_size", lang)

    def _palette_button(self, kind, size):
        b = W.Button(layout=tile_button_layout(size))
        for c in ("mjkit-palette", "mjkit-tile"):    # for page styles and the browser test
            b.add_class(c)
        b.on_click(lambda _, k=kind: self.click_palette(k))
        return b

    def _hand_button(self, index, kind):
        lang = self.state.lang
        b = W.Button(description=tile_label(kind, lang),
                     tooltip=_t("hand_tip", lang, tile=_tile_name(kind, lang)),
                     layout=tile_button_layout(self.tile_size.value),
                     button_style="info" if index == self._win_index() else "")
        for c in ("mjkit-hand-tile", "mjkit-tile", tile_class(kind, lang)):
            b.add_class(c)
        b.on_click(lambda _, i=index: self.click_hand(i))
        return b

    def _meld_button(self, index):
        b = W.Button(description=self._meld_label(index),
                     tooltip=_t("meld_tip", self.state.lang), layout=W.Layout(width="auto"))
        b.on_click(lambda _, i=index: self._apply(self.state.remove_meld(i)))
        return b

    def _meld_label(self, index):
        return str(self.state.meld_list()[index])

    def _win_index(self):
        if not self.state.tiles:
            return None
        return len(self.state.tiles) - 1 if self.state.win is None else self.state.win

    def _resize(self):
        """Every tile at the tile-size control's height (the palette, the hand, the view):
        their layouts changed in place (new ones would be new widgets each time)."""
        with self._lock:
            size = tile_button_layout(self.tile_size.value)
            for b in self.palette + list(self.hand_row.children):
                b.layout.width, b.layout.height = size.width, size.height
            size.close()
            if self.view is not None:
                self.out.value = self.view.to_html(self.tile_size.value)

    # -- actions (also what the tests call) ------------------------------------

    def click_palette(self, kind):
        """What a click on palette tile ``kind`` does (add it, or add the meld)."""
        if self.mode.value == "tile":
            self._apply(lambda: self.state.add(kind))
        else:
            self._apply(lambda: self.state.add_meld(self.mode.value, kind))

    def click_hand(self, index):
        """Take the concealed tile at ``index`` out."""
        self._apply(lambda: self.state.remove(index))

    def load(self, text):
        """Start from a hand in notation (tiles, melds and situation)."""
        from ..hand import parse_hand

        self._apply(lambda: self._state_of(parse_hand(text)))

    def _state_of(self, h):
        state = self.state.clear()
        for m in h.melds:
            state = state.add_meld("concealed kong" if m.concealed else m.kind, m.tile)
        concealed = list(h.concealed)
        concealed.remove(h.win_tile)
        for t in concealed + [h.win_tile]:
            state = state.add(t)
        return state.with_options(self_drawn=h.self_drawn, seat=h.seat_wind,
                                  round=h.round_wind, flowers=h.flowers)

    def _apply(self, change):
        """Apply a new state (or a function returning one); a refused change leaves the
        state as it was and says why."""
        try:
            new = change() if callable(change) else change
        except HandError as exc:
            self._say(self._refusal_text(exc))
            return False
        self.message.value = ""
        self.state = new
        self._refresh()
        return True

    def _refusal_text(self, exc):
        """Why a change was refused, in the builder's language: the state's own refusals
        carry both (``exc.texts``); another error's English follows a line of ours."""
        lang = self.state.lang
        texts = getattr(exc, "texts", None)
        return texts[lang] if texts else _t("refused", lang, why=exc)

    def _say(self, text):
        self.message.value = f"<span style='color:#b00'>{html.escape(text)}</span>"

    def _option_changed(self, name):
        def handler(change):
            if self._syncing:
                return
            value = change["new"]
            if name == "flags":
                value = frozenset(value)
            changes = {name: value}
            reset = name == "seat" and value != 0 and self.state.lianla > 0
            if reset:
                # only the dealer (East) has a 连拉 level: moving away drops it
                changes["lianla"] = 0
            if not self._apply(lambda: self.state.with_options(**changes)):
                self._sync_controls()
            elif reset:
                self._say(_t("lianla_reset", self.state.lang, why=DEALER_ONLY))
        return handler

    def _win_changed(self, change):
        if change["new"] is None or self._syncing:
            return
        self._apply(lambda: self.state.with_win(change["new"]))

    _syncing = False

    def _sync_controls(self):
        """Controls show the state (after a refused change or a load)."""
        s = self.state
        self._syncing = True
        try:
            if self._labelled != s.lang:
                self._label_controls(s.lang)
            for ctl, value in ((self.rules, s.rules), (self.lianla, s.lianla),
                               (self.self_drawn, s.self_drawn), (self.seat, s.seat),
                               (self.round, s.round), (self.flowers, s.flowers),
                               (self.wild, s.wild), (self.lang, s.lang)):
                if ctl.value != value:
                    ctl.value = value
            if s.wild is None and self.wild.index is None:
                self.wild.index = 0         # "none" shown (a value of None selects nothing)
            if set(self.flags.value) != s.flags:
                self.flags.value = tuple(f for f in SITUATION_FLAGS if f in s.flags)
            # 连拉 is the dealer's alone: not offered for another seat
            self.lianla.disabled = s.rules != "dazhong32" or s.seat != 0
            opts = [(f"{i + 1}: {tile_label(t, s.lang)}", i) for i, t in enumerate(s.tiles)]
            self.win.options = opts
            self.win.value = self._win_index()
        finally:
            self._syncing = False

    def _refresh(self):
        t = time.perf_counter()
        with self._lock:
            s = self.state
            self._sync_controls()           # first: a new language relabels the controls
            for k, b in enumerate(self.palette):
                left = s.copies_left(k)
                b.description = f"{tile_label(k, s.lang)}·{left}"      # copies left
                b.disabled = left == 0 or (s.size >= 14 and self.mode.value == "tile")
                b.tooltip = _t("palette_tip", s.lang, tile=_tile_name(k, s.lang), n=left)
                set_class(b, "mjkit-tile-", tile_class(k, s.lang))
                set_class(b, "mjkit-left-", f"mjkit-left-{left}")     # the badge
            hand = (tuple(s.tiles), self._win_index(), s.lang)
            if hand != self._hand_shown:        # the same hand: its buttons are kept
                old = self.hand_row.children
                self.hand_row.children = [self._hand_button(i, k)
                                          for i, k in enumerate(s.tiles)]
                _close(old)
                self._hand_shown = hand
            melds = (tuple(s.melds), s.lang)
            if melds != self._melds_shown:
                old = self.melds_row.children
                self.melds_row.children = [self._meld_button(i) for i in range(len(s.melds))]
                _close(old)
                self._melds_shown = melds
            self.view = self._ask_chances(fan_view(s), t)
            self.out.value = self.view.to_html(self.tile_size.value)
            self.last_update_ms = 1000 * (time.perf_counter() - t)

    def _ask_chances(self, view, since):
        """``view`` with its chances: cached, or "computing…" and a request to the worker."""
        worker = self.chances
        if worker is None or not view.wants_chances or not self._index_built():
            self._chance_key = None
            if worker is not None:
                worker.cancel()
                if view.wants_chances:      # the advisor needs the index: never built here
                    note = M.text("view.no_index", self.state.lang)
                    if note not in view.notes:
                        view.notes.append(note)
            return view
        request = chance_request(self.state, self.draws.value)
        answer = worker.lookup(request)
        self._chance_key = request.key
        if answer is None:
            self._chance_since = since
            worker.submit(request, self._chances_done)
        else:
            worker.cancel()                 # an older hand's pending request is not wanted
        return view.with_chances(answer, request.draws)

    def _index_built(self):
        from ..value_index import index_available

        return index_available(self.state.rules)

    def _chances_done(self, request, answer):
        """The worker's answer: drawn if it is still for the hand shown (any thread)."""
        with self._lock:
            if request.key != self._chance_key:
                return
            self.view = self.view.with_chances(answer, request.draws)
            self.out.value = self.view.to_html(self.tile_size.value)
            self.last_chances_ms = 1000 * (time.perf_counter() - self._chance_since)

    def wait_chances(self, timeout=None):
        """Block until the chances asked for are drawn (or not wanted); False on timeout."""
        return True if self.chances is None else self.chances.wait(timeout)

    def close(self):
        """Stop the background worker (the builder keeps working, without chances)."""
        if self.chances is not None:
            self.chances.close()
            self.chances = None
            self.draws.disabled = True

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
