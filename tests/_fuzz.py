"""The fuzz harness shared by tests/test_fuzz.py (a few seconds in CI) and scripts/fuzz.py
(a long run): random, often malformed, inputs to the public API.

The contract every call must keep: it returns a well-formed result (finite probabilities
in [0, 1], rows that sum to 1 where they should, the same result twice, the inputs
untouched) or raises calstats' own error class, :class:`calstats.CalstatsError`. Anything
else (a raw NumPy/pandas exception, a NaN probability, a mutated input) is a finding.
"""

import copy
import math
import warnings

import numpy as np
import pandas as pd

import calstats

CALIBRATORS_BINARY = ["cal_platt", "cal_beta", "cal_isotonic", "cal_histogram", "cal_temperature"]
CALIBRATORS_MULTI = ["cal_temperature", "cal_vector_scaling", "cal_dirichlet", "cal_ovr", "cal_matrix_scaling",
                     "cal_dirichlet_l2", "cal_top_label"]
METRICS = ["ece", "mce", "ace", "mmce", "brier_score", "log_loss", "top_label_ece", "skce"]
TESTS = ["cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test", "hoslem_test"]


def _vector(rs, n, kind):
    if kind == "prob":
        v = rs.uniform(0, 1, n)
    elif kind == "logit":
        v = rs.normal(0, 3, n)
    else:  # edge values
        v = rs.choice([0.0, 1.0, 0.5, 1e-300, 1 - 1e-16, 0.3], n)
    return v


def _spoil(rs, x):
    """Sometimes make an input malformed or unusual."""
    r = rs.random()
    x = np.array(x, dtype=np.float64, copy=True)
    if r < 0.06 and x.size:
        x.flat[rs.integers(x.size)] = np.nan
    elif r < 0.10 and x.size:
        x.flat[rs.integers(x.size)] = np.inf
    elif r < 0.14 and x.size:
        x.flat[rs.integers(x.size)] = -0.2
    elif r < 0.18:
        return x.astype(np.float32)
    elif r < 0.22:
        return pd.DataFrame(x) if x.ndim == 2 else pd.Series(x)
    elif r < 0.24:
        return x.tolist()
    return x


def _labels_binary(rs, n):
    r = rs.random()
    y = (rs.random(n) < 0.5).astype(int)
    if r < 0.06:
        return np.where(y == 1, "yes", "no")
    if r < 0.10:
        return y.astype(bool)
    if r < 0.14:
        return np.zeros(n, dtype=int)
    if r < 0.17:
        return y + 1
    if r < 0.20:
        return pd.Categorical(np.where(y == 1, "b", "a"))
    if r < 0.22 and n:
        z = y.astype(float)
        z[0] = np.nan
        return z
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
    return y


def _prob_matrix(rs, n, k):
    P = rs.dirichlet(np.ones(k) * rs.choice([0.2, 1.0, 5.0]), size=n)
    if rs.random() < 0.08 and n:
        P[0] *= 1.5  # a row that does not sum to 1
    return P


def random_call(rs):
    """``(name, fn, args, kwargs)`` of one random call."""
    n = int(rs.choice([0, 1, 2, 3, 8, 25, 60]))
    k = int(rs.integers(2, 6))
    group = rs.random()
    if group < 0.35:
        name = str(rs.choice(CALIBRATORS_BINARY + CALIBRATORS_MULTI))
        multi = name in CALIBRATORS_MULTI and (name not in CALIBRATORS_BINARY or rs.random() < 0.5)
        if multi:
            x = _prob_matrix(rs, n, k)
            if name in ("cal_temperature", "cal_vector_scaling", "cal_matrix_scaling"):
                x = np.log(np.maximum(x, 1e-12))
            y = _labels_multi(rs, n, k)
        else:
            x = _vector(rs, n, "logit" if name in ("cal_platt", "cal_temperature") else "prob")
            y = _labels_binary(rs, n)
        kw = {}
        if name in ("cal_dirichlet", "cal_matrix_scaling", "cal_dirichlet_l2") and rs.random() < 0.7:
            kw["lambda_"] = rs.choice([0.0, 1e-3, 0.1, -1.0, np.nan])
        if name == "cal_histogram" and rs.random() < 0.5:
            kw["bins"] = rs.choice([1, 3, 0, 2.5])
        if rs.random() < 0.15:
            kw["weights"] = rs.choice([None, "ones", "ints", "bad"])
            kw["weights"] = {"ones": np.ones(n), "ints": rs.integers(0, 3, n), "bad": -np.ones(max(n, 1)),
                             None: None}[kw["weights"]]
        return name, getattr(calstats, name), [_spoil(rs, x), y], kw
    if group < 0.70:
        name = str(rs.choice(METRICS))
        if name == "top_label_ece" or rs.random() < 0.5:
            x, y = _prob_matrix(rs, n, k), _labels_multi(rs, n, k)
        else:
            x, y = _vector(rs, n, "prob"), _labels_binary(rs, n)
        kw = {}
        if name in ("ece", "mce", "ace") and rs.random() < 0.3:
            kw["bins"] = rs.choice([1, 5, 0, -3, 2.0**31])
        return name, getattr(calstats, name), [_spoil(rs, x), y], kw
    name = str(rs.choice(TESTS))
    if name == "hoslem_test":
        return name, calstats.hoslem_test, [_labels_binary(rs, n), _spoil(rs, _vector(rs, n, "prob"))], {}
    if rs.random() < 0.5:
        x, y = _prob_matrix(rs, n, k), _labels_multi(rs, n, k)
    else:
        x, y = _vector(rs, n, "prob"), _labels_binary(rs, n)
    return name, getattr(calstats, name), [_spoil(rs, x), y], {}


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
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def _as_numbers(result):
    if isinstance(result, (pd.DataFrame, pd.Series)):
        return result.to_numpy(dtype=np.float64)
    return np.asarray(result, dtype=np.float64)


def _digest(result):
    """A comparable summary of a result (for the same-result-twice check)."""
    if isinstance(result, calstats.Calibrator):
        return str(result.print_text())
    if hasattr(result, "p_value"):
        return (repr(result.statistic), repr(result.p_value))
    return repr(result)


def check_call(name, fn, args, kwargs):
    """Run one call under the contract; returns None, or a one-line finding."""
    before = [_snapshot(a) for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*args, **kwargs)
            again = fn(*[_snapshot(a) for a in before], **kwargs)
    except calstats.CalstatsError:
        result = again = None
    except Exception as exc:  # the finding this harness is for
        return f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    for a, b in zip(args, before):
        if not _equal(a, b):
            return f"{name}: an input was modified"
    if result is None:
        return None
    if _digest(result) != _digest(again):
        return f"{name}: a second call gave another result"
    if isinstance(result, calstats.Calibrator):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = result.predict(args[0])
        except calstats.CalstatsError:
            return None
        except Exception as exc:
            return f"{name}.predict: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        values = _as_numbers(pred)
        if not np.all(np.isfinite(values)) or values.min(initial=0.0) < 0 or values.max(initial=0.0) > 1:
            return f"{name}.predict: probabilities outside [0, 1] or not finite"
        if values.ndim == 2 and values.size and not np.allclose(values.sum(axis=1), 1.0, atol=1e-9):
            return f"{name}.predict: rows do not sum to 1"
        try:
            str(result.summary())
        except Exception as exc:
            return f"{name}.summary: {type(exc).__name__}: {exc}"
    elif hasattr(result, "p_value"):
        pv = result.p_value
        if not (isinstance(pv, float) and (math.isnan(pv) or 0.0 <= pv <= 1.0)):
            return f"{name}: p-value {pv!r} outside [0, 1]"
    return None
