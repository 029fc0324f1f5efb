"""IR -> runnable Python (gast), for `g.source(stage="lowered")` and for reading any stage.

Structured statements print as the Python they stand for. `Cond`, `Scan`
and `WhileLoop` print as calls to `cond`, `scan` and `while_loop` with
nested functions for their bodies, which computes what the user's function
computes.
"""


import gast

from .. import astutil
from . import nodes as ir

_TAG = "adsrc_line"      # emit.py puts a comment with the user's line above statements tagged so


def _tag(nodes, stmt):
    for n in nodes:
        n.lineno = stmt.loc.line
        setattr(n, _TAG, stmt.loc.line)
    return nodes


def iteration_expr(it):
    """The Python iterable an iteration (a RangeIter) stands for."""
    return astutil.call("range", [astutil.clone(a) for a in it.args])


class Printer:
    """IR -> gast statements; `names` gives the names of cond/scan/while_loop in the printed code."""

    def __init__(self, names, namer):
        self.names = names
        self.namer = namer

    def function(self, fn, name=None):
        body = self.block(fn.body)
        if fn.result is not None:
            body.append(gast.Return(value=astutil.clone(fn.result)))
        return astutil.function_def(name or fn.name, astutil.clone(fn.args), body or [gast.Pass()], fn.lineno)

    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(_tag(self.stmt(s), s))
        return out

    def stmt(self, s):
        if isinstance(s, ir.Op):
            return [astutil.assign(s.target, op_expr(s, self.namer))]
        if isinstance(s, ir.Effect):
            return [astutil.expr_stmt(astutil.clone(s.expr))]
        if isinstance(s, ir.Raw):
            return [astutil.clone(s.node)]
        if isinstance(s, ir.SetItem):
            target = gast.Attribute(value=astutil.name(s.base), attr=s.index.value, ctx=gast.Store()) if s.attr else \
                gast.Subscript(value=astutil.name(s.base), slice=astutil.clone(s.index), ctx=gast.Store())
            return [gast.Assign(targets=[target], value=astutil.clone(s.value), type_comment=None)]
        if isinstance(s, ir.InplaceOp):
            return [gast.AugAssign(target=astutil.store(s.target), op=s.op, value=astutil.clone(s.value))]
        if isinstance(s, ir.MutatingCall):
            if s.method == "__delitem__":
                return [gast.Delete(targets=[gast.Subscript(value=astutil.name(s.receiver),
                                                            slice=astutil.clone(s.args[0]), ctx=gast.Del())])]
            call = astutil.call(astutil.attr(s.receiver, s.method), [astutil.clone(a) for a in s.args])
            return [astutil.assign(s.target, call) if s.target else astutil.expr_stmt(call)]
        if isinstance(s, ir.If):
            return branches(s, s.test, self.block(s.body), self.block(s.orelse), self.namer)
        if isinstance(s, ir.For):
            return [gast.For(target=astutil.target(s.target), iter=iteration_expr(s.iter),
                             body=self.block(s.body) or [gast.Pass()], orelse=self.block(s.orelse),
                             type_comment=None)]
        if isinstance(s, ir.While):
            body = self.block(s.test_body)
            if body:
                body.append(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=astutil.clone(s.test)),
                                    body=[gast.Break()], orelse=[]))
                return [gast.While(test=astutil.const(True), body=body + self.block(s.body),
                                   orelse=self.block(s.orelse))]
            return [gast.While(test=astutil.clone(s.test), body=self.block(s.body) or [gast.Pass()],
                               orelse=self.block(s.orelse))]
        if isinstance(s, ir.Break):
            return [gast.Break()]
        if isinstance(s, ir.Continue):
            return [gast.Continue()]
        if isinstance(s, ir.Return):
            return [gast.Return(value=astutil.clone(s.value))]
        if isinstance(s, ir.Def):
            return [self.function(s.fn, s.name)]
        if isinstance(s, ir.Cond):
            return self.cond(s)
        if isinstance(s, ir.Scan):
            return self.scan(s)
        if isinstance(s, ir.WhileLoop):
            return self.while_loop(s)
        raise TypeError(s)

    def _pack(self, atoms):
        atoms = [astutil.clone(a) for a in atoms]
        return atoms[0] if len(atoms) == 1 else astutil.tuple_(atoms)

    def _targets(self, names):
        return names[0] if len(names) == 1 else tuple(names)

    def cond(self, s):
        tname, fname = self.namer.fresh("if_true"), self.namer.fresh("if_false")
        defs = []
        for name, br in ((tname, s.true), (fname, s.false)):
            body = self.block(br.body) + [gast.Return(value=self._pack(br.results) if br.results
                                                      else astutil.const(None))]
            params = [s.caught or "_"] if s.catches is not None and br is s.false else []
            defs.append(astutil.function_def(name, params, body))
        if s.catches is not None:       # a `try`: attempt runs the true branch and says whether it completed
            call = astutil.call(self.names["attempt"], [astutil.name(tname), astutil.name(fname),
                                                        astutil.clone(s.catches)])
            return defs + [astutil.assign((s.pred.id, self._targets(s.outs) if s.outs else "_"), call)]
        call = astutil.call(self.names["cond"], [astutil.clone(s.pred), astutil.name(tname), astutil.name(fname)])
        return defs + [astutil.assign(self._targets(s.outs), call) if s.outs else astutil.expr_stmt(call)]

    def _unpack_carry(self, s, param):
        if len(s.carry) == 1:
            return [astutil.assign(s.carry[0], astutil.name(param))] if s.carry[0] != param else []
        return [astutil.assign(tuple(s.carry), astutil.name(param))] if s.carry else []

    def scan(self, s):
        body_name = self.namer.fresh("loop_body")
        carry_param = "carry" if len(s.carry) != 1 else s.carry[0]
        item = s.item or "item"
        body = self._unpack_carry(s, carry_param) + self.block(s.body)
        body.append(gast.Return(value=astutil.tuple_([self._pack(s.results) if s.results else astutil.const(None),
                                                      astutil.const(None)])))
        fdef = astutil.function_def(body_name, [carry_param, item], body)
        call = astutil.call(self.names["scan"], [astutil.name(body_name),
                                                 self._pack(s.init) if s.init else astutil.const(None),
                                                 astutil.clone(s.xs)])
        outs = self._targets(s.outs) if s.outs else "_"
        return [fdef, astutil.assign((outs, "_"), call)]

    def while_loop(self, s):
        cond_name, body_name = self.namer.fresh("loop_cond"), self.namer.fresh("loop_body")
        carry_param = "carry" if len(s.carry) != 1 else s.carry[0]
        cbody = self._unpack_carry(s, carry_param) + self.block(s.test_body) + \
            [gast.Return(value=astutil.clone(s.test))]
        bbody = self._unpack_carry(s, carry_param) + self.block(s.body) + \
            [gast.Return(value=self._pack(s.results) if s.results else astutil.const(None))]
        defs = [astutil.function_def(cond_name, [carry_param], cbody),
                astutil.function_def(body_name, [carry_param], bbody)]
        call = astutil.call(self.names["while_loop"], [astutil.name(cond_name), astutil.name(body_name),
                                                       self._pack(s.init) if s.init else astutil.const(None)])
        return defs + [astutil.assign(self._targets(s.outs), call) if s.outs else astutil.expr_stmt(call)]


def op_expr(s, namer):
    """The forward expression of an operation, as generated code evaluates it."""
    expr = astutil.clone(s.expr)
    if isinstance(s, ir.CallUser) and s.returns_params:
        # the callee changes arguments in place: call it on copies and return their new values too
        params = astutil.tuple_([astutil.const(p) for p in s.returns_params])
        func, args = expr.func, list(expr.args)
        if s.receiver is not None:
            # o.method(...), o(...): the function type(o).method (type(o).__call__), called with o first
            func = gast.Attribute(value=astutil.call(astutil.name("type"), [astutil.clone(s.receiver)]),
                                  attr=func.attr if isinstance(func, gast.Attribute) else "__call__", ctx=gast.Load())
            args = [astutil.clone(s.receiver)] + args
        return astutil.call(astutil.name(namer.helper("call_changing")), [func, params] + args,
                            {k.arg: k.value for k in expr.keywords})
    return expr


def dump(fn):
    """Python text for any stage of a function's IR (for reading and tests)."""
    from ..emission import unparse
    from ..names import Namer
    namer = Namer(set())
    return unparse(Printer({"cond": "cond", "scan": "scan", "while_loop": "while_loop", "attempt": "attempt"},
                           namer).function(fn))


def branches(s, test, body, orelse, namer):
    """`if test: body else: orelse` for an If or Cond s; for a `try` (s.catches), body runs first inside a
    Python `try` whose `except` sets test's name to False (and s.caught to the exception), then orelse runs
    if it did."""
    if s.catches is None:
        return [gast.If(test=test, body=body or [gast.Pass()], orelse=orelse)]
    exc = namer.fresh("exc") if s.caught else None
    handler = [astutil.assign(test.id, astutil.const(False))] + \
        ([astutil.assign(s.caught, astutil.name(exc))] if exc else [])
    out = [gast.Try(body=body or [gast.Pass()],
                    handlers=[gast.ExceptHandler(type=astutil.clone(s.catches),
                                                 name=astutil.name(exc, gast.Store()) if exc else None,
                                                 body=handler)], orelse=[], finalbody=[])]
    if orelse:
        out.append(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=astutil.clone(test)), body=orelse, orelse=[]))
    return out
