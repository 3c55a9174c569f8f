"""Jupyter widgets: build a hand by clicking tiles and watch its fans appear.

The widgets only wire controls: the state lives in :mod:`.state`, what the
fan view shows is computed by :mod:`.view` with the same evaluator as
:func:`mjkit.score`.
"""

from .state import BuilderState
from .view import FanView, fan_view


def __getattr__(name):          # ipywidgets only when a widget is asked for
    if name == "HandBuilder":
        from .builder import HandBuilder

        return HandBuilder
    if name == "CombinationExplorer":
        from .explorer import CombinationExplorer

        return CombinationExplorer
    if name == "QuizWidget":
        from .quiz import QuizWidget

        return QuizWidget
    if name == "PlayTable":
        from .play import PlayTable

        return PlayTable
    raise AttributeError(name)


__all__ = ["BuilderState", "CombinationExplorer", "FanView", "fan_view", "HandBuilder",
           "PlayTable", "QuizWidget"]
