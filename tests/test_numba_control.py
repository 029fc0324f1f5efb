"""backend="numba" through ordinary control flow in loops: a branch that keeps different values on each side,
`continue`, `break`, an early `return`, `while True` with a name bound only in the loop, the loop variable read
after the loop. numba refused each (its variables take one type); each now compiles and agrees with the NumPy
backend and with central finite differences."""


import numpy as np
import pytest

import adsrc
from casekit import central_grad

pytest.importorskip("numba")



def huber(x):
    s = 0.0
    for i in range(x.shape[0]):
        if abs(x[i]) < 1.0:
            s += 0.5 * x[i] ** 2
        else:
            s += abs(x[i]) - 0.5
    return s


def relu_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += x[i] ** 2
    return s


def conditional_expression(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] ** 2 if x[i] > 0 else 0.5 * x[i]
    return s


def skips_and_stops(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        s += x[i] * x[i] * (i + 1.0)
        if s > 4.0:
            break
    return s


def returns_early(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > 1.5:
            return s * s
    return s


def newton_cube_root(a):
    x = 1.0
    while True:
        xn = x - (x ** 3 - a) / (3.0 * x ** 2)
        if abs(xn - x) < 1e-12:
            break
        x = xn
    return xn


def loop_variable_after(x):
    i = 0
    for i in range(x.shape[0]):
        pass
    return x[i] ** 2 + x[i - 1]


ARRAYS = [np.array([0.5, -1.5, 2.0, -0.2, 0.6]), np.array([-0.3, 0.9, 0.4, 1.2, -2.0])]


@pytest.mark.parametrize("fn", [huber, relu_squares, conditional_expression, skips_and_stops, returns_early,
                                loop_variable_after])
@pytest.mark.parametrize("which", [0, 1])
def test_control_flow_in_loops_compiles_and_matches(fn, which):
    x = ARRAYS[which]
    before = x.copy()
    got = adsrc.grad(fn, backend="numba")(x)
    np.testing.assert_array_equal(x, before)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, adsrc.grad(fn)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_grad(fn, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("a", [3.0, 0.4])
def test_a_name_bound_only_in_a_while_true_loop(a):
    got = adsrc.grad(newton_cube_root, backend="numba")(a)
    assert type(got) is float
    np.testing.assert_allclose(got, (1.0 / 3.0) * a ** (-2.0 / 3.0), rtol=1e-9)


def clipped_differences(x, M, lo):
    return (np.sum(np.clip(x, -0.5, 0.8) ** 2) + np.sum(np.clip(x, lo, None)) + np.sum(x.clip(max=0.3))
            + np.sum(np.clip(x, -1.0, lo) * x) + np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) * x[:-2])
            + np.sum(np.diag(M) * x[:3]) + np.sum(np.diag(M, 1)) + np.sum(np.diag(x[:3]) @ M))


def test_clip_diff_and_diag_compile():
    # their rules' helpers had no numba version: refused
    x, M, lo = np.array([-1.2, -0.3, 0.5, 1.4]), np.arange(9.0).reshape(3, 3) * 0.1 - 0.3, 0.1
    got = adsrc.grad(clipped_differences, argnums=(0, 1, 2), backend="numba")(x, M, lo)
    want = adsrc.grad(clipped_differences, argnums=(0, 1, 2))(x, M, lo)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0], central_grad(lambda v: clipped_differences(v, M, lo), x), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(got[1], central_grad(lambda m: clipped_differences(x, m, lo), M), rtol=1e-6,
                               atol=1e-8)


def loss_and_scaled(x):
    return np.sum(x ** 2), x * 3.0


def test_vjp_of_a_tuple_of_outputs():
    # the pullback took the cotangent's items with a helper numba had no version of for tuples: refused
    x = np.array([0.5, -1.0, 2.0])
    out, pullback = adsrc.vjp(loss_and_scaled, x, backend="numba")
    _, reference = adsrc.vjp(loss_and_scaled, x)
    cotangent = (2.0, np.array([1.0, -1.0, 0.5]))
    np.testing.assert_allclose(pullback(cotangent)[0], reference(cotangent)[0], rtol=1e-12)
    np.testing.assert_allclose(pullback(cotangent)[0], 2.0 * 2.0 * x + 3.0 * cotangent[1], rtol=1e-12)


def softmax_cross_entropy(W, X, y):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return (-np.mean(np.sum(y * np.log(p), axis=1)) + np.mean(W.max(axis=0)) + np.sum(np.min(W, axis=-1))
            + np.sum(W.mean(axis=0) ** 2) + np.sum(np.mean(X, axis=0, keepdims=True) @ W))


def test_reductions_along_an_axis_compile():
    # np.mean/max/min with axis, and any reduction with keepdims, had no numba version: a softmax was refused
    rng = np.random.default_rng(0)
    W, X, y = rng.normal(size=(3, 4)), rng.normal(size=(5, 3)), np.eye(4)[[0, 1, 2, 3, 0]]
    got = adsrc.grad(softmax_cross_entropy, backend="numba")(W, X, y)
    np.testing.assert_allclose(got, adsrc.grad(softmax_cross_entropy)(W, X, y), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_grad(lambda w: softmax_cross_entropy(w, X, y), W), rtol=1e-6,
                               atol=1e-8)


def extremes_and_empty_means(x, X):
    return (np.max(x, axis=0) + np.min(x, axis=-1, keepdims=True)[0] + np.max(x[:2])
            + np.sum(np.mean(X, axis=0)) + np.sum(np.max(X, axis=1, keepdims=True)))


def test_vector_extremes_along_their_axis_and_nan():
    # np.max of a vector with axis=0 had no numba version; a NaN maximum gave NaN gradients (NumPy backend: 0)
    x, X = np.array([0.3, 1.7, -0.2, 1.7]), np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    got = adsrc.grad(extremes_and_empty_means, argnums=(0, 1), backend="numba")(x, X)
    want = adsrc.grad(extremes_and_empty_means, argnums=(0, 1))(x, X)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    nan = np.array([np.nan, 1.0, 2.0])
    np.testing.assert_array_equal(adsrc.grad(lambda v: np.max(v) * 1.0, backend="numba")(nan),
                                  adsrc.grad(lambda v: np.max(v) * 1.0)(nan))
    value, g = adsrc.value_and_grad(lambda M: np.sum(np.mean(M, axis=0)), backend="numba")(np.zeros((0, 3)))
    assert np.isnan(value) and g.shape == (0, 3)      # a mean of nothing: NaN, as NumPy (it raised)
