"""Cases for tests/test_forward_rules.py beyond the rule case files: complex arguments for the forward
templates that claim them (holomorphic J t, or the real directional derivative of a real output), and
the branches of the templates the real cases do not reach (zeros in cumulative products, ties, stacks,
singular matrices, tuple outputs with two differentiable arguments)."""

import numpy as np

from rule_cases import RuleCase, pos, rand, spd, spread, wellcond

FORWARD_CASES = []
_RNG = np.random.default_rng(2024)


def crand(*shape):
    return _RNG.uniform(-1.0, 1.0, size=shape) + 1j * _RNG.uniform(-1.0, 1.0, size=shape)


def fcase(rules, *args, rtol=1e-5, atol=1e-6, label=None):
    rules = (rules,) if isinstance(rules, str) else rules

    def deco(fn):
        FORWARD_CASES.append(RuleCase(fn, args, rules, rtol, atol, label))
        return fn
    return deco


# -- complex arguments ---------------------------------------------------------------------------------------------

@fcase(("np.prod", "np.cumprod", "ndarray.cumprod()"), crand(3, 4))
def complex_products(z):
    return np.concatenate([np.prod(z, axis=1), np.cumprod(z, axis=0).ravel(), z.cumprod(axis=1)[:, -1]])


@fcase(("np.var", "np.std", "np.linalg.slogdet"), crand(3, 4), crand(3, 3) + 2.0 * np.eye(3))
def complex_to_real(z, m):
    sign, logdet = np.linalg.slogdet(m)
    return np.concatenate([np.var(z, axis=0), np.std(z, axis=1, ddof=1), [logdet, np.real(sign), np.real(-1j * sign)]])


@fcase(("np.linalg.det", "np.linalg.solve", "np.linalg.matrix_power", "np.linalg.eigvals"),
       crand(2, 3, 3) + 2.0 * np.eye(3), crand(3))
def complex_matrices(a, b):
    w = np.linalg.eigvals(a[0])
    return np.concatenate([np.linalg.det(a), np.linalg.solve(a, b).ravel(), np.linalg.matrix_power(a[1], -2).ravel(),
                           w])


@fcase(("np.linalg.eig", "np.real"), np.array([[1.0, 2.0, 0.5], [-1.5, 0.3, 0.2], [0.4, 0.1, -0.7]]))
def eig_projector_real_and_imaginary_parts(a):
    w, v = np.linalg.eig(a)
    p = v[:, :1] @ np.linalg.inv(v)[:1, :]           # no phase: a function of A
    return np.concatenate([np.real(p).ravel(), np.real(-1j * p).ravel(), np.real(w * w), np.real(-1j * w)])


@fcase(("np.interp", "np.polyval", "np.pad", "np.sort", "np.unique"), np.array([0.2, 1.3, 2.6, 3.5]),
       crand(4), crand(3))
def complex_values(x, fp, p):
    return np.concatenate([np.interp(x, np.array([0.0, 1.0, 2.0, 3.0]), fp), np.polyval(p, fp),
                           np.pad(fp, (1, 2), mode="reflect"), np.sort(fp + x),
                           np.unique(np.concatenate([x, x[:2]])) * fp])


# -- branches the rule cases do not reach -------------------------------------------------------------------------

@fcase(("np.cumprod", "np.nancumprod", "np.cumulative_prod"), rand(3, 4))
def cumulative_products_through_zeros(x):
    z = x * np.array([1.0, 0.0, 1.0, 1.0])
    n = x * np.array([1.0, 1.0, 0.0, 1.0]) + np.array([0.0, np.nan, 0.0, 0.0])     # a NaN and a zero
    return np.concatenate([np.cumprod(z, axis=1).ravel(), np.cumprod(z).ravel(), np.nancumprod(n, axis=1).ravel(),
                           np.cumulative_prod(z[0], include_initial=True)])


@fcase(("np.max", "np.min", "np.median", "np.ptp"), np.array([[0.3, 0.9, 0.9, -0.2, 0.1], [0.5, -0.7, 0.1, -0.7, 0.2]]))
def ties_along_an_axis(x):
    return np.concatenate([np.max(x, axis=1), np.min(x, axis=1), np.median(x, axis=1), np.ptp(x, axis=1)])


@fcase(("np.linalg.svd", "np.linalg.svdvals", "np.linalg.pinv", "np.linalg.qr"), rand(4, 3), rand(3, 5))
def factorizations_tall_and_wide(a, b):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    u2, s2, vh2 = np.linalg.svd(b, full_matrices=True)
    q, r = np.linalg.qr(b)
    return np.concatenate([(u * u).ravel(), s, (vh * vh).ravel(), s2, (vh2[:3] * vh2[:3]).ravel(),
                           np.linalg.pinv(b).ravel(), (q * q).ravel(), (r * r).ravel(),
                           np.linalg.svd(a, compute_uv=False)])


@fcase(("np.linalg.lstsq", "np.divmod", "scipy.special.logsumexp"), rand(5, 3), rand(5), pos(4), pos(3, 4))
def tuples_with_two_tangents(a, b, y, w):
    x, res, rank, sv = np.linalg.lstsq(a, b)
    q, rem = np.divmod(y * 3.0, np.array([1.3, 1.7, 1.9, 2.3]) + y * 0.1)
    import scipy.special as sp
    lse, sign = sp.logsumexp(w, axis=1, b=w, return_sign=True)
    return np.concatenate([x, res, sv, q, rem, lse, sign])


@fcase(("np.linalg.det", "np.linalg.eigh", "np.linalg.cholesky"), np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0],
                                                                            [0.3, -0.7, 1.1]]), spd(3))
def singular_and_lower_triangle(a, p):
    w, v = np.linalg.eigh(np.tril(p) + np.triu(p.T, 1), UPLO="U")
    return np.concatenate([[np.linalg.det(a)], w, np.linalg.cholesky(p, upper=True).ravel()])


@fcase(("np.quantile", "np.average", "np.partition"), spread(3, 5), np.array([0.1, 0.55, 0.9]), pos(3, 5))
def order_statistics(x, q, w):
    return np.concatenate([np.quantile(x, q, axis=1).ravel(), np.average(x, axis=1, weights=w),
                           np.partition(x, 2, axis=None)])


_ = (wellcond,)
