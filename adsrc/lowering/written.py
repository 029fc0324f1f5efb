"""Calls of NumPy functions that adsrc differentiates through their plain-NumPy versions (rules/by_source.py),
including those that take functions: `np.vectorize(f)(x)`, `v = np.vectorize(f); v(x)` and
`np.piecewise(x, [c1, c2], [f1, f2])` with functions written in the differentiated function.

The functions they take are passed on like any function passed to a module function (closures.py).
"""

import gast
import numpy as np

from .. import astutil
from ..keys import hashable
from ..errors import TransformError
from ..ir import nodes as ir
from ..rules import by_source


class Written:
    """Mixin of the Normalizer (calls.py)."""

    def written_call(self, e, obj, target):
        """Emit the call e of obj as a call of its plain-NumPy version: True, or False if it has none."""
        if obj is np.put or obj is np.put_along_axis:
            self.put(e, obj, target)
            return True
        if obj is np.piecewise and len(e.args) >= 3 and isinstance(e.args[2], (gast.List, gast.Tuple)) and \
                not any(isinstance(a, gast.Starred) for a in e.args) and all(k.arg for k in e.keywords) and \
                (target is None or isinstance(target, str)):
            self.piecewise(e, target)
            return True
        signature = _signature(e) if obj is np.vectorize else None
        if obj is np.frompyfunc and _one_output_ufunc(e) and isinstance(target, str) and target in self.single and \
                self._only_called(target):
            # u = np.frompyfunc(f, nin, 1): u(x) as np.vectorize(f)(x) (a float array where NumPy's is an object
            # array of the same numbers)
            self.functions[target] = ("vectorized", e.args[0], None, e.args[1].value)
            self.emit_op(ir.Const, target, astutil.const(None), e)
            return True
        if obj is np.vectorize and len(e.args) == 1 and (not e.keywords or signature) and isinstance(target, str) \
                and target in self.single:
            # v = np.vectorize(f): calls v(x) are calls of by_source.vectorized_1(f, x)
            self.functions[target] = ("vectorized", e.args[0], signature)
            reads = [n for n in astutil.walk(self.uf.node) if isinstance(n, gast.Name) and n.id == target and
                     isinstance(n.ctx, gast.Load)]
            calls = [n.func for n in astutil.walk(self.uf.node) if isinstance(n, gast.Call) and n.func in reads]
            if len(calls) == len(reads):        # only ever called: nothing reads the object itself
                self.emit_op(ir.Const, target, astutil.const(None), e)
                return True
            made = gast.Call(func=astutil.name(self.bind("vectorize", np.vectorize)), args=[self.atom(e.args[0])],
                             keywords=list(e.keywords))
            self.emit_op(ir.Opaque, target, made, e, describe="a np.vectorize object used as a value",
                         hint="Call it in this function.", function=True)
            return True
        try:
            written = by_source.implementation(obj)
        except TransformError as err:        # a form it does not follow
            raise self.error(e, str(err)) from None
        if written is None:
            return False
        fn, first = written
        if isinstance(fn, dict):         # one version per number of arguments (np.vectorize, tree_map)
            starred = any(isinstance(a, gast.Starred) for a in e.args)
            fn = None if starred or e.keywords and "keywords" not in fn else fn["keywords"] if e.keywords else \
                fn.get(len(e.args) - (first == ""))     # ("keywords": the version that takes them)
            if fn is None:
                return False
        args = []
        if first == "self":          # np.logaddexp.reduce(x): the ufunc first
            owner = obj.__self__
            args = [astutil.clone(e.func.value) if isinstance(e.func, gast.Attribute) else
                    astutil.name(self.bind(owner.__name__, owner))]
        elif first:                  # a np.vectorize object: its function first
            args = [gast.Attribute(value=astutil.clone(e.func), attr=first, ctx=gast.Load())]
        call = gast.Call(func=astutil.name(self.bind(fn.__name__, fn)), args=args + list(e.args),
                         keywords=list(e.keywords))
        self.call(call, target)
        return True

    def argument_form(self, e, obj, target):
        """A call of a NumPy function with a keyword its rule does not take (`np.sum(a, where=m)`), emitted as
        the plain-NumPy form that takes it: True, or False."""
        if isinstance(obj, np.ufunc) and obj.nout == 1 and obj.nin in (1, 2) and len(e.args) == obj.nin and \
                any(k.arg == "where" for k in e.keywords) and {k.arg for k in e.keywords} <= {"where", "out"} and \
                not any(isinstance(a, gast.Starred) for a in e.args):
            return self.ufunc_where(e, obj, target)
        if obj is np.array and {k.arg for k in e.keywords} <= {"copy", "dtype"} and \
                any(k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value in (False, None)
                    for k in e.keywords):
            # np.array(a, copy=False) (NumPy 2: a itself, or an error if a copy is needed), copy=None: np.asarray
            func = gast.Attribute(value=astutil.name(self.bind("np", np)), attr="asarray", ctx=gast.Load())
            keywords = [k for k in e.keywords if k.arg != "copy"]
            self.call(gast.copy_location(gast.Call(func=func, args=list(e.args), keywords=keywords), e), target)
            return True
        forms = by_source.ARGUMENT_FORMS.get(obj) if hashable(obj) else None
        fn = next((forms[k.arg] for k in e.keywords if forms is not None and k.arg in forms), None)
        if fn is None:
            return False
        self.call(self.helper_call(fn.__name__, list(e.args), e.keywords), target)
        return True

    def ufunc_where(self, e, fn, target):
        """`np.divide(a, b, out=buf, where=m)`: by_source's ufunc_where (values of fn where m holds, buf's
        elsewhere), written into buf as NumPy does, and buf the result."""
        keywords = {k.arg: k.value for k in e.keywords}
        out = keywords.get("out")
        out = None if isinstance(out, gast.Constant) and out.value is None else out
        if isinstance(out, gast.Tuple) and len(out.elts) == 1:
            out = out.elts[0]
        if isinstance(out, gast.Call):              # out=np.zeros_like(a): a new array, in a name of its own
            buf = self.temp("out")
            self.value(out, buf)
            out = astutil.name(buf)
        if out is not None and not (isinstance(out, gast.Name) and self.is_local(out.id)):
            raise self.error(e, f"`{fn.__name__}(..., out=...)` writes into an object adsrc does not own.",
                             "Assign the result instead, with `np.where` for the entries the condition leaves.")
        call = self.helper_call(f"ufunc_where{fn.nin}", [astutil.clone(e.func)] + list(e.args),
                                [gast.keyword(arg="where", value=keywords["where"])] +
                                ([gast.keyword(arg="fill", value=out)] if out is not None else []))
        if out is None:
            self.call(call, target)
            return True
        value = self.temp(fn.__name__)
        self.call(call, value)
        self.statement(gast.fix_missing_locations(gast.copy_location(gast.Assign(
            targets=[gast.Subscript(value=astutil.name(out.id), slice=astutil.const(Ellipsis), ctx=gast.Store())],
            value=astutil.name(value), type_comment=None), e)))
        if target is not None:
            self.emit(ir.Copy(target, astutil.name(out.id)), e)
        return True

    def starred_einsum(self, e, obj, target):
        """`np.einsum(spec, *ops)` (operands of a length known only when the code runs): einsum_of(spec, [...]),
        a call with a rule that takes the operands as one list. True, or False for another call."""
        if obj is not np.einsum or e.keywords or len(e.args) < 2 or isinstance(e.args[0], gast.Starred) or \
                not any(isinstance(a, gast.Starred) for a in e.args[1:]):
            return False
        parts = []
        for a in e.args[1:]:
            if isinstance(a, gast.Starred):
                parts.append(gast.Call(func=self.builtin_name("list"), args=[a.value], keywords=[]))
            else:
                parts.append(gast.List(elts=[a], ctx=gast.Load()))
        operands = parts[0]
        for p in parts[1:]:
            operands = gast.BinOp(left=operands, op=gast.Add(), right=p)
        from ..rules.helpers import einsum_of
        self.call(gast.Call(func=astutil.name(self.bind("einsum_of", einsum_of)), args=[e.args[0], operands],
                            keywords=[]), target)
        return True

    def extremum_call(self, e, obj, target):
        """`min`/`max` in the forms their rule does not take (three or more values, `key=`, `default=`),
        emitted as by_source's min_by/min_of (max_...): True, or False for the rule's forms."""
        keywords = {k.arg: k.value for k in e.keywords}
        if any(isinstance(a, gast.Starred) for a in e.args) or set(keywords) - {"key", "default"} or not e.args:
            return False
        key = keywords.get("key")
        key = None if isinstance(key, gast.Constant) and key.value is None else key
        if len(e.args) <= 2 and key is None and "default" not in keywords:
            return False
        items = e.args[0] if len(e.args) == 1 else gast.List(elts=list(e.args), ctx=gast.Load())
        extra = [keywords.get("default", astutil.const(None)), astutil.const("default" in keywords)]
        name = obj.__name__ + ("_by" if key is not None else "_of")
        self.call(self.helper_call(name, [items] + ([key] if key is not None else []) + extra), target)
        return True

    def _only_called(self, name):
        """Is the local `name` only ever called (nothing reads the object itself)?"""
        nodes = astutil.walk(self.uf.node)
        called = {id(n.func) for n in nodes if isinstance(n, gast.Call)}
        return all(id(n) in called for n in nodes if isinstance(n, gast.Name) and n.id == name and
                   isinstance(n.ctx, gast.Load))

    def vectorized_now(self, e, target):
        """`np.vectorize(f)(x)`: emitted as by_source.vectorized_1(f, x), and `np.frompyfunc(f, 1, 1)(x)` too: True,
        or False for another call."""
        f = e.func
        if isinstance(f, gast.Call) and self.static(f.func) is np.frompyfunc and _one_output_ufunc(f) and \
                f.args[1].value == len(e.args):
            return self.vectorized(f.args[0], e, target)
        if self.static(f.func) is not np.vectorize or len(f.args) != 1 or f.keywords and not _signature(f):
            return False
        return self.vectorized(f.args[0], e, target, _signature(f))

    def vectorized(self, pyfunc, e, target, signature=None):
        """v(x) for v = np.vectorize(pyfunc) (with a literal signature=, one output): True, or False when adsrc
        cannot follow it."""
        fn = self.vectorized_version(e, signature)
        if fn is None:
            return False
        front = [pyfunc] + ([astutil.const(signature)] if signature else [])
        self.call(self.helper_call(fn.__name__, front + list(e.args)), target)
        return True

    @staticmethod
    def vectorized_version(e, signature=None):
        if e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            return None
        return (by_source.VECTORIZED_SIGNATURE if signature else by_source.VECTORIZED).get(len(e.args))

    def piecewise(self, e, target):
        """np.piecewise(x, condlist, [f1, f2, ...]): each function (or constant) written where its condition
        holds, as NumPy does, on the values there only."""
        x, condlist, funcs = self.atom(e.args[0]), e.args[1], e.args[2].elts
        extra = list(e.args[3:])
        conds = self.temp("conditions")
        self.call(self.helper_call("piecewise_conditions", [x, condlist, astutil.const(len(funcs))]), conds)
        out = self.temp("piecewise")
        self.call(self.helper_call("piecewise_start", [x]), out)
        for k, fn in enumerate(funcs):
            cond = gast.Subscript(value=astutil.name(conds), slice=astutil.const(k), ctx=gast.Load())
            if isinstance(fn, (gast.Lambda, gast.Name, gast.Attribute)):
                call = self.helper_call("piecewise_part", [astutil.name(out), x, cond, fn] + extra, e.keywords)
            else:        # a value, not a function
                call = self.helper_call("piecewise_value", [astutil.name(out), cond, fn])
            self.call(call, out)
        if target is not None:
            self.emit(ir.Copy(target, astutil.name(out)), e)

    def put(self, e, obj, target):
        """np.put(a, ind, v) is a[where ind points] = v (v repeated as NumPy does); np.put_along_axis(a, ind, v,
        axis) is a[the index it builds] = v: a write into a local array, followed as any `a[i] = v`."""
        name = "np.put" if obj is np.put else "np.put_along_axis"
        n = 3 if obj is np.put else 4
        if len(e.args) + len(e.keywords) != n or len(e.args) < 3 or any(isinstance(a, gast.Starred) for a in e.args) \
                or any(k.arg not in ("axis", "mode") for k in e.keywords):
            raise self.error(e, f"adsrc follows `{name}` with its arguments written out (no `mode=`).",
                             "Write `a[index] = values` instead.")
        dst = self.item_receiver(e.args[0], e)
        rest = [self.atom(a) for a in e.args[1:]] + [self.atom(k.value) for k in e.keywords if k.arg == "axis"]
        index = self.temp("index")
        helper = "put_index" if obj is np.put else "along_axis_index"
        self.emit(ir.Const(index, self.helper_call(helper, [astutil.name(dst), rest[0]] + rest[2:])), e)
        value = self.temp("values")
        self.call(self.helper_call("put_values", [rest[1], astutil.name(index)]), value)
        self.emit(ir.SetItem(dst, astutil.name(index), astutil.name(value)), e)
        if target is not None:
            self.emit(ir.Const(target, astutil.const(None)), e)

    def helper_call(self, name, args, keywords=()):
        fn = getattr(by_source, name)
        return gast.Call(func=astutil.name(self.bind(name, fn)), args=list(args), keywords=list(keywords))


def _signature(e):
    """The literal `signature=` of a np.vectorize call passing nothing else by keyword, or None."""
    if len(e.keywords) != 1 or e.keywords[0].arg != "signature":
        return None
    value = e.keywords[0].value
    return value.value if isinstance(value, gast.Constant) and isinstance(value.value, str) else None


def _one_output_ufunc(e):
    """`np.frompyfunc(f, nin, 1)` with nin written as a number?"""
    return len(e.args) == 3 and not e.keywords and all(isinstance(a, gast.Constant) and type(a.value) is int
                                                         for a in e.args[1:]) and e.args[2].value == 1
