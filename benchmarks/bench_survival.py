"""Time calstats' survival and competing-risk measures against their R originals, each row
beside R timed inside R, in one run, with the growth of calstats' time between sizes.

Run: ``python benchmarks/bench_survival.py [--repeat 3] [--sizes 2000 20000] [--big 200000]
[--rows concordance uno ...] [--no-r]``.

Rows (calstats function against the R call it reproduces; horizons are the 25, 50 and 75%
quantiles of the follow-up times):

* ``concordance``: ``concordance(time, status, risk)`` against ``survival::concordance(
  Surv(time, status) ~ risk, reverse = TRUE)``; ``uno``: the same with ``timewt="n/G2"``
  (these two rows also at ``--big``, default n = 200 000);
* ``auc``, ``brier``, ``auc_brier``: ``time_auc`` and/or ``time_brier`` at the three
  horizons against ``riskRegression::Score(list(m = risk), Hist(time, status) ~ 1, times =,
  metrics = "auc" | "brier" | c("auc", "brier"))``;
* ``ibs``: ``integrated_brier`` against ``Score(..., metrics = "brier", summary = "ibs")``;
  ``pec``: ``integrated_brier(method="pec")`` against ``pec::crps(pec(list(m = cbind(1, 1 -
  R)), Surv(time, status) ~ 1, times =, exact = FALSE, start = 0))``;
* ``cox_slope``: ``cox_calibration_slope`` against ``coxph(Surv(time, status) ~ lp)``;
* ``cuminc``: ``cuminc(time, event, times)`` (two causes) against ``cmprsk::cuminc(time,
  event)`` and ``timepoints``; ``gray``: the same with three groups (``group=``, Gray's test
  of each cause) against ``cuminc(time, event, group)``; ``brier_cause``: ``time_brier(..., cause=1)`` against
  ``Score(..., Hist(time, event) ~ 1, cause = 1, metrics = "brier")``; ``cr_calibration``:
  ``cr_calibration(..., cause=1)`` (10 quantile groups) against ``plotCalibration(Score(...,
  cause = 1, plots = "calibration", metrics = "brier"), method = "quantile", q = 10, plot
  = FALSE, cens.method = "local")``.

The data: a fixed-seed proportional-hazards sample (``lp ~ N(0, 1)``, event times
exponential with rate ``0.1 exp(lp)``, censoring uniform on (0, 15), times rounded to 0.1
so that there are ties, censorings at event times and tied risks ``plogis(lp)`` rounded to
4 digits; the competing event splits the events 60/40 at random), written to a CSV file
(17 significant digits) that R reads.

Each call is warmed up once, then looped so that one timing spans at least 50 ms, and timed
``--repeat`` times; the best of them per call is reported, on both sides (on a shared
machine the minimum is the least disturbed by other work; R with ``system.time`` inside one
R process that loads its packages once, so R's startup and the CSV reading are not timed). ``ratio`` is R's time
over calstats' (above 1: calstats is faster). ``growth`` is calstats' exponent between the
row's size and the previous one (``log(t2 / t1) / log(n2 / n1)``: 1 is linear, about 1.1
is n log n at these sizes). The machine's load is printed: these are wall times on whatever
else runs.
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROWS = {
    "concordance": "concordance (Harrell)  [survival::concordance]",
    "uno": "concordance(timewt='n/G2')  [survival]",
    "auc": "time_auc, 3 horizons  [Score auc]",
    "brier": "time_brier, 3 horizons  [Score brier]",
    "auc_brier": "time_auc + time_brier  [Score auc+brier]",
    "ibs": "integrated_brier  [Score ibs]",
    "pec": "integrated_brier(method='pec')  [pec::crps]",
    "cox_slope": "cox_calibration_slope  [coxph]",
    "cuminc": "cuminc, 2 causes  [cmprsk::cuminc]",
    "gray": "cuminc(group=), 3 groups  [cuminc Tests]",
    "brier_cause": "time_brier(cause=1)  [Score cause=1]",
    "cr_calibration": "cr_calibration(q=10)  [plotCalibration]",
}
BIG_ROWS = ("concordance", "uno")
MIN_SPAN = 0.05

_R_CALL = {
    "concordance": "concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE)",
    "uno": "concordance(Surv(time, status) ~ risk, data = d, reverse = TRUE, timewt = 'n/G2')",
    "auc": "Score(list(m = d$risk), Hist(time, status) ~ 1, data = d, times = hz, metrics = 'auc')",
    "brier": "Score(list(m = d$risk), Hist(time, status) ~ 1, data = d, times = hz, metrics = 'brier')",
    "auc_brier": "Score(list(m = d$risk), Hist(time, status) ~ 1, data = d, times = hz, metrics = c('auc', 'brier'))",
    "ibs": "Score(list(m = d$risk), Hist(time, status) ~ 1, data = d, times = hz, metrics = 'brier', "
           "summary = 'ibs')",
    "pec": "crps(pec(list(m = S), Surv(time, status) ~ 1, data = d, times = hz, exact = FALSE, start = 0, "
           "verbose = FALSE), times = hz)",
    "cox_slope": "coxph(Surv(time, status) ~ lp, data = d)",
    "cuminc": "timepoints(cuminc(d$time, d$event), hz)",
    "gray": "timepoints(cuminc(d$time, d$event, d$group), hz)",
    "brier_cause": "Score(list(m = d$risk), Hist(time, event) ~ 1, data = d, times = hz, cause = 1, "
                   "metrics = 'brier')",
    "cr_calibration": "plotCalibration(Score(list(m = d$risk), Hist(time, event) ~ 1, data = d, times = hz[2], "
                      "cause = 1, plots = 'calibration', metrics = 'brier'), method = 'quantile', q = 10, "
                      "plot = FALSE, cens.method = 'local')",
}


def make_data(n, seed=20240611):
    """The benchmark's sample: ``time``, ``status``, ``event`` (0, 1, 2), ``lp``, ``risk``,
    ``group`` (1, 2, 3: ``lp`` below 0, in (0, 1], above 1)."""
    rng = np.random.default_rng(seed + n)
    lp = rng.normal(size=n)
    t = rng.exponential(1 / (0.1 * np.exp(lp)))
    c = rng.uniform(0, 15, size=n)
    time_ = np.round(np.minimum(t, c), 1) + 0.1
    status = (t <= c).astype(np.int64)
    event = status * np.where(rng.random(n) < 0.6, 1, 2)
    risk = np.round(1 / (1 + np.exp(-lp)), 4)
    group = 1 + (lp > 0) + (lp > 1)
    return {"time": time_, "status": status, "event": event, "lp": lp, "risk": risk, "group": group.astype(np.int64)}


def horizons(d):
    return np.quantile(d["time"], [0.25, 0.5, 0.75]).round(1)


def python_call(row, d):
    """The calstats call of a row, as a function of nothing."""
    import warnings

    from calstats import CalstatsWarning
    from calstats.clinical import (
        concordance,
        cox_calibration_slope,
        cr_calibration,
        cuminc,
        integrated_brier,
        time_auc,
        time_brier,
    )

    warnings.simplefilter("ignore", CalstatsWarning)
    t, s, e, r, lp = d["time"], d["status"], d["event"], d["risk"], d["lp"]
    hz = horizons(d)
    calls = {
        "concordance": lambda: concordance(t, s, r),
        "uno": lambda: concordance(t, s, r, timewt="n/G2"),
        "auc": lambda: time_auc(t, s, r, hz),
        "brier": lambda: time_brier(t, s, r, hz),
        "auc_brier": lambda: (time_auc(t, s, r, hz), time_brier(t, s, r, hz)),
        "ibs": lambda: integrated_brier(t, s, r, hz),
        "pec": lambda: integrated_brier(t, s, r, hz, method="pec"),
        "cox_slope": lambda: cox_calibration_slope(t, s, lp),
        "cuminc": lambda: cuminc(t, e, hz),
        "gray": lambda: cuminc(t, e, hz, group=d["group"]),
        "brier_cause": lambda: time_brier(t, e, r, hz, cause=1),
        "cr_calibration": lambda: cr_calibration(t, e, r, float(hz[1]), cause=1, q=10),
    }
    return calls[row]


def _loops(fn):
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    return max(1, math.ceil(MIN_SPAN / max(once, 1e-6)))


def time_python(fn, repeat):
    k = _loops(fn)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        times.append((time.perf_counter() - t0) / k)
    return min(times)


_R_HEAD = """suppressPackageStartupMessages({library(survival); library(riskRegression); library(prodlim);
  library(pec); library(cmprsk)})
timeit <- function(e, repeat_) {
  t0 <- system.time(eval(e))[["elapsed"]]
  k <- max(1, ceiling(0.05 / max(t0, 1e-3)))
  t <- replicate(repeat_, system.time(for (i in seq_len(k)) eval(e))[["elapsed"]] / k)
  min(t)
}
"""


def time_r(jobs, repeat, tmp):
    """``{(row, n): seconds}`` from one R process; ``jobs`` is ``[(n, csv path, rows)]``."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return {}, "Rscript not on PATH"
    lines = [_R_HEAD]
    for n, path, rows in jobs:
        lines.append(f"d <- read.csv('{path}'); hz <- round(quantile(d$time, c(0.25, 0.5, 0.75), names = FALSE), 1)")
        lines.append("S <- cbind(1, 1 - matrix(d$risk, nrow(d), length(hz)))")
        for row in rows:
            lines.append(f"cat('{row}', '{n}', timeit(quote({_R_CALL[row]}), {repeat}), '\\n')")
    script = os.path.join(tmp, "bench.R")
    with open(script, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    done = subprocess.run([rscript, script], capture_output=True, text=True, timeout=7200)
    out = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[(parts[0], int(parts[1]))] = float(parts[2])
    why = "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["R failed"])[-1]
    return out, why


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--big", type=int, default=200000, help="the extra size of the concordance rows (0: none)")
    ap.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    ap.add_argument("--no-r", action="store_true", help="time calstats only")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sizes = sorted(set(args.sizes))
    plan = [(n, [r for r in args.rows]) for n in sizes]
    if args.big and args.big not in sizes:
        plan.append((args.big, [r for r in args.rows if r in BIG_ROWS]))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        data, jobs = {}, []
        for n, rows in plan:
            d = make_data(n)
            data[n] = d
            path = os.path.join(tmp, f"surv{n}.csv")
            cols = ["time", "status", "event", "lp", "risk", "group"]
            np.savetxt(path, np.column_stack([d[c] for c in cols]), delimiter=",", header=",".join(cols),
                       comments="", fmt="%.17g")
            jobs.append((n, path, rows))
        rt, why = ({}, "--no-r") if args.no_r else time_r(jobs, args.repeat, tmp)
        if why:
            print(f"R: {why}")
        print(f"{'row':<46} {'n':>7} {'calstats s':>11} {'R s':>9} {'ratio':>7} {'growth':>7}")
        py = {}
        for row in args.rows:
            prev = None
            for n, rows in plan:
                if row not in rows:
                    continue
                tp = time_python(python_call(row, data[n]), args.repeat)
                py[(row, n)] = tp
                tr = rt.get((row, n))
                rs = f"{tr:9.4f}" if tr is not None else f"{'-':>9}"
                ratio = f"{tr / tp:7.2f}" if tr is not None else f"{'-':>7}"
                growth = f"{math.log(tp / prev[1]) / math.log(n / prev[0]):7.2f}" if prev else f"{'':>7}"
                print(f"{ROWS[row]:<46} {n:>7} {tp:11.4f} {rs} {ratio} {growth}", flush=True)
                prev = (n, tp)


if __name__ == "__main__":
    main()
