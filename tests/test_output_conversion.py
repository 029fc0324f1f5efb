"""A gradient computed from its array alone by ufuncs and arithmetic skips grad_output's checks
(emission/outputs.py), and is still exactly what grad_output would return: a new ndarray of the
input's shape and dtype (a 0-d array for a 0-d input, the input's byte order), correct against
central differences, never sharing memory with the input or an auxiliary output.
"""

import numpy as np
import pytest

import adsrc

SKIPPED = "else grad_output("


def sum_exp(x):
    return np.sum(np.exp(x))


def polynomial(x):
    return np.sum(3.0 * x ** 3 - x / 2)


def tanh_times(x):
    return np.sum(np.tanh(x) * x)


def sin_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + 2 * x)


def log_plus(x):
    return np.sum(np.log(x + 2.0) + x / 2)


CASES = [sum_exp, polynomial, tanh_times, sin_cos, log_plus]


def central(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_the_check_is_skipped_and_the_gradient_is_right(f):
    x = np.linspace(-0.8, 0.9, 7)
    g = adsrc.grad(f)
    assert SKIPPED in g.source(x)
    before = x.copy()
    d = g(x)
    assert type(d) is np.ndarray and d.dtype == x.dtype and d.shape == x.shape
    assert not np.isnan(d).any()
    np.testing.assert_allclose(d, central(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, before)
    assert not np.shares_memory(d, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.dtype(">f8"), np.longdouble])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_other_dtypes_get_their_own_dtype(f, dtype):
    x = np.linspace(-0.8, 0.9, 5).astype(dtype)
    d = adsrc.grad(f)(x)
    assert type(d) is np.ndarray and d.dtype == x.dtype and d.shape == x.shape
    assert d.dtype.byteorder == x.dtype.byteorder
    tol = 2e-2 if np.dtype(dtype).itemsize <= 2 else 1e-4
    np.testing.assert_allclose(d.astype(np.float64), central(f, x.astype(np.float64)), rtol=tol, atol=tol)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_a_0d_array_gets_a_0d_array(f):
    x = np.array(0.3)
    d = adsrc.grad(f)(x)
    assert type(d) is np.ndarray and d.shape == () and d.dtype == np.float64
    np.testing.assert_allclose(d, central(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_matrices_and_floats(f):
    x = np.linspace(-0.8, 0.9, 6).reshape(2, 3)
    np.testing.assert_allclose(adsrc.grad(f)(x), central(f, x), rtol=1e-6, atol=1e-8)
    d = adsrc.grad(f)(0.4)
    assert type(d) is float
    np.testing.assert_allclose(d, central(f, np.array(0.4)), rtol=1e-6, atol=1e-8)


def exp_with_aux(x):
    e = np.exp(x)
    return np.sum(e), e


def test_a_gradient_that_is_also_the_aux_output_is_not_shared():
    x = np.linspace(-1, 1, 4)
    g = adsrc.grad(exp_with_aux, has_aux=True)
    d, aux = g(x)
    np.testing.assert_allclose(d, np.exp(x), rtol=1e-12)
    d *= 2.0
    np.testing.assert_allclose(aux, np.exp(x), rtol=1e-12)      # changing the gradient left aux alone


def identity_sum(x):
    return np.sum(x)


def shifted_product(x):
    return np.sum(x[1:] * x[:-1])


def product(x, y):
    return np.sum(x * y)


@pytest.mark.parametrize("f, args", [(identity_sum, 1), (shifted_product, 1), (product, 2)],
                         ids=["constant", "indexed", "other_argument"])
def test_what_is_not_proved_keeps_the_check(f, args):
    xs = [np.linspace(0.5, 1.5, 4) + k for k in range(args)]
    g = adsrc.grad(f)
    assert SKIPPED not in g.source(*xs)
    d = g(*xs)
    assert type(d) is np.ndarray and d.shape == xs[0].shape
    np.testing.assert_allclose(d, central(lambda v: f(v, *xs[1:]), xs[0]), rtol=1e-6, atol=1e-8)


def test_a_gradient_differentiated_again():
    """The generated function, with its skipped check, is itself transformed (higher order)."""
    g = adsrc.grad(sin_cos)

    def total(x):
        return np.sum(g(x) ** 2)

    x = np.linspace(-0.8, 0.9, 5)
    np.testing.assert_allclose(adsrc.grad(total)(x), central(total, x, eps=1e-5), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(adsrc.grad(total)(0.3), central(total, np.array(0.3), eps=1e-5)[()],
                               rtol=1e-5, atol=1e-7)


def test_the_numba_backend_keeps_grad_output():
    pytest.importorskip("numba")
    x = np.linspace(-0.8, 0.9, 5)
    g = adsrc.grad(sum_exp, backend="numba")
    np.testing.assert_allclose(g(x), np.exp(x), rtol=1e-12)
    assert SKIPPED not in g.source(x)


# -- floats: a gradient of Python-float arithmetic is returned as it is (no grad_output call) --------------

FLOAT_SKIPPED = "is float else grad_output("


def square(x):
    return x * x


def cubic(x):
    return 3.0 * x ** 3 - x / 2 + 1


def quotient(x):
    return (x + 1.0) * (x - 2.0) / 3


FLOAT_CASES = [square, cubic, quotient]


def central_float(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("f", FLOAT_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [-1.3, 0.25, 2.0])
def test_a_float_gradient_of_arithmetic_is_a_float(f, x):
    g = adsrc.grad(f)
    assert FLOAT_SKIPPED in g.source(x)
    d = g(x)
    assert type(d) is float and not np.isnan(d)
    np.testing.assert_allclose(d, central_float(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FLOAT_CASES, ids=lambda f: f.__name__)
def test_a_numpy_scalar_still_gets_its_own_type(f):
    d = adsrc.grad(f)(np.float64(0.7))
    assert type(d) is np.float64
    np.testing.assert_allclose(d, central_float(f, 0.7), rtol=1e-6, atol=1e-8)
    d32 = adsrc.grad(f)(np.float32(0.5))
    assert type(d32) is np.float32
    np.testing.assert_allclose(d32, central_float(f, 0.5), rtol=1e-4, atol=1e-5)


def sine_times(x):
    return np.sin(x) * x


def float_shadowed(x, float=2.5):
    return x * float * x


def test_what_numpy_computes_or_a_shadowed_float_keeps_grad_output():
    for f in (sine_times, float_shadowed):
        g = adsrc.grad(f)
        assert FLOAT_SKIPPED not in g.source(0.6)
        d = g(0.6)
        assert type(d) is float
        np.testing.assert_allclose(d, central_float(f, 0.6), rtol=1e-6, atol=1e-8)


def product_of_floats(x, y):
    return x * y + x * x


def test_two_float_arguments_and_second_derivatives():
    g = adsrc.grad(product_of_floats, argnums=(0, 1))
    assert g.source(0.5, 2.0).count(FLOAT_SKIPPED) == 2
    dx, dy = g(0.5, 2.0)
    assert type(dx) is float and type(dy) is float
    np.testing.assert_allclose(dx, central_float(lambda v: product_of_floats(v, 2.0), 0.5), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dy, central_float(lambda v: product_of_floats(0.5, v), 2.0), rtol=1e-6, atol=1e-8)
    first = adsrc.grad(cubic)
    second = adsrc.grad(first)
    np.testing.assert_allclose(second(0.8), central_float(first, 0.8, eps=1e-5), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(second(0.8), 18.0 * 0.8, rtol=1e-12)
