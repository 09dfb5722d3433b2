"""Validating clinical prediction models as in R: ``rms::val.prob``, the calibration
hierarchy of Van Calster et al. (2016), and the Hosmer-Lemeshow test.

* :func:`val_prob` -- ``rms::val.prob`` (rms 6.5-0) with R's numbers, plot and grouped form;
* :func:`val_prob_ci` -- the calibration hierarchy (CalibrationCurves' ``val.prob.ci.2``
  statistics): calibration-in-the-large, calibration slope, c-statistic, with confidence
  intervals, and a flexible calibration curve with a pointwise band;
* :func:`hoslem_test` -- ``ResourceSelection::hoslem.test``.
"""

from .valprob import STAT_NAMES, ValProb, val_prob

__all__ = ["val_prob", "ValProb", "STAT_NAMES", "val_prob_ci", "CalibrationHierarchy", "hoslem_test",
           "ValProbGroups"]


def __getattr__(name):
    import importlib

    where = {"val_prob_ci": "hierarchy", "CalibrationHierarchy": "hierarchy", "hoslem_test": "hoslem",
             "ValProbGroups": "valprob_group"}
    if name in where:
        return getattr(importlib.import_module("." + where[name], __name__), name)
    raise AttributeError(f"module 'calstats.clinical' has no attribute {name!r}")
