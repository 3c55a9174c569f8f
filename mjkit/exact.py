"""Exact counts of complete hands and the exact distribution of their fans.

Every complete 14-tile hand, as tile counts (a *pattern*: 34 counts, each at
most 4), is enumerated per form, weighted by the number of physical tile
combinations it stands for, and scored with mjkit's evaluator:

* :func:`complete_hands`: patterns and combinations per form and overall,
  and the exact probability that 14 random tiles of the 136 (no flowers)
  form a complete hand;
* :func:`fan_distribution`: for one rule set, the exact distribution of the
  fans of every complete closed hand in a stated situation (:data:`SITUATION`:
  self-drawn, East round, East seat, no flowers, the best winning tile), the
  fraction reaching 8, 16, 24 and 32 fans and the fan combinations that
  carry them.

Both read tables shipped in ``data/exact/`` (instant); ``recompute=True``
rebuilds them from scratch (the enumeration takes seconds, scoring one rule
set a few minutes on two cores).  ``python -m mjkit.exact`` recomputes
everything and rewrites the CSV files; scoring is saved block by block, so
an interrupted run resumes where it stopped.

Forms (a pattern can be complete in several; "overall" counts it once):

``regular``
    four sets (pungs or chows) and a pair;
``seven_pairs``
    as :func:`mjkit._kernels.shapes.seven_pairs_kind` reads it: four of a
    kind counts as two pairs;
``thirteen_orphans``
    十三幺;
``honors_knitted``
    全不靠 / 七星不靠: fourteen distinct tiles, the suited ones from one
    knitted sequence;
``knitted_straight``
    组合龙 (147, 258, 369 in three suits) with one set and a pair.

A pattern with counts ``c`` stands for ``prod(C(4, c[t]))`` of the
``C(136, 14)`` equally likely 14-tile subsets of the wall.

Examples
--------
>>> from mjkit import exact
>>> t = exact.complete_hands()
>>> int(t.loc["thirteen_orphans", "patterns"])
13
>>> d = exact.fan_distribution("dazhong32")
>>> list(d.thresholds["threshold"])
[8, 16, 24, 32]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from . import _cache, storage
from ._cache import cache_dir
from ._kernels import complete as K
from ._kernels.shapes import knitted_tile
from .locations import data_file
from .rules import get_rules
from .rules.catalogue import catalogue_lists
from .hand import hand_text
from .tiles import tiles_of_counts

__all__ = [
    "ALL_HANDS", "FORMS", "RULES", "SITUATION", "THRESHOLDS", "BestScores", "FanDistribution",
    "Patterns", "best_scores", "complete_hands", "enumerate_patterns", "fan_distribution",
    "compute", "main",
]

#: Number of distinct 14-tile subsets of the 136 tiles (no flowers): C(136, 14).
ALL_HANDS = math.comb(136, 14)

#: The forms, in table order.
FORMS = ("regular", "seven_pairs", "thirteen_orphans", "honors_knitted", "knitted_straight")
_FORM_BITS = dict(zip(FORMS, (K.REGULAR, K.SEVEN_PAIRS, K.THIRTEEN_ORPHANS, K.HONORS_KNITTED,
                              K.KNITTED_STRAIGHT)))
_FORM_ZH = {"regular": "基本和型 (4 sets + pair)", "seven_pairs": "七对",
            "thirteen_orphans": "十三幺", "honors_knitted": "全不靠 / 七星不靠",
            "knitted_straight": "组合龙 + set + pair", "overall": "any form"}

#: Rule sets scored by :func:`compute` and shipped in ``data/exact/``.
RULES = ("gb", "dazhong", "dazhong32")

#: Fan totals whose reach is tabulated.
THRESHOLDS = (8, 16, 24, 32)

#: Fan combinations listed per rule set, threshold and weighting.
TOP = 20

#: The situation every complete hand is scored in.  Closed (no melds, so no
#: kongs), self-drawn, seat and round wind East, no flowers, no wild tile,
#: 连拉 level 0, ``wait_rule="unique"``; of the tile kinds in the hand, the
#: winning tile is the one giving the most fans toward the bar (the lowest
#: tile index on ties).  Nothing is the last copy, a kong replacement or the
#: last tile of the wall.
SITUATION = {"self_drawn": True, "seat_wind": "E", "round_wind": "E", "melds": "none",
             "flowers": 0, "wild": None, "lianla": 0, "wait_rule": "unique",
             "win_tile": "best (most counted fans; lowest tile index on ties)"}

_BINOM4 = np.array([math.comb(4, k) for k in range(5)], np.int64)
_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_BLOCK = 500_000
_FILES = {"hands": "complete_hands.csv", "totals": "fan_totals.csv",
          "thresholds": "fan_thresholds.csv", "combinations": "fan_combinations.csv",
          "fans": "fan_frequencies.csv"}


def _threads_chunks(n):
    # A few chunks per thread keep both cores busy when chunk costs differ.
    return max(1, min(n, 16 * numba.get_num_threads()))


def _bar(progress, **kw):
    if progress is None:
        progress = True
    from tqdm.auto import tqdm

    return tqdm(disable=not progress, **kw)


# ---------------------------------------------------------------- patterns


@dataclass
class Patterns:
    """Every complete 14-tile pattern, each once.

    Attributes
    ----------
    counts : numpy.ndarray
        uint8, (n, 34): tile counts (indices as in :mod:`mjkit.tiles`).
    forms : numpy.ndarray
        uint8, (n,): bit set of the forms the pattern is complete in (bit
        ``i`` is ``FORMS[i]``).
    combinations : numpy.ndarray
        int64, (n,): physical tile combinations, ``prod(C(4, counts))``.

    Notes
    -----
    Order: the regular patterns (by sets per group, then group patterns),
    then the seven-pairs patterns that are not regular, then the other forms
    not already listed.  The order is fixed, so block ``b`` of a scoring run
    always holds the same patterns.
    """

    counts: np.ndarray
    forms: np.ndarray
    combinations: np.ndarray

    def __len__(self):
        return len(self.counts)

    def fingerprint(self):
        """A hash of the counts: blocks saved for resuming belong to these patterns."""
        fp = self.__dict__.get("_fingerprint")
        if fp is None:
            fp = hashlib.blake2b(np.ascontiguousarray(self.counts).data, digest_size=16)
            fp = self.__dict__["_fingerprint"] = fp.hexdigest()
        return fp

    def has_form(self, form):
        """Boolean mask of the patterns complete in ``form`` (a name of :data:`FORMS`)."""
        return (self.forms & _FORM_BITS[form]) != 0

    def text(self, i, win_tile=None):
        """Notation of pattern ``i`` with ``win_tile`` (default: its lowest tile) last."""
        return pattern_text(self.counts[i], win_tile)


def pattern_text(counts, win_tile=None):
    """Notation of a 34-count pattern, the winning tile (default: lowest) written last."""
    tiles = tiles_of_counts(counts)
    return hand_text(tiles, win_tile=tiles[0] if win_tile is None else int(win_tile))


def _counts(tiles):
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return tuple(c)


def small_forms():
    """Thirteen orphans, honours-and-knitted and knitted-straight patterns (distinct).

    Built straight from their definitions; these forms hold about 12,000
    patterns, so plain Python is quick enough.
    """
    rows = {}
    for d in _ORPHANS:
        rows[_counts(_ORPHANS + (d,))] = None
    honors = range(27, 34)
    sets = [(t, t, t) for t in range(34)] + [(t, t + 1, t + 2) for t in range(27) if t % 9 <= 6]
    for k in range(6):
        seq = tuple(int(knitted_tile(k, i)) for i in range(9))
        for n_suited in (7, 8, 9):
            for suited in combinations(seq, n_suited):
                for hon in combinations(honors, 14 - n_suited):
                    rows[_counts(suited + hon)] = None
        for s in sets:
            for p in range(34):
                c = _counts(seq + s + (p, p))
                if max(c) <= 4:
                    rows[c] = None
    return np.array(list(rows), np.uint8)


def _forms_weights(counts):
    forms = np.zeros(len(counts), np.uint8)
    combos = np.zeros(len(counts), np.int64)
    if len(counts):
        K.forms_and_weights(counts, _BINOM4, forms, combos, _threads_chunks(len(counts)))
    return forms, combos


def enumerate_patterns(progress=None):
    """Every complete 14-tile pattern of every form, each once (about ten seconds).

    Parameters
    ----------
    progress : bool, optional
        Show a progress bar (default: yes).

    Returns
    -------
    Patterns
        About 27.9 million patterns (1 GB of counts).

    Notes
    -----
    The regular and seven-pairs patterns are generated (sets and pairs put
    together), not searched for; the form bits are then read off every
    pattern by the recognisers the scorer uses, so a pattern generated for
    one form is also marked with every other form it is complete in.
    """
    none = np.zeros((0, 34), np.uint8)
    with _bar(progress, total=5, desc="enumerating complete hands", unit="step",
              leave=False) as bar:
        sv, sp = K.group_lists(K.suit_sets())
        hv, hp = K.group_lists(K.honor_sets())
        n_reg = K.regular_patterns(sv, sp, hv, hp, 4, none)
        bar.update()
        pairs = np.zeros((K.seven_pairs_patterns(7, none), 34), np.uint8)
        K.seven_pairs_patterns(7, pairs)
        pairs_forms, _ = _forms_weights(pairs)
        pairs = pairs[(pairs_forms & K.REGULAR) == 0]      # the regular ones come first
        bar.update()
        small = small_forms()
        small_bits, _ = _forms_weights(small)
        # every regular and seven-pairs pattern is already listed
        small = small[(small_bits & (K.REGULAR | K.SEVEN_PAIRS)) == 0]
        bar.update()
        counts = np.empty((n_reg + len(pairs) + len(small), 34), np.uint8)
        K.regular_patterns(sv, sp, hv, hp, 4, counts[:n_reg])
        counts[n_reg:n_reg + len(pairs)] = pairs
        counts[n_reg + len(pairs):] = small
        del pairs
        bar.update()
        forms, combos = _forms_weights(counts)
        bar.update()
    if not ((forms[:n_reg] & K.REGULAR).all() and forms.all()):
        raise RuntimeError("a generated pattern is not complete in its form")
    return Patterns(counts=counts, forms=forms, combinations=combos)


def _hands_table(p):
    """Patterns, combinations and probability per form, per overlap and overall."""
    rows = []
    for form in FORMS:
        m = p.has_form(form)
        rows.append((form, "form", int(m.sum()), int(p.combinations[m].sum())))
    masks, inv = np.unique(p.forms, return_inverse=True)
    for j, mask in enumerate(masks.tolist()):
        names = [f for f in FORMS if mask & _FORM_BITS[f]]
        if len(names) > 1:
            m = inv == j
            rows.append(("+".join(names), "overlap", int(m.sum()),
                         int(p.combinations[m].sum())))
    rows.append(("overall", "overall", len(p), int(p.combinations.sum())))
    df = pd.DataFrame(rows, columns=["form", "kind", "patterns", "combinations"])
    df.insert(1, "zh", [_FORM_ZH.get(f, "") for f in df["form"]])
    return _with_probability(df).set_index("form")


def _with_probability(df):
    df = df.copy()
    df["probability"] = [c / ALL_HANDS for c in df["combinations"].tolist()]
    df["one_in"] = [ALL_HANDS / c if c else math.inf for c in df["combinations"].tolist()]
    return df


# ---------------------------------------------------------------- scoring


@dataclass
class BestScores:
    """Scores of patterns with their best winning tile (see :data:`SITUATION`).

    Attributes
    ----------
    counted : numpy.ndarray
        Fans toward the bar of each pattern.
    win_tile : numpy.ndarray
        The winning tile chosen.
    fan_counts : numpy.ndarray
        (n, catalogue fans): how many times each fan is counted.
    keys : list of str
        Catalogue keys of the ``fan_counts`` columns.
    """

    counted: np.ndarray
    win_tile: np.ndarray
    fan_counts: np.ndarray
    keys: list = field(default_factory=list)


def _score(counts, forms, rs, all_tiles=False):
    n = len(counts)
    counted = np.empty(n, np.int64)
    win = np.empty(n, np.int64)
    sig = np.zeros((n, K.sig_words(rs.n_fans)), np.int64)
    if n:
        K.score_patterns(counts, forms, rs.kernel_rules(), 0, 0, all_tiles, counted, win, sig,
                         _threads_chunks(n))
    bad = counted < 0
    if bad.any():
        i = int(np.argmax(bad))
        raise RuntimeError(f"the scorer rejects complete pattern {pattern_text(counts[i])} "
                           f"(code {counted[i]})")
    return counted, win, sig


def _decode(sig, n_fans):
    """Fan counts (n, n_fans) from packed signatures."""
    f = np.arange(n_fans)
    words = sig[:, f // K.SIG_FANS_PER_WORD]
    return (words >> (4 * (f % K.SIG_FANS_PER_WORD))) & 15


def best_scores(counts, rules="gb", forms=None, *, all_tiles=False):
    """Score complete patterns with their best winning tile, as the tables do.

    Parameters
    ----------
    counts : array_like
        (n, 34) tile counts of complete patterns.
    rules : str or RuleSet
    forms : array_like, optional
        Their form bits (as :attr:`Patterns.forms`); computed if omitted.
    all_tiles : bool
        Score every tile kind of every pattern as the winning tile instead of
        skipping the calls known to repeat an earlier result (same answer,
        about twice as slow; see ``mjkit._kernels.complete.score_patterns``).

    Returns
    -------
    BestScores
    """
    counts = np.ascontiguousarray(np.asarray(counts).reshape(-1, 34), np.uint8)
    if forms is None:
        forms, _ = _forms_weights(counts)
    forms = np.ascontiguousarray(forms, np.uint8)
    if (forms == 0).any():
        bad = counts[int(np.argmax(forms == 0))]
        raise ValueError(f"not a complete pattern: {pattern_text(bad)}")
    rs = get_rules(rules)
    counted, win, sig = _score(counts, forms, rs, all_tiles)
    return BestScores(counted=counted, win_tile=win, fan_counts=_decode(sig, rs.n_fans),
                      keys=list(catalogue_lists().key[:rs.n_fans]))


def _aggregate(keys, patterns, combos, rep, rep_win):
    """Sum the weights of equal rows of ``keys``; keep the lowest representative.

    Rows are grouped through a 64-bit hash (a collision is detected and
    then the rows themselves are sorted), which is much faster than sorting
    rows of eight words.
    """
    h = np.empty(len(keys), np.uint64)
    K.row_hashes(keys, h)
    order = np.lexsort((rep, h))
    starts = np.empty(len(keys), np.int64)
    m = K.group_starts(keys, h, order, starts)
    if m >= 0:
        starts = starts[:m]
    else:
        order = np.lexsort((rep,) + tuple(keys[:, j] for j in range(keys.shape[1] - 1, -1, -1)))
        s = keys[order]
        starts = np.flatnonzero(np.r_[True, np.any(s[1:] != s[:-1], axis=1)])
    first = order[starts]
    return {"keys": keys[first], "patterns": np.add.reduceat(patterns[order], starts),
            "combinations": np.add.reduceat(combos[order], starts), "rep": rep[first],
            "rep_win": rep_win[first]}


def _run_key(rs, p, block):
    """Identifies a scoring run: kernels, rule set, situation, patterns and blocks."""
    h = hashlib.sha256()
    storage.source_fingerprint(["_kernels"], h=h)
    rs.digest_into(h)
    h.update(repr((sorted(SITUATION.items()), p.fingerprint(), block, rs.n_fans,
                   _BLOCK_FORMAT)).encode())
    return h.hexdigest()[:16]


def _default_workdir():
    base = cache_dir()
    if base is None:
        # no cache: a private folder of this run (a shared, predictable one in /tmp could be
        # filled by another user with blocks that pass every check)
        return Path(tempfile.mkdtemp(prefix="mjkit-exact-"))
    return base / "exact"


#: The on-disk form of a work block (part of the run key): 2 = .npz + manifest.
_BLOCK_FORMAT = 2
_BLOCK_ARRAYS = ("keys", "patterns", "combinations", "rep", "rep_win")


def _block_files(d, name, b):
    return d / f"{name}-{b:05d}.manifest.json", f"{name}-{b:05d}.npz"


def _save(d, name, b, lo, hi, part):
    """Write one finished block, then its manifest (digest, rows) last."""
    manifest, data = _block_files(d, name, b)
    _cache.write_set(manifest, {data: _cache.npz_writer(part)}, {"lo": lo, "hi": hi})


def _load_block(d, name, b, lo, hi, n_cols):
    """A finished block if intact and consistent with rows ``lo:hi``, else None.

    Damage of any kind (manifest, digest, a file numpy cannot read, arrays of
    another form) gives one warning and None: the block is scored again.
    """
    manifest, data = _block_files(d, name, b)
    found = _cache.read_set(manifest, [data])
    if found is None:
        return None
    try:
        part = _cache.npz_arrays(found[1][data])
        if found[0] != {"lo": lo, "hi": hi} or sorted(part) != sorted(_BLOCK_ARRAYS):
            raise ValueError("another block")
        m = len(part["keys"])
        if part["keys"].dtype != np.int64 or part["keys"].shape != (m, n_cols) or m == 0:
            raise ValueError("keys of another form")
        for k in _BLOCK_ARRAYS[1:]:
            if part[k].dtype != np.int64 or part[k].shape != (m,):
                raise ValueError(f"{k} of another form")
        if (int(part["patterns"].sum()) != hi - lo or part["rep"].min() < lo
                or part["rep"].max() >= hi):
            raise ValueError("counts do not match the block")
    except Exception as exc:      # noqa: BLE001 - any failure to read is damage
        _cache.warn_damaged(d / data, exc)
        return None
    return part


def _score_all(p, rules, *, workdir=None, block=_BLOCK, fresh=False, progress=None, bar=None):
    """Score every pattern for one rule set, block by block; aggregated by fan multiset.

    Each finished block is written to ``workdir`` (aggregated, a few MB), so
    an interrupted run resumes; ``fresh=True`` ignores earlier blocks.
    """
    rs = get_rules(rules)
    n = len(p)
    d = Path(workdir or _default_workdir()) / _run_key(rs, p, block)
    d.mkdir(parents=True, exist_ok=True)
    n_cols = 1 + K.sig_words(rs.n_fans)
    own = bar is None
    if own:
        bar = _bar(progress, total=n, desc=f"scoring {rs.name}", unit="hand", unit_scale=True)
    parts = []
    try:
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            b = lo // block
            part = None if fresh else _load_block(d, rs.name, b, lo, hi, n_cols)
            if part is None:
                counts = p.counts[lo:hi]
                counted, win, sig = _score(counts, p.forms[lo:hi], rs)
                keys = np.concatenate([counted[:, None], sig], axis=1)
                part = _aggregate(keys, np.ones(hi - lo, np.int64), p.combinations[lo:hi],
                                  np.arange(lo, hi, dtype=np.int64), win)
                _save(d, rs.name, b, lo, hi, part)
            parts.append(part)
            bar.update(hi - lo)
    finally:
        if own:
            bar.close()
    cat = {k: np.concatenate([x[k] for x in parts]) for k in parts[0]}
    return _aggregate(cat["keys"], cat["patterns"], cat["combinations"], cat["rep"],
                      cat["rep_win"])


# ---------------------------------------------------------------- tables


@dataclass
class FanDistribution:
    """The exact fan distribution of all complete closed hands under one rule set.

    Every complete pattern is scored in :data:`SITUATION` and counted once
    per pattern (``patterns``) and once per physical tile combination
    (``combinations``, the chance of being dealt it).  Fans are those toward
    the bar (all fans here: no flowers, no wild tile).

    Attributes
    ----------
    rules : str
    totals : pandas.DataFrame
        One row per fan total: ``patterns``, ``combinations``, their
        fractions of all complete hands and ``probability`` (of 14 random
        tiles being such a hand).
    thresholds : pandas.DataFrame
        Per threshold (:data:`THRESHOLDS`): the hands reaching it, same columns.
    combinations : pandas.DataFrame
        Per threshold and weighting (``ranked_by``: ``combinations`` or
        ``patterns``), the :data:`TOP` most frequent fan combinations among
        the hands reaching it: ``fans`` (zh), ``fans_en``, ``keys``,
        ``total``, weights, their ``*_share`` of the hands reaching the
        threshold and an ``example`` hand (winning tile last).
    fans : pandas.DataFrame
        Per threshold (0: every complete hand) and fan: the share of the hands
        reaching the threshold that count this fan.
    """

    rules: str
    totals: pd.DataFrame
    thresholds: pd.DataFrame
    combinations: pd.DataFrame
    fans: pd.DataFrame

    @property
    def situation(self):
        return dict(SITUATION)

    def __repr__(self):
        lines = [f"FanDistribution({self.rules!r}): complete closed hands, self-drawn, "
                 "East round and seat, best winning tile"]
        for r in self.thresholds.itertuples():
            lines.append(f"  >= {r.threshold:>2} fans: {r.pattern_fraction:8.3%} of patterns, "
                         f"{r.combination_fraction:8.3%} of hands (weighted)")
        return "\n".join(lines)


def _fan_labels(counts_row, rs, cat):
    present = [f for f in np.flatnonzero(counts_row).tolist()]
    present.sort(key=lambda f: (-int(rs.points[f]), cat.id[f]))

    def part(name, f):
        k = int(counts_row[f])
        return name[f] + (f"×{k}" if k > 1 else "")

    return (" + ".join(part(cat.zh, f) for f in present),
            " + ".join(part(cat.en, f) for f in present),
            " ".join(cat.key[f] + (f"*{int(counts_row[f])}" if counts_row[f] > 1 else "")
                     for f in present))


def _distribution(agg, p_counts, rs, n_all, c_all):
    """The four tables of one rule set from its aggregate (``_score_all``)."""
    cat = catalogue_lists()
    total = agg["keys"][:, 0]
    fc = _decode(agg["keys"][:, 1:], rs.n_fans)
    pat = agg["patterns"]
    com = agg["combinations"]

    def weights(df):
        df["pattern_fraction"] = df["patterns"] / n_all
        df["combination_fraction"] = [c / c_all for c in df["combinations"].tolist()]
        df["probability"] = [c / ALL_HANDS for c in df["combinations"].tolist()]
        df.insert(0, "rules", rs.name)
        return df

    vals = np.unique(total)
    totals = weights(pd.DataFrame({
        "total": vals,
        "patterns": [int(pat[total == v].sum()) for v in vals],
        "combinations": [int(com[total == v].sum()) for v in vals]}))
    thresholds = weights(pd.DataFrame({
        "threshold": list(THRESHOLDS),
        "patterns": [int(pat[total >= t].sum()) for t in THRESHOLDS],
        "combinations": [int(com[total >= t].sum()) for t in THRESHOLDS]}))

    combos = []
    for t in THRESHOLDS:
        sel = np.flatnonzero(total >= t)
        np_t, nc_t = int(pat[sel].sum()), int(com[sel].sum())
        for by, other in (("combinations", "patterns"), ("patterns", "combinations")):
            w = agg[by][sel]
            o = agg[other][sel]
            # heaviest first; ties by the other weight, then the lowest representative
            top = sel[np.lexsort((agg["rep"][sel], -o, -w))[:TOP]]
            for rank, i in enumerate(top.tolist(), 1):
                zh, en, keys = _fan_labels(fc[i], rs, cat)
                combos.append({
                    "rules": rs.name, "threshold": t, "ranked_by": by, "rank": rank,
                    "total": int(total[i]), "fans": zh, "fans_en": en, "keys": keys,
                    "patterns": int(pat[i]), "combinations": int(com[i]),
                    "pattern_share": int(pat[i]) / np_t if np_t else 0.0,
                    "combination_share": int(com[i]) / nc_t if nc_t else 0.0,
                    "example": pattern_text(p_counts(int(agg["rep"][i])),
                                            int(agg["rep_win"][i]))})
    combos = pd.DataFrame(combos)

    fans = []
    for t in (0,) + THRESHOLDS:
        sel = total >= t
        np_t, nc_t = int(pat[sel].sum()), int(com[sel].sum())
        for f in np.flatnonzero((fc[sel] > 0).any(axis=0)).tolist():
            has = sel & (fc[:, f] > 0)
            a, b = int(pat[has].sum()), int(com[has].sum())
            fans.append({"rules": rs.name, "threshold": t, "fan": cat.zh[f], "fan_en": cat.en[f],
                         "key": cat.key[f], "points": int(rs.points[f]), "patterns": a,
                         "combinations": b, "pattern_share": a / np_t if np_t else 0.0,
                         "combination_share": b / nc_t if nc_t else 0.0})
    fans = pd.DataFrame(fans).sort_values(
        ["threshold", "combinations", "patterns", "key"], ascending=[True, False, False, True],
        kind="stable").reset_index(drop=True)
    return {"totals": totals, "thresholds": thresholds, "combinations": combos, "fans": fans}


# ---------------------------------------------------------------- shipped tables


def data_dir():
    """Folder of the shipped tables (``data/exact`` of a checkout, else package data)."""
    return data_file("exact")


@lru_cache(maxsize=None)
def _read(name, folder=None):
    path = Path(folder or data_dir()) / _FILES[name]
    return pd.read_csv(path, encoding="utf-8", keep_default_na=False)


def complete_hands(recompute=False, *, progress=None):
    """Complete 14-tile hands per form: patterns, combinations, probability.

    Parameters
    ----------
    recompute : bool
        Enumerate every pattern again (about ten seconds) instead of reading
        ``data/exact/complete_hands.csv``.
    progress : bool, optional
        Progress bar when recomputing (default: yes).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``form``: one row per form of :data:`FORMS` (``kind`` =
        ``"form"``), one per combination of forms that share patterns
        (``"overlap"``, e.g. ``regular+seven_pairs``: patterns complete in
        exactly those forms), and ``overall`` (every complete pattern once).
        Columns ``zh``, ``kind``, ``patterns``, ``combinations`` (physical
        tile combinations), ``probability`` (= combinations / C(136, 14):
        the chance that 14 random tiles form such a hand) and ``one_in``.
        ``overall = sum(forms) - sum(overlaps * (forms in it - 1))``.
    """
    if recompute:
        return _hands_table(enumerate_patterns(progress=progress))
    df = _read("hands").copy()
    return df.set_index("form")


def fan_distribution(rules="dazhong32", recompute=False, *, progress=None, workdir=None):
    """The exact fan distribution of every complete closed hand (see :data:`SITUATION`).

    Parameters
    ----------
    rules : {"gb", "dazhong", "dazhong32"} or RuleSet
        The shipped tables hold the three built-in rule sets; any other rule
        set needs ``recompute=True``.
    recompute : bool
        Enumerate and score every pattern again (a few minutes on two
        cores) instead of reading ``data/exact/``.  Finished blocks are kept
        in ``workdir`` (default ``~/.cache/mjkit/exact``, or ``$MJKIT_CACHE_DIR``)
        so an interrupted run resumes.
    progress : bool, optional
        Progress bars when recomputing (default: yes).
    workdir : path, optional

    Returns
    -------
    FanDistribution

    Examples
    --------
    >>> d = fan_distribution("gb")
    >>> bool(d.thresholds["combination_fraction"].is_monotonic_decreasing)
    True
    """
    if recompute:
        p = enumerate_patterns(progress=progress)
        rs = get_rules(rules)
        agg = _score_all(p, rs, workdir=workdir, progress=progress)
        t = _distribution(agg, lambda i: p.counts[i], rs, len(p), int(p.combinations.sum()))
        return FanDistribution(rules=rs.name, **t)
    name = rules if isinstance(rules, str) else rules.name
    out = {}
    for k in ("totals", "thresholds", "combinations", "fans"):
        df = _read(k)
        out[k] = df[df["rules"] == name].reset_index(drop=True)
    if out["totals"].empty:
        raise ValueError(f"no shipped table for rule set {name!r} (shipped: {', '.join(RULES)}); "
                         "use recompute=True")
    return FanDistribution(rules=name, **out)


def _write_csv(df, path, index=False):
    text = df.to_csv(index=index, lineterminator="\n")
    storage.atomic_write_text(path, text)


def compute(rules=RULES, out=None, *, workdir=None, block=_BLOCK, fresh=False, progress=None,
            log=print):
    """Recompute every table from scratch and write the CSV files.

    Parameters
    ----------
    rules : sequence of str or RuleSet
        Rule sets to score; rows of other rule sets already in ``out`` are
        kept.
    out : path, optional
        Output folder (default :func:`data_dir`, the shipped ``data/exact``).
    workdir : path, optional
        Where finished blocks are kept for resuming (default
        ``~/.cache/mjkit/exact`` or ``$MJKIT_CACHE_DIR``).  A block is reused only
        by a run with the same kernels, rule set, situation and blocking.
    block : int
        Patterns per block.
    fresh : bool
        Score every block again even if an earlier run left it.
    progress : bool, optional
        Progress bars (default: yes).
    log : callable
        Receives one line per step (timings).

    Returns
    -------
    dict
        ``{"hands", "totals", "thresholds", "combinations", "fans"}``: the
        tables written.
    """
    out = Path(out or data_dir())
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    p = enumerate_patterns(progress=progress)
    hands = _hands_table(p)
    _write_csv(hands, out / _FILES["hands"], index=True)
    log(f"enumerated {len(p):,} patterns in {time.perf_counter() - t0:.1f} s")
    n_all, c_all = len(p), int(p.combinations.sum())
    rule_sets = [get_rules(r) for r in ([rules] if isinstance(rules, str) else rules)]
    names = [rs.name for rs in rule_sets]
    tables = {k: [] for k in ("totals", "thresholds", "combinations", "fans")}
    with _bar(progress, total=len(p) * len(rule_sets), desc="scoring", unit="hand",
              unit_scale=True) as bar:
        for rs in rule_sets:
            t1 = time.perf_counter()
            bar.set_description(f"scoring {rs.name}")
            agg = _score_all(p, rs, workdir=workdir, block=block, fresh=fresh, bar=bar)
            t = _distribution(agg, lambda i: p.counts[i], rs, n_all, c_all)
            for k in tables:
                tables[k].append(t[k])
            log(f"{rs.name}: scored in {time.perf_counter() - t1:.1f} s")
    written = {"hands": hands}
    for k, parts in tables.items():
        df = pd.concat(parts, ignore_index=True)
        path = out / _FILES[k]
        if path.exists():
            old = pd.read_csv(path, encoding="utf-8", keep_default_na=False)
            old = old[~old["rules"].isin(names)]
            df = pd.concat([old, df], ignore_index=True) if len(old) else df
            rank = {r: i for i, r in enumerate(RULES)}
            df = df.sort_values("rules", key=lambda c: c.map(lambda r: rank.get(r, len(rank))),
                                kind="stable").reset_index(drop=True)
        _write_csv(df, path)
        written[k] = df
    _read.cache_clear()
    log(f"wrote {', '.join(_FILES.values())} to {out} "
        f"({time.perf_counter() - t0:.1f} s in all)")
    return written


def _summary(written):
    h = written["hands"]
    lines = ["form                              patterns          combinations   probability"]
    for form, r in h.iterrows():
        lines.append(f"{form:<30}{r.patterns:>12,}{r.combinations:>22,}  {r.probability:.6e}")
    th = written["thresholds"]
    lines.append("")
    lines.append("rules      >= fans   of patterns   of hands (by combinations)")
    for r in th.itertuples():
        lines.append(f"{r.rules:<10}{r.threshold:>8}{r.pattern_fraction:>14.4%}"
                     f"{r.combination_fraction:>14.4%}")
    return "\n".join(lines)


def main(argv=None):
    """``python -m mjkit.exact``: recompute every table and write ``data/exact/``."""
    ap = argparse.ArgumentParser(
        prog="python -m mjkit.exact",
        description="Enumerate every complete 14-tile hand, score it and write the tables "
                    "of data/exact/.")
    ap.add_argument("--rules", nargs="+", default=list(RULES), help="rule sets to score")
    ap.add_argument("--out", help="output folder (default: the package's data/exact)")
    ap.add_argument("--workdir", help="where finished blocks are kept "
                                      "(default ~/.cache/mjkit/exact or $MJKIT_CACHE_DIR)")
    ap.add_argument("--block", type=int, default=_BLOCK, help="patterns per saved block")
    ap.add_argument("--fresh", action="store_true", help="ignore blocks of earlier runs")
    ap.add_argument("--threads", type=int, help="numba threads (default: all)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.threads:
        numba.set_num_threads(args.threads)
    written = compute(args.rules, args.out, workdir=args.workdir, block=args.block,
                      fresh=args.fresh, progress=not args.quiet)
    print(_summary(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
