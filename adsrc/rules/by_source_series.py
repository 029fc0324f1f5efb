"""numpy.polynomial's series evaluated at points (chebval, legval, hermval, hermeval, lagval), written in plain
NumPy that adsrc differentiates (in x and the coefficients c): each sums c[n] P_n(x) with P_n from the family's
three-term recurrence P_{n+1} = (a_n x + b_n) P_n - c_n P_{n-1}, P_0 = 1. `tensor=True` (NumPy's default)
evaluates every column of a 2-D c at every point of x, as NumPy does."""

import numpy as np


def _prepared(x, c, tensor):
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    c = np.asarray(c)
    if tensor and c.ndim > 1 and np.ndim(x) > 0:
        c = c.reshape(c.shape + (1,) * np.ndim(x))
    return x * 1.0, c


def chebval(x, c, tensor=True):
    """Chebyshev: T_1 = x, T_{n+1} = 2x T_n - T_{n-1}."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), x
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        prev, cur = cur, 2.0 * x * cur - prev
        out = out + c[n + 1] * cur
    return out


def legval(x, c, tensor=True):
    """Legendre: P_1 = x, P_{n+1} = ((2n + 1) x P_n - n P_{n-1}) / (n + 1)."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), x
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        prev, cur = cur, ((2 * n + 1) * x * cur - n * prev) / (n + 1)
        out = out + c[n + 1] * cur
    return out


def hermval(x, c, tensor=True):
    """Hermite (physicists'): H_1 = 2x, H_{n+1} = 2x H_n - 2n H_{n-1}."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), 2.0 * x
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        prev, cur = cur, 2.0 * x * cur - 2.0 * n * prev
        out = out + c[n + 1] * cur
    return out


def hermeval(x, c, tensor=True):
    """Hermite (probabilists'): He_1 = x, He_{n+1} = x He_n - n He_{n-1}."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), x
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        prev, cur = cur, x * cur - n * prev
        out = out + c[n + 1] * cur
    return out


def lagval(x, c, tensor=True):
    """Laguerre: L_1 = 1 - x, L_{n+1} = ((2n + 1 - x) L_n - n L_{n-1}) / (n + 1)."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), 1.0 - x
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        prev, cur = cur, ((2 * n + 1 - x) * cur - n * prev) / (n + 1)
        out = out + c[n + 1] * cur
    return out


IMPLEMENTATIONS = {np.polynomial.chebyshev.chebval: chebval, np.polynomial.legendre.legval: legval,
                   np.polynomial.hermite.hermval: hermval, np.polynomial.hermite_e.hermeval: hermeval,
                   np.polynomial.laguerre.lagval: lagval}
