"""Plain-text tables for terminals: columns aligned by display width.

The one home of text table layout, used by the command line (``python -m
mjkit score/fans``) and by :meth:`mjkit.sim.StudyTable.summary`; the HTML
views are in :mod:`mjkit.display`.  Kept apart from the CLI because the
library must never import the command line.
"""

from __future__ import annotations

import unicodedata

__all__ = ["width", "pad", "table"]


def width(text) -> int:
    """Display width in a terminal: CJK (wide and full-width) characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def pad(text, columns: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``columns`` display columns (on the left if ``right``)."""
    gap = " " * max(columns - width(text), 0)
    return gap + str(text) if right else str(text) + gap


def table(header, rows, right=()) -> list[str]:
    """Rows of cells as aligned text lines, a rule of dashes under the header.

    Parameters
    ----------
    header : sequence
        The column headings.
    rows : sequence of sequences
        The cells, one sequence per row (as many as ``header``).
    right : collection of int
        The columns aligned to the right (numbers).

    Returns
    -------
    list of str
        One line per row, each indented by two spaces, trailing spaces cut.
    """
    widths = [max(width(c) for c in col) for col in zip(header, *rows)]
    lines = []
    for cells in [header, *rows]:
        out = [pad(c, w, i in right) for i, (c, w) in enumerate(zip(cells, widths))]
        lines.append("  " + "  ".join(out).rstrip())
    lines.insert(1, "  " + "  ".join("-" * w for w in widths))
    return lines
