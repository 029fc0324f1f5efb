"""Expressions during normalization: one operation per statement, operands as atoms.

`atom(e)` gives a name or constant holding e's value (emitting what
computes it); `value(e, target)` emits the operation assigning e to target;
`raw(e)` keeps an expression that is never differentiated as written.
Conditional expressions and `and`/`or` become `If` statements;
comprehensions become loops (comprehensions.py).
"""


import builtins
import inspect

import gast
import numpy as _np

from .. import astutil, primitives
from .. import rules as rules_mod
from ..frontend import lambda_to_def
from ..ir import nodes as ir
from ..runtime import ARRAY_ATTRIBUTES
from .changing_calls import changes_its_arguments
from .object_classes import instance_fields, is_user_function

BINOP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.FloorDiv: "floordiv",
    gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul", gast.BitAnd: "and_", gast.BitOr: "or_",
    gast.BitXor: "xor", gast.LShift: "lshift", gast.RShift: "rshift",
}
_UNARY_NAMES = {gast.USub: "neg", gast.UAdd: "pos", gast.Invert: "invert", gast.Not: "not_"}


class Expressions:
    """Mixin of the Normalizer: expressions."""

    def atom(self, e):
        """Normalize e; returns a Name or Constant holding its value."""
        if isinstance(e, gast.Constant):
            return e
        if isinstance(e, gast.Name):
            return astutil.name(e.id)
        if isinstance(e, gast.NamedExpr):
            self.assign_to(e.target, e.value)
            return astutil.name(e.target.id)
        if isinstance(e, gast.UnaryOp) and isinstance(e.operand, gast.Constant) and \
                isinstance(e.op, (gast.USub, gast.UAdd)) and isinstance(e.operand.value, (int, float, complex)):
            return astutil.const(astutil.literal_value(e))
        if isinstance(e, gast.Lambda):
            fname = self.temp("lambda_")
            self.lambda_def(e, fname)
            return astutil.name(fname)
        if isinstance(e, gast.Attribute) and self.static(e) is not rules_mod.NOT_STATIC:
            return e        # a module constant or function (np.pi, np.exp): read as written
        t = self.temp(self.temp_base(e))
        self.value(e, t)
        return astutil.name(t)

    def lambda_def(self, lam, fname):
        self.local_defs.add(fname)
        fdef = lambda_to_def(lam, fname)
        fdef.lineno = getattr(lam, "lineno", self.stmt.lineno)
        self.note_lambda(fname, fdef)       # (its copies: passed_functions.py)
        written = self.bind_defaults(fdef)
        self.emit(ir.Def(fname, self.function(fdef), written), lam)

    def temp_base(self, e):
        if isinstance(e, gast.BinOp):
            return BINOP_NAMES.get(type(e.op), "binop")
        if isinstance(e, gast.UnaryOp):
            return _UNARY_NAMES.get(type(e.op), "unary")
        if isinstance(e, gast.Call):
            f = e.func
            return f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) else "call"
        if isinstance(e, gast.Subscript):
            return subscript_temp(e.value.id if isinstance(e.value, gast.Name) else "item", e.slice)
        if isinstance(e, gast.Attribute):
            return f"{e.value.id if isinstance(e.value, gast.Name) else 'attr'}_{e.attr}"
        if isinstance(e, gast.Compare):
            return "cmp"
        if isinstance(e, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            return "comp"
        return {gast.Tuple: "tup", gast.List: "lst", gast.Dict: "dct", gast.IfExp: "ifexp",
                gast.BoolOp: "boolop", gast.Set: "set_"}.get(type(e), "t")

    def refuse_generators(self, e):
        for n in astutil.walk(e):
            if isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)):
                raise self.error(n, "`yield`/`await` are not supported in a differentiated function.",
                                 "Return a value instead.")

    def raw(self, e):
        """An expression kept as written: never differentiated (within_grad() is the constant True)."""
        normalizer = self

        class _WithinGrad(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if normalizer.static(node.func) is primitives.within_grad:
                    return astutil.const(True)
                return node

        e = _WithinGrad().visit(astutil.clone(e))
        if any(isinstance(n, gast.NamedExpr) for n in astutil.walk(e)):
            e = self.hoist_assignments(e)
            if not isinstance(e, gast.expr):
                return e[0]
        e = self.hoist_nested_calls(e)
        self.refuse_generators(e)
        return e

    def hoist_assignments(self, e):
        """`(sq := v * v) > 0.1` kept as written: `sq = v * v` first, then `sq > 0.1`. A test whose `and`/`or`
        (or `x if c else y`) decides whether the assignment runs is computed as a value, in Python's order
        (returned as a 1-tuple: its name)."""
        lazy = (gast.BoolOp, gast.IfExp)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.Not) and isinstance(e.operand, lazy):
            inner = self.hoist_assignments(e.operand)
            return (gast.UnaryOp(op=gast.Not(), operand=inner[0]),)
        if isinstance(e, lazy):
            tmp = self.temp("test")
            self.value(e, tmp)
            return (astutil.name(tmp),)
        walrus = [n for n in astutil.walk(e) if isinstance(n, gast.NamedExpr)]
        read = [n.id for n in astutil.walk(e) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
        scoped = lazy + (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
        skipped = any(isinstance(n, scoped) and any(isinstance(m, gast.NamedExpr) for m in astutil.walk(n))
                      for n in astutil.walk(e))
        if skipped or any(w.target.id in read for w in walrus):
            raise self.error(walrus[0], "adsrc cannot tell when this assignment expression (`:=`) runs, relative to "
                                        "the rest of the test.", "Assign the value in a separate statement first.")
        normalizer = self

        class _Hoist(gast.NodeTransformer):
            def visit_NamedExpr(self, node):
                self.generic_visit(node)
                normalizer.assign_to(gast.Name(id=node.target.id, ctx=gast.Store(), annotation=None,
                                               type_comment=None), node.value)
                return astutil.name(node.target.id)
        return _Hoist().visit(e)

    def hoist_nested_calls(self, e):
        """Calls of nested functions in an expression kept as written are computed first (and inlined), so they
        read the enclosing function's variables as they are at the call, as in Python. Not where the expression
        may skip the call (`and`/`or`, `x if c else y`, comprehensions, lambdas): those keep the call."""
        lazy = (gast.BoolOp, gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
        if any(isinstance(n, lazy) for n in astutil.walk(e)):
            if any(isinstance(n, gast.Call) and self.calls_nested(n) for n in astutil.walk(e)) and \
                    not any(isinstance(n, gast.Lambda) for n in astutil.walk(e)):
                # `g(t) > 0 and s < 1` with g nested: the expression's own control flow, then its value
                return self.computed_parts(e)
            return e
        normalizer = self

        class _Hoist(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                f = node.func
                if normalizer.calls_nested(node):
                    tmp = normalizer.temp(f.id if isinstance(f, gast.Name) else f.attr)
                    normalizer.value(node, tmp)
                    return astutil.name(tmp)
                return node
        return _Hoist().visit(e)

    def computed_parts(self, e):
        """A test holding `and`/`or`/`x if c else y` and calls computed first, as statements in Python's order:
        `not`, and comparisons (which adsrc keeps as written), keep their shape around their computed parts."""
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.Not):
            return gast.UnaryOp(op=gast.Not(), operand=self.computed_parts(e.operand))
        if isinstance(e, gast.Compare) and len(e.ops) == 1:
            return gast.Compare(left=self.computed_parts(e.left), ops=e.ops,
                                comparators=[self.computed_parts(e.comparators[0])])
        if isinstance(e, gast.Compare):     # a < b < c: a < b and b < c, b computed once, c only if a < b
            if len(e.ops) > 2:
                raise self.error(e, "adsrc follows a chain of more than two comparisons in a test with calls only "
                                    "when it is written out.", "Write `a < b and b < c and ...`.")
            first = self.computed_parts(e.left)
            middle = self.temp("operand")
            self.value(e.comparators[0], middle)
            pairs = [gast.Compare(left=first, ops=[e.ops[0]], comparators=[astutil.name(middle)]),
                     gast.Compare(left=astutil.name(middle), ops=[e.ops[1]], comparators=[e.comparators[1]])]
            return self.computed_parts(gast.BoolOp(op=gast.And(), values=pairs))
        if not any(isinstance(n, (gast.Call, gast.BoolOp, gast.IfExp)) for n in astutil.walk(e)):
            return e
        tmp = self.temp("test")
        self.value(e, tmp)
        return astutil.name(tmp)

    def calls_nested(self, call):
        """Is this call a call of a function defined in this function (or a lambda bound to a local name), or
        of a function of the user's that changes its arguments in place (changing_calls.py)? Either is computed
        first, not kept as written."""
        f = call.func
        if isinstance(f, gast.Name) and (f.id in self.def_names or f.id in self.local_defs):
            return True
        return self.calls_changing(call)

    def calls_changing(self, call):
        """Is this a call of a function of the user's that changes its arguments in place?"""
        if not isinstance(call.func, (gast.Name, gast.Attribute)):
            return False
        obj = self.static(call.func)
        return obj is not rules_mod.NOT_STATIC and is_user_function(obj) and rules_mod.lookup(obj) is None and \
            changes_its_arguments(obj)

    def value(self, e, target):
        """Emit statements assigning the value of expression e to target."""
        method = getattr(self, "op_" + type(e).__name__, None)
        if method is None:
            self.emit(ir.Const(target, self.raw(e)), e)
            return
        method(e, target)

    def op_Name(self, e, target):
        self.emit(ir.Copy(target, astutil.name(e.id)), e)

    def op_Constant(self, e, target):
        self.emit(ir.Const(target, e), e)

    def op_NamedExpr(self, e, target):
        self.emit(ir.Copy(target, self.atom(e)), e)

    def op_Lambda(self, e, target):
        self.emit(ir.Copy(target, self.atom(e)), e)

    def op_Starred(self, e, target):
        raise self.error(e, "starred expressions are not supported here.", "Pass the elements explicitly.")

    def op_Yield(self, e, target):
        self.refuse_generators(e)

    op_YieldFrom = op_Await = op_Yield

    def op_BinOp(self, e, target):
        found = self.operator_method(e)
        if found is not None:            # an operand of a user class with a Python __add__ (__rmul__...)
            return self.user_operator(e, target, found)
        rule = rules_mod.OPERATORS.get(type(e.op))
        left, right = self.atom(e.left), self.atom(e.right)
        expr = gast.BinOp(left=left, op=e.op, right=right)
        if rule is None or rule.nondiff:
            self.emit(ir.Const(target, expr), e)
        elif isinstance(e.op, gast.Mult) and isinstance(left, gast.Name) and isinstance(right, gast.Name) \
                and left.id == right.id:
            # x * x: one contribution 2 g x instead of two of g x
            self.emit(ir.Apply(target, expr, rules_mod.FUNCTIONS[_np.square], {"x": left}), e)
        else:
            self.emit(ir.Apply(target, expr, rule, {"x": left, "y": right}), e)

    def op_UnaryOp(self, e, target):
        if isinstance(e.op, gast.Not):
            self.emit(ir.Const(target, self.raw(e)), e)
            return
        found = self.operator_method(e)
        if found is not None:            # -a with a of a user class with a Python __neg__
            return self.user_operator(e, target, found)
        rule = rules_mod.OPERATORS.get(type(e.op))
        operand = self.atom(e.operand)
        expr = gast.UnaryOp(op=e.op, operand=operand)
        if isinstance(operand, gast.Constant) or rule is None or rule.nondiff:
            self.emit(ir.Const(target, expr), e)
        else:
            self.emit(ir.Apply(target, expr, rule, {"x": operand}), e)

    def op_Call(self, e, target):
        self.call(e, target)

    def op_Compare(self, e, target):
        self.emit(ir.Const(target, self.raw(e)), e)

    def note_property_owner(self, e, base):
        """`self.a.W` with W a property of the class `self.a` is inferred to have (a field the caller filled,
        `Outer(Prop(raw))`): base's class is known from here on (checked when the code runs)."""
        if not isinstance(e.value, gast.Attribute) or not isinstance(base, gast.Name) or \
                self.known_class(base) is not None:
            return
        cls = self.inferred_class(e.value)
        attr = inspect.getattr_static(cls, e.attr, None) if cls is not None else None
        if isinstance(attr, property) and is_user_function(attr.fget):
            self.check_class(base.id, cls, e)
            self.local_classes[base.id] = cls

    def op_Attribute(self, e, target):
        if self.static(e) is not rules_mod.NOT_STATIC:
            self.emit(ir.Const(target, e), e)      # a module constant like np.pi (read as written)
            return
        base = self.atom(e.value)
        self.note_property_owner(e, base)
        computed = self.property_of_known_class(base, e.attr)
        if computed is not None:
            # obj.area with `area` a property of obj's class: area's getter called with obj (or the class's
            # __getattr__ called with obj and the name, once the object is seen not to have it as a field)
            getter, hook = computed
            args = [base]
            if hook:
                self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_no_field")),
                                                 [astutil.clone(base), astutil.const(e.attr)])), e)
                args.append(astutil.const(e.attr))
            func = astutil.name(self.bind(getter.__qualname__.replace(".", "_"), getter))
            return self.emit_op(ir.CallUser, target, gast.Call(func=func, args=args, keywords=[]), e, callee=getter)
        cls = self.known_class(base) if isinstance(base, gast.Name) else None
        if cls is not None and e.attr in instance_fields(cls):
            # `self.flat`, `self.T`: a field of an object of the user's class, named like an array attribute
            return self.emit(ir.GetAttr(target, gast.Attribute(value=base, attr=e.attr, ctx=gast.Load())), e)
        if e.attr in ARRAY_ATTRIBUTES:
            self.emit(ir.Const(target, gast.Attribute(value=base, attr=e.attr, ctx=gast.Load())), e)
            return
        if e.attr == "flat":
            # reading `a.flat` (iterating or indexing it) reads the values of `a.ravel()`
            call = gast.Call(func=gast.Attribute(value=base, attr="ravel", ctx=gast.Load()), args=[], keywords=[])
            self.emit(ir.Apply(target, call, rules_mod.METHODS["ravel"], {"a": base}, method_of=base), e)
            return
        expr = gast.Attribute(value=base, attr=e.attr, ctx=gast.Load())
        rule = rules_mod.ATTRIBUTES.get(e.attr)
        if rule is not None:
            self.emit(ir.Apply(target, expr, rule, {"x": base}), e)
        else:
            self.emit(ir.GetAttr(target, expr), e)

    def op_Subscript(self, e, target):
        rule = rules_mod.subscript_rule(self.static(e.value))
        if rule is not None:
            # np.r_[a, b] and np.c_[a, b] compute from their items
            try:
                bound = rules_mod.bind_subscript(rule, self.index(e.slice))
            except TypeError as err:
                raise self.error(e, f"{err}.", None) from None
            items = [n for v in bound.values() for n in (v if isinstance(v, list) else [v])]
            expr = gast.Subscript(value=e.value, slice=astutil.tuple_(items) if len(items) != 1 else items[0],
                                  ctx=gast.Load())
            self.emit(ir.Apply(target, expr, rule, bound), e)
            return
        if self.user_method(e.value, "__getitem__"):
            # v[i] on an object of the user's class with its own __getitem__: the call v.__getitem__(i)
            call = gast.Call(func=gast.Attribute(value=e.value, attr="__getitem__", ctx=gast.Load()),
                             args=[self.slice_value(e.slice)], keywords=[])
            return self.call(gast.copy_location(call, e), target)
        expr = gast.Subscript(value=self.atom(e.value), slice=self.index(e.slice), ctx=gast.Load())
        self.emit(ir.GetItem(target, expr), e)

    def user_method(self, e, name):
        """Is e an object of a known class of the user's whose method `name` (`__getitem__`...) is Python code?"""
        cls = self.expression_class(e)
        return cls is not None and is_user_function(inspect.getattr_static(cls, name, None))

    def slice_value(self, idx):
        """An index as the value `__getitem__` receives: `a:b` is `slice(a, b, None)`."""
        if isinstance(idx, gast.Slice):
            return astutil.call(self.bind("slice", builtins.slice), [
                part if part is not None else astutil.const(None) for part in (idx.lower, idx.upper, idx.step)])
        if isinstance(idx, gast.Tuple):
            return astutil.tuple_([self.slice_value(x) for x in idx.elts])
        return idx

    def index(self, idx):
        """An index made of atoms, slices of atoms, None, Ellipsis and tuples of those."""
        if isinstance(idx, gast.Slice):
            return gast.Slice(lower=idx.lower and self.atom(idx.lower), upper=idx.upper and self.atom(idx.upper),
                              step=idx.step and self.atom(idx.step))
        if isinstance(idx, gast.Tuple):
            return astutil.tuple_([self.index(x) for x in idx.elts])
        return self.atom(idx)

    def op_Tuple(self, e, target):
        self.display(e, target, astutil.tuple_)

    def op_List(self, e, target):
        self.display(e, target, lambda elts: gast.List(elts=elts, ctx=gast.Load()))

    def display(self, e, target, make):
        if any(isinstance(x, gast.Starred) for x in e.elts):
            # [a, *b, c]: concatenate lists
            parts = []
            for x in e.elts:
                part = self.atom(gast.Call(func=astutil.name("list"), args=[x.value], keywords=[])) \
                    if isinstance(x, gast.Starred) else self.atom(gast.List(elts=[x], ctx=gast.Load()))
                parts.append(part)
            total = parts[0]
            for p in parts[1:]:
                total = self.atom(gast.BinOp(left=total, op=gast.Add(), right=p))
            if isinstance(e, gast.Tuple):
                total = self.atom(gast.Call(func=astutil.name("tuple"), args=[total], keywords=[]))
            self.emit(ir.Copy(target, total), e)
            return
        self.emit(ir.Pack(target, make([self.atom(x) for x in e.elts])), e)

    def op_Dict(self, e, target):
        if all(k is not None for k in e.keys):
            self.emit(ir.Pack(target, gast.Dict(keys=[self.atom(k) for k in e.keys],
                                                values=[self.atom(v) for v in e.values])), e)
            return
        # {**p, "a": x, **q}  ->  t = dict(p); t["a"] = x; t.update(q)   (in order: later keys win)
        first = e.keys.index(None)
        if first == 0:
            self.value(gast.Call(func=astutil.name("dict"), args=[e.values[0]], keywords=[]), target)
            first = 1
        else:
            self.op_Dict(gast.Dict(keys=e.keys[:first], values=e.values[:first]), target)
        for k, v in zip(e.keys[first:], e.values[first:]):
            if k is None:
                self.emit(ir.MutatingCall(None, target, "update", [self.atom(v)]), e)
            else:
                self.emit(ir.SetItem(target, self.atom(k), self.atom(v)), e)

    def op_Set(self, e, target):
        self.emit(ir.Const(target, gast.Set(elts=[self.atom(x) for x in e.elts])), e)

    def op_IfExp(self, e, target):
        # a if c else b  ->  if c: t = a  else: t = b
        test = self.raw(e.test)
        body = self.sub_block(lambda: self.value(e.body, target))
        orelse = self.sub_block(lambda: self.value(e.orelse, target))
        self.emit(ir.If(test, body, orelse), e)

    def op_BoolOp(self, e, target):
        # a and b  ->  t = a; if t: t = b      a or b  ->  t = a; if not t: t = b
        self.value(e.values[0], target)
        for v in e.values[1:]:
            test = astutil.name(target) if isinstance(e.op, gast.And) else \
                gast.UnaryOp(op=gast.Not(), operand=astutil.name(target))
            self.emit(ir.If(test, self.sub_block(lambda v=v: self.value(v, target)), []), e)


def subscript_temp(base, index):
    if isinstance(index, gast.Name):
        return f"{base}_{index.id}"
    if isinstance(index, gast.Constant) and isinstance(index.value, int) and index.value >= 0:
        return f"{base}_{index.value}"
    if isinstance(index, gast.Constant) and isinstance(index.value, str) and index.value.isidentifier():
        return f"{base}_{index.value}"
    return f"{base}_item"
