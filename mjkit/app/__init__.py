"""The classroom web app: the quiz and the hand builder served by Voila.

``python -m mjkit app`` checks its options (:func:`server.check_options`)
and serves :data:`NOTEBOOK` (shipped inside the package, so it works from
any install with the ``app`` extra) through :func:`server.serve`: only on
127.0.0.1, only to the host names it serves, at most ``--max-kernels``
students at once, idle kernels stopped after ``--idle-timeout`` seconds,
no tracebacks, and every process stopped on SIGTERM/SIGINT.  Quiz results
go to each student as a browser download; the teacher's copies are written
by the server into ``--results DIR`` (see :mod:`mjkit.app.server`).
"""

from pathlib import Path

__all__ = ["NOTEBOOK"]

#: The app notebook.
NOTEBOOK = Path(__file__).resolve().parent / "classroom.ipynb"
