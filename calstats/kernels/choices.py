"""The values a choice argument can take, shared by the in-memory functions and Dask.

Each tuple is the ``choices`` of R's ``match.arg`` for one argument (its first element is
the default where R has one); :func:`calstats._validate.match_arg` checks an argument
against it with R's partial matching and message.
"""

from .._validate import match_arg

__all__ = ["BIN_TYPES", "BIN_NORMS", "TEST_TYPES", "CONVENTIONS", "ALTERNATIVES", "AVERAGES", "SKCE_TYPES", "SKCE_ESTIMATORS",
           "MAPIE_HAS_NO_WEIGHTS", "alternative_choice", "BIN_STRATEGIES", "BIN_RULES", "BIN_INTERVALS",
           "QUANTILE_HAS_NO_WEIGHTS"]

#: ``type`` of ece, mce, ace and reliability_diagram for a probability matrix.
BIN_TYPES = ("classwise", "confidence")
#: The norms of a binned calibration error (torchmetrics' ``CalibrationError(norm=)``):
#: ``"l1"`` the ECE (R's), ``"l2"`` the root mean square calibration error, ``"max"`` the
#: largest gap.
BIN_NORMS = ("l1", "l2", "max")
#: ``strategy`` of the binned metrics and diagrams: equal-width (R's probcal) or equal-mass bins.
BIN_STRATEGIES = ("uniform", "quantile")
#: Names ``bins`` also takes: a rule for the number of bins from the number of scores.
BIN_RULES = ("sqrt", "sturges", "cube_root")
#: ``interval`` of the reliability diagram: the binomial interval drawn on each bin.
BIN_INTERVALS = ("wilson", "clopper-pearson", "jeffreys")
#: ``type`` of the KS, Kuiper and Spiegelhalter tests for a probability matrix.
TEST_TYPES = ("confidence", "class")
#: ``convention`` of the tests and of top_label_ece: calstats' arithmetic or MAPIE's.
CONVENTIONS = ("calstats", "mapie")
#: ``alternative`` of Spiegelhalter's test, in scipy's spelling.
ALTERNATIVES = ("two-sided", "greater", "less")
#: ``average`` of top_label_ece over the predicted classes.
AVERAGES = ("uniform", "weighted")
#: ``type`` of skce and cal_test.
SKCE_TYPES = ("confidence", "canonical", "classwise")
#: ``estimator`` of skce: unbiased quadratic, unbiased linear, biased.
SKCE_ESTIMATORS = ("uq", "ul", "biased")

#: Why ``convention = "mapie"`` refuses case weights (for :func:`calstats._validate.refuse_weights`).
MAPIE_HAS_NO_WEIGHTS = 'with convention = "mapie" (MAPIE has none)'

#: Why ``strategy = "quantile"`` refuses case weights.
QUANTILE_HAS_NO_WEIGHTS = ('with strategy = "quantile": weighted quantile breaks have no single definition '
                           'that equals replicated rows')


def alternative_choice(alternative):
    """scipy's names, R's ``"two.sided"`` accepted; None stays None (the default depends on
    the convention)."""
    if alternative is not None:
        if alternative == "two.sided":
            alternative = "two-sided"
        alternative = match_arg(alternative, ALTERNATIVES)
    return alternative
