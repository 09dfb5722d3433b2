"""Logistic calibration: pmcalibration's ``logistic_cal`` (calibration intercept and slope).

R package pmcalibration 0.2.0 (Stephen Rhodes). ``logistic_cal(y, p)`` fits three
logistic regressions on ``LP = logit(p)``:

* ``m_fixed``: ``y ~ 0 + offset(LP)`` (no free parameter: intercept 0, slope 1);
* ``calibration_intercept``: ``y ~ 1 + offset(LP)`` (calibration in the large);
* ``calibration_slope``: ``y ~ 1 + LP``.

Its summary reports the intercept of the second and the slope of the third (the slope's
z test against 1) with profile-likelihood confidence intervals (R 4.2: MASS's
``confint.glm``), and the three likelihood-ratio tests of Miller et al. (1993): weak
calibration (``a = 0, b = 1``), calibration in the large given ``b = 1``, and the slope
given a free intercept.

Every fit is R's ``glm`` through :func:`calstats.ports.stats.glm.glm_binomial` (R's IRLS
steps, so the coefficients, deviances and log-likelihoods are R's to the last bits), and
the intervals follow MASS's profile steps and spline interpolation
(:mod:`calstats.ports.stats.profile`).

Miller ME, Langefeld CD, Tierney WM, Hui SL, McDonald CJ (1993). Validation of
probabilistic predictions. Medical Decision Making 13(1):49-57.
"""

import html as _html

import numpy as np
import pandas as pd
from scipy import special as _sp

from .._typing import ArrayLike
from .._validate import check_digits, check_interval, fail_empty_mu, fail_subscript, warn_null_not_converged
from ..numerics.nmath import numeric_vector, pchisq_lower_false, qlogis
from ..numerics.rformat import format_numeric, format_pval_vector, format_real, print_data_frame
from ..ports.stats.glm import GlmFit, glm_binomial
from ..ports.stats.profile import confint_glm
from ..results._base import Result
from ..results._tables import table_html
from .pmcal_smooth import usable_rows

__all__ = ["logistic_cal", "LogisticCal", "LogisticCalSummary"]

STATS_ROWS = ("Calibration Intercept", "Calibration Slope")
STATS_COLS = ("Estimate", "Std. Error", "z value", "Pr(>|z|)", "lower", "upper")
MILLER_ROWS = ("Weak calibration - H0: a = 0, b = 1",
               "Calibration in the large - H0: a = 0 | b = 1",
               "Calibration slope - H0: b = 1 | a")
MILLER_COLS = ("statistic", "df", "p.value")


# --------------------------------------------------------------------------------------
# the fits


def _glm_offset(X, y, names, lp):
    """R's ``glm(y ~ ... + offset(LP), binomial)``: ``glm.fit`` with the offset, and, when
    the formula has an intercept, ``glm()``'s refit of the intercept-only model (started at
    the fitted values) for the null deviance, warnings included."""
    fit = glm_binomial(X, y, names, warn=True, offset=lp, intercept=bool(X.shape[1]))
    if X.shape[1]:
        null = glm_binomial(X[:, :1], y, names[:1], warn=True, offset=lp, mustart=fit.fitted_values)
        if not null.converged:
            warn_null_not_converged()
        fit = fit._replace(null_deviance=null.deviance)
    return fit


def _loglik(fit):
    """``logLik.glm`` for the binomial family: ``rank - aic/2``."""
    return float(fit.rank) - fit.aic / 2.0


# --------------------------------------------------------------------------------------
# result classes


class LogisticCalSummary(Result):
    """pmcalibration's ``summary.logistic_cal`` (R class ``logistic_calsummary``).

    Attributes
    ----------
    stats : pandas.DataFrame
        R's ``stats``: rows ``Calibration Intercept`` and ``Calibration Slope``; columns
        ``Estimate``, ``Std. Error``, ``z value`` (the slope's against 1), ``Pr(>|z|)``,
        ``lower``, ``upper`` (profile-likelihood interval).
    conf_level : float
        R's ``conf_level`` (also :attr:`level`).
    miller : pandas.DataFrame
        Miller's likelihood-ratio tests: ``statistic``, ``df``, ``p.value``, R's row names.
    """

    r_class = ("logistic_calsummary",)
    _r_fields = ("stats", "conf_level", "miller")
    method = "Logistic calibration"
    stats: pd.DataFrame
    conf_level: float
    miller: pd.DataFrame

    @property
    def level(self) -> float:
        """The confidence level of the intervals (R's ``conf_level``)."""
        return self.conf_level

    def print_text(self, digits: int = 2) -> str:
        """R's ``print(summary(x), digits = digits)`` text, with its final newline.

        Parameters
        ----------
        digits : int, default 2
            R's ``digits`` (``format.pval(digits =, eps = 0.001)`` for the p-values,
            ``format(digits =, nsmall = digits)`` for the numbers).

        Returns
        -------
        str
        """
        d = check_digits(digits)
        st = self.stats
        cols = []
        for name in STATS_COLS:
            vals = st[name].to_numpy(dtype=np.float64)
            cells = format_pval_vector(vals, d, 0.001) if name == "Pr(>|z|)" else format_numeric(vals, d, d)
            cols.append((name, cells))
        text = "Logistic calibration intercept and slope:\n\n"
        text += print_data_frame(list(st.index), cols)
        text += "\n"
        text += "z-value for calibration slope is relative to slope = 1.\n"
        text += "lower and upper are the bounds of %.0f%% profile confidence intervals." % (self.conf_level * 100)
        text += "\n\nLikelihood ratio tests (a = intercept, b = slope):\n\n"
        mi = self.miller
        mcols = [("statistic", format_numeric(mi["statistic"].to_numpy(dtype=np.float64), d, d)),
                 ("df", [format_real([v], 15)[0].strip() for v in mi["df"]]),
                 ("Pr(>Chi)", format_pval_vector(mi["p.value"].to_numpy(dtype=np.float64), d, 0.001))]
        text += print_data_frame(list(mi.index), mcols)
        return text

    def as_frame(self) -> pd.DataFrame:
        """The coefficient table (R's ``stats``, a copy)."""
        return self.stats.copy()

    def _repr_html_(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        return (f"<h4>{_html.escape(self.method)}</h4>\n" + table_html(self.stats)
                + f"\n<p><small>z value of the slope against 1; {pct} profile confidence intervals.</small></p>\n"
                + "<h5>Likelihood ratio tests (a = intercept, b = slope)</h5>\n" + table_html(self.miller))


class LogisticCal(Result):
    """pmcalibration's ``logistic_cal`` object (R class ``logistic_cal``).

    Attributes
    ----------
    calibration_intercept : GlmFit
        ``glm(y ~ 1 + offset(LP), binomial)``.
    calibration_slope : GlmFit
        ``glm(y ~ 1 + LP, binomial)``.
    m_fixed : GlmFit
        ``glm(y ~ 0 + offset(LP), binomial)``.
    lp : ndarray
        ``LP = logit(p)`` of the rows used (not an R field; the summary's profiles need it).
    """

    r_class = ("logistic_cal",)
    _r_fields = ("calibration_intercept", "calibration_slope", "m_fixed")
    _extras = ("lp",)
    method = "Logistic calibration"
    calibration_intercept: GlmFit
    calibration_slope: GlmFit
    m_fixed: GlmFit
    lp: np.ndarray

    def summary(self, level: float = 0.95) -> LogisticCalSummary:
        """pmcalibration's ``summary(x, conf_level = level)``.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level of the profile intervals (R's ``conf_level``).

        Returns
        -------
        LogisticCalSummary

        Notes
        -----
        The intervals are R 4.2's ``confint()`` of each glm (MASS's profile steps and
        spline interpolation, :func:`calstats.ports.stats.profile.confint_glm`); the profile
        refits emit ``glm.fit``'s warnings as R does (on the first call for a level: the
        summary is computed once per level and kept). ``level`` is checked (R does not
        check ``conf_level``).
        """
        level = check_interval(level, "level")
        cache = self.__dict__.setdefault("_summaries", {})
        if level not in cache:
            cache[level] = self._summary(level)
        return cache[level]

    def _summary(self, level):
        m_int, m_slo, m_fix = self.calibration_intercept, self.calibration_slope, self.m_fixed
        n = self.lp.size
        ci_ci = confint_glm(m_int, np.ones((n, 1)), offset=self.lp, level=level).to_numpy()[0]
        cs_ci = confint_glm(m_slo, np.column_stack([np.ones(n), self.lp]), level=level).loc["LP"].to_numpy()
        if np.isnan(m_slo.coefficients["LP"]):
            fail_subscript()  # the slope model has no slope (``LP`` aliased, e.g. a constant ``p``)
        rows = []
        for fit, name, null in ((m_int, "(Intercept)", 0.0), (m_slo, "LP", 1.0)):
            est = float(fit.coefficients[name])
            se = float(np.sqrt(fit.cov_unscaled.loc[name, name]))
            z = (est - null) / se
            rows.append([est, se, z, float(2.0 * _sp.ndtr(-abs(z)))])
        table = np.column_stack([np.array(rows), np.vstack([ci_ci, cs_ci])])
        stats = pd.DataFrame(table, index=list(STATS_ROWS), columns=list(STATS_COLS))
        ll_fix, ll_int, ll_slo = _loglik(m_fix), _loglik(m_int), _loglik(m_slo)
        stat1 = -2.0 * (ll_fix - ll_slo)
        stat2 = -2.0 * (ll_fix - ll_int)
        stat3 = -2.0 * (ll_int - ll_slo)
        miller = pd.DataFrame({"statistic": [stat1, stat2, stat3], "df": [2.0, 1.0, 1.0],
                               "p.value": [pchisq_lower_false(stat1, 2), pchisq_lower_false(stat2, 1), pchisq_lower_false(stat3, 1)]},
                              index=list(MILLER_ROWS))
        return LogisticCalSummary(stats=stats, conf_level=level, miller=miller)

    def print_text(self, digits: int = 2, level: float = 0.95) -> str:
        """R's ``print(x, digits = digits, conf_level = level)``: the summary's text.

        Returns
        -------
        str
        """
        return self.summary(level).print_text(digits)

    def as_frame(self) -> pd.DataFrame:
        """The summary's coefficient table at level 0.95 (R's ``summary(x)$stats``)."""
        return self.summary().as_frame()

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()


def logistic_cal(y: ArrayLike, p: ArrayLike) -> LogisticCal:
    """Logistic calibration: calibration intercept and slope (pmcalibration's ``logistic_cal``).

    Parameters
    ----------
    y : array_like
        Binary outcome (0/1).
    p : array_like
        Predicted probabilities (logit transformed to ``LP``).

    Returns
    -------
    LogisticCal
        ``summary(level)`` gives the estimates, profile intervals and Miller's tests;
        ``print(res)`` R's printed summary.

    Notes
    -----
    R equivalent: ``pmcalibration::logistic_cal(y, p)`` (pmcalibration 0.2.0, R 4.2.2):
    rows where ``y`` or ``p`` is missing are removed (R's message ``k records with missing
    values were removed``, here a :class:`~calstats.CalstatsWarning` with that text), then
    rows with ``p <= 0`` or ``p >= 1`` (R's warning, same text). The three fits emit
    ``glm``'s warnings, e.g. ``glm.fit: fitted probabilities numerically 0 or 1
    occurred``, in R's order.

    Raises
    ------
    CalstatsError
        ``y and p are not the same length``; ``y values must be 0 <= y <= 1`` (glm's);
        ``Argument `y` must be numeric.`` (or `p`) for a non-numeric input; ``Argument mu
        must be a nonempty numeric vector`` (R's ``logit``) when no row is left.
    """
    yv = numeric_vector(y, "y")
    pv = numeric_vector(p, "p")
    yv, pv = usable_rows(yv, pv)
    if pv.size == 0:
        fail_empty_mu()  # R's ``logit`` (``binomial()$linkfun``) of an empty vector
    lp = qlogis(pv, warn_nan=False)
    n = lp.size
    m_fixed = _glm_offset(np.zeros((n, 0)), yv, [], lp)
    m_int = _glm_offset(np.ones((n, 1)), yv, ["(Intercept)"], lp)
    m_intslo = glm_binomial(np.column_stack([np.ones(n), lp]), yv, ["(Intercept)", "LP"], warn=True)
    return LogisticCal(calibration_intercept=m_int, calibration_slope=m_intslo, m_fixed=m_fixed, lp=lp)

