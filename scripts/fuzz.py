"""Fuzz the public API for a while: ``python scripts/fuzz.py --minutes 10 [--seed S]``.

Runs the harness of tests/_fuzz.py (random, often malformed inputs to every calibrator,
metric and test; each call must return a well-formed result or raise
calstats.CalstatsError) and prints the number of calls and every distinct finding with its
count and a seed that reproduces it. Exit status 1 when anything was found.
"""

import argparse
import collections
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from _fuzz import check_call, random_call  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    found, first = collections.Counter(), {}
    deadline = time.monotonic() + 60.0 * args.minutes
    calls = 0
    seed = args.seed
    while time.monotonic() < deadline:
        name, fn, call_args, kwargs = random_call(np.random.default_rng(seed))
        finding = check_call(name, fn, call_args, kwargs)
        calls += 1
        if finding:
            found[finding] += 1
            first.setdefault(finding, seed)
        seed += 1
    print(f"{calls} calls in {args.minutes:g} minutes (seeds {args.seed}..{seed - 1}); "
          f"{sum(found.values())} findings, {len(found)} distinct")
    for finding, count in found.most_common():
        print(f"{count:6d}  {finding}  (first at seed {first[finding]})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
