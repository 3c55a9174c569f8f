"""A hand reviewed: every decision of a player rated where it was taken.

:func:`review` plays a hand's record again (``Table.replay``: every event checked) and, at
each decision of the seats reviewed, rates it with :func:`~.rating.rate` on the
observation that player had then: the action taken, the engine's choice, the ``p_win`` of
both and of the best option, the loss, and what the review flags (a costly discard, a P胡,
a legal win let go, a choice other than the engine's) with a reason line.  The
:class:`Review` gives the totals (the share of decisions that match the engine, the
``p_win`` lost, P胡, wins let go), the worst decisions first, a table, CSV (text cells
guarded: :mod:`mjkit.spreadsheet`) and HTML with a picture of ``p_win`` along the hand (an
SVG of lines only: it needs no font).
"""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass, field

from .. import messages as M
from ..errors import HandError, short_repr
from ..validate import lang as check_lang
from .rating import MODES, Rating, rate

__all__ = ["Decision", "Review", "review"]


@dataclass(frozen=True)
class Decision:
    """One decision of the hand and its rating.

    Attributes
    ----------
    number : int
        1, 2, ... in the order of the hand (all seats reviewed).
    event : int
        The index of the record's event where the decision shows.
    wall_left : int
        Tiles left in the wall then.
    rating : Rating
    observation : Observation
        What the player saw (the state the decision was taken in).
    """

    number: int
    event: int
    wall_left: int
    rating: Rating
    observation: object = field(default=None, repr=False)

    def row(self, lang="en"):
        """The decision as a dict of plain values (a line of the table and the CSV)."""
        r = self.rating
        return {"number": self.number, "event": self.event, "seat": r.seat,
                "asked": M.text("review.asked." + r.asking, lang), "tile": r.tile or "",
                "wall_left": self.wall_left, "action": r.action, "engine": r.engine,
                "p_action": r.p_action, "p_engine": r.p_engine, "best": (r.best.action if
                                                                          r.best else ""),
                "p_best": r.p_best, "loss": r.loss, "match": r.matches,
                "flags": " ".join(r.flags), "reason": r.reason(lang)}


_COLUMNS = ("number", "event", "seat", "asked", "tile", "wall_left", "action", "engine",
            "p_action", "p_engine", "best", "p_best", "loss", "match", "flags", "reason")


@dataclass
class Review:
    """The review of one hand (:func:`review`).

    Attributes
    ----------
    rules : str
    players : tuple of str
    seats : tuple of int
        The positions reviewed.
    decisions : list of Decision
        In the order of the hand.
    result : dict
        The hand's result event (win, false_win or drawn_out).
    mode, engine : str
    """

    rules: str
    players: tuple
    seats: tuple
    decisions: list = field(default_factory=list)
    result: dict | None = None
    mode: str = "fast"
    engine: str = "strong"

    @property
    def totals(self):
        """``decisions``, ``rated`` (with a ``p_win``), ``match_rate`` (share of decisions
        the engine takes too), ``p_win_lost`` (the losses added up), ``false_wins``,
        ``wins_let_go`` and ``costly``."""
        ds = [d.rating for d in self.decisions]
        losses = [r.loss for r in ds if r.loss is not None]
        return {"decisions": len(ds), "rated": len(losses),
                "match_rate": (sum(r.matches for r in ds) / len(ds)) if ds else None,
                "p_win_lost": float(sum(losses)),
                "false_wins": sum("false_win" in r.flags for r in ds),
                "wins_let_go": sum("win_let_go" in r.flags for r in ds),
                "costly": sum("costly" in r.flags for r in ds)}

    def worst(self, n=5):
        """The ``n`` costliest decisions: P胡 and wins let go first, then by loss."""
        def key(d):
            r = d.rating
            grave = "false_win" in r.flags or "win_let_go" in r.flags
            return (not grave, -(r.loss or 0.0), d.number)
        flagged = [d for d in self.decisions if d.rating.flags]
        return sorted(flagged, key=key)[:n]

    def to_frame(self, lang="en"):
        """One row per decision (pandas)."""
        import pandas as pd
        return pd.DataFrame([d.row(lang) for d in self.decisions], columns=list(_COLUMNS))

    def to_csv(self, lang="en"):
        """The decisions as CSV text; text cells a spreadsheet would read as a formula get
        a leading ``'`` (a record's player names are a visitor's text)."""
        from ..spreadsheet import csv_text
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(_COLUMNS)
        for d in self.decisions:
            row = d.row(lang)
            w.writerow([csv_text(v) if isinstance(v, str) else "" if v is None else v
                        for v in (row[c] for c in _COLUMNS)])
        return out.getvalue()

    def totals_text(self, lang="en"):
        from ..advise import percent
        t = self.totals
        return M.text("review.totals", lang, n=t["decisions"],
                      match="—" if t["match_rate"] is None else percent(t["match_rate"]),
                      lost=percent(t["p_win_lost"]), false_wins=t["false_wins"],
                      let_go=t["wins_let_go"])

    def plot_svg(self, width=480, height=140):
        """``p_win`` of the action taken (solid) and of the best option (dashed) at each
        rated decision, as an SVG of lines only (0 at the bottom, 1 at the top)."""
        pts = [(d.rating.p_action, d.rating.p_best) for d in self.decisions
               if d.rating.p_action is not None]
        pad = 6
        n = max(len(pts) - 1, 1)

        def xy(i, p):
            return (pad + (width - 2 * pad) * i / n, height - pad - (height - 2 * pad) * p)

        def line(vals, dash):
            coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in
                                                               enumerate(vals)))
            extra = ' stroke-dasharray="5,4"' if dash else ""
            return (f'<polyline points="{coords}" fill="none" stroke="#1f5fa8" '
                    f'stroke-width="2"{extra}/>')
        grid = "".join(
            f'<line x1="{pad}" x2="{width - pad}" y1="{xy(0, g)[1]:.1f}" y2="{xy(0, g)[1]:.1f}"'
            f' stroke="#ddd"/>' for g in (0.0, 0.25, 0.5, 0.75, 1.0))
        body = line([p for p, _ in pts], False) + line([b for _, b in pts], True) if pts else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}" class="mjkit-review-plot">{grid}{body}</svg>')

    def to_html(self, lang="zh"):
        """The review as HTML: the totals, the picture, and a table of every decision
        (flagged ones marked) with its reason line."""
        from ..advise import percent
        from ..pictures import tile_label
        from ..table.actions import action_text
        lang = check_lang(lang)
        e = html.escape
        head = M.value("review.head", lang)
        flag_names = {f: M.text("review.flag." + f, lang) for f in
                      ("costly", "false_win", "win_let_go", "differs")}

        def p(x):
            return "—" if x is None else percent(x)
        rows = []
        for d in self.decisions:
            r = d.rating
            style = ' style="background:#fde8e8"' if ({"costly", "false_win", "win_let_go"}
                                                        & set(r.flags)) else ""
            cells = (d.number, M.text("review.asked." + r.asking, lang)
                     + (f" {tile_label(r.tile, lang)}" if r.tile else ""),
                     action_text(r.action, lang), action_text(r.engine, lang), p(r.p_action),
                     (f"{action_text(r.best.action, lang)} {p(r.p_best)}" if r.best else "—"),
                     "—" if r.loss is None else percent(r.loss),
                     "、".join(flag_names[f] for f in r.flags) if lang == "zh" else
                     ", ".join(flag_names[f] for f in r.flags), r.reason(lang))
            rows.append(f"<tr{style}>" + "".join(f"<td>{e(str(c))}</td>" for c in cells)
                        + "</tr>")
        table = ("<table class='mjkit-review'><thead><tr>" +
                 "".join(f"<th>{e(h)}</th>" for h in head) + "</tr></thead><tbody>" +
                 "".join(rows) + "</tbody></table>")
        return (f"<div class='mjkit-review-page'><h3>{e(M.text('review.title', lang))}</h3>"
                f"<p>{e(self.totals_text(lang))}</p><p>{e(M.text('review.plot', lang))}</p>"
                f"{self.plot_svg()}{table}</div>")

    def _repr_html_(self):
        return self.to_html("zh")


def _hand_events(record):
    """A hand's events (and the object replay reads) of a Table, a HandLog, a one-hand
    Record or a list of events."""
    from ..table.engine import Table
    if isinstance(record, Table):
        if not record.done:
            raise HandError("review a hand once it is over (table.done)")
        return record.events
    hands = getattr(record, "hands", None)
    if isinstance(hands, list):
        if len(hands) != 1:
            raise HandError(f"review takes one hand: this record has {len(hands)} (give "
                            "record.hands[i])")
        return hands[0]
    if hasattr(record, "events") or isinstance(record, (list, tuple)):
        return record
    raise HandError(f"review takes a finished Table, a hand's events, a HandLog or a "
                    f"one-hand Record, got {short_repr(record)}")


def review(record, seats=None, *, mode="fast", engine="strong", progress=None):
    """Review a hand: rate every decision of the seats played from outside.

    Parameters
    ----------
    record : Table, list of dict, HandLog or Record
        A finished hand (its events are replayed and checked).
    seats : int or sequence of int, optional
        The positions to review (default: every seat played from outside — a person or a
        Python function; built-in players decide inside the kernel, so their decisions
        are not reviewed here).
    mode : {"fast", "deep"}
        The advisor's search for every option.
    engine : str
        The built-in player whose choices are compared.
    progress : bool, optional
        A progress bar over the decisions (default: when there are more than ten).

    Returns
    -------
    Review

    Raises
    ------
    HandError
        A record that does not replay (naming the event), a seat out of range or played
        by a built-in player, an unknown mode.
    """
    from ..sim.policy import POLICIES
    from ..table.engine import Table
    from ..validate import boolean
    events = _hand_events(record)
    if mode not in MODES:
        raise HandError(f"mode must be one of {MODES}, got {mode!r}", code="unknown_name")
    if engine not in POLICIES:
        raise HandError(f"engine must be one of {', '.join(POLICIES)}, got "
                        f"{short_repr(engine)}")
    head = (events.events if hasattr(events, "events") else list(events))[:1]
    players = tuple(head[0].get("players", ())) if head and isinstance(head[0], dict) else ()
    outside = tuple(i for i, p in enumerate(players) if p not in POLICIES)
    if seats is None:
        seats = outside
    else:
        seats = (seats,) if isinstance(seats, int) and not isinstance(seats, bool) else seats
        try:
            seats = tuple(sorted(set(seats)))
        except TypeError:
            raise HandError(f"seats must be positions 0..3, got {short_repr(seats)}") from None
        for s in seats:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 4:
                raise HandError(f"seats must be positions 0..3, got {short_repr(s)}")
            if s not in outside:
                raise HandError(f"seat {s} is the built-in player {players[s]!r}: it decides "
                                "inside the kernel, so its decisions are not in the review "
                                "(review the seats played from outside)")
    progress = None if progress is None else boolean(progress, "progress")
    found = []

    def keep(table, action, index):
        seat = table.to_act
        if seat in seats:
            found.append((index, table.observe(seat), table.legal_actions(seat), action))

    table = Table.replay(events, on_decision=keep)
    out = Review(rules=table.rules.name, players=tuple(table.players), seats=tuple(seats),
                 result=next((ev for ev in reversed(table.events)
                              if ev["e"] in ("win", "false_win", "drawn_out")), None),
                 mode=mode, engine=engine)
    show = progress if progress is not None else len(found) > 10
    items = found
    if show:
        from tqdm.auto import tqdm
        items = tqdm(found, desc="review", unit="decision")
    for n, (index, obs, legal, action) in enumerate(items, start=1):
        out.decisions.append(Decision(n, index, obs.wall_left,
                                      rate(obs, legal, action, mode=mode, engine=engine), obs))
    return out
