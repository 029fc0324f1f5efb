"""Tangent-style functions (tests/cases_tangent_style.py): reverse mode against central differences with
unchanged inputs, forward mode (adsrc.jvp along a random direction) against central differences, and for
the vector functions second order: adsrc.hvp and the gradient of `grad(f) . v` against central differences
of adsrc's (first checked) gradient."""

import copy

import numpy as np
import pytest

import adsrc
from casekit import central_grad, check_case
from cases_tangent_style import CASES, GRAD_OF_JVP, VECTOR_CASES

RTOL, ATOL = 1e-5, 1e-7


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reverse_matches_differences(case):
    check_case(case)


@pytest.mark.parametrize("case", [c for c in CASES if c.argnums == 0 and isinstance(c.args[0], (float, np.ndarray))],
                         ids=lambda c: c.id)
def test_forward_matches_differences(case):
    x = case.args[0]
    direction = np.cos(np.arange(np.size(x)) + 1.0).reshape(np.shape(x))
    if isinstance(x, float):
        direction = float(direction)
    before = copy.deepcopy(x)
    out, out_dot = adsrc.jvp(case.fn, (x,), (direction,))
    assert np.array_equal(before, x), "an input was changed"
    eps = 1e-6
    want = (case.fn(copy.deepcopy(x) + eps * direction) - case.fn(copy.deepcopy(x) - eps * direction)) / (2 * eps)
    assert not np.isnan(out_dot)
    np.testing.assert_allclose(out, case.fn(copy.deepcopy(x)), rtol=1e-12)
    np.testing.assert_allclose(out_dot, want, rtol=RTOL, atol=1e-6)


@pytest.mark.parametrize("fn", VECTOR_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [3, 4])
def test_second_order_matches_differences(fn, n):
    rng = np.random.default_rng(n)
    x, v = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    x[0] = abs(x[0]) + 0.2           # the branch that writes
    g = adsrc.grad(fn)
    np.testing.assert_allclose(g(x), central_grad(fn, x), rtol=RTOL, atol=1e-6)
    hessian = np.array([central_grad(lambda y, i=i: g(y)[i], x) for i in range(n)])
    before = x.copy()
    hv = adsrc.hvp(fn, x, v)
    gg = adsrc.grad(lambda y: np.sum(adsrc.grad(fn)(y) * v))(x)
    assert np.array_equal(before, x), "an input was changed"
    assert not np.any(np.isnan(hv)) and not np.any(np.isnan(gg))
    np.testing.assert_allclose(hv, hessian @ v, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gg, hessian.T @ v, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", GRAD_OF_JVP, ids=lambda f: f.__name__)
def test_gradient_of_jvp_matches_differences(fn):
    x = np.array([0.3, -0.7, 1.2, 0.5])
    v = np.array([1.0, 0.5, -0.2, 0.3])
    got = adsrc.grad(lambda y: adsrc.jvp(fn, (y,), (v,))[1])(x)
    want = central_grad(lambda y: float(np.sum(adsrc.grad(fn)(y) * v)), x)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    third = adsrc.grad(lambda y: np.sum(adsrc.hvp(fn, y, v) * v))(x)
    np.testing.assert_allclose(third, central_grad(lambda y: float(np.sum(adsrc.hvp(fn, y, v) * v)), x),
                               rtol=1e-4, atol=1e-5)
