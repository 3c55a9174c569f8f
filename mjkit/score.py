"""Scoring: ``score`` for one hand, ``score_batch`` for many.

Both validate and encode in Python, then run the same numba kernel
(:mod:`mjkit._kernels.evaluate`): there is one copy of the fan logic.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import NamedTuple

import numba
import numpy as np
import pandas as pd

from ._kernels import layout as L
from ._kernels.evaluate import WS_LEN, score_row, score_rows
from ._kernels.shapes import knitted_tile
from .errors import HandError
from .hand import Hand, parse_hand
from .rules import fan_catalogue, get_rules
from .rules.catalogue import catalogue_lists
from .tiles import tiles_to_str

__all__ = ["FanLine", "ScoreResult", "HandBatch", "BatchResult", "score", "score_batch",
           "encode_hand", "fan_table"]

_MELD_CODE = {"chow": L.M_CHOW, "pung": L.M_PUNG}
_FORM_NAMES = {
    L.FORM_NONE: "none", L.FORM_REGULAR: "regular", L.FORM_SEVEN_PAIRS: "seven pairs",
    L.FORM_THIRTEEN_ORPHANS: "thirteen orphans",
    L.FORM_HONORS_KNITTED: "honors and knitted tiles",
    L.FORM_KNITTED_STRAIGHT: "knitted straight",
}


def _as_hand(hand_or_text, situation):
    if isinstance(hand_or_text, Hand):
        if situation:
            return parse_hand(str(hand_or_text), **situation)
        return hand_or_text
    if isinstance(hand_or_text, str):
        return parse_hand(hand_or_text, **situation)
    raise HandError(f"expected a Hand or a notation string, got {type(hand_or_text).__name__}")


def encode_hand(hand, out=None):
    """The kernel row of a validated :class:`~mjkit.hand.Hand` (int32)."""
    vals = [0] * L.ROW_LEN
    for t in hand.concealed:
        vals[L.COUNTS + t] += 1
    for i, m in enumerate(hand.melds):
        if m.kind == "kong":
            code = L.M_CKONG if m.concealed else L.M_KONG
        else:
            code = _MELD_CODE[m.kind]
        vals[L.MELDS + 2 * i] = code
        vals[L.MELDS + 2 * i + 1] = m.tile
    vals[L.WIN] = hand.win_tile
    vals[L.FLAGS] = ((L.F_SELF_DRAWN if hand.self_drawn else 0)
                     | (L.F_LAST_COPY if hand.last_copy else 0)
                     | (L.F_KONG if hand.kong else 0)
                     | (L.F_LAST_WALL if hand.last_wall else 0))
    vals[L.SEAT] = hand.seat_wind
    vals[L.ROUND] = hand.round_wind
    vals[L.FLOWERS] = hand.flowers
    if out is None:
        return np.array(vals, np.int32)
    out[:] = vals
    return out


_scratch = threading.local()


def _buffers(n_fans):
    """Per-thread output and scratch arrays for single scores (reused)."""
    b = getattr(_scratch, "b", None)
    if b is None or b[0].shape[0] != n_fans:
        b = (np.zeros(n_fans, np.int64), np.zeros(n_fans, np.int64),
             np.zeros(L.DEC_LEN, np.int64), np.zeros(WS_LEN, np.int64))
        _scratch.b = b
    return b


class FanLine(NamedTuple):
    """One counted fan: catalogue ``id`` and ``key``, names, ``points`` each, ``count``.

    ``excludes`` names (zh) the fans this one keeps from being counted here.
    """

    id: int
    key: str
    zh: str
    en: str
    points: int
    count: int
    excludes: tuple = ()

    @property
    def value(self):
        return self.points * self.count


@dataclass
class ScoreResult:
    """The score of one hand.

    Attributes
    ----------
    hand : Hand
    rules : str
    total : int
        All counted fans, flowers included.
    fans : list of FanLine
        Counted fans, highest first.
    not_counted : list of tuple
        ``(fan, because_of)`` for fans the hand has but which are not
        counted (不计) because a counted fan includes them.
    is_win : bool
        The tiles form a complete hand.
    minimum : int
    form : str
        ``"regular"``, ``"seven pairs"``, ... or ``"none"``.
    sets : list of tuple
        The chosen reading: ``(kind, tiles, exposed)`` per set.
    pair : str or None
    """

    hand: Hand
    rules: str
    total: int
    fans: list
    not_counted: list
    is_win: bool
    minimum: int
    form: str
    sets: list
    pair: str | None
    knitted: str | None = None

    @property
    def flowers(self):
        return sum(f.value for f in self.fans if f.key == "FLOWER_TILES")

    @property
    def counted(self):
        """Fans that count toward the minimum (all but flowers)."""
        return self.total - self.flowers

    @property
    def meets_minimum(self):
        return self.is_win and self.counted >= self.minimum

    def fan_counts(self):
        """``{zh name: count}`` of the counted fans."""
        return {f.zh: f.count for f in self.fans}

    def to_frame(self):
        """The fans as a DataFrame (zh, en, points, count, value, excludes)."""
        return pd.DataFrame(
            [{"id": f.id, "zh": f.zh, "en": f.en, "points": f.points, "count": f.count,
              "value": f.value, "excludes": " ".join(f.excludes)} for f in self.fans],
            columns=["id", "zh", "en", "points", "count", "value", "excludes"])

    def explain(self, lang="zh"):
        """A readable multi-line summary."""
        name = (lambda f: f.zh) if lang == "zh" else (lambda f: f.en)
        if not self.is_win:
            return f"{self.hand}: not a complete hand"
        lines = [f"{self.hand}  [{self.rules}]"]
        for f in self.fans:
            cnt = f" x{f.count}" if f.count > 1 else ""
            lines.append(f"  {name(f):<14} {f.points:>3}{cnt}")
        lines.append(f"  {'total':<14} {self.total:>3}"
                     + ("" if self.flowers == 0 else f"  (flowers {self.flowers})"))
        verdict = "meets" if self.meets_minimum else "does NOT meet"
        lines.append(f"  {verdict} the minimum of {self.minimum}")
        return "\n".join(lines)

    def __str__(self):
        return self.explain()

    def _repr_html_(self):
        return self.to_frame().to_html(index=False) + (
            f"<p>total <b>{self.total}</b>; minimum {self.minimum}: "
            f"{'met' if self.meets_minimum else 'not met'}</p>")


def fan_table(rules="gb"):
    """The fans of a rule set with their points and 不计 lists (a DataFrame)."""
    rs = get_rules(rules)
    cat = fan_catalogue()
    df = cat[["id", "key", "zh", "en", "description"]].copy()
    df["points"] = rs.points
    keys = list(cat["key"])
    df["excludes"] = [" ".join(keys[j] for j in rs.excludes[i]) for i in range(rs.n_fans)]
    return df[df["points"] > 0].reset_index(drop=True)


@functools.lru_cache(maxsize=None)
def _set_text(kind, t):
    if kind == "chow":
        return tiles_to_str([t, t + 1, t + 2])
    if kind == "pair":
        return tiles_to_str([t, t])
    return tiles_to_str([t] * (3 if kind == "pung" else 4))


_KIND_NAMES = {L.CHOW: "chow", L.PUNG: "pung", L.KONG: "kong"}


def _build_result(hand, rs, total, fan, raw, dec):
    cat = catalogue_lists()
    points = rs.points_list
    fan_l = fan.tolist()
    raw_l = raw.tolist()
    present = [i for i, v in enumerate(fan_l) if v]
    fans = []
    for i in present:
        fans.append(FanLine(cat.id[i], cat.key[i], cat.zh[i], cat.en[i], points[i], fan_l[i],
                            tuple(cat.zh[j] for j in rs.excludes[i] if raw_l[j] and points[j])))
    fans.sort(key=lambda f: (-f.points, f.id))
    not_counted = []
    for j, v in enumerate(raw_l):
        if v and points[j] and not fan_l[j]:
            by = tuple(cat.zh[i] for i in present if j in rs.excludes[i])
            not_counted.append((cat.zh[j], by))
    d = dec.tolist()
    form = d[L.DEC_FORM]
    sets = []
    pair = None
    knitted = None
    if form in (L.FORM_REGULAR, L.FORM_KNITTED_STRAIGHT):
        n = 4 if form == L.FORM_REGULAR else 1
        for j in range(n):
            k, t, e = d[L.DEC_SETS + 3 * j: L.DEC_SETS + 3 * j + 3]
            kind = _KIND_NAMES[k]
            sets.append((kind, _set_text(kind, t), bool(e)))
        pair = _set_text("pair", d[L.DEC_PAIR])
        if form == L.FORM_KNITTED_STRAIGHT:
            knitted = tiles_to_str([knitted_tile(d[L.DEC_KNIT], i) for i in range(9)])
    total = int(total)
    return ScoreResult(hand=hand, rules=rs.name, total=max(total, 0), fans=fans,
                       not_counted=not_counted, is_win=total >= 0, minimum=rs.minimum,
                       form=_FORM_NAMES[form], sets=sets, pair=pair, knitted=knitted)


def score(hand_or_text, rules="gb", **situation):
    """Score a hand.

    Parameters
    ----------
    hand_or_text : Hand or str
        A hand, or its notation (e.g. ``"[123m]456p789s55mEE E"``).
    rules : str or RuleSet
        ``"gb"`` (default) or a registered / derived rule set.
    **situation
        ``self_drawn``, ``last_copy``, ``kong``, ``last_wall``, ``seat_wind``,
        ``round_wind``, ``flowers``, ``win_tile``: override the hand's.

    Returns
    -------
    ScoreResult

    Raises
    ------
    HandError
        If the hand or the situation is invalid.
    """
    hand = _as_hand(hand_or_text, situation)
    rs = get_rules(rules)
    row = encode_hand(hand)
    fan, raw, dec, ws = _buffers(rs.n_fans)
    total = score_row(row, *rs.kernel_args(), fan, raw, dec, ws)
    return _build_result(hand, rs, total, fan, raw, dec)


@dataclass
class HandBatch:
    """Many hands encoded as kernel rows (``rows``: int32, shape (n, ROW_LEN))."""

    rows: np.ndarray
    hands: list = field(default=None, repr=False)

    @classmethod
    def from_hands(cls, hands, keep_hands=False, progress=None):
        """Validate and encode a sequence of :class:`Hand` or notation strings.

        Each hand keeps its own situation (the ``|`` suffix of its notation).
        ``progress``: show a progress bar (default: for 20,000 hands or more).
        """
        items = list(hands)
        rows = np.zeros((len(items), L.ROW_LEN), np.int32)
        parsed = [] if keep_hands else None
        if progress is None:
            progress = len(items) >= 20_000
        it = enumerate(items)
        if progress:
            from tqdm.auto import tqdm

            it = tqdm(it, total=len(items), desc="parsing hands", unit="hand", leave=False)
        for i, h in it:
            try:
                hand = _as_hand(h, {})
            except HandError as exc:
                raise HandError(f"hand {i}: {exc}") from None
            encode_hand(hand, rows[i])
            if keep_hands:
                parsed.append(hand)
        return cls(rows=rows, hands=parsed)

    def __len__(self):
        return len(self.rows)


@dataclass
class BatchResult:
    """Totals (-1 for an incomplete hand) and per-fan counts of a batch.

    ``fan_counts[:, j]`` counts fan ``fans[j]`` (catalogue key); the columns
    are the fans the rule set uses, in the order of :func:`fan_table`.
    """

    totals: np.ndarray
    fan_counts: np.ndarray
    fans: list
    rules: str

    @property
    def is_win(self):
        return self.totals >= 0

    def fan_frame(self, lang="zh"):
        """``fan_counts`` as a DataFrame with zh (or en) fan names as columns."""
        cat = catalogue_lists()
        names = cat.zh if lang == "zh" else cat.en
        pos = {k: i for i, k in enumerate(cat.key)}
        return pd.DataFrame(self.fan_counts, columns=[names[pos[k]] for k in self.fans])


def score_batch(batch, rules="gb"):
    """Score every hand of a :class:`HandBatch` in parallel over all cores.

    Parameters
    ----------
    batch : HandBatch or sequence of Hand / str
    rules : str or RuleSet

    Returns
    -------
    BatchResult
        ``totals`` (n,) and ``fan_counts`` (n, number of fans of the rule
        set), columns in the order of :func:`fan_table`.  Numbers do not
        depend on the number of threads.
    """
    if not isinstance(batch, HandBatch):
        batch = HandBatch.from_hands(batch)
    rs = get_rules(rules)
    n = len(batch.rows)
    used = rs.used_fans()
    totals = np.empty(n, np.int64)
    fans = np.empty((n, len(used)), np.int32)
    if n:
        # Chunks are independent; a few per thread keeps the cores busy.
        n_chunks = max(1, min(n, 4 * numba.get_num_threads()))
        score_rows(batch.rows, *rs.kernel_args(), rs.used_array(), totals, fans, n_chunks)
    keys = catalogue_lists().key
    return BatchResult(totals=totals, fan_counts=fans, fans=[keys[i] for i in used],
                       rules=rs.name)
