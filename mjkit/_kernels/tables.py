"""Lookup tables the kernels take as arguments (built once, cached on disk).

Both tables are pure functions of the rules of a suit, so they are built with
numpy (no kernel to compile) the first time and kept in the user cache as a
verified file set (:mod:`mjkit._cache`); later processes map the files and
check their digests instead of building.  ``shapes.build_suit_table`` and
``wild.build_wild_table`` are the kernel definitions the numpy builders are
tested against (``tests/test_evaluator_paths.py``).
"""

import functools
import time

import numpy as np

from .shapes import N_SUIT_KEYS
from .wild import HONOR_OFFSET, WILD_TABLE_LEN

#: Bump when a builder's output changes: caches of another version are ignored.
TABLE_VERSION = 1

#: How the tables were obtained in this process: ``{"source": "disk" | "built", "seconds": s}``.
TABLE_INFO = {}


def _grow(keys, pow5, n_digits, pairs):
    """Every pattern one set (or, with ``pairs``, one pair) larger than one of ``keys``
    with no count above 4, as a sorted array of keys."""
    digit = [(keys // pow5[r]) % 5 for r in range(n_digits)]
    out = []
    for r in range(n_digits):
        if pairs:
            out.append(keys[digit[r] <= 2] + 2 * pow5[r])
            continue
        out.append(keys[digit[r] <= 1] + 3 * pow5[r])              # a pung
        if r + 2 < n_digits:                                       # a chow
            ok = (digit[r] < 4) & (digit[r + 1] < 4) & (digit[r + 2] < 4)
            out.append(keys[ok] + pow5[r] + pow5[r + 1] + pow5[r + 2])
    return np.unique(np.concatenate(out))


def build_suit_table_np():
    """``shapes.build_suit_table`` with numpy: bit 0 splits into sets, bit 1 into sets and a pair.

    The patterns that split are grown from the empty one a set at a time
    (a few thousand per layer) rather than tested one key at a time.
    """
    pow5 = 5 ** np.arange(9, dtype=np.int64)
    layer = np.zeros(1, np.int64)
    complete = [layer]
    while layer.size:
        layer = _grow(layer, pow5, 9, False)
        complete.append(layer)
    sets = np.unique(np.concatenate(complete))
    table = np.zeros(N_SUIT_KEYS, np.uint8)
    table[sets] = 1
    table[_grow(sets, pow5, 9, True)] = 2
    return table


def _digit_sum(n_digits):
    """Tiles in every pattern, as an array of shape (5,) * n_digits (C order = key order)."""
    total = np.zeros((5,) * n_digits, np.int64)
    for axis in range(n_digits):
        shape = [1] * n_digits
        shape[axis] = 5
        total += np.arange(5).reshape(shape)
    return total


def _close_downward(block):
    """``wild._close_downward`` on a (5,) * n array: each pattern ORs in the bits of
    every larger pattern, a suffix OR along each digit in turn."""
    for axis in range(block.ndim):
        view = np.moveaxis(block, axis, 0)
        for i in range(3, -1, -1):
            view[i] |= view[i + 1]


def build_wild_table_np(suit_flags):
    """``wild.build_wild_table`` with numpy (same bits; see its docstring).

    Keys are base-5 numbers, so a table reshaped to (5,) * digits holds each
    pattern at its digits (highest rank first): the closure over larger
    patterns is then a suffix OR along every axis.
    """
    table = np.zeros(WILD_TABLE_LEN, np.uint16)
    n = _digit_sum(9).ravel()
    s = n // 3
    small = s <= 4
    suits = table[:N_SUIT_KEYS]
    sets = small & (n % 3 == 0) & ((suit_flags & 1) != 0)
    suits[sets] = (1 << s[sets]).astype(np.uint16)
    pair = small & (n % 3 == 2) & ((suit_flags & 2) != 0)
    suits[pair] = (1 << (5 + s[pair])).astype(np.uint16)
    # Honours: each kind absent, a pung or the one pair.
    shape = (5,) * 7
    pungs = np.zeros(shape, np.int64)
    pairs = np.zeros(shape, np.int64)
    ok = np.ones(shape, bool)
    for axis in range(7):
        d = np.arange(5).reshape([5 if i == axis else 1 for i in range(7)])
        pungs = pungs + (d == 3)
        pairs = pairs + (d == 2)
        ok = ok & ((d == 0) | (d == 2) | (d == 3))
    ok &= (pairs <= 1) & (pungs <= 4)
    honors = table[HONOR_OFFSET:].reshape(shape)
    honors[ok] = (1 << (pungs[ok] + 5 * pairs[ok])).astype(np.uint16)
    _close_downward(suits.reshape((5,) * 9))
    _close_downward(honors)
    return table


_STEM = f"eval_tables_v{TABLE_VERSION}"
_NAMES = {"suit": f"{_STEM}_suit.npy", "wild": f"{_STEM}_wild.npy"}
_SPECS = {"suit": ((N_SUIT_KEYS,), np.uint8), "wild": ((WILD_TABLE_LEN,), np.uint16)}


def _load(manifest):
    from .. import _cache

    found = _cache.read_set(manifest, _NAMES.values())
    if found is None:
        return None
    meta, files = found
    out = {}
    for name, fname in _NAMES.items():
        try:
            a = _cache.npy_array(files[fname])
            shape, dtype = _SPECS[name]
            if a.shape != shape or a.dtype != dtype or meta.get("version") != TABLE_VERSION:
                raise ValueError(f"{a.shape} {a.dtype}, expected {shape} {np.dtype(dtype)}")
        except Exception as exc:     # noqa: BLE001 - anything unexpected is damage
            _cache.warn_damaged(manifest.parent / fname, exc)
            return None
        out[name] = a
    return out


@functools.lru_cache(maxsize=None)
def _tables():
    from .. import _cache

    t = time.perf_counter()
    folder = _cache.cache_dir()
    manifest = None if folder is None else folder / f"{_STEM}.manifest.json"
    found = None if manifest is None else _load(manifest)
    if found is not None:
        TABLE_INFO.update(source="disk", seconds=time.perf_counter() - t)
        return found
    suit = build_suit_table_np()
    wild = build_wild_table_np(suit)
    for a in (suit, wild):
        a.setflags(write=False)
    if manifest is not None:
        try:
            _cache.write_set(manifest, {_NAMES["suit"]: _cache.npy_writer(suit),
                                        _NAMES["wild"]: _cache.npy_writer(wild)},
                             {"version": TABLE_VERSION})
        except OSError:
            pass     # no writable cache: the tables live in memory only
    TABLE_INFO.update(source="built", seconds=time.perf_counter() - t)
    return {"suit": suit, "wild": wild}


@functools.lru_cache(maxsize=None)
def suit_table():
    """Split flags of every one-suit pattern (see ``shapes.build_suit_table``), read-only."""
    return _tables()["suit"]


@functools.lru_cache(maxsize=None)
def wild_table():
    """(sets, pair) options of every one-group pattern, for ``wild.wild_completions``.

    uint16, ``wild.WILD_TABLE_LEN`` entries (about 4 MB), derived from
    ``suit_table()``; see ``wild.build_wild_table``.  Read-only.
    """
    return _tables()["wild"]
