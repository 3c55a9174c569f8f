"""Shanten (向听) and useful tiles (有效牌) in every form.

``shanten(hand)`` says how far a hand is from winning: -1 complete, 0 ready
(听牌), 1 one tile from ready (一向听), ...; per form (regular, 七对, 十三幺,
全不靠 / 七星不靠, 组合龙) and overall, with melds taken into account, and
the tiles that bring it closer together with how many copies are still
unseen.  ``shanten_batch`` does many hands at once in parallel.

Conventions
-----------
* A hand is its concealed tiles plus ``k`` declared melds (concealed kongs
  included).  With ``13 - 3k`` concealed tiles it is waiting for a tile:
  shanten counts the draws (each followed by a discard) still needed to be
  ready.  With ``14 - 3k`` tiles (a :class:`~mjkit.hand.Hand` always has
  14 counting each meld as 3) it has just drawn: shanten is the value after
  the best discard, -1 when the hand is complete, and ``.discards`` lists
  every discard with what it leaves.
* Only copies that exist count: a kind never reaches more than 4 copies
  counting the hand's own melds.  PyMahjongGB's block count lets a quad
  ``1111p`` wait on a fifth ``1p``; here such a hand is not ready.
  ``shanten_batch(..., copy_limit=False)`` gives the block-count reading.
* Visible tiles (discards, other players' melds) never change the shanten;
  they only lower the unseen counts of the useful tiles.
* 七对, 十三幺 and 全不靠 need a closed hand without any meld; 组合龙 allows
  one meld.  Forms a hand's melds rule out are ``None`` per form.

Examples
--------
>>> r = shanten("123m456p789s EES P")
>>> r.shanten, r.by_form["regular"], r.by_form["seven_pairs"]
(1, 1, 5)
>>> r.useful
[('E', 2), ('S', 3), ('P', 3)]
>>> shanten("[123m]456p789s55mEE E").shanten
-1
>>> shanten("123456789m1111p").shanten   # no fifth 1p: not ready
1
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from ._lazy import pandas as pd  # imported on first use: scoring needs no pandas

from . import _cache
from ._cache import cache_dir
from ._kernels import shanten as K
from ._kernels.bundles import ShantenTables
from .errors import HandError
from .hand import (MAX_TEXT_LEN, Hand, Meld, hand_text, parse_hand, parse_meld, parse_situation,
                   read_tile_part)
from .tiles import (N_KINDS, TILE_NAMES_ZH, tile_from_str, tile_index, tile_to_str,
                    tiles_of_counts)
from .validate import lang as check_lang
from .validate import visible_counts

__all__ = ["FORMS", "FORM_NAMES", "NO_FORM", "TABLE_INFO", "ShantenResult", "DiscardOption",
           "ShantenBatch", "shanten", "shanten_batch", "shanten_tables",
           "build_shanten_tables", "read_hand_counts"]

#: Form keys, in the order of ``ShantenBatch.by_form`` columns.
FORMS = ("regular", "seven_pairs", "thirteen_orphans", "honors_knitted", "knitted_straight")
#: English and Chinese names of the forms.
FORM_NAMES = {
    "regular": ("regular", "基本和型"),
    "seven_pairs": ("seven pairs", "七对"),
    "thirteen_orphans": ("thirteen orphans", "十三幺"),
    "honors_knitted": ("honours and knitted tiles", "全不靠"),
    "knitted_straight": ("knitted straight", "组合龙"),
}
#: Per-form shanten in :func:`shanten_batch` for a form the melds rule out.
NO_FORM = K.NO_FORM

_ZH_NUM = "零一二三四五六七八九十"


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------

def build_shanten_tables() -> tuple[np.ndarray, np.ndarray]:
    """Build the suit and honour distance tables from scratch (no caching).

    Returns
    -------
    suit : numpy.ndarray
        uint8 ``(5**9, 10)``, about 19.5 MB: for every one-suit pattern and
        every (sets s = 0..4, pair p = 0..1), column ``2 * s + p``, the least
        number of tiles to add so that part of the pattern plus the added
        tiles splits into exactly ``s`` sets and ``p`` pairs.
    honor : numpy.ndarray
        uint8 ``(5**7, 10)``, the same for the honours (0.8 MB).

    Notes
    -----
    Both build in about 0.2 s; :func:`shanten_tables` keeps them on disk so
    that processes share one memory-mapped copy.
    """
    return K.build_dist_table(9, True), K.build_dist_table(7, False)


#: The on-disk form of the cached tables (part of their file names): bump it when
#: the files change, so that caches in the old form are ignored and rebuilt once.
_FORMAT = 2


#: How :func:`shanten_tables` got its tables: ``source`` ("disk" or "built"),
#: ``folder`` (the cache folder, ``None`` if none was used) and ``seconds``;
#: filled on first use.
TABLE_INFO: dict[str, Any] = {}


def _names(stem: str) -> dict[str, str]:
    return {"suit": f"{stem}_suit.npy", "honor": f"{stem}_honor.npy"}


def _load(folder: Path, stem: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The cached tables if present and intact, else None (with a warning if damaged).

    Intact: the manifest ``{stem}.manifest.json`` is whole and every file matches
    its digest; the arrays are then read-only views of the very bytes that
    were checked (see :mod:`mjkit._cache`), of the expected shape and type.
    """
    names = _names(stem)
    found = _cache.read_set(folder / f"{stem}.manifest.json", names.values())
    if found is None:
        return None
    _meta, files = found
    shapes = {"suit": (K.N_SUIT_KEYS, K.N_SP), "honor": (K.N_HONOR_KEYS, K.N_SP)}
    tables = []
    for name, shape in shapes.items():
        try:
            table = _cache.npy_array(files[names[name]])
            if table.shape != shape or table.dtype != np.uint8:
                raise ValueError(f"shape {table.shape} {table.dtype}, expected {shape} uint8")
        except Exception as exc:     # noqa: BLE001 - anything unexpected is damage
            _cache.warn_damaged(folder / names[name], exc)
            return None
        tables.append(table)
    return tables[0], tables[1]


def _save(folder: Path, stem: str, suit: np.ndarray, honor: np.ndarray) -> bool:
    """Write the tables, then their manifest; each file appears whole (rename)."""
    names = _names(stem)
    try:
        _cache.write_set(folder / f"{stem}.manifest.json",
                         {names["suit"]: _cache.npy_writer(suit),
                          names["honor"]: _cache.npy_writer(honor)},
                         {"table_version": K.TABLE_VERSION, "format": _FORMAT})
    except OSError:
        return False   # no writable cache: the tables live in memory only
    return True


def _load_or_build() -> tuple[np.ndarray, np.ndarray]:
    t = time.perf_counter()
    folder = cache_dir()
    stem = f"shanten_v{K.TABLE_VERSION}_f{_FORMAT}"
    found = None if folder is None else _load(folder, stem)
    if found is not None:
        TABLE_INFO.update(source="disk", folder=str(folder), seconds=time.perf_counter() - t)
        return found
    suit, honor = build_shanten_tables()
    saved = folder is not None and _save(folder, stem, suit, honor)
    TABLE_INFO.update(source="built", folder=str(folder) if saved else None,
                      seconds=time.perf_counter() - t)
    return suit, honor


@functools.lru_cache(maxsize=None)
def shanten_tables() -> tuple[np.ndarray, np.ndarray]:
    """The tables of :func:`build_shanten_tables`, once per process, read-only.

    They are read from the user cache (``$MJKIT_CACHE_DIR``, default
    ``~/.cache/mjkit``; set it to an empty string to turn the cache off),
    memory-mapped and checked against the digests of their manifest; when
    missing, stale (another ``TABLE_VERSION``) or failing the check in any
    way they are built (about 0.2 s, with one warning if they were damaged)
    and written there if the folder is writable.  :data:`TABLE_INFO` says
    which.
    """
    suit, honor = _load_or_build()
    suit.setflags(write=False)
    honor.setflags(write=False)
    return suit, honor


# --------------------------------------------------------------------------
# reading the input
# --------------------------------------------------------------------------

def _meld_list(melds: Any) -> list[Meld]:
    if melds is None:
        return []
    if isinstance(melds, str):
        if len(melds) > MAX_TEXT_LEN:
            raise HandError(f"input too long: {len(melds)} characters (at most {MAX_TEXT_LEN})")
        found, loose = read_tile_part(melds)
        if loose:
            raise HandError(f"melds {melds!r} contain tiles outside brackets")
        return found
    if isinstance(melds, Meld):
        return [melds]
    try:
        items = list(melds)
    except TypeError:
        raise HandError("melds must be notation or Meld objects, "
                        f"got {type(melds).__name__}") from None
    return [m if isinstance(m, Meld) else parse_meld(m) for m in items]


def _tile_list(items: Any, what: str) -> list[int]:
    """Tile indices 0..41 from notation or an iterable of indices / tile strings."""
    if isinstance(items, str):
        if len(items) > MAX_TEXT_LEN:
            raise HandError(f"input too long: {len(items)} characters (at most {MAX_TEXT_LEN})")
        melds, loose = read_tile_part(items)
        return loose + [t for m in melds for t in m.tiles]
    try:
        seq = list(items)
    except TypeError:
        raise HandError(f"{what} must be notation or a sequence of tiles, "
                        f"got {type(items).__name__}") from None
    if len(seq) > 200:
        raise HandError(f"too many {what} ({len(seq)})")
    return [tile_from_str(t) if isinstance(t, str) else tile_index(t) for t in seq]


def _counts_of(tiles: list[int]) -> np.ndarray:
    counts = np.zeros(N_KINDS, np.int64)
    for t in tiles:
        if t < N_KINDS:  # flowers are set aside: they never join a hand
            counts[t] += 1
    return counts


def _read_hand(hand: Any, melds: Any) -> tuple[np.ndarray, list[Meld]]:
    """Concealed counts and melds of any accepted input (not yet validated)."""
    if isinstance(hand, Hand):
        if melds is not None:
            raise HandError("melds= is for tiles or counts; a Hand has its own melds")
        return _counts_of(list(hand.concealed)), list(hand.melds)
    if isinstance(hand, str):
        if melds is not None:
            raise HandError("melds= is for tiles or counts; write melds in the notation")
        if len(hand) > MAX_TEXT_LEN:
            raise HandError(f"input too long: {len(hand)} characters (at most {MAX_TEXT_LEN})")
        tile_part, bar, suffix = hand.partition("|")
        # A situation suffix is checked, then ignored (it does not change the
        # shanten), except win_tile=, which adds a tile: read as a full hand.
        if bar and "win_tile" in parse_situation(suffix):
            h = parse_hand(hand)
            return _counts_of(list(h.concealed)), list(h.melds)
        found, loose = read_tile_part(tile_part)
        return _counts_of(loose), found
    meld_list = _meld_list(melds)
    if isinstance(hand, np.ndarray):
        if hand.shape == (N_KINDS,):
            if not np.issubdtype(hand.dtype, np.integer):
                raise HandError(f"counts must be integers, got dtype {hand.dtype}")
            return hand.astype(np.int64), meld_list
        if hand.ndim != 1:
            raise HandError(f"expected 34 counts or a list of tiles, got shape {hand.shape}")
        return _counts_of(_tile_list(hand.tolist(), "tiles")), meld_list
    if isinstance(hand, (list, tuple)) and len(hand) == N_KINDS and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in hand):
        # 34 integers are counts: no hand has 34 tiles
        return np.array([int(x) for x in hand], np.int64), meld_list
    return _counts_of(_tile_list(hand, "tiles")), meld_list


def _check(counts: np.ndarray, melds: list[Meld], visible: np.ndarray) -> np.ndarray:
    """Validate counts and copies; return the melded copies per kind.

    Works on lists: for 34 numbers they are faster than numpy calls.
    """
    if len(melds) > 4:
        raise HandError(f"more than 4 melds ({len(melds)})")
    c = counts.tolist()
    if min(c) < 0:
        t = min(range(N_KINDS), key=c.__getitem__)
        raise HandError(f"negative count {c[t]} for {tile_to_str(t)}")
    n = sum(c)
    k = len(melds)
    if n not in (13 - 3 * k, 14 - 3 * k):
        plural = "" if k == 1 else "s"
        raise HandError(f"wrong number of tiles: {n} concealed with {k} meld{plural}, "
                        f"expected {13 - 3 * k} or {14 - 3 * k}")
    melded = [0] * N_KINDS
    for m in melds:
        for t in m.tiles:
            melded[t] += 1
    for t in range(N_KINDS):
        own = c[t] + melded[t]
        if own > 4:
            raise HandError(f"{own}th copy of {tile_to_str(t)} ({c[t]} in hand, "
                            f"{melded[t]} in melds); only 4 exist", code="too_many_copies")
    v = visible.tolist()
    for t in range(N_KINDS):
        if c[t] + melded[t] + v[t] > 4:
            raise HandError(f"{c[t] + melded[t] + v[t]} copies of {tile_to_str(t)}: "
                            f"{c[t] + melded[t]} in the hand and its melds, {v[t]} visible; "
                            "only 4 exist", code="too_many_copies")
    return np.array(melded, np.int64)


def read_hand_counts(hand: Any, melds: Any = None, visible: Any = None):
    """Read and check a hand as :func:`shanten` accepts it (shared by
    :func:`mjkit.distance_to` and :func:`mjkit.targets`).

    Parameters
    ----------
    hand, visible, melds
        As for :func:`shanten`.

    Returns
    -------
    counts : numpy.ndarray
        Concealed tiles per kind, int64 ``(34,)``.
    melds : list of Meld
    melded : numpy.ndarray
        Copies per kind in the melds, int64 ``(34,)``.
    seen : numpy.ndarray
        Visible copies per kind, int64 ``(34,)``.

    Raises
    ------
    HandError
        As :func:`shanten` does.
    """
    counts, meld_list = _read_hand(hand, melds)
    seen = visible_counts(visible)
    if counts.shape != (N_KINDS,):
        raise HandError(f"expected 34 counts, got shape {counts.shape}")
    melded = _check(counts, meld_list, seen)
    return counts, meld_list, melded, seen


# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------

def _shanten_zh(s: int | None) -> str:
    if s is None:
        return "—"
    if s < 0:
        return "和了"
    if s == 0:
        return "听牌"
    return f"{_ZH_NUM[s] if s <= 10 else s}向听"


def _shanten_en(s: int | None) -> str:
    if s is None:
        return "impossible"
    if s < 0:
        return "complete"
    if s == 0:
        return "ready"
    return f"{s}-shanten"


@dataclass(frozen=True)
class DiscardOption:
    """One discard of a 14-tile hand and what it leaves.

    Attributes
    ----------
    discard : str
        The tile thrown (notation).
    shanten : int
        Shanten of the 13 tiles left.
    by_form : dict of str to int or None
        The same per form.
    useful : list of (str, int)
        Useful tiles of what is left, with their unseen copies.
    unseen_total : int
        Sum of those copies.
    """

    discard: str
    shanten: int
    by_form: dict[str, int | None]
    useful: list[tuple[str, int]]
    unseen_total: int


@dataclass(frozen=True)
class ShantenResult:
    """Shanten of a hand in every form, with its useful tiles.

    Attributes
    ----------
    shanten : int
        Best over the forms: -1 complete, 0 ready (听牌), n n-shanten.
    by_form : dict of str to int or None
        Per form (keys :data:`FORMS`); ``None`` where the melds rule it out.
        For a 14-tile hand, each form's value after its own best discard.
    useful : list of (str, int)
        Tiles that lower the shanten (有效牌), with the copies still unseen
        (4 minus those in the hand, its melds and ``visible``), in tile
        order; a tile whose other copies are all visible stays listed, with
        0.  For a 14-tile hand: those of the best discard (:attr:`discard`).
    useful_by_form : dict of str to list or None
        Useful tiles of each form on its own.
    unseen_total : int
        Unseen copies of all useful tiles (the number of winning draws when
        ready).
    tiles : str
        The hand analysed, in notation (melds first).
    n_tiles : int
        13 or 14, counting each meld as 3 tiles.
    discard : str or None
        14-tile hands: the best discard (lowest shanten, then most unseen
        useful copies, then lowest tile); ``None`` for 13 tiles.
    discards : list of DiscardOption or None
        14-tile hands: every distinct discard, best first.
    """

    shanten: int
    by_form: dict[str, int | None]
    useful: list[tuple[str, int]]
    useful_by_form: dict[str, list[tuple[str, int]] | None]
    unseen_total: int
    tiles: str
    n_tiles: int
    discard: str | None = None
    discards: list[DiscardOption] | None = field(default=None, repr=False)

    @property
    def is_complete(self) -> bool:
        """True for a complete 14-tile hand."""
        return self.shanten < 0

    def explain(self, lang: str = "en") -> str:
        """A few readable lines: the value, each form, the useful tiles or discards.

        Parameters
        ----------
        lang : {"en", "zh"}
        """
        zh = check_lang(lang) == "zh"
        say = _shanten_zh if zh else _shanten_en
        lines = []
        if self.n_tiles == 14 and self.shanten >= 0:
            after = "（打出最佳一张后）" if zh else " after the best discard"
        else:
            after = ""
        size = f"{self.n_tiles}张" if zh else f"{self.n_tiles} tiles"
        head = f"{self.tiles} ({size}): {say(self.shanten)}{after}"
        lines.append(head)
        parts = []
        for f in FORMS:
            s = self.by_form[f]
            name = FORM_NAMES[f][1 if zh else 0]
            parts.append(f"{name} {'—' if s is None else s}")
        lines.append("  " + (" · ".join(parts)))
        if self.n_tiles == 14 and self.discards:
            lines.append("  打出     向听   种数   张数  有效牌" if zh else
                         "  discard  shanten  kinds  unseen  useful tiles")
            for d in self.discards:
                tiles = " ".join(t for t, _ in d.useful)
                lines.append(f"  {d.discard:<7}{d.shanten:>8}{len(d.useful):>7}"
                             f"{d.unseen_total:>8}  {tiles}")
        elif self.useful:
            label = "有效牌" if zh else "useful tiles (有效牌)"
            kinds = f"{len(self.useful)} 种, 共 {self.unseen_total} 张" if zh else \
                f"{len(self.useful)} kinds, {self.unseen_total} unseen copies"
            lines.append(f"  {label}: {kinds}")
            lines.append("  " + "  ".join(f"{t}×{n}" for t, n in self.useful))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()

    def to_frame(self) -> pd.DataFrame:
        """13 tiles: one row per useful tile; 14 tiles: one row per discard.

        Returns
        -------
        pandas.DataFrame
            13 tiles: ``tile``, ``name`` (Chinese), ``unseen`` and a bool
            column per possible form (useful for that form).  14 tiles:
            ``discard``, ``shanten``, ``kinds``, ``unseen``, ``useful`` and
            the shanten per form.
        """
        if self.n_tiles == 14 and self.discards is not None:
            rows = []
            for d in self.discards:
                row = {"discard": d.discard, "shanten": d.shanten, "kinds": len(d.useful),
                       "unseen": d.unseen_total, "useful": " ".join(t for t, _ in d.useful)}
                row.update({f: d.by_form[f] for f in FORMS if d.by_form[f] is not None})
                rows.append(row)
            return pd.DataFrame(rows)
        forms = [f for f in FORMS if self.useful_by_form[f] is not None]
        sets = {f: {t for t, _ in self.useful_by_form[f]} for f in forms}
        rows = []
        for t, n in self.useful:
            row = {"tile": t, "name": TILE_NAMES_ZH[tile_from_str(t)], "unseen": n}
            row.update({f: t in sets[f] for f in forms})
            rows.append(row)
        return pd.DataFrame(rows, columns=["tile", "name", "unseen"] + forms)


# --------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------

_NO_MELDS = np.zeros((1, N_KINDS), np.int64)
_UNUSED = np.zeros((1, K.N_FORMS), np.int64)


def _run(counts: np.ndarray, n_melds: np.ndarray, melded: np.ndarray | None, mode: int,
         copy_limit: bool = True, parallel: bool = False):
    """Run the kernel; ``melded=None``: no melded copies in any hand.

    Returns (shanten, by_form, useful) arrays (the last two ``None`` when the
    mode does not fill them); a row that is no hand has shanten
    ``K.INVALID``.
    """
    tabs = ShantenTables(*shanten_tables())
    n = counts.shape[0]
    out_s = np.empty(n, np.int64)
    out_f = np.empty((n, K.N_FORMS), np.int64) if mode != K.MODE_OVERALL else _UNUSED
    out_u = np.empty((n, K.N_FORMS), np.int64) if mode == K.MODE_USEFUL else _UNUSED
    kernel = K.shanten_rows if parallel else K.shanten_rows_serial
    kernel(counts, n_melds, _NO_MELDS if melded is None else melded,
           1 if copy_limit else 0, mode, tabs, out_s, out_f, out_u)
    return (out_s, out_f if mode != K.MODE_OVERALL else None,
            out_u if mode == K.MODE_USEFUL else None)


_TILE_TEXT = tuple(tile_to_str(t) for t in range(N_KINDS))
# _BYTE_TILES[j][b]: the tile indices of the set bits of byte b at byte j of
# a 34-bit mask, so a mask reads as five lookups instead of a bit loop.
_BYTE_TILES = tuple(tuple(tuple(8 * j + r for r in range(8) if (b >> r) & 1 and 8 * j + r < N_KINDS)
                          for b in range(256)) for j in range(5))


def _useful_list(mask: int, unseen: list[int]) -> list[tuple[str, int]]:
    """(tile, unseen copies) for each bit of ``mask``, in tile order."""
    m = int(mask)
    tiles = (_BYTE_TILES[0][m & 255] + _BYTE_TILES[1][(m >> 8) & 255]
             + _BYTE_TILES[2][(m >> 16) & 255] + _BYTE_TILES[3][(m >> 24) & 255]
             + _BYTE_TILES[4][(m >> 32) & 255])
    return [(_TILE_TEXT[t], unseen[t]) for t in tiles]


def _forms_dict(row: np.ndarray) -> dict[str, int | None]:
    return {f: (None if int(v) == NO_FORM else int(v)) for f, v in zip(FORMS, row)}


def _overall_mask(forms_row: np.ndarray, masks_row: np.ndarray, best: int) -> int:
    """Tiles that lower the overall value: those of the forms at the best value."""
    mask = 0
    for v, m in zip(forms_row, masks_row):
        if int(v) == best:
            mask |= int(m)
    return mask


def shanten(hand: Any, visible: Any = None, *, melds: Any = None) -> ShantenResult:
    """Shanten (向听) of a hand in every form, with useful tiles (有效牌).

    Parameters
    ----------
    hand : Hand, str, array of 34 counts, or sequence of tiles
        A :class:`~mjkit.hand.Hand` (14 tiles); notation with optional melds
        such as ``"[123m]456p789s55mEE"`` (13 or 14 tiles counting each meld
        as 3; a ``| situation`` suffix is checked and ignored, except
        ``win_tile=``, which adds the tile); 34 concealed counts; or tile
        indices / tile strings.  Flowers are set aside.
    visible : str or sequence of tiles, optional
        Tiles seen elsewhere (discards, other players' melds, in notation
        ``"1m9p[555s]"`` or as a list); they lower the unseen counts only.
        Read by :func:`mjkit.validate.visible_counts` (flowers set aside).
    melds : str or sequence of Meld, optional
        The hand's melds when ``hand`` is counts or a tile list
        (``"[123m]{EEEE}"``).

    Returns
    -------
    ShantenResult

    Raises
    ------
    HandError
        Unknown tiles, a fifth copy (hand, melds and visible tiles
        together), a tile count other than 13 - 3k / 14 - 3k with k melds,
        or a ``visible`` that is not tiles (the message names ``visible``).

    Examples
    --------
    >>> r = shanten("1112345678999m E")    # 九莲宝灯 and a stray East
    >>> r.shanten, r.discard, len(r.useful)   # throw the East: nine waits
    (0, 'E', 9)
    >>> r = shanten("19m19p19s1234567z", visible="E E")
    >>> r.by_form["thirteen_orphans"], r.unseen_total
    (0, 37)
    """
    counts, meld_list, melded, seen = read_hand_counts(hand, melds, visible)
    k = len(meld_list)
    # A discarded tile joins the visible ones, so these counts also hold
    # after any discard of a 14-tile hand.
    unseen = (4 - counts - melded - seen).tolist()
    text = hand_text(tiles_of_counts(counts), meld_list)
    if int(counts.sum()) == 13 - 3 * k:
        s, f, u = _run(counts[None, :].copy(), np.array([k], np.int64),
                       melded[None, :].copy(), K.MODE_USEFUL)
        best, by_form, useful, useful_by_form = _waiting(int(s[0]), f[0], u[0], unseen)
        return ShantenResult(best, by_form, useful, useful_by_form,
                             sum(n for _, n in useful), text, 13)
    s, f, _ = _run(counts[None, :].copy(), np.array([k], np.int64),
                   melded[None, :].copy(), K.MODE_FORMS)
    # every distinct discard, as one batch of 13-tile hands
    kinds = [t for t in range(N_KINDS) if counts[t] > 0]
    rows = np.repeat(counts[None, :], len(kinds), axis=0)
    rows[np.arange(len(kinds)), kinds] -= 1
    ds, df, du = _run(rows, np.full(len(kinds), k, np.int64),
                      np.repeat(melded[None, :], len(kinds), axis=0), K.MODE_USEFUL)
    options = []
    for i, t in enumerate(kinds):
        after, forms, useful, useful_by_form = _waiting(int(ds[i]), df[i], du[i], unseen)
        total = sum(n for _, n in useful)
        option = DiscardOption(tile_to_str(t), after, forms, useful, total)
        options.append(((after, -total, t), option, useful_by_form))
    options.sort(key=lambda o: o[0])
    _, top, top_by_form = options[0]
    return ShantenResult(int(s[0]), _forms_dict(f[0]), top.useful, top_by_form,
                         top.unseen_total, text, 14, discard=top.discard,
                         discards=[o[1] for o in options])


def _waiting(best: int, forms_row: np.ndarray, masks_row: np.ndarray, unseen: list[int]):
    """(shanten, by_form, useful, useful_by_form) of one 13-tile kernel row."""
    by_form = _forms_dict(forms_row)
    useful_by_form = {name: (None if by_form[name] is None
                             else _useful_list(int(masks_row[i]), unseen))
                      for i, name in enumerate(FORMS)}
    useful = _useful_list(_overall_mask(forms_row, masks_row, best), unseen)
    return best, by_form, useful, useful_by_form


# --------------------------------------------------------------------------
# batch
# --------------------------------------------------------------------------

class ShantenBatch(NamedTuple):
    """Results of :func:`shanten_batch` (arrays, one row per hand)."""

    #: int64 ``(n,)``: overall shanten.
    shanten: np.ndarray
    #: int64 ``(n, 5)``: per form in :data:`FORMS` order (:data:`NO_FORM`
    #: when the melds rule it out), or ``None`` if not asked for.
    by_form: np.ndarray | None
    #: int64 ``(n, 5)``: useful tiles per form as bit masks (bit t = tile
    #: index t), or ``None`` if not asked for.
    useful: np.ndarray | None


def shanten_batch(counts: Any, n_melds: Any = None, melded: Any = None, *,
                  forms: bool = False, useful: bool = False,
                  copy_limit: bool = True) -> ShantenBatch:
    """Shanten of many hands at once, in parallel over all numba threads.

    Parameters
    ----------
    counts : array_like of int, shape (n, 34)
        Concealed counts of each hand: ``13 - 3k`` or ``14 - 3k`` tiles.
    n_melds : array_like of int, shape (n,), optional
        Declared melds per hand (default 0).
    melded : array_like of int, shape (n, 34), optional
        Copies of each kind inside those melds (a kong counts 4); default
        none.  Only needed for the copy limit.
    forms : bool, default False
        Also return the shanten of every form (slightly slower: the overall
        value alone skips forms that cannot be best).
    useful : bool, default False
        Also return the useful tiles per form (implies ``forms``; meaningful
        for ``13 - 3k`` tiles).
    copy_limit : bool, default True
        False reads hands as PyMahjongGB's block count does, as if every
        kind had unlimited copies (melded copies ignored too).

    Returns
    -------
    ShantenBatch

    Raises
    ------
    HandError
        Bad shapes, counts outside 0..4, more than 4 copies with the melds,
        or a row with the wrong number of tiles.
    """
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] != N_KINDS or not np.issubdtype(c.dtype, np.integer):
        raise HandError(f"counts must be an integer array of shape (n, 34), got "
                        f"{c.dtype} {c.shape}")
    c = np.ascontiguousarray(c, dtype=np.int64)
    n = c.shape[0]
    k = np.zeros(n, np.int64) if n_melds is None else np.ascontiguousarray(n_melds, dtype=np.int64)
    m = None if melded is None else np.ascontiguousarray(melded, dtype=np.int64)
    if k.shape != (n,) or (m is not None and m.shape != (n, N_KINDS)):
        raise HandError(f"n_melds must have shape ({n},) and melded ({n}, 34)")
    mode = K.MODE_USEFUL if useful else (K.MODE_FORMS if forms else K.MODE_OVERALL)
    # The kernel checks every row as it reads it; report the first bad one.
    s, f, u = _run(c, k, m, mode, copy_limit=copy_limit, parallel=True)
    bad = np.flatnonzero(s == K.INVALID)
    if bad.size:
        i = int(bad[0])
        where = f"row {i}: counts {c[i].tolist()}, {int(k[i])} melds"
        if m is not None:
            where += f", melded {m[i].tolist()}"
        raise HandError(f"{where}: not a hand (counts 0..4, at most 4 copies with the "
                        f"melds, {13 - 3 * int(k[i])} or {14 - 3 * int(k[i])} tiles)")
    return ShantenBatch(s, f, u)
