"""mjkit: Chinese mahjong fan evaluator, reach analysis and teaching tools."""

__version__ = "0.1.0"

# Before any kernel is defined: numba must have somewhere to cache them.
from . import _numba_cache

_numba_cache.ensure()

from .errors import HandError
from .hand import Hand, Meld, parse_hand
from .rules import RuleSet, get_rules, rule_names, threshold
from .score import BatchResult, HandBatch, ScoreResult, fan_table, score, score_batch
from .reach import waits
from .distance import DistanceResult, distance_to
from .targets import TargetsResult, target_catalogue, targets
from .advise import Advice, advise  # the function shadows the submodule, as shanten's
# The function shadows the submodule of the same name as an attribute of
# mjkit; "from mjkit.shanten import shanten_batch" still reaches the module.
from .shanten import ShantenBatch, ShantenResult, shanten, shanten_batch

__all__ = [
    "HandError", "Hand", "Meld", "parse_hand", "RuleSet", "get_rules", "rule_names", "threshold",
    "score",
    "score_batch", "HandBatch", "BatchResult", "ScoreResult", "fan_table", "waits", "shanten",
    "shanten_batch", "ShantenResult", "ShantenBatch", "distance_to", "DistanceResult",
    "targets", "target_catalogue", "TargetsResult", "advise", "Advice", "simulate",
    "Table", "Session", "__version__",
]


def __getattr__(name):
    # mjkit.exact loads on first use: `python -m mjkit.exact` must not find it
    # imported already, and most users never need it.
    if name == "exact":
        import importlib

        return importlib.import_module(".exact", __name__)
    # mjkit.simulate (the study of mjkit.sim) loads the game kernels on first use.
    if name == "simulate":
        from .sim import simulate

        return simulate
    # mjkit.Table and mjkit.Session (mjkit.table) load the game kernels on first use too.
    if name in ("Table", "Session"):
        from . import table

        return getattr(table, name)
    if name == "bot":
        import importlib

        return importlib.import_module(".bot", __name__)
    raise AttributeError(f"module 'mjkit' has no attribute {name!r}")
