"""More scipy.stats families for stats_helpers.py's rules (logpdf, pdf, cdf, logcdf, sf, logsf in x, the shape
parameters, loc and scale): von Mises (kappa), skew normal (a) and truncated normal (a, b, standardized bounds).
Each gives, at the standard z, the log density l, dl/dz and dl/dshape, and dF/dshape of its distribution function:

    vonmises   l = kappa cos z - log(2 pi I0(kappa)),  dl/dkappa = cos z - I1 / I0;  F is not periodic
               (it grows by 1 per turn) and dF/dkappa = (1/pi) sum_n rho_n'(kappa) sin(n z) / n, rho_n = I_n / I0
               (the Fourier series of the density; a turn adds nothing)
    skewnorm   l = log 2 + log phi(z) + log Phi(a z),   F = Phi(z) - 2 T(z, a) (Owen's T),
               dF/da = -exp(-z^2 (1 + a^2) / 2) / (pi (1 + a^2))
    truncnorm  l = log phi(z) - log Z on [a, b], Z = Phi(b) - Phi(a), F = (Phi(z) - Phi(a)) / Z,
               dl/da = phi(a) / Z, dl/db = -phi(b) / Z, dF/da = -(1 - F) phi(a) / Z, dF/db = -F phi(b) / Z

Ratios such as phi(a) / Z are taken in logarithms, so that far tails stay finite.
"""

import numpy as np
import scipy.special as sp

LOG_SQRT_2PI = 0.9189385332046727
LOG_2PI = 1.8378770664093453


def _log_phi(z):
    return -0.5 * z * z - LOG_SQRT_2PI


def _log_mass(a, b):
    """log(Phi(b) - Phi(a)) for a <= b, from the tail nearer to the mass."""
    upper = a > 0.0                       # both bounds in the right tail: Phi(-a) - Phi(-b)
    lo, hi = np.where(upper, -b, a), np.where(upper, -a, b)
    lhi, llo = sp.log_ndtr(hi), sp.log_ndtr(lo)
    with np.errstate(divide="ignore"):
        return lhi + np.log1p(-np.exp(llo - lhi))


class VonMises:
    nshape = 1      # kappa

    def logpdf(self, z, kappa):
        l = kappa * (np.cos(z) - 1.0) - np.log(2.0 * np.pi * sp.i0e(kappa))
        dk = np.cos(z) - sp.i1e(kappa) / sp.i0e(kappa)
        return l, -kappa * np.sin(z), [dk]

    def cdf_shape(self, z, kappa):
        z, kappa = np.broadcast_arrays(np.asarray(z, dtype=float), np.asarray(kappa, dtype=float))
        terms = int(min(2000, 30 + 12 * np.sqrt(np.max(kappa, initial=0.0))))
        i0 = sp.ive(0, kappa)
        mean = sp.ive(1, kappa) / i0
        total = np.zeros(z.shape)
        below = sp.ive(0, kappa)        # I_(n-1), scaled
        here = sp.ive(1, kappa)
        for n in range(1, terms + 1):
            above = sp.ive(n + 1, kappa)
            rho = here / i0
            drho = 0.5 * (below + above) / i0 - rho * mean
            total = total + drho * np.sin(n * z) / n
            below, here = here, above
        return [total / np.pi]


class SkewNorm:
    nshape = 1      # a

    def logpdf(self, z, a):
        az = a * z
        ratio = np.exp(_log_phi(az) - sp.log_ndtr(az))          # phi(a z) / Phi(a z)
        l = np.log(2.0) + _log_phi(z) + sp.log_ndtr(az)
        return l, -z + a * ratio, [z * ratio]

    def cdf_shape(self, z, a):
        return [-np.exp(-0.5 * z * z * (1.0 + a * a)) / (np.pi * (1.0 + a * a))]


class TruncNorm:
    nshape = 2      # a, b

    def logpdf(self, z, a, b):
        inside = (z >= a) & (z <= b)
        log_z = _log_mass(a, b)
        l = np.where(inside, _log_phi(z) - log_z, -np.inf)
        da = np.exp(_log_phi(a) - log_z)
        db = -np.exp(_log_phi(b) - log_z)
        return l, np.where(inside, -z, 0.0), [da + 0.0 * z, db + 0.0 * z]

    def cdf_shape(self, z, a, b):
        inside = (z >= a) & (z <= b)
        log_z = _log_mass(a, b)
        zc = np.clip(z, a, b)
        F = np.exp(_log_mass(a, zc) - log_z)
        da = -(1.0 - F) * np.exp(_log_phi(a) - log_z)
        db = -F * np.exp(_log_phi(b) - log_z)
        return [np.where(inside, da, 0.0), np.where(inside, db, 0.0)]


FAMILIES_MORE = {"vonmises": VonMises(), "skewnorm": SkewNorm(), "truncnorm": TruncNorm()}
CONTINUOUS_MORE = {"vonmises": ("kappa",), "skewnorm": ("a",), "truncnorm": ("a", "b")}


# (called by name, the shape parameters taken from args one by one, as stats_helpers.family_logpdf does)
def family_logpdf_more(dist, z, args):
    if dist == "vonmises":
        return FAMILIES_MORE["vonmises"].logpdf(z, args[1])
    if dist == "skewnorm":
        return FAMILIES_MORE["skewnorm"].logpdf(z, args[1])
    return FAMILIES_MORE["truncnorm"].logpdf(z, args[1], args[2])


def family_cdf_shape_more(dist, z, args):
    if dist == "vonmises":
        return FAMILIES_MORE["vonmises"].cdf_shape(z, args[1])
    if dist == "skewnorm":
        return FAMILIES_MORE["skewnorm"].cdf_shape(z, args[1])
    return FAMILIES_MORE["truncnorm"].cdf_shape(z, args[1], args[2])
