"""The three commands: compare, calibrate, assess."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _validate as v
from .._validate import INTERVAL_EXCLUDES
from ..calibrators import registry
from ._assessment import binning_of, binning_text, interval_table, metric_rows
from ._common import _DATASETS, _MMCE_MAX_N, PROG, _Progress
from ._common import first_line as _first_line
from ._common import shortlist as _shortlist
from ._io import _check_output, read_table, write_table
from ._problem import _as_input, _check_methods, _load_problem, check_rows, problem_from_frame, resolve_input
from ._text import scores_text

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
                v.fail_cli_no_matplotlib()
        else:
            plot_path = args.plot or "reliability.png"
            # the default name may be replaced (it is ours); a name the user gave needs --force
            _check_output(plot_path, [(args.data, "the data file")], args.force or args.plot is None, "plot")
    prob = _load_problem(args)
    methods = args.methods
    _check_methods(methods, prob.binary)
    check_rows(prob, args.input)
    # cal_compare would guess by the same rule; passing the reading on keeps the note true
    kind = resolve_input(prob, args.input)
    shown = ", ".join(methods) if methods else "the default methods"
    print(f"Data: {prob.description}; {prob.n} rows, {prob.kind()}")
    with _Progress(f"cross-validating {shown} ({args.folds} folds, {prob.n} rows)"):
        result = calstats.cal_compare(prob.x, prob.y, methods=methods, folds=args.folds, seed=args.seed,
                                      weights=prob.weights, progress=False, input=kind)
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
    where = _plot_comparison(result, prob, plot_path, kind)
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


def _plot_comparison(result, prob, path, kind):
    """Uncalibrated vs the best method (out of fold), side by side; returns the path.

    ``kind`` is the reading of the prediction columns, ``"probabilities"`` or ``"logits"``."""
    from matplotlib.figure import Figure

    import calstats

    table = result.table
    preds = getattr(result, "predictions", None) or {}
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
    from ._safety import atomic_write

    fmt = Path(path).suffix.lower().lstrip(".")
    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110, format=fmt))
    except OSError as exc:
        v.fail_cli_cannot_write(path, exc)


# --------------------------------------------------------------------------------------
# calibrate


def _fit(method, x, y, args, weights=None):
    """Fit ``method`` (one that applies to ``x``: :func:`._problem._check_methods` has said so)
    with the options the command line gives it."""
    kwargs = {}
    if args.bins is not None:
        if method == "histogram":
            kwargs["bins"] = args.bins
        elif method == "ovr" and args.base_method == "histogram":
            kwargs["bins"] = args.bins
        else:
            v.fail_cli_option_for_method("--bins", "histogram")
    if args.lambda_ is not None:
        if method != "dirichlet":
            v.fail_cli_option_for_method("--lambda", "dirichlet")
        kwargs["lambda_"] = args.lambda_
    if method == "ovr":
        kwargs["method"] = args.base_method or "platt"
    elif args.base_method is not None:
        v.fail_cli_option_for_method("--base-method", "ovr")
    if weights is not None:
        kwargs["weights"] = weights
    return registry.method(method).function()(x, y, **kwargs)


def _cmd_calibrate(args):
    _check_output(args.output, [(args.train, "the training file"), (args.apply, "the file being calibrated")],
                  args.force, "table")
    train = problem_from_frame(read_table(args.train), args.label, args.columns, args.train, args.positive,
                               weights=args.weights)
    apply_frame = read_table(args.apply)
    apply_frame = apply_frame.set_axis([str(c) for c in apply_frame.columns], axis=1)
    missing = [c for c in train.columns if c not in apply_frame.columns]
    if missing:
        v.fail_cli_columns_not_found(missing, args.apply, _shortlist(list(apply_frame.columns)), source=args.train)
    xnew = apply_frame[train.columns[0]] if train.binary else apply_frame[train.columns]
    for c in train.columns:
        if not pd.api.types.is_numeric_dtype(apply_frame[c]) or pd.api.types.is_bool_dtype(apply_frame[c]):
            v.fail_cli_not_numeric(c, args.apply, apply_frame[c].dtype)
    method = args.method
    _check_methods([method], train.binary)
    check_rows(train, args.input)
    kind = resolve_input(train, args.input)
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


def _ici_report(p, y, n, seed):
    """pmcalibration's default curve (mgcv's gam of the logit) and its indices with 95%
    simulation intervals, and logistic calibration with profile intervals."""
    import warnings

    from ..clinical import logistic_cal, pmcalibration

    ci = "sim" if n <= _ICI_SIM_MAX_N else "none"
    print("Flexible calibration curve (pmcalibration: gam of logit(p); ICI = Eavg)")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal = pmcalibration(y, p, smooth="gam", ci=ci, n=1000, seed=seed)
        for note in dict.fromkeys(_first_line(w.message) for w in caught):
            print(f"note: {note}")
        print(cal.print_text(digits=3).rstrip("\n"))
        if ci == "sim":
            print(f"(simulation seed {seed}, R's random stream)")
        else:
            print(f"(no interval: more than {_ICI_SIM_MAX_N} rows)")
    except Exception as exc:
        print(f"not computed: {_first_line(exc)}")
    print()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = logistic_cal(y, p).print_text(digits=3).rstrip("\n")
        for note in dict.fromkeys(_first_line(w.message) for w in caught):
            print(f"note: {note}")
        print(text)
    except Exception as exc:
        print(f"Logistic calibration not computed: {_first_line(exc)}")


def _assessment_extras(p, y, binary, weights):
    """The smooth ECE and, for binary data, the CORP decomposition (in memory)."""
    import calstats

    lines = []
    try:
        curve = calstats.smooth_curve(p, y, weights=weights)
        what = "" if binary else " (top-label confidence)"
        lines.append(f"Smooth ECE{what}: {curve.smece:.4f} (Gaussian kernel, bandwidth {curve.sigma:.4g}; "
                     "relplot's smECE)")
    except Exception as exc:
        lines.append(f"Smooth ECE: not computed: {_first_line(exc)}")
    if binary:
        try:
            dec = calstats.corp(p, y, band=None, weights=weights).decomposition()
            lines.append(f"CORP Brier decomposition (reliabilitydiag): score {dec.mean_score:.4f} = "
                         f"MCB {dec.miscalibration:.4f} - DSC {dec.discrimination:.4f} + UNC {dec.uncertainty:.4f}")
        except Exception as exc:
            lines.append(f"CORP decomposition: not computed: {_first_line(exc)}")
    return lines


def _resample_labels(y, idx):
    if isinstance(y, pd.Categorical):
        return y.take(idx)
    if isinstance(y, pd.Series):
        return y.iloc[idx].reset_index(drop=True)
    return np.asarray(y)[idx]


def _bootstrap(p, y, binary, binning, B, seed):
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
                    draws[b, j] = (calstats.ece(pb, yb, **binning) if t is None
                                   else calstats.ece(pb, yb, type=t, **binning))
                except Exception:  # a resample without one of the classes, say
                    draws[b, j] = np.nan
            if (b + 1) % step == 0 and b + 1 < B:
                prog.update(f"{b + 1}/{B}")
    lo = np.nanpercentile(draws, 2.5, axis=0)
    hi = np.nanpercentile(draws, 97.5, axis=0)
    return lo, hi


_TESTS = ("cal_spiegelhalter_test", "cal_ks_test", "cal_kuiper_test")


def _scores_line(p, y, binary, weights=None):
    import calstats

    from .._validate import check_binary_y, check_multiclass_y
    from ..kernels.toplabel import top_label

    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if binary:
        conf, hit = np.asarray(p, dtype=np.float64), check_binary_y(y, require_both=False).astype(np.float64)
    else:
        conf, hit = top_label(p, check_multiclass_y(y, p.shape[1])[0])
    accuracy, confidence = (float(np.mean(hit)), float(np.mean(conf))) if w is None else \
        (float(np.sum(w * hit) / w.sum()), float(np.sum(w * conf) / w.sum()))
    return scores_text(binary, accuracy, confidence, calstats.brier_score(p, y, weights=weights),
                       calstats.log_loss(p, y, weights=weights))


def _check_assessable(prob):
    """Metrics of one row, or of labels that are all one class, mean nothing: say so."""
    if prob.n < 2:
        v.fail_cli_too_few_rows(prob.description, prob.n)
    y = np.asarray(prob.y.codes if isinstance(prob.y, pd.Categorical) else prob.y)
    present = pd.unique(pd.Series(y).dropna())
    if present.size < 2:
        v.fail_cli_one_class(prob.description, str(present[0]))


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
    from . import _dask

    if any(getattr(args, k, None) is not None for k in ("time", "status", "horizon", "cause")):
        from ._assess_surv import assess_survival

        return assess_survival(args)
    if _dask.wanted(args):
        return _dask.assess(args)
    prob = _load_problem(args)
    X = np.asarray(prob.x, dtype=np.float64)
    if np.isfinite(X).all() and ((X < 0).any() or (X > 1).any()):
        v.fail_cli_not_probabilities(prob.columns[0] if prob.binary else None)
    check_rows(prob, "auto")
    p = np.asarray(prob.x, dtype=np.float64)
    _check_assessable(prob)
    print(f"Data: {prob.description}; {prob.n} rows, {prob.kind()}")
    print()
    binning = binning_of(args)
    table = metric_rows(p, prob.y, prob.binary, binning, prob.weights)
    if args.bootstrap and prob.weights is not None:
        v.fail_cli_bootstrap_weights()
    if args.bootstrap:
        lo, hi = _bootstrap(p, prob.y, prob.binary, binning, args.bootstrap, args.seed)
        ci = pd.DataFrame([lo, hi], index=["ECE 2.5%", "ECE 97.5%"], columns=table.columns)
        table = pd.concat([table.iloc[:1], ci, table.iloc[1:]])
    print(f"Calibration metrics ({binning_text(args)}; MMCE bandwidth 0.2"
          + ("; MMCE left out: more than 20000 rows" if prob.n > _MMCE_MAX_N else "") + ")")
    print(table.to_string(float_format=lambda v: f"{v:.4f}", na_rep=""))
    if args.bootstrap:
        print(f"(ECE interval: bootstrap percentiles of {args.bootstrap} resamples, seed {args.seed})")
        est = table.loc["ECE"]
        outside = [c for c, e, a, b in zip(table.columns, est, lo, hi) if np.isfinite(a) and not a <= e <= b]
        if outside:
            where = "" if prob.binary else f" ({', '.join(outside)})"
            print(f"(note: the interval excludes the estimate{where}: {INTERVAL_EXCLUDES})")
    if args.interval:
        print()
        print(interval_table(p, prob.y, prob.binary, binning, args, prob.weights))
    print()
    print(_scores_line(p, prob.y, prob.binary, prob.weights))
    for line in _assessment_extras(p, prob.y, prob.binary, prob.weights):
        print(line)
    print()
    print("Calibration tests" + ("" if prob.binary else " (top-label confidence)"))
    for name, text in _calibration_tests(p, prob.y, prob.binary, prob.weights):
        if "\n" in text:
            print(text.rstrip("\n"))
        else:
            print(f"{name}: {text}")
    if prob.binary:
        _clinical_report(p, prob, args.seed)
    return 0


#: Above this many rows ``assess`` gives the calibration curve's indices without the
#: simulation interval (1000 draws of the curve at every row would not fit in memory).
_ICI_SIM_MAX_N = 20000


def _clinical_report(p, prob, seed=1):
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
    print()
    _ici_report(p, y, prob.n, seed)
