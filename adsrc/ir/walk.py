"""Traversal of the IR: nested blocks, the names a statement reads and defines, renaming.

Every pass asks these questions through this module, so a new kind of
statement is taught to the passes in one place.
"""

import gast

from .. import astutil
from ..astutil import _CHILD_FIELDS, child_fields
from ..astutil import walk as walk_nodes
from . import nodes as ir


# -- expressions ------------------------------------------------------------------------------------

def expr_reads(node, Name=gast.Name, Load=gast.Load):
    """Free names an expression reads (names bound by lambdas inside it are not free)."""
    out = set()
    if node is None:
        return out
    for n in walk_nodes(node):      # most expressions bind no names of their own: one walk
        t = type(n)
        if t is Name:
            if type(n.ctx) is Load:
                out.add(n.id)
        elif t in _SCOPES:
            out = set()
            _expr_reads(node, set(), out)
            break
    return out


def _expr_reads(node, bound, out):
    if node is None:
        return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load) and node.id not in bound:
            out.add(node.id)
        return
    if isinstance(node, gast.Lambda):
        inner = bound | {a.id for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
        _expr_reads(node.body, inner, out)
        for d in node.args.defaults:
            _expr_reads(d, bound, out)
        return
    if isinstance(node, _COMPREHENSIONS):
        for part, names in comprehension_parts(node, bound):
            _expr_reads(part, names, out)
        return
    fields = _CHILD_FIELDS.get(type(node))
    for f in child_fields(type(node)) if fields is None else fields:    # astutil.children, inlined (hot)
        v = getattr(node, f, None)
        if isinstance(v, gast.AST):
            _expr_reads(v, bound, out)
        elif isinstance(v, list):
            for child in v:
                if isinstance(child, gast.AST):
                    _expr_reads(child, bound, out)


def rename_expr(node, mapping):
    """Rename free names read in an expression, in place; returns the node."""
    if mapping and node is not None:
        _rename(node, mapping, set())
    return node


def _rename(node, mapping, bound):
    if isinstance(node, gast.Name):
        if node.id in mapping and node.id not in bound:
            node.id = mapping[node.id]
        return
    if isinstance(node, gast.Lambda):
        inner = bound | {a.id for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
        _rename(node.body, mapping, inner)
        return
    if isinstance(node, _COMPREHENSIONS):
        for part, names in comprehension_parts(node, bound):
            _rename(part, mapping, names)
        return
    for child in astutil.children(node):
        _rename(child, mapping, bound)


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)
_SCOPES = frozenset(_COMPREHENSIONS + (gast.Lambda,))     # expressions that bind names of their own


def comprehension_parts(node, bound):
    """[(part, the names bound where it is evaluated)] of a comprehension: its variables are its own, and only
    its first iterable is evaluated in the enclosing scope (bound: the names bound there)."""
    out, inner = [], set(bound)
    for i, gen in enumerate(node.generators):
        out.append((gen.iter, bound if i == 0 else set(inner)))
        inner |= {n.id for n in astutil.walk(gen.target) if isinstance(n, gast.Name)}
        out += [(c, set(inner)) for c in gen.ifs]
    return out + [(part, inner) for part in ((node.key, node.value) if isinstance(node, gast.DictComp)
                                             else (node.elt,))]


def target_names(t):
    """Flat list of names in a target (a name or a nested tuple of names)."""
    if t is None:
        return []
    if isinstance(t, str):
        return [t]
    out = []
    for e in t:
        out.extend(target_names(e))
    return out


def rename_target(t, mapping):
    if t is None:
        return None
    if isinstance(t, str):
        return mapping.get(t, t)
    return tuple(rename_target(e, mapping) for e in t)


def is_atom(node):
    return isinstance(node, (gast.Name, gast.Constant))


# -- iteration forms --------------------------------------------------------------------------------

def iteration_exprs(it):
    """The expressions an iteration (a RangeIter) evaluates."""
    return list(it.args)


# -- statements ---------------------------------------------------------------------------------------

def blocks(stmt):
    """The nested blocks of a statement (not a nested def's body)."""
    if isinstance(stmt, ir.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, ir.For):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, ir.While):
        return [stmt.test_body, stmt.body, stmt.orelse]
    if isinstance(stmt, ir.Cond):
        return [stmt.true.body, stmt.false.body]
    if isinstance(stmt, ir.WhileLoop):
        return [stmt.test_body, stmt.body]
    if isinstance(stmt, ir.Scan):
        return [stmt.body]
    return []


def walk(body):
    """Every statement of a block, nested blocks included (not nested defs' bodies)."""
    for s in body:
        yield s
        for b in blocks(s):
            yield from walk(b)


def own_exprs(stmt):
    """Expressions a statement evaluates itself, in its enclosing block (not in nested blocks)."""
    if isinstance(stmt, ir.Op) or isinstance(stmt, ir.Effect):
        return [stmt.expr]
    if isinstance(stmt, ir.Raw):
        return [stmt.node]
    if isinstance(stmt, ir.SetItem):
        return [stmt.index, stmt.value, gast.Name(id=stmt.base, ctx=gast.Load(), annotation=None,
                                                   type_comment=None)]
    if isinstance(stmt, ir.InplaceOp):
        return [stmt.value, gast.Name(id=stmt.target, ctx=gast.Load(), annotation=None, type_comment=None)]
    if isinstance(stmt, ir.MutatingCall):
        return list(stmt.args) + [gast.Name(id=stmt.receiver, ctx=gast.Load(), annotation=None,
                                            type_comment=None)]
    if isinstance(stmt, ir.If):
        return [stmt.test] + _catch_exprs(stmt)
    if isinstance(stmt, ir.For):
        return iteration_exprs(stmt.iter)
    if isinstance(stmt, ir.Return):
        return [stmt.value]
    if isinstance(stmt, ir.Cond):
        return [stmt.pred] + _catch_exprs(stmt)
    if isinstance(stmt, ir.Scan):
        return list(stmt.init) + [stmt.xs]
    if isinstance(stmt, ir.WhileLoop):
        return list(stmt.init)
    return []


def own_reads(stmt):
    """Names a statement reads in its enclosing block (a nested def: its free names)."""
    if isinstance(stmt, ir.Def):
        return free_names(stmt.fn)
    out = set()
    for e in own_exprs(stmt):
        out |= expr_reads(e)
    return out


def defines(stmt):
    """Names a statement (re)binds in its enclosing block."""
    if isinstance(stmt, ir.Op):
        return target_names(stmt.target)
    if isinstance(stmt, ir.SetItem):
        return [stmt.base]
    if isinstance(stmt, ir.InplaceOp):
        return [stmt.target]
    if isinstance(stmt, ir.MutatingCall):
        return [stmt.receiver] + ([stmt.target] if stmt.target else [])
    if isinstance(stmt, ir.Def):
        return [stmt.name]
    if isinstance(stmt, (ir.Cond, ir.Scan, ir.WhileLoop)):
        return list(stmt.outs)
    return []


def assigned(body):
    """Names bound anywhere in a structured block, nested blocks included, in first-seen order."""
    out, seen = [], set()
    for s in walk(body):
        names = list(defines(s))
        if isinstance(s, ir.For):
            names += target_names(s.target)
        for n in names:
            if n not in seen:
                seen.add(n)
                out.append(n)
    return out


def free_names(fn_or_body, bound=()):
    """Names a function (or block) reads that it does not bind itself before."""
    if isinstance(fn_or_body, ir.Function):
        defined = set(bound) | set(fn_or_body.params)
        reads = set()
        _free(fn_or_body.body, defined, reads)
        if fn_or_body.result is not None:
            reads |= expr_reads(fn_or_body.result) - defined
        for d in fn_or_body.args.defaults + [d for d in fn_or_body.args.kw_defaults if d is not None]:
            reads |= expr_reads(d)
        return reads | fn_or_body.nonlocals        # written there: the enclosing function's variables
    reads = set()
    _free(fn_or_body, set(bound), reads)
    return reads


def _free(body, defined, reads):
    for s in body:
        reads |= own_reads(s) - defined
        if isinstance(s, ir.If):
            for b in (s.body, s.orelse):
                _free(b, set(defined), reads)
        elif isinstance(s, ir.For):
            _free(s.body, defined | set(target_names(s.target)), reads)
        elif isinstance(s, ir.While):
            inner = set(defined)
            _free(s.test_body, inner, reads)
            reads |= expr_reads(s.test) - inner
            _free(s.body, inner, reads)
        elif isinstance(s, ir.Cond):
            for br in (s.true, s.false):
                inner = set(defined)
                _free(br.body, inner, reads)
                for r in br.results:
                    reads |= expr_reads(r) - inner
        elif isinstance(s, (ir.Scan, ir.WhileLoop)):
            inner = set(defined) | set(s.carry)
            if isinstance(s, ir.Scan) and s.item is not None:
                inner.add(s.item)
            if isinstance(s, ir.WhileLoop):
                _free(s.test_body, inner, reads)
                reads |= expr_reads(s.test) - inner
            _free(s.body, inner, reads)
            for r in s.results:
                reads |= expr_reads(r) - inner
        defined.update(defines(s))


def reads_anywhere(body):
    """Every name read anywhere in a block: statements, nested blocks, results, tests, nested defs."""
    out = set()
    for s in walk(body):
        out |= own_reads(s)
        if isinstance(s, ir.Cond):
            for br in (s.true, s.false):
                for r in br.results:
                    out |= expr_reads(r)
        elif isinstance(s, (ir.Scan, ir.WhileLoop)):
            for r in s.results:
                out |= expr_reads(r)
            if isinstance(s, ir.WhileLoop):
                out |= expr_reads(s.test)
        elif isinstance(s, ir.While):
            out |= expr_reads(s.test)
    return out


def _catch_exprs(stmt):
    """A `try`'s (If or Cond with catches): its exception types, and the name it sets to the exception."""
    if stmt.catches is None:
        return []
    return [stmt.catches] + ([gast.Name(id=stmt.caught, ctx=gast.Load(), annotation=None, type_comment=None)]
                             if stmt.caught else [])


def rename_reads(stmt, mapping):
    """Rename the names a statement reads in its enclosing block (not nested blocks), in place."""
    if not mapping:
        return
    if isinstance(stmt, (ir.Op, ir.Effect)):
        rename_expr(stmt.expr, mapping)
    elif isinstance(stmt, ir.Raw):
        rename_expr(stmt.node, mapping)
    elif isinstance(stmt, ir.SetItem):
        rename_expr(stmt.index, mapping)
        rename_expr(stmt.value, mapping)
    elif isinstance(stmt, ir.InplaceOp):
        rename_expr(stmt.value, mapping)
    elif isinstance(stmt, ir.MutatingCall):
        for a in stmt.args:
            rename_expr(a, mapping)
    elif isinstance(stmt, (ir.If, ir.Cond)):
        rename_expr(stmt.test if isinstance(stmt, ir.If) else stmt.pred, mapping)
        if stmt.catches is not None:
            rename_expr(stmt.catches, mapping)
        if stmt.caught is not None:
            stmt.caught = mapping.get(stmt.caught, stmt.caught)
    elif isinstance(stmt, ir.For):
        for e in iteration_exprs(stmt.iter):
            rename_expr(e, mapping)
    elif isinstance(stmt, ir.Return):
        rename_expr(stmt.value, mapping)
    elif isinstance(stmt, ir.Scan):
        for e in stmt.init + [stmt.xs]:
            rename_expr(e, mapping)
    elif isinstance(stmt, ir.WhileLoop):
        for e in stmt.init:
            rename_expr(e, mapping)
    if isinstance(stmt, ir.Apply) and stmt.method_of is not None:
        rename_expr(stmt.method_of, mapping)
    if isinstance(stmt, ir.CallUser) and stmt.receiver is not None:
        rename_expr(stmt.receiver, mapping)


def rename_all(body, mapping):
    """Rename every occurrence (reads and definitions) of names in a block, nested blocks included."""
    for s in walk(body):
        rename_reads(s, mapping)
        if isinstance(s, ir.Op):
            s.target = rename_target(s.target, mapping)
        elif isinstance(s, ir.SetItem):
            s.base = mapping.get(s.base, s.base)
        elif isinstance(s, ir.InplaceOp):
            s.target = mapping.get(s.target, s.target)
        elif isinstance(s, ir.MutatingCall):
            s.receiver = mapping.get(s.receiver, s.receiver)
            s.target = mapping.get(s.target, s.target) if s.target else None
        elif isinstance(s, ir.For):
            s.target = rename_target(s.target, mapping)
            s.stop = mapping.get(s.stop, s.stop) if s.stop else None
        elif isinstance(s, ir.While):
            rename_expr(s.test, mapping)
        elif isinstance(s, ir.Def):
            s.name = mapping.get(s.name, s.name)
            # only the def's free names are the enclosing function's (its locals shadow them)
            free = {k: v for k, v in mapping.items() if k in free_names(s.fn)}
            if free:
                rename_all(s.fn.body, free)
                if s.fn.result is not None:
                    rename_expr(s.fn.result, free)
        elif isinstance(s, ir.Cond):
            for br in (s.true, s.false):
                br.results = [rename_expr(r, mapping) for r in br.results]
            s.outs = [mapping.get(o, o) for o in s.outs]
        elif isinstance(s, (ir.Scan, ir.WhileLoop)):
            s.carry = [mapping.get(c, c) for c in s.carry]
            s.results = [rename_expr(r, mapping) for r in s.results]
            s.outs = [mapping.get(o, o) for o in s.outs]
            if isinstance(s, ir.Scan) and s.item is not None:
                s.item = mapping.get(s.item, s.item)
            if isinstance(s, ir.WhileLoop):
                rename_expr(s.test, mapping)


def apply_bound(stmt):
    """The rule parameters -> operand nodes of an Apply, read from its expression (after rewriting it)."""
    e = stmt.expr
    if isinstance(e, gast.Call):
        if stmt.method_of is not None:
            stmt.method_of = e.func.value
            return stmt.rule.bind([e.func.value] + list(e.args), e.keywords)
        return stmt.rule.bind(list(e.args), e.keywords)
    if isinstance(e, gast.BinOp):
        return {"x": e.left} if len(stmt.bound) == 1 else {"x": e.left, "y": e.right}
    if isinstance(e, gast.UnaryOp):
        return {"x": e.operand}
    if isinstance(e, gast.Attribute):
        return {"x": e.value}
    raise TypeError(e)
