"""What cases_idioms.py cannot say by finite differences: where the idioms it covers raise, as Python would."""

import numpy as np
import pytest

import adsrc
from cases_idioms import a_missing_function_in_a_branch_never_taken


def test_a_missing_module_function_in_a_branch_raises_attribute_error_naming_the_line_when_taken():
    g = adsrc.grad(a_missing_function_in_a_branch_never_taken)
    g(np.ones(3))
    with pytest.raises(AttributeError, match=r"module `numpy` has no attribute `product`.*cases_idioms.py, line \d+"):
        g(np.full(3, 1e4))


def _relu(z):
    return np.maximum(z, 0.0)


def rebound_in_a_branch_that_binds_twice(x, kind):
    def softplus(z):
        return np.log1p(np.exp(z))
    if kind == "relu":
        act = np.tanh
        act = _relu
    else:
        act = softplus
    return np.sum(act(x))


def nested_def_rebound_to_a_module_function(x):
    def sq(z):
        return z * z
    act = sq
    act = np.sin
    return np.sum(act(x))


def nested_def_rebound_in_an_unrolled_loop(x):
    def sq(z):
        return z * z
    y = x
    for i in range(2):
        y = sq(x)
        sq = np.cos
    return np.sum(y)


def test_nested_defs_rebound_to_other_functions_call_what_python_calls():
    # these called the nested def where Python calls the other function (a wrong gradient)
    x = np.array([0.3, -0.7, 1.2])
    np.testing.assert_allclose(adsrc.grad(rebound_in_a_branch_that_binds_twice)(x, "relu"), [1.0, 0.0, 1.0])
    np.testing.assert_allclose(adsrc.grad(nested_def_rebound_to_a_module_function)(x), np.cos(x))


def test_a_nested_def_rebound_in_an_unrolled_loop_calls_what_python_calls():
    # the second pass calls np.cos, found when the code runs, not the def again
    x = np.array([0.3, -0.7, 1.2])
    np.testing.assert_allclose(adsrc.grad(nested_def_rebound_in_an_unrolled_loop)(x.copy()), -np.sin(x), rtol=1e-12)
    out, dot = adsrc.jvp(nested_def_rebound_in_an_unrolled_loop, (x.copy(),), (np.ones(3),))
    np.testing.assert_allclose(out, np.sum(np.cos(x)), rtol=1e-12)
    np.testing.assert_allclose(dot, -np.sum(np.sin(x)), rtol=1e-12)
