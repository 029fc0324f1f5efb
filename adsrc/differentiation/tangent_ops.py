"""Tangents of operations, from the rule tables (forward mode; see forward.py).

Where a rule's forward form comes from, in order:

* an elementwise rule: its reverse template with `g` read as the argument's
  tangent (an elementwise derivative is diagonal, so J t and J^T g are the
  same product), summed over the arguments that have tangents;
* `rule.jvp_linear`: the function is linear in its differentiable arguments
  together: the same call on their tangents (`np.sum(x_dot, axis=0)`);
* `rule.jvp_multilinear`: linear in each one: the sum over arguments of the
  call with that argument replaced by its tangent (`x_dot @ w + x @ w_dot`);
* `rule.jvps`: a forward template per argument, over its tangent `g`;
* otherwise J t from the reverse template, one pullback per output element
  (`jvp_from_vjp`): exact, and cheap for the many rules with a scalar output.
"""

import gast

from .. import astutil
from ..ir.walk import target_names
from ..rules import jvp_rules
from .ops import OpAdjoints, runtime_template


class TangentOps(OpAdjoints):
    """Mixin of the Forward generator: one method per kind of operation."""

    def tan_Copy(self, s, out):
        t = self.tangent(s.expr)
        if t is not None:
            self.set_tangent(s.target, t, out)

    def tan_Const(self, s, out):
        pass

    def tan_Opaque(self, s, out):
        if s.function:
            return
        if not any(n in self.act.useful for n in target_names(s.target)):
            return      # its value does not reach the result differentiably (a sort key): it needs no tangent,
            # as reverse mode asks no cotangent of it
        if s.refusal is not None:
            raise s.refusal
        raise self.error(s, f"adsrc cannot differentiate through {s.describe}.", s.hint)

    def tan_CallLocal(self, s, out):
        raise self.error(s, "internal error: a call to a nested function was not inlined.")

    def tan_GetItem(self, s, out):
        t = self.tangent(s.expr.value)
        if t is not None:
            self.set_tangent(s.target, gast.Subscript(value=t, slice=astutil.clone(s.expr.slice), ctx=gast.Load()),
                             out)

    def tan_GetAttr(self, s, out):
        t = self.tangent(s.expr.value)
        if t is not None:
            self.set_tangent(s.target, self.hcall("attr_tangent", t, s.expr.value, astutil.const(s.expr.attr)), out)

    def tan_ScanSlice(self, s, out):
        xs, index = s.expr.args
        t = self.tangent(xs)
        if t is not None:
            self.set_tangent(s.target, self.hcall("scan_slice", t, index), out)

    def tan_Pack(self, s, out):
        e = s.expr
        if isinstance(e, gast.Dict):
            expr = gast.Dict(keys=[astutil.clone(k) for k in e.keys],
                             values=[self.tangent_or_zeros(v) for v in e.values])
        else:
            expr = type(e)(elts=[self.tangent_or_zeros(v) for v in e.elts], ctx=gast.Load())
        self.set_tangent(s.target, expr, out)

    def tan_Update(self, s, out):
        base, idx, val = s.expr.args
        tv = self.tangent(val)
        if tv is not None:
            tv = self.hcall("written_tangent", tv, base)      # (0 when the array holds integers)
        tb = self.tangent_or_zeros(base)
        in_place = self.updatable(tb)
        expr = self.hcall("index_update", tb, idx, tv if tv is not None else astutil.const(0.0))
        node = self.set_tangent(s.target, expr, out)
        if in_place:
            self.note_update(s, node, node.value)

    def tan_Append(self, s, out):
        lst, val = s.expr.args
        tl = self.tangent_or_zeros(lst)
        in_place = self.updatable(tl)
        expr = self.hcall("list_append", tl, self.tangent_or_zeros(val))
        node = self.set_tangent(s.target, expr, out)
        if in_place:
            self.note_update(s, node, node.value)

    # -- rules -----------------------------------------------------------------------------------------
    def tan_Apply(self, s, out):
        rule, bound = s.rule, s.bound
        static = rule.static_args(bound)
        ans = astutil.load(s.target)
        diff = [(p, n) for p, n in bound.items() if p in rule.vjps]
        if self.values.on_sequences(s):
            return self.set_tangent(s.target, self.sequence_tangent(s), out)
        form = jvp_rules.form(rule)
        if form == "elementwise":
            expr = self.elementwise_tangent(s, diff, lambda p: jvp_rules.reverse_as_forward(rule, p, static), ans)
        elif form == "templates" and rule.kind == "elementwise":
            expr = self.elementwise_tangent(s, [(p, n) for p, n in diff if p in rule.jvps],
                                            lambda p: jvp_rules.template(rule, p, static), ans)
        elif form in ("linear", "multilinear"):
            expr = self.linear_tangent(s, diff, form == "linear")
        elif form == "joint":
            expr = self.joint_tangent(s, diff)
        elif form == "templates":
            expr = self.sum_of(self.instantiate(jvp_rules.template(rule, p, static), rule, bound, t, ans)
                               for p, n, t in self.with_tangents(diff, rule.jvps))
        else:
            expr = self.tangent_from_vjp(s, diff, static, ans)
        if expr is not None:
            self.set_tangent(s.target, expr, out)

    def with_tangents(self, diff, among=None):
        out = []
        for p, node in diff:
            if isinstance(node, list):
                continue
            t = self.tangent(node)
            if t is not None and (among is None or p in among):
                out.append((p, node, t))
        return out

    def sum_of(self, parts):
        parts = list(parts)
        if not parts:
            return None
        e = parts[0]
        for p in parts[1:]:
            e = gast.BinOp(left=e, op=gast.Add(), right=p)
        return e

    def elementwise_tangent(self, s, diff, template_of, ans):
        rule, bound = s.rule, s.bound
        operands = [n for n in bound.values() if not isinstance(n, list)]
        parts, exact = [], False
        for p, node, t in self.with_tangents(diff):
            try:
                form = template_of(p)
            except TypeError:
                form = runtime_template(rule, p, node, self)      # (ops.py)
                if form is None:
                    raise
            parts.append(self.instantiate(form, rule, bound, t, ans))
            exact = exact or self.shaped_like(node, operands) or (
                isinstance(s.target, str) and self.values.rep(node.id) == self.values.rep(s.target))
        expr = self.sum_of(parts)
        if expr is None or exact or (isinstance(s.target, str) and self.values.scalar(astutil.name(s.target))):
            return expr
        return self.hcall("full", expr, ans)

    def linear_tangent(self, s, diff, joint):
        """The call itself on tangents: all at once (linear) or one argument at a time (multilinear)."""
        def call_with(replace):
            memo = {}
            for p, node in diff:
                nodes = node if isinstance(node, list) else [node]
                for n in nodes:
                    if id(n) in replace:
                        memo[id(n)] = replace[id(n)]
                    elif joint:
                        t = self.tangent(n)
                        memo[id(n)] = t if t is not None else self.hcall("zeros_tangent", n)
            return astutil.clone(s.expr, memo)
        if joint:
            return call_with({})
        parts = []
        for p, node in diff:
            for n in (node if isinstance(node, list) else [node]):
                t = self.tangent(n)
                if t is not None:
                    parts.append(call_with({id(n): t}))
        return self.sum_of(parts)

    def joint_tangent(self, s, diff):
        """A container rule's one forward template, over the arguments and their tangents `t_<name>`."""
        rule = s.rule
        if any(p.startswith("**") for p in s.bound):
            raise self.error(s, f"adsrc has no forward-mode rule for {rule.name} with keyword arguments.",
                             "Build the dict from a list of pairs or a display, or use reverse mode.")
        template = jvp_rules.parse(rule.jvp_joint)
        tangents = {"t_" + p: (self.tangent_or_zeros(n) if not isinstance(n, list) else
                               astutil.tuple_([self.tangent_or_zeros(e) for e in n])) for p, n in diff}
        for p in rule.param_names:
            tangents.setdefault("t_" + p, astutil.const(0.0))
        return self.instantiate(template, rule, s.bound, astutil.const(0.0), astutil.load(s.target), tangents)

    def sequence_tangent(self, s):
        """`+` / `*` that may concatenate or repeat lists: decided when the code runs (tangents.py)."""
        x, y = s.bound["x"], s.bound["y"]
        tx, ty = self.tangent_or_zeros(x), self.tangent_or_zeros(y)
        if s.rule.name == "`+`":
            return self.hcall("add_tangent", tx, ty, astutil.load(s.target))
        return self.hcall("mul_tangent", x, y, tx, ty, astutil.load(s.target))

    def tangent_from_vjp(self, s, diff, static, ans):
        """J t from the reverse templates: `jvp_from_vjp(lambda g: (vjp_x(g), ...), (x_dot, ...), ans)`."""
        rule, bound = s.rule, s.bound
        if rule.container and not rule.tuple_output:
            raise self.error(s, f"adsrc has no forward-mode rule for {rule.name}, which returns a container.",
                             "Differentiate this function in reverse mode (adsrc.grad / adsrc.vjp), or report "
                             "the missing rule.")
        items = self.with_tangents(diff)
        if not items:
            return None
        g = self.namer.fresh("g")
        vjps = [self.instantiate(rule.template(p, static), rule, bound, astutil.name(g), ans) for p, _, _ in items]
        lam = gast.Lambda(args=astutil.arguments([g]), body=astutil.tuple_(vjps))
        return self.hcall("jvp_from_vjp", lam, astutil.tuple_([t for _, _, t in items]), ans)

