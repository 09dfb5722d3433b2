"""Time cal_dirichlet with lambda selection (n = 10 000; K = 10 and 30) on synthetic data.

Run: ``python benchmarks/bench_dirichlet.py [--n N] [--k 10 30] [--repeat R]``. Prints
seconds per call (median of the repeats). The data are miscalibrated softmax outputs of
random logits with labels drawn from a tempered version, fixed seed, so runs compare.
For scale, the issue quotes R probcal at 13 s (K = 10) and 48 s (K = 30) on the CI machines.
"""

import argparse
import statistics
import time

import numpy as np


def make_data(n, k, seed=0):
    rs = np.random.default_rng(seed)
    logits = rs.normal(size=(n, k)) * 2.0
    true = np.exp(logits / 1.7)
    true /= true.sum(axis=1, keepdims=True)
    y = np.array([rs.choice(k, p=row) for row in true]) + 1
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p, y


def main(argv=None):
    import calstats

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--k", type=int, nargs="+", default=[10, 30])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--lambda", dest="lam", type=float, default=None, help="fixed lambda (default: select)")
    args = ap.parse_args(argv)
    print(f"{'n':>7} {'K':>4} {'lambda':>8} {'seconds':>9} {'iters(final)':>12}")
    for k in args.k:
        p, y = make_data(args.n, k)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fit = calstats.cal_dirichlet(p, y, lambda_=args.lam)
            times.append(time.perf_counter() - t0)
        print(f"{args.n:>7} {k:>4} {fit.lambda_:>8g} {statistics.median(times):>9.2f} {fit.counts[1]:>12}")


if __name__ == "__main__":
    main()
