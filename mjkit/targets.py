"""Targets: which fan combinations to aim at, ranked for one hand.

Seed 000 §五 teaches 32番 hand planning as 6看 7停 8上: with 4-6 tiles that
fit a 32-fan hand keep two directions open, at 7 stop and think, at 8
commit.  :func:`targets` makes that a tool.  It takes a catalogue of named
fan combinations that reach the bar (:func:`target_catalogue`, generated
from the fan table plus every combination seed 000 §三 lists) and, for the
hand, gives each the distance to the nearest complete hand that counts all
of its fans and reaches the bar, the tiles of the hand that fit it, what to
draw and how many ways there are to draw it from the unseen copies.

The catalogue
-------------
For a bar of ``B`` fans (the rule set's minimum, less 4 per 连拉 level):

* every fan of kind ``hand`` worth ``B`` or more by itself;
* every pair of *direction* fans (kind ``hand``, 6 points or more) that
  reach ``B`` together while neither does alone;
* every direction fan worth ``B/2`` or more with "small fans" making up
  the rest (清一色 + 小番: a 清一色 hand worth ``B``);
* the combinations of seed 000 §三 (with their 连拉 level; 和绝张 is a
  fan of the win, so those combinations ask the tiles for ``B - 4`` and
  say so, or are marked impossible when the evaluator rules the pair out,
  as for 七对 + 和绝张).

A combination no complete closed hand can carry is left out.  Every target
is itself worth the bar, so a combination's distance is never below the
plain :func:`mjkit.distance_to`.

How it is computed
------------------
One pass over every complete closed pattern of the value index
(:func:`mjkit._kernels.value_index.nearest_per_row`, ~0.1 s) gives, per
distinct (value, fans) row of the index, the most tiles the hand shares
with one of its patterns; each combination is then the best of the rows
that carry its fans and reach the bar.  Exact for closed hands, like
:func:`mjkit.distance_to`; the situation is the index's (self-drawn, East
seat and round).

Examples
--------
>>> t = targets("123m234m345m678m9m")          # seed 000's first combination, ready
>>> best = t.table.iloc[0]
>>> print(best.combination, best.distance, best.need)
清一色 + 一色三步高 0 6m
>>> t.advice
'13 tiles fit: 8上 (commit) - go for Full Flush + Pure Shifted Chows'
"""

from __future__ import annotations

import csv
import functools
import math
import time
from dataclasses import dataclass

import numpy as np
from ._lazy import pandas as pd  # imported on first use: scoring needs no pandas

from . import messages as M
from . import value_index as VI
from ._kernels import index_query as KQ
from .distance import best_result, fans_text, target_fans
from .errors import HandError
from .locations import data_file
from .rules import get_rules
from .rules.catalogue import fan_catalogue
from .score import score
from .hand import Hand, hand_text
from .shanten import read_hand_counts
from .tiles import N_KINDS, tiles_of_counts, tiles_to_str
from .validate import whole

__all__ = ["DIRECTION_POINTS", "TargetsResult", "target_catalogue", "targets"]

#: Fans worth at least this much are "directions" (paired, or topped up with small fans).
DIRECTION_POINTS = 6

_SITUATIONAL_FLAG = {"LAST_TILE": "last_copy"}


@functools.lru_cache(maxsize=None)
def seed_rows():
    """The fan combinations of seed 000 §三 (``data/targets.csv``), one dict per row, read once.

    Each row has ``level`` (the 连拉 level from which it counts), ``fans``
    (fan keys, space separated) and ``seed_zh`` (the seed's wording); used
    by :func:`targets` and by the simulator's default combinations.
    """
    with open(data_file("targets.csv"), newline="", encoding="utf-8") as f:
        return tuple(csv.DictReader(f))


def _names(keys, cat, lang):
    col = "zh" if lang == "zh" else "en"
    return [cat.loc[cat["key"] == k, col].iat[0] for k in keys]


_CATALOGUES: dict = {}


def _catalogue(rs, bar, level):
    key = (rs.name, id(rs), bar, level)
    found = _CATALOGUES.get(key)
    if found is None:
        found = _CATALOGUES[key] = _build_catalogue(rs, bar, level)
    return found


def _build_catalogue(rs, bar, level):
    cat = fan_catalogue()
    pts = rs.points_list
    kinds = list(cat["kind"])
    keys = list(cat["key"])
    hand_fans = [i for i in range(rs.n_fans) if kinds[i] == "hand" and pts[i] > 0]
    direction = [i for i in hand_fans if pts[i] >= DIRECTION_POINTS and pts[i] < bar]
    excl = rs.excludes
    entries = {}

    def add(fan_ids, kind, source, lvl=0, note="", seed=""):
        key = tuple(sorted(keys[f] for f in fan_ids))
        if key in entries:
            e = entries[key]
            if source not in e["source"]:
                e["source"] += "; " + source
                e["seed"] = e["seed"] or seed
                e["level"] = min(e["level"], lvl)
                e["note"] = e["note"] or note
            return
        entries[key] = {"fans": key, "kind": kind, "source": source, "level": lvl,
                        "note": note, "seed": seed}

    for f in hand_fans:
        if pts[f] >= bar and bar > 0:
            add([f], "fan", "fan table")
    for i, f in enumerate(direction):
        for g in direction[i + 1:]:
            if pts[f] + pts[g] >= bar and g not in excl[f] and f not in excl[g]:
                add([f, g], "pair", "fan table")
        if 2 * pts[f] >= bar:
            add([f], "fan + small fans", "fan table")
    for row in seed_rows():
        lvl = int(row["level"])
        if lvl <= level:
            fan_ids = [keys.index(k) for k in row["fans"].split()]
            add(fan_ids, "seed", "seed 000 §三", lvl, row["note"], row["seed_zh"])
    out = []
    for e in entries.values():
        ids = [keys.index(k) for k in e["fans"]]
        situational = [k for k, i in zip(e["fans"], ids) if kinds[i] != "hand"]
        e["points"] = sum(pts[i] for i in ids)
        e["situational"] = tuple(situational)
        e["need_value"] = max(bar - sum(pts[keys.index(k)] for k in situational), 0)
        e["zh"] = " + ".join(_names(e["fans"], cat, "zh")) + (
            " + 小番" if e["kind"] == "fan + small fans" else "")
        e["en"] = " + ".join(_names(e["fans"], cat, "en")) + (
            " + small fans" if e["kind"] == "fan + small fans" else "")
        out.append(e)
    return out


def target_catalogue(rules="dazhong32", min_fans=None, *, lianla=0):
    """The named fan combinations that reach the bar (see the module docstring).

    Parameters
    ----------
    rules : str or RuleSet
    min_fans : int, optional
        Counted fans to reach (default: the rule set's minimum).
    lianla : int
        连N拉N level: lowers what the hand itself needs by 4N and admits
        seed 000's combinations of that level.

    Returns
    -------
    pandas.DataFrame
        One row per combination: ``combination`` (zh), ``combination_en``,
        ``fans`` (keys), ``kind`` (``fan``, ``pair``, ``fan + small fans``,
        ``seed``), ``points`` (its fans' points), ``source``, ``level``,
        ``seed`` (the seed's wording), ``note``, and whether a complete
        closed hand can carry it (``possible``), which reads the value
        index (built once per rule set).
    """
    rs = get_rules(rules)
    level = rs.streak_level(lianla)     # 0..MAX_LEVEL; targets are the dealer's (East)
    target = target_fans(rs, min_fans, level)
    bar = max(target - level * rs.streak_points, 0)
    entries = _catalogue(rs, bar, level)
    index = VI.value_index(rs)
    ok = _possible(index, entries, rs)
    df = pd.DataFrame([{
        "combination": e["zh"], "combination_en": e["en"], "fans": " ".join(e["fans"]),
        "kind": e["kind"], "points": e["points"], "source": e["source"], "level": e["level"],
        "seed": e["seed"], "note": _note(e, ok[i]), "possible": ok[i] is True,
    } for i, e in enumerate(entries)])
    return df


def _rows_for(index, e):
    hand_keys = [k for k in e["fans"] if k not in e["situational"]]
    if any(k not in index.fan_keys for k in hand_keys):
        return np.zeros(len(index.counted), bool)
    return index.carries(hand_keys) & (index.counted >= e["need_value"])


def _possible(index, entries, rs):
    """Per entry: True, False (no closed hand carries it) or an error text."""
    out = []
    for e in entries:
        rows = _rows_for(index, e)
        if not rows.any():
            out.append(False)
            continue
        out.append(_situational_check(index, e, rows, rs))
    return out


def _situational_check(index, e, rows, rs):
    """A combination with a fan of the win: can that win happen on such a hand?

    Tried on the first hand of the index carrying the combination, with the
    win's flag set (和绝张: ``last_copy``); the evaluator's refusal (七对
    never wins on the last copy: its pair partner is in the hand) is kept as
    the reason.
    """
    flags = {_SITUATIONAL_FLAG[k]: True for k in e["situational"] if k in _SITUATIONAL_FLAG}
    if not flags:
        return True
    # try an example hand of the combination with the flag set
    fam = VI.families()
    r = int(np.flatnonzero(rows)[0])
    c = fam.pattern(_first_pattern(index, r))
    tiles = tiles_of_counts(c)
    last_error = None
    for w in sorted(set(tiles)):
        try:
            res = score(Hand.from_parts(tiles, win_tile=w, self_drawn=True, **flags), rules=rs)
        except HandError as exc:
            last_error = str(exc)
            continue
        if res.is_win:
            return True
    return last_error or False


def _first_pattern(index, r):
    ids = index.ids
    step = 1 << 20
    for lo in range(0, len(ids), step):
        hit = np.flatnonzero(ids[lo:lo + step] == r)
        if len(hit):
            return lo + int(hit[0])
    raise KeyError(r)


def _note(e, ok):
    notes = [e["note"]] if e["note"] else []
    if e["situational"]:
        notes.append(f"needs {' '.join(e['situational'])} at the win; the tiles need "
                     f"{e['need_value']}")
    if ok is False:
        notes.append("no complete closed hand carries it")
    elif isinstance(ok, str):
        notes.append(f"impossible: {ok}")
    return "; ".join(notes)


@dataclass
class TargetsResult:
    """What :func:`targets` found (``.table``, ``.summary()``, ``.advice``)."""

    hand: str
    rules: str
    min_fans: int
    lianla: int
    table: pd.DataFrame
    fit: int
    distance: int | None
    seconds: float

    @property
    def advice(self):
        """Seed 000's 6看 7停 8上 for this hand, in English."""
        return _advice(self, "en")

    def summary(self, lang="en", top=5):
        lines = [_advice(self, lang)]
        t = self.table.head(top)
        zh = M.lang_or_en(lang) == "zh"
        for r in t.itertuples():
            lines.append(M.text("targets.row", "zh" if zh else "en", rank=r.rank,
                                combination=r.combination if zh else r.combination_en,
                                distance=r.distance, fit=r.fit, ways=r.ways,
                                need=r.need or ("—" if zh else "-")))
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    def _repr_html_(self):
        cols = ["rank", "combination", "combination_en", "distance", "fit", "need", "ways",
                "example", "counted", "note"]
        return f"<p>{_advice(self, 'en')}</p>" + self.table[cols].head(20).to_html(index=False)


def _advice(res, lang):
    lang = M.lang_or_en(lang)
    t = res.table
    if not len(t) or res.distance is None:
        return M.text("targets.none", lang)
    first = t.iloc[0]
    other = t[t["primary"] != first["primary"]]
    second = other.iloc[0] if len(other) else None
    fit = int(first["fit"])
    column = "combination" if lang == "zh" else "combination_en"
    name = first[column]
    if fit >= 8:
        return M.text("targets.commit", lang, fit=fit, name=name)
    if fit < 4:
        return M.text("targets.early", lang, fit=fit, name=name)
    step = "targets.think" if fit == 7 else "targets.look"
    name2 = None if second is None else second[column]
    also = M.text(step + "_also", lang, name=name2) if name2 else ""
    return M.text(step, lang, fit=fit, name=name, also=also)


def targets(hand, min_fans=None, rules="dazhong32", *, lianla=0, visible=None, top=10,
            progress=None):
    """Fan combinations that reach the bar, ranked for this hand.

    Parameters
    ----------
    hand : str, 34 counts or sequence of tiles
        A closed hand of 13 or 14 tiles (as for :func:`mjkit.distance_to`).
    min_fans : int, optional
        Counted fans to reach (default: the rule set's minimum).
    rules : str or RuleSet
    lianla : int
        连N拉N level (the hand itself needs 4N less).
    visible : str or sequence of tiles, optional
        Tiles seen elsewhere.
    top : int
        How many of the best combinations get an example hand scored in
        full (``example``, ``counted``, ``example_fans``); all get a
        distance.
    progress : bool, optional
        Progress bar if the value index must be built.

    Returns
    -------
    TargetsResult
        ``.table``: one row per reachable combination, ranked by distance,
        then by ways to draw the missing tiles, then by points: ``rank``,
        ``combination`` (zh), ``combination_en``, ``fans``, ``kind``,
        ``points``, ``distance`` (as :func:`mjkit.distance_to`), ``fit``
        (tiles of the hand in the example), ``need`` (tiles to draw),
        ``unseen`` (unseen copies of those kinds), ``ways``, ``example``,
        ``counted``, ``example_fans``, ``source``, ``note``.
        ``.advice``: 6看 7停 8上 for the best two.

    Raises
    ------
    HandError
        As :func:`mjkit.distance_to`; also for a hand with melds (targets
        are computed for closed hands; use :func:`mjkit.distance_to` there).
    """
    t0 = time.perf_counter()
    rs = get_rules(rules)
    level = rs.streak_level(lianla)     # 0..MAX_LEVEL; targets are the dealer's (East)
    target = target_fans(rs, min_fans, level)
    top = whole("top", top, 0)
    counts, meld_list, _, seen = read_hand_counts(hand, None, visible)
    if meld_list:
        raise HandError("targets() ranks combinations for closed hands; "
                        "use distance_to() for a hand with melds")
    h = np.ascontiguousarray(counts, np.int64)
    unseen = (4 - counts - seen).astype(np.int64)
    bar = max(target - level * rs.streak_points, 0)
    entries = _catalogue(rs, bar, level)
    index = VI.value_index(rs, progress=progress)
    ok = _possible_cached(index, rs, bar, level)
    fam = VI.families()
    n_rows = len(index.counted)
    best = np.full(n_rows, -1, np.int64)
    where = np.zeros(n_rows, np.int64)
    KQ.nearest_per_row(h, unseen, fam.arrays(), index.ids, best, where)
    cat = fan_catalogue()
    pts = rs.points_list
    rows = []
    for i, e in enumerate(entries):
        if ok[i] is not True:
            continue
        mask = _rows_for(index, e)
        cand = np.flatnonzero(mask & (best >= 0))
        if not len(cand):
            continue
        r = int(cand[np.argmax(best[cand])])
        fit = int(best[r])
        c = fam.pattern(where[r])
        keep = np.minimum(h, c)
        need = c - keep
        need_tiles = tiles_of_counts(need)
        ways = 1
        for t in range(N_KINDS):
            if need[t] > 0:
                ways *= math.comb(int(unseen[t]), int(need[t]))
        primary = max(e["fans"], key=lambda k: (pts[cat.index[cat["key"] == k][0]], k))
        rows.append({
            "combination": e["zh"], "combination_en": e["en"], "fans": " ".join(e["fans"]),
            "kind": e["kind"], "points": e["points"], "distance": 13 - fit, "fit": fit,
            "need": tiles_to_str(need_tiles),
            "unseen": sum(int(unseen[t]) for t in range(N_KINDS) if need[t] > 0),
            "ways": ways, "pattern": c, "source": e["source"], "note": _note(e, True),
            "primary": primary})
    table = pd.DataFrame(rows)
    if len(table):
        table = table.sort_values(["distance", "ways", "points", "combination_en"],
                                  ascending=[True, False, False, True], kind="mergesort")
        table.insert(0, "rank", np.arange(1, len(table) + 1))
        table = table.reset_index(drop=True)
        examples, counted, fans = [], [], []
        situation = {"self_drawn": True}
        for j in range(len(table)):
            if j < top:
                res = best_result(table.at[j, "pattern"], [], rs, level, situation)
                examples.append("" if res is None else str(res.hand).split("|")[0].strip())
                counted.append(-1 if res is None else res.counted_points)
                fans.append("" if res is None else " ".join(fans_text(res)))
            else:
                examples.append("")
                counted.append(None)
                fans.append("")
        table["example"] = examples
        table["counted"] = pd.array(counted, dtype="Int64")
        table["example_fans"] = fans
        table = table.drop(columns=["pattern"])
    else:
        table = pd.DataFrame(columns=["rank", "combination", "combination_en", "fans", "kind",
                                      "points", "distance", "fit", "need", "unseen", "ways",
                                      "source", "note", "primary", "example", "counted",
                                      "example_fans"])
    res = TargetsResult(hand=hand_text(tiles_of_counts(counts), meld_list), rules=rs.name, min_fans=target,
                        lianla=level, table=table,
                        fit=int(table["fit"].iloc[0]) if len(table) else 0,
                        distance=int(table["distance"].iloc[0]) if len(table) else None,
                        seconds=0.0)
    res.seconds = time.perf_counter() - t0
    return res


_POSSIBLE: dict = {}


def _possible_cached(index, rs, bar, level):
    key = (id(index), rs.name, bar, level)
    found = _POSSIBLE.get(key)
    if found is None:
        found = _POSSIBLE[key] = _possible(index, _catalogue(rs, bar, level), rs)
    return found
