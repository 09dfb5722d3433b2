"""Fuzz the public API and the command line for a while:
``python scripts/fuzz.py --minutes 10 [--seed S] [--commands 0.1] [--slow 10]``.

Runs the harness of tests/_fuzz.py: random, often malformed inputs to every public function
of calstats and calstats.clinical and every method of what they return (each call must
return a well-formed result or raise calstats.CalstatsError in one line, within a few
seconds of CPU at these small sizes), and, for the share ``--commands`` of the calls,
random ``calstats`` commands on small tables (each must exit 0, or non-zero with one error
line that is not an internal error). Prints the number of calls and every distinct
finding with its count and a seed that reproduces it (``--seed`` that seed, one call).
Exit status 1 when anything was found.
"""

import argparse
import collections
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from _fuzz import SLOW_SECONDS, check_call, check_command, describe, random_call, random_command  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calls", type=int, default=None, help="stop after this many calls")
    ap.add_argument("--commands", type=float, default=0.1, help="share of the calls that are commands")
    ap.add_argument("--slow", type=float, default=SLOW_SECONDS, help="CPU seconds that make a call slow")
    ap.add_argument("--only", default=None, help="fuzz only the function of this name")
    args = ap.parse_args(argv)
    found, first, calls_of = collections.Counter(), {}, {}
    deadline = time.monotonic() + 60.0 * args.minutes
    calls = 0
    seed = args.seed
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < deadline and (args.calls is None or calls < args.calls):
            rs = np.random.default_rng(seed)
            if args.only is None and rs.random() < args.commands:
                command = random_command(rs, tmp)
                what = "calstats " + " ".join(command)
                finding = check_command(command, args.slow)
            else:
                try:
                    name, fn, call_args, kwargs = random_call(rs)
                    while args.only is not None and name != args.only:
                        name, fn, call_args, kwargs = random_call(rs)
                    what = describe(name, call_args, kwargs)
                    finding = check_call(name, fn, call_args, kwargs, args.slow)
                except Exception as exc:  # the harness's own defect: say it, go on
                    what, finding = "the harness", f"harness: {type(exc).__name__}: {exc}"
            calls += 1
            if finding:
                found[finding] += 1
                first.setdefault(finding, seed)
                calls_of.setdefault(finding, what)
            seed += 1
    print(f"{calls} calls in {args.minutes:g} minutes (seeds {args.seed}..{seed - 1}); "
          f"{sum(found.values())} findings, {len(found)} distinct")
    for finding, count in found.most_common():
        print(f"{count:6d}  {finding}  (first at seed {first[finding]})")
        print(f"        {calls_of[finding]}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
