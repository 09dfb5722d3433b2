"""float32 matrices without a float64 copy, and the classwise bins read by rows in blocks.

A float32 matrix is read as its exact float64 widening (in C, or one block of rows at a
time), so every number must be the one of ``P.astype(np.float64)``, bit for bit; the
classwise bins read row by row (:func:`calstats.kernels.blocks.classwise_bin_stats`) must be
those of the column-by-column path, whatever the blocks.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs
from calstats import CalstatsError
from calstats import _validate as v
from calstats.calibrators import scaling
from calstats.evaluation import metrics
from calstats.kernels import blocks
from calstats.kernels.bins import bin_stats
from calstats.kernels.probs import softmax
from calstats.numerics import core
from calstats.numerics._scan import colbin_pass, prob_scan


def _bits(x):
    return np.asarray(x, dtype=np.float64).tobytes()


def _logits(n, k, seed=0):
    """N(0, 9) logits (float32) and 1-based labels drawn from softmax(z / 2)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(0.0, 3.0, size=(n, k)).astype(np.float32)
    E = np.exp(Z / 2.0 - (Z / 2.0).max(axis=1, keepdims=True))
    C = np.cumsum(E, axis=1)
    y = np.minimum((C < (rng.random(n) * C[:, -1])[:, None]).sum(axis=1), k - 1) + 1
    return Z, y.astype(np.int64)


def _probs(n, k, seed=0, temperature=1.5):
    """A float32 probability matrix (the float64 softmax rounded once: rows sum to 1 within
    2^-24) and labels."""
    Z, y = _logits(n, k, seed)
    P = np.exp(Z / temperature - (Z / temperature).max(axis=1, keepdims=True))
    return (P / P.sum(axis=1, keepdims=True)).astype(np.float32), y


def _both_paths(monkeypatch, fn):
    """``fn()`` column by column, then by rows in blocks of one to a few rows."""
    monkeypatch.setattr(metrics, "CLASSWISE_BLOCK_MIN", 1 << 62)
    a = fn()
    monkeypatch.setattr(metrics, "CLASSWISE_BLOCK_MIN", 0)
    monkeypatch.setattr(blocks, "BLOCK_ENTRIES", 17)
    b = fn()
    return a, b


# --------------------------------------------------------------------------------------
# temperature scaling


@pytest.mark.parametrize("weighted", [False, True])
def test_temperature_float32_is_float64(weighted):
    Z, y = _logits(1500, 12, seed=3)
    w = np.random.default_rng(4).random(Z.shape[0]) if weighted else None
    a = cs.cal_temperature(Z, y, weights=w)
    b = cs.cal_temperature(Z.astype(np.float64), y, weights=w)
    assert 1.5 < a.temperature < 2.5  # a real optimum, not a bound
    for f in ("temperature", "value", "n", "k", "levels", "convergence"):
        assert getattr(a, f) == getattr(b, f), f
    assert _bits(a.temperature) == _bits(b.temperature) and _bits(a.value) == _bits(b.value)
    assert a.coef_table().equals(b.coef_table())
    pa, pb = a.predict(Z[:50], se_fit=True), b.predict(Z[:50].astype(np.float64), se_fit=True)
    assert _bits(pa.to_numpy()) == _bits(pb.to_numpy())


def test_temperature_float32_numpy_reference(monkeypatch):
    Z, y = _logits(400, 6, seed=5)
    c = cs.cal_temperature(Z, y)
    monkeypatch.setattr(scaling, "BACKEND", "numpy")
    ref = cs.cal_temperature(Z, y)
    assert _bits([c.temperature, c.value]) == _bits([ref.temperature, ref.value])


def test_temperature_keeps_float32_without_copy():
    Z, y = _logits(300, 5, seed=6)
    small = cs.cal_temperature(Z, y)
    kept = small.__dict__["_coef_data"][0]
    assert kept.dtype == np.float32 and kept is not Z  # small: a copy, safe from later edits
    data = core.ScalingData(Z, y)
    assert data.Z is Z  # the objective reads the caller's float32 array itself


def test_scaling_objectives_read_float32():
    Z, y = _logits(700, 9, seed=7)
    par = np.concatenate([np.linspace(0.4, 0.7, 9), np.linspace(-0.2, 0.3, 9)])
    for w in (None, np.random.default_rng(8).random(700)):
        d32, d64 = core.ScalingData(Z, y, w), core.ScalingData(Z.astype(np.float64), y, w)
        assert d32.Z.dtype == np.float32
        assert _bits(core.temperature_value_c(d32, 1.7)) == _bits(core.temperature_value_c(d64, 1.7))
        p32, p64 = np.empty((700, 9)), np.empty((700, 9))
        v32 = core.vector_scaling_value_c(d32, par, p32)
        v64 = core.vector_scaling_value_c(d64, par, p64)
        assert _bits(v32) == _bits(v64) and _bits(p32) == _bits(p64)
        assert _bits(core.vector_scaling_gradient_c(d32, p32)) == _bits(core.vector_scaling_gradient_c(d64, p64))


def _information_reference(Z, codes, t, w=None):
    """temperature_information's multiclass formula on the whole matrix at once."""
    Z = np.asarray(Z, dtype=np.float64)
    p = softmax(Z / t)
    mean = (p * Z).sum(axis=1)
    var = (p * Z * Z).sum(axis=1) - mean * mean
    zy = Z[np.arange(Z.shape[0]), codes - 1]
    if w is not None:
        return float(np.sum(w * var) / t**4 + 2.0 * np.sum(w * (mean - zy)) / t**3)
    return float(np.sum(var) / t**4 + 2.0 * np.sum(mean - zy) / t**3)


def test_temperature_information_blocks():
    Z, y = _logits(2700, 400, seed=9)  # more than 2^20 entries: three blocks of rows
    w = np.random.default_rng(10).random(Z.shape[0])
    for weights in (None, w):
        ref = _information_reference(Z, y, 1.9, weights)
        for z in (Z, Z.astype(np.float64)):
            got = scaling.temperature_information(z, y, 1.9, True, weights=weights)
            assert _bits(got) == _bits(ref)


# --------------------------------------------------------------------------------------
# the binned metrics


_CHOICES = [dict(), dict(bins=15), dict(bins="sturges"), dict(bins=7, right=True), dict(strategy="quantile"),
            dict(breaks=[0.0, 0.05, 0.3, 1.0]), dict(breaks=[0.0, 0.2, 0.6, 1.0], right=True), dict(weights=True),
            dict(weights=True, bins="sqrt")]


def _kwargs(choice, n):
    kw = dict(choice)
    if kw.get("weights"):
        kw["weights"] = np.random.default_rng(11).random(n)
    return kw


@pytest.mark.parametrize("choice", _CHOICES)
@pytest.mark.parametrize("type", ["classwise", "confidence"])
def test_binned_metrics_float32_is_float64(choice, type):
    P, y = _probs(900, 8, seed=12)
    kw = _kwargs(choice, 900)
    for fn in (cs.ece, cs.mce, cs.ace):
        assert _bits(fn(P, y, type=type, **kw)) == _bits(fn(P.astype(np.float64), y, type=type, **kw))
    if "weights" not in kw:
        assert _bits(cs.ece(P, y, type=type, debiased=True, **kw)) == _bits(
            cs.ece(P.astype(np.float64), y, type=type, debiased=True, **kw))


@pytest.mark.parametrize("choice", [c for c in _CHOICES if "strategy" not in c] + [dict(strategy="quantile")])
@pytest.mark.parametrize("average", ["uniform", "weighted"])
def test_top_label_ece_float32_is_float64(choice, average):
    P, y = _probs(900, 8, seed=13)
    kw = _kwargs(choice, 900)
    assert _bits(cs.top_label_ece(P, y, average=average, **kw)) == _bits(
        cs.top_label_ece(P.astype(np.float64), y, average=average, **kw))


def test_top_label_ece_mapie_float32():
    P, y = _probs(500, 5, seed=14)
    got = cs.top_label_ece(P, y, bins=20, convention="mapie")
    assert _bits(got) == _bits(cs.top_label_ece(P.astype(np.float64), y, bins=20, convention="mapie"))


@pytest.mark.parametrize("choice", _CHOICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_classwise_blocks_are_columns(monkeypatch, choice, dtype):
    P, y = _probs(600, 7, seed=15)
    P = P.astype(dtype)
    kw = _kwargs(choice, 600)
    for fn in (cs.ece, cs.mce, cs.ace):
        a, b = _both_paths(monkeypatch, lambda fn=fn: fn(P, y, **kw))
        assert _bits(a) == _bits(b), fn.__name__


def test_classwise_block_bins_are_columns(monkeypatch):
    """Every field of every bin, the reliability diagram's data included."""
    P, y = _probs(500, 6, seed=16)
    a, b = _both_paths(monkeypatch, lambda: metrics.binned(P, y, 12, "classwise")[0])
    for sa, sb in zip(a, b):
        for f in ("n", "confidence", "accuracy", "gap", "breaks"):
            assert np.asarray(getattr(sa, f)).tobytes() == np.asarray(getattr(sb, f)).tobytes(), f
    da, db = _both_paths(monkeypatch, lambda: cs.reliability_diagram(P, y, bins=12).data)
    assert da.equals(db)


def test_signed_zeros_and_singletons(monkeypatch):
    """R accepts -0 (the checks' slow path); a bin of one score keeps it as its mean."""
    P = np.array([[0.5, 0.5, -0.0], [0.0, 0.875, 0.125], [0.25, 0.6875, 0.0625], [-0.0, 0.0, 1.0]])
    y = np.array([1, 3, 2, 3])
    a, b = _both_paths(monkeypatch, lambda: metrics.binned(P, y, 40, "classwise")[0])
    for sa, sb in zip(a, b):
        assert sa.confidence.tobytes() == sb.confidence.tobytes()
    assert any(np.signbit(s.confidence[s.n == 1]).any() for s in a)


def test_breaks_outside_in_a_later_column(monkeypatch):
    P, y = _probs(200, 4, seed=17)
    P = P.astype(np.float64)
    P[7] = [0.01, 0.02, 0.95, 0.02]
    breaks = [0.0, 0.5, 0.9]
    msgs = []
    for limit in (1 << 62, 0):
        monkeypatch.setattr(metrics, "CLASSWISE_BLOCK_MIN", limit)
        with pytest.raises(CalstatsError) as e:
            cs.ece(P, y, breaks=breaks)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and "outside the range of `breaks`" in msgs[0]


def test_classwise_label_count_message(monkeypatch):
    P, y = _probs(100, 3, seed=18)
    msgs = []
    for limit in (1 << 62, 0):
        monkeypatch.setattr(metrics, "CLASSWISE_BLOCK_MIN", limit)
        with pytest.raises(CalstatsError) as e:
            cs.ece(P, y[:-1])
        msgs.append(str(e.value))
    assert msgs == ["Arguments `p` and `y` must have the same length."] * 2


@st.composite
def _problems(draw):
    n = draw(st.integers(1, 60))
    k = draw(st.integers(2, 9))
    seed = draw(st.integers(0, 2**31))
    bins = draw(st.sampled_from([1, 2, 3, 10, 33, "sqrt"]))
    right = draw(st.booleans())
    entries = draw(st.integers(1, 200))
    f32 = draw(st.booleans())
    return n, k, seed, bins, right, entries, f32


@settings(max_examples=80, deadline=None)
@given(_problems())
def test_block_size_invariance(problem):
    n, k, seed, bins, right, entries, f32 = problem
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.3), size=n)
    P = np.round(P * 8) / 8  # ties on the breaks
    P[:, 0] = 1.0 - P[:, 1:].sum(axis=1)
    P = np.abs(P)
    P /= P.sum(axis=1, keepdims=True)
    if f32:
        P = P.astype(np.float32)
    y = rng.integers(1, k + 1, n)

    def column(a, b):
        return bin_stats(a, b, bins, right=right)

    ref = [column(P[:, j], (y == j + 1).astype(np.int64)) for j in range(k)]
    old = blocks.BLOCK_ENTRIES
    try:
        blocks.BLOCK_ENTRIES = entries
        got = blocks.classwise_bin_stats(P, y, column, bins, right=right)
    finally:
        blocks.BLOCK_ENTRIES = old
    for a, b in zip(ref, got):
        for f in ("n", "confidence", "accuracy", "gap"):
            assert np.asarray(getattr(a, f)).tobytes() == np.asarray(getattr(b, f)).tobytes(), f


def test_colbin_pass_split_rows():
    """Passes over consecutive blocks of rows carry each bin's sum: one pass or many, same bits."""
    P, y = _probs(333, 11, seed=19)
    from calstats.kernels.bins import equal_width_breaks

    e = equal_width_breaks(10)
    out = []
    for cuts in ([0, 333], [0, 1, 2, 100, 333], list(range(0, 334, 7)) + [333]):
        cnt, ysum = np.zeros(110, np.int64), np.zeros(110, np.int64)
        acc = np.zeros(110, np.longdouble)
        for i0, i1 in zip(cuts[:-1], cuts[1:]):
            colbin_pass(P[i0:i1], 0, e, cnt, acc, codes=y[i0:i1], ysum=ysum, threads=2)
        out.append((cnt.tobytes(), ysum.tobytes(), acc.tobytes()))
    assert out[0] == out[1] == out[2]
    assert cnt.sum() == P.size and ysum.sum() == 333


# --------------------------------------------------------------------------------------
# the checks of float32 matrices: no copy, the same messages


def test_prob_scan_float32_is_float64():
    P, _ = _probs(257, 13, seed=20)
    P[3, 2] = -0.0
    P[5, 1] = np.nan
    P[9, 0] = 1.5
    for threads in (1, 2):
        a, b = prob_scan(P, threads), prob_scan(P.astype(np.float64), threads)
        assert a[:3] == b[:3] and a[3].tobytes() == b[3].tobytes() and (a[4] == b[4]).all()


def test_checks_keep_float32():
    P, _ = _probs(50, 4, seed=21)
    Q, r, pred = v.check_prob_matrix_top(P, "p", keep_float32=True)
    assert Q is P
    R, r64, pred64 = v.check_prob_matrix_top(P.astype(np.float64), "p")
    assert r.tobytes() == r64.tobytes() and (pred == pred64).all()
    assert v.check_prob_matrix(P, "p", keep_float32=True) is P
    assert v.check_logit_matrix(P, "p", keep_float32=True) is P
    F = np.asfortranarray(P)
    G = v.check_prob_matrix(F, "p", keep_float32=True)
    assert G.dtype == np.float32 and G.flags.c_contiguous and (G == P).all()
    assert v.check_logit_matrix(P, "p").dtype == np.float64  # the default is unchanged


def test_memory_mapped_float32(tmp_path):
    """``np.load(mmap_mode="r")`` of a float32 matrix is read where it lies."""
    P, y = _probs(400, 6, seed=25)
    Z, zy = _logits(400, 6, seed=25)
    np.save(tmp_path / "p.npy", P)
    np.save(tmp_path / "z.npy", Z)
    Pm, Zm = np.load(tmp_path / "p.npy", mmap_mode="r"), np.load(tmp_path / "z.npy", mmap_mode="r")
    Q = v.check_prob_matrix(Pm, "p", keep_float32=True)
    assert Q.dtype == np.float32 and np.shares_memory(Q, Pm)
    for type in ("classwise", "confidence"):
        assert _bits(cs.ece(Pm, y, type=type)) == _bits(cs.ece(P.astype(np.float64), y, type=type))
    assert _bits(cs.top_label_ece(Pm, y)) == _bits(cs.top_label_ece(P.astype(np.float64), y))
    a, b = cs.cal_temperature(Zm, zy), cs.cal_temperature(Z.astype(np.float64), zy)
    assert _bits([a.temperature, a.value]) == _bits([b.temperature, b.value])


def _message(fn):
    with pytest.raises(CalstatsError) as e:
        fn()
    return str(e.value)


def _same_message(fn, bad, text):
    """The message for float32 ``bad`` is the float64 one, and is ``text``."""
    a = _message(lambda: fn(bad))
    assert a == _message(lambda: fn(bad.astype(np.float64))) == text


_P, _Y = _probs(40, 3, seed=22)
_Z, _ZY = _logits(40, 3, seed=22)
_CALLS = {
    "ece": lambda p: cs.ece(p, _Y),
    "ece confidence": lambda p: cs.ece(p, _Y, type="confidence"),
    "top_label_ece": lambda p: cs.top_label_ece(p, _Y),
}


def _with(a, i, j, x):
    a = a.copy()
    a[i, j] = x
    return a


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_nan(call):
    _same_message(_CALLS[call], _with(_P, 3, 1, np.nan), "Argument `p` must not contain missing or infinite values.")


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_inf(call):
    _same_message(_CALLS[call], _with(_P, 0, 2, np.inf), "Argument `p` must not contain missing or infinite values.")


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_one_column(call):
    _same_message(_CALLS[call], _P[:, :1].copy(), "Argument `p` must have at least two columns, one per class.")


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_empty(call):
    _same_message(_CALLS[call], _P[:0].copy(), "Argument `p` must not be empty.")


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_outside_unit(call):
    bad = _with(_with(_P, 5, 0, 1.25), 5, 1, -0.25)  # the row still sums to 1
    _same_message(_CALLS[call], bad, "Argument `p` must contain probabilities in `[0, 1]`.")


@pytest.mark.parametrize("call", list(_CALLS))
def test_message_row_sums(call):
    _same_message(_CALLS[call], _with(_P, 5, 0, _P[5, 0] * 0.5), "Each row of `p` must sum to `1`.")


def test_message_logits_nan():
    _same_message(lambda z: cs.cal_temperature(z, _ZY), _with(_Z, 2, 2, np.nan),
                  "Argument `logits` must not contain missing or infinite values.")


def test_message_logits_inf():
    _same_message(lambda z: cs.cal_temperature(z, _ZY), _with(_Z, 2, 2, -np.inf),
                  "Argument `logits` must not contain missing or infinite values.")


def test_message_logits_one_column():
    _same_message(lambda z: cs.cal_temperature(z, _ZY), _Z[:, :1].copy(),
                  "Argument `logits` must have at least two columns, one per class.")


def test_message_logits_empty():
    _same_message(lambda z: cs.cal_temperature(z, np.array([], dtype=np.int64)), _Z[:0].copy(),
                  "Argument `logits` must not be empty.")


def test_message_logits_rows():
    _same_message(lambda z: cs.cal_temperature(z, _ZY[:-1]), _Z,
                  "Arguments `logits` and `y` must have the same number of observations.")


def test_inputs_not_mutated(monkeypatch):
    P, y = _probs(300, 5, seed=23)
    Z, zy = _logits(300, 5, seed=23)
    P0, Z0, y0 = P.copy(), Z.copy(), y.copy()
    monkeypatch.setattr(metrics, "CLASSWISE_BLOCK_MIN", 0)
    cs.ece(P, y)
    cs.ece(P, y, type="confidence")
    cs.top_label_ece(P, y)
    fit = cs.cal_temperature(Z, zy)
    fit.coef_table()
    assert P.tobytes() == P0.tobytes() and Z.tobytes() == Z0.tobytes() and y.tobytes() == y0.tobytes()
    assert P.flags.writeable and Z.flags.writeable


def test_predict_float32_through_dask():
    """Probabilities of a float32 matrix written block by block into a float32 array (the
    documented route for matrices too large for a float64 result)."""
    da = pytest.importorskip("dask.array")
    Z, y = _logits(2000, 6, seed=24)
    fit = cs.cal_temperature(Z, y)
    out = np.empty(Z.shape, dtype=np.float32)
    da.store(fit.predict(da.from_array(Z, chunks=(300, -1))).astype(np.float32), out)
    assert out.tobytes() == fit.predict(Z).to_numpy().astype(np.float32).tobytes()
