"""The report's inputs: the models, the outcome and its kind, the weights, checked once.

Missing values are refused before anything is computed, naming the first row that has one,
so that a report never silently drops rows (the measures underneath differ in what they do
with a missing value: some drop it with a message, some refuse it, some keep a logical NA).
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._inputs import read_models
from .._surv import is_multistate, is_surv, read_surv, surv_parts
from .._validate import (
    check_binary_y,
    check_multiclass_y,
    check_prob,
    check_prob_matrix,
    check_surv_lengths,
    fail_report_length,
    fail_report_missing,
    fail_report_shape,
    fail_report_time_columns,
    fail_report_time_needed,
    fail_report_time_value,
    refuse_cause_binary,
    refuse_report_reserved,
    refuse_report_time,
    refuse_report_time_beyond,
    scalar_number,
)
from .._weights import check_weights

__all__ = ["Inputs", "read_inputs"]


@dataclass
class Inputs:
    """The checked inputs: ``models`` (name -> float array: 1-D, or n x K), the outcome
    (``y``: 0/1 int array, or 1-based class codes; ``times`` for a time-to-event outcome),
    ``weights`` (None or float array), ``kind`` and, for multiclass, the class names."""

    kind: str
    models: dict[str, np.ndarray]
    y: np.ndarray
    n: int
    weights: np.ndarray | None
    classes: list[str] | None = None
    times: np.ndarray | None = None
    horizon: float | None = None
    horizons: np.ndarray | None = None
    risks: dict[str, np.ndarray] | None = None
    cause: Any = None
    cause_code: int | None = None
    causes: dict[int, str] | None = None

    @property
    def survival(self) -> tuple[np.ndarray, np.ndarray]:
        """``(time, status)`` as pmcalibration and decision_curve take it (``status``: the
        event codes of a competing-risk outcome)."""
        assert self.times is not None
        return self.times, self.y

    @property
    def cause_label(self) -> str:
        """The name of the cause of interest (a competing-risk outcome)."""
        assert self.causes is not None and self.cause_code is not None
        return self.causes[self.cause_code]


def _missing_row(values: Any) -> int | None:
    """0-based position of the first row holding a missing value (NaN, None, pandas NA)."""
    mask: np.ndarray
    if isinstance(values, (pd.Series, pd.DataFrame, pd.Categorical, pd.Index)):
        mask = np.asarray(pd.isna(values))
    else:
        arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
        if arr.dtype.kind in "iub":
            return None
        mask = np.asarray(pd.isna(arr), dtype=bool).reshape(arr.shape)
    if mask.ndim > 1:
        mask = np.asarray(mask.reshape(mask.shape[0], -1).any(axis=1)) if mask.shape[0] else np.zeros(0, bool)
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def _refuse_missing(values: Any, arg: str) -> None:
    i = _missing_row(values)
    if i is None:
        return
    label = ""
    index = getattr(values, "index", None)
    if isinstance(index, pd.Index) and not isinstance(index, pd.RangeIndex):
        label = f" (index {index[i]!r})"
    elif isinstance(index, pd.RangeIndex) and (index.start != 0 or index.step != 1):
        label = f" (index {index[i]!r})"
    fail_report_missing(arg, i + 1, label)


def _model_items(p: Any, models: Any) -> list[tuple[str, Any]]:
    """The models, by the one reader of several models (:func:`calstats._inputs.read_models`):
    a DataFrame ``p`` is one model (a probability matrix) unless ``models`` names its columns."""
    return read_models(p, models, frame="matrix", reserved=("all", "none"), refuse_reserved=refuse_report_reserved)


def _arg(items: list[tuple[str, Any]], name: str) -> str:
    """How the messages name a model's predictions: ``p``, or ``p["name"]`` among several."""
    return "p" if len(items) == 1 else f'p["{name}"]'


def _is_survival(y: Any) -> bool:
    return is_surv(y)


def _survival_parts(y: Any) -> tuple[Any, Any, tuple[str, str]]:
    return surv_parts(y, "y")


def _length(v: Any) -> int:
    return int(np.shape(v)[0]) if np.ndim(v) else 1


def _horizons(time: Any) -> np.ndarray:
    """``time``: one horizon, or increasing horizons (finite, positive)."""
    if isinstance(time, (str, bytes)):
        fail_report_time_value()
    if np.ndim(time) == 0:
        h = scalar_number(time)
        values = [h]
    else:
        try:
            values = [scalar_number(v) for v in np.asarray(time, dtype=object).ravel()]
        except Exception:  # noqa: BLE001 - anything that is no list of numbers
            fail_report_time_value()
    if not values or any(v is None or not np.isfinite(v) or v <= 0 for v in values):
        fail_report_time_value()
    out = np.asarray(values, dtype=np.float64)
    if out.size > 1 and not (np.diff(out) > 0).all():
        fail_report_time_value()
    return out


def _surv_outcome(y: Any, cause: Any) -> tuple[Any, bool]:
    """The checked outcome and whether it is a competing-risk one (``cause`` given, or a
    categorical status with more than two levels, as ``Surv(time, factor)`` and dcurves read
    it); otherwise event codes of several causes get the reader's message, as in
    decision_curve and pmcalibration."""
    competing = cause is not None or is_multistate(y)
    return read_surv(y, "y", competing=competing), competing


def read_inputs(p: Any, y: Any, models: Any, weights: Any, time: Any, cause: Any = None) -> Inputs:
    """Check the models, the outcome, the weights and the horizon; returns :class:`Inputs`.

    Order: the models' names, missing values (models, outcome, weights; the first row
    named), lengths, then the values themselves with calstats' own validators.

    A time-to-event outcome takes one horizon ``time`` (each model a vector of risks by
    it) or increasing times (each model an n x k matrix of risks by each time; the last
    time is the horizon of the calibration and the decision curve); with ``cause`` (or a
    categorical status of several causes) it is a competing-risk outcome.
    """
    items = _model_items(p, models)
    survival = _is_survival(y)
    parts = _survival_parts(y) if survival else None
    for name, values in items:
        _refuse_missing(values, _arg(items, name))
    if parts is not None:
        _refuse_missing(parts[0], parts[2][0])
        _refuse_missing(parts[1], parts[2][1])
    else:
        _refuse_missing(y, "y")
    if weights is not None:
        _refuse_missing(weights, "weights")
    n_y = _length(parts[0] if parts is not None else y)
    for name, values in items:
        if _length(values) != n_y:
            fail_report_length(name, _length(values), n_y)
    if parts is not None:
        check_surv_lengths("y", n_y, _length(parts[1]))

    ndims = [np.ndim(v) == 2 and np.shape(v)[1] > 1 for _, v in items]
    first = items[0][0]
    if not survival:
        refuse_cause_binary(cause)
    if survival:
        return _survival_inputs(items, y, weights, time, cause, n_y)
    if any(ndims):
        widths = [np.shape(v)[1] if nd else 0 for (_, v), nd in zip(items, ndims)]
        for (name, _), w in zip(items, widths):
            if w != widths[0]:
                fail_report_shape(name, first)
        mats = {name: check_prob_matrix(v, _arg(items, name)) for name, v in items}
        codes, levels, _k = check_multiclass_y(y, widths[0])
        refuse_report_time(time)
        return Inputs("multiclass", mats, np.asarray(codes, dtype=np.int64), n_y, check_weights(weights, n_y),
                      classes=[str(c) for c in levels])
    for (name, _), nd in zip(items, ndims):
        if nd:
            fail_report_shape(name, first)
    vecs = {name: check_prob(np.ravel(np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v)) if np.ndim(v) == 2
                             else v, _arg(items, name)) for name, v in items}
    refuse_report_time(time)
    yv = check_binary_y(y, "y")
    return Inputs("binary", vecs, np.asarray(yv, dtype=np.int64), n_y, check_weights(weights, n_y))


def _survival_inputs(items: list[tuple[str, Any]], y: Any, weights: Any, time: Any, cause: Any, n_y: int) -> Inputs:
    """A time-to-event (or competing-risk) outcome and the models' risks by the horizons."""
    if time is None:
        fail_report_time_needed()
    hs = _horizons(time)
    k = hs.size
    vecs, mats = {}, {}
    for name, v in items:
        arg = _arg(items, name)
        a = v.to_numpy() if hasattr(v, "to_numpy") else v
        cols = int(np.shape(a)[1]) if np.ndim(a) == 2 else 1
        if cols != k:
            if k == 1:
                fail_report_shape(name, items[0][0])
            fail_report_time_columns(k, name, "one column" if cols == 1 else f"{cols} columns")
        if k == 1:
            vecs[name] = check_prob(np.ravel(np.asarray(a)) if np.ndim(a) == 2 else a, arg)
        else:
            m = np.column_stack([check_prob(np.asarray(a)[:, j], arg) for j in range(k)])
            mats[name] = m
            vecs[name] = m[:, -1].copy()
    outcome, competing = _surv_outcome(y, cause)
    last = float(np.max(outcome.time))
    refuse_report_time_beyond(float(hs[-1]), last)
    status = np.asarray(outcome.status, dtype=np.int64)
    inp = Inputs("competing" if competing else "survival", vecs, status, n_y, check_weights(weights, n_y),
                 times=outcome.time, horizon=float(hs[-1]), horizons=hs, risks=mats or None)
    if competing:
        code = outcome.cause_code(cause)
        inp.cause = cause if cause is not None else outcome.causes[0]
        inp.cause_code = code
        inp.causes = {c: outcome.cause_label(c) for c in sorted({int(s) for s in status if s != 0})}
        inp.causes.setdefault(code, outcome.cause_label(code))
    return inp
