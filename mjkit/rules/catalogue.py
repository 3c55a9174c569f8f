"""The fan catalogue, ``data/fans.csv``: one row per fan, read once."""

import csv
import functools
from types import SimpleNamespace

from ..locations import data_file


@functools.lru_cache(maxsize=None)
def _rows():
    with open(data_file("fans.csv"), newline="", encoding="utf-8") as f:
        return tuple(csv.DictReader(f))


@functools.lru_cache(maxsize=None)
def catalogue_lists():
    """The catalogue as plain tuples (fast access for result building)."""
    rows = _rows()
    return SimpleNamespace(
        id=tuple(int(r["id"]) for r in rows),
        key=tuple(r["key"] for r in rows),
        zh=tuple(r["zh"] for r in rows),
        en=tuple(r["en"] for r in rows),
        description=tuple(r["description"] for r in rows),
    )


@functools.lru_cache(maxsize=None)
def catalogue_columns():
    """The catalogue's columns as they are in ``data/fans.csv``: ``{name: tuple of str}``.

    What the rule sets are built from, without pandas (scoring never imports
    it; :func:`fan_catalogue` does, on first use).
    """
    rows = _rows()
    return {name: tuple(r[name] for r in rows) for name in rows[0]}


@functools.lru_cache(maxsize=None)
def _frame():
    import pandas as pd  # lazily: only the DataFrame view needs it

    df = pd.DataFrame(list(_rows()))
    df["id"] = df["id"].astype(int)
    for col in df.columns:
        if col.startswith("points_"):
            df[col] = pd.to_numeric(df[col].replace("", "0")).astype(int)
    return df


def fan_catalogue():
    """The fan catalogue as a DataFrame.

    Returns
    -------
    pandas.DataFrame
        One row per fan: ``id`` (1-based, stable), ``key``, ``zh``, ``en``,
        ``points_<rules>`` for each rule set defined in the file,
        ``after_minimum`` (1: scored after the minimum, not toward the bar),
        ``kind`` (``hand``: decided by the tiles and melds; ``win``: by how
        the hand was won; ``first_turn``; ``flowers``; ``game``: 连拉 and
        无财神), ``excludes``, ``excludes_dazhong`` / ``excludes_dazhong32``
        (what that rule set excludes on top of ``excludes``)
        and ``excludes_own`` (space-separated keys; *own* means only for the
        sets that make up the fan) and a one-line ``description``.  A fresh
        copy each call.
    """
    return _frame().copy()
