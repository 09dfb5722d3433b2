"""The path of cumulative differences between outcomes and scores, and its length scale.

The graph behind the Kolmogorov-Smirnov and Kuiper calibration tests
(:func:`~calstats.evaluation.caltests.cal_ks_test`,
:func:`~calstats.evaluation.caltests.cal_kuiper_test`): with the observations sorted by
score, ``C_k = (1/n) sum_{i<=k} (y_(i) - s_(i))`` plotted against ``k/n`` (Tygert 2022;
Arrieta-Ibarra, Gujral, Tannen, Tygert and Xu 2022). Its slope over a stretch of scores is
the miscalibration there; under calibration ``C / sigma`` behaves like a standard Brownian
motion, ``sigma = sqrt(sum_i s_i (1 - s_i)) / n``. The tests and this function read the
same kernel (:mod:`calstats.kernels.cumdiff`), so the statistics they report agree to the
bit. ``convention="mapie"`` reproduces MAPIE 1.6's ``cumulative_differences`` and
``length_scale``.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._plotting import pyplot
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import on_dask
from ..kernels.choices import CONVENTIONS, MAPIE_HAS_NO_WEIGHTS
from ..kernels.cumdiff import (
    cumdiff_rows,
    mapie_length_scale,
    path_sigma,
    range_with_start,
    weighted_cumdiff_rows,
    weighted_path_sigma,
)
from ..results._base import Result
from ..results._tables import table_html
from .caltests import _prepare, _test_weights

__all__ = ["cumulative_differences", "length_scale", "CumulativeDifferences"]


class CumulativeDifferences(Result):
    """The path of cumulative differences (not an R object; ``r_class`` is
    ``("cumulative_differences",)``).

    Behaves like the array of its values where it matters: ``np.asarray(res)``, ``len(res)``,
    ``res[k]``, ``res[a:b]`` and iteration read :attr:`values` (read-only). A
    :class:`~calstats.results._base.Result`: ``print(res)`` summarises it,
    ``res.as_frame()`` is one row per observation, ``res.plot()`` draws it.

    Attributes
    ----------
    values : numpy.ndarray
        ``C_k``, one value per observation, in path order.
    scores : numpy.ndarray
        The scores in path order (sorted; with ``convention="mapie"`` the scores before
        MAPIE's jitter, in the jittered order).
    outcomes : numpy.ndarray
        The 0/1 outcomes in path order (float, NaN for a missing logical label).
    weights : numpy.ndarray or None
        The case weights in path order, or None.
    fractions : numpy.ndarray
        The horizontal coordinate: ``k/n``, or with weights the cumulative share of the
        total weight.
    block_end : numpy.ndarray of bool
        True at the last observation of each block of equal scores: the points of the
        path that do not depend on how tied scores are ordered, and the points the tests
        read (every row with ``convention="mapie"``).
    length_scale : float
        sigma, the scale of the path.
    ks, kuiper : float
        The tests' statistics from this path: ``max |C| / sigma`` and the range of C over
        sigma (:func:`~calstats.evaluation.caltests.cal_ks_test`'s ``G`` and
        :func:`~calstats.evaluation.caltests.cal_kuiper_test`'s ``H``, the same numbers).
    n : int
        The number of observations (rows).
    type, convention : str
        The arguments of the call.
    """

    r_class = ("cumulative_differences",)
    _extras = ("values", "scores", "outcomes", "weights", "fractions", "block_end", "length_scale", "ks", "kuiper",
               "n", "type", "convention")
    # set by the constructor (declared for type checkers)
    values: np.ndarray
    scores: np.ndarray
    outcomes: np.ndarray
    weights: np.ndarray | None
    fractions: np.ndarray
    block_end: np.ndarray
    length_scale: float
    ks: float
    kuiper: float
    n: int
    type: str
    convention: str

    def __init__(self, *, values, scores, outcomes, weights, fractions, block_end, length_scale, ks, kuiper, n,
                 type, convention, _owned=False):
        arrays = {"values": values, "scores": scores, "outcomes": outcomes, "weights": weights,
                  "fractions": fractions, "block_end": block_end}
        for name, a in arrays.items():
            if a is not None:
                # arrays made for this result (``_owned``) are kept, others copied
                a = np.asarray(a) if _owned else np.array(a, copy=True)
                a.flags.writeable = False  # the result is a value: its arrays cannot be changed
                arrays[name] = a
        self._set_fields(**arrays, length_scale=float(length_scale), ks=float(ks), kuiper=float(kuiper),
                         n=int(n), type=type, convention=convention)

    # -- the array protocol ----------------------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.values
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                v.fail_cumulative_copy()
            return a.astype(dtype)
        return a.copy() if copy else a

    def __len__(self) -> int:
        return self.values.size

    def __getitem__(self, key: Any) -> Any:
        return self.values[key]

    def __iter__(self):
        return iter(self.values)

    def __contains__(self, item: Any) -> bool:
        return bool(np.any(self.values == item))

    # -- the Result protocol ---------------------------------------------------------------
    def _title(self):
        return f"Cumulative differences ({self.convention} convention)"

    def _summary_lines(self):
        weighted = "" if self.weights is None else f", total weight {float(np.sum(self.weights)):.7g}"
        lines = [f"n = {self.n}{weighted}, length scale sigma = {self.length_scale:.7g}",
                 f"KS: max |C| / sigma = {self.ks:.7g}; Kuiper: range of C / sigma = {self.kuiper:.7g}"]
        return lines

    def print_text(self) -> str:
        """A summary: the size, sigma, the two statistics and the ends of the path (with
        final newline).

        Returns
        -------
        str
        """
        head = ", ".join(f"{x:.4g}" for x in self.values[:3])
        tail = ", ".join(f"{x:.4g}" for x in self.values[-3:])
        path = head if self.n <= 3 else (f"{head}, ..., {tail}" if self.n > 6 else
                                         ", ".join(f"{x:.4g}" for x in self.values))
        lines = [self._title(), *self._summary_lines(), f"C: [{path}] (np.asarray(res) for every value)"]
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """One row per observation, in path order.

        Returns
        -------
        pandas.DataFrame
            Index ``k`` (1..n); columns ``score``, ``outcome``, (``weight``,) ``fraction``,
            ``cumulative_difference``, ``block_end``.
        """
        cols: dict[str, Any] = {"score": self.scores.copy(), "outcome": self.outcomes.copy()}
        if self.weights is not None:
            cols["weight"] = self.weights.copy()
        cols.update({"fraction": self.fractions.copy(), "cumulative_difference": self.values.copy(),
                     "block_end": self.block_end.copy()})
        return pd.DataFrame(cols, index=pd.RangeIndex(1, self.n + 1, name="k"))

    def _html_title(self):
        return self._title()

    def _repr_html_(self) -> str:
        """Notebook view: the heading, the summary lines and the first rows of :meth:`as_frame`."""
        import html

        lines = "".join(f"<p>{html.escape(line)}</p>" for line in self._summary_lines())
        frame = self.as_frame()
        more = "" if self.n <= 10 else f"<p><small>first 10 of {self.n} rows</small></p>"
        return (f"<h4>{html.escape(self._title())}</h4>\n{lines}\n" + table_html(frame.head(10)) + more)

    def plot(self, ax: Any = None) -> Any:
        """Draw the path with matplotlib and return the Figure.

        The horizontal axis is the cumulative fraction of observations ``k/n`` (with
        weights, of the total weight), the scores at its deciles marked on the upper axis;
        the vertical axis is ``C_k``, the path starting at ``(0, 0)``, as Tygert (2022) and
        Arrieta-Ibarra et al. (2022) draw it. At ``x = 0`` a vertical bar from ``-sigma``
        to ``+sigma`` (height ``2 sigma``) gives the scale: excursions much larger than it
        indicate miscalibration, and the slope of the path over a range of scores is the
        miscalibration there. With ``convention="calstats"`` the path is drawn through the
        ends of the blocks of tied scores (the points that do not depend on how ties are
        ordered); with ``"mapie"``, through every row.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; ``None`` creates a new figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        plt = pyplot("CumulativeDifferences.plot()")
        if ax is None:
            _fig, ax = plt.subplots(figsize=(6.4, 4.6), layout="constrained")
        keep = self.block_end
        x = np.concatenate([[0.0], self.fractions[keep]])
        y = np.concatenate([[0.0], self.values[keep]])
        sigma = self.length_scale
        ax.axhline(0.0, color="0.6", linewidth=0.8, linestyle=":")
        ax.plot(x, y, color="C0", linewidth=1.2, label="cumulative differences")
        ax.plot([0.0, 0.0], [-sigma, sigma], color="C3", linewidth=4, solid_capstyle="butt", clip_on=False,
                label="scale: 2 sigma")
        ax.set_xlim(0.0, 1.0)
        ax.set_xlabel("fraction of observations, sorted by score (k/n)")
        ax.set_ylabel("cumulative difference C_k")
        deciles = np.arange(1, 10) / 10.0
        at = np.minimum(np.searchsorted(self.fractions, deciles), self.n - 1)
        top = ax.secondary_xaxis("top")
        top.set_xticks(deciles, [f"{s:.2g}" for s in self.scores[at]])
        top.set_xlabel("score")
        ax.set_title(f"KS = {self.ks:.3g}, Kuiper = {self.kuiper:.3g} (in units of sigma)", loc="left",
                     fontsize="medium")
        ax.legend(frameon=False, fontsize="small")
        return ax.figure


# --------------------------------------------------------------------------------------
# the front ends


def _low_precision(p):
    """The dtype of a float32 (or narrower) ``p``, in which MAPIE computes its length scale;
    None for anything else (computed in float64)."""
    try:
        dt = np.asarray(p).dtype
    except Exception:  # pragma: no cover - p passed the checks, so numpy reads it
        return None
    return dt if dt.kind == "f" and dt.itemsize < 8 else None


@on_dask(refuse=v.refuse_dask_cumulative)
def cumulative_differences(p: Scores, y: Labels, *, type: str = "confidence", cls: int | str | None = None,
                           convention: str = "calstats", weights: Weights = None) -> CumulativeDifferences:
    """The path of cumulative differences between outcomes and scores (Tygert 2022).

    With the observations sorted by score ``s`` and ``y_(i)`` the outcome of the i-th,

    ``C_k = (1/n) sum_{i<=k} (y_(i) - s_(i))``, ``k = 1..n``,

    one value per observation (MAPIE's ``cumulative_differences(y, p)``), and the length
    scale ``sigma = sqrt(sum_i s_i (1 - s_i)) / n`` (:func:`length_scale`). Under
    calibration ``C / sigma`` behaves like a standard Brownian motion on ``[0, 1]``; the
    Kolmogorov-Smirnov statistic is ``max |C| / sigma`` and Kuiper's the range of ``C``
    over sigma (:func:`~calstats.evaluation.caltests.cal_ks_test`,
    :func:`~calstats.evaluation.caltests.cal_kuiper_test`, which read the same path).

    Parameters
    ----------
    p : array_like
        Binary probability vector, or an n x K probability matrix (rows sum to 1); float32
        and pandas inputs are accepted. Dask collections are refused (the result has one
        value per row; the tests reduce the path on Dask).
    y : array_like
        0/1 labels for a vector; class codes 1..K or a factor for a matrix.
    type : {"confidence", "class"}, keyword-only
        Matrix ``p``: the top-label confidence against its correctness (as MAPIE's
        documentation of the top label), or column ``cls`` against ``1{y = cls}``.
    cls : str or int, optional, keyword-only
        A level of ``y`` (``type="class"`` only).
    convention : {"calstats", "mapie"}, keyword-only
        ``"calstats"``: sorted by (score, outcome), so tied scores put outcome 0 before 1
        and the values do not depend on the row order; sigma with a correctly rounded sum.
        ``"mapie"``: MAPIE 1.6's arithmetic, exactly -- the scores jittered by
        ``s (1 + 1e-8 z)``, ``z`` the normals of ``numpy.random.RandomState(1)`` (a private
        stream; the global one is untouched), the differences taken with the jittered
        scores, numpy's sums, and sigma in the input's precision (float32 scores give
        MAPIE's float32 sigma).
    weights : array_like, optional, keyword-only
        Frequency weights: ``C_k = sum_{i<=k} w_(i) (y_(i) - s_(i)) / W``, ``sigma =
        sqrt(sum w s (1 - s)) / W``, ``W = sum(w)``, the horizontal axis the cumulative share
        of ``W``; integer weights give the replicated rows' path at the last copy of each
        row. Rows with equal score and outcome keep their input order. Not with
        ``convention="mapie"`` (MAPIE has none).

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CumulativeDifferences
        Array-like (``np.asarray(res)`` is ``C``), with ``scores``, ``outcomes``,
        ``fractions``, ``block_end``, ``length_scale``, ``ks``, ``kuiper``,
        ``as_frame()`` and ``plot()``.

    Notes
    -----
    Within a block of tied scores the intermediate values depend on how the ties are
    ordered (calstats: by outcome; MAPIE: by its random jitter); only the value at the end
    of each block (``res.block_end``) is determined by the data, and the calstats
    convention's KS and Kuiper statistics read only those points (the tests' statistics,
    bit for bit). Kuiper's range includes the start ``C_0 = 0`` in the calstats convention,
    not in MAPIE's (see :func:`~calstats.evaluation.caltests.cal_kuiper_test`).

    References
    ----------
    Arrieta-Ibarra I, Gujral P, Tannen J, Tygert M, Xu C (2022). Metrics of calibration
    for probabilistic predictions. Journal of Machine Learning Research 23(351).
    Tygert M (2022). Calibration of P-values for calibration and for deviation of a
    subpopulation from the full population. arXiv:2202.00100.

    Examples
    --------
    >>> import numpy as np
    >>> from calstats.evaluation.cumulative import cumulative_differences
    >>> res = cumulative_differences(np.array([0.7, 0.3, 0.6]), np.array([1, 0, 0]))
    >>> np.asarray(res)
    array([-0.1, -0.3, -0.2])
    """
    s, o, type, convention, _ = _prepare(p, y, type, cls, convention)
    w = _test_weights(weights, s, convention)
    n = s.size
    if w is None:
        ss, os, C, last, sigma = cumdiff_rows(s, o, convention)
        ws, fractions = None, np.arange(1, n + 1) / n
    else:
        ss, os, ws, C, last, sigma = weighted_cumdiff_rows(s, o, w)
        cw = np.cumsum(ws)
        fractions = cw / cw[-1]
    if convention == "mapie":
        low = _low_precision(p)
        if low is not None:  # MAPIE's length_scale keeps float32 scores in float32
            sigma = mapie_length_scale(s.astype(low))
        ks = float(np.max(np.abs(C)) / sigma)
        kuiper = float((np.max(C) - np.min(C)) / sigma)
    else:
        Cb = C[last]
        ks = float(float(np.max(np.abs(Cb))) / sigma)
        kuiper = float(range_with_start(float(Cb.max()), float(Cb.min())) / sigma)
    return CumulativeDifferences(values=C, scores=ss, outcomes=np.asarray(os, dtype=np.float64), weights=ws,
                                 fractions=fractions, block_end=last, length_scale=sigma, ks=ks, kuiper=kuiper,
                                 n=n, type=type, convention=convention, _owned=True)


@on_dask(refuse=v.refuse_dask_length_scale, data=("p",))
def length_scale(p: Scores, *, convention: str = "calstats", weights: Weights = None) -> float:
    """The length scale of the cumulative differences: ``sigma = sqrt(sum_i s_i (1 - s_i)) / n``.

    The standard deviation of ``C_n`` under calibration (Arrieta-Ibarra et al. 2022), the
    unit of the KS and Kuiper statistics and of the scale bar of
    :meth:`CumulativeDifferences.plot`; MAPIE's ``length_scale(s)``.

    Parameters
    ----------
    p : array_like
        Scores in [0, 1], or an n x K probability matrix (its top-label confidences).
    convention : {"calstats", "mapie"}, keyword-only
        ``"calstats"``: the sum correctly rounded (the value the tests use). ``"mapie"``:
        MAPIE 1.6's arithmetic, numpy's pairwise sum in the input's precision (float32
        scores give a float32 sum). The two differ by a few units in the last place.
    weights : array_like, optional, keyword-only
        Frequency weights: ``sqrt(sum w s (1 - s)) / sum(w)``. Not with
        ``convention="mapie"``.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
        0.0 when every score is 0 or 1 (then the tests are undefined).

    Examples
    --------
    >>> from calstats.evaluation.cumulative import length_scale
    >>> round(length_scale([0, 0, 0.4, 0.3, 0.8]), 2)
    0.16
    """
    convention = v.match_arg(convention, CONVENTIONS)
    if v.is_matrix(p):
        _P, s, _pred = v.check_prob_matrix_top(p, "p")
    else:
        s = v.check_prob(p, "p", copy=False)
    w = check_weights(weights, s.size)
    if convention == "mapie":
        v.refuse_weights(w, MAPIE_HAS_NO_WEIGHTS)
        low = _low_precision(p)
        return mapie_length_scale(s if low is None else s.astype(low))
    if w is None:
        return path_sigma(s)
    return weighted_path_sigma(s, w, float(np.sum(w)))
