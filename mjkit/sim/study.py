"""Studies over 连拉 levels: win odds per level and the streak chain they imply.

:func:`simulate` plays the hands (:mod:`mjkit.sim.backend`: chunks, checkpoints,
Dask) and returns a :class:`~mjkit.sim.results.StudyTable`.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from .. import validate
from ..errors import HandError
from .engine import play_hands

__all__ = ["MAX_CHUNK", "MAX_HANDS", "MAX_REACH_DRAWS", "reach_study", "saturation_level",
           "simulate", "streak_chain", "study_params", "wilson"]

#: Most hands per level of a study.
MAX_HANDS = validate.INT32_MAX
#: Most hands per chunk: one chunk's records stay near 250 MB.
MAX_CHUNK = 1_000_000

_Z95 = 1.959963984540054


def wilson(k, n, z=_Z95):
    """Wilson score interval of a binomial proportion ``k / n`` (95% by default)."""
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # exact ends: no successes cannot have a positive lower bound (rounding)
    lo = np.where(k == 0, 0.0, np.clip(mid - half, 0.0, 1.0))
    hi = np.where(k == n, 1.0, np.clip(mid + half, 0.0, 1.0))
    return (float(lo), float(hi)) if lo.ndim == 0 else (lo, hi)


def saturation_level(rules):
    """The first 连拉 level whose bar is 0 (8 in ``dazhong32``; 0 without 连拉).

    Every level above it plays exactly like it: the dealer's hand needs no
    fan at all (seed 000 §一.5: "连8拉8以上，任何牌型都可胡牌").
    """
    from ..rules import get_rules

    rs = get_rules(rules)
    if not rs.streak_points:
        return 0
    for n in range(validate.MAX_LEVEL):
        if rs.threshold(n) == 0:
            return n
    return validate.MAX_LEVEL


def _levels(levels, rs):
    """Sorted distinct levels in 0..the rule set's saturation level."""
    top = saturation_level(rs)
    out = validate.levels(levels, "levels")
    for x in out:
        if x > top:
            rs.threshold(min(x, validate.MAX_LEVEL))    # no 连拉 at all: say so
            raise HandError(
                f"levels must be in 0..{top} for {rs.name}: at 连{top}拉{top} the dealer's "
                f"bar is already 0 and every higher level plays exactly like it (seed 000 "
                f"§一.5: 连8拉8以上，任何牌型都可胡牌); got level {x}")
    return out


#: Arguments of play_hands that a study sets itself.
_RESERVED = ("n", "rules", "level", "seed", "first")


def _jsonable(x):
    """A plain JSON value standing for an engine option (its name if it has one)."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    for attr in ("name", "__name__"):     # a UserPolicy's name, a function's name
        name = getattr(x, attr, None)
        if isinstance(name, str):
            return name
    return str(x)


def _rules_fingerprint(rs):
    import hashlib

    h = hashlib.sha256()
    h.update(np.ascontiguousarray(rs.points, np.int64).tobytes())
    h.update(repr((rs.minimum, rs.excludes, rs.excludes_own, rs.self_drawn_only,
                   rs.after_minimum)).encode())
    return h.hexdigest()[:16]


def study_params(rules="dazhong32", levels=range(9), hands=2000, *, seed=0, solitaire=False,
                 dealer_policy="value", others_policy="break", exhaust=120,
                 combinations=None, chunk=5000, **engine_options):
    """Validate a study's arguments: ``(params, payload, combos)``.

    ``params`` are plain JSON values (saved with checkpoints and results),
    ``payload`` what each chunk task needs (:func:`mjkit.sim.backend.chunk_stats`),
    ``combos`` the :func:`~mjkit.sim.study_combinations` table.
    """
    from dataclasses import replace

    from ..rules import get_rules
    from .backend import engine_fingerprint
    from .combos import combination_ids, study_combinations
    rs = get_rules(rules)
    levels = _levels(levels, rs)
    hands = validate.whole("hands", hands, 1, MAX_HANDS)
    chunk = validate.whole("chunk", chunk, 1, MAX_CHUNK)
    seed = validate.seed(seed)
    clash = [k for k in engine_options if k in _RESERVED]
    if clash:
        raise HandError(f"simulate sets {', '.join(clash)} itself (per level and chunk); "
                        "do not pass it as an engine option")
    if "wild" not in engine_options and rs.table_wild is not None:
        # the table the rule set's players sit at (dazhong32: a turned 财神); wild=None
        # plays without
        engine_options["wild"] = rs.table_wild
    if "exchange" not in engine_options and rs.table_exchange:
        engine_options["exchange"] = True      # 起手换牌 (seed 001 A.c); exchange=False: none
    options = {"solitaire": solitaire, "dealer_policy": dealer_policy,
               "others_policy": others_policy, "exhaust": exhaust, **engine_options}
    for level in levels:                # the engine checks every option (no hand played)
        play_hands(0, rs, level=level, seed=seed, **options)
    combos = study_combinations(rs, combinations)
    params = {
        "rules": rs.name,
        "rules_fingerprint": _rules_fingerprint(rs),
        "levels": levels,
        "hands": hands,
        "seed": seed,
        "engine": {k: _jsonable(v) for k, v in sorted(options.items())},
        "combinations": list(combos["fans"]),
        "bars": {str(level): int(rs.threshold(level)) for level in levels},
        "chunk": chunk,
        "engine_source": engine_fingerprint(),
    }
    params = json.loads(json.dumps(params))
    try:
        builtin = get_rules(rs.name) is rs
    except HandError:
        builtin = False
    payload = {
        # a registered rule set travels by name; another one without its cached tables
        "rules": rs.name if builtin else replace(rs, _cache={}),
        "seed": seed, "hands": hands, "chunk": chunk, "options": options,
        "combos": combination_ids(combos, rs), "lianla": rs.fan_index("LIANLA"),
        "streak_points": int(rs.streak_points),
    }
    return params, payload, combos


def simulate(rules="dazhong32", levels=range(9), hands=2000, *, seed=0, solitaire=False,
             dealer_policy="value", others_policy="break", exhaust=120,
             combinations=None, chunk=5000, checkpoint=None, client=None, progress=None,
             **engine_options):
    """Win odds, fan totals and fan combinations of the wins at each 连N拉N level.

    Every level plays hands ``0 .. hands - 1`` of (``seed``, level) in chunks
    of ``chunk`` hands; each chunk is reduced to integer counts and sums, so
    the numbers are the same whatever the thread count, the chunk size, the
    backend (here on all cores, or on a Dask cluster) or how often the run
    was interrupted and resumed from its checkpoint.

    Parameters
    ----------
    rules : str or RuleSet
    levels : iterable of int
        连拉 levels to play (default 0..8).
    hands : int
        Hands per level.
    seed : int
        Same seed, same numbers.
    solitaire : bool
        Only the dealer plays.
    dealer_policy, others_policy
        See :data:`mjkit.sim.POLICIES`.
    exhaust : int
        Tiles taken from the wall before the hand is drawn out.
    combinations : iterable, optional
        Fan combinations to count (:func:`~mjkit.sim.study_combinations`;
        default: seed 000's and every single fan).
    chunk : int
        Hands per task (and per checkpoint file).
    checkpoint : str or os.PathLike, optional
        A folder where each finished chunk is saved.  Running the same study
        again with the same folder skips the chunks already there (a killed
        run loses only the chunks being played); a folder of a study with
        other parameters raises :class:`~mjkit.HandError`.
    client : dask.distributed.Client, optional
        Play the chunks as tasks on this Dask cluster (same numbers as
        locally).  Without it the chunks are played here on all of numba's
        threads.
    progress : bool, optional
        A progress bar over the hands (tqdm.auto; default: yes).
    **engine_options
        Any other keyword argument of :func:`~mjkit.sim.play_hands`
        (``round_wind``, ``discard_wins``, ``claims``, ``wild``, ...), passed to
        every chunk and saved in ``params["engine"]`` (by name or as text when
        the value is not a plain JSON value).  ``wild`` defaults to the rule
        set's table (``RuleSet.table_wild``: ``"turned"`` for ``dazhong32``,
        seed 000's players count 财神); ``wild=None`` plays without.
        ``exchange`` (起手换牌) defaults to the rule set's
        ``RuleSet.table_exchange``: on for ``dazhong`` and ``dazhong32`` (seed
        001 A.c), off for ``gb``; ``exchange=False`` plays without.

    Returns
    -------
    StudyTable
        A pandas DataFrame, one row per level: ``hands``, ``bar``,
        ``dealer_wins``, ``p_dealer`` with its 95% Wilson interval
        (``p_dealer_lo``, ``p_dealer_hi``), ``other_wins``, ``p_other`` (and
        interval), ``drawn_out``, ``p_drawn_out`` (and interval),
        ``self_drawn_wins``, ``mean_draws_to_win`` (tiles drawn after the
        deal), ``mean_own_draws_to_win`` (the winner's own draws: the turn
        of the win), ``mean_draws_dealer``, ``mean_counted_dealer``,
        ``mean_counted_other``; and the attributes ``.combinations``,
        ``.fan_totals``, ``.streak``, ``.params``, ``.info``, ``.save()``,
        ``.plot()``, ``.summary()`` (see :class:`~mjkit.sim.StudyTable`).

    Examples
    --------
    >>> df = simulate(levels=range(9), hands=20_000, seed=1)      # doctest: +SKIP
    >>> df[["p_dealer", "p_dealer_lo", "p_dealer_hi"]]            # doctest: +SKIP
    >>> df.streak.loc[8, "p_reach"], df.streak.attrs["expected_length"]  # doctest: +SKIP
    >>> df.combinations.query("level == 2 and source != 'fan table'")  # doctest: +SKIP
    """
    import time

    from tqdm.auto import tqdm

    from .. import __version__
    from . import backend as B
    from .results import StudyTable

    params, payload, combos = study_params(
        rules, levels, hands, seed=seed, solitaire=solitaire, dealer_policy=dealer_policy,
        others_policy=others_policy, exhaust=exhaust, combinations=combinations, chunk=chunk,
        **engine_options)
    levels, hands, chunk = params["levels"], params["hands"], params["chunk"]
    store = B.Checkpoint(checkpoint, params) if checkpoint is not None else None
    n_chunks = B.n_chunks(hands, chunk)
    parts = {level: {} for level in levels}
    todo = []
    for level in levels:
        for c in range(n_chunks):
            stats = store.load(level, c) if store else None
            if stats is None:
                todo.append((level, c))
            else:
                parts[level][c] = stats
    resumed = sum(len(p) for p in parts.values())
    start = time.time()
    if todo and client is None:
        _warm_up(payload, todo[0][0], progress)
    with tqdm(total=len(levels) * hands, unit="hand", unit_scale=True,
              desc=f"{params['rules']} levels {levels[0]}-{levels[-1]}",
              initial=sum(s["hands"] for p in parts.values() for s in p.values()),
              disable=progress is False) as bar:
        def done(level, c, stats):
            if store is not None:
                store.save(level, c, stats)
            parts[level][c] = stats
            bar.update(stats["hands"])

        if client is None:
            B.run_local(payload, todo, done)
        else:
            B.run_dask(client, payload, todo, done)
    n_combos = len(combos)
    stats = {level: B.merge_stats([parts[level][c] for c in sorted(parts[level])], n_combos)
             for level in levels}
    info = {"version": __version__, "engine": params["engine_source"],
            "created": _now(), "seconds": round(time.time() - start, 3),
            "chunks_played": len(todo), "chunks_resumed": resumed,
            "backend": "local" if client is None else "dask"}
    return StudyTable.from_stats(stats, params, combos, info)


def _warm_up(payload, level, progress):
    """Play the first hand of ``level`` before the progress bar starts: a first run
    compiles the game kernel for these players here (a minute or more, with
    :mod:`mjkit.first_run`'s note), so that the bar's estimate times the hands only.
    Its chunk plays the hand again (the same hand: it depends on its number only)."""
    from .. import first_run
    from .engine import play_hands

    with first_run.quiet(progress is False):
        play_hands(1, payload["rules"], level=level, seed=payload["seed"], first=0,
                   **payload["options"])


#: Most own draws a reach study gives the dealer: the wall (144 tiles, 53 dealt, up to 8
#: flowers replaced) always lasts that long.
MAX_REACH_DRAWS = 20


def reach_study(rules="dazhong32", levels=range(9), hands=20_000, *, draws=15, seed=0,
                policy="strong", **options):
    """One-player reach: how often a player alone on its own draws reaches a legal hand at
    each level's bar, and with which fan combinations.

    The dealer plays ``policy`` at seed 000's table (the rule set's 财神 and 起手换牌),
    with no claims; the other seats only take tiles off the wall (they draw and throw).
    The hand is drawn out after the dealer's ``draws`` own draws (after the 14 dealt
    tiles).  A :func:`simulate` study: ``p_dealer`` is the reach probability,
    ``.combinations`` the combinations of the wins (``share``: of the wins), per level.
    Its streak table means nothing here (no opponent can stop the dealer).

    Parameters
    ----------
    rules : str or RuleSet
    levels : iterable of int
    hands : int
    draws : int
        The dealer's own draws, 1..:data:`MAX_REACH_DRAWS` (a four-player hand at
        ``exhaust=120`` gives it 14.8 on average).
    seed : int
    policy : str
        The dealer's policy (:data:`mjkit.sim.POLICIES`).
    **options
        Passed to :func:`simulate` (``chunk``, ``checkpoint``, ``client``, ``progress``,
        ``wild``, ``exchange`` ...).

    Returns
    -------
    StudyTable
    """
    draws = validate.whole("draws", draws, 1, MAX_REACH_DRAWS)
    clash = [k for k in ("solitaire", "claims", "exhaust", "dealer_draws", "dealer_policy",
                         "others_policy") if k in options]
    if clash:
        raise HandError(f"reach_study sets {', '.join(clash)} itself")
    return simulate(rules, levels, hands, seed=seed, solitaire=True, dealer_policy=policy,
                    others_policy="efficiency", exhaust=144, claims=False,
                    dealer_draws=draws, **options)


def _now():
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def _chain(p, top):
    """Reach probabilities 0..top and the expected streak length for odds ``p[0..top]``."""
    reach = [1.0]
    for k in range(top):
        reach.append(reach[-1] * float(p[k]))
    pt = float(p[top])
    tail = reach[top] * pt / (1 - pt) if pt < 1 else math.inf
    return reach, sum(reach[1:]) + tail


def streak_chain(table, top=8, level=0.95):
    """The streak implied by per-level dealer win odds (a :func:`simulate` table).

    A dealer at 连k拉k who wins moves to 连k+1拉k+1; a win by another player
    or a drawn-out hand ends the streak (seed 003: after 荒牌 the next
    player deals).  Levels above ``top`` play like ``top`` (at 连8拉8 every
    hand already wins).

    Parameters
    ----------
    table : pandas.DataFrame
        Indexed by level, with ``p_dealer`` for the levels 0..top (and
        ``hands``, ``dealer_wins`` for the intervals).
    top : int
    level : float
        Confidence of the joint intervals.

    Returns
    -------
    pandas.DataFrame
        Per level N: ``p_reach`` (reaching 连N拉N from 连0, the product of the
        win odds below it) and ``p_continue`` (the odds at N); with
        ``hands`` and ``dealer_wins`` in the table also ``p_reach_lo`` and
        ``p_reach_hi``: Wilson intervals of the ``top + 1`` levels at
        confidence ``1 - (1 - level) / (top + 1)`` each (Bonferroni), so
        that all of them hold together with probability >= ``level``; the
        reach probabilities and the expected length grow with every level's
        odds, so their products are joint ``level`` intervals (conservative).
        ``.attrs`` holds ``expected_length`` (expected number of dealer wins
        in a row, from 连0) and, with the intervals, ``expected_length_lo``,
        ``expected_length_hi``.
    """
    top = validate.whole("top", top, 0, validate.MAX_LEVEL)
    if isinstance(level, bool) or not isinstance(level, (int, float, np.number)) \
            or not 0 < level < 1:
        raise HandError(f"level (the confidence) must be a number between 0 and 1, got {level!r}")
    p = table["p_dealer"]
    have = {int(x) for x in p.index}
    if not set(range(top + 1)) <= have:
        raise HandError(f"streak_chain needs the levels 0..{top} played")
    odds = [float(p.loc[k]) for k in range(top + 1)]
    reach, expected = _chain(odds, top)
    df = pd.DataFrame({"p_reach": reach, "p_continue": odds},
                      index=pd.RangeIndex(0, top + 1, name="level"))
    df.attrs["expected_length"] = expected
    if {"hands", "dealer_wins"} <= set(table.columns):
        from statistics import NormalDist

        z = NormalDist().inv_cdf(1 - (1 - level) / (2 * (top + 1)))
        k = np.array([table.loc[j, "dealer_wins"] for j in range(top + 1)], float)
        n = np.array([table.loc[j, "hands"] for j in range(top + 1)], float)
        lo, hi = wilson(k, n, z=z)
        reach_lo, exp_lo = _chain(lo, top)
        reach_hi, exp_hi = _chain(hi, top)
        df["p_reach_lo"] = reach_lo
        df["p_reach_hi"] = reach_hi
        df.attrs["expected_length_lo"] = exp_lo
        df.attrs["expected_length_hi"] = exp_hi
        df.attrs["confidence"] = level
    return df
