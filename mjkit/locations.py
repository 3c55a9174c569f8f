"""Where mjkit finds its files: the package, its data files and the user cache folder.

The one home of these locations (every module asks here, none works them
out from its own ``__file__``):

* :data:`PACKAGE`, the ``mjkit`` package folder (source fingerprints, the
  numba cache beside the sources, the app's refusal to write inside it);
* :data:`SOURCE_ROOT`, the folder holding the package: the repository root
  when mjkit runs from a checkout (``notebooks/``, ``data/``);
* :func:`data_file`: a file of the package data (``fans.csv``,
  ``targets.csv``, ``exact/``, ``results/``), from the checkout's ``data/``
  folder if mjkit runs from one, else as installed (``mjkit.data`` of a
  wheel: ``pyproject.toml`` maps ``data/`` to it);
* :func:`cache_dir`, the user cache folder (``$MJKIT_CACHE_DIR``,
  ``$XDG_CACHE_HOME/mjkit`` or ``~/.cache/mjkit``), used by
  :mod:`mjkit._cache` for its file sets and by the numba cache fallback.

Nothing here imports the rest of mjkit, so every module (even the numba
set-up that runs first) can use it.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = ["PACKAGE", "SOURCE_ROOT", "checkout_data", "data_file", "shipped_data", "cache_dir"]

#: The ``mjkit`` package folder.
PACKAGE = Path(__file__).resolve().parent
#: The folder holding the package: the repository root in a source checkout.
SOURCE_ROOT = PACKAGE.parent


def checkout_data() -> Path | None:
    """The ``data`` folder of the source checkout mjkit runs from, or None (a wheel).

    A checkout is recognised by its fan catalogue, ``data/fans.csv``.
    """
    data = SOURCE_ROOT / "data"
    return data if (data / "fans.csv").exists() else None


def shipped_data(name: str = "") -> Path | None:
    """``name`` inside the installed package data ``mjkit.data``, or None if it is not installed."""
    try:
        base = Path(str(resources.files("mjkit.data")))
    except (ImportError, TypeError, OSError):
        return None
    return base / name if name else base


def data_file(name: str) -> Path:
    """A package data file or folder (``"fans.csv"``, ``"exact"``): the checkout's, else shipped.

    Parameters
    ----------
    name : str
        Its path relative to ``data/`` (``"targets.csv"``, ``"exact"``).

    Returns
    -------
    pathlib.Path
        ``<checkout>/data/<name>`` when it exists (a checkout or an editable
        install), else the same file of the installed ``mjkit.data``.
    """
    repo = SOURCE_ROOT / "data" / name
    if repo.exists():
        return repo
    shipped = shipped_data(name)
    return repo if shipped is None else shipped


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
