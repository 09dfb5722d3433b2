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
# # Case weights: calibrating under covariate shift
#
# Every calibrator, metric and comparison in calstats takes `weights=` (R's name, as in
# `glm(weights =)`; `sample_weight=` in the scikit-learn adapter). Integer weights give
# exactly what repeating each row that many times would give; `weights=None` is R's
# unweighted computation, bit for bit. Weights serve survey data, aggregated (count) data,
# class rebalancing and, the case shown here, **importance weighting under covariate
# shift**: the calibration data come from one population, the model is used in another,
# and `P(y | x)` is the same in both.
#
# A calibrator with few parameters cannot be right everywhere when the true calibration
# map has a shape outside its family. Fitted on the source population it is right where
# the source has its mass; weighting each calibration case by the density ratio
# `w(s) = p_target(s) / p_source(s)` makes it right where the target has its mass.

# %%
import os

import numpy as np

import calstats

FULL = os.environ.get("CALSTATS_FULL") == "1"
n = 20000 if FULL else 4000
rs = np.random.default_rng(2024)


def true_prob(s):
    # a kinked calibration map: gentle below 0, steep above (no logistic curve fits both)
    return 1 / (1 + np.exp(-np.where(s < 0, 0.8 * s, 2.5 * s)))


def normal_pdf(s, mean):
    return np.exp(-0.5 * (s - mean) ** 2) / np.sqrt(2 * np.pi)


# source (calibration data): scores centred at -1; target (deployment): centred at +1
s_src = rs.normal(-1.0, 1.0, n)
y_src = (rs.random(n) < true_prob(s_src)).astype(int)
s_tgt = rs.normal(1.0, 1.0, n)
y_tgt = (rs.random(n) < true_prob(s_tgt)).astype(int)

# importance weights: the density ratio, known here (estimate it in practice, e.g. with a
# classifier that tells source from target)
w = normal_pdf(s_src, 1.0) / normal_pdf(s_src, -1.0)
print(f"weights: min {w.min():.3g}, median {np.median(w):.3g}, max {w.max():.3g}")

# %% [markdown]
# Platt scaling fitted on the source, without and with the importance weights, and
# evaluated on the target population:

# %%
plain = calstats.cal_platt(s_src, y_src)
weighted = calstats.cal_platt(s_src, y_src, weights=w)
print(plain.coefficients.round(3).to_dict(), weighted.coefficients.round(3).to_dict())

rows = []
for name, fit in [("unweighted", plain), ("importance-weighted", weighted)]:
    p = fit.predict(s_tgt)
    rows.append((name, calstats.log_loss(p, y_tgt), calstats.ece(p, y_tgt), calstats.brier_score(p, y_tgt)))
p_true = true_prob(s_tgt)
rows.append(("true probabilities", calstats.log_loss(p_true, y_tgt), calstats.ece(p_true, y_tgt),
             calstats.brier_score(p_true, y_tgt)))
print(f"{'on the target':<22}{'log-loss':>10}{'ECE':>9}{'Brier':>9}")
for name, ll, e, b in rows:
    print(f"{name:<22}{ll:>10.4f}{e:>9.4f}{b:>9.4f}")

# %% [markdown]
# The weighted fit halves the target's ECE and moves its log-loss most of the way to that
# of the true probabilities; the unweighted fit, tuned to the gentle part of the curve
# where the source lives, is underconfident on the target.
#
# The weighted metrics estimate the target's numbers from source data alone, the same
# density ratio turning source averages into target averages:

# %%
p_w = weighted.predict(s_src)
print("target ECE estimated from the source:", round(calstats.ece(p_w, y_src, weights=w), 4))
print("target ECE measured on the target:   ", round(calstats.ece(weighted.predict(s_tgt), y_tgt), 4))

# %% [markdown]
# The same argument works everywhere: `cal_compare(..., weights=w)` fits every method with
# the weights and reports weighted metric columns (the calibration tests, whose theory is
# for unweighted samples, are left out with a note). Beta calibration is a binomial `glm`,
# which warns, as R's does, that non-integer weights make non-integer "successes"; the
# warning of every fold is shown once, with its count.

# %%
table = calstats.cal_compare(s_src, y_src, methods=["platt", "beta", "isotonic"], weights=w, input="logits")
print(table)

# %% [markdown]
# Two rules to keep in mind. Integer weights are frequency weights: `weights=[2, 1]` is the
# first row twice. The lambda search of Dirichlet calibration keeps its folds over rows, so
# there (and only there) weights and replicated rows can choose different penalties; with
# a fixed `lambda_` they agree.
