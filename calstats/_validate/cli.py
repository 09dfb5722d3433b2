"""The command line's messages (:mod:`calstats.cli`): files, columns, labels, weights,
options, outputs.

Each raises :class:`~calstats._errors.CommandError` (``calstats.cli.CliError``), which the
command reports as one line, ``calstats: error: <message>``, and ends with its ``status``:
1 for the data or the computation, 2 for the usage (an option given wrong or in the wrong
company). The words name the file, the column and the option the user typed, not the
library's arguments. ``--bins``'s type check raises argparse's own ``ArgumentTypeError``,
which argparse reports.
"""

from typing import NoReturn

from .._errors import CommandError

_USAGE = 2  # the exit status of a usage error


def first_line(exc):
    """The first line of an exception's text (its class name when it has none): how the
    command line quotes an error it reports (here and in :mod:`calstats.cli`)."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _plural(n, one="", many="s"):
    return one if n == 1 else many


def _names(values):
    return ", ".join(map(repr, values))


# --------------------------------------------------------------------------------------
# the command and its options


def fail_cli_usage(message, prog) -> NoReturn:
    """argparse's own error (an unknown option, a missing value, a bad choice), on one line."""
    raise CommandError(f"{message} (see '{prog} --help')", status=_USAGE) from None


def fail_cli_bins_argument(text) -> NoReturn:
    """``--bins`` that is neither a whole number nor a rule's name (argparse reports it)."""
    import argparse

    raise argparse.ArgumentTypeError(f"expected a number of bins or sqrt, sturges, cube_root, got {text!r}") from None


def fail_cli_file_twice() -> NoReturn:
    """The file given both as ``FILE`` and as ``--data``."""
    raise CommandError("give the file either as FILE or with --data, not both", status=_USAGE) from None


def fail_cli_at_least(option, least) -> NoReturn:
    """A count option (``--folds``, ``--bins``, ``--bootstrap``, ``--workers``) below its least value."""
    raise CommandError(f"--{option} must be at least {least}", status=_USAGE) from None


def fail_cli_method(method, binary, allowed) -> NoReturn:
    """A calibration method that does not apply to the kind of data (one prediction column
    or several); ``allowed`` are the methods that do."""
    kind = "binary (one prediction column)" if binary else "multiclass (several prediction columns)"
    raise CommandError(f"method '{method}' does not apply to {kind} data; choose one of {', '.join(allowed)}",
                       status=_USAGE) from None


def fail_cli_option_for_method(option, method) -> NoReturn:
    """An option of one method (``--bins``, ``--lambda``, ``--base-method``) given with another."""
    raise CommandError(f"{option} applies only to the {method} method", status=_USAGE) from None


def fail_cli_bootstrap_weights() -> NoReturn:
    raise CommandError("--bootstrap does not take --weights yet (the resampling would have to draw by weight)",
                       status=_USAGE) from None


def fail_cli_data_needs_label() -> NoReturn:
    """``--data`` without ``--label`` (``assess``, ``compare``, ``assess --dask``)."""
    raise CommandError("--data needs --label (the name of the column holding the true classes)",
                       status=_USAGE) from None


# --------------------------------------------------------------------------------------
# reading files


def fail_cli_no_file(path) -> NoReturn:
    """A file (or a glob) that names nothing."""
    raise CommandError(f"cannot read '{path}': no such file") from None


def fail_cli_directory(path, write=False) -> NoReturn:
    """A directory where a file is read or written."""
    raise CommandError(f"cannot {'write' if write else 'read'} '{path}': it is a directory") from None


def fail_cli_read_parquet_needs_pyarrow(path) -> NoReturn:
    raise CommandError(f"cannot read '{path}': reading Parquet needs pyarrow (pip install 'calstats[parquet]'), "
                       "or save the data as CSV") from None


def fail_cli_unreadable(path, exc, kind=None) -> NoReturn:
    """A file the reader refuses (``kind``: "CSV" or "Parquet" when the format is known);
    the reader's own first line says why."""
    how = f" as {kind}" if kind else ""
    raise CommandError(f"cannot read '{path}'{how}: {first_line(exc)}") from None


def fail_cli_empty_file(path) -> NoReturn:
    raise CommandError(f"cannot read '{path}': the file is empty") from None


def fail_cli_no_rows(path) -> NoReturn:
    """A table with a header and no rows."""
    raise CommandError(f"'{path}' has no data rows") from None


def fail_cli_no_parquet_files(path) -> NoReturn:
    raise CommandError(f"cannot read '{path}': the directory holds no .parquet files") from None


def fail_cli_mixed_files(path) -> NoReturn:
    raise CommandError(f"'{path}' matches both Parquet and CSV files; give one kind") from None


# --------------------------------------------------------------------------------------
# writing files (checked before any work)


def fail_cli_plot_to_stdout() -> NoReturn:
    raise CommandError("the plot needs a file name (e.g. --plot reliability.png), not standard output") from None


def fail_cli_output_is_input(path, role) -> NoReturn:
    """An output that would replace a file the command reads (``role``: "the data file" ...)."""
    raise CommandError(f"refusing to write '{path}': it is {role}; choose another output name") from None


def fail_cli_no_directory(path, parent) -> NoReturn:
    raise CommandError(f"cannot write '{path}': the directory '{parent}' does not exist") from None


def fail_cli_directory_not_writable(path, parent) -> NoReturn:
    raise CommandError(f"cannot write '{path}': the directory '{parent}' is not writable") from None


def fail_cli_output_exists(path) -> NoReturn:
    raise CommandError(f"'{path}' exists; pass --force to replace it, or choose another output name") from None


def fail_cli_no_matplotlib() -> NoReturn:
    """A plot asked for without matplotlib."""
    raise CommandError("no plot can be written: matplotlib is not installed (pip install 'calstats[plot]'), "
                       "or pass --no-plot") from None


def fail_cli_plot_format(path, suffix, formats) -> NoReturn:
    """A plot name whose suffix is no format matplotlib writes (``formats``: those it does)."""
    raise CommandError(f"cannot write the plot as '{path}': '.{suffix}' is not an image format matplotlib writes; "
                       f"use one of {', '.join('.' + f for f in sorted(formats))}") from None


def fail_cli_write_parquet_needs_pyarrow(path) -> NoReturn:
    raise CommandError(f"cannot write '{path}': writing Parquet needs pyarrow (pip install 'calstats[parquet]'), "
                       "or choose a .csv name") from None


def fail_cli_cannot_write(path, exc) -> NoReturn:
    """Writing failed (``exc``, an ``OSError``): the system's reason."""
    raise CommandError(f"cannot write '{path}': {getattr(exc, 'strerror', None) or first_line(exc)}") from None


# --------------------------------------------------------------------------------------
# columns, labels and weights


def fail_cli_column_not_found(what, name, path, columns) -> NoReturn:
    """A column named by an option (``what``: "label", "weights", "time", "status", "model")
    that the file does not have; ``columns``: the file's columns, shortlisted."""
    raise CommandError(f"{what} column '{name}' not found in '{path}' (columns: {columns})") from None


def fail_cli_columns_not_found(missing, path, columns, source=None) -> NoReturn:
    """Prediction columns (``--columns``, or those of the training file ``source``) that the
    file does not have; ``columns``: the file's columns, shortlisted."""
    of = f" of '{source}'" if source is not None else ""
    raise CommandError(f"column{_plural(len(missing))} {_names(missing)}{of} not found in '{path}' "
                       f"(columns: {columns})") from None


def fail_cli_label_in_columns(label) -> NoReturn:
    raise CommandError(f"the label column '{label}' is also listed in --columns") from None


def fail_cli_no_prediction_columns(path) -> NoReturn:
    raise CommandError(f"'{path}' has no numeric prediction columns besides the label; name them with --columns") \
        from None


def fail_cli_not_numeric(column, path, dtype) -> NoReturn:
    """A prediction column that does not hold numbers."""
    raise CommandError(f"column '{column}' of '{path}' is not numeric (dtype {dtype})") from None


def fail_cli_missing_value(column, path, row, count, report=False) -> NoReturn:
    """A missing value in a column the command reads: ``row`` (0-based) is the first of
    ``count``; ``report``: the report's words for what to do."""
    more = "" if count == 1 else f" and {count - 1} more row{_plural(count - 1)}"
    what = "the report needs complete rows: drop or impute it first" if report else "drop or impute that row first"
    raise CommandError(f"column '{column}' of '{path}' has a missing value in data row {row + 1} (line {row + 2} of a "
                       f"CSV file){more}; {what}") from None


def fail_cli_non_numeric_cell(column, path, row, value) -> NoReturn:
    """A column of numbers with a cell that is not one (``row`` 0-based)."""
    raise CommandError(f"column '{column}' of '{path}' has a non-numeric value {str(value)!r} in data row "
                       f"{row + 1} (line {row + 2} of a CSV file); fix that cell, or leave the column out "
                       "with --columns") from None


def fail_cli_label_missing(label, count, row=None) -> NoReturn:
    """Missing labels: ``count`` of them, the first in ``row`` (0-based) when known."""
    where = "" if row is None else f" (the first in data row {row + 1}, line {row + 2} of a CSV file)"
    raise CommandError(f"the label column '{label}' has {count} missing value{_plural(count)}{where}") from None


def fail_cli_label_empty(label) -> NoReturn:
    raise CommandError(f"the label column '{label}' is empty") from None


def fail_cli_labels_not_binary(label, levels) -> NoReturn:
    """Labels of one prediction column that are not 0/1 and no column name says which is the event."""
    shown = ", ".join(repr(x) for x in levels[:4]) + (", ..." if len(levels) > 4 else "")
    raise CommandError(f"the labels in column '{label}' are {shown}, not 0/1; name the event with "
                       f"--positive VALUE (e.g. --positive {levels[-1]!r})") from None


def fail_cli_positive_absent(positive, label) -> NoReturn:
    raise CommandError(f"--positive {positive!r} does not occur in the label column '{label}'") from None


def fail_cli_labels_unmatched(label, unknown, columns) -> NoReturn:
    """A label with no prediction column of its name; ``columns``: the prediction columns, shortlisted."""
    raise CommandError(f"labels in column '{label}' do not match the prediction columns: label {unknown!r} has no "
                       f"column named {unknown!r} or with a common prefix (columns: {columns})") from None


def fail_cli_weights_column_reused(weights) -> NoReturn:
    raise CommandError(f"the weights column '{weights}' is also the label or a prediction column") from None


def fail_cli_weight_value(weights, path, value, row) -> NoReturn:
    """A negative or non-finite weight (``row`` 0-based)."""
    raise CommandError(f"weights column '{weights}' of '{path}' has the value {value!r} in data row {row + 1}; "
                       "weights must be finite and non-negative") from None


def fail_cli_weights_zero(weights, path) -> NoReturn:
    raise CommandError(f"every weight in column '{weights}' of '{path}' is zero") from None


# --------------------------------------------------------------------------------------
# predictions


def fail_cli_rows_not_summing(description, row, total, count) -> NoReturn:
    """Columns read as probabilities whose row ``row`` (0-based; one of ``count``) does not sum to 1."""
    raise CommandError(f"the prediction columns of {description} are probabilities but row {row + 1} sums to "
                       f"{total:.6g}, not 1 ({count} such row{_plural(count)}); every row must sum to 1 (use --input "
                       "logits if the columns are scores)") from None


def fail_cli_nonnegative_scores(column, description, row, value, binary) -> NoReturn:
    """Values above 1 and none below 0 (the first in ``row``, 0-based): neither probabilities
    nor logits."""
    where = f"(first in data row {row + 1}: {value:.6g})"
    if binary:
        raise CommandError(f"column '{column}' of {description} has values above 1 {where} and no negative value: "
                           "it holds neither probabilities nor logits (percentages? counts?); fix the column, or "
                           "pass --input logits if it really holds scores") from None
    raise CommandError(f"column '{column}' of {description} has values above 1 {where} and no prediction column has "
                       "a negative value: these are neither probabilities nor logits; fix the column, or pass "
                       "--input logits if the columns really are scores") from None


def fail_cli_not_probabilities(column=None) -> NoReturn:
    """``assess`` given values outside [0, 1] (``column``: the one prediction column, or None for several)."""
    what = f"column '{column}' holds" if column is not None else "the prediction columns hold"
    raise CommandError(f"{what} values outside [0, 1], not probabilities; assess probabilities (e.g. the output of "
                       "'calstats calibrate')") from None


def fail_cli_too_few_rows(description, n) -> NoReturn:
    """Calibration metrics of fewer than two rows (``description``: the file, quoted, or the bundled data)."""
    raise CommandError(f"{description} has {n} row{_plural(n)}; calibration metrics need at least 2 rows (and both "
                       "outcomes)") from None


def fail_cli_one_class(description, label=None) -> NoReturn:
    """Labels all of one class (``label``: that class, when known)."""
    which = "" if label is None else f" ({label!r})"
    raise CommandError(f"every label in {description} is the same class{which}; calibration metrics need rows of "
                       "at least two classes") from None


# --------------------------------------------------------------------------------------
# assess --dask


def fail_cli_needs_dask() -> NoReturn:
    raise CommandError("--dask needs Dask: pip install 'calstats[dask]'", status=_USAGE) from None


def fail_cli_dask_needs_data() -> NoReturn:
    raise CommandError("--dask needs --data (a file, a directory of Parquet files or a glob)", status=_USAGE) from None


def fail_cli_dask_weights() -> NoReturn:
    raise CommandError("--dask does not take --weights yet", status=_USAGE) from None


def fail_cli_dask_bootstrap() -> NoReturn:
    raise CommandError("--dask does not take --bootstrap (resampling needs the rows in memory)",
                       status=_USAGE) from None


def fail_cli_scheduler(address, exc) -> NoReturn:
    """The Dask scheduler at ``address`` cannot be reached (``exc``: why)."""
    raise CommandError(f"cannot connect to the Dask scheduler {address}: {first_line(exc)}") from None


# --------------------------------------------------------------------------------------
# time-to-event outcomes (assess and report)


def fail_cli_survival_needs_file() -> NoReturn:
    raise CommandError("a time-to-event assessment needs a FILE (--time, --status and --horizon name its columns)",
                       status=_USAGE) from None


def fail_cli_survival_dask_bootstrap() -> NoReturn:
    raise CommandError("--dask and --bootstrap are for binary and multiclass files; a time-to-event assessment "
                       "runs in memory with its own intervals", status=_USAGE) from None


def fail_cli_survival_options() -> NoReturn:
    raise CommandError("a time-to-event outcome needs --time COL, --status COL and --horizon T",
                       status=_USAGE) from None


def fail_cli_label_with_survival() -> NoReturn:
    raise CommandError("--label is for binary and multiclass outcomes; a time-to-event outcome takes --time "
                       "and --status", status=_USAGE) from None


def fail_cli_negative_time(column, path, value, row) -> NoReturn:
    """A negative follow-up time (``row`` 0-based)."""
    raise CommandError(f"column '{column}' of '{path}' has a negative follow-up time ({value:g}) in data row "
                       f"{row + 1}; times are measured from the start of follow-up") from None


def fail_cli_horizon(column) -> NoReturn:
    raise CommandError(f"--horizon must be a positive number of the time unit of column '{column}'",
                       status=_USAGE) from None


def fail_cli_horizon_beyond(horizon, column, last) -> NoReturn:
    raise CommandError(f"--horizon {horizon:g} is beyond the last follow-up time in column '{column}' "
                       f"({last:g}): no one is followed that long; choose a horizon within follow-up") from None


def _codes(codes):
    return ", ".join(f"{c:g}" for c in codes)


def fail_cli_needs_cause(column, path, codes) -> NoReturn:
    """A status column of several causes (``codes``: its event codes) without ``--cause``."""
    raise CommandError(f"column '{column}' of '{path}' holds the event codes {_codes(codes)}: a competing-risk "
                       "outcome; give --cause CODE, the cause whose risks the prediction columns are",
                       status=_USAGE) from None


def fail_cli_not_a_cause(cause, column, path, codes) -> NoReturn:
    raise CommandError(f"--cause {cause} is not a cause in column '{column}' of '{path}' (event codes "
                       f"{_codes(codes)}; 0 is censoring)", status=_USAGE) from None


def fail_cli_cause_without_time() -> NoReturn:
    raise CommandError("--cause is for a competing-risk outcome: give it with --time, --status and --horizon",
                       status=_USAGE) from None


# --------------------------------------------------------------------------------------
# report: the models


def fail_cli_options_conflict(chosen) -> NoReturn:
    """Options that say what the models are in two ways (``chosen``: their names)."""
    raise CommandError(f"{' and '.join(chosen)} do not go together: --columns names one model's prediction "
                       "columns, --models several binary models, --model-column the models of a long table",
                       status=_USAGE) from None


def fail_cli_options_need_file() -> NoReturn:
    raise CommandError("--label and the column options need a FILE", status=_USAGE) from None


def fail_cli_report_needs_label() -> NoReturn:
    raise CommandError("a predictions file needs --label (the column of true classes), or --time and --status "
                       "for a time-to-event outcome", status=_USAGE) from None


def fail_cli_survival_one_column() -> NoReturn:
    raise CommandError("a time-to-event report takes one column of risks per model: use --models for several",
                       status=_USAGE) from None


def fail_cli_models_absent(absent, path, columns) -> NoReturn:
    """``--models`` naming columns the file does not have; ``columns``: its columns, shortlisted."""
    raise CommandError(f"--models names column{_plural(len(absent))} {_names(absent)} that '{path}' does not have "
                       f"(columns: {columns})", status=_USAGE) from None


def fail_cli_models_not_binary(column) -> NoReturn:
    raise CommandError(f"--models takes one column of risks per model; '{column}' is not one") from None


def fail_cli_not_one_model(columns, path, row, total) -> NoReturn:
    """Prediction columns read as one multiclass model whose row ``row`` (0-based) does not
    sum to 1: perhaps several binary models."""
    more = " ..." if len(columns) > 3 else ""
    raise CommandError(f"the {len(columns)} prediction columns of '{path}' are read as one multiclass model, but "
                       f"data row {row + 1} sums to {total:.6g}, not 1; for several binary models side by side name "
                       f"their columns with --models {' '.join(columns[:3])}{more}") from None


def fail_cli_model_rows(column, sizes) -> NoReturn:
    """Models of a long table (``sizes``: rows of each) that score different numbers of cases."""
    shown = ", ".join(f"'{n}' {k}" for n, k in sizes.items())
    raise CommandError(f"the models of --model-column '{column}' must score the same cases; their rows differ "
                       f"({shown})") from None


def fail_cli_model_column_columns() -> NoReturn:
    raise CommandError("with --model-column each model has one set of prediction columns; name them with "
                       "--columns", status=_USAGE) from None


def fail_cli_model_outcomes(column, first, other) -> NoReturn:
    raise CommandError(f"the models of --model-column '{column}' must score the same cases in the same order; the "
                       f"outcomes of '{first}' and '{other}' differ") from None
