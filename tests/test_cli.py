"""Tests for the command line, ``python -m mjkit`` (mjkit/cli.py)."""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import mjkit
from mjkit import cli
from mjkit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "[123m]456p789s55mEE E"
EXAMPLE_ARGS = ["score", EXAMPLE, "--self-drawn", "--seat", "S", "--round", "E"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_example_table(capsys):
    code, out, err = run(capsys, *EXAMPLE_ARGS)
    assert code == 0, err
    assert err == ""
    assert "花龙" in out and "Mixed Straight" in out
    assert "圈风刻" in out and "自摸" in out
    total = next(line for line in out.splitlines() if "合计" in line)
    assert total.split()[-1] == "11"
    assert "可以和：计番 11 ≥ 起和 8" in out


def test_score_example_english(capsys):
    code, out, _ = run(capsys, *EXAMPLE_ARGS, "--lang", "en")
    assert code == 0
    assert "Mixed Straight" in out and "花龙" in out
    total = next(line for line in out.splitlines() if line.strip().startswith("Total"))
    assert total.split()[-1] == "11"
    assert "Legal win: 11 counted fans, 8 needed" in out


def test_score_json_matches_api(capsys):
    code, out, _ = run(capsys, *EXAMPLE_ARGS, "--json")
    assert code == 0
    data = json.loads(out)
    r = mjkit.score(EXAMPLE, self_drawn=True, seat_wind="S", round_wind="E")
    assert data["total"] == r.total == 11
    assert data["is_win"] is True and data["meets_minimum"] is r.meets_minimum
    assert data["minimum"] == r.minimum and data["counted"] == r.counted_points
    assert data["hand"] == str(r.hand)
    assert [(f["zh"], f["en"], f["points"], f["count"]) for f in data["fans"]] == [
        (f.zh, f.en, f.points, f.count) for f in r.fans]
    assert [(s["kind"], s["tiles"], s["exposed"]) for s in data["sets"]] == r.sets
    assert data["pair"] == r.pair


def test_situation_options_match_suffix(capsys):
    # Options and the `|` suffix say the same thing.
    _, a, _ = run(capsys, "score", EXAMPLE, "--flowers", "2", "--last-wall", "--json")
    _, b, _ = run(capsys, "score", EXAMPLE + " | flowers=2 last_wall", "--json")
    assert json.loads(a) == json.loads(b)
    data = json.loads(a)
    r = mjkit.score(EXAMPLE, flowers=2, last_wall=True)
    assert data["total"] == r.total and data["flowers"] == 2 == r.flowers
    # --no-self-drawn overrides the suffix.
    _, c, _ = run(capsys, "score", EXAMPLE + " | self_drawn", "--no-self-drawn", "--json")
    assert json.loads(c)["total"] == mjkit.score(EXAMPLE).total


def test_not_counted_listed(capsys):
    hand = "111m555p999sEEEC C | self_drawn"  # 四暗刻: 碰碰和 and 不求人 not counted
    r = mjkit.score(hand)
    assert r.not_counted
    code, out, _ = run(capsys, "score", hand)
    assert code == 0
    section = out.split("不计（被更高番种包含）：")[1]
    for zh, by in r.not_counted:
        line = next(line for line in section.splitlines() if line.strip().startswith(zh))
        assert all(b in line for b in by)
    code, out, _ = run(capsys, "score", hand, "--json")
    assert [(d["zh"], tuple(d["because_of"])) for d in json.loads(out)["not_counted"]] == \
        r.not_counted
    assert ("碰碰和", ("四暗刻",)) in r.not_counted


def test_minimum_not_met(capsys):
    code, out, _ = run(capsys, "score", "[234m]456p789s55mEE E | seat=S flowers=8")
    assert code == 0  # a complete hand, even if too small to win with
    assert "P胡警告" in out and "起和需 8" in out


@pytest.mark.parametrize("argv, call", [
    (["score", "[124m]456p789s55mEE E"], lambda: mjkit.score("[124m]456p789s55mEE E")),
    (["score", "123m456p789s55mEE Q"], lambda: mjkit.score("123m456p789s55mEE Q")),
    (["score", "123m456p789s55mEE"], lambda: mjkit.score("123m456p789s55mEE")),
    (["score", EXAMPLE, "--seat", "X"], lambda: mjkit.score(EXAMPLE, seat_wind="X")),
    (["score", EXAMPLE, "--flowers", "9"], lambda: mjkit.score(EXAMPLE, flowers="9")),
    (["score", EXAMPLE, "--rules", "nonesuch"], lambda: mjkit.score(EXAMPLE, rules="nonesuch")),
    (["fans", "--rules", "nonesuch"], lambda: mjkit.fan_table("nonesuch")),
], ids=["chow", "char", "count", "wind", "flowers", "rules", "fans-rules"])
def test_bad_input_exits_2(capsys, argv, call):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    with pytest.raises(mjkit.HandError) as info:
        call()
    option = next((a for a in argv if a in ("--seat", "--flowers")), None)
    if option:  # refused by argparse before any work, naming the option
        assert err.endswith(f"error: argument {option}: {info.value}\n")
    else:
        assert err == f"error: {info.value}\n"


def test_incomplete_hand_exits_1(capsys):
    code, out, err = run(capsys, "score", "[234m]456p789s55mEE 4m")
    assert code == 1
    assert "不是和牌" in out and err == ""
    code, out, _ = run(capsys, "score", "[234m]456p789s55mEE 4m", "--lang", "en")
    assert code == 1
    assert "not a complete hand" in out
    code, out, _ = run(capsys, "score", "[234m]456p789s55mEE 4m", "--json")
    assert code == 1
    assert json.loads(out)["is_win"] is False


def test_usage_error_returns_status(capsys):
    assert main([]) == 2
    assert main(["score"]) == 2
    assert main(["score", EXAMPLE, "--lang", "fr"]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()


def test_fans_lists_81_rows(capsys):
    code, out, _ = run(capsys, "fans")
    assert code == 0
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]
    assert len(rows) == 81 == len(mjkit.fan_table("gb"))
    assert any("大四喜" in r and "Big Four Winds" in r and "88" in r for r in rows)
    code, out, _ = run(capsys, "fans", "--rules", "gb", "--json")
    data = json.loads(out)
    assert data["minimum"] == 8 and len(data["fans"]) == 81


def test_notebooks_without_jupyter(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_jupyter_lab_command", lambda: None)
    code, out, _ = run(capsys, "notebooks")
    assert code == 1
    assert 'pip install -e ".[lab]"' in out
    assert str(ROOT / "notebooks") in out


def test_notebooks_starts_jupyter_lab(capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(cli, "_jupyter_lab_command", lambda: ["jupyter-lab"])
    monkeypatch.setattr(cli.os, "geteuid", lambda: 1000, raising=False)
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd: calls.append(cmd) or 0)
    code, _, _ = run(capsys, "notebooks")
    assert code == 0
    assert calls == [["jupyter-lab", str(ROOT / "notebooks")]]


NOTEBOOKS = str(ROOT / "notebooks")


@pytest.fixture
def launched(monkeypatch):
    """The argv ``mjkit notebooks`` would run (Jupyter Lab is never started)."""
    calls = []
    monkeypatch.setattr(cli, "_jupyter_lab_command", lambda: ["/usr/bin/python3", "-m",
                                                              "jupyterlab"])
    monkeypatch.setattr(cli, "_launch", lambda argv: calls.append(argv) or 0)
    return calls


def as_uid(monkeypatch, uid):
    if uid is None:                       # Windows: no os.geteuid
        monkeypatch.delattr(cli.os, "geteuid", raising=False)
    else:
        monkeypatch.setattr(cli.os, "geteuid", lambda: uid, raising=False)


JUPYTER = ["/usr/bin/python3", "-m", "jupyterlab", NOTEBOOKS]


@pytest.mark.parametrize("uid, root", [(0, ["--allow-root"]), (1000, []), (None, [])],
                         ids=["root", "user", "no-geteuid"])
def test_notebooks_allows_root_only_as_root(capsys, monkeypatch, launched, uid, root):
    as_uid(monkeypatch, uid)
    code, out, err = run(capsys, "notebooks")
    assert code == 0 and err == ""
    assert launched == [JUPYTER + root]
    # the exact command, on one line, before it starts
    assert out.splitlines() == ["Starting Jupyter Lab: " + cli._shell_line(JUPYTER + root)]


@pytest.mark.parametrize("uid", [0, 1000])
def test_notebooks_passes_options_through_in_order(capsys, monkeypatch, launched, uid):
    as_uid(monkeypatch, uid)
    root = ["--allow-root"] if uid == 0 else []
    code, out, _ = run(capsys, "notebooks", "--port", "8890", "--no-browser", "-y",
                       "--ServerApp.token=abc", "--", "--help", "--", "x")
    assert code == 0
    # the first -- is mjkit's separator; what follows, a later -- too, is Jupyter's
    assert launched == [JUPYTER + root + ["--port", "8890", "--no-browser", "-y",
                                          "--ServerApp.token=abc", "--help", "--", "x"]]
    assert out.strip().endswith("--no-browser -y --ServerApp.token=abc --help -- x")


@pytest.mark.parametrize("given", [["--allow-root"], ["--no-browser", "--allow-root"],
                                   ["--ServerApp.allow_root=True"]])
def test_notebooks_does_not_repeat_allow_root(capsys, monkeypatch, launched, given):
    as_uid(monkeypatch, 0)
    code, _, _ = run(capsys, "notebooks", *given)
    assert code == 0
    assert launched == [JUPYTER + given]
    assert sum(a == "--allow-root" or "allow_root" in a for a in launched[0]) == 1


def test_notebooks_help_is_mjkits_and_starts_nothing(capsys, monkeypatch, launched):
    as_uid(monkeypatch, 0)
    code, out, _ = run(capsys, "notebooks", "--help")
    assert code == 0 and launched == []
    assert out.startswith("usage: ") and "notebooks" in out and "--allow-root" in out
    assert "Jupyter Lab" in out and "--port 8890 --no-browser" in out
    code, _, _ = run(capsys, "notebooks", "--he")       # no abbreviation: Jupyter's option
    assert code == 0 and launched == [JUPYTER + ["--allow-root", "--he"]]


@pytest.mark.parametrize("argv", [["fans", "--port", "8890"], ["--no-browser", "notebooks"],
                                  ["score", EXAMPLE, "--no-browser"],
                                  ["simulate", "--allow-root"], ["app", "--", "x"]])
def test_other_commands_still_refuse_unknown_options(capsys, launched, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and launched == []
    assert "error: unrecognized arguments:" in err


def test_notebooks_when_jupyter_cannot_start(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_jupyter_lab_command", lambda: ["/nonexistent/jupyter-lab"])
    code, out, err = run(capsys, "notebooks", "--no-browser")
    assert code == 1 and "could not start Jupyter Lab" in err
    assert "/nonexistent/jupyter-lab" in out and "--no-browser" in out


def test_notebooks_folder_missing(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_notebooks_dir", lambda: None)
    code, _, err = run(capsys, "notebooks")
    assert code == 1
    assert "not found" in err


def test_module_entry_point():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONIOENCODING"] = "utf-8"
    proc = subprocess.run(
        [sys.executable, "-m", "mjkit", *EXAMPLE_ARGS, "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["total"] == 11
    assert "花龙" in [f["zh"] for f in data["fans"]]
    proc = subprocess.run(
        [sys.executable, "-m", "mjkit", "score", "[124m]456p789s55mEE E"],
        cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_waits_command(capsys):
    code, out, err = run(capsys, "waits", "123m234m345m678m9m", "--rules", "dazhong32",
                         "--lang", "en")
    assert code == 0 and "3m (1 left)" in out and "legal" in out
    code, out, _ = run(capsys, "waits", "123m234m345m678m9m", "--rules", "dazhong32", "--json")
    data = json.loads(out)
    assert [w["tile"] for w in data["waits"]] == ["3m", "6m", "9m"] and data["bar"] == 32
    code, out, _ = run(capsys, "waits", "159m159p159sESWN")
    assert code == 1
    code, _, err = run(capsys, "waits", "123m")
    assert code == 2 and "error:" in err


def test_score_dazhong32_options(capsys):
    code, out, _ = run(capsys, "score", "123456789m111pE E", "--rules", "dazhong32",
                       "--self-drawn", "--lianla", "2", "--lang", "en")
    assert code == 0 and "P胡 warning" in out and "1 short" in out
    code, out, _ = run(capsys, "score", "PP 123m456m789m11m 1m", "--rules", "dazhong32",
                       "--self-drawn", "--wild", "P", "--json")
    data = json.loads(out)
    assert data["wild_as"] == ["9m", "9m"] and data["legal"] is True
    code, _, err = run(capsys, "score", "123456789m111pE E", "--rules", "dazhong32")
    assert code == 2 and "self-draw only" in err


def test_distance_and_targets_commands(capsys):
    code, out, _ = run(capsys, "distance", "123m234m345m67m99s")
    assert code == 0 and "1 from a hand worth 32" in out and "12 tiles fit" in out
    code, out, _ = run(capsys, "distance", "123m234m345m678m9m", "--json", "--examples", "2")
    data = json.loads(out)
    assert data["distance"] == 0 and len(data["targets"]) == 2
    assert all(t["counted"] >= 32 for t in data["targets"])
    code, out, _ = run(capsys, "targets", "2468m13579p2468s", "--lang", "zh", "--top", "3")
    assert code == 0 and "7停" in out and "向听" in out
    code, out, _ = run(capsys, "targets", "123m234m345m678m9m", "--json", "--top", "2")
    data = json.loads(out)
    assert data["targets"][0]["distance"] == 0 and "8上" in data["advice"]
    code, _, err = run(capsys, "distance", "123m")
    assert code == 2 and "wrong number of tiles" in err


# --------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------

def test_simulate_command_prints_and_writes(capsys, tmp_path):
    from mjkit.sim import load_results, simulate

    out = tmp_path / "results.csv"
    code, text, err = run(capsys, "simulate", "--rules", "dazhong32", "--levels", "0-8",
                          "--hands", "24", "--seed", "1", "--chunk", "16", "--out", str(out),
                          "--no-progress")
    assert code == 0, err
    # the command line plays the shipped study's players (mjkit.sim.DEFAULT_STUDY)
    api = simulate("dazhong32", levels=range(9), hands=24, seed=1, progress=False,
                   dealer_policy="strong", others_policy="strong_break")
    lines = text.splitlines()
    assert lines[0].startswith("dazhong32: 24 hands per level, seed 1")
    row8 = next(line for line in lines if line.strip().startswith("连8拉8"))
    r = api.loc[8]
    assert f"{r.p_dealer:.4f} [{r.p_dealer_lo:.4f}, {r.p_dealer_hi:.4f}]" in row8
    assert f"{r.p_other:.4f}" in row8 and f"{r.p_drawn_out:.4f}" in row8
    streak = next(line for line in lines if line.startswith("streak"))
    assert f"{api.streak.attrs['expected_length']:.4g}" in streak
    for name in ("results.csv", "results.json", "results.combinations.csv",
                 "results.fan_totals.csv", "results.streak.csv", "results.png"):
        assert (tmp_path / name).exists(), name
    assert (tmp_path / "results.png").read_bytes()[:4] == b"\x89PNG"
    saved = load_results(out)
    pd.testing.assert_frame_equal(pd.DataFrame(saved), pd.DataFrame(api))
    assert saved.params["chunk"] == 16 and saved.params["seed"] == 1
    engine = saved.params["engine"]
    assert (engine["dealer_policy"], engine["others_policy"]) == ("strong", "strong_break")


def test_simulate_command_json_plot_path_and_checkpoint(capsys, tmp_path):
    plot = tmp_path / "fig" / "odds.png"
    ck = tmp_path / "ck"
    argv = ["simulate", "--rules", "gb", "--levels", "0", "--hands", "50", "--plot", str(plot),
            "--checkpoint", str(ck), "--json", "--no-progress", "--wild", "turned",
            "--dealer-policy", "value", "--others-policy", "break"]
    code, text, err = run(capsys, *argv)
    assert code == 0, err
    data = json.loads(text)
    assert data["params"]["rules"] == "gb" and data["streak"] is None
    assert data["params"]["engine"]["wild"] == "turned"
    assert [row["level"] for row in data["levels"]] == [0]
    assert plot.exists() and (ck / "study.json").exists()
    code, text2, _ = run(capsys, *argv)             # resumed from the checkpoint
    assert code == 0 and json.loads(text2)["info"]["chunks_played"] == 0
    assert json.loads(text2)["levels"] == data["levels"]


@pytest.mark.parametrize("argv,msg", [
    (["--levels", "8-0"], "--levels"),
    (["--levels", "a-b"], "--levels"),
    (["--levels", "1,1"], "twice"),
    (["--hands", "0"], "hands must be"),
    (["--rules", "gb", "--levels", "0-2"], "连拉"),
    (["--dealer-policy", "magic"], "policy"),
    (["--wild", "3f"], "a flower cannot be the wild tile"),
    (["--out", "results.txt"], ".csv"),
    (["--default", "--hands", "5"], "--default plays the default study: drop --hands"),
    (["--default", "--no-claims"], ", --no-claims"),
])
def test_simulate_command_bad_input(capsys, argv, msg):
    code, out, err = run(capsys, "simulate", "--no-progress", "--hands", "5", *argv) \
        if "--hands" not in argv else run(capsys, "simulate", "--no-progress", *argv)
    assert code == 2
    assert err.startswith("error: ") and msg in err and "Traceback" not in err


def test_simulate_default_writes_what_default_study_loads(capsys, tmp_path, monkeypatch):
    from mjkit.sim import default_study, results

    monkeypatch.setenv("MJKIT_RESULTS_DIR", str(tmp_path))
    monkeypatch.setitem(results.DEFAULT_STUDY, "levels", [8])
    monkeypatch.setitem(results.DEFAULT_STUDY, "hands", 50)
    code, text, err = run(capsys, "simulate", "--default", "--no-progress")
    assert code == 0, err
    assert (tmp_path / "default.json").exists() and (tmp_path / "default.png").exists()
    assert (tmp_path / "default.checkpoint" / "study.json").exists()
    table = default_study()
    assert table.params["hands"] == 50 and table.params["levels"] == [8]
    assert f"{table.loc[8, 'p_dealer']:.4f}" in text


def test_simulate_without_claims_is_recorded(capsys, tmp_path):
    out = tmp_path / "solo.csv"
    code, text, err = run(capsys, "simulate", "--no-progress", "--no-plot", "--levels", "8",
                          "--hands", "40", "--solitaire", "--no-claims", "--json",
                          "--out", str(out))
    assert code == 0, err
    from mjkit.sim import load_results
    table = load_results(out)
    assert table.params["engine"]["claims"] is False
    assert table.params["engine"]["solitaire"] is True
    assert "no claims" in table.summary()


def test_simulate_exchange_and_dealer_draws_options(capsys, tmp_path):
    from mjkit.sim import load_results

    out = tmp_path / "reach.csv"
    code, text, err = run(capsys, "simulate", "--no-progress", "--no-plot", "--levels", "8",
                          "--hands", "40", "--solitaire", "--no-claims", "--exhaust", "144",
                          "--dealer-draws", "9", "--json", "--out", str(out))
    assert code == 0, err
    engine = load_results(out).params["engine"]
    assert engine["dealer_draws"] == 9 and engine["exchange"] is True   # the 大众 table's
    code, text, err = run(capsys, "simulate", "--no-progress", "--no-plot", "--levels", "8",
                          "--hands", "40", "--no-exchange", "--json")
    assert code == 0, err
    assert json.loads(text)["params"]["engine"]["exchange"] is False
    code, text, err = run(capsys, "simulate", "--levels", "8", "--dealer-draws", "0")
    assert code == 2 and "--dealer-draws" in err
    code, text, err = run(capsys, "simulate", "--default", "--no-exchange")
    assert code == 2 and "--no-exchange" in err


# --------------------------------------------------------------------------
# one vocabulary: the options shared by several sub-commands
# --------------------------------------------------------------------------

def sub_parsers():
    """``{name: parser}`` of every sub-command of the real parser."""
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options_of(parser):
    return {s: a for a in parser._actions for s in a.option_strings if s not in ("-h", "--help")}


def spelling(action, command=None):
    """What a user sees and gets of an option: all must match across sub-commands."""
    d = {"dest": action.dest, "default": action.default, "metavar": action.metavar,
         "help": action.help, "type": getattr(action.type, "__name__", action.type),
         "choices": action.choices, "nargs": action.nargs, "kind": type(action).__name__,
         "strings": list(action.option_strings)}
    if command == "simulate" and action.dest in cli._STUDY_OPTIONS:
        # None until given, so that --default can refuse it; the help (compared) states
        # the default the command applies
        assert action.default is None, action.dest
        del d["default"]
    return d


# The defaults that differ on purpose, each with the words of its reason in the help:
# (command, option): (default shown in the help, words of the reason).
DOCUMENTED = {
    ("distance", "--rules"): ("dazhong32", "32-fan bar"),
    ("targets", "--rules"): ("dazhong32", "32-fan bar"),
    ("advise", "--rules"): ("dazhong32", "32-fan bar"),
    ("simulate", "--rules"): ("dazhong32", "大众32番连拉's dealer streaks"),
    ("distance", "--lang"): ("en", "summary()"),
    ("targets", "--lang"): ("en", "summary()"),
    ("advise", "--lang"): ("en", "summary()"),
    ("simulate", "--wild"): ("the rule set's table", "the simulator deals the wall"),
}


def test_shared_options_are_spelled_alike_in_every_sub_command():
    subs = sub_parsers()
    assert set(subs) == {"score", "waits", "distance", "targets", "advise", "fans",
                         "simulate", "notebooks", "app"}
    where = {}
    for name, p in subs.items():
        for option, action in options_of(p).items():
            where.setdefault(option, {})[name] = action
    shared = {o: by for o, by in where.items() if len(by) > 1}
    assert {"--rules", "--lang", "--json", "--lianla", "--wild", "--visible", "--seat",
            "--round", "--seat-wind", "--round-wind", "--seed", "--min-fans",
            "--self-drawn"} <= set(shared)
    for option, by in shared.items():
        usual = {name: spelling(a, name) for name, a in by.items()
                 if (name, option) not in DOCUMENTED}
        ref = max(usual.values(), key=len)          # one with its default
        for name, got in usual.items():
            assert got == {k: ref[k] for k in got}, (option, name, got, ref)
        for name, a in by.items():
            if (name, option) not in DOCUMENTED:
                continue
            shown, reason = DOCUMENTED[name, option]
            got = spelling(a, name)
            assert {k: v for k, v in got.items() if k not in ("help", "default", "type")} == \
                {k: v for k, v in ref.items() if k not in ("help", "default", "type")}, name
            # same wording up to the default, then the default and its reason
            lead = ref["help"].split(" (default: ")[0]
            assert got["help"].startswith(lead), (name, option, got["help"])
            assert f"(default: {shown}" in got["help"] and reason in got["help"], got["help"]
            assert got["help"] != ref["help"]
            if "default" in got:
                assert got["default"] == shown
    # the reference spellings themselves
    rules = spelling(shared["--rules"]["score"])
    assert (rules["dest"], rules["default"], rules["metavar"]) == ("rules", "gb", "RULES")
    assert rules["help"] == "rule set: gb, dazhong or dazhong32 (default: gb)"
    assert spelling(shared["--rules"]["fans"]) == rules
    lang = spelling(shared["--lang"]["app"])
    assert (lang["dest"], lang["default"], lang["metavar"]) == ("lang", "zh", "{zh,en}")
    assert lang["help"] == "language of the output: zh or en (default: zh)"
    for name in ("score", "waits", "fans"):
        assert spelling(shared["--lang"][name]) == lang
    lianla = spelling(shared["--lianla"]["distance"])
    assert (lianla["default"], lianla["metavar"]) == (0, "N") and "(default: 0)" in lianla["help"]
    assert set(shared["--lianla"]) == {"score", "waits", "distance", "targets", "advise"}
    seed = shared["--seed"]
    assert set(seed) == {"simulate", "app"}
    assert seed["app"].default == 0 and seed["simulate"].default is None   # see below
    assert seed["app"].help == seed["simulate"].help and "(default: 0)" in seed["app"].help
    wild = spelling(shared["--wild"]["advise"])
    assert wild["help"] == "the wild tile (财神) of the game, e.g. P (default: none)"
    for option, dest in (("--seat", "seat_wind"), ("--round", "round_wind")):
        assert set(shared[option]) == {"score", "waits", "distance", "advise"}
        a = spelling(shared[option]["score"])
        assert (a["dest"], a["default"], a["metavar"]) == (dest, None, "WIND")
        assert a["help"].endswith(f"E S W N; also {option}-wind (default: E)")
        alias = shared[option + "-wind"]
        assert set(alias) == set(shared[option])
        assert all(x.dest == dest and x.help == argparse.SUPPRESS for x in alias.values())


def test_simulate_study_options_are_none_until_given():
    # simulate's study options default to None (not given), so --default can refuse them;
    # their help states the default the command applies
    opts = options_of(sub_parsers()["simulate"])
    for dest in cli._STUDY_OPTIONS:
        action = next(a for a in opts.values() if a.dest == dest)
        assert action.default is None, dest
        if action.nargs != 0:                   # an option with a value, not a flag
            assert "default" in action.help, dest
    assert "(default: 0)" in opts["--seed"].help
    assert "(default: dazhong32" in opts["--rules"].help


@pytest.mark.parametrize("command, hand", [
    ("score", EXAMPLE), ("waits", "123m234m345m678m9m"),
    ("distance", "123m234m345m678m9m"), ("advise", "123m234m345m67m99sE")])
def test_seat_and_round_and_their_wind_aliases_parse_alike(command, hand):
    parser = cli.build_parser()
    for argv in (["--seat", "S", "--round", "W"], ["--seat-wind", "S", "--round-wind", "W"],
                 ["--seat=S", "--round-wind=W"], ["--seat-wind", "N", "--seat", "S",
                                                  "--round", "W"]):
        args = parser.parse_args([command, hand, *argv])
        assert (args.seat_wind, args.round_wind) == ("S", "W"), argv
    args = parser.parse_args([command, hand])
    assert (args.seat_wind, args.round_wind) == (None, None)


def test_bad_wind_alias_names_the_option_typed(capsys):
    with pytest.raises(mjkit.HandError) as seat:
        mjkit.distance_to("123m234m345m678m9m", seat_wind="Q")
    with pytest.raises(mjkit.HandError) as rnd:
        mjkit.advise("123m234m345m67m99sE", round_wind="Q")
    code, out, err = run(capsys, "distance", "123m234m345m678m9m", "--seat-wind", "Q")
    assert code == 2 and out == ""
    assert err.endswith(f"error: argument --seat-wind: {seat.value}\n")
    code, out, err = run(capsys, "advise", "123m234m345m67m99sE", "--round", "Q")
    assert code == 2 and err.endswith(f"error: argument --round: {rnd.value}\n")


@pytest.mark.parametrize("command, api, hand", [
    ("distance", "distance_to", "123m234m345m678m9m"),
    ("advise", "advise", "123m234m345m67m99sE"),
    ("score", "score", EXAMPLE),
    ("waits", "waits", "123m234m345m678m9m")])
def test_winds_reach_the_python_api(capsys, monkeypatch, command, api, hand):
    seen = []

    def fake(*args, **kwargs):
        seen.append(kwargs)
        raise mjkit.HandError("stopped by the test")

    monkeypatch.setattr(mjkit, api, fake)
    assert main([command, hand, "--seat-wind", "S", "--round", "W"]) == 2
    assert main([command, hand]) == 2
    assert "stopped by the test" in capsys.readouterr().err
    assert (seen[0]["seat_wind"], seen[0]["round_wind"]) == ("S", "W")
    # not given: the API's own default (E), or for score the hand's | seat= situation
    assert "seat_wind" not in seen[1] and "round_wind" not in seen[1]


def test_lang_is_checked_alike_everywhere(capsys):
    for argv in (["fans"], ["score", EXAMPLE], ["distance", "123m"], ["app"]):
        code, out, err = run(capsys, *argv, "--lang", "fr")
        assert code == 2 and out == ""
        assert "argument --lang: --lang must be zh or en" in err, argv
