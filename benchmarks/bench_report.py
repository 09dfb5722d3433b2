"""Time and peak memory of ``calstats.report`` of one binary model at registry scale.

Run: ``python -m benchmarks.bench_report [--n 10000 100000 1000000] [--no-figures]
[--sections ...] [--timeout 900]``.

Every size runs in a fresh subprocess that builds its data (``s ~ N(0, 1.3^2)``, ``y ~
Bernoulli(expit(s))``, the model's risk ``expit(1.2 s - 0.1)``: slightly too extreme, so
every section has something to say), then calls ``calstats.report(p, y)`` with its
defaults and renders the page (``rep.to_html()``). Reported: the wall time of report and
page, the seconds of each section (``rep.timings``), and the peak resident memory of the
process (``VmHWM``, interpreter and data included; the data are 16 MB at 10^6). The targets
(issue "a report of a 10^6-patient registry"): 10^5 rows under 30 s, 10^6 under 5 minutes
with a peak under 2 GB.

Output: a Markdown table, one row per size, the slowest section named.
"""

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import numpy as np
n, figures, sections = int(sys.argv[1]), sys.argv[2] == "1", json.loads(sys.argv[3])
rs = np.random.default_rng(20240601)
s = rs.normal(size=n) * 1.3
y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(np.int64)
p = 1 / (1 + np.exp(-(1.2 * s - 0.1)))
import calstats
t0 = time.perf_counter()
rep = calstats.report(p, y, figures=figures, sections=sections, progress=False)
t1 = time.perf_counter()
page = rep.to_html()
t2 = time.perf_counter()
peak = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) * 1024
print(json.dumps({"n": n, "report": t1 - t0, "page": t2 - t1, "timings": rep.timings, "peak": peak,
                  "notes": [x for sec in rep.sections for x in sec.notes if "Above" in x or "rows" in x][:4],
                  "page_mb": len(page.encode()) / 1e6}))
"""


def run(n, figures=True, sections=None, timeout=900):
    """One size in a fresh process: a dict of the measurements (or the error)."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(n), "1" if figures else "0", json.dumps(sections)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"n": n, "error": f"not finished in {timeout} s"}
    if done.returncode != 0:
        return {"n": n, "error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t0
    return out


def table(rows):
    lines = ["| n | report (s) | page (s) | peak (GB) | slowest sections (s) |", "|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['n']:,} | {r['error']} | | | |")
            continue
        top = sorted(r["timings"].items(), key=lambda kv: -kv[1])[:3]
        lines.append(f"| {r['n']:,} | {r['report']:.1f} | {r['page']:.1f} | {r['peak'] / 2**30:.2f} | "
                     + ", ".join(f"{k} {v:.1f}" for k, v in top) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--sections", nargs="+")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", action="store_true", help="print the measurements as JSON lines too")
    args = ap.parse_args(argv)
    rows = []
    for n in args.n:
        r = run(n, not args.no_figures, args.sections, args.timeout)
        rows.append(r)
        if args.json:
            print(json.dumps(r), flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
