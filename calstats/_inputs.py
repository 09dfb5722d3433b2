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
  :func:`input_kind`, the one rule for telling probabilities from logits (the command line's
  and :func:`calstats.cal_compare`'s), and
  :func:`warn_if_probabilities` for functions that take logits only.
* **Matrix columns and outcome classes.** :func:`refuse_misnamed_columns` refuses a
  DataFrame whose column names and a categorical outcome whose categories name the same
  classes in another order (the columns are read by position).
* **Several models.** :func:`read_models`: a dict of predictions, the columns of a
  DataFrame, or one model; every model named once.
* **A time-to-event outcome**: :mod:`calstats._surv`.

The messages are written once, in :mod:`calstats._validate`.
"""

import os
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._factor import Factor
from ._frames import column_names, native
from ._validate import (
    check_input_choice,
    fail_columns_codes,
    fail_columns_order,
    fail_model_twice,
    fail_models_columns,
    fail_models_form,
    fail_models_of_dict,
    fail_models_type,
    fail_no_predictions,
    fail_proba_columns,
    fail_proba_rows,
    fail_swap,
    is_matrix,
    numeric_or_none,
    read_matrix,
    swap_example,
    warn_looks_like_probabilities,
)

__all__ = [
    "event_probability",
    "refuse_swap",
    "refuse_misnamed_columns",
    "InputKind",
    "input_kind",
    "warn_if_probabilities",
    "read_models",
    "model_arg",
]


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
        fail_proba_columns(arg, shape[1])
    P = read_matrix(p, arg, prob=False)  # numeric, finite, not empty: R's messages
    sums = P[:, 0] + P[:, 1]
    bad = np.flatnonzero((P.min(axis=1) < 0) | (P.max(axis=1) > 1) | (np.abs(sums - 1.0) > 1e-6))
    if bad.size:
        i = int(bad[0])
        fail_proba_rows(arg, i + 1, sums[i])
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


def _shown(names):
    s = ", ".join(names[:8])
    return s + (", ..." if len(names) > 8 else "")


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
                fail_columns_order(x_arg, y_arg, _shown(cols), _shown(levels),
                                     repr(order) if len(order) <= 6 else "<columns in the order of the categories>")
        return
    k = len(cols)
    for base in (1, 0):
        codes = [str(i) for i in range(base, base + k)]
        for names in _column_name_readings(cols):
            if sorted(names) == sorted(codes) and names != codes:
                if numeric_or_none(y) is None:
                    return
                order = [columns[names.index(c)] for c in codes]
                fail_columns_codes(x_arg, y_arg, _shown(cols),
                                     repr(order) if len(order) <= 6 else "<columns in code order>")


# --------------------------------------------------------------------------------------
# probabilities or logits


def _first_bad_row(sums):
    bad = np.flatnonzero(~(np.abs(sums - 1.0) <= 1e-6))
    return bad


#: How predictions are read (:func:`input_kind`): ``kind``, ``"probabilities"`` or
#: ``"logits"``; ``guessed``, whether the rule chose it (``requested="auto"``); ``problem``,
#: None or why the reading cannot stand: ``"rows"`` (a matrix read as probabilities with a row
#: that does not sum to 1 within 1e-6; ``row`` the first such row, 0-based, ``total`` its sum,
#: ``count`` how many) or ``"scores"`` (values above 1 and none below 0, neither probabilities
#: nor logits; ``row``, ``column`` and ``value`` the first such value in reading order).
InputKind = namedtuple("InputKind", "kind guessed problem row column value total count",
                       defaults=(None, None, None, None, None, None))


def input_kind(x, binary, requested="auto"):
    """How ``x`` is read, probabilities or logits, and the evidence: the one rule of the
    command line's ``--input`` and of :func:`calstats.cal_compare`'s ``input=``. Returns an
    :data:`InputKind`; the caller words a refusal for its own user (the library with
    :func:`calstats._validate.refuse_input_reading`, naming the argument; the command line
    naming the file, the column and ``--input``).

    Given explicitly, ``requested`` is the reading (a matrix read as probabilities still
    reports a row that does not sum to 1). With ``"auto"``: probabilities when every value is
    finite and in [0, 1] (and, for a matrix, every row sums to 1 within 1e-6), otherwise
    logits. Two readings are problems: a matrix whose values are all in [0, 1] but whose rows
    do not sum to 1 (probabilities spoiled by a rescaling), and values that leave [0, 1]
    upwards with none below 0 (missing values aside: neither probabilities nor logits, but
    percentages or counts). ``x`` is a float array (1-D binary, 2-D matrix)."""
    check_input_choice(requested)
    X = np.asarray(x, dtype=np.float64)
    matrix = not binary and X.ndim == 2
    if requested == "logits":
        return InputKind("logits", False)
    if requested == "probabilities":
        return _rows_reading(X, False) if matrix else InputKind("probabilities", False)
    finite = bool(np.isfinite(X).all())
    if finite and X.size > 0 and bool(X.min() >= 0) and bool(X.max() <= 1):
        return _rows_reading(X, True) if matrix else InputKind("probabilities", True)
    flat = X.reshape(X.shape[0], -1) if X.ndim else X.reshape(1, 1)
    above = flat > 1
    if not (flat < 0).any() and above.any():
        row, column = (int(i) for i in np.argwhere(above)[0])
        return InputKind("logits", True, "scores", row, column, float(flat[row, column]))
    return InputKind("logits", True)


def _rows_reading(X, guessed):
    """A matrix read as probabilities, with its first row that does not sum to 1 (if any)."""
    from .numerics.reductions import row_sums

    sums = row_sums(X)
    bad = _first_bad_row(sums)
    if not bad.size:
        return InputKind("probabilities", guessed)
    i = int(bad[0])
    return InputKind("probabilities", guessed, "rows", i, None, None, float(sums[i]), int(bad.size))


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
    warn_looks_like_probabilities(arg, fn, rows, how)
    return x


# --------------------------------------------------------------------------------------
# several models


def read_models(p, models=None, *, frame="models", reserved=None, refuse_reserved=None):
    """The models in ``p`` as ``[(name, values)]``, in order, values as given (each model's
    own checks follow in the caller).

    ``p`` is a dict of predictions (keys name the models), a DataFrame, or one model (a
    vector, a Series named by its name, an array; named ``models`` when that is a string,
    else ``"model"``). A DataFrame holds one model per column with ``frame="models"``
    (:func:`calstats.clinical.decision_curve`); with ``frame="matrix"`` it is one model (a
    probability matrix) unless ``models`` lists the columns that are models
    (:func:`calstats.report`). Every model needs its own name; ``reserved`` names (the
    decision curve's ``"all"`` and ``"none"``) are refused by calling ``refuse_reserved``, a
    validator of :mod:`calstats._validate`.
    """
    p = native(p, "p")  # polars, pyarrow, torch, ...: as pandas or NumPy
    if isinstance(p, Mapping):
        if models is not None:
            fail_models_of_dict()
        items = [(str(k), v) for k, v in p.items()]
    elif models is not None and not isinstance(models, str):
        if not isinstance(p, pd.DataFrame):
            fail_models_type()
        try:
            names = [str(m) for m in models]
        except TypeError:
            fail_models_type()
        cols = {str(c): c for c in p.columns}
        absent = [m for m in names if m not in cols]
        if absent:
            fail_models_columns(", ".join(f"`{m}`" for m in absent))
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
            fail_models_form()
        items = [(name, p)]
    if not items:
        fail_no_predictions()
    seen: set[str] = set()
    for name, _ in items:
        if name in seen:
            fail_model_twice(name)
        seen.add(name)
    if reserved and seen & set(reserved):
        refuse_reserved()
    return items


def model_arg(name: str, items: list[tuple[str, Any]], arg: str = "p") -> str:
    """How a model is named in a message: ``p`` for a single model, ``p["name"]`` for one of several."""
    return arg if len(items) == 1 else f'{arg}["{name}"]'


