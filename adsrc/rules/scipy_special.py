"""Derivative rules for scipy.special (loaded once the program has imported scipy.special).

Elementwise templates over `g`, `ans` and the parameters, as in numpy_rules.py; `sp` is
scipy.special in generated code. Orders of Bessel functions and of polygamma are constants (a
derivative with respect to them is refused). Only erf and erfc are complex-ready; the other rules
refuse complex arguments.
"""

import scipy.special as sp

from . import Rule, general, nondiff, register
from . import scipy_helpers  # noqa: F401  (registers the helpers)
from .scipy_helpers import no_order_derivative

SQRT_PI = 1.7724538509055159
LOG_SQRT_2PI = 0.9189385332046727
SQRT_2PI = 2.5066282746310002


def _ew(fn, name, signature, real_only=True, listing=None, **templates):
    """An elementwise rule of scipy.special."""
    return register(fn, Rule(f"scipy.special.{name}", signature, templates, kind="elementwise",
                             real_only=real_only, listing=listing and f"scipy.special.{listing}"))


# -- gamma and beta functions -----------------------------------------------------------------------------------
_ew(sp.gammaln, "gammaln", "x, /", x="g * sp.digamma(x)")
_ew(sp.digamma, "digamma", "x, /", listing="digamma (= psi)", x="g * sp.polygamma(1, x)")
_ew(sp.gamma, "gamma", "x, /", x="g * ans * sp.digamma(x)")
_ew(sp.rgamma, "rgamma", "x, /", x="-g * ans * sp.digamma(x)")         # 1 / gamma(x) (0 at the poles)
nondiff(sp.gammasgn, "gammasgn")                                         # the sign of gamma(x): a constant
_ew(sp.loggamma, "loggamma", "x, /", x="g * sp.digamma(x)")
_ew(sp.beta, "beta", "a, b, /", a="g * ans * (sp.digamma(a) - sp.digamma(a + b))",
    b="g * ans * (sp.digamma(b) - sp.digamma(a + b))")
_ew(sp.betaln, "betaln", "a, b, /", a="g * (sp.digamma(a) - sp.digamma(a + b))",
    b="g * (sp.digamma(b) - sp.digamma(a + b))")
_ew(sp.polygamma, "polygamma", "n, x", n=no_order_derivative("polygamma", "n"), x="g * sp.polygamma(n + 1, x)")
_ew(sp.gammainc, "gammainc", "a, x, /", a="gammainc_vjp(g, a, x, 0, False)", x="gammainc_vjp(g, a, x, 1, False)")
_ew(sp.gammaincc, "gammaincc", "a, x, /", a="gammainc_vjp(g, a, x, 0, True)", x="gammainc_vjp(g, a, x, 1, True)")
_ew(sp.betainc, "betainc", "a, b, x, /", a="betainc_vjp(g, a, b, x, 0)", b="betainc_vjp(g, a, b, x, 1)",
    x="betainc_vjp(g, a, b, x, 2)")

# -- error functions and the normal distribution ------------------------------------------------------------------
_ew(sp.erf, "erf", "z, /", real_only=False, z=f"g * {2.0 / SQRT_PI!r} * np.exp(-z * z)")
_ew(sp.erfc, "erfc", "x, /", real_only=False, x=f"g * {-2.0 / SQRT_PI!r} * np.exp(-x * x)")
_ew(sp.erfinv, "erfinv", "y, /", y=f"g * {SQRT_PI / 2.0!r} * np.exp(ans * ans)")
_ew(sp.erfcx, "erfcx", "x, /", x=f"g * (2.0 * x * ans - {2.0 / SQRT_PI!r})")      # exp(x^2) erfc(x)
_ew(sp.erfcinv, "erfcinv", "y, /", y=f"g * {-SQRT_PI / 2.0!r} * np.exp(ans * ans)")
_ew(sp.ndtr, "ndtr", "x, /", x=f"g * np.exp(-0.5 * x * x - {LOG_SQRT_2PI!r})")
_ew(sp.log_ndtr, "log_ndtr", "x, /", x=f"g * np.exp(-0.5 * x * x - {LOG_SQRT_2PI!r} - ans)")
_ew(sp.ndtri, "ndtri", "y, /", y=f"g * {SQRT_2PI!r} * np.exp(0.5 * ans * ans)")

# -- logistic functions, logarithms and entropies ------------------------------------------------------------------
_ew(sp.expit, "expit", "x, /", x="g * ans * (1.0 - ans)")
_ew(sp.logit, "logit", "x, /", x="g / (x * (1.0 - x))")
_ew(sp.log_expit, "log_expit", "x, /", x="g * (1.0 - np.exp(ans))")
_ew(sp.xlogy, "xlogy", "x, y, /", x="g * np.log(y)", y="g * safe_ratio(x, y)")
_ew(sp.xlog1py, "xlog1py", "x, y, /", x="g * np.log1p(y)", y="g * safe_ratio(x, 1.0 + y)")
_ew(sp.entr, "entr", "x, /", x="-g * (np.log(x) + 1.0)")
_ew(sp.rel_entr, "rel_entr", "x, y, /", x="g * (np.log(x / y) + 1.0)", y="-g * x / y")
_ew(sp.kl_div, "kl_div", "x, y, /", x="g * np.log(x / y)", y="g * (1.0 - x / y)")

# -- Bessel functions (the order is a constant) -----------------------------------------------------------------
_ew(sp.i0, "i0", "x, /", x="g * sp.i1(x)")
_ew(sp.i1, "i1", "x, /", x="g * 0.5 * (sp.i0(x) + sp.iv(2, x))")
_ew(sp.i0e, "i0e", "x, /", x="g * (sp.i1e(x) - np.sign(x) * ans)")
_ew(sp.i1e, "i1e", "x, /", x="g * (0.5 * (sp.i0e(x) + sp.ive(2, x)) - np.sign(x) * ans)")
_ew(sp.j0, "j0", "x, /", x="-g * sp.j1(x)")
_ew(sp.j1, "j1", "x, /", x="g * 0.5 * (sp.j0(x) - sp.jv(2, x))")
_ew(sp.y0, "y0", "x, /", x="-g * sp.y1(x)")
_ew(sp.y1, "y1", "x, /", x="g * 0.5 * (sp.y0(x) - sp.yv(2, x))")
for _fn, _kind in ((sp.jv, "jv"), (sp.yv, "yv"), (sp.iv, "iv"), (sp.ive, "ive"), (sp.kv, "kv"), (sp.kve, "kve"),
                   (sp.yn, "yn")):       # sp.jn is sp.jv
    _ew(_fn, _kind, "v, z, /", listing="jv (= jn)" if _kind == "jv" else None, v=no_order_derivative(_kind, "v"),
        z=f"g * bessel_dz({_kind!r}, v, z)")

# -- reductions -------------------------------------------------------------------------------------------------


def _logsumexp_variant(return_sign=False, **_):
    """logsumexp(..., return_sign=True) returns (lse, sign): a tuple."""
    if return_sign is not True and return_sign is not False:
        raise TypeError("scipy.special.logsumexp's `return_sign` must be a constant (True or False) for adsrc")
    return {"tuple_output": True, "container": True} if return_sign else {}


general(sp.logsumexp, "scipy.special.logsumexp", "a, axis=None, b=None, keepdims=False, return_sign=False",
        real_only=True, variants=_logsumexp_variant, a="logsumexp_vjp(g, a, b, ans, axis, keepdims, 0)",
        b="logsumexp_vjp(g, a, b, ans, axis, keepdims, 1)")
general(sp.softmax, "scipy.special.softmax", "x, axis=None", real_only=True, x="softmax_vjp(g, ans, axis)")
general(sp.log_softmax, "scipy.special.log_softmax", "x, axis=None", real_only=True,
        x="log_softmax_vjp(g, ans, axis)")

from . import scipy_special_more  # noqa: E402,F401  (more functions; it reads _ew above)
from . import scipy_special_complex  # noqa: E402  (zeta, lambertw, wofz)
scipy_special_complex.install()
