"""Where mjkit keeps what it builds once: shanten tables, value indexes, work files."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path | None:
    """The user cache folder, or None when caching is turned off.

    ``$MJKIT_CACHE_DIR`` if set (an empty value turns the disk cache off),
    else ``$XDG_CACHE_HOME/mjkit``, else ``~/.cache/mjkit``.
    """
    env = os.environ.get("MJKIT_CACHE_DIR")
    if env is not None:
        return Path(env) if env.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mjkit"
