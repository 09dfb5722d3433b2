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
# # Introduction: calibrating a binary classifier
#
# A classifier is *calibrated* when its probabilities can be read as frequencies: of all
# the cases it scores 0.8, about 80% should be positives. Many good classifiers are badly
# calibrated. This vignette takes one such classifier from start to finish: look at its
# calibration, fit a calibrator on one part of the data, and check the result on another.
#
# The data are real: out-of-fold predictions of a Gaussian naive Bayes classifier that
# tells whether a handwritten digit (UCI optical digits) is a 3. Naive Bayes multiplies
# 64 pixel likelihoods as if they were independent, so its probabilities are pushed to
# 0 and 1: a classic case of overconfidence.

# %%
import numpy as np

import calstats
from calstats.datasets import load_digits_binary

digits = load_digits_binary()
digits.head()

# %%
p = digits["p"].to_numpy()
y = digits["label"].to_numpy()
print(f"{len(y)} digits, {y.sum()} of them 3s")
print(f"share of probabilities below 0.01 or above 0.99: {np.mean((p < 0.01) | (p > 0.99)):.2f}")

# %% [markdown]
# ## How miscalibrated is it?
#
# The expected calibration error (ECE) bins the probabilities into 10 equal-width bins
# and averages the gap between the mean probability and the observed frequency in each
# bin, weighted by the bin size. `mce` is the largest gap, `ace` the unweighted mean.
# The reliability diagram shows the bins: a calibrated model lies on the diagonal.

# %%
print(f"ECE = {calstats.ece(p, y):.4f}, MCE = {calstats.mce(p, y):.4f}, ACE = {calstats.ace(p, y):.4f}")
diagram = calstats.reliability_diagram(p, y)
diagram.plot();

# %% [markdown]
# The points sit far below the diagonal at the top end: among the digits the model calls
# a 3 with near certainty, many are not 3s.
#
# ## Fit a calibrator on a calibration set
#
# A calibrator is a one-dimensional map from the model's output to a calibrated
# probability. It must be fitted on data the classifier was not trained on, and assessed
# on yet other data. Here we split the rows at random into a calibration half and a test
# half.

# %%
rs = np.random.default_rng(1)
idx = rs.permutation(len(y))
cal, test = idx[: len(y) // 2], idx[len(y) // 2 :]

fit = calstats.cal_beta(p[cal], y[cal])
print(fit.summary(coef=True))

# %% [markdown]
# Beta calibration (Kull et al., 2017) fits
# $\operatorname{logit} q = a \log p - b \log(1 - p) + c$, a family that contains the
# identity ($a = b = 1$, $c = 0$) and can both sharpen and soften probabilities. The
# printed summary is the R package's, line for line; `coef=True` adds the coefficient
# table that R's `summary.glm` would print (estimate, standard error, z, p).
#
# `predict` applies the calibrator to new probabilities:

# %%
q = fit.predict(p[test])
print(f"test ECE before: {calstats.ece(p[test], y[test]):.4f}   after: {calstats.ece(q, y[test]):.4f}")
calstats.reliability_diagram(q, y[test]).plot();

# %% [markdown]
# ## Other binary calibrators
#
# * `cal_platt(x, y)` — Platt scaling: a logistic regression on the score (any real
#   score, e.g. an SVM's decision value).
# * `cal_temperature(logits, y)` — one temperature dividing the logit.
# * `cal_isotonic(p, y)` — isotonic regression, a monotone step function.
# * `cal_histogram(p, y, bins=10)` — histogram binning.
#
# All take the same `(scores, labels)` arguments and return an object with `predict`.

# %%
for name, make in [("platt", lambda: calstats.cal_platt(p[cal], y[cal])),
                   ("beta", lambda: calstats.cal_beta(p[cal], y[cal])),
                   ("isotonic", lambda: calstats.cal_isotonic(p[cal], y[cal])),
                   ("histogram", lambda: calstats.cal_histogram(p[cal], y[cal]))]:
    q = make().predict(p[test])
    print(f"{name:10s} test ECE = {calstats.ece(q, y[test]):.4f}")

# %% [markdown]
# The SVM scores in the same dataset are not probabilities at all; Platt scaling turns
# them into probabilities:

# %%
s = digits["score"].to_numpy()
platt = calstats.cal_platt(s[cal], y[cal])
print(platt.coefficients)
print(f"test ECE of the Platt-scaled SVM: {calstats.ece(platt.predict(s[test]), y[test]):.4f}")
