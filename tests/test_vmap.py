"""adsrc.vmap (JAX's conventions) and adsrc.linearize: values against plain NumPy written out, derivatives
through them against central differences, inputs unchanged, and the errors of calls vmap cannot map."""

import collections

import numpy as np
import pytest

import adsrc
from adsrc import vmap
from casekit import assert_matches_differences, central_grad

RTOL, ATOL = 1e-6, 1e-8
_rng = np.random.default_rng(7)
X = _rng.normal(size=(5, 3))
W = _rng.normal(size=(3, 3))
Y = _rng.normal(size=5)
P = collections.namedtuple("P", "w b")


def loss(w, x, t):
    return (np.tanh(x @ w) - t) ** 2


BATCHED_LOSS = vmap(loss, in_axes=(None, 0, 0))      # made outside the differentiated function


# -- values ------------------------------------------------------------------------------------------------------

def test_maps_axis_zero_of_every_argument():
    np.testing.assert_allclose(vmap(lambda x, t: x * t)(X, Y), X * Y[:, None])


def test_none_is_not_mapped():
    np.testing.assert_allclose(vmap(lambda x, w: w @ x, in_axes=(0, None))(X, W), X @ W.T)


def test_other_axes_in_and_out():
    np.testing.assert_allclose(vmap(lambda x: W @ x, in_axes=1, out_axes=1)(X.T), W @ X.T)
    np.testing.assert_allclose(vmap(lambda x: W @ x, in_axes=-1, out_axes=-1)(X.T), W @ X.T)
    np.testing.assert_allclose(vmap(lambda x: x * 2.0, in_axes=[0])(X), X * 2.0)


def test_scalars_out_stack_into_a_vector():
    out = vmap(lambda x: float(np.sum(x)))(X)
    assert out.shape == (5,)
    np.testing.assert_allclose(out, X.sum(axis=1))


def test_pytrees_in_and_out():
    out = vmap(lambda p: {"a": p["a"] * 2.0, "b": (p["b"], 1.0)})({"a": X, "b": Y})
    np.testing.assert_allclose(out["a"], X * 2.0)
    np.testing.assert_allclose(out["b"][0], Y)
    np.testing.assert_allclose(out["b"][1], np.ones(5))
    pair = vmap(lambda p: P(p.w.sum(), p.b))(P(X, Y))
    assert isinstance(pair, P)
    np.testing.assert_allclose(pair.w, X.sum(axis=1))


def test_out_axes_per_output_and_none():
    a, b = vmap(lambda x: (x, W), out_axes=(1, None))(X)
    np.testing.assert_allclose(a, X.T)
    np.testing.assert_allclose(b, W)


def test_keywords_are_mapped_over_axis_zero():
    np.testing.assert_allclose(vmap(lambda x, t=None: x * t)(X, t=Y), X * Y[:, None])


def test_axis_size_without_mapped_arguments():
    out = vmap(lambda w: w.sum(), in_axes=None, axis_size=4)(W)
    np.testing.assert_allclose(out, np.full(4, W.sum()))


def test_per_example_gradients():
    pe = vmap(adsrc.grad(loss), in_axes=(None, 0, 0))(W[0], X, Y)
    assert pe.shape == (5, 3)
    for i in range(5):
        np.testing.assert_allclose(pe[i], central_grad(lambda w: loss(w, X[i], Y[i]), W[0]), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("call, message", [
    (lambda: vmap(lambda x, t: x)(X, np.ones(4)), "inconsistent sizes"),
    (lambda: vmap(lambda x: x, in_axes=None)(X), "at least one mapped argument"),
    (lambda: vmap(lambda x, t: x, in_axes=(0,))(X, Y), "in_axes has 1 entries"),
    (lambda: vmap(lambda x: x, in_axes=2)(X), "axis 2 of a value of shape"),
    (lambda: vmap(lambda x: x, in_axes="0"), "must be an int, None"),
    (lambda: vmap(lambda x: x, out_axes=(0, 1))(X), "not a pytree prefix"),
    (lambda: vmap(lambda x: (x, x), out_axes=({"a": 0}, 0))(X), "not a pytree prefix"),
    (lambda: vmap(lambda x: W @ x, out_axes=None)(X), "differs from one element to the next"),
    (lambda: vmap(lambda x: x, in_axes=(0,))(np.zeros((0, 3))), "size 0"),
])
def test_errors(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


# -- derivatives through vmap ------------------------------------------------------------------------------------

def inline_lambda(W):
    return np.sum(vmap(lambda x: np.tanh(W @ x))(X))


def inline_function(w):
    return np.mean(vmap(loss, in_axes=(None, 0, 0))(w, X, Y))


def made_outside(w):
    return np.mean(BATCHED_LOSS(w, X, Y))


def bound_to_a_name(W):
    f = vmap(lambda x: W @ x, in_axes=1, out_axes=1)
    return np.sum(np.sin(f(X.T)))


def mapped_negative_axis(W):
    return np.sum(vmap(lambda x, v: np.cos(v @ x) * x[0], in_axes=(-1, None))(X.T, W) ** 2)


def not_stacked(W):
    a, b = vmap(lambda x: (W @ x, W * 2.0), out_axes=(0, None))(X)
    return np.sum(np.sin(a)) + np.sum(b ** 2)


CASES = [(inline_lambda, W), (inline_function, W[0]), (made_outside, W[0]), (bound_to_a_name, W),
         (mapped_negative_axis, W), (not_stacked, W)]


@pytest.mark.parametrize("fn, x", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_through_vmap(fn, x):
    before = x.copy()
    g = adsrc.grad(fn)(x)
    np.testing.assert_array_equal(x, before)
    assert_matches_differences(fn, (x,), (g,), RTOL, ATOL)


@pytest.mark.parametrize("fn, x", CASES[:3], ids=[c[0].__name__ for c in CASES[:3]])
def test_forward_and_second_order_through_vmap(fn, x):
    direction = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    value, tangent = adsrc.jvp(fn, (x,), (direction,))
    np.testing.assert_allclose(value, fn(x), rtol=1e-12)
    h = 1e-6
    np.testing.assert_allclose(tangent, (fn(x + h * direction) - fn(x - h * direction)) / (2 * h), rtol=RTOL,
                               atol=ATOL)
    if x.ndim == 1:
        hess = adsrc.hessian(fn)(x)
        by_differences = np.array([central_grad(lambda v: adsrc.grad(fn)(v)[i], x) for i in range(x.size)])
        np.testing.assert_allclose(hess, by_differences, rtol=1e-5, atol=1e-7)


def tuple_outputs(W):
    a, b = vmap(lambda x: (W @ x, np.sum(x * W[0])))(X)
    return np.sum(np.sin(a)) + np.sum(b ** 2)


def dict_outputs_per_axis(W):
    out = vmap(lambda x: {"h": np.tanh(W @ x), "s": x[0] * W[1, 1]}, out_axes={"h": 1, "s": 0})(X)
    return np.sum(out["h"][:, 1:] ** 2) + np.sum(out["s"] * np.arange(5.0))


def unused_output(W):
    a, _ = vmap(lambda x: (np.cos(W @ x), x))(X)
    return np.sum(a)


@pytest.mark.parametrize("fn", [tuple_outputs, dict_outputs_per_axis, unused_output])
def test_pytree_outputs_inside_a_gradient(fn):
    g = adsrc.grad(fn)(W)
    assert_matches_differences(fn, (W,), (g,), RTOL, ATOL)
    direction = np.linspace(-1.0, 1.0, W.size).reshape(W.shape)
    _, tangent = adsrc.jvp(fn, (W,), (direction,))
    np.testing.assert_allclose(tangent, np.sum(g * direction), rtol=1e-9, atol=1e-10)


def test_refused_options_name_the_line():
    def unknown_axes(W, axes):
        return np.sum(vmap(lambda x: W @ x, in_axes=axes)(X))
    with pytest.raises(adsrc.TransformError, match="test_vmap.py") as info:
        adsrc.grad(unknown_axes)(W, 0)
    assert "np.stack([f(x[i])" in str(info.value)


# -- linearize ---------------------------------------------------------------------------------------------------

def two_arguments(x, y):
    return np.sin(x) * y + x ** 2


def test_linearize_value_and_jvp():
    x, y = np.linspace(0.0, 1.0, 3), 2.0
    out, f_jvp = adsrc.linearize(two_arguments, x, y)
    np.testing.assert_allclose(out, np.sin(x) * y + x ** 2)
    tx, ty = np.array([1.0, -0.5, 0.25]), 0.3
    h = 1e-6
    expected = (two_arguments(x + h * tx, y + h * ty) - two_arguments(x - h * tx, y - h * ty)) / (2 * h)
    np.testing.assert_allclose(f_jvp(tx, ty), expected, rtol=RTOL, atol=ATOL)
    x[0] = 5.0                     # the primals were copied
    np.testing.assert_allclose(f_jvp(tx, ty), expected, rtol=RTOL, atol=ATOL)
    with pytest.raises(TypeError, match="takes 2 tangents"):
        f_jvp(tx)
