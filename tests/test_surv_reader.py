"""One reader of a time-to-event outcome (calstats._surv): every form R's Surv() users write
is read the same way by pmcalibration, decision_curve and report, with the same messages."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from calstats import CalstatsError, Surv
from calstats._surv import SurvOutcome, is_surv, read_surv, read_surv_args, surv_parts
from calstats.clinical import decision_curve, pmcalibration
from calstats.reporting import report

RS = np.random.default_rng(20240)
N = 80
TIME = np.round(RS.exponential(3.0, N) * 4) / 4 + 0.25  # ties, exact in float32
STATUS = (RS.uniform(size=N) < 0.7).astype(np.int64)
P = np.clip(1 - np.exp(-TIME.mean() ** -1 * 2 * RS.uniform(0.2, 1.8, N)), 0.02, 0.98)
H = 2.0


def _forms(t=TIME, s=STATUS):
    structured = np.empty(t.size, dtype=[("event", bool), ("time", float)])
    structured["event"], structured["time"] = s.astype(bool), t
    return {
        "tuple": (t, s),
        "list": [t, s],
        "list of lists": [t.tolist(), s.tolist()],
        "array": np.column_stack([t, s]),
        "frame": pd.DataFrame({"time": t, "status": s}),
        "Surv": Surv(t, s),
        "structured": structured,
        "bool status": (pd.Series(t), pd.Series(s.astype(bool))),
        "R 1/2 coding": (t, s + 1),
        "float32": (t.astype(np.float32), s.astype(np.float32)),
    }


@pytest.mark.parametrize("form", list(_forms()))
def test_every_form_reads_the_same(form):
    out = read_surv(_forms()[form])
    assert isinstance(out, SurvOutcome)
    assert np.array_equal(out.time, TIME) and np.array_equal(out.status, STATUS)
    assert out.status.dtype == np.int64 and out.causes == (1,)


@pytest.mark.parametrize("form", list(_forms()))
def test_front_ends_accept_every_form(form):
    y = _forms()[form]
    ref_dca = decision_curve(P, (TIME, STATUS), [0.2, 0.5], time=H).as_frame()
    pd.testing.assert_frame_equal(decision_curve(P, y, [0.2, 0.5], time=H).as_frame(), ref_dca)
    ref_pm = pmcalibration((TIME, STATUS), P, smooth="none", ci="none", time=H)
    pm = pmcalibration(y, P, smooth="none", ci="none", time=H)
    pd.testing.assert_series_equal(pm.metrics, ref_pm.metrics)
    rep = report(P, y, time=H, sections=["decision"], figures=False)
    assert rep.kind == "survival" and rep.n == N


def test_pmcalibration_takes_a_list():
    # this used to fail with "y and p are not the same length"
    fit = pmcalibration([TIME, STATUS], P, smooth="none", ci="none", time=H)
    assert fit.outcome == "tte" and fit.data.shape == (N, 3)


def _message(fn):
    with pytest.raises(CalstatsError) as err:
        fn()
    assert "\n" not in str(err.value)
    return str(err.value)


BAD = {
    "lengths": ((TIME[:-1], STATUS), "A time-to-event `y` = (time, status) needs two arrays of the same length."),
    "status 0/1/2": ((TIME, np.where(STATUS == 1, 2, 0) + (np.arange(N) == 0)),
                     "Argument `y[1]` must contain only `0` (censored) and `1` (event), or R's `1` (censored) "
                     "and `2` (event)."),
    "status text": ((TIME, np.where(STATUS == 1, "dead", "alive")),
                    "Argument `y[1]` must contain only `0` (censored) and `1` (event), or R's `1` (censored) "
                    "and `2` (event)."),
    "time text": ((TIME.astype(str), STATUS), "Argument `y[0]` must be a numeric vector."),
    "time inf": ((np.where(np.arange(N) == 3, np.inf, TIME), STATUS),
                 "Argument `y[0]` must contain only finite values."),
    "frame status": (pd.DataFrame({"t": TIME, "d": STATUS * 3}),
                     'Argument `y["d"]` must contain only `0` (censored) and `1` (event), or R\'s `1` (censored) '
                     "and `2` (event)."),
    "array time": (np.column_stack([np.where(np.arange(N) == 3, np.inf, TIME), STATUS]),
                   "Argument `y[:, 0]` must contain only finite values."),
}


@pytest.mark.parametrize("case", list(BAD))
def test_front_ends_give_the_same_messages(case):
    y, expected = BAD[case]
    p = P[:-1] if case == "lengths" else P
    got = {
        "reader": _message(lambda: read_surv(y)),
        "decision_curve": _message(lambda: decision_curve(p, y, [0.2], time=H)),
        "pmcalibration": _message(lambda: pmcalibration(y, p, smooth="none", ci="none", time=H)),
        "report": _message(lambda: report(p, y, time=H, sections=["decision"], figures=False)),
    }
    assert got == {k: expected for k in got}


def test_surv_object_names_its_parts_and_checks_at_construction():
    with pytest.raises(CalstatsError, match=r"^Argument `time` must be a numeric vector\.$"):
        Surv(["a", "b"], [0, 1])
    with pytest.raises(CalstatsError, match=r"^Arguments `time` and `event` must have the same length\.$"):
        Surv([1, 2, 3], [0, 1])
    with pytest.raises(CalstatsError, match=r"^Argument `event` must contain event codes"):
        Surv([1, 2], [0, -1])
    s = Surv([1.0, 2.0], [0, 3])  # a cause-3 event: a competing-risk outcome
    assert s.type == "mstate"
    with pytest.raises(CalstatsError, match=r"^Argument `y\.event` must contain only `0`"):
        read_surv(s)
    assert read_surv(s, competing=True).causes == (3,)


def test_surv_prints_as_r():
    assert repr(Surv([1, 2.5, 3, 4], [1, 0, 1, 0])) == "Surv(1.0 2.5+ 3.0 4.0+)"
    assert repr(Surv([1, 2, 3], [1, 2, 2])) == "Surv(1+ 2 3)"  # R's 1/2 coding
    assert repr(Surv([1, 2, 3, 4], [0, 1, 2, 1])) == "Surv(1+ 2:1 3:2 4:1)"
    cat = pd.Categorical(["censor", "cancer", "other"], categories=["censor", "cancer", "other"])
    assert repr(Surv([1, 2, 3], cat)) == "Surv(1+ 2:cancer 3:other)"
    assert repr(Surv([1, np.nan], [1, 1])) == "Surv(1 NA)"
    assert calstats.Surv is Surv


def test_competing_codes_and_causes():
    out = read_surv(([1, 2, 3, 4], [0, 2, 1, 2]), competing=True)
    assert out.causes == (1, 2) and out.status.tolist() == [0, 2, 1, 2]
    assert out.cause_code(None) == 1 and out.cause_code(2) == 2 and out.cause_code(2.0) == 2
    with pytest.raises(CalstatsError, match=r"^Argument `cause` must be one of the causes in the outcome: `1`, `2`\.$"):
        out.cause_code(3)
    cat = pd.Categorical(["censor", "cancer", "other", "cancer"], categories=["censor", "cancer", "other"])
    out = read_surv(([1, 2, 3, 4], cat), competing=True)
    assert out.causes == ("cancer", "other") and out.status.tolist() == [0, 1, 2, 1]
    assert out.cause_code("other") == 2 and out.cause_label(2) == "other"
    with pytest.raises(CalstatsError, match=r"^Argument `y\[1\]` must contain event codes"):
        read_surv(([1, 2], [0, 1.5]), competing=True)
    # a two-level categorical is a right-censored status (first level censored)
    two = pd.Categorical(["alive", "dead"], categories=["alive", "dead"])
    assert read_surv(([1, 2], two)).status.tolist() == [0, 1]
    with pytest.raises(CalstatsError, match=r"^Argument `y\[1\]` must contain only `0`"):
        read_surv(([1, 2, 3], cat[:3]))


def test_separate_arguments_and_missing_values():
    out = read_surv_args(TIME, STATUS)
    assert out.names == ("time", "status")
    assert read_surv_args(Surv(TIME, STATUS), None).names == ("time.time", "time.event")
    with pytest.raises(CalstatsError, match=r"^Argument `status` must not contain missing values\.$"):
        read_surv_args([1, 2], [1, np.nan])
    kept = read_surv(([1.0, np.nan, 3.0], [1, 0, np.nan]), allow_missing=True)
    assert np.isnan(kept.time[1]) and np.isnan(kept.status[2]) and kept.status[0] == 1
    with pytest.raises(CalstatsError, match=r"^Argument `y` must be a time-to-event outcome"):
        read_surv(np.zeros((4, 3)))


def test_shape_detection():
    assert is_surv((TIME, STATUS)) and is_surv([TIME, STATUS]) and is_surv(np.zeros((3, 2)))
    assert not is_surv([0, 1]) and not is_surv(np.zeros(4)) and not is_surv(pd.DataFrame({"a": [1]}))
    assert not is_surv(np.zeros((3, 3))) and not is_surv("ab")
    t, s, names = surv_parts(pd.DataFrame({"a": [1.0], "b": [1]}))
    assert names == ('y["a"]', 'y["b"]')


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 100), st.sampled_from([0, 1])), min_size=1, max_size=30))
def test_inputs_never_mutated_and_forms_agree(rows):
    t = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows])
    keep = t.copy(), s.copy()
    forms = _forms(t, s)
    if not s.any():
        # R's 1/2 coding of no event is all 1: R (and calstats) read that as all events
        assert read_surv(forms.pop("R 1/2 coding")).status.all()
    outs = [read_surv(y) for y in forms.values()]
    assert np.array_equal(t, keep[0]) and np.array_equal(s, keep[1])
    for out in outs[1:]:
        assert np.allclose(out.time, outs[0].time, rtol=1e-6) and np.array_equal(out.status, outs[0].status)
    # the reader's arrays are its own
    outs[0].time[0] = -1.0
    assert t[0] == keep[0][0]
