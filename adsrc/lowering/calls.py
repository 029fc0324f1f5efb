"""Calls during normalization: what a call means, emitted as the IR statement for it.

A call is, in order of preference: `adsrc.within_grad()` (the constant True),
a control-flow primitive (`cond`, `scan`, `while_loop`, `fori_loop`: written out
as `If`/`For`/`While`), a custom_vjp function, a callable with a derivative
rule, a Python function adsrc transforms from source (also methods of
objects known when transforming, callable objects and functools.partial
objects), a nested function (inlined later), a method of a value (ndarray
method rules, and the list/dict methods that change their object, which
`functionalize.py` rewrites), or something adsrc cannot see into (`Opaque`,
an error only if it must be differentiated). Builtins that pass values
through (`map`, `filter`, `zip`, `enumerate`, `reversed`, `sorted`, `dict`)
become loops or rules of their own. Calls of objects known when transforming are in static_calls.py.
"""

import builtins
import functools
import inspect

import gast

from .. import astutil
from ..astutil import dotted
from .. import rules as rules_mod
from ..ir import nodes as ir
from .builtins import Primitives
from .method_calls import MethodCalls
from .rule_calls import RuleCalls
from .function_values import FunctionValues
from .passed_functions import PassedFunctions
from .nested_calls import NestedCalls
from ..rules import by_source
from . import factories, lifting, object_classes
from .objects import Objects
from .object_classes import is_user_function
from .class_choices import ClassChoices
from .derivatives import Derivatives
from .namespaces import Namespaces
from .written import Written
from .deques import Deques
from .spread_calls import SpreadCalls
from .jacobian_calls import JacobianCalls
from .vmap_calls import VmapCalls
from .record_replace import RecordContainers, RecordReplace
from .library_objects import LibraryObjects
from .inplace_methods import InplaceMethods
from .local_classes import is_record_maker
from .tables import LOCAL_FUNCTION_HINT, UNRESOLVED_HINT, Tables
from .static_calls import StaticCalls, _getter_expression

_GETATTR_HINT = ("adsrc follows `getattr(obj, name)(...)` when the name is known when transforming (a literal, a "
                 "static argument, a global, a loop over a tuple of strings) or is one of the methods of obj's "
                 "class; here it is neither. Mark the name's argument static (static_argnames=...), or call the "
                 "function directly.")


class Calls(Primitives, Namespaces, Derivatives, FunctionValues, Objects, Written, Deques, Tables, SpreadCalls,
            JacobianCalls, VmapCalls, RecordReplace, RecordContainers, LibraryObjects, ClassChoices, MethodCalls,
            RuleCalls, PassedFunctions, NestedCalls, InplaceMethods, StaticCalls):
    """Mixin of the Normalizer: calls (control-flow primitives and value-passing builtins in builtins.py)."""

    # -- entry ---------------------------------------------------------------------------------------
    def call(self, e, target):
        """Emit what the call e computes into target (None: the value is not used)."""
        f = e.func
        if getattr(f, "adsrc_next", False):          # next(it) rewritten (frontend/next_calls.py)
            fn = getattr(by_source, f.id)
            return self.static_call(gast.Call(func=astutil.name(self.bind(f.id, fn)), args=e.args, keywords=[]),
                                    fn, target)
        if self.record_replace(e, target):             # s._replace(h=v), dataclasses.replace(o, w=v)
            return None
        if self.record_container(e, target):           # dataclasses.asdict(o), dataclasses.astuple(o)
            return None
        if self.chosen_arguments(e, target):          # apply(act, x), act = np.tanh if c else relu
            return None
        if self.entry_arguments(e, target):           # apply(fs[i], x), fs a table of functions (tables.py)
            return None
        if isinstance(f, gast.Call):
            getter = self.made_getter(f)                # operator.itemgetter(0)(pair): pair[0] (a sort key)
            if getter is not rules_mod.NOT_STATIC and _getter_expression(getter, e) is not None:
                return self.static_call(e, getter, target)
        own = self.own_class(f)
        if own is not None:                             # type(self)(...), self.__class__(...)
            return self.call(gast.Call(func=astutil.name(self.bind(own.__name__, own)), args=e.args,
                                       keywords=e.keywords), target)
        if isinstance(f, gast.Call) and self.static(f.func) is builtins.getattr:
            attribute = self.getattr_read(f)        # getattr(np, name)(x), getattr(self, kind)(x)
            if attribute is not None:
                return self.call(gast.Call(func=attribute, args=e.args, keywords=e.keywords), target)
            if self.method_dispatch(e, target):          # getattr(self, kind)(x), kind known when it runs
                return None
        name = self.namespace_function(f)
        if name is not None:         # xp.exp(x) with xp = array_namespace(x) (namespaces.py)
            return self.namespace_call(e, name, target)
        obj = self.static(f)
        if is_record_maker(obj):
            self.record_class(None, e)      # (refused: a namedtuple made where it is not bound to a name)
        if obj is not rules_mod.NOT_STATIC:
            if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and \
                    f.attr in self.uf.fields.get(f.value.id, ()):
                # self.act(z) with act the function the object was made with: called by a name bound to it
                e = gast.copy_location(gast.Call(func=astutil.name(self.bind(f.attr, obj)), args=e.args,
                                                 keywords=e.keywords), e)
            return self.static_call(e, obj, target)
        cls = self.inferred_class(f)
        if cls is not None and is_user_function(inspect.getattr_static(cls, "__call__", None)):
            return self.inferred_receiver_call(e, f, cls, "__call__", target)      # self.encoder(x)
        method = self.method_of_known_class(f, "__call__")
        if method is not None:
            # model(x) on an argument of a registered pytree class: type(model).__call__(model, x)
            return self.emit_op(ir.CallUser, target, self.plain_call(e, f), e, callee=method, receiver=f)
        shadowed = isinstance(f, gast.Name) and len(self.scopes) > 1 and f.id in self.scopes[-1]
        if isinstance(f, gast.Name) and f.id in self.functions and \
                (not shadowed or self.functions[f.id][0] == "entry"):       # (entries of a nested def's own tables)
            return self.local_function(e, self.functions[f.id], target)
        if isinstance(f, gast.Name) and (f.id in self.def_names or f.id in self.local_defs or self.is_local(f.id)):
            special = self.with_passed_functions(e) if f.id in self.def_names or f.id in self.local_defs else None
            if special is not None:         # apply(x, np.cos): a copy of apply reading np.cos (passed_functions.py)
                return self.call(special, target)
            lifted = self.recursive_nested(e) if f.id in self.def_names else None
            if lifted is None and f.id in self.def_names:
                lifted = lifting.called_with_functions(self, e)     # layer(x, activation=np.tanh)
            if lifted is not None:
                return self.call(lifted, target)
            # a nested function, or a local name that may hold one (inline.py decides; else it is Opaque)
            call = self.plain_call(e, astutil.name(f.id))
            call.args = [self.as_tuple(a) if isinstance(a, gast.Starred) else a for a in call.args]
            return self.emit_op(ir.CallLocal, target, call, e, hint=self.unknown_lengths.get(f.id))
        if isinstance(f, gast.Lambda):
            return self.emit_op(ir.CallLocal, target, self.plain_call(e, self.atom(f)), e)
        if isinstance(f, gast.Call) and self.static(f.func) is functools.partial and f.args and \
                not any(isinstance(a, gast.Starred) for a in f.args) and all(k.arg for k in f.keywords):
            # functools.partial(g, a, k=b)(x) is g(a, x, k=b)
            call = gast.Call(func=f.args[0], args=list(f.args[1:]) + list(e.args),
                             keywords=list(f.keywords) + list(e.keywords))
            return self.call(call, target)
        if isinstance(f, gast.Attribute):
            return self.method_call(e, target)
        if isinstance(f, gast.Subscript) and self.table_call(e, target):      # acts[kind](x)
            return None
        if isinstance(f, gast.Subscript) and self.called_item(e, target):    # self[i](x), __getitem__ a layer
            return None
        what = astutil.unparse(f).strip() if isinstance(f, gast.Subscript) else dotted(f)      # (fs[i](x))
        if isinstance(f, gast.Call) and self.static(f.func) is builtins.type and len(f.args) == 1 and \
                not f.keywords and len(e.args) == 1 and not e.keywords and \
                not any(isinstance(a, gast.Starred) for a in f.args + e.args):
            # type(tree)(v for v in tree): a list, tuple, dict or float like x (rules/made_like.py)
            from ..rules import made_like
            call = gast.Call(func=astutil.name(self.bind("made_like", made_like.made_like)),
                             args=[f.args[0], e.args[0]], keywords=[])
            return self.call(gast.copy_location(call, e), target)
        if isinstance(f, gast.Call):
            lifted = self.gradient_of_nested(e)                     # adsrc.grad(inner)(w), inner defined here
            if lifted is not None:
                return self.call(lifted, target)
            lifted = self.jacobian_made_here(e)                     # adsrc.jacobian(f)(x), by columns
            if lifted is not None:
                return self.call(lifted, target)
            lifted = factories.lifted_call(e, self.static, self.bind)      # make_step(a)(x)
            if lifted is not None:
                return self.call(lifted, target)
            if self.vectorized_now(e, target) or self.vmap_now(e, target):
                return
            if self.nested_factory_call(e, target):                 # make(c)(x), make a nested def
                return
            if object_classes.made_class(self.resolved(f.func)) is not None or \
                    object_classes.factory_class(self.resolved(f.func)) is not None:
                # Model(w)(x): the new object, then its __call__
                return self.call(gast.Call(func=self.atom(f), args=e.args, keywords=e.keywords), target)
            hint = _GETATTR_HINT if self.static(f.func) is builtins.getattr else factories.HINT
            call = self.plain_call(e, self.atom(f))
            return self.emit_op(ir.Opaque, target, call, e, describe=f"the function that `{dotted(f.func)}(...)` "
                                "returns", hint=hint, dynamic=astutil.spelled_out(call))
        local = isinstance(f, gast.Name) and self.is_local(f.id)
        held = f.value if isinstance(f, gast.Subscript) else f          # fs[i](x), fs of unknown length
        hint = self.unknown_lengths.get(held.id) if isinstance(held, gast.Name) else None
        call = self.plain_call(e, self.atom(f))
        return self.emit_op(ir.Opaque, target, call, e, describe=f"`{self.namer.user(what) if local else what}`",
                            hint=hint or (LOCAL_FUNCTION_HINT if local else UNRESOLVED_HINT),
                            dynamic=astutil.spelled_out(call))

    def own_class(self, f):
        """The class of `type(obj)` or `obj.__class__` with obj's class known when transforming, else None."""
        if isinstance(f, gast.Call) and len(f.args) == 1 and not f.keywords and self.static(f.func) is builtins.type:
            obj = f.args[0]
        elif isinstance(f, gast.Attribute) and f.attr == "__class__":
            obj = f.value
        else:
            return None
        cls = self.known_class(obj) if isinstance(obj, gast.Name) else None
        return cls if cls is not None and object_classes.made_class(cls) is not None else None

    def sort_arguments(self, e):
        """[reverse, axis] of `v.sort(...)`: a list's `reverse=`, an array's `axis` (by position or keyword; `kind=`
        changes no value)."""
        keywords = {k.arg: k.value for k in e.keywords}
        if "order" in keywords or set(keywords) - {"reverse", "axis", "kind"} or len(e.args) > 2:
            raise self.error(e, "adsrc follows `.sort()` with `reverse=` (a list), or `axis` and `kind=` (an array).",
                             "Sort by a key with `sorted(v, key=...)`.")
        axis = e.args[0] if e.args else keywords.get("axis", astutil.const(-1))
        return [self.atom(keywords.get("reverse", astutil.const(False))), self.atom(axis)]

    def emit_op(self, cls, target, expr, node, **fields):
        if cls is ir.CallUser:
            expr = self.spread(expr, fields["callee"], fields.get("receiver"))     # f(x, *layer), Lin(**params)
            fields["classes"] = fields.get("classes", ()) + self.argument_classes(expr, fields.get("receiver"))
            fields["fields"] = self.argument_fields(expr, fields.get("receiver"))
            fields["field_classes"] = self.argument_field_classes(expr, fields.get("receiver"))
        if target is None:
            if cls is ir.Opaque and not self.harmless(expr.func):
                # run for its effect, which may be to keep or write its arguments where adsrc cannot see
                self.emit(ir.Effect(expr, may_change=dotted(expr.func), hint=fields.get("hint")), node)
                return
            if cls in (ir.Opaque, ir.Const):
                self.emit(ir.Effect(expr), node)
                return
            target = self.temp("_")
        self.emit(cls(target, expr, **fields), node)

    def harmless(self, func):
        """Does calling func only print or log its arguments (print, logging, warnings, time), or raise
        (table_miss: the last branch of a call through a table of functions, tables.py)?"""
        if isinstance(func, gast.Name) and self.namer.helpers.get(func.id) == "table_miss":
            return True
        obj = self.resolved(func)
        if obj is print or obj is breakpoint:
            return True
        module = getattr(obj, "__module__", None) or type(getattr(obj, "__self__", None)).__module__
        return module.split(".")[0] in _HARMLESS_MODULES

    @property
    def def_names(self):
        names = getattr(self, "_def_names", None)
        if names is None:
            names = set()
            for n in astutil.walk(self.uf.node):
                if isinstance(n, gast.FunctionDef) and n is not self.uf.node:
                    names.add(n.name)
                elif isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda):
                    names.update(t.id for t in n.targets if isinstance(t, gast.Name))
            self._def_names = names
        return names

    def plain_call(self, e, func):
        args = []
        for a in e.args:
            n = self.known_length(a.value) if isinstance(a, gast.Starred) else None
            if n is not None:       # f(*pair): the items, so the call's arguments match parameters
                seq = self.atom(a.value)
                args.extend(self.atom(gast.Subscript(value=astutil.clone(seq), slice=astutil.const(i),
                                                     ctx=gast.Load())) for i in range(n))
            elif isinstance(a, gast.Starred):
                args.append(gast.Starred(value=self.atom(a.value), ctx=gast.Load()))
            else:
                args.append(self.atom(a))
        keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in e.keywords]
        return gast.Call(func=func, args=args, keywords=keywords)

    def as_tuple(self, starred):
        """`*xs` of a length known only when the code runs, as `*tuple(xs)`: a nested function's `*args`."""
        seq = self.atom(astutil.call(self.bind("tuple", builtins.tuple), [starred.value]))
        return gast.Starred(value=seq, ctx=gast.Load())

    def bind(self, base, obj):
        """A name generated code can use for obj (a value known when transforming)."""
        for name, known in self.bindings.items():
            if known is obj:
                return name
        name = self.namer.fresh(base)
        self.bindings[name] = obj
        return name

    # -- functions known when transforming -----------------------------------------------------------
    def called_item(self, e, target):
        """`net[i](x)` with net's `__getitem__` returning an object of a known class with a `__call__` of the
        user's: the item (class checked when the code runs), then its `__call__`. True when so emitted."""
        cls = self.expression_class(e.func)
        if cls is None or not is_user_function(inspect.getattr_static(cls, "__call__", None)):
            return False
        held = self.temp("item")
        self.value(e.func, held)
        self.check_class(held, cls, e.func)
        self.local_classes[held] = cls
        self.call(gast.copy_location(gast.Call(func=astutil.name(held), args=e.args, keywords=e.keywords), e), target)
        return True

    def augmented_call(self, e, operand, op, target):
        """`operator.iadd(a, x)` or `a.__iadd__(x)`: `t = a; t += x` (in place for an array or a list, which `a`
        then sees too; a new value for a number, as Python's), then target = t."""
        held = self.temp("augmented")
        self.statement(gast.fix_missing_locations(gast.copy_location(
            gast.Assign(targets=[astutil.name(held, gast.Store())], value=operand, type_comment=None), e)))
        self.statement(gast.fix_missing_locations(gast.copy_location(
            gast.AugAssign(target=astutil.name(held, gast.Store()), op=op(), value=e.args[-1]), e)))
        if target is not None:
            self.emit(ir.Copy(target, astutil.name(held)), e)

# modules whose functions called for their effect only print, log, warn, wait or check (adsrc: generated code)
_HARMLESS_MODULES = frozenset({"logging", "warnings", "time", "_io", "pprint", "pdb", "adsrc"})

