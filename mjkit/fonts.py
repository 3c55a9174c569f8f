"""The font data mjkit ships, so that no picture or page depends on the viewer's fonts.

Two files in ``mjkit.data/fonts`` (made once by ``tools/make_fonts.py`` from WenQuanYi
Micro Hei, Apache-2.0; ``LICENSE-WenQuanYi.txt`` beside them):

- ``glyphs.json``: the outlines of every character a tile shows (:data:`TILE_CHARS` and
  printable ASCII).  :func:`text_outline` turns a string into path commands in the
  shape language of :mod:`mjkit.pictures`, which draws every tile face and label from
  them, in SVG and in matplotlib alike: no ``<text>``, no font lookup.
- ``mjkit-cjk.ttf``: a subset of the font renamed ``mjkit CJK``, holding every Chinese
  character in mjkit's own strings (fan names, messages, rule data), printable ASCII and
  the usual CJK punctuation.  :func:`use_in_matplotlib` registers it as a fallback
  family, so Chinese labels in figures show on a machine without a CJK font;
  :func:`font_face_css` is the web font the classroom page carries itself (never a CDN).

Characters outside the subset (a student's own name, say) fall back to the viewer's
fonts.  Both files are checked when read: a damaged or foreign file raises
:class:`mjkit.HandError` naming it instead of drawing wrong shapes.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from pathlib import Path

from .errors import HandError
from .locations import data_file

__all__ = ["TILE_CHARS", "FAMILY", "GLYPH_FILE", "SUBSET_FILE", "text_outline", "has_outline",
           "subset_chars", "use_in_matplotlib", "font_face_css", "css_stack", "used_text"]

#: The Chinese characters drawn on tiles and their labels: numerals, 万 饼 条, the winds,
#: the dragons (白 only in labels), the flowers, and 花 × of a hand's flower count.
TILE_CHARS = "一二三四五六七八九万饼条东南西北中发白春夏秋冬梅兰竹菊花×"
#: The family name of the shipped subset (renamed: it is not the whole font).
FAMILY = "mjkit CJK"
GLYPH_FILE = data_file("fonts/glyphs.json")
SUBSET_FILE = data_file("fonts/mjkit-cjk.ttf")

_TOKEN = re.compile(r"[MLHVQCZ]|-?\d+(?:\.\d+)?")
_ARITY = {"M": 2, "L": 2, "H": 1, "V": 1, "Q": 4, "C": 6, "Z": 0}


def _parse(d: str) -> tuple:
    """SVG path data (absolute M L H V Q C Z, repeated operands allowed) as commands
    ``("M", x, y)``, ``("L", x, y)``, ``("Q", ...)``, ``("C", ...)``, ``("Z",)``."""
    tokens = _TOKEN.findall(d)
    if "".join(tokens) != re.sub(r"[\s,]+", "", d):
        raise ValueError("unexpected characters in path data")
    out: list[tuple] = []
    x = y = 0.0
    i, cmd = 0, None
    while i < len(tokens):
        if tokens[i] in _ARITY:
            cmd = tokens[i]
            i += 1
        elif cmd is None or cmd == "Z":
            raise ValueError(f"a number where a command was expected: {tokens[i]!r}")
        c = cmd
        n = _ARITY[c]
        args = tokens[i:i + n]
        if len(args) != n or any(a in _ARITY for a in args):
            raise ValueError(f"command {c} needs {n} numbers")
        vals = [float(v) for v in args]
        i += n
        if c == "H":
            c, vals = "L", [vals[0], y]
        elif c == "V":
            c, vals = "L", [x, vals[0]]
        if c == "M":
            cmd = "L"       # further pairs after a move are lines
        if vals:
            x, y = vals[-2], vals[-1]
        out.append((c, *vals))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _glyph_table() -> tuple[float, dict]:
    """(units per em, {char: (advance, commands)}) from ``glyphs.json``, checked."""
    path = GLYPH_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        upem = float(data["units_per_em"])
        if not upem > 0:
            raise ValueError("units_per_em must be positive")
        table = {}
        for ch, (adv, d) in data["glyphs"].items():
            if len(ch) != 1 or not isinstance(d, str) or not float(adv) >= 0:
                raise ValueError(f"bad entry for {ch!r}")
            table[ch] = (float(adv), _parse(d))
        missing = [c for c in TILE_CHARS + "0123456789" if c not in table]
        if missing:
            raise ValueError(f"no outline for {''.join(missing)}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise HandError(f"mjkit's tile outlines {path} are missing or damaged ({exc}); "
                        "reinstall mjkit or run tools/make_fonts.py") from None
    return upem, table


def has_outline(text: str) -> bool:
    """Whether every character of ``text`` has a shipped outline."""
    table = _glyph_table()[1]
    return all(ch in table for ch in text)


@functools.lru_cache(maxsize=512)
def text_outline(text: str, size: float) -> tuple[tuple, float, float]:
    """``text`` as filled path commands, ``size`` units to the em, y pointing down.

    The run is centred on the origin: horizontally by its advances (as SVG's
    ``text-anchor="middle"``), vertically on its ink.

    Returns
    -------
    (commands, width, height)
        Commands ``("M", x, y)``, ``("L", x, y)``, ``("Q", cx, cy, x, y)``,
        ``("C", ...)``, ``("Z",)``; the run's advance width and ink height in units.

    Raises
    ------
    HandError
        If a character has no shipped outline (see :func:`has_outline`).
    """
    upem, table = _glyph_table()
    bad = [ch for ch in text if ch not in table]
    if bad:
        raise HandError(f"no shipped outline for {''.join(bad)!r}")
    k = size / upem
    raw: list[tuple] = []
    pen = 0.0
    for ch in text:
        adv, cmds = table[ch]
        for c in cmds:
            pts = c[1:]
            raw.append((c[0],) + tuple(pen + v if j % 2 == 0 else v for j, v in enumerate(pts)))
        pen += adv
    ys = [v for c in raw for j, v in enumerate(c[1:]) if j % 2 == 1]
    top, bottom = (max(ys), min(ys)) if ys else (0.0, 0.0)
    mid_x, mid_y = pen / 2, (top + bottom) / 2
    out = tuple((c[0],) + tuple((v - mid_x) * k if j % 2 == 0 else (mid_y - v) * k
                                for j, v in enumerate(c[1:])) for c in raw)
    return out, pen * k, (top - bottom) * k


@functools.lru_cache(maxsize=1)
def _subset() -> tuple[bytes, frozenset]:
    """The subset font's bytes and the characters it maps, checked."""
    import io

    from fontTools.ttLib import TTFont   # a dependency of matplotlib

    path = SUBSET_FILE
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise HandError(f"mjkit's font {path} is missing ({exc}); reinstall mjkit") from None
    try:
        font = TTFont(io.BytesIO(blob))
        family = font["name"].getDebugName(1)
        chars = frozenset(chr(c) for c in font.getBestCmap())
    except Exception as exc:  # fontTools raises many kinds on damaged input
        raise HandError(f"mjkit's font {path} is damaged ({type(exc).__name__}); "
                        "reinstall mjkit or run tools/make_fonts.py") from None
    if family != FAMILY:
        raise HandError(f"mjkit's font {path} is not {FAMILY!r} (its family is {family!r})")
    return blob, chars


def subset_chars() -> frozenset:
    """The characters the shipped subset font maps."""
    return _subset()[1]


def use_in_matplotlib() -> str:
    """Register the shipped ``mjkit CJK`` font with matplotlib as a fallback family.

    After the call, text in a figure that the default font (DejaVu Sans) lacks,
    e.g. the Chinese fan names, is drawn from the subset.  Idempotent.

    Returns
    -------
    str
        The family name, ``"mjkit CJK"``.
    """
    import matplotlib as mpl
    from matplotlib import font_manager

    _subset()   # checked before matplotlib sees it
    names = {f.name for f in font_manager.fontManager.ttflist}
    if FAMILY not in names:
        font_manager.fontManager.addfont(str(SUBSET_FILE))
    fam = mpl.rcParams["font.family"]
    fam = [fam] if isinstance(fam, str) else list(fam)
    if FAMILY not in fam:
        mpl.rcParams["font.family"] = fam + [FAMILY]
    return FAMILY


def css_stack() -> str:
    """A CSS ``font-family`` value: ``mjkit CJK`` (CJK only), Latin faces, system CJK."""
    from .pictures import CJK_FONTS

    # mjkit's own first: its unicode-range is CJK only, so Latin text still comes from
    # the viewer's faces, and Chinese looks the same on every machine; characters the
    # subset lacks fall through to the system's CJK fonts
    names = [FAMILY, "system-ui", "-apple-system", "Segoe UI", "Roboto", "DejaVu Sans",
             "Arial", *CJK_FONTS[:6]]
    return ", ".join(f"'{n}'" if " " in n else n for n in names) + ", sans-serif"


def font_face_css(selector: str = "body", *, jupyter: bool = False) -> str:
    """A ``<style>`` with the subset as a web font (a ``data:`` URL: the page carries it).

    Parameters
    ----------
    selector : str
        The CSS selector whose text uses :func:`css_stack`.
    jupyter : bool
        Also point JupyterLab's font variables (``--jp-ui-font-family``,
        ``--jp-content-font-family``) at it: widgets read those, not ``body``.
    """
    if not re.fullmatch(r"[\w\s.#,>:*()-]+", selector or ""):
        raise HandError(f"not a plain CSS selector: {selector!r}")
    blob = _subset()[0]
    url = "data:font/ttf;base64," + base64.b64encode(blob).decode("ascii")
    stack = css_stack()
    return ("<style>@font-face{font-family:'" + FAMILY + "';src:url(" + url
            + ") format('truetype');font-display:swap;unicode-range:U+2E80-9FFF,U+3000-303F,"
            "U+FF00-FFEF,U+00D7;}" + selector + "{font-family:" + stack + ";}"
            + (":root{--jp-ui-font-family:" + stack + ";--jp-content-font-family:"
               + stack + ";}" if jupyter else "") + "</style>")


def subset_fingerprint() -> str:
    """sha256 of the shipped subset (names the web font in caches and tests)."""
    return hashlib.sha256(_subset()[0]).hexdigest()


def used_text(root: Path) -> str:
    """Every CJK character in mjkit's own strings under the checkout ``root``.

    Scans ``mjkit/**/*.py``, the app's notebook and ``data/**/*.csv|json|md`` (not the
    font data itself); what ``tools/make_fonts.py`` puts in the subset.
    """
    root = Path(root)
    files = [*sorted((root / "mjkit").rglob("*.py")), *sorted((root / "mjkit").rglob("*.ipynb"))]
    for ext in ("csv", "json", "md"):
        files += [p for p in sorted((root / "data").rglob(f"*.{ext}")) if "fonts" not in p.parts]
    chars: set[str] = set()
    for p in files:
        chars |= {c for c in p.read_text(encoding="utf-8") if ord(c) >= 0x2E80}
    return "".join(sorted(chars))
