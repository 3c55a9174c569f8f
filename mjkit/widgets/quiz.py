"""The classroom quiz as a widget: one question at a time, instant feedback, a score.

All the checking is :class:`mjkit.quiz.Quiz`; this module shows the hand,
the question and the right control (fan names to tick, a number, yes/no),
and wires the buttons.  Every label is the catalogue's (:mod:`mjkit.messages`)
in the widget's ``lang``: in English the fan choices read "Full Flush (清一色)",
the yes/no choices "yes" / "no".  The layout follows the screen: the choices
fill the width in as many columns as fit (a phone: two, a projector: a row),
the hand picture shrinks to a phone's width, and a "tile size" control scales
the tiles.

Results leave the widget in two ways, neither of which takes a path from
the person answering: the "export CSV" link is a browser download (a
``data:`` URI rebuilt after every answer, so nothing is written on the
server), and, when Python code gives ``results_dir`` (the app's server
does), the teacher's copy is written there after every answer under a name
the widget makes: ``quiz-<seed>-<difficulty>-<UTC time>-<random>.csv``.
The served app records instead: ``recorder`` (a
:class:`mjkit.app.classdb.StudentRecorder`) gets every checked answer for the
class database, and the widget says whether it was recorded.

A *served* widget (``served=True``, the default when a ``recorder`` is given) is
the class's quiz for everybody, so it has no seed box, no difficulty choice and no
"new quiz" button at all (not hidden ones: a hidden widget still exists in the
kernel and obeys the messages a browser sends it, and a student set the seed and
had other questions recorded).  :attr:`QuizWidget.seed`, :attr:`~QuizWidget.difficulty` and
:attr:`~QuizWidget.new_button` are then ``None`` and :meth:`QuizWidget.restart`
refuses.
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
from ..validate import boolean, lang as check_lang
from .layout import (DEFAULT_TILE_SIZE, check_tile_size, fan_term, page_css, style_widget,
                     tile_size_slider)

__all__ = ["QuizWidget"]


class QuizWidget:
    """A seeded quiz for a class (see :class:`mjkit.quiz.Quiz` for the parameters).

    Parameters
    ----------
    lang : {"zh", "en"}
        The language of every label, choice and explanation.
    tile_size : int
        The tiles' height in pixels, 28..120 (default 56; a control).
    served : bool, optional
        The class's quiz on a served page: no seed, difficulty or "new quiz"
        control is made (see the module docstring).  Default: whether a
        ``recorder`` is given.

    Attributes
    ----------
    quiz : Quiz
    index : int
        The question shown (0-based).
    fan_buttons : list of ipywidgets.ToggleButton
        The choices of a fan question; ``fan_choices`` holds their answers (the
        Chinese names :class:`~mjkit.quiz.Quiz` checks), in the same order.
    tile_size : ipywidgets.IntSlider
    seed, difficulty, new_button : ipywidgets widgets, or None when served
        The seed box, the difficulty choice and the "new quiz" button; a served
        widget has none of them (see the module docstring).
    served : bool
    widget : ipywidgets.VBox
    results_dir : pathlib.Path or None
        Where the teacher's copy goes (``None``: the download only).
    saved_path : pathlib.Path or None
        The teacher's copy of the current quiz, once an answer was saved.
    """

    def __init__(self, n=10, *, seed=0, difficulty="medium", rules="dazhong32", lianla=2,
                 lang="zh", results_dir=None, recorder=None, student=None,
                 tile_size=DEFAULT_TILE_SIZE, served=None):
        lang = check_lang(lang)
        served = recorder is not None if served is None else boolean(served, "served",
                                                                      strict=True)
        tile_size = check_tile_size(tile_size)
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
        t = self._t
        self.served = served
        # a served class: everybody answers the class's quiz, so the seed, difficulty and
        # new-quiz controls are not made at all (a hidden widget would still obey messages)
        self.seed = self.difficulty = self.new_button = None
        if not self.served:
            self.seed = W.BoundedIntText(description=M.text("widgets.seed", lang), value=seed,
                                         min=0, max=10**9, layout=W.Layout(width="180px"))
            names = t("difficulties")
            self.difficulty = W.ToggleButtons(options=[(names[d], d) for d in DIFFICULTIES],
                                              value=difficulty, style={"button_width": "auto"})
            self.new_button = W.Button(description=t("new"))
            self.new_button.on_click(lambda _: self.restart())
        self.tile_size = tile_size_slider(lang, tile_size)
        self.tile_size.observe(lambda _: self._show_hand(), names="value")
        self.header = W.HTML()
        self.hand = W.HTML()
        self.prompt = W.HTML()
        # one toggle per choice: a click selects or drops a fan (no ctrl-click needed)
        self.fan_buttons = []
        self.fan_choices = []
        # as many columns as fit: two on a phone, one row on a projector
        self.fans = W.GridBox(layout=W.Layout(
            grid_template_columns="repeat(auto-fill, minmax(150px, 1fr))", grid_gap="4px",
            width="100%"))
        self.fans.add_class("mjkit-quiz-choices")
        self.total = W.IntText(description=t("total"), layout=W.Layout(width="180px"))
        self.legal = W.ToggleButtons(options=[(t("yes"), "yes"), (t("no"), "no")],
                                     value=None)
        self.answer_box = W.Box(layout=W.Layout(width="100%"))
        self.check_button = W.Button(description=t("check"), button_style="primary")
        self.check_button.on_click(lambda _: self.check())
        self.next_button = W.Button(description=t("next"))
        self.next_button.on_click(lambda _: self.go(self.index + 1))
        self.feedback = W.HTML()
        # the export is a download link, never a path box: see the module docstring
        self.download = W.HTML()
        self.saved = W.HTML()
        self.student = W.HTML("" if not student else "<b>" + html.escape(
            M.text("quiz_widget.student", lang, name=student)) + "</b>")
        wrap = W.Layout(flex_flow="row wrap", align_items="center", width="100%")
        top = W.HBox([self.student, self.tile_size] if self.served else
                     [self.seed, self.difficulty, self.new_button, self.tile_size], layout=wrap)
        self.widget = W.VBox([
            top, self.header, self.hand,
            self.prompt, self.answer_box, W.HBox([self.check_button, self.next_button]),
            self.feedback, W.HBox([self.download, self.saved], layout=wrap),
            style_widget(page_css())], layout=W.Layout(width="100%"))
        self.widget.add_class("mjkit-quiz")
        self._rules, self._lianla, self._n = rules, lianla, n
        self._new_quiz(Quiz(n, seed=seed, difficulty=difficulty, rules=rules, lianla=lianla))

    # -- actions -----------------------------------------------------------------

    def restart(self):
        """A new quiz from the seed and difficulty controls.

        Raises
        ------
        HandError
            A served widget: the class has one quiz.
        """
        if self.served:
            raise HandError("a served quiz is the class's quiz: it has no seed or "
                            "difficulty controls and cannot be restarted")
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
        """The label ``key`` (messages entry ``quiz_widget.<key>``) in the widget's language."""
        return M.value("quiz_widget." + key, self.lang)

    def _show_hand(self):
        """The current question's hand at the chosen tile size (nothing past the end)."""
        if self.index >= len(self.quiz):
            self.hand.value = ""
            return
        q = self.quiz[self.index]
        self.hand.value = ("<div class='mjkit-hand-picture'>"
                           + hand_svg(q.hand, size=self.tile_size.value, lang=self.lang)
                           + f"</div><div style='color:#555'>{html.escape(q.hand)}</div>")

    def go(self, index):
        """Show question ``index`` (past the last: the final score)."""
        self.index = index
        self.feedback.value = ""
        correct, answered = self.quiz.score
        self.header.value = (f"<b>{min(index + 1, len(self.quiz))} / {len(self.quiz)}</b> · "
                             f"{self._t('score')} {correct} / {answered}")
        self._show_hand()
        if index >= len(self.quiz):
            self.prompt.value = self._t("done")
            self.answer_box.children = []
            self.check_button.disabled = self.next_button.disabled = True
            return
        q = self.quiz[index]
        self.check_button.disabled = False
        self.next_button.disabled = index + 1 > len(self.quiz)
        self.prompt.value = f"<b>{html.escape(q.prompt(self.lang))}</b>"
        if q.kind == "fans":
            self.fan_choices = list(q.choices)
            self.fan_buttons = [W.ToggleButton(description=fan_term(name, self.lang), value=False,
                                               layout=W.Layout(width="auto"))
                                for name in q.choices]
            for b in self.fan_buttons:
                b.add_class("mjkit-choice")
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
            return [name for b, name in zip(self.fan_buttons, self.fan_choices) if b.value]
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
