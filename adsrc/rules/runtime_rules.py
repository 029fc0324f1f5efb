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

from .. import pytree_nodes, runtime, tangents
from ..checks import _map
from . import general, nondiff, transposes
from .transposes import _as_object, _fields_of, _plain_object, _zeros


# helper -> (positions of the parameters it is linear in, whether it is multilinear in them: linear in each
# for the others fixed, like product_operand_cot's g * other; otherwise it is linear in them jointly)
LINEAR = {}


def _linear(fn, name, signature, like=None, **vjps):
    """A helper linear in its parameters named in vjps, whose output is a number or an array when the
    parameters `like` are (a container, or not known, when they may be: cotangents of containers)."""
    rule = general(fn, name, signature, **vjps)
    rule.jvp_form = "linear"
    LINEAR[fn] = (tuple(rule.param_names.index(p) for p in vjps), False)
    if like is None:
        rule.any_output = True
    else:
        rule.output_like = like
    return rule


def install():
    h = runtime.HELPERS
    _linear(h["unbroadcast"], "unbroadcast", "c, x, out, /", ("c", "x"), c="unbroadcast_vjp(g, c, x, out)")
    _linear(h["full"], "full", "c, like, /", ("c", "like"), c="like_cot(full, g, c, like)")
    _linear(h["owned"], "owned", "c, x, /", ("x",), c="like_cot(owned, g, c, x)")
    _linear(h["grad_output"], "grad_output", "c, x, borrowed=False, /", ("x",),
            c="like_cot(grad_output, g, c, x, borrowed)")
    _linear(h["add_cot"], "add_cot", "a, b, /", ("a", "b"), a="sum_cot_back(g, a, ans)",
            b="sum_cot_back(g, b, ans)")
    _linear(h["add_at"], "add_at", "dx, x, idx, c, /", ("dx",), dx="g", c="gather_cot(g, idx, c)")
    _linear(tangents.tangent_output, "tangent_output", "t, x, /", ("t", "x"), t="like_cot(tangent_output, g, t, x)")
    nondiff(tangents.zeros_tangent, "zeros_tangent")
    nondiff(h["only_shape"], "only_shape")
    nondiff(h["broadcast_only"], "broadcast_only")
    nondiff(runtime.is_zero, "is_zero")
    transposes.install(_linear)
    _linear(gather_cot_back, "gather_cot_back", "h, like, idx, c, /", h="gather_cot(g, idx, c)")
    install_linear_helpers()
    _install_array_helpers()
    from ..custom import custom_cots
    _linear(custom_cots, "custom_cots", "out, nargs, fname, /", out="g")


def _install_array_helpers():
    """The helpers that keep duck arrays as they are (arrays.py), and the `np` generated code sees (facade.py)."""
    from .. import arrays, facade
    from . import FUNCTIONS
    _linear(arrays.as_array, "as_array", "x, /", (), x="g")
    _linear(arrays.as_float, "as_float", "x, /", (), x="g")
    for name, fn in facade.OVERRIDES.items():
        rule = FUNCTIONS.get(getattr(np, name))
        if rule is not None and fn not in FUNCTIONS:
            FUNCTIONS[fn] = rule


@runtime.helper
def unbroadcast_vjp(g, c, x, out):
    """The cotangent of c in unbroadcast(c, x, out): c itself came out when x has out's shape; otherwise c was
    summed over out's broadcast axes (times their length where c is constant along them: the sum then keeps
    c's smaller shape), so g is spread back over those axes, times those lengths (runtime.sum_to_transpose)."""
    if _tree(g, c, x, out):
        return transpose_linear(runtime.unbroadcast, 0, g, (c, x, out))
    if np.shape(x) == np.shape(out):
        return runtime.unbroadcast(g, c, g)
    if np.iscomplexobj(g) and not np.iscomplexobj(c):
        g = np.real(g)
    return runtime.sum_to_transpose(g, np.shape(c), np.shape(x), np.shape(out))


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
    if runtime.is_zero(g):
        return 0.0
    part = g[idx]
    return part if _tree(part, c) else runtime.unbroadcast(part, c, part)


@runtime.helper
def gather_cot_back(h, like, idx, c):
    """The transpose of gather_cot(g, idx, c) in g (g shaped like `like`): h (c's shape) spread over g[idx]'s
    shape and added at idx into zeros; element by element for containers."""
    if runtime.is_zero(like) or runtime.is_zero(h):
        return 0.0
    if _tree(like, c, h):
        return transpose_linear(gather_cot, 0, h, (like, idx, c))
    out = np.zeros(np.shape(like), dtype=np.result_type(like, h))
    np.add.at(out, idx, np.broadcast_to(h, np.shape(out[idx])))
    return out


@runtime.helper
def like_cot(fn, g, c, x, *rest):
    """The cotangent of c in fn(c, x, ...), which broadcasts c to x's shape (full, owned, grad_output...):
    g summed down to c's shape, leaf by leaf for containers (transposed element by element where their
    structures differ)."""
    if _tree(g, c, x):
        try:
            return _summed_to(g, c, x)
        except _Mismatch:
            return transpose_linear(fn, 0, g, (c, x) + rest)
    return runtime.unbroadcast(g, c, x)


def _summed_to(g, c, x):
    """g (x's structure) summed down to c: leaf by leaf where c has x's structure; a number or array c that
    x's leaves were all broadcast from gets the sum over them."""
    if runtime.is_zero(g):
        return 0.0
    if hasattr(c, "_fields"):
        raise _Mismatch("a namedtuple keeps its class through transpose_linear")
    if isinstance(x, (list, tuple)) and isinstance(c, (list, tuple)):
        if len(c) != len(x) or (isinstance(g, (list, tuple)) and len(g) != len(x)):
            raise _Mismatch("lengths differ")
        parts = [_summed_to(g[i] if isinstance(g, (list, tuple)) else g, c[i], x[i]) for i in range(len(x))]
        return tuple(parts) if isinstance(c, tuple) else parts
    if isinstance(x, dict) and isinstance(c, dict):
        if c.keys() != x.keys():
            raise _Mismatch("keys differ")
        return {k: _summed_to(_item(g, k) if isinstance(g, dict) else g, c[k], x[k]) for k in x}
    if _tree(c, x) or _tree(g):
        raise _Mismatch("structures differ")
    return runtime.unbroadcast(g, c, x)


def _item(g, k):
    """g[k] of a dict cotangent; zero for a key it lacks (the gradient read only some of them)."""
    try:
        return g[k]
    except KeyError:
        return 0.0


def _tree(*values):
    """Whether a value is a container or a pytree (its cotangent has its structure) rather than an array."""
    return any(isinstance(v, (list, tuple, dict)) or hasattr(type(v), "__dataclass_fields__") or
               pytree_nodes.is_node(v) for v in values)


# Helpers that move cotangents around (containers, indexing, copies): linear in the parameters named here,
# the others only say where. Their forward rule is the helper on tangents; their reverse rule transposes
# them one basis vector at a time (transpose_linear): exact, and these act on small containers or slices.
_MODULES = ("adsrc.runtime_core", "adsrc.runtime_accumulate", "adsrc.runtime_updates", "adsrc.runtime_scan",
            "adsrc.rules.containers", "adsrc.rules.sharing", "adsrc.rules.held_parts", "adsrc.rules.operator_rules")
_SPECIAL = {"add_attr": ("dx", "g"), "scan_slice_cot": ("dxs", "g"), "stack_cot": ("parts",),
            "getitem_cot": ("g",), "product_operand_cot": ("g", "other")}
_NONDIFF = ("part_along", "view_along", "slot_along", "same_part", "zeros_cot", "check_unshared", "check_scalar",
            "check_separate", "check_part_kept")


def _linear_helpers():
    import inspect
    for name, fn in sorted(runtime.HELPERS.items()):
        if getattr(fn, "__module__", "") == "adsrc.tangents" and name not in ("zeros_tangent", "tangent_output") \
                and not name.endswith("_jvp") and name != "mul_tangent":     # (x * tx + ... : followed)
            # forward mode's structural helpers: linear in their tangents (named t...), the rest says where
            params = list(inspect.signature(fn).parameters)
            linear = tuple(p for p in params if p.startswith("t") and p != "tol")
            if linear:
                yield name, fn, params, linear
            continue
        if not callable(fn) or getattr(fn, "__module__", "") not in _MODULES and name not in _OWN:
            continue
        params = list(inspect.signature(fn).parameters)
        if name in _SPECIAL:
            yield name, fn, params, _SPECIAL[name]
        elif name in _OWN:
            yield name, fn, params, _OWN[name]
        elif (name.endswith("_cot") or name in ("split_last", "list_copy", "full_tuple", "owned_tree", "zero_at",
                                                 "snapshot", "index_update_vjp_value", "index_update_vjp_base")) \
                and params and params[0] in ("g", "x"):
            yield name, fn, params, (params[0],)


@runtime.helper
def split_last_copy(g):
    """split_last without taking the element off g in place (a derivative of generated code reads g again)."""
    if isinstance(g, list):
        return g[:-1], (g[-1] if g else 0.0)
    return runtime.split_last(g)


@runtime.helper
def add_attr_copy(dx, x, name, g):
    """add_attr into a copy of dx."""
    return runtime.add_attr(list(dx) if isinstance(dx, list) else dict(dx) if isinstance(dx, dict) else dx,
                            x, name, g)


# helpers of generated code that update an argument in place, and what a derivative of that code calls instead
COPYING = {runtime.split_last: split_last_copy, runtime.add_attr: add_attr_copy}
# this module's helpers transposed like the others: the parameters they are linear in
_OWN = {"split_last_copy": ("g",), "add_attr_copy": ("dx", "g"), "gather_cot": ("g",)}


def install_linear_helpers():
    from . import FUNCTIONS
    for name in _NONDIFF:
        if runtime.HELPERS.get(name) is not None and runtime.HELPERS[name] not in FUNCTIONS:
            nondiff(runtime.HELPERS[name], name)
    for name, fn, params, linear in _linear_helpers():
        if fn in FUNCTIONS:
            continue
        multilinear = name == "product_operand_cot"
        LINEAR[fn] = (tuple(params.index(p) for p in linear), multilinear)
        # a template's `g` is the output's cotangent and `ans` the output: the helpers' own parameters of those
        # names (item_cot(g, i) ...) are renamed in the rule (they are positional-only)
        rename = {p: p + "_" if p in ("g", "ans") else p for p in params}
        params = [rename[p] for p in params]
        linear = [rename[p] for p in linear]
        args = "(" + ", ".join(params) + ("," if len(params) == 1 else "") + ")"
        written = transposes.TRANSPOSED.get(name, {})
        vjps = {p: written.get(p) or f"transpose_linear({name}, {params.index(p)}, g, {args})" for p in linear}
        rule = general(fn, name, ", ".join(params) + ", /", **vjps)
        rule.jvp_form = "multilinear" if multilinear else "linear"
        rule.any_output = True
    # transpose_linear(fn, k, g, args) is linear in g (and, for a multilinear fn, in fn's other linear
    # arguments); its own transpose is fn applied at position k
    rule = general(transpose_linear, "transpose_linear", "fn, k, g_, args, /",
                   g_="apply_linear(fn, k, g, args)", args="transpose_linear_args_cot(fn, k, g_, args, g)")
    rule.jvp_joint = "transpose_linear_tangent(fn, k, g_, args, t_g_, t_args)"
    rule.any_output = True
    # apply_linear(fn, k, u, args), fn at u, is linear in u (its transpose is transpose_linear) and, for a
    # multilinear fn, in fn's other linear arguments
    rule = general(apply_linear, "apply_linear", "fn, k, u, args, /", u="transpose_linear(fn, k, g, args)",
                   args="apply_linear_args_cot(fn, k, u, args, g)")
    rule.jvp_joint = "apply_linear_tangent(fn, k, u, args, t_u, t_args)"
    rule.any_output = True
    rule = general(transpose_linear_args_cot, "transpose_linear_args_cot", "fn, k, g_, args, h, /",
                   g_="args_cot_g_cot(fn, k, args, h, g)", h="args_cot_h_cot(fn, k, g_, args, g)")
    rule.jvp_joint = "args_cot_tangent(fn, k, g_, args, h, t_g_, t_h)"
    rule.any_output = True


def _linear_of(fn, default):
    """LINEAR's entry for a helper (generated code may hold the array-API dispatching version of it)."""
    return LINEAR.get(getattr(fn, "_adsrc_numpy_helper", fn), default)


def _moved_only(cot, fields):
    """The cotangent dict without the fields that have no derivative (left as they were by the transpose)."""
    return {n: _moved_only(v, fields[n]) if isinstance(fields[n], dict) and isinstance(v, dict) else v
            for n, v in cot.items() if v is not fields[n]}


def _with(args, k, v):
    return tuple(args[:k]) + (v,) + tuple(args[k + 1:])


@runtime.helper
def apply_linear(fn, k, u, args):
    """fn(args with u at position k), the part of fn linear in argument k: fn's other linear arguments are zero
    when it is linear in them jointly (add_attr(dx, x, name, g) is dx + g at the field)."""
    if runtime.is_zero(u):
        return 0.0
    positions, multilinear = _linear_of(fn, ((k,), False))
    if not multilinear:
        args = tuple(_zeros(a) if j in positions and j != k else a for j, a in enumerate(args))
    return fn(*_with(args, k, u))


@runtime.helper
def transpose_linear_args_cot(fn, k, g, args, h):
    """The cotangent of `args` in transpose_linear(fn, k, g, args) for its output's cotangent h: for a
    multilinear fn, argument j's is <g, fn(.., h at k, e at j, ..)>, zero for the arguments that only say
    where (and for every argument of a jointly linear fn, whose transpose does not depend on them)."""
    positions, multilinear = _linear_of(fn, (None, False))
    if positions is None:
        raise NotImplementedError(
            f"adsrc cannot differentiate the transpose of `{getattr(fn, '__name__', fn)}` with respect to its "
            "other arguments: it transposes a forward rule (adsrc.defjvp) one element at a time. Give the "
            "function a reverse rule with adsrc.defvjp to take higher derivatives through it.")
    if not multilinear or runtime.is_zero(h) or runtime.is_zero(g):
        return tuple(0.0 for _ in args)
    return tuple(transpose_linear(fn, j, g, _with(args, k, h)) if j in positions and j != k else 0.0
                 for j in range(len(args)))


@runtime.helper
def apply_linear_args_cot(fn, k, u, args, h):
    """The cotangent of `args` in apply_linear(fn, k, u, args) for its output's cotangent h: for a multilinear
    fn, argument j's is the transpose of fn in it with u at k; zero for the others."""
    positions, multilinear = _linear_of(fn, (None, False))
    if positions is None:
        transpose_linear_args_cot(fn, k, h, args, u)       # refuses, with the reason
    if not multilinear or runtime.is_zero(h) or runtime.is_zero(u):
        return tuple(0.0 for _ in args)
    return tuple(transpose_linear(fn, j, h, _with(args, k, u)) if j in positions and j != k else 0.0
                 for j in range(len(args)))


@runtime.helper
def apply_linear_tangent(fn, k, u, args, tu, targs):
    """The tangent of apply_linear(fn, k, u, args)."""
    return _cross_terms(apply_linear, fn, k, u, args, targs, apply_linear(fn, k, tu, args))


# transpose_linear_args_cot(fn, k, g, args, h) of a multilinear fn: entry j (a linear position other than k) is
# transpose_linear(fn, j, g, args with h at k), linear in g and in h. Its output's cotangent c (one entry per
# argument) then gives g the cotangent sum_j fn(args with h at k, c[j] at j), and h sum_j transpose_linear(fn,
# k, g, args with c[j] at j); args' other entries only say where (and entry j is replaced): none.

def _entries(fn, k, c):
    positions, multilinear = _linear_of(fn, (None, False))
    if not multilinear or runtime.is_zero(c):
        return ()
    return tuple(j for j in positions if j != k and not runtime.is_zero(c[j]))


@runtime.helper
def args_cot_g_cot(fn, k, args, h, c):
    out = 0.0
    for j in _entries(fn, k, c):
        out = runtime.add_cot(out, apply_linear(fn, j, c[j], _with(args, k, h)))
    return out


@runtime.helper
def args_cot_h_cot(fn, k, g, args, c):
    out = 0.0
    for j in _entries(fn, k, c):
        out = runtime.add_cot(out, transpose_linear(fn, k, g, _with(args, j, c[j])))
    return out


@runtime.helper
def args_cot_tangent(fn, k, g, args, h, tg, th):
    """The tangent of transpose_linear_args_cot(fn, k, g, args, h): its tangent in g plus its tangent in h."""
    a = transpose_linear_args_cot(fn, k, tg, args, h) if not runtime.is_zero(tg) else None
    b = transpose_linear_args_cot(fn, k, g, args, th) if not runtime.is_zero(th) else None
    if a is None or b is None:
        return (a if b is None else b) if (a is not None or b is not None) else tuple(0.0 for _ in args)
    return tuple(runtime.add_cot(x, y) for x, y in zip(a, b))


@runtime.helper
def multilinear_refused(fn):
    """The derivative of the cross terms of a multilinear helper's transpose (not needed so far: refused)."""
    if _linear_of(fn, (None, False))[1]:
        raise NotImplementedError(
            f"adsrc cannot take this derivative through `{getattr(fn, '__name__', fn)}` (the product of "
            "values that may be lists, in code adsrc generated) at this order: differentiate once less.")
    return 0.0


@runtime.helper
def transpose_linear_tangent(fn, k, g, args, tg, targs):
    """The tangent of transpose_linear(fn, k, g, args) (linear in g, and in fn's other linear arguments when
    fn is multilinear)."""
    out = 0.0 if runtime.is_zero(tg) else transpose_linear(fn, k, tg, args)
    return _cross_terms(transpose_linear, fn, k, g, args, targs, out)


def _cross_terms(op, fn, k, v, args, targs, out):
    """out plus op(fn, k, v, args with one other linear argument replaced by its tangent), for each of them
    (fn multilinear); refuses when fn's linear arguments are not known and some of them have tangents."""
    positions, multilinear = _linear_of(fn, (None, False))
    if positions is None:
        if not all(runtime.is_zero(t) for t in (targs if isinstance(targs, tuple) else (targs,))):
            transpose_linear_args_cot(fn, k, v, args, 1.0)     # refuses, with the reason
    elif multilinear and not runtime.is_zero(targs) and not runtime.is_zero(v):
        for j in positions:
            if j != k and not runtime.is_zero(targs[j]):
                out = runtime.add_cot(out, op(fn, k, v, _with(args, j, targs[j])))
    return out


class _Mismatch(NotImplementedError):
    pass


@runtime.helper
def transpose_linear(fn, k, g, args):
    """The cotangent of argument k of a helper linear in it: entry e of it is <g, fn(..., e_e, ...)>."""
    c = args[k]
    if _plain_object(c):
        # the tangent of an object of the user's class is such an object; its cotangent is the dict of its
        # attributes' cotangents (as runtime.add_attr makes): the directions are copies with one field moved
        fields = _fields_of(c)
        positions, multilinear = _linear_of(fn, ((k,), False))
        if not multilinear:     # (what apply_linear does, here where fn's linear arguments are known)
            args = tuple(_zeros(a) if j in positions and j != k else a for j, a in enumerate(args))
        cot = transpose_linear(lambda *a: fn(*_with(a, k, _as_object(c, a[k]))), k, g, _with(args, k, fields))
        return _moved_only(cot, fields)

    def pair(a, b):
        if runtime.is_zero(a) or runtime.is_zero(b):
            return 0.0
        if _plain_object(a) and isinstance(b, dict):
            a = vars(a)
        if hasattr(type(a), "__dataclass_fields__") and (type(b) is type(a) or isinstance(b, dict)):
            a = {f: getattr(a, f) for f in type(a).__dataclass_fields__}    # (a dataclass's cotangent as
            b = b if isinstance(b, dict) else {f: getattr(b, f) for f in a}   # either form)
        if isinstance(a, dict):
            return sum(pair(v, b[key]) for key, v in a.items() if key in b)
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
            return sum(pair(x, y) for x, y in zip(a, b))
        if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
            raise _Mismatch(
                f"adsrc cannot transpose `{getattr(fn, '__name__', fn)}` here: a cotangent of a container "
                f"({type(a).__name__}) meets one of another structure ({type(b).__name__}). Please report this "
                "program; differentiating once less works.")
        # Re(sum(a b)): cotangents pair with values by the real part (a complex one is d/dx - i d/dy)
        return float(np.real(np.sum(np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(b))) * b)))

    def entry(path, leaf):
        if runtime.is_zero(leaf):
            try:
                return column(path, leaf)
            except (TypeError, _Mismatch):
                return 0.0       # the symbolic zero of a container (a number is no value there): a constant
        return column(path, leaf)

    def column(path, leaf):
        complex_leaf = np.iscomplexobj(leaf)
        flat = np.zeros(np.size(leaf), complex if complex_leaf else float)
        for e in range(flat.size):
            def basis(p, v, e=e, one=1.0):
                z = np.zeros(np.shape(v), type(one))
                if p == path:
                    z.reshape(-1)[e] = one
                return z.item() if np.ndim(v) == 0 and not isinstance(v, np.ndarray) else z
            flat[e] = pair(apply_linear(fn, k, _map(c, basis), args), g)
            if complex_leaf:        # the imaginary direction too: the entry is <g, L(e)> - i <g, L(i e)>
                flat[e] -= 1j * pair(apply_linear(fn, k, _map(c, lambda p, v, e=e: basis(p, v, e, 1j)), args), g)
        number = np.ndim(leaf) == 0 and not isinstance(leaf, np.ndarray)
        return flat[0].item() if number else flat.reshape(np.shape(leaf))
    return _map(c, entry)


