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
# # Temperature, vector, matrix and Dirichlet calibration on one data set
#
# A classifier's scores are *calibrated* when, among the cases that receive a predicted
# probability vector q, the classes occur with frequencies q. This vignette fits the
# members of the linear-softmax family of calibration maps studied by Kull et al. (2019,
# "Beyond temperature scaling") to the out-of-fold scores of one classifier, compares them
# with the measures used in that paper, reads the fitted Dirichlet map through its
# canonical parameters, and finally asks the formal question: is there evidence of
# miscalibration before and after?
#
# All maps send a score vector x to `softmax(W x + b)`; they differ in what x is and how
# much freedom W has:
#
# | map | input x | W |
# |---|---|---|
# | temperature scaling | logits | I / T (one parameter) |
# | vector scaling | logits | diagonal |
# | matrix scaling (MS-ODIR) | logits | full, off-diagonal entries shrunk |
# | Dirichlet calibration (Dir-ODIR) | log-probabilities | full, off-diagonal entries shrunk |
#
# Set the environment variable `CALSTATS_FULL=1` to average the comparison over several
# random splits instead of one.

# %%
import os

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict

import calstats

FULL = os.environ.get("CALSTATS_FULL", "0") == "1"
N_SPLITS = 5 if FULL else 1

# %% [markdown]
# ## Scores that were not used to fit the classifier
#
# We use the 8x8 handwritten digits bundled with scikit-learn (1797 images, 10 classes) and
# a multinomial logistic regression on the raw pixels. Calibration maps must be fitted on
# scores the classifier has not seen during training, so we take five-fold out-of-fold
# decision values: these are the logits of the multinomial model. Their softmax is the
# classifier's probability matrix.

# %%
X, digit = load_digits(return_X_y=True)
logits = cross_val_predict(LogisticRegression(max_iter=2000), X / 16, digit, cv=5, method="decision_function")
y = digit + 1  # calstats class codes are 1-based: column j is class j
levels = [str(d) for d in range(10)]
y_factor = pd.Categorical.from_codes(digit, categories=levels)
probs = np.exp(logits - logits.max(axis=1, keepdims=True))
probs /= probs.sum(axis=1, keepdims=True)
print("accuracy of the classifier:", np.mean(probs.argmax(axis=1) == digit).round(4))

# %% [markdown]
# ## Fit the four maps on half the data, assess them on the other half
#
# Each calibrator is fitted on a random half (the *calibration* set) and assessed on the
# other half (the *test* set). For matrix scaling and Dirichlet calibration the penalty
# strength lambda is chosen by calstats' small deterministic cross-validation (the R
# package's rule); the chosen value is stored on the fit.

# %%
def fit_all(cal):
    fits = {
        "temperature": calstats.cal_temperature(logits[cal], y_factor[cal]),
        "vector": calstats.cal_vector_scaling(logits[cal], y_factor[cal]),
        "matrix (MS-ODIR)": calstats.cal_matrix_scaling(logits[cal], y_factor[cal]),
        "Dirichlet (Dir-ODIR)": calstats.cal_dirichlet(probs[cal], y_factor[cal]),
    }
    return fits


def calibrated(name, fit, rows):
    data = probs[rows] if name.startswith("Dirichlet") else logits[rows]
    return fit.predict(data).to_numpy()


def measures(q, labels):
    return {
        "log-loss": calstats.log_loss(q, labels),
        "Brier": calstats.brier_score(q, labels),
        "confidence-ECE": calstats.confidence_ece(q, labels),
        "classwise-ECE": calstats.classwise_ece(q, labels),
    }


rows = []
rs = np.random.RandomState(2019)
for split in range(N_SPLITS):
    order = rs.permutation(len(y))
    cal, test = order[: len(y) // 2], order[len(y) // 2 :]
    fits = fit_all(cal)
    rows.append({"map": "uncalibrated", **measures(probs[test], y[test])})
    for name, fit in fits.items():
        rows.append({"map": name, **measures(calibrated(name, fit, test), y[test])})

table = pd.DataFrame(rows).groupby("map", sort=False).mean()
table.round(4)

# %% [markdown]
# The table has the shape of the paper's Tables 3-4: two proper scoring rules (log-loss
# and the Brier score, which reward both calibration and sharpness) and two binned
# calibration errors (10 equal-width bins). The confidence-ECE looks only at the top
# predicted class; the classwise-ECE averages the calibration error of every column. On a
# data set this small the differences between the four maps are of the order of their
# sampling variability; what is consistent is that every map improves on the raw
# scores, above all in the ECEs.
#
# The penalty strengths that were selected:

# %%
print({name: getattr(fit, "lambda_", None) for name, fit in fits.items()})
fits["matrix (MS-ODIR)"].summary().as_frames()["penalty"]

# %% [markdown]
# The `penalty` table also gives lambda in the paper's normalisation, which divides the
# off-diagonal penalty by K(K-1) and the intercept penalty by K.
#
# ## Reading a Dirichlet map: the canonical parameters
#
# The weights W of a Dirichlet map are not unique: adding the same vector to every row of
# W does not change the map. The *canonical* parametrisation removes this freedom. Its
# matrix A is W with each column's minimum subtracted (so A >= 0 with a zero in every
# column), and its vector c is the calibrated output when the classifier is completely
# undecided (uniform input). Column l of A says how the calibrated log-odds move as the
# classifier's vote for class l grows: a large diagonal entry means the vote is trusted,
# a positive off-diagonal entry A[k, l] means that evidence for l also raises class k.

# %%
A, c = calstats.canonical(fits["Dirichlet (Dir-ODIR)"])
A.round(2)

# %%
off = A.to_numpy().copy()
np.fill_diagonal(off, 0)
k, l = np.unravel_index(off.argmax(), off.shape)
print(f"largest off-diagonal entry: evidence for digit {levels[l]} also raises digit {levels[k]} "
      f"(A = {off[k, l]:.2f}; diagonal A[{levels[l]}, {levels[l]}] = {A.iloc[l, l]:.2f})")
print("output at the centre of the simplex, c:", c.round(3).to_dict())

# %% [markdown]
# The effect on hard decisions is shown by the change of the confusion matrix on the test
# half (rows: true digit, columns: predicted digit; each row sums to zero and the trace is
# the change in the number of correct decisions).

# %%
change = calstats.confusion_change(fits["Dirichlet (Dir-ODIR)"], probs[test], y_factor[test])
print("change in correct decisions:", int(np.trace(change.to_numpy())))
change

# %% [markdown]
# ## Testing calibration before and after
#
# The Kolmogorov-Smirnov and Kuiper tests look at the running sum of outcome minus
# confidence, sorted by confidence; under calibration it behaves like a Brownian motion.
# Spiegelhalter's test standardises the Brier score. All three are applied to the
# top-label confidence and its correctness on the test half.

# %%
q_dir = calibrated("Dirichlet (Dir-ODIR)", fits["Dirichlet (Dir-ODIR)"], test)
results = []
for label, q in [("uncalibrated", probs[test]), ("Dirichlet", q_dir)]:
    for test_fn in (calstats.cal_ks_test, calstats.cal_kuiper_test, calstats.cal_spiegelhalter_test):
        t = test_fn(q, y[test])
        results.append({"scores": label, "test": t.method.split(" calibration")[0],
                        "statistic": next(iter(t.statistic.values())), "p-value": t.p_value})
pd.DataFrame(results).round(4)

# %% [markdown]
# Each test returns an R-style `htest` object:

# %%
print(calstats.cal_kuiper_test(probs[test], y[test]))

# %% [markdown]
# ## Top-label calibration
#
# A lighter alternative fits one binary calibrator per predicted class to the top-label
# confidence only (Gupta and Ramdas, 2021). It never changes the predicted class. A class
# whose calibration rows are all correct (or never predicted) cannot be fitted; it is left
# unchanged and a warning names it. The `status` table shows what happened to each class.

# %%
tl = calstats.cal_top_label(probs[cal], y_factor[cal], method="platt")
print(tl.status.round(3))
q_tl = tl.predict(probs[test]).to_numpy()
pd.DataFrame({
    "uncalibrated": [calstats.top_label_ece(probs[test], y[test]), calstats.confidence_ece(probs[test], y[test])],
    "top-label Platt": [calstats.top_label_ece(q_tl, y[test]), calstats.confidence_ece(q_tl, y[test])],
    "Dirichlet": [calstats.top_label_ece(q_dir, y[test]), calstats.confidence_ece(q_dir, y[test])],
}, index=["top-label ECE", "confidence-ECE"]).round(4)
