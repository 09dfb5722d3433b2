"""torch tensors as inputs: every metric and the scaling calibrators give NumPy's numbers for
tensors on the CPU (and on CUDA where there is one), read through DLPack without a copy;
``predict`` of a tensor returns a tensor of its device and dtype.

A GPU tensor cannot be handed to NumPy (``np.asarray`` raises); ``AwayTensor`` below is a CPU
tensor that refuses the same way, so that the tests prove that no reader calls
``np.asarray`` on a tensor, on any machine. Skipped where torch is not installed (the
``torch`` extra; CI installs its CPU wheel)."""

import warnings

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

import calstats as cs  # noqa: E402
from calstats._frames import is_tensor, like_input, native, ndim  # noqa: E402
from test_frames import (  # noqa: E402
    CODES,
    LOGITS,
    METRIC_CASES,
    P1,
    PROBS,
    SCALING_REFERENCE,
    WEIGHTS,
    Y1,
    Z1,
    assert_same,
    call,
    metric_data,
    numbers,
    reference,
    scaling_fits,
)


class AwayTensor(torch.Tensor):
    """A CPU tensor that NumPy cannot read directly, as a CUDA tensor."""

    def __array__(self, *args, **kwargs):
        raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() first.")

    def numpy(self, *args, **kwargs):
        raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() first.")

    def tolist(self, *args, **kwargs):
        raise TypeError("not read element by element")


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def as_tensor(kind, a):
    a = np.ascontiguousarray(a)
    if kind == "tensor":
        return torch.from_numpy(a)
    if kind == "away":
        return torch.from_numpy(a).as_subclass(AwayTensor)
    if kind == "grad":  # a network's output: requires grad
        return torch.from_numpy(a.astype(np.float64)).requires_grad_(True) if a.dtype.kind == "f" else torch.from_numpy(a)
    if kind == "transposed":  # a strided view (not C-ordered)
        if a.ndim != 2:
            return torch.from_numpy(a)
        return torch.from_numpy(np.ascontiguousarray(a.T)).T
    if kind == "cuda":
        return torch.from_numpy(a).to("cuda")
    raise ValueError(kind)


TENSOR_KINDS = ["tensor", "away", "grad", "transposed"] + (["cuda"] if "cuda" in DEVICES else [])


@pytest.mark.parametrize("kind", TENSOR_KINDS)
@pytest.mark.parametrize(("name", "fn", "form"), METRIC_CASES, ids=[f"{n}-{f}" for n, _, f in METRIC_CASES])
def test_every_metric_gives_numpys_numbers(name, fn, form, kind):
    a, b = metric_data(form)
    assert_same(call(fn, as_tensor(kind, a), as_tensor(kind, b)), reference(fn, form))


@pytest.mark.parametrize("kind", TENSOR_KINDS)
def test_case_weights_as_a_tensor(kind):
    got = cs.ece(as_tensor(kind, PROBS), as_tensor(kind, CODES), weights=as_tensor(kind, WEIGHTS))
    assert got == cs.ece(PROBS, CODES, weights=WEIGHTS)


@pytest.mark.parametrize("kind", TENSOR_KINDS)
def test_scaling_calibrators_give_numpys_fits(kind):
    got = scaling_fits((as_tensor(kind, Z1), as_tensor(kind, LOGITS)), (as_tensor(kind, Y1), as_tensor(kind, CODES)),
                       (as_tensor(kind, Z1[:20]), as_tensor(kind, LOGITS[:20])))
    for name, want in SCALING_REFERENCE.items():
        for g, w in zip(got[name], want):
            g = g.detach().cpu().numpy() if is_tensor(g) else g
            np.testing.assert_array_equal(numbers(g), numbers(w), err_msg=name)


def test_float32_tensors_are_read_as_float32():
    z32 = torch.from_numpy(LOGITS.astype(np.float32))
    p32 = PROBS.astype(np.float32)
    p32 /= p32.sum(axis=1, keepdims=True)
    assert cs.ece(torch.from_numpy(p32), torch.from_numpy(CODES)) == cs.ece(p32, CODES)
    assert cs.brier_score(torch.from_numpy(p32), torch.from_numpy(CODES)) == cs.brier_score(p32, CODES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cs.cal_temperature(z32, torch.from_numpy(CODES))
        want = cs.cal_temperature(LOGITS.astype(np.float32), CODES)
    assert got.temperature == want.temperature and got.value == want.value


def test_bfloat16_is_widened_exactly():
    t = torch.from_numpy(PROBS.astype(np.float32)).to(torch.bfloat16)
    a = native(t)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, t.to(torch.float32).numpy())


# --------------------------------------------------------------------------------------
# no copy, no change


def test_a_cpu_tensor_is_read_where_it_lies():
    t = torch.from_numpy(PROBS.copy())
    a = native(t)
    assert isinstance(a, np.ndarray) and np.shares_memory(a, t.numpy())
    assert not a.flags.writeable  # the caller's memory, read only
    g = torch.from_numpy(LOGITS.copy()).requires_grad_(True)
    assert np.shares_memory(native(g), g.detach().numpy())
    s = torch.from_numpy(LOGITS.copy()).T  # strided: a view with its strides
    assert np.shares_memory(native(s), s.numpy()) and native(s).strides == s.numpy().strides
    assert ndim(t) == 2 and ndim(t[:, 0]) == 1


def test_the_readers_read_a_tensor_where_it_lies():
    from calstats._validate import check_prob, check_prob_matrix, check_prob_matrix_top

    t = torch.from_numpy(PROBS.copy()).as_subclass(AwayTensor)
    P = check_prob_matrix(t, "p", copy=False)
    assert np.shares_memory(P, t.as_subclass(torch.Tensor).numpy())
    P, _r, _pred = check_prob_matrix_top(t, "p")
    assert np.shares_memory(P, t.as_subclass(torch.Tensor).numpy())
    v = torch.from_numpy(P1.copy())
    assert np.shares_memory(check_prob(v, "p", copy=False), v.numpy())
    f32 = torch.from_numpy((PROBS / PROBS.sum(axis=1, keepdims=True)).astype(np.float32))
    assert np.shares_memory(check_prob_matrix(f32, "p", copy=False, keep_float32=True), f32.numpy())


def test_tensors_are_never_modified():
    z = torch.from_numpy(LOGITS.copy())
    y = torch.from_numpy(CODES.copy())
    before = z.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = cs.cal_temperature(z, y)
        fit.predict(z)
        cs.cal_vector_scaling(z, y).predict(z)
        cs.ece(torch.softmax(z, dim=1), y)
    assert torch.equal(z, before) and torch.equal(y, torch.from_numpy(CODES))


def test_a_tensor_that_requires_grad_keeps_its_graph():
    z = torch.from_numpy(LOGITS.copy()).requires_grad_(True)
    p = torch.softmax(z, dim=1)
    assert cs.ece(p, torch.from_numpy(CODES)) == cs.ece(p.detach().numpy(), CODES)
    p.sum().backward()  # the graph is untouched
    assert z.grad is not None


# --------------------------------------------------------------------------------------
# predict gives a tensor back


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_predict_returns_a_tensor_of_the_same_device_and_dtype(device, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = cs.cal_temperature(Z1, Y1)
        multi = cs.cal_temperature(LOGITS, CODES)
        vector = cs.cal_vector_scaling(LOGITS, CODES)
    for fit, x in ((binary, Z1), (multi, LOGITS), (vector, LOGITS)):
        t = torch.from_numpy(x).to(device=device, dtype=dtype)
        out = fit.predict(t)
        assert is_tensor(out) and out.device == t.device and out.dtype == dtype
        want = np.asarray(numbers(fit.predict(x.astype(np.float32) if dtype == torch.float32 else x)))
        np.testing.assert_array_equal(out.cpu().numpy(), want.astype(out.cpu().numpy().dtype))


def test_predict_of_integer_logits_is_float64():
    fit = cs.cal_temperature(Z1, Y1)
    out = fit.predict(torch.tensor([-2, 0, 3]))
    assert out.dtype == torch.float64
    np.testing.assert_array_equal(out.numpy(), fit.predict(np.array([-2.0, 0.0, 3.0])))


def test_predict_of_a_tensor_with_intervals_is_a_frame():
    fit = cs.cal_temperature(Z1, Y1)
    out = fit.predict(torch.from_numpy(Z1[:5]), se_fit=True)
    assert isinstance(out, pd.DataFrame)
    pd.testing.assert_frame_equal(out, fit.predict(Z1[:5], se_fit=True), check_exact=True)


def test_like_input_of_a_tensor():
    t = torch.zeros(3, dtype=torch.float32)
    out = like_input(np.array([0.25, 0.5, 0.75]), t)
    assert out.dtype == torch.float32 and torch.equal(out, torch.tensor([0.25, 0.5, 0.75]))
    frame = pd.DataFrame({"a": [0.25, 0.75], "b": [0.75, 0.25]})
    assert torch.equal(like_input(frame, torch.zeros((2, 2))), torch.tensor([[0.25, 0.75], [0.75, 0.25]]))
