"""The functions dynamic_calls.py differentiates: one small wrapper per function value and call shape.

For a call `f(a, b, k=c)` whose f adsrc finds only when the code runs, the wrapper is
`def call_f(c0, p0, p1): return f(p0, c0, k=p1)` compiled with f as its global (frontend/source.py's
`define`, so that adsrc reads its source): constants first (fixed by a functools.partial), then the
values adsrc.vjp/adsrc.jvp differentiate. A bound method `obj.m` is called through its object, which
becomes the first argument (`def call_m(p0, p1): return p0.m(p1)`): adsrc then follows the method as it
follows `obj.m(x)` written out, a NumPy method by its rule.

Wrappers are kept per identity of the function (_identity), so that a lambda made anew on each call of the
user's function is transformed once, not once per call.
"""

import collections
import functools
import numbers
import types

import numpy as np

_PLAIN = (numbers.Number, str, bytes, type(None), np.dtype)
_WRAPPERS = collections.OrderedDict()   # (identity of the callee, layout, roles) -> (callee, wrapper)
_MAX_WRAPPERS = 256
LABEL = "call of a function value found when the code runs"


def bound_method(f):
    """(object, method name) of a method bound to an object (not a module's function or a class's), or None."""
    owner = getattr(f, "__self__", None)
    if not isinstance(f, (types.MethodType, types.BuiltinMethodType, type(np.zeros(1).__add__))) or \
            owner is None or isinstance(owner, (types.ModuleType, type)):
        return None
    name = getattr(f, "__name__", None)
    return (owner, name) if isinstance(name, str) and name.isidentifier() else None


def source(name, layout, roles, method=None):
    """The text of the wrapper: parameters c0... (roles 'c') first, then p0... in the order of the call's
    arguments (with a method, the first argument is its object)."""
    npos, keywords = layout[:2]
    params, consts, primals = [], [], []
    for r in roles:
        group = consts if r == "c" else primals
        params.append(("c" if r == "c" else "p") + str(len(group)))
        group.append(params[-1])
    callee = "f"
    if method is not None:
        callee, params = f"{params[0]}.{method}", params[1:]
        npos -= 1
        if method in _OPERATORS and npos == 1 and not keywords:      # `a.__mul__(b)`: `a * b`, by the rule of *
            op, right = _OPERATORS[method]
            operands = (params[0], callee.split(".")[0]) if right else (callee.split(".")[0], params[0])
            body = f"{operands[0]} {op} {operands[1]}"
            return f"def call_{name}({', '.join(consts + primals)}):\n    return {body}\n"
    args = params[:npos] + [f"{kw}={p}" for kw, p in zip(keywords, params[npos:])]
    return f"def call_{name}({', '.join(consts + primals)}):\n    return {callee}({', '.join(args)})\n"


_OPERATORS = {f"__{r}{name}__": (op, bool(r)) for name, op in
              (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("pow", "**"), ("matmul", "@"),
               ("floordiv", "//"), ("mod", "%")) for r in ("", "r")}


def _value_key(v):
    """Numbers and strings by value (as tuples of them), anything else by identity."""
    if isinstance(v, _PLAIN):
        return (type(v), v)
    if type(v) is tuple:
        return (tuple, tuple(_value_key(x) for x in v))
    return (id, id(v))


def cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:          # a name of the enclosing function not bound yet
        return None


def _identity(f):
    """What decides what calling f does: a function by its code, defaults and closure (the lambda
    `lambda v, k=k: ...` made anew on each call is one function per k); anything else by identity."""
    if isinstance(f, types.FunctionType):
        cells = tuple("self" if cell_value(c) is f else _value_key(cell_value(c)) for c in f.__closure__ or ())
        kwdefaults = tuple(sorted((k, _value_key(v)) for k, v in (f.__kwdefaults__ or {}).items()))
        return (f.__code__, id(f.__globals__), _value_key(f.__defaults__), kwdefaults, cells)
    return (id, id(f))


def wrapper(f, layout, roles, method=None):
    """The wrapper of f (with a method: of that method of the first argument's class), made once per
    identity, layout and roles. The wrapper made for an earlier f of the same identity calls that earlier
    f, which does what this one does (its identity is read again: its closure may have changed since)."""
    from .frontend.source import define
    from .names import identifier
    ident = ("method", method) if method is not None else _identity(f)
    key = (ident, layout, roles)
    entry = _WRAPPERS.get(key)
    if entry is not None and (method is not None or _identity(entry[0]) == ident):
        _WRAPPERS.move_to_end(key)
        return entry[1]
    name = identifier(method or getattr(f, "__name__", None) or "value")
    made = define(source(name, layout, roles, method), f"call_{name}", {"f": f} if method is None else {}, LABEL)
    _WRAPPERS[key] = (f, made)
    if len(_WRAPPERS) > _MAX_WRAPPERS:
        _, (_, old) = _WRAPPERS.popitem(last=False)
        _forget(old)
    return made


def _forget(made):
    """Drop the compiled code of a wrapper no longer kept."""
    from . import forward_api, pullback
    for table in (pullback._VJP_CACHES, forward_api._CACHES):
        table.pop(id(made), None)


def _inert(v, depth=0):
    """v cannot carry a derivative: a number, a string, a module, a class, a NumPy function, or a function
    holding nothing else."""
    if isinstance(v, _PLAIN) or isinstance(v, (types.ModuleType, type, np.ufunc)) or \
            type(v).__name__ == "_ArrayFunctionDispatcher":
        return True
    if type(v) is tuple:
        return all(_inert(x, depth) for x in v)
    return depth < 8 and callable(v) and not holds_state(v, depth + 1)


def holds_state(f, depth=0):
    """f may compute from values it holds that may be differentiated (a closure's arrays, a bound method's
    object, a partial's arguments, a callable object's fields), not only from its arguments and module
    globals."""
    if isinstance(f, types.FunctionType):
        held = [cell_value(c) for c in f.__closure__ or ()] + list(f.__defaults__ or ()) + \
            list((f.__kwdefaults__ or {}).values())
        return not all(v is f or _inert(v, depth) for v in held)
    if isinstance(f, functools.partial):
        return not all(_inert(v, depth) for v in (f.func, *f.args, *f.keywords.values()))
    if isinstance(f, (types.BuiltinFunctionType, types.MethodType)):
        return bound_method(f) is not None
    return not _inert(f, depth)
