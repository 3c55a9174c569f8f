"""The classroom quiz as a widget: one question at a time, instant feedback, a score.

All the checking is :class:`mjkit.quiz.Quiz`; this module shows the hand,
the question and the right control (fan names to tick, a number, yes/no),
and wires the buttons.

Results leave the widget in two ways, neither of which takes a path from
the person answering: the "export CSV" link is a browser download (a
``data:`` URI rebuilt after every answer, so nothing is written on the
server), and, when Python code gives ``results_dir`` (the app's server
does), the teacher's copy is written there after every answer under a name
the widget makes: ``quiz-<seed>-<difficulty>-<UTC time>-<random>.csv``.
The served app records instead: ``recorder`` (a
:class:`mjkit.app.classdb.StudentRecorder`) gets every checked answer for the
class database, and the widget says whether it was recorded.
"""

from __future__ import annotations

import base64
import html
import secrets
import sqlite3
import time
from pathlib import Path

import ipywidgets as W

from .. import messages as M
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
    results_dir : pathlib.Path or None
        Where the teacher's copy goes (``None``: the download only).
    saved_path : pathlib.Path or None
        The teacher's copy of the current quiz, once an answer was saved.
    """

    def __init__(self, n=10, *, seed=0, difficulty="medium", rules="dazhong32", lianla=2,
                 lang="zh", results_dir=None, recorder=None, student=None):
        if results_dir is not None:
            results_dir = Path(results_dir)
            if not results_dir.is_dir():
                raise HandError("results_dir must be an existing folder, "
                                f"got {str(results_dir)!r}")
        if recorder is not None and not callable(recorder):
            raise HandError("recorder must be callable (index, question, feedback)")
        self.results_dir = results_dir
        self.recorder = recorder
        self.saved_path = None
        self.lang = lang
        self.seed = W.BoundedIntText(description="seed", value=seed, min=0, max=10**9,
                                     layout=W.Layout(width="180px"))
        self.difficulty = W.ToggleButtons(options=list(DIFFICULTIES), value=difficulty)
        self.new_button = W.Button(description=M.text("quiz_widget.new", M.lang_or_zh(lang)))
        self.new_button.on_click(lambda _: self.restart())
        self.header = W.HTML()
        self.hand = W.HTML()
        self.prompt = W.HTML()
        # one toggle per choice: a click selects or drops a fan (no ctrl-click needed)
        self.fan_buttons = []
        self.fans = W.GridBox(layout=W.Layout(grid_template_columns="repeat(4, 150px)"))
        self.total = W.IntText(description=M.text("quiz_widget.total", M.lang_or_zh(lang)),
                               layout=W.Layout(width="180px"))
        self.legal = W.ToggleButtons(options=[("yes 可以", "yes"), ("no 不可以", "no")],
                                     value=None)
        self.answer_box = W.Box()
        self.check_button = W.Button(description=M.text("quiz_widget.check", M.lang_or_zh(lang)),
                                     button_style="primary")
        self.check_button.on_click(lambda _: self.check())
        self.next_button = W.Button(description=M.text("quiz_widget.next", M.lang_or_zh(lang)))
        self.next_button.on_click(lambda _: self.go(self.index + 1))
        self.feedback = W.HTML()
        # the export is a download link, never a path box: see the module docstring
        self.download = W.HTML()
        self.saved = W.HTML()
        self.student = W.HTML("" if not student else "<b>" + html.escape(
            M.text("quiz_widget.student", M.lang_or_zh(lang), name=student)) + "</b>")
        # a served class: everybody answers the class's quiz, so no seed or new-quiz controls
        top = W.HBox([self.student] if recorder is not None else
                     [self.seed, self.difficulty, self.new_button])
        self.widget = W.VBox([
            top, self.header, self.hand,
            self.prompt, self.answer_box, W.HBox([self.check_button, self.next_button]),
            self.feedback, W.HBox([self.download, self.saved])])
        self._rules, self._lianla, self._n = rules, lianla, n
        self._new_quiz(Quiz(n, seed=seed, difficulty=difficulty, rules=rules, lianla=lianla))

    # -- actions -----------------------------------------------------------------

    def restart(self):
        """A new quiz from the seed and difficulty controls."""
        self._new_quiz(Quiz(self._n, seed=int(self.seed.value),
                            difficulty=self.difficulty.value, rules=self._rules,
                            lianla=self._lianla))

    def _new_quiz(self, quiz):
        self.quiz = quiz
        # one teacher's file per quiz taken: the time and 64 random bits keep names apart
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.file_name = (f"quiz-{quiz.seed}-{quiz.difficulty}-{stamp}-"
                          f"{secrets.token_hex(8)}.csv")
        self.saved_path = None
        self.saved.value = ""
        self._refresh_download()
        self.go(0)

    def _t(self, key):
        """The label ``key`` (messages entry ``quiz_widget.<key>``): Chinese unless en."""
        return M.text("quiz_widget." + key, M.lang_or_zh(self.lang))

    def go(self, index):
        """Show question ``index`` (past the last: the final score)."""
        self.index = index
        self.feedback.value = ""
        correct, answered = self.quiz.score
        self.header.value = (f"<b>{min(index + 1, len(self.quiz))} / {len(self.quiz)}</b> · "
                             f"{self._t('score')} {correct} / {answered}")
        if index >= len(self.quiz):
            self.hand.value = ""
            self.prompt.value = self._t("done")
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
            raise HandError(self._t("choose"))
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
        word = self._t("right" if fb.correct else "wrong")
        self.feedback.value = (f"<div style='color:{colour}'><b>{word}</b></div>"
                               f"<div>{html.escape(fb.explanation)}</div>")
        correct, answered = self.quiz.score
        self.header.value = (f"<b>{self.index + 1} / {len(self.quiz)}</b> · "
                             f"{self._t('score')} {correct} / {answered}")
        self.export()
        self._record(fb)
        return fb

    def _record(self, fb):
        """Give the answer to ``recorder`` (the class database); say whether it took."""
        if self.recorder is None:
            return
        try:
            self.recorder(self.index, self.quiz.questions[self.index], fb)
        except (HandError, OSError, sqlite3.Error):
            self.saved.value = ("<span style='color:#b00'>" + self._t("not_recorded")
                                + "</span>")
            return
        self.saved.value = "<span style='color:#555'> " + self._t("recorded") + " ✓</span>"

    def csv_bytes(self):
        """The answers so far as CSV (UTF-8 with a BOM, for a spreadsheet)."""
        return self.quiz.to_csv_bytes()

    def _refresh_download(self):
        data = base64.b64encode(self.csv_bytes()).decode("ascii")
        label = self._t("export")
        name = f"quiz-{self.quiz.seed}-{self.quiz.difficulty}.csv"
        self.download.value = (
            f"<a class='mjkit-quiz-download' download='{name}' "
            f"href='data:text/csv;charset=utf-8;base64,{data}' "
            "style='display:inline-block;padding:4px 12px;border:1px solid #999;"
            f"border-radius:2px;text-decoration:none;color:#222'>{label}</a>")

    def export(self):
        """Refresh the download link and save the teacher's copy (with ``results_dir``).

        Runs after every answer.  Returns the teacher's copy's path, or
        ``None`` without ``results_dir``.  Only the file name (which the
        widget made) is shown, never the folder.
        """
        from ..storage import atomic_write_bytes

        self._refresh_download()
        if self.results_dir is None:
            return None
        try:
            self.saved_path = atomic_write_bytes(self.results_dir / self.file_name,
                                                 self.csv_bytes())
        except OSError:
            self.saved.value = ("<span style='color:#b00'>"
                                + self._t("not_saved") + "</span>")
            return None
        self.saved.value = ("<span style='color:#555'> "
                            + self._t("saved") + f" {html.escape(self.file_name)}</span>")
        return self.saved_path

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
