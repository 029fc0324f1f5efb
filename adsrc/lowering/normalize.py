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


import inspect
import operator
import textwrap
import types

import gast


from .. import astutil
from ..frontend import local_names, static_value
from ..ir import nodes as ir
from ..names import Namer
from .. import rules as rules_mod
from . import autograd_numpy, factories
from .assignments import Assignments
from .calls import Calls
from .comprehensions import Comprehensions
from .expressions import Expressions
from .function_choices import FunctionChoices
from .local_classes import LocalClasses
from .contexts import Contexts
from .errstates import ErrStates, exits_before_jumps, with_exits
from .loops import Loops
from .matches import Matches
from .name_facts import assigned_once, declared_globals, straight_names
from .trys import Trys


_UNSUPPORTED = {
    gast.AsyncWith: ("`async with` is not supported.", "Differentiate plain synchronous code."),
    gast.AsyncFor: ("`async for` is not supported.", "Differentiate plain synchronous code."),
    gast.AsyncFunctionDef: ("async functions are not supported.", "Use a plain `def`."),
}
if hasattr(gast, "TryStar"):
    _UNSUPPORTED[gast.TryStar] = ("`except*` (exception groups) is not supported inside a differentiated function.",
                                  "Catch the exception group outside the function.")

# context managers whose block runs as if it were not inside a `with`
_HARMLESS_CONTEXTS = ("errstate", "printoptions", "catch_warnings", "suppress_warnings")


_MADE = {}     # (adsrc.grad, f, options) -> the gradient object a call in a transformed function makes


class Normalizer(Assignments, Expressions, Comprehensions, Calls, Loops, Trys, LocalClasses, Matches, ErrStates,
                 Contexts, FunctionChoices):
    """Normalizes one user function (and its nested defs) into structured IR."""

    def __init__(self, uf, namer=None):
        self.uf = uf
        if namer is None:
            names, loaded = astutil.all_and_loaded_names(uf.node)
            namer = Namer(names | set(uf.cells) | {n for n in loaded if n in uf.globals or n in uf.builtins})
        self.namer = namer
        self.scopes = []        # sets of local names, innermost last
        self.out = None         # IR statements being emitted
        self.stmt = None        # the user statement being normalized
        self.bindings = {}      # name in generated code -> object (partial's bound values...)
        self.functions = {}     # local name -> what calling it means (see calls.py)
        self.tables = {}        # local name bound once to a display of functions (tables.py)
        self.unknown_lengths = {}   # names of lists of lambdas of a length known when the code runs: a hint
        self.fdefs = []         # the function and the nested defs being normalized, innermost last
        self.local_defs = set()  # names of nested defs and lambdas emitted so far
        self.static_locals = {}  # loop targets bound to objects known when transforming (loops.py)
        self.single = assigned_once(uf.node)
        self.declared_globals = declared_globals(uf.node)
        self.tuple_lengths = {}  # names bound once to a tuple display: their length
        self.known_fields = {}   # name -> {field: function} of objects made here (objects.py: note_fields)
        self.known_field_classes = {}   # name -> {field: (class, element class, field classes)} of objects made here
        self.held_arguments = set()     # names holding a factory's arguments (function_values.py)
        self.library_objects = {}   # names bound once to a frozen distribution or a random generator
        self.straight_sequences = straight_names(uf.node)    # names only bound at the top level, never changed
        self.deque_limits = {}   # names bound once to a deque with a maxlen: the name holding the maxlen
        self.local_classes = {}  # names bound once to an object made here (or inferred and checked): its class
        self.element_classes = None   # names of lists of objects of one class made here: the class (calls.py)
        self.class_choices = {}  # names bound once to an item of a list of objects of several classes: those
        self.depth = 0           # blocks open: 1 in a function's body, more in a branch, loop or `try` of it

    # -- entry -----------------------------------------------------------------------------------
    def function(self, fdef, name=None):
        nonlocals = frozenset(declared_globals(fdef, gast.Nonlocal)) if fdef is not self.uf.node else frozenset()
        self.scopes.append(self.uf.locals if fdef is self.uf.node else local_names(fdef) - nonlocals)
        saved, saved_depth = (self.out, self.stmt, self.tables, self.functions, self.fdefs), self.depth
        self.depth = 0
        # tables and chosen entries (tables.py) of the enclosing functions stay visible unless a local hides them
        self.tables = {k: v for k, v in self.tables.items() if k not in self.scopes[-1]}
        self.functions = {k: v for k, v in self.functions.items() if k not in self.scopes[-1] or len(self.scopes) == 1}
        self.fdefs = self.fdefs + [fdef]
        # act = mse ... act = huber: its calls branch on which was bound last (function_choices.py)
        held = self.held_tests_bound() if fdef is self.uf.node else []
        try:
            body = held + self.field_checks(fdef) + self.block(fdef.body)
        finally:
            self.scopes.pop()
            self.out, self.stmt, self.tables, self.functions, self.fdefs = saved
            self.depth = saved_depth
        return ir.Function(name or fdef.name, fdef.args, body, None, self.uf, getattr(fdef, "lineno", None),
                           self.bindings, nonlocals)

    def field_checks(self, fdef):
        """At the start of a function whose parameters' fields hold functions its caller knows (uf.fields): a
        check when the code runs that they still do (a method may have changed one since)."""
        if fdef is not self.uf.node or not self.uf.fields:
            return []
        saved, self.out = self.out, []
        for p, known in sorted(self.uf.fields.items()):
            for field, fn in sorted(known.items(), key=lambda item: item[0]):
                self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_field")), [
                    astutil.name(p), astutil.const(field), astutil.name(self.bind(field, fn))])), fdef)
        out, self.out = self.out, saved
        return out

    def block(self, stmts):
        saved_out, saved_stmt, known = self.out, self.stmt, self.static_locals
        self.out = []
        # a block may run again or not at all: what it rebinds is not known inside it, nor after it
        stored = astutil.names_stored(gast.Module(body=list(stmts), type_ignores=[])) if known else ()
        self.static_locals = {k: v for k, v in known.items() if k not in stored}
        self.depth += 1
        try:
            for s in stmts:
                self.stmt = s
                self.statement(s)
            return self.out
        finally:
            self.depth -= 1
            self.out, self.stmt = saved_out, saved_stmt
            self.static_locals = {k: v for k, v in known.items() if k not in stored}

    def sub_block(self, fill):
        saved = self.out
        self.out = []
        self.depth += 1
        try:
            fill()
            return self.out
        finally:
            self.depth -= 1
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
        """The object an expression means when transforming, or NOT_STATIC.

        Besides globals, closures and static arguments (frontend.static_value), names
        generated code binds to objects (a partial's function) and loop targets over a
        sequence of objects known when transforming (see loops.py) are known.
        """
        known = self.known_value(node)
        if known is not rules_mod.NOT_STATIC:
            return known
        if isinstance(node, gast.Call):
            made = self.derivative_made_here(node)
            if made is rules_mod.NOT_STATIC:
                made = self.made_by_factory(node)
            if made is not rules_mod.NOT_STATIC:
                return made
        try:
            obj = static_value(node, self.uf, self.is_local)
        except LookupError:
            return rules_mod.NOT_STATIC
        if type(obj) is types.FunctionType and (obj.__module__ or "").startswith("autograd."):
            obj = autograd_numpy.numpy_function(obj)      # `import autograd.numpy as np`: NumPy's own function
        # a helper or facade function made to dispatch on array-API arrays (xp/dispatch.py) is the helper itself
        return getattr(obj, "_adsrc_numpy_helper", obj) if type(obj) is types.FunctionType else obj

    def made_by_factory(self, node):
        """`make_step(2.0)`: a factory (factories.py) called with arguments known when transforming."""
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return rules_mod.NOT_STATIC
        fun = self.static(node.func)
        if not isinstance(fun, types.FunctionType):
            return rules_mod.NOT_STATIC
        args = [self.static(a) if not astutil.is_constant_literal(a) else astutil.literal_value(a) for a in node.args]
        kwargs = {k.arg: self.static(k.value) if not astutil.is_constant_literal(k.value) else
                  astutil.literal_value(k.value) for k in node.keywords}
        if any(a is rules_mod.NOT_STATIC for a in args + list(kwargs.values())):
            return rules_mod.NOT_STATIC
        return factories.call_early(fun, args, kwargs)

    def derivative_made_here(self, node):
        """`adsrc.grad(f, ...)` (or value_and_grad, or adsrc.checkpoint) with f and the options known when
        transforming: the object it makes (one per function and options), so that `grad(f)(x)` is followed."""
        from .. import api
        from ..checkpoint import checkpoint
        maker = self.static(node.func)
        if maker not in (api.grad, api.value_and_grad, checkpoint) or not node.args:
            return rules_mod.NOT_STATIC
        args = [self.static(a) if not astutil.is_constant_literal(a) else astutil.literal_value(a) for a in node.args]
        kwargs = {k.arg: self.static(k.value) if not astutil.is_constant_literal(k.value) else
                  astutil.literal_value(k.value) for k in node.keywords}
        if any(a is rules_mod.NOT_STATIC for a in args + list(kwargs.values())) or None in kwargs:
            return rules_mod.NOT_STATIC
        key = (maker, args[0], tuple(args[1:]), tuple(sorted(kwargs.items())))
        try:
            made = _MADE.get(key)
            if made is None:
                made = _MADE[key] = maker(*args, **kwargs)
        except TypeError:
            return rules_mod.NOT_STATIC
        return made

    def known_value(self, node):
        if isinstance(node, gast.Name):
            if node.id in self.bindings:
                return self.bindings[node.id]
            return self.static_locals.get(node.id, rules_mod.NOT_STATIC)
        if isinstance(node, gast.Attribute):
            base = self.known_value(node.value)
            if base is not rules_mod.NOT_STATIC:
                return getattr(base, node.attr, rules_mod.NOT_STATIC)
            if isinstance(node.value, gast.Name) and len(self.scopes) == 1:
                # `self.act` holding a function the caller made the object with (checked: field_checks)
                return self.uf.fields.get(node.value.id, {}).get(node.attr, rules_mod.NOT_STATIC)
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
        written = self.bind_defaults(s)
        self.emit(ir.Def(s.name, self.function(s), written), s)

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
        shown = self.lambdas_display(s.value)        # fns = [lambda v, k=k: v * k for k in range(3)]
        if shown is None:
            self.note_unknown_length(s.targets[0], s.value)
        s.value = shown or s.value
        first = s.targets[0]
        self.assign_to(first, s.value)
        for t in s.targets[1:]:
            self.assign_to(t, first if isinstance(first, gast.Name) else s.value)

    def stmt_Global(self, s):
        """`global n`: assignments to n write the module's variable (global_write), reads read it live."""
        if len(self.scopes) > 1:
            raise self.error(s, "`global` declarations are supported in the differentiated function itself, not "
                                "in a function nested in it.",
                             "Declare the name global in the outer function, or return the value instead.")

    def stmt_Nonlocal(self, s):
        """`nonlocal n` in a nested function: its assignments to n are the enclosing function's (the function
        is inlined where it is called, inline.py; ir.Function.nonlocals)."""

    def global_write(self, name, value, node):
        """`n = value` to a name declared global: written into the module's namespace when the code runs,
        an effect like a record into a global dict (refused only if value is differentiated and the function
        reads n again)."""
        expr = astutil.call(astutil.name(self.bind("setitem", operator.setitem)),
                            [astutil.name(self.bind("module_globals", self.uf.globals)), astutil.const(name),
                             self.atom(value)])
        self.emit(ir.Effect(expr, writes=name), node)


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

    def stmt_Import(self, s):
        """`import a.b as c` binds c to a module known when transforming."""
        import importlib
        for alias in s.names:
            try:
                module = importlib.import_module(alias.name)
            except ImportError as e:
                raise self.error(s, f"`import {alias.name}` fails: {e}.", None) from None
            name = alias.asname or alias.name.split(".")[0]
            self.bind_import(s, name, module if alias.asname else importlib.import_module(name))

    def stmt_ImportFrom(self, s):
        import importlib
        if s.level:
            raise self.error(s, "relative imports inside a differentiated function are not supported.",
                             "Move the import to module level.")
        module = importlib.import_module(s.module)
        for alias in s.names:
            if alias.name == "*":
                raise self.error(s, "`from ... import *` inside a function is not Python.", None)
            value = getattr(module, alias.name, None)
            if value is None:
                value = importlib.import_module(f"{s.module}.{alias.name}")
            self.bind_import(s, alias.asname or alias.name, value)

    def bind_import(self, s, name, value):
        if name not in self.single:
            raise self.error(s, f"`{name}` is imported here and assigned elsewhere in the function.",
                             "Move the import to module level.")
        self.static_locals[name] = value
        self.emit(ir.Const(name, astutil.name(self.bind(name, value))), s)

    def stmt_With(self, s):
        import contextlib
        ctx = s.items[0].context_expr if len(s.items) == 1 else None
        fn = self.static(ctx.func) if isinstance(ctx, gast.Call) else rules_mod.NOT_STATIC
        if fn is contextlib.suppress and s.items[0].optional_vars is None and ctx.args and not ctx.keywords:
            # with suppress(E): body  is  try: body  except E: pass
            kinds = ctx.args[0] if len(ctx.args) == 1 else gast.Tuple(elts=list(ctx.args), ctx=gast.Load())
            handler = gast.ExceptHandler(type=kinds, name=None, body=[gast.Pass()])
            body = exits_before_jumps(s.body, with_exits(s), self.temp)
            return self.statement(gast.fix_missing_locations(gast.copy_location(
                gast.Try(body=body, handlers=[handler], orelse=[], finalbody=[]), s)))
        if fn is contextlib.nullcontext and not ctx.keywords and len(ctx.args) <= 1:
            body = exits_before_jumps(list(s.body), with_exits(s), self.temp)
            if s.items[0].optional_vars is not None:        # with nullcontext(v) as name: name is v
                value = ctx.args[0] if ctx.args else astutil.const(None)
                body.insert(0, gast.copy_location(gast.Assign(targets=[s.items[0].optional_vars], value=value,
                                                              type_comment=None), s))
            for inner in gast.fix_missing_locations(gast.Module(body=body, type_ignores=[])).body:
                self.stmt = inner
                self.statement(inner)
            return None
        for k, item in enumerate(s.items):
            ctx = item.context_expr
            fn = self.static(ctx.func) if isinstance(ctx, gast.Call) else rules_mod.NOT_STATIC
            if getattr(fn, "__name__", "") not in _HARMLESS_CONTEXTS or item.optional_vars is not None:
                # another context manager (contexts.py); `with a, b:` is `with a: with b:`
                if k:
                    inner = gast.copy_location(gast.With(items=s.items[k:], body=s.body, type_comment=None), s)
                    outer = gast.copy_location(gast.With(items=s.items[:k], body=[inner], type_comment=None), s)
                    outer.adsrc_exits = with_exits(s)
                    return self.statement(outer)
                rest = [gast.copy_location(gast.With(items=s.items[1:], body=s.body, type_comment=None), s)] \
                    if len(s.items) > 1 else s.body
                return self.context_block(s, item, rest)
        settings = self.errstate_settings(s.items[0].context_expr) if len(s.items) == 1 else None
        if settings is not None:              # np.errstate(divide="raise"): the state applies (errstates.py)
            return self.errstate_block(s, settings)
        for inner in exits_before_jumps(s.body, with_exits(s), self.temp):
            self.stmt = inner
            self.statement(inner)

    def stmt_If(self, s):
        test = self.raw(s.test)
        self.emit(ir.If(test, self.block(s.body), self.block(s.orelse)), s)

    def stmt_While(self, s):
        if not s.orelse and any(isinstance(n, gast.NamedExpr) for n in astutil.walk(s.test)) or \
                any(isinstance(n, gast.Call) and self.calls_changing(n) for n in astutil.walk(s.test)):
            # `while (m := f(y)) > tol:` is `while True: if not (m := f(y)) > tol: break ...`, which binds m
            # as Python does on the last test too (and a call that changes its arguments changes them there);
            # an `else:` runs where the test fails, before that break
            stop = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=s.test), body=list(s.orelse) + [gast.Break()],
                           orelse=[])
            loop = gast.While(test=astutil.const(True), body=[gast.copy_location(stop, s)] + s.body, orelse=[])
            return self.stmt_While(gast.copy_location(loop, s))
        if any(isinstance(n, gast.NamedExpr) for n in astutil.walk(s.test)):
            raise self.error(s.test, "`:=` in the test of a `while` loop with an `else` clause is not supported.",
                             "Assign the value in the loop instead (`while True:` with a `break`).")
        tests = []      # what the test computes first (calls of nested functions) runs before every test
        test_body = self.sub_block(lambda: tests.append(self.raw(s.test)))
        self.emit(ir.While(test_body, tests[0], self.block(s.body), self.block(s.orelse)), s)

    def sequence(self, e):
        """An atom that can be indexed by position: lists, tuples and arrays as they are, a dict's keys..."""
        if self.user_method(e, "__iter__"):
            method = inspect.getattr_static(self.expression_class(e), "__iter__")
            held = _iterated_field(method)
            if held is not None:        # `def __iter__(self): return iter(self.items)`: obj.items's items
                return self.sequence(gast.Attribute(value=e, attr=held, ctx=gast.Load()))
            if method.__code__.co_flags & inspect.CO_GENERATOR:
                # `def __iter__(self): ... yield ...`: a call of the method, which adsrc reads as returning
                # the list of what it yields (frontend/generators.py)
                items = gast.Call(func=gast.Attribute(value=e, attr="__iter__", ctx=gast.Load()), args=[], keywords=[])
                return self.atom(gast.Call(func=self.builtin_name("list"), args=[items], keywords=[]))
            raise self.error(e, "adsrc iterates over a sequence by position, and this object's class defines its "
                                "own `__iter__`, which adsrc does not follow.",
                             "Iterate over the data the object holds (`for v in obj.values:`), or give the class "
                             "`__len__` and `__getitem__` and loop over `range(len(obj))`.")
        if isinstance(e, (gast.List, gast.Tuple)) and not any(isinstance(x, gast.Starred) for x in e.elts):
            return self.atom(e)
        if self.is_dict_view(e) and self.known_class(e.func.value) is None and \
                self.inferred_class(e.func.value) is None:
            return self.atom(e)         # (not an object's own `keys()`: its result is made a sequence below)
        a = self.atom(e)
        if not isinstance(a, gast.Name):
            return a
        seq = self.temp(a.id + "_seq")
        self.emit_call_rule(seq, "sequence", [a], e)
        return astutil.name(seq)


def normalize(uf, namer=None):
    """The structured IR Function of a UserFunction, and the Namer used."""
    n = Normalizer(uf, namer)
    fn = n.function(uf.node)
    return fn, n.namer


def _iterated_field(method):
    """`x` when the method's body is `return iter(self.x)` (the iterator of a container the object holds)."""
    try:
        fdef = gast.parse(textwrap.dedent(inspect.getsource(method))).body[0]
    except (OSError, TypeError, SyntaxError):
        return None
    body = [s for s in fdef.body if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
    value = body[0].value if len(body) == 1 and isinstance(body[0], gast.Return) else None
    arg = value.args[0] if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
        value.func.id == "iter" and len(value.args) == 1 and not value.keywords else None
    params = fdef.args.args
    if isinstance(arg, gast.Attribute) and isinstance(arg.value, gast.Name) and params and \
            arg.value.id == params[0].id:
        return arg.attr
    return None
