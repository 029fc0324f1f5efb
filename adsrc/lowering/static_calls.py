"""Calls of objects known when transforming (a NumPy function, a rule's function, a function or class of the
user's, a derivative adsrc made, ...): what each means, emitted as its IR statement (a mixin of Calls, calls.py)."""

import builtins
import collections
import functools
import inspect
import operator
import types

import gast
import numpy as np

from .. import astutil, primitives
from ..astutil import dotted
from ..keys import hashable
from ..checkpoint import Checkpointed
from ..vmap import Vmapped, vmap
from .. import rules as rules_mod
from ..ir import nodes as ir
from .method_calls import MUTATING_METHODS, REFUSED_METHODS
from ..rules.runtime_rules import COPYING
from ..rules.sharing import call_changing
from . import closures, unpacked_dicts
from .class_inference import summed
from .object_classes import _plain_class, _record_type, is_user_function, user_class
from .checkpoint import checkpoint_call
from .derivatives import FUNCTIONAL, is_derivative
from .namespaces import is_namespace_function
from .inplace_methods import is_shuffle

# builtins that reach variables by name at run time (a differentiated value inside a string...)
_READS_NAMES = (eval, exec, locals, vars, globals, compile)


# operator.iadd(a, x) and a.__iadd__(x): `a += x` without rebinding a
_AUGMENTED = {operator.iadd: gast.Add, operator.isub: gast.Sub, operator.imul: gast.Mult,
              operator.itruediv: gast.Div, operator.ifloordiv: gast.FloorDiv, operator.imod: gast.Mod,
              operator.ipow: gast.Pow, operator.imatmul: gast.MatMult, operator.iconcat: gast.Add}


def callable_name(obj, node=None):
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qual is None and node is not None:
        return dotted(node)
    if mod in (None, "builtins"):
        return qual or repr(obj)
    if mod.startswith("numpy"):
        return "np." + (qual or "?") if mod == "numpy" or isinstance(obj, np.ufunc) else f"{mod}.{qual}"
    return f"{mod}.{qual}"


def _adds(cls):
    """Does cls (a class of the user's, or None) define `+` in Python?"""
    return cls is not None and any(is_user_function(inspect.getattr_static(cls, m, None))
                                   for m in ("__add__", "__radd__"))


def _getter_expression(obj, e):
    """`operator.itemgetter(k, ...)(v)` as `v[k]` (a tuple of them for several keys), `operator.attrgetter("a.b")(v)`
    as `v.a.b`: what the object known when transforming reads (a sort key); None for any other call."""
    if not isinstance(obj, (operator.itemgetter, operator.attrgetter)) or len(e.args) != 1 or e.keywords or \
            isinstance(e.args[0], gast.Starred):
        return None
    keys = obj.__reduce__()[1]
    if isinstance(obj, operator.itemgetter):
        if not all(type(k) in (int, str, bool) for k in keys):
            return None         # (a slice, a tuple key: not written out)
        parts = [gast.Subscript(value=astutil.clone(e.args[0]), slice=astutil.const(k), ctx=gast.Load()) for k in keys]
    else:
        if not all(isinstance(k, str) and all(p.isidentifier() for p in k.split(".")) for k in keys):
            return None
        parts = []
        for k in keys:
            node = astutil.clone(e.args[0])
            for attr in k.split("."):
                node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
            parts.append(node)
    return parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())


def _no_rule_hint(obj):
    name = getattr(obj, "__name__", None) or type(obj).__name__
    owner = obj.__self__ if isinstance(obj, types.MethodType) else obj
    owner = owner if isinstance(owner, type) else type(owner)
    if not user_class(owner) and is_user_function(getattr(obj, "__func__", None) or getattr(owner, "__call__", None)):
        what = f"a method of an installed library's {owner.__name__}" if isinstance(obj, types.MethodType) else \
            f"an object of an installed library's class {owner.__name__}, called through its `__call__`"
        return (f"`{name}` is {what}. adsrc does not follow the methods of installed libraries' objects (they "
                "may compute through compiled code adsrc cannot see), and has no derivative rule for it. "
                f"Give it one with `adsrc.defvjp`, wrap the call in a function decorated with `@adsrc.custom_vjp`, "
                "or call it on values that are not differentiated.")
    if getattr(obj, "__module__", None) == "adsrc.tree_util":
        return (f"adsrc follows `{name}` in a function it differentiates when its arguments are passed by position, "
                "without is_leaf= (tree_map: a function and one to three trees of one structure; tree_reduce's "
                "initializer may be a keyword). Pass them so, or write the loop over the tree's parts.")
    if getattr(obj, "__module__", None) == "adsrc.dynamic_calls":
        return ("It differentiates a call of a function value that adsrc finds only when the code runs (an item "
                "of a list of functions, `getattr(module, name)`), which it does for first derivatives only. For "
                "derivatives of higher order, let adsrc see the function when it transforms: pass the functions "
                "as a static argument (a tuple, with static_argnums/static_argnames), or call them by name.")
    if (getattr(obj, "__module__", None) or "").startswith("adsrc."):
        return (f"`{name}` is part of adsrc's own derivative of a function you called (the backward pass of a "
                "custom rule), which adsrc does not differentiate again: a derivative of one order more through "
                "it is not supported (fixed_point's rules give its first and second derivatives). Differentiate "
                "fewer times, or write the function's computation out (a loop) so adsrc can differentiate it "
                "as often as you need.")
    return (f"`{name}` has no Python source adsrc can transform and no derivative rule. Give it one with "
            f"`adsrc.defvjp({name}, ...)`, wrap it in a function decorated with `@adsrc.custom_vjp`, or "
            "call it on values that are not differentiated.")



class StaticCalls:
    """Mixin of the Normalizer's Calls."""

    def static_call(self, e, obj, target):
        getter = _getter_expression(obj, e)
        if getter is not None:
            return self.value(gast.copy_location(getter, e), target or self.temp("item"))
        if obj in _AUGMENTED and len(e.args) == 2 and not e.keywords and \
                not any(isinstance(a, gast.Starred) for a in e.args):
            return self.augmented_call(e, e.args[0], _AUGMENTED[obj], target)
        if isinstance(obj, functools._lru_cache_wrapper) and getattr(obj, "__wrapped__", None) is not None:
            # @functools.lru_cache / @functools.cache on a pure helper: the helper itself (the cache only
            # saves calls)
            fn = obj.__wrapped__
            return self.static_call(gast.copy_location(gast.Call(func=astutil.name(self.bind(fn.__name__, fn)),
                                                                 args=e.args, keywords=e.keywords), e), fn, target)
        if obj is sum and len(e.args) in (1, 2) and not e.keywords and isinstance(e.args[0], (gast.List, gast.Tuple)) \
                and e.args[0].elts and not any(isinstance(v, gast.Starred) for v in e.args[0].elts) and \
                any(_adds(self.expression_class(v)) for v in e.args[0].elts):
            # sum([u, v]) of objects of the user's classes: start + u + v, through their __radd__ / __add__
            return self.value(gast.copy_location(summed(e.args), e), target or self.temp("total"))
        if obj is sum and len(e.args) in (1, 2) and not e.keywords and self.items_named(e.args[0]) is not None and \
                _adds(self.element_class(e.args[0])):
            # sum(vs), vs a list of objects of the user's class made here: sum([vs[0], vs[1], ...])
            items = self.items_named(e.args[0])
            for k, item in enumerate(items.elts):
                name = self.temp(f"{e.args[0].id}_{k}")
                self.value(item, name)
                self.local_classes[name] = self.expression_class(item)
                items.elts[k] = astutil.name(name)
            return self.value(gast.copy_location(summed([items] + e.args[1:]), e), target or self.temp("total"))
        if obj is abs and len(e.args) == 1 and not e.keywords:
            cls = self.expression_class(e.args[0])
            if cls is not None and is_user_function(inspect.getattr_static(cls, "__abs__", None)):
                # abs(v) on an object of the user's class: v.__abs__()
                return self.call(gast.copy_location(gast.Call(func=gast.Attribute(
                    value=e.args[0], attr="__abs__", ctx=gast.Load()), args=[], keywords=[]), e), target)
        if obj is primitives.within_grad:
            if e.args or e.keywords:
                raise self.error(e, "adsrc.within_grad() takes no arguments.")
            return self.emit_op(ir.Const, target, astutil.const(True), e)
        if primitives.is_primitive(obj):
            return getattr(self, "prim_" + primitives.primitive_name(obj))(e, target)
        if is_derivative(obj):
            return self.derivative_call(e, obj, target)
        from .. import jacobians, nested_jacobians
        if obj is jacobians.hvp:                        # adsrc.hvp(f, x, v)
            call = self.hvp_call(e)
            if call is not None:
                return self.call(call, target)
        made = nested_jacobians.jacobian_of(obj)        # J = adsrc.jacobian(f) made outside, called here
        call = self.jacobian_call(e, made[0], made[1]) if made is not None else None
        if call is not None:
            return self.call(call, target)
        if is_namespace_function(obj):
            return self.namespace_made(e, target)
        if any(obj is f for f in _READS_NAMES):
            raise self.error(e, f"`{obj.__name__}` reads or runs code through names adsrc cannot follow, so "
                                "its gradient would be lost.", "Write the expression out in the function.")
        from ..custom import custom_vjp
        if isinstance(obj, custom_vjp):
            if e.keywords or len(e.args) < obj.nargs:
                e = self.custom_positional(e, obj)      # f(x, y=y), defaults: by position, as JAX resolves them
            return self.emit_op(ir.CallCustom, target, self.plain_call(e, e.func), e, callee=obj)
        if isinstance(obj, Vmapped):               # v = adsrc.vmap(f), called here (lowering/vmap_calls.py)
            return self.vmapped_call(e, obj, None, target)
        if obj is vmap:
            return self.vmap_value(e, target)
        if isinstance(obj, Checkpointed):          # adsrc.checkpoint (lowering/checkpoint.py)
            return checkpoint_call(self, e, obj, target)
        if obj is collections.deque:
            return self.deque_call(e, target)
        if (obj is builtins.min or obj is builtins.max) and self.extremum_call(e, obj, target):
            return
        return self.known_callee_call(e, obj, target)

    def known_callee_call(self, e, obj, target):
        """A call of obj, known when transforming and none of the objects static_call takes apart: NumPy's
        ufuncs and writers, builtins that pass values through, functions with rules, the user's functions,
        classes and callable objects, else an Opaque call."""
        if isinstance(obj, np.ufunc) and len(e.args) == obj.nin + 1 and obj.nout == 1 and \
                not any(isinstance(a, gast.Starred) for a in e.args) and all(k.arg != "out" for k in e.keywords):
            # np.sin(x, buf): the output array given by position, as `out=buf`
            e = gast.copy_location(gast.Call(func=e.func, args=e.args[:-1], keywords=list(e.keywords) + [
                gast.keyword(arg="out", value=e.args[-1])]), e)
        if e.keywords and self.argument_form(e, obj, target):      # np.sum(a, where=m)
            return
        if self.starred_einsum(e, obj, target):                     # np.einsum(spec, *ops)
            return
        special = _BUILTIN_CALLS.get(obj) if hashable(obj) else None
        if special is not None:
            return getattr(self, special)(e, target)
        if obj is functools.partial:
            return self.make_partial(e, target)
        if obj is object.__new__ and len(e.args) == 1 and _plain_class(self.resolved(e.args[0]) or object):
            return self.new_object(e.args[0], self.resolved(e.args[0]), target, e)
        if getattr(obj, "_adsrc_numpy_helper", obj) is call_changing:     # (xp/dispatch.py wraps helpers)
            return self.changing_call(e, target)
        if is_shuffle(obj):                          # rng.shuffle(x), np.random.shuffle(x) (inplace_methods.py)
            return self.shuffle_call(e, obj, target)
        if isinstance(getattr(obj, "__self__", None), np.ufunc) and getattr(obj, "__name__", "") == "at":
            return self.ufunc_at(e, obj, target)
        if obj is np.copyto or obj is np.fill_diagonal:
            return self.writer(e, obj, target)
        if obj is np.putmask or obj is np.place:
            return self.masked_writer(e, obj, target)
        if obj is np.nan_to_num and self.nan_to_num_in_place(e, target):
            return
        if hashable(obj) and obj in FUNCTIONAL and not e.keywords:
            return self.functional_call(e, obj, target)
        if hashable(obj) and obj in COPYING:
            return self.copying_call(e, obj, target)
        from .. import flatten
        if isinstance(obj, flatten._Unravel):       # unravel(v), the function ravel_pytree returned: a rule's call
            call = gast.Call(func=astutil.name(self.bind("unravel_with", flatten.unravel_with)),
                             args=[e.func] + list(e.args), keywords=list(e.keywords))
            return self.call(call, target)
        rule = rules_mod.lookup(obj)
        if rule is not None:
            return self.rule_call(e, e.func, rule, target)
        if self.written_call(e, obj, target):      # a NumPy function written in plain NumPy (written.py)
            return
        if is_user_function(obj):
            expanded = unpacked_dicts.expanded_call(self, e, obj)     # model(x, **params)
            if expanded is not None:
                return self.call(expanded, target)
            passing = closures.passing_closures(self, e, obj)    # f(lambda t: k * t, ...), k a variable here
            if passing is not None:
                return self.call(passing, target)
            return self.emit_op(ir.CallUser, target, self.plain_call(e, e.func), e, callee=obj)
        if isinstance(obj, types.MethodType) and is_user_function(obj.__func__) and isinstance(e.func, gast.Attribute) \
                and user_class(obj.__self__ if isinstance(obj.__self__, type) else type(obj.__self__)):
            # obj.method(x) on an object of the user's class known when transforming: method(obj, x) (an installed
            # library's objects stay opaque, as when they are arguments: object_args.py)
            return self.emit_op(ir.CallUser, target, self.plain_call(e, e.func), e, callee=obj.__func__,
                                receiver=astutil.clone(e.func.value), receiver_value=obj.__self__)
        if isinstance(obj, functools.partial):
            return self.call_partial_object(e, obj, target)
        if isinstance(obj, type) and _record_type(obj):
            return self.construct(e, obj, target)
        if isinstance(obj, type) and _plain_class(obj):
            return self.construct_object(e, obj, target)
        call = getattr(type(obj), "__call__", None)
        if not isinstance(obj, type) and is_user_function(call) and user_class(type(obj)):
            # a callable object: obj(x) is type(obj).__call__(obj, x)
            return self.emit_op(ir.CallUser, target, self.plain_call(e, e.func), e, callee=call, receiver=e.func,
                                receiver_value=obj)
        if isinstance(getattr(obj, "__self__", None), (list, dict, set)) and \
                getattr(obj, "__name__", None) in MUTATING_METHODS | REFUSED_METHODS:
            # `box.items.append(v)` with `box` known when transforming: changes an object adsrc does not own
            expr = self.plain_call(e, e.func)
            self.emit(ir.Effect(expr, writes=dotted(e.func.value) if isinstance(e.func, gast.Attribute)
                                else callable_name(obj)), e)
            if target is not None:
                self.emit(ir.Const(target, astutil.const(None)), e)
            return
        return self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e,
                            describe=f"`{callable_name(obj, e.func)}`", hint=_no_rule_hint(obj),
                            fresh=isinstance(obj, type))




_BUILTIN_CALLS = {builtins.map: "b_map", builtins.filter: "b_filter", builtins.zip: "b_zip",
                  builtins.enumerate: "b_enumerate", builtins.reversed: "b_reversed", builtins.sorted: "b_sorted",
                  builtins.dict: "b_dict", builtins.getattr: "b_getattr", builtins.next: "b_next",
                  functools.reduce: "b_reduce", builtins.setattr: "b_setattr", object.__setattr__: "b_setattr"}
