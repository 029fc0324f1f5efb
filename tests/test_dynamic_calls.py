"""Calls of function values adsrc finds only when the code runs (adsrc/dynamic_calls.py): differentiated
then, in reverse and forward mode, each call run once; refused where the function holds differentiated
values, or for derivatives of higher order."""

import functools
import math

import numpy as np
import pytest

import adsrc
from adsrc import dynamic_wrappers
from adsrc.errors import TransformError
from casekit import central_grad

RTOL, ATOL = 1e-6, 1e-8
POINTS = [np.array([0.3, -0.7, 1.2]), np.array([-1.1, 0.4, 0.05])]


def _check(fn, x, *rest):
    """Reverse and forward mode against central differences, x never changed."""
    kept = x.copy()
    g = adsrc.grad(fn)(x, *rest)
    np.testing.assert_array_equal(x, kept)
    expected = central_grad(lambda v: fn(v, *rest), x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, expected, rtol=RTOL, atol=ATOL)
    t = np.linspace(0.5, 1.5, x.size).reshape(x.shape)
    out, dot = adsrc.jvp(lambda v: fn(v, *rest), (x,), (t,))
    np.testing.assert_array_equal(x, kept)
    np.testing.assert_allclose(out, fn(x, *rest), rtol=1e-12)
    np.testing.assert_allclose(dot, np.sum(expected * t), rtol=RTOL, atol=ATOL)


def apply_each(x, fs):
    s = 0.0
    for f in fs:
        s = s + np.sum(f(x))
    return s


def _scale(v, a, mode="mul"):
    return v * a if mode == "mul" else v + a


def chain(x, fs, scales):
    h = x
    for f, a in zip(fs, scales):
        h = f(h, a, mode="mul")        # keywords and a string reach the function
        h = np.tanh(h)
    return np.sum(h * h)


def by_name(x, name):
    return np.sum(getattr(np, name)(x) * x)


def until_small(x, fs):
    k = 0
    s = np.sum(x * x)
    while s > 1e-3 and k < 6:          # a while loop: the pullbacks go on a growing tape
        x = fs[k % len(fs)](x)
        s = np.sum(x * x)
        k += 1
    return s


@pytest.mark.parametrize("x", POINTS)
def test_functions_in_a_list_argument(x):
    _check(apply_each, x, [np.sin, np.exp, lambda t: t ** 3, functools.partial(np.power, 2.0), np.tanh])


@pytest.mark.parametrize("x", [0.4, -1.3])
def test_math_functions_of_a_float(x):
    fs = [math.sin, math.exp, abs]
    g = adsrc.grad(apply_each)(x, fs)
    assert isinstance(g, float)
    np.testing.assert_allclose(g, math.cos(x) + math.exp(x) + np.sign(x), rtol=1e-12)


@pytest.mark.parametrize("x", POINTS)
def test_lists_of_other_lengths_use_the_same_code(x):
    g = adsrc.grad(apply_each)
    for fs in ([np.sin], [np.sin, np.cos], [np.cos, np.sin, np.sin, np.exp]):
        np.testing.assert_allclose(g(x, fs), central_grad(lambda v: apply_each(v, fs), x), rtol=RTOL, atol=ATOL)
    assert g.cache_info().currsize == 1


@pytest.mark.parametrize("x", POINTS)
def test_keywords_strings_and_floats_reach_the_function(x):
    _check(chain, x, [_scale, _scale, _scale], [0.5, -2.0, 1.5])


@pytest.mark.parametrize("name", ["sin", "cos", "exp", "tanh"])
def test_a_numpy_function_by_run_time_name(name):
    _check(by_name, POINTS[0], name)


@pytest.mark.parametrize("x", [np.array([0.3, -0.2]), np.array([0.9, 0.8])])
def test_a_while_loop_of_run_time_length(x):
    fs = [lambda v: 0.5 * v, np.sin]
    _check(until_small, x, fs)


class _Model:
    def __init__(self, w):
        self.w = w

    def predict(self, x):
        return np.tanh(x * self.w)


def test_bound_methods_of_objects_not_differentiated():
    models = [_Model(np.array([1.0, 2.0, -0.5])), _Model(np.array([0.3, 0.3, 0.3]))]
    _check(apply_each, POINTS[0], [m.predict for m in models])
    c = np.array([2.0, -1.0, 0.5])
    _check(apply_each, POINTS[1], [c.dot, c.__mul__])       # methods of an array: by NumPy's rules


def test_each_call_runs_once_per_gradient():
    calls = []

    def noisy(v):
        calls.append(1)              # a side effect: it must happen once per call, as in Python
        return np.sin(v)
    adsrc.grad(apply_each)(POINTS[0], [noisy, noisy])
    assert len(calls) == 2


def test_the_functions_a_call_makes_are_transformed_once():
    def terms(x):
        fs = []
        for k in range(x.shape[0]):          # new lambdas on every call
            fs.append(lambda v, k=k: v[k] ** 2 * (k + 1))
        return sum(f(x) for f in fs)
    g = adsrc.grad(terms)
    x = POINTS[0]
    np.testing.assert_allclose(g(x), 2.0 * x * np.arange(1, 4), rtol=1e-12)
    made = len(dynamic_wrappers._WRAPPERS)
    np.testing.assert_allclose(g(x * 2.0), 4.0 * x * np.arange(1, 4), rtol=1e-12)
    assert len(dynamic_wrappers._WRAPPERS) == made


def test_a_closure_over_a_differentiated_value_is_refused():
    def outer(w, x):
        return apply_each(x, [lambda t: t * w, np.sin])
    with pytest.raises(TransformError, match=r"uses `w`, which is differentiated"):
        adsrc.grad(outer)(1.5, POINTS[0])
    # w constant: the lambda is a constant function
    np.testing.assert_allclose(adsrc.grad(outer, argnums=1)(1.5, POINTS[0]), 1.5 + np.cos(POINTS[0]), rtol=1e-12)


def test_second_derivatives_are_refused_with_what_to_do():
    with pytest.raises(TransformError, match=r"first derivatives only(.|\n)*static argument"):
        adsrc.hessian(apply_each)(POINTS[0], [np.sin])
    h = adsrc.hessian(apply_each, static_argnums=1)(POINTS[0], (np.sin,))
    np.testing.assert_allclose(h, np.diag(-np.sin(POINTS[0])), rtol=1e-12, atol=1e-12)


def test_a_function_without_a_derivative_is_refused_naming_the_call():
    with pytest.raises(TransformError) as info:
        adsrc.grad(apply_each)(POINTS[0], [np.frompyfunc(lambda t: t * 2.0, 1, 1)])
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "found when the code ran" in text and "s = s + np.sum(f(x))" in text


def test_values_without_floats_give_zero():
    def count(x, fs):
        return np.sum(x) + sum(f(3) for f in fs)         # integers only: no derivative through the calls
    np.testing.assert_allclose(adsrc.grad(count)(POINTS[0], [abs, lambda n: n * 2]), np.ones(3))
