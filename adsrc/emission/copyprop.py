"""Copy propagation on generated code.

After `a = b`, later reads of `a` read `b` instead, until either name is
assigned again; the copy then usually becomes dead and `dce.py` removes it.
Applied within each block; a loop body or branch only sees copies whose
names it does not assign itself, and nested functions are treated on their
own (they run later, when the copy may no longer hold).
"""

import gast


def _stored(node):
    out = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
    return out


class _Rewriter(gast.NodeTransformer):
    """Replaces loaded names by new Name nodes (a Name node may be shared by several statements)."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, n):
        if isinstance(n.ctx, gast.Load) and n.id in self.mapping:
            return gast.Name(id=self.mapping[n.id], ctx=gast.Load(), annotation=None, type_comment=None)
        return n

    def visit_FunctionDef(self, n):
        return n

    def visit_Lambda(self, n):
        return n


def _rewrite(node, mapping):
    """Replace loaded names in node (not inside nested functions); returns the node."""
    if not mapping:
        return node
    return _Rewriter(mapping).visit(node)


def _kill(mapping, names):
    return {a: b for a, b in mapping.items() if a not in names and b not in names}


def propagate(stmts, mapping=None):
    """Propagate copies through a list of statements (in place); returns the list."""
    mapping = dict(mapping or {})
    out = []
    for s in stmts:
        if isinstance(s, gast.FunctionDef):
            s.body = propagate(s.body) or [gast.Pass()]
            mapping = _kill(mapping, {s.name})
            out.append(s)
            continue
        if isinstance(s, (gast.If, gast.For, gast.While)):
            inner = _kill(mapping, _stored(s))
            if isinstance(s, gast.For):
                s.iter = _rewrite(s.iter, mapping)        # evaluated once, before the loop
            else:
                s.test = _rewrite(s.test, mapping if isinstance(s, gast.If) else inner)
            s.body = propagate(s.body, inner) or [gast.Pass()]
            s.orelse = propagate(s.orelse, inner)
            mapping = _kill(mapping, _stored(s))
            out.append(s)
            continue
        if isinstance(s, gast.Assign):
            s.value = _rewrite(s.value, mapping)
        elif isinstance(s, gast.AugAssign):
            s.value = _rewrite(s.value, mapping)
            if not isinstance(s.target, gast.Name):
                s.target = _rewrite(s.target, mapping)
        else:
            s = _rewrite(s, mapping)
        stored = _stored(s)
        mapping = _kill(mapping, stored)
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Name):
            a, b = s.targets[0].id, s.value.id
            if a == b:
                continue
            mapping[a] = b
        out.append(s)
    return out
