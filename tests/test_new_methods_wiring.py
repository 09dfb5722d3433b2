"""Venn-Abers and spline calibration in every front end: cal_compare, the command line, the
scikit-learn adapter and the formula interface give the numbers of the array functions."""

import warnings

import numpy as np
import pandas as pd
import pytest

import calstats
import calstats.formula.api as cf
from calstats import cli
from calstats.calibrators.cv import CalCv, CalCvMulticlass, stratified_folds
from calstats.datasets import load_digits_binary, load_digits_probs


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _binary(n=400, seed=5):
    rs = np.random.default_rng(seed)
    p = rs.uniform(0.02, 0.98, n)
    y = (rs.uniform(size=n) < p ** 1.4).astype(np.int64)
    return p, y


def _multiclass(n=450, seed=6):
    rs = np.random.default_rng(seed)
    z = rs.normal(size=(n, 3)) * 1.5
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.array([rs.choice(3, p=row) for row in np.exp(z / 1.3) / np.exp(z / 1.3).sum(axis=1, keepdims=True)]) + 1
    return P, y


@pytest.mark.parametrize("method,fn", [("venn_abers", calstats.cal_venn_abers), ("spline", calstats.cal_spline)])
def test_compare_binary_fits_each_fold_with_the_array_function(method, fn):
    p, y = _binary()
    cmp = calstats.cal_compare(p, y, methods=[method], folds=4, seed=3)
    fit = cmp.fits[method]
    assert isinstance(fit, CalCv) and fit.calibration_method == method and fit.folds == 4
    fold_id = stratified_folds(y, 4, 3)
    np.testing.assert_array_equal(cmp.fold_id, fold_id)
    expect = np.zeros(p.size)
    for f in range(1, 5):
        train = fold_id != f
        expect[~train] = fn(p[train], y[train]).predict(p[~train])
    np.testing.assert_array_equal(cmp.predictions[method], expect)
    np.testing.assert_array_equal(fit.final_calibrator.predict(p), fn(p, y).predict(p))
    assert cmp.table.loc[method, "log_loss"] == pytest.approx(calstats.log_loss(expect, y), rel=1e-12)


@pytest.mark.parametrize("method", ["venn_abers", "spline"])
def test_compare_multiclass_and_weights(method):
    P, y = _multiclass()
    cmp = calstats.cal_compare(P, y, methods=["temperature", method], folds=3, seed=1)
    assert isinstance(cmp.fits[method], CalCvMulticlass)
    oof = cmp.predictions[method].to_numpy()
    np.testing.assert_allclose(oof.sum(axis=1), 1.0, atol=1e-12)
    w = np.random.default_rng(2).integers(1, 3, y.size).astype(float)
    weighted = calstats.cal_compare(P, y, methods=[method], folds=3, seed=1, weights=w)
    assert not np.allclose(weighted.predictions[method].to_numpy(), oof)


def test_compare_notes_name_the_methods_fitted_on_derived_probabilities():
    p, y = _binary()
    logits = np.log(p / (1 - p))
    cmp = calstats.cal_compare(logits, y, methods=["platt", "venn_abers"], input="logits")
    assert "venn_abers was fitted on probabilities derived from the logits." in cmp.notes


def test_compare_refuses_an_unknown_method_with_the_new_ones_listed():
    p, y = _binary()
    with pytest.raises(calstats.CalstatsError, match="“venn_abers”, “spline”"):
        calstats.cal_compare(p, y, methods=["nope"])


def _run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("method,fn", [("venn_abers", calstats.cal_venn_abers), ("spline", calstats.cal_spline)])
def test_cli_calibrate_binary(capsys, tmp_path, method, fn):
    b = load_digits_binary().iloc[:500]
    f = tmp_path / "b.csv"
    b.to_csv(f, index=False)
    out_csv = tmp_path / "out.csv"
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "label", "--columns", "p", "-m", method,
                            "-o", out_csv)
    assert status == 0, err
    got = pd.read_csv(out_csv)["p"].to_numpy()
    src = pd.read_csv(f)  # the CSV round trip of the probabilities, as the command reads them
    expect = fn(src["p"].to_numpy(), src["label"].to_numpy()).predict(src["p"].to_numpy())
    np.testing.assert_allclose(got, expect, rtol=1e-12, atol=1e-15)


def test_cli_calibrate_multiclass_venn_abers(capsys, tmp_path):
    d = load_digits_probs().iloc[:300].copy()
    d["label"] = d["label"].astype(int)
    f = tmp_path / "m.csv"
    d.to_csv(f, index=False)
    out_csv = tmp_path / "out.csv"
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "label", "-m", "venn_abers", "-o", out_csv)
    assert status == 0, err
    P = pd.read_csv(out_csv).filter(like="p_").to_numpy()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)


def test_cli_compare_accepts_the_new_methods(capsys, tmp_path):
    b = load_digits_binary().iloc[:400]
    f = tmp_path / "b.csv"
    b.to_csv(f, index=False)
    status, out, err = _run(capsys, "compare", "--data", f, "--label", "label", "--columns", "p", "--methods",
                            "venn_abers", "spline", "--no-plot")
    assert status == 0, err
    assert "venn_abers" in out and "spline" in out


def test_cli_help_lists_the_new_methods_but_not_as_ovr_base_methods(capsys):
    cli.main(["calibrate", "--help"])
    out = capsys.readouterr().out
    assert "{beta,dirichlet,histogram,isotonic,ovr,platt,spline,temperature,vector,venn_abers}" in out
    assert "--base-method {platt,beta,isotonic,histogram,temperature}" in out


sklearn = pytest.importorskip("sklearn")


@pytest.mark.parametrize("method,fn", [("venn_abers", calstats.cal_venn_abers), ("spline", calstats.cal_spline)])
def test_sklearn_adapter_prefit_equals_the_calibrator(method, fn):
    from sklearn.linear_model import LogisticRegression

    from calstats.sklearn import CalibratedClassifier

    rs = np.random.default_rng(0)
    X = rs.normal(size=(600, 3))
    y = (X @ [1.5, -1.0, 0.5] + rs.normal(size=600) > 0).astype(int)
    est = LogisticRegression(C=0.01).fit(X[:200], y[:200])
    clf = CalibratedClassifier(est, method=method, cv="prefit").fit(X[200:], y[200:])
    s = est.predict_proba(X[200:])[:, 1]
    expect = fn(s, y[200:]).predict(est.predict_proba(X[:200])[:, 1])
    np.testing.assert_allclose(clf.predict_proba(X[:200])[:, 1], expect, rtol=1e-12)


@pytest.mark.parametrize("method", ["venn_abers", "spline"])
def test_sklearn_adapter_multiclass(method):
    from sklearn.naive_bayes import GaussianNB

    from calstats.sklearn import CalibratedClassifier

    rs = np.random.default_rng(1)
    X = rs.normal(size=(450, 2))
    y = np.where(X[:, 0] > 0.5, "a", np.where(X[:, 1] > 0, "b", "c"))
    clf = CalibratedClassifier(GaussianNB(), method=method, cv=3).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (450, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("name", ["cal_venn_abers", "cal_spline"])
def test_formula_equals_arrays(name):
    p, y = _binary()
    df = pd.DataFrame({"p": p, "y": y})
    fit = getattr(cf, name)("y ~ p", df)
    np.testing.assert_array_equal(np.asarray(fit.predict()), getattr(calstats, name)(p, y).predict(p))
    assert fit.formula == "y ~ p"
