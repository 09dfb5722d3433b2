"""VGAM's weighted least-squares step on the structure of the big model matrix.

``vglm_multinomial`` forms the normal equations from the per-observation blocks and
refines the Cholesky solve once; the dense Householder QR of the stacked design is kept for
ill-conditioned steps. These tests hold the structured step to the dense one (forced with
``_DENSE_BELOW = 1``) and to R's fixtures through both routes.
"""

import warnings

import numpy as np
import pytest

from _fixtures import load_fixture
from calstats._errors import CalstatsError
from calstats.ports.stats.splines import ns
from calstats.ports.vgam import vglm as vglm_mod
from calstats.ports.vgam.vglm import vglm_multinomial

FIX = load_fixture("multinomial")


def _fits(P, codes, r):
    n, k = P.shape
    m = k - 1
    keep = [j for j in range(k) if j != r]
    LP = np.log(P[:, keep] / P[:, [r]])
    one = np.ones((n, 1))
    xs = np.hstack([one, LP])
    flex = np.hstack([one] + [np.asarray(ns(LP[:, j], df=2).matrix) for j in range(m)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [vglm_multinomial(one, codes, k, r, offset=LP), vglm_multinomial(xs, codes, k, r),
                vglm_multinomial(xs, codes, k, r, constraints=[np.eye(m)] + [np.eye(m)[:, [j]] for j in range(m)]),
                vglm_multinomial(flex, codes, k, r)]


def _random_case(seed, n, k):
    r = np.random.default_rng(seed)
    z = r.normal(size=(n, k)) * 1.3
    P = np.exp(z)
    P /= P.sum(axis=1, keepdims=True)
    Q = np.exp(0.8 * z)
    Q /= Q.sum(axis=1, keepdims=True)
    y = (Q.cumsum(axis=1) < r.random((n, 1))).sum(axis=1)
    return P, y


def _dense(monkeypatch):
    monkeypatch.setattr(vglm_mod, "_DENSE_BELOW", 1.0)


@pytest.mark.parametrize("seed, n, k", [(1, 300, 3), (2, 1000, 4), (3, 2000, 5), (4, 500, 6)])
def test_structured_step_is_the_dense_qr_step(seed, n, k, monkeypatch):
    P, y = _random_case(seed, n, k)
    fast = _fits(P, y, 0)
    _dense(monkeypatch)
    dense = _fits(P, y, 0)
    for a, b in zip(fast, dense):
        assert a.iter == b.iter
        scale = np.max(np.abs(b.coef))
        assert np.max(np.abs(a.coef - b.coef)) <= 1e-12 * scale
        np.testing.assert_allclose(a.se, b.se, rtol=1e-11)
        np.testing.assert_allclose(a.deviance, b.deviance, rtol=1e-14)
        np.testing.assert_allclose(a.mu, b.mu, rtol=0, atol=1e-13)


@pytest.mark.parametrize("route", ["structured", "dense"])
def test_both_routes_reproduce_vgam(route, monkeypatch):
    if route == "dense":
        _dense(monkeypatch)
    for c in FIX["cases"]:
        P, y, r = np.array(c["P"]), np.array(c["y"]) - 1, c["ref"] - 1
        m = P.shape[1] - 1
        fi, ff, fs, fx = _fits(P, y, r)
        np.testing.assert_allclose(fi.coef, c["intercepts"], rtol=1e-8)
        np.testing.assert_allclose(fi.se, c["intercepts_se"], rtol=1e-8)
        np.testing.assert_allclose(fs.coef, c["slopes"], rtol=1e-8)
        np.testing.assert_allclose(fs.se[m:], c["slopes_se"][m:], rtol=1e-8)
        np.testing.assert_allclose(ff.coef, c["full"], rtol=1e-8)
        np.testing.assert_allclose(ff.se, c["full_se"], rtol=1e-8)
        assert [fi.iter, fs.iter, ff.iter, fx.iter] == c["iter"]


def test_rank_deficiency_goes_through_the_dense_step():
    # two equal columns: the Cholesky factor is (near) singular, the dense QR's test decides
    r = np.random.default_rng(5)
    x = np.column_stack([np.ones(200), r.normal(size=200)])
    x = np.column_stack([x, x[:, 1]])
    y = r.integers(0, 3, 200)
    with pytest.raises(CalstatsError, match="full-rank"):
        vglm_multinomial(x, y, 3, 0)


def test_gram_and_cross_are_the_stacked_products():
    r = np.random.default_rng(9)
    n, p, m = 40, 3, 3
    x = r.normal(size=(n, p))
    a = r.normal(size=(n, m, m))
    w = a @ a.transpose(0, 2, 1)
    hs = [np.eye(m), np.eye(m)[:, [1]], np.eye(m)[:, [0, 2]]]
    X = vglm_mod._design(x, hs)
    hmap = vglm_mod._constraint_map(hs, m)
    big_w = np.zeros((n * m, n * m))
    for i in range(n):
        big_w[i * m:(i + 1) * m, i * m:(i + 1) * m] = w[i]
    np.testing.assert_allclose(hmap.T @ vglm_mod._gram(x, w) @ hmap, X.T @ big_w @ X, rtol=1e-12, atol=1e-10)
    v = r.normal(size=(n, m))
    np.testing.assert_allclose(hmap.T @ vglm_mod._cross(x, v), X.T @ v.ravel(), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------
# vglm.fit's step control on small data sets with fitted probabilities 0 or 1
# (tests/fixtures/vglm_steps.json, tools/r-reference/make_vglm_steps.R)

STEPS = load_fixture("vglm_steps")["cases"]


@pytest.mark.parametrize("case", STEPS, ids=[c["id"] for c in STEPS])
def test_step_control_and_warnings_are_vgams(case):
    x = np.array(case["x"])
    y = np.array(case["y"]) - 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = vglm_multinomial(x, y, case["K"], 0)
    want = np.array(case["coef"])
    assert fit.iter == case["iter"]
    assert np.max(np.abs(fit.coef - want)) <= 1e-8 * np.max(np.abs(want))
    np.testing.assert_allclose(fit.deviance, case["deviance"][0], rtol=1e-10)
    r_warnings = case["warnings"] if isinstance(case["warnings"], list) else [case["warnings"]]
    # the generator records unique(warnings): R's distinct texts in the order they first came
    assert list(dict.fromkeys(str(w.message) for w in caught)) == r_warnings


def test_validparams_halves_a_step_that_lowered_the_deviance():
    # without VGAM's validparams test these fits run on to 28-31 iterations where R stops
    hit = [c for c in STEPS if "iterations terminated because half-step sizes are very small" in c["warnings"]]
    assert len(hit) >= 3
