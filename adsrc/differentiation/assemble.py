"""The generated functions' outer shape.

* mode 'grad': `f_grad(args)` returns the gradients (seeded with the literal
  1.0, so `1.0 * y` folds to `y`);
* mode 'vjp': `f_vjp(args)` returns `(out, residuals)`, and `f_pullback(residuals,
  dout)` returns the cotangents of the arguments; used for calls from one user
  function to another and for `adsrc.vjp`. The residuals are a tuple of the values
  the backward pass reads: no closure, so the generated code is itself code adsrc
  can differentiate (higher order).
"""


import types

import gast

from .. import astutil
from ..analysis.summaries import _is_function
from ..emission import copyprop, dce, outputs, release
from ..ir import nodes as ir
from .complex_values import may_be_complex
from .state import AdjState, comment


def result_parts(fn, n):
    """Atoms of a result that is a tuple display of n elements, else subscripts of it."""
    res = fn.result
    if isinstance(res, gast.Name):
        for s in fn.body:
            if isinstance(s, ir.Pack) and s.target == res.id and isinstance(s.expr, gast.Tuple) \
                    and len(s.expr.elts) == n:
                return [astutil.clone(e) for e in s.expr.elts]
    return [gast.Subscript(value=astutil.clone(res), slice=astutil.const(i), ctx=gast.Load()) for i in range(n)]


def _grads(adj, final):
    out = []
    for p in adj.wrt:
        st = adj.adj.get(p)
        g = st.expr if st is not None else astutil.const(0.0)
        if final:
            borrowed = st is None or st.borrowed
            g = adj.hcall("grad_output", g, astutil.name(p), *([astutil.const(True)] if borrowed else []))
        out.append(g)
    return out


def assemble_grad(adj, fn, name, options):
    has_aux = options.get("has_aux", False)
    res = fn.result
    value, aux = result_parts(fn, 2) if has_aux else (res, None)
    tail = []
    if has_aux and isinstance(value, gast.Subscript):      # (not a pair written out: checked when it runs)
        tail.append(astutil.expr_stmt(adj.hcall("check_pair", astutil.clone(res), astutil.const(fn.uf.qualname))))
    one = astutil.const(1.0)
    if not adj.values.scalar(value):
        # the output is checked when it runs: the seed is 1.0, or ones for an array of one element
        one = astutil.name(adj.namer.fresh("seed"))
        tail.append(astutil.assign(one.id, adj.hcall("check_scalar", astutil.clone(value),
                                                     astutil.const(fn.uf.qualname))))
    elif may_be_complex(fn) or options.get("complex_scalars"):
        # a number, but perhaps a complex one (whose imaginary part the gradient would drop): refused when it
        # runs, as JAX's grad refuses it; the seed stays the literal 1.0
        tail.append(astutil.expr_stmt(adj.hcall("check_scalar", astutil.clone(value), astutil.const(fn.uf.qualname))))
    if isinstance(res, gast.Name) and res.id in adj.act.varied:
        seed = astutil.tuple_([astutil.clone(one), astutil.const(0.0)]) if has_aux else astutil.clone(one)
        adj.adj[res.id] = AdjState(seed, lazy=False)
    fwd, bwd, _ = adj.block(fn.body, repeated=False)
    grads = []
    for p in adj.wrt:
        st = adj.adj.get(p)
        g = st.expr if st is not None else astutil.const(0.0)
        extra = [astutil.const(True)] if st is not None and st.borrowed else []
        grads.append(adj.hcall("grad_output", g, astutil.name(p), *extra))
    grads_expr = grads[0] if options.get("single", True) else astutil.tuple_(grads)
    if has_aux:
        out = astutil.tuple_([astutil.tuple_([astutil.clone(value), aux]), grads_expr]) if options.get("with_value") \
            else astutil.tuple_([grads_expr, aux])
    else:
        out = astutil.tuple_([astutil.clone(value), grads_expr]) if options.get("with_value") else grads_expr
    body = fwd + tail + ([comment("backward pass")] if bwd else []) + bwd + [gast.Return(value=out)]
    body, _ = dce.eliminate(copyprop.propagate(body))
    parameters = {a.id for a in astutil.walk(fn.args) if isinstance(a, gast.Name)}
    body = outputs.skip_conversions(body, options.get("ndarrays", ()), options.get("floats", ()), adj.namer.helpers,
                                    adj.namer.helper, parameters)
    adj.finish_updates(body)
    arrays = {n for n in adj.fresh_locals if adj.values[n].kind == "array"}
    body = release.release_shapes(body, arrays, adj.namer.helpers, adj.namer.helper)
    return astutil.function_def(name, astutil.clone(fn.args), body, fn.lineno)


def assemble_vjp(adj, fn, name, options):
    res = fn.result
    dout = adj.namer.fresh("d" + (res.id if isinstance(res, gast.Name) else "out"))
    if isinstance(res, gast.Name) and res.id in adj.act.varied:
        seed = astutil.name(dout)
        if options.get("has_aux"):
            seed = astutil.tuple_([seed, astutil.const(0.0)])     # no cotangent flows into aux
        adj.adj[res.id] = AdjState(seed, lazy=True, borrowed=True)    # the caller's cotangent
    fwd, bwd, _ = adj.block(fn.body, repeated=False)
    grads = _grads(adj, options.get("final"))
    pb_name = adj.namer.fresh(fn.uf.name + "_pullback")
    res_name = adj.namer.fresh("residuals")
    pullback = astutil.function_def(pb_name, [dout], bwd + [gast.Return(value=astutil.tuple_(grads))])
    ret = gast.Return(value=astutil.tuple_([astutil.clone(res), astutil.name(pb_name)]))
    body, _ = dce.eliminate(copyprop.propagate(fwd + [pullback, ret]))
    adj.finish_updates(body)
    pullback = next(s for s in body if isinstance(s, gast.FunctionDef) and s.name == pb_name)
    body = [s for s in body if s is not pullback]
    residuals = _free_in(pullback, _bound_in(fn.args, body))
    residuals = _statics_bound(adj, fn, pullback, body, residuals)
    shapes = {r for r in release.shape_only(residuals, pullback.body, adj.namer.helpers)
              if adj.values[r].kind == "array"}
    body[-1].value.elts[1] = astutil.tuple_([adj.hcall("only_shape", astutil.name(r)) if r in shapes
                                             else astutil.name(r) for r in residuals])
    always = _bound_in(fn.args, [s for s in body if isinstance(s, gast.Assign)])
    # a residual bound only in some branch or loop is read by the pullback only there: None elsewhere
    body = [astutil.assign(r, astutil.const(None)) for r in residuals if r not in always] + body
    if residuals:
        unpack = astutil.assign(tuple(residuals) if len(residuals) > 1 else residuals[0],
                                astutil.name(res_name) if len(residuals) > 1 else
                                gast.Subscript(value=astutil.name(res_name), slice=astutil.const(0), ctx=gast.Load()))
        pullback.body.insert(0, unpack)
    pullback.args = astutil.arguments([res_name, dout])
    return [astutil.function_def(name, astutil.clone(fn.args), body, fn.lineno), pullback]


def _statics_bound(adj, fn, pullback, body, residuals):
    """The residuals but the functions passed to this one that the pullback reads (static parameters, which
    select this unit): it reads those as objects of the generated code, so that a transformation of the
    pullback knows them too. (Other static values, such as a method's receiver, are the argument the call
    passes: a unit serves every object of the class.)"""
    known = getattr(fn.uf, "known", {})
    assigned = set()
    for s in body:
        assigned |= set(astutil.names_stored(s))
    statics = {r: adj.ctx.bind(r, known[r]) for r in residuals if r in known and r not in assigned and
               _is_function(known[r]) and not isinstance(known[r], types.MethodType)}
    if not statics:
        return residuals
    for n in astutil.walk(pullback):
        if isinstance(n, gast.Name) and n.id in statics:
            n.id = statics[n.id]
    return [r for r in residuals if r not in statics]


def _bound_in(args, body):
    """Names the forward function binds: its parameters, what its statements assign and the functions
    they define (a lambda of the code being differentiated again becomes a local def that the pullback
    may read: it is a residual like any other value)."""
    out = set(astutil.names_stored(args)) | {a.id for a in astutil.walk(args) if isinstance(a, gast.Name)}
    for s in body:
        out |= set(astutil.names_stored(s))
        out |= {n.name for n in astutil.walk(s) if isinstance(n, gast.FunctionDef)}
    return out


def _free_in(fdef, bound):
    """The names of `bound` that fdef reads before assigning, in order of first reading (deterministic)."""
    own = set(astutil.names_stored(fdef.args)) | {a.id for a in astutil.walk(fdef.args) if isinstance(a, gast.Name)}
    stored = set()
    for s in fdef.body:
        stored |= set(astutil.names_stored(s))
    seen = []
    for n in astutil.walk(fdef):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in bound and n.id not in own \
                and n.id not in stored and n.id not in seen:
            seen.append(n.id)
    return seen
