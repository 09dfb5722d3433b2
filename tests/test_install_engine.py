"""An installation without a C compiler: the build goes on without the core, and calstats
runs on its NumPy backend with the compiled backend's numbers, saying so once on import.

The NumPy backend is reached here with ``CALSTATS_BACKEND=numpy`` (which hides the compiled
modules) in a subprocess; ``scripts/check_wheel.sh`` installs a real source distribution
with ``CC=false``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import calstats as cs
from calstats import _options
from calstats.numerics import core, fast, passes

ROOT = Path(__file__).resolve().parents[1]

#: numbers whose every path differs between the backends (the compiled core, the passes,
#: the scan and bins of the core, the fast engine)
_NUMBERS = r"""
import json, warnings
import numpy as np
import calstats as cs
rng = np.random.default_rng(7)
n, k = 400, 4
Z = rng.normal(size=(n, k)) * 2
P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
y = rng.integers(1, k + 1, size=n)
p = P[:, 0]
b = (rng.random(n) < p).astype(int)
out = {
    "ece": cs.ece(p, b), "ece_fast": cs.ece(p, b, engine="fast"), "brier": cs.brier_score(p, b),
    "log_loss_mc": cs.log_loss(P, y), "brier_mc_fast": cs.brier_score(P, y, engine="fast"),
    "classwise": cs.classwise_ece(P, y), "classwise32": cs.classwise_ece(P.astype(np.float32), y),
    "top_label": cs.top_label_ece(P, y),
    "temperature": cs.cal_temperature(Z, y).temperature,
    "temperature_fast": cs.cal_temperature(Z, y, engine="fast").temperature,
    "temperature_fast_engine": cs.cal_temperature(Z, y, engine="fast").engine,
    "vector": np.concatenate([cs.cal_vector_scaling(Z, y).scale, cs.cal_vector_scaling(Z, y).bias]),
    "dirichlet": np.asarray(cs.cal_dirichlet(P, y).weight).ravel(),
    "dirichlet_newton": np.asarray(cs.cal_dirichlet(P, y, optimizer="newton").weight).ravel(),
    "spiegelhalter": cs.cal_spiegelhalter_test(p, b).statistic["Z"],
    "platt": list(cs.cal_platt(p, b).coefficients),
}
out = {key: (v.tolist() if hasattr(v, "tolist") else v) for key, v in out.items()}
print(json.dumps(out))
"""


def _run(code, **env):
    full = {**os.environ, **env}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=ROOT, check=False)
    assert res.returncode == 0, res.stderr
    return res


def test_this_installation_is_compiled():
    # the test environment builds the core; the NumPy backend is checked in subprocesses
    assert passes.BACKEND == "c" and core.COMPILED and fast.COMPILED
    assert passes.COMPILED == {"_core": True, "_passes": True, "_loops": True, "_fast": True}


def test_compiled_import_says_nothing():
    res = _run("import calstats, calstats.numerics.fast")
    assert res.stderr == ""


def test_numpy_engine_notice_once():
    res = _run("import warnings\nimport calstats\nimport calstats.numerics.fast, calstats.evaluation.scores\n"
               "import calstats.numerics.core as c\nprint(c.COMPILED)", CALSTATS_BACKEND="numpy")
    lines = [line for line in res.stderr.splitlines() if "CalstatsWarning" in line]
    assert len(lines) == 1
    assert "NumPy backend" in lines[0] and "calstats.numerics._core" in lines[0] and "pip install" in lines[0]
    assert lines[0].startswith("<string>:2:")  # attributed to the user's import line
    assert res.stdout.strip() == "False"


def test_numpy_engine_gives_the_compiled_numbers():
    compiled = json.loads(_run(_NUMBERS).stdout)
    numpy_engine = json.loads(_run(_NUMBERS, CALSTATS_BACKEND="numpy").stdout)
    assert compiled["temperature_fast_engine"] == "fast"
    assert numpy_engine["temperature_fast_engine"] == "r"  # engine="fast" runs R's arithmetic
    for key in compiled:
        if "fast" in key:
            continue
        assert numpy_engine[key] == compiled[key], key  # bit for bit
    # without the fast engine, engine="fast" gives R's numbers exactly
    assert numpy_engine["ece_fast"] == compiled["ece"]
    assert numpy_engine["temperature_fast"] == compiled["temperature"]
    assert compiled["brier_mc_fast"] == pytest.approx(numpy_engine["brier_mc_fast"], rel=1e-14)


def test_drop_engine_maps_to_r():
    saved = set(_options._UNAVAILABLE)
    try:
        assert _options.resolve_engine("fast") == "fast"
        _options.drop_engine("fast")
        assert _options.resolve_engine("fast") == "r"
        with cs.option_context(engine="fast"):
            assert _options.resolve_engine(None) == "r"
        with pytest.raises(cs.CalstatsError, match="option 'engine' must be one of"):
            _options.resolve_engine("turbo")
    finally:
        _options._UNAVAILABLE.clear()
        _options._UNAVAILABLE.update(saved)


def _build(tmp_path, **env):
    cmd = [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
           "--build-temp", str(tmp_path / "tmp"), "--force"]
    full = {**os.environ, "CC": "false", "LDSHARED": "false", **env}
    return subprocess.run(cmd, capture_output=True, text=True, env=full, cwd=ROOT, check=False)


def test_build_without_compiler_goes_on(tmp_path):
    res = _build(tmp_path)
    assert res.returncode == 0, res.stderr
    ours = [line for line in res.stderr.splitlines() if line.startswith("calstats:")]
    assert ours and all("NumPy backend" in line for line in ours)
    assert not list((tmp_path / "lib").rglob("*.so"))


def test_build_without_compiler_fails_when_required(tmp_path):
    res = _build(tmp_path, CALSTATS_REQUIRE_CORE="1")
    assert res.returncode != 0
    assert "cannot build its C core" in res.stderr and "CALSTATS_REQUIRE_CORE" in res.stderr


def test_numpy_engine_matches_on_random_inputs():
    # the scan's fallback: no proof, so the callers' own checks decide; same top labels
    from calstats.numerics import _scan

    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(5), size=50)
    P[3, 1] = P[3, 0]  # a tie: the first maximum
    r, pred = _scan.top_label_rows(P)
    r0, pred0 = _scan.top_label_rows_numpy(P)
    assert np.array_equal(r, r0) and np.array_equal(pred, pred0)
