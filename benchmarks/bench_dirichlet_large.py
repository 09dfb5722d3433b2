"""Dirichlet calibration at K = 100, n = 50 000: each optimiser's time, peak memory and
where it stops, beside dirichletcal.

Run: ``python -m benchmarks.bench_dirichlet_large [--n 50000] [--k 100] [--lambda 0]
[--only bfgs newton dirichletcal] [--peer-python PATH]``.

The full-matrix Dirichlet map has ``K (K + 1)`` parameters (10 100 at K = 100). Each
contender fits the runner's data (:func:`benchmarks.data.multiclass_case`: n training rows
and n held-out rows) in a fresh subprocess, so that its peak resident memory
(``getrusage``'s ``ru_maxrss``, data included) is its own, and hands back its weights. This
process then scores every contender's weights with the same code: the value and the
Euclidean gradient norm of calstats' objective (:func:`calstats.numerics.core.multinomial_eval_c`,
the mean negative log-likelihood plus the ODIR penalty at the given lambda) on the training
rows, and the log-loss on the held-out rows.

Contenders: calstats ``cal_dirichlet`` with ``optimizer="bfgs"`` (R's BFGS, the default,
which stops on a small relative decrease of the objective) and ``optimizer="newton"``
(truncated Newton to a gradient norm of 1e-9), and dirichletcal's
``FullDirichletCalibrator(reg_lambda=lambda)``. At K > 36 dirichletcal runs
``scipy.optimize.fmin_l_bfgs_b`` (``factr=1``, default ``pgtol=1e-5``) on a JAX objective
and gradient. Its ``fit`` also builds an ``n x (K + 1)^2`` array that this path never reads
(``XXT``, 4 GB at n = 50 000, K = 100, and three such arrays while it is built); above
:data:`PEER_XXT_MAX_BYTES` the benchmark runs dirichletcal's own L-BFGS call with the same
arguments but without that array (row label ``without XXT``; the same iterates, checked
bit for bit on a small case by ``--check-peer``). With lambda = 0 (dirichletcal's default)
both packages minimise the same function (the unpenalised mean log-likelihood of the same
model); with lambda > 0 dirichletcal penalises its reference-row-differenced weights
(towards 0, the diagonal and intercepts included), another objective, so its gradient norm
under calstats' objective is not a convergence measure then.

dirichletcal is run by the interpreter ``--peer-python`` names (default this one) when that
interpreter can import it, and is otherwise left out with a note. R's probcal is not timed
at this size (its BFGS is calstats' ``"bfgs"`` row, bit for bit).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

#: The issue's size: n training rows (and as many held-out rows), K classes.
N, K = 50_000, 100
#: The quick set's size (where dirichletcal's own ``fit`` stays under a gigabyte and a half).
QUICK_N = 5_000
#: Above this size of dirichletcal's unused ``XXT`` array (n (K + 1)^2 doubles) the
#: benchmark runs its L-BFGS call without it.
PEER_XXT_MAX_BYTES = 1 << 30
#: Seconds one contender may take before it is stopped and reported as timed out.
TIMEOUT = 4 * 3600

LABELS = {
    "bfgs": "calstats.cal_dirichlet(optimizer='bfgs')",
    "newton": "calstats.cal_dirichlet(optimizer='newton')",
    "dirichletcal": "dirichletcal.FullDirichletCalibrator",
}


def _import_data():
    """:mod:`benchmarks.data` (the runner's generators) also when run as a script."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import data

    return data


def _peak_mib():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _child_calstats(optimizer, n, k, lam, out):
    import numpy as np
    import pandas as pd

    import calstats

    (p, y), _ = _import_data().multiclass_case(n, k)
    labels = pd.Categorical(y + 1, categories=range(1, k + 1))
    t0 = time.perf_counter()
    fit = calstats.cal_dirichlet(p, labels, lambda_=lam, optimizer=optimizer, progress=False)
    seconds = time.perf_counter() - t0
    np.savez(out, weight=fit.weight, bias=fit.bias)
    return {"seconds": seconds, "peak_mib": _peak_mib(), "lambda": fit.lambda_, "iterations": repr(fit.iterations),
            "counts": list(fit.counts), "convergence": fit.convergence, "optimizer": fit.optimizer}


def _dirichletcal_lbfgs(p, y, lam):
    """dirichletcal's ``MultinomialRegression.fit`` for K > 36 (``optimizer="auto"``,
    ``method="Full"``, ``ref_row=True``) with its arguments, without the unused ``XXT``."""
    import numpy as raw_np
    import scipy.optimize
    from dirichletcal.calib import multinomial as mr
    from dirichletcal.utils import clip_for_log
    from sklearn.preprocessing import label_binarize

    jnp = mr.np  # jax.numpy, as dirichletcal imports it
    X = raw_np.log(clip_for_log(raw_np.copy(p)))  # FullDirichletCalibrator.fit's features
    X_ = jnp.hstack((X, jnp.ones((len(X), 1))))
    classes = raw_np.unique(y)
    k = len(classes)
    target = label_binarize(y, classes=classes)
    w0 = mr._get_identity_weights(k, True, "Full")

    def gradient(*args):
        return raw_np.array(mr._gradient(*args))

    res = scipy.optimize.fmin_l_bfgs_b(func=mr._objective, fprime=gradient, x0=w0,
                                       args=(X_, None, target, k, "Full", lam, None, True, "identity", None),
                                       maxls=128, factr=1.0)
    return raw_np.asarray(mr._get_weights(res[0], k, True, "Full")), res[2]


def _child_dirichletcal(n, k, lam, out, without_xxt):
    import numpy as np

    (p, y), _ = _import_data().multiclass_case(n, k)
    info = {}
    t0 = time.perf_counter()
    if without_xxt:
        weights, d = _dirichletcal_lbfgs(p, y, lam)
        info = {"iterations": int(d["nit"]), "counts": [int(d["funcalls"])], "message": str(d["task"]),
                "warnflag": int(d["warnflag"])}
    else:
        from dirichletcal import FullDirichletCalibrator

        weights = np.asarray(FullDirichletCalibrator(reg_lambda=lam).fit(p, y).weights)
    seconds = time.perf_counter() - t0
    np.savez(out, weight=weights[:, :-1], bias=weights[:, -1])
    return {"seconds": seconds, "peak_mib": _peak_mib(), **info}


def _score(weight, bias, n, k, lam):
    """calstats' objective (value, gradient norm) on the training rows and the held-out
    log-loss, of ``softmax(log(p) W^T + b)``."""
    import numpy as np

    from calstats.calibrators._multinomial import penalty_mask, predict_multinomial
    from calstats.numerics import libm
    from calstats.numerics.core import multinomial_eval_c

    (p, y), (pt, yt) = _import_data().multiclass_case(n, k)
    U = libm.log(np.clip(p, 1e-12, 1 - 1e-12))
    par = np.concatenate([np.asarray(weight, dtype=np.float64).ravel(order="F"), np.asarray(bias, dtype=np.float64)])
    mask_f = penalty_mask(k, k, "odir").ravel(order="F")
    value, grad = multinomial_eval_c(U, (y + 1).astype(np.int64), k, lam, mask_f, par, threads=None)
    prob = predict_multinomial(libm.log(np.clip(pt, 1e-12, 1 - 1e-12)), weight, bias)
    heldout = float(-np.mean(np.log(np.clip(prob[np.arange(len(yt)), yt], 1e-15, 1.0))))
    return {"value": float(value), "grad_norm": float(np.linalg.norm(grad)), "heldout": heldout}


def _lambda_text(lam):
    return "select" if lam is None else repr(float(lam))


def _lambda_arg(text):
    return None if text == "select" else float(text)


def has_dirichletcal(python):
    """Whether ``python`` can import dirichletcal (and its JAX)."""
    code = "import dirichletcal.calib.multinomial, sklearn.preprocessing"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def run_contender(name, n=N, k=K, lam=0.0, python=None, timeout=TIMEOUT):
    """Fit one contender in a fresh subprocess and score its weights here.

    Returns a dict with ``seconds``, ``peak_mib``, ``value``, ``grad_norm``, ``heldout`` and
    the contender's own fields, or ``{"error": why}``.
    """
    python = python or sys.executable
    without_xxt = name == "dirichletcal" and n * (k + 1) ** 2 * 8 > PEER_XXT_MAX_BYTES
    with tempfile.TemporaryDirectory(prefix="calstats-bench-dirlarge-") as tmp:
        out = os.path.join(tmp, "fit.npz")
        cmd = [python, os.path.abspath(__file__), "--child", name, "--n", str(n), "--k", str(k),
               "--lambda", _lambda_text(lam), "--out", out] + (["--without-xxt"] if without_xxt else [])
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"stopped after {timeout} s"}
        if res.returncode != 0:
            tail = res.stderr.strip().splitlines()
            return {"error": tail[-1] if tail else f"exit status {res.returncode}"}
        info = json.loads(res.stdout.strip().splitlines()[-1])
        import numpy as np

        with np.load(out) as fit:
            info.update(_score(fit["weight"], fit["bias"], n, k, info.get("lambda", lam)))
    info["without_xxt"] = without_xxt
    return info


def _label(name, info):
    label = LABELS[name] + (" without XXT" if info.get("without_xxt") else "")
    return f"{label} [peak {info['peak_mib']:.0f} MiB, |grad| {info['grad_norm']:.1e}]"


def dirichlet_large_cases(full, r=None, peer_python=None, lambdas=(0.0,)):
    """The runner's rows ``(case, contender, seconds, ratio to calstats, held-out log-loss)``.

    ``full``: n = 50 000 (else :data:`QUICK_N`), K = 100, one fit per contender (minutes;
    dirichletcal the longest). The contender's label carries its peak RSS and the
    gradient norm of calstats' objective at its weights. ``r`` is accepted for the runner's
    signature; R is not timed at this size. ``peer_python``: the interpreter that runs
    dirichletcal (default this one; left out with a note on stderr when it cannot import it).
    The base of the ratios is calstats' default (``"bfgs"``).
    """
    n = N if full else QUICK_N
    python = peer_python or sys.executable
    names = ["bfgs", "newton"]
    if has_dirichletcal(python):
        names.append("dirichletcal")
    else:
        print(f"  dirichlet K={K}: dirichletcal left out (not importable by {python})", file=sys.stderr)
    rows = []
    for lam in lambdas:
        case = f"dirichlet n={n} K={K} lambda={'select' if lam is None else f'{lam:g}'}"
        results = {}
        for name in names:
            if name == "dirichletcal" and lam != 0:
                continue  # another objective (see the module's notes)
            info = run_contender(name, n, K, lam, python if name == "dirichletcal" else None)
            if "error" in info:
                print(f"  {case}: {LABELS[name]} left out ({info['error']})", file=sys.stderr)
                continue
            results[name] = info
        base = results.get("bfgs", {}).get("seconds")
        for name, info in results.items():
            ratio = info["seconds"] / base if base else float("nan")
            rows.append((case, _label(name, info), info["seconds"], ratio, info["heldout"]))
    return rows


def _check_peer(python):
    """dirichletcal's ``fit`` (L-BFGS forced) and :func:`_dirichletcal_lbfgs` on a small case: same weights?"""
    code = f"""
import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
import numpy as np
from benchmarks.data import multiclass_case
from benchmarks.bench_dirichlet_large import _dirichletcal_lbfgs
from dirichletcal import FullDirichletCalibrator
(p, y), _ = multiclass_case(500, 8)
a = np.asarray(FullDirichletCalibrator(optimizer="fmin_l_bfgs_b").fit(p, y).weights)
b, d = _dirichletcal_lbfgs(p, y, 0.0)
print("same weights:", np.array_equal(a, b), "iterations:", d["nit"])
"""
    res = subprocess.run([python, "-c", code], capture_output=True, text=True)
    print(res.stdout.strip() or res.stderr.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=N)
    ap.add_argument("--k", type=int, default=K)
    ap.add_argument("--lambda", dest="lam", type=_lambda_arg, default=0.0,
                    help="the penalty (default 0, dirichletcal's default), or 'select' (calstats' cross-validated "
                         "choice; calstats only)")
    ap.add_argument("--only", nargs="+", choices=list(LABELS), default=list(LABELS))
    ap.add_argument("--peer-python", default=None, help="interpreter with dirichletcal (default: this one)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT)
    ap.add_argument("--check-peer", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--without-xxt", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        if args.child == "dirichletcal":
            info = _child_dirichletcal(args.n, args.k, args.lam, args.out, args.without_xxt)
        else:
            info = _child_calstats(args.child, args.n, args.k, args.lam, args.out)
        print(json.dumps(info))
        return
    python = args.peer_python or sys.executable
    if args.check_peer:
        _check_peer(python)
        return
    print(f"n = {args.n} (+ {args.n} held out), K = {args.k}, lambda = {_lambda_text(args.lam)}, "
          f"{args.k * (args.k + 1)} parameters")
    print(f"{'contender':58s} {'seconds':>8s} {'peak MiB':>9s} {'|grad|':>8s} {'objective':>19s} "
          f"{'held-out':>9s}  stop")
    for name in args.only:
        if name == "dirichletcal" and not has_dirichletcal(python):
            print(f"{LABELS[name]:58s} not importable by {python}")
            continue
        if name == "dirichletcal" and args.lam is None:
            print(f"{LABELS[name]:58s} no lambda search here (GridSearchCV would fit it 16 times)")
            continue
        info = run_contender(name, args.n, args.k, args.lam, python if name == "dirichletcal" else None,
                             args.timeout)
        label = LABELS[name] + (" without XXT" if info.get("without_xxt") else "")
        if "error" in info:
            print(f"{label:58s} {info['error']}")
            continue
        stop = ", ".join(f"{key} {info[key]}" for key in ("lambda", "iterations", "counts", "convergence", "message")
                         if key in info)
        print(f"{label:58s} {info['seconds']:8.1f} {info['peak_mib']:9.0f} {info['grad_norm']:8.1e} "
              f"{info['value']:19.15f} {info['heldout']:9.5f}  {stop}", flush=True)


if __name__ == "__main__":
    main()
