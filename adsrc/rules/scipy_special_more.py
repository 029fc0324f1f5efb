"""More derivative rules for scipy.special: SciPy's own spellings of NumPy's functions (expm1, log1p, cbrt,
exp10), robust losses (huber, pseudo_huber), Box-Cox transforms, binomial coefficients and Pochhammer symbols,
modified Bessel functions of the second kind, and a few integrals (Dawson's, Spence's, complete elliptic,
Owen's T, Student's t distribution). Loaded with scipy_special.py.

Where a formula divides by a quantity that vanishes (exprel at 0, the Box-Cox parameter at 0, elliptic
integrals at m = 0), the helpers switch to the first terms of the series there, so derivatives stay finite
and accurate near those points.
"""

import numpy as np
import scipy.special as sp

from ..runtime import helper
from .scipy_special import _ew
from .stats_helpers import FAMILIES

LN10 = 2.302585092994046
INV_SQRT_2PI = 0.3989422804014327
SQRT_HALF = 0.7071067811865476
TWO_PI = 6.283185307179586


@helper
def exprel_dx(x, ans):
    """d/dx (e^x - 1) / x = (e^x - exprel(x)) / x: 1/2 + x/3 + x^2/8 near 0."""
    small = np.abs(x) < 1e-4
    safe = np.where(small, 1.0, x)
    return np.where(small, 0.5 + x / 3.0 + x * x / 8.0, (np.exp(x) - ans) / safe)


@helper
def boxcox_dl(x, lmbda):
    """d/dlmbda (x^lmbda - 1) / lmbda = L^2 h(lmbda L), L = log x and h = exprel's derivative ((log x)^2 / 2
    at lmbda = 0), written so that no difference of nearly equal numbers is divided by lmbda."""
    L = np.log(x)
    u = lmbda * L
    return L * L * exprel_dx(u, sp.exprel(u))


@helper
def inv_boxcox_dl(y, lmbda, ans):
    """d/dlmbda (1 + lmbda y)^(1 / lmbda) = ans (y / (lmbda (1 + lmbda y)) - log1p(lmbda y) / lmbda^2), which is
    ans (-y^2 / 2 + 2 lmbda y^3 / 3 - ...) near lmbda y = 0."""
    u = lmbda * y
    small = np.abs(u) < 1e-4
    safe = np.where(small, 1.0, lmbda)
    exact = y / (safe * (1.0 + u)) - np.log1p(np.where(small, 0.0, u)) / (safe * safe)
    return ans * np.where(small, -0.5 * y * y + 2.0 * lmbda * y ** 3 / 3.0, exact)


@helper
def spence_dz(z):
    """d/dz spence(z) = log(z) / (1 - z): -1 + (z - 1) / 2 near z = 1."""
    w = z - 1.0
    small = np.abs(w) < 1e-6
    return np.where(small, -1.0 + 0.5 * w, np.log(np.where(small, 2.0, z)) / np.where(small, -1.0, -w))


@helper
def ellipk_dm(m, k):
    """dK/dm = (E - (1 - m) K) / (2 m (1 - m)): pi/8 + 9 pi m / 128 near m = 0."""
    small = np.abs(m) < 1e-6
    safe = np.where(small, 0.5, m)
    return np.where(small, np.pi / 8.0 + 9.0 * np.pi * m / 128.0,
                    (sp.ellipe(safe) - (1.0 - safe) * k) / (2.0 * safe * (1.0 - safe)))


@helper
def ellipe_dm(m, e):
    """dE/dm = (E - K) / (2 m): -pi/8 - 3 pi m / 128 near m = 0."""
    small = np.abs(m) < 1e-6
    safe = np.where(small, 0.5, m)
    return np.where(small, -np.pi / 8.0 - 3.0 * np.pi * m / 128.0, (e - sp.ellipk(safe)) / (2.0 * safe))


@helper
def stdtr_dt(df, t):
    """d/dt of Student's t distribution function: its density."""
    return np.exp(FAMILIES["t"].logpdf(t, df)[0])


@helper
def stdtr_ddf(df, t):
    return FAMILIES["t"].cdf_shape(t, df)[0]


_ew(sp.expm1, "expm1", "x, /", x="g * (ans + 1.0)")
_ew(sp.log1p, "log1p", "x, /", x="g / (1.0 + x)")
_ew(sp.cbrt, "cbrt", "x, /", x="g / (3.0 * ans * ans)")
_ew(sp.exp10, "exp10", "x, /", x=f"g * ans * {LN10!r}")
_ew(sp.exprel, "exprel", "x, /", x="g * exprel_dx(x, ans)")
_ew(sp.huber, "huber", "delta, r, /", delta="g * np.where(np.abs(r) <= delta, 0.0, np.abs(r) - delta)",
    r="g * np.where(np.abs(r) <= delta, r, delta * np.sign(r))")
_ew(sp.pseudo_huber, "pseudo_huber", "delta, r, /",      # delta^2 (sqrt(1 + (r / delta)^2) - 1)
    delta="g * (2.0 * ans / delta - r * r / (delta * np.sqrt(1.0 + (r / delta) ** 2)))",
    r="g * r / np.sqrt(1.0 + (r / delta) ** 2)")
_ew(sp.boxcox, "boxcox", "x, lmbda, /", x="g * x ** (lmbda - 1.0)", lmbda="g * boxcox_dl(x, lmbda)")
_ew(sp.boxcox1p, "boxcox1p", "x, lmbda, /", x="g * (1.0 + x) ** (lmbda - 1.0)",
    lmbda="g * boxcox_dl(1.0 + x, lmbda)")
_ew(sp.inv_boxcox, "inv_boxcox", "y, lmbda, /", y="g * ans / (1.0 + lmbda * y)", lmbda="g * inv_boxcox_dl(y, lmbda, ans)")
_ew(sp.binom, "binom", "x, y, /", x="g * ans * (sp.digamma(x + 1.0) - sp.digamma(x - y + 1.0))",
    y="g * ans * (sp.digamma(x - y + 1.0) - sp.digamma(y + 1.0))")
_ew(sp.poch, "poch", "z, m, /", z="g * ans * (sp.digamma(z + m) - sp.digamma(z))", m="g * ans * sp.digamma(z + m)")
_ew(sp.k0, "k0", "x, /", x="-g * sp.k1(x)")
_ew(sp.k1, "k1", "x, /", x="-g * 0.5 * (sp.k0(x) + sp.kv(2, x))")
_ew(sp.k0e, "k0e", "x, /", x="g * (ans - sp.k1e(x))")                      # e^x k0(x)
_ew(sp.k1e, "k1e", "x, /", x="g * (ans - 0.5 * (sp.k0e(x) + sp.kve(2, x)))")
_ew(sp.dawsn, "dawsn", "x, /", x="g * (1.0 - 2.0 * x * ans)")
_ew(sp.spence, "spence", "z, /", z="g * spence_dz(z)")
_ew(sp.ellipk, "ellipk", "m, /", m="g * ellipk_dm(m, ans)")
_ew(sp.ellipe, "ellipe", "m, /", m="g * ellipe_dm(m, ans)")
_ew(sp.owens_t, "owens_t", "h, a, /",
    h=f"-g * {0.5 * INV_SQRT_2PI!r} * np.exp(-0.5 * h * h) * sp.erf(a * h * {SQRT_HALF!r})",
    a=f"g * np.exp(-0.5 * h * h * (1.0 + a * a)) / ({TWO_PI!r} * (1.0 + a * a))")
_ew(sp.stdtr, "stdtr", "df, t, /", df="g * stdtr_ddf(df, t)", t="g * stdtr_dt(df, t)")
_ew(sp.exp2, "exp2", "x, /", x="g * ans * 0.6931471805599453")
