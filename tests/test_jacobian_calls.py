"""Gradients of functions that call adsrc.jacobian (jacfwd, jacrev) themselves: a Jacobian penalty, the
Jacobian of a closure over the differentiated values, a Jacobian function made once at module level. Each
against central finite differences of the function, whose own Jacobian adsrc computes as usual."""

import numpy as np
import pytest

import adsrc
from casekit import assert_matches_differences, central_grad


def outer_sines(x):
    return np.sin(np.outer(x, x))


def curve(a, t):
    return np.array([np.sin(a * t), a * t ** 3, np.cos(t) * a ** 2])


JAC = adsrc.jacobian(outer_sines)


def jacobian_penalty(x):
    return np.sum(np.sin(adsrc.jacobian(outer_sines)(x)))


def prebuilt_jacobian(x):
    return np.sum(JAC(x) ** 2) + np.sum(x)


def jacobian_of_a_closure(x, a):
    # the lambda reads a, which is differentiated too (argnums=(0, 1) below)
    inner = adsrc.jacfwd(lambda v: np.tanh(a * np.outer(v, v)) + a ** 2 * v[0])(x)
    return np.sum(np.sin(inner)) + a * np.sum(adsrc.jacrev(lambda b: curve(b, x[0]))(a))


def jacobian_of_a_nested_def(x, a):
    def field(v, scale):
        return scale * np.array([v[0] * v[1], np.exp(v[1]), v[0] ** 2])
    J = adsrc.jacobian(field, argnums=0)(x, a)
    return np.sum(J * J) * a


def jacobian_of_a_scalar_argument(x, a):
    return np.sum(adsrc.jacobian(curve, argnums=1)(a, x[1]) ** 2) + x[0]


CASES = [jacobian_penalty, prebuilt_jacobian, jacobian_of_a_closure, jacobian_of_a_nested_def,
         jacobian_of_a_scalar_argument]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_gradient_through_a_jacobian(fn):
    x, a = np.array([0.3, -0.8]), 0.7
    args = (x,) if fn in (jacobian_penalty, prebuilt_jacobian) else (x, a)
    assert_matches_differences(fn, args, adsrc.grad(fn, argnums=tuple(range(len(args))))(*args))
    assert np.array_equal(x, [0.3, -0.8])


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_the_value_computed_with_the_jacobian_inside_is_the_functions(fn):
    # value_and_grad runs the transformed code (its Jacobian by columns); calling fn runs adsrc.jacobian itself
    x, a = np.array([0.3, -0.8]), 0.7
    args = (x,) if fn in (jacobian_penalty, prebuilt_jacobian) else (x, a)
    value, _ = adsrc.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)


def energy(x):
    return np.sum(np.sin(x) * x[::-1]) + np.prod(x) ** 2


def hessian_log_determinant(x):
    h = adsrc.hessian(energy)(x) + 3.0 * np.eye(2)
    return np.linalg.slogdet(h)[1] + np.sum(adsrc.hessian(lambda v: np.sum(np.cos(v * x)))(x) ** 2)


def test_gradient_through_a_hessian():
    x = np.array([0.3, -0.8])
    np.testing.assert_allclose(adsrc.grad(hessian_log_determinant)(x), central_grad(hessian_log_determinant, x),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(adsrc.value_and_grad(hessian_log_determinant)(x)[0], hessian_log_determinant(x),
                               rtol=1e-12)


def vector_field(x):
    return np.array([np.sin(x[0]) * x[1], x[0] * x[1] ** 2, np.exp(0.3 * x[2])])


def laplacian_loss(theta, p):
    def u(x):
        return np.sum(theta * np.sin(x) * x[::-1])
    lap = np.trace(adsrc.jacfwd(adsrc.grad(u))(p))
    g = adsrc.grad(lambda z: -0.5 * np.sum(z ** 2 * theta))
    return lap ** 2 + np.sum(g(p) * p)


def nested_and_vector_hessians(x):
    h = adsrc.hessian(vector_field)(x)                    # shape (3, 3, 3)
    jj = adsrc.jacfwd(adsrc.jacrev(vector_field))(x)
    named = adsrc.grad(energy)
    return np.sum(h * jj) + np.sum(adsrc.jacobian(named)(x) ** 2) + np.sum(adsrc.hvp(energy, x[:2], x[1:]) ** 2)


@pytest.mark.parametrize("fn, args", [(laplacian_loss, (np.array([0.4, -0.7]), np.array([0.3, 0.9]))),
                                      (nested_and_vector_hessians, (np.array([0.3, -0.8, 0.5]),))],
                         ids=["laplacian_loss", "nested_and_vector_hessians"])
def test_jacobians_of_gradients_closures_and_jacobians_inside(fn, args):
    assert_matches_differences(fn, args, adsrc.grad(fn, argnums=tuple(range(len(args))))(*args), rtol=1e-5,
                               atol=1e-7)
