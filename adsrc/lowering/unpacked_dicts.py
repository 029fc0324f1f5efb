"""`model(x, **params)`: a dict unpacked into a function of the user's whose parameters are named.

adsrc binds a call's arguments to the callee's parameters when it transforms, but a dict's keys are known only
when the code runs. The callee's parameters are known, though: each one the call does not pass otherwise is
read from the dict, as Python would take it from there,

    model(x, **params)   ->   model(x, a=params["a"], b=params.get("b", <b's default>))

after a check, when the code runs, that the dict has no key the callee does not take (Python's TypeError).
The derivative then flows into the dict's items like through any indexing.
"""

import inspect

import gast

from .. import astutil
from ..ir import nodes as ir


def expanded_call(norm, e, callee):
    """The call e of callee with its one `**d` replaced by keywords read from d, or None."""
    stars = [k for k in e.keywords if k.arg is None]
    if len(stars) != 1 or any(isinstance(a, gast.Starred) for a in e.args) or not inspect.isfunction(callee):
        return None
    params = list(inspect.signature(callee, follow_wrapped=False).parameters.values())
    if any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    given = {p.name for p in positional[:len(e.args)]} | {k.arg for k in e.keywords if k.arg is not None}
    if len(e.args) > len(positional):
        return None
    source = norm.atom(stars[0].value)
    open_params = [p for p in params if p.name not in given and p.kind != p.POSITIONAL_ONLY]
    allowed = astutil.const(tuple(p.name for p in open_params))
    norm.emit(ir.Effect(astutil.call(astutil.name(norm.namer.helper("check_unpacked_keys")),
                                     [astutil.clone(source), allowed, astutil.const(callee.__name__)])), e)
    keywords = [k for k in e.keywords if k.arg is not None]
    for p in open_params:
        key = astutil.const(p.name)
        if p.default is p.empty:
            value = gast.Subscript(value=astutil.clone(source), slice=key, ctx=gast.Load())
        else:
            literal = p.default is None or type(p.default) in (int, float, bool, str, complex)
            default = astutil.const(p.default) if literal else astutil.name(norm.bind(f"{p.name}_default", p.default))
            value = gast.Call(func=gast.Attribute(value=astutil.clone(source), attr="get", ctx=gast.Load()),
                              args=[key, default], keywords=[])
        keywords.append(gast.keyword(arg=p.name, value=value))
    return gast.Call(func=e.func, args=list(e.args), keywords=keywords)
