"""R's printing for the rms results (``print.lrm``, ``print.validate``, the calibration
matrix): rms' ``formatNP`` and ``prStats``, Hmisc's ``print.char.matrix``, R's
``print.default`` of character and numeric matrices and R's ``deparse`` of the call, each
reproduced as R 4.2.2 with rms 6.5-0 writes it."""

import math
import re

from ..numerics.rformat import format_numeric, format_real, named_rows, r_round, signif

__all__ = ["format_np", "signif", "pr_stats", "print_char_matrix_left", "print_num_matrix", "deparse_call",
           "format_one", "named_vector_lines"]


def format_one(v):
    """R's ``format(v)`` of one number (7 significant digits); integers as such."""
    if isinstance(v, int):
        return str(v)
    return format_real([float(v)], 7)[0].strip()


def format_np(values, digits=None, pvalue=False):
    """rms' ``formatNP(x, digits, pvalue)``: ``format(round(x, digits), nsmall = digits,
    scientific = 1)`` (``format(x, scientific = 1)`` without ``digits``), ``""`` for NA, and
    ``"<0.0001"`` for p-values below ``10^-digits``. Strings padded to a common width as R's
    ``format`` pads them."""
    vals = [float(v) for v in values]
    if digits is not None:
        rounded = [r_round(v, digits) if math.isfinite(v) else v for v in vals]
        out = format_numeric(rounded, 7, nsmall=int(digits), scipen=1)
    else:
        out = format_real(vals, 7, scipen=1)
    out = ["" if math.isnan(v) else s for v, s in zip(vals, out)]
    if pvalue:
        tiny = "<0." + "0" * (int(digits) - 1) + "1"
        out = [tiny if (not math.isnan(v) and v < 10.0 ** (-int(digits))) else s for v, s in zip(vals, out)]
    return out


def _spaces(n):
    return "" if n <= 0.5 else " " * int(math.floor(n))


def pr_stats(labels, columns):
    """rms' ``prStats(labels, w)`` in plain text: the statistics block of ``print.lrm``.

    ``columns`` holds, for each label, a list of ``(name, value, digits)``: ``digits`` None
    for R's ``format(value)``, negative for a p-value with ``-digits`` digits, and the name
    ``"max |deriv|"`` formatted as ``formatNP(signif(value, 1))``.
    """
    width = []
    cells = []
    for lab, entries in zip(labels, columns):
        labs = lab.split("\n")
        wid = max(len(s) for s in labs)
        fu = []
        for name, value, dg in entries:
            if name == "max |deriv|":
                fu.append(format_np([signif(value, 1)])[0])
            elif dg is None:
                fu.append(format_one(value))
            elif dg < 0:
                fu.append(format_np([value], -dg, pvalue=True)[0])
            else:
                fu.append(format_np([value], dg)[0])
        last = entries[-1][0]  # R's loop variable left from the loop above
        for s in fu:
            wid = max(wid, 1 + len(last) + len(s))
        width.append(wid)
        head = "\n".join(_spaces((wid - len(s)) / 2) + s for s in labs)
        body = "\n".join(name + _spaces(wid - len(s) - len(name)) + s for (name, _, _), s in zip(entries, fu))
        cells.append((head, body))
    return print_char_matrix([[c[0] for c in cells], [c[1] for c in cells]])


def print_char_matrix(rows, hsep="    "):
    """Hmisc's ``print.char.matrix(x, vsep = "", hsep = hsep, csep = "", top.border = FALSE,
    left.border = FALSE)`` without row names: cells split at newlines, each column's lines
    right-aligned to its widest line, every line ending with ``hsep``."""
    expanded = []
    for row in rows:
        split = [(" " if c == "" else c).split("\n") for c in row]
        height = max(len(s) for s in split)
        split = [s + [" "] * (height - len(s)) for s in split]
        for k in range(height):
            expanded.append([s[k] for s in split])
    ncol = len(expanded[0])
    widths = [max(len(r[j]) for r in expanded) for j in range(ncol)]
    return [hsep.join(r[j].rjust(widths[j]) for j in range(ncol)) + hsep for r in expanded]


def print_char_matrix_left(rownames, colnames, cells, width=80):
    """R's ``print(m, quote = FALSE)`` of a character matrix: left-aligned cells and column
    names, row names left-aligned, columns wrapped in blocks at ``width``."""
    rw = max([len(r) for r in rownames] + [0])
    cw = [max([len(colnames[j])] + [len(row[j]) for row in cells]) for j in range(len(colnames))]
    lines = []
    for block in _blocks(rw, cw, width):
        lines.append(" " * rw + "".join(" " + colnames[j].ljust(cw[j]) for j in block))
        for r, row in zip(rownames, cells):
            lines.append(r.ljust(rw) + "".join(" " + row[j].ljust(cw[j]) for j in block))
    return lines


def _blocks(rw, cw, width):
    out = []
    j = 0
    while j < len(cw):
        used = rw
        block = []
        while j < len(cw) and (not block or used + cw[j] + 1 < width):
            used += cw[j] + 1
            block.append(j)
            j += 1
        out.append(block)
    return out


def print_num_matrix(rownames, colnames, columns, digits=7, width=80):
    """R's ``print.default`` of a numeric matrix: each column formatted by itself
    (``formatReal`` with ``digits``; ``NA`` for missing), right-aligned under right-aligned
    column names; row names left-aligned (``[1,]``... right-aligned when there are none);
    columns wrapped in blocks at ``width``."""
    nrow = len(columns[0]) if columns else 0
    if rownames is None:
        labels = [f"[{i + 1},]" for i in range(nrow)]
        rw = max(len(s) for s in labels) if labels else 0
        labels = [s.rjust(rw) for s in labels]
    else:
        labels = list(rownames)
        rw = max(len(s) for s in labels) if labels else 0
        labels = [s.ljust(rw) for s in labels]
    formatted = []
    for col in columns:
        vals = [float(v) for v in col]
        fin = [v for v in vals if not math.isnan(v)]
        body = [s.strip() for s in format_real(fin, digits)] if fin else []
        it = iter(body)
        formatted.append([next(it) if not math.isnan(v) else "NA" for v in vals])
    cw = [max([len(colnames[j])] + [len(s) for s in formatted[j]]) for j in range(len(columns))]
    lines = []
    for block in _blocks(rw, cw, width):
        lines.append(" " * rw + "".join(" " + colnames[j].rjust(cw[j]) for j in block))
        for i in range(nrow):
            lines.append(labels[i] + "".join(" " + formatted[j][i].rjust(cw[j]) for j in block))
    return lines


def named_vector_lines(names, values, digits=7, width=80):
    """R's ``print()`` of a named numeric vector (integers printed as such), as lines."""
    if all(isinstance(v, int) for v in values):
        vals = [str(v) for v in values]
    else:
        vals = [s.strip() for s in format_real([float(v) for v in values], digits)]
    return named_rows(list(names), vals, width).split("\n")


# --------------------------------------------------------------------------------------
# R's deparse of a call (width.cutoff = 60)

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+\.?\d*(?:[eE][+-]?\d+)?L?|\.\d+(?:[eE][+-]?\d+)?)"
                    r"|(?P<str>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
                    r"|(?P<name>[A-Za-z.][A-Za-z0-9._]*|`[^`]*`)"
                    r"|(?P<op>%[^%]*%|\*\*|==|!=|<=|>=|[-+*/^:~(),=<>|&!\[\]$@]))")

# binary operators: (precedence, right associative, spaced with a line break after them)
_BINARY = {"~": (1, False, True), "|": (3, False, True), "&": (4, False, True),
           "==": (6, False, True), "!=": (6, False, True), "<": (6, False, True), ">": (6, False, True),
           "<=": (6, False, True), ">=": (6, False, True),
           "+": (7, False, True), "-": (7, False, True), "*": (8, False, True), "/": (8, False, False),
           ":": (10, False, False), "^": (12, True, False)}
_SPECIAL_PREC = 9  # %any%


class _Parser:
    def __init__(self, text):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(text[pos:])
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def expr(self, min_prec=0):
        kind, val = self.peek()
        if kind == "op" and val in ("-", "+", "~", "!"):
            self.take()
            operand = self.expr(11 if val in "-+" else (2 if val == "~" else 5))
            left = ("unary", val, operand)
        else:
            left = self.primary()
        while True:
            kind, val = self.peek()
            if kind != "op":
                break
            op = "^" if val == "**" else val
            if op in _BINARY:
                prec, right, _ = _BINARY[op]
            elif op.startswith("%") and len(op) > 1:
                prec, right = _SPECIAL_PREC, False
            else:
                break
            if prec < min_prec:
                break
            self.take()
            rhs = self.expr(prec if right else prec + 1)
            left = ("binary", op, left, rhs)
        return left

    def primary(self):
        kind, val = self.take()
        if kind == "op" and val == "(":
            inner = self.expr()
            self.expect(")")
            node = ("paren", inner)
        elif kind in ("num", "str", "name"):
            node = (kind, val)
        else:
            raise ValueError(val)
        while self.peek() == ("op", "("):
            self.take()
            args = []
            if self.peek() != ("op", ")"):
                while True:
                    name = None
                    if self.peek()[0] == "name" and self.i + 1 < len(self.toks) and self.toks[self.i + 1] == ("op", "="):
                        name = self.take()[1]
                        self.take()
                    args.append((name, self.expr()))
                    if self.peek() == ("op", ","):
                        self.take()
                        continue
                    break
            self.expect(")")
            node = ("call", node, args)
        return node

    def expect(self, val):
        if self.take() != ("op", val):
            raise ValueError(val)


class _Deparse:
    """R's ``deparse2buff`` line breaking (``cutoff = 60``)."""

    def __init__(self, cutoff=60):
        self.lines = []
        self.buf = ""
        self.indent = 0
        self.startline = True
        self.cutoff = cutoff

    def put(self, s):
        if self.startline:
            self.startline = False
            self.buf += "".join("    " if i <= 4 else "  " for i in range(1, self.indent + 1))
        self.buf += s

    def writeline(self):
        self.lines.append(self.buf)
        self.buf = ""
        self.startline = True

    def linebreak(self, flag):
        if len(self.buf) > self.cutoff:
            if not flag[0]:
                flag[0] = True
                self.indent += 1
            self.writeline()

    def node(self, n):
        kind = n[0]
        if kind in ("name", "str"):
            self.put(n[1])
        elif kind == "num":
            self.put(_num_text(n[1]))
        elif kind == "paren":
            self.put("(")
            self.node(n[1])
            self.put(")")
        elif kind == "unary":
            self.put(n[1])
            self.node(n[2])
        elif kind == "binary":
            op = n[1]
            spaced = _BINARY.get(op, (0, False, True))[2] if not op.startswith("%") else True
            self.node(n[2])
            if spaced:
                self.put(f" {op} ")
                flag = [False]
                self.linebreak(flag)
                self.node(n[3])
                if flag[0]:
                    self.indent -= 1
            else:
                self.put(op)
                self.node(n[3])
        elif kind == "call":
            self.node(n[1])
            self.put("(")
            self.args(n[2])
            self.put(")")
        elif kind == "raw":
            self.put(n[1])

    def args(self, args):
        flag = [False]
        for k, (name, value) in enumerate(args):
            if name is not None:
                self.put(f"{name} = ")
            self.node(value)
            if k < len(args) - 1:
                self.put(", ")
                self.linebreak(flag)
        if flag[0]:
            self.indent -= 1


def _num_text(tok):
    if tok.endswith("L"):
        return tok
    from ..numerics.rformat import as_character

    return as_character(float(tok))


def deparse_call(fname, args):
    """R's ``deparse()`` of the call ``fname(name = value, ...)``: ``args`` is a list of
    ``(name, R source text)``; the lines as R writes them (``width.cutoff = 60``). Source
    text R's parser would not read (Python code) is written as given."""
    nodes = []
    for name, text in args:
        try:
            p = _Parser(text)
            node = p.expr()
            if p.i != len(p.toks):
                raise ValueError(text)
        except (ValueError, IndexError):
            node = ("raw", text)
        nodes.append((name, node))
    d = _Deparse()
    d.put(fname + "(")
    d.args(nodes)
    d.put(")")
    d.writeline()
    return d.lines


def char_vector_lines(values, width=80):
    """R's ``print(x, quote = FALSE)`` of a character vector: left-aligned to a common width,
    ``[i]`` labels right-aligned, wrapped at ``width``."""
    if not values:
        return ["character(0)"]
    w = max(len(s) for s in values)
    n = len(values)
    lab_w = len(f"[{n}]")
    per_line = max(1, (width - lab_w) // (w + 1))
    lines = []
    for start in range(0, n, per_line):
        chunk = values[start:start + per_line]
        lines.append(f"[{start + 1}]".rjust(lab_w) + "".join(" " + s.ljust(w) for s in chunk))
    return lines


def fastbw_lines(fbw, digits=4, estimates=True):
    """What ``print(fastbw(...))`` writes (``print.fastbw``)."""
    from ..numerics.nmath import pchisq_upper

    lines = []
    if fbw.result:
        cols = list(zip(*[r[1:] for r in fbw.result]))
        fmt = [format_real([r_round(v, 2) for v in cols[0]]), format_real(cols[1]),
               format_real([r_round(v, 4) for v in cols[2]]), format_real([r_round(v, 2) for v in cols[3]]),
               format_real(cols[4]), format_real([r_round(v, 4) for v in cols[5]]),
               format_real([r_round(v, 2) for v in cols[6]])]
        cells = [[r[0]] + [f[i] for f in fmt] for i, r in enumerate(fbw.result)]
        lines.append("")
        lines += print_char_matrix_left([""] * len(cells),
                                        ["Deleted", "Chi-Sq", "d.f.", "P", "Residual", "d.f.", "P", "AIC"], cells)
        if estimates and fbw.coefficients is not None and len(fbw.coefficients):
            lines += ["", "Approximate Estimates after Deleting Factors", ""]
            cof = fbw.coefficients
            se = [math.sqrt(v) for v in (fbw.var.diagonal() if cof.size > 1 else [float(fbw.var.ravel()[0])])]
            z = [c / s for c, s in zip(cof, se)]
            p = [pchisq_upper(zz * zz, 1) for zz in z]
            lines += print_num_matrix(list(fbw.coef_names), ["Coef", "S.E.", "Wald Z", "P"], [list(cof), se, z, p],
                                      digits=digits)
    else:
        lines += ["", "No Factors Deleted"]
    lines += ["", "Factors in Final Model", ""]
    lines += char_vector_lines(list(fbw.names_kept)) if fbw.names_kept else ["None"]
    return lines


def kept_lines(kept, names, B=None):
    """``print.validate``'s "Factors Retained in Backwards Elimination" section."""
    rows = kept if B is None else kept[:min(len(kept), B)]
    lines = ["", "Factors Retained in Backwards Elimination", ""]
    cells = [["*" if k else " " for k in row] for row in rows]
    lines += print_char_matrix_left([""] * len(cells), list(names), cells)
    lines += ["", "Frequencies of Numbers of Factors Retained", ""]
    counts: dict[int, int] = {}
    for row in kept:
        s = int(sum(bool(k) for k in row))
        counts[s] = counts.get(s, 0) + 1
    keys = sorted(counts)
    lines += named_vector_lines([str(k) for k in keys], [counts[k] for k in keys])
    return lines
