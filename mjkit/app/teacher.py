"""The pages of a served class that are not the quiz: joining, and the teacher's live view.

Pure functions from checked data to HTML, SVG, JSON or file bytes; the tornado handlers
in :mod:`mjkit.app._voila` only authenticate and send them.  Every value that came from
a visitor (a student's name, a given answer) is escaped where it is written.

- :func:`join_page`: the form a student fills in (class code, name, seat).
- :func:`teacher_page`: the QR code and address to project, the class live (the page
  asks ``/teacher/data`` every two seconds): who has joined with their scores, each
  question's share of right answers as a plot (:func:`rates_svg`) and its most common
  wrong answers, and the downloads.
- :func:`results_csv`, :func:`results_xlsx`: every answer, for a spreadsheet.
- :func:`qr_svg`, :func:`qr_text`: the join address as a QR code (``qrcode`` package).
"""

from __future__ import annotations

import html
import io
import json

from .. import messages as M
from ..errors import HandError
from ..fonts import font_face_css
from ..spreadsheet import csv_text, formula_like

__all__ = ["join_page", "teacher_page", "denied_page", "message_page", "summary_json",
           "rates_svg", "results_csv", "results_xlsx", "qr_svg", "qr_text"]

_STYLE = ("<style>body{margin:0;padding:2vw 3vw;background:#f6f4ee;color:#222}"
          "h1{font-size:2em;margin:.2em 0}h2{font-size:1.4em;margin:1em 0 .4em}"
          "table{border-collapse:collapse;font-size:1.05em}"
          "td,th{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:left}"
          "th{background:#ece6d6}.grid{display:grid;grid-template-columns:minmax(260px,1fr) 2fr;"
          "gap:3vw}@media (max-width:800px){.grid{grid-template-columns:1fr}}"
          "input{font-size:1.3em;padding:.3em;margin:.2em 0 .8em;width:100%;box-sizing:border-box}"
          "button,.btn{font-size:1.2em;padding:.4em 1.2em;background:#17733a;color:#fff;"
          "border:0;border-radius:4px;text-decoration:none;display:inline-block;margin:.2em}"
          ".err{color:#b00;font-weight:bold}.code{font-size:2.6em;letter-spacing:.1em;"
          "font-weight:bold}.qr svg{width:100%;max-width:420px;height:auto}</style>")


def _doc(title: str, body: str, lang: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="' + ("zh-CN" if lang == "zh" else "en") + '"><head>'
            '<meta charset="utf-8"><meta name="viewport" content="width=device-width,'
            'initial-scale=1"><title>' + html.escape(title) + "</title>"
            + font_face_css("body") + _STYLE + "</head><body>" + body + "</body></html>\n")


def join_page(lang: str, *, code: str = "", name: str = "", seat: str = "",
              error: str | None = None) -> str:
    """The join form; ``error`` a message key of ``app.join.*`` to show above it."""
    t = lambda key: M.text("app.join." + key, lang)   # noqa: E731
    err = f'<p class="err">{html.escape(t(error))}</p>' if error else ""
    body = (f"<h1>{html.escape(t('title'))}</h1>{err}"
            '<form method="get" action="/join" style="max-width:28em">'
            f'<label>{html.escape(t("code"))}<input name="code" autocomplete="off" '
            f'required maxlength="20" value="{html.escape(code)}"></label>'
            f'<label>{html.escape(t("name"))}<input name="name" required maxlength="40" '
            f'value="{html.escape(name)}"></label>'
            f'<label>{html.escape(t("seat"))}<input name="seat" inputmode="numeric" '
            f'maxlength="3" value="{html.escape(seat)}"></label>'
            f'<button type="submit">{html.escape(t("go"))}</button></form>')
    return _doc(t("title"), body, lang)


def denied_page(lang: str) -> str:
    t = M.text("app.teacher.denied", lang)
    return _doc(M.text("app.teacher.title", lang), f"<p>{html.escape(t)}</p>", lang)


def message_page(lang: str, message: str) -> str:
    """A page of the teacher's that says one thing (e.g. why the database cannot be read)."""
    return _doc(M.text("app.teacher.title", lang), f'<p class="err">{html.escape(message)}</p>',
                lang)


def qr_svg(url: str) -> str:
    """``url`` as a QR code, an inline ``<svg>`` (black modules on white)."""
    qr = _qr(url)
    m = qr.get_matrix()
    n = len(m)
    d = "".join(f"M{x},{y}h1v1h-1z" for y, row in enumerate(m) for x, on in enumerate(row) if on)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}" '
            f'shape-rendering="crispEdges" role="img" aria-label="{html.escape(url)}">'
            f'<rect width="{n}" height="{n}" fill="#fff"/><path d="{d}" fill="#000"/></svg>')


def qr_text(url: str) -> str:
    """``url`` as a QR code for a terminal (two modules per character)."""
    m = _qr(url).get_matrix()
    if len(m) % 2:
        m = m + [[False] * len(m[0])]
    chars = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}
    # dark on light terminals and light on dark ones both scan: draw the light modules
    return "\n".join("".join(chars[(not a, not b)] for a, b in zip(m[y], m[y + 1]))
                     for y in range(0, len(m), 2))


def _qr(url: str):
    try:
        import qrcode
    except ImportError:
        raise HandError("the QR code needs the qrcode package: pip install -e \".[app]\"") \
            from None
    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    qr.add_data(url)
    qr.make(fit=True)
    return qr


def summary_json(summary: dict, lang: str) -> str:
    """:meth:`ClassDB.summary` as JSON, with the rates plot in ``lang``, for the live page.

    HandError (never another error) when ``summary`` is not what it should be.
    """
    try:
        return json.dumps({**summary, "plot": rates_svg(summary, lang)}, ensure_ascii=False,
                          allow_nan=False)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, ArithmeticError) \
            as exc:
        if isinstance(exc, HandError):
            raise
        raise HandError(f"the class's data could not be shown ({type(exc).__name__}: "
                        f"{str(exc)[:200]})") from None


def rates_svg(summary: dict, lang: str) -> str:
    """Per question, the share of right answers as bars (0..100%), with the count."""
    qs = summary["questions"]
    if not qs:
        return ""
    w, bar, gap, top, h = 640, 26, 8, 18, 200
    step = min(bar + gap, (w - 56) / len(qs))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h + 40}" '
           f'class="rates" role="img" aria-label="{html.escape(M.text("app.teacher.rates", lang))}">']
    for frac in (0, 0.5, 1):
        y = top + h * (1 - frac) * 0.85
        out.append(f'<line x1="44" x2="{w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ccc"/>'
                   f'<text x="40" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                   f'{int(frac * 100)}%</text>')
    for k, q in enumerate(qs):
        x = 50 + k * step
        height = h * 0.85 * q["rate"]
        y = top + h * 0.85 - height
        colour = "#17733a" if q["rate"] >= 0.7 else ("#e08e00" if q["rate"] >= 0.4 else "#c62828")
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{step * 0.8:.1f}" '
                   f'height="{max(height, 1):.1f}" fill="{colour}"><title>'
                   f'{q["question"] + 1}: {q["correct"]}/{q["answered"]}</title></rect>'
                   f'<text x="{x + step * 0.4:.1f}" y="{top + h * 0.85 + 16:.1f}" font-size="12" '
                   f'text-anchor="middle">{q["question"] + 1}</text>'
                   f'<text x="{x + step * 0.4:.1f}" y="{y - 4:.1f}" font-size="10" '
                   f'text-anchor="middle">{q["correct"]}/{q["answered"]}</text>')
    out.append("</svg>")
    return "".join(out)


def teacher_page(lang: str, *, join_url: str, code: str | None, seed: int, questions: int,
                 difficulty: str) -> str:
    """The teacher's live page (its data comes from ``/teacher/data``)."""
    t = lambda key, **kw: M.text("app.teacher." + key, lang, **kw)  # noqa: E731
    cols = M.value("app.teacher.columns", lang)
    qcols = M.value("app.teacher.qcolumns", lang)
    labels = {"joined": t("joined", n="{n}"), "none": t("none"), "cols": cols, "qcols": qcols}
    code_html = f'<div class="code">{html.escape(code)}</div>' if code else ""
    body = (
        f"<h1>{html.escape(t('title'))}</h1>"
        f"<p>seed {seed} · {questions} · {html.escape(difficulty)} · "
        f"{html.escape(t('updated'))}</p>"
        '<div class="grid"><div>'
        f"<h2>{html.escape(t('join'))}</h2>"
        f'<div class="qr">{qr_svg(join_url)}</div>'
        f'<p style="font-size:1.3em;word-break:break-all">{html.escape(join_url)}</p>{code_html}'
        f"<h2>{html.escape(t('download'))}</h2>"
        '<a class="btn" href="/teacher/results.csv" download>CSV</a>'
        '<a class="btn" href="/teacher/results.xlsx" download>Excel</a>'
        "</div><div>"
        '<p id="error" class="err"></p>'
        f"<h2>{html.escape(t('students'))} <span id=\"joined\"></span></h2>"
        '<table id="students"></table>'
        f"<h2>{html.escape(t('questions'))}</h2>"
        '<div id="plot"></div><table id="questions"></table>'
        "</div></div>"
        "<script>const L=" + json.dumps(labels, ensure_ascii=False) + ";" + _SCRIPT + "</script>")
    return _doc(t("title"), body, lang)


# The live part: builds the tables with textContent (never innerHTML from data), and
# the plot from the server's own SVG.
_SCRIPT = """
function row(cells, head) {
  const tr = document.createElement('tr');
  for (const c of cells) { const td = document.createElement(head ? 'th' : 'td');
    td.textContent = c; tr.appendChild(td); }
  return tr;
}
function fill(id, head, rows) {
  const t = document.getElementById(id); t.replaceChildren(row(head, true));
  for (const r of rows) t.appendChild(row(r, false));
}
async function refresh() {
  try {
    const r = await fetch('/teacher/data', {cache: 'no-store'});
    const err = document.getElementById('error');
    if (!r.ok) {
      try { const e = await r.json(); err.textContent = e.error || ''; } catch (x) {}
      return;
    }
    err.textContent = '';
    const d = await r.json();
    document.getElementById('joined').textContent = '(' + L.joined.replace('{n}', d.students.length) + ')';
    fill('students', L.cols, d.students.map(s => [s.seat ?? '', s.name, s.answered, s.correct,
         s.answered ? Math.round(100 * s.correct / s.answered) + '%' : '']));
    fill('questions', L.qcols, d.questions.map(q => [q.question + 1, q.kind, q.hand, q.expected,
         q.answered, Math.round(100 * q.rate) + '%',
         q.wrong.map(w => (w[0] || '—') + ' ×' + w[1]).join('; ')]));
    const plot = document.getElementById('plot');
    if (d.plot) { plot.innerHTML = d.plot; } else { plot.textContent = L.none; }
  } catch (e) {}
}
refresh(); setInterval(refresh, 2000);
"""


#: Columns written as whole numbers (``seat``, ``question``), a yes/no and a time;
#: every other column, whatever it holds, is written as text (:func:`_table`).
_WHOLE = ("seat", "question")
_FLAG = ("correct",)
_TIME = ("answered_at",)
#: Longest text an Excel cell holds.
_XLSX_TEXT = 32767


def _table(frame) -> tuple[list, list]:
    """``frame``'s header and rows as cells for a spreadsheet: the one place that types them.

    A cell of a :data:`_WHOLE` column is an ``int``, of a :data:`_FLAG` column a
    ``bool``, of a :data:`_TIME` column a ``datetime``, when its value is one (None
    when missing); everything else, the header included, is a ``str``, which both
    writers put out as text only (never a formula, a number or an error value).
    """
    import datetime
    import math
    import numbers

    from .._lazy import pandas as pd

    nat = pd.NaT

    def cell(column, v):
        if type(v) is str:
            return v
        if v is None or v is nat or (isinstance(v, float) and math.isnan(v)):
            return None
        if column in _WHOLE and isinstance(v, numbers.Real) and not isinstance(v, bool):
            try:
                if math.isfinite(v) and abs(v) < 2**53 and v == int(v):
                    return int(v)
            except (TypeError, ValueError, OverflowError):
                pass
        if column in _FLAG and type(v).__name__ in ("bool", "bool_"):
            return bool(v)
        if column in _TIME and isinstance(v, datetime.datetime):
            return v
        if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) and v != v:
            return None                                  # a missing value (NaN)
        return str(v)

    try:
        header = [str(c) for c in frame.columns]
        rows = [[cell(c, v) for c, v in zip(header, row)]
                for row in frame.itertuples(index=False, name=None)]
    except (AttributeError, TypeError, ValueError, OverflowError) as exc:
        raise HandError(f"the answers could not be made into a table ({exc})") from None
    return header, rows


def results_csv(frame) -> bytes:
    """Every answer as CSV (UTF-8 with a BOM, for a spreadsheet).

    Text cells are quoted, and those a spreadsheet would take for a formula
    (starting with ``= + - @``, a tab or a line break) get a leading ``'``
    (OWASP "CSV Injection"); seats and question numbers stay numbers.
    """
    import csv

    header, rows = _table(frame)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([csv_text(h) for h in header])
    body = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    for row in rows:
        body.writerow([csv_text(v) if isinstance(v, str) else
                       v.isoformat(sep=" ") if hasattr(v, "isoformat") else v for v in row])
    return out.getvalue().encode("utf-8-sig")


def results_xlsx(frame) -> bytes:
    """Every answer as an Excel workbook (``openpyxl``), sheet ``answers``.

    Every text is an explicit string cell marked as text (never a formula or an
    error value, whatever it starts with); seats and question numbers are
    numbers, ``correct`` a boolean, the time a date (UTC, as Excel has no time zones).
    """
    import datetime
    import importlib.util

    if importlib.util.find_spec("openpyxl") is None:
        raise HandError("the Excel download needs openpyxl: pip install -e \".[app]\"",
                        code="missing_dependency")
    import openpyxl
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    header, rows = _table(frame)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "answers"
    for r, row in enumerate([header] + rows, start=1):
        for c, v in enumerate(row, start=1):
            cell = ws.cell(row=r, column=c)
            if isinstance(v, str):
                # assigning a str makes "=..." a formula and "#N/A" an error: force text
                cell.value = ILLEGAL_CHARACTERS_RE.sub("\ufffd", v)[:_XLSX_TEXT]
                cell.data_type = "s"
                if formula_like(v):
                    cell.quotePrefix = True      # Excel keeps it text when it is edited
            elif isinstance(v, datetime.datetime):
                if v.tzinfo is not None:
                    v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
                cell.value = v.to_pydatetime(warn=False) if hasattr(v, "to_pydatetime") else v
            else:
                cell.value = v
    out = io.BytesIO()
    try:
        wb.save(out)
    except (TypeError, ValueError, OverflowError) as exc:
        raise HandError(f"the Excel download could not be made ({exc})") from None
    return out.getvalue()
