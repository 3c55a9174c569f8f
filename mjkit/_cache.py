"""Where mjkit keeps what it builds once (shanten tables, value indexes, work blocks), and how.

Every cached table is a *file set*: its data files (``.npy`` or ``.npz``)
and a manifest (:func:`mjkit.storage.write_manifest`) holding the digest and
size of each, written last.  :func:`read_set` trusts a set only when the
manifest is intact and every file matches it, and it checks the bytes it
hands out, not a second reading of the file: the files are memory-mapped
once, the digest is taken over that mapping and the arrays are views of it
(:func:`npy_array`).  Anything else (a missing or damaged manifest, a
flipped bit, a truncated file, a header numpy cannot parse) is reported by
one :class:`CacheWarning` line naming the file, and the caller rebuilds.
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from . import storage
from .locations import cache_dir     # the one home of locations; kept here for callers

__all__ = ["CacheWarning", "cache_dir", "npy_array", "npy_writer", "npz_arrays", "npz_writer",
           "read_set", "write_set"]

# The longest .npy header read: mjkit's arrays have headers of about 128 bytes.
_MAX_HEADER = 1 << 16


class CacheWarning(UserWarning):
    """A cached file failed its check and is being rebuilt."""


def warn_damaged(path: str | os.PathLike, reason: str, *, stacklevel: int = 3) -> None:
    """One :class:`CacheWarning` line: ``path`` is not trusted and is rebuilt."""
    reason = " ".join(str(reason).split())[:200]          # one line, whatever the exception said
    warnings.warn(f"mjkit: cached file {path} is damaged ({reason}); rebuilding it",
                  CacheWarning, stacklevel=stacklevel)


def npy_writer(array: np.ndarray) -> Callable:
    """A writer for :func:`write_set`: ``array`` as a C-ordered ``.npy`` file."""
    return lambda fh: np.save(fh, np.ascontiguousarray(array), allow_pickle=False)


def npz_writer(arrays: Mapping[str, np.ndarray]) -> Callable:
    """A writer for :func:`write_set`: ``arrays`` as an uncompressed ``.npz`` file."""
    return lambda fh: np.savez(fh, **{k: np.ascontiguousarray(v) for k, v in arrays.items()})


def write_set(manifest: str | os.PathLike, files: Mapping[str, Callable], meta: Any = None) -> None:
    """Write the data files of a set, then its manifest.

    Parameters
    ----------
    manifest : path
        The manifest file; the data files go in its folder (created).
    files : mapping
        File name -> ``writer(fh)`` (:func:`npy_writer`, :func:`npz_writer`).
    meta
        JSON data kept (and sealed) in the manifest.

    Raises
    ------
    OSError
        The folder is not writable; a set left half-written has no manifest
        and is never read.
    """
    manifest = Path(manifest)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    # an old manifest must not vouch for files being replaced
    try:
        manifest.unlink()
    except FileNotFoundError:
        pass
    for name, write in files.items():
        storage.atomic_write(manifest.parent / name, write)
    storage.write_manifest(manifest, [manifest.parent / n for n in files], meta)


def _verified_map(path: Path, entry: dict) -> np.ndarray:
    """The bytes of ``path`` (uint8 memory map), checked against its manifest entry."""
    if path.stat().st_size != entry["size"]:
        raise storage.DamagedFile("size differs from the manifest")
    if entry["size"] == 0:
        raise storage.DamagedFile("empty file")
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    if storage.digest_bytes(raw) != entry["digest"]:
        raise storage.DamagedFile("checksum mismatch")
    return raw


def read_set(manifest: str | os.PathLike, names) -> tuple[Any, dict] | None:
    """The verified files of a set written by :func:`write_set`, or None.

    Parameters
    ----------
    manifest : path
    names : iterable of str
        The data files the set must consist of (no more, no fewer).

    Returns
    -------
    (meta, files) or None
        ``files`` maps each name to its bytes (a read-only uint8 memory map
        that matched the digest).  None when the set is absent (silently) or
        damaged in any way (with one :class:`CacheWarning`).  A set whose
        manifest or one of whose files is missing is absent.
    """
    manifest = Path(manifest)
    names = sorted(names)
    folder = manifest.parent
    # A set without its manifest, or with a file missing, is incomplete rather
    # than damaged (a write stopped before the manifest, a block deleted to
    # be redone): absent, no warning.
    if not manifest.exists() or not all((folder / n).exists() for n in names):
        return None
    at = manifest
    try:
        doc = storage.read_manifest(manifest)
        if doc is None:
            raise storage.DamagedFile("manifest unreadable or failing its checksum")
        if sorted(doc["files"]) != names:
            raise storage.DamagedFile("manifest lists other files")
        files = {}
        for name in names:
            at = folder / name
            files[name] = _verified_map(at, doc["files"][name])
        return doc["meta"], files
    except Exception as exc:        # noqa: BLE001 - any failure to read is damage, never a crash
        warn_damaged(at, f"{exc.__class__.__name__}: {exc}")
        return None


def npy_array(raw: np.ndarray) -> np.ndarray:
    """The array of a verified ``.npy`` file's bytes: a read-only view, no copy.

    Raises :class:`mjkit.storage.DamagedFile` unless the bytes hold exactly one
    C-ordered array of a plain (not object) type.
    """
    buf = bytes(raw[:_MAX_HEADER])
    fh = io.BytesIO(buf)
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise storage.DamagedFile(f"unexpected .npy version {version}")
    except storage.DamagedFile:
        raise
    except Exception as exc:        # noqa: BLE001 - numpy raises many kinds on a bad header
        raise storage.DamagedFile(f"bad .npy header ({exc.__class__.__name__})") from None
    offset = fh.tell()
    if fortran or dtype.hasobject:
        raise storage.DamagedFile("not a C-ordered array of plain values")
    count = 1
    for s in shape:
        count *= int(s)
    if offset + count * dtype.itemsize != raw.size:
        raise storage.DamagedFile("size does not match the header")
    out = np.ndarray(shape, dtype, buffer=raw, offset=offset)
    out.setflags(write=False)
    return out


def npz_arrays(raw: np.ndarray) -> dict:
    """The arrays of a verified ``.npz`` file's bytes (copies in memory)."""
    try:
        with np.load(io.BytesIO(memoryview(raw)), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception as exc:        # noqa: BLE001
        raise storage.DamagedFile(f"bad .npz ({exc.__class__.__name__})") from None
