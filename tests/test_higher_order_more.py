"""Derivatives of order 2 to 4: towers of adsrc.grad, grad of jvp, jvp of grad, through calls to other user
functions, branches, loops of run-time length, while loops with break, pytrees and custom_jvp functions, and
gradients with has_aux or static arguments called inside a differentiated function.

Each derivative is checked against central differences of adsrc's own derivative one order lower."""

import numpy as np
import pytest

import adsrc
from test_custom_jvp import softplus     # the custom_jvp softplus of those tests

H = 1e-4


def close(value, ref, rtol=1e-5, atol=1e-7):
    value, ref = np.asarray(value, dtype=float), np.asarray(ref, dtype=float)
    assert np.all(np.isfinite(value)), value
    assert np.all(np.isfinite(ref)), ref
    np.testing.assert_allclose(value, ref, rtol=rtol, atol=atol)


def fd(f, x, h=H):
    return (f(x + h) - f(x - h)) / (2 * h)


def fd_along(f, x, v, h=H):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


# -- functions -----------------------------------------------------------------------------------------

def tanh(x):                       # autograd's example
    y = np.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def expm2(x):
    return np.exp(-2.0 * x)


def tanh_call(x):
    y = expm2(x)
    return (1.0 - y) / (1.0 + y)


def branchy(x):
    if x > 0.0:
        y = np.sin(x) * x
    else:
        y = np.cos(x) + x ** 3
    return y * tanh_call(x)


def loop_n(x, n):                  # n is known only when the code runs
    s = x
    for i in range(n):
        s = np.sin(s) + 0.5 * x
    return s


def while_break(x):
    s = x
    k = 0
    while True:
        s = s * np.cos(s) + x
        k += 1
        if k >= 3:
            break
    return s


def helper2(a, b):
    return a * np.exp(b) - np.sin(a * b)


def calls(x):
    return helper2(x, x * x) + helper2(np.sin(x), x)


def inner_tree(p):
    a = p["a"]
    b0, b1 = p["b"]
    return a * b0 + np.sin(b1) * a


def pytree_inside(x):
    return inner_tree({"a": x, "b": (x * 2.0, np.cos(x))})


TOWERS = [(tanh, 4), (tanh_call, 4), (branchy, 4), (calls, 4), (pytree_inside, 4), (while_break, 3)]


@pytest.mark.parametrize("f, order", TOWERS, ids=[f.__name__ for f, _ in TOWERS])
def test_grad_towers_match_differences_of_the_order_below(f, order):
    lower = f
    for k in range(1, order + 1):
        g = adsrc.grad(lower)
        if k >= 2:
            for x in (0.4, -0.7):
                close(g(x), fd(lower, x))
        lower = g


def test_a_loop_of_run_time_length_to_fourth_order():
    lower = loop_n
    for k in range(1, 5):
        g = adsrc.grad(lower)
        for n in (0, 2, 3):
            for x in (0.4, -0.7):
                close(g(x, n), fd(lambda y: lower(y, n), x))
        lower = g


def test_third_order_mixed_modes():
    x = 0.35
    gg = adsrc.grad(adsrc.grad(calls))
    # jvp of grad of grad
    close(adsrc.jvp(gg, (x,), (1.0,))[1], fd(gg, x))

    def directional(x):                # the slope of calls, by forward mode inside
        return adsrc.jvp(calls, (x,), (1.0,))[1]
    d2 = adsrc.grad(directional)
    close(d2(x), fd(directional, x))
    close(adsrc.grad(d2)(x), fd(d2, x))
    close(adsrc.jvp(d2, (x,), (1.0,))[1], fd(d2, x))


def vec_loss(w, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.tanh(w * (i + 1.0))) * helper2(w[0], w[1])
    k = 0
    while k < 5:
        k += 1
        if s > 2.0:
            break
        s = s + 0.1 * np.sum(w ** 2)
    return s


def test_hessian_and_third_derivatives_of_a_function_of_an_array():
    w, v, u = np.array([0.3, -0.4, 0.2]), np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.7, -1.0])
    g = adsrc.grad(vec_loss)
    H = adsrc.hessian(vec_loss)(w, 2)
    close(H @ v, fd_along(lambda y: g(y, 2), w, v))
    hu = adsrc.grad(lambda y: np.sum(g(y, 2) * u))            # H u, reverse over reverse
    close(hu(w), H @ u, rtol=1e-10, atol=1e-12)
    # third order: the derivative of H u along v
    close(adsrc.jvp(hu, (w,), (v,))[1], fd_along(hu, w, v))
    close(adsrc.grad(lambda y: np.sum(hu(y) * v))(w), np.array([fd_along(lambda y: hu(y) @ v, w, e)
                                                                for e in np.eye(3)]))


def tree_loss(p):
    z = np.tanh(p["w"] * p["b"][0]) + p["b"][1]
    return np.sum(z * z) + calls(p["b"][0])


def test_second_and_third_order_with_pytree_arguments():
    p = {"w": np.array([0.5, -1.0]), "b": (0.3, np.array([0.1, 0.2]))}
    u = {"w": np.array([1.0, 0.5]), "b": (-0.7, np.array([0.3, -0.2]))}

    def vdot(a, b):
        return np.sum(a["w"] * b["w"]) + a["b"][0] * b["b"][0] + np.sum(a["b"][1] * b["b"][1])

    def shift(a, t):
        return {"w": a["w"] + t * u["w"], "b": (a["b"][0] + t * u["b"][0], a["b"][1] + t * u["b"][1])}
    g = adsrc.grad(tree_loss)

    def along(t):
        return vdot(g(shift(p, t)), u)
    hvp = adsrc.grad(lambda q: vdot(g(q), u))
    # <H u, u> from reverse over reverse, against differences of the gradient
    close(vdot(hvp(p), u), fd(along, 0.0))
    h3 = adsrc.grad(lambda q: vdot(hvp(q), u))
    close(vdot(h3(p), u), fd(lambda t: vdot(hvp(shift(p, t)), u), 0.0))


# -- custom_jvp ------------------------------------------------------------------------------------------

@adsrc.custom_jvp
def scaled_sigmoid(x, a):
    return a / (1.0 + np.exp(-x))


@scaled_sigmoid.defjvp
def scaled_sigmoid_jvp(primals, tangents):
    (x, a), (tx, ta) = primals, tangents
    s = scaled_sigmoid(x, a)                  # the rule calls the function itself
    return s, tx * s * (1.0 - s / a) + ta * s / a


def uses_custom(x):
    return softplus(x) * x + scaled_sigmoid(x * x, 2.0)


def test_custom_jvp_to_third_order():
    lower = uses_custom
    for k in range(1, 4):
        g = adsrc.grad(lower)
        for x in (0.4, -0.9):
            close(g(x), fd(lower, x))
        lower = g


def test_custom_jvp_hessian_in_both_arguments():
    def f(x, a):
        return np.sum(scaled_sigmoid(x, a) * x)
    x, a = np.array([0.3, -1.2]), 1.5
    ga = adsrc.grad(f, argnums=(0, 1))
    hxx = adsrc.hessian(f)(x, a)
    close(hxx, np.array([fd_along(lambda y: ga(y, a)[0], x, e) for e in np.eye(2)]).T)
    hxa = adsrc.jacfwd(lambda a: adsrc.grad(f)(x, a))(a)          # d/da of the gradient in x
    close(hxa, fd(lambda b: ga(x, b)[0], a))
    close(adsrc.grad(lambda y: np.sum(adsrc.grad(f, argnums=1)(y, a) * 1.0))(x), hxa)


def test_a_function_with_only_a_forward_rule_refuses_second_derivatives_with_a_reason():
    cube = eval("lambda x: x ** 3")           # no source adsrc could read
    adsrc.defjvp(cube, lambda g, ans, x: 3.0 * x ** 2 * g)

    def h(x):
        return np.sum(cube(x) * 2.0)
    x = np.array([0.3, -1.2])
    close(adsrc.grad(h)(x), 6 * x ** 2)
    with pytest.raises(NotImplementedError, match="defvjp"):
        adsrc.hessian(h)(x)


# -- gradients with has_aux or static arguments, called inside ----------------------------------------------

X = np.array([[1.0, 2.0], [0.5, -1.0], [0.3, 0.2]])


def aux_loss(w, X):
    r = np.tanh(X @ w)
    return np.sum(r ** 2), r


def power_loss(w, k):
    return np.sum(np.sin(w) ** k)


def test_a_gradient_with_has_aux_called_inside():
    g = adsrc.grad(aux_loss, has_aux=True)
    w, v = np.array([0.3, -0.2]), np.array([1.0, 0.5])

    def outer(w):
        grad, aux = g(w, X)
        return np.sum(grad * v) + np.sum(aux)
    h = adsrc.grad(outer)
    close(h(w) @ v, fd_along(outer, w, v))
    close(h(w), np.array([fd_along(outer, w, e) for e in np.eye(2)]))
    h3 = adsrc.grad(lambda w: np.sum(h(w) * v))
    close(h3(w), np.array([fd_along(lambda y: h(y) @ v, w, e) for e in np.eye(2)]))


def test_a_gradient_with_static_arguments_called_inside():
    gs = adsrc.grad(power_loss, static_argnums=1)
    w = np.array([0.3, -0.2])

    def outer(w):
        return np.sum(gs(w, 3) * w)
    h = adsrc.grad(outer)
    close(h(w), np.array([fd_along(outer, w, e) for e in np.eye(2)]))
    h3 = adsrc.grad(lambda w: h(w)[0])
    close(h3(w), np.array([fd_along(lambda y: h(y)[0], w, e) for e in np.eye(2)]))

    def outer_k(w, k):
        return np.sum(gs(w, k) * w)
    hk = adsrc.grad(outer_k, static_argnums=1)
    close(hk(w, 4), np.array([fd_along(lambda y: outer_k(y, 4), w, e) for e in np.eye(2)]))
    with pytest.raises(adsrc.TransformError, match="static argument `k`"):
        adsrc.grad(outer_k)(w, 4)


def _sum_of_sines_over_keys(d):
    total = 0.0
    for k in sorted(d):
        total = total + np.sum(np.sin(d[k]))
    return total


def _reads_one_key_of_the_gradient(d):
    g = adsrc.grad(_sum_of_sines_over_keys)(d)
    return np.sum(np.sin(g["a"]))


def test_second_order_through_a_gradient_of_which_only_some_keys_are_read():
    d = {"a": np.array([0.3, -0.7]), "b": np.array([1.1])}
    g = adsrc.grad(_reads_one_key_of_the_gradient)(d)
    # d/da sum(sin(cos(a))) = -cos(cos(a)) sin(a); nothing reaches b
    np.testing.assert_allclose(g["a"], -np.cos(np.cos(d["a"])) * np.sin(d["a"]), rtol=1e-12)
    np.testing.assert_array_equal(g["b"], [0.0])


EINSUMS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]), ("ij->ji", [(2, 3)]),
           ("i->i", [(3,)]), ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
           ("ii->i", [(3, 3)]), ("ij,ij->i", [(2, 3), (2, 3)])]


@pytest.mark.parametrize("spec, shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
def test_einsum_second_derivatives_match_differences_of_the_gradient(spec, shapes):
    # they came back zero (and wrong through a nonlinear outside) before einsum's helpers could be differentiated
    rng = np.random.default_rng(3)
    ops = [rng.normal(size=s) for s in shapes]
    weights = rng.normal(size=np.einsum(spec, *ops).shape)
    n = len(ops)

    def f(*xs):
        return np.sum(np.sin(np.einsum(spec, *[x * 1.0 for x in xs])) * weights)

    argnums = tuple(range(n))
    grad = adsrc.grad(f, argnums=argnums)
    directions = [rng.normal(size=s) for s in shapes]

    def along(*xs):
        return sum(np.sum(g * d) for g, d in zip(grad(*xs), directions))

    got = adsrc.grad(along, argnums=argnums)(*ops)
    for k in range(n):
        for idx in np.ndindex(shapes[k]):
            e = np.zeros(shapes[k])
            e[idx] = 1e-6
            plus = [o + e if j == k else o for j, o in enumerate(ops)]
            minus = [o - e if j == k else o for j, o in enumerate(ops)]
            expected = (along(*plus) - along(*minus)) / 2e-6
            np.testing.assert_allclose(got[k][idx], expected, rtol=1e-5, atol=1e-7)


def _power_spectrum(a):
    return np.abs(np.fft.fft(a)) ** 2


def _through_inverse_2d(a):
    return np.real(np.fft.ifft2(a * 2.0)) ** 2


def _round_trip_real(a):
    return np.fft.irfft(np.fft.rfft(a) * 1.5) ** 2


@pytest.mark.parametrize("fn, shape", [(_power_spectrum, (8,)), (_through_inverse_2d, (4, 6)),
                                       (_round_trip_real, (8,))])
def test_second_derivatives_through_the_fft(fn, shape):
    # fft's cotangent called the transform through a variable: adsrc could not differentiate it again
    x = np.random.default_rng(0).normal(size=shape)
    adsrc.check_grads(fn, (x,), modes=["fwd", "rev"], order=2)


@pytest.mark.parametrize("name", ["norm.logpdf", "norm.cdf", "t.logpdf", "gamma.pdf", "gamma.cdf", "beta.logpdf"])
def test_second_derivatives_through_scipy_stats(name):
    # the cotangent helper looked its distribution up by a name known only when the code runs: refused
    from scipy import stats
    x = np.array([0.3, 0.6, 0.8])
    fns = {"norm.logpdf": (lambda x, m, s: np.sum(stats.norm.logpdf(x, m, s)), (x, 0.2, 1.3)),
           "norm.cdf": (lambda x, m, s: np.sum(stats.norm.cdf(x, m, s)), (x, 0.2, 1.3)),
           "t.logpdf": (lambda x, df, s: np.sum(stats.t.logpdf(x, df, 0.1, s)), (x, 3.5, 1.3)),
           "gamma.pdf": (lambda x, a: np.sum(stats.gamma.pdf(x, a)), (x, 2.5)),
           "gamma.cdf": (lambda x, a: np.sum(stats.gamma.cdf(x, a)), (x, 2.5)),
           "beta.logpdf": (lambda x, a, b: np.sum(stats.beta.logpdf(x, a, b)), (x, 2.5, 1.7))}
    f, args = fns[name]
    adsrc.check_grads(f, args, argnums=tuple(range(len(args))), modes=["fwd", "rev"], order=2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("axes", [1, ([1, 2], [1, 0]), ([2], [0])])
def test_second_derivatives_through_tensordot(axes):
    # its cotangent helpers computed their transpositions with list.index, which adsrc could not follow again
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 3, 5))
    adsrc.check_grads(lambda a, b: np.sin(np.tensordot(a, b, axes=axes)), (a, b), argnums=(0, 1),
                      modes=["fwd", "rev"], order=2)


def _polyval_at_coefficients(x):
    return np.sum(np.polyval(x[:3], x) ** 2) + np.sum(x.view() ** 3)


def test_hessians_through_polyval_and_view_match_differences_of_gradients():
    # (the second derivative of polyval needed np.polyder, and view's rule imported inside itself: both refused)
    x = np.array([0.4, -0.3, 0.9, 0.2])
    h = adsrc.hessian(_polyval_at_coefficients)(x)
    g = adsrc.grad(_polyval_at_coefficients)
    eps = 1e-6
    fd = np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)])
    assert not np.any(np.isnan(h))
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-7)
