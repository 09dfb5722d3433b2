"""Formula versions of the calibrators and metrics: ``import calstats.formula.api as cf``.

``cf.cal_dirichlet("species ~ p_setosa + p_versicolor + p_virginica", data=df)`` is
``calstats.cal_dirichlet(df[[...]], df["species"])`` with the columns chosen by the formula
(parsed by `formulaic <https://matthewwardrop.github.io/formulaic/>`_), and the fitted object
remembers the formula, so ``fit.predict(newdata=df2)`` picks the same columns from ``df2``.

Rules
-----
* **Right-hand side**: the score/probability/logit columns, in class order. One column is
  the binary form of a function (a vector ``x``/``p``/``logits``), two or more the
  multiclass form (a matrix). ``.`` means every column except the label (formulaic's
  ``.``; ``. - col`` drops one). An intercept term (``1``, ``0``, ``- 1``) is ignored.
  A term may be a transform that formulaic evaluates (``np.log(p_a)``, ``I(s / 2)``) if it
  yields exactly one numeric column; interactions are not allowed.
* **Left-hand side**: the label column.

  - multiclass: a ``Categorical`` gives the levels (its categories); integer codes
    ``1..K`` (K = number of right-hand columns) name the classes after the **columns**
    (this is the formula layer's only use of column names: the array API follows R and
    names classes ``"1".."K"``); strings name the classes after their sorted distinct
    values, or, when every label is a right-hand column name, after the columns in
    formula order; other numbers go to the function unchanged (R's messages).
  - binary: 0/1 numbers or booleans go unchanged; a two-level ``Categorical`` or two
    distinct strings are coded 0/1 with the positive class chosen by ``positive=``, else by
    the score column's name when it carries a level (``diagnosis ~ p_benign``: "benign"),
    else the **second** level (sorted, for strings) as R's ``glm`` does with a factor
    response, with a warning naming it.

* **Output**: calibrators come back as the method's ordinary calibrator, which remembers
  its formula (``fit.formula``, ``fit.parsed``); multiclass predictions are DataFrames with the levels as columns and the
  index of ``newdata``; binary predictions are a Series with that index. Metrics return
  what the array function returns.

**Security**: a formula is Python code. Terms such as ``np.log(p_a)`` or ``I(s / 2)`` are
evaluated by formulaic, as statsmodels' formulas are, so a formula can run anything
(``I(__import__('os').system(...))``). Never build a formula from untrusted input (a web
form, a file someone sent you); select columns by name with the array API instead. The
``calstats`` command line never evaluates a formula.

Errors (:class:`~calstats.CalstatsError`): a column that is not in ``data``, a non-numeric
column, a formula without a label, and a column count that does not match the levels.
"""

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import numpy as np
import pandas as pd

from .._validate import (
    fail_formula_binary_levels,
    fail_formula_classes,
    fail_formula_column,
    fail_formula_cuminc,
    fail_formula_data,
    fail_formula_duplicate,
    fail_formula_interaction,
    fail_formula_label_missing,
    fail_formula_lhs,
    fail_formula_multinomial,
    fail_formula_needs_survival,
    fail_formula_no_label,
    fail_formula_no_scores,
    fail_formula_numeric,
    fail_formula_one_column,
    fail_formula_parse,
    fail_formula_term,
    fail_formula_term_columns,
    fail_formula_type,
    fail_no_attribute,
    refuse_formula_positive,
    refuse_formula_survival,
    warn_formula_positive,
    warn_formula_second_level,
)
from ..calibrators import registry
from ..results._base import Calibrator

if TYPE_CHECKING:
    from ..evaluation.htest import HTest

__all__ = [
    "FormulaFit",
    "parse_formula",
    "design",
    # a formula calibrator for every method of calstats.calibrators.registry (cal_platt, ...)
    *(m.function_name for m in registry.METHODS.values()),
    "cal_cv",
    "cal_compare",
    "ece",
    "mce",
    "ace",
    "mmce",
    "reliability_diagram",
    "hoslem_test",
    "pmcalibration",
    "logistic_cal",
    "decision_curve",
    "val_multinomial",
    "concordance",
    "time_auc",
    "time_brier",
    "integrated_brier",
    "cox_calibration_slope",
    "cr_calibration",
    "cuminc",
]

#: Functions of later modules wrapped on first access when ``calstats`` provides them
#: (each takes the scores and labels as its first two arguments).
OPTIONAL = (
    "cal_matrix_scaling", "cal_dirichlet_l2", "cal_top_label", "cal_evidential", "top_label_ece",
    "brier_score", "log_loss", "confidence_ece", "classwise_ece", "cal_ks_test", "cal_kuiper_test",
    "cal_spiegelhalter_test", "skce", "cal_test", "cal_ci", "loss_correct", "val_prob", "val_prob_ci",
)


#: What ``data`` may be: a DataFrame or a dict of columns.
DataLike: TypeAlias = "pd.DataFrame | Mapping[str, Any]"


# --------------------------------------------------------------------------------------
# parsing


class ParsedFormula:
    """A parsed calibration formula.

    Attributes
    ----------
    formula : str
        The formula as given.
    label : str or None
        The label column (None for a one-sided formula).
    terms : list of (str, bool)
        Right-hand terms in order: the expression and whether it is a plain column lookup.
    """

    def __init__(self, formula, label, terms):
        self.formula = formula
        self.label = label
        self.terms = terms

    @property
    def columns(self):
        """The right-hand expressions (column names for plain columns)."""
        return [expr for expr, _ in self.terms]

    def __repr__(self):
        return f"ParsedFormula({self.formula!r})"

    def design(self, data: "DataLike", need_label: bool = False) -> Any:
        """The formula's score columns of ``data`` (and, with ``need_label``, ``(X, y)``):
        what a fit made by the formula interface predicts on and is tested with."""
        X, y, _ = design(self, data, need_label=need_label)
        return (X, y) if need_label else X

    @staticmethod
    def output(out: Any, X: Any, label_levels: "list[str] | None") -> Any:
        """A binary fit's probabilities as a Series with the index of the rows (named after
        the positive level); a multiclass fit's DataFrame as it is."""
        if isinstance(out, np.ndarray) and out.ndim == 1:
            return pd.Series(out, index=X.index, name=label_levels[1] if label_levels else None)
        return out


def _as_frame(data: Any) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, dict):
        return pd.DataFrame(data)
    fail_formula_data()


def parse_formula(formula: str, data: pd.DataFrame | None = None) -> ParsedFormula:
    """Parse ``"label ~ col1 + col2 + ..."`` with formulaic.

    Parameters
    ----------
    formula : str
    data : DataFrame, optional
        Needed to expand ``.`` (every column except the label).

    Returns
    -------
    ParsedFormula
    """
    from formulaic import Formula
    from formulaic.errors import FormulaicError
    from formulaic.parser.types import Factor as _FFactor

    if not isinstance(formula, str):
        fail_formula_type()
    context = {}
    if data is not None:
        context["__formulaic_variables_available__"] = [str(c) for c in data.columns]
    try:
        parsed = Formula.from_spec(formula, ordering="none", context=context)
    except FormulaicError as exc:
        fail_formula_parse(formula, exc)
    label = None
    if hasattr(parsed, "lhs"):
        lhs_terms = [t for t in parsed.lhs if t.factors and str(t) != "1"]
        if len(lhs_terms) != 1 or len(lhs_terms[0].factors) != 1:
            fail_formula_lhs(formula)
        label = str(lhs_terms[0].factors[0].expr)
        rhs = parsed.rhs
    else:
        rhs = parsed
    terms = []
    for term in rhs:
        factors = list(term.factors)
        if len(factors) == 1 and factors[0].eval_method == _FFactor.EvalMethod.LITERAL:
            continue  # the intercept (1) of a formula
        if len(factors) != 1:
            fail_formula_interaction(term)
        f = factors[0]
        terms.append((str(f.expr), f.eval_method == _FFactor.EvalMethod.LOOKUP))
    if label is not None:
        terms = [(e, look) for e, look in terms if not (look and e == label)]
    if not terms:
        fail_formula_no_scores(formula)
    return ParsedFormula(formula, label, terms)


def _numeric_column(data, expr, lookup, formula):
    if lookup:
        if expr not in data.columns:
            fail_formula_column(expr, formula)
        col = data[expr]
        if isinstance(col, pd.DataFrame):
            fail_formula_duplicate(expr)
    else:
        from formulaic import model_matrix

        try:
            mm = model_matrix("0 + " + expr, data, ensure_full_rank=False, na_action="ignore")
        except Exception as exc:
            fail_formula_term(expr, formula, exc)
        if mm.shape[1] != 1:
            fail_formula_term_columns(expr, formula, mm.shape[1])
        col = pd.Series(np.asarray(mm.iloc[:, 0]), index=data.index, name=expr)
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype) \
            or pd.api.types.is_complex_dtype(dtype):
        fail_formula_numeric(expr, formula, dtype)
    return col


def _levels_text(levels):
    return ", ".join(str(lv) for lv in levels)


def _multiclass_labels(y, columns, label):
    """Labels of a multiclass formula (see the module docstring)."""
    k = len(columns)
    if isinstance(y.dtype, pd.CategoricalDtype):
        levels = [str(c) for c in y.cat.categories]
        if len(levels) != k:
            fail_formula_classes(k, _levels_text(columns), label, f"{len(levels)} levels ({_levels_text(levels)})")
        return y
    if pd.api.types.is_bool_dtype(y.dtype):
        return y
    if pd.api.types.is_numeric_dtype(y.dtype):
        vals = pd.to_numeric(y, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isfinite(vals).all() and (vals == np.floor(vals)).all() and vals.size:
            if vals.min() >= 1 and vals.max() <= k:
                codes = vals.astype(np.int64) - 1
                return pd.Series(pd.Categorical.from_codes(codes, categories=list(columns)), index=y.index, name=y.name)
            if vals.min() >= 1 and vals.max() > k:
                fail_formula_classes(k, _levels_text(columns), label, max_code=int(vals.max()))
        return y  # R's rules and messages
    # strings / objects
    present = [val for val in y.tolist() if not (val is None or val is pd.NA or (isinstance(val, float) and np.isnan(val)))]
    strings = [str(val) for val in present]
    if strings and set(strings) <= set(columns):
        levels = list(columns)
    else:
        levels = sorted(set(strings))
    if len(levels) != k:
        fail_formula_classes(k, _levels_text(columns), label, f"{len(levels)} levels ({_levels_text(levels)})")
    values = [None if (val is None or val is pd.NA or (isinstance(val, float) and np.isnan(val))) else str(val)
              for val in y.tolist()]
    return pd.Series(pd.Categorical(values, categories=levels), index=y.index, name=y.name)


_SEPARATORS = "_.- :"
#: Level pairs (sorted, lower case) whose second level is the positive class by any reading:
#: no warning when R's coding picks it.
_OBVIOUS_PAIRS = {("no", "yes"), ("false", "true"), ("f", "t"), ("n", "y"), ("negative", "positive"),
                  ("neg", "pos"), ("absent", "present"), ("0", "1"), ("-1", "1")}
_PREFIXES = ("p", "pr", "prob", "proba", "probability", "score", "s", "pred", "yhat", "phat")


def _carried_level(column, levels):
    """The level a score column's name carries (``p_benign`` -> ``benign``), or None.

    A name carries a level when it equals it, or ends with it after a separator
    (``_ . - : space``) or after a usual prefix (``p``, ``prob``, ``score``, ...), ignoring
    case. Exactly one level must match.
    """
    name = str(column).lower()
    hits = []
    for level in levels:
        lv = str(level).lower()
        if not lv:
            continue
        if name == lv:
            hits.append(level)
        elif name.endswith(lv):
            head = name[: -len(lv)]
            if head[-1] in _SEPARATORS or head in _PREFIXES:
                hits.append(level)
    return hits[0] if len(hits) == 1 else None


def _binary_labels(y, label, column=None, positive=None):
    """Labels of a binary formula: 0/1 unchanged, two levels coded 0/1.

    The positive level is ``positive`` if given; else the level the score column's name
    carries (column ``p_benign``: level ``benign``); else the second level (sorted, for
    strings), as R's ``glm`` codes a factor response, with a warning naming it and the
    ``positive=`` argument. A ``positive`` that contradicts the column's name is used, with
    a warning naming both. Returns ``(labels, levels)``, ``levels = [negative, positive]``
    (None for 0/1 labels).
    """
    if isinstance(y.dtype, pd.CategoricalDtype):
        levels = [str(c) for c in y.cat.categories]
        if len(levels) != 2:
            fail_formula_binary_levels(label, len(levels), _levels_text(levels))
        if y.isna().any():
            fail_formula_label_missing(label)
        values = [levels[c] for c in y.cat.codes.tolist()]
    elif pd.api.types.is_bool_dtype(y.dtype) or pd.api.types.is_numeric_dtype(y.dtype):
        if positive is not None:
            refuse_formula_positive(label)
        return y, None
    else:
        values = y.tolist()
        if any(val is None or val is pd.NA or (isinstance(val, float) and np.isnan(val)) for val in values):
            fail_formula_label_missing(label)
        values = [str(val) for val in values]
        levels = sorted(set(values))
        if len(levels) != 2:
            fail_formula_binary_levels(label, len(levels), _levels_text(levels))
    carried = _carried_level(column, levels) if column is not None else None
    if positive is not None:
        positive = str(positive)
        if positive not in levels:
            refuse_formula_positive(label, _levels_text(levels), positive)
        if carried is not None and carried != positive:
            warn_formula_positive(column, carried, label, positive)
    elif carried is not None:
        positive = carried
    else:
        positive = levels[1]
        if tuple(lv.lower() for lv in levels) not in _OBVIOUS_PAIRS:
            warn_formula_second_level(label, _levels_text(levels), positive, column, levels[0])
    negative = levels[0] if positive == levels[1] else levels[1]
    coded = pd.Series([int(val == positive) for val in values], index=y.index, name=y.name, dtype=np.int64)
    return coded, [negative, positive]


def design(parsed: ParsedFormula, data: DataLike, need_label: bool = True, positive: str | None = None
           ) -> tuple[pd.Series | pd.DataFrame, pd.Series | None, list[str] | None]:
    """Select the scores (and labels) of ``parsed`` from ``data``.

    Returns
    -------
    X : Series or DataFrame
        One column: a Series (binary form); several: a DataFrame in formula order. The index
        is that of ``data``.
    y : Series or None
        The labels, recoded as described in the module docstring (None if not needed).
    levels : list of str or None
        Binary: the two label levels when the label was not 0/1. Multiclass: None (the
        levels are those of ``y``).
    """
    data = _as_frame(data)
    cols = [_numeric_column(data, expr, lookup, parsed.formula) for expr, lookup in parsed.terms]
    names = parsed.columns
    if len(cols) == 1:
        X = cols[0].rename(names[0])
    else:
        X = pd.concat([c.rename(n) for c, n in zip(cols, names)], axis=1)
        X.columns = names
    if not need_label:
        return X, None, None
    if parsed.label is None:
        fail_formula_no_label(parsed.formula)
    if parsed.label not in data.columns:
        fail_formula_column(parsed.label, parsed.formula)
    y = data[parsed.label]
    if len(cols) == 1:
        y, levels = _binary_labels(y, parsed.label, names[0], positive)
        return X, y, levels
    if positive is not None:
        refuse_formula_positive()
    return X, _multiclass_labels(y, names, parsed.label), None


# --------------------------------------------------------------------------------------
# fitted object

#: The class of a fit made through the formula interface: the ordinary
#: :class:`calstats.Calibrator` of the method (as statsmodels' ``from_formula`` gives the
#: ordinary results class), which remembers its ``formula``, ``parsed`` formula and
#: ``label_levels``; ``fit.predict(newdata)`` takes a DataFrame holding the formula's
#: columns (by default the fitting data) and ``fit.coef_table()`` uses the fitting data.
FormulaFit = Calibrator


# --------------------------------------------------------------------------------------
# wrappers


_DOC = """Formula version of :func:`calstats.{name}`.

    Parameters
    ----------
    formula : str
        ``"label ~ col1 + col2 + ..."``: the label column, then the score columns in class
        order (``.`` for all other columns). One right-hand column is the binary form.
    data : DataFrame
        Holds the columns named in the formula.
    positive : str, optional
        Binary formulas with a two-level label: the level the scores are probabilities of.
        Default: the level the score column's name carries (``p_benign``: ``"benign"``),
        else the second level as R's ``glm`` (with a warning saying so).
    **kwargs
        Further arguments of :func:`calstats.{name}`.

    Returns
    -------
    {returns}

    Notes
    -----
    The formula is Python code evaluated by formulaic: never pass an untrusted one (see
    :mod:`calstats.formula.api`). Column selection and label rules: :mod:`calstats.formula.api`. The result equals
    ``calstats.{name}(scores, labels, **kwargs)`` on the selected columns.
"""


class _FormulaCalibrator(Protocol):
    """A formula calibrator: ``cf.cal_dirichlet("y ~ p1 + p2 + p3", data=df)``."""

    def __call__(self, formula: str, data: DataLike, positive: str | None = None, **kwargs: Any) -> Calibrator:
        ...


class _FormulaFunction(Protocol):
    """A formula metric, test or table: the array function's result."""

    def __call__(self, formula: str, data: DataLike, positive: str | None = None, **kwargs: Any) -> Any:
        ...


def _wrap(name: str, fn: Callable[..., Any] | None = None, calibrator: bool = True) -> Callable[..., Any]:
    def wrapper(formula: str, data: DataLike, positive: str | None = None, **kwargs: Any) -> Any:
        import calstats

        target = fn if fn is not None else getattr(calstats, name)
        frame = _as_frame(data)
        parsed = parse_formula(formula, frame)
        X, y, levels = design(parsed, frame, positive=positive)
        result = target(X, y, **kwargs)
        if calibrator and isinstance(result, Calibrator):
            return result._replace(formula=parsed.formula, parsed=parsed, label_levels=levels, _formula_data=frame)
        return result

    wrapper.__name__ = wrapper.__qualname__ = name
    returns = "Calibrator\n        The fitted calibrator, which remembers its formula." if calibrator else \
        f"The result of :func:`calstats.{name}`."
    wrapper.__doc__ = _DOC.format(name=name, returns=returns)
    return wrapper


for _method in registry.METHODS.values():  # cal_platt, cal_beta, ...: one per method of the registry
    globals()[_method.function_name] = _wrap(_method.function_name)
del _method
cal_cv: _FormulaCalibrator = _wrap("cal_cv")
cal_compare: _FormulaFunction = _wrap("cal_compare", calibrator=False)
ece: _FormulaFunction = _wrap("ece", calibrator=False)
mce: _FormulaFunction = _wrap("mce", calibrator=False)
ace: _FormulaFunction = _wrap("ace", calibrator=False)
mmce: _FormulaFunction = _wrap("mmce", calibrator=False)
reliability_diagram: _FormulaFunction = _wrap("reliability_diagram", calibrator=False)

if TYPE_CHECKING:  # the registry's methods, made above; declared for type checkers
    cal_platt: _FormulaCalibrator
    cal_beta: _FormulaCalibrator
    cal_temperature: _FormulaCalibrator
    cal_isotonic: _FormulaCalibrator
    cal_histogram: _FormulaCalibrator
    cal_vector_scaling: _FormulaCalibrator
    cal_dirichlet: _FormulaCalibrator
    cal_ovr: _FormulaCalibrator
    cal_venn_abers: _FormulaCalibrator
    cal_spline: _FormulaCalibrator

if TYPE_CHECKING:  # wrapped on first access (OPTIONAL, module __getattr__); declared for type checkers
    cal_matrix_scaling: _FormulaCalibrator
    cal_dirichlet_l2: _FormulaCalibrator
    cal_top_label: _FormulaCalibrator
    cal_evidential: _FormulaCalibrator
    top_label_ece: _FormulaFunction
    brier_score: _FormulaFunction
    log_loss: _FormulaFunction
    confidence_ece: _FormulaFunction
    classwise_ece: _FormulaFunction
    cal_ks_test: _FormulaFunction
    cal_kuiper_test: _FormulaFunction
    cal_spiegelhalter_test: _FormulaFunction
    skce: _FormulaFunction
    cal_test: _FormulaFunction
    cal_ci: _FormulaFunction
    loss_correct: _FormulaFunction
    val_prob: _FormulaFunction
    val_prob_ci: _FormulaFunction


def hoslem_test(formula: str, data: DataLike, g: int = 10, *, df: float | None = None) -> "HTest":
    """Formula version of :func:`calstats.hoslem_test`: ``cf.hoslem_test("y ~ p", data=df)``.

    The label is the outcome and the single right-hand column the fitted probabilities;
    R's ``data.name`` becomes ``"label, column"``. ``df`` as in :func:`calstats.hoslem_test`.
    """
    import calstats

    frame = _as_frame(data)
    parsed = parse_formula(formula, frame)
    X, y, _ = design(parsed, frame)
    if not isinstance(X, pd.Series):
        fail_formula_one_column("The Hosmer-Lemeshow test")
    return calstats.hoslem_test(y, X, g=g, data_name=f"{parsed.label}, {parsed.columns[0]}", df=df)


_SURV = re.compile(r"^\s*(?:survival::|prodlim::|riskRegression::)?(Surv|Event|Hist)\(\s*([^,()]+?)\s*,"
                   r"\s*([^,()]+?)\s*\)\s*~(.*)$", re.S)


def _clinical_outcome(formula: str, frame: pd.DataFrame, positive: str | None
                      ) -> tuple[pd.Series | pd.DataFrame, Any, ParsedFormula]:
    """The scores and outcome of a clinical formula: ``"y ~ p"`` (binary label, coded as
    :func:`design` codes it, whatever the number of score columns) or ``"Surv(time,
    status) ~ p"`` (a time-to-event outcome: the pair of columns, R's ``Surv``; also
    riskRegression's ``Event(time, event)`` and prodlim's ``Hist(time, event)``)."""
    match = _SURV.match(formula) if isinstance(formula, str) else None
    if match is not None:
        _, time_col, status_col, rhs = match.groups()
        for col in (time_col, status_col):
            if col not in frame.columns:
                fail_formula_column(col, formula)
        parsed = parse_formula("~" + rhs, frame.drop(columns=[time_col, status_col]))
        X, _, _ = design(parsed, frame, need_label=False)
        return X, (frame[time_col], frame[status_col]), parsed
    parsed = parse_formula(formula, frame)
    X, _, _ = design(parsed, frame, need_label=False)
    if parsed.label is None:
        fail_formula_no_label(formula)
    if parsed.label not in frame.columns:
        fail_formula_column(parsed.label, formula)
    column = parsed.columns[0] if len(parsed.columns) == 1 else None
    y, _ = _binary_labels(frame[parsed.label], parsed.label, column, positive)
    return X, y, parsed


def _single_column(X: Any, what: str) -> pd.Series:
    if not isinstance(X, pd.Series):
        fail_formula_one_column(what)
    return X


def pmcalibration(formula: str, data: DataLike, positive: str | None = None, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.pmcalibration`.

    ``cf.pmcalibration("y ~ p", data=df, smooth="rcs", ci="boot")`` for a binary outcome;
    ``cf.pmcalibration("Surv(time, status) ~ p", data=df, time=365)`` for a time-to-event
    outcome (the two columns named in ``Surv(...)``, as R's formula would write it). The
    right-hand side is the single column of predicted probabilities. Further arguments go
    to :func:`calstats.clinical.pmcalibration`.
    """
    from ..clinical import pmcalibration as _pmcal

    X, y, _ = _clinical_outcome(formula, _as_frame(data), positive)
    return _pmcal(y, _single_column(X, "pmcalibration"), **kwargs)


def logistic_cal(formula: str, data: DataLike, positive: str | None = None) -> Any:
    """Formula version of :func:`calstats.clinical.logistic_cal`: ``cf.logistic_cal("y ~ p",
    data=df)`` (binary label, one probability column)."""
    from ..clinical import logistic_cal as _logcal

    X, y, _ = _clinical_outcome(formula, _as_frame(data), positive)
    if isinstance(y, tuple):
        refuse_formula_survival("logistic_cal")
    return _logcal(y, _single_column(X, "logistic_cal"))


def decision_curve(formula: str, data: DataLike, positive: str | None = None, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.decision_curve`.

    ``cf.decision_curve("y ~ model_a + model_b", data=df)``: one curve per right-hand
    column, named after it; ``"Surv(time, status) ~ risk"`` with ``time=`` for a
    time-to-event outcome; ``"Event(time, event) ~ risk"`` for a competing-risk one
    (``cause=``, default the first cause). Further arguments go to
    :func:`calstats.clinical.decision_curve`.
    """
    from ..clinical import decision_curve as _dca

    X, y, parsed = _clinical_outcome(formula, _as_frame(data), positive)
    match = _SURV.match(formula) if isinstance(formula, str) else None
    if match is not None:
        _default_cause(match, y[1], kwargs)
    models = X.to_frame(parsed.columns[0]) if isinstance(X, pd.Series) else X
    return _dca(models, y, **kwargs)


def _default_cause(match: Any, status: pd.Series, kwargs: dict[str, Any]) -> None:
    """riskRegression's default cause for ``Event(time, event)``/``Hist(time, event)`` with
    event codes beyond 0/1 (or a categorical with more than two levels): the first cause."""
    if match.group(1) not in ("Event", "Hist") or kwargs.get("cause") is not None:
        return
    if isinstance(status.dtype, pd.CategoricalDtype):
        if len(status.cat.categories) > 2:
            kwargs["cause"] = str(status.cat.categories[1])
        return
    codes = sorted({v for v in pd.unique(status) if pd.notna(v) and v != 0})
    if codes and (len(codes) > 1 or codes[0] != 1):
        kwargs["cause"] = codes[0]


def _survival_formula(formula: str, data: DataLike, what: str, one: bool = False,
                      kwargs: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    """The outcome ``(time, status)`` and the models of ``"Surv(time, status) ~ risk"`` or
    ``"Event(time, event) ~ a + b"`` (one column with ``one``, else a dict of columns). For
    ``Event(...)``/``Hist(...)`` with event codes beyond 0/1 (or a categorical with more
    than two levels) and no ``cause``, the first cause is the cause of interest, as
    riskRegression's ``Score`` takes it."""
    frame = _as_frame(data)
    match = _SURV.match(formula) if isinstance(formula, str) else None
    if match is None:
        fail_formula_needs_survival(what)
    X, y, parsed = _clinical_outcome(formula, frame, None)
    if kwargs is not None:
        _default_cause(match, y[1], kwargs)
    if one:
        return y, _single_column(X, what), parsed
    models = {parsed.columns[0]: X} if isinstance(X, pd.Series) else {str(c): X[c] for c in X.columns}
    return y, models, parsed


def concordance(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.concordance`:
    ``cf.concordance("Surv(time, status) ~ risk", data=df, timewt="n/G2")`` (R's
    ``concordance(Surv(time, status) ~ risk, data, reverse = TRUE)``)."""
    from ..clinical import concordance as _conc

    y, x, _ = _survival_formula(formula, data, "concordance", one=True)
    return _conc(y[0], y[1], x, **kwargs)


def time_auc(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.time_auc`:
    ``cf.time_auc("Surv(time, status) ~ model_a + model_b", data=df, times=[1, 3, 5])``; with
    ``"Event(time, event) ~ risk"`` (riskRegression's form) for a competing-risk outcome
    (``cause=``, default the first cause). One model per right-hand column."""
    from ..clinical import time_auc as _auc

    y, models, _ = _survival_formula(formula, data, "time_auc", kwargs=kwargs)
    return _auc(y[0], y[1], models, **kwargs)


def time_brier(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.time_brier` (as :func:`time_auc`)."""
    from ..clinical import time_brier as _brier

    y, models, _ = _survival_formula(formula, data, "time_brier", kwargs=kwargs)
    return _brier(y[0], y[1], models, **kwargs)


def integrated_brier(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.integrated_brier` (as :func:`time_auc`)."""
    from ..clinical import integrated_brier as _ibs

    y, models, _ = _survival_formula(formula, data, "integrated_brier", kwargs=kwargs)
    return _ibs(y[0], y[1], models, **kwargs)


def cox_calibration_slope(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.cox_calibration_slope`:
    ``cf.cox_calibration_slope("Surv(time, status) ~ lp", data=df)`` (R's ``coxph``)."""
    from ..clinical import cox_calibration_slope as _slope

    y, x, _ = _survival_formula(formula, data, "cox_calibration_slope", one=True)
    return _slope(y[0], y[1], x, **kwargs)


def cr_calibration(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.cr_calibration`:
    ``cf.cr_calibration("Event(time, event) ~ risk", data=df, horizon=5, cause=1)``."""
    from ..clinical import cr_calibration as _crcal

    y, x, _ = _survival_formula(formula, data, "cr_calibration", one=True)
    return _crcal(y[0], y[1], x, **kwargs)


def cuminc(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.cuminc`: ``cf.cuminc("Event(time, event) ~ 1",
    data=df, times=[1, 2, 5])`` (R's ``cmprsk::cuminc(time, event)``; no groups)."""
    from ..clinical import cuminc as _cuminc

    frame = _as_frame(data)
    match = _SURV.match(formula) if isinstance(formula, str) else None
    if match is None or match.group(4).strip() not in ("1", ""):
        fail_formula_cuminc()
    _, time_col, event_col, _ = match.groups()
    for col in (time_col, event_col):
        if col not in frame.columns:
            fail_formula_column(col, formula)
    return _cuminc(frame[time_col], frame[event_col], **kwargs)


def val_multinomial(formula: str, data: DataLike, **kwargs: Any) -> Any:
    """Formula version of :func:`calstats.clinical.val_multinomial`:
    ``cf.val_multinomial("y ~ p_a + p_b + p_c", data=df)``. The right-hand columns are the
    class probabilities in class order (named after the columns, as the multiclass
    calibrators' formulas name them); ``ref`` may name a column."""
    from ..clinical import val_multinomial as _valm

    frame = _as_frame(data)
    parsed = parse_formula(formula, frame)
    X, y, _ = design(parsed, frame)
    if isinstance(X, pd.Series):
        fail_formula_multinomial()
    return _valm(X, y, **kwargs)


@functools.lru_cache(maxsize=None)
def _optional(name: str) -> Callable[..., Any] | None:
    import calstats

    try:
        fn = getattr(calstats, name)
    except (ImportError, AttributeError):
        return None
    return _wrap(name, fn)


def __getattr__(name: str) -> Callable[..., Any]:
    if name in OPTIONAL:
        wrapped = _optional(name)
        if wrapped is not None:
            return wrapped
    fail_no_attribute(__name__, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | {n for n in OPTIONAL if _optional(n) is not None})
