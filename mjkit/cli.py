"""The ``mjkit`` command line: ``python -m mjkit COMMAND``.

Commands: score, waits, distance, targets, advise, fans, simulate, notebooks, app.

Examples::

    python -m mjkit score "[123m]456p789s55mEE E" --self-drawn --seat S --round E
    python -m mjkit score "123m456p789s55mEE E | self_drawn" --json
    python -m mjkit score "123456789m111pE E" --rules dazhong32 --self-drawn --lianla 3
    python -m mjkit score "PP 123m456m789m11m 1m" --rules dazhong32 --self-drawn --wild P
    python -m mjkit waits "123m234m345m678m9m" --rules dazhong32 --lianla 2
    python -m mjkit fans --rules dazhong32
    python -m mjkit simulate --rules dazhong32 --levels 0-8 --hands 100000 --seed 1 --out results.csv
    python -m mjkit distance "123m234m345m67m99s" --seat S --round E --lang zh
    python -m mjkit notebooks
    python -m mjkit notebooks --port 8890 --no-browser    # options go to Jupyter Lab

Options shared by several sub-commands have one name, default and help in all
of them (``--rules``, ``--lianla``, ``--wild``, ``--seat``, ``--round``,
``--visible``, ``--seed``, ``--lang``, ``--json``: the ``_add_*`` helpers
below); ``--seat-wind`` and ``--round-wind`` are aliases of ``--seat`` and
``--round``.  A default that differs says why in its help: the planning
commands (distance, targets, advise) default to dazhong32 and English, as
their Python functions do, and simulate to dazhong32, its study's game.
``notebooks`` adds ``--allow-root`` when run as root.

Exit status: 0 on success, 1 when the tiles do not form a complete hand (or
a command cannot do its work), 2 for bad input (an invalid hand, an unknown
rule set or a bad option); bad input is reported as ``error: <message>`` on
stderr, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from . import messages, text_table

__all__ = ["main", "build_parser"]

# Exit statuses.
OK, NOT_WIN, BAD_INPUT = 0, 1, 2


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def _english_names():
    """``{zh name: en name}`` and ``{key: zh name}`` of the fan catalogue."""
    from .rules.catalogue import catalogue_lists   # plain tuples: no pandas to print a score

    cat = catalogue_lists()
    return dict(zip(cat.zh, cat.en)), dict(zip(cat.key, cat.zh))


def _notebooks_dir():
    """The repository's ``notebooks`` folder (next to the package), or None."""
    from .locations import SOURCE_ROOT

    folder = SOURCE_ROOT / "notebooks"
    return folder if folder.is_dir() else None


def _jupyter_lab_command():
    """The command that starts Jupyter Lab, or None if it is not installed."""
    if importlib.util.find_spec("jupyterlab") is not None:
        return [sys.executable, "-m", "jupyterlab"]
    exe = shutil.which("jupyter-lab")
    return [exe] if exe else None


# --------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------

def _situation(args):
    """Keyword situation for :func:`mjkit.score` from the options given."""
    situation = {
        "self_drawn": args.self_drawn, "last_copy": args.last_copy, "kong": args.kong,
        "last_wall": args.last_wall, "flowers": args.flowers,
        "win_tile": getattr(args, "win_tile", None), **_winds(args),
    }
    for name in _FIRST_TURN:
        if getattr(args, name):
            situation[name] = True
    return {k: v for k, v in situation.items() if v is not None}


# First-turn and ready situations (大众): option name = Hand field.
_FIRST_TURN = {
    "heavenly_hand": "天和: the dealer wins on the dealt tiles",
    "earthly_hand": "地和: a non-dealer wins on the first draw",
    "human_hand": "人和: a win on a discard in the first go-round",
    "heavenly_ready": "天听: ready on the dealt tiles, declared",
    "earthly_ready": "地听: ready after the first draw, declared",
    "declared_ready": "报听: declared ready, then won",
    "double_ready": "双报听: won within a go-round of declaring",
}


def result_to_dict(result):
    """A :class:`~mjkit.score.ScoreResult` as plain JSON-ready data."""
    en, _ = _english_names()
    return {
        "hand": str(result.hand),
        "rules": result.rules,
        "is_win": bool(result.is_win),
        "total": int(result.total),
        "counted": int(result.counted_points),
        "flowers": int(result.flowers),
        "minimum": int(result.minimum),
        "lianla": int(result.lianla),
        "bar": int(result.bar),
        "legal": bool(result.legal),
        "short_by": result.short_by,
        "meets_minimum": bool(result.meets_minimum),
        "verdict": result.verdict("en"),
        "wild": result.wild,
        "wild_as": list(result.wild_as),
        "notes": list(result.notes),
        "form": result.form,
        "sets": [{"kind": k, "tiles": t, "exposed": bool(e)} for k, t, e in result.sets],
        "pair": result.pair,
        "fans": [{"id": f.id, "key": f.key, "zh": f.zh, "en": f.en, "points": f.points,
                  "count": f.count, "value": f.value} for f in result.fans],
        "not_counted": [{"zh": zh, "en": en.get(zh, zh), "because_of": list(by)}
                        for zh, by in result.not_counted],
    }


def _reading(result, text):
    """The chosen decomposition, e.g. ``顺 123m (明), 刻 EEE, 将 55m``."""
    kinds = text["kinds"]
    parts = []
    if result.knitted:
        parts.append(f"{text['forms'].get(result.form, result.form)} {result.knitted}")
    for kind, tiles, exposed in result.sets:
        parts.append(f"{kinds[kind]} {tiles}" + (f" ({text['exposed']})" if exposed else ""))
    if result.pair:
        parts.append(f"{kinds['pair']} {result.pair}")
    if result.form not in ("regular", "none", "knitted straight"):
        parts.insert(0, text["forms"].get(result.form, result.form))
    return ", ".join(parts)


def format_result(result, lang="zh"):
    """The human-readable report of ``mjkit score``."""
    text = messages.section("cli", lang)
    en, _ = _english_names()
    lines = [f"{result.hand}   ({text['rules']}: {result.rules})"]
    if not result.is_win:
        lines.append(text["not_win"])
        return "\n".join(lines)
    reading = _reading(result, text)
    if reading:
        lines.append(f"{text['reading']}: {reading}")
    lines.append("")
    rows = []
    for f in result.fans:
        names = (f.zh, f.en) if lang == "zh" else (f.en, f.zh)
        rows.append([*names, str(f.points), str(f.count), str(f.value)])
    rows.append([text["total"], "", "", "", str(result.total)])
    table = text_table.table(text["head"], rows, right=(2, 3, 4))
    table.insert(len(table) - 1, table[1])  # a rule above the total
    lines += table
    lines.append("")
    if result.wild_as:
        lines.append(text["wild"].format(w=result.wild, a=" ".join(result.wild_as)))
    lines.append(result.verdict(lang))
    for note in result.notes:
        lines.append(f"{text['note']}: {note}")
    lines.append(text["not_counted"] if result.not_counted
                 else f"{text['not_counted']} {text['none']}")
    if lang == "zh":
        names = [zh for zh, _ in result.not_counted]
        because = ["、".join(by) for _, by in result.not_counted]
    else:
        names = [f"{zh} {en.get(zh, '')}" for zh, _ in result.not_counted]
        because = [", ".join(f"{b} {en.get(b, '')}" for b in by)
                   for _, by in result.not_counted]
    width = max((text_table.width(n) for n in names), default=0)
    for name, by in zip(names, because):
        lines.append(f"  {text_table.pad(name, width)}  {text['because']} {by}")
    return "\n".join(lines)


def _cmd_score(args):
    import mjkit

    text = " ".join(args.hand)
    result = mjkit.score(text, rules=args.rules, wild=args.wild, lianla=args.lianla,
                         wait_rule=args.wait_rule, **_situation(args))
    if args.json:
        print(json.dumps(result_to_dict(result), ensure_ascii=False, indent=2))
    else:
        print(format_result(result, args.lang))
    return OK if result.is_win else NOT_WIN


def _cmd_waits(args):
    import mjkit

    result = mjkit.waits(" ".join(args.hand), rules=args.rules, wild=args.wild,
                         lianla=args.lianla, wait_rule=args.wait_rule, visible=args.visible,
                         **_situation(args))
    if args.json:
        print(json.dumps({"hand": result.hand, "rules": result.rules, "lianla": result.lianla,
                          "bar": result.bar,
                          "waits": [{"tile": w.tile, "unseen": w.unseen, "total": w.total,
                                     "counted": w.hand_points, "legal": w.legal,
                                     "short_by": w.short_by, "fans": list(w.fans)}
                                    for w in result.waits]}, ensure_ascii=False, indent=2))
    else:
        print(result.summary(args.lang))
    return OK if result.is_ready else NOT_WIN


def _reach_common(sub, name, help_, description):
    p = sub.add_parser(name, help=help_, description=description)
    p.add_argument("hand", nargs="+", help='13 or 14 tiles, e.g. "123m234m345m678m9m"')
    p.add_argument("--min-fans", type=_checked(_count_arg("min_fans", 0, 2**31 - 1)),
                   default=None, metavar="T",
                   help="counted fans to reach, 连拉 included (default: the rule set's minimum)")
    _add_rules(p, "dazhong32", _PLAN_RULES_WHY)
    _add_lianla(p)
    _add_visible(p)
    _add_lang(p, "en", _PLAN_LANG_WHY)
    _add_json(p)
    return p


def _cmd_distance(args):
    import mjkit

    d = mjkit.distance_to(" ".join(args.hand), args.min_fans, args.rules, lianla=args.lianla,
                          visible=args.visible, examples=args.examples, **_winds(args))
    if args.json:
        print(json.dumps({"hand": d.hand, "rules": d.rules, "min_fans": d.min_fans,
                          "lianla": d.lianla, "distance": d.distance, "fit": d.fit,
                          "targets": [{"hand": t.hand, "keep": t.keep, "discard": t.discard,
                                       "need": t.need, "ways": t.ways, "counted": t.counted,
                                       "fans": list(t.fans)} for t in d.targets]},
                         ensure_ascii=False, indent=2))
    else:
        print(d.summary(args.lang))
        for t in d.targets[1:]:
            print(f"  {t.hand}: {t.counted} - {' '.join(t.fans)}")
    return OK if d.distance is not None else NOT_WIN


def _cmd_targets(args):
    import mjkit

    r = mjkit.targets(" ".join(args.hand), args.min_fans, args.rules, lianla=args.lianla,
                      visible=args.visible, top=args.top)
    if args.json:
        cols = ["rank", "combination", "combination_en", "fans", "points", "distance", "fit",
                "need", "ways", "example", "counted", "source", "note"]
        rows = r.table[cols].head(args.top).astype(object).where(
            r.table[cols].head(args.top).notna(), None)
        print(json.dumps({"hand": r.hand, "rules": r.rules, "min_fans": r.min_fans,
                          "lianla": r.lianla, "advice": r.advice,
                          "targets": rows.to_dict("records")},
                         ensure_ascii=False, indent=2, default=int))
    else:
        print(r.summary(args.lang, top=args.top))
    return OK if r.distance is not None else NOT_WIN


def _cmd_advise(args):
    import math

    import mjkit

    adv = mjkit.advise(" ".join(args.hand), args.rules, lianla=args.lianla,
                       draws_left=args.draws, visible=args.visible, wild=args.wild,
                       mode=args.mode, min_fans=args.min_fans, top_targets=args.top_targets,
                       **_winds(args))
    if args.json:
        def num(x):
            return None if math.isnan(x) else x
        print(json.dumps({
            "hand": adv.hand, "rules": adv.rules, "bar": adv.bar, "lianla": adv.lianla,
            "draws": adv.draws, "wild": adv.wild, "is_win": adv.is_win,
            "win_fans": adv.win_fans, "cut": adv.cut,
            "rows": [{"tile": r.tile, "p_win": r.p_win, "exp_fans": num(r.exp_fans),
                      "exp_per_hand": r.exp_per_hand, "distance": r.distance,
                      "useful": [list(u) for u in r.useful],
                      "targets": [{"hand": t.hand, "need": t.need, "counted": t.counted,
                                   "fans": list(t.fans), "p_alone": t.p_alone}
                                  for t in r.targets]} for r in adv.rows]},
            ensure_ascii=False, indent=2))
    else:
        print(adv.summary(args.lang))
        print()
        print("\n".join(adv.table(args.lang)))
    return OK


# --------------------------------------------------------------------------
# fans
# --------------------------------------------------------------------------

def _cmd_fans(args):
    import mjkit
    from .rules import get_rules

    rs = get_rules(args.rules)
    df = mjkit.fan_table(args.rules)
    if args.json:
        records = [{"id": int(r.id), "key": r.key, "zh": r.zh, "en": r.en,
                    "points": int(r.points), "excludes": r.excludes.split()}
                   for r in df.itertuples()]
        print(json.dumps({"rules": rs.name, "minimum": int(rs.minimum), "fans": records},
                         ensure_ascii=False, indent=2))
        return OK
    text = messages.section("cli", args.lang)
    _, zh_of = _english_names()
    rows = [[str(r.id), str(r.points), r.zh, r.en,
             " ".join(zh_of.get(k, k) for k in r.excludes.split())]
            for r in df.itertuples()]
    print(text["catalogue"].format(name=rs.name, n=len(df), m=rs.minimum))
    print("\n".join(text_table.table(text["fan_head"], rows, right=(0, 1))))
    return OK


# --------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------

def parse_levels(text):
    """``"0-8"``, ``"0,2,5"`` or ``"0-3,8"`` as a sorted list of levels."""
    from .validate import levels_text

    return levels_text(text, "--levels")


# Study options of `simulate` (None: not given on the command line).
_STUDY_OPTIONS = ("rules", "levels", "hands", "seed", "dealer_policy", "others_policy",
                  "solitaire", "claims", "exchange", "exhaust", "dealer_draws", "wild")


def _cmd_simulate(args):
    import math

    from .errors import HandError
    from .sim import simulate
    from .sim.results import DEFAULT_STUDY, check_folder, check_writable, results_dir, save_paths
    from .sim.study import MAX_CHUNK, MAX_HANDS, study_params
    from .validate import whole

    if args.default:
        given = [f"--no-{k}" if k in ("claims", "exchange") else f"--{k.replace('_', '-')}"
                 for k in _STUDY_OPTIONS if getattr(args, k) is not None]
        if given:
            raise HandError(f"--default plays the default study: drop {', '.join(given)}")
        study = dict(DEFAULT_STUDY)
        out = Path(args.out) if args.out else results_dir() / "default.csv"
        checkpoint = args.checkpoint or out.with_name(out.stem + ".checkpoint")
    else:
        study = {
            "rules": args.rules or "dazhong32",
            "levels": parse_levels(args.levels if args.levels is not None else "0-8"),
            "hands": 10_000 if args.hands is None else args.hands,
            "seed": 0 if args.seed is None else args.seed,
            # the shipped study's players (mjkit.sim.DEFAULT_STUDY), so that a study of the
            # command line is read beside the README's
            "dealer_policy": args.dealer_policy or DEFAULT_STUDY["dealer_policy"],
            "others_policy": args.others_policy or DEFAULT_STUDY["others_policy"],
        }
        if args.solitaire:
            study["solitaire"] = True
        if args.claims is False:
            study["claims"] = False
        if args.exchange is False:
            study["exchange"] = False
        if args.exhaust is not None:
            study["exhaust"] = args.exhaust
        if args.dealer_draws is not None:
            study["dealer_draws"] = args.dealer_draws
        if args.wild is not None:
            # "none": no wild tile (the rule set's table may have one)
            study["wild"] = None if args.wild.strip().lower() == "none" else args.wild
        out = Path(args.out) if args.out else None
        checkpoint = args.checkpoint
    if out is not None and out.suffix.lower() != ".csv":
        raise HandError(f"--out must name a .csv file, got {str(out)!r}")
    if args.chunk is not None:
        study["chunk"] = args.chunk
    # every argument is checked, and every destination made and tried, before a hand is
    # played: a study is never played only to be lost to an unwritable --out
    for option, value, lo, hi in (("--hands", args.hands, 1, MAX_HANDS),
                                  ("--seed", args.seed, 0, None),
                                  ("--chunk", args.chunk, 1, MAX_CHUNK),
                                  ("--exhaust", args.exhaust, 53, 144),
                                  ("--dealer-draws", args.dealer_draws, 1, 144)):
        if value is not None:
            whole(option, value, lo, hi)
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise HandError(f"--timeout must be a number of seconds > 0, got {args.timeout!r}")
    study_params(**study)
    plot = None
    if not args.no_plot:
        plot = Path(args.plot) if args.plot else (out.with_suffix(".png") if out else None)
    if args.scheduler is not None and importlib.util.find_spec("distributed") is None:
        raise HandError("--scheduler needs Dask: pip install 'dask[distributed]'",
                        code="missing_dependency")
    if out is not None:
        check_writable(save_paths(out), "--out")
    if plot is not None:
        check_writable([plot], "--plot" if args.plot else "--out (its plot)")
    if checkpoint:
        check_folder(checkpoint, "--checkpoint")
    client = None
    if args.scheduler is not None:
        # the address's form was checked when parsed (_scheduler_arg); whatever Dask still
        # refuses (no scheduler there, TLS without certificates, ...) names the option too
        try:
            from distributed import Client
        except Exception as exc:    # noqa: BLE001 - installed but broken
            raise HandError(f"--scheduler needs Dask, which does not import: {exc}",
                            code="missing_dependency") from None
        try:
            client = Client(args.scheduler, timeout=args.timeout)
        except Exception as exc:    # noqa: BLE001 - Dask raises ValueError, TypeError, OSError...
            reason = str(exc).strip() or type(exc).__name__
            raise HandError(f"--scheduler {args.scheduler!r}: cannot use this Dask scheduler: "
                            f"{reason}") from None
    try:
        table = simulate(**study, checkpoint=checkpoint, client=client,
                         progress=False if args.no_progress else None)
    except KeyboardInterrupt:
        if checkpoint:
            print(f"interrupted: finished chunks are in {checkpoint}; run the same "
                  "command again to resume", file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    if args.json:
        chain = table.streak
        data = {"params": table.params, "info": table.info,
                "levels": json.loads(table.reset_index().to_json(orient="records")),
                "streak": None if chain is None else {
                    "p_reach": [float(x) for x in chain["p_reach"]],
                    "expected_length": float(chain.attrs["expected_length"])}}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(table.summary())
    written = []
    if out is not None:
        saved = table.save(out)
        written += [str(out), str(saved)]
    if plot is not None:
        table.plot(plot)
        written.append(str(plot))
    if written and not args.json:
        print("wrote " + ", ".join(written))
    return OK


# --------------------------------------------------------------------------
# notebooks
# --------------------------------------------------------------------------

def _running_as_root():
    """True when the effective user is root (uid 0); never on Windows (no ``os.geteuid``)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0


def _gives_allow_root(options):
    """True when Jupyter options already say ``--allow-root`` (or ``--ServerApp.allow_root``)."""
    return any(o == "--allow-root" or o.split("=", 1)[0].endswith(".allow_root")
               for o in options)


def _notebooks_argv(command, folder, options):
    """The whole command line of ``mjkit notebooks``: Jupyter Lab on the folder, then
    ``--allow-root`` when run as root (Jupyter Lab refuses root otherwise) unless the
    options give it, then the options passed through, in their order."""
    options = list(options)
    if "--" in options:             # mjkit's separator: what follows is Jupyter's
        options.remove("--")        # (the first one only; later ones are Jupyter's)
    root = ["--allow-root"] if _running_as_root() and not _gives_allow_root(options) else []
    return [*command, str(folder), *root, *options]


def _shell_line(argv):
    """``argv`` as one line a shell of this system reads back as the same command."""
    return subprocess.list2cmdline(argv) if os.name == "nt" else shlex.join(argv)


def _launch(argv):
    """Run ``argv`` and wait for it; its exit status (the tests replace this function)."""
    return subprocess.call(argv)


def _cmd_notebooks(args):
    from .locations import SOURCE_ROOT

    folder = _notebooks_dir()
    if folder is None:
        print("The notebooks folder was not found next to the mjkit package "
              f"({SOURCE_ROOT}). It ships with the source "
              "repository: clone it and install with  pip install -e \".[lab]\"",
              file=sys.stderr)
        return NOT_WIN
    command = _jupyter_lab_command()
    if command is None:
        print(f"Jupyter Lab is not installed. The notebooks are in {folder}\n"
              "Install Jupyter Lab with the lab extra, from the repository root:\n"
              "    pip install -e \".[lab]\"\n"
              "then run  python -m mjkit notebooks  (or  jupyter lab notebooks/).")
        return NOT_WIN
    argv = _notebooks_argv(command, folder, getattr(args, "jupyter_options", ()))
    print(f"Starting Jupyter Lab: {_shell_line(argv)}", flush=True)
    try:
        return _launch(argv)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        print(f"error: could not start Jupyter Lab: {exc}", file=sys.stderr)
        return NOT_WIN


def _cmd_app(args):
    import importlib.util

    from .app import server

    # every option is checked (and the results folder made) before anything starts
    opts = server.check_options(port=args.port, seed=args.seed, questions=args.questions,
                                difficulty=args.difficulty, lang=args.lang,
                                results=args.results, idle_timeout=args.idle_timeout,
                                max_kernels=args.max_kernels, ip=args.host,
                                input_idle_timeout=args.input_idle_timeout,
                                kernels_per_student=args.kernels_per_student,
                                kernels_per_address=args.kernels_per_address,
                                kernel_memory=args.kernel_memory)
    if importlib.util.find_spec("voila") is None:
        print("Voila is not installed. Install the app extra, from the repository root:\n"
              "    pip install -e \".[app]\"\nthen run  python -m mjkit app", file=sys.stderr)
        return NOT_WIN
    return server.serve(opts, browser=args.browser)


# --------------------------------------------------------------------------
# parser and main
# --------------------------------------------------------------------------

def _checked(check):
    """An argparse ``type=`` from a validator raising HandError: the error names the option.

    argparse prefixes an :class:`argparse.ArgumentTypeError`'s message with
    ``argument --option:`` and exits with status 2 before any work is done.
    """
    def convert(text):
        from .errors import HandError

        try:
            return check(text)
        except HandError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = check.__name__
    return convert


def _scheduler_arg(text):
    """``--scheduler``: :func:`mjkit.validate.scheduler_address` (before Dask is imported;
    argparse names the option)."""
    from . import validate

    return validate.scheduler_address(text, "the address")


def _level_arg(text):
    from . import validate

    return validate.level(validate.decimal(text, "the 连拉 level"), "the 连拉 level")


def _count_arg(name, lo, hi):
    def count(text):
        from . import validate

        return validate.whole(name, validate.decimal(text, name), lo, hi)
    count.__name__ = name.replace(" ", "_")
    return count


def _flowers_arg(text):
    from . import validate

    validate.flowers(text)      # the message of mjkit.score(..., flowers=text)
    return text


def _wind_arg(name):
    def wind(text):
        from . import validate

        validate.wind(text, name)   # the message of mjkit.score(..., <name>=text)
        return text
    wind.__name__ = name
    return wind


def _wild_arg(text):
    from . import validate

    validate.wild_kind(text)
    return text


def _lang_arg(text):
    from . import validate

    return validate.lang(text, "--lang")


class _Parser(argparse.ArgumentParser):
    """The parser of a sub-command.  One whose ``passes_through`` names a destination
    (``notebooks``) keeps the options it does not know there, in their order, for the
    program it starts; every other sub-command refuses them as before (``unrecognized
    arguments``, status 2).  ``--help`` is still the sub-command's own."""

    passes_through = None

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if self.passes_through:
            setattr(namespace, self.passes_through, extras)
            extras = []
        return namespace, extras


# --------------------------------------------------------------------------
# options shared by several sub-commands: one helper each, so that every
# sub-command spells them alike (name, destination, default, metavar, help).
# A default that must differ is given with the reason, which its help states.
# --------------------------------------------------------------------------

def _with_default(text, default, why=None):
    return f"{text} (default: {default}: {why})" if why else f"{text} (default: {default})"


def _add_rules(p, default="gb", why=None, *, study=False):
    """``--rules``.  ``study``: simulate's, None when not given (so that ``--default``
    can refuse it), the default being applied by the command."""
    p.add_argument("--rules", default=None if study else default, metavar="RULES",
                   help=_with_default("rule set: gb, dazhong or dazhong32", default, why))


def _add_lianla(p):
    p.add_argument("--lianla", type=_checked(_level_arg), default=0, metavar="N",
                   help=_with_default("dealer streak level 连N拉N (dazhong32, 0..1000, the "
                                      "dealer only): adds 4N toward the bar", 0))


_WILD_HELP = "the wild tile (财神) of the game, e.g. P"


def _add_wild(p, *, dealt=False):
    """``--wild``.  ``dealt``: simulate's, which deals the games itself and so also takes
    ``turned`` (a new wild tile each hand) and ``none`` (checked by the study)."""
    if dealt:
        p.add_argument("--wild", default=None, metavar="TILE",
                       help=_WILD_HELP + "; the simulator deals the wall, so also 'turned' (a "
                            "tile turned up from the back of the wall, each hand) or 'none' "
                            "(default: the rule set's table: turned for dazhong32, else none)")
    else:
        p.add_argument("--wild", type=_checked(_wild_arg), default=None, metavar="TILE",
                       help=_with_default(_WILD_HELP, "none"))


def _add_winds(p):
    """``--seat`` and ``--round`` (destinations ``seat_wind``, ``round_wind``, the names of
    the Python API); ``--seat-wind`` and ``--round-wind`` are hidden aliases (the names
    distance and advise had).  None when not given: the hand's ``| seat=`` situation or
    the API's default, E, applies."""
    for name, dest, what in (("seat", "seat_wind", "seat wind (门风)"),
                             ("round", "round_wind", "prevalent wind (圈风)")):
        wind = _checked(_wind_arg(dest))
        p.add_argument(f"--{name}", dest=dest, type=wind, default=None, metavar="WIND",
                       help=_with_default(f"{what}: E S W N; also --{name}-wind", "E"))
        p.add_argument(f"--{name}-wind", dest=dest, type=wind, default=None, metavar="WIND",
                       help=argparse.SUPPRESS)


def _winds(args):
    """The winds given on the command line, as keywords of the Python API."""
    return {k: getattr(args, k) for k in ("seat_wind", "round_wind")
            if getattr(args, k, None) is not None}


def _add_visible(p):
    p.add_argument("--visible", metavar="TILES", default=None,
                   help="tiles seen elsewhere (discards, melds)")


def _add_seed(p, *, study=False):
    """``--seed``.  ``study``: simulate's, None when not given (see :func:`_add_rules`)."""
    p.add_argument("--seed", type=int, default=None if study else 0, metavar="N",
                   help=_with_default("random seed, a whole number from 0: the same seed "
                                      "gives the same results", 0))


def _add_lang(p, default="zh", why=None):
    p.add_argument("--lang", type=_checked(_lang_arg), default=default, metavar="{zh,en}",
                   help=_with_default("language of the output: zh or en", default, why))


def _add_json(p):
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


# The planning commands (distance, targets, advise) default to what their Python
# functions default to: the 大众32番连拉 bar, and the English summary.
_PLAN_RULES_WHY = "the game whose 32-fan bar these plans are made for, as in the Python API"
_PLAN_LANG_WHY = "the report is the Python API's summary(), English unless asked"


def _add_game_options(p):
    """Rule set, game options, situation and output options shared by score and waits."""
    _add_rules(p)
    _add_lianla(p)
    _add_wild(p)
    p.add_argument("--wait-rule", choices=("unique", "leftmost"), default="unique",
                   help="wait fans on a sole wait (国标, default) or read from the left "
                        "as the old 联众 client does")
    flag = argparse.BooleanOptionalAction
    p.add_argument("--self-drawn", action=flag, default=None, help="won by self-draw (自摸)")
    p.add_argument("--last-copy", action=flag, default=None,
                   help="the winning tile is the last copy (和绝张)")
    p.add_argument("--kong", action=flag, default=None,
                   help="won on a kong replacement (杠上开花) or robbing a kong (抢杠和)")
    p.add_argument("--last-wall", action=flag, default=None,
                   help="won on the last tile of the wall (妙手回春 / 海底捞月)")
    _add_winds(p)
    p.add_argument("--flowers", type=_checked(_flowers_arg), metavar="N|TILES",
                   help="flowers: a count 0..8 or tiles like 1f3f")
    for name, help_text in _FIRST_TURN.items():
        p.add_argument("--" + name.replace("_", "-"), action="store_true", help=help_text)
    _add_lang(p)
    _add_json(p)


def build_parser():
    """The argparse parser of ``python -m mjkit``."""
    from . import __version__

    parser = argparse.ArgumentParser(
        # `mjkit` when run as the console script, else `python -m mjkit`.
        prog="mjkit" if Path(sys.argv[0]).stem == "mjkit" else "python -m mjkit",
        description="mjkit: Chinese mahjong fan evaluator (国标, 大众, 大众32番连拉).",
        epilog="Tile notation: 1m..9m 1p..9p 1s..9s, winds E S W N, dragons P F C "
               "(or 1z..7z); [123m] exposed meld, {5555p} concealed kong; the last "
               "tile is the winning tile; after '|' the situation, e.g. "
               "'| self_drawn seat=S flowers=2'.")
    parser.add_argument("--version", action="version", version=f"mjkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    sc = sub.add_parser(
        "score", help="score a hand and show its fans",
        description="Score a winning hand: the fans counted, the total, whether it "
                    "reaches the rule set's minimum (8, or 32 - 4N at 连N拉N in dazhong32) "
                    "and the fans not counted (不计).")
    sc.add_argument("hand", nargs="+",
                    help='the hand in notation, e.g. "[123m]456p789s55mEE E" '
                         "(quote it; several words are joined with spaces)")
    _add_game_options(sc)
    sc.add_argument("--win-tile", metavar="TILE",
                    help="the winning tile, if not the last concealed tile")
    sc.set_defaults(func=_cmd_score)

    wa = sub.add_parser(
        "waits", help="what a 13-tile hand waits for, and what each wait scores",
        description="Every winning tile of a ready hand: unseen copies, fans, total and "
                    "whether the win is legal at the 连拉 level.")
    wa.add_argument("hand", nargs="+", help='the 13 tiles before the win, e.g. "123m234m345m678m9m"')
    _add_visible(wa)
    _add_game_options(wa)
    wa.set_defaults(func=_cmd_waits)

    di = _reach_common(
        sub, "distance", "how far a hand is from a complete hand worth T fans",
        "Fewest exchanges to a complete hand whose counted fans reach T (exact for closed "
        "hands), with example targets: what to keep, let go and draw.  The first use of a "
        "rule set builds its value index (about 25 s on two cores, as long again the first "
        "time while its kernels compile; then cached).")
    _add_winds(di)
    di.add_argument("--examples", type=_checked(_count_arg("examples", 1, 50)), default=3,
                    metavar="K", help="example targets to show, 1..50 (default: 3)")
    di.set_defaults(func=_cmd_distance)

    ta = _reach_common(
        sub, "targets", "which fan combinations to aim at (6看 7停 8上)",
        "Named fan combinations reaching the bar (fan table and seed 000), ranked for a "
        "closed hand by distance and ways to draw the missing tiles.")
    ta.add_argument("--top", type=_checked(_count_arg("top", 0, 10_000)), default=8,
                    metavar="K", help="rows to show (default: 8)")
    ta.set_defaults(func=_cmd_targets)

    ad = _reach_common(
        sub, "advise", "what to discard: the chance of a legal win per discard",
        "For each discard of a 14-tile hand (or a 13-tile hand itself): the probability of a "
        "legal self-drawn win within the draws left, the expected counted fans, the "
        "distance to a hand worth the bar, the useful tiles with their live copies and the "
        "main targets.  The first use of a rule set builds its value index (once).")
    ad.add_argument("--draws", type=_checked(_count_arg("draws_left", 0, 200)), default=None,
                    metavar="N", help="draws left (default: estimated from the visible tiles, "
                                      "17 with none)")
    _add_wild(ad)
    ad.add_argument("--mode", choices=("deep", "exact", "graph", "fast"), default="deep",
                    help="search: deep (default), exact (up to 4 draws), graph or fast "
                         "(the simulator's rating, a calibrated estimate)")
    _add_winds(ad)
    ad.add_argument("--top-targets", type=_checked(_count_arg("top_targets", 0, 50)),
                    default=3, metavar="K", help="targets per discard (default: 3)")
    ad.set_defaults(func=_cmd_advise)

    fa = sub.add_parser("fans", help="list the fans of a rule set",
                        description="Print the fan catalogue of a rule set.")
    _add_rules(fa)
    _add_lang(fa)
    _add_json(fa)
    fa.set_defaults(func=_cmd_fans)

    si = sub.add_parser(
        "simulate", help="simulate whole hands: win and streak odds per 连N拉N level",
        description="Play seeded hands at each 连N拉N level (all cores, or a Dask cluster) "
                    "and print P(dealer wins) with its 95% interval, P(another player wins), "
                    "P(drawn out), the mean turn of the win and the streak chain; write the "
                    "tables (CSV + JSON with every parameter) and a plot.  Same seed, same "
                    "numbers.")
    # the study options are None when not given, so that --default can refuse them
    _add_rules(si, "dazhong32", "the study is of 大众32番连拉's dealer streaks", study=True)
    si.add_argument("--levels", default=None, metavar="LEVELS",
                    help="levels to play, e.g. 0-8 (default), 0,2,5 or 0-3,8")
    si.add_argument("--hands", type=int, default=None, metavar="N",
                    help="hands per level (default: 10000)")
    _add_seed(si, study=True)
    si.add_argument("--dealer-policy", default=None, metavar="NAME",
                    help="the dealer's policy: strong, strong_break, value, efficiency or "
                         "break (default: strong, the shipped study's)")
    si.add_argument("--others-policy", default=None, metavar="NAME",
                    help="the other players' policy: strong_break (strong, and 破拉), strong, "
                         "break (破拉), value or efficiency (default: strong_break, the shipped "
                         "study's)")
    si.add_argument("--solitaire", action="store_true", default=None,
                    help="only the dealer plays (it may still claim the others' throws: add "
                         "--no-claims for a one-player game)")
    si.add_argument("--no-claims", dest="claims", action="store_false", default=None,
                    help="no discard is claimed (吃, 碰, 明杠) or won on")
    si.add_argument("--no-exchange", dest="exchange", action="store_false", default=None,
                    help="no 起手换牌 (default: the rule set's table: dazhong and dazhong32 "
                         "let each player swap up to three tiles after the deal)")
    si.add_argument("--exhaust", type=int, default=None, metavar="TILES",
                    help="tiles taken from the wall before the hand is drawn out (default: 120)")
    si.add_argument("--dealer-draws", type=int, default=None, metavar="D",
                    help="the hand is drawn out after the dealer's D own draws (the one-player "
                         "reach study: --solitaire --no-claims --exhaust 144 --dealer-draws 15 "
                         "--dealer-policy strong; default: no such limit)")
    _add_wild(si, dealt=True)
    si.add_argument("--chunk", type=int, default=None, metavar="N",
                    help="hands per task and per checkpoint file (default: 5000)")
    si.add_argument("--checkpoint", metavar="DIR",
                    help="save finished chunks in DIR; the same command resumes a killed run")
    si.add_argument("--scheduler", metavar="ADDRESS", type=_checked(_scheduler_arg),
                    help="play on a Dask cluster, e.g. tcp://127.0.0.1:8786 (default: all "
                         "local cores)")
    si.add_argument("--timeout", type=float, default=30, metavar="S",
                    help=argparse.SUPPRESS)
    si.add_argument("--out", metavar="FILE.csv",
                    help="write the per-level table there, with FILE.json (parameters, "
                         "version, statistics: mjkit.sim.load_results reads it) and "
                         "FILE.combinations.csv, FILE.fan_totals.csv, FILE.streak.csv")
    si.add_argument("--plot", metavar="PATH",
                    help="write the plot there (default: next to --out, FILE.png)")
    si.add_argument("--no-plot", action="store_true", help="no plot")
    si.add_argument("--default", action="store_true",
                    help="play the default study (mjkit.sim.DEFAULT_STUDY) and save it as "
                         "data/results/default.* (what mjkit.sim.default_study() loads)")
    si.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_json(si)
    si.set_defaults(func=_cmd_simulate)

    nb = sub.add_parser(
        "notebooks", help="open the teaching notebooks in Jupyter Lab",
        usage="%(prog)s [-h] [JUPYTER-LAB OPTION ...] [-- JUPYTER-LAB ARGUMENT ...]",
        allow_abbrev=False,     # --he is Jupyter's to read, not an abbreviation of --help
        description="Open the notebooks folder with Jupyter Lab.  Every other option is "
                    "passed to Jupyter Lab in its order, e.g. --port 8890 --no-browser, and "
                    "so is everything after --  (-- --help shows Jupyter Lab's help).  Run "
                    "as root (a container, a VM), it adds --allow-root, which Jupyter Lab "
                    "needs then.  It prints the command before it starts it.")
    nb.passes_through = "jupyter_options"
    nb.set_defaults(func=_cmd_notebooks, jupyter_options=[])

    from .app import server as app_server       # its defaults (it imports no Voila)

    ap = sub.add_parser("app", help="serve the classroom quiz and hand builder (Voila)",
                        description="Serve the quiz and the hand builder as a web page with "
                                    "Voila; every student opening it gets the same questions "
                                    "for the same --seed, their answers go into a class "
                                    "database in --results, and the teacher's page (its link "
                                    "is printed) shows the class live.")
    ap.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                    help="where to listen: 127.0.0.1 (this machine only, the default), "
                         "0.0.0.0 (every interface: students' own devices on the LAN) or "
                         "one address of this machine; beyond 127.0.0.1 students need the "
                         "class code the server prints")
    ap.add_argument("--port", type=int, default=8866,
                    help="port (default: 8866); only this machine's own host names and "
                         "addresses are answered")
    _add_seed(ap)
    ap.add_argument("--questions", type=int, default=10, help="questions, 1..200 (default: 10)")
    ap.add_argument("--difficulty", default="medium", help="easy, medium or hard")
    _add_lang(ap)
    ap.add_argument("--results", metavar="DIR",
                    help="folder of the class database (one SQLite file per run, every "
                         "student's answers; default: ./mjkit-results; never inside the "
                         "package)")
    ap.add_argument("--idle-timeout", type=int, default=600, metavar="SECONDS",
                    help="stop a student's kernel (about 220 MB) after this long idle with no "
                         "browser connected, 10..86400 (default: 600)")
    ap.add_argument("--max-kernels", type=int, default=40, metavar="N",
                    help="students served at once; beyond, a 'the class is full' page "
                         "(default: 40)")
    ap.add_argument("--input-idle-timeout", type=int, default=app_server.DEFAULT_INPUT_IDLE_TIMEOUT,
                    metavar="SECONDS",
                    help="stop a student's kernel after this long without a message from its "
                         "browser, even with the tab open, 10..86400 (default: %(default)s)")
    ap.add_argument("--kernels-per-student", type=int,
                    default=app_server.DEFAULT_KERNELS_PER_STUDENT, metavar="N",
                    help="pages one student (class cookie) may have open, 1..10; a new one "
                         "replaces the oldest (default: %(default)s; beyond 127.0.0.1 only)")
    ap.add_argument("--kernels-per-address", type=int,
                    default=app_server.DEFAULT_KERNELS_PER_ADDRESS, metavar="N",
                    help="pages the devices behind one address may have open, 1..100; "
                         "beyond, 'too many pages' (default: %(default)s; beyond 127.0.0.1 only)")
    ap.add_argument("--kernel-memory", type=int, default=app_server.DEFAULT_KERNEL_MEMORY,
                    metavar="MB",
                    help="memory of one student's kernel, 300..16000 MB; above, the page "
                         "says so and stops (default: %(default)s)")
    ap.add_argument("--browser", action="store_true", help="open a browser too")
    ap.set_defaults(func=_cmd_app)
    return parser


def main(argv=None):
    """Run the command line; return the exit status (does not call ``sys.exit``)."""
    from .errors import HandError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return args.func(args)
    except HandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:  # e.g. `python -m mjkit fans | head`
        try:
            sys.stdout = open(os.devnull, "w")  # no second error at exit
        except OSError:
            pass
        return NOT_WIN
