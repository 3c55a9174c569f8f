"""The classroom web app: the quiz and the hand builder served by Voila.

``python -m mjkit app`` runs ``voila`` on :data:`NOTEBOOK` (shipped inside
the package, so it works from any install with the ``app`` extra).  The
teacher's choices travel as environment variables the notebook reads:
``MJKIT_QUIZ_SEED``, ``MJKIT_QUIZ_N``, ``MJKIT_QUIZ_DIFFICULTY``,
``MJKIT_QUIZ_LANG``.
"""

from pathlib import Path

#: The app notebook.
NOTEBOOK = Path(__file__).resolve().parent / "classroom.ipynb"


def voila_command(port=8866, *, browser=False):
    """The command line that serves the app (a list for :mod:`subprocess`)."""
    import sys

    cmd = [sys.executable, "-m", "voila", str(NOTEBOOK), f"--port={int(port)}",
           "--Voila.ip=127.0.0.1", "--show_tracebacks=True"]
    if not browser:
        cmd.append("--no-browser")
    return cmd
