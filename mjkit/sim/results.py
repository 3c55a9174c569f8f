"""The outcome of a study: per-level table, fan combinations, fan totals, streak; files.

:func:`~mjkit.sim.simulate` returns a :class:`StudyTable`: the per-level
table (a pandas DataFrame) that also carries the study's other tables
(``.combinations``, ``.fan_totals``, ``.streak``), its parameters and the
integer statistics everything is computed from.  :meth:`StudyTable.save`
writes it under ``data/results/`` (a JSON file with the parameters, the
package version and the statistics, plus CSV files of each table), and
:func:`load_results` reads it back to an equal table without playing a hand.
:func:`default_study` is the study the notebooks plot.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .. import storage, text_table
from ..errors import HandError
from ..locations import checkout_data, shipped_data
from .backend import chunk_problem

__all__ = ["DEFAULT_STUDY", "StudyTable", "check_folder", "check_writable", "default_study",
           "load_results", "results_dir", "save_paths"]

#: Format of the JSON file: 2 is sealed (a checksum over its content) and records the
#: digest and size of each CSV file written with it.
FORMAT = 2

#: Parameters of the study shipped in ``data/results/default.*`` (see :func:`default_study`).
DEFAULT_STUDY = {
    "rules": "dazhong32",
    "levels": list(range(9)),
    "hands": 25_000,
    "seed": 1,
    "dealer_policy": "strong",
    "others_policy": "strong_break",
    "wild": "turned",
    "exchange": True,
}

_LEVEL_COLUMNS = [
    "hands", "bar", "dealer_wins", "p_dealer", "p_dealer_lo", "p_dealer_hi",
    "other_wins", "p_other", "p_other_lo", "p_other_hi",
    "drawn_out", "p_drawn_out", "p_drawn_out_lo", "p_drawn_out_hi",
    "self_drawn_wins", "mean_draws_to_win", "mean_own_draws_to_win", "mean_draws_dealer",
    "mean_counted_dealer", "mean_counted_other",
]


def results_dir():
    """Where studies are saved and looked for by name.

    ``$MJKIT_RESULTS_DIR`` if set, else ``data/results`` of the source
    checkout mjkit runs from, else ``./mjkit-results``.  Saved results that
    ship inside the package (``mjkit.data/results``) are found by
    :func:`load_results` too.
    """
    env = os.environ.get("MJKIT_RESULTS_DIR")
    if env:
        return Path(env)
    data = checkout_data()
    if data is not None:
        return data / "results"
    return Path.cwd() / "mjkit-results"


def _ratio(k, n):
    return k / n if n else math.nan


def _wilson(k, n):
    from .study import wilson

    return wilson(k, n)


def level_table(stats, bars):
    """The per-level DataFrame from merged statistics ``{level: stats}``."""
    rows = []
    for level in sorted(stats):
        s = stats[level]
        n = s["hands"]
        kd, ko, kx = s["dealer_wins"], s["other_wins"], s["drawn_out"]
        wins = kd + ko
        row = {"level": level, "hands": n, "bar": bars[level]}
        for name, k in (("dealer", kd), ("other", ko), ("drawn_out", kx)):
            lo, hi = _wilson(k, n)
            count = "drawn_out" if name == "drawn_out" else f"{name}_wins"
            row[count] = k
            row[f"p_{name}"] = _ratio(k, n)
            row[f"p_{name}_lo"] = lo
            row[f"p_{name}_hi"] = hi
        row.update(
            self_drawn_wins=s["self_drawn_wins"],
            mean_draws_to_win=_ratio(s["draws_wins"], wins),
            mean_own_draws_to_win=_ratio(s["own_draws_wins"], wins),
            mean_draws_dealer=_ratio(s["draws_dealer"], kd),
            mean_counted_dealer=_ratio(s["counted_dealer"], kd),
            mean_counted_other=_ratio(s["counted_other"], ko),
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=["level", *_LEVEL_COLUMNS]).set_index("level")


def combination_table(stats, combos):
    """Tidy table: one row per (level, combination)."""
    parts = []
    for level in sorted(stats):
        s = stats[level]
        n = s["hands"]
        wins = s["dealer_wins"] + s["other_wins"]
        k = np.asarray(s["combo_wins"], np.int64)
        kd = np.asarray(s["combo_dealer"], np.int64)
        df = combos.copy()
        df.insert(0, "level", level)
        lo, hi = _wilson(k, n)
        wlo, whi = _wilson(k, wins)
        dlo, dhi = _wilson(kd, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            df = df.assign(hands=n, wins=wins, k=k,
                           p_hand=k / n if n else np.nan, p_hand_lo=lo, p_hand_hi=hi,
                           p_win=k / wins if wins else np.nan, p_win_lo=wlo, p_win_hi=whi,
                           k_dealer=kd, p_dealer_hand=kd / n if n else np.nan,
                           p_dealer_hand_lo=dlo, p_dealer_hand_hi=dhi)
        parts.append(df)
    if not parts:
        return pd.DataFrame()
    return pd.concat(parts, ignore_index=True)


def fan_total_table(stats):
    """Tidy table of the counted fans (without 连拉) of the wins, per level."""
    rows = []
    for level in sorted(stats):
        s = stats[level]
        hd, ho = s["hist_dealer"], s["hist_other"]
        kd = s["dealer_wins"]
        wins = kd + s["other_wins"]
        for f in range(max(len(hd), len(ho))):
            d = hd[f] if f < len(hd) else 0
            o = ho[f] if f < len(ho) else 0
            if d or o:
                rows.append({"level": level, "fans": f, "dealer": d, "other": o,
                             "wins": d + o, "p_win": (d + o) / wins,
                             "p_dealer_win": d / kd if kd else math.nan})
    return pd.DataFrame(rows, columns=["level", "fans", "dealer", "other", "wins", "p_win",
                                       "p_dealer_win"])


class StudyTable(pd.DataFrame):
    """Per-level results of :func:`~mjkit.sim.simulate`: a DataFrame with the rest attached.

    The frame has one row per 连拉 level (index ``level``): ``hands``,
    ``bar`` (fans the dealer's hand itself needs), ``dealer_wins``,
    ``p_dealer`` with its 95% Wilson interval (``p_dealer_lo``,
    ``p_dealer_hi``), the same for ``other_wins`` / ``p_other`` (another
    player wins) and ``drawn_out`` / ``p_drawn_out`` (荒牌),
    ``self_drawn_wins``, ``mean_draws_to_win`` (tiles drawn from the wall
    after the deal until the win, all players), ``mean_own_draws_to_win``
    (the winner's own draws: the turn of the win), ``mean_draws_dealer``,
    ``mean_counted_dealer`` and ``mean_counted_other`` (counted fans of the
    wins, the dealer's 连拉 line included).

    Anything computed from it (``df[...]``, ``df.loc[...]``, ``df.copy()``)
    is a plain DataFrame.

    Attributes
    ----------
    combinations : pandas.DataFrame
        One row per (level, fan combination): the combination's names and
        fans (:func:`~mjkit.sim.study_combinations`), ``hands``, ``wins``,
        ``k`` (wins carrying it), ``p_hand`` = k / hands and ``p_win`` = k /
        wins with 95% intervals (``_lo``, ``_hi``), ``k_dealer`` and
        ``p_dealer_hand`` (the dealer's wins carrying it, per hand).
    fan_totals : pandas.DataFrame
        One row per (level, fans) seen: ``fans`` = counted fans of a win
        without the 连拉 line (what the hand itself is worth; flowers and 无财神
        not included), ``dealer`` / ``other`` / ``wins`` = wins worth that,
        ``p_win`` (share of the level's wins), ``p_dealer_win`` (share of the
        dealer's wins).
    streak : pandas.DataFrame or None
        :func:`~mjkit.sim.streak_chain` of the table (when levels 0..8 were
        played): ``p_reach`` per level, ``.attrs["expected_length"]``.
    params : dict
        Every parameter of the study (plain JSON values).
    stats : dict
        ``{level: integer statistics}`` everything above is computed from.
    info : dict
        ``version`` (of mjkit), ``engine`` (fingerprint of the sources that
        played), ``created``.
    """

    _metadata = ["_study"]

    @property
    def _constructor(self):
        return pd.DataFrame

    @classmethod
    def from_stats(cls, stats, params, combos, info=None):
        """Build the table from ``{level: stats}``, the parameters and the combinations."""
        stats = {int(k): v for k, v in stats.items()}
        bars = {int(k): int(v) for k, v in params["bars"].items()}
        out = cls(level_table(stats, bars))
        out._study = {"stats": stats, "params": params, "combos": combos,
                      "info": dict(info or {}), "cache": {}}
        return out

    def _get(self, name, make):
        study = self._study
        if study is None:
            raise AttributeError(name)
        if name not in study["cache"]:
            study["cache"][name] = make(study)
        return study["cache"][name]

    @property
    def params(self):
        return self._study["params"]

    @property
    def stats(self):
        return self._study["stats"]

    @property
    def info(self):
        return self._study["info"]

    @property
    def combinations(self):
        return self._get("combinations",
                         lambda s: combination_table(s["stats"], s["combos"])).copy()

    @property
    def fan_totals(self):
        return self._get("fan_totals", lambda s: fan_total_table(s["stats"])).copy()

    @property
    def streak(self):
        def make(s):
            from .study import streak_chain

            try:
                return streak_chain(pd.DataFrame(self))
            except HandError:
                return None
        chain = self._get("streak", make)
        if chain is None:
            return None
        out = chain.copy()
        out.attrs = dict(chain.attrs)
        return out

    # ------------------------------------------------------------------ files

    def save(self, name_or_path, folder=None):
        """Write the study: ``<name>.json`` and CSV files of each table.

        Parameters
        ----------
        name_or_path : str or os.PathLike
            A name (saved in ``folder``, default :func:`results_dir`) or a
            path ending in ``.csv`` or ``.json``.

        Returns
        -------
        pathlib.Path
            The JSON file (parameters, version and statistics: what
            :func:`load_results` reads), written last and sealed with a
            checksum over its content; it records the digest of each CSV
            file, so a damaged or edited file is detected when read back.
            Next to it: ``<name>.csv`` (this table),
            ``<name>.combinations.csv``, ``<name>.fan_totals.csv`` and, with
            levels 0..8, ``<name>.streak.csv``.
        """
        base = _base_path(name_or_path, folder)
        s = self._study
        tables = [(pd.DataFrame(self), ".csv", True),
                  (self.combinations, ".combinations.csv", False),
                  (self.fan_totals, ".fan_totals.csv", False)]
        chain = self.streak
        if chain is not None:
            out = chain.copy()
            out["expected_length"] = chain.attrs["expected_length"]
            tables.append((out, ".streak.csv", True))
        path = base.with_name(base.name + ".json")
        files = {}
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            for df, suffix, index in tables:
                data = df.to_csv(index=index).encode("utf-8")
                name = base.name + suffix
                storage.atomic_write_bytes(base.with_name(name), data)
                files[name] = {"size": len(data), "digest": storage.digest_bytes(data)}
            # written last, sealed: it vouches for itself and for the CSV files beside it
            storage.write_sealed_json(path, {
                "format": FORMAT, "name": base.name, "info": s["info"], "params": s["params"],
                "combinations": _records(s["combos"]),
                # the seal's canonical JSON sorts keys: the columns' order is kept here
                "combination_columns": [str(c) for c in s["combos"].columns],
                "stats": {str(k): v for k, v in sorted(s["stats"].items())},
                "files": files,
            })
        except OSError as exc:
            raise HandError(f"cannot save the study as {str(path)!r}: "
                            f"{exc.strerror or exc}", code="io") from None
        return path

    # --------------------------------------------------------------- display

    def summary(self):
        """The table as text: P(dealer) with its interval, P(other), P(drawn out),
        mean turn of the win, and the streak when levels 0..8 were played."""
        p = self.params
        eng = p.get("engine", {})
        head = (f"{p['rules']}: {p['hands']:,} hands per level, seed {p['seed']}, "
                f"dealer {eng.get('dealer_policy', '?')}, others {eng.get('others_policy', '?')}"
                + (", solitaire" if eng.get("solitaire") else "")
                + (", no claims" if eng.get("claims") is False else "")
                + (f", wild {eng['wild']}" if eng.get("wild") else "")
                + (", 起手换牌" if eng.get("exchange") else "")
                + (f", {eng['dealer_draws']} dealer draws" if eng.get("dealer_draws") else ""))
        rows = []
        for level, r in self.iterrows():
            rows.append([f"连{level}拉{level}", f"{int(r.hands):,}", str(int(r.bar)),
                         f"{r.p_dealer:.4f} [{r.p_dealer_lo:.4f}, {r.p_dealer_hi:.4f}]",
                         f"{r.p_other:.4f}", f"{r.p_drawn_out:.4f}",
                         "-" if math.isnan(r.mean_own_draws_to_win)
                         else f"{r.mean_own_draws_to_win:.1f}"])
        lines = [head, *text_table.table(("level", "hands", "bar", "P(dealer) [95% CI]", "P(other)",
                                "P(drawn)", "mean turn"), rows, right=(1, 2, 4, 5, 6))]
        chain = self.streak
        if chain is not None:
            a = chain.attrs
            lines.append(f"streak from 连0: P(reach 连8拉8) = {chain.loc[8, 'p_reach']:.4g} "
                         f"[{chain.loc[8, 'p_reach_lo']:.3g}, {chain.loc[8, 'p_reach_hi']:.3g}], "
                         f"expected length {a['expected_length']:.4g} "
                         f"[{a['expected_length_lo']:.3g}, {a['expected_length_hi']:.3g}] "
                         "dealer wins (95% joint intervals)")
        return "\n".join(lines)

    def plot(self, path=None, fig=None):
        """Win odds per level (95% intervals) and the streak chain (or the fan totals).

        Parameters
        ----------
        path : str or os.PathLike, optional
            Save the figure there (PNG, SVG, PDF: by the suffix).  Without a
            path and without ``fig``, the figure is made with pyplot (shown
            inline in a notebook).
        fig : matplotlib.figure.Figure, optional
            Draw into this figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        if fig is None:
            if path is None:
                import matplotlib.pyplot as plt

                fig = plt.figure(figsize=(11, 4.2))
            else:
                from matplotlib.figure import Figure

                fig = Figure(figsize=(11, 4.2))
        _draw(fig, self)
        if path is not None:
            from matplotlib import rcParams

            # written whole or not at all (storage.atomic_write), in the format
            # matplotlib reads from the suffix, or its default which it appends
            target = Path(path)
            fmt = target.suffix[1:]
            if not fmt:
                fmt = rcParams["savefig.format"]
                target = target.with_name(target.name.rstrip(".") + "." + fmt)
            storage.atomic_write(target, lambda fh: fig.savefig(fh, format=fmt, dpi=120))
        return fig


def _draw(fig, table):
    # English labels only: matplotlib's default font has no Chinese characters.
    ax1, ax2 = fig.subplots(1, 2)
    lv = np.asarray(table.index, int)
    for col, label, colour in (("dealer", "dealer wins", "C0"), ("other", "another player wins",
                                                                 "C1"),
                               ("drawn_out", "drawn out", "C2")):
        p = table[f"p_{col}"].to_numpy(float)
        err = np.vstack([p - table[f"p_{col}_lo"].to_numpy(float),
                         table[f"p_{col}_hi"].to_numpy(float) - p])
        ax1.errorbar(lv, p, yerr=err, marker="o", capsize=3, label=label, color=colour)
    ax1.set_xlabel("dealer streak level N (lian N la N)")
    ax1.set_ylabel("probability per hand (95% CI)")
    ax1.set_xticks(lv)
    ax1.set_ylim(0, 1)
    ax1.legend(loc="best", fontsize=8)
    p = table.params
    eng = p.get("engine", {})
    ax1.set_title(f"{p['rules']}: {p['hands']:,} hands per level, seed {p['seed']}\n"
                  f"dealer {eng.get('dealer_policy', '?')}, others "
                  f"{eng.get('others_policy', '?')}", fontsize=9)
    chain = table.streak
    if chain is not None:
        x = np.asarray(chain.index, int)
        reach = chain["p_reach"].to_numpy(float)
        lo = chain["p_reach_lo"].to_numpy(float)
        hi = chain["p_reach_hi"].to_numpy(float)
        ok = hi > 0
        ax2.fill_between(x[ok], np.maximum(lo[ok], hi[ok].min() * 1e-3), hi[ok], color="C0",
                         alpha=0.2, label="95% joint interval")
        pos = reach > 0
        ax2.plot(x[pos], reach[pos], marker="o", color="C0", label="estimate")
        ax2.set_yscale("log")
        ax2.set_xticks(list(x))
        ax2.set_xlabel("dealer streak level N")
        ax2.set_ylabel("P(reaching level N from level 0)")
        ax2.legend(loc="best", fontsize=8)
        a = chain.attrs
        ax2.set_title(f"streak: expected length {a['expected_length']:.3g} "
                      f"[{a['expected_length_lo']:.3g}, {a['expected_length_hi']:.3g}] "
                      "dealer wins", fontsize=9)
    else:
        ft = table.fan_totals
        for level, g in ft.groupby("level"):
            ax2.plot(g["fans"], g["p_win"], marker=".", label=f"level {level}")
        ax2.set_xlabel("counted fans of the win (without the streak line)")
        ax2.set_ylabel("share of wins")
        if len(ft):
            ax2.legend(fontsize=8)
    fig.tight_layout()


def _records(df):
    return json.loads(df.to_json(orient="records", force_ascii=False))


def save_paths(name_or_path, folder=None):
    """Every file :meth:`StudyTable.save` may write for ``name_or_path``."""
    base = _base_path(name_or_path, folder)
    return [base.with_name(base.name + x) for x in
            (".csv", ".combinations.csv", ".fan_totals.csv", ".streak.csv", ".json")]


def check_writable(paths, what):
    """Make sure ``paths`` can be written, before any work: HandError naming ``what``.

    Each one's folder exists or is created, is a folder and takes a new file
    (one is created and removed); no path is an existing folder.
    """
    paths = [Path(p) for p in paths]
    for p in paths:
        if p.is_dir():
            raise HandError(f"{what}: {str(p)!r} is a folder; give a file name")
    for folder in dict.fromkeys(p.parent for p in paths):
        check_folder(folder, what)


def check_folder(folder, what):
    """Create ``folder`` if needed and make sure a file can be written there."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HandError(f"{what}: cannot create the folder {str(folder)!r} "
                        f"({exc.strerror or exc})", code="io") from None
    if not folder.is_dir():
        raise HandError(f"{what}: {str(folder)!r} is not a folder", code="io")
    try:
        storage.probe_write(folder)
    except OSError as exc:
        raise HandError(f"{what}: cannot write in {str(folder)!r} ({exc.strerror or exc})",
                        code="io") from None


def _base_path(name_or_path, folder=None):
    """``<folder>/<name>`` without suffix, for a name or a .csv / .json path."""
    text = os.fspath(name_or_path)
    if not str(text).strip():
        raise HandError("a saved study needs a name or a path, got an empty one")
    p = Path(text)
    if p.suffix in (".csv", ".json"):
        stem = p.name[: -len(p.suffix)]
        for extra in (".combinations", ".fan_totals", ".streak"):
            if stem.endswith(extra):
                stem = stem[: -len(extra)]
        return p.with_name(stem)
    if p.parent != Path("."):
        return p
    return Path(folder or results_dir()) / text


def load_results(name_or_path, folder=None):
    """Read a saved study back (no hand is played).

    Parameters
    ----------
    name_or_path : str or os.PathLike
        A name saved with :meth:`StudyTable.save` (looked for in ``folder``,
        default :func:`results_dir`, then in the results shipped with the
        package) or the path of its ``.json`` or ``.csv`` file.

    Returns
    -------
    StudyTable
    """
    base = _base_path(name_or_path, folder)
    path = base.with_name(base.name + ".json")
    if not path.exists() and folder is None and Path(os.fspath(name_or_path)).parent == Path("."):
        shipped = shipped_data("results")
        if shipped is not None and (shipped / path.name).exists():
            path = shipped / path.name
    if not path.exists():
        raise HandError(f"no saved study {os.fspath(name_or_path)!r} (looked for {path})",
                        code="not_found")
    data = _read_saved(path)
    combos = pd.DataFrame(data["combinations"], columns=data["combination_columns"])
    if "seed_level" in combos:
        combos["seed_level"] = combos["seed_level"].astype("Int64")
    if "seed_zh" in combos:
        combos["seed_zh"] = combos["seed_zh"].fillna("")
    return StudyTable.from_stats(data["stats"], data["params"], combos, data.get("info"))


def _read_saved(path):
    """The verified content of a saved study's JSON file, or HandError naming it.

    The file's seal must hold and its statistics must be consistent; each CSV
    file it lists is checked against its recorded digest (a mismatch is a
    warning: the tables returned are computed from the verified JSON, not
    read from the CSV files).
    """
    where = f"saved study {str(path)!r}"
    try:
        data = storage.read_sealed_json(path)
    except OSError as exc:
        raise HandError(f"cannot read {where}: {exc.strerror or exc}", code="io") from None
    except storage.DamagedFile as exc:
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            old = None
        if isinstance(old, dict) and old.get("format") == 1:
            raise HandError(f"{where} was written by an older mjkit, without a checksum, "
                            "and cannot be verified: play the study again",
                            code="damaged") from None
        raise HandError(f"{where} is damaged ({exc}): play the study again",
                        code="damaged") from None
    why = _saved_problem(data)
    if why is not None:
        raise HandError(f"{where} is damaged or not a saved study ({why}): play the study "
                        "again", code="damaged")
    for name, entry in data["files"].items():
        f = path.with_name(name)
        try:
            ok = f.stat().st_size == entry["size"] and storage.digest_file(f) == entry["digest"]
        except OSError:
            ok = False
        if not ok:
            warnings.warn(f"{f} does not match its checksum in {path.name} (missing, damaged "
                          "or edited); the tables returned are computed from the intact "
                          f"{path.name}, and .save() writes the CSV files again", stacklevel=3)
    return data


def _saved_problem(data):
    """Why a sealed document is not a saved study this mjkit can use, or None."""
    if not isinstance(data, dict):
        return "not a table"
    if data.get("format") != FORMAT:
        return f"format {data.get('format')!r}; this mjkit reads format {FORMAT}"
    need = {"params": dict, "stats": dict, "combinations": list, "combination_columns": list,
            "files": dict}
    for key, kind in need.items():
        if not isinstance(data.get(key), kind):
            return f"no {key}"
    if not isinstance(data.get("info", {}), dict):
        return "no info"
    p = data["params"]
    try:
        levels = [int(x) for x in p["levels"]]
        hands = p["hands"]
        n_combos = len(p["combinations"])
        bars = {int(k) for k in p["bars"]}
    except (KeyError, TypeError, ValueError):
        return "incomplete parameters"
    if sorted(data["stats"]) != sorted(str(x) for x in levels) or not set(levels) <= bars:
        return "statistics of other levels than its parameters"
    if len(data["combinations"]) != n_combos or type(hands) is not int:
        return "combinations do not match its parameters"
    columns = data["combination_columns"]
    if not all(isinstance(c, str) for c in columns) or any(
            not isinstance(r, dict) or set(r) != set(columns) for r in data["combinations"]):
        return "combinations do not match their columns"
    for level, st in data["stats"].items():
        why = chunk_problem(st, hands, n_combos)
        if why is not None:
            return f"level {level}: {why}"
    for name, entry in data["files"].items():
        if (not isinstance(name, str) or Path(name).name != name or not name.endswith(".csv")
                or not isinstance(entry, dict) or type(entry.get("size")) is not int
                or not isinstance(entry.get("digest"), str)):
            return "a bad file entry"
    return None


def _study_part(params):
    """The parameters that decide the numbers (not the chunking or the sources)."""
    return {k: v for k, v in params.items() if k not in ("chunk", "engine_source")}


def default_study(*, rerun=False, client=None, progress=None, checkpoint=True):
    """The study the notebooks plot: :data:`DEFAULT_STUDY`, saved as ``default``.

    Returns the saved results when they exist (no hand is played);
    otherwise (or with ``rerun=True``) plays the study with
    :func:`~mjkit.sim.simulate` (the shipped one took 41 minutes on two cores),
    checkpointing to ``<results_dir>/default.checkpoint`` so that a killed
    run resumes, saves it in :func:`results_dir` and returns it.

    Parameters
    ----------
    rerun : bool
        Play the study even if results are saved.
    client : dask.distributed.Client, optional
        Play it on a Dask cluster.
    progress : bool, optional
    checkpoint : bool or path
        ``False``: no checkpoint; a path: that folder.

    Returns
    -------
    StudyTable
    """
    from .study import simulate

    if not rerun:
        try:
            table = load_results("default")
        except HandError as exc:
            if exc.code != "not_found":
                warnings.warn(f"{exc}; playing the default study again", stacklevel=2)
            table = None
        if table is not None:
            want = _study_part(_expected_default_params())
            if _study_part(table.params) != want:
                warnings.warn("the saved default study was played with other parameters "
                              "than DEFAULT_STUDY; default_study(rerun=True) plays it again",
                              stacklevel=2)
            return table
    folder = results_dir()
    if checkpoint is True:
        checkpoint = folder / "default.checkpoint"
    table = simulate(**DEFAULT_STUDY, client=client, progress=progress,
                     checkpoint=checkpoint or None)
    table.save("default", folder)
    return table


def _expected_default_params():
    from .study import study_params

    return study_params(**DEFAULT_STUDY)[0]
