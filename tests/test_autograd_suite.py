"""Constructs that autograd's own test suite (its tests/ folder, run against adsrc with the imports
changed) found failing: each is checked here against central differences, in adsrc's own words and
cases, so it stays fixed."""

import operator

import numpy as np
import pytest

import adsrc
from adsrc import pipeline
from adsrc.test_util import check_grads
from casekit import central_grad

RNG = np.random.default_rng(20240607)


# -- a call through a table of functions changes none of its arguments ---------------------------------------

FACTORS = {"unit": lambda n: 1.0 / n, "root": lambda n: 1.0 / np.sqrt(n)}


def weighted(g, how):
    return g * FACTORS[how](g.shape[-1])


def test_a_call_through_a_table_of_functions_changes_no_argument():
    # the last branch (a key the table lacks) raises Python's KeyError, and changes nothing: the summary
    # must not say the key's parameter is changed in place (callers then copied it, and crashed)
    assert pipeline.SUMMARIES.get(weighted, {}).mutates == ()


@pytest.mark.parametrize("fn, shape, s, axes", [
    (np.fft.irfft2, (4, 4, 4), [6, 2], [0, 2]),
    (np.fft.irfftn, (4, 4, 3), [3, 4], [1, 2]),
    (np.fft.irfft2, (3, 5), None, (-2, -1)),
])
def test_second_derivatives_of_inverse_real_ffts(fn, shape, s, axes):
    # the rule's source scales through a table keyed by norm; its second derivative crashed (KeyError)
    # (an array output: check_grads pairs it with a random direction, the gradient of which it differentiates)
    spectrum = np.fft.rfftn(RNG.normal(size=shape) / 4.0, axes=axes)

    def transform(a):
        return fn(a, s=s, axes=axes)

    check_grads(transform, modes=["rev"], order=2)(spectrum)
    check_grads(lambda a: np.tanh(transform(a)), modes=["rev", "fwd"], order=2)(spectrum)


# -- the gradient of a gradient taken with respect to another argument ---------------------------------------

def two(x, y):
    return np.sin(np.sin(x) * np.cos(y) + y ** 2)


@pytest.mark.parametrize("inner, outer", [(1, 0), (1, 1), (0, 1)])
def test_gradient_of_a_gradient_with_respect_to_another_argument(inner, outer):
    g = adsrc.grad(two, argnums=inner)
    x, y = 0.4, -0.9
    got = adsrc.grad(g, argnums=outer)(x, y)
    if outer == 0:
        expected = central_grad(lambda v: g(v, y), x)
    else:
        expected = central_grad(lambda v: g(x, v), y)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_check_grads_of_a_gradient_with_respect_to_its_second_argument():
    # check_grads' second order differentiates x -> <grad(g)(x, y), u>: the general code of grad(two, 1)
    # was resolved with placeholders for x only (`... is missing the argument y`)
    check_grads(adsrc.grad(two, argnums=1), modes=["rev", "fwd"], order=2)(0.4, -0.9)
    check_grads(adsrc.grad(adsrc.grad(two, 1)), modes=["rev"], order=1)(0.7, 0.3)


# -- forward mode past values that reach the result only through a sort order --------------------------------

def ordered_sum(d):
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=operator.itemgetter(0))):
        total = total + np.sum(np.sin(v)) * (i + 1.0)
    return total


def test_jvp_through_a_sort_key_made_by_itemgetter():
    d = {"b": np.array([0.3, -0.2]), "a": np.array([1.1, 0.5]), "c": np.array([-0.8, 0.9])}
    t = {"b": np.array([1.0, 0.5]), "a": np.array([-0.3, 2.0]), "c": np.array([0.7, -1.0])}
    value, tangent = adsrc.jvp(ordered_sum, (d,), (t,))
    eps = 1e-6
    plus = ordered_sum({k: d[k] + eps * t[k] for k in d})
    minus = ordered_sum({k: d[k] - eps * t[k] for k in d})
    assert value == pytest.approx(ordered_sum(d), rel=1e-12)
    assert tangent == pytest.approx((plus - minus) / (2 * eps), rel=1e-6, abs=1e-9)
    check_grads(ordered_sum, modes=["rev", "fwd"], order=2)(d)


def through_its_gradient(d):
    # the gradient's generated code sorts by the getter again: adsrc differentiates it (reverse over reverse)
    g = adsrc.grad(ordered_sum)(d)
    return np.sum(np.sin(g["a"])) + np.sum(g["b"] * g["c"])


def by_second_item(pairs):
    key = operator.itemgetter(1)
    total = 0.0
    for i, (x, rank) in enumerate(sorted(pairs, key=key)):
        total = total + np.sum(np.tanh(x)) * (i + 2.0)
    return total


def test_getters_used_as_sort_keys_to_second_order():
    d = {"b": np.array([0.3, -0.2]), "a": np.array([1.1, 0.5]), "c": np.array([-0.8, 0.9])}
    check_grads(through_its_gradient, modes=["rev", "fwd"], order=2)(d)
    pairs = [(np.array([0.2, 0.4]), 3), (np.array([-0.5, 0.1]), 1), (np.array([0.9, -0.3]), 2)]
    check_grads(by_second_item, modes=["rev", "fwd"], order=2)(pairs)
    # the sort order is the getter's: the item ranked 1 is weighted by 2, the one ranked 3 by 4
    g = adsrc.grad(by_second_item)(pairs)
    np.testing.assert_allclose(g[1][0], 2.0 / np.cosh(pairs[1][0]) ** 2, rtol=1e-12)
    np.testing.assert_allclose(g[0][0], 4.0 / np.cosh(pairs[0][0]) ** 2, rtol=1e-12)


# -- complex numbers: a complex output is refused unless holomorphic=True ------------------------------------

def rotate(z):
    return z * (1.0 + 0.2j)


def doubled_conjugate(z):
    return np.conj(z) * 2.0


def sine(z):
    return np.sin(z)


@pytest.mark.parametrize("fn", [rotate, doubled_conjugate, sine])
@pytest.mark.parametrize("z", [1.0 + 1.0j, np.complex128(0.3 - 0.5j)])
def test_grad_refuses_a_complex_output_at_a_complex_number(fn, z):
    # a complex number is a scalar to the transformation; its output was not checked unless the source
    # had a complex literal, so sin(z) and 2 conj(z) returned a number (JAX and autograd raise TypeError)
    with pytest.raises(TypeError, match="real scalar"):
        adsrc.grad(fn)(z)
    with pytest.raises(TypeError, match="real scalar"):
        adsrc.value_and_grad(fn)(z)


def test_grad_of_a_real_function_of_a_complex_number_still_works():
    def energy(z):
        return np.abs(z) ** 2 + np.real(z * (1.0 + 0.2j))
    z = 3.0 + 4.0j
    # JAX's (and autograd's) convention: dL/dx - i dL/dy
    eps = 1e-6
    d_re = (energy(z + eps) - energy(z - eps)) / (2 * eps)
    d_im = (energy(z + 1j * eps) - energy(z - 1j * eps)) / (2 * eps)
    assert adsrc.grad(energy)(z) == pytest.approx(d_re - 1j * d_im, rel=1e-7)
    assert adsrc.grad(energy)(z) == pytest.approx(adsrc.grad(energy)(np.complex128(z)), rel=1e-12)


@pytest.mark.parametrize("fn", [rotate, sine])
def test_holomorphic_grad_is_the_complex_derivative(fn):
    # rotate's complex literal made its output checked, and refused, even with holomorphic=True
    z = 0.7 - 0.4j
    eps = 1e-6
    derivative = (fn(z + eps) - fn(z - eps)) / (2 * eps)
    assert adsrc.grad(fn, holomorphic=True)(z) == pytest.approx(derivative, rel=1e-7)
    value, g = adsrc.value_and_grad(fn, holomorphic=True)(z)
    assert value == fn(z) and g == pytest.approx(derivative, rel=1e-7)
    with pytest.raises(TypeError, match="real scalar"):
        adsrc.grad(fn)(z)           # the flag is off again once the holomorphic gradient returns


# -- `args = list(args); args[k] = ...; f(*args)`: an item replaced keeps the list's length ------------------

def with_symmetric(fun, k):
    def wrapped(*args, **kwargs):
        args = list(args)
        args[k] = 0.5 * (args[k] + np.swapaxes(args[k], -1, -2))
        return fun(*args, **kwargs)
    return wrapped


def test_a_wrapper_replacing_an_item_of_its_arguments_passes_them_to_a_rule():
    import scipy.stats as st
    solve = with_symmetric(np.linalg.solve, 0)
    logpdf = with_symmetric(st.multivariate_normal.logpdf, 2)
    A = np.array([[2.0, 0.3, -0.1], [0.5, 1.5, 0.2], [0.1, -0.4, 1.8]])
    b = np.array([0.4, -1.0, 0.7])

    def loss(A, b):
        return np.sum(solve(A, b) ** 2) + logpdf(b, np.zeros(3), A @ A.T + np.eye(3), allow_singular=False)

    check_grads(loss, argnum=(0, 1), modes=["rev", "fwd"], order=2)(A, b)


def test_allow_singular_known_only_when_the_code_runs():
    import scipy.stats as st

    def logpdf(x, cov, singular):
        return st.multivariate_normal.logpdf(x, np.zeros(2), cov, allow_singular=singular)

    x, cov = np.array([0.3, -0.8]), np.array([[1.5, 0.2], [0.2, 0.9]])
    g = adsrc.grad(logpdf, argnums=(0, 1))(x, cov, False)
    np.testing.assert_allclose(g[0], central_grad(lambda v: logpdf(v, cov, False), x), rtol=1e-6, atol=1e-8)
    with pytest.raises(TypeError, match="allow_singular=False"):
        adsrc.grad(logpdf)(x, cov, True)


# -- an integer order of scipy.special's polygamma and Bessel functions, past a helper, at second order ------

import scipy.special as special     # noqa: E402  (this section's)

W3 = np.array([0.3, -1.2, 0.8])


def weighted_polygamma(n, x):
    return special.polygamma(n, x) * x


def through_helper(n, x):
    return np.sum(weighted_polygamma(n, x) * W3)


def bessel_helper(n, x):
    return special.jv(n, x) * np.sin(x)


def through_bessel(n, x):
    return np.sum(bessel_helper(n, x) ** 2)


@pytest.mark.parametrize("fn", [through_helper, through_bessel])
def test_second_derivatives_with_an_integer_order_read_from_residuals(fn):
    # the helper's residuals hold the order with the differentiated values: a second derivative took the
    # order for a differentiated value, and refused ('no derivative with respect to its order')
    x = np.array([1.5, 2.3, 0.9])
    H = adsrc.hessian(fn, argnums=1)(1, x)
    fd = np.array([central_grad(lambda v: adsrc.grad(fn, argnums=1)(1, v)[i], x) for i in range(3)])
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)
    check_grads(lambda v: weighted_polygamma(0, v), modes=["rev", "fwd"], order=2)(x)
    check_grads(weighted_polygamma, argnum=1, modes=["rev"], order=2)(0, x)


def float_order(v, x):
    return np.sum(special.jv(2.0 * v, x))


def test_a_differentiated_float_order_is_still_refused():
    x = np.array([1.5, 2.3])
    with pytest.raises(TypeError, match="with respect to its order"):
        adsrc.grad(float_order)(0.7, x)
