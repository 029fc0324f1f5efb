"""Higher-order derivatives of functions taking *args (autograd's flatten_func), methods, partials, callable objects.

`flat_func(flat, *args)` is what autograd.misc.flatten.flatten_func returns;
its Hessian-vector product (Newton-CG's `hessp`) used to be refused. Second
derivatives are checked against central differences of adsrc's own gradient.
"""

import numpy as np
import pytest

import adsrc

RNG = np.random.default_rng(5)
X0 = RNG.uniform(-1.0, 1.0, 4)
V = RNG.uniform(-1.0, 1.0, 4)
DATA = RNG.uniform(0.5, 1.5, 4)


def objective(p, data):
    return np.sum(np.sin(p) * data) + 0.5 * np.sum(p ** 3)


def flat_func(flat, *args):
    return objective(flat, *args)


def only_args(*args):
    return np.sum(np.tanh(args[0]) * args[1] ** 2)


def differences(fun, x, v, h=1e-6):
    return (fun(x + h * v) - fun(x - h * v)) / (2 * h)


def test_hvp_of_a_varargs_function():
    got = adsrc.hvp(flat_func, X0, V, DATA)
    want = differences(lambda x: adsrc.grad(flat_func)(x, DATA), X0, V)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, adsrc.hvp(objective, X0, V, DATA), rtol=1e-12)


def test_grad_of_grad_of_a_varargs_function():
    g2 = adsrc.grad(lambda x: np.sum(adsrc.grad(flat_func)(x, DATA) ** 2))
    want = 2 * adsrc.hessian(objective)(X0, DATA) @ adsrc.grad(objective)(X0, DATA)
    np.testing.assert_allclose(g2(X0), want, rtol=1e-10)


def test_hessian_of_a_function_of_only_varargs():
    y = RNG.uniform(0.5, 1.5, 4)
    H = adsrc.hessian(only_args)(X0, y)
    want = np.stack([differences(lambda x: adsrc.grad(only_args)(x, y), X0, e) for e in np.eye(4)])
    np.testing.assert_allclose(H, want, rtol=1e-6, atol=1e-8)
    assert np.all(np.isfinite(H))


@pytest.mark.parametrize("order", [2, 3])
def test_scalar_derivatives_of_a_varargs_function_to_third_order(order):
    def f(x, *args):
        return np.sin(x) * args[0]
    g = f
    for _ in range(order):
        g = adsrc.grad(g)
    want = {2: -np.sin(0.7) * 2.0, 3: -np.cos(0.7) * 2.0}[order]
    assert g(0.7, 2.0) == pytest.approx(want, rel=1e-10)


# -- bound methods, partials and callable objects (their gradients used to be refused at second order) --

class Model:
    def __init__(self, weights):
        self.weights = weights

    def loss(self, x, data):
        return np.sum(self.weights * np.sin(x) * data) + np.sum(x ** 4) / 4.0

    def __call__(self, x, data):
        return self.loss(x, data)


def scaled_loss(scale, x, data, power=3):
    return scale * np.sum(np.cos(x) * data) + np.sum(x ** power)


MODEL = Model(RNG.uniform(0.5, 1.5, 4))
FUNCTIONS = {
    "bound method": MODEL.loss,
    "callable object": MODEL,
    "partial": __import__("functools").partial(scaled_loss, 2.0),
    "partial with a keyword": __import__("functools").partial(scaled_loss, 2.0, power=4),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_hessian_and_hvp_of_methods_partials_and_callable_objects(name):
    fun = FUNCTIONS[name]
    H = adsrc.hessian(fun)(X0, DATA)
    want = np.stack([differences(lambda x: adsrc.grad(fun)(x, DATA), X0, e) for e in np.eye(4)])
    np.testing.assert_allclose(H, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(adsrc.hvp(fun, X0, V, DATA), H @ V, rtol=1e-10, atol=1e-12)
    g2 = adsrc.grad(lambda x: np.sum(adsrc.grad(fun)(x, DATA) ** 2))      # a gradient called inside
    np.testing.assert_allclose(g2(X0), 2 * H @ adsrc.grad(fun)(X0, DATA), rtol=1e-10, atol=1e-12)


def test_second_derivative_of_a_method_by_grad_of_grad():
    d2 = adsrc.grad(adsrc.grad(Model(2.0).loss))(0.7, 1.5)
    assert d2 == pytest.approx(-2.0 * np.sin(0.7) * 1.5 + 3 * 0.7 ** 2, rel=1e-12)
