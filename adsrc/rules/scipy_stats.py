"""Derivative rules for scipy.stats distributions (loaded once the program has imported scipy.stats).

Each rule is for a bound method such as scipy.stats.norm.logpdf (bound methods compare equal when
they bind the same function to the same object, so `from scipy.stats import norm; norm.logpdf`
finds it). Continuous distributions: logpdf, pdf, cdf, logcdf, sf and logsf, differentiable in x,
the shape parameters, loc and scale (stats_helpers.py). Discrete ones: logpmf and pmf in their real
parameters. dirichlet and multivariate_normal: logpdf and pdf. None of them is complex-ready.
"""

import numpy as np
import scipy.special as sp
import scipy.stats as st

from . import NOT_STATIC, Rule, by_source, general, register
from . import stats_helpers  # noqa: F401  (registers the helpers)
from .stats_helpers import MVN_SINGULAR
from .stats_families_more import CONTINUOUS_MORE

CONTINUOUS = {"norm": (), "t": ("df",), "gamma": ("a",), "beta": ("a", "b"), "chi2": ("df",), "expon": (),
              "laplace": (), "cauchy": (), "logistic": (), "lognorm": ("s",), "uniform": (), "halfnorm": (),
              "invgamma": ("a",), "weibull_min": ("c",), "pareto": ("b",), "gumbel_r": (), "rayleigh": (),
              **CONTINUOUS_MORE}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")

for _dist, _shape in CONTINUOUS.items():
    _params = ("x",) + _shape + ("loc", "scale")
    _sig = ", ".join(("x",) + _shape) + ", loc=0.0, scale=1.0"
    _args = "(" + ", ".join(_params) + ",)"
    for _method in METHODS:
        register(getattr(getattr(st, _dist), _method), Rule(
            f"scipy.stats.{_dist}.{_method}", _sig,
            {p: f"stats_vjp(g, {_dist!r}, {_method!r}, {k}, ans, {_args})" for k, p in enumerate(_params)},
            kind="elementwise", real_only=True))

# -- discrete: k (and loc) are data ---------------------------------------------------------------------------------
for _method in ("logpmf", "pmf"):
    register(getattr(st.poisson, _method), Rule(
        f"scipy.stats.poisson.{_method}", "k, mu, loc=0", {"mu": f"poisson_vjp(g, k - loc, mu, ans, {_method!r})"},
        kind="elementwise", real_only=True))
    register(getattr(st.nbinom, _method), Rule(
        f"scipy.stats.nbinom.{_method}", "k, n, p, loc=0",
        {"n": f"nbinom_vjp(g, k - loc, n, p, ans, {_method!r}, 0)",
         "p": f"nbinom_vjp(g, k - loc, n, p, ans, {_method!r}, 1)"}, kind="elementwise", real_only=True))

# -- multivariate -------------------------------------------------------------------------------------------------


def _mvn_check(allow_singular=False, **_):
    if allow_singular is not False and allow_singular is not NOT_STATIC:     # (unknown here: mvn_vjp checks it)
        raise TypeError(MVN_SINGULAR)


for _method in ("logpdf", "pdf"):
    general(getattr(st.dirichlet, _method), f"scipy.stats.dirichlet.{_method}", "x, alpha", real_only=True,
            x=f"dirichlet_vjp(g, x, alpha, ans, {_method!r}, 0)", alpha=f"dirichlet_vjp(g, x, alpha, ans, {_method!r}, 1)")
    general(getattr(st.multivariate_normal, _method), f"scipy.stats.multivariate_normal.{_method}",
            "x, mean=None, cov=1, allow_singular=False", real_only=True, check=_mvn_check,
            **{p: f"mvn_vjp(g, x, mean, cov, ans, {_method!r}, {k}, allow_singular)"
               for k, p in enumerate(("x", "mean", "cov"))})

# -- written in plain NumPy/SciPy that adsrc differentiates (rules/by_source.py) ------------------------------------


def norm_ppf(q, loc=0.0, scale=1.0):
    return loc + scale * sp.ndtri(q)


def norm_isf(q, loc=0.0, scale=1.0):
    return loc - scale * sp.ndtri(q)


def poisson_cdf(k, mu, loc=0):
    """P(K <= k) = Q(floor(k) + 1, mu), the regularized upper incomplete gamma function (0 below 0)."""
    m = np.floor(np.asarray(k) - loc)
    return np.where(m < 0, 0.0, sp.gammaincc(np.maximum(m, 0.0) + 1.0, mu))


def poisson_sf(k, mu, loc=0):
    return 1.0 - poisson_cdf(k, mu, loc)


def mvn_entropy(mean=None, cov=1):
    """0.5 log det(2 pi e cov)."""
    c = np.atleast_2d(np.asarray(cov, dtype=float))
    return 0.5 * (c.shape[0] * (1.0 + np.log(2.0 * np.pi)) + np.linalg.slogdet(c)[1])


def binom_logpmf(k, n, p, loc=0):
    m = k - loc
    return sp.gammaln(n + 1.0) - sp.gammaln(m + 1.0) - sp.gammaln(n - m + 1.0) + sp.xlogy(m, p) + \
        sp.xlog1py(n - m, -p)


def binom_pmf(k, n, p, loc=0):
    return np.exp(binom_logpmf(k, n, p, loc))


def bernoulli_logpmf(k, p, loc=0):
    return sp.xlogy(k - loc, p) + sp.xlog1py(1.0 - (k - loc), -p)


def bernoulli_pmf(k, p, loc=0):
    return np.exp(bernoulli_logpmf(k, p, loc))


def geom_logpmf(k, p, loc=0):
    return sp.xlog1py(k - loc - 1.0, -p) + np.log(p)


def geom_pmf(k, p, loc=0):
    return np.exp(geom_logpmf(k, p, loc))


by_source.IMPLEMENTATIONS.update({st.binom.logpmf: binom_logpmf, st.binom.pmf: binom_pmf,
                                  st.bernoulli.logpmf: bernoulli_logpmf, st.bernoulli.pmf: bernoulli_pmf,
                                  st.geom.logpmf: geom_logpmf, st.geom.pmf: geom_pmf})
by_source.IMPLEMENTATIONS.update({st.norm.ppf: norm_ppf, st.norm.isf: norm_isf, st.poisson.cdf: poisson_cdf,
                                  st.poisson.sf: poisson_sf, st.multivariate_normal.entropy: mvn_entropy})

_ = NOT_STATIC
