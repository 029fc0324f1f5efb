"""Array methods and NumPy calls that change an array in place, followed as new values (copy-on-write), for the
Normalizer's Calls:

    x.partition(k, axis)               x[...] = np.partition(x, k, axis)
    rng.shuffle(x, axis=0)             order = rng.permutation(np.shape(x)[axis]); x[:] = np.take(x, order, axis)
    np.random.shuffle(x)               the same, with np.random's global generator
    x.resize(shape, refcheck=True)     x = resized_value(x, shape)   (a MutatingCall: the names sharing x follow)
    np.nan_to_num(x, copy=False)       x[...] = np.nan_to_num(x); the call's value is x itself
    x.itemset(...)                     on NumPy 2, Python's AttributeError, raised when the line runs

`rng.permutation(n)` draws exactly the numbers `rng.shuffle` draws for an axis of length n (NumPy's Fisher-Yates
shuffle in both), so the generator's state after the call is the one Python leaves. An array's writes reach its
views, as in NumPy (functionalize.py brings every name sharing the array up to date).
"""

import gast
import numpy as np

from .. import astutil
from ..ir import nodes as ir

_RNG_CLASSES = (np.random.Generator, np.random.RandomState)
# NumPy 2 removed ndarray.itemset
HAS_ITEMSET = hasattr(np.ndarray, "itemset")


def is_shuffle(obj):
    """Is obj a generator's bound `shuffle` (`rng.shuffle` with rng known when transforming) or np.random.shuffle?"""
    return obj is np.random.shuffle or getattr(obj, "__name__", None) == "shuffle" and \
        isinstance(getattr(obj, "__self__", None), _RNG_CLASSES)


class InplaceMethods:
    """Mixin of the Normalizer's Calls."""

    def _np_attr(self, fn):
        return gast.Attribute(value=astutil.name(self.bind("np", np)), attr=fn, ctx=gast.Load())

    def _none_to(self, target, e):
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)

    def _plain_arguments(self, e, what):
        if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            raise self.error(e, f"adsrc follows `{what}` only with its arguments written out (no `*` or `**`).",
                             "Pass the arguments one by one.")

    def inplace_method(self, e, target):
        """x.partition(...), x.resize(...), x.itemset(...), rng.shuffle(x) on a receiver adsrc has no class for:
        True if emitted here."""
        name = e.func.attr
        if name == "partition" and target is None:       # (str.partition's value is used: not this)
            self._plain_arguments(e, ".partition()")
            dst = self.item_receiver(e.func.value, e)
            call = gast.Call(func=self._np_attr("partition"), args=[astutil.name(dst)] + list(e.args),
                             keywords=list(e.keywords))
            self.emit(ir.SetItem(dst, astutil.const(Ellipsis), self.atom(gast.copy_location(call, e))), e)
            self._none_to(target, e)
            return True
        if name == "resize":
            return self.resize_method(e, target)
        if name == "itemset":
            return self.itemset_method(e, target)
        if name == "shuffle" and len(e.args) == 1:
            self._plain_arguments(e, ".shuffle()")
            if e.keywords and [k.arg for k in e.keywords] != ["axis"]:
                return False
            rng = e.func.value
            known = isinstance(rng, gast.Name) and self.library_objects.get(rng.id, ("",))[0] == "generator"
            if not known:           # (an argument, an attribute: a NumPy generator's method, checked when it runs)
                where = astutil.const(f"{self.uf.loc(e)}, in {self.uf.name}")
                self.emit(ir.Effect(astutil.call(astutil.name(self.namer.helper("check_numpy_generator")),
                                                 [self.atom(rng), where])), e)
            self.shuffle(e, rng, e.args[0], e.keywords[0].value if e.keywords else None, target)
            return True
        return False

    # -- shuffle --------------------------------------------------------------------------------------------------
    def shuffle_call(self, e, obj, target):
        """rng.shuffle(x[, axis]) with rng known when transforming, or np.random.shuffle(x)."""
        self._plain_arguments(e, "shuffle")
        given = dict(zip(("x", "axis"), e.args))
        given.update({k.arg: k.value for k in e.keywords})
        if "x" not in given or set(given) - ({"x", "axis"} if obj is not np.random.shuffle else {"x"}):
            raise self.error(e, "adsrc follows `shuffle(x)` (and a Generator's `shuffle(x, axis)`) only with "
                                "these arguments.", None)
        rng = astutil.name(self.bind("random_state", obj.__self__)) if hasattr(obj, "__self__") else \
            self._np_attr("random")
        self.shuffle(e, rng, given["x"], given.get("axis"), target)

    def shuffle(self, e, rng, x, axis, target):
        """x[:] = np.take(x, rng.permutation(len of x's axis), axis): the permutation is drawn when the code runs,
        and the gradient moves the cotangent back through it."""
        dst = self.item_receiver(x, e)
        axis = axis if axis is not None else astutil.const(0)
        length = gast.Subscript(value=astutil.call(self._np_attr("shape"), [astutil.name(dst)]),
                                slice=astutil.clone(axis), ctx=gast.Load())
        order = self.temp("order")
        draw = gast.Call(func=gast.Attribute(value=astutil.clone(rng), attr="permutation", ctx=gast.Load()),
                         args=[length], keywords=[])
        self.call(gast.fix_missing_locations(gast.copy_location(draw, e)), order)
        taken = gast.Call(func=self._np_attr("take"), args=[astutil.name(dst), astutil.name(order)],
                          keywords=[gast.keyword(arg="axis", value=astutil.clone(axis))])
        everything = gast.Slice(lower=None, upper=None, step=None)
        self.emit(ir.SetItem(dst, everything, self.atom(gast.fix_missing_locations(gast.copy_location(taken, e)))),
                  e)
        self._none_to(target, e)

    # -- resize ---------------------------------------------------------------------------------------------------
    def resize_method(self, e, target):
        """x.resize(shape) / x.resize(d0, d1, ...), refcheck= as a keyword: x's new value is x's elements in order,
        cut or padded with zeros to the new shape, as NumPy's ndarray.resize gives (np.resize repeats instead)."""
        self._plain_arguments(e, ".resize()")
        if any(k.arg != "refcheck" for k in e.keywords) or not e.args:
            raise self.error(e, "adsrc follows `x.resize(new_shape)` and `x.resize(n0, n1, ...)` (with "
                                "`refcheck=`) only.", "Give the new shape.")
        shape = self.atom(e.args[0]) if len(e.args) == 1 else \
            self.atom(gast.Tuple(elts=list(e.args), ctx=gast.Load()))
        refcheck = next((k.value for k in e.keywords if k.arg == "refcheck"), astutil.const(True))
        receiver = self.item_receiver(e.func.value, e)
        # (functionalize.py checks what else may refer to the array: resize_checks.py)
        self.emit(ir.MutatingCall(None, receiver, "resize", [shape, self.atom(refcheck)]), e)
        self._none_to(target, e)
        return True

    # -- itemset --------------------------------------------------------------------------------------------------
    def itemset_method(self, e, target):
        """x.itemset(*index, value): x[index] = value on NumPy < 2; on NumPy 2 the method does not exist and the
        line raises AttributeError when it runs, as Python's does (a branch not taken does not)."""
        self._plain_arguments(e, ".itemset()")
        if HAS_ITEMSET and e.args and not e.keywords:        # (NumPy 1: a flat index, or one index per axis)
            dst = self.item_receiver(e.func.value, e)
            *index, value = e.args
            if not index:               # (an array of one element: NumPy 1 raises for more)
                key = astutil.const(Ellipsis)
            elif len(index) == 1:
                key = astutil.call(self._np_attr("unravel_index"),
                                   [index[0], astutil.call(self._np_attr("shape"), [astutil.name(dst)])])
            else:
                key = gast.Tuple(elts=index, ctx=gast.Load())
            self.emit(ir.SetItem(dst, self.atom(key), self.atom(value)), e)
            self._none_to(target, e)
            return True
        message = (f"'numpy.ndarray' object has no attribute 'itemset' (NumPy {np.__version__} removed "
                   f"ndarray.itemset; write `x[index] = value`) ({self.uf.loc(e)}, in {self.uf.name})")
        if self.depth <= 1:
            raise self.error(e, "`.itemset()` does not exist in NumPy 2 (Python raises AttributeError here).",
                             "Write `x[index] = value` instead.")
        exc = astutil.call(self.builtin_name("AttributeError"), [astutil.const(message)])
        self.emit(ir.Raw(gast.Raise(exc=exc, cause=None)), e)
        self._none_to(target, e)
        return True

    # -- np.nan_to_num(x, copy=False) -----------------------------------------------------------------------------
    def nan_to_num_in_place(self, e, target):
        """np.nan_to_num(x, copy=False, ...) with x a local name: x[...] = np.nan_to_num(x, ...), and the call's value
        is x. False (the ordinary rule) for copy=True or a value that is not a local name."""
        if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords) or \
                len(e.args) > len(_NAN_TO_NUM):
            return False
        given = dict(zip(_NAN_TO_NUM, e.args))
        given.update({k.arg: k.value for k in e.keywords})
        copy, x = given.pop("copy", None), given.pop("x", None)
        if not (isinstance(copy, gast.Constant) and copy.value is False) or not isinstance(x, gast.Name) or \
                not self.is_local(x.id):
            return False
        dst = x.id
        # NumPy's own first step, np.array(x, subok=True, copy=False): no copy of an array; for a number or a
        # list, NumPy 2's ValueError ("Unable to avoid copy")
        check = gast.Call(func=self._np_attr("array"), args=[astutil.name(dst)],
                          keywords=[gast.keyword(arg="subok", value=astutil.const(True)),
                                    gast.keyword(arg="copy", value=astutil.const(False))])
        self.emit(ir.Effect(check), e)
        call = gast.Call(func=self._np_attr("nan_to_num"), args=[astutil.name(dst)],
                         keywords=[gast.keyword(arg=k, value=v) for k, v in given.items()])
        fixed = self.temp("fixed")
        self.value(gast.fix_missing_locations(gast.copy_location(call, e)), fixed)
        self.emit(ir.SetItem(dst, astutil.const(Ellipsis), astutil.name(fixed)), e)
        if target is not None:          # (the array itself; NumPy gives x[()] for a 0-d x, the same number)
            self.emit(ir.Copy(target, astutil.name(dst)), e)
        return True


_NAN_TO_NUM = ("x", "copy", "nan", "posinf", "neginf")
