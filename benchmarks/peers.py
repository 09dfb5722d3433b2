"""The tools users would otherwise pick, each wrapped as ``{label: zero-argument fit}``.

Every peer is optional: when it is not importable its contenders are simply absent.
"""

import importlib

import numpy as np

LAMBDA_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1]


def _have(module):
    try:
        importlib.import_module(module)
        return True
    except Exception:
        return False


def available():
    return [m for m in ("dirichletcal", "netcal", "mapie", "sklearn", "venn_abers") if _have(m)]


def dirichlet(p, y, lam):
    """dirichletcal's FullDirichletCalibrator: fixed lambda, or GridSearchCV over probcal's grid."""
    if not _have("dirichletcal"):
        return {}
    from dirichletcal import FullDirichletCalibrator

    if lam is not None:
        return {"dirichletcal.FullDirichletCalibrator": lambda: FullDirichletCalibrator(reg_lambda=lam).fit(p, y)}
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    def search():
        cv = StratifiedKFold(3, shuffle=False)
        return GridSearchCV(FullDirichletCalibrator(), {"reg_lambda": LAMBDA_GRID}, cv=cv,
                            scoring="neg_log_loss").fit(p, y)

    return {"dirichletcal + GridSearchCV(3 folds)": search}


def temperature(p, y):
    if not _have("netcal"):
        return {}
    from netcal.scaling import TemperatureScaling

    return {"netcal.TemperatureScaling": lambda: TemperatureScaling().fit(p, y)}


def passthrough(k=2):
    """A fitted sklearn 'classifier' of ``k`` classes whose decision function is its input:
    the single column for ``k = 2`` (a binary score), the ``n x k`` matrix of logits otherwise."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Passthrough(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.arange(k)
            return self

        def decision_function(self, X):
            X = np.asarray(X)
            return X[:, 0] if k == 2 else X

        def predict(self, X):
            d = self.decision_function(X)
            return (d > 0).astype(int) if k == 2 else self.classes_[d.argmax(axis=1)]

    return Passthrough().fit(None, None)


def sklearn_calibration(x, y, method):
    if not _have("sklearn"):
        return {}
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    X = np.asarray(x, dtype=float)[:, None]
    label = f"sklearn CalibratedClassifierCV({method})"
    return {label: lambda: CalibratedClassifierCV(FrozenEstimator(passthrough()), method=method).fit(X, y)}


def sklearn_temperature(z, y):
    """scikit-learn's multiclass temperature scaling on logits ``z`` (0-based labels ``y``):
    ``CalibratedClassifierCV(FrozenEstimator(passthrough), method="temperature")`` with a
    fitted classifier whose decision function is its input."""
    if not _have("sklearn"):
        return {}
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    frozen = FrozenEstimator(passthrough(np.asarray(z).shape[1]))
    label = "sklearn CalibratedClassifierCV(temperature)"
    return {label: lambda: CalibratedClassifierCV(frozen, method="temperature").fit(z, y)}


def ece(p, y):
    out = {}
    if _have("netcal"):
        from netcal.metrics import ECE

        out["netcal.metrics.ECE"] = lambda: ECE(bins=10).measure(p, y)
    if _have("mapie"):
        from mapie.metrics.calibration import top_label_ece

        out["mapie top_label_ece"] = lambda: top_label_ece(y, p, num_bins=10)
    return out


def calibration_test(name, conf, correct):
    if not _have("mapie"):
        return {}
    from mapie.metrics import calibration as mc

    fn = {"cal_ks_test": mc.kolmogorov_smirnov_p_value, "cal_kuiper_test": mc.kuiper_p_value,
          "cal_spiegelhalter_test": mc.spiegelhalter_p_value}[name]
    return {f"mapie {fn.__name__}": lambda: fn(correct, conf)}


def _prob_passthrough():
    """A fitted binary sklearn 'classifier' whose probability of class 1 is its single input column."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class ProbPassthrough(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def predict_proba(self, X):
            s = np.asarray(X, dtype=float)[:, 0]
            return np.column_stack([1 - s, s])

    return ProbPassthrough().fit(None, None)


def venn_abers(p, y, pt):
    """Inductive Venn-Abers, fitted on ``(p, y)`` and applied to ``pt`` (each returns the
    merged test probabilities): venn-abers' ``VennAbers`` and MAPIE's ``VennAbersCalibrator``
    on a pass-through classifier (``cv="prefit"``)."""
    out = {}
    P, PT = np.column_stack([1 - p, p]), np.column_stack([1 - pt, pt])
    if _have("venn_abers"):
        import warnings

        from venn_abers.venn_abers import VennAbers

        def va():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # its nanmin over all-NaN slices, by design
                return VennAbers().fit(P, y).predict_proba(PT)[0][:, 1]

        out["venn-abers VennAbers"] = va
    if _have("mapie"):
        try:
            from mapie.calibration import VennAbersCalibrator
        except ImportError:  # MAPIE < 1.2 has no Venn-Abers
            return out

        def mapie_va():
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cal = VennAbersCalibrator(estimator=_prob_passthrough(), cv="prefit").fit(p[:, None], y)
                return cal.predict_proba(pt[:, None])[:, 1]

        out["MAPIE VennAbersCalibrator(prefit)"] = mapie_va
    return out
