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
# # An applied workflow: split, fit, assess, report
#
# A calibration analysis for a report has four steps:
#
# 1. **Split** the labelled data the model did not train on into a calibration set and a
#    test set (stratified by class).
# 2. **Fit** the calibrator on the calibration set (choose it by cross-validation there,
#    see *Choosing a calibrator*).
# 3. **Assess** on the test set: metrics with uncertainty and a reliability diagram.
# 4. **Report** the numbers as a table (text, HTML or LaTeX) and the figure as a file.
#
# The model here is the naive Bayes digit classifier (10 classes).

# %%
import os

import numpy as np
import pandas as pd

import calstats
from calstats.datasets import load_digits_probs

FULL = os.environ.get("CALSTATS_FULL") == "1"
digits = load_digits_probs("naive_bayes")

# %% [markdown]
# ## 1. Split
#
# A stratified split: within every digit, every other row goes to calibration.

# %%
within = digits.groupby("label", observed=True).cumcount()
is_cal = (within % 2 == 0).to_numpy()
cal, test = digits[is_cal], digits[~is_cal]
P_cal, y_cal = cal.filter(like="p_"), cal["label"]
P_test, y_test = test.filter(like="p_"), test["label"]
print(len(cal), "calibration rows,", len(test), "test rows")

# %% [markdown]
# ## 2. Fit
#
# Vector scaling on the log-probabilities (a scale and a bias per class). The full run
# (`CALSTATS_FULL=1`) uses Dirichlet calibration with the penalty chosen by internal
# cross-validation instead.

# %%
def to_logits(P):
    return np.log(np.clip(np.asarray(P, dtype=float), 1e-12, 1))


if FULL:
    fit = calstats.cal_dirichlet(P_cal, y_cal)
    Q = fit.predict(P_test)
else:
    fit = calstats.cal_vector_scaling(to_logits(P_cal), y_cal)
    Q = fit.predict(to_logits(P_test))
print(fit.summary())

# %% [markdown]
# ## 3. Assess
#
# Point estimates of the metrics on the test set, with a bootstrap percentile interval
# for the ECE (resampling test rows; the calibrator stays fixed).

# %%
def metrics(P, y):
    return {
        "confidence ECE": calstats.ece(P, y, type="confidence"),
        "classwise ECE": calstats.ece(P, y, type="classwise"),
        "confidence MCE": calstats.mce(P, y, type="confidence"),
        "MMCE": calstats.mmce(P, y),
    }


def bootstrap_ece(P, y, B, seed=1):
    rs = np.random.default_rng(seed)
    P = np.asarray(P, dtype=float)
    out = []
    for _ in range(B):
        i = rs.integers(0, len(P), len(P))
        out.append(calstats.ece(P[i], y.take(i) if hasattr(y, "take") else y[i], type="confidence"))
    return np.percentile(out, [2.5, 97.5])


B = 1000 if FULL else 100
yt = pd.Categorical(y_test)
report = pd.DataFrame({"uncalibrated": metrics(P_test, y_test), "calibrated": metrics(Q, y_test)})
lo_u, hi_u = bootstrap_ece(P_test, yt, B)
lo_c, hi_c = bootstrap_ece(Q, yt, B)
report.loc["confidence ECE, 2.5%"] = [lo_u, lo_c]
report.loc["confidence ECE, 97.5%"] = [hi_u, hi_c]
report.round(4)

# %% [markdown]
# A calibration test asks whether the remaining miscalibration could be chance. When the
# test module is available, Spiegelhalter's test on the top-label confidence:

# %%
try:
    print(calstats.cal_spiegelhalter_test(np.asarray(Q), y_test, type="confidence"))
except (AttributeError, ImportError):
    print("calstats.cal_spiegelhalter_test is not available in this version")

# %% [markdown]
# ## 4. Report
#
# The calibrator's summary renders as a table for a document, and the reliability
# diagrams are saved as files.

# %%
print(fit.summary().as_latex()[:400])

# %%
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(11, 5), layout="constrained")
calstats.reliability_diagram(P_test, y_test, type="confidence").plot(ax=axes[0])
calstats.reliability_diagram(Q, y_test, type="confidence").plot(ax=axes[1])
axes[0].set_title("uncalibrated", loc="right")
axes[1].set_title("calibrated", loc="right")
fig.savefig("reliability-test.png", dpi=100)

# %% [markdown]
# The same analysis from the shell, for a file with a `label` column and one probability
# column per class:
#
# ```sh
# calstats calibrate cal.csv test.csv --label label -m dirichlet -o test-calibrated.csv
# calstats assess test-calibrated.csv --label label --bootstrap 1000
# ```
