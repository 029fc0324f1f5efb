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


# -- deriv, holomorphic_grad, make_hvp, make_ggnvp, tensor products along leading axes ------------------------

def wave(x):
    return (x + np.sin(x ** 2)) * x


def test_deriv_is_the_forward_derivative_along_ones():
    assert adsrc.deriv(wave)(1.3) == pytest.approx((wave(1.3 + 1e-6) - wave(1.3 - 1e-6)) / 2e-6, rel=1e-7)
    x = np.array([0.2, -0.8, 1.1])
    np.testing.assert_allclose(adsrc.deriv(wave)(x), np.array([central(lambda v: wave(v)[i], x)[i]
                                                              for i in range(3)]), rtol=1e-6)


def cubic_phase(z):
    return z ** 3 * (0.5 - 0.2j) + np.exp(z)


def test_holomorphic_grad_is_the_complex_derivative():
    z = 0.4 + 0.9j
    expected = (cubic_phase(z + 1e-6) - cubic_phase(z - 1e-6)) / 2e-6
    assert adsrc.holomorphic_grad(cubic_phase)(z) == pytest.approx(expected, rel=1e-7)
    with pytest.warns(UserWarning, match="not complex"):
        g = adsrc.holomorphic_grad(lambda x: x * 3.0 + 0j)(2.0)
    assert g == pytest.approx(3.0)


def bowl(x):
    return np.sum(np.sin(x) * x ** 2) + x[0] * x[1]


def test_make_hvp_gives_the_hessian_times_a_vector_and_the_gradient():
    x, v = np.array([0.3, -1.1, 0.8]), np.array([1.0, 0.5, -2.0])
    hvp, gradient = adsrc.make_hvp(bowl)(x)
    H = np.array([central(lambda y: adsrc.grad(bowl)(y)[i], x) for i in range(3)])
    np.testing.assert_allclose(gradient, central(bowl, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hvp(v), H @ v, rtol=1e-6, atol=1e-7)


A_GGN = np.array([[0.5, -1.0, 0.3], [1.2, 0.1, -0.7]])


def squash(x):
    return np.tanh(A_GGN @ x)


def test_make_ggnvp_is_jt_h_j():
    x, v = np.array([0.4, -0.3, 0.9]), np.array([0.2, 1.0, -0.5])
    J = np.array([central(lambda y: squash(y)[i], x) for i in range(2)])
    np.testing.assert_allclose(adsrc.make_ggnvp(squash)(x)(v), J.T @ (J @ v), rtol=1e-6, atol=1e-8)  # H = I

    def quartic(y):
        return np.sum(2.0 * y ** 2 + y ** 4)
    H = np.diag(4.0 + 12.0 * squash(x) ** 2)
    np.testing.assert_allclose(adsrc.make_ggnvp(squash, quartic)(x)(v), J.T @ H @ J @ v, rtol=1e-6, atol=1e-8)


def rolled(a):
    return np.roll(np.sin(a), 1)


def test_tensor_jacobian_product_along_the_outputs_leading_axes():
    a = np.arange(24.0).reshape(4, 3, 2) / 10.0
    V = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    got = adsrc.tensor_jacobian_product(rolled)(a, V)
    assert got.shape == (2, 4, 3, 2)
    eps = 1e-6
    for idx in [(0, 0, 0, 0), (1, 2, 1, 1), (0, 3, 2, 1)]:
        e = np.zeros_like(a)
        e[idx[1:]] = eps
        fd = np.tensordot(V, (rolled(a + e) - rolled(a - e)) / (2 * eps), axes=2)[idx[0]]
        assert got[idx] == pytest.approx(fd, rel=1e-6, abs=1e-9)
    full = np.linspace(0.5, 1.5, 24).reshape(4, 3, 2)
    np.testing.assert_allclose(adsrc.tensor_jacobian_product(rolled)(a, full),
                               central(lambda y: np.sum(rolled(y.reshape(a.shape)) * full), a.ravel()).reshape(a.shape),
                               rtol=1e-6, atol=1e-8)


def test_autograds_comparisons_in_test_util():
    from adsrc.test_util import check_equivalent, scalar_close
    assert scalar_close(1.0, 1.0 + 1e-9) and not scalar_close(1.0, 1.1)
    check_equivalent({"a": np.ones(2), "b": (1.0, [2.0])}, {"a": np.ones(2) + 1e-9, "b": (1.0, [2.0])})
    with pytest.raises(AssertionError):
        check_equivalent(np.ones(2), np.ones(3))
    with pytest.raises(AssertionError):
        check_equivalent((1.0, 2.0), (1.0, 2.5))
