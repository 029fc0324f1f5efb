"""Normalization: one operation per statement, user's line on every statement.

The output keeps Python's structured control flow (`if`, `for`, `while`,
`break`, `continue`, `return`); the lowering passes remove it afterwards.
Every statement produced carries `lineno` (the user's statement line, used
for comments) and `col_offset` (the operation's column, used for carets).

Operands that derivative rules read become names or constants. Positions
that are never differentiated (an `if` test, an index, `axis=`, a shape)
keep the user's expression as written.

Conditional expressions and `and`/`or` in value positions become `if`
statements; comprehensions become loops; lambdas become local `def`s;
`x += y` becomes `x = x + y`; `x[i] += y` becomes a read, an operation and an
item assignment (which `lower/inplace.py` then makes functional).
"""

import copy

import gast

from . import astutil, primitives
from .lower.liveness import append_receiver
from . import rules as rules_mod
from .frontend import lambda_to_def, local_names, static_value
from .names import Namer

_BINOP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.FloorDiv: "floordiv",
    gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul", gast.BitAnd: "and_", gast.BitOr: "or_",
    gast.BitXor: "xor", gast.LShift: "lshift", gast.RShift: "rshift",
}
_UNARY_NAMES = {gast.USub: "neg", gast.UAdd: "pos", gast.Invert: "invert", gast.Not: "not_"}

_DICT_VIEWS = {"values": "dict_values", "items": "dict_items", "keys": "dict_keys"}

_UNSUPPORTED = {
    gast.Try: ("`try` statements are not supported inside a differentiated function.",
               "Move the `try` outside the function, or check the condition with an `if`."),
    gast.With: ("`with` statements are not supported inside a differentiated function.",
                "Move the `with` block outside the function and pass its result in as an argument."),
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
    gast.Delete: ("`del` is not supported inside a differentiated function.",
                  "Remove the `del`; names go out of scope when the function returns."),
}
if hasattr(gast, "Match"):
    _UNSUPPORTED[gast.Match] = ("`match` statements are not supported yet.", "Use `if`/`elif` instead.")
if hasattr(gast, "TryStar"):
    _UNSUPPORTED[gast.TryStar] = _UNSUPPORTED[gast.Try]


class Normalizer:
    """Rewrites one user function (and its nested defs) to one operation per statement."""

    def __init__(self, uf, namer=None):
        self.uf = uf
        self.namer = namer or Namer(astutil.all_names(uf.node) | set(uf.cells) | _free_globals(uf))
        self.scopes = []       # stack of sets of local names (innermost last)
        self.out = None        # statements being emitted
        self.stmt = None       # the user statement being normalized

    # -- entry ---------------------------------------------------------------------
    def function(self, fdef):
        self.scopes.append(local_names(fdef))
        try:
            body = self.block(fdef.body)
        finally:
            self.scopes.pop()
        new = astutil.function_def(fdef.name, fdef.args, body, fdef.lineno)
        new.col_offset = getattr(fdef, "col_offset", 0)
        return new

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

    # -- helpers -------------------------------------------------------------------
    def is_local(self, id_):
        if any(id_ in s for s in self.scopes[1:]):
            return True
        return bool(self.scopes) and id_ in self.scopes[0] and id_ not in self.uf.known

    def error(self, node, problem, hint=None):
        return self.uf.error(node, problem, hint)

    def emit(self, node, at=None):
        at = at if at is not None else self.stmt
        node.lineno = self.stmt.lineno
        node.col_offset = getattr(at, "col_offset", getattr(self.stmt, "col_offset", 0))
        node.op_lineno = getattr(at, "lineno", self.stmt.lineno)
        self.out.append(node)
        return node

    def temp(self, base):
        return self.namer.fresh(base)

    def static(self, node):
        try:
            return static_value(node, self.uf, self.is_local)
        except LookupError:
            return rules_mod.NOT_STATIC

    # -- statements ----------------------------------------------------------------
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
        new = self.function(s)
        self.emit(new)

    def stmt_Expr(self, s):
        v = s.value
        if isinstance(v, gast.Constant):
            return  # docstring or bare constant
        if isinstance(v, (gast.Yield, gast.YieldFrom, gast.Await)):
            raise self.error(s, "`yield`/`await` are not supported in a differentiated function.",
                             "Return a value instead.")
        if isinstance(append_receiver(v), gast.Subscript):
            # `a[i].append(x)` changes a list held inside `a`
            self.item_append(v)
            return
        if isinstance(v, gast.Call):
            call = self.call(v)
            self.emit(astutil.expr_stmt(call), v)
            return
        # any other bare expression has no effect other than errors: evaluate it
        self.emit(astutil.expr_stmt(self.op(v)), v)

    def stmt_Pass(self, s):
        pass

    def stmt_Assert(self, s):
        self.emit(gast.Assert(test=s.test, msg=s.msg))

    def stmt_Raise(self, s):
        self.emit(gast.Raise(exc=s.exc, cause=s.cause))

    def stmt_Break(self, s):
        self.emit(gast.Break())

    def stmt_Continue(self, s):
        self.emit(gast.Continue())

    def stmt_Return(self, s):
        value = astutil.const(None) if s.value is None else self.atom(s.value)
        self.emit(gast.Return(value=value))

    def stmt_AnnAssign(self, s):
        if s.value is None:
            return
        self.assign_to(s.target, s.value)

    def stmt_Assign(self, s):
        first = s.targets[0]
        self.assign_to(first, s.value)
        for t in s.targets[1:]:
            self.assign_to(t, first if isinstance(first, gast.Name) else s.value)

    def stmt_AugAssign(self, s):
        t = s.target
        op = type(s.op)
        if isinstance(t, gast.Name):
            value = gast.BinOp(left=astutil.name(t.id), op=s.op, right=s.value)
            value.lineno, value.col_offset = s.lineno, s.col_offset
            self.assign_to(astutil.store(t.id), value, augmented=True)
        elif isinstance(t, gast.Subscript):
            base = self.subscript_base(t)
            index = self.index(t.slice)
            cur = self.temp(_subscript_temp(base, index))
            self.emit(astutil.assign(cur, gast.Subscript(value=astutil.name(base), slice=index,
                                                         ctx=gast.Load())), t)
            rhs = self.atom(s.value)
            new = self.temp(_BINOP_NAMES.get(op, "binop"))
            self.emit(astutil.assign(new, gast.BinOp(left=astutil.name(cur), op=s.op, right=rhs)), s)
            self.out[-1].item_of = (base, cur)      # Python changes the item itself when it is an array
            self.setitem(base, copy.deepcopy(index), astutil.name(new), t)
        else:
            raise self.error(t, "augmented assignment to an attribute is not supported.",
                             "Compute the new value into a local variable instead.")

    def item_append(self, v):
        """`a[i][j].append(x)` changes a list held inside `a`: take the item out, append, store it back.

        The statements are marked with the containers on the way (`write_back`): they
        hold the old list only until it is stored back, so they are not aliases to refuse.
        """
        path = []
        t = v.func.value
        while isinstance(t, gast.Subscript):
            path.append(t)
            t = t.value
        holders = [self.subscript_base(path[-1])]
        indices = []
        for t in reversed(path):
            index = self.index(t.slice)
            item = self.temp(_subscript_temp(holders[-1], index))
            self.emit(astutil.assign(item, gast.Subscript(value=astutil.name(holders[-1]), slice=index,
                                                          ctx=gast.Load())), t)
            holders.append(item)
            indices.append(index)
        arg = self.atom(v.args[0])
        append = astutil.expr_stmt(astutil.call(astutil.attr(astutil.name(holders[-1]), "append"), [arg]))
        append.write_back = holders[:-1]
        self.emit(append, v)
        for k in range(len(indices) - 1, -1, -1):
            self.setitem(holders[k], copy.deepcopy(indices[k]), astutil.name(holders[k + 1]), v)
            self.out[-1].write_back = holders[:k]
            self.out[-1].what = f"appending to an item of `{holders[0]}`"

    def assign_to(self, t, value, augmented=False):
        if isinstance(t, gast.Name) and isinstance(value, gast.Lambda):
            # f = lambda x: ...  is  def f(x): return ...
            self.lambda_def(value, t.id)
            return
        if isinstance(t, gast.Name):
            v = self.op(value)
            node = astutil.assign(t.id, v)
            if augmented:
                node.augmented = True
            self.emit(node, value)
        elif isinstance(t, (gast.Tuple, gast.List)):
            spec = astutil.target_spec(t)
            if spec is None:
                # nested or starred targets: assign to a temporary, then unpack
                if any(isinstance(e, gast.Starred) for e in gast.walk(t)):
                    raise self.error(t, "starred assignment targets (`a, *rest = ...`) are not supported.",
                                     "Index the sequence explicitly instead.")
                tmp = self.atom(value)
                for i, e in enumerate(t.elts):
                    item = gast.Subscript(value=tmp, slice=astutil.const(i), ctx=gast.Load())
                    self.assign_to(e, item)
                return
            self.emit(astutil.assign(spec, self.op(value)), value)
        elif isinstance(t, gast.Subscript):
            base = self.subscript_base(t)
            index = self.index(t.slice)
            self.setitem(base, index, self.atom(value), t)
        elif isinstance(t, gast.Attribute):
            raise self.error(t, "assignment to an attribute is not supported in a differentiated function.",
                             "Keep the value in a local variable (and return it if the caller needs it).")
        elif isinstance(t, gast.Starred):
            raise self.error(t, "starred assignment targets are not supported.", "Index the sequence instead.")
        else:
            raise self.error(t, f"cannot assign to {type(t).__name__}.", None)

    def subscript_base(self, t):
        if not isinstance(t.value, gast.Name) or not self.is_local(t.value.id):
            raise self.error(t, "item assignment is only supported on local variables "
                                "(a name assigned in this function or one of its parameters).",
                             "Copy the array into a local variable first: `a = np.array(obj)`.")
        return t.value.id

    def setitem(self, base, index, value, at):
        node = gast.Assign(targets=[gast.Subscript(value=astutil.name(base), slice=index, ctx=gast.Store())],
                           value=value, type_comment=None)
        self.emit(node, at)

    def stmt_If(self, s):
        test = self.raw(s.test)
        body = self.block(s.body)
        orelse = self.block(s.orelse)
        self.emit(gast.If(test=test, body=body, orelse=orelse))

    def stmt_For(self, s):
        it = self.loop_iter(s.iter)
        # Python evaluates the iterable once: the loop must not see names the body rebinds
        rebound = astutil.names_stored(gast.Module(body=s.body, type_ignores=[])) | \
            astutil.names_stored(s.target)
        snapshot = {}
        for n in sorted(astutil.names_loaded(it) & rebound):
            snapshot[n] = self.temp(n + "_iter")
            self.emit(astutil.assign(snapshot[n], astutil.name(n)))
        if snapshot:
            it = astutil.rename(it, snapshot) or it
        tgt = astutil.target_spec(s.target)
        if tgt is None:
            raise self.error(s.target, "this loop target is not supported.",
                             "Loop over names or tuples of names, e.g. `for i, x in enumerate(xs):`.")
        body = self.block(s.body)
        orelse = self.block(s.orelse)
        self.emit(gast.For(target=astutil.target(tgt), iter=it, body=body, orelse=orelse, type_comment=None))

    def loop_iter(self, it):
        """range/enumerate/zip/reversed calls stay calls (their arguments atoms); others become atoms."""
        if isinstance(it, gast.Call) and not any(isinstance(a, gast.Starred) for a in it.args):
            fn = self.static(it.func)
            if fn is range and not it.keywords:
                return gast.Call(func=it.func, args=[self.raw(a) for a in it.args], keywords=[])
            if fn in (enumerate, zip, reversed) and all(k.arg for k in it.keywords):
                return gast.Call(func=it.func, args=[self.sequence(a) for a in it.args],
                                 keywords=[gast.keyword(arg=k.arg, value=self.atom(k.value))
                                           for k in it.keywords])
        if isinstance(it, (gast.Call, gast.GeneratorExp)) and not self._is_dict_view(it):
            # a generator, map, zip(*...) ...: iterate over a list of its items
            it = gast.Call(func=astutil.name(self.namer.helper("sequence")), args=[it], keywords=[])
            return self.atom(it)
        return self.sequence(it)

    def sequence(self, e):
        """An atom to iterate by index: `sequence(d)` is `d` for lists, tuples and arrays, a dict's keys..."""
        a = self.atom(e)
        if not isinstance(a, gast.Name):
            return a
        seq = self.temp(a.id + "_seq")
        self.emit(astutil.assign(seq, astutil.call(astutil.name(self.namer.helper("sequence")), [a])))
        return astutil.name(seq)

    @staticmethod
    def _is_dict_view(it):
        f = it.func if isinstance(it, gast.Call) else None
        return isinstance(f, gast.Attribute) and f.attr in _DICT_VIEWS and not it.args

    def stmt_While(self, s):
        test = self.raw(s.test)
        body = self.block(s.body)
        orelse = self.block(s.orelse)
        self.emit(gast.While(test=test, body=body, orelse=orelse))

    # -- expressions -----------------------------------------------------------------
    def atom(self, e):
        """Normalize e and return a Name or Constant holding its value."""
        if isinstance(e, gast.Constant):
            return e
        if isinstance(e, gast.Name):
            return astutil.name(e.id)
        if isinstance(e, gast.NamedExpr):
            self.assign_to(e.target, e.value)
            return astutil.name(e.target.id)
        if isinstance(e, gast.Attribute) and self.static(e) is not rules_mod.NOT_STATIC:
            return e  # a module constant like np.pi: read as written
        if isinstance(e, gast.UnaryOp) and isinstance(e.operand, gast.Constant) and \
                isinstance(e.op, (gast.USub, gast.UAdd)) and isinstance(e.operand.value, (int, float, complex)):
            return astutil.const(astutil.literal_value(e))
        if isinstance(e, gast.Lambda):
            fname = self.temp("lambda_")
            self.lambda_def(e, fname)
            return astutil.name(fname)
        if isinstance(e, (gast.Tuple, gast.List)) and all(astutil.is_constant_literal(x) for x in e.elts) \
                and isinstance(e, gast.Tuple):
            return e
        op = self.op(e)
        t = self.temp(self.temp_base(e))
        self.emit(astutil.assign(t, op), e)
        return astutil.name(t)

    def lambda_def(self, lam, fname):
        fdef = lambda_to_def(lam, fname)
        fdef.lineno = getattr(lam, "lineno", self.stmt.lineno)
        self.emit(self.function(fdef), lam)

    def temp_base(self, e):
        if isinstance(e, gast.BinOp):
            return _BINOP_NAMES.get(type(e.op), "binop")
        if isinstance(e, gast.UnaryOp):
            return _UNARY_NAMES.get(type(e.op), "unary")
        if isinstance(e, gast.Call):
            f = e.func
            if isinstance(f, gast.Attribute):
                return f.attr
            if isinstance(f, gast.Name):
                return f.id
            return "call"
        if isinstance(e, gast.Subscript):
            base = e.value.id if isinstance(e.value, gast.Name) else "item"
            return _subscript_temp(base, e.slice)
        if isinstance(e, gast.Attribute):
            base = e.value.id if isinstance(e.value, gast.Name) else "attr"
            return f"{base}_{e.attr}"
        if isinstance(e, gast.Compare):
            return "cmp"
        if isinstance(e, (gast.ListComp, gast.GeneratorExp)):
            return "comp"
        return {gast.Tuple: "tup", gast.List: "lst", gast.Dict: "dct", gast.IfExp: "ifexp",
                gast.BoolOp: "boolop", gast.Set: "set_"}.get(type(e), "t")

    def op(self, e):
        """Normalize e into one operation whose operands are atoms."""
        method = getattr(self, "op_" + type(e).__name__, None)
        if method is None:
            return self.raw(e)
        return method(e)

    def raw(self, e):
        """An expression kept as written: never differentiated (within_grad() becomes True)."""
        normalizer = self

        class _WithinGrad(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if normalizer.static(node.func) is primitives.within_grad:
                    return astutil.const(True)
                return node

        e = _WithinGrad().visit(e)
        for n in gast.walk(e):
            if isinstance(n, gast.NamedExpr):
                raise self.error(n, "assignment expressions (`:=`) are only supported as plain values.",
                                 "Assign the value in a separate statement first.")
            if isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)):
                raise self.error(n, "`yield`/`await` are not supported in a differentiated function.",
                                 "Return a value instead.")
        return e

    def op_Name(self, e):
        return astutil.name(e.id)

    def op_Constant(self, e):
        return e

    def op_NamedExpr(self, e):
        return self.atom(e)

    def op_Lambda(self, e):
        return self.atom(e)

    def op_BinOp(self, e):
        return gast.BinOp(left=self.atom(e.left), op=e.op, right=self.atom(e.right))

    def op_UnaryOp(self, e):
        if isinstance(e.op, gast.Not):
            return self.raw(e)
        if isinstance(e.operand, gast.Constant) and isinstance(e.op, (gast.USub, gast.UAdd)):
            return astutil.const(astutil.literal_value(e))
        return gast.UnaryOp(op=e.op, operand=self.atom(e.operand))

    def op_Compare(self, e):
        return self.raw(e)

    def op_Attribute(self, e):
        if self.static(e) is not rules_mod.NOT_STATIC:
            return e
        if e.attr == "flat":
            # reading `a.flat` (iterating or indexing it) reads the values of `a.ravel()`
            return gast.Call(func=gast.Attribute(value=self.atom(e.value), attr="ravel", ctx=gast.Load()),
                             args=[], keywords=[])
        return gast.Attribute(value=self.atom(e.value), attr=e.attr, ctx=gast.Load())

    def op_Subscript(self, e):
        return gast.Subscript(value=self.atom(e.value), slice=self.index(e.slice), ctx=gast.Load())

    def index(self, idx):
        """An index made of atoms, slices of atoms, None, Ellipsis and tuples of those."""
        if isinstance(idx, gast.Slice):
            return gast.Slice(lower=idx.lower and self.atom(idx.lower),
                              upper=idx.upper and self.atom(idx.upper),
                              step=idx.step and self.atom(idx.step))
        if isinstance(idx, gast.Tuple):
            return astutil.tuple_([self.index(x) for x in idx.elts])
        return self.atom(idx)

    def op_Tuple(self, e):
        return astutil.tuple_([self.element(x) for x in e.elts])

    def op_List(self, e):
        return gast.List(elts=[self.element(x) for x in e.elts], ctx=gast.Load())

    def element(self, x):
        if isinstance(x, gast.Starred):
            raise self.error(x, "starred expressions inside tuple or list displays are not supported.",
                             "Build the sequence with `+` or `list(...)` instead.")
        return self.atom(x)

    def op_Dict(self, e):
        if any(k is None for k in e.keys):
            raise self.error(e, "`**` unpacking in dict displays is not supported.", "List the keys explicitly.")
        return gast.Dict(keys=[self.atom(k) for k in e.keys], values=[self.atom(v) for v in e.values])

    def op_IfExp(self, e):
        # a if c else b  ->  if c: t = a  else: t = b
        t = self.temp("ifexp")
        test = self.raw(e.test)
        body = self.sub_block(lambda: self.assign_to(astutil.store(t), e.body))
        orelse = self.sub_block(lambda: self.assign_to(astutil.store(t), e.orelse))
        self.emit(gast.If(test=test, body=body, orelse=orelse), e)
        return astutil.name(t)

    def op_BoolOp(self, e):
        # a and b  ->  t = a; if t: t = b      a or b  ->  t = a; if not t: t = b
        t = self.temp("and_" if isinstance(e.op, gast.And) else "or_")
        self.assign_to(astutil.store(t), e.values[0])
        for v in e.values[1:]:
            test = astutil.name(t) if isinstance(e.op, gast.And) else \
                gast.UnaryOp(op=gast.Not(), operand=astutil.name(t))
            body = self.sub_block(lambda v=v: self.assign_to(astutil.store(t), v))
            self.emit(gast.If(test=test, body=body, orelse=[]), e)
        return astutil.name(t)

    def sub_block(self, fill):
        saved = self.out
        self.out = []
        try:
            fill()
            return self.out
        finally:
            self.out = saved

    def op_ListComp(self, e):
        return self.comprehension(e)

    def op_GeneratorExp(self, e):
        return self.comprehension(e)

    def comprehension(self, e):
        # [elt for x in xs if c]  ->  t = []; for x in xs: if c: t.append(elt)
        result = self.temp("comp")
        self.emit(astutil.assign(result, gast.List(elts=[], ctx=gast.Load())), e)
        renames = {}
        for gen in e.generators:
            for n in gast.walk(gen.target):
                if isinstance(n, gast.Name):
                    renames.setdefault(n.id, self.temp(n.id))
        self.scopes[-1].update(renames.values())
        elt = astutil.rename(e.elt, renames)

        def build(gens):
            gen = gens[0]
            target = astutil.rename(gen.target, renames)
            it = astutil.rename(gen.iter, renames)
            ifs = [astutil.rename(c, renames) for c in gen.ifs]

            def body():
                inner = []
                if len(gens) > 1:
                    inner = build(gens[1:])
                else:
                    inner = self.sub_block(lambda: self.stmt_Expr(astutil.expr_stmt(astutil.call(
                        astutil.attr(result, "append"), [elt]), self.stmt.lineno)))
                for c in reversed(ifs):
                    inner = [gast.If(test=c, body=inner, orelse=[])]
                    for n in inner:
                        n.lineno, n.col_offset, n.op_lineno = self.stmt.lineno, getattr(e, "col_offset", 0), \
                            self.stmt.lineno
                return inner

            loop = gast.For(target=target, iter=it, body=body(), orelse=[], type_comment=None)
            return self.sub_block(lambda: self.stmt_For(loop))

        for s in build(e.generators):
            self.out.append(s)
        return astutil.name(result)

    def op_SetComp(self, e):
        raise self.error(e, "set comprehensions are not supported.", "Use a list comprehension.")

    def op_DictComp(self, e):
        raise self.error(e, "dict comprehensions are not supported yet.",
                         "Build the dict with a `for` loop and item assignment.")

    def op_Starred(self, e):
        raise self.error(e, "starred expressions are not supported here.", "Pass the elements explicitly.")

    def op_Call(self, e):
        return self.call(e)

    def call(self, e):
        f = e.func
        target = self.static(f)
        if target is not rules_mod.NOT_STATIC:
            if target is primitives.within_grad:
                if e.args or e.keywords:
                    raise self.error(e, "adsrc.within_grad() takes no arguments.")
                return astutil.const(True)    # this code is being differentiated
            if primitives.is_primitive(target):
                return self.primitive_call(e, target)
            rule = rules_mod.lookup(target)
            if rule is not None:
                return self.rule_call(e, f, rule)
            return self.plain_call(e, f)
        if isinstance(f, gast.Attribute) and f.attr in _DICT_VIEWS and not e.args and not e.keywords:
            # d.values() / d.items() / d.keys(): a list of the dict's entries
            return astutil.call(self.namer.helper(_DICT_VIEWS[f.attr]), [self.atom(f.value)])
        if isinstance(f, gast.Attribute):
            # a method call on a value: x.sum(axis=0)
            receiver = self.atom(f.value)
            method = gast.Attribute(value=receiver, attr=f.attr, ctx=gast.Load())
            rule = rules_mod.METHODS.get(f.attr)
            if rule is not None and not rule.nondiff:
                args, keywords = self.bound_args(e, rule, skip_first=True)
                return gast.Call(func=method, args=args, keywords=keywords)
            return self.plain_call(e, method)
        if isinstance(f, gast.Name):
            return self.plain_call(e, f)
        if isinstance(f, gast.Lambda):
            return self.plain_call(e, self.atom(f))
        return self.plain_call(e, self.atom(f))

    def plain_call(self, e, func):
        args = []
        for a in e.args:
            if isinstance(a, gast.Starred):
                args.append(gast.Starred(value=self.atom(a.value), ctx=gast.Load()))
            else:
                args.append(self.atom(a))
        keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in e.keywords]
        return gast.Call(func=func, args=args, keywords=keywords)

    def rule_call(self, e, func, rule):
        if rule.nondiff:
            return self.raw(e)
        args, keywords = self.bound_args(e, rule)
        return gast.Call(func=func, args=args, keywords=keywords)

    def bound_args(self, e, rule, skip_first=False):
        """Arguments with the rule's operands as atoms and the rest as written."""
        operands = rule.referenced_params()
        positional = [p for p in rule.params if p.kind in ("pos", "any")]
        if skip_first:
            positional = positional[1:]
        var = next((p for p in rule.params if p.kind == "var"), None)
        args = []
        for i, a in enumerate(e.args):
            if isinstance(a, gast.Starred):
                raise self.error(a, f"unpacking arguments with `*` into {rule.name} is not supported.",
                                 "Pass the arguments one by one.")
            pname = positional[i].name if i < len(positional) else (var.name if var else None)
            args.append(self.operand(a, pname in operands))
        keywords = []
        for k in e.keywords:
            if k.arg is None:
                raise self.error(e, f"`**` arguments to {rule.name} are not supported.",
                                 "Pass the keyword arguments explicitly.")
            keywords.append(gast.keyword(arg=k.arg, value=self.operand(k.value, k.arg in operands)))
        return args, keywords

    def operand(self, a, needed):
        if not needed:
            return self.raw(a)
        if astutil.is_constant_literal(a):
            return a
        if isinstance(a, (gast.List, gast.Tuple)):
            return self.atom(a)
        return self.atom(a)

    def primitive_call(self, e, prim):
        """adsrc.cond / scan / while_loop / fori_loop: function arguments become local defs."""
        args = []
        for a in e.args:
            if isinstance(a, gast.Lambda):
                fname = self.temp("body_fn")
                self.lambda_def(a, fname)
                args.append(astutil.name(fname))
            elif isinstance(a, gast.Starred):
                args.append(gast.Starred(value=self.atom(a.value), ctx=gast.Load()))
            else:
                args.append(self.atom(a))
        keywords = []
        for k in e.keywords:
            if isinstance(k.value, gast.Lambda):
                fname = self.temp("body_fn")
                self.lambda_def(k.value, fname)
                keywords.append(gast.keyword(arg=k.arg, value=astutil.name(fname)))
            else:
                keywords.append(gast.keyword(arg=k.arg, value=self.atom(k.value)))
        return gast.Call(func=e.func, args=args, keywords=keywords)


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


def normalize(uf, namer=None):
    """The normalized FunctionDef of a UserFunction, and the Namer used."""
    n = Normalizer(uf, namer)
    return n.function(uf.node), n.namer
