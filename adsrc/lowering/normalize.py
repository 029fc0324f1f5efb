"""Normalization: the user's function as structured IR, one operation per statement.

Each user statement becomes IR statements whose operands are atoms (names or
constants), each carrying the user's line (for comments) and the operation's
column and line (for carets). Positions that are never differentiated (an
`if` test, `axis=`, a shape) keep the user's expression as written.

Conditional expressions and `and`/`or` in value positions become `If`
statements; comprehensions, `map` and `filter` become loops; lambdas become
nested `Def`s; `x[i] += y` becomes a read, an in-place operator on the item
and an item assignment (Python's own order). Calls are classified as they are
emitted (see `calls.py`): a rule, a user function, a custom_vjp, a nested
function or something adsrc cannot see into.
"""

import copy

import gast
import numpy as _np

from .. import astutil, primitives
from ..frontend import lambda_to_def, local_names, static_value
from ..ir import nodes as ir
from ..names import Namer
from .. import rules as rules_mod
from .calls import Calls
from .loops import Loops

BINOP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.FloorDiv: "floordiv",
    gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul", gast.BitAnd: "and_", gast.BitOr: "or_",
    gast.BitXor: "xor", gast.LShift: "lshift", gast.RShift: "rshift",
}
_UNARY_NAMES = {gast.USub: "neg", gast.UAdd: "pos", gast.Invert: "invert", gast.Not: "not_"}

_UNSUPPORTED = {
    gast.Try: ("`try` statements are not supported inside a differentiated function.",
               "Move the `try` outside the function, or check the condition with an `if`."),
    gast.AsyncWith: ("`async with` is not supported.", "Differentiate plain synchronous code."),
    gast.AsyncFor: ("`async for` is not supported.", "Differentiate plain synchronous code."),
    gast.AsyncFunctionDef: ("async functions are not supported.", "Use a plain `def`."),
    gast.ClassDef: ("class definitions are not supported inside a differentiated function.",
                    "Define the class at module level."),
    gast.Global: ("`global` declarations are not supported: a differentiated function cannot assign "
                  "module globals.", "Return the value instead of assigning a global."),
    gast.Nonlocal: ("`nonlocal` declarations are not supported.",
                    "Return the value instead of assigning an enclosing function's variable."),
    gast.Import: ("`import` inside a differentiated function is not supported.",
                  "Move the import to module level."),
    gast.ImportFrom: ("`import` inside a differentiated function is not supported.",
                      "Move the import to module level."),
}
if hasattr(gast, "Match"):
    _UNSUPPORTED[gast.Match] = ("`match` statements are not supported yet.", "Use `if`/`elif` instead.")
if hasattr(gast, "TryStar"):
    _UNSUPPORTED[gast.TryStar] = _UNSUPPORTED[gast.Try]

# context managers whose block runs as if it were not inside a `with`
_HARMLESS_CONTEXTS = ("errstate", "printoptions", "catch_warnings", "suppress_warnings")

# attributes of arrays that are never differentiated
CONSTANT_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"})


class Normalizer(Calls, Loops):
    """Normalizes one user function (and its nested defs) into structured IR."""

    def __init__(self, uf, namer=None):
        self.uf = uf
        self.namer = namer or Namer(astutil.all_names(uf.node) | set(uf.cells) | _free_globals(uf))
        self.scopes = []        # sets of local names, innermost last
        self.out = None         # IR statements being emitted
        self.stmt = None        # the user statement being normalized
        self.bindings = {}      # name in generated code -> object (partial's bound values...)
        self.functions = {}     # local name -> what calling it means (see calls.py)
        self.local_defs = set()  # names of nested defs and lambdas emitted so far
        self.single = _assigned_once(uf.node)

    # -- entry -----------------------------------------------------------------------------------
    def function(self, fdef, name=None):
        self.scopes.append(local_names(fdef))
        saved = self.out, self.stmt
        try:
            body = self.block(fdef.body)
        finally:
            self.scopes.pop()
            self.out, self.stmt = saved
        return ir.Function(name or fdef.name, fdef.args, body, None, self.uf, getattr(fdef, "lineno", None),
                           self.bindings)

    def block(self, stmts):
        saved_out, saved_stmt = self.out, self.stmt
        self.out = []
        try:
            for s in stmts:
                self.stmt = s
                self.statement(s)
            return self.out
        finally:
            self.out, self.stmt = saved_out, saved_stmt

    def sub_block(self, fill):
        saved = self.out
        self.out = []
        try:
            fill()
            return self.out
        finally:
            self.out = saved

    # -- helpers -------------------------------------------------------------------------------------
    def is_local(self, id_):
        if any(id_ in s for s in self.scopes[1:]):
            return True
        return bool(self.scopes) and id_ in self.scopes[0] and id_ not in self.uf.known

    def error(self, node, problem, hint=None):
        return self.uf.error(node, problem, hint)

    def loc(self, node=None):
        node = node if node is not None else self.stmt
        line = getattr(self.stmt, "lineno", None)
        return ir.Loc(line, getattr(node, "col_offset", 0) or 0, getattr(node, "lineno", line))

    def emit(self, stmt, node=None):
        stmt.loc = self.loc(node)
        self.out.append(stmt)
        return stmt

    def temp(self, base):
        name = self.namer.fresh(base)
        if self.scopes:
            self.scopes[-1].add(name)
        return name

    def static(self, node):
        try:
            return static_value(node, self.uf, self.is_local)
        except LookupError:
            return rules_mod.NOT_STATIC

    # -- statements ------------------------------------------------------------------------------------
    def statement(self, s):
        kind = type(s)
        if kind in _UNSUPPORTED:
            problem, hint = _UNSUPPORTED[kind]
            raise self.error(s, problem, hint)
        method = getattr(self, "stmt_" + kind.__name__, None)
        if method is None:
            raise self.error(s, f"`{kind.__name__}` statements are not supported by adsrc.",
                             "Rewrite this statement with assignments, `if`, `for` or `while`.")
        method(s)

    def stmt_FunctionDef(self, s):
        if s.decorator_list:
            raise self.error(s, "decorated nested functions are not supported.",
                             "Define the nested function without decorators.")
        self.emit(ir.Def(s.name, self.function(s)), s)

    def stmt_Expr(self, s):
        v = s.value
        if isinstance(v, gast.Constant):
            return   # a docstring
        self.refuse_generators(v)
        if isinstance(v, gast.Call):
            self.call(v, None)      # run for its effect (or its changes in place)
            return
        self.atom(v)    # evaluated for the errors it may raise

    def stmt_Pass(self, s):
        pass

    def stmt_Assert(self, s):
        self.emit(ir.Raw(gast.Assert(test=self.raw(s.test), msg=s.msg and self.raw(s.msg))), s)

    def stmt_Raise(self, s):
        self.emit(ir.Raw(gast.Raise(exc=s.exc and self.raw(s.exc), cause=s.cause and self.raw(s.cause))), s)

    def stmt_Break(self, s):
        self.emit(ir.Break(), s)

    def stmt_Continue(self, s):
        self.emit(ir.Continue(), s)

    def stmt_Return(self, s):
        value = astutil.const(None) if s.value is None else self.atom(s.value)
        self.emit(ir.Return(value), s)

    def stmt_AnnAssign(self, s):
        if s.value is not None:
            self.assign_to(s.target, s.value)

    def stmt_Assign(self, s):
        first = s.targets[0]
        self.assign_to(first, s.value)
        for t in s.targets[1:]:
            self.assign_to(t, first if isinstance(first, gast.Name) else s.value)

    def stmt_AugAssign(self, s):
        t = s.target
        if isinstance(t, gast.Name):
            self.emit(ir.InplaceOp(t.id, s.op, self.atom(s.value)), s)
        elif isinstance(t, gast.Subscript):
            # Python: item = base[i]; item op= value (in place for arrays); base[i] = item
            base = self.subscript_base(t)
            index = self.index(t.slice)
            item = self.temp(_subscript_temp(base, index))
            self.emit(ir.GetItem(item, gast.Subscript(value=astutil.name(base), slice=index, ctx=gast.Load())), t)
            self.emit(ir.InplaceOp(item, s.op, self.atom(s.value)), s)
            self.emit(ir.SetItem(base, copy.deepcopy(index), astutil.name(item)), t)
        else:
            raise self.error(t, "augmented assignment to an attribute is not supported.",
                             "Compute the new value into a local variable instead.")

    def stmt_Delete(self, s):
        for t in s.targets:
            if isinstance(t, gast.Name):
                continue        # the name simply goes out of use
            if isinstance(t, gast.Subscript):
                base = self.subscript_base(t)
                index = astutil.index_value(self.index(t.slice))
                self.emit(ir.MutatingCall(None, base, "__delitem__", [index]), t)
                continue
            raise self.error(t, "`del` of an attribute is not supported in a differentiated function.",
                             "Build a new object instead.")

    def stmt_With(self, s):
        for item in s.items:
            ctx = item.context_expr
            fn = self.static(ctx.func) if isinstance(ctx, gast.Call) else rules_mod.NOT_STATIC
            name = getattr(fn, "__name__", "")
            if name not in _HARMLESS_CONTEXTS or item.optional_vars is not None:
                raise self.error(s, "`with` statements are not supported inside a differentiated function.",
                                 "Move the `with` block outside the function and pass its result in as an "
                                 "argument.")
        for inner in s.body:
            self.stmt = inner
            self.statement(inner)

    def assign_to(self, t, value):
        if isinstance(t, gast.Name):
            if isinstance(value, gast.Lambda):
                self.lambda_def(value, t.id)       # f = lambda x: ...  is  def f(x): return ...
                return
            self.value(value, t.id)
            self.note_alias(t.id, value)
        elif isinstance(t, (gast.Tuple, gast.List)):
            spec = astutil.target_spec(t)
            if spec is None:
                self.unpack(t, self.atom(value))
            elif isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(spec) and \
                    not any(isinstance(x, gast.Starred) for x in value.elts):
                self.value(value, spec)        # a, b = b, a: element by element
            else:
                # compute the value, then unpack it (an array's cotangent is then an array)
                self.emit(ir.Copy(spec, self.atom(value)), value)
        elif isinstance(t, gast.Subscript):
            base = self.subscript_base(t)
            index = self.index(t.slice)
            self.emit(ir.SetItem(base, index, self.atom(value)), t)
        elif isinstance(t, gast.Attribute):
            raise self.error(t, "assignment to an attribute is not supported in a differentiated function.",
                             "Keep the value in a local variable (and return it if the caller needs it).")
        else:
            raise self.error(t, f"cannot assign to {type(t).__name__}.", None)

    def unpack(self, t, tmp):
        """Nested or starred targets: index the value one element at a time."""
        elts = t.elts
        stars = [i for i, e in enumerate(elts) if isinstance(e, gast.Starred)]
        if len(stars) > 1:
            raise self.error(t, "two starred targets in one assignment.", None)
        k = stars[0] if stars else len(elts)
        after = len(elts) - k - 1
        for i, e in enumerate(elts):
            if i == k:
                upper = astutil.const(-after) if after else None
                part = gast.Subscript(value=copy.deepcopy(tmp), ctx=gast.Load(),
                                      slice=gast.Slice(lower=astutil.const(k), upper=upper, step=None))
                self.assign_to(e.value, gast.Call(func=astutil.name("list"), args=[part], keywords=[]))
                continue
            pos = i if i < k else i - len(elts)
            self.assign_to(e, gast.Subscript(value=copy.deepcopy(tmp), slice=astutil.const(pos), ctx=gast.Load()))

    def subscript_base(self, t):
        """The local name holding the object `t.value` (an item assignment's target)."""
        if isinstance(t.value, gast.Name) and self.is_local(t.value.id):
            return t.value.id
        base = self.atom(t.value)
        if not isinstance(base, gast.Name) or not self.is_local(base.id):
            raise self.error(t, "item assignment is only supported on local variables "
                                "(a name assigned in this function or one of its parameters).",
                             "Copy the array into a local variable first: `a = np.array(obj)`.")
        return base.id

    def stmt_If(self, s):
        test = self.raw(s.test)
        self.emit(ir.If(test, self.block(s.body), self.block(s.orelse)), s)

    def stmt_While(self, s):
        test = self.raw(s.test)
        self.emit(ir.While([], test, self.block(s.body), self.block(s.orelse)), s)

    def sequence(self, e):
        """An atom that can be indexed by position: lists, tuples and arrays as they are, a dict's keys..."""
        if isinstance(e, (gast.List, gast.Tuple)) and not any(isinstance(x, gast.Starred) for x in e.elts):
            return self.atom(e)
        if self.is_dict_view(e):
            return self.atom(e)
        a = self.atom(e)
        if not isinstance(a, gast.Name):
            return a
        seq = self.temp(a.id + "_seq")
        self.emit_call_rule(seq, self.namer.helper("sequence"), [a], e)
        return astutil.name(seq)

    # -- expressions ---------------------------------------------------------------------------------------
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
        self.emit(ir.Def(fname, self.function(fdef)), lam)

    def temp_base(self, e):
        if isinstance(e, gast.BinOp):
            return BINOP_NAMES.get(type(e.op), "binop")
        if isinstance(e, gast.UnaryOp):
            return _UNARY_NAMES.get(type(e.op), "unary")
        if isinstance(e, gast.Call):
            f = e.func
            return f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) else "call"
        if isinstance(e, gast.Subscript):
            return _subscript_temp(e.value.id if isinstance(e.value, gast.Name) else "item", e.slice)
        if isinstance(e, gast.Attribute):
            return f"{e.value.id if isinstance(e.value, gast.Name) else 'attr'}_{e.attr}"
        if isinstance(e, gast.Compare):
            return "cmp"
        if isinstance(e, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            return "comp"
        return {gast.Tuple: "tup", gast.List: "lst", gast.Dict: "dct", gast.IfExp: "ifexp",
                gast.BoolOp: "boolop", gast.Set: "set_"}.get(type(e), "t")

    def refuse_generators(self, e):
        for n in gast.walk(e):
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

        e = _WithinGrad().visit(copy.deepcopy(e))
        self.refuse_generators(e)
        for n in gast.walk(e):
            if isinstance(n, gast.NamedExpr):
                raise self.error(n, "assignment expressions (`:=`) are only supported as plain values.",
                                 "Assign the value in a separate statement first.")
        return e

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

    def op_Attribute(self, e, target):
        if self.static(e) is not rules_mod.NOT_STATIC:
            self.emit(ir.Const(target, e), e)      # a module constant like np.pi (read as written)
            return
        base = self.atom(e.value)
        if e.attr in CONSTANT_ATTRIBUTES:
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
        expr = gast.Subscript(value=self.atom(e.value), slice=self.index(e.slice), ctx=gast.Load())
        self.emit(ir.GetItem(target, expr), e)

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
        if any(k is None for k in e.keys):
            raise self.error(e, "`**` unpacking in dict displays is not supported.", "List the keys explicitly.")
        self.emit(ir.Pack(target, gast.Dict(keys=[self.atom(k) for k in e.keys],
                                            values=[self.atom(v) for v in e.values])), e)

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

    def op_ListComp(self, e, target):
        self.comprehension(e, target, "list")

    op_GeneratorExp = op_ListComp

    def op_DictComp(self, e, target):
        self.comprehension(e, target, "dict")

    def op_SetComp(self, e, target):
        raise self.error(e, "set comprehensions are not supported.", "Use a list comprehension.")

    def comprehension(self, e, target, kind):
        # [elt for x in xs if c]  ->  t = []; for x in xs: if c: t.append(elt)
        e = copy.deepcopy(e)
        direct = isinstance(target, str) and target not in astutil.names_loaded(e)
        result = target if direct else self.temp("comp")
        display = gast.List(elts=[], ctx=gast.Load()) if kind == "list" else gast.Dict(keys=[], values=[])
        self.emit(ir.Pack(result, display), e)
        renames = {}
        for gen in e.generators:
            for n in gast.walk(gen.target):
                if isinstance(n, gast.Name):
                    renames.setdefault(n.id, self.temp(n.id))
        for gen in e.generators:
            # the first iterable is evaluated outside the comprehension's scope; the others inside it
            if gen is not e.generators[0]:
                astutil.rename(gen.iter, renames)
            astutil.rename(gen.target, renames)
            for c in gen.ifs:
                astutil.rename(c, renames)
        parts = [e.key, e.value] if kind == "dict" else [e.elt]
        for p in parts:
            astutil.rename(p, renames)

        def innermost():
            if kind == "dict":
                key = self.atom(e.key)
                self.emit(ir.SetItem(result, key, self.atom(e.value)), e)
            else:
                self.emit(ir.MutatingCall(None, result, "append", [self.atom(e.elt)]), e)

        def build(gens):
            gen = gens[0]

            def body():
                if len(gens) > 1:
                    build(gens[1:])
                else:
                    innermost()

            def guarded(conds):
                if not conds:
                    body()
                    return
                test = self.raw(conds[0])
                self.emit(ir.If(test, self.sub_block(lambda: guarded(conds[1:])), []), e)

            it = self.iteration(gen.iter)
            self.emit_for(astutil.target_spec(gen.target), it, lambda: guarded(list(gen.ifs)), [], e)

        build(e.generators)
        if not direct:
            self.emit(ir.Copy(target, astutil.name(result)), e)


def _subscript_temp(base, index):
    if isinstance(index, gast.Name):
        return f"{base}_{index.id}"
    if isinstance(index, gast.Constant) and isinstance(index.value, int) and index.value >= 0:
        return f"{base}_{index.value}"
    if isinstance(index, gast.Constant) and isinstance(index.value, str) and index.value.isidentifier():
        return f"{base}_{index.value}"
    return f"{base}_item"


def _free_globals(uf):
    return {n for n in astutil.names_loaded(uf.node) if n in uf.globals or n in uf.builtins}


def _assigned_once(fdef):
    """Names bound exactly once in the function (one assignment or def, not inside a loop)."""
    counts = {}

    def add(name, weight):
        counts[name] = counts.get(name, 0) + weight

    def visit(node, weight):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.FunctionDef):
                add(child.name, weight)
                continue
            if isinstance(child, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)):
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                add(child.id, weight)
            if isinstance(child, gast.AugAssign) and isinstance(child.target, gast.Name):
                add(child.target.id, 2)
            visit(child, 2 if isinstance(child, (gast.For, gast.While)) else weight)

    visit(fdef, 1)
    return {n for n, c in counts.items() if c == 1}


def normalize(uf, namer=None):
    """The structured IR Function of a UserFunction, and the Namer used."""
    n = Normalizer(uf, namer)
    fn = n.function(uf.node)
    return fn, n.namer
