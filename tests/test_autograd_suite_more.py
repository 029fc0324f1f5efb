"""More constructs that autograd's test suite (run against adsrc with its imports changed) found failing,
checked here in adsrc's own words against central differences or values derived by hand."""

import numpy as np

import adsrc
from adsrc.misc import const_graph
from casekit import central_grad

RNG = np.random.default_rng(7)


# -- an index whose advanced parts (an integer and a list) a slice separates --------------------------------
# NumPy puts the broadcast advanced axes first: t[1, 1:, [0, 2]] has shape (2, 3), not (3, 2)

WEIGHTS = RNG.standard_normal((2, 3))


def split_advanced(t):
    return np.sum(np.tanh(t[1, 1:, [0, 2]]) * WEIGHTS)



def test_advanced_parts_separated_by_a_slice():
    t = RNG.standard_normal((3, 4, 5))
    g = adsrc.grad(split_advanced)(t)
    assert g.shape == t.shape and not np.isnan(g).any()
    np.testing.assert_allclose(g, central_grad(split_advanced, t), rtol=1e-6, atol=1e-8)


def test_advanced_parts_separated_by_a_slice_with_a_repeated_position():
    t = RNG.standard_normal((3, 4, 5))
    w = RNG.standard_normal((3, 4))

    def f(t):
        return np.sum(t[2, :, [3, 3, 0]] ** 2 * w)     # shape (3, 4): position 3 of the last axis twice

    g = adsrc.grad(f)(t)
    expect = np.zeros_like(t)
    expect[2, :, 3] = 2 * t[2, :, 3] * (w[0] + w[1])
    expect[2, :, 0] = 2 * t[2, :, 0] * w[2]
    np.testing.assert_allclose(g, expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, central_grad(f, t), rtol=1e-6, atol=1e-8)


# -- misc.const_graph: the function with some arguments fixed ------------------------------------------------

def scaled_sine(a, x, shift=0.0):
    return a * np.sin(x) + shift


def test_const_graph_fixes_arguments_and_differentiates():
    fixed = const_graph(scaled_sine, 3.0, shift=2.0)
    assert fixed(0.5) == scaled_sine(3.0, 0.5, shift=2.0)
    assert np.isclose(adsrc.grad(fixed)(0.5), 3.0 * np.cos(0.5), rtol=1e-12, atol=0)


# -- third derivatives through the gradient of a product of a tuple's items ---------------------------------
# h(x) = sum(sin(grad(p)((x, x)))) with p(y) = y[0] * y[1] is 2 sin(x): its derivatives cycle 2cos, -2sin, -2cos

def product_of_items(y):
    return y[0] * y[1]


def sine_of_item_gradients(x):
    return np.sum(np.sin(np.array(adsrc.grad(product_of_items)((x, 2.0 * x)))))   # sin(2x) + sin(x)


def test_third_derivative_through_a_product_of_tuple_items():
    x = 0.7
    d1 = adsrc.grad(sine_of_item_gradients)
    d3 = adsrc.grad(adsrc.grad(d1))
    assert np.isclose(d1(x), 2 * np.cos(2 * x) + np.cos(x), rtol=1e-12, atol=0)
    expect = -8 * np.cos(2 * x) - np.cos(x)
    got = d3(x)
    assert not np.isnan(got) and np.isclose(got, expect, rtol=1e-10, atol=1e-12)
    d2 = adsrc.grad(d1)
    numeric = (d2(x + 1e-5) - d2(x - 1e-5)) / 2e-5
    assert np.isclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_third_derivative_through_a_product_of_list_items_of_arrays():
    w = np.array([0.3, -1.2, 0.7])

    def inner(y):
        return np.sum(y[0] * y[1] * w)

    def outer(x):
        g = adsrc.grad(inner)([x, x * x])          # [x**2 * w, x * w]
        return np.sum(np.sin(g[0]) * g[1])

    def second(v):
        return np.sum(np.cos(adsrc.grad(outer)(v)))

    x = np.array([0.4, 1.1, -0.6])
    g = adsrc.grad(second)(x)
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, central_grad(second, x), rtol=1e-6, atol=1e-8)
