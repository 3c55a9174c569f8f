"""The classroom quiz as a widget: one question at a time, instant feedback, a score.

All the checking is :class:`mjkit.quiz.Quiz`; this module shows the hand,
the question and the right control (fan names to tick, a number, yes/no),
and wires the buttons.
"""

from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as W

from ..errors import HandError
from ..pictures import hand_svg
from ..quiz import DIFFICULTIES, Quiz

__all__ = ["QuizWidget"]


class QuizWidget:
    """A seeded quiz for a class (see :class:`mjkit.quiz.Quiz` for the parameters).

    Attributes
    ----------
    quiz : Quiz
    index : int
        The question shown (0-based).
    widget : ipywidgets.VBox
    """

    def __init__(self, n=10, *, seed=0, difficulty="medium", rules="dazhong32", lianla=2,
                 lang="zh"):
        self.lang = lang
        self.seed = W.BoundedIntText(description="seed", value=seed, min=0, max=10**9,
                                     layout=W.Layout(width="180px"))
        self.difficulty = W.ToggleButtons(options=list(DIFFICULTIES), value=difficulty)
        self.new_button = W.Button(description="new quiz" if lang == "en" else "新测验")
        self.new_button.on_click(lambda _: self.restart())
        self.header = W.HTML()
        self.hand = W.HTML()
        self.prompt = W.HTML()
        # one toggle per choice: a click selects or drops a fan (no ctrl-click needed)
        self.fan_buttons = []
        self.fans = W.GridBox(layout=W.Layout(grid_template_columns="repeat(4, 150px)"))
        self.total = W.IntText(description="total" if lang == "en" else "合计",
                               layout=W.Layout(width="180px"))
        self.legal = W.ToggleButtons(options=[("yes 可以", "yes"), ("no 不可以", "no")],
                                     value=None)
        self.answer_box = W.Box()
        self.check_button = W.Button(description="check" if lang == "en" else "检查",
                                     button_style="primary")
        self.check_button.on_click(lambda _: self.check())
        self.next_button = W.Button(description="next" if lang == "en" else "下一题")
        self.next_button.on_click(lambda _: self.go(self.index + 1))
        self.feedback = W.HTML()
        self.export_path = W.Text(value="quiz-results.csv", layout=W.Layout(width="220px"))
        self.export_button = W.Button(description="export CSV" if lang == "en" else "导出CSV")
        self.export_button.on_click(lambda _: self.export())
        self.widget = W.VBox([
            W.HBox([self.seed, self.difficulty, self.new_button]), self.header, self.hand,
            self.prompt, self.answer_box, W.HBox([self.check_button, self.next_button]),
            self.feedback, W.HBox([self.export_path, self.export_button])])
        self._rules, self._lianla, self._n = rules, lianla, n
        self.quiz = Quiz(n, seed=seed, difficulty=difficulty, rules=rules, lianla=lianla)
        self.go(0)

    # -- actions -----------------------------------------------------------------

    def restart(self):
        """A new quiz from the seed and difficulty controls."""
        self.quiz = Quiz(self._n, seed=int(self.seed.value), difficulty=self.difficulty.value,
                         rules=self._rules, lianla=self._lianla)
        self.go(0)

    def go(self, index):
        """Show question ``index`` (past the last: the final score)."""
        self.index = index
        self.feedback.value = ""
        correct, answered = self.quiz.score
        self.header.value = (f"<b>{min(index + 1, len(self.quiz))} / {len(self.quiz)}</b> · "
                             f"{'score' if self.lang == 'en' else '得分'} {correct} / {answered}")
        if index >= len(self.quiz):
            self.hand.value = ""
            self.prompt.value = ("<b>Done!</b>" if self.lang == "en" else "<b>完成！</b>")
            self.answer_box.children = []
            self.check_button.disabled = self.next_button.disabled = True
            return
        q = self.quiz[index]
        self.check_button.disabled = False
        self.next_button.disabled = index + 1 > len(self.quiz)
        self.hand.value = (hand_svg(q.hand, lang=self.lang)
                           + f"<div style='color:#555'>{html.escape(q.hand)}</div>")
        self.prompt.value = f"<b>{html.escape(q.prompt(self.lang))}</b>"
        if q.kind == "fans":
            self.fan_buttons = [W.ToggleButton(description=name, value=False,
                                               layout=W.Layout(width="145px"))
                                for name in q.choices]
            self.fans.children = self.fan_buttons
            self.answer_box.children = [self.fans]
        elif q.kind == "total":
            self.total.value = 0
            self.answer_box.children = [self.total]
        else:
            self.legal.value = None
            self.answer_box.children = [self.legal]

    def response(self):
        """The answer the controls hold for the current question."""
        q = self.quiz[self.index]
        if q.kind == "fans":
            return [b.description for b in self.fan_buttons if b.value]
        if q.kind == "total":
            return self.total.value
        if self.legal.value is None:
            raise HandError("choose yes or no" if self.lang == "en" else "请选择可以或不可以")
        return self.legal.value

    def check(self):
        """Check the current answer and show the explanation."""
        if self.index >= len(self.quiz):
            return None
        try:
            fb = self.quiz.answer(self.index, self.response(), self.lang)
        except HandError as exc:
            self.feedback.value = f"<span style='color:#b00'>{html.escape(str(exc))}</span>"
            return None
        colour = "#2a7" if fb.correct else "#c33"
        word = ("Right!" if fb.correct else "Not quite.") if self.lang == "en" else \
            ("正确！" if fb.correct else "不对。")
        self.feedback.value = (f"<div style='color:{colour}'><b>{word}</b></div>"
                               f"<div>{html.escape(fb.explanation)}</div>")
        correct, answered = self.quiz.score
        self.header.value = (f"<b>{self.index + 1} / {len(self.quiz)}</b> · "
                             f"{'score' if self.lang == 'en' else '得分'} {correct} / {answered}")
        return fb

    def export(self, path=None):
        """Write the answers as CSV (to ``path`` or the path box); returns the path."""
        target = Path(path or self.export_path.value)
        self.quiz.to_csv(target)
        self.feedback.value = f"<span>wrote {html.escape(str(target))}</span>"
        return target

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
