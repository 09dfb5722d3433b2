"""``calstats assess`` of a time-to-event file (``--time``, ``--status``, ``--horizon``;
``--cause`` for competing risks): R's printed results of the survival and competing-risk
functions, one block each.

* right-censored: Harrell's and Uno's C (``survival::concordance``), the AUC at four times up
  to the horizon and the Brier score at the horizon beside the Kaplan-Meier null model with
  the IPA (``riskRegression::Score``), the Cox calibration slope, and the flexible
  calibration curve by the horizon (``pmcalibration``, bootstrap intervals);
* competing risks: the Aalen-Johansen cumulative incidence (``cmprsk::cuminc``), the AUC
  and Brier score of the cause, and the calibration in risk groups
  (``riskRegression::plotCalibration``).

A block that cannot be computed says why in one line; the others still print.
"""

import warnings

import numpy as np

from .. import _validate as v
from ..reporting.sections.timed import FRACTIONS, auc_se_valid
from ._common import CliError
from ._common import first_line as _first_line

# The AUC is printed at the report's FRACTIONS of the horizon (risks by the horizon rank the
# cases at earlier times too); the Brier score needs the risk by each time: at the horizon only.
__all__ = ["assess_survival", "FRACTIONS"]


def _block(title, compute):
    """Print ``title`` and the text ``compute()`` returns, its warnings as notes; an error
    as one line."""
    print(title)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = compute()
        for note in dict.fromkeys(_first_line(w.message) for w in caught):
            print(f"note: {note}")
        print(str(text).rstrip("\n"))
    except CliError:
        raise
    except Exception as exc:  # a refusal of the data: one line, the other blocks go on
        print(f"not computed: {_first_line(exc)}")
    print()


def assess_survival(args):
    from ..clinical import (
        concordance,
        cox_calibration_slope,
        cr_calibration,
        cuminc,
        pmcalibration,
        time_auc,
        time_brier,
    )
    from ..clinical.survival import NULL_MODEL
    from ._io import read_table
    from ._report import cause_of, survival_columns

    if args.data is None:
        v.fail_cli_survival_needs_file()
    if getattr(args, "dask", False) or getattr(args, "bootstrap", 0):
        v.fail_cli_survival_dask_bootstrap()
    frame = read_table(args.data)
    frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
    models, (time, status), w = survival_columns(frame, args, args.data)
    h = float(args.horizon)
    cause = cause_of(args)
    n = time.size
    risks = dict(models)
    one = next(iter(risks.values())) if len(risks) == 1 else None
    risk_arg = one if one is not None else risks
    names = ", ".join(f"'{c}'" for c in risks)
    if cause is None:
        k = int(np.sum(status == 1))
        print(f"Data: '{args.data}'; {n} rows, time-to-event outcome: {k} events, {n - k} censored; risks by time "
              f"{h:g} (column{'s' if len(risks) > 1 else ''} {names})")
    else:
        counts = ", ".join(f"{int(np.sum(status == c))} of cause {c:g}" for c in np.unique(status) if c != 0)
        print(f"Data: '{args.data}'; {n} rows, competing risks: {counts}, {int(np.sum(status == 0))} censored; "
              f"risks of cause {cause} by time {h:g} (column{'s' if len(risks) > 1 else ''} {names})")
    if w is not None:
        print("(case weights: used by the concordance; riskRegression's Score, the Cox slope and pmcalibration "
              "take none, so those blocks are not computed)")
    print()
    times = h * np.asarray(FRACTIONS)
    if cause is None:
        for name, p in risks.items():
            def c_text(p=p, name=name):
                harrell = concordance(time, status, p, weights=w)
                uno = concordance(time, status, p, timewt="n/G2", weights=w)
                return (harrell.print_text().rstrip("\n") + f"\nUno's C (timewt = \"n/G2\"): {uno.concordance:.4f}, "
                        f"se {uno.std_err:.4f}")
            _block(f"Concordance of '{name}' (survival::concordance, reverse = TRUE: Harrell's C, then Uno's C)",
                   c_text)
    else:
        _block(f"Cumulative incidence by time {h:g} (cmprsk::cuminc, the Aalen-Johansen estimator)",
               lambda: cuminc(time, status, [h]).print_text())
    cz = {} if cause is None else {"cause": cause}
    causes = sorted(int(c) for c in np.unique(status) if c != 0)
    if cause is not None and not auc_se_valid(cause, causes):
        print(f"note: riskRegression's standard error of the AUC codes cases 1 and controls 2: for cause {cause} "
              "here its intervals are R's numbers, not valid intervals")
    _block(f"Time-dependent AUC at {', '.join(f'{t:g}' for t in times)} (riskRegression::Score, IPCW; risks by "
           f"time {h:g} rank the cases at the earlier times)",
           lambda: time_auc(time, status, risk_arg, times, weights=w, **cz).print_text())

    def brier_text():
        res = time_brier(time, status, risk_arg, [h], weights=w, **cz)
        ipa = res.score[res.score["model"] != NULL_MODEL]
        lines = "\n".join(f"IPA of '{m if one is None else next(iter(risks))}' at time {h:g}: {100 * x:.1f}% "
                          "(1 - Brier / Brier of the null model)" for m, x in zip(ipa["model"], ipa["IPA"]))
        return res.print_text().rstrip("\n") + "\n" + lines

    _block(f"Brier score at time {h:g} beside the null model ({'Aalen-Johansen' if cause is not None else 'Kaplan-Meier'}"
           "; riskRegression::Score, IPCW)", brier_text)
    for name, p in risks.items():
        if cause is None:
            _block(f"Calibration slope of '{name}' (coxph on log(-log(1 - risk)))",
                   lambda p=p: "not computed: coxph's calibration slope takes no case weights here" if w is not None
                   else cox_calibration_slope(time, status, p, risk=True).print_text())

            def curve_text(p=p):
                if w is not None:
                    return "not computed: pmcalibration takes no case weights"
                return pmcalibration((time, status), p, smooth="rcs", time=h, ci="boot", n=200, seed=args.seed,
                                     nk=5).print_text(digits=3).rstrip("\n") + (
                    f"\n(200 bootstrap refits, seed {args.seed}, R's random stream)")
            _block(f"Flexible calibration curve of '{name}' by time {h:g} (pmcalibration: Cox model on a restricted "
                   "cubic spline of log(-log(1 - risk)))", curve_text)
        else:
            _block(f"Calibration of '{name}' in 10 risk groups by time {h:g} (riskRegression::plotCalibration, "
                   "observed: Aalen-Johansen)", lambda p=p: cr_calibration(time, status, p, h, cause=cause).print_text())
    return 0

