"""Text that goes into a spreadsheet: the one home of the formula guard.

A CSV cell that starts with ``= + - @``, a tab or a line break (or a full-width form of
these, which some spreadsheets also accept) is read as a formula when the file is opened
(OWASP "CSV Injection").  Every CSV mjkit writes with text that a visitor or a record
could have chosen (the class's downloads, a review's export) passes its text cells through
:func:`csv_text`; the Excel download marks such cells as text (:func:`formula_like`).
"""

from __future__ import annotations

__all__ = ["FORMULA_START", "csv_text", "formula_like"]

#: What makes a spreadsheet read a CSV cell as a formula, with the full-width forms.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d",
                 "\uff20")


def formula_like(text: str) -> bool:
    """Whether a spreadsheet would read ``text`` as a formula."""
    return text.startswith(FORMULA_START)


def csv_text(text: str) -> str:
    """A text cell for CSV: a leading ``'`` when a spreadsheet would read it as a formula."""
    return "'" + text if formula_like(text) else text
