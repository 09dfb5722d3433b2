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
# # How much to trust a reliability diagram
#
# A reliability diagram and its ECE look like facts about a model, but both are
# estimates, and binned ones: they depend on how many bins are used, where their edges
# are, which side of an edge a tied score falls on, and on the noise in each bin. This
# vignette takes one classifier and puts the estimators side by side:
#
# 1. the binned ECE under different bins (equal-width and equal-mass, left- and
#    right-closed);
# 2. the binned diagram with a binomial interval per bin;
# 3. the CORP diagram (isotonic regression) with its consistency band, its score
#    decomposition and a miscalibration test;
# 4. the smooth ECE and the kernel-smoothed diagram;
# 5. the cumulative differences with their Kolmogorov-Smirnov and Kuiper statistics;
#
# and ends with a table of all the numbers and a recommendation.
#
# **Data.** The out-of-fold probabilities of the random forest (50 trees) bundled as
# `load_digits_probs("forest")`, turned into a binary problem: the column `p_3` (the
# forest's probability that a digit is a 3) against `label == 3`. A forest's
# probabilities are vote shares, multiples of 1/50, so there are only a few dozen distinct
# scores and many of them lie exactly on the edges of the usual bins: a good test of how
# an estimator treats ties. The random steps (the CORP band and test) run from fixed
# seeds; `CALSTATS_FULL=1` uses 1000 resamples instead of 100.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import calstats
from calstats.datasets import load_digits_probs

FULL = os.environ.get("CALSTATS_FULL") == "1"
N_RESAMPLES = 1000 if FULL else 100

forest = load_digits_probs("forest")
p = forest["p_3"].to_numpy()
y = (forest["label"] == 3).to_numpy().astype(int)
print(f"{len(y)} digits, {y.sum()} of them 3s; {len(np.unique(p))} distinct scores")
print(f"share of scores exactly 0: {np.mean(p == 0):.2f}; "
      f"on a multiple of 0.1: {np.mean(np.isclose(p * 10, np.round(p * 10))):.2f}")

# %% [markdown]
# ## 1. The binned ECE depends on the bins
#
# The ECE is `sum_j (n_j / N) |observed_j - mean_predicted_j|` over the bins. Four choices
# define the bins:
#
# * how many (`bins=`: a number, or a rule of the sample size, `"sqrt"`, `"sturges"`,
#   `"cube_root"`);
# * equal-width (`strategy="uniform"`, R probcal's only option) or equal-mass
#   (`strategy="quantile"`: edges at the type-7 quantiles of the scores, Nixon et al.'s
#   "adaptive" ECE, scikit-learn's `calibration_curve(strategy="quantile")`);
# * which end of a bin is closed: `right=False` gives `[a, b)` as R's probcal
#   (`findInterval`), NumPy's `digitize` and torchmetrics; `right=True` gives `(a, b]` as
#   R's `cut()` and scikit-learn's `calibration_curve`;
# * or explicit edges (`breaks=`).

# %%
rows = []
for b in [5, 10, 20, "sturges", "sqrt"]:
    row = {"bins": b}
    for strategy in ["uniform", "quantile"]:
        for right in [False, True]:
            row[f"{strategy}, {'(a, b]' if right else '[a, b)'}"] = calstats.ece(
                p, y, b, strategy=strategy, right=right)
        row[f"{strategy}: bins used"] = len(calstats.bin_edges(p, b, strategy=strategy)) - 1
    rows.append(row)
ece_table = pd.DataFrame(rows).set_index("bins")
ece_table.round(4)

# %% [markdown]
# Three things change:
#
# * **The number of bins.** With equal-width bins the ECE moves from 0.042 to 0.044
#   between 5 and 20 bins; more bins add noise (the gap of a small bin is biased upwards,
#   because `|.|` of a noisy difference is positive on average), fewer bins average
#   miscalibrations of opposite sign away.
# * **Which side is closed.** Here the choice matters because the scores are multiples of
#   1/50 and so sit on edges such as 0.1 and 0.2: with 10 bins probcal's `[a, b)` and
#   scikit-learn's `(a, b]` give different ECEs (the 44 scores of exactly 0.1 move from
#   the second bin to the first, and so on). With continuous scores only the rare scores
#   exactly on an edge move.
# * **Equal-mass bins.** 46% of the scores are exactly 0, so the lower quantiles coincide;
#   tied edges are merged and far fewer bins are used than asked for. `bin_edges` shows the
#   bins actually used:

# %%
for b in [5, 10, 20]:
    print(f"{b:>2} quantile bins asked for -> edges {calstats.bin_edges(p, b, strategy='quantile')}")
print("10 equal-width bins             -> edges", calstats.bin_edges(p, 10))

# %% [markdown]
# With 20 equal-mass bins asked for, 8 are used, and nearly all of the width of [0, 1]
# falls into the last ones: equal mass buys small per-bin noise where the data are and
# pays with coarse resolution where they are not. Report the bins with the number
# (`bin_edges`, or the edges in the diagram's table), otherwise an ECE cannot be
# reproduced.
#
# ## 2. The binned diagram with Wilson intervals
#
# `interval="wilson"` adds a binomial confidence interval for each bin's observed
# frequency (`Hmisc::binconf(x, n, method = "wilson")`; `"clopper-pearson"` and
# `"jeffreys"` are the alternatives).

# %%
diagram = calstats.reliability_diagram(p, y, interval="wilson", level=0.95)
fig_binned = diagram.plot()
diagram.as_frame().round(4)

# %% [markdown]
# The forest is **underconfident**: below 0.2 it predicts positives that rarely come, above
# 0.3 the observed frequency is far above the score (scores of 0.3 to 0.5 are 3s five times
# out of six). Every interval but that of [0.2, 0.3) excludes the bin's mean prediction;
# the bin [0.3, 0.4) has 6 cases and an interval from 0.44 to 0.99, which says little
# beyond "above the diagonal".
#
# The intervals are **pointwise**: each covers its own bin's frequency with 95%
# probability, not all ten at once. With ten bins and a calibrated model, one interval or
# more missing the diagonal is not rare. A simultaneous statement needs, e.g., Bonferroni
# intervals at level `1 - 0.05 / B`; the mean prediction in a bin is also treated as fixed,
# and the bins are chosen before looking at the outcomes (as they are here).

# %%
bonferroni = calstats.reliability_diagram(p, y, interval="wilson", level=1 - 0.05 / 10)
bonf = bonferroni.as_frame()
outside = (bonf["mean_predicted"] < bonf["lower"]) | (bonf["mean_predicted"] > bonf["upper"])
print(f"bins whose simultaneous (Bonferroni) interval excludes the mean prediction: "
      f"{outside.sum()} of {len(bonf)}")

# %% [markdown]
# Even read simultaneously, half of the bins are miscalibrated: the conclusion does not
# hang on one noisy bin.

# %% [markdown]
# ## 3. The CORP diagram, its decomposition and the miscalibration test
#
# CORP (Dimitriadis, Gneiting and Jordan 2021; R's `reliabilitydiag`) replaces the bins by
# the isotonic regression of the outcomes on the scores: the bins are chosen by the data
# (pool-adjacent-violators), with no tuning parameter. The band is a 90% **consistency**
# band: where the curve would lie if the model were calibrated (outcomes resampled from
# the scores). Like the Wilson intervals it is pointwise.

# %%
corp = calstats.corp(p, y, level=0.90, n_resamples=N_RESAMPLES, seed=2021)
print(corp)
fig_corp = corp.plot()

# %% [markdown]
# The Brier score decomposes as `S = MCB - DSC + UNC`: miscalibration (the Brier score
# lost to the model's calibration, what PAV recalibration would recover), discrimination
# (what the recalibrated model gains over always predicting the base rate) and
# uncertainty (the Brier score of the base rate).

# %%
decomposition = corp.decomposition()  # printed above, as part of the diagram
print(f"MCB {decomposition.miscalibration:.5f}  DSC {decomposition.discrimination:.5f}  "
      f"UNC {decomposition.uncertainty:.5f}  Brier {decomposition.mean_score:.5f}")
test = corp.miscalibration_test(n_resamples=N_RESAMPLES, seed=2022)
print(test)

# %% [markdown]
# MCB is small next to DSC: the forest ranks the digits well, and most of its Brier score
# is the price of its underconfidence. The test resamples outcomes under calibration and
# refits; none of the resampled MCB values reaches the observed one, so the p-value is
# printed as `< 2.2e-16` (a p-value of 0, as R prints it), but with B resamples the honest
# statement is p < 1/B (here B = 100 by default, 1000 with `CALSTATS_FULL=1`).
#
# **Limit.** CORP estimates a *monotone* calibration curve. Where the true curve is not
# monotone (an overfitted model whose highest scores are less reliable, say), PAV pools
# across the dip and MCB is a **lower bound** on the miscalibration. Check a binned or
# smooth curve for a dip; here the binned frequencies rise with the score, so the
# monotone fit is reasonable:

# %%
print("binned frequencies non-decreasing:", bool(np.all(np.diff(diagram.as_frame()["observed"]) >= 0)))

# %% [markdown]
# ## 4. The smooth ECE and the smooth diagram
#
# The smooth ECE (Blasiok and Nakkiran 2023; Python's relplot) replaces bins by a Gaussian
# kernel (reflected at 0 and 1) whose bandwidth is chosen so that it equals the smooth ECE
# itself: no bins to choose. `method="smooth"` draws the kernel-smoothed curve over the
# density of the scores.

# %%
sigma = calstats.smece_sigma(p, y)
print(f"smooth ECE = {calstats.smece(p, y):.4f} at bandwidth sigma = {sigma:.4f}")
smooth = calstats.reliability_diagram(p, y, method="smooth")
fig_smooth = smooth.plot()
curve = calstats.smooth_curve(p, y, grid=[0.1, 0.2, 0.3, 0.4, 0.5])
pd.DataFrame({"t": curve.t, "smoothed observed": curve.mu}).round(3)

# %% [markdown]
# The smooth curve tells the same story as the bins, without their jumps. Its value is a
# little higher than the binned ECEs: binning averages positive and negative gaps within a
# bin, the kernel averages over a narrower window (sigma = 0.055, about half a bin of
# width 0.1). The smooth ECE has no interval of its own; a bootstrap over the rows gives one.
#
# ## 5. Cumulative differences: no bins, no bandwidth
#
# Sort the cases by score and accumulate `(y - s) / n` (Tygert 2022; Arrieta-Ibarra et al.
# 2022). Under calibration the path, divided by the length scale
# `sigma = sqrt(sum s (1 - s)) / n`, is close to a standard Brownian motion, so its
# maximum (Kolmogorov-Smirnov) and its range (Kuiper) in units of sigma have known null
# distributions. The slope of the path over a range of scores is the miscalibration there.

# %%
cumdiff = calstats.cumulative_differences(p, y)
print(f"length scale {calstats.length_scale(p):.5f}; KS = {cumdiff.ks:.3f}, "
      f"Kuiper = {cumdiff.kuiper:.3f} (in units of the length scale)")
ks_test = calstats.cal_ks_test(p, y)
kuiper_test = calstats.cal_kuiper_test(p, y)
print(f"p-values: KS {ks_test.p_value:.2g}, Kuiper {kuiper_test.p_value:.2g}")
fig_cumdiff = cumdiff.plot()

# %% [markdown]
# The path falls while the scores are low (outcomes below the scores) and climbs back
# above 0.3; the fall reaches five length scales, far outside the bar at the left that
# marks plus and minus one. Because the path starts at 0 and stays below it, KS and Kuiper
# coincide here. These tests are the most direct answer to "is this model calibrated?":
# they use no bins and no bandwidth, and their p-values are simultaneous over all scores.
#
# ## The four diagrams side by side

# %%
fig, axes = plt.subplots(2, 2, figsize=(11, 10), layout="constrained")
diagram.plot(ax=axes[0, 0])
corp.plot(ax=axes[0, 1])
smooth.plot(ax=axes[1, 0])
cumdiff.plot(ax=axes[1, 1])
fig.savefig("trusting-a-reliability-diagram.png", dpi=80)

# %% [markdown]
# ## 6. All the numbers

# %%
summary = pd.DataFrame(
    [
        ("ECE, 10 equal-width bins, [a, b) (probcal)", calstats.ece(p, y, 10), "calibration error"),
        ("ECE, 10 equal-width bins, (a, b] (scikit-learn)", calstats.ece(p, y, 10, right=True),
         "calibration error"),
        ("ECE, 5 equal-width bins", calstats.ece(p, y, 5), "calibration error"),
        ("ECE, 20 equal-width bins", calstats.ece(p, y, 20), "calibration error"),
        ("ECE, 10 equal-mass bins asked (5 used)", calstats.ece(p, y, 10, strategy="quantile"),
         "calibration error"),
        ("MCE, 10 equal-width bins", calstats.mce(p, y, 10), "largest bin gap"),
        ("smooth ECE", calstats.smece(p, y), "calibration error"),
        ("smooth ECE bandwidth", sigma, "bandwidth"),
        ("CORP MCB (Brier)", decomposition.miscalibration, "Brier units"),
        ("CORP DSC (Brier)", decomposition.discrimination, "Brier units"),
        ("CORP UNC (Brier)", decomposition.uncertainty, "Brier units"),
        ("Brier score", decomposition.mean_score, "Brier units"),
        ("CORP miscalibration test p-value", test.p_value, f"share of {N_RESAMPLES} resamples"),
        ("KS statistic", cumdiff.ks, "length scales"),
        ("KS p-value", ks_test.p_value, ""),
        ("Kuiper statistic", cumdiff.kuiper, "length scales"),
        ("Kuiper p-value", kuiper_test.p_value, ""),
    ],
    columns=["quantity", "value", "unit"],
).set_index("quantity")
summary.style.format({"value": "{:.4g}"})

# %% [markdown]
# ## Which to report
#
# No single number is "the" calibration error. For a report:
#
# * **Is it calibrated?** Give a test that needs no tuning: the KS (or Kuiper) test on
#   the cumulative differences, or the CORP miscalibration test with its number of
#   resamples.
# * **How miscalibrated, in what units?** The CORP decomposition: MCB next to DSC and UNC
#   says how much of the Brier score calibration costs and how much discrimination there
#   is, with no bins to choose (a lower bound if the curve dips). If an ECE is expected,
#   give the smooth ECE, or the binned ECE *with its bins* (number, equal-width or
#   equal-mass, which end closed: the edges from `bin_edges`), and not the minimum over
#   several binnings.
# * **Where?** Draw the CORP diagram with its band, or the binned diagram with intervals,
#   and say that the band and the intervals are pointwise.
