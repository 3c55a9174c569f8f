"""Make mjkit's shipped font data from an open-licensed CJK font (run once, output committed).

Writes into ``data/fonts/`` (installed as ``mjkit.data/fonts``):

- ``glyphs.json``: the outlines of every character drawn on a tile (the numerals, 万,
  the winds, the dragons, the flowers, the label characters 饼 条 白 花 × and printable
  ASCII), as SVG path data in font units (y up), with each glyph's advance.
  :mod:`mjkit.fonts` turns them into the filled shapes of :mod:`mjkit.pictures`, so a
  tile never depends on the viewer's fonts.
- ``mjkit-cjk.ttf``: a subset of the font holding every CJK character in mjkit's own
  strings (messages, fan names, rule data), printable ASCII and CJK punctuation, for
  matplotlib figures (:func:`mjkit.fonts.matplotlib_family`) and the classroom page's web
  font (:func:`mjkit.fonts.font_face_css`).

The source is WenQuanYi Micro Hei (Debian package ``fonts-wqy-microhei``), licensed
Apache-2.0 (or GPL-3+ with the font exception); ``data/fonts/LICENSE-WenQuanYi.txt``
says so.  Run::

    python tools/make_fonts.py [--font /usr/share/fonts/truetype/wqy/wqy-microhei.ttc]

``tests/test_fonts.py`` regenerates both files when the source font is on the machine
and checks they are the ones committed, and checks on every machine that each CJK
character in mjkit's strings is in the subset.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mjkit.fonts import GLYPH_FILE, SUBSET_FILE, TILE_CHARS, used_text  # noqa: E402

DEFAULT_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
#: The ASCII range kept in both files.
ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
#: Punctuation and symbols kept in the subset beyond those found in the sources.
EXTRA = "，。、；：？！（）《》“”‘’…—·×÷±≥≤→←↑↓％"


def _load(path: str):
    from fontTools.ttLib import TTCollection, TTFont

    if path.lower().endswith(".ttc"):
        return TTCollection(path).fonts[0]
    return TTFont(path)


def glyph_outlines(font, chars: str) -> dict:
    """Per character its advance and its outline as SVG path data (font units, y up)."""
    from fontTools.pens.svgPathPen import SVGPathPen

    cmap = font.getBestCmap()
    glyphs = font.getGlyphSet()
    out = {}
    for ch in sorted(set(chars)):
        name = cmap.get(ord(ch))
        if name is None:
            raise SystemExit(f"the font has no glyph for {ch!r} (U+{ord(ch):04X})")
        pen = SVGPathPen(glyphs, ntos=lambda v: f"{round(v):d}")
        glyphs[name].draw(pen)
        out[ch] = [int(round(glyphs[name].width)), pen.getCommands()]
    return out


def subset(font_path: str, chars: str, out_path: Path) -> None:
    """Write the subset of the font holding ``chars`` (no hinting, no layout tables)."""
    from fontTools import subset as fsub

    font = _load(font_path)
    opts = fsub.Options()
    opts.hinting = False
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.notdef_outline = True
    # no layout tables: horizontal CJK text needs none, and the Latin letters of a page
    # come from the viewer's fonts (the web font's unicode-range is CJK only)
    opts.drop_tables = list(opts.drop_tables) + ["GSUB", "GPOS", "GDEF", "gasp", "FFTM"]
    sub = fsub.Subsetter(opts)
    sub.populate(unicodes=sorted({ord(c) for c in chars}))
    sub.subset(font)
    _rename(font)
    font["head"].modified = font["head"].created    # the same bytes on every run
    font.recalcTimestamp = False
    font.save(str(out_path), reorderTables=True)


def _rename(font) -> None:
    """Name the subset ``mjkit CJK``: it is a modified font, not the whole WenQuanYi."""
    from mjkit.fonts import FAMILY

    name = font["name"]
    name.names = [r for r in name.names if r.nameID not in (1, 3, 4, 6, 10, 16, 17)]
    for nid, text in ((1, FAMILY), (3, FAMILY.replace(" ", "") + "-subset"), (4, FAMILY),
                      (6, FAMILY.replace(" ", "")), (16, FAMILY),
                      (10, "A subset of WenQuanYi Micro Hei made by mjkit's "
                           "tools/make_fonts.py: only the characters mjkit shows.")):
        name.setName(text, nid, 3, 1, 0x409)
        name.setName(text, nid, 1, 0, 0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--font", default=DEFAULT_FONT, help="the source font (TTF or TTC)")
    ap.add_argument("--out", default=str(GLYPH_FILE.parent), help="output folder")
    args = ap.parse_args(argv)
    src = Path(args.font)
    if not src.exists():
        raise SystemExit(f"{src} not found: install fonts-wqy-microhei or pass --font")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    font = _load(str(src))
    data = {
        "source": "WenQuanYi Micro Hei " + font["name"].getDebugName(5),
        "source_sha256": hashlib.sha256(src.read_bytes()).hexdigest(),
        "licence": "Apache-2.0 (or GPL-3+ with the font exception); see LICENSE-WenQuanYi.txt",
        "units_per_em": font["head"].unitsPerEm,
        "ascent": font["hhea"].ascent,
        "descent": font["hhea"].descent,
        "glyphs": glyph_outlines(font, TILE_CHARS + ASCII),
    }
    (out / GLYPH_FILE.name).write_text(json.dumps(data, ensure_ascii=False, indent=0,
                                                  sort_keys=True) + "\n", encoding="utf-8")
    chars = "".join(sorted(set(used_text(ROOT)) | set(ASCII) | set(EXTRA) | set(TILE_CHARS)))
    subset(str(src), chars, out / SUBSET_FILE.name)
    print(f"wrote {out / GLYPH_FILE.name} ({len(data['glyphs'])} glyphs) and "
          f"{out / SUBSET_FILE.name} ({len(chars)} characters, "
          f"{(out / SUBSET_FILE.name).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
