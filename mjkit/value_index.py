"""The value of every complete closed hand, indexed for nearest-hand queries.

:func:`value_index` gives each of the ~28 million complete closed 14-tile
patterns (every form) its value once per rule set, scored in the situation of
:data:`mjkit.exact.SITUATION` (self-drawn, East seat and round, no flowers,
the best winning tile), and keeps per pattern a small id into a table of
distinct *(counted fans, hand fans)* rows.  :func:`mjkit.distance_to` and
:func:`mjkit.targets` then find the nearest patterns worth enough without
scoring anything (see :mod:`mjkit._kernels.value_index` for the query).

Building takes well under a minute the first time a rule set is asked for
(with a progress bar): only the representatives of the patterns under
permutations of the suits, of the winds South, West and North and of the
dragons are scored (about 3.4 million, see :func:`symmetry` and the
"building" section of :mod:`mjkit._kernels.value_index`), and every other
pattern takes its representative's row.  The index (about 56 MB per rule
set) is then kept in the user cache (``$MJKIT_CACHE_DIR``, default
``~/.cache/mjkit``) and memory-mapped by later processes.  The build is
saved block by block, so an interrupted build resumes where it stopped.
A first build after installing compiles its kernels before its bar starts (a
minute or two, said once: :mod:`mjkit.first_run`), and the bar moves by each
step's cost, timed on a 2 % sample before it starts (the first half of the
representatives costs about five times the second), so its estimate of the
time left holds from its first step.
A different rule set (``RuleSet.derive``) or a change to the kernels gets
an index of its own.

Nothing read back is trusted unchecked: the index files and each build
block carry digests in a manifest written last (:mod:`mjkit._cache`), the
arrays used are the very bytes that were checked, and :class:`ValueIndex`
refuses ids outside its table, so no damaged cache can give a wrong
answer or reach a kernel; it is rebuilt with one warning.  Processes that
would build the same index take turns (a lock file beside it): the second
waits, then loads.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from . import _cache, first_run, storage
from ._cache import cache_dir
from ._kernels import complete as KC
from ._kernels import index_query as KQ
from ._kernels import value_index as KV
from ._kernels.bundles import IndexSymmetry, PatternFamilies
from .rules import get_rules
from .rules.catalogue import catalogue_columns, catalogue_lists

__all__ = ["Families", "ValueIndex", "families", "meld_families", "value_index", "INDEX_INFO"]

# The on-disk form (part of the cache key): 2 = manifest with digests, three .npy files;
# 3 = build blocks of representatives.
_VERSION = 3
_BLOCK = 400_000        # representatives per build block
_PIECE = 50_000         # representatives per step of the build's progress bar
_SAMPLE = 50            # one representative in this many is timed to weigh the steps

#: How each :func:`value_index` was obtained, by rule set name: ``source``
#: ("disk" or "built"), ``seconds``, ``folder``, and for a build ``phases``:
#: ``{step: (wall s, cpu s)}`` of its steps (CPU of every thread of the process).
INDEX_INFO: dict = {}
# The steps of the latest build_value_index of each rule set, for value_index's INDEX_INFO.
_BUILD_PHASES: dict = {}


class _Phases(dict):
    """Wall and CPU seconds per step of a build, summed over the step's runs."""

    @contextlib.contextmanager
    def __call__(self, name):
        w, c = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            a, b = self.get(name, (0.0, 0.0))
            self[name] = (a + time.perf_counter() - w, b + time.process_time() - c)


# ---------------------------------------------------------------- pattern families


class Families(PatternFamilies):
    """Complete (concealed) patterns as products of group parts plus explicit rows.

    A :class:`~mjkit._kernels.bundles.PatternFamilies` (its fields: ``classes``,
    ``class_off``, ``suit_vecs``, ``suit_ptr``, ``hon_vecs``, ``hon_ptr``,
    ``small``) with the helpers below.
    """

    __slots__ = ()

    @property
    def n(self):
        """Number of patterns: the products, then the explicit rows."""
        return int(self.class_off[-1]) + len(self.small)

    @property
    def n_tiles(self):
        """Tiles in every pattern (14, or 14 - 3 per meld for :func:`meld_families`)."""
        if len(self.classes):
            k = self.classes[0]
            return int(sum(int(self.suit_vecs[self.suit_ptr[k[g]]].sum()) for g in range(3))
                       + int(self.hon_vecs[self.hon_ptr[k[3]]].sum()))
        return int(self.small[0].sum())

    def arrays(self):
        """The families as the kernels take them: a plain ``bundles.PatternFamilies`` (one
        numba type for every caller)."""
        return PatternFamilies(*self)

    def fingerprint(self):
        h = hashlib.sha256()
        for a in self.arrays():
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:16]

    def pattern(self, i):
        """Counts (int64, 34) of pattern number ``i``."""
        out = np.zeros(34, np.int64)
        KV.pattern_at(int(i), self.arrays(), out)
        return out


def _pair_lists(n_kinds):
    """Seven-pairs parts of one group: counts 0, 2 or 4 per kind, by number of pairs 0..7."""
    lists = [[] for _ in range(8)]
    for v in itertools.product((0, 2, 4), repeat=n_kinds):
        j = sum(v) // 2
        if j <= 7:
            lists[j].append(v)
    vecs = np.array([v for lst in lists for v in sorted(lst)], np.uint8)
    ptr = np.zeros(9, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    return vecs, ptr


@functools.lru_cache(maxsize=None)
def _parts():
    sv, sp = KC.group_lists(KC.suit_sets())          # lists 0..9: 2 * sets + pair
    hv, hp = KC.group_lists(KC.honor_sets())
    psv, psp = _pair_lists(9)                        # lists 10..17: pairs
    phv, php = _pair_lists(7)
    suit_vecs = np.ascontiguousarray(np.concatenate([sv.astype(np.uint8), psv]))
    hon_vecs = np.ascontiguousarray(np.concatenate([hv.astype(np.uint8), phv]))
    suit_ptr = np.concatenate([sp, sp[-1] + psp[1:]]).astype(np.int64)
    hon_ptr = np.concatenate([hp, hp[-1] + php[1:]]).astype(np.int64)
    return suit_vecs, suit_ptr, hon_vecs, hon_ptr


def _classes(n_sets, with_pairs, suit_ptr, hon_ptr):
    rows = []
    size = []
    for ks in itertools.product(range(n_sets + 1), repeat=4):
        if sum(ks) != n_sets:
            continue
        for g in range(4):
            rows.append(tuple(2 * ks[j] + (1 if j == g else 0) for j in range(4)))
    if with_pairs:
        for js in itertools.product(range(8), repeat=4):
            if sum(js) == 7:
                rows.append(tuple(10 + j for j in js))
    keep = []
    for r in rows:
        n = 1
        for g in range(4):
            ptr = hon_ptr if g == 3 else suit_ptr
            n *= int(ptr[r[g] + 1] - ptr[r[g]])
        if n:
            keep.append(r)
            size.append(n)
    classes = np.array(keep, np.int64).reshape(-1, 4)
    off = np.zeros(len(keep) + 1, np.int64)
    off[1:] = np.cumsum(size)
    return classes, off


@functools.lru_cache(maxsize=None)
def families():
    """All complete closed 14-tile patterns: regular, seven pairs, then the other forms."""
    from .exact import small_forms

    suit_vecs, suit_ptr, hon_vecs, hon_ptr = _parts()
    classes, off = _classes(4, True, suit_ptr, hon_ptr)
    return Families(classes, off, suit_vecs, suit_ptr, hon_vecs, hon_ptr,
                    np.ascontiguousarray(small_forms()))


@functools.lru_cache(maxsize=None)
def meld_families(n_melds):
    """Concealed parts completing a hand with ``n_melds`` melds (1..4): regular, and
    with one meld also 组合龙 + pair."""
    suit_vecs, suit_ptr, hon_vecs, hon_ptr = _parts()
    classes, off = _classes(4 - n_melds, False, suit_ptr, hon_ptr)
    rows = []
    if n_melds == 1:
        from ._kernels.shapes import knitted_tile

        for k in range(6):
            for p in range(34):
                c = [0] * 34
                for i in range(9):
                    c[int(knitted_tile(k, i))] += 1
                c[p] += 2
                rows.append(c)
    small = np.array(rows, np.uint8).reshape(-1, 34)
    return Families(classes, off, suit_vecs, suit_ptr, hon_vecs, hon_ptr, small)


@functools.lru_cache(maxsize=None)
def query_layout(n_melds=0):
    """The :class:`~mjkit._kernels.index_query.QueryLayout` of :func:`families` (or of
    :func:`meld_families` with ``n_melds``)."""
    return KQ.query_layout(meld_families(n_melds) if n_melds else families())


_THREAD = threading.local()


def thread_scratch(n_melds=0):
    """This thread's :class:`~mjkit._kernels.index_query.QueryScratch` for the families of
    hands with ``n_melds`` melds (a query writes into it: one per thread)."""
    d = getattr(_THREAD, "scratch", None)
    if d is None:
        d = _THREAD.scratch = {}
    if n_melds not in d:
        d[n_melds] = KQ.query_scratch(meld_families(n_melds) if n_melds else families())
    return d[n_melds]


@functools.lru_cache(maxsize=None)
def rank_tables():
    """Lookup tables of :func:`mjkit._kernels.value_index.rank_regular` for :func:`families`.

    Returns ``(pos_s, pos_h, cls_of)``: int32 part positions by base-5 key
    (suits 5**9, honours 5**7; regular lists only) and the class of each
    quadruple of regular lists (int64 (10, 10, 10, 10), -1 none).
    """
    fam = families()
    out = []
    for vecs, ptr, n_kinds in ((fam.suit_vecs, fam.suit_ptr, 9), (fam.hon_vecs, fam.hon_ptr, 7)):
        pos = np.full(5 ** n_kinds, -1, np.int32)
        w = 5 ** np.arange(n_kinds, dtype=np.int64)
        for lst in range(10):                  # the regular lists (2 * sets + pair)
            part = vecs[ptr[lst]:ptr[lst + 1]].astype(np.int64)
            pos[part @ w] = np.arange(len(part), dtype=np.int32)
        out.append(pos)
    cls_of = np.full((10, 10, 10, 10), -1, np.int64)
    for k, (a, b, c, d) in enumerate(fam.classes.tolist()):
        if max(a, b, c, d) < 10:
            cls_of[a, b, c, d] = k
    return out[0], out[1], cls_of


# ---------------------------------------------------------------- the index


@dataclass
class ValueIndex:
    """Per complete closed pattern (numbering of :func:`families`) its value row.

    Attributes
    ----------
    rules : str
    ids : numpy.ndarray
        uint16 or uint32 per pattern: its row in the table.
    counted : numpy.ndarray
        int64 per row: counted fans (toward the bar) of the pattern, scored
        as in :data:`mjkit.exact.SITUATION`; at most 255 (higher values are
        stored as 255, which no bar reaches).
    hand_fans : numpy.ndarray
        uint64 (rows, 2): bit set of the :attr:`fan_keys` the pattern counts.
    fan_keys : list of str
        The fans of kind ``hand`` (:func:`mjkit.rules.catalogue.fan_catalogue`)
        this rule set scores; bit ``j`` of ``hand_fans`` is ``fan_keys[j]``.
    """

    rules: str
    ids: np.ndarray
    counted: np.ndarray
    hand_fans: np.ndarray
    fan_keys: list
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        # The kernels index the table by ``ids`` without bounds checks: an index
        # whose ids could point past the table is refused here, once, so that
        # none can ever reach them; the arrays are then made read-only.
        ids, counted, hand_fans = self.ids, self.counted, self.hand_fans
        if not isinstance(ids, np.ndarray) or ids.ndim != 1 or ids.dtype not in (np.uint16,
                                                                                  np.uint32):
            raise ValueError("ValueIndex.ids must be a 1-d uint16 or uint32 array")
        if (not isinstance(counted, np.ndarray) or counted.ndim != 1
                or counted.dtype != np.int64 or len(counted) == 0):
            raise ValueError("ValueIndex.counted must be a non-empty 1-d int64 array")
        if (not isinstance(hand_fans, np.ndarray) or hand_fans.dtype != np.uint64
                or hand_fans.shape != (len(counted), 2)):
            raise ValueError("ValueIndex.hand_fans must be uint64 (rows, 2)")
        if not (isinstance(self.fan_keys, list) and len(self.fan_keys) <= 128
                and all(isinstance(k, str) for k in self.fan_keys)):
            raise ValueError("ValueIndex.fan_keys must be a list of at most 128 fan keys")
        if len(ids) and int(ids.max()) >= len(counted):
            raise ValueError(f"ValueIndex.ids reach row {int(ids.max())} of a table of "
                             f"{len(counted)} rows")
        if counted.min() < 0:
            raise ValueError("ValueIndex.counted has a negative value")
        for a in (ids, counted, hand_fans):
            a.setflags(write=False)

    def __len__(self):
        return len(self.ids)

    def value(self, i):
        """Counted fans of pattern number ``i``."""
        return int(self.counted[int(self.ids[int(i)])])

    def bounds(self):
        """The index's :class:`~mjkit._kernels.index_query.ValueBounds` (the highest value
        below each prefix of parts, for the queries to skip subtrees below a bar): built
        once per process from ``ids`` and ``counted`` (under 1 s, 12 MB)."""
        vb = self._cache.get("bounds")
        if vb is None:
            fam = families()
            off1, off2, off3 = KQ.bound_offsets(fam)
            vb = KQ.ValueBounds(off1, off2, off3, *(np.zeros(int(o[-1]), np.uint8)
                                                    for o in (off1, off2, off3)))
            KQ.value_bounds(fam.arrays(), self.ids, self.counted, vb)
            for a in vb:
                a.setflags(write=False)
            self._cache["bounds"] = vb
        return vb

    def accept_codes(self, verify_from, yes_from):
        """Per row the code of a query (``index_query.ACCEPT_*``): ``ACCEPT_YES`` where
        ``counted >= yes_from``, else ``ACCEPT_VERIFY`` where ``counted >= verify_from``,
        else ``ACCEPT_NO`` (read-only, kept for the next query with the same bars)."""
        key = ("accept", int(verify_from), int(yes_from))
        codes = self._cache.get(key)
        if codes is None:
            codes = np.zeros(len(self.counted), np.int8)
            codes[self.counted >= verify_from] = KQ.ACCEPT_VERIFY
            codes[self.counted >= yes_from] = KQ.ACCEPT_YES
            codes.setflags(write=False)
            old = [k for k in self._cache if isinstance(k, tuple) and k[0] == "accept"]
            if len(old) >= 64:
                for k in old:
                    self._cache.pop(k, None)
            self._cache[key] = codes
        return codes

    def carries(self, keys):
        """Boolean per table row: every fan of ``keys`` counted."""
        mask = np.zeros(2, np.uint64)
        for k in keys:
            j = self.fan_keys.index(k)
            mask[j // 64] |= np.uint64(1) << np.uint64(j % 64)
        return ((self.hand_fans & mask) == mask).all(axis=1)


def _hand_fans(rs):
    kind = catalogue_columns()["kind"]       # plain columns: a build imports no pandas
    return [i for i in range(rs.n_fans) if kind[i] == "hand" and int(rs.points[i]) > 0]


# Kernel files left out of the cache key: they do not score or build.
_QUERY_ONLY = ("fast_play.py", "shanten.py", "game.py", "game_state.py", "index_query.py",
               "policy.py", "rng.py", "solo.py", "target_chances.py", "winprob.py")


def _index_key(rs, fam):
    """Identifies an index: kernels, rule set, situation, patterns, symmetries, version."""
    from .exact import SITUATION

    h = hashlib.sha256()
    storage.source_fingerprint(["_kernels"], exclude=_QUERY_ONLY, h=h)  # scorer and builder
    rs.digest_into(h)
    for name, a in symmetry()._asdict().items():
        h.update(name.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((sorted(SITUATION.items()), fam.fingerprint(), _BLOCK, _VERSION,
                   rs.n_fans, _hand_fans(rs))).encode())
    return h.hexdigest()[:16]


def _threads_chunks(n):
    return max(1, min(n, 16 * numba.get_num_threads()))


# ---------------------------------------------------------------- symmetries

# Winds South, West, North (kinds 1..3 of the honours) and the dragons 白 发 中
# (4..6) may be permuted; East (0) is the seat and round wind of the index.
_HON_PERMS = [(0,) + w + d for w in itertools.permutations((1, 2, 3))
              for d in itertools.permutations((4, 5, 6))]
_RANKS_RP = {0, 1, 2, 3, 4, 7, 8}      # 推不倒: 1234589 dots
_RANKS_RS = {1, 3, 4, 5, 7, 8}         # 推不倒: 245689 bamboo
_RANKS_RG = {1, 2, 3, 5, 7}            # 绿一色: 23468 bamboo


@functools.lru_cache(maxsize=None)
def symmetry():
    """The :class:`~mjkit._kernels.bundles.IndexSymmetry` of :func:`families`.

    See :mod:`mjkit._kernels.value_index` ("building") for what the index's
    representatives are and why their values are exactly those of the
    patterns they stand for.
    """
    fam = families()
    sv, sp, hv, hp = fam.suit_vecs, fam.suit_ptr, fam.hon_vecs, fam.hon_ptr
    n_s, n_h = len(sv), len(hv)
    suit_list = np.repeat(np.arange(len(sp) - 1), np.diff(sp)).astype(np.int64)
    suit_pos = (np.arange(n_s) - sp[suit_list]).astype(np.int64)
    splits = np.zeros(n_s, np.int64)
    KV.split_counts(sv, splits)
    flags = np.zeros(n_s, np.int64)
    held = sv > 0
    flags[held.any(axis=1)] |= KV.SUIT_USED
    for bit, ranks in ((KV.SUIT_RP, _RANKS_RP), (KV.SUIT_RS, _RANKS_RS),
                       (KV.SUIT_RG, _RANKS_RG)):
        outside = [r for r in range(9) if r not in ranks]
        flags[~held[:, outside].any(axis=1)] |= bit
    flags[splits >= 1] |= KV.SUIT_SPLITS
    flags[splits >= 2] |= KV.SUIT_MULTI
    flags[sv.astype(np.int64).sum(axis=1) % 3 == 2] |= KV.SUIT_PAIR
    hon_list = np.repeat(np.arange(len(hp) - 1), np.diff(hp)).astype(np.int64)
    hflags = np.zeros(n_h, np.int64)
    hflags[(hv[:, 0:4] > 0).any(axis=1)] |= KV.HON_WIND
    hflags[(hv[:, 4:7] > 0).sum(axis=1) >= 2] |= KV.HON_DRAGONS
    hflags[(hv[:, 4:7] > 0).any(axis=1)] |= KV.HON_DRAGON
    hflags[(hv[:, 0:4] >= 3).all(axis=1)] |= KV.HON_FOUR_WINDS
    size = hv.astype(np.int64).sum(axis=1)
    hflags[size % 3 == 2] |= KV.HON_PAIR
    n_pairs = (hv == 2).sum(axis=1)
    hflags[~(hv == 1).any(axis=1) & ~(hv == 4).any(axis=1)
           & (n_pairs == (size % 3 == 2))] |= KV.HON_SPLITS
    w = 5 ** np.arange(7, dtype=np.int64)
    images = np.full((n_h, KV.N_HON_PERMS), -1, np.int64)
    for lst in range(len(hp) - 1):          # a part's images stay in its list
        a, b = hp[lst], hp[lst + 1]
        where = dict(zip((hv[a:b].astype(np.int64) @ w).tolist(), range(a, b)))
        for j, perm in enumerate(_HON_PERMS):
            images[a:b, j] = [where.get(k, -1)
                              for k in (hv[a:b][:, list(perm)].astype(np.int64) @ w).tolist()]
    if (images < 0).any() or (hon_list[images] != hon_list[:, None]).any():
        raise RuntimeError("an honour part's image is not in its list")
    n_lists = len(sp) - 1
    if len(hp) - 1 != n_lists:
        raise RuntimeError("suit and honour parts have different lists")
    cls_of = np.full((n_lists,) * 4, -1, np.int64)
    for k, (a, b, c, d) in enumerate(fam.classes.tolist()):
        cls_of[a, b, c, d] = k
    return IndexSymmetry(suit_list, suit_pos, flags, hon_list, hflags,
                         np.ascontiguousarray(images), images.min(axis=1), cls_of)


@functools.lru_cache(maxsize=None)
def representatives():
    """Pattern numbers (int64, ascending) of the patterns the index scores: the
    representatives of the product families, then every explicit row."""
    fam, sym = families(), symmetry()
    arrays = fam.arrays()
    chunks = _threads_chunks(len(fam.classes))
    per_class = np.zeros(len(fam.classes), np.int64)
    KV.count_reps(arrays, sym, per_class, chunks)
    starts = np.zeros(len(per_class) + 1, np.int64)
    starts[1:] = np.cumsum(per_class)
    n_prod = int(fam.class_off[-1])
    out = np.empty(int(starts[-1]) + len(fam.small), np.int64)
    KV.list_reps(arrays, sym, starts, out, chunks)
    out[starts[-1]:] = np.arange(n_prod, fam.n)
    out.setflags(write=False)
    return out


def _rows(fam, rs, numbers, key_cols):
    """Index rows (uint64 (n, 3), ``KV.index_rows``) of the patterns ``numbers``."""
    numbers = np.array(numbers, np.int64)   # a writable copy: one numba type for every caller
    n = len(numbers)
    rows = np.empty((n, 3), np.uint64)
    if n:
        KV.index_rows(numbers, fam.arrays(), rs.kernel_rules(), np.asarray(key_cols, np.int64),
                      rows, _threads_chunks(n))
    bad = (rows[:, 0] & KV.NOT_COMPLETE) != 0
    if bad.any():
        from .exact import pattern_text

        i = int(np.argmax(bad))
        what = "is not complete" if rows[i, 0] & KV.NO_FORM else "is rejected by the scorer"
        text = pattern_text(fam.pattern(numbers[i]).astype(np.uint8))
        raise RuntimeError(f"generated pattern {text} {what}")
    return rows


def unique_rows(rows):
    """``numpy.unique(rows, axis=0, return_inverse=True)`` of index rows, in linear time.

    The distinct rows (``KV.distinct_rows``, one hashing pass) sorted as
    :func:`numpy.unique` sorts them (by column 0, then 1, then 2), and per row
    its position among them (int64).
    """
    n = len(rows)
    hashes = np.empty(n, np.uint64)
    KC.row_hashes(rows.view(np.int64), hashes)
    first = np.empty(n, np.int64)
    inv = np.empty(n, np.int64)
    m = KV.distinct_rows(rows, hashes, first, inv)
    distinct = rows[first[:m]]
    order = np.lexsort((distinct[:, 2], distinct[:, 1], distinct[:, 0]))
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m)
    return distinct[order], rank[inv]


def _pieces(lo, hi):
    """The progress steps ``(a, b)`` of representatives ``lo .. hi - 1``."""
    return [(a, min(hi, a + _PIECE)) for a in range(lo, hi, _PIECE)]


def _score_block(fam, rs, lo, hi, key_cols):
    """Representatives ``lo .. hi - 1`` scored: ``(distinct rows, row of each)``.

    Scored in steps of :data:`_PIECE` (the rows are the same), each reported to the
    build's progress bar (``_BUILDING.step(a, b)``) when one is running.
    """
    reps = representatives()
    step = getattr(_BUILDING, "step", None)
    rows = np.empty((hi - lo, 3), np.uint64)
    for a, b in _pieces(lo, hi):
        rows[a - lo:b - lo] = _rows(fam, rs, reps[a:b], key_cols)
        if step is not None:
            step(a, b)
    table, inv = unique_rows(rows)
    return table, inv.astype(np.uint32)


# The running build's progress callback (set by build_value_index for _score_block).
_BUILDING = threading.local()


def _warm_up(fam, rs, key_cols, progress):
    """Compile (or load from numba's cache) the kernels that score the blocks, with
    :mod:`mjkit.first_run`'s note and bar when some must compile: the build's own
    progress bar then times only the scoring (a cold first block used to hold
    a minute of compiling, and the first estimate read ten times the real time)."""
    nums = np.array(representatives()[:4], np.int64)
    rows = np.empty((len(nums), 3), np.uint64)
    hashes = np.empty(len(nums), np.uint64)
    first = np.empty(len(nums), np.int64)
    inv = np.empty(len(nums), np.int64)
    first_run.warm_up("value index", [
        (KV.index_rows, (nums, fam.arrays(), rs.kernel_rules(), np.asarray(key_cols, np.int64),
                         rows, _threads_chunks(len(nums)))),
        (KC.row_hashes, (rows.view(np.int64), hashes)),
        (KV.distinct_rows, (rows, hashes, first, inv)),
    ], progress=progress)


def _median3(x):
    """Each value replaced by the median of it and its two neighbours (an end's
    missing neighbour is its other one: one slow end is smoothed too)."""
    x = np.asarray(x, np.float64)
    if len(x) < 3:
        return x.copy()
    p = np.pad(x, 1, mode="reflect")
    return np.median(np.stack([p[:-2], p[1:-1], p[2:]]), axis=0)


def piece_costs(sample_seconds, sizes):
    """The progress bar's weight of each step from the timed samples of the steps.

    A step's weight is its sample's seconds per representative (:data:`_SAMPLE`),
    smoothed by the median of its neighbours' (a sample takes milliseconds: one
    slowed down by another process must not weigh its step double; the
    representatives run by class, so a step costs about what its neighbours do),
    floored at a tenth of the mean (a step is never free), times its size; the
    weights are whole numbers adding up to the representatives (the bar's total is
    that of a count).  Samples that cannot be read (none, a wrong length, not
    finite, all zero) give the sizes themselves.

    Parameters
    ----------
    sample_seconds : sequence of float
        Per step, in order of the representatives.
    sizes : sequence of int
        Representatives per step.

    Returns
    -------
    numpy.ndarray
        int64 weights, one per step, summing to ``sum(sizes)``.
    """
    sizes = np.asarray(sizes, np.int64)
    n = int(sizes.sum())
    t = np.asarray(sample_seconds, np.float64)
    if (len(sizes) == 0 or n <= 0 or t.shape != sizes.shape or not np.isfinite(t).all()
            or t.sum() <= 0):
        return sizes.copy()
    per = _median3(np.maximum(t, 0) / np.maximum(sizes, 1))
    per = np.maximum(per, 0.1 * per.mean())
    cum = np.cumsum(per * sizes)
    # whole numbers by rounding the running sum: they add up to n exactly
    ends = np.rint(cum * (n / cum[-1])).astype(np.int64)
    return np.diff(np.concatenate([[0], ends]))


def _sample_costs(fam, rs, key_cols, pieces):
    """Seconds of scoring one representative in :data:`_SAMPLE` of each step, on the
    threads as the build does (about 2 % of the work; on an idle machine the
    samples' running share of the total is within 4 % of the build's)."""
    reps = representatives()
    arrays, rules = fam.arrays(), rs.kernel_rules()
    kc = np.asarray(key_cols, np.int64)
    out = []
    for j, (a, b) in enumerate(pieces):
        nums = np.array(reps[a:b:_SAMPLE], np.int64)
        rows = np.empty((len(nums), 3), np.uint64)
        # the first call also starts the threads and touches the tables: not timed
        for _ in range(2 if j == 0 else 1):
            t = time.perf_counter()
            KV.index_rows(nums, arrays, rules, kc, rows, _threads_chunks(len(nums)))
        out.append(time.perf_counter() - t)
    return out


def _block_names(b):
    return f"block-{b:04d}.manifest.json", f"block-{b:04d}.npz"


def _write_block(folder, b, part):
    manifest, data = _block_names(b)
    try:
        # another process building the same index without the lock (an unlockable
        # folder) may have finished and removed the blocks folder: write it again
        _cache.write_set(folder / manifest, {data: _cache.npz_writer(
            {"table": part[0], "inv": part[1]})}, {"block": b, "n": len(part[1])})
    except OSError:
        pass      # not kept: an interrupted build scores this block again


def _read_block(folder, b, n, n_keys):
    """A finished block ``(table, inv)`` if intact and of the right form, else None."""
    manifest, data = _block_names(b)
    found = _cache.read_set(folder / manifest, [data])
    if found is None:
        return None
    try:
        z = _cache.npz_arrays(found[1][data])
        table, inv = z["table"], z["inv"]
        if (found[0] != {"block": b, "n": n} or table.dtype != np.uint64 or table.ndim != 2
                or table.shape[1] != 3 or len(table) == 0 or inv.dtype != np.uint32
                or inv.shape != (n,) or int(inv.max()) >= len(table)):
            raise ValueError("unexpected arrays")
    except Exception as exc:      # noqa: BLE001 - damage of any kind: score it again
        _cache.warn_damaged(folder / data, exc)
        return None
    return table, inv


def _tied_images(fam, tied):
    """The images (other than themselves) of representatives whose value is tied."""
    arrays, sym = fam.arrays(), symmetry()
    out = np.empty(6 * KV.N_HON_PERMS, np.int64)
    found = []
    for r in tied.tolist():
        m = KV.orbit(r, arrays, sym, out)
        found.append(out[:m].copy())
    if not found:
        return np.zeros(0, np.int64)
    images = np.unique(np.concatenate(found))
    return images[~np.isin(images, tied)]


def build_value_index(rules="dazhong32", *, folder=None, progress=None):
    """Score the representatives of every complete closed pattern and build the index.

    Only the representatives (:func:`representatives`, about 3.4 million of the
    28 million patterns) are scored, in blocks; every other pattern takes its
    representative's row, except the images of a representative whose best
    winning tile is tied (those are scored one by one).  The rows, their order
    and the ids are exactly those of scoring every pattern.

    ``folder``: where finished blocks are kept while building (an interrupted
    build resumes from them); a temporary folder if None.  The wall and CPU
    seconds of the steps go to ``INDEX_INFO[name]["phases"]`` when
    :func:`value_index` builds.
    """
    # progress=False: no note of compiling kernels either
    with first_run.family("value index"), first_run.quiet(progress is False):
        return _build(get_rules(rules), folder, progress)


def _build(rs, folder, progress):
    phase = _Phases()
    _BUILD_PHASES[rs.name] = phase
    with phase("families and symmetry"):
        fam = families()
        symmetry()
    key_cols = _hand_fans(rs)
    if len(key_cols) > 128:
        raise RuntimeError("more than 128 hand fans")
    own_tmp = folder is None
    folder = Path(tempfile.mkdtemp(prefix="mjkit-index-")) if own_tmp else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    from tqdm.auto import tqdm

    with phase("representatives"):
        reps = representatives()
    n_reps = len(reps)
    blocks = [(b, lo, min(n_reps, lo + _BLOCK)) for b, lo in enumerate(range(0, n_reps, _BLOCK))]
    parts = {}
    try:
        # blocks finished by an interrupted build first: the bar then times only new work
        with phase("read blocks"):
            for b, lo, hi in blocks:
                part = _read_block(folder, b, hi - lo, len(key_cols))
                if part is not None:
                    parts[b] = part
        todo = [blk for blk in blocks if blk[0] not in parts]
        pieces = [p for _, lo, hi in todo for p in _pieces(lo, hi)]
        sizes = [b - a for a, b in pieces]
        shown = progress is not False and bool(todo)
        if shown:
            with phase("warm up"):
                _warm_up(fam, rs, key_cols, progress)
            with phase("weigh steps"):
                weights = piece_costs(_sample_costs(fam, rs, key_cols, pieces), sizes)
        else:
            weights = np.asarray(sizes, np.int64)
        weight = dict(zip(pieces, weights.tolist()))
        done = [n_reps - sum(sizes)]
        credited = set()

        # The bar's total is the estimated cost of the steps to score (in representatives
        # of average cost), so its estimate of the time left holds from the first step:
        # the first half of the representatives costs about five times the second.
        with tqdm(total=sum(sizes), desc=f"value index {rs.name} (once)",
                  disable=not shown,
                  bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]") as bar:
            def step(a, b):
                if (a, b) in credited:
                    return
                credited.add((a, b))
                done[0] += b - a
                bar.set_postfix_str(f"{done[0] / 1e6:.2f}M/{n_reps / 1e6:.2f}M hands",
                                    refresh=False)
                bar.update(weight.get((a, b), 0))

            bar.set_postfix_str(f"{done[0] / 1e6:.2f}M/{n_reps / 1e6:.2f}M hands", refresh=False)
            for b, lo, hi in todo:
                _BUILDING.step = step
                try:
                    with phase("score blocks"):
                        part = _score_block(fam, rs, lo, hi, key_cols)
                finally:
                    _BUILDING.step = None
                with phase("write blocks"):
                    _write_block(folder, b, part)
                parts[b] = part
                for a, z in _pieces(lo, hi):     # steps a stand-in scorer did not report
                    step(a, z)
    finally:
        if own_tmp:
            shutil.rmtree(folder, ignore_errors=True)
    tables = [parts[b][0] for b, _, _ in blocks]
    invs = [parts[b][1] for b, _, _ in blocks]
    with phase("tied images"):
        block_rows = np.concatenate(tables)
        rep_tied = np.concatenate([(t[:, 0] & KV.TIED)[i] != 0 for t, i in zip(tables, invs)])
        block_rows[:, 0] &= ~KV.TIED
        images = _tied_images(fam, reps[rep_tied])
        image_rows = _rows(fam, rs, images, key_cols)
        image_rows[:, 0] &= ~KV.TIED
    with phase("table and ids"):
        table, inv = unique_rows(np.concatenate([block_rows, image_rows]))
        ids = np.zeros(fam.n, np.uint16 if len(table) <= 65535 else np.uint32)
        start = 0
        pos = 0
        for t, i in zip(tables, invs):
            ids[reps[pos:pos + len(i)]] = inv[start:start + len(t)][i]
            start += len(t)
            pos += len(i)
    with phase("expand ids"):
        KV.expand_ids(fam.arrays(), symmetry(), ids, _threads_chunks(len(fam.classes)))
    ids[images] = inv[start:]
    return ValueIndex(rules=rs.name, ids=ids, counted=table[:, 0].astype(np.int64),
                      hand_fans=np.ascontiguousarray(table[:, 1:]), fan_keys=_fan_keys(rs))


_lock = threading.Lock()


def _names(key):
    return {"ids": f"{key}-ids.npy", "counted": f"{key}-counted.npy",
            "hand_fans": f"{key}-hand_fans.npy"}


def _fan_keys(rs):
    keys = catalogue_lists().key
    return [keys[i] for i in _hand_fans(rs)]


def _load(folder, key, rs, fam):
    """The cached :class:`ValueIndex` if intact, else None (a warning if damaged).

    Intact: the manifest ``{key}.manifest.json`` is whole, every file matches
    its digest (checked on the memory-mapped bytes the arrays then view),
    the manifest describes this very index (key, pattern count, fan keys),
    and :class:`ValueIndex` accepts the arrays (types, shapes, every id
    inside the table).
    """
    names = _names(key)
    found = _cache.read_set(folder / f"{key}.manifest.json", names.values())
    if found is None:
        return None
    meta, files = found
    at = folder / f"{key}.manifest.json"
    try:
        expected = {"key": key, "n": fam.n, "rules": rs.name, "fan_keys": _fan_keys(rs)}
        if not isinstance(meta, dict) or {k: meta.get(k) for k in expected} != expected:
            raise ValueError("the manifest describes another index")
        arrays = {}
        for name, file in names.items():
            at = folder / file
            arrays[name] = _cache.npy_array(files[file])
        if len(arrays["ids"]) != fam.n:
            raise ValueError(f"{len(arrays['ids'])} ids for {fam.n} patterns")
        return ValueIndex(rs.name, arrays["ids"], arrays["counted"], arrays["hand_fans"],
                          list(meta["fan_keys"]))
    except Exception as exc:        # noqa: BLE001 - any failure to read is damage
        _cache.warn_damaged(at, f"{exc.__class__.__name__}: {exc}")
        return None


def _save(folder, key, idx):
    """Write the index's arrays, then its manifest (digests, key, fan keys) last."""
    names = _names(key)
    _cache.write_set(folder / f"{key}.manifest.json",
                     {names[k]: _cache.npy_writer(getattr(idx, k)) for k in names},
                     {"key": key, "n": len(idx.ids), "rows": len(idx.counted),
                      "rules": idx.rules, "fan_keys": list(idx.fan_keys)})


# (id(rs), id(fam)) -> (rs, fam, key): every query asks for the key, and hashing the
# sources and tables took milliseconds; the objects are held so their ids stay theirs.
# The kernels a process has loaded do not change, so neither does its key.
_KEYS: dict = {}


def _key(rs, fam):
    hit = _KEYS.get((id(rs), id(fam)))
    if hit is not None:
        return hit[2]
    key = f"v{_VERSION}-{rs.name}-{_index_key(rs, fam)}"
    _KEYS[(id(rs), id(fam))] = (rs, fam, key)
    return key


def index_available(rules="dazhong32"):
    """Whether the value index of a rule set is in memory or on disk (nothing is built).

    Interactive callers (the widgets) use it to offer ``distance_to`` only when a
    query takes milliseconds, not the minutes of a first build.  On disk means
    a manifest that reads back intact; the digests are checked when loading
    (a damaged index is then rebuilt).
    """
    rs = get_rules(rules)
    key = _key(rs, families())
    if key in _MEMO:
        return True
    base = cache_dir()
    return (base is not None
            and storage.read_manifest(base / "value_index" / f"{key}.manifest.json") is not None)


@first_run.family("value index")
def value_index(rules="dazhong32", *, progress=None):
    """The :class:`ValueIndex` of a rule set: from memory, the disk cache, or built.

    A cached index is used only when it passes every check of its manifest
    (otherwise one :class:`mjkit._cache.CacheWarning` line, and it is built
    again).  Processes building the same index take turns through a lock
    file beside it: the second waits, then loads what the first saved.

    Parameters
    ----------
    rules : str or RuleSet
    progress : bool, optional
        Progress bar while building (default: yes).
    """
    w, c = time.perf_counter(), time.process_time()
    with first_run.quiet(progress is False):
        rs = get_rules(rules)
        fam = families()
        key = _key(rs, fam)
    key_s = (time.perf_counter() - w, time.process_time() - c)
    with _lock:
        found = _MEMO.get(key)
        if found is not None:
            return found
        t = time.perf_counter()
        base = cache_dir()
        folder = None if base is None else base / "value_index"
        if folder is None:
            lock = contextlib.nullcontext(False)
        else:
            lock = _building_lock(folder / f"{key}.lock", rs.name, progress)
        with lock:
            idx = None if folder is None else _load(folder, key, rs, fam)
            if idx is not None:
                INDEX_INFO[rs.name] = {"source": "disk", "folder": str(folder),
                                       "seconds": time.perf_counter() - t}
            else:
                w, c = time.perf_counter(), time.process_time()
                idx, saved, phases = _build_and_save(rs, fam, folder, key, progress)
                spent = (time.perf_counter() - w, time.process_time() - c)
                phases = {"cache key, families": key_s, **phases, "other": tuple(
                    a - sum(p[j] for p in phases.values()) for j, a in enumerate(spent))}
                INDEX_INFO[rs.name] = {"source": "built", "folder": str(folder) if saved else None,
                                       "seconds": time.perf_counter() - t, "phases": phases}
        _MEMO[key] = idx
        return idx


def _building_lock(path, name, progress):
    """The lock file of one index; says so (on stderr, like the progress bar) when waiting."""
    def waiting():
        if progress is not False:
            print(f"value index {name}: another process is building it; waiting for it",
                  file=sys.stderr, flush=True)

    return storage.file_lock(path, on_wait=waiting)


def _build_and_save(rs, fam, folder, key, progress):
    """Build the index (resuming from its blocks) and save it; ``(index, saved, phases)``
    with the build's steps (:class:`_Phases`; none from a stand-in builder) and the save."""
    blocks = None
    if folder is not None:
        try:
            blocks = folder / f"{key}-blocks"
            blocks.mkdir(parents=True, exist_ok=True)
        except OSError:
            blocks = None
    _BUILD_PHASES.pop(rs.name, None)
    idx = build_value_index(rs, folder=blocks, progress=progress)
    phase = _BUILD_PHASES.pop(rs.name, None) or _Phases()
    if blocks is None:
        return idx, False, phase
    try:
        with phase("save"):
            _save(folder, key, idx)
    except OSError:
        return idx, False, phase
    shutil.rmtree(blocks, ignore_errors=True)
    return idx, True, phase


_MEMO: dict = {}
