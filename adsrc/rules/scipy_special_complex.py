"""scipy.special functions with complex values or derivatives written here: zeta (Riemann's and Hurwitz's),
lambertw and wofz. Loaded with scipy_special.py.

    zeta(x, q)     d/dx = -sum_n log(n + q) / (n + q)^x (below),  d/dq = -x zeta(x + 1, q)
    lambertw(z)    W' = 1 / (e^W (1 + W)) = W / (z (1 + W)), finite at z = 0 (W'(0) = 1 on the principal branch)
    wofz(z)        w' = -2 z w + 2i / sqrt(pi)

lambertw and wofz are holomorphic: their rules multiply the cotangent by the derivative (complex-ready, as
rules/__init__.py describes); a real argument's cotangent is the real part.

The x-derivative of zeta is summed by Euler-Maclaurin: the first N terms of -sum f(n), f(t) = log(t + q) (t + q)^-x,
then the tail's integral, f(N) / 2 and the Bernoulli corrections, whose derivatives of f come from those of
a^-x: d^m/da^m (a^-x log a) = a^(-x-m) (c_m log a - c_m'), c_m = (-x)(-x-1)...(-x-m+1) and c_m' = dc_m/dx. The
sum is the analytic continuation too, so it serves x < 1 for Riemann's zeta (q = 1); near x = 1 it has zeta's
pole, -1 / (x - 1)^2.
"""

import numpy as np
import scipy.special as sp

from ..runtime import helper

_TERMS = 16
_BERNOULLI = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510,
              43867.0 / 798, -174611.0 / 330)          # B_2, B_4, ..., B_20
TWO_OVER_SQRT_PI = 1.1283791670955126


@helper
def zeta_dx(x, q=None):
    """d/dx zeta(x, q) (Riemann's with q None: for x < 0 from the functional equation, below)."""
    if q is None:
        x = np.asarray(x, dtype=float)
        negative = x < 0.0
        if np.any(negative):
            return np.where(negative, _riemann_reflected_dx(np.where(negative, x, -1.0)),
                            _euler_maclaurin_dx(np.where(negative, 2.0, x), np.ones_like(x)))
        return _euler_maclaurin_dx(x, np.ones_like(x))
    return _euler_maclaurin_dx(np.asarray(x, dtype=float), np.asarray(q, dtype=float))


def _riemann_reflected_dx(s):
    """zeta(s) = A(s) zeta(1 - s), A = 2^s pi^(s-1) sin(pi s / 2) Gamma(1 - s): zeta' = A' zeta(1 - s) -
    A zeta'(1 - s), A' written without dividing by the sine (zero at the even negative integers)."""
    common = 2.0 ** s * np.pi ** (s - 1.0) * sp.gamma(1.0 - s)
    half = 0.5 * np.pi * s
    a = common * np.sin(half)
    da = common * (np.sin(half) * (np.log(2.0 * np.pi) - sp.digamma(1.0 - s)) + 0.5 * np.pi * np.cos(half))
    return da * sp.zeta(1.0 - s) - a * _euler_maclaurin_dx(1.0 - s, np.ones_like(s))


def _euler_maclaurin_dx(x, q):
    x, q = np.broadcast_arrays(x, q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = np.zeros(x.shape)
        for n in range(_TERMS):
            a = n + q
            total = total + np.log(a) * a ** -x
        a = _TERMS + q
        la = np.log(a)
        s1 = x - 1.0
        total = total + a ** -s1 * (la / s1 + 1.0 / (s1 * s1)) + 0.5 * la * a ** -x
        c, dc = np.ones(x.shape), np.zeros(x.shape)        # c_m and dc_m / dx, from m = 0
        m = 0
        factorial = 1.0
        for k, b in enumerate(_BERNOULLI, start=1):
            while m < 2 * k - 1:
                c, dc = c * (-x - m), dc * (-x - m) - c
                m += 1
            factorial = factorial * (2 * k - 1) * (2 * k)   # (2k)!
            total = total - b / factorial * a ** (-x - m) * (c * la - dc)
    return -total


@helper
def lambertw_dz(ans):
    return 1.0 / (np.exp(ans) * (1.0 + ans))


def install():
    from .scipy_special import _ew         # (which imports this module)
    _ew(sp.zeta, "zeta", "x, q=None", x="g * zeta_dx(x, q)", q="-g * x * sp.zeta(x + 1.0, q)")
    _ew(sp.lambertw, "lambertw", "z, k=0, tol=1e-08", real_only=False, z="g * lambertw_dz(ans)")
    _ew(sp.wofz, "wofz", "z, /", real_only=False, z=f"g * (-2.0 * z * ans + {TWO_OVER_SQRT_PI!r}j)")
