"""Time inductive Venn-Abers: calstats against venn-abers and MAPIE, fit plus predict.

Run: ``python benchmarks/bench_venn_abers.py [--sizes 10000 100000] [--repeat 5]``. For each
size n the runner's fixed-seed binary data (:func:`benchmarks.data.binary_case`, scores
through the logistic function) give n calibration and n test rows; every contender fits on
the calibration rows and predicts the test rows, repetitions interleaved (A, B, C, A, ...),
medians reported with the ratio to calstats and the largest absolute difference of the
merged probabilities from venn-abers'. Peers are timed when importable (venn-abers is not a
calstats extra: ``pip install venn-abers``). ``--cross`` also times the cross predictor
(5 folds) of calstats; venn-abers' ``VennAbersCV`` refits a model per fold and has no
counterpart on fixed scores.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="+", type=int, default=[100_000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cross", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import peers
    from benchmarks.data import binary_case
    from calstats.calibrators.venn_abers import cal_venn_abers

    print(f"{'n (cal = test)':>14} {'contender':<40} {'median s':>9} {'ratio':>7} {'max |diff| vs venn-abers':>25}")
    for n in args.sizes:
        (s, y), (st, _) = binary_case(n)
        p, pt = 1 / (1 + np.exp(-s)), 1 / (1 + np.exp(-st))
        contenders = {"calstats.cal_venn_abers": lambda p=p, y=y, pt=pt: cal_venn_abers(p, y).predict(pt)}
        if args.cross:
            contenders["calstats.cal_venn_abers(cross, 5 folds)"] = (
                lambda p=p, y=y, pt=pt: cal_venn_abers(p, y, method="cross", folds=5, seed=1).predict(pt))
        contenders.update(peers.venn_abers(p, y, pt))
        times: dict[str, list[float]] = {c: [] for c in contenders}
        out = {}
        for _ in range(args.repeat):
            for label, fn in contenders.items():
                t0 = time.perf_counter()
                out[label] = fn()
                times[label].append(time.perf_counter() - t0)
        base = statistics.median(times["calstats.cal_venn_abers"])
        ref = out.get("venn-abers VennAbers")
        for label in contenders:
            med = statistics.median(times[label])
            diff = "-" if ref is None or "cross" in label else f"{np.max(np.abs(out[label] - ref)):.3g}"
            print(f"{n:>14} {label:<40} {med:>9.4f} {med / base:>7.2f} {diff:>25}")


if __name__ == "__main__":
    main()
