"""custom_vjp and custom_jvp with JAX's nondiff_argnums: arguments that are not differentiated (a function, a
number) come first in the rules, which give cotangents and tangents of the other arguments only. Checked against
central finite differences in reverse mode, forward mode and second order."""

import functools

import numpy as np
import pytest

import adsrc
from casekit import central_grad


@functools.partial(adsrc.custom_vjp, nondiff_argnums=(1,))
def scaled_softplus(x, k, y):
    return np.log1p(np.exp(k * x)) * y


def _softplus_fwd(x, k, y):
    return scaled_softplus(x, k, y), (x, y)


def _softplus_bwd(k, res, g):          # the nondiff argument first, then the residuals and the cotangent
    x, y = res
    s = 1.0 / (1.0 + np.exp(-k * x))
    return g * k * s * y, g * np.log1p(np.exp(k * x))


scaled_softplus.defvjp(_softplus_fwd, _softplus_bwd)


@functools.partial(adsrc.custom_jvp, nondiff_argnums=(0,))
def applied(fn, x):
    return fn(x)


@applied.defjvp
def _applied_jvp(fn, primals, tangents):
    (x,), (t,) = primals, tangents
    h = 1e-6
    return fn(x), t * (fn(x + h) - fn(x - h)) / (2 * h) if fn is not np.sin else t * np.cos(x)


def vjp_loss(x, y):
    return np.sum(scaled_softplus(x, 3.0, y) ** 2)


def jvp_loss(x):
    return np.sum(applied(np.sin, x) * x)


X = np.array([0.3, -0.7, 1.1])
Y = np.array([1.5, 0.2, -0.4])


def test_custom_vjp_bwd_takes_the_nondiff_arguments_first():
    gx, gy = adsrc.grad(vjp_loss, argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, central_grad(lambda x: vjp_loss(x, Y), X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central_grad(lambda y: vjp_loss(X, y), Y), rtol=1e-6, atol=1e-8)


def test_custom_jvp_rule_takes_the_nondiff_arguments_first():
    expected = central_grad(jvp_loss, X)
    np.testing.assert_allclose(adsrc.grad(jvp_loss)(X), expected, rtol=1e-6, atol=1e-8)
    _, tangent = adsrc.jvp(jvp_loss, (X,), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.sum(expected), rtol=1e-6, atol=1e-8)


@functools.partial(adsrc.custom_jvp, nondiff_argnums=(1,))
def powered(x, p):
    return np.abs(x) ** p


@powered.defjvp
def _powered_jvp(p, primals, tangents):
    (x,), (t,) = primals, tangents
    return powered(x, p), t * p * np.sign(x) * np.abs(x) ** (p - 1.0)


def power_loss(x):
    return np.sum(powered(x, 3.0) * x)


def test_second_order_through_a_custom_jvp_with_a_number_not_differentiated():
    hess = adsrc.hessian(power_loss)(X)
    expected = np.stack([central_grad(lambda x, i=i: adsrc.grad(power_loss)(x)[i], X) for i in range(3)])
    assert not np.any(np.isnan(hess))
    np.testing.assert_allclose(hess, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(adsrc.grad(power_loss)(X), central_grad(power_loss, X), rtol=1e-6, atol=1e-8)


def test_bad_nondiff_argnums_are_refused_by_name():
    with pytest.raises(ValueError, match="nondiff_argnums"):
        adsrc.custom_vjp(lambda x, k: x * k, nondiff_argnums=(2,))
    with pytest.raises(TypeError, match="nondiff_argnums"):
        adsrc.custom_jvp(lambda x, k: x * k, nondiff_argnums=("k",))
