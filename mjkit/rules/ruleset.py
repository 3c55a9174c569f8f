"""A rule set: fan points, 不计 lists and the winning minimum, as arrays.

The kernels detect what a hand *has*; a :class:`RuleSet` says what it is
worth.  Derive a custom one with :meth:`RuleSet.derive` (change a value,
drop a fan, change the minimum) without editing the package.
"""

from dataclasses import dataclass, field, replace

import numpy as np

from .._kernels.bundles import SCORING_FIELDS, RuleArrays
from .._kernels.tables import suit_table, wild_table
from ..errors import HandError
from .. import validate as _V
from .._kernels import fan_ids as _F
from .catalogue import catalogue_columns, catalogue_lists

_LIANLA = _F.LIANLA

#: Why a 连拉 level is refused for a seat other than East.
DEALER_ONLY = ("only the dealer (East seat) has a 连拉 level; "
               "seed 000: 另外三家则还需要32番")

# Reading order used to break ties between equal-scoring readings: the suit
# order of the reference calculator (characters, bamboo, dots), then winds,
# then 中 发 白.  See docs/rules-gb.md.
_TIE_SUITS = (0, 2, 1)


def _tie_order():
    order = np.empty(34, np.int64)
    pos = 0
    for s in _TIE_SUITS:
        for r in range(9):
            order[9 * s + r] = pos
            pos += 1
    for t in (27, 28, 29, 30, 33, 32, 31):
        order[t] = pos
        pos += 1
    return order


@dataclass(frozen=True)
class RuleSet:
    """Points, exclusions and minimum of one rule set.

    Attributes
    ----------
    name : str
    minimum : int
        Fans needed to win (flowers never count toward it).
    points : numpy.ndarray
        int64, one entry per catalogue row; 0 means the fan is not used.
    excludes : tuple of tuple of int
        For each fan, the row indices it excludes (不计): the ``excludes``
        column of ``data/fans.csv`` plus the rule set's own
        ``excludes_<rules>`` column, if any.
    excludes_own : tuple of tuple of int
        For each fan, the fans it excludes only for its own sets (幺九刻).
    self_drawn_only : bool
        Wins by self-draw only (大众32番: 全求人, 海底捞月, 人和 cannot occur).
    table_wild : str or None
        The wild tiles (财神) a study of this rule set's table plays with unless told
        otherwise (``mjkit.simulate``'s ``wild``): ``"turned"`` for ``dazhong32``, whose
        players count them (seed 000), else None.
    table_exchange : bool
        Whether a study of this rule set's table plays 起手换牌 unless told otherwise
        (``mjkit.simulate``'s ``exchange``): True for the 大众 rule sets (seed 001
        A.c lets every player swap up to three tiles after the deal), False for ``gb``.
    table_wait_rule : str
        How a :class:`mjkit.table.Table` of this rule set reads the waits of a declared win
        unless told otherwise: ``"leftmost"`` for ``dazhong32`` (the old client's reading,
        seed 000 §六.2, which decides whether a declared hand is a P胡), else ``"unique"``.
    after_minimum : tuple of bool
        For each fan, True if it is added only once the minimum is met and
        never counts toward it (flowers, 无财神).
    """

    name: str
    minimum: int
    points: np.ndarray
    excludes: tuple
    excludes_own: tuple
    description: str = ""
    self_drawn_only: bool = False
    after_minimum: tuple = ()
    table_wild: str | None = None
    table_exchange: bool = False
    table_wait_rule: str = "unique"
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_fans(self):
        return len(self.points)

    def used_fans(self):
        """Catalogue rows of the fans this rule set scores (points > 0)."""
        if "used" not in self._cache:
            self._cache["used"] = [i for i, p in enumerate(self.points) if p > 0]
        return self._cache["used"]

    def used_array(self):
        """``used_fans()`` as an int64 array (batch output columns)."""
        if "used_array" not in self._cache:
            self._cache["used_array"] = np.asarray(self.used_fans(), np.int64)
        return self._cache["used_array"]

    @property
    def points_list(self):
        """``points`` as a list of ints (cheap element access from Python)."""
        if "points_list" not in self._cache:
            self._cache["points_list"] = [int(p) for p in self.points]
        return self._cache["points_list"]

    def combined_points(self, fans):
        """Points of catalogue rows ``fans`` together, each fan another one excludes
        (不计) dropped, highest first: what any hand carrying all of them is sure of."""
        pts = self.points_list
        kept = []
        for f in sorted(set(fans), key=lambda f: (-pts[f], f)):
            if not any(f in self.excludes[g] for g in kept):
                kept.append(f)
        return sum(pts[f] for f in kept)

    def kernel_rules(self):
        """The rule set as the kernels take it: a :class:`~mjkit._kernels.bundles.RuleArrays`
        (points, 不计 as CSR, rule order and rank, tie order, covers, the suit table and the
        wild-tile table), built once."""
        if "args" not in self._cache:
            n = self.n_fans
            ptr = np.zeros(n + 1, np.int64)
            idx = []
            for f in range(n):
                idx.extend(self.excludes[f])
                ptr[f + 1] = len(idx)
            idx = np.asarray(idx, np.int64) if idx else np.zeros(1, np.int64)
            # Higher fans first: a fan another one excludes imposes nothing.
            order = np.asarray(sorted(range(n), key=lambda f: (-int(self.points[f]), f)), np.int64)
            # A fan only keeps the 幺九刻 of its own sets from counting if it is scored.
            covers = np.asarray([1 if self.excludes_own[f] and self.points[f] > 0 else 0
                                 for f in range(n)], np.int64)
            rank = np.empty(n, np.int64)
            rank[order] = np.arange(n)
            self._cache["args"] = RuleArrays(
                points=np.ascontiguousarray(self.points, np.int64), excl_ptr=ptr, excl_idx=idx,
                order=order, rank=rank, tie_order=_tie_order(), covers=covers,
                table=suit_table(), wtable=wild_table())
        return self._cache["args"]

    def digest_into(self, h):
        """Feed the rule set's scoring arrays, by name, into the hash object ``h`` (cache keys)."""
        rules = self.kernel_rules()
        for name in SCORING_FIELDS:
            h.update(name.encode())
            h.update(np.ascontiguousarray(getattr(rules, name)).tobytes())

    def derive(self, name, *, points=None, drop=(), minimum=None, excludes=None,
               self_drawn_only=None, description=""):
        """A new rule set from this one.

        Parameters
        ----------
        name : str
        points : dict, optional
            ``{fan key or zh name or id: new points}``.
        drop : iterable, optional
            Fans (key, zh name or id) not used at all.
        minimum : int, optional
        excludes : dict, optional
            ``{fan: [fans it excludes]}``: replaces those fans' 不计 lists.
        self_drawn_only : bool, optional

        Examples
        --------
        >>> house = get_rules("dazhong32").derive("house", points={"天和": 88}, drop=["幺九头"])
        >>> int(house.points[house.fan_index("天和")])
        88
        """
        pts = self.points.copy()
        for k, v in (points or {}).items():
            v = int(v)
            if v < 0:
                raise HandError(f"points must be >= 0, got {v} for {k!r}")
            pts[_fan_index(k)] = v
        for k in drop:
            pts[_fan_index(k)] = 0
        excl = list(self.excludes)
        for k, lst in (excludes or {}).items():
            excl[_fan_index(k)] = tuple(_fan_index(x) for x in lst)
        return replace(self, name=name, points=pts, excludes=tuple(excl),
                       minimum=self.minimum if minimum is None else int(minimum),
                       self_drawn_only=(self.self_drawn_only if self_drawn_only is None
                                        else bool(self_drawn_only)),
                       description=description or f"derived from {self.name}", _cache={})

    def fan_index(self, fan):
        """Catalogue row of a fan given by key, zh or en name, or id."""
        return _fan_index(fan)

    @property
    def streak_points(self):
        """Points per level of 连N拉N (0: the rule set has no 连拉)."""
        return self.points_list[_LIANLA]

    def threshold(self, lianla=0):
        """Fans a hand itself needs to win at 连N拉N: ``max(minimum - 4N, 0)``."""
        if lianla == 0 and type(lianla) is int:
            return self.minimum
        n = self.streak_level(lianla)
        return max(self.minimum - n * self.streak_points, 0)

    def streak_level(self, lianla=0, seat_wind=0, *, where=""):
        """``lianla`` checked for this rule set and seat: an int in 0..MAX_LEVEL.

        Parameters
        ----------
        lianla : int
            The 连N拉N level N.
        seat_wind : int
            0..3 (E S W N) of the hand the level is for.  Only the dealer,
            seat East, has a streak (seed 000 §一.4: "另外三家则还需要32番").
        where : str
            Prefix of the error message (e.g. ``"hand 3: "``).

        Raises
        ------
        HandError
            A level that is not a whole number in 0..:data:`mjkit.validate.MAX_LEVEL`,
            a level in a rule set without 连拉, or a level for a non-dealer.
        """
        try:
            n = _streak_level(lianla)
        except HandError as exc:
            raise HandError(f"{where}{exc}", code=exc.code) from None
        if n and not self.streak_points:
            raise HandError(f"{where}rule set {self.name!r} has no 连拉 (lianla={n} given); "
                            "use rules='dazhong32'", code="bad_flag")
        if n and seat_wind != 0:
            wind = "ESWN"[seat_wind] if seat_wind in range(4) else repr(seat_wind)
            raise HandError(f"{where}lianla={n} with seat={wind}: {DEALER_ONLY}", code="bad_flag")
        return n


def _fan_index(key):
    cat = catalogue_lists()
    if isinstance(key, (int, np.integer)):
        hit = [i for i, x in enumerate(cat.id) if x == int(key)]
    else:
        hit = [i for i in range(len(cat.key))
               if cat.key[i] == key or cat.zh[i] == key or cat.en[i] == key]
    if len(hit) != 1:
        raise HandError(f"unknown fan {key!r}", code="unknown_name")
    return hit[0]


def _streak_level(lianla):
    # One bound everywhere (validate.level): a level past it would wrap in
    # an int32 kernel field or overflow the fan sum.
    return _V.level(lianla)


def _from_catalogue(name, column, minimum, description, self_drawn_only=False,
                    table_wild=None, table_exchange=False, table_wait_rule="unique"):
    cat = catalogue_columns()       # plain columns: building a rule set needs no pandas
    keys = {k: i for i, k in enumerate(cat["key"])}

    def rows(text, where):
        try:
            return [keys[k] for k in text.split()]
        except KeyError as exc:
            raise ValueError(f"data/fans.csv, {where}: unknown fan key {exc}") from None

    # The shared 不计 list, plus the rule set's own additions (a seed's
    # explicit 不计 that 国标 does not have, e.g. 清幺九 / 三同刻 in seed 001).
    own = f"excludes_{column[len('points_'):]}"
    extra = cat[own] if own in cat else [""] * len(cat["key"])
    excl = tuple(tuple(dict.fromkeys(rows(common, f"{key} excludes")
                                     + rows(more, f"{key} {own}")))
                 for key, common, more in zip(cat["key"], cat["excludes"], extra))
    own = tuple(tuple(keys[k] for k in s.split()) for s in cat["excludes_own"])
    after = tuple(bool(int(x)) for x in cat["after_minimum"])
    points = np.asarray([int(x) if x.strip() else 0 for x in cat[column]], np.int64)
    return RuleSet(name=name, minimum=minimum, points=points,
                   excludes=excl, excludes_own=own, description=description,
                   self_drawn_only=self_drawn_only, after_minimum=after,
                   table_wild=table_wild, table_exchange=table_exchange,
                   table_wait_rule=table_wait_rule)


_REGISTRY = {}


def register_rules(rules):
    """Make a :class:`RuleSet` available by name to ``score(..., rules=name)``."""
    _REGISTRY[rules.name] = rules
    return rules


def rule_names():
    """Names of the registered rule sets."""
    _builtin()
    return sorted(_REGISTRY)


def _builtin():
    if "gb" not in _REGISTRY:
        register_rules(_from_catalogue(
            "gb", "points_gb", 8,
            "Chinese Official rules (国标麻将, 81 fans, 8-fan minimum)."))
        register_rules(_from_catalogue(
            "dazhong", "points_dazhong", 8,
            "大众麻将 (seeds 001 and 003): 国标 plus first-turn, ready, flower and "
            "wild-tile fans; 8-fan minimum.", table_exchange=True))
        register_rules(_from_catalogue(
            "dazhong32", "points_dazhong32", 32,
            "大众32番连拉 (seed 000, then 001, then 国标): 32-fan minimum, self-draw "
            "only, 连N拉N worth 4N toward the bar; its table plays with a turned wild "
            "tile (财神).", self_drawn_only=True, table_wild="turned",
            table_exchange=True, table_wait_rule="leftmost"))


def threshold(rules="dazhong32", lianla=0):
    """The bar: fans a hand needs at 连N拉N, ``max(minimum - 4N, 0)``.

    >>> threshold("dazhong32", lianla=2)
    24
    >>> threshold("dazhong32", lianla=8)
    0
    """
    return get_rules(rules).threshold(lianla)


def get_rules(rules="gb"):
    """A :class:`RuleSet` from a name or a RuleSet."""
    if isinstance(rules, RuleSet):
        return rules
    _builtin()
    try:
        return _REGISTRY[rules]
    except (KeyError, TypeError):
        raise HandError(f"unknown rule set {rules!r}; known: {', '.join(sorted(_REGISTRY))}",
                        code="unknown_name") from None
