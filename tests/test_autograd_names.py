"""Programs written for autograd, with their imports pointed at adsrc: `adsrc.extend.primitive` and
`defvjp` with autograd's vjp makers (`maker(ans, *args) -> (lambda g: ...)`), checked against central
differences; adsrc's own vjp form keeps working beside them."""

import numpy as np
import pytest

import adsrc
from adsrc.extend import defvjp, primitive


@primitive
def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_vjp(ans, x):
    shape = x.shape
    return lambda g: np.full(shape, g) * np.exp(x - np.full(shape, ans))


defvjp(logsumexp, logsumexp_vjp)


@primitive
def scaled_product(x, y, scale=2.0):
    return scale * x * y


defvjp(scaled_product, lambda ans, x, y, scale=2.0: lambda g: g * scale * y,
       lambda ans, x, y, scale=2.0: lambda g: g * scale * x)


def smooth_max(y):
    return logsumexp(y ** 2) * 1.5


def uses_product(x, y):
    return np.sum(scaled_product(np.sin(x), y, 3.0))


def central(f, x, eps=1e-6):
    return np.array([(f(x + eps * u) - f(x - eps * u)) / (2 * eps) for u in np.eye(x.size)])


def test_an_autograd_vjp_maker_gives_the_rule():
    x = np.array([0.3, -1.2, 0.8])
    g = adsrc.grad(smooth_max)
    np.testing.assert_allclose(g(x), central(smooth_max, x), rtol=1e-6, atol=1e-9)
    assert "logsumexp_vjp_x(" in g.source(x)          # the rule, not logsumexp's source


@pytest.mark.parametrize("argnum", [0, 1])
def test_makers_of_a_function_of_two_arguments(argnum):
    x, y = np.array([0.2, -0.5]), np.array([1.5, 0.7])
    got = adsrc.grad(uses_product, argnums=argnum)(x, y)
    f = (lambda v: uses_product(v, y)) if argnum == 0 else (lambda v: uses_product(x, v))
    np.testing.assert_allclose(got, central(f, (x, y)[argnum]), rtol=1e-6, atol=1e-9)


def test_adsrc_form_and_primitive_unchanged():
    @primitive
    def cube(x):
        return x ** 3
    assert cube(2.0) == 8.0
    adsrc.defvjp(cube, lambda g, ans, x: g * 3.0 * x ** 2)     # adsrc's own form: g first

    def f(x):
        return cube(x) + x
    assert adsrc.grad(f)(2.0) == pytest.approx(13.0)


# -- adsrc.misc.fixed_points.fixed_point: implicit differentiation -------------------------------------------

def newton_sqrt_iter(a):
    return lambda x: 0.5 * (x + a / x)


def descent_sqrt_iter(a):
    return lambda x: x - 0.05 * (x ** 2 - a)


def distance(x, y):
    return np.max(np.abs(x - y))


def fixed_sqrt(a):
    from adsrc.misc.fixed_points import fixed_point
    return fixed_point(newton_sqrt_iter, a, 10.0, distance, 1e-12)


def fixed_sqrt_by_descent(a):
    from adsrc.misc.fixed_points import fixed_point
    return np.sum(fixed_point(descent_sqrt_iter, a, np.ones(np.shape(a)), distance, 1e-12) * 2.0)


def test_fixed_point_is_differentiated_implicitly():
    assert fixed_sqrt(2.0) == pytest.approx(np.sqrt(2.0), rel=1e-12)
    assert adsrc.grad(fixed_sqrt)(2.0) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-9)
    a = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(adsrc.grad(fixed_sqrt_by_descent)(a), 1.0 / np.sqrt(a), rtol=1e-8)
    np.testing.assert_allclose(adsrc.grad(fixed_sqrt_by_descent)(a), central(fixed_sqrt_by_descent, a),
                               rtol=1e-6, atol=1e-8)


def cube_root_iter(a):
    return lambda x: x - 0.1 * (x ** 3 - a) / (1.0 + x ** 2)


def fixed_cube_roots(a, tol=1e-13):
    from adsrc.misc.fixed_points import fixed_point
    return fixed_point(cube_root_iter, a, np.ones(np.shape(a)), distance, tol)


def cube_root_energy(a):
    r = fixed_cube_roots(a)
    return np.sum(np.sin(r) * a) + r[0] * r[1]


def test_fixed_point_second_derivatives():
    # grad of grad, and a Hessian, through the implicit rule (was refused: its backward pass was library code)
    d2 = adsrc.grad(adsrc.grad(fixed_sqrt))(2.0)
    assert d2 == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-9)
    a = np.array([1.5, 2.5, 0.7])
    g = adsrc.grad(cube_root_energy)
    np.testing.assert_allclose(g(a), central(cube_root_energy, a), rtol=1e-6, atol=1e-8)
    H = adsrc.hessian(cube_root_energy)(a)
    H_fd = np.stack([central(lambda b: g(b)[i], a) for i in range(3)])
    np.testing.assert_allclose(H, H_fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-8, atol=1e-10)
    v = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(adsrc.hvp(cube_root_energy, a, v), H @ v, rtol=1e-7, atol=1e-9)


def test_fixed_point_third_derivative_is_refused_by_name():
    with pytest.raises(adsrc.TransformError, match="_adjoint_bwd|fixed_point"):
        adsrc.grad(adsrc.grad(adsrc.grad(fixed_sqrt)))(2.0)


# -- autograd's differential operators (autograd_names.py) ---------------------------------------------------

def layer(x, W):
    return np.tanh(W @ x)


def energy(x, W):
    return np.sum(np.sin(W @ x) ** 2)


def energy_with_aux(x, W):
    return energy(x, W), W @ x


def jacobian_of_layer(x, W):
    return np.stack([central(lambda v: layer(v, W)[i], x) for i in range(W.shape[0])])


def test_autograd_differential_operators():
    rs = np.random.RandomState(4)
    x, W, v, u = rs.randn(3), rs.randn(2, 3), rs.randn(3), rs.randn(2)
    J = jacobian_of_layer(x, W)
    vjp_fn, ans = adsrc.make_vjp(layer)(x, W)
    np.testing.assert_allclose(ans, layer(x, W))
    np.testing.assert_allclose(vjp_fn(u), u @ J, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(adsrc.vector_jacobian_product(layer)(x, W, u), u @ J, rtol=1e-6, atol=1e-9)
    assert adsrc.tensor_jacobian_product is adsrc.vector_jacobian_product
    value, tangent = adsrc.make_jvp(layer)(x, W)(v)
    np.testing.assert_allclose(tangent, J @ v, rtol=1e-6, atol=1e-9)
    g = adsrc.grad(energy)
    H = np.stack([central(lambda y: g(y, W)[i], x) for i in range(3)])
    np.testing.assert_allclose(adsrc.hessian_vector_product(energy)(x, W, v), H @ v, rtol=1e-5, atol=1e-7)
    d, aux = adsrc.grad_and_aux(energy_with_aux)(x, W)
    np.testing.assert_allclose(d, g(x, W))
    np.testing.assert_allclose(aux, W @ x)


def test_fixed_point_transforms_its_adjoint_once():
    from adsrc.misc import fixed_points
    g = adsrc.grad(fixed_sqrt)
    g(2.0)
    made = fixed_points._applied(newton_sqrt_iter)
    g(3.0)
    assert fixed_points._applied(newton_sqrt_iter) is made
    assert g(3.0) == pytest.approx(0.5 / np.sqrt(3.0), rel=1e-9)
