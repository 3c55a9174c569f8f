"""Monte Carlo simulation of whole hands: win and streak odds at each 连N拉N level.

:func:`play_hands` plays seeded hands with the numba game kernel; every win
is scored by the evaluator and must reach the bar (no P胡).  :func:`simulate`
plays every level and tabulates the odds with 95% intervals;
:func:`streak_chain` turns them into the chance of reaching each 连N拉N.
"""

from .engine import POLICIES, HandRecords, play_hands
from .study import simulate, streak_chain, wilson

__all__ = ["POLICIES", "HandRecords", "play_hands", "simulate", "streak_chain", "wilson"]
