"""Jacobians, Hessians and Hessian-vector products, with JAX's names and conventions.

    adsrc.jacfwd(f, argnums=0)(x)      one jvp per input element        (forward mode)
    adsrc.jacrev(f, argnums=0)(x)      one batched pullback of every output element (reverse mode)
    adsrc.jacobian                     = jacrev (autograd's name)
    adsrc.hessian(f, argnums=0)(x)     jacfwd of adsrc.grad(f): forward over reverse
    adsrc.hvp(f, x, v, *args)          H v = jvp(grad(f), (x, *args), (v, ...)): no Hessian formed
    adsrc.elementwise_grad(f, argnum=0)  the gradient of sum(f(...)) (autograd's name): for f applied
                                       elementwise, each output's derivative by its own input

A Jacobian has the output's structure, each leaf holding the input's
structure, each of those leaves an array of shape out.shape + in.shape (for
several argnums, a tuple over them), as in JAX. Leaves are real float
values (complex inputs are not supported here).
"""

import copy
import functools
import inspect
import numbers
import weakref

import numpy as np

from . import nested_jacobians
from .batched_jacrev import batched_jacobian
from .checks import _leaves, _map
from .forward_api import jvp
from .frontend.source import define
from .pullback import vjp
from .transform import CLEAR_HOOKS


def _nums(argnums):
    return (argnums,) if isinstance(argnums, numbers.Integral) else tuple(argnums)


def _chosen(args, argnums):
    """The differentiated arguments: one value for an int argnums, else a tuple."""
    return args[argnums] if isinstance(argnums, numbers.Integral) else tuple(args[i] for i in argnums)


def _basis(v, k):
    e = np.zeros(np.shape(v), dtype=np.result_type(v, float))
    e.reshape(-1)[k] = 1.0
    return float(e) if isinstance(v, float) else e


def _zeros(v):
    return 0.0 if isinstance(v, float) else np.zeros(np.shape(v), dtype=np.result_type(v, float))


def _leaf_at(tree, path):
    return dict(_leaves(tree))[path]


def _blocks(out, xs, columns, out_major):
    """Assemble the Jacobian: columns[(in path)] is the list of tangent trees (jacfwd) or of
    gradient trees (jacrev, one per output element, keyed by out path)."""
    def block(out_path, out_leaf, in_path, in_leaf):
        if out_major:     # jacrev: rows are gradients, one per output element
            rows = [np.ravel(_leaf_at(r, in_path)) for r in columns[out_path]]
            m = np.stack(rows) if rows else np.zeros((0, np.size(in_leaf)))
        else:             # jacfwd: columns are tangents, one per input element
            cols = [np.ravel(_leaf_at(c, out_path)) for c in columns[in_path]]
            m = np.stack(cols, axis=-1) if cols else np.zeros((np.size(out_leaf), 0))
        return m.reshape(np.shape(out_leaf) + np.shape(in_leaf))
    return _map(out, lambda op, ol: _map(xs, lambda ip, il: block(op, ol, ip, il)))


def _with(args, argnums, chosen):
    out = list(args)
    for i, v in zip(_nums(argnums), (chosen,) if isinstance(argnums, numbers.Integral) else chosen):
        out[i] = v
    return tuple(out)


def jacfwd(fun, argnums=0, has_aux=False, *, static_argnums=(), static_argnames=(), argnum=None):
    """The Jacobian of fun with respect to argnums, column by column with forward mode (as jax.jacfwd)."""
    argnums = _argnums(argnums, argnum)
    inner = nested_jacobians.jacobian_of(fun)
    if inner is not None and not has_aux and not static_argnums and not static_argnames:
        return nested_jacobians.second_derivatives(inner[0], inner[1], argnums)

    @functools.wraps(fun)
    def jacobian_fwd(*args, **kwargs):
        fun_, args = _keywords_bound(fun, args, kwargs)
        xs = _chosen(args, argnums)
        columns, out, aux = {}, None, None
        for path, leaf in _leaves(xs):
            cols = columns[path] = []
            for k in range(np.size(leaf)):
                t = _map(xs, lambda p, v, path=path, k=k: _basis(v, k) if p == path else _zeros(v))
                tangents = [None] * len(args)
                for i, ti in zip(_nums(argnums), (t,) if isinstance(argnums, numbers.Integral) else t):
                    tangents[i] = ti
                res = jvp(fun_, args, tangents, has_aux, static_argnums=static_argnums,
                          static_argnames=static_argnames)
                out = res[0]
                aux = res[2] if has_aux else None
                cols.append(res[1])
        if out is None:
            out = fun_(*args)
            out, aux = out if has_aux else (out, None)
        jac = _blocks(out, xs, columns, out_major=False)
        return (jac, aux) if has_aux else jac
    return nested_jacobians.mark(jacobian_fwd, fun, argnums, has_aux)


def jacrev(fun, argnums=0, has_aux=False, *, argnum=None):
    """The Jacobian of fun with respect to argnums with reverse mode (as jax.jacrev).

    Every float argument is a primal of the vjp; the rows keep those in argnums. All rows are
    pulled back in one batched call where the pullback allows (batched_jacrev.py), else one
    row at a time. The Jacobian of a Jacobian function is nested_jacobians.py's.
    """
    argnums = _argnums(argnums, argnum)
    inner = nested_jacobians.jacobian_of(fun)
    if inner is not None and not has_aux:
        return nested_jacobians.second_derivatives(inner[0], inner[1], argnums)

    @functools.wraps(fun)
    def jacobian_rev(*args, **kwargs):
        fun_ = functools.partial(fun, **kwargs) if kwargs else fun       # keywords are not differentiated
        res = vjp(fun_, *args, has_aux=has_aux)
        out, pullback = res[0], res[1]
        jac = batched_jacobian(pullback, out, args, argnums, _chosen(args, argnums))
        if jac is not None:        # every row in one pullback (batched_jacrev.py); else one row at a time
            return (jac, res[2]) if has_aux else jac
        rows = {}
        nums = _nums(argnums)
        for path, leaf in _leaves(out):
            rows[path] = []
            for k in range(np.size(leaf)):
                ct = _map(out, lambda p, v, path=path, k=k: _basis(v, k) if p == path else _zeros(v))
                grads = pullback(ct)
                chosen = grads[argnums] if isinstance(argnums, numbers.Integral) else tuple(grads[i] for i in nums)
                rows[path].append(chosen)
        jac = _blocks(out, _chosen(args, argnums), rows, out_major=True)
        return (jac, res[2]) if has_aux else jac
    return nested_jacobians.mark(jacobian_rev, fun, argnums, has_aux)


jacobian = jacrev


_GRADS = weakref.WeakKeyDictionary()     # fun -> {options: adsrc.grad(fun, ...)}, for hvp
CLEAR_HOOKS.append(lambda: _GRADS.clear())


def _grad_of(fun, argnums, static_argnums=(), static_argnames=()):
    from .api import grad
    key = (argnums if isinstance(argnums, numbers.Integral) else tuple(argnums),
           tuple(_nums(static_argnums)) if static_argnums is not None else (),
           (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames or ()))
    try:
        table = _GRADS.setdefault(fun, {})
    except TypeError:       # not weakly referable
        return grad(fun, argnums, static_argnums=static_argnums or None, static_argnames=static_argnames or None)
    g = table.get(key)
    if g is None:
        g = table[key] = grad(fun, argnums, static_argnums=static_argnums or None,
                              static_argnames=static_argnames or None)
    return g


def hessian(fun, argnums=0, *, static_argnums=(), static_argnames=(), argnum=None):
    """The Hessian of a scalar function: jacfwd of its adsrc gradient (forward over reverse), as jax.hessian.
    For a function returning an array, out.shape + x.shape + x.shape (nested_jacobians.py)."""
    argnums = _argnums(argnums, argnum)
    g = _grad_of(fun, argnums, static_argnums, static_argnames)
    h = jacfwd(g, argnums, static_argnums=static_argnums, static_argnames=static_argnames)
    second = None if static_argnums or static_argnames else nested_jacobians.second_derivatives(fun, argnums, argnums) \
        if isinstance(argnums, numbers.Integral) else None

    def hessian_of(*args, **kwargs):
        if kwargs:
            fun_, args = _keywords_bound(fun, args, kwargs)
            if fun_ is not fun:         # keyword-only parameters: the Hessian of the partial
                return hessian(fun_, argnums, static_argnums=static_argnums, static_argnames=static_argnames)(*args)
        # the output's rank from a call on copies (fun may change its arguments in place: they are the caller's)
        if second is not None and np.ndim(fun(*_copies(args))) > 0:
            return second(*args)
        return h(*args)
    return functools.wraps(fun)(hessian_of)


def _keywords_bound(fun, args, kwargs):
    """(fun, args) for a call fun(*args, **kwargs) (JAX passes keyword arguments on, not differentiated): the
    keywords moved into their positions when fun's parameters are all positional, so that argnums and
    static_argnums still count positions; else a functools.partial of fun with them."""
    if not kwargs:
        return fun, args
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = None
    if params is None or any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY) for p in params) or \
            any(p.kind is p.POSITIONAL_ONLY and p.name in kwargs for p in params):
        return functools.partial(fun, **kwargs), args
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return fun, tuple(bound.args)


def _copies(args):
    try:
        return copy.deepcopy(args)
    except Exception:           # (an object that cannot be copied: the arguments themselves)
        return args


def _argnums(argnums, argnum):
    """argnums, or autograd's keyword `argnum` when given."""
    if argnum is None:
        return argnums
    if argnums not in (0, argnum):
        raise TypeError(f"pass argnums or autograd's argnum, not both ({argnums!r} and {argnum!r})")
    return argnum


def hvp(fun, x, v, *args):
    """The Hessian of fun at x (its first argument) times v, exactly, without forming the Hessian.

    `fun(x, *args)` must return a scalar; the other arguments are held fixed.
    The signature suits `scipy.optimize.minimize(..., hessp=lambda x, p, *a: adsrc.hvp(f, x, p, *a))`.
    """
    g = _grad_of(fun, 0)
    return jvp(g, (x,) + args, (v,) + (None,) * len(args))[1]


def elementwise_grad(fun, argnum=0):
    """autograd's elementwise_grad: the gradient of `sum(fun(...))` with respect to argument `argnum`, that is
    the vector-Jacobian product with ones. For a function applied elementwise (np.tanh) it is each output's
    derivative by its own input, in one reverse pass. The result is an adsrc.grad object: it can be
    differentiated again (`elementwise_grad(elementwise_grad(np.tanh))`)."""
    from .api import grad
    return grad(_summed(fun), argnums=argnum)


def _summed(fun):
    """`sum_of_<name>(*args, **kwargs) = np.sum(fun(*args, **kwargs))`, made from registered source in a
    namespace of its own, so that adsrc transforms it (and what it generates) like the user's code."""
    name = "sum_of_" + (getattr(fun, "__name__", "") if str(getattr(fun, "__name__", "")).isidentifier() else "fun")
    source = f"def {name}(*args, **kwargs):\n    return np.sum(fun(*args, **kwargs))\n"
    return define(source, name, {"__name__": "adsrc_elementwise", "np": np, "fun": fun}, "elementwise_grad")
