"""Lookup tables the kernels take as arguments (built once per process)."""

import functools

from .shapes import build_suit_table


@functools.lru_cache(maxsize=None)
def suit_table():
    """Split flags of every one-suit pattern (see ``shapes.build_suit_table``)."""
    table = build_suit_table()
    table.setflags(write=False)
    return table
