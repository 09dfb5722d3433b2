"""calstats: calibrating the probabilities of classifiers.

An R-exact port of the R package probcal (same function names, arguments, defaults,
messages and numbers) plus the methods of the research behind it.
"""

from typing import TYPE_CHECKING

from ._errors import CalstatsError, CalstatsWarning
from ._factor import Factor
from ._options import get_option, option_context, set_option
from ._results import Calibrator, CalibratorSummary, predict, summary
from .dirichlet import CalDirichlet, cal_dirichlet

__version__ = "0.1.0"

if TYPE_CHECKING:  # the names below are imported on first use (_LAZY); type checkers see them here
    from . import clinical, datasets, rng
    from .binning import CalHistogram, CalIsotonic, cal_histogram, cal_isotonic
    from .caltests import cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test
    from .classweights import loss_calibration_curve, loss_correct
    from .clinical import hoslem_test, val_prob, val_prob_ci
    from .compare import cal_compare
    from .cv import CalCv, cal_cv
    from .diagnostics import ReliabilityDiagram, reliability_diagram
    from .evidential import cal_evidential, combine_calibrated
    from .htest import HTest
    from .inference import cal_ci, cal_test, skce
    from .matrix_scaling import cal_dirichlet_l2, cal_matrix_scaling, canonical, confusion_change
    from .metrics import ace, ece, mce, mmce
    from .ovr import CalOvr, cal_ovr
    from .scaling import (CalBeta, CalPlatt, CalTemperature, CalVectorScaling, cal_beta, cal_platt,
                          cal_temperature, cal_vector_scaling)
    from .scores import brier_score, classwise_ece, confidence_ece, log_loss
    from .toplabel import cal_top_label, top_label_ece
    from .transforms import inv_logit, logit

_LAZY_NAMES = [
    "rng", "cal_platt", "cal_beta", "cal_temperature", "cal_vector_scaling", "CalPlatt", "CalBeta",
    "CalTemperature", "CalVectorScaling", "logit", "inv_logit", "cal_isotonic", "cal_histogram",
    "CalIsotonic", "CalHistogram", "cal_ovr", "CalOvr", "cal_cv", "CalCv", "ece", "mce", "ace", "mmce",
    "reliability_diagram", "ReliabilityDiagram", "HTest", "cal_matrix_scaling", "cal_dirichlet_l2",
    "canonical", "confusion_change", "cal_top_label", "top_label_ece", "brier_score", "log_loss",
    "confidence_ece", "classwise_ece", "cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test",
    "cal_evidential", "combine_calibrated", "loss_correct", "loss_calibration_curve", "skce", "cal_test",
    "cal_ci", "cal_compare", "datasets", "val_prob", "val_prob_ci", "hoslem_test", "clinical",
]

__all__ = [
    "CalstatsError",
    "CalstatsWarning",
    "Factor",
    "get_option",
    "set_option",
    "option_context",
    "Calibrator",
    "CalibratorSummary",
    "predict",
    "summary",
    "cal_dirichlet",
    "CalDirichlet",
    *_LAZY_NAMES,
]


# Public names provided by modules that are imported on first use.
_LAZY = {
    "rng": ("rng", None),
    "cal_platt": ("scaling", "cal_platt"),
    "cal_beta": ("scaling", "cal_beta"),
    "cal_temperature": ("scaling", "cal_temperature"),
    "cal_vector_scaling": ("scaling", "cal_vector_scaling"),
    "CalPlatt": ("scaling", "CalPlatt"),
    "CalBeta": ("scaling", "CalBeta"),
    "CalTemperature": ("scaling", "CalTemperature"),
    "CalVectorScaling": ("scaling", "CalVectorScaling"),
    "logit": ("transforms", "logit"),
    "inv_logit": ("transforms", "inv_logit"),
    "cal_isotonic": ("binning", "cal_isotonic"),
    "cal_histogram": ("binning", "cal_histogram"),
    "CalIsotonic": ("binning", "CalIsotonic"),
    "CalHistogram": ("binning", "CalHistogram"),
    "cal_ovr": ("ovr", "cal_ovr"),
    "CalOvr": ("ovr", "CalOvr"),
    "cal_cv": ("cv", "cal_cv"),
    "CalCv": ("cv", "CalCv"),
    "ece": ("metrics", "ece"),
    "mce": ("metrics", "mce"),
    "ace": ("metrics", "ace"),
    "mmce": ("metrics", "mmce"),
    "reliability_diagram": ("diagnostics", "reliability_diagram"),
    "ReliabilityDiagram": ("diagnostics", "ReliabilityDiagram"),
    "HTest": ("htest", "HTest"),
    # research methods (docs/spec/seed-methods.md A, C, D)
    "cal_matrix_scaling": ("matrix_scaling", "cal_matrix_scaling"),
    "cal_dirichlet_l2": ("matrix_scaling", "cal_dirichlet_l2"),
    "canonical": ("matrix_scaling", "canonical"),
    "confusion_change": ("matrix_scaling", "confusion_change"),
    "cal_top_label": ("toplabel", "cal_top_label"),
    "top_label_ece": ("toplabel", "top_label_ece"),
    "brier_score": ("scores", "brier_score"),
    "log_loss": ("scores", "log_loss"),
    "confidence_ece": ("scores", "confidence_ece"),
    "classwise_ece": ("scores", "classwise_ece"),
    "cal_ks_test": ("caltests", "cal_ks_test"),
    "cal_kuiper_test": ("caltests", "cal_kuiper_test"),
    "cal_spiegelhalter_test": ("caltests", "cal_spiegelhalter_test"),
    # evidential calibration and class weights (docs/spec/seed-methods.md B, E)
    "cal_evidential": ("evidential", "cal_evidential"),
    "combine_calibrated": ("evidential", "combine_calibrated"),
    "loss_correct": ("classweights", "loss_correct"),
    "loss_calibration_curve": ("classweights", "loss_calibration_curve"),
    # calibration inference (docs/spec/inference.md)
    "skce": ("inference", "skce"),
    "cal_test": ("inference", "cal_test"),
    "cal_ci": ("inference", "cal_ci"),
    # workflow
    "cal_compare": ("compare", "cal_compare"),
    "datasets": ("datasets", None),
    # clinical validation: rms::val.prob, calibration hierarchy, Hosmer-Lemeshow (issue 14)
    "val_prob": ("clinical", "val_prob"),
    "val_prob_ci": ("clinical", "val_prob_ci"),
    "hoslem_test": ("clinical", "hoslem_test"),
    "clinical": ("clinical", None),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        mod = importlib.import_module("." + module, __name__)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'calstats' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
