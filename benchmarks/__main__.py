"""Benchmarks: calstats against the tools users would otherwise pick, in one process.

Run ``python -m benchmarks`` (quick set) or ``python -m benchmarks --full``. Each case
builds fixed-seed synthetic data, then times every contender with interleaved repetitions
(contender A, B, C, A, B, C, ...) and reports the median seconds, the ratio to calstats and
the log-loss of the fitted calibrator on held-out data, so that speed is compared at equal
quality. Peers are timed only when importable (``pip install -e '.[bench]'``; see
benchmarks/README.md for dirichletcal and netcal). Output: a Markdown table.
"""

import argparse
import platform
import statistics
import sys
import time

import numpy as np

from . import peers
from .data import binary_case, multiclass_case


def _log_loss(p, y):
    p = np.clip(np.asarray(p, dtype=float), 1e-15, 1 - 1e-15)
    if p.ndim == 1:
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))
    return float(-np.mean(np.log(p[np.arange(len(y)), y])))


def _time(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def run_case(name, contenders, reps, evaluate):
    """Interleave repetitions of every contender; return rows of the result table."""
    times = {c: [] for c in contenders}
    fitted = {}
    for _ in range(reps):
        for label, fit in contenders.items():
            t0 = time.perf_counter()
            fitted[label] = fit()
            times[label].append(time.perf_counter() - t0)
    base = statistics.median(times[next(iter(contenders))])
    rows = []
    for label in contenders:
        med = statistics.median(times[label])
        quality = evaluate(fitted[label]) if evaluate else None
        rows.append((name, label, med, med / base, quality))
    return rows


def dirichlet_cases(full):
    import calstats

    sizes = [(2000, 3), (10_000, 10)] + ([(10_000, 30), (50_000, 10), (2000, 100)] if full else [])
    rows = []
    for n, k in sizes:
        tr, te = multiclass_case(n, k)
        p, y = tr
        pt, yt = te
        for lam in (None, 1e-3):
            label = "select" if lam is None else f"{lam:g}"
            contenders = {"calstats.cal_dirichlet": lambda lam=lam: calstats.cal_dirichlet(p, y + 1, lambda_=lam)}
            contenders.update(peers.dirichlet(p, y, lam))
            reps = 3 if n * k <= 100_000 else 1

            def evaluate(fit, pt=pt, yt=yt):
                prob = fit.predict(pt) if hasattr(fit, "r_class") else fit.predict_proba(pt)
                return _log_loss(np.asarray(prob), yt)

            rows += run_case(f"dirichlet n={n} K={k} lambda={label}", contenders, reps, evaluate)
    return rows


def scaling_cases(full):
    import calstats

    rows = []
    for n, k in [(10_000, 10)] + ([(50_000, 30)] if full else []):
        (p, y), (pt, yt) = multiclass_case(n, k)
        z, zt = np.log(p), np.log(pt)
        for fname in ("cal_temperature", "cal_vector_scaling"):
            fn = getattr(calstats, fname)
            contenders = {f"calstats.{fname}": lambda fn=fn: fn(z, y + 1)}
            if fname == "cal_temperature":
                contenders.update(peers.temperature(p, y))

            def evaluate(fit, zt=zt, pt=pt, yt=yt):
                prob = fit.predict(zt) if hasattr(fit, "r_class") else fit.transform(pt)
                return _log_loss(np.asarray(prob), yt)

            rows += run_case(f"{fname} n={n} K={k}", contenders, 5, evaluate)
    for n in [10_000] + ([100_000] if full else []):
        (s, y), (st, yt) = binary_case(n)
        for fname, method in (("cal_platt", "sigmoid"), ("cal_isotonic", "isotonic")):
            fn = getattr(calstats, fname)
            x = s if fname == "cal_platt" else 1 / (1 + np.exp(-s))
            xt = st if fname == "cal_platt" else 1 / (1 + np.exp(-st))
            contenders = {f"calstats.{fname}": lambda fn=fn, x=x: fn(x, y)}
            contenders.update(peers.sklearn_calibration(x, y, method))

            def evaluate(fit, xt=xt, yt=yt):
                prob = fit.predict(xt) if hasattr(fit, "r_class") else fit.predict_proba(xt[:, None])[:, 1]
                return _log_loss(prob, yt)

            rows += run_case(f"{fname} n={n}", contenders, 5, evaluate)
    return rows


def metric_cases(full):
    import calstats

    rows = []
    for n in [10_000, 100_000] + ([1_000_000] if full else []):
        (p, y), _ = multiclass_case(n, 10, fit_labels=False)
        conf, correct = p.max(axis=1), (p.argmax(axis=1) == y).astype(int)
        cases = {
            "ece (confidence)": ({"calstats.ece": lambda: calstats.ece(p, y + 1, type="confidence")},
                                 peers.ece(p, y)),
            "mmce": ({"calstats.mmce": lambda: calstats.mmce(conf, correct)}, {}),
        }
        if hasattr(calstats, "skce"):
            try:
                cases["skce (confidence)"] = ({"calstats.skce": lambda: calstats.skce(p, y + 1)}, {})
            except Exception:  # pragma: no cover - optional until the inference layer lands
                pass
        for cname in ("cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test"):
            fn = getattr(calstats, cname, None)
            if fn is not None:
                cases[cname] = ({f"calstats.{cname}": lambda fn=fn: fn(p, y + 1)}, peers.calibration_test(cname, conf, correct))
        for cname, (ours, theirs) in cases.items():
            rows += run_case(f"{cname} n={n}", {**ours, **theirs}, 5, None)
    return rows


def markdown(rows):
    lines = ["| case | contender | median s | ratio to calstats | held-out log-loss |",
             "| --- | --- | ---: | ---: | ---: |"]
    for case, label, med, ratio, quality in rows:
        q = "" if quality is None else f"{quality:.5f}"
        lines.append(f"| {case} | {label} | {med:.4f} | {ratio:.2f} | {q} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the larger sizes (minutes)")
    ap.add_argument("--only", choices=["dirichlet", "scaling", "metrics"], nargs="*")
    args = ap.parse_args(argv)
    import calstats

    groups = {"dirichlet": dirichlet_cases, "scaling": scaling_cases, "metrics": metric_cases}
    rows = []
    for name in args.only or groups:
        print(f"running {name} ...", file=sys.stderr)
        rows += groups[name](args.full)
    print(f"calstats {calstats.__version__}; Python {platform.python_version()}; {platform.machine()}; "
          f"peers: {', '.join(peers.available()) or 'none'}\n")
    print(markdown(rows))


if __name__ == "__main__":
    main()
