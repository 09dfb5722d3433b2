"""CORP reliability diagrams and the CORP score decomposition (R package reliabilitydiag).

CORP (Dimitriadis, Gneiting and Jordan, "Stable reliability diagrams for probabilistic
classifiers", PNAS 118(8), 2021): the calibration curve is the isotonic (PAV) regression of
the outcomes on the scores -- Consistent, Optimally binned, Reproducible, PAV-based -- and
the mean score of any proper scoring rule splits exactly as ``S = MCB - DSC + UNC``.
:func:`corp` returns what R's ``reliabilitydiag(x, y = y)`` computes: the sorted cases with
their PAV values, the PAV bins, the consistency or confidence band; ``summary()`` is
:meth:`CorpDiagram.decomposition` and ``miscalibration_test()`` is
:meth:`CorpDiagram.miscalibration_test`. The numbers come from
:mod:`calstats.kernels.pav`; every result follows the calstats result protocol
(:class:`calstats.results._base.Result`).
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import rng
from .._inputs import refuse_misnamed_columns
from .._plotting import pyplot
from .._typing import Labels, Scores, Weights
from .._validate import (
    check_bins,
    check_forecast_name,
    check_interval,
    check_labels_complete,
    check_multiclass_y,
    check_nobs,
    check_prob_and_labels,
    check_prob_matrix_top,
    check_score_arg,
    check_score_values,
    fail_classwise_axes,
    is_matrix,
    match_arg,
    refuse_continuous_band,
    refuse_dask_corp,
    refuse_forecast_name,
    refuse_weights,
)
from .._weights import check_weights
from ..dask import on_dask
from ..kernels import pav
from ..kernels.toplabel import correct
from ..numerics.pillar import format_tibble
from ..results._base import Result
from ..results._tables import table_html
from .htest import HTest

__all__ = ["corp", "CorpDiagram", "CorpClasswise", "CorpDecomposition"]

BANDS = ("resampling", "discrete_asymptotics", "continuous_asymptotics", "auto")
POSITIONS = ("diagonal", "estimate")
TYPES = ("classwise", "confidence")
SCORES = ("brier", "log")

_COLOUR = "#D55E00"
_BAND_COLOUR = "#56B4E9"
_SUMMARY_COLUMNS = ["forecast", "mean_score", "miscalibration", "discrimination", "uncertainty"]


# --------------------------------------------------------------------------------------
# the decomposition record


class CorpDecomposition(Result):
    """The CORP decomposition of a mean score (R ``summary(reliabilitydiag)``).

    ``mean_score = miscalibration - discrimination + uncertainty`` (S = MCB - DSC + UNC, up
    to rounding). For one diagram the four numbers are floats and ``forecast`` a string;
    for a classwise diagram they are pandas Series indexed by class label and ``forecast``
    the list of labels. ``score`` is the score's name (``"brier"``, ``"log"`` or the
    function's name). ``as_frame()`` is R's tibble (one row per forecast).
    """

    r_class = ("summary.reliabilitydiag", "tbl_df", "tbl", "data.frame")
    _r_fields = ("forecast", "mean_score", "miscalibration", "discrimination", "uncertainty")
    _extras = ("score",)
    forecast: Any
    mean_score: Any
    miscalibration: Any
    discrimination: Any
    uncertainty: Any
    score: str

    def as_frame(self) -> pd.DataFrame:
        """R's summary tibble: ``forecast``, ``mean_score``, ``miscalibration``,
        ``discrimination``, ``uncertainty``, one row per forecast."""
        names = [self.forecast] if isinstance(self.forecast, str) else list(self.forecast)
        cols = {"forecast": names}
        for name in _SUMMARY_COLUMNS[1:]:
            v = getattr(self, name)
            cols[name] = [float(v)] if np.ndim(v) == 0 else [float(a) for a in np.asarray(v)]
        return pd.DataFrame(cols, columns=_SUMMARY_COLUMNS)

    def print_text(self) -> str:
        """R's ``print(summary(r))``: the heading and the tibble as R prints it in a UTF-8
        console (``# A tibble: 1 × 5``, the column types, 3 significant figures in
        pillar's decimal or scientific notation). A score function is named by its Python
        name where R deparses its source."""
        return (f"'{self.score}' score decomposition (see also ?summary.reliabilitydiag)\n"
                + _table_text(self.as_frame()))

    def _html_title(self):
        return f"'{self.score}' score decomposition"


def _table_text(frame):
    """The summary tibble as R prints it (``# A tibble: n × 5``, the column types, pillar's
    numbers)."""
    columns = [("forecast", "chr", [str(v) for v in frame["forecast"]])]
    columns += [(name, "dbl", frame[name].tolist()) for name in _SUMMARY_COLUMNS[1:]]
    return format_tibble(columns)


def _score_name(score):
    if isinstance(score, str):
        return score
    return getattr(score, "__name__", "score")


def _values_fn(score, fit):
    """The score of every sorted case for a forecast vector (checks a user's function)."""
    if isinstance(score, str):
        return lambda x: pav.score_values(score, fit.y, x)
    n = fit.y.size
    return lambda x: check_score_values(score(fit.y.copy(), np.array(x, dtype=np.float64)), n)


# --------------------------------------------------------------------------------------
# one diagram


class CorpDiagram(Result):
    """A CORP reliability diagram (one entry of R's ``reliabilitydiag`` object).

    Attributes
    ----------
    cases : pandas.DataFrame
        The cases sorted by score, events first within ties (R ``order(x, -y)``):
        ``case_id`` (1-based position in the input), ``x``, ``y``, ``bin_id``, ``CEP_pav``
        (the PAV-recalibrated probability), and ``weight`` with case weights (rows of
        weight 0 are left out).
    bins : pandas.DataFrame
        The PAV bins (runs of equal ``CEP_pav``): ``bin_id``, ``n`` (cases; weight sums
        with weights), ``x_min``, ``x_max``, ``CEP_pav``.
    regions : pandas.DataFrame
        The band at every distinct score: ``x``, ``lower``, ``upper``, ``n``, ``method``
        (``"resampling_<B>"`` or ``"discrete_asymptotics"``), ``level``, ``position``;
        empty without a band.
    xinfo : dict
        ``{"type": "discrete" | "continuous", "values": None}`` (R's ``detect_xtype``).
    curve : pandas.DataFrame
        The CORP curve: ``x`` (each distinct score once, increasing) and ``CEP``.
    band : pandas.DataFrame or None
        ``x``, ``lower``, ``upper``, ``n`` (``regions`` without its constant columns).
    forecast : str
        The forecast's name (``"p"``, ``"confidence"`` or a class label).
    level, position, band_method, n_resamples
        The band's settings (``band_method`` None without a band).
    """

    r_class = ("reliabilitydiag",)
    _r_fields = ("cases", "bins", "regions", "xinfo")
    _extras = ("curve", "band", "forecast", "level", "position", "band_method", "n_resamples", "layout",
               "_fit")
    cases: pd.DataFrame
    bins: pd.DataFrame
    regions: pd.DataFrame
    xinfo: dict
    curve: pd.DataFrame
    band: pd.DataFrame | None
    forecast: str
    level: float
    position: str
    band_method: str | None
    n_resamples: int
    layout: str
    _fit: Any

    # -- summary and test -------------------------------------------------------------
    def decomposition(self, score: Any = "brier") -> CorpDecomposition:
        """The CORP decomposition ``S = MCB - DSC + UNC`` (R ``summary(r, score = )``).

        Parameters
        ----------
        score : {"brier", "log"} or callable
            ``"brier"``: ``(x - y)^2`` (R's default); ``"log"``: ``-log(x)`` if ``y = 1``
            else ``-log(1 - x)`` (R: ``score = function(y, x) -ifelse(y == 1, log(x),
            log(1 - x))``; infinite when a score of 0 or 1 meets the other outcome); or a
            vectorised function ``score(y, x)`` of the 0/1 outcomes and the forecasts (R's
            argument order), returning one number per observation. Use a proper scoring
            rule: only then is MCB >= 0 guaranteed and the terms interpretable.

        Returns
        -------
        CorpDecomposition
            With ``S = mean s(x_i, y_i)``, ``UNC = mean s(ybar, y_i)``, ``Sc = mean
            s(CEP_i, y_i)``, ``MCB = S - Sc``, ``DSC = UNC - Sc`` (R's means over the sorted
            cases; weighted means with case weights).
        """
        return _decomposition([self], score)

    def miscalibration_test(self, n_resamples: int = 100, seed: Any = None) -> HTest:
        """Resampling test of calibration based on the Brier MCB (R ``miscalibration_test``,
        marked experimental there).

        ``n_resamples`` times (R fixes 100): draw the scores with replacement, draw new
        outcomes ``rbinom(n, 1, x)`` (calibration holds by construction), refit PAV and
        compute MCB; the p-value is the share of resampled MCB values ``>=`` the observed
        one (R ``mean(null >= MCB)``). ``seed``: ``None`` uses and advances calstats' R
        stream; an integer runs under ``set.seed(seed)`` and restores the stream after, so
        ``set.seed(s); miscalibration_test(x, y = y)`` in R gives the same p-value.
        Integer case weights resample the replicated rows; other weights are refused.
        """
        n_resamples = check_bins(n_resamples, "n_resamples")
        return _mctest(self, n_resamples, seed)

    # -- protocol -----------------------------------------------------------------------
    def as_frame(self) -> pd.DataFrame:
        """The curve with the band: ``x``, ``CEP`` and (with a band) ``lower``, ``upper``, ``n``."""
        frame = self.curve.copy()
        if self.band is not None:
            for col in ("lower", "upper", "n"):
                frame[col] = self.band[col].to_numpy()
        return frame

    def _html_title(self):
        return "CORP reliability diagram"

    def print_text(self) -> str:
        """A description (observations, distinct scores, PAV bins, band) and the Brier
        decomposition as R's ``print(r)`` prints it after the plot."""
        return _header(self) + self.decomposition().print_text()

    def plot(self, ax: Any = None) -> Any:
        """Draw the diagram with matplotlib and return the Figure: the diagonal, the band
        (shaded), the CORP curve (PAV bins joined as reliabilitydiag's ``autoplot`` draws
        them) and a histogram of the scores along the bottom (a fifth of the height, as
        reliabilitydiag's default ``yscale = 0.2``). Not part of the R comparison."""
        plt = pyplot("CorpDiagram.plot()")
        if ax is None:
            _, ax = plt.subplots(figsize=(5.4, 5.2), layout="constrained")
        _panel(ax, self)
        ax.set_xlabel("Forecast value")
        ax.set_ylabel("CEP")
        d = self.decomposition()
        ax.set_title(f"CORP reliability diagram\nMCB = {d.miscalibration:.3f}, DSC = {d.discrimination:.3f}, "
                     f"UNC = {d.uncertainty:.3f}", loc="left", fontsize="medium")
        return ax.figure


def _header(d):
    fit = d._fit
    n = fit.y.size if fit.w is None else fit.w.sum()
    nobs = f"{n:g} (weighted)" if fit.w is not None else str(n)
    lines = [f"CORP reliability diagram ({d.layout}, forecast '{d.forecast}')",
             f"  {nobs} observations, {fit.ux.size} distinct scores ({d.xinfo['type']}), "
             f"{fit.bin_cep.size} PAV bins"]
    if d.band_method is None:
        lines.append("  no band")
    else:
        kind = "consistency" if d.position == "diagonal" else "confidence"
        how = (f"resampling, {d.n_resamples} resamples" if d.band_method == "resampling"
               else "discrete asymptotics")
        lines.append(f"  {100 * d.level:g}% {kind} band ({how})")
    return "\n".join(lines) + "\n"


def _panel(ax, d):
    fit = d._fit
    ax.plot([0, 1], [0, 1], linestyle=":", color="0.45", linewidth=1.0, zorder=1)
    # histogram of the scores, scaled into the lowest fifth of the panel
    counts, edges = np.histogram(fit.x, bins=min(100, max(5, fit.ux.size)), range=(0.0, 1.0),
                                 weights=fit.w)
    if counts.max() > 0:
        ax.bar(edges[:-1], 0.2 * counts / counts.max(), width=np.diff(edges), align="edge",
               color="none", edgecolor="0.3", linewidth=0.5, zorder=1)
    if d.band is not None:
        ax.fill_between(d.band["x"], d.band["lower"], d.band["upper"], color=_BAND_COLOUR, alpha=0.35,
                        linewidth=0, zorder=2)
    if d.xinfo["type"] == "discrete":
        ax.plot(d.curve["x"], d.curve["CEP"], color=_COLOUR, linewidth=1.2, marker="o", markersize=4, zorder=3)
    else:
        xs = np.ravel(np.column_stack([fit.bin_xmin, fit.bin_xmax]))
        ys = np.repeat(fit.bin_cep, 2)
        ax.plot(xs, ys, color=_COLOUR, linewidth=1.4, zorder=3)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.grid(True, color="0.92", linewidth=0.8)
    ax.set_axisbelow(True)


# --------------------------------------------------------------------------------------
# classwise


class CorpClasswise(Result):
    """One CORP diagram per class, one-vs-rest (``type="classwise"``).

    Attributes
    ----------
    diagrams : dict
        Class label -> :class:`CorpDiagram` (forecast = the class's column, outcome =
        "this class").
    levels : list of str
        The class labels, in column order.
    curve, band : pandas.DataFrame
        The classes' curves (bands) stacked, with a leading ``class_label`` column
        (Categorical; ``band`` is None without bands).
    """

    r_class = ("reliabilitydiag",)
    _r_fields = ("diagrams", "levels")
    _extras = ("curve", "band")
    diagrams: dict
    levels: list
    curve: pd.DataFrame
    band: pd.DataFrame | None

    def decomposition(self, score: Any = "brier") -> CorpDecomposition:
        """The decomposition of every class's one-vs-rest diagram (R ``summary`` of a
        reliabilitydiag with one forecast per class); see :meth:`CorpDiagram.decomposition`."""
        return _decomposition(list(self.diagrams.values()), score)

    def miscalibration_test(self, n_resamples: int = 100, seed: Any = None) -> dict:
        """:meth:`CorpDiagram.miscalibration_test` class after class from one stream (R runs
        its forecasts in order); returns ``{class label: HTest}``."""
        n_resamples = check_bins(n_resamples, "n_resamples")
        with rng._seeded(seed):
            return {k: _mctest(d, n_resamples, None) for k, d in self.diagrams.items()}

    def as_frame(self) -> pd.DataFrame:
        """The stacked curves with the bands (``class_label``, ``x``, ``CEP``, ...)."""
        frames = []
        for label, d in self.diagrams.items():
            f = d.as_frame()
            f.insert(0, "class_label", label)
            frames.append(f)
        out = pd.concat(frames, ignore_index=True)
        out["class_label"] = pd.Categorical(out["class_label"], categories=self.levels)
        return out

    def _html_title(self):
        return "CORP reliability diagrams (classwise)"

    def _repr_html_(self):
        return f"<h4>{self._html_title()}</h4>\n" + table_html(self.decomposition().as_frame())

    def print_text(self) -> str:
        """Each class's description, then the Brier decomposition of all classes."""
        return "".join(_header(d) for d in self.diagrams.values()) + self.decomposition().print_text()

    def plot(self, ax: Any = None) -> Any:
        """One panel per class (as :meth:`CorpDiagram.plot`); ``ax`` a sequence of at least
        K Axes or None for a new row of panels. Returns the Figure."""
        plt = pyplot("CorpClasswise.plot()")
        k = len(self.levels)
        if ax is None:
            fig, grid = plt.subplots(1, k, figsize=(3.4 * k, 3.6), squeeze=False, layout="constrained")
            axes = list(grid.ravel())
        else:
            axes = list(np.ravel(np.asarray(ax, dtype=object)))
            if len(axes) < k:
                fail_classwise_axes(k, len(axes))
            fig = axes[0].figure
        for a, (label, d) in zip(axes, self.diagrams.items()):
            _panel(a, d)
            a.set_title(str(label), fontsize="medium")
            a.set_xlabel("Forecast value")
        axes[0].set_ylabel("CEP")
        return fig


# --------------------------------------------------------------------------------------
# the computations behind the methods


def _decomposition(diagrams, score):
    score = check_score_arg(score, SCORES)
    rows = [pav.decompose(d._fit, _values_fn(score, d._fit)) for d in diagrams]
    name = _score_name(score)
    if len(diagrams) == 1 and diagrams[0].layout != "classwise":
        s, mcb, dsc, unc = rows[0]
        return CorpDecomposition(forecast=diagrams[0].forecast, mean_score=s, miscalibration=mcb,
                                 discrimination=dsc, uncertainty=unc, score=name)
    labels = [d.forecast for d in diagrams]
    col = [pd.Series([r[i] for r in rows], index=labels, dtype=np.float64) for i in range(4)]
    return CorpDecomposition(forecast=labels, mean_score=col[0], miscalibration=col[1], discrimination=col[2],
                             uncertainty=col[3], score=name)


def _replicated(fit, what):
    """The sorted rows replicated by integer weights (``what``: the scores or the PAV values)."""
    values = fit.x if what == "x" else fit.cep
    if fit.w is None:
        return values
    return np.repeat(values, fit.w.astype(np.int64))


def _refuse_fractional(fit, where):
    if fit.w is not None and not np.all(fit.w == np.floor(fit.w)):
        refuse_weights(fit.w, where)


def _mctest(d, n_resamples, seed):
    fit = d._fit
    _refuse_fractional(fit, "by the miscalibration test unless they are whole numbers (it resamples rows)")
    mcb = float(pav.decompose(fit, _values_fn("brier", fit))[1])
    with rng._seeded(seed):
        null = pav.mcb_null(_replicated(fit, "x"), n_resamples)
    p = pav.exceed_share(null, mcb)
    return HTest(statistic={"MCB": mcb}, p_value=p, parameter={"resamples": n_resamples},
                 method="CORP miscalibration test (Brier MCB, resampling under calibration)",
                 alternative="greater", null_value={"MCB": 0.0}, data_name="p and y", null_distribution=null)


def _one(name, x, y, w, level, band, position, n_resamples, layout):
    """One diagram: PAV fit, band, result (the RNG is seeded by the caller)."""
    fit = pav.corp_fit(x, y, w)
    n_rows = fit.y.size if fit.w is None else float(fit.w.sum())
    method = band
    if method == "auto":
        method = pav.detect_band(n_rows, fit.ux.size, position)
        if method == "continuous_asymptotics":
            refuse_continuous_band(chosen_by_default=True)
    if method == "resampling":
        _refuse_fractional(fit, 'with `band = "resampling"` unless they are whole numbers (the bootstrap '
                                "draws rows)")
        xs = _replicated(fit, "x")
        x0 = xs if position == "diagonal" else _replicated(fit, "cep")
        lower, upper = pav.resampling_band(fit, level, position, n_resamples, xs=xs, x0=x0)
        label = f"resampling_{n_resamples}"
    elif method == "discrete_asymptotics":
        lower, upper = pav.discrete_band(fit, level, position)
        label = "discrete_asymptotics"
    else:
        lower = upper = None
        label = None
    n_col = fit.un.astype(np.int64) if fit.w is None else fit.un
    if lower is None:
        regions = pd.DataFrame({"x": np.zeros(0), "lower": np.zeros(0), "upper": np.zeros(0),
                                "n": np.zeros(0, dtype=n_col.dtype), "method": np.zeros(0, dtype=object),
                                "level": np.zeros(0), "position": np.zeros(0, dtype=object)})
        band_frame = None
    else:
        regions = pd.DataFrame({"x": fit.ux, "lower": lower, "upper": upper, "n": n_col, "method": label,
                                "level": level, "position": position})
        band_frame = regions[["x", "lower", "upper", "n"]].copy()
    bin_id = np.cumsum(np.concatenate(([True], fit.cep[1:] != fit.cep[:-1]))).astype(np.int64)
    cases = pd.DataFrame({"case_id": fit.order + 1, "x": fit.x, "y": fit.y.astype(np.int64), "bin_id": bin_id,
                          "CEP_pav": fit.cep})
    if fit.w is not None:
        cases["weight"] = fit.w
    bins = pd.DataFrame({"bin_id": np.arange(1, fit.bin_cep.size + 1, dtype=np.int64),
                         "n": fit.bin_n.astype(np.int64) if fit.w is None else fit.bin_n,
                         "x_min": fit.bin_xmin, "x_max": fit.bin_xmax, "CEP_pav": fit.bin_cep})
    return CorpDiagram(cases=cases, bins=bins, regions=regions,
                       xinfo={"type": pav.detect_xtype(fit.ux), "values": None},
                       curve=pd.DataFrame({"x": fit.ux, "CEP": fit.ucep}), band=band_frame, forecast=name,
                       level=level, position=position, band_method=None if label is None else method,
                       n_resamples=n_resamples, layout=layout, _fit=fit)


def corp(p: Scores, y: Labels, *, level: float = 0.90, band: str | None = "resampling", n_resamples: int = 100,
         position: str = "diagonal", seed: Any = None, weights: Weights = None,
         type: str = "classwise", name: str | None = None) -> "CorpDiagram | CorpClasswise":
    """CORP reliability diagram with its band and score decomposition (R package
    ``reliabilitydiag``: ``reliabilitydiag(p, y = y)``, ``summary()``,
    ``miscalibration_test()``).

    The CORP curve (Dimitriadis, Gneiting and Jordan, PNAS 2021) is the isotonic regression
    of the outcomes on the scores, fitted by pool-adjacent-violators (PAV): the
    conditional event probability ``CEP(x)`` estimated as the non-decreasing step function
    minimising ``sum_i (y_i - CEP(x_i))^2``. Its bins are chosen by the data (optimally), it
    needs no tuning parameter and is reproducible. For any proper score ``s``::

        S   = mean_i s(x_i, y_i)           (the forecasts' mean score)
        Sc  = mean_i s(CEP(x_i), y_i)      (after PAV recalibration)
        UNC = mean_i s(ybar, y_i)          (the climatological forecast)
        MCB = S - Sc >= 0,   DSC = UNC - Sc >= 0,   S = MCB - DSC + UNC

    Parameters
    ----------
    p : array_like
        Scores in [0, 1] (1-D; a pandas Series or float32 works), or an n x K probability
        matrix (rows sum to 1) with ``type``.
    y : array_like
        0/1 (or boolean) outcomes for a vector ``p`` (one class only is allowed); integer
        class codes (1-based) or a factor for a matrix.
    level : float, default 0.90
        Level of the band, in (0, 1) (R ``region.level``).
    band : {"resampling", "discrete_asymptotics", "continuous_asymptotics", "auto"} or None
        R ``region.method``. ``"resampling"``: ``n_resamples`` bootstrap samples of the
        cases with outcomes drawn from ``x`` (consistency band) or ``CEP(x)`` (confidence
        band), PAV refitted, pointwise quantiles at ``(1 -/+ level)/2``.
        ``"discrete_asymptotics"``: ``x0 -/+ z_{(1+level)/2} sqrt(x0 (1 - x0) / n_x)`` with
        ``n_x`` the number of cases with score ``x``, clipped to [0, 1].
        ``"continuous_asymptotics"`` is refused: it needs the beta kernel density of R's
        ``bde`` package. ``"auto"`` is R's default rule (resampling when ``n <= max(1000,
        min(5000, 50 k))`` for ``k`` distinct scores or for a confidence band, else the
        discrete asymptotics when ``n >= 8 k^2``, else the continuous ones, refused).
        ``None``: no band (R ``region.level = NA``).
    n_resamples : int, default 100
        Bootstrap samples of the resampling band (R ``n.boot``).
    position : {"diagonal", "estimate"}
        A consistency band around the diagonal (under calibration) or a confidence band
        around the CORP curve (R ``region.position``).
    seed : int or None
        ``None`` draws the resampling band from calstats' R stream (:mod:`calstats.rng`),
        advancing it; an integer runs under ``set.seed(seed)`` and restores the stream, so
        ``set.seed(s); reliabilitydiag(x, y = y, region.method = "resampling")`` in R gives
        the same band.
    weights : array_like, optional
        Case weights (not in reliabilitydiag): weighted PAV, weighted means, ``n`` = weight
        sums; integer weights give exactly the diagram of the replicated rows (the
        resampling band and the test then resample the replicated rows; other weights are
        refused there). Rows of weight 0 are left out.
    type : {"classwise", "confidence"}
        Matrix ``p`` only: one diagram per class, one-vs-rest (:class:`CorpClasswise`), or
        the diagram of the top-label confidence against its correctness (first maximal
        column, R ``max.col(ties.method = "first")``).
    name : str, optional
        The forecast's name, shown in the summary's ``forecast`` column (R's
        ``reliabilitydiag(EMOS = p, y = y)`` is ``corp(p, y, name="EMOS")``). Default
        ``"p"``, or ``"confidence"`` for ``type="confidence"``; a classwise diagram names
        its forecasts by the class labels and refuses a name.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CorpDiagram or CorpClasswise
        ``.curve`` (``x``, ``CEP``: one row per distinct score), ``.band`` (``x``,
        ``lower``, ``upper``, ``n``), R's ``cases``, ``bins``, ``regions``;
        ``.decomposition(score="brier")`` (R ``summary``; also ``"log"`` or a function
        ``score(y, x)``), ``.miscalibration_test()``, ``.plot()``.

    Notes
    -----
    Numbers are reliabilitydiag 0.2.1's: the cases sorted as ``order(x, -y)`` (events first
    within ties, which makes the curve constant on ties), ``stats::isoreg`` for the fit
    (what reliabilitydiag uses without the ``monotone`` package), R's long-double means,
    ``approx`` and type-7 ``quantile``, and R's ``sample`` and ``rbinom`` for the resampling
    band (checked against R to 1e-10 and, on this platform, to the bit). Deliberate
    differences: when one resample holds a single distinct score R's bootstrap matrix is
    shifted by a recycling slip; here that resample's value fills its column. Where R's
    ``approx`` would stop (fewer than two finite bounds to interpolate) the bounds are NaN.

    **Limit.** CORP estimates a *monotone* calibration curve. Where the true curve is not
    monotone (e.g. an overfitted model whose highest scores are less reliable), PAV pools
    across the dip and MCB is a lower bound on the miscalibration; look at a binned
    (:func:`calstats.reliability_diagram`, :func:`calstats.ece`) or smooth
    (:func:`calstats.evaluation.smooth.smooth_curve`, ``smece``) estimate of the curve as
    well.

    Dask collections are refused: PAV needs the whole sample in one sorted order.
    """
    return _corp(p, y, level, band, n_resamples, position, seed, weights, type, name)


@on_dask(refuse=refuse_dask_corp)
def _corp(p, y, level, band, n_resamples, position, seed, weights, type, name):
    name = check_forecast_name(name)
    if is_matrix(p):
        pm, r, pred = check_prob_matrix_top(p, "p")
        type = match_arg(type, TYPES)
        codes, levels, k = check_multiclass_y(y, pm.shape[1])
        refuse_misnamed_columns(p, y)
        check_nobs("p", "y", pm.shape[0], codes.size)
        if type == "confidence":
            problems = [(name or "confidence", np.array(r, dtype=np.float64), correct(pred, codes))]
        else:
            if name is not None:
                refuse_forecast_name()
            problems = [(levels[j], np.array(pm[:, j], dtype=np.float64), (codes == j + 1).astype(np.int64))
                        for j in range(k)]
        layout = type
        n = pm.shape[0]
    else:
        pv, yv = check_prob_and_labels(p, y)
        check_labels_complete(yv, "y")
        problems = [(name or "p", pv, yv)]
        layout = "binary"
        n = pv.size
    level = check_interval(level, "level")
    band = None if band is None else match_arg(band, BANDS)
    position = match_arg(position, POSITIONS)
    n_resamples = check_bins(n_resamples, "n_resamples")
    w = check_weights(weights, n)
    if band == "continuous_asymptotics":
        refuse_continuous_band()
    with rng._seeded(seed):
        diagrams = [_one(name, x, yy, w, level, band, position, n_resamples, layout) for name, x, yy in problems]
    if layout != "classwise":
        return diagrams[0]
    levels = [d.forecast for d in diagrams]
    by_class = dict(zip(levels, diagrams))
    curve = _stack([d.curve for d in diagrams], levels)
    bands = None if diagrams[0].band is None else _stack([d.band for d in diagrams], levels)
    return CorpClasswise(diagrams=by_class, levels=levels, curve=curve, band=bands)


def _stack(frames, levels):
    parts = []
    for label, f in zip(levels, frames):
        g = f.copy()
        g.insert(0, "class_label", label)
        parts.append(g)
    out = pd.concat(parts, ignore_index=True)
    out["class_label"] = pd.Categorical(out["class_label"], categories=levels)
    return out
