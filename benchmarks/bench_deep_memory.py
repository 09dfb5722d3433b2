"""Peak memory and time of temperature scaling and the ECEs on float32 matrices too large
to copy: n = 1 000 000 rows, K = 1 000 classes (4 GB as float32, 8 GB as float64).

Run: ``python -m benchmarks.bench_deep_memory [--n 1000000] [--k 1000]
[--only temperature temperature_fast sklearn ece_classwise ece_classwise_fast ece_confidence
ece_confidence_fast top_label_ece top_label_ece_fast predict_blocks predict_dask]
[--sklearn-limit-gib 16]``. A case ending in ``_fast`` is the same call with
``engine="fast"``.

Every measured operation runs in a fresh subprocess, which builds its own input and then
reports its peak resident memory during the operation (``resource.getrusage(RUSAGE_SELF)
.ru_maxrss`` after the count is restarted once the input is made, through Linux's
``/proc/self/clear_refs``: interpreter, resident input and the operation's own memory), its
resident memory just before the operation, and the operation's wall time. The inputs are made in blocks of 4 096 rows
straight into one preallocated float32 array (no file, no float64 copy of the whole):
each block is :func:`benchmarks.data.deep_logits` (N(0, 9) logits, labels drawn from
``softmax(z / 2)``) with its own seed; the probability matrix of the ECEs is
``softmax(z)`` of those logits (computed in float64, stored as float32). The target is a
peak below the input plus 1 GiB.

scikit-learn's temperature scaling (``CalibratedClassifierCV(FrozenEstimator(...),
method="temperature")``) runs under an address-space limit (``RLIMIT_AS``,
``--sklearn-limit-gib``, default 16 GiB) so that it cannot take the machine's memory: when
it needs more it fails with ``MemoryError`` and the table says so. ``predict_blocks`` writes
the calibrated probabilities of the float32 logits into a preallocated float32 array,
``fit.predict`` of 8 192 rows at a time (the route for results too large for a float64
DataFrame); ``predict_dask`` does the same through ``dask.array.store`` of
``fit.predict(dask_array)``.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

#: Rows per generated block (float64 temporaries of about 4 x 33 MB at K = 1 000).
GEN_ROWS = 4096
#: Seeds of the blocks: block b uses GEN_SEED + b.
GEN_SEED = 20250601
CASES = ("temperature", "temperature_fast", "sklearn", "ece_classwise", "ece_classwise_fast", "ece_confidence",
         "ece_confidence_fast", "top_label_ece", "top_label_ece_fast", "predict_blocks", "predict_dask")
LABELS = {
    "temperature": "calstats.cal_temperature(Z32, y)",
    "temperature_fast": "calstats.cal_temperature(Z32, y, engine='fast')",
    "ece_classwise": 'calstats.ece(P32, y, type="classwise")',
    "ece_classwise_fast": 'calstats.ece(P32, y, type="classwise", engine="fast")',
    "ece_confidence": 'calstats.ece(P32, y, type="confidence")',
    "ece_confidence_fast": 'calstats.ece(P32, y, type="confidence", engine="fast")',
    "top_label_ece": "calstats.top_label_ece(P32, y)",
    "top_label_ece_fast": 'calstats.top_label_ece(P32, y, engine="fast")',
    "sklearn": "sklearn CalibratedClassifierCV(temperature)",
    "predict_blocks": "fit.predict(Z32[rows]) into float32, 8192 rows at a time",
    "predict_dask": "fit.predict(dask Z32) stored into float32",
}


def _data():
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import data

    return data


def _rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _peak_mib():
    """The process's peak RSS since :func:`_reset_peak`: Linux's ``VmHWM`` (which
    ``clear_refs`` resets and ``exec`` starts afresh), else ``ru_maxrss`` (which keeps the
    parent's peak across ``exec``, so a runner holding other data would show its size)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak():
    """Restart the peak-memory count here (Linux: ``/proc/self/clear_refs``), so that the
    peak is the operation's and not the input's making; False when not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def make_inputs(n, k, probabilities=False, temperature=1.0):
    """``(X, y)``: float32 logits (or ``softmax(z / temperature)``) and 0-based labels,
    built block by block into one preallocated float32 array."""
    deep_logits = _data().deep_logits
    X = np.empty((n, k), dtype=np.float32)
    y = np.empty(n, dtype=np.int64)
    for b, i0 in enumerate(range(0, n, GEN_ROWS)):
        i1 = min(n, i0 + GEN_ROWS)
        z, yb = deep_logits(i1 - i0, k, GEN_SEED + b)
        if probabilities:
            z = z / temperature
            z = np.exp(z - z.max(axis=1, keepdims=True))
            z /= z.sum(axis=1, keepdims=True)
        X[i0:i1] = z
        y[i0:i1] = yb
    return X, y


def _child(case, n, k, limit_gib):
    import gc

    out = {"case": case}
    t0 = time.perf_counter()
    engine = "fast" if case.endswith("_fast") else "r"
    case = case.removesuffix("_fast")
    probs = case in ("ece_classwise", "ece_confidence", "top_label_ece")
    X, y = make_inputs(n, k, probabilities=probs)
    out["make_seconds"] = time.perf_counter() - t0
    out["input_mib"] = X.nbytes / 2**20
    codes = y + 1
    if case == "sklearn":
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.frozen import FrozenEstimator

        from benchmarks.peers import passthrough

        limit = int(limit_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    else:
        import calstats
    if case.startswith("predict"):
        if case == "predict_dask":
            import dask
            import dask.array as da

        fit = calstats.cal_temperature(X[:50_000], codes[:50_000])
        P = np.empty((n, k), dtype=np.float32)
        P[:] = 0.0  # resident before the peak is reset: the output counts like the input
        out["output_mib"] = P.nbytes / 2**20
    gc.collect()
    out["rss_before_mib"] = _rss_mib()
    out["peak_reset"] = _reset_peak()
    t0 = time.perf_counter()
    try:
        if case == "temperature":
            fit = calstats.cal_temperature(X, codes, engine=engine)
            out["result"] = {"temperature": fit.temperature, "value": fit.value}
        elif case == "sklearn":
            cal = CalibratedClassifierCV(FrozenEstimator(passthrough(k)), method="temperature").fit(X, y)
            out["result"] = {"temperature": float(1.0 / cal.calibrated_classifiers_[0].calibrators[0].beta_)}
        elif case == "predict_blocks":
            for i0 in range(0, n, 8192):
                P[i0:i0 + 8192] = fit.predict(X[i0:i0 + 8192])
            out["result"] = {"temperature": fit.temperature, "p[0,0]": float(P[0, 0])}
        elif case == "predict_dask":
            with dask.config.set(scheduler="threads", num_workers=2):
                da.store(fit.predict(da.from_array(X, chunks=(2048, k))).astype(np.float32), P)
            out["result"] = {"temperature": fit.temperature, "p[0,0]": float(P[0, 0])}
        else:
            if case == "top_label_ece":
                value = calstats.top_label_ece(X, codes, engine=engine)
            else:
                value = calstats.ece(X, codes, type=case.split("_")[1], engine=engine)
            out["result"] = {"ece": value}
        out["seconds"] = time.perf_counter() - t0
    except MemoryError:
        out["seconds"] = time.perf_counter() - t0
        out["error"] = f"MemoryError under RLIMIT_AS = {limit_gib:g} GiB"
    out["peak_mib"] = _peak_mib()
    print(json.dumps(out))


def run(case, n, k, limit_gib=16.0, python=None):
    """One case in a fresh subprocess: its JSON report (``error`` when it failed)."""
    cmd = [python or sys.executable, "-m", "benchmarks.bench_deep_memory", "--child", case, "--n", str(n),
           "--k", str(k), "--sklearn-limit-gib", str(limit_gib)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines:
        tail = res.stderr.strip().splitlines()
        return {"case": case, "error": tail[-1] if tail else f"exit status {res.returncode}"}
    return json.loads(lines[-1])


def _have(module, python=None):
    return subprocess.run([python or sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def memory_cases(full, r=None, n=1_000_000, k=1_000, cases=None):
    """The runner's rows (case, contender, seconds, ratio, quality) of the float32
    deep-network cases; the contender's label carries its peak memory and the case's
    name the input's size. ``full`` False runs a small size (n = 20 000) as a check."""
    if not full:
        n = 20_000
    rows = []
    base = {}
    for case in cases or CASES:
        if case == "sklearn" and not _have("sklearn"):
            continue
        if case == "predict_dask" and not _have("dask"):
            continue
        out = run(case, n, k)
        what = "temperature" if case in ("temperature", "temperature_fast", "sklearn") else case.removesuffix("_fast")
        name = f"{what} n={n} K={k} float32 ({out.get('input_mib', n * k * 4 / 2**20):.0f} MiB)"
        if "error" in out:
            print(f"  {name}: {LABELS[case]} left out ({out['error']})", file=sys.stderr)
            continue
        base.setdefault(what, out["seconds"])
        label = f"{LABELS[case]} [peak {out['peak_mib']:.0f} MiB]"
        rows.append((name, label, out["seconds"], out["seconds"] / base[what], None))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=1_000)
    ap.add_argument("--only", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--sklearn-limit-gib", type=float, default=16.0)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.n, args.k, args.sklearn_limit_gib)
        return
    print(f"n = {args.n}, K = {args.k}; input {args.n * args.k * 4 / 2**20:.0f} MiB float32; "
          f"target: peak below input + 1024 MiB")
    print("| operation | seconds | peak RSS MiB | RSS before MiB | peak - input MiB | result |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for case in args.only:
        if case == "sklearn" and not _have("sklearn"):
            print(f"| {LABELS[case]} | - | - | - | - | scikit-learn not importable |")
            continue
        out = run(case, args.n, args.k, args.sklearn_limit_gib)
        if "error" in out and "peak_mib" not in out:
            print(f"| {LABELS[case]} | - | - | - | - | {out['error']} |")
            continue
        result = out.get("error") or ", ".join(f"{key}={val!r}" for key, val in out["result"].items())
        extra = out["input_mib"] + out.get("output_mib", 0.0)
        print(f"| {LABELS[case]} | {out['seconds']:.2f} | {out['peak_mib']:.0f} | {out['rss_before_mib']:.0f} | "
              f"{out['peak_mib'] - extra:.0f} | {result} |", flush=True)


if __name__ == "__main__":
    main()
