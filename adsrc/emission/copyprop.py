"""Copy propagation on generated code.

After `a = b`, later reads of `a` read `b` instead, until either name is
assigned again; the copy then usually becomes dead and `dce.py` removes it.
Applied within each block; a loop body or branch only sees copies whose
names it does not assign itself, and nested functions are treated on their
own (they run later, when the copy may no longer hold).
"""

import gast

from .. import astutil


_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def _stored_in(node, out):
    for n in astutil.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)


class _Stores:
    """Names each statement stores (with everything nested in it); a block's from its statements' own."""

    def __init__(self):
        self.known = {}     # id(statement) -> (statement, names)

    def __call__(self, node):
        hit = self.known.get(id(node))
        if hit is not None:
            return hit[1]
        out = set()
        for field, value in gast.iter_fields(node):
            if field in _BLOCKS and isinstance(value, list):
                for child in value:
                    out |= self(child)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, gast.AST):
                        _stored_in(v, out)
            elif isinstance(value, gast.AST):
                _stored_in(value, out)
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            out.add(node.id)
        self.known[id(node)] = (node, out)
        return out

    def changed(self, node):
        """node's blocks changed (their statements are known again already)."""
        self.known.pop(id(node), None)


class _Copies:
    """The copies `a = b` in force: a -> b, and for each b the names copied from it."""

    def __init__(self):
        self.of = {}
        self.users = {}

    def add(self, a, b):
        self.of[a] = b
        self.users.setdefault(b, set()).add(a)

    def kill(self, names):
        """Forget the copies into or from any of names."""
        for n in names:
            b = self.of.pop(n, None)
            if b is not None:
                self.users[b].discard(n)
            for a in self.users.pop(n, ()):
                self.of.pop(a, None)

    def without(self, names):
        out = _Copies()
        for a, b in self.of.items():
            if a not in names and b not in names:
                out.add(a, b)
        return out


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)


def _rewrite(node, mapping):
    """Replace loaded names in node (not inside nested functions); returns the node.

    New Name nodes replace the old (a Name node may be shared by several statements).
    """
    if not mapping:
        return node
    return _rewritten(node, mapping)


def _rewritten(node, mapping):
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load) and node.id in mapping:
            return gast.Name(id=mapping[node.id], ctx=gast.Load(), annotation=None, type_comment=None)
        return node
    if isinstance(node, (gast.FunctionDef, gast.Lambda)):
        return node
    if isinstance(node, _COMPREHENSIONS):      # its variables are its own: its first iterable is read outside
        first = node.generators[0]
        first.iter = _rewritten(first.iter, mapping)
        own = {n.id for g in node.generators for n in astutil.walk(g.target) if isinstance(n, gast.Name)}
        inner = {k: v for k, v in mapping.items() if k not in own}
        for i, g in enumerate(node.generators):
            if i:
                g.iter = _rewritten(g.iter, inner)
            g.ifs = [_rewritten(c, inner) for c in g.ifs]
        for f in ("elt", "key", "value"):
            if getattr(node, f, None) is not None:
                setattr(node, f, _rewritten(getattr(node, f), inner))
        return node
    for f in node._fields:
        v = getattr(node, f, None)
        if isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, gast.AST):
                    new = _rewritten(x, mapping)
                    if new is not x:
                        v[i] = new
        elif isinstance(v, gast.AST):
            new = _rewritten(v, mapping)
            if new is not v:
                setattr(node, f, new)
    return node


def propagate(stmts, copies=None, stores=None):
    """Propagate copies through a list of statements (in place); returns the list."""
    copies = copies if copies is not None else _Copies()
    stores = stores or _Stores()
    out = []
    for s in stmts:
        if isinstance(s, gast.FunctionDef):
            s.body = propagate(s.body, None, stores) or [gast.Pass()]
            stores.changed(s)
            copies.kill({s.name})
            out.append(s)
            continue
        if isinstance(s, (gast.If, gast.For, gast.While)):
            inner = copies.without(stores(s))
            if isinstance(s, gast.For):
                s.iter = _rewrite(s.iter, copies.of)        # evaluated once, before the loop
            else:
                s.test = _rewrite(s.test, copies.of if isinstance(s, gast.If) else inner.of)
            s.body = propagate(s.body, inner.without(()), stores) or [gast.Pass()]
            s.orelse = propagate(s.orelse, inner, stores)
            stores.changed(s)
            copies.kill(stores(s))
            out.append(s)
            continue
        if isinstance(s, gast.Try):       # (a `try` of a branch, ir.printer.branches)
            inner = copies.without(stores(s))
            s.body = propagate(s.body, inner.without(()), stores) or [gast.Pass()]
            for h in s.handlers:
                h.body = propagate(h.body, inner.without(()), stores) or [gast.Pass()]
            s.orelse = propagate(s.orelse, inner.without(()), stores)
            s.finalbody = propagate(s.finalbody, inner, stores)
            stores.changed(s)
            copies.kill(stores(s))
            out.append(s)
            continue
        if isinstance(s, gast.Assign):
            s.value = _rewrite(s.value, copies.of)
        elif isinstance(s, gast.AugAssign):
            s.value = _rewrite(s.value, copies.of)
            if not isinstance(s.target, gast.Name):
                s.target = _rewrite(s.target, copies.of)
        else:
            s = _rewrite(s, copies.of)
        copies.kill(stores(s))
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Name):
            a, b = s.targets[0].id, s.value.id
            if a == b:
                continue
            copies.add(a, b)
        out.append(s)
    return out
