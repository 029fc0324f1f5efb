"""adsrc.custom_jvp (JAX's protocol) and adsrc.defjvp (autograd's, for functions without source)."""

import numpy as np
import pytest

import adsrc


@adsrc.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1.0 + np.exp(-x))


@adsrc.custom_jvp
def clipped_identity(x, scale):
    return x * scale


@clipped_identity.defjvp
def clipped_identity_jvp(primals, tangents):
    # a deliberately different derivative: the rule, not the body, must be used
    (x, scale), (tx, ts) = primals, tangents
    return clipped_identity(x, scale), np.clip(tx, -1.0, 1.0) * scale + x * ts


def loss(x):
    return np.sum(softplus(x) * x)


X = np.array([0.3, -1.2, 2.0])
V = np.array([1.0, 0.5, -0.2])


def test_forward_and_reverse_mode_use_the_rule():
    s = 1 / (1 + np.exp(-X))
    exact = softplus(X) + X * s
    out, t = adsrc.jvp(loss, (X,), (V,))
    assert out == pytest.approx(loss(X), rel=1e-14)
    assert t == pytest.approx(exact @ V, rel=1e-12)
    np.testing.assert_allclose(adsrc.grad(loss)(X), exact, rtol=1e-12)
    adsrc.check_grads(loss, (X,), modes=("fwd", "rev"))


def test_the_rule_is_used_not_the_body():
    x, scale = np.array([3.0, -0.5]), 2.0
    f = lambda x, s: np.sum(clipped_identity(x, s))       # noqa: E731
    # the rule clips tangents to [-1, 1]: d/dx sum = scale where the tangent is within, in both modes
    t = adsrc.jvp(f, (x, scale), (np.array([5.0, 0.5]), 0.0))[1]
    assert t == pytest.approx(2.0 * (1.0 + 0.5), rel=1e-14)
    # reverse mode transposes the rule's tangent map at a zero tangent, where clip is the identity
    np.testing.assert_allclose(adsrc.grad(f, argnums=(0, 1))(x, scale)[0], [2.0, 2.0], rtol=1e-14)
    assert adsrc.grad(f, argnums=1)(x, scale) == pytest.approx(np.sum(x), rel=1e-14)


def test_second_derivatives_through_a_custom_jvp_follow_the_rule():
    s = 1 / (1 + np.exp(-X))
    exact = np.diag(2 * s + X * s * (1 - s))       # loss = sum(softplus(x) x)
    np.testing.assert_allclose(adsrc.hessian(loss)(X), exact, rtol=1e-12, atol=1e-14)
    u = np.array([0.2, -1.0, 0.7])
    hu = adsrc.grad(lambda x: np.sum(adsrc.grad(loss)(x) * u))(X)          # reverse over reverse
    np.testing.assert_allclose(hu, exact @ u, rtol=1e-12, atol=1e-14)


def test_defjvp_gives_a_function_without_source_both_modes():
    cube = eval("lambda x: x ** 3")           # no source adsrc could read
    adsrc.defjvp(cube, lambda g, ans, x: 3.0 * x ** 2 * g)

    def h(x):
        return np.sum(cube(x) * 2.0)
    assert adsrc.jvp(h, (X,), (V,))[1] == pytest.approx(np.sum(6 * X ** 2 * V), rel=1e-12)
    # reverse mode transposes the jvp (no vjp given)
    np.testing.assert_allclose(adsrc.grad(h)(X), 6 * X ** 2, rtol=1e-12)


@adsrc.custom_jvp
def _sin_times(x, y):
    return np.sin(x) * y


_sin_times.defjvps(lambda x_dot, ans, x, y: np.cos(x) * x_dot * y,
                   lambda y_dot, ans, x, y: np.sin(x) * y_dot)


@adsrc.custom_jvp
def _dot_second(x, y):
    return np.sum(x * y)


_dot_second.defjvps(None, lambda y_dot, ans, x, y: np.sum(x * y_dot))       # x's tangent contributes nothing


def _uses_defjvps(x, y):
    return np.sum(_sin_times(x, y) ** 2) + _dot_second(x, y)


def test_defjvps_gives_one_rule_per_argument_summed_in_both_modes():
    # JAX's per-argument form (it raised AttributeError)
    x, y = np.array([0.3, 1.2]), np.array([0.5, -0.7])
    gx, gy = adsrc.grad(_uses_defjvps, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 2 * np.sin(x) * y * np.cos(x) * y, rtol=1e-13)    # _dot_second: none for x
    np.testing.assert_allclose(gy, 2 * np.sin(x) * y * np.sin(x) + x, rtol=1e-13)
    t = np.array([1.0, -2.0])
    out, tangent = adsrc.jvp(lambda a, b: _sin_times(a, b), (x, y), (t, t))
    np.testing.assert_allclose(tangent, np.cos(x) * t * y + np.sin(x) * t, rtol=1e-13)
    np.testing.assert_allclose(adsrc.hessian(lambda a: np.sum(_sin_times(a, y)))(x), np.diag(-np.sin(x) * y),
                               rtol=1e-12, atol=1e-15)


def test_defjvps_needs_one_rule_per_argument():
    f = adsrc.custom_jvp(lambda x, y: x * y)
    with pytest.raises(TypeError, match="one function \\(or None\\) per argument"):
        f.defjvps(lambda t, ans, x, y: t * y)
