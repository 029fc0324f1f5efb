"""Forward mode (adsrc.jvp) and forward over reverse (Hessian-vector products) on every gradient case file."""

import functools

import numpy as np
import pytest

import adsrc
from fwdkit import all_cases, check_hvp, check_jvp, nums_of

CASES = [c for c in all_cases() if all(i < len(c.args) for i in nums_of(c))]


def _hvp_cases():
    import numpy as np
    out = []
    for c in CASES:
        if not isinstance(c.argnums, int) or c.kwargs:
            continue
        x = c.args[c.argnums]
        if isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
            out.append(c)
    return out


HVP_CASES = _hvp_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_jvp_matches_finite_differences_and_reverse_mode(case):
    check_jvp(case)


@pytest.mark.parametrize("case", HVP_CASES, ids=[c.id for c in HVP_CASES])
def test_hessian_vector_product_matches_differences_of_the_gradient(case):
    check_hvp(case)


def test_enough_cases():
    assert len(CASES) >= 270
    assert len(HVP_CASES) >= 210


def test_a_real_value_times_a_complex_literal_has_a_complex_tangent():
    import numpy as np
    x, t = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    out, tout = adsrc.jvp(lambda x: x * 1j + 2j * x - x / 1j, (x,), (t,))
    np.testing.assert_allclose(tout, 4j * t, rtol=1e-14)      # x/1j = -1j x
    np.testing.assert_allclose(out, 4j * x, rtol=1e-14)


def test_second_derivative_through_a_broadcast_scalar():
    # h(w, b) = sum(grad_w sum(w * b)) = 5 b for w of 5 elements: dh/db = 5 (reverse over reverse)
    import numpy as np
    g = adsrc.grad(lambda w, b: np.sum(w * b))
    h = lambda w, b: np.sum(g(w, b))      # noqa: E731
    assert adsrc.grad(h, argnums=1)(np.ones(5), 2.0) == pytest.approx(5.0, rel=1e-14)
    np.testing.assert_allclose(adsrc.grad(h, argnums=0)(np.ones(5), 2.0), np.zeros(5), atol=0)


def test_second_derivative_through_a_custom_vjp_follows_its_fwd_and_bwd():
    import numpy as np

    @adsrc.custom_vjp
    def f(x):
        return np.sin(x)
    f.defvjp(lambda x: (np.sin(x), np.cos(x)), lambda c, g: (g * c,))
    x = np.array([0.3, 1.2])
    h = adsrc.hessian(lambda x: np.sum(f(x) * x))(x)
    np.testing.assert_allclose(h, np.diag(2 * np.cos(x) - x * np.sin(x)), rtol=1e-12, atol=1e-14)


def test_a_gradient_with_static_arguments_called_inside_needs_their_values_when_transforming():
    import numpy as np
    g = adsrc.grad(lambda x, k: np.sum(x ** k), static_argnums=1)
    x = np.array([0.5, -1.5])

    def h(x):
        return np.sum(g(x, 3))           # sum(3 x^2)
    np.testing.assert_allclose(adsrc.grad(h)(x), 6 * x, rtol=1e-14)

    def h2(x, k):
        return np.sum(g(x, k))
    np.testing.assert_allclose(adsrc.grad(h2, static_argnums=1)(x, 3), 6 * x, rtol=1e-14)
    with pytest.raises(adsrc.TransformError, match="static argument `k`"):
        adsrc.grad(h2)(x, 3)


def test_grad_of_jvp_and_third_order():
    import numpy as np
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 5)), np.sign(rng.normal(size=30))
    w, v = rng.normal(size=5), rng.normal(size=5)

    def loss(w, X, y):
        return np.mean(np.logaddexp(0.0, -y * (X @ w))) + 0.01 * np.sum(np.sin(w))

    def directional(w):          # <grad loss(w), v>, by forward mode inside a differentiated function
        return adsrc.jvp(loss, (w, X, y), (v, None, None))[1]
    H = adsrc.hessian(loss)(w, X, y)
    np.testing.assert_allclose(adsrc.grad(directional)(w), H @ v, rtol=1e-10, atol=1e-14)
    # third derivatives: grad of (grad of jvp), and jvp of grad of jvp, against differences of H v
    adsrc.check_grads(directional, (w,), modes=("rev", "fwd"), order=2)
    t3 = adsrc.jvp(adsrc.grad(directional), (w,), (v,))[1]
    eps = 1e-5
    fd = (adsrc.hessian(loss)(w + eps * v, X, y) @ v - adsrc.hessian(loss)(w - eps * v, X, y) @ v) / (2 * eps)
    np.testing.assert_allclose(t3, fd, rtol=1e-5, atol=1e-8)


# -- the parameters jvp and grad look at on every call: functions left to defaults, objects passed later ----------

def _squash(z):
    return z / (1.0 + z * z)


def loss_with_a_function_default(x, c, act=_squash):
    return np.sum(act(x) * c)


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@_decorated
def decorated_loss_with_a_function_default(x, c, act=np.tanh):
    return np.sum(act(x) * c)


class Scale:
    def __init__(self, s):
        self.s = s

    def apply(self, x):
        return self.s * x


def loss_of_a_scale_or_a_number(x, scale):
    return np.sum(np.sin(scale.apply(x) if isinstance(scale, Scale) else scale * x))


def _directional(f, args, t, h=1e-6):
    return (f(args[0] + h * t, *args[1:]) - f(args[0] - h * t, *args[1:])) / (2 * h)


@pytest.mark.parametrize("fn", [loss_with_a_function_default, decorated_loss_with_a_function_default])
def test_jvp_follows_a_function_left_to_its_default(fn):
    x, c, t = np.array([0.3, -1.2, 0.8]), np.array([1.0, 2.0, -0.5]), np.array([0.5, 1.0, -2.0])
    for _ in range(2):      # the second call takes the cached code
        out, dot = adsrc.jvp(fn, (x, c), (t, None))
        np.testing.assert_allclose(out, fn(x, c), rtol=1e-12)
        assert not np.isnan(dot)
        np.testing.assert_allclose(dot, _directional(fn, (x, c), t), rtol=1e-6, atol=1e-9)


def test_grad_and_jvp_learn_an_object_passed_after_plain_numbers():
    # (it was a strict expected failure: the second call took the number's cached code, whose
    # key had only the differentiated argument, and refused the method call)
    x, t = np.array([0.3, -1.2, 0.8]), np.array([0.5, 1.0, -2.0])
    g = adsrc.grad(loss_of_a_scale_or_a_number)
    for scale in (2.0, Scale(1.5), 0.5, Scale(-0.7)):
        got = g(x, scale)
        h = 1e-6
        fd = np.array([(loss_of_a_scale_or_a_number(x + h * e, scale) - loss_of_a_scale_or_a_number(x - h * e, scale))
                       / (2 * h) for e in np.eye(3)])
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-9)
        _, dot = adsrc.jvp(loss_of_a_scale_or_a_number, (x, scale), (t, None))
        np.testing.assert_allclose(dot, _directional(loss_of_a_scale_or_a_number, (x, scale), t), rtol=1e-6,
                                   atol=1e-9)


class Doubled(Scale):
    def apply(self, x):
        return 2.0 * self.s * np.cos(x)


def loss_of_a_scale_or_a_function(x, y, scale=1.0):
    if isinstance(scale, Scale):
        z = scale.apply(x)
    elif isinstance(scale, float):
        z = scale * x
    else:
        z = scale(x)
    return np.sum(np.sin(z) * y)


def _fd_grad(f, x, *rest, h=1e-6, **kw):
    return np.array([(f(x + h * e, *rest, **kw) - f(x - h * e, *rest, **kw)) / (2 * h) for e in np.eye(len(x))])


def test_grad_keys_each_call_on_objects_and_functions_passed_after_numbers():
    # a number, then objects of two classes, a function (after the objects: the parameter becomes static) and
    # numbers again, by position, by keyword and left to its default, for a parameter after another that is not
    # differentiated: each call gets its own specialization
    x, y = np.array([0.3, -1.2, 0.8]), np.array([1.0, -0.5, 2.0])
    g = adsrc.grad(loss_of_a_scale_or_a_function)
    calls = [((2.0,), {}), ((Scale(1.5),), {}), ((), {"scale": Doubled(0.4)}), ((np.tanh,), {}), ((0.5,), {}),
             ((), {}), ((), {"scale": Scale(-0.7)}), ((Doubled(1.1),), {}), ((np.sin,), {})]
    for rest, kw in calls:
        got = g(x, y, *rest, **kw)
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, _fd_grad(loss_of_a_scale_or_a_function, x, y, *rest, **kw), rtol=1e-6,
                                   atol=1e-9)


def powered_loss_of_a_scale(x, power, scale):
    return np.sum((scale.apply(x) if isinstance(scale, Scale) else scale * x) ** power)


def test_value_and_grad_with_a_static_argument_learns_an_object_passed_after_a_number():
    # (with a static argument a call takes the key function's path, not the lean one)
    x = np.array([0.3, -1.2, 0.8])
    vg = adsrc.value_and_grad(powered_loss_of_a_scale, static_argnums=1)
    for scale in (2.0, Scale(1.5), Doubled(0.3), 2.0, Scale(0.5)):
        value, got = vg(x, 3, scale)
        np.testing.assert_allclose(value, powered_loss_of_a_scale(x, 3, scale), rtol=1e-12, atol=0)
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, _fd_grad(powered_loss_of_a_scale, x, 3, scale), rtol=1e-6, atol=1e-9)


def test_source_of_a_call_with_an_object_learns_its_class_for_the_calls_after_it():
    # (source() built the object's code without its class, under the key that the call then took)
    x = np.array([0.3, -1.2, 0.8])
    g = adsrc.grad(loss_of_a_scale_or_a_number)
    g(x, 2.0)
    assert ".apply(" in str(g.source(x, Scale(1.5)))
    got = g(x, Scale(1.5))
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, _fd_grad(loss_of_a_scale_or_a_number, x, Scale(1.5)), rtol=1e-6, atol=1e-9)
