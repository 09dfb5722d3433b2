"""calstats: calibrating the probabilities of classifiers.

An R-exact port of the R package probcal (same function names, arguments, defaults,
messages and numbers) plus the methods of the research behind it.
"""

from typing import TYPE_CHECKING

from ._errors import CalstatsError, CalstatsWarning
from ._factor import Factor
from ._options import get_option, option_context, set_option
from .calibrators.dirichlet import CalDirichlet, cal_dirichlet
from .results._base import Calibrator, CalibratorSummary, predict, summary

__version__ = "0.1.0"

if TYPE_CHECKING:  # the names below are imported on first use (_LAZY); type checkers see them here
    from . import clinical, datasets, rng
    from ._surv import Surv
    from .calibrators.binning import CalHistogram, CalIsotonic, cal_histogram, cal_isotonic
    from .calibrators.canonical import canonical, confusion_change
    from .calibrators.classweights import loss_calibration_curve, loss_correct
    from .calibrators.cv import CalCv, cal_cv
    from .calibrators.evidential import cal_evidential, combine_calibrated
    from .calibrators.logistic import CalBeta, CalPlatt, cal_beta, cal_platt
    from .calibrators.matrix_scaling import cal_dirichlet_l2, cal_matrix_scaling
    from .calibrators.multilabel import CalMultilabel, cal_multilabel
    from .calibrators.ovr import CalOvr, cal_ovr
    from .calibrators.priors import PriorEstimate, adjust_priors, estimate_priors
    from .calibrators.scaling import CalTemperature, CalVectorScaling, cal_temperature, cal_vector_scaling
    from .calibrators.spline import CalSpline, cal_spline
    from .calibrators.toplabel import cal_top_label, top_label_ece
    from .calibrators.venn_abers import CalVennAbers, CalVennAbersMulticlass, cal_venn_abers
    from .clinical import hoslem_test, val_prob, val_prob_ci
    from .evaluation.caltests import cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test
    from .evaluation.compare import cal_compare
    from .evaluation.corp import CorpClasswise, CorpDecomposition, CorpDiagram, corp
    from .evaluation.cumulative import CumulativeDifferences, cumulative_differences, length_scale
    from .evaluation.diagnostics import ReliabilityDiagram, reliability_diagram
    from .evaluation.htest import HTest
    from .evaluation.inference import cal_test, skce
    from .evaluation.intervals import cal_ci
    from .evaluation.metrics import ace, bin_edges, ece, mce, mmce
    from .evaluation.scores import brier_score, classwise_ece, confidence_ece, log_loss
    from .evaluation.selective import RiskCoverage, augrc, aurc, e_aurc, risk_coverage
    from .evaluation.smooth import smece, smece_sigma, smooth_curve
    from .reporting import CalibrationReport, report
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
    "bin_edges", "smece", "smece_sigma", "smooth_curve", "cumulative_differences", "length_scale",
    "CumulativeDifferences", "corp", "CorpDiagram", "CorpClasswise", "CorpDecomposition",
    "cal_venn_abers", "CalVennAbers", "CalVennAbersMulticlass", "cal_spline", "CalSpline", "adjust_priors", "estimate_priors",
    "PriorEstimate", "report", "CalibrationReport", "Surv",
    "risk_coverage", "RiskCoverage", "aurc", "e_aurc", "augrc", "cal_multilabel", "CalMultilabel",
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
    "cal_platt": ("calibrators.logistic", "cal_platt"),
    "cal_beta": ("calibrators.logistic", "cal_beta"),
    "cal_temperature": ("calibrators.scaling", "cal_temperature"),
    "cal_vector_scaling": ("calibrators.scaling", "cal_vector_scaling"),
    "CalPlatt": ("calibrators.logistic", "CalPlatt"),
    "CalBeta": ("calibrators.logistic", "CalBeta"),
    "CalTemperature": ("calibrators.scaling", "CalTemperature"),
    "CalVectorScaling": ("calibrators.scaling", "CalVectorScaling"),
    "logit": ("transforms", "logit"),
    "inv_logit": ("transforms", "inv_logit"),
    "cal_isotonic": ("calibrators.binning", "cal_isotonic"),
    "cal_histogram": ("calibrators.binning", "cal_histogram"),
    "CalIsotonic": ("calibrators.binning", "CalIsotonic"),
    "CalHistogram": ("calibrators.binning", "CalHistogram"),
    "cal_ovr": ("calibrators.ovr", "cal_ovr"),
    "CalOvr": ("calibrators.ovr", "CalOvr"),
    "cal_cv": ("calibrators.cv", "cal_cv"),
    "CalCv": ("calibrators.cv", "CalCv"),
    "ece": ("evaluation.metrics", "ece"),
    "mce": ("evaluation.metrics", "mce"),
    "ace": ("evaluation.metrics", "ace"),
    "mmce": ("evaluation.metrics", "mmce"),
    "reliability_diagram": ("evaluation.diagnostics", "reliability_diagram"),
    "ReliabilityDiagram": ("evaluation.diagnostics", "ReliabilityDiagram"),
    "HTest": ("evaluation.htest", "HTest"),
    # research methods: the Dirichlet family (Kull et al. 2019), top-label calibration and scores,
    # calibration tests (KS, Kuiper, Spiegelhalter, as documented by MAPIE)
    "cal_matrix_scaling": ("calibrators.matrix_scaling", "cal_matrix_scaling"),
    "cal_dirichlet_l2": ("calibrators.matrix_scaling", "cal_dirichlet_l2"),
    "canonical": ("calibrators.canonical", "canonical"),
    "confusion_change": ("calibrators.canonical", "confusion_change"),
    "cal_top_label": ("calibrators.toplabel", "cal_top_label"),
    "top_label_ece": ("calibrators.toplabel", "top_label_ece"),
    "brier_score": ("evaluation.scores", "brier_score"),
    "log_loss": ("evaluation.scores", "log_loss"),
    "confidence_ece": ("evaluation.scores", "confidence_ece"),
    "classwise_ece": ("evaluation.scores", "classwise_ece"),
    "cal_ks_test": ("evaluation.caltests", "cal_ks_test"),
    "cal_kuiper_test": ("evaluation.caltests", "cal_kuiper_test"),
    "cal_spiegelhalter_test": ("evaluation.caltests", "cal_spiegelhalter_test"),
    # assessing calibration: bins of one's choice, cumulative differences, smooth ECE
    "bin_edges": ("evaluation.metrics", "bin_edges"),
    "cumulative_differences": ("evaluation.cumulative", "cumulative_differences"),
    "length_scale": ("evaluation.cumulative", "length_scale"),
    "CumulativeDifferences": ("evaluation.cumulative", "CumulativeDifferences"),
    "smece": ("evaluation.smooth", "smece"),
    "smece_sigma": ("evaluation.smooth", "smece_sigma"),
    "smooth_curve": ("evaluation.smooth", "smooth_curve"),
    # CORP reliability diagrams and score decompositions (R's reliabilitydiag)
    "corp": ("evaluation.corp", "corp"),
    "CorpDiagram": ("evaluation.corp", "CorpDiagram"),
    "CorpClasswise": ("evaluation.corp", "CorpClasswise"),
    "CorpDecomposition": ("evaluation.corp", "CorpDecomposition"),
    # evidential calibration (Xu, Davoine and Denoeux 2015) and class weights (Caplin, Martin and Marx)
    "cal_evidential": ("calibrators.evidential", "cal_evidential"),
    "combine_calibrated": ("calibrators.evidential", "combine_calibrated"),
    "loss_correct": ("calibrators.classweights", "loss_correct"),
    "loss_calibration_curve": ("calibrators.classweights", "loss_calibration_curve"),
    "cal_venn_abers": ("calibrators.venn_abers", "cal_venn_abers"),
    "CalVennAbers": ("calibrators.venn_abers", "CalVennAbers"),
    "CalVennAbersMulticlass": ("calibrators.venn_abers", "CalVennAbersMulticlass"),
    "cal_spline": ("calibrators.spline", "cal_spline"),
    "CalSpline": ("calibrators.spline", "CalSpline"),
    "adjust_priors": ("calibrators.priors", "adjust_priors"),
    "estimate_priors": ("calibrators.priors", "estimate_priors"),
    "PriorEstimate": ("calibrators.priors", "PriorEstimate"),
    # calibration inference (probcal 0.2.0): kernel calibration error and test, bootstrap intervals
    "skce": ("evaluation.inference", "skce"),
    "cal_test": ("evaluation.inference", "cal_test"),
    "cal_ci": ("evaluation.intervals", "cal_ci"),
    # workflow
    "cal_compare": ("evaluation.compare", "cal_compare"),
    "datasets": ("datasets", None),
    # clinical validation: rms::val.prob, calibration hierarchy, Hosmer-Lemeshow
    "val_prob": ("clinical", "val_prob"),
    "val_prob_ci": ("clinical", "val_prob_ci"),
    "hoslem_test": ("clinical", "hoslem_test"),
    "clinical": ("clinical", None),
    # a calibration report: every section above in one self-contained HTML page
    "report": ("reporting", "report"),
    "CalibrationReport": ("reporting", "CalibrationReport"),
    # a time-to-event outcome, R's Surv(time, event)
    "Surv": ("_surv", "Surv"),
    # selective prediction: the risk-coverage curve and its areas (torch-uncertainty's AURC, AUGRC)
    "risk_coverage": ("evaluation.selective", "risk_coverage"),
    "RiskCoverage": ("evaluation.selective", "RiskCoverage"),
    "aurc": ("evaluation.selective", "aurc"),
    "e_aurc": ("evaluation.selective", "e_aurc"),
    "augrc": ("evaluation.selective", "augrc"),
    # multi-label calibration: one binary calibrator per label
    "cal_multilabel": ("calibrators.multilabel", "cal_multilabel"),
    "CalMultilabel": ("calibrators.multilabel", "CalMultilabel"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        mod = importlib.import_module("." + module, __name__)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    from ._validate import fail_no_attribute

    fail_no_attribute(__name__, name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
