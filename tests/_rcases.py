"""Replaying the R fixture cases in Python.

The fixtures (copied from the R reference runs into ``tests/fixtures/``) record R inputs,
the R call that was run and R's outputs. ``r_value`` rebuilds an input as the Python
object a user would pass (r-interface.md §0.1) and ``run_call`` evaluates the call text with
calstats, so a test states only what to compare.
"""

import math
import platform
import re
import sys

import numpy as np
import pandas as pd
import pytest

from _fixtures import FIXTURES as FIXTURES  # re-exported for the test modules
from _fixtures import load_fixture

#: Bit-for-bit agreement with R needs R's 80-bit long double accumulators and glibc's libm
#: (numerics.md N1-N2); elsewhere only the r-interface.md §10 tolerances apply.
EXACT_PLATFORM = (
    np.finfo(np.longdouble).nmant >= 63
    and sys.platform.startswith("linux")
    and platform.machine() in ("x86_64", "AMD64")
)
exact_only = pytest.mark.skipif(not EXACT_PLATFORM, reason="bit-exactness needs x87 long double + glibc")

_SCALAR_INPUTS = {"lambda", "eps", "bins", "folds", "seed", "method", "strategy", "type", "bandwidth",
                  "base_method", "show_ece", "show_counts"}


def load_cases(name):
    """The cases of ``tests/fixtures/<name>.json``."""
    return load_fixture(name)["cases"]


def case_ids(cases):
    return [c["id"] for c in cases]


def num(x):
    """A JSON number or R's special-value strings as a float."""
    if isinstance(x, list):
        return [num(v) for v in x]
    if x in ("NA", "NaN") or x is None:
        return math.nan
    if x == "Inf":
        return math.inf
    if x == "-Inf":
        return -math.inf
    return float(x)


def rnum(v):
    """A fixture value as a float (scalar) or float64 array (list)."""
    if isinstance(v, list):
        return np.array(num(v), dtype=np.float64)
    return num(v)


def arr(x):
    """A fixture vector/matrix as a float64 array."""
    return np.array(num(x), dtype=np.float64)


def _has_na(values):
    return any(v == "NA" or v is None for v in values)


def r_value(value, r_type, name=None):
    """Rebuild one fixture input as the Python object an R user's value maps to."""
    if r_type == "NULL" or value is None and r_type == "NULL":
        return None
    scalar = not isinstance(value, (list, dict))
    if r_type.startswith("factor"):
        return pd.Categorical(value["values"], categories=value["levels"])
    m = re.match(r"(\w+) matrix\[(\d+)x(\d+)\]", r_type)
    if m:
        kind, nr, nc = m.group(1), int(m.group(2)), int(m.group(3))
        if nr == 0:
            return np.zeros((0, nc), dtype=np.int64 if kind == "integer" else np.float64)
        if kind == "integer":
            return np.array(value, dtype=np.int64)
        if kind == "character":
            return np.array(value, dtype=object)
        if kind == "logical":
            return np.array(value, dtype=bool)
        return np.array(num(value), dtype=np.float64)
    kind = r_type.split("[")[0]
    if kind == "data.frame":
        return {k: (np.array(num(v)) if v and not isinstance(v[0], str) else np.array(v, dtype=object))
                for k, v in value.items()}
    if kind == "list":
        out = np.empty(len(value), dtype=object)
        for i, v in enumerate(value):
            out[i] = v
        return out
    # Bare JSON values are R scalars by nature; length-one vectors of the choice and
    # count arguments are passed as Python scalars too, as a Python user writes them.
    as_scalar = scalar or (name in _SCALAR_INPUTS and len(value) == 1)
    vals = value if isinstance(value, list) else [value]
    if kind == "double":
        out = np.array(num(vals), dtype=np.float64)
        return float(out[0]) if as_scalar else out
    if kind == "integer":
        if _has_na(vals):
            return pd.array([None if v == "NA" else int(v) for v in vals], dtype="Int64")
        out = np.array(vals, dtype=np.int64)
        return int(out[0]) if as_scalar else out
    if kind == "logical":
        if _has_na(vals):
            return pd.array([None if v == "NA" else bool(v) for v in vals], dtype="boolean")
        out = np.array(vals, dtype=bool)
        return bool(out[0]) if as_scalar else out
    if kind == "character":
        if as_scalar:
            return vals[0]
        return np.array(vals, dtype=object if None in vals else str)
    raise ValueError(f"unsupported r_type {r_type}")


def inputs(case):
    """All inputs of a case as Python objects, by R name."""
    types = case.get("r_types", {})
    return {k: r_value(v, types.get(k, "double"), k) for k, v in case.get("inputs", {}).items()}


# --------------------------------------------------------------------------------------
# a tiny interpreter for the fixture calls

_TOKEN = re.compile(r"""\s*(?:(?P<num>\d+\.?\d*(?:[eE][-+]?\d+)?L?)|(?P<str>"[^"]*")|(?P<name>[A-Za-z_.][\w.]*)"""
                    r"""|(?P<op><-|[(),=;{}\-]))""")


def _tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise SyntaxError(f"cannot read R code at {text[pos:pos + 20]!r}")
        pos = m.end()
        for kind in ("num", "str", "name", "op"):
            if m.group(kind) is not None:
                out.append((kind, m.group(kind)))
                break
    return out


class _Parser:
    def __init__(self, toks, env, api):
        self.toks, self.i, self.env, self.api = toks, 0, env, api

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, val=None):
        tok = self.toks[self.i]
        if val is not None and tok[1] != val:
            raise SyntaxError(f"expected {val}, got {tok[1]}")
        self.i += 1
        return tok

    def expr(self):
        kind, val = self.take()
        if val == "-":
            return -self.expr()
        if kind == "num":
            if val.endswith("L"):
                return int(val[:-1])
            return int(val) if re.fullmatch(r"\d+", val) else float(val)
        if kind == "str":
            return val[1:-1]
        if kind == "name":
            if val in ("TRUE", "FALSE"):
                return val == "TRUE"
            if val == "NULL":
                return None
            if self.peek()[1] == "(":
                return self.call(val)
            return self.env[val]
        raise SyntaxError(f"unexpected {val}")

    def args(self):
        self.take("(")
        pos, kw = [], {}
        while self.peek()[1] != ")":
            if self.peek()[0] == "name" and self.i + 1 < len(self.toks) and self.toks[self.i + 1][1] == "=":
                name = self.take()[1]
                self.take("=")
                kw[name] = self.expr()
            else:
                pos.append(self.expr())
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return pos, kw

    def call(self, fname):
        if fname == "vapply":
            return self.vapply()
        pos, kw = self.args()
        return self.api(fname, pos, kw)

    def vapply(self):
        # vapply(X, function(b) f(...), numeric(1))
        self.take("(")
        xs = self.expr()
        self.take(",")
        self.take(None)  # function
        self.take("(")
        var = self.take()[1]
        self.take(")")
        start = self.i
        results = []
        for x in list(np.atleast_1d(xs)):
            self.i = start
            self.env[var] = x.item() if hasattr(x, "item") else x
            results.append(self.expr())
        self.take(",")
        self.expr()  # numeric(1)
        self.take(")")
        return np.array(results, dtype=float)


def py_kw(name):
    return "lambda_" if name == "lambda" else name.replace(".", "_")


def default_api(calstats):
    """Map R function names of the fixture calls to calstats callables."""

    def api(fname, pos, kw):
        kw = {py_kw(k): v for k, v in kw.items()}
        if fname == "c":
            if kw and not pos:
                return dict(kw)
            vals = [np.atleast_1d(v) for v in pos]
            return np.concatenate(vals) if vals else None
        if fname == "numeric":
            return None
        if fname == "set.seed":
            return calstats.rng.set_seed(*pos, **kw)
        if fname in ("runif", "rnorm", "sample"):
            return getattr(calstats.rng, fname)(*pos, **kw)
        if fname == "print":
            return str(pos[0])
        if fname == "summary":
            return calstats.summary(pos[0])
        return getattr(calstats, fname.replace(".", "_"))(*pos, **kw)

    return api


def run_call(case, calstats, env=None, api=None):
    """Evaluate the case's R call; returns the environment (assigned names) and the value
    of the last statement."""
    env = dict(inputs(case) if env is None else env)
    api = api or default_api(calstats)
    last = None
    for stmt in re.split(r"\n|;", case["call"]):
        stmt = stmt.strip()
        if not stmt or stmt.startswith("options("):
            continue
        toks = _tokens(stmt)
        target = None
        if len(toks) > 2 and toks[1] == ("op", "<-"):
            target = toks[0][1]
            toks = toks[2:]
        last = _Parser(toks, env, api).expr()
        if target:
            env[target] = last
    return env, last


def assert_r_equal(actual, expected, rtol=1e-12, atol=0.0, where="value"):
    """Compare a calstats value with R's recorded value (NaN matches NA; strings exactly)."""
    if isinstance(expected, dict) and set(expected) == {"levels", "values"}:
        assert list(actual.categories) == expected["levels"], where
        assert [None if pd.isna(a) else a for a in actual] == expected["values"], where
        return
    if isinstance(expected, dict):  # a named R vector
        assert list(actual.index) == list(expected), where
        actual, expected = actual.to_numpy(), list(expected.values())
    if isinstance(actual, (pd.DataFrame, pd.Series)):
        actual = actual.to_numpy()
    if isinstance(expected, str) and expected not in ("NA", "NaN", "Inf", "-Inf"):
        assert actual == expected, where
        return
    if isinstance(expected, list) and expected and all(isinstance(e, str) and e not in ("NA", "NaN", "Inf", "-Inf")
                                                       for e in expected):
        assert list(actual) == expected, where
        return
    if isinstance(expected, bool):
        assert bool(actual) is expected, where
        return
    exp = np.array(num(expected), dtype=np.float64)
    act = np.asarray(actual, dtype=np.float64)
    if exp.ndim == 2 and exp.shape[0] == act.size and exp.shape[1] == 1:
        exp = exp[:, 0]
    assert act.shape == exp.shape, f"{where}: shape {act.shape} != {exp.shape}"
    np.testing.assert_allclose(act, exp, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)


def assert_fields(obj, expected, rtol=1e-12, atol=0.0, skip=()):
    """Compare every recorded R field of a result object (``class`` = ``r_class``)."""
    for name, value in expected.items():
        if name.startswith("diag_") or name in skip:
            continue
        if name == "class":
            assert list(obj.r_class) == value
            continue
        if name == "n_thresholds":  # cal_cv fixtures keep only this of isotonic fold fits
            assert len(obj["x_thresholds"]) == value
            continue
        assert name in obj.names(), f"field {name} missing from names()"
        if isinstance(value, dict) and "class" in value:
            assert_fields(obj[name], value, rtol, atol, skip)
        elif isinstance(value, list) and value and isinstance(value[0], dict) and "class" in value[0]:
            assert len(obj[name]) == len(value)
            for sub, exp in zip(obj[name], value):
                assert_fields(sub, exp, rtol, atol, skip)
        else:
            assert_r_equal(obj[name], value, rtol=rtol, atol=atol, where=name)
