"""The ``calstats`` command: compare, fit and assess calibrators from the shell.

::

    calstats compare                      # the bundled digits data, 5-fold comparison + PNG
    calstats compare --data preds.csv --label y --columns p_a p_b p_c --plot rel.png
    calstats calibrate train.csv new.csv --label y --method dirichlet -o calibrated.csv
    calstats assess preds.csv --label y --bootstrap 200

Input files are CSV (optionally compressed, e.g. ``.csv.gz``) or Parquet (``.parquet``/
``.pq``, which needs pyarrow). One prediction column means a binary problem (labels 0/1,
or ``--positive VALUE``); several columns are a multiclass problem whose class *k* is the
*k*-th column. Labels are matched to the columns by name: a label ``3`` belongs to a
column named ``3``, ``p_3`` or ``prob3`` (the columns' common prefix is ignored); integer
labels that match no name are R's 1-based class codes.

Errors are reported on one line (``calstats: error: ...``, exit status 2 for usage errors
and 1 otherwise); messages of :class:`calstats.CalstatsError` are R's messages. Progress of
long computations goes to stderr; results go to stdout.

Not in R's probcal (which has no command-line interface).
"""

import argparse
import math
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["main", "CliError"]

PROG = "calstats"
BINARY_METHODS = ("platt", "beta", "isotonic", "histogram", "temperature")
MULTICLASS_METHODS = ("temperature", "vector", "dirichlet", "ovr")
_NEEDS_PROB = ("beta", "isotonic", "histogram", "dirichlet")
_NEEDS_LOGIT = ("temperature", "vector")
_PARQUET = (".parquet", ".pq")
_DATASETS = {
    "digits": "digit probabilities of a Gaussian naive Bayes classifier (10 classes)",
    "digits-forest": "digit probabilities of a 50-tree random forest (10 classes)",
    "digits-svm": "one-vs-rest linear SVM scores for the digits (10 classes)",
    "digits-3": '"is it a 3?": naive Bayes probabilities (binary)',
}
_MMCE_MAX_N = 20000  # mmce builds an n x n kernel matrix


class CliError(Exception):
    """An error reported as one line, ``calstats: error: <message>``."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block) raised as :class:`CliError`."""

    def error(self, message):
        hint = f" (see '{self.prog} --help')"
        raise CliError(message + hint, status=2)


# --------------------------------------------------------------------------------------
# progress on stderr


class _Progress:
    """``with _Progress("fitting"):`` announces work on stderr and reports its duration.

    On a terminal a tqdm line shows the elapsed seconds while the work runs (and what
    :meth:`update` reports); otherwise one line before and one after.
    """

    def __init__(self, message, stream=None):
        self.message = message
        self.stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar = None
        self._stop = threading.Event()
        self._thread = None

    def _tick(self):
        while not self._stop.wait(0.5):
            self._bar.refresh()

    def update(self, text):
        """Report intermediate progress (e.g. ``"100/500"``)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text)
        else:
            self.stream.write(f"{PROG}: {self.message} ... {text}\n")
            self.stream.flush()

    def __enter__(self):
        self.t0 = time.monotonic()
        if self._tty:
            from tqdm import tqdm

            self._bar = tqdm(total=None, desc=f"{PROG}: {self.message}", file=self.stream, leave=False,
                             bar_format="{desc} ... {elapsed}{postfix}")
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        else:
            self.stream.write(f"{PROG}: {self.message} ...\n")
            self.stream.flush()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._bar is not None:
            self._bar.close()
        elapsed = time.monotonic() - self.t0
        if exc_type is None:
            self.stream.write(f"{PROG}: {self.message}: done in {elapsed:.1f} s\n")
        self.stream.flush()
        return False


# --------------------------------------------------------------------------------------
# reading and writing tables


def read_table(path):
    """Read a CSV or Parquet file into a DataFrame, with one-line errors."""
    p = Path(path)
    if not p.exists():
        raise CliError(f"cannot read '{path}': no such file")
    if p.is_dir():
        raise CliError(f"cannot read '{path}': it is a directory")
    if p.suffix.lower() in _PARQUET:
        try:
            return _restore_categoricals(pd.read_parquet(p), p)
        except ImportError:
            raise CliError(f"cannot read '{path}': reading Parquet needs pyarrow (pip install pyarrow), "
                           "or save the data as CSV") from None
        except Exception as exc:  # pyarrow's own errors
            raise CliError(f"cannot read '{path}' as Parquet: {_first_line(exc)}") from None
    try:
        frame = pd.read_csv(p)
    except pd.errors.EmptyDataError:
        raise CliError(f"cannot read '{path}': the file is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        raise CliError(f"cannot read '{path}' as CSV: {_first_line(exc)}") from None
    if frame.shape[0] == 0:
        raise CliError(f"'{path}' has no data rows")
    return frame


def _restore_categoricals(frame, path):
    """Categorical columns whose categories are numbers come back from Parquet as plain
    numbers (pyarrow keeps only string dictionaries); pandas' own metadata in the file says
    which columns were categorical, so they are made categorical again."""
    import json

    import pyarrow.parquet as pq

    try:
        meta = json.loads(pq.read_schema(path).metadata[b"pandas"])
    except (KeyError, TypeError, ValueError, OSError):
        return frame
    for col in meta.get("columns", []):
        name = col.get("name")
        if col.get("pandas_type") == "categorical" and name in frame.columns \
                and not isinstance(frame[name].dtype, pd.CategoricalDtype):
            ordered = bool((col.get("metadata") or {}).get("ordered", False))
            frame[name] = pd.Categorical(frame[name], ordered=ordered)
    return frame


def write_table(frame, path):
    """Write ``frame`` as CSV (or Parquet for a .parquet/.pq name) atomically; ``-`` is stdout.

    The target was checked before the work (:func:`calstats._cli_io.check_output`); the
    file appears whole or not at all (written beside it, then renamed).
    """
    from ._cli_io import atomic_write

    if path in (None, "-"):
        frame.to_csv(sys.stdout, index=False, lineterminator="\n")
        return "standard output"
    p = Path(path)

    def write(tmp):
        if p.suffix.lower() in _PARQUET:
            frame.to_parquet(tmp, index=False)
        else:  # compression from the real name (.csv.gz), not from the temporary one
            frame.to_csv(tmp, index=False, lineterminator="\n", compression=_csv_compression(p))

    try:
        return atomic_write(p, write)
    except ImportError:
        raise CliError(f"cannot write '{path}': writing Parquet needs pyarrow (pip install 'calstats[parquet]'), "
                       "or choose a .csv name") from None
    except OSError as exc:
        raise CliError(f"cannot write '{path}': {exc.strerror or _first_line(exc)}") from None


def _csv_compression(p):
    return {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}.get(p.suffix.lower())


def _check_output(path, inputs, force, kind):
    from ._cli_io import check_output

    def error(message):
        raise CliError(message)

    return check_output(path, inputs, force, kind, error)


def _first_line(exc):
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


# --------------------------------------------------------------------------------------
# prediction columns and labels


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
            raise CliError(f"column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} not found "
                           f"in '{path}' (columns: {_shortlist(names)})")
        if label is not None and label in columns:
            raise CliError(f"the label column '{label}' is also listed in --columns")
        cols = list(columns)
    else:
        for c in names:
            if c != label and not pd.api.types.is_numeric_dtype(frame[c]):
                _check_broken_numeric(frame[c], c, path)
        cols = [c for c in names if c != label and pd.api.types.is_numeric_dtype(frame[c])
                and not pd.api.types.is_bool_dtype(frame[c])]
        if not cols:
            raise CliError(f"'{path}' has no numeric prediction columns besides the label; "
                           "name them with --columns")
    for c in cols:
        if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]):
            _check_broken_numeric(frame[c], c, path, always=True)
            raise CliError(f"column '{c}' of '{path}' is not numeric (dtype {frame[c].dtype})")
    return frame, cols


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
        value = present[bad].iloc[0]
        raise CliError(f"column '{name}' of '{path}' has a non-numeric value {str(value)!r} in data row "
                       f"{pos + 1} (line {pos + 2} of a CSV file); fix that cell, or leave the column out "
                       "with --columns")


def _shortlist(names, limit=12):
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


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
        raise CliError(f"the label column '{label}' has missing values (row {int(np.flatnonzero(raw.isna())[0]) + 2} "
                       "of the file)")
    labels = _label_strings(raw)
    for names in _class_name_candidates(cols):
        if labels.isin(names).all():
            return pd.Categorical(labels, categories=names)
    if pd.api.types.is_integer_dtype(raw) or pd.api.types.is_float_dtype(raw):
        return raw.to_numpy()  # R's 1-based class codes; calstats checks them
    unknown = sorted(set(labels) - set(_class_names(cols)))
    raise CliError(f"labels in column '{label}' do not match the prediction columns: label "
                   f"{unknown[0]!r} has no column named {unknown[0]!r} or with a common prefix "
                   f"(columns: {_shortlist(cols)})")


def _binary_labels(raw, label, positive, column=None):
    if positive is None and not (pd.api.types.is_bool_dtype(raw) or pd.api.types.is_numeric_dtype(raw)):
        # string or categorical labels: "0"/"1" are 0/1; otherwise the prediction column's
        # name may say which level it is for
        from .formula.api import _carried_level

        levels = sorted(set(_label_strings(raw.dropna())))
        if not raw.isna().any() and set(levels) <= {"0", "1"}:
            return _label_strings(raw).astype(np.int64).to_numpy()
        carried = _carried_level(column, levels) if column is not None and len(levels) == 2 else None
        if carried is None:
            shown = ", ".join(repr(v) for v in levels[:4]) + (", ..." if len(levels) > 4 else "")
            raise CliError(f"the labels in column '{label}' are {shown}, not 0/1; name the event with "
                           f"--positive VALUE (e.g. --positive {levels[-1]!r})" if levels else
                           f"the label column '{label}' is empty")
        positive = carried
    if positive is not None:
        if raw.isna().any():
            raise CliError(f"the label column '{label}' has missing values")
        labels = _label_strings(raw)
        if not labels.eq(positive).any():
            raise CliError(f"--positive {positive!r} does not occur in the label column '{label}'")
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
            raise CliError(f"weights column '{weights}' not found in '{path}' (columns: {_shortlist(names)})")
        if weights == label or (columns and weights in columns):
            raise CliError(f"the weights column '{weights}' is also the label or a prediction column")
        _check_broken_numeric(frame[weights], weights, path, always=True)
        w = pd.to_numeric(frame[weights]).to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise CliError(f"weights column '{weights}' of '{path}' has the value {w[bad[0]]!r} in data row "
                           f"{int(bad[0]) + 1}; weights must be finite and non-negative")
        if not (w > 0).any():
            raise CliError(f"every weight in column '{weights}' of '{path}' is zero")
        frame = frame.drop(columns=[weights])
    if label is not None and label not in names:
        if need_label:
            raise CliError(f"label column '{label}' not found in '{path}' (columns: {_shortlist(names)})")
        label = None
    frame, cols = _prediction_columns(frame, label, columns, path)
    y = None
    if len(cols) == 1:
        x = frame[cols[0]].astype(np.float64)
        if label is not None:
            y = _binary_labels(frame[label], label, positive, cols[0])
    else:
        x = frame[cols].astype(np.float64)
        if label is not None:
            y = _multiclass_labels(frame[label], cols, label)
    return Problem(x, y, f"'{path}'", cols, label, w)


def bundled_problem(name):
    from . import datasets

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
        raise CliError("--data needs --label (the name of the column holding the true classes)", status=2)
    return problem_from_frame(read_table(args.data), args.label, args.columns, args.data, args.positive,
                              need_label=need_label, weights=args.weights)


# --------------------------------------------------------------------------------------
# representations (probabilities <-> logits), as cal_compare does


def _is_probabilities(X, binary):
    X = np.asarray(X, dtype=np.float64)
    if not np.isfinite(X).all() or (X < 0).any() or (X > 1).any():
        return False
    return binary or bool((np.abs(X.sum(axis=1) - 1.0) <= 1e-6).all())


def _as_input(x, method, kind):
    """The representation of ``x`` that ``method`` is fitted on (``kind`` of x given)."""
    from ._internals import logits_to_probs, probs_to_logits

    X = np.asarray(x, dtype=np.float64)
    if method in _NEEDS_PROB and kind == "logits":
        return logits_to_probs(X)
    if method in _NEEDS_LOGIT and kind == "probabilities":
        return probs_to_logits(X)
    return X


def check_rows(prob, requested="auto"):
    """Multiclass probabilities must sum to one per row: report the first bad row.

    Columns that all lie in [0, 1] are taken for probabilities unless ``--input logits``
    says otherwise, so a row that does not sum to 1 is an error (not silently logits).
    """
    if prob.binary or requested == "logits":
        return
    X = np.asarray(prob.x, dtype=np.float64)
    if requested == "auto" and (not np.isfinite(X).all() or (X < 0).any() or (X > 1).any()):
        return
    sums = X.sum(axis=1)
    bad = np.flatnonzero(~(np.abs(sums - 1.0) <= 1e-6))
    if bad.size:
        i = int(bad[0])
        raise CliError(f"the prediction columns of {prob.description} are probabilities but row {i + 1} sums to "
                       f"{sums[i]:.6g}, not 1 ({bad.size} such row{'s' if bad.size > 1 else ''}); "
                       "every row must sum to 1 (use --input logits if the columns are scores)")


def _check_methods(methods, binary):
    allowed = BINARY_METHODS if binary else MULTICLASS_METHODS
    for m in methods or ():
        if m not in allowed:
            kind = "binary (one prediction column)" if binary else "multiclass (several prediction columns)"
            raise CliError(f"method '{m}' does not apply to {kind} data; choose from {', '.join(allowed)}",
                           status=2)


def _input_kind(x, requested, binary):
    if requested != "auto":
        return requested
    return "probabilities" if _is_probabilities(x, binary) else "logits"


# --------------------------------------------------------------------------------------
# compare


def _add_data_options(p, bundled=True):
    if bundled:
        p.add_argument("--data", metavar="FILE", help="CSV or Parquet file with predictions and labels "
                       "(default: a bundled dataset, see --dataset)")
        p.add_argument("--dataset", choices=sorted(_DATASETS), default="digits",
                       help="bundled dataset used without --data (default: digits): "
                       + "; ".join(f"{k}: {v}" for k, v in _DATASETS.items()))
    p.add_argument("--label", metavar="COL", help="column holding the true classes")
    p.add_argument("--columns", nargs="+", metavar="COL",
                   help="prediction columns (default: every numeric column except the label); "
                        "one column = binary, several = one per class in class order")
    p.add_argument("--positive", metavar="VALUE",
                   help="binary problems: the label value counted as the event (default: labels are 0/1, or "
                        "the level the prediction column's name carries, e.g. p_yes)")
    p.add_argument("--weights", metavar="COL", help="column of case weights (non-negative; integer weights "
                   "count a row that many times)")


def _cmd_compare(args):
    import calstats

    plot_path = None
    if not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            if args.plot is not None:
                raise CliError("no plot can be written: matplotlib is not installed "
                               "(pip install 'calstats[plot]'), or pass --no-plot") from None
        else:
            plot_path = args.plot or "reliability.png"
            # the default name may be replaced (it is ours); a name the user gave needs --force
            _check_output(plot_path, [(args.data, "the data file")], args.force or args.plot is None, "plot")
    prob = _load_problem(args)
    methods = args.methods
    _check_methods(methods, prob.binary)
    check_rows(prob, args.input)
    kwargs = {}
    if args.input != "auto":
        kwargs["input"] = args.input
    shown = ", ".join(methods) if methods else "the default methods"
    print(f"Data: {prob.description}; {prob.n} rows, {prob.kind()}")
    with _Progress(f"cross-validating {shown} ({args.folds} folds, {prob.n} rows)"):
        result = calstats.cal_compare(prob.x, prob.y, methods=methods, folds=args.folds, seed=args.seed,
                                      weights=prob.weights, progress=False, **kwargs)
    print()
    if hasattr(result, "as_text"):
        sys.stdout.write(result.as_text())
    else:
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            print(result.table.to_string(float_format=lambda v: f"{v:.4g}"))
    if args.no_plot:
        return 0
    if plot_path is None:
        print(f"{PROG}: note: no plot written: matplotlib is not installed (pip install 'calstats[plot]')",
              file=sys.stderr)
        return 0
    where = _plot_comparison(result, prob, plot_path)
    print(f"\nReliability diagram written to {where}")
    return 0


def _best_method(table):
    rows = [m for m in table.index if m != "uncalibrated"]
    if not rows:
        return None
    col = "log_loss" if "log_loss" in table.columns else table.columns[0]
    vals = table.loc[rows, col].astype(float)
    if vals.isna().all():
        return None
    return str(vals.idxmin())


def _plot_comparison(result, prob, path):
    """Uncalibrated vs the best method (out of fold), side by side; returns the path."""
    import calstats
    from matplotlib.figure import Figure

    table = result.table
    preds = getattr(result, "predictions", None) or {}
    kind = _input_kind(prob.x, "auto", prob.binary)
    panels = [("uncalibrated", preds.get("uncalibrated", _as_input(prob.x, "dirichlet", kind)))]
    best = _best_method(table)
    if best is not None and best in preds:
        panels.append((best, preds[best]))
    fig = Figure(figsize=(5.6 * len(panels) + 1.2, 5.4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    y = prob.y
    for ax, (name, p) in zip(axes, panels):
        if prob.binary:
            diagram = calstats.reliability_diagram(np.asarray(p, dtype=np.float64), y)
        else:
            diagram = calstats.reliability_diagram(np.asarray(p, dtype=np.float64), y, type="confidence")
        diagram.plot(ax=ax)
        label = "uncalibrated" if name == "uncalibrated" else f"{name} (out-of-fold; lowest log-loss)"
        ax.set_title(f"{label}\n{diagram.subtitle or ''}", loc="left", fontsize="medium", pad=6)
        for text in list(ax.texts):  # the subtitle annotation; folded into the title above
            text.remove()
    fig.suptitle(f"Reliability: {prob.description}", x=0.01, ha="left", fontsize="large")
    from ._cli_io import atomic_write

    fmt = Path(path).suffix.lower().lstrip(".")
    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110, format=fmt))
    except OSError as exc:
        raise CliError(f"cannot write '{path}': {exc.strerror or _first_line(exc)}") from None


# --------------------------------------------------------------------------------------
# calibrate


def _fit(method, x, y, args, weights=None):
    import calstats

    binary = x.ndim == 1
    if binary:
        fns = {"platt": calstats.cal_platt, "beta": calstats.cal_beta, "isotonic": calstats.cal_isotonic,
               "histogram": calstats.cal_histogram, "temperature": calstats.cal_temperature}
    else:
        fns = {"temperature": calstats.cal_temperature, "vector": calstats.cal_vector_scaling,
               "dirichlet": calstats.cal_dirichlet, "ovr": calstats.cal_ovr}
    allowed = BINARY_METHODS if binary else MULTICLASS_METHODS
    if method not in fns:
        kind = "binary (one prediction column)" if binary else "multiclass (several prediction columns)"
        raise CliError(f"method '{method}' does not apply to {kind} data; choose one of {', '.join(allowed)}",
                       status=2)
    kwargs = {}
    if args.bins is not None:
        if method == "histogram":
            kwargs["bins"] = args.bins
        elif method == "ovr" and args.base_method == "histogram":
            kwargs["bins"] = args.bins
        else:
            raise CliError("--bins applies only to the histogram method", status=2)
    if args.lambda_ is not None:
        if method != "dirichlet":
            raise CliError("--lambda applies only to the dirichlet method", status=2)
        kwargs["lambda_"] = args.lambda_
    if method == "ovr":
        kwargs["method"] = args.base_method or "platt"
    elif args.base_method is not None:
        raise CliError("--base-method applies only to the ovr method", status=2)
    if weights is not None:
        kwargs["weights"] = weights
    return fns[method](x, y, **kwargs)


def _cmd_calibrate(args):
    _check_output(args.output, [(args.train, "the training file"), (args.apply, "the file being calibrated")],
                  args.force, "table")
    train = problem_from_frame(read_table(args.train), args.label, args.columns, args.train, args.positive,
                               weights=args.weights)
    apply_frame = read_table(args.apply)
    apply_frame = apply_frame.set_axis([str(c) for c in apply_frame.columns], axis=1)
    missing = [c for c in train.columns if c not in apply_frame.columns]
    if missing:
        raise CliError(f"column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} of '{args.train}' "
                       f"not found in '{args.apply}' (columns: {_shortlist(list(apply_frame.columns))})")
    xnew = apply_frame[train.columns[0]] if train.binary else apply_frame[train.columns]
    for c in train.columns:
        if not pd.api.types.is_numeric_dtype(apply_frame[c]) or pd.api.types.is_bool_dtype(apply_frame[c]):
            raise CliError(f"column '{c}' of '{args.apply}' is not numeric (dtype {apply_frame[c].dtype})")
    method = args.method
    _check_methods([method], train.binary)
    check_rows(train, args.input)
    kind = _input_kind(train.x, args.input, train.binary)
    xfit = _as_input(train.x, method, kind)
    xapp = _as_input(xnew.astype(np.float64), method, kind)
    with _Progress(f"fitting {method} on {train.n} rows of '{args.train}'"):
        fit = _fit(method, xfit, train.y, args, train.weights)
    calibrated = fit.predict(xapp)
    out = apply_frame.copy()
    if train.binary:
        out[train.columns[0]] = np.asarray(calibrated, dtype=np.float64)
    else:
        out[train.columns] = np.asarray(calibrated, dtype=np.float64)
    info = sys.stderr if args.output in (None, "-") else sys.stdout
    print(str(fit.summary()), file=info)
    where = write_table(out, args.output)
    print(f"\nCalibrated probabilities for {len(out)} rows of '{args.apply}' written to {where} "
          f"(columns {_shortlist(train.columns, 4)} replaced)", file=info)
    return 0


# --------------------------------------------------------------------------------------
# assess


def _metric_rows(p, y, binary, bins, weights=None):
    import calstats

    rows = {}
    types = [None] if binary else ["classwise", "confidence"]
    for name, fn in (("ECE", calstats.ece), ("MCE", calstats.mce), ("ACE", calstats.ace)):
        rows[name] = [fn(p, y, bins=bins, weights=weights) if t is None else
                      fn(p, y, bins=bins, type=t, weights=weights) for t in types]
    n = p.shape[0]
    if n <= _MMCE_MAX_N:
        mm = calstats.mmce(p, y, weights=weights)
        rows["MMCE"] = [mm] if binary else [math.nan, mm]
    cols = ["value"] if binary else ["classwise", "confidence"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def _resample_labels(y, idx):
    if isinstance(y, pd.Categorical):
        return y.take(idx)
    if isinstance(y, pd.Series):
        return y.iloc[idx].reset_index(drop=True)
    return np.asarray(y)[idx]


def _bootstrap(p, y, binary, bins, B, seed):
    import calstats

    rs = np.random.default_rng(seed)
    n = p.shape[0]
    types = [None] if binary else ["classwise", "confidence"]
    draws = np.full((B, len(types)), np.nan)
    step = max(1, B // 4)
    with _Progress(f"bootstrapping the ECE ({B} resamples of {n} rows)") as prog:
        for b in range(B):
            idx = rs.integers(0, n, n)
            pb, yb = p[idx], _resample_labels(y, idx)
            for j, t in enumerate(types):
                try:
                    draws[b, j] = calstats.ece(pb, yb, bins=bins) if t is None else calstats.ece(pb, yb, bins=bins, type=t)
                except Exception:  # a resample without one of the classes, say
                    draws[b, j] = np.nan
            if (b + 1) % step == 0 and b + 1 < B:
                prog.update(f"{b + 1}/{B}")
    lo = np.nanpercentile(draws, 2.5, axis=0)
    hi = np.nanpercentile(draws, 97.5, axis=0)
    return lo, hi


_TESTS = ("cal_spiegelhalter_test", "cal_ks_test", "cal_kuiper_test")


def _check_assessable(prob):
    """Metrics of one row, or of labels that are all one class, mean nothing: say so."""
    if prob.n < 2:
        raise CliError(f"{prob.description} has {prob.n} row; calibration metrics need at least 2 rows "
                       "(and both outcomes)")
    y = np.asarray(prob.y.codes if isinstance(prob.y, pd.Categorical) else prob.y)
    present = pd.unique(pd.Series(y).dropna())
    if present.size < 2:
        raise CliError(f"every label in {prob.description} is the same class ({str(present[0])!r}); calibration "
                       "metrics need rows of at least two classes")


def _calibration_tests(p, y, binary, weights=None):
    """Yield ``(name, text)`` for every calibration test calstats provides."""
    import calstats

    for name in _TESTS:
        try:
            fn = getattr(calstats, name)
        except (AttributeError, ImportError):
            yield name, f"calstats.{name} is not available in this version of calstats; skipped."
            continue
        try:
            res = fn(p, y, weights=weights) if binary else fn(p, y, type="confidence", weights=weights)
        except Exception as exc:
            yield name, f"not computed: {_first_line(exc)}"
            continue
        yield name, str(res)


def _cmd_assess(args):
    prob = _load_problem(args)
    X = np.asarray(prob.x, dtype=np.float64)
    if np.isfinite(X).all() and ((X < 0).any() or (X > 1).any()):
        what = f"column '{prob.columns[0]}' holds" if prob.binary else "the prediction columns hold"
        raise CliError(f"{what} values outside [0, 1], not probabilities; assess probabilities "
                       "(e.g. the output of 'calstats calibrate')")
    check_rows(prob, "auto")
    p = np.asarray(prob.x, dtype=np.float64)
    _check_assessable(prob)
    print(f"Data: {prob.description}; {prob.n} rows, {prob.kind()}")
    print()
    table = _metric_rows(p, prob.y, prob.binary, args.bins, prob.weights)
    if args.bootstrap and prob.weights is not None:
        raise CliError("--bootstrap does not take --weights yet (the resampling would have to draw by weight)",
                       status=2)
    if args.bootstrap:
        lo, hi = _bootstrap(p, prob.y, prob.binary, args.bins, args.bootstrap, args.seed)
        ci = pd.DataFrame([lo, hi], index=["ECE 2.5%", "ECE 97.5%"], columns=table.columns)
        table = pd.concat([table.iloc[:1], ci, table.iloc[1:]])
    print(f"Calibration metrics ({args.bins} equal-width bins; MMCE bandwidth 0.2"
          + ("; MMCE left out: more than 20000 rows" if prob.n > _MMCE_MAX_N else "") + ")")
    print(table.to_string(float_format=lambda v: f"{v:.4f}", na_rep=""))
    if args.bootstrap:
        print(f"(ECE interval: bootstrap percentiles of {args.bootstrap} resamples, seed {args.seed})")
    print()
    print("Calibration tests" + ("" if prob.binary else " (top-label confidence)"))
    for name, text in _calibration_tests(p, prob.y, prob.binary, prob.weights):
        if "\n" in text:
            print(text.rstrip("\n"))
        else:
            print(f"{name}: {text}")
    if prob.binary:
        _clinical_report(p, prob)
    return 0


def _clinical_report(p, prob):
    """Binary files: rms::val.prob's statistics, the calibration hierarchy and the
    Hosmer-Lemeshow test (calstats.clinical), as a clinical statistician reports them."""
    import calstats

    y = np.asarray(prob.y, dtype=np.float64)
    print()
    print("Validation (rms::val.prob)" + (" with case weights" if prob.weights is not None else ""))
    try:
        print(str(calstats.val_prob(p, y, weights=prob.weights, pl=False)).rstrip("\n"))
    except Exception as exc:
        print(f"not computed: {_first_line(exc)}")
    if prob.weights is not None:
        print("(the calibration hierarchy and the Hosmer-Lemeshow test are unweighted: left out)")
        return
    print()
    try:
        print(str(calstats.val_prob_ci(p, y, pl=False).summary()).rstrip("\n"))
    except Exception as exc:
        print(f"Calibration hierarchy not computed: {_first_line(exc)}")
    try:
        col = prob.columns[0] if prob.columns else "p"
        print(str(calstats.hoslem_test(y, p, g=10, data_name=f"{prob.label}, {col}")).rstrip("\n"))
    except Exception as exc:
        print(f"Hosmer-Lemeshow test not computed: {_first_line(exc)}")


# --------------------------------------------------------------------------------------
# entry point


def _parser():
    from . import __version__

    parser = _Parser(prog=PROG, description="Calibrate classifier probabilities (the calstats package).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("compare", help="compare calibration methods out of fold and draw a reliability diagram",
                       description="Compare calibration methods by 5-fold out-of-fold log-loss, Brier score, "
                                   "ECE and calibration tests (calstats.cal_compare), and write a reliability "
                                   "diagram of the uncalibrated and the best method. Without --data the "
                                   "bundled digits data are used.")
    _add_data_options(c)
    c.add_argument("--methods", nargs="+", metavar="METHOD",
                   help=f"methods to compare (binary: {', '.join(BINARY_METHODS)}; multiclass: "
                        f"{', '.join(MULTICLASS_METHODS)}; default: all of them)")
    c.add_argument("--folds", type=int, default=5, help="number of cross-validation folds (default: 5)")
    c.add_argument("--seed", type=int, default=1, help="seed of the fold assignment, R's set.seed (default: 1)")
    c.add_argument("--input", choices=("auto", "probabilities", "logits"), default="auto",
                   help="how to read the prediction columns (default: auto)")
    c.add_argument("--plot", metavar="FILE.png", help="reliability diagram file, any image format matplotlib "
                   "writes (default: reliability.png)")
    c.add_argument("--no-plot", action="store_true", help="do not draw the reliability diagram")
    c.add_argument("--force", action="store_true", help="replace an existing --plot file (never an input file)")
    c.set_defaults(func=_cmd_compare)

    k = sub.add_parser("calibrate", help="fit a calibrator on one file and calibrate the predictions of another",
                       description="Fit a calibration method on TRAIN (predictions and labels) and write the "
                                   "calibrated probabilities of APPLY (same prediction columns; labels not "
                                   "needed). The output is APPLY with its prediction columns replaced.")
    k.add_argument("train", metavar="TRAIN", help="CSV or Parquet file to fit on")
    k.add_argument("apply", metavar="APPLY", help="CSV or Parquet file to calibrate")
    _add_data_options(k, bundled=False)
    k.add_argument("--method", "-m", required=True, choices=sorted(set(BINARY_METHODS + MULTICLASS_METHODS)),
                   help="calibration method")
    k.add_argument("--output", "-o", metavar="FILE",
                   help="output file (.csv, or .parquet with pyarrow; default: CSV on standard output); "
                        "never an input file, and an existing file only with --force")
    k.add_argument("--force", action="store_true", help="replace an existing output file (never an input file)")
    k.add_argument("--input", choices=("auto", "probabilities", "logits"), default="auto",
                   help="how to read the prediction columns (default: auto)")
    k.add_argument("--bins", type=int, help="histogram: number of bins (default: 10)")
    k.add_argument("--lambda", dest="lambda_", type=float, help="dirichlet: ODIR penalty (default: chosen by CV)")
    k.add_argument("--base-method", choices=BINARY_METHODS, help="ovr: the binary method per class (default: platt)")
    k.set_defaults(func=_cmd_calibrate)

    a = sub.add_parser("assess", help="calibration metrics and tests of a predictions file",
                       description="Print ECE, MCE, ACE, MMCE and calibration tests of predicted "
                                   "probabilities. Without --data the bundled digits data are used.")
    a.add_argument("file", metavar="FILE", nargs="?", help="CSV or Parquet file (same as --data)")
    _add_data_options(a)
    a.add_argument("--bins", type=int, default=10, help="number of equal-width bins (default: 10)")
    a.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="add a bootstrap 95%% interval of the ECE from B resamples (default: none)")
    a.add_argument("--seed", type=int, default=1, help="seed of the bootstrap (default: 1)")
    a.set_defaults(func=_cmd_assess)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"{PROG}: warning: {_first_line(message)}", file=sys.stderr)


def main(argv=None):
    """Run the ``calstats`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for an error in the data or the computation, 2 for a usage error.
    """
    from ._errors import CalstatsError

    try:
        parser = _parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version
            return int(exc.code or 0)
        if args.command is None:
            parser.print_help()
            return 2
        if getattr(args, "file", None) is not None:
            if args.data is not None:
                raise CliError("give the file either as FILE or with --data, not both", status=2)
            args.data = args.file
        for opt in ("folds", "bins", "bootstrap"):
            val = getattr(args, opt, None)
            if val is not None and val < (2 if opt == "folds" else 0 if opt == "bootstrap" else 1):
                raise CliError(f"--{opt} must be at least {2 if opt == 'folds' else 0 if opt == 'bootstrap' else 1}",
                               status=2)
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            return args.func(args)
    except CliError as exc:
        _report(str(exc))
        return exc.status
    except CalstatsError as exc:
        _report(str(exc))
        return 1
    except KeyboardInterrupt:
        _report("interrupted")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # a bug: still one line, the traceback on request
        if os.environ.get("CALSTATS_DEBUG"):
            raise
        _report(f"{type(exc).__name__}: {_first_line(exc)} (set CALSTATS_DEBUG=1 for the traceback)")
        return 1


def _report(message):
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
