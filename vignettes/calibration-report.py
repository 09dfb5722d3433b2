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
# # A calibration report for two competing models
#
# A validation is usually assembled by hand: the C-statistic from one call, the calibration
# slope from another, a calibration plot, a Hosmer-Lemeshow test, a decision curve, and
# then a table for the paper. `calstats.report` does it in one call and writes **one
# self-contained HTML page** to hand on: every number with its interval, one sentence
# saying what it means for these data, the figures, and the R function whose numbers each
# one reproduces.
#
# **Data.** The bundled "is it a 3?" problem (`calstats.datasets.load_digits_binary`):
# 1797 handwritten digits, 183 of them threes, with out-of-fold predictions of two
# classifiers -- the competing models:
#
# * a **linear SVM**, whose out-of-fold decision values are turned into probabilities by
#   Platt scaling, itself fitted out of fold (`calstats.cal_cv`, 5 folds);
# * a **random forest** of 50 trees, whose out-of-fold probability of a 3 is used as it
#   comes (`load_digits_probs("forest")`, column `p_3`).
#
# The forest ranks the digits a little better; which model's *probabilities* can be
# trusted is what the report is for.
#
# ![The top of the report of these two models, and its CORP reliability diagrams](../_static/report.png)

# %%
import calstats
from calstats.datasets import load_digits_binary, load_digits_probs

digits = load_digits_binary()
y = digits["label"].to_numpy()
svm = calstats.cal_cv(digits["score"].to_numpy(), y, method="platt", folds=5, seed=1, progress=False)
models = {
    "SVM + Platt": svm.oof_predictions,
    "random forest": load_digits_probs("forest")["p_3"].to_numpy(),
}
print({name: f"mean risk {p.mean():.3f}" for name, p in models.items()}, f"event rate {y.mean():.3f}")

# %% [markdown]
# ## One call
#
# The models go in as a dict (or as the columns of a DataFrame named by `models=`). The
# outcome decides the sections: for a binary outcome, discrimination, the calibration
# hierarchy, the flexible curve's errors, the CORP and binned reliability diagrams, the
# calibration tests and the decision curve. Resampling (the intervals of the curve's
# errors, the CORP band) runs on R's random stream from `seed`, which the page records.

# %%
rep = calstats.report(models, y, title="Is it a 3? A linear SVM against a random forest", seed=1)
print(rep)

# %% [markdown]
# `rep.to_html("report.html")` writes the page: no script, no network access, the figures
# inlined as SVG, so it opens anywhere and can be mailed as it is. In a notebook the
# report shows itself (here the whole page follows).

# %%
rep.to_html("calibration-report.html")
rep

# %% [markdown]
# ## Reading it
#
# Every key number is also a row of `rep.as_frame()`, with its interval, p-value and
# sentence, for a table of one's own. The calibration hierarchy tells the two models
# apart: the forest's slope is far above 1 -- its probabilities are too modest, piled up
# near 0 and 1 less than they should be, the usual picture of an averaged ensemble --
# while the Platt-scaled SVM's slope is near 1 and its interval covers 1.

# %%
frame = rep.as_frame()
frame[frame.section.isin(["hierarchy", "curve"])][["label", "model", "estimate", "lower", "upper"]].round(3)

# %% [markdown]
# Each number carries one sentence written from it:

# %%
for _, row in frame[frame.statistic.isin(["slope", "Eavg", "mcb"])].iterrows():
    print(f"{row['model']:>14} | {row['label']}: {row['sentence']}")

# %% [markdown]
# The tests agree: the cumulative-difference tests, Spiegelhalter's and Hosmer-Lemeshow's
# find no miscalibration of the calibrated SVM and clear miscalibration of the forest. The
# forest's slightly higher C-statistic does not buy it a better Brier score: the CORP
# decomposition puts its loss on miscalibration (MCB), which recalibration would remove.

# %%
frame[frame.section == "tests"][["label", "model", "estimate", "p_value"]]

# %% [markdown]
# ## Choices
#
# The report's settings are keywords: the bins of the binned diagram and the ECE
# (`bins`, `strategy`), the per-bin `interval`, the confidence `level`, the sizes of the
# resamplings (`n_sim`, `n_resamples`; `n_boot` for a time-to-event outcome), the
# Hosmer-Lemeshow groups `g`, the decision curve's `thresholds`, and the `sections` to
# compute. A multiclass outcome (one probability matrix per model) gets the PDI and
# multinomial calibration (`calstats.clinical.val_multinomial`) and top-label diagrams; a
# time-to-event outcome `y = (time, status)` with a horizon `time=` gets the flexible
# curve's errors by that time and the decision curve.

# %%
quick = calstats.report(models, y, sections=["binned", "tests"], bins="sqrt", strategy="quantile",
                        interval="jeffreys", figures=False)
quick.as_frame()[["section", "label", "model", "estimate", "p_value"]]

# %% [markdown]
# The tables go to a paper as LaTeX (booktabs) or to a README as Markdown:

# %%
print(quick.to_markdown(details=False))

# %%
print(quick.to_latex(details=False)[:600])

# %% [markdown]
# ## On the command line
#
# `calstats report` writes the same page from a CSV or Parquet file (a directory of
# Parquet files is read through Dask), never over an existing file without `--force`:
#
# ```sh
# calstats report                                   # these two models on the bundled data: report.html
# calstats report preds.csv --label y --models svm forest -o report.html
# calstats report long.csv --label y --model-column model --columns p -o report.html
# calstats report cohort.parquet --time t --status died --horizon 5 --models risk5 -o report.html
# ```
#
# The last section of the page, "How this report was computed", lists every function
# called, the R function it reproduces, the seed, and the call that reruns the report.

# %%
for sec in rep.sections[1:4]:
    for what, call, r in sec.sources:
        print(f"{sec.title}: {what}\n    calstats: {call}\n    R:        {r}")
