"""Lookup tables the kernels take as arguments (built once per process)."""

import functools

from .shapes import build_suit_table


@functools.lru_cache(maxsize=None)
def suit_table():
    """Split flags of every one-suit pattern (see ``shapes.build_suit_table``)."""
    table = build_suit_table()
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=None)
def wild_table():
    """(sets, pair) options of every one-group pattern, for ``wild.wild_completions``.

    uint16, ``wild.WILD_TABLE_LEN`` entries (about 4 MB), derived from
    ``suit_table()``; see ``wild.build_wild_table``.
    """
    from .wild import build_wild_table

    table = build_wild_table(suit_table())
    table.setflags(write=False)
    return table
