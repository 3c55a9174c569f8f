"""The combination explorer: pick fans, see their value, examples and reach odds.

All the work is :func:`mjkit.explore.combination`; the widget holds a fan
picker and shows the result with the catalogue's texts (:mod:`mjkit.messages`)
in its ``lang``; the result's notes are the engine's (English) words after a
line of the widget's language.
"""

from __future__ import annotations

import html

import ipywidgets as W

from .. import messages as M
from ..errors import HandError
from ..validate import lang as check_lang

__all__ = ["CombinationExplorer"]


def _t(key, lang, **fields):
    """The explorer's text ``key`` (messages entry ``explorer.<key>``) in ``lang``."""
    if fields:
        return M.text("explorer." + key, lang, **fields)
    return M.value("explorer." + key, lang)


class CombinationExplorer:
    """Choose fans (e.g. 清一色 and 一色三步高) and see what mjkit knows of them.

    Parameters
    ----------
    rules : str
    fans : str, optional
        A starting combination, e.g. ``"清一色 + 一色三步高"``.
    examples : int
        Example hands shown.
    lang : {"zh", "en"}
        The language of the labels, the fan names and the result.
    """

    def __init__(self, rules="dazhong32", fans="清一色 + 一色三步高", *, examples=3, lang="zh"):
        from ..rules import get_rules
        from ..rules.catalogue import catalogue_lists

        self.lang = check_lang(lang)
        rs = get_rules(rules)
        cat = catalogue_lists()
        self.rules = rs.name
        self.examples = examples
        self.picker = W.SelectMultiple(
            options=[(_t("option", lang, zh=cat.zh[i], en=cat.en[i], points=rs.points_list[i]),
                      cat.key[i])
                     for i in range(rs.n_fans) if rs.points_list[i] > 0
                     and cat.key[i] != "LIANLA"],
            rows=12, description=_t("fans", lang), layout=W.Layout(width="100%",
                                                                  max_width="420px"))
        self.seed = W.BoundedIntText(description=M.text("widgets.seed", lang), value=0, min=0,
                                     max=10**9, layout=W.Layout(width="180px"))
        self.out = W.HTML()
        self.info = None
        self.picker.observe(lambda _: self.refresh(), names="value")
        self.seed.observe(lambda _: self.refresh(), names="value")
        self.widget = W.VBox([W.HBox([self.picker, self.seed],
                                     layout=W.Layout(flex_flow="row wrap")), self.out],
                             layout=W.Layout(width="100%"))
        if fans:
            from ..sim.combos import parse_combination

            self.picker.value = tuple(cat.key[i] for i in parse_combination(fans, rs))
        else:
            self.refresh()

    def refresh(self):
        from ..explore import combination

        keys = list(self.picker.value)
        if not keys:
            self.info = None
            self.out.value = f"<p>{html.escape(_t('choose', self.lang))}</p>"
            return
        try:
            self.info = combination(keys, self.rules, examples=self.examples,
                                    seed=int(self.seed.value))
        except HandError as exc:
            self.info = None
            self.out.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            return
        self.out.value = self.to_html()

    def to_html(self):
        """The current combination (:attr:`info`) in the explorer's language."""
        from ..pictures import hand_svg

        info, lang, e = self.info, self.lang, html.escape
        name = " + ".join(M.text("widgets.term", lang, zh=zh, en=en)
                          for zh, en in zip(info.zh, info.en))
        lines = [_t("sure", lang, points=info.points, rules=info.rules),
                 _t("patterns", lang, patterns=f"{info.patterns:,}", share=f"{info.share:.3%}")]
        if info.patterns:
            lines.append(_t("counted", lang, **info.counted))
        lines += [_t("note", lang, note=n) for n in info.notes]
        pics = "".join(f"<div class='mjkit-hand-picture'>{hand_svg(h, size=36, lang=lang)}"
                       f"<code>{e(h)}</code></div>" for h in info.examples)
        return (f"<div><b>{e(name)}</b><br>{'<br>'.join(e(x) for x in lines)}{pics}"
                f"{self._reach_html()}</div>")

    def _reach_html(self):
        """The study's reach per 连拉 level: wins with it, P per hand, P among wins (95%)."""
        r = self.info.reach
        if r is None:
            return ""
        head = "".join(f"<th>{html.escape(h)}</th>" for h in _t("reach_head", self.lang))

        def p(row, col):
            return f"{row[col]:.3%} ({row[col + '_lo']:.3%}–{row[col + '_hi']:.3%})"

        rows = "".join(f"<tr><td>{int(level)}</td><td>{int(row['k'])}</td>"
                       f"<td>{p(row, 'p_hand')}</td><td>{p(row, 'p_win')}</td></tr>"
                       for level, row in r.iterrows())
        return (f"<p>{html.escape(_t('reach', self.lang))}</p>"
                f"<table><tr>{head}</tr>{rows}</table>")

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
