"""``calstats report``: a calibration report of a predictions file, as one HTML page.

The table is read as ``assess`` reads it (CSV or Parquet; a directory of Parquet files, a
glob, or ``--dask`` through Dask, then gathered in memory: the report ranks, groups and
resamples the rows). The models are the prediction columns (one model), ``--models`` (one
binary or time-to-event model per column) or ``--model-column`` (a long table: one block of
rows per model, the same cases in the same order). Without a file, the bundled "is it a
3?" data with two models side by side (a linear SVM calibrated out of fold by Platt
scaling, and a random forest).
"""

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _validate as v
from ._common import PROG, _Progress
from ._common import shortlist as _shortlist
from ._io import _check_output, read_table
from ._problem import _check_broken_numeric, _prediction_columns, problem_from_frame, refuse_missing

__all__ = ["add_parser", "cmd_report"]

_SECTIONS = ("discrimination", "accuracy", "hierarchy", "curve", "corp", "binned", "tests", "decision")


def add_parser(sub, bins_arg):
    r = sub.add_parser("report", help="write a calibration report of a predictions file as one HTML page",
                       description="Write a self-contained HTML calibration report (calstats.report): the data, "
                                   "discrimination, the calibration hierarchy, ICI/E50/E90/Emax, the CORP and "
                                   "binned reliability diagrams, calibration tests, the decision curve, and how "
                                   "every number was computed. Several models appear side by side. Without a file "
                                   "the bundled 'is it a 3?' digits data: a linear SVM calibrated by Platt scaling "
                                   "(out of fold) against a random forest.")
    r.add_argument("file", metavar="FILE", nargs="?",
                   help="CSV or Parquet file (a directory of Parquet files or a glob is read through Dask)")
    r.add_argument("--data", metavar="FILE", help="the file (same as FILE)")
    r.add_argument("--label", metavar="COL", help="column holding the true classes (not with --time/--status)")
    r.add_argument("--columns", nargs="+", metavar="COL",
                   help="prediction columns of the one model (default: every numeric column left); one column = "
                        "binary, several = one per class in class order")
    r.add_argument("--models", nargs="+", metavar="COL",
                   help="several binary (or time-to-event) models side by side: one column of risks each")
    r.add_argument("--model-column", metavar="COL",
                   help="a long table: COL names the model of each row; every model has the same cases in the same "
                        "order")
    r.add_argument("--positive", metavar="VALUE", help="binary problems: the label value counted as the event")
    r.add_argument("--weights", metavar="COL", help="column of case weights")
    r.add_argument("--time", metavar="COL", help="time-to-event outcome: the column of follow-up times")
    r.add_argument("--status", metavar="COL", help="time-to-event outcome: the column of event statuses (1 = event)")
    r.add_argument("--horizon", type=float, metavar="T",
                   help="time-to-event outcome: the predictions are risks of the event by this time")
    r.add_argument("--cause", metavar="CODE",
                   help="competing risks: the status column holds event codes (0 censored, 1, 2, ... the causes) "
                        "and the predictions are risks of this cause by the horizon")
    r.add_argument("--output", "-o", metavar="FILE.html",
                   help="the page to write (default: report.html, replaced when it exists, as compare replaces "
                        "reliability.png; '-' for standard output); an existing file named here is replaced only "
                        "with --force, an input never")
    r.add_argument("--force", action="store_true", help="replace an existing output file (never an input file)")
    r.add_argument("--title", help="the page's title")
    r.add_argument("--sections", nargs="+", metavar="NAME", choices=_SECTIONS,
                   help=f"sections to compute (default: all that apply): {', '.join(_SECTIONS)}")
    r.add_argument("--bins", type=bins_arg, default=10, metavar="N|RULE",
                   help="bins of the binned diagram and the ECE, or sqrt, sturges, cube_root (default: 10)")
    r.add_argument("--strategy", choices=("uniform", "quantile"), default="uniform",
                   help="equal-width or equal-mass bins (default: uniform)")
    r.add_argument("--seed", type=int, default=1, help="R's set.seed before each resampling (default: 1)")
    r.add_argument("--dask", action="store_true",
                   help="read FILE with Dask (also a directory of Parquet files or a glob), then compute in memory")
    r.set_defaults(func=cmd_report)
    return r


# --------------------------------------------------------------------------------------
# reading


def _read(path, dask):
    from . import _dask

    p = Path(path)
    if dask or p.is_dir() or any(c in str(path) for c in "*?["):
        frame = _dask.read_frame(str(path))
        parts = frame.npartitions
        frame = frame.compute().reset_index(drop=True)
        print(f"{PROG}: note: read '{path}' with Dask ({parts} partition{'s' if parts != 1 else ''}) and gathered "
              f"{len(frame)} rows in memory", file=sys.stderr)
        if frame.shape[0] == 0:
            v.fail_cli_no_rows(path)
        return frame
    return read_table(path)


def _column(frame, name, path, what):
    if name not in frame.columns:
        v.fail_cli_column_not_found(what, name, path, _shortlist(list(frame.columns)))
    return frame[name]


def _refuse_missing(frame, cols, path):
    """A missing value in a column the report reads is an error naming the cell."""
    refuse_missing(frame, cols, path, report=True)


def _check_follow_up(times, horizon, args, path):
    """Follow-up times are non-negative, and the horizon lies within them (a risk by a time
    beyond the last follow-up has no Kaplan-Meier estimate to be checked against)."""
    bad = np.flatnonzero(times < 0)
    if bad.size:
        v.fail_cli_negative_time(args.time, path, times[int(bad[0])], int(bad[0]))
    if not (np.isfinite(horizon) and horizon > 0):
        v.fail_cli_horizon(args.time)
    if horizon > times.max():
        v.fail_cli_horizon_beyond(horizon, args.time, times.max())


def _numeric(frame, c, path):
    _check_broken_numeric(frame[c], c, path, always=True)
    return pd.to_numeric(frame[c]).to_numpy(dtype=np.float64)


def _survival_outcome(frame, args, path):
    t = _numeric(frame, args.time, path)
    s = frame[args.status]
    if pd.api.types.is_bool_dtype(s):
        s = s.astype(np.int64)
    return t, _numeric(frame.assign(**{args.status: s}), args.status, path)


def cause_of(args):
    """``--cause`` as the report takes it: a whole number when it is one (an event code)."""
    c = getattr(args, "cause", None)
    if c is None:
        return None
    try:
        number = float(c)
    except ValueError:
        return c
    return int(number) if math.isfinite(number) and number == int(number) else c


def _check_causes(status, args, path):
    """Event codes of several causes need --cause; --cause needs a cause the column holds."""
    codes = np.unique(status)
    causes = [c for c in codes if c != 0]
    competing = len(causes) > 1 and not (set(codes.tolist()) <= {1.0, 2.0})
    cause = cause_of(args)
    if cause is None:
        if competing:
            v.fail_cli_needs_cause(args.status, path, codes)
        return
    if not any(isinstance(cause, int) and c == cause for c in causes):
        v.fail_cli_not_a_cause(args.cause, args.status, path, codes)


def survival_columns(frame, args, path):
    """``(models, (time, status), weights)`` of a time-to-event table: the risk columns
    (``--models``, ``--columns`` or every numeric column left), the outcome and the weights,
    each checked (missing values, negative times, a horizon within follow-up, the causes)."""
    if args.time is None or args.status is None or args.horizon is None:
        v.fail_cli_survival_options()
    if args.label is not None:
        v.fail_cli_label_with_survival()
    for name, what in ((args.time, "time"), (args.status, "status")):
        _column(frame, name, path, what)
    drop = [args.time, args.status] + ([args.weights] if args.weights else [])
    cols = getattr(args, "models", None) or args.columns
    rest = frame.drop(columns=drop)
    _, cols = _prediction_columns(rest, None, cols, path)
    _refuse_missing(frame, cols + [args.time, args.status] + ([args.weights] if args.weights else []), path)
    y = _survival_outcome(frame, args, path)
    _check_follow_up(y[0], float(args.horizon), args, path)
    _check_causes(y[1], args, path)
    w = None if args.weights is None else _numeric(frame, args.weights, path)
    return {c: frame[c].astype(np.float64).to_numpy() for c in cols}, y, w


def _models_of(frame, args, path):
    """``(models, y, weights, description)`` of one table (one block of a long table)."""
    surv = args.time is not None or args.status is not None
    if surv:
        models, y, w = survival_columns(frame, args, path)
        if len(models) > 1 and not args.models:
            v.fail_cli_survival_one_column()
        return models, y, w
    if args.label is None:
        v.fail_cli_report_needs_label()
    _column(frame, args.label, path, "label")
    if args.models:
        models, y, w = {}, None, None
        absent = [c for c in args.models if c not in frame.columns]
        if absent:
            v.fail_cli_models_absent(absent, path, _shortlist([str(c) for c in frame.columns]))
        _refuse_missing(frame, list(args.models), path)
        for c in args.models:
            prob = problem_from_frame(frame, args.label, [c], path, args.positive, weights=args.weights)
            if not prob.binary:  # pragma: no cover - one column is always binary
                v.fail_cli_models_not_binary(c)
            models[c] = prob.x.to_numpy(dtype=np.float64)
            y, w = prob.y, prob.weights
        return models, y, w
    prob = problem_from_frame(frame, args.label, args.columns, path, args.positive, weights=args.weights)
    _refuse_missing(frame, prob.columns, path)
    if not prob.binary:
        sums = np.asarray(prob.x, dtype=np.float64).sum(axis=1)
        bad = np.flatnonzero(~(np.abs(sums - 1.0) <= 1e-6))
        if bad.size:
            v.fail_cli_not_one_model(prob.columns, path, int(bad[0]), sums[int(bad[0])])
    name = prob.columns[0] if prob.binary else Path(str(path)).stem.split(".")[0] or "model"
    return {name: prob.x}, prob.y, prob.weights


def _same(a, b):
    if isinstance(a, tuple):
        return all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(np.asarray(a), np.asarray(b))


def _long_models(frame, args, path):
    mc = args.model_column
    _column(frame, mc, path, "model")
    _refuse_missing(frame, [mc], path)
    names = list(dict.fromkeys(frame[mc].astype(str)))
    blocks = {n: frame.loc[frame[mc].astype(str) == n].drop(columns=[mc]).reset_index(drop=True) for n in names}
    sizes = {n: len(b) for n, b in blocks.items()}
    if len(set(sizes.values())) > 1:
        v.fail_cli_model_rows(mc, sizes)
    models, first = {}, None
    for n, block in blocks.items():
        m, y, w = _models_of(block, args, path)
        if len(m) != 1:
            v.fail_cli_model_column_columns()
        if first is None:
            first = (n, y, w)
        elif not (_same(first[1], y) and _same(first[2], w)):
            v.fail_cli_model_outcomes(mc, first[0], n)
        models[n] = next(iter(m.values()))
    assert first is not None
    return models, first[1], first[2]


#: How the bundled report's ``p`` and ``y`` are made, in public calls (run by :func:`_bundled`
#: and shown on the page before the call that reruns the report).
BUNDLED_SOURCE = """import calstats
b = calstats.datasets.load_digits_binary()
f = calstats.datasets.load_digits_probs("forest")
y = b["label"].to_numpy()
svm = calstats.cal_cv(b["score"].to_numpy(dtype=float), y, method="platt", folds=5, seed=1, progress=False)
p = {"SVM + Platt": svm.oof_predictions, "random forest": f["p_3"].to_numpy(dtype=float)}
"""


def _bundled():
    """The bundled "is it a 3?" data and two competing models: the linear SVM's out-of-fold
    score calibrated out of fold by Platt scaling (R's ``probcal::cal_cv(score, y, "platt",
    folds = 5, seed = 1)``), and the random forest's out-of-fold probability of a 3:
    :data:`BUNDLED_SOURCE`, run."""
    env: dict = {}
    exec(compile(BUNDLED_SOURCE, "<calstats report: bundled data>", "exec"), env)  # noqa: S102 - our own code
    models = {k: np.asarray(v, dtype=np.float64) for k, v in env["p"].items()}
    return models, env["y"], None


def _command(args, path):
    """The command that reruns this report (the page shows it before the Python call)."""
    import shlex

    parts = ["calstats", "report", str(path)]
    for opt, value in (("--label", args.label), ("--time", args.time), ("--status", args.status),
                       ("--horizon", args.horizon), ("--positive", args.positive), ("--weights", args.weights),
                       ("--cause", args.cause), ("--model-column", args.model_column), ("--title", args.title)):
        if value is not None:
            parts += [opt, f"{value:g}" if isinstance(value, float) else str(value)]
    for opt, values in (("--columns", args.columns), ("--models", args.models), ("--sections", args.sections)):
        if values:
            parts += [opt, *map(str, values)]
    if args.bins != 10:
        parts += ["--bins", str(args.bins)]
    if args.strategy != "uniform":
        parts += ["--strategy", args.strategy]
    if args.seed != 1:
        parts += ["--seed", str(args.seed)]
    if args.dask:
        parts.append("--dask")
    return "# made from the file by: " + " ".join(shlex.quote(x) for x in parts) + "\n"


def cmd_report(args):
    from ..reporting import report
    from ._safety import atomic_write

    path = args.data  # FILE, or --data (the entry point has checked that not both are given)
    chosen = [o for o, v in (("--columns", args.columns), ("--models", args.models),
                             ("--model-column", args.model_column)) if v]
    if len(chosen) > 1 and not (chosen == ["--columns", "--model-column"]):
        v.fail_cli_options_conflict(chosen)
    inputs = [(path, "the data file")] if path is not None and Path(path).exists() else []
    # the default name may be replaced (it is ours, as compare's reliability.png); a name the user gave needs --force
    default = args.output is None
    if default:
        args.output = "report.html"
    target = _check_output(args.output, inputs, args.force or default, "table")
    horizon = None
    if path is None:
        if any(v is not None for v in (args.label, args.columns, args.models, args.model_column, args.time,
                                       args.status, args.cause)):
            v.fail_cli_options_need_file()
        models, y, w = _bundled()
        source = BUNDLED_SOURCE
        what = ("bundled 'digits-3': is it a 3? (a linear SVM calibrated by Platt scaling, 5-fold out of fold, "
                "seed 1; a random forest)")
        title = args.title or "Calibration report: is it a 3? (bundled digits data)"
    else:
        frame = _read(path, args.dask)
        frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
        if args.model_column:
            models, y, w = _long_models(frame, args, path)
        else:
            models, y, w = _models_of(frame, args, path)
        horizon = args.horizon if args.time is not None else None
        if args.cause is not None and args.time is None:
            v.fail_cli_cause_without_time()
        source = _command(args, path)
        what = f"'{path}'"
        title = args.title
    n = len(next(iter(models.values())))
    info = sys.stderr if target.stdout else sys.stdout  # standard output may be the page itself
    print(f"Data: {what}; {n} rows; model{'s' if len(models) > 1 else ''}: {', '.join(models)}", file=info)
    with _Progress(f"building the report ({len(models)} model{'s' if len(models) > 1 else ''}, {n} rows)"):
        rep = report(models, y, weights=w, title=title, time=horizon, cause=cause_of(args), sections=args.sections,
                     bins=args.bins, strategy=args.strategy, seed=args.seed, source=source, progress=False)
    print(file=info)
    info.write(rep.print_text())
    if target.stdout:
        sys.stdout.write(rep.to_html())
        return 0
    try:
        where = atomic_write(args.output, lambda tmp: rep.to_html(tmp))
    except OSError as exc:
        v.fail_cli_cannot_write(args.output, exc)
    print(f"\nReport written to {where}")
    return 0
