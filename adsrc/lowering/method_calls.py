"""Method calls, for the Normalizer: `obj.method(...)` on a value. A method with a rule (ndarray's), the
list/dict/set methods that change their object (emitted as MutatingCall, which functionalize.py rewrites),
dict views, `np.add.at`-style ufunc methods and NumPy's writers into an argument, a module's missing
function (Python's AttributeError), or a method adsrc cannot see into (an error only if it must be
differentiated, naming what to do)."""

import inspect
import types

import gast
import numpy as np

from .. import astutil
from .. import rules as rules_mod
from ..astutil import dotted
from ..ir import nodes as ir
from . import object_classes
from .object_classes import is_user_function


# methods that change their object in place, rewritten by functionalize.py
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "clear", "update", "setdefault", "sort",
                              "reverse", "fill", "remove", "__delitem__"})
# ... and those adsrc does not rewrite
REFUSED_METHODS = frozenset({"resize", "put", "itemset", "setfield", "popitem", "partition", "byteswap",
                             "setflags", "discard", "add"})
_DICT_VIEWS = {"values": "dict_values", "items": "dict_items", "keys": "dict_keys"}
_AUGMENTED_METHODS = {"__iadd__": gast.Add, "__isub__": gast.Sub, "__imul__": gast.Mult, "__itruediv__": gast.Div,
                      "__ifloordiv__": gast.FloorDiv, "__imod__": gast.Mod, "__ipow__": gast.Pow,
                      "__imatmul__": gast.MatMult}


class MethodCalls:
    """Mixin of the Normalizer's Calls: calls of a value's methods."""

    def is_dict_view(self, e):
        f = e.func if isinstance(e, gast.Call) else None
        return isinstance(f, gast.Attribute) and f.attr in _DICT_VIEWS and not e.args and not e.keywords

    # -- methods of values ----------------------------------------------------------------------------
    def method_call(self, e, target):
        if self.library_method_call(e, target):          # dist.logpdf(x), rng.normal(mu, s)
            return None
        f = e.func
        name = f.attr
        if name in _AUGMENTED_METHODS and len(e.args) == 1 and not e.keywords and \
                self.expression_class(f.value) is None and self.inferred_class(f.value) is None and \
                not isinstance(e.args[0], gast.Starred):
            return self.augmented_call(e, f.value, _AUGMENTED_METHODS[name], target)     # a.__iadd__(x)
        if isinstance(f.value, gast.Call) and self.static(f.value.func) is super and not f.value.args:
            return self.super_call(e, target)
        if isinstance(f.value, gast.Call) and object_classes.made_class(self.resolved(f.value.func)):
            # Model(params).loss(x): the new object's class is known
            receiver = self.atom(f.value)
            return self.method_call(gast.Call(func=gast.Attribute(value=receiver, attr=name, ctx=gast.Load()),
                                              args=e.args, keywords=e.keywords), target)
        if self.unbound_method_call(e, target):          # self.act(z) with act a staticmethod
            return
        cls = self.inferred_class(f.value)
        if cls is not None and is_user_function(inspect.getattr_static(cls, name, None)):
            # self.encoder.encode(x), with self.encoder made an Encoder by __init__
            return self.inferred_receiver_call(e, f.value, cls, name, target)
        method = self.method_of_known_class(f.value, name)
        if method is not None:
            # model.apply(x) on an argument of a registered pytree class: apply(model, x)
            return self.emit_op(ir.CallUser, target, self.plain_call(e, f), e, callee=method,
                                receiver=self.atom(f.value))
        if self.dispatched_method(e, target):       # p.step(f), p = ps[i] of objects of several classes
            return None
        if self.is_dict_view(e):
            return self.helper_apply(target, _DICT_VIEWS[name], [self.atom(f.value)], e)
        e = self.deque_method(e)             # q.popleft(): q.pop(0) (deques.py)
        f, name = e.func, e.func.attr
        if name == "astype" and _astype_without_copy(e):
            # x.astype(t, copy=False) is x itself when x has dtype t, as np.asarray(x, t) is (a view to the aliases)
            return self.call(gast.copy_location(gast.Call(
                func=gast.Attribute(value=astutil.name(self.bind("np", np)), attr="asarray", ctx=gast.Load()),
                args=[f.value] + e.args, keywords=[k for k in e.keywords if k.arg != "copy"]), e), target)
        if name in MUTATING_METHODS:
            receiver = self.item_receiver(f.value, e)
            if name == "update" and e.keywords and all(k.arg is not None for k in e.keywords) \
                    and len(e.args) <= 1 and not any(isinstance(a, gast.Starred) for a in e.args):
                # d.update(x, a=1): d.update(x); d.update({"a": 1})
                keywords = gast.Dict(keys=[astutil.const(k.arg) for k in e.keywords],
                                     values=[k.value for k in e.keywords])
                for arg in e.args + [keywords]:
                    self.emit(ir.MutatingCall(None, receiver, name, [self.atom(arg)]), e)
                if target is not None:
                    self.emit(ir.Const(target, astutil.const(None)), e)
                return
            key = next((k.value for k in e.keywords if k.arg == "key"), None)
            if name == "sort" and key is not None and not (isinstance(key, gast.Constant) and key.value is None):
                # v.sort(key=f, reverse=r): v[:] = sorted(v, key=f, reverse=r), the same list changed in place
                everything = gast.Slice(lower=None, upper=None, step=None)
                whole = gast.Subscript(value=astutil.clone(f.value), slice=everything, ctx=gast.Store())
                call = gast.Call(func=self.builtin_name("sorted"), args=[astutil.clone(f.value)], keywords=e.keywords)
                self.assign_to(gast.copy_location(whole, e), gast.copy_location(call, e))
                if target is not None:
                    self.emit(ir.Const(target, astutil.const(None)), e)
                return
            if any(isinstance(a, gast.Starred) for a in e.args) or e.keywords and name != "sort":
                raise self.error(e, f"`.{name}()` changes its object in place, and adsrc follows that only with "
                                    "its arguments written out (no `*` or keywords).", "Pass the arguments one by one.")
            if name == "sort":
                args = self.sort_arguments(e)
            else:
                args = [self.atom(a) for a in e.args]
            self.emit(ir.MutatingCall(target, receiver, name, args), e)
            self.cut_deque(receiver, name)
            return
        if name == "__array_namespace__":
            return self.namespace_made(e, target)
        if name in ("add", "discard") and isinstance(f.value, gast.Name) and len(e.args) == 1 and not e.keywords:
            # s.add(v), s.discard(v) on a set: s |= {v}, s -= {v} (a change in place functionalize.py follows)
            op = gast.BitOr() if name == "add" else gast.Sub()
            self.statement(gast.fix_missing_locations(gast.copy_location(gast.AugAssign(
                target=astutil.name(f.value.id, gast.Store()), op=op,
                value=gast.Set(elts=[e.args[0]])), e)))
            if target is not None:
                self.emit(ir.Const(target, astutil.const(None)), e)
            return
        if self.inplace_method(e, target):      # x.partition(k), x.resize(n), rng.shuffle(x) (inplace_methods.py)
            return
        if name in REFUSED_METHODS and not (name == "partition" and target is not None):    # (str.partition)
            raise self.error(e, f"the method `.{name}()` changes its object in place, which adsrc does not "
                                "support inside a differentiated function.",
                             "Compute a new value instead (for example `np.sort(x)` or `a + b`).")
        if self.refuse_missing_attribute(f, e):
            if target is not None:
                self.emit(ir.Const(target, astutil.const(None)), e)
            return
        receiver = self.atom(f.value)
        rule = rules_mod.METHODS.get(name)
        if rule is not None:
            return self.rule_call(e, f, rule, target, receiver=receiver)
        hint = f"adsrc has no rule for `.{name}()`; call the NumPy function instead, or register one with " \
               "adsrc.defvjp."
        if isinstance(f.value, gast.Name):
            owner = self.namer.user(f.value.id)
            hint = (f"adsrc has no rule for `.{name}()` and does not know what `{owner}` is when it transforms. "
                    f"If `{owner}` is an argument whose method is Python code, mark it static (static_argnums / "
                    f"static_argnames) so adsrc can transform the method; if it is an object of a registered "
                    f"pytree class that is not itself an argument (an item of one), call the method through "
                    f"its class (`Class.{name}({owner}, ...)`); otherwise call a NumPy function "
                    f"instead, or register a rule with adsrc.defvjp.")
        call = self.plain_call(e, gast.Attribute(value=receiver, attr=name, ctx=gast.Load()))
        if target is None and isinstance(f.value, gast.Name) and self.is_local(f.value.id):
            # run for its effect, which may be to keep its arguments in the object (`o.set(x)`)
            self.emit(ir.Effect(call, may_change=f"{f.value.id}.{name}", hint=hint), e)
            return
        self.emit_op(ir.Opaque, target, call, e, describe=f"the method `.{name}()`", hint=hint,
                     dynamic=astutil.spelled_out(call))

    def refuse_missing_attribute(self, f, e):
        """`np.frobnicate(x)`, a module's function that does not exist: Python's AttributeError, said when
        transforming (not a missing rule of a method) if the function's body runs it unconditionally. In a
        branch, a loop or a `try` (`np.trapezoid(f) if hasattr(np, "trapezoid") else np.trapz(f)`, for
        another NumPy) the call raises the AttributeError when it runs, as Python does; True then."""
        if not isinstance(f.value, gast.Name) or self.is_local(f.value.id):
            return False
        kind, module = self.uf.lookup(f.value.id)
        if kind in ("global", "closure", "builtin") and isinstance(module, types.ModuleType) and \
                not hasattr(module, f.attr):
            message = f"module `{module.__name__}` has no attribute `{f.attr}` (`{f.value.id}` is " \
                      f"`{module.__name__}`): Python raises AttributeError here."
            if self.depth <= 1:
                raise self.error(f, message, "Check the function's name in the module's documentation.")
            exc = astutil.call(self.builtin_name("AttributeError"),
                               [astutil.const(f"{message} ({self.uf.loc(f)}, in {self.uf.name})")])
            self.emit(ir.Raw(gast.Raise(exc=exc, cause=None)), e)
            return True
        return False

    def item_receiver(self, value, e):
        """The local name whose object a mutating method changes (`groups[k].append(v)`: an item of groups)."""
        if isinstance(value, gast.Name) and self.is_local(value.id):
            return value.id
        atom = self.atom(value)
        if isinstance(atom, gast.Name) and self.is_local(atom.id):
            return atom.id
        raise self.error(e, f"`.{e.func.attr}()` changes its object in place, and adsrc can follow such changes "
                            "only on local variables.", "Build a new list or array in a local variable instead.")

    # -- functions defined or bound in this function -----------------------------------------------
    def ufunc_at(self, e, obj, target):
        ufunc = obj.__self__
        if ufunc not in (np.add, np.subtract) or len(e.args) != 3 or e.keywords:
            raise self.error(e, f"`{dotted(e.func)}` writes into its argument in place, which adsrc cannot "
                                "differentiate.", "Compute a new array instead.")
        a = self.item_receiver(e.args[0], e) if isinstance(e.args[0], gast.Name) else None
        if a is None:
            raise self.error(e, f"`{dotted(e.func)}` writes into an object adsrc does not own.",
                             "Apply it to a local array.")
        idx = self.atom(e.args[1])
        values = self.atom(e.args[2])
        if ufunc is np.subtract:
            values = self.atom(gast.UnaryOp(op=gast.USub(), operand=values))
        new = self.temp(a)
        self.helper_apply(new, "add_at_copy", [astutil.name(a), idx, values], e)
        self.emit(ir.SetItem(a, astutil.const(Ellipsis), astutil.name(new)), e)
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)

    def masked_writer(self, e, obj, target):
        """np.putmask(a, mask, v) is a[...] = np.where(mask, np.resize(v, a.shape), a); np.place(a, mask, v) is
        a[mask] = np.resize(v, np.count_nonzero(mask)) (v repeated in order, as both do)."""
        name = "np.putmask" if obj is np.putmask else "np.place"
        if len(e.args) != 3 or e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(e, f"adsrc follows `{name}(a, mask, values)` only with three positional arguments.", None)
        dst = self.item_receiver(e.args[0], e)
        np_ = astutil.name(self.bind("np", np))

        def np_call(fn, *args):
            return gast.Call(func=gast.Attribute(value=astutil.clone(np_), attr=fn, ctx=gast.Load()), args=list(args),
                             keywords=[])
        mask = self.atom(e.args[1])          # (computed once, before the values, as NumPy's call does)
        if obj is np.putmask:
            index = astutil.const(Ellipsis)
            resized = np_call("resize", e.args[2], np_call("shape", astutil.name(dst)))
            value = np_call("where", astutil.clone(mask), resized, astutil.name(dst))
        else:
            index = mask
            value = np_call("resize", e.args[2], np_call("count_nonzero", astutil.clone(mask)))
        self.emit(ir.SetItem(dst, index, self.atom(gast.copy_location(value, e))), e)
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)

    def writer(self, e, obj, target):
        """np.copyto(dst, src) is dst[...] = src; np.fill_diagonal(a, v) is a[diagonal] = v."""
        name = "np.copyto" if obj is np.copyto else "np.fill_diagonal"
        where = [k.value for k in e.keywords if k.arg == "where"] if obj is np.copyto else []
        if len(e.args) != 2 or len(e.keywords) != len(where):
            raise self.error(e, f"adsrc follows `{name}(a, b)` only with two positional arguments"
                                f"{' (and where=)' if obj is np.copyto else ''}.", None)
        dst = self.item_receiver(e.args[0], e)
        if where:       # np.copyto(a, b, where=mask): a[...] = np.where(mask, b, a)
            value = self.atom(gast.Call(func=gast.Attribute(value=astutil.name(self.bind("np", np)), attr="where",
                                                            ctx=gast.Load()),
                                        args=[where[0], e.args[1], astutil.name(dst)], keywords=[]))
        else:
            value = self.atom(e.args[1])
        if obj is np.copyto:
            index = astutil.const(Ellipsis)
        else:
            index = astutil.name(self.temp("diagonal"))
            self.emit(ir.Const(index.id, astutil.call(astutil.name(self.namer.helper("diagonal_index")),
                                                      [astutil.name(dst)])), e)
        self.emit(ir.SetItem(dst, index, value), e)
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)


def _astype_without_copy(e):
    """`x.astype(dtype, copy=False)` (dtype by position or keyword, nothing else)?"""
    copy = [k.value for k in e.keywords if k.arg == "copy"]
    return len(copy) == 1 and isinstance(copy[0], gast.Constant) and copy[0].value is False and \
        len(e.args) + len(e.keywords) == 2 and all(k.arg in ("copy", "dtype") for k in e.keywords)
