"""The hand builder and fan view: ipywidgets wired to a state and a pure view.

Click a tile of the palette to add it (or, in a meld mode, the meld that
starts with it); click a tile of the hand to take it out; choose the winning
tile, the situation, the rule set and the 连拉 level.  Every change goes
through :class:`~mjkit.widgets.state.BuilderState` (which refuses a fifth
copy or a fifteenth tile with a message) and the fan view is redrawn from
:func:`~mjkit.widgets.view.fan_view`.  The widget holds no mahjong logic of
its own.

With 13 tiles, or 14 that are not a legal win, the view also shows the win
chances of :func:`mjkit.advise` for the draws left (a control): the redraw
shows "computing…" at once and a :class:`~mjkit.widgets.chances.ChanceWorker`
computes them on a background thread, then draws them, unless the hand has
changed meanwhile (an answer is drawn only while its key is the builder's
current one).  Answers are cached, so going back to a hand shows its chances
at once.
"""

from __future__ import annotations

import threading
import time

import ipywidgets as W

from .. import messages as M
from ..errors import HandError
from ..pictures import tile_label
from .chances import DEFAULT_DRAWS, MAX_DRAWS, MIN_DRAWS, ChanceWorker, chance_request
from .state import MELD_MODES, SITUATION_FLAGS, BuilderState
from .view import fan_view

__all__ = ["HandBuilder"]

_WIND_OPTIONS = [("东 E", 0), ("南 S", 1), ("西 W", 2), ("北 N", 3)]
_FLAG_ZH = {"last_copy": "和绝张", "kong": "杠上开花/抢杠和", "last_wall": "妙手回春/海底捞月",
            "heavenly_hand": "天和", "earthly_hand": "地和", "human_hand": "人和",
            "heavenly_ready": "天听", "earthly_ready": "地听", "declared_ready": "报听",
            "double_ready": "双报听"}


def _tile_name(kind):
    """A tooltip: both languages' labels."""
    return f"{tile_label(kind, 'zh')} {tile_label(kind, 'en')}"


class HandBuilder:
    """Build a hand by clicking tiles and watch its fans appear.

    Parameters
    ----------
    rules : str
        ``"dazhong32"`` (default), ``"dazhong"`` or ``"gb"``.
    lianla : int
        Starting 连N拉N level.
    lang : str
        ``"zh"`` or ``"en"`` labels.
    hand : str, optional
        A hand in notation to start from.
    draws : int
        Draws left for the win chances, 1..30 (default 12; a control).
    chances : bool or ChanceWorker
        Show the win chances of 13 tiles, or of 14 that are not a legal win (default
        True: a worker of the builder's own, with the process's shared cache); a
        :class:`~mjkit.widgets.chances.ChanceWorker` to use that one; False: none.
        Shown only when the rule set's value index is built (as the distance is).

    Attributes
    ----------
    state : BuilderState
    view : FanView
        What the fan view shows now (its chances too, once computed).
    chances : ChanceWorker or None
    draws : ipywidgets.BoundedIntText
    widget : ipywidgets.VBox
        The whole builder (displayed by the notebook).
    palette : list of ipywidgets.Button
        One button per tile kind (index = kind).
    last_update_ms : float
        How long the last redraw took (a click to "computing…").
    last_chances_ms : float
        From the last redraw that asked for chances to their drawing (None until some are
        drawn; a cached answer is drawn by the redraw itself).
    """

    def __init__(self, rules="dazhong32", lianla=0, lang="zh", hand=None, draws=DEFAULT_DRAWS,
                 chances=True):
        self.state = BuilderState(rules=rules, lang=lang).with_options(lianla=lianla)
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
        self.message = W.HTML()
        self.out = W.HTML()
        self.out.add_class("mjkit-fan-view")
        self.palette = [self._palette_button(k) for k in range(34)]
        rows = [W.HBox(self.palette[9 * s:9 * s + 9]) for s in range(3)]
        rows.append(W.HBox(self.palette[27:]))
        self.mode = W.ToggleButtons(options=[(m, m) for m in MELD_MODES], value="tile",
                                    description="click adds", style={"button_width": "auto"})
        self.hand_row = W.HBox()
        self.melds_row = W.HBox()
        self.win = W.Dropdown(description="win tile", options=[], layout=W.Layout(width="220px"))
        self.rules = W.Dropdown(description="rules", options=["dazhong32", "dazhong", "gb"],
                                value=rules)
        self.lianla = W.IntSlider(description="连N拉N", min=0, max=8, value=lianla)
        self.self_drawn = W.Checkbox(description="self-drawn 自摸", value=True)
        self.seat = W.Dropdown(description="seat", options=_WIND_OPTIONS, value=0,
                               layout=W.Layout(width="160px"))
        self.round = W.Dropdown(description="round", options=_WIND_OPTIONS, value=0,
                                layout=W.Layout(width="160px"))
        self.flowers = W.IntSlider(description="flowers 花", min=0, max=8, value=0)
        self.wild = W.Dropdown(description="wild 财神",
                               options=[("none", None)] + [(_tile_name(k), k) for k in range(34)],
                               value=None, layout=W.Layout(width="220px"))
        self.flags = W.SelectMultiple(options=[(f"{_FLAG_ZH[f]} {f}", f) for f in SITUATION_FLAGS],
                                      description="situation", rows=4)
        self.lang = W.ToggleButtons(options=[("中文", "zh"), ("English", "en")], value=lang)
        self.draws = W.BoundedIntText(description="draws 摸牌", min=MIN_DRAWS, max=MAX_DRAWS,
                                      value=draws, layout=W.Layout(width="160px"),
                                      disabled=self.chances is None)
        self.draws.observe(lambda _: self._refresh(), names="value")
        self.clear_button = W.Button(description="clear", icon="trash")
        self.clear_button.on_click(lambda _: self._apply(self.state.clear()))
        for ctl, name in ((self.rules, "rules"), (self.lianla, "lianla"),
                          (self.self_drawn, "self_drawn"), (self.seat, "seat"),
                          (self.round, "round"), (self.flowers, "flowers"), (self.wild, "wild"),
                          (self.flags, "flags"), (self.lang, "lang")):
            ctl.observe(self._option_changed(name), names="value")
        self.win.observe(self._win_changed, names="value")
        controls = W.VBox([
            W.HBox([self.rules, self.lianla, self.lang]),
            W.HBox([self.self_drawn, self.seat, self.round, self.wild]),
            W.HBox([self.flowers, self.flags]),
            W.HBox([self.draws]),
        ])
        self.widget = W.VBox([self.out, self.message, W.HBox([self.hand_row, self.win]),
                              self.melds_row, self.mode, *rows, W.HBox([self.clear_button]),
                              controls])
        self.last_update_ms = 0.0
        self.view = None
        if hand:
            self.load(hand)
        self._refresh()

    # -- the widget's parts ----------------------------------------------------

    def _palette_button(self, kind):
        b = W.Button(description=tile_label(kind, "zh"), tooltip=_tile_name(kind),
                     layout=W.Layout(width="56px", height="40px", padding="0"))
        b.add_class("mjkit-palette")                # for the browser test and page styles
        b.on_click(lambda _, k=kind: self.click_palette(k))
        return b

    def _hand_button(self, index, kind):
        b = W.Button(description=tile_label(kind, self.state.lang),
                     tooltip=f"{_tile_name(kind)} (click to take out)",
                     layout=W.Layout(width="48px", height="40px", padding="0"),
                     button_style="info" if index == self._win_index() else "")
        b.add_class("mjkit-hand-tile")
        b.on_click(lambda _, i=index: self.click_hand(i))
        return b

    def _meld_button(self, index):
        b = W.Button(description=self._meld_label(index), tooltip="click to take the meld out",
                     layout=W.Layout(width="auto"))
        b.on_click(lambda _, i=index: self._apply(self.state.remove_meld(i)))
        return b

    def _meld_label(self, index):
        return str(self.state.meld_list()[index])

    def _win_index(self):
        if not self.state.tiles:
            return None
        return len(self.state.tiles) - 1 if self.state.win is None else self.state.win

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
            self.message.value = f"<span style='color:#b00'>{exc}</span>"
            return False
        self.message.value = ""
        self.state = new
        self._refresh()
        return True

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
                self.message.value = ("<span style='color:#b00'>连拉 reset to 0: only the "
                                      "dealer (East seat) has a 连拉 level</span>")
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
            for ctl, value in ((self.rules, s.rules), (self.lianla, s.lianla),
                               (self.self_drawn, s.self_drawn), (self.seat, s.seat),
                               (self.round, s.round), (self.flowers, s.flowers),
                               (self.wild, s.wild), (self.lang, s.lang)):
                if ctl.value != value:
                    ctl.value = value
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
            for k, b in enumerate(self.palette):
                left = s.copies_left(k)
                b.description = f"{tile_label(k, s.lang)}·{left}"      # copies left
                b.disabled = left == 0 or (s.size >= 14 and self.mode.value == "tile")
                b.tooltip = f"{_tile_name(k)}: {left} left"
            self.hand_row.children = [self._hand_button(i, k) for i, k in enumerate(s.tiles)]
            self.melds_row.children = [self._meld_button(i) for i in range(len(s.melds))]
            self._sync_controls()
            self.view = self._ask_chances(fan_view(s), t)
            self.out.value = self.view.to_html()
            self.last_update_ms = 1000 * (time.perf_counter() - t)

    def _ask_chances(self, view, since):
        """``view`` with its chances: cached, or "computing…" and a request to the worker."""
        worker = self.chances
        if worker is None or not view.wants_chances or not self._index_built():
            self._chance_key = None
            if worker is not None:
                worker.cancel()
                if view.wants_chances:      # the advisor needs the index: never built here
                    note = M.text("view.no_index", M.lang_or_en(self.state.lang))
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
            self.out.value = self.view.to_html()
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
