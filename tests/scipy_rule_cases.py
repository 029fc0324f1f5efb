"""Functions exercising the SciPy derivative rules, with inputs inside each function's domain, for
tests/test_scipy_rules.py (same conventions as rule_cases.py: every float argument is
differentiated, integer data are module constants, inputs stay away from kinks)."""

import numpy as np
import scipy.integrate as si
import scipy.linalg as sl
import scipy.signal as ss
import scipy.special as sp
import scipy.stats as st
from scipy import stats
from scipy.stats import norm

from rule_cases import RuleCase

_RNG = np.random.default_rng(2024)
SCIPY_CASES = []


def case(rules, *args, rtol=1e-5, atol=1e-6, label=None):
    rules = (rules,) if isinstance(rules, str) else rules

    def deco(fn):
        SCIPY_CASES.append(RuleCase(fn, args, rules, rtol, atol, label))
        return fn
    return deco


def rand(*shape, low=-1.0, high=1.0):
    return _RNG.uniform(low, high, size=shape)


def pos(*shape, low=0.5, high=2.0):
    return _RNG.uniform(low, high, size=shape)


def spd(n):
    m = _RNG.normal(size=(n, n))
    return m @ m.T / n + np.eye(n)


def wellcond(n):
    return _RNG.normal(size=(n, n)) * 0.3 + np.eye(n) * 1.5


# -- scipy.special ---------------------------------------------------------------------------------------------

@case(("scipy.special.gammaln", "scipy.special.digamma", "scipy.special.gamma", "scipy.special.loggamma",
       "scipy.special.polygamma"), pos(2, 3, low=0.3, high=4.0))
def gamma_family(x):
    return sp.gammaln(x) + sp.digamma(x) + sp.gamma(x) * 0.1 + sp.loggamma(x) + sp.polygamma(1, x) + sp.psi(x * 2.0)


@case(("scipy.special.beta", "scipy.special.betaln"), pos(3, low=0.4, high=3.0), pos(2, 1, low=0.4, high=3.0))
def beta_family(a, b):
    return sp.beta(a, b) + sp.betaln(a, b)


@case(("scipy.special.gammainc", "scipy.special.gammaincc"), np.array([0.4, 1.5, 3.0, 6.0]),
      np.array([0.3, 2.5, 1.0, 20.0]))
def incomplete_gamma(a, x):
    return sp.gammainc(a, x) + 3.0 * sp.gammaincc(a, x) + np.log(sp.gammaincc(a, x))


@case("scipy.special.betainc", np.array([0.5, 2.0, 5.0, 1.2]), np.array([0.7, 3.0, 1.5, 8.0]),
      np.array([0.2, 0.5, 0.9, 0.05]))
def incomplete_beta(a, b, x):
    return sp.betainc(a, b, x) + np.log(sp.betainc(b, a, 1.0 - x))


@case(("scipy.special.erf", "scipy.special.erfc", "scipy.special.erfinv", "scipy.special.erfcinv",
       "scipy.special.ndtr", "scipy.special.log_ndtr", "scipy.special.ndtri", "scipy.special.erfcx"),
      rand(2, 3, low=-0.9, high=0.9))
def error_functions(x):
    return (sp.erf(x) + sp.erfc(x) * 2.0 + sp.erfinv(x) + sp.erfcinv(x + 1.0) + sp.ndtr(3.0 * x)
            + sp.log_ndtr(4.0 * x - 2.0) + sp.ndtri(0.45 * x + 0.5) + sp.erfcx(2.0 * x))


@case(("scipy.special.expit", "scipy.special.logit", "scipy.special.log_expit"), rand(5, low=-3.0, high=3.0))
def logistic_functions(x):
    return sp.expit(x) + sp.logit(sp.expit(0.5 * x)) * 0.5 + sp.log_expit(x) + sp.logit(0.3 + 0.1 * x)


@case(("scipy.special.xlogy", "scipy.special.xlog1py", "scipy.special.entr", "scipy.special.rel_entr",
       "scipy.special.kl_div"), pos(4), pos(4))
def logs_and_entropies(x, y):
    z = np.array([0.0, 1.0, 0.0, 1.0])          # xlogy(0, y) = 0: no gradient in y there
    return (sp.xlogy(x, y) + sp.xlog1py(x, y) + sp.xlogy(z * x, y) + sp.entr(x) + sp.rel_entr(x, y)
            + sp.kl_div(x, y))


@case(("scipy.special.i0", "scipy.special.i1", "scipy.special.i0e", "scipy.special.i1e", "scipy.special.iv",
       "scipy.special.ive", "scipy.special.kv", "scipy.special.kve"), pos(4, low=0.3, high=3.0))
def modified_bessel(x):
    return (sp.i0(x) + sp.i1(x) + sp.i0e(-x) + sp.i1e(x) + sp.iv(1.5, x) + sp.ive(2, -x) + sp.kv(0.5, x)
            + sp.kve(1, x))


@case(("scipy.special.jv", "scipy.special.yv", "scipy.special.yn"), pos(4, low=0.5, high=6.0))
def bessel(x):
    return sp.jn(2, x) + sp.jv(0.5, x) + sp.yn(1, x) + sp.yv(2.5, x)


@case(("scipy.special.j0", "scipy.special.j1", "scipy.special.y0", "scipy.special.y1", "scipy.special.rgamma"),
      pos(4, low=0.5, high=6.0))
def bessel_of_order_zero_and_one_and_reciprocal_gamma(x):
    return sp.j0(x) + sp.j1(x) * x + sp.y0(x) + sp.y1(x) + sp.rgamma(x) * sp.gammasgn(x - 2.0)


@case(("scipy.special.expm1", "scipy.special.log1p", "scipy.special.cbrt", "scipy.special.exp10",
       "scipy.special.exp2", "scipy.special.exprel", "scipy.special.dawsn"), rand(2, 3, low=-0.9, high=0.9))
def scipys_spellings_of_elementary_functions(x):
    return (sp.expm1(x) + sp.log1p(x * x) + sp.cbrt(x + 2.0) + sp.exp10(x) * 0.1 + sp.exp2(x) + sp.exprel(x)
            + sp.exprel(x * 1e-6) * 1e3 + sp.dawsn(3.0 * x))


@case(("scipy.special.huber", "scipy.special.pseudo_huber"), pos(4, low=0.5, high=1.5),
      np.array([-2.0, -0.3, 0.2, 1.7]))
def robust_losses(delta, r):
    return sp.huber(delta, r) + sp.pseudo_huber(delta, r) * 2.0 + sp.huber(1.0, r * 0.1)


@case(("scipy.special.boxcox", "scipy.special.boxcox1p", "scipy.special.inv_boxcox"), pos(4, low=0.5, high=3.0),
      np.array([0.5, -0.3, 1e-7, 1.4]))
def box_cox_transforms(x, lmbda):
    # (a parameter of 1e-7: the series near 0)
    return sp.boxcox(x, lmbda) + sp.boxcox1p(x, lmbda) + sp.inv_boxcox(0.4 * x, lmbda) + sp.boxcox(x, 0.0)


@case(("scipy.special.binom", "scipy.special.poch"), pos(4, low=2.5, high=6.0), pos(4, low=0.3, high=2.0))
def binomials_and_pochhammer(n, k):
    return sp.binom(n, k) + sp.poch(k, n * 0.5) + sp.binom(n, 2.0)


@case(("scipy.special.k0", "scipy.special.k1", "scipy.special.k0e", "scipy.special.k1e"), pos(4, low=0.3, high=3.0))
def bessel_of_the_second_kind_orders_zero_and_one(x):
    return sp.k0(x) + sp.k1(x) + sp.k0e(x) + sp.k1e(x) * x


@case(("scipy.special.spence", "scipy.special.ellipk", "scipy.special.ellipe"),
      np.array([0.2, 0.5, 0.999999999, 0.8]))
def spence_and_complete_elliptic_integrals(m):
    # (spence at 1 - 1e-9 and the elliptic integrals at 1e-8 take the series)
    return sp.spence(m) + sp.spence(m * 2.0) + sp.ellipk(m * 0.9) + sp.ellipe(m * 0.9) + sp.ellipk(m * 1e-8) * 1e3 + \
        sp.ellipe(m * 1e-8) * 1e3


@case(("scipy.special.owens_t", "scipy.special.stdtr"), rand(4, low=-2.0, high=2.0), pos(4, low=0.5, high=5.0))
def owens_t_and_students_t_distribution_function(h, a):
    return sp.owens_t(h, a) + sp.owens_t(h, -a * 0.3) + sp.stdtr(a + 1.0, h)


@case("scipy.special.logsumexp", rand(3, 4) * 3.0, pos(4))
def logsumexp_variants(a, b):
    lse, sign = sp.logsumexp(a, axis=1, b=b * np.array([1.0, -0.2, 1.0, 1.0]), return_sign=True)
    return np.concatenate([sp.logsumexp(a, axis=0) * 2.0, sp.logsumexp(a, axis=1, keepdims=True)[:, 0], lse * sign,
                           [sp.logsumexp(a), sp.logsumexp(a, b=b), sp.logsumexp(a, axis=(0, 1), b=b)]])


@case(("scipy.special.softmax", "scipy.special.log_softmax"), rand(3, 4) * 2.0)
def softmax_family(x):
    return sp.softmax(x, axis=1) * np.arange(12.0).reshape(3, 4) + sp.log_softmax(x, axis=0) + sp.softmax(x) * 5.0


# -- scipy.stats, continuous: x, shape parameters, loc, scale ---------------------------------------------------------

@case(tuple(f"scipy.stats.norm.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")), rand(4) * 2.0,
      0.3, 1.4)
def norm_methods(x, loc, scale):
    return (np.stack([norm.logpdf(x, loc, scale), norm.pdf(x, loc=loc, scale=scale), st.norm.cdf(x, loc, scale),
                      stats.norm.logcdf(x, loc, scale), norm.sf(x, loc, scale), norm.logsf(x, loc, scale)])
            + norm.logpdf(x) + norm.cdf(x, loc))


@case(tuple(f"scipy.stats.t.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")), rand(4) * 3.0, 3.5,
      0.2, 1.3)
def t_methods(x, df, loc, scale):
    return np.stack([st.t.logpdf(x, df, loc, scale), st.t.pdf(x, df, loc, scale), st.t.cdf(x, df, loc, scale),
                     st.t.logcdf(x, df, loc, scale), st.t.sf(x, df, loc, scale), st.t.logsf(x, df, loc, scale)])


@case(tuple(f"scipy.stats.gamma.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      pos(4, low=1.0, high=6.0), 2.5, 0.3, 1.2)
def gamma_methods(x, a, loc, scale):
    return np.stack([st.gamma.logpdf(x, a, loc, scale), st.gamma.pdf(x, a, loc, scale), st.gamma.cdf(x, a, loc, scale),
                     st.gamma.logcdf(x, a, loc, scale), st.gamma.sf(x, a, loc, scale), st.gamma.logsf(x, a, loc, scale)])


@case(tuple(f"scipy.stats.chi2.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      pos(4, low=1.0, high=6.0), 3.5, 0.3, 1.2)
def chi2_methods(x, df, loc, scale):
    return np.stack([st.chi2.logpdf(x, df, loc, scale), st.chi2.pdf(x, df, loc, scale),
                     st.chi2.cdf(x, df, loc, scale), st.chi2.logcdf(x, df, loc, scale), st.chi2.sf(x, df, loc, scale),
                     st.chi2.logsf(x, df, loc, scale)])


@case(tuple(f"scipy.stats.beta.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      np.array([0.25, 0.4, 0.55, 0.8]), 2.2, 1.6, 0.05, 1.1)
def beta_methods(x, a, b, loc, scale):
    return np.stack([st.beta.logpdf(x, a, b, loc, scale), st.beta.pdf(x, a, b, loc, scale), st.beta.cdf(x, a, b, loc, scale),
                     st.beta.logcdf(x, a, b, loc, scale), st.beta.sf(x, a, b, loc, scale), st.beta.logsf(x, a, b, loc, scale)])


@case(tuple(f"scipy.stats.{d}.{m}" for d in ("expon", "laplace", "cauchy", "logistic")
            for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      np.array([0.7, 1.5, 2.6, 3.3]), 0.2, 1.3)
def location_scale_methods(x, loc, scale):
    return np.concatenate([
        st.expon.logpdf(x, loc, scale),
        st.expon.pdf(x, loc, scale),
        st.expon.cdf(x, loc, scale),
        st.expon.logcdf(x, loc, scale),
        st.expon.sf(x, loc, scale),
        st.expon.logsf(x, loc, scale),
        st.laplace.logpdf(x, loc, scale),
        st.laplace.pdf(x, loc, scale),
        st.laplace.cdf(x, loc, scale),
        st.laplace.logcdf(x, loc, scale),
        st.laplace.sf(x, loc, scale),
        st.laplace.logsf(x, loc, scale),
        st.cauchy.logpdf(x, loc, scale),
        st.cauchy.pdf(x, loc, scale),
        st.cauchy.cdf(x, loc, scale),
        st.cauchy.logcdf(x, loc, scale),
        st.cauchy.sf(x, loc, scale),
        st.cauchy.logsf(x, loc, scale),
        st.logistic.logpdf(x, loc, scale),
        st.logistic.pdf(x, loc, scale),
        st.logistic.cdf(x, loc, scale),
        st.logistic.logcdf(x, loc, scale),
        st.logistic.sf(x, loc, scale),
        st.logistic.logsf(x, loc, scale),
        st.laplace.logpdf(-x, loc, scale), st.laplace.cdf(-x, loc, scale), st.laplace.logsf(-x, loc, scale)])


_METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


def _all_methods(dist, x, *params):
    return np.concatenate([dist.logpdf(x, *params), dist.pdf(x, *params), dist.cdf(x, *params),
                           dist.logcdf(x, *params), dist.sf(x, *params), dist.logsf(x, *params)])


@case(tuple(f"scipy.stats.{d}.{m}" for d in ("lognorm", "invgamma", "weibull_min") for m in _METHODS),
      np.array([0.7, 1.5, 2.6, 3.3]), 0.8, 1.7, 0.2, 1.3)
def positive_families_with_a_shape(x, s, a, loc, scale):
    return np.concatenate([_all_methods(st.lognorm, x, s, loc, scale), _all_methods(st.invgamma, x, a, loc, scale),
                           _all_methods(st.weibull_min, x, a, loc, scale)])


@case(tuple(f"scipy.stats.pareto.{m}" for m in _METHODS), np.array([1.7, 2.5, 3.6, 5.3]), 2.2, 0.2, 1.3)
def pareto_methods(x, b, loc, scale):
    return _all_methods(st.pareto, x, b, loc, scale)


@case(tuple(f"scipy.stats.{d}.{m}" for d in ("uniform", "halfnorm", "gumbel_r", "rayleigh") for m in _METHODS),
      np.array([0.7, 0.9, 1.1, 1.3]), 0.2, 1.3)
def families_without_a_shape(x, loc, scale):
    return np.concatenate([_all_methods(st.uniform, x, loc, scale), _all_methods(st.halfnorm, x, loc, scale),
                           _all_methods(st.gumbel_r, x, loc, scale), _all_methods(st.rayleigh, x, loc, scale)])


@case(tuple(f"scipy.stats.{d}.{m}" for d in ("lognorm", "weibull_min", "pareto")
            for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      np.array([1.4, 2.1, 2.9, 3.6]), 0.8, 1.7, 0.15, 1.2)
def one_shape_positive_families(x, s, c, loc, scale):
    return np.concatenate([getattr(st.lognorm, m)(x, s, loc, scale) for m in _METHODS] +
                          [getattr(st.weibull_min, m)(x, c, loc, scale) for m in _METHODS] +
                          [getattr(st.pareto, m)(x, c, loc, scale) for m in _METHODS])


@case(tuple(f"scipy.stats.halfnorm.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      np.array([0.7, 1.5, 2.6, 3.3]), 0.2, 1.3)
def halfnorm_methods(x, loc, scale):
    return np.concatenate([getattr(st.halfnorm, m)(x, loc, scale) for m in _METHODS])


# -- scipy.stats, discrete and multivariate --------------------------------------------------------------------------

K = np.array([0, 2, 3, 7])


@case(("scipy.stats.poisson.logpmf", "scipy.stats.poisson.pmf", "scipy.stats.nbinom.logpmf",
       "scipy.stats.nbinom.pmf"), pos(4, low=0.5, high=4.0), 2.7, 0.35)
def discrete_pmfs(mu, n, p):
    return (st.poisson.logpmf(K, mu) + st.poisson.pmf(K, mu) * 3.0 + st.nbinom.logpmf(K, n, p)
            + st.nbinom.pmf(K, n, p, loc=0) * 4.0 + st.poisson.logpmf(K + 1, mu, loc=1))


@case(("scipy.stats.dirichlet.logpdf", "scipy.stats.dirichlet.pdf"), rand(3, 2), pos(3, low=0.8, high=3.0))
def dirichlet_on_the_simplex(u, alpha):
    x = np.exp(u) / np.sum(np.exp(u), axis=0)          # columns on the simplex
    return np.concatenate([st.dirichlet.logpdf(x, alpha), [st.dirichlet.pdf(x[:, 0], alpha),
                           st.dirichlet.logpdf(x[:2, 1], alpha), st.dirichlet.pdf(x[:, 1], alpha)]])


@case(("scipy.stats.multivariate_normal.logpdf", "scipy.stats.multivariate_normal.pdf"), rand(4, 3), rand(3),
      spd(3))
def multivariate_normal_full(x, mean, cov):
    return np.concatenate([st.multivariate_normal.logpdf(x, mean, cov),
                           st.multivariate_normal.pdf(x[:2], mean=mean, cov=cov)])


@case(("scipy.stats.multivariate_normal.logpdf",), rand(4, 3), pos(3), 1.7)
def multivariate_normal_diagonal_and_scalar(x, var, s):
    return st.multivariate_normal.logpdf(x, np.zeros(3), var) + st.multivariate_normal.logpdf(x, np.zeros(3), cov=s)


# -- scipy.linalg -------------------------------------------------------------------------------------------------

@case("scipy.linalg.solve_triangular", wellcond(3), rand(3, 2), rand(3))
def triangular_solves(a, b, c):
    return (sl.solve_triangular(a, b, lower=True) + sl.solve_triangular(a, b, trans=1)
            + sl.solve_triangular(a, b, lower=True, unit_diagonal=True, trans="T")
            + sl.solve_triangular(a, c)[:, None])


@case(("scipy.linalg.cho_factor", "scipy.linalg.cho_solve", "scipy.linalg.cholesky"), spd(3), rand(3, 2))
def cholesky_factor_and_solve(a, b):
    c, low = sl.cho_factor(a, lower=True)
    u = sl.cho_factor(a)
    return (sl.cho_solve((c, low), b) + sl.cho_solve(u, b[:, 0])[:, None] + np.tril(c)[:, :2]
            + np.triu(u[0])[:, 1:] + sl.cholesky(a)[:, :2] + sl.cholesky(a, lower=True)[:, 1:])


@case(("scipy.linalg.lu_factor", "scipy.linalg.lu_solve"), rand(3, 3) + np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 2.0],
                                                                               [2.0, 0.0, 0.0]]), rand(3))
def lu_factor_and_solve(a, b):
    lu, piv = sl.lu_factor(a)
    return sl.lu_solve((lu, piv), b) + sl.lu_solve((lu, piv), b, trans=1) + np.sum(lu * lu, axis=0)


@case(("scipy.linalg.solve", "scipy.linalg.inv", "scipy.linalg.det"), wellcond(3), rand(3, 2), spd(3))
def general_solves(a, b, p):
    return (sl.solve(a, b) + sl.solve(a, b, transposed=True) + sl.solve(p, b, assume_a="pos")
            + sl.solve(p, b, assume_a="sym", lower=True) + sl.inv(a)[:, :2] + sl.det(a))


@case(("scipy.linalg.expm", "scipy.linalg.sqrtm"), rand(3, 3) * 0.8, spd(3))
def matrix_functions(a, p):
    return sl.expm(a) + sl.sqrtm(p) * 2.0


@case("scipy.linalg.solve_sylvester", wellcond(3), wellcond(2).T + np.eye(2), rand(3, 2))
def sylvester(a, b, q):
    # A X + X B = Q with A (3 x 3) and B (2 x 2) of different sizes
    return sl.solve_sylvester(a, b, q)


def _solves_stacks(fn, *args):
    """Whether this SciPy's fn takes a stack of problems (SciPy 1.15, the last for Python 3.10, does not)."""
    try:
        fn(*args)
    except ValueError:
        return False
    return True


_SYLVESTER_STACK = (np.stack([wellcond(3)] * 2), np.stack([wellcond(2).T + np.eye(2)] * 2), rand(2, 3, 2))
if _solves_stacks(sl.solve_sylvester, *_SYLVESTER_STACK):
    @case("scipy.linalg.solve_sylvester", *_SYLVESTER_STACK)
    def sylvester_stacked(a, b, q):
        # a stack of two problems, taken one by one by the rules
        stacked = sl.solve_sylvester(a, b, q)
        return stacked[1] * 0.5 + stacked[0]


BANDED = np.array([[0.0, 0.4, -0.3, 0.2, 0.1],       # u = 1: the superdiagonal (its first entry unused)
                   [2.0, 2.5, 1.8, 2.2, 3.0],        # the diagonal
                   [0.3, -0.2, 0.5, 0.1, 0.0],       # l = 2: two subdiagonals (their last entries unused)
                   [0.1, 0.2, -0.1, 0.0, 0.0]])


@case("scipy.linalg.solve_banded", BANDED + rand(4, 5) * 0.1, rand(5), rand(5, 2))
def banded(ab, b, bm):
    return sl.solve_banded((2, 1), ab, b) + sl.solve_banded((2, 1), ab, bm)[:, 1] * 2.0


@case(("scipy.linalg.svd", "scipy.linalg.svdvals"), rand(3, 2) + np.array([[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))
def singular_values_and_vectors(a):
    # refused: adsrc read SciPy's own svd (a decorator's wrapper) and gave up; U, s, Vh as np.linalg.svd's
    u, s, vh = sl.svd(a, full_matrices=False)
    return np.concatenate([s ** 2, sl.svd(a, compute_uv=False), sl.svdvals(a) * 2.0, (u * s) @ vh[:, 0],
                           np.abs(u[:, 0]) ** 2])


@case(("scipy.linalg.eigh", "scipy.linalg.eigvalsh"), spd(3) + np.diag([0.0, 1.0, 2.5]))
def symmetric_eigenproblems(a):
    w, v = sl.eigh(a)
    wu = sl.eigh(a, lower=False, eigvals_only=True)
    return np.concatenate([w, wu * 2.0, sl.eigvalsh(a), sl.eigvalsh(a, lower=False), np.abs(v[0]) ** 2])


# -- scipy.signal and scipy.integrate -------------------------------------------------------------------------------

@case(("scipy.signal.convolve", "scipy.signal.correlate"), rand(6), rand(3))
def signal_1d(a, v):
    return np.concatenate([ss.convolve(a, v), ss.convolve(a, v, mode="same"), ss.convolve(v, a, mode="valid"),
                           ss.correlate(a, v), ss.correlate(a, v, mode="same"), ss.correlate(v, a, mode="valid"),
                           ss.convolve(a[:4], v[:2], mode="same", method="fft")])


@case(("scipy.signal.convolve", "scipy.signal.correlate"), rand(4, 5), rand(2, 3))
def signal_2d(a, v):
    return (np.sum(ss.convolve(a, v) ** 2) + ss.convolve(a, v, mode="same") + np.sum(ss.correlate(a, v, mode="valid"))
            + ss.correlate(a, v, mode="same") * 2.0)


@case("scipy.integrate.trapezoid", rand(3, 5), np.cumsum(pos(5)), 0.4)
def trapezoid_rules(y, x, dx):
    return si.trapezoid(y, x) + si.trapezoid(y, dx=dx, axis=0)[:3] + si.trapezoid(y)


def _odeint_field(y, s, k):
    return -k * y + 0.3 * np.sin(s) * y[::-1]


@case("scipy.integrate.odeint", np.array([1.0, 0.5]), np.array([0.1, 0.4, 1.0]), pos(2))
def odeint_rule(y0, t, k):
    return si.odeint(_odeint_field, y0, t, args=(k,), rtol=1e-10, atol=1e-10)


def _ivp_field(s, y, k):
    return -k * y + 0.3 * np.sin(s) * y[::-1]


@case("scipy.integrate.solve_ivp", np.array([1.0, 0.5]), np.array([0.2, 0.5, 1.0]), pos(2))
def solve_ivp_rule(y0, t_eval, k):
    return si.solve_ivp(_ivp_field, (0.1, 1.5), y0, t_eval=t_eval, args=(k,), rtol=1e-10, atol=1e-10).y


def _quad_integrand(s, k, c):
    return np.sum(np.sin(k * s)) * c + s * s


@case("scipy.integrate.quad", 0.2, 1.4, pos(2), 0.7)
def quad_rule(a, b, k, c):
    value, err = si.quad(_quad_integrand, a, b, args=(k, c))
    return value


# -- added with tests/test_refusals_lifted.py (fixed inputs: the draws above stay as they were) ------------------

@case(("scipy.special.zeta", "scipy.special.lambertw", "scipy.special.wofz"), np.array([1.7, 2.5, 4.0]),
      np.array([0.4, 1.5, 3.0]))
def zeta_lambertw_wofz(x, q):
    w = sp.wofz(q + 0.5j * x)
    return sp.zeta(x, q) + sp.zeta(x + 1.0) + np.real(sp.lambertw(q)) * 2.0 + np.real(w) + np.imag(w) ** 2


@case(tuple(f"scipy.stats.{d}.{m}" for d in ("vonmises", "skewnorm") for m in ("logpdf", "pdf", "cdf", "logcdf",
                                                                              "sf", "logsf")),
      np.array([-1.2, 0.3, 1.1]), 1.6, 0.2, 1.3)
def vonmises_skewnorm_methods(x, shape, loc, scale):
    return np.stack([st.vonmises.logpdf(x, shape, loc, scale), st.vonmises.pdf(x, shape, loc, scale),
                     st.vonmises.cdf(x, shape, loc, scale), st.vonmises.logcdf(x, shape, loc, scale),
                     st.vonmises.sf(x, shape, loc, scale), st.vonmises.logsf(x, shape, loc, scale)] +
                    [st.skewnorm.logpdf(x, shape, loc, scale), st.skewnorm.pdf(x, shape, loc, scale),
                     st.skewnorm.cdf(x, shape, loc, scale), st.skewnorm.logcdf(x, shape, loc, scale),
                     st.skewnorm.sf(x, shape, loc, scale), st.skewnorm.logsf(x, shape, loc, scale)])


@case(tuple(f"scipy.stats.truncnorm.{m}" for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
      np.array([-0.7, 0.2, 1.1]), -1.1, 1.8, 0.1, 1.2)
def truncnorm_methods(x, a, b, loc, scale):
    return np.stack([st.truncnorm.logpdf(x, a, b, loc, scale), st.truncnorm.pdf(x, a, b, loc, scale),
                     st.truncnorm.cdf(x, a, b, loc, scale), st.truncnorm.logcdf(x, a, b, loc, scale),
                     st.truncnorm.sf(x, a, b, loc, scale), st.truncnorm.logsf(x, a, b, loc, scale)])


@case(("scipy.linalg.logm", "scipy.linalg.expm_frechet", "scipy.linalg.schur"),
      np.array([[2.0, 0.3, -0.1], [0.2, 1.5, 0.4], [0.25, -0.3, 3.1]]),        # (dense: see schur_vjp)
      np.array([[0.5, -0.2, 0.1], [0.3, 0.4, 0.0], [-0.1, 0.2, 0.6]]))
def logm_expm_frechet_schur(a, e):
    t, z = sl.schur(a)
    return sl.logm(a) + sl.expm_frechet(a, e, compute_expm=False) + sl.expm_frechet(a, e)[0] + t + z * z
