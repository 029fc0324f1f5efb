"""Mixin of the Normalizer's Calls: objects of the user's classes.

`Cls(...)` makes an object and runs the user's `__init__` on it; methods, properties and `super()`
of objects whose class is known become calls adsrc follows into their source. A class is known when
the object is made here, when it is an argument of a known class (registered pytrees, objects
keyed by their class: object_args.py), or when object_classes.py infers it from the code that
makes it (checked when the code runs; class_inference.py).
"""

import functools
import inspect

import gast

from .. import astutil
from ..ir import nodes as ir
from ..runtime import own_setattr
from . import object_classes
from .argument_items import ArgumentItems
from .class_inference import ClassInference
from .made_fields import MadeFields
from .object_classes import is_user_function


class Objects(MadeFields, ArgumentItems, ClassInference):
    """Mixin of the Normalizer's Calls."""

    def construct_object(self, e, cls, target):
        """Cls(...) of a Python class: `o = object.__new__(Cls)`, then `o.__init__(...)`, a call of the user's
        __init__ that changes o (lowering/functionalize.py gives o its new value)."""
        e = self.lifted_lambdas(e)          # `Problem(lambda v: np.sum(v ** 2))`: a function known now
        reads = {n.id for part in list(e.args) + [k.value for k in e.keywords] for n in astutil.walk(part)
                 if isinstance(n, gast.Name)}
        # (`v = Vec(v.data * 2.0)`: the arguments read the old v, so the new object waits in a temporary)
        if inspect.getattr_static(cls, "__init__") is object.__init__ and (e.args or e.keywords):
            raise self.error(e, f"{cls.__name__}() takes no arguments.", None)
        obj = self.new_object(e.func, cls, target if isinstance(target, str) and target not in reads else None, e)
        init = gast.Attribute(value=astutil.name(obj), attr="__init__", ctx=gast.Load())
        if inspect.getattr_static(cls, "__init__") is not object.__init__:
            self.emit_op(ir.CallUser, None, self.plain_call(gast.Call(func=init, args=e.args, keywords=e.keywords),
                                                            init),
                         e, callee=inspect.getattr_static(cls, "__init__"), receiver=astutil.name(obj),
                         classes=((0, cls),))
            self.note_fields(obj, cls, e)
        if target is not None and target != obj:
            self.emit(ir.Copy(target, astutil.name(obj)), e)

    def new_object(self, cls_expr, cls, target, e):
        """target = object.__new__(cls): a new object, not yet initialized, of a known class."""
        obj = target or self.temp(cls.__name__.lower())
        if isinstance(cls_expr, gast.Name) and self.is_local(cls_expr.id):
            cls_expr = astutil.name(self.bind(cls.__name__, cls))       # a class defined or imported here
        new = astutil.call(gast.Attribute(value=astutil.name("object"), attr="__new__", ctx=gast.Load()), [cls_expr])
        self.emit(ir.Opaque(obj, new, describe=f"`{cls.__name__}`", fresh=True), e)
        if (obj not in self.store_counts or self.stable_classes.get(obj) is cls) and len(self.scopes) == 1:
            self.local_classes[obj] = cls        # its methods can be followed (a temporary, or always a cls)
        else:
            # (a name an unrolled loop binds to objects of other classes in its other copies: not known)
            self.local_classes.pop(obj, None)
        return obj

    def changing_call(self, e, target):
        """`r, *new = call_changing(type(o).method, params, o, ...)` in generated code (differentiated again):
        the call `o.method(...)` that changes its arguments in place, then the names of their new values."""
        func, params, args = e.args[0], e.args[1], e.args[2:]
        callee = self.resolved(func)
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call) and \
                self.static(func.value.func) is type and len(func.value.args) == 1:
            callee = self.method_of_known_class(func.value.args[0], func.attr)
        if not is_user_function(callee) or not isinstance(params, gast.Tuple) or \
                any(isinstance(a, gast.Starred) for a in args) or not isinstance(target, str):
            raise self.error(e, "adsrc cannot differentiate again through a call that changes its arguments here.",
                             "Make the call differentiated the first time (pass the arguments it changes as "
                             "differentiated values), or build new values instead of changing them.")
        atoms = [self.atom(a) for a in args]
        call = astutil.call(astutil.name(self.bind(callee.__qualname__.replace(".", "_"), callee)), atoms,
                            {k.arg: self.atom(k.value) for k in e.keywords})
        result = self.temp("result")
        self.emit_op(ir.CallUser, result, call, e, callee=callee)
        bound = inspect.signature(callee).bind(*atoms, **{k.arg: k.value for k in call.keywords}).arguments
        parts = [astutil.name(result)] + [astutil.clone(bound[p.value]) for p in params.elts]
        self.emit(ir.Pack(target, astutil.tuple_(parts)), e)       # (result, *new values of the arguments)

    def inferred_receiver_call(self, e, value, cls, name, target):
        """value.name(...) (or value(...) for __call__) on an object of inferred class cls."""
        receiver = self.atom(value)
        self.check_class(receiver.id, cls, e)
        if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name):
            # self.inner(x) with inner made by the caller holding objects of known classes too: passed on
            inner = self.field_class(value)[2]
            if inner:
                self.known_field_classes[receiver.id] = {f: (c, e, i) for f, c, e, i in inner}
        method = inspect.getattr_static(cls, name)
        func = gast.Attribute(value=receiver, attr=name, ctx=gast.Load()) if name != "__call__" else receiver
        self.emit_op(ir.CallUser, target, self.plain_call(gast.Call(func=func, args=e.args, keywords=e.keywords),
                                                          func),
                     e, callee=method, receiver=receiver, classes=((0, cls),))

    def super_call(self, e, target):
        """super().name(...) in a method whose object's class is known: the method of the next class in its
        MRO after the one defining this method, called with this method's first parameter."""
        name = e.func.attr
        params = self.uf.node.args.posonlyargs + self.uf.node.args.args
        me = params[0].id if params else None
        cls = self.uf.classes.get(me)
        fun = self.uf.fun
        owners = [k for k in cls.__mro__ if vars(k).get(fun.__name__) is fun] if cls is not None else []
        if not owners:
            raise self.error(e, f"adsrc cannot tell which class `super().{name}(...)` starts from here: it knows "
                                f"the class of `{me}` only in methods it reached through an object of a known class.",
                             "Call the method through its class instead (`Base.method(self, ...)`).")
        mro = cls.__mro__
        method = next((vars(k)[name] for k in mro[mro.index(owners[0]) + 1:] if name in vars(k)), None)
        if method is object.__init__:
            return self.emit_op(ir.Const, target, astutil.const(None), e)     # a no-op
        if not is_user_function(method):
            raise self.error(e, f"adsrc cannot follow `super().{name}(...)`: it is not a Python function "
                                f"({method!r}).", "Call a Python function instead.")
        func = astutil.name(self.bind(f"{method.__qualname__.replace('.', '_')}", method))
        call = self.plain_call(gast.Call(func=func, args=[astutil.name(me)] + list(e.args), keywords=e.keywords), func)
        self.emit_op(ir.CallUser, target, call, e, callee=method)

    def method_of_known_class(self, v, name):
        """The Python function `v.name(...)` calls when v's class is known."""
        cls = self.known_class(v)
        method = inspect.getattr_static(cls, name, None) if cls is not None else None
        return method if is_user_function(method) else None

    def unbound_method_call(self, e, target):
        """`v.name(...)` with name a staticmethod (or classmethod) of v's known class: the function called with
        the call's arguments (after the class): True, or False for any other call."""
        v, name = e.func.value, e.func.attr
        cls = self.known_class(v)
        method = inspect.getattr_static(cls, name, None) if cls is not None else None
        if not isinstance(method, (staticmethod, classmethod)) or not is_user_function(method.__func__):
            return False
        fn = method.__func__
        first = [astutil.name(self.bind(cls.__name__, cls))] if isinstance(method, classmethod) else []
        self.call(gast.copy_location(gast.Call(func=astutil.name(self.bind(fn.__name__, fn)),
                                               args=first + list(e.args), keywords=list(e.keywords)), e), target)
        return True

    def property_of_known_class(self, v, name):
        """(the function, whether it is the class's `__getattr__`) that computes `v.name` when v's class is
        known: a property's getter, a functools.cached_property's function, or the class's `__getattr__`
        for a name neither the class nor its methods' `self.name = ...` give; else None."""
        cls = self.known_class(v)
        if cls is None:
            return None
        attr = inspect.getattr_static(cls, name, None)
        if isinstance(attr, property) and is_user_function(attr.fget):
            return attr.fget, False
        if isinstance(attr, functools.cached_property) and is_user_function(attr.func):
            if self.read_again(v, name) and self.changes_object(v):
                raise self.error(v, f"`{cls.__name__}.{name}` is a functools.cached_property, which Python computes "
                                    f"once, and this function changes `{v.id}` (or calls its methods): adsrc "
                                    "computes it at each read, and could differ.",
                                 "Use a plain @property, or read it into a variable once.")
            return attr.func, False        # computed at each read: the object does not change in between
        hook = inspect.getattr_static(cls, "__getattr__", None)
        if attr is None and is_user_function(hook) and name not in object_classes.instance_fields(cls):
            return hook, True
        return None

    def read_again(self, v, name):
        """Is `v.name` read more than once (in two places, or in a loop)?"""
        loops = [n for n in astutil.walk(self.uf.node) if isinstance(n, (gast.For, gast.While))]
        reads = [n for n in astutil.walk(self.uf.node) if isinstance(n, gast.Attribute) and n.attr == name and
                 isinstance(n.value, gast.Name) and n.value.id == v.id and isinstance(n.ctx, gast.Load)]
        return len(reads) > 1 or any(r in list(astutil.walk(loop)) for r in reads for loop in loops)

    def changes_object(self, v):
        """Does the function assign an attribute of the name v, or call a method on it?"""
        for n in astutil.walk(self.uf.node):
            if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) and n.value.id == v.id and \
                    isinstance(n.ctx, gast.Store):
                return True
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    isinstance(n.func.value, gast.Name) and n.func.value.id == v.id:
                return True
        return False

    def property_setter(self, v, name):
        """The setter `v.name = x` calls when v's class is known and gives `name` a property with one written
        in Python; refuses a class with its own `__setattr__`."""
        cls = self.known_class(v)
        if cls is None:
            return None
        if own_setattr(cls):
            raise self.error(v, f"`{cls.__name__}` defines its own `__setattr__`, which adsrc does not follow, so "
                                "the derivative of the value it stores would be lost.",
                             "Give the class a property for the attribute, or a method that sets it.")
        attr = inspect.getattr_static(cls, name, None)
        return attr.fset if isinstance(attr, property) and is_user_function(attr.fset) else None

    def argument_classes(self, call, receiver):
        """((position, class), ...) of a call's arguments whose class is known (ir.CallUser.classes)."""
        args = ([receiver] if receiver is not None else []) + list(call.args)
        out = [(i, self.known_class(a)) for i, a in enumerate(args)]
        out += [(k.arg, self.known_class(k.value)) for k in call.keywords if k.arg]
        return tuple((i, c) for i, c in out if c is not None)
