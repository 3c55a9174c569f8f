"""numba's cache files with a flipped bit: a miss, never an error (issue 35).

numba reads its cache index (``.nbi``) and data (``.nbc``) files with ``pickle``.  One
flipped bit in an index made the unpickler recurse, overflow or ask for gigabytes (a
``REDUCE`` turned ``LONG_BINPUT`` asks CPython for a 20 GB memo table), and every later
call of that kernel failed until the file was deleted by hand; a flipped bit in a data
file's machine code could crash the process.  Now numba unpickles only files sealed with
their SHA-256 by :mod:`mjkit._numba_cache`: any other file is a miss, the kernel compiles
again, numba rewrites the entry and the next process loads it.

Every check runs in a process of its own, on a cache folder of its own
(``NUMBA_CACHE_DIR``: the caches other tests share are never damaged) and under an
address-space limit, so that a regression fails with ``MemoryError`` instead of taking
the machine's memory.
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import pickletools
import shutil
import subprocess
import sys

import pytest

try:
    import resource         # the address-space limit (POSIX)
except ImportError:         # Windows: the checks run without it
    resource = None

#: The address space a checking process may use (a numba process needs about 0.5 GB).
_LIMIT = 4 << 30

_MODULE = '''\
from numba import njit


@njit(cache=True)
def affine(x):
    return 2 * x + 1
'''

# Shared by the checking processes: the function, its cache files and how a load ends.
_PRELUDE = '''\
import json, random, sys
import mjkit  # noqa: F401 - mjkit's cache reader, as in every mjkit process
sys.path.insert(0, sys.argv[1])
from flipmod import affine
from numba.core import types

SIG = (types.int64,)
cache = affine._cache
index_file = cache._cache_file._index_path


def outcome(path, blob):
    """Write ``blob`` to ``path`` and load the entry as a call of ``affine`` would."""
    with open(path, "wb") as f:
        f.write(blob)
    try:
        overloads = cache._cache_file._load_index()   # what numba's save starts with too
        if not isinstance(overloads, dict):
            return "index " + type(overloads).__name__
        if not overloads:
            return "miss"                              # load_overload reads the same index
        got = cache.load_overload(SIG, affine.targetctx)
    except BaseException as exc:                       # noqa: BLE001 - what the test counts
        return type(exc).__name__
    if got is None:
        return "miss"
    if tuple(got.signature.args) != SIG:
        return "wrong signature"
    return "hit" if got.entry_point(20) == 41 else "wrong code"
'''

_FLIPS = _PRELUDE + '''
assert affine(20) == 41                     # compiled and saved in this cache folder
data_file = cache._cache_file._data_path(next(iter(cache._cache_file._load_index().values())))
report = {}
for name, path, step in (("index", index_file, 1), ("data", data_file, 8)):
    # one bit of every byte of the index (1.5 kB), of every eighth byte of the data (8 kB)
    written = open(path, "rb").read()
    rng = random.Random(35)
    counts, first = {}, {}
    for i in range(0, len(written), step):
        bit = rng.randrange(8)
        flipped = bytearray(written)
        flipped[i] ^= 1 << bit
        end = outcome(path, bytes(flipped))
        counts[end] = counts.get(end, 0) + 1
        first.setdefault(end, [i, bit])
    report[name] = {"flips": sum(counts.values()), "counts": counts, "first": first,
                    "intact": outcome(path, written)}
print(json.dumps(report))
'''

# After a damaged index: the call still answers, and says whether it loaded or compiled.
_CALL = _PRELUDE + '''
print(json.dumps({"value": affine(20), "hits": sum(affine.stats.cache_hits.values()),
                  "misses": sum(affine.stats.cache_misses.values())}))
'''


# An index naming the other signature's data file, as numba leaves one when stopped
# between writing an index and the data file it names (or a damaged index would).
_SWAP = _PRELUDE + '''
assert affine(20) == 41 and affine(2.5) == 6.0
file = cache._cache_file
entries = file._load_index()
(k1, n1), (k2, n2) = entries.items()
file._save_index({k1: n2, k2: n1})          # written (and sealed) by numba itself
loaded = [cache.load_overload(sig, affine.targetctx) for sig in (SIG, (types.float64,))]
print(json.dumps({"entries": len(file._load_index()),
                  "loaded": [None if c is None else str(c.signature) for c in loaded]}))
'''

_BOTH = _PRELUDE + '''
print(json.dumps({"values": [affine(20), affine(2.5)],
                  "misses": sum(affine.stats.cache_misses.values())}))
'''


def _limit_memory():
    """In the child process: at most :data:`_LIMIT` of address space (where it can be set)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = _LIMIT if hard == resource.RLIM_INFINITY else min(_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):   # e.g. macOS, where it cannot be lowered so
        pass


def _python(args, *, cache=None, env=None, timeout=300):
    """Run Python in a process of its own, on ``cache`` if given, under the memory limit."""
    run_env = dict(os.environ, MJKIT_QUIET="1", **(env or {}))
    if cache is not None:
        run_env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, *map(str, args)], env=run_env,
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory if resource is not None else None)


def _last_json(out):
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def flipmod(tmp_path):
    folder = tmp_path / "mod"
    folder.mkdir()
    (folder / "flipmod.py").write_text(_MODULE, encoding="utf-8")
    return folder


def _damaged(blob, opcode, flip):
    """``blob`` (an index) as numba alone writes it, ``opcode``'s first byte XOR ``flip``.

    The seal is dropped first (the index of a numba without mjkit, or of mjkit before
    issue 35), so that the flipped pickle is what a reader without the seal would unpickle.
    """
    head = pickle.dumps(pickle.loads(blob), protocol=-1)   # numba's version, as numba writes it
    body = blob[len(head):]
    if b"mjkit-sha256" in body[-64:]:
        body = body[:body.rindex(b"\x00mjkit-sha256\x00")]
    where = next(pos for op, _, pos in pickletools.genops(body) if op.name == opcode)
    body = bytearray(body)
    body[where] ^= flip
    return head + bytes(body)


#: Single-bit flips that broke every later load before issue 35: a REDUCE turned
#: LONG_BINPUT (a memo slot of about 10**9: a 20 GB table, or MemoryError), a MEMOIZE
#: turned BYTEARRAY8 (allocates an 8-byte length first: MemoryError) or FRAME
#: (OverflowError).
_BOMBS = [("REDUCE", 0x20), ("MEMOIZE", 0x02), ("MEMOIZE", 0x01)]


def test_every_flipped_bit_of_an_index_or_data_file_is_a_miss(flipmod, tmp_path):
    report = _last_json(_python(["-c", _FLIPS, flipmod], cache=tmp_path / "cache"))
    for name, seen in report.items():
        assert seen["intact"] == "hit", f"the {name} file as numba wrote it does not load"
        # never an error, never wrong code, never a load of a file but the one written
        assert seen["counts"] == {"miss": seen["flips"]}, \
            f"{name}: {seen['counts']}; first (byte, bit): {seen['first']}"
    assert report["index"]["flips"] > 1000 and report["data"]["flips"] > 500, report


def test_a_damaged_index_is_a_miss_and_numba_rewrites_it(flipmod, tmp_path):
    cache = tmp_path / "cache"
    assert _last_json(_python(["-c", _CALL, flipmod], cache=cache))["misses"] == 1
    index = next(cache.rglob("*.nbi"))
    for opcode, flip in _BOMBS:
        index.write_bytes(_damaged(index.read_bytes(), opcode, flip))
        damaged = index.read_bytes()
        # the damaged index: a miss, the right answer, and the index written again ...
        assert _last_json(_python(["-c", _CALL, flipmod], cache=cache)) == {
            "value": 41, "hits": 0, "misses": 1}, (opcode, flip)
        assert index.read_bytes() != damaged
        # ... so that the next process loads the kernel instead of compiling it
        assert _last_json(_python(["-c", _CALL, flipmod], cache=cache)) == {
            "value": 41, "hits": 1, "misses": 0}, (opcode, flip)


def test_an_index_naming_another_signatures_code_is_a_miss(flipmod, tmp_path):
    """Never run one signature's machine code for another's arguments."""
    cache = tmp_path / "cache"
    got = _last_json(_python(["-c", _SWAP, flipmod], cache=cache))
    assert got == {"entries": 2, "loaded": [None, None]}, got
    assert _last_json(_python(["-c", _BOTH, flipmod], cache=cache)) == {
        "values": [41, 6.0], "misses": 2}


def test_mjkit_score_survives_a_damaged_scoring_kernel_index(tmp_path):
    """The issue's report: after one flipped bit, every later ``mjkit score`` failed."""
    from numba.core.caching import _CacheLocator

    from mjkit._kernels.evaluate import score_plain_row

    hand = "123m456p789s55mEEE"
    # the kernels as this test session caches them (compiled there if need be), copied
    # into a folder of this test's own, where the copy of the index is then damaged
    want = _python(["-m", "mjkit", "score", hand])
    assert want.returncode in (0, 1) and "Traceback" not in want.stderr, want.stderr[-3000:]
    source = inspect.getfile(score_plain_row.py_func)
    cache = tmp_path / "cache"
    kernels = cache / _CacheLocator.get_suitable_cache_subpath(source)
    shutil.copytree(score_plain_row._cache.cache_path, kernels,
                    ignore=lambda folder, names: [n for n in names
                                                  if not n.endswith((".nbi", ".nbc"))])
    index = kernels / score_plain_row._cache._cache_file._index_name
    index.write_bytes(_damaged(index.read_bytes(), *_BOMBS[0]))
    debug = {"NUMBA_DEBUG_CACHE": "1"}
    for attempt in ("first", "second"):
        got = _python(["-m", "mjkit", "score", hand], cache=cache, env=debug)
        assert got.returncode == want.returncode, f"{attempt} run: {got.stderr[-3000:]}"
        assert "Traceback" not in got.stderr
        answer = [line for line in got.stdout.splitlines() if not line.startswith("[cache]")]
        assert answer == want.stdout.splitlines(), f"{attempt} run"
        log = [line for line in got.stdout.splitlines() if "score_plain_row" in line]
        if attempt == "first":      # compiled again, and numba rewrote the entry ...
            assert any("index saved" in line for line in log), log
        else:                       # ... which the next process loads
            assert any("data loaded" in line for line in log), log
            assert not any("saved" in line for line in log), log
