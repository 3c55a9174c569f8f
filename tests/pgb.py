"""Adapter from a contract ``Hand`` to PyMahjongGB (module ``MahjongGB``).

PyMahjongGB wraps the C++ ChineseOfficialMahjong fan calculator and serves as
the independent oracle for ``mjkit.score(..., rules="gb")``.  The C code does
not validate everything: five copies of a tile or too many tiles can crash
the interpreter or return garbage (a fan count of 255), so :func:`pgb_fans`
checks the hand in Python before calling it.

Any object with the contract's ``Hand`` attributes is accepted (``concealed``,
``melds`` of objects with ``kind``/``tile``/``concealed``, ``win_tile``,
``self_drawn``, ``last_copy``, ``kong``, ``last_wall``, ``seat_wind``,
``round_wind``, ``flowers``), in particular ``mjkit.hand.Hand`` and
``mjkit.random_hands.RandomHand`` (a ``Hand``).
"""

from __future__ import annotations

from collections import Counter

try:  # The oracle is optional: tests that need it skip when it is missing.
    import MahjongGB as _mgb
except ImportError:  # pragma: no cover
    _mgb = None

#: PyMahjongGB code of each of our 34 tile indices.  W = 万 characters (m),
#: B = 饼 dots (p), T = 条 bamboo (s), F1..F4 = E S W N, J1 = 中, J2 = 发,
#: J3 = 白 (our C=33, F=32, P=31).
TILE_CODES: tuple[str, ...] = (
    tuple(f"W{i}" for i in range(1, 10))
    + tuple(f"B{i}" for i in range(1, 10))
    + tuple(f"T{i}" for i in range(1, 10))
    + ("F1", "F2", "F3", "F4", "J3", "J2", "J1")
)

#: The 81 fan kinds of PyMahjongGB as it names them (80 fans + 花牌), in its
#: table order.  Its single-wait fans are called 独听・边张 / 独听・嵌张 /
#: 独听・单钓.  PyMahjongGB also has a non-standard 82nd line, 明暗杠 (5 points,
#: one concealed and one melded kong), listed in :data:`PGB_EXTRA_FANS`.
PGB_FAN_NAMES: tuple[str, ...] = (
    "大四喜", "大三元", "绿一色", "九莲宝灯", "四杠", "连七对", "十三幺",
    "清幺九", "小四喜", "小三元", "字一色", "四暗刻", "一色双龙会",
    "一色四同顺", "一色四节高",
    "一色四步高", "三杠", "混幺九",
    "七对", "七星不靠", "全双刻", "清一色", "一色三同顺", "一色三节高", "全大", "全中", "全小",
    "清龙", "三色双龙会", "一色三步高", "全带五", "三同刻", "三暗刻",
    "全不靠", "组合龙", "大于五", "小于五", "三风刻",
    "花龙", "推不倒", "三色三同顺", "三色三节高", "无番和", "妙手回春", "海底捞月", "杠上开花", "抢杠和",
    "碰碰和", "混一色", "三色三步高", "五门齐", "全求人", "双暗杠", "双箭刻",
    "全带幺", "不求人", "双明杠", "和绝张",
    "箭刻", "圈风刻", "门风刻", "门前清", "平和", "四归一", "双同刻", "双暗刻", "暗杠", "断幺",
    "一般高", "喜相逢", "连六", "老少副", "幺九刻", "明杠", "缺一门", "无字",
    "独听・边张", "独听・嵌张", "独听・单钓", "自摸",
    "花牌",
)
PGB_EXTRA_FANS: tuple[str, ...] = ("明暗杠",)

# Names that mean the same fan in other catalogues; used to compare mjkit's
# names with PyMahjongGB's.  Values are PyMahjongGB's names.
ZH_ALIASES: dict[str, str] = {
    "边张": "独听・边张",
    "嵌张": "独听・嵌张",
    "坎张": "独听・嵌张",
    "单钓将": "独听・单钓",
    "单钓": "独听・单钓",
    "独听·边张": "独听・边张",
    "独听·嵌张": "独听・嵌张",
    "独听·单钓": "独听・单钓",
    "双龙会": "一色双龙会",
}


def canonical_zh(name: str) -> str:
    """Map a Chinese fan name to PyMahjongGB's spelling.

    Handles 胡/和 spellings (抢杠胡, 无番胡 ...) and the single-wait names.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    name = name.strip()
    if name in ZH_ALIASES:
        return ZH_ALIASES[name]
    if name not in PGB_FAN_NAMES and "胡" in name:
        alt = name.replace("胡", "和")
        if alt in PGB_FAN_NAMES:
            return alt
    return name


class PgbRejected(ValueError):
    """PyMahjongGB refused a hand (``ERROR_NOT_WIN`` ...) or it failed validation."""


_PACK_KIND = {"chow": "CHI", "pung": "PENG", "kong": "GANG"}


def _meld_tiles(kind: str, tile: int) -> list[int]:
    if kind == "chow":
        return [tile, tile + 1, tile + 2]
    return [tile] * (4 if kind == "kong" else 3)


def validate(hand) -> None:
    """Check everything PyMahjongGB might crash on.

    Parameters
    ----------
    hand : Hand-like

    Raises
    ------
    PgbRejected
        Wrong number of tiles, a fifth copy, a bad meld or situation value.
    """
    melds = tuple(hand.melds)
    concealed = list(hand.concealed)
    if len(melds) > 4:
        raise PgbRejected(f"{len(melds)} melds")
    if len(concealed) != 14 - 3 * len(melds):
        raise PgbRejected(f"{len(concealed)} concealed tiles with {len(melds)} melds")
    counts: Counter[int] = Counter()
    for t in concealed:
        if not (isinstance(t, int) or hasattr(t, "__index__")) or not 0 <= int(t) < 34:
            raise PgbRejected(f"bad tile {t!r}")
        counts[int(t)] += 1
    for m in melds:
        if m.kind not in _PACK_KIND or not 0 <= int(m.tile) < 34:
            raise PgbRejected(f"bad meld {m!r}")
        if m.kind == "chow" and (m.tile >= 27 or m.tile % 9 > 6):
            raise PgbRejected(f"bad chow {m!r}")
        if m.concealed and m.kind != "kong":
            raise PgbRejected(f"only kongs can be concealed melds: {m!r}")
        counts.update(_meld_tiles(m.kind, int(m.tile)))
    over = [t for t, c in counts.items() if c > 4]
    if over:
        raise PgbRejected(f"more than 4 copies of tile(s) {over}")
    if int(hand.win_tile) not in counts or int(hand.win_tile) not in concealed:
        raise PgbRejected("winning tile is not among the concealed tiles")
    for name in ("seat_wind", "round_wind"):
        if not 0 <= int(getattr(hand, name)) <= 3:
            raise PgbRejected(f"bad {name}")
    if not 0 <= int(hand.flowers) <= 8:
        raise PgbRejected("bad flower count")


def to_pgb_args(hand) -> dict:
    """Keyword arguments of ``MahjongGB.MahjongFanCalculator`` for ``hand``.

    Parameters
    ----------
    hand : Hand-like

    Returns
    -------
    dict
        ``pack``, ``hand``, ``winTile``, ``flowerCount``, ``isSelfDrawn``,
        ``is4thTile``, ``isAboutKong``, ``isWallLast``, ``seatWind``,
        ``prevalentWind``.
    """
    packs = []
    for m in hand.melds:
        t = int(m.tile)
        if m.kind == "chow":
            # PyMahjongGB names a chow by its middle tile; offer 1 = the
            # claimed tile is the lowest (only matters for display).
            packs.append(("CHI", TILE_CODES[t + 1], 1))
        elif m.kind == "pung":
            packs.append(("PENG", TILE_CODES[t], 1))
        else:
            # Offer 0 marks a concealed kong, 1..3 the seat a melded kong came from.
            packs.append(("GANG", TILE_CODES[t], 0 if m.concealed else 1))
    standing = [int(t) for t in hand.concealed]
    standing.remove(int(hand.win_tile))
    return dict(
        pack=tuple(packs),
        hand=tuple(TILE_CODES[t] for t in sorted(standing)),
        winTile=TILE_CODES[int(hand.win_tile)],
        flowerCount=int(hand.flowers),
        isSelfDrawn=bool(hand.self_drawn),
        is4thTile=bool(hand.last_copy),
        isAboutKong=bool(hand.kong),
        isWallLast=bool(hand.last_wall),
        seatWind=int(hand.seat_wind),
        prevalentWind=int(hand.round_wind),
    )


def available() -> bool:
    """True when the ``MahjongGB`` extension can be imported."""
    return _mgb is not None


def pgb_fans(hand) -> tuple[dict[str, int], int]:
    """Score ``hand`` with PyMahjongGB.

    Parameters
    ----------
    hand : Hand-like or str
        A string is parsed with ``mjkit.hand.parse_hand``.

    Returns
    -------
    fans : dict of str to int
        PyMahjongGB's Chinese fan name -> count (花牌 included when the hand
        has flowers).
    total : int
        Sum of points * count, flowers included.

    Raises
    ------
    PgbRejected
        The hand failed :func:`validate` or PyMahjongGB refused it (the
        message is its error code, e.g. ``ERROR_NOT_WIN``).
    RuntimeError
        PyMahjongGB is not installed.
    """
    if _mgb is None:
        raise RuntimeError("PyMahjongGB (module MahjongGB) is not installed")
    if isinstance(hand, str):
        from mjkit.hand import parse_hand

        hand = parse_hand(hand)
    validate(hand)
    args = to_pgb_args(hand)
    try:
        result = _mgb.MahjongFanCalculator(
            args["pack"], args["hand"], args["winTile"], args["flowerCount"],
            args["isSelfDrawn"], args["is4thTile"], args["isAboutKong"], args["isWallLast"],
            args["seatWind"], args["prevalentWind"], verbose=True,
        )
    except TypeError as exc:
        raise PgbRejected(str(exc)) from None
    fans: dict[str, int] = {}
    total = 0
    for points, count, zh, _en in result:
        if count > 8 and zh != "花牌":
            # No fan can be counted that often: PyMahjongGB read invalid memory.
            raise PgbRejected(f"implausible count {count} for {zh}")
        fans[zh] = fans.get(zh, 0) + count
        total += points * count
    return fans, total


def fan_points() -> dict[str, int]:
    """Points of each fan as PyMahjongGB scores them (from its table order).

    Returns
    -------
    dict of str to int
    """
    pts = (
        [88] * 7 + [64] * 6 + [48] * 2 + [32] * 3 + [24] * 9 + [16] * 6 + [12] * 5
        + [8] * 9 + [6] * 7 + [4] * 4 + [2] * 10 + [1] * 12 + [1]
    )
    out = dict(zip(PGB_FAN_NAMES, pts))
    out["明暗杠"] = 5
    return out


# --------------------------------------------------------------------------
# Shanten (向听): PyMahjongGB's per-form functions on 34-count arrays
# --------------------------------------------------------------------------

#: PyMahjongGB's shanten function of each mjkit form (``mjkit.shanten.FORMS``
#: order).  Each takes the standing tiles only (13, or 10 / 7 / 4 / 1 for a
#: hand with melds, which it treats as that many fixed sets) and returns
#: ``(shanten, useful tile codes)``.
SHANTEN_FUNCTIONS: tuple[str, ...] = (
    "RegularShanten", "SevenPairsShanten", "ThirteenOrphansShanten",
    "HonorsAndKnittedTilesShanten", "KnittedStraightShanten",
)
_CODE_INDEX = {code: i for i, code in enumerate(TILE_CODES)}


def standing_codes(counts) -> tuple[str, ...]:
    """PyMahjongGB tile codes of a 34-count array, in index order.

    Parameters
    ----------
    counts : sequence of int
        34 counts (0..4); the caller checks them (PyMahjongGB does not).

    Returns
    -------
    tuple of str
    """
    return tuple(TILE_CODES[t] for t in range(34) for _ in range(int(counts[t])))


def pgb_form_shanten(codes: tuple[str, ...], form: int) -> tuple[int, int] | None:
    """PyMahjongGB's shanten and useful tiles for one form.

    Parameters
    ----------
    codes : tuple of str
        Standing tiles (see :func:`standing_codes`).
    form : int
        Index into :data:`SHANTEN_FUNCTIONS`.

    Returns
    -------
    (int, int) or None
        The shanten and the useful tiles as a bit mask over mjkit's tile
        indices (bit t = index t); ``None`` when PyMahjongGB refuses the
        hand for that form (``ERROR_INVALID_HAND``: a tile count the form
        does not take).
    """
    if _mgb is None:
        raise RuntimeError("PyMahjongGB (module MahjongGB) is not installed")
    try:
        value, useful = getattr(_mgb, SHANTEN_FUNCTIONS[form])(codes)
    except TypeError:
        return None
    mask = 0
    for code in useful:
        mask |= 1 << _CODE_INDEX[code]
    return value, mask


def pgb_overall_shanten(codes: tuple[str, ...]) -> int:
    """``MahjongGB.MahjongShanten`` of a closed hand (no packs; it ignores them anyway)."""
    if _mgb is None:
        raise RuntimeError("PyMahjongGB (module MahjongGB) is not installed")
    return _mgb.MahjongShanten((), codes)
