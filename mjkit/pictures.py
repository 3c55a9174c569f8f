"""Tile pictures drawn by mjkit itself: SVG for notebooks and widgets, matplotlib for figures.

Every one of the 42 tiles is drawn in code from simple shapes; there is no
artwork file.  A tile is a rounded ivory face with a thin border and a 3-D
edge (tan side, green back) on the right and at the bottom, 30 x 40 units
(width : height = 3 : 4).  Faces:

- 万 characters: the Chinese numeral (一 .. 九) in dark ink over a red 万;
- 饼 dots: the traditional layouts of 1 .. 9 coloured discs (blue, green,
  red), 1 dot as a large disc of concentric rings;
- 条 bamboo: 2 .. 9 green and red sticks in the traditional layouts (8 with
  its two V shapes), 1 bamboo a small bird;
- winds 东 南 西 北 as large glyphs; 中 in red, 发 in green, 白 as a blue
  double frame;
- flowers: the seasons 春 夏 秋 冬 and the plants 梅 兰 竹 菊, each with
  its small number 1 .. 4 in the corner.

Dots, bamboo, the bird and the frame of 白 are pure shapes.  The glyphs
(numerals, 万, winds, dragons, flowers, the labels) are outlines shipped with
mjkit (:mod:`mjkit.fonts`, made once from WenQuanYi Micro Hei): every
character is a filled ``<path class="glyph">``, bold ones stroked in their own
colour, so a tile looks the same on a machine without any CJK font and never
writes an SVG ``<text>``.  ``label=True`` adds a small label
under the face: ``5万``, ``3饼``, ``东``, ``白`` (``lang="zh"``) or ``5m``,
``3p``, ``E``, ``White``, ``5f`` (``lang="en"``).  Its size is kept at
about 7 pixels, so at small sizes it takes a larger share of the tile.

States (``state=``, one name or several): ``"win"`` (gold border, warm
face: the winning tile), ``"wild"`` (a red badge with a gold star: a wild
tile, 财神), ``"dim"`` (greyed: e.g. no copy left), ``"concealed"`` (face
down: the green back, as the ends of a concealed kong) and ``"exposed"``
(face up, the same as no state; given for symmetry).

How it is built: one function turns a tile and its states into a display
list (:class:`Rect`, :class:`Circle`, :class:`Capsule`, :class:`Frame`,
:class:`Shape`, :class:`Text` and :class:`Group`, all filled shapes in tile
units, y pointing down).  Two small renderers read that list: one writes
SVG (``tile_svg``, ``tiles_svg``, ``hand_svg``, ``tile_data_uri``), the
other adds matplotlib patches to an Axes (``draw_tiles``, ``plot_tiles``,
``plot_hand``).  The layouts (dot and stick positions, colours, the bird)
exist once, so the two pictures cannot drift apart.  The matplotlib side
needs nothing but matplotlib: glyphs are the same shipped outlines as
:class:`~matplotlib.patches.PathPatch` patches (not stroked: a patch's line
width is in points, not data units), which scale with the data like every
other shape.  ``font=`` a family name or font file draws them from that font
instead, ``font=False`` as Latin stand-ins (``5`` over ``m``, ``E``, ``R``...).

A hand (``hand_svg``, ``plot_hand``): the concealed tiles sorted, a gap,
the winning tile highlighted, then each meld after a gap (a concealed kong
shows its two ends face down), then the flowers at two thirds of the size
(or ``花×2`` when only their number is known).  With ``wild=`` every copy of
the wild tile carries the badge.

Sizes: in SVG ``size`` is the tile height in pixels (width three quarters of
it), readable down to about 24; in matplotlib it is the height in data units.

Notebook display: ``Hand._repr_svg_`` is :func:`hand_svg`, and
``ScoreResult._repr_html_`` is :func:`mjkit.display.score_html` (the hand as
tiles, the fans, 不计 and the verdict against the bar).  Both import this
module only when called, so ``import mjkit`` does not load it.  Widgets take
:func:`tiles_svg` (a palette, the waits) or :func:`tile_data_uri` for
``<img>`` tags.

The SVG uses no ids (several pictures can share a notebook page) and gives
every tile a ``<title>`` with its name, its notation and its state; tiles are
``<g class="tile" data-tile="5m">`` groups, and the discs and sticks of
dots and bamboo ``class="dot"`` / ``class="stick"`` groups.

Every bad argument (unknown tile, index out of 0..41, ``size <= 0``, unknown
``lang`` or state) raises :class:`~mjkit.errors.HandError`.
"""

from __future__ import annotations

import base64
import functools
import html
import math
import numbers
import os
from collections.abc import Iterable
from typing import Any, NamedTuple

from .errors import HandError
from .errors import short_repr as _short_repr
from .fonts import has_outline, text_outline
from .tiles import (
    N_KINDS, TILE_NAMES_EN, TILE_NAMES_ZH, parse_tiles, tile_from_str, tile_index,
    tile_to_str,
)
from .validate import boolean, wild_kind
from .validate import lang as check_lang

__all__ = [
    "tile_svg", "tiles_svg", "hand_svg", "tile_data_uri", "tile_label",
    "draw_tiles", "plot_tiles", "plot_hand", "STATES", "CJK_FONTS",
    "TILE_WIDTH", "TILE_HEIGHT",
]

#: Tile states understood by every drawing function.
STATES = ("win", "wild", "dim", "exposed", "concealed")
#: System CJK families named after mjkit's own in CSS font stacks (:func:`mjkit.fonts.css_stack`)
#: and tried for the rare text with no shipped outline.
CJK_FONTS = (
    "Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans CN", "Microsoft YaHei",
    "PingFang SC", "Hiragino Sans GB", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei",
    "Noto Sans SC", "SimHei", "Heiti SC", "STHeiti", "Noto Sans CJK JP",
    "Noto Sans CJK TC", "Droid Sans Fallback", "Arial Unicode MS",
)
#: Size of a tile in drawing units (the SVG viewBox of one tile).
TILE_WIDTH, TILE_HEIGHT = 30.0, 40.0

# A bold glyph: the outline stroked in its own colour, this share of the em wide.
_BOLD = 0.05

_CJK_CSS = ", ".join(f"'{f}'" for f in CJK_FONTS[:10]) + ", sans-serif"
_LATIN_CSS = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif"

# --------------------------------------------------------------------------
# the display list: filled shapes in tile units (y down)
# --------------------------------------------------------------------------


class Rect(NamedTuple):
    """A filled rectangle with rounded corners (``rx``)."""
    x: float
    y: float
    w: float
    h: float
    rx: float
    fill: str
    opacity: float = 1.0


class Circle(NamedTuple):
    """A filled disc."""
    cx: float
    cy: float
    r: float
    fill: str


class Capsule(NamedTuple):
    """A bar of ``width`` with round ends from (x1, y1) to (x2, y2) (a stick)."""
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    fill: str


class Frame(NamedTuple):
    """The outline of a rounded rectangle, ``t`` thick, inside (x, y, w, h)."""
    x: float
    y: float
    w: float
    h: float
    t: float
    rx: float
    fill: str


class Shape(NamedTuple):
    """A filled outline: commands ``("M", x, y)``, ``("L", x, y)``,
    ``("Q", cx, cy, x, y)``, ``("C", x1, y1, x2, y2, x, y)`` and ``("Z",)``."""
    d: tuple
    fill: str


class Text(NamedTuple):
    """Text centred on (x, y), ``size`` units high (the em).

    ``font`` is ``"cjk"`` or ``"latin"``; ``alt`` (with ``alt_size``) is what
    the matplotlib renderer draws instead when it has no CJK font.
    """
    x: float
    y: float
    text: str
    size: float
    fill: str
    font: str = "cjk"
    bold: bool = True
    alt: str | None = None
    alt_size: float | None = None


class Group(NamedTuple):
    """Shapes drawn at ``scale`` and moved by (dx, dy); ``cls`` names the part."""
    cls: str
    items: tuple
    scale: float = 1.0
    dx: float = 0.0
    dy: float = 0.0


# Colours.
INK = "#1c2333"
RED = "#c62828"
GREEN = "#17733a"
BLUE = "#1f4e9e"
FACE = "#fbf7ea"
BORDER = "#8a7d62"
EDGE = "#dccca6"
BACK = "#2d7a58"
BACK_DARK = "#1f5c41"
BACK_LIGHT = "#39906a"
LABEL = "#5a5040"
WIN_FACE = "#fff0bd"
WIN_BORDER = "#e08e00"
WILD = "#c2185b"
GOLD = "#ffd23f"
ORANGE = "#e8890c"
LIGHT_GREEN = "#7cc48f"
TWIG = "#8d6e3f"

# Tile geometry (units): the face, and the box the face design is fitted in.
_FACE_W, _FACE_H = 28.6, 37.6
_MARGIN = 1.9
# Every face design is drawn in this box, then scaled into the space left.
_DESIGN_W, _DESIGN_H = 25.0, 34.0

_ZH_NUMERALS = "一二三四五六七八九"
_WIND_GLYPHS = "东南西北"
_FLOWER_GLYPHS = "春夏秋冬梅兰竹菊"
_FLOWER_COLOURS = ("#2e8b3e", RED, "#b8620b", BLUE, "#c2185b", "#6a3d9a", GREEN, "#c77c00")
_FLOWER_ALT = ("Sp", "Su", "Au", "Wi", "Pl", "Or", "Bo", "Ch")


def _dot(cx: float, cy: float, r: float, colour: str) -> Group:
    """One dot of a 饼 tile: a coloured disc with an ivory ring and centre."""
    return Group("dot", (Circle(cx, cy, r, colour), Circle(cx, cy, r * 0.7, FACE),
                         Circle(cx, cy, r * 0.5, colour), Circle(cx, cy, r * 0.17, FACE)))


# Dot layouts of 2..9 in the design box: (x, y, colour) per dot, and the radius.
_DOT_LAYOUTS: dict[int, tuple[float, tuple[tuple[float, float, str], ...]]] = {
    2: (6.3, ((12.5, 8.6, GREEN), (12.5, 25.4, BLUE))),
    3: (5.3, ((5.6, 6.0, BLUE), (12.5, 17.0, RED), (19.4, 28.0, GREEN))),
    4: (5.4, ((6.4, 8.8, BLUE), (18.6, 8.8, GREEN), (6.4, 25.2, GREEN), (18.6, 25.2, BLUE))),
    5: (4.9, ((6.0, 6.6, BLUE), (19.0, 6.6, GREEN), (12.5, 17.0, RED),
              (6.0, 27.4, GREEN), (19.0, 27.4, BLUE))),
    6: (4.6, ((6.9, 5.4, GREEN), (18.1, 5.4, GREEN), (6.9, 18.4, RED), (18.1, 18.4, RED),
              (6.9, 28.6, RED), (18.1, 28.6, RED))),
    7: (3.9, ((4.4, 4.2, GREEN), (12.5, 7.6, GREEN), (20.6, 11.0, GREEN),
              (7.4, 20.4, RED), (17.6, 20.4, RED), (7.4, 29.6, RED), (17.6, 29.6, RED))),
    8: (3.95, tuple((x, y, BLUE) for y in (4.3, 12.8, 21.2, 29.7) for x in (7.3, 17.7))),
    9: (3.95, tuple((x, y, c) for y, c in ((5.2, BLUE), (17.0, RED), (28.8, GREEN))
                    for x in (4.3, 12.5, 20.7))),
}


def _one_dot() -> list:
    """1 dot: a large disc of concentric rings with a ring of small beads."""
    cx, cy = 12.5, 17.0
    beads = tuple(Circle(cx + 8.4 * math.cos(a), cy + 8.4 * math.sin(a), 1.25,
                         RED if k % 2 else GREEN)
                  for k in range(12) for a in (2 * math.pi * k / 12,))
    return [Group("dot", (Circle(cx, cy, 12.0, BLUE), Circle(cx, cy, 10.9, FACE))
                  + beads
                  + (Circle(cx, cy, 6.6, GREEN), Circle(cx, cy, 5.3, FACE),
                     Circle(cx, cy, 4.2, RED), Circle(cx, cy, 2.4, FACE),
                     Circle(cx, cy, 1.2, RED)))]


def _dots(rank: int) -> list:
    if rank == 1:
        return _one_dot()
    r, layout = _DOT_LAYOUTS[rank]
    return [_dot(x, y, r, c) for x, y, c in layout]


def _stick(x1: float, y1: float, x2: float, y2: float, colour: str, w: float) -> Group:
    """One bamboo stick: a bar with a light highlight and three joints."""
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length     # along the stick
    px, py = -uy, ux                       # across it
    half = w * 0.62
    items = [Capsule(x1, y1, x2, y2, w, colour),
             Capsule(x1 + ux * w * 0.3 - px * w * 0.18, y1 + uy * w * 0.3 - py * w * 0.18,
                     x2 - ux * w * 0.3 - px * w * 0.18, y2 - uy * w * 0.3 - py * w * 0.18,
                     w * 0.2, LIGHT_GREEN if colour == GREEN else "#f2a0a0")]
    for t in (0.0, 0.5, 1.0):
        mx, my = x1 + dx * t, y1 + dy * t
        items.append(Capsule(mx - px * half, my - py * half, mx + px * half, my + py * half,
                             w * 0.2, FACE))
    return Group("stick", tuple(items))


def _vert(x: float, y1: float, y2: float, colour: str = GREEN, w: float = 3.6):
    return (x, y1, x, y2, colour, w)


# Stick layouts of 2..9: (x1, y1, x2, y2, colour, width) per stick.
_TOP, _BOTTOM = (2.2, 14.8), (19.2, 31.8)
_ROWS3 = ((1.8, 10.2), (12.8, 21.2), (23.8, 32.2))
_STICK_LAYOUTS: dict[int, tuple[tuple, ...]] = {
    2: (_vert(12.5, *_TOP), _vert(12.5, *_BOTTOM)),
    3: (_vert(12.5, *_TOP), _vert(7.0, *_BOTTOM), _vert(18.0, *_BOTTOM)),
    4: (_vert(7.0, *_TOP), _vert(18.0, *_TOP), _vert(7.0, *_BOTTOM), _vert(18.0, *_BOTTOM)),
    5: (_vert(4.8, *_TOP), _vert(20.2, *_TOP), _vert(12.5, 10.7, 23.3, RED),
        _vert(4.8, *_BOTTOM), _vert(20.2, *_BOTTOM)),
    6: tuple(_vert(x, *row) for row in (_TOP, _BOTTOM) for x in (4.4, 12.5, 20.6)),
    7: (_vert(12.5, *_ROWS3[0], RED, 3.3),)
       + tuple(_vert(x, *row, GREEN, 3.3) for row in _ROWS3[1:] for x in (4.4, 12.5, 20.6)),
    8: (_vert(3.6, *_TOP), (8.7, 2.4, 11.6, 14.6, GREEN, 3.4), (16.3, 2.4, 13.4, 14.6, GREEN, 3.4),
        _vert(21.4, *_TOP),
        _vert(3.6, *_BOTTOM), (11.6, 19.4, 8.7, 31.6, GREEN, 3.4),
        (13.4, 19.4, 16.3, 31.6, GREEN, 3.4), _vert(21.4, *_BOTTOM)),
    9: tuple(_vert(x, *row, RED if x == 12.5 else GREEN, 3.3)
             for row in _ROWS3 for x in (4.4, 12.5, 20.6)),
}


def _bird() -> list:
    """1 bamboo: a small bird on a bamboo twig (mjkit's own drawing)."""
    tail = []
    for (x2, y2, c) in ((23.6, 27.6, BLUE), (22.4, 32.4, GREEN), (17.8, 33.2, RED)):
        tail += [Capsule(14.8, 20.4, x2, y2, 1.9, c), Circle(x2, y2, 2.0, c),
                 Circle(x2, y2, 0.95, GOLD)]
    body = Shape((("M", 5.6, 11.6), ("C", 2.8, 17.0, 5.8, 24.8, 12.6, 24.6),
                  ("C", 17.2, 24.4, 19.8, 20.6, 18.6, 17.4),
                  ("C", 16.4, 13.6, 11.0, 14.6, 9.6, 11.2), ("Z",)), GREEN)
    wing = Shape((("M", 9.0, 17.2), ("C", 12.4, 14.4, 17.0, 15.4, 18.4, 19.4),
                  ("C", 15.0, 21.4, 11.0, 20.8, 9.0, 17.2), ("Z",)), RED)
    feather = Shape((("M", 10.6, 17.6), ("C", 13.0, 16.4, 15.6, 17.0, 16.6, 19.0),
                     ("C", 14.4, 19.6, 12.2, 19.2, 10.6, 17.6), ("Z",)), GOLD)
    head = [Circle(7.6, 9.0, 3.9, GREEN),
            Shape((("M", 4.0, 8.0), ("L", 0.6, 9.6), ("L", 4.2, 10.6), ("Z",)), ORANGE),
            Circle(6.8, 8.2, 1.15, FACE), Circle(6.6, 8.2, 0.55, INK)]
    crest = [Capsule(8.2, 5.4, 9.6, 2.2, 0.9, RED), Circle(9.6, 2.2, 1.0, RED),
             Capsule(9.2, 5.8, 11.8, 3.6, 0.9, RED), Circle(11.8, 3.6, 1.0, RED)]
    legs = [Capsule(10.6, 24.0, 9.6, 28.8, 0.9, ORANGE),
            Capsule(13.6, 24.0, 14.0, 28.8, 0.9, ORANGE)]
    twig = [Capsule(3.0, 29.4, 20.0, 29.4, 1.8, TWIG), Capsule(6.0, 29.4, 4.0, 33.0, 1.2, TWIG)]
    return [Group("bird", tuple(tail + legs + twig + [body, wing, feather] + head + crest))]


def _bamboo(rank: int) -> list:
    if rank == 1:
        return _bird()
    return [_stick(*s) for s in _STICK_LAYOUTS[rank]]


def _glyph(text: str, colour: str, size: float, alt: str) -> list:
    return [Text(12.5, 17.0, text, size, colour, alt=alt, alt_size=size * 0.95)]


def _face(tile: int) -> list:
    """The design of a tile face in the 25 x 34 design box."""
    if tile < 9:
        r = tile + 1
        return [Text(12.5, 8.6, _ZH_NUMERALS[tile], 15.5, INK, alt=str(r), alt_size=16),
                Text(12.5, 25.2, "万", 17.5, RED, alt="m", alt_size=15)]
    if tile < 18:
        return _dots(tile - 8)
    if tile < 27:
        return _bamboo(tile - 17)
    if tile < 31:
        return _glyph(_WIND_GLYPHS[tile - 27], INK, 23, "ESWN"[tile - 27])
    if tile == 31:  # 白: a blue double frame
        return [Frame(2.4, 2.6, 20.2, 28.8, 2.3, 2.0, BLUE),
                Frame(6.2, 6.4, 12.6, 21.2, 0.9, 1.0, BLUE)]
    if tile == 32:
        return _glyph("发", GREEN, 23, "G")
    if tile == 33:
        return _glyph("中", RED, 23, "R")
    k = tile - 34
    number = str(k % 4 + 1)
    return [Circle(3.4, 3.4, 3.4, RED if k < 4 else BLUE),
            Text(3.4, 3.45, number, 5.2, FACE, font="latin"),
            Text(13.4, 19.4, _FLOWER_GLYPHS[k], 19, _FLOWER_COLOURS[k],
                 alt=_FLOWER_ALT[k], alt_size=13)]


def _star(cx: float, cy: float, r: float) -> Shape:
    d = []
    for k in range(10):
        rr = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        d.append(("M" if k == 0 else "L", cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return Shape(tuple(d) + (("Z",),), GOLD)


_ZH_LABEL_HONOURS = "东南西北白发中"
_EN_LABEL_HONOURS = ("E", "S", "W", "N", "White", "Green", "Red")


def tile_label(tile: int | str, lang: str = "zh") -> str:
    """The short label written under a tile face.

    Parameters
    ----------
    tile : int or str
        Tile index 0..41 or notation (``"5m"``, ``"E"``, ``"3f"``).
    lang : {"zh", "en"}

    Returns
    -------
    str
        ``"5万"``, ``"3饼"``, ``"7条"``, ``"东"``, ``"白"``, ``"春"`` in Chinese;
        ``"5m"``, ``"3p"``, ``"7s"``, ``"E"``, ``"White"``, ``"1f"`` in English.
    """
    i = _tile(tile)
    check_lang(lang)
    if i < 27:
        return f"{i % 9 + 1}{'万饼条'[i // 9]}" if lang == "zh" else tile_to_str(i)
    if i < N_KINDS:
        return _ZH_LABEL_HONOURS[i - 27] if lang == "zh" else _EN_LABEL_HONOURS[i - 27]
    return TILE_NAMES_ZH[i] if lang == "zh" else tile_to_str(i)


def _label_units(px_size: float | None) -> float:
    """Font size of the label in units: about 7 px on screen, 5 .. 11 units."""
    if px_size is None:
        return 6.0
    return min(11.0, max(5.0, 7.0 * TILE_HEIGHT / px_size))


@functools.lru_cache(maxsize=1024)
def _tile_items(tile: int, states: frozenset, lang: str, label: bool,
                label_size: float) -> tuple:
    """The whole display list of one tile (30 x 40 units); arguments already checked."""
    items: list = [Rect(1.4, 2.4, 28.6, 37.6, 3.6, BACK),       # the green back, below
                   Rect(0.7, 1.2, 28.6, 37.6, 3.6, EDGE)]       # the tan side
    fw, fh = _FACE_W, _FACE_H
    if "concealed" in states:
        items += [Rect(0, 0, fw, fh, 3.4, BACK_DARK), Rect(0.6, 0.6, fw - 1.2, fh - 1.2, 2.9, BACK),
                  Rect(3.4, 3.4, fw - 6.8, fh - 6.8, 1.8, BACK_LIGHT),
                  Rect(5.6, 5.6, fw - 11.2, fh - 11.2, 1.2, BACK)]
    else:
        win = "win" in states
        t = 1.5 if win else 0.6
        items += [Rect(0, 0, fw, fh, 3.4, WIN_BORDER if win else BORDER),
                  Rect(t, t, fw - 2 * t, fh - 2 * t, 3.4 - t, WIN_FACE if win else FACE)]
        box_w = fw - 2 * _MARGIN
        box_h = fh - 2 * _MARGIN
        lab = None
        if label:
            text = tile_label(tile, lang)
            en = tile_label(tile, "en")
            # shrink long labels ("White") to the face width
            em = sum(1.0 if ord(ch) > 0x2E80 else 0.66 for ch in text)
            size = min(label_size, (fw - 3.0) / em)
            top = fh - 1.0 - label_size * 1.05      # the label sits in the bottom band
            box_h = top - 0.5 - _MARGIN
            lab = Group("label", (Text(fw / 2, fh - 1.0 - label_size * 0.525, text, size, LABEL,
                                       font="cjk" if lang == "zh" else "latin",
                                       alt=en if lang == "zh" else None,
                                       alt_size=min(size, (fw - 3.0) / (0.66 * len(en)))),))
        s = min(box_w / _DESIGN_W, box_h / _DESIGN_H)
        items.append(Group("face", tuple(_face(tile)), s,
                           _MARGIN + (box_w - _DESIGN_W * s) / 2,
                           _MARGIN + (box_h - _DESIGN_H * s) / 2))
        if lab is not None:
            items.append(lab)
        if "wild" in states:
            cx, cy = fw - 4.6, 4.6
            items.append(Group("wild", (Circle(cx, cy, 4.4, FACE), Circle(cx, cy, 3.8, WILD),
                                        _star(cx, cy + 0.2, 3.0))))
    if "dim" in states:
        items.append(Rect(0, 0, TILE_WIDTH, TILE_HEIGHT, 3.6, "#ffffff", 0.62))
    return tuple(items)


# --------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------

def _tile(tile: Any) -> int:
    if isinstance(tile, str):
        try:
            return tile_from_str(tile.strip())
        except HandError as exc:
            raise HandError(f"unknown tile {_short_repr(tile)}: {exc}") from None
    return tile_index(tile)


def _check_size(size: Any, name: str = "size") -> float:
    ok = isinstance(size, numbers.Real) and not isinstance(size, bool)
    if ok:
        value = float(size)
        if math.isfinite(value) and value > 0:
            return value
    raise HandError(f"{name} must be a positive number, got {_short_repr(size)}")


def _states(state: Any) -> frozenset:
    """``None``, one state name or several, as a frozenset of valid names."""
    if state is None:
        return frozenset()
    names = [state] if isinstance(state, str) else None
    if names is None:
        try:
            names = list(state)
        except TypeError:
            raise HandError(f"state must be one of {STATES}, a sequence of them or None, "
                            f"got {_short_repr(state)}") from None
    for name in names:
        if not isinstance(name, str) or name not in STATES:
            raise HandError(f"unknown tile state {_short_repr(name)}: expected one of "
                            f"{', '.join(STATES)}")
    out = frozenset(names)
    if {"exposed", "concealed"} <= out:
        raise HandError("a tile cannot be both 'exposed' and 'concealed'")
    return out


def _tile_list(tiles: Any) -> list[int]:
    if isinstance(tiles, str):
        try:
            return parse_tiles(tiles)
        except HandError as exc:
            raise HandError(f"bad tiles {_short_repr(tiles)}: {exc}") from None
    if isinstance(tiles, (int, numbers.Integral)) or not isinstance(tiles, Iterable):
        raise HandError(f"tiles must be notation or a sequence of tiles, got "
                        f"{type(tiles).__name__} {_short_repr(tiles)}")
    return [_tile(t) for t in tiles]


def _state_list(states: Any, n: int) -> list[frozenset]:
    if states is None or isinstance(states, str):
        return [_states(states)] * n
    states = list(states)
    if len(states) != n:
        raise HandError(f"states: one per tile ({n}), got {len(states)}")
    return [_states(s) for s in states]


_STATE_WORDS = {
    "zh": {"win": "和牌张", "wild": "财神", "dim": "已无", "concealed": "扣着",
           "exposed": "明"},
    "en": {"win": "winning tile", "wild": "wild", "dim": "dimmed", "concealed": "face down",
           "exposed": "exposed"},
}


def _title(tile: int, states: frozenset, lang: str) -> str:
    name = TILE_NAMES_ZH[tile] if lang == "zh" else TILE_NAMES_EN[tile]
    words = [_STATE_WORDS[lang][s] for s in STATES if s in states]
    return f"{name} ({tile_to_str(tile)})" + ("" if not words else ", " + ", ".join(words))


# --------------------------------------------------------------------------
# SVG writer
# --------------------------------------------------------------------------

def _n(x: float) -> str:
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _path_d(d: tuple) -> str:
    parts = []
    for cmd in d:
        parts.append(cmd[0] + " ".join(_n(v) for v in cmd[1:]))
    return "".join(parts)


def _svg_items(items: Iterable, out: list[str]) -> None:
    for it in items:
        kind = type(it)
        if kind is Group:
            tr = ""
            if it.scale != 1 or it.dx or it.dy:
                tr = f' transform="translate({_n(it.dx)} {_n(it.dy)}) scale({it.scale:.4g})"'
            out.append(f'<g class="{it.cls}"{tr}>')
            _svg_items(it.items, out)
            out.append("</g>")
        elif kind is Rect:
            op = "" if it.opacity == 1 else f' fill-opacity="{it.opacity:g}"'
            out.append(f'<rect x="{_n(it.x)}" y="{_n(it.y)}" width="{_n(it.w)}" '
                       f'height="{_n(it.h)}" rx="{_n(it.rx)}" fill="{it.fill}"{op}/>')
        elif kind is Circle:
            out.append(f'<circle cx="{_n(it.cx)}" cy="{_n(it.cy)}" r="{_n(it.r)}" '
                       f'fill="{it.fill}"/>')
        elif kind is Capsule:
            out.append(f'<line x1="{_n(it.x1)}" y1="{_n(it.y1)}" x2="{_n(it.x2)}" '
                       f'y2="{_n(it.y2)}" stroke="{it.fill}" stroke-width="{_n(it.width)}" '
                       'stroke-linecap="round"/>')
        elif kind is Frame:
            h = it.t / 2
            out.append(f'<rect x="{_n(it.x + h)}" y="{_n(it.y + h)}" width="{_n(it.w - it.t)}" '
                       f'height="{_n(it.h - it.t)}" rx="{_n(max(it.rx - h, 0))}" fill="none" '
                       f'stroke="{it.fill}" stroke-width="{_n(it.t)}"/>')
        elif kind is Shape:
            out.append(f'<path d="{_path_d(it.d)}" fill="{it.fill}"/>')
        elif kind is Text and has_outline(it.text):
            d, _, _ = text_outline(it.text, it.size)
            stroke = (f' stroke="{it.fill}" stroke-width="{_n(it.size * _BOLD)}" '
                      'stroke-linejoin="round"') if it.bold else ""
            out.append(f'<path class="glyph" data-text="{html.escape(it.text)}" '
                       f'data-size="{_n(it.size)}" transform="translate({_n(it.x)} {_n(it.y)})" '
                       f'd="{_path_d(d)}" fill="{it.fill}"{stroke}/>')
        elif kind is Text:
            family = _CJK_CSS if it.font == "cjk" else _LATIN_CSS
            weight = ' font-weight="bold"' if it.bold else ""
            out.append(f'<text x="{_n(it.x)}" y="{_n(it.y)}" font-size="{_n(it.size)}" '
                       f'fill="{it.fill}" font-family="{family}"{weight} text-anchor="middle" '
                       f'dominant-baseline="central">{html.escape(it.text)}</text>')
        else:  # pragma: no cover - every kind is handled above
            raise TypeError(f"unknown shape {it!r}")


@functools.lru_cache(maxsize=1024)
def _svg_tile_body(tile: int, states: frozenset, lang: str, label: bool,
                   label_size: float) -> str:
    out: list[str] = []
    _svg_items(_tile_items(tile, states, lang, label, label_size), out)
    return "".join(out)


def _svg_tile_group(tile: int, states: frozenset, lang: str, label: bool, label_size: float,
                    x: float = 0.0, y: float = 0.0, scale: float = 1.0) -> str:
    out: list[str] = []
    tr = ""
    if x or y or scale != 1:
        tr = f' transform="translate({_n(x)} {_n(y)})' + (
            f' scale({scale:.4g})"' if scale != 1 else '"')
    state_attr = f' data-state="{" ".join(s for s in STATES if s in states)}"' if states else ""
    out.append(f'<g class="tile" data-tile="{tile_to_str(tile)}"{state_attr}{tr}>'
               f'<title>{html.escape(_title(tile, states, lang))}</title>')
    out.append(_svg_tile_body(tile, states, lang, label, label_size))
    out.append("</g>")
    return "".join(out)


def _svg_doc(body: str, width_units: float, height_units: float, px_per_unit: float,
             title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width_units * px_per_unit)}" '
            f'height="{_n(height_units * px_per_unit)}" '
            f'viewBox="0 0 {_n(width_units)} {_n(height_units)}" role="img" '
            f'aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>'
            f'{body}</svg>')


def tile_svg(tile: int | str, *, size: float = 48, lang: str = "zh", label: bool = True,
             state: str | Iterable[str] | None = None) -> str:
    """One tile as a standalone SVG document.

    Parameters
    ----------
    tile : int or str
        Tile index 0..41 or notation: ``"5m"``, ``"E"``, ``"P"``, ``"3f"``.
    size : float, default 48
        Height in pixels; the width is three quarters of it.
    lang : {"zh", "en"}
        Language of the label and of the ``<title>``.
    label : bool, default True
        Write the short label (:func:`tile_label`) under the face.
    state : str or sequence of str, optional
        ``"win"``, ``"wild"``, ``"dim"``, ``"exposed"`` or ``"concealed"``
        (face down), or several of them, e.g. ``("win", "wild")``.

    Returns
    -------
    str
        An ``<svg>`` element with a ``<title>``.

    Raises
    ------
    HandError
        For an unknown tile, an index outside 0..41, ``size <= 0``, an
        unknown ``lang`` or state.

    Examples
    --------
    >>> svg = tile_svg("5m", size=24, lang="en")
    >>> svg.startswith("<svg") and "5 Character (5m)" in svg
    True
    """
    i = _tile(tile)
    px = _check_size(size)
    check_lang(lang)
    label = boolean(label, "label", strict=True)
    st = _states(state)
    body = _svg_tile_group(i, st, lang, label, _label_units(px))
    return _svg_doc(body, TILE_WIDTH, TILE_HEIGHT, px / TILE_HEIGHT, _title(i, st, lang))


def tile_data_uri(tile: int | str, *, size: float = 48, lang: str = "zh", label: bool = True,
                  state: str | Iterable[str] | None = None) -> str:
    """:func:`tile_svg` as a ``data:image/svg+xml;base64,...`` URI, for ``<img src=...>``."""
    svg = tile_svg(tile, size=size, lang=lang, label=label, state=state)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


_STEP = TILE_WIDTH + 0.8     # from one tile to the next in a row
_GAP = 7.0                   # between groups of a hand
_FLOWER_SCALE = 2 / 3


def tiles_svg(tiles: str | Iterable[int | str], *, size: float = 40, lang: str = "zh",
              label: bool = True, states: Any = None) -> str:
    """A plain row of tiles in one SVG (for palettes, waits, discards).

    Parameters
    ----------
    tiles : str or iterable of int or str
        Notation (``"123m EE 5f"``) or tile indices / tile strings, drawn in
        the order given.
    size : float, default 40
        Tile height in pixels.
    lang : {"zh", "en"}
    label : bool, default True
    states : str, or sequence of (str, sequence of str or None), optional
        One state for every tile, or one entry per tile (see :func:`tile_svg`).

    Returns
    -------
    str

    Raises
    ------
    HandError
        For bad tiles or options, or ``states`` of the wrong length.
    """
    seq = _tile_list(tiles)
    px = _check_size(size)
    check_lang(lang)
    label = boolean(label, "label", strict=True)
    sts = _state_list(states, len(seq))
    ls = _label_units(px)
    body = "".join(_svg_tile_group(t, s, lang, label, ls, x=k * _STEP)
                   for k, (t, s) in enumerate(zip(seq, sts)))
    width = max(len(seq) * _STEP - 0.8, 0.0)
    title = " ".join(tile_to_str(t) for t in seq)
    return _svg_doc(body, width, TILE_HEIGHT, px / TILE_HEIGHT, title or "no tiles")


# --------------------------------------------------------------------------
# a whole hand
# --------------------------------------------------------------------------

class _Placed(NamedTuple):
    x: float
    y: float
    scale: float
    tile: int
    states: frozenset


def _hand_layout(hand: Any, wild: int, lang: str) -> tuple[list[_Placed], list[Text], float]:
    """Where each tile of a hand goes (units): concealed, win, melds, flowers."""
    placed: list[_Placed] = []
    x = 0.0

    def put(tile: int, states: set, scale: float = 1.0) -> None:
        nonlocal x
        if tile == wild and "concealed" not in states:
            states = states | {"wild"}
        placed.append(_Placed(x, TILE_HEIGHT * (1 - scale), scale, tile, frozenset(states)))
        x += _STEP * scale

    rest = list(hand.concealed)
    rest.remove(hand.win_tile)
    for t in rest:
        put(t, set())
    x += _GAP - 0.8
    put(hand.win_tile, {"win"})
    for meld in hand.melds:
        x += _GAP - 0.8
        tiles = meld.tiles
        for k, t in enumerate(tiles):
            face_down = meld.concealed and k in (0, len(tiles) - 1)
            put(t, {"concealed"} if face_down else ({"exposed"} if not meld.concealed else set()))
    notes: list[Text] = []
    if hand.flower_tiles:
        x += _GAP - 0.8
        for t in hand.flower_tiles:
            put(t, set(), _FLOWER_SCALE)
    elif hand.flowers:
        x += _GAP - 0.8
        text = f"花×{hand.flowers}" if lang == "zh" else f"+{hand.flowers} flowers"
        size = 11.0
        em = sum(1.0 if ord(ch) > 0x2E80 else 0.62 for ch in text)
        notes.append(Text(x + em * size / 2, TILE_HEIGHT * 0.62, text, size, LABEL,
                          font="cjk" if lang == "zh" else "latin",
                          alt=f"+{hand.flowers} flowers"))
        x += em * size + 0.8
    return placed, notes, x - 0.8


def _as_hand(hand_or_text: Any):
    from .hand import Hand, parse_hand

    if isinstance(hand_or_text, Hand):
        return hand_or_text
    if isinstance(hand_or_text, str):
        return parse_hand(hand_or_text)
    raise HandError(f"expected a Hand or hand notation, got {type(hand_or_text).__name__}")


def hand_svg(hand_or_text: Any, *, size: float = 40, lang: str = "zh", label: bool = True,
             wild: int | str | None = None) -> str:
    """A whole hand in one SVG: concealed tiles, the winning tile, melds, flowers.

    Parameters
    ----------
    hand_or_text : Hand or str
        A :class:`~mjkit.hand.Hand` or its notation
        (``"[123m]{EEEE}456p789s1p 1p | flowers=1f3f"``).
    size : float, default 40
        Tile height in pixels (flowers are drawn at two thirds of it).
    lang : {"zh", "en"}
    label : bool, default True
    wild : int or str, optional
        The wild tile kind (财神): its copies get the wild badge.

    Returns
    -------
    str
        One ``<svg>``; every tile is a ``<g class="tile">`` with a ``<title>``.

    Raises
    ------
    HandError
        For a bad hand, notation or option.
    """
    hand = _as_hand(hand_or_text)
    px = _check_size(size)
    check_lang(lang)
    label = boolean(label, "label", strict=True)
    w = wild_kind(wild)
    placed, notes, width = _hand_layout(hand, w, lang)
    ls = _label_units(px)
    out = [_svg_tile_group(p.tile, p.states, lang, label, ls if p.scale == 1 else
                           _label_units(px * p.scale), x=p.x, y=p.y, scale=p.scale)
           for p in placed]
    _svg_items(notes, out)
    return _svg_doc("".join(out), width, TILE_HEIGHT, px / TILE_HEIGHT, str(hand))


# --------------------------------------------------------------------------
# matplotlib renderer
# --------------------------------------------------------------------------

_font_cache: dict = {}
#: ``font=None``: every glyph from mjkit's shipped outlines (:mod:`mjkit.fonts`).
_OUTLINES = "outlines"


def _mpl_font(font: Any):
    """What draws the glyphs: :data:`_OUTLINES`, FontProperties, or None (Latin stand-ins)."""
    if font is None:
        return _OUTLINES
    if font is False:
        return None
    if not isinstance(font, str):
        raise HandError(f"font must be None, False, a family name or a font file, "
                        f"got {_short_repr(font)}")
    if font in _font_cache:
        return _font_cache[font]
    from matplotlib import font_manager

    if font.lower().endswith((".ttf", ".otf", ".ttc")) or "/" in font or "\\" in font:
        if not os.path.exists(font):
            raise HandError(f"font file {_short_repr(font)} not found")
        fp = font_manager.FontProperties(fname=font)
    else:
        fp = font_manager.FontProperties(family=font)
        try:
            font_manager.findfont(fp, fallback_to_default=False)
        except ValueError:
            raise HandError(f"matplotlib knows no font {_short_repr(font)}") from None
    _font_cache[font] = fp
    return fp


def _round_rect(x: float, y: float, w: float, h: float, r: float, reverse: bool = False):
    """Vertices and codes of a rounded rectangle (quadratic corners)."""
    from matplotlib.path import Path

    r = max(0.0, min(r, w / 2, h / 2))
    pts = [(x + r, y), (x + w - r, y), (x + w, y), (x + w, y + r), (x + w, y + h - r),
           (x + w, y + h), (x + w - r, y + h), (x + r, y + h), (x, y + h), (x, y + r),
           (x, y), (x + r, y)]
    codes = [Path.MOVETO, Path.LINETO, Path.CURVE3, Path.CURVE3, Path.LINETO, Path.CURVE3,
             Path.CURVE3, Path.LINETO, Path.CURVE3, Path.CURVE3, Path.CURVE3, Path.CURVE3]
    if reverse:
        # the same outline walked the other way round (a hole in a compound path)
        pts = [(x + r, y), (x, y), (x, y + r), (x, y + h - r), (x, y + h), (x + r, y + h),
               (x + w - r, y + h), (x + w, y + h), (x + w, y + h - r), (x + w, y + r),
               (x + w, y), (x + w - r, y), (x + r, y)]
        codes = [Path.MOVETO, Path.CURVE3, Path.CURVE3, Path.LINETO, Path.CURVE3,
                 Path.CURVE3, Path.LINETO, Path.CURVE3, Path.CURVE3, Path.LINETO,
                 Path.CURVE3, Path.CURVE3, Path.LINETO]
    return pts, codes


def _capsule_points(it: Capsule, n: int = 8) -> list[tuple[float, float]]:
    a = math.atan2(it.y2 - it.y1, it.x2 - it.x1)
    r = it.width / 2
    pts = []
    for k in range(n + 1):   # end cap at (x2, y2)
        t = a - math.pi / 2 + math.pi * k / n
        pts.append((it.x2 + r * math.cos(t), it.y2 + r * math.sin(t)))
    for k in range(n + 1):   # start cap at (x1, y1)
        t = a + math.pi / 2 + math.pi * k / n
        pts.append((it.x1 + r * math.cos(t), it.y1 + r * math.sin(t)))
    return pts


def _shape_path(d: tuple):
    from matplotlib.path import Path

    verts, codes = [], []
    start = (0.0, 0.0)
    for cmd in d:
        c = cmd[0]
        if c == "M":
            start = (cmd[1], cmd[2])
            verts.append(start)
            codes.append(Path.MOVETO)
        elif c == "L":
            verts.append((cmd[1], cmd[2]))
            codes.append(Path.LINETO)
        elif c == "Q":
            verts += [(cmd[1], cmd[2]), (cmd[3], cmd[4])]
            codes += [Path.CURVE3] * 2
        elif c == "C":
            verts += [(cmd[1], cmd[2]), (cmd[3], cmd[4]), (cmd[5], cmd[6])]
            codes += [Path.CURVE4] * 3
        elif c == "Z":
            verts.append(start)
            codes.append(Path.CLOSEPOLY)
    return Path(verts, codes)


def _text_path(it: Text, fp):
    """A glyph run as a path centred on (x, y), y down; None if nothing to draw."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    if fp is _OUTLINES and has_outline(it.text):
        d, _, _ = text_outline(it.text, it.size)
        path = _shape_path(d)
        return Path(path.vertices + (it.x, it.y), path.codes)
    if fp is _OUTLINES:     # not a tile's text: matplotlib's own font
        fp = None
    if it.font == "cjk" and fp is None:
        text, size = it.alt, it.alt_size or it.size
        if not text:
            return None
        prop = FontProperties(family="DejaVu Sans", weight="bold" if it.bold else "normal")
    elif it.font == "cjk":
        text, size, prop = it.text, it.size, fp.copy()
        if it.bold:
            prop.set_weight("bold")
    else:
        text, size = it.text, it.size
        prop = FontProperties(family="DejaVu Sans", weight="bold" if it.bold else "normal")
    path = TextPath((0, 0), text, size=size, prop=prop)
    if len(path.vertices) == 0:
        return None
    ext = path.get_extents()
    cx, cy = (ext.x0 + ext.x1) / 2, (ext.y0 + ext.y1) / 2
    tr = Affine2D().translate(-cx, -cy).scale(1, -1).translate(it.x, it.y)
    return Path(tr.transform(path.vertices), path.codes)


def _mpl_items(ax, items: Iterable, trans, fp, out: list) -> None:
    from matplotlib.patches import Circle as MCircle
    from matplotlib.patches import PathPatch, Polygon
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D

    for it in items:
        kind = type(it)
        patch = None
        if kind is Group:
            inner = Affine2D().scale(it.scale).translate(it.dx, it.dy) + trans
            _mpl_items(ax, it.items, inner, fp, out)
            continue
        if kind is Rect:
            pts, codes = _round_rect(it.x, it.y, it.w, it.h, it.rx)
            patch = PathPatch(Path(pts, codes), facecolor=it.fill, alpha=it.opacity)
        elif kind is Circle:
            patch = MCircle((it.cx, it.cy), it.r, facecolor=it.fill)
        elif kind is Capsule:
            patch = Polygon(_capsule_points(it), closed=True, facecolor=it.fill)
        elif kind is Frame:
            p1, c1 = _round_rect(it.x, it.y, it.w, it.h, it.rx)
            p2, c2 = _round_rect(it.x + it.t, it.y + it.t, it.w - 2 * it.t, it.h - 2 * it.t,
                                 max(it.rx - it.t, 0), reverse=True)
            patch = PathPatch(Path(p1 + p2, c1 + c2), facecolor=it.fill)
        elif kind is Shape:
            patch = PathPatch(_shape_path(it.d), facecolor=it.fill)
        elif kind is Text:
            path = _text_path(it, fp)
            if path is not None:
                patch = PathPatch(path, facecolor=it.fill)
        if patch is not None:
            patch.set_linewidth(0)
            patch.set_edgecolor("none")
            patch.set_transform(trans + ax.transData)
            # add_artist, not add_patch: the latter walks every Bezier segment
            # to update the data limits; _mpl_tile updates them once per tile
            ax.add_artist(patch)
            out.append(patch)


def _mpl_tile(ax, tile: int, states: frozenset, x: float, y: float, height: float,
              lang: str, label: bool, fp) -> list:
    """Draw one tile with its bottom-left corner at data (x, y), ``height`` high."""
    from matplotlib.transforms import Affine2D

    k = height / TILE_HEIGHT
    trans = Affine2D().scale(k, -k).translate(x, y + height)
    artists: list = []
    _mpl_items(ax, _tile_items(tile, states, lang, label, _label_units(None)), trans, fp,
               artists)
    for a in artists:
        a.set_gid(f"tile-{tile_to_str(tile)}")
    ax.update_datalim([(x, y), (x + height * TILE_WIDTH / TILE_HEIGHT, y + height)])
    return artists


def draw_tiles(ax, tiles: str | Iterable[int | str], x: float = 0.0, y: float = 0.0, *,
               size: float = 1.0, lang: str = "zh", label: bool = True, states: Any = None,
               font: Any = None) -> list[list]:
    """Draw a row of tiles into a matplotlib Axes, the same pictures as the SVG.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    tiles : str or iterable of int or str
        Notation or tiles, drawn left to right.
    x, y : float
        Data coordinates of the bottom-left corner of the first tile.
    size : float, default 1.0
        Tile height in data units (width 0.75 * size).  Use an equal aspect
        (``ax.set_aspect("equal")``) for undistorted tiles.
    lang : {"zh", "en"}
    label : bool, default True
    states : str or sequence, optional
        As in :func:`tiles_svg`.
    font : None, False, str
        None: mjkit's shipped outlines (no font needed, the same shapes as the
        SVG); a family name or a font file: the glyphs from that font; False:
        Latin stand-ins (``5`` over ``m``, ``E``, ``R``...).

    Returns
    -------
    list of list of matplotlib.artist.Artist
        The patches of each tile, in order (each with gid ``"tile-5m"``).
    """
    seq = _tile_list(tiles)
    h = _check_size(size)
    check_lang(lang)
    label = boolean(label, "label", strict=True)
    sts = _state_list(states, len(seq))
    x0, y0 = _check_coord(x, "x"), _check_coord(y, "y")
    fp = _mpl_font(font)
    k = h / TILE_HEIGHT
    out = [_mpl_tile(ax, t, s, x0 + i * _STEP * k, y0, h, lang, label, fp)
           for i, (t, s) in enumerate(zip(seq, sts))]
    ax.autoscale_view()
    return out


def _check_coord(v: Any, name: str) -> float:
    if isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v)):
        return float(v)
    raise HandError(f"{name} must be a finite number, got {_short_repr(v)}")


def _new_axes(ax, width: float, height: float):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(max(1.0, 0.55 * width / height), 0.9))
    return ax


def _finish_axes(ax, width: float, height: float) -> None:
    pad = 0.03 * height
    ax.set_xlim(-pad, width + pad)
    ax.set_ylim(-pad, height + pad)
    ax.set_aspect("equal")
    ax.set_axis_off()


def plot_tiles(tiles: str | Iterable[int | str], ax=None, *, size: float = 1.0,
               lang: str = "zh", label: bool = True, states: Any = None, font: Any = None):
    """A row of tiles as a matplotlib figure (or into ``ax``); returns the Axes.

    See :func:`draw_tiles` for the parameters.  The Axes gets an equal aspect,
    limits around the tiles and no axis lines.
    """
    seq = _tile_list(tiles)
    h = _check_size(size)
    width = max(len(seq) * _STEP - 0.8, 0.0) * h / TILE_HEIGHT
    ax = _new_axes(ax, max(width, h), h)
    draw_tiles(ax, seq, size=h, lang=lang, label=label, states=states, font=font)
    _finish_axes(ax, width, h)
    return ax


def plot_hand(hand_or_text: Any, ax=None, *, size: float = 1.0, lang: str = "zh",
              label: bool = True, wild: int | str | None = None, font: Any = None):
    """A hand as a matplotlib figure (or into ``ax``), laid out as :func:`hand_svg`.

    Parameters
    ----------
    hand_or_text : Hand or str
    ax : matplotlib.axes.Axes, optional
        Drawn into a new figure when omitted.
    size : float, default 1.0
        Tile height in data units.
    lang, label, wild
        As in :func:`hand_svg`.
    font
        As in :func:`draw_tiles`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    hand = _as_hand(hand_or_text)
    h = _check_size(size)
    check_lang(lang)
    label = boolean(label, "label", strict=True)
    w = wild_kind(wild)
    fp = _mpl_font(font)
    placed, notes, width = _hand_layout(hand, w, lang)
    k = h / TILE_HEIGHT
    ax = _new_axes(ax, width * k, h)
    for p in placed:
        _mpl_tile(ax, p.tile, p.states, p.x * k, (TILE_HEIGHT - p.y - TILE_HEIGHT * p.scale) * k,
                  h * p.scale, lang, label, fp)
    if notes:
        from matplotlib.transforms import Affine2D

        _mpl_items(ax, notes, Affine2D().scale(k, -k).translate(0, h), fp, [])
    _finish_axes(ax, width * k, h)
    return ax
