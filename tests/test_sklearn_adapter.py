"""calstats.sklearn.CalibratedClassifier: a scikit-learn estimator around calstats methods."""

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import cross_val_score, train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import calstats  # noqa: E402
from calstats.sklearn import CalibratedClassifier  # noqa: E402
from calstats._internals import probs_to_logits


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    keep = y < 4  # 4 classes keep the fits quick
    return X[keep], y[keep]


def test_prefit_matches_calstats(digits):
    X, y = digits
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    nb = GaussianNB().fit(Xa, ya)
    clf = CalibratedClassifier(nb, method="vector", cv="prefit").fit(Xb, yb)
    P0 = nb.predict_proba(Xb)
    Z = probs_to_logits(P0 / P0.sum(axis=1, keepdims=True))  # the adapter's logits: log(clip(p))
    ref = calstats.cal_vector_scaling(Z, yb + 1)
    np.testing.assert_allclose(clf.calibrator_.scale, ref.scale, rtol=1e-12)
    P = clf.predict_proba(Xb)
    np.testing.assert_allclose(P, ref.predict(Z).to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert list(clf.classes_) == [0, 1, 2, 3]
    assert (clf.predict(Xb) == clf.classes_[P.argmax(axis=1)]).all()
    # calibration helps the overconfident naive Bayes on its calibration data
    assert calstats.ece(P, yb + 1, type="confidence") < calstats.ece(nb.predict_proba(Xb), yb + 1, type="confidence")


def test_cv_pipeline_and_cross_val_score(digits):
    X, y = digits
    pipe = make_pipeline(StandardScaler(), CalibratedClassifier(GaussianNB(), method="dirichlet", cv=3,
                                                                lambda_=0.01))
    scores = cross_val_score(pipe, X, y, cv=3, scoring="neg_log_loss")
    assert scores.shape == (3,) and np.all(scores > -1.0)


def test_string_labels_binary_methods(digits):
    X, y = digits
    labels = np.where(y == 3, "three", "other")
    for method in ("platt", "beta", "isotonic", "histogram", "temperature", "dirichlet"):
        clf = CalibratedClassifier(GaussianNB(), method=method, cv=3).fit(X, labels)
        P = clf.predict_proba(X)
        assert P.shape == (len(X), 2)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        assert set(clf.predict(X)) <= {"other", "three"}
        assert list(clf.classes_) == ["other", "three"]


def test_params_and_clone():
    clf = CalibratedClassifier(GaussianNB(), method="histogram", cv=4, bins=7)
    params = clf.get_params()
    assert params["bins"] == 7 and params["method"] == "histogram" and params["cv"] == 4
    other = clone(clf)
    assert other.get_params()["bins"] == 7 and other is not clf
    clf.set_params(bins=5, cv=3)
    assert clf.get_params()["bins"] == 5 and clf.cv == 3


def test_errors(digits):
    X, y = digits
    with pytest.raises(ValueError, match="method must be one of"):
        CalibratedClassifier(GaussianNB(), method="magic").fit(X, y)
    with pytest.raises(ValueError, match="needs two classes"):
        CalibratedClassifier(GaussianNB(), method="platt", cv=2).fit(X, y)
    with pytest.raises(ValueError, match="cv must be"):
        CalibratedClassifier(GaussianNB(), cv=1).fit(X, y)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        CalibratedClassifier(GaussianNB(), cv="prefit").fit(X, y)
    with pytest.raises(calstats.CalstatsError, match="lambda"):
        CalibratedClassifier(GaussianNB(), method="dirichlet", cv=2, lambda_=-1).fit(X, y)
