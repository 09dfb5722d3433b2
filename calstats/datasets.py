"""Real classifier outputs bundled with calstats, for examples, vignettes and the CLI.

All three datasets come from the same source: the UCI "Optical Recognition of Handwritten
Digits" data (E. Alpaydin and C. Kaynak, 1998; https://doi.org/10.24432/C50P49), in the
copy bundled with scikit-learn (``sklearn.datasets.load_digits``: 1797 images of 8x8
pixels, digits 0-9, about 180 per class). The UCI data are licensed under CC BY 4.0.

Every prediction is **out-of-fold**: 5-fold stratified cross-validation with a fixed seed,
so the model that scored a row never saw it, as for a real held-out set. The script
``scripts/make_digits_data.py`` in the calstats repository regenerates the files
(scikit-learn is needed only there).

The R package probcal ships no data; these loaders have no R equivalent.
"""

from functools import lru_cache
from importlib import resources

import pandas as pd

from ._validate import check_dataset_model

__all__ = ["load_digits_probs", "load_digits_svm", "load_digits_binary", "DIGITS"]

#: The class labels of the digits data, in order.
DIGITS = list(range(10))
_MODELS = ("naive_bayes", "forest")


@lru_cache(maxsize=None)
def _read(name):
    with resources.files(__package__).joinpath("data", name).open("rb") as fh:
        return pd.read_csv(fh, compression="gzip")


def _digit_factor(values):
    return pd.Categorical(values, categories=DIGITS)


def load_digits_probs(model: str = "naive_bayes") -> pd.DataFrame:
    """Out-of-fold class probabilities of a digit classifier (10 classes).

    Parameters
    ----------
    model : {"naive_bayes", "forest"}
        ``"naive_bayes"``: Gaussian naive Bayes on the 64 pixel values (accuracy about
        0.85; typically overconfident, many probabilities exactly 0 or 1).
        ``"forest"``: a random forest of 50 trees (accuracy about 0.97; underconfident,
        probabilities are multiples of 1/50).

    Returns
    -------
    pandas.DataFrame
        1797 rows. ``label``: the true digit, a pandas Categorical with categories 0-9
        (usable directly as ``y`` of the multiclass calibrators; class *k* is column
        ``p_k``). ``p_0`` .. ``p_9``: the predicted probabilities (float64; every row
        sums to 1 within 1e-9).

    Notes
    -----
    Made by ``sklearn.model_selection.cross_val_predict(..., method="predict_proba")``
    with ``StratifiedKFold(5, shuffle=True)`` and fixed seeds (see
    ``scripts/make_digits_data.py``). Source: UCI optical digits via scikit-learn,
    CC BY 4.0 (module docstring).

    Examples
    --------
    >>> from calstats.datasets import load_digits_probs
    >>> d = load_digits_probs()
    >>> p, y = d.filter(like="p_"), d["label"]
    """
    check_dataset_model(model, _MODELS)
    d = _read("digits_probs.csv.gz")
    d = d.loc[d["model"] == model].drop(columns="model").reset_index(drop=True)
    d["label"] = _digit_factor(d["label"])
    return d


def load_digits_svm() -> pd.DataFrame:
    """Out-of-fold one-vs-rest scores of a linear support vector machine (10 classes).

    Returns
    -------
    pandas.DataFrame
        1797 rows. ``label``: the true digit (pandas Categorical, categories 0-9);
        ``s_0`` .. ``s_9``: the decision value of the "digit *k* against the rest" linear
        SVM (unbounded real scores, positive when the SVM votes for *k*). These are not
        probabilities: calibrate them with ``cal_ovr(method="platt")``, or treat them as
        logits for ``cal_temperature`` / ``cal_vector_scaling``.

    Notes
    -----
    ``LinearSVC(C=0.1)`` on standardised pixels, ``cross_val_predict(...,
    method="decision_function")``, 5 stratified folds, fixed seeds
    (``scripts/make_digits_data.py``). Source: UCI optical digits via scikit-learn,
    CC BY 4.0.
    """
    d = _read("digits_svm.csv.gz").copy()
    d["label"] = _digit_factor(d["label"])
    return d


def load_digits_binary() -> pd.DataFrame:
    """A binary problem from the digits data: "is this digit a 3?".

    Returns
    -------
    pandas.DataFrame
        1797 rows (183 positives). ``label``: 1 for a 3, 0 otherwise (int64; the ``y`` of
        the binary calibrators); ``digit``: the true digit (Categorical, categories 0-9);
        ``p``: the out-of-fold probability of "3" from a Gaussian naive Bayes classifier
        fitted to the binary problem (overconfident, many values at 0 or 1);
        ``score``: the out-of-fold decision value of a linear SVM, 3 against the rest
        (an unbounded score, for ``cal_platt`` or binary ``cal_temperature``).

    Notes
    -----
    Made like :func:`load_digits_probs` and :func:`load_digits_svm`, with the binary target
    (``scripts/make_digits_data.py``). Source: UCI optical digits via scikit-learn,
    CC BY 4.0.
    """
    d = _read("digits_binary.csv.gz").copy()
    d["digit"] = _digit_factor(d["digit"])
    return d
