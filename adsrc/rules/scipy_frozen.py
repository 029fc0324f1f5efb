"""Frozen SciPy distributions: `rv = scipy.stats.norm(0.0, 2.0)` made outside the differentiated
function, then `rv.logpdf(x)` inside it. Its parameters are constants of the function, so the rule
differentiates with respect to x only; the frozen object is handed to generated code as a helper of
its own (`frozen_<id>`), which keeps it alive and tells the rule its parameters when the code runs.

A frozen distribution made inside the function from differentiated values (`norm(mu, s).logpdf(x)`)
is not covered: adsrc refuses the call `norm(mu, s)`; write `norm.logpdf(x, mu, s)` instead.
"""

import sys

import numpy as np

from ..runtime import HELPERS, helper
from . import Rule

_UNIVARIATE = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
_RULES = {}       # (id of the frozen object, method) -> Rule


def _frozen_object(fn):
    obj = getattr(fn, "__self__", None)
    if obj is None or "scipy.stats" not in sys.modules or _dist(obj) is None:
        return None
    if not type(obj).__module__.startswith("scipy.stats"):
        return None
    return obj


def _dist(obj):
    """The distribution a frozen object freezes (`dist` for univariate ones, `_dist` for multivariate)."""
    return getattr(obj, "dist", None) or getattr(obj, "_dist", None)


def frozen_rule(fn):
    """The rule for a method of a frozen scipy.stats distribution, or None."""
    obj = _frozen_object(fn)
    if obj is None:
        return None
    method = getattr(fn, "__name__", "")
    key = (id(obj), method)
    if key in _RULES:
        return _RULES[key]
    from . import stats_helpers
    dist = _dist(obj)
    name = getattr(dist, "name", None) or type(dist).__name__.replace("_gen", "")
    univariate = name in stats_helpers.FAMILIES and method in _UNIVARIATE
    discrete = name in ("poisson", "nbinom") and method in ("logpmf", "pmf")
    multivariate = name in ("multivariate_normal", "dirichlet") and method in ("logpdf", "pdf")
    if not (univariate or discrete or multivariate):
        return None
    helper_name = f"frozen_{id(obj)}"
    HELPERS[helper_name] = obj
    title = f"scipy.stats.{name}(...).{method}"
    if discrete:        # a function of the integer k only: no derivative
        rule = Rule(title, "k", {}, kind="elementwise")
    else:
        rule = Rule(title, "x", {"x": f"frozen_vjp(g, x, ans, {helper_name}, {name!r}, {method!r})"},
                    kind="elementwise" if univariate else "general", real_only=True)
    _RULES[key] = rule
    return rule


@helper
def frozen_vjp(g, x, ans, rv, name, method):
    """Cotangent of x in rv.method(x) for a frozen distribution rv (its parameters are constants)."""
    from . import stats_helpers
    if name == "multivariate_normal":
        return stats_helpers.mvn_vjp(g, x, rv.mean, rv.cov, ans, method, 0)
    if name == "dirichlet":
        return stats_helpers.dirichlet_vjp(g, x, rv.alpha, ans, method, 0)
    names = [s.strip() for s in (rv.dist.shapes or "").split(",") if s.strip()] + ["loc", "scale"]
    values = {"loc": 0.0, "scale": 1.0}
    values.update(zip(names, rv.args))
    values.update(rv.kwds)
    return stats_helpers.stats_vjp(g, name, method, 0, ans, (x,) + tuple(values[n] for n in names))


_ = np
