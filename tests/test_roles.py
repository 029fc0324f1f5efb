"""Arguments with roles: pytrees, constants, has_aux, within_grad, stop_gradient, vjp."""

import collections
import dataclasses

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads
from casekit import rand

Pair = collections.namedtuple("Pair", ["W", "b"])


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    name: str = "layer"


X = rand(5, 3)
Y = rand(5, 2)


def dict_loss(params, X, y):
    h = np.tanh(X @ params["layer1"]["W"] + params["layer1"]["b"])
    out = h @ params["out"]["W"]
    return np.mean((out - y) ** 2) * params["scale"]


def tuple_loss(params, X, y):
    (W, b), V = params
    return np.sum((np.tanh(X @ W + b) @ V - y) ** 2)


def list_loss(params, X, y):
    total = 0.0
    for layer in params:
        total = total + np.sum(layer[0] ** 2) * layer[1][0]
    return total + np.sum(X @ params[0][0])


def namedtuple_loss(p, X, y):
    inner = p.W
    return np.sum((X @ inner.W + inner.b - y) ** 2) + np.sum(p.b ** 2)


def dataclass_loss(layer, X, y):
    return np.sum((X @ layer.W + layer.b - y) ** 2)


def int_leaf_loss(params, X, y):
    return np.sum(X @ params["W"]) * params["n"]


PYTREES = [
    (dict_loss, {"layer1": {"W": rand(3, 4), "b": rand(4)}, "out": {"W": rand(4, 2)}, "scale": 1.5}),
    (tuple_loss, ((rand(3, 4), rand(4)), rand(4, 2))),
    (list_loss, [[rand(3, 2), rand(1)], [rand(2), rand(1)]]),
    (namedtuple_loss, Pair(W=Pair(W=rand(3, 2), b=rand(2)), b=rand(3))),
    (dataclass_loss, Layer(W=rand(3, 2), b=rand(2))),
]


@pytest.mark.parametrize("fn,params", PYTREES, ids=[f.__name__ for f, _ in PYTREES])
def test_pytree_gradients(fn, params):
    g = check_grads(fn, (params, X, Y), full=True)
    assert type(g) is type(params)
    flat_g = adsrc.checks._leaves(g)
    flat_p = adsrc.checks._leaves(params)
    assert [p for p, _ in flat_g] == [p for p, _ in flat_p]
    for (_, a), (_, b) in zip(flat_g, flat_p):
        assert np.shape(a) == np.shape(b)


def test_dataclass_gradient_keeps_non_float_fields():
    g = adsrc.grad(dataclass_loss)(Layer(W=rand(3, 2), b=rand(2), name="first"), X, Y)
    assert isinstance(g, Layer) and g.name is None


def test_integer_leaves_get_none():
    params = {"W": rand(3, 2), "n": 3}
    g = adsrc.grad(int_leaf_loss)(params, X, Y)
    assert g["n"] is None
    np.testing.assert_allclose(g["W"], 3 * X.sum(axis=0)[:, None] * np.ones((3, 2)))


def no_float_loss(params):
    return 1.0


def test_argument_without_floats_is_an_error():
    with pytest.raises(TypeError, match="holds no floating-point values"):
        adsrc.grad(no_float_loss)({"n": 3})


# -- has_aux -----------------------------------------------------------------------------------

def aux_loss(params, X, y):
    h = np.tanh(X @ params["W"] + params["b"])
    loss = np.mean((h - y) ** 2)
    return loss, {"mse": loss, "pred": h}


def test_has_aux_grad_and_value_and_grad():
    params = {"W": rand(3, 2), "b": rand(2)}
    g, aux = adsrc.grad(aux_loss, has_aux=True)(params, X, Y)
    (value, aux2), g2 = adsrc.value_and_grad(aux_loss, has_aux=True)(params, X, Y)
    expected_loss, expected_aux = aux_loss(params, X, Y)
    assert value == pytest.approx(expected_loss)
    assert aux["mse"] == pytest.approx(expected_loss) and aux2["mse"] == pytest.approx(expected_loss)
    np.testing.assert_allclose(aux["pred"], expected_aux["pred"])
    assert isinstance(aux["pred"], np.ndarray)
    for k in params:
        np.testing.assert_allclose(g[k], g2[k])
    check_grads(lambda p: aux_loss(p, X, Y)[0], (params,), full=True)
    # the gradient of the has_aux function agrees with finite differences of its first output
    eps = 1e-6
    d = rand(3, 2)
    fd = (aux_loss({"W": params["W"] + eps * d, "b": params["b"]}, X, Y)[0]
          - aux_loss({"W": params["W"] - eps * d, "b": params["b"]}, X, Y)[0]) / (2 * eps)
    assert np.sum(g["W"] * d) == pytest.approx(fd, rel=1e-6)


# -- within_grad and stop_gradient ----------------------------------------------------------------

MASK = np.array([1.0, 0.0, 1.0])


def dropout_loss(x):
    y = x * MASK if adsrc.within_grad() else x
    return np.sum(y ** 2)


def test_within_grad():
    x = np.array([1.0, 2.0, 3.0])
    assert adsrc.within_grad() is False
    assert dropout_loss(x) == pytest.approx(14.0)           # runs normally: no mask
    np.testing.assert_allclose(adsrc.grad(dropout_loss)(x), 2 * x * MASK)   # differentiated: masked
    assert "MASK" in adsrc.grad(dropout_loss).source()


def stopped(x):
    return np.sum(x * adsrc.stop_gradient(x) + adsrc.stop_gradient(x ** 3))


def test_stop_gradient():
    x = np.array([1.0, -2.0])
    assert adsrc.stop_gradient(x) is x
    np.testing.assert_allclose(adsrc.grad(stopped)(x), x)    # d/dx (x * c) = c = x


# -- vjp -------------------------------------------------------------------------------------------

def vector_fn(x, A):
    return np.tanh(A @ x) * x[0]


def matrix_fn(x, y):
    return np.outer(np.sin(x), y) + x[:, None] ** 2


def tree_fn(x):
    return {"a": x * 2.0, "b": (np.sum(x), x[:2])}


def jacobian_fd(f, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        cols.append(((f(x + e) - f(x - e)) / (2 * eps)).ravel())
    return np.stack(cols, axis=1)


def test_vjp_vector_output_two_cotangents():
    x, A = rand(3), rand(4, 3)
    out, pullback = adsrc.vjp(vector_fn, x, A)
    np.testing.assert_allclose(out, vector_fn(x, A))
    J = jacobian_fd(lambda v: vector_fn(v, A), x)
    for ct in (rand(4), rand(4)):
        dx, dA = pullback(ct)
        np.testing.assert_allclose(dx, J.T @ ct, rtol=1e-6, atol=1e-9)
        JA = jacobian_fd(lambda a: vector_fn(x, a.reshape(4, 3)), A.ravel())
        np.testing.assert_allclose(dA.ravel(), JA.T @ ct, rtol=1e-6, atol=1e-9)


def test_vjp_matrix_output():
    x, y = rand(3), rand(2)
    out, pullback = adsrc.vjp(matrix_fn, x, y)
    assert out.shape == (3, 2)
    J = jacobian_fd(lambda v: matrix_fn(v, y), x)
    for ct in (rand(3, 2), np.ones((3, 2))):
        dx, dy = pullback(ct)
        np.testing.assert_allclose(dx, J.T @ ct.ravel(), rtol=1e-6, atol=1e-9)
        assert dy.shape == (2,)


def test_vjp_pytree_output_and_wrong_cotangents():
    x = rand(3)
    out, pullback = adsrc.vjp(tree_fn, x)
    ct = {"a": rand(3), "b": (1.5, rand(2))}
    (dx,) = pullback(ct)
    expected = 2.0 * ct["a"] + 1.5 + np.concatenate([ct["b"][1], [0.0]])
    np.testing.assert_allclose(dx, expected)
    with pytest.raises(ValueError, match=r"output\['a'\] has shape \(2,\)"):
        pullback({"a": rand(2), "b": (1.5, rand(2))})
    with pytest.raises(ValueError, match="keys"):
        pullback({"a": rand(3)})
    with pytest.raises(ValueError, match="tuple of 2"):
        pullback({"a": rand(3), "b": 1.0})


def aux_vector(x):
    return x * 3.0, {"norm": np.sum(x ** 2)}


def test_vjp_has_aux_and_integer_primals():
    x = rand(3)
    out, pullback, aux = adsrc.vjp(aux_vector, x, has_aux=True)
    assert aux["norm"] == pytest.approx(np.sum(x ** 2))
    (dx,) = pullback(np.ones(3))
    np.testing.assert_allclose(dx, 3.0 * np.ones(3))
    out, pullback = adsrc.vjp(lambda v, n: v * n, x, 2)
    dx, dn = pullback(np.ones(3))
    assert dn is None
    np.testing.assert_allclose(dx, 2.0 * np.ones(3))


def _length_times_sum(items, x):
    return np.sum(x) * len(items)


def test_an_empty_container_gets_an_empty_gradient():
    # as JAX and autograd give (it was refused as holding no floats, like a list of ints)
    g = adsrc.grad(_length_times_sum, argnums=(0, 1))([], np.ones(2))
    assert g[0] == [] and type(g[0]) is list
    np.testing.assert_array_equal(g[1], [0.0, 0.0])
    assert adsrc.grad(_length_times_sum)((), np.ones(2)) == ()
    assert adsrc.grad(_length_times_sum)({}, np.ones(2)) == {}
