"""Rules for the runtime helpers generated code calls, so that generated code can be differentiated again.

A gradient is itself Python source (differentiation/), and a higher-order
derivative transforms that source like any user function. Most helpers
are linear in the cotangent or tangent they carry (the other arguments only
give shapes), so each one's reverse rule is a sum or broadcast back to its
argument's shape and its forward rule is the helper applied to tangents.

Loaded after the tables, outside `_loading`: these helpers may return their
argument itself, so their results are not fresh arrays for the alias analysis.
"""

import numpy as np

from .. import runtime, tangents
from . import general, nondiff


def _linear(fn, name, signature, **vjps):
    rule = general(fn, name, signature, **vjps)
    rule.jvp_form = "linear"
    return rule


def install():
    h = runtime.HELPERS
    _linear(h["unbroadcast"], "unbroadcast", "c, x, out, /", c="unbroadcast_vjp(g, c, x, out)")
    _linear(h["full"], "full", "c, like, /", c="unbroadcast(g, c, like)")
    _linear(h["owned"], "owned", "c, x, /", c="unbroadcast(g, c, x)")
    _linear(h["grad_output"], "grad_output", "c, x, borrowed=False, /", c="unbroadcast(g, c, x)")
    _linear(h["add_cot"], "add_cot", "a, b, /", a="sum_cot_back(g, a, ans)", b="sum_cot_back(g, b, ans)")
    _linear(h["add_at"], "add_at", "dx, x, idx, c, /", dx="g", c="gather_cot(g, idx, c)")
    _linear(tangents.tangent_output, "tangent_output", "t, x, /", t="unbroadcast(g, t, x)")
    nondiff(tangents.zeros_tangent, "zeros_tangent")
    install_linear_helpers()
    _install_array_helpers()
    from ..custom import custom_cots
    _linear(custom_cots, "custom_cots", "out, nargs, fname, /", out="g")


def _install_array_helpers():
    """The helpers that keep duck arrays as they are (arrays.py), and the `np` generated code sees (facade.py)."""
    from .. import arrays, facade
    from . import FUNCTIONS
    _linear(arrays.as_array, "as_array", "x, /", x="g")
    _linear(arrays.as_float, "as_float", "x, /", x="g")
    for name, fn in facade.OVERRIDES.items():
        rule = FUNCTIONS.get(getattr(np, name))
        if rule is not None and fn not in FUNCTIONS:
            FUNCTIONS[fn] = rule


@runtime.helper
def unbroadcast_vjp(g, c, x, out):
    """The cotangent of c in unbroadcast(c, x, out): c itself came out when x has out's shape; otherwise c
    was broadcast to out and summed down to x, so g goes back up to out and down to c's shape."""
    if np.shape(x) == np.shape(out):
        return runtime.unbroadcast(g, c, g)
    return runtime.unbroadcast(runtime.full(g, out), c, out)


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


# Helpers that move cotangents around (containers, indexing, copies): linear in the parameters named here,
# the others only say where. Their forward rule is the helper on tangents; their reverse rule transposes
# them one basis vector at a time (transpose_linear): exact, and these act on small containers or slices.
_MODULES = ("adsrc.runtime", "adsrc.rules.containers", "adsrc.rules.sharing", "adsrc.rules.operator_rules")
_SPECIAL = {"add_attr": ("dx", "g"), "scan_slice_cot": ("dxs", "g"), "stack_cot": ("parts",),
            "getitem_cot": ("g",), "product_operand_cot": ("g", "other")}
_NONDIFF = ("part_along", "same_part", "zeros_cot", "check_unshared")


def _linear_helpers():
    import inspect
    for name, fn in sorted(runtime.HELPERS.items()):
        if getattr(fn, "__module__", "") == "adsrc.tangents" and name not in ("zeros_tangent", "tangent_output") \
                and not name.endswith("_jvp"):
            # forward mode's structural helpers: linear in their tangents (named t...), the rest says where
            params = list(inspect.signature(fn).parameters)
            linear = tuple(p for p in params if p.startswith("t") and p != "tol")
            if linear:
                yield name, fn, params, linear
            continue
        if not callable(fn) or getattr(fn, "__module__", "") not in _MODULES:
            continue
        params = list(inspect.signature(fn).parameters)
        if name in _SPECIAL:
            yield name, fn, params, _SPECIAL[name]
        elif (name.endswith("_cot") or name in ("split_last", "list_copy", "full_tuple", "owned_tree", "zero_at",
                                                 "snapshot", "index_update_vjp_value", "index_update_vjp_base")) \
                and params and params[0] in ("g", "x"):
            yield name, fn, params, (params[0],)


def install_linear_helpers():
    from . import FUNCTIONS
    for name in _NONDIFF:
        if runtime.HELPERS.get(name) is not None and runtime.HELPERS[name] not in FUNCTIONS:
            nondiff(runtime.HELPERS[name], name)
    for name, fn, params, linear in _linear_helpers():
        if fn in FUNCTIONS:
            continue
        # a template's `g` is the output's cotangent and `ans` the output: the helpers' own parameters of those
        # names (item_cot(g, i) ...) are renamed in the rule (they are positional-only)
        rename = {p: p + "_" if p in ("g", "ans") else p for p in params}
        params = [rename[p] for p in params]
        linear = [rename[p] for p in linear]
        args = "(" + ", ".join(params) + ("," if len(params) == 1 else "") + ")"
        vjps = {p: f"transpose_linear({name}, {params.index(p)}, g, {args})" for p in linear}
        rule = general(fn, name, ", ".join(params) + ", /", **vjps)
        rule.jvp_form = "multilinear" if name == "product_operand_cot" else "linear"


@runtime.helper
def transpose_linear(fn, k, g, args):
    """The cotangent of argument k of a helper linear in it: entry e of it is <g, fn(..., e_e, ...)>."""
    from ..checks import _map
    c = args[k]

    def pair(a, b):
        if runtime.is_zero(a) or runtime.is_zero(b):
            return 0.0
        if isinstance(a, dict):
            return sum(pair(v, b[key]) for key, v in a.items() if key in b)
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
            return sum(pair(x, y) for x, y in zip(a, b))
        if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
            raise NotImplementedError(
                f"adsrc cannot transpose `{getattr(fn, '__name__', fn)}` here: a cotangent of a container "
                f"({type(a).__name__}) meets one of another structure ({type(b).__name__}). This happens in "
                "derivatives of third order and above through calls to your other functions; differentiate "
                "once less, or inline the called function.")
        return float(np.sum(np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(b))) * b))

    def entry(path, leaf):
        flat = np.zeros(np.size(leaf))
        for e in range(flat.size):
            def basis(p, v, e=e):
                z = np.zeros(np.shape(v))
                if p == path:
                    z.reshape(-1)[e] = 1.0
                return float(z) if np.ndim(v) == 0 and not isinstance(v, np.ndarray) else z
            u = _map(c, basis)
            flat[e] = pair(fn(*args[:k], u, *args[k + 1:]), g)
        return float(flat[0]) if np.ndim(leaf) == 0 and not isinstance(leaf, np.ndarray) else flat.reshape(np.shape(leaf))
    return _map(c, entry)
