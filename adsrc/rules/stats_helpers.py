"""Derivatives of scipy.stats distributions, for the rules of `scipy_stats.py`.

A continuous distribution with location and scale is a standard one at z = (x - loc) / scale:
logpdf(x) = l(z) - log scale and cdf(x) = F(z). Each family below gives, at z and its shape
parameters, l and dl/dz and dl/dshape, and dF/dshape; `stats_vjp` turns them into the
cotangents of x, the shape parameters, loc and scale for logpdf, pdf, cdf, sf, logcdf and logsf:

    d logpdf:  dx = l_z / s,   dloc = -l_z / s,   dscale = -(z l_z + 1) / s,   dshape = l_shape
    d cdf:     dx = f / s,     dloc = -f / s,     dscale = -z f / s,           dshape = F_shape

with f = exp(l) the standard density; pdf multiplies d logpdf by the pdf, sf = 1 - cdf negates,
and logcdf / logsf divide by cdf / sf through exp(l(z) - log F), which keeps far tails finite.
"""

import numpy as np
import scipy.special as sp

from ..runtime import helper
from .scipy_helpers import betainc_dx, betainc_partials, gammainc_da
from .stats_families_more import FAMILIES_MORE, family_cdf_shape_more, family_logpdf_more

LOG_SQRT_2PI = 0.9189385332046727
LOG_PI = 1.1447298858494002


class Norm:
    nshape = 0

    def logpdf(self, z):
        return -0.5 * z * z - LOG_SQRT_2PI, -z, []

    def cdf_shape(self, z):
        return []


class StudentT:
    nshape = 1      # df

    def logpdf(self, z, df):
        q = 1.0 + z * z / df
        l = (sp.gammaln(0.5 * (df + 1.0)) - sp.gammaln(0.5 * df) - 0.5 * (np.log(df) + LOG_PI)
             - 0.5 * (df + 1.0) * np.log(q))
        lz = -(df + 1.0) * z / (df + z * z)
        ldf = (0.5 * sp.digamma(0.5 * (df + 1.0)) - 0.5 * sp.digamma(0.5 * df) - 0.5 / df - 0.5 * np.log(q)
               + 0.5 * (df + 1.0) * z * z / (df * df * q))
        return l, lz, [ldf]

    def cdf_shape(self, z, df):
        """F = 1 - I_w(df/2, 1/2) / 2 for z > 0 and I_w(df/2, 1/2) / 2 for z < 0, w = df / (df + z^2)."""
        w = df / (df + z * z)
        da, _ = betainc_partials(0.5 * df, 0.5, w)
        dw = z * z / (df + z * z) ** 2
        dI = 0.5 * da + betainc_dx(0.5 * df, 0.5, w) * dw
        return [np.where(z > 0, -0.5, 0.5) * dI]


class Gamma:
    nshape = 1      # a

    def logpdf(self, z, a):
        with np.errstate(divide="ignore", invalid="ignore"):
            logz = np.log(z)
        l = (a - 1.0) * logz - z - sp.gammaln(a)
        return l, (a - 1.0) / z - 1.0, [logz - sp.digamma(a)]

    def cdf_shape(self, z, a):
        return [gammainc_da(a, np.maximum(z, 0.0))]


class Beta:
    nshape = 2      # a, b

    def logpdf(self, z, a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            logz, log1mz = np.log(z), np.log1p(-z)
        l = (a - 1.0) * logz + (b - 1.0) * log1mz - sp.betaln(a, b)
        lz = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
        dab = sp.digamma(a + b)
        return l, lz, [logz - sp.digamma(a) + dab, log1mz - sp.digamma(b) + dab]

    def cdf_shape(self, z, a, b):
        return list(betainc_partials(a, b, z))


class Chi2:
    nshape = 1      # df: chi2(df) is gamma(df / 2) at z / 2, scaled by 2

    def logpdf(self, z, df):
        with np.errstate(divide="ignore", invalid="ignore"):
            logz = np.log(z)
        h = 0.5 * df
        logp = (h - 1.0) * logz - 0.5 * z - h * np.log(2.0) - sp.gammaln(h)
        return logp, (h - 1.0) / z - 0.5, [0.5 * (logz - np.log(2.0) - sp.digamma(h))]

    def cdf_shape(self, z, df):
        return [0.5 * gammainc_da(0.5 * df, 0.5 * np.maximum(z, 0.0))]


class Expon:
    nshape = 0

    def logpdf(self, z):
        return -z, -np.ones_like(z), []

    def cdf_shape(self, z):
        return []


class Laplace:
    nshape = 0

    def logpdf(self, z):
        return -np.abs(z) - np.log(2.0), -np.sign(z), []

    def cdf_shape(self, z):
        return []


class Cauchy:
    nshape = 0

    def logpdf(self, z):
        return -np.log1p(z * z) - LOG_PI, -2.0 * z / (1.0 + z * z), []

    def cdf_shape(self, z):
        return []


class Logistic:
    nshape = 0

    def logpdf(self, z):
        return -z - 2.0 * np.logaddexp(0.0, -z), -np.tanh(0.5 * z), []

    def cdf_shape(self, z):
        return []


def _positive(z, lower=0.0):
    """Where z is inside a support (lower, inf), and z itself there (2 outside, where nothing reads it)."""
    inside = z > lower
    return inside, np.where(inside, z, lower + 2.0)


class LogNorm:
    nshape = 1      # s: log z is normal with standard deviation s

    def logpdf(self, z, s):
        inside, zs = _positive(z)
        lz_ = np.log(zs)
        l = np.where(inside, -0.5 * (lz_ / s) ** 2 - np.log(s) - lz_ - LOG_SQRT_2PI, -np.inf)
        dz = np.where(inside, -(lz_ / (s * s) + 1.0) / zs, 0.0)
        ds = np.where(inside, lz_ * lz_ / s ** 3 - 1.0 / s, 0.0)
        return l, dz, [ds]

    def cdf_shape(self, z, s):
        inside, zs = _positive(z)
        w = np.log(zs) / s
        return [np.where(inside, -np.exp(-0.5 * w * w - LOG_SQRT_2PI) * w / s, 0.0)]


class Uniform:
    nshape = 0

    def logpdf(self, z):
        inside = (z >= 0.0) & (z <= 1.0)
        return np.where(inside, 0.0, -np.inf), np.zeros(np.shape(z)), []

    def cdf_shape(self, z):
        return []


class HalfNorm:
    nshape = 0

    def logpdf(self, z):
        inside = z >= 0.0
        return np.where(inside, -0.5 * z * z + np.log(2.0) - LOG_SQRT_2PI, -np.inf), np.where(inside, -z, 0.0), []

    def cdf_shape(self, z):
        return []


class InvGamma:
    nshape = 1      # a: 1 / z is gamma(a)

    def logpdf(self, z, a):
        inside, zs = _positive(z)
        logz = np.log(zs)
        l = np.where(inside, -(a + 1.0) * logz - 1.0 / zs - sp.gammaln(a), -np.inf)
        return l, np.where(inside, (1.0 / zs - (a + 1.0)) / zs, 0.0), [np.where(inside, -logz - sp.digamma(a), 0.0)]

    def cdf_shape(self, z, a):
        inside, zs = _positive(z)
        return [np.where(inside, -gammainc_da(a, 1.0 / zs), 0.0)]     # F = Q(a, 1 / z) = 1 - P(a, 1 / z)


class WeibullMin:
    nshape = 1      # c

    def logpdf(self, z, c):
        inside, zs = _positive(z)
        logz = np.log(zs)
        zc = zs ** c
        l = np.where(inside, np.log(c) + (c - 1.0) * logz - zc, -np.inf)
        return (l, np.where(inside, ((c - 1.0) - c * zc) / zs, 0.0),
                [np.where(inside, 1.0 / c + logz - zc * logz, 0.0)])

    def cdf_shape(self, z, c):
        inside, zs = _positive(z)
        zc = zs ** c
        return [np.where(inside, np.exp(-zc) * zc * np.log(zs), 0.0)]     # F = 1 - exp(-z^c)


class Pareto:
    nshape = 1      # b, on z >= 1

    def logpdf(self, z, b):
        inside, zs = _positive(z, 1.0)
        logz = np.log(zs)
        return (np.where(inside, np.log(b) - (b + 1.0) * logz, -np.inf), np.where(inside, -(b + 1.0) / zs, 0.0),
                [np.where(inside, 1.0 / b - logz, 0.0)])

    def cdf_shape(self, z, b):
        inside, zs = _positive(z, 1.0)
        return [np.where(inside, zs ** -b * np.log(zs), 0.0)]               # F = 1 - z^-b


class GumbelR:
    nshape = 0

    def logpdf(self, z):
        e = np.exp(-z)
        return -z - e, e - 1.0, []

    def cdf_shape(self, z):
        return []


class Rayleigh:
    nshape = 0

    def logpdf(self, z):
        inside, zs = _positive(z)
        return np.where(inside, np.log(zs) - 0.5 * zs * zs, -np.inf), np.where(inside, 1.0 / zs - zs, 0.0), []

    def cdf_shape(self, z):
        return []


FAMILIES = {"norm": Norm(), "t": StudentT(), "gamma": Gamma(), "beta": Beta(), "chi2": Chi2(), "expon": Expon(),
            "laplace": Laplace(), "cauchy": Cauchy(), "logistic": Logistic(), "lognorm": LogNorm(),
            "uniform": Uniform(), "halfnorm": HalfNorm(), "invgamma": InvGamma(), "weibull_min": WeibullMin(),
            "pareto": Pareto(), "gumbel_r": GumbelR(), "rayleigh": Rayleigh(), **FAMILIES_MORE}
NSHAPE = {name: fam.nshape for name, fam in FAMILIES.items()}


# The family's functions called by name, with its shape parameters taken from args one by one: adsrc differentiates
# stats_vjp again (higher order), and follows these calls, not a lookup of an object by a name known only then.

def family_logpdf(dist, z, args):
    if dist == "t":
        return FAMILIES["t"].logpdf(z, args[1])
    if dist == "gamma":
        return FAMILIES["gamma"].logpdf(z, args[1])
    if dist == "beta":
        return FAMILIES["beta"].logpdf(z, args[1], args[2])
    if dist == "chi2":
        return FAMILIES["chi2"].logpdf(z, args[1])
    if dist == "expon":
        return FAMILIES["expon"].logpdf(z)
    if dist == "laplace":
        return FAMILIES["laplace"].logpdf(z)
    if dist == "cauchy":
        return FAMILIES["cauchy"].logpdf(z)
    if dist == "logistic":
        return FAMILIES["logistic"].logpdf(z)
    if dist == "lognorm":
        return FAMILIES["lognorm"].logpdf(z, args[1])
    if dist == "uniform":
        return FAMILIES["uniform"].logpdf(z)
    if dist == "halfnorm":
        return FAMILIES["halfnorm"].logpdf(z)
    if dist == "invgamma":
        return FAMILIES["invgamma"].logpdf(z, args[1])
    if dist == "weibull_min":
        return FAMILIES["weibull_min"].logpdf(z, args[1])
    if dist == "pareto":
        return FAMILIES["pareto"].logpdf(z, args[1])
    if dist == "gumbel_r":
        return FAMILIES["gumbel_r"].logpdf(z)
    if dist == "rayleigh":
        return FAMILIES["rayleigh"].logpdf(z)
    if dist in FAMILIES_MORE:
        return family_logpdf_more(dist, z, args)
    return FAMILIES["norm"].logpdf(z)


def family_cdf_shape(dist, z, args):
    if dist == "t":
        return FAMILIES["t"].cdf_shape(z, args[1])
    if dist == "gamma":
        return FAMILIES["gamma"].cdf_shape(z, args[1])
    if dist == "beta":
        return FAMILIES["beta"].cdf_shape(z, args[1], args[2])
    if dist == "chi2":
        return FAMILIES["chi2"].cdf_shape(z, args[1])
    if dist == "lognorm":
        return FAMILIES["lognorm"].cdf_shape(z, args[1])
    if dist == "invgamma":
        return FAMILIES["invgamma"].cdf_shape(z, args[1])
    if dist == "weibull_min":
        return FAMILIES["weibull_min"].cdf_shape(z, args[1])
    if dist == "pareto":
        return FAMILIES["pareto"].cdf_shape(z, args[1])
    if dist in FAMILIES_MORE:
        return family_cdf_shape_more(dist, z, args)
    return []


@helper
def stats_vjp(g, dist, method, k, ans, args):
    """Cotangent of argument k of dist.method(x, *shape, loc, scale) (args in that order)."""
    n = NSHAPE[dist]
    x, loc, scale = args[0], args[1 + n], args[2 + n]
    z = (np.asarray(x) - loc) / scale
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        l, lz, lshape = family_logpdf(dist, z, args)
        if method in ("logpdf", "pdf"):
            if k == 0:
                d = lz / scale
            elif k <= n:
                d = lshape[k - 1]
            elif k == n + 1:
                d = -lz / scale
            else:
                d = -(z * lz + 1.0) / scale
            if method == "pdf":
                d = d * ans
        else:
            f = np.exp(l)
            if k == 0:
                d = f / scale
            elif k <= n:
                d = family_cdf_shape(dist, z, args)[k - 1]
            elif k == n + 1:
                d = -f / scale
            else:
                d = -z * f / scale
            if method in ("sf", "logsf"):
                d = -d
            if method in ("logcdf", "logsf"):
                d = d * np.exp(-ans)
    return g * d


# -- discrete distributions (differentiable in their real parameters, not in k) ------------------------------------

@helper
def poisson_vjp(g, k, mu, ans, method):
    """logpmf = k log mu - mu - gammaln(k + 1): d/dmu = k / mu - 1."""
    d = np.asarray(k) / mu - 1.0
    return g * (d * ans if method == "pmf" else d)


@helper
def nbinom_vjp(g, k, n, p, ans, method, which):
    """logpmf = gammaln(k + n) - gammaln(n) - gammaln(k + 1) + n log p + k log(1 - p)."""
    k = np.asarray(k)
    if which == 0:
        d = sp.digamma(k + n) - sp.digamma(n) + np.log(p)
    else:
        d = n / p - k / (1.0 - p)
    return g * (d * ans if method == "pmf" else d)


# -- multivariate distributions -------------------------------------------------------------------------------------

@helper
def dirichlet_vjp(g, x, alpha, ans, method, k):
    """logpdf = sum_i (alpha_i - 1) log x_i + gammaln(sum alpha) - sum gammaln(alpha_i), the components on
    x's first axis (with one fewer component than alpha, the last is 1 - sum x). d/dx_i = (alpha_i - 1) / x_i
    (minus the last component's term when it is implied), d/dalpha_i = log x_i + digamma(sum alpha) -
    digamma(alpha_i). x is on the simplex: only its changes along the simplex are meaningful."""
    x = np.asarray(x, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    implied = x.shape[0] == alpha.shape[0] - 1
    full = np.concatenate([x, (1.0 - np.sum(x, axis=0))[None]], axis=0) if implied else x
    a = alpha.reshape(alpha.shape + (1,) * (full.ndim - 1))
    gm = np.asarray(g) * (ans if method == "pdf" else 1.0)
    if k == 0:
        d = (a - 1.0) / full
        if implied:
            d = d[:-1] - d[-1:]
        return gm * d
    d = np.log(full) + sp.digamma(np.sum(alpha)) - sp.digamma(a)
    return np.sum(gm * d, axis=tuple(range(1, full.ndim))) if full.ndim > 1 else gm * d


MVN_SINGULAR = ("adsrc differentiates scipy.stats.multivariate_normal only with allow_singular=False (the default): "
                "a singular covariance has no gradient")


@helper
def mvn_vjp(g, x, mean, cov, ans, method, k, allow_singular=False):
    """logpdf = -(d log 2pi + log det S + r^T S^-1 r) / 2, r = x - mean, over x's last axis (S from a
    scalar, a diagonal given as a vector, or a matrix). d/dx = -S^-1 r, d/dmean = S^-1 r, and
    d/dS = (S^-1 r r^T S^-1 - S^-1) / 2, given to the lower triangle SciPy reads (its off-diagonal
    entries stand for two entries of S), summed over the diagonal for a vector and over everything for
    a scalar."""
    if allow_singular is not False and not (isinstance(allow_singular, np.bool_) and not allow_singular):
        raise TypeError(MVN_SINGULAR)        # (a value known only when the code runs; scipy_stats.py checks others)
    x = np.asarray(x, dtype=float)
    d = x.shape[-1] if x.ndim else 1
    xm = x.reshape(-1, d) if x.ndim else x.reshape(1, 1)
    m = np.zeros(d) if mean is None else np.broadcast_to(np.asarray(mean, dtype=float), (d,))
    c = np.asarray(cov, dtype=float)
    S = c * np.eye(d) if c.ndim == 0 else (np.diag(c) if c.ndim == 1 else c)
    S = np.tril(S) + np.tril(S, -1).T                  # SciPy reads the lower triangle
    Sinv = np.linalg.inv(S)
    r = xm - m
    u = r @ Sinv                                        # rows: (S^-1 r)^T
    gm = (np.asarray(g) * (ans if method == "pdf" else 1.0)).reshape(-1)
    gm = np.broadcast_to(gm, (r.shape[0],))
    if k == 0:
        return (-gm[:, None] * u).reshape(x.shape)
    if k == 1:
        out = np.sum(gm[:, None] * u, axis=0)
        return out.reshape(np.shape(mean)) if np.ndim(mean) else np.sum(out)
    G = 0.5 * (u.T @ (gm[:, None] * u) - np.sum(gm) * Sinv)
    if c.ndim == 0:
        return np.trace(G)
    if c.ndim == 1:
        return np.diagonal(G).copy()
    return np.tril(2.0 * G) - np.diag(np.diagonal(G))
