"""Prediction columns, labels and weights of a table: the command line's :class:`Problem`."""

import os
import re
import sys

import numpy as np
import pandas as pd

from .. import _validate as v
from ..calibrators import registry
from ._common import _DATASETS, BINARY_METHODS, MULTICLASS_METHODS, PROG
from ._common import shortlist as _shortlist
from ._io import read_table

#: What the command is reading (prediction and label columns of a file), for an error of
#: calstats that follows, which names only its own arguments (``p``, ``y``).
READING: list[str] = []


class Problem:
    """Predictions ``x`` (Series: binary, DataFrame: multiclass) and labels ``y``."""

    def __init__(self, x, y, description, columns, label=None, weights=None):
        self.x = x
        self.y = y
        self.description = description
        self.columns = list(columns)
        self.label = label
        self.weights = weights

    @property
    def binary(self):
        return isinstance(self.x, pd.Series)

    @property
    def n(self):
        return len(self.x)

    def kind(self):
        return "binary" if self.binary else f"{self.x.shape[1]} classes"


def _prediction_columns(frame, label, columns, path):
    names = [str(c) for c in frame.columns]
    frame = frame.set_axis(names, axis=1)
    if columns:
        missing = [c for c in columns if c not in names]
        if missing:
            v.fail_cli_columns_not_found(missing, path, _shortlist(names))
        if label is not None and label in columns:
            v.fail_cli_label_in_columns(label)
        cols = list(columns)
    else:
        for c in names:
            if c != label and not pd.api.types.is_numeric_dtype(frame[c]):
                _check_broken_numeric(frame[c], c, path)
        cols = [c for c in names if c != label and pd.api.types.is_numeric_dtype(frame[c])
                and not pd.api.types.is_bool_dtype(frame[c])]
        ids = [c for c in cols if _is_identifier(frame[c], c)]
        if ids and len(ids) < len(cols):
            cols = [c for c in cols if c not in ids]
            print(f"{PROG}: note: column{'s' if len(ids) > 1 else ''} {', '.join(map(repr, ids))} of '{path}' "
                  f"{'are' if len(ids) > 1 else 'is'} not read as predictions (an identifier: whole numbers beyond "
                  f"[0, 1], or so named); the prediction column{'s are' if len(cols) > 1 else ' is'} "
                  f"{', '.join(map(repr, cols))}; name them with --columns to choose", file=sys.stderr)
        if not cols:
            v.fail_cli_no_prediction_columns(path)
    for c in cols:
        if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]):
            _check_broken_numeric(frame[c], c, path, always=True)
            v.fail_cli_not_numeric(c, path, frame[c].dtype)
    return frame, cols


_ID_NAMES = re.compile(r"^(id|.*[_.\- ]id|ids?|index|row|rownames|row_?id|rowid|unnamed: ?\d+|subject|patient|case)$",
                       re.IGNORECASE)


def _is_identifier(col, name):
    """A numeric column that is no prediction: named like an identifier, or whole numbers
    reaching beyond [0, 1], all distinct (a row number, a patient id)."""
    if _ID_NAMES.match(str(name)):
        return True
    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size < 2 or not (values == np.floor(values)).all():
        return False
    return bool(values.max() > 1 or values.min() < 0) and np.unique(values).size == values.size


def refuse_missing(frame, cols, path, report=False):
    """A missing value in a column the command reads is an error naming the column and the row
    (``report``: in the report's words)."""
    for c in cols:
        miss = np.flatnonzero(frame[c].isna().to_numpy())
        if miss.size:
            v.fail_cli_missing_value(c, path, int(miss[0]), int(miss.size), report=report)


def _check_broken_numeric(col, name, path, always=False):
    """A column of numbers with a non-numeric cell is an error naming the cell: it must not
    silently drop out of the prediction columns (``always``: for a column the user named)."""
    if pd.api.types.is_bool_dtype(col):
        return
    present = col.dropna()
    if present.empty:
        return
    numbers = pd.to_numeric(present, errors="coerce")
    bad = numbers.isna()
    if bad.any() and (always or bad.mean() <= 0.5):
        pos = int(np.flatnonzero(col.index == bad[bad].index[0])[0])
        v.fail_cli_non_numeric_cell(name, path, pos, present[bad].iloc[0])



def _label_strings(values):
    """Labels as strings; integral floats print without ``.0``."""
    s = pd.Series(values)
    if pd.api.types.is_float_dtype(s) and s.notna().all() and (s == np.floor(s)).all():
        s = s.astype(np.int64)
    return s.astype(str)


def _class_name_candidates(cols):
    """Ways to read class names off the columns: the whole common prefix stripped
    (``p_0``, ``p_1`` -> ``0``, ``1``), then the prefix cut after each separator in it
    (``p_class_0`` -> ``class_0``), then the names themselves."""
    prefix = os.path.commonprefix(cols)
    cuts = [len(prefix)] + [i + 1 for i in range(len(prefix) - 1, -1, -1) if prefix[i] in "_.-: "]
    out = []
    for cut in cuts:
        stripped = [c[cut:] for c in cols]
        if cut and all(stripped) and len(set(stripped)) == len(stripped) and stripped not in out:
            out.append(stripped)
    out.append(list(cols))
    return out


def _class_names(cols):
    """Column names without their common prefix (``p_0``, ``p_1`` -> ``0``, ``1``)."""
    return _class_name_candidates(cols)[0]


def _multiclass_labels(raw, cols, label):
    """Map the label column to a Categorical whose k-th category is the k-th column."""
    if raw.isna().any():
        _label_missing(raw, label)
    labels = _label_strings(raw)
    for names in _class_name_candidates(cols):
        if labels.isin(names).all():
            return pd.Categorical(labels, categories=names)
    if pd.api.types.is_integer_dtype(raw) or pd.api.types.is_float_dtype(raw):
        return raw.to_numpy()  # R's 1-based class codes; calstats checks them
    unknown = sorted(set(labels) - set(_class_names(cols)))
    v.fail_cli_labels_unmatched(label, unknown[0], _shortlist(cols))


def _label_missing(raw, label):
    miss = np.flatnonzero(raw.isna().to_numpy())
    v.fail_cli_label_missing(label, int(miss.size), int(miss[0]))


def _binary_labels(raw, label, positive, column=None):
    if positive is None and not (pd.api.types.is_bool_dtype(raw) or pd.api.types.is_numeric_dtype(raw)):
        # string or categorical labels: "0"/"1" are 0/1; otherwise the prediction column's
        # name may say which level it is for
        from ..formula.api import _carried_level

        levels = sorted(set(_label_strings(raw.dropna())))
        if not raw.isna().any() and set(levels) <= {"0", "1"}:
            return _label_strings(raw).astype(np.int64).to_numpy()
        carried = _carried_level(column, levels) if column is not None and len(levels) == 2 else None
        if carried is None:
            if not levels:
                v.fail_cli_label_empty(label)
            v.fail_cli_labels_not_binary(label, levels)
        positive = carried
    if positive is not None:
        if raw.isna().any():
            _label_missing(raw, label)
        labels = _label_strings(raw)
        if not labels.eq(positive).any():
            v.fail_cli_positive_absent(positive, label)
        return labels.eq(positive).astype(np.int64).to_numpy()
    if pd.api.types.is_bool_dtype(raw):
        return raw.astype(np.int64).to_numpy()
    return raw.to_numpy()  # calstats checks 0/1 with R's messages


def problem_from_frame(frame, label, columns, path, positive=None, need_label=True, weights=None):
    """Build a :class:`Problem` from a table: prediction columns plus labels (and weights)."""
    names = [str(c) for c in frame.columns]
    w = None
    if weights is not None:
        if weights not in names:
            v.fail_cli_column_not_found("weights", weights, path, _shortlist(names))
        if weights == label or (columns and weights in columns):
            v.fail_cli_weights_column_reused(weights)
        _check_broken_numeric(frame[weights], weights, path, always=True)
        w = pd.to_numeric(frame[weights]).to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            v.fail_cli_weight_value(weights, path, w[bad[0]], int(bad[0]))
        if not (w > 0).any():
            v.fail_cli_weights_zero(weights, path)
        frame = frame.drop(columns=[weights])
    if label is not None and label not in names:
        if need_label:
            v.fail_cli_column_not_found("label", label, path, _shortlist(names))
        label = None
    frame, cols = _prediction_columns(frame, label, columns, path)
    refuse_missing(frame, cols + ([label] if label is not None else []), path)
    y = None
    if len(cols) == 1:
        x = frame[cols[0]].astype(np.float64)
        if label is not None:
            y = _binary_labels(frame[label], label, positive, cols[0])
    else:
        x = frame[cols].astype(np.float64)
        if label is not None:
            y = _multiclass_labels(frame[label], cols, label)
    what = f"column '{cols[0]}'" if len(cols) == 1 else f"columns {_shortlist(cols, 6)}"
    READING.append(f"reading {what}" + (f" and label '{label}'" if label is not None else "") + f" of '{path}'")
    return Problem(x, y, f"'{path}'", cols, label, w)


def bundled_problem(name):
    from .. import datasets

    if name == "digits-3":
        d = datasets.load_digits_binary()
        return Problem(d["p"], d["label"].to_numpy(), f"bundled '{name}': {_DATASETS[name]}", ["p"], "label")
    if name == "digits-svm":
        d = datasets.load_digits_svm()
    else:
        d = datasets.load_digits_probs("forest" if name == "digits-forest" else "naive_bayes")
    cols = [c for c in d.columns if c != "label"]
    return Problem(d[cols], d["label"], f"bundled '{name}': {_DATASETS[name]}", cols, "label")


def _load_problem(args, need_label=True):
    if args.data is None:
        return bundled_problem(args.dataset)
    if args.label is None:
        v.fail_cli_data_needs_label()
    return problem_from_frame(read_table(args.data), args.label, args.columns, args.data, args.positive,
                              need_label=need_label, weights=args.weights)


# --------------------------------------------------------------------------------------
# representations (probabilities <-> logits), as cal_compare does


def _as_input(x, method, kind):
    """The representation of ``x`` that ``method`` is fitted on (``kind`` of x given)."""
    from ..kernels.probs import logits_to_probs, probs_to_logits

    X = np.asarray(x, dtype=np.float64)
    takes = registry.method(method).takes
    if takes == "probabilities" and kind == "logits":
        return logits_to_probs(X)
    if takes == "logits" and kind == "probabilities":
        return probs_to_logits(X)
    return X


def _reading(prob, requested):
    """The reading of the prediction columns of ``prob`` by the one rule of the library,
    :func:`calstats._inputs.input_kind` (its decision and evidence; the messages here name the
    file, the column and ``--input``)."""
    from .._inputs import input_kind

    return input_kind(np.asarray(prob.x, dtype=np.float64), prob.binary, requested)


def check_rows(prob, requested="auto"):
    """Multiclass probabilities must sum to one per row: report the first bad row.

    Columns read as probabilities -- by ``--input probabilities``, or guessed because they all
    lie in [0, 1] -- with a row that does not sum to 1 are an error (not silently logits).
    """
    reading = _reading(prob, requested)
    if reading.problem == "rows":
        v.fail_cli_rows_not_summing(prob.description, reading.row, reading.total, reading.count)


def _check_methods(methods, binary):
    allowed = BINARY_METHODS if binary else MULTICLASS_METHODS
    for m in methods or ():
        if registry.canonical(m) not in allowed:
            v.fail_cli_method(m, binary, allowed)


def resolve_input(prob, requested="auto"):
    """How the prediction columns of ``prob`` are read: ``"probabilities"`` or ``"logits"``.

    ``requested`` is the ``--input`` option. Given explicitly, it is obeyed without a word:
    ``--input logits`` always forces the logits reading. With ``"auto"`` the columns are
    probabilities when every value is in [0, 1] (multiclass: and every row sums to 1; see
    :func:`check_rows`), otherwise logits -- and the reading chosen is said in one line on
    stderr, so that a wrong guess is seen.

    The guess "logits" is refused (:class:`CliError`, naming the column of the first value
    above 1) when no prediction column has a negative value. The rule is the library's,
    :func:`calstats._inputs.input_kind` (which :func:`calstats.cal_compare` follows too); only
    the words are the command line's. Log-probabilities are at most 0 and real-valued scores
    take both signs, so columns that are never negative yet leave
    [0, 1] are neither probabilities nor logits: typically probabilities spoiled by a
    rescaling, percentages, or counts. One column (a binary problem) is held to the same
    rule: a score that is positive for every case would predict the event more likely than
    not for all of them, far more often a percentage or a count than a real margin. A user
    whose scores really are all positive passes ``--input logits``.
    """
    if requested != "auto":
        return requested
    reading = _reading(prob, "auto")
    if reading.problem == "scores":
        _refuse_nonnegative_scores(prob, reading)
    what = f"column '{prob.columns[0]}'" if prob.binary else f"columns {_shortlist(prob.columns, 6)}"
    print(f"{PROG}: note: --input not given; reading {what} as {reading.kind}", file=sys.stderr)
    return reading.kind


def _refuse_nonnegative_scores(prob, reading):
    """The reading "scores" (values above 1, none below 0) in the command line's words."""
    v.fail_cli_nonnegative_scores(prob.columns[reading.column], prob.description, reading.row, reading.value,
                                  prob.binary)
