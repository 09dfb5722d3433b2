"""The ``calstats`` command: compare, fit and assess calibrators from the shell.

::

    calstats compare                      # the bundled digits data, 5-fold comparison + PNG
    calstats compare --data preds.csv --label y --columns p_a p_b p_c --plot rel.png
    calstats calibrate train.csv new.csv --label y --method dirichlet -o calibrated.csv
    calstats assess preds.csv --label y --bootstrap 200
    calstats report preds.csv --label y --models p_a p_b -o report.html   # one HTML page
    calstats assess tte.csv --time time --status status --horizon 5       # C, AUC(t), Brier, Cox slope
    calstats report cr.csv --time time --status event --horizon 5 --cause 1   # competing risks

Input files are CSV (optionally compressed, e.g. ``.csv.gz``) or Parquet (``.parquet``/
``.pq``, which needs pyarrow). One prediction column means a binary problem (labels 0/1,
or ``--positive VALUE``); several columns are a multiclass problem whose class *k* is the
*k*-th column. Labels are matched to the columns by name: a label ``3`` belongs to a
column named ``3``, ``p_3`` or ``prob3`` (the columns' common prefix is ignored, or the part
of it up to a separator: ``class_0`` belongs to ``p_class_0``); integer labels that match
no name are R's 1-based class codes. ``--weights COL`` names a column of case weights.

``compare`` and ``calibrate`` read the prediction columns as ``--input probabilities`` or
``--input logits``; without the option they guess (probabilities when every value is in
[0, 1], logits otherwise), say the reading on stderr, and refuse columns that leave [0, 1]
without a single negative value, which are neither: the library's rule,
:func:`calstats._inputs.input_kind`, in the command line's words (see
:func:`calstats.cli._problem.resolve_input`). ``assess`` reads probabilities only.

Nothing the user has is lost (:mod:`calstats.cli._safety`): an output never replaces an
input file, an existing output is replaced only with ``--force``, every output target is
checked before any work, and files are written atomically. Formulas are never evaluated.

Errors are reported on one line (``calstats: error: ...``, exit status 2 for usage errors
and 1 otherwise); messages of :class:`calstats.CalstatsError` are R's messages. Progress of
long computations goes to stderr; results go to stdout.

Not in R's probcal (which has no command-line interface).
"""

import os
import sys
import warnings

from .. import _validate as v
from ..calibrators import registry
from . import _dask
from ._commands import _add_data_options, _cmd_assess, _cmd_calibrate, _cmd_compare
from ._common import BINARY_METHODS, MULTICLASS_METHODS, OVR_METHODS, PROG, CliError, _Parser
from ._common import first_line as _first_line
from ._io import read_table, write_table
from ._problem import READING, Problem, bundled_problem, problem_from_frame
from ._report import add_parser as _add_report_parser

__all__ = ["main", "CliError", "read_table", "write_table", "problem_from_frame", "Problem", "bundled_problem"]


# --------------------------------------------------------------------------------------
# entry point


def _parser():
    from .. import __version__

    parser = _Parser(prog=PROG, description="Calibrate classifier probabilities (the calstats package).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("compare", help="compare calibration methods out of fold and draw a reliability diagram",
                       description="Compare calibration methods by 5-fold out-of-fold log-loss, Brier score, "
                                   "ECE and calibration tests (calstats.cal_compare), and write a reliability "
                                   "diagram of the uncalibrated and the best method. Without --data the "
                                   "bundled digits data are used.")
    _add_data_options(c)
    c.add_argument("--methods", nargs="+", metavar="METHOD", type=registry.canonical,
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
    k.add_argument("--method", "-m", required=True, choices=sorted(registry.METHODS), type=registry.canonical,
                   help="calibration method")
    k.add_argument("--output", "-o", metavar="FILE",
                   help="output file (.csv, or .parquet with pyarrow; default: CSV on standard output); "
                        "never an input file, and an existing file only with --force")
    k.add_argument("--force", action="store_true", help="replace an existing output file (never an input file)")
    k.add_argument("--input", choices=("auto", "probabilities", "logits"), default="auto",
                   help="how to read the prediction columns (default: auto)")
    k.add_argument("--bins", type=int, help="histogram: number of bins (default: 10)")
    k.add_argument("--lambda", dest="lambda_", type=float, help="dirichlet: ODIR penalty (default: chosen by CV)")
    k.add_argument("--base-method", choices=OVR_METHODS, type=registry.canonical, help="ovr: the binary method per class (default: platt)")
    k.set_defaults(func=_cmd_calibrate)

    a = sub.add_parser("assess", help="calibration metrics and tests of a predictions file",
                       description="Print ECE, MCE, ACE, MMCE and calibration tests of predicted "
                                   "probabilities; for a binary outcome also rms::val.prob, the calibration "
                                   "hierarchy, Hosmer-Lemeshow, the flexible curve's ICI/E50/E90/Emax/ECI with "
                                   "95%% simulation intervals (pmcalibration; --seed) and logistic calibration. "
                                   "Without --data the bundled digits data are used.")
    a.add_argument("file", metavar="FILE", nargs="?", help="CSV or Parquet file (same as --data)")
    _add_data_options(a)
    a.add_argument("--bins", type=_bins_arg, default=10, metavar="N|RULE",
                   help="number of bins, or a rule for it: sqrt, sturges, cube_root (default: 10)")
    a.add_argument("--strategy", choices=("uniform", "quantile"), default="uniform",
                   help="equal-width bins on [0, 1] (R's probcal) or equal-mass bins at the quantiles of the "
                        "scores (default: uniform)")
    a.add_argument("--right", action="store_true",
                   help="right-closed bins (a, b], as scikit-learn's calibration_curve (default: left-closed [a, b))")
    a.add_argument("--interval", choices=("wilson", "clopper-pearson", "jeffreys"),
                   help="print the reliability diagram's bins with this binomial interval on each")
    a.add_argument("--level", type=float, default=0.95, help="level of the --interval intervals (default: 0.95)")
    a.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="add a bootstrap 95%% interval of the ECE from B resamples (default: none)")
    a.add_argument("--seed", type=int, default=1,
                   help="seed of the bootstrap and of the ICI's simulation interval (default: 1)")
    a.add_argument("--time", metavar="COL", help="time-to-event outcome: the column of follow-up times (with "
                   "--status and --horizon: concordance, AUC and Brier score over time, Cox calibration slope, "
                   "flexible curve by the horizon)")
    a.add_argument("--status", metavar="COL", help="time-to-event outcome: the column of event statuses (1 = event, "
                   "0 = censored; with --cause, event codes 0, 1, 2, ...)")
    a.add_argument("--horizon", type=float, metavar="T",
                   help="time-to-event outcome: the predictions are risks of the event by this time")
    a.add_argument("--cause", metavar="CODE", help="competing risks: the cause whose risks the predictions are "
                   "(cumulative incidence, AUC and Brier score of the cause, calibration in risk groups)")
    _dask.add_options(a)
    a.set_defaults(func=_cmd_assess)
    _add_report_parser(sub, _bins_arg)
    return parser


def _bins_arg(text):
    """``--bins``: a positive whole number or a rule's name."""
    if text in ("sqrt", "sturges", "cube_root"):
        return text
    try:
        return int(text)
    except ValueError:
        v.fail_cli_bins_argument(text)


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
    from .._errors import CalstatsError

    READING.clear()
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
                v.fail_cli_file_twice()
            args.data = args.file
        for opt in ("folds", "bins", "bootstrap"):
            val = getattr(args, opt, None)
            least = 2 if opt == "folds" else 0 if opt == "bootstrap" else 1
            if isinstance(val, int) and val < least:
                v.fail_cli_at_least(opt, least)
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            return args.func(args)
    except CliError as exc:
        _report(str(exc))
        return exc.status
    except CalstatsError as exc:
        _report(str(exc) + (f" ({'; '.join(dict.fromkeys(READING))})" if READING else ""))
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
