"""Fan combinations explained: value, example hands, how often hands carry them.

:func:`combination` gathers what a learner wants to know about a set of fans
(e.g. 清一色 + 一色三步高):

* its sure value (the fans' points after 不计), and the counted fans of the
  complete closed hands that carry it (from the value index: every such hand
  scored by the evaluator);
* how often complete hands carry it: the share of all complete closed
  patterns (value index);
* example hands, seeded, as notation (and tile pictures in a notebook);
* its reach probability per 连拉 level from the shipped Monte Carlo study
  (:func:`mjkit.sim.default_study`), when the study counted it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import validate

__all__ = ["CombinationInfo", "combination"]


@dataclass
class CombinationInfo:
    """What :func:`combination` found.

    Attributes
    ----------
    rules : str
    keys, zh, en : list of str
        The fans.
    points : int
        Their points together after 不计 (what any hand carrying them is sure of).
    patterns : int
        Complete closed 14-tile patterns (kinds, not copies) whose best reading
        counts every fan, as the value index lists them; ``share`` is their part
        of all listings.  The index lists the 7,938 patterns that are both seven
        pairs and regular twice, so this may exceed the distinct count (the exact
        tables', :func:`mjkit.exact.fan_distribution`) by at most that.
    counted : dict
        ``min``, ``median`` and ``max`` counted fans of those patterns
        (self-drawn, East/East, the value index's situation).
    examples : list of str
        Example hands (notation, the last tile the winning one).
    reach : pandas.DataFrame or None
        Per 连拉 level of the shipped study: wins carrying the combination,
        P per hand and P among wins with 95% intervals (None if the study did
        not count this combination).
    """

    rules: str
    keys: list
    zh: list
    en: list
    points: int
    patterns: int
    share: float
    counted: dict
    examples: list
    reach: object = None
    notes: list = field(default_factory=list)

    @property
    def name(self):
        return " + ".join(self.zh)

    def summary(self, lang="zh"):
        names = " + ".join(self.zh if lang == "zh" else self.en)
        c = self.counted
        lines = [f"{names}: {self.points} fans sure ({self.rules})",
                 f"  complete closed patterns carrying it: {self.patterns:,} "
                 f"({self.share:.3%} of all)"]
        if self.patterns:
            lines.append(f"  their counted fans: min {c['min']}, median {c['median']}, "
                         f"max {c['max']}")
        lines += [f"  e.g. {h}" for h in self.examples]
        if self.reach is not None:
            r = self.reach
            lines.append("  reach per hand by level: " + ", ".join(
                f"连{int(lv)} {p:.3%}" for lv, p in zip(r.index, r["p_hand"])))
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    def _repr_html_(self):
        from .pictures import hand_svg

        e = html.escape
        pics = "".join(f"<div>{hand_svg(h, size=36)}<code>{e(h)}</code></div>"
                       for h in self.examples)
        reach = "" if self.reach is None else self.reach.to_html(float_format="{:.4%}".format)
        lines = self.summary().splitlines()
        rest = "<br>".join(e(line) for line in lines[:3] + [x for x in lines if "note:" in x])
        return f"<div><b>{e(self.name)}</b><br>{rest}{pics}{reach}</div>"


def combination(fans, rules="dazhong32", *, examples=3, seed=0, study=True, progress=None):
    """Everything mjkit knows about a fan combination.

    Parameters
    ----------
    fans : str or sequence
        ``"清一色 + 一色三步高"``, ``"FULL_FLUSH PURE_SHIFTED_CHOWS"``, or a
        sequence of fan names or keys.
    rules : str
    examples : int
        Example hands to draw (0..20), seeded by ``seed``.
    study : bool or StudyTable
        Read the reach probabilities from the shipped study (True), from
        this study, or not at all (False).
    progress : bool, optional
        Progress bar if the value index must be built first (minutes, once).

    Returns
    -------
    CombinationInfo
    """
    from .exact import pattern_text
    from .rules import get_rules
    from .sim.combos import parse_combination
    from .value_index import families, value_index

    rs = get_rules(rules)
    rows = parse_combination(fans, rs)
    examples = validate.whole("examples", examples, 0, 20)
    from .rules.catalogue import catalogue_lists

    cat = catalogue_lists()
    keys = [cat.key[i] for i in rows]
    points = rs.combined_points(rows)
    idx = value_index(rs, progress=progress)
    notes = []
    hand_keys = set(idx.fan_keys)
    situational = [k for k in keys if k not in hand_keys]
    if situational:
        notes.append(f"{', '.join(situational)} depend on the win, not the tiles: the "
                     "pattern counts leave them out")
    carry_rows = idx.carries([k for k in keys if k in hand_keys])
    hit = np.flatnonzero(carry_rows[np.asarray(idx.ids)])
    counted = idx.counted[np.asarray(idx.ids)[hit]] if len(hit) else np.zeros(0)
    stats = {"min": int(counted.min()), "median": int(np.median(counted)),
             "max": int(counted.max())} if len(hit) else {}
    rng = np.random.default_rng(seed)
    fam = families()
    picks = rng.choice(hit, size=min(examples, len(hit)), replace=False) if len(hit) else []
    shown = [pattern_text(fam.pattern(int(i))) for i in sorted(picks)]
    if not len(hit):
        notes.append("no complete closed hand counts it when self-drawn: it needs melded "
                     "sets, a win on a discard or another situation (a closed 碰碰和, "
                     "for one, is 四暗刻, which excludes it)")
    info = CombinationInfo(rs.name, keys, [cat.zh[i] for i in rows], [cat.en[i] for i in rows],
                           points, int(len(hit)), len(hit) / len(idx), stats, shown, None, notes)
    if study is not False:
        info.reach = _reach(study, rs, rows)
    return info


def _reach(study, rs, rows):
    from .rules.catalogue import catalogue_lists
    from .sim import default_study

    table = default_study() if study is True else study
    if table is None or table.params.get("rules") != rs.name:
        return None
    cat = catalogue_lists()
    want = " ".join(sorted(cat.key[i] for i in rows))
    c = table.combinations
    mine = c[c["fans"].map(lambda s: " ".join(sorted(s.split()))) == want]
    if mine.empty:
        return None
    cols = ["k", "p_hand", "p_hand_lo", "p_hand_hi", "p_win", "p_win_lo", "p_win_hi"]
    return pd.DataFrame(mine.set_index("level")[cols])
