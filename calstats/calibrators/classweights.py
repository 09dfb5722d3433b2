"""Class-weight loss correction (no R equivalent).

Caplin, A., Martin, D. & Marx, P. "Calibrating for class weights by modeling machine
learning". A classifier trained with a class-weighted strictly proper loss is not
calibrated but *loss-calibrated*: its scores are the optimal scores ``c^beta(gamma)`` of
the posterior ``gamma`` (Prop. 2, eq. 8; multiclass Prop. 3, eq. 10). Inverting
``c^beta`` gives the loss-corrected confidence score (eq. 11; binary Corollary 1, eq. 12),
which is calibrated exactly when the scores are loss-calibrated (Prop. 5). The
loss-calibration curve (the paper's Fig. 3) overlays the calibration curve with the
theoretical map.
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._frames import native
from .._inputs import refuse_misnamed_columns
from .._plotting import pyplot
from .._typing import ArrayLike, Labels, Scores
from ..kernels.probs import inv_logit
from ..results._base import Result

__all__ = ["loss_correct", "optimal_score", "loss_calibration_curve", "LossCalibrationCurve", "PerronArray"]

#: Scores are clipped to [PERRON_EPS, 1 - PERRON_EPS] in the Perron algorithm only.
PERRON_EPS = 1e-12


class PerronArray(np.ndarray):
    """An ndarray of loss-corrected probabilities carrying ``spectral_radius`` (per row)."""

    def __array_finalize__(self, obj):
        self.spectral_radius = getattr(obj, "spectral_radius", None)


# --------------------------------------------------------------------------------------
# argument checks, in this order: exactly one of beta/weights/delta, the parameter, its shape, then p


def _is_matrix_arg(x):
    return x is not None and v.is_matrix(x)


def _check_args(p, beta, weights, delta, arg="p"):
    """Checks shared by loss_correct and loss_calibration_curve; returns (kind, param, P)."""
    if sum(a is not None for a in (beta, weights, delta)) != 1:
        v.fail_one_class_weighting()
    p_matrix = v.is_matrix(p)
    if beta is not None and not _is_matrix_arg(beta):
        param, kind = v.check_interval(beta, "beta"), "binary"
    elif delta is not None:
        d = v.scalar_number(delta)
        if d is None or not math.isfinite(d) or d <= 0:
            v.fail_delta()
        param, kind = d, "delta"
    elif weights is not None:
        wv = v.as_vec(weights)
        w = np.asarray(wv.values, dtype=np.float64).ravel() if wv.kind == "numeric" else None
        if w is None or np.ndim(wv.values) > 1 or w.size < 2 or not np.isfinite(w).all() or (w <= 0).any():
            v.fail_class_weights()
        param, kind = w, "weights"
    else:
        bv = v.as_vec(beta)
        B = np.asarray(bv.values, dtype=np.float64) if bv.kind == "numeric" else None
        if (B is None or B.ndim != 2 or B.shape[0] != B.shape[1] or B.shape[0] < 2 or not np.isfinite(B).all()
                or (B <= 0).any()):
            v.fail_beta()
        param, kind = B, "matrix"
    if p_matrix != (kind in ("weights", "matrix")):
        name = {"binary": "beta", "matrix": "beta", "delta": "delta", "weights": "weights"}[kind]
        v.fail_shape_mismatch(name, arg)
    if kind in ("binary", "delta"):
        P = v.check_prob(p, arg)
    elif kind == "weights":
        P = v.check_prob_matrix(p, arg)
        if param.size != P.shape[1]:
            v.fail_class_weights()
    else:
        P = v.check_logit_matrix(p, arg)
        if ((P < 0) | (P > 1)).any():
            v.fail_not_probabilities(arg)
        if param.shape[0] != P.shape[1]:
            v.fail_beta()
    return kind, param, P


def like_input(values, p, extra=None):
    """Give the result the type of ``p``: Series/DataFrame keep their index and columns (a
    polars or pyarrow one gives pandas with its columns)."""
    p = native(p)
    if isinstance(p, pd.DataFrame):
        out = pd.DataFrame(values, index=p.index, columns=p.columns)
        if extra is not None:
            out.attrs["spectral_radius"] = extra
        return out
    if isinstance(p, pd.Series):
        return pd.Series(values, index=p.index, name=p.name)
    if extra is not None:
        out = np.asarray(values, dtype=np.float64).view(PerronArray)
        out.spectral_radius = extra
        return out
    return np.asarray(values, dtype=np.float64)


# --------------------------------------------------------------------------------------
# forward map c^beta and inverses


def _binary_correct(a, beta):
    """Corollary 1 (eq. 12): g^beta(a) = (1 - beta) a / (beta + (1 - 2 beta) a)."""
    return np.clip((1.0 - beta) * a / (beta + (1.0 - 2.0 * beta) * a), 0.0, 1.0)


def _delta_correct(a, delta):
    """Dal Pozzolo et al.'s undersampling correction h^delta(a) = delta a / (1 + (delta - 1) a)."""
    return np.clip(delta * a / (1.0 + (delta - 1.0) * a), 0.0, 1.0)


def _weights_correct(A, w):
    """Class-weight closed form: gamma_y = (a_y / w_y) / sum_y' (a_y' / w_y')."""
    q = A / w[None, :]
    return q / q.sum(axis=1, keepdims=True)


def _perron_matrix(A, B):
    """T(a)_{y,y'} = o_y beta_{y',y} / beta_{y,y} (y' != y), T_{y,y} = 0, for every row of A."""
    a = np.clip(A, PERRON_EPS, 1.0 - PERRON_EPS)
    o = a / (1.0 - a)
    R = B.T / np.diag(B)[:, None]  # R[y, y'] = beta[y', y] / beta[y, y]
    np.fill_diagonal(R, 0.0)
    return o[:, :, None] * R[None]


def _perron_correct(A, B):
    """Normalised Perron vector of T(a) per row and its spectral radius.

    By Perron-Frobenius the non-negative irreducible matrix T(a) (positive off the diagonal)
    has one eigenvector with positive entries, up to scale; normalised to sum 1 it is the
    posterior (exact when the spectral radius is 1, i.e. the scores are loss-calibrated).
    Eigen-decomposition for K <= 50 (plus one power-iteration step), power iteration on
    T + I otherwise.
    """
    T = _perron_matrix(A, B)
    n, K, _ = T.shape
    if K <= 50:
        vals, vecs = np.linalg.eig(T)
        j = np.argmax(vals.real, axis=1)
        g = np.abs(vecs[np.arange(n), :, j].real)
        g = g / g.sum(axis=1, keepdims=True)
        # one refinement step of power iteration on T + I (same Perron vector)
        g2 = np.einsum("nij,nj->ni", T, g) + g
        g = g2 / g2.sum(axis=1, keepdims=True)
    else:
        g = np.full((n, K), 1.0 / K)
        done = np.zeros(n, dtype=bool)
        for _ in range(10000):
            g2 = np.einsum("nij,nj->ni", T, g) + g
            g2 /= g2.sum(axis=1, keepdims=True)
            done = np.abs(g2 - g).sum(axis=1) < 1e-13
            g = g2
            if done.all():
                break
        if not done.all():
            v.warn_power_iteration()
    rho = np.einsum("nij,nj->n", T, g) / g.sum(axis=1)
    bad = np.abs(rho - 1.0) > 1e-6
    if bad.any():
        v.warn_not_loss_calibrated(int(bad.sum()))
    return g, rho


def loss_correct(p: Scores, beta: float | ArrayLike | None = None, weights: ArrayLike | None = None,
                 delta: float | None = None) -> np.ndarray | pd.Series | pd.DataFrame:
    """Loss-corrected confidence scores (Caplin, Martin & Marx, eq. 11; Corollary 1, eq. 12).

    Inverts the optimal scoring rule of a class-weighted strictly proper loss, mapping the
    scores of a model trained with class weights back to posterior probabilities.

    Parameters
    ----------
    p : array_like, Series, matrix or DataFrame
        Binary scores (vector, probability of the positive class) or a multiclass score
        matrix (n, K): probabilities whose rows sum to 1 for ``weights``; one-vs-rest
        scores in [0, 1] (rows need not sum to 1) for a matrix ``beta``.
    beta : float or array_like (K, K), optional
        Binary: the relative weight of the positive class, in (0, 1); the result is
        ``g^beta(a) = (1 - beta) a / (beta + (1 - 2 beta) a)``. Multiclass: a positive
        matrix ``beta[y, y']`` (true class y, scored class y', eq. 10) inverted by the
        Perron-vector method: the posterior is the normalised positive eigenvector of
        ``T(a)``, ``T[y, y'] = o_y beta[y', y] / beta[y, y]`` (y' != y, zero diagonal) with
        the odds ``o_y = a_y / (1 - a_y)``.
    weights : array_like (K,), optional
        Multiclass class weights ``w_y`` (``beta[y, y'] = w_y``): closed-form inverse
        ``gamma_y = (a_y / w_y) / sum (a_y' / w_y')`` (the prior-shift correction).
    delta : float, optional
        Binary resampling ratio (positives per negative kept, Dal Pozzolo et al.):
        ``delta a / (1 + (delta - 1) a)``, equal to ``g^beta`` with ``beta = 1/(1 + delta)``.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    ndarray, Series or DataFrame
        The type of ``p``. For a matrix ``beta`` the spectral radius rho(T(a)) of each row is
        attached (``.spectral_radius`` of the returned :class:`PerronArray`, or
        ``attrs["spectral_radius"]`` of a DataFrame); it is 1 exactly when the row is
        loss-calibrated, otherwise the normalised Perron vector (the posterior whose optimal
        score odds are proportional to the observed odds) is returned with a warning.

    Notes
    -----
    Exactly one of ``beta``, ``weights``, ``delta`` must be given. Checks, in order: that
    rule; ``beta`` scalar in (0, 1); ``delta`` > 0; ``weights`` positive finite; ``beta``
    matrix square, positive, finite; the parameter's shape against ``p``; then the
    probability checks of ``p`` (a probability vector; a probability matrix whose rows sum
    to 1; or, for a matrix ``beta``, a numeric finite matrix with at least two columns and
    entries in [0, 1]) and the number of classes. The binary and class-weight formulas are
    exact at 0 and 1; only the Perron algorithm clips scores to ``[1e-12, 1 - 1e-12]``.
    """
    kind, param, P = _check_args(p, beta, weights, delta)
    if kind == "binary":
        return like_input(_binary_correct(P, param), p)
    if kind == "delta":
        return like_input(_delta_correct(P, param), p)
    if kind == "weights":
        return like_input(_weights_correct(P, param), p)
    g, rho = _perron_correct(P, param)
    return like_input(g, p, extra=rho)


def optimal_score(gamma, beta=None, weights=None, delta=None):
    """The optimal scoring rule c^beta(gamma) of a weighted loss (Caplin, Martin & Marx).

    Binary (Prop. 2, eq. 8): ``c^beta(gamma) = beta gamma / (beta gamma + (1 - beta)(1 - gamma))``
    (``delta``: ``beta = 1/(1 + delta)``). Multiclass (Prop. 3, eq. 10):
    ``c_y(gamma) = gamma_y beta[y, y] / sum_y' gamma_y' beta[y', y]``; with class weights
    ``c_y = gamma_y w_y / sum gamma_y' w_y'``. The inverse of :func:`loss_correct`.
    Arguments as :func:`loss_correct`, with ``gamma`` (posterior probabilities; rows sum to
    one for a matrix) in place of ``p``.
    """
    kind, param, G = _check_args(gamma, beta, weights, delta, "gamma")
    if kind in ("binary", "delta"):
        if kind == "binary":
            c = param * G / (param * G + (1.0 - param) * (1.0 - G))
        else:  # beta = 1 / (1 + delta)
            c = G / (G + param * (1.0 - G))
        return like_input(np.clip(c, 0.0, 1.0), gamma)
    if kind == "weights":
        q = G * param[None, :]
        return like_input(q / q.sum(axis=1, keepdims=True), gamma)
    num = G * np.diag(param)[None, :]
    return like_input(num / (G @ param), gamma)


# --------------------------------------------------------------------------------------
# loss-calibration curve (the paper's Fig. 3)


class LossCalibrationCurve(Result):
    """A loss-calibration curve: binned calibration data and the theoretical map.

    Not an R function; ``r_class`` is ``("loss_calibration_curve",)``. A
    :class:`~calstats.results._base.Result`: ``print(curve)`` shows a one-line description,
    ``curve.as_frame()`` the binned data, ``curve.plot()`` draws it, and a notebook shows the
    bin table.

    Attributes
    ----------
    bins : pandas.DataFrame
        One row per non-empty bin: ``bin``, ``lower``, ``upper``, ``n``, ``score`` (mean raw
        score), ``observed`` (observed rate of the class), ``theory`` (mean loss-corrected
        score: where a loss-calibrated model's observed rate should be), and for the
        multiclass layout ``class_label``.
    theory : pandas.DataFrame
        Binary: the curve ``(score, corrected)`` = ``(a, g^beta(a))`` on 201 points of
        (0, 1) (equally spaced on the logit scale from -9 to 9). Multiclass: per class the
        binned ``(score, corrected)`` points (no single curve exists).
    layout : {"binary", "multiclass"}
    strategy : {"quantile", "uniform"}
    log : bool
        Whether :meth:`plot` uses log-scaled axes.
    label : str
        The weighting, e.g. ``"beta = 0.9"``, ``"class weights"``.
    """

    r_class = ("loss_calibration_curve",)
    _extras = ("bins", "theory", "layout", "strategy", "log", "label")
    # set by the constructor (declared for type checkers)
    bins: pd.DataFrame
    theory: pd.DataFrame
    layout: str
    strategy: str
    log: bool
    label: str

    def __init__(self, bins, theory, layout, strategy, log, label):
        self._set_fields(bins=bins, theory=theory, layout=layout, strategy=strategy, log=bool(log), label=label)

    def print_text(self) -> str:
        """The printed description (layout, number of bins, binning, weighting), with its
        final newline.

        Returns
        -------
        str
        """
        return (f"<LossCalibrationCurve: {self.layout}, {len(self.bins)} bins ({self.strategy}), "
                f"{self.label}>\n")

    def as_frame(self) -> pd.DataFrame:
        """The binned data (a copy of :attr:`bins`).

        Returns
        -------
        pandas.DataFrame
            Columns ``bin``, ``lower``, ``upper``, ``n``, ``score``, ``observed``,
            ``theory`` (the multiclass layout starts with ``class_label``).
        """
        return self.bins.copy()

    def _html_title(self):
        return f"Loss-calibration curve ({self.layout}, {self.label})"

    def plot(self, ax: Any = None) -> Any:
        """Draw the calibration curve (points), the theoretical map (line) and the diagonal.

        Returns the matplotlib Axes (one per class for the multiclass layout)."""
        plt = pyplot("LossCalibrationCurve.plot()")

        if self.layout == "binary":
            if ax is None:
                _, ax = plt.subplots(figsize=(5, 5))
            self._draw(ax, self.bins, self.theory, "observed rate")
            return ax
        classes = list(self.bins["class_label"].cat.categories)
        if ax is None:
            ncol = min(3, len(classes))
            nrow = math.ceil(len(classes) / ncol)
            _, grid = plt.subplots(nrow, ncol, figsize=(4 * ncol, 4 * nrow), squeeze=False)
            ax = grid.ravel()
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        for a, cl in zip(axes, classes):
            b = self.bins[self.bins["class_label"] == cl]
            self._draw(a, b, b[["score", "theory"]].rename(columns={"theory": "corrected"}), f"class {cl}")
        return axes

    def _draw(self, ax, bins, theory, title):
        lo = 1e-4 if self.log else 0.0
        ax.plot([lo, 1], [lo, 1], linestyle=":", color="0.5", label="calibrated")
        ax.plot(theory["score"], theory["corrected"], color="C1", label="loss-calibrated (theory)")
        ax.plot(bins["score"], bins["observed"], "o", color="C0", label="observed")
        if self.log:
            ax.set_xscale("log")
            ax.set_yscale("log")
        else:
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
        ax.set_xlabel("confidence score")
        ax.set_ylabel("observed rate")
        ax.set_title(title, loc="left")
        ax.legend(frameon=False, fontsize="small")


def _breaks(a, bins, strategy):
    if strategy == "uniform":
        from ..kernels.bins import equal_width_breaks

        return equal_width_breaks(bins)
    br = np.unique(np.quantile(a, np.linspace(0.0, 1.0, bins + 1)))
    if br.size < 2:
        br = np.array([br[0], br[0]])
    return br


def _bin_table(a, hit, corrected, bins, strategy):
    br = _breaks(a, bins, strategy)
    nb = br.size - 1
    idx = np.clip(np.searchsorted(br, a, side="right") - 1, 0, nb - 1)
    n = np.bincount(idx, minlength=nb)
    keep = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        frame = pd.DataFrame({
            "bin": np.arange(1, nb + 1), "lower": br[:-1], "upper": br[1:], "n": n,
            "score": np.bincount(idx, a, nb) / n, "observed": np.bincount(idx, hit, nb) / n,
            "theory": np.bincount(idx, corrected, nb) / n,
        })
    return frame[keep].reset_index(drop=True)


def loss_calibration_curve(p: Scores, y: Labels, beta: float | ArrayLike | None = None,
                           weights: ArrayLike | None = None, delta: float | None = None, bins: int = 10,
                           strategy: str = "quantile", log: bool = False) -> LossCalibrationCurve:
    """Loss-calibration curve (Caplin, Martin & Marx, Fig. 3): calibration curve plus theory.

    Parameters
    ----------
    p : array_like
        Binary scores (vector) or a multiclass score matrix, as :func:`loss_correct`.
    y : array_like
        Binary 0/1 labels (vector ``p``) or class labels (codes 1..K or a factor; matrix).
    beta, weights, delta
        The weighting, as :func:`loss_correct` (exactly one).
    bins : int
        Number of bins (default 10: deciles with ``"quantile"``).
    strategy : {"quantile", "uniform"}
        Equal-count bins (quantile breaks of the scores, duplicates merged) or equal-width
        bins on [0, 1]; bins are left-closed, the last one closed.
    log : bool
        Log-scaled axes in :meth:`LossCalibrationCurve.plot`, as in the paper.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    LossCalibrationCurve
        Binned points (mean score, observed rate) of a loss-calibrated model lie on the
        theoretical curve ``(a, g^beta(a))`` (binary) or on the binned means of the
        loss-corrected scores (multiclass, per class one-vs-rest); the 45-degree line is
        the calibrated case. By Prop. 5 the scores are loss-calibrated iff
        ``loss_correct(p, ...)`` is calibrated, so calibration tests of the corrected
        scores test loss-calibration.
    """
    strategy = v.match_arg(strategy, ("quantile", "uniform"))
    kind, param, P = _check_args(p, beta, weights, delta)
    corrected = np.asarray(loss_correct(P, beta=beta, weights=weights, delta=delta), dtype=np.float64)
    if kind in ("binary", "delta"):
        yv = v.check_binary_y(y, "y", require_both=False)
        v.check_same_length("p", "y", P.size, yv.size)
        nb = v.check_bins(bins)
        table = _bin_table(P, np.asarray(yv, dtype=np.float64), corrected, nb, strategy)
        a = inv_logit(np.linspace(-9.0, 9.0, 201))
        fn = _binary_correct if kind == "binary" else _delta_correct
        theory = pd.DataFrame({"score": a, "corrected": fn(a, param)})
        label = f"beta = {param:g}" if kind == "binary" else f"delta = {param:g}"
        return LossCalibrationCurve(table, theory, "binary", strategy, log, label)
    codes, levels, k = v.check_matrix_labels(P, y)
    refuse_misnamed_columns(p, y)
    nb = v.check_bins(bins)
    frames = []
    for j in range(k):
        t = _bin_table(P[:, j], (codes == j + 1).astype(np.float64), corrected[:, j], nb, strategy)
        t.insert(0, "class_label", levels[j])
        frames.append(t)
    table = pd.concat(frames, ignore_index=True)
    table["class_label"] = pd.Categorical(table["class_label"], categories=levels)
    theory = table[["class_label", "score", "theory"]].rename(columns={"theory": "corrected"})
    label = "class weights" if kind == "weights" else "weight matrix"
    return LossCalibrationCurve(table, theory, "multiclass", strategy, log, label)
