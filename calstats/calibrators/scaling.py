"""Scaling of logits: temperature scaling (binary and multiclass) and vector scaling.

R ``probcal::cal_temperature`` and ``cal_vector_scaling``. The fits use R's own algorithms so
that the numbers are R's: ``optimize`` for the temperature (:mod:`calstats.numerics.brent`)
and ``optim``'s BFGS for vector scaling (:mod:`calstats.numerics.vmmin`); objectives are
evaluated with R's reductions and glibc's ``exp``/``log``, in the compiled core
(:mod:`calstats.numerics.core`; the NumPy code here is its bit-for-bit reference, :data:`BACKEND`). Platt scaling and beta
calibration, the logistic regressions, are in :mod:`calstats.calibrators.logistic`.

``engine="fast"`` (or the ``engine`` option) evaluates the multiclass objectives with the
fast engine (:mod:`calstats.numerics.fast`: a vectorised ``exp`` and pairwise sums) under
the same optimisers: the same optimum to 1e-8 relative, not R's last bits.
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._frames import like_input
from .._inputs import refuse_misnamed_columns, warn_if_probabilities
from .._options import resolve_engine
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import any_dask, on_dask
from ..kernels.probs import (
    binary_log_loss,
    clip_loss_prob,
    inv_logit,
    inv_logit_checked,
    prob_frame,
    softmax,
    softmax_t,
)
from ..kernels.temperature import T_LOWER, T_UPPER, brent_temperature
from ..numerics import core, fast, libm
from ..numerics.core import (
    ScalingData,
    temperature_value_c,
    vector_scaling_fit_c,
    vector_scaling_gradient_c,
    vector_scaling_value_c,
    vmmin_c,
)
from ..numerics.reductions import col_sums, rmean, rsum
from ..numerics.rformat import round_text
from ..numerics.vmmin import vmmin
from ..results._base import Calibrator
from ..results._coeftable import SINGULAR_NOTE, coef_frame, se_from_hessian
from ._multinomial import (
    check_parameter_count,
    class_link_se,
    covariance_from_information,
    frame_index,
    jacobian_variance,
    logit_data,
    training_data,
    uncertainty_args,
    warn_if_singular,
)

__all__ = ["cal_temperature", "cal_vector_scaling", "CalTemperature", "CalTemperatureMulticlass", "CalVectorScaling"]

#: optim(method = "BFGS") iteration limit used by probcal.
MAXIT = 500
#: Where the multiclass temperature and vector-scaling objectives run: ``"c"``, the compiled
#: core, or ``"numpy"``, the reference implementation (the tests' bit oracle); same bits.
BACKEND = "c" if core.COMPILED else "numpy"
#: Rows per block of the Hessian accumulations.
_HESSIAN_BLOCK = 4096
#: The summary line of a fit made by the fast engine (R's engine adds none: R's text).
FAST_ENGINE_TEXT = "fast (vectorised exp, pairwise sums; not R's bits)"


def _engine_items(fit, items):
    """R's summary lines, and one more when the fast engine ran."""
    if getattr(fit, "engine", "r") == "fast":
        items = [*items, ("Engine", FAST_ENGINE_TEXT)]
    return items


def _multiclass_newdata(newdata, k):
    """The check of ``newdata`` as a logit matrix (numeric, at least two columns, non-empty, finite)
    and the column count of a multiclass fit."""
    z = v.check_logit_matrix(newdata, "newdata")
    if k is None:
        # R compares ncol(newdata) with the missing `k` of a binary fit, which fails this way.
        v.fail_r_length_zero()
    v.check_ncol(z.shape[1], k)
    return z


# --------------------------------------------------------------------------------------
# observed information (coefficient tables)


def _binary_data(x, y):
    z = v.check_numeric(x, "x")
    yv = v.check_binary_y(y, "y", require_both=True)
    return z, yv.astype(np.float64)


def temperature_information(z, y, temperature, multiclass, weights=None):
    """Observed information ``d^2/dT^2`` of the summed negative log-likelihood at ``T``.

    Binary (``z`` logits, ``y`` 0/1): ``sum s(1-s) z^2/T^4 + 2 (s - y) z/T^3`` with
    ``s = inv_logit(z/T)``. Multiclass (``z`` n x k, ``y`` 1-based codes):
    ``sum_i Var_{p_i}(z_i)/T^4 + 2 (p_i . z_i - z_{i,y_i})/T^3`` with ``p_i = softmax(z_i/T)``.
    With case ``weights`` each row's term counts ``w_i`` times.
    """
    t = float(temperature)
    if not multiclass:
        z = np.asarray(z, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        s = inv_logit(z / t)
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            return float(np.sum(w * s * (1 - s) * z * z) / t**4 + 2.0 * np.sum(w * (s - y) * z) / t**3)
        return float(np.sum(s * (1 - s) * z * z) / t**4 + 2.0 * np.sum((s - y) * z) / t**3)
    # blocks of rows, widened to float64 one at a time (a float32 matrix is never copied
    # whole); every row's terms are its own, so the blocks change no bit
    Z = z if isinstance(z, np.ndarray) and z.dtype == np.float32 else np.asarray(z, dtype=np.float64)
    codes = np.asarray(y, dtype=np.int64)
    n = Z.shape[0]
    var, dev = np.empty(n), np.empty(n)
    step = max(1, (1 << 20) // max(Z.shape[1], 1))
    for i0 in range(0, n, step):
        Zb = np.asarray(Z[i0:i0 + step], dtype=np.float64)
        p = softmax(Zb / t)
        mean = (p * Zb).sum(axis=1)
        var[i0:i0 + step] = (p * Zb * Zb).sum(axis=1) - mean * mean
        dev[i0:i0 + step] = mean - Zb[np.arange(Zb.shape[0]), codes[i0:i0 + step] - 1]
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        return float(np.sum(w * var) / t**4 + 2.0 * np.sum(w * dev) / t**3)
    return float(np.sum(var) / t**4 + 2.0 * np.sum(dev) / t**3)


def vector_scaling_hessian(Z, scale, bias, weights=None):
    """Hessian of the summed NLL of ``softmax(z_ij s_j + b_j)``; parameters ``(s, b)``
    (with case ``weights`` each row's term counts ``w_i`` times)."""
    Z = np.asarray(Z, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    b = np.asarray(bias, dtype=np.float64)
    n, k = Z.shape
    H4 = np.zeros((2, k, 2, k))
    for start in range(0, n, _HESSIAN_BLOCK):
        Zb = Z[start:start + _HESSIAN_BLOCK]
        p = softmax(Zb * s + b)
        pw = p if weights is None else p * np.asarray(weights, dtype=np.float64)[start:start + _HESSIAN_BLOCK, None]
        X = np.stack([Zb, np.ones_like(Zb)], axis=0)  # (2, n, k): feature a of class j
        diag = np.einsum("ij,aij,cij->ajc", pw, X, X)
        H4 += np.einsum("ajc,jl->ajcl", diag, np.eye(k))
        H4 -= np.einsum("ij,il,aij,cil->ajcl", pw, p, X, X, optimize=True)
    return H4.reshape(2 * k, 2 * k)


# --------------------------------------------------------------------------------------
# temperature scaling


class CalTemperature(Calibrator):
    """A fitted temperature scaling map (R class ``cal_temperature``).

    Binary fits (from a logit vector) have R class ``("cal_temperature", "calibrator")``;
    multiclass fits (from a logit matrix) ``("cal_temperature", "cal_multiclass",
    "calibrator")`` and the extra fields ``k`` and ``levels``.

    Attributes
    ----------
    temperature : float
        The fitted temperature ``T`` in (1e-3, 1e3); predictions are ``inv_logit(z / T)``
        (binary) or ``softmax(z / T)`` (multiclass).
    value : float
        The objective at ``T``: the **summed** negative log-likelihood for binary fits, the
        **mean** for multiclass fits, as in R.
    convergence : int
        Always 0 (R's ``optim(method = "Brent")`` reports no failure).
    k, levels : int, list of str
        Multiclass fits only: number of classes and their labels.
    engine : str
        Not an R field: ``"fast"`` when the fast engine computed the fit, else ``"r"``
        (R's arithmetic; binary and Dask fits always).
    """

    r_class: tuple[str, ...] = ("cal_temperature", "calibrator")
    _r_fields: tuple[str, ...] = ("method", "n", "input", "temperature", "value", "convergence", "call")
    #: the training data and case weights, for coef_table() and predict(se_fit=True), and
    #: the engine that ran (not R fields; a fit on Dask inputs has no data)
    _extras: tuple[str, ...] = ("_coef_data", "_fit_weights", "engine")
    # R fields, set by the constructor (declared for type checkers)
    temperature: float
    #: the engine that computed the fit
    engine: str = "r"

    def _parameter_items(self):
        return [("Temperature", round_text(self.temperature, 4))]

    def _summary_items(self):
        return _engine_items(self, super()._summary_items())

    def _has_coef_table(self):
        return self.__dict__.get("_coef_data") is not None

    def _coef_table(self, x, y):
        multiclass = "k" in self._r_fields
        z, labels = self._training_data(x, y, logit_data if multiclass else _binary_data)
        info = temperature_information(z, labels, self.temperature, multiclass, weights=self._training_weights(x))
        se = 1.0 / math.sqrt(info) if info > 0 else math.nan
        note = ("Standard error from the observed information of the summed negative log-likelihood "
                "at T (no penalty); z and p test T = 1 (no rescaling).")
        if not T_LOWER * 1.01 < self.temperature < T_UPPER * 0.99:
            note += " T is at the boundary of the search interval [1e-3, 1e3]: the standard error is not valid."
        if not info > 0:
            note += " The observed information is not positive: no standard error."
        return coef_frame(["temperature"], [self.temperature], [se], [1.0], note)

    @property
    def coef(self):
        """The temperature as a Series ``{"temperature": T}``."""
        return pd.Series({"temperature": self.temperature}, dtype=np.float64)

    def _dask_columns(self, newdata):
        # the checks that need no row: the fit's kind and the column count
        k = getattr(self, "k", None)
        if not (getattr(newdata, "ndim", 1) == 2 or k is not None):
            return None
        if k is None:
            v.fail_r_length_zero()  # a binary fit given a matrix: R's error
        if getattr(newdata, "ndim", 1) != 2:
            v.check_logit_matrix(np.zeros(1), "newdata")  # R's message for a vector
        v.check_ncol(newdata.shape[1], k)
        return self.levels

    @on_dask(rows=lambda self, newdata: self._dask_columns(newdata), data=("newdata",))
    def _probabilities(self, newdata: Scores, **kwargs: Any) -> np.ndarray | pd.DataFrame:
        k = getattr(self, "k", None)
        if v.is_matrix(newdata) or k is not None:
            z = _multiclass_newdata(newdata, k)
            return prob_frame(softmax(z / self.temperature), self.levels, like=newdata)
        with np.errstate(over="ignore"):
            eta = v.check_numeric(newdata, "newdata") / self.temperature
        return inv_logit_checked(eta)

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> np.ndarray | pd.DataFrame:
        """Calibrated probabilities, optionally with their delta-method uncertainty.

        R: ``predict(fit, newdata)``. A vector gives ``inv_logit(newdata / T)`` (1-D
        array); a matrix gives ``softmax(newdata / T)`` as a DataFrame with columns
        ``levels`` (multiclass fits only: a binary fit fails with R's ``argument is of
        length zero``, as in R). A Dask input gives a Dask array (DataFrame) computed block
        by block.

        Parameters
        ----------
        newdata : array_like, DataFrame or tensor
            Logits: a vector (binary fit) or an ``n x k`` matrix (multiclass fit). A torch
            tensor gives its probabilities back as a tensor on its device with its dtype
            (float64 for an integer tensor), not as a DataFrame.
        se_fit : bool, default False
            Not in R's probcal. Add ``link`` (binary: ``z / T``; multiclass: the logit of
            each class's calibrated probability) and ``se_link``, its delta-method standard
            error.
        interval : {None, "confidence"}
            Not in R's probcal. ``"confidence"`` adds ``lower`` and ``upper``,
            ``inv_logit(link -/+ z se_link)`` with ``z = qnorm((1 + level)/2)``.
        level : float, default 0.95
            Confidence level of ``interval``.

        Returns
        -------
        ndarray or DataFrame
            With the defaults, the probabilities (R's numbers). With ``se_fit`` or
            ``interval`` a DataFrame: columns ``fit``, ``link``, ``se_link``, ``lower``,
            ``upper`` (binary), or those quantities over the classes (two column levels).

        Notes
        -----
        The fitted parameter is ``T`` (R's ``optimize`` searches ``T``); its variance is the
        inverse of the observed information ``d^2/dT^2`` of the summed negative
        log-likelihood at ``T`` (case weights as frequencies), as in :meth:`coef_table`, and
        ``d(z/T)/dT = -z/T^2``. Not valid when ``T`` is at the boundary of ``[1e-3, 1e3]``.
        Needs the training data the in-memory fit keeps (a fit on Dask inputs has none);
        ``se_fit``/``interval`` on a Dask ``newdata`` are refused.
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        out = self._probabilities(newdata, **kwargs)
        if not wanted:
            return like_input(out, newdata)  # a tensor gives a tensor
        from ..results._prediction import prediction_frame

        var_t = self._temperature_variance()
        warn_if_singular(var_t)
        t = self.temperature
        sd = math.nan if var_t is None else math.sqrt(var_t)
        if isinstance(out, pd.DataFrame):
            z = _multiclass_newdata(newdata, self.k)

            def variance(rows, D):
                # d logit p_k / dT = sum_j D[k, j] * (-z_j / T^2)
                return np.einsum("ikj,ij->ik", D, -z[rows] / (t * t)) ** 2 * var_t

            logit, se = class_link_se(z / t, None if var_t is None else variance)
            return prediction_frame(out.to_numpy(), logit, se, se_fit=se_fit, interval=interval, level=level,
                                    levels=self.levels, index=frame_index(newdata))
        x = v.check_numeric(newdata, "newdata")
        with np.errstate(over="ignore"):
            eta = x / t
        se = np.abs(x) / (t * t) * sd  # |d(z/T)/dT| sd(T)
        return prediction_frame(out, eta, se, se_fit=se_fit, interval=interval, level=level,
                                index=frame_index(newdata))

    def _temperature_variance(self):
        """``1 / information`` of ``T`` (None when the information is not positive), kept
        with the fit after the first request."""
        if "_se_var" not in self.__dict__:
            z, labels = training_data(self)
            info = temperature_information(z, labels, self.temperature, "k" in self._r_fields,
                                           weights=self.__dict__.get("_fit_weights"))
            object.__setattr__(self, "_se_var", 1.0 / info if info > 0 and math.isfinite(info) else None)
        return self.__dict__["_se_var"]


def _multiclass_temperature_objective(Z, codes, w=None, engine="r", backend=None):
    """``g(T) = multiclass_log_loss(softmax(Z / T), codes)`` (weighted: ``-sum(w * loglik) /
    sum(w)``): R's arithmetic (``engine="r"``) in the compiled core (``backend="c"``; None:
    :data:`BACKEND`) or its NumPy reference in class-major layout (``"numpy"``), the same
    bits either way; or the fast engine (``"fast"``, :func:`calstats.numerics.fast.temperature_value`)."""
    if engine == "fast":
        fdata = fast.FastScalingData(Z, codes, w)
        return lambda temperature: fast.temperature_value(fdata, temperature)
    if engine != "r":
        v.fail_unknown_setting("engine", engine)
    backend = BACKEND if backend is None else backend
    if backend == "c":
        data = ScalingData(Z, codes, w)
        return lambda temperature: temperature_value_c(data, temperature)
    if backend != "numpy":
        v.fail_unknown_setting("backend", backend)
    zt = np.ascontiguousarray(Z.T)
    rows = (np.asarray(codes, dtype=np.int64) - 1, np.arange(zt.shape[1]))
    sw = None if w is None else rsum(w)

    def g(temperature):
        probs = softmax_t(zt / temperature)
        lp = libm.log(clip_loss_prob(probs[rows]))
        return -rmean(lp) if w is None else -(rsum(w * lp) / sw)

    return g


@records_call("cal_temperature")
def cal_temperature(logits: Scores, y: Labels, *, weights: Weights = None, engine: str | None = None) -> CalTemperature:
    """Temperature scaling: divide logits by one fitted temperature.

    A vector ``logits`` is binary temperature scaling, ``inv_logit(z / T)``, fitted to 0/1
    labels by the **summed** negative log-likelihood; a matrix (one column per class) is
    multiclass temperature scaling, ``softmax(Z / T)``, fitted by the **mean** negative
    log-likelihood. ``T`` is searched in ``[1e-3, 1e3]`` by R's ``optimize`` (Brent).

    Parameters
    ----------
    logits : array_like, DataFrame or tensor
        Binary: a numeric vector of logits. Multiclass: an ``n x k`` numeric matrix
        (column j belongs to class j). A polars or pyarrow frame is read as pandas (its
        column names kept), a torch tensor on any device (or any DLPack array) as NumPy,
        without a copy where it lies in CPU memory.
    y : array_like, pandas.Categorical or Factor
        Binary: 0/1 labels (numbers or booleans), both present. Multiclass: class codes
        ``1..k`` or a factor whose levels name the columns.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal; R's name, as ``glm(weights =)``): non-negative,
        finite, not all zero, one per observation. The fit minimises the weighted loss;
        integer weights give the fit of the data with each row repeated that many times.
        ``None`` is R's fit, bit for bit.
    engine : {None, "r", "fast"}, keyword-only
        Not in R. The arithmetic of the multiclass objective. ``"r"``: R's numbers, bit for
        bit (the C library's ``exp``, R's long-double sums in R's order). ``"fast"``: a
        vectorised ``exp`` (within about 1 ulp) and pairwise sums on every core, an
        objective about three times faster on large matrices. It runs the same search (R's
        ``optimize``: same interval, same tolerance ``tol = sqrt(eps)``) on an objective that
        differs from R's by ~1e-16 relative, and so reaches the same optimum: the minimum
        ``value`` is R's to ~1e-15 relative, and R's objective takes the same value at both
        temperatures to ~1e-15. ``T`` itself is only as determined as ``optimize`` leaves
        it: its last comparisons are between values that differ by ~1e-16, so the two
        engines' ``T`` may differ by up to a few times its tolerance, ``1.5e-8 |T| + 5e-9``
        (R's own ``T`` is as far from the exact minimiser). ``None`` (default): the ``engine`` option
        (:func:`calstats.set_option`, default ``"r"``). Binary fits (a logit vector) and Dask
        inputs always use R's arithmetic. ``fit.engine`` says which ran, and ``summary()``
        adds an ``Engine`` line when it was the fast one.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalTemperature

    Notes
    -----
    R equivalent: ``probcal::cal_temperature(logits, y)``, i.e. ``optim(1, fn, method =
    "Brent", lower = 1e-3, upper = 1e3)``; same checks, messages, fields and numbers. The
    start value is ignored by Brent, boundary optima are returned just inside the interval
    and ``convergence`` is always 0. Boolean labels holding ``pd.NA`` (R's logical ``NA``,
    which passes the label check) make the objective NaN everywhere; R then warns ``NA/Inf
    replaced by maximum positive value`` at every evaluation and ends near the upper bound
    with ``value`` NaN.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> z = np.array([-3.0, -1.0, -0.2, 0.5, 1.0, 2.5, 4.0, -2.0])
    >>> y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    >>> fit = calstats.cal_temperature(z, y)
    >>> fit.r_class
    ('cal_temperature', 'calibrator')
    """
    engine = resolve_engine(engine)
    if engine == "fast" and v.is_matrix(logits) and not any_dask(logits, y):
        return _cal_temperature_multiclass(logits, y, weights, engine)._replace(engine="fast")
    return _cal_temperature(logits, y, weights=weights)


@on_dask("_fit.temperature", data=("logits", "y"), finish=lambda fitted, **_: _new_temperature(*fitted))
def _cal_temperature(logits, y, *, weights=None):
    """:func:`cal_temperature` with R's arithmetic (Dask inputs go to :mod:`calstats.dask`)."""
    if v.is_matrix(logits):
        return _cal_temperature_multiclass(logits, y, weights)
    z = v.check_numeric(logits, "logits")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("logits", "y", z.size, yv.size)
    warn_if_probabilities(z, "cal_temperature", "logits")
    yf = np.asarray(yv, dtype=np.float64)
    w = check_weights(weights, z.size)
    temperature, value = brent_temperature(lambda t: binary_log_loss(inv_logit(z / t), yf, w))
    return _new_temperature(temperature, value, yv.size, None, None, coef_data=(z, yf), fit_weights=w)


def _new_temperature(temperature, value, n, k, levels, coef_data=None, fit_weights=None):
    """The fitted :class:`CalTemperature` (``k`` None: binary) of a temperature search;
    ``coef_data`` the training data (``fit_weights`` its case weights) kept for
    :meth:`~CalTemperature.coef_table` and ``predict(se_fit=True)``."""
    if k is None:
        return CalTemperature(method="temperature scaling", n=int(n), input="logits", temperature=float(temperature),
                              value=value, convergence=0, call=None, _coef_data=coef_data, _fit_weights=fit_weights)
    return CalTemperatureMulticlass(method="multiclass temperature scaling", n=int(n), input="logits (matrix)",
                                    temperature=float(temperature), value=value, convergence=0, k=int(k),
                                    levels=list(levels), call=None, _coef_data=coef_data, _fit_weights=fit_weights)


class CalTemperatureMulticlass(CalTemperature):
    """Multiclass temperature scaling: R class ``("cal_temperature", "cal_multiclass",
    "calibrator")`` with the fields ``k`` and ``levels``."""

    r_class = ("cal_temperature", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "temperature", "value", "convergence", "k", "levels", "call")


def _cal_temperature_multiclass(logits, y, weights=None, engine="r"):
    # A float32 matrix stays float32: the core widens each entry as it reads it (exact, so
    # the fit is that of its float64 copy) and the fit needs no copy of the matrix. Above
    # 2^24 entries the kept training data (coef_table, predict(se_fit=True)) is the
    # caller's array itself, not a copy.
    Z = v.check_logit_matrix(logits, "logits", keep_float32=True)
    if Z.dtype == np.float32 and Z.size <= 1 << 24 and (Z.base is not None or np.may_share_memory(Z, logits)):
        Z = Z.copy()
    codes, levels, k = v.check_multiclass_y(y, Z.shape[1])
    refuse_misnamed_columns(logits, y, "logits")
    v.check_nobs("logits", "y", Z.shape[0], codes.size)
    warn_if_probabilities(Z, "cal_temperature", "logits")
    w = check_weights(weights, Z.shape[0])
    # the NumPy reference objective computes in the dtype it is given: float64 for it
    zfit = Z if BACKEND == "c" else np.asarray(Z, dtype=np.float64)
    temperature, value = brent_temperature(_multiclass_temperature_objective(zfit, codes, w, engine))
    return _new_temperature(temperature, value, Z.shape[0], k, levels, coef_data=(Z, codes), fit_weights=w)


# --------------------------------------------------------------------------------------
# vector scaling


class VectorScalingObjective:
    """Mean negative log-likelihood of ``softmax(z_ij * s_j + b_j)`` and its gradient.

    ``par = (s_1..s_k, b_1..b_k)``. The softmax at a point is computed once and shared by
    the objective and the gradient (vmmin asks for the gradient only at the point it has
    just evaluated). As in R the gradient ignores the 1e-15 clipping of the objective.
    ``backend="c"`` (default :data:`BACKEND`) evaluates in the compiled core
    (:mod:`calstats.numerics.core`); ``"numpy"`` is the reference, class-major
    (classes x observations). Both give the same bits.
    """

    def __init__(self, Z, codes, weights=None, backend=None):
        self.backend = BACKEND if backend is None else backend
        if self.backend not in ("c", "numpy"):
            v.fail_unknown_setting("backend", self.backend)
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.n, self.k = self.Z.shape
        self.codes = np.asarray(codes, dtype=np.int64)
        self._rows = (self.codes - 1, np.arange(self.n))
        # case weights: sum(w * loglik) / sum(w) (None: R's mean)
        self.weights = weights
        if weights is not None:
            self._sw = rsum(weights)
            self._wf = weights / self._sw
        self._key = None
        self._probs = None
        self._value = None
        self._zt = None
        self._data = ScalingData(self.Z, self.codes, weights) if self.backend == "c" else None

    @property
    def zt(self):
        """The logits class-major (classes x observations), formed on first use."""
        if self._zt is None:
            self._zt = np.ascontiguousarray(self.Z.T)
        return self._zt

    def start(self):
        """``s = 1``, ``b = 0``."""
        return np.concatenate([np.ones(self.k), np.zeros(self.k)])

    def _at(self, par):
        """Evaluate at ``par`` unless it is the cached point."""
        key = par.tobytes()
        if key != self._key:
            if self._data is not None:
                if self._probs is None:
                    self._probs = np.empty((self.n, self.k))
                self._key = None  # the buffer is overwritten below
                self._value = vector_scaling_value_c(self._data, par, self._probs)
            else:
                s, b = par[: self.k], par[self.k :]
                self._probs = softmax_t(self.zt * s[:, None] + b[:, None])
                self._value = None
            self._key = key

    def probs_t(self, par):
        """Softmax probabilities at ``par``, classes x observations."""
        self._at(par)
        assert self._probs is not None
        return self._probs.T if self._data is not None else self._probs

    def value(self, par):
        self._at(par)
        if self._value is not None:
            return self._value
        lp = libm.log(clip_loss_prob(self._probs[self._rows]))
        return -rmean(lp) if self.weights is None else -(rsum(self.weights * lp) / self._sw)

    def gradient(self, par):
        self._at(par)
        if self._data is not None:
            return vector_scaling_gradient_c(self._data, self._probs)
        resid = self._probs.copy()
        resid[self._rows] -= 1.0
        if self.weights is None:
            resid /= self.n
        else:
            resid *= self._wf[None, :]
        # colSums over observations (long double, in order) of the observation-major matrices
        return np.concatenate([col_sums((resid * self.zt).T), col_sums(resid.T)])

    def fit(self, maxit=MAXIT):
        """R's BFGS from :meth:`start` (``optim(method = "BFGS")``): entirely in the core
        with the compiled backend, else :func:`~calstats.numerics.vmmin.vmmin` on this object."""
        if self._data is not None:
            return vector_scaling_fit_c(self._data, self.start(), maxit=maxit)
        return vmmin(self.value, self.gradient, self.start(), maxit=maxit)


class FastVectorScalingObjective:
    """:class:`VectorScalingObjective` computed by the fast engine
    (:func:`calstats.numerics.fast.vector_scaling_eval`): one pass over the logits gives the
    value and the gradient at a point, kept until another point is asked for (vmmin asks
    for the gradient only at the point it has just evaluated). Same interface: ``value``,
    ``gradient``, ``start``, ``fit``, ``zt``, ``weights``."""

    def __init__(self, Z, codes, weights=None):
        self.data = fast.FastScalingData(Z, codes, weights)
        self.n, self.k = self.data.n, self.data.k
        self.weights = weights
        self._key = None
        self._value = math.nan
        self._grad = np.empty(2 * self.k)

    @property
    def zt(self):
        """The logits class-major (classes x observations)."""
        return np.ascontiguousarray(self.data.Z.T, dtype=np.float64)

    def start(self):
        """``s = 1``, ``b = 0``."""
        return np.concatenate([np.ones(self.k), np.zeros(self.k)])

    def _at(self, par):
        key = par.tobytes()
        if key != self._key:
            self._key = None  # the buffer is overwritten below
            self._value = fast.vector_scaling_eval(self.data, par, self._grad)
            self._key = key

    def value(self, par):
        self._at(par)
        return self._value

    def gradient(self, par):
        self._at(par)
        return self._grad.copy()

    def fit(self, maxit=MAXIT):
        """R's BFGS from :meth:`start` (``optim(method = "BFGS")``, R's ``vmmin`` in the
        core) on the fast objective."""
        return vmmin_c(self.value, self.gradient, self.start(), maxit=maxit)


class CalVectorScaling(Calibrator):
    """A fitted vector scaling map (R class ``cal_vector_scaling``).

    Attributes
    ----------
    scale, bias : ndarray (k,)
        Calibrated logits are ``z_ij * scale_j + bias_j``.
    value : float
        Mean negative log-likelihood at the returned parameters (as BFGS reports it).
    convergence : int
        0, or 1 when BFGS stopped at 500 iterations.
    k, levels : int, list of str
        Number of classes and their labels (column j of the input is ``levels[j]``).
    engine : str
        Not an R field: ``"fast"`` when the fast engine computed the fit, else ``"r"``.
    """

    r_class = ("cal_vector_scaling", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "scale", "bias", "value", "convergence", "k", "levels", "call")
    #: not R fields: the optimiser's counts and trace, the training data and case weights
    #: for coef_table() and predict(se_fit=True), and the engine that ran
    _extras: tuple[str, ...] = ("counts", "optimizer", "grad_norm", "iterations", "_coef_data", "_fit_weights",
                                "engine")
    # R fields, set by the constructor (declared for type checkers)
    scale: np.ndarray
    bias: np.ndarray
    # the extras
    counts: Any
    optimizer: str
    grad_norm: float
    iterations: Any
    #: the engine that computed the fit
    engine: str = "r"

    def _parameter_items(self):
        return [("Scales", ", ".join(round_text(s, 3) for s in self.scale)),
                ("Biases", ", ".join(round_text(b, 3) for b in self.bias))]

    def _summary_items(self):
        return _engine_items(self, super()._summary_items())

    def _parameter_tables(self):
        return {"coefficients": self.coef}

    def _has_coef_table(self):
        return self.__dict__.get("_coef_data") is not None

    def _coef_table(self, x, y):
        Z, codes = self._training_data(x, y, logit_data)
        k = self.k
        H = vector_scaling_hessian(Z, self.scale, self.bias, weights=self._training_weights(x))
        se, singular, m = se_from_hessian(H)
        # H order: (a, j) with a = 0 scale, 1 bias -> rows per class: scale, bias
        order = [a * k + j for j in range(k) for a in (0, 1)]
        names = [f"{lv}: {a}" for lv in self.levels for a in ("scale", "bias")]
        est = np.concatenate([self.scale, self.bias])[order]
        null = np.array([1.0 if a == 0 else 0.0 for _ in range(k) for a in (0, 1)])
        note = ("Standard errors from the observed information (Hessian of the summed negative "
                "log-likelihood, no penalty); z and p test scale = 1 and bias = 0.")
        if singular:
            note += SINGULAR_NOTE.format(m=m)
        return coef_frame(names, est, se[order], null, note)

    @property
    def coef(self):
        """Scale and bias of each class as a DataFrame (index: the levels)."""
        return pd.DataFrame({"scale": self.scale, "bias": self.bias}, index=pd.Index(self.levels, name="class"))

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> pd.DataFrame:
        """Calibrated probabilities ``softmax(newdata * scale + bias)`` (per column),
        optionally with their delta-method uncertainty.

        R: ``predict(fit, newdata)``. ``newdata`` must be a logit matrix with ``k``
        columns. Returns a DataFrame whose columns are ``levels``; a DataFrame input keeps
        its index.

        Parameters
        ----------
        newdata : array_like, DataFrame or tensor (n, k)
            Logits, one column per class. A torch tensor gives a tensor on its device with
            its dtype (float64 for an integer tensor), not a DataFrame.
        se_fit : bool, default False
            Not in R's probcal. Add ``link`` (the logit of each class's calibrated
            probability) and ``se_link``, its delta-method standard error.
        interval : {None, "confidence"}
            Not in R's probcal. ``"confidence"`` adds ``lower`` and ``upper``,
            ``inv_logit(link -/+ z se_link)`` with ``z = qnorm((1 + level)/2)``.
        level : float, default 0.95
            Confidence level of ``interval``.

        Returns
        -------
        DataFrame
            With the defaults, the probabilities (R's numbers); with ``se_fit`` or
            ``interval``, two column levels: quantity (``fit``, ``link``, ``se_link``,
            ``lower``, ``upper``), then class.

        Notes
        -----
        The covariance of ``(scale, bias)`` is the inverse of the observed information (the
        Hessian of the summed negative log-likelihood, case weights as frequencies; the fit
        is unpenalised). The softmax does not identify a common shift of the biases, so
        class 1's bias is held fixed. Formed on the first request from the training data the
        fit keeps (not beyond 2000 parameters) and kept with the fit.
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        z = _multiclass_newdata(newdata, self.k)
        zt = np.ascontiguousarray(z.T)
        probs = softmax_t(zt * self.scale[:, None] + self.bias[:, None])
        out = prob_frame(probs.T, self.levels, like=newdata)
        if not wanted:
            return like_input(out, newdata)  # a tensor gives a tensor
        from ..results._prediction import prediction_frame

        free, V = self._se_covariance()
        warn_if_singular(V)

        def variance(rows, D):
            # eta_j = z_j s_j + b_j: d logit p_k / d s_j = D[k, j] z_j, d / d b_j = D[k, j]
            J = np.concatenate([D * z[rows][:, None, :], D], axis=2)
            return jacobian_variance(J[:, :, free], V)

        logit, se = class_link_se(z * self.scale + self.bias, None if V is None else variance, width=2 * self.k)
        return prediction_frame(out.to_numpy(), logit, se, se_fit=se_fit, interval=interval, level=level,
                                levels=self.levels, index=frame_index(newdata))

    def _se_covariance(self):
        """``(free, V)``: the parameters ``(scale, bias)`` other than class 1's bias and their
        covariance (None when the information is singular), kept after the first request."""
        cached = self.__dict__.get("_se_cov")
        if cached is None:
            k = self.k
            free = np.array([i for i in range(2 * k) if i != k], dtype=np.int64)
            check_parameter_count(free.size, k)
            Z, _ = training_data(self)
            H = vector_scaling_hessian(Z, self.scale, self.bias, weights=self.__dict__.get("_fit_weights"))
            cached = (free, covariance_from_information(H[np.ix_(free, free)]))
            object.__setattr__(self, "_se_cov", cached)
        return cached


@records_call("cal_vector_scaling")
def cal_vector_scaling(logits: Scores, y: Labels, *, optimizer: str = "bfgs",
                       weights: Weights = None, engine: str | None = None) -> CalVectorScaling:
    """Vector scaling: a per-class scale and bias on the logits, then a softmax.

    Fits ``softmax(z_ij * s_j + b_j)`` by minimising the mean negative log-likelihood with
    R's BFGS (``optim(method = "BFGS")``, ``maxit = 500``) from ``s = 1``, ``b = 0`` with
    the analytic gradient (Guo et al., 2017).

    Parameters
    ----------
    logits : array_like, DataFrame or tensor (n, k)
        Uncalibrated logits, one column per class (a polars or pyarrow frame, a torch
        tensor on any device: as :func:`cal_temperature` reads them).
    y : array_like of int, pandas.Categorical or Factor
        Class codes ``1..k`` (column j is class j), or a factor whose levels name the columns.
    optimizer : {"bfgs", "newton"}, keyword-only
        Not in R. ``"bfgs"`` (default): R's BFGS and R's numbers; ``"newton"``: the same
        objective minimised to a gradient norm below 1e-9 (trust-region Newton, exact
        Hessian). ``fit.optimizer`` and ``fit.grad_norm`` say what ran and where it stopped.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal; R's name, as ``glm(weights =)``): non-negative,
        finite, not all zero, one per observation. The fit minimises the weighted loss;
        integer weights give the fit of the data with each row repeated that many times.
        ``None`` is R's fit, bit for bit.
    engine : {None, "r", "fast"}, keyword-only
        Not in R. The arithmetic of the objective and its gradient. ``"r"``: R's numbers,
        bit for bit (the C library's ``exp``, R's long-double sums in R's order).
        ``"fast"``: a vectorised ``exp`` (within about 1 ulp) and pairwise sums on every
        core, one pass over the logits per point (value and gradient), three to four times
        faster on large matrices. It runs the same optimiser (R's BFGS: same start, line search and stopping rule);
        its objective differs from R's by ~1e-16 relative, so the iterates follow R's and the
        result is R's engine's to 1e-8 relative (parameters and value; ~1e-14 measured at
        n = 50 000, K = 1 000). "The same optimum" is thus the point where R's BFGS stops,
        not the exact minimiser: R's rule (relative decrease below 1.5e-8) can stop well
        before the gradient is small; ``optimizer="newton"`` converges further with either
        engine. On separable data (scales growing until the iteration limit) the result of
        either engine depends on the exact floating-point path, and the two can differ.
        ``None`` (default): the ``engine`` option (:func:`calstats.set_option`, default
        ``"r"``). ``fit.engine`` says which ran, and ``summary()`` adds an ``Engine`` line
        when it was the fast one.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalVectorScaling

    Notes
    -----
    R equivalent: ``probcal::cal_vector_scaling(logits, y)``; same checks, messages, fields
    and numbers (BFGS is R's ``vmmin``, :mod:`calstats.numerics.vmmin`). On separable data
    the scales grow until the iteration limit (``convergence = 1``) and the result depends
    on the exact floating-point path.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> rs = np.random.default_rng(1)
    >>> z = rs.normal(size=(60, 3))
    >>> y = rs.integers(1, 4, size=60)
    >>> fit = calstats.cal_vector_scaling(z, y)
    >>> fit.predict(z).shape
    (60, 3)
    """
    engine = resolve_engine(engine)
    Z = v.check_logit_matrix(logits, "logits")
    codes, levels, k = v.check_multiclass_y(y, Z.shape[1])
    refuse_misnamed_columns(logits, y, "logits")
    v.check_nobs("logits", "y", Z.shape[0], codes.size)
    warn_if_probabilities(Z, "cal_vector_scaling", "logits")
    from ._multinomial import check_optimizer

    optimizer = check_optimizer(optimizer)
    objective = FastVectorScalingObjective if engine == "fast" else VectorScalingObjective
    obj = objective(Z, codes, check_weights(weights, Z.shape[0]))
    if optimizer == "newton":
        from ._newton import fit_vector_scaling_newton

        res = fit_vector_scaling_newton(obj)
        method, gnorm = res.method, res.grad_norm
    else:
        res = obj.fit(MAXIT)
        method, gnorm = "BFGS (R's optim)", float(np.linalg.norm(obj.gradient(res.par)))
    return CalVectorScaling(
        method="vector scaling", n=int(Z.shape[0]), input="logits (matrix)",
        scale=res.par[:k].copy(), bias=res.par[k:].copy(), value=float(res.value),
        convergence=int(res.convergence), k=int(k), levels=list(levels), call=None,
        counts=res.counts, optimizer=method, grad_norm=gnorm, iterations=res.iterations, _coef_data=(Z, codes),
        _fit_weights=obj.weights, engine=engine,
    )
