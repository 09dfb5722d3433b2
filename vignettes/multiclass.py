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
# # Multiclass calibration
#
# With K classes a model outputs a probability vector per case. Calibration can be asked
# of the top label only ("confidence calibration": of the cases predicted with confidence
# 0.8, 80% are right) or of every class ("classwise calibration"). calstats has both
# metrics (`type="confidence"` / `type="classwise"`) and four multiclass calibrators:
#
# | method | parameters | input |
# | --- | --- | --- |
# | `cal_temperature(logits, y)` | 1 | logits (matrix) |
# | `cal_vector_scaling(logits, y)` | 2K | logits |
# | `cal_dirichlet(p, y)` | K² + K, penalised (ODIR) | probabilities |
# | `cal_ovr(x, y, method=...)` | K binary calibrators | scores or probabilities |
#
# The data: out-of-fold probabilities of a random forest on the 10-class digits data.

# %%
import os

import numpy as np

import calstats
from calstats.datasets import load_digits_probs

FULL = os.environ.get("CALSTATS_FULL") == "1"
digits = load_digits_probs("forest")
if not FULL:  # a stratified subsample keeps the default run short
    digits = digits.groupby("label", observed=True, group_keys=False).head(60).reset_index(drop=True)
P = digits.filter(like="p_")
y = digits["label"]
print(P.shape, "accuracy:", (P.to_numpy().argmax(axis=1) == y.to_numpy().astype(int)).mean().round(3))

# %% [markdown]
# Class `k` is column `k` of the matrix; `y` is a pandas Categorical whose categories
# are the classes in column order (R's factor). Integer codes 1..K work too.

# %%
print(f"confidence ECE: {calstats.ece(P, y, type='confidence'):.4f}")
print(f"classwise ECE:  {calstats.ece(P, y, type='classwise'):.4f}")
calstats.reliability_diagram(P, y, type="confidence").plot();

# %% [markdown]
# The forest averages 50 trees' votes, which pulls probabilities towards the middle: the
# curve lies *above* the diagonal (underconfidence), the opposite of naive Bayes.
#
# ## Temperature scaling
#
# Temperature scaling divides the logits by one number T and applies the softmax.
# Probabilities become logits by taking logs (the softmax of `log p` is `p`); zeros are
# clipped first.

# %%
logits = np.log(np.clip(P.to_numpy(), 1e-6, 1))
half = np.arange(len(y)) % 2 == 0
temp = calstats.cal_temperature(logits[half], y[half])
print(temp.summary())

# %% [markdown]
# T < 1 sharpens the probabilities, as an underconfident model needs.

# %%
Q = temp.predict(logits[~half])
print(f"held-out confidence ECE: {calstats.ece(P[~half], y[~half], type='confidence'):.4f} -> "
      f"{calstats.ece(Q, y[~half], type='confidence'):.4f}")

# %% [markdown]
# ## Dirichlet calibration
#
# Dirichlet calibration fits a full linear map of the log-probabilities (a K x K weight
# matrix and K biases), with the off-diagonal weights and the biases penalised (ODIR).
# With `lambda_=None` the penalty is chosen by internal cross-validation, which takes a
# little time on 10 classes; here we fix it.

# %%
dirichlet = calstats.cal_dirichlet(P[half], y[half], lambda_=0.01)
Qd = dirichlet.predict(P[~half])
print(dirichlet)
print(f"held-out confidence ECE: {calstats.ece(Qd, y[~half], type='confidence'):.4f}, "
      f"classwise ECE: {calstats.ece(Qd, y[~half], type='classwise'):.4f}")
np.round(dirichlet.weight[:4, :4], 2)

# %% [markdown]
# ## One-vs-rest and out-of-fold calibration
#
# `cal_ovr` calibrates each column with a binary calibrator and renormalises the rows.
# `cal_cv` wraps any method in stratified K-fold cross-validation: `oof_predictions` are
# calibrated probabilities for every row, each from a calibrator that did not see it, so
# all the data serve both for fitting and for assessment.

# %%
cv = calstats.cal_cv(P, y, method="ovr", folds=5, seed=1, base_method="isotonic")
print(cv)
print(f"out-of-fold classwise ECE: {calstats.ece(cv.oof_predictions, y):.4f}")
calstats.reliability_diagram(cv.oof_predictions, y, type="classwise").plot();
