# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Beyond Platt and isotonic
#
# Platt scaling and isotonic regression are the two calibrators everybody knows. This
# vignette compares them with three that the field asks for next:
#
# * **Venn-Abers predictors** (Vovk and Petej 2014): two isotonic fits per test score, one
#   assuming its label is 0 and one assuming 1. The pair `(p0, p1)` is a multiprobability
#   prediction with finite-sample validity; the merged `p1 / (1 - p0 + p1)` is the single
#   probability. `calstats.cal_venn_abers` reproduces the Python package venn-abers.
# * **Spline calibration**: a logistic regression on a restricted cubic spline of
#   `logit(p)` (R's `glm(y ~ rcs(qlogis(p), 5))`, Harrell's knots), the default of
#   tidymodels' probably and a standard in clinical work; or on a natural spline, or a
#   penalised spline with its smoothness chosen by REML (mgcv).
# * **Intervals on the calibrated probability**: every likelihood calibrator's `predict`
#   gives the delta-method standard error and a confidence interval, as R's
#   `predict.glm(se.fit = TRUE)` does.
#
# and ends with **prior shift**: estimating the class frequencies of a new population from
# unlabelled predictions and adjusting the probabilities to them.

# %%
import os

import numpy as np
import pandas as pd

import calstats
from calstats.datasets import load_digits_binary, load_digits_probs

FULL = os.environ.get("CALSTATS_FULL") == "1"

# %% [markdown]
# ## Out of fold, on the bundled data
#
# The bundled binary problem is "is it a 3?" with naive Bayes probabilities, which pile up
# at 0 and 1. `cal_compare` fits every method on the same five stratified folds and scores
# its out-of-fold probabilities.

# %%
b = load_digits_binary()
cmp = calstats.cal_compare(b["p"], b["label"], methods=["platt", "beta", "isotonic", "venn_abers", "spline"],
                           folds=5, seed=1)
cmp.table[["log_loss", "brier", "confidence_ece"]].round(4)

# %% [markdown]
# The warnings are worth reading. glm's "fitted probabilities numerically 0 or 1" says
# that the tails separate: naive Bayes puts half the digits at `p < 1e-15`, none of them
# a 3. The spline's "not monotone" names the stretches where its curve turns down, here
# among probabilities below 1e-8 and above 1 - 1e-7, where it is flat at about zero on
# both sides (`monotone=True` would forbid the dip).
#
# Naive Bayes probabilities are so extreme that Platt scaling on the probability (a
# logistic regression on `p` itself, not on its logit) cannot undo them. The spline works
# on `logit(p)` and can bend; Venn-Abers, like isotonic regression, makes no assumption
# on the shape at all, but unlike isotonic regression it never outputs exactly 0 or 1 from
# finite evidence: a safeguard against a log-loss of infinity on new data that costs it
# little here.

# %% [markdown]
# ## The Venn-Abers interval
#
# Fitted on a calibration half and applied to the other half, the width `p1 - p0` says how
# much the calibration data pin down the probability of each test case. It is wide where
# the calibration set has few cases, at the extremes and in sparse regions.

# %%
rs = np.random.default_rng(7)
half = rs.permutation(len(b)) < len(b) // 2
va = calstats.cal_venn_abers(b["p"][half], b["label"][half])
band = va.predict(b["p"][~half], interval=True)
band["width"] = band["p1"] - band["p0"]
band.describe().round(3)

# %% [markdown]
# ## Does the interval cover the truth? A simulation
#
# On real data the true probability is unknown, so coverage needs a simulation. Scores
# are overconfident logits (true log-odds = 0.6 x score); each replicate draws a
# calibration set of 1000 cases, fits the calibrators, and checks whether the 95%
# confidence interval of the calibrated probability covers the true probability at nine
# scores. Venn-Abers' `(p0, p1)` is not a confidence interval (it is the spread between the
# two assumed labels of the test case), so its share of hits is shown for comparison, not
# as a coverage claim.

# %%
reps = 200 if FULL else 40
grid = np.linspace(-4, 4, 9)
truth = 1 / (1 + np.exp(-0.6 * grid))
hits = {"platt": 0, "spline": 0, "venn_abers (p0, p1)": 0}
widths = {k: 0.0 for k in hits}
sim = np.random.default_rng(2014)
for _ in range(reps):
    s = sim.normal(0, 2, 1000)
    y = (sim.uniform(size=s.size) < 1 / (1 + np.exp(-0.6 * s))).astype(int)
    p = 1 / (1 + np.exp(-s))
    pl = calstats.cal_platt(s, y).predict(grid, interval="confidence")
    sp = calstats.cal_spline(p, y, knots=4).predict(1 / (1 + np.exp(-grid)), interval="confidence")
    vb = calstats.cal_venn_abers(p, y).predict(1 / (1 + np.exp(-grid)), interval=True)
    for name, lo, hi in (("platt", pl["lower"], pl["upper"]), ("spline", sp["lower"], sp["upper"]),
                         ("venn_abers (p0, p1)", vb["p0"], vb["p1"])):
        lo, hi = np.asarray(lo), np.asarray(hi)
        hits[name] += int(((lo <= truth) & (truth <= hi)).sum())
        widths[name] += float((hi - lo).mean())
pd.DataFrame({"share covering the truth": {k: v / (reps * grid.size) for k, v in hits.items()},
              "mean width": {k: v / reps for k, v in widths.items()}}).round(3)

# %% [markdown]
# Platt scaling is the true model here, so its intervals are narrow and hold their 95%.
# The spline spends four parameters where two suffice: its intervals are wider and cover
# about as often. The Venn-Abers pair is narrower still in the middle, where 1000 cases
# pin the curve down, and says nothing about a sampling distribution.
#
# A calibrated probability with an interval is what a clinician asks for: "about 0.30,
# between 0.25 and 0.36" is an honest statement; "0.30" alone is not. With `se_fit=True`
# the frame also holds the linear predictor and its standard error, R's
# `predict(fit, newdata, se.fit = TRUE, type = "link")`.

# %%
fit = calstats.cal_spline(p, y, knots=4)  # the last simulated calibration set
fit.predict([0.05, 0.2, 0.5, 0.8, 0.95], se_fit=True, interval="confidence").round(3)

# %% [markdown]
# ## Prior shift
#
# A classifier trained where the classes had one set of frequencies is deployed where they
# have another: the probabilities it gives are then miscalibrated in a known way. Bayes'
# rule fixes them if the new frequencies are known (`adjust_priors`); Saerens, Latinne and
# Decaestecker's EM estimates them from the unlabelled predictions alone
# (`estimate_priors`). Here the digits' calibrated probabilities meet a population in
# which digits 0 to 4 are three times as frequent as 5 to 9.

# %%
d = load_digits_probs()
P = d.filter(like="p_").to_numpy()
labels = d["label"]
train_priors = labels.value_counts(normalize=True).sort_index().to_numpy()
calibrated = calstats.cal_dirichlet(P, labels, lambda_=0.01).predict(P).to_numpy()
weight = np.where(labels.cat.codes.to_numpy() < 5, 3.0, 1.0) if hasattr(labels, "cat") else \
    np.where(np.asarray(labels).astype(int) < 5, 3.0, 1.0)
pick = np.random.default_rng(3).choice(len(d), size=len(d), p=weight / weight.sum())
shifted, shifted_labels = calibrated[pick], np.asarray(labels)[pick]
est = calstats.estimate_priors(shifted, train_priors, n_boot=200 if FULL else 50, seed=1)
est

# %%
true_new = pd.Series(shifted_labels).value_counts(normalize=True).sort_index().to_numpy()
adjusted = calstats.adjust_priors(shifted, est)
codes = pd.Categorical(shifted_labels).codes + 1
pd.DataFrame({
    "log-loss": [calstats.log_loss(shifted, codes), calstats.log_loss(adjusted, codes)],
    "largest prior error": [np.abs(train_priors - true_new).max(), np.abs(est.priors.to_numpy() - true_new).max()],
}, index=["as trained", "adjusted to the estimated priors"]).round(4)

# %% [markdown]
# The EM recovers the new class frequencies from predictions alone, its likelihood-ratio
# test says the shift is real, and adjusting the probabilities lowers the log-loss on the
# new population without a single new label.
