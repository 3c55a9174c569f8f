"""One home for each piece of infrastructure, and the seams between modules.

* no module imports another mjkit module's private (``_x``) names, and only
  the command line's own entry point imports :mod:`mjkit.cli`;
* files are written only by :mod:`mjkit.storage` (atomic writes);
* :class:`mjkit.HandError` carries a documented machine-readable ``code``;
* the argument validators of :mod:`mjkit.validate`, the locations of
  :mod:`mjkit.locations`, the zh/en catalogue of :mod:`mjkit.messages` and
  the text tables of :mod:`mjkit.text_table` behave as documented.
"""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import mjkit
from mjkit import locations, messages, text_table, validate
from mjkit.errors import CODES, HandError

PACKAGE = Path(mjkit.__file__).resolve().parent
SOURCES = sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    name = ".".join(parts)
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


MODULES = {_module_name(p) for p in SOURCES}


def _imports(path: Path):
    """``(line, imported module, name or None)`` of every import in ``path`` (relative resolved)."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                yield node.lineno, target, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_module_imports_another_modules_private_names():
    """Shared helpers are promoted (public name in their home), never imported as ``_x``.

    Private *modules* (``mjkit._cache``, ``mjkit._kernels``) are the package's
    internal layer and may be imported; their private names may not.
    """
    bad = []
    for path in SOURCES:
        here = _module_name(path)
        for line, target, name in _imports(path):
            if not target.startswith("mjkit") or name is None:
                continue
            if f"{target}.{name}" in MODULES:       # a (sub)module, not a name inside one
                continue
            if _private(name) and target != here:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}: from {target} "
                           f"import {name}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_no_module_reads_another_modules_private_attributes():
    """``from . import hand; hand._as_wind(...)`` is the same private import in disguise."""
    bad = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = _module_name(path)
        bound = {}
        for line, target, name in _imports(path):
            if name is not None and f"{target}.{name}" in MODULES:
                bound[name] = f"{target}.{name}"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.asname and alias.name in bound:
                        bound[alias.asname] = bound[alias.name]
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and _private(node.attr)
                    and bound[node.value.id] != here
                    and f"{bound[node.value.id]}.{node.attr}" not in MODULES):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                           f"{node.value.id}.{node.attr}")
    assert not bad, "private attributes of other modules read:\n" + "\n".join(bad)


def test_the_library_never_imports_the_command_line():
    allowed = {"mjkit.cli", "mjkit.__main__"}       # the CLI itself and `python -m mjkit`
    bad = []
    for path in SOURCES:
        if _module_name(path) in allowed:
            continue
        for line, target, name in _imports(path):
            if target == "mjkit.cli" or target.startswith("mjkit.cli.") or \
                    (target == "mjkit" and name == "cli"):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert not bad, "library modules importing mjkit.cli:\n" + "\n".join(bad)


# Calls that write or replace a file: only mjkit.storage may make them (one atomic
# implementation: a temporary file in the same folder, fsync, rename).
_WRITERS = re.compile(r"\bos\.(replace|rename)\(|\.rename\(|NamedTemporaryFile|mkstemp\(|"
                      r"\.write_text\(|\.write_bytes\(|savefig\((?!fh\b)|"
                      r"open\([^)]*[\"'][wax]b?[\"']")


def test_files_are_written_only_through_storage():
    bad = []
    for path in SOURCES:
        if path.name == "storage.py" and path.parent == PACKAGE:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _WRITERS.search(code) and "os.devnull" not in code:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{i}: {line.strip()}")
    assert not bad, "files written outside mjkit.storage:\n" + "\n".join(bad)


# ---------------------------------------------------------------- HandError.code

def test_hand_error_code_default_and_pickling():
    assert HandError("x").code == "bad_argument"
    e = pickle.loads(pickle.dumps(HandError("bad", code="syntax")))
    assert (e.code, str(e)) == ("syntax", "bad")
    with pytest.raises(ValueError, match="unknown HandError code"):
        HandError("x", code="no_such_code")


def test_every_code_is_documented():
    doc = HandError.__doc__
    for code in CODES:
        assert f'``"{code}"``' in doc, code


@pytest.mark.parametrize("text, code", [
    ("123m456p789s1111z1z", "too_many_copies"),
    ("123m456p789s11z", "tile_count"),
    ("123m456p789s11x22z", "syntax"),
    ("123m456p789s119z 1z", "unknown_tile"),
    ("[124m]456p789s1122z", "bad_meld"),
    ("[123m]456p789s11122z | seat=S seat=N", "bad_flag"),
    ("[123m]456p789s11122z | heavenly_hand self_drawn", "bad_flag"),
    ("123m456p789s11m222z | win_tile=3p", "win_tile"),
    ("123m[456p", "syntax"),
])
def test_hand_checks_carry_their_code(text, code):
    with pytest.raises(HandError) as info:
        mjkit.parse_hand(text)
    assert info.value.code == code, str(info.value)


def test_wrapped_errors_keep_their_code():
    with pytest.raises(HandError) as info:
        validate.wild_kind("9z")
    assert info.value.code == "unknown_tile"
    with pytest.raises(HandError) as info:
        validate.flowers("1f1x")
    assert info.value.code == "syntax"


# ---------------------------------------------------------------- validators

@pytest.mark.parametrize("x, want", [("E", 0), ("south", 1), ("西", 2), (" N ", 3), (3, 3),
                                     (np.int8(1), 1)])
def test_wind(x, want):
    assert validate.wind(x, "seat_wind") == want


@pytest.mark.parametrize("x", ["1", True, 4, -1, 1.0, None, "Q"])
def test_wind_refused_names_the_argument(x):
    with pytest.raises(HandError, match="for seat_wind"):
        validate.wind(x, "seat_wind")


@pytest.mark.parametrize("x, want", [(True, True), (np.bool_(False), False), (1, True), (0, False)])
def test_boolean(x, want):
    assert validate.boolean(x, "flag") is want


@pytest.mark.parametrize("x", [2, "yes", None, 0.5])
def test_boolean_refused(x):
    with pytest.raises(HandError, match="flag must be True or False"):
        validate.boolean(x, "flag")


def test_flowers_and_wild_kind():
    assert validate.flowers(3) == 3 and validate.flowers(" 0 ") == 0
    assert validate.flowers("1f3f") == [34, 36] and validate.flowers(["2f", 41]) == [35, 41]
    for bad in (9, "", True, "5m", [3]):
        with pytest.raises(HandError):
            validate.flowers(bad)
    assert validate.wild_kind(None) == -1 and validate.wild_kind(" P ") == 31
    assert validate.wild_kind(np.int64(4)) == 4
    for bad in ("3f", 34, True, 1.0):
        with pytest.raises(HandError, match="wild"):
            validate.wild_kind(bad)


def test_decimal_and_levels():
    assert validate.decimal(" +12 ", "n") == 12
    for bad in ("1e3", "", "٣", "1" * 21, "0x10"):
        with pytest.raises(HandError, match="n must be a whole number"):
            validate.decimal(bad, "n")
    assert validate.levels(3) == [3] and validate.levels((5, 0, 2)) == [0, 2, 5]
    for bad, what in (("0-8", "whole numbers"), ([], "at least one"), ([1, 1], "not repeat"),
                      ([-1], ">= 0")):
        with pytest.raises(HandError, match=what):
            validate.levels(bad)
    assert validate.levels_text("0-3,8") == [0, 1, 2, 3, 8]
    for bad, what in (("8-0", "low-high"), ("a", "list of levels"), ("1,1", "twice"),
                      ("0-1000000000", "goes past")):
        with pytest.raises(HandError, match=what):
            validate.levels_text(bad)


# ---------------------------------------------------------------- locations

def test_data_files_are_found():
    assert locations.data_file("fans.csv").is_file()
    assert locations.data_file("targets.csv").is_file()
    assert locations.data_file("exact").is_dir()
    assert locations.PACKAGE == PACKAGE


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    assert locations.cache_dir() == tmp_path
    monkeypatch.setenv("MJKIT_CACHE_DIR", "  ")
    assert locations.cache_dir() is None
    monkeypatch.delenv("MJKIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert locations.cache_dir() == tmp_path / "mjkit"


def test_no_module_locates_package_files_itself():
    """Only locations.py works out where the package is from ``__file__``."""
    bad = [f"{p.relative_to(PACKAGE.parent)}" for p in SOURCES
           if p.name != "locations.py" and "Path(__file__)" in p.read_text(encoding="utf-8")]
    # the app's notebook sits beside its own module
    assert bad in ([], ["mjkit/app/__init__.py"]), bad


# ---------------------------------------------------------------- messages

def test_message_catalogue_has_both_languages():
    for key in messages._CATALOGUE:         # noqa: SLF001 - the test reads the table itself
        zh, en = (messages.value(key, lang) for lang in messages.LANGS)
        assert type(zh) is type(en), key
        assert zh and (en or isinstance(en, dict)), key   # cli.forms: English keeps the names


def test_message_lookup():
    assert messages.text("quiz.prompt.total", "en") == "How many fans in all?"
    assert messages.text("view.short", "zh", n=3) == "差 3 番"
    assert messages.value("cli.head", "zh")[0] == "番种"
    assert messages.section("cli", "en")["rules"] == "rules"
    for bad in (("quiz.prompt.total", "fr"), ("no.such.key", "zh"), ("cli.head", "zh")):
        with pytest.raises(HandError) as info:
            messages.text(*bad)
        assert info.value.code == "unknown_name"


def test_verdicts_come_from_the_catalogue():
    r = mjkit.score("123m456p789s123m5p 5p")
    if r.legal:
        assert r.verdict("en") == f"Legal win: {r.hand_points} counted fans, {r.bar} needed."
    else:
        assert r.verdict("zh").startswith(f"P胡警告：计番 {r.hand_points}，起和需 {r.bar}")
    assert r.verdict("fr") == r.verdict("en")          # any other value reads English
    bad = mjkit.score("123m456p789s124m5p 5p")
    assert bad.verdict("zh") == messages.text("score.verdict.not_win", "zh")


# ---------------------------------------------------------------- text tables

def test_text_table_aligns_by_display_width():
    assert text_table.width("番种ab") == 6
    lines = text_table.table(("名", "n"), [["清一色", "24"], ["x", "8"]], right=(1,))
    assert lines == ["  名       n", "  ------  --", "  清一色  24", "  x        8"]


def test_every_package_is_shipped():
    """A non-editable install carries every package of mjkit (pyproject lists them by name:
    ``mjkit.table`` was missing, so ``pip install .`` had no Table)."""
    import tomllib

    conf = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {_module_name(p) for p in PACKAGE.rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set()
