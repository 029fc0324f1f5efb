"""Calls of function values that adsrc learns only when the code runs.

`for f in fs: s = s + f(x)` with `fs` an argument, `getattr(np, name)(x)`, `table[key](x)` with a table
built at run time: adsrc cannot see when it transforms which function is called. The generated code calls
it through the helpers here, which differentiate the function the call finds (adsrc.vjp forward and
backward, adsrc.jvp in forward mode). The forward helper runs the function once and keeps its pullback on
the tape: the backward pass never runs it again, so random draws and side effects happen once, as in the
user's program.

A call `f(a, b, k=c)` reaches the helpers as `(f, layout, (a, b, c))` with `layout = (2, ("k",))`: the
number of positional arguments and the keywords' names. Arguments holding floats are differentiated;
integers, booleans and None are passed as integer primals (no tangent); anything else (a string, a function,
an object) is a constant of the function's compiled code (by identity, as adsrc.vjp's fixed arguments).
"""

import contextlib
import functools
import numbers

import numpy as np

from .errors import TransformError
from .kinds import arg_kind
from .runtime_core import helper
from .tangents import zeros_tangent
from .dynamic_wrappers import LABEL, bound_method, holds_state, wrapper

_nd = np.ndarray


def _role(x):
    """'f' for a value to differentiate, 'i' for one passed as an integer primal, 'c' for a constant."""
    if isinstance(x, (numbers.Integral, np.bool_)) or x is None or (type(x) is _nd and x.dtype.kind in "biu"):
        return "i"
    if isinstance(x, (str, bytes)) or callable(x):
        return "c"
    try:
        arg_kind(x, "", "")
    except TypeError:
        return "c"
    return "f"


def _refuse_state(f):
    name = getattr(getattr(f, "__func__", f), "__qualname__", None) or repr(f)
    raise TransformError(
        f"adsrc differentiates this call when the code runs, since it learns only then which function is "
        f"called. The function found, `{name}`, comes from a differentiated value and holds values of its own "
        "(a closure's or a functools.partial's arrays or objects, a bound method's object, a callable "
        "object's fields), which may be differentiated: the derivative through them would be lost.\n"
        "Define the function to take the differentiated values as parameters and pass them in the call, or "
        "call a function adsrc can see when it transforms (a def in this function or at module level, or a "
        "method called as `obj.method(...)`).")


def _plan(f, layout, args):
    """(function of the primals, primals, their positions among args, their roles), or None when no argument
    holds floats (the call then has no derivative). A bound method's object comes first, at position -1.
    layout[2] == "stateless": f comes from differentiated values, and must compute from its arguments
    only."""
    if not callable(f):
        return None             # (calling it raises Python's TypeError)
    if len(layout) > 2 and holds_state(f):
        _refuse_state(f)
    method = bound_method(f)
    every, shift, name = (tuple(args), 0, None) if method is None else ((method[0],) + tuple(args), 1, method[1])
    roles = tuple(_role(a) for a in every)
    if "f" not in roles[shift:]:
        return None
    made = wrapper(f, (layout[0] + shift, layout[1]), roles, name)
    consts = [a for a, r in zip(every, roles) if r == "c"]
    kept = [(k - shift, a, r) for k, (a, r) in enumerate(zip(every, roles)) if r != "c"]
    fun = functools.partial(made, *consts) if consts else made
    return fun, [a for _, a, _ in kept], [k for k, _, _ in kept], [r for _, _, r in kept]


def _call(f, layout, args):
    npos, keywords = layout[:2]
    return f(*args[:npos], **dict(zip(keywords, args[npos:])))


@helper
def call_value_fwd(f, layout, args):
    """(f(*args), residuals): the call's value, and its pullback for call_value_bwd."""
    plan = _plan(f, layout, args)
    if plan is None:
        return _call(f, layout, args), None
    from .pullback import vjp
    fun, primals, where, _ = plan
    with _told(f):
        out, pullback = vjp(fun, *primals)
    return out, (pullback, where, len(args))


@helper
def call_value_bwd(res, g, nargs):
    """One cotangent per argument of the call (0.0 for those without one)."""
    cots = [0.0] * nargs
    if res is None:
        return tuple(cots)
    pullback, where, _ = res
    for k, c in zip(where, pullback(g)):
        if c is not None and k >= 0:
            cots[k] = c
    return tuple(cots)


@helper
def call_value_jvp(f, layout, args, tangents):
    """(f(*args), its tangent) for the arguments' tangents."""
    plan = _plan(f, layout, args)
    if plan is None:
        out = _call(f, layout, args)
        return out, zeros_tangent(out)
    from .forward_api import jvp
    fun, primals, where, roles = plan
    dots = [tangents[k] if k >= 0 and r == "f" else None for k, r in zip(where, roles)]
    with _told(f):
        return jvp(fun, tuple(primals), tuple(dots))


@contextlib.contextmanager
def _told(f):
    """A refusal of f, told as the call's: the wrapper's own line (`return f(p0)`) left out."""
    try:
        yield
    except TransformError as e:
        lines = str(e).splitlines()
        keep, skip = [], 0
        for line in lines:
            if LABEL in line and line.lstrip().startswith("File"):
                skip = 2
                continue
            if skip and (line.strip() == "^" or line.strip().startswith("return ")):
                skip -= 1
                continue
            skip = 0
            keep.append(line)
        name = getattr(getattr(f, "__func__", f), "__qualname__", None) or repr(f)
        raise TransformError(f"This call's function, found when the code ran, is `{name}`. " +
                             "\n".join(keep)) from None
