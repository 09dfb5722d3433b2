"""calstats.sklearn.CalibratedClassifier: a scikit-learn estimator around calstats methods."""

import warnings

import numpy as np
import pandas as pd
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict, cross_val_score, train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import calstats  # noqa: E402
from calstats.kernels.probs import probs_to_logits  # noqa: E402
from calstats.sklearn import CalibratedClassifier  # noqa: E402

SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


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
    assert clf.estimator_ is nb and clf.n_features_in_ == X.shape[1]
    assert (clf.predict(Xb) == clf.classes_[P.argmax(axis=1)]).all()
    # calibration helps the overconfident naive Bayes on its calibration data
    assert calstats.ece(P, yb + 1, type="confidence") < calstats.ece(nb.predict_proba(Xb), yb + 1, type="confidence")


def test_out_of_fold_scores_and_method_params_reach_calstats(digits):
    X, y = digits
    clf = CalibratedClassifier(GaussianNB(), method="dirichlet", cv=3, method_params={"lambda_": 0.01}).fit(X, y)
    # the calibrator is fitted on stratified out-of-fold probabilities, with the given lambda
    P = cross_val_predict(GaussianNB(), X, y, cv=StratifiedKFold(3), method="predict_proba")
    ref = calstats.cal_dirichlet(P / P.sum(axis=1, keepdims=True), pd.Categorical(y, categories=range(4)),
                                 lambda_=0.01)
    np.testing.assert_allclose(clf.calibrator_.weight, ref.weight, rtol=1e-12)
    np.testing.assert_allclose(clf.calibrator_.bias, ref.bias, rtol=1e-12)
    assert clf.calibrator_.lambda_ == ref.lambda_ == 0.01
    default = CalibratedClassifier(GaussianNB(), method="dirichlet", cv=3).fit(X, y)
    assert not np.allclose(default.calibrator_.weight, clf.calibrator_.weight)
    # the estimator is then refitted on all the rows
    np.testing.assert_array_equal(clf.estimator_.theta_, GaussianNB().fit(X, y).theta_)


def test_cv_splitter_and_iterable_match_integer_cv(digits):
    X, y = digits
    by_int = CalibratedClassifier(GaussianNB(), method="temperature", cv=3).fit(X, y)
    by_splitter = CalibratedClassifier(GaussianNB(), method="temperature", cv=StratifiedKFold(3)).fit(X, y)
    splits = list(StratifiedKFold(3).split(X, y))
    by_list = CalibratedClassifier(GaussianNB(), method="temperature", cv=splits).fit(X, y)
    for other in (by_splitter, by_list):
        assert other.calibrator_.temperature == by_int.calibrator_.temperature
        np.testing.assert_array_equal(other.predict_proba(X), by_int.predict_proba(X))
    # random_state shuffles the integer folds
    shuffled = CalibratedClassifier(GaussianNB(), method="temperature", cv=3, random_state=0).fit(X, y)
    assert shuffled.calibrator_.temperature != by_int.calibrator_.temperature
    splits = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    same = CalibratedClassifier(GaussianNB(), method="temperature", cv=splits).fit(X, y)
    assert same.calibrator_.temperature == shuffled.calibrator_.temperature


@pytest.mark.filterwarnings("ignore:glm.fit:calstats.CalstatsWarning")  # beta on naive Bayes' extreme scores
def test_ovr_takes_its_binary_method_and_options(digits):
    X, y = digits
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    nb = GaussianNB().fit(Xa, ya)
    P0 = nb.predict_proba(Xb)
    P0 = P0 / P0.sum(axis=1, keepdims=True)
    target = pd.Categorical(yb, categories=range(4))
    for params in ({"method": "isotonic"}, {"method": "hist", "bins": 5}, {"method": "beta", "eps": 1e-10}):
        clf = CalibratedClassifier(nb, method="ovr", cv="prefit", method_params=params).fit(Xb, yb)
        ref = calstats.cal_ovr(P0, target, **params)
        assert clf.calibrator_.base_method == ref.base_method != "platt"
        np.testing.assert_allclose(clf.predict_proba(Xb), ref.predict(P0).to_numpy(), rtol=1e-12)
    five = CalibratedClassifier(nb, method="ovr", cv="prefit", method_params={"method": "histogram", "bins": 5})
    ten = CalibratedClassifier(nb, method="ovr", cv="prefit", method_params={"method": "histogram"})
    assert not np.array_equal(five.fit(Xb, yb).predict_proba(Xb), ten.fit(Xb, yb).predict_proba(Xb))


def test_cv_pipeline_and_cross_val_score(digits):
    X, y = digits
    pipe = make_pipeline(StandardScaler(), CalibratedClassifier(GaussianNB(), method="dirichlet", cv=3,
                                                                method_params={"lambda_": 0.01}))
    scores = cross_val_score(pipe, X, y, cv=3, scoring="neg_log_loss")
    assert scores.shape == (3,) and np.all(scores > -1.0)


def test_grid_search_over_method_params(digits):
    X, y = digits
    grid = {"method_params": [{"lambda_": 1e-4}, {"lambda_": 1.0}], "estimator__var_smoothing": [1e-9, 1e-3]}
    search = GridSearchCV(CalibratedClassifier(GaussianNB(), cv=3), grid, cv=2, scoring="neg_log_loss").fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    best = search.best_estimator_
    assert best.method_params in grid["method_params"]
    assert best.calibrator_.lambda_ == best.method_params["lambda_"]
    assert best.estimator_.var_smoothing == search.best_params_["estimator__var_smoothing"]


def test_dataframe_reaches_the_estimator_unchanged(digits):
    X, y = digits
    df = pd.DataFrame(X[:, :8], columns=[f"px{i}" for i in range(8)])
    # a column transformer that selects by name needs the DataFrame itself
    est = make_pipeline(make_column_transformer((StandardScaler(), ["px2", "px3", "px5"])),
                        LogisticRegression(max_iter=500))
    clf = CalibratedClassifier(est, method="temperature", cv=3).fit(df, y)
    assert clf.n_features_in_ == 8
    assert list(clf.feature_names_in_) == list(df.columns)
    np.testing.assert_allclose(clf.predict_proba(df).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="columns are missing"):
        clf.predict_proba(df.drop(columns="px3"))


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
    clf = CalibratedClassifier(GaussianNB(), method="histogram", cv=4, method_params={"bins": 7})
    params = clf.get_params(deep=False)
    assert params == {"estimator": clf.estimator, "method": "histogram", "cv": 4, "random_state": None,
                      "method_params": {"bins": 7}}
    assert clf.get_params()["estimator__var_smoothing"] == 1e-9
    other = clone(clf)
    assert other.get_params()["method_params"] == {"bins": 7} and other is not clf
    assert other.estimator is not clf.estimator
    clf.set_params(method_params={"bins": 5}, cv=3, estimator__var_smoothing=1e-6)
    assert clf.method_params == {"bins": 5} and clf.cv == 3 and clf.estimator.var_smoothing == 1e-6
    # __init__ stores its arguments as given, even bad ones: fit checks them
    bad = CalibratedClassifier("not an estimator", method=-1, cv="magic", method_params=[1])
    assert (bad.estimator, bad.method, bad.cv, bad.method_params) == ("not an estimator", -1, "magic", [1])


@pytest.mark.skipif(SKLEARN_VERSION < (1, 6), reason="estimator tags (get_tags) are scikit-learn >= 1.6")
def test_tags_follow_method_and_estimator():
    from sklearn.utils import get_tags

    assert get_tags(CalibratedClassifier(GaussianNB(), method="platt")).classifier_tags.multi_class is False
    assert get_tags(CalibratedClassifier(GaussianNB(), method="ovr")).classifier_tags.multi_class is True
    assert get_tags(CalibratedClassifier(LogisticRegression())).input_tags.sparse is True
    assert get_tags(CalibratedClassifier(GaussianNB())).input_tags.sparse is False


def test_errors(digits):
    X, y = digits
    with pytest.raises(ValueError, match="method must be one of 'dirichlet', "):
        CalibratedClassifier(GaussianNB(), method="magic").fit(X, y)
    with pytest.raises(ValueError, match=r"Only binary classification is supported by method 'platt': it needs two "
                                         r"classes and y has 4; use method='ovr' with "
                                         r"method_params=\{'method': 'platt'\}"):
        CalibratedClassifier(GaussianNB(), method="platt", cv=2).fit(X, y)
    for cv in (1, True, "folds", 2.5):
        with pytest.raises(ValueError, match=r"cv must be 'prefit', an integer >= 2, a cross-validation splitter"):
            CalibratedClassifier(GaussianNB(), cv=cv).fit(X, y)
    with pytest.raises(NotFittedError):
        CalibratedClassifier(GaussianNB(), cv="prefit").fit(X, y)
    with pytest.raises(NotFittedError):
        CalibratedClassifier(GaussianNB()).predict(X)
    with pytest.raises(calstats.CalstatsError, match="lambda"):
        CalibratedClassifier(GaussianNB(), method="dirichlet", cv=2, method_params={"lambda_": -1}).fit(X, y)


def test_method_params_errors(digits):
    X, y = digits
    with pytest.raises(TypeError, match="method_params must be a dict or None; got list"):
        CalibratedClassifier(GaussianNB(), method_params=[("lambda_", 0.1)]).fit(X, y)
    with pytest.raises(ValueError, match=r"method_params key 'bins' is not a parameter of calstats\.cal_dirichlet "
                                         r"\(method='dirichlet'\); it takes: lambda_, eps"):
        CalibratedClassifier(GaussianNB(), method_params={"bins": 5}).fit(X, y)
    with pytest.raises(ValueError, match=r"method_params key 'p' is not a parameter of calstats\.cal_beta"):
        CalibratedClassifier(GaussianNB(), method="beta", method_params={"p": X}).fit(X, y == 1)
    with pytest.raises(ValueError, match=r"method_params key 'lambda_' is not a parameter of "
                                         r"calstats\.cal_temperature \(method='temperature'\); it takes: engine"):
        CalibratedClassifier(GaussianNB(), method="temperature", method_params={"lambda_": 1}).fit(X, y)
    with pytest.raises(ValueError, match=r"method_params key 'bins' is not a parameter of calstats\.cal_ovr with "
                                         r"method='platt' \(method='ovr'\); it takes: method$"):
        CalibratedClassifier(GaussianNB(), method="ovr", method_params={"bins": 5}).fit(X, y)
    with pytest.raises(ValueError, match=r"method_params must not hold 'weights'; pass case weights as "
                                         r"fit\(X, y, sample_weight=\.\.\.\)"):
        CalibratedClassifier(GaussianNB(), method_params={"weights": np.ones(len(y))}).fit(X, y)
    # an unknown ovr method is left to calstats' own message
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        CalibratedClassifier(GaussianNB(), method="ovr", cv=2, method_params={"method": "magic"}).fit(X, y)


def test_data_errors(digits):
    X, y = digits
    with pytest.raises(ValueError, match=r"y holds 1 class \(2\); calibration needs at least two classes"):
        CalibratedClassifier(GaussianNB()).fit(X[y == 2], y[y == 2])
    with pytest.raises(ValueError, match="Unknown label type"):
        CalibratedClassifier(GaussianNB()).fit(X, y + 0.5 * (np.arange(len(y)) % 2))
    with pytest.raises(ValueError, match="estimator must have predict_proba; LinearSVC has not"):
        CalibratedClassifier(LinearSVC()).fit(X, y)
    lone = y.copy()
    lone[0] = 9  # a class of one row: missing from the training data of one fold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # StratifiedKFold's "least populated class"
        with pytest.raises(ValueError, match="every class must occur in every training fold; lower cv"):
            CalibratedClassifier(GaussianNB(), cv=3).fit(X, lone)
    nb = GaussianNB().fit(X, y)
    for labels in (lone, y.astype(str)):
        with pytest.raises(ValueError, match="y holds a class the estimator does not know"):
            CalibratedClassifier(nb, cv="prefit").fit(X, labels)
    with pytest.raises(ValueError, match=r"the test folds of cv must hold every row exactly once, in at least two "
                                         r"folds \(out-of-fold scores\); 1 of \d+ rows are not in exactly one"):
        splits = list(StratifiedKFold(3).split(X, y))
        splits[0] = (splits[0][0], splits[0][1][1:])
        CalibratedClassifier(GaussianNB(), cv=splits).fit(X, y)


def test_sample_weight_errors(digits):
    X, y = digits
    w = np.ones(len(y))
    with pytest.raises(ValueError, match=r"sample_weight has shape \(\d+, 2\); expected"):
        CalibratedClassifier(GaussianNB()).fit(X, y, sample_weight=np.ones((len(y), 2)))
    with pytest.raises(ValueError, match="Argument `sample_weight` must not be all zero"):
        CalibratedClassifier(GaussianNB()).fit(X, y, sample_weight=0 * w)
    with pytest.raises(ValueError, match="Argument `sample_weight` must be non-negative"):
        CalibratedClassifier(GaussianNB()).fit(X, y, sample_weight=np.where(y == 1, -1.0, 1.0))
    with pytest.raises(ValueError, match="sample_weight is positive for the rows of one class only; calibration "
                                         "needs two classes of positive weight"):
        CalibratedClassifier(GaussianNB()).fit(X, y, sample_weight=(y == 1).astype(float))


# -- scikit-learn's estimator checks ---------------------------------------------------------

ESTIMATOR_CHECK_INSTANCES = [
    CalibratedClassifier(LogisticRegression(), method="temperature", cv=3),
    CalibratedClassifier(LogisticRegression(), method="dirichlet", cv=3),
    # two classes only: the multi_class tag is False, so the checks give it two-class data
    # and check that it refuses more classes
    CalibratedClassifier(LogisticRegression(), method="platt", cv=3),
    CalibratedClassifier(GaussianNB(), method="ovr", cv=3, method_params={"method": "isotonic"}),
    CalibratedClassifier(GaussianNB(), method="vector", cv=3),
]

#: check name -> why the instance cannot pass it, per instance (by its method). All five
#: instances pass every check of scikit-learn 1.9; xfail_strict makes an entry that starts
#: passing fail, so the table cannot go stale. (check_array_api_input is skipped by
#: scikit-learn itself unless SCIPY_ARRAY_API=1; it passes with it.)
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "temperature": {},
    "dirichlet": {},
    "platt": {},
    "ovr": {},
    "vector": {},
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS[estimator.method]


if SKLEARN_VERSION >= (1, 8):  # expected_failed_checks: 1.6; xfail_strict: 1.8
    @parametrize_with_checks(ESTIMATOR_CHECK_INSTANCES, expected_failed_checks=_expected_failed_checks,
                             xfail_strict=True)
    def test_sklearn_estimator_checks(estimator, check):
        check(estimator)
else:  # pragma: no cover - older scikit-learn
    @pytest.mark.skip(reason="the estimator checks here need scikit-learn >= 1.8")
    def test_sklearn_estimator_checks():
        pass
