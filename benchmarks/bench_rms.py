"""Time calstats' ports of rms -- ``lrm``, ``validate``, ``calibrate`` and ``val_prob`` --
beside rms 6.5-0 in R, in one run, on the same data, with the ratios.

Run: ``python -m benchmarks.bench_rms [--sizes 1000 10000] [--vp-sizes 10000 100000]
[--B 200] [--reps 3] [--big-reps 1] [--no-r] [--only lrm validate calibrate val_prob]``.

Data (fixed seed, written to CSV with 17 significant digits for R): ``age ~ N(50, 10)``,
``bp ~ N(130, 15)``, ``chol ~ N(200, 40)`` (rounded as recorded data are), ``sex`` a
character column, ``y`` Bernoulli with a curved age effect; the model is
``y ~ rcs(age, 4) + rcs(bp, 3) + rcs(chol, 4) + sex`` (10 coefficients). ``val_prob`` gets
``p = plogis(lp)``, ``lp ~ N(-1, 1.3^2)``, ``y ~ Bernoulli(plogis(0.8 lp + 0.1))``.

Each function is called once untimed (imports, R's first call), then ``--reps`` times
(``--big-reps`` for validate/calibrate at the largest size; a fast call, lrm or val_prob,
is repeated within each timing so that one spans about 0.2 s in calstats, and R repeats
it as many times); each case runs in calstats
and then in R (one ``Rscript`` per case, its start-up and the CSV reading untimed), so both
sides of a row meet about the same load. The table has the median wall time and the median
CPU time of the process (Python ``time.process_time``, R's ``user + system``) of each side
and their ratios R / calstats. On a machine shared with other work the wall times stretch
with the load; the CPU times less so.
``validate``/``calibrate`` run after ``set.seed(1)`` (``seed=1``) with ``B`` resamples, so
both sides draw the same resamples, and the last column checks the numbers: the largest
absolute difference between R's and calstats' coefficients (lrm), ``index.corrected``
(validate), ``calibrated.corrected`` (calibrate) and the statistics (val_prob); 0 is bit
for bit. R is skipped (one line says why) without ``Rscript`` or rms.
"""

import argparse
import functools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

SEED = 20240601
FORMULA = "y ~ rcs(age, 4) + rcs(bp, 3) + rcs(chol, 4) + sex"
FUNCTIONS = ("lrm", "validate", "calibrate", "val_prob")
VP_NAMES = ("Dxy", "C (ROC)", "R2", "D", "U", "Q", "Brier", "Intercept", "Slope", "Emax", "E90", "Eavg", "S:z")


def model_data(n, seed=SEED):
    """The lrm/validate/calibrate data frame."""
    r = np.random.default_rng(seed + n)
    age = r.normal(50, 10, n).round(1)
    bp = r.normal(130, 15, n).round(0)
    chol = r.normal(200, 40, n).round(0)
    sex = np.where(r.random(n) < 0.5, "female", "male")
    lp = (-0.5 + 0.04 * (age - 50) + 0.0005 * (age - 50) ** 2 + 0.02 * (bp - 130) + 0.005 * (chol - 200)
          + 0.4 * (sex == "male"))
    y = (r.random(n) < 1 / (1 + np.exp(-lp))).astype(int)
    return pd.DataFrame({"y": y, "age": age, "bp": bp, "chol": chol, "sex": sex})


def valprob_data(n, seed=SEED):
    """``(p, y)`` for val_prob."""
    r = np.random.default_rng(seed + 7 * n)
    lp = r.normal(-1.0, 1.3, n)
    p = 1.0 / (1.0 + np.exp(-lp))
    y = (r.uniform(size=n) < 1.0 / (1.0 + np.exp(-(0.8 * lp + 0.1)))).astype(float)
    return p, y


def cases(args):
    out = []
    big = max(args.sizes)
    for fn in ("lrm", "validate", "calibrate"):
        if fn in args.only:
            for n in args.sizes:
                reps = args.big_reps if fn != "lrm" and n == big and len(args.sizes) > 1 else args.reps
                out.append((fn, n, reps))
    if "val_prob" in args.only:
        out += [("val_prob", n, args.reps) for n in args.vp_sizes]
    return out


def _timed(f):
    c, w = time.process_time(), time.perf_counter()
    r = f()
    return time.perf_counter() - w, time.process_time() - c, r


def run_calstats(case, B):
    """``(wall times, cpu times, numbers)`` of one case."""
    from calstats.clinical import calibrate, lrm, val_prob, validate

    fn, n, reps = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if fn == "val_prob":
            p, y = valprob_data(n)

            def call():
                return val_prob(p, y, pl=False)

            def numbers(v):
                return [float(v.stats[k]) for k in VP_NAMES]
        else:
            df = model_data(n)
            fit = lrm(FORMULA, df)
            if fn == "lrm":
                def call():
                    return lrm(FORMULA, df)

                def numbers(v):
                    return v.coefficients.to_numpy().tolist()
            elif fn == "validate":
                def call():
                    return validate(fit, B=B, seed=1)

                def numbers(v):
                    return v.matrix["index.corrected"].to_numpy().tolist()
            else:
                def call():
                    return calibrate(fit, B=B, seed=1)

                def numbers(v):
                    return v.matrix["calibrated.corrected"].to_numpy().tolist()
        inner = 1
        if fn in ("lrm", "val_prob"):
            w0, _, _ = _timed(call)  # warm-up (R's first call is untimed too)
            inner = max(1, math.ceil(0.2 / max(w0, 1e-4)))  # a fast call: one timing spans ~0.2 s
        walls, cpus, res = [], [], None
        for _ in range(reps):
            w, c, res = _timed(lambda: [call() for _ in range(inner)][-1])
            walls.append(w / inner)
            cpus.append(c / inner)
    return walls, cpus, numbers(res), inner


_R = r"""
suppressMessages(library(rms))
cases <- read.csv({cases!r}, stringsAsFactors = FALSE)
f <- y ~ rcs(age, 4) + rcs(bp, 3) + rcs(chol, 4) + sex
num <- function(x) {{ x <- as.numeric(x); s <- sprintf("%.17g", x); s[is.na(x)] <- "null"; paste(s, collapse = ",") }}
for (k in seq_len(nrow(cases))) {{
  fn <- cases$fn[k]; n <- cases$n[k]; reps <- cases$reps[k]
  d <- read.csv(cases$csv[k])
  if (fn == "val_prob") {{
    call <- function() val.prob(d$p, d$y, pl = FALSE)
    numbers <- function(v) v[c("Dxy", "C (ROC)", "R2", "D", "U", "Q", "Brier", "Intercept", "Slope", "Emax",
                               "E90", "Eavg", "S:z")]
  }} else {{
    fit <- lrm(f, data = d, x = TRUE, y = TRUE)
    if (fn == "lrm") {{
      call <- function() lrm(f, data = d, x = TRUE, y = TRUE)
      numbers <- function(v) coef(v)
    }} else if (fn == "validate") {{
      call <- function() {{ set.seed(1); validate(fit, B = {B}) }}
      numbers <- function(v) v[, "index.corrected"]
    }} else {{
      call <- function() {{ set.seed(1); calibrate(fit, B = {B}) }}
      numbers <- function(v) v[, "calibrated.corrected"]
    }}
  }}
  inner <- cases$inner[k]
  if (fn %in% c("lrm", "val_prob")) invisible(call())
  wall <- cpu <- numeric(reps)
  for (i in seq_len(reps)) {{
    tm <- system.time(for (j in seq_len(inner)) res <- suppressWarnings(call()))
    wall[i] <- tm[["elapsed"]] / inner; cpu[i] <- (tm[["user.self"]] + tm[["sys.self"]]) / inner
  }}
  cat(sprintf('{{"fn": "%s", "n": %d, "wall": [%s], "cpu": [%s], "numbers": [%s]}}\n', fn, n, num(wall), num(cpu),
              num(numbers(res))))
}}
"""


@functools.lru_cache(maxsize=1)
def _rscript():
    """``(path of Rscript, None)`` when R has rms, else ``(None, reason)``."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "Rscript not on PATH"
    if subprocess.run([rscript, "-e", "library(rms)"], capture_output=True).returncode != 0:
        return None, "R package rms not installed"
    return rscript, None


def run_r(todo, B, tmp, inner=1):
    """R's results by (fn, n), or None with the reason."""
    rscript, why = _rscript()
    if rscript is None:
        return None, why
    rows = []
    for fn, n, reps in todo:
        csv = os.path.join(tmp, f"{fn}_{n}.csv")
        if fn == "val_prob":
            p, y = valprob_data(n)
            pd.DataFrame({"p": p, "y": y}).to_csv(csv, index=False, float_format="%.17g")
        else:
            model_data(n).to_csv(csv, index=False, float_format="%.17g")
        rows.append({"fn": fn, "n": n, "reps": reps, "csv": csv, "inner": inner})
    cases_csv = os.path.join(tmp, "cases.csv")
    pd.DataFrame(rows).to_csv(cases_csv, index=False)
    script = os.path.join(tmp, "bench_rms.R")
    with open(script, "w") as fh:
        fh.write(_R.format(cases=cases_csv, B=B))
    res = subprocess.run([rscript, script], capture_output=True, text=True)
    if res.returncode != 0:
        return None, (res.stderr.strip().splitlines() or ["R failed"])[-1]
    out = {}
    for line in res.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            out[(d["fn"], d["n"])] = d
    return out, None


def _diff(a, b):
    a = np.array([np.nan if v is None else v for v in a], dtype=float)
    b = np.array([np.nan if v is None else v for v in b], dtype=float)
    if a.shape != b.shape:
        return "shape differs"
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return "NA differ"
    ok = ~np.isnan(a)
    return f"{np.max(np.abs(a[ok] - b[ok])) if ok.any() else 0.0:.1e}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--vp-sizes", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--B", type=int, default=200)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--big-reps", type=int, default=1)
    ap.add_argument("--only", nargs="+", choices=FUNCTIONS, default=list(FUNCTIONS))
    ap.add_argument("--no-r", action="store_true")
    args = ap.parse_args(argv)
    todo = cases(args)
    py, r, why = {}, None, "--no-r" if args.no_r else None
    if not args.no_r:
        r = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in todo:  # each case in calstats, then in R: both under the same load
            walls, cpus, nums, inner = run_calstats(case, args.B)
            py[case[:2]] = (walls, cpus, nums)
            if r is not None:
                got, why = run_r([case], args.B, tmp, inner)
                if got is None:
                    r = None
                else:
                    r.update(got)
    head = (f"{'function':<22} {'n':>7} {'reps':>4} {'calstats wall':>13} {'R wall':>8} {'ratio':>6} "
            f"{'calstats cpu':>12} {'R cpu':>8} {'ratio':>6}  max |R - calstats|")
    print(head)
    print("-" * len(head))
    for fn, n, reps in todo:
        walls, cpus, nums = py[(fn, n)]
        pw, pc = statistics.median(walls), statistics.median(cpus)
        label = f"{fn}(B={args.B})" if fn in ("validate", "calibrate") else fn
        if r is not None and (fn, n) in r:
            rr = r[(fn, n)]
            rw, rc = statistics.median(rr["wall"]), statistics.median(rr["cpu"])
            print(f"{label:<22} {n:>7} {reps:>4} {pw:>12.3f}s {rw:>7.3f}s {rw / pw:>5.1f}x {pc:>11.3f}s "
                  f"{rc:>7.3f}s {rc / pc:>5.1f}x  {_diff(nums, rr['numbers'])}")
        else:
            print(f"{label:<22} {n:>7} {reps:>4} {pw:>12.3f}s {'':>8} {'':>6} {pc:>11.3f}s")
    if r is None:
        print(f"R rms: skipped ({why})")


if __name__ == "__main__":
    sys.exit(main())
