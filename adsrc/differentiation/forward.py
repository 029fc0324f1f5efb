"""Forward mode: primal and tangent code, interleaved, for a lowered function.

Each statement is followed by the statement computing its tangent (`y_dot`
for `y`), from the rule tables (tangent_ops.py). Control flow stays control
flow: a `Cond` becomes an `if` whose branches also set the outputs'
tangents, a `Scan` or `WhileLoop` becomes a Python loop carrying tangents
beside the values. No tape is kept.

Only *varied* names (activity.py: they depend differentiably on an input
that has a tangent) get tangents. A tangent, when a name has one, has
exactly the name's shape; a name without one has a zero tangent, which costs
nothing until a zero must exist as a value (`zeros_tangent`).
"""

import gast

from .. import astutil
from ..analysis.aliases import VIEW_RULES
from ..analysis.buffers import exclusive_updates
from ..emission import copyprop, dce
from ..ir import nodes as ir
from ..ir import printer
from ..ir.printer import Printer, op_expr
from ..ir.walk import expr_reads, target_names
from . import dynamic
from .assemble import result_parts
from ..errors import TransformError
from .control import _unguard, refusal_statement
from .ops import refuse_lost_arguments
from .inplace import finish_updates
from .operands import named_by_user, operand_checks
from .reverse import refuse_unknown_change
from .state import Adjoints, tag
from .tangent_ops import TangentOps

_PURE = (ir.Apply, ir.Copy, ir.GetItem, ir.Pack, ir.Update, ir.Append, ir.GetAttr, ir.ScanSlice)
# helpers whose result is a new array or list only the generated code holds
_NEW_HELPERS = frozenset({"index_update", "zeros_tangent", "copied", "list_append"})


class Forward(TangentOps):
    """Generates forward-mode code for one lowered function (ctx: units.Context)."""

    def __init__(self, fn, namer, wrt, values, act, ctx):
        self.fn = fn
        self.uf = fn.uf
        self.namer = namer
        self.wrt = list(wrt)
        self.values = values
        self.act = act
        self.ctx = ctx
        self.tan = {}               # name -> gast.Name of its tangent (absent: zero)
        self._tnames = {}
        self.updates = []           # (node, stmt) updates that may happen in place (inplace.py)
        self.passive_reads = set()
        self.shape_reads = set()
        self.exclusive = exclusive_updates(fn)
        # tangent names bound to a new buffer only this code holds: an update of the primal in place may update
        # the tangent in place too only then (the tangent of `v = w + 0.0` is w's own tangent, perhaps the
        # caller's array; `full` of a smaller tangent is a read-only broadcast)
        self.owned = set()

    def error(self, s, problem, hint=None):
        return self.uf.error(s.loc, problem, hint)

    h = Adjoints.h               # the reverse generator's: helper names from the namer
    hcall = Adjoints.hcall

    def varied(self, n):
        return n in self.act.varied

    def tname(self, n):
        t = self._tnames.get(n)
        if t is None:
            t = self._tnames[n] = self.namer.fresh(n.split(".")[-1] + "_dot")
        return t

    def tangent(self, node):
        """The tangent expression of an atom, or None for a zero tangent."""
        if isinstance(node, gast.Name):
            t = self.tan.get(node.id)
            return None if t is None else astutil.clone(t)
        return None

    def tangent_or_zeros(self, node):
        t = self.tangent(node)
        return t if t is not None else self.hcall("zeros_tangent", node)

    def set_tangent(self, target, expr, out, pure=True):
        """Bind the tangents of target's names to expr (a tuple target unpacks it)."""
        names = target_names(target)
        tt = self.tname(target) if isinstance(target, str) else _map_target(target, self.tname)
        node = astutil.assign(tt, expr)
        node.adsrc_pure = pure
        out.append(node)
        for n in names:
            self.tan[n] = astutil.name(self.tname(n))
        if isinstance(tt, str):
            self.own(tt, self.new_buffer(expr))
        return node

    def own(self, tname, owned):
        (self.owned.add if owned else self.owned.discard)(tname)

    def new_buffer(self, expr):
        """Whether a tangent expression certainly makes a new array (or list) that nothing else holds."""
        if isinstance(expr, gast.Name):
            return expr.id in self.owned
        if isinstance(expr, (gast.BinOp, gast.UnaryOp, gast.List, gast.Dict)):
            return True
        if not isinstance(expr, gast.Call):
            return False
        f = expr.func
        if isinstance(f, gast.Name):
            return self.namer.helpers.get(f.id) in _NEW_HELPERS
        return isinstance(f, gast.Attribute) and f.attr not in VIEW_RULES

    def updatable(self, tangent):
        """May a tangent (the tangent of an update's base) be changed in place?"""
        return tangent is not None and self.new_buffer(tangent)

    # -- blocks ------------------------------------------------------------------------------------
    def block(self, body):
        out = []
        for s in body:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, ir.Op):
            return tag(self.op(s), s.loc.line)
        if isinstance(s, ir.Effect):
            refuse_unknown_change(self, s)
            return tag([astutil.expr_stmt(op_expr(s, self.namer))], s.loc.line)
        if isinstance(s, ir.Raw):
            return tag([astutil.clone(s.node)], s.loc.line)
        if isinstance(s, ir.Cond):
            return self.cond(s)
        if isinstance(s, (ir.Scan, ir.WhileLoop)):
            return self.loop(s)
        if isinstance(s, ir.Def):
            if s.name in self.act.closures and self.varied(s.name):
                fn, var = (named_by_user(self.uf, n) for n in (s.name, self.act.closures[s.name]))
                raise self.error(s, f"the nested function `{fn}` uses `{var}`, which is differentiated, and "
                                    "is passed on as a value; adsrc differentiates nested functions only where "
                                    "they are called directly.",
                                 f"Call `{fn}` directly, or pass `{var}` to it as a parameter.")
            printer = Printer(self.ctx.primitive_names(self.namer), self.namer)
            return tag([printer.function(s.fn, s.name)], s.loc.line)
        raise TypeError(s)

    def op(self, s):
        names = target_names(s.target)
        if isinstance(s, ir.Apply):
            refuse_lost_arguments(self, s, lambda n: isinstance(n, gast.Name) and n.id in self.tan)
        if not any(self.varied(n) for n in names) or not self.any_tangent(s):
            node = astutil.assign(s.target, op_expr(s, self.namer))
            node.adsrc_pure = isinstance(s, _PURE)
            if isinstance(s, ir.Const):
                self.passive_reads.add(id(node))
            self.note_update(s, node)
            return [node]
        if isinstance(s, ir.CallUser):
            return self.call_user(s)
        if isinstance(s, ir.CallCustom):
            return self.call_custom(s)
        if isinstance(s, ir.Opaque) and s.dynamic and s.refusal is None and dynamic.useful(self, s):
            return dynamic.tangent(self, s)      # a function value known when the code runs (dynamic.py)
        node = astutil.assign(s.target, op_expr(s, self.namer))
        node.adsrc_pure = isinstance(s, _PURE)
        self.note_update(s, node)
        out = operand_checks(self, s, lambda a: a.id in self.tan) + [node]
        getattr(self, "tan_" + type(s).__name__)(s, out)
        return out

    def any_tangent(self, s):
        return isinstance(s, ir.Opaque) or any(n in self.tan for n in expr_reads(s.expr)) or \
            (isinstance(s, ir.CallUser) and s.receiver is not None and any(n in self.tan for n in expr_reads(s.receiver)))

    def note_update(self, s, node, expr=None):
        if isinstance(s, (ir.Update, ir.Append)) and id(s) in self.exclusive and \
                (expr is None or isinstance(expr.args[0], gast.Name)):
            stand_in = s if expr is None else type(s)(s.target, expr, loc=s.loc)
            self.updates.append((node, stand_in))

    # -- control flow --------------------------------------------------------------------------------
    def cond(self, s):
        before = dict(self.tan)
        branches = []
        refused = []
        for br in (s.true, s.false):
            self.tan = dict(before)
            try:
                body = self.block(br.body)
            except TransformError as e:      # refused when it runs, as in reverse mode (control.py)
                refused.append(e)
                if len(refused) == 2:
                    raise refused[0] from None
                self.tan = dict(before)
                branches.append(([refusal_statement(self, e)], [None] * len(s.outs), br.results))
                continue
            body += [astutil.assign(o, astutil.clone(r)) for o, r in zip(s.outs, br.results)
                     if not (isinstance(r, gast.Name) and r.id == o)]
            branches.append((body, [self.tangent(r) for r in br.results], br.results))
        self.tan = before
        for k, o in enumerate(s.outs):
            parts = [b[1][k] for b in branches]
            if not self.varied(o) or all(p is None for p in parts):
                continue
            for (body, tangents, results), p in zip(branches, parts):
                body.append(astutil.assign(self.tname(o), p if p is not None else
                                           self.hcall("zeros_tangent", results[k])))
            self.tan[o] = astutil.name(self.tname(o))
            self.own(self.tname(o), all(p is None or self.new_buffer(p) for p in parts))
        return tag(printer.branches(s, astutil.clone(s.pred), branches[0][0], branches[1][0], self.namer), s.loc.line)

    def loop(self, s):
        """A Scan or WhileLoop as a Python loop; varied carried values carry tangents too."""
        carried = [k for k, c in enumerate(s.carry) if self.varied(c) or self.varied(s.outs[k])]
        pre = [astutil.assign(c, astutil.clone(init)) for c, init in zip(s.carry, s.init)
               if not (isinstance(init, gast.Name) and init.id == c)]
        for k in carried:
            t = self.tangent(s.init[k])
            pre.append(astutil.assign(self.tname(s.carry[k]), t if t is not None else
                                      self.hcall("zeros_tangent", astutil.name(s.carry[k]))))
            self.tan[s.carry[k]] = astutil.name(self.tname(s.carry[k]))
            self.own(self.tname(s.carry[k]), t is None or self.new_buffer(t))
        body = self.block(_unguard(s))
        pairs = [(c, r) for c, r in zip(s.carry, s.results) if not (isinstance(r, gast.Name) and r.id == c)]
        for k in carried:
            t = self.tangent(s.results[k])
            tn = self.tname(s.carry[k])
            if t is None:
                t = self.hcall("zeros_tangent", s.results[k])
            if tn in self.owned and not self.new_buffer(t):
                t = self.hcall("copied", t)         # the next step may change the carried tangent in place
            if not (isinstance(t, gast.Name) and t.id == tn):
                pairs.append((tn, t))
        if pairs:
            body.append(astutil.assign(tuple(c for c, _ in pairs) if len(pairs) > 1 else pairs[0][0],
                                       astutil.tuple_([astutil.clone(r) if not isinstance(r, str) else
                                                       astutil.name(r) for _, r in pairs])
                                       if len(pairs) > 1 else astutil.clone(pairs[0][1])))
        if isinstance(s, ir.Scan):
            if s.stop is not None:
                body.append(gast.If(test=astutil.name(s.carry[s.stop]), body=[gast.Break()], orelse=[]))
            target = astutil.store(s.item) if s.item is not None else astutil.store("_")
            node = gast.For(target=target, iter=astutil.clone(s.xs), body=body or [gast.Pass()], orelse=[],
                            type_comment=None)
        else:
            test = astutil.clone(s.test)
            if s.test_body:
                body = self.block(s.test_body) + [gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test),
                                                          body=[gast.Break()], orelse=[])] + body
                test = astutil.const(True)
            node = gast.While(test=test, body=body or [gast.Pass()], orelse=[])
        after = [astutil.assign(o, astutil.name(c)) for o, c in zip(s.outs, s.carry) if o != c]
        for k in carried:
            o, c = s.outs[k], s.carry[k]
            if o != c:
                after.append(astutil.assign(self.tname(o), astutil.name(self.tname(c))))
                self.tan[o] = astutil.name(self.tname(o))
                self.own(self.tname(o), self.tname(c) in self.owned)
        return tag(pre + [node] + after, s.loc.line)

    # -- calls to other functions ----------------------------------------------------------------------
    def call_user(self, s):
        expr, kw = self.ctx.jvp_call(self, s)
        value = self.namer.fresh(_stem(s.target))
        tdot = self.namer.fresh(_stem(s.target) + "_dot")
        out = [astutil.assign((value, tdot), expr)]
        out.append(astutil.assign(s.target, astutil.name(value)))
        self.set_tangent(s.target, astutil.name(tdot), out)
        return out

    def call_custom(self, s):
        """A custom_jvp function calls its rule; a custom_vjp function runs its fwd, and its tangent is J t from
        its bwd (one call per output element)."""
        fn = s.callee
        if getattr(fn, "jvp", None) is not None:
            rule = self.ctx.bind(fn.__name__ + "_jvp", fn.jvp)
            args = s.expr.args
            call = self.hcall("custom_jvp_call", astutil.name(rule), astutil.tuple_(list(args)),
                              astutil.tuple_([self.tangent_or_zeros(a) for a in args]))
            tdot = self.namer.fresh(_stem(s.target) + "_dot")
            out = [astutil.assign((s.target, tdot), call)]
            self.set_tangent(s.target, astutil.name(tdot), out)
            return out
        info = self.ctx.custom(self, s)
        out = [astutil.assign((s.target, info.residuals), info.expr)]
        args = s.expr.args
        if len(args) != fn.nargs:
            raise self.error(s, f"`{fn.__name__}` takes {fn.nargs} arguments, got {len(args)}.")
        g = self.namer.fresh("g")
        bwd = self.hcall("custom_cots", astutil.call(astutil.name(info.bwd), [astutil.name(info.residuals),
                                                                           astutil.name(g)]),
                         astutil.const(fn.nargs), astutil.const(fn.__name__))
        tangents = [self.tangent(a) if self.tangent(a) is not None else astutil.const(0.0) for a in args]
        lam = gast.Lambda(args=astutil.arguments([g]), body=bwd)
        self.set_tangent(s.target, self.hcall("jvp_from_vjp", lam, astutil.tuple_(tangents),
                                              astutil.load(s.target)), out)
        return out


def _map_target(t, f):
    return tuple(_map_target(x, f) if isinstance(x, tuple) else f(x) for x in t)


def _stem(target):
    n = target if isinstance(target, str) else target[0] if isinstance(target[0], str) else "out"
    return n.split(".")[-1]


def assemble_jvp(fw, fn, name, options):
    """`f_jvp(args, *, x_dot, ...) -> (out, out_dot)` (the user's tangent, exact, with `final`)."""
    tparams = []
    for p in fw.wrt:
        tp = fw.tname(p)
        tparams.append(tp)
        fw.tan[p] = astutil.name(tp)
    body = fw.block(fn.body)
    res = fn.result
    value = result_parts(fn, 2)[0] if options.get("has_aux") else res
    t = fw.tangent(value)
    if options.get("final"):
        t = fw.hcall("tangent_output", t if t is not None else astutil.const(0.0), value)
    elif t is None:
        t = fw.hcall("zeros_tangent", value)
    body.append(gast.Return(value=astutil.tuple_([astutil.clone(res), t])))
    body, _ = dce.eliminate(copyprop.propagate(body))
    finish_updates(fw, body)
    args = astutil.clone(fn.args)
    for tp in tparams:
        args.kwonlyargs.append(astutil.param(tp))
        args.kw_defaults.append(None)
    return astutil.function_def(name, args, body, fn.lineno)
