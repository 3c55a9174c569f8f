"""The fan catalogue, ``data/fans.csv``: one row per fan, read once."""

import csv
import functools
from importlib import resources
from pathlib import Path

import pandas as pd


def _data_path():
    # Installed: mjkit/data/fans.csv (package data); from a checkout: ../data.
    here = Path(__file__).resolve().parent.parent
    for p in (here / "data" / "fans.csv", here.parent / "data" / "fans.csv"):
        if p.exists():
            return p
    return Path(str(resources.files("mjkit") / "data" / "fans.csv"))


@functools.lru_cache(maxsize=None)
def _rows():
    with open(_data_path(), newline="", encoding="utf-8") as f:
        return tuple(csv.DictReader(f))


def fan_catalogue():
    """The fan catalogue as a DataFrame.

    Returns
    -------
    pandas.DataFrame
        One row per fan: ``id`` (1-based, stable), ``key``, ``zh``, ``en``,
        ``points_<rules>`` for each rule set defined in the file, ``excludes``
        and ``excludes_own`` (space-separated keys; *own* means only for the
        sets that make up the fan) and a one-line ``description``.
    """
    df = pd.DataFrame(list(_rows()))
    df["id"] = df["id"].astype(int)
    for col in df.columns:
        if col.startswith("points_"):
            df[col] = pd.to_numeric(df[col].replace("", "0")).astype(int)
    return df
