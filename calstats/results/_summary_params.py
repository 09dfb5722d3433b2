"""What ``summary()`` shows for each calibrator class: the one place for it.

R's ``summary.calibrator`` switches on the class and prints a few "Label: value" lines
(docs/spec/r-interface.md §8.3); :func:`summary_items` reproduces those lines exactly. The report
renderings also show parameter tables (:func:`summary_tables`), which R does not print.
Calibrators outside the R package register their own entries with :func:`register`.
"""

import numpy as np
import pandas as pd

from ..numerics.rformat import as_character, r_round

__all__ = ["summary_items", "summary_tables", "register"]


def _fmt(x):
    return as_character(float(x))


def _rounded(x, digits):
    return _fmt(r_round(float(x), digits))


def _items_temperature(o):
    return [("Temperature", _rounded(o.temperature, 4))]


def _items_platt(o):
    return [(str(name), _rounded(v, 4)) for name, v in o.coefficients.items()]


def _items_beta(o):
    return [("a", _rounded(o.a, 4)), ("b", _rounded(o.b, 4)), ("c", _rounded(o.c, 4)), ("eps", _fmt(o.eps))]


def _items_isotonic(o):
    return [("Thresholds", str(len(o.x_thresholds)))]


def _items_histogram(o):
    return [("RequestedBins", str(o.bins)), ("ActualBins", str(o.actual_bins)), ("Strategy", o.strategy)]


def _items_vector(o):
    return [
        ("Scales", ", ".join(_rounded(s, 3) for s in o.scale)),
        ("Biases", ", ".join(_rounded(b, 3) for b in o.bias)),
    ]


def _items_dirichlet(o):
    return [("Lambda", _fmt(o.lambda_))]


def _items_ovr(o):
    return [("BaseMethod", o.base_method)]


def _items_cv(o):
    return [("CalibrationMethod", o.calibration_method), ("Folds", str(o.folds))]


def _tables_dirichlet(o):
    from ..calibrators.matrix_scaling import canonical_table

    return {"coefficients": o.coef, "canonical (A | c)": canonical_table(o)}


def _tables_vector(o):
    return {"coefficients": pd.DataFrame({"scale": o.scale, "bias": o.bias}, index=pd.Index(o.levels, name="class"))}


def _tables_glm(o):
    return {"coefficients": o.coefficients.rename("estimate").to_frame()}


def _tables_isotonic(o):
    return {"steps": pd.DataFrame({"threshold": o.x_thresholds, "calibrated": o.y_calibrated})}


def _tables_histogram(o):
    return {
        "bins": pd.DataFrame(
            {"lower": o.breaks[:-1], "upper": o.breaks[1:], "count": o.counts, "value": o.bin_values},
            index=pd.RangeIndex(1, len(o.counts) + 1, name="bin"),
        )
    }


_ITEMS = {
    "cal_temperature": _items_temperature,
    "cal_platt": _items_platt,
    "cal_beta": _items_beta,
    "cal_isotonic": _items_isotonic,
    "cal_histogram": _items_histogram,
    "cal_vector_scaling": _items_vector,
    "cal_dirichlet": _items_dirichlet,
    "cal_ovr": _items_ovr,
    "cal_cv": _items_cv,
}

_TABLES = {
    "cal_dirichlet": _tables_dirichlet,
    "cal_vector_scaling": _tables_vector,
    "cal_platt": _tables_glm,
    "cal_beta": _tables_glm,
    "cal_isotonic": _tables_isotonic,
    "cal_histogram": _tables_histogram,
}


def register(r_class, items, tables=None):
    """Register the summary lines (and optional tables) of a calibrator class."""
    _ITEMS[r_class] = items
    if tables is not None:
        _TABLES[r_class] = tables


def summary_items(obj):
    """R's summary parameter lines of ``obj`` as ``(label, text)`` pairs.

    A fit by an optimiser other than R's BFGS (``optimizer="newton"``) gets one more line
    saying so; fits with R's optimiser print R's lines only.
    """
    fn = _ITEMS.get(obj.r_class[0])
    items = fn(obj) if fn else []
    optimizer = getattr(obj, "optimizer", None)
    if optimizer is not None and not optimizer.startswith("BFGS"):
        items = list(items) + [("Optimizer", f"{optimizer}, gradient norm {obj.grad_norm:.2g}")]
    return items


def _optimizer_table(obj):
    """Which optimiser ran and where it stopped, for the report renderings."""
    if getattr(obj, "optimizer", None) is None:
        return {}
    frame = pd.DataFrame(
        {"value": [obj.optimizer, str(int(obj.iterations)), f"{float(obj.value):.10g}", f"{float(obj.grad_norm):.3g}",
                   str(int(obj.convergence))]},
        index=pd.Index(["optimizer", "iterations", "objective", "gradient norm", "convergence"], name="item"),
    )
    frame.attrs["note"] = ("R's BFGS stops on a small relative decrease of the objective, not a small gradient; "
                           "optimizer='newton' minimises the same objective to a gradient norm below 1e-9.")
    return {"optimizer": frame}


def summary_tables(obj):
    """Named parameter tables of ``obj`` (DataFrames) for report renderings."""
    fn = _TABLES.get(obj.r_class[0])
    tables = {} if fn is None else {
        name: (t if isinstance(t, pd.DataFrame) else pd.DataFrame(np.asarray(t))) for name, t in fn(obj).items()
    }
    tables.update(_coef_tables(obj))
    tables.update(_optimizer_table(obj))
    return tables


def _coef_tables(obj):
    """``{"coef_table": ...}`` for likelihood fits (estimate, se, z, p; see :mod:`calstats.results._coeftable`)."""
    from ._coeftable import coef_table, has_coef_table
    from .._errors import CalstatsError

    if not has_coef_table(obj):
        return {}
    try:
        return {"coef_table": coef_table(obj)}
    except (CalstatsError, np.linalg.LinAlgError):
        return {}
