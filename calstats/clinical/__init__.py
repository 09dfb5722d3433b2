"""Validating clinical prediction models as in R.

* :func:`val_prob` -- ``rms::val.prob`` (rms 6.5-0) with R's numbers, plot and grouped form;
* :func:`val_prob_ci` -- the calibration hierarchy (CalibrationCurves' ``val.prob.ci.2``
  statistics): calibration-in-the-large, calibration slope, c-statistic, with confidence
  intervals, and a flexible calibration curve with a pointwise band;
* :func:`hoslem_test` -- ``ResourceSelection::hoslem.test``;
* :func:`pmcalibration`, :func:`logistic_cal`, :func:`cal_metrics` -- R's pmcalibration
  0.2.0: flexible calibration curves (gam, splines, lowess, loess, none) of binary and
  time-to-event outcomes, ICI/E50/E90/Emax/ECI with bootstrap or simulation intervals,
  logistic calibration with profile intervals and Miller's likelihood-ratio tests;
* :func:`val_multinomial` -- calibration of multiclass risk models (Van Hoorde et al.
  2014): calibration intercepts and slopes by VGAM's multinomial recalibration, flexible
  curves, ECI and the polytomous discrimination index;
* :func:`decision_curve` -- decision curve analysis (net benefit, as R's dcurves), for
  binary, time-to-event and competing-risk outcomes; :func:`net_intervention_avoided` and
  :func:`test_consequences` (dcurves' functions of those names);
* :func:`concordance`, :func:`time_auc`, :func:`time_brier`, :func:`integrated_brier`,
  :func:`cox_calibration_slope` -- discrimination and accuracy of a survival model
  (``survival::concordance``, ``riskRegression::Score``, ``pec::crps``, van Houwelingen's
  slope);
* :func:`cuminc`, :func:`cr_calibration` -- competing risks (``cmprsk::cuminc``, the
  Aalen-Johansen calibration of ``riskRegression::plotCalibration``);
* :func:`lrm`, :func:`validate`, :func:`calibrate` -- rms' logistic model with its formula
  terms (``rcs``, ``pol``, factors, interactions) and its resampling validation and
  calibration (``rms::lrm``, ``validate.lrm``, ``calibrate``, rms 6.5-0), also for any model
  that can be refitted.
"""

from .valprob import STAT_NAMES, ValProb, val_prob

__all__ = ["val_prob", "ValProb", "STAT_NAMES", "val_prob_ci", "CalibrationHierarchy", "hoslem_test",
           "ValProbGroups", "pmcalibration", "PMCalibration", "cal_metrics", "logistic_cal", "LogisticCal",
           "val_multinomial", "ValMultinomial", "decision_curve", "DecisionCurve", "net_intervention_avoided",
           "test_consequences", "TestConsequences", "concordance", "Concordance",
           "time_auc", "TimeAUC", "time_brier", "TimeBrier", "integrated_brier", "IntegratedBrier",
           "cox_calibration_slope", "CoxCalibrationSlope", "cuminc", "CumInc", "cr_calibration", "CRCalibration",
           "lrm", "Lrm", "validate", "Validation", "calibrate", "Calibration"]

_WHERE = {"lrm": "rms_lrm", "Lrm": "rms_lrm", "validate": "rms_validate", "Validation": "rms_validate",
          "calibrate": "rms_validate", "Calibration": "rms_validate",
          "val_prob_ci": "hierarchy", "CalibrationHierarchy": "hierarchy", "hoslem_test": "hoslem",
          "ValProbGroups": "valprob_group", "pmcalibration": "pmcal", "PMCalibration": "pmcal",
          "cal_metrics": "pmcal", "logistic_cal": "logcal", "LogisticCal": "logcal",
          "val_multinomial": "multinomial", "ValMultinomial": "multinomial",
          "decision_curve": "decision", "DecisionCurve": "decision", "net_intervention_avoided": "decision",
          "test_consequences": "decision", "TestConsequences": "decision",
          "concordance": "survival", "Concordance": "survival", "time_auc": "survival", "TimeAUC": "survival",
          "time_brier": "survival", "TimeBrier": "survival", "integrated_brier": "survival",
          "IntegratedBrier": "survival", "cox_calibration_slope": "survival", "CoxCalibrationSlope": "survival",
          "cuminc": "competing", "CumInc": "competing", "cr_calibration": "competing", "CRCalibration": "competing"}


def __getattr__(name):
    import importlib

    if name in _WHERE:
        return getattr(importlib.import_module("." + _WHERE[name], __name__), name)
    from .._validate import fail_no_attribute

    fail_no_attribute(__name__, name)


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
