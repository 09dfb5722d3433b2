"""skce, cal_test, cal_ci and the debiased ECE (inference.md).

No R fixtures exist for probcal 0.2.0, so the reference values are inference.md's (direct
O(n^2) formulas; mmce values from probcal 0.1.0 in R), and every fast path is checked
against a direct long-double O(n^2) oracle written here from the spec's formulas.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from calstats import rng
from calstats.evaluation.inference import cal_test, skce
from calstats.evaluation.intervals import CalCi, cal_ci
from calstats.evaluation.metrics import ece_debiased
from calstats.kernels import pairwise as K

LD = np.longdouble
PB = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.65])
YB = np.array([0, 1, 0, 1, 1, 0])
PM = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.4, 0.4, 0.2], [0.3, 0.3, 0.4],
               [0.05, 0.9, 0.05]])
YM = np.array([1, 2, 3, 2, 1, 2])


# --------------------------------------------------------------------------------------
# direct O(n^2) oracle (inference.md §2.2-§2.3), long double


def _h_scalar(r, e, nu):
    r, e = np.asarray(r, LD), np.asarray(e, LD)
    return e[:, None] * e[None, :] * np.exp(-np.abs(r[:, None] - r[None, :]) / LD(nu))


def _h_canonical(p, codes, nu):
    p = np.asarray(p, LD)
    e = -p.copy()
    e[np.arange(len(codes)), np.asarray(codes) - 1] += 1
    d = 0.5 * np.abs(p[:, None, :] - p[None, :, :]).sum(axis=2)
    return np.exp(-d / LD(nu)) * (e @ e.T)


def _estimates(h):
    n = h.shape[0]
    biased = h.sum() / (n * n)
    uq = (h.sum() - np.trace(h)) / (n * (n - 1))
    m = n // 2
    ul = np.mean([h[2 * i, 2 * i + 1] for i in range(m)]) if m else math.nan
    return {"biased": float(biased), "uq": float(uq), "ul": float(ul)}, float(np.abs(h).mean())


def _top(p, codes):
    pred = np.argmax(p, axis=1)
    return p[np.arange(len(codes)), pred], (pred + 1 == codes).astype(float)


def _oracle(p, y, estimator, type="confidence", nu=0.2):
    p = np.asarray(p, float)
    if p.ndim == 1:
        return _estimates(_h_scalar(p, np.asarray(y) - p, nu))
    codes = np.asarray(y)
    if type == "confidence":
        r, c = _top(p, codes)
        return _estimates(_h_scalar(r, c - r, nu))
    if type == "canonical":
        return _estimates(_h_canonical(p, codes, nu))
    vals = [_estimates(_h_scalar(p[:, j], (codes == j + 1) - p[:, j], nu)) for j in range(p.shape[1])]
    return ({k: float(np.mean([v[0][k] for v in vals])) for k in ("biased", "uq", "ul")},
            float(np.mean([v[1] for v in vals])))


def _close(got, want, scale, rel=1e-12):
    """|got - want| <= rel * max(|want|, mean |h_ij|) (inference.md §6: 1e-12 relative,
    measured on the scale of the summands when the value itself cancels to ~0)."""
    assert abs(got - want) <= rel * max(abs(want), scale) + 1e-300, (got, want)


def _sim_binary(n, seed, power=1.0):
    rs = np.random.default_rng(seed)
    p = rs.random(n)
    y = (rs.random(n) < p ** power).astype(int)
    return p, y


def _sim_multi(n, k, seed, temp=1.0):
    rs = np.random.default_rng(seed)
    z = rs.normal(size=(n, k)) * 1.5
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    q = np.exp(z * temp) / np.exp(z * temp).sum(axis=1, keepdims=True)
    y = np.array([rs.choice(k, p=row) for row in q]) + 1
    return p, y


# --------------------------------------------------------------------------------------
# reference values (inference.md §2.3, §5)


@pytest.mark.parametrize("bw, want", [
    (0.2, (0.01120195578, -0.01872431973, -0.01312952237)),
    ("median", (0.008267568727, -0.02224558419, -0.02198025374)),
])
def test_reference_values_binary(bw, want):
    got = [skce(PB, YB, est, bandwidth=bw) for est in ("biased", "uq", "ul")]
    np.testing.assert_allclose(got, want, rtol=2e-9)


def test_median_bandwidth_reference():
    assert K.median_pairwise_1d(PB) == pytest.approx(0.3, abs=1e-15)
    assert K.median_tv(PM) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("type, bw, want, rtol", [
    ("confidence", 0.2, (0.01857981027, -0.001370894344, 0.01369056452), 2e-9),
    ("canonical", 0.2, (0.04865684482, -0.004778452886, -0.005299564000), 2e-9),
    ("canonical", "median", (0.04304580140, -0.01151170498, -0.02648323987), 2e-9),
    ("classwise", 0.2, (0.01634568, -0.00144074, -0.00341129), 5e-6),
])
def test_reference_values_matrix(type, bw, want, rtol):
    got = [skce(PM, YM, est, type=type, bandwidth=bw) for est in ("biased", "uq", "ul")]
    np.testing.assert_allclose(got, want, rtol=rtol)


def test_mmce_reference_identity():
    assert calstats.mmce(PB, YB) == pytest.approx(0.105839292221, abs=1e-12)
    assert math.sqrt(skce(PB, YB, "biased")) == pytest.approx(0.105839292221, abs=1e-12)
    assert math.sqrt(skce(PM, YM, "biased")) == pytest.approx(0.136307777726, abs=1e-12)


def test_debiased_ece_reference():
    p = [0.1, 0.15, 0.4, 0.45, 0.8, 0.9, 0.85, 0.3]
    y = [0, 1, 1, 0, 1, 1, 0, 0]
    assert ece_debiased(p, y, bins=5) == pytest.approx(-0.1175, abs=1e-15)
    assert calstats.ece(p, y, bins=5) == 0.21875
    assert ece_debiased(PB, YB, bins=5) == pytest.approx(0.0075, abs=1e-15)


def test_debiased_ece_matrix_and_unbiasedness():
    # classwise = mean of the per-class binary values; confidence = binary on (r, c)
    p, y = _sim_multi(200, 3, 4)
    per = [ece_debiased(p[:, j], (y == j + 1).astype(int), bins=7) for j in range(3)]
    assert ece_debiased(p, y, bins=7) == pytest.approx(np.mean(per), abs=1e-15)
    r, c = _top(p, y)
    assert ece_debiased(p, y, bins=7, type="confidence") == ece_debiased(r, c.astype(int), bins=7)
    # calibrated scores constant within each bin: the debiased value is unbiased for 0,
    # while the plug-in squared ECE is biased upwards (inference.md §5, "Why")
    rs = np.random.default_rng(12)
    vals, plug = [], []
    for _ in range(400):
        p = rs.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=60)
        y = (rs.random(60) < p).astype(int)
        vals.append(ece_debiased(p, y, bins=5))
        st_ = calstats.kernels.bins.bin_stats(p, y, 5)
        plug.append(np.nansum(st_.n / 60 * st_.gap**2))
    assert abs(np.mean(vals)) < 4 * np.std(vals) / math.sqrt(len(vals))
    assert np.mean(plug) > 10 * np.std(plug) / math.sqrt(len(plug))


def test_debiased_ece_checks_like_ece():
    for bad in [dict(p=[0.2, 1.5], y=[0, 1]), dict(p=[0.2, 0.5], y=[0, 2]), dict(p=[0.2, 0.5], y=[0, 1, 1]),
                dict(p=[0.2, 0.5], y=[0, 1], bins=0), dict(p=PM, y=YM, type="foo")]:
        with pytest.raises(calstats.CalstatsError) as want:
            calstats.ece(**bad)
        with pytest.raises(calstats.CalstatsError, match=None) as got:
            ece_debiased(**bad)
        assert str(got.value) == str(want.value)


# --------------------------------------------------------------------------------------
# fast paths == direct O(n^2) formulas


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 10**6), nu=st.sampled_from([0.2, 0.05, 1.0, 1e-3]),
       ties=st.booleans())
def test_scalar_estimators_match_direct(n, seed, nu, ties):
    rs = np.random.default_rng(seed)
    p = rs.random(n)
    if ties:
        p = np.round(p, 1)
    y = (rs.random(n) < p).astype(int)
    want, scale = _oracle(p, y, None, nu=nu)
    for est in ("biased", "uq", "ul"):
        _close(skce(p, y, est, bandwidth=nu), want[est], scale)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 30), k=st.integers(2, 5), seed=st.integers(0, 10**6),
       type=st.sampled_from(["confidence", "canonical", "classwise"]))
def test_matrix_estimators_match_direct(n, k, seed, type):
    rs = np.random.default_rng(seed)
    p = rs.dirichlet(np.ones(k), size=n)
    y = rs.integers(1, k + 1, size=n)
    y[:k] = np.arange(1, k + 1)[: min(k, n)] if n >= k else y[:n]
    if y.max() < k:
        y[-1] = k
    want, scale = _oracle(p, y, None, type=type, nu=0.3)
    for est in ("biased", "uq", "ul"):
        _close(skce(p, y, est, type=type, bandwidth=0.3), want[est], scale)


def test_lap_pair_sums_chunks_and_columns():
    # many columns, tiny bandwidth (several exponent-span chunks), duplicates
    rs = np.random.default_rng(3)
    x = np.sort(np.concatenate([rs.random(1500), np.full(50, 0.5)]))
    a = rs.normal(size=(x.size, 3))
    for nu, rows in ((0.2, None), (0.2, 97), (1e-3, None), (1e-3, 1)):
        got = K.lap_pair_sums(x, a, nu, rows=rows)
        kk = np.tril(np.exp(-np.abs(x[:, None] - x[None, :]) / nu), -1)
        want = (a * (kk @ a)).sum(axis=0)
        scale = (np.abs(a) * (kk @ np.abs(a))).sum(axis=0)
        assert np.all(np.abs(got - want) <= 1e-12 * scale)


def test_skce_biased_equals_mmce_squared():
    for n, seed in [(7, 1), (300, 2), (6000, 3)]:  # 6000: mmce's own O(n log n) path
        p, y = _sim_binary(n, seed, power=1.3)
        assert skce(p, y, "biased") == pytest.approx(calstats.mmce(p, y) ** 2, rel=1e-12)
        assert skce(p, y, "biased", bandwidth=0.05) == pytest.approx(calstats.mmce(p, y, 0.05) ** 2, rel=1e-12)
    pm, ym = _sim_multi(500, 4, 5, temp=0.6)
    assert skce(pm, ym, "biased") == pytest.approx(calstats.mmce(pm, ym) ** 2, rel=1e-12)


def test_identities_two_classes_and_uq_from_biased():
    p, y = _sim_binary(80, 8, power=1.5)
    pm = np.column_stack([1 - p, p])
    ym = y + 1
    binary = skce(p, y, "uq")
    assert skce(pm, ym, "uq", type="canonical") == pytest.approx(2 * binary, rel=1e-10)
    assert skce(pm, ym, "uq", type="classwise") == pytest.approx(binary, rel=1e-10)
    n = p.size
    e = y - p
    via_b = n / (n - 1) * skce(p, y, "biased") - (e @ e) / (n * (n - 1))
    assert skce(p, y, "uq") == pytest.approx(via_b, rel=1e-10)


def test_canonical_blocks_and_median_selection_are_exact():
    p, y = _sim_multi(150, 4, 11)
    e = -p.copy()
    e[np.arange(150), y - 1] += 1
    full = K.canonical_sums(p, e, 0.3, block=4096)
    assert K.canonical_sums(p, e, 0.3, block=7) == pytest.approx(full, rel=1e-13)
    w = np.random.default_rng(0).choice([-1.0, 1.0], size=(150, 3))
    np.testing.assert_allclose(K.canonical_sums(p, e, 0.3, weights=w, block=16),
                               K.canonical_sums(p, e, 0.3, weights=w, block=4096), rtol=1e-12)
    d = K.tv_distances(p, p)[np.triu_indices(150, 1)]
    assert K.median_tv(p, block=13) == np.median(d)
    first = K._tv_pass(p, 13, [], False)
    n_pairs = d.size
    assert K._tv_kth(p, n_pairs // 3, 13, first, max_candidates=5) == np.sort(d)[n_pairs // 3 - 1]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.7, 1.0]) | st.floats(0, 1), min_size=2, max_size=60))
def test_median_pairwise_1d_exact(xs):
    x = np.array(xs)
    d = np.abs(x[:, None] - x[None, :])[np.triu_indices(x.size, 1)]
    assert K.median_pairwise_1d(x) == np.median(d)


def test_median_pairwise_large_bisection():
    x = np.random.default_rng(2).random(3001)
    d = np.abs(x[:, None] - x[None, :])[np.triu_indices(x.size, 1)]
    assert K.median_pairwise_1d(x) == np.median(d)


# --------------------------------------------------------------------------------------
# random draws


def test_bulk_draws_are_rs_stream():
    rng.set_seed(42)
    want = rng.sample([-1, 1], 2000, True)
    after = rng.get_state()
    rng.set_seed(42)
    assert np.array_equal(K.rademacher(2000), want) and rng.get_state() == after
    for n in (7, 1000, 40000):
        rng.set_seed(9)
        want = rng.sample_int(n, 3000, True)
        after = rng.get_state()
        rng.set_seed(9)
        assert np.array_equal(K.unif_index(n, 3000) + 1, want) and rng.get_state() == after


# --------------------------------------------------------------------------------------
# cal_test


def test_cal_test_bootstrap_matches_direct_formula():
    p, y = _sim_binary(25, 1, power=1.4)
    res = cal_test(p, y, n_boot=7, seed=5)
    h = np.asarray(_h_scalar(p, y - p, 0.2), float)
    np.fill_diagonal(h, 0.0)
    rng.set_seed(5)
    reps = [rng.sample([-1, 1], 25, True) for _ in range(7)]
    want = [w @ h @ w / (25 * 24) for w in np.array(reps, float)]
    np.testing.assert_allclose(res.replicates, want, rtol=1e-12, atol=1e-16)
    t = res.statistic["SKCE_uq"]
    assert t == pytest.approx(skce(p, y), rel=1e-15)
    assert res.p_value == (1 + np.sum(res.replicates >= t)) / 8
    assert res.inherits("cal_test") and res.r_class == ("cal_test", "htest")
    assert res.null_value == {"SKCE": 0.0} and res.alternative == "greater" and res.n == 25
    # canonical form, blocked bootstrap
    pm, ym = _sim_multi(30, 3, 2)
    res = cal_test(pm, ym, type="canonical", n_boot=4, seed=1)
    h = np.asarray(_h_canonical(pm, ym, 0.2), float)
    np.fill_diagonal(h, 0.0)
    rng.set_seed(1)
    want = [w @ h @ w / (30 * 29) for w in (np.array(rng.sample([-1, 1], 30, True), float) for _ in range(4))]
    np.testing.assert_allclose(res.replicates, want, rtol=1e-12, atol=1e-16)


def test_cal_test_asymptotic_and_print():
    p, y = _sim_binary(41, 3, power=2.0)
    res = cal_test(p, y, method="asym")
    h = np.asarray(_h_scalar(p, y - p, 0.2), float)
    d = np.array([h[2 * i, 2 * i + 1] for i in range(20)])
    z = math.sqrt(20) * d.mean() / d.std(ddof=1)
    assert res.statistic["z"] == pytest.approx(z, rel=1e-12)
    assert res.p_value == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-12)
    assert res.parameter == {"bandwidth": 0.2, "pairs": 20} and res.replicates is None
    text = str(res)
    assert text.startswith("\n\tKernel calibration test (SKCE, asymptotic normal, linear estimator)\n\ndata:  p and y\n")
    assert "alternative hypothesis: true SKCE is greater than 0" in text
    boot = str(cal_test(PB, YB, n_boot=99, seed=1))
    assert "SKCE_uq = -0.018724, bandwidth = 0.2, n_boot = 99, p-value = " in boot
    assert boot.endswith("sample estimates:\n    SKCE_uq \n-0.01872432 \n")


def test_cal_test_level_and_power():
    """Calibrated data: rejection rate near alpha = 0.05; miscalibrated: high power."""
    rng.set_seed(2024)
    null_p = [cal_test(*_sim_binary(60, 1000 + s), n_boot=99).p_value for s in range(300)]
    rate = np.mean(np.array(null_p) <= 0.05)
    assert 0.015 <= rate <= 0.10, rate  # binomial sd at 300 reps: 0.0126
    alt_p = [cal_test(*_sim_binary(60, 5000 + s, power=3.0), n_boot=99).p_value for s in range(60)]
    assert np.mean(np.array(alt_p) <= 0.05) >= 0.8
    asym = [cal_test(*_sim_binary(200, 7000 + s), method="asymptotic").p_value for s in range(300)]
    assert 0.015 <= np.mean(np.array(asym) <= 0.05) <= 0.10


def test_cal_test_errors_in_order():
    E = calstats.CalstatsError
    with pytest.raises(E, match="'arg' should be one of “bootstrap”, “asymptotic”"):
        cal_test(PB, YB, method="perm")
    with pytest.raises(E, match="'arg' should be one of “confidence”, “canonical”, “classwise”"):
        cal_test(PB, YB, type="x")
    with pytest.raises(E, match="The classwise average has no calibration test"):
        cal_test(PM, YM, type="classwise", bandwidth=-1)
    with pytest.raises(E, match='Argument `bandwidth` must be a single positive number or "median".'):
        cal_test([2.0], YB, bandwidth=True)
    with pytest.raises(E, match="must contain probabilities"):
        cal_test([2.0], YB)
    with pytest.raises(E, match='At least two observations are needed for estimator "uq".'):
        cal_test([0.5], [1], n_boot=0)
    with pytest.raises(E, match="Argument `n_boot` must be a single positive integer."):
        cal_test(PB, YB, n_boot=0)
    with pytest.raises(E, match="At least four observations are needed for the asymptotic test."):
        cal_test(PB[:3], YB[:3], method="asymptotic")
    with pytest.raises(E, match="The pairwise terms have zero variance"):
        cal_test([0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1], method="asymptotic")
    with pytest.warns(calstats.CalstatsWarning, match="NAs introduced by coercion"), \
            pytest.raises(E, match="supplied seed is not a valid integer"):
        cal_test(PB, YB, seed="abc")


def test_skce_errors_in_order():
    E = calstats.CalstatsError
    msg = 'Argument `bandwidth` must be a single positive number or "median".'
    for bw in (0, -1, math.inf, math.nan, "med", True, [0.1, 0.2], None):
        with pytest.raises(E, match=msg):
            skce("not checked yet", YB, estimator="bad", bandwidth=bw)
    with pytest.raises(E, match="'arg' should be one of “uq”, “ul”, “biased”"):
        skce([2.0], YB, estimator="x")
    with pytest.raises(E, match="Each row of `p` must sum to `1`."):
        skce(PM * 0.5, YM, type="bad")
    with pytest.raises(E, match="'arg' should be one of"):
        skce(PM, [9], type="bad")
    with pytest.raises(E, match="Argument `y` has 2 classes but the input has 3 columns."):
        skce(PM, [1, 2])
    with pytest.raises(E, match="must have the same number of observations"):
        skce(PM, [1, 2, 3])
    with pytest.raises(E, match="Arguments `p` and `y` must have the same length."):
        skce(PM, [1, 2, 3], type="classwise")
    with pytest.raises(E, match="Arguments `p` and `y` must have the same length."):
        skce(PB, YB[:5])
    with pytest.raises(E, match='At least two observations are needed for estimator "ul".'):
        skce([0.3], [1], "ul")
    assert skce([0.3], [1], "biased") == pytest.approx(0.49)
    with pytest.raises(E, match="The median heuristic gives a zero bandwidth"):
        skce([0.5, 0.5, 0.5, 0.5, 0.2], [1, 0, 1, 0, 1], bandwidth="median")
    assert skce(PB, YB, type="ignored for a vector") == skce(PB, YB)


def test_inputs_unchanged_pandas_float32():
    p = pd.Series(PB.astype(np.float32))
    y = pd.Series(YB.astype(bool))
    before = p.copy()
    assert skce(p, y) == pytest.approx(skce(PB.astype(np.float32).astype(float), YB), rel=1e-15)
    assert p.equals(before)
    df = pd.DataFrame(PM, columns=["a", "b", "c"])
    fac = pd.Categorical(np.array(["a", "b", "c"])[YM - 1], categories=["a", "b", "c"])
    assert skce(df, fac, type="canonical") == skce(PM, YM, type="canonical")


# --------------------------------------------------------------------------------------
# cal_ci


def _recompute(p, y, metric, args, seed, n_boot):
    """Replicates by recomputation on p[idx], y[idx] (the definition)."""
    fn = {"ece": calstats.ece, "mce": calstats.mce, "ace": calstats.ace, "mmce": calstats.mmce, "skce": skce}[metric]
    if args.get("debiased"):
        fn = ece_debiased
    args = {k: v for k, v in args.items() if k != "debiased"}
    rng.set_seed(seed)
    out = []
    for _ in range(n_boot):
        idx = rng.sample_int(len(y), len(y), True) - 1
        yy = y[idx] if np.ndim(p) == 1 else calstats.Factor(y[idx].astype(str), levels=["1", "2", "3"])
        out.append(fn(p[idx], yy, **args))
    return np.array(out)


_CI_CASES = [
    ("ece", {}), ("ece", {"bins": 4, "type": "confidence"}), ("mce", {"bins": 5}), ("ace", {}),
    ("ece", {"debiased": True}), ("mmce", {"bandwidth": 0.1}), ("skce", {}), ("skce", {"estimator": "ul"}),
    ("skce", {"estimator": "biased", "type": "canonical"}), ("skce", {"type": "canonical"}),
    ("skce", {"type": "classwise", "estimator": "biased"}),
]
_CI_PARAMS = [(matrix, metric, args) for matrix in (False, True) for metric, args in _CI_CASES
              if matrix or args.get("type") not in ("canonical", "classwise")]  # type is ignored for a vector


@pytest.mark.parametrize("matrix, metric, args", _CI_PARAMS)
def test_cal_ci_replicates_equal_recomputation(matrix, metric, args):
    p, y = _sim_multi(45, 3, 6, temp=0.7) if matrix else _sim_binary(45, 6, power=1.5)
    res = cal_ci(p, y, metric, n_boot=12, seed=8, **args)
    want = _recompute(p, y, metric, args, 8, 12)
    np.testing.assert_allclose(res.replicates, want, rtol=1e-12, atol=1e-15)
    lo, hi = np.quantile(want, [0.025, 0.975])
    assert res.conf_int == pytest.approx((lo, hi), rel=1e-12, abs=1e-15)


def test_cal_ci_median_bandwidth_computed_once():
    p, y = _sim_binary(40, 2)
    res = cal_ci(p, y, "skce", n_boot=6, seed=1, bandwidth="median")
    nu = K.median_pairwise_1d(p)
    np.testing.assert_allclose(res.replicates, _recompute(p, y, "skce", {"bandwidth": nu}, 1, 6), rtol=1e-12,
                               atol=1e-15)
    assert res.estimate == skce(p, y, bandwidth="median")


def test_cal_ci_coverage_of_skce():
    """Percentile intervals of SKCE_uq cover the population SKCE about 95% of the time.

    Model: r ~ U(0, 1), P(y = 1 | r) = r^1.5; SKCE = int int g(s) g(t) exp(-|s - t|/0.2)
    with g(s) = s^1.5 - s (midpoint rule on a fine grid).
    """
    g_n = 4000
    s = (np.arange(g_n) + 0.5) / g_n
    g = s ** 1.5 - s
    q = 2 * K.lap_pair_sums(s, g, 0.2) + g @ g
    truth = q / g_n**2
    rng.set_seed(77)
    hits = []
    for rep in range(120):
        p, y = _sim_binary(150, 900 + rep, power=1.5)
        lo, hi = cal_ci(p, y, "skce", n_boot=150).conf_int
        hits.append(lo <= truth <= hi)
    assert 0.85 <= np.mean(hits) <= 1.0, np.mean(hits)


def test_cal_ci_print_frame_and_fields():
    res = cal_ci(PB, YB, n_boot=50, seed=1)
    assert isinstance(res, CalCi) and res.inherits("cal_ci") and res.method == "percentile bootstrap"
    assert res.names() == ["estimate", "conf.int", "conf.level", "n_boot", "metric", "metric_args", "replicates",
                           "seed", "method"]
    assert res.estimate == calstats.ece(PB, YB)
    lo, hi = res.conf_int
    text = str(res)
    assert text.splitlines()[0] == "ece = 0.3333333"
    assert text.splitlines()[1].startswith("  95% percentile bootstrap CI: [")
    assert text.splitlines()[2] == "  (n_boot = 50)"
    frame = res.as_frame()
    assert list(frame.columns) == ["metric", "estimate", "lower", "upper", "conf_level", "n_boot"]
    assert frame.loc[0, "lower"] == lo


def test_seeds_and_global_stream():
    p, y = _sim_binary(30, 1)
    a = cal_ci(p, y, n_boot=20, seed=3)
    rng.set_seed(11)
    state = rng.get_state()
    b = cal_ci(p, y, n_boot=20, seed=3)
    assert rng.get_state() == state  # a seed leaves the global stream untouched
    assert np.array_equal(a.replicates, b.replicates)
    # seed=None: the global stream, reproducible after set_seed, and advanced
    rng.set_seed(3)
    c = cal_ci(p, y, n_boot=20)
    after = rng.get_state()
    assert np.array_equal(c.replicates, a.replicates)
    rng.set_seed(3)
    rng.sample_int(30, 30 * 20, True)  # the same draws, made by hand
    assert rng.get_state() == after
    rng.set_seed(3)
    t1 = cal_test(p, y, n_boot=30)
    rng.set_seed(3)
    rng.sample([-1, 1], 30 * 30, True)
    assert rng.get_state() != state
    t2 = cal_test(p, y, n_boot=30, seed=3)
    assert np.array_equal(t1.replicates, t2.replicates)


def test_cal_ci_errors():
    E = calstats.CalstatsError
    with pytest.raises(E, match="'arg' should be one of “ece”, “skce”, “mmce”, “mce”, “ace”"):
        cal_ci(PB, YB, "brier", conf_level=2)
    for cl in (0, 1, 1.5, "a", [0.9, 0.95], True):
        with pytest.raises(E, match=r"Argument `conf_level` must be a single number in `\(0, 1\)`."):
            cal_ci(PB, YB, conf_level=cl, n_boot=0)
    with pytest.raises(E, match="Argument `n_boot` must be a single positive integer."):
        cal_ci(PB, YB, n_boot=2.5)
    with pytest.raises(E, match=r"unused argument \(bandwidth = 0.1\)"):
        cal_ci(PB, YB, "ece", bandwidth=0.1)
    with pytest.raises(E, match="Argument `bins` must be a single positive integer."):
        cal_ci(PB, YB, "mce", bins=0)
    with pytest.raises(E, match="Argument `debiased` must be `True` or `False`."):
        cal_ci(PB, YB, "ece", debiased="yes")
    with pytest.raises(E, match='must be a single positive number or "median"'):
        cal_ci(PB, YB, "skce", bandwidth=-1)
    with pytest.raises(E, match="must contain probabilities"):
        cal_ci([1.5, 0.2], [0, 1])


def test_cal_ci_missing_logical_label_uses_recomputation():
    p = PB
    y = pd.array([False, True, None, True, True, False], dtype="boolean")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cal_ci(p, y, "ece", n_boot=15, seed=2)
    rng.set_seed(2)
    want = []
    for _ in range(15):
        idx = rng.sample_int(6, 6, True) - 1
        want.append(calstats.ece(p[idx], y[idx]))
    np.testing.assert_array_equal(res.replicates, want)


def test_ece_debiased_argument_dispatches_to_the_debiased_estimator():
    import calstats
    from calstats.evaluation.metrics import ece_debiased

    rs = np.random.default_rng(7)
    p = rs.random(400)
    y = (rs.random(400) < p**1.5).astype(int)
    assert calstats.ece(p, y, debiased=True) == ece_debiased(p, y)
    assert calstats.ece(p, y, debiased=True) != calstats.ece(p, y)
    with pytest.raises(calstats.CalstatsError, match="Argument `debiased` must be `True` or `False`."):
        calstats.ece(p, y, debiased="yes")
