"""Checks shared by test_refusals_lifted.py and test_inplace_lifted.py: adsrc.grad and adsrc.jvp of a real
scalar function against central differences, the input unchanged, no NaN."""

import numpy as np

import adsrc
from casekit import central_grad as central


def check_grad(f, x, rtol=1e-5, atol=1e-7, eps=1e-6, forward=True):
    """adsrc.grad(f)(x) against central differences, x unchanged, no NaN; and adsrc.jvp along a direction."""
    x = np.asarray(x, dtype=float)
    before = x.copy()
    g = adsrc.grad(f)(x)
    assert np.array_equal(x, before), "the input was changed"
    expected = central(f, x, eps)
    assert not np.any(np.isnan(g)) and not np.any(np.isnan(expected))
    np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)
    if forward:
        t = np.linspace(0.5, -0.7, x.size).reshape(x.shape)
        value, slope = adsrc.jvp(f, (x,), (t,))
        assert np.array_equal(x, before)
        np.testing.assert_allclose(value, f(x), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(slope, np.sum(expected * t), rtol=rtol, atol=atol * x.size)
    return g


POINTS = [np.array([0.3, 1.2, -0.5, 2.0]), np.array([-1.1, 0.7, 0.2, 3.5]), np.array([2.5, -0.4, 1.9, -2.2])]
WEIGHTS = np.array([1.0, -2.0, 0.5, 3.0])
