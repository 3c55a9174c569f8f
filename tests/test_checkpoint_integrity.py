"""Checkpoints and saved studies that cannot lie; a study's arguments checked before any work.

Issue 12 §3 (checkpoint chunks carry a checksum over their content, the
study's parameters and their identity: any damage means the chunk is
played again, with a warning; a damaged or missing ``study.json`` or a
stray temporary never makes the folder unusable) and the simulator's part
of §4 (``--out`` / ``--checkpoint`` checked and created first, levels
bounded, out-of-range integers refused with HandError, files 0644).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from mjkit import HandError, storage
from mjkit.cli import main
from mjkit.rules import get_rules
from mjkit.sim import (backend, default_study, load_results, play_hands, results, simulate,
                       streak_chain)
from mjkit.sim.study import study_params
from test_study import assert_same_study

LEVELS = [8]
HANDS = 200
CHUNK = 100
SEED = 7
CHUNK_FILE = "L8_C0.json"


def _study(folder=None, **kw):
    args = {"levels": LEVELS, "hands": HANDS, "seed": SEED, "chunk": CHUNK, "progress": False,
            "checkpoint": folder}
    args.update(kw)
    return simulate("dazhong32", **args)


def _quiet(fn, *args, **kw):
    """``fn(...)`` and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args, **kw)
    return value, [str(w.message) for w in caught]


@pytest.fixture(scope="module")
def clean():
    """The uninterrupted study (no checkpoint)."""
    return _study()


@pytest.fixture(scope="module")
def made(tmp_path_factory, clean):
    """A finished checkpoint folder of the same study (copy it before damaging it)."""
    folder = tmp_path_factory.mktemp("made") / "ck"
    table, said = _quiet(_study, folder)
    assert said == []
    assert_same_study(table, clean)
    assert sorted(os.listdir(folder)) == ["L8_C0.json", "L8_C1.json", "study.json"]
    return folder


def _copy(made, tmp_path, name="ck"):
    dest = tmp_path / name
    shutil.copytree(made, dest)
    return dest


def _flip(path, bit):
    data = bytearray(path.read_bytes())
    data[bit // 8] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


# --------------------------------------------------------------------------
# chunks
# --------------------------------------------------------------------------

def _bits(path, every_bit, sample=1000):
    """Every bit of the file with ``-m slow``, else a large seeded sample of them."""
    every = range(path.stat().st_size * 8)
    if every_bit:
        return list(every)
    return sorted(random.Random(3).sample(every, sample))


def test_single_bit_flips_of_a_chunk_are_all_refused(made, tmp_path, slow_selected):
    """Each bit flip of the chunk file fails its check: never believed, never a crash."""
    folder = _copy(made, tmp_path)
    params = study_params("dazhong32", LEVELS, HANDS, seed=SEED, chunk=CHUNK)[0]
    store = backend.Checkpoint(folder, params)
    path = folder / CHUNK_FILE
    original = path.read_bytes()
    intact = store.load(8, 0)
    assert intact is not None and intact["hands"] == CHUNK
    assert len(original) * 8 > 4000
    bits = _bits(path, slow_selected)
    for bit in bits:
        _flip(path, bit)
        got, said = _quiet(store.load, 8, 0)
        path.write_bytes(original)
        assert got is None, f"bit {bit} accepted"
        assert len(said) == 1 and CHUNK_FILE in said[0] and "damaged" in said[0]
    assert store.load(8, 0) == intact


def _flipped_run(made, tmp_path, bit, clean):
    folder = _copy(made, tmp_path, f"ck{bit}")
    _flip(folder / CHUNK_FILE, bit)
    table, said = _quiet(_study, folder)
    assert_same_study(table, clean)
    assert table.info["chunks_played"] == 1 and table.info["chunks_resumed"] == 1
    assert len(said) == 1 and CHUNK_FILE in said[0] and "playing that chunk again" in said[0]
    return folder


def test_sampled_bit_flips_give_the_uninterrupted_numbers(made, tmp_path, clean):
    size = (made / CHUNK_FILE).stat().st_size
    bits = random.Random(12).sample(range(size * 8), 12)
    for bit in bits:
        folder = _flipped_run(made, tmp_path, bit, clean)
    # the replayed chunk was written again: the next run plays nothing and warns of nothing
    again, said = _quiet(_study, folder)
    assert said == [] and again.info["chunks_played"] == 0
    assert_same_study(again, clean)


@pytest.mark.slow
def test_every_single_bit_flip_gives_the_uninterrupted_numbers(made, tmp_path, clean, request):
    size = (made / CHUNK_FILE).stat().st_size
    for bit in range(size * 8):
        folder = _flipped_run(made, tmp_path, bit, clean)
        shutil.rmtree(folder)


def _chunk_stats(doc):
    """The statistics inside a chunk document (this format or the one before)."""
    return doc["data"] if "data" in doc else doc["stats"]


def test_an_edited_but_valid_chunk_is_replayed(made, tmp_path, clean):
    folder = _copy(made, tmp_path)
    path = folder / CHUNK_FILE
    doc = json.loads(path.read_text(encoding="utf-8"))
    _chunk_stats(doc)["dealer_wins"] += 7
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    table, said = _quiet(_study, folder)
    assert_same_study(table, clean)
    assert len(said) == 1 and CHUNK_FILE in said[0]


def test_a_resealed_but_impossible_chunk_is_replayed(made, tmp_path, clean):
    """Defence in depth: a correctly sealed chunk must still be a possible chunk."""
    folder = _copy(made, tmp_path)
    params = json.loads((folder / "study.json").read_text())["data"]["params"]
    store = backend.Checkpoint(folder, params)
    stats = store.load(8, 0)
    for key, change in (("dealer_wins", 7), ("hist_dealer", None), ("combo_wins", None),
                        ("hands", 1)):
        bad = json.loads(json.dumps(stats))
        if change is None:
            bad[key] = bad[key][:-1]
        else:
            bad[key] += change
        store.save(8, 0, bad)
        got, said = _quiet(store.load, 8, 0)
        assert got is None and len(said) == 1 and "damaged" in said[0], key
    for missing in ("dealer_wins", "combo_dealer"):
        bad = dict(stats)
        del bad[missing]
        store.save(8, 0, bad)
        assert _quiet(store.load, 8, 0)[0] is None
    assert backend.chunk_problem(stats, CHUNK, len(params["combinations"])) is None
    table, _ = _quiet(_study, folder)
    assert_same_study(table, clean)


def test_a_chunk_of_another_study_is_replayed(made, tmp_path, clean):
    """Same level, chunk and size but another seed: its checksum names its study."""
    other = tmp_path / "other"
    _study(other, seed=SEED + 1)
    folder = _copy(made, tmp_path)
    shutil.copy(other / CHUNK_FILE, folder / CHUNK_FILE)
    table, said = _quiet(_study, folder)
    assert_same_study(table, clean)
    assert len(said) == 1 and CHUNK_FILE in said[0]
    # and a chunk under another chunk's name
    shutil.copy(folder / "L8_C0.json", folder / "L8_C1.json")
    table, said = _quiet(_study, folder)
    assert_same_study(table, clean)
    assert len(said) == 1 and "L8_C1.json" in said[0]


# --------------------------------------------------------------------------
# study.json and temporaries
# --------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "text", "missing", "folder"])
def test_a_damaged_or_missing_study_json_leaves_the_folder_usable(made, tmp_path, clean, damage):
    folder = _copy(made, tmp_path)
    head = folder / "study.json"
    if damage == "flip":
        _flip(head, 8 * 40 + 3)
    elif damage == "truncate":
        head.write_bytes(head.read_bytes()[: head.stat().st_size // 2])
    elif damage == "empty":
        head.write_bytes(b"")
    elif damage == "text":
        head.write_text("not json at all")
    elif damage == "missing":
        head.unlink()
    else:
        head.unlink()
        head.mkdir()
    if damage == "folder":
        with pytest.warns(UserWarning, match="study.json"), \
                pytest.raises(HandError, match="study.json"):
            _study(folder)
        return
    table, said = _quiet(_study, folder)
    assert_same_study(table, clean)
    # the chunks prove which study they belong to: both resumed, not played
    assert table.info["chunks_resumed"] == 2 and table.info["chunks_played"] == 0
    assert len(said) == 1 and "study.json" in said[0]
    again, said = _quiet(_study, folder)          # rewritten: no more warnings
    assert said == [] and again.info["chunks_played"] == 0
    assert storage.read_sealed_json(head)["params"] == table.params


def test_a_study_json_of_other_parameters_is_refused_with_how_to_recover(made, tmp_path):
    folder = _copy(made, tmp_path)
    with pytest.raises(HandError, match="other parameters.*seed.*another checkpoint folder.*"
                                        "delete"):
        _study(folder, seed=SEED + 3)
    assert sorted(os.listdir(folder)) == ["L8_C0.json", "L8_C1.json", "study.json"]


def test_stray_temporaries_of_a_killed_start_leave_the_folder_usable(tmp_path, clean, made):
    folder = tmp_path / "killed"
    folder.mkdir()
    # a start killed while writing study.json (this mjkit's and the previous one's names)
    (folder / ".study.json.k2j3.tmp").write_text('{"format":')
    (folder / "study.json.abcd.tmp").write_text("")
    table, said = _quiet(_study, folder)
    assert said == []
    assert_same_study(table, clean)
    assert sorted(os.listdir(folder)) == ["L8_C0.json", "L8_C1.json", "study.json"]
    # one killed while writing a chunk
    done = _copy(made, tmp_path)
    (done / ".L8_C1.json.x1y2.tmp").write_text('{"da')
    table, said = _quiet(_study, done)
    assert said == [] and table.info["chunks_played"] == 0
    assert sorted(os.listdir(done)) == ["L8_C0.json", "L8_C1.json", "study.json"]
    # chunks without their study.json (it was lost): recovered, each chunk checked
    (done / "study.json").unlink()
    table, said = _quiet(_study, done)
    assert table.info["chunks_resumed"] == 2 and len(said) == 1
    assert_same_study(table, clean)


def test_a_folder_of_other_files_is_still_not_taken(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    (other / ".study.json.k2j3.tmp").write_text("")
    with pytest.raises(HandError, match="not a mjkit checkpoint"):
        _study(other)
    assert sorted(os.listdir(other)) == [".study.json.k2j3.tmp", "notes.txt"]


# --------------------------------------------------------------------------
# file modes, saved results
# --------------------------------------------------------------------------

def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_every_file_a_study_writes_is_0644(tmp_path, clean):
    old = os.umask(0o022)
    try:
        folder = tmp_path / "ck"
        table = _study(folder)
        saved = table.save("small", tmp_path / "out")
    finally:
        os.umask(old)
    files = list(folder.iterdir()) + list(saved.parent.iterdir())
    assert {p.name for p in files} >= {"study.json", CHUNK_FILE, "small.json", "small.csv",
                                       "small.combinations.csv", "small.fan_totals.csv"}
    assert {p.name: _mode(p) for p in files} == {p.name: 0o644 for p in files}


def test_saved_study_is_sealed_and_verified(clean, tmp_path):
    path = clean.save("small", tmp_path)
    loaded, said = _quiet(load_results, path)
    assert said == []
    assert_same_study(loaded, clean)
    doc = storage.read_sealed_json(path)
    assert set(doc["files"]) == {"small.csv", "small.combinations.csv", "small.fan_totals.csv"}
    text = path.read_text(encoding="utf-8")
    # an edited count (valid JSON) is not believed
    k = clean.stats[8]["dealer_wins"]
    edited = text.replace(f'"dealer_wins":{k},', f'"dealer_wins":{k + 7},', 1)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    with pytest.raises(HandError, match="small.json.*damaged"):
        load_results(path)
    # a flipped bit, a truncated file
    for damaged in (text[:100] + chr(ord(text[100]) ^ 1) + text[101:], text[: len(text) // 2]):
        path.write_text(damaged, encoding="utf-8")
        with pytest.raises(HandError, match="small.json"):
            load_results(path)
    # the format before checksums cannot be verified: refused, saying what to do
    old = storage.unseal(json.loads(text))
    old["format"] = 1
    path.write_text(json.dumps(old), encoding="utf-8")
    with pytest.raises(HandError, match="older mjkit.*play the study again"):
        load_results(path)
    # an edited CSV is named; the numbers come from the intact JSON
    path.write_text(text, encoding="utf-8")
    csv = tmp_path / "small.csv"
    csv.write_text(csv.read_text().replace("0.", "1.", 1))
    loaded, said = _quiet(load_results, path)
    assert len(said) == 1 and "small.csv" in said[0]
    assert_same_study(loaded, clean)


def test_the_shipped_default_study_is_sealed_and_intact(monkeypatch):
    monkeypatch.delenv("MJKIT_RESULTS_DIR", raising=False)
    path = results.results_dir() / "default.json"
    doc = storage.read_sealed_json(path)
    assert doc["format"] == results.FORMAT and len(doc["files"]) == 4
    table, said = _quiet(load_results, "default")
    assert said == []
    assert table.params["hands"] == results.DEFAULT_STUDY["hands"]
    csv = pd.read_csv(path.with_name("default.csv"), index_col="level")
    np.testing.assert_array_equal(csv["dealer_wins"], table["dealer_wins"])


def test_default_study_replays_a_damaged_saved_study_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("MJKIT_RESULTS_DIR", str(tmp_path))
    monkeypatch.setitem(results.DEFAULT_STUDY, "levels", [8])
    monkeypatch.setitem(results.DEFAULT_STUDY, "hands", 100)
    made = default_study(progress=False, checkpoint=False)
    path = tmp_path / "default.json"
    text = path.read_text(encoding="utf-8")
    k = made.stats[8]["dealer_wins"]
    path.write_text(text.replace(f'"dealer_wins":{k},', f'"dealer_wins":{k - 1},', 1),
                    encoding="utf-8")
    with pytest.warns(UserWarning, match="default.json.*damaged.*playing the default study"):
        again = default_study(progress=False, checkpoint=False)
    assert_same_study(again, made)
    assert _quiet(load_results, "default")[1] == []        # saved again, intact


# --------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------

@pytest.fixture
def no_play(monkeypatch):
    """Any hand played fails the test: the checks must come first."""
    def refuse(*a, **k):
        raise AssertionError("a chunk was played before the arguments were checked")

    monkeypatch.setattr(backend, "chunk_stats", refuse)


def _cli(capsys, *argv):
    start = time.monotonic()
    code = main(["simulate", "--no-progress", *argv])
    out, err = capsys.readouterr()
    return code, err, time.monotonic() - start


def _out_cases(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "x.csv").mkdir()
    (tmp_path / "r.json").mkdir()
    return {
        "parent is a file": tmp_path / "file.txt" / "r.csv",
        "a folder named x.csv": tmp_path / "x.csv",
        "its JSON is a folder": tmp_path / "r.csv",
        "cannot be created": "/proc/mjkit-no-such-folder/r.csv",
    }


def test_simulate_out_is_checked_before_playing(capsys, tmp_path, no_play):
    for why, out in _out_cases(tmp_path).items():
        ck = tmp_path / f"ck-{why.replace(' ', '-')}"
        code, err, seconds = _cli(capsys, "--levels", "8", "--hands", "300", "--chunk", "100",
                                  "--checkpoint", str(ck), "--out", str(out))
        assert code == 2, (why, err)
        assert err.startswith("error: --out") and "Traceback" not in err, (why, err)
        assert not ck.exists(), why                 # nothing started, no chunk written
        assert seconds < 30, why
    code, err, _ = _cli(capsys, "--levels", "8", "--hands", "300",
                        "--plot", str(tmp_path / "file.txt" / "p.png"))
    assert code == 2 and err.startswith("error: --plot")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_simulate_out_in_an_unwritable_folder(capsys, tmp_path, no_play):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, err, _ = _cli(capsys, "--levels", "8", "--hands", "300",
                            "--out", str(locked / "r.csv"))
    finally:
        locked.chmod(0o700)
    assert code == 2 and err.startswith("error: --out") and "cannot write" in err


def test_simulate_out_folder_is_created_first(capsys, tmp_path):
    out = tmp_path / "new" / "deeper" / "r.csv"
    code, err, _ = _cli(capsys, "--levels", "8", "--hands", "100", "--out", str(out),
                        "--no-plot")
    assert code == 0, err
    assert out.exists() and load_results(out).params["hands"] == 100
    assert not [p for p in out.parent.iterdir() if storage.is_temporary(p.name)]


def test_simulate_checkpoint_is_checked_before_playing(capsys, tmp_path, no_play):
    (tmp_path / "file.txt").write_text("x")
    for ck in (tmp_path / "file.txt", tmp_path / "file.txt" / "ck",
               "/proc/mjkit-no-such-folder/ck"):
        code, err, _ = _cli(capsys, "--levels", "8", "--hands", "300", "--checkpoint", str(ck))
        assert code == 2 and err.startswith("error: --checkpoint"), (ck, err)


def test_huge_level_ranges_are_refused_at_once(capsys, no_play):
    code, err, seconds = _cli(capsys, "--levels", "0-1000000000")
    assert code == 2 and err.startswith("error: --levels") and seconds < 10
    start = time.monotonic()
    with pytest.raises(HandError, match="levels"):
        simulate("dazhong32", levels=range(10**9), hands=10, progress=False)
    assert time.monotonic() - start < 10


def test_levels_above_the_first_free_level_are_refused(capsys, no_play):
    for levels in ([9], [0, 8, 9], [128], [2**70]):
        with pytest.raises(HandError, match=r"levels must be in 0\.\.8 for dazhong32.*every "
                                            r"higher level plays exactly like it.*连8拉8以上"):
            simulate("dazhong32", levels=levels, hands=10, progress=False)
    code, err, _ = _cli(capsys, "--levels", "0-9")
    assert code == 2 and "every higher level plays exactly like it" in err
    with pytest.raises(HandError, match="连拉"):      # no 连拉 at all: said so
        simulate("gb", levels=[0, 1], hands=10, progress=False)


def test_streak_fan_counts_do_not_wrap_at_high_levels():
    """The 连拉 line's count is the level: 200 was stored as -56 (int8)."""
    rec = play_hands(60, "dazhong32", level=200, seed=3)
    dealer = rec.outcomes[:, 0] == 0
    assert dealer.any()
    lianla = rec.fan_keys.index("LIANLA")
    assert (rec.fan_counts[dealer, lianla] == 200).all()
    rs = get_rules("dazhong32")
    stats = backend.reduce_records(rec, [], lianla, rs.streak_points)
    assert sum(stats["hist_dealer"]) == stats["dealer_wins"]
    assert len(stats["hist_dealer"]) < 200            # what the hands themselves are worth
    with pytest.raises(HandError, match="level"):
        play_hands(5, "dazhong32", level=1001)


@pytest.mark.parametrize("kwargs,msg", [
    ({"hands": 2**31}, "hands must be"),
    ({"chunk": 10**7}, "chunk must be"),
    ({"seed": True}, "seed must be"),
    ({"seed": 1.5}, "seed must be"),
    ({"levels": [True]}, "levels must be"),
    ({"levels": "08"}, "levels must be"),
    ({"levels": []}, "at least one level"),
    ({"exhaust": True}, "exhaust"),
    ({"slack": 10**30}, "slack"),
    ({"break_from": 2**63}, "break_from"),
    ({"solitaire": "yes"}, "solitaire must be"),
])
def test_simulate_refuses_out_of_range_arguments(kwargs, msg, no_play):
    args = {"levels": [8], "hands": 10, "progress": False, **kwargs}
    with pytest.raises(HandError, match=msg):
        simulate("dazhong32", **args)


@pytest.mark.parametrize("kwargs,msg", [
    ({"n": 2**40}, "n must be"),
    ({"n": 5, "first": 2**63}, "first must be"),
    ({"n": 5, "level": 2**63}, "level"),
    ({"n": 5, "minimum": 2**63}, "minimum must be"),
    ({"n": 5, "seed": 2.0}, "seed must be"),
    ({"n": 5, "exhaust": np.int64(500)}, "exhaust"),
    ({"n": 5, "deal_only": 2}, "deal_only must be"),
    ({"n": 5, "solitaire": "no"}, "solitaire must be"),
    ({"n": 5, "discard_wins": "no"}, "discard_wins must be"),
    ({"n": 5, "rules": "dazhong", "discard_wins": 2}, "discard_wins must be"),
])
def test_play_hands_refuses_out_of_range_arguments(kwargs, msg):
    with pytest.raises(HandError, match=msg):
        play_hands(**kwargs)


@pytest.mark.parametrize("argv,msg", [
    (["--hands", "99999999999"], "--hands must be"),
    (["--seed", "-1"], "--seed must be"),
    (["--chunk", "0"], "--chunk must be"),
    (["--exhaust", "500"], "--exhaust must be"),
    (["--levels", "0-1001"], "--levels"),
    (["--levels", "+1"], "--levels"),
    (["--timeout", "-1"], "--timeout"),
])
def test_simulate_command_refuses_out_of_range_options(capsys, argv, msg, no_play):
    code, err, seconds = _cli(capsys, "--levels", "8", *argv)
    assert code == 2 and err.startswith("error: ") and msg in err, err
    assert seconds < 30


def test_streak_chain_refuses_out_of_range_arguments(clean):
    """``top=10**9`` built a billion-element set before saying the levels were missing."""
    start = time.monotonic()
    for kwargs, msg in (({"top": 10**9}, "top must be"), ({"top": -1}, "top must be"),
                        ({"top": True}, "top must be"), ({"level": 1.5}, "confidence")):
        with pytest.raises(HandError, match=msg):
            streak_chain(pd.DataFrame(clean), **kwargs)
    assert time.monotonic() - start < 5
