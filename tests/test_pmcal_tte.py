"""pmcalibration for time-to-event outcomes against pmcalibration 0.2.0 (survival::coxph,
Efron ties, ``predict(type = "expected")``): tests/fixtures/pmcal_tte.json, written by
tools/r-reference/make_pmcal_tte.R."""

import warnings

import numpy as np
import pandas as pd
import pytest

from _fixtures import load_fixture
from calstats._errors import CalstatsError
from calstats.clinical.pmcal import pmcalibration

FX = load_fixture("pmcal_tte")
METRICS = ["Eavg", "E50", "E90", "Emax", "ECI"]
CASES = {c["name"]: c for c in FX["cases"]}


def _arr(v):
    return np.array([np.nan if a is None else a for a in np.ravel(np.array(v, dtype=object))], dtype=float)


def _close(a, b, rtol=1e-8, atol=1e-300):
    a, b = _arr(a), _arr(b)
    assert a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=rtol, atol=atol)


def _data(name):
    d = FX["data"][name]
    return _arr(d["time"]), _arr(d["status"]), _arr(d["p"])


def _fit(c, y_form="pair"):
    t, s, p = _data(c["data"])
    y = (t, s) if y_form == "pair" else pd.DataFrame({"time": t, "status": s})
    args = dict(c["args"])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fit = pmcalibration(y, p, time=c["time"][0] if isinstance(c["time"], list) else c["time"],
                            seed=c["seed"][0] if isinstance(c["seed"], list) else c["seed"], **args)
    return fit, [str(w.message) for w in rec]


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    c = CASES[name]
    fit, msgs = _fit(c)
    # calstats replays mgcv's inner Cox fit (gam.fit5, stopping at a gradient below
    # 1e-8 |log-likelihood|): gam to 1e-8 (was 1e-6 when it converged fully)
    tol = dict(rtol=0.0, atol=1e-8) if c["args"]["smooth"] == "gam" else dict(rtol=1e-8)
    _close(fit.metrics.to_numpy(), [c["metrics"][k] for k in METRICS], **tol)
    _close(fit.p_c["p_c"], c["p_c"], **tol)
    cur = fit.get_curve()
    for col, vals in c["curve"].items():
        _close(cur[col], vals, **tol)
    for col in ("lower", "upper"):
        if col in c["metrics_table"]:
            _close(fit.summary().metrics[col], c["metrics_table"][col], **tol)
    assert fit.print_text().splitlines() == c["print"]
    assert msgs == []
    assert fit.outcome == "tte" and list(fit.data.columns) == ["time", "status", "p"]


def test_two_column_frame_equals_pair():
    c = CASES["sim_rcs_boot"]
    a, _ = _fit(c, "pair")
    b, _ = _fit(c, "frame")
    pd.testing.assert_frame_equal(a.summary().metrics, b.summary().metrics)


@pytest.mark.parametrize("key,kwargs", [
    ("sim", dict(smooth="none", ci="sim", time=2)),
    ("lowess", dict(smooth="lowess", ci="none", time=2)),
    ("notime", dict(smooth="none", ci="none")),
    ("twotimes", dict(smooth="none", ci="none", time=[1, 2])),
])
def test_r_errors(key, kwargs):
    t, s, p = _data("sim")
    with pytest.raises(CalstatsError, match="^" + FX["errors"][key].replace("(", r"\(").replace(")", r"\)") + "$"):
        pmcalibration((t, s), p, **kwargs)


def test_pair_lengths():
    t, s, p = _data("sim")
    with pytest.raises(CalstatsError, match=r"^A time-to-event `y` = \(time, status\) needs two arrays"):
        pmcalibration((t[:-1], s), p, smooth="none", ci="none", time=2)


def test_plot_has_no_risk_distribution():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fit, _ = _fit(CASES["tx_rcs_pw"])
    fig, ax = plt.subplots()
    fit.plot(ax=ax)
    assert ax.get_ylim()[0] == 0.0  # no room made below the axis for the risk distribution
    plt.close(fig)
