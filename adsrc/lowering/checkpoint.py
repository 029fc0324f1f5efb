"""A call to an `adsrc.checkpoint` function during normalization: the call of the function it wraps,
marked as checkpointed (`CallUser.checkpoint`), so that the differentiator recomputes it backward.

The call is lowered exactly as a call of the wrapped function would be (a plain function, a
bound method, a callable object, a functools.partial): only the `CallUser` it becomes is
marked. A wrapped function adsrc follows in another way (a NumPy function with a rule, a
custom_vjp) keeps its own derivative: there is nothing to recompute.
"""

import types

import gast

from ..ir import nodes as ir


def checkpoint_call(norm, e, obj, target):
    """Emit the call e of the Checkpointed obj into target (norm: the Normalizer)."""
    if not obj.saves_nothing:
        return norm.call(_rebound(norm, e, obj.fun), target)      # everything_saveable: an ordinary call
    start = len(norm.out)
    fun = obj.fun
    if isinstance(fun, types.FunctionType):
        norm.static_call(e, fun, target)            # the call as written: it still calls the wrapper
    else:
        norm.call(_rebound(norm, e, fun), target)
    calls = [s for s in norm.out[start:] if isinstance(s, ir.CallUser)]
    if len(calls) == 1:
        calls[0].checkpoint = obj


def _rebound(norm, e, fun):
    """The call e with the wrapped function (bound to a name generated code can use) as its callee."""
    name = getattr(fun, "__name__", None) or getattr(getattr(fun, "func", None), "__name__", "fun")
    if isinstance(fun, types.MethodType):
        owner = gast.Name(id=norm.bind(type(fun.__self__).__name__.lower(), fun.__self__), ctx=gast.Load(),
                          annotation=None, type_comment=None)
        func = gast.Attribute(value=owner, attr=fun.__name__, ctx=gast.Load())
    else:
        func = gast.Name(id=norm.bind(name, fun), ctx=gast.Load(), annotation=None, type_comment=None)
    return gast.Call(func=func, args=list(e.args), keywords=list(e.keywords))
