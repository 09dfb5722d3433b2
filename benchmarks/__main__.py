"""Benchmarks: calstats against the tools users would otherwise pick, in one process.

Run ``python -m benchmarks`` (quick set) or ``python -m benchmarks --full``. Each case
builds fixed-seed synthetic data, then times every contender with interleaved repetitions
(contender A, B, C, A, B, C, ...) and reports the median seconds, the ratio to calstats and
the log-loss of the fitted calibrator on held-out data, so that speed is compared at equal
quality. Peers are timed only when importable (``pip install -e '.[bench]'``; see
benchmarks/README.md for dirichletcal and netcal). R's probcal is timed too when
``Rscript`` can load it (:mod:`benchmarks.rprobcal`; ``--no-r`` to leave it out): same data,
repetitions inside R, R's median reported next to the others. Output: a Markdown table.
"""

import argparse
import platform
import statistics
import sys
import time

import numpy as np

from . import peers, rprobcal
from .data import binary_case, deep_case, multiclass_case


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


def run_case(name, contenders, reps, evaluate, r=None, r_case=None, r_reps=None):
    """Interleave repetitions of every contender; return rows of the result table.

    The first contender (calstats) is the base of the ratios. A peer that raises is left
    out with a note on stderr. ``r_case`` is ``(label, rprobcal.RCase)``, timed in R when
    ``r`` (the path of Rscript) is given, with ``r_reps`` repetitions (default ``reps``).
    """
    times = {c: [] for c in contenders}
    fitted = {}
    first = next(iter(contenders))
    failed = set()
    for _ in range(reps):
        for label, fit in contenders.items():
            if label in failed:
                continue
            t0 = time.perf_counter()
            try:
                fitted[label] = fit()
            except Exception as err:
                if label == first:
                    raise
                failed.add(label)
                print(f"  {name}: {label} left out ({type(err).__name__}: {err})", file=sys.stderr)
                continue
            times[label].append(time.perf_counter() - t0)
    base = statistics.median(times[first])
    rows = []
    for label in contenders:
        if label in failed:
            continue
        med = statistics.median(times[label])
        quality = evaluate(fitted[label]) if evaluate else None
        rows.append((name, label, med, med / base, quality))
    if r is not None and r_case is not None:
        label, case = r_case
        med, why = rprobcal.time_case(r, case, reps if r_reps is None else r_reps)
        if med is None:
            print(f"  {name}: {label} left out ({why})", file=sys.stderr)
        else:
            rows.append((name, label, med, med / base, None))
    return rows


def _r_value(x):
    return "NULL" if x is None else repr(float(x))


def dirichlet_cases(full, r=None):
    import pandas as pd

    import calstats

    # (n, K, lambdas, labels as a factor with all K levels): the quick set, then issue 11's
    # targets at K = 50 (n = 100 leaves classes out, so the labels must carry every level)
    sizes = [(2000, 3, (None, 1e-3), False), (10_000, 10, (None, 1e-3), False),
             (100, 50, (1e-2,), True), (2000, 50, (1e-2,), True)]
    if full:
        sizes += [(10_000, 30, (None, 1e-3), False), (50_000, 10, (None, 1e-3), False),
                  (2000, 100, (None, 1e-3), False), (10_000, 100, (1e-2,), True)]
    rows = []
    for n, k, lambdas, factor in sizes:
        tr, te = multiclass_case(n, k)
        p, y = tr
        pt, yt = te
        labels = pd.Categorical(y + 1, categories=range(1, k + 1)) if factor else y + 1
        for lam in lambdas:
            label = "select" if lam is None else f"{lam:g}"
            contenders = {"calstats.cal_dirichlet": lambda lam=lam, labels=labels: calstats.cal_dirichlet(p, labels, lambda_=lam)}
            contenders.update(peers.dirichlet(p, y, lam))
            reps = 3 if n * k <= 100_000 else 1
            r_case = ("R probcal::cal_dirichlet",
                      rprobcal.RCase(f"cal_dirichlet(p, y, lambda = {_r_value(lam)})", {"p": p, "y": y + 1},
                                     {"y": k} if factor else {}))

            def evaluate(fit, pt=pt, yt=yt):
                prob = fit.predict(pt) if hasattr(fit, "r_class") else fit.predict_proba(pt)
                return _log_loss(np.asarray(prob), yt)

            rows += run_case(f"dirichlet n={n} K={k} lambda={label}", contenders, reps, evaluate, r, r_case)
    return rows


def scaling_cases(full, r=None):
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
            r_case = (f"R probcal::{fname}", rprobcal.RCase(f"{fname}(z, y)", {"z": z, "y": y + 1}))

            def evaluate(fit, zt=zt, pt=pt, yt=yt):
                prob = fit.predict(zt) if hasattr(fit, "r_class") else fit.transform(pt)
                return _log_loss(np.asarray(prob), yt)

            rows += run_case(f"{fname} n={n} K={k}", contenders, 5, evaluate, r, r_case)
    for n in [10_000] + ([100_000] if full else []):
        (s, y), (st, yt) = binary_case(n)
        for fname, method in (("cal_platt", "sigmoid"), ("cal_isotonic", "isotonic")):
            fn = getattr(calstats, fname)
            x = s if fname == "cal_platt" else 1 / (1 + np.exp(-s))
            xt = st if fname == "cal_platt" else 1 / (1 + np.exp(-st))
            contenders = {f"calstats.{fname}": lambda fn=fn, x=x: fn(x, y)}
            contenders.update(peers.sklearn_calibration(x, y, method))
            r_case = (f"R probcal::{fname}", rprobcal.RCase(f"{fname}(x, y)", {"x": x, "y": y}))

            def evaluate(fit, xt=xt, yt=yt):
                prob = fit.predict(xt) if hasattr(fit, "r_class") else fit.predict_proba(xt[:, None])[:, 1]
                return _log_loss(prob, yt)

            rows += run_case(f"{fname} n={n}", contenders, 5, evaluate, r, r_case)
    return rows


#: The deep-network case: n rows of K logits (:func:`benchmarks.data.deep_logits`).
DEEP_N, DEEP_K = 50_000, 1_000


def deep_cases(full, r=None, fnames=("cal_temperature", "cal_vector_scaling")):
    """Temperature and vector scaling at deep-network scale (n = 50 000, K = 1 000 logits).

    Python contenders get 3 repetitions; R gets one fit (its warm-up, about 35 s for
    temperature), and vector scaling in R takes far longer still (``fnames`` picks the
    functions, e.g. to time R on temperature alone).
    """
    import calstats

    rows = []
    (z, y), (zt, yt) = deep_case(DEEP_N, DEEP_K)
    for fname in fnames:
        fn = getattr(calstats, fname)
        contenders = {f"calstats.{fname}": lambda fn=fn: fn(z, y + 1),
                      f"calstats.{fname}(engine='fast')": lambda fn=fn: fn(z, y + 1, engine="fast")}
        if fname == "cal_temperature":
            contenders.update(peers.sklearn_temperature(z, y))
            if "netcal" in peers.available():
                p = np.exp(z - z.max(axis=1, keepdims=True))
                p /= p.sum(axis=1, keepdims=True)
                contenders.update(peers.temperature(p, y))
        r_case = (f"R probcal::{fname}", rprobcal.RCase(f"{fname}(z, y)", {"z": z, "y": y + 1}))

        def evaluate(fit):
            if hasattr(fit, "r_class"):
                prob = fit.predict(zt)
            elif hasattr(fit, "predict_proba"):
                prob = fit.predict_proba(zt)
            else:  # netcal, on probabilities
                pt = np.exp(zt - zt.max(axis=1, keepdims=True))
                prob = fit.transform(pt / pt.sum(axis=1, keepdims=True))
            return _log_loss(np.asarray(prob), yt)

        rows += run_case(f"{fname} n={DEEP_N} K={DEEP_K}", contenders, 3, evaluate, r, r_case, r_reps=1)
    return rows


def venn_abers_cases(full, r=None):
    """Inductive Venn-Abers: fit on n calibration rows and predict n test rows (both timed)."""
    from calstats.calibrators.venn_abers import cal_venn_abers

    rows = []
    for n in [10_000, 100_000] + ([1_000_000] if full else []):
        (s, y), (st, yt) = binary_case(n)
        p, pt = 1 / (1 + np.exp(-s)), 1 / (1 + np.exp(-st))
        contenders = {"calstats.cal_venn_abers": lambda p=p, y=y, pt=pt: cal_venn_abers(p, y).predict(pt)}
        contenders.update(peers.venn_abers(p, y, pt))
        rows += run_case(f"cal_venn_abers n={n} (+{n} test)", contenders, 5 if n <= 100_000 else 1,
                         lambda pred, yt=yt: _log_loss(pred, yt))
    return rows


#: R builds mmce's n x n kernel matrix (8 n^2 bytes): timed in R up to this n only.
R_MMCE_MAX_N = 10_000


def metric_cases(full, r=None):
    import calstats

    rows = []
    for n in [10_000, 100_000] + ([1_000_000] if full else []):
        (p, y), _ = multiclass_case(n, 10, fit_labels=False)
        conf, correct = p.max(axis=1), (p.argmax(axis=1) == y).astype(int)
        # Both input forms of calstats: the n x K matrix with class labels (checks and top
        # label included), and the confidence/correctness vectors the peers are handed.
        cases = {
            "ece (confidence)": ({"calstats.ece(p, y)": lambda: calstats.ece(p, y + 1, type="confidence"),
                                  "calstats.ece(conf, correct)": lambda: calstats.ece(conf, correct)},
                                 peers.ece(p, y),
                                 ("R probcal::ece", rprobcal.RCase('ece(p, y, type = "confidence")', {"p": p, "y": y + 1}))),
            "mmce": ({"calstats.mmce": lambda: calstats.mmce(conf, correct)}, {},
                     ("R probcal::mmce", rprobcal.RCase("mmce(conf, correct)", {"conf": conf, "correct": correct}))
                     if n <= R_MMCE_MAX_N else None),
        }
        if hasattr(calstats, "skce"):
            cases["skce (confidence)"] = ({"calstats.skce": lambda: calstats.skce(p, y + 1)}, {}, None)
        for cname in ("cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test"):
            fn = getattr(calstats, cname, None)
            if fn is not None:
                ours = {f"calstats.{cname}(p, y)": lambda fn=fn: fn(p, y + 1),
                        f"calstats.{cname}(conf, correct)": lambda fn=fn: fn(conf, correct)}
                cases[cname] = (ours, peers.calibration_test(cname, conf, correct), None)
        for cname, (ours, theirs, r_case) in cases.items():
            rows += run_case(f"{cname} n={n}", {**ours, **theirs}, 5, None, r, r_case)
    return rows


def markdown(rows):
    lines = ["| case | contender | median s | ratio to calstats | held-out log-loss |",
             "| --- | --- | ---: | ---: | ---: |"]
    for case, label, med, ratio, quality in rows:
        q = "" if quality is None else f"{quality:.5f}"
        lines.append(f"| {case} | {label} | {med:.4f} | {ratio:.2f} | {q} |")
    return "\n".join(lines)


def r_contender(skip):
    """``(path of Rscript or None, one line saying whether and which R probcal is timed)``."""
    if skip:
        return None, "R probcal: skipped (--no-r)"
    ok, info = rprobcal.status()
    if not ok:
        return None, f"R probcal: skipped ({info})"
    return info, f"R probcal: {rprobcal.version(info) or 'probcal'} via {info}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the larger sizes and the deep group (minutes to hours)")
    ap.add_argument("--only", choices=["dirichlet", "scaling", "metrics", "venn_abers", "deep", "dirichlet_large",
                                       "clinical"], nargs="*")
    ap.add_argument("--no-r", action="store_true", help="do not time R's probcal even when Rscript can load it")
    args = ap.parse_args(argv)
    import calstats

    r, r_note = r_contender(args.no_r)
    print(r_note, file=sys.stderr)
    from .bench_deep_memory import memory_cases
    from .bench_dirichlet_large import dirichlet_large_cases

    groups = {"dirichlet": dirichlet_cases, "scaling": scaling_cases, "metrics": metric_cases,
              "venn_abers": venn_abers_cases,
              # n = 50 000 x 1 000 logits, then the float32 n = 10^6 x 1 000 rows in fresh
              # processes with their peak memory (a small size without --full)
              "deep": lambda full, r: deep_cases(full, r) + memory_cases(full, r),
              "dirichlet_large": dirichlet_large_cases}
    # the deep-network, K = 100 and clinical groups (minutes; gigabytes) only with --full or --only
    default = [name for name in groups if name not in ("deep", "dirichlet_large") or args.full]
    if args.full:
        default.append("clinical")
    rows = []
    clinical = None
    for name in args.only or default:
        print(f"running {name} ...", file=sys.stderr)
        if name == "clinical":
            # its own table: R's clinical packages and the peers' environment, two sizes per
            # function with calstats' growth exponent (benchmarks/bench_clinical.py)
            from . import bench_clinical

            clinical = bench_clinical.run(r=not args.no_r)
            continue
        rows += groups[name](args.full, r)
    print(f"calstats {calstats.__version__}; Python {platform.python_version()}; {platform.machine()}; "
          f"peers: {', '.join(peers.available()) or 'none'}; {r_note}\n")
    if rows:
        print(markdown(rows))
    if clinical is not None:
        from . import bench_clinical

        print("\nClinical functions beside R and the Python peers (reference / calstats above 1: calstats "
              "faster):\n")
        print(bench_clinical.markdown(clinical))


if __name__ == "__main__":
    main()
