"""adsrc.jvp's options, jacfwd, jacrev, jacobian, hessian and hvp: shapes, pytrees, static arguments,
control flow, against finite differences and against each other."""

import numpy as np
import pytest

import adsrc

RNG = np.random.default_rng(11)


def central_jacobian(f, x, eps=1e-6):
    """d f / d x by central differences, shape out.shape + x.shape."""
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        cols.append((np.asarray(f(x + e.reshape(x.shape))) - np.asarray(f(x - e.reshape(x.shape)))) / (2 * eps))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def looped(x, n):
    """A loop of run-time length n, a branch on values, a while loop with a break."""
    s = np.zeros_like(x)
    for i in range(n):
        if np.sum(x) > 0:
            s = s + np.sin(x * (i + 1))
        else:
            s = s - x ** 2
    k = 0
    while True:
        s = s * 0.9 + np.tanh(s)
        k += 1
        if k >= 3:
            break
    return s


def test_jacfwd_and_jacrev_agree_with_differences_through_control_flow():
    x = RNG.normal(size=4)
    for n in (0, 1, 3):
        expected = central_jacobian(lambda x: looped(x, n), x)
        np.testing.assert_allclose(adsrc.jacfwd(looped)(x, n), expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(adsrc.jacrev(looped)(x, n), expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(adsrc.jacobian(looped)(x, n), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_shapes_and_several_argnums():
    def f(a, b):
        return np.outer(np.sin(a), b) * b[0]
    a, b = RNG.normal(size=3), RNG.normal(size=2)
    ja, jb = adsrc.jacfwd(f, argnums=(0, 1))(a, b)
    assert ja.shape == (3, 2, 3) and jb.shape == (3, 2, 2)
    ra, rb = adsrc.jacrev(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ja, ra, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jb, rb, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jb, central_jacobian(lambda b: f(a, b), b), rtol=1e-6, atol=1e-8)


def test_jacobian_of_pytree_input_and_output():
    def f(p):
        return {"y": p["w"] * p["b"], "s": np.sum(p["w"] ** 2)}
    p = {"w": RNG.normal(size=3), "b": 1.5}
    J = adsrc.jacfwd(f)(p)
    R = adsrc.jacrev(f)(p)
    assert J["y"]["w"].shape == (3, 3) and np.shape(J["y"]["b"]) == (3,) and J["s"]["w"].shape == (3,)
    np.testing.assert_allclose(J["y"]["w"], np.eye(3) * 1.5, rtol=1e-14)
    np.testing.assert_allclose(J["y"]["b"], p["w"], rtol=1e-14)
    np.testing.assert_allclose(J["s"]["w"], 2 * p["w"], rtol=1e-14)
    for k1 in ("y", "s"):
        for k2 in ("w", "b"):
            np.testing.assert_allclose(J[k1][k2], R[k1][k2], rtol=1e-12, atol=1e-14)


def test_hessian_and_hvp_with_static_arguments():
    def f(x, power):
        return np.sum(x ** power) + np.prod(x)
    x = RNG.uniform(0.5, 1.5, size=3)
    H = adsrc.hessian(f, static_argnums=1)(x, 3)
    g = adsrc.grad(f, static_argnums=1)
    np.testing.assert_allclose(H, central_jacobian(lambda x: g(x, 3), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-14)
    v = RNG.normal(size=3)
    np.testing.assert_allclose(adsrc.hvp(lambda x: f(x, 3), x, v), H @ v, rtol=1e-12, atol=1e-14)


def test_hessian_of_several_arguments_is_nested():
    def f(a, b):
        return np.sum(np.sin(a) * b ** 2)
    a, b = RNG.normal(size=2), RNG.normal(size=2)
    (haa, hab), (hba, hbb) = adsrc.hessian(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(haa, np.diag(-np.sin(a) * b ** 2), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hab, np.diag(2 * np.cos(a) * b), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hba, hab.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hbb, np.diag(2 * np.sin(a)), rtol=1e-12, atol=1e-14)


def test_jvp_static_arguments_has_aux_and_none_tangents():
    def f(x, y, n):
        out = x
        for _ in range(n):
            out = out * y
        return np.sum(out), {"n": n}
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    tx = RNG.normal(size=3)
    out, t, aux = adsrc.jvp(f, (x, y, 3), (tx, None, None), has_aux=True, static_argnums=2)
    assert aux == {"n": 3}
    np.testing.assert_allclose(out, np.sum(x * y ** 3), rtol=1e-14)
    np.testing.assert_allclose(t, np.sum(tx * y ** 3), rtol=1e-12)
    out2, t2, _ = adsrc.jvp(f, (x, y, 2), (tx, None, None), has_aux=True, static_argnames="n")
    np.testing.assert_allclose(t2, np.sum(tx * y ** 2), rtol=1e-12)


def test_jvp_rejects_a_tangent_of_the_wrong_shape_and_counts():
    f = lambda x: np.sum(x ** 2)      # noqa: E731
    with pytest.raises(ValueError, match="shape"):
        adsrc.jvp(f, (np.ones(3),), (np.ones(2),))
    with pytest.raises(ValueError, match="one tangent per primal"):
        adsrc.jvp(f, (np.ones(3),), (np.ones(3), np.ones(3)))
    with pytest.raises(TypeError, match="tuple or list"):
        adsrc.jvp(f, np.ones(3), np.ones(3))


def test_jvp_source_is_deterministic_and_names_tangents_after_values():
    x = np.ones(3)
    a = adsrc.jvp.source(looped, (x, 2), (x, None))
    adsrc.transform.clear_caches()
    b = adsrc.jvp.source(looped, (x, 2), (x, None))
    assert a == b
    assert "def looped_jvp(x, n, *, x_dot):" in a and "for i in range(n):" in a and "while True:" in a


def test_a_gradient_made_inside_a_differentiated_function_is_followed():
    # autograd's pattern `lambda r: grad(loglike)(r, p(r))`, then grad of that (a Newton step's fprime2)
    def loglike(r, p):
        return np.sum(r * np.log(p) + np.sin(r) * p)

    def slope(r):
        return adsrc.grad(loglike)(r, 0.5 + 0.1 * r)
    r = 1.3
    expected = (slope(r + 1e-6) - slope(r - 1e-6)) / 2e-6
    assert adsrc.grad(slope)(r) == pytest.approx(expected, rel=1e-6)


def test_third_order_through_a_call_is_right_or_refused():
    def tanh(x):
        return (1.0 - np.exp(-x)) / (1.0 + np.exp(-x))
    x = np.linspace(-3, 3, 7)
    d1 = adsrc.grad(lambda x: np.sum(tanh(x)))
    d2 = adsrc.grad(lambda x: np.sum(d1(x)))
    np.testing.assert_allclose(d2(x), (d1(x + 1e-6) - d1(x - 1e-6)) / 2e-6, rtol=1e-5, atol=1e-8)
    d3 = adsrc.grad(lambda x: np.sum(d2(x)))
    try:
        got = d3(x)
    except NotImplementedError as e:
        assert "third order" in str(e)
    else:
        np.testing.assert_allclose(got, (d2(x + 1e-5) - d2(x - 1e-5)) / 2e-5, rtol=1e-4, atol=1e-7)


# -- elementwise_grad (autograd's name) ----------------------------------------------------------------------

def scaled_tanh(x, y):
    return np.tanh(x) * y


def test_elementwise_grad_is_each_outputs_derivative_by_its_own_input():
    x = np.linspace(-2.0, 2.0, 7)
    h = 1e-6
    d = adsrc.elementwise_grad(np.tanh)(x)
    np.testing.assert_allclose(d, (np.tanh(x + h) - np.tanh(x - h)) / (2 * h), rtol=1e-7, atol=1e-9)
    dy = adsrc.elementwise_grad(scaled_tanh, 1)(x, 2.0 * x)
    want = (scaled_tanh(x, 2.0 * x + h) - scaled_tanh(x, 2.0 * x - h)) / (2 * h)
    np.testing.assert_allclose(dy, want, rtol=1e-7, atol=1e-9)
    assert "np.sum(fun(*args, **kwargs))" in adsrc.elementwise_grad(np.tanh).source(x)     # readable source


def test_elementwise_grad_differentiated_again_to_the_fourth_order():
    x = np.linspace(-2.0, 2.0, 9)
    fs = [np.tanh]
    for _ in range(4):
        fs.append(adsrc.elementwise_grad(fs[-1]))
    h = 1e-4
    for k in range(1, 5):
        got = fs[k](x)
        assert not np.any(np.isnan(got))
        want = (fs[k - 1](x + h) - fs[k - 1](x - h)) / (2 * h)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def energy(x):
    return np.sum(np.sin(x) * x ** 2)


def test_reverse_over_reverse_through_a_gradient_object():
    """jacrev / jacobian / vjp of an adsrc.grad object (autograd's `jacobian(grad(f))`) differentiate its
    generated source; they used to fail with an AttributeError."""
    x = np.array([0.3, -0.5, 0.8])
    g = adsrc.grad(energy)
    H = central_jacobian(g, x)
    np.testing.assert_allclose(adsrc.jacrev(g)(x), H, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(adsrc.jacobian(g)(x), H, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(adsrc.hessian(energy)(x), H, rtol=1e-6, atol=1e-8)
    out, pullback = adsrc.vjp(g, x)
    np.testing.assert_allclose(out, g(x))
    u = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(pullback(u)[0], u @ H, rtol=1e-6, atol=1e-8)


def _shifted_in_place_cubed(x):
    x += 1.0
    return np.sum(x ** 3)


def _vector_of_squares(x):
    return x ** 2 * x[0]


def test_hessian_leaves_the_callers_arguments_alone_and_takes_array_outputs():
    # hessian called the function on the caller's arrays to see whether its output was a number: one that changes
    # its argument in place changed the caller's x, and the Hessian was taken at the changed x
    x = np.array([0.1, 0.2, 0.3])
    before = x.copy()
    np.testing.assert_allclose(adsrc.hessian(_shifted_in_place_cubed)(x), np.diag(6.0 * (before + 1.0)), rtol=1e-12)
    np.testing.assert_array_equal(x, before)
    h = adsrc.hessian(_vector_of_squares)(x)
    expected = np.zeros((3, 3, 3))
    for i in range(3):          # d2/dxj dxk of x_i^2 x_0
        expected[i, i, i] += 2.0 * x[0]
        expected[i, i, 0] += 2.0 * x[i]
        expected[i, 0, i] += 2.0 * x[i]
    np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-14)


def _by_mode(x, mode, k=2.0):
    return (np.sin(x) if mode == "sin" else np.cos(x)) * k


def _scalar_by_mode(x, *, mode="sin", k=2.0):
    return np.sum(_by_mode(x, mode, k) * x)


def test_keyword_arguments_pass_through_jacobians_and_hessians():
    # were a TypeError (`f() got an unexpected keyword argument 'mode'`): the Jacobian functions took only
    # positional arguments; as in JAX, keywords are passed on and not differentiated
    from casekit import central_grad
    x = np.array([0.3, -0.7, 1.1])
    x0 = x.copy()
    want = np.stack([central_grad(lambda v: _by_mode(v, "cos", 3.0)[i], x) for i in range(3)])
    for jac in (adsrc.jacrev(_by_mode), adsrc.jacfwd(_by_mode), adsrc.jacfwd(_by_mode, static_argnames="mode")):
        got = jac(x, mode="cos", k=3.0)
        assert np.array_equal(x, x0) and not np.any(np.isnan(got))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    g = lambda v: central_grad(lambda u: _scalar_by_mode(u, mode="cos", k=3.0), v, eps=1e-4)
    want_h = np.stack([central_grad(lambda v: g(v)[i], x, eps=1e-4) for i in range(3)])
    for hess in (adsrc.hessian(_scalar_by_mode), adsrc.hessian(_scalar_by_mode, static_argnames="mode")):
        np.testing.assert_allclose(hess(x, mode="cos", k=3.0), want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(adsrc.jacrev(_scalar_by_mode)(x, mode="cos", k=3.0), g(x), rtol=1e-5, atol=1e-7)
