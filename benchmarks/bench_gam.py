"""Time calstats' mgcv port against mgcv itself: pmcalibration's gam curve and cal_spline's
penalised basis, each row beside R timed inside R, in one run.

Run: ``python benchmarks/bench_gam.py [--repeat 3] [--rows none sim spline1e4 spline1e5]``.

Rows (the same data for both sides: the runner's fixed-seed binary scores
(:func:`benchmarks.data.binary_case`) through the logistic function, written to a CSV that R
reads):

* ``none``: ``pmcalibration(y, p, smooth="gam", ci="none")`` at n = 2 000;
* ``sim``: ``pmcalibration(y, p, smooth="gam", ci="sim", n=1000)`` at n = 2 000;
* ``spline1e4`` / ``spline1e5``: ``cal_spline(p, y, basis="gam")`` against
  ``mgcv::gam(y ~ s(qlogis(p)), binomial, method = "REML")`` at n = 10 000 and 100 000.

Each side is warmed up once, then timed ``--repeat`` times (medians reported; R with
``system.time`` inside one R process after loading its packages). ``ratio`` is R's time over
calstats' (above 1: calstats is faster). Without ``Rscript`` and pmcalibration/mgcv the R
column says so. The machine's load is printed: these are wall times on whatever else runs.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROWS = {
    "none": (2000, "pmcalibration(smooth='gam', ci='none')"),
    "sim": (2000, "pmcalibration(smooth='gam', ci='sim', n=1000)"),
    "spline1e4": (10_000, "cal_spline(basis='gam')  [mgcv REML]"),
    "spline1e5": (100_000, "cal_spline(basis='gam')  [mgcv REML]"),
}

_R_CALL = {
    "none": "pmcalibration(y = d$y, p = d$p, smooth = 'gam', ci = 'none', plot = FALSE)",
    "sim": "{set.seed(1); pmcalibration(y = d$y, p = d$p, smooth = 'gam', ci = 'sim', n = 1000, plot = FALSE)}",
    "spline1e4": "mgcv::gam(y ~ s(z), family = binomial, method = 'REML', data = data.frame(y = d$y, z = qlogis(d$p)))",
    "spline1e5": "mgcv::gam(y ~ s(z), family = binomial, method = 'REML', data = data.frame(y = d$y, z = qlogis(d$p)))",
}


def _data(n):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.data import binary_case

    (s, y), _ = binary_case(n)
    return 1 / (1 + np.exp(-s)), y.astype(float)


def _python_call(row, p, y):
    import calstats
    from calstats.clinical.pmcal import pmcalibration

    if row == "none":
        return lambda: pmcalibration(y, p, "gam", ci="none")
    if row == "sim":
        return lambda: pmcalibration(y, p, "gam", ci="sim", n=1000, seed=1)
    return lambda: calstats.cal_spline(p, y, basis="gam")


def _time_python(row, p, y, repeat):
    fn = _python_call(row, p, y)
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _time_r(row, p, y, repeat, tmp):
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "Rscript not on PATH"
    path = os.path.join(tmp, f"{row}.csv")
    np.savetxt(path, np.column_stack([y, p]), delimiter=",", header="y,p", comments="", fmt="%.17g")
    code = (f"suppressPackageStartupMessages({{library(pmcalibration); library(mgcv)}}); "
            f"d <- read.csv('{path}'); invisible({_R_CALL[row]}); "
            f"t <- replicate({repeat}, system.time({_R_CALL[row]})[['elapsed']]); cat(median(t), '\\n')")
    done = subprocess.run([rscript, "-e", code], capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["R failed"])[-1]
    return float(done.stdout.split()[-1]), ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'row':<48} {'n':>7} {'calstats s':>11} {'R s':>8} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for row in args.rows:
            n, label = ROWS[row]
            p, y = _data(n)
            tp = _time_python(row, p, y, args.repeat)
            tr, why = _time_r(row, p, y, args.repeat, tmp)
            rs = f"{tr:8.3f}" if tr is not None else f"{'-':>8}"
            ratio = f"{tr / tp:6.2f}" if tr is not None else f"{'-':>6}"
            print(f"{label:<48} {n:>7} {tp:11.3f} {rs} {ratio}" + (f"  ({why})" if why else ""), flush=True)


if __name__ == "__main__":
    main()
