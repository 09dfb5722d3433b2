"""The fuzz harness shared by tests/test_fuzz.py (a brief run in CI, fixed seeds) and
scripts/fuzz.py (a long run): random, often malformed, inputs to every public function of
``calstats`` and ``calstats.clinical``, every method of what they return, and every command
of the ``calstats`` command line.

The contract every call keeps: it returns a well-formed result or raises calstats' own
error, :class:`calstats.CalstatsError`, whose message is one line. A well-formed result has
finite probabilities in [0, 1] (rows summing to 1 where they should), p-values in [0, 1],
metrics in their range and no NaN statistic, gives the same result twice, leaves its inputs
untouched, and every method of it (printing, ``summary``, ``as_frame``, HTML, Markdown,
LaTeX, ``predict``) works. A call at these small sizes (at most a few hundred rows) takes
at most :data:`SLOW_SECONDS` of CPU. A command exits 0 with a result, or non-zero with one
line ``calstats: error: ...`` that is not an internal error. Anything else is a finding.
"""

import contextlib
import copy
import io
import math
import os
import signal
import tempfile
import threading
import time
import warnings

import numpy as np
import pandas as pd

import calstats
from calstats import clinical

#: CPU seconds above which a call at the fuzz's sizes is a finding.
SLOW_SECONDS = 10.0

# --------------------------------------------------------------------------------------
# inputs


def _vector(rs, n, kind):
    if kind == "prob":
        return rs.uniform(0, 1, n)
    if kind == "logit":
        return rs.normal(0, 3, n)
    return rs.choice([0.0, 1.0, 0.5, 1e-300, 1 - 1e-16, 0.3, 0.9999974], n)  # edge values


def _spoil(rs, x, rate=1.0):
    """Sometimes make an input malformed or unusual."""
    r = rs.random() / rate
    x = np.array(x, dtype=np.float64, copy=True)
    if r < 0.05 and x.size:
        x.flat[rs.integers(x.size)] = np.nan
    elif r < 0.08 and x.size:
        x.flat[rs.integers(x.size)] = rs.choice([np.inf, -np.inf])
    elif r < 0.11 and x.size:
        x.flat[rs.integers(x.size)] = rs.choice([-0.2, 1.3, -0.0])
    elif r < 0.15:
        return x.astype(np.float32)
    elif r < 0.19:
        return pd.DataFrame(x) if x.ndim == 2 else pd.Series(x)
    elif r < 0.21:
        return x.tolist()
    elif r < 0.23 and x.ndim == 1:
        return np.column_stack([1 - x, x])  # scikit-learn's predict_proba
    elif r < 0.24 and x.size:
        return np.full_like(x, x.flat[0])  # one value
    return x


def _labels_binary(rs, n):
    r = rs.random()
    y = (rs.random(n) < 0.5).astype(int)
    if r < 0.05:
        return np.where(y == 1, "yes", "no")
    if r < 0.09:
        return y.astype(bool)
    if r < 0.13:
        return np.zeros(n, dtype=int)
    if r < 0.16:
        return y + 1
    if r < 0.19:
        return pd.Categorical(np.where(y == 1, "b", "a"))
    if r < 0.22 and n:
        z = y.astype(float)
        z[0] = np.nan
        return z
    if r < 0.24:
        return rs.uniform(0, 1, n)  # probabilities where the outcome belongs
    return y


def _labels_multi(rs, n, k):
    r = rs.random()
    y = rs.integers(1, k + 1, n)
    if r < 0.06:
        return y - 1  # scikit-learn's 0-based codes
    if r < 0.10:
        return np.array([f"c{v}" for v in y])
    if r < 0.14:
        return pd.Categorical(y, categories=range(1, k + 1))
    if r < 0.17:
        return rs.integers(1, k + 3, n)
    if r < 0.19:
        return pd.Categorical(np.array([f"c{v}" for v in y]), categories=[f"c{j}" for j in range(k, 0, -1)])
    return y


def _prob_matrix(rs, n, k, named=False):
    P = rs.dirichlet(np.ones(k) * rs.choice([0.2, 1.0, 5.0]), size=n)
    if rs.random() < 0.06 and n:
        P[0] *= 1.5  # a row that does not sum to 1
    if named and rs.random() < 0.5:
        return pd.DataFrame(P, columns=[f"c{j}" for j in range(1, k + 1)])
    return P


def _survival(rs, n):
    t = rs.exponential(100, n)
    e = (rs.random(n) < 0.6).astype(int)
    if rs.random() < 0.25:  # a competing-risk outcome: event codes 0, 1, 2
        e = e * rs.integers(1, 3, n)
    r = rs.random()
    if r < 0.05 and n:
        t[0] = -1.0
    elif r < 0.08 and n:
        t[0] = np.nan
    if rs.random() < 0.5:
        return (t, e)
    if rs.random() < 0.5:
        return [t, e]
    return np.column_stack([t, e])


def _weights(rs, n):
    return [None, np.ones(n), rs.integers(0, 3, n).astype(float), -np.ones(max(n, 1)), np.full(n, np.nan)][
        int(rs.choice(5, p=[0.2, 0.3, 0.3, 0.1, 0.1]))]


# --------------------------------------------------------------------------------------
# what each public function takes

#: name -> (kinds of data it takes, extra keyword arguments it may get). Kinds: "bp" a
#: binary probability vector, "bs" binary scores (logits), "mp" a probability matrix, "ml"
#: a logit matrix, "hl" (y, p) in R's order, "tte" a time-to-event outcome, "models" a
#: dict of models.
SPECS = {
    "cal_platt": ("bs", {}), "cal_beta": ("bp", {}), "cal_isotonic": ("bp", {}),
    "cal_histogram": ("bp", {"bins": [1, 3, 0, 2.5], "strategy": ["equal_freq", "quantile"]}),
    "cal_temperature": ("bs ml", {}), "cal_vector_scaling": ("ml", {}),
    "cal_dirichlet": ("mp", {"lambda_": [0.0, 1e-3, 0.1, -1.0, np.nan]}),
    "cal_matrix_scaling": ("ml", {"lambda_": [0.0, 1e-3, -1.0]}),
    "cal_dirichlet_l2": ("mp", {"lambda_": [0.0, 1e-3, -1.0]}),
    "cal_ovr": ("mp", {"method": ["platt", "isotonic", "sigmoid", "bogus"]}),
    "cal_cv": ("bp mp", {"method": ["platt", "isotonic", "temperature", "dirichlet", "ovr"], "folds": [2, 3, 1]}),
    "cal_top_label": ("mp", {}), "cal_spline": ("bp mp", {}),
    "cal_venn_abers": ("bp mp", {"reduction": ["top_label", "one_vs_one", "one_vs_rest"],
                                 "method": ["inductive", "cross"]}),
    "cal_evidential": ("ml", {}),
    "ece": ("bp mp", {"bins": [1, 5, 0, -3, 2.0**31, "sqrt"], "type": ["confidence", "classwise", "top"],
                      "strategy": ["uniform", "quantile", "equal"], "debiased": [True, False]}),
    "mce": ("bp mp", {"bins": [1, 5, 0]}), "ace": ("bp mp", {"bins": [1, 5, 0]}), "mmce": ("bp mp", {}),
    "brier_score": ("bp mp", {}), "log_loss": ("bp mp", {}), "confidence_ece": ("bp mp", {}),
    "classwise_ece": ("bp mp", {}), "top_label_ece": ("mp", {}), "bin_edges": ("bp1", {"bins": [1, 5, 0]}),
    "reliability_diagram": ("bp mp", {"interval": ["wilson", "agresti"]}),
    "cal_ks_test": ("bp mp", {}), "cal_kuiper_test": ("bp mp", {}), "cal_spiegelhalter_test": ("bp mp", {}),
    "skce": ("bp mp", {}), "cal_test": ("bp mp", {"n_boot": [20], "method": ["asymptotic", "bootstrap"]}),
    "cal_ci": ("bp mp", {"n_boot": [20, 0], "metric": ["ece", "skce", "bogus"]}),
    "smece": ("bp mp", {}), "smece_sigma": ("bp", {}), "smooth_curve": ("bp", {}),
    "cumulative_differences": ("bp mp", {}), "length_scale": ("bp1", {}),
    "corp": ("bp mp", {"band": [None, "resampling", "bootstrap"], "n_resamples": [10, 0]}),
    "loss_correct": ("mp1", {}), "loss_calibration_curve": ("bp mp", {}),
    "estimate_priors": ("priors", {}), "adjust_priors": ("priors2", {}), "cal_multilabel": ("ml01", {}),
    "risk_coverage": ("bp mp", {}), "aurc": ("bp mp", {}), "e_aurc": ("bp mp", {}), "augrc": ("bp mp", {}),
    "cal_compare": ("bp mp", {"methods": [None, ["platt"], ["temperature"], ["sigmoid"]], "folds": [2, 3]}),
    "val_prob": ("bp", {"pl": [False]}), "val_prob_ci": ("bp", {"pl": [False]}), "hoslem_test": ("hl", {"g": [10, 1, 2, 5]}),
    "logit": ("bp1", {}), "inv_logit": ("bs1", {}),
    "report": ("bp mp tte models", {"figures": [False], "n_boot": [20], "n_sim": [20], "n_resamples": [10],
                                    "progress": [False],
                                    # the time-to-event sections (timed.discrimination, timed.accuracy,
                                    # competing.calibration through "binned") and refusals elsewhere
                                    "sections": [["discrimination"], ["accuracy"], ["binned"],
                                                 ["discrimination", "accuracy", "binned"], ["bogus"]]}),
    # calstats.clinical
    "pmcalibration": ("hl tte", {"smooth": ["gam", "rcs", "none", "lowess", "loess", "ns", "bogus"],
                                 "ci": ["none", "sim", "boot", "pw"], "n": [20], "progress": [False]}),
    "cal_metrics": ("pc", {}), "logistic_cal": ("hl", {}),
    "val_multinomial": ("mp", {"df": [2, 1, 0]}),
    "decision_curve": ("bp tte models", {"thresholds": [None, [0.1, 0.5], [0.5, 1.2]]}),
    "test_consequences": ("bp tte models", {"thresholds": [None, [0.0, 0.5, 1.0], [0.5, 1.2]]}),
    "concordance": ("s3", {}), "cox_calibration_slope": ("s3lp", {}), "time_auc": ("s4", {}),
    "time_brier": ("s4", {}), "integrated_brier": ("s4", {}), "cuminc": ("cr3", {}), "cr_calibration": ("cr4", {}),
    "lrm": ("formula", {}), "validate": ("lrmfit", {"B": [5, 0]}), "calibrate": ("lrmfit", {"B": [5, 0]}),
}

#: functions never fuzzed here (they take no data, or other fuzzed functions' results)
SKIP = {"get_option", "set_option", "option_context", "predict", "summary", "canonical", "confusion_change",
        "combine_calibrated", "rng", "datasets", "clinical", "Factor", "Surv",
        "net_intervention_avoided"}

#: the range of each metric's value (a float result)
RANGES = {"ece": (0, 1), "mce": (0, 1), "ace": (0, 1), "brier_score": (0, 2), "confidence_ece": (0, 1),
          "classwise_ece": (0, 1), "top_label_ece": (0, 1), "log_loss": (0, math.inf), "smece": (0, 1),
          "mmce": (0, math.inf), "aurc": (0, 1), "e_aurc": (0, 1), "augrc": (0, 1)}


def public_functions():
    """Every fuzzed public function: ``{name: function}`` of calstats and calstats.clinical."""
    import inspect

    out = {}
    for mod, names in ((calstats, calstats.__all__), (clinical, clinical.__all__)):
        for name in names:
            if name in SKIP or name in out:
                continue
            obj = getattr(mod, name)
            if callable(obj) and not inspect.isclass(obj):
                out[name] = obj
    return out


def _data(rs, kind, n, k):
    """``(args, extra)`` of one kind of data."""
    if kind in ("bp", "bp1"):
        x = _spoil(rs, _vector(rs, n, "prob" if rs.random() < 0.85 else "edge"))
        return ([x] if kind == "bp1" else [x, _labels_binary(rs, n)]), {}
    if kind in ("bs", "bs1"):
        x = _spoil(rs, _vector(rs, n, "logit"))
        return ([x] if kind == "bs1" else [x, _labels_binary(rs, n)]), {}
    if kind in ("mp", "mp1"):
        x = _prob_matrix(rs, n, k, named=True)
        x = x if isinstance(x, pd.DataFrame) else _spoil(rs, x)
        return ([x] if kind == "mp1" else [x, _labels_multi(rs, n, k)]), {}
    if kind == "ml":
        return [_spoil(rs, np.log(np.maximum(_prob_matrix(rs, n, k), 1e-12))), _labels_multi(rs, n, k)], {}
    if kind == "hl":
        return [_labels_binary(rs, n), _spoil(rs, _vector(rs, n, "prob"))], {}
    if kind == "pc":
        p = _spoil(rs, _vector(rs, n, "prob"))
        return [p, np.clip(np.asarray(p, dtype=float).ravel() + rs.normal(0, 0.05, np.size(p)), 0, 1)], {}
    if kind == "tte":
        return [_spoil(rs, _vector(rs, n, "prob")), _survival(rs, n)], {"time": rs.choice([50.0, 1e6, -1.0, 100.0])}
    if kind in ("s3", "s3lp", "s4", "cr3", "cr4"):
        t = _spoil(rs, rs.exponential(100, n), 0.5)
        e = (rs.random(n) < 0.6).astype(int) * (rs.integers(1, 3, n) if kind.startswith("cr") else 1)
        risk = _spoil(rs, _vector(rs, n, "logit" if kind == "s3lp" else "prob"), 0.5)
        times = [rs.choice([10.0, 50.0, 1e6, -1.0])] if rs.random() < 0.5 else [10.0, 50.0]
        if kind == "cr3":
            return [t, e, times], {}
        if kind == "cr4":
            return [t, e, risk, float(times[0])], {}
        return ([t, e, risk, times] if kind == "s4" else [t, e, risk]), {}
    if kind in ("priors", "priors2"):
        P = _prob_matrix(rs, n, k)
        pri = rs.dirichlet(np.ones(k)) if rs.random() < 0.9 else rs.uniform(-1, 1, k)
        return ([_spoil(rs, P, 0.5), pri] if kind == "priors" else [_spoil(rs, P, 0.5), rs.dirichlet(np.ones(k)), pri]), {}
    if kind == "ml01":
        P = rs.uniform(0, 1, (n, k))
        return [_spoil(rs, P, 0.5), (rs.random((n, k)) < P).astype(int)], {}
    if kind in ("formula", "lrmfit"):
        x = rs.normal(0, 1, n)
        xs = _spoil(rs, x, 0.3) if rs.random() < 0.5 else x
        frame = pd.DataFrame({"x": xs if np.ndim(xs) == 1 and len(xs) == n else x,
                              "y": (rs.random(n) < 1 / (1 + np.exp(-x))).astype(int)})
        if kind == "formula":
            return [str(rs.choice(["y ~ x", "y ~ rcs(x, 3)", "y ~ z", "x ~"])), frame], {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = clinical.lrm("y ~ x", frame)
        except Exception:
            fit = None
        return [fit], {}
    if kind == "models":
        models = {f"m{j}": _spoil(rs, _vector(rs, n, "prob"), 0.3) for j in range(int(rs.integers(1, 4)))}
        if rs.random() < 0.1:
            models["all"] = _vector(rs, n, "prob")
        as_frame = rs.random() >= 0.6 and all(np.ndim(v) == 1 and len(v) == n for v in models.values())
        return [pd.DataFrame(models) if as_frame else models, _labels_binary(rs, n)], {}
    raise ValueError(kind)


def random_call(rs):
    """``(name, fn, args, kwargs)`` of one random call of a public function."""
    fns = public_functions()
    name = str(rs.choice(sorted(fns)))
    kinds, extras = SPECS.get(name, ("bp mp", {}))
    kinds = kinds.split()
    n = int(rs.choice([0, 1, 2, 3, 8, 25, 60, 150]))
    k = int(rs.integers(2, 6)) if rs.random() < 0.97 else 50  # many classes on few rows
    kind = str(rs.choice(kinds))
    if name in ("val_multinomial", "cal_compare", "cal_dirichlet") and k == 50:
        n = int(rs.choice([100, 200]))
    args, kw = _data(rs, kind, n, k)
    if name in ("pmcalibration", "logistic_cal") and kind == "tte":
        args = [args[1], args[0]]  # (y, p)
    if kind == "tte" and name in ("report", "decision_curve", "test_consequences") and rs.random() < 0.3:
        kw["cause"] = [1, 2, 3, "1", 0][int(rs.integers(5))]  # a competing-risk page and curve
    if name == "hoslem_test" and rs.random() < 0.1:
        kw["na_rm"] = True
    for key, choices in extras.items():
        if rs.random() < 0.35:
            kw[key] = choices[int(rs.integers(len(choices)))]
    params = _parameters(fns[name])
    if rs.random() < 0.1 and "weights" in params:
        kw["weights"] = _weights(rs, n)
    if name == "pmcalibration":
        kw.setdefault("n", 20)  # R's default, 1000 resamples or draws, takes its time by design (a progress bar)
    if "seed" in params and "seed" not in kw:
        kw["seed"] = 1  # a call without a seed draws from the global stream: another result each time
    return name, fns[name], args, kw


def _parameters(fn):
    import inspect

    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


# --------------------------------------------------------------------------------------
# the contract


def _snapshot(value):
    try:
        return copy.deepcopy(value)
    except Exception:  # pragma: no cover
        return value


def _equal(a, b):
    if isinstance(a, (pd.DataFrame, pd.Series)):
        return a.equals(b)
    if isinstance(a, pd.Categorical):
        return a.equals(b)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if hasattr(a, "__dict__") and not isinstance(a, type) and type(a).__module__.startswith("calstats"):
        return type(a) is type(b) and _equal(vars(a), vars(b))  # a fit given as input
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _as_numbers(result):
    if isinstance(result, (pd.DataFrame, pd.Series)):
        return result.to_numpy(dtype=np.float64)
    return np.asarray(result, dtype=np.float64)


def _digest(result):
    """A comparable summary of a result (for the same-result-twice check)."""
    if isinstance(result, calstats.Calibrator):
        return str(result.print_text())
    if hasattr(result, "p_value") and hasattr(result, "statistic"):
        return (repr(result.statistic), repr(result.p_value))
    if hasattr(result, "print_text"):
        try:
            return str(result.print_text())
        except Exception:  # reported by the methods check
            return None
    return repr(result)


def _first_line(exc):
    text = str(exc)
    return text.splitlines()[0] if text else ""


def _raw(where, exc):
    return f"{where}: {type(exc).__name__}: {_first_line(exc)[:160]}"


def _one_line(where, exc):
    """A CalstatsError must be one line."""
    text = str(exc)
    if "\n" in text.strip() or not text.strip():
        return f"{where}: a CalstatsError that is not one line: {text[:80]!r}"
    return None


def _methods(name, result, args):
    """Every method of a result works; returns a finding or None. A CalstatsError is
    allowed (R's error of a summary, say) when it is one line."""
    if isinstance(result, (pd.DataFrame, pd.Series, np.ndarray, float, int, tuple, list, dict)):
        return None  # pandas' and NumPy's own methods are not calstats'
    calls = []
    for meth in ("print_text", "as_frame", "to_frame", "_repr_html_", "to_markdown", "as_markdown", "to_latex",
                 "as_latex", "to_html", "as_html"):
        if callable(getattr(result, meth, None)):
            calls.append((meth, getattr(result, meth)))
    if callable(getattr(result, "summary", None)):
        calls.append(("summary", lambda: str(result.summary())))
        calls.append(("summary().as_markdown", lambda: _markdown(result.summary())))
    calls.append(("str", lambda: str(result)))
    for meth, fn in calls:
        try:
            with warnings.catch_warnings(), _cpu_limit(SLOW_SECONDS):
                warnings.simplefilter("ignore")
                fn()
        except _Slow:
            return f"{name}.{meth}: more than {SLOW_SECONDS:.0f} s of CPU"
        except calstats.CalstatsError as exc:
            found = _one_line(f"{name}.{meth}", exc)
            if found:
                return found
        except Exception as exc:
            return _raw(f"{name}.{meth}", exc)
    return None


def _markdown(summary):
    for meth in ("as_markdown", "to_markdown"):
        if callable(getattr(summary, meth, None)):
            return getattr(summary, meth)()
    return None


def _bad_numbers(name, result, debiased=False, said=False, ordinal=False):
    """A statistic out of range, or NaN without a warning (``said``) that says why;
    returns a finding or None."""
    if isinstance(result, (float, np.floating)) and name in RANGES and not debiased:
        lo, hi = RANGES[name]
        if not (lo <= float(result) <= hi):
            return f"{name}: value {float(result)!r} outside [{lo}, {hi}]"
    pv = getattr(result, "p_value", None)
    if pv is not None and isinstance(pv, (float, np.floating)):
        if not (math.isnan(pv) or 0.0 <= pv <= 1.0):
            return f"{name}: p-value {pv!r} outside [0, 1]"
        if math.isnan(pv) and not said:
            return f"{name}: p-value NaN without a warning that says why"
    stats = getattr(result, "stats", None)
    if name in ("val_prob", "val_prob_ci") and isinstance(stats, pd.Series) and not ordinal:
        # (an outcome with other values than 0/1 is R's ordinal model: R's Brier is mean((p - y)^2))
        b = stats.get("Brier")
        if b is not None and not (0.0 <= float(b) <= 1.0):
            return f"{name}: Brier {float(b)!r} outside [0, 1]"
    return None


def _ordinal(name, args):
    """val_prob's outcome holds other values than 0 and 1 (R fits an ordinal model)."""
    if name not in ("val_prob", "val_prob_ci") or len(args) < 2:
        return False
    try:
        y = np.asarray(args[1], dtype=np.float64)
    except (TypeError, ValueError):
        return False
    y = y[np.isfinite(y)]
    return bool(y.size and not np.isin(y, (0.0, 1.0)).all())


def _check_predict(name, result, newdata, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = result.predict(newdata, **kwargs)
    except calstats.CalstatsError:
        return None
    except Exception as exc:
        return _raw(f"{name}.predict", exc)
    values = _as_numbers(pred)
    if not np.all(np.isfinite(values)) or values.min(initial=0.0) < 0 or values.max(initial=0.0) > 1:
        return f"{name}.predict: probabilities outside [0, 1] or not finite"
    if (values.ndim == 2 and values.size and name != "cal_multilabel"  # one probability per label
            and not np.allclose(values.sum(axis=1), 1.0, atol=1e-9)):
        return f"{name}.predict: rows do not sum to 1"
    return None


class _Slow(BaseException):
    """Raised in a call that has used up its CPU seconds."""


@contextlib.contextmanager
def _cpu_limit(seconds):
    """Interrupt the block after ``seconds`` of CPU time (SIGPROF; where signals work)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _raise(signum, frame):
        raise _Slow()

    old = signal.signal(signal.SIGPROF, _raise)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def check_call(name, fn, args, kwargs, slow=SLOW_SECONDS, methods=True):
    """Run one call under the contract; returns None, or a one-line finding."""
    before = [_snapshot(a) for a in args]
    kw_before = _snapshot(kwargs)
    t0 = time.process_time()
    try:
        with warnings.catch_warnings(record=True) as caught, _cpu_limit(slow * 1.5):
            warnings.simplefilter("always")
            result = fn(*args, **kwargs)
    except _Slow:
        return f"{name}: more than {slow * 1.5:.0f} s of CPU at n = {_rows(args)} (interrupted)"
    except calstats.CalstatsError as exc:
        result = None
        finding = _one_line(name, exc)
        if finding:
            return finding
    except Exception as exc:  # the finding this harness is for
        return _raw(name, exc)
    spent = time.process_time() - t0
    if spent > slow:
        return f"{name}: {spent:.0f} s of CPU at n = {_rows(args)}"
    for a, b in zip(args, before):
        if not _equal(a, b):
            return f"{name}: an input was modified"
    if not _equal(kwargs, kw_before):
        return f"{name}: a keyword input was modified"
    if result is None:
        return None
    try:
        with warnings.catch_warnings(), _cpu_limit(slow * 1.5):
            warnings.simplefilter("ignore")
            again = fn(*[_snapshot(a) for a in before], **kwargs)
    except _Slow:
        return f"{name}: the second call took more than {slow * 1.5:.0f} s of CPU"
    except Exception as exc:
        return _raw(f"{name} (second call)", exc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        differ = _digest(result) != _digest(again)
    if differ:
        return f"{name}: a second call gave another result"
    said = any(issubclass(w.category, calstats.CalstatsWarning) for w in caught)
    bad = _bad_numbers(name, result, bool(kwargs.get("debiased")), said, _ordinal(name, args))
    if bad:
        return bad
    if isinstance(result, calstats.Calibrator):
        found = _check_predict(name, result, args[0], {"type": "prob"} if name == "cal_evidential" else {})
        if found:
            return found
    if methods:
        return _methods(name, result, args)
    return None


def describe(name, args, kwargs):
    """A short description of a call (for a finding's first occurrence)."""
    def one(a):
        if isinstance(a, (np.ndarray, pd.DataFrame, pd.Series)):
            return f"{type(a).__name__}{tuple(np.shape(a))}:{getattr(a, 'dtype', '')}"
        if isinstance(a, (list, tuple)):
            return f"{type(a).__name__}[{', '.join(one(x) for x in a[:3])}{', ...' if len(a) > 3 else ''}]"
        if isinstance(a, dict):
            return "dict{" + ", ".join(f"{k}: {one(v)}" for k, v in list(a.items())[:3]) + "}"
        return repr(a)[:40]
    kw = ", ".join(f"{k}={one(v)}" for k, v in kwargs.items())
    return f"{name}({', '.join(one(a) for a in args)}{', ' if kw else ''}{kw})"


def _rows(args):
    for a in args:
        try:
            return len(a)
        except TypeError:
            continue
    return "?"


# --------------------------------------------------------------------------------------
# the command line


def random_command(rs, tmpdir):
    """``(argv, expect_failure)`` of one random command on a small random table."""
    n = int(rs.choice([1, 2, 5, 30, 80]))
    k = int(rs.choice([1, 1, 3]))
    frame = {}
    if k == 1:
        frame["p"] = _vector(rs, n, "prob" if rs.random() < 0.8 else "logit")
        frame["y"] = (rs.random(n) < 0.5).astype(int)
    else:
        P = rs.dirichlet(np.ones(k), n)
        for j in range(k):
            frame[f"p_{j}"] = P[:, j]
        frame["y"] = rs.integers(0, k, n)
    r = rs.random()
    if r < 0.15:
        frame["id"] = np.arange(n) + 1000  # a numeric column that is no prediction
    elif r < 0.2 and n:
        frame["y"] = frame["y"].astype(float)
        frame["y"][0] = np.nan
    elif r < 0.3:
        frame["time"] = rs.exponential(100, n) * rs.choice([1, 1, -1])
    df = pd.DataFrame(frame)
    path = os.path.join(tmpdir, f"d{rs.integers(10**9)}.csv")
    df.to_csv(path, index=False)
    cmd = str(rs.choice(["assess", "report", "compare", "calibrate"]))
    out = os.path.join(tmpdir, f"o{rs.integers(10**9)}")
    cols = [c for c in df.columns if c.startswith("p")]
    if cmd == "assess":
        argv = ["assess", path, "--label", "y"]
        if rs.random() < 0.4:
            argv += ["--bootstrap", str(int(rs.choice([0, 5, 20])))]
    elif cmd == "report":
        argv = ["report", path, "-o", out + ".html", "--sections",
                str(rs.choice(["hierarchy", "binned", "tests", "decision", "discrimination", "accuracy"]))]
        if "time" in df.columns and k == 1 and rs.random() < 0.7:
            argv += ["--time", "time", "--status", "y", "--horizon", str(rs.choice([50, 1e6]))]
            if rs.random() < 0.3:
                argv += ["--cause", str(rs.choice(["1", "2"]))]  # the competing-risk page
        else:
            argv += ["--label", "y"]
        if rs.random() < 0.3:
            argv += ["--models", *(cols + (["nosuchcolumn"] if rs.random() < 0.5 else []))]
    elif cmd == "compare":
        argv = ["compare", "--data", path, "--label", "y", "--folds", "2"]
        if rs.random() < 0.3:
            argv += ["--methods", str(rs.choice(["platt", "temperature", "sigmoid", "bogus"]))]
    else:
        argv = ["calibrate", path, path, "--label", "y", "-m",
                str(rs.choice(["platt", "temperature", "isotonic", "dirichlet", "sigmoid"])), "-o", out + ".csv"]
    return argv


def check_command(argv, slow=SLOW_SECONDS):
    """Run one command; returns None or a one-line finding."""
    from calstats.cli import main

    err, out = io.StringIO(), io.StringIO()
    t0 = time.process_time()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), warnings.catch_warnings(), \
                _cpu_limit(slow * 1.5):
            warnings.simplefilter("ignore")
            status = main(argv)
    except _Slow:
        return f"calstats {argv[0]}: more than {slow * 1.5:.0f} s of CPU (interrupted)"
    except BaseException as exc:  # noqa: BLE001 - main must not raise
        return _raw(f"calstats {argv[0]}", exc)
    spent = time.process_time() - t0
    errors = [line for line in err.getvalue().splitlines() if "error:" in line]
    if spent > slow:
        return f"calstats {argv[0]}: {spent:.0f} s of CPU"
    if status != 0:
        if not errors:
            return f"calstats {argv[0]}: exit {status} without an error line"
        if "CALSTATS_DEBUG" in errors[-1] or "internal error" in errors[-1]:
            return f"calstats {argv[0]}: internal error: {errors[-1][:160]}"
    elif errors:
        return f"calstats {argv[0]}: exit 0 with an error line: {errors[-1][:120]}"
    return None


def run_commands(rs, count, slow=SLOW_SECONDS):
    """``count`` random commands; returns ``[(argv, finding)]``."""
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(count):
            argv = random_command(rs, tmp)
            finding = check_command(argv, slow)
            if finding:
                found.append((argv, finding))
    return found
