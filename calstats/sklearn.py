"""A scikit-learn estimator that calibrates a classifier with a calstats method.

scikit-learn is an optional dependency (``pip install 'calstats[sklearn]'``); it is
imported when this module is imported, with a clear error if it is missing. Not in R's
probcal.
"""

from typing import Any

import numpy as np
import pandas as pd

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, clone
    from sklearn.model_selection import StratifiedKFold
    from sklearn.utils.validation import check_is_fitted
except ImportError as exc:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError("calstats.sklearn needs scikit-learn: pip install 'calstats[sklearn]' "
                      "(or pip install scikit-learn)") from exc

from ._internals import probs_to_logits  # noqa: E402  (after the scikit-learn check)
from ._typing import ArrayLike, Labels, Weights  # noqa: E402

__all__ = ["CalibratedClassifier", "METHODS"]

#: method -> (calstats function name, input it is fitted on: "prob" or "logit")
METHODS = {
    "dirichlet": ("cal_dirichlet", "prob"),
    "temperature": ("cal_temperature", "logit"),
    "vector": ("cal_vector_scaling", "logit"),
    "ovr": ("cal_ovr", "prob"),
    "platt": ("cal_platt", "logit"),
    "beta": ("cal_beta", "prob"),
    "isotonic": ("cal_isotonic", "prob"),
    "histogram": ("cal_histogram", "prob"),
}
_BINARY_ONLY = ("platt", "beta", "isotonic", "histogram")


def _scores(estimator, X, kind, binary):
    """The estimator's probabilities (``kind="prob"``) or logits (``"logit"``)."""
    P = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    # scikit-learn's probabilities can miss 1 by more than calstats' 1e-6 row-sum
    # tolerance (GaussianNB far from the training data); renormalise the rows.
    P = P / P.sum(axis=1, keepdims=True)
    scores = P[:, 1] if binary else P
    return scores if kind == "prob" else probs_to_logits(scores)


def _fit_weighted(estimator, X, y, w):
    """``estimator.fit(X, y, sample_weight=w)`` when weights are given and accepted."""
    if w is None:
        return estimator.fit(X, y)
    from sklearn.utils.validation import has_fit_parameter

    if has_fit_parameter(estimator, "sample_weight"):
        return estimator.fit(X, y, sample_weight=w)
    return estimator.fit(X, y)


class CalibratedClassifier(ClassifierMixin, BaseEstimator):
    """Calibrate a scikit-learn classifier's probabilities with a calstats method.

    Parameters
    ----------
    estimator : classifier
        Any scikit-learn classifier with ``predict_proba``.
    method : str, default "dirichlet"
        ``"dirichlet"``, ``"temperature"``, ``"vector"``, ``"ovr"`` (any number of classes;
        ``"temperature"`` and ``"vector"`` work on the log-probabilities) or, for two
        classes, ``"platt"`` (on the logit of the probability), ``"beta"``,
        ``"isotonic"``, ``"histogram"``.
    cv : int or "prefit", default 5
        ``"prefit"``: ``estimator`` is already fitted; ``fit(X, y)`` fits only the
        calibrator, on ``(X, y)`` (which should be data the estimator did not see).
        An integer: ``fit`` clones the estimator, gets out-of-fold probabilities from
        ``cv`` stratified folds, fits the calibrator on them, then refits the estimator on
        all of ``X``.
    random_state : int or None, default None
        Shuffling seed of the folds (None: no shuffling).
    **method_kwargs
        Passed to the calstats function (e.g. ``lambda_=0.01`` for Dirichlet,
        ``bins=15`` for histogram, ``method="isotonic"`` for ovr).

    Attributes
    ----------
    classes_ : ndarray
        Class labels, as the estimator's ``classes_``.
    estimator_ : classifier
        The fitted estimator.
    calibrator_ : calstats.Calibrator
        The fitted calstats calibrator.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.datasets import load_digits
    >>> from calstats.sklearn import CalibratedClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CalibratedClassifier(GaussianNB(), method="vector", cv=3).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 10)
    """

    def __init__(self, estimator, method="dirichlet", cv=5, random_state=None, **method_kwargs):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.random_state = random_state
        self.method_kwargs = method_kwargs
        for key, value in method_kwargs.items():
            setattr(self, key, value)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = super().get_params(deep=deep)
        params.pop("method_kwargs", None)
        params.update(self.method_kwargs)
        return params

    def set_params(self, **params: Any) -> "CalibratedClassifier":
        own = {k: v for k, v in params.items() if k in ("estimator", "method", "cv", "random_state")
               or k.startswith("estimator__")}
        for key in set(params) - set(own):
            self.method_kwargs[key] = params[key]
            setattr(self, key, params[key])
        return super().set_params(**own) if own else self

    @classmethod
    def _get_param_names(cls):
        return ["cv", "estimator", "method", "random_state"]

    def _check(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {self.method!r}")
        if not (self.cv == "prefit" or (isinstance(self.cv, (int, np.integer)) and self.cv >= 2)):
            raise ValueError(f"cv must be 'prefit' or an integer >= 2; got {self.cv!r}")

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Weights = None) -> "CalibratedClassifier":
        """Fit the estimator (unless ``cv="prefit"``) and the calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Case weights: passed to the calibrator (calstats' ``weights=``) and to the
            estimator's ``fit`` when it accepts ``sample_weight`` (as scikit-learn's
            ``CalibratedClassifierCV`` does).

        Returns
        -------
        self
        """
        import calstats

        self._check()
        y = np.asarray(y)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w is not None and w.shape != (len(y),):
            raise ValueError(f"sample_weight has shape {w.shape}; expected ({len(y)},)")
        if self.cv == "prefit":
            check_is_fitted(self.estimator, "classes_")
            self.estimator_ = self.estimator
            self.classes_ = np.asarray(self.estimator_.classes_)
            binary = len(self.classes_) == 2
            kind = METHODS[self.method][1]
            S = _scores(self.estimator_, X, kind, binary)
            yy = y
        else:
            self.classes_ = np.unique(y)
            binary = len(self.classes_) == 2
            kind = METHODS[self.method][1]
            folds = StratifiedKFold(int(self.cv), shuffle=self.random_state is not None,
                                    random_state=self.random_state)
            S = np.zeros(len(y)) if binary else np.zeros((len(y), len(self.classes_)))
            for train, test in folds.split(X, y):
                est = _fit_weighted(clone(self.estimator), _rows(X, train), y[train], None if w is None else w[train])
                if list(est.classes_) != list(self.classes_):
                    raise ValueError("every class must occur in every training fold; lower cv")
                S[test] = _scores(est, _rows(X, test), kind, binary)
            self.estimator_ = _fit_weighted(clone(self.estimator), X, y, w)
            yy = y
        if self.method in _BINARY_ONLY and not binary:
            raise ValueError(f"method {self.method!r} needs two classes; use 'ovr' with method={self.method!r}")
        if binary and self.method in ("dirichlet", "vector", "ovr"):
            S = np.column_stack([1 - S, S]) if kind == "prob" else np.column_stack([np.zeros_like(S), S])
        fn = getattr(calstats, METHODS[self.method][0])
        target: Labels
        if S.ndim == 1:
            target = np.searchsorted(self.classes_, yy).astype(np.int64)
        else:
            target = pd.Categorical(np.searchsorted(self.classes_, yy), categories=range(len(self.classes_)))
        if np.any(self.classes_[np.searchsorted(self.classes_, yy).clip(0, len(self.classes_) - 1)] != yy):
            raise ValueError("y holds a class the estimator does not know")
        kwargs = dict(self.method_kwargs)
        if w is not None:
            kwargs["weights"] = w
        self.calibrator_ = fn(S, target, **kwargs)
        self._binary_matrix = binary and S.ndim == 2
        return self

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Calibrated class probabilities, columns in the order of ``classes_``."""
        check_is_fitted(self, "calibrator_")
        binary = len(self.classes_) == 2
        kind = METHODS[self.method][1]
        S = _scores(self.estimator_, X, kind, binary)
        if self._binary_matrix:
            S = np.column_stack([1 - S, S]) if kind == "prob" else np.column_stack([np.zeros_like(S), S])
        Q = np.asarray(self.calibrator_.predict(S), dtype=np.float64)
        if Q.ndim == 1:
            Q = np.column_stack([1 - Q, Q])
        return Q

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class with the largest calibrated probability."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else np.asarray(X)[idx]
