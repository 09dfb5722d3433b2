"""Comparing calibration methods out of fold: :func:`cal_compare`.

Every method is fitted with :func:`calstats.cal_cv`'s machinery (R's stratified folds from
:func:`calstats.calibrators.cv.stratified_folds`, the same fit functions), so all methods see the same
folds and their out-of-fold probabilities are compared on the same observations. The first
row of the table is the uncalibrated model.
"""

import html as _html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._errors import CalstatsError
from .._inputs import input_kind, refuse_misnamed_columns, refuse_swap
from .._progress import collapsed_warnings, progress_bar
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..calibrators import registry
from ..kernels.probs import logits_to_probs, multiclass_log_loss, probs_to_logits
from ..results._base import Result, latex_table, table_markdown
from ..results._tables import table_html
from .scores import brier_score

__all__ = ["cal_compare", "CalCompare", "DEFAULT_BINARY", "DEFAULT_MULTICLASS", "METRICS", "TESTS"]

#: Default methods, in table order (:mod:`calstats.calibrators.registry`: R's methods in R's order).
DEFAULT_BINARY = registry.DEFAULT_BINARY
DEFAULT_MULTICLASS = registry.DEFAULT_MULTICLASS


# --------------------------------------------------------------------------------------
# metric columns: name -> function(P, codes) on an n x K probability matrix and 1-based codes


def _brier(P, codes):
    """Brier score: binary ``mean((p - y)^2)``; multiclass ``mean(sum_k (p_ik - 1{y_i=k})^2)``."""
    if P.shape[1] == 2:
        return brier_score(P[:, 1], (codes == 2).astype(np.int64))
    return brier_score(P, codes)


def _ece(kind, **binning):
    def metric(P, codes):
        from .metrics import ece

        return ece(P, codes, type=kind, **binning)

    metric.__name__ = f"{kind}_ece"
    return metric


#: The metric columns of :attr:`CalCompare.table`, in order. Add a ``(name, fn(P, codes))``
#: pair to extend the table; ``P`` is an n x K probability matrix (K = 2 for binary data,
#: column 2 the positive class) and ``codes`` the 1-based class codes.
METRICS = [
    ("log_loss", multiclass_log_loss),
    ("brier", _brier),
    ("confidence_ece", _ece("confidence")),
    ("classwise_ece", _ece("classwise")),
]


def _spiegelhalter_p(P, codes):
    from .caltests import cal_spiegelhalter_test

    if P.shape[1] == 2:
        return cal_spiegelhalter_test(P[:, 1], (codes == 2).astype(np.int64)).p_value
    return cal_spiegelhalter_test(P, codes, type="confidence").p_value


def _cal_test_p(P, codes):
    from .inference import cal_test

    if P.shape[1] == 2:
        return cal_test(P[:, 1], (codes == 2).astype(np.int64), method="asymptotic").p_value
    return cal_test(P, codes, method="asymptotic", type="confidence").p_value


def _binned_metrics(binning):
    """The METRICS columns with the ECEs under other bins (``binning``: ece's arguments)."""
    return [(name, _ece(name.split("_")[0], **binning) if name.endswith("_ece") else fn) for name, fn in METRICS]


def _weighted_metrics(w, binning=None):
    """The METRICS columns as weighted means (case weights ``w``)."""
    binning = binning or {}
    from ..calibrators._multinomial import weighted_log_loss
    from .metrics import ece

    def brier(P, codes):
        if P.shape[1] == 2:
            return brier_score(P[:, 1], (codes == 2).astype(np.int64), weights=w)
        return brier_score(P, codes, weights=w)

    return [
        ("log_loss", lambda P, codes: weighted_log_loss(P, codes, w)),
        ("brier", brier),
        ("confidence_ece", lambda P, codes: ece(P, codes, type="confidence", weights=w, **binning)),
        ("classwise_ece", lambda P, codes: ece(P, codes, type="classwise", weights=w, **binning)),
    ]


#: Calibration-test columns: ``(column, module, function, fn(P, codes) -> p-value)``. A test
#: whose module is not importable is left out of the table with a note.
TESTS = [
    ("spiegelhalter_p", "caltests", "cal_spiegelhalter_test", _spiegelhalter_p),
    ("cal_test_p", "inference", "cal_test", _cal_test_p),
]


def _available_tests():
    import importlib

    found, notes = [], []
    for column, module, func, fn in TESTS:
        try:
            mod = importlib.import_module("." + module, __package__)
            getattr(mod, func)
        except (ImportError, AttributeError):
            notes.append(f"{column}: calstats.{func} is not available; column left out.")
            continue
        found.append((column, fn))
    return found, notes


# --------------------------------------------------------------------------------------
# result


class CalCompare(Result):
    """Out-of-fold comparison of calibration methods (returned by :func:`cal_compare`).

    Not an R function (R's probcal has no comparison); ``r_class`` is ``("cal_compare",)``.
    A :class:`~calstats.results._base.Result`: ``print(cmp)`` shows :meth:`as_text`,
    ``cmp.as_frame()`` the table, and a notebook shows :meth:`as_html`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method (index ``method``; ``"uncalibrated"`` first), columns
        ``log_loss``, ``brier``, ``confidence_ece``, ``classwise_ece`` and, when the test
        modules are available, calibration-test p-values (``spiegelhalter_p``,
        ``cal_test_p``). Lower is better for the losses and ECEs.
    predictions : dict
        Method name -> out-of-fold probabilities (binary: 1-D array of the positive class;
        multiclass: DataFrame with columns ``levels``).
    fits : dict
        Method name -> the :class:`calstats.calibrators.cv.CalCv` (its fold calibrators and a
        final one fitted on every row), or None for a callable method.
    fold_id : ndarray of int
        1-based fold of each observation (shared by every method).
    folds, seed : int
    input : {"probabilities", "logits"}
        How ``x`` was read.
    levels : list of str
        Class labels (``["0", "1"]`` for binary data).
    binary : bool
        Whether the data are binary.
    notes : list of str
        Columns left out, methods that failed, and the scores each method was fitted on.
    """

    r_class = ("cal_compare",)
    _extras = ("table", "predictions", "fits", "fold_id", "folds", "seed", "input", "levels", "binary", "notes")
    # set by the constructor (declared for type checkers)
    table: pd.DataFrame
    predictions: dict[str, Any]
    fits: dict[str, Any]
    fold_id: np.ndarray
    folds: int
    seed: int
    input: str
    levels: list[str]
    binary: bool
    notes: list[str]

    def __init__(self, table, predictions, fits, fold_id, folds, seed, input, levels, binary, notes):
        self._set_fields(table=table, predictions=predictions, fits=fits, fold_id=fold_id, folds=folds, seed=seed,
                         input=input, levels=levels, binary=binary, notes=notes)

    def best(self, column: str = "log_loss") -> str:
        """Name of the method with the smallest value of ``column``.

        Parameters
        ----------
        column : str, default "log_loss"
            A column of :attr:`table`.

        Returns
        -------
        str
        """
        return str(self.table[column].idxmin())

    def as_text(self) -> str:
        """Plain-text rendering: a title line, the table, then the notes."""
        kind = "binary" if self.binary else f"{len(self.levels)} classes"
        lines = [f"Calibration comparison ({kind}, {self.folds}-fold out-of-fold, seed {self.seed})", ""]
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            lines.append(self.table.to_string(float_format=lambda x: f"{x:.4g}"))
        if self.notes:
            lines.append("")
            lines.extend(f"Note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"

    def print_text(self) -> str:
        """The printed text, with its final newline (:meth:`as_text`).

        Returns
        -------
        str
        """
        return self.as_text()

    def as_html(self) -> str:
        """HTML: the table (statsmodels ``SimpleTable``) and the notes."""
        parts = [f"<h4>Calibration comparison ({self.folds}-fold out-of-fold, seed {self.seed})</h4>",
                 table_html(self.table)]
        if self.notes:
            parts.append("<ul>" + "".join(f"<li>{_html.escape(n)}</li>" for n in self.notes) + "</ul>")
        return "\n".join(parts)

    _repr_html_ = as_html

    def as_latex(self) -> str:
        """A booktabs ``tabular`` of the table (notes as LaTeX comments)."""
        text = latex_table(self.table, caption="calibration comparison")
        return text + "".join(f"\n% Note: {n}" for n in self.notes)

    def as_markdown(self) -> str:
        """A Markdown pipe table of the table (no ``tabulate`` needed), then the notes."""
        kind = "binary" if self.binary else f"{len(self.levels)} classes"
        text = (f"**Calibration comparison ({kind}, {self.folds}-fold out-of-fold, seed {self.seed})**\n\n"
                + table_markdown(self.table))
        return text + "".join(f"\n\n*Note:* {n}" for n in self.notes) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The table (a copy): one row per method, index ``method``.

        Returns
        -------
        pandas.DataFrame
            Columns ``log_loss``, ``brier``, ``confidence_ece``, ``classwise_ece`` and the
            test p-values (see :attr:`table`).
        """
        return self.table.copy()


# --------------------------------------------------------------------------------------
# cal_compare


def _representations(X, binary, input):
    """``(probabilities, logits)`` of the scores ``X``."""
    if input == "probabilities":
        return X, probs_to_logits(X)
    return logits_to_probs(X), X


def _as_matrix(p, binary):
    p = np.asarray(p, dtype=np.float64)
    return np.column_stack([1.0 - p, p]) if binary else p


def _normalise_methods(methods, binary):
    if methods is None:
        methods = DEFAULT_BINARY if binary else DEFAULT_MULTICLASS
    if isinstance(methods, str) or callable(methods):
        methods = [methods]
    items = list(methods.items()) if isinstance(methods, dict) else list(methods)
    allowed = registry.BINARY if binary else registry.MULTICLASS
    out = []
    for m in items:
        if isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) and callable(m[1]):
            out.append(m)
        elif isinstance(m, str):
            name = registry.resolve(m, allowed)
            out.append((name, name))
        else:
            v.fail_methods_element()
    names = [n for n, _ in out]
    if len(set(names)) != len(names) or "uncalibrated" in names:
        v.fail_methods_names()
    return out


BINNING_KEYS = ("bins", "strategy", "breaks", "right")


def _check_binning(binning, probs, codes, binary):
    """``binning`` as ece's keyword arguments, checked once on the uncalibrated scores."""
    if binning is None:
        return {}
    if not isinstance(binning, Mapping) or any(k not in BINNING_KEYS for k in binning):
        v.fail_binning_dict(BINNING_KEYS)
    out = dict(binning)
    from .metrics import ece

    ece(_as_matrix(probs, binary), codes, type="confidence", **out)  # the message of a bad choice, once
    return out


def cal_compare(x: Scores, y: Labels, methods: str | Sequence[Any] | Mapping[str, Any] | None = None,
                folds: int = 5, seed: int = 1, *, input: str = "auto", progress: bool | None = None,
                weights: Weights = None, binning: Mapping[str, Any] | None = None, **kwargs: Any) -> CalCompare:
    """Compare calibration methods by out-of-fold log-loss, Brier score, ECEs and tests.

    Each method is fitted by cross-validation (:func:`calstats.cal_cv` with the same
    ``folds`` and ``seed``, hence the same R-stratified folds for every method) and scored
    on its out-of-fold probabilities; the uncalibrated scores are the first row.

    Parameters
    ----------
    x : array_like or DataFrame
        Binary: a vector of probabilities (values in [0, 1]) or of logits/scores.
        Multiclass: an n x K matrix of probabilities (rows summing to 1) or of logits.
    y : array_like, pandas.Categorical or Factor
        Binary: 0/1 labels. Multiclass: class codes 1..K or a factor.
    methods : sequence, optional
        Method names (partial matching): binary ``"platt"``, ``"beta"``, ``"isotonic"``,
        ``"histogram"``, ``"temperature"`` (the default, in this order); multiclass
        ``"temperature"``, ``"vector"``, ``"dirichlet"``, ``"ovr"`` (the default). Both also
        take ``"venn_abers"`` (:func:`calstats.cal_venn_abers`) and ``"spline"``
        (:func:`calstats.cal_spline`, one-vs-rest for multiclass data), and scikit-learn's
        ``"sigmoid"`` for ``"platt"`` (every method and what it is fitted on:
        :mod:`calstats.calibrators.registry`). An element
        may also be a ``(name, fit)`` pair (or ``methods`` a dict name -> fit) where
        ``fit(x_train, y_train)`` returns an object with ``predict(x_test)``; it receives
        ``x`` as given and the same folds.
    folds : int, default 5
        Number of stratified folds.
    seed : int, default 1
        Seed of the fold assignment (R's ``set.seed``; the global stream is restored).
    input : {"auto", "probabilities", "logits"}, keyword-only
        How to read ``x``. ``"auto"``: probabilities when every value is in [0, 1] (and,
        multiclass, rows sum to 1 within 1e-6), otherwise logits.
    progress : bool, optional, keyword-only
        A progress bar over the methods: ``None`` shows one in a terminal or notebook once
        the work has run for two seconds, ``True`` always, ``False`` never. Warnings that
        every fold repeats (e.g. glm's) are shown once, with their count.
    weights : array_like, optional, keyword-only
        Case weights: every method is fitted with them (:func:`calstats.cal_cv`) and the
        metric columns are weighted means; the calibration tests, whose theory is for
        unweighted samples, are left out (NaN, with a note).
    binning : dict, optional, keyword-only
        The bins of the two ECE columns: any of :func:`calstats.ece`'s ``bins``,
        ``strategy``, ``breaks`` and ``right``, e.g. ``{"strategy": "quantile", "bins":
        15}``. Default: ten equal-width bins, left-closed (R's). (A dict, because ``bins``
        and ``strategy`` given directly go to the histogram calibrator.)
    **kwargs
        Passed to :func:`calstats.cal_cv` for every string method (R's ``...``).

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalCompare

    Notes
    -----
    Not in R's probcal. Scores per method: ``platt`` and ``ovr`` are fitted on ``x`` as
    given; ``beta``, ``isotonic``, ``histogram`` and ``dirichlet`` on probabilities (the
    inverse logit or softmax of logits); ``temperature`` and ``vector`` on logits (the
    logit of binary probabilities clipped to [1e-15, 1 - 1e-15], or the log of multiclass
    probabilities, which softmax maps back to them). Metrics: ``log_loss`` is the mean
    negative log-likelihood (probabilities clipped at 1e-15); ``brier`` is
    ``mean((p - y)^2)`` (binary) or ``mean(sum_k (p_ik - 1{y_i = k})^2)`` (multiclass);
    ``confidence_ece`` and ``classwise_ece`` are :func:`calstats.ece` with
    ``type="confidence"``/``"classwise"`` and 10 bins (or ``binning``), binary data being the two-column
    matrix ``(1 - p, p)``. P-values: Spiegelhalter's test (``calstats.cal_spiegelhalter_test``,
    top-label for multiclass) and the asymptotic kernel calibration test
    (``calstats.cal_test(method="asymptotic")``), each only when its module is available.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> rs = np.random.default_rng(0)
    >>> p = rs.uniform(0.02, 0.98, 300)
    >>> y = (rs.uniform(size=300) < p ** 1.5).astype(int)
    >>> cmp = calstats.cal_compare(p, y, methods=["platt", "isotonic"])
    >>> list(cmp.table.index)
    ['uncalibrated', 'platt', 'isotonic']
    """
    from ..calibrators.cv import cal_cv, stratified_folds

    binary = not v.is_matrix(x)
    if binary:
        refuse_swap(x, y, "cal_compare(x, y)", "x")
        X = v.check_numeric(x, "x")
        yv = v.check_binary_y(y, "y", require_both=True)
        v.check_same_length("x", "y", X.size, yv.size)
        v.check_labels_complete(yv)
        codes = yv.astype(np.int64) + 1
        levels = ["0", "1"]
        y_fit = yv
    else:
        X = v.check_logit_matrix(x, "x")
        codes, levels, _k = v.check_multiclass_y(y, X.shape[1])
        refuse_misnamed_columns(x, y, "x")
        v.check_nobs("x", "y", X.shape[0], codes.size)
        y_fit = y
    input = v.refuse_input_reading(input_kind(X, binary, input), "x")
    probs, logits = _representations(X, binary, input)
    if binary and input == "logits" and not np.isfinite(logits).all():
        v.fail_not_finite("x")
    method_list = _normalise_methods(methods, binary)
    binning = _check_binning(binning, probs, codes, binary)
    folds = v.check_folds(folds, codes)
    w = check_weights(weights, codes.size)
    fold_id = stratified_folds(yv if binary else codes, folds, seed)

    index = x.index if isinstance(x, (pd.DataFrame, pd.Series)) else None
    tests, notes = _available_tests()
    if binning:
        notes.append("The ECE columns use " + ", ".join(f"{k} = {binning[k]!r}" for k in binning) + ".")
    rows = {}
    predictions = {}
    fits: dict[str, Any] = {}

    def score(P):
        row = {}
        for name, fn in (_binned_metrics(binning) if w is None else _weighted_metrics(w, binning)):
            row[name] = float(fn(P, codes))
        if w is not None:
            row.update({name: math.nan for name, _ in tests})
            return row
        for name, fn in tests:
            try:
                row[name] = float(fn(P, codes))
            except Exception as exc:  # a test undefined on these scores: NaN, noted
                row[name] = math.nan
                notes.append(f"{name} is NaN for a method: {exc}")
        return row

    if binary:
        predictions["uncalibrated"] = probs.copy()
    else:
        predictions["uncalibrated"] = pd.DataFrame(probs, columns=levels, index=index)
    rows["uncalibrated"] = score(_as_matrix(probs, binary))

    # the same warning from every fold and method is shown once, with its count
    with collapsed_warnings(), progress_bar(len(method_list), "cal_compare", progress) as bar:
        for name, method in method_list:
            if callable(method):
                oof, _ = _oof_fits(method, X, y_fit, fold_id, folds, binary)
                fits[name] = None
            elif not registry.method(method).r:  # not in R's cal_cv: fitted on the same folds here
                try:
                    fits[name] = _cv_calstats(method, probs, y_fit, fold_id, folds, binary, w, levels)
                except CalstatsError as exc:
                    notes.append(f"{name} failed: {exc}")
                    rows[name] = {c: math.nan for c in rows["uncalibrated"]}
                    bar.update(1)
                    continue
                oof = np.asarray(fits[name].oof_predictions, dtype=np.float64)
            else:
                takes = registry.method(method).takes
                xm = probs if takes == "probabilities" else logits if takes == "logits" else X
                too_many = _too_many_parameters(method, X, fold_id)
                if too_many:
                    notes.append(f"{name} left out: {too_many}")
                    rows[name] = {c: math.nan for c in rows["uncalibrated"]}
                    bar.update(1)
                    continue
                try:
                    fit = cal_cv(xm, y_fit, method=method, folds=folds, seed=seed, progress=False, weights=w, **kwargs)
                except CalstatsError as exc:
                    notes.append(f"{name} failed: {exc}")
                    rows[name] = {c: math.nan for c in rows["uncalibrated"]}
                    bar.update(1)
                    continue
                fits[name] = fit
                oof = np.asarray(fit.oof_predictions, dtype=np.float64)
            predictions[name] = oof if binary else pd.DataFrame(oof, columns=levels, index=index)
            rows[name] = score(_as_matrix(oof, binary))
            bar.update(1)

    fitted_on = {m: registry.method(m).takes for _, m in method_list if isinstance(m, str)}
    if input == "probabilities" and "logits" in fitted_on.values():
        notes.append("temperature/vector scaling were fitted on logits derived from the probabilities.")
    on_probs = [m for _, m in method_list if isinstance(m, str) and fitted_on[m] == "probabilities"]
    if input == "logits" and on_probs:
        notes.append("/".join(on_probs) + " " + ("was" if len(on_probs) == 1 else "were")
                     + " fitted on probabilities derived from the logits.")
    sided = {"spiegelhalter_p": "spiegelhalter_p is two-sided (over- and under-confidence)",
             "cal_test_p": "cal_test_p is one-sided (H1: SKCE > 0, the kernel test's only direction)"}
    labels = [sided[name] for name, _ in tests if name in sided]
    if labels and w is None:
        notes.insert(0, "; ".join(labels) + ".")
    if w is not None:
        notes.append("weighted: metrics are weighted means; the calibration tests are not computed with case weights.")
        if any(callable(m) for _, m in method_list):
            notes.append("callable methods were fitted without the weights (they receive x and y only).")
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "method"
    return CalCompare(table, predictions, fits, fold_id, int(folds), seed, input, levels, binary, notes)


def _too_many_parameters(method, X, fold_id):
    """Why a method with a parameter per pair of classes is not fitted, or None: Dirichlet
    calibration has K (K + 1) parameters, which a fold's training rows cannot estimate when
    there are more of them than rows (the fit would take minutes: 50 classes on 200 rows,
    74 s of CPU, for a map that only memorises the training rows)."""
    if method != "dirichlet" or X.ndim != 2:
        return None
    k = X.shape[1]
    train = int(np.min([np.sum(fold_id != f) for f in np.unique(fold_id)]))
    if k * (k + 1) <= max(train, 100):
        return None
    return f"its {k * (k + 1)} parameters (K (K + 1) for K = {k} classes) exceed the {train} training rows of a fold."


def _oof_fits(fit_fn, X, y, fold_id, folds, binary, weights=None):
    """Out-of-fold predictions of ``fit(x_train, y_train)`` (with ``weights=`` when case
    weights are given) and the fold fits."""
    yarr = y if binary else _take_labels(y)
    n = X.shape[0]
    oof = np.zeros(n) if binary else np.zeros((n, X.shape[1]))
    fold_fits = []
    for f in range(1, folds + 1):
        train = fold_id != f
        extra = {} if weights is None else {"weights": weights[train]}
        cal = fit_fn(X[train], _subset(yarr, train), **extra)
        oof[~train] = np.asarray(cal.predict(X[~train]), dtype=np.float64)
        fold_fits.append(cal)
    return oof, fold_fits


def _cv_calstats(method, X, y, fold_id, folds, binary, weights, levels):
    """A calstats-only method (not in R's ``cal_cv``) on the shared folds, as a :class:`CalCv`."""
    from ..calibrators.cv import CalCv, CalCvMulticlass

    fn = registry.method(method).function()
    oof, fold_fits = _oof_fits(fn, X, y, fold_id, folds, binary, weights)
    final = fn(X, y if binary else _take_labels(y), weights=weights)
    common = dict(method="cross-validated " + final.method, n=int(X.shape[0]), input=final.input,
                  calibration_method=method, folds=int(folds), fold_id=fold_id, fold_calibrators=fold_fits,
                  final_calibrator=final, call=None)
    if binary:
        return CalCv(oof_predictions=oof, **common)
    return CalCvMulticlass(oof_predictions=pd.DataFrame(oof, columns=levels), k=len(levels), levels=list(levels),
                           **common)


def _take_labels(y):
    if isinstance(y, pd.Series):
        return y.reset_index(drop=True)
    return y


def _subset(y, mask):
    from .._factor import Factor

    if isinstance(y, Factor):
        return Factor([y.values[i] for i in np.flatnonzero(mask)], levels=y.levels)
    if isinstance(y, pd.Series):
        return y[mask]
    if isinstance(y, pd.Categorical):
        return y[mask]
    return np.asarray(y)[mask]
