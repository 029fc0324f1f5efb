"""Adjoint bookkeeping: the cotangent of each name while the backward code is generated.

An adjoint is any value broadcastable to its primal's shape (see
runtime.py). Its state records whether it may be merely broadcastable
(`lazy`), whether it is a buffer only the generated code holds (`owned`, so
it may be updated in place), and whether it may be an array the caller also
holds (`borrowed`, so it is copied before being handed out as a gradient).
"""


import gast

from .. import astutil
from ..analysis.aliases import VIEW_RULES


class AdjState:
    __slots__ = ("expr", "lazy", "owned", "borrowed")

    def __init__(self, expr, lazy=True, owned=False, borrowed=False):
        self.expr = expr
        self.lazy = lazy
        self.owned = owned
        self.borrowed = borrowed

    def copy(self):
        return AdjState(self.expr, self.lazy, self.owned, self.borrowed)


def is_const(node, value=None):
    return isinstance(node, gast.Constant) and (value is None or node.value == value) \
        and type(node.value) in (int, float)


def comment(text):
    """A statement that prints as the comment `# text`."""
    node = gast.Expr(value=astutil.const(text))
    node.adsrc_comment = text
    return node


def tag(nodes, line):
    """Mark generated statements with the user's line they come from (emit.py comments them)."""
    for n in nodes:
        if getattr(n, "adsrc_line", None) is None:
            n.adsrc_line = line
    return nodes


class Adjoints:
    """Mixin: the adjoints of names (self.adj) and how contributions accumulate."""

    def dname(self, n):
        d = self._dnames.get(n)
        if d is None:
            d = self.namer.fresh("d" + n)
            self._dnames[n] = d
            self._adjoint_names[d] = n
        return d

    def h(self, base):
        return astutil.name(self.namer.helper(base))

    def hcall(self, base, *args):
        # copies: one expression (like g) often feeds several calls, and later passes edit nodes in place
        return astutil.call(self.h(base), [astutil.clone(a) for a in args])

    def is_numeric(self, n):
        return self.values[n].numeric

    def is_scalar(self, n):
        return self.values[n].kind == "scalar"

    def materialize(self, n, out):
        """Make the adjoint of n live in its variable (emitting an assignment if it is an expression)."""
        st = self.adj[n]
        var = self.dname(n)
        if not (isinstance(st.expr, gast.Name) and st.expr.id == var):
            out.append(astutil.assign(var, astutil.clone(st.expr)))
            st.expr = astutil.name(var)
        return st

    def accumulate(self, n, contrib, out, lazy=True, owned=False, borrowed=None):
        """adj[n] += contrib, emitting code into out."""
        if borrowed is None:
            borrowed = self.borrowed_expr(contrib)
        st = self.adj.get(n)
        numeric = self.is_numeric(n)
        var = self.dname(n)
        if self.is_scalar(n):
            lazy = False
        if st is None:
            if is_const(contrib) or isinstance(contrib, gast.Tuple):
                self.adj[n] = AdjState(contrib, lazy, owned, borrowed)
            else:
                out.append(astutil.assign(var, astutil.clone(contrib)))
                self.adj[n] = AdjState(astutil.name(var), lazy, owned, borrowed)
            return
        if isinstance(st.expr, gast.Tuple) and isinstance(contrib, gast.Tuple) and \
                len(st.expr.elts) == len(contrib.elts):
            st.expr = astutil.tuple_([self.add_expr(a, b, False) for a, b in zip(st.expr.elts, contrib.elts)])
            return
        st = self.materialize(n, out)
        contrib = astutil.clone(contrib)
        if numeric and st.owned and not self.complex_cotangents:
            out.append(gast.AugAssign(target=astutil.store(var), op=gast.Add(), value=contrib))
            return
        out.append(astutil.assign(var, self.add_expr(astutil.name(var), contrib, numeric)))
        st.lazy = st.lazy or lazy
        st.owned = False
        st.borrowed = not numeric and (st.borrowed or borrowed)    # a + b is a new array

    def add_expr(self, a, b, numeric):
        if is_const(a, 0.0):
            return b
        if is_const(b, 0.0):
            return a
        if numeric:
            return gast.BinOp(left=a, op=gast.Add(), right=b)
        return self.hcall("add_cot", a, b)

    def g_of(self, target):
        """The adjoint expression of an assignment target (None if zero)."""
        if isinstance(target, str):
            st = self.adj.get(target)
            return None if st is None else st.expr
        parts = [self.g_of(t) for t in target]
        if all(p is None for p in parts):
            return None
        return astutil.tuple_([p if p is not None else astutil.const(0.0) for p in parts])

    def kill(self, names):
        for n in names:
            self.adj.pop(n, None)

    def borrowed_expr(self, expr):
        """Whether an adjoint contribution may be an array the caller also holds (or a view of one)."""
        if isinstance(expr, gast.Tuple):
            return any(self.borrowed_expr(e) for e in expr.elts)
        if isinstance(expr, (gast.Attribute, gast.Subscript)):    # x.T, x.real, x[1:]: views
            return self.borrowed_expr(expr.value)
        if isinstance(expr, gast.Call):
            return any(self.borrowed_expr(a) for a in self._passed_through(expr))
        if not isinstance(expr, gast.Name):
            return False
        n = self._adjoint_names.get(expr.id)
        if n is not None:
            st = self.adj.get(n)
            return True if st is None else st.borrowed
        return expr.id not in self.fresh_locals

    def _passed_through(self, call):
        """The arguments a call may return as they are, or a view of: a helper's cotangent (`unbroadcast(g, x,
        out)` is g when no axis was broadcast; add_cot's either term), or a NumPy view function's operand."""
        f, args = call.func, call.args
        if isinstance(f, gast.Name) and f.id in self.namer.helpers:
            return args[:2] if self.namer.helpers[f.id] == "add_cot" else args[:1]
        if isinstance(f, gast.Attribute) and f.attr in VIEW_RULES:
            module = isinstance(f.value, gast.Name) and self.namer.helpers.get(f.value.id) == "np"
            return args[:1] if module else [f.value]
        return []

    def owned_adjoint(self, n, out, make="owned"):
        """Make the adjoint of n a buffer only this code holds (so it can be updated in place)."""
        st = self.adj.get(n)
        if st is not None and st.owned:
            var = self.dname(n)
            if not (isinstance(st.expr, gast.Name) and st.expr.id == var):
                # an owned buffer held under another name (a loop's carried adjoint): name it here
                out.append(astutil.assign(var, st.expr))
                self.adj[n] = AdjState(astutil.name(var), lazy=False, owned=True)
            return astutil.name(var)
        init = self.materialize(n, out).expr if st is not None else astutil.const(0.0)
        var = self.dname(n)
        out.append(astutil.assign(var, self.hcall(make, init, astutil.name(n))))
        self.adj[n] = AdjState(astutil.name(var), lazy=False, owned=True)
        return astutil.name(var)
