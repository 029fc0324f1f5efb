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


import builtins
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
from . import factories
from .object_classes import user_class
from .calls import Calls
from .expressions import Expressions, subscript_temp
from .local_classes import LocalClasses
from .errstates import ErrStates
from .loops import Loops
from .matches import Matches
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


INPLACE_METHODS = {gast.Add: "__iadd__", gast.Sub: "__isub__", gast.Mult: "__imul__", gast.Div: "__itruediv__",
                   gast.MatMult: "__imatmul__", gast.Pow: "__ipow__", gast.FloorDiv: "__ifloordiv__",
                   gast.Mod: "__imod__"}


class Normalizer(Expressions, Calls, Loops, Trys, LocalClasses, Matches, ErrStates):
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
        self.local_defs = set()  # names of nested defs and lambdas emitted so far
        self.static_locals = {}  # loop targets bound to objects known when transforming (loops.py)
        self.single = _assigned_once(uf.node)
        self.declared_globals = _declared_globals(uf.node)
        self.tuple_lengths = {}  # names bound once to a tuple display: their length
        self.known_fields = {}   # name -> {field: function} of objects made here (objects.py: note_fields)
        self.known_field_classes = {}   # name -> {field: (class, element class, field classes)} of objects made here
        self.held_arguments = set()     # names holding a factory's arguments (function_values.py)
        self.library_objects = {}   # names bound once to a frozen distribution or a random generator
        self.straight_sequences = _straight_names(uf.node)    # names only bound at the top level, never changed
        self.deque_limits = {}   # names bound once to a deque with a maxlen: the name holding the maxlen
        self.local_classes = {}  # names bound once to an object made here (or inferred and checked): its class
        self.element_classes = None   # names of lists of objects of one class made here: the class (calls.py)
        self.class_choices = {}  # names bound once to an item of a list of objects of several classes: those

    # -- entry -----------------------------------------------------------------------------------
    def function(self, fdef, name=None):
        nonlocals = frozenset(_declared_globals(fdef, gast.Nonlocal)) if fdef is not self.uf.node else frozenset()
        self.scopes.append(self.uf.locals if fdef is self.uf.node else local_names(fdef) - nonlocals)
        saved = self.out, self.stmt
        try:
            body = self.field_checks(fdef) + self.block(fdef.body)
        finally:
            self.scopes.pop()
            self.out, self.stmt = saved
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
        try:
            for s in stmts:
                self.stmt = s
                self.statement(s)
            return self.out
        finally:
            self.out, self.stmt = saved_out, saved_stmt
            self.static_locals = {k: v for k, v in known.items() if k not in stored}

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
        s.value = self.lambdas_display(s.value) or s.value     # fns = [lambda v, k=k: v * k for k in range(3)]
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

    def stmt_AugAssign(self, s):
        t = s.target
        if isinstance(t, gast.Name) and t.id in self.declared_globals:
            return self.global_write(t.id, gast.BinOp(left=astutil.name(t.id), op=s.op, right=s.value), s)
        if isinstance(t, gast.Subscript) and self.foreign_container(t) is not None:
            # COUNT["calls"] += 1 on a global dict: its item as it is now, then the new value written back
            old = self.temp("item")
            self.emit(ir.Const(old, gast.Subscript(value=self.foreign_container(t), slice=self.index(t.slice),
                                                   ctx=gast.Load())), s)
            self.foreign_item(t, gast.BinOp(left=astutil.name(old), op=s.op, right=s.value))
            return
        if isinstance(t, gast.Attribute) and self.foreign_class(t) is not None:
            # Layer.count += 1 in __init__: the class's attribute as it is now, then the new value written back
            old = self.temp(t.attr)
            self.emit(ir.Const(old, gast.Attribute(value=self.foreign_class(t), attr=t.attr, ctx=gast.Load())), s)
            self.foreign_attribute(t, gast.BinOp(left=astutil.name(old), op=s.op, right=s.value))
            return
        method = INPLACE_METHODS.get(type(s.op))
        if isinstance(t, gast.Name) and method is not None and self.user_method(t, method):
            # a += v on an object of the user's class with its own __iadd__: a = a.__iadd__(v)
            call = gast.Call(func=gast.Attribute(value=astutil.name(t.id), attr=method, ctx=gast.Load()),
                             args=[s.value], keywords=[])
            self.assign_to(astutil.name(t.id, gast.Store()), gast.copy_location(call, s))
        elif isinstance(t, gast.Name):
            self.emit(ir.InplaceOp(t.id, s.op, self.atom(s.value)), s)
        elif isinstance(t, gast.Subscript):
            # Python: item = base[i]; item op= value (in place for arrays); base[i] = item
            base = self.subscript_base(t)
            index = self.index(t.slice)
            item = self.temp(subscript_temp(base, index))
            self.emit(ir.GetItem(item, gast.Subscript(value=astutil.name(base), slice=index, ctx=gast.Load())), t)
            if _array_index(t.slice):
                # a slice of an array (or a list: a new list), or an array's element or row:
                # `base[i] = base[i] op value` is the same
                if not _array_index(t.slice, slices_only=True):
                    # d[i, j] of a dict holding an array: it would change that array in place
                    owner = t.value.id if isinstance(t.value, gast.Name) else "container"
                    message = (f"`{owner}[...] {_OPS.get(type(s.op), '?')}= ...` at line {s.lineno} changes an "
                               f"object `{owner}` holds in place; adsrc follows that with a single key only.")
                    self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_item_immutable")),
                                                     [astutil.name(base), astutil.name(item),
                                                      astutil.const(message)])), s)
                new = self.temp(item)
                self.value(gast.BinOp(left=astutil.name(item), op=s.op, right=s.value), new)
                item = new
            else:
                self.emit(ir.InplaceOp(item, s.op, self.atom(s.value), item_of=base), s)
            self.emit(ir.SetItem(base, astutil.clone(index), astutil.name(item)), t)
        else:
            # Python: field = o.a; field op= value (in place for an array or a list, which other names holding
            # that same object see); o.a = field
            base = self.subscript_base(t, "attribute")
            field = self.temp(f"{base}_{t.attr}")
            self.value(gast.Attribute(value=astutil.name(base), attr=t.attr, ctx=gast.Load()), field)
            self.emit(ir.InplaceOp(field, s.op, self.atom(s.value)), s)
            self.emit(ir.SetItem(base, astutil.const(t.attr), astutil.name(field), attr=True), t)

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
            return self.statement(gast.fix_missing_locations(gast.copy_location(
                gast.Try(body=s.body, handlers=[handler], orelse=[], finalbody=[]), s)))
        if fn is contextlib.nullcontext and not ctx.keywords and len(ctx.args) <= 1:
            body = list(s.body)
            if s.items[0].optional_vars is not None:        # with nullcontext(v) as name: name is v
                value = ctx.args[0] if ctx.args else astutil.const(None)
                body.insert(0, gast.copy_location(gast.Assign(targets=[s.items[0].optional_vars], value=value,
                                                              type_comment=None), s))
            for inner in gast.fix_missing_locations(gast.Module(body=body, type_ignores=[])).body:
                self.stmt = inner
                self.statement(inner)
            return None
        for item in s.items:
            ctx = item.context_expr
            fn = self.static(ctx.func) if isinstance(ctx, gast.Call) else rules_mod.NOT_STATIC
            name = getattr(fn, "__name__", "")
            if name not in _HARMLESS_CONTEXTS or item.optional_vars is not None:
                raise self.error(s, "`with` statements are not supported inside a differentiated function.",
                                 "Move the `with` block outside the function and pass its result in as an "
                                 "argument.")
        settings = self.errstate_settings(s.items[0].context_expr) if len(s.items) == 1 else None
        if settings is not None:              # np.errstate(divide="raise"): the state applies (errstates.py)
            return self.errstate_block(s, settings)
        for inner in s.body:
            self.stmt = inner
            self.statement(inner)

    def assign_to(self, t, value):
        if isinstance(t, gast.Name) and t.id in self.declared_globals:
            self.global_write(t.id, value, t)
        elif isinstance(t, gast.Name):
            self.static_locals.pop(t.id, None)
            self.known_fields.pop(t.id, None)
            self.known_field_classes.pop(t.id, None)
            if isinstance(value, gast.Tuple) and t.id in self.single and \
                    not any(isinstance(x, gast.Starred) for x in value.elts):
                self.tuple_lengths[t.id] = len(value.elts)      # f(*t) passes its items one by one
            elif t.id in self.tuple_lengths or t.id in self.straight_sequences:
                # `args = list(args)` at the top of the function, never changed in place: its length is known
                n = self.known_length(value) if t.id in self.straight_sequences else None
                if n is None:
                    self.tuple_lengths.pop(t.id, None)
                else:
                    self.tuple_lengths[t.id] = n
            value = self.chosen_entry(value)      # act = acts[cfg["act"]]: that entry (lowering/tables.py)
            if isinstance(value, gast.Lambda):
                self.lambda_def(value, t.id)       # f = lambda x: ...  is  def f(x): return ...
                return
            if self.library_object(t.id, value):   # dist = stats.norm(mu, s): its methods' calls get mu, s
                return
            if self.record_class(t.id, value):      # P = namedtuple("P", ["W", "b"]): made when transforming
                return
            self.hold_factory_arguments(t.id, value)
            self.value(value, t.id)
            self.note_alias(t.id, value)
            self.note_table(t.id, value)
            self.note_class(t.id, value)
            self.note_class_choices(t.id, value)
        elif isinstance(t, (gast.Tuple, gast.List)):
            self.note_unravel(t, value)
            spec = astutil.target_spec(t)
            if spec is None:
                self.unpack(t, self.atom(value))
            elif isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(spec) and \
                    not any(isinstance(x, gast.Starred) for x in value.elts):
                self.value(value, spec)        # a, b = b, a: element by element
                for name, elt in zip(spec, value.elts):        # a, b = Vec(x), Vec(y): their classes
                    cls = self.made_by(elt) if isinstance(name, str) and name in self.single and \
                        len(self.scopes) == 1 else None
                    if cls is not None:
                        self.local_classes[name] = cls
            else:
                # compute the value, then unpack it (an array's cotangent is then an array)
                self.emit(ir.Copy(spec, self.atom(value)), value)
        elif isinstance(t, gast.Subscript) and self.foreign_container(t) is not None:
            self.foreign_item(t, value)           # HISTORY["last"] = loss on a global dict: an effect
        elif isinstance(t, gast.Subscript) and self.user_method(t.value, "__setitem__"):
            # v[i] = x on an object of the user's class with its own __setitem__: the call v.__setitem__(i, x)
            call = gast.Call(func=gast.Attribute(value=t.value, attr="__setitem__", ctx=gast.Load()),
                             args=[self.slice_value(t.slice), value], keywords=[])
            self.call(gast.copy_location(call, t), None)
        elif isinstance(t, gast.Subscript):
            base = self.subscript_base(t)
            index = self.index(t.slice)
            self.emit(ir.SetItem(base, index, self.atom(value)), t)
        elif isinstance(t, gast.Attribute) and self.foreign_class(t) is not None:
            self.foreign_attribute(t, value)        # Model.default_scale = 2.0: a class's attribute
        elif isinstance(t, gast.Attribute) and self.property_setter(t.value, t.attr) is not None:
            # o.a = v with `a` a property of o's class: its setter called with o and v
            setter = self.property_setter(t.value, t.attr)
            func = astutil.name(self.bind(setter.__qualname__.replace(".", "_"), setter))
            self.call(gast.copy_location(gast.Call(func=func, args=[t.value, value], keywords=[]), t), None)
        elif isinstance(t, gast.Attribute):
            # o.a = v: o becomes a copy of itself with the new field (lowering/functionalize.py)
            self.emit(ir.SetItem(self.subscript_base(t, "attribute"), astutil.const(t.attr), self.atom(value),
                                 attr=True), t)
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
                part = gast.Subscript(value=astutil.clone(tmp), ctx=gast.Load(),
                                      slice=gast.Slice(lower=astutil.const(k), upper=upper, step=None))
                self.assign_to(e.value, gast.Call(func=astutil.name("list"), args=[part], keywords=[]))
                continue
            pos = i if i < k else i - len(elts)
            self.assign_to(e, gast.Subscript(value=astutil.clone(tmp), slice=astutil.const(pos), ctx=gast.Load()))

    def foreign_container(self, t):
        """For `G[k]` with G a global or closure dict or list (not a local): a name bound to that object in
        generated code, else None."""
        if not isinstance(t.value, gast.Name) or self.is_local(t.value.id):
            return None
        obj = self.static(t.value)
        return astutil.name(self.bind(t.value.id, obj)) if type(obj) in (dict, list) else None

    def foreign_class(self, t):
        """For `C.a` with C a global or closure name of a class of the user's (a class-level counter): a name
        bound to the class in generated code, else None."""
        if not isinstance(t.value, gast.Name) or self.is_local(t.value.id):
            return None
        obj = self.static(t.value)
        return astutil.name(self.bind(t.value.id, obj)) if isinstance(obj, type) and user_class(obj) else None

    def foreign_attribute(self, t, value):
        """`C.a = value` on a class, run for its effect with value as it is (like a global dict's item); refused
        if the function also reads `C.a`, which adsrc reads when it transforms (it would not see the change)."""
        if any(isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Load) and n.attr == t.attr and
               isinstance(n.value, gast.Name) and n.value.id == t.value.id for n in astutil.walk(self.uf.node)):
            raise self.error(t, f"this function changes `{t.value.id}.{t.attr}` and reads it too; adsrc reads a "
                                "class's attribute when it transforms the function, so it would not see the change.",
                             "Keep the value in a variable of the function, or in a global dict.")
        expr = astutil.call(astutil.name(self.bind("setattr", setattr)),
                            [self.foreign_class(t), astutil.const(t.attr), self.atom(value)])
        self.emit(ir.Effect(expr, writes=t.value.id), t)

    def foreign_item(self, t, value):
        """`G[k] = value` into a container adsrc does not own, run for its effect with value as it is; the
        differentiator refuses it only if value is differentiated and the function reads G again."""
        expr = astutil.call(astutil.name(self.bind("setitem", operator.setitem)),
                            [self.foreign_container(t), self.index(t.slice), self.atom(value)])
        self.emit(ir.Effect(expr, writes=t.value.id), t)

    def subscript_base(self, t, what="item"):
        """The local name holding the object `t.value` (an item or attribute assignment's target)."""
        if isinstance(t.value, gast.Name) and self.is_local(t.value.id):
            return t.value.id
        base = self.atom(t.value)
        if not isinstance(base, gast.Name) or not self.is_local(base.id):
            raise self.error(t, f"{what} assignment is only supported on local variables "
                                "(a name assigned in this function or one of its parameters).",
                             "Copy the array into a local variable first: `a = np.array(obj)`.")
        return base.id

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


_LENGTH_KEEPING = (builtins.list, builtins.tuple, builtins.len, builtins.sorted, builtins.reversed, builtins.enumerate,
                   builtins.zip, builtins.sum, builtins.min, builtins.max)


def _straight_names(fdef):
    """Names bound only by statements at the top level of fdef's body (not in a branch or loop) and whose
    objects' lengths nothing changes (no slice written or item deleted, no method that changes a list (an item
    written, `args[k] = v`, keeps it), passed to no call but `list`,
    `len` and the like): at each point of the body, the last binding before it holds, with its length."""
    blocks = (gast.If, gast.For, gast.While, gast.Try, gast.With, gast.FunctionDef, gast.ClassDef, gast.Match)
    top = {n for s in fdef.body if not isinstance(s, blocks) for n in astutil.names_stored(s)}
    nested = {n for s in fdef.body if isinstance(s, blocks) for n in astutil.names_stored(s)}
    # a name read other than by `*name`, an index, a for loop or an argument of a call that keeps lengths
    # (`ys = name`, `[name]`, `return name`, `h(name)`) may reach code that changes its list: not straight
    plain, nodes = set(), astutil.walk(fdef)
    for n in nodes:
        if isinstance(n, (gast.Starred, gast.Subscript)) and isinstance(n.value, gast.Name):
            plain.add(id(n.value))
        elif isinstance(n, gast.For) and isinstance(n.iter, gast.Name):
            plain.add(id(n.iter))
        elif isinstance(n, gast.Call) and _keeps_lengths(n.func):
            plain.update(id(a) for a in list(n.args) + [k.value for k in n.keywords] if isinstance(a, gast.Name))
    changed = set()
    for n in nodes:
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name) and \
                not isinstance(n.slice, gast.Slice):
            continue                # `args[k] = v`: an item replaced, the length kept (or IndexError)
        if isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load) and \
                isinstance(n.value, gast.Name):
            changed.add(n.value.id)
        elif isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name):
            changed.add(n.value.id)         # (a method: it may change the list)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            changed.add(n.target.id)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in plain:
            changed.add(n.id)
    return top - nested - changed


def _keeps_lengths(func):
    """A call that changes no list it is given: `list`, `len` and the like, or a NumPy or math function."""
    if isinstance(func, gast.Name):
        return getattr(builtins, func.id, None) in _LENGTH_KEEPING
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id in ("np", "numpy", "math")



def _declared_globals(fdef, kind=gast.Global):
    """Names a `global` (or `nonlocal`) statement of fdef itself declares (not one of a function nested in it)."""
    out, stack = set(), list(fdef.body)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            out.update(node.names)
        elif not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            stack.extend(astutil.children(node))
    return out


def _array_index(index, slices_only=False):
    """Is `x[index]` a view or element of an array, or a new list (a slice), never an object that other
    names may hold? An index with a slice, None or `...` (or, unless slices_only, any tuple: lists take
    none, and a dict with tuple keys is checked when the code runs)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if any(isinstance(p, gast.Slice) or isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis)
           for p in parts):
        return True
    if slices_only:
        return False
    # a list of indices or a mask (`x[[0, 2]]`, `x[x > 0]`) indexes arrays only: the item is a copy
    return isinstance(index, gast.Tuple) or any(isinstance(p, (gast.List, gast.ListComp, gast.Compare))
                                                for p in parts)


_OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%",
        gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
        gast.LShift: "<<", gast.RShift: ">>"}


def _assigned_once(fdef):
    """Names bound exactly once in the function (one assignment or def, not inside a loop)."""
    counts = {}

    def add(name, weight):
        counts[name] = counts.get(name, 0) + weight

    def visit(node, weight):
        for child in astutil.children(node):
            if isinstance(child, gast.FunctionDef):
                add(child.name, weight)
                for name in (n for d in astutil.walk(child) if isinstance(d, gast.Nonlocal) for n in d.names):
                    add(name, 2)      # assigned where the nested function is called
                continue
            if isinstance(child, gast.ClassDef):
                add(child.name, weight)
                continue
            if isinstance(child, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)):
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                add(child.id, weight)
            if isinstance(child, gast.AugAssign) and isinstance(child.target, gast.Name):
                add(child.target.id, 2)
            if isinstance(child, (gast.Import, gast.ImportFrom)):
                for alias in child.names:
                    add(alias.asname or alias.name.split(".")[0], weight)
            visit(child, 2 if isinstance(child, (gast.For, gast.While)) else weight)

    visit(fdef, 1)
    return {n for n, c in counts.items() if c == 1}


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
