"""How R's tibble prints a small data frame (pillar 1.8.1 under tibble 3.1.8), for results
that R returns as a tibble (reliabilitydiag's summary).

Only what those tables need: character and double columns, R's default options (3
significant figures, ``pillar.max_dec_width = 13``), a UTF-8 console (``×`` and ``…``) wide
enough for the table (columns are not squeezed or abbreviated to 80 characters), and the
first 10 of more than 20 rows. The number formatting follows pillar's ``split_decimal``,
``compute_exp``, ``compute_rhs_digits``, ``format_lhs``/``format_dec``/``format_rhs`` and
``supernum`` step by step: decimal notation unless its width exceeds 13, otherwise
scientific with a common exponent column; R's ``signif`` is nmath's ``fprec``.
"""

import math

from .rformat import signif

__all__ = ["format_tibble", "format_dbl_column"]

_SIGFIG = 3
_MAX_DEC_WIDTH = 13
_LOG_10 = 2.302585092994046  # log(10)
_EPS_2 = 2 * 2.220446049250313e-16  # pillar's eps_2


def _compute_exp(x, sigfig):
    """pillar ``compute_exp``: ``floor(log10(x) - offset)`` for finite non-zero x, else None."""
    offset = math.log1p(-5 * 10.0 ** (-sigfig - 1)) / _LOG_10
    return [int(math.floor(math.log10(v) - offset)) if (math.isfinite(v) and v != 0) else None for v in x]


def _within_tolerance(x, y):
    """pillar ``within_tolerance`` for two doubles."""
    if math.isnan(x) or math.isnan(y):
        return False
    l2x = _round_log2(x)
    l2y = _round_log2(y)
    if l2x != l2y:
        return False
    if x == y:
        return True
    return abs((x - y) * 2.0 ** -l2x) <= _EPS_2


def _round_log2(v):
    if v == 0:
        return -math.inf
    if v < 0:
        return math.nan
    return float(round(math.log2(v)))


def _compute_rhs_digits(x, sigfig):
    exp = [math.inf if e is None else e for e in _compute_exp(x, sigfig)]
    rhs = [0] * len(x)
    finite = [v for v in x if not math.isnan(v)]
    if not all(v == math.trunc(v) if math.isfinite(v) else True for v in finite):
        for i, e in enumerate(exp):
            if e <= sigfig:
                rhs[i] = int(sigfig - 1 - e)
        for i in range(len(x)):
            while rhs[i] > 0:
                val = x[i] * 10.0 ** (rhs[i] - 1)
                if _within_tolerance(val, float(round(val))):
                    rhs[i] -= 1
                else:
                    break
    return rhs


def _split_decimal(x, sci, na):
    """pillar ``split_decimal(x, sigfig = 3)`` (``sci_mod = 1`` when ``sci``); ``na`` marks
    R's NA among the NaNs."""
    sigfig = _SIGFIG
    num = [math.isfinite(v) for v in x]
    dec = list(num)
    neg = [(not math.isnan(v)) and v < 0 for v in x]
    abs_x = [abs(v) for v in x]
    mnt = list(abs_x)
    if sci:
        exp = _compute_exp(mnt, sigfig)
        for i in range(len(x)):
            if num[i] and mnt[i] != 0:
                mnt[i] = mnt[i] / 10.0 ** exp[i]
        exp_display = exp
    else:
        exp = [0] * len(x)
        exp_display = [None] * len(x)
    min_sigfig = [int(math.floor(math.log10(v))) + 1 if (math.isfinite(v) and v != 0) else None for v in mnt]
    round_mnt = [signif(v, sigfig if m is None else max(sigfig, m)) for v, m in zip(mnt, min_sigfig)]
    rhs_digits = _compute_rhs_digits(mnt, sigfig)
    lhs = [math.trunc(v) if math.isfinite(v) else v for v in round_mnt]
    rhs = [(r - lv) if math.isfinite(r) else math.nan for r, lv in zip(round_mnt, lhs)]
    for i in range(len(x)):
        if not math.isfinite(mnt[i]):
            continue
        e = exp[i]
        if mnt[i] == 0 or (rhs[i] == 0 and e is not None and _within_tolerance(lhs[i] * 10.0 ** e, abs_x[i])):
            dec[i] = False
    lhs_str = []
    for v, lv, is_na in zip(x, lhs, na):
        if math.isnan(v):
            lhs_str.append("NA" if is_na else "NaN")
        elif math.isinf(v):
            lhs_str.append("Inf")
        else:
            lhs_str.append(f"{lv:.0f}")
    return {"num": num, "neg": neg, "lhs": lhs_str, "rhs": rhs, "rhs_digits": rhs_digits, "dec": dec,
            "exp": exp_display}


def _width(s):
    exps = [e for e in s["exp"] if e is not None]
    exp_digits = 0
    if exps:
        exp_digits = int(any(e < 0 for e in exps)) + max(max(2 + math.trunc(math.log10(abs(e) + 0.5)) for e in exps), 0)
    return (max(max(int(ng) + len(lv) for ng, lv in zip(s["neg"], s["lhs"])), 0) + int(any(s["dec"]))
            + max(max(s["rhs_digits"]), 0) + exp_digits)


def _assemble(s):
    n = len(s["lhs"])
    lhs = [("-" if s["neg"][i] else "") + s["lhs"][i] for i in range(n)]
    any_dec = any(s["dec"])
    dec = [("." if s["dec"][i] else " ") if any_dec else "" for i in range(n)]
    rhs = []
    for i in range(n):
        d = s["rhs_digits"][i]
        r = s["rhs"][i]
        if math.isnan(r):
            num_txt = "NA"
        else:
            num_txt = f"{abs(round(r * 10.0 ** d)):.0f}"
        if num_txt == "0":
            num_txt = ""
        zeros = "0" * max(0, d - len(num_txt))
        rhs.append(zeros + num_txt if s["dec"][i] else "")
    rw = max(max(s["rhs_digits"]), 0)
    rhs = [r.ljust(rw) for r in rhs]
    exps = s["exp"]
    if any(e is not None for e in exps):
        has_neg = any(e is not None and e < 0 for e in exps)
        digits = ["" if e is None else str(abs(e)) for e in exps]
        dw = max(len(d) for d in digits)
        out_exp = []
        for e, d in zip(exps, digits):
            sign = (" " if e is None else ("-" if e < 0 else "+")) if has_neg else ""
            out_exp.append((" " if e is None else "e") + sign + d.rjust(dw))
    else:
        out_exp = [""] * n
    return [lhs[i] + dec[i] + rhs[i] + out_exp[i] for i in range(n)]


def format_dbl_column(values):
    """The cells of a double column as pillar prints them (before the column is padded to
    its title's width): decimal notation, or scientific when that is wider than 13.
    ``None`` is R's NA (a NaN prints as NaN)."""
    na = [v is None for v in values]
    x = [math.nan if v is None else float(v) for v in values]
    if not x:
        return []
    d = _split_decimal(x, False, na)
    s = d if _width(d) <= _MAX_DEC_WIDTH else _split_decimal(x, True, na)
    cells = _assemble(s)
    w = max(_width(s), max(len(c) for c in cells))
    return [c.rjust(w) for c in cells]


def format_tibble(columns, max_rows=20, shown_rows=10):
    """``print(tibble)``: ``columns`` a list of ``(name, kind, values)`` with kind ``"chr"``
    or ``"dbl"``. Returns the text with a trailing newline."""
    n = len(columns[0][2]) if columns else 0
    show = n if n <= max_rows else shown_rows
    head = [f"# A tibble: {n} \u00d7 {len(columns)}"]
    ids = [str(i + 1) for i in range(show)]
    idw = max((len(i) for i in ids), default=0)
    titles, types, cells = [], [], []
    for name, kind, values in columns:
        vals = list(values)[:show]
        if kind == "chr":
            col = ["<NA>" if v is None else str(v) for v in vals]
            w = max([len(name), 5] + [len(c) for c in col])
            titles.append(name.ljust(w))
            types.append("<chr>".ljust(w))
            cells.append([c.ljust(w) for c in col])
        else:
            col = format_dbl_column(list(values))[:show]
            w = max([len(name), 5] + [len(c) for c in col])
            titles.append(name.rjust(w))
            types.append("<dbl>".rjust(w))
            cells.append([c.rjust(w) for c in col])
    lines = head
    lines.append(" " * idw + " " + " ".join(titles))
    lines.append(" " * idw + " " + " ".join(types))
    for r in range(show):
        lines.append(ids[r].rjust(idw) + " " + " ".join(c[r] for c in cells))
    if show < n:
        lines.append(f"# \u2026 with {n - show} more rows")
    return "\n".join(lines) + "\n"
