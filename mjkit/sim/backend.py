"""How a study's hands are played: in chunks, locally or on a Dask cluster.

A study is cut into *chunks*: chunk ``c`` of level ``L`` is hands
``c * chunk .. (c + 1) * chunk - 1`` of (``seed``, ``L``), and every hand
depends only on (seed, level, hand number) (:func:`~mjkit.sim.play_hands`).
:func:`chunk_stats` plays one chunk and reduces it to integer sufficient
statistics (counts, sums, histograms, per-combination counts);
:func:`merge_stats` adds them up.  Integer sums do not depend on the order
they are added in, so the numbers of a study are the same whatever the
chunk size, the thread count, the backend (:func:`run_local`,
:func:`run_dask`) or how often it was interrupted and resumed
(:class:`Checkpoint`).
"""

from __future__ import annotations

import functools
import os
import re
import uuid
import warnings
from pathlib import Path

import numpy as np

from ..errors import HandError
from .. import storage
from ..storage import DamagedFile, is_temporary, read_sealed_json, write_sealed_json
from .engine import play_hands

__all__ = ["Checkpoint", "chunk_stats", "engine_fingerprint", "merge_stats", "run_dask",
           "run_local"]

#: Statistics that are plain integer counts or sums (the rest are lists).
SCALARS = ("hands", "dealer_wins", "other_wins", "drawn_out", "self_drawn_wins",
           "draws_wins", "own_draws_wins", "draws_dealer", "counted_dealer", "counted_other")
#: Statistics that are lists of integers added element by element.
LISTS = ("hist_dealer", "hist_other", "combo_wins", "combo_dealer")

# Study-layer files: they do not change how hands are played.
_NOT_ENGINE = ("study.py", "results.py", "backend.py", "combos.py", "policy_table.py",
               "__init__.py")


@functools.lru_cache(maxsize=None)
def engine_fingerprint():
    """A hash of the sources that play hands (game kernels, engine, policies).

    Stored with checkpoints and results: a checkpoint made by other sources
    is not resumed, and Dask workers must run the same sources as the client.
    """
    return storage.source_fingerprint(["_kernels", "sim"], exclude=_NOT_ENGINE)[:16]


def chunk_bounds(hands, chunk, c):
    """``(first, n)``: the hands of chunk ``c``."""
    first = c * chunk
    return first, min(chunk, hands - first)


def n_chunks(hands, chunk):
    return -(-hands // chunk)


def reduce_records(rec, combos, lianla, streak_points):
    """Sufficient statistics of a :class:`~mjkit.sim.HandRecords`.

    Parameters
    ----------
    rec : HandRecords
    combos : list of numpy.ndarray
        Catalogue rows of each fan combination.
    lianla : int
        Catalogue row of 连拉.
    streak_points : int
        Points of one 连拉 level (subtracted from the dealer's counted fans
        for the histogram of what the hand itself is worth).

    Returns
    -------
    dict
        Integers (:data:`SCALARS`) and lists of integers (:data:`LISTS`):
        ``hist_dealer[f]`` / ``hist_other[f]`` count the dealer's / the
        others' wins whose counted fans without the 连拉 line are ``f``;
        ``combo_wins[j]`` / ``combo_dealer[j]`` count the wins / dealer wins
        carrying every fan of combination ``j``.
    """
    o = rec.outcomes.astype(np.int64)
    w = o[:, 0]
    wins, dealer, other = w >= 0, w == 0, w > 0
    fans = rec.fan_counts
    hand_fans = o[:, 4] - fans[:, lianla].astype(np.int64) * int(streak_points)
    present = fans > 0
    combo_wins, combo_dealer = [], []
    for ids in combos:
        has = present[:, ids].all(axis=1)
        combo_wins.append(int((has & wins).sum()))
        combo_dealer.append(int((has & dealer).sum()))
    hist_d = np.bincount(hand_fans[dealer]) if dealer.any() else np.zeros(0, np.int64)
    hist_o = np.bincount(hand_fans[other]) if other.any() else np.zeros(0, np.int64)
    return {
        "hands": int(len(o)),
        "dealer_wins": int(dealer.sum()),
        "other_wins": int(other.sum()),
        "drawn_out": int((w < 0).sum()),
        "self_drawn_wins": int((wins & (o[:, 1] == 1)).sum()),
        "draws_wins": int(o[wins, 2].sum()),
        "own_draws_wins": int(o[wins, 3].sum()),
        "draws_dealer": int(o[dealer, 2].sum()),
        "counted_dealer": int(o[dealer, 4].sum()),
        "counted_other": int(o[other, 4].sum()),
        "hist_dealer": [int(x) for x in hist_d],
        "hist_other": [int(x) for x in hist_o],
        "combo_wins": combo_wins,
        "combo_dealer": combo_dealer,
    }


def empty_stats(n_combos):
    out = {k: 0 for k in SCALARS}
    out.update(hist_dealer=[], hist_other=[], combo_wins=[0] * n_combos,
               combo_dealer=[0] * n_combos)
    return out


def merge_stats(parts, n_combos=None):
    """Add up chunk statistics (integers: the order does not matter)."""
    parts = list(parts)
    if n_combos is None:
        n_combos = len(parts[0]["combo_wins"]) if parts else 0
    out = empty_stats(n_combos)
    for p in parts:
        for k in SCALARS:
            out[k] += int(p[k])
        for k in LISTS:
            a, b = out[k], p[k]
            if len(b) > len(a):
                a = a + [0] * (len(b) - len(a))
            out[k] = [x + (int(b[i]) if i < len(b) else 0) for i, x in enumerate(a)]
    return out


def chunk_stats(payload, level, c):
    """Play chunk ``c`` of ``level`` and reduce it (a pure function of its arguments).

    ``payload`` is what :func:`mjkit.sim.simulate` sends: ``rules`` (a name
    or a :class:`~mjkit.rules.RuleSet`), ``seed``, ``hands``, ``chunk``,
    ``options`` (keyword arguments of :func:`~mjkit.sim.play_hands`),
    ``combos`` (catalogue rows per combination), ``lianla`` and
    ``streak_points``.
    """
    first, n = chunk_bounds(payload["hands"], payload["chunk"], c)
    rec = play_hands(n, payload["rules"], level=level, seed=payload["seed"], first=first,
                     **payload["options"])
    return reduce_records(rec, payload["combos"], payload["lianla"], payload["streak_points"])


def _remote_chunk(payload, level, c):
    """The Dask task: the statistics and the worker's engine fingerprint."""
    return engine_fingerprint(), chunk_stats(payload, level, c)


class PolicySource:
    """A compiled user policy sent to Dask workers as its Python function.

    A compiled callback cannot be pickled; the worker compiles the function
    again (once per worker: the payload is scattered once) under the same
    name (``py_func`` and ``__name__`` are what the engine reads).
    """

    def __init__(self, fn, name):
        self.py_func = fn
        self.__name__ = name

    def __call__(self, view):
        return self.py_func(view)

    def __repr__(self):
        return f"PolicySource({self.__name__!r})"


def _portable(name, value):
    """``value`` as something a Dask worker can unpickle (user policies as functions)."""
    import cloudpickle

    try:
        cloudpickle.dumps(value)
        return value
    except Exception:
        pass
    hook = getattr(value, "hook", None)
    fn = getattr(hook, "__wrapped__", None) or getattr(hook, "_pyfunc", None)
    if callable(fn):
        try:
            cloudpickle.dumps(fn)
            return PolicySource(fn, str(getattr(value, "name", getattr(fn, "__name__", "user"))))
        except Exception:
            pass
    raise HandError(f"engine option {name}={value!r} cannot be sent to Dask workers (it "
                    "does not pickle); run without client= or pass a plain function")


# --------------------------------------------------------------------------
# checkpoints
# --------------------------------------------------------------------------

def _differences(a, b):
    keys = sorted(set(a) | set(b))
    return [k for k in keys if a.get(k, "<missing>") != b.get(k, "<missing>")]


#: Most distinct fan totals a chunk's histogram may hold (the sums of every
#: fan of the catalogue stay far below it).
_MAX_HIST = 100_000


def _whole_list(x, limit):
    return isinstance(x, list) and len(x) <= limit and all(
        type(v) is int and v >= 0 for v in x)


def chunk_problem(stats, n, n_combos):
    """Why ``stats`` cannot be the statistics of a chunk of ``n`` hands, or None.

    The checkpoint's checksum already rejects any damage; this is defence in
    depth, so that whatever is accepted can never make :func:`merge_stats`
    fail or a table hold an impossible number: the exact keys, non-negative
    integers, list lengths, and the identities every chunk satisfies (wins
    and drawn-out hands add up to the hands, each histogram to its wins,
    nothing counted more often than the wins it is counted among).
    """
    if not isinstance(stats, dict):
        return "not a table of statistics"
    if set(stats) != set(SCALARS) | set(LISTS):
        return "not the statistics of a chunk (keys)"
    bad = [k for k in SCALARS if type(stats[k]) is not int or stats[k] < 0]
    if bad:
        return f"{bad[0]} is not a count"
    for k in ("combo_wins", "combo_dealer"):
        if not _whole_list(stats[k], n_combos) or len(stats[k]) != n_combos:
            return f"{k} is not {n_combos} counts"
    for k in ("hist_dealer", "hist_other"):
        if not _whole_list(stats[k], _MAX_HIST):
            return f"{k} is not a histogram"
    s = stats
    wins = s["dealer_wins"] + s["other_wins"]
    checks = (
        (s["hands"] == n, f"hands is {s['hands']}, the chunk has {n}"),
        (wins + s["drawn_out"] == n, "wins and drawn-out hands do not add up to the hands"),
        (sum(s["hist_dealer"]) == s["dealer_wins"], "hist_dealer does not add up"),
        (sum(s["hist_other"]) == s["other_wins"], "hist_other does not add up"),
        (s["self_drawn_wins"] <= wins, "more self-drawn wins than wins"),
        (s["draws_dealer"] <= s["draws_wins"], "more draws in the dealer's wins than in all"),
        (s["own_draws_wins"] <= s["draws_wins"], "more own draws than draws"),
        (s["draws_wins"] <= 144 * wins, "more draws than the walls hold"),
        (all(k <= wins for k in s["combo_wins"]), "a combination counted more than the wins"),
        (all(d <= min(k, s["dealer_wins"]) for d, k in zip(s["combo_dealer"], s["combo_wins"])),
         "a combination counted more among the dealer's wins than possible"),
    )
    for ok, why in checks:
        if not ok:
            return why
    return None


def _owned(name):
    """Whether ``name`` is a file a checkpoint writes (or one's temporary)."""
    return bool(_DATA_NAME.match(name) or _TEMP_NAME.match(name))


_DATA_NAME = re.compile(r"^(study\.json|L\d+_C\d+\.json)$")
# atomic_write's temporaries (".NAME.xxxx.tmp") and older mjkit's ("NAME.xxxx.tmp")
_TEMP_NAME = re.compile(r"^\.?(study\.json|L\d+_C\d+\.json)\..*\.tmp$")


class Checkpoint:
    """A folder of finished chunks: ``study.json`` (the parameters) and one
    ``L<level>_C<chunk>.json`` per chunk, each written atomically.

    Every file is sealed (:func:`mjkit.storage.write_sealed_json`): a chunk
    carries a checksum over its statistics, the study's parameters and the
    chunk's identity (level, chunk number, first hand, hands), so a chunk
    that was damaged, edited, renamed, or written for another study fails
    it and is played again (with a warning), whatever the damage.  A chunk
    that passes it is also checked for consistency (:func:`chunk_problem`).
    A damaged or missing ``study.json`` is written again (every chunk still
    proves which study it belongs to); an intact one that records other
    parameters is refused.  Temporaries left by a killed run are removed.

    Parameters
    ----------
    folder : str or os.PathLike
        Created if missing.  An existing checkpoint must have been made with
        the same parameters (else :class:`~mjkit.HandError`).
    params : dict
        The study's parameters (plain JSON values, as made by
        :func:`~mjkit.sim.study_params`: ``hands``, ``chunk`` and
        ``combinations`` give each chunk's size and length).
    """

    FORMAT = 2

    def __init__(self, folder, params):
        self.folder = Path(folder)
        self.params = params
        self._hands = int(params["hands"])
        self._chunk = int(params["chunk"])
        self._n_combos = len(params["combinations"])
        where = f"checkpoint {str(self.folder)!r}"
        if self.folder.exists() and not self.folder.is_dir():
            raise HandError(f"{where} is a file; give a folder (it is created if missing)",
                            code="io")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            names = os.listdir(self.folder)
        except OSError as exc:
            raise HandError(f"{where}: cannot create or read the folder ({exc.strerror or exc})",
                            code="io") from None
        head = self.folder / "study.json"
        if "study.json" not in names:
            strange = sorted(x for x in names if not _owned(x))
            if strange:
                raise HandError(
                    f"checkpoint folder {str(self.folder)!r} holds no study.json and other "
                    f"files ({', '.join(strange[:3])}): not a mjkit checkpoint; give a new "
                    "or empty folder")
            if any(_DATA_NAME.match(x) for x in names):
                warnings.warn(f"{where}: study.json is missing; written again (each chunk "
                              "is checked against this study's parameters)", stacklevel=3)
        else:
            saved = self._read_head(head)
            if saved is not None and saved != params:
                diff = _differences(saved, params)
                shown = "; ".join(f"{k}: {saved.get(k, '<missing>')!r} there, "
                                  f"{params.get(k, '<missing>')!r} now" for k in diff[:4])
                raise HandError(
                    f"{where} belongs to a study with other parameters ({shown}); use "
                    "another checkpoint folder, or delete this one to start again")
            if saved is not None:
                self._tidy(names)
                return
        self._tidy(names)
        try:
            write_sealed_json(head, {"format": self.FORMAT, "params": params})
        except OSError as exc:
            raise HandError(f"{where}: cannot write study.json ({exc.strerror or exc})",
                            code="io") from None

    def _read_head(self, head):
        """The parameters recorded in ``study.json``, or None (warned) if it is damaged."""
        try:
            doc = read_sealed_json(head)
            if not isinstance(doc, dict) or doc.get("format") != self.FORMAT \
                    or not isinstance(doc.get("params"), dict):
                raise DamagedFile("not a mjkit checkpoint header of this format")
        except (OSError, DamagedFile) as exc:
            warnings.warn(f"checkpoint file {head} is damaged ({exc}): written again for this "
                          "study (each chunk is checked against its parameters)", stacklevel=4)
            return None
        return doc["params"]

    def _tidy(self, names):
        """Remove the temporaries a killed run left (never anything else)."""
        for name in names:
            if _TEMP_NAME.match(name) or (is_temporary(name) and _owned(name)):
                try:
                    (self.folder / name).unlink()
                except OSError:
                    pass

    def _path(self, level, c):
        return self.folder / f"L{level}_C{c}.json"

    def _context(self, level, c):
        first, n = chunk_bounds(self._hands, self._chunk, c)
        return {"study": self.params, "level": int(level), "chunk": int(c), "first": first,
                "n": n}

    def load(self, level, c):
        """The statistics of a finished chunk, or None (to be played).

        A chunk file that fails its checksum or its consistency checks is
        reported (a warning naming it) and played again.
        """
        path = self._path(level, c)
        if not os.path.lexists(path):
            return None
        if path.is_dir() or not path.is_file():
            raise HandError(f"checkpoint {str(self.folder)!r}: {path.name} is not a file; "
                            "remove it")
        n = chunk_bounds(self._hands, self._chunk, c)[1]
        try:
            stats = read_sealed_json(path, context=self._context(level, c))
            why = chunk_problem(stats, n, self._n_combos)
        except (OSError, DamagedFile) as exc:
            why = str(exc)
        if why is not None:
            warnings.warn(f"checkpoint file {path} is damaged ({why}): playing that chunk "
                          "again", stacklevel=3)
            return None
        return stats

    def save(self, level, c, stats):
        """Write a finished chunk (sealed with the study's parameters and its identity)."""
        write_sealed_json(self._path(level, c), stats, context=self._context(level, c))


# --------------------------------------------------------------------------
# executors
# --------------------------------------------------------------------------

def run_local(payload, todo, done):
    """Play the chunks ``todo`` (``(level, chunk)`` pairs) one after another here.

    Each chunk runs on all of numba's threads (:func:`~mjkit.sim.play_hands`).
    ``done(level, chunk, stats)`` is called as each finishes.
    """
    for level, c in todo:
        done(level, c, chunk_stats(payload, level, c))


def run_dask(client, payload, todo, done):
    """Play the chunks ``todo`` as tasks of a ``dask.distributed.Client``.

    Results are taken as they finish (``done(level, chunk, stats)`` on the
    client, which writes the checkpoint); on an error the other tasks are
    cancelled and the error is raised.
    """
    try:
        from distributed import as_completed
    except ImportError:  # pragma: no cover - distributed is in the test extra
        raise HandError("client= needs Dask: pip install 'dask[distributed]'",
                        code="missing_dependency") from None
    if not todo:
        return
    mine = engine_fingerprint()
    tag = uuid.uuid4().hex[:8]
    payload = dict(payload, options={k: _portable(k, v) for k, v in payload["options"].items()})
    # sent once to every worker, which then reuses the same objects for all its tasks
    [shared] = client.scatter([payload], broadcast=True, hash=False)
    futures = {}
    for level, c in todo:
        fut = client.submit(_remote_chunk, shared, level, c, pure=False,
                            key=f"mjkit-sim-{tag}-L{level}-C{c}")
        futures[fut] = (level, c)
    try:
        for fut in as_completed(list(futures)):
            level, c = futures[fut]
            theirs, stats = fut.result()
            if theirs != mine:
                raise HandError(
                    f"a Dask worker plays hands with other mjkit sources (engine "
                    f"{theirs}, here {mine}): install the same mjkit on the workers")
            done(level, c, stats)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        client.cancel([shared])
