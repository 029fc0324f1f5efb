"""Views taken at indices known only when the code runs, held in lists and dicts, and changed in place: from their
array (the views see it) or through them (the array sees it), as NumPy does (rules/located_views.py: the index is
found from the view's memory). Value, gradient, forward derivative and second derivative against NumPy and central
differences; the inputs stay unchanged."""

import copy

import numpy as np
import pytest

import adsrc

H = 1e-6
RTOL, ATOL = 1e-6, 1e-7


def rows_of_a_comprehension_then_the_array_changed(s):
    v = np.ones((3, 2)) * s
    rows = [v[i] for i in range(3)]
    v[1, 1] = s ** 2
    return sum(np.sum(r ** 2) for r in rows)


def items_of_a_vector_then_it_changed(s):
    v = np.array([1.0, 2.0, 3.0]) * s
    vs = [v[i] for i in range(3)]
    v[0] += 1.0
    v *= s
    return sum(t * t for t in vs)


def columns_in_a_dict_then_a_row_replaced(s):
    M = np.outer([1.0, 2.0], [0.5, -1.0, 2.0]) * s
    cols = {j: M[:, j] for j in range(3)}
    M[0] = M[0] * s
    return np.sum(cols[0] * cols[1]) + np.sum(np.sin(cols[2]))


def rows_appended_then_the_array_changed_twice(s):
    M = np.arange(6.0).reshape(3, 2) * s
    rows = []
    for i in range(M.shape[0]):
        rows.append(M[i])
    M[2, 0] = s ** 3
    M += s
    return np.sum(rows[0] * rows[2]) + np.sum(rows[1])


def rows_written_through(s):
    M = np.outer([s, 1.0, 2.0], [1.0, s, -1.0]) + 1.0
    rows = [M[i] for i in range(3)]
    for r in rows:
        r[:] = r * 2
    return np.sum(M * M)


def rows_scaled_through(s):
    M = np.outer([s, 1.0, 2.0], [1.0, s, -1.0]) + 1.0
    rows = [M[i] for i in range(M.shape[0])]
    for r in rows:
        r *= s
    return np.sum(M * np.sin(M))


def columns_shifted_through_then_read(s):
    M = np.outer([s, 1.0, 2.0], [1.0, s, -1.0]) + 1.0
    cols = [M[:, j] for j in range(3)]
    for k, col in enumerate(cols):
        col += s * k
    return np.sum(M ** 2) + np.sum(cols[0])


def rows_changed_through_then_the_array_changed(s):
    M = np.outer([s, 1.0, 2.0], [1.0, s, -1.0]) + 1.0
    rows = [M[i] for i in range(3)]
    for r in rows:
        r *= s
        r[0] = r[1] * 2.0
    M[0, 0] = 5.0 * s
    return np.sum(M * M) + np.sum(rows[0] * rows[1])


def items_of_rows_written(s):
    M = np.outer([s, 1.0, 2.0], [1.0, s, -1.0]) + 1.0
    rows = [M[i] for i in range(3)]
    rows[1] *= s
    rows[0][2] = s * 3.0
    return np.sum(M * M) + np.sum(rows[2])


SCALAR = [rows_of_a_comprehension_then_the_array_changed, items_of_a_vector_then_it_changed,
          columns_in_a_dict_then_a_row_replaced, rows_appended_then_the_array_changed_twice, rows_written_through,
          rows_scaled_through, columns_shifted_through_then_read, rows_changed_through_then_the_array_changed,
          items_of_rows_written]


def _differences(f, s):
    return (f(s + H) - f(s - H)) / (2 * H)


@pytest.mark.parametrize("f", SCALAR, ids=[f.__name__ for f in SCALAR])
def test_value_gradient_and_forward_derivative_match_numpy_and_differences(f):
    for s in (0.8, -0.3):
        value, g = adsrc.value_and_grad(f)(s)
        assert np.isfinite(value) and np.isfinite(g)
        np.testing.assert_allclose(value, f(s), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, _differences(f, s), rtol=RTOL, atol=ATOL)
        out, dot = adsrc.jvp(f, (s,), (1.0,))
        assert np.isfinite(dot)
        np.testing.assert_allclose(dot, _differences(f, s), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("f", SCALAR[:3] + SCALAR[5:6], ids=[f.__name__ for f in SCALAR[:3] + SCALAR[5:6]])
def test_second_derivative_matches_differences_of_the_gradient(f):
    g = adsrc.grad(f)
    h = 1e-5
    second = (g(0.8 + h) - g(0.8 - h)) / (2 * h)
    got = adsrc.grad(g)(0.8)
    assert np.isfinite(got)
    np.testing.assert_allclose(got, second, rtol=1e-5, atol=1e-6)


def rows_of_a_parameter_scaled(M, w):
    rows = [M[i] for i in range(M.shape[0])]
    for r in rows:
        r *= w
    return np.sum(np.tanh(M)) + np.sum(rows[1] ** 2)


def test_rows_of_a_parameter_changed_through_leave_the_callers_array_unchanged():
    M = np.array([[0.3, -0.5, 0.8], [1.0, 0.2, -0.4]])
    given = M.copy()
    gM, gw = adsrc.grad(rows_of_a_parameter_scaled, argnums=(0, 1))(given, 0.7)
    np.testing.assert_array_equal(given, M)
    assert np.all(np.isfinite(gM)) and np.isfinite(gw)
    fd = np.zeros_like(M)
    for i in np.ndindex(M.shape):
        up, down = M.copy(), M.copy()
        up[i] += H
        down[i] -= H
        fd[i] = (rows_of_a_parameter_scaled(up, 0.7) - rows_of_a_parameter_scaled(down, 0.7)) / (2 * H)
    np.testing.assert_allclose(gM, fd, rtol=RTOL, atol=ATOL)
    fw = (rows_of_a_parameter_scaled(M.copy(), 0.7 + H) - rows_of_a_parameter_scaled(M.copy(), 0.7 - H)) / (2 * H)
    np.testing.assert_allclose(gw, fw, rtol=RTOL, atol=ATOL)


def test_located_finds_basic_indices_and_only_those():
    from adsrc.rules.located_views import located
    M = np.arange(24.0).reshape(2, 3, 4)
    for idx in [(1,), (0, 2), (slice(None), 1), (1, slice(None), 2), (slice(None, None, -1),),
                (0, slice(1, 3), slice(None, None, 2)), (1, 2, slice(3, 0, -1))]:
        view = M[idx]
        found = located(view, M)
        assert found is not None, idx
        got = M[found]
        assert got.__array_interface__["data"] == view.__array_interface__["data"]
        assert got.shape == view.shape and got.strides == view.strides
    assert located(M[0].reshape(12), M) is None             # a reshape: no basic index
    assert located(M[0].copy(), M) is None
    assert located(M, M) is None
    assert located(copy.copy(M), M) is None
