"""What the fan view shows for a hand being built: a pure function of its state.

:func:`fan_view` reads a :class:`~mjkit.widgets.state.BuilderState` and
returns a :class:`FanView`: for a 14-tile hand the fans (zh, en, points),
what each excludes (不计) and why, the total against the bar of the 连拉
level and the P胡 warning; for a 13-tile hand the shanten, the waits with
their values and the distance to the bar; for fewer tiles the shanten.
Everything comes from the evaluator and the reach analysis (one engine);
:meth:`FanView.to_html` renders it for the widget.

When the hand has 13 tiles, or 14 that are not a legal win
(:attr:`FanView.wants_chances`), the view also shows the win chances of
:func:`mjkit.advise` (computed by the builder in the background,
:mod:`mjkit.widgets.chances`): :meth:`FanView.with_chances` adds them, or
"computing…", or the advisor's error, and the HTML puts each discard's
``p_win`` under its tiles (the best highlighted) with the best row's likeliest
target.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field, replace

from .. import messages as M
from ..errors import HandError
from ..fonts import css_stack
from ..tiles import tile_from_str, tile_to_str
from .layout import fan_term

__all__ = ["FanView", "fan_view", "percent"]

def _t(key, lang, **kw):
    """The fan view's label ``key`` (``messages`` entry ``view.<key>``); English unless zh."""
    return M.text("view." + key, M.lang_or_en(lang), **kw)


def percent(p):
    """A probability as the view writes it: ``"18.1%"``, ``"<0.1%"`` below 0.05%, ``"0%"``."""
    if p <= 0:
        return "0%"
    if p < 0.0005:
        return "<0.1%"
    return f"{100 * p:.1f}%"


@dataclass
class FanView:
    """What the fan view shows (see :func:`fan_view`)."""

    state: object
    notation: str
    stage: str                      # "empty", "building", "ready13", "complete", "error"
    message: str = ""
    result: object = None           # ScoreResult of a 14-tile hand
    shanten: object = None          # ShantenResult
    waits: object = None            # WaitsResult of a 13-tile hand
    distance: object = None         # DistanceResult of a 13-tile hand (if the index exists)
    notes: list = field(default_factory=list)
    chances: object = None          # mjkit.advise's Advice (see with_chances)
    chances_status: str = ""        # "", "computing", "done", "error"
    chances_message: str = ""       # the advisor's HandError
    draws: int | None = None        # the draws left the chances are for

    @property
    def wants_chances(self):
        """Whether the view shows win chances: 13 tiles, or 14 that are not a legal win."""
        return self.stage == "ready13" or (self.stage == "complete" and not self.legal)

    def with_chances(self, answer, draws):
        """A copy showing ``answer`` for ``draws`` draws left.

        Parameters
        ----------
        answer : Advice, HandError or None
            The advisor's answer, its error, or None while it is computed.
        draws : int
        """
        if answer is None:
            return replace(self, chances=None, chances_status="computing", chances_message="",
                           draws=draws)
        if isinstance(answer, Exception):
            return replace(self, chances=None, chances_status="error",
                           chances_message=str(answer), draws=draws)
        return replace(self, chances=answer, chances_status="done", chances_message="",
                       draws=draws)

    @property
    def bar(self):
        from ..rules import get_rules

        return get_rules(self.state.rules).threshold(self.state.lianla)

    @property
    def total(self):
        return None if self.result is None else self.result.total

    @property
    def legal(self):
        return self.result is not None and self.result.legal

    def fan_rows(self):
        """``(zh, en, points, count, excludes)`` per counted fan."""
        if self.result is None:
            return []
        return [(f.zh, f.en, f.points, f.count, f.excludes) for f in self.result.fans]

    def not_counted(self):
        """``(fan, because of)`` for the fans the hand has but may not count (不计)."""
        return [] if self.result is None else list(self.result.not_counted)

    # -- HTML ----------------------------------------------------------------

    def to_html(self, tile_size=44):
        """The view as HTML, its tiles ``tile_size`` pixels high."""
        lang = self.state.lang
        e = html.escape
        parts = [f'<div class="mjkit-fanview" style="font-family:{css_stack()}">']
        if self.notation:
            parts.append(self._tiles_html(tile_size))
            parts.append(f'<div style="color:#555;font-size:90%">{e(self.notation)}</div>')
        if self.chances_status:
            parts.append(self._chances_html())
        if self.stage == "empty":
            parts.append(f"<p>{e(_t('empty', lang))}</p>")
        elif self.stage == "error":
            parts.append(f'<p style="color:#b00">{e(self.message)}</p>')
        if self.result is not None:
            parts.append(self._fans_html())
        if self.stage == "building":
            parts.append(f"<p>{e(_t('add', lang, n=13 - self.state.size))}</p>")
        if self.shanten is not None and self.result is None:
            parts.append(self._reach_html())
        parts.extend(f'<p style="color:#555">{e(n)}</p>' for n in self.notes)
        parts.append("</div>")
        return "".join(parts)

    def _tile_groups(self):
        """``(tiles, states, concealed)`` per meld, then one for the concealed tiles (sorted,
        the winning tile last and marked); wild tiles marked."""
        st = self.state
        groups = []
        for kind, first, concealed in st.melds:
            group = [first, first + 1, first + 2] if kind == "chow" else \
                [first] * (4 if kind == "kong" else 3)
            groups.append((group, ["concealed" if concealed and i in (0, 3) else None
                                   for i in range(len(group))], False))
        if st.tiles:
            rest = list(st.tiles)
            win = rest.pop(-1 if st.win is None else st.win)
            groups.append((sorted(rest) + [win], [None] * len(rest) + ["win"], True))
        return [(tiles, [("wild",) if t == st.wild and s is None else
                         ((s, "wild") if t == st.wild else s) for t, s in zip(tiles, states)],
                 hand) for tiles, states, hand in groups]

    def _tiles_html(self, size):
        """The hand as tile pictures: melds, the concealed tiles, the winning tile marked;
        with the chances of a 14-tile hand, each concealed tile with its discard's p_win."""
        from ..pictures import tiles_svg

        st = self.state
        groups = self._tile_groups()
        if self.chances is not None and self.chances.rows and self.chances.rows[0].tile:
            return self._chance_tiles_html(groups, size)
        tiles = [t for g in groups for t in g[0]]
        states = [s for g in groups for s in g[1]]
        return ('<div class="mjkit-hand-picture">'
                + tiles_svg(tiles, size=size, lang=st.lang, states=states) + "</div>")

    def _chance_tiles_html(self, groups, size):
        """Tiles in a row, each concealed one over its discard's p_win (the best in green)."""
        from ..pictures import tile_label, tiles_svg

        lang = self.state.lang
        rows = {r.tile: r for r in self.chances.rows}
        best = self.chances.rows[0].p_win
        cells = []
        for tiles, states, hand in groups:
            if not hand:                    # a meld: not a discard
                picture = tiles_svg(tiles, size=size, lang=lang, states=states)
                cells.append(f'<div style="display:inline-block;vertical-align:top;'
                             f'margin-right:8px">{picture}<div>&nbsp;</div></div>')
                continue
            for t, s in zip(tiles, states):
                name = tile_to_str(t)
                r = rows.get(name)
                picture = tiles_svg([t], size=size, lang=lang, states=[s])
                if r is None:               # not a discard the advisor weighed: no caption
                    cells.append(f'<div style="display:inline-block;vertical-align:top;'
                                 f'margin-right:1px">{picture}<div>&nbsp;</div></div>')
                    continue
                top = r.p_win == best
                style = ("background:#2a7;color:#fff;font-weight:bold;border-radius:3px"
                         if top else "color:#333")
                tip = _t("chances.discard", lang, tile=tile_label(t, lang), p=percent(r.p_win))
                if not math.isnan(r.exp_fans) and r.p_win > 0:
                    tip += " · " + _t("chances.fans", lang, f=f"{r.exp_fans:.1f}")
                cells.append(
                    f'<div style="display:inline-block;text-align:center;vertical-align:top;'
                    f'margin-right:1px">{picture}'
                    f'<div class="mjkit-chance" data-tile="{name}" title="{html.escape(tip)}" '
                    f'style="font-size:80%;{style}">{percent(r.p_win)}</div></div>')
        return "<div>" + "".join(cells) + "</div>"

    def _chances_html(self):
        """The chances' heading, the best discard (or the hand's p_win) and its likeliest
        target; "computing…" or the advisor's error while there are none."""
        lang = self.state.lang
        e = html.escape
        if self.chances_status == "computing":
            return (f'<p class="mjkit-chances-computing" style="color:#777">'
                    f'{e(_t("chances.computing", lang))}</p>')
        if self.chances_status == "error":
            return (f'<p class="mjkit-chances-error" style="color:#b00">'
                    f'{e(_t("chances.error", lang, why=self.chances_message))}</p>')
        adv = self.chances
        best = adv.rows[0]
        head = _t("chances.head", lang, draws=adv.draws, bar=adv.bar)
        lines = []
        if best.tile is None:
            lines.append(_t("chances.hand", lang, p=percent(best.p_win)))
        else:
            from ..pictures import tile_label

            lines.append(_t("chances.discard", lang, p=percent(best.p_win),
                            tile=tile_label(tile_from_str(best.tile), lang)))
        if best.p_win > 0 and not math.isnan(best.exp_fans):
            lines[-1] += " · " + _t("chances.fans", lang, f=f"{best.exp_fans:.1f}")
        if best.p_win <= 0:
            lines.append(_t("chances.none", lang))
        if best.targets:
            t = best.targets[0]
            fans = t.fans if isinstance(t.fans, str) else " + ".join(str(f) for f in t.fans)
            lines.append(_t("chances.target", lang, hand=t.hand, need=t.need or "—",
                            counted=t.counted, fans=fans, p=percent(t.p_alone)))
        if adv.cut:
            lines.append(_t("chances.cut", lang))
        body = "".join(f"<div>{e(x)}</div>" for x in lines)
        return (f'<div class="mjkit-chances" data-hand="{e(adv.hand)}" '
                f'data-draws="{adv.draws}" style="margin:6px 0">'
                f'<div style="color:#555">{e(head)}</div>{body}</div>')

    def _fans_html(self):
        lang = self.state.lang
        e = html.escape
        rows = []
        for zh, en, pts, cnt, excl in self.fan_rows():
            name = f"{zh} <span style='color:#666'>{e(en)}</span>" if lang == "zh" else \
                f"{e(en)} <span style='color:#666'>{zh}</span>"
            rows.append(f"<tr><td>{name}</td><td style='text-align:right'>{pts}</td>"
                        f"<td>{'×' + str(cnt) if cnt > 1 else ''}</td>"
                        f"<td style='color:#666'>{e(', '.join(fan_term(x, lang) for x in excl))}"
                        f"</td></tr>")
        head = (f"<tr><th>{_t('fans', lang)}</th><th>{_t('points', lang)}</th><th></th>"
                f"<th>{_t('excludes', lang)}</th></tr>")
        out = [f"<table>{head}{''.join(rows)}</table>"]
        nc = self.not_counted()
        if nc:
            items = "".join(f"<li>{e(fan_term(f, lang))} — {_t('because', lang)} "
                            f"{e('、'.join(fan_term(x, lang) for x in b))}</li>" for f, b in nc)
            out.append(f"<details><summary>{_t('not_counted', lang)}</summary>"
                       f"<ul>{items}</ul></details>")
        out.append(self._bar_html())
        return "".join(out)

    def _bar_html(self):
        lang = self.state.lang
        r = self.result
        bar = max(self.bar, 1)
        have = r.hand_points if r.is_win else 0
        pct = min(100, round(100 * have / bar)) if self.bar else 100
        colour = "#2a7" if r.legal else "#c33"
        verdict = html.escape(r.verdict(lang))
        return (f"<div style='margin:6px 0'>{_t('total', lang)} <b>{r.total}</b> · "
                f"{_t('bar', lang)} {self.bar}"
                f"<div style='background:#eee;width:100%;max-width:320px;height:12px;"
                f"border-radius:6px'>"
                f"<div style='background:{colour};width:{pct}%;height:12px;"
                f"border-radius:6px'></div></div>"
                f"<div style='color:{colour}'>{verdict}</div></div>")

    def _reach_html(self):
        lang = self.state.lang
        e = html.escape
        sh = self.shanten
        out = []
        label = _t("ready", lang) if sh.shanten == 0 else f"{sh.shanten}"
        out.append(f"<p>{_t('shanten', lang)}: <b>{e(label)}</b></p>")
        if self.waits is not None and self.waits.waits:
            rows = "".join(
                f"<tr><td>{e(w.tile)}</td><td>{w.unseen}</td><td>{w.hand_points}</td>"
                f"<td>{'✓' if w.legal else e(_t('short', lang, n=w.short_by))}</td></tr>"
                for w in self.waits.waits)
            out.append(f"<table><tr><th>{_t('waits', lang)}</th><th>{_t('unseen', lang)}"
                       f"</th><th>{_t('points', lang)}</th><th>{_t('legal', lang)}</th></tr>"
                       f"{rows}</table>")
        if self.distance is not None:
            d = self.distance
            out.append(f"<p>{e(_t('distance', lang, t=self.bar))}: "
                       f"{e(d.summary(lang).splitlines()[0])}</p>")
        return "".join(out)


def fan_view(state, *, distance=True):
    """Everything the fan view shows for ``state`` (a :class:`BuilderState`).

    Parameters
    ----------
    state : BuilderState
    distance : bool
        For a 13-tile hand, also the distance to a hand worth the bar
        (only when the rule set's value index is already built: a first
        build takes minutes, never done from a widget).

    Returns
    -------
    FanView
    """
    import mjkit

    lang = state.lang
    if not state.tiles and not state.melds:
        return FanView(state, "", "empty")
    text = state.notation()
    size = state.size
    situation = state.situation()
    wild = None if state.wild is None else tile_to_str(state.wild)
    try:
        if size == 14:
            r = mjkit.score(state.hand(), rules=state.rules, lianla=state.lianla, wild=wild)
            return FanView(state, text, "complete", result=r)
        if size > 14:
            return FanView(state, text, "error", message=_t("too_many", lang))
        if size < 13:               # shanten is defined for 13 or 14 tiles
            return FanView(state, text, "building")
        tiles, melds = list(state.tiles), state.meld_list()
        view = FanView(state, text, "ready13", shanten=mjkit.shanten(tiles, melds=melds))
        if size == 13:
            w_situation = {k: v for k, v in situation.items()
                           if k in ("self_drawn", "seat_wind", "round_wind", "flowers")}
            view.waits = mjkit.waits(text, rules=state.rules, lianla=state.lianla, wild=wild,
                                     **w_situation)
            if distance and wild is None:
                from ..value_index import index_available

                if index_available(state.rules):
                    view.distance = mjkit.distance_to(
                        tiles, None, melds=melds, rules=state.rules, lianla=state.lianla,
                        seat_wind=situation["seat_wind"], round_wind=situation["round_wind"])
                else:
                    view.notes.append(_t("no_index", lang))
        return view
    except HandError as exc:           # the engine's words, after a line in the view's language
        return FanView(state, text, "error", message=_t("error", lang, why=exc))
