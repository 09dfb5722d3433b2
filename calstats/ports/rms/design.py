"""rms' model terms (rms 6.5-0): ``rcs()``, ``pol()`` and the design ``Design()`` builds from
a formula, with rms' column names.

The formula is parsed by formulaic (its terms, ordered by degree as R's ``terms`` orders
them), and ``rcs``/``pol`` are formulaic *stateful transforms*: the knots found on the fitting
data are kept and reused for new data, as rms keeps them in ``fit$Design$parms``. They also
work in formulaic's own ``model_matrix`` (``context={"rcs": rcs, "pol": pol}``).

What rms does, and this module with it:

* a numeric column enters as itself, named after the column; a logical column as 0/1 (rms
  treats it as numeric); a character column, a pandas ``Categorical`` or ``bool``-free object
  column is a factor with treatment contrasts against its first level (sorted values, or the
  categories' order), columns named ``"grp=b"``;
* ``rcs(x, 4)``, ``rcs(x, c(k1, k2, ...))``, ``rcs(x)`` (5 knots): ``Hmisc::rcspline.eval(x,
  knots, inclx = TRUE)`` (:mod:`calstats.ports.hmisc.rcspline`, Harrell's default knots),
  columns ``x, x', x'', ...``;
* ``pol(x, d)`` (default 2): ``x, x^2, ..., x^d`` (``x^2`` as ``x * x``, higher powers by
  the C library's ``pow`` as R's ``^``);
* an interaction ``a * b`` (or ``a:b`` with both main effects in the model) has the products
  of every column of ``a`` with every column of ``b``, the first factor varying fastest, as
  R's ``model.matrix`` orders them, named ``"age' * sex=male"``; the factors of an
  interaction are ordered by their first appearance in the formula, as R's ``terms`` orders
  them. rms refuses an interaction whose main effects are missing, and so does this module.

A deliberate difference: a Python expression term (``np.log(x)``) is named by its text,
where rms names ``log(x)`` after its innermost variable (``x``).
"""

import ast
import functools
from typing import Any

import numpy as np
import pandas as pd

from ..._errors import CalstatsError, fail
from ..._messages import (
    RMS_FORMULA,
    RMS_INFINITE,
    RMS_MAIN_EFFECTS,
    RMS_MISSING,
    RMS_MULTI_COLUMN,
    RMS_NEW_LEVEL,
    RMS_NO_PREDICTOR,
    RMS_NOT_FOUND,
    RMS_NOT_NUMERIC,
    RMS_ONE_RESPONSE,
    RMS_PARSE,
    RMS_POL_ORDER,
    RMS_TERM_FAILED,
    RMS_UNSUPPORTED,
)
from ...numerics import libm
from ..hmisc.rcspline import rcspline_eval

__all__ = ["rcs", "pol", "c", "Design", "TermFactor", "build_design"]

_UNSUPPORTED = ("lsp", "catg", "scored", "strat", "matrx", "gTrans", "offset", "asis")


def c(*args):
    """R's ``c()`` inside a formula: ``rcs(age, c(35, 45, 55, 65))``."""
    return [float(a) for a in args]


def _numeric_column(x, what):
    if isinstance(x, (pd.Series, pd.Index)):
        if isinstance(x.dtype, pd.CategoricalDtype) or x.dtype == object or pd.api.types.is_string_dtype(x.dtype):
            fail(RMS_NOT_NUMERIC.format(what=what))
        x = pd.array(x).to_numpy(dtype=np.float64, na_value=np.nan)
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        fail(RMS_NOT_NUMERIC.format(what=what))
    return arr.astype(np.float64).ravel()


def _r_pow(x, y):
    """R's ``x^y`` (``R_pow``): ``x * x`` for 2, otherwise the C library's ``pow``
    (:func:`calstats.numerics.libm.r_pow`)."""
    return libm.r_pow(x, y)


def _stateful(func):
    from formulaic.utils.stateful_transforms import stateful_transform

    return stateful_transform(func)


def _rcs(x, parms=None, _state=None):
    """``rms::rcs(x, parms)``: the restricted cubic spline basis ``x, x', x'', ...``.

    ``parms`` is the number of knots (default 5) or the knots themselves. The knots found on
    the first evaluation are kept in ``_state["knots"]`` (formulaic's stateful transforms)
    and used for every later evaluation (new data)."""
    x = _numeric_column(x, "rcs() argument")
    state = {} if _state is None else _state
    knots = state.get("knots")
    if knots is None:
        if parms is None:
            parms = 5
        if np.ndim(parms) == 0:
            # the basis at the default knots is the one rcspline_eval(x, knots) gives
            basis, knots = rcspline_eval(x, None, int(parms))
            state["knots"] = np.asarray(knots, dtype=np.float64)
            return basis
        knots = np.asarray(parms, dtype=np.float64)
        state["knots"] = np.asarray(knots, dtype=np.float64)
    basis, _ = rcspline_eval(x, state["knots"])
    return basis


def _pol(x, parms=2, _state=None):
    """``rms::pol(x, d)``: ``x, x^2, ..., x^d`` (``d >= 2``)."""
    x = _numeric_column(x, "pol() argument")
    d = int(parms)
    if d < 2:
        fail(RMS_POL_ORDER)
    return np.column_stack([x] + [_r_pow(x, j) for j in range(2, d + 1)])


rcs = _stateful(_rcs)
pol = _stateful(_pol)


class TermFactor:
    """One variable of the formula as rms' ``Design`` describes it.

    Attributes
    ----------
    expr : str
        The formula text of the variable (``"rcs(age, 4)"``).
    name : str
        rms' name (``"age"``).
    assume : str
        ``"asis"``, ``"rcspline"``, ``"polynomial"`` or ``"category"``.
    colnames : list of str
        rms' column names.
    parms : object
        The knots (rcspline), the degree (polynomial) or the levels (category).
    """

    def __init__(self, expr, name, assume, colnames, parms, state, levels=None):
        self.expr = expr
        self.name = name
        self.assume = assume
        self.colnames = colnames
        self.parms = parms
        self.state = state
        self.levels = levels


def _env(data):
    env = {"rcs": rcs, "pol": pol, "c": c, "np": np}
    env.update({str(k): data[k] for k in data})
    return env


def _var_name(node):
    return node.id if isinstance(node, ast.Name) else ast.unparse(node)


def _is_categorical(v):
    if isinstance(v, (pd.Series, pd.Index)):
        return (isinstance(v.dtype, pd.CategoricalDtype) or v.dtype == object
                or pd.api.types.is_string_dtype(v.dtype))
    arr = np.asarray(v)
    return arr.dtype.kind in "OUS"


def _labels(v):
    """``(labels, inverse, missing)``: ``str`` of each distinct value, the distinct value
    of each row, and whether a value is missing."""
    if not isinstance(v, (pd.Series, pd.Index)):
        v = pd.Series(np.asarray(v, dtype=object), dtype=object)
    inv, uniq = pd.factorize(v, use_na_sentinel=False)
    values = list(uniq)
    return [str(x) for x in values], np.asarray(inv, dtype=np.int64), any(bool(pd.isna(x)) for x in values)


def _levels_of(v, name):
    labels, _, missing = _labels(v)
    if missing:
        fail(RMS_MISSING.format(name=name))
    if isinstance(v, (pd.Series, pd.Index)) and isinstance(v.dtype, pd.CategoricalDtype):
        return [str(x) for x in v.cat.categories]
    return sorted(set(labels))


def _codes(v, levels, name):
    labels, inv, _ = _labels(v)
    index = {lev: i for i, lev in enumerate(levels)}
    for s in sorted(set(labels)):
        if s not in index:
            fail(RMS_NEW_LEVEL.format(name=name, level=s))
    code_of = np.array([index[s] for s in labels], dtype=np.int64)
    return code_of[inv] if inv.size else np.zeros(0, dtype=np.int64)


_NOT_CONSTANT = object()


def _constant(node):
    """A number, or ``c(numbers)`` as :func:`c` gives it (a tuple here), written in the
    formula; ``_NOT_CONSTANT`` otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _constant(node.operand)
        if v is _NOT_CONSTANT or isinstance(v, tuple):
            return _NOT_CONSTANT
        return -v if isinstance(node.op, ast.USub) else +v
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "c"
            and not node.keywords):
        vals = [_constant(a) for a in node.args]
        if any(v is _NOT_CONSTANT or isinstance(v, tuple) for v in vals):
            return _NOT_CONSTANT
        return tuple(c(*vals))
    return _NOT_CONSTANT


@functools.lru_cache(maxsize=512)
def _simple_call(expr):
    """``(function, variable, arguments, state key)`` of ``rcs(x, ...)`` or ``pol(x, ...)``
    with a variable and constant arguments, else None. The key is the one formulaic's
    ``stateful_eval`` files the transform's state under (``ast.unparse`` of the call)."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in ("rcs", "pol")
            and not tree.keywords and tree.args and isinstance(tree.args[0], ast.Name)):
        return None
    args = tuple(_constant(a) for a in tree.args[1:])
    if any(a is _NOT_CONSTANT for a in args):
        return None
    key = ast.unparse(tree).replace("\n", " ").replace('"', r'\\\\"')
    return tree.func.id, tree.args[0].id, args, key


def _evaluate(expr, data, state, cache=None):
    from formulaic.utils.stateful_transforms import stateful_eval

    if expr in data:
        return data[expr]
    simple = _simple_call(expr)
    if simple is not None and simple[1] in data and simple[0] not in data:
        # what stateful_eval does for this call, without compiling it: the transform with
        # its state (created empty on the first evaluation)
        fn, var, args, key = simple
        impl = _rcs if fn == "rcs" else _pol
        try:
            return impl(data[var], *[list(a) if isinstance(a, tuple) else a for a in args],
                        _state=state.setdefault(key, {}))
        except CalstatsError:
            raise
        except Exception as e:
            fail(RMS_TERM_FAILED.format(expr=expr, err=e))
    try:
        if cache is None:
            env = _env(data)
        else:  # one environment for the terms of one design (``cache`` starts empty)
            env = cache.get("env")
            if env is None:
                env = cache["env"] = _env(data)
        return stateful_eval(expr, env, None, state, None)
    except CalstatsError:
        raise
    except NameError as e:
        fail(RMS_NOT_FOUND.format(err=e))
    except Exception as e:  # a user's Python term that fails
        fail(RMS_TERM_FAILED.format(expr=expr, err=e))


def _refuse_unsupported(expr):
    tree = ast.parse(expr, mode="eval").body
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _UNSUPPORTED:
            fail(RMS_UNSUPPORTED.format(fn=node.func.id))


def _describe(expr, value, state):
    """The :class:`TermFactor` of a variable evaluated on the fitting data."""
    tree = ast.parse(expr, mode="eval").body
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in ("rcs", "pol") and tree.args:
        name = _var_name(tree.args[0])
        if tree.func.id == "rcs":
            knots = next(iter(state.values()))["knots"] if state else None
            k = int(np.asarray(value).shape[1]) + 1
            primes = ["'" * j for j in range(k - 1)]
            return TermFactor(expr, name, "rcspline", [name + p for p in primes], knots, state)
        d = int(np.asarray(value).shape[1])
        return TermFactor(expr, name, "polynomial", [name] + [f"{name}^{j}" for j in range(2, d + 1)], d, state)
    name = expr
    if _is_categorical(value):
        levels = _levels_of(value, name)
        return TermFactor(expr, name, "category", [f"{name}={lev}" for lev in levels[1:]], levels, state,
                          levels=levels)
    arr = np.asarray(value)
    if arr.ndim == 2 and arr.shape[1] != 1:
        fail(RMS_MULTI_COLUMN.format(expr=expr, k=arr.shape[1]))
    return TermFactor(expr, name, "asis", [name], None, state)


def _columns(factor, value):
    """The design columns of one variable (n x k float64)."""
    if factor.assume == "category":
        codes = _codes(value, factor.levels, factor.name)
        return np.column_stack([(codes == j).astype(np.float64) for j in range(1, len(factor.levels))]) \
            if len(factor.levels) > 1 else np.zeros((codes.size, 0))
    if factor.assume == "asis":
        return _numeric_column(value, factor.name)[:, None]
    return np.asarray(value, dtype=np.float64)


class Design:
    """rms' design of a formula: its variables, terms and columns.

    Attributes
    ----------
    response : str
        The left-hand side.
    factors : dict
        ``expr -> TermFactor`` in order of first appearance.
    terms : list of tuple of str
        The terms (tuples of variable expressions), main effects first.
    colnames : list of str
        rms' column names of the model matrix (without the intercept).
    """

    def __init__(self, response, factors, terms, colnames, formula):
        self.response = response
        self.factors = factors
        self.terms = terms
        self.colnames = colnames
        self.formula = formula

    @property
    def parms(self):
        """rms' ``Design$parms``: knots of each spline, levels of each factor (by name)."""
        out: dict[str, Any] = {}
        for f in self.factors.values():
            if f.assume == "rcspline":
                out[f.name] = f.parms
            elif f.assume == "category":
                out[f.name] = list(f.levels)
        return out

    def term_info(self):
        """``(name, number of columns)`` of each term in column order: rms' ``Design$name``
        (``"age"``, ``"age * sex"``) and the sizes of its ``assign`` blocks."""
        out = []
        for term in self.terms:
            k = 1
            for e in term:
                k *= len(self.factors[e].colnames)
            out.append((" * ".join(self.factors[e].name for e in term), k))
        return out

    def variables(self):
        """The data columns the design reads."""
        return list(self.factors)

    def matrix(self, data, *, first=None):
        """The model matrix (n x p float64) of ``data`` with the fitted knots and levels."""
        blocks = {}
        cache: dict = {}
        for expr, f in self.factors.items():
            value = first[expr] if first is not None else _evaluate(expr, data, f.state, cache)
            cols = _columns(f, value)
            if np.isnan(cols).any():
                fail(RMS_MISSING.format(name=f.name))
            if np.isinf(cols).any():
                fail(RMS_INFINITE.format(name=f.name))
            blocks[expr] = cols
        out = []
        for term in self.terms:
            cur = blocks[term[0]]
            for expr in term[1:]:
                nxt = blocks[expr]
                # first factor fastest: column (i, j) = cur[:, i] * nxt[:, j]
                cur = np.column_stack([cur[:, i] * nxt[:, j] for j in range(nxt.shape[1])
                                       for i in range(cur.shape[1])]) if cur.shape[1] and nxt.shape[1] \
                    else np.zeros((cur.shape[0], 0))
            out.append(cur)
        n = len(next(iter(blocks.values()))) if blocks else 0
        return np.ascontiguousarray(np.column_stack(out)) if out else np.zeros((n, 0))


@functools.lru_cache(maxsize=128)
def _parse(formula, columns):
    """The response, the variables in order of first appearance and the terms (tuples of
    variables, R's order) of ``formula`` with ``columns`` available; cached (pure data)."""
    from formulaic import Formula
    from formulaic.errors import FormulaicError

    try:
        context = {"__formulaic_variables_available__": list(columns)}
        parsed = Formula(formula, _context=context)
        written = Formula(formula, _ordering="none", _context=context)
    except (FormulaicError, SyntaxError, ValueError) as e:
        fail(RMS_PARSE.format(err=e))
    lhs = [str(t) for t in parsed.lhs]
    if len(lhs) != 1:
        fail(RMS_ONE_RESPONSE)
    order = []
    for term in written.rhs:
        for f in term.factors:
            if f.expr != "1" and f.expr not in order:
                order.append(f.expr)
    terms = []
    for term in parsed.rhs:
        exprs = [f.expr for f in term.factors if f.expr != "1"]
        if not exprs:
            continue
        terms.append(tuple(sorted(exprs, key=order.index)))
    if not terms:
        fail(RMS_NO_PREDICTOR)
    return lhs[0], tuple(order), tuple(terms)


def build_design(formula, data):
    """Parse ``formula`` (``"y ~ rcs(age, 4) * sex + pol(w, 2)"``) against ``data`` (a
    DataFrame or a mapping of columns) and build rms' design.

    Returns ``(design, X)``: the :class:`Design` and the model matrix of ``data``.
    """
    if not isinstance(formula, str) or "~" not in formula:
        fail(RMS_FORMULA)
    lhs_text = formula.split("~", 1)[0].strip()
    columns = tuple(k for k in (str(k) for k in data) if k != lhs_text)
    lhs, order_t, terms_t = _parse(formula, columns)
    order, terms = list(order_t), list(terms_t)
    mains = {t[0] for t in terms if len(t) == 1}
    for t in terms:
        missing = [e for e in t if e not in mains] if len(t) > 1 else []
        if missing:
            fail(RMS_MAIN_EFFECTS.format(missing=" + ".join(missing)))
    factors = {}
    values = {}
    cache: dict = {}
    for expr in order:
        _refuse_unsupported(expr)
        state: dict = {}
        value = _evaluate(expr, data, state, cache)
        values[expr] = value
        factors[expr] = _describe(expr, value, state)
    colnames = []
    for t in terms:
        names = [factors[e].colnames for e in t]
        cur = names[0]
        for nxt in names[1:]:
            cur = [f"{a} * {b}" for b in nxt for a in cur]
        colnames.extend(cur)
    design = Design(lhs, factors, terms, colnames, formula)
    X = design.matrix(data, first=values)
    return design, X

