"""Which of a loop iteration's values the backward loop recomputes instead of saving on the tape.

A value is recomputed when that is cheap and costs no memory: an elementwise
operation whose operands the backward loop has anyway (values saved on the
tape, other recomputed values, the function's own parameters, constants),
or an item of a parameter indexed by such values or by the loop's item
(`xs[t]`: the tape then keeps `t` rather than a view of `xs`).
`np.sin(s)` is then recomputed from the saved `s`, instead of saving both.

Loops whose body updates arrays or lists are left as they are: there, the
operands may change after the value was computed.
"""

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import walk

_CHANGES = (ir.Update, ir.Append, ir.InplaceOp, ir.MutatingCall, ir.SetItem)


def _reads(expr):
    return {n.id for n in astutil.walk(expr) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _operands(stmt):
    """The names an operation reads: its operands, not the function it calls."""
    e = stmt.expr
    if isinstance(e, gast.Call):
        out = set().union(*(_reads(a) for a in list(e.args) + [k.value for k in e.keywords]))
        if isinstance(stmt, ir.Apply) and stmt.method_of is not None:
            out |= _reads(stmt.method_of)        # `W.copy()`: the object the method is called on is read too
        return out
    return _reads(e)


def _recomputable(stmt):
    """'value' for an elementwise operation, 'item' for an indexing, else None."""
    if not isinstance(getattr(stmt, "target", None), str):
        return None
    if isinstance(stmt, ir.Apply) and stmt.rule.kind == "elementwise" and not stmt.rule.container and \
            not (isinstance(stmt.expr, gast.Call) and any(k.arg in ("out", "where") for k in stmt.expr.keywords)):
        return "value"      # (not one that writes into an `out=` array: it would write again)
    if isinstance(stmt, ir.GetItem):
        return "item"
    return None


def _forward_assigns(fwd_body):
    out = {}
    for s in fwd_body:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            out.setdefault(s.targets[0].id, []).append(s)
    return out


def plan(body, fwd_body, residuals, shapes, item, params, fixed):
    """(names saved on the tape, statements that recompute the others at the start of the backward body).

    residuals: what the backward body reads of an iteration; shapes: those it reads only for a shape (saved
    as stand-ins, never recomputed); item: the loop's item name or None; params: the function's parameters
    that nothing changes; fixed: names that must be saved (carried values).
    """
    if any(isinstance(s, _CHANGES) for s in walk(body)):
        return list(residuals), []
    defs = {s.target: s for s in body if _recomputable(s)}
    assigns = _forward_assigns(fwd_body)
    saved = set(residuals)
    recomputed = []
    have = set(params)
    for s in body:            # in order: a recomputed value may use values recomputed before it
        r = getattr(s, "target", None)
        if not isinstance(r, str) or r not in saved or r in shapes or r in fixed or defs.get(r) is not s \
                or len(assigns.get(r, ())) != 1:
            continue
        kind = _recomputable(s)
        reads = _operands(s)
        allowed = (saved - shapes - {r}) | have | ({item} if kind == "item" and item else set())
        if kind == "item" and not isinstance(s.expr, gast.Subscript):
            continue
        if kind == "item" and not (isinstance(s.expr.value, gast.Name) and s.expr.value.id in params):
            continue
        if not reads <= allowed:
            continue
        saved.discard(r)
        have.add(r)
        if kind == "item" and item in reads:
            saved.add(item)
        recomputed.append(astutil.clone(assigns[r][0]))
    return sorted(saved), recomputed


def unchanged_params(fn):
    """The parameters of fn that no update, append or call to a function changing its arguments touches."""
    out = set(fn.params)
    for s in walk(fn.body):
        if isinstance(s, (ir.Update, ir.Append)) and isinstance(s.expr, gast.Call) and s.expr.args \
                and isinstance(s.expr.args[0], gast.Name):
            out.discard(s.expr.args[0].id)
        elif isinstance(s, _CHANGES) or isinstance(s, ir.CallUser) and s.returns_params:
            out -= _reads(s.expr) if getattr(s, "expr", None) is not None else out
    return out
