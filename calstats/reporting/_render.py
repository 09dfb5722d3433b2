"""The report's renderings: one self-contained HTML page (inline SVG, no script, no network),
Markdown and LaTeX tables, and the short printed text.

In the HTML every number is a ``<span class="n">`` carrying the exact value it shows
(``data-value``, Python's shortest round-trip ``repr``) and where it belongs
(``data-section``, ``data-stat``, ``data-model``, ``data-part``; detail tables
``data-detail``, ``data-row``, ``data-col``), so that a reader's tool -- and the tests --
can check every number against the function it came from.
"""

import html
import math
import re
from typing import Any

import pandas as pd

from ..results._base import table_markdown
from ..results._tables import table_latex
from ._page import ALL, Detail, Row, Section, Value
from ._words import GLOSSARY, fmt_p

__all__ = ["number_text", "page", "fragment", "markdown", "latex", "text"]


# --------------------------------------------------------------------------------------
# numbers as shown


def number_text(v: Any, digits: int = 3, style: str = "number") -> str:
    """A number as the report shows it (``NA`` for a missing one).

    ``count``: a whole number; ``percent``: ``12.3%`` (``digits`` after the point);
    ``general``: ``digits`` significant digits;
    otherwise ``digits`` decimals, or three significant digits for a non-zero number that
    would show as 0 and for one of a million or more.
    """
    if v is None:
        return "NA"
    x = float(v)
    if not math.isfinite(x):
        return "NA" if math.isnan(x) else ("Inf" if x > 0 else "-Inf")
    if style == "count" and x == int(x):
        return f"{int(x)}"
    if style == "percent":
        return f"{100 * x:.{digits}f}%"
    if style == "general":
        return f"{x:.{digits}g}"
    if (x != 0 and abs(x) < 0.5 * 10.0 ** (-digits)) or abs(x) >= 1e6:
        return f"{x:.3g}"
    return f"{x:.{digits}f}"


def _value_repr(v: Any) -> str:
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return repr(int(v))
    x = float(v)
    return repr(x)


def _span(v: Any, shown: str, attrs: dict[str, str]) -> str:
    a = "".join(f' data-{k}="{html.escape(str(val), quote=True)}"' for k, val in attrs.items())
    return f'<span class="n"{a} data-value="{_value_repr(v)}">{html.escape(shown)}</span>'


def _value_parts(row: Row, v: Value) -> list[tuple[str, Any, str]]:
    """``(part, value, shown)`` of a cell, in reading order."""
    parts = [("estimate", v.estimate, number_text(v.estimate, row.digits, row.style))]
    if v.lower is not None and v.upper is not None:
        parts.append(("lower", v.lower, number_text(v.lower, row.digits, row.style)))
        parts.append(("upper", v.upper, number_text(v.upper, row.digits, row.style)))
    if v.df is not None:
        parts.append(("df", v.df, number_text(v.df, 0, "count")))
    if v.p_value is not None:
        parts.append(("p_value", v.p_value, fmt_p(v.p_value)))
    return parts


def cell_text(row: Row, v: Value | None) -> str:
    """A cell as plain text: ``0.872 (0.851 to 0.893)``, ``G = 1.23, p = 0.045``, and its
    flags in brackets (``4.554 (...) [828 of 1797 rows left out (risk exactly 0 or 1)]``)."""
    if v is None:
        return "not computed"
    parts = {k: s for k, _, s in _value_parts(row, v)}
    flags = f" [{'; '.join(v.flags)}]" if v.flags else ""
    if row.style == "test":
        out = f"{row.stat} = {parts['estimate']}"
        if "df" in parts:
            out += f", {parts['df']} df"
        p = parts.get("p_value", "NA")
        return out + (f", p {p}" if p.startswith("<") else f", p = {p}") + flags
    out = parts["estimate"]
    if "lower" in parts:
        out += f" ({parts['lower']} to {parts['upper']})"
    return out + flags


def _cell_html(sec: Section, row: Row, col: str, v: Value | None) -> str:
    if v is None:
        return '<td class="na">not computed (see the notes)</td>'
    base = {"section": sec.id, "stat": row.key, "model": col}
    spans = {k: _span(x, s, {**base, "part": k}) for k, x, s in _value_parts(row, v)}
    if row.style == "test":
        body = f'<span class="stat">{html.escape(row.stat)} =</span> {spans["estimate"]}'
        rest = ""
        if "df" in spans:
            rest += f', {spans["df"]} df'
        if "p_value" in spans:
            sign = " " if fmt_p(float(v.p_value or 0)).startswith("<") else " = "  # "< 0.0001" has its sign
            rest += f', <span class="stat">p</span>{sign}{spans["p_value"]}'
        if rest:
            body += f'<span class="ci">{rest}</span>'
    else:
        body = spans["estimate"]
        if "lower" in spans:
            body += f' <span class="ci">({spans["lower"]} to {spans["upper"]})</span>'
    say = f'<div class="say">{html.escape(v.sentence)}</div>' if v.sentence else ""
    flags = "".join(f'<div class="flag" role="note">\u26a0 {html.escape(f)}</div>' for f in v.flags)
    return f'<td><div class="v">{body}</div>{flags}{say}</td>'


def _column_label(col: str) -> str:
    return "All models" if col == ALL else col


def _rows_html(sec: Section) -> str:
    if not sec.rows:
        return ""
    cols = sec.columns
    head = '<th class="stat">Statistic</th>' + "".join(f"<th>{html.escape(_column_label(c))}</th>" for c in cols)
    body = []
    for row in sec.rows:
        label = f'<th class="stat" scope="row">{html.escape(row.label)}</th>'
        if set(row.values) == {ALL}:  # a number of the data: one cell across the models
            cell = _cell_html(sec, row, ALL, row.values[ALL]).replace("<td", f'<td colspan="{len(cols)}"', 1)
            body.append(f"<tr>{label}{cell}</tr>")
            continue
        cells = "".join(_cell_html(sec, row, c, row.values.get(c)) if c in row.values else '<td class="empty"></td>'
                        for c in cols)
        body.append(f"<tr>{label}{cells}</tr>")
    return (f'<table class="stats"><thead><tr>{head}</tr></thead><tbody>' + "".join(body)
            + "</tbody></table>")


def _detail_html(sec: Section, d: Detail) -> str:
    f = d.frame
    index_name = f.index.name or ""
    head = f"<th>{html.escape(str(index_name))}</th>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in f.columns)
    body = []
    for idx, r in f.iterrows():
        cells = []
        for col, v in r.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) or hasattr(v, "dtype"):
                x = float(v)
                if math.isnan(x):
                    cells.append('<td class="na">NA</td>')
                    continue
                style = "count" if math.isfinite(x) and x == int(x) and col in ("n", "cases", "bin") else "number"
                shown = number_text(x, d.digits, style)
                attrs = {"section": sec.id, "detail": d.key, "model": d.model or ALL, "row": _index_text(idx),
                         "col": col}
                cells.append(f"<td>{_span(x, shown, attrs)}</td>")
            else:
                cells.append(f"<td>{html.escape(str(v))}</td>")
        body.append(f"<tr><th>{html.escape(_index_text(idx))}</th>{''.join(cells)}</tr>")
    table = (f'<table class="detail"><thead><tr>{head}</tr></thead><tbody>' + "".join(body)
             + "</tbody></table>")
    open_ = ' open="open"' if d.open else ""
    return f'<details{open_}><summary>{html.escape(d.title)}</summary><div class="scroll">{table}</div></details>'


def _index_text(idx: Any) -> str:
    if isinstance(idx, float):
        return f"{idx:g}"
    return str(idx)


_ID = re.compile(r'\bid="([^"]+)"')
_NUMBER = re.compile(r"-?\d+\.\d{3,}")


class _Ids:
    """Page-wide state of the inlined figures: a counter for unique id prefixes and the
    glyphs already defined (matplotlib names a glyph after its font and character, so a
    glyph defined by one figure serves every later one)."""

    def __init__(self) -> None:
        self.count = 0
        self.glyphs: set[str] = set()


def _short(m: re.Match) -> str:
    """Path coordinates to two decimals of a point (1/7200 inch; nothing visible changes)."""
    return _NUMBER.sub(lambda n: (f"{float(n.group()):.2f}").rstrip("0").rstrip("."), m.group(0))


def _inline_svg(svg: str, ids: _Ids) -> str:
    """A figure's SVG made fit to share a page with others: every id but a glyph's made
    unique, glyphs defined once per page, path coordinates shortened."""
    ids.count += 1
    prefix = f"f{ids.count}-"
    own = {i for i in _ID.findall(svg) if "-" not in i}  # matplotlib's glyph ids are "<font>-<code>"
    glyphs = {i for i in _ID.findall(svg) if "-" in i}
    for g in glyphs & ids.glyphs:
        svg = re.sub(r'<path id="' + re.escape(g) + r'"[^>]*?/>\s*', "", svg, flags=re.S)
    ids.glyphs |= glyphs

    def ref(m):
        name = m.group(2)
        return f"{m.group(1)}{prefix}{name}" if name in own else m.group(0)

    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"' if m.group(1) in own else m.group(0), svg)
    svg = re.sub(r'((?:xlink:)?href="#)([^"]+)', ref, svg)
    svg = re.sub(r"(url\(#)([^)]+)", ref, svg)
    return re.sub(r'\sd="[^"]*"', _short, svg)


def _figures_html(sec: Section, ids: _Ids) -> str:
    """The section's figures side by side, one column per model (up to three a row); a
    wide figure (every model in one, or a grid of panels) on its own."""
    if not sec.figures:
        return ""
    out, wide = [], []
    for fig in sec.figures:
        svg = _inline_svg(fig.svg, ids)
        m = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
        wide.append(m is not None and float(m.group(1)) > 1.3 * float(m.group(2)))
        model = html.escape(fig.model or ALL, quote=True)
        out.append(f'<figure class="fig{" wide" if wide[-1] else ""}" data-section="{sec.id}" data-model="{model}">'
                   f"{svg}<figcaption>{html.escape(fig.caption)}</figcaption></figure>")
    if all(wide):
        return '<div class="figs">' + "".join(out) + "</div>"
    k = min(len(out), 3)
    return (f'<div class="figs" style="grid-template-columns:repeat({k},minmax(0,1fr));max-width:{460 * k}px">'
            + "".join(out) + "</div>")


def _section_html(sec: Section, ids: _Ids) -> str:
    parts = [f'<section id="sec-{sec.id}" data-section="{sec.id}">', f"<h2>{html.escape(sec.title)}</h2>"]
    if sec.intro:
        parts.append(f'<p class="intro">{html.escape(sec.intro)}</p>')
    table, figs = _rows_html(sec), _figures_html(sec, ids)
    if len(sec.columns) == 1 and len(sec.figures) == 1 and table and 'class="fig wide"' not in figs:
        # one model: its figure beside its numbers rather than below them
        parts.append(f'<div class="side"><div class="side-main">{table}</div>{figs}</div>')
    else:
        parts += [table, figs]
    parts.extend(_detail_html(sec, d) for d in sec.details)
    if sec.notes:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in sec.notes)
        parts.append(f'<div class="notes"><strong>Notes</strong><ul>{items}</ul></div>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _provenance_html(rep: Any) -> str:
    rows = []
    for sec in rep.sections:
        for what, call, r in sec.sources:
            rows.append(f"<tr><td>{html.escape(sec.title)}</td><td>{html.escape(what)}</td><td><code>"
                        f"{html.escape(call)}</code></td><td><code>{html.escape(r)}</code></td></tr>")
    s = rep.settings
    seeds = (f"Seed {s.seed}: every function that resamples is called with seed={s.seed} (R's set.seed({s.seed}) "
             "before the call, calstats.rng's copy of R's random stream); the caller's stream is left as it was.")
    rerun = (rep.source.rstrip("\n") + "\n" if rep.source else "") + rep.call
    items = [f"calstats {html.escape(rep.version)}; Python {html.escape(rep.environment['python'])}, "
             f"NumPy {html.escape(rep.environment['numpy'])}, pandas {html.escape(rep.environment['pandas'])}"
             + (f", matplotlib {html.escape(rep.environment['matplotlib'])}" if rep.environment.get("matplotlib")
                else "") + ".",
             seeds,
             "To rerun" + ("" if rep.source else " (with the same p and y)") + ":<pre class=\"rerun\"><code>"
             + html.escape(rerun) + "</code></pre>",
             f"Built {html.escape(rep.created)} in {rep.seconds:.1f} s."]
    lis = "".join(f"<li>{x}</li>" for x in items)
    return (
        '<section id="sec-provenance" data-section="provenance"><h2>How this report was computed</h2>'
        '<p class="intro">Every number above is returned by one call of a public calstats function, listed '
        "here as it ran, with the R function whose numbers it reproduces; the data were not changed. In the calls, "
        "<code>p</code> is one model's predictions (each model in turn), <code>models</code> the dict of every "
        "model's predictions, <code>y</code> the outcome"
        + (", <code>(time, status)</code> the follow-up times and event statuses (<code>time</code> and "
           "<code>status</code> apart)" if rep.kind in ("survival", "competing") else "")
        + (" (the event codes: 0 censored, 1, 2, ... the causes)" if rep.kind == "competing" else "")
        + (", <code>P</code> one model's risks by every time of the report (a column per time), "
           "<code>times</code> those times" if rep.times and len(rep.times) > 1 else "")
        + (", <code>w</code> the case weights" if rep.weighted else "") + ".</p>"
        f"<ul class=\"prov\">{lis}</ul>"
        '<div class="scroll"><table class="detail prov"><thead><tr><th>Section</th><th>Numbers</th>'
        "<th>calstats</th><th>R equivalent</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
        "</section>")


def _terms(rep: Any) -> list[str]:
    """The abbreviations of the page, in the order its sections use them."""
    out: list[str] = []
    for sec in rep.sections:
        for t in sec.terms:
            if t in GLOSSARY and t not in out:
                out.append(t)
    return out


def _glossary_html(rep: Any) -> str:
    terms = _terms(rep)
    if not terms:
        return ""
    items = "; ".join(f'<abbr title="{html.escape(GLOSSARY[t], quote=True)}"><b>{html.escape(t)}</b></abbr> '
                      f"{html.escape(GLOSSARY[t])}" for t in terms)
    return f'<p class="terms"><strong>Abbreviations.</strong> {items}.</p>'


_CSS = """
.calstats-report{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
 color:#1f2633;line-height:1.45;max-width:1180px;margin:0 auto;padding:22px 28px 48px;background:#fff}
.calstats-report h1{font-size:1.75em;margin:0 0 4px;font-weight:650;letter-spacing:-.01em}
.calstats-report h2{font-size:1.3em;margin:6px 0 6px;font-weight:620}
.calstats-report .meta{color:#566074;margin:0 0 10px}
.calstats-report .summary{background:#f4f7fb;border:1px solid #dfe6f0;border-radius:8px;padding:10px 16px;
 margin:12px 0 6px}
.calstats-report .summary p{margin:4px 0}
.calstats-report nav{margin:10px 0 4px;font-size:.92em}
.calstats-report nav ol{margin:0;padding-left:1.3em;columns:3 15em}
.calstats-report nav a{color:#2a5db0;text-decoration:none}
.calstats-report section{border-top:1px solid #e2e7ef;margin-top:26px;padding-top:8px}
.calstats-report p.intro{color:#3b4456;max-width:60em;margin:4px 0 10px}
.calstats-report table{border-collapse:collapse}
.calstats-report table.stats{width:100%;table-layout:fixed;margin:8px 0 12px}
.calstats-report table.stats th,.calstats-report table.stats td{border-bottom:1px solid #e7eaf0;
 padding:7px 10px;vertical-align:top;text-align:left}
.calstats-report table.stats thead th{border-bottom:2px solid #c9d1de;font-weight:620;color:#2b3445}
.calstats-report table.stats th.stat{width:15em;font-weight:560;color:#2b3445}
.calstats-report .v{font-variant-numeric:tabular-nums;font-weight:620;font-size:1.02em}
.calstats-report .v .ci{font-weight:450;color:#3b4456}
.calstats-report .v .stat{font-weight:450;font-style:italic;color:#3b4456}
.calstats-report .say{font-size:.86em;color:#4a5366;margin-top:2px}
.calstats-report td.na{color:#8a6d1d;font-size:.9em}
.calstats-report .figs{display:grid;grid-template-columns:minmax(0,1fr);gap:14px;margin:10px 0}
.calstats-report figure.fig{margin:0;border:1px solid #e3e8ef;border-radius:6px;padding:8px 8px 6px;
 background:#fff}
.calstats-report figure.fig.wide{grid-column:1/-1;max-width:760px}
.calstats-report figure.fig svg{display:block;width:100%;height:auto}
.calstats-report figcaption{font-size:.84em;color:#4a5366;margin-top:4px}
.calstats-report details{margin:8px 0}
.calstats-report summary{cursor:pointer;color:#2a5db0;font-size:.95em}
.calstats-report .scroll{overflow-x:auto}
.calstats-report table.detail{font-size:.84em;margin:6px 0;font-variant-numeric:tabular-nums}
.calstats-report table.detail th,.calstats-report table.detail td{border-bottom:1px solid #eceff4;
 padding:3px 9px;text-align:right;vertical-align:top}
.calstats-report table.detail thead th{border-bottom:1px solid #c9d1de}
.calstats-report table.prov td,.calstats-report table.prov th{text-align:left}
.calstats-report code{font-size:.9em;background:#f3f5f8;border-radius:3px;padding:0 3px;
 overflow-wrap:anywhere}
.calstats-report .notes{font-size:.85em;color:#5d4a12;background:#fff8e6;border-left:3px solid #e0b44c;
 padding:6px 12px;margin:10px 0;border-radius:0 4px 4px 0}
.calstats-report .notes ul{margin:2px 0;padding-left:1.2em}
.calstats-report ul.prov{font-size:.92em}
.calstats-report pre.rerun{background:#f3f5f8;border-radius:4px;padding:6px 10px;white-space:pre-wrap;
 overflow-wrap:anywhere;font-size:.88em}
.calstats-report .flag{font-size:.84em;color:#8a4b00;margin-top:2px}
.calstats-report p.terms{font-size:.86em;color:#3b4456;max-width:70em;margin:8px 0}
.calstats-report abbr{text-decoration:none}
.calstats-report .side{display:flex;gap:20px;align-items:flex-start}
.calstats-report .side-main{flex:1 1 auto;min-width:0}
.calstats-report .side .figs{flex:0 0 440px;margin-top:8px}
.calstats-report table.glance{margin-top:4px}
.calstats-report table.glance a{color:inherit;text-decoration:none;border-bottom:1px dotted #8a95a8}
@media (max-width:900px){.calstats-report .side{display:block}}
@media (max-width:800px){.calstats-report .figs{grid-template-columns:minmax(0,1fr)!important}
 .calstats-report table.stats th.stat{width:9em}}
@media print{.calstats-report{max-width:none;padding:0}.calstats-report section{break-inside:auto}
 .calstats-report figure.fig{break-inside:avoid}}
"""


def _glance_html(rep: Any) -> str:
    """The headline numbers of every model in one table (the same spans as their sections)."""
    pairs = rep.glance()
    if not pairs:
        return ""
    cols = list(rep.models)
    head = '<th class="stat">At a glance</th>' + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for sec, row in pairs:
        cells = []
        for c in cols:
            v = row.values.get(c)
            cell = _cell_html(sec, row, c, v)
            cells.append(re.sub(r'<div class="say">.*?</div>', "", cell, flags=re.S))
        link = f'<a href="#sec-{sec.id}">{html.escape(row.label)}</a>'
        body.append(f'<tr><th class="stat" scope="row">{link}</th>{"".join(cells)}</tr>')
    return (f'<table class="stats glance"><thead><tr>{head}</tr></thead><tbody>' + "".join(body)
            + "</tbody></table>")


def fragment(rep: Any) -> str:
    """The report inside ``<div class="calstats-report">`` with its own style (for notebooks)."""
    ids = _Ids()
    toc = "".join(f'<li><a href="#sec-{s.id}">{html.escape(s.title)}</a></li>' for s in rep.sections)
    toc += '<li><a href="#sec-provenance">How this report was computed</a></li>'
    head = (f"<h1>{html.escape(rep.title)}</h1>"
            f'<p class="meta">{html.escape(rep.description())}</p>' + _glance_html(rep) + _glossary_html(rep)
            + f'<nav aria-label="Sections"><ol>{toc}</ol></nav>')
    body = "\n".join(_section_html(s, ids) for s in rep.sections)
    return (f"<style>{_CSS}</style>\n<div class=\"calstats-report\">{head}\n{body}\n"
            f"{_provenance_html(rep)}</div>")


def page(rep: Any) -> str:
    """A complete HTML document: no script, no external resource."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>\n'
            f'<meta name="generator" content="calstats {html.escape(rep.version)}"/>\n'
            f"<title>{html.escape(rep.title)}</title>\n</head>\n<body style=\"margin:0\">\n"
            + fragment(rep) + "\n</body>\n</html>\n")


# --------------------------------------------------------------------------------------
# tables as Markdown, LaTeX and text


def key_tables(rep: Any) -> list[tuple[str, pd.DataFrame]]:
    """``(section title, table of strings)`` of every section's key statistics."""
    out = []
    for sec in rep.sections:
        if not sec.rows:
            continue
        cols = sec.columns
        data = []
        for row in sec.rows:
            if set(row.values) == {ALL}:  # a number of the data, the same for every model
                cells = [cell_text(row, row.values[ALL])] * len(cols)
            else:
                cells = [cell_text(row, row.values.get(c)) if c in row.values else "" for c in cols]
            data.append(cells)
        frame = pd.DataFrame(data, columns=[_column_label(c) for c in cols],
                             index=pd.Index([r.label for r in sec.rows], name="statistic"))
        out.append((sec.title, frame))
    return out


def _detail_strings(d: Detail) -> pd.DataFrame:
    def show(col, v):
        if isinstance(v, (int, float)) or hasattr(v, "dtype"):
            x = float(v)
            whole = math.isfinite(x) and x == int(x) and col in ("n", "cases", "bin")
            return number_text(x, d.digits, "count" if whole else "number")
        return str(v)

    f = d.frame
    out = pd.DataFrame([[show(c, v) for c, v in r.items()] for _, r in f.iterrows()], columns=[str(c) for c in f.columns],
                       index=pd.Index([_index_text(i) for i in f.index], name=str(f.index.name or "")))
    return out


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


_md_table = table_markdown  # the one Markdown table writer of calstats' results


def markdown(rep: Any, details: bool = True) -> str:
    parts = [f"# {rep.title}", "", rep.description(), ""]
    terms = _terms(rep)
    if terms:
        parts += ["*Abbreviations:* " + "; ".join(f"{_md_escape(t)}: {GLOSSARY[t]}" for t in terms) + ".", ""]
    tables = dict(key_tables(rep))
    for sec in rep.sections:
        if sec.title not in tables and not (details and sec.details):
            continue
        parts += [f"## {sec.title}", ""]
        if sec.title in tables:
            parts += [_md_table(tables[sec.title]), ""]
        if details:
            for d in sec.details:
                parts += [f"**{d.title}**", "", _md_table(_detail_strings(d)), ""]
    return "\n".join(parts).rstrip("\n") + "\n"


def latex(rep: Any, details: bool = True) -> str:
    blocks = [f"% {rep.title}: {rep.description()}"]
    for title, frame in key_tables(rep):
        blocks.append(f"% {title}\n" + table_latex(frame))
    if details:
        for sec in rep.sections:
            for d in sec.details:
                blocks.append(f"% {sec.title}: {d.title}\n" + table_latex(_detail_strings(d)))
    return "\n\n".join(blocks) + "\n"


def text(rep: Any) -> str:
    """The printed report: the title, the data and the headline numbers of every model."""
    lines = [rep.title, rep.description(), ""]
    names = list(rep.models)
    shown = rep.as_frame()
    keys = [("discrimination", "c_statistic"), ("discrimination", "pdi"), ("discrimination", "harrell"),
            ("discrimination", "uno"), ("discrimination", "auc_t"), ("hierarchy", "citl"), ("hierarchy", "slope"),
            ("hierarchy", "cox_slope"), ("curve", "Eavg"), ("corp", "brier"), ("corp", "mcb"), ("binned", "ece"),
            ("accuracy", "brier_t"), ("accuracy", "ipa"), ("hierarchy", "eci")]
    table: dict[str, list[str]] = {}
    for sec_id, key in keys:
        sec = next((s for s in rep.sections if s.id == sec_id), None)
        row = None if sec is None else next((r for r in sec.rows if r.key == key), None)
        if row is None:
            continue
        table[row.label] = [cell_text(row, row.values.get(n)) for n in names]
    if table:
        frame = pd.DataFrame.from_dict(table, orient="index", columns=names)
        lines += frame.to_string().splitlines()
        lines.append("")
    lines.append(f"{len(shown)} numbers in {len(rep.sections)} sections: " + ", ".join(s.id for s in rep.sections)
                 + "; .to_html(path) writes the page.")
    return "\n".join(lines) + "\n"
