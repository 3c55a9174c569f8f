"""The widgets as the served app uses them: no hidden control, bounded background work.

- A served quiz has no seed box, difficulty choice or "new quiz" button at all: no such
  widget exists in the kernel (a hidden one still obeyed a browser's messages, and a
  student set the seed and had other questions recorded).
- The hand builder's win chances are debounced and kept to a CPU budget per builder, and
  a redraw makes no widget it does not keep (each change of the draws box used to make
  ~40 widgets, kept for good).
- The app notebook itself, served in a real kernel with the kernel guard, probed over
  the shell channel as a student's browser would: its page has none of the quiz's
  class controls, a bad value sends no traceback, and answering, the builder's palette
  and the tabs still work, with the answer recorded in the class database.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest

from mjkit import HandError
from mjkit import messages as M
from mjkit.tiles import tile_from_str


def _new_widgets(build):
    """The ipywidgets models ``build()`` made (and kept), and its result."""
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    out = build()
    return [w for k, w in _instances.items() if k not in before], out


# ------------------------------------------------------------------ the served quiz

@pytest.mark.parametrize("lang", M.LANGS)
def test_a_served_quiz_has_no_seed_difficulty_or_new_quiz_control(lang):
    import ipywidgets as W

    from mjkit.widgets import QuizWidget

    made, w = _new_widgets(lambda: QuizWidget(2, seed=3, difficulty="easy", lang=lang,
                                              recorder=lambda *a: None, student="Lin"))
    assert w.seed is None and w.difficulty is None and w.new_button is None and w.served
    seed_label = M.text("widgets.seed", lang)
    new_label = M.value("quiz_widget.new", lang)
    levels = set(M.value("quiz_widget.difficulties", lang).values())
    for x in made:              # not in the page, and not anywhere in the kernel either
        assert not isinstance(x, W.BoundedIntText), x
        assert getattr(x, "description", None) not in (seed_label, new_label), x
        assert not levels & set(getattr(x, "_options_labels", ()) or ()), x
    with pytest.raises(HandError, match="served"):
        w.restart()
    assert w.quiz.seed == 3 and len(w.quiz) == 2
    # an explicit served=False keeps them (a teacher's own notebook with a recorder)
    own = QuizWidget(1, seed=3, lang=lang, recorder=lambda *a: None, served=False)
    assert isinstance(own.seed, W.BoundedIntText) and own.new_button is not None
    own.seed.value = 5
    own.restart()
    assert own.quiz.seed == 5
    with pytest.raises(HandError, match="served"):
        QuizWidget(1, served="yes")


# ------------------------------------------------------------------ the builder's work

class RecordingEngine:
    """A stand-in for the advisor: records the draws asked for and answers at once with
    an error naming them (the view draws an error as a message: no index is needed)."""

    def __init__(self):
        self.calls = []

    def __call__(self, hand, **kw):
        self.calls.append(kw["draws_left"])
        raise HandError(f"answer for {kw['draws_left']} draws")


def test_a_burst_of_changes_costs_one_computation_for_the_last_value(monkeypatch):
    from mjkit.widgets import HandBuilder
    from mjkit.widgets.chances import AdviceCache, ChanceWorker

    monkeypatch.setattr(HandBuilder, "_index_built", lambda self: True)
    engine = RecordingEngine()
    b = HandBuilder(chances=ChanceWorker(engine, AdviceCache()), lang="en", draws=12)
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 1p 9p".split():
        b.palette[tile_from_str(t)].click()          # 13 tiles: each click asks anew
    assert b.wait_chances(30)
    assert engine.calls == [12] and "answer for 12 draws" in b.out.value
    shown = []
    for d in list(range(1, 31)) + [17]:              # the draws box stepped, then left at 17
        b.draws.value = d
        shown.append(d == 12 or "computing…" in b.out.value)
        time.sleep(0.02)
    assert b.wait_chances(30)
    assert engine.calls[-1] == 17 and len(engine.calls) <= 3, engine.calls
    assert all(shown)                   # "computing…" at once while a request waits
    assert "answer for 17 draws" in b.out.value and b.view.chances_status == "error"
    b.close()


def test_a_chance_worker_keeps_to_its_cpu_budget():
    from mjkit.widgets.chances import (AdviceCache, ChanceWorker, CPU_BURST, CPU_SHARE,
                                       chance_request)
    from mjkit.widgets.state import BuilderState

    assert 0 < CPU_SHARE <= 0.5 and CPU_BURST <= 60

    cost = 0.05

    def burn(hand, **kw):                 # 50 ms of CPU per call
        end = time.process_time() + cost
        while time.process_time() < end:
            pass
        raise HandError("burnt")

    share, burst, n = 0.25, 0.05, 6
    w = ChanceWorker(burn, AdviceCache(), quiet=0, share=share, burst=burst)
    s = BuilderState(rules="dazhong32")
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 9s 9s".split():
        s = s.add(tile_from_str(t))
    t0 = time.perf_counter()
    for d in range(1, n + 1):
        w.submit(chance_request(s, d), lambda req, ans: None)
        assert w.wait(30)
    wall = time.perf_counter() - t0
    spent = w.cpu_seconds
    assert w.calls == n and spent >= n * cost * 0.9
    # beyond the burst, the work is spread out at `share` of a core
    assert wall >= (spent - burst - cost) / share, (wall, spent)
    assert w.budget < burst
    for bad in ({"share": 0}, {"share": 2}, {"quiet": -1}, {"burst": float("nan")},
                {"quiet": True}):
        with pytest.raises(HandError):
            ChanceWorker(burn, **bad)
    w.close()


def test_the_builder_redraws_without_making_widgets_it_does_not_keep():
    from mjkit.widgets import HandBuilder

    b = HandBuilder(chances=False, lang="en")
    b.mode.value = "pung"
    b.palette[tile_from_str("E")].click()
    b.mode.value = "tile"
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 1p 9p".split():
        b.palette[tile_from_str(t)].click()
    assert b.state.size == 13 and len(b.melds_row.children) == 1
    hand = b.hand_row.children
    made, _ = _new_widgets(lambda: [setattr(b.draws, "value", d) for d in range(1, 31)])
    assert not made and b.hand_row.children == hand      # the same buttons, kept
    made, _ = _new_widgets(lambda: [setattr(b.tile_size, "value", s) for s in (40, 90, 56)])
    assert not made
    assert b.palette[0].layout.height == "58px" and hand[0].layout.height == "58px"
    made, _ = _new_widgets(lambda: (b.hand_row.children[-1].click(),
                                    b.palette[tile_from_str("9p")].click()))
    # a new hand: its buttons (with their layouts and styles) replace the old, now closed
    assert len(made) == 3 * len(b.hand_row.children)
    assert all(x.comm is None for x in hand)


# ------------------------------------------------------------------ the served page


def _notebook_code():
    from mjkit.app import NOTEBOOK

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_the_served_classroom_page_obeys_only_its_own_controls(tmp_path):
    pytest.importorskip("ipykernel", reason="ipykernel is not installed")
    pytest.importorskip("jupyter_client", reason="jupyter_client is not installed")
    try:
        from test_kernel_guard import Kernel, leaks, updates
    except ImportError:  # pragma: no cover
        from tests.test_kernel_guard import Kernel, leaks, updates
    from mjkit.app.classdb import ClassDB, new_class_db
    from mjkit.app.kernel_guard import CONTROL_TARGET

    db, run = new_class_db(tmp_path, 4)
    settings = {"n": 3, "seed": 4, "difficulty": "easy", "lang": "en", "results_dir": None,
                "db": str(db), "run": run,
                "student": {"name": "Lin", "seat": 2, "session": "s" * 24}}
    k = Kernel(tmp_path)
    try:
        # the notebook as Voila runs it, with the settings the server's environment gives
        k.run("import mjkit.app.server as S\n"
              f"S.notebook_settings = lambda environ=None: {settings!r}\n"
              + _notebook_code(), timeout=600)
        ids = k.value("""{"total": quiz.total.model_id, "check": quiz.check_button.model_id,
            "fans": [b.model_id for b in quiz.fan_buttons], "tabs": tabs.model_id,
            "draws": builder.draws.model_id, "palette": builder.palette[0].model_id,
            "right": [i for i, c in enumerate(quiz.fan_choices)
                      if c in quiz.quiz.questions[0].answer],
            "kind": quiz.quiz.questions[0].kind, "guard": guard is not None}""")
        assert ids["guard"] and ids["kind"] == "fans"
        # the page's state as its widget manager loads it: no seed, level or new-quiz control
        ctl = uuid.uuid4().hex
        k.send("comm_open", {"comm_id": ctl, "target_name": CONTROL_TARGET, "data": {}},
               metadata={"version": "1.0.0"})
        k.send("comm_msg", {"comm_id": ctl, "data": {"method": "request_states"}})
        got = k.sync()
        states = [m["content"]["data"]["states"] for m in got if m["msg_type"] == "comm_msg"
                  and m["content"]["comm_id"] == ctl][0]
        models = [s["state"] for s in states.values()]
        assert len(models) > 100
        labels = {M.text("widgets.seed", "en"), M.value("quiz_widget.new", "en")}
        assert not [s for s in models if s.get("description") in labels
                    or s.get("_model_name") == "BoundedIntTextModel"
                    and s.get("max") == 10**9]
        k.send("comm_close", {"comm_id": ctl, "data": {}})
        # a bad value: no traceback, nothing changed
        k.update(ids["total"], {"value": "abc"})
        k.update(ids["total"], {"max": 1})
        got = k.sync()
        assert not leaks(got) and k.value("quiz.total.value") == 0
        # what the page's controls send works: the right fans ticked, "check" clicked
        for i in ids["right"]:
            k.update(ids["fans"][i], {"value": True})
        k.custom(ids["check"], {"event": "click"})
        k.update(ids["tabs"], {"selected_index": 1})
        k.update(ids["draws"], {"value": 5})
        k.custom(ids["palette"], {"event": "click"})
        got = k.sync()
        assert not leaks(got)
        assert k.value("[quiz.quiz.score, tabs.selected_index, builder.draws.value, "
                       "list(builder.state.tiles)]") == [[1, 1], 1, 5, [0]]
        assert "recorded" in k.value("quiz.saved.value")
        with ClassDB(db, run=run) as cdb:
            s = cdb.summary()
        assert [(q["question"], q["correct"]) for q in s["questions"]] == [(0, 1)]
        assert s["students"][0]["name"] == "Lin"
    finally:
        k.close()


def test_a_superseded_search_stops_at_its_next_pause():
    """The advisor's long search stops once a newer hand is asked for: the worker's CPU
    goes to the hand on screen, and nothing is cached for the stopped one."""
    from mjkit.tiles import parse_tiles
    from mjkit.widgets.chances import AdviceCache, ChanceRequest, ChanceWorker

    def request(text, draws):
        hand = tuple(sorted(parse_tiles(text)))
        kwargs = {"rules": "dazhong32", "lianla": 0, "draws_left": draws, "mode": "exact",
                  "progress": False}
        return ChanceRequest(("test", hand, draws), hand, kwargs)

    worker = ChanceWorker(cache=AdviceCache(), quiet=0.0)
    got = []
    slow = request("123m234m345m67m99sE", 4)            # about 13 s on two cores
    worker.submit(slow, lambda r, a: got.append((r, a)))
    time.sleep(1.5)
    t0 = time.perf_counter()
    quick = request("123m234m345m67m99sE", 1)
    worker.submit(quick, lambda r, a: got.append((r, a)))
    assert worker.wait(60)
    assert [r for r, _ in got] == [quick]
    assert worker.superseded == 1 and slow.key not in worker.cache
    assert time.perf_counter() - t0 < 8.0                  # not the slow search's 13 s
    worker.close()
