"""numba's own cache files: one that cannot be unpickled is a miss, never an error."""

import os
import pickle
import subprocess
import sys
from pathlib import Path

_CALL = ("import mjkit\n"
         "from mjkit._kernels.rng import stream_seed\n"
         "print(stream_seed(12345, 6, 7))\n")


def _run(cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _CALL], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def _rewrite(cache, suffix, payload):
    files = list(Path(cache).rglob(f"*{suffix}"))
    assert files, f"no {suffix} file in {cache}"
    for f in files:
        raw = f.read_bytes()
        if suffix == ".nbi":
            # numba's index: a pickled version string, then the pickled (stamp, overloads)
            version = pickle.loads(raw)
            raw = pickle.dumps(version) + payload
        else:
            raw = payload
        f.write_bytes(raw)


# a pickle naming a class that does not exist (an index written before a bundle moved)
_MOVED = b"cmjkit._kernels.bundles\nNoSuchBundle\n."


def test_an_index_naming_a_moved_class_is_a_miss(tmp_path):
    want = _run(tmp_path)
    _rewrite(tmp_path, ".nbi", _MOVED)
    assert _run(tmp_path) == want
    # numba rewrote the index: the next process loads it
    assert _run(tmp_path) == want


def test_damaged_index_and_data_files_are_misses(tmp_path):
    want = _run(tmp_path)
    _rewrite(tmp_path, ".nbi", b"\x80\x04garbage")
    assert _run(tmp_path) == want
    _rewrite(tmp_path, ".nbc", _MOVED)
    assert _run(tmp_path) == want
    _rewrite(tmp_path, ".nbc", b"")
    assert _run(tmp_path) == want
