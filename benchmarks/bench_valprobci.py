"""Time :func:`calstats.val_prob_ci` (CalibrationCurves' ``val.prob.ci.2``) at n = 10^4, 10^5
and 10^6, beside R's ``val.prob.ci.2`` at n = 10^4.

Run: ``python -m benchmarks.bench_valprobci [--sizes 10000 100000 1000000] [--reps 3]
[--r-n 10000] [--no-r]``.

Data: ``lp ~ N(-1, 1.3^2)``, ``p = plogis(lp)``, ``y ~ Bernoulli(plogis(0.8 lp + 0.1))``
(fixed seed). Each repetition runs in a fresh Python process, which builds the data and
then times the call alone (R's loess, its standard errors, the two lrm.fit fits, the
intervals: everything ``val_prob_ci`` computes, band included); the table shows medians
and the growth exponent between consecutive sizes (1 = linear).

R: when ``Rscript`` is on PATH and ``CALIBRATIONCURVES_SRC`` points at a CalibrationCurves
source checkout (its R files are sourced as in ``tools/r-reference/make_calibrationcurves.R``;
rms must be installed), the same data (written as CSV with 17 significant digits) are timed
inside R with ``system.time(val.prob.ci.2(p, y))`` into a null graphics device (R computes
the loess band only when it plots: ``predict(se = TRUE)`` forms the n x n operator), one
repetition after reading. The Eavg of both is printed as a check.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

SEED = 39


def data(n, seed=SEED):
    rng = np.random.default_rng(seed)
    lp = rng.normal(-1.0, 1.3, n)
    p = 1.0 / (1.0 + np.exp(-lp))
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(0.8 * lp + 0.1)))).astype(float)
    return p, y


_CHILD = """
import json, sys, time, warnings
sys.path.insert(0, {root!r})
from benchmarks.bench_valprobci import data
from calstats.clinical import val_prob_ci
p, y = data({n})
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t = time.perf_counter()
    h = val_prob_ci(p, y, pl=False)
    t = time.perf_counter() - t
print(json.dumps({{"seconds": t, "Eavg": h["Eavg"], "C": h["C (ROC)"], "Emax": h["Emax"]}}))
"""


def time_calstats(n, reps):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for _ in range(reps):
        res = subprocess.run([sys.executable, "-c", _CHILD.format(root=root, n=n)], capture_output=True, text=True,
                             check=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return out


_R = """
suppressMessages(library(rms))
src <- Sys.getenv("CALIBRATIONCURVES_SRC")
for (f in c("val.prob.ci.2.R", "ci.auc.R", "auc.nonpara.mw.R", "printFunction.R",
            "rcspline.plot.noprint.R", "BT.samples.R")) source(file.path(src, "R", f))
d <- read.csv({csv!r})
pdf(NULL)
tm <- system.time(r <- suppressWarnings(val.prob.ci.2(d$p, d$y)))[["elapsed"]]
cat(sprintf("%.17g %.17g\\n", tm, r$stats[["Eavg"]]))
"""


def time_r(n):
    """R's seconds and Eavg, or None with the reason."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "Rscript not on PATH"
    if not os.environ.get("CALIBRATIONCURVES_SRC"):
        return None, "CALIBRATIONCURVES_SRC not set"
    p, y = data(n)
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "d.csv")
        with open(csv, "w") as fh:
            fh.write("p,y\n")
            for a, b in zip(p, y):
                fh.write(f"{a:.17g},{int(b)}\n")
        script = os.path.join(tmp, "t.R")
        with open(script, "w") as fh:
            fh.write(_R.format(csv=csv))
        res = subprocess.run([rscript, script], capture_output=True, text=True)
    if res.returncode != 0:
        return None, res.stderr.strip().splitlines()[-1]
    secs, eavg = (float(v) for v in res.stdout.split())
    return {"seconds": secs, "Eavg": eavg}, None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--r-n", type=int, default=10_000)
    ap.add_argument("--no-r", action="store_true")
    args = ap.parse_args(argv)
    print(f"{'function':<34} {'n':>9} {'median s':>9} {'growth':>7}  Eavg")
    prev = None
    for n in args.sizes:
        runs = time_calstats(n, args.reps if n <= 100_000 else max(1, min(args.reps, 2)))
        med = statistics.median(r["seconds"] for r in runs)
        growth = "" if prev is None else f"{math.log(med / prev[1]) / math.log(n / prev[0]):.2f}"
        print(f"{'calstats.val_prob_ci':<34} {n:>9} {med:>9.3f} {growth:>7}  {runs[0]['Eavg']:.15g}")
        prev = (n, med)
    if args.no_r:
        return
    r, why = time_r(args.r_n)
    if r is None:
        print(f"R val.prob.ci.2: skipped ({why})")
        return
    print(f"{'R CalibrationCurves::val.prob.ci.2':<34} {args.r_n:>9} {r['seconds']:>9.3f} {'':>7}  {r['Eavg']:.15g}")


if __name__ == "__main__":
    main()
