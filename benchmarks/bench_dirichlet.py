"""Time cal_dirichlet on the issue-11 cases: the compiled core against the NumPy reference,
side by side in one run, with iterations and peak memory.

Run: ``python benchmarks/bench_dirichlet.py [--cases NAME ...] [--repeat R] [--reference]``.
Each case runs in a fresh subprocess (so that its peak resident memory is its own) on the
runner's fixed-seed data (:func:`benchmarks.data.multiclass_case`, labels as a Categorical
with all K levels). ``--reference`` also times the NumPy reference engine (the tests' bit
oracle; slow at large K) for the ratio. R's probcal is timed by ``python -m benchmarks``
when ``Rscript`` with probcal is installed; without ``--r-spec`` the R seconds quoted in
the table are the figures measured side by side with R probcal 0.1.0 on the same 2-core
machine kind and recorded in issue 11.

``--r-spec`` times R in this run instead: ``tools/r-reference/probcal_spec.R`` is the
spec's ``cal_dirichlet`` (docs/spec/r-interface.md §4.3) written in base R (R's ``optim``
BFGS, ``exp``, ``rowSums``, ``crossprod`` through R's reference BLAS), run by ``Rscript``
on the same data with ``system.time`` around the call alone, and its value, iteration
counts and predictions are compared with calstats' bit for bit. It is a transcription of
the algorithm, not R's probcal package (which is not installable here).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = {
    # name: (n, K, lambda (None = select), R seconds from issue 11 or None)
    "select-n10000-k10": (10_000, 10, None, 11.6),
    "fixed-n100-k50": (100, 50, 0.01, 4.9),
    "fixed-n2000-k50": (2_000, 50, 0.01, 3.3),
    "fixed-n10000-k100": (10_000, 100, 0.001, None),
}


def _child(name, engine, repeat):
    import resource

    import numpy as np
    import pandas as pd

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import calstats
    import calstats.calibrators._multinomial as mn
    from benchmarks.data import multiclass_case

    n, k, lam, _ = CASES[name]
    (p, y), _ = multiclass_case(n, k)
    y = pd.Categorical(y + 1, categories=range(1, k + 1))
    mn.BACKEND = engine
    times, fit = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        fit = calstats.cal_dirichlet(p, y, lambda_=lam, progress=False)
        times.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # MiB (Linux: KiB)
    out = {"seconds": statistics.median(times), "lambda": fit.lambda_, "counts": list(fit.counts),
           "peak_mib": peak, "value": fit.value, "pred": np.asarray(fit.predict(p[:50])).ravel().tolist()}
    print(json.dumps(out))


def _run(name, engine, repeat):
    env = dict(os.environ)
    if engine == "c-libm":  # the compiled core with the C library's scalar exp (no replica)
        env["CALSTATS_EXP"] = "libm"
        engine = "c"
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, engine, str(repeat)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(res.stdout.strip().splitlines()[-1])


_R_SPEC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "r-reference",
                       "probcal_spec.R")


def _run_r_spec(name, repeat, rowmax="max.col"):
    """The case in R: ``tools/r-reference/probcal_spec.R`` (the spec's cal_dirichlet in base
    R, R's optim and reference BLAS), timed by ``system.time`` around the call only (not R's
    startup or the CSV reading); returns the same fields as a Python run."""
    import shutil
    import tempfile

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.data import multiclass_case
    from benchmarks.rprobcal import _write

    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    n, k, lam, _ = CASES[name]
    (p, y), _ = multiclass_case(n, k)
    with tempfile.TemporaryDirectory(prefix="calstats-bench-rspec-") as tmp:
        _write(os.path.join(tmp, "p.csv"), p)  # the runner's CSV: 17 significant digits
        _write(os.path.join(tmp, "y.csv"), y + 1)
        lam_r = "NULL" if lam is None else repr(lam)
        script = f"""source("{_R_SPEC}")
options(probcal_spec.rowmax = "{rowmax}")
p <- as.matrix(read.csv("{tmp}/p.csv", header = FALSE)); dimnames(p) <- NULL
y <- factor(read.csv("{tmp}/y.csv", header = FALSE)[, 1], levels = seq_len({k}))
times <- numeric(0)
for (i in seq_len({int(repeat)})) times <- c(times, system.time(f <- cal_dirichlet(p, y, lambda = {lam_r}))[["elapsed"]])
U <- log(pmin(pmax(p[1:50, ], 1e-12), 1 - 1e-12))
pred <- .softmax(U %*% t(f$weight) + matrix(f$bias, 50, {k}, byrow = TRUE))
cat(sprintf("%.17g", c(median(times), f$lambda, f$value, f$counts, as.vector(t(pred)))), sep = "\n")
"""
        path = os.path.join(tmp, "case.R")
        with open(path, "w") as fh:
            fh.write(script)
        res = subprocess.run([rscript, "--vanilla", path], capture_output=True, text=True, check=True)
    v = [float(x) for x in res.stdout.split()]
    return {"seconds": v[0], "lambda": v[1], "value": v[2], "counts": [int(v[3]), int(v[4])],
            "peak_mib": float("nan"), "pred": v[5:]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--reference", action="store_true", help="also time the NumPy reference engine")
    ap.add_argument("--exp-ab", action="store_true",
                    help="also time the compiled core with the C library's exp instead of its vector replica")
    ap.add_argument("--r-spec", action="store_true",
                    help="also time tools/r-reference/probcal_spec.R (the spec's algorithm in base R) in this run")
    ap.add_argument("--r-rowmax", choices=["max.col", "apply"], default="max.col",
                    help="the R transcription's row maximum: max.col (fast, default) or apply(eta, 1, max)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]))
        return
    from calstats.numerics import _core

    print(f"(the objective's exp: {_core.exp_mode()})")
    if args.r_spec:
        import shutil

        if shutil.which("Rscript") is None:
            print("R: skipped (Rscript is not on PATH)")
    print(f"{'case':<20} {'engine':<7} {'seconds':>8} {'R s':>6} {'R/ours':>7} {'lambda':>7} "
          f"{'counts':>11} {'peak MiB':>9}")
    for name in args.cases:
        r_seconds = CASES[name][3]
        engines = ["c"] + (["c-libm"] if args.exp_ab else []) + (["numpy"] if args.reference else [])
        results = {e: _run(name, e, args.repeat) for e in engines}
        r_spec = _run_r_spec(name, args.repeat, args.r_rowmax) if args.r_spec else None
        if r_spec is not None:
            r_seconds = r_spec["seconds"]  # measured in this run, on this machine
            results["R-spec"] = r_spec
        for e, r in results.items():
            ratio = f"{r_seconds / r['seconds']:.1f}x" if r_seconds else "-"
            r_col = f"{r_seconds:.2f}" if r_seconds else "-"
            print(f"{name:<20} {e:<7} {r['seconds']:>8.2f} {r_col:>6} {ratio:>7} {r['lambda']:>7g} "
                  f"{str(tuple(r['counts'])):>11} {r['peak_mib']:>9.0f}")
        if args.exp_ab:
            a, b = results["c"], results["c-libm"]
            print(f"{'':<20} replica / C library exp time: {a['seconds'] / b['seconds']:.3f};"
                  f" same bits: {a['pred'] == b['pred'] and a['value'] == b['value'] and a['counts'] == b['counts']}")
        if r_spec is not None:
            a = results["c"]
            dpred = max(abs(x - y) for x, y in zip(a["pred"], r_spec["pred"]))
            same = (a["value"] == r_spec["value"] and a["counts"] == r_spec["counts"] and a["lambda"] == r_spec["lambda"]
                    and len(a["pred"]) == len(r_spec["pred"]) and dpred == 0.0)
            print(f"{'':<20} R (spec in base R, row max by {args.r_rowmax}) / C time: "
                  f"{r_spec['seconds'] / a['seconds']:.1f}x; same bits: {same} (max |dpred| {dpred:.1e})")
        if args.reference:
            same = results["c"]["pred"] == results["numpy"]["pred"] and results["c"]["value"] == results["numpy"]["value"]
            print(f"{'':<20} C / reference time: {results['c']['seconds'] / results['numpy']['seconds']:.3f};"
                  f" same bits: {same}")


if __name__ == "__main__":
    main()
