"""Readers at the boundary: one per kind of input, used by every function that takes it.

* **A binary outcome with its probability.** :func:`event_probability` reads the probability
  of the event from a vector or from scikit-learn's n x 2 ``predict_proba`` output (its
  second column, once its rows are proved to sum to 1); :func:`refuse_swap` refuses a
  probability vector given where the outcome belongs and 0/1 outcomes where the
  probabilities belong, in one line that names the swap and the function's order
  (``hoslem_test(y, p)`` against ``val_prob(p, y)``); the metrics' pair check
  (:func:`calstats._validate.check_prob_and_labels`) says the same when its labels fail.
* **A probability or logit matrix.** :func:`calstats._validate.read_matrix` (one type test,
  one proof that rows sum to 1, one place that decides float32, C or NumPy), with
  :func:`input_kind`, the command line's rule for telling probabilities from logits, and
  :func:`warn_if_probabilities` for functions that take logits only.
* **Matrix columns and outcome classes.** :func:`refuse_misnamed_columns` refuses a
  DataFrame whose column names and a categorical outcome whose categories name the same
  classes in another order (the columns are read by position).
* **Several models.** :func:`read_models`: a dict of predictions, the columns of a
  DataFrame, or one model; every model named once.
* **A time-to-event outcome**: :mod:`calstats._surv`.

The messages are written once, here or in :mod:`calstats._validate`.
"""

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._errors import warn
from ._factor import Factor
from ._frames import column_names, native
from ._validate import (
    fail,
    fail_swap,
    is_matrix,
    numeric_or_none,
    read_matrix,
    swap_example,
)

__all__ = [
    "event_probability",
    "refuse_swap",
    "refuse_misnamed_columns",
    "input_kind",
    "warn_if_probabilities",
    "read_models",
    "model_arg",
    "MESSAGES",
]

#: Every message of the readers, written once.
MESSAGES = {
    "proba_columns": ("Argument `{arg}` has {k} columns; a binary outcome takes one probability per row (or "
                      "scikit-learn's n x 2 `predict_proba` output, whose second column is the event's)."),
    "proba_rows": ("Argument `{arg}` has two columns, read as scikit-learn's `predict_proba` output, but row "
                   "{row} sums to {total:.6g}, not 1; pass the probability of the event (one column)."),
    "columns_order": ("The columns of `{x}` ({columns}) and the classes of `{y}` ({levels}) name the same "
                      "classes in another order; the columns are read by position: reorder them, e.g. "
                      "`{x}[{fix}]`."),
    "columns_codes": ("The columns of `{x}` are named {columns}, but `{y}` holds class codes, which name the "
                      "columns by position (code 1 is the first column); reorder the columns, e.g. "
                      "`{x}[{fix}]`, or pass `{y}` as a categorical."),
    "not_unit_rows": ("Argument `{arg}` holds values in [0, 1] whose rows do not sum to 1 (row {row} sums to "
                      "{total:.6g}; {count} such row{s}): give probabilities whose rows sum to 1, or "
                      "`input=\"logits\"` if the columns are scores."),
    "not_scores": ("Argument `{arg}` has values above 1 (the first: {value:.6g} in row {row}) and none below 0: "
                   "neither probabilities nor logits (percentages? counts?); fix it, or pass "
                   "`input=\"logits\"` if it really holds scores."),
    "input": 'Argument `input` must be one of "auto", "probabilities", "logits".',
    "looks_like_probs": ("`{arg}` looks like probabilities (every value in [0, 1]{rows}) but {fn}() takes "
                         "logits and reads it as logits; for probabilities pass {how}."),
    "no_models": "Argument `p` must hold the predictions of at least one model.",
    "models_unique": "Every model needs its own name; `{name}` is used twice.",
    "models_dict": "Argument `models` names the models of a DataFrame `p`; a dict `p` names its models by its keys.",
    "models_type": "Argument `models` must be a model name, or a list of column names of a DataFrame `p`.",
    "models_columns": "Argument `models` names columns that `p` does not have: {names}.",
    "models_form": "Argument `p` must be a 1-d array of risks, or a DataFrame or dict of them (one per model).",
}


# --------------------------------------------------------------------------------------
# a binary outcome with its probability


def event_probability(p, arg="p"):
    """The probability of the event from ``p``: ``p`` itself when it is a vector (or a
    one-column matrix, which R reads as one), else the second column of an n x 2 matrix
    whose rows sum to 1 (scikit-learn's ``predict_proba``; a DataFrame's second column,
    a Series). Anything else is returned as it is, for the caller's own checks."""
    if not is_matrix(p) or isinstance(p, Factor):
        return p
    p = native(p, arg)  # polars, pyarrow, torch, ...: as pandas or NumPy
    shape = np.shape(p)
    if len(shape) != 2 or shape[1] == 1:
        return p
    if shape[1] != 2:
        fail(MESSAGES["proba_columns"].format(arg=arg, k=shape[1]))
    P = read_matrix(p, arg, prob=False)  # numeric, finite, not empty: R's messages
    sums = P[:, 0] + P[:, 1]
    bad = np.flatnonzero((P.min(axis=1) < 0) | (P.max(axis=1) > 1) | (np.abs(sums - 1.0) > 1e-6))
    if bad.size:
        i = int(bad[0])
        fail(MESSAGES["proba_rows"].format(arg=arg, row=i + 1, total=sums[i]))
    if isinstance(p, pd.DataFrame):
        return p.iloc[:, 1]
    return P[:, 1].copy()


def refuse_swap(p, y, call, p_arg="p", y_arg="y"):
    """Refuse a probability vector given as the outcome together with 0/1 values given as
    the probabilities, in one line naming the swap and ``call`` (the function's order, e.g.
    ``"hoslem_test(y, p)"``). Any other input passes unchanged (the caller checks it)."""
    example = swap_example(event_probability(p, p_arg) if is_matrix(p) else p, y)
    if example is not None:
        fail_swap(p_arg, y_arg, example, call)


# --------------------------------------------------------------------------------------
# matrix columns and the classes of the outcome


def _levels_of(y):
    if isinstance(y, Factor):
        return [str(c) for c in y.levels]
    if isinstance(y, pd.Categorical):
        return [str(c) for c in y.categories]
    if isinstance(y, (pd.Series, pd.Index)) and isinstance(y.dtype, pd.CategoricalDtype):
        return [str(c) for c in y.cat.categories] if isinstance(y, pd.Series) else [str(c) for c in
                                                                                   y.categories]
    return None


def _column_name_readings(cols):
    """The class names the columns may carry: the names themselves, then without their
    common prefix (``p_a``, ``p_b`` -> ``a``, ``b``), cut after each separator in it."""
    out = [list(cols)]
    prefix = os.path.commonprefix(cols)
    for cut in [len(prefix)] + [i + 1 for i in range(len(prefix) - 1, -1, -1) if prefix[i] in "_.-: "]:
        stripped = [c[cut:] for c in cols]
        if cut and all(stripped) and len(set(stripped)) == len(stripped) and stripped not in out:
            out.append(stripped)
    return out


def _shown(names, limit=8):
    s = ", ".join(names[:limit])
    return s + (", ..." if len(names) > limit else "")


def refuse_misnamed_columns(x, y, x_arg="p", y_arg="y"):
    """Refuse a DataFrame ``x`` whose columns name the classes in another order than the
    outcome ``y``: a categorical (or :class:`~calstats.Factor`) whose categories are the
    column names (or the names without a common prefix) in another order, or class codes
    1..K (0..K-1) with columns named by those codes in another order. The columns are read
    by position, as R reads a matrix, so such input would silently pair each column with
    another class. Columns without names (0, 1, ... as pandas numbers them) pass."""
    columns = column_names(x)  # pandas, polars, pyarrow, ...: read without converting
    if columns is None or len(columns) < 2 or isinstance(columns, pd.RangeIndex):
        return
    cols = [str(c) for c in columns]
    levels = _levels_of(native(y, y_arg))
    if levels is not None:
        if len(levels) != len(cols):
            return
        for names in _column_name_readings(cols):
            if names == levels:
                return
            if sorted(names) == sorted(levels):
                order = [columns[names.index(lv)] for lv in levels]
                fail(MESSAGES["columns_order"].format(x=x_arg, y=y_arg, columns=_shown(cols), levels=_shown(levels),
                                                      fix=repr(order) if len(order) <= 6 else "<columns in the "
                                                      "order of the categories>"))
        return
    k = len(cols)
    for base in (1, 0):
        codes = [str(i) for i in range(base, base + k)]
        for names in _column_name_readings(cols):
            if sorted(names) == sorted(codes) and names != codes:
                v = numeric_or_none(y)
                if v is None:
                    return
                order = [columns[names.index(c)] for c in codes]
                fail(MESSAGES["columns_codes"].format(x=x_arg, y=y_arg, columns=_shown(cols),
                                                      fix=repr(order) if len(order) <= 6 else "<columns in code "
                                                      "order>"))


# --------------------------------------------------------------------------------------
# probabilities or logits


def _first_bad_row(sums):
    bad = np.flatnonzero(~(np.abs(sums - 1.0) <= 1e-6))
    return bad


def input_kind(x, binary, requested="auto", arg="x"):
    """How ``x`` is read: ``"probabilities"`` or ``"logits"`` (the rule of the command line's
    ``--input`` and of :func:`calstats.cal_compare`'s ``input=``).

    Given explicitly, ``requested`` is obeyed. With ``"auto"``: probabilities when every
    value is in [0, 1] (and, for a matrix, every row sums to 1 within 1e-6), otherwise
    logits. Two readings are refused: a matrix whose values are all in [0, 1] but whose rows
    do not sum to 1 (probabilities spoiled by a rescaling; naming the first such row), and
    values that leave [0, 1] upwards with none below 0 (neither probabilities nor logits:
    percentages or counts). ``x`` is a checked float array (1-D binary, 2-D matrix)."""
    if requested not in ("auto", "probabilities", "logits"):
        fail(MESSAGES["input"])
    if requested != "auto":
        return requested
    X = np.asarray(x, dtype=np.float64)
    finite = bool(np.isfinite(X).all())
    in_unit = finite and X.size > 0 and bool(X.min() >= 0) and bool(X.max() <= 1)
    if in_unit:
        if binary or X.ndim == 1:
            return "probabilities"
        from .numerics.reductions import row_sums

        sums = row_sums(X)
        bad = _first_bad_row(sums)
        if not bad.size:
            return "probabilities"
        i = int(bad[0])
        fail(MESSAGES["not_unit_rows"].format(arg=arg, row=i + 1, total=sums[i], count=bad.size,
                                              s="s" if bad.size > 1 else ""))
    if finite and X.size and bool(X.min() >= 0):
        flat = X.reshape(X.shape[0], -1)
        hit = np.argwhere(flat > 1)[0]
        fail(MESSAGES["not_scores"].format(arg=arg, value=flat[hit[0], hit[1]], row=int(hit[0]) + 1))
    return "logits"


def warn_if_probabilities(x, fn, arg="x"):
    """For a function that takes logits only (``cal_temperature``, ``cal_vector_scaling``,
    ...): warn, once, when the checked scores ``x`` look like probabilities -- every value in
    [0, 1] and, for a matrix, rows summing to 1 -- saying that they are read as logits, as
    the function reads them (R's probcal does the same without a word). Returns ``x``."""
    X = np.asarray(x)
    if X.size == 0 or X.dtype.kind != "f":
        return x
    lo, hi = float(X.min()), float(X.max())
    if not (0.0 <= lo and hi <= 1.0):
        return x
    if X.ndim == 2:
        from .numerics.reductions import row_sums

        if _first_bad_row(row_sums(np.asarray(X, dtype=np.float64))).size:
            return x
        rows, how = ", rows summing to 1", "their log, np.log(x)"
    else:
        if hi - lo == 0:
            return x
        rows, how = "", "their logit, calstats.logit(x)"
    warn(MESSAGES["looks_like_probs"].format(arg=arg, fn=fn, rows=rows, how=how))
    return x


# --------------------------------------------------------------------------------------
# several models


def read_models(p, models=None, *, frame="models", reserved=None, reserved_message=None):
    """The models in ``p`` as ``[(name, values)]``, in order, values as given (each model's
    own checks follow in the caller).

    ``p`` is a dict of predictions (keys name the models), a DataFrame, or one model (a
    vector, a Series named by its name, an array; named ``models`` when that is a string,
    else ``"model"``). A DataFrame holds one model per column with ``frame="models"``
    (:func:`calstats.clinical.decision_curve`); with ``frame="matrix"`` it is one model (a
    probability matrix) unless ``models`` lists the columns that are models
    (:func:`calstats.report`). Every model needs its own name; ``reserved`` names (the
    decision curve's ``"all"`` and ``"none"``) are refused with ``reserved_message``.
    """
    p = native(p, "p")  # polars, pyarrow, torch, ...: as pandas or NumPy
    if isinstance(p, Mapping):
        if models is not None:
            fail(MESSAGES["models_dict"])
        items = [(str(k), v) for k, v in p.items()]
    elif models is not None and not isinstance(models, str):
        if not isinstance(p, pd.DataFrame):
            fail(MESSAGES["models_type"])
        try:
            names = [str(m) for m in models]
        except TypeError:
            fail(MESSAGES["models_type"])
        cols = {str(c): c for c in p.columns}
        absent = [m for m in names if m not in cols]
        if absent:
            fail(MESSAGES["models_columns"].format(names=", ".join(f"`{m}`" for m in absent)))
        items = [(m, p[cols[m]]) for m in names]
    elif isinstance(p, pd.DataFrame) and frame == "models":
        items = [(str(c), p[c]) for c in p.columns]
    else:
        if isinstance(p, pd.Series):
            name = str(p.name) if p.name is not None else "model"
        else:
            name = "model"
        if isinstance(models, str):
            name = models
        if frame == "models" and not isinstance(p, pd.Series) and np.ndim(p) != 1:
            fail(MESSAGES["models_form"])
        items = [(name, p)]
    if not items:
        fail(MESSAGES["no_models"])
    seen: set[str] = set()
    for name, _ in items:
        if name in seen:
            fail(MESSAGES["models_unique"].format(name=name))
        seen.add(name)
    if reserved and seen & set(reserved):
        fail(reserved_message)
    return items


def model_arg(name: str, items: list[tuple[str, Any]], arg: str = "p") -> str:
    """How a model is named in a message: ``p`` for a single model, ``p["name"]`` for one of several."""
    return arg if len(items) == 1 else f'{arg}["{name}"]'


