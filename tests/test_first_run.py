"""A first call that compiles kernels says so once; a cached run says nothing.

The notes come from numba's compile events (:mod:`mjkit.first_run`): the
subprocess tests give numba an empty cache folder and compile one small
kernel (a fraction of a second: the note's delay is set to 0 there), then
load it from that folder in a second process.  The value index's progress
bar is checked with stand-ins for its scorer: its steps move it by their
estimated cost, so its first estimate of the time left is not the count's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from mjkit import first_run
from mjkit import value_index as VI

NOTE = "mjkit: compiling"


def _python(code, cache, **env):
    full = dict(os.environ, NUMBA_CACHE_DIR=str(cache), **env)
    full.pop("MJKIT_QUIET", None)
    full.update(env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


_GAME_KERNEL = """
    import mjkit
    from mjkit import first_run
    first_run.DELAY = 0            # the kernel compiles in well under the usual second
    from mjkit._kernels.rng import stream_seed
    print(stream_seed(12345, 6, 7))
    print(stream_seed(12345, 6, 8))
"""


def test_a_cold_kernel_says_so_once_and_a_cached_one_not_at_all(tmp_path):
    first = _python(_GAME_KERNEL, tmp_path)
    assert first.stderr.count(NOTE) == 1, first.stderr
    assert "the game kernels (first run only" in first.stderr
    assert str(tmp_path) in first.stderr                  # where later runs find them
    again = _python(_GAME_KERNEL, tmp_path)
    assert again.stdout == first.stdout
    assert NOTE not in again.stderr, again.stderr


def test_quiet_environment_says_nothing(tmp_path):
    out = _python(_GAME_KERNEL, tmp_path, MJKIT_QUIET="1")
    assert NOTE not in out.stderr, out.stderr


_TINY = """
    import sys
    sys.path.insert(0, {folder!r})
    import mjkit
    from mjkit import first_run
    import tiny_kernels as T
    first_run.family_of = lambda module: "scoring" if module == "tiny_kernels" else None
    n = first_run.warm_up("scoring", [(T.twice, (3,)), (T.plus, (1.5, 2.5))])
    print(n, T.twice(3), T.plus(1.5, 2.5), len(T.twice.overloads), len(T.plus.overloads))
"""

_TINY_SOURCE = """
from numba import njit

@njit(cache=True)
def twice(x):
    return 2 * x

@njit(cache=True)
def plus(a, b):
    return a + b
"""


def test_warm_up_compiles_with_a_note_then_loads_silently(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "tiny_kernels.py").write_text(_TINY_SOURCE)
    code = _TINY.format(folder=str(src))
    first = _python(code, tmp_path / "cache")
    # two kernels compiled before any call, and the calls use exactly those
    assert first.stdout.split() == ["2", "6", "4.0", "1", "1"]
    assert first.stderr.count(NOTE) == 1 and "the scoring kernels" in first.stderr
    again = _python(code, tmp_path / "cache")
    assert again.stdout.split() == ["0", "6", "4.0", "1", "1"]
    assert NOTE not in again.stderr and "compiling" not in again.stderr, again.stderr


# ---------------------------------------------------------------- in this process


class _Fake:
    """Stands for a dispatcher in the listener's hooks."""

    class py_func:
        __module__ = "mjkit._kernels.evaluate"


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(first_run, "_announced", set())
    monkeypatch.delenv("MJKIT_QUIET", raising=False)
    return first_run


def test_only_a_compilation_longer_than_the_delay_speaks(fresh, monkeypatch, capsys):
    monkeypatch.setattr(fresh, "DELAY", 0.2)
    fresh._on_start(_Fake)
    fresh._on_end()                               # a short compilation: no note
    time.sleep(0.4)
    assert NOTE not in capsys.readouterr().err
    fresh._on_start(_Fake)
    fresh._on_start(_Fake)                        # a function it calls: not counted
    fresh._on_end()
    time.sleep(0.5)
    fresh._on_end()
    err = capsys.readouterr().err
    assert err.count(NOTE) == 1 and "the scoring kernels" in err
    fresh._on_start(_Fake)                        # once per process and family
    time.sleep(0.4)
    fresh._on_end()
    assert NOTE not in capsys.readouterr().err


def test_families_quiet_and_the_message(fresh, monkeypatch, capsys):
    monkeypatch.setattr(fresh, "DELAY", 0)
    assert fresh.family_of("mjkit._kernels.game") == "game"
    assert fresh.family_of("mjkit._kernels.complete") == "kernels"
    assert fresh.family_of("numba.typed.typeddict") is None
    with fresh.family("value index"):
        assert fresh.current_family("mjkit._kernels.complete") == "value index"
        with fresh.family("query"):
            assert fresh.current_family("mjkit._kernels.evaluate") == "query"
        assert fresh.current_family("numba.typed.typeddict") is None
    assert fresh.current_family("mjkit._kernels.evaluate") == "scoring"
    with fresh.quiet():
        fresh._on_start(_Fake)
        fresh._on_end()
    with fresh.quiet(False):
        pass
    monkeypatch.setenv("MJKIT_QUIET", "1")
    fresh._on_start(_Fake)
    fresh._on_end()
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("MJKIT_QUIET", "0")
    fresh._on_start(_Fake)
    fresh._on_end()
    assert capsys.readouterr().err.count(NOTE) == 1
    assert "every process compiles" in fresh.message("game", None)
    assert "/some/where" in fresh.message("game", "/some/where")


def test_a_real_compilation_in_this_process_speaks_once(fresh, monkeypatch, capsys):
    from numba import njit

    monkeypatch.setattr(fresh, "DELAY", 0)
    monkeypatch.setattr(fresh, "family_of", lambda module: "shanten" if module == __name__
                        else None)

    @njit
    def cube(x):
        return x * x * x

    assert fresh.will_compile(cube, fresh.signature(cube, (2,)))
    assert cube(2) == 8
    assert not fresh.will_compile(cube, fresh.signature(cube, (2,)))
    assert cube(1.5) == 3.375                    # a second signature: still one note
    err = capsys.readouterr().err
    assert err.count(NOTE) == 1 and "the shanten kernels" in err
    assert fresh.will_compile(cube, fresh.signature(cube, (np.zeros(2),))) is True


def test_threads_keep_their_own_family():
    seen = {}

    def other():
        seen["other"] = first_run.current_family("mjkit._kernels.evaluate")

    with first_run.family("value index"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        seen["here"] = first_run.current_family("mjkit._kernels.evaluate")
    assert seen == {"other": "scoring", "here": "value index"}


# ---------------------------------------------------------------- the value index's bar


def test_piece_costs():
    sizes = [50_000, 50_000, 50_000, 50_000, 20_000]
    # per representative 4, 4, 4, 1, 1: the dear steps weigh four times the cheap ones
    w = VI.piece_costs([0.4, 0.4, 0.4, 0.1, 0.04], sizes)
    assert w.dtype == np.int64 and w.sum() == sum(sizes)
    assert max(w[:3]) - min(w[:3]) <= 1 and abs(w[0] / w[3] - 4) < 1e-3
    assert abs(w[3] / w[4] - 2.5) < 1e-3          # the short last step: by its size
    # one sample slowed down (another process) does not weigh its step double
    spike = VI.piece_costs([0.1, 0.1, 0.9, 0.1, 0.1], [10] * 5)
    assert spike.tolist() == [10] * 5
    first = VI.piece_costs([0.9, 0.1, 0.1, 0.1, 0.1], [10] * 5)     # nor at an end
    assert first.tolist() == [10] * 5
    # a step is never free, whatever its sample read
    floor = VI.piece_costs([1.0, 1.0, 0.0, 0.0, 0.0, 1.0], [10] * 6)
    assert floor.min() > 0 and floor.sum() == 60
    # unreadable samples: the count
    for bad in ([], [0, 0, 0], [1.0, float("nan"), 1.0], [1.0, 2.0]):
        assert VI.piece_costs(bad, [5, 5, 5]).tolist() == [5, 5, 5]
    assert VI.piece_costs([], []).tolist() == []


class _Bar:
    """Records a tqdm bar's updates (total and each step)."""

    made = []

    def __init__(self, total=None, disable=False, **kw):
        self.total, self.n, self.steps, self.disable = total, 0, [], disable
        _Bar.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, k):
        self.n += k
        self.steps.append(k)

    def set_postfix_str(self, *a, **k):
        pass


def _fake_rows(fam, rs, numbers, key_cols):
    rows = np.zeros((len(numbers), 3), np.uint64)
    rows[:, 0] = np.asarray(numbers, np.uint64) % np.uint64(7)
    return rows


@pytest.mark.parametrize("reporting", [True, False])
def test_the_index_bar_moves_by_cost_not_count(monkeypatch, reporting):
    """The first steps are the dear ones: the bar moves by their cost, so its first
    estimate of the time left is the steps' (the count's read several times the real
    time when the first block held the compiling, and half again after it)."""
    n_reps = len(VI.representatives())
    pieces = [p for lo in range(0, n_reps, VI._BLOCK)
              for p in VI._pieces(lo, min(n_reps, lo + VI._BLOCK))]
    half = len(pieces) // 2
    # the first half of the steps five times as dear as the second, per representative
    per = np.where(np.arange(len(pieces)) < half, 5.0, 1.0)
    samples = [per[i] * (b - a) * 1e-6 for i, (a, b) in enumerate(pieces)]
    warmed = []
    monkeypatch.setattr(VI, "_warm_up", lambda *a: warmed.append(1))
    monkeypatch.setattr(VI, "_sample_costs", lambda fam, rs, kc, ps: samples[:len(ps)])
    monkeypatch.setattr(VI, "_rows", _fake_rows)
    if not reporting:                       # a scorer that reports no steps
        def block(fam, rs, lo, hi, key_cols):
            rows = _fake_rows(fam, rs, np.arange(lo, hi), key_cols)
            table, inv = VI.unique_rows(rows)
            return table, inv.astype(np.uint32)

        monkeypatch.setattr(VI, "_score_block", block)
    import tqdm.auto

    _Bar.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", _Bar)
    VI._build(VI.get_rules("dazhong32"), None, None)
    bar = [b for b in _Bar.made if b.total == n_reps][-1]
    assert warmed == [1] and bar.n == n_reps
    if reporting:
        assert len(bar.steps) == len(pieces)
        dear, cheap = bar.steps[1] / 50_000, bar.steps[-2] / 50_000
        assert abs(dear / cheap - 5) < 0.01
        # after the first step the share done is that step's cost, not its count
        first_share = bar.steps[0] / n_reps
        assert abs(first_share - samples[0] / sum(samples)) < 1e-4
    else:
        assert sum(bar.steps) == n_reps


def test_a_built_index_with_the_bar_off_skips_the_warm_up(monkeypatch):
    monkeypatch.setattr(VI, "_warm_up", lambda *a: pytest.fail("warmed up"))
    monkeypatch.setattr(VI, "_sample_costs", lambda *a: pytest.fail("sampled"))
    monkeypatch.setattr(VI, "_rows", _fake_rows)
    idx = VI.build_value_index("dazhong32", progress=False)
    assert len(idx.ids) == VI.families().n


@pytest.mark.slow
def test_a_cold_score_says_so_once(tmp_path):
    """The real path: ``mjkit.score`` with an empty numba cache (about a minute)."""
    code = """
        import mjkit
        print(mjkit.score("123456789m111pEE", rules="dazhong32", self_drawn=True).total)
    """
    first = _python(code, tmp_path)
    assert first.stderr.count(NOTE) == 1 and "the scoring kernels" in first.stderr
    again = _python(code, tmp_path)
    assert again.stdout == first.stdout and NOTE not in again.stderr
