"""Callable objects, bound methods and functools.partial given to grad, value_and_grad, vjp and check_grads.

As in JAX: argnums count the call's positional arguments (after those the
callable fixes), and the fixed arguments are constants.
"""

import functools

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads
from casekit import rand


class Net:
    """A model called like a function: its weights are attributes, its forward pass is __call__."""

    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x, scale=1.0):
        return np.sum(np.tanh(self.W @ x + self.b)) * scale

    def helper(self, x):
        return np.sin(x) * self.b[0]

    def loss(self, x, y):
        return np.sum((self.helper(x) - y) ** 2)


def net_by_hand(net, x):
    z = net.W @ x + net.b
    return net.W.T @ (1.0 - np.tanh(z) ** 2)


def test_a_callable_object_is_differentiated_through_its_call():
    net = Net(rand(4, 3), rand(4))
    x = rand(3)
    np.testing.assert_allclose(adsrc.grad(net)(x), net_by_hand(net, x), rtol=1e-12)
    check_grads(net, (x,), full=True)
    check_grads(net, (x, 0.7), argnums=(0, 1), full=True)
    value, g = adsrc.value_and_grad(net, argnums=1)(x, 2.0)
    assert value == pytest.approx(net(x, 2.0)) and g == pytest.approx(net(x))
    assert "def " in adsrc.grad(net).source() and "tanh" in adsrc.grad(net).source()
    assert "Net" in repr(adsrc.grad(net))


def test_a_callable_object_reads_its_attributes_when_called():
    net = Net(rand(4, 3), rand(4))
    g = adsrc.grad(net)
    x = rand(3)
    g(x)
    net.W = net.W * 2.0                 # the object changed: the gradient follows, as for a bound method
    np.testing.assert_allclose(g(x), net_by_hand(net, x), rtol=1e-12)


def test_bound_methods_count_argnums_after_self_and_show_their_source():
    net = Net(rand(4, 3), rand(4))
    x, y = rand(3), rand(3)
    check_grads(net.loss, (x, y), argnums=(0, 1), full=True)
    g = adsrc.grad(net.loss, argnums=-1)           # the last argument of the call, y (not self)
    np.testing.assert_allclose(g(x, y), -2.0 * (np.sin(x) * net.b[0] - y))
    assert "helper" in adsrc.grad(net.loss).source()      # source() without arguments works for methods


def affine_loss(W, x, b=0.0):
    return np.sum((W @ x + b) ** 2)


def test_partial_fixes_data_as_constants_and_argnums_count_the_call():
    W, x = rand(5, 3), rand(3)
    loss = functools.partial(affine_loss, W)
    np.testing.assert_allclose(adsrc.grad(loss)(x), 2.0 * W.T @ (W @ x), rtol=1e-12)
    gx, gb = adsrc.grad(loss, argnums=(0, 1))(x, 0.5)
    np.testing.assert_allclose(gx, 2.0 * W.T @ (W @ x + 0.5), rtol=1e-12)
    assert gb == pytest.approx(2.0 * np.sum(W @ x + 0.5))
    check_grads(loss, (x, 0.3), argnums=(0, 1), full=True)
    value, g = adsrc.value_and_grad(loss)(x)
    assert value == pytest.approx(affine_loss(W, x))
    out, pullback = adsrc.vjp(loss, x)
    assert out == pytest.approx(affine_loss(W, x))
    (dx,) = pullback(1.0)
    np.testing.assert_allclose(dx, g, rtol=1e-12)
    src = adsrc.grad(loss).source()
    assert "dW" not in src                          # W is a constant: nothing computed for it


def test_partial_keywords_are_constants_too():
    W, x = rand(5, 3), rand(3)
    loss = functools.partial(affine_loss, b=1.5)
    gW, gx = adsrc.grad(loss, argnums=(0, 1))(W, x)
    np.testing.assert_allclose(gx, 2.0 * W.T @ (W @ x + 1.5), rtol=1e-12)
    assert adsrc.grad(loss, argnums=1)(W, x, b=0.0) == pytest.approx(2.0 * W.T @ (W @ x))  # the call overrides
    with pytest.raises(ValueError, match=r"names `b`, which .* fixes by keyword"):
        adsrc.grad(loss, argnums=2)


def repeat_apply(act, x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(act(x)) * i
    return s


def test_partial_fixes_functions_and_integers_known_when_transforming():
    x = rand(3)
    g = adsrc.grad(functools.partial(repeat_apply, np.tanh, n=4))
    np.testing.assert_allclose(g(x), 6.0 * (1.0 - np.tanh(x) ** 2), rtol=1e-12)
    check_grads(functools.partial(repeat_apply, np.sin), (x, 3), static_argnums=1, full=True)


def test_partial_of_a_bound_method_and_of_a_callable_object():
    net = Net(rand(4, 3), rand(4))
    x = rand(3)
    np.testing.assert_allclose(adsrc.grad(functools.partial(net, scale=3.0))(x), 3.0 * net_by_hand(net, x),
                               rtol=1e-12)
    y = rand(3)
    check_grads(functools.partial(net.loss, y=y), (x,), full=True)


def test_list_fixed_by_a_partial_is_read_when_called():
    def weighted(ws, x):
        return np.sum(x * ws[0])
    ws = [np.ones(2)]
    g = adsrc.grad(functools.partial(weighted, ws))
    np.testing.assert_allclose(g(np.zeros(2)), [1.0, 1.0])
    ws[0] = np.full(2, 3.0)
    np.testing.assert_allclose(g(np.zeros(2)), [3.0, 3.0])


def test_partial_refusals_describe_arrays_by_shape_and_dtype():
    W = np.ones((1000, 100))
    loss = functools.partial(affine_loss, W)
    with pytest.raises(ValueError) as info:
        adsrc.grad(loss, argnums=2)
    message = str(info.value)
    assert "out of range" in message and "(x, b)" in message
    assert "shape (1000, 100)" in message and "float64" in message
    assert "1., 1." not in message and len(message.splitlines()) == 1
    with pytest.raises(TypeError) as info:
        adsrc.grad(functools.partial(affine_loss, W, W, W, W))
    assert "binds 4 positional arguments" in str(info.value) and "1., 1." not in str(info.value)
    assert "1., 1." not in repr(adsrc.grad(loss))


def test_derivatives_of_partial_gradients_are_second_derivatives():
    # x -> sum(d/dW affine_loss(W, x)) = sum(2 (W x) x^T): a gradient fixed by functools.partial, differentiated
    W, x = rand(2, 2), rand(2)
    grad_w = functools.partial(adsrc.grad(affine_loss), W)
    check_grads(lambda x: np.sum(grad_w(x)), (x,), full=True)
    with pytest.raises(TypeError, match="return a real scalar"):
        adsrc.grad(grad_w)(x)      # its value is a matrix


class Scaler:
    factor = 3.0

    @staticmethod
    def __call__(x):                    # no self: the object is not passed
        return np.sum(x * Scaler.factor)


def test_a_static_call_method_is_not_given_the_object():
    np.testing.assert_allclose(adsrc.grad(Scaler())(rand(2)), [3.0, 3.0])


def _central(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("fun, x", [(np.sqrt, 2.0), (np.tanh, 0.3), (np.arctan, -1.5), (np.log1p, 0.7)])
def test_functions_with_rules_are_differentiated_themselves(fun, x):
    # grad(np.sqrt) as in autograd and jax.grad(jnp.sqrt)
    g = adsrc.grad(fun)(x)
    assert np.isfinite(g)
    np.testing.assert_allclose(g, _central(fun, x), rtol=1e-6, atol=1e-9)


def test_functions_with_rules_take_argnums_arrays_and_vjp():
    np.testing.assert_allclose(adsrc.grad(np.multiply, argnums=1)(2.0, 3.0), 2.0, rtol=1e-12)
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    # d det(a) / da = det(a) inv(a).T
    np.testing.assert_allclose(adsrc.grad(np.linalg.det)(a), np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-10)
    out, pullback = adsrc.vjp(np.sin, np.array([0.1, 0.2]))
    np.testing.assert_allclose(pullback(np.ones(2))[0], np.cos([0.1, 0.2]), rtol=1e-12)
    with pytest.raises(TypeError, match="`sin` to return a real scalar"):
        adsrc.grad(np.sin)(np.zeros(3))


def test_numpy_functions_with_rules_take_their_other_arguments():
    # grad(np.trace)(a, offset=1) passed offset to a wrapper of one parameter; np.einsum had no second argument
    a = np.arange(9.0).reshape(3, 3) / 10
    np.testing.assert_allclose(adsrc.grad(np.trace)(a, offset=1), np.eye(3, k=1), rtol=0, atol=0)
    np.testing.assert_allclose(adsrc.grad(np.einsum, argnums=1)("ij,ij->", a, a), a, rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(np.sum)(a, axis=None), np.ones((3, 3)), rtol=0, atol=0)
    adsrc.check_grads(np.linalg.norm, (a,), kwargs={"ord": "fro"}, modes=["fwd", "rev"], order=2)


def _product_of(*args):
    return np.sin(args[0]) * args[1]


def _scaled(x, *rest, scale=1.0, **shifts):
    out = x * scale
    for r in rest:
        out = out * r
    for k in shifts:
        out = out + shifts[k] ** 2
    return np.sum(out)


def test_functions_taking_star_args_count_argnums_over_the_call():
    # as jax.grad: argnums are positions in the call, each number of arguments its own specialization
    np.testing.assert_allclose(adsrc.grad(_product_of)(0.5, 2.0), 2.0 * np.cos(0.5), rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(_product_of, argnums=1)(0.5, 2.0, 7.0), np.sin(0.5), rtol=1e-12)
    x, shift = rand(2), rand(2)
    gx, g1 = adsrc.grad(_scaled, argnums=(0, 1))(x, 3.0, 4.0, scale=2.0, shift=shift)
    np.testing.assert_allclose(gx, [24.0, 24.0], rtol=1e-12)
    np.testing.assert_allclose(g1, np.sum(x * 2.0 * 4.0), rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(_scaled)(x), [1.0, 1.0], rtol=1e-12)
    check_grads(lambda a, b: _scaled(a, b, scale=0.5, s=a), (x, rand(2)))


def test_vjp_of_a_function_taking_star_args_returns_one_cotangent_per_primal():
    out, pullback = adsrc.vjp(_product_of, 0.5, np.array([1.0, 2.0]))
    np.testing.assert_allclose(out, np.sin(0.5) * np.array([1.0, 2.0]), rtol=1e-12)
    d0, d1 = pullback(np.ones(2))
    np.testing.assert_allclose(d0, 3.0 * np.cos(0.5), rtol=1e-12)
    np.testing.assert_allclose(d1, [np.sin(0.5)] * 2, rtol=1e-12)
    with pytest.raises(TypeError, match="`_product_of` to return a real scalar"):
        adsrc.grad(_product_of)(0.5, np.ones(2))


@pytest.mark.parametrize("fn, x, second", [
    (np.sqrt, 2.0, lambda x: -0.25 * x ** -1.5),
    (np.tanh, 0.3, lambda x: -2.0 * np.tanh(x) * (1.0 - np.tanh(x) ** 2)),
    (np.exp, -0.7, np.exp),
])
def test_derivatives_of_functions_with_rules_to_any_order(fn, x, second):
    """grad(grad(np.sqrt)) as in autograd's fixed_points example: the wrapper fixes nothing in front."""
    g2 = adsrc.grad(adsrc.grad(fn))
    assert np.isclose(g2(x), second(x), rtol=1e-10, atol=1e-12)
    g3 = adsrc.grad(g2)
    eps = 1e-5
    want = (g2(x + eps) - g2(x - eps)) / (2 * eps)
    assert not np.isnan(g3(x))
    assert np.isclose(g3(x), want, rtol=1e-6, atol=1e-8)


def test_gradient_of_a_two_argument_function_with_a_rule():
    gx, gy = adsrc.grad(np.hypot, argnums=(0, 1))(3.0, 4.0)
    assert np.isclose(gx, 0.6) and np.isclose(gy, 0.8)
    hxx = adsrc.grad(adsrc.grad(np.hypot))(3.0, 4.0)
    assert np.isclose(hxx, 4.0 ** 2 / 5.0 ** 3)


def test_partial_of_a_function_with_a_rule_binds_its_keywords_and_arguments():
    # `axis` was refused as "not a named parameter" of the rule's wrapper (check_grads(f, kwargs=) makes such a
    # partial itself)
    from scipy.special import logsumexp
    x = np.array([[0.3, -1.2], [0.5, 2.0]])
    np.testing.assert_allclose(adsrc.grad(functools.partial(np.sum, axis=None))(x), np.ones((2, 2)))
    soft = np.exp(x - logsumexp(x, axis=1, keepdims=True))
    np.testing.assert_allclose(adsrc.grad(lambda v: np.sum(functools.partial(logsumexp, axis=1)(v) * [1.0, 2.0]))(x),
                               soft * [[1.0], [2.0]], rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(functools.partial(logsumexp, axis=None))(x), np.exp(x - logsumexp(x)),
                               rtol=1e-12)
    w = np.array([2.0, -1.0])
    np.testing.assert_allclose(adsrc.grad(functools.partial(np.dot, w))(np.array([0.5, 1.5])), w)
    adsrc.check_grads(logsumexp, (x,), kwargs={"axis": 1, "b": np.array([[1.0], [0.5]])}, modes=["fwd", "rev"],
                      order=2)
