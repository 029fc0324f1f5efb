"""Differentiated calls of function values known only when the code runs (ir.Opaque with `dynamic`).

The forward code calls `call_value_fwd(f, layout, (args...))`, which runs f once, differentiated, and gives
its value and a pullback kept as residuals (on the tape in a loop); the backward code passes the cotangent
to `call_value_bwd`, which gives one cotangent per argument. Forward mode calls `call_value_jvp`. The
helpers are in dynamic_calls.py.

The function value must not carry a derivative itself: a nested function that reads a differentiated
value, put in a list and called from it, would be differentiated when it runs as a constant function, so
the derivative through what it captured would be lost. Where the value called depends on differentiated
values, the helpers refuse one that holds state (a closure, a bound method, a partial, a callable object);
a module's function or a NumPy function found there (a field `self.act = np.tanh` of a differentiated
object) is called as usual.
"""

import gast

from .. import astutil
from ..ir.walk import target_names


def _stem(target):
    return target.split(".")[-1] if isinstance(target, str) else "out"


def _arguments(call):
    return list(call.args) + [k.value for k in call.keywords]


def _layout(d, s):
    """(positional count, keyword names), and "stateless" when the called value depends on differentiated
    values: the helper then refuses a value that holds state (d: the Adjoint or Forward differentiator)."""
    call = s.expr
    layout = (len(call.args), tuple(k.arg for k in call.keywords))
    func = call.func.value if isinstance(call.func, gast.Attribute) else call.func     # (`obj.method`: obj)
    if d.act.any_varied([func]):
        layout += ("stateless",)
    return astutil.const(layout)


def refuse_differentiated_receiver(d, s):
    """`obj.method(x)` with obj differentiated and its class unknown when transforming: the method found when
    the code runs would hold obj, whose derivative would be lost; refused now, where the call is."""
    func = s.expr.func
    if isinstance(func, gast.Attribute) and d.act.any_varied([func.value]):
        raise d.error(s, f"adsrc cannot differentiate through {s.describe}.", s.hint)


def forward(adj, s):
    """The forward code of an active dynamic call: its value and residuals."""
    refuse_differentiated_receiver(adj, s)
    call = s.expr
    res = adj.namer.fresh(_stem(s.target) + "_res")
    adj.calls[id(s)] = res
    adj.frame.add(res)
    expr = adj.hcall("call_value_fwd", call.func, _layout(adj, s), astutil.tuple_(_arguments(call)))
    return [astutil.assign((s.target, res), expr)]


def adjoint(adj, s, g, out):
    """The arguments' cotangents from the output's (g)."""
    args = _arguments(s.expr)
    targets = [adj.namer.fresh("d" + a.id) if adj.active_name(a) else "_" for a in args]
    if all(t == "_" for t in targets):
        return
    cots = adj.hcall("call_value_bwd", astutil.name(adj.calls[id(s)]), adj.custom_g(s, g), astutil.const(len(args)))
    out.append(astutil.assign(tuple(targets) if len(targets) > 1 else targets[0], cots if len(targets) > 1 else
                              gast.Subscript(value=cots, slice=astutil.const(0), ctx=gast.Load())))
    for a, t in zip(args, targets):
        if t != "_":
            adj.accumulate(a.id, astutil.name(t), out)


def tangent(fwd, s):
    """Forward mode: the call's value and tangent."""
    refuse_differentiated_receiver(fwd, s)
    call = s.expr
    args = _arguments(call)
    expr = fwd.hcall("call_value_jvp", call.func, _layout(fwd, s), astutil.tuple_(args),
                     astutil.tuple_([fwd.tangent_or_zeros(a) for a in args]))
    tdot = fwd.namer.fresh(_stem(s.target) + "_dot")
    out = [astutil.assign((s.target, tdot), expr)]
    fwd.set_tangent(s.target, astutil.name(tdot), out)
    return out


def useful(d, s):
    """Its value reaches the result differentiably."""
    return any(n in d.act.useful for n in target_names(s.target))
