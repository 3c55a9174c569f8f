"""The combination explorer: pick fans, see their value, examples and reach odds.

All the work is :func:`mjkit.explore.combination`; the widget holds a fan
picker and shows the result.
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..errors import HandError

__all__ = ["CombinationExplorer"]


class CombinationExplorer:
    """Choose fans (e.g. 清一色 and 一色三步高) and see what mjkit knows of them.

    Parameters
    ----------
    rules : str
    fans : str, optional
        A starting combination, e.g. ``"清一色 + 一色三步高"``.
    """

    def __init__(self, rules="dazhong32", fans="清一色 + 一色三步高", *, examples=3):
        from ..rules import get_rules
        from ..rules.catalogue import catalogue_lists

        rs = get_rules(rules)
        cat = catalogue_lists()
        self.rules = rs.name
        self.examples = examples
        self.picker = W.SelectMultiple(
            options=[(f"{cat.zh[i]} {cat.en[i]} ({rs.points_list[i]})", cat.key[i])
                     for i in range(rs.n_fans) if rs.points_list[i] > 0
                     and cat.key[i] != "LIANLA"],
            rows=12, description="fans", layout=W.Layout(width="360px"))
        self.seed = W.BoundedIntText(description="seed", value=0, min=0, max=10**9,
                                     layout=W.Layout(width="160px"))
        self.out = W.HTML()
        self.info = None
        self.picker.observe(lambda _: self.refresh(), names="value")
        self.seed.observe(lambda _: self.refresh(), names="value")
        self.widget = W.VBox([W.HBox([self.picker, self.seed]), self.out])
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
            self.out.value = "<p>Choose one or more fans. 选择番种。</p>"
            return
        try:
            self.info = combination(keys, self.rules, examples=self.examples,
                                    seed=int(self.seed.value))
        except HandError as exc:
            self.info = None
            self.out.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            return
        self.out.value = self.info._repr_html_()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
