"""np.i0, the modified Bessel function of the first kind of order 0: d/dx I0 = I1, and d/dx I1 = I0 - I1 / x
(1/2 at 0). I1 is scipy.special.i1 when the program has imported scipy.special; without it (adsrc needs only
NumPy) it is computed here: its power series for |x| <= 30 (positive terms, no cancellation) and its asymptotic series
e^x / sqrt(2 pi x) (1 - 3 / (8x) - 15 / (128 x^2) - ...) above.
"""

import sys

import numpy as np

from ..runtime import helper
from . import Rule, register

_SERIES_TERMS = 90
_ASYMPTOTIC_TERMS = 18
_SWITCH = 30.0


def _scipy_i1():
    """scipy.special.i1 if the program has imported scipy.special (adsrc never imports SciPy on its own)."""
    special = sys.modules.get("scipy.special")
    return getattr(special, "i1", None)


def i1_series(x):
    """I1 without SciPy: sum_k (x/2)^(2k+1) / (k! (k+1)!) for |x| <= 30, the asymptotic series above it."""
    x = np.asarray(x, dtype=float)
    ax = np.abs(x)
    small = np.minimum(ax, _SWITCH)
    half = 0.5 * small
    term = half.copy()
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * half * half / (k * (k + 1.0))
        total = total + term
    big = np.maximum(ax, _SWITCH)
    term = np.ones_like(big)
    acc = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = -term * (4.0 - (2.0 * k - 1.0) ** 2) / (8.0 * k * big)
        acc = acc + term
    with np.errstate(over="ignore"):
        large = np.exp(big) / np.sqrt(2.0 * np.pi * big) * acc
    return np.sign(x) * np.where(ax <= _SWITCH, total, large)


@helper
def i1_value(x):
    i1 = _scipy_i1()
    return i1(x) if i1 is not None else i1_series(x)


@helper
def i1_dx(x, ans):
    """d/dx I1 = I0 - I1 / x: 1/2 + 3 x^2 / 16 near 0."""
    small = np.abs(x) < 1e-5
    safe = np.where(small, 1.0, x)
    return np.where(small, 0.5 + 3.0 * x * x / 16.0, np.i0(x) - ans / safe)


def install():
    register(np.i0, Rule("np.i0", "x", {"x": "g * i1_value(x)"}, kind="elementwise", real_only=True))
    register(i1_value, Rule("i1_value", "x", {"x": "g * i1_dx(x, ans)"}, kind="elementwise", real_only=True))
