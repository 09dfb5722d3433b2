"""Time temperature and vector scaling at deep-network scale against scikit-learn.

Run: ``python benchmarks/bench_deep.py [--n 50000] [--k 1000] [--seed 20250101]
[--only temperature temperature_fast vector vector_fast sklearn] [--engine numpy]``.

The data (:func:`benchmarks.data.deep_logits`, also the runner's ``deep`` group:
``python -m benchmarks --only deep``): ``n x K`` logits drawn from N(0, 9) and labels
drawn from ``softmax(z / 2)`` (an over-confident network whose temperature is about 2),
with a fixed seed. Each method runs in a fresh subprocess so that it starts from a cold
process and its peak memory is its own. scikit-learn's multiclass temperature scaling is
``CalibratedClassifierCV(FrozenEstimator(passthrough), method="temperature")`` on the
same logits (a classifier whose ``decision_function`` is its input); when scikit-learn is
not importable here, ``--sklearn-python`` names an interpreter that has it.

``temperature`` and ``vector`` use R's engine (R's numbers, bit for bit);
``temperature_fast`` and ``vector_fast`` the fast engine (``engine="fast"``: vectorised
``exp``, pairwise sums; the same optimum, not R's bits). ``--engine numpy`` times R's
engine with calstats' NumPy reference objectives (the bit oracle of the compiled ones)
instead of the compiled core: the "before" of the compiled objectives.
"""

import argparse
import json
import os
import subprocess
import sys
import time

#: The contenders: calstats with R's engine (its compiled core, or with --engine numpy its
#: NumPy reference), calstats with the fast engine, scikit-learn.
_LABELS = {"temperature": "calstats cal_temperature (R's engine, {engine})",
           "temperature_fast": "calstats cal_temperature (engine='fast')",
           "vector": "calstats cal_vector_scaling (R's engine, {engine})",
           "vector_fast": "calstats cal_vector_scaling (engine='fast')",
           "sklearn": "sklearn CalibratedClassifierCV(temperature)"}


def _import_data():
    """:mod:`benchmarks.data` (the runner's generators) also when run as a script."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import data

    return data


def _child(method, n, k, seed, engine):
    import resource


    Z, y = _import_data().deep_logits(n, k, seed)
    out = {}
    if method == "sklearn":
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.frozen import FrozenEstimator

        from benchmarks.peers import passthrough

        t0 = time.perf_counter()
        cal = CalibratedClassifierCV(FrozenEstimator(passthrough(k)), method="temperature").fit(Z, y)
        out["seconds"] = time.perf_counter() - t0
        out["temperature"] = float(1.0 / cal.calibrated_classifiers_[0].calibrators[0].beta_)
    else:
        import calstats
        from calstats.calibrators import scaling

        if engine == "numpy":
            scaling.BACKEND = "numpy"
        codes = y + 1
        arithmetic = "fast" if method.endswith("_fast") else "r"
        t0 = time.perf_counter()
        if method.startswith("temperature"):
            fit = calstats.cal_temperature(Z, codes, engine=arithmetic)
            out["temperature"] = fit.temperature
        else:
            fit = calstats.cal_vector_scaling(Z, codes, engine=arithmetic)
            out["counts"] = list(fit.counts)
            out["scale1"] = float(fit.scale[0])
        out["seconds"] = time.perf_counter() - t0
        out["value"] = float(fit.value)
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out))


def _run(python, method, args):
    cmd = [python, os.path.abspath(__file__), "--child", method, "--n", str(args.n), "--k", str(args.k),
           "--seed", str(args.seed), "--engine", args.engine]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "failed"}
    return json.loads(res.stdout.strip().splitlines()[-1])


def _have_sklearn(python):
    code = "import sklearn.frozen, sklearn.calibration"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--k", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=_import_data().DEEP_SEED)
    ap.add_argument("--only", nargs="+", choices=list(_LABELS),
                    default=["temperature", "temperature_fast", "sklearn", "vector", "vector_fast"])
    ap.add_argument("--engine", choices=["c", "numpy"], default="c")
    ap.add_argument("--sklearn-python", default=None, help="interpreter with scikit-learn (default: this one)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.n, args.k, args.seed, args.engine)
        return
    rows = []
    for method in args.only:
        python = sys.executable
        if method == "sklearn":
            python = args.sklearn_python or sys.executable
            if not _have_sklearn(python):
                rows.append((method, {"error": f"scikit-learn not importable by {python}"}))
                continue
        rows.append((method, _run(python, method, args)))
    labels = {name: label.format(engine=args.engine) for name, label in _LABELS.items()}
    print(f"n = {args.n}, K = {args.k}, seed = {args.seed}")
    print(f"{'method':48s} {'seconds':>9s} {'peak MiB':>9s}  result")
    for method, r in rows:
        if "error" in r:
            print(f"{labels[method]:48s} {'-':>9s} {'-':>9s}  {r['error']}")
            continue
        detail = ", ".join(f"{key}={r[key]!r}" for key in ("temperature", "value", "counts", "scale1") if key in r)
        print(f"{labels[method]:48s} {r['seconds']:9.2f} {r['peak_mib']:9.0f}  {detail}")


if __name__ == "__main__":
    main()
