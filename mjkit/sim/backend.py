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
import hashlib
import json
import os
import tempfile
import uuid
import warnings
from pathlib import Path

import numpy as np

from ..errors import HandError
from .engine import play_hands

__all__ = ["Checkpoint", "chunk_stats", "engine_fingerprint", "merge_stats", "run_dask",
           "run_local"]

#: Statistics that are plain integer counts or sums (the rest are lists).
SCALARS = ("hands", "dealer_wins", "other_wins", "drawn_out", "self_drawn_wins",
           "draws_wins", "own_draws_wins", "draws_dealer", "counted_dealer", "counted_other")
#: Statistics that are lists of integers added element by element.
LISTS = ("hist_dealer", "hist_other", "combo_wins", "combo_dealer")

# Study-layer files: they do not change how hands are played.
_NOT_ENGINE = ("study.py", "results.py", "backend.py", "combos.py", "__init__.py")


@functools.lru_cache(maxsize=None)
def engine_fingerprint():
    """A hash of the sources that play hands (game kernels, engine, policies).

    Stored with checkpoints and results: a checkpoint made by other sources
    is not resumed, and Dask workers must run the same sources as the client.
    """
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    files = sorted((here.parent / "_kernels").glob("*.py")) + sorted(
        p for p in here.glob("*.py") if p.name not in _NOT_ENGINE)
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


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

def _write_json(path, data):
    """Write JSON atomically: a temporary file in the same folder, then os.replace."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _differences(a, b):
    keys = sorted(set(a) | set(b))
    return [k for k in keys if a.get(k, "<missing>") != b.get(k, "<missing>")]


class Checkpoint:
    """A folder of finished chunks: ``study.json`` (the parameters) and one
    ``L<level>_C<chunk>.json`` per chunk, each written atomically.

    Parameters
    ----------
    folder : str or os.PathLike
        Created if missing.  An existing checkpoint must have been made with
        the same parameters (else :class:`~mjkit.HandError`).
    params : dict
        The study's parameters (plain JSON values).
    """

    FORMAT = 1

    def __init__(self, folder, params):
        self.folder = Path(folder)
        self.params = params
        if self.folder.exists() and not self.folder.is_dir():
            raise HandError(f"checkpoint {str(self.folder)!r} is a file; give a folder "
                            "(it is created if missing)")
        head = self.folder / "study.json"
        if head.exists():
            try:
                saved = json.loads(head.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise HandError(f"checkpoint {str(self.folder)!r}: cannot read study.json "
                                f"({exc})") from None
            old = saved.get("params", {})
            if old != params:
                diff = _differences(old, params)
                shown = "; ".join(f"{k}: {old.get(k, '<missing>')!r} there, "
                                  f"{params.get(k, '<missing>')!r} now" for k in diff[:4])
                raise HandError(
                    f"checkpoint {str(self.folder)!r} belongs to a study with other "
                    f"parameters ({shown}); use another checkpoint folder or delete it")
        else:
            if self.folder.is_dir() and any(self.folder.iterdir()):
                raise HandError(f"checkpoint folder {str(self.folder)!r} is not empty and "
                                "holds no study.json: not a mjkit checkpoint")
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_json(head, {"format": self.FORMAT, "params": params})

    def _path(self, level, c):
        return self.folder / f"L{level}_C{c}.json"

    def load(self, level, c, n):
        """The statistics of a finished chunk, or None."""
        path = self._path(level, c)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            stats = data["stats"]
            ok = data["level"] == level and data["chunk"] == c and stats["hands"] == n
        except (OSError, ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            warnings.warn(f"checkpoint file {path} is damaged: playing that chunk again",
                          stacklevel=3)
            return None
        return stats

    def save(self, level, c, stats):
        _write_json(self._path(level, c), {"level": level, "chunk": c, "stats": stats})


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
        raise HandError("client= needs Dask: pip install 'dask[distributed]'") from None
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
