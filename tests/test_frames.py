"""Any DataFrame, any array: polars, pyarrow, lists and DLPack arrays read at the boundary
(calstats._frames) give NumPy's and pandas' numbers in every metric and scaling calibrator,
keep their column names as class labels, and are read without a copy where the layout allows.

The torch inputs are in test_torch_input.py, which reuses the cases defined here."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import calstats as cs
from calstats._errors import CalstatsError
from calstats._frames import column_names, like_input, native, ndim
from calstats._inputs import read_models, refuse_misnamed_columns
from calstats._messages import DEVICE
from calstats._surv import read_surv

N, K = 90, 4
NAMES = ["a", "b", "c", "d"]
_rng = np.random.default_rng(37)
LOGITS = _rng.normal(size=(N, K)) * 1.7
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(axis=1, keepdims=True)
CODES = _rng.integers(1, K + 1, N)
P1 = PROBS[:, 0]
Y1 = (_rng.random(N) < P1).astype(np.int64)
Z1 = LOGITS[:, 0] - LOGITS[:, 1]
WEIGHTS = _rng.integers(1, 4, N).astype(np.float64)
LABELS = (_rng.random((N, 3)) < PROBS[:, :3]).astype(np.int64)  # a multi-label outcome


def as_kind(kind, a, names=None):
    """``a`` (1-D or 2-D NumPy) as the input kind ``kind``."""
    a = np.asarray(a)
    names = names or NAMES[: a.shape[1]] if a.ndim == 2 else None
    if kind == "numpy":
        return a
    if kind == "list":
        return a.tolist()
    if kind == "pandas":
        return pd.DataFrame(a, columns=names) if a.ndim == 2 else pd.Series(a)
    if kind == "polars":
        return pl.DataFrame(a, schema=names, orient="row") if a.ndim == 2 else pl.Series(a)
    if kind == "pyarrow":
        if a.ndim == 2:
            return pa.table({c: a[:, j] for j, c in enumerate(names)})
        return pa.chunked_array([a[: N // 3], a[N // 3:]])  # two chunks: read by copying them
    raise ValueError(kind)


KINDS = ["numpy", "pandas", "polars", "pyarrow", "list"]


def _corp(p, y):
    return cs.corp(p, y).as_frame()[["x", "CEP", "n"]]  # its bands are resampled


#: Every metric, as ``(name, function, forms)``; forms "binary" (p a vector, y 0/1), "matrix"
#: (p a probability matrix, y class codes), "yp" (hoslem_test(y, p)), "multilabel".
METRICS = [
    ("ece", cs.ece, "binary matrix"),
    ("ece_l2", lambda p, y: cs.ece(p, y, norm="l2"), "binary matrix"),
    ("ece_max", lambda p, y: cs.ece(p, y, norm="max"), "binary matrix"),
    ("ece_confidence", lambda p, y: cs.ece(p, y, type="confidence"), "matrix"),
    ("ece_quantile", lambda p, y: cs.ece(p, y, strategy="quantile", bins=7), "binary matrix"),
    ("ece_debiased", lambda p, y: cs.ece(p, y, debiased=True), "binary matrix"),
    ("ece_multilabel", lambda p, y: cs.ece(p, y, average=None), "multilabel"),
    ("mce", cs.mce, "binary matrix"),
    ("ace", cs.ace, "binary matrix"),
    ("mmce", cs.mmce, "binary matrix"),
    ("top_label_ece", cs.top_label_ece, "matrix"),
    ("classwise_ece", cs.classwise_ece, "binary matrix"),
    ("confidence_ece", cs.confidence_ece, "binary matrix"),
    ("brier_score", cs.brier_score, "binary matrix multilabel"),
    ("log_loss", cs.log_loss, "binary matrix multilabel"),
    ("aurc", cs.aurc, "binary matrix"),
    ("augrc", cs.augrc, "binary matrix"),
    ("e_aurc", cs.e_aurc, "binary matrix"),
    ("risk_coverage", cs.risk_coverage, "binary matrix"),
    ("smece", cs.smece, "binary matrix"),
    ("skce", cs.skce, "binary matrix"),
    ("cal_ks_test", cs.cal_ks_test, "binary matrix"),
    ("cal_kuiper_test", cs.cal_kuiper_test, "binary matrix"),
    ("cal_spiegelhalter_test", cs.cal_spiegelhalter_test, "binary matrix"),
    ("cumulative_differences", cs.cumulative_differences, "binary matrix"),
    ("reliability_diagram", cs.reliability_diagram, "binary matrix"),
    ("corp", _corp, "binary"),
    ("hoslem_test", cs.hoslem_test, "yp"),
]

METRIC_CASES = [(name, fn, form) for name, fn, forms in METRICS for form in forms.split()]


def metric_data(form):
    """``(p, y)`` of a form as NumPy arrays (``y, p`` for "yp")."""
    if form == "matrix":
        return PROBS, CODES
    if form == "multilabel":
        return PROBS[:, :3], LABELS
    if form == "yp":
        return Y1, P1
    return P1, Y1


def value(r):
    """What a result holds, to compare exactly: a frame for a result object, else an array."""
    if hasattr(r, "as_frame"):
        return r.as_frame()
    return np.asarray(r, dtype=np.float64)


def assert_same(got, want):
    got, want = value(got), value(want)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    else:
        np.testing.assert_array_equal(got, want)


def reference(fn, form):
    a, b = metric_data(form)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(a, b)


def call(fn, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(a, b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "fn", "form"), METRIC_CASES, ids=[f"{n}-{f}" for n, _, f in METRIC_CASES])
def test_every_metric_gives_numpys_numbers(name, fn, form, kind):
    a, b = metric_data(form)
    assert_same(call(fn, as_kind(kind, a), as_kind(kind, b)), reference(fn, form))


@pytest.mark.parametrize("kind", KINDS)
def test_case_weights_of_any_kind(kind):
    want = cs.ece(PROBS, CODES, weights=WEIGHTS)
    assert cs.ece(as_kind(kind, PROBS), as_kind(kind, CODES), weights=as_kind(kind, WEIGHTS)) == want
    assert cs.brier_score(as_kind(kind, P1), as_kind(kind, Y1), weights=as_kind(kind, WEIGHTS)) == cs.brier_score(
        P1, Y1, weights=WEIGHTS)


# --------------------------------------------------------------------------------------
# the scaling calibrators


def scaling_fits(logits, y, newdata):
    """Every scaling fit of ``(logits, y)`` with its fitted numbers and its predictions of ``newdata``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = cs.cal_temperature(logits[0], y[0])
        multi = cs.cal_temperature(logits[1], y[1])
        vector = cs.cal_vector_scaling(logits[1], y[1])
    return {
        "temperature": (binary.temperature, binary.value, binary.predict(newdata[0])),
        "temperature_multiclass": (multi.temperature, multi.value, multi.predict(newdata[1])),
        "vector_scaling": (vector.scale, vector.bias, vector.value, vector.predict(newdata[1])),
    }


def numbers(x):
    if isinstance(x, pd.DataFrame):
        return x.to_numpy()
    return np.asarray(x, dtype=np.float64)


SCALING_REFERENCE = scaling_fits((Z1, LOGITS), (Y1, CODES), (Z1[:20], LOGITS[:20]))


@pytest.mark.parametrize("kind", KINDS)
def test_scaling_calibrators_give_numpys_fits(kind):
    got = scaling_fits((as_kind(kind, Z1), as_kind(kind, LOGITS)), (as_kind(kind, Y1), as_kind(kind, CODES)),
                       (as_kind(kind, Z1[:20]), as_kind(kind, LOGITS[:20])))
    for name, want in SCALING_REFERENCE.items():
        for g, w in zip(got[name], want):
            np.testing.assert_array_equal(numbers(g), numbers(w), err_msg=name)
    # a matrix comes back as a DataFrame whose columns are the fit's levels
    assert list(got["vector_scaling"][-1].columns) == ["1", "2", "3", "4"]


# --------------------------------------------------------------------------------------
# column names, categories, index


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_a_frame_is_read_in_column_order_with_its_names(kind):
    order = ["b", "d", "a", "c"]  # not sorted: the frame's own order
    frame = as_kind(kind, PROBS, names=order)
    got = native(frame)
    assert isinstance(got, pd.DataFrame)
    assert list(got.columns) == order
    np.testing.assert_array_equal(got.to_numpy(), PROBS)
    assert list(column_names(frame)) == order
    assert ndim(frame) == 2
    # abcd as named
    got = native(as_kind(kind, PROBS))
    assert list(got.columns) == NAMES
    np.testing.assert_array_equal(got["c"].to_numpy(), PROBS[:, 2])


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_misnamed_columns_are_refused_for_every_frame(kind):
    y = pd.Categorical(np.array(NAMES)[CODES - 1], categories=NAMES)
    swapped = ["b", "a", "c", "d"]
    with pytest.raises(CalstatsError) as e:
        cs.ece(as_kind(kind, PROBS, names=swapped), y)
    assert "name the same classes in another order" in str(e.value)
    assert "['a', 'b', 'c', 'd']" in str(e.value)  # the fix names the columns
    # the polars outcome too: an Enum's categories are R's levels
    with pytest.raises(CalstatsError) as e2:
        refuse_misnamed_columns(as_kind(kind, PROBS, names=swapped), pl.Series(np.array(NAMES)[CODES - 1],
                                                                                dtype=pl.Enum(NAMES)))
    assert str(e2.value) == str(e.value)
    assert cs.ece(as_kind(kind, PROBS), y) == cs.ece(PROBS, CODES)


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_a_frame_of_models_is_read_as_pandas_by_the_clinical_functions(kind):
    """Several models as the columns of any frame: the survival scores read them as pandas'
    (a polars frame was read as one risk matrix and refused), and the decision curve names
    the column in its messages as for pandas (it said `p`)."""
    from calstats.clinical import decision_curve, time_brier

    rng = np.random.default_rng(3)
    n = 120
    t, s = rng.exponential(100, n), (rng.random(n) < 0.6).astype(int)
    models = np.column_stack([rng.random(n), rng.random(n)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = time_brier(t, s, pd.DataFrame(models, columns=["a", "b"]), [50.0]).as_frame()
        got = time_brier(t, s, as_kind(kind, models, names=["a", "b"]), [50.0]).as_frame()
    pd.testing.assert_frame_equal(got, want)
    models[3, 1] = np.nan
    with pytest.raises(CalstatsError, match=r'^Argument `p\["b"\]` must not contain missing values\.$'):
        decision_curve(as_kind(kind, models, names=["a", "b"]), s)


def test_polars_categories_name_the_classes():
    y = pl.Series("y", np.array(["lo", "mid", "hi", "top"])[CODES - 1], dtype=pl.Enum(["lo", "mid", "hi", "top"]))
    frame = pl.DataFrame(LOGITS, schema=["lo", "mid", "hi", "top"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = cs.cal_vector_scaling(frame, y)
    assert fit.levels == ["lo", "mid", "hi", "top"]
    out = fit.predict(frame)
    assert list(out.columns) == ["lo", "mid", "hi", "top"]
    np.testing.assert_array_equal(out.to_numpy(), cs.cal_vector_scaling(LOGITS, CODES).predict(LOGITS).to_numpy())
    # a polars Categorical keeps its categories' order
    got = native(pl.Series(["b", "a", "b"], dtype=pl.Categorical))
    assert isinstance(got.dtype, pd.CategoricalDtype) and list(got.cat.categories) == ["b", "a"]


def test_column_names_name_the_classes_of_priors():
    frame = pl.DataFrame(PROBS[:, :3] / PROBS[:, :3].sum(axis=1, keepdims=True), schema=["x", "y", "z"],
                         orient="row")
    out = cs.adjust_priors(frame, [0.2, 0.3, 0.5], [0.3, 0.3, 0.4])
    assert list(out.columns) == ["x", "y", "z"]
    est = cs.estimate_priors(frame, [0.2, 0.3, 0.5])
    assert list(est.as_frame().index) == ["x", "y", "z"]


def test_column_names_name_the_models():
    frame = pl.DataFrame({"m1": P1, "m2": PROBS[:, 1]})
    assert [name for name, _ in read_models(frame)] == ["m1", "m2"]
    assert [name for name, _ in read_models(pl.Series("risk", P1))] == ["risk"]
    assert [name for name, _ in read_models(pl.Series(P1))] == ["model"]  # unnamed
    want = cs.clinical.decision_curve(pd.DataFrame({"m1": P1, "m2": PROBS[:, 1]}), Y1, [0.1, 0.3])
    got = cs.clinical.decision_curve(frame, pl.Series(Y1), [0.1, 0.3])
    pd.testing.assert_frame_equal(got.as_frame(), want.as_frame(), check_exact=True)


def test_a_time_to_event_frame():
    time = np.linspace(1, 9, N)
    got = read_surv(pl.DataFrame({"time": time, "status": Y1}))
    want = read_surv(pd.DataFrame({"time": time, "status": Y1}))
    assert got.names == want.names == ('y["time"]', 'y["status"]')
    np.testing.assert_array_equal(got.time, want.time)
    np.testing.assert_array_equal(got.status, want.status)


def test_pandas_comes_back_itself_with_its_index():
    frame = pd.DataFrame(LOGITS, columns=NAMES, index=pd.RangeIndex(100, 100 + N))
    assert native(frame) is frame
    column = frame["a"]
    assert native(column) is column
    out = cs.cal_temperature(LOGITS, CODES).predict(frame)
    assert list(out.index) == list(frame.index)


# --------------------------------------------------------------------------------------
# copies


def test_a_series_is_read_where_it_lies():
    s = pl.Series("p", P1)
    got = native(s)
    assert isinstance(got, pd.Series) and got.name == "p"
    assert np.shares_memory(got.to_numpy(), s.to_numpy())
    one_chunk = pa.chunked_array([P1])
    assert np.shares_memory(native(one_chunk).to_numpy(), one_chunk.chunk(0).to_numpy())
    np.testing.assert_array_equal(native(pa.chunked_array([P1[:10], P1[10:]])).to_numpy(), P1)


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_a_numeric_frame_is_one_c_ordered_matrix(kind):
    got = native(as_kind(kind, LOGITS))
    m = got.to_numpy()
    assert m.flags.c_contiguous and m.dtype == np.float64
    assert np.shares_memory(m, got.to_numpy())  # the frame holds that one matrix: no copy on reading it


def test_inputs_are_never_modified():
    frame = pl.DataFrame(LOGITS, schema=NAMES, orient="row")
    before = frame.clone()
    cs.cal_vector_scaling(frame, pl.Series(CODES)).predict(frame)
    assert frame.equals(before)


# --------------------------------------------------------------------------------------
# missing values and other columns


def test_missing_values_give_rs_messages():
    with_null = pl.Series([0.2, None, 0.7, 0.4])
    with pytest.raises(CalstatsError, match="must not contain missing values"):
        cs.ece(with_null, [0, 1, 1, 0])
    with pytest.raises(CalstatsError, match="must not contain missing values"):
        cs.ece(pa.array([0.2, None, 0.7, 0.4]), [0, 1, 1, 0])
    frame = pl.DataFrame({"a": [0.5, None], "b": [0.5, 0.5]})
    with pytest.raises(CalstatsError) as e:
        cs.ece(frame, [1, 2])
    with pytest.raises(CalstatsError) as e_pd:
        cs.ece(pd.DataFrame({"a": [0.5, np.nan], "b": [0.5, 0.5]}), [1, 2])
    assert str(e.value) == str(e_pd.value)
    # a boolean label with a null is R's logical NA, as a pandas boolean NA
    labels = [True, None] + [bool(v) for v in Y1[2:]]
    got = cs.ece(P1, pl.Series(labels))
    want = cs.ece(P1, pd.array(labels, dtype="boolean"))
    assert got == want or (np.isnan(got) and np.isnan(want))


def test_a_frame_with_mixed_columns_keeps_their_meaning():
    got = native(pa.table({"t": [1.0, None], "s": ["u", "v"], "k": pa.array(["b", "a"]).dictionary_encode()}))
    assert list(got.columns) == ["t", "s", "k"]
    assert np.isnan(got["t"].iloc[1]) and list(got["s"]) == ["u", "v"]
    assert isinstance(got["k"].dtype, pd.CategoricalDtype)


# --------------------------------------------------------------------------------------
# DLPack arrays (no torch needed)


class DLPackOnly:
    """An array that offers only DLPack (no ``__array__``), as a JAX or CuPy array would."""

    def __init__(self, a, device=(1, 0), fail=False):
        self._a, self._device, self._fail = np.asarray(a), device, fail
        self.ndim, self.shape = self._a.ndim, self._a.shape

    def __dlpack__(self, dl_device=None, copy=None, **kwargs):
        if self._fail:
            raise BufferError("the device's memory cannot be exported")
        if self._device != (1, 0) and not (dl_device == (1, 0) and copy):
            raise BufferError("on a device: ask for a copy to the CPU")
        return self._a.__dlpack__(dl_device=dl_device, copy=copy, **kwargs)

    def __dlpack_device__(self):
        return self._device


def test_any_dlpack_array_is_read_without_a_copy():
    got = native(DLPackOnly(PROBS))
    assert isinstance(got, np.ndarray) and np.shares_memory(got, PROBS)
    assert not got.flags.writeable  # the caller's memory
    assert cs.ece(DLPackOnly(PROBS), DLPackOnly(CODES)) == cs.ece(PROBS, CODES)
    assert cs.log_loss(DLPackOnly(P1), DLPackOnly(Y1)) == cs.log_loss(P1, Y1)
    assert ndim(DLPackOnly(PROBS)) == 2 and ndim(DLPackOnly(P1)) == 1


def test_an_array_on_a_device_is_copied_to_the_cpu():
    away = DLPackOnly(PROBS, device=(2, 0))  # as CuPy's: copied when asked for the CPU
    got = native(away)
    assert isinstance(got, np.ndarray) and not np.shares_memory(got, PROBS)
    np.testing.assert_array_equal(got, PROBS)
    assert cs.ece(away, DLPackOnly(CODES, device=(2, 0))) == cs.ece(PROBS, CODES)


def test_an_array_on_an_unreadable_device_is_refused_in_one_line():
    with pytest.raises(CalstatsError) as e:
        cs.ece(DLPackOnly(PROBS, device=(2, 0), fail=True), CODES)
    assert str(e.value) == DEVICE.format(arg="p", device=(2, 0))
    assert "\n" not in str(e.value)


def test_like_input_leaves_other_inputs_alone():
    out = np.array([0.1, 0.9])
    assert like_input(out, [0.0, 1.0]) is out
    assert like_input(out, pl.Series([0.0, 1.0])) is out


# --------------------------------------------------------------------------------------
# imports


def test_nothing_is_imported_for_numpy_and_pandas_inputs():
    code = ("import sys, numpy as np, pandas as pd, calstats as cs\n"
            "p = np.linspace(0.05, 0.95, 20); y = (np.arange(20) % 2)\n"
            "cs.ece(p, y); cs.ece(pd.Series(p), pd.Series(y)); cs.cal_temperature(p, y)\n"
            "print(sorted(m for m in ('narwhals', 'torch') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
