"""A scikit-learn estimator that calibrates a classifier with a calstats method.

scikit-learn is an optional dependency (``pip install 'calstats[sklearn]'``); it is
imported when this module is imported, with a clear error if it is missing. Not in R's
probcal.
"""

import inspect
import numbers
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from . import _validate as v

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
    from sklearn.model_selection import StratifiedKFold
    from sklearn.utils import _safe_indexing
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, column_or_1d, has_fit_parameter, indexable
except ImportError as exc:  # pragma: no cover - exercised only without scikit-learn
    v.fail_adapter_needs_sklearn(exc)
try:
    from sklearn.utils import get_tags
except ImportError:  # pragma: no cover - scikit-learn < 1.6, which never asks for __sklearn_tags__
    get_tags = None

from ._typing import ArrayLike, Labels, Weights  # noqa: E402
from ._weights import check_weights  # noqa: E402  (after the scikit-learn check)
from .calibrators import registry  # noqa: E402
from .kernels.probs import probs_to_logits  # noqa: E402

__all__ = ["CalibratedClassifier", "METHODS"]

#: method -> (calstats function name, input it is fitted on: "prob" or "logit"), read from
#: :mod:`calstats.calibrators.registry` (what a method is fitted on, given probabilities)
METHODS = {m.name: (m.function_name, "prob" if m.from_probabilities == "probabilities" else "logit")
           for m in registry.METHODS.values()}


def _scores(estimator, X, kind, binary):
    """The estimator's probabilities (``kind="prob"``) or logits (``"logit"``)."""
    P = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    # scikit-learn's probabilities can miss 1 by more than calstats' 1e-6 row-sum
    # tolerance (GaussianNB far from the training data); renormalise the rows.
    P = P / P.sum(axis=1, keepdims=True)
    scores = P[:, 1] if binary else P
    return scores if kind == "prob" else probs_to_logits(scores)


def _as_matrix(S, kind):
    """Two-class scores as the two-column matrix the multiclass methods take."""
    return np.column_stack([1 - S, S]) if kind == "prob" else np.column_stack([np.zeros_like(S), S])


def _fit_weighted(estimator, X, y, w):
    """``estimator.fit(X, y, sample_weight=w)`` when weights are given and accepted."""
    if w is None:
        return estimator.fit(X, y)
    if has_fit_parameter(estimator, "sample_weight"):
        return estimator.fit(X, y, sample_weight=w)
    return estimator.fit(X, y)


def _calstats(name):
    """The calstats function ``name`` (imported here: calstats imports its modules lazily)."""
    import calstats

    return getattr(calstats, name)


def _data_parameters(fn):
    """The parameters of a calstats fitting function that take the data, not options."""
    return set(list(inspect.signature(fn).parameters)[:2])


def _options(fn):
    """The options of a calstats fitting function: its named parameters after the scores
    and the labels, without ``weights`` (which comes from ``sample_weight``)."""
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in _data_parameters(fn)
            and p.name != "weights"]


def _ovr_inner(value):
    """The binary method ``cal_ovr(method=value)`` fits (an alias, or R's partial matching), or None."""
    if not isinstance(value, str):
        return None
    value = registry.canonical(value)
    matches = [m for m in registry.CAL_OVR if m.startswith(value)] if value else []
    return value if value in registry.CAL_OVR else (matches[0] if len(matches) == 1 else None)


class CalibratedClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Calibrate a scikit-learn classifier's probabilities with a calstats method.

    The scikit-learn counterpart is :class:`sklearn.calibration.CalibratedClassifierCV`
    with ``ensemble=False``: the calibrator is fitted on out-of-fold probabilities and the
    estimator is refitted on all the data. The calibration maps are calstats' (Dirichlet,
    temperature, vector scaling, one-vs-rest, Platt, beta, isotonic, histogram binning,
    Venn-Abers, splines).

    Parameters
    ----------
    estimator : classifier
        A scikit-learn classifier with ``predict_proba``. Required (scikit-learn's
        ``CalibratedClassifierCV`` defaults to ``LinearSVC``, which has no
        ``predict_proba``).
    method : str, default "dirichlet"
        The calstats calibration method:

        * any number of classes: ``"dirichlet"`` (``calstats.cal_dirichlet``, on the
          probabilities), ``"temperature"`` (``cal_temperature``) and ``"vector"``
          (``cal_vector_scaling``), both on the log-probabilities, and ``"ovr"``
          (``cal_ovr``, one binary calibrator per class, on the probabilities);
          ``"venn_abers"`` (``cal_venn_abers``, inductive Venn-Abers predictors) and
          ``"spline"`` (``cal_spline``, one-vs-rest for more than two classes), on the
          probabilities (of the second class when there are two);
        * two classes only: ``"platt"`` (``cal_platt``, on the logit of the probability
          of the second class), ``"beta"`` (``cal_beta``), ``"isotonic"``
          (``cal_isotonic``) and ``"histogram"`` (``cal_histogram``), on that
          probability. For more classes use ``"ovr"`` with
          ``method_params={"method": "isotonic"}`` (for instance).

        scikit-learn's ``"sigmoid"`` names ``"platt"``. Every method, its aliases and what
        it is fitted on: :mod:`calstats.calibrators.registry`.
    cv : int, "prefit", cross-validation splitter or iterable, default 5
        How the calibration scores are obtained.

        * An integer (at least 2): ``fit`` gets out-of-fold probabilities from that many
          stratified folds (``StratifiedKFold``), each from a clone of ``estimator``
          fitted on the other folds, fits the calibrator on them, then fits a clone of
          ``estimator`` on all of ``X``.
        * A splitter (an object with ``split(X, y)``, e.g. ``StratifiedKFold(3)``) or an
          iterable of ``(train, test)`` index arrays: the same with those folds. Their
          test folds must hold every row exactly once.
        * ``"prefit"``: ``estimator`` is already fitted and is used as it is; ``fit(X, y)``
          fits only the calibrator, on ``(X, y)``, which should be data the estimator did
          not see.
    random_state : int, RandomState instance or None, default None
        With an integer ``cv``: the seed with which the rows are shuffled before they are
        split into folds; None keeps the order of the rows (no shuffling). Not used with
        other ``cv``.
    method_params : dict or None, default None
        Keyword arguments of the calstats function of ``method``, e.g.
        ``{"lambda_": 0.01}`` for ``"dirichlet"``, ``{"bins": 15}`` for
        ``"histogram"``, ``{"method": "isotonic"}`` for ``"ovr"``. Case weights are
        not given here but as ``fit(..., sample_weight=...)``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted (with ``cv="prefit"``: the estimator's ``classes_``).
    estimator_ : classifier
        The fitted estimator (with ``cv="prefit"``: ``estimator`` itself).
    calibrator_ : calstats.Calibrator
        The fitted calstats calibrator. It maps the estimator's probabilities (with two
        classes and a two-class-only method: the probability of ``classes_[1]``) or their
        logarithms to calibrated probabilities.
    n_features_in_ : int
        Number of features seen by the estimator during ``fit`` (when the estimator
        records it).
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen by the estimator during ``fit`` (when the estimator
        records them, e.g. for a pandas DataFrame with string column names).

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : scikit-learn's calibration meta-estimator.
    calstats.cal_dirichlet, calstats.cal_temperature, calstats.cal_ovr : the calibrators.

    Notes
    -----
    Deliberate differences from ``CalibratedClassifierCV``:

    * One calibrator fitted on all the out-of-fold probabilities and one estimator fitted
      on all the data (``CalibratedClassifierCV(ensemble=False)``), never an average of
      per-fold estimator/calibrator pairs.
    * The calibrator always works on ``predict_proba`` (or its logarithm), never on
      ``decision_function``.
    * ``cv="prefit"`` is kept (scikit-learn replaced it by ``FrozenEstimator``).
    * With an integer ``cv``, ``random_state`` can shuffle the folds.
    * The two-class-only methods refuse more classes instead of calibrating one versus
      the rest silently; ``method="ovr"`` does that on request.
    * ``X`` is not converted or checked here but passed unchanged to the estimator, which
      validates it (so pipelines taking DataFrames or text work); ``sample_weight`` is
      passed to the estimator's ``fit`` when it takes one and always to the calibrator.
      There is no ``n_jobs`` and no metadata routing of other fit parameters.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.datasets import load_digits
    >>> from calstats.sklearn import CalibratedClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CalibratedClassifier(GaussianNB(), method="vector", cv=3).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 10)
    >>> clf = CalibratedClassifier(GaussianNB(), method="dirichlet", cv=3,
    ...                            method_params={"lambda_": 0.01}).fit(X, y)
    >>> clf.predict(X[:2])
    array([0, 1])
    """

    def __init__(self, estimator, method="dirichlet", cv=5, random_state=None, method_params=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.random_state = random_state
        self.method_params = method_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # X goes to the estimator unchanged: it decides what input it takes
        if hasattr(self.estimator, "__sklearn_tags__"):
            estimator_tags = get_tags(self.estimator)
            tags.input_tags.sparse = estimator_tags.input_tags.sparse
            tags.input_tags.allow_nan = estimator_tags.input_tags.allow_nan
        known = registry.METHODS.get(registry.canonical(self.method)) if isinstance(self.method, str) else None
        tags.classifier_tags.multi_class = known is None or not known.binary_only
        return tags

    # -- checks of the parameters (in fit: __init__ only stores them) ---------------------

    def _method(self):
        """The registry's method (``method`` may be an alias such as scikit-learn's "sigmoid")."""
        return registry.method(self.method)

    def _calstats_function(self):
        return _calstats(self._method().function_name)

    def _check_method_and_cv(self):
        if not isinstance(self.method, str) or registry.canonical(self.method) not in METHODS:
            v.fail_adapter_method(self.method, METHODS)
        cv = self.cv
        if isinstance(cv, str):
            ok = cv == "prefit"
        elif isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            ok = cv >= 2
        else:
            ok = hasattr(cv, "split") or isinstance(cv, Iterable)
        if not ok:
            v.fail_adapter_cv(cv)

    def _method_kwargs(self):
        """``method_params`` as checked keyword arguments of the calstats function."""
        params = self.method_params
        if params is None:
            return {}
        if not isinstance(params, Mapping):
            v.fail_adapter_method_params_type(params)
        fn = self._calstats_function()
        allowed = _options(fn)
        inner = _ovr_inner(params.get("method", "platt")) if self._method().name == "ovr" else None
        if inner is not None:
            allowed = allowed + _options(_calstats(registry.method(inner).function_name))
        for key in params:
            if key == "weights":
                v.fail_adapter_method_params_weights()
            if key not in allowed:
                v.fail_adapter_method_params_key(key, allowed, fn.__name__, self.method, inner)
        return dict(params)

    def _splits(self, X, y):
        """The ``(train, test)`` index arrays of the out-of-fold scores."""
        n = len(y)
        if isinstance(self.cv, numbers.Integral):
            folds = StratifiedKFold(int(self.cv), shuffle=self.random_state is not None,
                                    random_state=self.random_state)
            return list(folds.split(X, y))
        splits = list(self.cv.split(X, y)) if hasattr(self.cv, "split") else list(self.cv)
        splits = [(np.asarray(train), np.asarray(test)) for train, test in splits]
        covered = np.zeros(n, dtype=np.int64)
        for _, test in splits:
            np.add.at(covered, np.arange(n)[test], 1)
        if len(splits) < 2 or not (covered == 1).all():
            v.fail_adapter_folds(int((covered != 1).sum()), n)
        return splits

    # -- fitting and predicting -----------------------------------------------------------

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Weights = None) -> "CalibratedClassifier":
        """Fit the estimator (unless ``cv="prefit"``) and the calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples, in any form the estimator takes (passed to it unchanged).
        y : array-like of shape (n_samples,)
            Class labels, of any type ``numpy.unique`` sorts (numbers, strings, booleans).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative case weights: passed to the calibrator (calstats' ``weights=``)
            and to the estimator's ``fit`` when it accepts ``sample_weight`` (as
            scikit-learn's ``CalibratedClassifierCV`` does).

        Returns
        -------
        self : CalibratedClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            For a bad ``method``, ``cv`` or ``method_params`` key, a ``y`` that is not
            class labels or has fewer than two classes, two-class-only methods on more
            classes, a class missing from a training fold, or bad ``sample_weight``.
        TypeError
            When ``method_params`` is not a dict.
        sklearn.exceptions.NotFittedError
            With ``cv="prefit"`` and an estimator that is not fitted.
        """
        self._check_method_and_cv()
        kwargs = self._method_kwargs()
        method = self._method()
        kind = METHODS[method.name][1]
        labels: np.ndarray = column_or_1d(y, warn=True)
        check_classification_targets(labels)
        X, labels = indexable(X, labels)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w is not None:
            if w.shape != (len(labels),):
                v.fail_adapter_sample_weight_shape(w.shape, len(labels))
            w = check_weights(w, len(labels), arg="sample_weight")

        if self.cv == "prefit":
            check_is_fitted(self.estimator, "classes_")
            estimator = self.estimator
            classes = np.asarray(estimator.classes_)
        else:
            estimator = None
            classes = np.unique(labels)
        if len(classes) < 2:
            v.fail_adapter_one_class(classes.tolist())
        binary = len(classes) == 2
        if method.binary_only and not binary:
            v.fail_adapter_binary_only(self.method, len(classes))
        if not hasattr(self.estimator, "predict_proba"):
            v.fail_adapter_no_predict_proba(self.estimator)
        codes = _codes(classes, labels)
        if w is not None and np.count_nonzero(np.bincount(codes, weights=w, minlength=len(classes)) > 0) < 2:
            v.fail_adapter_weight_one_class()

        if estimator is None:
            S = np.zeros(len(labels)) if binary else np.zeros((len(labels), len(classes)))
            for train, test in self._splits(X, labels):
                est = _fit_weighted(clone(self.estimator), _safe_indexing(X, train), labels[train],
                                    None if w is None else w[train])
                if list(est.classes_) != list(classes):
                    v.fail_adapter_fold_class()
                S[test] = _scores(est, _safe_indexing(X, test), kind, binary)
            estimator = _fit_weighted(clone(self.estimator), X, labels, w)
        else:
            S = _scores(estimator, X, kind, binary)
        if binary and method.matrix_only:
            S = _as_matrix(S, kind)
        target: Labels
        if S.ndim == 1:
            target = codes
        else:
            target = pd.Categorical(codes, categories=range(len(classes)))
        if w is not None:
            kwargs["weights"] = w
        calibrator = self._calstats_function()(S, target, **kwargs)

        self.classes_ = classes
        self.estimator_ = estimator
        self.calibrator_ = calibrator
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, attr):
                setattr(self, attr, getattr(estimator, attr))
            elif attr in vars(self):  # a refit with an estimator that does not record it
                delattr(self, attr)
        return self

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Calibrated class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples, in any form the estimator takes.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The calibrated probabilities, columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        binary = len(self.classes_) == 2
        method = self._method()
        kind = METHODS[method.name][1]
        S = _scores(self.estimator_, X, kind, binary)
        if binary and method.matrix_only:
            S = _as_matrix(S, kind)
        Q = np.asarray(self.calibrator_.predict(S), dtype=np.float64)
        if Q.ndim == 1:
            Q = np.column_stack([1 - Q, Q])
        return Q

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class with the largest calibrated probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples, in any form the estimator takes.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        P = self.predict_proba(X)  # first: it raises NotFittedError before fit
        return self.classes_[np.argmax(P, axis=1)]


def _codes(classes, y):
    """The 0-based position of each label of ``y`` in ``classes``."""
    order = np.argsort(classes, kind="stable")
    try:
        pos = np.searchsorted(classes[order], y).clip(0, len(classes) - 1)
    except TypeError:  # labels that do not compare with the classes (strings and numbers)
        pos = None
    codes = None if pos is None else order[pos]
    if codes is None or np.any(classes[codes] != y):
        v.fail_adapter_unknown_class()
    return codes.astype(np.int64)
