"""What the widgets share on the page: the tile size, tile-picture buttons and the styles.

ipywidgets buttons cannot hold HTML, so a button that shows a tile (the builder's
palette, a tile of the hand) is an ordinary button with a CSS class per tile kind: one
``<style>`` (:func:`style_widget`, in a hidden :class:`ipywidgets.HTML`) sets each class's
``background-image`` to that tile's picture from :func:`mjkit.pictures.tile_data_uri`
(drawn from mjkit's shipped outlines, never a font), and the button's own text stays
in the page for screen readers and tests, invisible.  A badge drawn by CSS shows the
copies left (class ``mjkit-left-N``).  The same style makes the hand pictures shrink to
the width of a phone and the quiz's choices wrap their labels.  Nothing here needs more
than ipywidgets and a browser (JupyterLab, Voila).
"""

from __future__ import annotations

import functools

import ipywidgets as W

from .. import messages as M
from ..validate import whole

__all__ = ["DEFAULT_TILE_SIZE", "MIN_TILE_SIZE", "MAX_TILE_SIZE", "check_tile_size", "fan_term",
           "tile_size_slider", "tile_class", "tile_button_layout", "set_class", "page_css",
           "tile_css", "style_widget", "use_page_font", "WIDGET_ROOTS"]

#: The tile height in pixels the widgets start with: readable on a projector, a hand of
#: 14 still fits a notebook's width.
DEFAULT_TILE_SIZE = 56
#: The range of the tile-size control.
MIN_TILE_SIZE = 28
MAX_TILE_SIZE = 120

_N_KINDS = 34


def check_tile_size(x) -> int:
    """A tile height in pixels: a whole number in ``MIN_TILE_SIZE..MAX_TILE_SIZE``.

    Raises
    ------
    HandError
        Anything else, naming ``tile_size``.
    """
    return whole("tile_size", x, MIN_TILE_SIZE, MAX_TILE_SIZE)


def fan_term(zh, lang):
    """A fan named by its Chinese name, as ``lang`` writes it: ``清一色``, or ``Full Flush
    (清一色)`` (a name not in the catalogue stays as it is)."""
    from ..rules.catalogue import catalogue_lists

    cat = catalogue_lists()
    if zh not in cat.zh:
        return zh
    return M.text("widgets.term", lang, zh=zh, en=cat.en[cat.zh.index(zh)])


def tile_size_slider(lang, value):
    """The "tile size / 牌的大小" control (redraws when let go, not while dragged)."""
    return W.IntSlider(description=M.text("widgets.tile_size", lang), value=value,
                       min=MIN_TILE_SIZE, max=MAX_TILE_SIZE, step=4, continuous_update=False,
                       style={"description_width": "initial"},
                       layout=W.Layout(width="100%", max_width="360px"))


def tile_class(kind, lang):
    """The class whose background is tile ``kind``'s picture with ``lang``'s label."""
    return f"mjkit-tile-{lang}-{kind}"


def tile_button_layout(size):
    """A tile button of height ``size`` px (3 : 4, as the pictures)."""
    return W.Layout(width=f"{round(0.75 * size) + 2}px", height=f"{size + 2}px",
                    padding="0", margin="1px")


def set_class(widget, prefix, name):
    """Give ``widget`` the class ``name`` instead of any other starting with ``prefix``
    (sent to the browser only when it changes)."""
    old = [c for c in widget._dom_classes if c.startswith(prefix)]
    if old == [name]:
        return
    for c in old:
        widget.remove_class(c)
    widget.add_class(name)


def page_css():
    """The rules every widget's page needs (pictures that fit a phone, wrapping choices,
    tile buttons), and mjkit's own CJK font for the widgets' text: a machine without a
    Chinese font shows the labels, fan names and messages all the same (the page carries
    the font, :func:`mjkit.fonts.font_face_css`)."""
    left = "".join(f'.mjkit-left-{n}::after{{content:"{n}"}}' for n in range(5))
    return (
        # a hand picture never wider than its column (a phone): it scales down, keeping
        # its shape
        ".mjkit-hand-picture svg{max-width:100%;height:auto}"
        # long fan names wrap inside their choice instead of being cut
        ".mjkit-choice{white-space:normal!important;height:auto!important;"
        "min-height:32px;line-height:1.25!important;padding:4px 6px!important}"
        # a tile button: the picture is the face, the text stays for screen readers
        ".mjkit-tile{background-color:transparent!important;background-repeat:no-repeat;"
        "background-position:center;background-size:contain;border:none!important;"
        "box-shadow:none!important;font-size:0!important;color:transparent!important;"
        "position:relative;overflow:visible!important}"
        ".mjkit-tile:hover:enabled{filter:brightness(0.92)}"
        ".mjkit-tile.mod-info{outline:3px solid #d4a017;outline-offset:1px;border-radius:4px}"
        ".mjkit-tile::after{position:absolute;right:-2px;top:-2px;font-size:11px;line-height:1;"
        "padding:1px 4px;border-radius:7px;background:#555;color:#fff}"
        ".mjkit-left-0::after{background:#b00}" + left + ("" if _page_font else _font_css()))


#: The widgets' outermost boxes: their text uses mjkit's own CJK font (:func:`page_css`).
WIDGET_ROOTS = (".mjkit-builder", ".mjkit-quiz", ".mjkit-play")

_page_font = False      # the page carries mjkit's font itself (the classroom app)


def use_page_font(on=True):
    """Say that the page already carries mjkit's CJK font (the classroom app's page does):
    the widgets made afterwards then leave it out of their styles (it is 136 kB a widget)."""
    global _page_font
    _page_font = bool(on)


@functools.lru_cache(maxsize=1)
def _font_css():
    """mjkit's CJK subset as a web font for the widgets' text (the rules of
    :func:`mjkit.fonts.font_face_css` without their ``<style>``)."""
    from ..fonts import font_face_css

    css = font_face_css(", ".join(r + " *" for r in WIDGET_ROOTS))
    return css[len("<style>"):-len("</style>")]


@functools.lru_cache(maxsize=len(M.LANGS))
def _tile_rules(lang):
    from ..pictures import tile_data_uri

    return "".join(f'.{tile_class(k, lang)}{{background-image:'
                   f'url("{tile_data_uri(k, lang=lang)}")}}' for k in range(_N_KINDS))


def tile_css(lang):
    """:func:`page_css` and the picture of each of the 34 tile kinds, labelled in ``lang``."""
    return page_css() + _tile_rules(lang)


def style_widget(css):
    """A hidden HTML widget holding ``css`` (a ``<style>`` applies wherever it sits)."""
    return W.HTML(f"<style>{css}</style>", layout=W.Layout(display="none"))
