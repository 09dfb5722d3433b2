"""The scikit-learn adapter's messages (:mod:`calstats.sklearn`, ``CalibratedClassifier``).

They raise the builtin exceptions scikit-learn's conventions ask of an estimator (its
estimator checks catch them by type): ``ValueError`` for a bad parameter or bad data,
``TypeError`` for a parameter of the wrong type, ``ImportError`` without scikit-learn.
The words name the estimator's parameters (``method``, ``cv``, ``method_params``,
``sample_weight``), not calstats' arguments.
"""

from typing import NoReturn


def fail_adapter_needs_sklearn(exc) -> NoReturn:
    """``import calstats.sklearn`` without scikit-learn (``exc``: the failed import)."""
    raise ImportError("calstats.sklearn needs scikit-learn: pip install 'calstats[sklearn]' "
                      "(or pip install scikit-learn)") from exc


def fail_adapter_method(method, methods) -> NoReturn:
    """``method`` that is none of ``methods``."""
    raise ValueError(f"method must be one of {', '.join(map(repr, methods))}; got {method!r}") from None


def fail_adapter_cv(cv) -> NoReturn:
    raise ValueError("cv must be 'prefit', an integer >= 2, a cross-validation splitter or an "
                     f"iterable of (train, test) index arrays; got {cv!r}") from None


def fail_adapter_method_params_type(params) -> NoReturn:
    raise TypeError(f"method_params must be a dict or None; got {type(params).__name__}") from None


def fail_adapter_method_params_weights() -> NoReturn:
    raise ValueError("method_params must not hold 'weights'; pass case weights as "
                     "fit(X, y, sample_weight=...)") from None


def fail_adapter_method_params_key(key, allowed, function, method, inner=None) -> NoReturn:
    """A key of ``method_params`` that is no parameter of the calstats ``function`` behind
    ``method`` (``inner``: cal_ovr's base method with ``method='ovr'``); ``allowed``: those it takes."""
    where = (f"calstats.cal_ovr with method={inner!r} (method='ovr')" if inner is not None
             else f"calstats.{function} (method={method!r})")
    raise ValueError(f"method_params key {key!r} is not a parameter of {where}; "
                     f"it takes: {', '.join(allowed) or 'no options'}") from None


def fail_adapter_folds(uncovered, n) -> NoReturn:
    """Test folds of ``cv`` that leave ``uncovered`` of ``n`` rows out or hold them twice."""
    raise ValueError("the test folds of cv must hold every row exactly once, in at least two folds "
                     f"(out-of-fold scores); {uncovered} of {n} rows are not in exactly one test fold") from None


def fail_adapter_sample_weight_shape(shape, n) -> NoReturn:
    raise ValueError(f"sample_weight has shape {shape}; expected ({n},)") from None


def fail_adapter_one_class(classes) -> NoReturn:
    """Fewer than two classes (``classes``: those there are)."""
    k = len(classes)
    raise ValueError(f"y holds {k} class{'' if k == 1 else 'es'} ({', '.join(map(repr, classes))}); calibration "
                     "needs at least two classes") from None


def fail_adapter_binary_only(method, k) -> NoReturn:
    """A two-class method given ``k`` classes."""
    raise ValueError(f"Only binary classification is supported by method {method!r}: it needs two "
                     f"classes and y has {k}; use method='ovr' with method_params={{'method': {method!r}}}") from None


def fail_adapter_no_predict_proba(estimator) -> NoReturn:
    raise ValueError(f"estimator must have predict_proba; {type(estimator).__name__} has not") from None


def fail_adapter_weight_one_class() -> NoReturn:
    raise ValueError("sample_weight is positive for the rows of one class only; calibration needs "
                     "two classes of positive weight") from None


def fail_adapter_fold_class() -> NoReturn:
    """A training fold without one of the classes."""
    raise ValueError("every class must occur in every training fold; lower cv") from None


def fail_adapter_unknown_class() -> NoReturn:
    raise ValueError("y holds a class the estimator does not know") from None
