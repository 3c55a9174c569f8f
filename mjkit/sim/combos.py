"""Fan combinations a study counts among the simulated wins.

A *combination* is a set of fans; a win carries it when every one of its
fans is among the win's counted fans (``HandRecords.fan_counts > 0``).

The default selection (:func:`study_combinations` with ``combinations=None``):

* every combination seed 000 §三 lists (``data/targets.csv``, the same rows
  :func:`mjkit.targets` reads), whatever its 连拉 level, for rule sets with
  连拉 (``dazhong32`` and sets derived from it; the seed teaches 32番连拉);
* every single fan the rule set scores (points > 0), except 连拉 itself,
  which is not a fan of the hand (every dealer win above 连0 carries it).

Pass ``combinations=[...]`` to count your own instead, each a string of fan
keys or names separated by spaces or ``+`` (``"FULL_FLUSH SEVEN_PAIRS"``,
``"清一色 + 一色三步高"``, ``"Full Flush + Pure Shifted Chows"``) or a
sequence of fans.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import HandError
from ..rules import get_rules
from ..rules.catalogue import fan_catalogue

__all__ = ["parse_combination", "study_combinations"]

_COLUMNS = ["combination", "combination_en", "fans", "size", "points", "source",
            "seed_level", "seed_zh"]


def _parse(item, rs, cat):
    """Catalogue rows of one user combination."""
    if isinstance(item, str):
        if "+" in item:
            parts = item.split("+")
        else:
            try:                      # one fan whose name has spaces ("Seven Pairs")
                rs.fan_index(item.strip())
                parts = [item]
            except HandError:
                parts = item.split()
    else:
        try:
            parts = list(item)
        except TypeError:
            raise HandError(f"a combination must be a string or a sequence of fans, "
                            f"got {item!r}") from None
    parts = [p.strip() if isinstance(p, str) else p for p in parts]
    parts = [p for p in parts if not (isinstance(p, str) and not p)]
    if not parts:
        raise HandError(f"empty fan combination {item!r}")
    ids = []
    for p in parts:
        i = rs.fan_index(p)
        if rs.points_list[i] <= 0:
            raise HandError(f"fan {cat['key'].iat[i]} ({cat['zh'].iat[i]}) in combination "
                            f"{item!r} is not scored by rule set {rs.name!r}", code="unknown_name")
        ids.append(i)
    return sorted(set(ids))


def parse_combination(item, rules="dazhong32"):
    """Catalogue rows (sorted) of one combination written as for :func:`study_combinations`."""
    return _parse(item, get_rules(rules), fan_catalogue())


def study_combinations(rules="dazhong32", combinations=None):
    """The fan combinations a study counts, one row each.

    Parameters
    ----------
    rules : str or RuleSet
    combinations : iterable, optional
        Your own combinations (see the module docstring); default: seed
        000's combinations and every single fan of the rule set.

    Returns
    -------
    pandas.DataFrame
        ``combination`` (Chinese names joined by ``" + "``),
        ``combination_en``, ``fans`` (keys, space-separated, sorted), ``size``
        (number of fans), ``points`` (their points in the rule set),
        ``source`` (``seed 000 §三``, ``fan table``, ``user``; both first
        ones when a seed combination is a single fan), ``seed_level`` (the
        连拉 level seed 000 lists it at, else missing) and ``seed_zh`` (the
        seed's wording).
    """
    rs = get_rules(rules)
    cat = fan_catalogue()
    keys = list(cat["key"])
    pts = rs.points_list
    entries = {}

    def add(ids, source, level=None, seed=""):
        fans = tuple(sorted(keys[i] for i in ids))
        e = entries.get(fans)
        if e is None:
            entries[fans] = {
                "combination": " + ".join(cat["zh"].iat[i] for i in ids),
                "combination_en": " + ".join(cat["en"].iat[i] for i in ids),
                "fans": " ".join(fans), "size": len(ids),
                "points": int(sum(pts[i] for i in ids)), "source": source,
                "seed_level": level, "seed_zh": seed,
            }
        elif source not in e["source"]:
            e["source"] += "; " + source

    if combinations is not None:
        if isinstance(combinations, str):
            combinations = [combinations]
        for item in combinations:
            add(_parse(item, rs, cat), "user")
        if not entries:
            raise HandError("combinations= is empty: give at least one fan combination "
                            "(or None for the default selection)")
    else:
        if rs.streak_points > 0:
            from ..targets import seed_rows

            for row in seed_rows():
                ids = [keys.index(k) for k in row["fans"].split()]
                if all(pts[i] > 0 for i in ids):
                    add(ids, "seed 000 §三", int(row["level"]), row["seed_zh"])
        lianla = keys.index("LIANLA")
        for i in range(rs.n_fans):
            if pts[i] > 0 and i != lianla:
                add([i], "fan table")
    df = pd.DataFrame(list(entries.values()), columns=_COLUMNS)
    df["seed_level"] = df["seed_level"].astype("Int64")
    return df


def combination_ids(table, rules="dazhong32"):
    """Catalogue rows of each combination of a :func:`study_combinations` table."""
    rs = get_rules(rules)
    return [np.asarray([rs.fan_index(k) for k in fans.split()], np.int64)
            for fans in table["fans"]]
