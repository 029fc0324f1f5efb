"""Reverse mode: adjoint code for a lowered function, from the rule tables.

For each statement, in reverse order, the adjoint of its output flows back to
its inputs through the statement's rule. The generated code is plain Python:

* straight-line code: the primal statement forward, its rule's template
  inlined backward (`dx = dy * y`);
* `Cond`: `if cond:` forward, the same `if cond:` backward (the branch that
  ran is remembered in `cond`);
* `Loop`: a `for`/`while` loop forward that appends what the backward pass
  needs to a tape (one tuple per iteration, only the values the backward
  reads), and a loop over the reversed tape backward.

Adjoint variables are named after their primal (`x` -> `dx`). An adjoint is
any value broadcastable to its primal's shape (see runtime.py); the state
of each one at generation time records whether it may be merely
broadcastable (`lazy`) and whether it is a buffer only this code holds
(`owned`, so it may be updated in place).

Two shapes of output:

* mode 'grad': one flat function `f_grad(args)` returning gradients
  (seeded with the literal 1.0, so `1.0 * y` folds to `y`);
* mode 'vjp': `f_vjp(args)` returning `(out, f_pullback)`; used for calls
  from one user function to another and for `adsrc.vjp`.
"""

import builtins
import copy

import gast

from . import astutil
from . import old_ir as ir
from .activity import ARRAY, OTHER, Activity
from .errors import transform_error
from .lower.classify import dotted


class AdjState:
    """The adjoint of one name while generating: its expression and what is known about its value.

    lazy: may be merely broadcastable to the primal's shape; owned: a buffer
    only this code holds (may be updated in place); borrowed: may be an array
    the caller also holds (an argument, a cotangent given to a pullback), so it
    is copied before being handed out as a gradient.
    """
    __slots__ = ("expr", "lazy", "owned", "borrowed")

    def __init__(self, expr, lazy=True, owned=False, borrowed=False):
        self.expr = expr
        self.lazy = lazy
        self.owned = owned
        self.borrowed = borrowed

    def copy(self):
        return AdjState(self.expr, self.lazy, self.owned, self.borrowed)


def _is_const(node, value=None):
    return isinstance(node, gast.Constant) and (value is None or node.value == value) \
        and type(node.value) in (int, float)


_BUILTINS = frozenset(dir(builtins))
_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b, gast.Mult: lambda a, b: a * b}


def comment(text):
    """A statement that prints as the comment `# text`."""
    node = gast.Expr(value=astutil.const(text))
    node.adsrc_comment = text
    return node


def _tag(nodes, lineno):
    for n in nodes:
        if getattr(n, "adsrc_line", None) is None:
            n.adsrc_line = lineno
    return nodes


class Adjoint:
    """Generates forward and backward code for one lowered function."""

    def __init__(self, fn, namer, wrt, kinds, ctx, mode="grad", callee=False):
        self.fn = fn
        self.callee = callee        # generated for calls from other generated code
        self.uf = fn.uf
        self.namer = namer
        self.wrt = list(wrt)
        self.ctx = ctx
        self.mode = mode
        self.act = Activity(fn, self.wrt, kinds, ctx.call_info)
        self.adj = {}
        self._dnames = {}
        self.fresh_locals = _fresh_locals(fn)
        self.inplace = _inplace_setitems(fn)
        self.inplace_bases = {st.value.args[0].id for st in ir.walk(fn.body)
                              if isinstance(st, ir.Assign) and id(st) in self.inplace and st.op.kind == "setitem"}

    # -- names -----------------------------------------------------------------------------
    def dname(self, n):
        d = self._dnames.get(n)
        if d is None:
            d = self.namer.fresh("d" + n)
            self._dnames[n] = d
        return d

    def h(self, base):
        return astutil.name(self.namer.helper(base))

    def hcall(self, base, *args):
        # copies: one expression (like g) often feeds several calls, and later passes edit nodes in place
        return astutil.call(self.h(base), [copy.deepcopy(a) for a in args])

    def error(self, s, problem, hint=None):
        loc = self.uf.loc(s.op_lineno or s.lineno)
        loc.col = s.col
        return transform_error(loc, problem, hint)

    # -- adjoint state ------------------------------------------------------------------------
    def materialize(self, n, out):
        """Make the adjoint of n live in its variable (emitting an assignment if symbolic)."""
        st = self.adj[n]
        var = self.dname(n)
        if not (isinstance(st.expr, gast.Name) and st.expr.id == var):
            out.append(astutil.assign(var, copy.deepcopy(st.expr)))
            st.expr = astutil.name(var)
        return st

    def accumulate(self, n, contrib, out, lazy=True, owned=False, borrowed=None):
        """adj[n] += contrib, emitting code into out."""
        if borrowed is None:
            borrowed = self._borrowed(contrib)
        st = self.adj.get(n)
        kind = self.act.kind.get(n, OTHER)
        var = self.dname(n)
        if n in self.act.scalars:
            lazy = False
        if st is None:
            if _is_const(contrib) or isinstance(contrib, gast.Tuple):
                self.adj[n] = AdjState(contrib, lazy, owned, borrowed)
            else:
                out.append(astutil.assign(var, copy.deepcopy(contrib)))
                self.adj[n] = AdjState(astutil.name(var), lazy, owned, borrowed)
            return
        if isinstance(st.expr, gast.Tuple) and isinstance(contrib, gast.Tuple) and \
                len(st.expr.elts) == len(contrib.elts):
            st.expr = astutil.tuple_([self._add_expr(a, b, OTHER) for a, b in zip(st.expr.elts, contrib.elts)])
            return
        st = self.materialize(n, out)
        contrib = copy.deepcopy(contrib)
        if kind == ARRAY and st.owned:
            out.append(gast.AugAssign(target=astutil.store(var), op=gast.Add(), value=contrib))
            return
        out.append(astutil.assign(var, self._add_expr(astutil.name(var), contrib, kind)))
        st.lazy = st.lazy or lazy
        st.owned = False
        st.borrowed = kind != ARRAY and (st.borrowed or borrowed)    # a + b is a new array

    def _add_expr(self, a, b, kind):
        if _is_const(a, 0.0):
            return b
        if _is_const(b, 0.0):
            return a
        if kind == ARRAY:
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

    # -- blocks -----------------------------------------------------------------------------------
    def block(self, body, repeated):
        """(forward statements, backward statements) for a block."""
        fwd_parts = [None] * len(body)
        bwd = []
        for i in range(len(body) - 1, -1, -1):
            f, b = self.stmt(body[i], repeated)
            fwd_parts[i] = f
            bwd.extend(b)
        return [x for part in fwd_parts for x in part], bwd

    def stmt(self, s, repeated):
        if isinstance(s, ir.Assign):
            return self.assign(s)
        if isinstance(s, ir.Effect):
            if s.callee_only and not self.callee:
                return [], []
            self.refuse_lost_effect(s)
            return _tag([astutil.expr_stmt(copy.deepcopy(s.value))], s.lineno), []
        if isinstance(s, ir.Raw):
            return _tag([copy.deepcopy(s.node)], s.lineno), []
        if isinstance(s, ir.Cond):
            return self.cond(s, repeated)
        if isinstance(s, ir.Loop):
            return self.loop(s)
        if isinstance(s, ir.LocalDef):
            if self.act.active(s.name):
                raise self.act.closure_error(s, s.name)
            printer = ir.Printer(self.ctx.primitive_names(self.namer), self.namer)
            return _tag([printer.function(s.fn, s.name)], s.lineno), []
        raise TypeError(s)

    def refuse_lost_effect(self, s):
        """A call run for its effect on differentiated values would change arrays adsrc never sees change."""
        if not self.act._atoms_varied([s.value]):
            return
        if s.writes is not None:
            raise self.error(s, f"`{dotted(s.value.func)}` writes into `{dotted(s.writes)}` in "
                                "place, and adsrc cannot differentiate through that change.",
                             "Compute a new array instead (for example `buf = x.copy()`, `buf = np.where(mask, "
                             "x, buf)` or `buf[idx] = x`).")
        if s.op is not None and s.op.kind == "user":
            self.ctx.refuse_mutations(s, self.uf)

    # -- assignments --------------------------------------------------------------------------------
    def assign(self, s):
        names = astutil.target_names(s.target)
        active = any(self.act.active(n) for n in names)
        value = copy.deepcopy(s.value)
        if s.op.kind == "setitem" and id(s) in self.inplace:
            value.func = self.h("index_update_inplace")
        elif s.op.kind == "append" and id(s) in self.inplace:
            value.func = self.h("list_append_inplace")
        elif s.op.kind == "getitem" and isinstance(s.value.value, gast.Name) and \
                s.value.value.id in self.inplace_bases:
            value = self.hcall("snapshot", value)     # a view would change with the array
        fwd = [astutil.assign(s.target, value)]
        fwd[0].adsrc_pure = s.op.kind in ("rule", "copy", "getitem", "tuple", "list", "dict", "setitem",
                                          "append")
        if active and s.op.kind == "user":
            call = s.op.vjp_call
            pb = self.namer.fresh(_base(names[0]) + "_pullback")
            s.op.pullback = pb
            fwd = [astutil.assign((s.target, pb), call)]
        elif active and s.op.kind == "custom":
            fn = s.op.callee
            if fn.fwd is None:
                raise self.error(s, f"the custom_vjp function {s.op.describe} has no rule yet.",
                                 f"Give it one with `{fn.__name__}.defvjp(fwd, bwd)` before differentiating.")
            s.op.fwd_name = self.ctx.bind(fn.__name__ + "_fwd", fn.fwd)
            s.op.bwd_name = self.ctx.bind(fn.__name__ + "_bwd", fn.bwd)
            s.op.residuals = self.namer.fresh(_base(names[0]) + "_res")
            call = astutil.call(s.op.fwd_name, [copy.deepcopy(a) for a in s.value.args])
            fwd = [astutil.assign((s.target, s.op.residuals), call)]
        recv = getattr(s.op, "method_of", None)
        if isinstance(recv, gast.Name) and self.act.kind.get(recv.id) != ARRAY and self.act._atoms_varied([s.value]):
            # `xp.sum(v)` differentiated as ndarray.sum: refuse if `xp` turns out to be a module or an object
            fwd.insert(0, astutil.expr_stmt(self.hcall("check_array_method", astutil.name(recv.id),
                                                       astutil.const(s.op.rule.name), astutil.const(recv.id))))
        _tag(fwd, s.lineno)
        if not active:
            return fwd, []
        g = self.g_of(s.target)
        self.g_lazy = any(self.adj[n].lazy if n in self.adj else True for n in names) \
            and not all(n in self.act.scalars for n in names)
        self.g_owned = isinstance(s.target, str) and s.target in self.adj and self.adj[s.target].owned
        self.kill(names)
        if g is None:
            return fwd, []
        bwd = []
        kind = s.op.kind
        if kind == "unknown":
            raise self.error(s, f"adsrc cannot differentiate through {s.op.describe}.", getattr(s.op, "hint", None))
        getattr(self, "adj_" + kind)(s, g, bwd)
        return fwd, _tag(bwd, s.lineno)

    def _active_name(self, node):
        return isinstance(node, gast.Name) and self.act.active(node.id)

    def adj_copy(self, s, g, out):
        src = s.value
        if not self._active_name(src):
            return
        if isinstance(s.target, str):
            st_lazy = True
            self.accumulate(src.id, g, out, lazy=st_lazy)
        else:
            # unpacking `a, b = t`: the cotangent of t is the tuple of cotangents
            if self.act.kind.get(src.id) == ARRAY:
                self.accumulate(src.id, self.hcall("stack_cot", g, src), out)
            else:
                self.accumulate(src.id, g, out)

    def adj_const(self, s, g, out):
        pass

    def adj_rule(self, s, g, out):
        rule = s.op.rule
        bound = s.op.bound
        static = rule.static_args(bound)
        ans = astutil.load(s.target)
        if rule.kind != "elementwise" and not (rule.container and not rule.tuple_output):
            g = self._exact_g(s, g, out)
        operands = [node for node in bound.values() if not isinstance(node, list)]
        if self.act.on_sequences(s.op):
            # `+` and `*` on lists and tuples concatenate and repeat: decide when the code runs
            for k, (pname, node) in enumerate(bound.items()):
                if self._active_name(node):
                    other = bound["y" if pname == "x" else "x"]
                    helper = "sum_operand_cot" if rule.name == "`+`" else "product_operand_cot"
                    self.accumulate(node.id, self.hcall(helper, g, astutil.name(node.id), copy.deepcopy(other),
                                                        ans, astutil.const(k == 0)), out)
            return
        for pname, node in bound.items():
            if pname not in rule.vjps or not self._active_name(node):
                continue
            contrib = self.instantiate(rule.template(pname, static), rule, bound, g, ans)
            if rule.kind == "elementwise":
                lazy = True
                if not self._output_shaped_like(node, operands) and not (
                        isinstance(s.target, str) and self.act.rep(node.id) == self.act.rep(s.target)):
                    contrib = self.hcall("unbroadcast", contrib, astutil.name(self.act.rep(node.id)),
                                         self._shape_of(s.target))
            else:
                lazy = rule.lazy
            self.accumulate(node.id, contrib, out, lazy=lazy)

    def _is_scalar(self, node):
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, bool) or node.value is None
        return isinstance(node, gast.Name) and node.id in self.act.scalars

    def _output_shaped_like(self, x, operands):
        """True if an elementwise call's output certainly has operand x's shape."""
        others = [o for o in operands if o is not x]
        rep = self.act.rep(x.id)
        return all(self._is_scalar(o) or (isinstance(o, gast.Name) and self.act.rep(o.id) == rep) for o in others)

    def _shape_of(self, target):
        """An expression with target's shape (an earlier name of the same shape if there is one)."""
        if isinstance(target, str):
            return astutil.name(self.act.rep(target))
        return astutil.load(target)

    def _exact_g(self, s, g, out):
        """The cotangent with exactly the output's shape (general rules need it)."""
        if s.op.kind == "rule" and s.op.rule.tuple_output:
            if isinstance(s.target, str):
                return self.hcall("full_tuple", g, astutil.name(s.target))
            return astutil.tuple_([self.hcall("full", e, astutil.load(t)) for t, e in zip(s.target, g.elts)])
        if not self.g_lazy:
            return g
        if isinstance(s.target, str):
            if isinstance(g, gast.Name):
                out.append(astutil.assign(g.id, self.hcall("full", g, self._shape_of(s.target))))
                return astutil.name(g.id)
            return self.hcall("full", g, self._shape_of(s.target))
        return astutil.tuple_([self.hcall("full", e, astutil.load(t)) for t, e in zip(s.target, g.elts)])

    def instantiate(self, template, rule, bound, g, ans):
        """The template's expression with its placeholders replaced."""
        mapping = {"g": g, "ans": ans}
        for p in rule.params:
            node = bound.get(p.name)
            if node is None:
                mapping[p.name] = astutil.const(None if p.default is _NOT_STATIC() else p.default)
            elif isinstance(node, list):
                mapping[p.name] = astutil.tuple_([copy.deepcopy(n) for n in node])
            else:
                mapping[p.name] = node
        helpers = {n: self.h(n) for n in template.names if n not in mapping and n not in _BUILTINS}
        mapping.update(helpers)
        expr = astutil.substitute(template.expr, mapping)
        self._shape_only_args(expr)
        return self.fold(expr)

    def _shape_only_args(self, expr):
        """In np.size(a), np.shape(a), np.ndim(a), only a's shape matters: use its representative."""
        np_name = self.namer.helper("np")
        for n in gast.walk(expr):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    isinstance(n.func.value, gast.Name) and n.func.value.id == np_name and \
                    n.func.attr in ("size", "shape", "ndim") and len(n.args) == 1 and \
                    isinstance(n.args[0], gast.Name):
                n.args[0].id = self.act.rep(n.args[0].id)

    def fold(self, e):
        """Fold arithmetic on literals, and `1.0 * y` (the grad seed) to `y` where that is exact."""
        if isinstance(e, gast.BinOp):
            e.left, e.right = self.fold(e.left), self.fold(e.right)
            if _is_const(e.left) and _is_const(e.right) and type(e.op) in _FOLD:
                return astutil.const(_FOLD[type(e.op)](float(e.left.value), float(e.right.value)))
            if isinstance(e.op, gast.Mult):
                if _is_const(e.left, 1.0) and self._foldable(e.right):
                    return e.right
                if _is_const(e.right, 1.0) and self._foldable(e.left):
                    return e.left
        elif isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            e.operand = self.fold(e.operand)
            if _is_const(e.operand):
                return astutil.const(-float(e.operand.value))
        return e

    def _foldable(self, node):
        """A float value (a differentiated one): `1.0 * node` may be replaced by node itself.

        If node is not a new array of this function's own, the adjoint that
        receives it is marked borrowed (see AdjState).
        """
        return isinstance(node, gast.Name) and node.id in self.act.varied

    def _borrowed(self, expr):
        """Whether an adjoint contribution may be an array the caller also holds."""
        if isinstance(expr, gast.Tuple):
            return any(self._borrowed(e) for e in expr.elts)
        if not isinstance(expr, gast.Name):
            return False
        if expr.id in self._dnames.values():
            return self._adjoint_borrowed(expr.id)
        return expr.id not in self.fresh_locals

    def _adjoint_borrowed(self, var):
        for n, d in self._dnames.items():
            if d == var and n in self.adj:
                return self.adj[n].borrowed
        return True

    def _owned(self, n, out, make="owned"):
        """Make the adjoint of n a buffer only this code holds (so it can be updated in place)."""
        st = self.adj.get(n)
        if st is not None and st.owned:
            return astutil.name(self.dname(n))
        init = self.materialize(n, out).expr if st is not None else astutil.const(0.0)
        var = self.dname(n)
        out.append(astutil.assign(var, self.hcall(make, init, astutil.name(n))))
        self.adj[n] = AdjState(astutil.name(var), lazy=False, owned=True)
        return astutil.name(var)

    def adj_getitem(self, s, g, out):
        base = s.value.value
        if not self._active_name(base):
            return
        n = base.id
        var = self._owned(n, out)
        idx = copy.deepcopy(s.value.slice)
        if self.act.kind.get(n) == ARRAY and self._basic_index(idx):
            target = gast.Subscript(value=var, slice=idx, ctx=gast.Store())
            out.append(gast.AugAssign(target=target, op=gast.Add(), value=g))
        else:
            out.append(astutil.assign(var.id, self.hcall("add_at", var, astutil.name(n),
                                                         astutil.index_value(idx), g)))

    def adj_slice(self, s, g, out):
        """x = scan_slice(xs, i): one step's slice of the scanned pytree xs."""
        base, index = s.value.args
        if not self._active_name(base):
            return
        var = self._owned(base.id, out, "owned_tree")
        out.append(astutil.assign(var.id, self.hcall("scan_slice_cot", var, astutil.name(base.id),
                                                     copy.deepcopy(index), g)))

    def adj_getattr(self, s, g, out):
        """x = p.field: a field of a namedtuple or dataclass."""
        base = s.value.value
        if not self._active_name(base):
            return
        var = self._owned(base.id, out)
        out.append(astutil.assign(var.id, self.hcall("add_attr", var, astutil.name(base.id),
                                                     astutil.const(s.value.attr), g)))

    def _basic_index(self, idx):
        if isinstance(idx, gast.Tuple):
            return all(self._basic_index(e) for e in idx.elts)
        if isinstance(idx, gast.Slice):
            return True
        if isinstance(idx, gast.Constant):
            return idx.value is None or idx.value is Ellipsis or type(idx.value) is int
        if isinstance(idx, gast.Name):
            return idx.id in self.act.int_names
        return False

    def _elements(self, s, g, out, atoms, keys):
        for key, node in zip(keys, atoms):
            if not self._active_name(node):
                continue
            if isinstance(g, gast.Tuple) and isinstance(key, int):
                part = g.elts[key]
                if _is_const(part, 0.0):
                    continue
            else:
                part = self.hcall("item_cot", g, astutil.const(key))
            self.accumulate(node.id, part, out)

    def adj_tuple(self, s, g, out):
        elts = s.value.elts
        self._elements(s, g, out, elts, range(len(elts)))

    adj_list = adj_tuple

    def adj_dict(self, s, g, out):
        v = s.value
        keys = []
        for k in v.keys:
            if not isinstance(k, gast.Constant):
                raise self.error(s, "dict displays with computed keys are not supported when their values are "
                                    "differentiated.", "Use constant keys.")
            keys.append(k.value)
        self._elements(s, g, out, v.values, keys)

    def adj_setitem(self, s, g, out):
        base, idx, val = s.value.args
        g = self._exact_g(s, g, out) if isinstance(s.target, str) and not isinstance(g, gast.Name) else g
        if self._active_name(val):
            self.accumulate(val.id, self.hcall("index_update_vjp_value", g, copy.deepcopy(base),
                                               astutil.index_value(copy.deepcopy(idx)), copy.deepcopy(val)), out)
        if self._active_name(base):
            if self.g_owned and base.id not in self.adj and isinstance(g, gast.Name):
                # g is a buffer only we hold and dies here: zero the overwritten part in place
                out.append(astutil.assign(self.dname(base.id), self.hcall(
                    "zero_at", g, copy.deepcopy(base), astutil.index_value(copy.deepcopy(idx)))))
                self.adj[base.id] = AdjState(astutil.name(self.dname(base.id)), lazy=False, owned=True)
                return
            contrib = self.hcall("index_update_vjp_base", g, copy.deepcopy(base), astutil.index_value(copy.deepcopy(idx)))
            if base.id not in self.adj:
                out.append(astutil.assign(self.dname(base.id), contrib))
                self.adj[base.id] = AdjState(astutil.name(self.dname(base.id)), lazy=False,
                                             owned=self.act.kind.get(base.id) == ARRAY)
            else:
                self.accumulate(base.id, contrib, out)

    def adj_append(self, s, g, out):
        lst, val = s.value.args
        if not self.g_owned:
            g = self.hcall("list_copy", g)        # split_last pops in place: only from a list we hold
        tmp_v = self.namer.fresh("d" + _base(val.id if isinstance(val, gast.Name) else "item"))
        if self._active_name(lst) and lst.id not in self.adj:
            var = self.dname(lst.id)
            out.append(astutil.assign((var, tmp_v), self.hcall("split_last", g)))
            self.adj[lst.id] = AdjState(astutil.name(var), lazy=True, owned=True)
        else:
            tmp_l = self.namer.fresh("d" + _base(lst.id if isinstance(lst, gast.Name) else "lst"))
            out.append(astutil.assign((tmp_l, tmp_v), self.hcall("split_last", g)))
            if self._active_name(lst):
                self.accumulate(lst.id, astutil.name(tmp_l), out)
        if self._active_name(val):
            self.accumulate(val.id, astutil.name(tmp_v), out)

    def adj_user(self, s, g, out):
        active_args = s.op.vjp_args      # atoms whose cotangents the pullback returns, in order
        ids = [a.id for a in active_args]
        targets, direct = [], []
        for a in ids:
            if self.act.active(a) and a not in self.adj and ids.count(a) == 1:
                targets.append(self.dname(a))      # first cotangent: straight into the adjoint
                direct.append(True)
            else:
                targets.append(self.namer.fresh("d" + _base(a)))
                direct.append(False)
        out.append(astutil.assign(tuple(targets), astutil.call(astutil.name(s.op.pullback), [g])))
        for a, t, d in zip(ids, targets, direct):
            if not self.act.active(a):
                continue
            if d:
                # the callee's cotangent may be one its caller holds (the pullback's own argument)
                self.adj[a] = AdjState(astutil.name(t), lazy=a not in self.act.scalars, borrowed=True)
            else:
                self.accumulate(a, astutil.name(t), out, borrowed=True)

    def adj_custom(self, s, g, out):
        fn = s.op.callee
        args = s.value.args
        if len(args) != fn.nargs:
            raise self.error(s, f"{s.op.describe} takes {fn.nargs} arguments, got {len(args)}.")
        targets = [self.namer.fresh("d" + (a.id if isinstance(a, gast.Name) else "arg")) for a in args]
        out.append(astutil.assign(tuple(targets), self.hcall(
            "custom_bwd", astutil.name(s.op.bwd_name), astutil.name(s.op.residuals), g,
            astutil.const(fn.nargs), astutil.const(fn.__name__))))
        for a, t in zip(args, targets):
            if self._active_name(a):
                self.accumulate(a.id, astutil.name(t), out)

    # -- cond -------------------------------------------------------------------------------------
    def cond(self, s, repeated):
        pred = s.pred
        fwd_pre = []
        if not isinstance(pred, gast.Name):
            var = self.namer.fresh("cond")
            fwd_pre.append(astutil.assign(var, copy.deepcopy(pred)))
            pred = astutil.name(var)
        outs_active = [o for o in s.outs if self.act.active(o)]
        before = dict(self.adj)
        out_g = {o: self.adj.get(o) for o in s.outs}
        self.kill(s.outs)
        after = before
        states, bodies = [], []
        for br in (s.true, s.false):
            self.adj = {k: v.copy() for k, v in before.items() if k not in s.outs}
            # the outputs' adjoints flow into this branch's results (first, in reverse order)
            seed = []
            for o, r in zip(s.outs, br.results):
                st = out_g.get(o)
                if st is not None and self._active_name(r):
                    self.accumulate(r.id, st.expr, seed, lazy=st.lazy)
            fwd_b, bwd_b = self.block(br.body, repeated)
            fwd_b = fwd_b + [astutil.assign(o, copy.deepcopy(r)) for o, r in zip(s.outs, br.results)
                             if not (isinstance(r, gast.Name) and r.id == o)]
            # branch-local names are dead after the branch
            local = _stored(fwd_b)
            for n in list(self.adj):
                if n in local and n not in before:
                    del self.adj[n]
            states.append(self.adj)
            bodies.append((fwd_b, seed + bwd_b))
        merged, tails = self._merge(before, states, s.outs)
        self.adj = merged
        (fwd_t, bwd_t), (fwd_f, bwd_f) = bodies
        bwd_t, bwd_f = bwd_t + tails[0], bwd_f + tails[1]
        if repeated:
            fwd_t, bwd_t, fwd_f, bwd_f = self._pack_branch_residuals(fwd_t, bwd_t, fwd_f, bwd_f)
        fwd = fwd_pre + [gast.If(test=pred, body=fwd_t or [gast.Pass()], orelse=fwd_f)]
        bwd = []
        if bwd_t or bwd_f:
            bwd = [gast.If(test=copy.deepcopy(pred), body=bwd_t or [gast.Pass()], orelse=bwd_f)]
        _ = outs_active, after
        return _tag(fwd, s.lineno), _tag(bwd, s.lineno)

    def _merge(self, before, states, outs):
        """Bring both branches' adjoint states to one state; returns (state, [tail_t, tail_f])."""
        names = set()
        for st in states:
            names |= set(st)
        merged = {}
        tails = [[], []]
        for n in sorted(names):
            per = [st.get(n) for st in states]
            b = before.get(n)
            if all(p is not None and b is not None and p.expr is b.expr for p in per):
                merged[n] = b
                continue
            var = self.dname(n)
            lazy, owned, borrowed = False, True, False
            for k, p in enumerate(per):
                if p is None:
                    tails[k].append(astutil.assign(var, astutil.const(0.0)))
                    lazy, owned = True, False
                    continue
                if not (isinstance(p.expr, gast.Name) and p.expr.id == var):
                    tails[k].append(astutil.assign(var, copy.deepcopy(p.expr)))
                lazy = lazy or p.lazy
                owned = owned and p.owned
                borrowed = borrowed or p.borrowed
            merged[n] = AdjState(astutil.name(var), lazy, owned, borrowed)
        return merged, tails

    def _pack_branch_residuals(self, fwd_t, bwd_t, fwd_f, bwd_f):
        res_t = sorted(_reads(bwd_t) & _stored(fwd_t))
        res_f = sorted(_reads(bwd_f) & _stored(fwd_f))
        if not res_t and not res_f:
            return fwd_t, bwd_t, fwd_f, bwd_f
        var = self.namer.fresh("branch")
        out = []
        for fwd, bwd, res in ((fwd_t, bwd_t, res_t), (fwd_f, bwd_f, res_f)):
            fwd = fwd + [astutil.assign(var, astutil.tuple_([astutil.name(r) for r in res]))]
            if res:
                bwd = [astutil.assign(tuple(res), astutil.name(var))] + bwd
            out.append((fwd, bwd))
        (fwd_t, bwd_t), (fwd_f, bwd_f) = out
        return fwd_t, bwd_t, fwd_f, bwd_f

    # -- loops ------------------------------------------------------------------------------------
    def loop(self, s):
        body = _unguard(s)
        carry = s.carry
        # adjoints of the loop's outputs are the carried adjoints entering the backward loop
        out_states = {c: self.adj.get(o) for c, o in zip(carry, s.outs)}
        self.kill(s.outs)
        before = {k: v.copy() for k, v in self.adj.items()}
        inner_defined = _defined_in(body) | set(carry) | set(astutil.target_names(s.item) if s.item else [])
        read = ir.reads(body) | set().union(*(astutil.names_loaded(r) for r in s.results))
        free_active = sorted({n for n in read if self.act.active(n)} - inner_defined)
        pre_bwd = []
        for n in free_active:
            # adjoints accumulated across iterations live in variables from before the loop
            st = self.adj.get(n)
            if self.act.kind.get(n) == ARRAY and (st is None or not st.owned):
                init = astutil.const(0.0) if st is None else self.materialize(n, pre_bwd).expr
                pre_bwd.append(astutil.assign(self.dname(n), self.hcall("owned", init, astutil.name(n))))
                self.adj[n] = AdjState(astutil.name(self.dname(n)), lazy=False, owned=True)
            elif st is None:
                pre_bwd.append(astutil.assign(self.dname(n), astutil.const(0.0)))
                self.adj[n] = AdjState(astutil.name(self.dname(n)), lazy=True)
            else:
                self.materialize(n, pre_bwd)
        head = {k: v.copy() for k, v in self.adj.items()}
        active_carry = [k for k, c in enumerate(carry) if self.act.active(c)]
        # carried arrays updated by item assignment: their adjoints stay buffers only we hold, so the
        # overwritten parts can be zeroed in place each iteration
        updated = {a.args[0].id for st in ir.walk(body) if isinstance(st, ir.Assign) and st.op.kind == "setitem"
                   for a in [st.value] if isinstance(a.args[0], gast.Name)}
        appended = {a.args[0].id for st in ir.walk(body) if isinstance(st, ir.Assign) and st.op.kind == "append"
                    for a in [st.value] if isinstance(a.args[0], gast.Name)}
        owned_carry = {k for k in active_carry if carry[k] in updated and self.act.kind.get(carry[k]) == ARRAY}
        owned_carry |= {k for k in active_carry if carry[k] in appended}
        # per-iteration: seed the results with the carried adjoints
        seed = []
        dcarry = {k: self.dname(carry[k]) for k in active_carry}
        results = s.results
        passthrough = any(isinstance(results[k], gast.Name) and results[k].id in carry for k in active_carry)
        incoming = dict(dcarry)
        if passthrough:
            temps = {k: self.namer.fresh(dcarry[k] + "_out") for k in active_carry}
            seed.append(astutil.assign(tuple(temps[k] for k in active_carry),
                                       astutil.tuple_([astutil.name(dcarry[k]) for k in active_carry]))
                        if len(active_carry) > 1 else astutil.assign(temps[active_carry[0]],
                                                                     astutil.name(dcarry[active_carry[0]])))
            incoming = temps
        for k in active_carry:
            r = results[k]
            if self._active_name(r):
                self.accumulate(r.id, astutil.name(incoming[k]), seed, lazy=True)
                if k in owned_carry and not passthrough and r.id in self.adj:
                    self.adj[r.id].owned = True
                    self.adj[r.id].lazy = False
        fwd_body, bwd_body = self.block(body, repeated=True)
        bwd_body = seed + bwd_body
        # carried adjoints at the end of an iteration: the carry-in cotangents (0.0 if none)
        tail = []
        for k in active_carry:
            c = carry[k]
            st = self.adj.get(c)
            if st is None:
                tail.append(astutil.assign(dcarry[k], astutil.const(0.0) if k not in owned_carry else
                                           self.hcall("owned", astutil.const(0.0), astutil.name(c))))
            else:
                self.materialize(c, tail)
                if k in owned_carry and not st.owned:
                    tail.append(astutil.assign(dcarry[k], self.hcall("owned", astutil.name(dcarry[k]),
                                                                    astutil.name(c))))
        # outer adjoints must be in their head state at the end of each iteration
        for n, st in head.items():
            cur = self.adj.get(n)
            if cur is not None and cur is not st and not (isinstance(cur.expr, gast.Name)
                                                          and cur.expr.id == self.dname(n)):
                self.materialize(n, tail)
            self.adj[n] = AdjState(astutil.name(self.dname(n)), lazy=True, owned=st.owned, borrowed=True) \
                if not (isinstance(st.expr, gast.Name) and st.expr.id == self.dname(n)) else st
        bwd_body = bwd_body + tail
        for n in list(self.adj):
            if n in inner_defined and n not in head:
                del self.adj[n]
        # what the backward pass reads from the forward pass, saved per iteration
        stored = _stored(fwd_body) | set(carry) | set(astutil.target_names(s.item) if s.item else [])
        residuals = sorted(_reads(bwd_body) & stored)
        fwd, bwd = self._emit_loop(s, fwd_body, bwd_body, residuals, pre_bwd, out_states, active_carry, dcarry,
                                   owned_carry)
        # after the loop (in reverse order: before it), the carried adjoints reach the initial values
        post = []
        for k in active_carry:
            self.adj[carry[k]] = AdjState(astutil.name(dcarry[k]), lazy=True)
        for k in active_carry:
            init = s.init[k]
            if self._active_name(init):
                self.accumulate(init.id, astutil.name(dcarry[k]), post, lazy=True)
        self.kill(carry)
        return _tag(fwd, s.lineno), _tag(bwd + post, s.lineno)

    def _emit_loop(self, s, fwd_body, bwd_body, residuals, pre_bwd, out_states, active_carry, dcarry,
                   owned_carry=()):
        carry = s.carry
        fwd = []
        for c, init in zip(carry, s.init):
            if not (isinstance(init, gast.Name) and init.id == c):
                fwd.append(astutil.assign(c, copy.deepcopy(init)))
        needs_backward = bool(bwd_body)
        update = [(c, r) for c, r in zip(carry, s.results) if not (isinstance(r, gast.Name) and r.id == c)]
        carry_update = []
        if update:
            if len(update) == 1:
                carry_update = [astutil.assign(update[0][0], copy.deepcopy(update[0][1]))]
            else:
                carry_update = [astutil.assign(tuple(c for c, _ in update),
                                               astutil.tuple_([copy.deepcopy(r) for _, r in update]))]
        tape = self.namer.fresh("tape") if needs_backward else None
        save = []
        if needs_backward:
            fwd.append(astutil.assign(tape, gast.List(elts=[], ctx=gast.Load())))
            packed = astutil.tuple_([astutil.name(r) for r in residuals]) if len(residuals) != 1 \
                else astutil.name(residuals[0])
            save = [astutil.expr_stmt(astutil.call(astutil.attr(tape, "append"), [packed]))]
        stop = []
        if s.stop is not None:
            stop = [gast.If(test=astutil.name(carry[s.stop]), body=[gast.Break()], orelse=[])]
        body = fwd_body + save + carry_update + stop
        after = [astutil.assign(o, astutil.name(c)) for o, c in zip(s.outs, carry) if o != c]
        if s.kind == "scan":
            item = astutil.target(s.item) if s.item is not None else astutil.store("_")
            fwd.append(gast.For(target=item, iter=copy.deepcopy(s.xs), body=body or [gast.Pass()], orelse=[],
                                type_comment=None))
        else:
            test = copy.deepcopy(s.test)
            if s.test_body:
                tf, _ = self.block(s.test_body, repeated=True)
                body = tf + [gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=[gast.Break()],
                                     orelse=[])] + body
                test = astutil.const(True)
            fwd.append(gast.While(test=test, body=body or [gast.Pass()], orelse=[]))
        fwd.extend(after)
        if not needs_backward:
            return fwd, []
        bwd = list(pre_bwd)
        for k in active_carry:
            st = out_states.get(carry[k])
            value = st.expr if st is not None else astutil.const(0.0)
            if k in owned_carry and not (st is not None and st.owned):
                value = self.hcall("owned", value, astutil.name(s.outs[k]))
            if not (isinstance(value, gast.Name) and value.id == dcarry[k]):
                bwd.append(astutil.assign(dcarry[k], value))
        if len(residuals) == 0:
            target = astutil.store("_")
        elif len(residuals) == 1:
            target = astutil.store(residuals[0])
        else:
            target = astutil.target(tuple(residuals))
        bwd.append(gast.For(target=target, iter=astutil.call("reversed", [astutil.name(tape)]),
                            body=bwd_body or [gast.Pass()], orelse=[], type_comment=None))
        return fwd, bwd


def _base(n):
    return n.split(".")[-1]


def _NOT_STATIC():
    from .rules import NOT_STATIC
    return NOT_STATIC


def _module(stmts):
    return gast.Module(body=list(stmts), type_ignores=[])


def _reads(stmts):
    """Names code reads that it does not assign itself (what it needs from outside)."""
    return astutil.names_loaded(_module(stmts)) - _stored(stmts)


def _stored(stmts):
    out = set()
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                out.add(n.id)
            elif isinstance(n, gast.FunctionDef):
                out.add(n.name)
    return out


def _defined_in(body):
    out = set()
    for s in ir.walk(body):
        out.update(ir.defined_names(s))
        if isinstance(s, ir.Loop):
            out.update(s.carry)
            if s.item is not None:
                out.update(astutil.target_names(s.item))
    return out


def _unguard(s):
    """The body of a scan with a stop flag, without its `if not stop:` guard.

    The emitted loop breaks as soon as the flag is set, so the guard is
    always true inside it.
    """
    body = s.body
    if s.stop is None or s.kind != "scan":
        return body
    stop = s.carry[s.stop]
    for i, st in enumerate(body):
        if isinstance(st, ir.Cond) and isinstance(st.pred, gast.UnaryOp) and isinstance(st.pred.op, gast.Not) \
                and isinstance(st.pred.operand, gast.Name) and st.pred.operand.id == stop and not st.false.body \
                and i == len(body) - 1:
            assigns = []
            for o, r in zip(st.outs, st.true.results):
                a = ir.Assign(o, copy.deepcopy(r), ir.Op("copy") if isinstance(r, gast.Name) else ir.Op("const"))
                a.lineno, a.col, a.op_lineno = st.lineno, st.col, st.op_lineno
                assigns.append(a)
            return body[:i] + st.true.body + assigns
    return body


def _inplace_setitems(fn):
    """ids of item assignments and appends that may update their array or list in place.

    The array (list) must be one only this function holds (made by a NumPy
    operation, a constructor or a list display, possibly through earlier
    updates and loop carries), and nothing else may read it except indexing
    (arrays only) and expressions that are never differentiated: then no
    value of the old version is needed later, only its shape (length).
    """
    stmts = list(ir.walk(fn.body))
    readers = {}
    for s in stmts:
        if isinstance(s, ir.Assign):
            for n in astutil.names_loaded(s.value):
                updates = s.op.kind in ("setitem", "append")
                ok = s.op.kind in ("getitem", "const") or \
                    (updates and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id == n
                     and all(n not in astutil.names_loaded(a) for a in s.value.args[1:]))
                readers.setdefault(n, []).append(s if ok else None)
        else:
            for e in ir.expressions(s):
                for n in astutil.names_loaded(e):
                    readers.setdefault(n, []).append("flow" if isinstance(s, ir.Loop) else None)
            if isinstance(s, ir.Cond):
                for br in (s.true, s.false):
                    for r in br.results:
                        for n in astutil.names_loaded(r):
                            readers.setdefault(n, []).append(None)
            if isinstance(s, ir.Loop):
                for r in s.results:
                    for n in astutil.names_loaded(r):
                        readers.setdefault(n, []).append("flow")
    for n in astutil.names_loaded(fn.result):
        readers.setdefault(n, []).append(None)
    # the greatest set of names satisfying the rules (loop carries may be fresh because they are)
    fresh = {n for s in stmts for n in (ir.defined_names(s) + (s.carry if isinstance(s, ir.Loop) else []))}
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if isinstance(s, ir.Assign):
                names = astutil.target_names(s.target)
                if names[0] in fresh and not (isinstance(s.target, str) and _makes_fresh(s, fresh)):
                    fresh.difference_update(names)
                    changed = True
            elif isinstance(s, ir.Loop):
                for c, init, r, o in zip(s.carry, s.init, s.results, s.outs):
                    ok = all(isinstance(a, gast.Name) and a.id in fresh for a in (init, r))
                    if not ok and (c in fresh or o in fresh):
                        fresh.difference_update({c, o})
                        changed = True
            elif isinstance(s, (ir.Cond, ir.LocalDef)):
                for o in ir.defined_names(s):
                    if o in fresh:
                        fresh.discard(o)
                        changed = True
    # an array may still be indexed (only its shape matters backward); a list only measured with len()
    allowed = {"setitem": ("getitem", "const"), "append": ("const",)}
    out = set()
    for s in stmts:
        if isinstance(s, ir.Assign) and s.op.kind in allowed:
            base = s.value.args[0]
            if isinstance(base, gast.Name) and base.id in fresh and \
                    all(r is s or (r not in (None, "flow") and r.op.kind in allowed[s.op.kind])
                        for r in readers.get(base.id, [])):
                out.add(id(s))
    return out


def _makes_fresh(s, fresh):
    """Does this assignment produce an array only the function holds (given the fresh names)?"""
    from .lower.inplace import VIEW_NAMES
    op = s.op
    if op.kind == "rule":
        name = op.rule.name.split(".")[-1].strip("()`")
        return not op.rule.container and name not in VIEW_NAMES and name not in ("T", "mT", "real")
    if op.kind == "const":
        return getattr(op, "array", False) and isinstance(s.value, gast.Call)
    if op.kind == "list":
        return True
    if op.kind in ("setitem", "append", "copy"):
        src = s.value if op.kind == "copy" else s.value.args[0]
        return isinstance(src, gast.Name) and src.id in fresh
    return False


def _fresh_locals(fn):
    """Names bound by rule operations in fn (new arrays nothing else refers to)."""
    out = set()
    returned = astutil.names_loaded(fn.result)
    for s in ir.walk(fn.body):
        if isinstance(s, ir.Assign) and s.op.kind == "rule" and isinstance(s.target, str):
            out.add(s.target)
        if isinstance(s, ir.Assign) and s.op.kind in ("tuple", "list", "dict") and s.target in returned:
            returned |= astutil.names_loaded(s.value)
    return out - returned
