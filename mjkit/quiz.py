"""Classroom quiz: random hands to score, with instant feedback and a running score.

A :class:`Quiz` is a list of :class:`Question` drawn from seeded random
complete hands (:func:`mjkit.random_hands.random_hand_parts`), each
scored by the evaluator:

* ``"fans"``: name the counted fans (choices include the fans the hand has
  but may not count, 不计, which is what a class has to learn);
* ``"total"``: give the total;
* ``"legal"``: may the hand be declared at 连N拉N (the bar 32 − 4N)?

The same ``seed`` gives the same questions on every machine, so a whole
class gets the same set.  Answers are checked with an explanation and kept;
:meth:`Quiz.to_frame` / :meth:`Quiz.to_csv` export them.  The widget is
:class:`mjkit.widgets.QuizWidget`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pandas as pd

from . import messages as M
from . import validate
from .errors import HandError

__all__ = ["DIFFICULTIES", "KINDS", "Feedback", "Question", "Quiz"]

#: Counted hand fans (连拉, flowers and 无财神 aside) a hand of each difficulty has.
DIFFICULTIES = {"easy": (1, 2), "medium": (3, 4), "hard": (5, 99)}
#: Question kinds.
KINDS = ("fans", "total", "legal")
_AFTER = ("LIANLA",)


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer."""

    correct: bool
    expected: object
    given: object
    explanation: str


@dataclass(frozen=True)
class Question:
    """One question (see :class:`Quiz`).

    Attributes
    ----------
    number : int
    kind : str
        ``"fans"``, ``"total"`` or ``"legal"``.
    hand : str
        The hand in notation, situation included.
    rules : str
    lianla : int
        The 连拉 level the hand is scored at (``legal`` asks about it).
    choices : tuple of str
        For ``fans``: fan names (zh) to choose from.
    result : ScoreResult
    """

    number: int
    kind: str
    hand: str
    rules: str
    lianla: int
    choices: tuple
    result: object = field(repr=False, compare=False)

    @property
    def fans(self):
        """The counted fans to name (zh), 连拉 and after-minimum fans aside."""
        r = self.result
        return tuple(f.zh for f in r.fans if f.key not in r.after_minimum
                     and f.key not in _AFTER)

    @property
    def answer(self):
        if self.kind == "fans":
            return frozenset(self.fans)
        if self.kind == "total":
            return self.result.total
        return self.result.legal

    def prompt(self, lang="zh"):
        level = f"连{self.lianla}拉{self.lianla}" if self.lianla else ""
        lang = M.lang_or_en(lang)
        if self.kind in ("fans", "total"):
            return M.text(f"quiz.prompt.{self.kind}", lang)
        return M.text("quiz.prompt.legal", lang, level=level, at=f" at {level}" if level else "",
                      bar=self.result.bar)

    def check(self, response, lang="zh"):
        """A :class:`Feedback` for ``response`` (fan names, a number, or yes/no)."""
        given = self._read(response)
        right = given == self.answer
        return Feedback(right, self.answer, given, self.explanation(lang))

    def _read(self, response):
        if self.kind == "fans":
            if isinstance(response, str):
                response = response.replace("，", ",").replace(",", " ").split()
            try:
                names = frozenset(str(x) for x in response)
            except TypeError:
                raise HandError(f"answer with fan names, got {response!r}") from None
            unknown = names - set(self.choices)
            if unknown:
                raise HandError(f"not among the choices: {', '.join(sorted(unknown))}")
            return names
        if self.kind == "total":
            try:
                value = int(str(response).strip())
            except ValueError:
                raise HandError(f"answer with a whole number of fans, got {response!r}") \
                    from None
            return value
        if isinstance(response, bool):
            return response
        text = str(response).strip().lower()
        if text in ("yes", "y", "true", "1", "是", "可以", "能"):
            return True
        if text in ("no", "n", "false", "0", "否", "不可以", "不能"):
            return False
        raise HandError(f"answer yes or no, got {response!r}")

    def explanation(self, lang="zh"):
        """The fans with their points, what is not counted and why, and the verdict."""
        r = self.result
        name = (lambda f: f.zh) if lang == "zh" else (lambda f: f"{f.en} ({f.zh})")
        parts = [f"{name(f)} {f.points}" + (f"×{f.count}" if f.count > 1 else "")
                 for f in r.fans]
        text = " + ".join(parts) + f" = {r.total}"
        if r.not_counted:
            nc = "; ".join(f"{f} ({'、'.join(b)})" for f, b in r.not_counted)
            text += M.text("quiz.not_counted", M.lang_or_en(lang)) + nc
        return text + M.text("quiz.end", M.lang_or_en(lang)) + r.verdict(lang)


class Quiz:
    """A seeded set of questions and the answers given so far.

    Parameters
    ----------
    n : int
        Number of questions (1..200).
    seed : int
        Same seed, same questions.
    difficulty : str
        ``"easy"``, ``"medium"`` or ``"hard"`` (:data:`DIFFICULTIES`: how
        many fans the hands count).
    rules : str
    lianla : int
        The 连拉 level of ``legal`` questions (``dazhong32``; 0 elsewhere).
    kinds : sequence of str
        Question kinds to mix (:data:`KINDS`).
    """

    def __init__(self, n=10, *, seed=0, difficulty="medium", rules="dazhong32", lianla=2,
                 kinds=KINDS):
        import mjkit

        n = validate.whole("n (questions)", n, 1, 200)
        seed = validate.whole("seed", seed, 0)
        if difficulty not in DIFFICULTIES:
            raise HandError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, "
                            f"got {difficulty!r}", code="unknown_name")
        kinds = tuple(kinds)
        if not kinds or set(kinds) - set(KINDS):
            raise HandError(f"kinds must be among {', '.join(KINDS)}, got {kinds!r}",
                            code="unknown_name")
        rs = mjkit.get_rules(rules)
        rs.threshold(lianla)                      # 连拉 only where the rule set has it
        self.rules, self.lianla, self.seed = rs.name, lianla, seed
        self.difficulty, self.kinds = difficulty, kinds
        self.questions = self._draw(n, rs)
        self.answers = {}

    def _draw(self, n, rs):
        import mjkit
        from .random_hands import random_hand_parts
        from .rules.catalogue import catalogue_lists

        rng = random.Random(self.seed)
        lo, hi = DIFFICULTIES[self.difficulty]
        names = [z for z, p in zip(catalogue_lists().zh, rs.points_list) if p > 0]
        out = []
        batch = 0
        while len(out) < n:
            if batch > 200:
                raise HandError(f"could not find {n} {self.difficulty} hands")
            hands = random_hand_parts(50, seed=self.seed * 1000 + batch)
            batch += 1
            for hand in hands:
                try:
                    r = mjkit.score(hand, rules=rs.name, lianla=self.lianla, wild=None)
                except HandError:
                    continue
                text = hand.notation()
                if not r.is_win:
                    continue
                q_kind = self.kinds[len(out) % len(self.kinds)]
                counted = [f for f in r.fans if f.key not in r.after_minimum
                           and f.key not in _AFTER]
                if not lo <= len(counted) <= hi:
                    continue
                if q_kind == "legal" and batch <= 40:
                    # as many declarable hands as P胡 ones, while they can be found
                    asked = sum(1 for q in out if q.kind == "legal")
                    if r.legal != (asked % 2 == 0):
                        continue
                choices = ()
                if q_kind == "fans":
                    have = {f.zh for f in counted}
                    decoys = [f for f, _ in r.not_counted if f not in have]
                    others = [z for z in names if z not in have and z not in decoys]
                    rng.shuffle(others)
                    pool = sorted(have) + decoys + others[:max(0, 8 - len(have) - len(decoys))]
                    rng.shuffle(pool)
                    choices = tuple(dict.fromkeys(pool))
                out.append(Question(len(out) + 1, q_kind, text, rs.name,
                                    self.lianla, choices, r))
                if len(out) == n:
                    break
        return out

    def __len__(self):
        return len(self.questions)

    def __getitem__(self, i):
        return self.questions[i]

    def answer(self, i, response, lang="zh"):
        """Check and record the answer to question ``i`` (0-based): a :class:`Feedback`."""
        i = validate.whole("question", i, 0, len(self.questions) - 1)
        fb = self.questions[i].check(response, lang)
        self.answers[i] = fb
        return fb

    @property
    def score(self):
        """``(correct, answered)``."""
        return sum(fb.correct for fb in self.answers.values()), len(self.answers)

    def to_frame(self):
        """One row per question: hand, kind, expected and given answers, correct."""
        def show(v):
            return " ".join(sorted(v)) if isinstance(v, frozenset) else v

        rows = []
        for i, q in enumerate(self.questions):
            fb = self.answers.get(i)
            rows.append({"number": q.number, "kind": q.kind, "hand": q.hand, "rules": q.rules,
                         "lianla": q.lianla, "expected": show(q.answer),
                         "given": None if fb is None else show(fb.given),
                         "correct": None if fb is None else fb.correct})
        df = pd.DataFrame(rows)
        df.attrs.update(seed=self.seed, difficulty=self.difficulty)
        return df

    def to_csv_bytes(self):
        """:meth:`to_frame` as CSV bytes (UTF-8 with a BOM, for a spreadsheet)."""
        return self.to_frame().to_csv(index=False, lineterminator="\n").encode("utf-8-sig")

    def to_csv(self, path):
        """Write :meth:`to_csv_bytes` to ``path`` (atomically); returns ``path``."""
        from .storage import atomic_write_bytes

        atomic_write_bytes(path, self.to_csv_bytes())
        return path
