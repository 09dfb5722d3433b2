# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Evidential calibration and the combination of ten classifiers
#
# Xu, Davoine and Denœux (2015, "Evidential multinomial logistic regression for multiclass
# classifier calibration") calibrate each classifier's scores with the one-parameter model
# `softmax(θ s)` and, instead of plugging in the estimate θ̂, keep the whole relative
# likelihood `pl(θ) = L(θ)/L(θ̂)` as a belief function on θ. The predictive *plausibility*
# `pl_s(j)` of class j is then never below the calibrated probability, and the more so the
# fewer calibration rows there are. When ten classifiers trained on data sets of unequal
# size are combined (normalised product of their contour functions, then the class of
# largest plausibility), weakly trained classifiers should count for less.
#
# This vignette repeats the paper's experiment (Section V) on scikit-learn's bundled
# `load_digits` data (1797 handwritten digits, 8×8 pixels, 10 classes) instead of the six
# UCI sets, following the recipe of seed-methods.md B.7:
#
# * a pool of 1000 rows and a test set of 797 rows (stratified), redrawn every round;
# * the pool cut into ten parts whose sizes follow one of three scenarios
#   (S1: all 10 %; S2: five at 15 % and five at 5 %; S3: 40 %, 20 % and eight at 5 %);
# * each part split in halves: one trains a one-vs-rest RBF SVM, the other calibrates it;
# * the ten test predictions are combined by the normalised product, either of the
#   calibrated probabilities (probabilistic) or of the plausibilities (evidential).
#
# `cal_evidential(plausibility="sampling")` is the paper's construction, which depends
# on the order of the classes; `plausibility="upper"` is calstats' order-free variant.
# The exact predictive computation uses a 256-panel quadrature here (error about 1e-5,
# irrelevant for the decisions) for speed. Three rounds by default; set
# `CALSTATS_FULL=1` for the paper's 20.

# %%
import os
import time

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

import calstats

FULL = os.environ.get("CALSTATS_FULL", "0") == "1"
ROUNDS = 20 if FULL else 3
GRID = 1024 if FULL else 256
digits = load_digits()
X_all, y_all = digits.data / 16.0, digits.target
rows = np.arange(len(y_all))
SCENARIOS = {
    "S1": [100] * 10,
    "S2": [150] * 5 + [50] * 5,
    "S3": [400, 200] + [50] * 8,
}
LEVELS = list(range(10))

# %% [markdown]
# ## One round
#
# `run_round` trains and calibrates the ten classifiers of one scenario and returns the
# test accuracy of the three combinations.

# %%
def split_pool(pool, sizes, r):
    parts, rest = [], pool
    for k, size in enumerate(sizes[:-1]):
        take, rest = train_test_split(rest, train_size=size, stratify=y_all[rest], random_state=100 * r + k)
        parts.append(take)
    parts.append(rest)
    return parts


def run_round(sizes, r, checks=False):
    pool, test = train_test_split(rows, train_size=1000, stratify=y_all, random_state=r)
    probs, pls, upps = [], [], []
    for k, part in enumerate(split_pool(pool, sizes, r)):
        fit_rows, cal_rows = train_test_split(part, train_size=0.5, stratify=y_all[part],
                                              random_state=1000 * r + k)
        svm = OneVsRestClassifier(SVC(kernel="rbf", gamma="scale", C=1.0)).fit(X_all[fit_rows], y_all[fit_rows])
        labels = pd.Categorical(y_all[cal_rows], categories=LEVELS)
        cal = calstats.cal_evidential(svm.decision_function(X_all[cal_rows]), labels, grid=GRID)
        upper = calstats.cal_evidential(svm.decision_function(X_all[cal_rows]), labels, grid=GRID,
                                        plausibility="upper")
        s_test = svm.decision_function(X_all[test])
        probs.append(cal.predict(s_test, type="prob"))
        pls.append(cal.predict(s_test))
        upps.append(upper.predict(s_test))
        if checks:  # the evidential output dominates the probabilistic one (seed-methods.md B.4)
            assert (pls[-1].to_numpy() >= probs[-1].to_numpy() - 1e-6).all()
            assert (upps[-1].to_numpy() <= pls[-1].to_numpy() + 1e-6).all()
    truth = y_all[test].astype(str)
    out = {}
    for name, preds in [("probabilistic", probs), ("evidential", pls), ("evidential (upper)", upps)]:
        combined = calstats.combine_calibrated(*preds)
        if checks:
            assert np.allclose(combined.sum(axis=1), 1.0)
        decision = calstats.combine_calibrated(*preds, output="class")
        out[name] = float(np.mean(np.asarray(decision.astype(str)) == truth))
    return out


# %% [markdown]
# ## All scenarios
#
# Accuracy (%) of the combined decision on the 797 test digits, as the mean over rounds with
# a 95 % t-interval, and the paired difference evidential − probabilistic.

# %%
start = time.time()
results = []
for scen, sizes in SCENARIOS.items():
    for r in range(ROUNDS):
        acc = run_round(sizes, r, checks=(r == 0))
        results.append({"scenario": scen, "round": r, **acc})
results = pd.DataFrame(results)
elapsed = time.time() - start


def mean_ci(x):
    x = 100 * np.asarray(x)
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else np.nan
    return f"{x.mean():.1f} ± {half:.1f}"


methods = ["probabilistic", "evidential", "evidential (upper)"]
table = results.groupby("scenario").agg({m: mean_ci for m in methods})
table["evidential − probabilistic"] = results.groupby("scenario").apply(
    lambda d: mean_ci(d["evidential"] - d["probabilistic"]), include_groups=False)
table["upper − probabilistic"] = results.groupby("scenario").apply(
    lambda d: mean_ci(d["evidential (upper)"] - d["probabilistic"]), include_groups=False)
print(f"{ROUNDS} rounds, {elapsed:.1f} s")
print(table.to_string())

# %% [markdown]
# Only robust facts are asserted: every combination is accurate (the digits are easy for an
# RBF SVM even on 25 rows), and the checks inside `run_round` held.

# %%
assert (results[methods] > 0.85).all().all()

# %% [markdown]
# ## What the numbers say
#
# On these handwritten digits the evidential combination of the paper does **not** beat the
# probabilistic one: it loses about one to one and a half points, as the paper itself
# observed on Pendigits (its only handwritten-digit set besides USPS; −0.9 to −1.0 points
# there), while it won on four of the six UCI sets. The paper's S3 penalty of the
# probabilistic rule (eight weak classifiers outvoting two strong ones) does not appear with
# these RBF SVMs. The order-free `"upper"` plausibility stays close to the probabilistic
# accuracy. The size and sign of the differences are data- and classifier-dependent; the
# table above, not this paragraph, is the result of the run (with three rounds the
# intervals are wide).
#
# Why the paper's construction can hurt: its sampling model φ (eqs. 28–30) cuts [0, 1) into
# class intervals *in label order*, so the mass freed when θ is uncertain goes
# preferentially to classes adjacent in that order. The plausibility of a class thus depends
# on which classes happen to be its neighbours — an artefact for unordered digit labels.
