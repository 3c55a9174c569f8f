"""Monte Carlo simulation of whole hands: win and streak odds at each 连N拉N level.

:func:`play_hands` plays seeded hands with the numba game kernel; every win
is scored by the evaluator and must reach the bar (no P胡).  :func:`simulate`
plays every level in chunks (all cores, or a Dask cluster; checkpoints so a
killed run resumes) and tabulates the odds with 95% intervals, the fan totals
and the fan combinations of the wins (:class:`StudyTable`);
:func:`streak_chain` turns them into the chance of reaching each 连N拉N;
:func:`reach_study` is the one-player version (a player alone on its own draws).
:func:`load_results` and :func:`default_study` read saved studies.
"""

from .engine import POLICIES, HandRecords, play_hands
from .policy import UserPolicy, user_policy
from .study import reach_study, simulate, streak_chain, wilson
from .combos import study_combinations
from .results import DEFAULT_STUDY, StudyTable, default_study, load_results, results_dir

__all__ = ["POLICIES", "HandRecords", "play_hands", "UserPolicy", "user_policy", "simulate",
           "reach_study", "streak_chain", "wilson", "study_combinations", "StudyTable",
           "load_results", "default_study", "results_dir", "DEFAULT_STUDY"]
