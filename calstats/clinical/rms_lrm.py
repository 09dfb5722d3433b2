"""``lrm``: ``rms::lrm`` (rms 6.5-0), the binary or ordinal (proportional odds) logistic model
with rms' formula terms, fitted and printed as R does.

The model matrix comes from :mod:`calstats.ports.rms.design` (``rcs()``, ``pol()``,
factors, interactions, with rms' column names and Hmisc's knots) and the fit from
:mod:`calstats.ports.rms.lrm_fit` (the Fortran ``LRMFIT`` of rms 6.5-0: its Newton steps,
stopping rule, binned c index and covariance), so coefficients, covariance, statistics and
linear predictors are R's bit for bit on the reference fixtures (``tests/test_lrm.py``), and
``print(fit)`` is ``print.lrm``'s text.
"""

import functools
import math
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from ..numerics.nmath import plogis
from ..numerics.rformat import as_character
from ..ports.rms.design import build_design
from ..ports.rms.lrm_fit import LrmSingular, lrm_fit, matxv
from ..results._base import Result
from ._rmsprint import deparse_call, format_np, named_vector_lines, pr_stats, print_char_matrix_left

__all__ = ["lrm", "Lrm"]


def _outcome(values):
    """R's ``as.factor(y)``: the codes 0..k and the level labels."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        if values.isna().any():
            v.check_lrm_outcome(len(values), 2, True)
        cats = [str(c) for c in values.cat.categories]
        codes = values.cat.codes.to_numpy().astype(np.int64)
        empty = [cats[i] for i in range(len(cats)) if not (codes == i).any()]
        v.check_lrm_outcome(codes.size, len(cats), False, empty)
        return codes, cats
    arr = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
    if arr.dtype.kind in "biuf":
        if arr.dtype.kind == "f":
            v.check_lrm_outcome(arr.size, 2, bool(np.isnan(arr).any()))
        if arr.dtype.kind == "b":
            labels = ["FALSE", "TRUE"]
            uniq = np.unique(arr)
            codes = arr.astype(np.int64)
            v.check_lrm_outcome(arr.size, uniq.size, False)
            if uniq.size == 2:
                return codes, labels
        uniq = np.unique(arr)
        v.check_lrm_outcome(arr.size, uniq.size, False)
        labels = [str(int(u)) if arr.dtype.kind in "iu" else as_character(float(u)) for u in uniq]
        return np.searchsorted(uniq, arr).astype(np.int64), labels
    obj = pd.Series(arr, dtype=object)
    v.check_lrm_outcome(len(obj), 2, bool(obj.isna().any()))
    strs = obj.astype(str).to_numpy()
    uniq = sorted(set(strs.tolist()))
    v.check_lrm_outcome(len(strs), len(uniq), False)
    return np.searchsorted(np.array(uniq, dtype=object), strs).astype(np.int64), uniq


def lrm(formula: str, data: Any, weights: Any = None, tol: float = 1e-7, maxit: int = 12,
        eps: float = 0.025) -> "Lrm":
    """Fit a binary or ordinal logistic model as ``rms::lrm(formula, data, weights)``.

    Parameters
    ----------
    formula : str
        ``"y ~ rcs(age, 4) * sex + pol(w, 2) + grp"``: rms' terms -- a numeric column as it
        is, a string or categorical column as a factor (treatment contrasts against its first
        level, columns ``"sex=male"``), ``rcs(x, k)`` (a restricted cubic spline with ``k``
        knots at Harrell's default quantiles, or ``rcs(x, c(k1, k2, ...))`` at given knots;
        ``rcs(x)`` has 5), ``pol(x, d)`` (a polynomial), and interactions ``a * b`` or
        ``a:b`` (with both main effects). The formula is parsed by formulaic; ``rcs`` and
        ``pol`` are formulaic stateful transforms, so predictions on new data use the fitted
        knots. A Python expression (``np.log(x)``) is a numeric term named by its text (rms
        names ``log(x)`` after ``x``). An outcome with more than two levels gives the
        proportional odds model (intercepts ``y>=2``, ``y>=3``, ...).
    data : DataFrame or dict of columns
        The variables. Rows must be complete (R's ``lrm`` drops incomplete rows; calstats
        asks you to).
    weights : str or array-like, optional
        Case weights: a column of ``data`` or ``n`` numbers (R's ``weights``; R warns that
        ``validate``/``calibrate`` ignore them, and so does calstats).
    tol, maxit, eps : float, int, float
        ``lrm.fit``'s QR tolerance, iteration limit and stopping change of the -2 log
        likelihood (R's defaults ``1e-7``, ``12``, ``0.025``).

    Returns
    -------
    Lrm
        ``print(fit)`` is R's ``print.lrm``; ``fit.coefficients``, ``fit.var``, ``fit.stats``
        (R's statistics vector), ``fit.predict(newdata, type="lp" | "fitted")``,
        ``fit.as_frame()`` (the coefficient table). ``validate(fit)`` and ``calibrate(fit)``
        are rms' bootstrap validation of it.

    Notes
    -----
    R's ``lrm`` is the reference: on ``tests/fixtures/rms_lrm.json`` (splines, polynomials,
    interactions of every kind, factors, weights, ordinal outcomes, 40 rows) the
    coefficients, covariance, statistics, linear predictors and predictions agree with
    ``rms::lrm`` bit for bit, and the printed text character for character. A fit that runs
    out of iterations (separation) warns as R does and prints "Model Did Not Converge";
    a singular information matrix stops with R's message and the offending columns. rms'
    ``penalty``, ``strat()``, ``lsp()``, ``catg()`` and ``offset()`` are not supported.
    A missing value in a variable of the formula or in ``weights`` is refused in one line
    naming it (rms' ``lrm`` leaves such rows out, ``na.action = na.delete``, and reports
    them): drop the incomplete rows first.

    Examples
    --------
    >>> import calstats.clinical as cc
    >>> fit = cc.lrm("y ~ rcs(age, 4) * sex", data=df)        # doctest: +SKIP
    >>> print(fit)                                            # doctest: +SKIP
    >>> cc.validate(fit, B=200, seed=1)                       # doctest: +SKIP
    """
    data = v.check_lrm_data(data)
    design, X = build_design(formula, data)
    if design.response not in data:
        v.fail_not_a_column("outcome", design.response)
    codes, levels = _outcome(data[design.response])
    n = codes.size
    w = None
    wname = None
    if weights is not None:
        if isinstance(weights, str):
            if weights not in data:
                v.fail_not_a_column("weights column", weights)
            wname = weights
            w = v.check_case_weights(data[weights], n)
        else:
            wname = "weights"
            w = v.check_case_weights(weights, n)
        v.warn_lrm_weights()
        v.check_lrm_level_weights(codes, w, levels, wname)
    maxit = v.check_bins(maxit, "maxit")
    tol = v.check_positive_number(tol, "tol")
    eps = v.check_positive_number(eps, "eps")
    try:
        fit = lrm_fit(X, codes, maxit=maxit, eps=eps, tol=tol, weights=w, singular="raise")
    except LrmSingular as e:
        v.fail_lrm_singular(e.rank, [design.colnames[j] for j in e.offending])
    if fit.var is None and not fit.fail:
        v.fail_apparently_singular()
    kint = len(levels) - 1
    names = ["Intercept"] if kint == 1 else [f"y>={lev}" for lev in levels[1:]]
    names += design.colnames
    call = [("formula", formula), ("data", "data")]
    if tol != 1e-7:
        call.append(("tol", as_character(tol)))
    if wname is not None:
        call.append(("weights", wname))
    if maxit != 12:
        call.append(("maxit", str(maxit)))
    if eps != 0.025:
        call.append(("eps", as_character(eps)))
    if fit.fail:
        v.warn_lrm_unable()
    return Lrm(fit, names, levels, design, X, codes, w, call, tol)


@functools.lru_cache(maxsize=128)
def _deparse_lrm(call):
    """R's deparsed ``lrm(...)`` call lines (cached: a validation refits the same call)."""
    return tuple(deparse_call("lrm", list(call)))


class Lrm(Result):
    """A fitted ``rms::lrm`` model (R class ``c("lrm", "rms", "glm")``).

    Attributes (R's fields)
    -----------------------
    coefficients : pandas.Series
        Intercepts then slopes, under rms' names.
    var : pandas.DataFrame
        The covariance matrix (inverse information).
    stats : pandas.Series
        ``Obs``, ``Max Deriv``, ``Model L.R.``, ``d.f.``, ``P``, ``C``, ``Dxy``, ``Gamma``,
        ``Tau-a``, ``R2``, ``R2(n)``, ``R2(p,n)``, ``R2(ess)``, ``R2(p,ess)``, ``Brier``,
        ``g``, ``gr``, ``gp`` (and ``Sum of Weights``).
    deviance : ndarray
        -2 log likelihood of the intercepts-only and of the fitted model.
    linear_predictors : ndarray
        ``X b`` with the first intercept.
    freq : pandas.Series
        Observations per outcome level; ``sumwty`` the weights per level (weighted fits).
    fail : bool
        R's ``fail`` (the Newton iterations did not converge).
    x, y : ndarray
        The model matrix (without intercepts) and the outcome codes 0..k (rms' ``x = TRUE,
        y = TRUE``, always kept: :func:`validate` and :func:`calibrate` refit from them).
    design : Design
        The terms, knots and levels (``design.parms`` is rms' ``Design$parms``).
    """

    r_class = ("lrm", "rms", "glm")
    _r_fields = ("freq", "sumwty", "stats", "fail", "coefficients", "var", "u", "deviance", "non.slopes",
                 "linear.predictors", "info.matrix", "weights", "x", "y")
    _extras = ("design", "levels", "formula", "call_lines", "tol", "iterations")
    # set by the constructor (declared for type checkers)
    freq: pd.Series
    sumwty: pd.Series | None
    stats: pd.Series
    fail: bool
    coefficients: pd.Series
    var: pd.DataFrame | None
    u: pd.Series
    deviance: np.ndarray
    non_slopes: int
    linear_predictors: np.ndarray
    info_matrix: np.ndarray | None
    weights: np.ndarray | None
    x: np.ndarray
    y: np.ndarray
    design: Any
    levels: list[str]
    formula: str
    call_lines: list[str]
    tol: float
    iterations: int

    def __init__(self, fit, names, levels, design, X, codes, weights, call, tol):
        kint = fit.non_slopes
        freq = pd.Series(np.asarray(fit.freq, dtype=np.int64), index=pd.Index([str(s) for s in levels]))
        self._set_fields(
            freq=freq,
            sumwty=None if fit.sumwty is None else pd.Series(fit.sumwty, index=freq.index.copy()),
            stats=pd.Series(fit.stats, dtype=np.float64) if fit.stats else pd.Series(dtype=np.float64),
            fail=bool(fit.fail),
            coefficients=pd.Series(np.asarray(fit.coefficients, dtype=np.float64), index=pd.Index(names)),
            var=None if fit.var is None else pd.DataFrame(fit.var, index=pd.Index(names), columns=pd.Index(names)),
            u=pd.Series(np.asarray(fit.u, dtype=np.float64), index=pd.Index(names)),
            deviance=np.asarray(fit.deviance, dtype=np.float64),
            non_slopes=kint,
            linear_predictors=fit.linear_predictors,
            info_matrix=fit.info_matrix,
            weights=weights,
            x=X,
            y=codes,
            design=design,
            levels=list(levels),
            formula=design.formula,
            call_lines=list(_deparse_lrm(tuple(call))),
            tol=tol,
            iterations=fit.iterations,
        )

    # -- R's print -------------------------------------------------------------------
    def print_text(self) -> str:
        """R's ``print(fit)`` (``print.lrm``, ``prModFit``), with its final newline."""
        if self.fail:
            return '[1] "Model Did Not Converge.  No summary provided."\n[2] ""                                             \n'
        lines = ["Logistic Regression Model", ""] + list(self.call_lines) + [""]
        freq_names = list(self.freq.index)
        if len(self.freq) > 3:
            lines += ["", "Frequencies of Responses", ""]
            lines += named_vector_lines(freq_names, [int(c) for c in self.freq]) + [""]
        if self.sumwty is not None:
            lines += ["", "Sum of Weights by Response Category", ""]
            lines += named_vector_lines(freq_names, list(self.sumwty.to_numpy())) + [""]
        st = self.stats
        misc = [("Obs", float(st["Obs"]), None)]
        if len(self.freq) < 4:
            misc += [(" " + k, int(c), None) for k, c in zip(freq_names, self.freq)]
        if "Sum of Weights" in st.index:
            misc.append(("Sum of weights", float(st["Sum of Weights"]), None))
        misc.append(("max |deriv|", float(st["Max Deriv"]), None))
        lr = [("LR chi2", float(st["Model L.R."]), 2), ("d.f.", _round3(st["d.f."]), None),
              ("Pr(> chi2)", float(st["P"]), -4)]
        r2names = [k for k in st.index if k.startswith("R2(")]
        disc = [("R2", float(st["R2"]), 3)] + [(k, float(st[k]), 3) for k in (r2names[1], r2names[3])
                                               if not math.isnan(float(st[k]))]
        disc.append(("Brier", float(st["Brier"]), 3))
        discr = [("C", float(st["C"]), 3), ("Dxy", float(st["Dxy"]), 3), ("gamma", float(st["Gamma"]), 3),
                 ("tau-a", float(st["Tau-a"]), 3)]
        heads = ["", "Model Likelihood\nRatio Test", "Discrimination\nIndexes", "Rank Discrim.\nIndexes"]
        lines += pr_stats(heads, [misc, lr, disc, discr])
        lines += [""] + self._coef_lines() + [""]
        return "\n".join(lines) + "\n"

    def _coef_lines(self):
        tab = self.as_frame()
        beta, se, z, p = (tab[c].to_numpy() for c in tab.columns)
        cols = [format_np(beta, 4), format_np(se, 4), format_np(z, 2), format_np(p, 4, pvalue=True)]
        cells = [[c[i] for c in cols] for i in range(beta.size)]
        return print_char_matrix_left(list(self.coefficients.index), ["Coef", "S.E.", "Wald Z", "Pr(>|Z|)"], cells)

    def _html_title(self):
        return "Logistic regression model (rms lrm)"

    def as_frame(self) -> pd.DataFrame:
        """The coefficient table: ``Coef``, ``S.E.``, ``Wald Z``, ``Pr(>|Z|)`` by coefficient
        (the numbers behind ``print.lrm``'s table)."""
        beta = self.coefficients.to_numpy()
        if self.var is None:
            se = np.full(beta.size, np.nan)
        else:
            se = np.sqrt(np.diag(self.var.to_numpy()))
        from ..numerics.nmath import pchisq_upper

        with np.errstate(divide="ignore", invalid="ignore"):
            z = beta / se
        p = np.array([pchisq_upper(zz * zz, 1) for zz in z])
        return pd.DataFrame({"Coef": beta, "S.E.": se, "Wald Z": z, "Pr(>|Z|)": p},
                            index=pd.Index(list(self.coefficients.index), name="coefficient"))

    # -- prediction ---------------------------------------------------------------------
    def predict(self, newdata: Any = None, type: str = "lp") -> Any:
        """R's ``predict(fit, newdata, type)``.

        Parameters
        ----------
        newdata : DataFrame or dict of columns, optional
            The variables of the formula (default: the fitting data's model matrix).
        type : {"lp", "fitted"}
            ``"lp"``: the linear predictor with the first intercept; ``"fitted"``: the
            probability ``Pr(y = 1)`` of a binary model, or for an ordinal one a DataFrame of
            ``Pr(y >= level)`` with one column per intercept (R's matrix).

        Returns
        -------
        ndarray or DataFrame
        """
        kind = v.match_arg(type, ["lp", "fitted"], "type")
        X = self.x if newdata is None else self.design.matrix(v.check_lrm_data(newdata))
        coef = self.coefficients.to_numpy()
        lp = matxv(X, coef, 1)
        if kind == "lp":
            return lp
        kint = self.non_slopes
        if kint == 1:
            return plogis(lp)
        xb = lp - coef[0]
        P = np.column_stack([plogis(coef[j] + xb) for j in range(kint)])
        return pd.DataFrame(P, columns=pd.Index(list(self.coefficients.index[:kint])))


def _round3(x):
    from ..numerics.rformat import r_round

    return r_round(float(x), 3)
