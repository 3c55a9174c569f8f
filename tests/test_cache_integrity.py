"""Caches that cannot lie (issue 12, section 2).

Every cached table (shanten tables, value index and its build blocks, the
exact work blocks) is trusted only when its manifest of digests, written
last, matches the very bytes that are used; anything else is rebuilt with
one warning, never a wrong answer or a crash.  Two processes building one
value index take turns.  ``import mjkit`` works where numba cannot cache
beside the package or in ``$HOME``.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import mjkit
from mjkit import storage
from mjkit import value_index as VI

ROOT = Path(__file__).resolve().parents[1]


def _flip(path, byte, bit=0):
    data = bytearray(Path(path).read_bytes())
    data[byte] ^= 1 << bit
    Path(path).write_bytes(bytes(data))


def _run(code, *args, env=None, timeout=600, cwd=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    env.update(extra)
    return env


def _cache_warnings(caught):
    return [str(w.message) for w in caught if w.category.__name__ == "CacheWarning"]


# ---------------------------------------------------------------- shanten tables

# A subprocess, so that whatever a damaged header does (TokenError, SyntaxError,
# MemoryError, a crash) cannot hide behind this test process.  Each flipped
# header must be refused (None, one warning) or, in full mode, rebuilt right.
_FLIPS = """
import sys, warnings
import numpy as np
from pathlib import Path
import importlib
ms = importlib.import_module("mjkit.shanten")

folder = Path(sys.argv[1])
full = sys.argv[2] == "full"
bits = [int(b) for b in sys.argv[3].split(",")]
ref = [np.array(t) for t in ms._load_or_build()]
path = next(folder.glob("*_honor.npy"))
stem = path.name[:-len("_honor.npy")]
pristine = path.read_bytes()
refused = 0
unwarned = []
for bit in bits:
    data = bytearray(pristine)
    data[bit // 8] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if full:
            got = ms._load_or_build()
            assert ms.TABLE_INFO["source"] == "built", bit
            assert all(np.array_equal(a, b) for a, b in zip(got, ref)), bit
            assert path.read_bytes() == pristine, bit         # rewritten whole
        else:
            assert ms._load(folder, stem) is None, bit
            path.write_bytes(pristine)
    msgs = [str(w.message) for w in caught]
    if not (len(msgs) == 1 and path.name in msgs[0] and "\\n" not in msgs[0]):
        unwarned.append((bit, msgs))
    refused += 1
assert not unwarned, unwarned[:5]
got = ms._load(folder, stem)
assert got is not None and all(np.array_equal(a, b) for a, b in zip(got, ref))
print("refused", refused)
"""


#: The header of these .npy files is 128 bytes: 1,024 bits.
_HEADER_BITS = range(8 * 128)


def _flips(tmp_path, mode, bits, timeout=600):
    return _run(_FLIPS, tmp_path, mode, ",".join(map(str, bits)),
                env=_env(MJKIT_CACHE_DIR=str(tmp_path)), timeout=timeout)


def test_every_header_bit_flip_of_a_shanten_table_is_refused(tmp_path):
    """All 1,024 single-bit flips of the header: refused with one warning, never an
    escaping TokenError (101 of them escaped before) or a wrong table."""
    r = _flips(tmp_path, "load", _HEADER_BITS)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"refused {len(_HEADER_BITS)}" in r.stdout


def test_header_flips_are_rebuilt_into_the_right_table(tmp_path):
    """A sample of header flips through the whole path: rebuilt, equal, rewritten."""
    r = _flips(tmp_path, "full", [3, 70, 300, 333, 401, 555, 700, 812, 1000])
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
def test_all_header_flips_are_rebuilt_into_the_right_table(tmp_path):
    r = _flips(tmp_path, "full", _HEADER_BITS, timeout=3000)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.parametrize("damage", ["truncate", "empty", "manifest", "manifest_bit", "data"])
def test_damaged_shanten_cache_is_rebuilt(tmp_path, monkeypatch, damage):
    ms = importlib.import_module("mjkit.shanten")

    monkeypatch.setattr(ms, "TABLE_INFO", {})
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    ref = [np.array(t) for t in ms._load_or_build()]
    suit = next(tmp_path.glob("*_suit.npy"))
    manifest = next(tmp_path.glob("shanten*.json"))
    if damage == "truncate":
        suit.write_bytes(suit.read_bytes()[:-10])
    elif damage == "empty":
        suit.write_bytes(b"")
    elif damage == "manifest":
        manifest.write_text("{")
    elif damage == "manifest_bit":
        _flip(manifest, len(manifest.read_bytes()) // 2)
    else:
        _flip(suit, 5_000_000, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "built"
    assert all(np.array_equal(a, b) for a, b in zip(got, ref))
    assert len(_cache_warnings(caught)) == 1
    ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "disk"          # never a permanent failure


def test_shanten_tables_are_views_of_the_checked_bytes(tmp_path, monkeypatch):
    """What is handed out is the memory map that was digested, read-only."""
    ms = importlib.import_module("mjkit.shanten")

    monkeypatch.setattr(ms, "TABLE_INFO", {})
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    ms._load_or_build()
    suit, honor = ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "disk"
    assert not suit.flags.writeable and not honor.flags.writeable
    assert isinstance(suit.base, np.memmap)


# ---------------------------------------------------------------- value index, fake builder


def _fan_keys(rs):
    from mjkit.rules.catalogue import fan_catalogue

    cat = fan_catalogue()
    return [cat["key"].iat[i] for i in VI._hand_fans(rs)]


@pytest.fixture
def fake_index(tmp_path, monkeypatch):
    """A value index cached in ``tmp_path`` whose builder is quick and counted."""
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(VI, "_MEMO", {})
    monkeypatch.setattr(VI, "INDEX_INFO", {})
    rs = mjkit.get_rules("dazhong32")
    fam = VI.families()
    n_rows = 7
    calls = []

    def build(rules, *, folder=None, progress=None):
        calls.append(folder)
        ids = np.resize(np.arange(n_rows, dtype=np.uint16), fam.n)
        counted = np.arange(n_rows, dtype=np.int64) * 5
        hand_fans = np.zeros((n_rows, 2), np.uint64)
        hand_fans[:, 0] = np.arange(n_rows, dtype=np.uint64)
        return VI.ValueIndex(rs.name, ids, counted, hand_fans, _fan_keys(rs))

    monkeypatch.setattr(VI, "build_value_index", build)
    folder = tmp_path / "value_index"

    def get():
        VI._MEMO.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            idx = VI.value_index("dazhong32", progress=False)
        return idx, VI.INDEX_INFO["dazhong32"]["source"], _cache_warnings(caught)

    first, source, msgs = get()
    assert source == "built" and msgs == [] and len(calls) == 1
    return {"folder": folder, "get": get, "calls": calls, "ref": first, "rs": rs}


def _file(folder, suffix):
    (path,) = [p for p in folder.iterdir() if p.name.endswith(suffix)]
    return path


def _same(a, b):
    return (np.array_equal(a.ids, b.ids) and np.array_equal(a.counted, b.counted)
            and np.array_equal(a.hand_fans, b.hand_fans) and a.fan_keys == b.fan_keys)


def test_value_index_reloads_intact(fake_index):
    idx, source, msgs = fake_index["get"]()
    assert source == "disk" and msgs == [] and len(fake_index["calls"]) == 1
    assert _same(idx, fake_index["ref"])
    assert not idx.ids.flags.writeable
    assert VI.index_available("dazhong32")


@pytest.mark.parametrize("where", ["ids_data", "ids_header", "ids_empty", "ids_truncated",
                                   "counted", "hand_fans", "manifest", "manifest_json"])
def test_damaged_value_index_is_rebuilt(fake_index, where):
    """Flipped bits, an empty or truncated file, a damaged manifest: one warning,
    rebuilt, the same index; the next process loads it from disk again."""
    folder = fake_index["folder"]
    if where == "ids_data":
        _flip(_file(folder, "-ids.npy"), 1000, 4)          # in range, silently wrong before
    elif where == "ids_header":
        _flip(_file(folder, "-ids.npy"), 40, 1)
    elif where == "ids_empty":
        _file(folder, "-ids.npy").write_bytes(b"")
    elif where == "ids_truncated":
        p = _file(folder, "-ids.npy")
        p.write_bytes(p.read_bytes()[:1_000_000])
    elif where == "counted":
        _flip(_file(folder, "-counted.npy"), 130, 0)
    elif where == "hand_fans":
        _flip(_file(folder, "-hand_fans.npy"), 140, 7)
    elif where == "manifest":
        _flip(_file(folder, ".manifest.json"), 30, 2)
    else:
        _file(folder, ".manifest.json").write_text("not json")
    idx, source, msgs = fake_index["get"]()
    assert source == "built" and len(fake_index["calls"]) == 2
    assert len(msgs) == 1 and "damaged" in msgs[0] and "\n" not in msgs[0]
    assert _same(idx, fake_index["ref"])
    idx, source, msgs = fake_index["get"]()
    assert source == "disk" and msgs == [] and _same(idx, fake_index["ref"])


def test_value_index_with_a_resealed_manifest_that_lies(fake_index):
    """A manifest whose seal is valid but whose content is not this index (no
    fan_keys, other fan keys, out-of-range ids with matching digests) is refused."""
    folder = fake_index["folder"]
    manifest = _file(folder, ".manifest.json")
    doc = storage.read_manifest(manifest)
    # 1. meta without fan_keys (a traceback on every later run before)
    meta = dict(doc["meta"])
    del meta["fan_keys"]
    storage.write_sealed_json(manifest, {"files": doc["files"], "meta": meta})
    idx, source, msgs = fake_index["get"]()
    assert source == "built" and len(msgs) == 1 and _same(idx, fake_index["ref"])
    # 2. ids past the table, with digests that match them
    ids_path = _file(folder, "-ids.npy")
    bad = np.array(fake_index["ref"].ids)
    bad[12345] = 60000
    np.save(ids_path, bad)
    storage.write_manifest(manifest, sorted(p for p in folder.iterdir() if p.suffix == ".npy"),
                           storage.read_manifest(manifest)["meta"])
    idx, source, msgs = fake_index["get"]()
    assert source == "built" and len(msgs) == 1 and "60000" in msgs[0]
    assert _same(idx, fake_index["ref"]) and int(idx.ids.max()) < len(idx.counted)


def test_value_index_refuses_ids_past_its_table():
    """No ValueIndex whose ids point outside its table can exist: none reaches a kernel."""
    counted = np.array([0, 8, 16], np.int64)
    fans = np.zeros((3, 2), np.uint64)
    with pytest.raises(ValueError, match="row 3"):
        VI.ValueIndex("dazhong32", np.array([0, 1, 3], np.uint16), counted, fans, [])
    with pytest.raises(ValueError):
        VI.ValueIndex("dazhong32", np.array([0, 1], np.int64), counted, fans, [])
    with pytest.raises(ValueError):
        VI.ValueIndex("dazhong32", np.array([0, 1], np.uint16), counted, fans[:2], [])
    ok = VI.ValueIndex("dazhong32", np.array([0, 2], np.uint16), counted, fans, [])
    with pytest.raises(ValueError):
        ok.ids[0] = 9                                   # and none can be written later


def test_value_index_build_blocks_are_checked(tmp_path, monkeypatch):
    """A flipped bit in a finished build block is scored again, not merged."""
    calls = []

    def fake_block(fam, rs, lo, hi, key_cols):
        calls.append(lo)
        table = np.array([[lo % 11, 1, 2], [lo % 13 + 20, 3, 4]], np.uint64)
        return table, (np.arange(hi - lo) % 2).astype(np.uint32)

    monkeypatch.setattr(VI, "_score_block", fake_block)
    monkeypatch.setattr(VI, "_BLOCK", 1_000_000)          # blocks of representatives
    blocks = tmp_path / "blocks"
    ref = VI.build_value_index("dazhong32", folder=blocks, progress=False)
    n_blocks = len(calls)
    assert n_blocks >= 3
    again = VI.build_value_index("dazhong32", folder=blocks, progress=False)
    assert len(calls) == n_blocks and _same(again, ref)          # resumed from the blocks
    data = sorted(blocks.glob("block-*.npz"))
    _flip(data[1], len(data[1].read_bytes()) // 2, 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = VI.build_value_index("dazhong32", folder=blocks, progress=False)
    assert calls[n_blocks:] == [1_000_000]                        # only the damaged block
    assert len(_cache_warnings(caught)) == 1 and _same(again, ref)


_RACER = """
import json, os, sys, time
import numpy as np
import mjkit
from mjkit import value_index as VI
from mjkit.rules.catalogue import fan_catalogue

rs = mjkit.get_rules("dazhong32")
fam = VI.families()
log = sys.argv[1]

def build(rules, *, folder=None, progress=None):
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(2.0)
    ids = np.resize(np.arange(5, dtype=np.uint16), fam.n)
    cat = fan_catalogue()
    return VI.ValueIndex(rs.name, ids, np.arange(5, dtype=np.int64),
                         np.zeros((5, 2), np.uint64),
                         [cat["key"].iat[i] for i in VI._hand_fans(rs)])

VI.build_value_index = build
open(sys.argv[2], "w").close()          # ready
while not os.path.exists(sys.argv[3]):   # start together
    time.sleep(0.01)
idx = VI.value_index("dazhong32", progress=True)
print(json.dumps({"source": VI.INDEX_INFO["dazhong32"]["source"], "max": int(idx.ids.max())}))
"""


def test_two_processes_build_the_index_once(tmp_path):
    """The second process waits for the first one's build, then loads it."""
    log, go = tmp_path / "builds.log", tmp_path / "go"
    env = _env(MJKIT_CACHE_DIR=str(tmp_path / "cache"))
    procs = []
    for k in range(2):
        ready = tmp_path / f"ready{k}"
        procs.append((ready, subprocess.Popen(
            [sys.executable, "-c", _RACER, str(log), str(ready), str(go)], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    import time

    deadline = time.monotonic() + 300
    while not all(r.exists() for r, _ in procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    go.write_text("")
    outs = []
    for _, p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        outs.append((json.loads(out.strip().splitlines()[-1]), err))
    assert len(log.read_text().split()) == 1                  # built once
    assert sorted(o["source"] for o, _ in outs) == ["built", "disk"]
    assert all(o["max"] == 4 for o, _ in outs)
    waiter = [err for o, err in outs if o["source"] == "disk"][0]
    assert "another process is building it" in waiter


# ---------------------------------------------------------------- value index, the real one

_HANDS = ("123m234m345m67m99s", "19m19p19s1234567z", "112233m445566p7z")


def _answers(rules="dazhong32"):
    out = []
    for h in _HANDS:
        r = mjkit.distance_to(h, 32, rules)
        out.append((r.distance, [(t.hand, t.counted, tuple(t.fans)) for t in r.targets]))
    return out


@pytest.fixture
def real_copy(tmp_path, monkeypatch):
    """The session's dazhong32 index (built or cached) copied into a fresh cache folder."""
    VI.value_index("dazhong32")
    ref = _answers()
    trusted = VI.value_index("dazhong32")
    src = Path(VI.INDEX_INFO["dazhong32"]["folder"] or "")
    key = VI._key(mjkit.get_rules("dazhong32"), VI.families())
    files = [p for p in src.glob(f"{key}*") if p.is_file()]
    if not files:
        pytest.skip("the value index is not cached on disk here")
    dst = tmp_path / "value_index"
    dst.mkdir()
    for p in files:
        shutil.copy2(p, dst / p.name)
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(VI, "_MEMO", {})
    monkeypatch.setattr(VI, "INDEX_INFO", {})
    return {"folder": dst, "key": key, "ref": ref, "trusted": trusted}


def _damage_ids(folder, key):
    path = folder / f"{key}-ids.npy"
    data = bytearray(path.read_bytes())
    size = len(data)
    # flips spread over the file, and ids pushed far past the table
    for k, at in enumerate(range(200, size, size // 97)):
        data[at] ^= 1 << (k % 8)
    data[size // 2: size // 2 + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))


def test_real_index_with_damaged_ids_is_rebuilt_not_believed(real_copy, monkeypatch):
    """Damaged ids of the real index: refused (one warning); the rebuilt index (the
    trusted copy, to keep this fast) gives distance_to's answers as before."""
    calls = []

    def rebuild(rules, *, folder=None, progress=None):
        calls.append(1)
        t = real_copy["trusted"]
        return VI.ValueIndex(t.rules, np.array(t.ids), np.array(t.counted),
                             np.array(t.hand_fans), list(t.fan_keys))

    monkeypatch.setattr(VI, "build_value_index", rebuild)
    _damage_ids(real_copy["folder"], real_copy["key"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _answers()
    assert calls == [1] and VI.INDEX_INFO["dazhong32"]["source"] == "built"
    assert len(_cache_warnings(caught)) == 1
    assert got == real_copy["ref"]
    VI._MEMO.clear()
    assert _answers() == real_copy["ref"] and VI.INDEX_INFO["dazhong32"]["source"] == "disk"


@pytest.mark.slow
def test_real_index_with_damaged_ids_is_truly_rebuilt(real_copy):
    """The same with the real builder (minutes)."""
    _damage_ids(real_copy["folder"], real_copy["key"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _answers()
    assert VI.INDEX_INFO["dazhong32"]["source"] == "built"
    assert len(_cache_warnings(caught)) == 1
    assert got == real_copy["ref"]


def test_damaged_real_index_is_refused_in_a_process_of_its_own(real_copy, tmp_path):
    """What `mjkit targets` reads first (it aborted with heap corruption on such a
    cache before): the damaged real index is refused with one warning, no crash."""
    _damage_ids(real_copy["folder"], real_copy["key"])
    code = f"""
    import warnings
    from mjkit import value_index as VI
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import mjkit.rules
        rs = mjkit.rules.get_rules("dazhong32")
        got = VI._load(VI.Path({str(real_copy['folder'])!r}), {real_copy['key']!r}, rs,
                       VI.families())
    assert got is None
    assert len([w for w in caught if w.category.__name__ == "CacheWarning"]) == 1
    print("refused")
    """
    r = _run(code, env=_env(MJKIT_CACHE_DIR=str(tmp_path)))
    assert r.returncode == 0 and "refused" in r.stdout, r.stderr[-2000:]


# ---------------------------------------------------------------- exact work blocks


@pytest.fixture(scope="module")
def small_patterns():
    from mjkit import exact as E

    # complete patterns by number (the whole enumeration takes far longer)
    fam = VI.families()
    rng = np.random.default_rng(12)
    idx = np.sort(rng.choice(fam.n, 600, replace=False))
    counts = np.ascontiguousarray(np.stack([fam.pattern(i) for i in idx]).astype(np.uint8))
    forms, combos = E._forms_weights(counts)
    assert forms.all()
    return E.Patterns(counts, forms, combos)


def _agg_equal(a, b):
    return all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("damage", ["bit", "truncate", "edited", "manifest"])
def test_damaged_exact_block_is_rescored(small_patterns, tmp_path, damage):
    """A work block that fails its digest, or is edited and resealed into numbers that
    do not fit its rows, is scored again (one warning); results unchanged."""
    from mjkit import exact as E

    first = E._score_all(small_patterns, "gb", workdir=tmp_path, block=200, progress=False)
    files = sorted(tmp_path.rglob("gb-*.npz"))
    assert len(files) == 3
    target = files[1]
    stamp = target.stat().st_mtime_ns
    if damage == "bit":
        _flip(target, len(target.read_bytes()) // 2, 2)
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:300])
    elif damage == "manifest":
        _flip(target.with_name(target.name.replace(".npz", ".manifest.json")), 20, 1)
    else:
        with np.load(target) as z:
            part = {k: z[k] for k in z.files}
        part["patterns"][0] += 7              # dealt hands that do not exist
        np.savez(target, **part)
        manifest = target.with_name(target.name.replace(".npz", ".manifest.json"))
        if manifest.exists():                 # resealed: only the content check can tell
            storage.write_manifest(manifest, [target], storage.read_manifest(manifest)["meta"])
    os.utime(target, ns=(stamp - 10**9, stamp - 10**9))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = E._score_all(small_patterns, "gb", workdir=tmp_path, block=200,
                             progress=False)
    assert _agg_equal(first, again)
    assert target.stat().st_mtime_ns > stamp - 10**9          # scored and written again
    assert len(_cache_warnings(caught)) == 1


# ---------------------------------------------------------------- numba cache fallback

_IMPORT = """
import os, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mjkit
from mjkit._kernels.shapes import knitted_tile
assert int(knitted_tile(1, 2)) >= 0          # compiles (and caches) a kernel
from mjkit import _numba_cache
print("FALLBACK", _numba_cache.FALLBACK)
print("WARN", [str(w.message) for w in caught if "numba" in str(w.message)])
"""


def _package_copy(tmp_path):
    root = tmp_path / "pkg"
    shutil.copytree(ROOT / "mjkit", root / "mjkit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def _can_mount(folder):
    """Whether this process may make ``folder`` read-only in a mount namespace."""
    if not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "--mount", "sh", "-c",
                        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1"', "sh",
                        str(folder)], capture_output=True)
    return r.returncode == 0


def _readonly_run(code, ro_dirs, env, cwd):
    """Run ``code`` where ``ro_dirs`` are truly read-only (even for root)."""
    if os.geteuid() != 0:
        for d in ro_dirs:
            for folder, dirs, files in os.walk(d):
                os.chmod(folder, 0o555)
        try:
            return _run(code, env=env, cwd=cwd)
        finally:
            for d in ro_dirs:
                for folder, dirs, files in os.walk(d):
                    os.chmod(folder, 0o755)
    if not _can_mount(ro_dirs[0]):
        pytest.skip("root without a mount namespace: read-only folders cannot be made")
    mounts = " && ".join(f'mount --bind "{d}" "{d}" && mount -o remount,bind,ro "{d}" "{d}"'
                         for d in ro_dirs)
    return subprocess.run(["unshare", "--mount", "sh", "-c", mounts + ' && exec "$@"', "sh",
                           sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=cwd)


def _clean_env(tmp_path, root, home, tmp):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "MJKIT_", "XDG_"))}
    env.update(PYTHONPATH=str(root), HOME=str(home), TMPDIR=str(tmp),
               PYTHONDONTWRITEBYTECODE="1")
    return env


def test_import_where_package_and_home_are_read_only(tmp_path):
    """`import mjkit` with a read-only package folder and $HOME: numba caches in a
    private temporary folder, with one warning (RuntimeError before)."""
    root = _package_copy(tmp_path)
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    r = _readonly_run(_IMPORT, [root, home], _clean_env(tmp_path, root, home, tmp), cwd=home)
    assert r.returncode == 0, r.stderr[-3000:]
    fallback = tmp / f"mjkit-numba-{os.getuid()}"
    assert f"FALLBACK {fallback}" in r.stdout
    assert "cached in" in r.stdout and str(fallback) in r.stdout
    assert any(fallback.rglob("*.nbi"))                  # the kernel was cached there
    assert not (fallback.stat().st_mode & 0o077)         # private: numba's cache holds pickles


def test_import_where_nothing_is_writable(tmp_path):
    """Not even a temporary folder: the kernels compile without a disk cache."""
    root = _package_copy(tmp_path)
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    ro = [root, home, tmp] + [Path(d) for d in ("/tmp", "/var/tmp", "/usr/tmp")
                              if os.path.isdir(d) and not os.path.islink(d)]
    if os.geteuid() != 0:
        pytest.skip("needs read-only system temporary folders (root with a mount namespace)")
    r = _readonly_run(_IMPORT, ro, _clean_env(tmp_path, root, home, tmp), cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "FALLBACK off" in r.stdout and "without a disk cache" in r.stdout


def test_import_where_pycache_cannot_be_made(tmp_path):
    """Without any privilege: `__pycache__` a file and $HOME a file make every numba
    locator fail, as a read-only install does; the import still works."""
    root = _package_copy(tmp_path)
    for d in {p.parent for p in (root / "mjkit").rglob("*.py")}:
        (d / "__pycache__").write_text("not a folder")
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = _run(_IMPORT, env=_clean_env(tmp_path, root, home, tmp), cwd=str(tmp))
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"FALLBACK {tmp / f'mjkit-numba-{os.getuid()}'}" in r.stdout


def test_import_keeps_a_working_numba_cache(tmp_path):
    """Where numba can cache, nothing changes and nothing is said."""
    r = _run(_IMPORT, env=_env())
    assert r.returncode == 0, r.stderr[-3000:]
    assert "FALLBACK None" in r.stdout and "WARN []" in r.stdout


def test_fallback_never_uses_a_temporary_folder_others_can_write(tmp_path, monkeypatch):
    from mjkit import _numba_cache as NC

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(NC.tempfile, "tempdir", None)
    shared = tmp_path / f"mjkit-numba-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)
    got = NC._private_tmp()
    assert got is not None and Path(got) != shared and Path(got).parent == tmp_path
    assert not (Path(got).stat().st_mode & 0o077)
