"""Formula versions of the clinical validation functions equal the array calls."""

import numpy as np
import pandas as pd
import pytest

import calstats.formula.api as cf
from calstats import CalstatsError
from calstats.clinical import decision_curve, hoslem_test, logistic_cal, pmcalibration, val_multinomial


@pytest.fixture(scope="module")
def frame():
    rs = np.random.default_rng(8)
    n = 300
    x = rs.normal(size=n)
    y = (rs.uniform(size=n) < 1 / (1 + np.exp(-x))).astype(int)
    return pd.DataFrame({"y": y, "outcome": np.where(y == 1, "dead", "alive"),
                         "pa": 1 / (1 + np.exp(-x)), "pb": 1 / (1 + np.exp(-1.5 * x - 0.3)),
                         "time": rs.exponential(5, n), "status": rs.integers(0, 2, n)})


def test_pmcalibration_binary_and_levels(frame):
    a = cf.pmcalibration("y ~ pa", frame, smooth="none", ci="boot", n=10, seed=3)
    b = pmcalibration(frame["y"], frame["pa"], smooth="none", ci="boot", n=10, seed=3)
    pd.testing.assert_frame_equal(a.summary().metrics, b.summary().metrics)
    c = cf.pmcalibration("outcome ~ pa", frame, positive="dead", smooth="none", ci="none")
    pd.testing.assert_series_equal(c.metrics, pmcalibration(frame["y"], frame["pa"], smooth="none", ci="none").metrics)


def test_pmcalibration_surv(frame):
    a = cf.pmcalibration("Surv(time, status) ~ pb", frame, smooth="ns", df=3, ci="pw", time=3)
    b = pmcalibration((frame["time"], frame["status"]), frame["pb"], smooth="ns", df=3, ci="pw", time=3)
    pd.testing.assert_frame_equal(a.get_curve(), b.get_curve())
    with pytest.raises(CalstatsError, match=r"^Column `when` of the formula"):
        cf.pmcalibration("Surv(when, status) ~ pb", frame, time=3)


def test_logistic_cal_and_hoslem(frame):
    a = cf.logistic_cal("y ~ pb", frame).summary().stats
    pd.testing.assert_frame_equal(a, logistic_cal(frame["y"], frame["pb"]).summary().stats)
    with pytest.raises(CalstatsError, match="logistic_cal takes a binary outcome"):
        cf.logistic_cal("Surv(time, status) ~ pb", frame)
    with pytest.raises(CalstatsError, match=r"logistic_cal takes one probability column"):
        cf.logistic_cal("y ~ pa + pb", frame)
    h = cf.hoslem_test("y ~ pa", frame, df=10)
    assert h.p_value == hoslem_test(frame["y"], frame["pa"], df=10).p_value and h.parameter == {"df": 10}


def test_decision_curve_models(frame):
    a = cf.decision_curve("y ~ pa + pb", frame, thresholds=[0.1, 0.3, 0.6]).as_frame()
    b = decision_curve(frame[["pa", "pb"]], frame["y"], thresholds=[0.1, 0.3, 0.6]).as_frame()
    pd.testing.assert_frame_equal(a, b)
    assert list(a["model"].unique()) == ["all", "none", "pa", "pb"]
    s = cf.decision_curve("Surv(time, status) ~ pa", frame, thresholds=[0.2], time=3).as_frame()
    t = decision_curve({"pa": frame["pa"]}, (frame["time"], frame["status"]), thresholds=[0.2], time=3).as_frame()
    pd.testing.assert_frame_equal(s, t)


def test_val_multinomial():
    rs = np.random.default_rng(4)
    z = rs.normal(size=(300, 3))
    P = np.exp(1.3 * z) / np.exp(1.3 * z).sum(1, keepdims=True)
    cls = np.array([rs.choice(3, p=np.exp(r) / np.exp(r).sum()) for r in z])
    m = pd.DataFrame(P, columns=["p_a", "p_b", "p_c"])
    m["lab"] = cls + 1
    a = cf.val_multinomial("lab ~ p_a + p_b + p_c", m)
    b = val_multinomial(P, cls + 1)
    np.testing.assert_array_equal(a.slopes.to_numpy(), b.slopes.to_numpy())
    with pytest.raises(CalstatsError, match="val_multinomial takes three or more probability columns"):
        cf.val_multinomial("lab ~ p_a", m)
