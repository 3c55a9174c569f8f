"""Every notebook in ``notebooks/`` runs, and is committed without outputs.

Running needs nbclient, nbformat and ipykernel (the ``test`` / ``lab``
extras); without them the execution test is skipped.  The random-hand
sections are run small through ``MJKIT_NB_SIZE``.
"""

import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds per cell
NB_SIZE = "300"


def _ids(paths):
    return [p.name for p in paths]


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_committed_without_outputs(path):
    # Plain JSON, so this check needs no Jupyter package.
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
             and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, (f"{path.name}: code cells {dirty} have outputs or execution counts; "
                       "clear all outputs before committing")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs(path, monkeypatch):
    nbformat = pytest.importorskip(
        "nbformat", reason="nbformat is not installed (pip install -e \".[test]\")")
    nbclient = pytest.importorskip(
        "nbclient", reason="nbclient is not installed (pip install -e \".[test]\")")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (no python3 kernel)")
    from nbclient.exceptions import CellExecutionError

    # The kernel inherits this environment: run small, find this checkout of
    # mjkit even if it is not installed, and draw with a non-GUI backend.
    monkeypatch.setenv("MJKIT_NB_SIZE", NB_SIZE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}})
    error = None
    try:
        client.execute()
    except CellExecutionError as exc:
        error = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # drop terminal colours
    if error is not None:
        pytest.fail(f"{path.name}: a cell raised:\n{error}", pytrace=False)
