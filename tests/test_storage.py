"""mjkit.storage (atomic writes, seals, manifests, locks) and mjkit.validate."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mjkit import HandError, storage, validate


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_write_gives_ordinary_permissions_and_leaves_no_temporary(tmp_path):
    p = storage.atomic_write_text(tmp_path / "a.json", "{}")
    um = os.umask(0)
    os.umask(um)
    assert _mode(p) == 0o644 & ~um
    assert os.listdir(tmp_path) == ["a.json"]


def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("old")

    def boom(fh):
        fh.write(b"half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        storage.atomic_write(p, boom)
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_temporary_names_are_recognised(tmp_path):
    seen = []

    def spy(fh):
        seen.extend(os.listdir(tmp_path))

    storage.atomic_write(tmp_path / "x.csv", spy)
    assert len(seen) == 1 and storage.is_temporary(seen[0])
    assert not storage.is_temporary("x.csv")


def test_seal_detects_every_single_bit_flip(tmp_path):
    obj = {"hands": 300, "dealer_wins": 7, "hist": [0, 1, 2, 3]}
    ctx = {"seed": 1, "level": 2}
    p = storage.write_sealed_json(tmp_path / "c.json", obj, context=ctx)
    assert storage.read_sealed_json(p, context=ctx) == obj
    raw = p.read_bytes()
    accepted = 0
    for bit in range(len(raw) * 8):
        b = bytearray(raw)
        b[bit // 8] ^= 1 << (bit % 8)
        p.write_bytes(bytes(b))
        try:
            got = storage.read_sealed_json(p, context=ctx)
        except storage.DamagedFile:
            continue
        # only a flip that changes nothing canonical could pass (none does here)
        accepted += got != obj
    assert accepted == 0


def test_seal_refuses_an_edited_document_and_another_context(tmp_path):
    p = storage.write_sealed_json(tmp_path / "c.json", {"wins": 3}, context="study A")
    doc = json.loads(p.read_text())
    doc["data"]["wins"] += 7                     # valid JSON, wrong content
    p.write_text(json.dumps(doc))
    with pytest.raises(storage.DamagedFile, match="checksum"):
        storage.read_sealed_json(p, context="study A")
    storage.write_sealed_json(p, {"wins": 3}, context="study A")
    with pytest.raises(storage.DamagedFile):
        storage.read_sealed_json(p, context="study B")
    p.write_bytes(b"\xff\xfe not json")
    with pytest.raises(storage.DamagedFile, match="not JSON"):
        storage.read_sealed_json(p)


def test_manifest_verifies_size_and_digest(tmp_path):
    a = tmp_path / "a.npy"
    np.save(a, np.arange(1000, dtype=np.uint32))
    m = storage.write_manifest(tmp_path / "manifest.json", [a], meta={"version": 3})
    doc = storage.verify_manifest(m)
    assert doc["meta"] == {"version": 3}
    raw = bytearray(a.read_bytes())
    raw[-1] ^= 4
    a.write_bytes(bytes(raw))
    assert storage.verify_manifest(m) is None
    a.unlink()
    assert storage.verify_manifest(m) is None
    m.write_text("{")
    assert storage.read_manifest(m) is None


def test_manifest_refuses_names_outside_its_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "x"
    f.write_bytes(b"1")
    with pytest.raises(ValueError):
        storage.write_manifest(tmp_path / "manifest.json", [f])
    doc = storage.seal({"files": {"../x": {"size": 1, "digest": "0"}}, "meta": None})
    (tmp_path / "manifest.json").write_bytes(storage.canonical_json(doc))
    assert storage.read_manifest(tmp_path / "manifest.json") is None


def test_file_lock_makes_the_second_process_wait(tmp_path):
    lock = tmp_path / "build.lock"
    log = tmp_path / "log"
    code = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(os.getcwd())!r})
        from mjkit.storage import file_lock
        with file_lock({str(lock)!r}) as held:
            assert held
            with open({str(log)!r}, "a") as f:
                f.write("start %s\\n" % sys.argv[1]); f.flush()
                time.sleep(0.6)
                f.write("end %s\\n" % sys.argv[1])
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], env=env) for i in range(2)]
    assert [p.wait(60) for p in procs] == [0, 0]
    lines = log.read_text().split()
    # start/end pairs never interleave
    assert lines[0::4] == ["start", "start"] and lines[2::4] == ["end", "end"]
    assert lines[1] == lines[3] and lines[5] == lines[7]


def test_file_lock_where_locking_is_impossible(tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    with storage.file_lock(target / "x.lock") as held:     # parent is a file
        assert held is False


@pytest.mark.parametrize("value, message", [
    (True, "whole number"), (1.5, "whole number"), ("3", "whole number"), (None, "whole number"),
    (-1, "in 0..1000"), (2**31, "in 0..1000"), (2**32 + 2, "in 0..1000"),
])
def test_level_refuses_what_is_not_a_level(value, message):
    with pytest.raises(HandError, match=message) as e:
        validate.level(value)
    assert "lianla" in str(e.value)


def test_whole_accepts_numpy_integers_and_names_the_argument():
    assert validate.whole("hands", np.int64(5), 1) == 5
    assert type(validate.whole("hands", np.uint8(5), 1)) is int
    with pytest.raises(HandError, match="chunk must be a whole number >= 1"):
        validate.whole("chunk", 0, 1)
    with pytest.raises(HandError, match="x must be a whole number <= 3"):
        validate.whole("x", 4, None, 3)
    assert validate.seed(2**64 + 5) == (2**64 + 5) % (1 << 63)
