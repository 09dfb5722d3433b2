"""The bundled digits datasets (calstats/datasets.py, calstats/data/*.csv.gz)."""

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import datasets


@pytest.mark.parametrize("model", ["naive_bayes", "forest"])
def test_digits_probs(model):
    d = datasets.load_digits_probs(model)
    assert d.shape == (1797, 11)
    assert list(d.columns) == ["label"] + [f"p_{k}" for k in range(10)]
    assert isinstance(d["label"].dtype, pd.CategoricalDtype)
    assert list(d["label"].cat.categories) == list(range(10))
    assert d["label"].value_counts().min() >= 170  # about 180 per digit
    P = d.filter(like="p_").to_numpy()
    assert P.dtype == np.float64 and ((P >= 0) & (P <= 1)).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)
    acc = (P.argmax(axis=1) == d["label"].to_numpy().astype(int)).mean()
    assert (0.8 < acc < 0.9) if model == "naive_bayes" else (acc > 0.95)
    # usable as they come: a calstats validator accepts them
    calstats.ece(d.filter(like="p_"), d["label"])


def test_digits_probs_bad_model():
    with pytest.raises(ValueError, match="naive_bayes"):
        datasets.load_digits_probs("svm")


def test_digits_models_differ_in_confidence():
    """naive Bayes is overconfident, the forest underconfident (the point of shipping both)."""
    for model, over in (("naive_bayes", True), ("forest", False)):
        d = datasets.load_digits_probs(model)
        P = d.filter(like="p_").to_numpy()
        conf = P.max(axis=1).mean()
        acc = (P.argmax(axis=1) == d["label"].to_numpy().astype(int)).mean()
        assert (conf > acc) == over


def test_digits_svm():
    d = datasets.load_digits_svm()
    assert d.shape == (1797, 11)
    assert list(d.columns) == ["label"] + [f"s_{k}" for k in range(10)]
    assert list(d["label"].cat.categories) == list(range(10))
    S = d.filter(like="s_").to_numpy()
    assert (S < 0).any() and (S > 1).any()  # scores, not probabilities
    assert (S.argmax(axis=1) == d["label"].to_numpy().astype(int)).mean() > 0.9
    # same images, same order as the probabilities
    assert (d["label"] == datasets.load_digits_probs()["label"]).all()


def test_digits_binary():
    d = datasets.load_digits_binary()
    assert list(d.columns) == ["label", "digit", "p", "score"]
    assert d["label"].dtype == np.int64 and set(d["label"]) == {0, 1}
    assert (d["label"] == (d["digit"].to_numpy().astype(int) == 3)).all()
    assert int(d["label"].sum()) == 183
    assert ((d["p"] >= 0) & (d["p"] <= 1)).all()
    fit = calstats.cal_platt(d["score"].to_numpy(), d["label"].to_numpy())
    assert fit.coefficients["x"] > 0  # a higher SVM score means a 3 is more likely


def test_loaders_return_copies():
    a = datasets.load_digits_svm()
    a.loc[0, "s_0"] = 99.0
    assert datasets.load_digits_svm().loc[0, "s_0"] != 99.0
    b = datasets.load_digits_probs()
    b.loc[0, "p_0"] = 99.0
    assert datasets.load_digits_probs().loc[0, "p_0"] != 99.0


def test_data_files_are_small_and_packaged():
    files = list(resources.files("calstats").joinpath("data").iterdir())
    names = {f.name for f in files}
    assert {"digits_probs.csv.gz", "digits_svm.csv.gz", "digits_binary.csv.gz"} <= names
    assert sum(Path(str(f)).stat().st_size for f in files) < 400_000


def test_lazy_public_name():
    assert calstats.datasets is datasets


def test_docstrings_name_source_and_licence():
    for fn in (datasets.load_digits_probs, datasets.load_digits_svm, datasets.load_digits_binary):
        assert "CC BY 4.0" in fn.__doc__ and "scikit-learn" in fn.__doc__
    assert "UCI" in datasets.__doc__
