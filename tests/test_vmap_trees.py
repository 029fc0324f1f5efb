"""adsrc.vmap against jax.vmap's conventions: in_axes and out_axes as pytree prefixes, keyword arguments,
axis_size, out_axes=None only for unmapped results; and inside a differentiated function: pytree arguments,
keywords, nested vmap, vmap of grad and of a method, in loops and branches (gradients, jvps and Hessians
against central differences, inputs unchanged)."""

import collections

import numpy as np
import pytest

import adsrc
from adsrc import vmap
from casekit import central_grad

_rng = np.random.default_rng(3)
X = _rng.normal(size=(4, 3))
Y = _rng.normal(size=4)
W = _rng.normal(size=(3, 3))
Z = _rng.normal(size=(2, 4, 3))
NT = collections.namedtuple("NT", "a b")


# -- values ---------------------------------------------------------------------------------------------------

def test_in_axes_pytree_prefixes():
    out = vmap(lambda p: p["a"].sum() + p["b"], in_axes=({"a": 0, "b": None},))({"a": X, "b": 2.0})
    np.testing.assert_allclose(out, X.sum(axis=1) + 2.0)
    out = vmap(lambda p: p[0].sum() * p[1], in_axes=((1, 0),))((X.T, Y))
    np.testing.assert_allclose(out, X.sum(axis=1) * Y)


def test_out_axes_pytree_prefixes():
    out = vmap(lambda x: {"a": x, "b": (x.sum(), x)}, out_axes={"a": 1, "b": (0, -1)})(X)
    np.testing.assert_allclose(out["a"], X.T)
    np.testing.assert_allclose(out["b"][0], X.sum(axis=1))
    np.testing.assert_allclose(out["b"][1], X.T)
    pair = vmap(lambda x: NT(x, x.sum()), out_axes=NT(1, 0))(X)
    assert isinstance(pair, NT)
    np.testing.assert_allclose(pair.a, X.T)


def test_nested_vmap_and_keywords():
    np.testing.assert_allclose(vmap(vmap(lambda x: W @ x))(Z), np.einsum("ij,abj->abi", W, Z))
    np.testing.assert_allclose(vmap(lambda x, t: x * t)(X, t=Y), X * Y[:, None])


@pytest.mark.parametrize("call, message", [
    (lambda: vmap(lambda x: W @ x, out_axes=None)(X), "differs from one element to the next"),
    (lambda: vmap(lambda p: p, in_axes=((0, 0),))({"a": X}), "not a pytree prefix"),
    (lambda: vmap(lambda x: x, in_axes={"a": 0}), "one entry per positional argument"),
    (lambda: vmap(lambda x: x, in_axes=({"a": "0"},)), "must be an int, None"),
    (lambda: vmap(lambda x: x, axis_size=3)(X), "inconsistent sizes"),
])
def test_errors(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


# -- derivatives ----------------------------------------------------------------------------------------------

class Scaled:
    def __init__(self, s):
        self.s = s

    def f(self, w, x):
        return self.s * np.sin(w @ x)


SCALED = Scaled(1.5)


def nested_vmap(w):
    return np.sum(vmap(vmap(lambda x: np.sin(w @ x)))(Z))


def vmap_of_grad(w):
    return np.sum(vmap(adsrc.grad(lambda v, x: np.sin(v @ x)), in_axes=(None, 0))(w, X) ** 2)


def method(w):
    return np.sum(vmap(SCALED.f, in_axes=(None, 0))(w, X))


def tuple_argument(w):
    return np.sum(vmap(lambda p: np.sin(w @ p[0]) * p[1])((X, Y)))


def dict_argument_prefix(w):
    return np.sum(vmap(lambda p: np.sin(p["w"] @ p["x"]), in_axes=({"w": None, "x": 0},))({"w": w, "x": X}))


def list_of_arrays(w):      # each leaf mapped: not the list's elements
    return np.sum(vmap(lambda p: np.tanh(w @ p[0]) * (w @ p[1]))([X, X[::-1]]))


def keyword_argument(w):
    return np.sum(vmap(lambda x, t: np.sin(w @ x) * t)(X, t=Y))


def axis_size_only(w):
    return np.sum(vmap(lambda v: np.sin(v) * 2.0, in_axes=None, axis_size=3)(w))


def dict_out_axes(w):
    r = vmap(lambda x: {"a": np.sin(w * x), "b": np.cos(x @ w)}, out_axes={"a": 1, "b": 0})(X)
    return np.sum(r["a"] * np.arange(4.0)) + np.sum(r["b"])


def in_a_loop(w):
    s = 0.0
    for k in range(2):
        s = s + np.sum(vmap(lambda x: np.tanh(w @ x) * k)(X))
    return s


CASES = [nested_vmap, vmap_of_grad, method, tuple_argument, dict_argument_prefix, list_of_arrays,
         keyword_argument, axis_size_only, dict_out_axes, in_a_loop]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_derivatives(fn):
    w = W[0].copy()
    g = adsrc.grad(fn)(w)
    np.testing.assert_array_equal(w, W[0])
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, central_grad(fn, w), rtol=1e-5, atol=1e-7)
    v = np.array([0.3, -1.0, 0.5])
    _, t = adsrc.jvp(fn, (w,), (v,))
    np.testing.assert_allclose(t, (fn(w + 1e-6 * v) - fn(w - 1e-6 * v)) / 2e-6, rtol=1e-5, atol=1e-7)
    hess = adsrc.hessian(fn)(w)
    np.testing.assert_allclose(hess, np.array([central_grad(lambda u: adsrc.grad(fn)(u)[i], w) for i in range(3)]),
                               rtol=1e-4, atol=1e-6)
