"""backend="numba" through ordinary control flow in loops: a branch that keeps different values on each side,
`continue`, `break`, an early `return`, `while True` with a name bound only in the loop, the loop variable read
after the loop. numba refused each (its variables take one type); each now compiles and agrees with the NumPy
backend and with central finite differences."""

import numpy as np
import pytest

import adsrc
from casekit import central_grad

pytest.importorskip("numba")


def huber(x):
    s = 0.0
    for i in range(x.shape[0]):
        if abs(x[i]) < 1.0:
            s += 0.5 * x[i] ** 2
        else:
            s += abs(x[i]) - 0.5
    return s


def relu_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += x[i] ** 2
    return s


def conditional_expression(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] ** 2 if x[i] > 0 else 0.5 * x[i]
    return s


def skips_and_stops(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        s += x[i] * x[i] * (i + 1.0)
        if s > 4.0:
            break
    return s


def returns_early(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > 1.5:
            return s * s
    return s


def newton_cube_root(a):
    x = 1.0
    while True:
        xn = x - (x ** 3 - a) / (3.0 * x ** 2)
        if abs(xn - x) < 1e-12:
            break
        x = xn
    return xn


def loop_variable_after(x):
    i = 0
    for i in range(x.shape[0]):
        pass
    return x[i] ** 2 + x[i - 1]


ARRAYS = [np.array([0.5, -1.5, 2.0, -0.2, 0.6]), np.array([-0.3, 0.9, 0.4, 1.2, -2.0])]


@pytest.mark.parametrize("fn", [huber, relu_squares, conditional_expression, skips_and_stops, returns_early,
                                loop_variable_after])
@pytest.mark.parametrize("which", [0, 1])
def test_control_flow_in_loops_compiles_and_matches(fn, which):
    x = ARRAYS[which]
    before = x.copy()
    got = adsrc.grad(fn, backend="numba")(x)
    np.testing.assert_array_equal(x, before)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, adsrc.grad(fn)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_grad(fn, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("a", [3.0, 0.4])
def test_a_name_bound_only_in_a_while_true_loop(a):
    got = adsrc.grad(newton_cube_root, backend="numba")(a)
    assert type(got) is float
    np.testing.assert_allclose(got, (1.0 / 3.0) * a ** (-2.0 / 3.0), rtol=1e-9)
