"""The text of adsrc's messages about arguments: what to do instead, and values shown by shape and dtype."""

import re

import numpy as np
import pytest

import adsrc


def square(x):
    return x * x


def summed(x):
    return np.sum(x * x)


def _message(call):
    with pytest.raises(Exception) as info:
        call()
    return str(info.value)


def test_a_bool_argument_is_called_a_flag_not_a_number():
    message = _message(lambda: adsrc.grad(square)(True))
    assert "is a bool (True)" in message
    assert "mark it static" in message and "static_argnums" in message
    assert "True.0" not in message


def test_an_integer_argument_suggests_the_float_to_write():
    message = _message(lambda: adsrc.grad(square)(3))
    assert "e.g. 3.0 " in message
    message = _message(lambda: adsrc.grad(square)(np.int64(7)))
    assert "e.g. 7.0 " in message and "np.int64(7).0" not in message


def test_arrays_in_messages_are_described_by_shape_and_dtype():
    big = np.ones((1000, 100), dtype=np.int32)
    message = _message(lambda: adsrc.grad(summed)(big))
    assert "an array of shape (1000, 100) and dtype int32" in message
    message = _message(lambda: adsrc.grad(np.ones((1000, 100))))
    assert "an array of shape (1000, 100) and dtype float64" in message
    message = _message(lambda: adsrc.grad(np.nextafter))     # np.exp has a rule: grad(np.exp) works
    assert "`nextafter` (a ufunc)" in message and "adsrc.defvjp" in message
    assert not re.search(r"1\., 1\.|\[\[", message)


def test_an_unhashable_static_argument_is_described_not_printed():
    def scaled(x, table):
        return np.sum(x) * len(table)
    message = _message(lambda: adsrc.grad(scaled, static_argnums=1)(np.ones(2), list(range(999)) + [np.ones(2)]))
    assert "`table`" in message and "a list of 1000 elements" in message and "999" not in message


def test_check_grads_reports_where_a_gradient_is_not_finite_without_printing_it():
    def sqrt_sum(x):
        return np.sum(np.sqrt(x))
    x = np.ones(10_000)
    x[1234] = 0.0
    with pytest.raises(adsrc.GradientMismatch) as info, np.errstate(divide="ignore"):
        adsrc.check_grads(sqrt_sum, (x,))
    message = str(info.value)
    assert "1 of its 10000 entries are NaN or inf (the first at index [1234], inf)" in message
    assert "shape (10000,)" in message and "0.5, 0.5" not in message


def test_check_grads_raises_gradient_mismatch_and_otherwise_returns_the_gradient():
    x = np.array([0.3, -1.2])
    g = adsrc.check_grads(summed, (x,))
    np.testing.assert_allclose(g, 2.0 * x)
    assert "Raises GradientMismatch" in adsrc.check_grads.__doc__

    def floor_times(x):
        return np.sum(np.floor(x * 3.0) * x)       # piecewise: finite differences across a step disagree
    with pytest.raises(adsrc.GradientMismatch, match="worst|disagrees") as info:
        adsrc.check_grads(floor_times, (np.array([1.0 / 3.0]),), full=True)
    assert isinstance(info.value, AssertionError)
