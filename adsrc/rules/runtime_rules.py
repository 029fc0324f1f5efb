"""Rules for the runtime helpers generated code calls, so that generated code can be differentiated again.

A gradient is itself Python source (differentiation/), and a higher-order
derivative transforms that source like any user function. Most helpers
are linear in the cotangent or tangent they carry (the other arguments only
give shapes), so each one's reverse rule is a sum or broadcast back to its
argument's shape and its forward rule is the helper applied to tangents.

Loaded after the tables, outside `_loading`: these helpers may return their
argument itself, so their results are not fresh arrays for the alias analysis.
"""

from .. import runtime, tangents
from . import general, nondiff


def _linear(fn, name, signature, **vjps):
    rule = general(fn, name, signature, **vjps)
    rule.jvp_form = "linear"
    return rule


def install():
    h = runtime.HELPERS
    _linear(h["unbroadcast"], "unbroadcast", "c, x, out, /", c="unbroadcast(full(g, out), c, out)")
    _linear(h["full"], "full", "c, like, /", c="unbroadcast(g, c, like)")
    _linear(h["owned"], "owned", "c, x, /", c="unbroadcast(g, c, x)")
    _linear(h["grad_output"], "grad_output", "c, x, borrowed=False, /", c="unbroadcast(g, c, x)")
    _linear(h["add_cot"], "add_cot", "a, b, /", a="sum_cot_back(g, a, ans)", b="sum_cot_back(g, b, ans)")
    _linear(h["add_at"], "add_at", "dx, x, idx, c, /", dx="g", c="gather_cot(g, idx, c)")
    _linear(tangents.tangent_output, "tangent_output", "t, x, /", t="unbroadcast(g, t, x)")
    nondiff(tangents.zeros_tangent, "zeros_tangent")
    nondiff(runtime.HELPERS["zeros_cot"], "zeros_cot")


@runtime.helper
def sum_cot_back(g, a, ans):
    """The cotangent of one term `a` of add_cot(a, b) (0.0 when a was the symbolic zero)."""
    if runtime.is_zero(a):
        return 0.0
    if isinstance(a, (tuple, list, dict)):
        return g
    return runtime.unbroadcast(g, a, ans)


@runtime.helper
def gather_cot(g, idx, c):
    """The cotangent of c in add_at(dx, x, idx, c): g read at idx, summed down to c's shape."""
    part = g[idx]
    return runtime.unbroadcast(part, c, part)
