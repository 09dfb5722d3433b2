"""Time skce, cal_test and cal_ci at n = 100 000 (binary and confidence forms).

Run: ``python benchmarks/bench_inference.py [--n N] [--n-boot B] [--repeat R]``. Prints
seconds per call (median of the repeats). Data: miscalibrated-by-a-little binary scores and
softmax outputs of random logits (fixed seeds), so runs compare. The scalar forms use the
O(n log n) sorted prefix-sum engine; each wild-bootstrap replicate is one O(n) pass
(inference.md §6.1-§6.2). For scale: the direct O(n^2) double sum at n = 100 000 touches
10^10 kernel entries (80 GB as R's n x n matrix) per replicate.
"""

import argparse
import statistics
import time

import numpy as np


def make_binary(n, seed=0):
    rs = np.random.default_rng(seed)
    p = rs.random(n)
    y = (rs.random(n) < p ** 1.05).astype(int)
    return p, y


def make_multiclass(n, k=10, seed=1):
    rs = np.random.default_rng(seed)
    z = rs.normal(size=(n, k)) * 2.0
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    q = np.exp(z / 1.2)
    q /= q.sum(axis=1, keepdims=True)
    u = rs.random(n)[:, None]
    y = (u > np.cumsum(q, axis=1)).sum(axis=1) + 1
    y = np.minimum(y, k)
    return p, y


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None):
    import calstats

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    n, b, r = args.n, args.n_boot, args.repeat
    pb, yb = make_binary(n)
    pm, ym = make_multiclass(n)
    rows = [
        ("skce uq (binary)", lambda: calstats.skce(pb, yb)),
        ("skce biased (binary)", lambda: calstats.skce(pb, yb, "biased")),
        ("skce uq, bandwidth='median' (binary)", lambda: calstats.skce(pb, yb, bandwidth="median")),
        ("skce uq (confidence, K = 10)", lambda: calstats.skce(pm, ym)),
        ("skce uq (classwise, K = 10)", lambda: calstats.skce(pm, ym, type="classwise")),
        (f"cal_test bootstrap, n_boot = {b} (binary)", lambda: calstats.cal_test(pb, yb, n_boot=b, seed=1).p_value),
        (f"cal_test bootstrap, n_boot = {b} (confidence)",
         lambda: calstats.cal_test(pm, ym, n_boot=b, seed=1).p_value),
        ("cal_test asymptotic (binary)", lambda: calstats.cal_test(pb, yb, method="asymptotic").p_value),
        ("cal_ci ece, n_boot = 200 (binary)", lambda: calstats.cal_ci(pb, yb, n_boot=200, seed=1).conf_int),
        ("cal_ci skce, n_boot = 200 (binary)",
         lambda: calstats.cal_ci(pb, yb, "skce", n_boot=200, seed=1).conf_int),
    ]
    print(f"n = {n}")
    print(f"{'call':<46} {'seconds':>8}  value")
    for name, fn in rows:
        sec, out = timed(fn, r)
        print(f"{name:<46} {sec:>8.3f}  {out}")


if __name__ == "__main__":
    main()
