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


def _recurrence(x, c, tensor, first, step):
    """sum_n c[n] P_n(x) with P_0 = 1, P_1 = (a_0 x + b_0) (first = (a_0, b_0)) and
    P_{n+1} = (a_n x + b_n) P_n - c_n P_{n-1} ((a_n, b_n, c_n) = step(n))."""
    x, c = _prepared(x, c, tensor)
    prev, cur = np.ones_like(x), first[0] * x + first[1]
    out = c[0] * prev
    if len(c) > 1:
        out = out + c[1] * cur
    for n in range(1, len(c) - 1):
        a, b, cn = step(n)
        prev, cur = cur, (a * x + b) * cur - cn * prev
        out = out + c[n + 1] * cur
    return out


def _chebyshev(n):
    return 2.0, 0.0, 1.0


def _legendre(n):
    return (2 * n + 1) / (n + 1), 0.0, n / (n + 1)


def _hermite(n):
    return 2.0, 0.0, 2.0 * n


def _hermite_e(n):
    return 1.0, 0.0, 1.0 * n


def _laguerre(n):
    return -1.0 / (n + 1), (2 * n + 1) / (n + 1), n / (n + 1)


def chebval(x, c, tensor=True):
    """Chebyshev: T_1 = x, T_{n+1} = 2x T_n - T_{n-1}."""
    return _recurrence(x, c, tensor, (1.0, 0.0), _chebyshev)


def legval(x, c, tensor=True):
    """Legendre: P_1 = x, P_{n+1} = ((2n + 1) x P_n - n P_{n-1}) / (n + 1)."""
    return _recurrence(x, c, tensor, (1.0, 0.0), _legendre)


def hermval(x, c, tensor=True):
    """Hermite (physicists'): H_1 = 2x, H_{n+1} = 2x H_n - 2n H_{n-1}."""
    return _recurrence(x, c, tensor, (2.0, 0.0), _hermite)


def hermeval(x, c, tensor=True):
    """Hermite (probabilists'): He_1 = x, He_{n+1} = x He_n - n He_{n-1}."""
    return _recurrence(x, c, tensor, (1.0, 0.0), _hermite_e)


def lagval(x, c, tensor=True):
    """Laguerre: L_1 = 1 - x, L_{n+1} = ((2n + 1 - x) L_n - n L_{n-1}) / (n + 1)."""
    return _recurrence(x, c, tensor, (-1.0, 1.0), _laguerre)


IMPLEMENTATIONS = {np.polynomial.chebyshev.chebval: chebval, np.polynomial.legendre.legval: legval,
                   np.polynomial.hermite.hermval: hermval, np.polynomial.hermite_e.hermeval: hermeval,
                   np.polynomial.laguerre.lagval: lagval}
