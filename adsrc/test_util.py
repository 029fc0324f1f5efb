"""`from adsrc.test_util import check_grads, combo_check`, as autograd's `autograd.test_util` (see adsrc/checks.py),
with its comparisons `scalar_close` and `check_equivalent`."""

import itertools

import numpy as np

from .checks import _leaves, check_grads

__all__ = ["check_grads", "combo_check", "scalar_close", "check_equivalent"]

TOL = RTOL = 1e-6


def scalar_close(a, b):
    """autograd's: |a - b| below 1e-6, absolutely or relative to |a + b|."""
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def check_equivalent(x, y):
    """autograd's: x and y are the same pytree of arrays (structure, shapes, real or complex) with close values."""
    lx, ly = _leaves(x), _leaves(y)
    assert [p for p, _ in lx] == [p for p, _ in ly], f"structure mismatch:\nx: {x}\ny: {y}"
    for (path, a), (_, b) in zip(lx, ly):
        assert np.shape(a) == np.shape(b), f"shape mismatch at {path or 'the value'}: {np.shape(a)} vs {np.shape(b)}"
        assert np.iscomplexobj(a) == np.iscomplexobj(b), f"one of x, y is complex at {path or 'the value'}"
        assert np.allclose(a, b, rtol=RTOL, atol=TOL), f"value mismatch at {path or 'the value'}:\nx: {a}\ny: {b}"


def combo_check(fun, *args, **kwargs):
    """autograd's `combo_check(fun, argnum[, modes][, order])(*arg_lists, **kwarg_lists)`: check_grads(fun,
    *args, **kwargs) at every combination of one value from each list of arguments and of keyword values."""
    def check(*arg_lists, **kwarg_lists):
        names = list(kwarg_lists)
        for call_args in itertools.product(*arg_lists):
            for values in itertools.product(*(kwarg_lists[k] for k in names)):
                check_grads(fun, *args, **kwargs)(*call_args, **dict(zip(names, values)))
    return check
