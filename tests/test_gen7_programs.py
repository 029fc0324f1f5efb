"""The gen7 probe's reduced programs (cases_gen7.py): gradients against central differences, at
inputs that take different branches; inputs unchanged; value_and_grad's value is f's."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import adsrc  # noqa: E402
from cases_gen7 import CASES  # noqa: E402

RTOL, ATOL, STEP = 1e-5, 1e-7, 1e-6


def _copies(args):
    return tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)


def central(f, args, i):
    x = args[i]
    if not isinstance(x, np.ndarray):
        up, down = list(_copies(args)), list(_copies(args))
        up[i], down[i] = x + STEP, x - STEP
        return (f(*up) - f(*down)) / (2 * STEP)
    out = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        up, down = list(_copies(args)), list(_copies(args))
        up[i][idx] += STEP
        down[i][idx] -= STEP
        out[idx] = (f(*up) - f(*down)) / (2 * STEP)
    return out


@pytest.mark.parametrize("fn,inputs,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_central_differences(fn, inputs, argnums):
    g = adsrc.grad(fn, argnums=argnums)
    nums = (argnums,) if isinstance(argnums, int) else argnums
    for args in inputs:
        before = _copies(args)
        got = g(*args)
        got = (got,) if isinstance(argnums, int) else got
        for a, b in zip(args, before):
            np.testing.assert_array_equal(a, b)
        for i, gi in zip(nums, got):
            want = central(fn, args, i)
            assert not np.any(np.isnan(np.asarray(gi, dtype=float)))
            np.testing.assert_allclose(gi, want, rtol=RTOL, atol=ATOL * max(1.0, np.max(np.abs(want))))


@pytest.mark.parametrize("fn,inputs,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_and_tangent(fn, inputs, argnums):
    args = inputs[0]
    value, _ = adsrc.value_and_grad(fn, argnums=argnums)(*_copies(args))
    np.testing.assert_allclose(value, fn(*_copies(args)), rtol=1e-12)
    tangents = tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args)
    out, dout = adsrc.jvp(fn, _copies(args), tangents)
    up = [a + STEP * t for a, t in zip(args, tangents)]
    down = [a - STEP * t for a, t in zip(args, tangents)]
    np.testing.assert_allclose(out, fn(*_copies(args)), rtol=1e-12)
    np.testing.assert_allclose(dout, (fn(*up) - fn(*down)) / (2 * STEP), rtol=1e-5, atol=1e-7)


def test_nested_factory_returning_a_numpy_function():
    # the function pick(1) returns is found when the code runs, and differentiated then
    from cases_gen7 import nested_def_returning_a_numpy_function as f
    x = np.array([0.3, -1.2, 2.0])
    fd = np.array([(f(x + STEP * e) - f(x - STEP * e)) / (2 * STEP) for e in np.eye(3)])
    g = adsrc.grad(f)(x.copy())
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)