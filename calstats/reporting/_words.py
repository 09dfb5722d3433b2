"""One plain sentence per number, written from the number for a reader who did not run the
analysis: what it says about these predictions, in their units (risk points, odds, shares).

Every function takes the numbers the report shows and returns one sentence. Percentages are
of risk (0-100); "points" are percentage points of risk.
"""

import math

__all__ = ["pct", "points", "fmt_p", "level_text", "GLOSSARY", "SMOOTHS"]

#: Every abbreviation the page uses, explained once (in the order the page meets them).
GLOSSARY = {
    "AUC": "area under the receiver operating characteristic (ROC) curve, the C-statistic",
    "CI": "confidence interval",
    "O:E": "observed over expected events (the sum of the predicted risks)",
    "ICI": "integrated calibration index, also Eavg: the mean absolute difference between the predicted risks and "
           "the calibration curve",
    "E50": "the median of those differences",
    "E90": "their 90th percentile",
    "Emax": "their largest value",
    "ECI": "estimated calibration index: the mean squared difference between predicted and recalibrated risks, "
           "times 100",
    "gam": "generalized additive model (a penalized spline, R's mgcv::gam)",
    "rcs": "restricted cubic spline",
    "ns": "natural cubic spline",
    "bs": "B-spline",
    "loess": "local polynomial regression (R's loess)",
    "lowess": "locally weighted scatterplot smoothing (R's lowess)",
    "CORP": "consistent, optimally binned, reproducible and based on the pool-adjacent-violators algorithm "
            "(a reliability diagram)",
    "PAV": "pool-adjacent-violators algorithm (isotonic regression)",
    "CEP": "conditional event probability: the observed risk among the cases given a prediction",
    "MCB": "miscalibration, the part of the Brier score that recalibration removes",
    "DSC": "discrimination, the part by which the recalibrated predictions beat the base rate",
    "UNC": "uncertainty, the Brier score of the base rate",
    "ECE": "expected calibration error",
    "PDI": "polytomous discrimination index",
    "LR": "likelihood ratio",
    "df": "degrees of freedom",
    "G, H, Z": "the Kolmogorov-Smirnov, Kuiper and Spiegelhalter test statistics",
    "X²": "the chi-squared statistic",
    "AUC(t)": "the AUC at time t: cases have the event by t, controls are still free of it at t",
    "IPCW": "inverse probability of censoring weights (the Kaplan-Meier estimate of staying uncensored)",
    "IPA": "index of prediction accuracy: 1 minus the ratio of the Brier score to the null model's (Kattan and Gerds 2018)",
    "IBS": "integrated Brier score: the Brier score averaged over time",
}

#: The flexible curves of pmcalibration, in words.
SMOOTHS = {"gam": "a gam", "rcs": "a restricted cubic spline (rcs)", "ns": "a natural spline (ns)",
           "bs": "a B-spline (bs)", "lowess": "lowess", "loess": "loess", "none": "logistic recalibration"}


def pct(v: float, digits: int = 1) -> str:
    """``0.1234`` -> ``"12.3%"``."""
    return "NA" if not math.isfinite(v) else f"{100 * v:.{digits}f}%"


def points(v: float, digits: int = 1) -> str:
    """A difference of risks in percentage points: ``0.021`` -> ``"2.1 points"``; a
    difference that would round to zero keeps two significant digits (``0.000424`` ->
    ``"0.042 points"``), so that a small error never reads as none."""
    x = abs(100 * v)
    text = f"{x:.{digits}f}"
    if 0 < x and float(text) == 0:
        text = f"{x:.2g}"
    return f"{text} point{'' if text == '1.0' else 's'}"


def fmt_p(p: float) -> str:
    """A p-value as shown: ``< 0.0001``, four decimals below 0.01, else three."""
    if not math.isfinite(p):
        return "NA"
    if p < 1e-4:
        return "< 0.0001"
    if p < 0.01:
        return f"{p:.4f}"
    return f"{p:.3f}"


def _p_words(p: float) -> str:
    shown = fmt_p(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def level_text(level: float) -> str:
    """``0.95`` -> ``"95%"``."""
    return f"{100 * level:g}%"


def _ci(lo, hi, f, level: float) -> str:
    return f"{level_text(level)} CI {f(lo)} to {f(hi)}" if lo is not None and math.isfinite(lo) else ""


# --------------------------------------------------------------------------------------
# data


def rows(n: int, kind: str) -> str:
    what = {"binary": "an observed 0/1 outcome", "multiclass": "an observed class",
            "survival": "a follow-up time and an event status",
            "competing": "a follow-up time with the cause of its event (if any)"}[kind]
    return f"{n} cases, each with {what} and a prediction from every model."


def events(k: int, n: int) -> str:
    return f"{k} of the {n} cases ({pct(k / n)}) had the event."


def event_rate(rate: float, weighted: bool) -> str:
    return (f"The {'weighted ' if weighted else ''}share of cases with the event is {pct(rate)}: what a model "
            "that gives everyone the same risk should predict.")


def weight_sum(total: float, n: int) -> str:
    return (f"Rows carry case weights summing to {total:.6g} over {n} rows; means, bins, the CORP diagram, the "
            "tests and the decision curve are weighted.")


def mean_risk(mean: float, observed: float, what: str = "the observed rate") -> str:
    d = mean - observed
    if abs(100 * d) < 0.05:
        return f"Predicted risks average {pct(mean)}, matching {what} ({pct(observed)})."
    side = "high" if d > 0 else "low"
    return f"Predicted risks average {pct(mean)} against {what} of {pct(observed)}: {points(d)} too {side} on average."


def extremes(k: int, n: int) -> str:
    if k == 0:
        return "No predicted risk is exactly 0 or 1."
    return (f"{k} of the {n} predicted risks are exactly 0 or 1; their logit is infinite, so logistic "
            "calibration and the flexible ICI curve leave those rows out.")


def classes(k: int) -> str:
    return f"{k} classes; each model gives a probability for every class (rows summing to 1)."


def accuracy(acc: float, conf: float) -> str:
    d = conf - acc
    if abs(100 * d) < 0.05:
        return f"The most probable class is right for {pct(acc)} of the cases, as often as the mean confidence says."
    side = "over" if d > 0 else "under"
    return (f"The most probable class is right for {pct(acc)} of the cases while its probability averages "
            f"{pct(conf)}: {side}-confident by {points(d)}.")


def censored(k: int, n: int) -> str:
    return f"{k} of the {n} cases ({pct(k / n)}) were censored (left follow-up without the event)."


def horizon(t: float, what: str = "the event") -> str:
    return f"Predictions are risks of {what} by time {t:g}; calibration is judged at this horizon."


def km_risk(r: float, t: float) -> str:
    return (f"The Kaplan-Meier estimate of the risk of the event by time {t:g} is {pct(r)}, the observed "
            "counterpart of the mean predicted risk.")


def beyond(k: int, n: int, t: float) -> str:
    return f"{k} of the {n} cases were followed beyond time {t:g}."


def cause_events(k: int, n: int, cause: str, of_interest: bool) -> str:
    role = "the cause of interest" if of_interest else "a competing event: it prevents the event of interest"
    return f"{k} of the {n} cases ({pct(k / n)}) had an event of cause {cause}, {role}."


def cuminc_risk(r: float, cause: str, t: float, of_interest: bool) -> str:
    tail = (", the observed counterpart of the mean predicted risk" if of_interest else "")
    return (f"The Aalen-Johansen estimate of the risk of cause {cause} by time {t:g}, with the other causes "
            f"competing, is {pct(r)}{tail}.")


# --------------------------------------------------------------------------------------
# discrimination


def c_statistic(c: float, lo: float, hi: float, level: float) -> str:
    tail = ", no better than chance" if lo <= 0.5 else ""
    return (f"Of two cases, one with and one without the event, the one with the event has the higher predicted "
            f"risk {pct(c)} of the time ({_ci(lo, hi, pct, level)}; 50% is chance){tail}.")


def c_index_r(c: float, lo: float, hi: float, level: float, method: str) -> str:
    return (f"R's val.prob.ci.2 C-statistic: the c index of the logistic recalibration fit, its predictions binned "
            f"in steps of 0.0002 ({pct(c)}, {_ci(lo, hi, pct, level)} by {method}'s method); the exact AUC is "
            "the row above.")


def _ci_or_none(lo, hi, level: float, chance: bool = True) -> str:
    parts = [] if _no_interval(lo, hi) else [_ci(lo, hi, pct, level)]
    if chance:
        parts.append("50% is chance")
    return f" ({'; '.join(parts)})" if parts else ""


def harrell(c: float, lo: float | None, hi: float | None, level: float) -> str:
    tail = ", no better than chance" if lo is not None and math.isfinite(lo) and lo <= 0.5 else ""
    return (f"Of two cases whose order of events is known, the one with the earlier event has the higher predicted "
            f"risk {pct(c)} of the time{_ci_or_none(lo, hi, level)}{tail}, over the whole follow-up.")


def uno(c: float, lo: float | None, hi: float | None, level: float, harrell_c: float | None) -> str:
    near = ""
    if harrell_c is not None and math.isfinite(harrell_c):
        d = c - harrell_c
        near = (", close to Harrell's" if abs(100 * d) < 0.5 else
                f", {points(d)} {'above' if d > 0 else 'below'} Harrell's")
    return (f"The same count with pairs weighted by the inverse square of the chance of staying uncensored "
            f"(Uno's C, less dependent on the censoring): {pct(c)}{_ci_or_none(lo, hi, level, False)}{near}.")


def auc_t(v: float, lo: float | None, hi: float | None, t: float, level: float, what: str = "the event") -> str:
    tail = ", no better than chance" if lo is not None and math.isfinite(lo) and lo <= 0.5 else ""
    return (f"Of two cases, one with {what} by time {t:g} and one without it then, the one with {what} "
            f"has the higher predicted risk {pct(v)} of the time{_ci_or_none(lo, hi, level)}{tail}.")


def brier_t(b: float, null: float | None, t: float, what: str = "the event") -> str:
    ref = ""
    if null is not None and math.isfinite(null):
        side = "better than" if b < null else ("worse than" if b > null else "the same as")
        ref = f"; giving everyone the same observed risk scores {null:.4f}, so the model does {side} that"
    return (f"The mean squared difference between the predicted risk and {what} by time {t:g} (IPCW) is "
            f"{b:.4f}{ref}.")


def brier_null(b: float, t: float, estimator: str = "Kaplan-Meier") -> str:
    return (f"The Brier score of giving everyone the {estimator} risk by time {t:g}, the benchmark a model must "
            f"beat: {b:.4f}.")


def ipa(v: float, t: float) -> str:
    if v < 0:
        return (f"The model's Brier score by time {t:g} is {pct(-v)} worse than the null model's: it predicts "
                "less well than giving everyone the observed risk.")
    return (f"The model removes {pct(v)} of the null model's Brier score by time {t:g} (0% is no better than "
            "giving everyone the observed risk, 100% is perfect).")


def ibs(v: float, null: float | None, t: float) -> str:
    ref = f", against {null:.4f} for the null model" if null is not None and math.isfinite(null) else ""
    return (f"The Brier score averaged over time from 0 to {t:g} (a step function through the times of the "
            f"report) is {v:.4f}{ref}.")


def cox_slope(b: float, lo: float, hi: float, p: float) -> str:
    test = f" (test of slope 1: {_p_words(p)})"
    if _no_interval(lo, hi):
        return f"The estimate {b:.3g} " + _UNSTABLE
    if _contains(lo, hi, 1.0):
        return f"The spread of the predicted risks is right within the uncertainty: the interval includes 1{test}."
    if b < 1:
        return (f"Predicted risks are too extreme, high risks too high and low risks too low: the log hazard "
                f"should shrink by {pct(1 - b, 0)}{test}.")
    return (f"Predicted risks are too modest, high risks too low and low risks too high: the log hazard should "
            f"spread {pct(b - 1, 0)} further{test}.")


def pdi(v: float, k: int) -> str:
    return (f"Given one case of each of the {k} classes, the model's probability of a class is highest for the "
            f"case truly in it {pct(v, 0)} of the time, averaged over classes (chance: {pct(1 / k, 0)}).")


def pdi_class(v: float, name: str, k: int) -> str:
    return (f"Among one case of each class, the case of class {name} has the highest probability of {name} "
            f"{pct(v, 0)} of the time (chance: {pct(1 / k, 0)}).")


# --------------------------------------------------------------------------------------
# the calibration hierarchy


def _contains(lo, hi, v):
    return lo is not None and math.isfinite(lo) and lo <= v <= hi


def _no_interval(lo, hi) -> bool:
    return lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi))


_UNSTABLE = ("has no interval (its standard error is not finite): the logistic fit does not settle on these "
             "extreme risks, so read it as a warning sign rather than a measurement.")


def citl(a: float, lo: float, hi: float) -> str:
    if _no_interval(lo, hi) or abs(a) > 50:
        return f"The estimate {a:.3g} " + _UNSTABLE
    ratio = math.exp(a)
    if _contains(lo, hi, 0.0):
        return (f"The average risk is right within the uncertainty (the interval of the log odds ratio {a:.2f} "
                "includes 0).")
    side = "too low" if a > 0 else "too high"
    return (f"Observed odds of the event are {ratio:.2f} times the predicted odds on average: predicted risks "
            f"are {side} overall.")


def slope(b: float, lo: float, hi: float) -> str:
    if _no_interval(lo, hi):
        return f"The estimate {b:.3g} " + _UNSTABLE
    if _contains(lo, hi, 1.0):
        return "The spread of the predicted risks is right within the uncertainty (the interval includes 1)."
    if b < 1:
        return (f"Predicted risks are too extreme: high risks too high and low risks too low (the log odds "
                f"should shrink by {pct(1 - b, 0)} toward their mean).")
    return (f"Predicted risks are too modest: high risks too low and low risks too high (the log odds should "
            f"spread {pct(b - 1, 0)} further from their mean).")


def oe(ratio: float, observed: float) -> str:
    expected = observed / ratio if ratio else math.nan
    return (f"The model expects {expected:.1f} events (the sum of its risks); {observed:.0f} were observed, "
            f"{ratio:.2f} times as many.")


def mc_intercept(a: float, lo: float, hi: float, name: str, ref: str) -> str:
    if _no_interval(lo, hi) or abs(a) > 50:
        return f"The estimate {a:.3g} " + _UNSTABLE
    if _contains(lo, hi, 0.0):
        return f"Class {name} against {ref} is as frequent as predicted within the uncertainty (interval includes 0)."
    side = "under" if a > 0 else "over"
    return (f"Class {name} occurs {math.exp(a):.2f} times as often, relative to class {ref}, as predicted: "
            f"it is {side}-predicted.")


def mc_slope(b: float, lo: float, hi: float, name: str, ref: str) -> str:
    if _no_interval(lo, hi):
        return f"The estimate {b:.3g} " + _UNSTABLE
    if _contains(lo, hi, 1.0):
        return (f"The log odds of {name} against {ref} spread as they should within the uncertainty (interval "
                "includes 1).")
    word = "too extreme" if b < 1 else "too modest"
    return f"The predicted log odds of {name} against {ref} are {word} (slope {b:.2f}, 1 is ideal)."


def lr_test(name: str, p: float) -> str:
    what = {"overall": "Intercepts 0 and slopes 1 together",
            "intercepts": "Intercepts 0 (given slopes 1)",
            "slopes": "Slopes 1 (given the intercepts)",
            "recalibration": "The identity recalibration (no intercept, no cross terms)"}.get(name, name)
    verdict = "are rejected" if p < 0.05 else "fit the data"
    return f"{what} {verdict} ({_p_words(p)})."


def eci_multiclass(v: float) -> str:
    return (f"The mean squared distance between the predicted and the flexibly recalibrated probabilities, "
            f"times 100, is {v:.3f} (0 is perfect).")


# --------------------------------------------------------------------------------------
# the flexible curve's indices (pmcalibration)


def ici(v: float, lo, hi, level: float) -> str:
    ci = f" ({level_text(level)} CI {100 * lo:.1f} to {points(hi)})" if not _no_interval(lo, hi) else ""
    return f"Predicted risks are {points(v)} away from the calibration curve on average{ci}."


def e50(v: float, lo, hi, level: float) -> str:
    return f"Half of the cases have a calibration error below {points(v)}."


def e90(v: float, lo, hi, level: float) -> str:
    return f"Nine cases in ten have a calibration error below {points(v)}."


def emax(v: float, lo, hi, level: float) -> str:
    return f"The largest calibration error over the predicted risks seen is {points(v)}."


def eci(v: float, lo, hi, level: float) -> str:
    return f"The mean squared calibration error, times 100, is {v:.3f} (0 is perfect; it weighs large errors more)."


# --------------------------------------------------------------------------------------
# CORP


def brier(s: float, unc: float, top: bool = False) -> str:
    if top:
        return (f"The mean squared difference between the top-label probability and whether the top label is "
                f"right is {s:.4f}; predicting the overall accuracy for everyone scores {unc:.4f}.")
    return (f"The mean squared difference between predicted risk and outcome is {s:.4f}; predicting the event "
            f"rate for everyone scores {unc:.4f}.")


def mcb(v: float, s: float, top: bool = False) -> str:
    share = v / s if s > 0 else math.nan
    what = "top-label probabilities" if top else "risks"
    return (f"Recalibrating the {what} (isotonic regression) would lower the Brier score by {v:.4f}, "
            f"{pct(share, 0)} of it: the price of miscalibration.")


def dsc(v: float, unc: float, top: bool = False) -> str:
    share = v / unc if unc > 0 else math.nan
    what = "the overall accuracy" if top else "the event rate"
    return (f"After recalibration the predictions improve on {what} for everyone by {v:.4f}, {pct(share, 0)} "
            "of the uncertainty: the value of discrimination.")


def unc(v: float, top: bool = False) -> str:
    what = "the overall accuracy" if top else "the observed event rate"
    return f"The Brier score of predicting {what} for everyone; it depends on the data alone."


# --------------------------------------------------------------------------------------
# binned


def ece(v: float, binning: str, what: str = "the observed event rate", predicted: str = "the mean predicted risk") -> str:
    return (f"Across {binning}, {what} differs from {predicted} by {points(v)} on average (bins weighted by "
            "their size).")


def ece_classwise(v: float, binning: str) -> str:
    return (f"Per class (one against the rest, {binning}), observed and predicted frequencies differ by "
            f"{points(v)} on average over bins and classes.")


# --------------------------------------------------------------------------------------
# tests


def ks(p: float) -> str:
    if p < 0.05:
        return (f"The largest cumulative gap between outcomes and predicted risks is larger than calibrated risks "
                f"would give ({_p_words(p)}): evidence of miscalibration.")
    return f"The largest cumulative gap between outcomes and predicted risks is as calibrated risks give ({_p_words(p)})."


def kuiper(p: float) -> str:
    if p < 0.05:
        return (f"The range of the cumulative gap between outcomes and predicted risks is larger than calibrated "
                f"risks would give ({_p_words(p)}): evidence of miscalibration.")
    return f"The range of the cumulative gap between outcomes and risks is as calibrated risks give ({_p_words(p)})."


def spiegelhalter(z: float, p: float) -> str:
    if p >= 0.05:
        return f"The Brier score is what calibrated risks would give ({_p_words(p)})."
    if z > 0:
        return (f"The Brier score is worse than calibrated risks would give ({_p_words(p)}), the pattern of "
                "over-confident risks.")
    return (f"The Brier score is better than calibrated risks would give ({_p_words(p)}), the pattern of "
            "too modest risks.")


def hosmer(g: int, df: float, p: float) -> str:
    verdict = "more than chance explains" if p < 0.05 else "no more than chance explains"
    return (f"In {g} groups of predicted risk, observed and expected event counts differ {verdict} "
            f"({df:g} df, {_p_words(p)}).")


# --------------------------------------------------------------------------------------
# decision curve


def _worth(nb: float) -> str:
    if nb >= 0:
        return f"worth {100 * nb:.1f} true events found per 100 cases net of unnecessary treatment"
    return f"a net loss of {100 * -nb:.1f} true events per 100 cases: worse than treating no one"


def net_benefit(nb: float, t: float, nb_all: float) -> str:
    return f"Treating by the model: {_worth(nb)} (treating everyone: {100 * nb_all:.1f})."


def net_benefit_all(nb: float, t: float) -> str:
    return f"Treating everyone: {_worth(nb)}."


def best_range(lo, hi, k: int, total: int) -> str:
    if k == 0:
        return "At no threshold does the model beat both treating everyone and treating no one."
    return (f"The model beats both treating everyone and treating no one at {k} of the {total} thresholds, "
            f"between {pct(lo, 0)} and {pct(hi, 0)}.")
