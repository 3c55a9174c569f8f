"""Test-session set-up: compile the slowest kernels on the second core.

On a fresh clone (CI) most of the run is numba compiling kernels and the
value index being built, one after the other on one core.  When the
session includes the tests that need the game kernel or the value index,
a helper process (:data:`WARM_UP`) compiles and builds those at the start
while the other tests run; the tests that need them are moved to the end
of the run and wait for the helper.  Nothing is shared but numba's and
mjkit's disk caches, which both write atomically, and the tests would
compile and build for themselves if the helper failed: it only saves time.
Set ``MJKIT_NO_WARMUP=1`` to turn it off.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

#: Test modules that need the game kernel or the value index, or run in processes of their
#: own that should find every kernel compiled (notebooks, the browser app).
LATE = ("test_sim.py", "test_policy.py", "test_study.py", "test_solo.py",
        "test_checkpoint_integrity.py", "test_distance.py", "test_index_query.py", "test_targets.py",
        "test_winprob.py",
        "test_advise.py", "test_fast_mode.py", "test_cache_integrity.py",
        "test_cli.py", "test_readme.py", "test_widgets.py", "test_notebooks.py", "test_app_server.py",
        "test_browser.py", "test_classroom.py", "test_class_guard.py", "test_kernel_guard.py",
        "test_widgets_served.py", "test_slow_inputs.py", "test_visible_arg.py",
        "test_table_engine.py", "test_table_session.py", "test_table_record.py",
        "test_table_view.py", "test_review.py", "test_play_widget.py")

#: What the helper runs: the game kernel, without and with the value-aware
#: directions (each is its own compilation; dazhong32 and gb tables have the same
#: types, so one compilation serves both), the value index of dazhong32 and the
#: distance, targets, win-probability and advice kernels that read it, the fast mode's
#: rating kernel, the one-player games' policy kernel, and the table's game kernel and the
#: bots' decision kernel for the three sets of players the table tests seat (plain,
#: value-aware, strong).
WARM_UP = """
from mjkit.sim import play_hands
play_hands(2, "dazhong32", seed=0)
play_hands(2, "dazhong32", seed=0, dealer_policy="value", others_policy="break")
import mjkit
mjkit.distance_to("123m234m345m67m99s", 32, "dazhong32")
mjkit.targets("123m234m345m67m99s", 32, "dazhong32")
from mjkit.winprob import win_chances
win_chances("123m234m345m67m99sE", 2, "dazhong32", lianla=8, mode="exact")
win_chances("123m234m345m67m99s", 5, "dazhong32", lianla=4, mode="graph")
mjkit.advise("123m234m345m67m99sE", lianla=2, draws_left=2)
from mjkit.sim.solo import solo_games
solo_games("value", 2, bar=8, draws=2)
win_chances("123m234m345m67m99sE", 5, "dazhong32", mode="fast", wild="P")
solo_games("fast", 2, bar=8, draws=2)
from mjkit.table import Table
from mjkit.bot import Bot
for seats in (("you", "efficiency", "efficiency", "efficiency"), ("you", "value", "break", "break"),
              ("you", "strong", "strong_break", "strong_break")):
    t = Table("dazhong32", seed=0, seats=seats)
    Bot(seats[1]).decide(t.observe(0))
"""

_helper = {}


def _late(item):
    return os.path.basename(str(item.fspath)) in LATE


def _late_rank(item):
    return LATE.index(os.path.basename(str(item.fspath)))


#: Opt-in markers and the environment variable that also selects each.
OPT_IN = {"slow": "MJKIT_SLOW", "oracle_full": "MJKIT_ORACLE_FULL"}


def opt_in_selected(config, name):
    """Whether the opt-in marker ``name`` was asked for (``-m name`` or its variable)."""
    return name in (config.getoption("markexpr") or "") or os.environ.get(OPT_IN[name]) == "1"


@pytest.fixture
def slow_selected(request):
    """True when the long variants run (``-m slow`` or ``MJKIT_SLOW=1``)."""
    return opt_in_selected(request.config, "slow")


def _skip_opt_in(config, items):
    """Long tests run only when asked for: ``-m slow`` / ``-m oracle_full`` or the variable."""
    for name, var in OPT_IN.items():
        if opt_in_selected(config, name):
            continue
        skip = pytest.mark.skip(reason=f"long: run with -m {name} or {var}=1")
        for it in items:
            if it.get_closest_marker(name) is not None:
                it.add_marker(skip)


def pytest_collection_modifyitems(session, config, items):
    _skip_opt_in(config, items)
    late = [it for it in items if _late(it)]
    if not late or len(late) == len(items):
        return
    # in LATE's order (a stable sort keeps each module's own order): the browser app last,
    # when every kernel its server process loads has long been compiled
    items[:] = [it for it in items if not _late(it)] + sorted(late, key=_late_rank)
    if os.environ.get("MJKIT_NO_WARMUP") or hasattr(config, "workerinput"):
        return
    log = tempfile.NamedTemporaryFile(prefix="mjkit-warmup-", suffix=".log", delete=False)
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    _helper["log"] = log.name
    _helper["proc"] = subprocess.Popen([sys.executable, "-c", WARM_UP], stdout=log,
                                       stderr=subprocess.STDOUT, env=env)


def pytest_runtest_setup(item):
    proc = _helper.get("proc")
    if proc is not None and _late(item):
        try:
            code = proc.wait(timeout=1500)
        except subprocess.TimeoutExpired:        # never let a stuck helper hang the run
            proc.kill()
            code = proc.wait()
        _helper.pop("proc")
        if code != 0:
            with open(_helper["log"], encoding="utf-8", errors="replace") as f:
                tail = f.read()[-2000:]
            item.config.issue_config_time_warning(
                pytest.PytestWarning(f"warm-up helper failed ({code}); the tests compile for "
                                     f"themselves:\n{tail}"), stacklevel=2)


def pytest_unconfigure(config):
    proc = _helper.pop("proc", None)
    if proc is not None:          # the late tests were deselected or the run stopped early
        proc.kill()
        proc.wait()
