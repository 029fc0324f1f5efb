"""np.roots, differentiated implicitly: a simple root r of p(z) = sum_k p_k z^(M - k) (M = len(p) - 1, leading
zeros kept) moves with the coefficients as

    dr / dp_k = -r^(M - k) / p'(r)

(from p(r) = 0), in either mode; the derivative is complex when the root is, and the cotangent of real
coefficients is its real part (adsrc's convention for complex values, rules/__init__.py). A multiple root has
p'(r) = 0 and no derivative (infinite or NaN values, as the roots themselves are not differentiable there).
"""

import numpy as np

from ..runtime import helper
from ..runtime_core import is_zero
from . import general


def _roots_parts(p, r):
    """r^(M - k) for every root and coefficient (one row per root), and p'(r)."""
    p = np.ravel(np.asarray(p))
    powers = np.vander(np.asarray(r), len(p)) if np.size(r) else np.zeros((0, len(p)))
    slope = np.polyval(np.polyder(p), r) if len(p) > 1 else np.zeros(np.shape(r))
    return powers, slope


@helper
def roots_vjp(g, p, ans):
    if is_zero(g) or not np.size(ans):
        return np.zeros(np.shape(p))
    powers, slope = _roots_parts(p, ans)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -np.asarray(g) / slope @ powers
    return np.reshape(out, np.shape(p))


@helper
def roots_jvp(g, p, ans):
    if not np.size(ans):
        return np.zeros(np.shape(ans), dtype=np.result_type(ans, g))
    _, slope = _roots_parts(p, ans)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.polyval(np.ravel(g), ans) / slope


def install():
    rule = general(np.roots, "np.roots", "p", p="roots_vjp(g, p, ans)")
    rule.jvps = {"p": "roots_jvp(g, p, ans)"}
