"""Rebinding a global or closure name that a transformation resolved transforms the function again.

adsrc resolves `act(x)` to the function `act` means when it transforms; a
gradient reused after `act` is rebound (a notebook cell redefining a helper)
must follow the new function, never keep differentiating the old one. Data
globals are read when the code runs, so rebinding them costs nothing.
"""

import sys

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads

THIS = sys.modules[__name__]
X = np.array([0.3, -1.2, 2.0])

ACT = np.tanh
WEIGHTS = np.array([1.0, 2.0, 3.0])


def uses_global_function(x):
    return np.sum(ACT(x) * WEIGHTS)


def helper(v):
    return v ** 2


def calls_helper(x):
    return np.sum(helper(x))


def cubed(v):
    return v ** 3


class Scale:
    def __init__(self, k):
        self.k = k

    def apply(self, v):
        return v * self.k


class Shift:
    def apply(self, v):
        return np.sin(v)


MODEL = Scale(2.0)


def calls_global_method(x):
    return np.sum(MODEL.apply(x))


def test_rebinding_a_global_function(monkeypatch):
    g = adsrc.grad(uses_global_function)
    np.testing.assert_allclose(g(X), (1.0 - np.tanh(X) ** 2) * WEIGHTS)
    monkeypatch.setattr(THIS, "ACT", np.sin)
    np.testing.assert_allclose(g(X), np.cos(X) * WEIGHTS)
    assert "np.cos(x)" in g.source(X)
    assert g.cache_info().misses == 2
    check_grads(uses_global_function, (X,), full=True)


def test_rebinding_data_never_transforms_again(monkeypatch):
    g = adsrc.grad(uses_global_function)
    g(X)
    monkeypatch.setattr(THIS, "WEIGHTS", np.array([-1.0, 0.5, 4.0]))
    np.testing.assert_allclose(g(X), (1.0 - np.tanh(X) ** 2) * np.array([-1.0, 0.5, 4.0]))
    assert g.cache_info().misses == 1


def test_redefining_a_helper_the_function_calls(monkeypatch):
    g = adsrc.grad(calls_helper)
    np.testing.assert_allclose(g(X), 2.0 * X)
    monkeypatch.setattr(THIS, "helper", cubed)
    np.testing.assert_allclose(g(X), 3.0 * X ** 2)
    np.testing.assert_allclose(adsrc.vjp(calls_helper, X)[1](1.0)[0], 3.0 * X ** 2)


def test_rebinding_the_object_whose_method_is_called(monkeypatch):
    g = adsrc.grad(calls_global_method)
    np.testing.assert_allclose(g(X), [2.0, 2.0, 2.0])
    monkeypatch.setattr(THIS, "MODEL", Shift())
    np.testing.assert_allclose(g(X), np.cos(X))


def make_closure():
    act = np.tanh

    def f(x):
        return np.sum(act(x))

    def switch():
        nonlocal act
        act = np.exp
    return f, switch


def test_rebinding_a_closure_variable():
    f, switch = make_closure()
    g = adsrc.grad(f)
    np.testing.assert_allclose(g(X), 1.0 - np.tanh(X) ** 2)
    switch()
    np.testing.assert_allclose(g(X), np.exp(X))


def test_stale_gradients_are_logged(monkeypatch, caplog):
    g = adsrc.grad(uses_global_function)
    g(X)
    monkeypatch.setattr(THIS, "ACT", np.sin)
    with caplog.at_level("DEBUG", logger="adsrc.cache"):
        g(X)
    assert "`ACT` changed since it was transformed" in caplog.text


class Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, v):
        return np.tanh(v * self.w)


class Net:
    def __init__(self):
        self.layer = Layer(2.0)
        self.act = np.tanh
        self.steps = 3

    def loss(self, x):
        h = x
        for _ in range(self.steps):
            h = self.layer.forward(h)
        return np.sum(self.act(h))


def test_rebinding_attributes_of_a_static_object():
    net = Net()
    g = adsrc.grad(net.loss)
    check_grads(net.loss, (X,), full=True)
    net.layer = Layer(0.5)                 # a new object of the same class: same program
    net.steps = 2                          # data read when the code runs, never folded
    check_grads(net.loss, (X,), full=True)
    g(X)
    assert g.cache_info().misses == 1
    net.act = np.sin                       # another function: transformed again
    check_grads(net.loss, (X,), full=True)
    g(X)
    assert g.cache_info().misses == 2


TABLE = {"tanh": np.tanh, "sin": np.sin}
KIND = "tanh"


def uses_table(x):
    return np.sum(TABLE[KIND](x))


def test_rebinding_a_table_or_its_key(monkeypatch):
    g = adsrc.grad(uses_table)
    np.testing.assert_allclose(g(X), 1.0 - np.tanh(X) ** 2)
    monkeypatch.setattr(THIS, "KIND", "sin")
    np.testing.assert_allclose(g(X), np.cos(X))
    monkeypatch.setitem(TABLE, "sin", np.exp)
    np.testing.assert_allclose(g(X), np.exp(X))


def scaled(v):
    return v * 2.0


def through_scaled(x):
    return np.sum(scaled(x))


def edited_scaled():
    """`scaled` after an edit (what IPython's autoreload swaps in)."""
    def scaled(v):
        return v * 5.0
    return scaled.__code__


def edited_through_scaled():
    def through_scaled(x):
        return np.sum(scaled(x) * x)
    return through_scaled.__code__


def alone(x):
    return np.sum(x * x)


def edited_alone():
    def alone(x):
        return np.sum(x * x * x)
    return alone.__code__


def test_replacing_the_code_of_a_function_that_calls_nothing_of_the_users(monkeypatch):
    # its one guard, its own code, is checked inline on the lean call path (entries.py)
    g = adsrc.grad(alone)
    assert g(3.0) == 6.0
    np.testing.assert_allclose(g(X), 2.0 * X)
    monkeypatch.setattr(alone, "__code__", edited_alone())
    assert g(3.0) == 27.0
    np.testing.assert_allclose(g(X), 3.0 * X * X)
    assert g.cache_info().misses == 4


def test_replacing_a_functions_code_in_place(monkeypatch):
    g = adsrc.grad(through_scaled)
    np.testing.assert_allclose(g(X), [2.0, 2.0, 2.0])
    monkeypatch.setattr(scaled, "__code__", edited_scaled())
    np.testing.assert_allclose(g(X), [5.0, 5.0, 5.0])
    monkeypatch.setattr(through_scaled, "__code__", edited_through_scaled())
    np.testing.assert_allclose(g(X), 10.0 * X)


def test_the_leanest_call_path_checks_the_guards_too(monkeypatch):
    # while the cache holds one gradient, a call goes straight to it (api.py): its guards still hold it
    g = adsrc.grad(alone)
    for _ in range(3):
        np.testing.assert_allclose(g(X), 2.0 * X)
    assert g.cache_info()[:2] == (2, 1)          # hits, misses
    monkeypatch.setattr(alone, "__code__", edited_alone())
    np.testing.assert_allclose(g(X), 3.0 * X * X)
    assert g.cache_info().misses == 2
    h = adsrc.grad(through_scaled)
    np.testing.assert_allclose(h(X), [2.0, 2.0, 2.0])
    monkeypatch.setattr(scaled, "__code__", edited_scaled())       # a name the gradient resolved
    np.testing.assert_allclose(h(X), [5.0, 5.0, 5.0])
    assert h.cache_info().misses == 2
    h.cache_clear()
    np.testing.assert_allclose(h(X), [5.0, 5.0, 5.0])
    assert h.cache_info()[:2] == (0, 1)
