"""Report tables: one DataFrame, four renderings.

statsmodels' ``iolib`` (``SimpleTable``) writes the text, HTML and LaTeX of its own
``summary()`` tables; calstats renders its tables (summaries, coefficient tables,
comparisons) with the same machinery, so a table looks the same in a statsmodels report and
in ours. Markdown is written here (a GitHub pipe table), so no extra package (pandas'
``to_markdown`` needs ``tabulate``) is needed for it.
"""

import math

import numpy as np
import pandas as pd
from statsmodels.iolib.table import SimpleTable

__all__ = ["simple_table", "table_text", "table_html", "table_latex", "table_markdown"]


def _cell(v):
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "NaN"
        return f"{v:.6g}"
    return str(v)


def simple_table(frame, title=None):
    """A statsmodels ``SimpleTable`` of ``frame``: the index as the stub column, numbers in
    six significant digits."""
    frame = pd.DataFrame(frame)
    data = [[_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    stubs = [str(i) for i in frame.index]
    headers = [str(c) for c in frame.columns]
    # SimpleTable's text writer puts the stub header above the stubs
    table = SimpleTable(data or [[""] * len(headers)], headers=headers, stubs=stubs or None, title=title,
                        txt_fmt={"stub_align": "l"})
    return table


def table_text(frame, title=None):
    return simple_table(frame, title).as_text()


def table_html(frame, title=None):
    return simple_table(frame, title).as_html()


def _latex_escape(text):
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
    return "".join(repl.get(ch, ch) for ch in str(text))


def table_latex(frame, title=None):
    r"""LaTeX ``tabular`` (booktabs rules); cells, headers and row names are escaped for LaTeX
    once, here: statsmodels' own replacements are switched off (statsmodels escapes ``_``,
    ``%``, ``&``, ... itself, which turned an escaped ``\_`` into ``\\_``, a line break)."""
    frame = pd.DataFrame(frame)
    shown = pd.DataFrame([[_latex_escape(_cell(v)) for v in row] for row in frame.itertuples(index=False, name=None)],
                         columns=[_latex_escape(c) for c in frame.columns],
                         index=[_latex_escape(i) for i in frame.index])
    return simple_table(shown, None if title is None else _latex_escape(title)).as_latex_tabular(replacements={})


def _md_cell(v):
    return _cell(v).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table_markdown(frame):
    """A GitHub-flavoured Markdown pipe table of ``frame``: the index first (left-aligned,
    headed by the index's name), then the columns (right-aligned); numbers in six
    significant digits, as the other renderings; ``|`` escaped. No ``tabulate`` needed."""
    frame = pd.DataFrame(frame)
    head = [_md_cell(frame.index.name or "")] + [_md_cell(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([" --- "] + [" ---: "] * len(frame.columns)) + "|"]
    for idx, row in zip(frame.index, frame.itertuples(index=False, name=None)):
        lines.append("| " + " | ".join([_md_cell(idx)] + [_md_cell(v) for v in row]) + " |")
    return "\n".join(lines)
