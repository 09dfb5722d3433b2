"""R's ``round()`` and ``as.character()`` for doubles (R 4.x algorithms).

``summary()`` prints parameters as R's ``summary.calibrator`` does, ``as.character(round(x, d))``.
Neither half is available from Python as is:

* Python's :func:`round` decides on the exact decimal expansion of the binary value, whereas
  R (>= 4.0.0, ``fround`` in ``src/nmath/fround.c``) compares two candidates in double
  arithmetic, so they disagree near ties: R's ``round(-5e-05, 4)`` is ``-0``, Python's
  ``round(-5e-05, 4)`` is ``-0.0001``.
* ``as.character`` (R 4.2: ``formatReal`` + ``EncodeRealDrop0`` with 15 significant digits)
  chooses the number of significant digits by scaling ``|x|`` in **long double** and rounding
  there, then picks fixed or scientific notation by width. ``'%.15g'`` rounds the exact binary
  value once and so gives e.g. ``56809204.3511569`` where R prints ``56809204.351157``.

The long-double steps use :class:`numpy.longdouble`, which is the x87 80-bit type R uses on
x86-64 Linux; on platforms where it is plain double the digit count can differ in rare
near-tie cases.
"""

import math

import numpy as np

__all__ = ["r_pow_di", "signif", "r_round", "as_character", "format_int", "format_real", "format_numeric", "format_pval", "format_pval_vector",
           "print_data_frame", "format_named_vector", "round_text"]

_LD = np.longdouble
_LOG10_2 = 0.301029995663981195213738894724  # M_LOG10_2 (rounded to double by Python)
_DBL_DIG = 15
_MAX10E = 308  # DBL_MAX_10_EXP
_MAX_DIGITS = _MAX10E + _DBL_DIG

# R's ``tbl[]`` in format.c: a ``long double`` array initialised with *double* literals
# (``1e23`` etc. carry no ``L`` suffix), so T[k] is the double nearest to 10^k widened to long
# double -- exact for k <= 22, not for 23..27.
_KP_MAX = 27
_TBL = [_LD(float(f"1e{k}")) for k in range(_KP_MAX + 1)]


_DBL_EPSILON = 2.220446049250313e-16

def r_pow_di(x, n):
    """R's ``R_pow_di(x, n)``: integer power by repeated squaring in double."""
    xn = 1.0
    if n != 0:
        neg = n < 0
        if neg:
            n = -n
        while True:
            if n & 1:
                xn *= x
            n >>= 1
            if n:
                x *= x
            else:
                break
        if neg:
            xn = 1.0 / xn
    return xn


_SIGNIF_MAX_DIGITS = 22  # fprec's MAX_DIGITS


def _nearbyint(v):
    return float(round(v))  # half to even, as C's nearbyint in the default mode


def signif(x, digits):
    """R's ``signif(x, digits)`` (nmath ``fprec``) for one double."""
    if math.isnan(x) or not math.isfinite(x) or x == 0:
        return x
    dig = int(round(digits))
    if dig > _SIGNIF_MAX_DIGITS:
        return x
    dig = max(dig, 1)
    sgn = 1.0
    if x < 0.0:
        sgn = -1.0
        x = -x
    l10 = math.log10(x)
    e10 = int(dig - 1 - math.floor(l10))
    if abs(l10) < _MAX10E - 2:
        p10 = 1.0
        if e10 > _MAX10E:
            p10 = r_pow_di(10.0, e10 - _MAX10E)
            e10 = _MAX10E
        if e10 > 0:
            pow10 = r_pow_di(10.0, e10)
            return sgn * (_nearbyint((x * pow10) * p10) / pow10) / p10
        pow10 = r_pow_di(10.0, -e10)
        return sgn * (_nearbyint(x / pow10) * pow10)
    # |log10(x)| near the exponent range: R's long-double route; not reached by 3 digits of
    # a double (e10 stays far from the limits), kept simple
    do_round = _MAX10E - l10 >= r_pow_di(10.0, -dig)
    e2 = dig + (4 if e10 > 0 else 2)
    p10 = r_pow_di(10.0, e2)
    x *= p10
    P10 = r_pow_di(10.0, e10 - e2)
    x *= P10
    if do_round:
        x += 0.5
    x = math.floor(x) / p10
    return sgn * x / P10


def r_round(x, digits=0):
    """R's ``round(x, digits)`` for a double (R >= 4.0.0 algorithm, ``fround``).

    Parameters
    ----------
    x : float
        The number to round.
    digits : int or float, default 0
        Decimal places (R rounds a non-integer ``digits`` to the nearest integer first).

    Returns
    -------
    float
        ``x`` unchanged when it is not finite, zero, or already has fewer than about
        15 significant digits below ``10^-digits``; otherwise whichever of
        ``floor(x*10^d)/10^d`` and ``ceil(x*10^d)/10^d`` is nearer to ``|x|`` *in double
        arithmetic*, the one with an odd ``floor(x*10^d)`` on an exact tie of the two
        differences, with the sign of ``x`` restored (so ``r_round(-5e-05, 4)`` is ``-0.0``).

    Notes
    -----
    Implemented by hand because :func:`round` and :func:`numpy.round` decide ties on the exact
    decimal value (or scale and use ``rint``) and so differ from R near ties. ``digits == 0``
    is ``nearbyint`` (ties to even), as in R.
    """
    x = float(x)
    digits = float(digits)
    if math.isnan(x) or math.isnan(digits):
        return x + digits
    if not math.isfinite(x):
        return x
    if digits > _MAX_DIGITS or x == 0.0:
        return x
    if digits < -_MAX10E:
        return 0.0
    if digits == 0.0:
        return float(np.rint(x))
    dig = int(math.floor(digits + 0.5))
    sgn = 1.0
    if x < 0.0:
        sgn = -1.0
        x = -x
    logb = math.frexp(x)[1] - 1  # C logb(): the binary exponent, also for subnormals
    l10x = _LOG10_2 * (0.5 + logb)
    if l10x + dig > _DBL_DIG:
        return sgn * x
    if dig <= _MAX10E:
        pow10 = r_pow_di(10.0, dig)
        x10 = x * pow10
        i10 = math.floor(x10)
        xd = i10 / pow10
        xu = math.ceil(x10) / pow10
    else:  # |x| tiny (~1e-305) and dig > 308: scale in two steps to avoid overflow
        p10 = r_pow_di(10.0, dig - _MAX10E)
        pow10 = r_pow_di(10.0, _MAX10E)
        x10 = (x * pow10) * p10
        i10 = math.floor(x10)
        xd = i10 / pow10 / p10
        xu = math.ceil(x10) / pow10 / p10
    du = xu - x
    dd = x - xd
    return sgn * (xu if (du < dd or (math.fmod(i10, 2.0) == 1.0 and du == dd)) else xd)


def _scientific(r, digits=_DBL_DIG):
    """R's ``scientific()`` (format.c) for ``r = |x| > 0`` with ``R_print.digits = digits``.

    Returns ``(kpower, nsig, roundingwidens)``.
    """
    kp = math.floor(math.log10(r)) - digits + 1
    r_prec = _LD(r)
    if abs(kp) <= _KP_MAX:
        if kp > 0:
            r_prec = r_prec / _TBL[kp]
        elif kp < 0:
            r_prec = r_prec * _TBL[-kp]
    else:
        r_prec = r_prec / np.power(_LD(10.0), _LD(kp))
    if r_prec < _TBL[digits - 1]:
        r_prec = r_prec * _LD(10.0)
        kp -= 1
    # nearbyintl (ties to even), then stored in a *double* as R does
    alpha = float(np.rint(r_prec))
    nsig = digits
    for _ in range(digits):
        alpha /= 10.0
        if alpha == math.floor(alpha):
            nsig -= 1
        else:
            break
    if nsig == 0 and digits > 0:
        nsig = 1
        kp += 1
    kpower = kp + digits - 1
    rgt = digits - kpower
    rgt = 0 if rgt < 0 else (_KP_MAX if rgt > _KP_MAX else rgt)
    fuzz = 0.5 / float(_TBL[rgt])
    widens = 0 < kpower <= _KP_MAX and _LD(r) < _TBL[kpower] - _LD(fuzz)
    return kpower, nsig, bool(widens)


def _drop0(s):
    """R's ``EncodeRealDrop0``: drop trailing zeros after the decimal point (and a bare '.')."""
    dot = s.find(".")
    if dot < 0:
        return s
    end = dot + 1
    while end < len(s) and s[end].isdigit():
        end += 1
    digits = s[dot + 1 : end].rstrip("0")
    head = s[:dot] + ("." + digits if digits else "")
    return head + s[end:]


def as_character(x):
    """R's ``as.character()`` of one double (R 4.2: 15 significant digits).

    Parameters
    ----------
    x : float
        The number (Python ints and NumPy scalars are converted to float).

    Returns
    -------
    str
        ``"NA"`` for NaN (R's missing value; R would write ``"NaN"`` for a computed NaN, but
        the only NaN fields we print are missing coefficients), ``"Inf"`` / ``"-Inf"``, ``"0"``
        for either zero, otherwise R's fixed or scientific notation, whichever is not wider:
        ``0.001``, ``1e-04``, ``1e+05``, ``123456``, ``0.333333333333333``.

    Notes
    -----
    Reproduces ``formatReal`` (digits = 15, scipen = 0) and ``EncodeRealDrop0`` of R 4.2.
    The number of significant digits comes from scaling ``|x|`` by a power of ten in long
    double (with R's table of *double* powers of ten) and rounding to an integer there, which
    is why ``56809204.35115695`` gives ``"56809204.351157"`` rather than the correctly rounded
    15-digit ``56809204.3511569``. The text itself is then C's correctly rounded ``%.*f`` /
    ``%.*e``, which Python's ``%`` formatting reproduces.
    """
    x = float(x)
    if math.isnan(x):
        return "NA"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0.0:
        return "0"
    neg = 1 if x < 0.0 else 0
    kpower, nsig, widens = _scientific(abs(x))
    left = kpower + 1
    if widens:
        left -= 1
    sleft = neg + (1 if left <= 0 else left)
    rgt = nsig - left
    mxsl = 1 + neg if left < 0 else sleft
    if rgt < 0:
        rgt = 0
    w_fixed = mxsl + rgt + (1 if rgt != 0 else 0)
    e = 2 if (left > 100 or left <= -99) else 1
    d = nsig - 1
    w_sci = neg + (1 if d > 0 else 0) + d + 4 + e
    if w_fixed <= w_sci:
        s = "%*.*f" % (w_fixed, rgt, x)
    elif d:
        s = "%#*.*e" % (w_sci, d, x)
    else:
        s = "%*.*e" % (w_sci, d, x)
    return _drop0(s)


def format_int(n):
    """R's ``as.character()`` of an integer: plain decimal digits, ``"NA"`` when missing.

    Parameters
    ----------
    n : int or None
        The integer; ``None`` or a float NaN stand for R's ``NA_integer_``.

    Returns
    -------
    str
    """
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "NA"
    return str(int(n))


def format_real(values, digits=7, scipen=0):
    """R ``format(x, digits = digits)`` of a double vector: common width and decimals.

    Follows R's ``formatReal``: every finite element is sized with ``scientific()``; fixed
    notation is used when its width is not larger than the scientific one plus ``scipen``
    (R's ``options(scipen)``, or ``format(scientific = <n>)``). Returns the strings, padded
    to a common width as R does.
    """
    vals = [float(v) for v in values]
    finite = [v for v in vals if math.isfinite(v)]
    neg = any(v < 0 for v in finite)
    rgt = mxsl = mxns = -(10**9)
    mxl, mnl = -(10**9), 10**9
    for v in finite:
        if v == 0.0:
            kpower, nsig, widens = 0, 1, False
        else:
            kpower, nsig, widens = _scientific(abs(v), digits)
        left = kpower + 1 - (1 if widens else 0)
        sleft = (1 if v < 0 else 0) + (1 if left <= 0 else left)
        rgt = max(rgt, nsig - left)
        mxl, mnl = max(mxl, left), min(mnl, left)
        mxsl, mxns = max(mxsl, sleft), max(mxns, nsig)
    if finite:
        if mxl < 0:
            mxsl = 1 + (1 if neg else 0)
        rgt = max(rgt, 0)
        w_fixed = mxsl + rgt + (1 if rgt else 0)
        e = 2 if (mxl > 100 or mnl <= -99) else 1
        d = mxns - 1
        w = (1 if neg else 0) + (1 if d > 0 else 0) + d + 4 + e
        fixed = w_fixed <= w + scipen
        if fixed:
            w, d = w_fixed, rgt
    else:
        fixed, w, d = True, 0, 0
    out = []
    for v in vals:
        if math.isnan(v):
            s = "NaN"
        elif math.isinf(v):
            s = "Inf" if v > 0 else "-Inf"
        elif fixed:
            s = "%.*f" % (d, v)
        else:
            s = ("%#.*e" if d else "%.*e") % (d, v)
        out.append(s)
    width = max([w] + [len(s) for s in out])
    return [s.rjust(width) for s in out]


def format_pval(p, digits=4, eps=_DBL_EPSILON):
    """R ``format.pval(p, digits)`` for one p-value (``"< 2.2e-16"`` below machine epsilon)."""
    return format_pval_vector([p], digits, eps)[0].strip()


def format_numeric(values, digits, nsmall=0, scipen=0):
    """R ``format(x, digits = digits, nsmall = nsmall)`` of a double vector (``NA`` for
    NaN), padded to a common width; ``scipen`` as in :func:`format_real`."""
    vals = [float(v) for v in values]
    finite = [v for v in vals if math.isfinite(v)]
    if not finite:
        return ["NA".rjust(2) if math.isnan(v) else format_real([v], digits)[0] for v in vals]
    body = [s.strip() for s in format_real(finite, digits, scipen)]
    fixed = not any("e" in s for s in body)
    if fixed and nsmall > 0:
        decimals = max(len(s.split(".")[1]) if "." in s else 0 for s in body)
        if nsmall > decimals:
            body = ["%.*f" % (nsmall, v) for v in finite]
    it = iter(body)
    out = [next(it) if math.isfinite(v) else ("NA" if math.isnan(v) else ("Inf" if v > 0 else "-Inf")) for v in vals]
    width = max(len(s) for s in out)
    return [s.rjust(width) for s in out]


def format_pval_vector(pv, digits, eps):
    """R ``format.pval(pv, digits = digits, eps = eps)``."""
    pv = [float(v) for v in pv]
    out = ["NA"] * len(pv)
    idx = [i for i, v in enumerate(pv) if not math.isnan(v)]
    is0 = [i for i in idx if pv[i] < eps]
    rest = [i for i in idx if pv[i] >= eps]
    rr = []
    if rest:
        vals = [pv[i] for i in rest]
        expo = [float(np.floor(np.log10(v if v > 0 else 1e-50))) for v in vals]
        fixp = [e >= -3 or (e == -4 and digits > 1) for e in expo]
        rr = [""] * len(vals)
        for group in (True, False):
            members = [k for k, f in enumerate(fixp) if f == group]
            if members:
                for k, s in zip(members, format_numeric([vals[k] for k in members], digits)):
                    rr[k] = s
        for i, s in zip(rest, rr):
            out[i] = s
    if is0:
        d = max(1, digits - 2)
        if rest:
            nc = max(len(s) for s in rr)
            if d > 1 and d + 6 > nc:
                d = max(1, nc - 7)
            sep = "" if (d == 1 and nc <= 6) else " "
        else:
            sep = "" if d == 1 else " "
        text = "<" + sep + format_numeric([eps], d)[0]
        for i in is0:
            out[i] = text
    return out


def print_data_frame(rownames, columns, width=80):
    """R's print of a data frame of character columns (``print.data.frame``: row names
    left-aligned, cells and headers right-aligned, columns wrapped at ``width``, R's
    ``getOption("width")``). ``columns`` is a list of ``(header, cells)``."""
    rlabw = max(len(r) for r in rownames)
    widths = [max([len(h)] + [len(s) for s in cells]) for h, cells in columns]
    lines = []
    jmin = 0
    while jmin < len(columns):
        used = rlabw
        jmax = jmin
        while True:
            used += widths[jmax] + 1
            jmax += 1
            if not (jmax < len(columns) and used + widths[jmax] + 1 < width):
                break
        block = range(jmin, jmax)
        lines.append(" " * rlabw + "".join(" " + columns[j][0].rjust(widths[j]) for j in block))
        for r, name in enumerate(rownames):
            lines.append(name.ljust(rlabw) + "".join(" " + columns[j][1][r].rjust(widths[j]) for j in block))
        jmin = jmax
    return "\n".join(lines) + "\n"


def format_named_vector(named, digits=7, width=80):
    """R's ``print()`` of a named numeric vector: right-aligned name and value rows."""
    names = [str(k) for k in named]
    return named_rows(names, format_real(list(named.values()), digits), width)


def named_rows(names, vals, width=80):
    """The lines R prints for a named vector: as many right-aligned ``name`` / ``value``
    column pairs per line pair as fit in ``width``."""
    col = max([len(s) for s in vals] + [len(n) for n in names])
    per_line = max(1, width // (col + 1))
    lines = []
    for start in range(0, len(names), per_line):
        chunk = range(start, min(len(names), start + per_line))
        lines.append("".join(names[i].rjust(col) + " " for i in chunk))
        lines.append("".join(vals[i].rjust(col) + " " for i in chunk))
    return "\n".join(lines)


def round_text(x, digits=None):
    """R ``as.character(round(x, digits))`` of one number (``as.character(x)`` without digits):
    how probcal's summaries print a parameter."""
    x = float(x)
    return as_character(x if digits is None else r_round(x, digits))
