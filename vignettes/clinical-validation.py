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
# # Validating a clinical prediction model
#
# This vignette ports the R workflow of external validation of a risk model:
# Harrell's `rms::val.prob`, the calibration hierarchy of Van Calster et al. (2016;
# CalibrationCurves' `val.prob.ci.2`), and the Hosmer-Lemeshow test. The R analysis it
# mirrors is
#
# ```r
# library(rms)
# fit <- lrm(y ~ age + sbp + marker, data = dev)
# p <- predict(fit, newdata = val, type = "fitted")
# v <- val.prob(p, val$y, g = 10)                 # statistics and calibration plot
# val.prob(p, val$y, group = val$site, pl = FALSE) # by hospital
# ResourceSelection::hoslem.test(val$y, p, g = 10)
# ```
#
# **Data.** Simulated, so that the truth is known (seed 2016, NumPy's `default_rng`): a
# development cohort of 1500 patients and a validation cohort of 1000 patients from three
# hospitals with an older case mix and a higher baseline risk. The outcome follows a
# logistic model in age, systolic blood pressure and a biomarker; in the validation
# population the intercept is 0.4 higher and the marker's effect is weaker, so a model
# developed on the first cohort is expected to underestimate risk and to be too extreme.

# %%
import numpy as np
import pandas as pd

import calstats
import calstats.formula.api as cf
from calstats.clinical.logistic import logistic_mle

rng = np.random.default_rng(2016)


def cohort(n, age_mean, intercept, marker_effect):
    age = rng.normal(age_mean, 10, n)
    sbp = rng.normal(135, 18, n)
    marker = rng.lognormal(0, 0.6, n)
    lp = intercept + 0.05 * (age - 60) + 0.02 * (sbp - 135) + marker_effect * np.log(marker)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-lp))).astype(int)
    return pd.DataFrame({"age": age, "sbp": sbp, "marker": marker, "y": y})


dev = cohort(1500, 58, -1.2, 1.4)
val = cohort(1000, 64, -0.8, 0.9)
val["site"] = rng.choice(["Leuven", "Rotterdam", "Utrecht"], size=len(val))
print(f"development: {len(dev)} patients, {dev.y.mean():.1%} events; "
      f"validation: {len(val)} patients, {val.y.mean():.1%} events")

# %% [markdown]
# ## The model
#
# A main-effects logistic regression fitted on the development cohort (R: `lrm`), then
# applied to the validation cohort.

# %%
def design(d):
    return np.column_stack([np.ones(len(d)), d.age - 60, d.sbp - 135, np.log(d.marker)])


fit = logistic_mle(design(dev), dev.y.to_numpy())
print("coefficients:", np.round(fit.coef, 3))
val["p"] = 1 / (1 + np.exp(-(design(val) @ fit.coef)))

# %% [markdown]
# ## `val_prob`: the rms statistics and plot
#
# `calstats.val_prob(p, y)` returns R's named statistics: discrimination (`Dxy`,
# `C (ROC)`), Nagelkerke's `R2`, the discrimination index `D`, the unreliability index
# `U` with its test, the quality index `Q`, the `Brier` score, the logistic recalibration
# `Intercept` and `Slope`, the errors of the lowess calibration curve (`Emax`, `E90`,
# `Eavg`), and Spiegelhalter's z test. `D:p` is `NA`, as in rms 6.5-0. With `g = 10` the plot
# shows the observed proportions in deciles of risk.

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 6))
v = calstats.val_prob(val.p, val.y, g=10, ax=ax)
print(v)

# %% [markdown]
# The slope below 1 says the predictions are too extreme for the new population and the
# logistic intercept and the smooth curve above the diagonal say risks are underestimated.
# Single statistics are items of the result: `v["Slope"]`, `v["Eavg"]`; `v.stats` is the
# pandas Series.

# %%
print(f"slope {v['Slope']:.3f}, Eavg {v['Eavg']:.4f}, c-statistic {v['C (ROC)']:.3f}")

# %% [markdown]
# ## By hospital
#
# `group=` gives rms's `val.probg` statistics per group and overall: mean predicted (`Pavg`)
# and observed (`Obs`) risk, calibration chi-squares, the mean calibration error and its
# ratio to the 5-95% range of p, the median odds-ratio error, the c index and Brier scores.

# %%
by_site = calstats.val_prob(val.p, val.y, group=val.site, pl=False)
by_site.stats.round(3)

# %%
by_site.quantiles.round(3)

# %% [markdown]
# ## The calibration hierarchy with confidence intervals
#
# Van Calster et al. (2016) order calibration from *mean* (calibration-in-the-large:
# the intercept with the slope fixed at 1, i.e. `logit(p)` as an offset), through *weak*
# (the calibration slope) to *moderate* (a flexible calibration curve). `val_prob_ci` is
# CalibrationCurves' `val.prob.ci.2`: it reports them with Wald intervals, R's c-statistic
# (`rms::lrm.fit`'s c index) with CalibrationCurves' default (Pepe) interval, the exact AUC
# with a DeLong interval (`h.auc`), and R's loess curve with a pointwise 95% band;
# `print(h)` is R's printed statistics.

# %%
fig, ax = plt.subplots(figsize=(6, 6))
h = calstats.val_prob_ci(val.p, val.y, ax=ax)
print(h.summary())

# %% [markdown]
# A restricted cubic spline curve (`smooth="rcs"`, Harrell's knots) is the alternative for
# large samples.

# %%
h_rcs = calstats.val_prob_ci(val.p, val.y, smooth="rcs", nr_knots=4, pl=False)
h_rcs.table.round(3)

# %% [markdown]
# ## Recalibration
#
# Refitting the intercept and slope on the validation cohort (logistic recalibration) fixes
# mean and weak calibration by construction; the hierarchy then shows what is left.

# %%
a, b = v["Intercept"], v["Slope"]
val["p_recal"] = 1 / (1 + np.exp(-(a + b * np.log(val.p / (1 - val.p)))))
print(calstats.val_prob_ci(val.p_recal, val.y, pl=False).table.round(3))

# %% [markdown]
# ## Hosmer-Lemeshow
#
# The classic test on deciles of risk (ResourceSelection's definition, `g - 2` degrees of
# freedom). Its degrees of freedom are those of a model fitted on the same data. On external
# data nothing is estimated, and Hosmer and Lemeshow's reference distribution has `g`
# degrees of freedom: `df=10` below. With 1000 patients the test is sensitive to small
# miscalibration, which is why the hierarchy above is the recommended summary.

# %%
print(calstats.hoslem_test(val.y, val.p, g=10, df=10))
print(calstats.hoslem_test(val.y, val.p_recal, g=10))

# %% [markdown]
# ## The formula interface
#
# The same analyses from a data frame, statsmodels style.

# %%
print(cf.hoslem_test("y ~ p", data=val))
cf.val_prob("y ~ p", data=val, pl=False).stats.round(4)


# %% [markdown]
# ## The integrated calibration index with a confidence interval
#
# Austin and Steyerberg (2019) summarise the flexible calibration curve by the mean
# absolute difference between predicted and curve-implied risk (`Eavg`, the ICI), its
# median, 90th percentile and maximum, and the mean squared difference (`ECI`, Van Hoorde
# et al. 2015). `calstats.clinical.pmcalibration` is R's pmcalibration 0.2.0: the same
# smooths (mgcv's `gam` by default, restricted cubic, natural and B-splines, lowess, loess,
# or a plain logistic fit), and intervals by simulation from the fit (`ci="sim"`), by the
# bootstrap (`ci="boot"`), or pointwise for the curve only (`ci="pw"`). The R call
#
# ```r
# set.seed(2019)
# pmcalibration(val$y, val$p, smooth = "rcs", nk = 5, ci = "boot", n = 200)
# ```
#
# draws the same resamples as the one below (calstats carries R's random stream).

# %%
from calstats.clinical import logistic_cal, pmcalibration

ici = pmcalibration(val.y, val.p, smooth="rcs", nk=5, ci="boot", n=200, seed=2019)
print(ici)
ici.conf_int().round(4)

# %%
fig, ax = plt.subplots(figsize=(6, 6))
ici.plot(ax=ax)

# %% [markdown]
# `logistic_cal` is pmcalibration's logistic calibration: the calibration intercept (the
# offset model) and slope with profile-likelihood intervals, and Miller's likelihood-ratio
# tests of weak calibration.

# %%
print(logistic_cal(val.y, val.p))

# %% [markdown]
# ## A time-to-event outcome
#
# Survival models are validated at a horizon: the predicted probability of the event by
# time *t* against the calibration curve of Austin, Harrell and van Klaveren (2020), a Cox
# model of the outcome on a spline of `cloglog(p)` (pmcalibration's default transform for
# survival).
# **Data:** the Stanford heart transplant survival data shipped with statsmodels (Miller
# 1976; 69 patients, survival in days after transplant, 45 deaths). **Model:** a
# constant-hazard prediction of death within a year, the crude death rate per day times
# a hazard ratio of 1.03 per year of age, the kind of simple model a registry publishes.
# Most deaths come early after transplant, so a constant hazard is expected to misjudge
# one-year risk. The R call is
#
# ```r
# set.seed(1976)
# pmcalibration(Surv(survival, censors), p_year, smooth = "rcs", nk = 3, time = 365,
#               ci = "boot", n = 200)
# ```

# %%
import statsmodels.api as sm

heart = sm.datasets.heart.load_pandas().data
rate = heart.censors.sum() / heart.survival.sum()
p_year = 1 - np.exp(-365 * rate * 1.03 ** (heart.age - heart.age.mean()))
tte = pmcalibration((heart.survival, heart.censors), p_year, smooth="rcs", nk=3, time=365, ci="boot",
                    n=200, seed=1976)
print(tte)

# %%
fig, ax = plt.subplots(figsize=(6, 6))
tte.plot(ax=ax)

# %% [markdown]
# ## Three outcome classes
#
# For a risk model of K outcomes, Van Hoorde et al. (2014) recalibrate the linear
# predictors `log(p_k / p_1)` in a multinomial logistic model (R: `VGAM::vglm(y ~ lp2 +
# lp3, multinomial(refLevel = 1))`): calibration intercepts with the predictors as
# offsets, calibration slopes with each predictor in its own equation, and
# likelihood-ratio tests of both. The polytomous discrimination index (PDI) is the
# multiclass c-statistic. Here a three-class model whose predictors are 40% too extreme:

# %%
from calstats.clinical import val_multinomial

z = rng.normal(size=(800, 3)) * [1.0, 1.2, 0.8]
true = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
outcome = np.array([rng.choice(3, p=row) for row in true]) + 1
predicted = np.exp(1.4 * z) / np.exp(1.4 * z).sum(axis=1, keepdims=True)
three = val_multinomial(pd.DataFrame(predicted, columns=["benign", "borderline", "malignant"]), outcome)
print(three)

# %%
three.plot()

# %% [markdown]
# ## Clinical usefulness: the decision curve
#
# Net benefit (Vickers and Elkin 2006) weighs true positives against false positives at the
# odds of the risk threshold a clinician would act on: `TP/n - FP/n * t / (1 - t)`, against
# treating everyone and treating no one (as R's dcurves computes it). The recalibrated
# model cannot be worse than the original where both are used.

# %%
from calstats.clinical import decision_curve

dca = decision_curve(val[["p", "p_recal"]].rename(columns={"p": "original", "p_recal": "recalibrated"}),
                     val.y, thresholds=np.arange(1, 61) / 100)
fig, ax = plt.subplots(figsize=(7, 4.5))
dca.plot(ax=ax)
dca.as_frame().query("threshold in [0.1, 0.2, 0.3]")

# %% [markdown]
# The formula versions take the same arguments: `cf.pmcalibration("y ~ p", data=val)`,
# `cf.decision_curve("y ~ p + p_recal", data=val)`, and
# `cf.pmcalibration("Surv(survival, censors) ~ p", data=..., time=365)` for a survival
# outcome.
