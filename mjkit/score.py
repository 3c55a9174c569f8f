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

from ._kernels import layout as L
from ._kernels.evaluate import (
    WAIT_UNIQUE, WS_LEN, leftmost_wait_fan, leftmost_wait_fans, score_hand_row, score_plain_row,
    score_rows, score_rows_plain,
)
from ._kernels.shapes import knitted_tile
from . import messages as M
from . import validate as V
from .errors import HandError
from .hand import Hand, Meld, parse_hand
from .rules import fan_catalogue, get_rules
from .rules.catalogue import catalogue_lists
from .rules.ruleset import DEALER_ONLY
from .tiles import N_KINDS, set_tiles, tile_to_str, tiles_to_str

__all__ = ["FanLine", "ScoreResult", "HandBatch", "BatchResult", "score", "score_batch",
           "encode_hand", "check_rows", "fan_table", "WAIT_RULES"]

#: How wait fans (边张, 嵌张, 单钓将) are read: ``"unique"`` (国标: only on a
#: sole wait) or ``"leftmost"`` (the old 联众 client, seed 000 §六.2).
WAIT_RULES = ("unique", "leftmost")

_MELD_CODE = {"chow": L.M_CHOW, "pung": L.M_PUNG}
_FORM_NAMES = {
    L.FORM_NONE: "none", L.FORM_REGULAR: "regular", L.FORM_SEVEN_PAIRS: "seven pairs",
    L.FORM_THIRTEEN_ORPHANS: "thirteen orphans",
    L.FORM_HONORS_KNITTED: "honors and knitted tiles",
    L.FORM_KNITTED_STRAIGHT: "knitted straight", L.FORM_EIGHT_FLOWERS: "eight flowers",
}
# Situation fields of a Hand and their flag bits in a kernel row.
_SITUATION_BITS = (
    ("self_drawn", L.F_SELF_DRAWN), ("last_copy", L.F_LAST_COPY), ("kong", L.F_KONG),
    ("last_wall", L.F_LAST_WALL), ("heavenly_hand", L.F_HEAVENLY_HAND),
    ("earthly_hand", L.F_EARTHLY_HAND), ("human_hand", L.F_HUMAN_HAND),
    ("heavenly_ready", L.F_HEAVENLY_READY), ("earthly_ready", L.F_EARTHLY_READY),
    ("declared_ready", L.F_DECLARED_READY), ("double_ready", L.F_DOUBLE_READY),
)


def _as_hand(hand_or_text, situation):
    if isinstance(hand_or_text, Hand):
        if situation:  # the hand with the keywords applied (no detour through text)
            return parse_hand(hand_or_text, **situation)
        return hand_or_text
    if isinstance(hand_or_text, str):
        return parse_hand(hand_or_text, **situation)
    raise HandError(f"expected a Hand or a notation string, got {type(hand_or_text).__name__}")


def _wild_kinds(wild, n):
    """One wild kind per hand (int32, -1 none) from a tile or a sequence of them."""
    if isinstance(wild, (list, tuple, np.ndarray)):
        if len(wild) != n:
            raise HandError(f"wild: one tile per hand ({n}), got {len(wild)}")
        out = np.empty(n, np.int32)
        for i, x in enumerate(wild):
            try:
                out[i] = V.wild_kind(x)
            except HandError as exc:
                raise HandError(f"hand {i}: {exc}", code=exc.code) from None
        return out
    return np.full(n, V.wild_kind(wild), np.int32)


def wait_flag(wait_rule):
    """The situation flag of ``wait_rule`` (``"leftmost"``: ``F_LEFTMOST``, else 0), checked."""
    if wait_rule not in WAIT_RULES:
        raise HandError(f"wait_rule must be one of {WAIT_RULES}, got {wait_rule!r}",
                        code="unknown_name")
    return L.F_LEFTMOST if wait_rule == "leftmost" else 0


def check_wild_melds(melds, wild):
    """HandError unless ``wild`` (a kind, -1 none) is absent from the melds but a concealed kong."""
    # A wild tile is never chowed or punged (or claimed for a kong); four of
    # them drawn by oneself may form a concealed kong, 混杠.
    for m in melds:
        if wild in m.tiles and not (m.kind == "kong" and m.concealed):
            raise HandError(f"meld {m} uses the wild tile {tile_to_str(wild)}: a wild tile "
                            "can only be in a concealed kong (混杠)", code="bad_meld")


def meld_code(meld):
    """The kernel row's code of a :class:`~mjkit.hand.Meld` (``layout.M_*``)."""
    if meld.kind == "kong":
        return L.M_CKONG if meld.concealed else L.M_KONG
    return _MELD_CODE[meld.kind]


def situation_row(melds, seat, rnd, self_drawn, lianla, wild=-1):
    """A kernel row with a hand's melds and situation but no tiles yet (int32).

    The searches (:func:`mjkit.distance_to`, :func:`mjkit.winprob.win_chances`) write
    the concealed counts and the winning tile of each candidate into a copy.
    """
    row = np.zeros(L.ROW_LEN, np.int32)
    for i, m in enumerate(melds):
        row[L.MELDS + 2 * i] = meld_code(m)
        row[L.MELDS + 2 * i + 1] = m.tile
    row[L.FLAGS] = L.F_SELF_DRAWN if self_drawn else 0
    row[L.SEAT] = seat
    row[L.ROUND] = rnd
    row[L.WILD] = wild
    row[L.LIANLA] = lianla
    return row


def legal_counted(row, counts, wins, rules, bar):
    """Counted fans of each hand ``counts[i]`` won on ``wins[i]`` in ``row``'s situation.

    ``row`` comes from :func:`situation_row`; -1 where the hand is no win or its counted
    fans (连拉 included) miss ``bar`` (a P胡).  One :func:`score_batch` call for all.
    """
    if len(counts) == 0:
        return np.zeros(0, np.int64)
    rows = np.tile(row, (len(counts), 1))
    rows[:, L.COUNTS:L.COUNTS + N_KINDS] = counts
    rows[:, L.WIN] = wins
    res = score_batch(HandBatch(rows), rules=rules)
    return np.where(res.is_win & (res.counted >= bar), res.counted, -1).astype(np.int64)


def encode_hand(hand, out=None, *, wild=-1, lianla=0, flags=0):
    """The kernel row of a validated :class:`~mjkit.hand.Hand` (int32).

    ``wild`` is the wild tile kind (-1 none), ``lianla`` the 连拉 level and
    ``flags`` extra flag bits (the wait rule); the caller validates them.
    """
    vals = [0] * L.ROW_LEN
    for t in hand.concealed:
        vals[L.COUNTS + t] += 1
    for i, m in enumerate(hand.melds):
        vals[L.MELDS + 2 * i] = meld_code(m)
        vals[L.MELDS + 2 * i + 1] = m.tile
    vals[L.WIN] = hand.win_tile
    d = hand.__dict__
    for name, bit in _SITUATION_BITS:
        if d.get(name):
            flags |= bit
    vals[L.FLAGS] = flags
    vals[L.SEAT] = hand.seat_wind
    vals[L.ROUND] = hand.round_wind
    vals[L.FLOWERS] = hand.flowers
    mask = 0
    for t in hand.flower_tiles:
        mask |= 1 << (t - N_KINDS)
    vals[L.FLOWER_MASK] = mask
    vals[L.WILD] = wild
    vals[L.LIANLA] = lianla
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
        Every counted fan: 连拉, flowers and 无财神 included.
    fans : list of FanLine
        Counted fans, highest first (连N拉N appears as a line worth 4N).
    not_counted : list of tuple
        ``(fan, because_of)`` for fans the hand has but which are not
        counted (不计) because a counted fan includes them.
    is_win : bool
        The tiles form a complete hand (or 八花聚顶).
    minimum : int
        The rule set's minimum (8, or 32 in ``dazhong32``).
    lianla : int
        The dealer's streak level N (连N拉N).
    bar : int
        Fans the hand itself needs: ``max(minimum - 4N, 0)``.
    form : str
        ``"regular"``, ``"seven pairs"``, ... or ``"none"``.
    sets : list of tuple
        The chosen reading: ``(kind, tiles, exposed)`` per set.
    pair : str or None
    wild : str or None
        The wild tile kind of the game (财神), if any.
    wild_as : list of str
        What each wild tile in the concealed hand stood for.
    notes : list of str
        What the old 联众 client would do differently with this hand.
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
    lianla: int = 0
    bar: int = 0
    counted_points: int = 0
    after_minimum: frozenset = frozenset()
    wild: str | None = None
    wild_as: list = field(default_factory=list)
    wild_win: bool = False
    wait_rule: str = "unique"
    notes: list = field(default_factory=list)

    @property
    def counted(self):
        """The fans that count toward the bar, 连拉 included (not flowers, 无财神)."""
        return [f for f in self.fans if f.key not in self.after_minimum]

    @property
    def hand_points(self):
        """Counted fans of the hand itself (``counted_points`` without 连拉)."""
        return self.counted_points - sum(f.value for f in self.fans if f.key == "LIANLA")

    @property
    def flowers(self):
        """Points added after the minimum: flowers, 季花, 梅兰竹菊, 春夏秋冬, 无财神."""
        return self.total - self.counted_points

    @property
    def legal(self):
        """A complete hand whose counted fans reach the bar."""
        return self.is_win and self.hand_points >= self.bar

    @property
    def meets_minimum(self):
        return self.legal

    @property
    def short_by(self):
        """Fans missing to reach the bar (0 when legal; None if not complete)."""
        if not self.is_win:
            return None
        return max(self.bar - self.hand_points, 0)

    def verdict(self, lang="en"):
        """Whether declaring this win is legal, in words (the P胡 warning)."""
        lang = M.lang_or_en(lang)       # any other value: English, as always
        if not self.is_win:
            return M.text("score.verdict.not_win", lang)
        level = f"连{self.lianla}拉{self.lianla}" if self.lianla else ""
        where = M.text("score.verdict.where", lang, level=level, minimum=self.minimum,
                       relief=self.minimum - self.bar) if level else ""
        return M.text("score.verdict.legal" if self.legal else "score.verdict.short", lang,
                      points=self.hand_points, bar=self.bar, where=where, short=self.short_by)

    def fan_counts(self):
        """``{zh name: count}`` of the counted fans."""
        return {f.zh: f.count for f in self.fans}

    def to_frame(self):
        """The fans as a DataFrame (zh, en, points, count, value, excludes, toward the bar)."""
        import pandas as pd  # lazily: scoring does not need pandas

        return pd.DataFrame(
            [{"id": f.id, "zh": f.zh, "en": f.en, "points": f.points, "count": f.count,
              "value": f.value, "excludes": " ".join(f.excludes),
              "toward_bar": f.key not in self.after_minimum} for f in self.fans],
            columns=["id", "zh", "en", "points", "count", "value", "excludes", "toward_bar"])

    def explain(self, lang="zh"):
        """A readable multi-line summary."""
        name = (lambda f: f.zh) if lang == "zh" else (lambda f: f.en)
        if not self.is_win:
            return f"{self.hand}: not a complete hand"
        lines = [f"{self.hand}  [{self.rules}]"]
        width = 14 if lang == "zh" else max([14] + [len(f.en) for f in self.fans])
        if self.wild_as:
            lines.append(f"  wild {self.wild} as {' '.join(self.wild_as)}")
        for f in self.fans:
            cnt = f" x{f.count}" if f.count > 1 else ""
            after = "  (after the minimum)" if f.key in self.after_minimum else ""
            lines.append(f"  {name(f):<{width}} {f.points:>3}{cnt}{after}")
        lines.append(f"  {'total':<{width}} {self.total:>3}"
                     + ("" if self.flowers == 0 else f"  (after the minimum: {self.flowers})"))
        lines.append("  " + self.verdict("zh" if lang == "zh" else "en"))
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def __str__(self):
        return self.explain()

    def _repr_html_(self):
        """Notebook display: the hand as tiles, the fans, 不计 and the verdict."""
        from .display import score_html  # lazily: drawing code is not needed to score

        return score_html(self)


def fan_table(rules="gb"):
    """The fans of a rule set with their points and 不计 lists (a DataFrame)."""
    rs = get_rules(rules)
    cat = fan_catalogue()
    df = cat[["id", "key", "zh", "en", "description"]].copy()
    df["points"] = rs.points
    keys = list(cat["key"])
    df["excludes"] = [" ".join(keys[j] for j in rs.excludes[i]) for i in range(rs.n_fans)]
    df["toward_bar"] = [not a for a in rs.after_minimum] if rs.after_minimum else True
    return df[df["points"] > 0].reset_index(drop=True)


@functools.lru_cache(maxsize=None)
def _set_text(kind, t):
    """Notation of a set's tiles, e.g. ``"123m"`` (cached: every result writes its sets)."""
    return tiles_to_str(set_tiles(kind, t))


_KIND_NAMES = {L.CHOW: "chow", L.PUNG: "pung", L.KONG: "kong"}


def _after_keys(rs):
    cached = rs._cache.get("after_keys")
    if cached is None:
        keys = catalogue_lists().key
        cached = rs._cache["after_keys"] = frozenset(
            keys[i] for i, a in enumerate(rs.after_minimum) if a)
    return cached


def _client_notes(rs, fans, form):
    """What the old 联众 client does differently (seed 000 §六.2, its 惯例 and 偶发)."""
    if not rs.self_drawn_only:
        return []
    keys = {f.key: f for f in fans}
    notes = []
    if "PREVALENT_WIND" in keys and "SEAT_WIND" in keys and "PUNG_OF_TERMINALS_OR_HONORS" in keys:
        k = keys["PUNG_OF_TERMINALS_OR_HONORS"].value
        notes.append(f"the old client does not count 幺九刻 when 圈风刻 and 门风刻 are both "
                     f"present (seed 000 §六 惯例1): it would show {k} fewer")
    if "WILD_KONG" in keys:
        notes.append("the old client quits or drops the connection on 混杠 "
                     "(seed 000 §六 惯例2)")
    if "HEAVENLY_READY" in keys and form in ("knitted straight", "honors and knitted tiles"):
        notes.append("the old client may score 天听 with 组合龙 or 不靠 as 0 "
                     "(seed 000 §六 偶发1)")
    return notes


def _label(cat, i, count):
    if cat.key[i] == "LIANLA":
        return f"连{count}拉{count}", f"{cat.en[i]} 连{count}拉{count}"
    return cat.zh[i], cat.en[i]


def _line_order(f):
    return (f.key != "LIANLA", -f.points, f.id)


def _build_result(hand, rs, total, fan, raw, dec, *, lianla=0, wild=-1, wait_rule="unique"):
    cat = catalogue_lists()
    points = rs.points_list
    present = fan.nonzero()[0].tolist()
    fan_l = dict(zip(present, fan[present].tolist()))
    had = [j for j in raw.nonzero()[0].tolist() if points[j]]
    excludes = rs.excludes
    zh_names = cat.zh
    fans = []
    for i in present:
        zh, en = _label(cat, i, fan_l[i])
        ex = excludes[i]
        fans.append(FanLine(cat.id[i], cat.key[i], zh, en, points[i], fan_l[i],
                            tuple([zh_names[j] for j in had if j in ex]) if ex else ()))
    # 连N拉N first (players say 连2拉2 + 清一色), then highest fan first.
    fans.sort(key=_line_order)
    not_counted = [(zh_names[j], tuple([zh_names[i] for i in present if j in excludes[i]]))
                   for j in had if j not in fan_l]
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
    is_win = total >= 0
    wild_as = [tile_to_str(t) for t in d[L.DEC_WILD:L.DEC_WILD + 4] if t >= 0]
    form_name = _FORM_NAMES[form]
    return ScoreResult(hand=hand, rules=rs.name, total=max(total, 0), fans=fans,
                       not_counted=not_counted, is_win=is_win, minimum=rs.minimum,
                       form=form_name, sets=sets, pair=pair, knitted=knitted,
                       lianla=lianla, bar=rs.threshold(lianla),
                       counted_points=int(d[L.DEC_COUNTED]) if is_win else 0,
                       after_minimum=_after_keys(rs),
                       wild=None if wild < 0 else tile_to_str(wild), wild_as=wild_as,
                       wild_win=bool(d[L.DEC_WILD_WIN]), wait_rule=wait_rule,
                       notes=_client_notes(rs, fans, form_name) if is_win else [])


def _game_options(hand, rs, wild, lianla, wait_rule):
    """Validate the game options against the hand and rule set: (wild, level, flags)."""
    w = V.wild_kind(wild)
    if w >= 0:
        check_wild_melds(hand.melds, w)
    n = rs.streak_level(lianla, hand.seat_wind)
    if rs.self_drawn_only and not hand.self_drawn:
        raise HandError(f"rule set {rs.name!r} wins by self-draw only (自摸): "
                        "pass self_drawn=True", code="bad_flag")
    return w, n, wait_flag(wait_rule)


def score(hand_or_text, rules="gb", *, wild=None, lianla=0, wait_rule="unique", **situation):
    """Score a hand.

    Parameters
    ----------
    hand_or_text : Hand or str
        A hand, or its notation (e.g. ``"[123m]456p789s55mEE E"``).
    rules : str or RuleSet
        ``"gb"`` (default), ``"dazhong"``, ``"dazhong32"`` or a registered /
        derived rule set.
    wild : str, optional
        The wild tile kind of the game (财神), e.g. ``"P"``: every copy in
        the concealed hand stands for whatever tile scores best.
    lianla : int
        The dealer's streak level N (连N拉N, ``dazhong32``, 0..1000): adds 4N
        toward the bar, so the hand itself needs ``max(32 - 4N, 0)``.  Only
        the dealer (seat East) has a level.
    wait_rule : {"unique", "leftmost"}
        ``"unique"``: 边张 / 嵌张 / 单钓将 only on a sole wait (国标);
        ``"leftmost"``: as the old 联众 client reads the hand from the left.
    **situation
        ``self_drawn``, ``last_copy``, ``kong``, ``last_wall``, ``seat_wind``,
        ``round_wind``, ``flowers``, ``win_tile``, ``heavenly_hand`` (天和),
        ``earthly_hand``, ``human_hand``, ``heavenly_ready``, ``earthly_ready``,
        ``declared_ready``, ``double_ready``: override the hand's.

    Returns
    -------
    ScoreResult

    Raises
    ------
    HandError
        If the hand, the situation or a game option is invalid.

    Examples
    --------
    >>> r = score("123456789m111pEE E", rules="dazhong32", self_drawn=True, lianla=2)
    >>> r.bar, r.legal
    (24, True)
    """
    hand = _as_hand(hand_or_text, situation)
    rs = get_rules(rules)
    w, n, flags = _game_options(hand, rs, wild, lianla, wait_rule)
    row = encode_hand(hand, wild=w, lianla=n, flags=flags)
    fan, raw, dec, ws = _buffers(rs.n_fans)
    total = _score_one(row, rs.kernel_rules(), fan, raw, dec, ws)
    return _build_result(hand, rs, total, fan, raw, dec, lianla=n, wild=w, wait_rule=wait_rule)


def _score_one(row, rules, fan, raw, dec, ws):
    """Score one kernel row with the smallest kernel that can: a row with a wild
    tile in hand needs the wild-tile search (``score_hand_row``), a row without
    one does not (``score_plain_row``, the old client's wait fan given).  Each
    kernel compiles on its first use only."""
    w = int(row[L.WILD])
    if w >= 0 and row[L.COUNTS + w] > 0:
        return score_hand_row(row, rules, fan, raw, dec, ws)
    wait_fan = leftmost_wait_fan(row, ws) if row[L.FLAGS] & L.F_LEFTMOST else WAIT_UNIQUE
    return score_plain_row(row, rules, fan, raw, dec, ws, wait_fan)


def _score_many(rows, rules, used, totals, counted, fans, n_chunks):
    """Score kernel rows as :func:`_score_one` does, in parallel."""
    w = rows[:, L.WILD]
    held = np.take_along_axis(rows, np.clip(w, 0, L.N_KINDS - 1)[:, None] + L.COUNTS, axis=1)[:, 0]
    if ((w >= 0) & (held > 0)).any():
        score_rows(rows, rules, used, totals, counted, fans, n_chunks)
        return
    if (rows[:, L.FLAGS] & L.F_LEFTMOST).any():
        wait_fans = np.empty(len(rows), np.int64)
        leftmost_wait_fans(rows, wait_fans)
    else:
        wait_fans = np.full(len(rows), WAIT_UNIQUE, np.int64)
    score_rows_plain(rows, rules, wait_fans, used, totals, counted, fans, n_chunks)


class HandBatch:
    """Many hands encoded as kernel rows (``rows``: int32, shape (n, ROW_LEN)).

    Build one with :meth:`from_hands`.  ``HandBatch(rows)`` takes rows made
    elsewhere (e.g. a saved ``batch.rows``) and validates every field of every
    row first (:func:`check_rows`), so no row the kernel cannot score safely
    gets in.  ``rows`` is a read-only view: a batch cannot be changed after
    the check.

    Parameters
    ----------
    rows : array_like
        Integer array (n, ROW_LEN) in the layout of :mod:`mjkit._kernels.layout`.
    hands : list of Hand, optional

    Raises
    ------
    HandError
        Naming the first bad row and field.
    """

    __slots__ = ("_rows", "hands")

    def __init__(self, rows, hands=None):
        self._rows = check_rows(rows)
        self.hands = hands

    @classmethod
    def _trusted(cls, rows, hands=None):
        # rows encoded here from validated Hands and options: no second check
        batch = object.__new__(cls)
        batch._rows = np.ascontiguousarray(rows, np.int32)
        batch.hands = hands
        return batch

    @property
    def rows(self):
        view = self._rows.view()
        view.setflags(write=False)
        return view

    def __repr__(self):
        return f"HandBatch({len(self)} hands)"

    @classmethod
    def from_hands(cls, hands, keep_hands=False, progress=None, *, wild=None, lianla=0,
                   wait_rule="unique"):
        """Validate and encode a sequence of :class:`Hand` or notation strings.

        Each hand keeps its own situation (the ``|`` suffix of its notation).
        ``wild`` (a tile, or one per hand), ``lianla`` (a level 0..1000, or one
        per hand; only for a dealer, seat East) and ``wait_rule`` are the game
        options of :func:`score`.  ``progress``: show a progress bar (default:
        for 20,000 hands or more).  Errors name the hand's index.
        """
        items = _hand_sequence(hands)
        kinds = _wild_kinds(wild, len(items)).tolist()
        flags = wait_flag(wait_rule)
        levels = _levels(lianla, len(items)).tolist()
        rows = np.zeros((len(items), L.ROW_LEN), np.int32)
        parsed = [] if keep_hands else None
        if progress is None:
            progress = len(items) >= 20_000
        it = enumerate(items)
        if progress:
            from tqdm.auto import tqdm

            it = tqdm(it, total=len(items), desc="parsing hands", unit="hand", leave=False)
        for i, h in it:
            w = kinds[i]
            try:
                hand = _as_hand(h, {})
                if w >= 0:
                    check_wild_melds(hand.melds, w)
                if levels[i] and hand.seat_wind != 0:
                    raise HandError(f"lianla={levels[i]} with seat="
                                    f"{'ESWN'[hand.seat_wind]}: {DEALER_ONLY}", code="bad_flag")
            except HandError as exc:
                raise HandError(f"hand {i}: {exc}", code=exc.code) from None
            encode_hand(hand, rows[i], wild=w, lianla=levels[i], flags=flags)
            if keep_hands:
                parsed.append(hand)
        return cls._trusted(rows, parsed)

    def __len__(self):
        return len(self._rows)


def _hand_sequence(hands):
    """``hands`` as a list, refusing what is not a sequence of hands."""
    if isinstance(hands, (str, Hand)):
        raise HandError("expected a sequence of hands (Hand or notation strings), got one "
                        f"{type(hands).__name__}: use score() for a single hand, or pass "
                        "a list")
    if hands is None or not hasattr(hands, "__iter__"):
        raise HandError("expected a HandBatch or a sequence of hands (Hand or notation "
                        f"strings), got {type(hands).__name__}")
    return list(hands)


def _levels(lianla, n):
    """One validated 连拉 level per hand (int64), from a level or a sequence of them."""
    if isinstance(lianla, (list, tuple, np.ndarray)):
        if len(lianla) != n:
            raise HandError(f"lianla: one level per hand ({n}), got {len(lianla)}")
        arr = np.asarray(lianla) if isinstance(lianla, np.ndarray) else None
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "iu":
            # checked on the array's own dtype: converting first could wrap
            bad = (arr < 0) | (arr > V.MAX_LEVEL)
            if bad.any():
                i = int(np.argmax(bad))
                V.level(arr[i], f"hand {i}: lianla")
            return arr.astype(np.int64)
        out = np.empty(n, np.int64)
        for i, x in enumerate(lianla):
            out[i] = V.level(x, f"hand {i}: lianla")
        return out
    return np.full(n, V.level(lianla), np.int64)


# Flag bits a row may carry (F_WILD_SUBST is the wild search's own).
_ROW_FLAGS = (L.F_SELF_DRAWN | L.F_LAST_COPY | L.F_KONG | L.F_LAST_WALL | L.F_HEAVENLY_HAND
              | L.F_EARTHLY_HAND | L.F_HUMAN_HAND | L.F_HEAVENLY_READY | L.F_EARTHLY_READY
              | L.F_DECLARED_READY | L.F_DOUBLE_READY | L.F_LEFTMOST)
# Flags whose rules involve several fields (Hand._validate): rows with any of
# them are read back into a Hand, which checks them.
_HAND_CHECKED_FLAGS = _ROW_FLAGS & ~(L.F_SELF_DRAWN | L.F_LAST_WALL | L.F_LEFTMOST)
_CODE_KINDS = {L.M_CHOW: ("chow", False), L.M_PUNG: ("pung", False),
               L.M_KONG: ("kong", False), L.M_CKONG: ("kong", True)}


def _column_name(c):
    if c < L.MELDS:
        return f"count of {tile_to_str(c)}"
    if c < L.WIN:
        i, part = divmod(c - L.MELDS, 2)
        return f"meld {i} {'tile' if part else 'code'}"
    return {L.WIN: "win tile", L.FLAGS: "flags", L.SEAT: "seat", L.ROUND: "round",
            L.FLOWERS: "flowers", L.FLOWER_MASK: "flower mask", L.WILD: "wild",
            L.LIANLA: "lianla"}[c]


def _first_bad(bad, what):
    if bad.any():
        i = int(np.argmax(bad))
        raise HandError(f"row {i}: {what(i) if callable(what) else what}")


def check_rows(rows):
    """Validated kernel rows: a C-contiguous int32 copy of ``rows``.

    Every field is checked with whole-array operations: tile counts 0..4 and
    14 tiles with the melds counted as 3, meld codes 0..4 packed at the
    front with a tile valid for the kind, at most 4 copies of a kind, the
    winning tile held, known flag bits, winds 0..3, flowers 0..8 agreeing
    with the flower mask, the wild kind -1..33 and not in a claimed meld,
    the 连拉 level 0..1000 and only for the dealer (East).  Rows with a flag
    whose rules involve several fields (和绝张, 杠, first-turn and ready
    flags) are also read back into a :class:`~mjkit.hand.Hand`.

    Raises
    ------
    HandError
        ``"row i: ..."`` for the first bad row of the first failed check.
    """
    if isinstance(rows, HandBatch):
        return rows._rows
    arr = np.asarray(rows) if isinstance(rows, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(rows)
        except (ValueError, TypeError, OverflowError) as exc:
            raise HandError(f"HandBatch rows must be an integer array (n, {L.ROW_LEN}): "
                            f"{exc}") from None
    if arr.ndim != 2 or arr.shape[1] != L.ROW_LEN:
        raise HandError(f"HandBatch rows must have shape (n, {L.ROW_LEN}), got "
                        f"{arr.shape}")
    if arr.dtype.kind not in "iu":
        raise HandError(f"HandBatch rows must be an integer array, got dtype {arr.dtype}")
    n = len(arr)
    if n == 0:
        return np.zeros((0, L.ROW_LEN), np.int32)
    # range first, on the array's own dtype: casting a wider one would wrap
    out_of_range = (arr < -(2**31)) | (arr > V.INT32_MAX)
    if out_of_range.any():
        i, c = (int(x) for x in np.argwhere(out_of_range)[0])
        raise HandError(f"row {i}: {_column_name(c)} {int(arr[i, c])} does not fit a "
                        "32-bit field")
    r = np.ascontiguousarray(arr, np.int32).copy()
    counts = r[:, L.COUNTS:L.COUNTS + N_KINDS]
    bad = (counts < 0) | (counts > 4)
    _first_bad(bad.any(axis=1), lambda i: f"tile counts must be 0..4, got "
               f"{counts[i][bad[i]].tolist()} of {tiles_to_str(np.flatnonzero(bad[i]).tolist())}")
    codes = r[:, L.MELDS:L.WIN:2]
    mtile = r[:, L.MELDS + 1:L.WIN:2]
    _first_bad(((codes < L.M_NONE) | (codes > L.M_CKONG)).any(axis=1),
               lambda i: f"meld codes must be 0..4, got {codes[i].tolist()}")
    empty = codes == L.M_NONE
    # packed: once a slot is empty, every later one is too (and holds tile 0)
    _first_bad((empty[:, :-1] & ~empty[:, 1:]).any(axis=1),
               "melds must fill the first slots (an empty slot before a meld)")
    _first_bad((empty & (mtile != 0)).any(axis=1), "an empty meld slot holds a tile")
    chow = codes == L.M_CHOW
    bad_tile = ((~empty & ((mtile < 0) | (mtile >= N_KINDS)))
                | (chow & ((mtile >= 27) | (mtile % 9 > 6))))
    _first_bad(bad_tile.any(axis=1), lambda i: f"meld tiles {mtile[i].tolist()} do not fit "
               f"the meld codes {codes[i].tolist()} (a chow starts at 1..7 of a suit)")
    n_melds = (~empty).sum(axis=1)
    total = counts.sum(axis=1)
    _first_bad(total != 14 - 3 * n_melds, lambda i: f"{int(total[i])} concealed tiles with "
               f"{int(n_melds[i])} meld(s), expected {14 - 3 * int(n_melds[i])}")
    every = counts.astype(np.int64)
    rows_idx = np.arange(n)
    for j in range(4):
        t = np.where(empty[:, j], 0, mtile[:, j])
        k = codes[:, j]
        add = np.select([k == L.M_CHOW, k == L.M_PUNG, k >= L.M_KONG], [1, 3, 4], 0)
        every[rows_idx, t] += add
        for d in (1, 2):
            every[rows_idx, np.where(k == L.M_CHOW, t + d, t)] += np.where(k == L.M_CHOW, 1, 0)
    over = every > 4
    _first_bad(over.any(axis=1), lambda i: f"{int(every[i].max())} copies of "
               f"{tile_to_str(int(np.argmax(every[i])))} in hand and melds; only 4 exist")
    win = r[:, L.WIN]
    bad = (win < 0) | (win >= N_KINDS)
    _first_bad(bad, lambda i: f"win tile must be 0..33, got {int(win[i])}")
    _first_bad(counts[rows_idx, win] == 0,
               lambda i: f"the winning tile {tile_to_str(int(win[i]))} is not in the hand")
    flags = r[:, L.FLAGS]
    _first_bad((flags & ~_ROW_FLAGS) != 0,
               lambda i: f"unknown flag bits {int(flags[i]) & ~_ROW_FLAGS:#x}")
    for c, name in ((L.SEAT, "seat"), (L.ROUND, "round")):
        v = r[:, c]
        _first_bad((v < 0) | (v > 3), lambda i, v=v, name=name: f"{name} must be a wind 0..3, "
                   f"got {int(v[i])}")
    fl = r[:, L.FLOWERS]
    _first_bad((fl < 0) | (fl > 8), lambda i: f"flowers must be 0..8, got {int(fl[i])}")
    mask = r[:, L.FLOWER_MASK]
    _first_bad((mask < 0) | (mask > 255), lambda i: f"flower mask must be 0..255, got "
               f"{int(mask[i])}")
    held = np.zeros(n, np.int32)
    for b in range(8):
        held += (mask >> b) & 1
    _first_bad((mask != 0) & (held != fl), lambda i: f"flowers={int(fl[i])} but the flower "
               f"mask holds {int(held[i])}")
    wild = r[:, L.WILD]
    _first_bad((wild < -1) | (wild >= N_KINDS), lambda i: f"wild must be -1 (none) or "
               f"0..33, got {int(wild[i])}")
    _check_wild_rows(r, "row")
    lv = r[:, L.LIANLA]
    _first_bad((lv < 0) | (lv > V.MAX_LEVEL), lambda i: f"lianla must be 0..{V.MAX_LEVEL}, "
               f"got {int(lv[i])}")
    seat = r[:, L.SEAT]
    _first_bad((lv > 0) & (seat != 0), lambda i: f"lianla={int(lv[i])} with seat="
               f"{'ESWN'[int(seat[i])]}: {DEALER_ONLY}")
    for i in np.flatnonzero(flags & _HAND_CHECKED_FLAGS).tolist():
        try:
            _decode_row(r[i])
        except HandError as exc:
            raise HandError(f"row {i}: {exc}", code=exc.code) from None
    return r


def _check_wild_rows(rows, label="hand"):
    """No claimed meld (chow, pung, exposed kong) holds the row's wild kind."""
    w = rows[:, L.WILD]
    for i in range(4):
        mt = rows[:, L.MELDS + 2 * i]
        mtile = rows[:, L.MELDS + 2 * i + 1]
        bad = (((mt == L.M_CHOW) & (mtile <= w) & (w <= mtile + 2))
               | (((mt == L.M_PUNG) | (mt == L.M_KONG)) & (mtile == w)))
        bad &= w >= 0
        if bad.any():
            j = int(np.argmax(bad))
            raise HandError(f"{label} {j}: a meld uses the wild tile {tile_to_str(int(w[j]))}: a "
                            "wild tile can only be in a concealed kong (混杠)", code="bad_meld")


def _decode_row(row):
    """The :class:`Hand` of a structurally valid row (Hand validates the rest)."""
    row = row.tolist()
    concealed = tuple(t for t in range(N_KINDS) for _ in range(row[L.COUNTS + t]))
    melds = []
    for i in range(4):
        code = row[L.MELDS + 2 * i]
        if code:
            kind, closed = _CODE_KINDS[code]
            melds.append(Meld(kind, row[L.MELDS + 2 * i + 1], closed))
    f = row[L.FLAGS]
    mask = row[L.FLOWER_MASK]
    return Hand(concealed, tuple(melds), row[L.WIN],
                **{name: bool(f & bit) for name, bit in _SITUATION_BITS},
                seat_wind=row[L.SEAT], round_wind=row[L.ROUND], flowers=row[L.FLOWERS],
                flower_tiles=tuple(N_KINDS + b for b in range(8) if mask >> b & 1))


@dataclass
class BatchResult:
    """Totals (-1 for an incomplete hand), counted fans and per-fan counts of a batch.

    ``fan_counts[:, j]`` counts fan ``fans[j]`` (catalogue key); the columns
    are the fans the rule set uses, in the order of :func:`fan_table`.
    ``counted`` holds the fans toward the bar (连拉 included; flowers and
    无财神 not), ``lianla`` each hand's level.
    """

    totals: np.ndarray
    fan_counts: np.ndarray
    fans: list
    rules: str
    counted: np.ndarray = None
    lianla: np.ndarray = None
    minimum: int = 0

    @property
    def is_win(self):
        return self.totals >= 0

    @property
    def legal(self):
        """Complete hands whose counted fans (连拉 included) reach the minimum."""
        return self.is_win & (self.counted >= self.minimum)

    @property
    def short_by(self):
        """Fans missing to the bar (0 when legal, -1 for incomplete hands)."""
        return np.where(self.is_win, np.maximum(self.minimum - self.counted, 0), -1)

    def fan_frame(self, lang="zh"):
        """``fan_counts`` as a DataFrame with zh (or en) fan names as columns."""
        cat = catalogue_lists()
        names = cat.zh if lang == "zh" else cat.en
        pos = {k: i for i, k in enumerate(cat.key)}
        import pandas as pd  # lazily: scoring does not need pandas

        return pd.DataFrame(self.fan_counts, columns=[names[pos[k]] for k in self.fans])


def _override(rows, wild, lianla, wait_rule):
    """Rows of an existing batch with other game options (validated)."""
    rows = rows.copy()
    if wild is not None:
        rows[:, L.WILD] = _wild_kinds(wild, len(rows))
        _check_wild_rows(rows)
    if lianla is not None:
        levels = _levels(lianla, len(rows))
        bad = (levels > 0) & (rows[:, L.SEAT] != 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise HandError(f"hand {i}: lianla={int(levels[i])} with seat="
                            f"{'ESWN'[int(rows[i, L.SEAT])]}: {DEALER_ONLY}", code="bad_flag")
        rows[:, L.LIANLA] = levels      # 0..MAX_LEVEL: fits the int32 field
    if wait_rule is not None:
        rows[:, L.FLAGS] = (rows[:, L.FLAGS] & ~L.F_LEFTMOST) | wait_flag(wait_rule)
    return rows


def score_batch(batch, rules="gb", *, wild=None, lianla=None, wait_rule=None):
    """Score every hand of a :class:`HandBatch` in parallel over all cores.

    Parameters
    ----------
    batch : HandBatch or sequence of Hand / str
        A single notation string is refused (use :func:`score`).
    rules : str or RuleSet
    wild, lianla, wait_rule : optional
        Game options as in :func:`score`; given here they replace those the
        batch was built with (``wild`` may give one tile and ``lianla`` one
        level per hand; a level only for a dealer, seat East).

    Raises
    ------
    HandError
        Naming the hand (its index) for a bad hand or game option.

    Returns
    -------
    BatchResult
        ``totals`` (n,), ``counted`` (n,) and ``fan_counts`` (n, number of
        fans of the rule set), columns in the order of :func:`fan_table`.
        Numbers do not depend on the number of threads.
    """
    if not isinstance(batch, HandBatch):
        batch = HandBatch.from_hands(batch, wild=wild,
                                     lianla=0 if lianla is None else lianla,
                                     wait_rule="unique" if wait_rule is None else wait_rule)
        rows = batch._rows
    elif wild is None and lianla is None and wait_rule is None:
        rows = batch._rows
    else:
        rows = _override(batch._rows, wild, lianla, wait_rule)
    rs = get_rules(rules)
    n = len(rows)
    if n:
        if rs.self_drawn_only:
            bad = (rows[:, L.FLAGS] & L.F_SELF_DRAWN) == 0
            if bad.any():
                raise HandError(f"hand {int(np.argmax(bad))}: rule set {rs.name!r} wins by "
                                "self-draw only (自摸)", code="bad_flag")
        top = int(rows[:, L.LIANLA].max())
        if top:
            rs.threshold(top)  # raises if the rule set has no 连拉
    used = rs.used_fans()
    totals = np.empty(n, np.int64)
    counted = np.empty(n, np.int64)
    fans = np.empty((n, len(used)), np.int32)
    if n:
        # Chunks are independent; a few per thread keeps the cores busy.
        n_chunks = max(1, min(n, 4 * numba.get_num_threads()))
        _score_many(rows, rs.kernel_rules(), rs.used_array(), totals, counted, fans, n_chunks)
    keys = catalogue_lists().key
    return BatchResult(totals=totals, fan_counts=fans, fans=[keys[i] for i in used],
                       rules=rs.name, counted=counted,
                       lianla=rows[:, L.LIANLA].astype(np.int64), minimum=rs.minimum)
