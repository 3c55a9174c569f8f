"""What the hand builder holds: tiles, melds, winning tile and situation, validated.

Pure Python, no widgets: the builder (:mod:`mjkit.widgets.builder`) only
wires controls to a :class:`BuilderState`, and :mod:`mjkit.widgets.view`
turns a state into what the fan view shows.  Every change is checked here
first, so a widget can never hold a fifth copy, a fifteenth tile or a meld
that cannot be made: the change raises :class:`mjkit.HandError` and the
state is left as it was.  A refusal a user can meet by clicking carries its
text in both languages (``error.texts``, from :mod:`mjkit.messages`), so the
builder says it in its own; its message is the English one, as every mjkit
error's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import messages as M
from ..errors import HandError
from ..hand import MELD_KINDS, Hand, Meld
from ..rules import get_rules
from ..tiles import N_KINDS, tile_to_str
from ..validate import lang as check_lang

__all__ = ["BuilderState", "MELD_MODES", "SITUATION_FLAGS"]

#: How a palette click is read: a single tile, or the meld starting at that tile.
MELD_MODES = ("tile", "chow", "pung", "kong", "concealed kong")

#: Situation flags a user may tick (their notation names, see :mod:`mjkit.hand`).
SITUATION_FLAGS = ("last_copy", "kong", "last_wall", "heavenly_hand", "earthly_hand",
                   "human_hand", "heavenly_ready", "earthly_ready", "declared_ready",
                   "double_ready")

_WINDS = "ESWN"


def _refusal(key, **fields):
    """A HandError for a refused click: messages entry ``state.<key>`` in English, and
    in ``.texts`` by language (a field may be a function of the language)."""
    texts = {lang: M.text("state." + key, lang, **{k: v(lang) if callable(v) else v
                                                    for k, v in fields.items()})
             for lang in M.LANGS}
    exc = HandError(texts["en"])
    exc.texts = texts
    return exc


def _kind(tile):
    if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < N_KINDS:
        raise HandError(f"tile must be a kind 0..33, got {tile!r}")
    return tile


@dataclass(frozen=True)
class BuilderState:
    """A hand being built.

    Attributes
    ----------
    tiles : tuple of int
        Concealed tiles (kinds 0..33) in the order they were added.
    melds : tuple of (str, int, bool)
        ``(kind, first tile, concealed)`` with kind ``"chow"``, ``"pung"``
        or ``"kong"``; a concealed meld is a concealed kong.
    win : int or None
        Index in ``tiles`` of the winning tile (None: the last one added).
    rules : str
    lianla : int
        The dealer's 连N拉N level (``dazhong32`` only).
    self_drawn : bool
    seat, round : int
        Winds 0..3 (E, S, W, N).
    flowers : int
    wild : int or None
        The wild kind (财神), if the game has one.
    flags : frozenset of str
        Ticked :data:`SITUATION_FLAGS`.
    lang : str
        ``"zh"`` or ``"en"``.
    """

    tiles: tuple = ()
    melds: tuple = ()
    win: int | None = None
    rules: str = "dazhong32"
    lianla: int = 0
    self_drawn: bool = True
    seat: int = 0
    round: int = 0
    flowers: int = 0
    wild: int | None = None
    flags: frozenset = field(default_factory=frozenset)
    lang: str = "zh"

    # -- counts ----------------------------------------------------------------

    def used(self, kind):
        """Copies of ``kind`` in the hand and its melds."""
        n = sum(1 for t in self.tiles if t == kind)
        for mkind, first, _ in self.melds:
            if mkind == "chow":
                n += first <= kind <= first + 2
            elif first == kind:
                n += 4 if mkind == "kong" else 3
        return n

    def copies_left(self, kind):
        """Copies of ``kind`` still available (4 exist)."""
        return 4 - self.used(_kind(kind))

    @property
    def size(self):
        """Tiles counted the way a hand is: a meld (kongs too) counts 3."""
        return len(self.tiles) + 3 * len(self.melds)

    @property
    def win_tile(self):
        """The winning tile (a kind) or None when the hand has no tiles."""
        if not self.tiles:
            return None
        return self.tiles[-1 if self.win is None else self.win]

    # -- changes (each returns a new state, or raises HandError) ---------------

    def add(self, kind):
        """One more concealed tile."""
        kind = _kind(kind)
        if self.size >= 14:
            raise _refusal("full")
        if self.copies_left(kind) <= 0:
            raise _refusal("no_copy", tile=tile_to_str(kind))
        return replace(self, tiles=self.tiles + (kind,), win=None)

    def remove(self, index):
        """Take the concealed tile at ``index`` out."""
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.tiles):
            raise HandError(f"no concealed tile at position {index!r}")
        tiles = self.tiles[:index] + self.tiles[index + 1:]
        win = self.win
        if win is not None:
            win = None if win == index else (win - 1 if win > index else win)
        return replace(self, tiles=tiles, win=win)

    def add_meld(self, mode, first):
        """The meld of ``mode`` (see :data:`MELD_MODES`) starting at kind ``first``."""
        first = _kind(first)
        if mode not in MELD_MODES or mode == "tile":
            raise HandError(f"meld must be one of {MELD_MODES[1:]}, got {mode!r}")
        concealed = mode == "concealed kong"
        kind = "kong" if concealed else mode
        if kind not in MELD_KINDS:
            raise HandError(f"unknown meld {mode!r}")
        if len(self.melds) >= 4:
            raise _refusal("melds")
        if self.size + 3 > 14:
            raise _refusal("no_room")
        if kind == "chow":
            if first >= 27 or first % 9 > 6:
                raise _refusal("no_chow", tile=tile_to_str(first))
            need = {first: 1, first + 1: 1, first + 2: 1}
        else:
            need = {first: 4 if kind == "kong" else 3}
        for k, n in need.items():
            if self.copies_left(k) < n:
                raise _refusal("short", tile=tile_to_str(k),
                               meld=lambda lang: M.value("state.melds_named", lang)[mode])
        if self.wild is not None and self.wild in need and not concealed:
            raise _refusal("wild_meld")
        return replace(self, melds=self.melds + ((kind, first, concealed),))

    def remove_meld(self, index):
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.melds):
            raise HandError(f"no meld at position {index!r}")
        return replace(self, melds=self.melds[:index] + self.melds[index + 1:])

    def with_win(self, index):
        """Choose the concealed tile at ``index`` as the winning tile."""
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.tiles):
            raise HandError(f"no concealed tile at position {index!r}")
        return replace(self, win=index)

    def with_options(self, **changes):
        """A copy with situation or game options changed (validated)."""
        unknown = set(changes) - {"rules", "lianla", "self_drawn", "seat", "round", "flowers",
                                  "wild", "flags", "lang"}
        if unknown:
            raise HandError(f"unknown option(s): {', '.join(sorted(unknown))}")
        new = replace(self, **changes)
        rs = get_rules(new.rules)
        for w in ("seat", "round"):
            if isinstance(getattr(new, w), bool) or getattr(new, w) not in range(4):
                raise HandError(f"{w} must be a wind 0..3, got {getattr(new, w)!r}")
        # a level 0..1000, in a rule set with 连拉, and only for the dealer (East)
        rs.streak_level(new.lianla, new.seat)
        if isinstance(new.flowers, bool) or new.flowers not in range(9):
            raise HandError(f"flowers must be 0..8, got {new.flowers!r}")
        if new.wild is not None:
            _kind(new.wild)
            if any(new.wild == f or (m == "chow" and f <= new.wild <= f + 2)
                   for m, f, c in new.melds if not c):
                raise _refusal("wild_in_meld")
        bad = set(new.flags) - set(SITUATION_FLAGS)
        if bad:
            raise HandError(f"unknown situation flag(s): {', '.join(sorted(bad))}")
        check_lang(new.lang, "lang")
        return replace(new, flags=frozenset(new.flags))

    def clear(self):
        return replace(self, tiles=(), melds=(), win=None)

    # -- notation ----------------------------------------------------------------

    def meld_list(self):
        """The melds as :class:`mjkit.Meld` objects, in order."""
        return [Meld(kind, first, concealed) for kind, first, concealed in self.melds]

    def melds_text(self):
        """The melds in notation, e.g. ``"[123m]{EEEE}"``."""
        return "".join(str(m) for m in self.meld_list())

    def hand(self):
        """The complete hand as a :class:`mjkit.Hand`, its situation included.

        Raises
        ------
        HandError
            Unless the tiles and melds make 14 (melds counted as 3), or if the
            situation does not fit the hand.
        """
        if not self.tiles:
            raise HandError("no concealed tiles: a hand needs a winning tile", code="tile_count")
        win = self.tiles[-1 if self.win is None else self.win]
        return Hand.from_parts(list(self.tiles), self.meld_list(), win_tile=win,
                               **self.situation())

    def concealed_text(self, with_win=True):
        """Concealed tiles in notation, the winning tile last (or left out)."""
        tiles = list(self.tiles)
        if tiles:
            w = tiles.pop(-1 if self.win is None else self.win)
            tiles.sort()
            if with_win:
                tiles.append(w)
        return " ".join(tile_to_str(t) for t in tiles)

    def situation(self):
        """Keyword arguments of the situation for :func:`mjkit.score` and friends."""
        out = {"self_drawn": self.self_drawn, "seat_wind": _WINDS[self.seat],
               "round_wind": _WINDS[self.round], "flowers": self.flowers}
        out.update({f: True for f in sorted(self.flags)})
        return out

    def notation(self):
        """The hand in mjkit notation (what :func:`mjkit.parse_hand` reads)."""
        parts = [p for p in (self.melds_text(), self.concealed_text()) if p]
        return " ".join(parts)
