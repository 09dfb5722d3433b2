"""Time cal_dirichlet on the issue-11 cases: the compiled core against the NumPy reference,
side by side in one run, with iterations and peak memory.

Run: ``python benchmarks/bench_dirichlet.py [--cases NAME ...] [--repeat R] [--reference]``.
Each case runs in a fresh subprocess (so that its peak resident memory is its own) on the
runner's fixed-seed data (:func:`benchmarks.data.multiclass_case`, labels as a Categorical
with all K levels). ``--reference`` also times the NumPy reference engine (the tests' bit
oracle; slow at large K) for the ratio. R's probcal is timed by ``python -m benchmarks``
when ``Rscript`` with probcal is installed; the R seconds quoted in the table are the
figures measured side by side with R probcal 0.1.0 on the same 2-core machine kind and
recorded in issue 11.
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
    mn.ENGINE = engine
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--reference", action="store_true", help="also time the NumPy reference engine")
    ap.add_argument("--exp-ab", action="store_true",
                    help="also time the compiled core with the C library's exp instead of its vector replica")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]))
        return
    from calstats.numerics import _core

    print(f"(the objective's exp: {_core.exp_mode()})")
    print(f"{'case':<20} {'engine':<7} {'seconds':>8} {'R s':>6} {'R/ours':>7} {'lambda':>7} "
          f"{'counts':>11} {'peak MiB':>9}")
    for name in args.cases:
        r_seconds = CASES[name][3]
        engines = ["c"] + (["c-libm"] if args.exp_ab else []) + (["numpy"] if args.reference else [])
        results = {e: _run(name, e, args.repeat) for e in engines}
        for e, r in results.items():
            ratio = f"{r_seconds / r['seconds']:.1f}x" if r_seconds else "-"
            print(f"{name:<20} {e:<7} {r['seconds']:>8.2f} {r_seconds or '-':>6} {ratio:>7} {r['lambda']:>7g} "
                  f"{str(tuple(r['counts'])):>11} {r['peak_mib']:>9.0f}")
        if args.exp_ab:
            a, b = results["c"], results["c-libm"]
            print(f"{'':<20} replica / C library exp time: {a['seconds'] / b['seconds']:.3f};"
                  f" same bits: {a['pred'] == b['pred'] and a['value'] == b['value'] and a['counts'] == b['counts']}")
        if args.reference:
            same = results["c"]["pred"] == results["numpy"]["pred"] and results["c"]["value"] == results["numpy"]["value"]
            print(f"{'':<20} C / reference time: {results['c']['seconds'] / results['numpy']['seconds']:.3f};"
                  f" same bits: {same}")


if __name__ == "__main__":
    main()
