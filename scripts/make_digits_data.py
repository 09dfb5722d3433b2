"""Regenerate the bundled digits datasets in ``calstats/data/``.

Usage (from the repository root; needs scikit-learn, which calstats itself does not)::

    .venv/bin/python scripts/make_digits_data.py

The source is scikit-learn's copy of the test set of the UCI "Optical Recognition of
Handwritten Digits" data (Alpaydin & Kaynak, 1998; 1797 images of 8x8 pixels, licence
CC BY 4.0). Every number written is an **out-of-fold** prediction: 5-fold stratified
cross-validation with fixed seeds, so each row's prediction comes from a model that did not
see that row. The output is deterministic for a given scikit-learn/NumPy version.

Files written:

``digits_probs.csv.gz``
    ``label`` (the digit, 0-9), ``model`` (``naive_bayes`` or ``forest``) and ``p_0`` ..
    ``p_9``: class probabilities of a Gaussian naive Bayes classifier (overconfident) and of
    a 50-tree random forest (underconfident). 2 x 1797 rows.
``digits_svm.csv.gz``
    ``label`` and ``s_0`` .. ``s_9``: one-vs-rest decision values of a linear support vector
    machine on standardised pixels (uncalibrated scores, not probabilities).
``digits_binary.csv.gz``
    "Is it a 3?": ``label`` (1 for a 3, else 0), ``digit`` (0-9), ``p`` (the naive Bayes
    probability of class 3 from a binary naive Bayes fit) and ``score`` (the decision value
    of a binary linear SVM, 3 against the rest).
"""

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

OUT = Path(__file__).resolve().parent.parent / "calstats" / "data"
SEED = 20240607
FOLDS = 5


def _folds():
    return StratifiedKFold(FOLDS, shuffle=True, random_state=SEED)


def _svm():
    return make_pipeline(StandardScaler(), LinearSVC(C=0.1, max_iter=50_000, random_state=SEED))


def _write(frame, name, float_format):
    """Write a gzip'd CSV whose bytes depend only on the data (mtime 0 in the gzip header)."""
    text = frame.to_csv(index=False, float_format=float_format, lineterminator="\n")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("ascii"))
    (OUT / name).write_bytes(buf.getvalue())
    print(f"wrote {OUT / name} ({len(buf.getvalue()) / 1024:.0f} KiB, {len(frame)} rows)")


def main():
    X, y = load_digits(return_X_y=True)
    OUT.mkdir(parents=True, exist_ok=True)
    classes = [str(d) for d in range(10)]

    # 1. class probabilities of two classifiers
    frames = []
    models = {
        "naive_bayes": GaussianNB(),
        "forest": RandomForestClassifier(n_estimators=50, random_state=SEED),
    }
    for name, est in models.items():
        P = cross_val_predict(est, X, y, cv=_folds(), method="predict_proba")
        P = P / P.sum(axis=1, keepdims=True)
        frame = pd.DataFrame(P, columns=[f"p_{c}" for c in classes])
        frame.insert(0, "model", name)
        frame.insert(0, "label", y)
        frames.append(frame)
    probs = pd.concat(frames, ignore_index=True)
    # 12 significant digits: every row still sums to 1 within 1e-10 after the round trip.
    _write(probs, "digits_probs.csv.gz", "%.12g")
    back = pd.read_csv(OUT / "digits_probs.csv.gz")
    assert np.abs(back.filter(like="p_").sum(axis=1) - 1).max() < 1e-9

    # 2. one-vs-rest linear SVM scores
    S = cross_val_predict(_svm(), X, y, cv=_folds(), method="decision_function")
    svm = pd.DataFrame(S, columns=[f"s_{c}" for c in classes])
    svm.insert(0, "label", y)
    _write(svm, "digits_svm.csv.gz", "%.8g")

    # 3. binary: is it a 3?
    t = (y == 3).astype(int)
    p = cross_val_predict(GaussianNB(), X, t, cv=_folds(), method="predict_proba")[:, 1]
    score = cross_val_predict(_svm(), X, t, cv=_folds(), method="decision_function")
    binary = pd.DataFrame({"label": t, "digit": y, "p": p, "score": score})
    _write(binary, "digits_binary.csv.gz", "%.12g")


if __name__ == "__main__":
    main()
