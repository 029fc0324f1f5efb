"""Adjoints of operations, from the rule tables: the cotangent of a statement's value flows to its operands.

A rule's template is an expression over the call's parameters, `g` (the
output's cotangent) and `ans` (the output); it is inlined into the generated
code (`dx = dy * (1.0 - y * y)`). Elementwise rules get their contributions
summed back over broadcast axes (`unbroadcast`) only where the abstract
values say shapes may differ.
"""

import builtins

import gast

from .. import astutil
from ..ir import nodes as ir
from . import dynamic
from .checkpoint import recompute
from .state import AdjState, is_const

_BUILTINS = frozenset(dir(builtins))
_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b, gast.Mult: lambda a, b: a * b}


def _base(n):
    return n.split(".")[-1]


def runtime_template(rule, pname, node, gen):
    """A rule's check when the code runs (`at_runtime`) for an argument it has no derivative for, unless that
    argument is itself one of the user's differentiated parameters (refused when transforming); gen is the
    generator (its unit: the parameters it differentiates, and whether the code is adsrc's own, a rule's
    helper differentiated again, whose parameters stand for whatever the rule was given)."""
    from ..rules import template
    text = getattr(rule.vjps.get(pname) if hasattr(rule.vjps, "get") else None, "at_runtime", None)
    own = (getattr(gen.uf.fun, "__module__", None) or "").startswith("adsrc.")
    if text is None or getattr(node, "id", None) in gen.wrt and not own:
        return None
    return template(text)


class OpAdjoints:
    """Mixin of the Adjoint generator: one method per kind of operation."""

    def active_name(self, node):
        return isinstance(node, gast.Name) and self.act.active(node.id)

    def adjoint_op(self, s, g, out):
        getattr(self, "adj_" + type(s).__name__)(s, g, out)

    def adj_Copy(self, s, g, out):
        src = s.expr
        if not self.active_name(src):
            return
        if isinstance(s.target, str):
            self.accumulate(src.id, g, out)
        elif self.values[src.id].kind != "container" or self.values[src.id].items is None:
            # unpacking an array `a, b = x` (or what may be one: a container rule's result, such as the
            # replace_obj of a changed view, may be its array): the rows' cotangents stacked (stack_cot
            # leaves them a tuple when x turns out not to be an array)
            self.accumulate(src.id, self.hcall("stack_cot", g, src), out)
        else:
            self.accumulate(src.id, g, out)

    def adj_Const(self, s, g, out):
        pass

    def adj_Opaque(self, s, g, out):
        if s.function:
            return       # a function value: calls of it that adsrc cannot follow are refused where they are
        if s.refusal is not None:
            raise s.refusal
        if s.dynamic:
            return dynamic.adjoint(self, s, g, out)
        raise self.error(s, f"adsrc cannot differentiate through {s.describe}.", s.hint)

    def adj_CallLocal(self, s, g, out):
        raise self.error(s, "internal error: a call to a nested function was not inlined.")

    # -- rules ---------------------------------------------------------------------------------------
    def adj_Apply(self, s, g, out):
        rule, bound = s.rule, s.bound
        static = rule.static_args(bound)
        ans = astutil.load(s.target)
        if rule.kind != "elementwise" and not (rule.container and not rule.tuple_output):
            g = self.exact_g(s, g, out)
        operands = [node for node in bound.values() if not isinstance(node, list)]
        if self.values.on_sequences(s):
            # `+` and `*` on lists and tuples concatenate and repeat: decided when the code runs
            for k, (pname, node) in enumerate(bound.items()):
                if self.active_name(node):
                    other = bound["y" if pname == "x" else "x"]
                    helper = "sum_operand_cot" if rule.name == "`+`" else "product_operand_cot"
                    self.accumulate(node.id, self.hcall(helper, g, astutil.name(node.id), astutil.clone(other),
                                                        ans, astutil.const(k == 0)), out)
            return
        for pname, node in bound.items():
            if pname not in rule.vjps or not self.active_name(node):
                continue
            try:
                contrib = self.instantiate(rule.template(pname, static), rule, bound, g, ans)
            except TypeError as e:      # the rule has no derivative for this argument or variant
                fallback = runtime_template(rule, pname, node, self)
                if fallback is None:
                    raise self.error(s, str(e), "Check the call against adsrc's rule table (`python -m adsrc "
                                                "rules`), or give the function a rule with adsrc.defvjp.") from None
                contrib = self.instantiate(fallback, rule, bound, g, ans)
            if rule.kind == "elementwise":
                lazy = True
                if not self.shaped_like(node, operands) and not (
                        isinstance(s.target, str) and self.values.rep(node.id) == self.values.rep(s.target)):
                    # the operand itself (not a name of the same shape): a real operand of a complex
                    # result takes the real part of its cotangent
                    contrib = self.hcall("unbroadcast", contrib, astutil.name(node.id), self.shape_of(s.target))
            else:
                lazy = rule.lazy
            if not self.values[node.id].numeric and not rule.container and rule.name != "iterating":
                contrib = self.hcall("seq_cot", contrib, node)     # a list or tuple read as an array
            self.accumulate(node.id, contrib, out, lazy=lazy)

    def shaped_like(self, x, operands):
        """True if an elementwise call's output certainly has operand x's shape."""
        rep = self.values.rep(x.id)
        return all(o is x or self.values.scalar(o) or
                   (isinstance(o, gast.Name) and self.values.rep(o.id) == rep) for o in operands) \
            and self.values[x.id].numeric

    def shape_of(self, target):
        """An expression with target's shape (an earlier name of the same shape if there is one)."""
        if isinstance(target, str):
            return astutil.name(self.values.rep(target))
        return astutil.load(target)

    def exact_g(self, s, g, out):
        """The cotangent with exactly the output's shape (general rules need it)."""
        if isinstance(s, ir.Apply) and s.rule.tuple_output:
            if isinstance(s.target, str):
                return self.hcall("full_tuple", g, astutil.name(s.target))
            return astutil.tuple_([self.hcall("full", e, astutil.load(t)) for t, e in zip(s.target, g.elts)])
        if not self.g_lazy:
            return g
        if isinstance(s.target, str):
            if isinstance(g, gast.Name):
                out.append(astutil.assign(g.id, self.hcall("full", g, self.shape_of(s.target))))
                return astutil.name(g.id)
            return self.hcall("full", g, self.shape_of(s.target))
        return astutil.tuple_([self.hcall("full", e, astutil.load(t)) for t, e in zip(s.target, g.elts)])

    def instantiate(self, template, rule, bound, g, ans, extra=None):
        """The template's expression with its placeholders replaced (and the names in `extra`)."""
        from ..rules import NOT_STATIC
        mapping = {"g": g, "ans": ans, **(extra or {})}
        for p in rule.params:
            node = bound.get(p.name)
            if node is None:
                mapping[p.name] = astutil.const(None if p.default is NOT_STATIC else p.default)
            elif isinstance(node, list):
                mapping[p.name] = astutil.tuple_([astutil.clone(n) for n in node])
            else:
                mapping[p.name] = node
        mapping.update({n: self.h(n) for n in template.names if n not in mapping and n not in _BUILTINS})
        expr = astutil.substitute(template.expr, mapping)
        self.shape_only_args(expr)
        return self.fold(expr)

    def shape_only_args(self, expr):
        """In np.size(a), np.shape(a), np.ndim(a), only a's shape matters: use its representative."""
        np_name = self.namer.helper("np")
        for n in astutil.walk(expr):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    isinstance(n.func.value, gast.Name) and n.func.value.id == np_name and \
                    n.func.attr in ("size", "shape", "ndim") and len(n.args) == 1 and isinstance(n.args[0], gast.Name):
                n.args[0].id = self.values.rep(n.args[0].id)

    def fold(self, e):
        """Fold arithmetic on literals, and `1.0 * y` (the grad seed) to `y` where that is exact."""
        if isinstance(e, gast.BinOp):
            e.left, e.right = self.fold(e.left), self.fold(e.right)
            if is_const(e.left) and is_const(e.right) and type(e.op) in _FOLD:
                return astutil.const(_FOLD[type(e.op)](float(e.left.value), float(e.right.value)))
            if isinstance(e.op, gast.Mult):
                if is_const(e.left, 1.0) and self.foldable(e.right):
                    return e.right
                if is_const(e.right, 1.0) and self.foldable(e.left):
                    return e.left
        elif isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            e.operand = self.fold(e.operand)
            if is_const(e.operand):
                return astutil.const(-float(e.operand.value))
        return e

    def foldable(self, node):
        """A float value (a differentiated one): `1.0 * node` may be replaced by node itself."""
        return isinstance(node, gast.Name) and node.id in self.act.varied

    # -- indexing, attributes, displays -------------------------------------------------------------------
    def adj_GetItem(self, s, g, out):
        base = s.expr.value
        if not self.active_name(base):
            return
        n = base.id
        var = self.owned_adjoint(n, out)
        idx = astutil.clone(s.expr.slice)
        if self.values[n].kind == "array" and self.basic_index(idx) and not self.complex_cotangents:
            out.append(gast.AugAssign(target=gast.Subscript(value=var, slice=idx, ctx=gast.Store()), op=gast.Add(),
                                      value=g))
        else:
            out.append(astutil.assign(var.id, self.hcall("add_at", var, astutil.name(n), astutil.index_value(idx), g)))

    def basic_index(self, idx):
        if isinstance(idx, gast.Tuple):
            return all(self.basic_index(e) for e in idx.elts)
        if isinstance(idx, gast.Slice):
            return True
        if isinstance(idx, gast.Constant):
            return idx.value is Ellipsis or type(idx.value) is int    # None: add_at (Dask cannot assign
                                                                      # through a new axis; add_at drops it)
        return isinstance(idx, gast.Name) and self.values.integer(idx)

    def adj_ScanSlice(self, s, g, out):
        base, index = s.expr.args
        if not self.active_name(base):
            return
        var = self.owned_adjoint(base.id, out, "owned_tree")
        out.append(astutil.assign(var.id, self.hcall("scan_slice_cot", var, astutil.name(base.id),
                                                     astutil.clone(index), g)))

    def adj_GetAttr(self, s, g, out):
        base = s.expr.value
        if not self.active_name(base):
            return
        var = self.owned_adjoint(base.id, out)
        out.append(astutil.assign(var.id, self.hcall("add_attr", var, astutil.name(base.id),
                                                     astutil.const(s.expr.attr), g)))

    def adj_Pack(self, s, g, out):
        e = s.expr
        if isinstance(e, gast.Dict):
            keys = []
            for k in e.keys:
                if not isinstance(k, gast.Constant):
                    raise self.error(s, "dict displays with computed keys are not supported when their values "
                                        "are differentiated.", "Use constant keys.")
                keys.append(k.value)
            atoms = e.values
        else:
            keys, atoms = range(len(e.elts)), e.elts
        for key, node in zip(keys, atoms):
            if not self.active_name(node):
                continue
            if isinstance(g, gast.Tuple) and isinstance(key, int):
                part = g.elts[key]
                if is_const(part, 0.0):
                    continue
            else:
                part = self.hcall("item_cot", g, astutil.const(key))
            self.accumulate(node.id, part, out)

    # -- functional updates ------------------------------------------------------------------------------
    def adj_Update(self, s, g, out):
        base, idx, val = s.expr.args
        g = self.exact_g(s, g, out) if isinstance(s.target, str) and not isinstance(g, gast.Name) else g
        if self.active_name(val):
            call = self.hcall("index_update_vjp_value", g, base, astutil.index_value(astutil.clone(idx)), val)
            self.shape_reads.add(id(call.args[1]))
            self.accumulate(val.id, call, out)
        if self.active_name(base):
            if self.g_owned and base.id not in self.adj and isinstance(g, gast.Name):
                # g is a buffer only we hold and dies here: zero the overwritten part in place
                call = self.hcall("zero_at", g, base, astutil.index_value(astutil.clone(idx)))
                self.shape_reads.add(id(call.args[1]))
                out.append(astutil.assign(self.dname(base.id), call))
                self.adj[base.id] = AdjState(astutil.name(self.dname(base.id)), lazy=False, owned=True)
                return
            contrib = self.hcall("index_update_vjp_base", g, base, astutil.index_value(astutil.clone(idx)))
            self.shape_reads.add(id(contrib.args[1]))
            if base.id not in self.adj:
                out.append(astutil.assign(self.dname(base.id), contrib))
                self.adj[base.id] = AdjState(astutil.name(self.dname(base.id)), lazy=False,
                                             owned=self.values[base.id].kind == "array")
            else:
                self.accumulate(base.id, contrib, out)

    def adj_Append(self, s, g, out):
        lst, val = s.expr.args
        if not self.g_owned:
            g = self.hcall("list_copy", g)        # split_last pops in place: only from a list we hold
        tmp_v = self.namer.fresh("d" + _base(val.id if isinstance(val, gast.Name) else "item"))
        if self.active_name(lst) and lst.id not in self.adj:
            var = self.dname(lst.id)
            out.append(astutil.assign((var, tmp_v), self.hcall("split_last", g)))
            self.adj[lst.id] = AdjState(astutil.name(var), lazy=True, owned=True)
        else:
            tmp_l = self.namer.fresh("d" + _base(lst.id if isinstance(lst, gast.Name) else "lst"))
            out.append(astutil.assign((tmp_l, tmp_v), self.hcall("split_last", g)))
            if self.active_name(lst):
                self.accumulate(lst.id, astutil.name(tmp_l), out)
        if self.active_name(val):
            self.accumulate(val.id, astutil.name(tmp_v), out)

    # -- calls ----------------------------------------------------------------------------------------
    def adj_CallUser(self, s, g, out):
        call = self.calls[id(s)]
        if s.checkpoint is not None:      # the callee's forward again, for its residuals (adsrc.checkpoint)
            out.append(recompute(self, call))
        if any(isinstance(a, (list, dict)) for a in call.wrt_args):
            return self.adj_call_with_varargs(call, g, out)
        ids = [a.id for a in call.wrt_args]
        targets, direct = [], []
        for a in ids:
            if self.act.active(a) and a not in self.adj and ids.count(a) == 1:
                targets.append(self.dname(a))      # first cotangent: straight into the adjoint
                direct.append(True)
            else:
                targets.append(self.namer.fresh("d" + _base(a)))
                direct.append(False)
        out.append(astutil.assign(tuple(targets), astutil.call(astutil.name(call.bwd), [astutil.name(call.pullback), g])))
        for a, t, d in zip(ids, targets, direct):
            if not self.act.active(a):
                continue
            if d:
                # the callee's cotangent may be one its caller holds (the pullback's own argument)
                self.adj[a] = AdjState(astutil.name(t), lazy=not self.is_scalar(a), borrowed=True)
            else:
                self.accumulate(a, astutil.name(t), out, borrowed=True)

    def adj_call_with_varargs(self, call, g, out):
        """A callee taking *args or **kwargs: their cotangents are a tuple or dict, one item per argument."""
        targets = [self.namer.fresh("d" + (a.id if isinstance(a, gast.Name) else "args")) for a in call.wrt_args]
        out.append(astutil.assign(tuple(targets), astutil.call(astutil.name(call.bwd), [astutil.name(call.pullback), g])))
        for arg, t in zip(call.wrt_args, targets):
            items = arg.items() if isinstance(arg, dict) else enumerate(arg) if isinstance(arg, list) else [(None, arg)]
            for key, atom in items:
                if self.active_name(atom):
                    part = astutil.name(t) if key is None else self.hcall("item_cot", astutil.name(t),
                                                                          astutil.const(key))
                    self.accumulate(atom.id, part, out, borrowed=True)

    def adj_CallCustom(self, s, g, out):
        fn = s.callee
        args = s.expr.args
        if len(args) != fn.nargs:
            raise self.error(s, f"`{fn.__name__}` takes {fn.nargs} arguments, got {len(args)}.")
        names = self.calls[id(s)]
        g = self.custom_g(s, g)
        targets = [self.namer.fresh("d" + (a.id if isinstance(a, gast.Name) else "arg")) for a in args]
        out.append(astutil.assign(tuple(targets), self.hcall(
            "custom_cots", astutil.call(astutil.name(names.bwd), [astutil.name(names.residuals), g]),
            astutil.const(fn.nargs), astutil.const(fn.__name__))))
        for a, t in zip(args, targets):
            if self.active_name(a):
                self.accumulate(a.id, astutil.name(t), out)


    def custom_g(self, s, g):
        """The cotangent a custom_vjp's bwd gets: a fresh array of the output's shape and dtype, leaf by leaf
        (JAX's), not one adsrc keeps lazily broadcast (a scalar for `np.sum(k * f(x))`) or a zero."""
        if isinstance(s.target, str):
            return self.hcall("owned_tree", g, astutil.name(s.target))
        return astutil.tuple_([self.hcall("owned_tree", e, astutil.load(t)) for t, e in zip(s.target, g.elts)])


def refuse_lost_arguments(d, s, differentiated):
    """An argument whose derivative a rule does not give, though it has one (`rule.unsupported`: np.gradient's
    spacing), reached by a differentiated value: refused, since the gradient through it would be lost (d: the
    Adjoint or Forward differentiator; differentiated(node) says whether a value carries a derivative). The
    other arguments a rule has no template for have none (axes, shapes, conditions, sort keys)."""
    rule = s.rule
    for pname, node in s.bound.items():
        nodes = node if isinstance(node, list) else [node]
        if pname in rule.unsupported and any(differentiated(n) for n in nodes):
            raise d.error(s, f"adsrc's rule for {rule.name} has no derivative with respect to its argument "
                             f"`{pname}`, and a differentiated value reaches it here: the gradient through it "
                             "would be lost.",
                          "Pass a value that is not differentiated there (adsrc.stop_gradient(...) if its derivative "
                          "does not matter), or give the function a rule with adsrc.defvjp.")
