"""Files mjkit writes and reads back: atomic writes, checksums, seals and locks.

Everything mjkit keeps on disk (cached tables, checkpoints, saved results)
goes through this module, so that one set of guarantees holds everywhere:

- :func:`atomic_write` puts a file in place whole or not at all: a temporary
  file in the same folder, flushed and fsynced, then renamed over the
  target (and the folder fsynced), with ordinary permissions (0644 less the
  umask, never the 0600 of :func:`tempfile.mkstemp`).
- :func:`write_manifest` / :func:`read_manifest` record the digest and size
  of a set of data files in a small JSON file written *last*; a reader that
  finds the manifest intact and every file matching it may trust the data.
- :func:`seal` / :func:`unseal` wrap one JSON document with a digest over its
  canonical form (and optionally over a context, e.g. a study's
  parameters), so a flipped bit or a hand edit is detected, not believed.
- :func:`file_lock` serialises the processes that would build the same
  thing: the second waits, then finds the first one's result.

A reader never trusts what fails a check: it raises :class:`DamagedFile`
(or returns ``None``) and the caller rebuilds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .locations import PACKAGE

__all__ = [
    "DamagedFile", "probe_write", "atomic_write", "atomic_write_bytes", "atomic_write_text", "digest_bytes",
    "digest_file", "file_lock", "read_manifest", "seal", "unseal", "verify_manifest",
    "write_manifest", "canonical_json", "source_fingerprint",
]

_ALGO = "blake2b-256"
_CHUNK = 1 << 22


class DamagedFile(ValueError):
    """A file read back from disk fails its checksum or does not parse."""


# ---------------------------------------------------------------- digests


def _hasher():
    return hashlib.blake2b(digest_size=32)


def digest_bytes(data: bytes | bytearray | memoryview) -> str:
    """The hex digest (BLAKE2b, 256 bits) of ``data``."""
    h = _hasher()
    h.update(data)
    return h.hexdigest()


def digest_file(path: str | os.PathLike) -> str:
    """The hex digest of a file's bytes, read in chunks."""
    h = _hasher()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_CHUNK)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


def source_fingerprint(folders, *, exclude=(), h=None) -> str:
    """A fingerprint of the mjkit sources that produce a cached result.

    Every ``*.py`` file of each folder in ``folders`` (names relative to the package, e.g.
    ``"_kernels"``), less the file names in ``exclude``, feeds its name and bytes into a
    BLAKE2b hash, in a fixed order.  Pass ``h`` (a hash object already fed with other
    inputs) to extend it; the hex digest is returned either way.  Cache keys, checkpoint
    engines and exact-count runs all use this one function, so a change to any source they
    depend on invalidates them alike.
    """
    package = PACKAGE
    h = _hasher() if h is None else h
    for folder in folders:
        for path in sorted((package / folder).glob("*.py")):
            if path.name in exclude:
                continue
            h.update(f"{folder}/{path.name}".encode())
            h.update(_file_digest(path))
    return h.hexdigest()


# path -> ((mtime_ns, size), digest): the searches ask for the value index's key on every
# query, and hashing the kernels' sources each time cost milliseconds
_FILE_DIGESTS: dict = {}


def _file_digest(path) -> bytes:
    """The digest of a file's bytes, hashed again only when its mtime or size changes."""
    st = path.stat()
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _FILE_DIGESTS.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    fh = _hasher()
    fh.update(path.read_bytes())
    digest = fh.digest()
    _FILE_DIGESTS[path] = (stamp, digest)
    return digest


def canonical_json(obj: Any) -> bytes:
    """``obj`` as JSON with sorted keys and no spaces: the form that is digested."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


# ---------------------------------------------------------------- atomic writes


def _umask_mode(mode: int) -> int:
    um = os.umask(0)
    os.umask(um)
    return mode & ~um


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], Any], *,
                 mode: int = 0o644) -> Path:
    """Write a file whole or not at all.

    ``write(fh)`` fills a temporary file in the target's folder; it is
    flushed, fsynced, given ``mode`` (less the umask) and renamed over
    ``path``.  On any error the temporary file is removed and the old file,
    if any, is left as it was.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _umask_mode(mode))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):      # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, mode: int = 0o644) -> Path:
    """:func:`atomic_write` of a bytes object."""
    return atomic_write(path, lambda fh: fh.write(data), mode=mode)


def atomic_write_text(path: str | os.PathLike, text: str, *, mode: int = 0o644) -> Path:
    """:func:`atomic_write` of UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def probe_write(folder: str | os.PathLike) -> None:
    """Create and remove a file in ``folder``: OSError unless a file can really be written.

    A real write, not :func:`os.access`: it also catches read-only mounts,
    root squash and full disks.
    """
    fd, probe = tempfile.mkstemp(prefix=".mjkit-probe.", suffix=".tmp", dir=folder)
    os.close(fd)
    os.unlink(probe)


def is_temporary(name: str) -> bool:
    """Whether a file name is one of :func:`atomic_write`'s temporary files."""
    return name.startswith(".") and name.endswith(".tmp")


# ---------------------------------------------------------------- seals


def seal(obj: Any, *, context: Any = None) -> dict:
    """``{"data": obj, "digest": ...}``: a digest over ``obj`` (and ``context``).

    ``context`` is not stored; :func:`unseal` must be given the same one, so a
    document written for one purpose (say, one study's parameters) is not
    accepted for another.
    """
    return {"data": obj, "algo": _ALGO, "digest": digest_bytes(canonical_json([obj, context]))}


def unseal(doc: Any, *, context: Any = None) -> Any:
    """The data of a :func:`seal` document, or :class:`DamagedFile`."""
    if not isinstance(doc, dict) or set(doc) != {"data", "algo", "digest"}:
        raise DamagedFile("not a sealed document")
    if doc["algo"] != _ALGO:
        raise DamagedFile(f"unknown digest {doc['algo']!r}")
    try:
        expected = digest_bytes(canonical_json([doc["data"], context]))
    except (TypeError, ValueError) as exc:
        raise DamagedFile(f"content cannot be digested: {exc}") from None
    if doc["digest"] != expected:
        raise DamagedFile("checksum mismatch")
    return doc["data"]


def write_sealed_json(path: str | os.PathLike, obj: Any, *, context: Any = None,
                      mode: int = 0o644) -> Path:
    """Write ``seal(obj, context=context)`` as JSON, atomically."""
    return atomic_write_bytes(path, canonical_json(seal(obj, context=context)), mode=mode)


def read_sealed_json(path: str | os.PathLike, *, context: Any = None) -> Any:
    """Read a :func:`write_sealed_json` file; :class:`DamagedFile` if anything is off.

    ``OSError`` (missing, unreadable) passes through unchanged.
    """
    raw = Path(path).read_bytes()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise DamagedFile(f"{Path(path).name}: not JSON ({exc.__class__.__name__})") from None
    try:
        return unseal(doc, context=context)
    except DamagedFile as exc:
        raise DamagedFile(f"{Path(path).name}: {exc}") from None


# ---------------------------------------------------------------- manifests


def write_manifest(path: str | os.PathLike, files: Iterable[str | os.PathLike],
                   meta: Any = None) -> Path:
    """Record the digest and size of ``files`` (in ``path``'s folder) and ``meta``.

    Write it after the files themselves: a folder whose manifest is intact
    and matches every file was written completely.
    """
    path = Path(path)
    entries = {}
    for f in files:
        f = Path(f)
        if f.parent.resolve() != path.parent.resolve():
            raise ValueError(f"{f} is not in the manifest's folder")
        entries[f.name] = {"size": f.stat().st_size, "digest": digest_file(f)}
    return write_sealed_json(path, {"files": entries, "meta": meta})


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest ``{"files": ..., "meta": ...}``, or None if absent or damaged."""
    try:
        doc = read_sealed_json(path)
    except (OSError, DamagedFile):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
        return None
    for name, entry in doc["files"].items():
        if (not isinstance(name, str) or "/" in name or "\\" in name or name in ("", ".", "..")
                or not isinstance(entry, dict) or not isinstance(entry.get("size"), int)
                or not isinstance(entry.get("digest"), str)):
            return None
    return doc


def verify_manifest(path: str | os.PathLike, manifest: dict | None = None) -> dict | None:
    """The manifest if it and every file it lists are intact, else None."""
    path = Path(path)
    doc = read_manifest(path) if manifest is None else manifest
    if doc is None:
        return None
    try:
        for name, entry in doc["files"].items():
            f = path.parent / name
            if f.stat().st_size != entry["size"] or digest_file(f) != entry["digest"]:
                return None
    except OSError:
        return None
    return doc


# ---------------------------------------------------------------- locks


@contextlib.contextmanager
def file_lock(path: str | os.PathLike, *, poll: float = 0.2,
              timeout: float | None = None,
              on_wait: Callable[[], Any] | None = None) -> Iterator[bool]:
    """Hold an exclusive lock on ``path`` (created if needed) for the block.

    Yields True when the lock is held.  Where locking is impossible (no
    ``fcntl``, a read-only folder) it yields False and the caller proceeds
    unlocked: duplicated work, never a failure.  The lock dies with the
    process, so a killed builder never leaves the others waiting.
    ``on_wait()`` is called once if another process holds the lock (to say
    why nothing happens for a while).
    """
    try:
        import fcntl
    except ImportError:          # pragma: no cover - not POSIX
        yield False
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        start = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                    on_wait = None
                if timeout is not None and time.monotonic() - start > timeout:
                    yield False
                    return
                time.sleep(poll)
            except OSError:
                yield False
                return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
