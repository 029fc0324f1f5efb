"""adsrc.vjp: the output of a function and its pullback (vector-Jacobian product), as in JAX."""

import numbers

import numpy as np

from . import callables, entries, frontend, keys, numba_backend, object_args, pytree_nodes, transform, varargs
from .generated_errors import annotate
from .gradient import check_function
from .cache import DEFAULT_MAXSIZE, SpecializationCache
from .callables import name_of
from .checkpoint import loop_policy
from .kinds import arg_kind

_nd = np.ndarray

_VJP_CACHES = {}    # id(function) -> (function, SpecializationCache) of its adsrc.vjp units


def function_cache(table, fun):
    """The specialization cache of fun in table ({id(fun): (fun, cache)}), made on first use."""
    with transform.LOCK:
        entry = table.get(id(fun))
        if entry is None or entry[0] is not fun:
            entry = (fun, SpecializationCache(DEFAULT_MAXSIZE, name=getattr(fun, "__qualname__", repr(fun))))
            table[id(fun)] = entry
        return entry[1]


def _primal_kind(x, fname, pname):
    """arg_kind, or None for values vjp does not differentiate (integers, booleans, None)."""
    if isinstance(x, (numbers.Integral, np.bool_)) or x is None or \
            (type(x) is _nd and x.dtype.kind in "biu"):
        return None
    kind = arg_kind(x, fname, pname)
    return kind


def check_cotangent(ct, out, path="output"):
    """Raise ValueError unless ct has the structure and shapes of out."""
    if isinstance(out, (tuple, list)) and not isinstance(out, np.ndarray):
        if not isinstance(ct, (tuple, list)) or len(ct) != len(out):
            raise ValueError(f"the cotangent for {path} must be a {type(out).__name__} of {len(out)} "
                             f"elements like the output, got {type(ct).__name__}"
                             f"{' of ' + str(len(ct)) + ' elements' if isinstance(ct, (tuple, list)) else ''}")
        for i, (c, o) in enumerate(zip(ct, out)):
            check_cotangent(c, o, f"{path}[{i}]")
        return
    if isinstance(out, dict):
        if not isinstance(ct, dict) or set(ct) != set(out):
            raise ValueError(f"the cotangent for {path} must be a dict with keys {sorted(out)}, got "
                             f"{sorted(ct) if isinstance(ct, dict) else type(ct).__name__}")
        for k in out:
            check_cotangent(ct[k], out[k], f"{path}[{k!r}]")
        return
    node = pytree_nodes.node_of(out)
    if node is not None:
        if type(ct) is not type(out):
            raise ValueError(f"the cotangent for {path} must be a {type(out).__name__}, got {type(ct).__name__}")
        for i, (c, o) in enumerate(zip(pytree_nodes.flatten(node, ct)[0], pytree_nodes.flatten(node, out)[0])):
            check_cotangent(c, o, f"{path}.<child {i}>")
        return
    if hasattr(type(out), "__dataclass_fields__"):
        import dataclasses
        if type(ct) is not type(out):
            raise ValueError(f"the cotangent for {path} must be a {type(out).__name__}, got {type(ct).__name__}")
        for f in dataclasses.fields(out):
            check_cotangent(getattr(ct, f.name), getattr(out, f.name), f"{path}.{f.name}")
        return
    if isinstance(ct, (tuple, list, dict)):
        raise ValueError(f"the cotangent for {path} must be an array of shape {np.shape(out)}, "
                         f"got a {type(ct).__name__}")
    if np.shape(ct) != np.shape(out):
        raise ValueError(f"the cotangent for {path} has shape {np.shape(ct)}, but the output has shape "
                         f"{np.shape(out)}")


def vjp(fun, *primals, has_aux=False, checkpoint_loops=None, backend="numpy"):
    """The output of fun(*primals) and its pullback (vector-Jacobian product), as in JAX.

    Returns `(out, pullback)`, or `(out, pullback, aux)` with has_aux=True
    (fun then returns `(out, aux)`). `pullback(cotangent)` takes a cotangent
    with the structure and shapes of `out` and returns a tuple with one
    gradient per primal (None for integer primals); it may be called many
    times. `fun` may be a bound method, a callable object or a
    functools.partial: the arguments it fixes are constants, and `primals`
    are the arguments of the call. checkpoint_loops and backend: as for adsrc.grad (checkpointed loops,
    numba-compiled code).
    """
    policy = loop_policy(checkpoint_loops)
    backend = numba_backend.check_backend(backend)
    parts = callables.split(fun)
    function = parts.function
    if (function is fun or not parts.fixed) and varargs.takes_varargs(function):
        return vjp(varargs.bound(function, len(primals)), *primals, has_aux=has_aux, checkpoint_loops=checkpoint_loops,
                   backend=backend)
    check_function(function)
    fname = name_of(fun)
    params = [p.name for p in frontend.signature(function).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    front = tuple(f.value for f in parts.positional)
    free = params[len(front):]
    if len(primals) > len(free):
        raise TypeError(f"`{fname}` takes {len(free)} positional arguments but vjp got {len(primals)} primals")
    kinds = tuple(_primal_kind(x, fname, p) for x, p in zip(primals, free))
    wrt = [p for p, k in zip(free, kinds) if k is not None]
    if not wrt:
        raise TypeError(f"adsrc.vjp of `{fname}`: no primal holds floating-point values to differentiate")
    functions, classes = object_args.constant_roles(
        [(p, x) for p, x, k in zip(free, primals, kinds) if k is None] +
        object_args.left_defaults(function, set(params[:len(front) + len(primals)]) | set(parts.keywords)))
    statics = {**parts.known(), **functions}
    static_key = (tuple(statics),) + tuple((keys.Identity, id(v)) for v in statics.values()) if statics \
        else ()
    static_key += tuple(sorted(classes.items()))
    key = (kinds, bool(has_aux), static_key) + ((policy,) if policy is not None else ()) + \
        ((backend,) if backend != "numpy" else ())
    fixed_kw = {k: f.value for k, f in parts.keywords.items()}

    def build():
        # a gradient adsrc made (vjp of adsrc.grad(f), jacrev of it): its generated function (higher order)
        target = frontend.resolve(function, front + tuple(primals), fixed_kw)
        with transform.LOCK:
            known = pytree_nodes.with_classes(statics, {p: k for p, k in zip(free, kinds) if k}, classes)
            lw = transform.lowered(target, known, static_key) if known else transform.lowered(target)
            unit = transform.Unit(lw.uf.name + "_vjp")
            options = {"final": True, "has_aux": bool(has_aux), "checkpoint_loops": policy,
                       "dense": backend != "numpy"}
            transform.build(lw, unit, wrt, {p: k for p, k in zip(free, kinds) if k}, "vjp", options)
            entry = entries.make(unit, target)
            return entry if backend == "numpy" else numba_backend.entry(entry, unit, auto=backend == "auto")

    fn = entries.compiled(function_cache(_VJP_CACHES, function), key, build)
    unit = fn.unit
    try:
        result, residuals = fn(*front, *primals, **fixed_kw)
    except Exception as e:
        annotate(e)
        raise
    out, aux = result if has_aux else (result, None)

    def pullback_with(bwd, cotangent):
        check_cotangent(cotangent, out)
        try:
            grads = iter(bwd(residuals, pytree_nodes.internal_cotangent(cotangent, out)))
        except Exception as e:
            annotate(e)
            raise
        return tuple(next(grads) if k is not None else None for k in kinds)

    def pullback(cotangent):
        return pullback_with(unit.bwd, cotangent)

    # jacrev's batched pullback (batched_jacrev.py) runs a copy of unit.bwd made for batches of cotangents
    pullback._adsrc_backward = (unit.bwd, pullback_with)
    pullback.__qualname__ = pullback.__name__ = f"{unit.name}_pullback"
    pullback._adsrc_derivative = f"the vjp pullback of `{fname}`"     # not differentiated again
    return (out, pullback, aux) if has_aux else (out, pullback)
