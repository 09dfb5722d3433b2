"""Calibration of multinomial (polytomous) risk models: :func:`val_multinomial`.

Van Hoorde K, Vergouwe Y, Timmerman D, Van Huffel S, Steyerberg EW, Van Calster B (2014).
Assessing calibration of multinomial risk prediction models. Stat Med 33:2585-2596.
Van Hoorde K, Van Huffel S, Timmerman D, Bourne T, Van Calster B (2015). A spline-based
tool to assess and visualize the calibration of multiclass risk predictions. J Biomed
Inform 54:283-293. Van Calster B et al. (2016), the calibration hierarchy (J Clin
Epidemiol 74:167-176).

With K classes and a reference class r, the model's linear predictors are
``lp_k = log(p_k / p_r)`` (k != r). Calibration is assessed with multinomial logistic
models of the outcome on these linear predictors, fitted as VGAM's ``vglm`` fits them (see
:mod:`calstats.ports.vgam.vglm`), and the models are compared by likelihood-ratio tests.
"""

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import special as _sp
from scipy.stats import chi2

from .._factor import Factor
from .._plotting import pyplot
from .._progress import collapses_warnings
from .._typing import ArrayLike
from .._validate import (
    check_interval,
    check_multiclass_y,
    check_nobs,
    check_parameters_rows,
    check_prob_matrix,
    check_spline_df,
    fail_class_absent,
    fail_open_probabilities,
    fail_reference_class,
)
from ..ports.vgam.vglm import VglmFit, multinomial_deviance, vglm_multinomial
from ..results._base import CalibratorSummary, Result
from ..results._text import h1, wrap_item
from .multinomial_pdi import pdi_exact

__all__ = ["val_multinomial", "ValMultinomial"]


def _class_names(p, k):
    if isinstance(p, pd.DataFrame):
        return [str(c) for c in p.columns]
    return [str(i) for i in range(1, k + 1)]


def _outcome_codes(y, names, k, named):
    """0-based classes. With a DataFrame ``p`` whose columns are not simply ``1..K``, values
    (or factor labels) that all name columns are matched by name; otherwise calstats'
    multiclass labels (a factor in column order, or integer codes 1..K)."""
    if isinstance(y, Factor):
        y = y.to_categorical()
    if named and not isinstance(y, pd.DataFrame) and np.ndim(np.asarray(y, dtype=object)) == 1:
        vals = pd.Series(np.asarray(y, dtype=object))
        if len(vals) and not vals.isna().any():
            as_str = vals.map(str)
            if as_str.isin(names).all():
                pos = {nm: i for i, nm in enumerate(names)}
                return as_str.map(pos).to_numpy(dtype=np.int64)
    return check_multiclass_y(y, k)[0] - 1


def _ref_index(ref, names, k):
    if isinstance(ref, str):
        if ref not in names:
            fail_reference_class(k)
        return names.index(ref)
    if isinstance(ref, bool) or not isinstance(ref, (int, np.integer)) or not 1 <= ref <= k:
        fail_reference_class(k)
    return int(ref) - 1


def _ns_basis(x, df):
    """``splines::ns(x, df)`` (interior knots at the type-7 quantiles, boundary knots the
    range, no intercept), R's basis bit for bit."""
    from ..ports.stats.splines import ns

    return np.asarray(ns(x, df=df).matrix, dtype=np.float64)


def _wald(est, se, z):
    return pd.DataFrame({"estimate": est, "se": se, "lower": est - z * se, "upper": est + z * se})


class ValMultinomial(Result):
    """The result of :func:`val_multinomial`.

    ``r_class`` is ``("list",)``: Polcal, the published R code of Van Hoorde et al. (2014),
    returns a plain list. Attributes below; ``print(res)`` shows the report,
    ``res.as_frame()`` one table of every estimate and test, ``res.plot()`` one panel per
    class.

    Attributes
    ----------
    intercepts, slopes : pandas.Series
        Calibration intercepts (one per equation ``log(p_k / p_ref)``, indexed by class k)
        and calibration slopes (the constrained model's, indexed by class k).
    intercept_table, slope_table : pandas.DataFrame
        The same with ``se``, ``lower``, ``upper`` (Wald, ``level``).
    slope_matrix, slope_matrix_se : pandas.DataFrame
        The unconstrained recalibration model: rows the equations (class k), columns
        ``(Intercept)`` and ``lp_<j>``; estimates and standard errors.
    slope_intercepts : pandas.Series
        The intercepts of the constrained slope model.
    tests : pandas.DataFrame
        Likelihood-ratio tests (``statistic``, ``df``, ``p_value``, and the two deviances).
    deviances : pandas.Series
        ``original`` (the predictions themselves), ``intercepts``, ``slopes``, ``full``,
        ``flexible``.
    pdi : float
        The polytomous discrimination index; ``pdi_classes`` its class components.
    calibrated : pandas.DataFrame
        n x K calibrated probabilities from the flexible model.
    eci : float
        Estimated calibration index: ``100 * mean((p - calibrated)^2)`` over the n x K cells.
    p, y : ndarray
        The probabilities and 0-based classes used; ``classes`` their names; ``ref`` the
        reference class (name); ``level``, ``df`` the settings.
    """

    r_class = ("list",)
    method = "Calibration of a multinomial risk model (Van Hoorde et al. 2014)"
    _summary_details = True
    _extras = ("intercepts", "intercept_table", "slopes", "slope_table", "slope_matrix",
               "slope_matrix_se", "slope_intercepts", "tests", "deviances", "pdi", "pdi_classes",
               "calibrated", "eci", "p", "y", "classes", "ref", "level", "df", "iterations")
    intercepts: pd.Series
    intercept_table: pd.DataFrame
    slopes: pd.Series
    slope_table: pd.DataFrame
    slope_matrix: pd.DataFrame
    slope_matrix_se: pd.DataFrame
    slope_intercepts: pd.Series
    tests: pd.DataFrame
    deviances: pd.Series
    pdi: float
    pdi_classes: pd.Series
    calibrated: pd.DataFrame
    eci: float
    p: np.ndarray
    y: np.ndarray
    classes: list[str]
    ref: str
    level: float
    df: int
    iterations: dict[str, int]

    def __init__(self, **fields):
        self._set_fields(**fields)

    def curve(self, k):
        """The flexible calibration of class ``k`` (name): a DataFrame of ``predicted``
        (p_k) and ``observed`` (the calibrated probability), sorted by ``predicted``."""
        j = self.classes.index(str(k))
        order = np.argsort(self.p[:, j], kind="stable")
        return pd.DataFrame({"predicted": self.p[order, j],
                             "observed": self.calibrated.to_numpy()[order, j]})

    # -- report ----------------------------------------------------------------------
    def _header_items(self):
        return [f"Method: {self.method}", f"Observations: {self.p.shape[0]}",
                f"Classes: {', '.join(self.classes)} (reference {self.ref})",
                f"Flexible model: natural cubic splines, df = {self.df}",
                f"Confidence level: {self.level:g}"]

    def _summary_items(self):
        return [("PDI", f"{self.pdi:.4f}"), ("ECI", f"{self.eci:.4f}")]

    def _summary_notes(self):
        return []

    def _summary_tables(self):
        it = self.intercept_table.copy()
        it.index = [f"log(p_{k}/p_{self.ref})" for k in it.index]
        st = self.slope_table.copy()
        st.index = [f"lp_{k}" for k in st.index]
        sm = self.slope_matrix.copy()
        sm.index = [f"log(p_{k}/p_{self.ref})" for k in sm.index]
        pd_ = self.pdi_classes.to_frame("PDI")
        pd_.loc["overall"] = self.pdi
        return {"calibration intercepts": it, "calibration slopes": st,
                "recalibration coefficients": sm, "likelihood-ratio tests": self.tests,
                "polytomous discrimination index": pd_}

    def print_text(self) -> str:
        """The report: header lines, then the intercepts, slopes, recalibration matrix,
        tests and PDI, each as a table (four decimals; p-values in R's ``format.pval``
        style of ``summary``)."""
        lines = ["", h1("multinomial calibration")]
        for item in self._header_items():
            lines.extend(wrap_item(item))
        for name, t in self._summary_tables().items():
            lines.append("")
            lines.append(name.capitalize() + ":")
            if name == "likelihood-ratio tests":
                t = t.copy()
                t["df"] = t["df"].astype(int)
                t["p_value"] = [f"{v:.4g}" if v >= 2.2e-16 else "<2e-16" for v in t["p_value"]]
            lines.append(t.to_string(float_format=lambda v: f"{v:.4f}"))
        lines.append("")
        lines.append(f"ECI (x 100): {self.eci:.4f}")
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """Every estimate in one long table: ``statistic``, ``equation``, ``estimate``,
        ``se``, ``lower``, ``upper``, ``df``, ``p_value`` (NaN where it does not apply)."""
        rows = []
        for k, r in self.intercept_table.iterrows():
            rows.append(("intercept", k, r["estimate"], r["se"], r["lower"], r["upper"], math.nan, math.nan))
        for k, r in self.slope_table.iterrows():
            rows.append(("slope", k, r["estimate"], r["se"], r["lower"], r["upper"], math.nan, math.nan))
        for name, r in self.tests.iterrows():
            rows.append((f"LR test: {name}", "", r["statistic"], math.nan, math.nan, math.nan, r["df"], r["p_value"]))
        rows.append(("PDI", "", self.pdi, math.nan, math.nan, math.nan, math.nan, math.nan))
        rows.append(("ECI", "", self.eci, math.nan, math.nan, math.nan, math.nan, math.nan))
        return pd.DataFrame(rows, columns=["statistic", "equation", "estimate", "se", "lower", "upper",
                                           "df", "p_value"])

    def summary(self) -> CalibratorSummary:
        """A summary for reports: ``as_text()``, ``as_html()``, ``as_latex()``, ``as_frame()``."""
        return CalibratorSummary(self)

    def _repr_html_(self):
        return self.summary().as_html()

    def plot(self, axes: Any = None, points: bool = True) -> Any:
        """One panel per class: the calibrated probability of the flexible model against the
        predicted ``p_k`` (points, and the same sorted as a line), with the diagonal.
        Returns the array of axes."""
        plt = pyplot("ValMultinomial.plot()")

        k = len(self.classes)
        if axes is None:
            ncol = min(k, 3)
            _, axes = plt.subplots(math.ceil(k / ncol), ncol, figsize=(4 * ncol, 4 * math.ceil(k / ncol)),
                                   squeeze=False)
        flat = np.asarray(axes).ravel()
        for j, name in enumerate(self.classes):
            ax = flat[j]
            c = self.curve(name)
            ax.plot([0, 1], [0, 1], color="0.6", lw=1)
            if points:
                ax.plot(c["predicted"], c["observed"], ".", color="0.7", ms=3)
            ax.plot(c["predicted"], c["observed"], color="black", lw=1)
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_title(f"class {name}")
            ax.set_xlabel("Predicted probability")
            ax.set_ylabel("Observed proportion")
        for ax in flat[k:]:
            ax.set_visible(False)
        return axes


@collapses_warnings
def val_multinomial(p: ArrayLike, y: ArrayLike, ref: int | str = 1, *, level: float = 0.95,
                    df: int = 2) -> ValMultinomial:
    """Calibration of multinomial risk predictions (Van Hoorde et al. 2014).

    Parameters
    ----------
    p : array_like (n, K)
        Predicted probabilities, one column per class (rows sum to 1). A DataFrame's column
        names name the classes (else ``"1"``, ..., ``"K"``).
    y : array_like (n,)
        The outcome. With a DataFrame ``p`` whose column names are not ``1..K``, values
        (or factor labels) that all name columns are matched to them by name (so columns
        ``0..K-1`` take labels ``0..K-1``). Otherwise calstats' multiclass labels: a
        ``Factor``/categorical whose levels are the classes in column order, or integer
        codes 1..K. Every class must occur.
    ref : int or str, default 1
        The reference class: 1-based as VGAM's ``refLevel``, or a column name.
    level : float, default 0.95
        Confidence level of the Wald intervals.
    df : int, default 2
        Degrees of freedom of each natural spline in the flexible model.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    ValMultinomial

    Notes
    -----
    With ``LP`` the n x (K-1) matrix of ``lp_k = log(p_k / p_ref)`` and VGAM 1.1-7:

    * **calibration intercepts**: ``vglm(y ~ 1, multinomial(refLevel = ref), offset = LP)``
      (each slope fixed at 1, each lp in its own equation);
    * **calibration slopes**: ``vglm(y ~ lp_2 + ... + lp_K, multinomial(refLevel = ref),
      constraints = list("(Intercept)" = diag(K-1), lp_k = e_k))``, each lp only in its own
      equation. Polcal fits intercepts and slopes with ``vgam()`` and no smooth terms:
      the same model, but ``vgam``'s stopping rule scales the deviance change by
      ``n^(1/4)`` instead of ``n^(1/2)``, so it may stop at another iteration (seen:
      intercepts 4e-6 relative apart); ``vglm_multinomial(..., n_root=4)`` of
      :mod:`calstats.ports.vgam.vglm` reproduces those calls;
    * **recalibration matrix**: the same without constraints (every lp in every equation);
    * **flexible model**: ``vglm(y ~ ns(lp_2, df) + ... + ns(lp_K, df),
      multinomial(refLevel = ref))`` with ``splines::ns`` (interior knots at quantiles,
      boundary knots at the range). Polcal uses ``vgam(y ~ s(lp_2, df = 2) + ...)``,
      VGAM's vector smoothing splines; that backfitting is not reproduced, so the
      calibrated probabilities and ECI differ from Polcal's (same idea, a different
      smoother; on the reference cases the calibrated probabilities differ by up to ~0.2
      and the ECI by up to a factor ~1.6).

    Likelihood-ratio tests (deviance differences, ``pchisq(upper)``), with ``D0 = -2 sum
    log p[i, y_i]`` the deviance of the predictions themselves (Polcal's "original
    deviance": intercepts 0, slope matrix the identity):

    * ``overall``: D0 - D(slopes), df 2(K-1) (Polcal's "p overall");
    * ``intercepts``: D0 - D(intercepts), df K-1 (Polcal's "p int": intercepts 0 given
      slopes 1);
    * ``slopes``: D(intercepts) - D(slopes), df K-1 (Polcal's "p slopes": slopes 1 given
      the intercepts);
    * ``recalibration``: D0 - D(recalibration matrix), df (K-1) + (K-1)^2 (intercepts 0
      and slope matrix the identity against the unconstrained model).

    The fits take VGAM's iterations (start, steps, stopping rule, covariance of the last
    step), so estimates and standard errors are R's printed numbers, not the exact
    maximum-likelihood values (which differ by ~1e-9 and ~1e-6 relative).

    ``pdi`` is the polytomous discrimination index (Van Calster et al. 2012; see
    :func:`calstats.clinical.multinomial_pdi.pdi_exact`) and ``eci`` the estimated
    calibration index of Van Hoorde et al. (2015) as pmcalibration computes it for one
    class (``100 * mean(d^2)``), here averaged over all n x K cells.

    Raises
    ------
    CalstatsError
        The checks of a probability matrix and of multiclass labels, and
        ``Argument `p` must contain probabilities greater than 0 ...`` (a zero makes an
        lp infinite), ``Argument `ref` must be a class number from 1 to K or a column name
        of `p`.``, ``Every class must occur in `y`; class `c` does not.``, ``Argument `df`
        must be a single whole number of at least 1.``, ``Argument `level` must be a single
        number in `(0, 1)`.``, and more parameters than rows in the recalibration matrix or
        the flexible model (VGAM refuses only beyond ``n (K - 1)`` parameters and would fit,
        for minutes, models it cannot estimate: 50 classes on 100 rows took 178 s).
    """
    level = check_interval(level, "level")
    df = check_spline_df(df)
    P = check_prob_matrix(p, "p")
    n, k = P.shape
    names = _class_names(p, k)
    named = isinstance(p, pd.DataFrame) and names != [str(i) for i in range(1, k + 1)]
    codes = _outcome_codes(y, names, k, named)
    check_nobs("p", "y", n, codes.size)
    r = _ref_index(ref, names, k)
    check_parameters_rows(k * (k - 1), (1 + df * (k - 1)) * (k - 1), n, k, df)
    if (P <= 0).any():
        fail_open_probabilities()
    counts = np.bincount(codes, minlength=k)
    if (counts == 0).any():
        fail_class_absent(names[int(np.argmax(counts == 0))])
    keep = [j for j in range(k) if j != r]
    eq = [names[j] for j in keep]
    m = k - 1
    LP = np.log(P[:, keep] / P[:, [r]])
    one = np.ones((n, 1))
    z = float(_sp.ndtri(0.5 + level / 2))

    f_int = vglm_multinomial(one, codes, k, r, offset=LP)
    xs = np.hstack([one, LP])
    f_full = vglm_multinomial(xs, codes, k, r)
    units = [np.eye(m)[:, [j]] for j in range(m)]
    f_slope = vglm_multinomial(xs, codes, k, r, constraints=[np.eye(m)] + units)
    xf = np.hstack([one] + [_ns_basis(LP[:, j], df) for j in range(m)])
    f_flex = vglm_multinomial(xf, codes, k, r)

    d0 = multinomial_deviance(P, codes)
    intercept_table = _wald(f_int.coef, f_int.se, z)
    intercept_table.index = pd.Index(eq, name="class")
    slope_table = _wald(f_slope.coef[m:], f_slope.se[m:], z)
    slope_table.index = pd.Index(eq, name="class")
    cols = ["(Intercept)"] + [f"lp_{e}" for e in eq]
    # VGAM's order: for each term, its equations
    est = f_full.coef.reshape(m + 1, m).T
    ses = f_full.se.reshape(m + 1, m).T
    slope_matrix = pd.DataFrame(est, index=pd.Index(eq, name="equation"), columns=cols)
    slope_matrix_se = pd.DataFrame(ses, index=pd.Index(eq, name="equation"), columns=cols)
    tests = _lr_tests(d0, f_int, f_slope, f_full, m)
    deviances = pd.Series({"original": d0, "intercepts": f_int.deviance, "slopes": f_slope.deviance,
                           "full": f_full.deviance, "flexible": f_flex.deviance})
    pdi, pdi_classes = pdi_exact(P, codes, names)
    calibrated = pd.DataFrame(f_flex.mu, columns=names)
    eci = float(np.mean((P - f_flex.mu) ** 2) * 100)
    iterations = {"intercepts": f_int.iter, "slopes": f_slope.iter, "full": f_full.iter, "flexible": f_flex.iter}
    return ValMultinomial(
        intercepts=intercept_table["estimate"].rename("intercept"), intercept_table=intercept_table,
        slopes=slope_table["estimate"].rename("slope"), slope_table=slope_table, slope_matrix=slope_matrix,
        slope_matrix_se=slope_matrix_se,
        slope_intercepts=pd.Series(f_slope.coef[:m], index=pd.Index(eq, name="class"), name="intercept"),
        tests=tests, deviances=deviances, pdi=pdi, pdi_classes=pdi_classes, calibrated=calibrated, eci=eci,
        p=P, y=codes, classes=names, ref=names[r], level=level, df=df, iterations=iterations)


def _lr_tests(d0, f_int: VglmFit, f_slope: VglmFit, f_full: VglmFit, m):
    rows = {
        "overall": (d0, f_slope.deviance, 2 * m),
        "intercepts": (d0, f_int.deviance, m),
        "slopes": (f_int.deviance, f_slope.deviance, m),
        "recalibration": (d0, f_full.deviance, m + m * m),
    }
    out = pd.DataFrame(
        [[a - b, float(dfv), float(chi2.sf(a - b, dfv)), a, b] for a, b, dfv in rows.values()],
        index=pd.Index(list(rows), name="test"),
        columns=["statistic", "df", "p_value", "deviance_h0", "deviance_h1"])
    return out

