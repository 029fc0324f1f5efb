"""Helpers for the SciPy rules: derivatives of the regularized incomplete gamma and beta functions
with respect to their parameters, logsumexp / softmax, and Bessel functions.

Derivations are in the docstrings. Imported only once the program has imported scipy.special.
"""

import numpy as np
import scipy.special as sp

from ..runtime import HELPERS, helper, is_zero
from .helpers_reductions import expand_to, sum_like

HELPERS["sp"] = sp

_LAGUERRE = np.polynomial.laguerre.laggauss(80)


def _series_sum(log_first, log_ratio, dlog_first, dlog_step, max_terms=20000, tol=1e-17):
    """sum_n t_n and sum_n t_n dlog(t_n) for positive terms t_n = exp(log t_n) given term by term:
    log t_0 = log_first, log t_{n+1} = log t_n + log_ratio(n), dlog t_{n+1} = dlog t_n + dlog_step(n)."""
    logt = np.array(log_first, dtype=float)
    dlog = [np.array(d, dtype=float) for d in dlog_first]
    total = np.zeros(logt.shape)
    dtotal = [np.zeros(logt.shape) for _ in dlog]
    for n in range(max_terms):
        t = np.exp(logt)
        total = total + t
        for i, d in enumerate(dlog):
            dtotal[i] = dtotal[i] + t * d
        if np.all(t <= tol * total):
            break
        logt = logt + log_ratio(n)
        steps = dlog_step(n)
        dlog = [d + s for d, s in zip(dlog, steps)]
    return total, dtotal


# -- the regularized incomplete gamma function P(a, x) = gammainc(a, x) ----------------------------------------

def gammainc_da(a, x):
    """dP/da (a > 0, x >= 0).

    x <= a + 1: the series P = sum_n exp((a+n) log x - x - gammaln(a+n+1)), differentiated term by
    term: dP/da = sum_n t_n (log x - digamma(a+n+1)).
    x > 2 a + 2: from Q = 1 - P = Gamma(a, x) / Gamma(a), with Gamma(a, x) = int_x^inf t^(a-1) e^-t dt:
    dQ/da = x^(a-1) e^-x / Gamma(a) int_0^inf (1 + u/x)^(a-1) (log x + log1p(u/x)) e^-u du
            - digamma(a) Q (Gauss-Laguerre quadrature), which keeps its relative accuracy in the tail.
    """
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    out = np.zeros(a.shape)
    small = x <= 2.0 * a + 2.0
    if np.any(small):
        aa, xx = a[small], x[small]
        with np.errstate(divide="ignore"):
            logx = np.log(xx)
        first = np.where(xx > 0, aa * logx - xx - sp.gammaln(aa + 1.0), -np.inf)
        _, (d,) = _series_sum(first, lambda n: logx - np.log(aa + n + 1.0),
                              [np.where(xx > 0, logx - sp.digamma(aa + 1.0), 0.0)],
                              lambda n: [-1.0 / (aa + n + 1.0)])
        out[small] = d
    if np.any(~small):
        out[~small] = -gammaincc_da_tail(a[~small], x[~small])
    return out


def gammaincc_da_tail(a, x):
    """dQ/da for x > 2 a + 2 (see gammainc_da): (a - 1) / x < 1/2 keeps the integrand's growth below
    e^(u/2), which 80-point Gauss-Laguerre integrates to about 1e-13."""
    u, w = _LAGUERRE
    ratio = u[None, :] / x[:, None]
    integrand = np.exp((a[:, None] - 1.0) * np.log1p(ratio)) * (np.log(x)[:, None] + np.log1p(ratio))
    scale = np.exp((a - 1.0) * np.log(x) - x - sp.gammaln(a))
    return scale * (integrand @ w) - sp.digamma(a) * sp.gammaincc(a, x)


@helper
def gammainc_vjp(g, a, x, k, upper):
    """Cotangents of gammainc(a, x) (upper=False) or gammaincc (upper=True): k = 0 for a, 1 for x."""
    sign = -1.0 if upper else 1.0
    if k == 1:
        return g * sign * np.exp(-x + (a - 1.0) * np.log(x) - sp.gammaln(a))
    return g * sign * gammainc_da(a, x)


# -- the regularized incomplete beta function I_x(a, b) = betainc(a, b, x) ------------------------------------------

def _betainc_partials_series(a, b, x):
    """(dI/da, dI/db) from I = x^a (1-x)^b / (a B(a, b)) sum_n (a+b)_n / (a+1)_n x^n (positive terms)."""
    logx, log1mx = np.log(x), np.log1p(-x)
    first = a * logx + b * log1mx - np.log(a) - sp.betaln(a, b)
    da0 = logx - 1.0 / a - sp.digamma(a) + sp.digamma(a + b)
    db0 = log1mx - sp.digamma(b) + sp.digamma(a + b)
    _, (da, db) = _series_sum(
        first, lambda n: np.log(a + b + n) - np.log(a + 1.0 + n) + logx, [da0, db0],
        lambda n: [1.0 / (a + b + n) - 1.0 / (a + 1.0 + n), 1.0 / (a + b + n)])
    return da, db


def betainc_partials(a, b, x):
    """(dI/da, dI/db) of the regularized incomplete beta function, 0 < x < 1: the series where it
    converges fast (x <= (a+1)/(a+b+2)), else through I_x(a, b) = 1 - I_{1-x}(b, a)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    da, db = np.zeros(a.shape), np.zeros(a.shape)
    inside = (x > 0) & (x < 1)
    direct = inside & (x <= (a + 1.0) / (a + b + 2.0))
    flip = inside & ~direct
    if np.any(direct):
        da[direct], db[direct] = _betainc_partials_series(a[direct], b[direct], x[direct])
    if np.any(flip):
        d_first, d_second = _betainc_partials_series(b[flip], a[flip], 1.0 - x[flip])   # d/db, d/da
        da[flip], db[flip] = -d_second, -d_first
    return da, db


def betainc_dx(a, b, x):
    """dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x) - sp.betaln(a, b))


@helper
def betainc_vjp(g, a, b, x, k):
    """Cotangents of betainc(a, b, x): k = 0 for a, 1 for b, 2 for x."""
    if k == 2:
        return g * betainc_dx(a, b, x)
    return g * betainc_partials(a, b, x)[k]


# -- logsumexp, softmax, log_softmax -----------------------------------------------------------------------------

@helper
def logsumexp_vjp(g, a, b, ans, axis, keepdims, k):
    """lse = log|s|, s = sum b e^a (over axis): d lse / da = b e^a / s = b sign(s) e^(a - lse) and
    d lse / db = sign(s) e^(a - lse). With return_sign=True, g is (g_lse, g_sign): the sign is locally
    constant."""
    if isinstance(ans, tuple):
        lse, sign = ans
        g = g[0]
    else:
        lse, sign = ans, 1.0
    if is_zero(g):
        return 0.0
    a = np.asarray(a)
    full_shape = np.broadcast_shapes(a.shape, np.shape(b)) if b is not None else a.shape
    lse_k = expand_to(lse, np.empty(full_shape), axis, keepdims)
    sign_k = expand_to(sign, np.empty(full_shape), axis, keepdims) if np.ndim(sign) else sign
    g_k = expand_to(g, np.empty(full_shape), axis, keepdims)
    w = g_k * sign_k * np.exp(a - lse_k)
    if k == 0:
        return sum_like(w if b is None else w * b, a)
    return sum_like(w, b)


@helper
def softmax_vjp(g, ans, axis):
    """y = softmax(x): dx = y (g - sum(g y))."""
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


@helper
def log_softmax_vjp(g, ans, axis):
    """y = log_softmax(x): dx = g - softmax(x) sum(g)."""
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)


# -- Bessel functions of the argument z (the order is a constant) ---------------------------------------------------

@helper
def bessel_dz(kind, v, z):
    """d/dz of the Bessel function `kind` of order v at z (recurrences in the order)."""
    if kind == "jv":
        return 0.5 * (sp.jv(v - 1, z) - sp.jv(v + 1, z))
    if kind == "yv":
        return 0.5 * (sp.yv(v - 1, z) - sp.yv(v + 1, z))
    if kind == "yn":
        return 0.5 * (sp.yn(v - 1, z) - sp.yn(v + 1, z))
    if kind == "iv":
        return 0.5 * (sp.iv(v - 1, z) + sp.iv(v + 1, z))
    if kind == "ive":            # ive = iv e^-|z|
        return 0.5 * (sp.ive(v - 1, z) + sp.ive(v + 1, z)) - np.sign(z) * sp.ive(v, z)
    if kind == "kv":
        return -0.5 * (sp.kv(v - 1, z) + sp.kv(v + 1, z))
    if kind == "kve":            # kve = kv e^z
        return -0.5 * (sp.kve(v - 1, z) + sp.kve(v + 1, z)) + sp.kve(v, z)
    raise ValueError(kind)


def _order_message(name):
    return (f"adsrc has no derivative of scipy.special.{name} with respect to its order (only with respect to "
            "the argument): pass the order as a constant")


def no_order_derivative(name, param):
    """The template for the order `param` of scipy.special.name: a refusal where the order is one of the
    differentiated arguments; elsewhere (an order that only reaches the call through values adsrc cannot
    tell apart when transforming, as the residuals a second derivative reads) `at_runtime`, order_cot's
    check when the code runs: no cotangent for an integer order, the same refusal for another."""
    def template(**_):
        raise TypeError(_order_message(name))
    template.at_runtime = f"order_cot(g, {param}, {name!r})"
    return template


@helper
def order_cot(g, order, name):
    """The cotangent of an order adsrc has no derivative for: none (zeros) for an integer order, which is
    not differentiated; a refusal for another."""
    if np.asarray(order).dtype.kind in "iub":
        return np.zeros(np.shape(order)) if np.ndim(order) else 0.0
    raise TypeError(_order_message(name))


@helper
def safe_ratio(x, y):
    """x / y, 0 where x is 0 (xlogy's convention: 0 log 0 = 0)."""
    zero = x == 0
    return np.where(zero, 0.0, x / np.where(zero, 1.0, y))
