"""The clinical group: calstats' clinical functions beside their R originals and Python peers.

Run ``python -m benchmarks --only clinical`` (the runner) or ``python -m
benchmarks.bench_clinical [--rows ...] [--reps 3] [--small]`` (this module alone).

Each row is one function at two sizes. calstats is timed in this process (one warm-up, then
``--reps`` repetitions, median). The reference is timed where it lives:

* **R** (pmcalibration, mgcv, rms through pmcalibration, VGAM, reliabilitydiag, dcurves):
  the same data go to CSV files (17 significant digits) and one ``Rscript --vanilla`` per
  case reads them, runs the call once and then times it with ``system.time`` inside R
  (:func:`benchmarks.rprobcal.time_case`), so R's start-up and the reading are not timed;
  a call that takes more than 0.5 s counts its warm-up as its first repetition, and the
  slowest R calls get one repetition only. R libraries outside the system library (e.g.
  dcurves) are found through ``R_LIBS``. CalibrationCurves' ``val.prob.ci.2`` is timed by
  :mod:`benchmarks.bench_valprobci` when ``CALIBRATIONCURVES_SRC`` points at its source.
* **Python peers** (relplot's ``smECE``, MAPIE's ``cumulative_differences``): in a separate
  virtual environment (``CALSTATS_BENCH_PEERS``, default ``/work/benchenv/bin/python``, or
  this interpreter when it can import the peer), which rebuilds the same data from
  :mod:`benchmarks.data` and times the call the same way.

Reported per row and size: calstats' median, the reference's, their ratio (reference /
calstats: above 1 means calstats is faster) and, on calstats' second size, the growth
exponent ``log(t2 / t1) / log(n2 / n1)`` (1 = linear, about 1.1 for n log n over a decade).

Data (fixed seeds, :mod:`benchmarks.data`): binary rows ``p = expit(s)`` of
:func:`~benchmarks.data.binary_case` (a miscalibrated model); multinomial rows the
over-confident softmax outputs of :func:`~benchmarks.data.multiclass_case`.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import rprobcal
from .data import binary_case, multiclass_case

#: The Python interpreter of the peers' environment.
PEERS_PYTHON = os.environ.get("CALSTATS_BENCH_PEERS", "/work/benchenv/bin/python")


# --------------------------------------------------------------------------------------
# data


def binary(n):
    (s, y), _ = binary_case(n)
    return 1.0 / (1.0 + np.exp(-s)), y.astype(np.int64)


def multinomial(n, k):
    (p, y), _ = multiclass_case(n, k, fit_labels=False)
    return p, y + 1


# --------------------------------------------------------------------------------------
# rows


@dataclass
class Row:
    """One function at two sizes.

    ``ours(n)`` returns the calstats call (a zero-argument callable) on the data of size n;
    ``r(n)`` an :class:`~benchmarks.rprobcal.RCase` (or None: no R timing at that size);
    ``peer`` ``(label, module, code)`` for a Python peer, ``code`` an expression of ``p``
    and ``y`` (the data of :func:`binary`). ``r_reps`` overrides the repetitions in R.
    """

    key: str
    label: str
    sizes: tuple
    ours: Callable[[int], Callable[[], Any]]
    reference: str
    r: Callable[[int], Any] | None = None
    peer: tuple | None = None
    r_reps: dict = field(default_factory=dict)
    special: str | None = None


def _pmcal(smooth, ci, nsim=None):
    def make(n):
        from calstats.clinical.pmcal import pmcalibration

        p, y = binary(n)
        kw = {} if nsim is None else {"n": nsim}

        def call():
            with warnings.catch_warnings():  # rcs: pmcalibration's "Defaulting to nk = 5"
                warnings.simplefilter("ignore")
                return pmcalibration(y, p, smooth, ci=ci, seed=1, progress=False, **kw)
        return call
    return make


def _pmcal_r(smooth, ci, nsim=None):
    extra = "" if nsim is None else f", n = {nsim}"

    def make(n):
        p, y = binary(n)
        call = (f"{{set.seed(1); pmcalibration(y = y, p = p, smooth = '{smooth}', ci = '{ci}'{extra}, "
                f"plot = FALSE)}}")
        return rprobcal.RCase(call, {"p": p, "y": y}, packages=("pmcalibration",))
    return make


def _spline(n):
    import calstats

    p, y = binary(n)
    return lambda: calstats.cal_spline(p, y, basis="gam")


def _spline_r(n):
    p, y = binary(n)
    call = "mgcv::gam(y ~ s(z), family = binomial, method = 'REML', data = data.frame(y = y, z = qlogis(p)))"
    return rprobcal.RCase(call, {"p": p, "y": y}, packages=("mgcv",))


def _multinomial(k):
    def make(n):
        from calstats.clinical.multinomial import val_multinomial

        p, y = multinomial(n, k)

        def call():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return val_multinomial(p, y)
        return call
    return make


def _multinomial_r(k):
    # val_multinomial's four fits as tools/r-reference/make_multinomial.R runs them (ref = 1)
    m = k - 1
    terms = [f"lp{j}" for j in range(1, m + 1)]
    names = ", ".join(f"'{t}'" for t in terms)
    lin = " + ".join(terms)
    ns = " + ".join(f"splines::ns({t}, df = 2)" for t in terms)
    cons = ", ".join(f"{t} = diag({m})[, {j + 1}, drop = FALSE]" for j, t in enumerate(terms))
    call = ("{LP <- log(p[, -1, drop = FALSE] / p[, 1]); "
            f"d <- data.frame(yf = factor(y, levels = 1:{k}), LP); names(d) <- c('yf', {names}); "
            "fi <- vglm(yf ~ 1, multinomial(refLevel = 1), offset = LP, data = d); "
            f"ff <- vglm(yf ~ {lin}, multinomial(refLevel = 1), data = d); "
            f"fs <- vglm(yf ~ {lin}, multinomial(refLevel = 1), "
            f"constraints = list('(Intercept)' = diag({m}), {cons}), data = d); "
            f"fx <- vglm(yf ~ {ns}, multinomial(refLevel = 1), data = d)}}")

    def make(n):
        p, y = multinomial(n, k)
        return rprobcal.RCase(call, {"p": p, "y": y}, packages=("VGAM",))
    return make


def _val_prob_ci(n):
    from calstats.clinical import val_prob_ci

    from .bench_valprobci import data

    p, y = data(n)

    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return val_prob_ci(p, y, pl=False)
    return call


def _corp(n):
    import calstats

    p, y = binary(n)
    return lambda: calstats.corp(p, y, seed=1)


def _corp_r(n):
    p, y = binary(n)
    call = "{set.seed(1); reliabilitydiag(p, y = y, region.method = 'resampling', n.boot = 100)}"
    return rprobcal.RCase(call, {"p": p, "y": y}, packages=("reliabilitydiag",))


def _smece(n):
    import calstats

    p, y = binary(n)
    return lambda: calstats.smece(p, y)


def _cumdiff(n):
    import calstats

    p, y = binary(n)
    return lambda: calstats.cumulative_differences(p, y)


def _decision(n):
    from calstats.clinical.decision import decision_curve

    p, y = binary(n)
    return lambda: decision_curve(p, y)


def _decision_r(n):
    p, y = binary(n)
    call = ("dcurves::as_tibble(dcurves::dca(y ~ p, data = data.frame(y = y, p = p), "
            "thresholds = seq(0.01, 0.99, by = 0.01)))")
    return rprobcal.RCase(call, {"p": p, "y": y}, packages=("dcurves",))


ROWS = [
    Row("gam_none", "pmcalibration(smooth='gam', ci='none')", (2_000, 20_000), _pmcal("gam", "none"),
        "R pmcalibration", r=_pmcal_r("gam", "none")),
    Row("gam_sim", "pmcalibration(smooth='gam', ci='sim', n=1000)", (2_000, 20_000), _pmcal("gam", "sim", 1000),
        "R pmcalibration", r=_pmcal_r("gam", "sim", 1000)),
    Row("rcs_boot", "pmcalibration(smooth='rcs', ci='boot', n=200)", (5_000, 20_000), _pmcal("rcs", "boot", 200),
        "R pmcalibration", r=_pmcal_r("rcs", "boot", 200), r_reps={20_000: 1}),
    Row("spline_gam", "cal_spline(basis='gam')", (10_000, 100_000), _spline, "R mgcv::gam (REML)", r=_spline_r,
        r_reps={100_000: 1}),
    Row("multinomial3", "val_multinomial K=3", (5_000, 50_000), _multinomial(3), "R VGAM (4 fits)",
        r=_multinomial_r(3)),
    Row("multinomial5", "val_multinomial K=5", (5_000, 50_000), _multinomial(5), "R VGAM (4 fits)",
        r=_multinomial_r(5), r_reps={50_000: 1}),
    Row("val_prob_ci", "val_prob_ci", (10_000, 100_000), _val_prob_ci, "R CalibrationCurves::val.prob.ci.2",
        special="valprobci"),
    Row("corp", "corp (resampling band, 100)", (10_000, 100_000), _corp, "R reliabilitydiag", r=_corp_r,
        r_reps={10_000: 1, 100_000: 1}),
    Row("smece", "smece", (100_000, 1_000_000), _smece, "relplot.smECE",
        peer=("relplot.smECE", "relplot", "relplot.smECE(p, y)")),
    Row("cumdiff", "cumulative_differences", (100_000, 1_000_000), _cumdiff, "MAPIE cumulative_differences",
        peer=("mapie cumulative_differences", "mapie",
              "__import__('mapie.metrics.calibration', fromlist=['x']).cumulative_differences(y, p)")),
    Row("decision", "decision_curve (99 thresholds)", (10_000, 100_000), _decision, "R dcurves::dca", r=_decision_r),
]


# --------------------------------------------------------------------------------------
# timing


def _time(fn, reps):
    fn()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


_PEER = """
import json, statistics, sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import numpy as np
import {module}
from benchmarks.bench_clinical import binary
p, y = binary({n})
f = lambda: {code}
f()
ts = []
for _ in range({reps}):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
print(json.dumps({{"seconds": statistics.median(ts)}}))
"""


def _peer_python(module):
    for exe in (PEERS_PYTHON, sys.executable):
        if exe and os.path.exists(exe):
            ok = subprocess.run([exe, "-c", f"import {module}"], capture_output=True).returncode == 0
            if ok:
                return exe
    return None


def time_peer(row, n, reps):
    """The peer's median seconds, or ``(None, why)``."""
    label, module, code = row.peer
    exe = _peer_python(module)
    if exe is None:
        return None, f"{module} is not importable (set CALSTATS_BENCH_PEERS to an environment that has it)"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([exe, "-c", _PEER.format(root=root, module=module, n=n, code=code, reps=reps)],
                          capture_output=True, text=True, timeout=7200)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"], None


def time_reference(row, n, reps, rscript):
    if row.peer is not None:
        return time_peer(row, n, reps)
    if row.special == "valprobci":
        if n > 10_000:
            return None, "R's val.prob.ci.2 forms an n x n loess operator for its band: timed at 10^4 only"
        from .bench_valprobci import time_r

        res, why = time_r(n)
        return (None, why) if res is None else (res["seconds"], None)
    if rscript is None:
        return None, "Rscript is not on PATH"
    case = row.r(n)
    return rprobcal.time_case(rscript, case, row.r_reps.get(n, reps))


def run(rows=None, reps=3, small=False, r=True, log=sys.stderr, json_path=None):
    """Time the rows; returns a list of dicts (one per row and size). A calstats call that
    raises is recorded (``error``) and the run goes on; ``json_path`` is rewritten after
    every measurement."""
    rscript = shutil.which("Rscript") if r else None
    out = []
    for row in ROWS:
        if rows and row.key not in rows:
            continue
        prev = None
        for n in row.sizes:
            if small:
                n = max(500, n // 20)
            print(f"  clinical: {row.label} n={n} ...", file=log, flush=True)
            try:
                ours = _time(row.ours(n), reps)
            except Exception as err:  # noqa: BLE001 - recorded, the other rows still run
                print(f"  clinical: {row.label} n={n} failed ({type(err).__name__}: {err})", file=log, flush=True)
                out.append({"key": row.key, "function": row.label, "n": n, "calstats": None,
                            "reference": row.reference, "reference_s": None, "why": None, "growth": None,
                            "error": f"{type(err).__name__}: {err}"})
                prev = None
                continue
            ref, why = time_reference(row, n, reps, rscript) if (r or row.peer) else (None, "--no-r")
            growth = None if prev is None else math.log(ours / prev[1]) / math.log(n / prev[0])
            out.append({"key": row.key, "function": row.label, "n": n, "calstats": ours, "reference": row.reference,
                        "reference_s": ref, "why": why, "growth": growth})
            if why:
                print(f"  clinical: {row.reference} n={n} left out ({why})", file=log, flush=True)
            prev = (n, ours)
            if json_path:
                with open(json_path, "w") as fh:
                    json.dump(out, fh, indent=1)
    return out


def markdown(results):
    lines = ["| function | n | calstats s | reference | reference s | reference / calstats | calstats growth |",
             "| --- | ---: | ---: | --- | ---: | ---: | ---: |"]
    for r in results:
        if r.get("error"):
            lines.append(f"| {r['function']} | {r['n']:,} | failed: {r['error']} | {r['reference']} | | | |")
            continue
        ref = "" if r["reference_s"] is None else f"{r['reference_s']:.3f}"
        ratio = "" if r["reference_s"] is None else f"{r['reference_s'] / r['calstats']:.1f}x"
        growth = "" if r["growth"] is None else f"{r['growth']:.2f}"
        lines.append(f"| {r['function']} | {r['n']:,} | {r['calstats']:.3f} | {r['reference']} | {ref} | {ratio} | "
                     f"{growth} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_clinical", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", choices=[r.key for r in ROWS])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--small", action="store_true", help="sizes divided by 20 (a check of the harness)")
    ap.add_argument("--no-r", action="store_true")
    ap.add_argument("--json", help="also write the measurements to this file")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", file=sys.stderr)
    res = run(args.rows, args.reps, args.small, not args.no_r, json_path=args.json)
    print(markdown(res))


if __name__ == "__main__":
    main()
