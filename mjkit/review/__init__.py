"""Learning from play: the coach's numbers during a hand and the review after it.

* :func:`rate` / :func:`coach` — every option of one decision with its chance of a legal
  win (the advisor's, on exactly what the player saw), the engine's choice, and whether
  declaring is legal at the bar (:mod:`.rating`);
* :func:`review` — every decision of a finished hand rated, the costliest first, with
  totals, CSV and HTML (:mod:`.review`).
"""

from .position import Position, position
from .rating import COSTLY, Option, Rating, WinCheck, rate
from .review import Decision, Review, review

__all__ = ["COSTLY", "Decision", "Option", "Position", "Rating", "Review", "WinCheck",
           "coach", "position", "rate", "review"]


def coach(observation, legal, *, mode="fast", engine="strong"):
    """The coach's view of the decision the player of ``observation`` faces: :func:`rate`
    with no action taken yet (every option's ``p_win``, the best, the engine's choice and,
    at a complete hand, the win check against the bar)."""
    return rate(observation, legal, None, mode=mode, engine=engine)
