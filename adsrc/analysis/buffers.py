"""Buffers of lowered (SSA) IR: which updates the differentiator may make in place.

Part of the alias analysis (aliases.py), asked of lowered IR: an item
assignment or append may change its base in place when the base is a
buffer only this function holds and no other value of the program needs it
afterwards.
"""

import gast

from ..ir import nodes as ir
from ..ir.walk import defines, expr_reads, own_reads, target_names, walk
from .aliases import VIEW_RULES, rule_key


def exclusive_updates(fn):
    """ids of Update/Append statements of lowered IR that may change their base in place.

    The base must be a buffer only this function holds (made by a NumPy
    operation, a constructor or a list display, possibly through earlier updates
    and loop carries), and nothing else may read it except indexing (arrays only,
    whose views the differentiator copies) and expressions that are never
    differentiated (shapes, tests): then no value of the old version is needed
    afterwards, only its shape. The differentiator also checks that its own
    backward code does not read the old version.
    """
    stmts = list(walk(fn.body))
    readers = {}

    def reader(name, ok):
        readers.setdefault(name, []).append(ok)
    for s in stmts:
        if isinstance(s, ir.Op):
            for n in expr_reads(s.expr):
                if isinstance(s, (ir.Update, ir.Append)):
                    base, rest = s.expr.args[0], s.expr.args[1:]
                    ok = isinstance(base, gast.Name) and base.id == n and \
                        all(n not in expr_reads(a) for a in rest)
                    reader(n, s if ok else None)
                else:
                    reader(n, s if isinstance(s, (ir.GetItem, ir.Const)) else None)
        else:
            for n in own_reads(s):
                reader(n, "flow" if isinstance(s, (ir.Scan, ir.WhileLoop)) else None)
            if isinstance(s, ir.Cond):
                for br in (s.true, s.false):
                    for r in br.results:
                        for n in expr_reads(r):
                            reader(n, None)
            if isinstance(s, (ir.Scan, ir.WhileLoop)):
                for r in s.results:
                    for n in expr_reads(r):
                        reader(n, "flow")
    for n in expr_reads(fn.result):
        reader(n, None)
    fresh = {n for s in stmts for n in list(defines(s)) + (list(s.carry) if isinstance(s, (ir.Scan, ir.WhileLoop))
                                                         else [])}
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if isinstance(s, ir.Op):
                names = target_names(s.target)
                if names[0] in fresh and not (isinstance(s.target, str) and _makes_fresh(s, fresh)):
                    fresh.difference_update(names)
                    changed = True
            elif isinstance(s, (ir.Scan, ir.WhileLoop)):
                for c, init, r, o in zip(s.carry, s.init, s.results, s.outs):
                    ok = all(isinstance(a, gast.Name) and a.id in fresh for a in (init, r))
                    if not ok and (c in fresh or o in fresh):
                        fresh.difference_update({c, o})
                        changed = True
            elif isinstance(s, (ir.Cond, ir.Def)):
                for o in defines(s):
                    if o in fresh:
                        fresh.discard(o)
                        changed = True
    allowed = {ir.Update: (ir.GetItem, ir.Const), ir.Append: (ir.Const,)}
    out = set()
    for s in stmts:
        if isinstance(s, (ir.Update, ir.Append)) and not s.shared:
            base = s.expr.args[0]
            if isinstance(base, gast.Name) and base.id in fresh and \
                    all(r is s or (r not in (None, "flow") and isinstance(r, allowed[type(s)]))
                        for r in readers.get(base.id, [])):
                out.add(id(s))
    return out


def _makes_fresh(s, fresh):
    """Does this operation produce a buffer only the function holds (given the fresh names)?"""
    if isinstance(s, ir.Apply):
        return not s.rule.container and rule_key(s.rule) not in VIEW_RULES
    if isinstance(s, ir.Const):
        return s.fresh and isinstance(s.expr, gast.Call)
    if isinstance(s, ir.Pack):
        return isinstance(s.expr, gast.List)
    if isinstance(s, (ir.Update, ir.Append, ir.Copy)):
        src = s.expr if isinstance(s, ir.Copy) else s.expr.args[0]
        return isinstance(src, gast.Name) and src.id in fresh
    return False


def fresh_values(fn):
    """Names bound to new arrays by rule operations of lowered IR that the function does not return.

    (An adjoint equal to such a value is not an array the caller holds.)
    """
    out = set()
    returned = set(expr_reads(fn.result)) if fn.result is not None else set()
    for s in walk(fn.body):
        if isinstance(s, ir.Apply) and isinstance(s.target, str) and _makes_fresh(s, out):
            out.add(s.target)
        if isinstance(s, ir.Pack) and isinstance(s.target, str) and s.target in returned:
            returned |= expr_reads(s.expr)
    return out - returned
