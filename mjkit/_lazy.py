"""Heavy optional imports made on first use.

``from ._lazy import pandas as pd`` gives a stand-in whose first attribute
access imports pandas (about 0.4 s): scoring, waits and shanten never touch
it, only their ``DataFrame`` views do.  Modules using it have
``from __future__ import annotations``, so ``pd.DataFrame`` in an annotation
is never evaluated.
"""

import importlib

__all__ = ["pandas"]


class _OnFirstUse:
    """Module stand-in: imports ``name`` when an attribute is first asked for."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self):
        return f"<{self._name}, imported on first use>"


pandas = _OnFirstUse("pandas")
