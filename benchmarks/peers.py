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
    return [m for m in ("dirichletcal", "netcal", "mapie", "sklearn") if _have(m)]


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


def _passthrough():
    """A fitted sklearn 'classifier' whose decision function is its single input column."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Passthrough(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X):
            return np.asarray(X)[:, 0]

        def predict(self, X):
            return (self.decision_function(X) > 0).astype(int)

    return Passthrough().fit(None, None)


def sklearn_calibration(x, y, method):
    if not _have("sklearn"):
        return {}
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    X = np.asarray(x, dtype=float)[:, None]
    label = f"sklearn CalibratedClassifierCV({method})"
    return {label: lambda: CalibratedClassifierCV(FrozenEstimator(_passthrough()), method=method).fit(X, y)}


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
